//! `[ping]` command lines, read into `Command`s. Text work only: who may do what,
//! and when, is for `rules`.

use jiff::civil::Date;

use crate::engine::{NotUnderstood, Sentence, split_verb};

use super::{Command, TAG};

const COMMANDS: &str = "truth CLAUSE, form FORM, pinged today, pinged on YYYY-MM-DD, guess CLAUSE, magic letter X, remove the scholar, ridicule LINE, status, help (moderators: place NAME because REASON, violation REASON)";

fn usage(usage: &str) -> NotUnderstood {
    NotUnderstood(Sentence::new("usage").arg("usage", usage))
}

/// The claim of §IX, word for word as the rule writes it: case aside, with or
/// without quotation marks and a closing full stop.
pub fn is_claim(line: &str, claim: &str) -> bool {
    let line = line
        .trim()
        .trim_matches(|c| matches!(c, '"' | '\u{201c}' | '\u{201d}'))
        .trim_end_matches(['.', '!'])
        .trim_matches(|c| matches!(c, '"' | '\u{201c}' | '\u{201d}'))
        .trim();
    let words = |text: &str| {
        text.split_whitespace()
            .map(str::to_lowercase)
            .collect::<Vec<_>>()
    };
    words(line) == words(claim.trim().trim_end_matches('.'))
}

/// Reads one line.
pub fn parse(line: &str) -> Result<Command, NotUnderstood> {
    let (verb, rest) = split_verb(line);
    match verb.as_str() {
        "place" => {
            let (name, because) = rest
                .split_once(" because ")
                .ok_or_else(|| usage("place NAME because REASON"))?;
            if name.trim().is_empty() || because.trim().is_empty() {
                return Err(usage("place NAME because REASON"));
            }
            Ok(Command::Place {
                name: name.trim().to_owned(),
                because: because.trim().to_owned(),
            })
        }
        "truth" if !rest.is_empty() => Ok(Command::Truth {
            text: rest.to_owned(),
        }),
        "truth" => Err(usage(
            "truth IF AND ONLY IF today CLAUSE, THEN ... (or the clause alone)",
        )),
        "if" => Ok(Command::Truth {
            text: line.trim().to_owned(),
        }),
        "form" if !rest.is_empty() => Ok(Command::Form {
            text: rest.to_owned(),
        }),
        "form" => Err(usage(
            "form FORM (e.g. form weekday is wednesday or weekday is thursday)",
        )),
        "pinged" => parse_pinged(rest),
        "guess" if !rest.is_empty() => Ok(Command::Guess {
            text: rest.to_owned(),
        }),
        "guess" => Err(usage("guess CLAUSE")),
        "magic" => parse_magic(rest),
        "remove" => {
            let words: Vec<String> = rest.split_whitespace().map(str::to_lowercase).collect();
            if words == ["the", "scholar"] || words == ["scholar"] {
                Ok(Command::Remove)
            } else {
                Err(usage("remove the scholar"))
            }
        }
        "violation" if !rest.is_empty() => Ok(Command::Violation {
            reason: rest.to_owned(),
        }),
        "violation" => Err(usage("violation REASON")),
        "ridicule" if !rest.is_empty() => Ok(Command::Ridicule {
            line: rest.to_owned(),
        }),
        "ridicule" => Err(usage("ridicule LINE")),
        "status" if rest.is_empty() => Ok(Command::Status),
        // The claim of §IX; judged word for word when applied.
        "i" | "\"i" | "\u{201c}i" => Ok(Command::Claim {
            text: line.trim().to_owned(),
        }),
        _ => Err(NotUnderstood(
            Sentence::new("unknown_command")
                .arg("tag", TAG)
                .arg("commands", COMMANDS),
        )),
    }
}

/// `pinged today`, `pinged on YYYY-MM-DD` (also `pinged YYYY-MM-DD`).
fn parse_pinged(rest: &str) -> Result<Command, NotUnderstood> {
    let rest = rest.trim().trim_end_matches('.');
    if rest.eq_ignore_ascii_case("today") {
        return Ok(Command::Pinged { on: None });
    }
    let date = rest
        .strip_prefix("on ")
        .or_else(|| rest.strip_prefix("ON "))
        .unwrap_or(rest)
        .trim();
    date.parse::<Date>()
        .map(|date| Command::Pinged { on: Some(date) })
        .map_err(|_| usage("pinged today, or pinged on YYYY-MM-DD"))
}

/// `magic letter X`, also `magic X`.
fn parse_magic(rest: &str) -> Result<Command, NotUnderstood> {
    let (first, after) = split_verb(rest);
    let letter = if first == "letter" { after } else { rest };
    let letter = letter
        .trim()
        .trim_matches(|c| matches!(c, '"' | '\'' | '.' | '\u{2018}' | '\u{2019}'));
    let mut chars = letter.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c.is_ascii_alphabetic() => Ok(Command::Magic {
            letter: c.to_ascii_lowercase(),
        }),
        _ => Err(usage("magic letter X (one letter, a to z)")),
    }
}
