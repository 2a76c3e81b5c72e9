//! Memory and time at scale, each measured in a child process of its own (this
//! binary run again) so that the figure is the peak RSS of that work alone, read
//! from its `VmHWM` in /proc/self/status:
//! - `replay` of a log of a million events (a history played on the pure engine:
//!   every registered game's sample played five times on one table, each
//!   sample a month after the last, so the log holds every game's events; then
//!   ballots voted and resolved, then one ballot left open on which the voters
//!   cast 100k sealed votes, changing their minds; then renames written straight
//!   into the log, which end where the live state is);
//! - one more message applied with 100 games running at once (Ghost instances,
//!   open ballots, Rule Tag, Gnomic, the Machine, Boons), all started by mail
//!   through the real pipeline on the embedded transport.
//!
//! A sample played again where the last left off does what it still can (a
//! Gnomic hack numbered 301 is refused once that number is taken, a treasure's
//! name once it is buried): each round also plays Gnomic turns and treasures of
//! its own, and the count by game printed says what the log holds.
//!
//! Run: `cargo bench --bench scale` (`BENCH_EVENTS=N` for the size of the log,
//! default 1000000; `BENCH_SAMPLE_ROUNDS=N` how many times every sample is played,
//! default 5; `BENCH_SHOW_REFUSED=1` prints every line of a sample refused).
//! Prints figures; asserts only that replay equals the live state and that the
//! games are running.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use jiff::{SignedDuration, Timestamp};
use nomicbot::config::{Config, DEFAULT_CONFIG, believing_from};
use nomicbot::games::table::Table;
use nomicbot::pipeline::Bot;
use nomicbot::store::{Origin, Received, Step, Store};

/// How many times every game's sample is played into the log by default.
const DEFAULT_ROUNDS: usize = 5;

/// Set in a child's environment: what it is to do (`replay` or `message`).
const CHILD: &str = "NOMICBOT_SCALE_CHILD";
/// The child's bot.toml.
const CHILD_CONFIG: &str = "NOMICBOT_SCALE_CONFIG";

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";
/// When the 100 games start; the one more message comes half an hour later.
const START: Timestamp = nomicbot::samples::START;

#[path = "common/voters.rs"]
mod voters;

#[path = "common/mix.rs"]
mod mix;

use voters::{MODERATOR, address};

fn config_text() -> String {
    believing_from(DEFAULT_CONFIG)
        .replace(
            "moderators = []",
            &format!("moderators = [\"{MODERATOR}\"]"),
        )
        .replace("rules = []", &format!("rules = [\"{MODERATOR}\"]"))
}

/// A fresh bot folder: its bot.toml and templates.
fn bot_dir() -> (tempfile::TempDir, Config) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("bot.toml"), config_text()).expect("config");
    nomicbot::templates::write_defaults(&dir.path().join("templates")).expect("templates");
    let config = Config::load(&dir.path().join("bot.toml")).expect("config");
    (dir, config)
}

/// This process's peak resident set, in kB.
fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmHWM:"))
                .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Runs this binary again as a child doing `what` on the bot of `config`; its
/// output, `key value` lines.
fn child(what: &str, config: &Path) -> Vec<(String, String)> {
    let exe = std::env::current_exe().expect("own path");
    let output = Command::new(exe)
        .env(CHILD, what)
        .env(CHILD_CONFIG, config)
        .output()
        .expect("run child");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "child {what} failed: {stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
        .lines()
        .filter_map(|line| line.split_once(' '))
        .map(|(key, value)| (key.to_owned(), value.to_owned()))
        .collect()
}

fn value<'a>(lines: &'a [(String, String)], key: &str) -> &'a str {
    lines
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .unwrap_or_else(|| panic!("the child said no {key}: {lines:?}"))
}

/// The child: opens the bot and does its one thing, then says its peak RSS.
fn be_child(what: &str) {
    let config_path = PathBuf::from(std::env::var_os(CHILD_CONFIG).expect("config path"));
    let config = Config::load(&config_path).expect("config");
    match what {
        "replay" => {
            let bot = Bot::open(config).expect("open bot");
            let began = Instant::now();
            let (equal, text) = nomicbot::cli::replay(&bot).expect("replay");
            println!("seconds {}", began.elapsed().as_secs_f64());
            println!("equal {equal}");
            println!("text {}", text.lines().next().unwrap_or_default());
        }
        "message" => {
            let mut bot = Bot::open(config).expect("open bot");
            let when = START + SignedDuration::from_mins(30);
            let raw = message(
                &address("Player4"),
                BOT,
                "[vote]",
                "one-more@bench",
                "1 yes",
            );
            bot.receive(&[received("one-more", raw, when)], None, when)
                .expect("receive");
            let done = bot.process(when).expect("process");
            println!("applied {}", done.applied);
        }
        other => panic!("no child {other:?}"),
    }
    println!("vmhwm {}", peak_rss_kb());
}

