//! A raw message through the real pipeline, on a database where its game's
//! sample was played.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use nomicbot::fuzzing::Pipeline;

static PIPELINE: LazyLock<Pipeline> =
    LazyLock::new(|| Pipeline::prepare(&folder()).expect("the demos play"));

/// The databases live in `$TMPDIR/nomicbot-fuzz/PID` (a tmpfs such as /dev/shm is
/// faster). libFuzzer ends a run with `exit`, so no process removes its own:
/// each start removes those of the processes that are gone (found in /proc).
fn folder() -> PathBuf {
    let root = std::env::temp_dir().join("nomicbot-fuzz");
    if Path::new("/proc/self").exists()
        && let Ok(entries) = std::fs::read_dir(&root)
    {
        for entry in entries.flatten() {
            if !Path::new("/proc").join(entry.file_name()).exists() {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    root.join(std::process::id().to_string())
}

libfuzzer_sys::fuzz_target!(|raw: &[u8]| PIPELINE.message(raw));
