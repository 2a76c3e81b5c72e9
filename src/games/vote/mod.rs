//! The `[vote]` game: secret ballots by mail, the first game built on sealed
//! actions and scheduled deadlines.
//!
//! A moderator opens a ballot on a question; each player votes yes or no by
//! private mail, sealed in the ballot's batch of the sealed box (only the last vote
//! of a player counts, so anyone may change their mind until the deadline); at the
//! deadline the box publishes the commitments, then the ballot reveals every vote
//! and announces the tally. A moderator may force a resolution early, with a
//! reason, and the result says so (DESIGN.md guarantee 5).
//!
//! Pure, like the engine: the time, the sender and the entropy come in through
//! `Ctx`, and a command or a deadline records its events — to this game, the
//! sealed box and the schedule — into the transaction (`Tx`) it runs in. No vote
//! ever reaches a public mail before the reveal (guarantee 4): a vote is answered
//! privately and sends no mail.
//!
//! Identifiers: ballot N seals into batch `vote:N`, its deadline is `vote:N`, and
//! the reminder of player ID is the deadline `vote:N:player:ID`.
//!
//! Here the types and the state's events; `parse` reads command lines, `rules`
//! opens, seals, closes and resolves ballots, `game` puts them behind the game
//! interface.

use serde::{Deserialize, Serialize};

use crate::engine::players::PlayerId;
use crate::engine::{Address, Timestamp};

pub mod game;
mod parse;
mod rules;
mod sample;
#[cfg(test)]
mod tests;

pub use parse::parse;

pub const TAG: &str = "vote";

/// The numbers of `[vote]`, from bot.toml.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// How long a ballot is open, in days of 24 hours.
    pub days: i64,
}

impl Default for Params {
    fn default() -> Params {
        Params { days: 3 }
    }
}

/// Every ballot ever opened, open or resolved.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Votes {
    /// The open ballots and the latest resolved one; the others are history (the
    /// event log).
    pub ballots: Vec<Ballot>,
    /// The highest ballot number ever opened: numbers go on after history retires.
    #[serde(default)]
    pub opened: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ballot {
    pub number: u32,
    pub question: String,
    pub opened_by: Address,
    pub opened_at: Timestamp,
    pub deadline: Timestamp,
    /// Set when the ballot is resolved, at its deadline or by a moderator.
    pub closed: Option<Tally>,
}

/// The result of a resolved ballot.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    pub yes: u32,
    pub no: u32,
    /// The names of the players whose vote counted, alphabetically.
    pub voters: Vec<String>,
    /// The moderator who forced the resolution before the deadline, if one did.
    pub forced_by: Option<String>,
    /// The moderator's reason for forcing it.
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Opened {
        number: u32,
        question: String,
        opened_by: Address,
        deadline: Timestamp,
    },
    Closed {
        number: u32,
        tally: Tally,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Choice {
    Yes,
    No,
}

impl Choice {
    /// The sealed action's text: what the reveal shows and the tally reads back.
    pub fn as_str(self) -> &'static str {
        match self {
            Choice::Yes => "yes",
            Choice::No => "no",
        }
    }

    fn from_word(word: &str) -> Option<Choice> {
        match word.to_lowercase().as_str() {
            "yes" | "aye" => Some(Choice::Yes),
            "no" | "nay" => Some(Choice::No),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// A moderator's: a new ballot on `question`.
    Open { question: String },
    /// A player's secret vote; `number` may be left out when one ballot is open.
    Vote { number: Option<u32>, choice: Choice },
    /// A moderator's override: resolve ballot `number` now, for `reason`.
    Close { number: u32, reason: String },
    /// The open ballots and their deadlines.
    Ballots,
}

/// The batch and the deadline of ballot `number`.
pub fn batch_id(number: u32) -> String {
    format!("vote:{number}")
}

/// The reminder deadline of `player` on ballot `number`.
pub fn reminder_id(number: u32, player: PlayerId) -> String {
    format!("vote:{number}:player:{player}")
}

/// The ballot a fired deadline resolves: `Some(N)` for `vote:N`, `None` for a
/// player's reminder deadline (`vote:N:player:ID`), which resolves nothing.
pub fn ballot_of_deadline(id: &str) -> Option<u32> {
    id.strip_prefix("vote:")?.parse().ok()
}

impl Votes {
    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        match event {
            Event::Opened {
                number,
                question,
                opened_by,
                deadline,
            } => {
                self.opened = self.opened.max(*number);
                if self.ballot(*number).is_none() {
                    self.ballots.push(Ballot {
                        number: *number,
                        question: question.clone(),
                        opened_by: opened_by.clone(),
                        opened_at: at,
                        deadline: *deadline,
                        closed: None,
                    });
                }
            }
            Event::Closed { number, tally } => {
                if let Some(ballot) = self.ballots.iter_mut().find(|b| b.number == *number) {
                    ballot.closed = Some(tally.clone());
                }
            }
        }
    }

    /// Without the resolved ballots but the latest (a late vote is told when it
    /// closed): they are history, in the event log.
    pub fn retire(&self) -> Option<Votes> {
        let latest = self
            .ballots
            .iter()
            .filter(|b| b.closed.is_some())
            .max_by_key(|b| (b.deadline, b.number))
            .map(|b| b.number);
        let keep = |b: &Ballot| b.closed.is_none() || Some(b.number) == latest;
        if self.ballots.iter().all(keep) {
            return None;
        }
        Some(Votes {
            ballots: self.ballots.iter().filter(|b| keep(b)).cloned().collect(),
            opened: self.opened,
        })
    }

    pub fn ballot(&self, number: u32) -> Option<&Ballot> {
        self.ballots.iter().find(|b| b.number == number)
    }

    /// The ballots not yet resolved, in the order opened.
    pub fn open_ballots(&self) -> impl Iterator<Item = &Ballot> {
        self.ballots.iter().filter(|b| b.closed.is_none())
    }
}
