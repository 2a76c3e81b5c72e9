//! The ruleset registry, under the tag `[ruleset]`: the rules in effect, every past
//! version, the log of changes, and the glossary of game terms (which rule defines a
//! term, which rules use it) that Rule Tag moves along. Pure: commands in, events and
//! mail out; `apply_event` is the only thing that changes the registry. Importing a
//! ruleset page takes its text as a `&str`: the shell reads the file, never this module.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::{
    Audience, Ctx, Done, Mail, NotUnderstood, Refusal, Sentence, Timestamp, human_time, split_verb,
};

pub const TAG: &str = "ruleset";

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

const COMMANDS: &str = "show NUMBER, rules, terms; for the officer who keeps the rules: \
    enact [immutable] [NUMBER] NAME, amend NUMBER, repeal NUMBER, transmute NUMBER \
    (enact and amend take the rule text on the following lines, up to a line \"end\"), \
    define TERM in NUMBER, undefine TERM in NUMBER";

fn usage(usage: &str) -> NotUnderstood {
    NotUnderstood(Sentence::new("usage").arg("usage", usage))
}

/// "325", "#325", "rule 325", "Rule #325".
fn rule_number(words: &str) -> Option<u32> {
    let words = words.trim();
    let words = match words.get(..5) {
        Some(prefix) if prefix.eq_ignore_ascii_case("rule ") => words[5..].trim_start(),
        _ => words,
    };
    words.strip_prefix('#').unwrap_or(words).parse().ok()
}

/// A term or name as written, without surrounding quotes or a trailing colon.
fn unquote(text: &str) -> &str {
    let text = text.trim().trim_end_matches(':').trim();
    let quotes: &[char] = &['"', '“', '”', '\''];
    text.strip_prefix(quotes)
        .and_then(|inner| inner.strip_suffix(quotes))
        .unwrap_or(text)
        .trim()
}

/// Reads `TERM in NUMBER`.
fn term_in_rule(rest: &str) -> Option<(String, u32)> {
    // ASCII lower-casing keeps byte offsets, so the index is valid in `rest`.
    let at = rest.to_ascii_lowercase().rfind(" in ")?;
    let term = normalize_term(unquote(&rest[..at]));
    let number = rule_number(&rest[at + 4..])?;
    (!term.is_empty()).then_some((term, number))
}

/// Reads one `[ruleset]` command line. For `enact` and `amend` the text is empty:
/// it is on the following lines, which `parse_message` gathers.
pub fn parse(line: &str) -> Result<Command, NotUnderstood> {
    let (verb, rest) = split_verb(line);
    let number_command = |make: fn(u32) -> Command, written: &str| {
        rule_number(rest).map(make).ok_or_else(|| usage(written))
    };
    match verb.as_str() {
        "enact" => {
            let (mutable, rest) = match split_verb(rest) {
                (word, after) if word == "immutable" => (false, after),
                _ => (true, rest),
            };
            let (number, name) = match rest.split_once(char::is_whitespace) {
                Some((first, after)) => match rule_number(first) {
                    Some(number) => (Some(number), after),
                    None => (None, rest),
                },
                None => (None, rest),
            };
            let name = unquote(name);
            if name.is_empty() || rule_number(name).is_some() {
                return Err(usage("enact [immutable] [NUMBER] NAME, then the text"));
            }
            Ok(Command::Enact {
                number,
                name: name.to_owned(),
                text: String::new(),
                mutable,
            })
        }
        "amend" => match rule_number(rest) {
            Some(number) => Ok(Command::Amend {
                number,
                text: String::new(),
            }),
            None => Err(usage("amend NUMBER, then the new text")),
        },
        "repeal" => number_command(|number| Command::Repeal { number }, "repeal NUMBER"),
        "transmute" => number_command(|number| Command::Transmute { number }, "transmute NUMBER"),
        "show" | "rule" => number_command(|number| Command::Show { number }, "show NUMBER"),
        "rules" | "index" if rest.is_empty() => Ok(Command::Rules),
        "define" => term_in_rule(rest)
            .map(|(term, number)| Command::Define { term, number })
            .ok_or_else(|| usage("define TERM in NUMBER")),
        "undefine" => term_in_rule(rest)
            .map(|(term, number)| Command::Undefine { term, number })
            .ok_or_else(|| usage("undefine TERM in NUMBER")),
        "terms" | "glossary" if rest.is_empty() => Ok(Command::Terms),
        _ => Err(NotUnderstood(
            Sentence::new("unknown_command")
                .arg("tag", TAG)
                .arg("commands", COMMANDS),
        )),
    }
}

/// Reads a whole message body: `enact` and `amend` take the lines after them as the
/// rule text, up to a line `end` or the end of the message; every other line is a
/// command of its own. Each entry is the command line as written and what it reads as.
pub fn parse_message(lines: &[String]) -> Vec<(String, Result<Command, NotUnderstood>)> {
    let mut read = Vec::new();
    let mut index = 0;
    while let Some(line) = lines.get(index) {
        index += 1;
        if line.trim().is_empty() {
            continue;
        }
        let (verb, _) = split_verb(line);
        let mut result = parse(line);
        // The text belongs to the command even when its first line was wrong, so it
        // is never read as a string of commands of its own.
        if verb == "enact" || verb == "amend" {
            let mut text_lines: Vec<&str> = Vec::new();
            while let Some(text_line) = lines.get(index) {
                index += 1;
                if text_line.trim().eq_ignore_ascii_case("end") {
                    break;
                }
                text_lines.push(text_line.trim_end());
            }
            let text = text_lines.join("\n").trim_matches('\n').to_owned();
            if let Ok(Command::Enact { text: slot, .. } | Command::Amend { text: slot, .. }) =
                &mut result
            {
                *slot = text;
            }
        }
        read.push((line.clone(), result));
    }
    read
}

