//! `[ping]`, the Machine That Goes *ping* (Ackanomic rule 1209/14), through the
//! real pipeline: mail into the inbox Maildir, `nomicbot once`, the answers and
//! announcements read back from the outbox, the state from `state --json`. One
//! scenario per section of the rule, named after it (the rule has no §V), then
//! the cheats a player might try.

use jiff::{SignedDuration, Timestamp};

use crate::support::{LocalBot, SentMail, at, balance, message};

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";
const MODERATOR: &str = "mod@nomic.example";
const ALICE: &str = "alice@nomic.example";
const BOB: &str = "bob@nomic.example";
const CAROL: &str = "carol@nomic.example";
const DAVE: &str = "dave@nomic.example";

/// The truth of most scenarios: dictionary words only.
const CLAUSE: &str = "the day of the week is odd";
const DISGUISED: &str = "IF AND ONLY IF today *** *** ** *** **** ** ***, THEN the Machine That Goes *ping* shall go *ping*.";

/// Monday 2 March 2026, 09:00 UTC.
fn start() -> Timestamp {
    at("2026-03-02T09:00:00Z")
}

fn minutes(n: i64) -> Timestamp {
    start() + SignedDuration::from_mins(n)
}

fn days(n: i64) -> Timestamp {
    start() + SignedDuration::from_hours(24 * n)
}

struct Game {
    bot: LocalBot,
    sent: usize,
    /// Makes every message's file name and Message-ID its own.
    count: std::cell::Cell<u32>,
}

impl Game {
    /// Alice, Bob, Carol and Dave have joined; `mod@` is a moderator.
    fn new() -> Game {
        let config = crate::support::trusting().replace(
            "moderators = []",
            &format!("moderators = [\"{MODERATOR}\"]"),
        );
        let game = Game {
            bot: LocalBot::with_config(&config),
            sent: 0,
            count: std::cell::Cell::new(0),
        };
        for (i, name) in ["Alice", "Bob", "Carol", "Dave"].iter().enumerate() {
            let from = format!("{}@nomic.example", name.to_lowercase());
            game.deliver(
                &from,
                LIST,
                &format!("[nomic] join {name}"),
                "",
                start() + SignedDuration::from_secs(i as i64),
            );
        }
        game
    }

    fn deliver(&self, from: &str, to: &str, subject: &str, body: &str, when: Timestamp) {
        let count = self.count.get() + 1;
        self.count.set(count);
        let id = format!("{count}-{}@players.test", from.replace('@', "."));
        let name = format!("{count}-{}", from.replace('@', "."));
        self.bot
            .deliver(&name, &message(from, to, subject, &id, body), when);
    }

    /// One message of `[ping]` lines, and a pass of the bot a minute later.
    fn send(&mut self, from: &str, public: bool, lines: &[&str], when: Timestamp) {
        let to = if public { LIST } else { BOT };
        self.deliver(from, to, "[ping] lines", &lines.join("\n"), when);
        self.bot.once(when + SignedDuration::from_mins(1));
    }

    fn nomic(&mut self, from: &str, line: &str, when: Timestamp) {
        self.deliver(from, LIST, &format!("[nomic] {line}"), "", when);
        self.bot.once(when + SignedDuration::from_mins(1));
    }

    fn wait(&self, until: Timestamp) {
        self.bot.once(until);
    }

    /// Every mail sent since the last call.
    fn new_mail(&mut self) -> Vec<SentMail> {
        let all = self.bot.sent_mail();
        let new = all[self.sent.min(all.len())..].to_vec();
        self.sent = all.len();
        new
    }

    fn answers(&self, who: &str) -> Vec<String> {
        self.bot
            .sent_mail()
            .into_iter()
            .filter(|m| m.is_to(who))
            .map(|m| m.body)
            .collect()
    }

    fn announced(&self, subject: &str) -> Vec<SentMail> {
        self.bot
            .sent_mail()
            .into_iter()
            .filter(|m| m.is_to(LIST) && m.subject.contains(subject))
            .collect()
    }

    /// The ping notices posted so far.
    fn notices(&self) -> Vec<SentMail> {
        self.bot
            .sent_mail()
            .into_iter()
            .filter(|m| m.is_to(LIST) && m.subject.starts_with("[ping] *ping*"))
            .collect()
    }

