//! `[treasure]`: Buried Treasure (Ackanomic rule 1217/7).
//!
//! A player buries Treasure on the list, naming tradeable currency amounts and
//! inventory items ey owns: from that instant they are unowned and buried
//! (money held by the treasure's own account `Holder::Buried`, items owned by
//! `Owner::Buried`), never the Treasury's. The burier mails the map to the bot
//! privately; the bot keeps it out of every mail and every public view,
//! publishing only a commitment (a salted hash) so the map published at the
//! find can be checked against it. The writer discloses all or a quoted part,
//! to the list or to named players; the writer or a custodian declares a find,
//! and the bot publishes the map, destroys it and hands the Treasure over
//! (several finders by their "at WHEN", simultaneous ones drawn by the random
//! officer; the Goose moves when the writer finds eir own). A map whose every
//! holder left the nomic is lost, and its treasure stays buried for good; a
//! treasure whose every entity another rule destroyed is empty, and its map is
//! destroyed. The game never decides whether the conditions were met.

pub mod bound;
mod parse;
mod rules;
mod sample;

use serde::{Deserialize, Serialize};

use crate::engine::calendar::Deadline;
use crate::engine::game::{Game, Secrecy, Standing, Tick, Tx, View};
use crate::engine::players::PlayerId;
use crate::engine::{Ctx, NotUnderstood, Refusal, Sentence, Timestamp};

pub const TAG: &str = "treasure";

/// The offices rule 1217 names: registry offices a moderator appoints.
pub const HARFER: &str = "Treasure-Harfer";
pub const ACTING_HARFER: &str = "acting Treasure-Harfer";

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
    /// No holder of the map is left in the nomic: the treasure stays buried
    /// for good ("It is possible, and acceptable, for a map to be
    /// permanently [...] lost").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub lost: bool,
}

impl Buried {
    /// Who holds the map now: the last custodian, or the writer.
    pub fn holder(&self) -> PlayerId {
        self.custodians.last().copied().unwrap_or(self.writer)
    }

    pub fn is_custodian(&self, player: PlayerId) -> bool {
        self.custodians.contains(&player)
    }

    /// The writer and every custodian: everyone who ever held the map.
    pub fn holders(&self) -> impl Iterator<Item = PlayerId> + '_ {
        std::iter::once(self.writer).chain(self.custodians.iter().copied())
    }
}

/// How a treasure ceased to be buried.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "end", rename_all = "snake_case")]
pub enum End {
    /// Found: the map published and destroyed, the Treasure the finder's.
    Found {
        finder: PlayerId,
        /// When the finder achieved the conditions, as the declaration said.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        when: Option<String>,
        declared_at: Timestamp,
    },
    /// Every entity destroyed by other rules: "If a Treasure ever contains 0
    /// or less buried entities, the Map for that Treasure is destroyed."
    Empty { at: Timestamp },
}

/// A treasure no longer buried, and its map destroyed; its text never kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Past {
    pub number: u32,
    pub name: String,
    pub writer: PlayerId,
    pub parts: Vec<Part>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub custodians: Vec<PlayerId>,
    #[serde(flatten)]
    pub end: End,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// The treasures still buried, a lost one among them.
    pub buried: Vec<Buried>,
    pub last_number: u32,
    /// The treasures found or emptied, so that a late declaration is answered
    /// with who found it and `status` lists every treasure.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub past: Vec<Past>,
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
        #[serde(default, skip_serializing_if = "Option::is_none")]
        when: Option<String>,
    },
    Handed {
        number: u32,
        to: PlayerId,
    },
    /// The last holder of the map left the nomic.
    Lost {
        number: u32,
    },
    /// Every entity of the treasure was destroyed by other rules.
    Emptied {
        number: u32,
    },
}

/// Players who achieved a map's conditions at the same WHEN.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finders {
    pub names: Vec<String>,
    pub when: Option<String>,
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
    /// `found N by PLAYER[, PLAYER...] [at WHEN][; PLAYER [at WHEN]...]`:
    /// the players of one group achieved the conditions simultaneously; the
    /// groups, separated by ";", at their own WHENs.
    Found {
        treasure: String,
        groups: Vec<Finders>,
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
                    lost: false,
                });
            }
            Event::MapWritten { number, map } => {
                if let Some(t) = self.buried.iter_mut().find(|t| t.number == *number) {
                    t.map = Some(map.clone());
                }
            }
            Event::Found {
                number,
                finder,
                when,
            } => self.end(
                *number,
                End::Found {
                    finder: *finder,
                    when: when.clone(),
                    declared_at: at,
                },
            ),
            Event::Emptied { number } => self.end(*number, End::Empty { at }),
            Event::Handed { number, to } => {
                if let Some(t) = self.buried.iter_mut().find(|t| t.number == *number)
                    && !t.custodians.contains(to)
                {
                    t.custodians.push(*to);
                }
            }
            Event::Lost { number } => {
                if let Some(t) = self.buried.iter_mut().find(|t| t.number == *number) {
                    t.lost = true;
                }
            }
        }
    }

    /// The treasure is buried no more, and its map is destroyed.
    fn end(&mut self, number: u32, end: End) {
        if let Some(at) = self.buried.iter().position(|t| t.number == number) {
            let t = self.buried.remove(at);
            self.past.push(Past {
                number: t.number,
                name: t.name,
                writer: t.writer,
                parts: t.parts,
                custodians: t.custodians,
                end,
            });
        }
    }

    /// A treasure no longer buried, by number, "#N", or name.
    pub fn find_past(&self, written: &str) -> Option<&Past> {
        let written = written.trim().trim_start_matches('#');
        self.past
            .iter()
            .rev()
            .find(|t| written.parse() == Ok(t.number) || t.name.eq_ignore_ascii_case(written))
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

    /// The Treasure-Harfer and the acting one, appointable even when bot.toml
    /// names neither.
    fn offices(
        officers: &crate::engine::game::Officers,
        _params: &Params,
    ) -> Vec<(String, Vec<crate::engine::Address>)> {
        [HARFER, ACTING_HARFER]
            .iter()
            .filter(|office| officers.holders(office).is_none())
            .map(|office| ((*office).to_owned(), Vec::new()))
            .collect()
    }

    fn bindings(params: &Params) -> crate::engine::ruleset::bindings::Declared {
        bound::declared(params)
    }

    fn standing_changed(tx: &mut Tx<'_, Treasure>, change: &Standing) {
        rules::standing_changed(tx, change);
    }

    fn entities_gone(tx: &mut Tx<'_, Treasure>, ids: &[u32]) {
        rules::entities_gone(tx, ids);
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

    /// Every treasure in words: never a map's text, even `--private`.
    fn state_text(
        _shown: &serde_json::Value,
        state: &State,
        view: &View<'_>,
        _now: Timestamp,
    ) -> Option<String> {
        Some(rules::state_text(state, view))
    }

    fn sample(script: &mut dyn crate::engine::game::Script) {
        sample::sample(script);
    }
}