impl Ruleset {
    pub fn get(&self, number: u32) -> Option<&Rule> {
        self.rules.iter().find(|rule| rule.number == number)
    }

    pub fn exists(&self, number: u32) -> bool {
        self.get(number).is_some()
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

    fn log(&mut self, at: Timestamp, number: u32, kind: ChangeKind, version: u32) {
        self.changes.push(Change {
            at,
            number,
            kind,
            version,
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
    /// who keeps the rules (`is_rules_officer`, decided by the shell from bot.toml);
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
            Command::Show { .. } | Command::Rules | Command::Terms => None,
        };
        if let Some(action) = officer_only
            && !is_rules_officer
        {
            return Err(Sentence::new("ruleset_not_officer")
                .arg("action", action)
                .into());
        }
        let at = human_time(ctx.now);
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
                    events: vec![Event::Enacted {
                        number,
                        name: name.clone(),
                        text: text.clone(),
                        mutable,
                    }],
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
                    events: vec![Event::Amended {
                        number,
                        text: text.clone(),
                    }],
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
                    events: vec![Event::Repealed { number }],
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
                    events: vec![Event::Transmuted { number }],
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

// --- import ------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    #[error(
        "no rules found: neither a ruleset page (\"Rule 101\" lines) nor \"Create a new rule\" blocks"
    )]
    UnknownFormat,
    #[error("the page lists rule {0} but holds no text for it")]
    Missing(u32),
    #[error("rule {0} appears twice")]
    Duplicate(u32),
    #[error("rule {0} has no name")]
    NoName(u32),
    #[error("rule {number} ({name}) has no text")]
    NoText { number: u32, name: String },
}

/// Reads a ruleset in either known format; new rules without numbers are numbered from 1.
pub fn parse_ruleset(text: &str) -> Result<Vec<Rule>, ImportError> {
    parse_ruleset_with(text, 1)
}

/// Reads a ruleset page (`Rule 101` headers, as on the Gnomic site) or the
/// `Create a new rule "NAME":` blocks of a proposal, which carry no numbers: those
/// are numbered from `first_number` in the order they come.
pub fn parse_ruleset_with(text: &str, first_number: u32) -> Result<Vec<Rule>, ImportError> {
    let lines: Vec<&str> = text.lines().map(|line| line.trim_end()).collect();
    if lines.iter().any(|line| header_number(line).is_some()) {
        parse_page(&lines)
    } else if lines.iter().any(|line| create_rule_name(line).is_some()) {
        parse_proposal(&lines, first_number)
    } else {
        Err(ImportError::UnknownFormat)
    }
}

/// `Rule 101` alone on its line.
fn header_number(line: &str) -> Option<u32> {
    let rest = line.trim().strip_prefix("Rule")?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    rest.trim().parse().ok()
}

/// Paragraphs: runs of non-blank lines, each joined with newlines.
fn paragraphs<'a>(lines: &[&'a str]) -> Vec<Vec<&'a str>> {
    let mut paragraphs = vec![Vec::new()];
    for line in lines {
        if line.trim().is_empty() {
            paragraphs.push(Vec::new());
        } else if let Some(last) = paragraphs.last_mut() {
            last.push(*line);
        }
    }
    paragraphs.retain(|paragraph| !paragraph.is_empty());
    paragraphs
}

/// A page's own annotation of a rule's history, under its text ("initial rule.",
/// "Enacted by Thomas", "Amended from 363 by Thomas", ...).
fn is_history_note(paragraph: &str) -> bool {
    let lower = paragraph.trim().to_lowercase();
    let starts = [
        "initial rule",
        "enacted",
        "amended",
        "transmuted",
        "created",
        "proposed",
        "originally proposed",
        "(previous history lost)",
    ];
    !paragraph.contains('\n') && starts.iter().any(|start| lower.starts_with(start))
}

/// The navigation line at both ends of a ruleset page.
fn is_page_furniture(line: &str) -> bool {
    line.contains(" --- ") || line.starts_with("Comments on ")
}