/// A history played on the pure engine: every game's sample played `rounds`
/// times, players joined, ballots voted and resolved, `open_votes` votes on a
/// ballot left open, one rename. Every event with its own time.
fn played_history(config: &Config, rounds: usize, open_votes: usize) -> Table {
    let began = Instant::now();
    let (mut table, start) = mix::every_game(config, rounds);
    println!(
        "every game's sample played {rounds} times: {} events in {:.1} s",
        table.events.len(),
        began.elapsed().as_secs_f64()
    );
    let at = voters::vote_on(&mut table, start, 100);
    let names: Vec<String> = (0..voters::VOTERS).map(|i| format!("Voter{i}")).collect();
    let mut at = voters::vote_on_open_ballot(&mut table, &names, at, open_votes);
    at += SignedDuration::from_mins(1);
    table.send(at, &address("Voter0"), true, "nomic", "rename Renamed");
    table
}

/// A database of `n_events` events whose live state is what they replay to.
fn million(n_events: usize, rounds: usize) -> (tempfile::TempDir, PathBuf, f64, Table) {
    let (dir, config) = bot_dir();
    let began = Instant::now();
    let table = played_history(&config, rounds, (n_events / 10).min(100_000));
    let (last_at, _, rename) = table.events.last().expect("the rename").clone();
    let template = serde_json::to_string(&rename).expect("json");
    assert!(template.contains("\"Renamed\""), "{template}");
    let database = config.resolve(&config.bot.database);
    std::fs::create_dir_all(database.parent().expect("folder")).expect("folder");
    {
        // The snapshot through the store, so it is written as the bot writes it.
        let mut store = Store::open(&database).expect("store");
        store
            .commit(Step {
                inbox: None,
                cause: "bench:scale".into(),
                at: last_at,
                events: Vec::new(),
                world: &table.world,
                mail: Vec::new(),
                now: last_at,
            })
            .expect("snapshot");
    }
    let mut conn = rusqlite::Connection::open(&database).expect("database");
    let tx = conn.transaction().expect("transaction");
    {
        let mut insert = tx
            .prepare("INSERT INTO events (at, cause, payload, format) VALUES (?1, ?2, ?3, ?4)")
            .expect("insert");
        let format = nomicbot::store::events::EVENT_FORMAT;
        let mut written = 0;
        for (at, cause, event) in &table.events {
            let payload = serde_json::to_string(event).expect("json");
            insert
                .execute(rusqlite::params![at.to_string(), cause, payload, format])
                .expect("event");
            written += 1;
        }
        // Renames, one a second; the last gives back the name the live state
        // has, so the log replays to it.
        let renames = n_events.saturating_sub(written);
        for i in 0..renames {
            let at = last_at + SignedDuration::from_secs(1 + i as i64);
            let name = if i + 1 == renames {
                "Renamed".to_owned()
            } else {
                format!("Renamed{i}")
            };
            let payload = template.replace("\"Renamed\"", &format!("\"{name}\""));
            insert
                .execute(rusqlite::params![
                    at.to_string(),
                    format!("mail:<rename{i}@bench>"),
                    payload,
                    format
                ])
                .expect("event");
        }
    }
    tx.commit().expect("commit");
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .expect("checkpoint");
    let seconds = began.elapsed().as_secs_f64();
    (dir, config.resolve(Path::new("bot.toml")), seconds, table)
}

fn message(from: &str, to: &str, subject: &str, id: &str, body: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{id}>\r\n\r\n{body}\r\n"
    )
    .into_bytes()
}

fn received(key: &str, raw: Vec<u8>, when: Timestamp) -> Received {
    Received {
        origin: Origin::File {
            key: key.to_owned(),
        },
        received_at: when,
        dedup_key: Bot::dedup_key(&raw),
        raw,
    }
}

