//! Issue 30, item 1: the live state holds what the rules still need. A sealed
//! vote replaced by a later one of the same player leaves the live state (the
//! event log keeps it), while the commitments and the reveal still show every
//! vote ever sealed, the replaced ones marked, and `verify-sealed` accepts
//! them. Each test is a clause of the item.

use std::path::PathBuf;

use jiff::{SignedDuration, Timestamp};
use serde_json::Value;

use crate::support::{LocalBot, SentMail, at, message};

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";
const MODERATOR: &str = "mod@nomic.example";

fn bot() -> LocalBot {
    let config = crate::support::trusting().replace(
        "moderators = []",
        &format!("moderators = [\"{MODERATOR}\"]"),
    );
    LocalBot::with_config(&config)
}

fn deliver(
    bot: &LocalBot,
    name: &str,
    from: &str,
    to: &str,
    subject: &str,
    body: &str,
    when: Timestamp,
) {
    let id = format!("{name}@players.test");
    bot.deliver(name, &message(from, to, subject, &id, body), when);
}

fn address(who: &str) -> String {
    format!("{}@nomic.example", who.to_lowercase())
}

/// Alice, Bob and Carol join, and the moderator opens ballot 1 (and 2 if
/// `ballots` is 2); returns when the first ballot was opened. Its deadline is
/// three days later.
fn opened(bot: &LocalBot, ballots: u32) -> Timestamp {
    let start = at("2026-03-02T09:00:00Z");
    for (i, who) in ["Alice", "Bob", "Carol"].iter().enumerate() {
        deliver(
            bot,
            &format!("join-{who}"),
            &address(who),
            LIST,
            &format!("[nomic] join {who}"),
            "",
            start + SignedDuration::from_mins(i as i64),
        );
    }
    let opened = start + SignedDuration::from_mins(10);
    for number in 1..=ballots {
        deliver(
            bot,
            &format!("open-{number}"),
            MODERATOR,
            LIST,
            &format!("[vote] open Question {number}?"),
            "",
            opened,
        );
    }
    bot.once(opened);
    opened
}

/// A private vote message of `lines`, delivered at `when`.
fn vote(bot: &LocalBot, name: &str, who: &str, lines: &[String], when: Timestamp) {
    deliver(
        bot,
        name,
        &address(who),
        BOT,
        "[vote]",
        &lines.join("\n"),
        when,
    );
}

fn database(bot: &LocalBot) -> PathBuf {
    let config = bot.config();
    config.resolve(&config.bot.database)
}

/// The live state as stored: the snapshot the bot loads when it starts.
fn snapshot(bot: &LocalBot) -> Value {
    let mut store = nomicbot::store::Store::open(&database(bot)).expect("database");
    let (world, _) = store.load_world().expect("the stored state reads");
    serde_json::to_value(world.expect("a stored state")).expect("the state is JSON")
}

fn batch<'a>(sealed: &'a Value, id: &str) -> &'a Value {
    sealed["batches"]
        .as_array()
        .expect("batches")
        .iter()
        .find(|b| b["id"] == id)
        .unwrap_or_else(|| panic!("no batch {id} in {sealed}"))
}

/// The mail of each template the bot sent, in the order written.
fn sent(bot: &LocalBot, template: &str) -> Vec<SentMail> {
    let rows: Value = serde_json::from_str(&bot.cli_ok(&["outbox", "--json"])).expect("json");
    let raw = bot.sent();
    rows.as_array()
        .expect("rows")
        .iter()
        .filter(|row| row["template"] == template)
        .map(|row| {
            let id = row["message_id"].as_str().expect("id");
            let raw = raw
                .iter()
                .find(|m| m.contains(id))
                .unwrap_or_else(|| panic!("{template} {id} was not sent"));
            SentMail::parse(raw)
        })
        .collect()
}

/// `nomicbot verify-sealed` on the two archived mails: its output, and
/// whether it passed.
fn verify_sealed(bot: &LocalBot, commitments: &SentMail, reveal: &SentMail) -> (bool, String) {
    verify_files(bot, &commitments.raw, &reveal.raw)
}

/// A mail as an archive may keep it, with `body` as its text.
fn archived(body: &str) -> String {
    format!(
        "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n{}",
        body.replace('\n', "\r\n")
    )
}

