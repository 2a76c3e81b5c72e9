//! Writes the seed corpora of the fuzz targets (`fuzz/`), `fuzz/corpus/TARGET/seed-*`:
//! what the samples of every registered game send, written as each target reads
//! it, and the message files of `../shared/corpus` (or the folder given) up to
//! 64 KiB. Run it once before fuzzing (`cargo run --example fuzz_seeds`, see
//! README.md); libFuzzer adds its own finds beside them.

use std::path::{Path, PathBuf};

use nomicbot::fuzzing::{self, Samples};

fn main() -> std::io::Result<()> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = std::env::args_os()
        .nth(1)
        .map_or_else(|| root.join("../shared/corpus"), PathBuf::from);
    if !corpus.is_dir() {
        eprintln!("fuzz_seeds: no corpus folder {}", corpus.display());
        std::process::exit(2);
    }
    let seeds = fuzzing::seeds(&Samples::play(), Some(&corpus), 64 * 1024);
    for target in fuzzing::TARGETS {
        let dir = root.join("fuzz/corpus").join(target);
        std::fs::create_dir_all(&dir)?;
        let mine: Vec<_> = seeds.iter().filter(|(of, _, _)| *of == target).collect();
        for (_, name, bytes) in &mine {
            std::fs::write(dir.join(format!("seed-{name}")), bytes)?;
        }
        println!("{target}: {} seeds in {}", mine.len(), dir.display());
    }
    Ok(())
}
