use super::*;
use crate::games::space::graph::Owner;

const TEXT: &str = include_str!("../../../../rules/space-nomic-ruleset.txt");

fn at(minutes: i64) -> Timestamp {
    Timestamp::from_second(1_100_000_000 + minutes * 60).unwrap()
}

fn money(text: &str) -> Money {
    Money::parse(text).unwrap()
}

/// A game with players named after their addresses' local parts, all joined.
fn game(names: &[&str]) -> State {
    let mut state = State::default();
    for name in names {
        run(
            &mut state,
            name,
            Action::Join {
                name: (*name).into(),
            },
            0,
        )
        .unwrap();
    }
    state
}

fn run(state: &mut State, who: &str, action: Action, minutes: i64) -> Result<Vec<Event>, Refusal> {
    let events = act(
        state,
        &Numbers::default(),
        TEXT,
        &format!("{}@example.org", who.to_lowercase()),
        action,
        at(minutes),
    )?;
    for event in &events {
        state.apply_event(event, at(minutes));
    }
    Ok(events)
}

fn code(result: Result<Vec<Event>, Refusal>) -> String {
    result.unwrap_err().0.code.clone()
}

fn balance(state: &State, name: &str) -> Money {
    state.player_named(name).unwrap().money.clone()
}

fn propose(state: &mut State, who: &str, name: &str, changes: Vec<Change>) {
    run(
        state,
        who,
        Action::Propose {
            name: name.into(),
            changes,
        },
        1,
    )
    .unwrap();
}

fn vote(state: &mut State, who: &str, proposal: &str, vote: &str) -> Vec<Event> {
    run(
        state,
        who,
        Action::Vote {
            proposal: proposal.into(),
            vote: vote.into(),
        },
        2,
    )
    .unwrap()
}

fn decided(events: &[Event]) -> Option<bool> {
    events.iter().find_map(|e| match e {
        Event::Decided { passed, .. } => Some(*passed),
        _ => None,
    })
}

fn repeal(rule: &str) -> Vec<Change> {
    vec![Change::Repeal { rule: rule.into() }]
}

#[test]
fn a_joining_player_has_97_money_units_is_nowhere_and_active() {
    let state = game(&["Alice"]);
    let alice = state.player_named("Alice").unwrap();
    assert_eq!(alice.money, Money::whole(97));
    assert_eq!(alice.location, None);
    assert!(alice.active && alice.playing);
    assert_eq!(alice.point, 1);
    assert_eq!(state.rules.len(), 54);
    assert_eq!(state.rules[0].number, 0);
    assert_eq!(state.least_unused_number(), 54);
}

#[test]
fn a_withdrawn_player_stays_in_the_state_as_a_former_player() {
    let mut state = game(&["Alice", "Bob"]);
    run(&mut state, "Bob", Action::Withdraw, 3).unwrap();
    assert!(state.player_named("Bob").is_none());
    assert!(state.players.iter().any(|p| p.name == "Bob" && !p.playing));
    assert_eq!(
        code(run(&mut state, "Bob", Action::Nod, 4)),
        "space_not_a_player"
    );
}

#[test]
fn a_proposal_passes_at_the_vote_after_which_the_sum_could_not_be_at_most_zero() {
    let mut state = game(&["Alice", "Bob", "Carol"]);
    propose(&mut state, "Alice", "Bridges", repeal("Space Nomic 20"));
    // 1 - 2 = -1: Bob and Carol could still bring it to zero.
    assert_eq!(decided(&vote(&mut state, "Alice", "Bridges", "1")), None);
    // 1 + 2/3 - 1 = 2/3 > 0: decided by Bob's vote.
    let events = vote(&mut state, "Bob", "Bridges", "2/3");
    assert_eq!(decided(&events), Some(true));
    assert!(state.proposal("Bridges").is_none());
    assert!(state.rule("Space Nomic 20").is_none());
    // 97 + 18 + (6 + 1/403) for Alice; 97 + 6 + 1/403 for Bob.
    assert_eq!(balance(&state, "Alice"), money("121 1/403"));
    assert_eq!(balance(&state, "Bob"), money("103 1/403"));
    assert_eq!(balance(&state, "Carol"), Money::whole(97));
}

