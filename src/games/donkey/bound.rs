//! What of rule 1213 the bot follows now: Grab-a-Donkey is one mechanic bound
//! to the rule (`rule` under `[donkey]`, 1213 by default), each of its numbers
//! to the words of rule 1213/9 (the baseline, `rules/ackanomic-1209-1250.txt`).
//! "once per calendar month" is a parameter (`calls_per_month`) the registry
//! cannot bind: "once" is no number a rule's amendment could change in place.

use std::sync::OnceLock;

use super::{Donkey, Params};
use crate::engine::game::{Game, View};
use crate::engine::ruleset::bindings::{self, Declared, Mechanic, Parameter, Status};

/// The rule number the text gives Grab-a-Donkey.
pub const RULE: u32 = 1213;

const PAGE: &str = include_str!("../../../rules/ackanomic-1209-1250.txt");

/// Rule 1213/9's text as the page gives it: the baseline.
pub fn baseline() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| crate::engine::ruleset::rule_text(PAGE, RULE).unwrap_or_default())
}

pub fn declared(params: &Params) -> Declared {
    let p = |name, words, value| Parameter { name, words, value };
    Declared {
        game: <Donkey as Game>::NAME,
        mechanics: vec![Mechanic {
            name: "Grab-a-Donkey",
            rule: params.rule,
            parameters: vec![
                p(
                    "claim_after_days",
                    "at least 60 days since the most recent game",
                    i64::from(params.claim_after_days),
                ),
                p(
                    "min_round_days",
                    "no less than one full day",
                    i64::from(params.min_round_days),
                ),
                p(
                    "max_round_days",
                    "no more than 3 full days",
                    i64::from(params.max_round_days),
                ),
                p("belt_points", "awarded 3 Points", params.belt_points),
                p(
                    "successor_days",
                    "within three days",
                    i64::from(params.successor_days),
                ),
            ],
        }],
        baseline: vec![(params.rule, baseline())],
        text: "ackanomic",
    }
}

/// Rule 1213 as it stands in the registry.
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
            view.ruleset.binding(<Donkey as Game>::NAME, params.rule),
            view.baseline_when_unrecorded,
            view.bound,
        );
        Bound {
            binding,
            params: params.clone(),
        }
    }

    /// Why nothing of the rule is done now, if so: repealed, held, off.
    pub fn stopped(&self) -> Option<String> {
        match &self.binding.status {
            Status::Follows => None,
            Status::Stopped { why } => Some(why.clone()),
            Status::Held { .. } => Some("held for a moderator's ruling".to_owned()),
            Status::Off { reason } => Some(format!("switched off: {reason}")),
        }
    }

    /// Repealed, void or gone from the ruleset: Grab-a-Donkey is no more.
    pub fn repealed(&self) -> bool {
        matches!(self.binding.status, Status::Stopped { .. })
    }

    fn value(&self, name: &str, start: i64) -> i64 {
        self.binding
            .values
            .iter()
            .find(|(n, _)| n == name)
            .map_or(start, |(_, v)| *v)
    }

    /// The parameters with every bound number as rule 1213 now says.
    pub fn numbers(&self) -> Params {
        let mut n = self.params.clone();
        let days =
            |name, start: u32| u32::try_from(self.value(name, i64::from(start))).unwrap_or(start);
        n.claim_after_days = days("claim_after_days", n.claim_after_days);
        n.min_round_days = days("min_round_days", n.min_round_days);
        n.max_round_days = days("max_round_days", n.max_round_days);
        n.successor_days = days("successor_days", n.successor_days);
        n.belt_points = self.value("belt_points", n.belt_points);
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bound_number_of_rule_1213_stands_in_its_words() {
        let text = baseline();
        assert!(
            text.starts_with("Create a game known as Grab-a-Donkey"),
            "{text}"
        );
        let params = Params::default();
        for parameter in declared(&params).parameters_of(params.rule) {
            assert!(text.contains(parameter.words), "{}", parameter.name);
        }
        let all = declared(&params);
        let parameters = all.parameters_of(params.rule);
        let amended = text.replacen("awarded 3 Points", "awarded 5 Points", 1);
        assert_eq!(
            bindings::numbers_changed(text, &amended, &parameters),
            Ok(vec![("belt_points".to_owned(), 5)])
        );
    }
}
