//! Gnomic's arithmetic, rule by rule: what a proposal earns (304), what a failed
//! one costs (421), the vowel and Greek-letter bonuses (372, 394), the sacrifice
//! (390), the winning threshold (310, 431), a newcomer's score (325) and the
//! Voting Gnomes (440). Pure functions of the numbers `Numbers` holds (each the
//! rule text's by default), so each clause is tested on its own and the game only
//! decides when to call them. Rounding is rule 407's unless a rule says otherwise.

use serde::{Deserialize, Serialize};

/// Every number of the rules these functions apply, with the text's value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Numbers {
    /// 304: "subtracting 291 from the ordinal number".
    pub ordinal_offset: i64,
    /// 421: "(omicron-291) * (alpha/nu)".
    pub penalty_offset: i64,
    /// 304: "between one and three rule changes"; 390: "Mu may not be higher than 3".
    pub max_proposals: u32,
    /// 204: "shall receive 10 points each".
    pub against_winner_bonus: i64,
    /// 310: "The value of number the n shall be 100 or 2/p times the sum".
    pub threshold_floor: i64,
    /// 310: the "2" of "2/p".
    pub threshold_factor: i64,
    /// 325: "one-half the average score" (percent).
    pub join_average_percent: i64,
    /// 325: "more than 80% of the current minimum score".
    pub join_minimum_percent: i64,
    /// 394: "at least three Greek letters".
    pub greek_minimum: usize,
    /// 394: "If gamma > 7".
    pub greek_doubling_above: usize,
    /// 332: "At no time shall there be more than 52 mutable rules."
    pub max_mutable_rules: usize,
    /// 114: "There must always be at least one mutable rule."
    pub min_mutable_rules: usize,
}

impl Default for Numbers {
    fn default() -> Numbers {
        Numbers {
            ordinal_offset: 291,
            penalty_offset: 291,
            max_proposals: 3,
            against_winner_bonus: 10,
            threshold_floor: 100,
            threshold_factor: 2,
            join_average_percent: 50,
            join_minimum_percent: 80,
            greek_minimum: 3,
            greek_doubling_above: 7,
            max_mutable_rules: 52,
            min_mutable_rules: 1,
        }
    }
}

/// The votes on one hack, once counted: the Gnomes' included.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    pub favour: u32,
    pub against: u32,
    pub abstain: u32,
}

impl Tally {
    /// Those who voted for or against: rule 322's "non-abstaining eligible voters".
    pub fn voters(&self) -> u32 {
        self.favour + self.against
    }

    /// 322: "adopted only if the majority of non-abstaining eligible voters vote in
    /// its favour"; 392: an equal number for and against is a simple majority.
    pub fn adopted(&self) -> bool {
        self.adopted_when(true)
    }

    /// 322 alone (392 not in effect): a tie is no majority.
    pub fn adopted_when(&self, ties_adopt: bool) -> bool {
        if ties_adopt {
            self.favour >= self.against
        } else {
            self.favour > self.against
        }
    }
}

/// Rule 407: "rounded to the nearest integer"; a half is rounded away from zero.
pub fn round_nearest(numerator: i64, denominator: i64) -> i64 {
    if denominator == 0 {
        return 0;
    }
    let (numerator, denominator) = if denominator < 0 {
        (-numerator, -denominator)
    } else {
        (numerator, denominator)
    };
    let magnitude = (2 * numerator.abs() + denominator) / (2 * denominator);
    magnitude * numerator.signum()
}

/// Rounded up to the next integer (325's "rounded to next integer", 390's nu).
fn round_up(numerator: i64, denominator: i64) -> i64 {
    if denominator <= 0 {
        return 0;
    }
    numerator.div_euclid(denominator) + i64::from(numerator.rem_euclid(denominator) != 0)
}

/// Rule 304: "(ordinal − 291) × the fraction of favorable votes, rounded to the
/// nearest integer". The fraction is of the votes for and against (an abstention
/// is no vote: 322); with none, it is nothing.
pub fn proposal_points(numbers: &Numbers, ordinal: i64, tally: &Tally) -> i64 {
    round_nearest(
        (ordinal - numbers.ordinal_offset) * i64::from(tally.favour),
        i64::from(tally.voters()),
    )
}

/// Rule 421, a failed proposal: the proponent loses "(omicron − 291) ×
/// (alpha/nu)", alpha those against and nu "the total number of voters", read as
/// 322's non-abstaining voters. A loss: returned as a positive number.
pub fn failed_penalty(numbers: &Numbers, ordinal: i64, tally: &Tally) -> i64 {
    round_nearest(
        (ordinal - numbers.penalty_offset) * i64::from(tally.against),
        i64::from(tally.voters()),
    )
}

