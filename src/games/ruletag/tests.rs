//! Unit tests of the command syntax, the elements' precedence and the deadline ids;
//! whole turns are scenario tests in `tests/it/ruletag.rs`.

use super::*;

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
