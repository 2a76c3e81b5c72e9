//! Where the games' mechanics meet the registry. A game declares the mechanics it
//! computes, each bound to the rule whose words it follows and each number to the
//! words of that rule it comes from ("subtracting 291"); the text the bot
//! implements is the rule's baseline. Whenever the registry changes, every bound
//! rule is decided again against it: still followed (perhaps with new numbers, when
//! an amendment changed only bound numbers), stopped (repealed, void, absent), or
//! held (any other change, until a moderator rules). The decisions are events of
//! the registry, so a replay reproduces the numbers at every instant, and a game
//! reads its rules' numbers from its decided bindings and nowhere else.
//! Pure: no game is named here.

use serde::{Deserialize, Serialize};

use super::{Rule, Ruleset};

/// A mechanic a game computes from a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mechanic {
    /// As a moderator would call it: "the vowel bonus".
    pub name: &'static str,
    /// The rule it follows (bot.toml may renumber it).
    pub rule: u32,
    pub parameters: Vec<Parameter>,
}

/// A number of the rule a mechanic uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parameter {
    /// The bot.toml key that gives its starting value.
    pub name: &'static str,
    /// The words of the baseline text it comes from, the number among them:
    /// "subtracting 291", "thirty times".
    pub words: &'static str,
    /// Its starting value (bot.toml's, the text's by default).
    pub value: i64,
}

/// Everything a game binds: its mechanics, and the baseline text of each rule.
#[derive(Debug, Clone, Default)]
pub struct Declared {
    pub game: &'static str,
    pub mechanics: Vec<Mechanic>,
    /// The text the bot implements, by rule number.
    pub baseline: Vec<(u32, &'static str)>,
    /// The shipped rule text that holds these rules: what `nomicbot
    /// import-rules NAME` takes to put them in the registry.
    pub text: &'static str,
}

impl Declared {
    /// The rules bound, ascending, each once.
    pub fn rules(&self) -> Vec<u32> {
        let mut rules: Vec<u32> = self.mechanics.iter().map(|m| m.rule).collect();
        rules.sort_unstable();
        rules.dedup();
        rules
    }

    pub fn baseline_of(&self, rule: u32) -> Option<&'static str> {
        self.baseline
            .iter()
            .find(|(number, _)| *number == rule)
            .map(|(_, text)| *text)
    }

    pub fn parameters_of(&self, rule: u32) -> Vec<&Parameter> {
        self.mechanics
            .iter()
            .filter(|m| m.rule == rule)
            .flat_map(|m| m.parameters.iter())
            .collect()
    }

    pub fn mechanics_of(&self, rule: u32) -> Vec<&'static str> {
        self.mechanics
            .iter()
            .filter(|m| m.rule == rule)
            .map(|m| m.name)
            .collect()
    }
}

/// What the bot follows of one bound rule, as last decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binding {
    pub game: String,
    pub rule: u32,
    pub status: Status,
    /// The rule's text the decision was made on; none when it is not in effect.
    #[serde(default)]
    pub text: Option<String>,
    /// Bound numbers that differ from their starting values, by parameter name.
    #[serde(default)]
    pub values: Vec<(String, i64)>,
    /// The rules enacted or amended since the baseline that use a term this
    /// rule defines, which a moderator has ruled on: no longer a reason to hold.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub acknowledged: Vec<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Status {
    /// The bot applies it (with `values` over the starting ones).
    Follows,
    /// Not in effect: repealed, void, or not in the ruleset.
    Stopped { why: String },
    /// Changed otherwise than in its bound numbers: what depends on it waits for
    /// a moderator's ruling.
    Held { difference: String },
    /// A moderator switched the mechanic off.
    Off { reason: String },
}

/// Whether a rule the registry never held counts as in effect by its baseline.
/// The registry is the record of the rules: once it holds (or held) any rule a
/// game binds, it alone decides for that game.
fn never_recorded(ruleset: &Ruleset, declared: &Declared) -> bool {
    declared
        .rules()
        .into_iter()
        .all(|rule| !ruleset.exists(rule) && !ruleset.was_repealed(rule))
}

/// The rules of a game the registry never held (none of them imported,
/// enacted or repealed): all its bound rules then, else none. A game that
/// requires its rules (`[bot] unrecorded_rules = "required"`) does not begin
/// while this is not empty.
pub fn never_held(ruleset: &Ruleset, declared: &Declared) -> Vec<u32> {
    if never_recorded(ruleset, declared) {
        declared.rules()
    } else {
        Vec::new()
    }
}

