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
//! Pure, like the engine: time, sender and entropy come in through `Ctx`, the other
//! services through `Services`; a command returns `Change`s (to this game, the
//! schedule, the random officer and the accounts) that the router records. Nothing
//! here reads the clock or a file.
//!
//! Identifiers: instance N mails under the tag `ghost N`; the turn deadlines of
//! instance N are `ghost:N:turn:K` (K counts the turns of the instance from 1), the
//! deadlines to answer a protest `ghost:N:protest:K` (K counts its protests). A
//! random period the instance starts itself is labelled `ghost N`.

pub mod game;

use jiff::SignedDuration;
use num_bigint::BigInt;
use num_rational::BigRational;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::engine::accounts::{self, Accounts, Holder};
use crate::engine::calendar::{self, Deadline};
use crate::engine::dictionary::Lexicon;
use crate::engine::players::{Player, PlayerId, Registry};
use crate::engine::random::{self, RandomOfficer};
use crate::engine::{
    Address, Audience, Ctx, Done, Mail, NotUnderstood, Refusal, Sentence, Timestamp, human_time,
    split_verb,
};

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

/// Everything besides the ghost state that a command or a resolution reads.
#[derive(Debug, Clone, Copy)]
pub struct Services<'a> {
    pub players: &'a Registry,
    pub accounts: &'a Accounts,
    pub random: &'a RandomOfficer,
    /// The official dictionary.
    pub lexicon: &'a dyn Lexicon,
    pub params: &'a Params,
}

/// Every instance ever started, running or over.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Ghosts {
    pub instances: Vec<Instance>,
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
    pub turns_begun: u32,
    pub protests_made: u32,
    /// The random period this instance started for its numbering, if it started one;
    /// ended (its seed published) when the instance ends.
    pub random_label: Option<String>,
    pub winner: Option<u32>,
    pub rewards: Option<Rewards>,
    /// Every event of the instance, with its time: the referee's record.
    pub history: Vec<Record>,
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Started {
        instance: u32,
        duel: bool,
        referee: Referee,
        seats: Vec<NewSeat>,
        random_label: Option<String>,
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
            | Event::Added { instance, .. }
            | Event::Suspended { instance, .. }
            | Event::Resumed { instance, .. }
            | Event::Finished { instance, .. } => *instance,
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

/// Every change a command or a resolution makes, across the services it uses; the
/// router maps each to the World's event enum.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    Ghost(Event),
    Schedule(calendar::Event),
    Random(random::Event),
    Accounts(accounts::Event),
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
    /// Override: set (or with `None`, clear) the ghost word.
    SetWord {
        word: Option<String>,
        reason: String,
    },
}

const COMMANDS: &str = "start with NAME, NAME, ..., start duel with NAME, NAME, begin LETTER, play LETTERS (or the letters alone), protest word, protest not inside, word WORD (answering a protest), resign, leave, add me, protest addition NAME, referee, resign referee, status, history, help (referee: rule valid|invalid because REASON, remove NAME because REASON, set word LETTERS because REASON, clear word because REASON)";

fn usage(text: &str) -> NotUnderstood {
    NotUnderstood(Sentence::new("usage").arg("usage", text))
}

/// A string of letters as a player writes it: a–z in any case, perhaps quoted or
/// followed by a full stop. Lower-cased; `None` for anything else.
fn letters(text: &str) -> Option<String> {
    let text = text.trim_matches(['"', '\'', '`', '*', '.', '!', ' ']);
    (!text.is_empty() && text.len() <= MAX_LETTERS && text.bytes().all(|b| b.is_ascii_alphabetic()))
        .then(|| text.to_ascii_lowercase())
}

/// Verbs that, alone on a line, ask for their usage rather than being played.
const NOT_PLAYED_ALONE: &[&str] = &[
    "help", "start", "play", "begin", "protest", "remove", "rule",
];

/// Whether `parse` reads the line as a play only because it is a bare string of
/// letters ("uperso"). The router may want to refuse that reading for a subject
/// ("[ghost] thanks").
pub fn is_bare_play(line: &str) -> bool {
    bare_letters(line).is_some() && parse_command(line).is_err()
}

/// The line as a play of its letters: one word of letters, not a verb that needs more.
fn bare_letters(line: &str) -> Option<String> {
    let line = line.trim();
    if line.contains(char::is_whitespace)
        || NOT_PLAYED_ALONE.contains(&line.to_lowercase().as_str())
    {
        return None;
    }
    letters(line)
}

/// Letters after a verb, or why they are not letters.
fn letters_of(rest: &str, form: &str) -> Result<String, NotUnderstood> {
    if rest.is_empty() {
        return Err(usage(form));
    }
    letters(rest)
        .ok_or_else(|| NotUnderstood(Sentence::new("ghost_bad_letters").arg("text", rest.trim())))
}

/// Lower-case words with the punctuation a player puts around a phrase taken off.
fn phrase(text: &str) -> String {
    text.to_lowercase()
        .replace(['’', '‘'], "'")
        .chars()
        .map(|c| {
            if matches!(c, ':' | '"' | '.' | ',' | '!' | ';' | '(' | ')') {
                ' '
            } else {
                c
            }
        })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Reads one `[ghost]` command line. Forgiving: "protest: it is a word", "i resign",
/// "start a duel with Alice and Bob", or the letters of a play alone on the line
/// ("uperso"; a word that is also a command, such as "status", is played with
/// "play status").
pub fn parse(line: &str) -> Result<Command, NotUnderstood> {
    parse_command(line).or_else(|error| {
        bare_letters(line)
            .map(|letters| Command::Play { letters })
            .ok_or(error)
    })
}

/// The commands with a verb.
fn parse_command(line: &str) -> Result<Command, NotUnderstood> {
    let (verb, rest) = split_verb(line);
    let verb = verb.trim_end_matches(':');
    let rest = rest.trim_start_matches(':').trim();
    let words = phrase(rest);
    let unknown = || {
        NotUnderstood(
            Sentence::new("unknown_command")
                .arg("tag", TAG)
                .arg("commands", COMMANDS),
        )
    };
    match verb {
        "start" | "new" => parse_start(rest),
        "begin" | "letter" => {
            let letter = ["with the letter", "with", "the letter", "letter"]
                .iter()
                .find_map(|prefix| {
                    words
                        .strip_prefix(prefix)
                        .filter(|after| after.starts_with(' '))
                })
                .unwrap_or(rest);
            Ok(Command::Begin {
                letter: letters_of(letter, "begin LETTER")?,
            })
        }
        "play" | "continue" | "move" => Ok(Command::Play {
            letters: letters_of(rest, "play LETTERS")?,
        }),
        "protest" | "challenge" => parse_protest(&words),
        "word" | "answer" | "inside" | "within" => Ok(Command::Answer {
            word: letters_of(rest, "word WORD")?,
        }),
        "resign" if words.is_empty() || words == "the game" || words == "game" => {
            Ok(Command::Resign)
        }
        "resign" | "quit" | "stop" if words.contains("referee") || words.contains("post") => {
            Ok(Command::ResignReferee)
        }
        "leave" | "quit" | "withdraw"
            if matches!(words.as_str(), "" | "game" | "the game" | "this game") =>
        {
            Ok(Command::Leave)
        }
        "add" | "join"
            if matches!(words.as_str(), "" | "me" | "me please" | "please" | "me in") =>
        {
            Ok(Command::AddMe)
        }
        "referee" if matches!(words.as_str(), "" | "me" | "please" | "me please") => {
            Ok(Command::TakeReferee)
        }
        "take" | "become" | "i'll" | "i" | "i'd"
            if matches!(
                words.as_str(),
                "referee"
                    | "the referee post"
                    | "the post"
                    | "over as referee"
                    | "will referee"
                    | "referee the game"
                    | "the referee's post"
                    | "like to referee"
                    | "will be referee"
                    | "the referee"
            ) =>
        {
            Ok(Command::TakeReferee)
        }
        "i" if words == "resign" => Ok(Command::Resign),
        "i" if words == "leave" => Ok(Command::Leave),
        "status" | "state" | "who" if words.is_empty() => Ok(Command::Status),
        "history" | "log" | "record" if words.is_empty() => Ok(Command::History),
        "rule" | "ruling" | "rules" => parse_rule(rest),
        "remove" => match rest.split_once(" because ") {
            Some((name, reason)) if !name.trim().is_empty() && !reason.trim().is_empty() => {
                Ok(Command::Remove {
                    name: name.trim().to_owned(),
                    reason: reason.trim().to_owned(),
                })
            }
            _ => Err(usage("remove NAME because REASON")),
        },
        "set" | "clear" => parse_set_word(verb, rest),
        _ => Err(unknown()),
    }
}

/// `start [a] [duel] with NAME, NAME and NAME [as a duel]`.
fn parse_start(rest: &str) -> Result<Command, NotUnderstood> {
    const FORM: &str = "start with NAME, NAME, ... or start duel with NAME, NAME";
    let mut duel = false;
    let mut text = rest.trim();
    // Leading filler words, "duel" among them, before the names.
    loop {
        let (word, after) = split_verb(text);
        let word = word.trim_end_matches(':');
        match word {
            "a" | "an" | "new" | "game" | "ghost" | "instance" | "with" | "between" | "among"
            | "for" | "players" | "of" => text = after,
            "duel" => {
                duel = true;
                text = after;
            }
            _ => break,
        }
    }
    for ending in [" as a duel", " as duel", " (duel)", " duel"] {
        if text.to_lowercase().ends_with(ending) {
            duel = true;
            text = &text[..text.len() - ending.len()];
        }
    }
    let mut names: Vec<String> = Vec::new();
    for part in text.split([',', ';', '&']) {
        let mut part = part.trim();
        // "Alice, Bob and Carol" and "Alice and Bob".
        loop {
            let lower = part.to_lowercase();
            if let Some(rest) = lower.strip_prefix("and ") {
                part = &part[part.len() - rest.len()..];
                continue;
            }
            match lower.find(" and ") {
                Some(at) => {
                    names.push(part[..at].trim().to_owned());
                    part = part[at + 5..].trim();
                }
                None => break,
            }
        }
        if !part.is_empty() {
            names.push(part.to_owned());
        }
    }
    names.retain(|name| !name.is_empty());
    if names.is_empty() {
        return Err(usage(FORM));
    }
    Ok(Command::Start { duel, names })
}

/// `protest word`, `protest not inside`, `protest addition NAME`, and longer
/// phrasings of the same.
fn parse_protest(words: &str) -> Result<Command, NotUnderstood> {
    const FORM: &str = "protest word, protest not inside, or protest addition NAME";
    for prefix in [
        "the addition of ",
        "addition of ",
        "addition ",
        "adding ",
        "add ",
    ] {
        if let Some(name) = words.strip_prefix(prefix).filter(|n| !n.trim().is_empty()) {
            return Ok(Command::ProtestAddition {
                name: name.trim().to_owned(),
            });
        }
    }
    if let Some(name) = words
        .strip_suffix("'s addition")
        .filter(|n| !n.trim().is_empty())
    {
        return Ok(Command::ProtestAddition {
            name: name.trim().to_owned(),
        });
    }
    const NOT_INSIDE: &[&str] = &[
        "inside",
        "within",
        "in any word",
        "cannot",
        "can't",
        "cant",
        "not found",
        "impossible",
        "no such word",
        "no word",
    ];
    if NOT_INSIDE.iter().any(|key| words.contains(key)) {
        return Ok(Command::Protest {
            grounds: Grounds::NotInside,
        });
    }
    // "not a word" is no ground of protest: rather than guess, ask.
    let has_not = words.split(' ').any(|w| w == "not" || w == "isn't");
    if !has_not
        && (matches!(words, "word" | "a word" | "is a word" | "real word")
            || words.contains("is a word")
            || words.contains("'s a word")
            || words.contains("four or more letters")
            || words.contains("complete word"))
    {
        return Ok(Command::Protest {
            grounds: Grounds::IsAWord,
        });
    }
    Err(usage(FORM))
}

/// `rule valid because REASON`, `rule invalid because REASON`.
fn parse_rule(rest: &str) -> Result<Command, NotUnderstood> {
    const FORM: &str = "rule valid because REASON, or rule invalid because REASON";
    let (head, reason) = rest.split_once(" because ").ok_or_else(|| usage(FORM))?;
    let head = phrase(head);
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(usage(FORM));
    }
    let words: Vec<&str> = head.split(' ').collect();
    let valid = if words.contains(&"invalid") || words.contains(&"not") {
        false
    } else if words.contains(&"valid") {
        true
    } else {
        return Err(usage(FORM));
    };
    Ok(Command::Rule {
        valid,
        reason: reason.to_owned(),
    })
}

/// `set word LETTERS because REASON`, `clear word because REASON`.
fn parse_set_word(verb: &str, rest: &str) -> Result<Command, NotUnderstood> {
    const FORM: &str = "set word LETTERS because REASON, or clear word because REASON";
    let (what, reason) = rest.split_once(" because ").ok_or_else(|| usage(FORM))?;
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(usage(FORM));
    }
    let what = phrase(what);
    let mut words: Vec<&str> = what.split(' ').filter(|w| !w.is_empty()).collect();
    while words
        .first()
        .is_some_and(|w| matches!(*w, "the" | "ghost" | "word" | "to"))
    {
        words.remove(0);
    }
    let word = match (verb, words.as_slice()) {
        ("clear", []) => None,
        ("set", ["none" | "nothing" | "-"]) => None,
        ("set", [letters_text]) => Some(letters(letters_text).ok_or_else(|| {
            NotUnderstood(Sentence::new("ghost_bad_letters").arg("text", *letters_text))
        })?),
        _ => return Err(usage(FORM)),
    };
    Ok(Command::SetWord {
        word,
        reason: reason.to_owned(),
    })
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

fn remaining_json(seconds: i64) -> Value {
    let minutes = seconds.max(0) / 60;
    json!({
        "days": minutes / (24 * 60),
        "hours": minutes / 60 % 24,
        "minutes": minutes % 60,
    })
}

fn random_error(error: &random::DrawError) -> Refusal {
    Refusal(Sentence::new("ghost_random_error").arg("error", error.to_string()))
}