/// Rule 421, a failed meta-amendment of level `kappa` (1 for an amendment of a
/// proposal, 2 for one of a meta-amendment, ...): nothing when it had a majority
/// (it failed with its parent); else rho × alpha/nu, where rho is the ordinal
/// halved kappa times, rounding up each time.
pub fn failed_meta_penalty(ordinal: i64, kappa: u32, tally: &Tally) -> i64 {
    if tally.adopted() {
        return 0;
    }
    let rho = (0..kappa).fold(ordinal, |x, _| round_up(x, 2));
    round_nearest(rho * i64::from(tally.against), i64::from(tally.voters()))
}

/// Rule 401: the proponent of an adopted meta-amendment receives "half of the
/// points (rounded up to next integer)" of the amended proposal's proponent.
pub fn meta_share(parent_points: i64) -> i64 {
    round_up(parent_points, 2)
}

/// Rule 372, on the shortest proposal of the turn: V is the largest count of any
/// one vowel (a, e, i, o, u, y: "these six numbers"), P the points it received.
/// P/2 < V < P gives P − V; V < P/2 gives 2(P − V); otherwise nothing.
pub fn vowel_bonus(text: &str, points: i64) -> i64 {
    let v = "aeiouy"
        .chars()
        .map(|vowel| {
            text.chars()
                .filter(|c| c.to_ascii_lowercase() == vowel)
                .count() as i64
        })
        .max()
        .unwrap_or(0);
    // Compared doubled, so that P/2 stays exact for an odd P.
    if points < 2 * v && v < points {
        points - v
    } else if 2 * v < points {
        2 * (points - v)
    } else {
        0
    }
}

/// Rule 394's set of Greek letters, by name.
pub const GREEK_LETTERS: [&str; 24] = [
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
    "lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi",
    "psi", "omega",
];

/// The distinct Greek letters a text names, as whole words in any case, in the
/// order of rule 394's set. Whether each is "used to represent numbers" is the
/// proponent's (or the Judge's) to confirm: this is the count the bot proposes.
pub fn greek_letters(text: &str) -> Vec<&'static str> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    GREEK_LETTERS
        .into_iter()
        .filter(|letter| words.iter().any(|w| w == letter))
        .collect()
}

/// Rule 394's gamma as the bot counts it: the distinct Greek letters the text
/// names, "two letters ... bound by the rule to stand for the same numerical
/// value" counting once. A binding is read where the text states it plainly: a
/// letter, then only words of equality (`=`, "is", "equals", "equal to", "the
/// same as", "be"), then another letter, and the statement ends there (no
/// arithmetic follows: "mu is upsilon + 1" binds nothing). Whether each letter
/// is "used to represent numbers" is the proponent's to correct with `greek N
/// COUNT`, and the Judge's to settle.
pub fn greek_count(text: &str) -> usize {
    let found = greek_letters(text);
    // Each letter's class: a letter bound to an earlier one takes its class.
    let mut class: Vec<usize> = (0..found.len()).collect();
    let index = |word: &str| found.iter().position(|letter| *letter == word);
    let tokens = crate::engine::ruleset::bindings::tokens(text);
    for (at, token) in tokens.iter().enumerate() {
        let Some(first) = index(token) else { continue };
        let mut next = at + 1;
        let mut joined = false;
        while let Some(word) = tokens.get(next) {
            if EQUALITY_WORDS.contains(&word.as_str()) {
                joined = true;
                next += 1;
            } else {
                break;
            }
        }
        let Some(second) = tokens.get(next).and_then(|w| index(w)) else {
            continue;
        };
        let ends = tokens.get(next + 1).is_none_or(|after| {
            !ARITHMETIC.contains(&after.as_str()) && after.parse::<f64>().is_err()
        });
        if joined && ends && first != second {
            let (from, to) = (class[second], class[first]);
            for c in class.iter_mut() {
                if *c == from {
                    *c = to;
                }
            }
        }
    }
    let mut classes = class;
    classes.sort_unstable();
    classes.dedup();
    classes.len()
}

/// The words that state an equality between two letters (394's "bound ... to
/// stand for the same numerical value").
const EQUALITY_WORDS: [&str; 9] = [
    "=", "is", "equals", "equal", "to", "be", "the", "same", "as",
];

