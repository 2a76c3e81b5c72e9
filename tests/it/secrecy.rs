//! Issue 9, item 3: secrecy is the game's to declare, and the shell enforces it.
//! Every registered game plays its sample; every command its game declares secret
//! is also carried out again by a moderator's `as` override, sent the same way;
//! and no public mail, from that step on until the game's next resolution at a
//! deadline, shows what the secret command said.

use std::sync::Arc;

use jiff::{SignedDuration, Timestamp};
use nomicbot::config::Config;
use nomicbot::engine::game::Script;
use nomicbot::engine::{Audience, Mail, Status};
use nomicbot::games::driver::{self, Next};
use nomicbot::games::table::Table;
use nomicbot::games::{self, World};

const MODERATOR: &str = "mod@nomic.example";

fn address(name: &str) -> String {
    if name == "Mod" {
        MODERATOR.to_owned()
    } else {
        format!("{}@nomic.example", name.to_lowercase())
    }
}

/// Every string in a mail's values.
fn strings(value: &serde_json::Value, out: &mut Vec<String>) {
    match value {
        serde_json::Value::String(s) => out.push(s.to_lowercase()),
        serde_json::Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        serde_json::Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// Whether a public mail shows a secret line: a value that is the line, or holds
/// it when the line is long enough not to be an ordinary word ("no").
fn shows(mail: &Mail, secret: &str) -> bool {
    let secret = secret.trim().to_lowercase();
    let mut values = Vec::new();
    strings(&mail.values, &mut values);
    values
        .iter()
        .any(|v| *v == secret || (secret.len() >= 6 && v.contains(&secret)))
}

/// Plays a game's sample on the pure table and watches every public mail.
struct Watch {
    table: Table,
    start: Timestamp,
    /// Secret lines not yet revealed, with who sent them.
    pending: Vec<String>,
    /// Overrides of players' secret actions carried out, and how many of them were
    /// secret too.
    secrets: usize,
    overrides: usize,
    leaks: Vec<String>,
}

impl Watch {
    fn check(&mut self, mail: &[Mail], step: &str) {
        for one in mail.iter().filter(|m| m.to == Audience::List) {
            for secret in &self.pending {
                if shows(one, secret) {
                    self.leaks.push(format!(
                        "{step}: {:?} in the public {} ({})",
                        secret, one.template, one.values
                    ));
                }
            }
        }
    }

    /// Fires every deadline due by `at`: the commitments and the registry's
    /// expiries must keep secrets too; a game's resolution may reveal them.
    fn run_until(&mut self, at: Timestamp) {
        let mut skip = None;
        while let Next::Deadline(due) =
            driver::next(&self.table.world, &self.table.params, None, at, skip)
        {
            let outcome =
                self.table
                    .world
                    .tick(due, &self.table.params, due, Table::entropy(due, "tick"));
            if outcome.events.is_empty() {
                skip = Some(due);
                continue;
            }
            // A game's resolution at a deadline reveals its sealed actions: what
            // it mails before the reveal must still keep them, what follows it
            // (a report of who did what) may tell them.
            let resolves = matches!(outcome.phase, "schedule" | "games");
            let before_reveal = outcome
                .mail
                .iter()
                .position(|m| resolves && m.template == nomicbot::engine::sealed::REVEAL_TEMPLATE)
                .unwrap_or(outcome.mail.len());
            self.check(&outcome.mail[..before_reveal], outcome.phase);
            if resolves {
                self.pending.clear();
            }
            self.table.record(due, &outcome.events);
            self.table.mail.extend(outcome.mail);
        }
    }
}

impl Script for Watch {
    fn send(&mut self, minutes: i64, from: &str, public: bool, tag: &str, lines: &[&str]) {
        let at = self.start + SignedDuration::from_mins(minutes);
        self.run_until(at);
        let outcome = self.table.message(at, &address(from), public, tag, lines);
        self.pending.extend(outcome.secret.iter().cloned());
        self.check(&outcome.mail, &format!("{from}: {lines:?}"));
        for secret in &outcome.secret {
            if from == "Mod" {
                continue;
            }
            // The same action, carried out by a moderator for the player.
            let line = format!("as {from} because the secrecy test: {secret}");
            let again = self.table.message(at, MODERATOR, public, tag, &[&line]);
            self.check(&again.mail, &line);
            // An override the game refuses (a second element change, say) is
            // carried out by no one: nothing to keep secret.
            if again.report.iter().all(|r| r.status != Status::Done) {
                continue;
            }
            self.secrets += 1;
            if again.secret.is_empty() {
                self.leaks
                    .push(format!("{line}: carried out, but not as a secret"));
            } else {
                self.overrides += 1;
            }
        }
    }

    fn wait(&mut self, minutes: i64) {
        self.run_until(self.start + SignedDuration::from_mins(minutes));
    }

    fn view(&self, game: &str) -> serde_json::Value {
        games::state_of(
            &self.table.world,
            &self.table.params,
            game,
            true,
            self.start,
        )
        .map(|(view, _)| view)
        .unwrap_or_default()
    }

    fn say(&mut self, _text: &str) {}
}

/// The shipped configuration with a moderator who keeps the rules; players Mod,
/// Alice, Bob, Carol and Dave with 20 points each; the samples' four rules.
fn table(start: Timestamp) -> Table {
    let text = crate::support::trusting()
        .replace(
            "moderators = []",
            &format!("moderators = [\"{MODERATOR}\"]"),
        )
        .replace("rules = []", &format!("rules = [\"{MODERATOR}\"]"));
    let config = Config::parse(&text, ".".into()).expect("the shipped config parses");
    let lexicon = nomicbot::pipeline::official_dictionary(&config).expect("dictionary");
    let params = nomicbot::pipeline::game_params(&config, lexicon);
    let mut world = World::default();
    Arc::make_mut(&mut world.shared.accounts).currencies = config.accounts.currency.clone();
    let mut table = Table::new(world, params);
    let rules = nomicbot::engine::ruleset::parse_ruleset_with(nomicbot::samples::DEMO_RULES, 1)
        .expect("the samples' rules");
    let done = table.world.ruleset.import(rules, start).expect("import");
    let events: Vec<_> = done.events.into_iter().map(games::Event::Ruleset).collect();
    table.record(start, &events);
    for (minute, name) in (0..).zip(["Mod", "Alice", "Bob", "Carol", "Dave"]) {
        let at = start + SignedDuration::from_secs(minute);
        table.send(at, &address(name), true, "nomic", &format!("join {name}"));
        table.send(
            at,
            MODERATOR,
            false,
            "nomic",
            &format!("adjust {name} 20 points because the samples start here"),
        );
    }
    table
}

#[test]
fn no_secret_action_nor_any_override_of_one_reaches_public_mail_before_the_reveal() {
    let start: Timestamp = "2026-01-05T10:00:00Z".parse().expect("time");
    let mut secrets = 0;
    let mut overrides = 0;
    let samples = games::samples();
    assert!(!samples.is_empty(), "no game is registered");
    for sample in samples {
        let name = sample.name;
        let mut watch = Watch {
            table: table(start),
            start: start + SignedDuration::from_mins(10),
            pending: Vec::new(),
            secrets: 0,
            overrides: 0,
            leaks: Vec::new(),
        };
        (sample.play)(&mut watch);
        watch.wait(60 * 24 * 30);
        assert!(
            watch.leaks.is_empty(),
            "{name}: secrets reached the list:\n{}",
            watch.leaks.join("\n")
        );
        assert_eq!(
            watch.overrides, watch.secrets,
            "{name}: an override of a secret action was not itself secret"
        );
        secrets += watch.secrets;
        overrides += watch.overrides;
    }
    // The test must see secrets to prove anything: [vote] and Rule Tag have them.
    assert!(
        secrets > 0 && overrides > 0,
        "no game's sample made a secret action"
    );
}
