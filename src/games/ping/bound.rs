//! What of rule 1209 the bot follows now. The Machine is one mechanic bound to
//! the rule (by number, `rule` under `[ping]`, 1209 by default), each of its
//! numbers to the words of the rule it comes from, and rule 1209/14 as the
//! baseline (`rules/ackanomic-1209-1250.txt`, the text the bot implements). The
//! game reads the rule's numbers only here: `Bound::of` decides the rule against
//! the registry as it stands in the transaction, over the moderators' rulings
//! recorded in the registry. Pure.

use std::sync::OnceLock;

use super::{Params, Ping};
use crate::engine::game::{Game, View};
use crate::engine::ruleset::bindings::{self, Declared, Mechanic, Parameter, Status};

/// The rule number the text gives the Machine.
pub const RULE: u32 = 1209;

const PAGE: &str = include_str!("../../../rules/ackanomic-1209-1250.txt");

/// Rule 1209/14's text as the page gives it (its header, title and author
/// aside): the baseline.
pub fn baseline() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| crate::engine::ruleset::rule_text(PAGE, RULE).unwrap_or_default())
}

/// The Machine's mechanic with the rule and its numbers (`Game::bindings`).
/// Each number's words are the baseline's, verbatim, at the first place the
/// number is written; a number the rule writes twice (§III's seven days to
/// announce, §VII's six pings) is bound where it first stands, so an amendment
/// of the other place alone is held for a ruling.
pub fn declared(params: &Params) -> Declared {
    let p = |name, words, value| Parameter { name, words, value };
    let mechanics = vec![Mechanic {
        name: "the Machine That Goes *ping*",
        rule: params.rule,
        parameters: vec![
            p(
                "quack_days",
                "Within seven days of a player receiving this title",
                i64::from(params.quack_days),
            ),
            p(
                "max_words",
                "no more than twelve words",
                params.max_words as i64,
            ),
            p(
                "silent_days",
                "for any seven consecutive calendar days",
                i64::from(params.silent_days),
            ),
            p(
                "pinging_days",
                "for any fourteen consecutive calendar days",
                i64::from(params.pinging_days),
            ),
            p(
                "late_days",
                "during the next two days",
                i64::from(params.late_days),
            ),
            p(
                "guess_fine",
                "pay a fine of A$ 10",
                i64::from(params.guess_fine),
            ),
            p(
                "magic_after_pings",
                "at least six times since a Magic Letter was named",
                i64::from(params.magic_after_pings),
            ),
            p("premium_vowel", "cost A$25", params.premium_vowel),
            p("premium_consonant", "cost A$15", params.premium_consonant),
            p("premium_other", "cost A$5", params.premium_other),
            p(
                "reveal_after_pings",
                "has gone *ping* thirty times",
                i64::from(params.reveal_after_pings),
            ),
        ],
    }];
    Declared {
        game: <Ping as Game>::NAME,
        mechanics,
        baseline: vec![(params.rule, baseline())],
        text: "ackanomic",
    }
}

/// Whether the bot applies rule 1209 now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Following {
    /// Applied, with its numbers as they now stand.
    Follows,
    /// Not in effect (repealed, void, absent): the Machine is no more.
    Stopped { why: String },
    /// Changed otherwise than in its numbers: everything waits for a ruling.
    Held,
    /// A moderator switched it off: everything waits for another ruling.
    Off { reason: String },
}

/// Rule 1209 as it stands: whether the bot applies it, and with which numbers.
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
            view.ruleset.binding(<Ping as Game>::NAME, params.rule),
            view.baseline_when_unrecorded,
            view.bound,
        );
        Bound {
            binding,
            params: params.clone(),
        }
    }

    pub fn following(&self) -> Following {
        match &self.binding.status {
            Status::Follows => Following::Follows,
            Status::Stopped { why } => Following::Stopped { why: why.clone() },
            Status::Held { .. } => Following::Held,
            Status::Off { reason } => Following::Off {
                reason: reason.clone(),
            },
        }
    }

    /// Held for a ruling or switched off: what depends on the rule waits.
    pub fn waits(&self) -> bool {
        matches!(self.following(), Following::Held | Following::Off { .. })
    }

    pub fn rule(&self) -> u32 {
        self.params.rule
    }

    fn value(&self, name: &str, start: i64) -> i64 {
        self.binding
            .values
            .iter()
            .find(|(n, _)| n == name)
            .map_or(start, |(_, v)| *v)
    }

    /// The game's parameters with every bound number as rule 1209 now says
    /// (a number the rule gives out of range keeps the configured one).
    pub fn numbers(&self) -> Params {
        let mut n = self.params.clone();
        let days =
            |name, start: u32| u32::try_from(self.value(name, i64::from(start))).unwrap_or(start);
        n.quack_days = days("quack_days", n.quack_days);
        n.silent_days = days("silent_days", n.silent_days);
        n.pinging_days = days("pinging_days", n.pinging_days);
        n.late_days = days("late_days", n.late_days);
        n.guess_fine = days("guess_fine", n.guess_fine);
        n.magic_after_pings = days("magic_after_pings", n.magic_after_pings);
        n.reveal_after_pings = days("reveal_after_pings", n.reveal_after_pings);
        n.max_words =
            usize::try_from(self.value("max_words", n.max_words as i64)).unwrap_or(n.max_words);
        n.premium_vowel = self.value("premium_vowel", n.premium_vowel);
        n.premium_consonant = self.value("premium_consonant", n.premium_consonant);
        n.premium_other = self.value("premium_other", n.premium_other);
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bound_number_stands_in_the_baseline_in_its_words() {
        let text = baseline();
        assert!(
            text.starts_with("I. There exists the unique entity"),
            "{text}"
        );
        assert!(text.ends_with("determine and report its new location."));
        let params = Params::default();
        for parameter in declared(&params).parameters_of(params.rule) {
            assert!(
                text.contains(parameter.words),
                "{}: {:?}",
                parameter.name,
                parameter.words
            );
        }
        // Amending one bound number is read as that number alone.
        let all = declared(&params);
        let parameters = all.parameters_of(params.rule);
        for (from, to, name, value) in [
            ("a fine of A$ 10", "a fine of A$ 20", "guess_fine", 20),
            (
                "gone *ping* thirty times",
                "gone *ping* forty times",
                "reveal_after_pings",
                40,
            ),
            (
                "no more than twelve words",
                "no more than ten words",
                "max_words",
                10,
            ),
            ("cost A$15", "cost A$12", "premium_consonant", 12),
        ] {
            let amended = text.replacen(from, to, 1);
            assert_eq!(
                bindings::numbers_changed(text, &amended, &parameters),
                Ok(vec![(name.to_owned(), value)]),
                "{from}"
            );
        }
    }
}
