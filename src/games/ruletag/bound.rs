//! What of Rule Tag's rules the bot follows now: the five rules the proposal
//! creates ("Elements", "Rule Tag", "rule tag invalid paths", "rule tag
//! moderation", "rule tag basketball"), each bound by its number from
//! `[ruletag.rules]`, each number the game uses bound to the words of the rule it
//! comes from, and the proposal as the baseline (`rules/rule-tag-proposal.txt`,
//! the text the bot implements). The game reads its rules' numbers only here:
//! `Bound::of` decides every bound rule against the registry as it stands in the
//! transaction, over the moderators' rulings recorded in the registry.
//!
//! Not to be confused with the rules the game is played over (a player's RTL):
//! those are any rules of the registry; these are the rules that make the game.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::Params;
use super::game::RuleTag;
use crate::engine::game::{Game, View};
use crate::engine::ruleset::bindings::{self, Declared, Mechanic, Parameter, Status};

/// The number of each rule of the proposal, under `[ruletag.rules]`. The
/// proposal carries no numbers: an import numbers its rules from the registry's
/// next free number, so set these to the numbers the nomic gave them. The
/// defaults are out of the way of every shipped page (an import after Gnomic v73
/// gives 441 to 445), so that a bot whose registry lacks the rules plays by the
/// texts it implements, as it did before it followed them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Rules {
    pub elements: u32,
    pub rule_tag: u32,
    pub invalid_paths: u32,
    pub moderation: u32,
    pub basketball: u32,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            elements: 1001,
            rule_tag: 1002,
            invalid_paths: 1003,
            moderation: 1004,
            basketball: 1005,
        }
    }
}

impl Rules {
    /// The rules numbered from `first` in the proposal's order, as an import of
    /// the proposal into a registry whose next free number is `first` numbers them.
    pub fn from(first: u32) -> Rules {
        Rules {
            elements: first,
            rule_tag: first + 1,
            invalid_paths: first + 2,
            moderation: first + 3,
            basketball: first + 4,
        }
    }
}

const PROPOSAL: &str = include_str!("../../../rules/rule-tag-proposal.txt");

/// The proposal's rules in its order (numbered 1 to 5 by the parse): the baseline.
fn baseline() -> &'static [String] {
    static TEXTS: OnceLock<Vec<String>> = OnceLock::new();
    TEXTS.get_or_init(|| {
        crate::engine::ruleset::parse_ruleset(PROPOSAL)
            .map(|rules| rules.into_iter().map(|r| r.text).collect())
            .unwrap_or_default()
    })
}

/// The baseline text of the proposal's `index`th rule (0: "Elements").
fn text_of(index: usize) -> &'static str {
    baseline().get(index).map_or("", String::as_str)
}

