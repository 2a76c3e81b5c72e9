//! Floods are bounded (issue 23, item 7): one sender's actions in a day and the
//! mail the bot writes in an hour, on the embedded Maildir transport with small
//! bounds. Past a bound a player's messages are kept aside, never dropped: the
//! sender is told once, the moderators alerted once, what was applied stands,
//! and moderators and deadlines still go through.

use jiff::{SignedDuration, Timestamp};

use crate::support::{LocalBot, SentMail, at, balance, message};

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";
const MODERATOR: &str = "mod@nomic.example";

/// A bot with a moderator, no cap on answers (so every answer is its own mail),
/// and the given keys of bot.toml set (`key = value` lines replaced).
fn bot_with(settings: &[(&str, &str)]) -> LocalBot {
    let config = crate::support::trusting().replace(
        "moderators = []",
        &format!("moderators = [\"{MODERATOR}\"]"),
    );
    let settings: Vec<(&str, &str)> = [("max_answers_per_day", "0")]
        .into_iter()
        .chain(settings.iter().copied())
        .collect();
    let config: Vec<String> = config
        .lines()
        .map(|line| {
            match settings
                .iter()
                .rev()
                .find(|(key, _)| line.starts_with(&format!("{key} =")))
            {
                Some((key, value)) => format!("{key} = {value}"),
                None => line.to_owned(),
            }
        })
        .collect();
    LocalBot::with_config(&config.join("\n"))
}

/// Delivers one message per (from, subject, body) to the bot, a minute apart
/// from `start`. Message `i` is `<f{i}.{start}@players.test>`.
fn deliver(bot: &LocalBot, start: Timestamp, script: &[(&str, &str, &str)]) {
    for (index, (from, subject, body)) in script.iter().enumerate() {
        let when = start + SignedDuration::from_mins(index as i64);
        bot.deliver(
            &format!("f{index}.{}", start.as_second()),
            &message(
                from,
                BOT,
                subject,
                &format!("f{index}.{}@players.test", start.as_second()),
                body,
            ),
            when,
        );
    }
}

fn mail_to(bot: &LocalBot, address: &str) -> Vec<SentMail> {
    bot.sent_mail()
        .into_iter()
        .filter(|m| m.is_to(address))
        .collect()
}

fn held_notices(bot: &LocalBot, address: &str) -> usize {
    mail_to(bot, address)
        .iter()
        .filter(|m| m.body.contains("was not applied: it is kept, unapplied"))
        .count()
}

fn alerts(bot: &LocalBot) -> Vec<SentMail> {
    mail_to(bot, MODERATOR)
        .into_iter()
        .filter(|m| m.subject.contains("Messages held"))
        .collect()
}

/// The inbox numbers of the messages kept aside by a flood bound.
fn held(bot: &LocalBot) -> Vec<String> {
    bot.inbox_with_status("aside")
        .lines()
        .filter(|line| line.contains(": held: "))
        .filter_map(|line| line.split_whitespace().next())
        .map(|id| id.trim_start_matches('#').to_owned())
        .collect()
}

