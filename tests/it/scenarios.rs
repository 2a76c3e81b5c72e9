//! Scenario tests of the player registry (issue 2) on the embedded Maildir
//! transport: players' mail goes into the inbox Maildir with a delivery time,
//! `nomicbot once --now` runs, and the tests read what a user would see: the
//! mail in the outbox Maildir, `state --json`, `log --json`, `inbox`.

use std::collections::{BTreeSet, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};

use jiff::{SignedDuration, Timestamp};

use crate::support::{LocalBot, SentMail, alias_code, at, message};

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";

/// The start of every scenario: Monday morning.
fn t0() -> Timestamp {
    at("2026-01-05T10:00:00Z")
}

fn hours(n: i64) -> Timestamp {
    t0() + SignedDuration::from_hours(n)
}

fn minutes(n: i64) -> Timestamp {
    t0() + SignedDuration::from_mins(n)
}

/// Delivers one message at `arrival`, runs one pass a minute later, and returns
/// the mail that pass sent.
fn exchange(bot: &LocalBot, raw: &str, arrival: Timestamp) -> Vec<SentMail> {
    let before = sent_ids(bot);
    deliver(bot, raw, arrival);
    bot.once(arrival + SignedDuration::from_mins(1));
    bot.sent_mail()
        .into_iter()
        .filter(|m| !before.contains(&m.message_id))
        .collect()
}

fn deliver(bot: &LocalBot, raw: &str, arrival: Timestamp) {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let name = format!("m{}", COUNTER.fetch_add(1, Ordering::Relaxed));
    bot.deliver(&name, raw, arrival);
}

fn sent_ids(bot: &LocalBot) -> HashSet<String> {
    bot.sent_mail().into_iter().map(|m| m.message_id).collect()
}

/// A message with extra header lines (each ending in `\r\n`) before the others.
fn with_headers(extra: &str, raw: &str) -> String {
    format!("{extra}{raw}")
}

/// The answer to the message `message_id`, sent privately to `address`.
fn answer_to<'a>(mail: &'a [SentMail], address: &str, message_id: &str) -> &'a SentMail {
    let answers: Vec<&SentMail> = mail
        .iter()
        .filter(|m| m.is_to(address) && m.in_reply_to.as_deref() == Some(message_id))
        .collect();
    assert_eq!(
        answers.len(),
        1,
        "expected one answer to <{message_id}> for {address}, got: {mail:#?}"
    );
    answers[0]
}

fn to_the_list(mail: &[SentMail]) -> Vec<&SentMail> {
    mail.iter().filter(|m| m.is_to(LIST)).collect()
}

/// The result the answer gives for one quoted command line: the text after
/// `> LINE` up to the next blank line.
fn result_of<'a>(body: &'a str, line: &str) -> &'a str {
    let quoted = format!("> {line}\n");
    let start = body
        .find(&quoted)
        .unwrap_or_else(|| panic!("the answer does not quote {line:?}:\n{body}"))
        + quoted.len();
    let rest = &body[start..];
    rest[..rest.find("\n\n").unwrap_or(rest.len())].trim()
}

/// The command lines the answer quotes, in order.
fn quoted_lines(body: &str) -> Vec<&str> {
    body.lines().filter_map(|l| l.strip_prefix("> ")).collect()
}

