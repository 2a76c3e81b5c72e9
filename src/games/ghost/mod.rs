//! The `[ghost]` game (Ackanomic rule 103, "Ghost"): turn order, clocks, dictionary
//! look-ups, protests, removals, reports and rewards, refereed by mail.
//!
//! A referee starts an instance with a list of players; the Officer in charge of
//! Random Things numbers them; the players take turns adding a letter to the ghost
//! word, protest it, or resign, until one player is left. The bot keeps the clocks
//! (a turn lasts three days, an answer to a protest three days), looks words up in
//! the official dictionary (`Lexicon`), announces every change on the list, and pays
//! the referee and the winner. The referee (or a moderator) may override any ruling,
//! with a reason, announced on the list.
//!
//! Pure, like the engine: time, sender and entropy come in through `Ctx`, the rest
//! of the world through the transaction (`Tx`) a command or a deadline runs in; a
//! step records its events (of this game, the schedule, the random officer and the
//! accounts) into that transaction, which the router keeps or drops. Nothing here
//! reads the clock or a file.
//!
//! Identifiers: instance N mails under the tag `ghost N`; the turn deadlines of
//! instance N are `ghost:N:turn:K` (K counts the turns of the instance from 1), the
//! deadlines to answer a protest `ghost:N:protest:K` (K counts its protests). A
//! random period the instance starts itself is labelled `ghost N`.
//!
//! Layout: this file holds the types and the identifiers; `parse` reads command
//! lines, `commands` holds the entry points (a command, a deadline, a change of
//! standing), `rules` the clauses `Step` carries out, `report` what the
//! announcements carry, `game` the `Game` impl that calls the entry points.

use std::sync::Arc;

use jiff::SignedDuration;
use serde::{Deserialize, Serialize};

use crate::engine::calendar::Deadline;
use crate::engine::players::{PlayerId, Registry};
use crate::engine::{Address, Ctx, Timestamp};

pub mod bound;
mod commands;
pub mod game;
mod parse;
mod report;
mod rules;
mod sample;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_issue12;
#[cfg(test)]
mod tests_protest;
#[cfg(test)]
mod tests_referee;
#[cfg(test)]
mod tests_rules_change;

pub use parse::{is_bare_play, parse};
pub use report::summary;

pub const TAG: &str = "ghost";

/// What every payment of the game names as its reason.
pub const RULE: &str = "Rule 103 (Ghost) §5";

/// The fewest players an instance may have (rule 103 §2).
pub const MIN_PLAYERS: usize = 2;

/// The longest ghost word or answer the bot reads: no English word comes near it,
/// and a mail cannot make the state grow without bound.
pub const MAX_LETTERS: usize = 64;

/// The numbers of `[ghost]`, from bot.toml; the defaults are the rule text's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// The rule every mechanic of the game follows (`bound`): the number Ghost
    /// has in the registry. When it leaves effect every running instance ends;
    /// when it changes otherwise than in its numbers, the instances wait for a
    /// moderator's ruling.
    pub rule: u32,
    /// Rule 103 §2: "Players: minimum -- 2".
    pub min_players: usize,
    /// Rule 103 §4(3): a protest that the ghost word "is a word of four or more
    /// letters in the official dictionary".
    pub word_min_letters: usize,
    /// How long a turn lasts at most, in days of 24 hours.
    pub turn_days: i64,
    /// How long a protested player has to post a word containing the ghost word.
    pub answer_days: i64,
    /// How long after an addition any earlier player may protest it.
    pub addition_protest_days: i64,
    /// What the referee receives when a winner is found.
    pub referee_fee: i64,
    pub referee_currency: String,
    /// The winner receives the number of players who began the game, but at least
    /// `winner_points_min` and at most `winner_points_max` (nothing in a Duel).
    pub winner_points_min: i64,
    pub winner_points_max: i64,
    pub winner_currency: String,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            rule: bound::RULE_NUMBER,
            min_players: MIN_PLAYERS,
            word_min_letters: 4,
            turn_days: 3,
            answer_days: 3,
            addition_protest_days: 3,
            referee_fee: 8,
            referee_currency: "A$".to_owned(),
            winner_points_min: 4,
            winner_points_max: 8,
            winner_currency: "points".to_owned(),
        }
    }
}

