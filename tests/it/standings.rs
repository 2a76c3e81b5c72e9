//! Standings and history by mail (issue 24, item 7): `[nomic] standings` puts
//! the nomic's points and money beside each game's own score, named apart;
//! `[nomic] games` lists what is running with whose turn and the next deadline;
//! `history` under a tag reads back what the list was told under it; `[ruleset]
//! history N` gives every version of a rule with who changed it and when. None
//! of them shows a secret: a sealed vote stays sealed.

use jiff::{SignedDuration, Timestamp};

use crate::support::{LocalBot, at, message};

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";
const MODERATOR: &str = "mod@nomic.example";
const ALICE: &str = "alice@nomic.example";
const CAROL: &str = "carol@nomic.example";

fn bot() -> LocalBot {
    let config = crate::support::gnomic_rules_elsewhere(crate::support::trusting()).replace(
        "moderators = []",
        &format!("moderators = [\"{MODERATOR}\"]"),
    );
    LocalBot::with_config(&config)
}

/// Delivers `(from, to, subject, body)` a minute apart from `start`, then runs
/// one pass a little after the last.
fn play(bot: &LocalBot, prefix: &str, start: Timestamp, script: &[(&str, &str, &str, &str)]) {
    for (index, (from, to, subject, body)) in script.iter().enumerate() {
        let id = format!("{prefix}{index}@players.test");
        bot.deliver(
            &format!("{prefix}{index}"),
            &message(from, to, subject, &id, body),
            start + SignedDuration::from_mins(index as i64),
        );
    }
    bot.once(start + SignedDuration::from_mins(script.len() as i64 + 1));
}

/// The answers the bot sent `who` privately, newest last.
fn answers(bot: &LocalBot, who: &str) -> Vec<String> {
    bot.sent_mail()
        .into_iter()
        .filter(|m| m.is_to(who) && !m.is_to(LIST))
        .map(|m| m.body)
        .collect()
}

fn last_answer(bot: &LocalBot, who: &str) -> String {
    answers(bot, who).pop().unwrap_or_default()
}

/// Alice, Bob and Carol join; the moderator starts Gnomic and opens a ballot.
fn three_players_playing(bot: &LocalBot) -> Timestamp {
    let start = at("2026-03-02T09:00:00Z");
    play(
        bot,
        "setup",
        start,
        &[
            (ALICE, LIST, "[nomic] join Alice", ""),
            ("bob@nomic.example", LIST, "[nomic] join Bob", ""),
            (CAROL, LIST, "[nomic] join Carol", ""),
            (MODERATOR, LIST, "[gnomic] start", ""),
            (MODERATOR, LIST, "[vote] open Shall we sing?", ""),
        ],
    );
    start + SignedDuration::from_hours(1)
}

#[test]
fn standings_tell_the_gnomic_score_from_the_nomics_points() {
    let bot = bot();
    let now = three_players_playing(&bot);
    play(&bot, "ask", now, &[(CAROL, BOT, "[nomic] standings", "")]);
    let answer = last_answer(&bot, CAROL);
    assert!(answer.contains("The standings"), "{answer}");
    // Each row names both: the nomic's currencies and Gnomic's own score.
    let alice = answer
        .lines()
        .find(|line| line.trim_start().starts_with("Alice:"))
        .unwrap_or_else(|| panic!("no row for Alice: {answer}"));
    assert!(alice.contains(" points"), "{alice}");
    assert!(alice.contains("Gnomic score "), "{alice}");
    // The games without a score say so.
    assert!(answer.contains("Games that keep no score:"), "{answer}");
    assert!(answer.contains("vote"), "{answer}");
}

#[test]
fn games_lists_the_running_games_with_whose_turn_and_the_next_deadline() {
    let bot = bot();
    let now = three_players_playing(&bot);
    play(&bot, "ask", now, &[(CAROL, BOT, "[nomic] games", "")]);
    let answer = last_answer(&bot, CAROL);
    assert!(answer.contains("The games running:"), "{answer}");
    let gnomic = answer
        .lines()
        .find(|line| line.contains("[gnomic]"))
        .unwrap_or_else(|| panic!("no Gnomic: {answer}"));
    assert!(gnomic.contains("players: Alice, Bob, Carol"), "{gnomic}");
    assert!(gnomic.contains("waiting for Alice"), "{gnomic}");
    let ballot = answer
        .lines()
        .find(|line| line.contains("[vote]"))
        .unwrap_or_else(|| panic!("no ballot: {answer}"));
    assert!(ballot.contains("ballot 1: Shall we sing?"), "{ballot}");
    assert!(ballot.contains("next deadline 2026-03-"), "{ballot}");
}

