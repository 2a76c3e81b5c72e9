//! A raw message, read by everything the shell reads mail with.
#![no_main]

libfuzzer_sys::fuzz_target!(|raw: &[u8]| nomicbot::fuzzing::intake(raw));
