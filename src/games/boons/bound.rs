//! What of rule 1211 the Boons follow now (issue 22): the game's mechanics
//! bound to rule 1211 (`[boons] rule`, the text's number by default), each
//! number of the text the game uses bound to the words it stands in, and the
//! text of Ackanomic rule 1211/3 as the baseline
//! (`rules/ackanomic-1209-1250.txt`). The game reads the rule's numbers only
//! here: `Bound::of` decides the rule against the registry as it stands in the
//! transaction, over the moderators' rulings recorded there.
//!
//! `[bogusity]` binds §8's numbers: both games follow the one rule, and
//! `bindings::decide` reads an amendment of a number either binds as a change
//! of numbers for both.

use std::num::NonZeroU32;
use std::sync::OnceLock;

use super::{Boons, Params};
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

/// §9's weights, by the Boon's letter: the words "(45)" stands in.
const WEIGHTS: [(&str, &str, &str, u32); 8] = [
    ("a", "weight_a", "Gadgets, is bestowed (45)", 45),
    ("b", "weight_b", "Otzma Card, is bestowed (25)", 25),
    ("c", "weight_c", "Bonus Vote is bestowed (10)", 10),
    ("d", "weight_d", "as above (7)", 7),
    ("e", "weight_e", "(Must Describe) (5)", 5),
    ("f", "weight_f", "which the player Must Describe (5)", 5),
    ("g", "weight_g", "pointy ears (2)", 2),
    ("h", "weight_h", "to the player. (1)", 1),
];

/// Every mechanic of the game with its rule and numbers (`Game::bindings`).
pub fn declared(params: &Params) -> Declared {
    let rule = params.rule;
    let p = |name, words, value| Parameter { name, words, value };
    let days = |d: NonZeroU32| i64::from(d.get());
    let list = &params.list;
    let trinket = list
        .iter()
        .find(|b| b.key == "d")
        .and_then(|b| b.from_treasury)
        .unwrap_or(75);
    let weights = WEIGHTS
        .iter()
        .map(|(key, name, words, text)| {
            let value = list
                .iter()
                .find(|b| b.key == *key)
                .map_or(*text, |b| b.weight);
            p(*name, *words, i64::from(value))
        })
        .collect();
    let mechanic = |name, parameters| Mechanic {
        name,
        rule,
        parameters,
    };
    Declared {
        game: <Boons as Game>::NAME,
        mechanics: vec![
            mechanic(
                "the deterministic method's days to choose (§3)",
                vec![
                    p(
                        "choose_days",
                        "has 3 days to choose",
                        days(params.choose_days),
                    ),
                    p(
                        "choose_days",
                        "if three days pass",
                        days(params.choose_days),
                    ),
                ],
            ),
            mechanic("the random method's weights (§4, §9)", weights),
            mechanic(
                "the days to describe a Must Describe Boon (§6)",
                vec![p(
                    "describe_days",
                    "has 3 days to post a description",
                    days(params.describe_days),
                )],
            ),
            mechanic(
                "the creation of a described Boon (§7)",
                vec![p(
                    "create_days",
                    "created 7 days after their description",
                    days(params.create_days),
                )],
            ),
            mechanic(
                "the Trinket's A$ from the Treasury (§9 d)",
                vec![
                    p("trinket_value", "A Trinket of value A$75", trinket),
                    p("trinket_treasury", "A$75 in the Treasury", trinket),
                ],
            ),
        ],
        baseline: vec![(rule, baseline())],
        text: "ackanomic",
    }
}

/// What the game does with rule 1211 now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Now {
    /// Applies it, with the numbers of `Bound::params`.
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
            view.ruleset.binding(<Boons as Game>::NAME, params.rule),
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

    fn days(&self, name: &str, start: NonZeroU32) -> NonZeroU32 {
        u32::try_from(self.value(name, i64::from(start.get())))
            .ok()
            .and_then(NonZeroU32::new)
            .unwrap_or(start)
    }

    /// bot.toml's `[boons]` with the rule's numbers as it now says them.
    pub fn params(&self) -> Params {
        let mut params = self.params.clone();
        params.choose_days = self.days("choose_days", params.choose_days);
        params.describe_days = self.days("describe_days", params.describe_days);
        params.create_days = self.days("create_days", params.create_days);
        for boon in &mut params.list {
            if let Some((_, name, _, _)) = WEIGHTS.iter().find(|(key, ..)| *key == boon.key) {
                boon.weight =
                    u32::try_from(self.value(name, i64::from(boon.weight))).unwrap_or(boon.weight);
            }
            if let Some(amount) = boon.from_treasury {
                boon.from_treasury = Some(self.value("trinket_treasury", amount));
            }
        }
        params
    }

    /// (d)'s "A Trinket of value A$75", as the rule now says it.
    pub fn trinket_value(&self, start: i64) -> i64 {
        self.value("trinket_value", start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The number in `words` written otherwise: digits plus one, a word as
    /// another word.
    fn other(words: &str) -> String {
        let mut out = String::new();
        let mut digits = String::new();
        for c in words.chars().chain(std::iter::once(' ')) {
            if c.is_ascii_digit() {
                digits.push(c);
                continue;
            }
            if !digits.is_empty() {
                let n: u64 = digits.parse().unwrap();
                out.push_str(&(n + 1).to_string());
                digits.clear();
            }
            out.push(c);
        }
        out.trim_end().replacen("three", "four", 1)
    }

    #[test]
    fn every_bound_number_stands_in_the_baseline_and_is_read_when_amended() {
        let declared = declared(&Params::default());
        let baseline = declared.baseline_of(RULE).unwrap();
        assert!(
            baseline.contains("Boons may either be bestowed"),
            "{baseline}"
        );
        for parameter in declared.parameters_of(RULE) {
            assert!(baseline.contains(parameter.words), "{}", parameter.words);
            let amended = baseline.replacen(parameter.words, &other(parameter.words), 1);
            let values = bindings::numbers_changed(baseline, &amended, &[parameter])
                .unwrap_or_else(|e| panic!("{}: {e}", parameter.words));
            assert_eq!(values.len(), 1, "{}", parameter.words);
            assert_eq!(values[0].0, parameter.name);
        }
    }
}
