//! The rule suites of issue 26: Otzma Cards (rule 1240, "They can be used only
//! once"), and the Games & Contests registry (rule 1250).

use crate::offices::{BOT, LIST, MODERATOR, play, replies_to};
use crate::support::{LocalBot, at};

const ALICE: &str = "alice@nomic.example";
const BOB: &str = "bob@nomic.example";
const CAROL: &str = "carol@nomic.example";
const DAVE: &str = "dave@nomic.example";

fn list_mail(bot: &LocalBot) -> Vec<(String, String)> {
    bot.sent_mail()
        .into_iter()
        .filter(|m| m.is_to(LIST))
        .map(|m| (m.subject, m.body))
        .collect()
}

/// Alice and Bob have joined; Alice holds Otzma Card #1 (The Fool) and a
/// Trinket #2, created by the moderator.
fn alice_holds_a_card() -> LocalBot {
    let bot = crate::offices::bot();
    play(
        &bot,
        "setup",
        at("2026-03-02T10:00:00Z"),
        &[
            (ALICE, LIST, "[nomic] join Alice", ""),
            (BOB, LIST, "[nomic] join Bob", ""),
            (
                MODERATOR,
                BOT,
                "[nomic]",
                "create Otzma Card for Alice: The Fool because a Boon was bestowed",
            ),
            (
                MODERATOR,
                BOT,
                "[nomic]",
                "create Trinket for Alice: a brass astrolabe because a Boon was bestowed",
            ),
        ],
    );
    bot
}

#[test]
fn an_otzma_card_is_used_once_announced_and_refused_the_second_time() {
    let bot = alice_holds_a_card();
    play(
        &bot,
        "use",
        at("2026-03-02T11:00:00Z"),
        &[(
            ALICE,
            LIST,
            "[nomic] use Otzma Card #1: Bob skips his next turn",
            "",
        )],
    );
    let answer = replies_to(&bot, ALICE);
    assert!(answer.contains("You used #1 Otzma Card"), "{answer}");
    let announced = list_mail(&bot);
    let (subject, body) = announced
        .iter()
        .find(|(subject, _)| subject.contains("uses #1 Otzma Card"))
        .expect("the use is announced to the list");
    assert!(subject.contains("Alice"), "{subject}");
    assert!(body.contains("The Fool"), "{body}");
    assert!(body.contains("Bob skips his next turn"), "{body}");

    // Consumed: gone from Alice's inventory, remembered as used.
    let state = bot.state_json();
    let inventory = state.to_string();
    assert!(inventory.contains("\"used\""), "{inventory}");
    play(
        &bot,
        "again",
        at("2026-03-02T12:00:00Z"),
        &[
            (ALICE, BOT, "[nomic] inventory", ""),
            (ALICE, LIST, "[nomic] use #1: Bob skips another turn", ""),
        ],
    );
    let answer = replies_to(&bot, ALICE);
    let after_first_use = answer.rsplit("---").collect::<Vec<_>>();
    assert!(
        after_first_use[1].contains("#2 Trinket") && !after_first_use[1].contains("The Fool"),
        "{answer}"
    );
    assert!(
        after_first_use[0].contains("Refused: #1 Otzma Card (The Fool) was used already, by Alice"),
        "{answer}"
    );
    assert_eq!(
        list_mail(&bot)
            .iter()
            .filter(|(subject, _)| subject.contains("uses #1"))
            .count(),
        1
    );
}

#[test]
fn a_card_that_is_not_ones_own_is_refused_and_stays_with_its_owner() {
    let bot = alice_holds_a_card();
    play(
        &bot,
        "steal",
        at("2026-03-02T11:00:00Z"),
        &[(BOB, LIST, "[nomic] use #1: Alice loses", "")],
    );
    let answer = replies_to(&bot, BOB);
    assert!(
        answer.contains("Refused: #1 Otzma Card is owned by Alice, not you"),
        "{answer}"
    );
    assert!(
        !list_mail(&bot).iter().any(|(s, _)| s.contains("uses #1")),
        "nothing announced"
    );
    play(
        &bot,
        "look",
        at("2026-03-02T12:00:00Z"),
        &[(ALICE, BOT, "[nomic] inventory", "")],
    );
    assert!(replies_to(&bot, ALICE).contains("#1 Otzma Card: The Fool"));
}

