//! The form of a hack (rule 423) and what adopting one does to the ruleset
//! (rules 103, 108, 109). Pure: the game reads a turn post into hacks here, keeps
//! them through the vote, and at adoption records the ruleset events
//! `adoption` returns. Everything a hack may not be is refused when it is posted,
//! with a sentence, and checked again at adoption (the ruleset may have changed
//! in between).
//!
//! What players write, one hack at a time:
//!
//! ```text
//! hack 441 "Title of the hack"
//! enact
//! The full text of the new rule, on as many lines as it takes.
//! end
//!
//! hack 442 "A turn, again" amends 325
//! replace from "If a player joins" to "minimum score." with
//! The text that replaces the section, which begins and ends at sentence boundaries.
//! end
//!
//! hack 443 "Gone" repeals 303
//! hack 444 "Now mutable" transmutes 205
//! ```
//!
//! An amendment gives either the full new text (`text` ... `end`) or a section
//! to replace, bounded by words of the rule (`replace from "..." to "..." with`)
//! or by counting (`replace sentence 2 with`, `replace sentences 2 to 3 with`,
//! `replace paragraph 2 with`).

use serde::{Deserialize, Serialize};

use super::scoring::Numbers;
use crate::engine::ruleset::{Event, Ruleset};

/// One hack as posted: the number and title stated, and the change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hack {
    pub number: u32,
    pub title: String,
    pub change: Change,
    /// The hack as written (its lines joined), for rule 372's length and rule
    /// 394's Greek letters.
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    /// A new rule. Rule 103's note: new rules are mutable unless the hack says
    /// `enact immutable` (rule 102 allows either).
    Enact {
        text: String,
        mutable: bool,
    },
    Amend {
        rule: u32,
        replacement: Replacement,
    },
    Repeal {
        rule: u32,
    },
    /// Immutable to mutable or the other way round (rule 109: stated explicitly).
    Transmute {
        rule: u32,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Replacement {
    Whole {
        text: String,
    },
    /// From the sentence that begins with `from` to the one that ends with `to`.
    Section {
        from: String,
        to: String,
        text: String,
    },
    /// Sentences `first..=last`, counted from 1 over the whole rule.
    Sentences {
        first: usize,
        last: usize,
        text: String,
    },
    /// Paragraph `number`, counted from 1 (paragraphs are parted by blank lines).
    Paragraph {
        number: usize,
        text: String,
    },
}

/// Why a hack cannot be taken or applied: each reaches the sender as a sentence
/// (`sentence_code` and `args`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HackError {
    #[error("a hack begins: hack NUMBER \"TITLE\" [amends|repeals|transmutes RULE]")]
    Header,
    #[error("the title is missing: write it in quotes after the number")]
    NoTitle,
    #[error("a new rule's text goes between \"enact\" and \"end\"")]
    NoText,
    #[error("the text is not closed by a line \"end\"")]
    Unclosed,
    #[error(
        "an amendment gives \"text\" (the full new text) or \"replace ... with\", then the text and \"end\""
    )]
    NoReplacement,
    #[error("there is no rule {0} in effect")]
    NoSuchRule(u32),
    #[error("rule {0} is immutable: it may only be transmuted (rule 103)")]
    Immutable(u32),
    #[error("a rule {0} is already in effect: the hack's number is taken")]
    NumberTaken(u32),
    #[error("\"{0}\" is not found in the rule")]
    BoundNotFound(String),
    #[error("\"{0}\" is found more than once in the rule: the bound is ambiguous (rule 423)")]
    BoundAmbiguous(String),
    #[error("\"{0}\" is not at a sentence boundary (rule 423)")]
    NotASentenceBoundary(String),
    #[error("adopting it would leave {after} mutable rules; rule 332 allows no more than {max}")]
    TooManyMutable { after: usize, max: usize },
    #[error("adopting it would leave {after} mutable rules; rule 114 requires at least {min}")]
    TooFewMutable { after: usize, min: usize },
    #[error("the rule has {count} {what}; {asked} is out of range")]
    OutOfRange {
        what: &'static str,
        count: usize,
        asked: usize,
    },
}