impl Params {
    /// The winner's points when `began` players began a game that was not a Duel.
    pub fn winner_points(&self, began: u32) -> i64 {
        let max = self.winner_points_max.max(self.winner_points_min);
        i64::from(began).clamp(self.winner_points_min, max)
    }
}

/// Every instance ever started, running or over.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Ghosts {
    /// Each behind an `Arc` (serialised as the instance itself), so that a
    /// transaction's copy of the state shares every instance and copies only the
    /// one an event changes: a command costs its own instance, not every game of
    /// Ghost ever played.
    pub instances: Vec<Arc<Instance>>,
}

/// The referee of an instance: whoever started it, or took the vacant post.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Referee {
    pub address: Address,
    /// `None` for a moderator who is not a player of the nomic: such a referee is
    /// not paid (the result says so).
    pub player: Option<PlayerId>,
    /// The player's name, or the address.
    pub name: String,
}

/// A player's place in an instance, as the events name it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewSeat {
    /// The player's number: their place in the order of play.
    pub number: u32,
    pub player: PlayerId,
    pub name: String,
}

/// One player of an instance, in it or removed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Seat {
    pub number: u32,
    pub player: PlayerId,
    /// The name when seated; announcements use the registry's current name.
    pub name: String,
    pub joined_at: Timestamp,
    /// Set for a player added after the start: until when an earlier player may
    /// protest the addition (it also ends when their first turn begins).
    pub addition_protest_until: Option<Timestamp>,
    pub first_turn_at: Option<Timestamp>,
    pub removed: Option<Removal>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Removal {
    pub at: Timestamp,
    pub why: Why,
    /// It was the player's turn: the removal counted as a resignation. Absent from
    /// states written before it was kept.
    #[serde(default)]
    pub in_turn: bool,
}

/// Why a player was removed from an instance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Why {
    /// Resigned in their turn.
    Resigned,
    /// Did not play within their turn: assumed to have resigned.
    TimedOut,
    /// Removed themselves (`leave`); a resignation if it was their turn.
    Left,
    /// Left the nomic: assumed to have posted a `leave`.
    LeftNomic,
    /// Made a protest that was invalid.
    InvalidProtest,
    /// Had a valid protest made against them.
    ValidProtest,
    /// Was added, and an earlier player (seat `by`) protested the addition.
    AdditionProtested { by: u32 },
    /// Removed by the referee or a moderator.
    Override { officer: String, reason: String },
}

impl Why {
    fn code(&self) -> &'static str {
        match self {
            Why::Resigned => "resigned",
            Why::TimedOut => "timed_out",
            Why::Left => "left",
            Why::LeftNomic => "left_nomic",
            Why::InvalidProtest => "invalid_protest",
            Why::ValidProtest => "valid_protest",
            Why::AdditionProtested { .. } => "addition_protested",
            Why::Override { .. } => "override",
        }
    }
}

/// The two grounds of a protest (rule 103 §4 (3)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grounds {
    /// "The ghost word is a word of four or more letters in the official dictionary."
    IsAWord,
    /// "The ghost word cannot be found within any word in the official dictionary."
    NotInside,
}

impl Grounds {
    fn code(self) -> &'static str {
        match self {
            Grounds::IsAWord => "word",
            Grounds::NotInside => "not_inside",
        }
    }
}

/// A clock that runs, or that is stopped because the instance has no referee.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Clock {
    Running { deadline: Timestamp },
    Stopped { remaining_seconds: i64 },
}

impl Clock {
    fn deadline(self) -> Option<Timestamp> {
        match self {
            Clock::Running { deadline } => Some(deadline),
            Clock::Stopped { .. } => None,
        }
    }

    fn remaining_seconds(self, now: Timestamp) -> i64 {
        match self {
            Clock::Running { deadline } => deadline.duration_since(now).as_secs().max(0),
            Clock::Stopped { remaining_seconds } => remaining_seconds.max(0),
        }
    }

    /// The same clock, stopped at `at`.
    fn stopped(self, at: Timestamp) -> Clock {
        Clock::Stopped {
            remaining_seconds: self.remaining_seconds(at),
        }
    }

