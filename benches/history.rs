//! What one message costs against the length of history: a database with 1k,
//! 10k and 100k past votes (resolved ballots of ten voters) and as many registry
//! events (renames), then one `[vote]` line on an open ballot and one `[nomic]`
//! rename, each received, applied and committed (SQLite, WAL, synchronous FULL)
//! through the real pipeline on the embedded transport. The figure should be flat:
//! the live state keeps no finished history, and a transaction copies only the
//! parts it changes.
//!
//! Then the history that stays live: one ballot left open while 20 players
//! change their votes again and again (1k, 10k and 100k sealed votes), and one
//! more vote on it, with the live state's size and the process's RSS after the
//! votes (the scale benchmark measures peaks, each in a process of its own).
//! Then a join and a rename among 20 and 2,000 players (a name is checked
//! against every other).
//!
//! Last, two games whose history stays live while they run, each with one more
//! message after 1k, 10k and 100k events of its kind: a Gnomic turn left open
//! while 18 of its 20 players change their votes (the events: Gnomic's own and
//! the sealed votes; five turns counted before it), and a game of Ghost in
//! rounds of plays, a protest, the moderator's new order and the referee's
//! cleared word (the events: Ghost's own, every one of which the instance's
//! record keeps).
//!
//! Run: `cargo bench --bench history` (`BENCH_HISTORY=1000,10000` to choose the
//! sizes, `BENCH_PLAYERS=20,2000` the registries, `BENCH_SAMPLES=N` messages of
//! each kind per size, default 9, `BENCH_TABLES=gnomic,ghost` only those
//! tables: resolved, ballot, players, gnomic, ghost). Prints figures; asserts
//! only that every message was applied (and, for the games, carried out).

use std::time::Instant;

use jiff::{SignedDuration, Timestamp};
use nomicbot::config::{Config, DEFAULT_CONFIG, believing_from};
use nomicbot::games;
use nomicbot::games::table::Table;
use nomicbot::pipeline::Bot;
use nomicbot::store::{Origin, Received, Step, Store};

#[path = "common/voters.rs"]
mod voters;

#[path = "common/games.rs"]
mod played;

use voters::{MODERATOR, VOTERS, address, player_name};

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

/// A message with a line in its subject, to `to`.
fn message_to(from: &str, to: &str, subject: &str, id: &str) -> Vec<u8> {
    message(from, to, subject, id)
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// This process's resident set now, in MB. (Its peak, `VmHWM`, keeps the
/// seeding's, and resetting it through `clear_refs` is not allowed everywhere.)
fn rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|line| line.strip_prefix("VmRSS:"))
                .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .map_or(0.0, |kb: f64| kb / 1024.0)
}

/// A fresh bot folder with `table`'s events and world committed as its
/// history; the folder, its config and the live state's size in bytes.
fn seeded(table: &Table, at: Timestamp) -> (tempfile::TempDir, Config, usize) {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("bot.toml"), config_text()).expect("config");
    nomicbot::templates::write_defaults(&dir.path().join("templates")).expect("templates");
    let config = Config::load(&dir.path().join("bot.toml")).expect("config");
    let database = config.resolve(&config.bot.database);
    std::fs::create_dir_all(database.parent().expect("folder")).expect("folder");
    {
        let mut store = Store::open(&database).expect("store");
        let events: Vec<games::Event> = table.events.iter().map(|(_, _, e)| e.clone()).collect();
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
    let conn = rusqlite::Connection::open(&database).expect("database");
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .expect("checkpoint");
    let live = serde_json::to_string(&table.world).expect("json").len();
    (dir, config, live)
}

/// Applies one message through the pipeline; what it took, in ms.
fn one(bot: &mut Bot, key: &str, from: &str, subject: &str, when: Timestamp) -> f64 {
    let raw = message(from, "bot@nomic.example", subject, &format!("{key}@bench"));
    one_raw(bot, key, raw, when)
}