fn verify_files(bot: &LocalBot, commitments: &str, reveal: &str) -> (bool, String) {
    let dir = bot.dir.path();
    std::fs::write(dir.join("commitments.eml"), commitments).expect("write");
    std::fs::write(dir.join("reveal.eml"), reveal).expect("write");
    let out = bot.cli(&[
        "verify-sealed",
        &dir.join("commitments.eml").display().to_string(),
        &dir.join("reveal.eml").display().to_string(),
    ]);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// Ballot `number`'s tally as the whole log folds it: (yes, no, voters).
fn tally(bot: &LocalBot, number: u64) -> (u64, u64, Vec<String>) {
    let votes: Value =
        serde_json::from_str(&bot.cli_ok(&["state", "vote", "--json"])).expect("json");
    let ballot = votes["ballots"]
        .as_array()
        .expect("ballots")
        .iter()
        .find(|b| b["number"] == number)
        .expect("the ballot");
    let closed = &ballot["closed"];
    let voters = closed["voters"]
        .as_array()
        .expect("closed, with voters")
        .iter()
        .map(|v| v.as_str().expect("name").to_owned())
        .collect();
    (
        closed["yes"].as_u64().expect("yes"),
        closed["no"].as_u64().expect("no"),
        voters,
    )
}

/// Alice votes yes, no, then yes again (hours 1 to 3); Bob votes no (hour 5).
fn alice_changes_her_vote_twice_and_bob_votes_no(bot: &LocalBot, hour: impl Fn(i64) -> Timestamp) {
    for (i, choice) in ["yes", "no", "yes"].iter().enumerate() {
        vote(
            bot,
            &format!("alice-{i}"),
            "Alice",
            &[choice.to_string()],
            hour(1 + i as i64),
        );
    }
    vote(bot, "bob", "Bob", &["no".to_owned()], hour(5));
}

#[test]
fn issue30_a_1000_line_vote_message_leaves_one_vote_per_ballot_in_the_live_state() {
    let bot = bot();
    let opened = opened(&bot, 2);
    // 1,000 lines (`max_command_lines`), the two ballots taking turns, each
    // vote the other way from the one before on its ballot: Alice's last is
    // "no" on both.
    let lines: Vec<String> = (0..1000)
        .map(|i| {
            let choice = if (i / 2) % 2 == 0 { "yes" } else { "no" };
            format!("{} {choice}", 1 + i % 2)
        })
        .collect();
    vote(
        &bot,
        "alice-1000",
        "Alice",
        &lines,
        opened + SignedDuration::from_hours(1),
    );
    vote(
        &bot,
        "bob",
        "Bob",
        &["1 yes".to_owned()],
        opened + SignedDuration::from_hours(2),
    );
    bot.once(opened + SignedDuration::from_hours(3));
    let live = snapshot(&bot);
    for id in ["vote:1", "vote:2"] {
        let batch = batch(&live["sealed"], id);
        let voters: Vec<&str> = batch["actions"]
            .as_array()
            .expect("actions")
            .iter()
            .map(|a| a["player_name"].as_str().expect("name"))
            .collect();
        let expected: &[&str] = if id == "vote:1" {
            &["Alice", "Bob"]
        } else {
            &["Alice"]
        };
        assert_eq!(voters, expected, "{id}: one vote per voter");
        assert_eq!(
            batch["sealed_count"],
            if id == "vote:1" { 501 } else { 500 }
        );
    }
    // Three batches' worth of state, not 1,000 votes': well under 166 kB.
    let sealed_bytes = live["sealed"].to_string().len();
    assert!(sealed_bytes < 4_000, "{sealed_bytes} bytes of sealed state");
    // `state` (the whole log folded) shows the same, the texts still sealed.
    let state = bot.state_json();
    let folded = batch(&state["sealed"], "vote:1")["actions"]
        .as_array()
        .expect("actions")
        .clone();
    assert_eq!(folded.len(), 2);
    assert!(
        folded.iter().all(|a| a["action_text"] == "(sealed)"),
        "{folded:?}"
    );
    let replay = bot.cli_ok(&["replay"]);
    assert!(replay.contains("equals the live state"), "{replay}");

    // At the deadline every one of the 1,000 votes is published and revealed;
    // only the last of each counts.
    bot.once(opened + SignedDuration::from_hours(73));
    let commitments = sent(&bot, "sealed_commitments");
    let reveals = sent(&bot, "sealed_reveal");
    assert_eq!(commitments.len(), 2);
    assert!(
        commitments[0].subject.ends_with("501 commitments"),
        "{}",
        commitments[0].subject
    );
    assert!(
        commitments[1].subject.ends_with("500 commitments"),
        "{}",
        commitments[1].subject
    );
    for (commitments, reveal) in commitments.iter().zip(&reveals) {
        let (ok, out) = verify_sealed(&bot, commitments, reveal);
        assert!(ok, "{out}");
        assert_eq!(
            reveal.body.matches("only the last counts").count(),
            499,
            "{}",
            reveal.body
        );
    }
    assert_eq!(
        tally(&bot, 1),
        (1, 1, vec!["Alice".to_owned(), "Bob".to_owned()])
    );
    assert_eq!(tally(&bot, 2), (0, 1, vec!["Alice".to_owned()]));
}

#[test]
fn issue30_votes_changed_many_times_are_all_committed_and_revealed_and_the_last_counts() {
    let bot = bot();
    let opened = opened(&bot, 1);
    let hour = |n: i64| opened + SignedDuration::from_hours(n);
    // Alice changes her mind five times, in five messages; Carol once; Bob
    // votes once.
    for (i, choice) in ["yes", "no", "yes", "no", "yes", "no"].iter().enumerate() {
        vote(
            &bot,
            &format!("alice-{i}"),
            "Alice",
            &[choice.to_string()],
            hour(1 + i as i64),
        );
    }
    vote(&bot, "carol-1", "Carol", &["no".to_owned()], hour(10));
    vote(&bot, "bob", "Bob", &["yes".to_owned()], hour(11));
    vote(&bot, "carol-2", "Carol", &["yes".to_owned()], hour(12));
    bot.once(hour(13));
    let live = snapshot(&bot);
    assert_eq!(
        batch(&live["sealed"], "vote:1")["actions"]
            .as_array()
            .map(Vec::len),
        Some(3)
    );
    bot.once(hour(73));
    let commitments = sent(&bot, "sealed_commitments");
    let reveal = sent(&bot, "sealed_reveal");
    assert!(
        commitments[0].subject.ends_with("9 commitments"),
        "{}",
        commitments[0].subject
    );
    assert_eq!(commitments[0].body.matches("\ncommitment ").count(), 9);
    assert_eq!(reveal[0].body.matches("\naction ").count(), 9);
    // Alice's first five and Carol's first are marked replaced, in the order sealed.
    let marked: Vec<&str> = reveal[0]
        .body
        .lines()
        .filter(|line| line.contains("only the last counts"))
        .map(|line| line.trim().split(',').next().unwrap_or_default())
        .collect();
    assert_eq!(
        marked,
        ["Alice", "Alice", "Alice", "Alice", "Alice", "Carol"]
    );
    let (ok, out) = verify_sealed(&bot, &commitments[0], &reveal[0]);
    assert!(ok && out.contains("9 sealed action(s)"), "{out}");
    // A changed vote fails the check, naming its player, replaced or not.
    let forged = reveal[0].body.replacen("text \"yes\"", "text \"no\"", 1);
    let (ok, out) = verify_files(&bot, &commitments[0].raw, &archived(&forged));
    assert!(!ok && out.contains("Alice"), "{out}");
    assert_eq!(
        tally(&bot, 1),
        (
            2,
            1,
            vec!["Alice".to_owned(), "Bob".to_owned(), "Carol".to_owned()]
        )
    );
    let result = sent(&bot, "vote_result");
    assert!(
        result[0].subject.ends_with("2 yes, 1 no"),
        "{}",
        result[0].subject
    );
}

#[test]
fn issue30_a_restart_between_the_commitments_and_the_reveal_publishes_every_vote_once() {
    let bot = bot();
    let opened = opened(&bot, 1);
    let hour = |n: i64| opened + SignedDuration::from_hours(n);
    alice_changes_her_vote_twice_and_bob_votes_no(&bot, hour);
    // Carol's reminder goes first, a day before.
    bot.once(hour(71));
    // The bot stops dead once the deadline's first step, the commitments, is
    // durable: before the ballot's own deadline reveals.
    let deadline = hour(72);
    let stopped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut running = bot.open();
        running
            .process_with(deadline, &mut |_| panic!("stopped after the commitments"))
            .expect("process")
    }));
    assert!(stopped.is_err(), "the commitments were queued");
    let live = snapshot(&bot);
    let batch = batch(&live["sealed"], "vote:1");
    assert_eq!(batch["stage"], "committed");
    assert_eq!(batch["commitments"].as_array().map(Vec::len), Some(4));
    assert_eq!(batch["actions"].as_array().map(Vec::len), Some(2));
    // Started again: the reveal, from the log, and the result; nothing twice.
    bot.once(hour(73));
    let commitments = sent(&bot, "sealed_commitments");
    let reveal = sent(&bot, "sealed_reveal");
    assert_eq!((commitments.len(), reveal.len()), (1, 1));
    assert_eq!(reveal[0].body.matches("only the last counts").count(), 2);
    let (ok, out) = verify_sealed(&bot, &commitments[0], &reveal[0]);
    assert!(ok && out.contains("4 sealed action(s)"), "{out}");
    assert_eq!(
        tally(&bot, 1),
        (1, 1, vec!["Alice".to_owned(), "Bob".to_owned()])
    );
    let replay = bot.cli_ok(&["replay"]);
    assert!(replay.contains("equals the live state"), "{replay}");
}

