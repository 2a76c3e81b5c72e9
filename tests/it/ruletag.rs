//! `[rule tag]` by mail, on the embedded Maildir transport: each test is a clause of
//! the Rule Tag proposal (`../shared/rules/rule-tag-proposal.txt`), named after it.
//!
//! The calendar is the shipped one: nweeks of ten ndays from 2026-01-05, so nweek 5
//! runs from 2026-02-24 to 2026-03-06, and its actions close at the end of nday 8,
//! 2026-03-04 00:00 UTC.

use jiff::{SignedDuration, Timestamp};

use crate::support::{LocalBot, SentMail, at, message};

pub const LIST: &str = "game-list@nomic.example";
pub const BOT: &str = "bot@nomic.example";
pub const MODERATOR: &str = "rtm@nomic.example";

/// The first nday of nweek 5.
pub fn nweek_start() -> Timestamp {
    at("2026-02-24T00:00:00Z")
}

/// When nweek 5 ends and its turn is processed.
pub fn nweek_end() -> Timestamp {
    at("2026-03-06T00:00:00Z")
}

pub fn address(name: &str) -> String {
    format!("{}@nomic.example", name.to_lowercase())
}

/// A bot whose moderator (and so Rule Tag Moderator) is `rtm@`, with the Gnomic
/// ruleset imported and the players joined; the game is not started yet.
pub fn game(players: &[&str]) -> LocalBot {
    let config = nomicbot::config::DEFAULT_CONFIG.replace(
        "moderators = []",
        &format!("moderators = [\"{MODERATOR}\"]"),
    );
    let bot = LocalBot::with_config(&config);
    let gnomic = crate::support::repo_root().join("../shared/rules/gnomic-ruleset-v73.txt");
    bot.cli_ok(&[
        "import-rules",
        gnomic.to_str().expect("path"),
        "--now",
        "2026-02-23T00:00:00Z",
    ]);
    let mut when = nweek_start() + SignedDuration::from_mins(1);
    for name in std::iter::once(&"Mod").chain(players) {
        let from = if *name == "Mod" {
            MODERATOR.to_owned()
        } else {
            address(name)
        };
        send(&bot, &from, LIST, &format!("[nomic] join {name}"), "", when);
        when += SignedDuration::from_mins(1);
    }
    bot
}

/// `game` and then `start` by the moderator, at nday 1 of nweek 5.
pub fn started(players: &[&str]) -> LocalBot {
    let bot = game(players);
    send(
        &bot,
        MODERATOR,
        LIST,
        "[rule tag] start",
        "",
        nweek_start() + SignedDuration::from_hours(1),
    );
    bot
}

/// Delivers one message, with a Message-ID of its own.
pub fn send(bot: &LocalBot, from: &str, to: &str, subject: &str, body: &str, when: Timestamp) {
    static SENT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = SENT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let id = format!("m{n}-{}-{}@players.test", when.as_second(), from.replace('@', "-"));
    bot.deliver(&id, &message(from, to, subject, &id, body), when);
}

/// Runs the bot up to `now` (deadlines included).
pub fn run_until(bot: &LocalBot, now: Timestamp) {
    bot.once(now);
}

/// Each player's (element, rtl, points) from `state ruletag --json`, by name.
pub fn standing(bot: &LocalBot, name: &str) -> (String, serde_json::Value, String) {
    let state = ruletag_state(bot, false);
    let player = state["players"]
        .as_array()
        .expect("players")
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {state}"))
        .clone();
    (
        player["element"].as_str().expect("element").to_owned(),
        player["rtl"].clone(),
        player["points"].as_str().expect("points").to_owned(),
    )
}

pub fn ruletag_state(bot: &LocalBot, private: bool) -> serde_json::Value {
    let mut args = vec!["state", "ruletag", "--json"];
    if private {
        args.push("--private");
    }
    serde_json::from_str(&bot.cli_ok(&args)).expect("json")
}

/// The object's (rtl, holder).
pub fn object(bot: &LocalBot, name: &str) -> (serde_json::Value, serde_json::Value) {
    let state = ruletag_state(bot, true);
    let object = state["objects"]
        .as_array()
        .expect("objects")
        .iter()
        .find(|o| o["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {state}"))
        .clone();
    (object["rtl"].clone(), object["holder"].clone())
}

/// The answers to `who`, newest last.
pub fn replies_to(bot: &LocalBot, who: &str) -> Vec<SentMail> {
    bot.sent_mail()
        .into_iter()
        .filter(|m| m.is_to(who) && !m.is_to(LIST))
        .collect()
}

/// The last answer to `who`.
pub fn last_reply(bot: &LocalBot, who: &str) -> String {
    replies_to(bot, who)
        .last()
        .map(|m| format!("{}\n{}", m.subject, m.body))
        .unwrap_or_default()
}

/// Mail to the list whose subject contains `subject`.
pub fn announcements(bot: &LocalBot, subject: &str) -> Vec<SentMail> {
    bot.sent_mail()
        .into_iter()
        .filter(|m| m.is_to(LIST) && m.subject.contains(subject))
        .collect()
}

/// Adjusts a player's points by a moderator's override, so tests start from known scores.
pub fn give_points(bot: &LocalBot, name: &str, points: i64, when: Timestamp) {
    send(
        bot,
        MODERATOR,
        BOT,
        "[nomic] adjust",
        &format!("adjust {name} {points} points because the test starts here"),
        when,
    );
}

/// Moves the ball by the moderator's override.
pub fn relocate(bot: &LocalBot, object: &str, rule: u32, when: Timestamp) {
    send(
        bot,
        MODERATOR,
        BOT,
        "[rule tag]",
        &format!("relocate {object} to {rule} because the test needs it there"),
        when,
    );
}

#[test]
fn elemental_tag_resolve_the_rules_own_example() {
    // "given three players with elements Earth, Air and Fire, on the same RTL: Air
    // gives Fire 15 points; Earth gives Air 15 points."
    let bot = started(&["Earl", "Ariel", "Phoebe"]);
    let day2 = nweek_start() + SignedDuration::from_hours(30);
    for name in ["Earl", "Ariel", "Phoebe"] {
        give_points(&bot, name, 50, day2);
    }
    send(&bot, &address("Ariel"), BOT, "[rule tag] element air", "", day2);
    send(&bot, &address("Phoebe"), BOT, "[rule tag]", "element fire", day2);
    for name in ["Earl", "Ariel", "Phoebe"] {
        send(
            &bot,
            &address(name),
            BOT,
            "[rule tag]",
            "move from null to 325",
            day2 + SignedDuration::from_mins(5),
        );
    }
    run_until(&bot, nweek_end() + SignedDuration::from_mins(1));
    assert_eq!(standing(&bot, "Earl"), ("Earth".into(), 325.into(), "35".into()));
    assert_eq!(standing(&bot, "Ariel"), ("Air".into(), 325.into(), "50".into()));
    assert_eq!(standing(&bot, "Phoebe"), ("Fire".into(), 325.into(), "65".into()));
    let results = announcements(&bot, "scores, the RTOs");
    assert_eq!(results.len(), 1, "one second notification");
    let body = &results[0].body;
    assert!(!body.contains("Earth beats"), "Earth and Fire are neutral: {body}");
    assert!(
        body.contains("Fire beats Air: Ariel gives Phoebe 15 points")
            && body.contains("Air beats Earth: Earl gives Ariel 15 points"),
        "{body}"
    );
}