#[test]
fn an_entity_that_is_not_single_use_is_not_used_up() {
    let bot = alice_holds_a_card();
    play(
        &bot,
        "trinket",
        at("2026-03-02T11:00:00Z"),
        &[(ALICE, LIST, "[nomic] use #2", "")],
    );
    let answer = replies_to(&bot, ALICE);
    assert!(
        answer.contains("Refused: #2 is a Trinket, which is not used up by a use"),
        "{answer}"
    );
    play(
        &bot,
        "none",
        at("2026-03-02T12:00:00Z"),
        &[(ALICE, LIST, "[nomic] use #9", "")],
    );
    assert!(replies_to(&bot, ALICE).contains("there is no entity #9"));
}

/// Rule 1250: "Games & Contests include sub games [...]". The suite answers
/// `[games] list`, shipped with Ghost (`[[duel.contests]]`).
#[test]
fn games_list_answers_the_games_and_contests_suite_as_shipped() {
    let bot = alice_holds_a_card();
    play(
        &bot,
        "list",
        at("2026-03-02T11:00:00Z"),
        &[(ALICE, BOT, "[games] list", "")],
    );
    let answer = replies_to(&bot, ALICE);
    assert!(
        answer.contains("The Games & Contests suite (rule 1250):"),
        "{answer}"
    );
    assert!(
        answer.contains("Ghost: 2 players; refereed by the bot"),
        "{answer}"
    );
}

/// A moderator's change under `[games]` is the suite every rule reads: a
/// Duel's Contest must come from it, and one that is not two-player is
/// refused (rule 1215 §2).
#[test]
fn a_contest_a_moderator_adds_under_games_is_listed_and_a_duel_refuses_it_when_not_two_player() {
    let bot = alice_holds_a_card();
    play(
        &bot,
        "suite",
        at("2026-03-02T11:00:00Z"),
        &[
            (
                MODERATOR,
                BOT,
                "[games]",
                "add Party Chess players any referee Carol because Carol offered to referee it",
            ),
            (
                ALICE,
                BOT,
                "[games] add Chess players 2 because I like it",
                "",
            ),
            (BOB, BOT, "[games] list", ""),
            (BOB, BOT, "[duel] contests", ""),
        ],
    );
    assert!(
        replies_to(&bot, MODERATOR).contains("Added to the Games & Contests suite: Party Chess"),
        "{}",
        replies_to(&bot, MODERATOR)
    );
    let alice = replies_to(&bot, ALICE);
    assert!(!alice.contains("Added"), "{alice}");
    assert!(alice.contains("Refused"), "{alice}");
    let state = bot.state_json();
    assert_eq!(
        state["contests"]["added"][0]["name"], "Party Chess",
        "{state}"
    );
    let bob = replies_to(&bot, BOB);
    let answers: Vec<&str> = bob.rsplit("\n---\n").take(2).collect();
    for answer in answers {
        assert!(
            answer.contains("Party Chess: any number of players; refereed by Carol"),
            "{answer}"
        );
        assert!(!answer.contains("Chess: 2 players"), "{answer}");
    }

    play(
        &bot,
        "duel",
        at("2026-03-02T12:00:00Z"),
        &[
            (CAROL, LIST, "[nomic] join Carol", ""),
            (DAVE, LIST, "[nomic] join Dave", ""),
            (
                CAROL,
                LIST,
                "[duel]",
                "Alice challenges Bob because he called my proposal a loophole",
            ),
            (DAVE, LIST, "[duel] accept 1 with Party Chess", ""),
        ],
    );
    let answer = replies_to(&bot, DAVE) + &replies_to(&bot, CAROL);
    assert!(
        answer.contains("playable by exactly two players"),
        "{answer}"
    );

    play(
        &bot,
        "remove",
        at("2026-03-02T13:00:00Z"),
        &[
            (
                MODERATOR,
                BOT,
                "[games] remove party chess because nobody plays it",
                "",
            ),
            (BOB, BOT, "[games] list", ""),
        ],
    );
    let bob = replies_to(&bot, BOB);
    let last = bob.rsplit("\n---\n").next().unwrap_or_default();
    assert!(!last.contains("Party Chess"), "{last}");
    assert!(last.contains("Ghost"), "{last}");
}
