//! Periodic reports and observers (issue 24, item 8): each office's report
//! goes to the list at its moment and again a period later, a report turned
//! off is not sent, none shows a sealed vote; `[nomic] observe GAME` gets a
//! non-player, once confirmed with the code mailed back, a private copy of the
//! game's announcements, and `unobserve` stops them.

use jiff::{SignedDuration, Timestamp};

use crate::support::{LocalBot, SentMail, at, message};

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";
const MODERATOR: &str = "mod@nomic.example";
const ALICE: &str = "alice@nomic.example";
const OUTSIDER: &str = "olga@elsewhere.example";

/// The shipped config with a moderator and the reports named turned on.
fn bot(reports_on: &[&str]) -> LocalBot {
    let mut config = crate::support::trusting().replace(
        "moderators = []",
        &format!("moderators = [\"{MODERATOR}\"]"),
    );
    for office in reports_on {
        config = config.replace(
            &format!("[reports.{office}]\non = false"),
            &format!("[reports.{office}]\non = true"),
        );
    }
    LocalBot::with_config(&config)
}

fn deliver(
    bot: &LocalBot,
    name: &str,
    from: &str,
    to: &str,
    subject: &str,
    body: &str,
    when: Timestamp,
) {
    let id = format!("{name}@players.test");
    bot.deliver(name, &message(from, to, subject, &id, body), when);
}

fn to_list(bot: &LocalBot) -> Vec<SentMail> {
    bot.sent_mail()
        .into_iter()
        .filter(|m| m.is_to(LIST))
        .collect()
}

fn reports(bot: &LocalBot) -> Vec<SentMail> {
    to_list(bot)
        .into_iter()
        .filter(|m| m.subject.contains("'s report of"))
        .collect()
}

/// Alice and Bob join on Monday 2 March 2026 at 09:00; the moderator enacts a
/// rule and opens a ballot, Alice votes on it privately.
fn monday_morning(bot: &LocalBot) {
    let start = at("2026-03-02T09:00:00Z");
    let mins = |n: i64| start + SignedDuration::from_mins(n);
    deliver(bot, "a", ALICE, LIST, "[nomic] join Alice", "", mins(0));
    deliver(
        bot,
        "b",
        "bob@nomic.example",
        LIST,
        "[nomic] join Bob",
        "",
        mins(1),
    );
    deliver(
        bot,
        "r",
        MODERATOR,
        BOT,
        "[ruleset]",
        "enact 901 Singing\nPlayers may sing.\nend",
        mins(2),
    );
    deliver(
        bot,
        "v",
        MODERATOR,
        LIST,
        "[vote] open Shall we sing?",
        "",
        mins(3),
    );
    deliver(bot, "y", ALICE, BOT, "[vote] yes", "", mins(4));
    bot.once(mins(10));
}