fn parse_page(lines: &[&str]) -> Result<Vec<Rule>, ImportError> {
    // The page opens with the index: lines of rule numbers only.
    let first_header = lines
        .iter()
        .position(|line| header_number(line).is_some())
        .unwrap_or(lines.len());
    let listed: Vec<u32> = lines[..first_header]
        .iter()
        .filter(|line| {
            !line.trim().is_empty()
                && line
                    .split_whitespace()
                    .all(|word| word.chars().all(|c| c.is_ascii_digit()))
        })
        .flat_map(|line| line.split_whitespace().filter_map(|word| word.parse().ok()))
        .collect();

    // Each block runs from its header to the next header. A header repeating the
    // number of a block that has no name yet is that rule's name (rule 322 is named
    // "Rule 322").
    let mut blocks: Vec<(u32, Vec<&str>)> = Vec::new();
    for line in &lines[first_header..] {
        if is_page_furniture(line) {
            break;
        }
        if let Some(number) = header_number(line) {
            let names_itself = blocks.last().is_some_and(|(current, body)| {
                *current == number && body.iter().all(|l| l.trim().is_empty())
            });
            if !names_itself {
                blocks.push((number, Vec::new()));
                continue;
            }
        }
        if let Some((_, body)) = blocks.last_mut() {
            body.push(line);
        }
    }

    let mut rules: Vec<Rule> = Vec::new();
    for (number, body) in blocks {
        if rules.iter().any(|rule| rule.number == number) {
            return Err(ImportError::Duplicate(number));
        }
        let mut paragraphs: Vec<String> = paragraphs(&body)
            .into_iter()
            .map(|paragraph| paragraph.join("\n"))
            .collect();
        let mut notes = Vec::new();
        if paragraphs
            .first()
            .is_some_and(|first| first.trim().starts_with("(void"))
        {
            notes.push(paragraphs.remove(0));
        }
        if paragraphs.is_empty() {
            return Err(ImportError::NoName(number));
        }
        let name = page_rule_name(&paragraphs.remove(0));
        if paragraphs.last().is_some_and(|last| is_history_note(last)) {
            notes.extend(paragraphs.pop());
        }
        let text = paragraphs.join("\n\n");
        if text.trim().is_empty() {
            return Err(ImportError::NoText { number, name });
        }
        rules.push(Rule {
            number,
            name,
            version: 1,
            text,
            // The page has no mutability column. Rule 102: "Initially rules in the
            // 100's are immutable"; the page records no transmutation of one that
            // kept its number (302 is 106 transmuted, renumbered by rule 108).
            mutable: !(100..200).contains(&number),
            note: notes.join("\n"),
        });
    }
    if let Some(missing) = listed
        .iter()
        .find(|number| !rules.iter().any(|rule| rule.number == **number))
    {
        return Err(ImportError::Missing(*missing));
    }
    if rules.is_empty() {
        return Err(ImportError::UnknownFormat);
    }
    rules.sort_by_key(|rule| rule.number);
    Ok(rules)
}

/// A page's name line without its closing full stop ("Follow the rules." is the rule
/// "Follow the rules"; rule 108 calls rule 104 "Two decks of cards"), but keeping an
/// ellipsis.
fn page_rule_name(paragraph: &str) -> String {
    let name = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
    match name.strip_suffix('.') {
        Some(stripped) if !stripped.ends_with('.') => stripped.to_owned(),
        _ => name,
    }
}

/// `Create a new rule "NAME":`, `Create a new rule titled "NAME"` (the colon is
/// sometimes forgotten).
fn create_rule_name(line: &str) -> Option<String> {
    let line = line.trim();
    let prefix = "create a new rule";
    if !line.get(..prefix.len())?.eq_ignore_ascii_case(prefix) {
        return None;
    }
    let mut rest = line[prefix.len()..].trim();
    for word in ["titled", "called", "named", "entitled"] {
        if let Some(head) = rest.get(..word.len())
            && head.eq_ignore_ascii_case(word)
        {
            rest = rest[word.len()..].trim();
        }
    }
    Some(unquote(rest).to_owned())
}

fn parse_proposal(lines: &[&str], first_number: u32) -> Result<Vec<Rule>, ImportError> {
    let mut blocks: Vec<(String, Vec<&str>)> = Vec::new();
    for line in lines {
        if let Some(name) = create_rule_name(line) {
            blocks.push((name, Vec::new()));
        } else if let Some((_, body)) = blocks.last_mut() {
            body.push(line);
        }
    }
    let mut rules = Vec::new();
    for (offset, (name, body)) in (0u32..).zip(blocks) {
        let number = first_number.saturating_add(offset);
        if name.is_empty() {
            return Err(ImportError::NoName(number));
        }
        let text = body.join("\n").trim_matches('\n').to_owned();
        if text.trim().is_empty() {
            return Err(ImportError::NoText { number, name });
        }
        rules.push(Rule {
            number,
            name,
            version: 1,
            text,
            mutable: true,
            note: String::new(),
        });
    }
    Ok(rules)
}

// --- glossary ----------------------------------------------------------------------

/// Lower-case, single-spaced, without surrounding punctuation a sentence left on it
/// (`"The Bearer of the Wobbly Hat of Justice."`).
fn normalize_term(term: &str) -> String {
    term.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_matches(|c: char| ".,;:!?".contains(c))
        .trim()
        .to_lowercase()
}

