//! Unit tests of `[ghost]` for issue 12: "resign" out of turn, the overrides of
//! the order, the turn and the clock, a removed player's late move, the
//! reminders' tag, and states and events written before these existed.

use super::tests::*;
use super::*;
use crate::engine::calendar;
use crate::games;

#[test]
fn item2_resign_out_of_turn_is_leaving_and_in_turn_a_resignation() {
    let mut world = started(
        &["Alice", "Bob", "Carol"],
        "start with Alice, Bob, Carol",
        t0(),
    );
    let order = world.order(1);
    let mut at = t0();
    world.plays(1, &mut at, &["s"]);
    world.run(&order[2], hours(2), "resign").unwrap();
    assert_eq!(world.last_sentence().args["resign_as_leave"], true);
    let inst = world.inst(1);
    assert_eq!(inst.removed_why(3), Some(Why::Left));
    assert_eq!(inst.ghost_word.as_deref(), Some("s"));
    assert_eq!(inst.turn(), Some(2));
    world.run(&order[1], hours(3), "resign").unwrap();
    assert_eq!(world.last_sentence().args["resign_as_leave"], false);
    let inst = world.inst(1);
    assert_eq!(inst.removed_why(2), Some(Why::Resigned));
    assert!(inst.is_over(), "player 1 is left");
}

#[test]
fn item4_parse_the_overrides() {
    assert_eq!(
        parse("start in order Carol, Alice and Bob because the old list"),
        Ok(Command::StartInOrder {
            duel: false,
            names: vec!["Carol".into(), "Alice".into(), "Bob".into()],
            reason: "the old list".into()
        })
    );
    assert_eq!(
        parse("start duel with Bob, Alice in this order because the old list"),
        Ok(Command::StartInOrder {
            duel: true,
            names: vec!["Bob".into(), "Alice".into()],
            reason: "the old list".into()
        })
    );
    // A reason without "in order" is no order: the names are drawn as ever.
    assert_eq!(
        parse("start with Bob, Alice because fun"),
        Ok(Command::Start {
            duel: false,
            names: vec!["Bob".into(), "Alice".into()],
        })
    );
    assert_eq!(
        parse("order Bob, Alice, Dave because a mistake"),
        Ok(Command::Order {
            names: vec!["Bob".into(), "Alice".into(), "Dave".into()],
            reason: "a mistake".into()
        })
    );
    assert_eq!(
        parse("turn Mona Lisa because the list lost her play"),
        Ok(Command::SetTurn {
            name: "Mona Lisa".into(),
            reason: "the list lost her play".into()
        })
    );
    assert_eq!(
        parse("deadline 2026-05-03 18:00 UTC because the outage"),
        Ok(Command::SetDeadline {
            when: When::At("2026-05-03T18:00:00Z".parse().unwrap()),
            reason: "the outage".into()
        })
    );
    assert_eq!(
        parse("deadline 2026-05-03T18:00:00+02:00 because the outage"),
        Ok(Command::SetDeadline {
            when: When::At("2026-05-03T16:00:00Z".parse().unwrap()),
            reason: "the outage".into()
        })
    );
    assert_eq!(
        parse("deadline in 2 days because the outage"),
        Ok(Command::SetDeadline {
            when: When::In(SignedDuration::from_hours(48)),
            reason: "the outage".into()
        })
    );
    assert_eq!(
        parse("set word upe by Alice because the old list"),
        Ok(Command::SetWord {
            word: Some("upe".into()),
            by: Some("alice".into()),
            reason: "the old list".into()
        })
    );
    for (line, code) in [
        ("order Bob, Alice", "usage"),
        ("order because x", "usage"),
        ("turn Bob", "usage"),
        ("deadline tomorrow because x", "usage"),
        ("deadline in 0 days because x", "usage"),
        ("deadline in 2 fortnights because x", "usage"),
        ("clear word by Bob because x", "usage"),
    ] {
        assert_eq!(
            parse(line).map_err(|e| e.0.code),
            Err(code.to_owned()),
            "{line:?}"
        );
    }
    // Alone on a line, these words are still plays.
    for word in ["turn", "order", "deadline"] {
        assert_eq!(
            parse(word),
            Ok(Command::Play {
                letters: word.into()
            })
        );
    }
}

