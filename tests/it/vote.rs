//! `[vote]`, secret ballots by mail: the first game on the substrate's schedule,
//! reminders and sealed actions. Each test is a clause of issue 3 items 4 and 7.

use jiff::SignedDuration;

use crate::support::{LocalBot, at, message};

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";
const MODERATOR: &str = "mod@nomic.example";

fn bot() -> LocalBot {
    let config = crate::support::trusting().replace(
        "moderators = []",
        &format!("moderators = [\"{MODERATOR}\"]"),
    );
    LocalBot::with_config(&config)
}

fn deliver(
    bot: &LocalBot,
    name: &str,
    from: &str,
    to: &str,
    subject: &str,
    body: &str,
    when: jiff::Timestamp,
) {
    let id = format!("{name}@players.test");
    bot.deliver(name, &message(from, to, subject, &id, body), when);
}

/// The outbox in the order the bot wrote it: (template, recipients, raw).
fn outbox(bot: &LocalBot) -> Vec<(String, String, String)> {
    let rows: serde_json::Value =
        serde_json::from_str(&bot.cli_ok(&["outbox", "--json"])).expect("json");
    let sent = bot.sent();
    rows.as_array()
        .expect("rows")
        .iter()
        .map(|row| {
            let id = row["message_id"].as_str().expect("id").to_owned();
            let raw = sent
                .iter()
                .find(|m| m.contains(&id))
                .cloned()
                .unwrap_or_default();
            (
                row["template"].as_str().expect("template").to_owned(),
                row["recipients"].to_string(),
                raw,
            )
        })
        .collect()
}

/// Opens ballot 1 at `opened`, with three players; Alice and Bob vote, Carol does not.
fn ballot_with_votes(bot: &LocalBot) -> jiff::Timestamp {
    let start = at("2026-03-02T09:00:00Z");
    for (i, who) in ["alice", "bob", "carol"].iter().enumerate() {
        let name = format!("{}{}", who[..1].to_uppercase(), &who[1..]);
        deliver(
            bot,
            &format!("join-{who}"),
            &format!("{who}@nomic.example"),
            LIST,
            &format!("[nomic] join {name}"),
            "",
            start + SignedDuration::from_mins(i as i64),
        );
    }
    let opened = start + SignedDuration::from_mins(10);
    deliver(
        bot,
        "open",
        MODERATOR,
        LIST,
        "[vote] open Shall we adopt rule 326?",
        "",
        opened,
    );
    deliver(
        bot,
        "vote-alice",
        "alice@nomic.example",
        BOT,
        "[vote] yes",
        "",
        opened + SignedDuration::from_hours(1),
    );
    deliver(
        bot,
        "vote-bob-public",
        "bob@nomic.example",
        LIST,
        "[vote] yes",
        "",
        opened + SignedDuration::from_hours(2),
    );
    deliver(
        bot,
        "vote-bob",
        "bob@nomic.example",
        BOT,
        "[vote]",
        "no",
        opened + SignedDuration::from_hours(3),
    );
    bot.once(opened + SignedDuration::from_hours(4));
    opened
}

#[test]
fn a_vote_on_the_list_is_refused_and_a_private_vote_is_sealed_without_a_public_word() {
    let bot = bot();
    ballot_with_votes(&bot);
    let to_bob: Vec<_> = bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to("bob@nomic.example"))
        .map(|m| m.body)
        .collect();
    assert!(
        to_bob.iter().any(
            |b| b.contains("Refused") && b.contains("came through the list")
                || b.contains("to the bot alone")
        ),
        "{to_bob:#?}"
    );
    // Nothing public says how anyone voted before the deadline.
    for mail in bot.sent_mail().into_iter().filter(|m| m.is_to(LIST)) {
        assert!(
            !mail.body.contains("\"no\"") && !mail.body.to_lowercase().contains("bob voted"),
            "{}",
            mail.body
        );
    }
    let state = bot.state_json();
    assert!(
        state.to_string().contains("(sealed)"),
        "state shows sealed actions as sealed: {state}"
    );
}