fn names(bot: &LocalBot) -> Vec<String> {
    bot.state_json()["players"]["players"]
        .as_array()
        .expect("players")
        .iter()
        .filter(|p| p["left_at"].is_null())
        .map(|p| p["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn renames(bot: &LocalBot) -> usize {
    mail_to(bot, LIST)
        .iter()
        .filter(|m| m.subject.contains("is now called"))
        .count()
}

#[test]
fn one_sender_past_the_daily_action_bound_is_held_told_once_and_the_moderators_alerted_once() {
    let bot = bot_with(&[("max_actions_per_day", "3")]);
    let start = at("2026-02-02T10:00:00Z");
    deliver(
        &bot,
        start,
        &[
            ("alice@example.org", "[nomic] join Alice", ""),
            ("alice@example.org", "[nomic] rename Alicia", ""),
            ("alice@example.org", "[nomic] rename Alix", ""),
            // Past the bound: kept aside, however many.
            ("alice@example.org", "[nomic] rename Ali", ""),
            ("alice@example.org", "[nomic] rename Al", ""),
            ("alice@example.org", "[nomic] rename A", ""),
            // Another sender is not held by Alice's bound.
            ("bob@example.org", "[nomic] join Bob", ""),
        ],
    );
    bot.once(start + SignedDuration::from_hours(1));

    // What was applied before the bound stands.
    assert_eq!(names(&bot), ["Alix", "Bob"]);
    assert_eq!(held(&bot).len(), 3, "{}", bot.inbox_with_status("aside"));
    assert!(
        bot.inbox_with_status("aside")
            .contains("max_actions_per_day")
    );
    // The list saw two renames, not five.
    assert_eq!(renames(&bot), 2, "{:#?}", mail_to(&bot, LIST));
    assert_eq!(held_notices(&bot, "alice@example.org"), 1);
    assert_eq!(held_notices(&bot, "bob@example.org"), 0);
    let alerts = alerts(&bot);
    assert_eq!(alerts.len(), 1, "{alerts:#?}");
    assert!(
        alerts[0].body.contains("alice@example.org"),
        "{}",
        alerts[0].body
    );
    assert!(alerts[0].body.contains("--release"), "{}", alerts[0].body);

    // A second pass later that day holds the next one without telling anyone again.
    let later = start + SignedDuration::from_hours(3);
    deliver(
        &bot,
        later,
        &[("alice@example.org", "[nomic] rename Z", "")],
    );
    bot.once(later + SignedDuration::from_hours(1));
    assert_eq!(held(&bot).len(), 4);
    assert_eq!(held_notices(&bot, "alice@example.org"), 1);
    assert_eq!(self::alerts(&bot).len(), 1);
    assert_eq!(names(&bot), ["Alix", "Bob"]);
}

#[test]
fn the_next_day_the_sender_acts_again_and_a_released_message_is_applied() {
    let bot = bot_with(&[("max_actions_per_day", "2")]);
    let start = at("2026-02-02T10:00:00Z");
    deliver(
        &bot,
        start,
        &[
            ("alice@example.org", "[nomic] join Alice", ""),
            ("alice@example.org", "[nomic] rename Alicia", ""),
            ("alice@example.org", "[nomic] rename Alix", ""),
        ],
    );
    bot.once(start + SignedDuration::from_hours(1));
    assert_eq!(names(&bot), ["Alicia"]);
    let held_ids = held(&bot);
    assert_eq!(held_ids.len(), 1);

    let tomorrow = start + SignedDuration::from_hours(24);
    deliver(
        &bot,
        tomorrow,
        &[("alice@example.org", "[nomic] rename Ally", "")],
    );
    bot.once(tomorrow + SignedDuration::from_hours(1));
    assert_eq!(names(&bot), ["Ally"]);
    assert_eq!(held(&bot).len(), 1);

    // The moderator has the held message applied: nothing was lost.
    let released = bot.cli_ok(&["inbox", "--release", &held_ids[0]]);
    assert!(released.contains("released 1"), "{released}");
    bot.once(tomorrow + SignedDuration::from_hours(2));
    assert_eq!(names(&bot), ["Alix"]);
    assert!(held(&bot).is_empty());
    // Its answer went out, under a Message-ID of its own (not the notice's).
    let answers = mail_to(&bot, "alice@example.org");
    assert!(
        answers
            .iter()
            .any(|m| m.body.contains("> rename Alix") && !m.body.contains("kept, unapplied")),
        "{answers:#?}"
    );
}

#[test]
fn many_senders_past_the_hourly_outgoing_bound_are_held_and_nothing_is_lost() {
    // Each join writes two mails (the announcement and the answer): the bound
    // is reached after the third.
    let bot = bot_with(&[("max_outgoing_per_hour", "6")]);
    let start = at("2026-02-02T10:00:00Z");
    let players = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"];
    let addresses: Vec<String> = players
        .iter()
        .map(|name| format!("{}@example.org", name.to_lowercase()))
        .collect();
    let subjects: Vec<String> = players
        .iter()
        .map(|name| format!("[nomic] join {name}"))
        .collect();
    let mut script: Vec<(&str, &str, &str)> = addresses
        .iter()
        .zip(&subjects)
        .map(|(from, subject)| (from.as_str(), subject.as_str(), ""))
        .collect();
    // Dan tries twice: he is told once.
    script.push(("dan@example.org", "[nomic] join Dan", "again"));
    // Talk in a tagged thread does nothing: it is never held, nor its sender told.
    script.push(("gus@example.org", "Re: [nomic] join Ann", "Welcome, Ann!"));
    deliver(&bot, start, &script);
    bot.once(start + SignedDuration::from_hours(2));

    assert_eq!(names(&bot), ["Ann", "Ben", "Cat"]);
    assert_eq!(held(&bot).len(), 4, "{}", bot.inbox_with_status("aside"));
    assert!(
        bot.inbox_with_status("aside")
            .contains("max_outgoing_per_hour")
    );
    for held_player in ["dan@example.org", "eve@example.org", "fay@example.org"] {
        assert_eq!(held_notices(&bot, held_player), 1, "{held_player}");
    }
    assert_eq!(held_notices(&bot, "gus@example.org"), 0);
    assert!(bot.inbox_with_status("aside").contains("chatter"));
    let alerts = alerts(&bot);
    assert_eq!(alerts.len(), 1, "{alerts:#?}");
    assert!(
        alerts[0].body.contains("2026-02-02 10:00 UTC"),
        "{}",
        alerts[0].body
    );

    // The next hour Eve is applied as usual; the moderator releases the rest.
    let next_hour = start + SignedDuration::from_hours(3);
    deliver(
        &bot,
        next_hour,
        &[("eve@example.org", "[nomic] join Eve", "")],
    );
    bot.once(next_hour + SignedDuration::from_mins(30));
    assert_eq!(names(&bot), ["Ann", "Ben", "Cat", "Eve"]);
    let mut release = vec!["inbox".to_owned()];
    for id in held(&bot) {
        release.push("--release".to_owned());
        release.push(id);
    }
    let release: Vec<&str> = release.iter().map(String::as_str).collect();
    bot.cli_ok(&release);
    bot.once(next_hour + SignedDuration::from_hours(1));
    let mut all = names(&bot);
    all.sort();
    assert_eq!(all, ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay"]);
}

#[test]
fn a_moderator_and_a_deadline_go_through_past_the_bound() {
    let bot = bot_with(&[("max_outgoing_per_hour", "4"), ("alias_confirm_hours", "1")]);
    let start = at("2026-02-02T09:50:00Z");
    deliver(
        &bot,
        start,
        &[
            ("alice@example.org", "[nomic] join Alice", ""),
            // Unconfirmed: the request lapses at 10:51, a deadline.
            (
                "alice@example.org",
                "[nomic] alias alice@elsewhere.example",
                "",
            ),
        ],
    );
    let ten = at("2026-02-02T10:00:00Z");
    deliver(
        &bot,
        ten,
        &[
            ("bob@example.org", "[nomic] join Bob", ""),
            ("carol@example.org", "[nomic] join Carol", ""),
            ("dave@example.org", "[nomic] join Dave", ""),
            (MODERATOR, "[nomic] adjust Bob 5 A$ because a prize", ""),
        ],
    );
    bot.once(at("2026-02-02T12:00:00Z"));

    assert_eq!(names(&bot), ["Alice", "Bob", "Carol"]);
    assert_eq!(held(&bot).len(), 1, "{}", bot.inbox_with_status("aside"));
    // The moderator's override was applied past the bound, and the deadline fired.
    assert_eq!(
        balance(&bot.state_json(), "Bob", "A$").as_deref(),
        Some("5")
    );
    let lapsed: Vec<SentMail> = mail_to(&bot, "alice@example.org")
        .into_iter()
        .filter(|m| m.auto_submitted.as_deref() == Some("auto-generated"))
        .collect();
    assert!(
        !lapsed.is_empty(),
        "{:#?}",
        mail_to(&bot, "alice@example.org")
    );
    assert_eq!(alerts(&bot).len(), 1);
}

#[test]
fn a_bot_that_catches_up_holds_what_one_that_never_stopped_holds() {
    let script: &[(&str, &str, &str)] = &[
        ("ann@example.org", "[nomic] join Ann", ""),
        ("ann@example.org", "[nomic] rename Anna", ""),
        ("ben@example.org", "[nomic] join Ben", ""),
        ("ann@example.org", "[nomic] rename Anne", ""),
        ("cat@example.org", "[nomic] join Cat", ""),
        ("ben@example.org", "[nomic] rename Benny", ""),
    ];
    let settings = [("max_actions_per_day", "2"), ("max_outgoing_per_hour", "8")];
    let start = at("2026-02-02T10:00:00Z");
    let caught_up = bot_with(&settings);
    deliver(&caught_up, start, script);
    caught_up.once(start + SignedDuration::from_hours(30));
    let steady = bot_with(&settings);
    for (minute, one) in script.iter().enumerate() {
        let arrival = start + SignedDuration::from_mins(minute as i64);
        deliver(&steady, arrival, std::slice::from_ref(one));
        steady.once(arrival + SignedDuration::from_secs(30));
    }
    steady.once(start + SignedDuration::from_hours(30));
    assert_eq!(names(&caught_up), names(&steady));
    assert_eq!(held(&caught_up), held(&steady));
    assert!(!held(&steady).is_empty());
}

#[test]
fn the_roster_answer_names_the_first_players_and_counts_the_rest() {
    let bot = bot_with(&[("roster_names", "2")]);
    let start = at("2026-02-02T10:00:00Z");
    deliver(
        &bot,
        start,
        &[
            ("ann@example.org", "[nomic] join Ann", ""),
            ("ben@example.org", "[nomic] join Ben", ""),
            ("cat@example.org", "[nomic] join Cat", ""),
            ("dan@example.org", "[nomic] join Dan", ""),
            ("ann@example.org", "[nomic] players", ""),
        ],
    );
    bot.once(start + SignedDuration::from_hours(1));
    let roster = mail_to(&bot, "ann@example.org")
        .into_iter()
        .find(|m| m.body.contains("> players"))
        .expect("the roster answer");
    assert!(roster.body.contains("The players (4):"), "{}", roster.body);
    assert!(
        roster.body.contains("Ann <ann@example.org>"),
        "{}",
        roster.body
    );
    assert!(
        roster.body.contains("Ben <ben@example.org>"),
        "{}",
        roster.body
    );
    assert!(!roster.body.contains("Cat <"), "{}", roster.body);
    assert!(!roster.body.contains("Dan <"), "{}", roster.body);
    assert!(roster.body.contains("and 2 more"), "{}", roster.body);
    assert!(
        roster.body.contains("nomicbot state players"),
        "{}",
        roster.body
    );
}

#[test]
fn a_pass_killed_in_a_flood_loses_nothing_and_tells_no_one_twice() {
    let script: &[(&str, &str, &str)] = &[
        ("alice@example.org", "[nomic] join Alice", ""),
        ("alice@example.org", "[nomic] rename Alicia", ""),
        ("alice@example.org", "[nomic] rename Alix", ""),
        ("alice@example.org", "[nomic] rename Ali", ""),
        ("alice@example.org", "[nomic] rename Al", ""),
        ("alice@example.org", "[nomic] rename A", ""),
        ("bob@example.org", "[nomic] join Bob", ""),
        ("bob@example.org", "[nomic] rename Bobby", ""),
    ];
    let settings = [("max_actions_per_day", "3")];
    let start = at("2026-02-02T10:00:00Z");
    let later = start + SignedDuration::from_hours(1);
    let reference = bot_with(&settings);
    deliver(&reference, start, script);
    reference.once(later);

    let killed = bot_with(&settings);
    deliver(&killed, start, script);
    // The fourth message applied is Bob's join, in the batch that also holds
    // Alice's three: killed there, none of that batch is durable.
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_nomicbot"));
    command
        .arg("--config")
        .arg(killed.config_path())
        .args(["once", "--now", &later.to_string()]);
    crate::e2e::run_until_failpoint(command, "after-commit:4");
    killed.once(later);

    assert_eq!(names(&killed), ["Alix", "Bobby"]);
    assert_eq!(names(&killed), names(&reference));
    assert_eq!(held(&killed), held(&reference));
    assert_eq!(held_notices(&killed, "alice@example.org"), 1);
    assert_eq!(alerts(&killed).len(), 1);
}
