//! The inventory by mail: what a player owns besides money, read by anyone, set
//! right by a moderator with a reason, announced, undone by a void.

use crate::offices::{BOT, LIST, MODERATOR, bot, play, replies_to};
use crate::support::at;

#[test]
fn a_moderator_creates_transfers_and_destroys_entities_and_players_read_their_inventory() {
    let bot = bot();
    play(
        &bot,
        "a",
        at("2026-02-02T10:00:00Z"),
        &[
            ("alice@nomic.example", LIST, "[nomic] join Alice", ""),
            ("bob@nomic.example", LIST, "[nomic] join Bob", ""),
            (
                MODERATOR,
                LIST,
                "[nomic]",
                "create Trinket for Alice: a brass astrolabe because a Boon bestowed by hand\n\
                 create Chartreuse Goose for Bob because the goose was Bob's before the bot",
            ),
            (
                "bob@nomic.example",
                LIST,
                "[nomic]",
                "create Trinket for Bob because I want one",
            ),
            ("alice@nomic.example", BOT, "[nomic] inventory", ""),
        ],
    );
    let alice = replies_to(&bot, "alice@nomic.example");
    assert!(
        alice.contains("Alice owns:") && alice.contains("#1 Trinket: a brass astrolabe"),
        "{alice}"
    );
    let bob = replies_to(&bot, "bob@nomic.example");
    assert!(bob.contains("only a moderator"), "{bob}");
    let public: Vec<(String, String)> = bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to(LIST))
        .map(|m| (m.subject, m.body))
        .collect();
    let created = public
        .iter()
        .find(|(s, _)| s.contains("#1 Trinket created"))
        .expect("announced");
    assert!(
        created.1.contains("Reason given: a Boon bestowed by hand"),
        "{created:?}"
    );
    let state = bot.state_json();
    assert_eq!(
        state["inventory"]["entities"].as_array().map(Vec::len),
        Some(2),
        "{state:#}"
    );

    play(
        &bot,
        "b",
        at("2026-02-02T12:00:00Z"),
        &[
            (
                MODERATOR,
                BOT,
                "[nomic]",
                "transfer #2 to Alice because Bob traded it\ndestroy #9 because typo",
            ),
            (
                MODERATOR,
                BOT,
                "[nomic]",
                "void <a2@players.test> because the trinket was never real",
            ),
            ("bob@nomic.example", BOT, "[nomic] inventory Alice", ""),
        ],
    );
    let moderator = replies_to(&bot, MODERATOR);
    assert!(moderator.contains("there is no entity #9"), "{moderator}");
    let bob = replies_to(&bot, "bob@nomic.example");
    let listing = bob.rsplit("---").next().unwrap();
    // The void took back both creations of that message; the goose went to
    // Alice after it was created, and that transfer stands on nothing now.
    assert!(listing.contains("Alice owns no entities"), "{listing}");
    let replay = bot.cli_ok(&["replay"]);
    assert!(replay.contains("equals the live state"), "{replay}");
}
