//! The Space Nomic's own gamestate and the changes its text allows: players,
//! money, the ruleset it carries, proposals and their votes. Pure: it reads no
//! clock and sends nothing; `act` takes the action and its instant and returns
//! the events that carry it out, or the refusal that says why it is not allowed
//! (and then nothing changes). The mail layer (`rules.rs`) records the events.
//!
//! Money and votes are exact rationals (`Money`), never floats: a failed
//! proposal costs 6 + 1/403.

use std::collections::BTreeSet;
use std::fmt;

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, Zero};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::changes::{self, SpaceChange};
use super::graph::{self, Coords, Graph, Owner};
use crate::engine::accounts::{amount_human, amount_text, parse_amount};
use crate::engine::{Refusal, Sentence, Timestamp};

/// An exact amount of money units, or a vote: stored as text (`2419/403`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Money(pub BigRational);

impl Money {
    pub fn whole(units: i64) -> Money {
        Money(BigRational::from_integer(BigInt::from(units)))
    }

    /// "6 + 1/403", "583/6", "-0.25", "97".
    pub fn parse(text: &str) -> Option<Money> {
        let joined = text.replace(" + ", " ").replace('+', " ");
        parse_amount(joined.trim()).map(Money)
    }

    /// The form a player reads: `97 1/6`.
    pub fn human(&self) -> String {
        amount_human(&self.0)
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&amount_text(&self.0))
    }
}

impl Serialize for Money {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.to_string())
    }
}

impl<'de> Deserialize<'de> for Money {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Money, D::Error> {
        let text = String::deserialize(deserializer)?;
        Money::parse(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("not an exact amount: {text}")))
    }
}

/// The numbers of the text, each with the text's value by default
/// (`[space]` in bot.toml; `bound.rs` binds each to its rule).
#[derive(Debug, Clone, PartialEq)]
pub struct Numbers {
    /// "eir account will contain 97 money units".
    pub starting_money: Money,
    /// "the player who created the proposal receives 18 money unit".
    pub pass_reward: Money,
    /// "nowhere receives 6 + 1/403 money units from the player who created".
    pub fail_fine: Money,
    /// "each player who voted on it gains 6 + 1/403 money unit".
    pub vote_reward: Money,
    /// "has not been refreshed in the last 16 days".
    pub refresh_days: i64,
    /// "The game ends on 19 February 2005 just before 23:22:19 GMT".
    pub end: Option<Timestamp>,
    /// The colour the text's own rules start with: it gives none.
    pub starting_colour: String,
    /// "can become the owner of that vertex if e transfers 32 money units".
    pub vertex_price: Money,
    /// Space as the game starts: the text gives no starting graph.
    pub starting_vertices: Vec<Coords>,
    pub starting_edges: Vec<(Coords, Coords)>,
    /// "Each day at 21:00 GMT": the hour (UTC) of the daily income.
    pub income_hour: i8,
    /// "12.00 GMT": the hour (UTC) of the evaluation of moves.
    pub evaluation_hour: i8,
    /// "with a period length of one day": location changes.
    pub location_period_days: i64,
    /// "accused of inactivity by another player 7 days ago".
    pub accusation_days: i64,
    /// "If a player has been inactive for 25 days".
    pub removal_days: i64,
    /// "with a period length of six days": space changes.
    pub space_period_days: i64,
    /// "a permutation phi of the set of types of moves".
    pub phi: Vec<String>,
    /// Days between the bot's reports to the list (not a number of the text).
    pub report_days: i64,
    /// Whether a player may increment a player: the text defines "incrementing
    /// a player" but lets no one do it (`[space] incrementing`).
    pub incrementing: bool,
}

impl Default for Numbers {
    fn default() -> Numbers {
        let reward = Money(BigRational::new(BigInt::from(2419), BigInt::from(403)));
        Numbers {
            starting_money: Money::whole(97),
            pass_reward: Money::whole(18),
            fail_fine: reward.clone(),
            vote_reward: reward,
            refresh_days: 16,
            end: None,
            starting_colour: "uncoloured".into(),
            vertex_price: Money::whole(32),
            starting_vertices: vec![(0, 0), (1, 0), (1, 1), (0, 1)],
            starting_edges: vec![
                ((0, 0), (1, 0)),
                ((1, 0), (1, 1)),
                ((1, 1), (0, 1)),
                ((0, 1), (0, 0)),
            ],
            income_hour: 21,
            evaluation_hour: 12,
            location_period_days: 1,
            accusation_days: 7,
            removal_days: 25,
            space_period_days: 6,
            phi: vec!["location".into(), "space".into()],
            report_days: 7,
            incrementing: false,
        }
    }
}

/// A player, or an entity that was one ("all entities that were formerly
/// players in the game" stay in the gamestate).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Player {
    pub id: u32,
    pub address: String,
    pub name: String,
    pub money: Money,
    /// A vertex of Space, or nowhere (`None`).
    pub location: Option<Coords>,
    pub active: bool,
    /// Whether ey most recently became inactive by pausing.
    #[serde(default)]
    pub paused: bool,
    /// False once ey withdrew: a former player.
    pub playing: bool,
    /// Eir image under the point, a positive integer.
    pub point: u64,
    /// Eir mirror-state.
    #[serde(default)]
    pub mirror: bool,
    /// When ey last performed an action or a move.
    #[serde(default)]
    pub last_acted: Option<Timestamp>,
    /// Since when ey has been inactive.
    #[serde(default)]
    pub inactive_since: Option<Timestamp>,
    /// When ey is removed, inactive not by pausing, unless ey acts first.
    #[serde(default)]
    pub removal_at: Option<Timestamp>,
}

/// "A player may accuse any active player of inactivity."
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Accusation {
    pub accused: u32,
    pub by: u32,
    pub at: Timestamp,
    /// 7 days later: when it takes effect unless the accused acted since.
    pub due: Timestamp,
}

/// A rule of the Space Nomic's own ruleset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpaceRule {
    pub number: u32,
    pub name: String,
    pub version: u32,
    /// Every rule but NullRule has one.
    pub colour: Option<String>,
    pub text: String,
}

/// The name of the one rule that has no colour and may not be repealed.
pub const NULL_RULE: &str = "NullRule";

/// One proposed change of the gamestate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    /// "each rule that is being created must be accompanied by its proposed
    /// colour and a reason for this choice".
    Create {
        name: Option<String>,
        colour: String,
        reason: String,
        text: String,
    },
    /// A rule by number or name, and its replacement's text.
    Modify {
        rule: String,
        text: String,
    },
    Repeal {
        rule: String,
    },
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::Create {
                name,
                colour,
                reason,
                text,
            } => {
                let name = name.as_deref().map_or(String::new(), |n| format!("{n} "));
                write!(f, "create {name}colour {colour} because {reason}: {text}")
            }
            Change::Modify { rule, text } => write!(f, "modify {rule}: {text}"),
            Change::Repeal { rule } => write!(f, "repeal {rule}"),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Proposal {
    pub name: String,
    pub creator: u32,
    pub changes: Vec<Change>,
    /// Each voter once, in the order of the votes.
    pub votes: Vec<(u32, Money)>,
    pub created_at: Timestamp,
    pub refreshed_at: Timestamp,
    /// When it is destroyed unless refreshed before: 16 days after its
    /// creation or its last refresh.
    pub expires_at: Timestamp,
}