/// What continues an expression: a letter followed by one of these is no plain
/// binding.
const ARITHMETIC: [&str; 16] = [
    "+",
    "-",
    "*",
    "/",
    "^",
    "×",
    "÷",
    "plus",
    "minus",
    "times",
    "modulo",
    "mod",
    "divided",
    "over",
    "multiplied",
    "squared",
];

/// Rule 394: with gamma distinct Greek letters used numerically (at least three),
/// the bonus is floor(sigma × 2^gamma / 100); with gamma > 7, 2 × sigma.
pub fn greek_bonus(numbers: &Numbers, sigma: i64, gamma: usize) -> i64 {
    if gamma < numbers.greek_minimum {
        0
    } else if gamma > numbers.greek_doubling_above {
        2 * sigma
    } else {
        (sigma << gamma).div_euclid(100)
    }
}

/// Rule 390's sacrifice of lambda percent of a score: nu points lost and mu
/// proposals allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sacrifice {
    /// "Nu shall be lambda percent of his score rounded up to the next integer."
    pub nu: i64,
    /// "mu is (1+lambda/kappa) rounded down", kappa = 2π, never above 3.
    pub mu: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SacrificeError {
    #[error("lambda {lambda} is higher than the player's {points} points")]
    MoreThanThePoints { lambda: i64, points: i64 },
    #[error("lambda may not be negative")]
    Negative,
}

/// Rule 390. "Lambda may not be higher than the total points of that player";
/// a score below zero sacrifices nothing (nu is rounded up from a loss of at
/// most zero).
pub fn sacrifice(numbers: &Numbers, score: i64, lambda: i64) -> Result<Sacrifice, SacrificeError> {
    if lambda < 0 {
        return Err(SacrificeError::Negative);
    }
    if lambda > score.max(0) {
        return Err(SacrificeError::MoreThanThePoints {
            lambda,
            points: score,
        });
    }
    let nu = round_up(lambda * score.max(0), 100);
    let mu = (1.0 + lambda as f64 / std::f64::consts::TAU).floor() as u32;
    Ok(Sacrifice {
        nu,
        mu: mu.clamp(1, numbers.max_proposals),
    })
}

/// Rules 310 and 431: n is the greater of 100 and 2/p times the sum of the
/// active players' scores (bot players' not counted, negatives as zero), p the
/// number of active players. "100 or 2/p × the sum" read as the greater.
pub fn threshold(numbers: &Numbers, active_scores: &[i64]) -> i64 {
    let p = active_scores.len() as i64;
    let sum: i64 = active_scores.iter().map(|s| (*s).max(0)).sum();
    let doubled_average = if p == 0 {
        0
    } else {
        round_up(numbers.threshold_factor * sum, p)
    };
    numbers.threshold_floor.max(doubled_average)
}

/// Rule 325: a player joining a game in progress starts with half the average
/// score of the players in it, but no more than 80% of the lowest, never below
/// zero, "rounded to next integer" (up). Nobody in the game yet: zero.
pub fn starting_score(numbers: &Numbers, scores: &[i64]) -> i64 {
    if scores.is_empty() {
        return 0;
    }
    let n = scores.len() as i64;
    let sum: i64 = scores.iter().sum();
    let minimum = *scores.iter().min().unwrap_or(&0);
    // Compared exactly: half the average is sum × 50 / (100 n), the cap minimum × 80 / 100.
    let half_average = (sum * numbers.join_average_percent, 100 * n);
    let cap = (minimum * numbers.join_minimum_percent, 100);
    let (num, den) = if half_average.0 * cap.1 > cap.0 * half_average.1 {
        cap
    } else {
        half_average
    };
    round_up(num, den).max(0)
}

/// One Voting Gnome's vote (rule 440).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct GnomeVote {
    /// The Gnome's Mu.
    pub mu: u32,
    pub vote: GnomeChoice,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GnomeChoice {
    Favour,
    Against,
    Abstain,
}

