//! The samples `check` renders: every registered game's sample on the pure table
//! sends the announcements of its game, `nomicbot check` says so, and the table
//! the samples play on keeps a random Rule Tag board consistent.

use jiff::{SignedDuration, Timestamp};
use nomicbot::config::Config;
use nomicbot::engine::random::Stream;
use nomicbot::games::{self, ruletag};
use nomicbot::samples::{self, DEMO_RULES};

use crate::support::LocalBot;

#[test]
fn every_game_of_the_samples_sends_its_announcements() {
    let mail = samples::engine_mail();
    let templates: std::collections::BTreeSet<&str> =
        mail.iter().map(|m| m.template.as_str()).collect();
    for expected in [
        "ruleset_imported",
        "player_joined",
        "override_adjust",
        "override_on_behalf",
        "ruletag_started",
        "ruletag_override",
        "ruletag_notification_actions",
        "ruletag_notification_results",
        "vote_opened",
        "reminder",
        "sealed_commitments",
        "sealed_reveal",
        "vote_result",
        "ghost_started",
        "ghost_news",
    ] {
        assert!(templates.contains(expected), "{expected} in {templates:?}");
    }
}

/// `nomicbot check` renders mail of every registered game, and says how many.
#[test]
fn check_renders_mail_of_every_registered_game() {
    let bot = LocalBot::new();
    let out = bot.cli_ok(&["check"]);
    let (_, rendered) = out
        .split_once("its own mail: ")
        .unwrap_or_else(|| panic!("check names no game's mail: {out}"));
    let rendered = rendered.split(')').next().unwrap_or_default();
    let counts: Vec<(&str, usize)> = rendered
        .split(", ")
        .filter_map(|part| part.split_once(' '))
        .map(|(game, n)| (game, n.parse().unwrap_or(0)))
        .collect();
    let names = games::game_names();
    assert_eq!(
        counts.iter().map(|(game, _)| *game).collect::<Vec<_>>(),
        names,
        "{out}"
    );
    for (game, n_mail) in counts {
        assert!(n_mail > 0, "check rendered no mail of {game}: {out}");
    }
}

/// Many nweeks of Rule Tag with random actions from random players, rules
/// repealed and amended between them: no panic, and after every step the RTOs
/// are on rules that exist, a possessed RTO is where its holder is, and the
/// state is the fold of the events recorded. Played on the samples' table.
#[test]
fn random_rule_tag_keeps_the_board_consistent() {
    let config: Config = samples::sample_config().expect("the shipped config parses");
    let moderator = samples::address("Mod");
    let names = ["Mod", "Ann", "Ben", "Cy", "Di"];
    let mut turns = 0;
    let mut counted = 0;
    for seed in 0..12u64 {
        let mut rng = Stream::new(&format!("random rule tag {seed}"));
        let mut table = samples::new_table(&config);
        let initial = table.world.clone();
        let start = Timestamp::constant(1_767_607_200, 0);
        let rules = nomicbot::engine::ruleset::parse_ruleset_with(DEMO_RULES, 1).unwrap();
        let done = table.world.ruleset.import(rules, start).unwrap();
        let events: Vec<games::Event> =
            done.events.into_iter().map(games::Event::Ruleset).collect();
        table.record(start, &events);
        let mut at = start;
        for name in names {
            table.send(
                at,
                &samples::address(name),
                true,
                "nomic",
                &format!("join {name}"),
            );
        }
        table.send(at, &moderator, true, ruletag::TAG, "start");
        for _ in 0..150 {
            at += SignedDuration::from_mins(60 + rng.below(12 * 60) as i64);
            let who = names[1 + rng.below(4)];
            let rule = 1 + rng.below(5);
            let current = table
                .world
                .players
                .by_name(who)
                .and_then(|p| table.state::<ruletag::game::RuleTag>().standing(p.id).rtl);
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
                moderator.clone()
            } else {
                samples::address(who)
            };
            table.send(at, &sender, rng.below(2) == 0, ruletag::TAG, &line);
            if rng.below(20) == 0 {
                // The rules officer changes a rule now and then.
                let line = if rng.below(3) == 0 {
                    format!("repeal {rule}")
                } else {
                    format!("amend {rule}")
                };
                let _outcome = table.message(
                    at,
                    &moderator,
                    true,
                    "ruleset",
                    &[&line, "A new text about points.", "end"],
                );
            }
            counted += table.state::<ruletag::game::RuleTag>().actions.len();
            let game = table.state::<ruletag::game::RuleTag>();
            for rto in &game.objects {
                let context = || format!("seed {seed}: {rto:?} in {game:#?}");
                // An RTO goes where its holder goes, null included (issue 12).
                if let Some(holder) = rto.holder {
                    assert_eq!(game.standing(holder).rtl, rto.rtl, "{}", context());
                }
                // Right after a turn, every RTO is on null or on a rule that exists.
                if game.last_report.as_ref().and_then(|r| r.processed_at)
                    == table.events.last().map(|(t, _, _)| *t)
                {
                    assert!(
                        rto.rtl.is_none_or(|n| table.world.ruleset.exists(n)),
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
                matches!(e, games::Event::RuleTag(ruletag::Event::NweekEnded { .. }))
            })
            .count();
        // The state is the fold of its events, finished history retired: what
        // replay rebuilds.
        let records: Vec<(Timestamp, &str, &games::Event)> = table
            .events
            .iter()
            .map(|(t, cause, e)| (*t, cause.as_str(), e))
            .collect();
        let mut rebuilt = games::fold(initial, &records);
        rebuilt.retire();
        assert_eq!(rebuilt, table.world, "seed {seed}");
    }
    assert!(turns >= 12 * 3, "{turns} turns were processed");
    assert!(
        counted > 500,
        "only {counted} counted actions: the script is mostly refused"
    );
}