impl Proposal {
    pub fn sum(&self) -> Money {
        Money(self.votes.iter().map(|(_, v)| v.0.clone()).sum())
    }

    pub fn has_voted(&self, player: u32) -> bool {
        self.votes.iter().any(|(voter, _)| *voter == player)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// Players and former players, by id (the index).
    pub players: Vec<Player>,
    /// The rules in effect, by number.
    pub rules: Vec<SpaceRule>,
    /// Every number that ever numbered a rule.
    pub numbers_used: BTreeSet<u32>,
    pub proposals: Vec<Proposal>,
    /// Every proposal name ever used, lower-case: "named by a unique string".
    pub proposal_names: BTreeSet<String>,
    /// The instant the game ends ("just before" it), fixed when it starts.
    #[serde(default)]
    pub end: Option<Timestamp>,
    /// "There exists in the gamestate a list of things that players are
    /// encouraged to do": no rule says how it changes, so it stays empty.
    #[serde(default)]
    pub encouraged: Vec<String>,
    /// "There exists as part of the gamestate a graph known as space."
    #[serde(default)]
    pub space: Graph,
    /// The next daily income, once the game has begun.
    #[serde(default)]
    pub next_income: Option<Timestamp>,
    /// The location changes stored for the next evaluation: each player's
    /// latest, in the order stored.
    #[serde(default)]
    pub location_moves: Vec<(u32, Coords)>,
    /// The players whose latest stored location change is of eir mirror-state.
    #[serde(default)]
    pub mirror_moves: Vec<u32>,
    /// When the location changes are next evaluated.
    #[serde(default)]
    pub next_evaluation: Option<Timestamp>,
    /// Accusations of inactivity by other players, not yet due.
    #[serde(default)]
    pub accusations: Vec<Accusation>,
    /// When the bot next reports the gamestate to the list.
    #[serde(default)]
    pub next_report: Option<Timestamp>,
    /// The players who consented to end the game.
    #[serde(default)]
    pub end_consents: Vec<u32>,
    /// The space changes stored for the next evaluation: each player's latest.
    #[serde(default)]
    pub space_moves: Vec<(u32, SpaceChange)>,
    /// When the space changes are next evaluated.
    #[serde(default)]
    pub next_space_evaluation: Option<Timestamp>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// The text's rules, recorded when the first player joins.
    RulesetStarted {
        rules: Vec<SpaceRule>,
        end: Option<Timestamp>,
        #[serde(default)]
        space: Graph,
        #[serde(default)]
        next_income: Option<Timestamp>,
    },
    /// A vertex's owner changed (bought, or given away).
    VertexOwned {
        at: Coords,
        owner: Owner,
    },
    /// The daily income was paid (each gain a `Transferred` before it).
    IncomePaid {
        next: Timestamp,
    },
    /// A player stored a location change (replacing eir earlier one).
    MoveStored {
        player: u32,
        to: Coords,
    },
    MoveWithdrawn {
        player: u32,
    },
    /// A player stored a change of eir mirror-state (replacing eir earlier
    /// location change).
    MirrorStored {
        player: u32,
    },
    MirrorChanged {
        id: u32,
    },
    /// A location change executed.
    Moved {
        id: u32,
        to: Coords,
    },
    /// The location changes were evaluated (executed when `executed`, else
    /// none, for `why`); the stored ones are spent.
    MovesEvaluated {
        executed: bool,
        why: String,
        next: Timestamp,
    },
    Joined {
        id: u32,
        address: String,
        name: String,
        money: Money,
    },
    Withdrew {
        id: u32,
    },
    /// A player's image under the point went up by one.
    Incremented {
        id: u32,
    },
    Activity {
        id: u32,
        active: bool,
        paused: bool,
        /// Inactive not by pausing: when ey is removed unless ey acts first.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        removal_at: Option<Timestamp>,
    },
    /// A player performed an action or a move: active from now.
    Acted {
        id: u32,
    },
    Accused {
        accused: u32,
        by: u32,
        due: Timestamp,
    },
    /// An accusation fell due (the accused then inactive, or not if ey acted).
    AccusationDue {
        accused: u32,
        at: Timestamp,
    },
    /// Inactive for 25 days, not by pausing: "completely removed from the game".
    Removed {
        id: u32,
    },
    SpaceChangeStored {
        player: u32,
        change: SpaceChange,
    },
    /// A player consents to end the game.
    ConsentedToEnd {
        id: u32,
    },
    /// Every player consented: the game ends at this instant.
    EndedByConsent,
    /// The periodic report was sent.
    Reported {
        next: Timestamp,
    },
    /// The configured end was reached (or moved before the state's).
    EndReached {
        end: Timestamp,
    },
    SpaceChangeWithdrawn {
        player: u32,
    },
    /// A space change executed, by the player from where ey is.
    SpaceChanged {
        player: u32,
        change: SpaceChange,
    },
    SpaceChangesEvaluated {
        executed: bool,
        why: String,
        next: Timestamp,
    },
    /// From a player (`None`: nowhere) to a player (`None`: nowhere).
    Transferred {
        from: Option<u32>,
        to: Option<u32>,
        amount: Money,
        why: String,
    },
    Proposed {
        name: String,
        creator: u32,
        changes: Vec<Change>,
        expires_at: Timestamp,
    },
    Refreshed {
        name: String,
        expires_at: Timestamp,
    },
    Voted {
        name: String,
        voter: u32,
        vote: Money,
    },
    /// Passed or failed: destroyed, after its changes when it passed.
    Decided {
        name: String,
        passed: bool,
        sum: Money,
        undecided: u32,
    },
    /// Destroyed otherwise: by its creator, or unrefreshed.
    Destroyed {
        name: String,
        why: String,
    },
    RuleCreated {
        rule: SpaceRule,
    },
    RuleModified {
        number: u32,
        text: String,
    },
    RuleRepealed {
        number: u32,
    },
    /// A change of a passing proposal the ruleset does not allow: not carried out.
    ChangeSkipped {
        proposal: String,
        change: String,
        why: String,
    },
}

impl State {
    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        match event {
            Event::RulesetStarted {
                rules,
                end,
                space,
                next_income,
            } => {
                self.end = *end;
                self.space = space.clone();
                self.next_income = *next_income;
                self.numbers_used.extend(rules.iter().map(|r| r.number));
                self.rules = rules.clone();
            }
            Event::Joined {
                id,
                address,
                name,
                money,
            } => {
                let player = Player {
                    id: *id,
                    address: address.clone(),
                    name: name.clone(),
                    money: money.clone(),
                    location: None,
                    active: true,
                    paused: false,
                    playing: true,
                    point: 1,
                    mirror: false,
                    last_acted: Some(at),
                    inactive_since: None,
                    removal_at: None,
                };
                match self.players.iter_mut().find(|p| p.id == *id) {
                    Some(existing) => *existing = player,
                    None => self.players.push(player),
                }
            }
            Event::Withdrew { id } => self.leave(*id),
            Event::Incremented { id } => {
                if let Some(p) = self.player_mut(*id) {
                    p.point = p.point.saturating_add(1);
                }
            }
            Event::Activity {
                id,
                active,
                paused,
                removal_at,
            } => {
                if let Some(p) = self.player_mut(*id) {
                    p.removal_at = *removal_at;
                    if p.active && !*active {
                        p.inactive_since = Some(at);
                    }
                    if *active {
                        p.inactive_since = None;
                    }
                    p.active = *active;
                    p.paused = *paused;
                }
            }
            Event::Acted { id } => {
                if let Some(p) = self.player_mut(*id) {
                    p.active = true;
                    p.paused = false;
                    p.inactive_since = None;
                    p.removal_at = None;
                    p.last_acted = Some(at);
                }
            }
            Event::Accused { accused, by, due } => self.accusations.push(Accusation {
                accused: *accused,
                by: *by,
                at,
                due: *due,
            }),
            Event::AccusationDue { accused, at: when } => self
                .accusations
                .retain(|a| !(a.accused == *accused && a.at == *when)),
            Event::ConsentedToEnd { id } => {
                if !self.end_consents.contains(id) {
                    self.end_consents.push(*id);
                }
            }
            Event::EndedByConsent => self.end = Some(self.end.map_or(at, |end| end.min(at))),
            Event::SpaceChangeStored { player, change } => {
                self.space_moves.retain(|(p, _)| p != player);
                self.space_moves.push((*player, change.clone()));
            }
            Event::SpaceChangeWithdrawn { player } => {
                self.space_moves.retain(|(p, _)| p != player);
            }
            Event::SpaceChanged { player, change } => {
                let from = self.player(*player).and_then(|p| p.location);
                // Checked before it was recorded; a replay gives the same.
                let _ = changes::apply(&mut self.space, from, change);
            }
            Event::SpaceChangesEvaluated { next, .. } => {
                self.space_moves.clear();
                self.next_space_evaluation = Some(*next);
            }
            Event::Removed { id } => self.leave(*id),
            Event::Reported { next } => self.next_report = Some(*next),
            Event::EndReached { end } => {
                self.end = Some(self.end.map_or(*end, |before| before.min(*end)));
            }
            Event::Transferred {
                from, to, amount, ..
            } => {
                if let Some(p) = from.and_then(|id| self.player_mut(id)) {
                    p.money = Money(&p.money.0 - &amount.0);
                }
                if let Some(p) = to.and_then(|id| self.player_mut(id)) {
                    p.money = Money(&p.money.0 + &amount.0);
                }
            }
            Event::Proposed {
                name,
                creator,
                changes,
                expires_at,
            } => {
                self.proposal_names.insert(name.to_lowercase());
                self.proposals.push(Proposal {
                    name: name.clone(),
                    creator: *creator,
                    changes: changes.clone(),
                    votes: Vec::new(),
                    created_at: at,
                    refreshed_at: at,
                    expires_at: *expires_at,
                });
            }
            Event::Refreshed { name, expires_at } => {
                if let Some(p) = self.proposal_mut(name) {
                    p.refreshed_at = at;
                    p.expires_at = *expires_at;
                }
            }
            Event::Voted { name, voter, vote } => {
                if let Some(p) = self.proposal_mut(name) {
                    p.votes.push((*voter, vote.clone()));
                }
            }
            Event::Decided { name, .. } | Event::Destroyed { name, .. } => {
                self.proposals
                    .retain(|p| !p.name.eq_ignore_ascii_case(name));
            }
            Event::RuleCreated { rule } => {
                self.numbers_used.insert(rule.number);
                self.rules.push(rule.clone());
                self.rules.sort_by_key(|r| r.number);
            }
            Event::RuleModified { number, text } => {
                if let Some(rule) = self.rules.iter_mut().find(|r| r.number == *number) {
                    rule.version += 1;
                    rule.text = text.clone();
                }
            }
            Event::RuleRepealed { number } => self.rules.retain(|r| r.number != *number),
            Event::ChangeSkipped { .. } => {}
            Event::VertexOwned { at, owner } => self.space.set_owner(*at, *owner),
            Event::IncomePaid { next } => self.next_income = Some(*next),
            Event::MoveStored { player, to } => {
                self.location_moves.retain(|(p, _)| p != player);
                self.mirror_moves.retain(|p| p != player);
                self.location_moves.push((*player, *to));
            }
            Event::MoveWithdrawn { player } => {
                self.location_moves.retain(|(p, _)| p != player);
                self.mirror_moves.retain(|p| p != player);
            }
            Event::MirrorStored { player } => {
                self.location_moves.retain(|(p, _)| p != player);
                self.mirror_moves.retain(|p| p != player);
                self.mirror_moves.push(*player);
            }
            Event::MirrorChanged { id } => {
                if let Some(p) = self.player_mut(*id) {
                    p.mirror = !p.mirror;
                }
            }
            Event::Moved { id, to } => {
                if let Some(p) = self.player_mut(*id) {
                    p.location = Some(*to);
                }
            }
            Event::MovesEvaluated { next, .. } => {
                self.location_moves.clear();
                self.mirror_moves.clear();
                self.next_evaluation = Some(*next);
            }
        }
    }