    fn ping(&self) -> serde_json::Value {
        self.bot.state_json()["ping"].clone()
    }

    fn scholar(&self) -> String {
        self.ping()["term"]["scholar_name"]
            .as_str()
            .unwrap_or("nobody")
            .to_owned()
    }

    /// The moderator places the Machine in Alice's Home.
    fn placed() -> Game {
        let mut game = Game::new();
        game.send(
            MODERATOR,
            true,
            &["place Alice because the Machine must begin"],
            minutes(10),
        );
        game
    }

    /// Alice's truth (and form), mailed to the bot alone on Monday 2 March.
    fn with_truth(form: Option<&str>) -> Game {
        let mut game = Game::placed();
        let truth = format!("truth {CLAUSE}");
        let mut lines = vec![truth.as_str()];
        let form = form.map(|f| format!("form {f}"));
        lines.extend(form.as_deref());
        game.send(ALICE, false, &lines, minutes(20));
        game
    }
}

fn assert_answered(game: &Game, who: &str, expected: &[&str]) {
    let answers = game.answers(who);
    assert!(
        answers
            .iter()
            .any(|body| expected.iter().all(|e| body.contains(e))),
        "no answer to {who} contains {expected:?}:\n{answers:#?}"
    );
}

/// No public mail shows the clause's words in order, undisguised.
fn assert_secret(game: &Game, clause: &str) {
    for mail in game.bot.sent_mail().iter().filter(|m| m.is_to(LIST)) {
        assert!(
            !mail.body.to_lowercase().contains(&clause.to_lowercase()),
            "the truth leaked in {}:\n{}",
            mail.subject,
            mail.body
        );
    }
}

#[test]
fn section_i_the_unique_machine_is_placed_by_a_moderator() {
    let mut game = Game::new();
    game.send(BOB, true, &["place Bob because I want it"], minutes(5));
    assert_answered(&game, BOB, &["Refused"]);
    assert!(game.ping()["term"].is_null());
    game.send(
        MODERATOR,
        true,
        &["place Alice because the Machine must begin"],
        minutes(10),
    );
    let moved = game.announced("The Machine That Goes *ping* is now in Alice's Home");
    assert_eq!(moved.len(), 1);
    assert!(
        moved[0].body.contains("Alice is the\nScholar of *ping*"),
        "{}",
        moved[0].body
    );
    game.send(
        MODERATOR,
        true,
        &["place Bob because a second one"],
        minutes(11),
    );
    assert_answered(&game, MODERATOR, &["is unique", "Alice's Home"]);
    assert_eq!(game.scholar(), "Alice");
}

#[test]
fn section_ii_the_machine_lives_only_in_an_active_players_home() {
    let mut game = Game::new();
    game.nomic(BOB, "home The Old Mill", minutes(1));
    game.nomic(CAROL, "vacation until 2026-03-20", minutes(2));
    game.send(
        MODERATOR,
        true,
        &["place Carol because she is away"],
        minutes(5),
    );
    assert_answered(
        &game,
        MODERATOR,
        &["Refused", "Carol is not an active player"],
    );
    game.send(
        MODERATOR,
        true,
        &["place Bob because he has a mill"],
        minutes(6),
    );
    assert_eq!(game.announced("is now in The Old Mill").len(), 1);
    game.send(DAVE, true, &["status"], minutes(7));
    assert_answered(
        &game,
        DAVE,
        &["resides in The Old Mill", "Bob is the Scholar"],
    );
    assert_eq!(game.ping()["term"]["home"], "The Old Mill");
}

