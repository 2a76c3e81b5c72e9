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

/// The registered games: every folder under `src/games/` with a `mod.rs`, with
/// the tags it declares (`pub const TAG: &str = "...";`).
fn games() -> Vec<(String, Vec<String>)> {
    let dir = repo_root().join("src/games");
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("src/games") {
        let path = entry.expect("entry").path();
        let Ok(text) = std::fs::read_to_string(path.join("mod.rs")) else {
            continue;
        };
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let tags = text
            .lines()
            .filter_map(|l| l.trim().strip_prefix("pub const TAG: &str = \""))
            .filter_map(|l| l.strip_suffix("\";"))
            .map(str::to_owned)
            .collect();
        found.push((name, tags));
    }
    found.sort();
    found
}

/// The code lines of a file (comments and unit tests left out: a test may play
/// a game), with their numbers; in `games/mod.rs`, the registry (`games! { ...
/// }`) is left out too: it is the one place that names every game.
fn code_lines(file: &str) -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(repo_root().join(file))
        .unwrap_or_else(|e| panic!("cannot read {file}: {e}"));
    let mut in_registry = false;
    let mut lines = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed == "#[cfg(test)]" {
            break;
        }
        if trimmed.starts_with("games! {") {
            in_registry = true;
        }
        if in_registry {
            if trimmed == "}" {
                in_registry = false;
            }
            continue;
        }
        if trimmed.starts_with("//") {
            continue;
        }
        lines.push((index + 1, line.to_owned()));
    }
    lines
}

#[test]
fn the_router_the_pipeline_the_cli_and_the_config_loader_name_no_game() {
    let games = games();
    assert!(games.len() >= 3, "too few game folders found: {games:?}");
    let shell = [
        "src/games/mod.rs",
        "src/games/router.rs",
        "src/games/driver.rs",
        "src/games/overrides.rs",
        "src/games/random_officer.rs",
        "src/games/substrate.rs",
        "src/games/table.rs",
        "src/pipeline.rs",
        "src/cli.rs",
        "src/main.rs",
        "src/config.rs",
        // The fuzz targets reach every game through the registry.
        "src/fuzzing.rs",
    ];
    let mut found = Vec::new();
    for file in shell {
        for (number, line) in code_lines(file) {
            for (game, tags) in &games {
                let mut patterns = vec![
                    format!("{game}::"),
                    format!("games::{game}"),
                    format!("\"{game}\""),
                    format!("[{game}]"),
                ];
                for tag in tags {
                    patterns.push(format!("\"{tag}\""));
                    patterns.push(format!("[{tag}]"));
                }
                for pattern in patterns {
                    if line.contains(&pattern) {
                        found.push(format!("{file}:{number}: {pattern}: {}", line.trim()));
                    }
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "adding a game must need one registry line only (docs/ARCHITECTURE.md):\n{}",
        found.join("\n")
    );
}

#[test]
fn no_game_imports_another_games_internals() {
    let games = games();
    let mut found = Vec::new();
    for (game, _) in &games {
        for file in rust_files(&repo_root().join("src/games").join(game)) {
            let text = std::fs::read_to_string(&file).expect("read");
            for (index, line) in text.lines().enumerate() {
                for (other, _) in games.iter().filter(|(other, _)| other != game) {
                    for pattern in [format!("games::{other}"), format!("super::super::{other}")] {
                        if line.contains(&pattern) {
                            found.push(format!(
                                "{}:{}: {}",
                                file.display(),
                                index + 1,
                                line.trim()
                            ));
                        }
                    }
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "a game reaches another only through the shared world:\n{}",
        found.join("\n")
    );
}

/// Issue 22's invariant: a game reads its rules' numbers only through its
/// bindings. Every number a game binds (`Game::bindings`, gathered in the
/// setting) is the name of a field of its bot.toml section: outside the game's
/// `bound.rs` (where the bindings overlay them) and its tests, no line of the
/// game's folder reads `params.NAME` or `params().NAME` (nor the section's
/// `numbers` and `fees` groups), so no mechanic can take a number its rule no
/// longer says.
/// The folder of the game named `name` (`Game::NAME`): the one its name is
/// given in, which is the folder of that name unless the game's name differs
/// (`[contest]`'s games are "contests", in `refereed/`).
fn game_folder(name: &str) -> std::path::PathBuf {
    let games = repo_root().join("src/games");
    let declares = format!("const NAME: &'static str = \"{name}\";");
    let mut folders: Vec<_> = std::fs::read_dir(&games)
        .expect("src/games")
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.is_dir())
        .collect();
    folders.sort();
    folders
        .into_iter()
        .find(|folder| {
            rust_files(folder).iter().any(|file| {
                std::fs::read_to_string(file).is_ok_and(|text| text.contains(&declares))
            })
        })
        .unwrap_or_else(|| games.join(name))
}

#[test]
fn a_game_reads_its_rules_numbers_only_through_its_bindings() {
    let config = nomicbot::config::Config::parse(nomicbot::config::DEFAULT_CONFIG, ".".into())
        .expect("the shipped config parses");
    let lexicon = nomicbot::pipeline::official_dictionary(&config).expect("dictionary");
    let params = nomicbot::pipeline::game_params(&config, lexicon);
    let mut checked = 0;
    let mut found = Vec::new();
    for declared in params.setting.bound.iter() {
        let folder = game_folder(declared.game);
        assert!(
            folder.join("bound.rs").exists(),
            "{} binds its rules: its bindings live in {}/bound.rs",
            declared.game,
            folder.display()
        );
        let mut names: Vec<&str> = declared
            .mechanics
            .iter()
            .flat_map(|m| m.parameters.iter().map(|p| p.name))
            .collect();
        names.extend(["numbers", "fees"]);
        for file in rust_files(&folder) {
            let shown = file
                .strip_prefix(repo_root())
                .unwrap_or(&file)
                .display()
                .to_string();
            if shown.ends_with("bound.rs") || shown.contains("test") {
                continue;
            }
            checked += 1;
            let text = std::fs::read_to_string(&file).expect("source");
            for (index, line) in text.lines().enumerate() {
                for name in &names {
                    for read in [format!("params.{name}"), format!("params().{name}")] {
                        if line.contains(&read) {
                            found.push(format!("{shown}:{}: {}", index + 1, line.trim()));
                        }
                    }
                }
            }
        }
    }
    assert!(checked > 0, "no game declares bindings");
    assert!(
        found.is_empty(),
        "rule numbers read around the bindings:\n{}",
        found.join("\n")
    );
}
