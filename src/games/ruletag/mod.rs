//! The `[rule tag]` game (the "Rule Tag" proposal: rules "Elements", "Rule Tag",
//! "rule tag invalid paths", "rule tag moderation", "rule tag basketball"): the bot
//! does the Rule Tag Moderator's work, the human moderator is the arbiter.
//!
//! Players declare actions during an nweek, by private mail to the bot or on the
//! list; the bot checks each against the ruleset registry and its glossary and keeps
//! the ones that count (the last of each type; the *first* element change). At the
//! end of the nweek, after that nweek's rule changes are in the registry, the turn
//! is processed in the rule's order and the two notifications go to the list.
//!
//! Pure, like the engine: time, sender and entropy come in; a command or the end of
//! an nweek runs in the seam's transaction (`Tx`) and records its events there (to
//! this game, the accounts, the random officer, the schedule and the glossary).
//! Private actions never reach public mail or the public state before the end of
//! their nweek.
//!
//! Here the types and the state's events; `parse` reads command lines, `rules` holds
//! the clauses and the moderator's overrides, `turn` processes the end of an nweek,
//! `report` builds what the notifications and `state ruletag` show, `game` puts it
//! all behind the game interface.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::engine::players::PlayerId;
use crate::engine::{Address, Timestamp};

mod bound;
pub mod game;
mod parse;
mod report;
mod rules;
mod sample;
#[cfg(test)]
mod tests;
mod turn;

pub use bound::Rules;
pub use parse::{object_name, parse};

pub const TAG: &str = "rule tag";

/// The office the rule creates (rule "rule tag moderation").
pub const OFFICE: &str = "Rule Tag Moderator";

/// The two RTOs of rule "rule tag basketball", in the order grabs are resolved.
pub const BALL: &str = "rule tag ball";
pub const GOAL: &str = "rule tag goal";

/// Every number of the rule texts, from bot.toml `[ruletag]`, with the texts' values
/// as defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// The calendar cycle the rules call the nweek.
    pub cycle: String,
    /// "All rule tag actions must be made before the end of nday 8."
    pub actions_close_after_nday: u32,
    /// The moderator's notifications: "no later than nday 2" of the next nweek.
    pub notify_by_nday: u32,
    /// Hours after the end of the nweek the turn is processed: time for the rules
    /// officer to put the nweek's passed proposals into the registry ("after passed
    /// proposals have been enacted into the rules"). 0: at the end of the nweek.
    pub process_delay_hours: u32,
    /// The currency points are paid in.
    pub currency: String,
    /// Elemental Tag Resolve: what a losing player gives the winner.
    pub elemental_points: i64,
    /// Basketball Resolve: what the ball's holder on the goal's RTL gains.
    pub basket_points: i64,
    /// Penalties: moved to null this turn.
    pub null_move_penalty: i64,
    /// Penalties: RTL rule no longer exists (and the RTL is set to null).
    pub rule_gone_penalty: i64,
    /// Penalties: RTL rule changed this nweek.
    pub rule_changed_penalty: i64,
    /// The moderator's award, per nweek.
    pub moderator_award: i64,
    /// The moderator's censure when the notifications are late.
    pub moderator_censure: i64,
    /// Grab Actions (i) read literally: every possessed RTO is dropped at the end of
    /// every turn, grabbed or not. Off (the default): only an RTO someone grabbed is
    /// knocked loose. See docs/rulings.md.
    pub drop_possessed_without_grab: bool,
    /// An RTO is never on null (the reading before issue 12): when its holder moves
    /// to null, or is set to null, it falls from eir hands and is relocated at
    /// random at the end of the turn. Off (the default): the rule's own words, "it
    /// moves whenever the player moves, and to the same RTL", null included. See
    /// docs/rulings.md.
    pub rto_never_on_null: bool,
    /// Rule "rule tag invalid paths": terms that never link two rules.
    pub invalid_terms: Vec<String>,
    /// The Rule Tag Moderator's address; when empty, the holder of the office in
    /// `[officers.offices]`, else the first of `bot.moderators`.
    pub moderator: Option<String>,
    /// `[ruletag.rules]`: the numbers of the proposal's five rules in the
    /// registry, which the game follows as they change (`bound`).
    pub rules: Rules,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            cycle: "nweek".to_owned(),
            actions_close_after_nday: 8,
            notify_by_nday: 2,
            process_delay_hours: 0,
            currency: "points".to_owned(),
            elemental_points: 15,
            basket_points: 25,
            null_move_penalty: 10,
            rule_gone_penalty: 25,
            rule_changed_penalty: 10,
            moderator_award: 10,
            moderator_censure: 20,
            drop_possessed_without_grab: false,
            rto_never_on_null: false,
            invalid_terms: vec!["Object".into(), "Game Object".into(), "Player".into()],
            moderator: None,
            rules: Rules::default(),
        }
    }
}