/// Decides one bound rule against the registry as it stands. `previous` is the
/// binding in force: a moderator's ruling on the same text stands.
///
/// `all` is every game's declarations: a rule two games follow (the Boons and
/// their Bogusity Hearing, both rule 1211) may have a number amended that only
/// the other game binds, which is a change of numbers, not of wording, for
/// both.
pub fn decide(
    ruleset: &Ruleset,
    declared: &Declared,
    rule: u32,
    previous: Option<&Binding>,
    baseline_when_unrecorded: bool,
    all: &[Declared],
) -> Binding {
    let own = decide_text(
        ruleset,
        declared,
        rule,
        previous,
        baseline_when_unrecorded,
        all,
    );
    if own.status != Status::Follows {
        return own;
    }
    // An enactment that uses a term this rule defines may change what the
    // mechanic means: held until a moderator has seen it.
    let acknowledged = previous.map(|p| p.acknowledged.as_slice()).unwrap_or(&[]);
    let unseen: Vec<(u32, String)> = touching(ruleset, declared, rule)
        .into_iter()
        .filter(|(number, _)| !acknowledged.contains(number))
        .collect();
    match unseen.first() {
        None => own,
        Some((number, term)) => Binding {
            status: Status::Held {
                difference: format!(
                    "rule {number}, enacted or amended since, uses the term \"{term}\", which rule {} defines{}",
                    ruleset.current_number(rule),
                    if unseen.len() > 1 {
                        format!(" (and {} more such rules)", unseen.len() - 1)
                    } else {
                        String::new()
                    }
                ),
            },
            ..own
        },
    }
}

/// The rules in effect, enacted or amended since the ruleset was imported and
/// bound by no mechanic of the game, that use a term rule `rule` defines (the
/// glossary's reading), with that term.
pub fn touching(ruleset: &Ruleset, declared: &Declared, rule: u32) -> Vec<(u32, String)> {
    let number = ruleset.current_number(rule);
    let bound: Vec<u32> = declared
        .rules()
        .into_iter()
        .map(|r| ruleset.current_number(r))
        .collect();
    let mut found: Vec<(u32, String)> = Vec::new();
    for term in ruleset.terms_defined_in(number) {
        for user in &term.used_in {
            let changed_since_import = ruleset
                .changes
                .iter()
                .rev()
                .find(|c| c.number == *user)
                .is_some_and(|c| c.kind != super::ChangeKind::Imported);
            if *user != number
                && !bound.contains(user)
                && changed_since_import
                && !found.iter().any(|(n, _)| n == user)
            {
                found.push((*user, term.term.clone()));
            }
        }
    }
    found.sort();
    found
}

/// What the rule's own text gives (see `decide`).
fn decide_text(
    ruleset: &Ruleset,
    declared: &Declared,
    rule: u32,
    previous: Option<&Binding>,
    baseline_when_unrecorded: bool,
    all: &[Declared],
) -> Binding {
    let acknowledged = previous.map(|p| p.acknowledged.clone()).unwrap_or_default();
    let binding = |status: Status, text: Option<String>, values: Vec<(String, i64)>| Binding {
        game: declared.game.to_owned(),
        rule,
        status,
        text,
        values,
        acknowledged: acknowledged.clone(),
    };
    let number = ruleset.current_number(rule);
    let Some(current) = ruleset.get(number) else {
        if ruleset.was_repealed(number) {
            return binding(
                Status::Stopped {
                    why: "repealed".into(),
                },
                None,
                Vec::new(),
            );
        }
        if baseline_when_unrecorded && never_recorded(ruleset, declared) {
            return binding(Status::Follows, None, Vec::new());
        }
        return binding(
            Status::Stopped {
                why: "not in the ruleset".into(),
            },
            None,
            Vec::new(),
        );
    };
    if is_void(current) {
        return binding(
            Status::Stopped { why: "void".into() },
            Some(current.text.clone()),
            Vec::new(),
        );
    }
    // A moderator's ruling (or a hold on its text) on this very text stands
    // until the text changes.
    if let Some(previous) = previous
        && previous.text.as_deref() == Some(current.text.as_str())
        && !previous.status_from_others()
    {
        return previous.clone();
    }
    let Some(baseline) = declared.baseline_of(rule) else {
        return binding(Status::Follows, Some(current.text.clone()), Vec::new());
    };
    let mut parameters = declared.parameters_of(rule);
    for other in all.iter().filter(|d| d.game != declared.game) {
        if other.baseline_of(rule) == Some(baseline) {
            parameters.extend(other.parameters_of(rule));
        }
    }
    match numbers_changed(baseline, &current.text, &parameters) {
        Ok(values) => binding(Status::Follows, Some(current.text.clone()), values),
        // The numbers in force stay what a moderator's `keep` would keep.
        Err(difference) => binding(
            Status::Held { difference },
            Some(current.text.clone()),
            previous.map(|p| p.values.clone()).unwrap_or_default(),
        ),
    }
}

