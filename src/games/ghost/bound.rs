//! What of rule 103 the bot follows now: every mechanic of the game bound to the
//! rule (by number, `[ghost] rule`, 103 by default), each number the game takes
//! from the text bound to the words it stands in, and the text of
//! `rules/ghost.txt` as the baseline the bot implements. The game reads its
//! numbers only here: `Bound::of` decides the rule against the registry as it
//! stands in the transaction, over the moderators' rulings recorded in it.

use std::sync::OnceLock;

use super::Params;
use super::game::Ghost;
use crate::engine::game::{Game, View};
use crate::engine::ruleset::bindings::{self, Binding, Declared, Mechanic, Parameter, Status};

/// The rule as the project got it: a title line ("103 - Ghost"), the author's
/// line, then the text.
const RULE_TEXT: &str = include_str!("../../../rules/ghost.txt");

/// The rule's number in the text.
pub const RULE_NUMBER: u32 = 103;

/// The text the bot implements: the rule as `nomicbot import-rules ghost`
/// records it, without its title (the number and name are the registry's) and
/// the author's line ("Guy Fawkes", a note like a page's "Enacted by ...").
pub fn baseline() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| {
        crate::engine::ruleset::rule_text(RULE_TEXT, RULE_NUMBER).unwrap_or_default()
    })
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
    let mechanics = vec![
        mechanic(
            "the start of an instance and its players",
            vec![p("min_players", "minimum -- 2", params.min_players as i64)],
        ),
        mechanic(
            "the turns and their clocks",
            vec![p("turn_days", "the lesser of three days", params.turn_days)],
        ),
        mechanic(
            "players added and the protest of an addition",
            vec![p(
                "addition_protest_days",
                "or three days after their addition",
                params.addition_protest_days,
            )],
        ),
        mechanic(
            "plays, protests and their resolution",
            vec![
                p(
                    "word_min_letters",
                    "word of four or more letters",
                    params.word_min_letters as i64,
                ),
                p("answer_days", "has three days to post", params.answer_days),
            ],
        ),
        mechanic(
            "the referee's fee and the winner's points",
            vec![
                p("referee_fee", "shall receive 8 A$", params.referee_fee),
                p(
                    "winner_points_min",
                    "the winner receives four points",
                    params.winner_points_min,
                ),
                p(
                    "winner_points_max",
                    "the winner receives 8 points",
                    params.winner_points_max,
                ),
            ],
        ),
    ];
    Declared {
        game: <Ghost as Game>::NAME,
        mechanics,
        baseline: vec![(rule, baseline())],
        text: "ghost",
    }
}

/// Rule 103 as it stands: whether the bot applies it, and with which numbers.
pub struct Bound {
    binding: Binding,
    params: Params,
}

impl Bound {
    pub fn of(view: &View<'_>, params: &Params) -> Bound {
        let declared = declared(params);
        let binding = bindings::decide(
            view.ruleset,
            &declared,
            params.rule,
            view.ruleset.binding(<Ghost as Game>::NAME, params.rule),
            view.baseline_when_unrecorded,
            view.bound,
        );
        let mut bound = Bound {
            binding,
            params: params.clone(),
        };
        bound.params = bound.overlaid();
        bound
    }

    pub fn rule(&self) -> u32 {
        self.binding.rule
    }

    /// The bot applies the rule (perhaps with amended numbers).
    pub fn follows(&self) -> bool {
        self.binding.status == Status::Follows
    }

    /// The rule changed otherwise than in its numbers: what changed, while it
    /// waits for a moderator's ruling.
    pub fn held(&self) -> Option<&str> {
        match &self.binding.status {
            Status::Held { difference } => Some(difference),
            _ => None,
        }
    }

    /// The rule left effect (repealed, void, not in the ruleset) or a moderator
    /// switched it off: why, in words.
    pub fn stopped(&self) -> Option<String> {
        match &self.binding.status {
            Status::Stopped { why } => Some(why.clone()),
            Status::Off { reason } => Some(format!("switched off by a moderator: {reason}")),
            Status::Follows | Status::Held { .. } => None,
        }
    }

    /// The game's numbers, each as the rule now says (the others as bot.toml's).
    pub fn params(&self) -> &Params {
        &self.params
    }

    fn value(&self, name: &str, start: i64) -> i64 {
        self.binding
            .values
            .iter()
            .find(|(n, _)| n == name)
            .map_or(start, |(_, v)| *v)
    }

    fn overlaid(&self) -> Params {
        let mut p = self.params.clone();
        let count = |value: i64, start: usize| usize::try_from(value).unwrap_or(start);
        p.min_players = count(
            self.value("min_players", p.min_players as i64),
            p.min_players,
        );
        p.word_min_letters = count(
            self.value("word_min_letters", p.word_min_letters as i64),
            p.word_min_letters,
        );
        p.turn_days = self.value("turn_days", p.turn_days);
        p.answer_days = self.value("answer_days", p.answer_days);
        p.addition_protest_days = self.value("addition_protest_days", p.addition_protest_days);
        p.referee_fee = self.value("referee_fee", p.referee_fee);
        p.winner_points_min = self.value("winner_points_min", p.winner_points_min);
        p.winner_points_max = self.value("winner_points_max", p.winner_points_max);
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every bound number's words are in the baseline, the number among them,
    /// once where the text repeats itself: `numbers_changed` finds each.
    #[test]
    fn every_bound_number_stands_in_the_words_of_the_baseline() {
        let declared = declared(&Params::default());
        let parameters = declared.parameters_of(RULE_NUMBER);
        assert_eq!(parameters.len(), 8);
        let flat = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
        let text = flat(baseline());
        for parameter in &parameters {
            assert!(text.contains(parameter.words), "{}", parameter.words);
        }
        // Each number amended alone gives its new value, and only it.
        for parameter in &parameters {
            let words = parameter.words;
            let at = text.find(words).unwrap();
            let number = words
                .split_whitespace()
                .find(|w| bindings::number_of(&w.to_lowercase()).is_some())
                .unwrap();
            let amended_words = words.replacen(number, "17", 1);
            let amended = format!(
                "{}{}{}",
                &text[..at],
                amended_words,
                &text[at + words.len()..]
            );
            assert_eq!(
                bindings::numbers_changed(baseline(), &amended, &parameters),
                Ok(vec![(parameter.name.to_owned(), 17)]),
                "{words}"
            );
        }
        assert!(baseline().starts_with("1. Equipment: none"));
        assert!(baseline().ends_with("the game is suspended"));
    }
}