/// The sender's name as an officer: the player's name, or the address.
fn officer_name(ctx: &Ctx, players: &Registry) -> String {
    players
        .active_by_address(&ctx.sender)
        .map_or_else(|| ctx.sender.to_string(), |p| p.name.clone())
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
                owner: TAG.to_owned(),
                who: self.seat(*seat).map(|s| s.player),
                what: format!("your turn in Ghost {}", self.number),
                remind: true,
            }),
            Stage::Protest { protest } => match protest.clock {
                Some(Clock::Running { deadline }) => Some(Deadline {
                    id: answer_deadline_id(self.number, protest.index),
                    at: deadline,
                    owner: TAG.to_owned(),
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
            Event::Removed { seat, why, .. } => {
                if let Some(seat) = self.seat_mut(*seat) {
                    seat.removed = Some(Removal {
                        at,
                        why: why.clone(),
                    });
                }
            }
            Event::WordDestroyed { .. } => {
                self.ghost_word = None;
                self.word_by = None;
            }
            Event::WordSet { word, .. } => {
                // A corrected word stays the work of the player whose turn made it;
                // a word set where there was none is no player's.
                if self.ghost_word.is_none() {
                    self.word_by = None;
                }
                self.ghost_word = word.clone();
                if word.is_none() {
                    self.word_by = None;
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
                match &mut self.stage {
                    Stage::Turn { clock, .. } => *clock = clock.stopped(at),
                    Stage::Protest { protest } => {
                        protest.clock = protest.clock.map(|clock| clock.stopped(at));
                    }
                    _ => {}
                }
            }
            Event::Resumed { referee, .. } => {
                self.referee = Some(referee.clone());
                let since = self.suspended_since.take().unwrap_or(at);
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
            Event::Finished {
                winner, rewards, ..
            } => {
                self.stage = Stage::Over;
                self.winner = *winner;
                self.rewards = rewards.clone();
            }
        }
    }
}

impl Ghosts {
    pub fn instance(&self, number: u32) -> Option<&Instance> {
        self.instances.iter().find(|i| i.number == number)
    }

    /// The instances not over, in the order started.
    pub fn open_instances(&self) -> impl Iterator<Item = &Instance> {
        self.instances.iter().filter(|i| !i.is_over())
    }

    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        if let Event::Started {
            instance,
            duel,
            referee,
            seats,
            random_label,
        } = event
            && self.instance(*instance).is_none()
        {
            self.instances.push(Instance {
                number: *instance,
                duel: *duel,
                referee: Some(referee.clone()),
                started_at: at,
                seats: seats
                    .iter()
                    .map(|seat| Seat {
                        number: seat.number,
                        player: seat.player,
                        name: seat.name.clone(),
                        joined_at: at,
                        addition_protest_until: None,
                        first_turn_at: None,
                        removed: None,
                    })
                    .collect(),
                began: u32::try_from(seats.len()).unwrap_or(u32::MAX),
                ghost_word: None,
                word_by: None,
                stage: Stage::Between,
                suspended_since: None,
                turns_begun: 0,
                protests_made: 0,
                random_label: random_label.clone(),
                winner: None,
                rewards: None,
                history: Vec::new(),
            });
        }
        if let Some(instance) = self
            .instances
            .iter_mut()
            .find(|i| i.number == event.instance())
        {
            instance.apply(event, at);
            instance.history.push(Record {
                at,
                event: event.clone(),
            });
        }
    }

    /// The instance a command is for: `number` from the tag (`[ghost 2]`), or the one
    /// open instance. Several open and no number: refused, listing them.
    fn pick(&self, number: Option<u32>, players: &Registry) -> Result<&Instance, Refusal> {
        let listed = |instances: Vec<&Instance>| -> Vec<Value> {
            instances
                .into_iter()
                .map(|i| {
                    json!({
                        "number": i.number,
                        "players": i.in_game().map(|s| i.name(s.number, players)).collect::<Vec<_>>(),
                        "referee": i.referee.as_ref().map(|r| r.name.clone()),
                    })
                })
                .collect()
        };
        match number {
            Some(number) => self.instance(number).ok_or_else(|| {
                Refusal(
                    Sentence::new("ghost_no_such_instance")
                        .arg("number", number)
                        .arg("open", listed(self.open_instances().collect())),
                )
            }),
            None => {
                let open: Vec<&Instance> = self.open_instances().collect();
                match open.as_slice() {
                    [only] => Ok(only),
                    [] => Err(Refusal(Sentence::new("ghost_none_open").arg(
                        "finished",
                        self.instances.iter().map(|i| i.number).collect::<Vec<_>>(),
                    ))),
                    _ => Err(Refusal(
                        Sentence::new("ghost_which").arg("instances", listed(open)),
                    )),
                }
            }
        }
    }

    /// Carries out one command. `instance` is the N of a `[ghost N]` tag; `None`
    /// means the one open instance (`start` ignores it: it always makes a new one).
    /// `is_moderator`: the sender may override rulings like the referee.
    pub fn apply(
        &self,
        instance: Option<u32>,
        command: Command,
        ctx: &Ctx,
        services: Services,
        is_moderator: bool,
    ) -> Result<Done<Change>, Refusal> {
        if let Command::Start { duel, names } = &command {
            return self.start(*duel, names, ctx, services, is_moderator);
        }
        let players = services.players;
        let inst = self.pick(instance, players)?;
        let n = inst.number;
        match command {
            Command::Status | Command::History => {
                let history = matches!(command, Command::History).then(|| {
                    inst.history
                        .iter()
                        .map(|record| history_sentence(inst, record, players))
                        .collect::<Vec<_>>()
                });
                return Ok(Done {
                    events: Vec::new(),
                    mail: Vec::new(),
                    sentence: Sentence::new("ghost_status")
                        .arg("number", n)
                        .arg("game", summary(inst, players, ctx.now))
                        .arg("history", history),
                });
            }
            _ if inst.is_over() => {
                return Err(Refusal(
                    Sentence::new("ghost_over")
                        .arg("number", n)
                        .arg("winner", inst.winner.map(|w| inst.name(w, players))),
                ));
            }
            _ => {}
        }
        let mut step = Step::new(self, services, ctx.now);
        match command {
            Command::Start { .. } | Command::Status | Command::History => {}
            Command::Begin { letter } => {
                let seat = self.playing_seat(inst, ctx, services)?;
                if let Some(word) = &inst.ghost_word {
                    return Err(Refusal(
                        Sentence::new("ghost_word_exists")
                            .arg("number", n)
                            .arg("word", word),
                    ));
                }
                step.play(n, seat, &letter)?;
            }
            Command::Play { letters } => {
                // The protested player of a "not inside" protest who posts a bare
                // word is answering it ("three days to post a word containing the
                // ghost word"), not playing.
                let answering = matches!(
                    &inst.stage,
                    Stage::Protest { protest }
                        if protest.grounds == Grounds::NotInside
                            && protest.against.is_some()
                            && protest.against == sender_seat(inst, ctx, players).ok()
                );
                if answering {
                    require_public(inst, ctx)?;
                    let seat = sender_seat(inst, ctx, players)?;
                    require_referee_present(inst)?;
                    step.answer(n, seat, &letters)?;
                } else {
                    let seat = self.playing_seat(inst, ctx, services)?;
                    step.play(n, seat, &letters)?;
                }
            }
            Command::Protest { grounds } => {
                let seat = self.playing_seat(inst, ctx, services)?;
                step.protest(n, seat, grounds)?;
            }
            Command::Answer { word } => {
                require_public(inst, ctx)?;
                let seat = sender_seat(inst, ctx, players)?;
                require_referee_present(inst)?;
                step.answer(n, seat, &word)?;
            }
            Command::Resign => {
                require_public(inst, ctx)?;
                let seat = sender_seat(inst, ctx, players)?;
                if inst.turn() != Some(seat) {
                    return Err(not_your_turn(inst, players));
                }
                step.remove(n, seat, Why::Resigned);
            }
            Command::Leave => {
                require_public(inst, ctx)?;
                let seat = sender_seat(inst, ctx, players)?;
                step.remove(n, seat, Why::Left);
            }
            Command::AddMe => step.add(n, ctx)?,
            Command::ProtestAddition { name } => {
                require_public(inst, ctx)?;
                let seat = sender_seat(inst, ctx, players)?;
                require_referee_present(inst)?;
                step.protest_addition(n, seat, &name)?;
            }
            Command::TakeReferee => step.take_referee(n, ctx, is_moderator)?,
            Command::ResignReferee => {
                if !inst.is_referee(ctx, players) {
                    return Err(referee_only(inst));
                }
                step.suspend(n, Vacancy::Resigned);
            }
            Command::Rule { valid, reason } => {
                let officer = require_officer(inst, ctx, players, is_moderator)?;
                let Stage::Protest { .. } = inst.stage else {
                    return Err(Refusal(Sentence::new("ghost_no_protest").arg("number", n)));
                };
                step.cancel_pending(n);
                step.resolve_protest(n, valid, Resolution::Override { officer, reason });
            }
            Command::Remove { name, reason } => {
                let officer = require_officer(inst, ctx, players, is_moderator)?;
                let seat = inst
                    .seat_named(&name, players)
                    .filter(|s| s.removed.is_none())
                    .ok_or_else(|| {
                        Refusal(
                            Sentence::new("ghost_no_such_seat")
                                .arg("number", n)
                                .arg("name", name.trim()),
                        )
                    })?;
                step.remove(n, seat.number, Why::Override { officer, reason });
            }
            Command::SetWord { word, reason } => {
                let officer = require_officer(inst, ctx, players, is_moderator)?;
                if let Stage::Protest { protest } = &inst.stage {
                    return Err(protest_pending(inst, protest, players));
                }
                step.record(Event::WordSet {
                    instance: n,
                    word,
                    previous: inst.ghost_word.clone(),
                    officer,
                    reason,
                });
            }
        }
        let sentence = Sentence::new("ghost_done")
            .arg("number", n)
            .arg("happened", step.happened(n))
            .arg("game", step.summary(n));
        let (events, mail) = step.finish();
        Ok(Done {
            events,
            mail,
            sentence,
        })
    }

    /// The sender's seat, for a play in their turn: public, in the game, the
    /// instance not suspended, no protest pending, their turn and not late.
    fn playing_seat(&self, inst: &Instance, ctx: &Ctx, services: Services) -> Result<u32, Refusal> {
        let players = services.players;
        require_public(inst, ctx)?;
        let seat = sender_seat(inst, ctx, players)?;
        require_referee_present(inst)?;
        match &inst.stage {
            Stage::Protest { protest } => Err(protest_pending(inst, protest, players)),
            Stage::Turn {
                seat: turn, clock, ..
            } if *turn == seat => match clock.deadline() {
                Some(deadline) if ctx.now >= deadline => Err(Refusal(
                    Sentence::new("ghost_late")
                        .arg("number", inst.number)
                        .arg("deadline", human_time(deadline)),
                )),
                _ => Ok(seat),
            },
            _ => Err(not_your_turn(inst, players)),
        }
    }

    /// `start`: checks the players, draws their numbers and begins turn 1.
    fn start(
        &self,
        duel: bool,
        names: &[String],
        ctx: &Ctx,
        services: Services,
        is_moderator: bool,
    ) -> Result<Done<Change>, Refusal> {
        let players = services.players;
        let starter = players
            .active_by_address(&ctx.sender)
            .filter(|p| p.is_active_at(ctx.now));
        if starter.is_none() && !is_moderator {
            return Err(Refusal(
                Sentence::new("ghost_start_who").arg("address", ctx.sender.as_str()),
            ));
        }
        let referee = Referee {
            address: ctx.sender.clone(),
            player: starter.map(|p| p.id),
            name: starter.map_or_else(|| ctx.sender.to_string(), |p| p.name.clone()),
        };
        let mut chosen: Vec<&Player> = Vec::new();
        for name in names {
            let player = players.by_name(name).ok_or_else(|| {
                Refusal(Sentence::new("ghost_no_such_player").arg("name", name.trim()))
            })?;
            if !player.is_active_at(ctx.now) {
                return Err(Refusal(
                    Sentence::new("ghost_player_inactive").arg("name", &player.name),
                ));
            }
            if chosen.iter().any(|p| p.id == player.id) {
                return Err(Refusal(
                    Sentence::new("ghost_named_twice").arg("name", &player.name),
                ));
            }
            if referee.player == Some(player.id) {
                return Err(Refusal(
                    Sentence::new("ghost_referee_plays").arg("name", &player.name),
                ));
            }
            chosen.push(player);
        }
        let n_players = chosen.len();
        let max = players.active_at(ctx.now).count();
        let min_players = services.params.min_players.max(2);
        if n_players < min_players {
            return Err(Refusal(
                Sentence::new("ghost_too_few")
                    .arg("n", n_players)
                    .arg("min", min_players),
            ));
        }
        if duel && n_players != 2 {
            return Err(Refusal(Sentence::new("ghost_duel_two").arg("n", n_players)));
        }
        if n_players > max {
            return Err(Refusal(
                Sentence::new("ghost_too_many")
                    .arg("n", n_players)
                    .arg("max", max),
            ));
        }
        let number = self.instances.iter().map(|i| i.number).max().unwrap_or(0) + 1;
        let mut step = Step::new(self, services, ctx.now);
        let mut new_label = None;
        let label = tag(number);
        if let Some(event) = step
            .random
            .open_if_idle(&label, ctx.entropy, ctx.now)
            .map_err(|e| random_error(&e))?
        {
            step.changes.push(Change::Random(event));
            new_label = Some(label);
        }
        let listed: Vec<String> = chosen.iter().map(|p| p.name.clone()).collect();
        let purpose = format!(
            "Ghost {number}: the players' numbers, a shuffle of {} as listed",
            listed.join(", ")
        );
        let (order, event) = step
            .random
            .shuffle(
                u32::try_from(n_players).unwrap_or(u32::MAX),
                &purpose,
                ctx.now,
            )
            .map_err(|e| random_error(&e))?;
        let draw_index = step
            .random
            .current
            .as_ref()
            .map_or(0, |period| period.draws.len());
        step.random.apply_event(&event, ctx.now);
        step.changes.push(Change::Random(event));
        // Entry k of the shuffle is which listed player comes k-th: number k + 1.
        let seats: Vec<NewSeat> = (1u32..)
            .zip(&order)
            .filter_map(|(number, listed_at)| {
                let player = chosen.get(usize::try_from(*listed_at).ok()?)?;
                Some(NewSeat {
                    number,
                    player: player.id,
                    name: player.name.clone(),
                })
            })
            .collect();
        step.record(Event::Started {
            instance: number,
            duel,
            referee: referee.clone(),
            seats,
            random_label: new_label.clone(),
        });
        step.quiet.push(number);
        step.begin_turn(number, 1);
        let game = step.summary(number);
        let (label, commitment) = step
            .random
            .current
            .as_ref()
            .map(|p| (p.label.clone(), p.commitment.clone()))
            .unwrap_or_default();
        let mail = Mail::new(
            Audience::List,
            &tag(number),
            "ghost_started",
            json!({
                "number": number,
                "at": human_time(ctx.now),
                "referee": referee.name,
                "duel": duel,
                "listed": listed,
                "label": label,
                "commitment": commitment,
                "new_period": new_label.is_some(),
                "purpose": purpose,
                "draw_index": draw_index,
                "days": services.params.turn_days,
                "answer_days": services.params.answer_days,
                "addition_protest_days": services.params.addition_protest_days,
                "game": game,
            }),
        );
        let sentence = Sentence::new("ghost_started")
            .arg("number", number)
            .arg("game", game)
            .arg("label", &label)
            .arg("commitment", &commitment);
        let (events, mut mails) = step.finish();
        mails.insert(0, mail);
        Ok(Done {
            events,
            mail: mails,
            sentence,
        })
    }

    /// A deadline of this game fired (owner "ghost", id `ghost:N:turn:K` or
    /// `ghost:N:protest:K`): the player whose turn it was is assumed to have
    /// resigned, or the unanswered protest is valid. A deadline that is no longer the
    /// instance's pending one (already played, moved, suspended) does nothing, so a
    /// repeated or stale firing is harmless.
    pub fn deadline_fired(
        &self,
        id: &str,
        at: Timestamp,
        services: Services,
    ) -> (Vec<Change>, Vec<Mail>) {
        let Some((n, kind, index)) = parse_deadline_id(id) else {
            return (Vec::new(), Vec::new());
        };
        let Some(inst) = self.instance(n) else {
            return (Vec::new(), Vec::new());
        };
        if inst.pending_deadline().is_none_or(|d| d.id != id) {
            return (Vec::new(), Vec::new());
        }
        let mut step = Step::new(self, services, at);
        step.gone.push(id.to_owned());
        match (&inst.stage, kind) {
            (Stage::Turn { seat, index: i, .. }, DeadlineKind::Turn) if *i == index => {
                step.remove(n, *seat, Why::TimedOut);
            }
            (Stage::Protest { protest }, DeadlineKind::Answer) if protest.index == index => {
                step.resolve_protest(n, true, Resolution::NoAnswer);
            }
            _ => {}
        }
        step.finish()
    }

    /// A player left the nomic (call it once the registry records the leave): in
    /// every running instance they are removed as if they had posted `leave` (a
    /// resignation if it was their turn), and every instance they referee is
    /// suspended until someone takes the post. So for a leave, call this alone, not
    /// `referee_gone` as well.
    pub fn player_left_nomic(
        &self,
        player: PlayerId,
        now: Timestamp,
        services: Services,
    ) -> (Vec<Change>, Vec<Mail>) {
        let mut step = Step::new(self, services, now);
        let open: Vec<u32> = self.open_instances().map(|i| i.number).collect();
        for n in open {
            let seat = step.inst(n).and_then(|i| i.seat_of_player(player));
            if let Some(seat) = seat {
                step.remove(n, seat, Why::LeftNomic);
            }
            if step.referee_player(n) == Some(player) {
                step.suspend(n, Vacancy::LeftNomic);
            }
        }
        step.finish()
    }

    /// The player is no longer referee of anything they referee (vacation, or
    /// `why` otherwise): each such running instance is suspended, its clocks stopped
    /// with the time they had left, until a nomic player not in it takes the post.
    pub fn referee_gone(
        &self,
        player: PlayerId,
        why: Vacancy,
        now: Timestamp,
        services: Services,
    ) -> (Vec<Change>, Vec<Mail>) {
        let mut step = Step::new(self, services, now);
        let open: Vec<u32> = self.open_instances().map(|i| i.number).collect();
        for n in open {
            if step.referee_player(n) == Some(player) {
                step.suspend(n, why);
            }
        }
        step.finish()
    }
}

fn require_public(inst: &Instance, ctx: &Ctx) -> Result<(), Refusal> {
    if ctx.public {
        Ok(())
    } else {
        Err(Refusal(
            Sentence::new("ghost_public").arg("number", inst.number),
        ))
    }
}

fn require_referee_present(inst: &Instance) -> Result<(), Refusal> {
    if inst.is_suspended() {
        Err(Refusal(
            Sentence::new("ghost_suspended").arg("number", inst.number),
        ))
    } else {
        Ok(())
    }
}

/// The sender's seat among the players still in the game.
fn sender_seat(inst: &Instance, ctx: &Ctx, players: &Registry) -> Result<u32, Refusal> {
    players
        .active_by_address(&ctx.sender)
        .and_then(|p| inst.seat_of_player(p.id))
        .ok_or_else(|| {
            Refusal(
                Sentence::new("ghost_not_in_game")
                    .arg("number", inst.number)
                    .arg("referee", inst.is_referee(ctx, players)),
            )
        })
}

/// The referee, or a moderator: their name, for the announcement.
fn require_officer(
    inst: &Instance,
    ctx: &Ctx,
    players: &Registry,
    is_moderator: bool,
) -> Result<String, Refusal> {
    if inst.is_referee(ctx, players) || is_moderator {
        Ok(officer_name(ctx, players))
    } else {
        Err(referee_only(inst))
    }
}

fn referee_only(inst: &Instance) -> Refusal {
    Refusal(
        Sentence::new("ghost_referee_only")
            .arg("number", inst.number)
            .arg("referee", inst.referee.as_ref().map(|r| r.name.clone())),
    )
}

fn not_your_turn(inst: &Instance, players: &Registry) -> Refusal {
    Refusal(
        Sentence::new("ghost_not_your_turn")
            .arg("number", inst.number)
            .arg("turn", inst.turn().map(|seat| inst.name(seat, players))),
    )
}

fn protest_pending(inst: &Instance, protest: &Protest, players: &Registry) -> Refusal {
    Refusal(
        Sentence::new("ghost_protest_pending")
            .arg("number", inst.number)
            .arg("word", &protest.word)
            .arg("against", protest.against.map(|s| inst.name(s, players)))
            .arg(
                "deadline",
                protest.clock.and_then(Clock::deadline).map(human_time),
            ),
    )
}

/// The work of one command or one firing: a scratch copy of the state that each
/// event is applied to as it is recorded, so that later decisions see earlier ones.
struct Step<'a> {
    ghosts: Ghosts,
    random: RandomOfficer,
    services: Services<'a>,
    at: Timestamp,
    changes: Vec<Change>,
    /// The instances touched, with the length of their history before this step.
    touched: Vec<(u32, usize)>,
    /// Instances whose announcement the caller makes itself (the start).
    quiet: Vec<u32>,
    /// The seeds published because an instance ended, by instance.
    reveals: Vec<(u32, Mail)>,
    /// Deadlines fired (the cause of this step) or cancelled in it: not to be
    /// cancelled again.
    gone: Vec<String>,
}

