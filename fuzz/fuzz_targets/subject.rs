//! A subject line, read for its tag.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| nomicbot::fuzzing::subject(bytes));
