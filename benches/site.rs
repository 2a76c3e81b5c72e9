//! What keeping the public web site current costs against the length of
//! history: a database with 1k and 100k past events (ballots voted and resolved,
//! players renamed: the Vote game and the nomic's registry) and the
//! announcements they made (each rendered from the shipped templates, as the
//! bot writes them, into the outbox to the list); the whole site built once;
//! then one new message (a vote) received, applied and committed through the
//! real pipeline, and the site brought up to date from its cursor. The
//! incremental figure should stay flat while the whole build grows with history.
//!
//! Run: `cargo bench --bench site` (`BENCH_SITE=1000,100000` to choose the
//! sizes, `BENCH_SAMPLES=N` new messages per size, default 5). Prints figures;
//! asserts only that every message was applied and the site kept up.

use std::time::Instant;

use jiff::{SignedDuration, Timestamp};
use nomicbot::config::{Config, DEFAULT_CONFIG, believing_from};
use nomicbot::engine::Audience;
use nomicbot::games;
use nomicbot::games::table::Table;
use nomicbot::pipeline::Bot;
use nomicbot::store::{NewMail, Origin, Quota, Received, Step, Store};

#[path = "common/voters.rs"]
mod voters;

use voters::{MODERATOR, VOTERS, address};

fn config_text() -> String {
    believing_from(DEFAULT_CONFIG).replace(
        "moderators = []",
        &format!("moderators = [\"{MODERATOR}\"]"),
    )
}

/// About `n` events: half of them ballots of ten votes, each resolved (some
/// forty events a ballot), the rest renames.
fn history(config: &Config, n: usize, start: Timestamp) -> Table {
    let (mut table, mut at) = voters::voted(config, start, n / 80);
    let mut renames = 0;
    while table.events.len() < n {
        at += SignedDuration::from_secs(1);
        renames += 1;
        let name = if renames % 2 == 1 {
            "Renamed"
        } else {
            "Voter0"
        };
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

/// The table's mail to the list, rendered from the shipped templates.
fn announcements(config: &Config, table: &Table) -> Vec<NewMail> {
    let templates = nomicbot::templates::Templates::load(&config.resolve(&config.bot.templates))
        .expect("templates");
    table
        .mail
        .iter()
        .filter(|mail| mail.to == Audience::List)
        .enumerate()
        .map(|(index, mail)| {
            let (subject, body) = match templates.render(&mail.template, &mail.values) {
                Ok(rendered) => (rendered.subject, rendered.body),
                Err(_) => (mail.template.clone(), mail.values.to_string()),
            };
            let message_id = format!("<seed{index}@bench>");
            let raw = format!(
                "From: {bot}\r\nTo: {list}\r\nSubject: [{tag}] {subject}\r\nMessage-ID: {message_id}\r\n\
                 Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n",
                bot = config.bot.address,
                list = config.bot.list,
                tag = mail.tag,
            );
            NewMail {
                message_id,
                template: mail.template.clone(),
                envelope_from: config.bot.address.clone(),
                recipients: vec![config.bot.list.clone()],
                raw: raw.into_bytes(),
                quota: Quota::Free,
                written_from: None,
            }
        })
        .collect()
}

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn main() {
    let sizes: Vec<usize> = std::env::var("BENCH_SITE")
        .unwrap_or_else(|_| "1000,100000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let samples: usize = std::env::var("BENCH_SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    println!("the public web site kept current against the length of history (ms)");
    println!(
        "{:>8} {:>8} {:>10} {:>12} {:>12} {:>9}",
        "events", "mails", "whole", "message", "site update", "written"
    );
    for n in sizes {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("bot.toml"), config_text()).expect("config");
        nomicbot::templates::write_defaults(&dir.path().join("templates")).expect("templates");
        let config = Config::load(&dir.path().join("bot.toml")).expect("config");
        let start: Timestamp = "2026-01-05T10:00:00Z".parse().expect("time");
        let mut table = history(&config, n, start);
        let at = table.events.last().map_or(start, |(at, _, _)| *at) + SignedDuration::from_mins(1);
        // One ballot open for the votes measured.
        table.send(at, MODERATOR, true, "vote", "open One more?");
        let n_events = table.events.len();
        let mail = announcements(&config, &table);
        let n_mail = mail.len();
        {
            let database = config.resolve(&config.bot.database);
            std::fs::create_dir_all(database.parent().expect("folder")).expect("folder");
            let mut store = Store::open(&database).expect("store");
            let events: Vec<games::Event> =
                table.events.iter().map(|(_, _, e)| e.clone()).collect();
            store
                .commit(Step {
                    inbox: None,
                    cause: "bench:site".into(),
                    at,
                    events,
                    world: &table.world,
                    mail,
                    now: at,
                })
                .expect("seed");
            let conn = rusqlite::Connection::open(&database).expect("database");
            conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
                .expect("checkpoint");
        }
        let mut bot = Bot::open(config.clone()).expect("bot");
        let site = dir.path().join("site");
        let began = Instant::now();
        let whole = nomicbot::site::build_whole(&bot, &site).expect("whole site");
        let whole_ms = began.elapsed().as_secs_f64() * 1000.0;
        let mut messages = Vec::new();
        let mut updates = Vec::new();
        let mut written = Vec::new();
        for i in 0..samples {
            // Two hours on: the seed's mail, all written at one instant, is out
            // of the hour the bot's own sending cap counts.
            let when = at + SignedDuration::from_hours(2) + SignedDuration::from_secs(1 + i as i64);
            let voter = address(&format!("Voter{}", 1 + i % (VOTERS - 1)));
            let raw = format!(
                "From: {voter}\r\nTo: {}\r\nSubject: [vote] yes\r\nMessage-ID: <vote{i}@bench>\r\n\r\n",
                config.bot.address
            )
            .into_bytes();
            let began = Instant::now();
            bot.receive(
                &[Received {
                    origin: Origin::File {
                        key: format!("vote{i}"),
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
            assert_eq!(done.applied, 1, "vote {i} was not applied: {done:?}");
            messages.push(began.elapsed().as_secs_f64() * 1000.0);
            let began = Instant::now();
            let built = nomicbot::site::build(&bot, &site).expect("site update");
            updates.push(began.elapsed().as_secs_f64() * 1000.0);
            assert!(built.files >= whole.files, "the site lost files");
            written.push(built.written.len() as f64);
        }
        println!(
            "{n_events:>8} {n_mail:>8} {whole_ms:>10.1} {:>12.2} {:>12.2} {:>9.0}",
            median(messages),
            median(updates),
            median(written),
        );
    }
    println!(
        "(whole: the whole site from the whole log; message: one vote received, applied and \
         committed; site update: the site brought up to date after it; written: files whose \
         bytes changed)"
    );
}