#[test]
fn a_sealed_vote_shows_neither_in_the_games_nor_in_the_history() {
    let bot = bot();
    let now = three_players_playing(&bot);
    play(
        &bot,
        "vote",
        now,
        &[
            (ALICE, BOT, "[vote] yes", ""),
            (CAROL, BOT, "[nomic] games", "history all"),
        ],
    );
    play(
        &bot,
        "ask",
        now + SignedDuration::from_mins(10),
        &[(CAROL, BOT, "[vote] history", "")],
    );
    let answers = answers(&bot, CAROL).join("\n---\n");
    assert!(answers.contains("ballot 1: Shall we sing?"), "{answers}");
    assert!(
        answers.contains("What the list was told under [vote]"),
        "{answers}"
    );
    assert!(!answers.contains("yes"), "{answers}");
    assert!(!answers.to_lowercase().contains("alice voted"), "{answers}");
}

#[test]
fn history_under_any_tag_reads_back_its_announcements_oldest_first() {
    let bot = bot();
    let now = three_players_playing(&bot);
    play(&bot, "ask", now, &[(CAROL, BOT, "[nomic] history 2", "")]);
    let answer = last_answer(&bot, CAROL);
    assert!(
        answer.contains("What the list was told under [nomic], the latest 2"),
        "{answer}"
    );
    let entries: Vec<&str> = answer
        .lines()
        .filter(|line| line.starts_with("    2026-03-02"))
        .collect();
    assert_eq!(entries.len(), 2, "{answer}");
    assert!(entries[0].contains("09:01 UTC: Bob joined"), "{answer}");
    assert!(entries[1].contains("Carol"), "{answer}");
    assert!(answer.contains("history all"), "{answer}");
}

#[test]
fn ruleset_history_of_an_amended_rule_says_who_changed_it_and_when() {
    let bot = bot();
    play(
        &bot,
        "rules",
        at("2026-03-02T09:00:00Z"),
        &[
            (
                MODERATOR,
                BOT,
                "[ruleset]",
                "enact 901 Singing\nPlayers may sing.\nend",
            ),
            (
                MODERATOR,
                BOT,
                "[ruleset]",
                "amend 901\nPlayers may sing in tune.\nend",
            ),
            (CAROL, BOT, "[ruleset] history 901", ""),
        ],
    );
    let answer = last_answer(&bot, CAROL);
    assert!(answer.contains("Rule 901's history"), "{answer}");
    let enacted = answer
        .find("2026-03-02 09:00 UTC: enacted by mod@nomic.example, version 1")
        .unwrap_or_else(|| panic!("{answer}"));
    let amended = answer
        .find("2026-03-02 09:01 UTC: amended by mod@nomic.example, version 2")
        .unwrap_or_else(|| panic!("{answer}"));
    assert!(enacted < amended, "{answer}");
    assert!(answer.contains("Players may sing.\n"), "{answer}");
    assert!(answer.contains("Players may sing in tune."), "{answer}");
}

#[test]
fn games_names_whose_turn_it_is_in_a_game_of_ghost() {
    let bot = bot();
    let now = three_players_playing(&bot);
    play(
        &bot,
        "ghost",
        now,
        &[(CAROL, LIST, "[ghost]", "start with Alice, Bob")],
    );
    play(
        &bot,
        "ask",
        now + SignedDuration::from_mins(10),
        &[(CAROL, BOT, "[nomic] games", "")],
    );
    let answer = last_answer(&bot, CAROL);
    let ghost = answer
        .lines()
        .find(|line| line.contains("[ghost 1]"))
        .unwrap_or_else(|| panic!("no Ghost: {answer}"));
    assert!(ghost.contains("Ghost, no letter played yet"), "{ghost}");
    assert!(
        ghost.contains("players: Alice, Bob") || ghost.contains("players: Bob, Alice"),
        "{ghost}"
    );
    assert!(
        ghost.contains("waiting for Alice") || ghost.contains("waiting for Bob"),
        "{ghost}"
    );
    assert!(ghost.contains("next deadline"), "{ghost}");
}