/// Attribute "element" (rule "Elements").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Element {
    #[default]
    Earth,
    Air,
    Fire,
    Water,
}

impl Element {
    fn from_word(word: &str) -> Option<Element> {
        match word.trim().trim_matches('"').to_lowercase().as_str() {
            "earth" => Some(Element::Earth),
            "air" => Some(Element::Air),
            "fire" => Some(Element::Fire),
            "water" => Some(Element::Water),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Element::Earth => "Earth",
            Element::Air => "Air",
            Element::Fire => "Fire",
            Element::Water => "Water",
        }
    }

    /// "Earth beats Water; Water beats Fire; Fire beats Air; Air beats Earth; all
    /// other combinations are neutral."
    pub fn beats(self, other: Element) -> bool {
        matches!(
            (self, other),
            (Element::Earth, Element::Water)
                | (Element::Water, Element::Fire)
                | (Element::Fire, Element::Air)
                | (Element::Air, Element::Earth)
        )
    }
}

/// A rule tag location: a rule number, or null (`None`).
pub type Rtl = Option<u32>;

fn rtl_text(rtl: Rtl) -> String {
    rtl.map_or_else(|| "null".to_owned(), |n| n.to_string())
}

/// A player's attributes in the game. Players not listed have the defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    pub element: Element,
    pub rtl: Rtl,
}

/// Standings as a list of `[player, standing]` pairs: a map with number keys does
/// not survive serde's internally tagged enums (the event log's `Event`).
mod as_pairs {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::Standing;
    use crate::engine::players::PlayerId;

    pub fn serialize<S: Serializer>(
        map: &BTreeMap<PlayerId, Standing>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let pairs: Vec<(&PlayerId, &Standing)> = map.iter().collect();
        pairs.serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<BTreeMap<PlayerId, Standing>, D::Error> {
        let pairs: Vec<(PlayerId, Standing)> = Vec::deserialize(deserializer)?;
        Ok(pairs.into_iter().collect())
    }
}

/// A rule tag object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rto {
    pub name: String,
    pub rtl: Rtl,
    /// The player in possession of it.
    pub holder: Option<PlayerId>,
}

/// One declared action, as it counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    Element {
        element: Element,
    },
    Move {
        from: Rtl,
        to: Rtl,
        /// The game term linking the two rules (none from or to null).
        term: Option<String>,
    },
    Grab {
        object: String,
        points: i64,
    },
    Drop {
        object: String,
    },
}

impl Action {
    pub fn kind(&self) -> ActionKind {
        match self {
            Action::Element { .. } => ActionKind::Element,
            Action::Move { .. } => ActionKind::Move,
            Action::Grab { .. } => ActionKind::Grab,
            Action::Drop { .. } => ActionKind::Drop,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    Element,
    Move,
    Grab,
    Drop,
}

impl ActionKind {
    fn from_word(word: &str) -> Option<ActionKind> {
        match word.to_lowercase().as_str() {
            "element" | "element-change" => Some(ActionKind::Element),
            "move" => Some(ActionKind::Move),
            "grab" => Some(ActionKind::Grab),
            "drop" => Some(ActionKind::Drop),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ActionKind::Element => "element",
            ActionKind::Move => "move",
            ActionKind::Grab => "grab",
            ActionKind::Drop => "drop",
        }
    }
}

/// An action that counts this nweek, with who made it and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Declared {
    /// The nweek the action is for: while a processing delay runs, the next
    /// nweek's actions are taken before the last one is processed.
    pub nweek: i64,
    pub player: PlayerId,
    pub action: Action,
    pub at: Timestamp,
    /// Declared on the list: anyone may see it at once.
    pub public: bool,
}

/// What the end of one nweek did: the two notifications' content, kept in the
/// state as the record of the last turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub nweek: i64,
    pub processed_at: Option<Timestamp>,
    /// Notification 1 (i): the valid actions of each player.
    pub actions: Vec<serde_json::Value>,
    /// Notification 1 (ii): each player's RTL and element, before the turn.
    pub standings: Vec<serde_json::Value>,
    /// Notification 2 (i): each player's change in score due to rule tag.
    pub score_changes: Vec<serde_json::Value>,
    /// Notification 2 (ii): each RTO's RTL and holder after the turn.
    pub objects: Vec<serde_json::Value>,
    /// Notification 2 (iii): every other change, step by step.
    pub changes: Vec<serde_json::Value>,
    /// The notifications were mailed after the nday-2 limit: the moderator is censured.
    pub late: bool,
}

