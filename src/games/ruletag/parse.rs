//! Reading `[rule tag]` command lines into `Command`s: syntax only; whether an
//! action is allowed is for `rules` to say.

use super::{Action, ActionKind, Command, Element, Rtl, TAG};
use crate::engine::{NotUnderstood, Sentence, split_verb};

const COMMANDS: &str = "element FIRE, move from 325 to 42 via \"score\", move to null, \
    grab ball 5, drop ball, status, help (moderators: start, void NAME move because REASON, \
    relocate ball to 42 because REASON, give ball to NAME because REASON, \
    set NAME rtl 42 because REASON, set NAME element FIRE because REASON, \
    term \"score\" defined in 42 because REASON)";

fn usage(usage: &str) -> NotUnderstood {
    NotUnderstood(Sentence::new("usage").arg("usage", usage))
}

/// "325", "#325", "rule 325", "null".
fn parse_rtl(text: &str) -> Option<Rtl> {
    let text = text.trim().trim_matches('"');
    if text.eq_ignore_ascii_case("null") {
        return Some(None);
    }
    let text = match text.get(..5) {
        Some(prefix) if prefix.eq_ignore_ascii_case("rule ") => text[5..].trim_start(),
        _ => text,
    };
    text.strip_prefix('#')
        .unwrap_or(text)
        .parse()
        .ok()
        .map(Some)
}

fn unquote(text: &str) -> String {
    let quotes: &[char] = &['"', '“', '”', '\''];
    let text = text.trim().trim_end_matches('.').trim();
    text.strip_prefix(quotes)
        .and_then(|inner| inner.strip_suffix(quotes))
        .unwrap_or(text)
        .trim()
        .to_owned()
}

/// The RTO a player means: "ball", "the ball", "rule tag ball", any case.
pub fn object_name(written: &str) -> String {
    let lower = unquote(written).to_lowercase();
    let lower = lower.strip_prefix("the ").unwrap_or(&lower).trim();
    let short = lower.strip_prefix("rule tag ").unwrap_or(lower).trim();
    format!("rule tag {short}")
}

/// Splits `text` at the first of the whole words in `words`, outside quotes.
fn split_word<'t>(text: &'t str, words: &[&str]) -> Option<(&'t str, &'t str)> {
    let mut in_quotes = false;
    for (at, c) in text.char_indices() {
        if c == '"' || c == '“' || c == '”' {
            in_quotes = !in_quotes;
        }
        if in_quotes || !(at == 0 || text[..at].ends_with(char::is_whitespace)) {
            continue;
        }
        for word in words {
            let end = at + word.len();
            if text.len() >= end
                && text.is_char_boundary(end)
                && text[at..end].eq_ignore_ascii_case(word)
                && text[end..].chars().next().is_none_or(char::is_whitespace)
            {
                return Some((&text[..at], &text[end..]));
            }
        }
    }
    None
}

fn parse_move(rest: &str) -> Result<Command, NotUnderstood> {
    let usage = || usage("move from CURRENT to NEW via \"TERM\" (or: move to null)");
    let (places, term) = match split_word(rest, &["via", "using", "through", "by"]) {
        Some((places, term)) => (places, Some(unquote(term)).filter(|t| !t.is_empty())),
        None => (rest, None),
    };
    let (from, to) = split_word(places, &["to"]).ok_or_else(usage)?;
    let from = from.trim();
    let from = match split_word(from, &["from"]) {
        Some((before, from)) if before.trim().is_empty() => {
            Some(parse_rtl(from).ok_or_else(usage)?)
        }
        Some(_) => return Err(usage()),
        None if from.is_empty() => None,
        None => Some(parse_rtl(from).ok_or_else(usage)?),
    };
    let to = parse_rtl(to).ok_or_else(usage)?;
    Ok(Command::Move { from, to, term })
}

fn parse_grab(rest: &str) -> Result<Action, NotUnderstood> {
    let usage = || usage("grab OBJECT POINTS (as in: grab ball 5)");
    let words: Vec<&str> = rest.split_whitespace().collect();
    let at = words
        .iter()
        .rposition(|w| w.trim_start_matches(['-', '+']).parse::<u64>().is_ok())
        .ok_or_else(usage)?;
    let points: i64 = words[at].parse().map_err(|_| usage())?;
    let object: Vec<&str> = words[..at]
        .iter()
        .copied()
        .filter(|w| !w.eq_ignore_ascii_case("for") && !w.eq_ignore_ascii_case("with"))
        .collect();
    let trailing_ok = words[at + 1..]
        .iter()
        .all(|w| matches!(w.to_lowercase().as_str(), "points" | "point" | "pts"));
    if object.is_empty() || !trailing_ok {
        return Err(usage());
    }
    Ok(Action::Grab {
        object: object_name(&object.join(" ")),
        points,
    })
}

