//! `[bogusity]`, the Bogusity Hearing of Boons of the Ancients (Ackanomic rule
//! 1211 §8), through the real pipeline: mail into the inbox Maildir, `nomicbot
//! once`, the answers and announcements read back from the outbox. One test per
//! clause of §8, named after it, then the refusals a player meets and the penalty.

use jiff::{SignedDuration, Timestamp};

use crate::support::{LocalBot, SentMail, at, message};

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";
const MODERATOR: &str = "mod@nomic.example";
const ALICE: &str = "alice@nomic.example";
const BOB: &str = "bob@nomic.example";
const CAROL: &str = "carol@nomic.example";
const DAVE: &str = "dave@nomic.example";

const BOGUS: &str = "This loophole surfer is totally Bogus";
const COOL: &str = "Thats a pretty cool idea";

/// A bot with a moderator.
fn bot() -> LocalBot {
    let config = crate::support::trusting().replace(
        "moderators = []",
        &format!("moderators = [\"{MODERATOR}\"]"),
    );
    LocalBot::with_config(&config)
}

fn deliver(bot: &LocalBot, name: &str, from: &str, to: &str, subject: &str, when: Timestamp) {
    let id = format!("{name}@players.test");
    bot.deliver(name, &message(from, to, subject, &id, ""), when);
}

/// Alice, Bob, Carol and Dave join; Alice posts description 1 on the list.
/// Returns the moment it was posted.
fn described(bot: &LocalBot) -> Timestamp {
    let start = at("2026-03-02T09:00:00Z");
    for (i, name) in ["Alice", "Bob", "Carol", "Dave"].iter().enumerate() {
        let from = format!("{}@nomic.example", name.to_lowercase());
        deliver(
            bot,
            &format!("join-{name}"),
            &from,
            LIST,
            &format!("[nomic] join {name}"),
            start + SignedDuration::from_mins(i as i64),
        );
    }
    let posted = start + SignedDuration::from_mins(10);
    deliver(
        bot,
        "describe",
        ALICE,
        LIST,
        "[bogusity] describe An ancient relic: a golden donkey that brays at liars",
        posted,
    );
    bot.once(posted + SignedDuration::from_mins(1));
    posted
}

/// Bob calls the hearing on description 1 an hour after its posting; returns
/// the moment the hearing closes (three days later).
fn called(bot: &LocalBot, posted: Timestamp) -> Timestamp {
    let called = posted + SignedDuration::from_hours(1);
    deliver(bot, "call-bob", BOB, LIST, "[bogusity] call 1", called);
    bot.once(called + SignedDuration::from_mins(1));
    called + SignedDuration::from_hours(72)
}

/// `who` sends one `[bogusity]` line to the bot at `when`.
fn send(bot: &LocalBot, name: &str, who: &str, line: &str, when: Timestamp) {
    deliver(bot, name, who, BOT, &format!("[bogusity] {line}"), when);
}

/// The bodies of the answers `who` got.
fn answers(bot: &LocalBot, who: &str) -> Vec<String> {
    bot.sent_mail()
        .into_iter()
        .filter(|m| m.is_to(who))
        .map(|m| m.body)
        .collect()
}

fn assert_answered(bot: &LocalBot, who: &str, expected: &[&str]) {
    let answers = answers(bot, who);
    assert!(
        answers
            .iter()
            .any(|body| expected.iter().all(|e| body.contains(e))),
        "no answer to {who} contains {expected:?}:\n{answers:#?}"
    );
}

/// The mail to the list whose subject contains `subject`.
fn announced(bot: &LocalBot, subject: &str) -> Vec<SentMail> {
    bot.sent_mail()
        .into_iter()
        .filter(|m| m.is_to(LIST) && m.subject.contains(subject))
        .collect()
}

/// Every accounts transfer in the event log, with its cause.
fn transfers(bot: &LocalBot) -> Vec<serde_json::Value> {
    bot.log_json()
        .into_iter()
        .filter(|r| r["event"]["game"] == "accounts" && r["event"]["kind"] == "transferred")
        .collect()
}