#[test]
fn each_offices_report_goes_to_the_list_at_its_time_and_a_week_later() {
    let bot = bot(&["registrar", "treasuror", "rulekeepor", "scorekeepor"]);
    monday_morning(&bot);
    assert!(reports(&bot).is_empty(), "no report before noon");
    bot.once(at("2026-03-02T12:30:00Z"));
    let sent = reports(&bot);
    let report = |office: &str| {
        sent.iter()
            .find(|m| {
                m.subject
                    .contains(&format!("The {office}'s report of 2026-03-02 12:00 UTC"))
            })
            .unwrap_or_else(|| {
                panic!(
                    "no {office}'s report: {:#?}",
                    sent.iter().map(|m| &m.subject).collect::<Vec<_>>()
                )
            })
            .clone()
    };
    let registrar = report("Registrar");
    assert!(
        registrar.subject.starts_with("[nomic]"),
        "{}",
        registrar.subject
    );
    assert!(
        registrar.body.contains("Alice, since 2026-03-02 09:00 UTC"),
        "{}",
        registrar.body
    );
    assert!(
        registrar.body.contains("2 players in all."),
        "{}",
        registrar.body
    );
    let treasuror = report("Treasuror");
    assert!(
        treasuror.body.contains("In points: the Treasury holds"),
        "{}",
        treasuror.body
    );
    assert!(treasuror.body.contains("    Bob: "), "{}", treasuror.body);
    let rulekeepor = report("Rulekeepor");
    assert!(
        rulekeepor.subject.starts_with("[ruleset]"),
        "{}",
        rulekeepor.subject
    );
    assert!(
        rulekeepor
            .body
            .contains("rule 901 \"Singing\" enacted (version 1) by mod@nomic.example"),
        "{}",
        rulekeepor.body
    );
    let scorekeepor = report("Scorekeepor");
    assert!(
        scorekeepor.body.contains("[vote] ballot 1: Shall we sing?"),
        "{}",
        scorekeepor.body
    );
    assert_eq!(sent.len(), 4, "one report per office");
    // Nothing more during the week; the next ones a week later.
    bot.once(at("2026-03-09T11:59:00Z"));
    assert_eq!(reports(&bot).len(), 4);
    bot.once(at("2026-03-09T12:01:00Z"));
    let sent = reports(&bot);
    assert_eq!(sent.len(), 8);
    assert!(
        sent.iter().any(|m| m
            .subject
            .contains("The Registrar's report of 2026-03-09 12:00 UTC")),
        "{:#?}",
        sent.iter().map(|m| &m.subject).collect::<Vec<_>>()
    );
    // The Rulekeepor's second week saw no change.
    let second = sent
        .iter()
        .find(|m| m.subject.contains("The Rulekeepor's report of 2026-03-09"))
        .unwrap();
    assert!(
        second.body.contains("None: the rules stand as they stood."),
        "{}",
        second.body
    );
}

#[test]
fn a_report_left_off_is_never_sent() {
    let bot = bot(&["treasuror"]);
    monday_morning(&bot);
    bot.once(at("2026-03-02T13:00:00Z"));
    bot.once(at("2026-03-10T00:00:00Z"));
    let subjects: Vec<String> = reports(&bot).into_iter().map(|m| m.subject).collect();
    assert_eq!(subjects.len(), 2, "{subjects:#?}");
    assert!(
        subjects.iter().all(|s| s.contains("Treasuror")),
        "{subjects:#?}"
    );
}

#[test]
fn the_scorekeepors_report_shows_no_sealed_vote() {
    let bot = bot(&["scorekeepor"]);
    monday_morning(&bot);
    bot.once(at("2026-03-02T12:30:00Z"));
    let report = reports(&bot).pop().expect("the Scorekeepor's report");
    assert!(report.body.contains("Shall we sing?"), "{}", report.body);
    assert!(
        !report.body.to_lowercase().contains("yes"),
        "{}",
        report.body
    );
}

/// The code in the answer to `observe GAME`.
fn observe_code(bot: &LocalBot, game: &str) -> String {
    let answer = bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to(OUTSIDER))
        .map(|m| m.body)
        .find(|body| body.contains("To confirm"))
        .expect("the answer with the code");
    let prefix = format!("\"observe {game} ");
    let at = answer.find(&prefix).expect("the line to send") + prefix.len();
    answer[at..at + 19].to_owned()
}

