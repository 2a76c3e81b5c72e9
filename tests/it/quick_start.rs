//! What a newcomer meets first (issue 12, items 9 and 10): the README's commands
//! run literally, the shipped bot.toml, and `outbox --json` as the operator's view
//! of every message.

use crate::support::{LocalBot, at, message, repo_root};

/// The README's fenced block that follows `marker`.
fn readme_block(marker: &str) -> String {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let after = &readme[readme.find(marker).expect("the README has the marker")..];
    let start = after.find("```sh\n").expect("a sh block after the marker") + "```sh\n".len();
    let end = after[start..].find("\n```").expect("the block ends") + start;
    after[start..end].to_owned()
}

#[test]
fn item10_run_the_bot_itself_works_literally_on_a_fresh_checkout() {
    // A fresh checkout: the shipped bot.toml and templates, no var/.
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::copy(repo_root().join("bot.toml"), dir.path().join("bot.toml")).expect("bot.toml");
    nomicbot::templates::write_defaults(&dir.path().join("templates")).expect("templates");
    let block = readme_block("To run the bot itself");
    assert!(block.contains("cargo run -- once"), "{block}");
    // `cargo run --` is the binary this test was built with; the rest is as written.
    let script = block.replace("cargo run --", env!("CARGO_BIN_EXE_nomicbot"));
    let output = std::process::Command::new("sh")
        .arg("-ec")
        .arg(&script)
        .current_dir(dir.path())
        .output()
        .expect("sh");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{script}\nstdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("applied 1"), "{stdout}");
    let sent: Vec<String> = std::fs::read_dir(dir.path().join("var/mail/outbox/new"))
        .expect("the outbox")
        .map(|entry| std::fs::read_to_string(entry.expect("entry").path()).expect("mail"))
        .collect();
    assert_eq!(sent.len(), 2, "{sent:#?}");
    assert!(
        sent.iter()
            .any(|m| m.contains("To: game-list@nomic.example") && m.contains("Alice joined")),
        "{sent:#?}"
    );
    assert!(
        sent.iter()
            .any(|m| m.contains("alice@example.org") && m.contains("Welcome, Alice")),
        "{sent:#?}"
    );
}

#[test]
fn item10_the_shipped_bot_toml_shows_a_moderator_and_why_one_is_needed() {
    let shipped = nomicbot::config::DEFAULT_CONFIG;
    let section = &shipped[..shipped.find("moderators = []").expect("moderators")];
    assert!(
        section.contains("# moderators = [\"mod@nomic.example\"]"),
        "a commented example"
    );
    assert!(
        section.contains("Without one, nobody can\n# open a ballot, start Rule Tag"),
        "says what nobody can do without one: {section}"
    );
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README");
    assert!(
        readme.contains("names no moderator"),
        "the README says so too"
    );
}

#[test]
fn item10_the_readme_says_what_ingest_and_import_rules_do_with_the_clock() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README");
    let ingest = readme
        .lines()
        .find(|l| l.starts_with("| `nomicbot ingest"))
        .expect("ingest row");
    assert!(
        ingest.contains("--now") && ingest.contains("firing every deadline due up to then"),
        "{ingest}"
    );
    let import = readme
        .lines()
        .find(|l| l.starts_with("| `nomicbot import-rules"))
        .expect("import-rules row");
    assert!(import.contains("--now"), "{import}");
    // And the commands take it, as the README says.
    let bot = LocalBot::new();
    for command in ["ingest", "import-rules"] {
        let help = bot.cli_ok(&[command, "--help"]);
        assert!(help.contains("--now"), "{command}: {help}");
    }
}