    /// A player leaves (withdraws, or is removed): a former player from now,
    /// whose stored moves and pending accusations lapse.
    fn leave(&mut self, id: u32) {
        if let Some(p) = self.player_mut(id) {
            p.playing = false;
        }
        self.accusations.retain(|a| a.accused != id);
        self.location_moves.retain(|(p, _)| *p != id);
        self.mirror_moves.retain(|p| *p != id);
        self.space_moves.retain(|(p, _)| *p != id);
    }

    fn player_mut(&mut self, id: u32) -> Option<&mut Player> {
        self.players.iter_mut().find(|p| p.id == id)
    }

    fn proposal_mut(&mut self, name: &str) -> Option<&mut Proposal> {
        self.proposals
            .iter_mut()
            .find(|p| p.name.eq_ignore_ascii_case(name))
    }

    pub fn player(&self, id: u32) -> Option<&Player> {
        self.players.iter().find(|p| p.id == id)
    }

    /// A player in the game (not a former one) by address.
    pub fn player_at(&self, address: &str) -> Option<&Player> {
        self.players
            .iter()
            .find(|p| p.playing && p.address.eq_ignore_ascii_case(address))
    }

    /// A player in the game by name.
    pub fn player_named(&self, name: &str) -> Option<&Player> {
        self.players
            .iter()
            .find(|p| p.playing && p.name.eq_ignore_ascii_case(name.trim()))
    }

