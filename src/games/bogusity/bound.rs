//! What of rule 1211 §8 the hearings follow now (issue 22): the hearing bound
//! to rule 1211 (`[bogusity] rule`, the text's number by default), §8's
//! numbers bound to the words they stand in, and the text of Ackanomic rule
//! 1211/3 as the baseline (`rules/ackanomic-1209-1250.txt`). The game reads
//! §8's numbers only here: `Bound::of` decides the rule against the registry
//! as it stands in the transaction, over the moderators' rulings recorded
//! there.
//!
//! `[boons]` binds the rest of the rule's numbers: both games follow the one
//! rule, and `bindings::decide` reads an amendment of a number either binds as
//! a change of numbers for both.

use std::num::NonZeroU32;
use std::sync::OnceLock;

use super::{Bogusity, Params};
use crate::engine::game::{Game, View};
use crate::engine::ruleset::bindings::{self, Declared, Mechanic, Parameter, Status};

/// The text's number of the rule of the Boons of the Ancients.
pub const RULE: u32 = 1211;

const PAGE: &str = include_str!("../../../rules/ackanomic-1209-1250.txt");

/// Rule 1211/3's text as the page gives it: the baseline.
pub fn baseline() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| crate::engine::ruleset::rule_text(PAGE, RULE).unwrap_or_default())
}

/// The page the baseline comes from, as the operator would import it.
pub fn page() -> &'static str {
    PAGE
}

/// Every mechanic of the game with its rule and numbers (`Game::bindings`).
pub fn declared(params: &Params) -> Declared {
    let rule = params.rule;
    let p = |name, words, value| Parameter { name, words, value };
    let mechanic = |name, parameters| Mechanic {
        name,
        rule,
        parameters,
    };
    Declared {
        game: <Bogusity as Game>::NAME,
        mechanics: vec![
            mechanic(
                "the three days to call a Bogusity Hearing (§8)",
                vec![p(
                    "call_days",
                    "call a Bogusity Hearing within three days",
                    i64::from(params.call_days.get()),
                )],
            ),
            mechanic(
                "the points a Bogus describer loses (§8)",
                vec![p(
                    "bogus_penalty",
                    "loses 11 points",
                    i64::from(params.bogus_penalty),
                )],
            ),
            mechanic("the hearing's responses and result (§8)", vec![]),
        ],
        baseline: vec![(rule, baseline())],
        text: "ackanomic",
    }
}

/// What the game does with rule 1211 now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Now {
    Follows,
    /// Changed otherwise than in its numbers: waits for a moderator's ruling.
    Held(String),
    /// Not in effect (repealed, void, absent) or switched off by a moderator.
    Stopped(String),
}

/// Rule 1211 as it stands: what the game applies, and with which numbers.
pub struct Bound {
    binding: bindings::Binding,
    params: Params,
}

impl Bound {
    pub fn of(view: &View<'_>, params: &Params) -> Bound {
        let declared = declared(params);
        let binding = bindings::decide(
            view.ruleset,
            &declared,
            params.rule,
            view.ruleset.binding(<Bogusity as Game>::NAME, params.rule),
            view.baseline_when_unrecorded,
            view.bound,
        );
        Bound {
            binding,
            params: params.clone(),
        }
    }

    pub fn now(&self) -> Now {
        match &self.binding.status {
            Status::Follows => Now::Follows,
            Status::Held { difference } => Now::Held(difference.clone()),
            Status::Stopped { why } => Now::Stopped(why.clone()),
            Status::Off { reason } => {
                Now::Stopped(format!("switched off by a moderator: {reason}"))
            }
        }
    }

    fn value(&self, name: &str, start: i64) -> i64 {
        self.binding
            .values
            .iter()
            .find(|(n, _)| n == name)
            .map_or(start, |(_, v)| *v)
    }

    /// bot.toml's `[bogusity]` with §8's numbers as the rule now says them.
    pub fn params(&self) -> Params {
        let mut params = self.params.clone();
        params.call_days =
            u32::try_from(self.value("call_days", i64::from(params.call_days.get())))
                .ok()
                .and_then(NonZeroU32::new)
                .unwrap_or(params.call_days);
        params.bogus_penalty =
            u32::try_from(self.value("bogus_penalty", i64::from(params.bogus_penalty)))
                .unwrap_or(params.bogus_penalty);
        params
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bound_number_stands_in_the_baseline() {
        let declared = declared(&Params::default());
        let baseline = declared.baseline_of(RULE).unwrap();
        for parameter in declared.parameters_of(RULE) {
            assert!(baseline.contains(parameter.words), "{}", parameter.words);
        }
        let amended = baseline.replacen("loses 11 points", "loses 15 points", 1);
        assert_eq!(
            bindings::numbers_changed(baseline, &amended, &declared.parameters_of(RULE)),
            Ok(vec![("bogus_penalty".to_owned(), 15)])
        );
    }
}
