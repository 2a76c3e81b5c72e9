//! `[boons]`, the Boons of the Ancients (Ackanomic rule 1211/3), through the
//! real pipeline: mail into the inbox Maildir, `nomicbot once`, the answers and
//! announcements read back from the outbox, the inventory from `state --json`.
//! The Machine That Goes *ping*'s correct guess bestows a real Boon (§1), and a
//! Must Describe Boon goes through the Bogusity Hearing of `[bogusity]` (§7, §8).

use jiff::{SignedDuration, Timestamp};

use crate::support::{LocalBot, SentMail, at, balance, message};

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";
const MODERATOR: &str = "mod@nomic.example";
const ALICE: &str = "alice@nomic.example";
const BOB: &str = "bob@nomic.example";
const CAROL: &str = "carol@nomic.example";
const DAVE: &str = "dave@nomic.example";

fn start() -> Timestamp {
    at("2026-03-02T09:00:00Z")
}

fn minutes(n: i64) -> Timestamp {
    start() + SignedDuration::from_mins(n)
}

struct Game {
    bot: LocalBot,
    count: std::cell::Cell<u32>,
}

impl Game {
    /// Alice, Bob, Carol and Dave have joined; `mod@` is a moderator.
    fn new() -> Game {
        let config = nomicbot::config::DEFAULT_CONFIG.replace(
            "moderators = []",
            &format!("moderators = [\"{MODERATOR}\"]"),
        );
        let game = Game {
            bot: LocalBot::with_config(&config),
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

    /// One message of lines under `tag`, on the list, and a pass a minute later.
    fn send(&self, from: &str, tag: &str, lines: &[&str], when: Timestamp) {
        self.deliver(
            from,
            LIST,
            &format!("[{tag}] lines"),
            &lines.join("\n"),
            when,
        );
        self.bot.once(when + SignedDuration::from_mins(1));
    }

    fn announced(&self, subject: &str) -> Vec<SentMail> {
        self.bot
            .sent_mail()
            .into_iter()
            .filter(|m| m.is_to(LIST) && m.subject.contains(subject))
            .collect()
    }

    fn answered(&self, who: &str, words: &str) -> bool {
        self.bot
            .sent_mail()
            .into_iter()
            .any(|m| m.is_to(who) && m.body.contains(words))
    }

    fn entities(&self) -> Vec<serde_json::Value> {
        self.bot.state_json()["inventory"]["entities"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

#[test]
fn section_1_the_machines_correct_guess_bestows_a_random_boon() {
    let game = Game::new();
    game.send(
        MODERATOR,
        "ping",
        &["place Alice because the Machine must begin"],
        minutes(10),
    );
    game.deliver(
        ALICE,
        BOT,
        "[ping] truth",
        "truth the day of the week is odd",
        minutes(20),
    );
    game.bot.once(minutes(21));
    game.send(
        CAROL,
        "ping",
        &["guess the day of the week is odd"],
        minutes(30),
    );
    assert_eq!(game.announced("Congratulations, Carol!").len(), 1);
    // The Boon is drawn by the random officer at the guess's instant, in a
    // period opened for it and published after the draw.
    let chosen = game.announced("Boon of the Ancients 1 for Carol");
    assert_eq!(chosen.len(), 1, "no Boon was drawn");
    assert!(
        chosen[0].body.contains("random method"),
        "{}",
        chosen[0].body
    );
    assert!(
        chosen[0].body.contains("the Machine's truth"),
        "{}",
        chosen[0].body
    );
    let state = game.bot.state_json();
    let created = game.entities().len() == 1;
    let pending = state["boons"]["pending"].as_array().map_or(0, Vec::len) == 1;
    assert!(
        created != pending,
        "created at once, or waiting for its description: {state}"
    );
    // `verify-random` checks the published period.
    let revealed = game.announced("");
    assert!(
        revealed.iter().any(|m| m.body.contains("rule 1211 §4")),
        "the draw's purpose is published"
    );
}

#[test]
fn section_8_a_described_boon_through_the_bogusity_hearing() {
    let game = Game::new();
    // A forged bestowal is answered, and bestows nothing.
    game.send(
        ALICE,
        "boons",
        &["bestow Alice because I deserve it"],
        minutes(5),
    );
    assert!(game.answered(ALICE, "moderator"));
    game.send(
        MODERATOR,
        "boons",
        &[
            "bestow Alice deterministic because the test's Boon",
            "bestow Bob deterministic because the test's other Boon",
        ],
        minutes(10),
    );
    game.send(ALICE, "boons", &["choose d"], minutes(20));
    game.send(BOB, "boons", &["choose e"], minutes(21));
    game.send(ALICE, "boons", &["describe a brass astrolabe"], minutes(30));
    game.send(
        BOB,
        "boons",
        &["describe a perpetual motion engine"],
        minutes(31),
    );
    let posted = game.announced("Description 1 of a Must Describe Boon");
    assert_eq!(posted.len(), 1, "handed to [bogusity]");
    assert!(posted[0].body.contains("a brass astrolabe"));
    game.send(CAROL, "bogusity", &["call 1", "call 2"], minutes(60));
    game.send(
        CAROL,
        "bogusity",
        &[
            "1 This loophole surfer is totally Bogus",
            "2 Thats a pretty cool idea",
        ],
        minutes(70),
    );
    game.bot.once(start() + SignedDuration::from_hours(24 * 8));
    // Alice's relic is Bogus: no Boon, and 11 points lost; Bob's Blueprint is
    // created seven days after its description.
    assert_eq!(game.announced("no Boon for Alice").len(), 1);
    assert_eq!(
        balance(&game.bot.state_json(), "Alice", "points").as_deref(),
        Some("-11")
    );
    let entities = game.entities();
    assert_eq!(entities.len(), 1, "{entities:?}");
    assert_eq!(entities[0]["kind"], "Blueprint");
    assert_eq!(entities[0]["owner"]["place"], "Blueprint Archive");
    assert_eq!(game.announced("Bob receives Blueprint").len(), 1);
    let _ = DAVE;
}