    pub fn proposal(&self, name: &str) -> Option<&Proposal> {
        self.proposals
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(name.trim()))
    }

    /// A rule in effect by number or name.
    pub fn rule(&self, written: &str) -> Option<&SpaceRule> {
        let written = written.trim().trim_start_matches('#');
        self.rules
            .iter()
            .find(|r| written.parse() == Ok(r.number) || r.name.eq_ignore_ascii_case(written))
    }

    /// "the least non-negative integer which has never previously been used to
    /// number a rule".
    pub fn least_unused_number(&self) -> u32 {
        (0..)
            .find(|n| !self.numbers_used.contains(n))
            .unwrap_or(u32::MAX)
    }

    /// Active players who have not voted on `proposal`.
    pub fn undecided(&self, proposal: &Proposal) -> u32 {
        let count = self
            .players
            .iter()
            .filter(|p| p.playing && p.active && !proposal.has_voted(p.id))
            .count();
        u32::try_from(count).unwrap_or(u32::MAX)
    }

    /// Whether the proposal is decided now: `Some(true)` passed, `Some(false)`
    /// failed. Every active non-voter could vote anything in [-1, 1], so the
    /// sum could end anywhere in [sum - n, sum + n].
    pub fn decision(&self, proposal: &Proposal) -> Option<bool> {
        let sum = proposal.sum().0;
        let undecided = BigRational::from_integer(BigInt::from(self.undecided(proposal)));
        if &sum - &undecided > BigRational::zero() {
            Some(true)
        } else if &sum + &undecided <= BigRational::zero() {
            Some(false)
        } else {
            None
        }
    }

    /// The next instant a proposal is destroyed unrefreshed, before the end.
    pub fn next_expiry(&self) -> Option<Timestamp> {
        self.proposals
            .iter()
            .map(|p| p.expires_at)
            .filter(|at| self.end.is_none_or(|end| *at < end))
            .min()
    }

    /// The game's next deadline before the end: an expiry or the income.
    pub fn next_deadline(&self) -> Option<Timestamp> {
        let before_end = |at: &Timestamp| self.end.is_none_or(|end| *at < end);
        let income = self.next_income.filter(before_end);
        let evaluation = self.next_evaluation.filter(before_end);
        let space_evaluation = self.next_space_evaluation.filter(before_end);
        let report = self.next_report.filter(before_end);
        [
            self.next_expiry(),
            income,
            evaluation,
            space_evaluation,
            report,
            next_activity_deadline(self),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// Whether `id` is a player in the game (not a former one).
    pub fn plays(&self, id: u32) -> bool {
        self.player(id).is_some_and(|p| p.playing)
    }

    /// Each player's income now: the average over the vertices a player owns
    /// of 2/(d^2 + 2), d the graphwise distance from eir location (nowhere,
    /// or no path: infinitely far, a term of 0). No player-owned vertex, no
    /// income.
    pub fn income(&self) -> Vec<(u32, Money)> {
        let owned: Vec<Coords> = self
            .space
            .vertices
            .iter()
            .filter(|v| matches!(v.owner, Owner::Entity(id) if self.plays(id)))
            .map(|v| v.at)
            .collect();
        if owned.is_empty() {
            return Vec::new();
        }
        let n = BigInt::from(owned.len());
        self.players
            .iter()
            .filter(|p| p.playing)
            .map(|p| {
                let distances = p
                    .location
                    .map(|at| self.space.distances(at))
                    .unwrap_or_default();
                let sum: BigRational = owned
                    .iter()
                    .filter_map(|v| distances.get(v))
                    .map(|d| {
                        let d = BigInt::from(*d);
                        BigRational::new(BigInt::from(2), &d * &d + BigInt::from(2))
                    })
                    .sum();
                (p.id, Money(sum / BigRational::from_integer(n.clone())))
            })
            .collect()
    }
}

/// What a player may announce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Join {
        name: String,
    },
    Withdraw,
    Propose {
        name: String,
        changes: Vec<Change>,
    },
    Vote {
        proposal: String,
        vote: String,
    },
    Refresh {
        proposal: String,
    },
    Destroy {
        proposal: String,
    },
    Give {
        amount: String,
        to: Option<String>,
    },
    Nod,
    Pause,
    /// Buy the vertex one stands on.
    Buy,
    /// Give a vertex one owns to a player, or to god (`None`).
    GiveVertex {
        vertex: String,
        to: Option<String>,
    },
    /// Store a location change for the next evaluation.
    Move {
        to: String,
    },
    /// Withdraw one's stored location change.
    CancelMove,
    /// Store a change of one's mirror-state (a location change).
    Mirror,
    /// Accuse a player of inactivity (oneself: pausing).
    Accuse {
        player: String,
    },
    /// "incrementing a player": eir image under the point plus one, where a
    /// rule allows it (`[space] incrementing`).
    Increment {
        player: String,
    },
    /// "A player may add an entity to the game as a player": another's
    /// address and name.
    Add {
        address: String,
        name: String,
    },
    /// Consent to end the game; it ends once every player has.
    EndGame,
    /// Store a space change for the next evaluation.
    ChangeSpace {
        change: SpaceChange,
    },
    /// Withdraw one's stored space change.
    CancelSpaceChange,
}

/// The text's rules, as the game starts with them: one to a paragraph of
/// `text`, numbered from 0 ("the least non-negative integer"), named as the
/// import names them, each with the starting colour.
pub fn starting_rules(text: &str, numbers: &Numbers) -> Vec<SpaceRule> {
    crate::engine::ruleset::parse_paragraphs(text, 0, "Space Nomic")
        .unwrap_or_default()
        .into_iter()
        .map(|rule| SpaceRule {
            number: rule.number,
            colour: (rule.name != NULL_RULE).then(|| numbers.starting_colour.clone()),
            name: rule.name,
            version: 0,
            text: rule.text,
        })
        .collect()
}

/// A scratch copy of the state and the events that made it: each event is
/// applied at once, so the next decision sees it.
struct Scratch<'a> {
    state: State,
    events: Vec<Event>,
    numbers: &'a Numbers,
    now: Timestamp,
}

