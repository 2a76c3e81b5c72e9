//! Regression tests of the hardening issue (mail found by a hostile player), each
//! named after its item, on the embedded Maildir transport: what a player and the
//! operator see (the mail sent, `state --json`, `inbox`).

use jiff::{SignedDuration, Timestamp};

use crate::support::{LocalBot, SentMail, at, message};

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";
const MODERATOR: &str = "mod@nomic.example";

/// A bot with a moderator, and the given keys of bot.toml set (`key = value`
/// lines replaced, wherever their section).
fn bot_with(settings: &[(&str, &str)]) -> LocalBot {
    let config = crate::support::trusting().replace(
        "moderators = []",
        &format!("moderators = [\"{MODERATOR}\"]"),
    );
    let config: Vec<String> = config
        .lines()
        .map(|line| {
            match settings
                .iter()
                .find(|(key, _)| line.starts_with(&format!("{key} =")))
            {
                Some((key, value)) => format!("{key} = {value}"),
                None => line.to_owned(),
            }
        })
        .collect();
    LocalBot::with_config(&config.join("\n"))
}

fn t0() -> Timestamp {
    at("2026-02-02T10:00:00Z")
}

/// Delivers one message per (from, to, subject, body), a second apart from
/// `start`, and runs one pass an hour later. Message `i` is `<s{i}.{start}@players.test>`.
fn play(bot: &LocalBot, start: Timestamp, script: &[(&str, &str, &str, &str)]) {
    for (index, (from, to, subject, body)) in script.iter().enumerate() {
        let when = start + SignedDuration::from_secs(index as i64);
        bot.deliver(
            &format!("m{index}.{}", start.as_second()),
            &message(from, to, subject, &id(start, index), body),
            when,
        );
    }
    bot.once(start + SignedDuration::from_hours(1));
}

fn id(start: Timestamp, index: usize) -> String {
    format!("s{index}.{}@players.test", start.as_second())
}

fn mail_to(bot: &LocalBot, address: &str) -> Vec<SentMail> {
    bot.sent_mail()
        .into_iter()
        .filter(|m| m.is_to(address))
        .collect()
}

/// A player's A$, as `state --json` shows it ("0" when none).
fn balance_of(bot: &LocalBot, name: &str) -> String {
    let state = bot.state_json();
    let players = state["players"]["players"].as_array().expect("players");
    let id = players
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no player {name}"))["id"]
        .to_string();
    state["accounts"]["balances"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|entry| {
            entry["currency"] == "A$" && entry["holder"].to_string().ends_with(&format!(":{id}}}"))
        })
        .map_or_else(
            || "0".to_owned(),
            |entry| entry["amount"].as_str().unwrap_or("?").to_owned(),
        )
}

/// Alice, Bob and Carol play; Alice and Carol have 20 A$ each.
fn three_players(bot: &LocalBot) {
    play(
        bot,
        t0(),
        &[
            ("alice@example.org", LIST, "[nomic] join Alice", ""),
            ("bob@example.org", LIST, "[nomic] join Bob", ""),
            ("carol@example.org", LIST, "[nomic] join Carol", ""),
            (
                MODERATOR,
                BOT,
                "[nomic]",
                "adjust Alice 20 A$ because a prize\nadjust Carol 20 A$ because a prize",
            ),
        ],
    );
}