/// Every mechanic of the game with its rule and numbers (`Game::bindings`).
pub fn declared(params: &Params) -> Declared {
    let r = &params.rules;
    let p = |name, words, value| Parameter { name, words, value };
    let close = i64::from(params.actions_close_after_nday);
    let notify = i64::from(params.notify_by_nday);
    let mechanics = vec![
        Mechanic {
            name: "element changes",
            rule: r.elements,
            parameters: vec![p(
                "actions_close_after_nday",
                "Element change game actions must be made before the end of nday 8",
                close,
            )],
        },
        Mechanic {
            name: "the game of rule tag: its actions and the end of the ruletag turn",
            rule: r.rule_tag,
            parameters: vec![
                p(
                    "actions_close_after_nday",
                    "All rule tag actions must be made before the end of nday 8",
                    close,
                ),
                p(
                    "basket_points",
                    "in the same location as the rule tag goal, ey gains 25",
                    params.basket_points,
                ),
                p(
                    "elemental_points",
                    "then ey loses 15 points",
                    params.elemental_points,
                ),
                p(
                    "elemental_points",
                    "Air gives Fire 15 points",
                    params.elemental_points,
                ),
                p(
                    "elemental_points",
                    "Earth gives Air 15 points",
                    params.elemental_points,
                ),
                p(
                    "null_move_penalty",
                    "moved to null this turn lose 10 points",
                    params.null_move_penalty,
                ),
                p(
                    "rule_gone_penalty",
                    "to null and lose 25 points",
                    params.rule_gone_penalty,
                ),
                p(
                    "rule_changed_penalty",
                    "has just changed lose 10 points",
                    params.rule_changed_penalty,
                ),
            ],
        },
        Mechanic {
            name: "the invalid paths",
            rule: r.invalid_paths,
            parameters: vec![],
        },
        Mechanic {
            name: "the notifications, the award and the censure",
            rule: r.moderation,
            parameters: vec![
                p("notify_by_nday", "and no later than nday 2", notify),
                p("notify_by_nday", "no later than nday 2 showing", notify),
                p(
                    "notify_by_nday",
                    "the required notifications by nday 2",
                    notify,
                ),
                p(
                    "moderator_censure",
                    "ey shall lose 20 points",
                    params.moderator_censure,
                ),
                p(
                    "moderator_award",
                    "Award: 10 points per week",
                    params.moderator_award,
                ),
            ],
        },
        Mechanic {
            name: "the rule tag ball and goal",
            rule: r.basketball,
            parameters: vec![p(
                "basket_points",
                "in possession of the rule tag ball gains 25 points",
                params.basket_points,
            )],
        },
    ];
    let rules = [
        r.elements,
        r.rule_tag,
        r.invalid_paths,
        r.moderation,
        r.basketball,
    ];
    let mut baseline: Vec<(u32, &'static str)> = Vec::new();
    for (index, rule) in rules.into_iter().enumerate() {
        if !baseline.iter().any(|(n, _)| *n == rule) {
            baseline.push((rule, text_of(index)));
        }
    }
    Declared {
        game: <RuleTag as Game>::NAME,
        mechanics,
        baseline,
        text: "rule-tag",
    }
}

/// The bound rules as they stand: what the game applies, and with which numbers.
pub struct Bound {
    decided: Vec<bindings::Binding>,
    params: Params,
}

impl Bound {
    pub fn of(view: &View<'_>, params: &Params) -> Bound {
        let declared = declared(params);
        let decided = declared
            .rules()
            .into_iter()
            .map(|rule| {
                bindings::decide(
                    view.ruleset,
                    &declared,
                    rule,
                    view.ruleset.binding(<RuleTag as Game>::NAME, rule),
                    view.baseline_when_unrecorded,
                    view.bound,
                )
            })
            .collect();
        Bound {
            decided,
            params: params.clone(),
        }
    }

    fn binding(&self, rule: u32) -> Option<&bindings::Binding> {
        self.decided.iter().find(|b| b.rule == rule)
    }

    /// Does the bot apply rule `rule` now? A held rule keeps its reading before
    /// the change for what is under way; the turn waits (`held`).
    pub fn follows(&self, rule: u32) -> bool {
        self.binding(rule)
            .is_none_or(|b| matches!(b.status, Status::Follows | Status::Held { .. }))
    }

    /// Why rule "Rule Tag" is not in effect (repealed, void, absent) or not
    /// followed (a moderator switched it off): the game is over.
    pub fn game_stopped(&self) -> Option<String> {
        match &self.binding(self.params.rules.rule_tag)?.status {
            Status::Stopped { why } => Some(why.clone()),
            Status::Off { reason } => Some(format!("switched off by a moderator: {reason}")),
            Status::Follows | Status::Held { .. } => None,
        }
    }

    /// The rules held for a moderator's ruling, with what changed.
    pub fn held(&self) -> Vec<(u32, String)> {
        self.decided
            .iter()
            .filter_map(|b| match &b.status {
                Status::Held { difference } => Some((b.rule, difference.clone())),
                _ => None,
            })
            .collect()
    }

    pub fn rules(&self) -> &Rules {
        &self.params.rules
    }

    /// A bound number as its rules now say: the first of its rules (in the
    /// proposal's order) whose text gives it another value, else the start.
    fn value(&self, name: &str, start: i64) -> i64 {
        let r = &self.params.rules;
        [
            r.elements,
            r.rule_tag,
            r.invalid_paths,
            r.moderation,
            r.basketball,
        ]
        .iter()
        .filter_map(|rule| self.binding(*rule))
        .find_map(|b| b.values.iter().find(|(n, _)| n == name).map(|(_, v)| *v))
        .unwrap_or(start)
    }

    /// The game's parameters with every number as its rule now says, and no
    /// invalid terms while "rule tag invalid paths" is not followed. The rest of
    /// the game reads its numbers from here, not from bot.toml.
    pub fn params(&self) -> Params {
        let mut p = self.params.clone();
        let nday = |value: i64, start: u32| u32::try_from(value).unwrap_or(start);
        p.actions_close_after_nday = nday(
            self.value(
                "actions_close_after_nday",
                i64::from(p.actions_close_after_nday),
            ),
            p.actions_close_after_nday,
        );
        p.notify_by_nday = nday(
            self.value("notify_by_nday", i64::from(p.notify_by_nday)),
            p.notify_by_nday,
        );
        p.basket_points = self.value("basket_points", p.basket_points);
        p.elemental_points = self.value("elemental_points", p.elemental_points);
        p.null_move_penalty = self.value("null_move_penalty", p.null_move_penalty);
        p.rule_gone_penalty = self.value("rule_gone_penalty", p.rule_gone_penalty);
        p.rule_changed_penalty = self.value("rule_changed_penalty", p.rule_changed_penalty);
        p.moderator_award = self.value("moderator_award", p.moderator_award);
        p.moderator_censure = self.value("moderator_censure", p.moderator_censure);
        if !self.follows(p.rules.invalid_paths) {
            p.invalid_terms.clear();
        }
        p
    }

    /// What of the turn runs: the steps whose rules are followed.
    pub fn steps(&self) -> Steps {
        let r = &self.params.rules;
        Steps {
            elements: self.follows(r.elements),
            basketball: self.follows(r.basketball),
            moderation: self.follows(r.moderation),
        }
    }
}

/// The parts of the turn that come from rules other than "Rule Tag": each runs
/// only while its rule is followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Steps {
    /// "Elements": element changes, and so Elemental Tag Resolve.
    pub elements: bool,
    /// "rule tag basketball": Basketball Resolve.
    pub basketball: bool,
    /// "rule tag moderation": the award and the censure.
    pub moderation: bool,
}

impl Default for Steps {
    fn default() -> Steps {
        Steps {
            elements: true,
            basketball: true,
            moderation: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ruleset::bindings::numbers_changed;

    #[test]
    fn every_bound_number_is_found_in_the_words_of_its_rule() {
        assert_eq!(baseline().len(), 5);
        let declared = declared(&Params::default());
        for mechanic in &declared.mechanics {
            let text = declared.baseline_of(mechanic.rule).unwrap();
            for parameter in &mechanic.parameters {
                // Each parameter's number, changed alone, is read as that number.
                let words = parameter.words;
                let number = parameter.value.to_string();
                let changed_words = words.replacen(&number, "77", 1);
                assert_ne!(changed_words, words, "{words}");
                let flat = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
                let flat_text = flat(text);
                assert!(flat_text.contains(&flat(words)), "{words} not in its rule");
                let amended = flat_text.replacen(&flat(words), &flat(&changed_words), 1);
                assert_eq!(
                    numbers_changed(text, &amended, &declared.parameters_of(mechanic.rule)),
                    Ok(vec![(parameter.name.to_owned(), 77)]),
                    "{words}"
                );
            }
        }
    }
}