impl Scratch<'_> {
    fn record(&mut self, event: Event) {
        self.state.apply_event(&event, self.now);
        self.events.push(event);
    }

    /// "Whenever a player performs an action or a move, eir activity state is
    /// set to true."
    fn acted(&mut self, id: u32) {
        if self.state.plays(id) {
            self.record(Event::Acted { id });
        }
    }

    /// Every proposal whose outcome can no longer change passes or fails now.
    fn settle(&mut self) {
        loop {
            let decided = self
                .state
                .proposals
                .iter()
                .find_map(|p| self.state.decision(p).map(|passed| (p.clone(), passed)));
            let Some((proposal, passed)) = decided else {
                return;
            };
            self.decide(&proposal, passed);
        }
    }

    fn decide(&mut self, proposal: &Proposal, passed: bool) {
        let sum = proposal.sum();
        let undecided = self.state.undecided(proposal);
        // Decided first: what follows it in the log is what its decision did.
        self.record(Event::Decided {
            name: proposal.name.clone(),
            passed,
            sum,
            undecided,
        });
        if passed {
            for change in &proposal.changes {
                self.carry_out(&proposal.name, change);
            }
        }
        let creator_plays = self
            .state
            .player(proposal.creator)
            .is_some_and(|p| p.playing);
        if creator_plays {
            let (from, to, amount, why) = if passed {
                (
                    None,
                    Some(proposal.creator),
                    self.numbers.pass_reward.clone(),
                    format!("creator of {}, which passed", proposal.name),
                )
            } else {
                (
                    Some(proposal.creator),
                    None,
                    self.numbers.fail_fine.clone(),
                    format!("creator of {}, which failed", proposal.name),
                )
            };
            self.record(Event::Transferred {
                from,
                to,
                amount,
                why,
            });
        }
        for (voter, _) in &proposal.votes {
            if self.state.player(*voter).is_some_and(|p| p.playing) {
                self.record(Event::Transferred {
                    from: None,
                    to: Some(*voter),
                    amount: self.numbers.vote_reward.clone(),
                    why: format!("voted on {}", proposal.name),
                });
            }
        }
    }

    /// "all changes to the gamestate it describes which the ruleset does not
    /// explicitly disallow are carried out".
    fn carry_out(&mut self, proposal: &str, change: &Change) {
        let skip = |why: &str| Event::ChangeSkipped {
            proposal: proposal.to_owned(),
            change: change.to_string(),
            why: why.to_owned(),
        };
        match change {
            Change::Create {
                name,
                colour,
                reason: _,
                text,
            } => {
                let number = self.state.least_unused_number();
                let name = name.clone().unwrap_or_else(|| format!("Rule {number}"));
                if self.state.rule(&name).is_some() {
                    self.record(skip(
                        "a rule of that name is in effect, and names are unique",
                    ));
                    return;
                }
                self.record(Event::RuleCreated {
                    rule: SpaceRule {
                        number,
                        name,
                        version: 0,
                        colour: Some(colour.clone()),
                        text: text.clone(),
                    },
                });
            }
            Change::Modify { rule, text } => match self.state.rule(rule).cloned() {
                // "When a rule is modified, it is repealed [...]. NullRule may
                // not be repealed."
                Some(existing) if existing.name == NULL_RULE => {
                    self.record(skip(
                        "NullRule may not be repealed, and a modification repeals it",
                    ));
                }
                Some(existing) => self.record(Event::RuleModified {
                    number: existing.number,
                    text: text.clone(),
                }),
                None => self.record(skip("no rule in effect has that number or name")),
            },
            Change::Repeal { rule } => match self.state.rule(rule).cloned() {
                Some(existing) if existing.name == NULL_RULE => {
                    self.record(skip("NullRule may not be repealed"));
                }
                Some(existing) => self.record(Event::RuleRepealed {
                    number: existing.number,
                }),
                None => self.record(skip("no rule in effect has that number or name")),
            },
        }
    }
}

fn refused(code: &str) -> Sentence {
    Sentence::new(code)
}

/// Carries out one action announced by `address` at `now`: the events, or why
/// the ruleset does not allow it (and nothing changes).
pub fn act(
    state: &State,
    numbers: &Numbers,
    starting_text: &str,
    address: &str,
    action: Action,
    now: Timestamp,
) -> Result<Vec<Event>, Refusal> {
    // The configured end, or an earlier one the players agreed on.
    if let Some(end) = end_of(state, numbers)
        && now >= end
    {
        return Err(refused("space_ended")
            .arg("end", crate::engine::human_time(end))
            .into());
    }
    let mut scratch = Scratch {
        state: state.clone(),
        events: Vec::new(),
        numbers,
        now,
    };
    if let Action::Join { name } = &action {
        join(&mut scratch, starting_text, address, name)?;
        scratch.settle();
        return Ok(scratch.events);
    }
    let me = state
        .player_at(address)
        .cloned()
        .ok_or_else(|| Refusal(refused("space_not_a_player").arg("address", address)))?;
    match action {
        Action::Join { .. } => {}
        Action::Withdraw => scratch.record(Event::Withdrew { id: me.id }),
        Action::Propose { name, changes } => {
            propose(&mut scratch, &me, name, changes)?;
            scratch.acted(me.id);
        }
        Action::Vote { proposal, vote } => {
            vote_on(&mut scratch, &me, &proposal, &vote)?;
            scratch.acted(me.id);
        }
        Action::Refresh { proposal } => {
            let name = existing(state, &proposal)?.name.clone();
            let expires_at = expiry(numbers, now);
            scratch.record(Event::Refreshed { name, expires_at });
            scratch.acted(me.id);
        }
        Action::Destroy { proposal } => {
            let found = existing(state, &proposal)?;
            if found.creator != me.id {
                return Err(refused("space_not_creator")
                    .arg("proposal", &found.name)
                    .into());
            }
            scratch.record(Event::Destroyed {
                name: found.name.clone(),
                why: format!("destroyed by its creator {}", me.name),
            });
            scratch.acted(me.id);
        }
        Action::Give { amount, to } => {
            give(&mut scratch, &me, &amount, to.as_deref())?;
            scratch.acted(me.id);
        }
        Action::Nod => scratch.acted(me.id),
        Action::Increment { player } => {
            // "No actions may occur during the game except when allowed by
            // the ruleset", and the text only names incrementing.
            if !numbers.incrementing {
                return Err(refused("space_increment_not_allowed").into());
            }
            let incremented = state
                .player_named(&player)
                .cloned()
                .ok_or_else(|| Refusal(refused("space_no_player").arg("player", player.trim())))?;
            scratch.record(Event::Incremented { id: incremented.id });
            scratch.acted(me.id);
        }
        Action::Accuse { player } => {
            let accused = state
                .player_named(&player)
                .cloned()
                .ok_or_else(|| Refusal(refused("space_no_player").arg("player", player.trim())))?;
            if !accused.active {
                return Err(refused("space_accuse_inactive")
                    .arg("player", &accused.name)
                    .into());
            }
            if accused.id == me.id {
                // "accusing oneself of inactivity is also known as pausing".
                scratch.record(Event::Activity {
                    id: me.id,
                    active: false,
                    paused: true,
                    removal_at: None,
                });
            } else {
                scratch.acted(me.id);
                let due = after_days(now, numbers.accusation_days);
                scratch.record(Event::Accused {
                    accused: accused.id,
                    by: me.id,
                    due,
                });
            }
        }
        Action::Pause => scratch.record(Event::Activity {
            id: me.id,
            active: false,
            paused: true,
            removal_at: None,
        }),
        Action::Buy => {
            buy(&mut scratch, &me)?;
            scratch.acted(me.id);
        }
        Action::GiveVertex { vertex, to } => {
            give_vertex(&mut scratch, &me, &vertex, to.as_deref())?;
            scratch.acted(me.id);
        }
        // Storing or withdrawing a move is no action: the move is performed
        // (and counts as activity) when it is executed.
        Action::Move { to } => {
            let at = graph::parse_coords(&to)
                .ok_or_else(|| Refusal(refused("space_no_vertex").arg("vertex", to.trim())))?;
            scratch.record(Event::MoveStored {
                player: me.id,
                to: at,
            });
        }
        Action::Add { address, name } => {
            if !address.contains('@') {
                return Err(refused("space_bad_address").arg("address", &address).into());
            }
            join(&mut scratch, starting_text, &address, &name)?;
            scratch.acted(me.id);
        }
        Action::EndGame => {
            scratch.record(Event::ConsentedToEnd { id: me.id });
            scratch.acted(me.id);
            // "A player may end the game provided this has the unanimous
            // consent of all players."
            let unanimous = scratch
                .state
                .players
                .iter()
                .filter(|p| p.playing)
                .all(|p| scratch.state.end_consents.contains(&p.id));
            if unanimous {
                scratch.record(Event::EndedByConsent);
            }
        }
        Action::ChangeSpace { change } => scratch.record(Event::SpaceChangeStored {
            player: me.id,
            change,
        }),
        Action::CancelSpaceChange => {
            if !state.space_moves.iter().any(|(p, _)| *p == me.id) {
                return Err(refused("space_no_move").into());
            }
            scratch.record(Event::SpaceChangeWithdrawn { player: me.id });
        }
        Action::Mirror => scratch.record(Event::MirrorStored { player: me.id }),
        Action::CancelMove => {
            let stored = state.location_moves.iter().any(|(p, _)| *p == me.id)
                || state.mirror_moves.contains(&me.id);
            if !stored {
                return Err(refused("space_no_move").into());
            }
            scratch.record(Event::MoveWithdrawn { player: me.id });
        }
    }
    scratch.settle();
    Ok(scratch.events)
}

