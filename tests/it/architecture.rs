//! The architecture's invariants that a test can check by reading the source
//! (`docs/ARCHITECTURE.md`): the engine and the games do no I/O and read no
//! clock, and dependencies point one way, shell → games → engine.

use std::path::{Path, PathBuf};

use crate::support::repo_root;

/// Every `.rs` file under `dir`, recursively, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut folders = vec![dir.to_owned()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", folder.display()));
        for entry in entries {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// `file:line: pattern` for every line of the files under `folders` that names
/// one of `forbidden`.
fn offences(folders: &[&str], forbidden: &[&str]) -> (usize, Vec<String>) {
    let mut n_files = 0;
    let mut found = Vec::new();
    for folder in folders {
        for file in rust_files(&repo_root().join(folder)) {
            n_files += 1;
            let text = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
            let shown = file
                .strip_prefix(repo_root())
                .unwrap_or(&file)
                .display()
                .to_string();
            for (index, line) in text.lines().enumerate() {
                for pattern in forbidden {
                    if line.contains(pattern) {
                        found.push(format!("{shown}:{}: {pattern}: {}", index + 1, line.trim()));
                    }
                }
            }
        }
    }
    (n_files, found)
}

#[test]
fn the_engine_and_the_games_do_no_io_and_read_no_clock() {
    let forbidden = [
        "tokio",
        "rusqlite",
        "lettre",
        "async_imap",
        "std::fs",
        "std::net",
        "Timestamp::now",
        "SystemTime::now",
    ];
    let (n_files, found) = offences(&["src/engine", "src/games"], &forbidden);
    assert!(
        n_files >= 2,
        "no source found under src/engine and src/games"
    );
    assert!(
        found.is_empty(),
        "the engine must do no I/O (docs/ARCHITECTURE.md):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_engine_and_the_games_do_not_import_the_shell() {
    let shell = [
        "crate::mail",
        "crate::store",
        "crate::pipeline",
        "crate::run",
        "crate::cli",
        "crate::config",
        "crate::templates",
        "crate::demo",
    ];
    let (_, found) = offences(&["src/engine", "src/games"], &shell);
    assert!(
        found.is_empty(),
        "dependencies point one way, shell → games → engine:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_engine_names_no_game() {
    let (_, found) = offences(&["src/engine"], &["crate::games"]);
    assert!(
        found.is_empty(),
        "the engine never imports a game:\n{}",
        found.join("\n")
    );
}