fn alices_points(bot: &LocalBot) -> String {
    let state = bot.state_json();
    state["accounts"]["balances"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|b| b["currency"] == "points" && b["holder"]["player"] == 1)
        .map_or("0".to_owned(), |b| {
            b["amount"].as_str().unwrap_or("?").to_owned()
        })
}

#[test]
fn any_player_may_call_a_bogusity_hearing_within_three_days_of_a_description_being_posted() {
    let bot = bot();
    let posted = described(&bot);
    let description = announced(&bot, "Description 1 of a Must Describe Boon");
    assert_eq!(description.len(), 1);
    assert!(
        description[0]
            .body
            .contains("a golden donkey that brays at liars")
            && description[0].body.contains("call 1"),
        "{}",
        description[0].body
    );
    // Carol calls with a minute to spare.
    let late_but_in_time = posted + SignedDuration::from_hours(72) - SignedDuration::from_mins(1);
    deliver(
        &bot,
        "call-carol",
        CAROL,
        LIST,
        "[bogusity] call 1",
        late_but_in_time,
    );
    bot.once(late_but_in_time + SignedDuration::from_mins(1));
    assert_answered(
        &bot,
        CAROL,
        &["You called the Bogusity Hearing on description 1"],
    );
    let hearing = announced(&bot, "Bogusity Hearing on description 1");
    assert_eq!(hearing.len(), 1);
    for expected in [
        BOGUS,
        COOL,
        "Carol called a Bogusity Hearing",
        "Alice, who described the Boon, may not",
    ] {
        assert!(
            hearing[0].body.contains(expected),
            "{expected:?} in {}",
            hearing[0].body
        );
    }
    assert_eq!(
        bot.state_json()["bogusity"]["descriptions"][0]["hearing"]["called_by_name"],
        "Carol"
    );
}

#[test]
fn a_call_after_three_days_is_refused() {
    let bot = bot();
    let posted = described(&bot);
    let three_days = posted + SignedDuration::from_hours(72);
    send(&bot, "call-bob", BOB, "call 1", three_days);
    bot.once(three_days + SignedDuration::from_mins(1));
    assert_answered(
        &bot,
        BOB,
        &[
            "Refused",
            "only within three days",
            &nomicbot::engine::human_time(three_days),
        ],
    );
    assert!(announced(&bot, "Bogusity Hearing on").is_empty());
    assert!(bot.state_json()["bogusity"]["descriptions"][0]["hearing"].is_null());
}

#[test]
fn only_one_such_hearing_may_be_called_per_boon() {
    let bot = bot();
    let posted = described(&bot);
    called(&bot, posted);
    send(
        &bot,
        "call-carol",
        CAROL,
        "call 1",
        posted + SignedDuration::from_hours(2),
    );
    bot.once(posted + SignedDuration::from_hours(3));
    assert_answered(
        &bot,
        CAROL,
        &[
            "Refused",
            "only one Bogusity Hearing may be called per Boon",
            "Bob called",
        ],
    );
    assert_eq!(
        announced(&bot, "Bogusity Hearing on description 1").len(),
        1
    );
    assert_eq!(
        bot.state_json()["bogusity"]["descriptions"][0]["hearing"]["called_by_name"],
        "Bob"
    );
}

#[test]
fn the_player_who_described_the_boon_may_not_vote_in_the_hearing() {
    let bot = bot();
    let posted = described(&bot);
    let closes = called(&bot, posted);
    send(
        &bot,
        "alice-votes",
        ALICE,
        COOL,
        posted + SignedDuration::from_hours(2),
    );
    send(
        &bot,
        "bob-votes",
        BOB,
        BOGUS,
        posted + SignedDuration::from_hours(3),
    );
    bot.once(closes + SignedDuration::from_mins(1));
    assert_answered(
        &bot,
        ALICE,
        &[
            "Refused",
            "the player who described the Boon may not vote in the hearing",
            "not counted",
        ],
    );
    let result = announced(&bot, "Bogusity Hearing 1");
    assert_eq!(result.len(), 1);
    assert!(
        result[0].subject.contains("1 to 0"),
        "{}",
        result[0].subject
    );
    assert!(!result[0].body.contains("Alice: "), "{}", result[0].body);
}