/// Rule 440: with `players` at most two, 3 − players Gnomes vote on each hack
/// (`total` is the 3: fewer players than it, and the Gnomes make up the rest).
/// The first Gnome's Mu is the sum of the digits of the posting's time-stamp
/// modulo 9, each following Gnome's the previous Mu plus one modulo 9; an odd Mu
/// votes for, 8 abstains, any other against.
pub fn gnome_votes(time_stamp: &str, players: usize, total: usize) -> Vec<GnomeVote> {
    let gnomes = total.saturating_sub(players);
    let sigma: u32 = time_stamp.chars().filter_map(|c| c.to_digit(10)).sum();
    let mut mu = sigma % 9;
    let mut votes = Vec::with_capacity(gnomes);
    for gnome in 0..gnomes {
        if gnome > 0 {
            mu = (mu + 1) % 9;
        }
        let vote = if mu % 2 == 1 {
            GnomeChoice::Favour
        } else if mu == 8 {
            GnomeChoice::Abstain
        } else {
            GnomeChoice::Against
        };
        votes.push(GnomeVote { mu, vote });
    }
    votes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(favour: u32, against: u32, abstain: u32) -> Tally {
        Tally {
            favour,
            against,
            abstain,
        }
    }

    #[test]
    fn rule_407_rounds_to_the_nearest_integer_a_half_away_from_zero() {
        assert_eq!(round_nearest(5, 2), 3);
        assert_eq!(round_nearest(-5, 2), -3);
        assert_eq!(round_nearest(7, 3), 2);
        assert_eq!(round_nearest(8, 3), 3);
        assert_eq!(round_nearest(1, 0), 0);
    }

    #[test]
    fn rule_304_a_proposal_earns_its_ordinal_less_291_times_the_favourable_fraction() {
        let n = Numbers::default();
        // The rule's own example: the first player's proposal 301 earns 0 to 10.
        assert_eq!(proposal_points(&n, 301, &tally(4, 0, 0)), 10);
        assert_eq!(proposal_points(&n, 301, &tally(0, 4, 0)), 0);
        // 2 of 3 of proposal 305: 14 × 2/3 = 9.33 → 9; an abstention is no vote.
        assert_eq!(proposal_points(&n, 305, &tally(2, 1, 1)), 9);
        // 3 of 4 of 303: 12 × 3/4 = 9; 1 of 2 of 302: 5.5 → 6.
        assert_eq!(proposal_points(&n, 303, &tally(3, 1, 0)), 9);
        assert_eq!(proposal_points(&n, 302, &tally(1, 1, 0)), 6);
    }

    #[test]
    fn rule_322_and_392_adoption_is_a_simple_majority_of_those_not_abstaining_a_tie_adopts() {
        assert!(tally(2, 1, 5).adopted());
        assert!(tally(2, 2, 0).adopted());
        assert!(!tally(1, 2, 0).adopted());
    }

    #[test]
    fn rule_421_a_failed_proposal_costs_its_ordinal_less_291_times_the_fraction_against() {
        let n = Numbers::default();
        // 441 failed 1 for, 3 against: 150 × 3/4 = 112.5 → 113.
        assert_eq!(failed_penalty(&n, 441, &tally(1, 3, 0)), 113);
        assert_eq!(failed_penalty(&n, 301, &tally(1, 2, 1)), 7);
    }

    #[test]
    fn rule_421_a_failed_meta_amendment_costs_the_ordinal_halved_kappa_times() {
        // Had a majority: no penalty.
        assert_eq!(failed_meta_penalty(441, 1, &tally(3, 1, 0)), 0);
        // Level 1 of 441: rho = 221; 2 of 3 against: 147.3 → 147.
        assert_eq!(failed_meta_penalty(441, 1, &tally(1, 2, 0)), 147);
        // Level 2: 441 → 221 → 111; all against: 111.
        assert_eq!(failed_meta_penalty(441, 2, &tally(0, 3, 0)), 111);
    }

    #[test]
    fn rule_401_an_adopted_meta_amendment_earns_half_the_proponents_points_rounded_up() {
        assert_eq!(meta_share(9), 5);
        assert_eq!(meta_share(10), 5);
        assert_eq!(meta_share(0), 0);
    }

    #[test]
    fn rule_372_the_vowel_bonus_compares_the_commonest_vowel_with_the_points() {
        // "aaa bb": V = 3. P = 5: 2.5 < 3 < 5 → 5 − 3 = 2.
        assert_eq!(vowel_bonus("aaa bb", 5), 2);
        // P = 10: 3 < 5 → 2 × (10 − 3) = 14.
        assert_eq!(vowel_bonus("aaa bb", 10), 14);
        // P = 6: V = 3 = P/2 → nothing; P = 3: V = P → nothing.
        assert_eq!(vowel_bonus("aaa bb", 6), 0);
        assert_eq!(vowel_bonus("aaa bb", 3), 0);
        // y counts: "these six numbers".
        assert_eq!(vowel_bonus("yyyy", 5), 1);
    }

    #[test]
    fn rule_394_greek_letters_are_counted_from_the_text_and_bonus_sigma_times_two_to_gamma() {
        let text =
            "Let Alpha be 3, beta be 2 and gamma the sum; alphabet is no letter. Pi is 3.14.";
        assert_eq!(greek_letters(text), ["alpha", "beta", "gamma", "pi"]);
        let n = Numbers::default();
        assert_eq!(greek_bonus(&n, 20, 2), 0);
        // 20 × 2^3 / 100 = 1.6 → 1 (rounded down).
        assert_eq!(greek_bonus(&n, 20, 3), 1);
        assert_eq!(greek_bonus(&n, 20, 7), 25);
        assert_eq!(greek_bonus(&n, 20, 8), 40);
    }

    #[test]
    fn rule_394_two_letters_bound_to_the_same_value_count_once() {
        // "If two letters are bound by the rule to stand for the same numerical
        // value, then only one of them counts."
        assert_eq!(greek_count("Let alpha be 1 and beta be 2."), 2);
        assert_eq!(greek_count("alpha = beta."), 1);
        assert_eq!(
            greek_count("Alpha is the same as Beta, and gamma equals delta"),
            2
        );
        // An expression binds nothing: "Mu is upsilon + 1 modulo 9".
        assert_eq!(greek_count("Mu is upsilon + 1 modulo 9."), 2);
        assert_eq!(greek_count("pi is 3.14"), 1);
    }

    #[test]
    fn rule_390_the_sacrifice_costs_lambda_percent_and_allows_one_plus_lambda_over_two_pi() {
        let n = Numbers::default();
        assert_eq!(sacrifice(&n, 50, 0), Ok(Sacrifice { nu: 0, mu: 1 }));
        // 2π ≈ 6.28: 7 percent allows 2 proposals; 13 percent, 3; 40 percent, still 3.
        assert_eq!(sacrifice(&n, 50, 7), Ok(Sacrifice { nu: 4, mu: 2 }));
        assert_eq!(sacrifice(&n, 50, 13), Ok(Sacrifice { nu: 7, mu: 3 }));
        assert_eq!(sacrifice(&n, 50, 40), Ok(Sacrifice { nu: 20, mu: 3 }));
        assert_eq!(sacrifice(&n, 50, 6), Ok(Sacrifice { nu: 3, mu: 1 }));
        assert_eq!(
            sacrifice(&n, 5, 6),
            Err(SacrificeError::MoreThanThePoints {
                lambda: 6,
                points: 5
            })
        );
    }

    #[test]
    fn rule_310_and_431_n_is_100_or_twice_the_average_of_the_active_players() {
        let n = Numbers::default();
        assert_eq!(threshold(&n, &[10, 20, 30]), 100);
        assert_eq!(threshold(&n, &[80, 90, 100]), 180);
        // Negative scores count as zero: 2/2 × (120 + 0).
        assert_eq!(threshold(&n, &[120, -40]), 120);
        assert_eq!(threshold(&n, &[]), 100);
    }

    #[test]
    fn rule_325_a_newcomer_starts_with_half_the_average_but_at_most_80_percent_of_the_minimum() {
        let n = Numbers::default();
        assert_eq!(starting_score(&n, &[]), 0);
        // Half the average of 10, 20, 30 is 10; 80% of 10 is 8: 8.
        assert_eq!(starting_score(&n, &[10, 20, 30]), 8);
        // Half the average of 40, 50 is 22.5, under 80% of 40 (32): rounded up, 23.
        assert_eq!(starting_score(&n, &[40, 50]), 23);
        assert_eq!(starting_score(&n, &[-10, 30]), 0);
    }

    #[test]
    fn rule_440_the_gnomes_vote_by_the_digits_of_the_time_stamp() {
        // 2026-02-02 10:03:27: digits sum to 2+0+2+6+0+2+0+2+1+0+0+3+2+7 = 27; 27 mod 9 = 0.
        assert_eq!(
            gnome_votes("2026-02-02 10:03:27", 1, 3),
            [
                GnomeVote {
                    mu: 0,
                    vote: GnomeChoice::Against
                },
                GnomeVote {
                    mu: 1,
                    vote: GnomeChoice::Favour
                }
            ]
        );
        // Three players: no Gnome.
        assert!(gnome_votes("2026-02-02 10:03:27", 3, 3).is_empty());
        // A Mu of 8 abstains: digits summing to 17.
        assert_eq!(
            gnome_votes("2026-01-01 00:00:14", 2, 3)[0],
            GnomeVote {
                mu: 8,
                vote: GnomeChoice::Abstain
            }
        );
    }
}
