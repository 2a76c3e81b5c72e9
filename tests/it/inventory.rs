//! The inventory by mail: what a player owns besides money, read by anyone, set
//! right by a moderator with a reason, announced, undone by a void.

use jiff::SignedDuration;

use crate::support::{LocalBot, at, message};

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";
const MODERATOR: &str = "mod@nomic.example";

fn bot() -> LocalBot {
    let config = nomicbot::config::DEFAULT_CONFIG.replace(
        "moderators = []",
        &format!("moderators = [\"{MODERATOR}\"]"),
    );
    LocalBot::with_config(&config)
}

fn play(bot: &LocalBot, prefix: &str, start: jiff::Timestamp, script: &[(&str, &str, &str, &str)]) {
    for (index, (from, to, subject, body)) in script.iter().enumerate() {
        let when = start + SignedDuration::from_mins(index as i64);
        let id = format!("{prefix}{index}@players.test");
        bot.deliver(
            &format!("{prefix}{index}"),
            &message(from, to, subject, &id, body),
            when,
        );
    }
    bot.once(start + SignedDuration::from_hours(1));
}

fn replies_to(bot: &LocalBot, address: &str) -> String {
    bot.sent_mail()
        .into_iter()
        .filter(|m| m.is_to(address) && !m.is_to(LIST))
        .map(|m| m.body)
        .collect::<Vec<_>>()
        .join("\n---\n")
}

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