#[test]
fn item_2_a_reply_does_not_rerun_the_command_in_its_subject() {
    let bot = bot_with(&[]);
    three_players(&bot);
    let start = t0() + SignedDuration::from_hours(2);
    play(
        &bot,
        start,
        &[
            // Alice pays Bob; Carol answers under the same subject.
            ("alice@example.org", LIST, "[nomic] give 5 A$ to Bob", ""),
            (
                "carol@example.org",
                LIST,
                "Re: [nomic] give 5 A$ to Bob",
                "Nice one!",
            ),
            // Every common form of reply and forward, in several languages.
            (
                "carol@example.org",
                LIST,
                "AW: [nomic] give 5 A$ to Bob",
                "",
            ),
            (
                "carol@example.org",
                LIST,
                "SV: [nomic] give 5 A$ to Bob",
                "",
            ),
            (
                "carol@example.org",
                LIST,
                "Odp: [nomic] give 5 A$ to Bob",
                "",
            ),
            (
                "carol@example.org",
                LIST,
                "RIF: [nomic] give 5 A$ to Bob",
                "",
            ),
            (
                "carol@example.org",
                LIST,
                "Réf. : [nomic] give 5 A$ to Bob",
                "",
            ),
            (
                "carol@example.org",
                LIST,
                "TR: [nomic] give 5 A$ to Bob",
                "",
            ),
            (
                "carol@example.org",
                LIST,
                "WG: [nomic] give 5 A$ to Bob",
                "",
            ),
            (
                "carol@example.org",
                LIST,
                "Fwd: [nomic] give 5 A$ to Bob",
                "",
            ),
            (
                "carol@example.org",
                LIST,
                "RV: [nomic] give 5 A$ to Bob",
                "",
            ),
            (
                "carol@example.org",
                LIST,
                "回复：[nomic] give 5 A$ to Bob",
                "",
            ),
            (
                "carol@example.org",
                LIST,
                "Re[2]: [nomic] give 5 A$ to Bob",
                "",
            ),
            (
                "carol@example.org",
                LIST,
                "Re: Re: [nomic] give 5 A$ to Bob",
                "",
            ),
            (
                "carol@example.org",
                LIST,
                "[game-list] Re: [nomic] give 5 A$ to Bob",
                "",
            ),
            (
                "carol@example.org",
                LIST,
                "[nomic] Re: give 5 A$ to Bob",
                "",
            ),
        ],
    );
    // An auto-responder without RFC 3834 headers answers Alice's payment: its
    // answer's answer is a reply again, so the loop stops at once.
    let start = start + SignedDuration::from_hours(2);
    for round in 0..3 {
        play(
            &bot,
            start + SignedDuration::from_mins(round),
            &[(
                "alice@example.org",
                BOT,
                "Re: [nomic] give 1 A$ to Bob",
                "I am out of the office.",
            )],
        );
    }

    // Bob got Alice's 5 A$ once, and nothing from Carol or the responder.
    assert_eq!(balance_of(&bot, "Bob"), "5");
    assert_eq!(balance_of(&bot, "Carol"), "20");
    assert_eq!(balance_of(&bot, "Alice"), "15");
    // The tag still routes a reply and its body's lines are read; "Nice one!"
    // is talk, not an attempt at a command, so it gets no answer at all (issue
    // 11, item 5; `item_2_a_reply_still_carries_commands_in_its_body` shows a
    // reply's commands carried out).
    let carol = mail_to(&bot, "carol@example.org");
    assert!(
        carol.iter().all(|m| {
            m.in_reply_to.as_deref() != Some(id(start - SignedDuration::from_hours(2), 1).as_str())
        }),
        "Carol's chatter is not answered"
    );
    assert!(bot.inbox_with_status("aside").contains("chatter"));
}

#[test]
fn item_2_a_reply_still_carries_commands_in_its_body() {
    let bot = bot_with(&[]);
    three_players(&bot);
    play(
        &bot,
        t0() + SignedDuration::from_hours(2),
        &[(
            "carol@example.org",
            LIST,
            "Re: [nomic] give 5 A$ to Bob",
            "give 2 A$ to Bob\n\nOn Mon, Alice wrote:\n> give 5 A$ to Bob\n",
        )],
    );
    assert_eq!(balance_of(&bot, "Carol"), "18");
    assert_eq!(balance_of(&bot, "Bob"), "2");
}

/// Delivers one raw message from Alice at `at` and runs a pass; the mail sent to her.
fn alice_sends(bot: &LocalBot, raw: &str, at: Timestamp) -> Vec<SentMail> {
    let before = mail_to(bot, "alice@example.org").len();
    bot.deliver(&format!("raw.{}", at.as_second()), raw, at);
    bot.once(at + SignedDuration::from_mins(1));
    mail_to(bot, "alice@example.org").split_off(before)
}