impl<'a> Step<'a> {
    fn new(ghosts: &Ghosts, services: Services<'a>, at: Timestamp) -> Step<'a> {
        Step {
            ghosts: ghosts.clone(),
            random: services.random.clone(),
            services,
            at,
            changes: Vec::new(),
            touched: Vec::new(),
            quiet: Vec::new(),
            reveals: Vec::new(),
            gone: Vec::new(),
        }
    }

    fn inst(&self, n: u32) -> Option<&Instance> {
        self.ghosts.instance(n)
    }

    fn referee_player(&self, n: u32) -> Option<PlayerId> {
        self.inst(n)
            .filter(|i| !i.is_over())
            .and_then(|i| i.referee.as_ref())
            .and_then(|r| r.player)
    }

    fn record(&mut self, event: Event) {
        let n = event.instance();
        if !self.touched.iter().any(|(t, _)| *t == n) {
            let before = self.inst(n).map_or(0, |i| i.history.len());
            self.touched.push((n, before));
        }
        self.ghosts.apply_event(&event, self.at);
        self.changes.push(Change::Ghost(event));
    }

    fn cancel_pending(&mut self, n: u32) {
        let Some(deadline) = self.inst(n).and_then(Instance::pending_deadline) else {
            return;
        };
        if !self.gone.contains(&deadline.id) {
            self.gone.push(deadline.id.clone());
            self.changes
                .push(Change::Schedule(calendar::Event::Cancelled {
                    id: deadline.id,
                }));
        }
    }

    fn schedule_pending(&mut self, n: u32) {
        if let Some(deadline) = self.inst(n).and_then(Instance::pending_deadline) {
            self.changes
                .push(Change::Schedule(calendar::Event::Scheduled { deadline }));
        }
    }

    /// Seat `seat`'s turn begins: announced, with a deadline (or, while there is no
    /// referee, a stopped clock holding a whole turn).
    fn begin_turn(&mut self, n: u32, seat: u32) {
        let Some(inst) = self.inst(n) else { return };
        let length = days(self.services.params.turn_days);
        let clock = if inst.is_suspended() {
            Clock::Stopped {
                remaining_seconds: length.as_secs(),
            }
        } else {
            Clock::Running {
                deadline: later(self.at, length),
            }
        };
        let event = Event::TurnBegan {
            instance: n,
            seat,
            index: inst.turns_begun + 1,
            word: inst.ghost_word.clone(),
            clock,
        };
        self.record(event);
        self.schedule_pending(n);
    }

    /// After seat `after`'s turn (or protest): the game is won, or the next turn begins.
    fn advance(&mut self, n: u32, after: u32) {
        if self.finish_if_won(n) {
            return;
        }
        if let Some(next) = self.inst(n).and_then(|i| i.next_after(after)) {
            self.begin_turn(n, next);
        }
    }

    fn destroy_word(&mut self, n: u32) {
        if let Some(word) = self.inst(n).and_then(|i| i.ghost_word.clone()) {
            self.record(Event::WordDestroyed { instance: n, word });
        }
    }

    /// Removes seat `seat`. In their turn it is a resignation: the ghost word is
    /// destroyed and the next turn begins. If a protest that awaits their answer was
    /// made against them, the bot resolves it with the dictionary. Then, if one player
    /// is left, they win.
    fn remove(&mut self, n: u32, seat: u32, why: Why) {
        let Some(inst) = self.inst(n) else { return };
        if !inst.is_in_game(seat) {
            return;
        }
        let in_turn = inst.turn() == Some(seat);
        let awaited = match &inst.stage {
            Stage::Protest { protest } if protest.against == Some(seat) => Some(protest.clone()),
            _ => None,
        };
        if in_turn || awaited.is_some() {
            self.cancel_pending(n);
        }
        self.record(Event::Removed {
            instance: n,
            seat,
            why,
            in_turn,
        });
        if in_turn {
            self.destroy_word(n);
            self.advance(n, seat);
            return;
        }
        if self.finish_if_won(n) {
            return;
        }
        // The protested player left without posting a word containing the ghost
        // word: "If he does not, the protest is resolved as valid."
        if awaited.is_some() {
            self.resolve_protest(n, true, Resolution::Left);
        }
    }

    /// Resolves the instance's protest: the invalid protester, or the player with a
    /// valid protest against them, is removed; the ghost word is destroyed on a valid
    /// protest and always for `NotInside`; the next turn is the protester's next's.
    /// The caller cancels a pending deadline that did not fire.
    fn resolve_protest(&mut self, n: u32, valid: bool, how: Resolution) {
        let Some(Stage::Protest { protest }) = self.inst(n).map(|i| i.stage.clone()) else {
            return;
        };
        self.record(Event::ProtestResolved {
            instance: n,
            protest: protest.clone(),
            valid,
            how,
        });
        let loser = if valid {
            protest.against
        } else {
            Some(protest.by)
        };
        if let Some(loser) = loser
            && self.inst(n).is_some_and(|i| i.is_in_game(loser))
        {
            let why = if valid {
                Why::ValidProtest
            } else {
                Why::InvalidProtest
            };
            self.record(Event::Removed {
                instance: n,
                seat: loser,
                why,
                in_turn: false,
            });
        }
        if valid || protest.grounds == Grounds::NotInside {
            self.destroy_word(n);
        }
        self.advance(n, protest.by);
    }

    /// If at most one player is left, the game is over: the winner is announced and
    /// paid, and the random period the instance started is ended.
    fn finish_if_won(&mut self, n: u32) -> bool {
        let Some(inst) = self.inst(n) else {
            return true;
        };
        if inst.is_over() {
            return true;
        }
        let in_game: Vec<u32> = inst.in_game().map(|s| s.number).collect();
        if in_game.len() > 1 {
            return false;
        }
        self.cancel_pending(n);
        let winner = in_game.first().copied();
        let rewards = winner.and_then(|winner| self.pay(n, winner));
        self.record(Event::Finished {
            instance: n,
            winner,
            rewards,
        });
        self.end_period(n);
        true
    }

    /// Rule 103 §5: the referee's fee, and the winner's points unless a Duel. A
    /// payment the accounts refuse (say, a currency not configured) is not made and
    /// the result says why; it does not stop the game from ending.
    fn pay(&mut self, n: u32, winner: u32) -> Option<Rewards> {
        let Services {
            players,
            accounts,
            params,
            ..
        } = self.services;
        let inst = self.inst(n)?;
        let winner_seat = inst.seat(winner)?;
        let began = inst.began;
        let mut transfers = Vec::new();
        let mut pay_to =
            |player: PlayerId, name: String, amount: i64, currency: &str, why: String| {
                let amount_value = BigRational::from_integer(BigInt::from(amount));
                match accounts.transfer(
                    Holder::Nowhere,
                    Holder::Player(player),
                    currency,
                    &amount_value,
                    &why,
                ) {
                    Ok(event) => {
                        transfers.push(Change::Accounts(event));
                        Payment {
                            to: Some(name),
                            amount,
                            currency: currency.to_owned(),
                            unpaid: None,
                        }
                    }
                    Err(Refusal(sentence)) => {
                        unpaid_to(Some(name), amount, currency, &sentence.code)
                    }
                }
            };
        let fee = params.referee_fee;
        let fee_currency = params.referee_currency.as_str();
        let referee = match &inst.referee {
            None => unpaid_to(None, fee, fee_currency, "no_referee"),
            Some(referee) => match referee
                .player
                .and_then(|id| players.by_id(id))
                .filter(|p| p.is_active())
            {
                None => unpaid_to(
                    Some(referee.name.clone()),
                    fee,
                    fee_currency,
                    "not_a_player",
                ),
                Some(player) => pay_to(
                    player.id,
                    player.name.clone(),
                    fee,
                    fee_currency,
                    format!("{RULE}: the referee of Ghost {n}"),
                ),
            },
        };
        let winner_name = inst.name(winner, players);
        let winner = if inst.duel {
            unpaid_to(Some(winner_name), 0, &params.winner_currency, "duel")
        } else {
            pay_to(
                winner_seat.player,
                winner_name,
                params.winner_points(began),
                &params.winner_currency,
                format!("{RULE}: the winner of Ghost {n}, which {began} players began"),
            )
        };
        self.changes.extend(transfers);
        Some(Rewards {
            began,
            referee,
            winner,
        })
    }

    /// Ends the random period the instance started, if it still runs: its seed is
    /// published after the instance's last announcement.
    fn end_period(&mut self, n: u32) {
        let Some(label) = self.inst(n).and_then(|i| i.random_label.clone()) else {
            return;
        };
        if self
            .random
            .current
            .as_ref()
            .is_none_or(|p| p.label != label)
        {
            return;
        }
        if let Ok(event) = self.random.end_period() {
            self.random.apply_event(&event, self.at);
            self.changes.push(Change::Random(event));
            if let Some(record) = self.random.past.last() {
                self.reveals.push((n, record.revealed_mail(&tag(n))));
            }
        }
    }

    fn suspend(&mut self, n: u32, why: Vacancy) {
        let Some(referee) = self.inst(n).and_then(|i| i.referee.clone()) else {
            return;
        };
        self.cancel_pending(n);
        self.record(Event::Suspended {
            instance: n,
            why,
            referee,
        });
    }

    /// A letter begun or added, by seat `seat` in their turn.
    fn play(&mut self, n: u32, seat: u32, letters: &str) -> Result<(), Refusal> {
        let Some(inst) = self.inst(n) else {
            return Ok(());
        };
        let previous = inst.ghost_word.clone();
        match &previous {
            None if letters.len() != 1 => {
                return Err(Refusal(
                    Sentence::new("ghost_one_letter")
                        .arg("number", n)
                        .arg("letters", letters),
                ));
            }
            Some(word)
                if !(letters.len() == word.len() + 1
                    && (letters.ends_with(word.as_str())
                        || letters.starts_with(word.as_str()))) =>
            {
                return Err(Refusal(
                    Sentence::new("ghost_bad_continuation")
                        .arg("number", n)
                        .arg("word", word)
                        .arg("letters", letters)
                        .arg("before", format!("?{word}"))
                        .arg("after", format!("{word}?")),
                ));
            }
            _ => {}
        }
        self.cancel_pending(n);
        self.record(Event::Played {
            instance: n,
            seat,
            word: letters.to_owned(),
            previous,
        });
        self.advance(n, seat);
        Ok(())
    }

    /// A protest of the ghost word by seat `seat` in their turn.
    fn protest(&mut self, n: u32, seat: u32, grounds: Grounds) -> Result<(), Refusal> {
        let Some(inst) = self.inst(n) else {
            return Ok(());
        };
        let Some(word) = inst.ghost_word.clone() else {
            return Err(Refusal(Sentence::new("ghost_no_word").arg("number", n)));
        };
        let against = inst.word_by;
        if against == Some(seat) {
            return Err(Refusal(
                Sentence::new("ghost_protest_self").arg("number", n),
            ));
        }
        let against_in_game = against.is_some_and(|a| inst.is_in_game(a));
        let index = inst.protests_made + 1;
        let lexicon = self.services.lexicon;
        // Only a protest that the protested player must answer waits; the others are
        // looked up at once.
        let (clock, immediate) = match grounds {
            Grounds::IsAWord => {
                let found =
                    word.len() >= self.services.params.word_min_letters && lexicon.is_word(&word);
                (None, Some((found, found)))
            }
            Grounds::NotInside if !against_in_game => {
                let inside = lexicon.is_inside_a_word(&word);
                (None, Some((!inside, inside)))
            }
            Grounds::NotInside => (
                Some(Clock::Running {
                    deadline: later(self.at, days(self.services.params.answer_days)),
                }),
                None,
            ),
        };
        self.cancel_pending(n);
        self.record(Event::Protested {
            instance: n,
            protest: Protest {
                index,
                by: seat,
                against,
                grounds,
                word,
                made_at: self.at,
                clock,
            },
        });
        match immediate {
            Some((valid, found)) => {
                self.resolve_protest(n, valid, Resolution::Dictionary { found });
            }
            None => self.schedule_pending(n),
        }
        Ok(())
    }

    /// The protested player's word containing the ghost word.
    fn answer(&mut self, n: u32, seat: u32, word: &str) -> Result<(), Refusal> {
        let Some(inst) = self.inst(n) else {
            return Ok(());
        };
        let no_protest = || Refusal(Sentence::new("ghost_no_protest").arg("number", n));
        let Stage::Protest { protest } = &inst.stage else {
            return Err(no_protest());
        };
        let Some(Clock::Running { deadline }) = protest.clock else {
            return Err(no_protest());
        };
        if protest.against != Some(seat) {
            return Err(Refusal(
                Sentence::new("ghost_not_protested").arg("number", n).arg(
                    "against",
                    protest.against.map(|s| inst.name(s, self.services.players)),
                ),
            ));
        }
        if self.at >= deadline {
            return Err(Refusal(
                Sentence::new("ghost_late")
                    .arg("number", n)
                    .arg("deadline", human_time(deadline)),
            ));
        }
        if !word.contains(protest.word.as_str()) {
            return Err(Refusal(
                Sentence::new("ghost_answer_lacks")
                    .arg("number", n)
                    .arg("word", &protest.word)
                    .arg("answer", word)
                    .arg("deadline", human_time(deadline)),
            ));
        }
        let in_dictionary = self.services.lexicon.is_word(word);
        self.cancel_pending(n);
        self.resolve_protest(
            n,
            !in_dictionary,
            Resolution::Answer {
                word: word.to_owned(),
                in_dictionary,
            },
        );
        Ok(())
    }

    /// `add me`: a nomic player joins with the next number.
    fn add(&mut self, n: u32, ctx: &Ctx) -> Result<(), Refusal> {
        let players = self.services.players;
        let Some(inst) = self.inst(n) else {
            return Ok(());
        };
        let player = players
            .active_by_address(&ctx.sender)
            .filter(|p| p.is_active_at(ctx.now))
            .ok_or_else(|| {
                Refusal(Sentence::new("ghost_not_a_player").arg("address", ctx.sender.as_str()))
            })?;
        let refuse = |code: &str| Refusal(Sentence::new(code).arg("number", n));
        if inst.duel {
            return Err(refuse("ghost_duel_no_additions"));
        }
        if inst.is_referee(ctx, players) {
            return Err(refuse("ghost_is_referee"));
        }
        if inst.seat_of_player(player.id).is_some() {
            return Err(refuse("ghost_already_in"));
        }
        if inst.seats.iter().any(|s| s.player == player.id) {
            return Err(refuse("ghost_no_return"));
        }
        require_referee_present(inst)?;
        if !inst.additions_open() {
            let highest = inst.in_game().last().map(|s| inst.name(s.number, players));
            return Err(Refusal(
                Sentence::new("ghost_additions_closed")
                    .arg("number", n)
                    .arg("highest", highest),
            ));
        }
        let number = inst.seats.iter().map(|s| s.number).max().unwrap_or(0) + 1;
        self.record(Event::Added {
            instance: n,
            seat: NewSeat {
                number,
                player: player.id,
                name: player.name.clone(),
            },
            protest_until: later(self.at, days(self.services.params.addition_protest_days)),
        });
        Ok(())
    }

    /// An earlier player protests a newcomer's addition: the newcomer is removed.
    fn protest_addition(&mut self, n: u32, seat: u32, name: &str) -> Result<(), Refusal> {
        let players = self.services.players;
        let Some(inst) = self.inst(n) else {
            return Ok(());
        };
        let newcomer = inst
            .seat_named(name, players)
            .filter(|s| s.removed.is_none() && s.addition_protest_until.is_some())
            .ok_or_else(|| {
                Refusal(
                    Sentence::new("ghost_not_a_newcomer")
                        .arg("number", n)
                        .arg("name", name.trim()),
                )
            })?;
        let newcomer_name = inst.name(newcomer.number, players);
        let until = newcomer.addition_protest_until.unwrap_or(self.at);
        let final_because = if newcomer.first_turn_at.is_some() {
            Some("turn")
        } else if self.at >= until {
            Some("time")
        } else {
            None
        };
        if let Some(why) = final_because {
            return Err(Refusal(
                Sentence::new("ghost_addition_final")
                    .arg("number", n)
                    .arg("name", newcomer_name)
                    .arg("why", why)
                    .arg("until", human_time(until)),
            ));
        }
        if seat >= newcomer.number {
            return Err(Refusal(
                Sentence::new("ghost_not_earlier")
                    .arg("number", n)
                    .arg("name", newcomer_name),
            ));
        }
        let newcomer = newcomer.number;
        self.remove(n, newcomer, Why::AdditionProtested { by: seat });
        Ok(())
    }

    /// `referee`: a nomic player who is not in the instance takes the vacant post;
    /// the clocks run again with the time they had left.
    fn take_referee(&mut self, n: u32, ctx: &Ctx, is_moderator: bool) -> Result<(), Refusal> {
        let players = self.services.players;
        let Some(inst) = self.inst(n) else {
            return Ok(());
        };
        require_public(inst, ctx)?;
        if let Some(referee) = &inst.referee {
            return Err(Refusal(
                Sentence::new("ghost_referee_present")
                    .arg("number", n)
                    .arg("referee", &referee.name),
            ));
        }
        let player = players
            .active_by_address(&ctx.sender)
            .filter(|p| p.is_active_at(ctx.now));
        if player.is_none() && !is_moderator {
            return Err(Refusal(
                Sentence::new("ghost_not_a_player").arg("address", ctx.sender.as_str()),
            ));
        }
        if player.is_some_and(|p| inst.seat_of_player(p.id).is_some()) {
            return Err(Refusal(
                Sentence::new("ghost_referee_is_player").arg("number", n),
            ));
        }
        self.record(Event::Resumed {
            instance: n,
            referee: Referee {
                address: ctx.sender.clone(),
                player: player.map(|p| p.id),
                name: player.map_or_else(|| ctx.sender.to_string(), |p| p.name.clone()),
            },
        });
        self.schedule_pending(n);
        Ok(())
    }

    /// The records this step added to instance `n`'s history.
    fn records(&self, n: u32) -> &[Record] {
        let Some(inst) = self.inst(n) else {
            return &[];
        };
        let from = self
            .touched
            .iter()
            .find(|(t, _)| *t == n)
            .map_or(inst.history.len(), |(_, before)| *before);
        inst.history.get(from..).unwrap_or(&[])
    }

    /// What this step did to instance `n`, as history sentences, without the turn
    /// changes, start and end (the announcement shows those on their own).
    fn happened(&self, n: u32) -> Vec<Sentence> {
        let Some(inst) = self.inst(n) else {
            return Vec::new();
        };
        self.records(n)
            .iter()
            .filter(|record| {
                !matches!(
                    record.event,
                    Event::TurnBegan { .. } | Event::Started { .. } | Event::Finished { .. }
                )
            })
            .map(|record| history_sentence(inst, record, self.services.players))
            .collect()
    }

    /// The override this step carried out on instance `n`, if any: officer, reason.
    fn override_of(&self, n: u32) -> Option<(String, String)> {
        self.records(n)
            .iter()
            .find_map(|record| match &record.event {
                Event::WordSet {
                    officer, reason, ..
                }
                | Event::Removed {
                    why: Why::Override { officer, reason },
                    ..
                }
                | Event::ProtestResolved {
                    how: Resolution::Override { officer, reason },
                    ..
                } => Some((officer.clone(), reason.clone())),
                _ => None,
            })
    }

    fn summary(&self, n: u32) -> Value {
        self.inst(n).map_or(Value::Null, |inst| {
            summary(inst, self.services.players, self.at)
        })
    }

    /// The changes, and one announcement on the list per instance touched (then the
    /// seed of its random period, if it ended).
    fn finish(self) -> (Vec<Change>, Vec<Mail>) {
        let mut mail = Vec::new();
        for (n, _) in &self.touched {
            if self.quiet.contains(n) {
                continue;
            }
            // An override is announced as one, with the officer and the reason.
            let officer = self.override_of(*n);
            mail.push(Mail::new(
                Audience::List,
                &tag(*n),
                "ghost_news",
                json!({
                    "number": n,
                    "at": human_time(self.at),
                    "happened": self.happened(*n),
                    "officer": officer.as_ref().map(|(o, _)| o.clone()),
                    "reason": officer.as_ref().map(|(_, r)| r.clone()),
                    "game": self.summary(*n),
                    // The referee's report at the end carries the whole record.
                    "history": self.inst(*n).filter(|i| i.is_over()).map(|inst| {
                        inst.history
                            .iter()
                            .map(|record| history_sentence(inst, record, self.services.players))
                            .collect::<Vec<_>>()
                    }),
                }),
            ));
            mail.extend(
                self.reveals
                    .iter()
                    .filter(|(i, _)| i == n)
                    .map(|(_, m)| m.clone()),
            );
        }
        (self.changes, mail)
    }
}

fn unpaid_to(to: Option<String>, amount: i64, currency: &str, why: &str) -> Payment {
    Payment {
        to,
        amount,
        currency: currency.to_owned(),
        unpaid: Some(why.to_owned()),
    }
}

fn payment_json(payment: &Payment, role: &str) -> Value {
    json!({
        "role": role,
        "to": payment.to,
        "amount": payment.amount,
        "currency": payment.currency,
        "paid": payment.unpaid.is_none(),
        "unpaid": payment.unpaid,
    })
}

/// The state of an instance as the announcements, `status` and the end report show
/// it. Every key is always there (null when it does not apply).
/// An instance as the announcements show it: who plays in which order, whose
/// turn it is until when, the ghost word, a protest, the rewards.
pub fn summary(inst: &Instance, players: &Registry, now: Timestamp) -> Value {
    let name = |seat: u32| inst.name(seat, players);
    let seats: Vec<Value> = inst
        .seats
        .iter()
        .map(|seat| {
            json!({
                "number": seat.number,
                "name": name(seat.number),
                "in_game": seat.removed.is_none(),
                "removed": seat.removed.as_ref().map(|r| r.why.code()),
                "removed_at": seat.removed.as_ref().map(|r| human_time(r.at)),
                "added": seat.addition_protest_until.is_some(),
                "joined": human_time(seat.joined_at),
            })
        })
        .collect();
    let turn = match &inst.stage {
        Stage::Turn {
            seat,
            began_at,
            clock,
            ..
        } => json!({
            "number": seat,
            "name": name(*seat),
            "began": human_time(*began_at),
            "deadline": clock.deadline().map(human_time),
            "remaining": remaining_json(clock.remaining_seconds(now)),
        }),
        _ => Value::Null,
    };
    let protest = match &inst.stage {
        Stage::Protest { protest } => json!({
            "by": name(protest.by),
            "against": protest.against.map(name),
            "grounds": protest.grounds.code(),
            "word": protest.word,
            "made": human_time(protest.made_at),
            "deadline": protest.clock.and_then(Clock::deadline).map(human_time),
            "remaining": protest.clock.map(|c| remaining_json(c.remaining_seconds(now))),
        }),
        _ => Value::Null,
    };
    let next = inst.turn().and_then(|seat| inst.next_after(seat)).map(name);
    json!({
        "number": inst.number,
        "duel": inst.duel,
        "referee": inst.referee.as_ref().map(|r| r.name.clone()),
        "started": human_time(inst.started_at),
        "began": inst.began,
        "players": seats,
        "order": inst.in_game().map(|s| name(s.number)).collect::<Vec<_>>(),
        "word": inst.ghost_word,
        "word_by": inst.word_by.map(name),
        "turn": turn,
        "next": next,
        "protest": protest,
        "suspended": inst.is_suspended(),
        "suspended_since": inst.suspended_since.map(human_time),
        "additions_open": inst.additions_open() && !inst.is_suspended(),
        "over": inst.is_over(),
        "winner": inst.winner.map(name),
        "rewards": inst.rewards.as_ref().map(|r| json!({
            "began": r.began,
            "referee": payment_json(&r.referee, "referee"),
            "winner": payment_json(&r.winner, "winner"),
        })),
    })
}

/// One history line as a sentence (`ghost_h_*`): the wording is in
/// templates/sentences/ghost.txt. Every code always has all its args.
fn history_sentence(inst: &Instance, record: &Record, players: &Registry) -> Sentence {
    let name = |seat: u32| inst.name(seat, players);
    let at = human_time(record.at);
    match &record.event {
        Event::Started {
            duel,
            referee,
            seats,
            ..
        } => Sentence::new("ghost_h_started")
            .arg("at", at)
            .arg("duel", duel)
            .arg("referee", &referee.name)
            .arg(
                "players",
                seats
                    .iter()
                    .map(|s| json!({"number": s.number, "name": name(s.number)}))
                    .collect::<Vec<_>>(),
            ),
        Event::TurnBegan {
            seat, word, clock, ..
        } => Sentence::new("ghost_h_turn")
            .arg("at", at)
            .arg("name", name(*seat))
            .arg("number", seat)
            .arg("word", word)
            .arg("deadline", clock.deadline().map(human_time)),
        Event::Played {
            seat,
            word,
            previous,
            ..
        } => Sentence::new("ghost_h_played")
            .arg("at", at)
            .arg("name", name(*seat))
            .arg("word", word)
            .arg("previous", previous),
        Event::Protested { protest, .. } => Sentence::new("ghost_h_protested")
            .arg("at", at)
            .arg("name", name(protest.by))
            .arg("against", protest.against.map(name))
            .arg("grounds", protest.grounds.code())
            .arg("word", &protest.word)
            .arg(
                "deadline",
                protest.clock.and_then(Clock::deadline).map(human_time),
            ),
        Event::ProtestResolved {
            protest,
            valid,
            how,
            ..
        } => {
            let (how_code, found, answer, in_dictionary, officer, reason) = match how {
                Resolution::Dictionary { found } => {
                    ("dictionary", Some(*found), None, None, None, None)
                }
                Resolution::Answer {
                    word,
                    in_dictionary,
                } => (
                    "answer",
                    None,
                    Some(word.clone()),
                    Some(*in_dictionary),
                    None,
                    None,
                ),
                Resolution::NoAnswer => ("no_answer", None, None, None, None, None),
                Resolution::Left => ("left", None, None, None, None, None),
                Resolution::Override { officer, reason } => (
                    "override",
                    None,
                    None,
                    None,
                    Some(officer.clone()),
                    Some(reason.clone()),
                ),
            };
            Sentence::new("ghost_h_resolved")
                .arg("at", at)
                .arg("valid", valid)
                .arg("grounds", protest.grounds.code())
                .arg("word", &protest.word)
                .arg("protester", name(protest.by))
                .arg("against", protest.against.map(name))
                .arg("how", how_code)
                .arg("found", found)
                .arg("answer", answer)
                .arg("in_dictionary", in_dictionary)
                .arg("officer", officer)
                .arg("reason", reason)
        }
        Event::Removed {
            seat, why, in_turn, ..
        } => {
            let (by, officer, reason) = match why {
                Why::AdditionProtested { by } => (Some(name(*by)), None, None),
                Why::Override { officer, reason } => {
                    (None, Some(officer.clone()), Some(reason.clone()))
                }
                _ => (None, None, None),
            };
            Sentence::new("ghost_h_removed")
                .arg("at", at)
                .arg("name", name(*seat))
                .arg("why", why.code())
                .arg("in_turn", in_turn)
                .arg("by", by)
                .arg("officer", officer)
                .arg("reason", reason)
        }
        Event::WordDestroyed { word, .. } => Sentence::new("ghost_h_destroyed")
            .arg("at", at)
            .arg("word", word),
        Event::WordSet {
            word,
            previous,
            officer,
            reason,
            ..
        } => Sentence::new("ghost_h_word_set")
            .arg("at", at)
            .arg("word", word)
            .arg("previous", previous)
            .arg("officer", officer)
            .arg("reason", reason),
        Event::Added {
            seat,
            protest_until,
            ..
        } => Sentence::new("ghost_h_added")
            .arg("at", at)
            .arg("name", name(seat.number))
            .arg("number", seat.number)
            .arg("until", human_time(*protest_until)),
        Event::Suspended { why, referee, .. } => Sentence::new("ghost_h_suspended")
            .arg("at", at)
            .arg("why", why.code())
            .arg("referee", &referee.name),
        Event::Resumed { referee, .. } => Sentence::new("ghost_h_resumed")
            .arg("at", at)
            .arg("referee", &referee.name),
        Event::Finished {
            winner, rewards, ..
        } => Sentence::new("ghost_h_won")
            .arg("at", at)
            .arg("winner", winner.map(name))
            .arg(
                "referee_paid",
                rewards
                    .as_ref()
                    .map(|r| payment_json(&r.referee, "referee")),
            )
            .arg(
                "winner_paid",
                rewards.as_ref().map(|r| payment_json(&r.winner, "winner")),
            ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::accounts::{Currency, Exactness};
    use crate::engine::calendar::Schedule;
    use crate::engine::players::Event as PlayerEvent;
    use minijinja::{Environment, UndefinedBehavior};

    fn ts(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    fn t0() -> Timestamp {
        ts("2026-05-01T12:00:00Z")
    }

    fn hours(n: i64) -> Timestamp {
        t0().checked_add(SignedDuration::from_hours(n)).unwrap()
    }

    /// A tiny official dictionary.
    #[derive(Debug)]
    struct TestLexicon(Vec<&'static str>);

    impl Lexicon for TestLexicon {
        fn is_word(&self, word: &str) -> bool {
            self.0.iter().any(|w| w.eq_ignore_ascii_case(word))
        }

        fn is_inside_a_word(&self, fragment: &str) -> bool {
            let fragment = fragment.to_lowercase();
            self.0.iter().any(|w| w.contains(fragment.as_str()))
        }
    }

    fn lexicon() -> TestLexicon {
        TestLexicon(vec![
            "supersonic",
            "cat",
            "cattle",
            "word",
            "stop",
            "queue",
            "quiet",
            "ghost",
        ])
    }

    fn address(who: &str) -> Address {
        Address::new(&format!("{}@x.org", who.to_lowercase()))
    }

    /// Everything a game of Ghost touches, changed only through the recorded changes.
    struct World {
        ghosts: Ghosts,
        players: Registry,
        accounts: Accounts,
        random: RandomOfficer,
        schedule: Schedule,
        lexicon: TestLexicon,
        params: Params,
        /// Every sentence answered, and every mail sent, rendered.
        sentences: Vec<Sentence>,
        texts: Vec<(Mail, String)>,
    }

    impl World {
        /// Rita (the referee, id 1), then the named players, ids from 2, all active;
        /// accounts with points and A$.
        fn new(names: &[&str]) -> World {
            let mut world = World {
                ghosts: Ghosts::default(),
                players: Registry::default(),
                accounts: Accounts::with_currencies(vec![
                    Currency::new("points", &["point"], Exactness::Integer),
                    Currency::new("A$", &[], Exactness::Integer),
                ]),
                random: RandomOfficer::default(),
                schedule: Schedule::default(),
                lexicon: lexicon(),
                params: Params::default(),
                sentences: Vec::new(),
                texts: Vec::new(),
            };
            for (id, name) in (1..).zip(std::iter::once(&"Rita").chain(names)) {
                world.players.apply_event(
                    &PlayerEvent::Joined {
                        id,
                        name: (*name).to_owned(),
                        address: address(name),
                    },
                    ts("2026-01-01T00:00:00Z"),
                );
            }
            world
        }

        fn services(&self) -> Services<'_> {
            Services {
                players: &self.players,
                accounts: &self.accounts,
                random: &self.random,
                lexicon: &self.lexicon,
                params: &self.params,
            }
        }

        fn record(&mut self, changes: &[Change], at: Timestamp) {
            for change in changes {
                match change {
                    Change::Ghost(event) => self.ghosts.apply_event(event, at),
                    Change::Schedule(event) => self.schedule.apply_event(event, at),
                    Change::Random(event) => self.random.apply_event(event, at),
                    Change::Accounts(event) => self.accounts.apply_event(event, at),
                }
            }
        }

        fn keep(&mut self, mail: &[Mail]) {
            for one in mail {
                let text = render(one);
                self.texts.push((one.clone(), text));
            }
        }

        /// Applies a line from `who` ("Alice", "mod" for the moderator) as the router
        /// would; returns the mail, or the refusal's code.
        fn run_as(
            &mut self,
            who: &str,
            public: bool,
            at: Timestamp,
            instance: Option<u32>,
            line: &str,
        ) -> Result<Vec<Mail>, String> {
            let ctx = Ctx {
                now: at,
                sender: address(who),
                sender_name: None,
                public,
                entropy: [9; 32],
            };
            let command = parse(line).map_err(|NotUnderstood(s)| s.code)?;
            let result = self
                .ghosts
                .apply(instance, command, &ctx, self.services(), who == "mod");
            match result {
                Ok(done) => {
                    check_sentence(&done.sentence);
                    self.sentences.push(done.sentence);
                    self.record(&done.events, at);
                    self.keep(&done.mail);
                    Ok(done.mail)
                }
                Err(Refusal(sentence)) => {
                    check_sentence(&sentence);
                    let code = sentence.code.clone();
                    self.sentences.push(sentence);
                    Err(code)
                }
            }
        }

        /// A public line to the one open instance.
        fn run(&mut self, who: &str, at: Timestamp, line: &str) -> Result<Vec<Mail>, String> {
            self.run_as(who, true, at, None, line)
        }

        /// What the router does when the clock reaches `at`: the schedule reminds and
        /// fires, and each fired ghost deadline goes to the game.
        fn tick(&mut self, at: Timestamp) -> Vec<Mail> {
            let (events, mut mail) =
                self.schedule
                    .tick(at, SignedDuration::from_hours(24), &self.players, at);
            let fired = self.schedule.fired_in(&events);
            for event in &events {
                self.schedule.apply_event(event, at);
            }
            for deadline in fired {
                assert_eq!(deadline.owner, TAG);
                let (changes, more) = self
                    .ghosts
                    .deadline_fired(&deadline.id, at, self.services());
                self.record(&changes, at);
                mail.extend(more);
            }
            self.keep(&mail);
            mail
        }

        fn left_nomic(&mut self, name: &str, at: Timestamp) -> Vec<Mail> {
            let id = self.players.by_name(name).unwrap().id;
            self.players.apply_event(&PlayerEvent::Left { id }, at);
            let (changes, mail) = self.ghosts.player_left_nomic(id, at, self.services());
            self.record(&changes, at);
            self.keep(&mail);
            mail
        }

        fn inst(&self, number: u32) -> &Instance {
            self.ghosts.instance(number).unwrap()
        }
    }

    impl Instance {
        /// Why the player in `seat` is out of the game, if ey is.
        fn removed_why(&self, seat: u32) -> Option<Why> {
            self.seat(seat)
                .unwrap()
                .removed
                .as_ref()
                .map(|r| r.why.clone())
        }
    }

    impl World {
        /// The players' names by number: `order(1)[0]` is player 1 of instance 1.
        fn order(&self, number: u32) -> Vec<String> {
            self.inst(number)
                .seats
                .iter()
                .map(|s| s.name.clone())
                .collect()
        }

        fn last_sentence(&self) -> &Sentence {
            self.sentences.last().unwrap()
        }

        /// The ghost deadlines in the schedule.
        fn deadlines(&self) -> Vec<(String, Timestamp)> {
            self.schedule
                .entries
                .iter()
                .filter(|e| e.deadline.owner == TAG)
                .map(|e| (e.deadline.id.clone(), e.deadline.at))
                .collect()
        }

        fn balance(&self, name: &str, currency: &str) -> BigRational {
            let id = self
                .players
                .players
                .iter()
                .find(|p| p.name == name)
                .unwrap()
                .id;
            self.accounts.balance(Holder::Player(id), currency)
        }

        /// Plays `lines` in turn order from the player whose turn it is, one hour
        /// apart from `at`.
        fn plays(&mut self, number: u32, at: &mut Timestamp, lines: &[&str]) {
            for line in lines {
                let seat = self.inst(number).turn().unwrap();
                let name = self.inst(number).seat(seat).unwrap().name.clone();
                *at = at.checked_add(SignedDuration::from_hours(1)).unwrap();
                self.run_as(&name, true, *at, Some(number), line)
                    .unwrap_or_else(|code| panic!("{name}: {line}: {code}"));
            }
        }

        fn turn_name(&self, number: u32) -> Option<String> {
            let inst = self.inst(number);
            inst.turn()
                .map(|seat| inst.seat(seat).unwrap().name.clone())
        }
    }

    fn integer(n: i64) -> BigRational {
        BigRational::from_integer(BigInt::from(n))
    }

    fn templates(mail: &[Mail]) -> Vec<&str> {
        mail.iter().map(|m| m.template.as_str()).collect()
    }

    fn environment() -> Environment<'static> {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        for (name, source) in [
            (
                "sentences/ghost.txt",
                include_str!("../../templates/sentences/ghost.txt"),
            ),
            (
                "ghost_started.txt",
                include_str!("../../templates/ghost_started.txt"),
            ),
            (
                "ghost_news.txt",
                include_str!("../../templates/ghost_news.txt"),
            ),
            (
                "random_period_revealed.txt",
                include_str!("../../templates/random_period_revealed.txt"),
            ),
            ("reminder.txt", include_str!("../../templates/reminder.txt")),
            (
                "sentence",
                "{% import \"sentences/ghost.txt\" as ghost %}{{ ghost.sentence(s) }}",
            ),
        ] {
            env.add_template(name, source).unwrap();
        }
        env
    }

    /// Renders a mail the way the shell does, with undefined values an error.
    fn render(mail: &Mail) -> String {
        let env = environment();
        let text = env
            .get_template(&format!("{}.txt", mail.template))
            .unwrap()
            .render(minijinja::Value::from(minijinja::value::Serde(
                &mail.values,
            )))
            .unwrap_or_else(|e| panic!("{}: {e:#}", mail.template));
        assert!(text.starts_with("Subject: "), "{text}");
        assert!(!text.contains("[no wording"), "{text}");
        text
    }

    /// Renders a ghost sentence (others are worded elsewhere).
    fn render_sentence(sentence: &Sentence) -> String {
        let env = environment();
        let text = env
            .get_template("sentence")
            .unwrap()
            .render(minijinja::context! {
                s => minijinja::Value::from(minijinja::value::Serde(sentence))
            })
            .unwrap_or_else(|e| panic!("{}: {e:#}", sentence.code));
        assert!(!text.contains("[no wording"), "{text}");
        assert!(!text.trim().is_empty(), "{}", sentence.code);
        text
    }

    fn check_sentence(sentence: &Sentence) {
        if sentence.code.starts_with("ghost_") {
            render_sentence(sentence);
        }
    }

    /// Rita starts instance 1 with these players, privately, at `at`.
    fn started(names: &[&str], line: &str, at: Timestamp) -> World {
        let mut world = World::new(names);
        world.run_as("Rita", false, at, None, line).unwrap();
        world
    }

    #[test]
    fn parse_forms() {
        let play = |letters: &str| {
            Ok(Command::Play {
                letters: letters.to_owned(),
            })
        };
        assert_eq!(
            parse("start with Alice, Bob and Carol"),
            Ok(Command::Start {
                duel: false,
                names: vec!["Alice".into(), "Bob".into(), "Carol".into()]
            })
        );
        assert_eq!(
            parse("Start a duel with Alice and Bob"),
            Ok(Command::Start {
                duel: true,
                names: vec!["Alice".into(), "Bob".into()]
            })
        );
        assert_eq!(
            parse("start Alice, Bob as a duel"),
            Ok(Command::Start {
                duel: true,
                names: vec!["Alice".into(), "Bob".into()]
            })
        );
        assert_eq!(parse("begin S"), Ok(Command::Begin { letter: "s".into() }));
        assert_eq!(
            parse("begin with the letter q"),
            Ok(Command::Begin { letter: "q".into() })
        );
        assert_eq!(parse("play UPERSO"), play("uperso"));
        assert_eq!(parse("uperso"), play("uperso"));
        assert_eq!(parse("  \"Uperso.\" "), play("uperso"));
        assert_eq!(parse("play: uperso"), play("uperso"));
        // A word that is also a verb is played with "play", or alone when the verb
        // needs more.
        assert_eq!(parse("play status"), play("status"));
        assert_eq!(parse("word"), play("word"));
        assert!(is_bare_play("uperso") && is_bare_play("word"));
        assert!(!is_bare_play("status") && !is_bare_play("play uperso"));
        let protest = |grounds| Ok(Command::Protest { grounds });
        for line in [
            "protest word",
            "protest: it is a word",
            "Protest: it's a word",
            "protest that the ghost word is a word of four or more letters in the official dictionary",
        ] {
            assert_eq!(parse(line), protest(Grounds::IsAWord), "{line}");
        }
        for line in [
            "protest not inside",
            "protest: it cannot be found within any word",
            "protest: it can't be found in any word",
            "challenge no word contains it",
        ] {
            assert_eq!(parse(line), protest(Grounds::NotInside), "{line}");
        }
        assert_eq!(
            parse("protest addition Dave"),
            Ok(Command::ProtestAddition {
                name: "dave".into()
            })
        );
        assert_eq!(
            parse("protest Dave's addition"),
            Ok(Command::ProtestAddition {
                name: "dave".into()
            })
        );
        assert_eq!(
            parse("word supersonic"),
            Ok(Command::Answer {
                word: "supersonic".into()
            })
        );
        assert_eq!(
            parse("answer: Supersonic"),
            Ok(Command::Answer {
                word: "supersonic".into()
            })
        );
        assert_eq!(parse("resign"), Ok(Command::Resign));
        assert_eq!(parse("I resign"), Ok(Command::Resign));
        assert_eq!(parse("leave"), Ok(Command::Leave));
        assert_eq!(parse("add me"), Ok(Command::AddMe));
        assert_eq!(parse("join"), Ok(Command::AddMe));
        assert_eq!(parse("referee"), Ok(Command::TakeReferee));
        assert_eq!(parse("I will referee"), Ok(Command::TakeReferee));
        assert_eq!(parse("take the referee post"), Ok(Command::TakeReferee));
        assert_eq!(parse("resign referee"), Ok(Command::ResignReferee));
        assert_eq!(parse("resign as referee"), Ok(Command::ResignReferee));
        assert_eq!(parse("status"), Ok(Command::Status));
        assert_eq!(parse("history"), Ok(Command::History));
        assert_eq!(
            parse("rule valid because the dictionary has it"),
            Ok(Command::Rule {
                valid: true,
                reason: "the dictionary has it".into()
            })
        );
        assert_eq!(
            parse("rule invalid because no"),
            Ok(Command::Rule {
                valid: false,
                reason: "no".into()
            })
        );
        assert_eq!(
            parse("remove Bob Smith because he asked by phone"),
            Ok(Command::Remove {
                name: "Bob Smith".into(),
                reason: "he asked by phone".into()
            })
        );
        assert_eq!(
            parse("set word SPR because a typo"),
            Ok(Command::SetWord {
                word: Some("spr".into()),
                reason: "a typo".into()
            })
        );
        assert_eq!(
            parse("set the ghost word to spr because a typo"),
            Ok(Command::SetWord {
                word: Some("spr".into()),
                reason: "a typo".into()
            })
        );
        assert_eq!(
            parse("clear word because a typo"),
            Ok(Command::SetWord {
                word: None,
                reason: "a typo".into()
            })
        );
        for (line, code) in [
            ("start", "usage"),
            ("play", "usage"),
            ("begin", "usage"),
            ("play upér", "ghost_bad_letters"),
            ("word super sonic", "ghost_bad_letters"),
            ("protest", "usage"),
            ("protest: it is not a word", "usage"),
            ("rule valid", "usage"),
            ("rule maybe because x", "usage"),
            ("remove Bob", "usage"),
            ("set word x y because z", "usage"),
            ("set word uper", "usage"),
            ("hello there", "unknown_command"),
            ("help", "unknown_command"),
            ("", "unknown_command"),
        ] {
            assert_eq!(
                parse(line).map_err(|e| e.0.code),
                Err(code.to_owned()),
                "{line:?}"
            );
        }
        assert_eq!(turn_deadline_id(2, 7), "ghost:2:turn:7");
        assert_eq!(answer_deadline_id(2, 1), "ghost:2:protest:1");
        assert_eq!(instance_of_deadline("ghost:2:turn:7"), Some(2));
        assert_eq!(instance_of_deadline("ghost:2:protest:1"), Some(2));
        assert_eq!(instance_of_deadline("ghost:2:turn:7:x"), None);
        assert_eq!(instance_of_deadline("vote:2"), None);
    }

    #[test]
    fn rule_2_players_from_two_to_the_number_of_active_players() {
        let mut world = World::new(&["Alice", "Bob", "Carol"]);
        let mut refused =
            |who: &str, line: &str| world.run_as(who, false, t0(), None, line).expect_err(line);
        assert_eq!(refused("Rita", "start with Alice"), "ghost_too_few");
        assert_eq!(
            refused("Rita", "start with Alice, alice"),
            "ghost_named_twice"
        );
        assert_eq!(
            refused("Rita", "start with Alice, Nobody"),
            "ghost_no_such_player"
        );
        assert_eq!(
            refused("Rita", "start with Rita, Alice"),
            "ghost_referee_plays"
        );
        assert_eq!(
            refused("Mallory", "start with Alice, Bob"),
            "ghost_start_who"
        );
        assert_eq!(
            refused("Rita", "start duel with Alice, Bob, Carol"),
            "ghost_duel_two"
        );
        // A player on vacation is not an active player.
        world.players.apply_event(
            &PlayerEvent::VacationStarted {
                id: 3,
                until: hours(24 * 30),
            },
            t0(),
        );
        assert_eq!(
            world
                .run_as("Rita", false, t0(), None, "start with Alice, Bob")
                .unwrap_err(),
            "ghost_player_inactive"
        );
        assert!(world.ghosts.instances.is_empty());
        // A moderator who is not a player may referee; every active player may play.
        world
            .run_as("mod", false, t0(), None, "start with Alice, Carol, Rita")
            .unwrap();
        let inst = world.inst(1);
        assert_eq!(inst.seats.len(), 3);
        assert_eq!(inst.began, 3);
        assert_eq!(
            inst.referee,
            Some(Referee {
                address: Address::new("mod@x.org"),
                player: None,
                name: "mod@x.org".to_owned()
            })
        );
        // Once removed, a player is no longer a player in that instance.
        let first = world.order(1)[1].clone();
        world.run(&first, hours(1), "leave").unwrap();
        assert_eq!(world.run(&first, hours(2), "status").map(|_| ()), Ok(()));
        assert_eq!(
            world.run(&first, hours(2), "leave").unwrap_err(),
            "ghost_not_in_game"
        );
    }

    #[test]
    fn rule_3_the_start_is_announced_with_random_numbers_and_their_commitment() {
        let mut world = World::new(&["Alice", "Bob", "Carol"]);
        let mail = world
            .run_as("Rita", false, t0(), None, "start with Alice, Bob, Carol")
            .unwrap();
        assert_eq!(templates(&mail), ["ghost_started"]);
        assert_eq!(mail[0].to, Audience::List);
        assert_eq!(mail[0].tag, "ghost 1");
        let inst = world.inst(1);
        let numbers: Vec<u32> = inst.seats.iter().map(|s| s.number).collect();
        assert_eq!(numbers, [1, 2, 3]);
        let mut names = world.order(1);
        names.sort();
        assert_eq!(names, ["Alice", "Bob", "Carol"]);
        // The numbers are the officer's draw, and can be re-run from the seed.
        let period = world.random.current.clone().unwrap();
        assert_eq!(period.label, "ghost 1");
        assert_eq!(period.draws.len(), 1);
        let seed = random::parse_seed(&period.seed).unwrap();
        let order = random::compute(&seed, 0, &random::DrawKind::Shuffle { n: 3 }).unwrap();
        let listed = ["Alice", "Bob", "Carol"];
        let expected: Vec<&str> = order.iter().map(|i| listed[*i as usize]).collect();
        assert_eq!(world.order(1), expected);
        let text = &world.texts[0].1;
        assert!(text.contains(&period.commitment), "{text}");
        assert!(!text.contains(&period.seed), "the seed is secret: {text}");
        assert!(text.contains(&format!("1. {}", expected[0])), "{text}");
        assert!(text.contains("2026-05-04 12:00 UTC"), "{text}");
        // Player 1's turn, with a reminder.
        assert_eq!(world.turn_name(1).as_deref(), Some(expected[0]));
        assert_eq!(
            world.deadlines(),
            [("ghost:1:turn:1".to_owned(), hours(72))]
        );
        let entry = world.schedule.get("ghost:1:turn:1").unwrap();
        assert!(entry.deadline.remind);
        assert_eq!(
            entry.deadline.who,
            world.players.by_name(expected[0]).map(|p| p.id)
        );
        let sentence = world.last_sentence();
        assert_eq!(sentence.code, "ghost_started");
        assert_eq!(sentence.args["commitment"], period.commitment.as_str());
    }

    #[test]
    fn rule_4_turns_go_up_by_number_wrap_around_and_skip_removed_players() {
        let mut world = started(
            &["Alice", "Bob", "Carol"],
            "start with Alice, Bob, Carol",
            t0(),
        );
        let order = world.order(1);
        let mut at = t0();
        world.plays(1, &mut at, &["q", "qu", "que"]);
        // After the highest number comes player 1 again.
        assert_eq!(world.turn_name(1), Some(order[0].clone()));
        assert_eq!(world.inst(1).ghost_word.as_deref(), Some("que"));
        // Each turn change is announced with whose turn, the word and the deadline.
        let (last_mail, text) = world.texts.last().unwrap();
        assert_eq!(last_mail.template, "ghost_news");
        assert_eq!(last_mail.tag, "ghost 1");
        assert!(
            text.contains(&format!(
                "Subject: Ghost 1: {}'s turn, ghost word QUE",
                order[0]
            )),
            "{text}"
        );
        assert!(text.contains("2026-05-04 15:00 UTC"), "{text}");
        // Only the current turn's deadline is pending; it is three days from the turn's start.
        assert_eq!(
            world.deadlines(),
            [("ghost:1:turn:4".to_owned(), hours(75))]
        );
        // Player 2 leaves out of turn: after player 1 comes player 3.
        world.run(&order[1], hours(4), "leave").unwrap();
        world.plays(1, &mut at, &["queu"]);
        assert_eq!(world.turn_name(1), Some(order[2].clone()));
        world.plays(1, &mut at, &["queue"]);
        assert_eq!(world.turn_name(1), Some(order[0].clone()));
    }

    #[test]
    fn rule_4_plays_are_public_in_turn_and_by_players_only() {
        let mut world = started(&["Alice", "Bob", "Carol"], "start with Alice, Bob", t0());
        let order = world.order(1);
        assert_eq!(
            world
                .run_as(&order[0], false, hours(1), None, "s")
                .unwrap_err(),
            "ghost_public"
        );
        assert_eq!(
            world.run(&order[1], hours(1), "s").unwrap_err(),
            "ghost_not_your_turn"
        );
        assert_eq!(world.last_sentence().args["turn"], order[0].as_str());
        assert_eq!(
            world.run("Carol", hours(1), "s").unwrap_err(),
            "ghost_not_in_game"
        );
        assert_eq!(
            world.run("Rita", hours(1), "s").unwrap_err(),
            "ghost_not_in_game"
        );
        assert_eq!(world.last_sentence().args["referee"], true);
        assert_eq!(
            world.run(&order[1], hours(1), "resign").unwrap_err(),
            "ghost_not_your_turn"
        );
        // At the deadline the turn is over, even before the clock has fired.
        assert_eq!(
            world.run(&order[0], hours(72), "s").unwrap_err(),
            "ghost_late"
        );
        assert!(world.inst(1).ghost_word.is_none());
    }

    #[test]
    fn rule_4_a_turn_lasts_three_days_then_the_player_is_assumed_to_have_resigned() {
        let mut world = started(
            &["Alice", "Bob", "Carol", "Dave"],
            "start with Alice, Bob, Carol, Dave",
            t0(),
        );
        let order = world.order(1);
        let mut at = t0();
        world.plays(1, &mut at, &["s"]);
        // Player 2 is reminded a day before the deadline, then times out.
        let reminders = world.tick(hours(1 + 48));
        assert_eq!(templates(&reminders), ["reminder"]);
        assert_eq!(reminders[0].to, Audience::Address(address(&order[1])));
        assert!(world.tick(hours(1 + 71)).is_empty());
        let mail = world.tick(hours(1 + 72));
        assert_eq!(templates(&mail), ["ghost_news"]);
        let inst = world.inst(1);
        let removal = inst.seat(2).unwrap().removed.clone().unwrap();
        assert_eq!(removal.why, Why::TimedOut);
        assert_eq!(removal.at, hours(73));
        // A resignation destroys the ghost word; the next player's turn begins.
        assert!(inst.ghost_word.is_none());
        assert_eq!(world.turn_name(1), Some(order[2].clone()));
        assert_eq!(
            world.deadlines(),
            [("ghost:1:turn:3".to_owned(), hours(73 + 72))]
        );
        let text = &world.texts.last().unwrap().1;
        assert!(text.contains("did not play within their turn"), "{text}");
        assert!(text.contains("the ghost word S is destroyed"), "{text}");
        // The old deadline firing again changes nothing.
        let (changes, mail) =
            world
                .ghosts
                .deadline_fired("ghost:1:turn:2", hours(80), world.services());
        assert!(changes.is_empty() && mail.is_empty());
    }

    #[test]
    fn rule_4_1_begin_only_when_no_ghost_word() {
        let mut world = started(
            &["Alice", "Bob", "Carol"],
            "start with Alice, Bob, Carol",
            t0(),
        );
        let order = world.order(1);
        assert_eq!(
            world.run(&order[0], hours(1), "begin st").unwrap_err(),
            "ghost_one_letter"
        );
        assert_eq!(
            world.run(&order[0], hours(1), "st").unwrap_err(),
            "ghost_one_letter"
        );
        world.run(&order[0], hours(1), "begin S").unwrap();
        assert_eq!(world.inst(1).ghost_word.as_deref(), Some("s"));
        assert_eq!(
            world.run(&order[1], hours(2), "begin t").unwrap_err(),
            "ghost_word_exists"
        );
        assert_eq!(world.last_sentence().args["word"], "s");
        assert_eq!(
            world.run(&order[1], hours(2), "t").unwrap_err(),
            "ghost_bad_continuation"
        );
        // Once the word is destroyed, a new one may be begun.
        world.run(&order[1], hours(2), "resign").unwrap();
        world.run(&order[2], hours(3), "t").unwrap();
        assert_eq!(world.inst(1).ghost_word.as_deref(), Some("t"));
    }

    #[test]
    fn rule_4_2_continue_by_adding_one_letter_at_either_end() {
        let mut world = started(
            &["Alice", "Bob", "Carol"],
            "start with Alice, Bob, Carol",
            t0(),
        );
        let order = world.order(1);
        let mut at = t0();
        world.plays(1, &mut at, &["p", "pe", "upe", "uper", "upers"]);
        assert_eq!(world.inst(1).ghost_word.as_deref(), Some("upers"));
        let turn = world.turn_name(1).unwrap();
        for bad in ["upers", "xupersx", "upxers", "uper", "tupersx", "uperst"] {
            if bad == "uperst" {
                continue;
            }
            assert_eq!(
                world.run(&turn, hours(6), bad).unwrap_err(),
                "ghost_bad_continuation",
                "{bad}"
            );
        }
        let refusal = world.last_sentence().clone();
        assert_eq!(refusal.args["word"], "upers");
        assert_eq!(refusal.args["before"], "?upers");
        assert_eq!(refusal.args["after"], "upers?");
        let text = render_sentence(&refusal);
        assert!(
            text.contains(
                "UPERS with one letter added at the beginning (?UPERS) or at the end (UPERS?)"
            ),
            "{text}"
        );
        world.run(&turn, hours(6), "play UPERSO").unwrap();
        assert_eq!(world.inst(1).ghost_word.as_deref(), Some("uperso"));
        assert_eq!(
            world.inst(1).word_by,
            world
                .inst(1)
                .seats
                .iter()
                .find(|s| s.name == turn)
                .map(|s| s.number)
        );
        assert_ne!(world.turn_name(1).unwrap(), turn);
        let _ = order;
    }

    /// Six plays by three players make UPERSO (or SPRONC), last by player 3; then
    /// player 1 protests that it is not inside any word.
    fn protested_not_inside(word_letters: [&str; 6]) -> (World, Vec<String>) {
        let mut world = started(
            &["Alice", "Bob", "Carol"],
            "start with Alice, Bob, Carol",
            t0(),
        );
        let order = world.order(1);
        let mut at = t0();
        world.plays(1, &mut at, &word_letters);
        assert_eq!(world.turn_name(1), Some(order[0].clone()));
        let mail = world
            .run(
                &order[0],
                hours(7),
                "protest: it cannot be found within any word",
            )
            .unwrap();
        assert_eq!(templates(&mail), ["ghost_news"]);
        (world, order)
    }

    #[test]
    fn rule_4_3_uperso_is_inside_supersonic_so_the_protest_is_invalid() {
        let (mut world, order) =
            protested_not_inside(["u", "up", "upe", "uper", "upers", "uperso"]);
        let inst = world.inst(1);
        let Stage::Protest { protest } = &inst.stage else {
            panic!("no protest: {:?}", inst.stage)
        };
        assert_eq!(protest.against, Some(3));
        assert_eq!(protest.by, 1);
        // Play is suspended; the answer clock runs three days, with a reminder.
        assert_eq!(
            world.deadlines(),
            [("ghost:1:protest:1".to_owned(), hours(7 + 72))]
        );
        let text = &world.texts.last().unwrap().1;
        assert!(
            text.contains(&format!(
                "protest, {} to answer by 2026-05-04 19:00 UTC",
                order[2]
            )),
            "{text}"
        );
        assert_eq!(
            world.run(&order[1], hours(8), "uperson").unwrap_err(),
            "ghost_protest_pending"
        );
        assert_eq!(
            world
                .run(&order[1], hours(8), "word supersonic")
                .unwrap_err(),
            "ghost_not_protested"
        );
        assert_eq!(
            world.run(&order[2], hours(8), "word supper").unwrap_err(),
            "ghost_answer_lacks"
        );
        assert_eq!(
            world
                .run_as(&order[2], false, hours(8), None, "word supersonic")
                .unwrap_err(),
            "ghost_public"
        );
        world.run(&order[2], hours(9), "word supersonic").unwrap();
        let inst = world.inst(1);
        // The invalid protester is removed; the word is destroyed all the same.
        assert_eq!(inst.removed_why(1), Some(Why::InvalidProtest));
        assert!(inst.is_in_game(3));
        assert!(inst.ghost_word.is_none());
        // The next turn, player 2's (after the protester), begins at the resolution.
        assert_eq!(world.turn_name(1), Some(order[1].clone()));
        assert_eq!(
            world.deadlines(),
            [("ghost:1:turn:8".to_owned(), hours(9 + 72))]
        );
        let text = &world.texts.last().unwrap().1;
        assert!(
            text.contains("answered SUPERSONIC, which is a word of the official dictionary"),
            "{text}"
        );
        assert!(text.contains("made an invalid protest"), "{text}");
    }

    #[test]
    fn rule_4_3_spronc_is_inside_nothing_and_an_unanswered_protest_is_valid() {
        let (mut world, order) =
            protested_not_inside(["s", "sp", "spr", "spro", "spron", "spronc"]);
        assert!(
            world
                .tick(hours(7 + 71))
                .iter()
                .all(|m| m.template == "reminder")
        );
        let mail = world.tick(hours(7 + 72));
        assert_eq!(templates(&mail), ["ghost_news"]);
        let inst = world.inst(1);
        assert_eq!(inst.removed_why(3), Some(Why::ValidProtest));
        assert!(inst.ghost_word.is_none());
        assert_eq!(world.turn_name(1), Some(order[1].clone()));
        let text = &mail[0].values;
        assert_eq!(text["happened"][0]["args"]["how"], "no_answer");
    }

    #[test]
    fn rule_4_3_an_answer_that_is_no_word_makes_the_protest_valid() {
        let (mut world, order) =
            protested_not_inside(["s", "sp", "spr", "spro", "spron", "spronc"]);
        world.run(&order[2], hours(8), "word sproncy").unwrap();
        let inst = world.inst(1);
        assert_eq!(inst.removed_why(3), Some(Why::ValidProtest));
        assert!(inst.is_in_game(1));
        assert!(inst.ghost_word.is_none());
        assert_eq!(world.turn_name(1), Some(order[1].clone()));
    }

    #[test]
    fn rule_4_3_is_a_word_protests_are_looked_up_at_once() {
        // Valid: WORD is a word of four letters; the player who made it is removed.
        let mut world = started(
            &["Alice", "Bob", "Carol", "Dave"],
            "start with Alice, Bob, Carol, Dave",
            t0(),
        );
        let order = world.order(1);
        let mut at = t0();
        world.plays(1, &mut at, &["w", "wo", "wor", "word"]);
        let mail = world
            .run(&order[0], hours(5), "protest: it is a word")
            .unwrap();
        assert_eq!(templates(&mail), ["ghost_news"]);
        let inst = world.inst(1);
        assert_eq!(inst.removed_why(4), Some(Why::ValidProtest));
        assert!(inst.ghost_word.is_none());
        assert_eq!(world.turn_name(1), Some(order[1].clone()));
        assert!(mail[0].values["happened"][0]["code"] == "ghost_h_protested");
        assert_eq!(mail[0].values["happened"][1]["args"]["found"], true);
        // Invalid: CAT is a word but of three letters; the protester is removed and the
        // word stays.
        let mut world = started(
            &["Alice", "Bob", "Carol", "Dave"],
            "start with Alice, Bob, Carol, Dave",
            t0(),
        );
        let order = world.order(1);
        let mut at = t0();
        world.plays(1, &mut at, &["c", "ca", "cat"]);
        world.run(&order[3], hours(4), "protest word").unwrap();
        let inst = world.inst(1);
        assert_eq!(inst.removed_why(4), Some(Why::InvalidProtest));
        assert_eq!(inst.ghost_word.as_deref(), Some("cat"));
        assert_eq!(inst.word_by, Some(3));
        assert_eq!(world.turn_name(1), Some(order[0].clone()));
        // No protest without a word, and none against one's own word.
        world.run(&order[0], hours(5), "resign").unwrap();
        assert_eq!(
            world.run(&order[1], hours(6), "protest word").unwrap_err(),
            "ghost_no_word"
        );
    }

    #[test]
    fn rule_4_3_a_protest_against_a_player_no_longer_in_is_decided_by_the_dictionary() {
        // SPRONC's maker left before the protest: the bot looks it up at once.
        let mut world = started(
            &["Alice", "Bob", "Carol", "Dave"],
            "start with Alice, Bob, Carol, Dave",
            t0(),
        );
        let order = world.order(1);
        let mut at = t0();
        world.plays(1, &mut at, &["s", "sp", "spr", "spro", "spron", "spronc"]);
        world.run(&order[1], hours(7), "leave").unwrap();
        assert_eq!(world.turn_name(1), Some(order[2].clone()));
        world
            .run(&order[2], hours(8), "protest not inside")
            .unwrap();
        let inst = world.inst(1);
        assert!(
            world
                .deadlines()
                .iter()
                .all(|(id, _)| id.contains(":turn:"))
        );
        assert!(inst.is_in_game(3), "a valid protest: the protester stays");
        assert!(inst.ghost_word.is_none());
        assert_eq!(world.turn_name(1), Some(order[3].clone()));
        // The protested player leaves while the protest awaits their answer: ey did
        // not post a word containing the ghost word, so the protest is valid, though
        // UPERSO is inside SUPERSONIC ("If he does not, the protest is resolved as
        // valid"). The protester stays; the turn is the protester's successor's.
        let (mut world, order) =
            protested_not_inside(["u", "up", "upe", "uper", "upers", "uperso"]);
        let mail = world.run(&order[2], hours(8), "leave").unwrap();
        assert_eq!(templates(&mail), ["ghost_news"]);
        let inst = world.inst(1);
        assert!(!inst.is_over());
        assert!(inst.is_in_game(1) && inst.is_in_game(2) && !inst.is_in_game(3));
        assert!(inst.ghost_word.is_none());
        assert_eq!(world.turn_name(1), Some(order[1].clone()));
    }

    #[test]
    fn rule_4_4_a_resignation_destroys_the_word_and_leaving_in_turn_is_one() {
        let names = ["Alice", "Bob", "Carol", "Dave", "Eve"];
        let mut world = started(&names, "start with Alice, Bob, Carol, Dave, Eve", t0());
        let order = world.order(1);
        let why = |world: &World, seat: u32| world.inst(1).removed_why(seat);
        let mut at = t0();
        world.plays(1, &mut at, &["s", "st"]);
        world.run(&order[2], hours(3), "resign").unwrap();
        assert_eq!(why(&world, 3), Some(Why::Resigned));
        assert!(world.inst(1).ghost_word.is_none());
        assert_eq!(world.turn_name(1), Some(order[3].clone()));
        // Leaving out of turn keeps the word and the turn.
        world.run(&order[3], hours(4), "q").unwrap();
        world.run(&order[1], hours(5), "leave").unwrap();
        assert_eq!(why(&world, 2), Some(Why::Left));
        assert_eq!(world.inst(1).ghost_word.as_deref(), Some("q"));
        assert_eq!(world.turn_name(1), Some(order[4].clone()));
        // Leaving in one's turn is a resignation: the word is destroyed.
        world.run(&order[4], hours(6), "qu").unwrap();
        let mail = world.run(&order[0], hours(7), "leave").unwrap();
        assert!(world.inst(1).ghost_word.is_none());
        assert_eq!(world.turn_name(1), Some(order[3].clone()));
        let text = render(&mail[0]);
        assert!(
            text.contains("left the game during their turn, which counts as a resignation"),
            "{text}"
        );
        assert!(text.contains("the ghost word QU is destroyed"), "{text}");
        // Leaving the nomic is a leave: player 5 is the last one in, and wins.
        let mail = world.left_nomic(&order[3], hours(8));
        assert_eq!(templates(&mail), ["ghost_news", "random_period_revealed"]);
        assert_eq!(why(&world, 4), Some(Why::LeftNomic));
        let inst = world.inst(1);
        assert!(inst.is_over());
        assert_eq!(inst.winner, Some(5));
        assert!(world.deadlines().is_empty());
    }

    #[test]
    fn rule_4_additions_until_the_first_turn_of_the_highest_numbered_player() {
        let names = ["Alice", "Bob", "Carol", "Dave", "Eve", "Frank"];
        let mut world = started(&names, "start with Alice, Bob, Carol", t0());
        let order = world.order(1);
        // Dave asks privately; everyone is told on the list; he gets number 4.
        let mail = world
            .run_as("Dave", false, hours(1), None, "add me")
            .unwrap();
        assert_eq!(templates(&mail), ["ghost_news"]);
        assert_eq!(mail[0].to, Audience::List);
        let dave = world.inst(1).seat(4).unwrap().clone();
        assert_eq!(dave.name, "Dave");
        assert_eq!(dave.addition_protest_until, Some(hours(73)));
        assert!(
            world
                .texts
                .last()
                .unwrap()
                .1
                .contains("was added as player 4")
        );
        assert_eq!(
            world.run("Dave", hours(1), "add me").unwrap_err(),
            "ghost_already_in"
        );
        assert_eq!(
            world.run("Rita", hours(1), "add me").unwrap_err(),
            "ghost_is_referee"
        );
        assert_eq!(
            world.run("Mallory", hours(1), "add me").unwrap_err(),
            "ghost_not_a_player"
        );
        // Player 3's first turn does not close additions: Dave is now the highest.
        let mut at = hours(1);
        world.plays(1, &mut at, &["s", "st"]);
        assert_eq!(world.turn_name(1), Some(order[2].clone()));
        world.run("Eve", hours(4), "add me").unwrap();
        assert_eq!(world.inst(1).seat(5).unwrap().name, "Eve");
        at = hours(4);
        world.plays(1, &mut at, &["sto", "stop"]);
        // Eve's first turn has begun: additions are closed.
        assert_eq!(world.turn_name(1).as_deref(), Some("Eve"));
        assert_eq!(
            world.run("Frank", hours(8), "add me").unwrap_err(),
            "ghost_additions_closed"
        );
        assert_eq!(world.last_sentence().args["highest"], "Eve");
        // Without additions, player N's first turn closes them.
        let mut world = started(&names, "start with Alice, Bob, Carol", t0());
        let mut at = t0();
        world.plays(1, &mut at, &["s", "st"]);
        assert_eq!(
            world.run("Dave", hours(3), "add me").unwrap_err(),
            "ghost_additions_closed"
        );
        // A removed player does not come back.
        let mut world = started(&names, "start with Alice, Bob, Carol", t0());
        let order = world.order(1);
        world.run(&order[2], hours(1), "leave").unwrap();
        assert_eq!(
            world.run(&order[2], hours(1), "add me").unwrap_err(),
            "ghost_no_return"
        );
    }

    #[test]
    fn rule_4_an_addition_protested_away() {
        let mut world = started(
            &["Alice", "Bob", "Carol", "Dave", "Eve"],
            "start with Alice, Bob, Carol",
            t0(),
        );
        let order = world.order(1);
        world.run("Dave", hours(1), "add me").unwrap();
        world.run("Eve", hours(1), "add me").unwrap();
        assert_eq!(
            world
                .run("Eve", hours(2), "protest addition Dave")
                .unwrap_err(),
            "ghost_not_earlier"
        );
        assert_eq!(
            world
                .run(&order[0], hours(2), "protest addition Alice")
                .unwrap_err(),
            "ghost_not_a_newcomer"
        );
        assert_eq!(
            world
                .run_as(&order[1], false, hours(2), None, "protest addition Dave")
                .unwrap_err(),
            "ghost_public"
        );
        // Any earlier player, out of turn.
        let mail = world
            .run(&order[1], hours(2), "protest addition Dave")
            .unwrap();
        assert_eq!(templates(&mail), ["ghost_news"]);
        let text = &world.texts.last().unwrap().1;
        assert!(
            text.contains(&format!(
                "Dave was added, and {} protested the addition",
                order[1]
            )),
            "{text}"
        );
        let inst = world.inst(1);
        assert_eq!(inst.removed_why(4), Some(Why::AdditionProtested { by: 2 }));
        assert_eq!(world.turn_name(1), Some(order[0].clone()));
        // Eve's addition: too late after three days.
        assert_eq!(
            world
                .run(&order[0], hours(73), "protest addition Eve")
                .unwrap_err(),
            "ghost_addition_final"
        );
        assert_eq!(world.last_sentence().args["why"], "time");
        // ... or once her first turn has begun.
        let mut world = started(
            &["Alice", "Bob", "Carol", "Dave"],
            "start duel with Alice, Bob",
            t0(),
        );
        assert_eq!(
            world.run("Dave", hours(1), "add me").unwrap_err(),
            "ghost_duel_no_additions"
        );
        let mut world = started(&["Alice", "Bob", "Carol"], "start with Alice, Bob", t0());
        let order = world.order(1);
        world.run("Carol", hours(1), "add me").unwrap();
        let mut at = hours(1);
        world.plays(1, &mut at, &["s", "st"]);
        assert_eq!(world.turn_name(1).as_deref(), Some("Carol"));
        assert_eq!(
            world
                .run(&order[0], hours(4), "protest addition Carol")
                .unwrap_err(),
            "ghost_addition_final"
        );
        assert_eq!(world.last_sentence().args["why"], "turn");
    }

    #[test]
    fn rule_5_a_four_player_game_to_a_winner_with_the_exact_rewards() {
        let mut world = started(
            &["Alice", "Bob", "Carol", "Dave"],
            "start with Alice, Bob, Carol, Dave",
            t0(),
        );
        let order = world.order(1);
        let mut at = t0();
        world.plays(1, &mut at, &["c", "ca", "cat", "catt", "cattl", "cattle"]);
        // Player 3 protests CATTLE, player 2's: valid, player 2 is out.
        world.run(&order[2], hours(7), "protest word").unwrap();
        assert!(!world.inst(1).is_in_game(2));
        assert_eq!(world.turn_name(1), Some(order[3].clone()));
        world.run(&order[3], hours(8), "resign").unwrap();
        assert_eq!(world.turn_name(1), Some(order[0].clone()));
        at = hours(8);
        world.plays(1, &mut at, &["x", "xz"]);
        // Player 1 protests XZ against player 3, who does not answer: player 1 wins.
        world
            .run(&order[0], hours(11), "protest not inside")
            .unwrap();
        let mail = world.tick(hours(11 + 72));
        assert_eq!(templates(&mail), ["ghost_news", "random_period_revealed"]);
        assert_eq!(mail[1].tag, "ghost 1");
        let inst = world.inst(1);
        assert!(inst.is_over());
        assert_eq!(inst.winner, Some(1));
        let rewards = inst.rewards.clone().unwrap();
        assert_eq!(rewards.began, 4);
        assert_eq!(rewards.referee.unpaid, None);
        assert_eq!(
            (rewards.winner.amount, rewards.winner.unpaid.clone()),
            (4, None)
        );
        assert_eq!(world.balance("Rita", "A$"), integer(8));
        assert_eq!(world.balance(&order[0], "points"), integer(4));
        assert_eq!(world.balance(&order[0], "A$"), integer(0));
        assert!(
            world.random.current.is_none(),
            "the numbering's period is over"
        );
        assert!(world.deadlines().is_empty());
        let text = &world.texts[world.texts.len() - 2].1;
        assert!(
            text.contains(&format!("Subject: Ghost 1: {} wins", order[0])),
            "{text}"
        );
        assert!(
            text.contains("Rita receives 8 A$, as the referee."),
            "{text}"
        );
        assert!(
            text.contains(&format!("{} receives 4 points, as the winner.", order[0])),
            "{text}"
        );
        assert!(text.contains("The history of the game:"), "{text}");
        assert!(text.contains("2026-05-01 13:00 UTC:"), "{text}");
        // Only these two payments were made.
        assert_eq!(world.accounts.balances.len(), 2);
        // Nothing more may be played; with no game open, the number is needed.
        assert_eq!(
            world
                .run_as(&order[0], true, hours(90), Some(1), "s")
                .unwrap_err(),
            "ghost_over"
        );
        assert_eq!(
            world.run(&order[0], hours(90), "s").unwrap_err(),
            "ghost_none_open"
        );
        // The state survives a JSON round trip and a replay of its history.
        let json = serde_json::to_string(&world.ghosts).unwrap();
        assert_eq!(serde_json::from_str::<Ghosts>(&json).unwrap(), world.ghosts);
        let mut replayed = Ghosts::default();
        for record in &world.ghosts.instances[0].history {
            replayed.apply_event(&record.event, record.at);
        }
        assert_eq!(replayed, world.ghosts);
    }

    /// Rita starts a game of `n` players (from ten), then all but player 1 leave.
    fn rewards_after(n: usize, duel: bool) -> (World, Rewards, Vec<Change>) {
        let names = [
            "Alice", "Bob", "Carol", "Dave", "Eve", "Frank", "Grace", "Heidi", "Ivan", "Judy",
        ];
        let listed = names[..n].join(", ");
        let line = if duel {
            format!("start duel with {listed}")
        } else {
            format!("start with {listed}")
        };
        let mut world = started(&names, &line, t0());
        let order = world.order(1);
        let mut last = Vec::new();
        for name in &order[1..] {
            let ctx = Ctx {
                now: hours(1),
                sender: address(name),
                sender_name: None,
                public: true,
                entropy: [9; 32],
            };
            let done = world
                .ghosts
                .apply(None, Command::Leave, &ctx, world.services(), false)
                .unwrap();
            world.record(&done.events, hours(1));
            world.keep(&done.mail);
            last = done.events;
        }
        let rewards = world.inst(1).rewards.clone().unwrap();
        (world, rewards, last)
    }

    #[test]
    fn rule_5_rewards_for_three_four_nine_players_and_a_duel() {
        let params = Params::default();
        assert_eq!(
            [2, 3, 4, 5, 8, 9, 20].map(|n| params.winner_points(n)),
            [4, 4, 4, 5, 8, 8, 8]
        );
        let (world, rewards, changes) = rewards_after(3, false);
        assert_eq!((rewards.began, rewards.winner.amount), (3, 4));
        let first = world.order(1)[0].clone();
        assert_eq!(world.balance(&first, "points"), integer(4));
        let reasons: Vec<&str> = changes
            .iter()
            .filter_map(|c| match c {
                Change::Accounts(accounts::Event::Transferred { reason, .. }) => {
                    Some(reason.as_str())
                }
                _ => None,
            })
            .collect();
        assert_eq!(
            reasons,
            [
                "Rule 103 (Ghost) §5: the referee of Ghost 1",
                "Rule 103 (Ghost) §5: the winner of Ghost 1, which 3 players began"
            ]
        );
        let (world, rewards, _) = rewards_after(9, false);
        assert_eq!((rewards.began, rewards.winner.amount), (9, 8));
        assert_eq!(world.balance(&world.order(1)[0], "points"), integer(8));
        let (world, rewards, _) = rewards_after(2, true);
        assert_eq!(rewards.winner.unpaid.as_deref(), Some("duel"));
        assert_eq!(world.balance(&world.order(1)[0], "points"), integer(0));
        assert_eq!(world.balance("Rita", "A$"), integer(8));
        let text = &world.texts[world.texts.len() - 2].1;
        assert!(
            text.contains("receives nothing more: the game was played as a Duel"),
            "{text}"
        );
    }

    #[test]
    fn rule_5_a_referee_who_is_no_player_is_not_paid_and_a_refused_payment_is_reported() {
        let mut world = World::new(&["Alice", "Bob"]);
        world.accounts =
            Accounts::with_currencies(vec![Currency::new("A$", &[], Exactness::Integer)]);
        world
            .run_as("mod", false, t0(), None, "start with Alice, Bob")
            .unwrap();
        let order = world.order(1);
        let mail = world.run(&order[1], hours(1), "leave").unwrap();
        let rewards = world.inst(1).rewards.clone().unwrap();
        assert_eq!(rewards.referee.unpaid.as_deref(), Some("not_a_player"));
        assert_eq!(
            rewards.winner.unpaid.as_deref(),
            Some("accounts_unknown_currency")
        );
        assert!(world.accounts.balances.is_empty());
        let text = render(&mail[0]);
        assert!(
            text.contains("mod@x.org refereed, but is not a player of the nomic"),
            "{text}"
        );
        assert!(text.contains("the payment could not be made"), "{text}");
    }

    #[test]
    fn rule_6_status_and_history_on_request() {
        let mut world = started(
            &["Alice", "Bob", "Carol"],
            "start with Alice, Bob, Carol",
            t0(),
        );
        let order = world.order(1);
        let mut at = t0();
        world.plays(1, &mut at, &["s", "st"]);
        // Anyone may ask, privately.
        world
            .run_as("Mallory", false, hours(3), None, "status")
            .unwrap();
        let status = world.last_sentence().clone();
        assert_eq!(status.code, "ghost_status");
        assert_eq!(status.args["history"], Value::Null);
        let game = &status.args["game"];
        assert_eq!(game["turn"]["name"], order[2].as_str());
        assert_eq!(game["turn"]["deadline"], "2026-05-04 14:00 UTC");
        assert_eq!(game["turn"]["remaining"]["days"], 2);
        assert_eq!(game["turn"]["remaining"]["hours"], 23);
        assert_eq!(game["word"], "st");
        assert_eq!(game["order"].as_array().map(Vec::len), Some(3));
        let text = render_sentence(&status);
        assert!(text.contains(&format!("1. {}", order[0])), "{text}");
        assert!(text.contains("The ghost word is ST"), "{text}");
        world
            .run_as(&order[0], false, hours(3), None, "history")
            .unwrap();
        let history = world.last_sentence().clone();
        let lines: Vec<&str> = history.args["history"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["code"].as_str().unwrap())
            .collect();
        assert_eq!(
            lines,
            [
                "ghost_h_started",
                "ghost_h_turn",
                "ghost_h_played",
                "ghost_h_turn",
                "ghost_h_played",
                "ghost_h_turn"
            ]
        );
        let text = render_sentence(&history);
        assert!(
            text.contains(&format!(
                "2026-05-01 13:00 UTC: {} began the ghost word S.",
                order[0]
            )),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "2026-05-01 14:00 UTC: {} continued S to ST.",
                order[1]
            )),
            "{text}"
        );
        // A finished game keeps answering, under its number.
        assert!(
            world
                .run_as("Mallory", false, hours(3), Some(1), "history")
                .is_ok()
        );
    }