#[test]
fn the_ballot_deadline_fires_exactly_three_days_after_the_opening_message_and_before_later_mail() {
    let bot = bot();
    let opened = ballot_with_votes(&bot);
    let deadline = opened + SignedDuration::from_hours(72);
    // Alice tries again a minute after the deadline; the bot runs once, a day later.
    deliver(
        &bot,
        "late",
        "alice@nomic.example",
        BOT,
        "[vote] no",
        "",
        deadline + SignedDuration::from_mins(1),
    );
    bot.once(deadline + SignedDuration::from_hours(24));

    let log = bot.log_json();
    let deadline_text = deadline.to_string();
    let closed = log
        .iter()
        .position(|r| r["event"]["kind"] == "closed")
        .expect("the ballot closed");
    assert_eq!(
        log[closed]["at"],
        deadline_text.as_str(),
        "resolved at exactly the deadline"
    );
    let committed = log
        .iter()
        .position(|r| r["event"]["kind"] == "committed")
        .expect("commitments");
    assert_eq!(log[committed]["at"], deadline_text.as_str());
    let revealed = log
        .iter()
        .position(|r| r["event"]["kind"] == "revealed")
        .expect("reveal");
    assert!(
        committed < revealed && revealed <= closed,
        "commitments before the reveal"
    );
    assert!(
        log.iter()
            .all(|r| r["cause"].as_str() != Some("mail:<late@players.test>")),
        "the late vote changes nothing"
    );
    let to_alice: Vec<String> = bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to("alice@nomic.example"))
        .map(|m| m.body)
        .collect();
    assert!(
        to_alice
            .iter()
            .any(|b| b.contains("Refused") && b.contains(&nomicbot::engine::human_time(deadline))),
        "the late vote is refused, naming the deadline: {to_alice:#?}"
    );

    let order: Vec<String> = outbox(&bot).into_iter().map(|(t, _, _)| t).collect();
    let c = order
        .iter()
        .position(|t| t == "sealed_commitments")
        .expect("commitments mail");
    let r = order
        .iter()
        .position(|t| t == "sealed_reveal")
        .expect("reveal mail");
    let v = order
        .iter()
        .position(|t| t == "vote_result")
        .expect("result mail");
    assert!(c < r && r < v, "{order:?}");
    let result = outbox(&bot)
        .into_iter()
        .find(|(t, _, _)| t == "vote_result")
        .expect("result")
        .2;
    assert!(
        result.contains("Yes: 1") && result.contains("No:  1"),
        "{result}"
    );
}

#[test]
fn a_player_who_has_not_voted_is_reminded_a_day_before_and_no_stale_reminder_follows_a_downtime() {
    let bot = bot();
    let opened = ballot_with_votes(&bot);
    bot.once(opened + SignedDuration::from_hours(48) + SignedDuration::from_mins(1));
    let reminded: Vec<_> = outbox(&bot)
        .into_iter()
        .filter(|(t, _, _)| t == "reminder")
        .collect();
    assert_eq!(reminded.len(), 1, "only Carol has not voted: {reminded:?}");
    assert!(reminded[0].1.contains("carol@nomic.example"));

    // A second bot, down from before the reminder until after the deadline, sends none.
    let down = bot_after_downtime();
    let reminders = outbox(&down)
        .into_iter()
        .filter(|(t, _, _)| t == "reminder")
        .count();
    assert_eq!(
        reminders, 0,
        "a reminder whose deadline has passed is not sent"
    );
    assert!(
        outbox(&down).iter().any(|(t, _, _)| t == "vote_result"),
        "the deadline itself still fires"
    );
}

fn bot_after_downtime() -> LocalBot {
    let bot = bot();
    let opened = ballot_with_votes(&bot);
    bot.once(opened + SignedDuration::from_hours(100));
    bot
}