#[test]
fn item4_an_order_renumbers_the_state_and_the_record_and_restores_the_removed() {
    let mut world = started(
        &["Alice", "Bob", "Carol", "Dave"],
        "start with Alice, Bob, Carol",
        t0(),
    );
    let order = world.order(1);
    let mut at = t0();
    world.plays(1, &mut at, &["s", "st"]);
    // Player 3 protests ST "not inside": play waits for player 2's answer.
    world
        .run(&order[2], hours(3), "protest not inside")
        .unwrap();
    world.run(&order[0], hours(4), "leave").unwrap();
    // Every player in the game must be listed.
    assert_eq!(
        world
            .run_as(
                "mod",
                true,
                hours(5),
                None,
                &format!("order {} because x", order[1])
            )
            .unwrap_err(),
        "ghost_order_incomplete"
    );
    assert_eq!(
        world.last_sentence().args["missing"],
        serde_json::json!([order[2]])
    );
    assert_eq!(
        world
            .run_as(
                "mod",
                true,
                hours(5),
                None,
                &format!("order {}, Rita, {} because x", order[2], order[1])
            )
            .unwrap_err(),
        "ghost_referee_plays"
    );
    // Player 1 back in, last; Dave seated; 3 and 2 first.
    world
        .run_as(
            "mod",
            true,
            hours(5),
            None,
            &format!(
                "order {}, {}, Dave, {} because the draw was wrong",
                order[2], order[1], order[0]
            ),
        )
        .unwrap();
    let inst = world.inst(1);
    let names: Vec<&str> = inst.seats.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, [&order[2], &order[1], "Dave", &order[0]]);
    assert_eq!(inst.in_game().count(), 4, "player 1 is back");
    let Stage::Protest { protest } = &inst.stage else {
        panic!("the protest waits: {inst:#?}")
    };
    assert_eq!((protest.by, protest.against), (1, Some(2)));
    assert_eq!(inst.word_by, Some(2));
    // The record follows the players: the first letter was the new player 4's.
    let Some(Record {
        event: Event::Played { seat, .. },
        ..
    }) = inst
        .history
        .iter()
        .find(|r| matches!(r.event, Event::Played { .. }))
    else {
        panic!("a play in the record")
    };
    assert_eq!(*seat, 4);
    // The protested player answers under their new number.
    world.run(&order[1], hours(6), "word stop").unwrap();
    let inst = world.inst(1);
    assert_eq!(inst.removed_why(1), Some(Why::InvalidProtest));
    assert_eq!(inst.turn(), Some(2), "the protester's successor");
}

#[test]
fn item4_turn_and_deadline_overrides_move_the_schedule() {
    let mut world = started(
        &["Alice", "Bob", "Carol"],
        "start with Alice, Bob, Carol",
        t0(),
    );
    let order = world.order(1);
    world
        .run_as(
            "Rita",
            false,
            hours(1),
            None,
            &format!("turn {} because x", order[2]),
        )
        .unwrap();
    assert_eq!(world.inst(1).turn(), Some(3));
    assert_eq!(
        world.deadlines(),
        [("ghost:1:turn:2".to_owned(), hours(73))]
    );
    world
        .run_as(
            "Rita",
            false,
            hours(2),
            None,
            "deadline in 10 hours because x",
        )
        .unwrap();
    assert_eq!(
        world.deadlines(),
        [("ghost:1:turn:2".to_owned(), hours(12))]
    );
    // The reminder is owed again for the new time, under the instance's tag.
    let mail = world.tick(hours(12));
    assert_eq!(templates(&mail), ["ghost_news"]);
    assert_eq!(world.inst(1).removed_why(3), Some(Why::TimedOut));
    assert_eq!(
        world
            .run_as(
                "Rita",
                false,
                hours(13),
                None,
                "deadline in 0 hours because x"
            )
            .unwrap_err(),
        "usage"
    );
    // Suspended: the stopped clock holds the time to the deadline set.
    world.run("Rita", hours(13), "resign referee").unwrap();
    world
        .run_as(
            "mod",
            false,
            hours(14),
            None,
            "deadline in 20 hours because x",
        )
        .unwrap();
    let Stage::Turn { clock, .. } = &world.inst(1).stage else {
        panic!("a turn")
    };
    assert_eq!(
        *clock,
        Clock::Stopped {
            remaining_seconds: 20 * 3600
        }
    );
    assert!(world.deadlines().is_empty());
}