#[test]
fn section_iii_the_truth_is_checked_and_announced_disguised() {
    let mut game = Game::placed();
    // A forged Scholar, a truth on the list, and truths that break §III.
    game.send(BOB, false, &["truth the day is odd"], minutes(11));
    assert_answered(&game, BOB, &["only the Scholar of *ping*, Alice"]);
    game.send(ALICE, true, &["truth the day is even"], minutes(12));
    assert_answered(&game, ALICE, &["mailed to the bot alone"]);
    game.send(
        ALICE,
        false,
        &["truth the day of the week is odd and the day of the month is even too"],
        minutes(13),
    );
    assert_answered(&game, ALICE, &["has 16 words; no more than 12"]);
    game.send(ALICE, false, &["truth the day is blorfish"], minutes(14));
    assert_answered(
        &game,
        ALICE,
        &["\"blorfish\" is in neither the official dictionary nor the rules"],
    );
    assert!(game.announced("disguised").is_empty());
    game.new_mail();
    // The whole sentence will do as well as the clause.
    let sentence = format!(
        "IF AND ONLY IF today {CLAUSE}, THEN the Machine That Goes *ping* shall go *ping*."
    );
    game.send(ALICE, false, &[&format!("truth {sentence}")], minutes(20));
    let disguised = game.announced("The Machine's truth, disguised");
    assert_eq!(disguised.len(), 1);
    assert!(
        disguised[0].body.contains(DISGUISED),
        "{}",
        disguised[0].body
    );
    assert!(
        disguised[0].body.contains("From 2026-03-03"),
        "{}",
        disguised[0].body
    );
    game.send(ALICE, false, &["truth the day is even"], minutes(21));
    assert_answered(&game, ALICE, &["uttered one truth this term already"]);
    // The truth is in no public mail and not in the public state.
    assert_secret(&game, CLAUSE);
    let state = game.ping().to_string();
    assert!(!state.contains(CLAUSE), "{state}");
}

#[test]
fn section_iii_words_with_apostrophes_and_hyphens_are_words_properly_punctuated() {
    // "Each of these words must be in the official dictionary or exist in the
    // Rules. {if clause} shall not contain anything that is not a word, except
    // punctuation properly used by the rules of standard English." The shipped
    // dictionary has no word with an apostrophe or a hyphen: these are read by
    // the words their marks separate.
    let mut game = Game::placed();
    // Hyphens gluing a non-word, and gluing words to pass for one.
    game.send(ALICE, false, &["truth is-blorf-day"], minutes(11));
    assert_answered(
        &game,
        ALICE,
        &["\"blorf\" (in \"is-blorf-day\") is in neither the official dictionary nor the rules"],
    );
    game.send(
        ALICE,
        false,
        &["truth the-day-of-the-week-is-odd-and-the-day-of-the-month-is-even"],
        minutes(12),
    );
    assert_answered(&game, ALICE, &["has 15 words; no more than 12"]);
    // Marks with nothing between them, and nothing but marks.
    game.send(ALICE, false, &["truth it can''t be odd"], minutes(13));
    assert_answered(
        &game,
        ALICE,
        &["\"can''t\" has an apostrophe or hyphen with no letters on one side"],
    );
    game.send(ALICE, false, &["truth --"], minutes(14));
    assert_answered(&game, ALICE, &["the if clause is empty"]);
    assert!(game.announced("disguised").is_empty());
    game.new_mail();

    // "it's" and "isn’t" (a curly apostrophe) ride on "it" and "is";
    // "week-end" and "o'clock" are two words each: ten words in all.
    let clause = "it's a week-end day and isn’t twelve o'clock";
    game.send(ALICE, false, &[&format!("truth {clause}")], minutes(20));
    assert_answered(&game, ALICE, &["The Machine's truth is accepted", clause]);
    let disguised = game.announced("The Machine's truth, disguised");
    assert_eq!(disguised.len(), 1);
    assert!(
        disguised[0].body.contains(
            "IF AND ONLY IF today **'* * ****-*** *** *** ***’* ****** *'*****, THEN the Machine That Goes *ping* shall go *ping*."
        ),
        "{}",
        disguised[0].body
    );
    let private = game.bot.cli_ok(&["state", "ping", "--json", "--private"]);
    assert!(private.contains(clause), "{private}");
    assert_secret(&game, clause);

    // A guess is compared with punctuation aside, the marks inside words too.
    game.send(
        BOB,
        true,
        &["guess its a weekend day and isn't twelve oclock"],
        minutes(30),
    );
    assert_eq!(game.announced("Congratulations, Bob!").len(), 1);
    assert_eq!(game.scholar(), "Bob");
}

