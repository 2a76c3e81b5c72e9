//! The ruleset registry, under the tag `[ruleset]`: the rules in effect, every past
//! version, the log of changes, and the glossary of game terms (which rule defines a
//! term, which rules use it) that Rule Tag moves along. Pure: commands in, events and
//! mail out; `apply_event` is the only thing that changes the registry. Importing a
//! ruleset page takes its text as a `&str`: the shell reads the file, never this module.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{Audience, Ctx, Done, Mail, Refusal, Sentence, Timestamp, human_time};

pub mod bindings;
mod glossary;
mod page;
mod parse;
#[cfg(test)]
mod tests;

pub use glossary::extract_glossary;
use glossary::{build_glossary, normalize_term};
pub use page::{ImportError, parse_paragraphs, parse_ruleset, parse_ruleset_with, rule_text};
pub use parse::{parse, parse_message};

pub const TAG: &str = "ruleset";

/// How many versions `[ruleset] history N` shows, the latest: a rule amended
/// every week would otherwise grow the answer without bound.
pub const HISTORY_VERSIONS: usize = 20;

/// One rule as it stands: its number, name, text, and how many times it was changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rule {
    pub number: u32,
    pub name: String,
    /// 1 when enacted; each amendment or transmutation adds 1.
    pub version: u32,
    pub text: String,
    /// Immutable rules may not be amended or repealed, only transmuted (Gnomic rule 103).
    pub mutable: bool,
    /// What the ruleset page says about the rule besides its text, such as
    /// "(void: conflicting rule)" or "Enacted by Thomas". Not rule text: it is no
    /// part of the glossary and an amendment clears it.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub note: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Enacted,
    Amended,
    Repealed,
    Transmuted,
    /// Brought in (or replaced) by an import of a ruleset page.
    Imported,
}

/// One entry of the change log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    pub at: Timestamp,
    pub number: u32,
    pub kind: ChangeKind,
    /// The version the change produced (for a repeal: the version repealed).
    pub version: u32,
    /// Who made it, as the announcement named em (`Event::Attributed`); none
    /// for a change logged before changes were attributed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

/// A game term: a quoted term a rule defines, with the other names it goes by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Term {
    /// Lower-case, single-spaced.
    pub term: String,
    /// Other names of the same meaning ("rto" for "rule tag object"), lower-case.
    pub aliases: Vec<String>,
    /// The rules that define it, ascending.
    pub defined_in: Vec<u32>,
    /// The rules that use it (whole words, any case, plural allowed) without
    /// defining it, ascending.
    pub used_in: Vec<u32>,
    /// The officer's `define`/`undefine` changed this entry.
    pub corrected: bool,
}

impl Term {
    fn is_named(&self, name: &str) -> bool {
        self.term == name || self.aliases.iter().any(|alias| alias == name)
    }
}

