//! Issue 29, items 4, 5 and 7: replies as real clients write them on a list in
//! the players' languages. Outlook's reply block in each language ends what the
//! bot reads, so the quoted original is never applied again as the replier's;
//! the attribution lines of mutt, Gmail, Thunderbird and Apple Mail are no
//! commands; an answer keeps the subject it answers.

use jiff::{SignedDuration, Timestamp};

use crate::support::{LocalBot, SentMail, at, message};

const LIST: &str = "game-list@nomic.example";
const ALICE: &str = "alice@example.org";
const BOB: &str = "bob@example.org";

fn t0() -> Timestamp {
    at("2026-01-05T10:00:00Z")
}

/// Alice and Bob join through the list, then Alice renames herself in a post
/// of her own (`<rename.alice@example.org>`).
fn two_players_and_a_command_post() -> LocalBot {
    let bot = LocalBot::new();
    for (index, (name, address)) in [("Alice", ALICE), ("Bob", BOB)].iter().enumerate() {
        bot.deliver(
            &format!("join{index}"),
            &message(
                &format!("{name} Example <{address}>"),
                LIST,
                &format!("[nomic] join {name}"),
                &format!("join.{}@example.org", name.to_lowercase()),
                "",
            ),
            t0() + SignedDuration::from_secs(index as i64),
        );
    }
    bot.deliver(
        "rename",
        &message(
            "Alice Example <alice@example.org>",
            LIST,
            "[nomic] rename",
            "rename.alice@example.org",
            "rename Alicia\n",
        ),
        t0() + SignedDuration::from_secs(30),
    );
    bot.once(t0() + SignedDuration::from_mins(1));
    bot
}

/// Bob's reply to Alice's post, with `body` as his client writes it, delivered
/// at `t0` + 5 minutes; the bot's answers to it.
fn bob_replies(bot: &LocalBot, subject: &str, body: &str) -> Vec<SentMail> {
    let raw = format!(
        "From: Bob Example <bob@example.org>\r\nTo: {LIST}\r\nSubject: {subject}\r\n\
         Date: Mon, 5 Jan 2026 10:05:00 +0000\r\nMessage-ID: <reply.bob@example.org>\r\n\
         In-Reply-To: <rename.alice@example.org>\r\nReferences: <rename.alice@example.org>\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Transfer-Encoding: 8bit\r\n\r\n{}",
        body.replace('\n', "\r\n")
    );
    bot.deliver("reply", &raw, t0() + SignedDuration::from_mins(5));
    bot.once(t0() + SignedDuration::from_mins(10));
    bot.sent_mail()
        .into_iter()
        .filter(|mail| mail.in_reply_to.as_deref() == Some("reply.bob@example.org"))
        .collect()
}

/// The names of the players, from `state --json`.
fn player_names(bot: &LocalBot) -> Vec<String> {
    bot.state_json()["players"]["players"]
        .as_array()
        .expect("players")
        .iter()
        .filter_map(|player| player["name"].as_str().map(str::to_owned))
        .collect()
}

/// The command lines an answer reports, in order (`> LINE` in its body).
fn reported_lines(answer: &SentMail) -> Vec<&str> {
    answer
        .body
        .lines()
        .filter_map(|line| line.strip_prefix("> "))
        .collect()
}

/// Outlook's reply to Alice's post in several languages: Bob's own line on top,
/// then the block and Alice's command unquoted below it.
const OUTLOOK_REPLIES: &[(&str, &str)] = &[
    (
        "AW: [nomic] rename",
        "-----Ursprüngliche Nachricht-----\nVon: Alice Example <alice@example.org>\n\
         Gesendet: Montag, 5. Januar 2026 10:00\nAn: game-list@nomic.example\n\
         Betreff: [nomic] rename",
    ),
    (
        "RE : [nomic] rename",
        "-----Message d'origine-----\nDe : Alice Example <alice@example.org>\n\
         Envoyé : lundi 5 janvier 2026 10:00\nÀ : game-list@nomic.example\n\
         Objet : [nomic] rename",
    ),
    (
        "RE: [nomic] rename",
        "De: Alice Example [mailto:alice@example.org]\n\
         Enviado el: lunes, 5 de enero de 2026 10:00\nPara: game-list@nomic.example\n\
         Asunto: [nomic] rename",
    ),
    (
        "SV: [nomic] rename",
        "Från: Alice Example <alice@example.org>\nSkickat: den 5 januari 2026 10:00\n\
         Till: game-list@nomic.example\nÄmne: [nomic] rename",
    ),
    (
        "ODP: [nomic] rename",
        "-----Oryginalna wiadomość-----\nOd: Alice Example <alice@example.org>\n\
         Wysłano: poniedziałek, 5 stycznia 2026 10:00\nDo: game-list@nomic.example\n\
         Temat: [nomic] rename",
    ),
];

