//! The games' samples on the pure engine: the setup every sample starts from
//! (written here once, for `check` and for `demo --game NAME` alike), and each
//! registered game's `sample` played on a `Table` (no store, no transport, no
//! clock), whose mail `check` renders with the operator's templates. A template
//! edited into a broken one is found at start-up, with the values the games
//! really send, not on the day it is needed. It names no game: the registry does.

use jiff::{SignedDuration, Timestamp};

use crate::config::{Config, DEFAULT_CONFIG};
use crate::engine::Mail;
use crate::engine::game::Script;
use crate::games::table::Table;
use crate::games::{self, Sample, World};

/// A small ruleset of four rules that define and use terms, so that moves
/// between rules can be linked through the glossary: the samples' rules.
pub const DEMO_RULES: &str = r#"Create a new rule "Points":
"Points" are a whole number that each player holds, starting at zero.

Create a new rule "Turns":
A "turn" is the time in which one player may act. In eir turn a player may gain
points.

Create a new rule "Winning":
The player with the most points at the end of a turn wins the game.

Create a new rule "Reports":
A "report" is a message from an officer to every player. Every report shows each
player's points and whose turn it is.
"#;

/// The players of the samples, in the order they join; the first is the
/// moderator, who keeps the rules too.
pub const PLAYERS: [&str; 5] = ["Mod", "Alice", "Bob", "Carol", "Dave"];

/// What each player holds when a sample starts.
pub const STARTING_POINTS: u32 = 20;

/// Minute 0 of every sample: 2026-01-05 10:00 UTC, in nweek 0 of the shipped
/// calendar (ten ndays from 2026-01-05). The setup is played the hour before.
pub const START: Timestamp = Timestamp::constant(1_767_607_200, 0);

/// A sample's player's address: `alice@nomic.example` for Alice.
pub fn address(name: &str) -> String {
    format!("{}@nomic.example", name.to_lowercase())
}

/// The moment `minutes` after the start of a sample.
pub fn at(minutes: i64) -> Timestamp {
    START + SignedDuration::from_mins(minutes)
}

/// Where the samples are played: a `Script` that also takes the operator's acts.
pub trait Stage: Script {
    /// The operator imports a ruleset text (`nomicbot import-rules`).
    fn import_rules(&mut self, minutes: i64, text: &str);
}

/// The setup before any game's sample (`Game::sample` relies on it): the rules
/// imported, the players joined on the list, and their starting points given by
/// the moderator.
pub fn setup(stage: &mut dyn Stage) {
    stage.say(&format!(
        "The setup: the operator imports four rules (1 Points, 2 Turns, 3 Winning, 4 Reports, linked \
         through the terms \"points\", \"turn\" and \"report\"); {} join; the moderator, {}, gives \
         everyone {STARTING_POINTS} points.",
        PLAYERS.join(", "),
        PLAYERS[0]
    ));
    stage.import_rules(-60, DEMO_RULES);
    for (index, name) in PLAYERS.iter().enumerate() {
        stage.send(
            -59 + index as i64,
            name,
            true,
            "nomic",
            &[&format!("join {name}")],
        );
    }
    let adjustments: Vec<String> = PLAYERS
        .iter()
        .map(|name| {
            format!("adjust {name} {STARTING_POINTS} points because every sample starts with {STARTING_POINTS}")
        })
        .collect();
    let lines: Vec<&str> = adjustments.iter().map(String::as_str).collect();
    stage.send(-50, PLAYERS[0], false, "nomic", &lines);
}

/// The shipped configuration, From believed, with the samples' moderator (who keeps the rules too).
pub fn sample_config() -> Option<Config> {
    // The samples' mail is unsigned: From is believed.
    let mut config =
        Config::parse(&crate::config::believing_from(DEFAULT_CONFIG), ".".into()).ok()?;
    config.bot.moderators = vec![address(PLAYERS[0])];
    config.officers.rules = vec![address(PLAYERS[0])];
    Some(config)
}