    #[test]
    fn rule_6_a_referee_vacancy_freezes_the_clock_until_someone_takes_the_post() {
        let mut world = started(
            &["Alice", "Bob", "Carol", "Eve"],
            "start with Alice, Bob, Carol",
            t0(),
        );
        let order = world.order(1);
        world.run(&order[0], hours(10), "s").unwrap();
        assert_eq!(
            world.deadlines(),
            [("ghost:1:turn:2".to_owned(), hours(82))]
        );
        world.run("Dave", hours(11), "add me").unwrap_err();
        // Rita goes on vacation at +20h: 62 hours of the turn are left.
        let rita = world.players.by_name("Rita").unwrap().id;
        world.players.apply_event(
            &PlayerEvent::VacationStarted {
                id: rita,
                until: hours(24 * 30),
            },
            hours(20),
        );
        let (changes, mail) =
            world
                .ghosts
                .referee_gone(rita, Vacancy::Vacation, hours(20), world.services());
        assert_eq!(
            changes[0],
            Change::Schedule(calendar::Event::Cancelled {
                id: "ghost:1:turn:2".to_owned()
            })
        );
        world.record(&changes, hours(20));
        world.keep(&mail);
        assert_eq!(templates(&mail), ["ghost_news"]);
        let text = &world.texts.last().unwrap().1;
        assert!(
            text.contains("Subject: Ghost 1: suspended, no referee"),
            "{text}"
        );
        assert!(text.contains("2 days, 14 hours left"), "{text}");
        assert!(world.deadlines().is_empty());
        let inst = world.inst(1);
        assert!(inst.referee.is_none());
        assert!(matches!(
            inst.stage,
            Stage::Turn {
                clock: Clock::Stopped {
                    remaining_seconds: 223_200
                },
                ..
            }
        ));
        // Suspended: no plays, nothing fires.
        assert_eq!(
            world.run(&order[1], hours(21), "st").unwrap_err(),
            "ghost_suspended"
        );
        assert!(world.tick(hours(100)).is_empty());
        assert_eq!(
            world.run("Rita", hours(101), "resign referee").unwrap_err(),
            "ghost_referee_only"
        );
        // Not a player of the instance, and publicly.
        assert_eq!(
            world.run(&order[2], hours(110), "referee").unwrap_err(),
            "ghost_referee_is_player"
        );
        assert_eq!(
            world
                .run_as("Eve", false, hours(110), None, "referee")
                .unwrap_err(),
            "ghost_public"
        );
        let mail = world.run("Eve", hours(120), "I will referee").unwrap();
        assert_eq!(templates(&mail), ["ghost_news"]);
        assert_eq!(
            world.inst(1).referee.as_ref().map(|r| r.name.as_str()),
            Some("Eve")
        );
        // The clock resumes with the 62 hours that were left.
        assert_eq!(
            world.deadlines(),
            [("ghost:1:turn:2".to_owned(), hours(120 + 62))]
        );
        assert_eq!(
            world.run("Carol", hours(121), "referee").unwrap_err(),
            "ghost_referee_present"
        );
        world.run(&order[1], hours(121), "st").unwrap();
        // Eve resigns the post; Rita, back, takes it again.
        world.run("Eve", hours(122), "resign referee").unwrap();
        assert!(world.deadlines().is_empty());
        world
            .players
            .apply_event(&PlayerEvent::VacationEnded { id: rita }, hours(130));
        world.run("Rita", hours(130), "referee").unwrap();
        assert_eq!(
            world.deadlines(),
            [("ghost:1:turn:3".to_owned(), hours(130 + 71))]
        );
        // A referee who leaves the nomic leaves the post too.
        world.left_nomic("Rita", hours(131));
        assert!(world.inst(1).is_suspended());
        let history = world
            .inst(1)
            .history
            .iter()
            .filter(|r| matches!(r.event, Event::Suspended { .. }))
            .count();
        assert_eq!(history, 3);
    }