impl HackError {
    /// The sentence code and its blanks (`templates/sentences/gnomic.txt`).
    pub fn sentence(&self) -> crate::engine::Sentence {
        use crate::engine::Sentence;
        let plain = |code: &str| Sentence::new(code).arg("why", self.to_string());
        match self {
            HackError::NoSuchRule(rule) => plain("gnomic_hack_no_rule").arg("rule", rule),
            HackError::Immutable(rule) => plain("gnomic_hack_immutable").arg("rule", rule),
            _ => plain("gnomic_hack_malformed"),
        }
    }
}

impl Hack {
    pub fn is_repeal(&self) -> bool {
        matches!(self.change, Change::Repeal { .. })
    }

    pub fn is_transmutation(&self) -> bool {
        matches!(self.change, Change::Transmute { .. })
    }

    /// What the player proposes, in the words of 372 ("the proposal") and 394
    /// ("its text"): the title and the rule text written, never the words of
    /// the bot's syntax (`hack`, `enact`, `end`, `replace ... with`). A repeal
    /// or a transmutation proposes its title alone.
    pub fn proposed_text(&self) -> String {
        let text = match &self.change {
            Change::Enact { text, .. } => Some(text),
            Change::Amend { replacement, .. } => Some(match replacement {
                Replacement::Whole { text }
                | Replacement::Section { text, .. }
                | Replacement::Sentences { text, .. }
                | Replacement::Paragraph { text, .. } => text,
            }),
            Change::Repeal { .. } | Change::Transmute { .. } => None,
        };
        match text {
            Some(text) => format!("{}\n{}", self.title, text),
            None => self.title.clone(),
        }
    }

    /// The rule a hack changes, if it changes one.
    pub fn rule(&self) -> Option<u32> {
        match &self.change {
            Change::Enact { .. } => None,
            Change::Amend { rule, .. } | Change::Repeal { rule } | Change::Transmute { rule } => {
                Some(*rule)
            }
        }
    }
}

/// Whether `line` begins a hack (`hack NUMBER ...`): where a turn post's hacks
/// are cut apart.
pub fn is_header(line: &str) -> bool {
    let mut words = line.split_whitespace();
    words.next().is_some_and(|w| w.eq_ignore_ascii_case("hack"))
        && words
            .next()
            .is_some_and(|w| w.trim_start_matches('#').parse::<u32>().is_ok())
}

/// Reads the lines of one hack: its header line, then for an enactment or an
/// amendment the body up to a line `end` (which may be left out at the end of
/// the lines given).
pub fn parse(lines: &[String]) -> Result<Hack, HackError> {
    let (header, body) = lines.split_first().ok_or(HackError::Header)?;
    let (number, title, rest) = parse_header(header)?;
    let rest = rest.trim().to_ascii_lowercase();
    let rest_words: Vec<&str> = rest.split_whitespace().collect();
    let body: Vec<&str> = body.iter().map(String::as_str).collect();
    let text = lines.join("\n");
    let change = match rest_words.as_slice() {
        [] | ["enacts"] => {
            let (first, body) = body.split_first().ok_or(HackError::NoText)?;
            let mutable = match first.trim().to_ascii_lowercase().as_str() {
                "enact" => true,
                "enact immutable" => false,
                _ => return Err(HackError::NoText),
            };
            Change::Enact {
                text: until_end(body)?,
                mutable,
            }
        }
        [verb, rule] | [verb, "rule", rule] => {
            let rule = rule
                .trim_start_matches('#')
                .parse::<u32>()
                .map_err(|_| HackError::Header)?;
            match *verb {
                "amends" => Change::Amend {
                    rule,
                    replacement: parse_replacement(&body)?,
                },
                "repeals" => Change::Repeal { rule },
                "transmutes" => Change::Transmute { rule },
                _ => return Err(HackError::Header),
            }
        }
        _ => return Err(HackError::Header),
    };
    Ok(Hack {
        number,
        title,
        change,
        text,
    })
}

