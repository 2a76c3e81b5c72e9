//! Unit tests of `[ghost]`, rule 103 §4(3) and §4(4): protests, answers,
//! resignations, and additions protested away.

use super::tests::*;
use super::*;
use crate::engine::Audience;

/// Six plays by three players make UPERSO (or SPRONC), last by player 3; then
/// player 1 protests that it is not inside any word.
pub(super) fn protested_not_inside(word_letters: [&str; 6]) -> (GhostTable, Vec<String>) {
    let mut world = started(
        &["Alice", "Bob", "Carol"],
        "start with Alice, Bob, Carol",
        t0(),
    );
    let order = world.order(1);
    let mut at = t0();
    world.plays(1, &mut at, &word_letters);
    assert_eq!(world.turn_name(1), Some(order[0].clone()));
    let mail = world
        .run(
            &order[0],
            hours(7),
            "protest: it cannot be found within any word",
        )
        .unwrap();
    assert_eq!(templates(&mail), ["ghost_news"]);
    (world, order)
}

#[test]
fn rule_4_3_uperso_is_inside_supersonic_so_the_protest_is_invalid() {
    let (mut world, order) = protested_not_inside(["u", "up", "upe", "uper", "upers", "uperso"]);
    let inst = world.inst(1);
    let Stage::Protest { protest } = &inst.stage else {
        panic!("no protest: {:?}", inst.stage)
    };
    assert_eq!(protest.against, Some(3));
    assert_eq!(protest.by, 1);
    // Play is suspended; the answer clock runs three days, with a reminder.
    assert_eq!(
        world.deadlines(),
        [("ghost:1:protest:1".to_owned(), hours(7 + 72))]
    );
    let text = &world.texts.last().unwrap().1;
    assert!(
        text.contains(&format!(
            "protest, {} to answer by 2026-05-04 19:00 UTC",
            order[2]
        )),
        "{text}"
    );
    assert_eq!(
        world.run(&order[1], hours(8), "uperson").unwrap_err(),
        "ghost_protest_pending"
    );
    assert_eq!(
        world
            .run(&order[1], hours(8), "word supersonic")
            .unwrap_err(),
        "ghost_not_protested"
    );
    assert_eq!(
        world.run(&order[2], hours(8), "word supper").unwrap_err(),
        "ghost_answer_lacks"
    );
    assert_eq!(
        world
            .run_as(&order[2], false, hours(8), None, "word supersonic")
            .unwrap_err(),
        "ghost_public"
    );
    world.run(&order[2], hours(9), "word supersonic").unwrap();
    let inst = world.inst(1);
    // The invalid protester is removed; the word is destroyed all the same.
    assert_eq!(inst.removed_why(1), Some(Why::InvalidProtest));
    assert!(inst.is_in_game(3));
    assert!(inst.ghost_word.is_none());
    // The next turn, player 2's (after the protester), begins at the resolution.
    assert_eq!(world.turn_name(1), Some(order[1].clone()));
    assert_eq!(
        world.deadlines(),
        [("ghost:1:turn:8".to_owned(), hours(9 + 72))]
    );
    let text = &world.texts.last().unwrap().1;
    assert!(
        text.contains("answered SUPERSONIC, which is a word of the official dictionary"),
        "{text}"
    );
    assert!(text.contains("made an invalid protest"), "{text}");
}

#[test]
fn rule_4_3_spronc_is_inside_nothing_and_an_unanswered_protest_is_valid() {
    let (mut world, order) = protested_not_inside(["s", "sp", "spr", "spro", "spron", "spronc"]);
    assert!(
        world
            .tick(hours(7 + 71))
            .iter()
            .all(|m| m.template == "reminder")
    );
    let mail = world.tick(hours(7 + 72));
    assert_eq!(templates(&mail), ["ghost_news"]);
    let inst = world.inst(1);
    assert_eq!(inst.removed_why(3), Some(Why::ValidProtest));
    assert!(inst.ghost_word.is_none());
    assert_eq!(world.turn_name(1), Some(order[1].clone()));
    let text = &mail[0].values;
    assert_eq!(text["happened"][0]["args"]["how"], "no_answer");
}