fn assert_not_read(answers: &[SentMail], why: &str) {
    assert_eq!(answers.len(), 1, "one short answer: {answers:#?}");
    let body = &answers[0].body;
    assert!(
        body.contains("was not read, and nothing in it was done"),
        "{body}"
    );
    assert!(body.contains(why), "{body}");
    assert!(
        answers[0].raw.len() < 4_000,
        "a short answer: {}",
        answers[0].raw.len()
    );
}

#[test]
fn item_4_a_message_of_too_many_lines_is_kept_aside_with_one_short_answer() {
    let bot = bot_with(&[]);
    three_players(&bot);
    let lines = "give 1 A$ to Bob\n".repeat(16 * 1024);
    let raw = message(
        "alice@example.org",
        BOT,
        "[nomic]",
        "many@example.org",
        &lines,
    );
    let answers = alice_sends(&bot, &raw, t0() + SignedDuration::from_hours(2));
    assert_not_read(
        &answers,
        "it has 16384 lines, and the bot reads up to 1000 lines",
    );
    assert_eq!(balance_of(&bot, "Bob"), "0", "nothing applied");
    let aside = bot.inbox_with_status("aside");
    assert!(aside.contains("not read: it has 16384 lines"), "{aside}");
}

#[test]
fn item_4_a_message_too_large_is_kept_aside_with_one_short_answer() {
    let bot = bot_with(&[]);
    three_players(&bot);
    // A command and a 3 MB attachment; and a 3 MB HTML message.
    let attachment = format!(
        "From: alice@example.org\r\nTo: {BOT}\r\nSubject: [nomic] give 1 A$ to Bob\r\n\
         Message-ID: <large@example.org>\r\nMIME-Version: 1.0\r\n\
         Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n\
         --b\r\nContent-Type: text/plain\r\n\r\ngive 1 A$ to Bob\r\n\
         --b\r\nContent-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n\r\n{}--b--\r\n",
        format!("{}\r\n", "Q".repeat(76)).repeat(40_000)
    );
    let answers = alice_sends(&bot, &attachment, t0() + SignedDuration::from_hours(2));
    assert_not_read(
        &answers,
        "bytes long, and the bot reads messages of up to 2000000 bytes",
    );
    let html = format!(
        "From: alice@example.org\r\nTo: {BOT}\r\nSubject: [nomic]\r\n\
         Message-ID: <html@example.org>\r\nContent-Type: text/html\r\n\r\n<html><body>{}</body></html>\r\n",
        "<div>give 1 A$ to Bob</div>\r\n".repeat(100_000)
    );
    let answers = alice_sends(&bot, &html, t0() + SignedDuration::from_hours(3));
    assert_not_read(&answers, "bytes long");
    assert_eq!(balance_of(&bot, "Bob"), "0", "nothing applied");
    let aside = bot.inbox_with_status("aside");
    assert_eq!(aside.matches("not read").count(), 2, "{aside}");
}

#[test]
fn item_4_the_limits_are_parameters_and_an_answer_too_large_is_not_sent() {
    let bot = bot_with(&[("max_command_lines", "3")]);
    three_players(&bot);
    let start = t0() + SignedDuration::from_hours(2);
    let four = "give 1 A$ to Bob\n".repeat(4);
    let answers = alice_sends(
        &bot,
        &message(
            "alice@example.org",
            BOT,
            "[nomic]",
            "four@example.org",
            &four,
        ),
        start,
    );
    assert_not_read(&answers, "it has 4 lines, and the bot reads up to 3 lines");
    // Within the limits, a message is read as ever.
    let three = "give 1 A$ to Bob\n".repeat(3);
    let answers = alice_sends(
        &bot,
        &message(
            "alice@example.org",
            BOT,
            "[nomic]",
            "three@example.org",
            &three,
        ),
        start + SignedDuration::from_mins(10),
    );
    assert_eq!(answers.len(), 1, "{answers:#?}");
    assert_eq!(balance_of(&bot, "Bob"), "3");

    // An answer larger than max_answer_bytes is not sent, and nothing is done.
    let bot = bot_with(&[("max_answer_bytes", "500")]);
    let answers = alice_sends(
        &bot,
        &message(
            "alice@example.org",
            BOT,
            "[nomic]",
            "join@example.org",
            "join Alice\nplayers\n",
        ),
        start,
    );
    assert_not_read(&answers, "its answer would be");
    let players = bot.state_json()["players"]["players"].clone();
    assert_eq!(players, serde_json::json!([]), "nothing done");
}

