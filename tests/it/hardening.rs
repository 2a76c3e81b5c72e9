//! The hardening issue: what hostile players found, each a regression test named
//! after the finding, asserting what a player or the operator sees.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use jiff::Timestamp;
use nomicbot::mail::imap;
use serde_json::Value;

use crate::e2e::{ImapBot, is_from_bot, run_until_failpoint};
use crate::support::{LocalBot, at, balance, message};

const LIST: &str = "game-list@nomic.example";
const MODERATOR: &str = "mod@nomic.example";
const ALICE: &str = "alice@nomic.example";
const BOB: &str = "bob@nomic.example";
/// `nomicbot` exits with this when another one holds the database (EX_TEMPFAIL).
const EXIT_LOCKED: i32 = 75;

fn moderated_bot() -> LocalBot {
    LocalBot::with_config(&crate::support::trusting().replace(
        "moderators = []",
        &format!("moderators = [\"{MODERATOR}\"]"),
    ))
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
    // 200 gifts from one player in a day: past the flood bound, which is not
    // what this test is about.
    let bot = LocalBot::with_config(
        &crate::support::trusting()
            .replace(
                "moderators = []",
                &format!("moderators = [\"{MODERATOR}\"]"),
            )
            .replace("max_actions_per_day = 100", "max_actions_per_day = 0"),
    );
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

/// The Message-ID of a raw message, without angle brackets.
pub(crate) fn message_id_of(raw: &str) -> Option<String> {
    raw.lines()
        .take_while(|line| !line.is_empty())
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("message-id")
                .then(|| value.trim().trim_matches(['<', '>']).to_owned())
        })
}

/// `n` players' joins waiting in the bot's mailbox (put there by IMAP APPEND).
pub(crate) async fn joins_waiting(bot: &ImapBot, n: usize) -> Vec<String> {
    let account = bot.imap(&format!("bot-{}", bot.name), "INBOX");
    let mut session = imap::connect_no_select(&account, &bot.servers.password)
        .await
        .expect("login");
    let mut players = Vec::new();
    for index in 0..n {
        let player = bot.player(&format!("p{index}"));
        let raw = message(
            &player,
            &bot.list(),
            &format!("[nomic] join P{index}"),
            &format!("p{index}-{}@players.test", bot.name),
            "",
        );
        session
            .append("INBOX", raw.as_bytes(), None)
            .await
            .expect("append");
        players.push(player);
    }
    session.logout().await;
    players
}

