//! Reading `[vote]` command lines into `Command`s: syntax only; who may vote and
//! on what is for `rules` to say.

use super::{Choice, Command, TAG};
use crate::engine::{NotUnderstood, Sentence, split_verb};

const COMMANDS: &str = "yes, no, N yes, N no, vote N yes, ballots, help (moderators: open QUESTION, close N because REASON)";

/// A ballot number as written: `3` or `#3`.
fn ballot_number(word: &str) -> Option<u32> {
    word.strip_prefix('#').unwrap_or(word).parse().ok()
}

/// Reads one `[vote]` command line: "open Should rule 326 pass?", "yes", "no",
/// "3 yes", "vote 3 no", "close 3 because REASON", "ballots".
pub fn parse(line: &str) -> Result<Command, NotUnderstood> {
    let (verb, rest) = split_verb(line);
    let usage = |usage: &str| NotUnderstood(Sentence::new("usage").arg("usage", usage));
    match verb.as_str() {
        "open" if !rest.is_empty() => Ok(Command::Open {
            question: rest.split_whitespace().collect::<Vec<_>>().join(" "),
        }),
        "open" => Err(usage("open QUESTION")),
        "ballots" | "ballot" if rest.is_empty() => Ok(Command::Ballots),
        "close" => {
            let (number, reason) = rest
                .split_once(" because ")
                .map(|(number, reason)| (ballot_number(number.trim()), reason.trim()))
                .ok_or_else(|| usage("close N because REASON"))?;
            match number {
                // The reason is required: an override is announced with it.
                Some(number) if !reason.is_empty() => Ok(Command::Close {
                    number,
                    reason: reason.to_owned(),
                }),
                _ => Err(usage("close N because REASON")),
            }
        }
        _ => parse_vote(line).ok_or_else(|| {
            NotUnderstood(
                Sentence::new("unknown_command")
                    .arg("tag", TAG)
                    .arg("commands", COMMANDS),
            )
        }),
    }
}

/// `[vote] [N] CHOICE`.
fn parse_vote(line: &str) -> Option<Command> {
    let mut words: Vec<&str> = line.split_whitespace().collect();
    if words
        .first()
        .is_some_and(|word| word.eq_ignore_ascii_case("vote"))
    {
        words.remove(0);
    }
    match words.as_slice() {
        [choice] => Some(Command::Vote {
            number: None,
            choice: Choice::from_word(choice)?,
        }),
        [number, choice] => Some(Command::Vote {
            number: Some(ballot_number(number)?),
            choice: Choice::from_word(choice)?,
        }),
        _ => None,
    }
}
