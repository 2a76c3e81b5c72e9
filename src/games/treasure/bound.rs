//! What of rule 1217 Buried Treasure follows: its mechanics bound to rule 1217
//! (`[treasure] rule`, the text's number by default), with the text of
//! Ackanomic rule 1217/7 as the baseline (`rules/ackanomic-1209-1250.txt`).
//! The rule states no number the game computes with, so no parameter is bound.

use std::sync::OnceLock;

use super::{Params, Treasure};
use crate::engine::game::{Game, View};
use crate::engine::ruleset::bindings::{self, Declared, Mechanic, Status};

/// The text's number of the rule of Buried Treasure.
pub const RULE: u32 = 1217;

const PAGE: &str = include_str!("../../../rules/ackanomic-1209-1250.txt");

/// Rule 1217/7's text as the page gives it: the baseline.
pub fn baseline() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| crate::engine::ruleset::rule_text(PAGE, RULE).unwrap_or_default())
}

/// Every mechanic of the game with its rule (`Game::bindings`).
pub fn declared(params: &Params) -> Declared {
    let rule = params.rule;
    let mechanic = |name| Mechanic {
        name,
        rule,
        parameters: Vec::new(),
    };
    Declared {
        game: <Treasure as Game>::NAME,
        mechanics: vec![
            mechanic("burying Treasure"),
            mechanic("the Treasure Map, kept secret and disclosed by its writer"),
            mechanic("finding Treasure, and the Chartreuse Goose"),
            mechanic("map custodians, the Treasure-Harfer and lost maps"),
            mechanic("empty treasures"),
        ],
        baseline: vec![(rule, baseline())],
        text: "ackanomic",
    }
}

/// Why nothing of rule 1217 is done now (repealed, void, held for a
/// moderator's ruling, switched off), if so: decided against the registry as
/// it stands in the transaction.
pub fn stopped(view: &View<'_>, params: &Params) -> Option<String> {
    let binding = bindings::decide(
        view.ruleset,
        &declared(params),
        params.rule,
        view.ruleset.binding(<Treasure as Game>::NAME, params.rule),
        view.baseline_when_unrecorded,
        view.bound,
    );
    match binding.status {
        Status::Follows => None,
        Status::Stopped { why } => Some(why),
        Status::Held { .. } => Some("held for a moderator's ruling".to_owned()),
        Status::Off { reason } => Some(format!("switched off: {reason}")),
    }
}
