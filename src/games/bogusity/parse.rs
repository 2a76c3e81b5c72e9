//! `[bogusity]` command lines, read into `Command`s. Text work only: whether a
//! command is allowed, and whether a response is spelt as the rule wants, is
//! for `rules`.

use crate::engine::{NotUnderstood, Sentence, split_verb};

use super::rules::Response;
use super::{Command, TAG};

const COMMANDS: &str = "describe BOON: TEXT, call N, This loophole surfer is totally Bogus, Thats a pretty cool idea (N RESPONSE when several hearings are open), status, help (moderators: close N because REASON)";

/// The longest name of a Boon: a name, not its description.
const MAX_BOON_CHARS: usize = 100;

fn usage(usage: &str) -> NotUnderstood {
    NotUnderstood(Sentence::new("usage").arg("usage", usage))
}

/// A description's number as written: `3` or `#3`.
fn number(word: &str) -> Option<u32> {
    word.strip_prefix('#').unwrap_or(word).parse().ok()
}

/// Reads one line: `describe BOON: TEXT`, `call N`, a response (`[N]
/// RESPONSE`), `close N because REASON`, `status`.
pub fn parse(line: &str) -> Result<Command, NotUnderstood> {
    let (verb, rest) = split_verb(line);
    match verb.as_str() {
        "describe" => parse_describe(rest),
        "call" => parse_call(rest),
        "close" => parse_close(rest),
        "status" if rest.is_empty() => Ok(Command::Status),
        _ => parse_response(line).ok_or_else(|| {
            NotUnderstood(
                Sentence::new("unknown_command")
                    .arg("tag", TAG)
                    .arg("commands", COMMANDS),
            )
        }),
    }
}

/// `describe BOON: TEXT`; the text may follow on the next lines instead
/// (`parse_message`), so an empty one is read here and refused when applied.
fn parse_describe(rest: &str) -> Result<Command, NotUnderstood> {
    let (boon, text) = rest
        .split_once(':')
        .ok_or_else(|| usage("describe BOON: TEXT"))?;
    let boon = boon.split_whitespace().collect::<Vec<_>>().join(" ");
    if boon.is_empty() || boon.chars().count() > MAX_BOON_CHARS {
        return Err(usage("describe BOON: TEXT"));
    }
    Ok(Command::Describe {
        boon,
        text: text.trim().to_owned(),
    })
}

/// `call N`, also `call #N`, `call hearing N`, `call a Bogusity Hearing on N`.
fn parse_call(rest: &str) -> Result<Command, NotUnderstood> {
    let words: Vec<&str> = rest.split_whitespace().collect();
    let filler = ["a", "bogusity", "hearing", "on", "description"];
    match words.split_last() {
        Some((last, before))
            if before
                .iter()
                .all(|w| filler.contains(&w.to_lowercase().as_str())) =>
        {
            number(last)
                .map(|number| Command::Call { number })
                .ok_or_else(|| usage("call N"))
        }
        _ => Err(usage("call N")),
    }
}

/// `close N because REASON`: the reason is required, since the override is
/// announced with it.
fn parse_close(rest: &str) -> Result<Command, NotUnderstood> {
    let (which, reason) = rest
        .split_once(" because ")
        .ok_or_else(|| usage("close N because REASON"))?;
    match number(which.trim()) {
        Some(number) if !reason.trim().is_empty() => Ok(Command::Close {
            number,
            reason: reason.trim().to_owned(),
        }),
        _ => Err(usage("close N because REASON")),
    }
}

/// `[vote] [N[:]] RESPONSE`: a line meant as one of the two responses, in any
/// spelling; `None` when it is neither.
fn parse_response(line: &str) -> Option<Command> {
    let mut rest = line.trim();
    let (verb, after) = split_verb(rest);
    if verb == "vote" || verb == "respond" {
        rest = after;
    }
    let (number, written) = match rest.split_once(|c: char| c.is_whitespace() || c == ':') {
        Some((first, after)) => match number(first) {
            Some(number) => (Some(number), after.trim().trim_start_matches(':').trim()),
            None => (None, rest),
        },
        None => (None, rest),
    };
    Some(Command::Respond {
        number,
        response: Response::meant_by(written)?,
        written: written.to_owned(),
    })
}

/// Reads a message's lines, one command each, except that a `describe` whose text
/// is not on its own line takes the lines below it, blank ones included, up to a
/// line `end` (or the end of the message).
pub fn parse_message(lines: &[String]) -> Vec<(String, Result<Command, NotUnderstood>)> {
    let mut read = Vec::new();
    let mut index = 0;
    while let Some(line) = lines.get(index) {
        index += 1;
        if line.trim().is_empty() {
            continue;
        }
        let mut result = parse(line);
        let takes_lines = match &result {
            Ok(Command::Describe { text, .. }) => text.is_empty(),
            // A description whose first line is wrong keeps its text, so the text
            // is never read as commands of its own.
            Err(_) => split_verb(line).0 == "describe",
            Ok(_) => false,
        };
        if takes_lines {
            let mut text_lines: Vec<&str> = Vec::new();
            while let Some(text_line) = lines.get(index) {
                index += 1;
                if text_line.trim().eq_ignore_ascii_case("end") {
                    break;
                }
                text_lines.push(text_line.trim_end());
            }
            if let Ok(Command::Describe { text, .. }) = &mut result {
                *text = text_lines.join("\n").trim_matches('\n').to_owned();
            }
        }
        read.push((line.clone(), result));
    }
    read
}