/// The game's state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RuleTag {
    /// When a moderator started the game; nothing counts before.
    pub started_at: Option<Timestamp>,
    /// The nweek whose actions are being collected.
    pub nweek: i64,
    #[serde(with = "as_pairs")]
    pub standings: BTreeMap<PlayerId, Standing>,
    pub objects: Vec<Rto>,
    /// This nweek's counted actions: at most one of each type per player.
    pub actions: Vec<Declared>,
    pub last_report: Option<Report>,
    /// The game is over: rule "Rule Tag" left effect.
    #[serde(default)]
    pub ended: Option<Ended>,
    /// The turn of this nweek waits for a moderator's ruling on a rule of the
    /// game changed otherwise than in its numbers.
    #[serde(default)]
    pub held: Option<i64>,
    /// The turn of this nweek was held and resumed: its notifications are not
    /// late by the wait (no censure).
    #[serde(default)]
    pub resumed: Option<i64>,
}

/// How the game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ended {
    pub at: Timestamp,
    /// The nweek that was running; its actions lapsed unprocessed.
    pub nweek: i64,
    /// Rule "Rule Tag"'s number.
    pub rule: u32,
    /// Repealed, void, not in the ruleset, switched off.
    pub why: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Started {
        nweek: i64,
        objects: Vec<Rto>,
    },
    /// An action that counts; it replaces the player's earlier one of its type.
    Declared {
        declared: Declared,
    },
    /// A moderator voided a player's counted action.
    Voided {
        player: PlayerId,
        action: ActionKind,
        nweek: i64,
        by: Address,
        reason: String,
    },
    /// A moderator moved an RTO (it is no longer possessed).
    Relocated {
        object: String,
        rtl: u32,
        by: Address,
        reason: String,
    },
    /// A moderator set a player's RTL; the RTOs ey holds go with em.
    Placed {
        player: PlayerId,
        rtl: Rtl,
        by: Address,
        reason: String,
    },
    /// A moderator set a player's element.
    ElementSet {
        player: PlayerId,
        element: Element,
        by: Address,
        reason: String,
    },
    /// A moderator gave a player possession of an RTO, which is now on eir RTL.
    Given {
        object: String,
        player: PlayerId,
        rtl: Rtl,
        by: Address,
        reason: String,
    },
    /// The end of an nweek: the new standings and objects, and what happened.
    NweekEnded {
        #[serde(with = "as_pairs")]
        standings: BTreeMap<PlayerId, Standing>,
        objects: Vec<Rto>,
        report: Report,
    },
    /// Rule "Rule Tag" left effect: the game is over (docs/rulings.md).
    Ended {
        nweek: i64,
        rule: u32,
        why: String,
    },
    /// The end of nweek `nweek` came while a rule of the game was held: the
    /// turn waits for a moderator's ruling.
    TurnHeld {
        nweek: i64,
        rules: Vec<u32>,
    },
    /// No rule of the game is held any more: the held turn is processed now.
    TurnResumed {
        nweek: i64,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Element change, grab or drop.
    Act(Action),
    /// A move as written: `from` is the current RTL the player showed, if any.
    Move {
        from: Option<Rtl>,
        to: Rtl,
        term: Option<String>,
    },
    Status,
    /// A moderator's: begin the game, placing the RTOs at random.
    Start,
    /// A moderator's: void a player's counted action of one type.
    Void {
        name: String,
        kind: ActionKind,
        reason: String,
    },
    /// A moderator's: move an RTO.
    Relocate {
        object: String,
        rtl: u32,
        reason: String,
    },
    /// A moderator's: set a player's RTL (the RTOs ey holds go with em).
    Place {
        name: String,
        rtl: Rtl,
        reason: String,
    },
    /// A moderator's: set a player's element.
    SetElement {
        name: String,
        element: Element,
        reason: String,
    },
    /// A moderator's: give a player possession of an RTO, moving it to eir RTL.
    Give {
        object: String,
        name: String,
        reason: String,
    },
    /// A moderator's ruling on a disputed game term: it is (or is not) defined in a rule.
    Term {
        term: String,
        number: u32,
        defined: bool,
        reason: String,
    },
}

