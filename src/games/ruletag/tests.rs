//! Unit tests of the command syntax, the elements' precedence, the deadline ids and
//! the order of a turn's mail, on the pure table (`games::table::Table`); whole
//! turns clause by clause are scenario tests in `tests/it/ruletag.rs`.

use std::sync::Arc;

use super::*;
use crate::engine::accounts::{Currency, Exactness};
use crate::engine::calendar::Calendar;
use crate::engine::game::{NoWords, Officers};
use crate::engine::{Status, players, random, ruleset};
use crate::games::table::Table;
use crate::games::{self, GameParams};

fn act(line: &str) -> Action {
    match parse(line) {
        Ok(Command::Act(action)) => action,
        other => panic!("{line}: {other:?}"),
    }
}

fn mv(line: &str) -> (Option<Rtl>, Rtl, Option<String>) {
    match parse(line) {
        Ok(Command::Move { from, to, term }) => (from, to, term),
        other => panic!("{line}: {other:?}"),
    }
}

#[test]
fn the_forgiving_syntax_of_the_readme() {
    assert_eq!(
        mv("move from 325 to 42 via \"score\""),
        (Some(Some(325)), Some(42), Some("score".into()))
    );
    assert_eq!(
        mv("Move from rule #325 to Rule 42 using game object"),
        (Some(Some(325)), Some(42), Some("game object".into()))
    );
    assert_eq!(mv("move to null"), (None, None, None));
    assert_eq!(mv("move from null to 42"), (Some(None), Some(42), None));
    // A term may itself contain "to" inside quotes.
    assert_eq!(
        mv("move from 1 to 2 via \"go to gaol\""),
        (Some(Some(1)), Some(2), Some("go to gaol".into()))
    );
    assert_eq!(
        act("grab ball 5"),
        Action::Grab {
            object: BALL.into(),
            points: 5
        }
    );
    assert_eq!(
        act("grab the rule tag goal for 0 points"),
        Action::Grab {
            object: GOAL.into(),
            points: 0
        }
    );
    assert_eq!(
        act("grab ball -3"),
        Action::Grab {
            object: BALL.into(),
            points: -3
        }
    );
    assert_eq!(
        act("drop Ball"),
        Action::Drop {
            object: BALL.into()
        }
    );
    assert_eq!(
        act("element fire"),
        Action::Element {
            element: Element::Fire
        }
    );
    assert_eq!(
        act("element change to Water"),
        Action::Element {
            element: Element::Water
        }
    );
    for bad in ["move 42", "grab ball", "element lava", "drop", "dance"] {
        assert!(parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn the_moderators_commands_need_a_reason() {
    assert_eq!(
        parse("void Bob move because a typo").ok(),
        Some(Command::Void {
            name: "Bob".into(),
            kind: ActionKind::Move,
            reason: "a typo".into()
        })
    );
    assert_eq!(
        parse("relocate ball to 42 because it fell off").ok(),
        Some(Command::Relocate {
            object: BALL.into(),
            rtl: 42,
            reason: "it fell off".into()
        })
    );
    assert_eq!(
        parse("term \"score\" defined in 42 because rule 42 explains it").ok(),
        Some(Command::Term {
            term: "score".into(),
            number: 42,
            defined: true,
            reason: "rule 42 explains it".into()
        })
    );
    assert_eq!(
        parse("term score not defined in 42 because it only mentions it").ok(),
        Some(Command::Term {
            term: "score".into(),
            number: 42,
            defined: false,
            reason: "it only mentions it".into()
        })
    );
    for bad in [
        "void Bob move",
        "relocate ball to 42",
        "term x in 4 because y",
    ] {
        assert!(parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn elemental_precedence_is_a_cycle_of_four() {
    use Element::*;
    let beats: Vec<(Element, Element)> = [Earth, Air, Fire, Water]
        .iter()
        .flat_map(|a| [Earth, Air, Fire, Water].map(|b| (*a, b)))
        .filter(|(a, b)| a.beats(*b))
        .collect();
    assert_eq!(
        beats,
        [(Earth, Water), (Air, Earth), (Fire, Air), (Water, Fire)]
    );
}

#[test]
fn deadline_ids_name_their_nweek() {
    assert_eq!(nweek_of_deadline(&end_deadline_id(-3)), Some(-3));
    assert_eq!(nweek_of_deadline("vote:3"), None);
}

const MODERATOR: &str = "mod@x.org";

/// A table with Mod (the moderator, so the Rule Tag Moderator), Alice and Bob,
/// the currency of points and rules 101, 102 and 103, all from before nweek 0.
fn table() -> Table {
    let before: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
    let mut world = games::World::default();
    Arc::make_mut(&mut world.shared.accounts).currencies =
        vec![Currency::new("points", &["point"], Exactness::Integer)];
    for (id, name) in [(1, "Mod"), (2, "Alice"), (3, "Bob")] {
        let event = players::Event::Joined {
            id,
            name: name.to_owned(),
            address: Address::new(&format!("{}@x.org", name.to_lowercase())),
        };
        world.apply_event(&games::Event::Players(event), before);
    }
    for number in [101, 102, 103] {
        let event = ruleset::Event::Enacted {
            number,
            name: format!("Rule {number}"),
            text: "Players play.".to_owned(),
            mutable: true,
        };
        world.apply_event(&games::Event::Ruleset(event), before);
    }
    let officers = Officers {
        moderators: vec![Address::new(MODERATOR)],
        ..Officers::default()
    };
    let params = games::Params::new(
        players::Params::default(),
        officers,
        Calendar::default(),
        Arc::new(NoWords),
        GameParams::default(),
    );
    Table::new(world, params)
}

/// The turn mails notification 1 before anything drawn for it is announced, and
/// notification 2 last: here the turn draws a new rule for the ball, whose rule was
/// repealed. The officer ended the game's period, so the turn's period is
/// committed a second before the turn, in a step of its own, and revealed with the
/// turn; no next period is committed.
#[test]
fn a_turn_mails_notification_one_before_its_draws_and_notification_two_last() {
    let mut table = table();
    let nweek_0: Timestamp = "2026-01-05T10:00:00Z".parse().unwrap();
    let minutes = |m: i64| nweek_0 + jiff::SignedDuration::from_mins(m);
    for (minute, tag, line) in [
        (0, TAG, "start"),
        (
            1,
            TAG,
            "relocate ball to 103 because the test needs it there",
        ),
        (
            2,
            TAG,
            "relocate goal to 101 because the test needs it there",
        ),
        (3, "nomic", "random end"),
    ] {
        table.send(minutes(minute), MODERATOR, true, tag, line);
        assert_eq!(table.last[0].status, Status::Done, "{line}");
    }
    table.record(
        minutes(4),
        &[games::Event::Ruleset(ruleset::Event::Repealed {
            number: 103,
        })],
    );
    let (mark, events_mark) = (table.mail.len(), table.events.len());
    table.run_until("2026-01-15T00:01:00Z".parse().unwrap());
    let templates: Vec<&str> = table
        .mail_since(mark)
        .iter()
        .map(|m| m.template.as_str())
        .collect();
    assert_eq!(
        templates,
        [
            "random_period_started",
            "ruletag_notification_actions",
            "random_period_revealed",
            "ruletag_notification_results",
        ]
    );
    let step_of = |wanted: &dyn Fn(&games::Event) -> bool| {
        table.events[events_mark..]
            .iter()
            .find(|(_, _, event)| wanted(event))
            .map(|(at, cause, _)| (*at, cause.clone()))
            .expect("the event")
    };
    let committed =
        step_of(&|e| matches!(e, games::Event::Random(random::Event::PeriodStarted { .. })));
    let drawn = step_of(&|e| matches!(e, games::Event::Random(random::Event::Drew { .. })));
    assert!(committed.0 < drawn.0, "committed before the turn's step");
    assert_ne!(committed.1, drawn.1, "in a step of its own");
    let state = table.state::<game::RuleTag>();
    assert_eq!(state.nweek, 1);
    assert_eq!(state.object(BALL).unwrap().rtl, Some(102));
}

/// Issue 12, item 7: a turn that draws nothing publishes no random period, neither
/// a reveal nor a commitment; the period the start opened is revealed with the
/// first turn, which ends it.
#[test]
fn item7_a_turn_that_draws_nothing_publishes_no_random_period() {
    let mut table = table();
    let nweek_0: Timestamp = "2026-01-05T10:00:00Z".parse().unwrap();
    table.send(nweek_0, MODERATOR, true, TAG, "start");
    assert_eq!(table.last[0].status, Status::Done);
    let mark = table.mail.len();
    // Three turns, none of which draws.
    table.run_until("2026-02-04T00:01:00Z".parse().unwrap());
    assert_eq!(table.state::<game::RuleTag>().nweek, 3);
    let random: Vec<&str> = table
        .mail_since(mark)
        .iter()
        .map(|m| m.template.as_str())
        .filter(|t| t.starts_with("random_"))
        .collect();
    assert_eq!(
        random,
        ["random_period_revealed"],
        "only the start's period"
    );
    assert!(table.world.shared.random.current.is_none());
}

mod rules_change;