    /// The same clock, running again from `at` with the time it had left.
    fn restarted(self, at: Timestamp) -> Clock {
        match self {
            Clock::Stopped { remaining_seconds } => Clock::Running {
                deadline: later(at, SignedDuration::from_secs(remaining_seconds.max(0))),
            },
            running => running,
        }
    }
}

/// A protest of the ghost word.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Protest {
    /// The instance's count of protests: the `K` of its deadline id.
    pub index: u32,
    /// The protester's seat.
    pub by: u32,
    /// The seat of the player whose turn gave the ghost word its present form; `None`
    /// when the referee set the word with no player behind it.
    pub against: Option<u32>,
    pub grounds: Grounds,
    pub word: String,
    pub made_at: Timestamp,
    /// The protested player's time to answer; `None` for a protest resolved at once.
    pub clock: Option<Clock>,
}

/// What an instance waits for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Stage {
    /// Nothing: only for an instant, between the start or a protest's resolution and
    /// the next turn (or the end). Never seen at rest.
    Between,
    /// Seat `seat` is to play. `index` counts the instance's turns from 1.
    Turn {
        seat: u32,
        index: u32,
        began_at: Timestamp,
        clock: Clock,
    },
    /// Play is suspended until the protest is resolved.
    Protest { protest: Protest },
    /// A winner was found (or no one is left).
    Over,
}

/// What the game paid, or why it did not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Payment {
    /// The payee's name; `None` when there was no referee.
    pub to: Option<String>,
    pub amount: i64,
    pub currency: String,
    /// `None` when paid; otherwise why not: `no_referee`, `not_a_player`, `duel`, or
    /// the accounts' refusal code (`accounts_unknown_currency`, ...).
    pub unpaid: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rewards {
    /// How many players began the game (players added later not counted).
    pub began: u32,
    pub referee: Payment,
    pub winner: Payment,
}

/// One line of an instance's history: an event and when it happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub at: Timestamp,
    pub event: Event,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Instance {
    pub number: u32,
    pub duel: bool,
    /// `None` while the post is vacant: then the instance is suspended.
    pub referee: Option<Referee>,
    pub started_at: Timestamp,
    /// In order of number.
    pub seats: Vec<Seat>,
    /// How many players began the game.
    pub began: u32,
    pub ghost_word: Option<String>,
    /// The seat whose turn gave the ghost word its present form: protests are made
    /// against that player.
    pub word_by: Option<u32>,
    pub stage: Stage,
    /// Set while there is no referee: every clock of the instance is stopped.
    pub suspended_since: Option<Timestamp>,
    /// Set while rule 103 is held for a moderator's ruling: every clock of the
    /// instance is stopped, as while there is no referee (and since the
    /// suspension, when the referee came back while the rule was held).
    #[serde(default)]
    pub held_since: Option<Timestamp>,
    /// Why the instance ended without a winner because rule 103 left effect
    /// ("repealed", "void", ...).
    #[serde(default)]
    pub stopped: Option<String>,
    pub turns_begun: u32,
    pub protests_made: u32,
    /// The random period this instance started for its numbering, if it started one;
    /// ended (its seed published) when the instance ends.
    pub random_label: Option<String>,
    pub winner: Option<u32>,
    pub rewards: Option<Rewards>,
    /// Every event of the instance, with its time: the referee's record.
    pub history: Vec<Record>,
    /// The game that began it on the shared schedule and awaits its winner
    /// (`duel:3`, a Duel whose Contest is Ghost): told by a deadline it owns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Vacancy {
    /// The referee resigned the post.
    Resigned,
    /// The referee went on vacation.
    Vacation,
    /// The referee left the nomic.
    LeftNomic,
}

impl Vacancy {
    fn code(self) -> &'static str {
        match self {
            Vacancy::Resigned => "resigned",
            Vacancy::Vacation => "vacation",
            Vacancy::LeftNomic => "left_nomic",
        }
    }
}

/// Who overrode the bot, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overrider {
    pub officer: String,
    pub reason: String,
}

