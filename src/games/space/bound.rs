//! What of the Space Nomic's text the game computes, bound to its rules: the
//! text is imported one rule to a paragraph (`nomicbot import-rules space`),
//! numbered from the registry's next free number and named "Space Nomic 1" to
//! "Space Nomic 54": each mechanic is bound to the rule of the paragraph its
//! words stand in, found in the registry by that name (`[space] first_rule`
//! overrides it with a number for a moderator who renumbered). The baseline
//! of each is the paragraph as the import records it.
//!
//! The game reads its numbers only through `numbers`: `[space]`'s, with every
//! bound number an amendment of its rule changed; and a mechanic whose rule
//! is repealed, void or held does nothing (`stopped`).

use std::sync::OnceLock;

use num_bigint::BigInt;
use num_rational::BigRational;

use super::engine::{Money, Numbers};
use super::{Params, Space, TEXT};
use crate::engine::game::{Game, View};
use crate::engine::ruleset::bindings::{self, Declared, Mechanic, Parameter, Status};
use crate::engine::ruleset::{Rule, Ruleset};

/// The text's paragraphs as rules numbered from 0, in order.
fn paragraphs() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(|| {
        crate::engine::ruleset::parse_paragraphs(TEXT, 0, "Space Nomic").unwrap_or_default()
    })
}

/// The place (from 0) of the paragraph whose text holds `words`.
fn place_of(words: &str) -> u32 {
    paragraphs()
        .iter()
        .position(|rule| rule.text.contains(words))
        .and_then(|place| u32::try_from(place).ok())
        .unwrap_or(0)
}

/// The whole units of an amount, as a bound number ("6" of "6 + 1/403").
fn units(amount: &super::engine::Money) -> i64 {
    i64::try_from(amount.0.trunc().numer()).unwrap_or(0)
}

/// The registry's numbers of the text's paragraphs, read once per call of
/// `declared_in` in one pass over the registry (not once per mechanic).
struct Numbering<'r> {
    first_rule: Option<u32>,
    ruleset: Option<&'r Ruleset>,
    /// By place: the number of the first rule (in effect, then repealed)
    /// named "Space Nomic <place + 1>".
    named: Vec<Option<u32>>,
    next_free: OnceLock<u32>,
}