    #[test]
    fn rule_6_an_addition_window_gets_the_suspended_time_back() {
        let mut world = started(
            &["Alice", "Bob", "Carol", "Dave", "Eve"],
            "start with Alice, Bob, Carol",
            t0(),
        );
        world.run("Dave", hours(1), "add me").unwrap();
        world.run("Rita", hours(10), "resign referee").unwrap();
        world.run("Eve", hours(40), "referee").unwrap();
        assert_eq!(
            world.inst(1).seat(4).unwrap().addition_protest_until,
            Some(hours(73 + 30))
        );
    }

    #[test]
    fn rule_6_the_referee_and_moderators_override_with_a_reason() {
        let (mut world, order) =
            protested_not_inside(["u", "up", "upe", "uper", "upers", "uperso"]);
        assert_eq!(
            world
                .run(&order[1], hours(8), "rule valid because I say so")
                .unwrap_err(),
            "ghost_referee_only"
        );
        let mail = world
            .run_as(
                "Rita",
                false,
                hours(8),
                None,
                "rule valid because the dictionary's supersonic is a typo",
            )
            .unwrap();
        assert_eq!(templates(&mail), ["ghost_news"]);
        assert_eq!(mail[0].values["officer"], "Rita");
        let text = render(&mail[0]);
        assert!(
            text.contains("Subject: Ghost 1: override by Rita;"),
            "{text}"
        );
        assert!(
            text.contains("Reason given: the dictionary's supersonic is a typo"),
            "{text}"
        );
        let inst = world.inst(1);
        assert_eq!(inst.removed_why(3), Some(Why::ValidProtest));
        assert!(
            world
                .deadlines()
                .iter()
                .all(|(id, _)| id.contains(":turn:"))
        );
        assert_eq!(
            world
                .run_as("Rita", false, hours(9), None, "rule invalid because again")
                .unwrap_err(),
            "ghost_no_protest"
        );
        // Set the ghost word; a moderator removes a player in their turn.
        world
            .run_as(
                "Rita",
                false,
                hours(9),
                None,
                "set word qu because it was mistyped",
            )
            .unwrap();
        assert_eq!(world.inst(1).ghost_word.as_deref(), Some("qu"));
        let turn = world.turn_name(1).unwrap();
        world
            .run_as(
                "mod",
                false,
                hours(10),
                None,
                &format!("remove {turn} because they asked"),
            )
            .unwrap();
        let inst = world.inst(1);
        assert!(inst.is_over(), "two of three were removed");
        assert_eq!(
            world
                .run_as("mod", false, hours(11), Some(1), "remove Nobody because x")
                .unwrap_err(),
            "ghost_over"
        );
        // A word set by the referee where there was none is no player's: a protest of
        // it is decided by the dictionary.
        let mut world = started(
            &["Alice", "Bob", "Carol"],
            "start with Alice, Bob, Carol",
            t0(),
        );
        let order = world.order(1);
        world
            .run_as("Rita", false, hours(1), None, "set word zq because a test")
            .unwrap();
        assert_eq!(world.inst(1).word_by, None);
        world
            .run(&order[0], hours(2), "protest not inside")
            .unwrap();
        let inst = world.inst(1);
        assert!(inst.ghost_word.is_none());
        assert_eq!(inst.in_game().count(), 3);
        assert_eq!(
            world
                .run_as("Rita", false, hours(3), None, "remove Nobody because x")
                .unwrap_err(),
            "ghost_no_such_seat"
        );
        world
            .run_as("Rita", false, hours(3), None, "clear word because x")
            .unwrap();
    }

