//! `[boons]`: the Boons of the Ancients (Ackanomic rule 1211/3). A Boon falls
//! due to a player when a rule says so (the Machine That Goes *ping*'s correct
//! guess, by a deadline on the shared schedule) or when a moderator bestows one;
//! it is drawn at random through the Officer in charge of Random Things (§4) or
//! chosen by the player within three days (§3); a Boon not Must Describe is
//! created in the substrate's inventory at once (§5), a Must Describe one waits
//! for its description (§6), is posted to the Bogusity Hearing (`[bogusity]`,
//! §8), and is created seven days later or when the hearing's result is known,
//! unless found Bogus (§7).
//!
//! Built through the game seam alone (`engine::game::Game`). Pure, like the
//! engine. `list` is §9 as data and §4's weighted choice; `rules` carries out
//! the sections in the transaction; `parse` reads command lines.
//!
//! Other games reach this one only through the shared schedule (docs/ARCHITECTURE.md):
//! - a deadline owned by `boons` with id `boons:due:random:…` or
//!   `boons:due:deterministic:…`, its `who` the player and its `what` the
//!   reason, bestows a Boon when it fires (the Machine's correct guess sets one);
//! - a Must Describe Boon's description is handed to `[bogusity]` as a deadline
//!   it owns, `bogusity:describe:boons:N` (`what`: "BOON: TEXT"), and the
//!   hearing's news comes back as deadlines `boons:posted|called|bogus|cool:N:D`.
//!
//! Identifiers: bestowals are numbered from 1; their deadlines are
//! `boons:choose:N`, `boons:describe:N`, `boons:create:N`.

pub mod bound;
pub mod list;
mod parse;
mod rules;
mod sample;
#[cfg(test)]
mod tests;

use std::num::NonZeroU32;

use serde::{Deserialize, Serialize};

use crate::engine::calendar::Deadline;
use crate::engine::game::{Game, Running, Standing, Tick, Tx, View};
use crate::engine::players::PlayerId;
use crate::engine::{Ctx, NotUnderstood, Refusal, Sentence, Timestamp};

pub use list::{Boon, Kind};

/// The subject tag: the rule's own word.
pub const TAG: &str = "boons";

/// The Boons of the Ancients (Ackanomic rule 1211/3).
pub struct Boons;

/// The numbers of rule 1211, from `[boons]` in bot.toml; every default is the
/// text's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// The number of the rule of the Boons of the Ancients in the registry: the
    /// game follows it as it changes (`bound`), and ends when it leaves effect.
    pub rule: u32,
    /// §3: "the player [...] has 3 days to choose a Boon".
    pub choose_days: NonZeroU32,
    /// §6: "the player has 3 days to post a description of the Boon".
    pub describe_days: NonZeroU32,
    /// §7: "created 7 days after their description is posted".
    pub create_days: NonZeroU32,
    /// The currency of (d)'s "A$75 in the Treasury is transmuted into the Trinket".
    pub currency: String,
    /// true: a description is also posted to `[bogusity]` for §8's hearing.
    /// false: no hearing can be called on it, and the Boon is created after
    /// `create_days` (for a nomic that does not referee §8).
    pub hearings: bool,
    /// §9, weights summing to anything.
    pub list: Vec<Boon>,
    /// §9 a, b: the particular Gadgets and Otzma Cards with their instance
    /// limits. The texts name none, so none by default; a moderator sets more
    /// by mail (`limit`).
    pub kinds: Vec<Kind>,
}

impl Default for Params {
    fn default() -> Params {
        let days = |n| NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN);
        Params {
            rule: bound::RULE,
            choose_days: days(3),
            describe_days: days(3),
            create_days: days(7),
            currency: "A$".to_owned(),
            hearings: true,
            list: list::rule_list(),
            kinds: Vec::new(),
        }
    }
}

/// §2: "Boons may either be bestowed randomly or deterministically."
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    Random,
    Deterministic,
}

impl Method {
    pub fn word(self) -> &'static str {
        match self {
            Method::Random => "random",
            Method::Deterministic => "deterministic",
        }
    }
}

