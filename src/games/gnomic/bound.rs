//! What of the Gnomic ruleset the bot follows now: each mechanic bound to the
//! rule it computes (by number, from `[gnomic.rules]`, the text's by default),
//! each number to the words of that rule, and the texts of version 73 as the
//! baseline (`rules/gnomic-ruleset-v73.txt`, the page the bot implements). The
//! game reads its rules' numbers only here: `Bound::of` decides every bound rule
//! against the registry as it stands in the transaction (so a change adopted
//! at a count already binds that count's score update), over the moderators'
//! rulings recorded in the registry.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::judgment::Fees;
use super::scoring::Numbers;
use super::{Gnomic, Params};
use crate::engine::game::{Game, View};
use crate::engine::ruleset::bindings::{self, Declared, Mechanic, Parameter, Status};

/// The rule each mechanic follows, under `[gnomic.rules]`; every default is the
/// number in version 73.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Rules {
    pub ordinals: u32,
    pub unanimity: u32,
    pub against_winner: u32,
    pub proposal_points: u32,
    pub threshold: u32,
    pub newcomer: u32,
    pub mutable_limit: u32,
    pub web_mode: u32,
    pub vowels: u32,
    pub fees: u32,
    pub shout: u32,
    pub obfuscated: u32,
    pub sacrifice: u32,
    pub greek: u32,
    pub meta_amendments: u32,
    pub votes: u32,
    pub failed_penalty: u32,
    pub gnomes: u32,
    pub simple_majority: u32,
    pub integers: u32,
    pub nomenclature: u32,
}

impl Default for Rules {
    fn default() -> Rules {
        Rules {
            ordinals: 108,
            unanimity: 109,
            against_winner: 204,
            proposal_points: 304,
            threshold: 310,
            newcomer: 325,
            mutable_limit: 332,
            web_mode: 342,
            vowels: 372,
            fees: 373,
            shout: 383,
            obfuscated: 410,
            sacrifice: 390,
            greek: 394,
            meta_amendments: 401,
            votes: 402,
            failed_penalty: 421,
            gnomes: 440,
            simple_majority: 392,
            integers: 407,
            nomenclature: 434,
        }
    }
}

impl Rules {
    /// Every number moved by `offset`: a game whose small ruleset numbers its
    /// hacks 301 on (so that they would enact rules under the mechanics'
    /// numbers) binds its mechanics elsewhere.
    pub fn shifted(offset: u32) -> Rules {
        let d = Rules::default();
        Rules {
            ordinals: d.ordinals + offset,
            unanimity: d.unanimity + offset,
            against_winner: d.against_winner + offset,
            proposal_points: d.proposal_points + offset,
            threshold: d.threshold + offset,
            newcomer: d.newcomer + offset,
            mutable_limit: d.mutable_limit + offset,
            web_mode: d.web_mode + offset,
            vowels: d.vowels + offset,
            fees: d.fees + offset,
            shout: d.shout + offset,
            obfuscated: d.obfuscated + offset,
            sacrifice: d.sacrifice + offset,
            greek: d.greek + offset,
            meta_amendments: d.meta_amendments + offset,
            votes: d.votes + offset,
            failed_penalty: d.failed_penalty + offset,
            gnomes: d.gnomes + offset,
            simple_majority: d.simple_majority + offset,
            integers: d.integers + offset,
            nomenclature: d.nomenclature + offset,
        }
    }
}

const PAGE: &str = include_str!("../../../rules/gnomic-ruleset-v73.txt");

/// The texts of version 73, by number: the baseline.
fn baseline() -> &'static [(u32, String)] {
    static TEXTS: OnceLock<Vec<(u32, String)>> = OnceLock::new();
    TEXTS.get_or_init(|| {
        crate::engine::ruleset::parse_ruleset(PAGE)
            .map(|rules| rules.into_iter().map(|r| (r.number, r.text)).collect())
            .unwrap_or_default()
    })
}

fn text_of(number: u32) -> Option<&'static str> {
    baseline()
        .iter()
        .find(|(n, _)| *n == number)
        .map(|(_, text)| text.as_str())
}