#[test]
fn outlook_replies_in_other_languages_do_not_apply_the_quoted_command_again() {
    for (subject, block) in OUTLOOK_REPLIES {
        let bot = two_players_and_a_command_post();
        assert_eq!(player_names(&bot), ["Alicia", "Bob"]);
        let body = format!("rename Bobby\n\n{block}\n\nrename Alicia\n");
        let answers = bob_replies(&bot, subject, &body);
        let answer = answers
            .iter()
            .find(|mail| mail.is_to(BOB))
            .unwrap_or_else(|| panic!("an answer to Bob for {subject}: {answers:#?}"));
        assert_eq!(reported_lines(answer), ["rename Bobby"], "{}", answer.body);
        assert!(!answer.body.contains("Alicia"), "{}", answer.body);
        // Item 7: the answer keeps the subject it answers, with its `Re:`.
        assert_eq!(answer.subject, "Re: [nomic] rename", "{subject}");
        assert_eq!(player_names(&bot), ["Alicia", "Bobby"], "{subject}");
    }
}

#[test]
fn an_answer_to_a_reply_keeps_its_subject_and_never_a_passphrase() {
    let bot = two_players_and_a_command_post();
    // Talk under a reply's subject: the short answer keeps the subject too.
    let answers = bob_replies(&bot, "Re: [nomic] rename", "rename Bobby\n");
    let answer = answers.iter().find(|mail| mail.is_to(BOB)).expect("answer");
    assert_eq!(answer.subject, "Re: [nomic] rename");
    // A command in the subject is answered with it, as before.
    let alice = bot
        .sent_mail()
        .into_iter()
        .find(|mail| {
            mail.is_to(ALICE) && mail.in_reply_to.as_deref() == Some("rename.alice@example.org")
        })
        .expect("answer to Alice");
    assert_eq!(alice.subject, "Re: [nomic] rename");
    let bot = two_players_and_a_command_post();
    let answers = bob_replies(&bot, "Re: [nomic] passphrase set hunter22", "players\n");
    let answer = answers.iter().find(|mail| mail.is_to(BOB)).expect("answer");
    assert!(!answer.raw.contains("hunter22"), "{}", answer.raw);
}

/// Bob's replies with the attributions of mutt, Gmail, Thunderbird and Apple
/// Mail in several languages, his own line below or above the quote.
const ATTRIBUTED_REPLIES: &[(&str, &str)] = &[
    (
        "Re: [nomic] rename",
        "* Alice Example <alice@example.org> [2026-01-05 10:00]:\n> rename Alicia\n\nrename Bobby\n",
    ),
    (
        "Re: [nomic] rename",
        "rename Bobby\n\nAm Mo., 5. Jan. 2026 um 10:00 Uhr schrieb Alice Example <\nalice@example.org>:\n\n> rename Alicia\n",
    ),
    (
        "Re: [nomic] rename",
        "Le 05/01/2026 à 10:00, Alice Example a écrit :\n> rename Alicia\n\nrename Bobby\n",
    ),
    (
        "Re: [nomic] rename",
        "rename Bobby\n\nEl lun, 5 ene 2026 a las 10:00, Alice Example (<alice@example.org>)\nescribió:\n\n> rename Alicia\n",
    ),
    (
        "Sv: [nomic] rename",
        "rename Bobby\n\nDen mån 5 jan. 2026 kl 10:00 skrev Alice Example <alice@example.org>:\n\n> rename Alicia\n",
    ),
    (
        "Re: [nomic] rename",
        "rename Bobby\n\nOn 5 Jan 2026, at 10:00, Alice Example <alice@example.org> wrote:\n\n> rename Alicia\n",
    ),
];

