//! The hardening issue: what hostile players found, each a regression test named
//! after the finding, asserting what a player or the operator sees.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{LocalBot, at, message};

const LIST: &str = "game-list@nomic.example";
const MODERATOR: &str = "mod@nomic.example";
const ALICE: &str = "alice@nomic.example";
const BOB: &str = "bob@nomic.example";
/// `nomicbot` exits with this when another one holds the database (EX_TEMPFAIL).
const EXIT_LOCKED: i32 = 75;

fn moderated_bot() -> LocalBot {
    LocalBot::with_config(&nomicbot::config::DEFAULT_CONFIG.replace(
        "moderators = []",
        &format!("moderators = [\"{MODERATOR}\"]"),
    ))
}

fn player_id(state: &Value, name: &str) -> Value {
    state["players"]["players"]
        .as_array()
        .expect("players.players")
        .iter()
        .find(|p| p["name"] == name)
        .map(|p| p["id"].clone())
        .unwrap_or_else(|| panic!("no player {name}: {}", state["players"]))
}

fn balance(state: &Value, name: &str, currency: &str) -> Option<String> {
    let id = player_id(state, name);
    state["accounts"]["balances"]
        .as_array()
        .expect("accounts.balances")
        .iter()
        .find(|b| b["holder"]["player"] == id && b["currency"] == currency)
        .and_then(|b| b["amount"].as_str().map(str::to_owned))
}

/// Events of a kind whose cause (`mail:<Message-ID>`) contains `cause`.
fn count_kind(log: &[Value], kind: &str, cause: &str) -> usize {
    log.iter()
        .filter(|r| r["event"]["kind"] == kind)
        .filter(|r| r["cause"].as_str().is_some_and(|c| c.contains(cause)))
        .count()
}

/// The number after `word` in a pass's summary ("applied 12, ...").
fn figure(summary: &str, word: &str) -> usize {
    summary
        .split(&format!("{word} "))
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no {word:?} in {summary:?}"))
}

/// Alice and Bob play; Alice has 1000 A$ from the moderator.
fn alice_and_bob_with_money(bot: &LocalBot) {
    let start = at("2026-01-05T10:00:00Z");
    let setup = [
        (ALICE, "[nomic] join Alice", ""),
        (BOB, "[nomic] join Bob", ""),
        (
            MODERATOR,
            "[nomic]",
            "adjust Alice 1000 A$ because the bank",
        ),
    ];
    for (n, (from, subject, body)) in setup.iter().enumerate() {
        let when = start + jiff::SignedDuration::from_mins(i64::try_from(n).unwrap_or(0));
        let raw = message(from, LIST, subject, &format!("setup{n}@players.test"), body);
        bot.deliver(&format!("setup{n}"), &raw, when);
    }
    let pass = bot.once(at("2026-01-05T11:00:00Z"));
    assert_eq!(figure(&pass, "applied"), 3, "{pass}");
}

/// Hardening: "Two passes at once apply actions twice". Three `once` started
/// together on 200 gifts: each gift is applied exactly once, whichever process
/// applies it, and the state is the fold of the log.
#[test]
fn two_passes_at_once_apply_actions_twice() {
    let bot = moderated_bot();
    alice_and_bob_with_money(&bot);
    let gifts = 200;
    let first = at("2026-01-05T12:00:00Z");
    for n in 0..gifts {
        let raw = message(
            ALICE,
            LIST,
            "[nomic] give 1 A$ to Bob",
            &format!("gift{n}@players.test"),
            "",
        );
        bot.deliver(
            &format!("gift{n}"),
            &raw,
            first + jiff::SignedDuration::from_secs(n),
        );
    }
    let now = "2026-01-05T18:00:00Z";
    let passes: Vec<Child> = (0..3)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_nomicbot"))
                .arg("--config")
                .arg(bot.config_path())
                .args(["once", "--now", now, "--lock-wait", "600"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn nomicbot once")
        })
        .collect();
    let mut applied = 0;
    for pass in passes {
        let output = pass.wait_with_output().expect("wait for once");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "a pass failed ({}): {stdout}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        applied += figure(&stdout, "applied");
    }
    assert_eq!(applied, 200, "the three passes applied each gift once");

    let log = bot.log_json();
    assert_eq!(
        count_kind(&log, "transferred", "<gift"),
        200,
        "one transfer per gift"
    );
    let state = bot.state_json();
    assert_eq!(balance(&state, "Bob", "A$").as_deref(), Some("200"));
    assert_eq!(balance(&state, "Alice", "A$").as_deref(), Some("800"));
    let replay = bot.cli_ok(&["replay"]);
    assert!(replay.contains("equals the live state"), "{replay}");
}

/// Starts `nomicbot run` and waits until it says it runs (it holds the lock then).
fn start_daemon(bot: &LocalBot) -> (Child, std::sync::mpsc::Receiver<String>) {
    let mut daemon = Command::new(env!("CARGO_BIN_EXE_nomicbot"))
        .arg("--config")
        .arg(bot.config_path())
        .arg("run")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn nomicbot run");
    let stderr = daemon.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    // The bound is for a stuck daemon, not a measurement.
    let give_up = Instant::now() + Duration::from_secs(60);
    loop {
        match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(line) if line.contains("nomicbot running") => return (daemon, rx),
            Ok(_) => {}
            Err(_) if Instant::now() > give_up || daemon.try_wait().ok().flatten().is_some() => {
                let _ = daemon.kill();
                let _ = daemon.wait();
                panic!("the daemon never said it runs");
            }
            Err(_) => {}
        }
    }
}

/// Hardening: "Two passes at once", the daemon's side: a second `run` beside a
/// running one refuses with a clear message and exit code 75, and so does a
/// `once` that will not wait; reading commands still work.
#[test]
fn run_refuses_to_start_beside_a_running_one() {
    let bot = LocalBot::new();
    let (mut daemon, _log) = start_daemon(&bot);

    let second = bot.cli(&["run"]);
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(EXIT_LOCKED), "{stderr}");
    assert!(
        stderr.contains("not starting a second daemon")
            && stderr.contains("in use by another nomicbot")
            && stderr.contains(&format!("(process {})", daemon.id())),
        "{stderr}"
    );

    let once = bot.cli(&["once", "--lock-wait", "0"]);
    let stderr = String::from_utf8_lossy(&once.stderr);
    assert_eq!(once.status.code(), Some(EXIT_LOCKED), "{stderr}");
    assert!(stderr.contains("in use by another nomicbot"), "{stderr}");

    // Reading needs no lock.
    bot.cli_ok(&["state"]);
    bot.cli_ok(&["outbox"]);
    bot.cli_ok(&["log"]);

    let _ = Command::new("kill")
        .args(["-TERM", &daemon.id().to_string()])
        .status();
    let status = daemon.wait().expect("reap the daemon");
    assert!(status.success(), "{status}");
    // The lock goes with the daemon.
    bot.cli_ok(&["once", "--lock-wait", "0"]);
}