#[test]
fn a_proposal_fails_at_the_vote_after_which_the_sum_could_not_be_above_zero() {
    let mut state = game(&["Alice", "Bob", "Carol"]);
    propose(&mut state, "Alice", "Walls", repeal("Space Nomic 20"));
    assert_eq!(decided(&vote(&mut state, "Bob", "Walls", "-1")), None);
    // -1 - 1 + 1 = -1 <= 0.
    let events = vote(&mut state, "Carol", "Walls", "-1");
    assert_eq!(decided(&events), Some(false));
    assert!(state.rule("Space Nomic 20").is_some());
    // Alice pays 6 + 1/403 to nowhere; each voter gains it.
    assert_eq!(balance(&state, "Alice"), money("90 402/403"));
    assert_eq!(balance(&state, "Bob"), money("103 1/403"));
}

#[test]
fn pausing_decides_a_proposal_when_fewer_could_vote() {
    let mut state = game(&["Alice", "Bob"]);
    propose(&mut state, "Alice", "Quiet", repeal("Space Nomic 20"));
    assert_eq!(decided(&vote(&mut state, "Alice", "Quiet", "1/2")), None);
    let events = run(&mut state, "Bob", Action::Pause, 5).unwrap();
    assert_eq!(decided(&events), Some(true));
    assert!(!state.player_named("Bob").unwrap().active);
}

#[test]
fn a_vote_outside_minus_one_to_one_is_refused_and_a_second_vote_too() {
    let mut state = game(&["Alice", "Bob", "Carol"]);
    propose(&mut state, "Alice", "Bridges", repeal("Space Nomic 20"));
    let too_big = Action::Vote {
        proposal: "Bridges".into(),
        vote: "4/3".into(),
    };
    assert_eq!(code(run(&mut state, "Bob", too_big, 2)), "space_bad_vote");
    vote(&mut state, "Bob", "Bridges", "-0.25");
    let again = Action::Vote {
        proposal: "Bridges".into(),
        vote: "1".into(),
    };
    assert_eq!(
        code(run(&mut state, "Bob", again, 3)),
        "space_already_voted"
    );
    assert_eq!(state.proposal("Bridges").unwrap().sum(), money("-1/4"));
}

#[test]
fn a_created_rule_takes_the_least_unused_number_and_its_colour() {
    let mut state = game(&["Alice"]);
    let change = Change::Create {
        name: Some("Bridges".into()),
        colour: "blue".into(),
        reason: "water".into(),
        text: "Bridges exist.".into(),
    };
    propose(&mut state, "Alice", "B", vec![change]);
    vote(&mut state, "Alice", "B", "1");
    let rule = state.rule("Bridges").unwrap();
    assert_eq!((rule.number, rule.version), (54, 0));
    assert_eq!(rule.colour.as_deref(), Some("blue"));
    // A repealed number is never used again.
    propose(&mut state, "Alice", "C", repeal("Bridges"));
    vote(&mut state, "Alice", "C", "1");
    assert_eq!(state.least_unused_number(), 55);
}

#[test]
fn a_modified_rule_keeps_number_and_name_with_the_next_version() {
    let mut state = game(&["Alice"]);
    let change = Change::Modify {
        rule: "3".into(),
        text: "New words.".into(),
    };
    propose(&mut state, "Alice", "M", vec![change]);
    vote(&mut state, "Alice", "M", "1");
    let rule = state.rule("3").unwrap();
    assert_eq!((rule.name.as_str(), rule.version), ("Space Nomic 4", 1));
    assert_eq!(rule.text, "New words.");
}

#[test]
fn a_created_rule_without_colour_or_reason_is_refused() {
    let mut state = game(&["Alice"]);
    let change = Change::Create {
        name: None,
        colour: "blue".into(),
        reason: " ".into(),
        text: "X.".into(),
    };
    let action = Action::Propose {
        name: "X".into(),
        changes: vec![change],
    };
    assert_eq!(
        code(run(&mut state, "Alice", action, 1)),
        "space_create_needs_colour"
    );
    assert!(state.proposals.is_empty());
}

#[test]
fn nullrule_is_never_repealed() {
    let mut state = game(&["Alice"]);
    let change = Change::Create {
        name: Some(NULL_RULE.into()),
        colour: "grey".into(),
        reason: "needed".into(),
        text: "Nothing.".into(),
    };
    propose(&mut state, "Alice", "N", vec![change]);
    vote(&mut state, "Alice", "N", "1");
    propose(&mut state, "Alice", "R", repeal(NULL_RULE));
    let events = vote(&mut state, "Alice", "R", "1");
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::ChangeSkipped { .. }))
    );
    assert!(state.rule(NULL_RULE).is_some());
}