/// `hack 441 "Title" rest...`: the number, the title, the rest.
fn parse_header(line: &str) -> Result<(u32, String, &str), HackError> {
    let line = line.trim();
    let after = line
        .get(..4)
        .filter(|w| w.eq_ignore_ascii_case("hack"))
        .map(|_| line[4..].trim_start())
        .ok_or(HackError::Header)?;
    let (number, after) = after.split_once(char::is_whitespace).unwrap_or((after, ""));
    let number = number
        .trim_start_matches('#')
        .parse::<u32>()
        .map_err(|_| HackError::Header)?;
    let after = after.trim_start();
    let quotes: &[char] = &['"', '“', '”'];
    let Some(opened) = after.strip_prefix(quotes) else {
        return Err(HackError::NoTitle);
    };
    let close = opened.find(quotes).ok_or(HackError::NoTitle)?;
    let title = opened[..close].trim().to_owned();
    if title.is_empty() {
        return Err(HackError::NoTitle);
    }
    let rest = &opened[close..];
    let rest = &rest[rest.chars().next().map_or(0, char::len_utf8)..];
    Ok((number, title, rest))
}

/// The text lines up to a line `end` (any case): paragraphs kept, the ends of
/// lines trimmed.
fn until_end(body: &[&str]) -> Result<String, HackError> {
    let end = body
        .iter()
        .position(|l| l.trim().eq_ignore_ascii_case("end"));
    if let Some(end) = end
        && body[end + 1..].iter().any(|l| !l.trim().is_empty())
    {
        return Err(HackError::Unclosed);
    }
    let text = body[..end.unwrap_or(body.len())]
        .iter()
        .map(|l| l.trim_end())
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_owned();
    if text.is_empty() {
        Err(HackError::NoText)
    } else {
        Ok(text)
    }
}

fn parse_replacement(body: &[&str]) -> Result<Replacement, HackError> {
    let (first, rest) = body.split_first().ok_or(HackError::NoReplacement)?;
    let first = first.trim();
    let lower = first.to_ascii_lowercase();
    if lower == "text" {
        return Ok(Replacement::Whole {
            text: until_end(rest)?,
        });
    }
    let spec = lower
        .strip_prefix("replace ")
        .and_then(|s| s.strip_suffix(" with").or(s.strip_suffix(" with:")))
        .ok_or(HackError::NoReplacement)?;
    let text = until_end(rest)?;
    let numbers: Vec<usize> = spec
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    if spec.starts_with("from ") {
        // The bounds keep the case the player wrote. ASCII lower-casing keeps
        // byte offsets, so `lower`'s positions are `first`'s.
        let at = lower.find("from ").unwrap_or(0) + "from ".len();
        let end = lower.rfind(" with").unwrap_or(first.len());
        let (from, to) = quoted_pair(&first[at..end]).ok_or(HackError::NoReplacement)?;
        return Ok(Replacement::Section { from, to, text });
    }
    match (spec.split_whitespace().next(), numbers.as_slice()) {
        (Some("sentence"), [n]) => Ok(Replacement::Sentences {
            first: *n,
            last: *n,
            text,
        }),
        (Some("sentences"), [a, b]) => Ok(Replacement::Sentences {
            first: *a,
            last: *b,
            text,
        }),
        (Some("paragraph"), [n]) => Ok(Replacement::Paragraph { number: *n, text }),
        _ => Err(HackError::NoReplacement),
    }
}