#[test]
fn attributions_of_real_clients_are_not_answered_not_understood() {
    for (subject, body) in ATTRIBUTED_REPLIES {
        let bot = two_players_and_a_command_post();
        let answers = bob_replies(&bot, subject, body);
        let answer = answers
            .iter()
            .find(|mail| mail.is_to(BOB))
            .unwrap_or_else(|| panic!("an answer to Bob for {body}: {answers:#?}"));
        assert_eq!(reported_lines(answer), ["rename Bobby"], "{}", answer.body);
        assert!(!answer.body.contains("Not understood"), "{}", answer.body);
        assert_eq!(answer.subject, "Re: [nomic] rename", "{subject}");
        assert_eq!(player_names(&bot), ["Alicia", "Bobby"], "{body}");
    }
}

/// Item 6: a moderator closes a ballot early by private mail. The commitments,
/// the reveal and the result give the time it really closed, and they thread
/// under the ballot's announcement on the list, not under the moderator's
/// private message, which the list never saw.
#[test]
fn a_ballot_closed_early_in_private_announces_its_real_time_under_the_list_thread() {
    let config = crate::support::trusting().replacen(
        "moderators = []",
        "moderators = [\"mod@example.org\"]",
        1,
    );
    let bot = LocalBot::with_config(&config);
    bot.deliver(
        "join",
        &message(
            "Alice <alice@example.org>",
            LIST,
            "[nomic] join Alice",
            "j1@example.org",
            "",
        ),
        t0(),
    );
    bot.deliver(
        "open",
        &message(
            "Mod <mod@example.org>",
            LIST,
            "[vote] open Shall we?",
            "o1@example.org",
            "",
        ),
        t0() + SignedDuration::from_secs(10),
    );
    bot.once(t0() + SignedDuration::from_mins(1));
    // The ballot's announcements on the list, under the moderator's post.
    let opened: Vec<String> = bot
        .sent_mail()
        .into_iter()
        .filter(|mail| mail.is_to(LIST) && mail.in_reply_to.as_deref() == Some("o1@example.org"))
        .map(|mail| mail.message_id)
        .collect();
    assert!(!opened.is_empty());
    bot.deliver(
        "vote",
        &message(
            "Alice <alice@example.org>",
            "bot@nomic.example",
            "[vote] yes",
            "v1@example.org",
            "",
        ),
        t0() + SignedDuration::from_mins(2),
    );
    bot.deliver(
        "close",
        &message(
            "Mod <mod@example.org>",
            "bot@nomic.example",
            "[vote] close 1 because we agree",
            "c1@example.org",
            "",
        ),
        t0() + SignedDuration::from_hours(1),
    );
    bot.once(t0() + SignedDuration::from_hours(1) + SignedDuration::from_mins(1));
    let announcements: Vec<SentMail> = bot
        .sent_mail()
        .into_iter()
        .filter(|mail| mail.is_to(LIST) && !opened.contains(&mail.message_id))
        .filter(|mail| mail.subject.contains("[vote]"))
        .collect();
    assert_eq!(announcements.len(), 3, "{announcements:#?}");
    for mail in &announcements {
        let parent = mail.in_reply_to.clone().unwrap_or_default();
        assert!(
            opened.contains(&parent) || announcements.iter().any(|m| m.message_id == parent),
            "{}",
            mail.raw
        );
        assert!(
            mail.references.iter().any(|r| r == "o1@example.org"),
            "{}",
            mail.raw
        );
        assert!(
            !mail.references.iter().any(|r| r == "c1@example.org"),
            "{}",
            mail.raw
        );
    }
    let closed = "2026-01-05 11:00 UTC";
    for mail in &announcements[..2] {
        assert!(
            mail.body.contains(&format!("closed at {closed}, before")),
            "{}",
            mail.body
        );
    }
}