/// The Boons not yet bestowed nor lapsed. A finished bestowal is history (in the
/// event log) and leaves the live state at once.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub pending: Vec<Bestowal>,
    /// The last number given: numbers are never reused.
    #[serde(default)]
    pub last_number: u32,
    /// §9 a, b: the kinds and instance limits a moderator set by mail, in their
    /// order, over bot.toml's (`list::kinds_in_force`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kinds_set: Vec<Kind>,
    /// Rule 1211 is held for a moderator's ruling since then: its clocks stand
    /// still, and what other games hand over waits in `deferred`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_since: Option<Timestamp>,
    /// Deadlines of other games' making that fired while the rule was held.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deferred: Vec<Deadline>,
    /// Rule 1211 left effect (why): the game has ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<String>,
}

/// A Boon fallen due to a player, on its way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Bestowal {
    pub number: u32,
    pub player: PlayerId,
    pub name: String,
    pub method: Method,
    /// Why it fell due (the bestowing rule, or the moderator's reason).
    pub because: String,
    pub due_at: Timestamp,
    pub stage: Stage,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "stage", rename_all = "snake_case")]
pub enum Stage {
    /// §3: the player chooses until `until`.
    Choosing { until: Timestamp },
    /// §6: the Boon is chosen; its description is due by `until`.
    Describing { boon: Boon, until: Timestamp },
    /// §7: described; created at `create_at` or when the hearing's result is
    /// known, whichever is later.
    Described {
        boon: Boon,
        text: String,
        posted_at: Timestamp,
        create_at: Timestamp,
        /// The description's number in `[bogusity]`, once it is posted there.
        #[serde(default)]
        description: Option<u32>,
        /// A hearing was called and its result is not yet known.
        #[serde(default)]
        hearing_open: bool,
        /// The hearing found it not Bogus (or `create_at` passed without one).
        #[serde(default)]
        cleared: bool,
    },
}

/// Why no Boon was bestowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lapse {
    /// §3: "No Boon is bestowed if three days pass and the player has made no
    /// selection."
    NoChoice,
    /// §6: "If no description is posted in that time, no Boon is bestowed."
    NoDescription,
    /// §7: "unless the Boon is found to be Bogus".
    Bogus,
    /// The list is empty, or its weights sum to nothing: nothing to draw.
    NothingToDraw,
    /// The player left the nomic before the Boon was created.
    PlayerLeft,
    /// Rule 1211 left effect (repealed, void, absent, or switched off by a
    /// moderator) before the Boon was created (docs/rulings.md).
    RuleEnded,
    /// §9 a, b: every particular kind of its entity is at its instance limit
    /// when it is created ("such that no instance limits are exceeded"). Only
    /// a Boon created after a delay meets this: one created at once is not
    /// drawn, nor may be chosen, while no kind is under its limit.
    NoLawfulKind,
}

impl Lapse {
    pub fn code(self) -> &'static str {
        match self {
            Lapse::NoChoice => "no_choice",
            Lapse::NoDescription => "no_description",
            Lapse::Bogus => "bogus",
            Lapse::NothingToDraw => "nothing_to_draw",
            Lapse::PlayerLeft => "player_left",
            Lapse::NoLawfulKind => "no_lawful_kind",
            Lapse::RuleEnded => "rule_ended",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// §1: a Boon is bestowed upon the player; under the deterministic method
    /// the player chooses until `until`.
    Due {
        number: u32,
        player: PlayerId,
        name: String,
        method: Method,
        because: String,
        #[serde(default)]
        until: Option<Timestamp>,
    },
    /// §3 or §4: the Boon chosen; a Must Describe one is described by `until`.
    Chosen {
        number: u32,
        boon: Boon,
        #[serde(default)]
        until: Option<Timestamp>,
    },
    /// §6: the description, posted; §7: created from `create_at`.
    Described {
        number: u32,
        text: String,
        create_at: Timestamp,
    },
    /// `[bogusity]` numbered the description.
    Posted { number: u32, description: u32 },
    /// §8: a hearing was called on the description.
    HearingCalled { number: u32 },
    /// §7: the hearing's result is publicly knowable.
    Heard { number: u32, bogus: bool },
    /// §5, §7: the Boon was created (or, unique, transferred) and given; the
    /// inventory and accounts events are recorded in the same step.
    Bestowed {
        number: u32,
        #[serde(default)]
        entity: Option<u32>,
    },
    /// No Boon is bestowed.
    Lapsed { number: u32, lapse: Lapse },
    /// §9 a, b: a moderator set the instance limit of a particular kind (added
    /// it when it was not known); `limit` none: no limit.
    KindLimited {
        entity: String,
        name: String,
        limit: Option<u32>,
        officer: String,
        because: String,
    },
    /// Rule 1211 changed otherwise than in its numbers: its clocks stand
    /// still until a moderator rules (issue 22).
    Held { rule: u32, difference: String },
    /// A deadline another game set for this one fired while the rule was held.
    Deferred { deadline: Deadline },
    /// A moderator ruled: every clock still running when the hold began runs
    /// again with the time it had left then.
    Resumed,
    /// Rule 1211 left effect: the game has ended (its Boons on their way have
    /// lapsed, in `Lapsed` events of the same step).
    Ended { rule: u32, why: String },
    /// Rule 1211 is in effect again: Boons may fall due anew.
    Restarted,
}

/// One command line, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// A moderator's `bestow NAME [random|deterministic] because REASON`.
    Bestow {
        name: String,
        method: Method,
        because: String,
    },
    /// §3: `choose [#N] BOON` (its letter or its entity's name).
    Choose { number: Option<u32>, boon: String },
    /// §6: `describe [#N] TEXT`.
    Describe { number: Option<u32>, text: String },
    /// `status`: the Boons due, choices and descriptions pending.
    Status,
    /// A moderator's `limit ENTITY: NAME to N|none because REASON` (§9 a, b).
    Limit {
        entity: String,
        name: String,
        limit: Option<u32>,
        because: String,
    },
}