#[test]
fn verify_sealed_checks_the_archived_mail_and_catches_an_action_changed_after_the_deadline() {
    let bot = bot();
    let opened = ballot_with_votes(&bot);
    bot.once(opened + SignedDuration::from_hours(73));
    let mails = outbox(&bot);
    let commitments = &mails
        .iter()
        .find(|(t, _, _)| t == "sealed_commitments")
        .expect("commitments")
        .2;
    let reveal = &mails
        .iter()
        .find(|(t, _, _)| t == "sealed_reveal")
        .expect("reveal")
        .2;
    let dir = bot.dir.path();
    std::fs::write(dir.join("commitments.eml"), commitments).expect("write");
    std::fs::write(dir.join("reveal.eml"), reveal).expect("write");
    let ok = bot.cli(
        &["verify-sealed", "commitments.eml", "reveal.eml"]
            .map(|f| {
                if f.ends_with(".eml") {
                    dir.join(f).display().to_string()
                } else {
                    f.to_owned()
                }
            })
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stdout)
    );
    assert!(String::from_utf8_lossy(&ok.stdout).contains("2 sealed action(s)"));

    // Bob's "no" becomes "yes" in the reveal, as if changed after the deadline.
    let forged = reveal.replace("text \"no\"", "text \"yes\"");
    assert_ne!(
        &forged, reveal,
        "the reveal lists Bob's action as text \"no\""
    );
    std::fs::write(dir.join("reveal.eml"), forged).expect("write");
    let bad = bot.cli(&[
        "verify-sealed",
        &dir.join("commitments.eml").display().to_string(),
        &dir.join("reveal.eml").display().to_string(),
    ]);
    assert!(!bad.status.success());
    assert!(
        String::from_utf8_lossy(&bad.stdout).contains("Bob"),
        "{}",
        String::from_utf8_lossy(&bad.stdout)
    );
}

#[test]
fn a_moderator_may_force_the_result_early_and_it_is_announced_with_the_reason() {
    let bot = bot();
    let opened = ballot_with_votes(&bot);
    deliver(
        &bot,
        "close",
        MODERATOR,
        LIST,
        "[vote]",
        "close 1 because everyone has voted who will",
        opened + SignedDuration::from_hours(5),
    );
    deliver(
        &bot,
        "too-late",
        "carol@nomic.example",
        BOT,
        "[vote] yes",
        "",
        opened + SignedDuration::from_hours(6),
    );
    bot.once(opened + SignedDuration::from_hours(7));
    let order: Vec<String> = outbox(&bot).into_iter().map(|(t, _, _)| t).collect();
    let c = order
        .iter()
        .position(|t| t == "sealed_commitments")
        .expect("commitments");
    let r = order
        .iter()
        .position(|t| t == "sealed_reveal")
        .expect("reveal");
    assert!(c < r);
    let result = outbox(&bot)
        .into_iter()
        .find(|(t, _, _)| t == "vote_result")
        .expect("result")
        .2;
    assert!(
        result.contains("everyone has voted who will") && result.contains(MODERATOR),
        "{result}"
    );
    // The schedule is clear: no reminder, no second resolution at the old deadline.
    bot.once(opened + SignedDuration::from_hours(100));
    let order: Vec<String> = outbox(&bot).into_iter().map(|(t, _, _)| t).collect();
    assert_eq!(
        order.iter().filter(|t| *t == "vote_result").count(),
        1,
        "{order:?}"
    );
    assert_eq!(
        order.iter().filter(|t| *t == "reminder").count(),
        0,
        "{order:?}"
    );
}

#[test]
fn an_officer_who_asked_for_copies_of_private_actions_gets_them_and_nobody_else_does() {
    let config = crate::support::trusting()
        .replace(
            "moderators = []",
            &format!("moderators = [\"{MODERATOR}\"]"),
        )
        .replace(
            "copy_private_to = []",
            &format!("copy_private_to = [\"{MODERATOR}\"]"),
        );
    let bot = LocalBot::with_config(&config);
    ballot_with_votes(&bot);
    let copies: Vec<_> = bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to(MODERATOR) && m.subject.contains("Copy:"))
        .collect();
    // Alice's and Bob's private votes; Bob's public attempt was refused and is no action.
    assert_eq!(
        copies.len(),
        2,
        "{:#?}",
        copies.iter().map(|m| &m.subject).collect::<Vec<_>>()
    );
    assert!(
        copies
            .iter()
            .any(|m| m.subject.contains("bob@nomic.example") && m.body.contains("> no"))
    );
    // Without the setting, no copies.
    let plain = bot_plain_copies();
    assert_eq!(plain, 0);
}

fn bot_plain_copies() -> usize {
    let bot = bot();
    ballot_with_votes(&bot);
    bot.sent_mail()
        .into_iter()
        .filter(|m| m.subject.contains("Copy:"))
        .count()
}

