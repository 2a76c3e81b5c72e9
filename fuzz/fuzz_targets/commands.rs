//! A tag and command lines, read by every game's parsers.
#![no_main]

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| nomicbot::fuzzing::commands(bytes));
