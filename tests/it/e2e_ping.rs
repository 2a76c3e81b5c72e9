//! A term of the Machine That Goes *ping* through the real servers (issue 14):
//! the players mail the list and the bot by SMTP, the bot reads over IMAP and
//! sends by SMTP, and everything is read back from the list's mailbox. The
//! Scholar's truth and form go to the bot alone; the bot posts the disguised
//! truth, pings by itself for two weeks, ridicules and fines two wrong guesses,
//! reveals a Magic Letter for its premium, congratulates the correct guess, and
//! moves the Machine. The truth is in no list mail before that guess.
//!
//! Time: the players' mail arrives now; `once --now` moves the bot's clock ahead
//! (a message is applied no earlier than the bot's clock), so two weeks pass in
//! one run.

use jiff::{SignedDuration, Timestamp};

use crate::e2e::ImapBot;
use crate::support::{SentMail, balance};

/// "the day is not in the weekend", as the Scholar mails it: dictionary words.
const CLAUSE: &str = "the day is not in the weekend";
const FORM: &str = "not weekday is saturday and not weekday is sunday";

async fn delivered(bot: &ImapBot, n: usize) {
    let got = bot.wait_for(&bot.bot(), n, |_| true).await;
    assert!(got.len() >= n, "only {} of {n} messages arrived", got.len());
}

fn from_bot(raw: &str) -> bool {
    raw.contains("X-Nomicbot:")
}

/// The decoded text: a long line goes quoted-printable, soft-broken in the raw mail.
fn body(raw: &str) -> String {
    SentMail::parse(raw).body
}