    #[test]
    fn several_instances_at_once_need_the_number() {
        let mut world = World::new(&["Alice", "Bob", "Carol", "Dave"]);
        assert_eq!(
            world.run("Alice", t0(), "s").unwrap_err(),
            "ghost_none_open"
        );
        world
            .run_as("Rita", false, t0(), None, "start with Alice, Bob")
            .unwrap();
        let mail = world
            .run_as("Rita", false, t0(), None, "start with Carol, Dave")
            .unwrap();
        assert_eq!(mail[0].tag, "ghost 2");
        // The second game draws in the period the first opened.
        assert_eq!(mail[0].values["new_period"], false);
        assert_eq!(
            world.random.current.as_ref().map(|p| p.draws.len()),
            Some(2)
        );
        let first = world.order(1)[0].clone();
        assert_eq!(world.run(&first, hours(1), "s").unwrap_err(), "ghost_which");
        assert_eq!(
            world.last_sentence().args["instances"]
                .as_array()
                .map(Vec::len),
            Some(2)
        );
        assert_eq!(
            world
                .run_as(&first, true, hours(1), Some(3), "s")
                .unwrap_err(),
            "ghost_no_such_instance"
        );
        assert_eq!(
            world
                .run_as(&first, true, hours(1), Some(2), "s")
                .unwrap_err(),
            "ghost_not_in_game"
        );
        let mail = world.run_as(&first, true, hours(1), Some(1), "s").unwrap();
        assert_eq!(mail[0].tag, "ghost 1");
        let other = world.order(2)[0].clone();
        world.run_as(&other, true, hours(1), Some(2), "q").unwrap();
        assert_eq!(world.inst(2).ghost_word.as_deref(), Some("q"));
        // Game 1 ends: its period ends and its seed is published; game 2 goes on alone,
        // and then needs no number.
        let second = world.order(1)[1].clone();
        let mail = world
            .run_as(&second, true, hours(2), Some(1), "leave")
            .unwrap();
        assert_eq!(templates(&mail), ["ghost_news", "random_period_revealed"]);
        assert!(world.random.current.is_none());
        let next = world.turn_name(2).unwrap();
        world.run(&next, hours(3), "qu").unwrap();
        let last = world.order(2)[0].clone();
        let mail = world.run(&last, hours(4), "leave").unwrap();
        assert_eq!(templates(&mail), ["ghost_news"], "game 2 opened no period");
        assert_eq!(
            world.run("Alice", hours(5), "s").unwrap_err(),
            "ghost_none_open"
        );
        assert_eq!(world.last_sentence().args["finished"], json!([1, 2]));
    }