/// `"A" to "B"` (straight or curly quotes).
fn quoted_pair(text: &str) -> Option<(String, String)> {
    let quotes: &[char] = &['"', '“', '”'];
    let mut parts = text.split(quotes);
    let _before = parts.next()?;
    let from = parts.next()?.to_owned();
    let middle = parts.next()?;
    if !middle.trim().eq_ignore_ascii_case("to") {
        return None;
    }
    let to = parts.next()?.to_owned();
    (!from.trim().is_empty() && !to.trim().is_empty()).then_some((from, to))
}

/// What adopting the hack does to the ruleset as it is now: the events to
/// record. Rule 108: an amended or transmuted rule "receives the ordinal number
/// of the proposal", so it is repealed under its old number and enacted under the
/// hack's, with the hack's title as its name.
///
/// Rules 114 and 332 bound the mutable rules the ruleset may be left with: a
/// hack that would leave fewer than one or more than 52 is not applied.
/// Records the ruleset's events of an adopted change, each change of a rule
/// followed by who made it (`by`: the turn, or the Judgment), for `[ruleset]
/// history` and the Rulekeepor's report.
pub fn record_adoption(
    tx: &mut crate::engine::game::Tx<'_, super::Gnomic>,
    events: Vec<Event>,
    by: &str,
) {
    for event in events {
        let number = match &event {
            Event::Enacted { number, .. }
            | Event::Amended { number, .. }
            | Event::Repealed { number }
            | Event::Transmuted { number } => Some(*number),
            _ => None,
        };
        tx.record_shared(crate::engine::game::SharedEvent::Ruleset(event));
        if let Some(number) = number {
            tx.record_shared(crate::engine::game::SharedEvent::Ruleset(
                Event::Attributed {
                    number,
                    by: by.to_owned(),
                },
            ));
        }
    }
}

pub fn adoption(
    hack: &Hack,
    ruleset: &Ruleset,
    numbers: &Numbers,
) -> Result<Vec<Event>, HackError> {
    let events = changes(hack, ruleset)?;
    let mut after = ruleset.clone();
    for event in &events {
        after.apply_event(event, jiff::Timestamp::UNIX_EPOCH);
    }
    let mutable = |set: &Ruleset| set.rules.iter().filter(|r| r.mutable).count();
    let (before, after) = (mutable(ruleset), mutable(&after));
    // A ruleset already outside the bounds (an imported page) may still be
    // brought towards them: only a change that goes further out is refused.
    if after > numbers.max_mutable_rules && after > before {
        return Err(HackError::TooManyMutable {
            after,
            max: numbers.max_mutable_rules,
        });
    }
    if after < numbers.min_mutable_rules && after < before {
        return Err(HackError::TooFewMutable {
            after,
            min: numbers.min_mutable_rules,
        });
    }
    Ok(events)
}

/// The ruleset events of a hack, checked against the ruleset's rules (103, 108).
fn changes(hack: &Hack, ruleset: &Ruleset) -> Result<Vec<Event>, HackError> {
    let renumbered = |number: u32| -> Result<(), HackError> {
        if number != hack.number && ruleset.exists(hack.number) {
            return Err(HackError::NumberTaken(hack.number));
        }
        Ok(())
    };
    match &hack.change {
        Change::Enact { text, mutable } => {
            if ruleset.exists(hack.number) {
                return Err(HackError::NumberTaken(hack.number));
            }
            Ok(vec![Event::Enacted {
                number: hack.number,
                name: hack.title.clone(),
                text: text.clone(),
                mutable: *mutable,
            }])
        }
        Change::Amend { rule, replacement } => {
            let current = ruleset.get(*rule).ok_or(HackError::NoSuchRule(*rule))?;
            if !current.mutable {
                return Err(HackError::Immutable(*rule));
            }
            renumbered(*rule)?;
            let text = replaced(&current.text, replacement)?;
            Ok(vec![
                Event::Repealed { number: *rule },
                Event::Enacted {
                    number: hack.number,
                    name: hack.title.clone(),
                    text,
                    mutable: true,
                },
                Event::Renumbered {
                    from: *rule,
                    to: hack.number,
                },
            ])
        }
        Change::Repeal { rule } => {
            let current = ruleset.get(*rule).ok_or(HackError::NoSuchRule(*rule))?;
            if !current.mutable {
                return Err(HackError::Immutable(*rule));
            }
            Ok(vec![Event::Repealed { number: *rule }])
        }
        Change::Transmute { rule } => {
            let current = ruleset.get(*rule).ok_or(HackError::NoSuchRule(*rule))?;
            renumbered(*rule)?;
            Ok(vec![
                Event::Repealed { number: *rule },
                Event::Enacted {
                    number: hack.number,
                    name: hack.title.clone(),
                    text: current.text.clone(),
                    mutable: !current.mutable,
                },
                Event::Renumbered {
                    from: *rule,
                    to: hack.number,
                },
            ])
        }
    }
}