impl State {
    pub fn get(&self, number: u32) -> Option<&Bestowal> {
        self.pending.iter().find(|b| b.number == number)
    }

    fn get_mut(&mut self, number: u32) -> Option<&mut Bestowal> {
        self.pending.iter_mut().find(|b| b.number == number)
    }

    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        match event {
            Event::Due {
                number,
                player,
                name,
                method,
                because,
                until,
            } => {
                self.last_number = self.last_number.max(*number);
                self.pending.push(Bestowal {
                    number: *number,
                    player: *player,
                    name: name.clone(),
                    method: *method,
                    because: because.clone(),
                    due_at: at,
                    // A random Boon is chosen in the same step (`Chosen` follows).
                    stage: Stage::Choosing {
                        until: until.unwrap_or(at),
                    },
                });
            }
            Event::Chosen {
                number,
                boon,
                until,
            } => {
                if let Some(bestowal) = self.get_mut(*number) {
                    bestowal.stage = Stage::Describing {
                        boon: boon.clone(),
                        until: until.unwrap_or(at),
                    };
                }
            }
            Event::Described {
                number,
                text,
                create_at,
            } => {
                if let Some(bestowal) = self.get_mut(*number)
                    && let Stage::Describing { boon, .. } = &bestowal.stage
                {
                    bestowal.stage = Stage::Described {
                        boon: boon.clone(),
                        text: text.clone(),
                        posted_at: at,
                        create_at: *create_at,
                        description: None,
                        hearing_open: false,
                        cleared: false,
                    };
                }
            }
            Event::Posted {
                number,
                description: posted,
            } => {
                if let Some(Stage::Described { description, .. }) =
                    self.get_mut(*number).map(|b| &mut b.stage)
                {
                    *description = Some(*posted);
                }
            }
            Event::HearingCalled { number } => {
                if let Some(Stage::Described { hearing_open, .. }) =
                    self.get_mut(*number).map(|b| &mut b.stage)
                {
                    *hearing_open = true;
                }
            }
            Event::Heard { number, bogus } => {
                if let Some(Stage::Described {
                    hearing_open,
                    cleared,
                    ..
                }) = self.get_mut(*number).map(|b| &mut b.stage)
                {
                    *hearing_open = false;
                    *cleared = !*bogus;
                }
            }
            Event::Bestowed { number, .. } | Event::Lapsed { number, .. } => {
                self.pending.retain(|b| b.number != *number);
            }
            Event::KindLimited {
                entity,
                name,
                limit,
                ..
            } => {
                self.kinds_set = list::kinds_in_force(
                    &self.kinds_set,
                    &[Kind {
                        entity: entity.clone(),
                        name: name.clone(),
                        limit: *limit,
                    }],
                );
            }
            Event::Held { .. } => {
                self.held_since.get_or_insert(at);
            }
            Event::Deferred { deadline } => self.deferred.push(deadline.clone()),
            Event::Resumed => {
                if let Some(since) = self.held_since.take() {
                    for bestowal in &mut self.pending {
                        match &mut bestowal.stage {
                            Stage::Choosing { until } | Stage::Describing { until, .. } => {
                                *until = stretched(*until, since, at);
                            }
                            Stage::Described { create_at, .. } => {
                                *create_at = stretched(*create_at, since, at);
                            }
                        }
                    }
                }
                self.deferred.clear();
            }
            Event::Ended { why, .. } => {
                self.ended = Some(why.clone());
                self.held_since = None;
                self.deferred.clear();
            }
            Event::Restarted => self.ended = None,
        }
    }

    /// The pending bestowals of a player, in order.
    pub fn of_player(&self, player: PlayerId) -> impl Iterator<Item = &Bestowal> {
        self.pending.iter().filter(move |b| b.player == player)
    }
}

