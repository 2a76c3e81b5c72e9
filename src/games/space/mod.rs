//! `[space]`: the Space Nomic (`rules/space-nomic-ruleset.txt`), a complete
//! small nomic run whole by the bot: players, exact rational money, the
//! ruleset it carries as its own state, proposals decided at the instant the
//! outcome can no longer change, transfers, Space (a graph with owners),
//! moves (location changes daily, space changes every six days, executed
//! all or none), daily income, activity and accusations, the end.
//! `engine.rs` decides, purely; `rules.rs` records and announces (and seals
//! private moves in the shared sealed box); `bound.rs` finds the text's rules
//! in the registry by name and stops each mechanic with its rule.

pub mod bound;
pub mod changes;
pub mod engine;
pub mod graph;
mod parse;
pub mod picture;
mod rules;
mod sample;

use serde::{Deserialize, Serialize};

use crate::engine::calendar::Deadline;
use crate::engine::game::{Game, Secrecy, Tick, Tx, View};
use crate::engine::{Ctx, NotUnderstood, Refusal, Sentence, Timestamp};
use engine::{Money, Numbers};

pub const TAG: &str = "space";

/// The text the game starts its ruleset from.
pub const TEXT: &str = include_str!("../../../rules/space-nomic-ruleset.txt");

/// The Space Nomic.
pub struct Space;

pub use engine::{Event, State};

/// `[space]` in bot.toml: every number of the text, with the text's value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// The registry's number of "Space Nomic 1" (the text's first paragraph),
    /// the others counted on from it: an override for a moderator who
    /// renumbered. Without it the game finds each paragraph's rule by its
    /// name, "Space Nomic 1" to "Space Nomic 54" (`bound.rs`).
    pub first_rule: Option<u32>,
    pub starting_money: Money,
    pub pass_reward: Money,
    pub fail_fine: Money,
    pub vote_reward: Money,
    pub refresh_days: i64,
    /// "The game ends on 19 February 2005 just before 23:22:19 GMT".
    pub end: Timestamp,
    /// The colour of the text's own rules, which the text does not give.
    pub starting_colour: String,
    /// "if e transfers 32 money units to nowhere".
    pub vertex_price: Money,
    /// Space as the game starts, `[x, y]` each: the text gives none.
    pub vertices: Vec<[i64; 2]>,
    /// Its edges, `[[x, y], [x, y]]` each.
    pub edges: Vec<[[i64; 2]; 2]>,
    /// "Each day at 21:00 GMT": the hour of the daily income.
    pub income_hour: i8,
    /// "12.00 GMT": the hour of the evaluation of moves.
    pub evaluation_hour: i8,
    /// "with a period length of one day": location changes, in days.
    pub location_period_days: i64,
    /// "accused of inactivity by another player 7 days ago".
    pub accusation_days: i64,
    /// "If a player has been inactive for 25 days".
    pub removal_days: i64,
    /// "with a period length of six days": space changes, in days.
    pub space_period_days: i64,
    /// The permutation phi of the types of moves: "location" and "space".
    pub phi: Vec<String>,
    /// Days between the bot's reports of the gamestate to the list.
    pub report_days: i64,
    /// Whether `increment PLAYER` is allowed: the text defines "incrementing
    /// a player" but no rule of it lets anyone do it, so false (refused)
    /// until a moderator rules that a rule now allows it.
    pub incrementing: bool,
}

impl Default for Params {
    fn default() -> Params {
        let numbers = Numbers::default();
        Params {
            first_rule: None,
            starting_money: numbers.starting_money,
            pass_reward: numbers.pass_reward,
            fail_fine: numbers.fail_fine,
            vote_reward: numbers.vote_reward,
            refresh_days: numbers.refresh_days,
            end: the_texts_end(),
            starting_colour: numbers.starting_colour,
            vertex_price: numbers.vertex_price,
            vertices: numbers
                .starting_vertices
                .iter()
                .map(|(x, y)| [*x, *y])
                .collect(),
            edges: numbers
                .starting_edges
                .iter()
                .map(|((ax, ay), (bx, by))| [[*ax, *ay], [*bx, *by]])
                .collect(),
            income_hour: numbers.income_hour,
            evaluation_hour: numbers.evaluation_hour,
            location_period_days: numbers.location_period_days,
            accusation_days: numbers.accusation_days,
            removal_days: numbers.removal_days,
            space_period_days: numbers.space_period_days,
            phi: numbers.phi,
            report_days: numbers.report_days,
            incrementing: numbers.incrementing,
        }
    }
}

