//! Issue 23, item 8: automatic mail the bot used to answer, delivered through the
//! local bot. Each kind is kept aside as automatic and answered by nothing; a
//! player who only mentions being out of office is answered as always.

use jiff::{SignedDuration, Timestamp};

use crate::support::{LocalBot, at, message};

const BOT: &str = "bot@nomic.example";
const LIST: &str = "game-list@nomic.example";

fn t0() -> Timestamp {
    at("2026-02-02T10:00:00Z")
}

/// A responder's answer to Alice's `[nomic] join Alice`, with `headers` added
/// after the Message-ID.
fn responder(from: &str, to: &str, subject: &str, id: &str, headers: &str) -> String {
    message(
        from,
        to,
        subject,
        id,
        "join Mallory\nI am out of the office until Monday.\n",
    )
    .replacen(
        &format!("Message-ID: <{id}>\r\n"),
        &format!("Message-ID: <{id}>\r\n{headers}"),
        1,
    )
}

#[test]
fn issue_23_item_8_automatic_mail_is_kept_aside_and_never_answered() {
    let alice = "Alice <alice@example.org>";
    let kinds: Vec<(&str, String)> = vec![
        (
            "x-autoresponse",
            responder(
                alice,
                BOT,
                "Re: [nomic] join",
                "a1@t",
                "X-Autoresponse: yes\r\n",
            ),
        ),
        (
            "x-mail-autoreply",
            responder(
                alice,
                BOT,
                "Re: [nomic] join",
                "a2@t",
                "X-Mail-Autoreply: yes\r\n",
            ),
        ),
        (
            "x-fc-machinegenerated",
            responder(
                alice,
                BOT,
                "[nomic] join",
                "a3@t",
                "X-FC-MachineGenerated: true\r\n",
            ),
        ),
        (
            "exchange-generated",
            responder(
                alice,
                BOT,
                "[nomic] join",
                "a4@t",
                "X-MS-Exchange-Generated-Message-Source: Mailbox Rules Agent\r\n",
            ),
        ),
        (
            "x-loop-bot",
            responder(
                alice,
                BOT,
                "[nomic] join",
                "a5@t",
                &format!("X-Loop: {BOT}\r\n"),
            ),
        ),
        (
            "x-loop-list",
            responder(
                alice,
                BOT,
                "[nomic] join",
                "a6@t",
                &format!("X-Loop: {LIST}\r\n"),
            ),
        ),
        (
            "out-of-office-after-tag",
            responder(alice, BOT, "[nomic] Out of Office: join", "a7@t", ""),
        ),
        (
            "auto-reply-before-tag",
            responder(alice, LIST, "Auto-Reply: Re: [nomic] join", "a8@t", ""),
        ),
        (
            "on-vacation",
            responder(alice, BOT, "[nomic] I am on vacation", "a9@t", ""),
        ),
        (
            "automatic-reply",
            responder(alice, LIST, "Automatic reply: [nomic] join", "a10@t", ""),
        ),
        (
            "bot-plus-tag",
            responder(
                "bot+bounces@nomic.example",
                BOT,
                "[nomic] join",
                "a11@t",
                "",
            ),
        ),
        (
            "mailman-bounces",
            responder(
                "game-list-bounces+alice=example.org@nomic.example",
                BOT,
                "[nomic] join",
                "a12@t",
                "",
            ),
        ),
        (
            "mailman-owner",
            responder(
                "game-list-owner@nomic.example",
                BOT,
                "[nomic] join",
                "a13@t",
                "",
            ),
        ),
        (
            "mlmmj-bounces",
            responder(
                "game-list+bounces-alice=example.org@nomic.example",
                BOT,
                "[nomic] join",
                "a14@t",
                "",
            ),
        ),
        (
            "mlmmj-owner",
            responder(
                "game-list+owner@nomic.example",
                BOT,
                "[nomic] join",
                "a15@t",
                "",
            ),
        ),
    ];
    let bot = LocalBot::new();
    for (index, (name, raw)) in kinds.iter().enumerate() {
        bot.deliver(name, raw, t0() + SignedDuration::from_secs(index as i64));
    }
    bot.once(t0() + SignedDuration::from_hours(1));

    assert_eq!(bot.sent(), Vec::<String>::new(), "nothing is answered");
    let aside = bot.inbox_with_status("aside");
    assert_eq!(
        aside.matches("automatic mail, never answered").count(),
        kinds.len(),
        "{aside}"
    );
    for index in 1..=kinds.len() {
        assert!(
            aside.contains(&format!("a{index}@t")),
            "a{index}@t: {aside}"
        );
    }
    let state = bot.state_json();
    assert_eq!(
        state["players"]["players"].as_array().map(Vec::len),
        Some(0),
        "no responder joined anyone: {}",
        state["players"]
    );
}

#[test]
fn issue_23_item_8_a_player_who_mentions_out_of_office_is_answered() {
    let bot = LocalBot::new();
    bot.deliver(
        "alice",
        &message(
            "Alice <alice@example.org>",
            BOT,
            "[nomic] join Alice",
            "p1@t",
            "I am out of office next week, Auto-Reply: off.\n",
        ),
        t0(),
    );
    bot.once(t0() + SignedDuration::from_hours(1));
    let answers: Vec<_> = bot
        .sent_mail()
        .into_iter()
        .filter(|mail| mail.is_to("alice@example.org"))
        .collect();
    assert_eq!(answers.len(), 1, "{answers:#?}");
    assert_eq!(answers[0].in_reply_to.as_deref(), Some("p1@t"));
    assert!(
        !bot.inbox_with_status("aside").contains("p1@t"),
        "not kept aside"
    );
}