/// How often each of the bot's messages arrived in the players' and the list's
/// mailboxes, once `unique` different ones have (or 30 s have passed).
pub(crate) async fn deliveries(
    bot: &ImapBot,
    players: &[String],
    unique: usize,
) -> std::collections::BTreeMap<String, usize> {
    let give_up = Instant::now() + Duration::from_secs(30);
    loop {
        let mut seen = std::collections::BTreeMap::new();
        for address in players.iter().chain([&bot.list()]) {
            for raw in bot.mailbox_of(address).await {
                if is_from_bot(&raw)
                    && let Some(id) = message_id_of(&raw)
                {
                    *seen.entry(id).or_insert(0) += 1;
                }
            }
        }
        if seen.len() >= unique || Instant::now() > give_up {
            // A duplicate still on its way is given a moment to arrive too.
            tokio::time::sleep(Duration::from_millis(500)).await;
            let mut settled = std::collections::BTreeMap::new();
            for address in players.iter().chain([&bot.list()]) {
                for raw in bot.mailbox_of(address).await {
                    if is_from_bot(&raw)
                        && let Some(id) = message_id_of(&raw)
                    {
                        *settled.entry(id).or_insert(0) += 1;
                    }
                }
            }
            return settled;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The outbox rows with this status, by Message-ID (without angle brackets).
pub(crate) fn outbox_ids(bot: &ImapBot, status: &str) -> Vec<String> {
    let outbox: Value = serde_json::from_str(&bot.cli(&["outbox", "--json"])).expect("json");
    outbox
        .as_array()
        .expect("outbox rows")
        .iter()
        .filter(|row| row["status"] == status)
        .filter_map(|row| row["message_id"].as_str())
        .map(|id| id.trim_matches(['<', '>']).to_owned())
        .collect()
}

/// Hardening: "SMTP sends twice after a crash". The bot is killed right after the
/// server accepted its fifth message: the four accepted before are marked sent
/// already (not at the end of a batch), so the restarted bot sends none
/// of them again. Only the messages in flight at the kill may arrive twice.
#[tokio::test(flavor = "multi_thread")]
async fn smtp_sends_twice_after_a_crash() {
    let bot = ImapBot::new("smtp-twice");
    let players = joins_waiting(&bot, 8).await;
    // Applied and queued (an answer and an announcement each), nothing sent.
    run_until_failpoint(bot.command(&["once"]), "before-send");
    assert_eq!(outbox_ids(&bot, "pending").len(), 16);

    run_until_failpoint(bot.command(&["once"]), "accepted:5");
    let sent = outbox_ids(&bot, "sent");
    assert_eq!(
        sent.len(),
        4,
        "each message is marked sent as soon as the server accepts it"
    );

    let later = (Timestamp::now() + jiff::SignedDuration::from_hours(1)).to_string();
    let out = bot.cli(&["once", "--now", &later]);
    assert!(out.contains("sent 12"), "{out}");
    let delivered = deliveries(&bot, &players, 16).await;
    assert_eq!(delivered.len(), 16, "nothing lost: {delivered:#?}");
    for id in &sent {
        assert_eq!(delivered.get(id), Some(&1), "{id} arrived once");
    }
    // The fifth, accepted and not recorded, is the at-least-once window: the
    // contents go one at a time, so no other can have been accepted.
    let twice = delivered.values().filter(|n| **n > 1).count();
    assert!(twice <= 1, "{delivered:#?}");
}

/// Runs the bot until it reaches `failpoint`, then SIGKILLs it; `false` if it
/// ended by itself first.
fn kill_at(mut command: Command, failpoint: &str) -> bool {
    command
        .env("NOMICBOT_FAILPOINT", failpoint)
        .stderr(Stdio::piped())
        .stdout(Stdio::null());
    let mut child = command.spawn().expect("spawn nomicbot");
    let stderr = child.stderr.take().expect("stderr");
    let marker = format!("failpoint {failpoint} reached");
    let reached = BufReader::new(stderr)
        .lines()
        .map_while(Result::ok)
        .any(|line| line.contains(&marker));
    let _ = child.kill();
    let status = child.wait().expect("reap");
    assert!(
        reached || status.success(),
        "the bot failed without reaching {failpoint}: {status}"
    );
    reached
}

/// Hardening: "SMTP sends twice after a crash", measured: the bot is killed over
/// and over right after the server accepted a message chosen at random (1st to
/// 16th of the pass) until the outbox is empty. Nothing is lost, a kill sends
/// again at most the one message it interrupted; the duplicates are counted and
/// printed (`--nocapture`). HARDENING_KILL_ROUNDS sets the number
/// of rounds of 20 joins (40 messages) each.
#[tokio::test(flavor = "multi_thread")]
async fn smtp_killed_at_random_loses_nothing_and_counts_its_duplicates() {
    let rounds: usize = std::env::var("HARDENING_KILL_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    // xorshift: the same "random" kills on every run.
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut random = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut kills, mut messages, mut duplicates) = (0, 0, 0);
    for round in 0..rounds {
        let bot = ImapBot::new(&format!("smtp-kills{round}"));
        let players = joins_waiting(&bot, 20).await;
        run_until_failpoint(bot.command(&["once"]), "before-send");
        let later = (Timestamp::now() + jiff::SignedDuration::from_hours(1)).to_string();
        for _ in 0..200 {
            if outbox_ids(&bot, "pending").is_empty() {
                break;
            }
            let nth = random() % 16 + 1;
            if kill_at(
                bot.command(&["once", "--now", &later]),
                &format!("accepted:{nth}"),
            ) {
                kills += 1;
            }
        }
        assert!(outbox_ids(&bot, "pending").is_empty(), "the outbox empties");
        let delivered = deliveries(&bot, &players, 40).await;
        assert_eq!(delivered.len(), 40, "nothing lost: {delivered:#?}");
        messages += delivered.len();
        duplicates += delivered.values().map(|n| n - 1).sum::<usize>();
    }
    println!(
        "smtp kills: {kills} kill(s) right after an acceptance, {messages} message(s), {duplicates} duplicate deliveries"
    );
    // Messages are finished one at a time and each acceptance recorded before
    // the next: a kill can leave at most one accepted message unrecorded.
    assert!(
        duplicates <= kills,
        "at most one duplicate a kill: {duplicates} after {kills} kill(s)"
    );
}

/// Hardening: "SMTP sends twice after a crash", measured as the hostile player
/// did: each pass is SIGKILLed at a random moment of its run (between its start
/// and the time the last pass that ran to its end took), over and over until the
/// outbox is empty. Nothing is lost; the duplicates are
/// counted and printed (`--nocapture`). HARDENING_KILL_ROUNDS sets the rounds.
#[tokio::test(flavor = "multi_thread")]
async fn smtp_killed_at_random_moments_loses_nothing_and_counts_its_duplicates() {
    let rounds: usize = std::env::var("HARDENING_KILL_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1);
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut random = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut kills, mut messages, mut duplicates) = (0, 0, 0);
    for round in 0..rounds {
        let bot = ImapBot::new(&format!("smtp-moments{round}"));
        let players = joins_waiting(&bot, 20).await;
        run_until_failpoint(bot.command(&["once"]), "before-send");
        let later = (Timestamp::now() + jiff::SignedDuration::from_hours(1)).to_string();
        let mut typical = Duration::from_millis(400);
        for _ in 0..400 {
            if outbox_ids(&bot, "pending").is_empty() {
                break;
            }
            let started = Instant::now();
            let mut child = bot
                .command(&["once", "--now", &later])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("spawn nomicbot");
            let span = u64::try_from(typical.as_millis()).unwrap_or(400).max(1);
            std::thread::sleep(Duration::from_millis(random() % span));
            if child.try_wait().expect("try_wait").is_none() {
                let _ = child.kill();
                kills += 1;
            } else {
                typical = started.elapsed();
            }
            let _ = child.wait();
        }
        assert!(outbox_ids(&bot, "pending").is_empty(), "the outbox empties");
        let delivered = deliveries(&bot, &players, 40).await;
        assert_eq!(delivered.len(), 40, "nothing lost: {delivered:#?}");
        messages += delivered.len();
        duplicates += delivered.values().map(|n| n - 1).sum::<usize>();
    }
    println!(
        "smtp kills: {kills} kill(s) at random moments, {messages} message(s), {duplicates} duplicate deliveries"
    );
}

/// Hardening: "Arrival order breaks within one second". Two players ask for the
/// same name a fraction of a second apart, the first on the whole second: the
/// first to arrive gets it, though its time sorts after the other's as text
/// (`...:00Z` after `...:00.3Z`).
#[test]
fn arrival_order_breaks_within_one_second() {
    let bot = LocalBot::new();
    let first = "alice@nomic.example";
    let second = "alice.impostor@nomic.example";
    for (name, from, when) in [
        ("first", first, "2026-01-05T10:00:00Z"),
        ("second", second, "2026-01-05T10:00:00.3Z"),
    ] {
        let raw = message(
            from,
            LIST,
            "[nomic] join Alice",
            &format!("{name}@players.test"),
            "",
        );
        bot.deliver(name, &raw, at(when));
    }
    let pass = bot.once(at("2026-01-05T11:00:00Z"));
    assert_eq!(figure(&pass, "applied"), 2, "{pass}");
    let state = bot.state_json();
    let alice = state["players"]["players"]
        .as_array()
        .expect("players")
        .iter()
        .find(|p| p["name"] == "Alice")
        .expect("Alice")
        .clone();
    assert_eq!(alice["address"], first, "{alice}");
    let refused = bot
        .sent_mail()
        .into_iter()
        .find(|m| m.is_to(second))
        .expect("the second player is answered");
    assert!(
        !refused.body.contains("Welcome"),
        "the name was taken already: {}",
        refused.body
    );
}

/// Hardening: "A future arrival time fires future deadlines now". A ballot opens
/// with three days to run; a message whose file is dated next month comes in: it
/// is applied now (with a warning in the log), the ballot stays open, and it
/// closes at its own deadline, not before.
#[test]
fn a_future_arrival_time_fires_future_deadlines_now() {
    let bot = moderated_bot();
    let opened = at("2026-01-05T10:00:00Z");
    let open = message(
        MODERATOR,
        LIST,
        "[vote] open Shall we?",
        "open@players.test",
        "",
    );
    bot.deliver("open", &open, opened);
    bot.once(at("2026-01-05T10:05:00Z"));

    let join = message(BOB, LIST, "[nomic] join Bob", "bob@players.test", "");
    bot.deliver("join", &join, at("2026-02-05T10:00:00Z"));
    let now = at("2026-01-06T10:00:00Z");
    let output = bot.cli(&["once", "--now", &now.to_string()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("arrival time is later than now"),
        "a warning in the log: {stderr}"
    );
    let log = bot.log_json();
    let joined = log
        .iter()
        .find(|r| r["event"]["kind"] == "joined")
        .expect("Bob joined");
    assert_eq!(joined["at"], now.to_string().as_str(), "applied now");
    assert!(
        log.iter().all(|r| r["event"]["kind"] != "closed"),
        "the ballot is still open: {log:#?}"
    );

    // Its deadline comes: it closes then, at its own time.
    bot.once(at("2026-01-08T12:00:00Z"));
    let log = bot.log_json();
    let closed = log
        .iter()
        .find(|r| r["event"]["kind"] == "closed")
        .expect("the ballot closed");
    assert_eq!(closed["at"], "2026-01-08T10:00:00Z");
}

/// The outbox as `outbox --json` shows it, by status.
fn local_outbox(bot: &LocalBot) -> Vec<Value> {
    let out = bot.cli(&["outbox", "--json"]);
    serde_json::from_slice::<Value>(&out.stdout)
        .expect("outbox json")
        .as_array()
        .cloned()
        .expect("outbox rows")
}

/// Hardening: each acceptance is recorded in `<database>.sent` the moment it
/// comes, and folded into the outbox a page at a time. Killed before a fold,
/// the bot has lost no record: `outbox` already shows the message sent, and
/// the next pass marks it so without sending it again. A line the kill cut
/// short is no record: that message goes again, once.
#[test]
fn a_kill_before_the_fold_loses_no_acceptance_and_a_torn_line_is_sent_again() {
    let bot = LocalBot::new();
    for (index, player) in ["alice", "bob", "carol"].iter().enumerate() {
        bot.deliver(
            player,
            &message(
                &format!("{player}@players.test"),
                LIST,
                &format!("[nomic] join {player}"),
                &format!("{player}-join@players.test"),
                "",
            ),
            at("2026-01-01T10:00:00Z") + jiff::SignedDuration::from_secs(index as i64),
        );
    }
    let mut once = Command::new(env!("CARGO_BIN_EXE_nomicbot"));
    once.arg("--config").arg(bot.config_path()).arg("once");
    // Killed right after the third acceptance, before it is recorded.
    run_until_failpoint(once, "accepted:3");
    let rows = local_outbox(&bot);
    assert_eq!(rows.len(), 6);
    let sent: Vec<&Value> = rows.iter().filter(|row| row["status"] == "sent").collect();
    assert_eq!(sent.len(), 2, "the two recorded show as sent: {rows:#?}");
    let database = bot.config().resolve(&bot.config().bot.database);
    let journal = std::path::PathBuf::from(format!("{}.sent", database.display()));
    let recorded = std::fs::read_to_string(&journal).expect("journal");
    assert_eq!(recorded.lines().count(), 2, "{recorded}");
    // The fourth message's line, cut short by a crash.
    let fourth = rows[3]["id"].as_i64().expect("id");
    std::fs::OpenOptions::new()
        .append(true)
        .open(&journal)
        .and_then(|mut file| {
            std::io::Write::write_all(&mut file, format!("{fourth} 2026-").as_bytes())
        })
        .expect("torn line");
    assert_eq!(local_outbox(&bot)[3]["status"], "pending");

    let hour = |n: i64| (Timestamp::now() + jiff::SignedDuration::from_hours(n)).to_string();
    let out = bot.cli(&["once", "--now", &hour(1)]);
    let said = String::from_utf8_lossy(&out.stdout);
    // The third (accepted, not recorded) goes again, and the three after it.
    assert!(said.contains("sent 4,"), "{said}");
    assert!(local_outbox(&bot).iter().all(|row| row["status"] == "sent"));
    assert_eq!(std::fs::read_to_string(&journal).expect("journal"), "");
    let out = bot.cli(&["once", "--now", &hour(2)]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("sent 0,"));
}