/// The deadline that ends nweek `nweek`.
pub fn end_deadline_id(nweek: i64) -> String {
    format!("rule tag:end:{nweek}")
}

/// The deadline, a moment before the end of nweek `nweek`, at which the turn's
/// random period is committed if the turn will draw.
pub fn draws_deadline_id(nweek: i64) -> String {
    format!("rule tag:draws:{nweek}")
}

/// The nweek a fired deadline ends, if it is one of this game's.
pub fn nweek_of_deadline(id: &str) -> Option<i64> {
    id.strip_prefix("rule tag:end:")?.parse().ok()
}

/// The nweek whose turn's draws a fired deadline commits, if it is one of this game's.
pub fn nweek_of_draws_deadline(id: &str) -> Option<i64> {
    id.strip_prefix("rule tag:draws:")?.parse().ok()
}

impl RuleTag {
    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        match event {
            Event::Started { nweek, objects } => {
                // A game started again after its rule came back begins afresh.
                if self.ended.take().is_some() {
                    self.standings.clear();
                    self.last_report = None;
                }
                self.held = None;
                self.resumed = None;
                self.started_at = Some(at);
                self.nweek = *nweek;
                self.objects = objects.clone();
                self.actions.clear();
            }
            Event::Declared { declared } => {
                let kind = declared.action.kind();
                self.actions.retain(|d| {
                    !(d.player == declared.player
                        && d.action.kind() == kind
                        && d.nweek == declared.nweek)
                });
                self.actions.push(declared.clone());
            }
            Event::Voided {
                player,
                action,
                nweek,
                ..
            } => {
                self.actions.retain(|d| {
                    !(d.player == *player && d.action.kind() == *action && d.nweek == *nweek)
                });
            }
            Event::Relocated { object, rtl, .. } => {
                if let Some(rto) = self.objects.iter_mut().find(|o| &o.name == object) {
                    rto.rtl = Some(*rtl);
                    rto.holder = None;
                }
            }
            Event::Placed { player, rtl, .. } => {
                self.standings.entry(*player).or_default().rtl = *rtl;
                for rto in self
                    .objects
                    .iter_mut()
                    .filter(|o| o.holder == Some(*player))
                {
                    rto.rtl = *rtl;
                }
            }
            Event::ElementSet {
                player, element, ..
            } => {
                self.standings.entry(*player).or_default().element = *element;
            }
            Event::Given {
                object,
                player,
                rtl,
                ..
            } => {
                if let Some(rto) = self.objects.iter_mut().find(|o| &o.name == object) {
                    rto.rtl = *rtl;
                    rto.holder = Some(*player);
                }
            }
            Event::NweekEnded {
                standings,
                objects,
                report,
            } => {
                self.standings = standings.clone();
                self.objects = objects.clone();
                self.actions.retain(|d| d.nweek > report.nweek);
                self.nweek = report.nweek + 1;
                self.last_report = Some(report.clone());
                self.held = None;
                self.resumed = None;
            }
            Event::Ended { nweek, rule, why } => {
                self.ended = Some(Ended {
                    at,
                    nweek: *nweek,
                    rule: *rule,
                    why: why.clone(),
                });
                self.actions.clear();
                self.held = None;
                self.resumed = None;
            }
            Event::TurnHeld { nweek, .. } => self.held = Some(*nweek),
            Event::TurnResumed { nweek } => {
                self.held = None;
                self.resumed = Some(*nweek);
            }
        }
    }

    /// Started, and not ended by its rule leaving effect.
    pub fn is_running(&self) -> bool {
        self.started_at.is_some() && self.ended.is_none()
    }

    pub fn standing(&self, player: PlayerId) -> Standing {
        self.standings.get(&player).cloned().unwrap_or_default()
    }

    pub fn object(&self, name: &str) -> Option<&Rto> {
        self.objects.iter().find(|o| o.name == name)
    }

    fn counted(&self, player: PlayerId, kind: ActionKind, nweek: i64) -> Option<&Declared> {
        self.actions
            .iter()
            .find(|d| d.player == player && d.action.kind() == kind && d.nweek == nweek)
    }
}