#[test]
fn section_iii_a_quack_is_teleported_at_random_after_seven_days() {
    let game = Game::placed();
    game.wait(minutes(10) + SignedDuration::from_hours(7 * 24) - SignedDuration::from_mins(1));
    assert_eq!(game.scholar(), "Alice");
    game.wait(days(8));
    let moved = game.announced("The Machine That Goes *ping* is now in");
    assert_eq!(moved.len(), 2, "{moved:#?}");
    assert!(
        moved[1].body.contains("deemed to be a quack"),
        "{}",
        moved[1].body
    );
    assert!(
        moved[1]
            .body
            .contains("Officer in charge of Random Things drew"),
        "{}",
        moved[1].body
    );
    assert_ne!(game.scholar(), "Alice");
    // The draw's period is published, so anyone can check it.
    game.bot.cli_ok(&["verify-random"]);
}

#[test]
fn section_iv_each_ping_is_announced_word_for_word_late_ones_with_an_apology() {
    let mut game = Game::with_truth(None);
    game.send(ALICE, false, &["pinged today"], minutes(30));
    assert_answered(
        &game,
        ALICE,
        &["only from the calendar day after", "2026-03-03"],
    );
    game.send(ALICE, false, &["pinged today"], days(1));
    let notice = "Today is Tuesday, the 3rd day of March, in the Year of Our Lord 2026, and the Machine That Goes *ping* Has Gone *ping* today. Since I have been scholar, the Machine has gone *ping* 1 times.";
    let pings = game.notices();
    assert!(
        pings
            .iter()
            .any(|m| m.body.replace('\n', " ").contains(notice)),
        "{pings:#?}"
    );
    game.send(
        ALICE,
        false,
        &["pinged today"],
        days(1) + SignedDuration::from_mins(5),
    );
    assert_answered(&game, ALICE, &["is announced already"]);
    game.send(ALICE, false, &["pinged on 2026-03-07"], days(4));
    assert_answered(&game, ALICE, &["has not come yet"]);
    game.send(ALICE, false, &["pinged on 2026-03-04"], days(4));
    let late = game.announced("*ping* (of 2026-03-04, late)");
    assert_eq!(late.len(), 1);
    let body = late[0].body.replace('\n', " ");
    assert!(
        body.contains("apologises for this tardy announcement"),
        "{body}"
    );
    assert!(body.contains("Today is Wednesday, the 4th day of March, in the Year of Our Lord 2026, and the Machine That Goes *ping* Has Gone *ping* today. Since I have been scholar, the Machine has gone *ping* 2 times."), "{body}");
    game.send(ALICE, false, &["pinged on 2026-03-03"], days(6));
    assert_answered(&game, ALICE, &["during the next 2 days"]);
    assert_eq!(
        game.ping()["term"]["pings"].as_array().map(Vec::len),
        Some(2)
    );
}

#[test]
fn section_iv_the_bot_pings_by_itself_on_each_day_the_form_holds() {
    let mut game = Game::placed();
    game.send(
        ALICE,
        false,
        &[&format!("truth {CLAUSE}"), "form month is april"],
        minutes(20),
    );
    assert_answered(&game, ALICE, &["would not go *ping* for 7 days in a row"]);
    game.send(ALICE, false, &["form day > 0"], minutes(21));
    assert_answered(&game, ALICE, &["every day for 14 days in a row"]);
    game.send(
        ALICE,
        false,
        &["form weekday is tuesday or weekday is friday"],
        minutes(22),
    );
    assert_answered(&game, ALICE, &["pings by your form"]);
    game.wait(days(9));
    let pings: Vec<String> = game
        .notices()
        .into_iter()
        .map(|m| m.body.replace('\n', " "))
        .collect();
    assert_eq!(pings.len(), 3, "{pings:#?}");
    assert!(pings[0].contains("Today is Tuesday, the 3rd day of March"));
    assert!(pings[1].contains("Today is Friday, the 6th day of March"));
    assert!(pings[2].contains("Today is Tuesday, the 10th day of March"));
    assert!(pings[2].contains("has gone *ping* 3 times."));
    game.send(
        ALICE,
        false,
        &["pinged on 2026-03-09"],
        days(9) + SignedDuration::from_mins(1),
    );
    assert_answered(&game, ALICE, &["did not go *ping* on 2026-03-09"]);
    assert_secret(&game, "weekday is tuesday");
}