/// A clock still running when a hold began at `since`, resumed at `at` with
/// the time it had left then; one that had run out before is left as it was.
pub fn stretched(clock: Timestamp, since: Timestamp, at: Timestamp) -> Timestamp {
    if clock <= since {
        return clock;
    }
    at.checked_add(clock.duration_since(since)).unwrap_or(clock)
}

impl Game for Boons {
    const NAME: &'static str = "boons";
    const TAGS: &'static [&'static str] = &[TAG];
    type State = State;
    type Event = Event;
    type Command = Command;
    type Params = Params;

    fn parse(line: &str, _tag: &str) -> Result<Command, NotUnderstood> {
        parse::parse(line)
    }

    /// Each Boon on its way, with whom it waits for and until when; which Boon
    /// a player chose is not told here. Boons keep no score.
    fn running(state: &State, _view: &View<'_>) -> Vec<Running> {
        state
            .pending
            .iter()
            .map(|bestowal| {
                let (what, turn, deadline) = match &bestowal.stage {
                    Stage::Choosing { until } => ("to be chosen", true, Some(*until)),
                    Stage::Describing { until, .. } => ("to be described", true, Some(*until)),
                    Stage::Described { create_at, .. } => {
                        ("described, to be created", false, Some(*create_at))
                    }
                };
                Running {
                    tag: TAG.to_owned(),
                    what: format!("Boon {} for {}, {what}", bestowal.number, bestowal.name),
                    players: vec![bestowal.name.clone()],
                    turn: turn.then(|| bestowal.name.clone()),
                    deadline,
                }
            })
            .collect()
    }

    /// No start: each Boon bestowed (`bestow`) begins its own play.
    fn begins(command: &Command) -> bool {
        matches!(command, Command::Bestow { .. })
    }

    fn apply(tx: &mut Tx<'_, Boons>, command: Command, ctx: &Ctx) -> Result<Sentence, Refusal> {
        if matches!(
            command,
            Command::Bestow { .. } | Command::Choose { .. } | Command::Describe { .. }
        ) {
            rules::in_effect(tx)?;
        }
        match command {
            Command::Bestow {
                name,
                method,
                because,
            } => rules::bestow_by_moderator(tx, &name, method, &because, ctx),
            Command::Choose { number, boon } => rules::choose(tx, number, &boon, ctx),
            Command::Describe { number, text } => rules::describe(tx, number, text, ctx),
            Command::Status => Ok(rules::status(tx)),
            Command::Limit {
                entity,
                name,
                limit,
                because,
            } => rules::set_limit(tx, &entity, &name, limit, &because, ctx),
        }
    }

    fn apply_event(state: &mut State, event: &Event, at: Timestamp) {
        state.apply_event(event, at);
    }

    /// The state, and the kinds in force with their instance limits and the
    /// instances that exist (§9 a, b).
    fn public_view(state: &State, view: &View<'_>, params: &Params) -> serde_json::Value {
        rules::view_with_kinds(state, view, params)
    }

    fn private_view(state: &State, view: &View<'_>, params: &Params) -> serde_json::Value {
        rules::view_with_kinds(state, view, params)
    }

    fn on_deadline(tx: &mut Tx<'_, Boons>, deadline: &Deadline, tick: &Tick) {
        rules::on_deadline(tx, deadline, tick);
    }

    fn standing_changed(tx: &mut Tx<'_, Boons>, change: &Standing) {
        rules::standing_changed(tx, change);
    }

    fn bindings(params: &Params) -> crate::engine::ruleset::bindings::Declared {
        bound::declared(params)
    }

    fn bindings_changed(tx: &mut Tx<'_, Boons>, _rules: &[u32]) {
        rules::rule_changed(tx);
    }

    fn sample(script: &mut dyn crate::engine::game::Script) {
        sample::sample(script);
    }
}