/// Everything the bot sent, as a reader compares it: all but the sending date.
fn sent_summary(
    bot: &LocalBot,
) -> std::collections::BTreeSet<(String, Vec<String>, String, String)> {
    bot.sent_mail()
        .into_iter()
        .map(|m| (m.message_id, m.to, m.subject, m.body))
        .collect()
}

#[test]
fn item_5_answers_past_the_daily_cap_are_gathered_in_one_digest_and_every_action_applies() {
    // Alice sends 15 payments in the morning, a minute apart, on top of her join.
    let payments: Vec<(Timestamp, String)> = (0..15)
        .map(|i| {
            let arrival = t0() + SignedDuration::from_hours(2) + SignedDuration::from_mins(i);
            let raw = message(
                "alice@example.org",
                BOT,
                "[nomic] give 1 A$ to Bob",
                &format!("pay{i}@example.org"),
                "",
            );
            (arrival, raw)
        })
        .collect();
    let next_day = at("2026-02-03T00:00:00Z");

    // A bot that runs after every message, and once more the next day.
    let always_up = bot_with(&[]);
    three_players(&always_up);
    for (index, (arrival, raw)) in payments.iter().enumerate() {
        always_up.deliver(&format!("pay{index}"), raw, *arrival);
        always_up.once(*arrival + SignedDuration::from_secs(30));
    }
    // Every payment applied; Alice got her join's answer and nine more, no more.
    assert_eq!(balance_of(&always_up, "Bob"), "15");
    let alice = mail_to(&always_up, "alice@example.org");
    assert_eq!(
        alice.len(),
        10,
        "{:#?}",
        alice.iter().map(|m| &m.subject).collect::<Vec<_>>()
    );
    let outbox = always_up.cli_ok(&["outbox"]);
    assert_eq!(outbox.matches("folded").count(), 6, "{outbox}");

    always_up.once(next_day + SignedDuration::from_mins(1));
    let alice = mail_to(&always_up, "alice@example.org");
    assert_eq!(alice.len(), 11, "one digest more");
    let digest = &alice[10];
    assert!(
        digest.subject.contains("Your answers of 2026-02-02"),
        "{}",
        digest.subject
    );
    assert!(
        digest.body.contains("These 6 answers of 2026-02-02"),
        "{}",
        digest.body
    );
    assert_eq!(digest.body.matches("\n==== ").count(), 6, "{}", digest.body);
    assert_eq!(digest.body.matches("Done.").count(), 6, "{}", digest.body);
    // Sent once: a later pass sends nothing more.
    always_up.once(next_day + SignedDuration::from_hours(5));
    assert_eq!(mail_to(&always_up, "alice@example.org").len(), 11);

    // A bot that was down all day and catches up the next day sends the same
    // mail, digest included: the cap counts by the messages' day, in arrival order.
    let was_down = bot_with(&[]);
    three_players(&was_down);
    for (index, (arrival, raw)) in payments.iter().enumerate() {
        was_down.deliver(&format!("pay{index}"), raw, *arrival);
    }
    was_down.once(next_day + SignedDuration::from_hours(5));
    assert_eq!(sent_summary(&was_down), sent_summary(&always_up));
    assert_eq!(was_down.state_json(), always_up.state_json());
}