#[test]
fn item10_the_readme_says_how_long_ci_takes_and_its_benchmark_defaults_are_what_ci_runs() {
    let readme = std::fs::read_to_string(repo_root().join("README.md")).expect("README");
    // As a reader sees it: one space wherever the text breaks a line.
    let readme = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        readme.contains("about 16 minutes on an idle 2-core machine") && readme.contains("apt-get"),
        "the README says how long .ci/run takes and that it installs packages"
    );
    let ci = std::fs::read_to_string(repo_root().join(".ci/run")).expect(".ci/run");
    assert!(
        !ci.contains("BENCH_"),
        ".ci/run runs the benchmarks on their own defaults"
    );
    let default_of = |bench: &str, variable: &str| -> String {
        let source = std::fs::read_to_string(repo_root().join(format!("benches/{bench}.rs")))
            .expect("bench source");
        let at = source.find(&format!("\"{variable}\"")).expect(variable);
        let rest = &source[at..];
        let open = rest.find("unwrap_or").expect("a default") + "unwrap_or".len();
        let default = rest[open..]
            .split(['(', ')', '"'])
            .find(|s| !s.is_empty() && !s.starts_with('|') && !s.contains("into"))
            .expect("the default")
            .trim()
            .to_owned();
        // A named constant: its value.
        match source.split(&format!("const {default}: usize = ")).nth(1) {
            Some(value) => value.split(';').next().expect("value").trim().to_owned(),
            None => default,
        }
    };
    assert!(readme.contains(&format!(
        "({} messages; `BENCH_MESSAGES=N`)",
        default_of("pipeline", "BENCH_MESSAGES")
    )));
    assert!(readme.contains(&format!(
        "{} messages of each kind",
        default_of("history", "BENCH_SAMPLES")
    )));
}

#[test]
fn item9_outbox_json_shows_each_message_whole() {
    let bot = LocalBot::new();
    let when = at("2026-03-02T10:00:00Z");
    bot.deliver(
        "join",
        &message(
            "Zoë <zoe@example.org>",
            "game-list@nomic.example",
            "[nomic] join Zoë",
            "join-1@example.org",
            "",
        ),
        when,
    );
    bot.once(when + jiff::SignedDuration::from_mins(1));
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(&bot.cli_ok(&["outbox", "--json"])).expect("json");
    assert_eq!(rows.len(), 2, "{rows:#?}");
    let announcement = rows
        .iter()
        .find(|r| r["message"]["to"][0] == "game-list@nomic.example")
        .expect("the announcement");
    let mail = &announcement["message"];
    assert_eq!(mail["subject"], "[nomic] Zoë joined the game");
    assert!(
        mail["body"]
            .as_str()
            .unwrap()
            .contains("Zoë joined the game at 2026-03-02 10:00 UTC"),
        "{mail:#}"
    );
    assert_eq!(mail["cc"], serde_json::json!([]));
    let header = |name: &str| -> Option<String> {
        mail["headers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["name"].as_str().unwrap().eq_ignore_ascii_case(name))
            .map(|h| h["value"].as_str().unwrap().to_owned())
    };
    assert_eq!(
        header("Subject").as_deref(),
        Some("[nomic] Zoë joined the game")
    );
    assert!(header("Message-ID").is_some(), "{mail:#}");
    assert!(header("Auto-Submitted").is_some(), "{mail:#}");
    assert!(
        header("From").unwrap().contains("bot@nomic.example"),
        "{mail:#}"
    );
    let answer = rows
        .iter()
        .find(|r| r["message"]["to"][0] == "zoe@example.org")
        .expect("the answer to Zoë");
    assert!(
        header_of(answer, "In-Reply-To").contains("join-1@example.org"),
        "{answer:#}"
    );
    assert!(
        answer["message"]["body"]
            .as_str()
            .unwrap()
            .contains("Welcome, Zoë"),
        "{answer:#}"
    );
    // The row's own fields stay as they were.
    assert!(answer["status"].is_string() && answer["recipients"].is_array());
}

fn header_of(row: &serde_json::Value, name: &str) -> String {
    row["message"]["headers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"].as_str().unwrap().eq_ignore_ascii_case(name))
        .map(|h| h["value"].as_str().unwrap().to_owned())
        .unwrap_or_default()
}
