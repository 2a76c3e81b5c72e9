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
    /// Every event applied, with its time and a cause of its own (for `fold`).
    events: Vec<(Timestamp, String, games::Event)>,
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
        self.record(at, outcome.events);
        self.mail.extend(outcome.mail);
    }

    fn record(&mut self, at: Timestamp, events: Vec<games::Event>) {
        let cause = format!("sample:{}", self.events.len());
        for event in events {
            self.world.apply_event(&event, at);
            self.events.push((at, cause.clone(), event));
        }
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
            self.record(at, outcome.events);
            self.mail.extend(outcome.mail);
        }
    }

    /// The players' order in Ghost instance 1, by address.
    fn ghost_order(&self) -> Vec<String> {
        let ghosts = self.world.state::<crate::games::ghost::game::Ghost>();
        let Some(instance) = ghosts.instances.first() else {
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

/// The world before any event: empty, with the configured currencies.
fn initial_world(config: &Config) -> World {
    let mut world = World::default();
    std::sync::Arc::make_mut(&mut world.shared.accounts).currencies =
        config.accounts.currency.clone();
    world
}

/// The shipped configuration's parameters with a moderator (who keeps the rules
/// too, if `keeps_rules`), and no dictionary.
fn sample_params(mut config: Config, keeps_rules: bool) -> games::Params {
    config.bot.moderators = vec![MODERATOR.to_owned()];
    if keeps_rules {
        config.officers.rules = vec![MODERATOR.to_owned()];
    }
    crate::pipeline::game_params(&config, std::sync::Arc::new(crate::engine::game::NoWords))
}

/// Every announcement a short exchange of each game sends: the registry, the
/// ruleset, a ballot, a Rule Tag nweek, a game of Ghost to a winner.
pub fn engine_mail() -> Vec<Mail> {
    let Ok(config) = Config::parse(DEFAULT_CONFIG, ".".into()) else {
        return Vec::new();
    };
    let world = initial_world(&config);
    let params = sample_params(config, false);
    let mut table = Table {
        world,
        params,
        mail: Vec::new(),
        events: Vec::new(),
    };
    let start: Timestamp = Timestamp::constant(1_767_607_200, 0); // 2026-01-05 10:00 UTC
    let minutes = |m: i64| start + SignedDuration::from_mins(m);

    if let Ok(rules) = crate::engine::ruleset::parse_ruleset_with(DEMO_RULES, 1)
        && let Ok(done) = table.world.ruleset.import(rules, start)
    {
        table.record(
            start,
            done.events.into_iter().map(games::Event::Ruleset).collect(),
        );
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
    use super::*;

    /// Many nweeks of Rule Tag with random actions from random players, rules
    /// repealed and amended between them: no panic, and after every step the RTOs
    /// are on rules that exist, a possessed RTO is where its holder is, and the
    /// state is the fold of the events recorded.
    #[test]
    fn random_rule_tag_keeps_the_board_consistent() {
        let Ok(config) = Config::parse(DEFAULT_CONFIG, ".".into()) else {
            panic!("the shipped config parses");
        };
        let address = |name: &str| {
            if name == "Mod" {
                MODERATOR.to_owned()
            } else {
                format!("{}@nomic.example", name.to_lowercase())
            }
        };
        let names = ["Mod", "Ann", "Ben", "Cy", "Di"];
        let mut turns = 0;
        let mut counted = 0;
        for seed in 0..12u64 {
            let mut rng = crate::engine::random::Stream::new(&format!("random rule tag {seed}"));
            let initial = initial_world(&config);
            let mut table = Table {
                world: initial.clone(),
                params: sample_params(config.clone(), true),
                mail: Vec::new(),
                events: Vec::new(),
            };
            let start = Timestamp::constant(1_767_607_200, 0);
            let rules = crate::engine::ruleset::parse_ruleset_with(DEMO_RULES, 1).unwrap();
            let done = table.world.ruleset.import(rules, start).unwrap();
            table.record(
                start,
                done.events.into_iter().map(games::Event::Ruleset).collect(),
            );
            let mut at = start;
            for name in names {
                table.send(at, &address(name), true, "nomic", &format!("join {name}"));
            }
            table.send(at, MODERATOR, true, "rule tag", "start");
            for _ in 0..150 {
                at += SignedDuration::from_mins(60 + rng.below(12 * 60) as i64);
                let who = names[1 + rng.below(4)];
                let rule = 1 + rng.below(5);
                let current = table.world.players.by_name(who).and_then(|p| {
                    table
                        .world
                        .state::<crate::games::ruletag::game::RuleTag>()
                        .standing(p.id)
                        .rtl
                });
                let from = current.map_or("null".to_owned(), |n| n.to_string());
                let term = ["points", "turn", "report"][rng.below(3)];
                let line = match rng.below(10) {
                    0 => format!(
                        "element {}",
                        ["earth", "air", "fire", "water"][rng.below(4)]
                    ),
                    1 | 2 => format!("move from {from} to {rule} via \"{term}\""),
                    3 => "move to null".to_owned(),
                    4..=6 => format!("grab {} {}", ["ball", "goal"][rng.below(2)], rng.below(10)),
                    7 => format!("drop {}", ["ball", "goal"][rng.below(2)]),
                    8 => format!("adjust {who} {} points because dice", rng.below(40)),
                    _ => "status".to_owned(),
                };
                let sender = if line.starts_with("adjust") {
                    MODERATOR.to_owned()
                } else {
                    address(who)
                };
                table.send(at, &sender, rng.below(2) == 0, "rule tag", &line);
                if rng.below(20) == 0 {
                    // The rules officer changes a rule now and then.
                    let line = if rng.below(3) == 0 {
                        format!("repeal {rule}")
                    } else {
                        format!("amend {rule}")
                    };
                    let message = Message {
                        tag: "ruleset".into(),
                        subject_rest: String::new(),
                        body_lines: vec![line, "A new text about points.".into(), "end".into()],
                    };
                    let ctx = Ctx {
                        now: at,
                        sender: Address::new(MODERATOR),
                        sender_name: None,
                        public: true,
                        entropy: [1; 32],
                    };
                    let outcome = table.world.handle(&message, &ctx, &table.params);
                    table.record(at, outcome.events);
                }
                counted += table
                    .world
                    .state::<crate::games::ruletag::game::RuleTag>()
                    .actions
                    .len();
                let game = table.world.state::<crate::games::ruletag::game::RuleTag>();
                for rto in &game.objects {
                    let context = || format!("seed {seed}: {rto:?} in {game:#?}");
                    assert!(rto.rtl.is_some(), "an RTO on null: {}", context());
                    if let Some(holder) = rto.holder {
                        assert_eq!(game.standing(holder).rtl, rto.rtl, "{}", context());
                    }
                    // Right after a turn, every RTO is on a rule that exists.
                    if game.last_report.as_ref().and_then(|r| r.processed_at)
                        == table.events.last().map(|(t, _, _)| *t)
                    {
                        assert!(
                            rto.rtl.is_some_and(|n| table.world.ruleset.exists(n)),
                            "{}",
                            context()
                        );
                    }
                }
            }
            turns += table
                .events
                .iter()
                .filter(|(_, _, e)| {
                    matches!(
                        e,
                        games::Event::RuleTag(crate::games::ruletag::Event::NweekEnded { .. })
                    )
                })
                .count();
            // The state is the fold of its events: what replay rebuilds.
            let records: Vec<(Timestamp, &str, &games::Event)> = table
                .events
                .iter()
                .map(|(t, cause, e)| (*t, cause.as_str(), e))
                .collect();
            assert_eq!(games::fold(initial, &records), table.world, "seed {seed}");
        }
        assert!(turns >= 12 * 3, "{turns} turns were processed");
        assert!(
            counted > 500,
            "only {counted} counted actions: the script is mostly refused"
        );
    }

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