#[test]
fn rule_4_3_an_answer_that_is_no_word_makes_the_protest_valid() {
    let (mut world, order) = protested_not_inside(["s", "sp", "spr", "spro", "spron", "spronc"]);
    world.run(&order[2], hours(8), "word sproncy").unwrap();
    let inst = world.inst(1);
    assert_eq!(inst.removed_why(3), Some(Why::ValidProtest));
    assert!(inst.is_in_game(1));
    assert!(inst.ghost_word.is_none());
    assert_eq!(world.turn_name(1), Some(order[1].clone()));
}

#[test]
fn rule_4_3_is_a_word_protests_are_looked_up_at_once() {
    // Valid: WORD is a word of four letters; the player who made it is removed.
    let mut world = started(
        &["Alice", "Bob", "Carol", "Dave"],
        "start with Alice, Bob, Carol, Dave",
        t0(),
    );
    let order = world.order(1);
    let mut at = t0();
    world.plays(1, &mut at, &["w", "wo", "wor", "word"]);
    let mail = world
        .run(&order[0], hours(5), "protest: it is a word")
        .unwrap();
    assert_eq!(templates(&mail), ["ghost_news"]);
    let inst = world.inst(1);
    assert_eq!(inst.removed_why(4), Some(Why::ValidProtest));
    assert!(inst.ghost_word.is_none());
    assert_eq!(world.turn_name(1), Some(order[1].clone()));
    assert!(mail[0].values["happened"][0]["code"] == "ghost_h_protested");
    assert_eq!(mail[0].values["happened"][1]["args"]["found"], true);
    // Invalid: CAT is a word but of three letters; the protester is removed and the
    // word stays.
    let mut world = started(
        &["Alice", "Bob", "Carol", "Dave"],
        "start with Alice, Bob, Carol, Dave",
        t0(),
    );
    let order = world.order(1);
    let mut at = t0();
    world.plays(1, &mut at, &["c", "ca", "cat"]);
    world.run(&order[3], hours(4), "protest word").unwrap();
    let inst = world.inst(1);
    assert_eq!(inst.removed_why(4), Some(Why::InvalidProtest));
    assert_eq!(inst.ghost_word.as_deref(), Some("cat"));
    assert_eq!(inst.word_by, Some(3));
    assert_eq!(world.turn_name(1), Some(order[0].clone()));
    // No protest without a word, and none against one's own word.
    world.run(&order[0], hours(5), "resign").unwrap();
    assert_eq!(
        world.run(&order[1], hours(6), "protest word").unwrap_err(),
        "ghost_no_word"
    );
}

#[test]
fn rule_4_3_a_protest_against_a_player_no_longer_in_is_decided_by_the_dictionary() {
    // SPRONC's maker left before the protest: the bot looks it up at once.
    let mut world = started(
        &["Alice", "Bob", "Carol", "Dave"],
        "start with Alice, Bob, Carol, Dave",
        t0(),
    );
    let order = world.order(1);
    let mut at = t0();
    world.plays(1, &mut at, &["s", "sp", "spr", "spro", "spron", "spronc"]);
    world.run(&order[1], hours(7), "leave").unwrap();
    assert_eq!(world.turn_name(1), Some(order[2].clone()));
    world
        .run(&order[2], hours(8), "protest not inside")
        .unwrap();
    let inst = world.inst(1);
    assert!(
        world
            .deadlines()
            .iter()
            .all(|(id, _)| id.contains(":turn:"))
    );
    assert!(inst.is_in_game(3), "a valid protest: the protester stays");
    assert!(inst.ghost_word.is_none());
    assert_eq!(world.turn_name(1), Some(order[3].clone()));
    // The protested player leaves while the protest awaits their answer: ey did
    // not post a word containing the ghost word, so the protest is valid, though
    // UPERSO is inside SUPERSONIC ("If he does not, the protest is resolved as
    // valid"). The protester stays; the turn is the protester's successor's.
    let (mut world, order) = protested_not_inside(["u", "up", "upe", "uper", "upers", "uperso"]);
    let mail = world.run(&order[2], hours(8), "leave").unwrap();
    assert_eq!(templates(&mail), ["ghost_news"]);
    let inst = world.inst(1);
    assert!(!inst.is_over());
    assert!(inst.is_in_game(1) && inst.is_in_game(2) && !inst.is_in_game(3));
    assert!(inst.ghost_word.is_none());
    assert_eq!(world.turn_name(1), Some(order[1].clone()));
}