/// 19 February 2005, 23:22:19 GMT.
pub fn the_texts_end() -> Timestamp {
    Timestamp::from_second(1_108_855_339).unwrap_or(Timestamp::MAX)
}

#[derive(Debug)]
pub enum Command {
    /// An action of the ruleset, announced on the list.
    Act(engine::Action),
    Rules,
    Status,
}

impl Game for Space {
    const NAME: &'static str = "space";
    const TAGS: &'static [&'static str] = &[TAG];
    type State = State;
    type Event = Event;
    type Command = Command;
    type Params = Params;

    fn parse(line: &str, _tag: &str) -> Result<Command, NotUnderstood> {
        parse::parse(line)
    }

    fn parse_message(
        lines: &[String],
        _tag: &str,
    ) -> Vec<(String, Result<Command, NotUnderstood>)> {
        parse::parse_message(lines)
    }

    fn apply(tx: &mut Tx<'_, Space>, command: Command, ctx: &Ctx) -> Result<Sentence, Refusal> {
        rules::apply(tx, command, ctx)
    }

    fn apply_event(state: &mut State, event: &Event, at: Timestamp) {
        state.apply_event(event, at);
    }

    fn next_deadline(state: &State) -> Option<Timestamp> {
        state.next_deadline()
    }

    fn on_deadline(tx: &mut Tx<'_, Space>, _deadline: &Deadline, _tick: &Tick) {
        rules::reach_end(tx);
        rules::expire(tx);
        rules::activity(tx);
        rules::evaluate_in_phi_order(tx);
        rules::income(tx);
        rules::report(tx);
    }

    fn bindings(params: &Params) -> crate::engine::ruleset::bindings::Declared {
        bound::declared(params)
    }

    fn bindings_in(
        params: &Params,
        ruleset: &crate::engine::ruleset::Ruleset,
    ) -> crate::engine::ruleset::bindings::Declared {
        bound::declared_in(params, Some(ruleset))
    }

    /// A move stored privately is sealed until its evaluation.
    fn secrecy(command: &Command, ctx: &Ctx) -> Secrecy {
        match command {
            Command::Act(action) if !ctx.public && rules::is_move(action) => Secrecy::Secret {
                shown_as: "a move of the Space Nomic, stored privately (revealed at its evaluation)",
            },
            _ => Secrecy::Public,
        }
    }

    /// Without the stored moves: only how many there are.
    fn public_view(state: &State, _view: &View<'_>, _params: &Params) -> serde_json::Value {
        let mut shown = state.clone();
        let stored = (
            shown.location_moves.len() + shown.mirror_moves.len(),
            shown.space_moves.len(),
        );
        shown.location_moves.clear();
        shown.mirror_moves.clear();
        shown.space_moves.clear();
        let mut value = serde_json::to_value(shown).unwrap_or(serde_json::Value::Null);
        value["location_moves"] = serde_json::json!(stored.0);
        value["space_moves"] = serde_json::json!(stored.1);
        value
    }

    /// Space as the weekly report draws it: vertices, owners, who stands where.
    fn pictures(state: &State, _view: &View<'_>) -> Vec<crate::engine::game::Picture> {
        vec![crate::engine::game::Picture {
            name: "space".to_owned(),
            svg: picture::svg(state),
            alt: picture::text(state),
        }]
    }

    fn sample(script: &mut dyn crate::engine::game::Script) {
        sample::sample(script);
    }
}