/// A rule the page marks "(void: ...)" is not in effect (Gnomic rule 110).
pub fn is_void(rule: &Rule) -> bool {
    rule.note.trim_start().to_lowercase().starts_with("(void")
}

/// The words and numbers of a text, lower-case, each symbol on its own.
pub fn tokens(text: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
            continue;
        }
        if !word.is_empty() {
            tokens.push(std::mem::take(&mut word));
        }
        if !c.is_whitespace() {
            tokens.push(c.to_string());
        }
    }
    if !word.is_empty() {
        tokens.push(word);
    }
    tokens
}

/// A number as a rule writes it: digits, or a number word up to ninety-nine
/// ("ten", "thirty"; a hyphenated "twenty-five" is two tokens and not read).
pub fn number_of(token: &str) -> Option<i64> {
    if let Ok(n) = token.parse::<i64>() {
        return Some(n);
    }
    const WORDS: [&str; 21] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
    ];
    const TENS: [&str; 7] = [
        "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    ];
    if let Some(n) = WORDS.iter().position(|w| *w == token) {
        return Some(n as i64);
    }
    if let Some(n) = TENS.iter().position(|w| *w == token) {
        return Some(30 + 10 * n as i64);
    }
    match token {
        "hundred" => Some(100),
        _ => None,
    }
}

/// Where each parameter's number stands among the baseline's tokens: the number
/// within the first place its words appear.
fn positions(baseline: &[String], parameters: &[&Parameter]) -> Vec<(usize, &'static str)> {
    let mut found = Vec::new();
    for parameter in parameters {
        let words = tokens(parameter.words);
        let Some(offset) = words.iter().position(|w| number_of(w).is_some()) else {
            continue;
        };
        if words.is_empty() || words.len() > baseline.len() {
            continue;
        }
        if let Some(start) = (0..=baseline.len() - words.len())
            .find(|&start| baseline[start..start + words.len()] == words[..])
        {
            found.push((start + offset, parameter.name));
        }
    }
    found
}

/// The bound numbers an amended text gives, when it differs from the baseline
/// only in numbers at bound places; otherwise the difference, in words, for the
/// moderators.
pub fn numbers_changed(
    baseline: &str,
    text: &str,
    parameters: &[&Parameter],
) -> Result<Vec<(String, i64)>, String> {
    let old = tokens(baseline);
    let new = tokens(text);
    if old == new {
        return Ok(Vec::new());
    }
    let places = positions(&old, parameters);
    let difference = || difference(&old, &new);
    if old.len() != new.len() {
        return Err(difference());
    }
    let mut values = Vec::new();
    for (at, (was, now)) in old.iter().zip(&new).enumerate() {
        if was == now {
            continue;
        }
        let (Some(_), Some(value)) = (number_of(was), number_of(now)) else {
            return Err(difference());
        };
        let Some((_, name)) = places.iter().find(|(place, _)| *place == at) else {
            return Err(difference());
        };
        values.push(((*name).to_owned(), value));
    }
    Ok(values)
}

/// The first place two texts part, with a little of each around it: what a
/// moderator needs to see to rule.
fn difference(old: &[String], new: &[String]) -> String {
    let start = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let end = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let context = 6;
    let from = start.saturating_sub(context);
    let cut = |words: &[String]| {
        let stop = words.len().saturating_sub(end).max(start);
        let stop = (stop + context).min(words.len());
        words[from.min(stop)..stop].join(" ")
    };
    format!(
        "the text the bot implements reads \"... {} ...\"; the rule now reads \"... {} ...\"",
        cut(old),
        cut(new)
    )
}