#[test]
fn only_the_creator_destroys_a_proposal_and_names_are_never_reused() {
    let mut state = game(&["Alice", "Bob"]);
    propose(&mut state, "Alice", "Bridges", repeal("1"));
    let destroy = || Action::Destroy {
        proposal: "bridges".into(),
    };
    assert_eq!(
        code(run(&mut state, "Bob", destroy(), 2)),
        "space_not_creator"
    );
    run(&mut state, "Alice", destroy(), 2).unwrap();
    assert!(state.proposals.is_empty());
    let again = Action::Propose {
        name: "Bridges".into(),
        changes: repeal("1"),
    };
    assert_eq!(
        code(run(&mut state, "Bob", again, 3)),
        "space_proposal_name_used"
    );
}

#[test]
fn a_proposal_unrefreshed_for_16_days_is_destroyed() {
    let mut state = game(&["Alice", "Bob"]);
    propose(&mut state, "Alice", "Old", repeal("1"));
    let numbers = Numbers::default();
    let sixteen_days = 16 * 24 * 60;
    assert_eq!(state.next_expiry(), Some(at(1 + sixteen_days)));
    run(
        &mut state,
        "Bob",
        Action::Refresh {
            proposal: "Old".into(),
        },
        100,
    )
    .unwrap();
    assert!(expire(&state, &numbers, at(1 + sixteen_days)).is_empty());
    assert_eq!(expire(&state, &numbers, at(100 + sixteen_days)).len(), 1);
}

#[test]
fn transfers_are_positive_and_not_above_the_balance() {
    let mut state = game(&["Alice", "Bob"]);
    let give = |amount: &str, to: Option<&str>| Action::Give {
        amount: amount.into(),
        to: to.map(str::to_owned),
    };
    assert_eq!(
        code(run(&mut state, "Alice", give("0", None), 1)),
        "space_bad_amount"
    );
    assert_eq!(
        code(run(&mut state, "Alice", give("97 1/6", None), 1)),
        "space_not_enough"
    );
    run(&mut state, "Alice", give("1/6", Some("Bob")), 1).unwrap();
    run(&mut state, "Alice", give("1/2", None), 1).unwrap();
    assert_eq!(balance(&state, "Alice"), money("289/3"));
    assert_eq!(balance(&state, "Bob"), money("583/6"));
}

#[test]
fn after_the_end_every_action_is_refused() {
    let state = game(&["Alice"]);
    let numbers = Numbers {
        end: Some(at(10)),
        ..Numbers::default()
    };
    let result = act(
        &state,
        &numbers,
        TEXT,
        "alice@example.org",
        Action::Nod,
        at(10),
    );
    assert_eq!(result.unwrap_err().0.code, "space_ended");
    assert!(
        act(
            &state,
            &numbers,
            TEXT,
            "alice@example.org",
            Action::Nod,
            at(9)
        )
        .is_ok()
    );
}

#[test]
fn money_reads_the_texts_own_way_of_writing_it() {
    assert_eq!(money("6 + 1/403"), money("2419/403"));
    assert_eq!(money("-0.25").to_string(), "-1/4");
}

/// Runs the evaluation of location changes due at its time.
fn evaluate(state: &mut State) -> Vec<Event> {
    let due = state.next_evaluation.unwrap();
    let events = evaluate_moves(state, &Numbers::default(), due);
    for event in &events {
        state.apply_event(event, due);
    }
    events
}

fn moves(state: &mut State, who: &str, to: &str) {
    run(state, who, Action::Move { to: to.into() }, 3).unwrap();
}

#[test]
fn location_changes_are_executed_at_12_00_gmt_all_or_none() {
    let mut state = game(&["Alice", "Bob"]);
    // "12.00 GMT the day the rule was created, plus the given interval".
    assert_eq!(
        state.next_evaluation.unwrap().to_string(),
        "2004-11-10T12:00:00Z"
    );
    assert_eq!(
        state.next_space_evaluation.unwrap().to_string(),
        "2004-11-15T12:00:00Z"
    );
    moves(&mut state, "Alice", "(0, 0)");
    moves(&mut state, "Bob", "(1,1)");
    evaluate(&mut state);
    assert_eq!(state.player_named("Alice").unwrap().location, Some((0, 0)));
    assert_eq!(state.player_named("Bob").unwrap().location, Some((1, 1)));
    assert_eq!(
        state.next_evaluation.unwrap().to_string(),
        "2004-11-11T12:00:00Z"
    );
    // Alice's change is to an adjacent vertex, Bob's is not: neither happens.
    moves(&mut state, "Alice", "(1, 0)");
    moves(&mut state, "Bob", "(0, 0)");
    let events = evaluate(&mut state);
    assert!(events.iter().all(|e| !matches!(e, Event::Moved { .. })));
    assert_eq!(state.player_named("Alice").unwrap().location, Some((0, 0)));
    assert!(state.location_moves.is_empty());
}