impl<'r> Numbering<'r> {
    fn of(params: &Params, ruleset: Option<&'r Ruleset>) -> Numbering<'r> {
        let mut named = vec![None; paragraphs().len()];
        if let (None, Some(ruleset)) = (params.first_rule, ruleset) {
            for rule in ruleset.rules.iter().chain(&ruleset.past) {
                let Some(shown) = rule.name.strip_prefix("Space Nomic ") else {
                    continue;
                };
                // Only the name as `format!` writes it: "Space Nomic 07" is not
                // paragraph 7's.
                let Some(place) = shown
                    .parse::<usize>()
                    .ok()
                    .filter(|n| *n >= 1 && n.to_string() == shown)
                    .map(|n| n - 1)
                else {
                    continue;
                };
                if let Some(slot @ None) = named.get_mut(place) {
                    *slot = Some(rule.number);
                }
            }
        }
        Numbering {
            first_rule: params.first_rule,
            ruleset,
            named,
            next_free: OnceLock::new(),
        }
    }

    /// The registry's number of the text's paragraph at `place` (from 0): the
    /// override `first_rule` counted on, else the rule named "Space Nomic
    /// <place + 1>" (in effect or repealed). A paragraph no such rule records
    /// gets a number the registry never used, so it reads as unrecorded: the
    /// baseline under `unrecorded_rules = "baseline"`, not begun under
    /// "required", stopped once any other rule of the text is recorded.
    fn number_of_place(&self, place: u32) -> u32 {
        if let Some(first) = self.first_rule {
            return first.saturating_add(place);
        }
        let Some(ruleset) = self.ruleset else {
            return place.saturating_add(1);
        };
        self.named
            .get(place as usize)
            .copied()
            .flatten()
            .unwrap_or_else(|| {
                self.next_free
                    .get_or_init(|| ruleset.next_free_number())
                    .saturating_add(place)
            })
    }
}

/// Every mechanic of the game with its rule and numbers (`Game::bindings`),
/// its rules numbered as `[space] first_rule` says or, without it, as if
/// "Space Nomic 1" were rule 1.
pub fn declared(params: &Params) -> Declared {
    declared_in(params, None)
}

/// Every mechanic of the game with its rule and numbers, its rules found in
/// `ruleset` by name (`Game::bindings_in`).
pub fn declared_in(params: &Params, ruleset: Option<&Ruleset>) -> Declared {
    // Each mechanic: its name, words locating its paragraph, and its numbers.
    let p = |name, words, value| Parameter { name, words, value };
    let table: Vec<(&'static str, &'static str, Vec<Parameter>)> = vec![
        (
            "joining and withdrawing",
            "A player may add an entity to the game as a player",
            Vec::new(),
        ),
        (
            "a new player's money",
            "eir account will contain 97 money units",
            vec![p(
                "starting_money",
                "eir account will contain 97 money units",
                units(&params.starting_money),
            )],
        ),
        (
            "actions announced on the list, in the order written",
            "If multiple announcements occur at the same time in one message",
            Vec::new(),
        ),
        (
            "rule numbers, names and versions",
            "When a rule is modified, its replacement takes its number",
            Vec::new(),
        ),
        (
            "proposals: creation and names",
            "A player may create a proposal",
            Vec::new(),
        ),
        (
            "destruction by the creator",
            "A player may destroy a proposal which e created",
            Vec::new(),
        ),
        (
            "votes in [-1, 1]",
            "a player may vote on it with a rational number",
            Vec::new(),
        ),
        (
            "passing and failing",
            "Suppose that all active players who had not yet voted",
            Vec::new(),
        ),
        (
            "colours of created rules",
            "must be accompanied by its proposed colour",
            Vec::new(),
        ),
        (
            "transfers",
            "A player may transfer any positive rational amount",
            Vec::new(),
        ),
        (
            "refreshing, and destruction unrefreshed",
            "Any player may refresh any proposal",
            vec![p(
                "refresh_days",
                "refreshed in the last 16 days",
                params.refresh_days,
            )],
        ),
        (
            "the creator's reward and fine",
            "When a proposal passes, the player who created",
            vec![
                p(
                    "pass_reward",
                    "created the proposal receives 18 money unit",
                    units(&params.pass_reward),
                ),
                p(
                    "fail_fine",
                    "nowhere receives 6 + 1/403 money units",
                    units(&params.fail_fine),
                ),
            ],
        ),
        (
            "the voters' reward",
            "each player who voted on it gains",
            vec![p(
                "vote_reward",
                "voted on it gains 6 + 1/403 money unit",
                units(&params.vote_reward),
            )],
        ),
        (
            "owners of vertices: buying and giving",
            "To each vertex is assigned an entity called its owner",
            vec![p(
                "vertex_price",
                "if e transfers 32 money units to nowhere",
                units(&params.vertex_price),
            )],
        ),
        (
            "moves: storing and their evaluation",
            "A player may set or withdraw moves of any type",
            Vec::new(),
        ),
        (
            "the weekly report of the gamestate",
            "The gamestate contains exactly those things",
            Vec::new(),
        ),
        (
            "the point and incrementing",
            "may be used to refer to incrementing a player",
            Vec::new(),
        ),
        (
            "the daily income",
            "each player gains from nowhere a number of money units",
            Vec::new(),
        ),
        (
            "graphwise distance",
            "The graphwise distance between two vertices",
            Vec::new(),
        ),
        (
            "activity, accusing, nodding and pausing",
            "Whenever a player performs an action or a move",
            vec![p(
                "accusation_days",
                "by another player 7 days ago",
                params.accusation_days,
            )],
        ),
        (
            "removal after long inactivity",
            "If a player has been inactive for 25 days",
            vec![p(
                "removal_days",
                "inactive for 25 days",
                params.removal_days,
            )],
        ),
        (
            "the end of the game",
            "The game ends on 19 February 2005",
            Vec::new(),
        ),
    ];
    // Where each mechanic's words stand in the text: the same for every call
    // (the words are the table's literals, whatever the parameters), so the
    // text is searched once per process, not at every tick and message.
    static PLACES: OnceLock<Vec<u32>> = OnceLock::new();
    let places = PLACES.get_or_init(|| table.iter().map(|(_, words, _)| place_of(words)).collect());
    let numbering = Numbering::of(params, ruleset);
    let mut baseline: Vec<(u32, &'static str)> = Vec::new();
    let mut mechanics = Vec::new();
    for ((name, _, parameters), place) in table.into_iter().zip(places.iter().copied()) {
        let rule = numbering.number_of_place(place);
        if !baseline.iter().any(|(number, _)| *number == rule)
            && let Some(paragraph) = paragraphs().get(place as usize)
        {
            baseline.push((rule, paragraph.text.as_str()));
        }
        mechanics.push(Mechanic {
            name,
            rule,
            parameters,
        });
    }
    Declared {
        game: <Space as Game>::NAME,
        mechanics,
        baseline,
        text: "space",
    }
}

/// The mechanics the bot computes from the text's paragraph at `place` (its
/// number in the game's own ruleset, from 0).
pub fn mechanics_of_place(place: u32) -> Vec<&'static str> {
    let params = Params {
        first_rule: Some(0),
        ..Params::default()
    };
    declared(&params).mechanics_of(place)
}

/// `[space]`'s numbers as configured.
fn configured(params: &Params) -> Numbers {
    Numbers {
        starting_money: params.starting_money.clone(),
        pass_reward: params.pass_reward.clone(),
        fail_fine: params.fail_fine.clone(),
        vote_reward: params.vote_reward.clone(),
        refresh_days: params.refresh_days,
        end: Some(params.end),
        starting_colour: params.starting_colour.clone(),
        vertex_price: params.vertex_price.clone(),
        starting_vertices: params.vertices.iter().map(|[x, y]| (*x, *y)).collect(),
        starting_edges: params
            .edges
            .iter()
            .map(|[[ax, ay], [bx, by]]| ((*ax, *ay), (*bx, *by)))
            .collect(),
        income_hour: params.income_hour,
        evaluation_hour: params.evaluation_hour,
        location_period_days: params.location_period_days,
        accusation_days: params.accusation_days,
        removal_days: params.removal_days,
        space_period_days: params.space_period_days,
        phi: params.phi.clone(),
        report_days: params.report_days,
        incrementing: params.incrementing,
    }
}

/// An amount with its whole units replaced by a bound number ("6 + 1/403"
/// amended to "7 + 1/403" is 7 + 1/403).
fn with_units(amount: &Money, units: i64) -> Money {
    Money(BigRational::from_integer(BigInt::from(units)) + amount.0.fract())
}

/// The numbers the game computes with now: `[space]`'s, each bound number as
/// its rule now says it.
pub fn numbers(view: &View<'_>, params: &Params) -> Numbers {
    let declared = declared_in(params, Some(view.ruleset));
    let mut numbers = configured(params);
    for rule in declared.rules() {
        let binding = bindings::decide(
            view.ruleset,
            &declared,
            rule,
            view.ruleset.binding(<Space as Game>::NAME, rule),
            view.baseline_when_unrecorded,
            view.bound,
        );
        for (name, value) in &binding.values {
            match name.as_str() {
                "starting_money" => numbers.starting_money = Money::whole(*value),
                "pass_reward" => numbers.pass_reward = Money::whole(*value),
                "fail_fine" => numbers.fail_fine = with_units(&numbers.fail_fine, *value),
                "vote_reward" => numbers.vote_reward = with_units(&numbers.vote_reward, *value),
                "refresh_days" => numbers.refresh_days = *value,
                "vertex_price" => numbers.vertex_price = Money::whole(*value),
                "accusation_days" => numbers.accusation_days = *value,
                "removal_days" => numbers.removal_days = *value,
                _ => {}
            }
        }
    }
    numbers
}

/// Why the mechanic `name` does nothing now (its rule repealed, void, not
/// in the ruleset, held for a moderator's ruling, switched off), with the
/// rule's number, if so.
pub fn stopped(view: &View<'_>, params: &Params, name: &str) -> Option<(u32, String)> {
    let declared = declared_in(params, Some(view.ruleset));
    let rule = declared
        .mechanics
        .iter()
        .find(|mechanic| mechanic.name == name)?
        .rule;
    let binding = bindings::decide(
        view.ruleset,
        &declared,
        rule,
        view.ruleset.binding(<Space as Game>::NAME, rule),
        view.baseline_when_unrecorded,
        view.bound,
    );
    let why = match binding.status {
        Status::Follows => return None,
        Status::Stopped { why } => why,
        Status::Held { .. } => "held for a moderator's ruling".to_owned(),
        Status::Off { reason } => format!("switched off: {reason}"),
    };
    Some((view.ruleset.current_number(rule), why))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mechanic_stands_in_a_paragraph_of_the_text_and_every_number_in_its_words() {
        let declared = declared(&Params::default());
        for mechanic in &declared.mechanics {
            let baseline = declared.baseline_of(mechanic.rule).unwrap();
            for parameter in &mechanic.parameters {
                assert!(baseline.contains(parameter.words), "{}", parameter.words);
            }
        }
        // "Space Nomic 1" is rule 1 by default: the first paragraph.
        assert_eq!(declared.mechanics[0].rule, 4);
        assert_eq!(
            declared.parameters_of(declared.mechanics[1].rule)[0].value,
            97
        );
    }

    #[test]
    fn an_amended_number_is_read_from_its_words() {
        let declared = declared(&Params::default());
        for mechanic in &declared.mechanics {
            let baseline = declared.baseline_of(mechanic.rule).unwrap();
            for parameter in &mechanic.parameters {
                let number = parameter.value.to_string();
                let amended_words =
                    parameter
                        .words
                        .replacen(&number, &(parameter.value + 1).to_string(), 1);
                let amended = baseline.replacen(parameter.words, &amended_words, 1);
                let values = bindings::numbers_changed(baseline, &amended, &[parameter])
                    .unwrap_or_else(|e| panic!("{}: {e}", parameter.words));
                assert_eq!(
                    values,
                    vec![(parameter.name.to_owned(), parameter.value + 1)],
                    "{}",
                    parameter.words
                );
            }
        }
    }

    /// Each mechanic's rule as it was found before the places were kept:
    /// the rule named after its paragraph searched for every mechanic.
    fn searched(params: &Params, ruleset: Option<&Ruleset>) -> Vec<u32> {
        let declared = declared_in(params, ruleset);
        declared
            .mechanics
            .iter()
            .map(|mechanic| {
                let words = declared
                    .baseline_of(mechanic.rule)
                    .and_then(|text| paragraphs().iter().position(|p| p.text == text))
                    .and_then(|place| u32::try_from(place).ok())
                    .unwrap();
                if let Some(first) = params.first_rule {
                    return first + words;
                }
                let Some(ruleset) = ruleset else {
                    return words + 1;
                };
                let name = format!("Space Nomic {}", words + 1);
                ruleset
                    .rules
                    .iter()
                    .chain(&ruleset.past)
                    .find(|rule| rule.name == name)
                    .map(|rule| rule.number)
                    .unwrap_or_else(|| ruleset.next_free_number() + words)
            })
            .collect()
    }

    /// Part of the CI time of issue 30: the places are found once, the
    /// numbers in one pass, with the same rules as a search per mechanic.
    #[test]
    fn the_rules_bound_are_the_same_as_a_search_per_mechanic_would_find() {
        let mut rules = crate::engine::ruleset::parse_paragraphs(TEXT, 301, "Space Nomic").unwrap();
        // A paragraph repealed (in the past), one missing, and a name that
        // only looks like a paragraph's.
        let mut ruleset = Ruleset::default();
        ruleset.past.push(rules.remove(3));
        rules.remove(10);
        let mut decoy = rules[0].clone();
        decoy.name = "Space Nomic 07".to_owned();
        decoy.number = 900;
        rules.insert(0, decoy);
        ruleset.rules = rules;
        for params in [
            Params::default(),
            Params {
                first_rule: Some(40),
                ..Params::default()
            },
        ] {
            for ruleset in [None, Some(&ruleset), Some(&Ruleset::default())] {
                let rules: Vec<u32> = declared_in(&params, ruleset)
                    .mechanics
                    .iter()
                    .map(|m| m.rule)
                    .collect();
                assert_eq!(rules, searched(&params, ruleset));
            }
        }
    }

    #[test]
    fn a_bound_number_keeps_the_fraction_of_its_amount() {
        let fine = Money::parse("6 + 1/403").unwrap();
        assert_eq!(with_units(&fine, 7), Money::parse("7 1/403").unwrap());
    }
}