/// Every mechanic of the game with its rule and numbers (`Game::bindings`).
pub fn declared(params: &Params) -> Declared {
    let r = &params.rules;
    let n = &params.numbers;
    let f = &params.fees;
    let d = Rules::default();
    let p = |name, words, value| Parameter { name, words, value };
    // Each mechanic under its configured number; its baseline is the v73 text
    // of the number the text gives it.
    let mut baseline: Vec<(u32, &'static str)> = Vec::new();
    let mut mechanic = |name, (rule, default): (u32, u32), parameters| {
        if let Some(text) = text_of(default)
            && !baseline.iter().any(|(n, _)| *n == rule)
        {
            baseline.push((rule, text));
        }
        Mechanic {
            name,
            rule,
            parameters,
        }
    };
    let mechanics = vec![
        mechanic(
            "the ordinals of hacks",
            (r.ordinals, d.ordinals),
            vec![p(
                "first_ordinal",
                "shall begin with 301",
                i64::from(params.first_ordinal),
            )],
        ),
        mechanic(
            "unanimity for a transmutation",
            (r.unanimity, d.unanimity),
            vec![],
        ),
        mechanic(
            "the bonus for opposing a winning proposal",
            (r.against_winner, d.against_winner),
            vec![p(
                "against_winner_bonus",
                "receive 10 points each",
                n.against_winner_bonus,
            )],
        ),
        mechanic(
            "the points of a proposal",
            (r.proposal_points, d.proposal_points),
            vec![
                p("ordinal_offset", "subtracting 291 from", n.ordinal_offset),
                p(
                    "max_proposals",
                    "between one and three rule",
                    i64::from(n.max_proposals),
                ),
            ],
        ),
        mechanic(
            "the winning threshold n",
            (r.threshold, d.threshold),
            vec![
                p("threshold_floor", "shall be 100 or", n.threshold_floor),
                p("threshold_factor", "or 2/p times", n.threshold_factor),
            ],
        ),
        mechanic(
            "a newcomer's score",
            (r.newcomer, d.newcomer),
            vec![p(
                "join_minimum_percent",
                "than 80% of the current",
                n.join_minimum_percent,
            )],
        ),
        mechanic(
            "the limit of mutable rules",
            (r.mutable_limit, d.mutable_limit),
            vec![p(
                "max_mutable_rules",
                "more than 52 mutable",
                n.max_mutable_rules as i64,
            )],
        ),
        mechanic(
            "web mode's wait before a vote",
            (r.web_mode, d.web_mode),
            vec![p(
                "web_mode_meta_seconds",
                "within 12 seconds",
                params.web_mode_meta_seconds,
            )],
        ),
        mechanic("the vowel bonus", (r.vowels, d.vowels), vec![]),
        mechanic(
            "the fees of Judgment",
            (r.fees, d.fees),
            vec![
                p("invoke", "instantly lose 20 points", f.invoke),
                p("upheld", "will earn 30 points", f.upheld),
                p("accused", "will lose 30 points", f.accused),
                p("exempt_below", "less than 30 points", f.exempt_below),
            ],
        ),
        mechanic("the shout of UNRULEWORTHY!!!", (r.shout, d.shout), vec![]),
        mechanic(
            "the shout at an obfuscated proposal",
            (r.obfuscated, d.obfuscated),
            vec![],
        ),
        mechanic("the sacrifice", (r.sacrifice, d.sacrifice), vec![]),
        mechanic(
            "the Greek-letter bonus",
            (r.greek, d.greek),
            vec![
                p(
                    "greek_minimum",
                    "at least three Greek",
                    n.greek_minimum as i64,
                ),
                p(
                    "greek_doubling_above",
                    "if gamma > 7",
                    n.greek_doubling_above as i64,
                ),
            ],
        ),
        mechanic(
            "meta-amendments and their share",
            (r.meta_amendments, d.meta_amendments),
            vec![],
        ),
        mechanic(
            "the votes' 72 hours",
            (r.votes, d.votes),
            vec![p(
                "vote_hours",
                "or 72 hours have passed",
                params.vote_hours,
            )],
        ),
        mechanic(
            "the penalty of a failed hack",
            (r.failed_penalty, d.failed_penalty),
            vec![p("penalty_offset", "omicron-291", n.penalty_offset)],
        ),
        mechanic(
            "a tie adopts (simple majority)",
            (r.simple_majority, d.simple_majority),
            vec![],
        ),
        mechanic(
            "rounding to the nearest integer",
            (r.integers, d.integers),
            vec![],
        ),
        mechanic(
            "what is a proposal, a meta-amendment, a hack",
            (r.nomenclature, d.nomenclature),
            vec![],
        ),
        mechanic(
            "the Voting Gnomes",
            (r.gnomes, d.gnomes),
            vec![p("gnome_total", "nu is 3-psi", params.gnome_total as i64)],
        ),
    ];
    Declared {
        game: <Gnomic as Game>::NAME,
        mechanics,
        baseline,
        text: "gnomic",
    }
}

/// The bound rules as they stand: what the game applies, and with which numbers.
pub struct Bound {
    declared: Declared,
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
                    view.ruleset.binding(<Gnomic as Game>::NAME, rule),
                    view.baseline_when_unrecorded,
                    view.bound,
                )
            })
            .collect();
        Bound {
            declared,
            decided,
            params: params.clone(),
        }
    }

    fn binding(&self, rule: u32) -> Option<&bindings::Binding> {
        self.decided.iter().find(|b| b.rule == rule)
    }

    /// Does the bot apply rule `rule` now? A held rule is applied by its
    /// reading before the change to what is already under way (the count that
    /// adopted the change); the next count waits for the ruling (`held`).
    pub fn follows(&self, rule: u32) -> bool {
        self.binding(rule)
            .is_none_or(|b| matches!(b.status, Status::Follows | Status::Held { .. }))
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

    /// The rules the game follows now, by their current numbers (for `status`).
    pub fn followed(&self, view: &View<'_>) -> Vec<u32> {
        let mut rules: Vec<u32> = self
            .decided
            .iter()
            .filter(|b| b.status == Status::Follows)
            .map(|b| view.ruleset.current_number(b.rule))
            .collect();
        rules.sort_unstable();
        rules.dedup();
        rules
    }

    /// The rules not followed, with why (for `status`).
    pub fn not_followed(&self) -> Vec<(u32, Vec<&'static str>, String)> {
        self.decided
            .iter()
            .filter_map(|b| {
                let why = match &b.status {
                    Status::Follows => return None,
                    Status::Stopped { why } => why.clone(),
                    Status::Held { .. } => "held for a moderator's ruling".to_owned(),
                    Status::Off { reason } => format!("switched off by a moderator: {reason}"),
                };
                Some((b.rule, self.declared.mechanics_of(b.rule), why))
            })
            .collect()
    }

    pub fn rules(&self) -> &Rules {
        &self.params.rules
    }

    fn value(&self, rule: u32, name: &str, start: i64) -> i64 {
        self.binding(rule)
            .and_then(|b| b.values.iter().find(|(n, _)| n == name))
            .map_or(start, |(_, v)| *v)
    }

    /// The arithmetic's numbers, each as its rule now says.
    pub fn numbers(&self) -> Numbers {
        let r = &self.params.rules;
        let mut n = self.params.numbers.clone();
        n.ordinal_offset = self.value(r.proposal_points, "ordinal_offset", n.ordinal_offset);
        n.max_proposals = u32::try_from(self.value(
            r.proposal_points,
            "max_proposals",
            i64::from(n.max_proposals),
        ))
        .unwrap_or(n.max_proposals);
        n.against_winner_bonus = self.value(
            r.against_winner,
            "against_winner_bonus",
            n.against_winner_bonus,
        );
        n.threshold_floor = self.value(r.threshold, "threshold_floor", n.threshold_floor);
        n.threshold_factor = self.value(r.threshold, "threshold_factor", n.threshold_factor);
        n.join_minimum_percent =
            self.value(r.newcomer, "join_minimum_percent", n.join_minimum_percent);
        n.max_mutable_rules = usize::try_from(self.value(
            r.mutable_limit,
            "max_mutable_rules",
            n.max_mutable_rules as i64,
        ))
        .unwrap_or(n.max_mutable_rules);
        n.greek_minimum =
            usize::try_from(self.value(r.greek, "greek_minimum", n.greek_minimum as i64))
                .unwrap_or(n.greek_minimum);
        n.greek_doubling_above = usize::try_from(self.value(
            r.greek,
            "greek_doubling_above",
            n.greek_doubling_above as i64,
        ))
        .unwrap_or(n.greek_doubling_above);
        n.penalty_offset = self.value(r.failed_penalty, "penalty_offset", n.penalty_offset);
        n
    }

    /// 373's fees; none while the bot does not follow 373.
    pub fn fees(&self) -> Fees {
        let r = self.params.rules.fees;
        if !self.follows(r) {
            return Fees {
                invoke: 0,
                upheld: 0,
                accused: 0,
                exempt_below: 0,
            };
        }
        let f = &self.params.fees;
        Fees {
            invoke: self.value(r, "invoke", f.invoke),
            upheld: self.value(r, "upheld", f.upheld),
            accused: self.value(r, "accused", f.accused),
            exempt_below: self.value(r, "exempt_below", f.exempt_below),
        }
    }

    pub fn vote_hours(&self) -> i64 {
        self.value(
            self.params.rules.votes,
            "vote_hours",
            self.params.vote_hours,
        )
    }

    pub fn first_ordinal(&self) -> u32 {
        u32::try_from(self.value(
            self.params.rules.ordinals,
            "first_ordinal",
            i64::from(self.params.first_ordinal),
        ))
        .unwrap_or(self.params.first_ordinal)
    }

    pub fn gnome_total(&self) -> usize {
        usize::try_from(self.value(
            self.params.rules.gnomes,
            "gnome_total",
            self.params.gnome_total as i64,
        ))
        .unwrap_or(self.params.gnome_total)
    }

    pub fn web_mode_meta_seconds(&self) -> i64 {
        self.value(
            self.params.rules.web_mode,
            "web_mode_meta_seconds",
            self.params.web_mode_meta_seconds,
        )
    }
}