#[test]
fn section_vi_guesses_are_congratulated_or_ridiculed_and_fined() {
    let mut game = Game::placed();
    game.send(BOB, true, &["guess the day is odd"], minutes(15));
    assert_answered(
        &game,
        BOB,
        &["Ignored", "has not announced the disguised truth"],
    );
    game.send(
        ALICE,
        false,
        &[&format!("truth {CLAUSE}"), "ridicule Flat-Earther!"],
        minutes(20),
    );
    game.send(BOB, false, &["guess the day is odd"], minutes(30));
    assert_answered(&game, BOB, &["a guess is posted publicly"]);
    game.send(ALICE, true, &["guess the day is odd"], minutes(31));
    assert_answered(&game, ALICE, &["the Scholar may not guess"]);
    game.send(BOB, true, &["guess the day is odd"], minutes(32));
    let wrong = game.announced("Bob guessed wrong");
    assert_eq!(wrong.len(), 1);
    assert!(wrong[0].body.contains("Flat-Earther!"), "{}", wrong[0].body);
    assert!(
        wrong[0].body.contains("A$10, paid to the Treasury"),
        "{}",
        wrong[0].body
    );
    assert_eq!(
        balance(&game.bot.state_json(), "Bob", "A$").as_deref(),
        Some("-10")
    );
    game.send(
        BOB,
        true,
        &["guess the day of the week is odd"],
        minutes(33),
    );
    assert_answered(&game, BOB, &["you guessed this term already"]);
    // Case, spacing and punctuation aside.
    game.send(
        CAROL,
        true,
        &["guess The Day of the week, is ODD!"],
        minutes(34),
    );
    assert_eq!(game.announced("Congratulations, Carol!").len(), 1);
    let revealed = game.announced("The Machine's truth, undisguised");
    assert!(revealed[0].body.contains(CLAUSE), "{}", revealed[0].body);
    assert_eq!(game.announced("is now in Carol's Home").len(), 1);
    assert_eq!(game.scholar(), "Carol");
    assert_eq!(game.ping()["boons_due"][0]["name"], "Carol");
    // A guess after the correct one is in Carol's term, before any truth.
    game.send(
        DAVE,
        true,
        &["guess the day of the week is odd"],
        minutes(35),
    );
    assert_answered(
        &game,
        DAVE,
        &["Ignored", "Carol, the Scholar, has not announced"],
    );
}

#[test]
fn section_vii_a_magic_letter_is_shown_and_its_premium_charged() {
    let mut game = Game::with_truth(Some("weekday is tuesday or weekday is friday"));
    game.wait(days(15));
    game.send(BOB, true, &["magic letter e"], days(15));
    assert_answered(&game, BOB, &["it has gone *ping* 5 times this term"]);
    game.wait(days(18));
    game.send(ALICE, true, &["magic letter e"], days(18));
    assert_answered(&game, ALICE, &["the Scholar may not name"]);
    game.send(
        BOB,
        true,
        &["magic letter e"],
        days(18) + SignedDuration::from_mins(2),
    );
    let repost = game.announced("The Magic Letter 'e'");
    assert_eq!(repost.len(), 1);
    assert!(
        repost[0]
            .body
            .contains("IF AND ONLY IF today **e *** ** **e *ee* ** ***, THEN"),
        "{}",
        repost[0].body
    );
    assert_eq!(
        balance(&game.bot.state_json(), "Bob", "A$").as_deref(),
        Some("-25")
    );
    game.send(
        CAROL,
        true,
        &["magic letter d"],
        days(18) + SignedDuration::from_mins(4),
    );
    assert_answered(&game, CAROL, &["0 since the last"]);
    game.wait(days(39));
    game.send(BOB, true, &["magic letter d"], days(39));
    assert_answered(
        &game,
        BOB,
        &["the most recent player to name a Magic Letter"],
    );
    game.send(
        CAROL,
        true,
        &["magic letter e"],
        days(39) + SignedDuration::from_mins(2),
    );
    assert_answered(&game, CAROL, &["'e' is already a Magic Letter"]);
    game.send(
        CAROL,
        true,
        &["magic letter d"],
        days(39) + SignedDuration::from_mins(4),
    );
    let repost = game.announced("The Magic Letter 'd'");
    assert!(
        repost[0]
            .body
            .contains("IF AND ONLY IF today **e d** ** **e *ee* ** *dd, THEN"),
        "{}",
        repost[0].body
    );
    assert_eq!(
        balance(&game.bot.state_json(), "Carol", "A$").as_deref(),
        Some("-15")
    );
}