#[test]
fn rule_4_4_a_resignation_destroys_the_word_and_leaving_in_turn_is_one() {
    let names = ["Alice", "Bob", "Carol", "Dave", "Eve"];
    let mut world = started(&names, "start with Alice, Bob, Carol, Dave, Eve", t0());
    let order = world.order(1);
    let why = |world: &GhostTable, seat: u32| world.inst(1).removed_why(seat);
    let mut at = t0();
    world.plays(1, &mut at, &["s", "st"]);
    world.run(&order[2], hours(3), "resign").unwrap();
    assert_eq!(why(&world, 3), Some(Why::Resigned));
    assert!(world.inst(1).ghost_word.is_none());
    assert_eq!(world.turn_name(1), Some(order[3].clone()));
    // Leaving out of turn keeps the word and the turn.
    world.run(&order[3], hours(4), "q").unwrap();
    world.run(&order[1], hours(5), "leave").unwrap();
    assert_eq!(why(&world, 2), Some(Why::Left));
    assert_eq!(world.inst(1).ghost_word.as_deref(), Some("q"));
    assert_eq!(world.turn_name(1), Some(order[4].clone()));
    // Leaving in one's turn is a resignation: the word is destroyed.
    world.run(&order[4], hours(6), "qu").unwrap();
    let mail = world.run(&order[0], hours(7), "leave").unwrap();
    assert!(world.inst(1).ghost_word.is_none());
    assert_eq!(world.turn_name(1), Some(order[3].clone()));
    let text = render(&mail[0]);
    assert!(
        text.contains("left the game during their turn, which counts as a resignation"),
        "{text}"
    );
    assert!(text.contains("the ghost word QU is destroyed"), "{text}");
    // Leaving the nomic is a leave: player 5 is the last one in, and wins.
    let mail = world.left_nomic(&order[3], hours(8));
    assert_eq!(templates(&mail), ["ghost_news", "random_period_revealed"]);
    assert_eq!(why(&world, 4), Some(Why::LeftNomic));
    let inst = world.inst(1);
    assert!(inst.is_over());
    assert_eq!(inst.winner, Some(5));
    assert!(world.deadlines().is_empty());
}

#[test]
fn rule_4_additions_until_the_first_turn_of_the_highest_numbered_player() {
    let names = ["Alice", "Bob", "Carol", "Dave", "Eve", "Frank"];
    let mut world = started(&names, "start with Alice, Bob, Carol", t0());
    let order = world.order(1);
    // Dave asks privately; everyone is told on the list; he gets number 4.
    let mail = world
        .run_as("Dave", false, hours(1), None, "add me")
        .unwrap();
    assert_eq!(templates(&mail), ["ghost_news"]);
    assert_eq!(mail[0].to, Audience::List);
    let dave = world.inst(1).seat(4).unwrap().clone();
    assert_eq!(dave.name, "Dave");
    assert_eq!(dave.addition_protest_until, Some(hours(73)));
    assert!(
        world
            .texts
            .last()
            .unwrap()
            .1
            .contains("was added as player 4")
    );
    assert_eq!(
        world.run("Dave", hours(1), "add me").unwrap_err(),
        "ghost_already_in"
    );
    assert_eq!(
        world.run("Rita", hours(1), "add me").unwrap_err(),
        "ghost_is_referee"
    );
    assert_eq!(
        world.run("Mallory", hours(1), "add me").unwrap_err(),
        "ghost_not_a_player"
    );
    // Player 3's first turn does not close additions: Dave is now the highest.
    let mut at = hours(1);
    world.plays(1, &mut at, &["s", "st"]);
    assert_eq!(world.turn_name(1), Some(order[2].clone()));
    world.run("Eve", hours(4), "add me").unwrap();
    assert_eq!(world.inst(1).seat(5).unwrap().name, "Eve");
    at = hours(4);
    world.plays(1, &mut at, &["sto", "stop"]);
    // Eve's first turn has begun: additions are closed.
    assert_eq!(world.turn_name(1).as_deref(), Some("Eve"));
    assert_eq!(
        world.run("Frank", hours(8), "add me").unwrap_err(),
        "ghost_additions_closed"
    );
    assert_eq!(world.last_sentence().args["highest"], "Eve");
    // Without additions, player N's first turn closes them.
    let mut world = started(&names, "start with Alice, Bob, Carol", t0());
    let mut at = t0();
    world.plays(1, &mut at, &["s", "st"]);
    assert_eq!(
        world.run("Dave", hours(3), "add me").unwrap_err(),
        "ghost_additions_closed"
    );
    // A removed player does not come back.
    let mut world = started(&names, "start with Alice, Bob, Carol", t0());
    let order = world.order(1);
    world.run(&order[2], hours(1), "leave").unwrap();
    assert_eq!(
        world.run(&order[2], hours(1), "add me").unwrap_err(),
        "ghost_no_return"
    );
}