#[test]
fn the_valid_responses_to_the_bogusity_hearing_are_the_two_the_rule_quotes() {
    let bot = bot();
    let posted = described(&bot);
    let closes = called(&bot, posted);
    let hour = |n| posted + SignedDuration::from_hours(n);
    send(
        &bot,
        "bob-apostrophe",
        BOB,
        "That's a pretty cool idea!",
        hour(2),
    );
    // A line that is neither, in the body (as a subject, "yes" is only a subject).
    let yes = message(
        BOB,
        BOT,
        "[bogusity] my response",
        "bob-yes@players.test",
        "yes",
    );
    bot.deliver("bob-yes", &yes, hour(2) + SignedDuration::from_mins(1));
    send(&bot, "carol-bogus", CAROL, BOGUS, hour(3));
    send(&bot, "dave-cool", DAVE, &format!("\"{COOL}\""), hour(4));
    bot.once(closes + SignedDuration::from_mins(1));
    assert_answered(
        &bot,
        BOB,
        &[
            "Refused",
            "is not a valid response",
            &format!("send \"{COOL}\""),
        ],
    );
    assert_answered(&bot, BOB, &["Not understood", "no [bogusity] command"]);
    assert_answered(&bot, CAROL, &[&format!("is \"{BOGUS}\"")]);
    assert_answered(&bot, DAVE, &[&format!("is \"{COOL}\"")]);
    // One of each: a tie, which is no result of "Bogus".
    let result = announced(&bot, "Bogusity Hearing 1");
    assert!(
        result[0].subject.contains("the Boon is not Bogus, 1 to 1"),
        "{}",
        result[0].subject
    );
    assert!(result[0].body.contains("tied"), "{}", result[0].body);
    assert!(transfers(&bot).is_empty());
}

#[test]
fn if_the_result_is_the_former_the_boon_is_found_to_be_bogus_and_the_player_who_described_it_loses_11_points()
 {
    let bot = bot();
    let posted = described(&bot);
    let closes = called(&bot, posted);
    let hour = |n| posted + SignedDuration::from_hours(n);
    send(&bot, "bob-votes", BOB, BOGUS, hour(2));
    send(&bot, "carol-votes", CAROL, COOL, hour(3));
    send(&bot, "dave-votes", DAVE, BOGUS, hour(4));
    // Carol changes her mind: her last response counts.
    send(&bot, "carol-again", CAROL, &format!("1 {BOGUS}"), hour(5));
    bot.once(closes + SignedDuration::from_hours(1));
    let result = announced(&bot, "Bogusity Hearing 1");
    assert_eq!(result.len(), 1);
    assert!(
        result[0].subject.contains("the Boon is Bogus, 3 to 0"),
        "{}",
        result[0].subject
    );
    for expected in [
        "The hearing closed at its deadline",
        "the Boon is found to be Bogus, and Alice",
        "loses 11 points (now -11 points)",
        "Carol: This loophole surfer is totally Bogus",
    ] {
        assert!(
            result[0].body.contains(expected),
            "{expected:?} in {}",
            result[0].body
        );
    }
    assert_eq!(alices_points(&bot), "-11");
    // The charge is the deadline's, in the same step as the finding.
    let log = bot.log_json();
    let closed = log
        .iter()
        .find(|r| r["event"]["kind"] == "hearing_closed")
        .expect("the hearing closed");
    let charged = &transfers(&bot)[0];
    assert_eq!(closed["at"], closes.to_string().as_str());
    assert_eq!(charged["cause"], closed["cause"]);
    assert_eq!(charged["event"]["amount"], "11");
    assert_eq!(charged["event"]["to"], "nowhere");
}

