//! The helper that drives the Space Nomic by mail, shared by `space.rs` and
//! `space_text.rs`: a bot, a clock a minute per message, and readers of the
//! mail out and `state space --json`.

use std::cell::Cell;

use jiff::{SignedDuration, Timestamp};

use crate::support::{LocalBot, SentMail, at, message};

pub const BOT: &str = "bot@nomic.example";
pub const LIST: &str = "game-list@nomic.example";
pub const ALICE: &str = "Alice <alice@example.org>";
pub const BOB: &str = "Bob <bob@example.org>";
pub const CAROL: &str = "Carol <carol@example.org>";

pub fn t0() -> Timestamp {
    at("2026-03-02T10:00:00Z")
}

/// A bot and a clock: each message arrives a minute after the one before.
pub struct Space {
    pub bot: LocalBot,
    pub minutes: Cell<i64>,
}

impl Space {
    pub fn new() -> Space {
        Space::with_config(crate::support::trusting())
    }

    pub fn with_config(config: &str) -> Space {
        Space {
            bot: LocalBot::with_config(config),
            minutes: Cell::new(0),
        }
    }

    pub fn now(&self) -> Timestamp {
        t0() + SignedDuration::from_mins(self.minutes.get())
    }

    /// One message from `from` to `to` under `[space]`, and a pass of the bot.
    pub fn send(&self, from: &str, to: &str, body: &str) {
        self.minutes.set(self.minutes.get() + 1);
        let id = format!("space{}@players.test", self.minutes.get());
        let subject = match body.lines().next() {
            Some(first) if !body.contains('\n') => format!("[space] {first}"),
            _ => "[space] actions".to_owned(),
        };
        let body = if body.contains('\n') { body } else { "" };
        self.bot
            .deliver(&id, &message(from, to, &subject, &id, body), self.now());
        self.bot.once(self.now());
    }

    /// A `[ruleset]` line from the moderator to the list, and a pass.
    pub fn moderate(&self, line: &str) {
        self.minutes.set(self.minutes.get() + 1);
        let id = format!("space{}@players.test", self.minutes.get());
        let mail = message("mod@nomic.example", LIST, "[ruleset]", &id, line);
        self.bot.deliver(&id, &mail, self.now());
        self.bot.once(self.now());
    }

    pub fn post(&self, from: &str, body: &str) {
        self.send(from, LIST, body);
    }

    /// Lets time pass to `minutes` after the start and runs a pass.
    pub fn wait_until(&self, minutes: i64) {
        self.minutes.set(minutes);
        self.bot.once(self.now());
    }

    pub fn state(&self) -> serde_json::Value {
        serde_json::from_str(&self.bot.cli_ok(&["state", "space", "--json"]))
            .expect("state space --json prints JSON")
    }

    pub fn money(&self, name: &str) -> String {
        let state = self.state();
        let player = state["players"]
            .as_array()
            .and_then(|players| players.iter().find(|p| p["name"] == name))
            .unwrap_or_else(|| panic!("no player {name} in {state}"));
        player["money"].as_str().unwrap_or_default().to_owned()
    }

    /// The bot's answers to `address` (not its mail to the list), all joined.
    pub fn answers_to(&self, address: &str) -> String {
        self.bot
            .sent_mail()
            .into_iter()
            .filter(|m| m.is_to(address) && !m.is_to(LIST))
            .map(|m| m.body)
            .collect::<Vec<_>>()
            .join("\n---\n")
    }

    pub fn announcements(&self) -> Vec<SentMail> {
        self.bot
            .sent_mail()
            .into_iter()
            .filter(|m| m.is_to(LIST) && m.subject.contains("[space]"))
            .collect()
    }

    pub fn three_players() -> Space {
        let space = Space::new();
        space.post(ALICE, "join Alice");
        space.post(BOB, "join Bob");
        space.post(CAROL, "join Carol");
        space
    }
}