#[test]
fn the_latest_stored_move_counts_and_one_may_withdraw_it() {
    let mut state = game(&["Alice"]);
    moves(&mut state, "Alice", "(0, 0)");
    moves(&mut state, "Alice", "(1, 1)");
    assert_eq!(state.location_moves, vec![(0, (1, 1))]);
    run(&mut state, "Alice", Action::CancelMove, 4).unwrap();
    evaluate(&mut state);
    assert_eq!(state.player_named("Alice").unwrap().location, None);
}

#[test]
fn a_player_at_a_vertex_owned_by_god_buys_it_for_32_and_may_give_it_away() {
    let mut state = game(&["Alice", "Bob"]);
    assert_eq!(
        code(run(&mut state, "Alice", Action::Buy, 3)),
        "space_buy_nowhere"
    );
    moves(&mut state, "Alice", "(0, 0)");
    moves(&mut state, "Bob", "(0, 0)");
    evaluate(&mut state);
    run(&mut state, "Alice", Action::Buy, 60).unwrap();
    assert_eq!(balance(&state, "Alice"), Money::whole(65));
    assert_eq!(
        code(run(&mut state, "Bob", Action::Buy, 61)),
        "space_vertex_owned"
    );
    let give = Action::GiveVertex {
        vertex: "(0,0)".into(),
        to: None,
    };
    run(&mut state, "Alice", give, 62).unwrap();
    assert_eq!(state.space.vertex((0, 0)).unwrap().owner, Owner::God);
    run(&mut state, "Bob", Action::Buy, 63).unwrap();
    assert_eq!(state.space.vertex((0, 0)).unwrap().owner, Owner::Entity(1));
}

#[test]
fn income_is_the_exact_average_of_2_over_d_squared_plus_2() {
    let mut state = game(&["Alice", "Bob", "Carol"]);
    // No vertex is owned by a player: no income.
    assert!(state.income().is_empty());
    moves(&mut state, "Alice", "(0, 0)");
    moves(&mut state, "Bob", "(1, 1)");
    evaluate(&mut state);
    run(&mut state, "Alice", Action::Buy, 60).unwrap();
    run(&mut state, "Bob", Action::Buy, 60).unwrap();
    // Alice at (0, 0): d = 0 to her vertex, 2 to Bob's (1, 1) around the
    // square: (2/2 + 2/6) / 2 = 2/3. Carol is nowhere: 0.
    let income = state.income();
    assert_eq!(
        income,
        vec![(0, money("2/3")), (1, money("2/3")), (2, Money::whole(0))]
    );
    let due = state.next_income.unwrap();
    assert_eq!(due.to_string(), "2004-11-09T21:00:00Z");
    let events = pay_income(&state, &Numbers::default(), due);
    for event in &events {
        state.apply_event(event, due);
    }
    assert_eq!(balance(&state, "Alice"), money("65 2/3"));
    assert_eq!(balance(&state, "Carol"), Money::whole(97));
    assert_eq!(
        state.next_income.unwrap().to_string(),
        "2004-11-10T21:00:00Z"
    );
}

/// Runs the activity rules due by `minutes`.
fn activity(state: &mut State, minutes: i64) -> Vec<Event> {
    let events = activity_rules(state, &Numbers::default(), at(minutes));
    for event in &events {
        state.apply_event(event, at(minutes));
    }
    events
}

const DAY: i64 = 24 * 60;