/// The database as a release before issue 30 wrote it: no `choice` in the
/// sealed events, and a snapshot whose open batches hold every action sealed
/// (and no `sealed_count`).
fn as_written_before_issue_30(bot: &LocalBot) {
    let conn = rusqlite::Connection::open(database(bot)).expect("database");
    conn.execute(
        "UPDATE events SET payload = json_remove(payload, '$.sealed.choice')
         WHERE json_extract(payload, '$.kind') = 'sealed'",
        [],
    )
    .expect("strip the choices");
    let mut every: Vec<(String, Value)> = Vec::new();
    {
        let mut rows = conn
            .prepare("SELECT payload FROM events WHERE json_extract(payload, '$.kind') = 'sealed' ORDER BY seq")
            .expect("query");
        let payloads = rows
            .query_map([], |row| row.get::<_, String>(0))
            .expect("rows");
        for payload in payloads {
            let event: Value = serde_json::from_str(&payload.expect("row")).expect("json");
            every.push((
                event["batch"].as_str().expect("batch").to_owned(),
                event["sealed"].clone(),
            ));
        }
    }
    let mut world = snapshot(bot);
    for batch in world["sealed"]["batches"].as_array_mut().expect("batches") {
        let id = batch["id"].as_str().expect("id").to_owned();
        batch.as_object_mut().expect("batch").remove("sealed_count");
        batch["actions"] = every
            .iter()
            .filter(|(of, _)| *of == id)
            .map(|(_, sealed)| sealed.clone())
            .collect();
    }
    // The snapshot is kept in rows, a part of the world each (`store::state`):
    // the sealed box's row as it was written then.
    let changed = conn
        .execute(
            "UPDATE state_parts SET json = ?1 WHERE part = 'sealed'",
            [world["sealed"].to_string()],
        )
        .expect("the old snapshot");
    assert_eq!(changed, 1, "the sealed box's row");
}