/// Applies one raw message through the pipeline; what it took, in ms.
fn one_raw(bot: &mut Bot, key: &str, raw: Vec<u8>, when: Timestamp) -> f64 {
    let began = Instant::now();
    bot.receive(
        &[Received {
            origin: Origin::File {
                key: key.to_owned(),
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
    assert_eq!(done.applied, 1, "{key} was not applied");
    began.elapsed().as_secs_f64() * 1000.0
}

fn list(var: &str, default: &str) -> Vec<usize> {
    std::env::var(var)
        .unwrap_or_else(|_| default.into())
        .split(',')
        .filter_map(|s| s.trim().replace('_', "").parse().ok())
        .collect()
}

/// One ballot open, 20 players changing their votes: one more vote.
fn open_ballot(sizes: &[usize], samples: usize) {
    const PLAYERS: usize = 20;
    println!();
    println!(
        "one vote on a ballot left open, {PLAYERS} players changing their votes (median of {samples}, ms; the process's RSS after them)"
    );
    println!(
        "{:>8} {:>10} {:>10} {:>8} {:>12} {:>10} {:>10}",
        "votes", "events", "vote", "ratio", "live state", "RSS after", "seeded in"
    );
    let mut first = None;
    for &n in sizes {
        let (_, config) = {
            let dir = tempfile::tempdir().expect("temp dir");
            std::fs::write(dir.path().join("bot.toml"), config_text()).expect("config");
            nomicbot::templates::write_defaults(&dir.path().join("templates")).expect("templates");
            let config = Config::load(&dir.path().join("bot.toml")).expect("config");
            (dir, config)
        };
        let start: Timestamp = "2026-01-05T10:00:00Z".parse().expect("time");
        let seeding = Instant::now();
        let (table, at) = voters::open_ballot(&config, start, PLAYERS, n);
        let n_events = table.events.len();
        let (_dir, config, live) = seeded(&table, at);
        let seeded_in = seeding.elapsed().as_secs_f64();
        drop(table);
        let mut bot = Bot::open(config).expect("bot");
        let mut votes = Vec::new();
        for i in 0..samples + 3 {
            let when = at + SignedDuration::from_secs(1 + i as i64);
            let voter = address(&player_name(i % PLAYERS));
            let choice = if i % 2 == 0 { "yes" } else { "no" };
            let ms = one(
                &mut bot,
                &format!("vote{i}"),
                &voter,
                &format!("[vote] {choice}"),
                when,
            );
            if i >= 3 {
                votes.push(ms);
            }
        }
        let rss = rss_mb();
        let vote = median(votes);
        let vote_1 = *first.get_or_insert(vote);
        println!(
            "{n:>8} {n_events:>10} {vote:>10.2} {:>7.2}x {live:>10} B {rss:>7.0} MB {seeded_in:>9.1}s",
            vote / vote_1
        );
    }
}

/// A game whose history stays live: one more message of it after `n` events
/// of its kind, played by `build`.
fn live_game(
    title: &str,
    sizes: &[usize],
    samples: usize,
    build: fn(&Config, Timestamp, usize) -> played::Played,
) {
    println!();
    println!("{title} (median of {samples}, ms; the process's RSS after them)");
    println!(
        "{:>8} {:>10} {:>10} {:>8} {:>12} {:>10} {:>10}",
        "events", "all", "message", "ratio", "live state", "RSS after", "seeded in"
    );
    let mut first = None;
    for &n in sizes {
        let (_dir, config) = {
            let dir = tempfile::tempdir().expect("temp dir");
            std::fs::write(dir.path().join("bot.toml"), config_text()).expect("config");
            nomicbot::templates::write_defaults(&dir.path().join("templates")).expect("templates");
            let config = Config::load(&dir.path().join("bot.toml")).expect("config");
            (dir, config)
        };
        let start: Timestamp = "2026-01-05T10:00:00Z".parse().expect("time");
        let seeding = Instant::now();
        let game = build(&config, start, n);
        let n_events = game.table.events.len();
        let at = game.at;
        let (_dir, config, live) = seeded(&game.table, at);
        let seeded_in = seeding.elapsed().as_secs_f64();
        let (kind, next) = (game.kind_events, game.next);
        drop(game.table);
        let database = config.resolve(&config.bot.database);
        let mut bot = Bot::open(config).expect("bot");
        let log = rusqlite::Connection::open(&database).expect("database");
        let logged = || -> i64 {
            log.query_row("SELECT count(*) FROM events", [], |row| row.get(0))
                .expect("events")
        };
        let mut times = Vec::new();
        for i in 0..samples + 3 {
            let when = at + SignedDuration::from_secs(1 + i as i64);
            let line = next(i);
            let (to, subject) = line.to_subject();
            let raw = message_to(&line.from, to, &subject, &format!("m{i}@bench"));
            let before = logged();
            let ms = one_raw(&mut bot, &format!("m{i}"), raw, when);
            // Carried out, not refused: a refusal records no event.
            assert!(logged() > before, "{line:?} was refused");
            if i >= 3 {
                times.push(ms);
            }
        }
        let rss = rss_mb();
        let ms = median(times);
        let ms_1 = *first.get_or_insert(ms);
        println!(
            "{kind:>8} {n_events:>10} {ms:>10.2} {:>7.2}x {live:>10} B {rss:>7.0} MB {seeded_in:>9.1}s",
            ms / ms_1
        );
    }
}

/// A join and a rename among `players` players.
fn registry(sizes: &[usize], samples: usize) {
    println!();
    println!("one join and one rename against the number of players (median of {samples}, ms)");
    println!(
        "{:>8} {:>10} {:>8} {:>10} {:>8} {:>10}",
        "players", "join", "ratio", "rename", "ratio", "seeded in"
    );
    let mut first = None;
    for &n in sizes {
        let config = {
            let dir = tempfile::tempdir().expect("temp dir");
            std::fs::write(dir.path().join("bot.toml"), config_text()).expect("config");
            nomicbot::templates::write_defaults(&dir.path().join("templates")).expect("templates");
            Config::load(&dir.path().join("bot.toml")).expect("config")
        };
        let start: Timestamp = "2026-01-05T10:00:00Z".parse().expect("time");
        let seeding = Instant::now();
        let (table, _) = voters::joined(&config, start, n);
        let at = start + SignedDuration::from_mins(1);
        let (_dir, config, _) = seeded(&table, at);
        let seeded_in = seeding.elapsed().as_secs_f64();
        drop(table);
        let mut bot = Bot::open(config).expect("bot");
        let (mut joins, mut renames) = (Vec::new(), Vec::new());
        for i in 0..samples + 3 {
            let when = at + SignedDuration::from_secs(1 + i as i64);
            let newcomer = format!("New{}", player_name(i));
            let join = one(
                &mut bot,
                &format!("join{i}"),
                &address(&newcomer),
                &format!("[nomic] join {newcomer}"),
                when,
            );
            let rename = one(
                &mut bot,
                &format!("rename{i}"),
                &address(&player_name(0)),
                &format!("[nomic] rename Again{}", player_name(i)),
                when,
            );
            if i >= 3 {
                joins.push(join);
                renames.push(rename);
            }
        }
        let (join, rename) = (median(joins), median(renames));
        let (join_1, rename_1) = *first.get_or_insert((join, rename));
        println!(
            "{n:>8} {join:>10.2} {:>7.2}x {rename:>10.2} {:>7.2}x {seeded_in:>9.1}s",
            join / join_1,
            rename / rename_1
        );
    }
}

/// Resolved history: one vote and one rename after `n` past votes and renames.
fn resolved(sizes: &[usize], samples: usize) {
    println!(
        "one message against the length of history (median of {samples}, ms; live state = snapshot JSON)"
    );
    println!(
        "{:>8} {:>10} {:>10} {:>10} {:>12} {:>10}",
        "history", "events", "vote", "rename", "live state", "seeded in"
    );
    let mut first: Option<(f64, f64)> = None;
    for &n in sizes {
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

fn main() {
    let sizes = list("BENCH_HISTORY", "1000,10000,100000");
    let players = list("BENCH_PLAYERS", "20,2000");
    let samples: usize = std::env::var("BENCH_SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(9);
    // Which tables, all unless named (resolved, ballot, players, gnomic, ghost).
    let tables = std::env::var("BENCH_TABLES").unwrap_or_default();
    let wanted = |name: &str| tables.is_empty() || tables.split(',').any(|t| t.trim() == name);
    if wanted("resolved") {
        resolved(&sizes, samples);
    }
    if wanted("ballot") {
        open_ballot(&sizes, samples);
    }
    if wanted("players") {
        registry(&players, samples);
    }
    if wanted("gnomic") {
        live_game(
            &format!(
                "one vote on an open Gnomic turn, {} players, turns counted before it, the others changing their votes",
                played::GNOMIC_PLAYERS
            ),
            &sizes,
            samples,
            played::gnomic_open_turn,
        );
    }
    if wanted("ghost") {
        live_game(
            "one move in a running game of Ghost (plays, protests, the referee's overrides)",
            &sizes,
            samples,
            played::ghost_running,
        );
    }
}