#[test]
fn section_viii_thirty_pings_reveal_the_truth_and_teleport_the_machine() {
    let game = Game::with_truth(Some("not weekday is saturday and not weekday is sunday"));
    // Thirty weekdays from Tuesday 3 March: the last is Monday 13 April.
    game.wait(days(45));
    let pings = game.notices();
    assert_eq!(pings.len(), 30, "{}", pings.len());
    assert!(pings[29].body.contains("has gone *ping* 30 times."));
    let revealed = game.announced("The Machine's truth, undisguised");
    assert_eq!(revealed.len(), 1);
    assert!(
        revealed[0].body.contains("thirty times"),
        "{}",
        revealed[0].body
    );
    assert!(revealed[0].body.contains(CLAUSE));
    let moved = game.announced("The Machine That Goes *ping* is now in");
    assert_eq!(moved.len(), 2);
    assert!(
        moved[1].body.contains("randomly teleports"),
        "{}",
        moved[1].body
    );
    assert_ne!(game.scholar(), "Alice");
    // Issue 24, item 13: the draw's purpose, published with its period, gives
    // the reason in words, not its code.
    let random = game.bot.cli_ok(&["state", "random", "--json"]);
    assert!(
        random.contains("teleports (after thirty pings)"),
        "{random}"
    );
    assert!(!random.contains("thirty_pings"), "{random}");
    game.bot.cli_ok(&["verify-random"]);
}

#[test]
fn section_ix_gaol_or_vacation_teleports_the_machine_and_the_truth_is_revealed() {
    let mut game = Game::with_truth(None);
    game.nomic(ALICE, "vacation until 2026-03-05", minutes(40));
    let moved = game.announced("The Machine That Goes *ping* is now in");
    assert_eq!(moved.len(), 2);
    assert!(
        moved[1].body.contains("went on vacation"),
        "{}",
        moved[1].body
    );
    assert!(
        game.announced("undisguised").is_empty(),
        "revealed before the return"
    );
    assert_secret(&game, CLAUSE);
    game.wait(days(4));
    let revealed = game.announced("The Machine's truth, undisguised");
    assert_eq!(revealed.len(), 1);
    assert!(
        revealed[0].body.contains("has returned"),
        "{}",
        revealed[0].body
    );
    assert!(revealed[0].body.contains(CLAUSE));
    // The new Scholar goes to Gaol.
    let scholar = game.scholar();
    game.nomic(
        MODERATOR,
        &format!("gaol {scholar} because a test"),
        days(4) + SignedDuration::from_mins(5),
    );
    let moved = game.announced("The Machine That Goes *ping* is now in");
    assert_eq!(moved.len(), 3);
    assert!(
        moved[2].body.contains("placed in Gaol"),
        "{}",
        moved[2].body
    );
    assert_ne!(game.scholar(), scholar);
}