#[test]
fn rule_4_an_addition_protested_away() {
    let mut world = started(
        &["Alice", "Bob", "Carol", "Dave", "Eve"],
        "start with Alice, Bob, Carol",
        t0(),
    );
    let order = world.order(1);
    world.run("Dave", hours(1), "add me").unwrap();
    world.run("Eve", hours(1), "add me").unwrap();
    assert_eq!(
        world
            .run("Eve", hours(2), "protest addition Dave")
            .unwrap_err(),
        "ghost_not_earlier"
    );
    assert_eq!(
        world
            .run(&order[0], hours(2), "protest addition Alice")
            .unwrap_err(),
        "ghost_not_a_newcomer"
    );
    assert_eq!(
        world
            .run_as(&order[1], false, hours(2), None, "protest addition Dave")
            .unwrap_err(),
        "ghost_public"
    );
    // Any earlier player, out of turn.
    let mail = world
        .run(&order[1], hours(2), "protest addition Dave")
        .unwrap();
    assert_eq!(templates(&mail), ["ghost_news"]);
    let text = &world.texts.last().unwrap().1;
    assert!(
        text.contains(&format!(
            "{} protested the addition of Dave, so Dave is out of the game.",
            order[1]
        )),
        "{text}"
    );
    let inst = world.inst(1);
    assert_eq!(inst.removed_why(4), Some(Why::AdditionProtested { by: 2 }));
    assert_eq!(world.turn_name(1), Some(order[0].clone()));
    // Eve's addition: too late after three days (said before player 1's turn,
    // over at 72 hours, has fired).
    assert_eq!(
        world
            .run_before_deadlines(&order[0], hours(73), "protest addition Eve")
            .unwrap_err(),
        "ghost_addition_final"
    );
    assert_eq!(world.last_sentence().args["why"], "time");
    // ... or once her first turn has begun.
    let mut world = started(
        &["Alice", "Bob", "Carol", "Dave"],
        "start duel with Alice, Bob",
        t0(),
    );
    assert_eq!(
        world.run("Dave", hours(1), "add me").unwrap_err(),
        "ghost_duel_no_additions"
    );
    let mut world = started(&["Alice", "Bob", "Carol"], "start with Alice, Bob", t0());
    let order = world.order(1);
    world.run("Carol", hours(1), "add me").unwrap();
    let mut at = hours(1);
    world.plays(1, &mut at, &["s", "st"]);
    assert_eq!(world.turn_name(1).as_deref(), Some("Carol"));
    assert_eq!(
        world
            .run(&order[0], hours(4), "protest addition Carol")
            .unwrap_err(),
        "ghost_addition_final"
    );
    assert_eq!(world.last_sentence().args["why"], "turn");
}

#[test]
fn rule_4_3_a_word_containing_the_ghost_word_is_letters_not_words_glued_by_marks() {
    // "the player against whom the protest was made has three days to post a word
    // containing the ghost word. [...] If the named word is a word in the official
    // dictionary, the protest is invalid". Ghost has no clause on punctuation
    // (rule 1209 §III's reading of "isn't" and "week-end" does not reach it): the
    // answer is one word of letters, looked up whole. Read by its parts,
    // "cat-stop" would make CATSTO "inside a word" by gluing two.
    let (mut world, order) = protested_not_inside(["s", "ts", "tst", "tsto", "atsto", "catsto"]);
    for glued in ["word cat-stop", "word cat'stop", "word cat’stop"] {
        assert_eq!(
            world.run(&order[2], hours(8), glued).unwrap_err(),
            "ghost_bad_letters",
            "{glued}"
        );
    }
    // The protest still waits for a word of letters.
    assert!(matches!(world.inst(1).stage, Stage::Protest { .. }));
    world.run(&order[2], hours(9), "word catstop").unwrap();
    let inst = world.inst(1);
    assert_eq!(inst.removed_why(3), Some(Why::ValidProtest));
    assert!(inst.ghost_word.is_none());
}