/// 100 games running at once, every one started by mail through the pipeline.
fn hundred_games() -> (tempfile::TempDir, PathBuf, usize) {
    const GHOSTS: usize = 60;
    const BALLOTS: usize = 35;
    let (dir, config) = bot_dir();
    let mut bot = Bot::open(config.clone()).expect("bot");
    let start = START;
    bot.import_rules(nomicbot::samples::DEMO_RULES, start)
        .expect("import")
        .expect("the rules are imported");
    let players: Vec<String> = (0..12).map(|i| format!("Player{i}")).collect();
    let mut mail: Vec<(String, &str, String, String)> = Vec::new();
    let mut say = |from: &str, to: &'static str, tag: &str, line: String| {
        mail.push((from.to_owned(), to, format!("[{tag}]"), line));
    };
    say(MODERATOR, LIST, "nomic", "join Mod".into());
    for name in &players {
        say(&address(name), LIST, "nomic", format!("join {name}"));
    }
    for i in 0..GHOSTS {
        let three: Vec<&str> = (0..3)
            .map(|k| players[(i + k * 4) % players.len()].as_str())
            .collect();
        say(
            MODERATOR,
            LIST,
            "ghost",
            format!("start with {}", three.join(", ")),
        );
    }
    for i in 0..BALLOTS {
        say(MODERATOR, LIST, "vote", format!("open Question {i}?"));
    }
    say(MODERATOR, LIST, "rule tag", "start".into());
    say(MODERATOR, LIST, "gnomic", "start".into());
    say(
        MODERATOR,
        LIST,
        "ping",
        "place Player0 because the Machine must begin somewhere".into(),
    );
    say(
        MODERATOR,
        LIST,
        "boons",
        "bestow Player1 deterministic because a bench".into(),
    );
    say(
        MODERATOR,
        LIST,
        "boons",
        "bestow Player2 deterministic because a bench".into(),
    );
    let mut when = start + SignedDuration::from_mins(1);
    let batch: Vec<Received> = mail
        .iter()
        .enumerate()
        .map(|(i, (from, to, subject, line))| {
            when += SignedDuration::from_secs(10);
            let id = format!("m{i}@bench");
            received(&id, message(from, to, subject, &id, line), when)
        })
        .collect();
    bot.receive(&batch, None, when).expect("receive");
    let done = bot.process(when).expect("process");
    assert_eq!(done.applied, batch.len(), "every message was applied");
    let ghosts = bot
        .world()
        .state::<nomicbot::games::ghost::game::Ghost>()
        .open_instances()
        .count();
    let ballots = bot
        .world()
        .state::<nomicbot::games::vote::game::Vote>()
        .open_ballots()
        .count();
    assert_eq!(ghosts, GHOSTS, "Ghost instances running");
    assert_eq!(ballots, BALLOTS, "ballots open");
    (
        dir,
        config.resolve(Path::new("bot.toml")),
        ghosts + ballots + 5,
    )
}

fn mb(kb: &str) -> f64 {
    kb.parse::<f64>().expect("kB") / 1024.0
}

fn main() {
    if let Ok(what) = std::env::var(CHILD) {
        be_child(&what);
        return;
    }
    let n_events: usize = std::env::var("BENCH_EVENTS")
        .ok()
        .and_then(|s| s.replace('_', "").parse().ok())
        .unwrap_or(1_000_000);

    let rounds: usize = std::env::var("BENCH_SAMPLE_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_ROUNDS);
    let (dir, config, seeded_in, table) = million(n_events, rounds);
    let by_game = mix::events_by_game(&table);
    let played = table.events.len();
    drop(table);
    let size = std::fs::metadata(dir.path().join("var/nomicbot.sqlite")).map_or(0, |m| m.len());
    let replay = child("replay", &config);
    assert_eq!(value(&replay, "equal"), "true", "{replay:?}");
    let seconds: f64 = value(&replay, "seconds").parse().expect("seconds");
    println!(
        "replay of {n_events} events ({} votes on an open ballot): {seconds:.1} s, peak RSS {:.0} MB (goal ≤ 5 s, ≤ 100 MB); database {:.0} MB, built in {seeded_in:.1} s",
        (n_events / 10).min(100_000),
        mb(value(&replay, "vmhwm")),
        size as f64 / 1e6
    );
    println!("  {}", value(&replay, "text"));
    println!(
        "  {played} events played on the pure engine (every game's sample {rounds} times, ballots, 100 resolved, one open), the rest renames; by game:"
    );
    let line: Vec<String> = by_game.iter().map(|(g, n)| format!("{g} {n}")).collect();
    println!("  {}", line.join(", "));
    drop(dir);

    let (dir, config, n_games) = hundred_games();
    // The snapshot is kept in rows, a part of the world and a player each.
    let state_row: i64 = rusqlite::Connection::open(dir.path().join("var/nomicbot.sqlite"))
        .and_then(|conn| {
            conn.query_row(
                "SELECT (SELECT coalesce(sum(length(json)), 0) FROM state_parts)
                      + (SELECT coalesce(sum(length(json)), 0) FROM state_players)",
                [],
                |row| row.get(0),
            )
        })
        .expect("state rows");
    let one = child("message", &config);
    assert_eq!(value(&one, "applied"), "1", "{one:?}");
    println!(
        "peak RSS with {n_games} running games: {:.0} MB (goal ≤ 50 MB); state {:.0} kB",
        mb(value(&one, "vmhwm")),
        state_row as f64 / 1024.0
    );
}