/// What the bot follows of every bound rule (of `only`, if given), decided
/// against the registry as it stands: each game's mechanics, the status and
/// every bound number with its words. For `[ruleset] show` and `state`.
pub fn report(
    ruleset: &Ruleset,
    bound: &[Declared],
    only: Option<u32>,
    baseline_when_unrecorded: bool,
) -> serde_json::Value {
    let mut out = Vec::new();
    for declared in bound {
        for rule in declared.rules() {
            if only.is_some_and(|only| only != rule) {
                continue;
            }
            let binding = decide(
                ruleset,
                declared,
                rule,
                ruleset.binding(declared.game, rule),
                baseline_when_unrecorded,
                bound,
            );
            let values: Vec<serde_json::Value> = declared
                .parameters_of(rule)
                .iter()
                .map(|p| {
                    let value = binding
                        .values
                        .iter()
                        .find(|(n, _)| n == p.name)
                        .map_or(p.value, |(_, v)| *v);
                    serde_json::json!({ "name": p.name, "words": p.words, "value": value })
                })
                .collect();
            let recorded = ruleset.get(ruleset.current_number(rule)).is_some();
            let (status, why) = match &binding.status {
                // Following a text the registry never held is following the
                // bot's own copy: say so, or "follows" reads as if imported.
                Status::Follows if !recorded => (
                    "baseline",
                    Some(format!(
                        "rule {rule} is not in the ruleset: the bot follows the text it ships until the rule is imported (nomicbot import-rules)"
                    )),
                ),
                Status::Follows => ("follows", None),
                Status::Stopped { why } => ("stopped", Some(why.clone())),
                Status::Held { difference } => ("held", Some(difference.clone())),
                Status::Off { reason } => ("off", Some(reason.clone())),
            };
            out.push(serde_json::json!({
                "game": declared.game,
                "rule": rule,
                "mechanics": declared.mechanics_of(rule),
                "status": status,
                "why": why,
                "values": values,
            }));
        }
    }
    serde_json::Value::Array(out)
}

impl Binding {
    /// Held for another rule's enactment, not for its own text.
    fn status_from_others(&self) -> bool {
        matches!(&self.status, Status::Held { difference } if difference.contains("enacted or amended since"))
    }
}

impl Ruleset {
    /// The binding in force for `game`'s rule `rule`, if one was decided.
    pub fn binding(&self, game: &str, rule: u32) -> Option<&Binding> {
        self.bindings
            .iter()
            .find(|b| b.game == game && b.rule == rule)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parameter(name: &'static str, words: &'static str, value: i64) -> Parameter {
        Parameter { name, words, value }
    }

    #[test]
    fn an_amendment_of_a_bound_number_gives_the_new_value() {
        let offset = parameter("ordinal_offset", "subtracting 291", 291);
        let old = "and (2) subtracting 291 from the ordinal number of each proposal";
        let new = "and (2) subtracting 281 from the ordinal number of each proposal";
        assert_eq!(
            numbers_changed(old, new, &[&offset]),
            Ok(vec![("ordinal_offset".to_owned(), 281)])
        );
        // Number words too.
        let hours = parameter("vote_hours", "within 72 hours", 72);
        assert_eq!(
            numbers_changed(
                "vote within 72 hours of",
                "vote within ninety hours of",
                &[&hours]
            ),
            Ok(vec![("vote_hours".to_owned(), 90)])
        );
    }

    #[test]
    fn any_other_change_is_a_difference_to_rule_on() {
        let offset = parameter("ordinal_offset", "subtracting 291", 291);
        // A number that is no parameter.
        let held = numbers_changed(
            "This yields a number between 0 and 10 after subtracting 291",
            "This yields a number between 0 and 20 after subtracting 291",
            &[&offset],
        );
        assert!(held.is_err());
        // Words.
        let held = numbers_changed(
            "subtracting 291 from the ordinal",
            "adding 291 to the ordinal",
            &[&offset],
        )
        .unwrap_err();
        assert!(held.contains("adding 291 to"), "{held}");
        // Spacing and case are no change.
        assert_eq!(
            numbers_changed("Subtracting  291", "subtracting 291", &[&offset]),
            Ok(vec![])
        );
    }
}
