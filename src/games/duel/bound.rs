//! What of Ackanomic rule 1215/6 the duels follow now (issue 22): every
//! mechanic bound to rule 1215 (`[duel] rule`, the text's number by default),
//! each number to the words it stands in, and the rule's text as the baseline
//! (`rules/ackanomic-1209-1250.txt`). The game reads the rule's numbers only
//! here: `Bound::of` decides the rule against the registry as it stands.

use std::num::NonZeroU32;
use std::sync::OnceLock;

use super::{Duel, Params};
use crate::engine::game::{Game, View};
use crate::engine::ruleset::bindings::{self, Declared, Mechanic, Parameter, Status};

/// The text's number of the rule of Duels.
pub const RULE: u32 = 1215;

const PAGE: &str = include_str!("../../../rules/ackanomic-1209-1250.txt");

/// Rule 1215/6's text as the page gives it: the baseline.
pub fn baseline() -> &'static str {
    static TEXT: OnceLock<String> = OnceLock::new();
    TEXT.get_or_init(|| crate::engine::ruleset::rule_text(PAGE, RULE).unwrap_or_default())
}

/// Every mechanic of the game with its rule and numbers (`Game::bindings`).
pub fn declared(params: &Params) -> Declared {
    let rule = params.rule;
    let p = |name, words, value: u32| Parameter {
        name,
        words,
        value: i64::from(value),
    };
    let mechanic = |name, parameters| Mechanic {
        name,
        rule,
        parameters,
    };
    Declared {
        game: <Duel as Game>::NAME,
        mechanics: vec![
            mechanic(
                "the challenge and the Challenged player's answer (§2)",
                vec![p(
                    "answer_days",
                    "has 3 days to find another player",
                    params.answer_days.get(),
                )],
            ),
            mechanic(
                "the points of a Duel's end (§2)",
                vec![
                    p(
                        "winner_points",
                        "receives 6 points in addition",
                        params.winner_points,
                    ),
                    p(
                        "loser_points",
                        "loses 6 points in addition",
                        params.loser_points,
                    ),
                    p(
                        "second_winner_points",
                        "The winner's Second receives 3 points",
                        params.second_winner_points,
                    ),
                    p(
                        "second_loser_points",
                        "the loser's Second loses 3 points",
                        params.second_loser_points,
                    ),
                ],
            ),
            mechanic(
                "the points of a forfeit (§3)",
                vec![
                    p(
                        "forfeit_loss",
                        "the Challenged player loses 6 points",
                        params.forfeit_loss,
                    ),
                    p(
                        "forfeit_gain",
                        "the Challenging player gains 6 points",
                        params.forfeit_gain,
                    ),
                ],
            ),
            mechanic(
                "who is Untouchable (§4 a-e, h)",
                vec![
                    p(
                        "announced_vacation_days",
                        "or for three days if they do not go",
                        params.announced_vacation_days,
                    ),
                    p(
                        "declined_days",
                        "Untouchable until 3 days after the date he has declined",
                        params.declined_days,
                    ),
                ],
            ),
            mechanic(
                "the monthly limits (§4 j)",
                vec![
                    p(
                        "challenges_per_month",
                        "more than 3 challenges per calendar month",
                        params.challenges_per_month,
                    ),
                    p(
                        "duels_per_month",
                        "No more than 6 duels may be called",
                        params.duels_per_month,
                    ),
                ],
            ),
            mechanic(
                "forfeits and cancellations by standing (§4 f, g, i)",
                vec![],
            ),
        ],
        baseline: vec![(rule, baseline())],
        text: "ackanomic",
    }
}

/// Rule 1215 as it stands: what the game applies, and with which numbers.
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
            view.ruleset.binding(<Duel as Game>::NAME, params.rule),
            view.baseline_when_unrecorded,
            view.bound,
        );
        Bound {
            binding,
            params: params.clone(),
        }
    }

    /// Why the duels stand still, when rule 1215 is not followed as it is.
    pub fn not_followed(&self) -> Option<String> {
        match &self.binding.status {
            Status::Follows => None,
            Status::Held { difference } => {
                Some(format!("held for a moderator's ruling ({difference})"))
            }
            Status::Stopped { why } => Some(why.clone()),
            Status::Off { reason } => Some(format!("switched off by a moderator: {reason}")),
        }
    }

    fn value(&self, name: &str, start: u32) -> u32 {
        self.binding
            .values
            .iter()
            .find(|(n, _)| n == name)
            .and_then(|(_, v)| u32::try_from(*v).ok())
            .unwrap_or(start)
    }

    /// bot.toml's `[duel]` with the rule's numbers as the rule now says them.
    pub fn params(&self) -> Params {
        let mut params = self.params.clone();
        params.answer_days = NonZeroU32::new(self.value("answer_days", params.answer_days.get()))
            .unwrap_or(params.answer_days);
        params.winner_points = self.value("winner_points", params.winner_points);
        params.loser_points = self.value("loser_points", params.loser_points);
        params.second_winner_points =
            self.value("second_winner_points", params.second_winner_points);
        params.second_loser_points = self.value("second_loser_points", params.second_loser_points);
        params.forfeit_loss = self.value("forfeit_loss", params.forfeit_loss);
        params.forfeit_gain = self.value("forfeit_gain", params.forfeit_gain);
        params.announced_vacation_days =
            self.value("announced_vacation_days", params.announced_vacation_days);
        params.declined_days = self.value("declined_days", params.declined_days);
        params.challenges_per_month =
            self.value("challenges_per_month", params.challenges_per_month);
        params.duels_per_month = self.value("duels_per_month", params.duels_per_month);
        params
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bound_number_of_rule_1215_stands_in_the_baseline() {
        let declared = declared(&Params::default());
        let baseline = declared.baseline_of(RULE).unwrap();
        for parameter in declared.parameters_of(RULE) {
            assert!(baseline.contains(parameter.words), "{}", parameter.words);
        }
        let amended = baseline.replacen(
            "more than 3 challenges per calendar month",
            "more than 2 challenges per calendar month",
            1,
        );
        assert_eq!(
            bindings::numbers_changed(baseline, &amended, &declared.parameters_of(RULE)),
            Ok(vec![("challenges_per_month".to_owned(), 2)])
        );
    }
}