/// Whether adopting the hack needs a unanimous vote (rule 109: transmuting an
/// immutable rule into a mutable one).
pub fn needs_unanimity(hack: &Hack, ruleset: &Ruleset) -> bool {
    match &hack.change {
        Change::Transmute { rule } => ruleset.get(*rule).is_some_and(|r| !r.mutable),
        _ => false,
    }
}

/// Rule 371: two hacks of one turn are "the same" (both would change the rule
/// the same way) or both amend the same rule.
pub fn redundant(a: &Hack, b: &Hack) -> bool {
    if a.change == b.change {
        return true;
    }
    matches!(
        (&a.change, &b.change),
        (Change::Amend { rule: x, .. }, Change::Amend { rule: y, .. }) if x == y
    ) || matches!(
        (&a.change, &b.change),
        (Change::Enact { text: x, .. }, Change::Enact { text: y, .. }) if normalized(x) == normalized(y)
    )
}

fn normalized(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The rule's text with the section replaced; the bounds are checked as rule 423
/// says: found exactly once, at sentence boundaries.
pub fn replaced(rule: &str, replacement: &Replacement) -> Result<String, HackError> {
    match replacement {
        Replacement::Whole { text } => Ok(text.clone()),
        Replacement::Section { from, to, text } => {
            let start = unique(rule, from)?;
            if !at_sentence_start(rule, start) {
                return Err(HackError::NotASentenceBoundary(from.clone()));
            }
            let after = &rule[start..];
            let end = start + unique(after, to)? + to.len();
            if !at_sentence_end(rule, end) {
                return Err(HackError::NotASentenceBoundary(to.clone()));
            }
            Ok(format!("{}{}{}", &rule[..start], text, &rule[end..]))
        }
        Replacement::Sentences { first, last, text } => {
            let spans = sentences(rule);
            let count = spans.len();
            let check = |asked: usize| {
                if asked == 0 || asked > count {
                    Err(HackError::OutOfRange {
                        what: "sentences",
                        count,
                        asked,
                    })
                } else {
                    Ok(())
                }
            };
            check(*first)?;
            check(*last)?;
            if last < first {
                return Err(HackError::OutOfRange {
                    what: "sentences",
                    count,
                    asked: *last,
                });
            }
            let (start, end) = (spans[first - 1].0, spans[last - 1].1);
            Ok(format!("{}{}{}", &rule[..start], text, &rule[end..]))
        }
        Replacement::Paragraph { number, text } => {
            let mut paragraphs: Vec<String> = rule
                .split("\n\n")
                .map(str::to_owned)
                .filter(|p| !p.trim().is_empty())
                .collect();
            let count = paragraphs.len();
            if *number == 0 || *number > count {
                return Err(HackError::OutOfRange {
                    what: "paragraphs",
                    count,
                    asked: *number,
                });
            }
            paragraphs[number - 1] = text.clone();
            Ok(paragraphs.join("\n\n"))
        }
    }
}

/// The only place `needle` occurs in `text`, compared as written.
fn unique(text: &str, needle: &str) -> Result<usize, HackError> {
    let mut found = text.match_indices(needle).map(|(at, _)| at);
    let first = found
        .next()
        .ok_or_else(|| HackError::BoundNotFound(needle.to_owned()))?;
    if found.next().is_some() {
        return Err(HackError::BoundAmbiguous(needle.to_owned()));
    }
    Ok(first)
}

fn ends_sentence(c: char) -> bool {
    matches!(c, '.' | '!' | '?')
}

/// At the start of the text, or after a sentence's end and white space.
fn at_sentence_start(text: &str, at: usize) -> bool {
    let before = text[..at].trim_end_matches(char::is_whitespace);
    before.is_empty()
        || before
            .trim_end_matches(['"', '\'', ')', ']', '”'])
            .ends_with(ends_sentence)
            && before.len() < at
}

/// After a sentence's end (its punctuation and any closing quote or bracket):
/// at the end of the text or before white space.
fn at_sentence_end(text: &str, at: usize) -> bool {
    let before = text[..at].trim_end_matches(['"', '\'', ')', ']', '”']);
    before.ends_with(ends_sentence) && text[at..].chars().next().is_none_or(char::is_whitespace)
}

/// The spans of the sentences of a text: each ends after its punctuation (and a
/// closing quote or bracket) where white space or the end follows.
fn sentences(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = None;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (i, (at, c)) in chars.iter().enumerate() {
        if start.is_none() && !c.is_whitespace() {
            start = Some(*at);
        }
        let Some(begun) = start else { continue };
        let end = at + c.len_utf8();
        let next = chars.get(i + 1).map(|(_, c)| *c);
        let closes = ends_sentence(*c)
            || (matches!(c, '"' | '\'' | ')' | ']' | '”')
                && i > 0
                && ends_sentence(chars[i - 1].1));
        let next_closes = next.is_some_and(|n| matches!(n, '"' | '\'' | ')' | ']' | '”'));
        if closes && !next_closes && next.is_none_or(char::is_whitespace) {
            spans.push((begun, end));
            start = None;
        }
    }
    if let Some(begun) = start {
        let end = text.trim_end().len();
        if end > begun {
            spans.push((begun, end));
        }
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ruleset::Rule;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_owned).collect()
    }

    fn ruleset() -> Ruleset {
        let rule = |number: u32, text: &str, mutable: bool| Rule {
            number,
            name: format!("Rule {number}"),
            version: 1,
            text: text.to_owned(),
            mutable,
            note: String::new(),
        };
        Ruleset {
            rules: vec![
                rule(109, "Transmutation needs unanimity.", false),
                rule(
                    325,
                    "Players shall alternate. Turns may not be skipped.\n\nIf a player joins, they begin with half. All scores will be rounded.",
                    true,
                ),
            ],
            ..Ruleset::default()
        }
    }

    #[test]
    fn rule_423_a_hack_states_its_number_and_title_and_a_new_rules_full_text() {
        let hack = parse(&lines(
            "hack 441 \"Gnomes dig\"\nenact\nThe Mines are deep.\n\nVery deep.\nend",
        ))
        .unwrap();
        assert_eq!(hack.number, 441);
        assert_eq!(hack.title, "Gnomes dig");
        assert_eq!(
            hack.change,
            Change::Enact {
                text: "The Mines are deep.\n\nVery deep.".into(),
                mutable: true
            }
        );
        assert_eq!(
            parse(&lines("hack 441 Gnomes\nenact\nx\nend")),
            Err(HackError::NoTitle)
        );
        assert_eq!(parse(&lines("hack \"Gnomes\"")), Err(HackError::Header));
        assert_eq!(
            parse(&lines("hack 441 \"G\"\nenact\nend")),
            Err(HackError::NoText)
        );
        assert_eq!(
            parse(&lines("hack 441 \"G\"\nenact\nx\nend\nstray")),
            Err(HackError::Unclosed)
        );
        assert!(is_header("Hack 441 \"x\"") && !is_header("hacks are fun"));
    }

    #[test]
    fn rule_423_an_amendment_replaces_the_whole_text_or_a_section_bounded_unambiguously() {
        let set = ruleset();
        let whole = parse(&lines(
            "hack 442 \"New turn\" amends 325\ntext\nAll new.\nend",
        ))
        .unwrap();
        assert_eq!(
            adoption(&whole, &set, &Numbers::default()).unwrap(),
            [
                Event::Repealed { number: 325 },
                Event::Enacted {
                    number: 442,
                    name: "New turn".into(),
                    text: "All new.".into(),
                    mutable: true
                },
                // 108: the mechanics bound to 325 follow it to 442.
                Event::Renumbered { from: 325, to: 442 }
            ]
        );
        let section = parse(&lines(
            "hack 442 \"T\" amends rule 325\nreplace from \"If a player joins\" to \"with half.\" with\nNewcomers begin with nothing.\nend",
        ))
        .unwrap();
        let events = adoption(&section, &set, &Numbers::default()).unwrap();
        let Event::Enacted { text, .. } = &events[1] else {
            panic!("{events:?}")
        };
        assert_eq!(
            text,
            "Players shall alternate. Turns may not be skipped.\n\nNewcomers begin with nothing. All scores will be rounded."
        );
        // Not at a sentence boundary, not found, found twice.
        let bad = |spec: &str| {
            let hack = parse(&lines(&format!(
                "hack 442 \"T\" amends 325\n{spec}\nX.\nend"
            )))
            .unwrap();
            adoption(&hack, &set, &Numbers::default()).unwrap_err()
        };
        assert_eq!(
            bad("replace from \"a player joins\" to \"half.\" with"),
            HackError::NotASentenceBoundary("a player joins".into())
        );
        assert_eq!(
            bad("replace from \"If a player joins\" to \"with\" with"),
            HackError::NotASentenceBoundary("with".into())
        );
        assert_eq!(
            bad("replace from \"Nobody\" to \"half.\" with"),
            HackError::BoundNotFound("Nobody".into())
        );
        assert_eq!(
            bad("replace from \"be\" to \"rounded.\" with"),
            HackError::BoundAmbiguous("be".into())
        );
    }

    #[test]
    fn rule_423_a_section_may_be_counted_in_sentences_or_paragraphs() {
        let set = ruleset();
        let by = |spec: &str| {
            let hack = parse(&lines(&format!(
                "hack 442 \"T\" amends 325\n{spec}\nX.\nend"
            )))
            .unwrap();
            adoption(&hack, &set, &Numbers::default()).map(|events| match &events[1] {
                Event::Enacted { text, .. } => text.clone(),
                other => panic!("{other:?}"),
            })
        };
        assert_eq!(
            by("replace sentence 2 with").unwrap(),
            "Players shall alternate. X.\n\nIf a player joins, they begin with half. All scores will be rounded."
        );
        assert_eq!(
            by("replace sentences 3 to 4 with").unwrap(),
            "Players shall alternate. Turns may not be skipped.\n\nX."
        );
        assert_eq!(
            by("replace paragraph 1 with").unwrap(),
            "X.\n\nIf a player joins, they begin with half. All scores will be rounded."
        );
        assert_eq!(
            by("replace sentence 5 with"),
            Err(HackError::OutOfRange {
                what: "sentences",
                count: 4,
                asked: 5
            })
        );
    }

    #[test]
    fn every_kind_of_hack_goes_into_the_event_log_and_comes_back_the_same() {
        for text in [
            "hack 441 \"A\"\nenact immutable\nX.\nend",
            "hack 442 \"B\" amends 325\ntext\nY.\nend",
            "hack 443 \"C\" amends 325\nreplace from \"If\" to \"half.\" with\nZ.\nend",
            "hack 444 \"D\" amends 325\nreplace sentences 1 to 2 with\nZ.\nend",
            "hack 445 \"E\" amends 325\nreplace paragraph 2 with\nZ.\nend",
            "hack 446 \"F\" repeals 303",
            "hack 447 \"G\" transmutes 109",
        ] {
            let hack = parse(&lines(text)).unwrap();
            let json = serde_json::to_string(&hack).expect("serializes");
            assert_eq!(serde_json::from_str::<Hack>(&json).expect(&json), hack);
        }
    }

    #[test]
    fn rule_103_an_immutable_rule_is_not_amended_or_repealed_only_transmuted() {
        let set = ruleset();
        let amend = parse(&lines("hack 445 \"T\" amends 109\ntext\nX.\nend")).unwrap();
        assert_eq!(
            adoption(&amend, &set, &Numbers::default()),
            Err(HackError::Immutable(109))
        );
        let repeal = parse(&lines("hack 445 \"T\" repeals 109")).unwrap();
        assert_eq!(
            adoption(&repeal, &set, &Numbers::default()),
            Err(HackError::Immutable(109))
        );
        let transmute = parse(&lines("hack 445 \"Mutable now\" transmutes 109")).unwrap();
        assert!(needs_unanimity(&transmute, &set));
        assert_eq!(
            adoption(&transmute, &set, &Numbers::default()).unwrap()[1],
            Event::Enacted {
                number: 445,
                name: "Mutable now".into(),
                text: "Transmutation needs unanimity.".into(),
                mutable: true
            }
        );
        let gone = parse(&lines("hack 446 \"T\" repeals 999")).unwrap();
        assert_eq!(
            adoption(&gone, &set, &Numbers::default()),
            Err(HackError::NoSuchRule(999))
        );
    }

    #[test]
    fn rule_114_and_332_the_mutable_rules_stay_between_one_and_52() {
        let set = ruleset();
        let numbers = Numbers {
            max_mutable_rules: 2,
            ..Numbers::default()
        };
        // 325 is the only mutable rule: repealing it would leave none (114).
        let repeal = parse(&lines("hack 441 \"Last\" repeals 325")).unwrap();
        assert_eq!(
            adoption(&repeal, &set, &numbers),
            Err(HackError::TooFewMutable { after: 0, min: 1 })
        );
        // A second mutable rule is allowed; with the limit at 2, a third is not (332).
        let enact = parse(&lines("hack 441 \"New\"\nenact\nX.\nend")).unwrap();
        let events = adoption(&enact, &set, &numbers).expect("a second");
        let mut two = set.clone();
        for event in &events {
            two.apply_event(event, jiff::Timestamp::UNIX_EPOCH);
        }
        let third = parse(&lines("hack 442 \"Third\"\nenact\nY.\nend")).unwrap();
        assert_eq!(
            adoption(&third, &two, &numbers),
            Err(HackError::TooManyMutable { after: 3, max: 2 })
        );
        // An immutable new rule, or transmuting one to immutable, is not counted.
        let immutable = parse(&lines("hack 442 \"Fixed\"\nenact immutable\nY.\nend")).unwrap();
        assert!(adoption(&immutable, &two, &numbers).is_ok());
        assert_eq!(Numbers::default().max_mutable_rules, 52);
    }

    #[test]
    fn rule_371_two_hacks_of_a_turn_on_the_same_rule_or_alike_are_redundant() {
        let a = parse(&lines("hack 441 \"A\" amends 325\ntext\nOne.\nend")).unwrap();
        let b = parse(&lines("hack 442 \"B\" amends 325\ntext\nTwo.\nend")).unwrap();
        let c = parse(&lines("hack 443 \"C\"\nenact\nThe  same.\nend")).unwrap();
        let d = parse(&lines("hack 444 \"D\"\nenact\nthe same.\nend")).unwrap();
        let e = parse(&lines("hack 445 \"E\" repeals 303")).unwrap();
        assert!(redundant(&a, &b));
        assert!(redundant(&c, &d));
        assert!(!redundant(&a, &c) && !redundant(&c, &e));
    }
}
