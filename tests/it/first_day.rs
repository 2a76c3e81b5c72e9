//! A moderator's first day (issue 24, items 1 and 3): bot.toml's promise that a
//! moderator holds every office is kept, a moderator written as a mail client
//! shows em is read as the address, a bare name is refused at `check`, and with
//! no moderator at all a refusal says where to name one.

use crate::offices::{BOT, LIST, MODERATOR, play, replies_to};
use crate::support::{LocalBot, at};

const ALICE: &str = "alice@nomic.example";

fn bot_with_moderators(moderators: &str) -> LocalBot {
    let config = crate::support::trusting()
        .replace("moderators = []", &format!("moderators = [{moderators}]"));
    LocalBot::with_config(&config)
}

#[test]
fn a_moderator_enacts_a_rule_without_being_appointed_keeper_of_the_rules() {
    let bot = crate::offices::bot();
    play(
        &bot,
        "e",
        at("2026-02-02T10:00:00Z"),
        &[(
            MODERATOR,
            BOT,
            "[ruleset]",
            "enact 101 First Rule\nAll players must obey the rules.\nend",
        )],
    );
    let answer = replies_to(&bot, MODERATOR);
    assert!(!answer.contains("Refused"), "{answer}");
    let rules = bot.cli_ok(&["state", "--json"]);
    assert!(
        rules.contains("All players must obey the rules."),
        "{rules}"
    );
}

#[test]
fn a_player_who_holds_no_office_still_may_not_enact() {
    let bot = crate::offices::bot();
    play(
        &bot,
        "p",
        at("2026-02-02T10:00:00Z"),
        &[(
            ALICE,
            BOT,
            "[ruleset]",
            "enact 101 First Rule\nAlice wins.\nend",
        )],
    );
    let answer = replies_to(&bot, ALICE);
    assert!(
        answer.contains("only the officer who keeps the rules"),
        "{answer}"
    );
}

#[test]
fn a_moderator_written_with_a_name_and_angle_brackets_acts_as_moderator() {
    let bot = bot_with_moderators("\"Mod <MOD@nomic.example>\"");
    let check = bot.cli_ok(&["check"]);
    assert!(check.contains("config ok"), "{check}");
    play(
        &bot,
        "n",
        at("2026-02-02T10:00:00Z"),
        &[
            (ALICE, LIST, "[nomic] join Alice", ""),
            (
                MODERATOR,
                BOT,
                "[nomic]",
                "adjust Alice 5 points because a first-day gift",
            ),
        ],
    );
    let answer = replies_to(&bot, MODERATOR);
    assert!(!answer.contains("Refused"), "{answer}");
    let state = bot.state_json();
    assert_eq!(
        crate::support::balance(&state, "Alice", "points").as_deref(),
        Some("5"),
        "{answer}"
    );
}

#[test]
fn a_moderator_written_as_a_bare_name_is_refused_at_check_with_the_key_named() {
    let bot = bot_with_moderators("\"Mod\"");
    let check = bot.cli(&["check"]);
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert!(!check.status.success(), "check accepted a bare name");
    assert!(stderr.contains("[bot] moderators"), "{stderr}");
    assert!(stderr.contains("Mod <mod@example.org>"), "{stderr}");
}

#[test]
fn with_no_moderator_configured_a_refused_adjust_says_where_to_name_one() {
    let bot = LocalBot::with_config(crate::support::trusting());
    play(
        &bot,
        "z",
        at("2026-02-02T10:00:00Z"),
        &[
            (ALICE, LIST, "[nomic] join Alice", ""),
            (
                ALICE,
                BOT,
                "[nomic]",
                "adjust Alice 5 points because nobody else will",
            ),
        ],
    );
    let answer = replies_to(&bot, ALICE);
    assert!(answer.contains("no moderator is configured"), "{answer}");
    assert!(answer.contains("[bot]"), "{answer}");
    assert!(answer.contains("moderators = "), "{answer}");
}

#[test]
fn with_a_moderator_configured_the_refusal_to_a_player_names_no_configuration() {
    let bot = crate::offices::bot();
    play(
        &bot,
        "y",
        at("2026-02-02T10:00:00Z"),
        &[
            (ALICE, LIST, "[nomic] join Alice", ""),
            (
                ALICE,
                BOT,
                "[nomic]",
                "adjust Alice 5 points because why not",
            ),
        ],
    );
    let answer = replies_to(&bot, ALICE);
    assert!(answer.contains("only a moderator may do that."), "{answer}");
    assert!(!answer.contains("no moderator is configured"), "{answer}");
}