/// "A player may add an entity to the game as a player": the sender adds emself.
fn join(
    scratch: &mut Scratch<'_>,
    starting_text: &str,
    address: &str,
    name: &str,
) -> Result<(), Refusal> {
    let name = name.trim();
    if name.is_empty() || name.eq_ignore_ascii_case("nowhere") || name.eq_ignore_ascii_case("god") {
        return Err(refused("space_bad_name").arg("name", name).into());
    }
    if scratch.state.player_at(address).is_some() {
        return Err(refused("space_already_playing").into());
    }
    if scratch.state.player_named(name).is_some() {
        return Err(refused("space_name_taken").arg("name", name).into());
    }
    if scratch.state.players.is_empty() && scratch.state.rules.is_empty() {
        let rules = starting_rules(starting_text, scratch.numbers);
        let numbers = scratch.numbers;
        scratch.record(Event::RulesetStarted {
            rules,
            end: numbers.end,
            space: Graph::new(&numbers.starting_vertices, &numbers.starting_edges),
            next_income: Some(next_daily(scratch.now, numbers.income_hour)),
        });
        // "12.00 GMT the day the rule was created, plus the given interval".
        let noon = today_at(scratch.now, numbers.evaluation_hour);
        let start = |days| after_days(noon, days);
        scratch.record(Event::MovesEvaluated {
            executed: false,
            why: "the game begins".into(),
            next: start(numbers.location_period_days.max(1)),
        });
        scratch.record(Event::SpaceChangesEvaluated {
            executed: false,
            why: "the game begins".into(),
            next: start(numbers.space_period_days.max(1)),
        });
        scratch.record(Event::Reported {
            next: start(numbers.report_days.max(1)),
        });
    }
    // A former player who joins again is the same entity, with eir id.
    let id = scratch
        .state
        .players
        .iter()
        .find(|p| p.address.eq_ignore_ascii_case(address))
        .map(|p| p.id)
        .unwrap_or_else(|| u32::try_from(scratch.state.players.len()).unwrap_or(u32::MAX));
    scratch.record(Event::Joined {
        id,
        address: address.to_owned(),
        name: name.to_owned(),
        money: scratch.numbers.starting_money.clone(),
    });
    Ok(())
}

fn existing<'s>(state: &'s State, name: &str) -> Result<&'s Proposal, Refusal> {
    state
        .proposal(name)
        .ok_or_else(|| Refusal(refused("space_no_proposal").arg("proposal", name.trim())))
}

fn propose(
    scratch: &mut Scratch<'_>,
    me: &Player,
    name: String,
    changes: Vec<Change>,
) -> Result<(), Refusal> {
    let name = name.trim().to_owned();
    if name.is_empty() {
        return Err(refused("space_bad_name").arg("name", &name).into());
    }
    if scratch.state.proposal_names.contains(&name.to_lowercase()) {
        return Err(refused("space_proposal_name_used")
            .arg("proposal", &name)
            .into());
    }
    for change in &changes {
        if let Change::Create { colour, reason, .. } = change
            && (colour.trim().is_empty() || reason.trim().is_empty())
        {
            return Err(refused("space_create_needs_colour").into());
        }
    }
    let expires_at = expiry(scratch.numbers, scratch.now);
    scratch.record(Event::Proposed {
        name,
        creator: me.id,
        changes,
        expires_at,
    });
    Ok(())
}

fn vote_on(
    scratch: &mut Scratch<'_>,
    me: &Player,
    proposal: &str,
    written: &str,
) -> Result<(), Refusal> {
    let found = existing(&scratch.state, proposal)?.clone();
    let vote = Money::parse(written)
        .ok_or_else(|| Refusal(refused("space_bad_vote").arg("vote", written.trim())))?;
    let one = BigRational::one();
    if vote.0 > one || vote.0 < -one {
        return Err(refused("space_bad_vote").arg("vote", written.trim()).into());
    }
    if found.has_voted(me.id) {
        return Err(refused("space_already_voted")
            .arg("proposal", &found.name)
            .into());
    }
    scratch.record(Event::Voted {
        name: found.name,
        voter: me.id,
        vote,
    });
    Ok(())
}

/// "A player may transfer any positive rational amount of money, which is not
/// greater than the total amount of money eir account contains, only from eir
/// account to any other player's account or to nowhere."
fn give(
    scratch: &mut Scratch<'_>,
    me: &Player,
    written: &str,
    to: Option<&str>,
) -> Result<(), Refusal> {
    let amount = Money::parse(written)
        .ok_or_else(|| Refusal(refused("space_bad_amount").arg("amount", written.trim())))?;
    if !amount.0.is_positive() {
        return Err(refused("space_bad_amount")
            .arg("amount", written.trim())
            .into());
    }
    if amount.0 > me.money.0 {
        return Err(refused("space_not_enough")
            .arg("amount", amount.human())
            .arg("balance", me.money.human())
            .into());
    }
    let to = match to {
        None => None,
        Some(name) => {
            let player = scratch
                .state
                .player_named(name)
                .ok_or_else(|| Refusal(refused("space_no_player").arg("player", name.trim())))?;
            if player.id == me.id {
                return Err(refused("space_give_self").into());
            }
            Some(player.id)
        }
    };
    scratch.record(Event::Transferred {
        from: Some(me.id),
        to,
        amount,
        why: "a transfer".into(),
    });
    Ok(())
}

/// "A player, that is located at a vertex owned by a non-player entity can
/// become the owner of that vertex if e transfers 32 money units to nowhere."
fn buy(scratch: &mut Scratch<'_>, me: &Player) -> Result<(), Refusal> {
    let at = me
        .location
        .ok_or_else(|| Refusal(refused("space_buy_nowhere")))?;
    let vertex = scratch
        .state
        .space
        .vertex(at)
        .cloned()
        .ok_or_else(|| Refusal(refused("space_buy_nowhere")))?;
    if let Owner::Entity(id) = vertex.owner
        && scratch.state.plays(id)
    {
        let owner = scratch.state.player(id).map(|p| p.name.clone());
        return Err(refused("space_vertex_owned")
            .arg("vertex", graph::show(at))
            .arg("owner", owner.unwrap_or_default())
            .into());
    }
    let price = scratch.numbers.vertex_price.clone();
    if price.0 > me.money.0 {
        return Err(refused("space_not_enough")
            .arg("amount", price.human())
            .arg("balance", me.money.human())
            .into());
    }
    scratch.record(Event::Transferred {
        from: Some(me.id),
        to: None,
        amount: price,
        why: format!("bought the vertex {}", graph::show(at)),
    });
    scratch.record(Event::VertexOwned {
        at,
        owner: Owner::Entity(me.id),
    });
    Ok(())
}

