//! A four-player game of Grab-a-Donkey through the real servers (issue 25): the
//! players mail the list and the bot by SMTP, the bot reads over IMAP and sends
//! by SMTP, and everything is read back from the mailboxes. Wendy claims the
//! Wranglership and calls a game; Alice, Bob, Carol and Dave are on the GAL;
//! each round's actions go to the bot alone, with a copy to Wendy; the list sees
//! none of them before the round's report; Alice ends the Belt Holder.
//!
//! Time: the players' mail arrives now; `once --now` moves the bot's clock
//! ahead, so three days pass in one run.

use jiff::{SignedDuration, Timestamp};

use crate::e2e::ImapBot;
use crate::support::{SentMail, balance};

async fn delivered(bot: &ImapBot, n: usize) {
    let got = bot.wait_for(&bot.bot(), n, |_| true).await;
    assert!(got.len() >= n, "only {} of {n} messages arrived", got.len());
}

fn from_bot(raw: &str) -> bool {
    raw.contains("X-Nomicbot:")
}

async fn list_mail(bot: &ImapBot) -> Vec<SentMail> {
    bot.mailbox_of(&bot.list())
        .await
        .iter()
        .filter(|raw| from_bot(raw))
        .map(|raw| SentMail::parse(raw))
        .collect()
}

/// No list mail of the bot's tells any of `actions` before the report.
async fn nothing_told(bot: &ImapBot, actions: &[&str]) {
    for mail in list_mail(bot).await {
        for action in actions {
            for leak in [format!(": {action}"), format!("\"{action}\"")] {
                assert!(
                    !mail.body.contains(&leak),
                    "{leak} reached the list before the report: {}\n{}",
                    mail.subject,
                    mail.body
                );
            }
        }
    }
}

fn later(start: Timestamp, hours: i64, minutes: i64) -> String {
    (start + SignedDuration::from_hours(hours) + SignedDuration::from_mins(minutes)).to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_four_player_game_of_grab_a_donkey_by_mail_ends_with_a_belt_holder() {
    let bot = ImapBot::new("donkey");
    let [wendy, alice, bob, carol, dave] =
        ["wendy", "alice", "bob", "carol", "dave"].map(|p| bot.player(p));
    let start = Timestamp::now();
    let mut sent = 0;
    for (i, (who, name)) in [
        (&wendy, "Wendy"),
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
        sent += 1;
    }
    delivered(&bot, sent).await;
    bot.cli(&["once"]);

    // Wendy takes the title nobody holds and calls a game of one-day rounds.
    bot.send(&wendy, true, "[donkey] claim wrangler", "claim", "")
        .await;
    sent += 1;
    delivered(&bot, sent).await;
    bot.cli(&["once"]);
    bot.send(&wendy, true, "[donkey] call 1 days", "call", "")
        .await;
    sent += 1;
    delivered(&bot, sent).await;
    bot.cli(&["once"]);

    // A day later the game starts; round 1, privately. Dave's action on the
    // list does not count.
    bot.cli(&["once", "--now", &later(start, 24, 5)]);
    let round1 = [
        (&alice, "grab Bob"),
        (&bob, "grab Carol"),
        (&carol, "cover"),
        (&dave, "grab Carol"),
    ];
    for (i, (who, action)) in round1.iter().enumerate() {
        bot.send(who, false, "[donkey]", &format!("r1-{i}"), action)
            .await;
        sent += 1;
    }
    bot.send(&dave, true, "[donkey] admire", "r1-public", "")
        .await;
    sent += 1;
    delivered(&bot, sent).await;
    bot.cli(&["once", "--now", &later(start, 24, 10)]);
    let copies = bot
        .wait_for(&wendy, 4, |raw| from_bot(raw) && raw.contains("round 1"))
        .await;
    assert_eq!(copies.len(), 4, "the Wrangler's copies of round 1");
    let refused = bot
        .wait_for(&dave, 1, |raw| {
            from_bot(raw) && SentMail::parse(raw).body.contains("does not count")
        })
        .await;
    assert_eq!(refused.len(), 1, "Dave is told privately");
    nothing_told(&bot, &["grab Bob", "grab Carol", "cover"]).await;

    // The round ends: commitments, reveal, report.
    bot.cli(&["once", "--now", &later(start, 48, 30)]);
    let report = bot
        .wait_for(&bot.list(), 1, |raw| {
            from_bot(raw)
                && SentMail::parse(raw)
                    .subject
                    .contains("the report of round 1")
        })
        .await;
    let report = SentMail::parse(&report[0]).body;
    assert!(
        report.contains("Alice successfully grabbed Bob's donkey."),
        "{report}"
    );
    // The GAL is in the order the joins arrived, which SMTP does not fix.
    let left = report
        .lines()
        .find(|line| line.starts_with("Left on the GAL: "))
        .unwrap_or_else(|| panic!("{report}"));
    for (name, on) in [
        ("Alice", true),
        ("Bob", false),
        ("Carol", true),
        ("Dave", true),
    ] {
        assert_eq!(left.contains(name), on, "{name}: {report}");
    }

    // Round 2: Alice alone does not cover (D), and is the Belt Holder.
    for (i, (who, action)) in [(&alice, "grab Dave"), (&carol, "cover"), (&dave, "cover")]
        .iter()
        .enumerate()
    {
        bot.send(who, false, "[donkey]", &format!("r2-{i}"), action)
            .await;
        sent += 1;
    }
    delivered(&bot, sent).await;
    bot.cli(&["once", "--now", &later(start, 48, 40)]);
    nothing_told(&bot, &["grab Dave"]).await;
    bot.cli(&["once", "--now", &later(start, 72, 30)]);
    let ended = bot
        .wait_for(&bot.list(), 1, |raw| {
            from_bot(raw)
                && SentMail::parse(raw)
                    .subject
                    .contains("Alice is the Belt Holder")
        })
        .await;
    let ended = SentMail::parse(&ended[0]).body;
    assert!(
        ended.contains("awarded\n4 points") || ended.contains("4 points"),
        "{ended}"
    );

    let state: serde_json::Value =
        serde_json::from_str(&bot.cli(&["state", "--json"])).expect("state");
    assert_eq!(balance(&state, "Alice", "points").as_deref(), Some("4"));
    assert_eq!(state["donkey"]["wrangler"]["name"], "Alice");
    assert_eq!(state["donkey"]["belt_holder"]["name"], "Alice");
    assert!(state["donkey"]["game"].is_null());
    // Each round's archived commitments and reveal pass verify-sealed.
    let list = list_mail(&bot).await;
    for (round, n) in [(1, 4), (2, 3)] {
        let batch = format!("Grab-a-Donkey game 1 round {round}");
        let commitments = list
            .iter()
            .find(|m| m.subject.contains(&format!("of {batch}: ")))
            .unwrap_or_else(|| panic!("the commitments of {batch}"));
        let reveal = list
            .iter()
            .find(|m| m.subject.contains(&format!("of {batch} revealed")))
            .unwrap_or_else(|| panic!("the reveal of {batch}"));
        let dir = bot.dir.path();
        let (c, r) = (
            dir.join(format!("c{round}.eml")),
            dir.join(format!("r{round}.eml")),
        );
        std::fs::write(&c, &commitments.raw).expect("write");
        std::fs::write(&r, &reveal.raw).expect("write");
        let out = bot.cli(&[
            "verify-sealed",
            &c.display().to_string(),
            &r.display().to_string(),
        ]);
        assert!(
            out.contains(&format!("{n} sealed action(s)")),
            "{batch}: {out}"
        );
    }
}
