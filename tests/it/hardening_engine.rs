//! Regression tests of the hardening issue's engine items, each found by a hostile
//! player and named after its item: 9 (void) and 10 (the smaller ones), played
//! through the pipeline on the embedded Maildir transport.

use jiff::{SignedDuration, Timestamp};

use crate::support::{LocalBot, SentMail, at, message};

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";
const MODERATOR: &str = "mod@nomic.example";

fn bot() -> LocalBot {
    LocalBot::with_config(&crate::support::trusting().replace(
        "moderators = []",
        &format!("moderators = [\"{MODERATOR}\"]"),
    ))
}

fn player(name: &str) -> String {
    format!("{}@nomic.example", name.to_lowercase())
}

/// Plays messages a minute apart, each with the Message-ID given, from `start`;
/// one pass of the bot after the last.
struct Script<'a> {
    bot: &'a LocalBot,
    when: Timestamp,
}

impl<'a> Script<'a> {
    fn new(bot: &'a LocalBot) -> Script<'a> {
        Script {
            bot,
            when: at("2026-02-02T10:00:00Z"),
        }
    }

    /// Delivers one message with Message-ID `<ID@players.test>`; returns the id.
    fn send(&mut self, from: &str, to: &str, subject: &str, body: &str, id: &str) -> String {
        self.when += SignedDuration::from_mins(1);
        let message_id = format!("{id}@players.test");
        self.bot.deliver(
            id,
            &message(from, to, subject, &message_id, body),
            self.when,
        );
        message_id
    }

    fn run(&mut self) {
        self.when += SignedDuration::from_mins(1);
        self.bot.once(self.when);
    }
}

/// The answer to the message with this Message-ID (not the announcements nor the
/// other mail it caused).
fn answer_to(bot: &LocalBot, message_id: &str) -> String {
    bot.sent_mail()
        .into_iter()
        .find(|m| {
            m.in_reply_to.as_deref() == Some(message_id)
                && !m.is_to(LIST)
                && m.subject.contains("Re: ")
        })
        .unwrap_or_else(|| panic!("no answer to <{message_id}>"))
        .body
}

fn announcements(bot: &LocalBot) -> Vec<SentMail> {
    bot.sent_mail()
        .into_iter()
        .filter(|m| m.is_to(LIST))
        .collect()
}

/// A player's balance of `currency` in `state --json`, "0" when none.
fn balance(state: &serde_json::Value, id: u64, currency: &str) -> String {
    state["accounts"]["balances"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|b| b["currency"] == currency && b["holder"]["player"] == id)
        .map_or("0".to_owned(), |b| {
            b["amount"].as_str().unwrap_or("?").to_owned()
        })
}

fn player_id(state: &serde_json::Value, name: &str) -> u64 {
    state["players"]["players"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == name)
        .and_then(|p| p["id"].as_u64())
        .unwrap_or_else(|| panic!("{name} is in the registry: {}", state["players"]))
}

fn assert_replay_equals_live(bot: &LocalBot) {
    let replay = bot.cli_ok(&["replay"]);
    assert!(replay.contains("equals the live state"), "{replay}");
}

#[test]
fn hardening_9_a_voided_join_never_passes_its_id_or_balance_to_the_next_joiner() {
    let bot = bot();
    let mut script = Script::new(&bot);
    script.send(&player("Bob"), LIST, "[nomic] join Bob", "", "join-bob");
    let alice = script.send(
        &player("Alice"),
        LIST,
        "[nomic] join Alice",
        "",
        "join-alice",
    );
    script.send(
        MODERATOR,
        LIST,
        "[nomic]",
        "adjust Bob 10 A$ because a prize",
        "prize",
    );
    script.send(
        &player("Bob"),
        LIST,
        "[nomic] give 5 A$ to Alice",
        "",
        "gift",
    );
    script.run();
    let before = bot.state_json();
    let alice_id = player_id(&before, "Alice");
    assert_eq!(balance(&before, alice_id, "A$"), "5");

    script.send(
        MODERATOR,
        LIST,
        "[nomic]",
        &format!("void <{alice}> because she joined by mistake"),
        "void-join",
    );
    script.send(
        &player("Carol"),
        LIST,
        "[nomic] join Carol",
        "",
        "join-carol",
    );
    script.run();
    let state = bot.state_json();
    let carol_id = player_id(&state, "Carol");
    assert_ne!(carol_id, alice_id, "an id is never given out twice");
    assert_eq!(
        balance(&state, carol_id, "A$"),
        "0",
        "{}",
        state["accounts"]
    );
    // The gift stands as recorded, under the voided id no one holds.
    assert_eq!(balance(&state, alice_id, "A$"), "5");
    assert_eq!(balance(&state, player_id(&state, "Bob"), "A$"), "5");
    assert_replay_equals_live(&bot);

    // Alice may join again: under a new id, with nothing.
    script.send(
        &player("Alice"),
        LIST,
        "[nomic] join Alice",
        "",
        "join-alice-2",
    );
    script.run();
    let state = bot.state_json();
    let again = player_id(&state, "Alice");
    assert!(
        again != alice_id && again != carol_id,
        "{}",
        state["players"]
    );
    assert_eq!(balance(&state, again, "A$"), "0");
    assert_replay_equals_live(&bot);
}

#[test]
fn hardening_9_a_void_of_a_random_period_whose_draws_were_published_is_refused() {
    let bot = bot();
    let mut script = Script::new(&bot);
    let start = script.send(MODERATOR, LIST, "[nomic] random start week 1", "", "start");
    let draw = script.send(MODERATOR, LIST, "[nomic] random draw 6 a die", "", "draw");
    let void_start = script.send(
        MODERATOR,
        LIST,
        "[nomic]",
        &format!("void <{start}> because testing"),
        "void-start",
    );
    let void_draw = script.send(
        MODERATOR,
        LIST,
        "[nomic]",
        &format!("void <{draw}> because testing"),
        "void-draw",
    );
    script.run();
    let refused = answer_to(&bot, &void_start);
    assert!(
        refused.contains("Refused") && refused.contains("draws were made in it"),
        "{refused}"
    );
    assert!(refused.contains("random end"), "{refused}");
    let refused = answer_to(&bot, &void_draw);
    assert!(
        refused.contains("Refused") && refused.contains("made a random draw"),
        "{refused}"
    );
    assert!(
        !announcements(&bot)
            .iter()
            .any(|m| m.subject.contains("are void")),
        "a refused void is not announced"
    );
    let random = &bot.state_json()["random"];
    assert_eq!(random["current"]["label"], "week 1", "{random}");
    assert_eq!(random["current"]["draws"].as_array().map(Vec::len), Some(1));

    // The period ends as usual: its seed is published and every draw checks.
    let end = script.send(MODERATOR, LIST, "[nomic] random end", "", "end");
    script.run();
    assert!(answer_to(&bot, &end).contains("Done"));
    let verified = bot.cli_ok(&["verify-random"]);
    assert!(verified.contains("week 1"), "{verified}");
    // And publishing a seed cannot be taken back either.
    let void_end = script.send(
        MODERATOR,
        LIST,
        "[nomic]",
        &format!("void <{end}> because testing"),
        "void-end",
    );
    script.run();
    assert!(answer_to(&bot, &void_end).contains("published the seed"));

    // A period in which nothing was drawn may be voided: nothing of it was used.
    let idle = script.send(MODERATOR, LIST, "[nomic] random start week 2", "", "idle");
    let void_idle = script.send(
        MODERATOR,
        LIST,
        "[nomic]",
        &format!("void <{idle}> because started by mistake"),
        "void-idle",
    );
    script.run();
    assert!(answer_to(&bot, &void_idle).contains("are void"));
    assert!(bot.state_json()["random"]["current"].is_null());
    assert_replay_equals_live(&bot);
}

#[test]
fn hardening_9_a_void_of_a_void_restores_what_it_voided() {
    let bot = bot();
    let mut script = Script::new(&bot);
    script.send(
        &player("Alice"),
        LIST,
        "[nomic] join Alice",
        "",
        "join-alice",
    );
    script.send(&player("Bob"), LIST, "[nomic] join Bob", "", "join-bob");
    script.send(
        MODERATOR,
        LIST,
        "[nomic]",
        "adjust Alice 10 A$ because a prize",
        "prize",
    );
    let gift = script.send(
        &player("Alice"),
        LIST,
        "[nomic] give 4 A$ to Bob",
        "",
        "gift",
    );
    let void = script.send(
        MODERATOR,
        LIST,
        "[nomic]",
        &format!("void <{gift}> because I misread it"),
        "void-gift",
    );
    script.run();
    let state = bot.state_json();
    let (alice, bob) = (player_id(&state, "Alice"), player_id(&state, "Bob"));
    assert_eq!(balance(&state, alice, "A$"), "10");

    let unvoid = script.send(
        MODERATOR,
        LIST,
        "[nomic]",
        &format!("void <{void}> because the gift was fine after all"),
        "void-void",
    );
    script.run();
    let answer = answer_to(&bot, &unvoid);
    assert!(
        answer.contains("Done") && answer.contains(&format!("<{gift}> stand again")),
        "{answer}"
    );
    let announced = announcements(&bot)
        .into_iter()
        .find(|m| m.subject.contains(&void))
        .expect("the void of the void is announced");
    assert!(
        announced.body.contains("stands again") && announced.body.contains(&gift),
        "{}",
        announced.body
    );
    let state = bot.state_json();
    assert_eq!(balance(&state, alice, "A$"), "6");
    assert_eq!(balance(&state, bob, "A$"), "4");
    assert_replay_equals_live(&bot);

    // The same void again: it is void already.
    let again = script.send(
        MODERATOR,
        LIST,
        "[nomic]",
        &format!("void <{void}> because twice"),
        "void-void-again",
    );
    script.run();
    let answer = answer_to(&bot, &again);
    assert!(answer.contains("void already"), "{answer}");
    assert_eq!(balance(&bot.state_json(), alice, "A$"), "6");
}

/// Issue 15: replay reads the log as a stream (its voids first, then every event)
/// and must fold it exactly as the log held whole does: a voided join, a void, a
/// void of that void, and a player named "Voided" whose events name no void.
#[test]
fn issue_15_a_log_with_a_void_of_a_void_replays_alike_streamed_or_held() {
    let bot = bot();
    let mut script = Script::new(&bot);
    script.send(&player("Bob"), LIST, "[nomic] join Bob", "", "join-bob");
    let alice = script.send(
        &player("Alice"),
        LIST,
        "[nomic] join Alice",
        "",
        "join-alice",
    );
    script.send(
        &player("Voided"),
        LIST,
        "[nomic] join Voided",
        "",
        "join-voided",
    );
    script.send(
        MODERATOR,
        LIST,
        "[nomic]",
        "adjust Bob 10 A$ because a prize",
        "prize",
    );
    let gift = script.send(
        &player("Bob"),
        LIST,
        "[nomic] give 4 A$ to Voided",
        "",
        "gift",
    );
    script.send(
        MODERATOR,
        LIST,
        "[nomic]",
        &format!("void <{alice}> because she joined by mistake"),
        "void-join",
    );
    let void = script.send(
        MODERATOR,
        LIST,
        "[nomic]",
        &format!("void <{gift}> because I misread it"),
        "void-gift",
    );
    script.send(
        MODERATOR,
        LIST,
        "[nomic]",
        &format!("void <{void}> because the gift was fine after all"),
        "void-void",
    );
    script.send(
        &player("Carol"),
        LIST,
        "[nomic] join Carol",
        "",
        "join-carol",
    );
    script.run();
    let state = bot.state_json();
    assert_eq!(balance(&state, player_id(&state, "Voided"), "A$"), "4");
    assert_replay_equals_live(&bot);

    let bot = bot.open();
    let voids = bot.store.void_events().expect("the voids");
    assert_eq!(voids.len(), 3, "{voids:?}");
    let held = bot.store.events().expect("the log");
    let records: Vec<_> = held
        .iter()
        .map(|r| (r.at, r.cause.as_str(), &r.event))
        .collect();
    let folded_whole = nomicbot::games::fold(bot.initial_world(), &records);
    let mut n_folded = 0;
    let streamed = bot.rebuild_with(|| n_folded += 1).expect("rebuild");
    assert_eq!(n_folded, held.len());
    assert_eq!(streamed, folded_whole);
    let mut live = streamed;
    live.retire();
    assert_eq!(&live, bot.world());
}

#[test]
fn hardening_10_a_name_that_looks_like_another_players_is_refused() {
    let bot = bot();
    let mut script = Script::new(&bot);
    script.send(
        &player("Alice"),
        LIST,
        "[nomic] join Alice",
        "",
        "join-alice",
    );
    script.send(&player("Bob"), LIST, "[nomic] join Bob", "", "join-bob");
    // Cyrillic А, fullwidth Ａ, mathematical bold 𝐀.
    let spoofs: Vec<String> = ["\u{410}lice", "\u{ff21}lice", "\u{1d400}lice"]
        .iter()
        .enumerate()
        .map(|(n, name)| {
            script.send(
                &format!("mallory{n}@nomic.example"),
                BOT,
                "[nomic]",
                &format!("join {name}"),
                &format!("spoof-{n}"),
            )
        })
        .collect();
    // Cyrillic В while Bob plays.
    let rename = script.send(
        &player("Alice"),
        BOT,
        "[nomic]",
        "rename \u{412}ob",
        "rename",
    );
    script.run();
    for id in spoofs.iter().chain([&rename]) {
        let answer = answer_to(&bot, id);
        assert!(answer.contains("is taken by another player"), "{answer}");
    }
    let names: Vec<String> = bot.state_json()["players"]["players"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|p| p["name"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(names, ["Alice", "Bob"]);
}

#[test]
fn hardening_10_an_alias_to_the_list_or_the_bot_is_refused() {
    let bot = bot();
    let mut script = Script::new(&bot);
    script.send(
        &player("Alice"),
        LIST,
        "[nomic] join Alice",
        "",
        "join-alice",
    );
    let aliases = script.send(
        &player("Alice"),
        BOT,
        "[nomic]",
        &format!(
            "alias {LIST}\nalias <{}>\nalias alice2@nomic.example",
            BOT.to_uppercase()
        ),
        "aliases",
    );
    script.run();
    let answer = answer_to(&bot, &aliases);
    assert_eq!(
        answer
            .matches("is the address of the bot or of the game list")
            .count(),
        2,
        "{answer}"
    );
    assert!(answer.contains("A confirmation request went to alice2@nomic.example"));
    let requests: Vec<SentMail> = bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to(LIST) || m.is_to(BOT))
        .filter(|m| m.body.contains("confirm"))
        .collect();
    assert!(
        requests.is_empty(),
        "no confirmation request to the list or the bot: {requests:?}"
    );
}

#[test]
fn hardening_10_a_vacation_past_the_longest_is_refused_with_the_true_reason() {
    let bot = bot();
    let mut script = Script::new(&bot);
    script.send(
        &player("Alice"),
        LIST,
        "[nomic] join Alice",
        "",
        "join-alice",
    );
    let far = script.send(
        &player("Alice"),
        BOT,
        "[nomic]",
        "vacation until 9999-12-31",
        "far",
    );
    let year = script.send(
        &player("Alice"),
        BOT,
        "[nomic]",
        "vacation until 2027-02-01",
        "year",
    );
    script.run();
    let answer = answer_to(&bot, &far);
    assert!(!answer.contains("not in the future"), "{answer}");
    assert!(
        answer.contains("further away than the longest vacation, 366 days")
            && answer.contains("2027-02-03"),
        "{answer}"
    );
    assert!(answer_to(&bot, &year).contains("on vacation until 2027-02-01"));
}

#[test]
fn hardening_10_a_moderator_may_adjust_a_balance_below_zero_and_it_says_so() {
    let bot = bot();
    let mut script = Script::new(&bot);
    script.send(&player("Bob"), LIST, "[nomic] join Bob", "", "join-bob");
    let adjust = script.send(
        MODERATOR,
        BOT,
        "[nomic]",
        "adjust Bob -1000 A$ because a fine",
        "fine",
    );
    script.run();
    let answer = answer_to(&bot, &adjust);
    assert!(
        answer.contains("Done") && answer.contains("Bob now has -1000 A$, below zero"),
        "{answer}"
    );
    let announced = announcements(&bot)
        .into_iter()
        .find(|m| m.subject.contains("adjusted"))
        .expect("the adjustment is announced");
    assert!(
        announced.body.contains("Bob now has -1000 A$, below zero"),
        "{}",
        announced.body
    );
    let state = bot.state_json();
    assert_eq!(balance(&state, player_id(&state, "Bob"), "A$"), "-1000");
    assert_replay_equals_live(&bot);
}

/// A message with extra headers, as a responder or a bounce generator writes it.
fn raw_message(from: &str, subject: &str, id: &str, headers: &str, body: &str) -> String {
    format!(
        "From: {from}\r\nTo: {BOT}\r\nSubject: {subject}\r\nMessage-ID: <{id}>\r\n{headers}\
         Date: Mon, 2 Feb 2026 10:00:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}"
    )
}

#[test]
fn hardening_10_auto_replies_marked_by_any_de_facto_header_are_never_answered() {
    let bot = bot();
    let marks = [
        "X-Autoreply: yes\r\n",
        "X-Auto-Reply: yes\r\n",
        "X-Precedence: auto_reply\r\n",
        "X-Vacation: yes\r\n",
        "X-POST-MessageClass: 9; Autoresponder\r\n",
        "X-Mailer: vacation 1.2.7\r\n",
        "X-Failed-Recipients: bob@nomic.example\r\n",
    ];
    let start = at("2026-02-02T10:00:00Z");
    for (n, headers) in marks.iter().enumerate() {
        bot.deliver(
            &format!("auto{n}"),
            &raw_message(
                &player("Alice"),
                "Re: [nomic] join Alice",
                &format!("auto-{n}@players.test"),
                headers,
                "I am away until Monday.\r\n",
            ),
            start + SignedDuration::from_mins(n as i64),
        );
    }
    bot.once(start + SignedDuration::from_hours(1));
    assert!(bot.sent().is_empty(), "no answer: {:#?}", bot.sent_mail());
    let aside = bot.inbox_with_status("aside");
    assert_eq!(
        aside.matches("automatic mail, never answered").count(),
        marks.len(),
        "{aside}"
    );
    assert!(
        aside.contains("X-Failed-Recipients") && aside.contains("X-Mailer"),
        "{aside}"
    );
    assert!(
        bot.state_json()["players"]["players"]
            .as_array()
            .is_none_or(Vec::is_empty)
    );
}

#[test]
fn hardening_10_a_line_break_in_a_subject_never_reaches_the_answers_headers() {
    let bot = bot();
    let when = at("2026-02-02T10:00:00Z");
    bot.deliver(
        "crlf",
        &raw_message(
            &player("Eve"),
            "=?utf-8?q?=5Bnomic=5D_join_Eve=0D=0ABcc=3A_victim=40nomic=2Eexample?=",
            "crlf@players.test",
            "",
            "",
        ),
        when,
    );
    bot.once(when + SignedDuration::from_mins(1));
    let sent = bot.sent_mail();
    assert!(!sent.is_empty(), "the message is answered");
    for mail in &sent {
        let headers = mail.raw.split("\r\n\r\n").next().unwrap_or_default();
        assert!(
            !headers
                .lines()
                .any(|l| l.to_lowercase().starts_with("bcc:")),
            "{headers}"
        );
        assert!(!mail.subject.contains(['\r', '\n']), "{:?}", mail.subject);
        assert!(!mail.is_to("victim@nomic.example"));
    }
    // The subject's rest is read as one line: a name with a colon is no name.
    assert!(
        sent.iter().any(|m| m
            .subject
            .ends_with("Re: [nomic] join Eve Bcc: victim@nomic.example")),
        "the answer's subject is the one line: {:?}",
        sent.iter().map(|m| &m.subject).collect::<Vec<_>>()
    );
    let answer = answer_to(&bot, "crlf@players.test");
    assert!(
        answer.contains("join Eve Bcc: victim@nomic.example"),
        "{answer}"
    );
}

#[test]
fn hardening_10_one_address_the_mail_library_refuses_is_one_refused_line() {
    let bot = bot();
    let mut script = Script::new(&bot);
    script.send(
        &player("Alice"),
        LIST,
        "[nomic] join Alice",
        "",
        "join-alice",
    );
    let lines = script.send(
        &player("Alice"),
        BOT,
        "[nomic]",
        "players\nalias not-an-address\nalias a..b@nomic.example\nalias (a)@nomic.example\nalias a@[10.0.0.1]\nalias alice2@nomic.example\nhome The Mill",
        "lines",
    );
    script.run();
    assert!(
        !bot.inbox_with_status("aside")
            .contains("lines@players.test"),
        "{}",
        bot.inbox_with_status("aside")
    );
    let answer = answer_to(&bot, &lines);
    assert_eq!(
        answer.matches("is not an e-mail address").count(),
        4,
        "{answer}"
    );
    assert!(
        answer.contains("A confirmation request went to alice2@nomic.example"),
        "{answer}"
    );
    assert!(
        answer.contains("Your Home is now called The Mill"),
        "{answer}"
    );
    assert!(
        bot.sent_mail()
            .iter()
            .any(|m| m.is_to("alice2@nomic.example"))
    );
}

/// Two steps at one instant: Gnomic counts one turn when its last vote comes in,
/// and the next turn's last vote comes in the same second (IMAP gives arrival
/// times to the second). Each count is a step of its own, with mail of its own:
/// the second's must not be taken for the first's and dropped.
#[test]
fn two_deadline_steps_at_one_instant_each_send_their_mail() {
    let bot = bot();
    let start = at("2026-03-02T09:00:00Z");
    for (i, name) in ["Alice", "Bob", "Carol"].iter().enumerate() {
        bot.deliver(
            &format!("join-{name}"),
            &message(
                &player(name),
                LIST,
                &format!("[nomic] join {name}"),
                &format!("join-{name}@x.test"),
                "",
            ),
            start + SignedDuration::from_mins(i as i64),
        );
    }
    bot.deliver(
        "start",
        &message(MODERATOR, LIST, "[gnomic] start", "start@x.test", ""),
        start + SignedDuration::from_mins(5),
    );
    // Everything after this, at the same instant.
    let instant = start + SignedDuration::from_mins(10);
    let script = [
        (
            "Alice",
            LIST,
            "[gnomic] turn",
            "hack 301 \"One\"\nenact\nOne.\nend",
        ),
        ("Bob", BOT, "[gnomic]", "vote 301 for"),
        ("Carol", BOT, "[gnomic]", "vote 301 for"),
        (
            "Bob",
            LIST,
            "[gnomic] turn",
            "hack 302 \"Two\"\nenact\nTwo.\nend",
        ),
        ("Alice", BOT, "[gnomic]", "vote 302 for"),
        ("Carol", BOT, "[gnomic]", "vote 302 for"),
    ];
    for (i, (who, to, subject, body)) in script.iter().enumerate() {
        bot.deliver(
            &format!("s{i}"),
            &message(&player(who), to, subject, &format!("s{i}@x.test"), body),
            instant,
        );
    }
    bot.once(instant + SignedDuration::from_mins(1));
    let subjects: Vec<String> = announcements(&bot).into_iter().map(|m| m.subject).collect();
    for turn in ["Turn 1 counted", "Turn 2 counted"] {
        assert!(
            subjects.iter().any(|s| s.contains(turn)),
            "{turn} is missing: {subjects:#?}"
        );
    }
    let log = bot.log_json();
    let mut causes: Vec<&str> = log
        .iter()
        .filter_map(|r| r["cause"].as_str())
        .filter(|c| c.starts_with("deadline:"))
        .collect();
    causes.dedup();
    let unique: std::collections::BTreeSet<&str> = causes.iter().copied().collect();
    assert_eq!(unique.len(), causes.len(), "{causes:#?}");
    assert_replay_equals_live(&bot);
}