/// Active players' names, from `state --json`.
fn active_players(bot: &LocalBot) -> Vec<String> {
    let state = bot.state_json();
    state["players"]["players"]
        .as_array()
        .expect("state has players.players")
        .iter()
        .filter(|p| p["left_at"].is_null())
        .map(|p| p["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The player called `name` in `state --json`.
fn player(bot: &LocalBot, name: &str) -> serde_json::Value {
    let state = bot.state_json();
    state["players"]["players"]
        .as_array()
        .and_then(|players| players.iter().find(|p| p["name"] == name).cloned())
        .unwrap_or_else(|| panic!("no player {name} in {state:#}"))
}

fn event_kinds(bot: &LocalBot) -> Vec<String> {
    bot.log_json()
        .iter()
        .map(|r| r["event"]["kind"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn joining_on_the_list_confirms_to_the_player_and_announces_to_the_list() {
    let bot = LocalBot::new();
    let raw = message(
        "Alice <alice@example.org>",
        LIST,
        "[nomic] join Alice",
        "join-1@example.org",
        "",
    );
    let mail = exchange(&bot, &raw, t0());

    assert_eq!(
        mail.len(),
        2,
        "one confirmation and one announcement: {mail:#?}"
    );
    let answer = answer_to(&mail, "alice@example.org", "join-1@example.org");
    assert_eq!(answer.from, BOT);
    assert_eq!(answer.subject, "Re: [nomic] join Alice");
    assert_eq!(answer.auto_submitted.as_deref(), Some("auto-replied"));
    assert!(
        answer.references.iter().any(|r| r == "join-1@example.org"),
        "{:?}",
        answer.references
    );
    assert!(answer.body.contains("(on the list)"), "{}", answer.body);
    let result = result_of(&answer.body, "join Alice");
    assert!(
        result.starts_with("Done.") && result.contains("Welcome, Alice"),
        "{result}"
    );

    let announcements = to_the_list(&mail);
    assert_eq!(announcements.len(), 1);
    let announcement = announcements[0];
    assert!(
        announcement.subject.starts_with("[nomic]"),
        "{}",
        announcement.subject
    );
    // Issue "Headers of the bot's own mail": the list's copy answers nobody.
    assert_eq!(
        announcement.auto_submitted.as_deref(),
        Some("auto-generated")
    );
    assert!(
        announcement.subject.contains("Alice joined"),
        "{}",
        announcement.subject
    );
    assert!(
        announcement
            .body
            .contains("Alice joined the game at 2026-01-05 10:00 UTC"),
        "{}",
        announcement.body
    );
    assert!(
        announcement.body.contains("There is now 1 player."),
        "{}",
        announcement.body
    );
    assert!(!announcement.is_to("alice@example.org"));

    assert_eq!(active_players(&bot), ["Alice"]);
    assert_eq!(player(&bot, "Alice")["address"], "alice@example.org");
    let text = bot.cli_ok(&["state"]);
    assert!(text.contains("Alice <alice@example.org>"), "{text}");
}

#[test]
fn a_join_sent_to_the_bot_alone_is_answered_as_private_and_still_announced() {
    let bot = LocalBot::new();
    let raw = message(
        "Bob <bob@example.org>",
        BOT,
        "[nomic] join Bob",
        "join-bob@example.org",
        "",
    );
    let mail = exchange(&bot, &raw, t0());

    let answer = answer_to(&mail, "bob@example.org", "join-bob@example.org");
    assert!(answer.body.contains("(to the bot)"), "{}", answer.body);
    assert!(!answer.body.contains("on the list"), "{}", answer.body);
    // Who plays is public: the list hears of a join however it was sent.
    let announcements = to_the_list(&mail);
    assert_eq!(announcements.len(), 1, "{mail:#?}");
    assert!(
        announcements[0].body.contains("Bob joined the game"),
        "{}",
        announcements[0].body
    );
    assert_eq!(active_players(&bot), ["Bob"]);
}

#[test]
fn every_subject_form_of_the_tag_routes_to_the_registry() {
    let bot = LocalBot::new();
    let forms = [
        ("alice@example.org", "[Nomic] join Alice", ""),
        // A reply's subject is no command (hardening item 2): its body is.
        (
            "bob@example.org",
            "Re: [game-list] [nomic] hello",
            "join Bob",
        ),
        ("carol@example.org", "[ nomic ]", "join Carol"),
        (
            "dave@example.org",
            "RE: Re[2]: [NOMIC]   join Carol",
            "join Dave",
        ),
    ];
    for (index, (from, subject, body)) in forms.iter().enumerate() {
        let id = format!("form-{index}@example.org");
        let mail = exchange(
            &bot,
            &message(from, LIST, subject, &id, body),
            minutes(index as i64),
        );
        let answer = answer_to(&mail, from, &id);
        assert!(
            answer.body.contains("Done. Welcome,"),
            "{subject:?}: {}",
            answer.body
        );
    }
    assert_eq!(active_players(&bot), ["Alice", "Bob", "Carol", "Dave"]);
}

#[test]
fn a_subject_command_repeated_as_the_first_body_line_is_applied_once() {
    let bot = LocalBot::new();
    let raw = message(
        "alice@example.org",
        LIST,
        "[nomic] join Alice",
        "repeat@example.org",
        "join  alice\nplayers\n",
    );
    let mail = exchange(&bot, &raw, t0());

    let answer = answer_to(&mail, "alice@example.org", "repeat@example.org");
    assert_eq!(
        quoted_lines(&answer.body),
        ["join Alice", "players"],
        "{}",
        answer.body
    );
    assert!(!answer.body.contains("Refused"), "{}", answer.body);
    assert!(
        result_of(&answer.body, "players").contains("Alice <alice@example.org>"),
        "{}",
        answer.body
    );
    assert_eq!(event_kinds(&bot), ["joined"]);
    assert_eq!(to_the_list(&mail).len(), 1);
}

#[test]
fn several_commands_are_applied_in_order_and_each_is_reported() {
    let bot = LocalBot::new();
    let body = "join Alice\nrename Alicia\ndance a jig\njoin Bob\nalias nonsense\nplayers\n";
    let raw = message(
        "alice@example.org",
        BOT,
        "[nomic] my moves",
        "several@example.org",
        body,
    );
    let mail = exchange(&bot, &raw, t0());

    let answer = answer_to(&mail, "alice@example.org", "several@example.org");
    let body = &answer.body;
    assert_eq!(
        quoted_lines(body),
        [
            "join Alice",
            "rename Alicia",
            "dance a jig",
            "join Bob",
            "alias nonsense",
            "players"
        ],
        "every line is reported, in the order written:\n{body}"
    );
    assert!(
        result_of(body, "join Alice").starts_with("Done. Welcome, Alice"),
        "{body}"
    );
    // The rename sees the join of the line before it.
    assert!(
        result_of(body, "rename Alicia").starts_with("Done. You are now called Alicia"),
        "{body}"
    );
    assert!(
        result_of(body, "dance a jig").starts_with("Not understood"),
        "{body}"
    );
    assert!(
        result_of(body, "dance a jig").contains("join NAME"),
        "the answer says what would be valid:\n{body}"
    );
    let refused_join = result_of(body, "join Bob");
    assert!(
        refused_join.starts_with("Refused") && refused_join.contains("already a player, as Alicia"),
        "{body}"
    );
    let refused_alias = result_of(body, "alias nonsense");
    assert!(
        refused_alias.starts_with("Refused") && refused_alias.contains("not an e-mail address"),
        "{body}"
    );
    assert!(
        result_of(body, "players").contains("Alicia <alice@example.org>"),
        "{body}"
    );
    assert!(
        body.contains("In all: 3 done, 2 refused, 1 not understood."),
        "{body}"
    );

    let announcements: Vec<&str> = to_the_list(&mail)
        .iter()
        .map(|m| m.subject.as_str())
        .collect();
    assert_eq!(announcements.len(), 2, "{announcements:?}");
    assert!(
        announcements.iter().any(|s| s.contains("Alice joined")),
        "{announcements:?}"
    );
    assert!(
        announcements
            .iter()
            .any(|s| s.contains("Alice is now called Alicia")),
        "{announcements:?}"
    );
    assert_eq!(active_players(&bot), ["Alicia"]);
}

#[test]
fn quoted_lines_signatures_and_reply_headers_are_not_commands() {
    let bot = LocalBot::new();
    let alice = message(
        "alice@example.org",
        LIST,
        "Re: [nomic] joining",
        "quoted@example.org",
        "> Bob wrote earlier:\n> leave\njoin Alice\n> join Mallory\n\n-- \nAlice Example\nrename Zed\nhttps://alice.example.org\n",
    );
    let mail = exchange(&bot, &alice, t0());
    let answer = answer_to(&mail, "alice@example.org", "quoted@example.org");
    assert_eq!(
        quoted_lines(&answer.body),
        ["join Alice"],
        "{}",
        answer.body
    );
    assert!(!answer.body.contains("Not understood"), "{}", answer.body);

    let bob = message(
        "bob@example.org",
        LIST,
        "Re: [nomic] joining",
        "attribution@example.org",
        "join Bob\n\nOn Mon, 5 Jan 2026 at 10:00, Alice Example <alice@example.org>\nwrote:\njoin Mallory\nleave\n> dance\n",
    );
    let mail = exchange(&bot, &bob, minutes(5));
    let answer = answer_to(&mail, "bob@example.org", "attribution@example.org");
    assert_eq!(quoted_lines(&answer.body), ["join Bob"], "{}", answer.body);
    assert!(!answer.body.contains("Not understood"), "{}", answer.body);

    assert_eq!(active_players(&bot), ["Alice", "Bob"]);
}

#[test]
fn a_tagged_message_without_a_command_gets_the_help_text() {
    let bot = LocalBot::new();
    let raw = message(
        "alice@example.org",
        LIST,
        "[nomic]",
        "chat@example.org",
        "Hi all, how do I play?\n",
    );
    let mail = exchange(&bot, &raw, t0());
    let answer = answer_to(&mail, "alice@example.org", "chat@example.org");
    assert!(
        result_of(&answer.body, "Hi all, how do I play?").starts_with("Not understood"),
        "{}",
        answer.body
    );
    assert!(
        answer.body.contains("Commands under [nomic]"),
        "{}",
        answer.body
    );
    assert!(answer.body.contains("join NAME"), "{}", answer.body);

    // A subject that is no command and an empty body: the help alone.
    let raw = message(
        "bob@example.org",
        LIST,
        "[nomic] hello everyone",
        "hello@example.org",
        "",
    );
    let mail = exchange(&bot, &raw, minutes(5));
    let answer = answer_to(&mail, "bob@example.org", "hello@example.org");
    assert!(
        answer.body.contains("Commands under [nomic]"),
        "{}",
        answer.body
    );
    assert!(bot.log_json().is_empty());
}

#[test]
fn help_asked_for_by_tag_or_by_line_gets_the_command_reference() {
    let bot = LocalBot::new();
    let cases = [
        ("alice@example.org", "[help]", ""),
        ("bob@example.org", "[nomic] help", ""),
        ("carol@example.org", "[nomic]", "help"),
    ];
    for (index, (from, subject, body)) in cases.iter().enumerate() {
        let id = format!("help-{index}@example.org");
        let mail = exchange(
            &bot,
            &message(from, BOT, subject, &id, body),
            minutes(index as i64),
        );
        let answer = answer_to(&mail, from, &id);
        assert!(
            answer.body.contains("Commands under [nomic]"),
            "{subject:?} / {body:?}:\n{}",
            answer.body
        );
        assert!(answer.body.contains("alias ADDRESS"), "{}", answer.body);
        assert!(!answer.body.contains("Not understood"), "{}", answer.body);
    }
    assert!(bot.log_json().is_empty(), "help changes nothing");
}

#[test]
fn a_dmarc_rewritten_from_is_answered_to_the_real_player() {
    let bot = LocalBot::new();
    let raw = with_headers(
        "Reply-To: Alice <Alice@Example.org>\r\n",
        &message(
            "\"Alice via game-list\" <game-list@nomic.example>",
            LIST,
            "[nomic] join Alice",
            "dmarc@example.org",
            "",
        ),
    );
    let mail = exchange(&bot, &raw, t0());
    let answer = answer_to(&mail, "alice@example.org", "dmarc@example.org");
    assert!(
        answer.body.contains("Done. Welcome, Alice"),
        "{}",
        answer.body
    );
    // The only mail to the list is the announcement: the answer is not sent there.
    assert_eq!(to_the_list(&mail).len(), 1, "{mail:#?}");
    assert_eq!(player(&bot, "Alice")["address"], "alice@example.org");
}

#[test]
fn x_original_from_names_the_player_when_reply_to_is_the_list() {
    let bot = LocalBot::new();
    let raw = with_headers(
        "Reply-To: game-list@nomic.example\r\nX-Original-From: Bob <bob@example.org>\r\n",
        &message(
            "\"Bob via game-list\" <game-list@nomic.example>",
            LIST,
            "[nomic] join Bob",
            "xof@example.org",
            "",
        ),
    );
    let mail = exchange(&bot, &raw, t0());
    let answer = answer_to(&mail, "bob@example.org", "xof@example.org");
    assert!(
        answer.body.contains("Done. Welcome, Bob"),
        "{}",
        answer.body
    );
    assert_eq!(player(&bot, "Bob")["address"], "bob@example.org");
}

#[test]
fn an_auto_replied_message_gets_no_answer_and_is_kept_aside_with_the_reason() {
    let bot = LocalBot::new();
    let raw = with_headers(
        "Auto-Submitted: auto-replied\r\n",
        &message(
            "alice@example.org",
            BOT,
            "Re: [nomic] dance",
            "vacation@example.org",
            "I am away until Monday.\n",
        ),
    );
    let mail = exchange(&bot, &raw, t0());
    assert!(
        mail.is_empty(),
        "an automatic message is never answered: {mail:#?}"
    );
    assert!(bot.sent().is_empty());
    let aside = bot.inbox_with_status("aside");
    assert_eq!(aside.lines().count(), 1, "{aside}");
    assert!(
        aside.contains("<vacation@example.org>") && aside.contains("automatic"),
        "{aside}"
    );
    assert!(bot.log_json().is_empty());
}

#[test]
fn a_bounce_gets_no_answer() {
    let bot = LocalBot::new();
    let raw = "From: Mail Delivery System <MAILER-DAEMON@mx.example.org>\r\n\
               To: bot@nomic.example\r\n\
               Subject: [nomic] Undelivered Mail Returned to Sender\r\n\
               Message-ID: <bounce-1@mx.example.org>\r\n\
               Date: Mon, 5 Jan 2026 10:00:00 +0000\r\n\
               MIME-Version: 1.0\r\n\
               Content-Type: multipart/report; report-type=delivery-status; boundary=\"b1\"\r\n\
               \r\n\
               --b1\r\n\
               Content-Type: text/plain; charset=us-ascii\r\n\
               \r\n\
               join Mailer\r\n\
               This is the mail system. Your message could not be delivered.\r\n\
               \r\n\
               --b1\r\n\
               Content-Type: message/delivery-status\r\n\
               \r\n\
               Reporting-MTA: dns; mx.example.org\r\n\
               \r\n\
               Final-Recipient: rfc822; nobody@example.org\r\n\
               Action: failed\r\n\
               Status: 5.1.1\r\n\
               \r\n\
               --b1--\r\n";
    let mail = exchange(&bot, raw, t0());
    assert!(mail.is_empty(), "a bounce is never answered: {mail:#?}");
    assert!(active_players(&bot).is_empty());
    let aside = bot.inbox_with_status("aside");
    assert!(
        aside.contains("<bounce-1@mx.example.org>: "),
        "kept aside with a reason: {aside}"
    );
}

#[test]
fn the_bots_own_announcement_coming_back_through_the_list_is_not_answered() {
    let bot = LocalBot::new();
    let join = message(
        "alice@example.org",
        BOT,
        "[nomic] join Alice",
        "own-1@example.org",
        "",
    );
    let mail = exchange(&bot, &join, t0());
    let announcement = to_the_list(&mail)[0].clone();
    let events_before = bot.log_json();

    // The list strips every X- header and Auto-Submitted, and rewrites From to
    // itself; only the Message-ID shows that this is the bot's own mail.
    let copy = format!(
        "From: \"nomicbot via game-list\" <game-list@nomic.example>\r\nReply-To: game-list@nomic.example\r\n\
         To: game-list@nomic.example\r\nSubject: {}\r\nMessage-ID: <{}>\r\nList-Id: <game-list.nomic.example>\r\n\
         Date: Mon, 5 Jan 2026 10:01:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{}",
        announcement.subject,
        announcement.message_id,
        announcement.body.replace('\n', "\r\n")
    );
    let mail = exchange(&bot, &copy, minutes(2));
    assert!(
        mail.is_empty(),
        "the bot answered its own announcement: {mail:#?}"
    );
    assert_eq!(bot.log_json(), events_before);
    let aside = bot.inbox_with_status("aside");
    assert!(aside.contains(&announcement.message_id), "{aside}");
    assert!(
        aside.contains("own mail"),
        "the reason says it is the bot's own mail: {aside}"
    );
}

#[test]
fn mail_from_the_bot_address_is_not_answered() {
    let bot = LocalBot::new();
    let raw = message(
        "nomicbot <Bot@Nomic.Example>",
        LIST,
        "[nomic] join Nomicbot",
        "relayed@relay.example",
        "",
    );
    let mail = exchange(&bot, &raw, t0());
    assert!(mail.is_empty(), "{mail:#?}");
    assert!(active_players(&bot).is_empty());
    let aside = bot.inbox_with_status("aside");
    assert!(
        aside.contains("<relayed@relay.example>: ") && aside.contains("own mail"),
        "{aside}"
    );
}

#[test]
fn rename_alias_confirm_players_and_leave_by_mail() {
    let bot = LocalBot::new();
    exchange(
        &bot,
        &message(
            "Alice <alice@example.org>",
            LIST,
            "[nomic] join Alice",
            "a1@example.org",
            "",
        ),
        hours(0),
    );
    exchange(
        &bot,
        &message(
            "Bob <bob@example.org>",
            LIST,
            "[nomic] join Bob",
            "b1@example.org",
            "",
        ),
        hours(0) + SignedDuration::from_mins(30),
    );

    let mail = exchange(
        &bot,
        &message(
            "alice@example.org",
            LIST,
            "[nomic] rename Alicia",
            "a2@example.org",
            "",
        ),
        hours(1),
    );
    assert!(
        answer_to(&mail, "alice@example.org", "a2@example.org")
            .body
            .contains("Done. You are now called Alicia")
    );
    let announcement = to_the_list(&mail);
    assert_eq!(announcement.len(), 1);
    assert!(
        announcement[0]
            .body
            .contains("formerly called Alice is called Alicia"),
        "{}",
        announcement[0].body
    );

    let mail = exchange(
        &bot,
        &message(
            "alice@example.org",
            BOT,
            "[nomic] alias alice@work.example",
            "a3@example.org",
            "",
        ),
        hours(2),
    );
    // Two mails go to the main address in this thread: the answer, and the code.
    let answers: Vec<&SentMail> = mail
        .iter()
        .filter(|m| m.is_to("alice@example.org") && m.subject.starts_with("Re: "))
        .collect();
    assert_eq!(answers.len(), 1, "{mail:#?}");
    let answer = answers[0];
    assert!(
        answer
            .body
            .contains("confirmation request went to alice@work.example"),
        "{}",
        answer.body
    );
    assert!(
        answer.body.contains("2026-01-08 12:00 UTC"),
        "the answer names the deadline: {}",
        answer.body
    );
    let request: Vec<&SentMail> = mail
        .iter()
        .filter(|m| m.is_to("alice@work.example"))
        .collect();
    assert_eq!(request.len(), 1, "{mail:#?}");
    assert!(
        request[0].body.contains("Alicia (<alice@example.org>)"),
        "{}",
        request[0].body
    );
    assert!(
        to_the_list(&mail).is_empty(),
        "an alias request is private: {mail:#?}"
    );
    // The player's own confirmation: a code mailed to the main address only.
    let codes: Vec<(&SentMail, String)> = mail
        .iter()
        .filter_map(|m| alias_code(m).map(|code| (m, code)))
        .collect();
    assert_eq!(codes.len(), 1, "{mail:#?}");
    let (to_alicia, code) = &codes[0];
    assert_eq!(to_alicia.to, ["alice@example.org"]);
    assert!(
        to_alicia
            .body
            .contains("A message sent with your address as its sender\n(alice@example.org) asked"),
        "{}",
        to_alicia.body
    );

    // A stranger cannot confirm someone else's alias.
    let mail = exchange(
        &bot,
        &message(
            "mallory@evil.example",
            BOT,
            "[nomic] confirm",
            "m1@evil.example",
            "",
        ),
        hours(3),
    );
    let refusal = answer_to(&mail, "mallory@evil.example", "m1@evil.example");
    assert!(
        result_of(&refusal.body, "confirm")
            .starts_with("Refused: no player asked to add mallory@evil.example"),
        "{}",
        refusal.body
    );
    assert!(
        !mail.iter().any(|m| m.is_to("alice@example.org")),
        "{mail:#?}"
    );

    let mail = exchange(
        &bot,
        &message(
            "Alice at work <alice@work.example>",
            BOT,
            "Re: [nomic] Is alice@work.example an address of Alicia?",
            "w1@work.example",
            "confirm",
        ),
        hours(4),
    );
    let answer = answer_to(&mail, "alice@work.example", "w1@work.example");
    assert!(
        answer
            .body
            .contains("Done. Confirmed from alice@work.example. It becomes an address of Alicia once the player also confirms"),
        "{}",
        answer.body
    );
    assert_eq!(mail.len(), 1, "{mail:#?}");
    assert_eq!(player(&bot, "Alicia")["aliases"], serde_json::json!([]));

    // Alicia confirms last, from her main address, with the code.
    let mail = exchange(
        &bot,
        &message(
            "alice@example.org",
            BOT,
            &format!("[nomic] confirm {code}"),
            "a3b@example.org",
            "",
        ),
        hours(4) + SignedDuration::from_mins(30),
    );
    let answer = answer_to(&mail, "alice@example.org", "a3b@example.org");
    assert!(
        answer
            .body
            .contains("Done. alice@work.example is now an address of Alicia"),
        "{}",
        answer.body
    );
    assert_eq!(mail.len(), 1, "the answer is the notice: {mail:#?}");
    assert_eq!(
        player(&bot, "Alicia")["aliases"],
        serde_json::json!(["alice@work.example"])
    );

    // The alias now counts as Alicia: the roster by return mail, to the alias.
    let mail = exchange(
        &bot,
        &message(
            "alice@work.example",
            BOT,
            "[nomic] players",
            "w2@work.example",
            "",
        ),
        hours(5),
    );
    assert_eq!(mail.len(), 1, "the roster is private: {mail:#?}");
    let roster = result_of(
        &answer_to(&mail, "alice@work.example", "w2@work.example").body,
        "players",
    )
    .to_owned();
    assert!(roster.contains("The players (2)"), "{roster}");
    assert!(
        roster.contains("Alicia <alice@example.org> (also alice@work.example)"),
        "{roster}"
    );
    assert!(roster.contains("Bob <bob@example.org>"), "{roster}");

    let mail = exchange(
        &bot,
        &message(
            "alice@work.example",
            LIST,
            "[nomic] leave",
            "w3@work.example",
            "",
        ),
        hours(6),
    );
    assert!(
        answer_to(&mail, "alice@work.example", "w3@work.example")
            .body
            .contains("Done. You have left the game, Alicia")
    );
    let announcement = to_the_list(&mail);
    assert_eq!(announcement.len(), 1);
    assert!(
        announcement[0].body.contains("Alicia left the game"),
        "{}",
        announcement[0].body
    );
    assert!(
        announcement[0].body.contains("There is now 1 player."),
        "{}",
        announcement[0].body
    );
    assert_eq!(active_players(&bot), ["Bob"]);

    // Leaving again is refused, with the reason.
    let mail = exchange(
        &bot,
        &message(
            "alice@example.org",
            BOT,
            "[nomic] leave",
            "a4@example.org",
            "",
        ),
        hours(7),
    );
    let refusal = answer_to(&mail, "alice@example.org", "a4@example.org");
    assert!(
        result_of(&refusal.body, "leave")
            .starts_with("Refused: alice@example.org is not the address of any player"),
        "{}",
        refusal.body
    );
}

#[test]
fn an_alias_request_expires_after_72_hours_before_a_later_message_is_applied() {
    let bot = LocalBot::new();
    exchange(
        &bot,
        &message(
            "alice@example.org",
            LIST,
            "[nomic] join Alice",
            "x1@example.org",
            "",
        ),
        hours(0),
    );
    exchange(
        &bot,
        &message(
            "alice@example.org",
            BOT,
            "[nomic] alias alice@other.example",
            "x2@example.org",
            "",
        ),
        hours(1),
    );
    assert_eq!(
        bot.state_json()["players"]["pending_aliases"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );

    // The confirmation arrives an hour too late; the bot only runs after it arrived.
    deliver(
        &bot,
        &message(
            "alice@other.example",
            BOT,
            "[nomic] confirm",
            "late@other.example",
            "",
        ),
        hours(74),
    );
    let before = sent_ids(&bot);
    bot.once(hours(75));
    let mail: Vec<SentMail> = bot
        .sent_mail()
        .into_iter()
        .filter(|m| !before.contains(&m.message_id))
        .collect();

    let expired: Vec<&SentMail> = mail
        .iter()
        .filter(|m| m.is_to("alice@example.org"))
        .collect();
    assert_eq!(expired.len(), 1, "the player is told: {mail:#?}");
    assert!(
        expired[0].subject.contains("alice@other.example expired"),
        "{}",
        expired[0].subject
    );
    assert!(
        expired[0]
            .body
            .contains("Alice, your request of 2026-01-05 11:00 UTC"),
        "{}",
        expired[0].body
    );
    assert_eq!(expired[0].auto_submitted.as_deref(), Some("auto-generated"));
    let refusal = answer_to(&mail, "alice@other.example", "late@other.example");
    assert!(
        result_of(&refusal.body, "confirm").starts_with("Refused: no player asked"),
        "{}",
        refusal.body
    );

    let log = bot.log_json();
    let position = |kind: &str| log.iter().position(|r| r["event"]["kind"] == kind);
    let expired_at = position("alias_expired").expect("an alias_expired event");
    assert_eq!(
        log[expired_at]["at"],
        hours(73).to_string(),
        "it expires at its deadline, not when the bot ran"
    );
    assert!(
        log[expired_at]["cause"]
            .as_str()
            .is_some_and(|c| c.starts_with("deadline:")),
        "{:#?}",
        log[expired_at]
    );
    assert_eq!(position("alias_confirmed"), None);
    assert!(
        player(&bot, "Alice")["aliases"]
            .as_array()
            .is_some_and(Vec::is_empty)
    );
    assert_eq!(
        bot.state_json()["players"]["pending_aliases"],
        serde_json::json!([])
    );
}

#[test]
fn the_deadline_fires_before_a_message_that_arrives_after_it() {
    let bot = LocalBot::new();
    exchange(
        &bot,
        &message(
            "alice@example.org",
            LIST,
            "[nomic] join Alice",
            "y1@example.org",
            "",
        ),
        hours(0),
    );
    exchange(
        &bot,
        &message(
            "alice@example.org",
            BOT,
            "[nomic] alias alice@other.example",
            "y2@example.org",
            "",
        ),
        hours(1),
    );
    // At +73h after the request (the request expires at +72h), Bob joins.
    deliver(
        &bot,
        &message(
            "bob@example.org",
            LIST,
            "[nomic] join Bob",
            "y3@example.org",
            "",
        ),
        hours(74),
    );
    bot.once(hours(80));

    let log = bot.log_json();
    let summary: Vec<(String, String)> = log
        .iter()
        .map(|r| {
            (
                r["event"]["kind"].as_str().unwrap_or_default().to_owned(),
                r["cause"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let expired = summary
        .iter()
        .position(|(kind, _)| kind == "alias_expired")
        .expect("alias_expired");
    let bob = summary
        .iter()
        .position(|(kind, cause)| kind == "joined" && cause == "mail:<y3@example.org>")
        .expect("Bob's join");
    assert!(
        expired < bob,
        "the deadline at +73h must come before the message at +74h: {summary:#?}"
    );
    assert!(log[expired]["seq"].as_i64() < log[bob]["seq"].as_i64());
}

#[test]
fn the_same_message_delivered_twice_is_applied_once() {
    let bot = LocalBot::new();
    let raw = message(
        "alice@example.org",
        LIST,
        "[nomic] join Alice",
        "twice@example.org",
        "",
    );
    // Twice in one pass (two copies from two lists), then once more later.
    deliver(&bot, &raw, t0());
    deliver(&bot, &raw, minutes(1));
    bot.once(minutes(2));
    let mail = bot.sent_mail();
    assert_eq!(mail.len(), 2, "one answer and one announcement: {mail:#?}");

    exchange(&bot, &raw, hours(1));
    assert_eq!(bot.sent_mail().len(), 2, "the third copy is not answered");
    assert_eq!(event_kinds(&bot), ["joined"]);
    let duplicates = bot.inbox_with_status("duplicate");
    assert_eq!(duplicates.lines().count(), 2, "{duplicates}");
    assert!(
        duplicates
            .lines()
            .all(|l| l.contains("same message as inbox #")),
        "{duplicates}"
    );
    assert_eq!(bot.inbox_with_status("pending"), "");
}

#[test]
fn ingesting_the_same_file_twice_changes_nothing() {
    let bot = LocalBot::new();
    let file = bot.dir.path().join("join.eml");
    std::fs::write(
        &file,
        message(
            "alice@example.org",
            LIST,
            "[nomic] join Alice",
            "ingest@example.org",
            "players\n",
        ),
    )
    .expect("write message");
    let file = file.to_string_lossy().into_owned();
    let t = t0().to_string();

    let first = bot.cli_ok(&["ingest", &file, "--received", &t, "--now", &t]);
    assert!(first.contains("1 new"), "{first}");
    let (state, log, outbox) = (
        bot.state_json(),
        bot.log_json(),
        bot.cli_ok(&["outbox", "--json"]),
    );
    assert_eq!(active_players(&bot), ["Alice"]);

    let later = hours(1).to_string();
    let second = bot.cli_ok(&["ingest", &file, "--received", &later, "--now", &later]);
    assert!(
        second.contains("0 new") && second.contains("1 stored before"),
        "{second}"
    );
    assert_eq!(bot.state_json(), state);
    assert_eq!(bot.log_json(), log);
    assert_eq!(bot.cli_ok(&["outbox", "--json"]), outbox);
    assert_eq!(
        bot.cli_ok(&["inbox", "--json"]).matches("\"id\"").count(),
        1
    );
}

/// Issue 15: an mbox larger than a batch is read as a stream and stored batch by
/// batch, to the same counts as the archive split whole; its messages are
/// recognised when the file comes again.
#[test]
fn issue_15_a_large_mbox_ingests_in_batches_and_again_is_all_stored_before() {
    let bot = LocalBot::new();
    let mut archive = String::new();
    let n_players = 150;
    for i in 0..n_players {
        let raw = message(
            &format!("player{i}@example.org"),
            LIST,
            &format!("[nomic] join Player{}", letters(i)),
            &format!("mbox{i}@example.org"),
            ">From the archive\nplayers\n",
        );
        archive.push_str(&format!(
            "From player{i}@example.org Mon Jan  5 10:00:00 2026\n"
        ));
        archive.push_str(&raw.replace("\r\n", "\n").replace(">From", ">>From"));
        archive.push_str("\n\n");
    }
    // The same message again, later in the archive: a duplicate.
    archive.push_str("From player0@example.org Mon Jan  5 10:00:00 2026\n");
    archive.push_str(
        &message(
            "player0@example.org",
            LIST,
            "[nomic] join Again",
            "mbox0@example.org",
            "",
        )
        .replace("\r\n", "\n"),
    );
    let split = nomicbot::mail::mbox::split(archive.as_bytes());
    assert_eq!(split.len(), n_players + 1);
    assert!(
        String::from_utf8_lossy(&split[7]).contains("\n>From the archive\n"),
        "unescaped once: {:?}",
        String::from_utf8_lossy(&split[7])
    );
    let file = bot.dir.path().join("archive.mbox");
    std::fs::write(&file, &archive).expect("write the archive");
    let file = file.to_string_lossy().into_owned();
    let t = t0().to_string();

    let first = bot.cli_ok(&["ingest", &file, "--received", &t, "--now", &t]);
    assert!(
        first.contains(&format!(
            "1 file(s), {} message(s): {n_players} new, 1 duplicate, 0 stored before; applied {n_players}",
            n_players + 1
        )),
        "{first}"
    );
    assert_eq!(active_players(&bot).len(), n_players);
    let (state, log) = (bot.state_json(), bot.log_json());

    let later = hours(1).to_string();
    let second = bot.cli_ok(&["ingest", &file, "--received", &later, "--now", &later]);
    assert!(
        second.contains(&format!(
            "0 new, 0 duplicate, {} stored before",
            n_players + 1
        )),
        "{second}"
    );
    assert_eq!(bot.state_json(), state);
    assert_eq!(bot.log_json(), log);
}

/// A name of letters only for player `i`: `Ab`, `Ac`, ...
fn letters(mut i: usize) -> String {
    let mut name = String::new();
    loop {
        name.push(char::from(b'a' + (i % 26) as u8));
        i /= 26;
        if i == 0 {
            break;
        }
    }
    name
}

/// A week of play: joins, a rename, an alias that expires in the middle (its late
/// confirmation refused), one confirmed from its new address but never by the
/// player (issue 23: it expires too), one that expires after the last message, a
/// leave, a duplicate, chatter and an auto-reply.
fn script() -> Vec<(Timestamp, String)> {
    let day = |d: i64, h: i64| t0() + SignedDuration::from_hours(24 * d + h);
    vec![
        (
            day(0, 0),
            message(
                "Alice <alice@example.org>",
                LIST,
                "[nomic] join Alice",
                "s1@example.org",
                "",
            ),
        ),
        (
            day(0, 2),
            message(
                "Bob <bob@example.org>",
                BOT,
                "[nomic] join Bob",
                "s2@example.org",
                "players",
            ),
        ),
        (
            day(1, 0),
            message(
                "alice@example.org",
                BOT,
                "[nomic] alias alice@work.example",
                "s3@example.org",
                "",
            ),
        ),
        (
            day(1, 5),
            message(
                "bob@example.org",
                LIST,
                "[nomic] rename Robert",
                "s4@example.org",
                "dance\n",
            ),
        ),
        (
            day(2, 1),
            message(
                "carol@example.org",
                LIST,
                "[game-list] [nomic] join Carol",
                "s5@example.org",
                "",
            ),
        ),
        (
            day(2, 2),
            message(
                "carol@example.org",
                LIST,
                "[game-list] [nomic] join Carol",
                "s5@example.org",
                "",
            ),
        ),
        (
            day(3, 3),
            message(
                "dave@example.org",
                LIST,
                "lunch?",
                "s6@example.org",
                "Anyone for lunch?",
            ),
        ),
        (
            day(4, 2),
            message(
                "alice@work.example",
                BOT,
                "[nomic] confirm",
                "s7@work.example",
                "",
            ),
        ),
        (
            day(4, 3),
            message(
                "bob@example.org",
                BOT,
                "[nomic] alias bob@home.example",
                "s8@example.org",
                "",
            ),
        ),
        (
            day(4, 4),
            with_headers(
                "Auto-Submitted: auto-replied\r\n",
                &message(
                    "carol@example.org",
                    BOT,
                    "Re: [nomic] join Carol",
                    "s9@example.org",
                    "I am away.",
                ),
            ),
        ),
        (
            day(5, 0),
            message(
                "bob@home.example",
                BOT,
                "[nomic] confirm",
                "s10@home.example",
                "",
            ),
        ),
        (
            day(5, 1),
            message(
                "carol@example.org",
                LIST,
                "[nomic] leave",
                "s11@example.org",
                "",
            ),
        ),
        (
            day(5, 2),
            message(
                "alice@example.org",
                BOT,
                "[nomic] alias alice@spare.example",
                "s12@example.org",
                "",
            ),
        ),
    ]
}

/// What a reader can compare of the mail sent: everything but the sending date.
fn sent_summary(bot: &LocalBot) -> BTreeSet<(String, Vec<String>, String, String)> {
    bot.sent_mail()
        .into_iter()
        .map(|m| (m.message_id, m.to, m.subject, m.body))
        .collect()
}

fn log_summary(bot: &LocalBot) -> Vec<serde_json::Value> {
    bot.log_json()
        .into_iter()
        .map(|r| serde_json::json!([r["seq"], r["at"], r["cause"], r["event"]]))
        .collect()
}

#[test]
fn a_bot_down_for_four_days_reaches_the_state_of_one_that_never_stopped() {
    let script = script();
    let last = script.iter().map(|(t, _)| *t).max().expect("a script");
    let catch_up = last + SignedDuration::from_hours(24 * 4);

    // The same secret: the codes mailed to the players are then the same.
    let secret = "5e".repeat(32);
    let always_up = LocalBot::new();
    always_up.fix_secret(&secret);
    for (arrival, raw) in &script {
        deliver(&always_up, raw, *arrival);
        always_up.once(*arrival + SignedDuration::from_secs(30));
    }
    always_up.once(catch_up);

    let was_down = LocalBot::new();
    was_down.fix_secret(&secret);
    for (arrival, raw) in &script {
        deliver(&was_down, raw, *arrival);
    }
    was_down.once(catch_up);

    let log = log_summary(&always_up);
    let kinds: Vec<&str> = log.iter().filter_map(|r| r[3]["kind"].as_str()).collect();
    assert_eq!(
        kinds,
        [
            "joined",
            "joined",
            "alias_requested",
            "renamed",
            "joined",
            "alias_expired",
            "alias_requested",
            "alias_address_confirmed",
            "left",
            "alias_requested",
            "alias_expired",
            "alias_expired"
        ],
        "the script did not play out as written: {log:#?}"
    );
    assert_eq!(log_summary(&was_down), log, "the event logs differ");
    assert_eq!(
        was_down.state_json(),
        always_up.state_json(),
        "the states differ"
    );
    assert_eq!(
        sent_summary(&was_down),
        sent_summary(&always_up),
        "the mail sent differs"
    );
    assert_eq!(active_players(&was_down), ["Alice", "Robert"]);
}

#[test]
fn replay_after_a_session_equals_the_live_state() {
    let bot = LocalBot::new();
    for (arrival, raw) in script() {
        deliver(&bot, &raw, arrival);
    }
    bot.once(hours(24 * 10));
    assert!(!bot.log_json().is_empty());
    let output = bot.cli(&["replay"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("equals the live state"), "{stdout}");
}

#[test]
fn init_writes_a_config_that_check_accepts() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = dir.path().join("bot.toml");
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_nomicbot"))
            .arg("--config")
            .arg(&config)
            .args(args)
            .output()
            .expect("run nomicbot")
    };
    let init = run(&["init"]);
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    assert!(config.is_file());
    assert!(dir.path().join("templates/player_joined.txt").is_file());

    let check = run(&["check"]);
    let stdout = String::from_utf8_lossy(&check.stdout);
    assert!(
        check.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&check.stderr)
    );
    assert!(stdout.contains("config ok"), "{stdout}");
    assert!(
        stdout.contains("senders: DKIM checked by the bot (DNS on)"),
        "safe by default: {stdout}"
    );

    // A second init does not overwrite the moderator's file.
    let again = run(&["init"]);
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("exists already"));
}

#[test]
fn check_names_a_template_with_a_syntax_error() {
    let bot = LocalBot::new();
    std::fs::write(
        bot.dir.path().join("templates/player_joined.txt"),
        "Subject: {{ name }} joined\n{% if n_players == 1 %}the first player\n",
    )
    .expect("write template");
    let check = bot.cli(&["check"]);
    let stderr = String::from_utf8_lossy(&check.stderr);
    assert!(!check.status.success(), "check accepted a broken template");
    assert!(
        stderr.contains("player_joined.txt"),
        "the message names the template: {stderr}"
    );
    assert!(
        stderr.to_lowercase().contains("syntax"),
        "the message says what is wrong: {stderr}"
    );

    // The bot does not start with it either, rather than send broken mail.
    deliver(
        &bot,
        &message(
            "alice@example.org",
            LIST,
            "[nomic] join Alice",
            "broken@example.org",
            "",
        ),
        t0(),
    );
    assert!(
        !bot.cli(&["once", "--now", &minutes(1).to_string()])
            .status
            .success()
    );
    assert!(bot.sent().is_empty());
}

#[test]
fn a_sender_address_that_cannot_be_answered_does_not_stall_the_inbox() {
    let bot = LocalBot::new();
    // Addresses a mail program may well write, that no answer can be sent to.
    deliver(
        &bot,
        &message(
            "Alice <alice@-bad-.example>",
            LIST,
            "[nomic] join Alice",
            "odd-1@example.org",
            "",
        ),
        t0(),
    );
    deliver(
        &bot,
        &message("carol", LIST, "[nomic] join Carol", "odd-2@example.org", ""),
        minutes(1),
    );
    deliver(
        &bot,
        &message(
            "Bob <bob@example.org>",
            LIST,
            "[nomic] join Bob",
            "after@example.org",
            "",
        ),
        minutes(2),
    );
    let output = bot.cli(&["once", "--now", &minutes(3).to_string()]);
    assert!(
        output.status.success(),
        "one odd message stops the bot: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mail = bot.sent_mail();
    answer_to(&mail, "bob@example.org", "after@example.org");
    assert!(active_players(&bot).contains(&"Bob".to_owned()));
    assert_eq!(
        bot.inbox_with_status("pending"),
        "",
        "nothing is left pending"
    );
    let aside = bot.inbox_with_status("aside");
    for id in ["<odd-1@example.org>: ", "<odd-2@example.org>: "] {
        let answered = mail
            .iter()
            .any(|m| m.in_reply_to.as_deref() == Some(&id[1..id.len() - 3]));
        assert!(
            answered || aside.contains(id),
            "{id} is neither answered nor kept aside with a reason: {aside}"
        );
    }
}

#[test]
fn check_renders_every_games_announcements_with_the_values_they_really_send() {
    // An edit that breaks only at rendering (a misspelt value) is found by `check`,
    // not on the day the end of an nweek or a game of Ghost needs the template.
    for (template, from, to) in [
        (
            "ruletag_notification_results.txt",
            "{{ nweek }}",
            "{{ nweeek }}",
        ),
        ("ghost_news.txt", "{{ number }}", "{{ numbre }}"),
        ("vote_result.txt", "{{ number }}", "{{ numbre }}"),
    ] {
        let bot = LocalBot::new();
        let path = bot.dir.path().join("templates").join(template);
        let text = std::fs::read_to_string(&path).expect("template");
        assert!(text.contains(from), "{template}");
        std::fs::write(&path, text.replacen(from, to, 1)).expect("write template");
        let check = bot.cli(&["check"]);
        let stderr = String::from_utf8_lossy(&check.stderr);
        assert!(
            !check.status.success(),
            "check accepted a broken {template}"
        );
        assert!(stderr.contains(template), "{stderr}");
        assert!(stderr.contains("undefined"), "{stderr}");
    }
}