/// The officer's word on one term in one rule. Kept apart from the extracted glossary
/// so that it survives every re-extraction after a rule change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Correction {
    /// Lower-case, single-spaced; may be an alias.
    pub term: String,
    pub number: u32,
    /// `define` (true) or `undefine` (false).
    pub defined: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Ruleset {
    /// The rules in effect, by ascending number.
    pub rules: Vec<Rule>,
    /// Every superseded or repealed version, oldest first: the history.
    pub past: Vec<Rule>,
    pub changes: Vec<Change>,
    /// Recomputed from `rules` and `corrections` after every event.
    pub glossary: Vec<Term>,
    /// The latest correction per (term, rule), in the order given.
    pub corrections: Vec<Correction>,
    /// What the bot follows of each rule a game binds, as last decided
    /// (`bindings`); a bound rule with no entry was never changed.
    #[serde(default)]
    pub bindings: Vec<bindings::Binding>,
    /// Rules that took a new number when amended or transmuted (Gnomic rule
    /// 108), as (old, new), in order: a mechanic follows its rule there.
    #[serde(default)]
    pub renumbered: Vec<(u32, u32)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Enacted {
        number: u32,
        name: String,
        text: String,
        mutable: bool,
    },
    Amended {
        number: u32,
        text: String,
    },
    Repealed {
        number: u32,
    },
    /// Immutable becomes mutable or the other way round.
    Transmuted {
        number: u32,
    },
    Imported {
        rules: Vec<Rule>,
    },
    TermDefined {
        term: String,
        number: u32,
    },
    TermUndefined {
        term: String,
        number: u32,
    },
    /// Who made the change just logged for rule `number`: the keeper of the
    /// rules who sent the command, or the game whose play adopted it. Recorded
    /// after the change, so older logs without it still read.
    Attributed {
        number: u32,
        by: String,
    },
    /// Rule `from`, amended or transmuted, is rule `to` from now on (Gnomic
    /// rule 108: "it receives the ordinal number of the proposal").
    Renumbered {
        from: u32,
        to: u32,
    },
    /// What the bot follows of a bound rule was decided again: after a change
    /// of the registry, or by a moderator's ruling (`by` and `reason`).
    Bound {
        binding: bindings::Binding,
        #[serde(default)]
        by: Option<String>,
        #[serde(default)]
        reason: Option<String>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `number: None` takes the next free number.
    Enact {
        number: Option<u32>,
        name: String,
        text: String,
        mutable: bool,
    },
    Amend {
        number: u32,
        text: String,
    },
    Repeal {
        number: u32,
    },
    Transmute {
        number: u32,
    },
    Show {
        number: u32,
    },
    /// Every version of a rule, who changed it and when.
    History {
        number: u32,
    },
    /// The index: every rule's number and name.
    Rules,
    Define {
        term: String,
        number: u32,
    },
    Undefine {
        term: String,
        number: u32,
    },
    Terms,
}

impl Ruleset {
    pub fn get(&self, number: u32) -> Option<&Rule> {
        self.rules.iter().find(|rule| rule.number == number)
    }

    pub fn exists(&self, number: u32) -> bool {
        self.get(number).is_some()
    }

    /// The number rule `number` goes by now: itself, or the number an
    /// amendment or transmutation gave it (and so on).
    pub fn current_number(&self, number: u32) -> u32 {
        let mut current = number;
        // Each step moves to a later entry, so the walk ends.
        let mut from = 0;
        while let Some(index) = self.renumbered[from..]
            .iter()
            .position(|(old, _)| *old == current)
        {
            current = self.renumbered[from + index].1;
            from += index + 1;
        }
        current
    }

    /// Was the rule repealed (it is in the history but not in effect)?
    pub fn was_repealed(&self, number: u32) -> bool {
        !self.exists(number) && self.past.iter().any(|rule| rule.number == number)
    }

    /// One more than any number ever used, in effect or not: a repealed rule's
    /// number is not given again (Gnomic rule 108 numbers every change anew).
    pub fn next_free_number(&self) -> u32 {
        self.rules
            .iter()
            .chain(&self.past)
            .map(|rule| rule.number)
            .max()
            .map_or(1, |number| number.saturating_add(1))
    }

    /// Did the rule change (enacted, amended, repealed, transmuted, imported) at a
    /// moment in `[from, to)`? Half-open, so consecutive nweeks never share a change.
    pub fn changed_between(&self, number: u32, from: Timestamp, to: Timestamp) -> bool {
        self.changes_between(from, to)
            .iter()
            .any(|change| change.number == number)
    }

    /// Every change at a moment in `[from, to)`, oldest first.
    pub fn changes_between(&self, from: Timestamp, to: Timestamp) -> Vec<&Change> {
        self.changes
            .iter()
            .filter(|change| from <= change.at && change.at < to)
            .collect()
    }

    /// The glossary entry of a term or of one of its aliases, any case.
    pub fn term(&self, name: &str) -> Option<&Term> {
        let name = normalize_term(name);
        self.glossary.iter().find(|term| term.is_named(&name))
    }

    pub fn terms_defined_in(&self, number: u32) -> Vec<&Term> {
        self.glossary
            .iter()
            .filter(|term| term.defined_in.contains(&number))
            .collect()
    }

    pub fn terms_used_in(&self, number: u32) -> Vec<&Term> {
        self.glossary
            .iter()
            .filter(|term| term.used_in.contains(&number))
            .collect()
    }

    pub fn rules_defining(&self, term: &str) -> Vec<u32> {
        self.term(term)
            .map(|term| term.defined_in.clone())
            .unwrap_or_default()
    }

    pub fn rules_using(&self, term: &str) -> Vec<u32> {
        self.term(term)
            .map(|term| term.used_in.clone())
            .unwrap_or_default()
    }

    /// The terms that link two rules for a Rule Tag move: used in `from` and defined
    /// in `to`, or defined in `from` and used in `to`.
    pub fn linking_terms(&self, from: u32, to: u32) -> Vec<&Term> {
        self.glossary
            .iter()
            .filter(|term| {
                (term.used_in.contains(&from) && term.defined_in.contains(&to))
                    || (term.defined_in.contains(&from) && term.used_in.contains(&to))
            })
            .collect()
    }

    /// The version a new rule under this number gets: one past any earlier use of the
    /// number, so that (number, version) names one text for ever.
    fn version_after_past(&self, number: u32) -> u32 {
        self.past
            .iter()
            .filter(|rule| rule.number == number)
            .map(|rule| rule.version)
            .max()
            .map_or(1, |version| version.saturating_add(1))
    }

    /// Every change of the rule under `number`, oldest first, each with the
    /// text it left in effect (none for a repeal): `[ruleset] history N`.
    pub fn history(&self, number: u32) -> Vec<serde_json::Value> {
        let text_of = |version: u32| {
            self.rules
                .iter()
                .chain(&self.past)
                .find(|rule| rule.number == number && rule.version == version)
        };
        self.changes
            .iter()
            .filter(|change| change.number == number)
            .map(|change| {
                let rule = text_of(change.version);
                let kind = serde_json::to_value(change.kind).unwrap_or_default();
                json!({
                    "version": change.version,
                    "kind": kind,
                    "at": human_time(change.at),
                    "by": change.by,
                    "name": rule.map(|rule| rule.name.clone()),
                    "mutable": rule.map(|rule| rule.mutable),
                    "text": rule
                        .filter(|_| change.kind != ChangeKind::Repealed)
                        .map(|rule| rule.text.clone()),
                })
            })
            .collect()
    }

    fn log(&mut self, at: Timestamp, number: u32, kind: ChangeKind, version: u32) {
        self.changes.push(Change {
            at,
            number,
            kind,
            version,
            by: None,
        });
    }

    /// Puts a rule in effect, keeping any rule it replaces in the history.
    fn put(&mut self, rule: Rule) {
        if let Some(index) = self.rules.iter().position(|r| r.number == rule.number) {
            let old = std::mem::replace(&mut self.rules[index], rule);
            self.past.push(old);
        } else {
            let index = self.rules.partition_point(|r| r.number < rule.number);
            self.rules.insert(index, rule);
        }
    }

    /// Changes the rule in effect under `number`, keeping the old version in the history.
    fn change(&mut self, number: u32, change: impl FnOnce(&mut Rule)) -> Option<u32> {
        let rule = self.rules.iter_mut().find(|rule| rule.number == number)?;
        let old = rule.clone();
        change(rule);
        rule.version = old.version.saturating_add(1);
        let version = rule.version;
        self.past.push(old);
        Some(version)
    }

    fn correct(&mut self, term: &str, number: u32, defined: bool) {
        let term = normalize_term(term);
        self.corrections
            .retain(|c| !(c.term == term && c.number == number));
        self.corrections.push(Correction {
            term,
            number,
            defined,
        });
    }

    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        match event {
            Event::Bound { binding, .. } => {
                self.bindings
                    .retain(|b| !(b.game == binding.game && b.rule == binding.rule));
                self.bindings.push(binding.clone());
                return;
            }
            Event::Renumbered { from, to } => {
                self.renumbered.push((*from, *to));
                return;
            }
            Event::Attributed { number, by } => {
                if let Some(change) = self.changes.iter_mut().rev().find(|c| c.number == *number) {
                    change.by = Some(by.clone());
                }
                return;
            }
            _ => {}
        }
        match event {
            Event::Enacted {
                number,
                name,
                text,
                mutable,
            } => {
                let version = self.version_after_past(*number);
                self.put(Rule {
                    number: *number,
                    name: name.clone(),
                    version,
                    text: text.clone(),
                    mutable: *mutable,
                    note: String::new(),
                });
                self.log(at, *number, ChangeKind::Enacted, version);
            }
            Event::Amended { number, text } => {
                let changed = self.change(*number, |rule| {
                    rule.text = text.clone();
                    rule.note.clear();
                });
                if let Some(version) = changed {
                    self.log(at, *number, ChangeKind::Amended, version);
                }
            }
            Event::Repealed { number } => {
                if let Some(index) = self.rules.iter().position(|r| r.number == *number) {
                    let repealed = self.rules.remove(index);
                    let version = repealed.version;
                    self.past.push(repealed);
                    self.log(at, *number, ChangeKind::Repealed, version);
                }
            }
            Event::Transmuted { number } => {
                if let Some(version) = self.change(*number, |rule| rule.mutable = !rule.mutable) {
                    self.log(at, *number, ChangeKind::Transmuted, version);
                }
            }
            Event::Imported { rules } => {
                for imported in rules {
                    let mut rule = imported.clone();
                    match self.get(rule.number) {
                        // The same rule again: nothing changed, nothing to log.
                        Some(current)
                            if current.name == rule.name
                                && current.text == rule.text
                                && current.mutable == rule.mutable =>
                        {
                            continue;
                        }
                        Some(current) => {
                            rule.version = rule.version.max(current.version.saturating_add(1));
                        }
                        None => {
                            rule.version = rule.version.max(self.version_after_past(rule.number));
                        }
                    }
                    let (number, version) = (rule.number, rule.version);
                    self.put(rule);
                    self.log(at, number, ChangeKind::Imported, version);
                }
            }
            Event::TermDefined { term, number } => self.correct(term, *number, true),
            Event::TermUndefined { term, number } => self.correct(term, *number, false),
            Event::Bound { .. } | Event::Renumbered { .. } | Event::Attributed { .. } => {}
        }
        self.glossary = build_glossary(&self.rules, &self.corrections);
    }

    /// The rules of an imported page, as one event with its announcement.
    /// The shell reads the file and calls `parse_ruleset_with` first.
    pub fn import(&self, rules: Vec<Rule>, at: Timestamp) -> Result<Done<Event>, Refusal> {
        if rules.is_empty() {
            return Err(Sentence::new("ruleset_nothing_to_import").into());
        }
        let numbers: Vec<u32> = rules.iter().map(|rule| rule.number).collect();
        let replaced: Vec<u32> = numbers
            .iter()
            .copied()
            .filter(|number| self.exists(*number))
            .collect();
        Ok(Done {
            mail: vec![Mail::new(
                Audience::List,
                TAG,
                "ruleset_imported",
                json!({
                    "count": rules.len(),
                    "numbers": numbers,
                    "replaced": replaced,
                    "rules": rules.iter().map(|rule| json!({"number": rule.number, "name": rule.name, "mutable": rule.mutable})).collect::<Vec<_>>(),
                    "at": human_time(at),
                }),
            )],
            sentence: Sentence::new("ruleset_imported")
                .arg("count", rules.len())
                .arg("numbers", &numbers),
            events: vec![Event::Imported { rules }],
        })
    }

    /// Carries out one command. Changing the rules or the glossary is for the officer
    /// who keeps the rules (`is_rules_officer`: `Officers::keeps_the_rules`, so a
    /// moderator too);
    /// reading them is for anyone. On `Err` nothing happened.
    pub fn apply(
        &self,
        command: Command,
        ctx: &Ctx,
        is_rules_officer: bool,
    ) -> Result<Done<Event>, Refusal> {
        let officer_only = match &command {
            Command::Enact { .. } => Some("enact"),
            Command::Amend { .. } => Some("amend"),
            Command::Repeal { .. } => Some("repeal"),
            Command::Transmute { .. } => Some("transmute"),
            Command::Define { .. } => Some("define"),
            Command::Undefine { .. } => Some("undefine"),
            Command::Show { .. } | Command::History { .. } | Command::Rules | Command::Terms => {
                None
            }
        };
        if let Some(action) = officer_only
            && !is_rules_officer
        {
            return Err(Sentence::new("ruleset_not_officer")
                .arg("action", action)
                .into());
        }
        let at = human_time(ctx.now);
        let attributed = |number: u32| Event::Attributed {
            number,
            by: ctx.signature(),
        };
        // Every announcement carries every key, so that the template (strict about
        // undefined values) can test any of them.
        let changed = |kind: &str, rule: &Rule, version: u32, extra: serde_json::Value| {
            let mut values = json!({
                "kind": kind,
                "number": rule.number,
                "name": rule.name,
                "version": version,
                "mutable": rule.mutable,
                "text": null,
                "old_text": null,
                "term": null,
                "at": at,
            });
            if let (Some(values), serde_json::Value::Object(extra)) =
                (values.as_object_mut(), extra)
            {
                values.extend(extra);
            }
            Mail::new(Audience::List, TAG, "ruleset_changed", values)
        };
        match command {
            Command::Enact {
                number,
                name,
                text,
                mutable,
            } => {
                let number = number.unwrap_or_else(|| self.next_free_number());
                if let Some(taken) = self.get(number) {
                    return Err(Sentence::new("ruleset_number_taken")
                        .arg("number", number)
                        .arg("name", &taken.name)
                        .arg("next", self.next_free_number())
                        .into());
                }
                let text = text.trim_matches('\n').to_owned();
                if text.trim().is_empty() {
                    return Err(empty_text("enact", Some(number)));
                }
                let rule = Rule {
                    number,
                    name: name.clone(),
                    version: self.version_after_past(number),
                    text: text.clone(),
                    mutable,
                    note: String::new(),
                };
                Ok(Done {
                    events: vec![
                        Event::Enacted {
                            number,
                            name: name.clone(),
                            text: text.clone(),
                            mutable,
                        },
                        attributed(number),
                    ],
                    mail: vec![changed(
                        "enacted",
                        &rule,
                        rule.version,
                        json!({ "text": text }),
                    )],
                    sentence: Sentence::new("ruleset_enacted")
                        .arg("number", number)
                        .arg("name", name)
                        .arg("mutable", mutable),
                })
            }
            Command::Amend { number, text } => {
                let rule = self.changeable(number, "amend")?;
                let text = text.trim_matches('\n').to_owned();
                if text.trim().is_empty() {
                    return Err(empty_text("amend", Some(number)));
                }
                if text == rule.text {
                    return Err(Sentence::new("ruleset_same_text")
                        .arg("number", number)
                        .arg("name", &rule.name)
                        .into());
                }
                let version = rule.version.saturating_add(1);
                Ok(Done {
                    events: vec![
                        Event::Amended {
                            number,
                            text: text.clone(),
                        },
                        attributed(number),
                    ],
                    mail: vec![changed(
                        "amended",
                        rule,
                        version,
                        json!({ "text": text, "old_text": rule.text }),
                    )],
                    sentence: Sentence::new("ruleset_amended")
                        .arg("number", number)
                        .arg("name", &rule.name)
                        .arg("version", version),
                })
            }
            Command::Repeal { number } => {
                let rule = self.changeable(number, "repeal")?;
                Ok(Done {
                    events: vec![Event::Repealed { number }, attributed(number)],
                    mail: vec![changed(
                        "repealed",
                        rule,
                        rule.version,
                        json!({ "old_text": rule.text }),
                    )],
                    sentence: Sentence::new("ruleset_repealed")
                        .arg("number", number)
                        .arg("name", &rule.name),
                })
            }
            Command::Transmute { number } => {
                let rule = self.existing(number)?;
                let mut transmuted = rule.clone();
                transmuted.mutable = !rule.mutable;
                let version = rule.version.saturating_add(1);
                Ok(Done {
                    events: vec![Event::Transmuted { number }, attributed(number)],
                    mail: vec![changed("transmuted", &transmuted, version, json!({}))],
                    sentence: Sentence::new("ruleset_transmuted")
                        .arg("number", number)
                        .arg("name", &rule.name)
                        .arg("mutable", transmuted.mutable),
                })
            }
            Command::Show { number } => {
                let rule = self.existing(number)?;
                Ok(Done {
                    events: Vec::new(),
                    mail: Vec::new(),
                    sentence: Sentence::new("ruleset_rule")
                        .arg("number", number)
                        .arg("name", &rule.name)
                        .arg("version", rule.version)
                        .arg("mutable", rule.mutable)
                        .arg("text", &rule.text)
                        .arg("note", &rule.note),
                })
            }
            Command::History { number } => {
                let versions = self.history(number);
                if versions.is_empty() {
                    return Err(Sentence::new("ruleset_no_history")
                        .arg("number", number)
                        .into());
                }
                Ok(Done {
                    events: Vec::new(),
                    mail: Vec::new(),
                    sentence: Sentence::new("ruleset_history")
                        .arg("number", number)
                        .arg("in_effect", self.exists(number))
                        .arg("shown", versions.len().min(HISTORY_VERSIONS))
                        .arg("total", versions.len())
                        .arg(
                            "versions",
                            &versions[versions.len().saturating_sub(HISTORY_VERSIONS)..],
                        ),
                })
            }
            Command::Rules => Ok(Done {
                events: Vec::new(),
                mail: Vec::new(),
                sentence: Sentence::new("ruleset_index").arg("rules", self.index()),
            }),
            Command::Define { term, number } => {
                let rule = self.existing(number)?;
                if self.rules_defining(&term).contains(&number) {
                    return Err(Sentence::new("ruleset_term_already_defined")
                        .arg("term", &term)
                        .arg("number", number)
                        .arg("name", &rule.name)
                        .into());
                }
                Ok(Done {
                    events: vec![Event::TermDefined {
                        term: term.clone(),
                        number,
                    }],
                    mail: vec![changed(
                        "defined",
                        rule,
                        rule.version,
                        json!({ "term": term }),
                    )],
                    sentence: Sentence::new("ruleset_term_defined")
                        .arg("term", term)
                        .arg("number", number)
                        .arg("name", &rule.name),
                })
            }
            Command::Undefine { term, number } => {
                let rule = self.existing(number)?;
                if !self.rules_defining(&term).contains(&number) {
                    return Err(Sentence::new("ruleset_term_not_defined")
                        .arg("term", &term)
                        .arg("number", number)
                        .arg("name", &rule.name)
                        .arg("defined_in", self.rules_defining(&term))
                        .into());
                }
                Ok(Done {
                    events: vec![Event::TermUndefined {
                        term: term.clone(),
                        number,
                    }],
                    mail: vec![changed(
                        "undefined",
                        rule,
                        rule.version,
                        json!({ "term": term }),
                    )],
                    sentence: Sentence::new("ruleset_term_undefined")
                        .arg("term", term)
                        .arg("number", number)
                        .arg("name", &rule.name),
                })
            }
            Command::Terms => Ok(Done {
                events: Vec::new(),
                mail: Vec::new(),
                sentence: Sentence::new("ruleset_glossary").arg("terms", &self.glossary),
            }),
        }
    }

    /// The rule in effect under `number`, or the refusal that says it is not.
    fn existing(&self, number: u32) -> Result<&Rule, Refusal> {
        self.get(number).ok_or_else(|| {
            Refusal(
                Sentence::new("ruleset_no_such_rule")
                    .arg("number", number)
                    .arg("repealed", self.was_repealed(number))
                    .arg(
                        "numbers",
                        self.rules.iter().map(|r| r.number).collect::<Vec<_>>(),
                    ),
            )
        })
    }

    /// A rule that may be amended or repealed: it exists and is mutable.
    fn changeable(&self, number: u32, action: &str) -> Result<&Rule, Refusal> {
        let rule = self.existing(number)?;
        if !rule.mutable {
            return Err(Sentence::new("ruleset_immutable")
                .arg("number", number)
                .arg("name", &rule.name)
                .arg("action", action)
                .into());
        }
        Ok(rule)
    }

    /// Every rule's number, name, version and mutability, for the index and `state`.
    pub fn index(&self) -> Vec<serde_json::Value> {
        self.rules
            .iter()
            .map(|rule| {
                json!({
                    "number": rule.number,
                    "name": rule.name,
                    "version": rule.version,
                    "mutable": rule.mutable,
                })
            })
            .collect()
    }
}

fn empty_text(action: &str, number: Option<u32>) -> Refusal {
    Refusal(
        Sentence::new("ruleset_empty_text")
            .arg("action", action)
            .arg("number", number),
    )
}