/// "A player that owns a vertex can change the owner of that vertex to another
/// player or to the non-player entity "god"."
fn give_vertex(
    scratch: &mut Scratch<'_>,
    me: &Player,
    written: &str,
    to: Option<&str>,
) -> Result<(), Refusal> {
    let at = graph::parse_coords(written)
        .ok_or_else(|| Refusal(refused("space_no_vertex").arg("vertex", written.trim())))?;
    let vertex = scratch
        .state
        .space
        .vertex(at)
        .cloned()
        .ok_or_else(|| Refusal(refused("space_no_vertex").arg("vertex", written.trim())))?;
    if vertex.owner != Owner::Entity(me.id) {
        return Err(refused("space_not_your_vertex")
            .arg("vertex", graph::show(at))
            .into());
    }
    let owner = match to {
        None => Owner::God,
        Some(name) => {
            let player = scratch
                .state
                .player_named(name)
                .ok_or_else(|| Refusal(refused("space_no_player").arg("player", name.trim())))?;
            if player.id == me.id {
                return Err(refused("space_give_self").into());
            }
            Owner::Entity(player.id)
        }
    };
    scratch.record(Event::VertexOwned { at, owner });
    Ok(())
}

/// The instant the game ends: the configured one, or an earlier one the
/// state holds (fixed at the start, or agreed on by every player).
pub fn end_of(state: &State, numbers: &Numbers) -> Option<Timestamp> {
    [state.end, numbers.end].into_iter().flatten().min()
}

/// The end, recorded in the state once reached, if the state does not hold
/// it yet: from then on no deadline of the game is due.
pub fn reach_end(state: &State, numbers: &Numbers, now: Timestamp) -> Vec<Event> {
    match numbers.end {
        Some(end) if end <= now && state.end.is_none_or(|before| before > end) => {
            vec![Event::EndReached { end }]
        }
        _ => Vec::new(),
    }
}

/// `hour`:00 UTC on the day of `at`.
pub fn today_at(at: Timestamp, hour: i8) -> Timestamp {
    let utc = jiff::tz::TimeZone::UTC;
    at.to_zoned(utc.clone())
        .date()
        .at(hour.clamp(0, 23), 0, 0, 0)
        .to_zoned(utc)
        .map_or(Timestamp::MAX, |zoned| zoned.timestamp())
}

/// "The evaluation of a players space changes follow the procedure stated in
/// the rule PeriodicalEvaluation with a period length of six days": every
/// stored space change, executed if there is an unambiguous way to execute
/// all of them, else none.
pub fn evaluate_space_changes(state: &State, numbers: &Numbers, now: Timestamp) -> Vec<Event> {
    let Some(due) = state.next_space_evaluation else {
        return Vec::new();
    };
    if due > now || end_of(state, numbers).is_some_and(|end| due >= end) {
        return Vec::new();
    }
    let mut scratch = Scratch {
        state: state.clone(),
        events: Vec::new(),
        numbers,
        now: due,
    };
    let next = after_days(due, numbers.space_period_days.max(1));
    let moves: Vec<(Option<Coords>, SpaceChange)> = state
        .space_moves
        .iter()
        .map(|(player, change)| {
            let at = state
                .player(*player)
                .filter(|p| p.playing)
                .and_then(|p| p.location);
            (at, change.clone())
        })
        .collect();
    match changes::resolve(&state.space, &moves) {
        Err(why) => {
            scratch.record(Event::SpaceChangesEvaluated {
                executed: false,
                why: format!("no space change is executed: {why}"),
                next,
            });
        }
        Ok((_, order)) => {
            for index in order {
                let (player, change) = state.space_moves[index].clone();
                scratch.record(Event::SpaceChanged { player, change });
                scratch.acted(player);
            }
            scratch.record(Event::SpaceChangesEvaluated {
                executed: true,
                why: String::new(),
                next,
            });
            scratch.settle();
        }
    }
    scratch.events
}

/// The first instant at `hour`:00 UTC after `after`.
pub fn next_daily(after: Timestamp, hour: i8) -> Timestamp {
    let utc = jiff::tz::TimeZone::UTC;
    let hour = hour.clamp(0, 23);
    let at = |date: jiff::civil::Date| {
        date.at(hour, 0, 0, 0)
            .to_zoned(utc.clone())
            .map_or(Timestamp::MAX, |zoned| zoned.timestamp())
    };
    let date = after.to_zoned(utc.clone()).date();
    let today = at(date);
    if today > after {
        today
    } else {
        date.tomorrow().map_or(Timestamp::MAX, at)
    }
}

/// "Each day at 21:00 GMT, each player gains from nowhere" eir income, if the
/// income is due at `now`.
pub fn pay_income(state: &State, numbers: &Numbers, now: Timestamp) -> Vec<Event> {
    let Some(due) = state.next_income else {
        return Vec::new();
    };
    if due > now || end_of(state, numbers).is_some_and(|end| due >= end) {
        return Vec::new();
    }
    let mut events: Vec<Event> = state
        .income()
        .into_iter()
        .filter(|(_, amount)| amount.0.is_positive())
        .map(|(id, amount)| Event::Transferred {
            from: None,
            to: Some(id),
            amount,
            why: "income".into(),
        })
        .collect();
    events.push(Event::IncomePaid {
        next: next_daily(due, numbers.income_hour),
    });
    events
}

/// Why a stored location change cannot be executed now, if it cannot:
/// "when a player's location is a vertex of Space, e may change it to an
/// adjacent vertex"; "when a player's location is nowhere, e may change it
/// to any vertex of Space".
fn location_change_refused(state: &State, player: u32, to: Coords) -> Option<String> {
    let Some(p) = state.player(player).filter(|p| p.playing) else {
        return Some(format!("player {player} is no longer in the game"));
    };
    if state.space.vertex(to).is_none() {
        return Some(format!(
            "{}'s: Space has no vertex {}",
            p.name,
            graph::show(to)
        ));
    }
    match p.location {
        None => None,
        Some(from) if state.space.adjacent(from, to) => None,
        Some(from) => Some(format!(
            "{}'s: {} is not adjacent to {}, where {} is",
            p.name,
            graph::show(to),
            graph::show(from),
            p.name
        )),
    }
}