/// Issue 9, item 3: a moderator's private `as Alice because ...: no` is as secret
/// as Alice's own vote. The list hears that a moderator acted for Alice, never
/// the vote, until the reveal; the vote counts in the tally.
#[test]
fn a_moderators_private_vote_for_a_player_is_as_secret_as_the_players_own() {
    let bot = bot();
    let opened = ballot_with_votes(&bot);
    deliver(
        &bot,
        "as-carol",
        MODERATOR,
        BOT,
        "[vote] as Carol because she phoned: no",
        "",
        opened + SignedDuration::from_hours(5),
    );
    bot.once(opened + SignedDuration::from_hours(6));
    let to_moderator: Vec<_> = bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to(MODERATOR))
        .map(|m| m.body)
        .collect();
    assert!(
        to_moderator
            .iter()
            .any(|b| b.contains("Done") && b.contains("Carol")),
        "{to_moderator:#?}"
    );
    let public: Vec<_> = bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to(LIST))
        .collect();
    let notice = public
        .iter()
        .find(|m| m.body.contains("Carol") && m.body.contains("she phoned"))
        .unwrap_or_else(|| panic!("the override is announced with its reason: {public:#?}"));
    assert!(
        !notice.body.contains(": no") && !notice.body.contains("\"no\""),
        "the vote reached the list before the reveal:\n{}",
        notice.body
    );
    // At the deadline the reveal shows it, and it counts: Alice yes, Bob no, Carol no.
    bot.once(opened + SignedDuration::from_hours(24 * 4));
    let subjects: Vec<String> = bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to(LIST))
        .map(|m| m.subject)
        .collect();
    assert!(
        subjects
            .iter()
            .any(|s| s.contains("Ballot 1 result: 1 yes, 2 no")),
        "{subjects:#?}"
    );
}

/// Issue 11, "A vote with the list in Bcc": the vote reached the bot privately
/// and was sealed; when the list later delivers the same message to everyone,
/// the voter is told their vote went public. It stands, and is not counted twice.
#[test]
fn a_vote_with_the_list_in_bcc_tells_the_voter_it_went_public() {
    let config = crate::support::trusting()
        .replace(
            "moderators = []",
            &format!("moderators = [\"{MODERATOR}\"]"),
        )
        .replace(
            "# list_id = \"game-list.nomic.example\"",
            "list_id = \"game-list.nomic.example\"",
        );
    let bot = LocalBot::with_config(&config);
    let opened = ballot_with_votes(&bot);
    let before = bot.state_json()["games"]["votes"].to_string();
    let told_before = bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to("alice@nomic.example"))
        .count();

    // The list's copy of Alice's private vote: same Message-ID, through the list.
    let echo = message(
        "alice@nomic.example",
        BOT,
        "[vote] yes",
        "vote-alice@players.test",
        "",
    )
    .replacen(
        "To: ",
        "List-Id: The game <game-list.nomic.example>\r\nPrecedence: list\r\nTo: ",
        1,
    );
    bot.deliver(
        "vote-alice-echo",
        &echo,
        opened + SignedDuration::from_hours(5),
    );
    bot.once(opened + SignedDuration::from_hours(6));

    let to_alice: Vec<_> = bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to("alice@nomic.example"))
        .collect();
    assert_eq!(to_alice.len(), told_before + 1, "one notice: {to_alice:#?}");
    let notice = to_alice.last().expect("notice");
    assert_eq!(
        notice.subject,
        "[vote] Your private message went to the whole list"
    );
    assert!(
        notice.body.contains("What it did stands"),
        "{}",
        notice.body
    );
    assert!(
        bot.sent_mail()
            .iter()
            .all(|m| !m.is_to(LIST) || !m.body.contains("went to the whole list")),
        "the notice is private"
    );
    assert_eq!(
        bot.state_json()["games"]["votes"].to_string(),
        before,
        "the vote is neither undone nor counted twice"
    );
    let duplicates = bot.inbox_with_status("duplicate");
    assert!(duplicates.contains("its sender was told"), "{duplicates}");

    // The same copy again (a second delivery by the list) tells nobody twice.
    bot.deliver(
        "vote-alice-echo-2",
        &echo,
        opened + SignedDuration::from_hours(7),
    );
    bot.once(opened + SignedDuration::from_hours(8));
    let again = bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to("alice@nomic.example"))
        .count();
    assert_eq!(again, told_before + 1, "told once");
}
