//! The glossary of game terms: which rule defines a term and which rules use it,
//! read from the rules' texts, with the keeper's corrections.

use std::collections::BTreeSet;

use super::page::paragraphs;
use super::{Correction, Rule, Term};

/// Lower-case, single-spaced, without surrounding punctuation a sentence left on it
/// (`"The Bearer of the Wobbly Hat of Justice."`).
pub(super) fn normalize_term(term: &str) -> String {
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
                    // A quote of a whole sentence or a list of values is no term,
                    // nor a one-letter name for a player in an example ("A" grabs
                    // "B"'s donkey, rule 1213): a variable, not a game term.
                    if term.chars().count() < 2 || term.len() > 60 {
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
pub(super) fn uses_words(text: &str, name: &str) -> bool {
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
pub(super) fn build_glossary(rules: &[Rule], corrections: &[Correction]) -> Vec<Term> {
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