/// One seat in a new order of play.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reseated {
    pub player: PlayerId,
    pub name: String,
    /// The seat's number before; `None` for a player the override seated.
    pub from: Option<u32>,
    pub to: u32,
    /// The player had been removed and is back in the game.
    pub restored: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Started {
        instance: u32,
        duel: bool,
        referee: Referee,
        seats: Vec<NewSeat>,
        random_label: Option<String>,
        /// Set when a moderator gave the numbers in the order listed instead of
        /// having them drawn (a game begun before the bot refereed it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ordered: Option<Overrider>,
        /// The game that handed the start over on the schedule (`duel:3`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        origin: Option<String>,
    },
    TurnBegan {
        instance: u32,
        seat: u32,
        index: u32,
        /// The ghost word the player faces, for the record.
        word: Option<String>,
        clock: Clock,
    },
    /// A letter begun or added: `word` is the new ghost word.
    Played {
        instance: u32,
        seat: u32,
        word: String,
        previous: Option<String>,
    },
    Protested {
        instance: u32,
        protest: Protest,
    },
    ProtestResolved {
        instance: u32,
        protest: Protest,
        valid: bool,
        how: Resolution,
    },
    Removed {
        instance: u32,
        seat: u32,
        why: Why,
        /// It was the player's turn: a resignation, and the ghost word is destroyed.
        in_turn: bool,
    },
    WordDestroyed {
        instance: u32,
        word: String,
    },
    /// The referee's (or a moderator's) override; `None` clears the ghost word.
    WordSet {
        instance: u32,
        word: Option<String>,
        previous: Option<String>,
        officer: String,
        reason: String,
        /// The seat the officer named as the word's maker: protests are made
        /// against them. Absent: a corrected word stays its maker's, a word set
        /// where there was none is no player's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        by: Option<u32>,
    },
    /// The order of play set by a moderator: every seat of the instance, with the
    /// number it had (none for a player seated by this override) and the one it
    /// has now. A removed player listed is back in the game.
    Ordered {
        instance: u32,
        seats: Vec<Reseated>,
        officer: String,
        reason: String,
    },
    /// The officer gave the turn to seat `seat`; a `TurnBegan` follows.
    TurnSet {
        instance: u32,
        seat: u32,
        officer: String,
        reason: String,
    },
    /// The officer moved the pending deadline (of the turn, or of the answer to a
    /// protest). While the game is suspended the clock stays stopped, holding the
    /// time from the override to `deadline`.
    ClockSet {
        instance: u32,
        deadline: Timestamp,
        previous: Option<Timestamp>,
        officer: String,
        reason: String,
    },
    Added {
        instance: u32,
        seat: NewSeat,
        protest_until: Timestamp,
    },
    /// The referee's post fell vacant: every clock stops.
    Suspended {
        instance: u32,
        why: Vacancy,
        referee: Referee,
    },
    /// Someone took the vacant post: the clocks run again with the time they had left.
    Resumed {
        instance: u32,
        referee: Referee,
    },
    Finished {
        instance: u32,
        winner: Option<u32>,
        rewards: Option<Rewards>,
    },
    /// Rule `rule` changed otherwise than in its numbers: every clock stops
    /// until a moderator rules on it.
    Held {
        instance: u32,
        rule: u32,
        difference: String,
    },
    /// The rule is followed again (a moderator's ruling, or its text back): the
    /// clocks run again with the time they had left.
    Released {
        instance: u32,
        rule: u32,
    },
    /// Rule `rule` left effect (`why`: repealed, void, not in the ruleset,
    /// switched off): the instance ends with no winner and nothing paid.
    RuleStopped {
        instance: u32,
        rule: u32,
        why: String,
    },
}

impl Event {
    pub fn instance(&self) -> u32 {
        match self {
            Event::Started { instance, .. }
            | Event::TurnBegan { instance, .. }
            | Event::Played { instance, .. }
            | Event::Protested { instance, .. }
            | Event::ProtestResolved { instance, .. }
            | Event::Removed { instance, .. }
            | Event::WordDestroyed { instance, .. }
            | Event::WordSet { instance, .. }
            | Event::Ordered { instance, .. }
            | Event::TurnSet { instance, .. }
            | Event::ClockSet { instance, .. }
            | Event::Added { instance, .. }
            | Event::Suspended { instance, .. }
            | Event::Resumed { instance, .. }
            | Event::Finished { instance, .. }
            | Event::Held { instance, .. }
            | Event::Released { instance, .. }
            | Event::RuleStopped { instance, .. } => *instance,
        }
    }
}