#[test]
fn a_non_player_may_not_call_a_hearing() {
    let bot = bot();
    let posted = described(&bot);
    let stranger = "mallory@elsewhere.example";
    deliver(
        &bot,
        "call-mallory",
        stranger,
        LIST,
        "[bogusity] call 1",
        posted + SignedDuration::from_hours(1),
    );
    bot.once(posted + SignedDuration::from_hours(2));
    assert_answered(
        &bot,
        stranger,
        &["Refused", "is not the address of any player"],
    );
    assert!(announced(&bot, "Bogusity Hearing on").is_empty());
}

#[test]
fn the_penalty_is_applied_exactly_once_and_replay_agrees() {
    let bot = bot();
    let posted = described(&bot);
    let closes = called(&bot, posted);
    send(
        &bot,
        "bob-votes",
        BOB,
        BOGUS,
        posted + SignedDuration::from_hours(2),
    );
    bot.once(closes + SignedDuration::from_mins(1));
    // After the result: a moderator's close, another call, passes long after.
    send(
        &bot,
        "close",
        MODERATOR,
        "close 1 because again",
        closes + SignedDuration::from_hours(1),
    );
    send(
        &bot,
        "call-again",
        CAROL,
        "call 1",
        closes + SignedDuration::from_hours(2),
    );
    bot.once(closes + SignedDuration::from_hours(3));
    bot.once(closes + SignedDuration::from_hours(24 * 30));
    assert_answered(&bot, MODERATOR, &["Refused", "is closed already"]);
    assert_answered(&bot, CAROL, &["Refused", "only within three days"]);
    assert_eq!(transfers(&bot).len(), 1, "{:#?}", transfers(&bot));
    assert_eq!(announced(&bot, "Bogusity Hearing 1").len(), 1);
    assert_eq!(alices_points(&bot), "-11");
    let replay = bot.cli_ok(&["replay"]);
    assert!(replay.contains("equals the live state"), "{replay}");
}

#[test]
fn a_moderator_may_close_a_hearing_early_and_the_list_is_told_why() {
    let bot = bot();
    let posted = described(&bot);
    let closes = called(&bot, posted);
    send(
        &bot,
        "dave-votes",
        DAVE,
        COOL,
        posted + SignedDuration::from_hours(2),
    );
    let early = posted + SignedDuration::from_hours(5);
    send(
        &bot,
        "close-carol",
        CAROL,
        "close 1 because I am bored",
        early,
    );
    deliver(
        &bot,
        "close",
        MODERATOR,
        LIST,
        "[bogusity] close 1 because the relic was never bestowed",
        early + SignedDuration::from_mins(1),
    );
    bot.once(early + SignedDuration::from_mins(2));
    assert_answered(&bot, CAROL, &["Refused", "only a moderator"]);
    let result = announced(&bot, "Bogusity Hearing 1");
    assert_eq!(result.len(), 1);
    assert!(
        result[0].subject.contains("closed early by a moderator"),
        "{}",
        result[0].subject
    );
    assert!(
        result[0].body.contains(MODERATOR)
            && result[0].body.contains("the relic was never bestowed"),
        "{}",
        result[0].body
    );
    // The deadline is gone: nothing more at the old one.
    bot.once(closes + SignedDuration::from_hours(1));
    assert_eq!(announced(&bot, "Bogusity Hearing 1").len(), 1);
}

#[test]
fn status_and_help_answer_by_return_mail() {
    let bot = bot();
    let posted = described(&bot);
    called(&bot, posted);
    send(
        &bot,
        "status",
        DAVE,
        "status",
        posted + SignedDuration::from_hours(2),
    );
    send(
        &bot,
        "help",
        DAVE,
        "help",
        posted + SignedDuration::from_hours(3),
    );
    bot.once(posted + SignedDuration::from_hours(4));
    assert_answered(
        &bot,
        DAVE,
        &[
            "1: An ancient relic, described by Alice",
            "hearing called by Bob",
        ],
    );
    assert_answered(&bot, DAVE, &["Commands under [bogusity]", "call N"]);
}