async fn list_mail(bot: &ImapBot) -> Vec<SentMail> {
    bot.mailbox_of(&bot.list())
        .await
        .iter()
        .filter(|raw| from_bot(raw))
        .map(|raw| SentMail::parse(raw))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_term_of_the_machine_by_mail_pings_for_two_weeks_and_ends_with_a_correct_guess() {
    let bot = ImapBot::new("ping");
    let moderator = bot.player("mod");
    let [alice, bob, carol, dave] = ["alice", "bob", "carol", "dave"].map(|p| bot.player(p));
    let start = Timestamp::now();

    // Everyone joins; the moderator places the Machine in Alice's Home.
    for (i, (who, name)) in [
        (&alice, "Alice"),
        (&bob, "Bob"),
        (&carol, "Carol"),
        (&dave, "Dave"),
    ]
    .into_iter()
    .enumerate()
    {
        bot.send(
            who,
            true,
            &format!("[nomic] join {name}"),
            &format!("j{i}"),
            "",
        )
        .await;
    }
    delivered(&bot, 4).await;
    bot.cli(&["once"]);
    bot.send(
        &moderator,
        true,
        "[ping] place Alice because the term begins",
        "place",
        "",
    )
    .await;
    delivered(&bot, 5).await;
    bot.cli(&["once"]);

    // The Scholar's truth and form, privately.
    bot.send(
        &alice,
        false,
        "[ping]",
        "truth",
        &format!("truth {CLAUSE}\nform {FORM}"),
    )
    .await;
    delivered(&bot, 6).await;
    bot.cli(&["once"]);
    const DISGUISED: &str = "IF AND ONLY IF today *** *** ** *** ** *** *******, THEN the Machine That Goes *ping* shall go *ping*.";
    let disguised = bot
        .wait_for(&bot.list(), 1, |raw| {
            from_bot(raw) && body(raw).contains(DISGUISED)
        })
        .await;
    assert!(
        !disguised.is_empty(),
        "the disguised truth reached the list: {:#?}",
        list_mail(&bot)
            .await
            .iter()
            .map(|m| (&m.subject, &m.body))
            .collect::<Vec<_>>()
    );

    // Two weeks on the bot's clock: it pings on every weekday by the form.
    let two_weeks = start + SignedDuration::from_hours(24 * 14) + SignedDuration::from_mins(1);
    bot.cli(&["once", "--now", &two_weeks.to_string()]);
    let today = start.to_zoned(jiff::tz::TimeZone::UTC).date();
    let expected: Vec<String> = (1..=14)
        .map(|d| today + jiff::Span::new().days(d))
        .filter(|date| {
            !matches!(
                date.weekday(),
                jiff::civil::Weekday::Saturday | jiff::civil::Weekday::Sunday
            )
        })
        .enumerate()
        .map(|(n, date)| nomicbot::games::ping::notice::notice(date, n as u32 + 1))
        .collect();
    assert_eq!(expected.len(), 10);
    let notices = bot
        .wait_for(&bot.list(), 10, |raw| {
            from_bot(raw) && body(raw).contains("Has Gone *ping* today")
        })
        .await;
    let mut bodies: Vec<String> = notices
        .iter()
        .map(|raw| SentMail::parse(raw).body)
        .collect();
    bodies.sort_by_key(|b| expected.iter().position(|e| b.contains(e)));
    for (notice, body) in expected.iter().zip(&bodies) {
        assert!(body.contains(notice), "expected {notice:?} in\n{body}");
    }

    // Two wrong guesses, then a Magic Letter, then the right guess.
    let later = two_weeks + SignedDuration::from_mins(10);
    bot.send(&bob, true, "[ping] guess the day is odd", "g1", "")
        .await;
    bot.send(
        &carol,
        true,
        "[ping] guess the day is in the week",
        "g2",
        "",
    )
    .await;
    bot.send(&dave, true, "[ping] magic letter e", "m1", "")
        .await;
    delivered(&bot, 9).await;
    bot.cli(&["once", "--now", &later.to_string()]);
    let before_the_guess = list_mail(&bot).await;
    bot.send(
        &dave,
        true,
        "[ping] guess The day is NOT in the weekend!",
        "g3",
        "",
    )
    .await;
    delivered(&bot, 10).await;
    bot.cli(&[
        "once",
        "--now",
        &(later + SignedDuration::from_mins(10)).to_string(),
    ]);

    let list = bot
        .wait_for(&bot.list(), 1, |raw| {
            from_bot(raw)
                && SentMail::parse(raw)
                    .subject
                    .contains("Congratulations, Dave")
        })
        .await;
    assert_eq!(list.len(), 1, "Dave is congratulated on the list");
    let all = list_mail(&bot).await;
    let subjects: Vec<&str> = all.iter().map(|m| m.subject.as_str()).collect();
    for (who, expected) in [
        ("Bob", "Bob guessed wrong"),
        ("Carol", "Carol guessed wrong"),
    ] {
        let mail = all
            .iter()
            .find(|m| m.subject.contains(expected))
            .unwrap_or_else(|| panic!("{who} ridiculed: {subjects:#?}"));
        assert!(
            mail.body.contains("A$10, paid to the Treasury"),
            "{}",
            mail.body
        );
    }
    let magic = all
        .iter()
        .find(|m| m.subject.contains("The Magic Letter 'e'"))
        .unwrap_or_else(|| panic!("the Magic Letter reposted: {subjects:#?}"));
    assert!(
        magic
            .body
            .contains("IF AND ONLY IF today **e *** ** *** ** **e *ee*e**, THEN"),
        "{}",
        magic.body
    );
    assert!(
        all.iter()
            .any(|m| m.subject.contains("is now in Dave's Home")),
        "the Machine moved to Dave: {subjects:#?}"
    );
    // The Boon of the Ancients the correct guess wins is drawn by the officer
    // (rule 1211 §4) and announced.
    let boon = all
        .iter()
        .find(|m| m.subject.contains("Boon of the Ancients 1 for Dave"))
        .unwrap_or_else(|| panic!("a Boon drawn for Dave: {subjects:#?}"));
    assert!(boon.body.contains("random method"), "{}", boon.body);

    // The secret held until the correct guess.
    for mail in &before_the_guess {
        assert!(
            !mail.body.to_lowercase().contains(CLAUSE),
            "the truth reached the list early: {}",
            mail.subject
        );
    }

    let state: serde_json::Value =
        serde_json::from_str(&bot.cli(&["state", "--json"])).expect("state");
    assert_eq!(balance(&state, "Bob", "A$").as_deref(), Some("-10"));
    assert_eq!(balance(&state, "Carol", "A$").as_deref(), Some("-10"));
    assert_eq!(balance(&state, "Dave", "A$").as_deref(), Some("-25"));
}