/// A rule's text as the glossary reads it: `[[...]]` comments out (they are
/// commentary, not rules; an unclosed one ends with its paragraph), one paragraph
/// per entry, whitespace collapsed.
fn rule_paragraphs(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    paragraphs(&lines)
        .into_iter()
        .map(|paragraph| {
            let joined = paragraph.join(" ");
            let mut kept = String::new();
            let mut rest = joined.as_str();
            while let Some(start) = rest.find("[[") {
                kept.push_str(&rest[..start]);
                kept.push(' ');
                rest = match rest[start..].find("]]") {
                    Some(end) => &rest[start + end + 2..],
                    None => "",
                };
            }
            kept.push_str(rest);
            kept.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .collect()
}

/// A quoted stretch of a sentence: byte offsets of the quote marks.
struct Quote {
    open: usize,
    close: usize,
}

/// A paragraph cut into sentences (at `. ; : ! ?` outside quotes), each with its
/// quotes. Straight and curly double quotes count; single quotes do not, because
/// they cannot be told from apostrophes.
fn sentences(paragraph: &str) -> Vec<(&str, Vec<Quote>)> {
    let mut sentences = Vec::new();
    let mut start = 0;
    let mut open: Option<usize> = None;
    let mut quotes = Vec::new();
    let mut chars = paragraph.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        match (c, open) {
            ('"' | '“', None) => open = Some(at - start),
            ('"' | '”', Some(opened)) => {
                quotes.push(Quote {
                    open: opened,
                    close: at - start,
                });
                open = None;
            }
            ('.' | ';' | ':' | '!' | '?', None)
                if chars.peek().is_none_or(|(_, next)| *next == ' ') =>
            {
                let end = at + c.len_utf8();
                sentences.push((&paragraph[start..end], std::mem::take(&mut quotes)));
                start = end;
            }
            _ => {}
        }
    }
    if start < paragraph.len() {
        sentences.push((&paragraph[start..], quotes));
    }
    sentences
}

/// What a quoted term in a sentence is.
#[derive(Clone, Copy, PartialEq)]
enum Quoted {
    /// A mention, no definition.
    Mention,
    /// A newly defined term.
    Defines,
    /// Another name of the term named by the sentence's subject.
    Alias,
}

fn ends_with_word(text: &str, words: &str) -> bool {
    text == words || text.ends_with(&format!(" {words}"))
}

/// Reads the words around one quote. `before` is the sentence before the quote,
/// `after` the sentence after it, both lower-case.
fn classify(before: &str, after: &str, first_in_sentence: bool) -> Quoted {
    let before = before.trim();
    // "referred to as the "RTL"": the article belongs to the pattern.
    let bare = ["the", "an", "a"]
        .iter()
        .find_map(|article| {
            (ends_with_word(before, article))
                .then(|| before[..before.len() - article.len()].trim_end())
        })
        .unwrap_or(before);
    if ends_with_word(bare, "respectively") {
        // "shall be referred to as respectively "web mode", "chat mode" ...": three terms.
        return Quoted::Defines;
    }
    let alias_words = [
        "referred to as",
        "known as",
        "also called",
        "abbreviated to",
        "abbreviated as",
        "shortened to",
    ];
    if alias_words.iter().any(|words| ends_with_word(bare, words)) {
        return Quoted::Alias;
    }
    // Not "named" or "titled": on a ruleset page those name rules ("Rule 104 in this
    // game is named "Two decks of cards""), not game terms.
    let naming_words = ["called", "the word", "the phrase", "the term"];
    let names_a_rule = ends_with_word(bare, "rule called");
    if naming_words.iter().any(|words| ends_with_word(bare, words)) && !names_a_rule {
        return Quoted::Defines;
    }
    if ["said to be", "said to be in"]
        .iter()
        .any(|words| ends_with_word(bare, words))
    {
        return Quoted::Defines;
    }
    let there_is = [
        "there is ",
        "there are ",
        "there will be ",
        "there shall be ",
    ];
    if first_in_sentence && there_is.iter().any(|start| before.starts_with(start)) {
        return Quoted::Defines;
    }
    let defining_verbs = [
        " is ",
        " are ",
        " means ",
        " shall mean ",
        " identifies ",
        " defines ",
        " refers to ",
    ];
    if defining_verbs.iter().any(|verb| after.starts_with(verb)) {
        return Quoted::Defines;
    }
    // Named actions: `an "element change" game action`, `a "rule tag move" action`.
    let article_before = ["a", "an"].iter().any(|a| ends_with_word(before, a));
    let action_follows = after.split_whitespace().take(3).any(|word| {
        let word = word.trim_matches(|c: char| !c.is_alphanumeric());
        word == "action" || word == "actions"
    });
    if article_before && action_follows {
        return Quoted::Defines;
    }
    Quoted::Mention
}

/// A draft glossary entry while the rules are read.
struct Draft {
    term: String,
    aliases: Vec<String>,
    defined_in: BTreeSet<u32>,
    corrected: bool,
}

fn find_draft(drafts: &[Draft], name: &str) -> Option<usize> {
    drafts
        .iter()
        .position(|d| d.term == name || d.aliases.iter().any(|a| a == name))
}

/// Defines `term` in rule `number`, as a new entry or on the entry of that name.
fn define(drafts: &mut Vec<Draft>, term: &str, number: u32) -> usize {
    match find_draft(drafts, term) {
        Some(index) => {
            drafts[index].defined_in.insert(number);
            index
        }
        None => {
            drafts.push(Draft {
                term: term.to_owned(),
                aliases: Vec::new(),
                defined_in: BTreeSet::from([number]),
                corrected: false,
            });
            drafts.len() - 1
        }
    }
}

/// The subject of an alias sentence ("It can be referred to as", "The rule tag
/// location may be referred to as"): the words before the first verb.
fn subject(before: &str) -> String {
    let verbs = [
        " can ", " may ", " shall ", " will ", " is ", " are ", " could ", " might ",
    ];
    let padded = format!(" {} ", before.trim());
    let end = verbs
        .iter()
        .filter_map(|verb| padded.find(verb))
        .min()
        .unwrap_or(padded.len());
    let words = padded[..end].trim();
    let words = ["the ", "an ", "a "]
        .iter()
        .find_map(|article| words.strip_prefix(article))
        .unwrap_or(words);
    normalize_term(words)
}

const PRONOUNS: &[&str] = &[
    "it",
    "ey",
    "he",
    "she",
    "they",
    "this",
    "its name",
    "whose name",
];

/// The terms each rule defines, with their aliases, read from defining sentences.
fn extract_definitions(rules: &[Rule]) -> Vec<Draft> {
    let mut drafts: Vec<Draft> = Vec::new();
    for rule in rules {
        let mut last_in_rule: Option<usize> = None;
        for paragraph in rule_paragraphs(&rule.text) {
            for (sentence, quotes) in sentences(&paragraph) {
                // ASCII lower-casing keeps byte offsets, so the quote offsets index `lower` too.
                let lower = sentence.to_ascii_lowercase();
                // The previous quote of this sentence: its kind, its entry, and
                // where it ended, for lists ("the Fund" or "FFMRFL").
                let mut previous: Option<(Quoted, Option<usize>, usize)> = None;
                let mut first_definition: Option<usize> = None;
                for (position, quote) in quotes.iter().enumerate() {
                    let Some(inner) = sentence.get(quote.open + 1..quote.close) else {
                        continue;
                    };
                    let term = normalize_term(inner.trim_start_matches('“'));
                    // A quote of a whole sentence or a list of values is no term.
                    if term.is_empty() || term.len() > 60 {
                        previous = None;
                        continue;
                    }
                    let (Some(before), Some(after)) =
                        (lower.get(..quote.open), lower.get(quote.close + 1..))
                    else {
                        continue;
                    };
                    let mut kind = classify(before, after, position == 0);
                    let mut chained_to = None;
                    if let Some((previous_kind, entry, end)) = previous
                        && previous_kind != Quoted::Mention
                        && let Some(between) = lower.get(end + 1..quote.open)
                        && matches!(
                            between.trim().trim_start_matches(',').trim(),
                            "" | "and" | "or"
                        )
                    {
                        kind = previous_kind;
                        chained_to = entry;
                    }
                    let entry = match kind {
                        Quoted::Mention => None,
                        Quoted::Defines => Some(define(&mut drafts, &term, rule.number)),
                        Quoted::Alias => {
                            let named = chained_to.or(first_definition).or_else(|| {
                                let subject = subject(before);
                                if PRONOUNS.contains(&subject.as_str()) {
                                    last_in_rule
                                } else {
                                    find_draft(&drafts, &subject)
                                }
                            });
                            match named {
                                Some(index) if drafts[index].term != term => {
                                    drafts[index].defined_in.insert(rule.number);
                                    if !drafts[index].aliases.contains(&term) {
                                        drafts[index].aliases.push(term.clone());
                                    }
                                    Some(index)
                                }
                                Some(index) => Some(index),
                                // "The rule pointed to by an RTL may be referred to as
                                // the "RTL rule"": no known subject, so a term of its own.
                                None => Some(define(&mut drafts, &term, rule.number)),
                            }
                        }
                    };
                    if let Some(index) = entry {
                        last_in_rule = Some(index);
                        if kind == Quoted::Defines && first_definition.is_none() {
                            first_definition = Some(index);
                        }
                    }
                    previous = Some((kind, entry, quote.close));
                }
            }
        }
    }
    drafts
}

/// Whether `name` occurs in `text` (both lower-case) as whole words; a plural
/// ("RTOs", "rule tag actions") counts, a longer word ("elemental") does not.
fn uses_words(text: &str, name: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '-';
    let mut from = 0;
    while let Some(found) = text.get(from..).and_then(|rest| rest.find(name)) {
        let start = from + found;
        let end = start + name.len();
        let before_ok = text[..start]
            .chars()
            .next_back()
            .is_none_or(|c| !is_word(c));
        let after = &text[end..];
        let after = after
            .strip_prefix("es")
            .filter(|rest| !rest.starts_with(is_word))
            .or_else(|| after.strip_prefix('s'))
            .unwrap_or(after);
        if before_ok && !after.starts_with(is_word) {
            return true;
        }
        from = start + name.chars().next().map_or(1, char::len_utf8);
    }
    false
}

/// The glossary of `rules`, with the officer's corrections applied last.
fn build_glossary(rules: &[Rule], corrections: &[Correction]) -> Vec<Term> {
    let mut drafts = extract_definitions(rules);
    for correction in corrections {
        let exists = rules.iter().any(|rule| rule.number == correction.number);
        match (correction.defined, find_draft(&drafts, &correction.term)) {
            // A correction about a repealed rule has nothing left to correct.
            (true, _) if !exists => {}
            (true, _) => {
                let index = define(&mut drafts, &correction.term, correction.number);
                drafts[index].corrected = true;
            }
            (false, Some(index)) => {
                drafts[index].defined_in.remove(&correction.number);
                drafts[index].corrected = true;
            }
            (false, None) => {}
        }
    }
    // A term no rule defines is no game term.
    drafts.retain(|draft| !draft.defined_in.is_empty());

    let texts: Vec<(u32, String)> = rules
        .iter()
        .map(|rule| {
            (
                rule.number,
                rule_paragraphs(&rule.text).join(" ").to_lowercase(),
            )
        })
        .collect();
    let mut glossary: Vec<Term> = drafts
        .into_iter()
        .map(|draft| {
            let used_in = texts
                .iter()
                .filter(|(number, text)| {
                    !draft.defined_in.contains(number)
                        && std::iter::once(&draft.term)
                            .chain(&draft.aliases)
                            .any(|name| uses_words(text, name))
                })
                .map(|(number, _)| *number)
                .collect();
            Term {
                term: draft.term,
                aliases: draft.aliases,
                defined_in: draft.defined_in.into_iter().collect(),
                used_in,
                corrected: draft.corrected,
            }
        })
        .collect();
    glossary.sort_by(|a, b| a.term.cmp(&b.term));
    glossary
}

/// The glossary of a set of rules as their texts define it, without corrections.
pub fn extract_glossary(rules: &[Rule]) -> Vec<Term> {
    build_glossary(rules, &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    const GNOMIC: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/rules/gnomic-ruleset-v73.txt"
    ));
    const RULE_TAG: &str = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/rules/rule-tag-proposal.txt"
    ));

    fn at(minutes: i64) -> Timestamp {
        Timestamp::from_second(1_800_000_000 + minutes * 60).unwrap()
    }

    fn ctx(minutes: i64) -> Ctx {
        Ctx {
            now: at(minutes),
            sender: crate::engine::Address::new("officer@example.org"),
            sender_name: None,
            public: true,
            entropy: [7; 32],
        }
    }

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    /// Applies a message as the shell would; returns each line's outcome.
    fn run(
        ruleset: &mut Ruleset,
        message: &str,
        minutes: i64,
        officer: bool,
    ) -> Vec<Result<Done<Event>, Refusal>> {
        parse_message(&lines(message))
            .into_iter()
            .map(|(_, command)| {
                let command = command.map_err(|NotUnderstood(s)| Refusal(s))?;
                let done = ruleset.apply(command, &ctx(minutes), officer)?;
                for event in &done.events {
                    ruleset.apply_event(event, at(minutes));
                }
                Ok(done)
            })
            .collect()
    }

    fn refusal(result: &Result<Done<Event>, Refusal>) -> &str {
        match result {
            Ok(_) => "done",
            Err(Refusal(sentence)) => &sentence.code,
        }
    }

    fn rule_tag_ruleset() -> Ruleset {
        let mut ruleset = Ruleset::default();
        let rules = parse_ruleset_with(RULE_TAG, 500).unwrap();
        ruleset.apply_event(&Event::Imported { rules }, at(0));
        ruleset
    }

    #[test]
    fn the_gnomic_page_imports_every_listed_rule() {
        let rules = parse_ruleset(GNOMIC).unwrap();
        let expected: Vec<u32> = vec![
            101, 102, 103, 104, 105, 107, 108, 109, 110, 112, 113, 114, 115, 116, 117, 118, 119,
            204, 205, 211, 212, 213, 302, 303, 304, 310, 322, 324, 325, 327, 332, 334, 336, 342,
            349, 359, 364, 366, 370, 371, 372, 373, 381, 382, 383, 384, 390, 392, 394, 399, 401,
            402, 407, 410, 412, 419, 421, 423, 424, 425, 430, 431, 432, 434, 437, 440,
        ];
        let numbers: Vec<u32> = rules.iter().map(|rule| rule.number).collect();
        assert_eq!(numbers, expected);
        let rule = |number| rules.iter().find(|rule| rule.number == number).unwrap();
        assert_eq!(rule(101).name, "Follow the rules");
        assert_eq!(rule(104).name, "Two decks of cards");
        assert_eq!(rule(322).name, "Rule 322");
        assert_eq!(rule(336).name, "Now, hold up one finger...");
        assert_eq!(rule(303).name, "May they wait until they're dead");
        assert!(rule(303).note.starts_with("(void: conflicting rule)"));
        assert!(
            rule(325)
                .text
                .starts_with("Players shall alternate in alphabetical order")
        );
        assert!(
            rule(325)
                .text
                .ends_with("All scores will be rounded to next integer.")
        );
        assert!(!rule(325).text.contains("Amended to Prop."));
        assert!(rule(322).text.contains("within a 72-hour period"));
        assert!(rule(440).text.ends_with("all those greek letters."));
        assert!(!rule(440).text.contains("Comments on"));
        // Rule 102: the 100's are immutable, everything else mutable.
        for rule in &rules {
            assert_eq!(rule.mutable, rule.number >= 200, "rule {}", rule.number);
            assert_eq!(rule.version, 1);
        }
    }

    #[test]
    fn the_rule_tag_proposal_imports_five_numbered_rules() {
        let rules = parse_ruleset_with(RULE_TAG, 326).unwrap();
        let names: Vec<(u32, &str)> = rules.iter().map(|r| (r.number, r.name.as_str())).collect();
        assert_eq!(
            names,
            [
                (326, "Elements"),
                (327, "Rule Tag"),
                (328, "rule tag invalid paths"),
                (329, "rule tag moderation"),
                (330, "rule tag basketball"),
            ]
        );
        assert!(
            rules[0]
                .text
                .starts_with("There is an attribute \"element\".")
        );
        assert!(rules[1].text.ends_with("then this rule takes precedence."));
        assert!(rules[4].text.ends_with("starting\nRTL's to all RTO's."));
        assert!(rules.iter().all(|rule| rule.mutable));
        assert_eq!(parse_ruleset(RULE_TAG).unwrap()[0].number, 1);
        assert_eq!(parse_ruleset("hello"), Err(ImportError::UnknownFormat));
        assert_eq!(
            parse_ruleset("Create a new rule \"Empty\":\n\n"),
            Err(ImportError::NoText {
                number: 1,
                name: "Empty".into()
            })
        );
    }

    #[test]
    fn a_page_that_lists_a_rule_it_does_not_hold_is_refused() {
        let page =
            "101 102\n\nRule 101\n\nFollow the rules.\n\nAll players must.\n\ninitial rule.\n";
        assert_eq!(parse_ruleset(page), Err(ImportError::Missing(102)));
    }

    #[test]
    fn the_glossary_of_rule_tag_finds_terms_aliases_and_uses() {
        let ruleset = rule_tag_ruleset();
        let (elements, rule_tag, invalid_paths, moderation, basketball) = (500, 501, 502, 503, 504);

        let element = ruleset.term("Element").unwrap();
        assert_eq!(element.defined_in, [elements]);
        // "Each players' current RTL and element"; "elemental" is another word.
        assert_eq!(element.used_in, [moderation]);

        let rto = ruleset.term("RTO").unwrap();
        assert_eq!(rto.term, "rule tag object");
        assert_eq!(rto.aliases, ["rto"]);
        assert_eq!(rto.defined_in, [rule_tag]);
        assert_eq!(rto.used_in, [moderation, basketball]);

        let rtl = ruleset.term("rule tag location").unwrap();
        assert_eq!(rtl.aliases, ["rtl"]);
        assert_eq!(ruleset.rules_defining("RTL"), [rule_tag]);
        assert_eq!(ruleset.rules_using("rtl"), [moderation, basketball]);

        // A new term, not a third name of the location.
        assert_eq!(ruleset.rules_defining("RTL rule"), [rule_tag]);
        assert_eq!(ruleset.term("game term").unwrap().used_in, [invalid_paths]);
        let moderator = ruleset.term("rule tag moderator").unwrap();
        assert_eq!(moderator.defined_in, [moderation]);
        assert_eq!(
            moderator.aliases,
            ["the bearer of the wobbly hat of justice"]
        );
        // The Elements rule names the moderator only in a [[comment]].
        assert_eq!(moderator.used_in, [rule_tag, basketball]);
        assert_eq!(ruleset.rules_defining("rule tag action"), [rule_tag]);
        assert_eq!(ruleset.rules_defining("element change"), [elements]);
        assert_eq!(ruleset.rules_defining("rule tag ball"), [basketball]);
        // Listed values and mentions are no definitions.
        assert!(ruleset.term("earth").is_none());
        assert!(ruleset.term("player").is_none());
        assert!(ruleset.term("move actions").is_none());

        let defined: Vec<&str> = ruleset
            .terms_defined_in(elements)
            .iter()
            .map(|t| t.term.as_str())
            .collect();
        assert_eq!(defined, ["element", "element change"]);
        assert!(
            ruleset
                .terms_used_in(moderation)
                .iter()
                .any(|t| t.term == "rule tag object")
        );
        let links: Vec<&str> = ruleset
            .linking_terms(moderation, elements)
            .iter()
            .map(|t| t.term.as_str())
            .collect();
        assert_eq!(links, ["element"]);
    }

    #[test]
    fn gnomic_definitions_are_found_but_rule_names_are_not() {
        let rules = parse_ruleset(GNOMIC).unwrap();
        let glossary = extract_glossary(&rules);
        let term = |name: &str| glossary.iter().find(|t| t.is_named(name));
        assert_eq!(term("simple majority").unwrap().defined_in, [392]);
        assert_eq!(
            term("ffmrfl").unwrap().term,
            "fund for mental reeducation of formal logicians"
        );
        assert_eq!(term("the fund").unwrap().defined_in, [419]);
        assert_eq!(term("chat mode").unwrap().defined_in, [437]);
        assert!(term("e-mail mode").is_some());
        assert!(term("two decks of cards").is_none());
    }

    #[test]
    fn enact_amend_and_repeal_keep_history_and_log() {
        let mut ruleset = rule_tag_ruleset();
        let results = run(
            &mut ruleset,
            "enact \"Rule Tag Scores\"\nScores of rule tag are public.\nend\nshow 505",
            10,
            true,
        );
        assert_eq!(refusal(&results[0]), "done");
        let mail = &results[0].as_ref().unwrap().mail[0];
        assert_eq!(mail.template, "ruleset_changed");
        assert_eq!(mail.values["kind"], "enacted");
        assert_eq!(mail.values["number"], 505);
        let shown = &results[1].as_ref().unwrap().sentence;
        assert_eq!(shown.code, "ruleset_rule");
        assert_eq!(shown.args["text"], "Scores of rule tag are public.");

        run(
            &mut ruleset,
            "amend 505\nScores are secret.\n\nReally.",
            20,
            true,
        );
        let rule = ruleset.get(505).unwrap();
        assert_eq!((rule.version, rule.name.as_str()), (2, "Rule Tag Scores"));
        assert_eq!(rule.text, "Scores are secret.\n\nReally.");
        assert_eq!(
            ruleset.past.last().unwrap().text,
            "Scores of rule tag are public."
        );

        assert!(ruleset.changed_between(505, at(15), at(25)));
        assert!(!ruleset.changed_between(505, at(21), at(30)));
        assert!(!ruleset.changed_between(501, at(15), at(25)));
        // Half-open: a change at the end of the span belongs to the next one.
        assert!(!ruleset.changed_between(505, at(11), at(20)));

        let results = run(&mut ruleset, "repeal rule 505", 30, true);
        assert_eq!(
            results[0].as_ref().unwrap().mail[0].values["kind"],
            "repealed"
        );
        assert!(!ruleset.exists(505));
        assert!(ruleset.was_repealed(505));
        assert_eq!(ruleset.next_free_number(), 506);
        let kinds: Vec<ChangeKind> = ruleset
            .changes_between(at(5), at(31))
            .iter()
            .map(|c| c.kind)
            .collect();
        assert_eq!(
            kinds,
            [
                ChangeKind::Enacted,
                ChangeKind::Amended,
                ChangeKind::Repealed
            ]
        );
        assert_eq!(
            refusal(&run(&mut ruleset, "show 505", 31, false)[0]),
            "ruleset_no_such_rule"
        );

        // The state survives a round trip through JSON, as the store keeps it.
        let json = serde_json::to_string(&ruleset).unwrap();
        assert_eq!(serde_json::from_str::<Ruleset>(&json).unwrap(), ruleset);
    }

    #[test]
    fn refusals_say_why() {
        let mut ruleset = rule_tag_ruleset();
        let gnomic = parse_ruleset(GNOMIC).unwrap();
        ruleset.apply_event(&Event::Imported { rules: gnomic }, at(1));
        let codes = |ruleset: &mut Ruleset, message: &str, officer: bool| -> Vec<String> {
            run(ruleset, message, 5, officer)
                .iter()
                .map(|r| refusal(r).to_owned())
                .collect()
        };
        assert_eq!(
            codes(
                &mut ruleset,
                "repeal 325\namend 325\nnew text\nend\ndefine x in 325",
                false
            ),
            ["ruleset_not_officer"; 3]
        );
        // Reading is for anyone.
        assert_eq!(
            codes(&mut ruleset, "show 325\nterms\nrules", false),
            ["done"; 3]
        );
        assert_eq!(
            codes(
                &mut ruleset,
                "repeal 999\namend 998\ntext\nend\nshow 997",
                true
            ),
            ["ruleset_no_such_rule"; 3]
        );
        assert_eq!(
            codes(
                &mut ruleset,
                "amend 101\nFollow no rules.\nend\nrepeal 101",
                true
            ),
            ["ruleset_immutable"; 2]
        );
        assert_eq!(
            codes(
                &mut ruleset,
                "enact 325 Again\ntext\nend\nenact Nothing\nend",
                true
            ),
            ["ruleset_number_taken", "ruleset_empty_text"]
        );
        assert_eq!(
            codes(&mut ruleset, "amend 325\n\nend", true),
            ["ruleset_empty_text"]
        );
        assert_eq!(
            codes(&mut ruleset, "dance\nrepeal\nenact 12\ntext of it", true),
            ["unknown_command", "usage", "usage"]
        );
        // Transmuting is how an immutable rule becomes amendable (Gnomic rule 103).
        assert_eq!(
            codes(
                &mut ruleset,
                "transmute 101\namend 101\nFollow no rules.",
                true
            ),
            ["done", "done"]
        );
        let rule = ruleset.get(101).unwrap();
        assert!(rule.mutable);
        assert_eq!(rule.version, 3);
        assert_eq!(rule.name, "Follow the rules");
    }

    #[test]
    fn officer_corrections_survive_re_extraction() {
        let mut ruleset = rule_tag_ruleset();
        let results = run(
            &mut ruleset,
            "define nweek in 500\nundefine RTO in 501\nundefine element in 503",
            5,
            true,
        );
        assert_eq!(refusal(&results[0]), "done");
        assert_eq!(
            results[0].as_ref().unwrap().mail[0].values["kind"],
            "defined"
        );
        assert_eq!(refusal(&results[1]), "done");
        assert_eq!(refusal(&results[2]), "ruleset_term_not_defined");
        let nweek = ruleset.term("nweek").unwrap();
        assert!(nweek.corrected);
        assert_eq!(nweek.defined_in, [500]);
        assert_eq!(nweek.used_in, [501]);
        // The only rule defining it no longer does: no game term any more.
        assert!(ruleset.term("rule tag object").is_none());
        assert_eq!(
            refusal(&run(&mut ruleset, "define nweek in 500", 6, true)[0]),
            "ruleset_term_already_defined"
        );

        // An amendment re-reads the rules; the corrections still hold.
        run(
            &mut ruleset,
            "amend 501\nA \"rule tag object\" is a game object.",
            7,
            true,
        );
        assert!(ruleset.term("rto").is_none());
        assert_eq!(ruleset.rules_defining("nweek"), [500]);
        assert!(ruleset.rules_using("nweek").is_empty());

        // Defining it again undoes the undefine.
        run(&mut ruleset, "define rule tag object in 501", 8, true);
        assert_eq!(ruleset.rules_defining("rule tag object"), [501]);
        assert_eq!(ruleset.corrections.len(), 2);
    }

    #[test]
    fn parse_message_groups_the_text_of_amend_and_enact() {
        let message = lines(
            "amend 325\nPlayers take turns.\n\nIn order.\nend\nshow 325\n\
             enact 326 \"Rule Tag\":\nA \"rule tag object\" is a type of game object.\n\
             enact immutable Sacred\nNever change.",
        );
        let read = parse_message(&message);
        let commands: Vec<&Command> = read.iter().map(|(_, c)| c.as_ref().unwrap()).collect();
        assert_eq!(read[0].0, "amend 325");
        assert_eq!(
            commands,
            [
                &Command::Amend {
                    number: 325,
                    text: "Players take turns.\n\nIn order.".into()
                },
                &Command::Show { number: 325 },
                &Command::Enact {
                    number: Some(326),
                    name: "Rule Tag".into(),
                    // No "end": the text runs to the next... end of the message,
                    // including what looks like a command.
                    text: "A \"rule tag object\" is a type of game object.\n\
                           enact immutable Sacred\nNever change."
                        .into(),
                    mutable: true,
                },
            ]
        );
        assert_eq!(
            parse("define \"rule tag object\" in rule 12"),
            Ok(Command::Define {
                term: "rule tag object".into(),
                number: 12
            })
        );
        assert_eq!(
            parse("enact immutable 7 Sacred"),
            Ok(Command::Enact {
                number: Some(7),
                name: "Sacred".into(),
                text: String::new(),
                mutable: false
            })
        );
        assert_eq!(parse("glossary"), Ok(Command::Terms));
    }

    #[test]
    fn whole_words_and_plurals() {
        assert!(uses_words("the rto's rtl", "rto"));
        assert!(uses_words("all rule tag actions", "rule tag action"));
        assert!(uses_words("two boxes", "box"));
        assert!(!uses_words("elemental precedence", "element"));
        assert!(!uses_words("non-null", "null"));
        assert!(!uses_words("rtls", "rtl s"));
    }
}
