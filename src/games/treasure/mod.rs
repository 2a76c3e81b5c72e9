//! `[treasure]`: Buried Treasure (Ackanomic rule 1217/7), a first instalment.
//!
//! A player buries Treasure on the list, naming currency amounts and
//! inventory items ey owns: from that instant they are unowned (money leaves
//! every account and is held by the treasure; items go to `Owner::Unowned`).
//! The burier mails the map to the bot privately; the bot keeps it out of
//! every mail and every public view, publishing only a commitment (a salted
//! hash) so the map published at the find can be checked against it. The
//! writer discloses all or a quoted part, to the list or to named players;
//! the writer declares a find, and the bot publishes the map, destroys it and
//! hands the Treasure over (the Goose moves too when the writer finds eir own).
//!
//! Not yet: custodians and the Treasure-Harfer, several finders drawn by the
//! random officer, empty treasures, the binding to rule 1217.

pub mod bound;
mod parse;
mod rules;

use serde::{Deserialize, Serialize};

use crate::engine::calendar::Deadline;
use crate::engine::game::{Game, Secrecy, Tick, Tx, View};
use crate::engine::players::PlayerId;
use crate::engine::{Ctx, NotUnderstood, Refusal, Sentence, Timestamp};

pub const TAG: &str = "treasure";

/// Buried Treasure (Ackanomic rule 1217/7).
pub struct Treasure;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// The number of the rule of Buried Treasure in the registry: the game
    /// follows it as it changes (`bound`).
    pub rule: u32,
}

impl Default for Params {
    fn default() -> Params {
        Params { rule: bound::RULE }
    }
}

/// One constituent of a Treasure: "one or more tradeable entities".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Part {
    /// An amount of a currency, as text ("10"), held by the treasure itself.
    Money { amount: String, currency: String },
    /// An inventory entity, unowned while buried.
    Item { id: u32 },
}

/// The map: secret until disclosed by its writer or published at the find.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Map {
    pub text: String,
    pub salt_hex: String,
    pub commitment: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Buried {
    pub number: u32,
    pub name: String,
    pub writer: PlayerId,
    pub parts: Vec<Part>,
    pub buried_at: Timestamp,
    pub map: Option<Map>,
    /// Everyone who ever held the map but its writer, in order: the last one
    /// holds it now. "A player will never "un become" a map custodian".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub custodians: Vec<PlayerId>,
}

impl Buried {
    /// Who holds the map now: the last custodian, or the writer.
    pub fn holder(&self) -> PlayerId {
        self.custodians.last().copied().unwrap_or(self.writer)
    }

    pub fn is_custodian(&self, player: PlayerId) -> bool {
        self.custodians.contains(&player)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// The treasures still buried; a found one is history.
    pub buried: Vec<Buried>,
    pub last_number: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Buried {
        number: u32,
        name: String,
        writer: PlayerId,
        parts: Vec<Part>,
    },
    MapWritten {
        number: u32,
        map: Map,
    },
    Found {
        number: u32,
        finder: PlayerId,
    },
    Handed {
        number: u32,
        to: PlayerId,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `bury 10 A$, #3 [as NAME]`.
    Bury {
        parts: Vec<String>,
        name: Option<String>,
    },
    /// `map N: TEXT`, privately.
    Map {
        treasure: String,
        text: String,
    },
    /// `disclose N ["PART"] [to NAME, NAME]`.
    Disclose {
        treasure: String,
        part: Option<String>,
        to: Vec<String>,
    },
    /// `found N by PLAYER[, PLAYER...] [at WHEN]`: several players are those
    /// who achieved the conditions simultaneously.
    Found {
        treasure: String,
        finders: Vec<String>,
        when: Option<String>,
    },
    /// `hand N to the Treasure-Harfer`: the map's holder, going away, gives it
    /// to the Treasure-Harfer (or the acting one), who becomes its custodian.
    Hand {
        treasure: String,
    },
    Status,
}

impl State {
    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        match event {
            Event::Buried {
                number,
                name,
                writer,
                parts,
            } => {
                self.last_number = self.last_number.max(*number);
                self.buried.push(Buried {
                    number: *number,
                    name: name.clone(),
                    writer: *writer,
                    parts: parts.clone(),
                    buried_at: at,
                    map: None,
                    custodians: Vec::new(),
                });
            }
            Event::MapWritten { number, map } => {
                if let Some(t) = self.buried.iter_mut().find(|t| t.number == *number) {
                    t.map = Some(map.clone());
                }
            }
            Event::Found { number, .. } => self.buried.retain(|t| t.number != *number),
            Event::Handed { number, to } => {
                if let Some(t) = self.buried.iter_mut().find(|t| t.number == *number)
                    && !t.custodians.contains(to)
                {
                    t.custodians.push(*to);
                }
            }
        }
    }

    /// A treasure by number, "#N", or name.
    pub fn find(&self, written: &str) -> Option<&Buried> {
        let written = written.trim().trim_start_matches('#');
        self.buried
            .iter()
            .find(|t| written.parse() == Ok(t.number) || t.name.eq_ignore_ascii_case(written))
    }

    /// Without the maps' texts and salts: what the public may see.
    pub fn without_maps(&self) -> State {
        let mut shown = self.clone();
        for t in &mut shown.buried {
            if let Some(map) = &mut t.map {
                map.text = String::new();
                map.salt_hex = String::new();
            }
        }
        shown
    }
}

impl Game for Treasure {
    const NAME: &'static str = "treasure";
    const TAGS: &'static [&'static str] = &[TAG];
    type State = State;
    type Event = Event;
    type Command = Command;
    type Params = Params;

    fn parse(line: &str, _tag: &str) -> Result<Command, NotUnderstood> {
        parse::parse(line)
    }

    fn apply(tx: &mut Tx<'_, Treasure>, command: Command, ctx: &Ctx) -> Result<Sentence, Refusal> {
        rules::apply(tx, command, ctx)
    }

    fn apply_event(state: &mut State, event: &Event, at: Timestamp) {
        state.apply_event(event, at);
    }

    fn bindings(params: &Params) -> crate::engine::ruleset::bindings::Declared {
        bound::declared(params)
    }

    fn on_deadline(tx: &mut Tx<'_, Treasure>, deadline: &Deadline, _tick: &Tick) {
        rules::publish_commitment(tx, deadline);
    }

    /// The map is the writer's secret until ey discloses it or it is found.
    fn secrecy(command: &Command, _ctx: &Ctx) -> Secrecy {
        match command {
            Command::Map { .. } => Secrecy::Secret {
                shown_as: "a Treasure Map (secret until its writer discloses it or the treasure is found)",
            },
            _ => Secrecy::Public,
        }
    }

    fn public_view(state: &State, _view: &View<'_>, _params: &Params) -> serde_json::Value {
        serde_json::to_value(state.without_maps()).unwrap_or(serde_json::Value::Null)
    }
}