    /// Every `ghost_` code the module can produce has a wording, and every wording
    /// renders with its sample arguments.
    #[test]
    fn every_sentence_has_a_wording_and_every_sample_renders() {
        let source = include_str!("ghost.rs");
        let wordings = include_str!("../../templates/sentences/ghost.txt");
        let mut codes: Vec<&str> = Vec::new();
        for opener in ["Sentence::new(\"", "refuse(\""] {
            for (at, _) in source.match_indices(opener) {
                let rest = &source[at + opener.len()..];
                if let Some(end) = rest.find('"') {
                    let code = &rest[..end];
                    if code.starts_with("ghost_") && !codes.contains(&code) {
                        codes.push(code);
                    }
                }
            }
        }
        assert!(codes.len() > 40, "{codes:?}");
        for code in &codes {
            assert!(
                wordings.contains(&format!("s.code == \"{code}\"")),
                "no wording for {code}"
            );
        }
        // Each branch is preceded by a sample line; render every one with it.
        let mut rendered = 0;
        let lines: Vec<&str> = wordings.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let Some(sample) = line
                .trim()
                .strip_prefix("{#- sample:")
                .and_then(|s| s.strip_suffix("#}"))
            else {
                continue;
            };
            let code = lines[i + 1]
                .split('"')
                .nth(1)
                .unwrap_or_else(|| panic!("no branch after line {}", i + 1));
            let mut sentence = Sentence::new(code);
            let mut rest = sample.trim();
            while !rest.is_empty() && rest != "(no args)" {
                let (key, after) = rest.split_once('=').unwrap();
                let mut values = serde_json::Deserializer::from_str(after).into_iter::<Value>();
                let value = values.next().unwrap().unwrap();
                sentence = sentence.arg(key.trim(), value);
                rest = after[values.byte_offset()..].trim();
            }
            render_sentence(&sentence);
            rendered += 1;
        }
        assert_eq!(rendered, wordings.matches("s.code == ").count());
        // The refusals no scenario above reaches.
        for sentence in [
            Sentence::new("ghost_too_many").arg("n", 12).arg("max", 10),
            random_error(&random::DrawError::NoPeriod).0,
        ] {
            render_sentence(&sentence);
        }
    }

    /// Random lines from random people at random times, many games over: the
    /// engine never panics, and what the rule makes invariant stays so.
    #[test]
    fn random_play_keeps_every_game_consistent() {
        let everyone = ["Alice", "Bob", "Carol", "Dave", "Eve", "Rita", "mod", "Zed"];
        for seed in 0..25u64 {
            let mut rng = crate::engine::random::Stream::new(&format!("random ghost {seed}"));
            let n_players = 2 + rng.below(4);
            let names = &everyone[..n_players];
            let mut world = World::new(&["Alice", "Bob", "Carol", "Dave", "Eve", "Zed"]);
            let start = format!("start with {}", names.join(", "));
            world.run_as("Rita", true, t0(), None, &start).unwrap();
            let mut at = t0();
            let lead = SignedDuration::from_hours(24);
            for _ in 0..80 {
                at = at
                    .checked_add(SignedDuration::from_mins(1 + rng.below(3000) as i64))
                    .unwrap();
                // The clock reaches `at`: every reminder and deadline on the way fires.
                while let Some(due) = world.schedule.next_due(lead).filter(|due| *due <= at) {
                    world.tick(due);
                }
                let word = world.inst(1).ghost_word.clone().unwrap_or_default();
                let letter = char::from(b'a' + rng.below(26) as u8);
                let line = match rng.below(16) {
                    0..=3 => format!("{word}{letter}"),
                    4 => format!("{letter}{word}"),
                    5 => letter.to_string(),
                    6 => "protest word".to_owned(),
                    7 => "protest not inside".to_owned(),
                    8 => format!(
                        "word {}",
                        ["supersonic", "cattle", "queue", "zzz", "ghost"][rng.below(5)]
                    ),
                    9 => ["resign", "leave", "add me"][rng.below(3)].to_owned(),
                    10 => format!("protest addition {}", everyone[rng.below(6)]),
                    11 => {
                        ["status", "history", "referee", "resign referee"][rng.below(4)].to_owned()
                    }
                    12 => format!("remove {} because the dice said so", everyone[rng.below(6)]),
                    13 => format!(
                        "rule {} because the dice said so",
                        ["valid", "invalid"][rng.below(2)]
                    ),
                    14 => format!("set word {word}{letter} because the dice said so"),
                    _ => "clear word because the dice said so".to_owned(),
                };
                let who = everyone[rng.below(everyone.len())];
                let public = rng.below(8) != 0;
                let instance = if rng.below(2) == 0 { None } else { Some(1) };
                let _ = world.run_as(who, public, at, instance, &line);
                check_invariants(&world, seed, &line);
            }
        }

        fn check_invariants(world: &World, seed: u64, line: &str) {
            let inst = world.inst(1);
            let in_game: Vec<u32> = inst.in_game().map(|s| s.number).collect();
            let context = || format!("seed {seed}, after {line:?}: {inst:#?}");
            if inst.is_over() {
                assert!(in_game.len() <= 1, "over with players left: {}", context());
                assert_eq!(inst.winner, in_game.first().copied(), "{}", context());
                assert!(
                    world.deadlines().is_empty(),
                    "an instance that is over has no clock: {:?} {}",
                    world.deadlines(),
                    context()
                );
                return;
            }
            assert!(
                in_game.len() >= 2,
                "not over with {in_game:?}: {}",
                context()
            );
            match &inst.stage {
                Stage::Turn { seat, .. } => {
                    assert!(in_game.contains(seat), "{}", context());
                    if !inst.is_suspended() {
                        assert!(
                            world
                                .deadlines()
                                .iter()
                                .any(|(id, _)| id.contains(":turn:")),
                            "a turn without its clock: {}",
                            context()
                        );
                    }
                }
                Stage::Protest { protest } => {
                    assert!(in_game.contains(&protest.by), "{}", context());
                }
                Stage::Between | Stage::Over => panic!("at rest in between: {}", context()),
            }
            if let Some(word) = &inst.ghost_word {
                assert!(
                    !word.is_empty() && word.chars().all(|c| c.is_ascii_lowercase()),
                    "{}",
                    context()
                );
            }
        }
    }
}
