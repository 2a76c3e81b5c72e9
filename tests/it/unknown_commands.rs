//! Issue 24, item 9: a subject command the bot does not know is answered "Not
//! understood" with the command meant, and private mail to the bot with no tag
//! gets the list of tags; untagged mail on the list and chatter in a tagged reply
//! still get nothing.

use jiff::Timestamp;

use crate::support::{LocalBot, SentMail, at, message};

const BOT: &str = "bot@nomic.example";
const LIST: &str = "game-list@nomic.example";
const ALICE: &str = "Alice <alice@example.org>";

fn t0() -> Timestamp {
    at("2026-02-02T10:00:00Z")
}

/// A bot where Alice has joined, and the mail it sent for that left out.
fn with_alice() -> (LocalBot, usize) {
    let bot = LocalBot::new();
    bot.deliver(
        "join",
        &message(ALICE, BOT, "[nomic] join Alice", "join@t", ""),
        t0(),
    );
    bot.once(t0());
    let sent = bot.sent_mail().len();
    (bot, sent)
}

/// The mail sent to Alice, but for the answer to her `join`.
fn to_alice(bot: &LocalBot) -> Vec<SentMail> {
    bot.sent_mail()
        .into_iter()
        .filter(|mail| {
            mail.is_to("alice@example.org") && mail.in_reply_to.as_deref() != Some("join@t")
        })
        .collect()
}

#[test]
fn issue_24_item_9_a_misspelled_subject_command_is_not_understood_and_names_give() {
    let (bot, _) = with_alice();
    bot.deliver(
        "gvie",
        &message(ALICE, BOT, "[nomic] gvie 5 A$ to Bob", "gvie@t", ""),
        t0(),
    );
    bot.once(t0());
    let answers = to_alice(&bot);
    assert_eq!(answers.len(), 1, "{answers:#?}");
    let body = &answers[0].body;
    assert!(body.contains("> gvie 5 A$ to Bob"), "{body}");
    assert!(body.contains("Not understood"), "{body}");
    assert!(body.contains("Did you mean: give?"), "{body}");
}

#[test]
fn issue_24_item_9_a_misspelled_body_command_also_names_give() {
    let (bot, _) = with_alice();
    bot.deliver(
        "body",
        &message(
            ALICE,
            BOT,
            "[nomic] payment",
            "body@t",
            "gvie 5 A$ to Bob\n",
        ),
        t0(),
    );
    bot.once(t0());
    let answers = to_alice(&bot);
    assert_eq!(answers.len(), 1, "{answers:#?}");
    assert!(
        answers[0].body.contains("Did you mean: give?"),
        "{}",
        answers[0].body
    );
}

#[test]
fn issue_24_item_9_help_privately_with_no_tag_gets_every_tag() {
    let (bot, _) = with_alice();
    bot.deliver("subject", &message(ALICE, BOT, "help", "h1@t", ""), t0());
    bot.deliver("re", &message(ALICE, BOT, "Re: help", "h2@t", ""), t0());
    bot.deliver("body", &message(ALICE, BOT, "", "h3@t", "help\n"), t0());
    bot.once(t0());
    let answers = to_alice(&bot);
    assert_eq!(answers.len(), 3, "{answers:#?}");
    for answer in &answers {
        assert_eq!(
            answer.auto_submitted.as_deref(),
            Some("auto-replied"),
            "{}",
            answer.raw
        );
        for tag in nomicbot::games::known_tags()
            .iter()
            .filter(|tag| tag.as_str() != "help")
        {
            assert!(
                answer.body.contains(&format!("[{tag}]")),
                "no [{tag}] in:\n{}",
                answer.body
            );
        }
    }
    // The tags, and how to get one's commands: not every game's reference.
    assert!(
        answers[0].body.len() < 4_000,
        "{} bytes",
        answers[0].body.len()
    );
    assert!(
        answers[0].body.contains("\"[nomic] help\""),
        "{}",
        answers[0].body
    );
    assert!(!bot.inbox_with_status("aside").contains("no game tag"));
}

#[test]
fn issue_24_item_9_untagged_mail_on_the_list_gets_nothing() {
    let (bot, before) = with_alice();
    bot.deliver(
        "list",
        &message(ALICE, LIST, "help", "l1@t", "help\n"),
        t0(),
    );
    bot.deliver(
        "talk",
        &message(ALICE, LIST, "Lunch on Friday?", "l2@t", "Who is coming?\n"),
        t0(),
    );
    bot.once(t0());
    assert_eq!(bot.sent_mail().len(), before);
    let aside = bot.inbox_with_status("aside");
    assert_eq!(
        aside.matches("no game tag in the subject").count(),
        2,
        "{aside}"
    );
}

#[test]
fn issue_24_item_9_untagged_automatic_mail_gets_nothing() {
    let (bot, before) = with_alice();
    let raw = message(ALICE, BOT, "help", "auto@t", "help\n").replacen(
        "Message-ID: <auto@t>\r\n",
        "Message-ID: <auto@t>\r\nAuto-Submitted: auto-replied\r\n",
        1,
    );
    bot.deliver("auto", &raw, t0());
    bot.once(t0());
    assert_eq!(bot.sent_mail().len(), before);
}

#[test]
fn issue_24_item_9_chatter_in_a_tagged_reply_still_gets_nothing() {
    let (bot, before) = with_alice();
    bot.deliver(
        "chatter",
        &message(
            ALICE,
            LIST,
            "Re: [nomic] Alice joined the game",
            "c1@t",
            "Welcome aboard, Alice! See you around.\n",
        ),
        t0(),
    );
    bot.once(t0());
    assert_eq!(bot.sent_mail().len(), before);
}
#[test]
fn issue_24_item_9_untagged_private_talk_gets_the_tags_in_one_answer() {
    let (bot, _) = with_alice();
    bot.deliver(
        "talk",
        &message(
            ALICE,
            BOT,
            "hello there",
            "talk@t",
            "Hi bot, how do I play?\n",
        ),
        t0(),
    );
    bot.once(t0());
    let answers = to_alice(&bot);
    assert_eq!(answers.len(), 1, "{answers:#?}");
    assert!(
        answers[0].body.contains("no game tag in its subject"),
        "{}",
        answers[0].body
    );
    assert!(
        answers[0].body.contains("    [nomic]\n"),
        "{}",
        answers[0].body
    );
}