#[test]
fn an_accused_player_who_does_not_act_for_7_days_becomes_inactive_and_is_removed_after_25() {
    let mut state = game(&["Alice", "Bob", "Carol"]);
    let accuse = |who: &str| Action::Accuse { player: who.into() };
    run(&mut state, "Alice", accuse("Bob"), 10).unwrap();
    run(&mut state, "Alice", accuse("Carol"), 10).unwrap();
    // Carol acts within the 7 days; Bob does not.
    run(&mut state, "Carol", Action::Nod, 10 + 3 * DAY).unwrap();
    activity(&mut state, 10 + 7 * DAY);
    assert!(!state.player_named("Bob").unwrap().active);
    assert!(state.player_named("Carol").unwrap().active);
    assert!(state.accusations.is_empty());
    // 25 days inactive, not by pausing: removed.
    activity(&mut state, 10 + 32 * DAY - 1);
    assert!(state.player_named("Bob").is_some());
    let events = activity(&mut state, 10 + 32 * DAY);
    assert!(events.contains(&Event::Removed { id: 1 }), "{events:?}");
    assert!(state.player_named("Bob").is_none());
}

#[test]
fn a_player_who_paused_is_never_removed_and_an_inactive_one_cannot_be_accused() {
    let mut state = game(&["Alice", "Bob"]);
    run(
        &mut state,
        "Bob",
        Action::Accuse {
            player: "Bob".into(),
        },
        10,
    )
    .unwrap();
    assert!(!state.player_named("Bob").unwrap().active);
    let again = Action::Accuse {
        player: "Bob".into(),
    };
    assert_eq!(
        code(run(&mut state, "Alice", again, 11)),
        "space_accuse_inactive"
    );
    assert!(activity(&mut state, 10 + 100 * DAY).is_empty());
    assert!(state.player_named("Bob").is_some());
}

#[test]
fn a_player_adds_an_entity_and_the_game_ends_with_the_consent_of_all_players() {
    let mut state = game(&["Alice", "Bob"]);
    let add = Action::Add {
        address: "carol@example.org".into(),
        name: "Carol".into(),
    };
    run(&mut state, "Alice", add, 5).unwrap();
    assert_eq!(balance(&state, "Carol"), Money::whole(97));
    run(&mut state, "Alice", Action::EndGame, 6).unwrap();
    run(&mut state, "Bob", Action::EndGame, 7).unwrap();
    assert_eq!(state.end, None);
    let events = run(&mut state, "Carol", Action::EndGame, 8).unwrap();
    assert!(events.contains(&Event::EndedByConsent));
    assert_eq!(state.end, Some(at(8)));
    assert_eq!(
        code(run(&mut state, "Alice", Action::Nod, 9)),
        "space_ended"
    );
}

#[test]
fn a_former_players_stored_move_lapses_and_blocks_no_one() {
    let mut state = game(&["Alice", "Bob"]);
    moves(&mut state, "Alice", "(0, 0)");
    moves(&mut state, "Bob", "(1, 1)");
    run(&mut state, "Bob", Action::Withdraw, 4).unwrap();
    evaluate(&mut state);
    assert_eq!(state.player_named("Alice").unwrap().location, Some((0, 0)));
}

#[test]
fn the_configured_end_once_reached_is_kept_in_the_state_and_no_deadline_follows() {
    let mut state = game(&["Alice"]);
    let numbers = Numbers {
        end: Some(at(60)),
        ..Numbers::default()
    };
    assert!(reach_end(&state, &numbers, at(59)).is_empty());
    for event in reach_end(&state, &numbers, at(60)) {
        state.apply_event(&event, at(60));
    }
    assert_eq!(state.end, Some(at(60)));
    assert_eq!(state.next_deadline(), None);
}

#[test]
fn a_player_equidistant_from_all_others_of_eir_mirror_state_may_change_it() {
    let mut state = game(&["Alice", "Bob", "Carol"]);
    moves(&mut state, "Alice", "(0, 0)");
    moves(&mut state, "Bob", "(1, 0)");
    moves(&mut state, "Carol", "(0, 1)");
    evaluate(&mut state);
    // Bob is 1 from Alice and 2 from Carol: alone, his change is refused.
    run(&mut state, "Bob", Action::Mirror, 3).unwrap();
    let events = evaluate(&mut state);
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Event::MirrorChanged { .. }))
    );
    assert!(!state.player_named("Bob").unwrap().mirror);
    // With Alice's (1 from each), there is an order in which both are
    // allowed: Alice first, after which Carol alone shares Bob's.
    run(&mut state, "Alice", Action::Mirror, 3).unwrap();
    run(&mut state, "Bob", Action::Mirror, 3).unwrap();
    evaluate(&mut state);
    assert!(state.player_named("Alice").unwrap().mirror);
    assert!(state.player_named("Bob").unwrap().mirror);
}