/// `... because REASON`: the reason is required, because an override is announced with it.
fn with_reason<'t>(rest: &'t str, usage_text: &str) -> Result<(&'t str, String), NotUnderstood> {
    match rest.split_once(" because ") {
        Some((what, reason)) if !reason.trim().is_empty() => {
            Ok((what.trim(), reason.trim().to_owned()))
        }
        _ => Err(usage(usage_text)),
    }
}

/// Reads one `[rule tag]` command line.
pub fn parse(line: &str) -> Result<Command, NotUnderstood> {
    let (verb, rest) = split_verb(line);
    match verb.as_str() {
        "element" | "element:" => {
            let rest = rest.strip_prefix("change").unwrap_or(rest).trim();
            let rest = rest.strip_prefix("to ").unwrap_or(rest);
            Element::from_word(rest)
                .map(|element| Command::Act(Action::Element { element }))
                .ok_or_else(|| usage("element EARTH|AIR|FIRE|WATER"))
        }
        "move" => parse_move(rest),
        "grab" => parse_grab(rest).map(Command::Act),
        "drop" if !rest.is_empty() => Ok(Command::Act(Action::Drop {
            object: object_name(rest),
        })),
        "drop" => Err(usage("drop OBJECT (as in: drop ball)")),
        "status" if rest.is_empty() => Ok(Command::Status),
        "start" if rest.is_empty() => Ok(Command::Start),
        "void" => {
            let text = "void PLAYER element|move|grab|drop because REASON";
            let (what, reason) = with_reason(rest, text)?;
            let (name, kind) = what
                .rsplit_once(char::is_whitespace)
                .ok_or_else(|| usage(text))?;
            let kind = ActionKind::from_word(kind).ok_or_else(|| usage(text))?;
            Ok(Command::Void {
                name: name.trim().to_owned(),
                kind,
                reason,
            })
        }
        "relocate" => {
            let text = "relocate OBJECT to RULE because REASON";
            let (what, reason) = with_reason(rest, text)?;
            let (object, rtl) = split_word(what, &["to"]).ok_or_else(|| usage(text))?;
            match parse_rtl(rtl) {
                Some(Some(rtl)) if !object.trim().is_empty() => Ok(Command::Relocate {
                    object: object_name(object),
                    rtl,
                    reason,
                }),
                _ => Err(usage(text)),
            }
        }
        "give" => {
            let text = "give OBJECT to PLAYER because REASON";
            let (what, reason) = with_reason(rest, text)?;
            match split_word(what, &["to"]) {
                Some((object, name)) if !object.trim().is_empty() && !name.trim().is_empty() => {
                    Ok(Command::Give {
                        object: object_name(object),
                        name: name.trim().to_owned(),
                        reason,
                    })
                }
                _ => Err(usage(text)),
            }
        }
        "set" => {
            let text = "set PLAYER rtl RULE|null because REASON (or: set PLAYER element FIRE because REASON)";
            let (what, reason) = with_reason(rest, text)?;
            if let Some((name, rtl)) = split_word(what, &["rtl"]) {
                match parse_rtl(rtl) {
                    Some(rtl) if !name.trim().is_empty() => Ok(Command::Place {
                        name: name.trim().to_owned(),
                        rtl,
                        reason,
                    }),
                    _ => Err(usage(text)),
                }
            } else if let Some((name, element)) = split_word(what, &["element"]) {
                match Element::from_word(element) {
                    Some(element) if !name.trim().is_empty() => Ok(Command::SetElement {
                        name: name.trim().to_owned(),
                        element,
                        reason,
                    }),
                    _ => Err(usage(text)),
                }
            } else {
                Err(usage(text))
            }
        }
        "term" => {
            let text = "term \"TERM\" defined in RULE because REASON (or: not defined in)";
            let (what, reason) = with_reason(rest, text)?;
            let (term, number) = split_word(what, &["in"]).ok_or_else(|| usage(text))?;
            let number = match parse_rtl(number) {
                Some(Some(number)) => number,
                _ => return Err(usage(text)),
            };
            let term = term.trim();
            let (term, defined) = if let Some((term, _)) = split_word(term, &["not"]) {
                (term, false)
            } else if let Some((term, _)) = split_word(term, &["defined", "is"]) {
                (term, true)
            } else {
                return Err(usage(text));
            };
            let term = unquote(term);
            if term.is_empty() {
                return Err(usage(text));
            }
            Ok(Command::Term {
                term,
                number,
                defined,
                reason,
            })
        }
        _ => Err(NotUnderstood(
            Sentence::new("unknown_command")
                .arg("tag", TAG)
                .arg("commands", COMMANDS),
        )),
    }
}
