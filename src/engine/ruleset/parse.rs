//! `[ruleset]` command lines read into `Command`s: text work only.

use super::glossary::normalize_term;
use super::{Command, TAG};
use crate::engine::{NotUnderstood, Sentence, split_verb};

const COMMANDS: &str = "show NUMBER, history NUMBER, rules, terms, history; for the officer who keeps the rules: \
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
pub(super) fn unquote(text: &str) -> &str {
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
        "history" if !rest.is_empty() => {
            number_command(|number| Command::History { number }, "history NUMBER")
        }
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
