//! A whole nweek of Rule Tag through the real servers: four players mail their
//! actions by SMTP (privately and on the list), the rules officer amends one rule
//! and repeals another during the week, the bot reads everything over IMAP, and at
//! the end of the nweek both notifications arrive in the list's mailbox, read back
//! over IMAP, with the right numbers.

use jiff::{SignedDuration, Timestamp, ToSpan};

use crate::e2e::ImapBot;
use crate::support::SentMail;

/// Waits until the bot's own mailbox holds `n` messages, so that one `once` takes
/// them all, in the order they were sent.
async fn delivered(bot: &ImapBot, n: usize) {
    let got = bot.wait_for(&bot.bot(), n, |_| true).await;
    assert!(got.len() >= n, "only {} of {n} messages arrived", got.len());
}

fn from_bot(raw: &str) -> bool {
    raw.contains("X-Nomicbot:")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_whole_nweek_of_rule_tag_by_mail_ends_with_both_notifications_in_the_list_mailbox() {
    let bot = ImapBot::new("ruletag");
    let moderator = bot.player("mod");
    let scholar = bot.player("scholar");
    let [alice, bob, carol, dave] = ["alice", "bob", "carol", "dave"].map(|p| bot.player(p));

    // An nweek of ten 24-hour ndays placed so that today is its nday 8: every
    // action mailed now is in time, and the nweek ends two days from now. A run
    // close to midnight takes the nweek one day later, so nday 8 does not end
    // while the test mails.
    let now = Timestamp::now();
    let today = now.to_zoned(jiff::tz::TimeZone::UTC).date();
    let minutes_left = 24 * 60
        - i64::from(now.to_zoned(jiff::tz::TimeZone::UTC).hour()) * 60
        - i64::from(now.to_zoned(jiff::tz::TimeZone::UTC).minute());
    let nday = if minutes_left < 30 { 7 } else { 8 };
    let epoch_date = today.checked_sub(((nday - 1) as i64).days()).expect("date");
    let epoch = epoch_date
        .to_zoned(jiff::tz::TimeZone::UTC)
        .expect("zoned")
        .timestamp();
    let nweek_end = epoch + SignedDuration::from_hours(24 * 10);
    let mut config = std::fs::read_to_string(bot.config_path()).expect("config");
    config.push_str(&format!(
        "[officers]\nrules = [\"{scholar}\"]\n\n[calendar]\n[[calendar.cycles]]\nname = \"nweek\"\nunit = \"nday\"\nunit_hours = 24\nunits = 10\nepoch = \"{epoch}\"\n"
    ));
    std::fs::write(bot.config_path(), config).expect("config");

    let gnomic = crate::support::repo_root().join("../shared/rules/gnomic-ruleset-v73.txt");
    let before = epoch + SignedDuration::from_hours(1);
    bot.cli(&[
        "import-rules",
        gnomic.to_str().expect("path"),
        "--now",
        &before.to_string(),
    ]);

    // Nday 8: everyone joins, the moderator starts the game and sets the board.
    bot.send(&moderator, true, "[nomic] join Mod", "j0", "")
        .await;
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
            &format!("j{}", i + 1),
            "",
        )
        .await;
    }
    delivered(&bot, 5).await;
    bot.cli(&["once"]);
    bot.send(&moderator, true, "[rule tag] start", "start", "")
        .await;
    delivered(&bot, 6).await;
    bot.cli(&["once"]);
    bot.send(
        &moderator,
        false,
        "[rule tag]",
        "board",
        "relocate ball to 304 because the test sets the board\n\
         relocate goal to 325 because the test sets the board\n\
         adjust Alice 20 points because a known start\n\
         adjust Bob 20 points because a known start\n\
         adjust Carol 20 points because a known start\n\
         adjust Dave 20 points because a known start",
    )
    .await;
    delivered(&bot, 7).await;
    bot.cli(&["once"]);

    // The actions, privately and on the list.
    bot.send(
        &alice,
        false,
        "[rule tag]",
        "a1",
        "element fire\nmove from null to 304\ngrab ball 5",
    )
    .await;
    bot.send(
        &bob,
        true,
        "[rule tag]",
        "b1",
        "element water\nmove from null to 304\ngrab ball 3",
    )
    .await;
    bot.send(
        &carol,
        false,
        "[rule tag] move from null to 325",
        "c1",
        "element air",
    )
    .await;
    bot.send(&dave, true, "[rule tag] move from null to 327", "d1", "")
        .await;
    delivered(&bot, 11).await;
    bot.cli(&["once"]);

    // The week's rule changes: 304 amended, 327 repealed.
    bot.send(
        &scholar,
        true,
        "[ruleset] amend 304",
        "r1",
        "Rule changes take effect at once.\nend",
    )
    .await;
    bot.send(&scholar, true, "[ruleset] repeal 327", "r2", "")
        .await;
    delivered(&bot, 13).await;
    bot.cli(&["once"]);

    // Nothing private reached the list before the end of the nweek.
    let early: Vec<SentMail> = bot
        .mailbox_of(&bot.list())
        .await
        .iter()
        .filter(|raw| from_bot(raw))
        .map(|raw| SentMail::parse(raw))
        .collect();
    assert!(
        early
            .iter()
            .all(|m| !m.body.contains("element change to Fire")
                && !m.body.contains("grab rule tag ball for 5")),
        "a private action was published early"
    );

    // The end of the nweek, a minute after it: the bot fires the turn.
    let out = bot.cli(&[
        "once",
        "--now",
        &(nweek_end + SignedDuration::from_mins(1)).to_string(),
    ]);
    // Two deadlines: a second before the turn, the one that commits the turn's
    // random period if the turn draws (this one does not); then the turn.
    assert!(out.contains("deadlines 2"), "{out}");

    let list: Vec<SentMail> = bot
        .wait_for(&bot.list(), 2, |raw| {
            from_bot(raw) && raw.contains("notification for nweek")
        })
        .await
        .iter()
        .map(|raw| SentMail::parse(raw))
        .collect();
    assert_eq!(list.len(), 2, "both notifications reached the list mailbox");
    let first = list
        .iter()
        .find(|m| m.body.contains("first notification for"))
        .expect("notification 1");
    let second = list
        .iter()
        .find(|m| m.body.contains("second notification for"))
        .expect("notification 2");
    for expected in [
        "element change to Fire (made privately)",
        "move from null to 304 (made privately)",
        "grab rule tag ball for 5 points (made privately)",
        "grab rule tag ball for 3 points\n",
        "move from null to 327",
        "element change to Air (made privately)",
    ] {
        assert!(
            first.body.contains(expected),
            "{expected:?} in {}",
            first.body
        );
    }
    for (name, change) in [
        ("Alice", "-30"),
        ("Bob", "+5"),
        ("Carol", "0"),
        ("Dave", "-25"),
        // The award is the moderator's pay, listed apart from (i).
        ("Mod", "0"),
    ] {
        assert!(
            second
                .body
                .lines()
                .any(|l| l.split_whitespace().collect::<Vec<_>>() == [name, change]),
            "{name} {change} in {}",
            second.body
        );
    }
    for expected in [
        "rule tag ball    on rule 304, possessed by Alice",
        "rule tag goal    on rule 325, possessed by nobody",
        "Alice gains possession of the rule tag ball, clause (iii), and loses the 5 points declared",
        "Water beats Fire: Alice gives Bob 15 points",
        "rule 327, Dave's RTL, no longer exists: Dave loses 25 points and is set to null",
        "rule 304, Alice's RTL, changed this nweek: Alice loses 10 points",
        "rule 304, Bob's RTL, changed this nweek: Bob loses 10 points",
        "receives the weekly award of 10 points",
    ] {
        assert!(
            second.body.contains(expected),
            "{expected:?} in {}",
            second.body
        );
    }
    assert!(!second.body.contains("censure applies"), "{}", second.body);

    let state: serde_json::Value =
        serde_json::from_str(&bot.cli(&["state", "ruletag", "--json"])).expect("json");
    let points = |name: &str| {
        state["players"]
            .as_array()
            .expect("players")
            .iter()
            .find(|p| p["name"] == name)
            .map(|p| (p["points"].clone(), p["rtl"].clone()))
            .expect("player")
    };
    assert_eq!(points("Alice"), ("-10".into(), 304.into()));
    assert_eq!(points("Bob"), ("25".into(), 304.into()));
    assert_eq!(points("Carol"), ("20".into(), 325.into()));
    assert_eq!(points("Dave"), ("-5".into(), serde_json::Value::Null));
    assert_eq!(points("Mod"), ("10".into(), serde_json::Value::Null));
}