#[test]
fn item8_reminders_go_out_under_the_instance_tag() {
    let mut world = started(&["Alice", "Bob"], "start with Alice, Bob", t0());
    let entry = world
        .shared()
        .schedule
        .entries
        .first()
        .expect("the turn's deadline")
        .deadline
        .clone();
    assert_eq!(entry.owner, "ghost 1");
    let reminders = world.tick(hours(48));
    assert_eq!(templates(&reminders), ["reminder"]);
    assert_eq!(reminders[0].tag, "ghost 1");
    // The deadline, though owned by "ghost 1", is still the game's to fire.
    let mail = world.tick(hours(72));
    assert_eq!(world.inst(1).removed_why(1), Some(Why::TimedOut));
    assert!(templates(&mail).contains(&"ghost_news"));
    // A deadline written by an older release, owned by "ghost", fires too.
    let mut world = started(&["Alice", "Bob"], "start with Alice, Bob", t0());
    let mut old = world.inst(1).pending_deadline().unwrap();
    old.owner = TAG.to_owned();
    let old_event = games::Event::Schedule(calendar::Event::Scheduled { deadline: old });
    world.table.world.apply_event(&old_event, t0());
    world.tick(hours(72));
    assert_eq!(world.inst(1).removed_why(1), Some(Why::TimedOut));
}

#[test]
fn item8_a_removed_players_move_says_when_and_why() {
    let mut world = started(
        &["Alice", "Bob", "Carol", "Dave"],
        "start with Alice, Bob, Carol",
        t0(),
    );
    let order = world.order(1);
    world.run("Dave", hours(1), "add me").unwrap();
    world
        .run(&order[1], hours(2), "protest addition Dave")
        .unwrap();
    assert_eq!(
        world.run("Dave", hours(3), "leave").unwrap_err(),
        "ghost_removed_player"
    );
    let args = &world.last_sentence().args;
    assert_eq!(args["why"], "addition_protested");
    assert_eq!(args["by"], order[1].as_str());
    assert_eq!(args["at"], "2026-05-01 14:00 UTC");
    assert_eq!(args["in_turn"], false);
    let text = render_sentence(world.last_sentence());
    assert!(
        text.contains(&format!(
            "You were removed at 2026-05-01 14:00 UTC: {} protested your addition.",
            order[1]
        )),
        "{text}"
    );
}

/// States and events written before issue 12 load: the new fields have defaults.
#[test]
fn item8_old_states_and_events_without_the_new_fields_still_load() {
    let removal: Removal =
        serde_json::from_str(r#"{"at": "2026-05-01T12:00:00Z", "why": {"kind": "left"}}"#).unwrap();
    assert!(!removal.in_turn);
    let event: Event = serde_json::from_str(
        r#"{"kind": "word_set", "instance": 1, "word": "st", "previous": null,
            "officer": "Rita", "reason": "a typo"}"#,
    )
    .unwrap();
    assert!(matches!(event, Event::WordSet { by: None, .. }));
    let event: Event = serde_json::from_str(
        r#"{"kind": "started", "instance": 1, "duel": false,
            "referee": {"address": "rita@x.org", "player": 1, "name": "Rita"},
            "seats": [], "random_label": "ghost 1"}"#,
    )
    .unwrap();
    assert!(matches!(event, Event::Started { ordered: None, .. }));
    // And a start by draw still writes what it always wrote.
    let json = serde_json::to_value(&event).unwrap();
    assert!(json.get("ordered").is_none(), "{json}");
}
