//! A subject, a sender and a body, routed to the game of the tag and applied to
//! the world its sample left.
#![no_main]

use std::sync::LazyLock;

use nomicbot::fuzzing::Samples;

static SAMPLES: LazyLock<Samples> = LazyLock::new(Samples::play);

libfuzzer_sys::fuzz_target!(|bytes: &[u8]| SAMPLES.route(bytes));