#[test]
fn issue30_a_log_and_snapshot_written_before_issue_30_load_replay_and_reveal_as_before() {
    let bot = bot();
    let opened = opened(&bot, 1);
    let hour = |n: i64| opened + SignedDuration::from_hours(n);
    alice_changes_her_vote_twice_and_bob_votes_no(&bot, hour);
    bot.once(hour(6));
    as_written_before_issue_30(&bot);
    let live = snapshot(&bot);
    assert_eq!(
        batch(&live["sealed"], "vote:1")["actions"]
            .as_array()
            .map(Vec::len),
        Some(4)
    );
    // It loads, and the log folds to the same live state.
    let replay = bot.cli_ok(&["replay"]);
    assert!(replay.contains("equals the live state"), "{replay}");
    // A vote after the upgrade replaces what it can, and the old ones are
    // still marked by the ballot's rule at the reveal.
    vote(&bot, "bob-2", "Bob", &["yes".to_owned()], hour(7));
    bot.once(hour(73));
    let commitments = sent(&bot, "sealed_commitments");
    let reveal = sent(&bot, "sealed_reveal");
    assert!(
        commitments[0].subject.ends_with("5 commitments"),
        "{}",
        commitments[0].subject
    );
    assert_eq!(
        reveal[0].body.matches("only the last counts").count(),
        3,
        "{}",
        reveal[0].body
    );
    let (ok, out) = verify_sealed(&bot, &commitments[0], &reveal[0]);
    assert!(ok && out.contains("5 sealed action(s)"), "{out}");
    assert_eq!(
        tally(&bot, 1),
        (2, 0, vec!["Alice".to_owned(), "Bob".to_owned()])
    );
    let replay = bot.cli_ok(&["replay"]);
    assert!(replay.contains("equals the live state"), "{replay}");
}