/// How a protest was resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Resolution {
    /// The bot looked it up: for `IsAWord`, whether the ghost word is a word of four
    /// or more letters; for `NotInside` (against a player no longer in the game, or a
    /// word the referee set), whether the ghost word is found within some word.
    Dictionary {
        found: bool,
    },
    /// The protested player posted `word`; the protest is valid unless it is a word.
    Answer {
        word: String,
        in_dictionary: bool,
    },
    /// The protested player did not answer in time: valid.
    NoAnswer,
    /// The protested player left the game without answering: valid.
    Left,
    Override {
        officer: String,
        reason: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// The sender becomes the referee of a new instance with these players.
    Start {
        duel: bool,
        names: Vec<String>,
    },
    /// Begin a ghost word with one letter.
    Begin {
        letter: String,
    },
    /// Continue the ghost word (the whole new string), or begin one with one letter.
    Play {
        letters: String,
    },
    Protest {
        grounds: Grounds,
    },
    /// The protested player's word containing the ghost word.
    Answer {
        word: String,
    },
    Resign,
    Leave,
    AddMe,
    ProtestAddition {
        name: String,
    },
    /// Take the vacant referee post.
    TakeReferee,
    ResignReferee,
    Status,
    History,
    /// Override: resolve the pending protest.
    Rule {
        valid: bool,
        reason: String,
    },
    /// Override: remove a player.
    Remove {
        name: String,
        reason: String,
    },
    /// Override: set (or with `None`, clear) the ghost word; `by` names the
    /// player whose turn made it.
    SetWord {
        word: Option<String>,
        by: Option<String>,
        reason: String,
    },
    /// A moderator starts an instance with the numbers in the order listed.
    StartInOrder {
        duel: bool,
        names: Vec<String>,
        reason: String,
    },
    /// Override: the order of play, every player in the game listed.
    Order {
        names: Vec<String>,
        reason: String,
    },
    /// Override: whose turn it is; a new turn begins for them.
    SetTurn {
        name: String,
        reason: String,
    },
    /// Override: the deadline of the pending turn or answer.
    SetDeadline {
        when: When,
        reason: String,
    },
}

/// A moment as an override names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    At(Timestamp),
    /// From the override's arrival.
    In(SignedDuration),
}

/// The tag of instance `number`'s mail.
pub fn tag(number: u32) -> String {
    format!("{TAG} {number}")
}

/// The deadline of turn `index` of instance `instance`.
pub fn turn_deadline_id(instance: u32, index: u32) -> String {
    format!("{TAG}:{instance}:turn:{index}")
}

/// The deadline to answer protest `index` of instance `instance`.
pub fn answer_deadline_id(instance: u32, index: u32) -> String {
    format!("{TAG}:{instance}:protest:{index}")
}

