//! What one message costs against the length of history: a database with 1k,
//! 10k and 100k past votes (resolved ballots of ten voters) and as many registry
//! events (renames), then one `[vote]` line on an open ballot and one `[nomic]`
//! rename, each received, applied and committed (SQLite, WAL, synchronous FULL)
//! through the real pipeline on the embedded transport. The figure should be flat:
//! the live state keeps no finished history, and a transaction copies only the
//! parts it changes.
//!
//! Run: `cargo bench --bench history` (`BENCH_HISTORY=1000,10000` to choose the
//! sizes, `BENCH_SAMPLES=N` messages of each kind per size, default 9). Prints
//! figures; asserts only that every message was applied.

use std::time::Instant;

use jiff::{SignedDuration, Timestamp};
use nomicbot::config::{Config, DEFAULT_CONFIG, believing_from};
use nomicbot::games;
use nomicbot::games::table::Table;
use nomicbot::pipeline::Bot;
use nomicbot::store::{Origin, Received, Step, Store};

#[path = "common/voters.rs"]
mod voters;

use voters::{MODERATOR, VOTERS, address};

fn config_text() -> String {
    believing_from(DEFAULT_CONFIG).replace(
        "moderators = []",
        &format!("moderators = [\"{MODERATOR}\"]"),
    )
}

/// A world with `n` past votes and `n` registry events, played on the pure
/// engine, with every event it took.
fn history(config: &Config, n: usize, start: Timestamp) -> Table {
    // Ballots of ten votes each, every one resolved at its deadline.
    let (mut table, mut at) = voters::voted(config, start, n / VOTERS);
    // Registry events: one player renamed back and forth.
    for i in 0..n {
        at += SignedDuration::from_secs(1);
        let name = if i % 2 == 0 { "Renamed" } else { "Voter0" };
        table.send(
            at,
            &address("Voter0"),
            true,
            "nomic",
            &format!("rename {name}"),
        );
    }
    table
}

fn message(from: &str, to: &str, subject: &str, id: &str) -> Vec<u8> {
    format!("From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{id}>\r\n\r\n")
        .into_bytes()
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn main() {
    let sizes: Vec<usize> = std::env::var("BENCH_HISTORY")
        .unwrap_or_else(|_| "1000,10000,100000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let samples: usize = std::env::var("BENCH_SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(9);
    println!(
        "one message against the length of history (median of {samples}, ms; live state = snapshot JSON)"
    );
    println!(
        "{:>8} {:>10} {:>10} {:>10} {:>12} {:>10}",
        "history", "events", "vote", "rename", "live state", "seeded in"
    );
    let mut first: Option<(f64, f64)> = None;
    for n in sizes {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("bot.toml"), config_text()).expect("config");
        nomicbot::templates::write_defaults(&dir.path().join("templates")).expect("templates");
        let config = Config::load(&dir.path().join("bot.toml")).expect("config");
        let start: Timestamp = "2026-01-05T10:00:00Z".parse().expect("time");
        let seeding = Instant::now();
        let mut table = history(&config, n, start);
        let seeded_in = seeding.elapsed().as_secs_f64();
        let at = table.events.last().map_or(start, |(at, _, _)| *at) + SignedDuration::from_mins(1);
        // One ballot open for the votes measured.
        table.send(at, MODERATOR, true, "vote", "open One more?");
        let n_events = table.events.len();
        {
            let database = config.resolve(&config.bot.database);
            std::fs::create_dir_all(database.parent().expect("folder")).expect("folder");
            let mut store = Store::open(&database).expect("store");
            let events: Vec<games::Event> =
                table.events.iter().map(|(_, _, e)| e.clone()).collect();
            store
                .commit(Step {
                    inbox: None,
                    cause: "bench:history".into(),
                    at,
                    events,
                    world: &table.world,
                    mail: Vec::new(),
                    now: at,
                })
                .expect("seed");
        }
        // The seed went in as one huge transaction: fold its write-ahead log into
        // the database now, so the messages measured do not pay that checkpoint.
        {
            let database = config.resolve(&config.bot.database);
            let conn = rusqlite::Connection::open(&database).expect("database");
            conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
                .expect("checkpoint");
        }
        let live = serde_json::to_string(&table.world).expect("json").len();
        let mut bot = Bot::open(config.clone()).expect("bot");
        let mut run = |kind: &str, index: usize, from: &str, subject: &str, when: Timestamp| {
            let raw = message(
                from,
                "bot@nomic.example",
                subject,
                &format!("{kind}{index}@bench"),
            );
            let began = Instant::now();
            bot.receive(
                &[Received {
                    origin: Origin::File {
                        key: format!("{kind}{index}"),
                    },
                    received_at: when,
                    dedup_key: Bot::dedup_key(&raw),
                    raw,
                }],
                None,
                when,
            )
            .expect("receive");
            let done = bot.process(when).expect("process");
            assert_eq!(done.applied, 1, "{kind} {index} was not applied");
            began.elapsed().as_secs_f64() * 1000.0
        };
        let mut votes = Vec::new();
        let mut renames = Vec::new();
        // Three of each first, not measured: the caches warm up as in a running bot.
        for i in 0..samples + 3 {
            let when = at + SignedDuration::from_secs(1 + i as i64);
            let voter = address(&format!("Voter{}", 1 + i % (VOTERS - 1)));
            let vote = run("vote", i, &voter, "[vote] yes", when);
            let name = if i % 2 == 0 { "Again" } else { "Voter0" };
            let rename = run(
                "rename",
                i,
                &address("Voter0"),
                &format!("[nomic] rename {name}"),
                when,
            );
            if i >= 3 {
                votes.push(vote);
                renames.push(rename);
            }
        }
        let (vote, rename) = (median(votes), median(renames));
        println!(
            "{n:>8} {n_events:>10} {vote:>10.2} {rename:>10.2} {live:>10} B {seeded_in:>9.1}s"
        );
        let (vote_1, rename_1) = *first.get_or_insert((vote, rename));
        if (vote_1, rename_1) != (vote, rename) {
            println!(
                "{:>8} {:>10} {:>9.2}x {:>9.2}x   (against the first size)",
                "",
                "",
                vote / vote_1,
                rename / rename_1
            );
        }
    }
}