#[test]
fn an_observer_confirmed_by_code_gets_the_games_announcements_privately_until_unobserving() {
    let bot = bot(&[]);
    let start = at("2026-03-02T09:00:00Z");
    let mins = |n: i64| start + SignedDuration::from_mins(n);
    deliver(&bot, "a", ALICE, LIST, "[nomic] join Alice", "", mins(0));
    deliver(
        &bot,
        "o",
        OUTSIDER,
        BOT,
        "[nomic] observe vote",
        "",
        mins(1),
    );
    bot.once(mins(2));
    let code = observe_code(&bot, "vote");
    deliver(
        &bot,
        "c",
        OUTSIDER,
        BOT,
        "[nomic]",
        &format!("observe vote {code}"),
        mins(3),
    );
    deliver(
        &bot,
        "v",
        MODERATOR,
        LIST,
        "[vote] open Shall we sing?",
        "",
        mins(4),
    );
    deliver(&bot, "y", ALICE, BOT, "[vote] yes", "", mins(5));
    bot.once(mins(6));
    let observed: Vec<SentMail> = bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to(OUTSIDER) && m.subject.starts_with("[vote]"))
        .collect();
    assert_eq!(
        observed.len(),
        1,
        "{:#?}",
        observed.iter().map(|m| &m.subject).collect::<Vec<_>>()
    );
    // The copy is the announcement itself, to the observer alone.
    assert!(
        observed[0].subject.contains("Ballot 1"),
        "{}",
        observed[0].subject
    );
    assert!(!observed[0].is_to(LIST), "{:?}", observed[0].to);
    assert!(!observed[0].body.contains("Alice"), "{}", observed[0].body);
    let announcement = to_list(&bot)
        .into_iter()
        .find(|m| m.subject.contains("Ballot 1"))
        .unwrap();
    assert!(!announcement.is_to(OUTSIDER), "{:?}", announcement.to);
    // Unobserving stops the copies: the ballot's result comes to the list only.
    deliver(
        &bot,
        "u",
        OUTSIDER,
        BOT,
        "[nomic] unobserve vote",
        "",
        mins(7),
    );
    bot.once(mins(8));
    bot.once(at("2026-03-06T00:00:00Z"));
    assert!(
        to_list(&bot)
            .iter()
            .any(|m| m.subject.contains("Ballot 1 result")),
        "{:#?}",
        to_list(&bot).iter().map(|m| &m.subject).collect::<Vec<_>>()
    );
    let copies = bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to(OUTSIDER) && m.subject.starts_with("[vote]"))
        .count();
    assert_eq!(copies, 1);
}

#[test]
fn an_observe_request_never_confirmed_sends_only_its_one_answer() {
    let bot = bot(&[]);
    let start = at("2026-03-02T09:00:00Z");
    let mins = |n: i64| start + SignedDuration::from_mins(n);
    // A forger writes in Olga's name; Olga never confirms.
    deliver(
        &bot,
        "o",
        OUTSIDER,
        BOT,
        "[nomic] observe vote",
        "",
        mins(0),
    );
    deliver(
        &bot,
        "w",
        OUTSIDER,
        BOT,
        "[nomic] observe vote ABCD-EFGH-JKMN-PQRS",
        "",
        mins(1),
    );
    deliver(
        &bot,
        "v",
        MODERATOR,
        LIST,
        "[vote] open Shall we sing?",
        "",
        mins(2),
    );
    bot.once(mins(3));
    let to_olga: Vec<SentMail> = bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to(OUTSIDER))
        .collect();
    assert_eq!(
        to_olga.len(),
        2,
        "the request's answer and the wrong code's refusal"
    );
    assert!(
        to_olga[1].body.contains("not the code"),
        "{}",
        to_olga[1].body
    );
    assert!(to_olga.iter().all(|m| !m.subject.contains("Ballot")));
}

#[test]
fn a_player_is_told_the_list_brings_em_the_announcements_already() {
    let bot = bot(&[]);
    let start = at("2026-03-02T09:00:00Z");
    deliver(&bot, "a", ALICE, LIST, "[nomic] join Alice", "", start);
    deliver(
        &bot,
        "o",
        ALICE,
        BOT,
        "[nomic] observe ghost",
        "",
        start + SignedDuration::from_mins(1),
    );
    bot.once(start + SignedDuration::from_mins(2));
    let answer = bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to(ALICE) && !m.is_to(LIST))
        .map(|m| m.body)
        .next_back()
        .unwrap_or_default();
    assert!(answer.contains("you are a player, Alice"), "{answer}");
}