/// The instance a deadline id of this game belongs to.
pub fn instance_of_deadline(id: &str) -> Option<u32> {
    parse_deadline_id(id).map(|(instance, _, _)| instance)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DeadlineKind {
    Turn,
    Answer,
}

fn parse_deadline_id(id: &str) -> Option<(u32, DeadlineKind, u32)> {
    let mut parts = id.split(':');
    if parts.next()? != TAG {
        return None;
    }
    let instance = parts.next()?.parse().ok()?;
    let kind = match parts.next()? {
        "turn" => DeadlineKind::Turn,
        "protest" => DeadlineKind::Answer,
        _ => return None,
    };
    let index = parts.next()?.parse().ok()?;
    parts.next().is_none().then_some((instance, kind, index))
}

/// `days` of 24 hours; a parameter out of reason (zero, negative, centuries) is
/// brought to 1..=3650 days rather than making a deadline that is already past.
fn days(days: i64) -> SignedDuration {
    SignedDuration::from_hours(days.clamp(1, 3650) * 24)
}

fn later(at: Timestamp, by: SignedDuration) -> Timestamp {
    at.checked_add(by).unwrap_or(Timestamp::MAX)
}

impl Instance {
    pub fn seat(&self, number: u32) -> Option<&Seat> {
        self.seats.iter().find(|s| s.number == number)
    }

    fn seat_mut(&mut self, number: u32) -> Option<&mut Seat> {
        self.seats.iter_mut().find(|s| s.number == number)
    }

    /// The players still in the game, in order of number.
    pub fn in_game(&self) -> impl Iterator<Item = &Seat> {
        self.seats.iter().filter(|s| s.removed.is_none())
    }

    pub fn is_in_game(&self, number: u32) -> bool {
        self.seat(number).is_some_and(|s| s.removed.is_none())
    }

    /// The seat of this player, while they are in the game.
    pub fn seat_of_player(&self, player: PlayerId) -> Option<u32> {
        self.in_game()
            .find(|s| s.player == player)
            .map(|s| s.number)
    }

    pub fn is_over(&self) -> bool {
        self.stage == Stage::Over
    }

    pub fn is_suspended(&self) -> bool {
        self.suspended_since.is_some()
    }

    /// Rule 103 is held for a moderator's ruling.
    pub fn is_held(&self) -> bool {
        self.held_since.is_some()
    }

    /// Whether the clocks stand still: no referee, or the rule held.
    pub fn clocks_stopped(&self) -> bool {
        self.is_suspended() || self.is_held()
    }

    /// The seat whose turn it is.
    pub fn turn(&self) -> Option<u32> {
        match self.stage {
            Stage::Turn { seat, .. } => Some(seat),
            _ => None,
        }
    }

    /// Players may be added until the first turn of the highest-numbered player
    /// still in the game has begun, and never to a Duel.
    pub fn additions_open(&self) -> bool {
        !self.duel
            && !self.is_over()
            && self
                .in_game()
                .last()
                .is_some_and(|s| s.first_turn_at.is_none())
    }

    /// The player in the game after seat `number`, wrapping from the highest number
    /// to the lowest. `number` itself may have been removed.
    pub fn next_after(&self, number: u32) -> Option<u32> {
        let first = self.in_game().next().map(|s| s.number);
        self.in_game()
            .map(|s| s.number)
            .find(|n| *n > number)
            .or(first)
    }

    /// The name of seat `number`: the registry's current one.
    fn name(&self, number: u32, players: &Registry) -> String {
        self.seat(number).map_or_else(
            || format!("player {number}"),
            |seat| {
                players
                    .by_id(seat.player)
                    .map_or_else(|| seat.name.clone(), |p| p.name.clone())
            },
        )
    }

    /// A player of the instance named `name` (any case), in the game or not.
    fn seat_named(&self, name: &str, players: &Registry) -> Option<&Seat> {
        let name = name.trim();
        self.seats.iter().rev().find(|seat| {
            seat.name.eq_ignore_ascii_case(name)
                || players
                    .by_id(seat.player)
                    .is_some_and(|p| p.name.eq_ignore_ascii_case(name))
        })
    }

    fn is_referee(&self, ctx: &Ctx, players: &Registry) -> bool {
        self.referee.as_ref().is_some_and(|referee| {
            referee.address == ctx.sender
                || referee.player.is_some_and(|id| {
                    players
                        .active_by_address(&ctx.sender)
                        .is_some_and(|p| p.id == id)
                })
        })
    }

    /// The deadline the instance waits for, while its clock runs.
    pub fn pending_deadline(&self) -> Option<Deadline> {
        match &self.stage {
            Stage::Turn {
                seat,
                index,
                clock: Clock::Running { deadline },
                ..
            } => Some(Deadline {
                id: turn_deadline_id(self.number, *index),
                at: *deadline,
                // The instance's own tag, so its reminders carry it as its mail does.
                owner: tag(self.number),
                who: self.seat(*seat).map(|s| s.player),
                what: format!("your turn in Ghost {}", self.number),
                remind: true,
            }),
            Stage::Protest { protest } => match protest.clock {
                Some(Clock::Running { deadline }) => Some(Deadline {
                    id: answer_deadline_id(self.number, protest.index),
                    at: deadline,
                    owner: tag(self.number),
                    who: protest
                        .against
                        .and_then(|seat| self.seat(seat))
                        .map(|s| s.player),
                    what: format!(
                        "your answer to the protest in Ghost {}: a word containing {}",
                        self.number,
                        protest.word.to_uppercase()
                    ),
                    remind: true,
                }),
                _ => None,
            },
            _ => None,
        }
    }

    /// Changes the instance by one event (the history is kept by `Ghosts`).
    fn apply(&mut self, event: &Event, at: Timestamp) {
        match event {
            Event::Started { .. } => {}
            Event::TurnBegan {
                seat, index, clock, ..
            } => {
                self.stage = Stage::Turn {
                    seat: *seat,
                    index: *index,
                    began_at: at,
                    clock: *clock,
                };
                self.turns_begun = *index;
                if let Some(seat) = self.seat_mut(*seat) {
                    seat.first_turn_at.get_or_insert(at);
                }
            }
            Event::Played { seat, word, .. } => {
                self.ghost_word = Some(word.clone());
                self.word_by = Some(*seat);
            }
            Event::Protested { protest, .. } => {
                self.protests_made = protest.index;
                self.stage = Stage::Protest {
                    protest: protest.clone(),
                };
            }
            Event::ProtestResolved { .. } => self.stage = Stage::Between,
            Event::Removed {
                seat, why, in_turn, ..
            } => {
                if let Some(seat) = self.seat_mut(*seat) {
                    seat.removed = Some(Removal {
                        at,
                        why: why.clone(),
                        in_turn: *in_turn,
                    });
                }
            }
            Event::WordDestroyed { .. } => {
                self.ghost_word = None;
                self.word_by = None;
            }
            Event::WordSet { word, by, .. } => {
                // A corrected word stays the work of the player whose turn made it;
                // a word set where there was none is no player's, unless the
                // officer names its maker.
                if self.ghost_word.is_none() {
                    self.word_by = None;
                }
                self.ghost_word = word.clone();
                if by.is_some() {
                    self.word_by = *by;
                }
                if word.is_none() {
                    self.word_by = None;
                }
            }
            Event::Ordered { seats, .. } => self.reorder(seats, at),
            Event::TurnSet { .. } => {}
            Event::ClockSet { deadline, .. } => {
                let set = |clock: &mut Clock| {
                    *clock = match clock {
                        Clock::Running { .. } => Clock::Running {
                            deadline: *deadline,
                        },
                        Clock::Stopped { .. } => Clock::Stopped {
                            remaining_seconds: deadline.duration_since(at).as_secs().max(0),
                        },
                    };
                };
                match &mut self.stage {
                    Stage::Turn { clock, .. } => set(clock),
                    Stage::Protest { protest } => {
                        if let Some(clock) = &mut protest.clock {
                            set(clock);
                        }
                    }
                    _ => {}
                }
            }
            Event::Added {
                seat,
                protest_until,
                ..
            } => {
                if self.seat(seat.number).is_none() {
                    self.seats.push(Seat {
                        number: seat.number,
                        player: seat.player,
                        name: seat.name.clone(),
                        joined_at: at,
                        addition_protest_until: Some(*protest_until),
                        first_turn_at: None,
                        removed: None,
                    });
                }
            }
            Event::Suspended { .. } => {
                self.referee = None;
                self.suspended_since = Some(at);
                self.stop_clocks(at);
            }
            Event::Resumed { referee, .. } => {
                self.referee = Some(referee.clone());
                let since = self.suspended_since.take().unwrap_or(at);
                if let Some(held) = &mut self.held_since {
                    // The rule is still held: the clocks stay stopped, and the
                    // pause counts from the suspension.
                    *held = (*held).min(since);
                    return;
                }
                self.restart_clocks(since, at);
            }
            Event::Held { .. } => {
                self.held_since.get_or_insert(at);
                self.stop_clocks(at);
            }
            Event::Released { .. } => {
                let since = self.held_since.take().unwrap_or(at);
                if !self.is_suspended() {
                    self.restart_clocks(since, at);
                }
            }
            Event::RuleStopped { why, .. } => {
                self.stage = Stage::Over;
                self.winner = None;
                self.stopped = Some(why.clone());
            }
            Event::Finished {
                winner, rewards, ..
            } => {
                self.stage = Stage::Over;
                self.winner = *winner;
                self.rewards = rewards.clone();
            }
        }
    }

    fn stop_clocks(&mut self, at: Timestamp) {
        match &mut self.stage {
            Stage::Turn { clock, .. } => *clock = clock.stopped(at),
            Stage::Protest { protest } => {
                protest.clock = protest.clock.map(|clock| clock.stopped(at));
            }
            _ => {}
        }
    }

    /// The clocks run again at `at` with the time they had left; windows to
    /// protest an addition that were open when they stopped (at `since`) get the
    /// paused time back.
    fn restart_clocks(&mut self, since: Timestamp, at: Timestamp) {
        let pause = at.duration_since(since).max(SignedDuration::ZERO);
        match &mut self.stage {
            Stage::Turn { clock, .. } => *clock = clock.restarted(at),
            Stage::Protest { protest } => {
                protest.clock = protest.clock.map(|clock| clock.restarted(at));
            }
            _ => {}
        }
        // Windows to protest an addition that were open when the clocks stopped
        // get the paused time back.
        for seat in &mut self.seats {
            if let Some(until) = &mut seat.addition_protest_until
                && *until > since
                && seat.first_turn_at.is_none()
            {
                *until = later(*until, pause);
            }
        }
    }
}

impl Instance {
    /// A new order of play: every seat renumbered at once, the players seated by
    /// it added, the restored ones back in the game. Every seat number the state
    /// and the history hold follows its player, so the record still says who did
    /// what.
    fn reorder(&mut self, seats: &[Reseated], at: Timestamp) {
        let moved: Vec<(u32, u32)> = seats
            .iter()
            .filter_map(|s| s.from.map(|from| (from, s.to)))
            .collect();
        let renumber = |number: u32| {
            moved
                .iter()
                .find(|(from, _)| *from == number)
                .map_or(number, |(_, to)| *to)
        };
        for seat in &mut self.seats {
            seat.number = renumber(seat.number);
        }
        for reseated in seats {
            match reseated.from {
                Some(_) => {
                    if reseated.restored
                        && let Some(seat) = self.seat_mut(reseated.to)
                    {
                        seat.removed = None;
                    }
                }
                None => self.seats.push(Seat {
                    number: reseated.to,
                    player: reseated.player,
                    name: reseated.name.clone(),
                    joined_at: at,
                    addition_protest_until: None,
                    first_turn_at: None,
                    removed: None,
                }),
            }
        }
        self.seats.sort_by_key(|s| s.number);
        self.word_by = self.word_by.map(renumber);
        self.winner = self.winner.map(renumber);
        match &mut self.stage {
            Stage::Turn { seat, .. } => *seat = renumber(*seat),
            Stage::Protest { protest } => protest.renumber(&renumber),
            Stage::Between | Stage::Over => {}
        }
        for record in &mut self.history {
            record.event.renumber(&renumber);
        }
    }
}

impl Protest {
    fn renumber(&mut self, renumber: &impl Fn(u32) -> u32) {
        self.by = renumber(self.by);
        self.against = self.against.map(renumber);
    }
}

impl Event {
    /// The same event with its seats renumbered. `Ordered` keeps the numbers it
    /// recorded: it is the record of a renumbering.
    fn renumber(&mut self, renumber: &impl Fn(u32) -> u32) {
        match self {
            Event::Started { seats, .. } => {
                for seat in seats {
                    seat.number = renumber(seat.number);
                }
            }
            Event::TurnBegan { seat, .. }
            | Event::Played { seat, .. }
            | Event::TurnSet { seat, .. } => *seat = renumber(*seat),
            Event::Removed { seat, why, .. } => {
                *seat = renumber(*seat);
                if let Why::AdditionProtested { by } = why {
                    *by = renumber(*by);
                }
            }
            Event::Protested { protest, .. } | Event::ProtestResolved { protest, .. } => {
                protest.renumber(renumber);
            }
            Event::WordSet { by, .. } => *by = by.map(renumber),
            Event::Added { seat, .. } => seat.number = renumber(seat.number),
            Event::Finished { winner, .. } => *winner = winner.map(renumber),
            Event::Ordered { .. }
            | Event::ClockSet { .. }
            | Event::WordDestroyed { .. }
            | Event::Suspended { .. }
            | Event::Resumed { .. }
            | Event::Held { .. }
            | Event::Released { .. }
            | Event::RuleStopped { .. } => {}
        }
    }
}