/// "when a player's location is graphwise equidistant from the locations
/// (other than nowhere) of all other players with the same mirror-state, e
/// may change eir mirror-state". Nowhere, or no path, is infinitely far.
fn mirror_change_refused(state: &State, player: u32) -> Option<String> {
    let Some(p) = state.player(player).filter(|p| p.playing) else {
        return Some(format!("player {player} is no longer in the game"));
    };
    let distances = p
        .location
        .map(|at| state.space.distances(at))
        .unwrap_or_default();
    let mut seen: Vec<Option<u64>> = state
        .players
        .iter()
        .filter(|o| o.playing && o.id != p.id && o.mirror == p.mirror)
        .filter_map(|o| o.location)
        .map(|at| distances.get(&at).copied())
        .collect();
    seen.dedup();
    (seen.len() > 1).then(|| {
        format!(
            "{}'s mirror-state: {} is not graphwise equidistant from the players of the same mirror-state",
            p.name,
            p.location.map_or_else(|| "nowhere".to_owned(), graph::show)
        )
    })
}

/// One stored location change: a vertex to go to, or the mirror-state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LocationChange {
    To(u32, Coords),
    Mirror(u32),
}

/// The most location changes whose every order is tried.
const MOST_ORDERS: usize = 7;

/// "At the evaluation time [...] if there is an unambiguous way to execute all
/// moves of this type then this occurs": the stored location changes are
/// executed in the first order in which every one of them is allowed when its
/// turn comes (each player changes only eir own location or mirror-state, so
/// every such order ends the same); when there is none, none is executed.
pub fn evaluate_moves(state: &State, numbers: &Numbers, now: Timestamp) -> Vec<Event> {
    let Some(due) = state.next_evaluation else {
        return Vec::new();
    };
    if due > now || end_of(state, numbers).is_some_and(|end| due >= end) {
        return Vec::new();
    }
    let mut scratch = Scratch {
        state: state.clone(),
        events: Vec::new(),
        numbers,
        now: due,
    };
    let period = numbers.location_period_days.max(1);
    let next = (0..period).fold(due, |at, _| next_daily(at, numbers.evaluation_hour));
    let changes: Vec<LocationChange> = state
        .location_moves
        .iter()
        .map(|(player, to)| LocationChange::To(*player, *to))
        .chain(
            state
                .mirror_moves
                .iter()
                .map(|p| LocationChange::Mirror(*p)),
        )
        .collect();
    let mut orders = Vec::new();
    if changes.len() <= MOST_ORDERS {
        permutations(&mut (0..changes.len()).collect(), 0, &mut orders);
    } else {
        orders.push((0..changes.len()).collect());
    }
    let mut first_why = None;
    let mut found = None;
    for order in orders {
        let mut trial = state.clone();
        let mut events = Vec::new();
        let mut refused = None;
        for index in &order {
            let (why, event) = match changes[*index] {
                LocationChange::To(id, to) => (
                    location_change_refused(&trial, id, to),
                    Event::Moved { id, to },
                ),
                LocationChange::Mirror(id) => (
                    mirror_change_refused(&trial, id),
                    Event::MirrorChanged { id },
                ),
            };
            if let Some(why) = why {
                refused = Some(why);
                break;
            }
            trial.apply_event(&event, due);
            events.push(event);
        }
        match refused {
            Some(why) => {
                first_why.get_or_insert(why);
            }
            None => {
                found = Some(events);
                break;
            }
        }
    }
    let Some(events) = found else {
        scratch.record(Event::MovesEvaluated {
            executed: false,
            why: format!(
                "no location change is executed, since not all can be: {}",
                first_why.unwrap_or_default()
            ),
            next,
        });
        return scratch.events;
    };
    for event in events {
        let id = match &event {
            Event::Moved { id, .. } | Event::MirrorChanged { id } => *id,
            _ => continue,
        };
        scratch.record(event);
        scratch.acted(id);
    }
    scratch.record(Event::MovesEvaluated {
        executed: true,
        why: String::new(),
        next,
    });
    scratch.settle();
    scratch.events
}

fn permutations(items: &mut Vec<usize>, from: usize, out: &mut Vec<Vec<usize>>) {
    if from >= items.len() {
        out.push(items.clone());
        return;
    }
    for i in from..items.len() {
        items.swap(from, i);
        permutations(items, from + 1, out);
        items.swap(from, i);
    }
}

/// "If a proposal has existed for at least 16 days and has not been refreshed
/// in the last 16 days, it is destroyed": the instant that happens.
fn expiry(numbers: &Numbers, from: Timestamp) -> Timestamp {
    after_days(from, numbers.refresh_days)
}

fn after_days(from: Timestamp, days: i64) -> Timestamp {
    let days = jiff::SignedDuration::from_hours(days.saturating_mul(24));
    from.checked_add(days).unwrap_or(Timestamp::MAX)
}

/// The instants of the activity rules, for the deadline: accusations due, and
/// removals after 25 days inactive.
pub fn next_activity_deadline(state: &State) -> Option<Timestamp> {
    let accusations = state.accusations.iter().map(|a| a.due);
    let removals = state
        .players
        .iter()
        .filter(|p| p.playing && !p.active)
        .filter_map(|p| p.removal_at);
    accusations
        .chain(removals)
        .filter(|at| state.end.is_none_or(|end| *at < end))
        .min()
}

/// "Any player who was accused of inactivity by another player 7 days ago and
/// has not performed an action or a move in the last 7 days has eir activity
/// state set to false." "If a player has been inactive for 25 days, and e did
/// not most recently become inactive by pausing, e is completely removed from
/// the game." Every such instant due by `now`, in order.
pub fn activity_rules(state: &State, numbers: &Numbers, now: Timestamp) -> Vec<Event> {
    let mut scratch = Scratch {
        state: state.clone(),
        events: Vec::new(),
        numbers,
        now,
    };
    while let Some(at) = next_activity_deadline(&scratch.state).filter(|at| *at <= now) {
        scratch.now = at;
        let due: Vec<Accusation> = scratch
            .state
            .accusations
            .iter()
            .filter(|a| a.due == at)
            .cloned()
            .collect();
        for accusation in due {
            scratch.record(Event::AccusationDue {
                accused: accusation.accused,
                at: accusation.at,
            });
            let idle = scratch
                .state
                .player(accusation.accused)
                .is_some_and(|p| p.active && p.last_acted.is_none_or(|t| t < accusation.at));
            if idle {
                scratch.record(Event::Activity {
                    id: accusation.accused,
                    active: false,
                    paused: false,
                    removal_at: Some(after_days(at, numbers.removal_days)),
                });
            }
        }
        let removed: Vec<u32> = scratch
            .state
            .players
            .iter()
            .filter(|p| p.playing && !p.active)
            .filter(|p| p.removal_at.is_some_and(|removal| removal <= at))
            .map(|p| p.id)
            .collect();
        for id in removed {
            scratch.record(Event::Removed { id });
        }
        scratch.settle();
    }
    scratch.events
}

/// Proposals unrefreshed for 16 days are destroyed at `now`.
pub fn expire(state: &State, numbers: &Numbers, now: Timestamp) -> Vec<Event> {
    let ended = |at: Timestamp| end_of(state, numbers).is_some_and(|end| at >= end);
    state
        .proposals
        .iter()
        .filter(|p| p.expires_at <= now && !ended(p.expires_at))
        .map(|p| Event::Destroyed {
            name: p.name.clone(),
            why: format!("not refreshed for {} days", numbers.refresh_days),
        })
        .collect()
}

#[cfg(test)]
mod tests;