#[test]
fn section_ix_the_weighter_matters_claim_and_a_call_for_removal() {
    let mut game = Game::placed();
    game.send(
        ALICE,
        true,
        &["I have weightier matters to research, such as the shape of the Earth"],
        minutes(15),
    );
    assert_answered(&game, ALICE, &["word for word"]);
    game.send(
        ALICE,
        true,
        &["i have WEIGHTER matters to research, such as the shape of the Earth."],
        minutes(16),
    );
    let moved = game.announced("The Machine That Goes *ping* is now in");
    assert_eq!(moved.len(), 2);
    assert!(
        moved[1].body.contains("weighter matters"),
        "{}",
        moved[1].body
    );
    let scholar = game.scholar();
    let address = format!("{}@nomic.example", scholar.to_lowercase());
    game.send(&address, false, &[&format!("truth {CLAUSE}")], minutes(20));
    let caller = if scholar == "Bob" { CAROL } else { BOB };
    game.send(caller, true, &["remove the scholar"], minutes(30));
    assert_answered(&game, caller, &["Refused", "nothing publicly knowable"]);
    game.send(&address, false, &["pinged on 2026-03-03"], days(2));
    game.send(
        caller,
        true,
        &["remove the scholar"],
        days(2) + SignedDuration::from_mins(2),
    );
    let moved = game.announced("The Machine That Goes *ping* is now in");
    assert_eq!(moved.len(), 3);
    assert!(
        moved[2].body.contains("announced late"),
        "{}",
        moved[2].body
    );
    assert!(game.announced("undisguised")[0].body.contains(CLAUSE));
    let caller_name = if caller == CAROL { "Carol" } else { "Bob" };
    assert_eq!(game.scholar(), caller_name);
    // A moderator may rule a violation publicly knowable.
    game.send(
        MODERATOR,
        true,
        &["violation hinted at the truth on the list"],
        days(3),
    );
    game.send(
        DAVE,
        true,
        &["remove the scholar"],
        days(3) + SignedDuration::from_mins(2),
    );
    assert_eq!(game.scholar(), "Dave");
}

#[test]
fn guesses_racing_a_correct_one_and_a_reply_quoting_a_guess_count_for_nothing() {
    let game = Game::with_truth(None);
    // Carol's correct guess and Dave's, in one pass: Carol's arrived first.
    game.deliver(
        CAROL,
        LIST,
        "[ping] guess",
        &format!("guess {CLAUSE}"),
        minutes(30),
    );
    game.deliver(
        DAVE,
        LIST,
        "[ping] guess",
        &format!("guess {CLAUSE}"),
        minutes(31),
    );
    // Bob replies on the list, quoting Carol's guess: his reply is no guess.
    game.deliver(
        BOB,
        LIST,
        "Re: [ping] guess",
        &format!("Nice try!\n\n> guess {CLAUSE}\n"),
        minutes(32),
    );
    game.wait(minutes(40));
    assert_eq!(game.announced("Congratulations").len(), 1);
    assert_eq!(game.scholar(), "Carol");
    assert_answered(
        &game,
        DAVE,
        &["Ignored", "Carol, the Scholar, has not announced"],
    );
    assert_eq!(game.ping()["boons_due"].as_array().map(Vec::len), Some(1));
    assert!(game.answers(BOB).iter().all(|a| !a.contains("guess")));
    assert_eq!(balance(&game.bot.state_json(), "Bob", "A$"), None);
}

/// Issue 24, item 14: a guess previewed, right or wrong, says neither: the
/// preview is no oracle on the Scholar's truth, and nothing is fined or moved.
#[test]
fn issue_24_item_14_a_previewed_guess_does_not_say_whether_it_is_right() {
    let mut game = Game::placed();
    game.send(ALICE, false, &[&format!("truth {CLAUSE}")], minutes(20));
    game.new_mail();
    let before = game.bot.state_json();
    let mut bodies = Vec::new();
    for (n, guess) in [CLAUSE, "the day is odd"].iter().enumerate() {
        game.send(
            BOB,
            true,
            &["preview", &format!("guess {guess}")],
            minutes(30 + n as i64),
        );
        let sent = game.new_mail();
        assert_eq!(sent.len(), 1, "{sent:#?}");
        assert!(sent[0].is_to(BOB) && !sent[0].is_to(LIST));
        // The first line gives the message's time, the one difference allowed.
        let body = sent[0].body.replace(guess, "GUESS");
        bodies.push(body.lines().skip(1).collect::<Vec<_>>().join("\n"));
    }
    assert_eq!(game.bot.state_json(), before);
    // The right guess and the wrong one read the same.
    assert_eq!(bodies[0], bodies[1]);
    assert!(
        bodies[0].contains("what it would answer and announce is not shown"),
        "{}",
        bodies[0]
    );
    for leak in ["Congratulations", "wrong", "A$10"] {
        assert!(!bodies[0].contains(leak), "{leak}: {}", bodies[0]);
    }
}