/// A table with nothing played yet: the world empty but for the configured
/// currencies, the parameters of `config` with the official dictionary.
pub fn new_table(config: &Config) -> Table {
    let mut world = World::default();
    std::sync::Arc::make_mut(&mut world.shared.accounts).currencies =
        config.accounts.currency.clone();
    let lexicon = crate::pipeline::official_dictionary(config)
        .unwrap_or_else(|_| std::sync::Arc::new(crate::engine::game::NoWords));
    Table::new(world, crate::pipeline::game_params(config, lexicon))
}

/// The pure table as a sample's stage: players by name, minutes from `START`.
pub struct OnTable {
    pub table: Table,
    /// What the sample said to the reader, in order.
    pub said: Vec<String>,
}

impl Script for OnTable {
    fn send(&mut self, minutes: i64, from: &str, public: bool, tag: &str, lines: &[&str]) {
        let _outcome = self
            .table
            .message(at(minutes), &address(from), public, tag, lines);
    }

    fn wait(&mut self, minutes: i64) {
        self.table.run_until(at(minutes));
    }

    fn view(&self, game: &str) -> serde_json::Value {
        let now = self.table.events.last().map_or(START, |(at, _, _)| *at);
        games::state_of(&self.table.world, &self.table.params, game, true, now)
            .map_or(serde_json::Value::Null, |(view, _)| view)
    }

    fn say(&mut self, text: &str) {
        self.said.push(text.to_owned());
    }
}

impl Stage for OnTable {
    fn import_rules(&mut self, minutes: i64, text: &str) {
        let at = at(minutes);
        let first = self.table.world.ruleset.next_free_number();
        let Ok(rules) = crate::engine::ruleset::parse_ruleset_with(text, first) else {
            return;
        };
        if let Ok(done) = self.table.world.ruleset.import(rules, at) {
            let events: Vec<games::Event> =
                done.events.into_iter().map(games::Event::Ruleset).collect();
            self.table.record(at, &events);
            self.table.mail.extend(done.mail);
        }
    }
}

/// Each registered game's sample played after the setup, on a table of its own
/// (a sample's times follow the shipped calendar from `START`), with every mail
/// the table sent, the setup's first.
pub fn played() -> Vec<(Sample, Vec<Mail>)> {
    let Some(config) = sample_config() else {
        return Vec::new();
    };
    let fresh = new_table(&config);
    games::samples()
        .into_iter()
        .map(|sample| {
            let mut stage = OnTable {
                table: Table::new(fresh.world.clone(), fresh.params.clone()),
                said: Vec::new(),
            };
            setup(&mut stage);
            (sample.play)(&mut stage);
            (sample, stage.table.mail)
        })
        .collect()
}

/// Every announcement the samples send: the setup's, and every game's.
pub fn engine_mail() -> Vec<Mail> {
    played().into_iter().flat_map(|(_, mail)| mail).collect()
}

#[cfg(test)]
mod tests {
    /// `check` renders mail of every registered game: each sample sends at least
    /// one announcement under its game's own tag.
    #[test]
    fn every_registered_game_sends_announcements_in_its_sample() {
        let played = super::played();
        assert_eq!(played.len(), crate::games::game_names().len());
        for (sample, mail) in &played {
            let own = mail.iter().filter(|m| sample.is_own(m)).count();
            assert!(
                own > 0,
                "{}'s sample sent no mail of its own: {:?}",
                sample.name,
                mail.iter().map(|m| &m.template).collect::<Vec<_>>()
            );
        }
    }

    /// The setup's own announcements come first in every game's mail.
    #[test]
    fn the_setup_imports_the_rules_and_joins_every_player() {
        for (sample, mail) in super::played() {
            let templates: Vec<&str> = mail.iter().map(|m| m.template.as_str()).collect();
            assert_eq!(
                templates.first(),
                Some(&"ruleset_imported"),
                "{}",
                sample.name
            );
            let joined = templates.iter().filter(|t| **t == "player_joined").count();
            assert_eq!(joined, super::PLAYERS.len(), "{}", sample.name);
            let adjusted = templates
                .iter()
                .filter(|t| **t == "override_adjust")
                .count();
            assert!(adjusted >= super::PLAYERS.len(), "{}", sample.name);
        }
    }
}
