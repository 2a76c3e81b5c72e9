//! Real announcements for `check`: a short game of each kind played on the pure
//! engine alone (no store, no transport, no clock), whose mail `check` renders
//! with the operator's templates. A template edited into a broken one is found at
//! start-up, with the values the games really send, not on the day it is needed.

use jiff::{SignedDuration, Timestamp};
use sha2::{Digest, Sha256};

use crate::config::{Config, DEFAULT_CONFIG};
use crate::engine::{Address, Ctx, Mail};
use crate::games::{self, Message, World};

/// A small ruleset of four rules that define and use terms, so that Rule Tag
/// moves can be linked through the glossary (also the `demo --game ruletag` rules).
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

const MODERATOR: &str = "mod@nomic.example";

/// The engine, its parameters, and the mail it has sent so far.
struct Table {
    world: World,
    params: games::Params,
    mail: Vec<Mail>,
}

impl Table {
    fn entropy(at: Timestamp, what: &str) -> [u8; 32] {
        let mut hasher = Sha256::new();
        hasher.update(at.to_string().as_bytes());
        hasher.update(what.as_bytes());
        hasher.finalize().into()
    }

    /// First fires every deadline due by `at`, then applies one line from `from`.
    fn send(&mut self, at: Timestamp, from: &str, public: bool, tag: &str, line: &str) {
        self.run_until(at);
        let ctx = Ctx {
            now: at,
            sender: Address::new(from),
            sender_name: None,
            public,
            entropy: Table::entropy(at, line),
        };
        let message = Message {
            tag: tag.to_owned(),
            subject_rest: String::new(),
            body_lines: vec![line.to_owned()],
        };
        let outcome = self.world.handle(&message, &ctx, &self.params);
        for event in &outcome.events {
            self.world.apply_event(event, at);
        }
        self.mail.extend(outcome.mail);
    }

    fn run_until(&mut self, until: Timestamp) {
        while let Some(at) = self.world.next_deadline(&self.params) {
            if at > until {
                break;
            }
            let outcome = self
                .world
                .tick(at, &self.params, at, Table::entropy(at, "tick"));
            if outcome.events.is_empty() {
                break;
            }
            for event in &outcome.events {
                self.world.apply_event(event, at);
            }
            self.mail.extend(outcome.mail);
        }
    }

    /// The players' order in Ghost instance 1, by address.
    fn ghost_order(&self) -> Vec<String> {
        let Some(instance) = self.world.ghosts.instances.first() else {
            return Vec::new();
        };
        instance
            .seats
            .iter()
            .filter_map(|seat| self.world.players.by_id(seat.player))
            .map(|player| player.address.as_str().to_owned())
            .collect()
    }
}

/// Every announcement a short exchange of each game sends: the registry, the
/// ruleset, a ballot, a Rule Tag nweek, a game of Ghost to a winner.
pub fn engine_mail() -> Vec<Mail> {
    let Ok(config) = Config::parse(DEFAULT_CONFIG, ".".into()) else {
        return Vec::new();
    };
    let mut world = World::default();
    world.accounts.currencies = config.accounts.currency.clone();
    let params = games::Params {
        moderators: vec![Address::new(MODERATOR)],
        calendar: config.calendar.clone(),
        vote: games::vote::Params {
            days: config.vote.days,
        },
        ruletag: config.ruletag.clone(),
        ghost: config.ghost.clone(),
        ..games::Params::default()
    };
    let mut table = Table {
        world,
        params,
        mail: Vec::new(),
    };
    let start: Timestamp = Timestamp::constant(1_767_607_200, 0); // 2026-01-05 10:00 UTC
    let minutes = |m: i64| start + SignedDuration::from_mins(m);

    if let Ok(rules) = crate::engine::ruleset::parse_ruleset_with(DEMO_RULES, 1)
        && let Ok(done) = table.world.ruleset.import(rules, start)
    {
        for event in done.events {
            table
                .world
                .apply_event(&games::Event::Ruleset(event), start);
        }
        table.mail.extend(done.mail);
    }
    for (i, name) in ["Mod", "Alice", "Bob", "Carol"].iter().enumerate() {
        let from = if *name == "Mod" {
            MODERATOR.to_owned()
        } else {
            format!("{}@nomic.example", name.to_lowercase())
        };
        table.send(
            minutes(i as i64),
            &from,
            true,
            "nomic",
            &format!("join {name}"),
        );
    }
    table.send(
        minutes(5),
        MODERATOR,
        false,
        "nomic",
        "adjust Alice 20 points because the samples start here",
    );

    // Rule Tag: a start, an override, two actions, then the end of the nweek.
    table.send(minutes(10), MODERATOR, true, "rule tag", "start");
    table.send(
        minutes(11),
        MODERATOR,
        false,
        "rule tag",
        "relocate ball to 1 because the samples need it there",
    );
    table.send(
        minutes(12),
        "alice@nomic.example",
        false,
        "rule tag",
        "element fire",
    );
    table.send(
        minutes(13),
        "bob@nomic.example",
        true,
        "rule tag",
        "move from null to 1",
    );
    table.send(
        minutes(14),
        "alice@nomic.example",
        false,
        "rule tag",
        "move from null to 1",
    );
    table.send(
        minutes(15),
        "alice@nomic.example",
        false,
        "rule tag",
        "grab ball 5",
    );

    // A ballot, resolved at its deadline.
    table.send(minutes(20), MODERATOR, true, "vote", "open Shall we play?");
    table.send(minutes(21), "alice@nomic.example", false, "vote", "yes");

    // Ghost, to a winner.
    table.send(
        minutes(30),
        MODERATOR,
        true,
        "ghost",
        "start with Alice, Bob, Carol",
    );
    let order = table.ghost_order();
    if let [first, second, third] = order.as_slice() {
        table.send(minutes(31), first, true, "ghost 1", "s");
        table.send(minutes(32), second, true, "ghost 1", "st");
        table.send(minutes(33), third, true, "ghost 1", "protest not inside");
        table.send(minutes(34), second, true, "ghost 1", "word stop");
        table.send(minutes(35), first, true, "ghost 1", "resign");
    }
    // Past the end of nweek 0 and every ballot deadline.
    table.run_until(start + SignedDuration::from_hours(24 * 12));
    table.mail
}

#[cfg(test)]
mod tests {
    #[test]
    fn every_game_of_the_samples_sends_its_announcements() {
        let mail = super::engine_mail();
        let templates: std::collections::BTreeSet<&str> =
            mail.iter().map(|m| m.template.as_str()).collect();
        for expected in [
            "ruleset_imported",
            "player_joined",
            "ruletag_started",
            "ruletag_override",
            "ruletag_notification_actions",
            "ruletag_notification_results",
            "vote_opened",
            "vote_result",
            "ghost_started",
            "ghost_news",
        ] {
            assert!(templates.contains(expected), "{expected} in {templates:?}");
        }
    }
}
