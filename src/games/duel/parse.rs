//! `[duel]` command lines, read into `Command`s. Text work only: who may do
//! what, and whether a Contest conforms, is for `rules`.

use crate::engine::{NotUnderstood, Sentence, split_reason, split_verb};

use super::{Command, TAG};
use crate::engine::contests;

const COMMANDS: &str = "NAME challenges NAME because REASON, accept N with CONTEST [as teams], accept N waive, decline N, choose N CONTEST [as teams], winner N NAME, commit N: TEXT, vacation on YYYY-MM-DD, contests, status, help (moderators: contest add NAME players N [teams] [referee bot|NAME] [game TAG] because REASON, contest remove NAME because REASON, cancel N because REASON)";

fn usage(usage: &str) -> NotUnderstood {
    NotUnderstood(Sentence::new("usage").arg("usage", usage))
}

/// A duel's number as written: `3` or `#3`.
fn number(word: &str) -> Option<u32> {
    word.strip_prefix('#').unwrap_or(word).parse().ok()
}

/// An optional number first, then the rest.
fn numbered(rest: &str) -> (Option<u32>, &str) {
    let (first, after) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    match number(first.trim_end_matches(':')) {
        Some(n) => (Some(n), after.trim()),
        None => (None, rest.trim()),
    }
}

/// A Contest's name with an optional "as teams" after it.
fn contest_name(text: &str) -> (String, bool) {
    let text = text.trim();
    let lower = text.to_ascii_lowercase();
    for ending in [" as teams", " for teams", " (teams)"] {
        if lower.ends_with(ending) {
            return (text[..text.len() - ending.len()].trim().to_owned(), true);
        }
    }
    (text.to_owned(), false)
}

pub fn parse(line: &str) -> Result<Command, NotUnderstood> {
    let (verb, rest) = split_verb(line);
    match verb.as_str() {
        "accept" => {
            let (number, rest) = numbered(rest);
            let lower = rest.to_lowercase();
            if ["waive", "waiver", "with waiver", "waived"].contains(&lower.as_str()) {
                return Ok(Command::Accept {
                    number,
                    contest: None,
                    teams: false,
                });
            }
            let Some(name) = rest
                .strip_prefix("with ")
                .or_else(|| rest.strip_prefix("With "))
                .filter(|n| !n.trim().is_empty())
            else {
                return Err(usage("accept N with CONTEST, or accept N waive"));
            };
            let (contest, teams) = contest_name(name);
            Ok(Command::Accept {
                number,
                contest: Some(contest),
                teams,
            })
        }
        "waive" => Ok(Command::Accept {
            number: numbered(rest).0,
            contest: None,
            teams: false,
        }),
        "decline" => Ok(Command::Decline {
            number: numbered(rest).0,
        }),
        "choose" => {
            let (number, rest) = numbered(rest);
            if rest.is_empty() {
                return Err(usage("choose N CONTEST"));
            }
            let (contest, teams) = contest_name(rest);
            Ok(Command::Choose {
                number,
                contest,
                teams,
            })
        }
        "winner" => {
            let (number, rest) = numbered(rest);
            let name = rest.strip_prefix("is ").unwrap_or(rest).trim();
            if name.is_empty() {
                return Err(usage("winner N NAME"));
            }
            Ok(Command::Winner {
                number,
                name: name.to_owned(),
            })
        }
        "commit" => {
            let (number, rest) = numbered(rest);
            let text = rest.trim_start_matches(':').trim();
            if text.is_empty() {
                return Err(usage("commit N: TEXT"));
            }
            Ok(Command::Commit {
                number,
                text: text.to_owned(),
            })
        }
        "vacation" => {
            let date = rest.strip_prefix("on ").unwrap_or(rest).trim();
            if jiff::civil::Date::strptime("%Y-%m-%d", date).is_err() {
                return Err(usage("vacation on YYYY-MM-DD"));
            }
            Ok(Command::Vacation {
                date: date.to_owned(),
            })
        }
        "contest" => parse_contest(rest),
        "contests" | "suite" if rest.is_empty() => Ok(Command::Contests),
        "cancel" => {
            let (which, reason) = rest
                .split_once(" because ")
                .ok_or_else(|| usage("cancel N because REASON"))?;
            Ok(Command::Cancel {
                number: number(which.trim()).ok_or_else(|| usage("cancel N because REASON"))?,
                reason: reason.trim().to_owned(),
            })
        }
        "status" if rest.is_empty() => Ok(Command::Status),
        _ => challenge(line).ok_or_else(unknown),
    }
}

fn unknown() -> NotUnderstood {
    NotUnderstood(
        Sentence::new("unknown_command")
            .arg("tag", TAG)
            .arg("commands", COMMANDS),
    )
}

/// `CHALLENGER challenges CHALLENGED because REASON`.
fn challenge(line: &str) -> Option<Command> {
    let lower = line.to_ascii_lowercase();
    let at = lower.find(" challenges ")?;
    let challenger = line[..at].trim();
    let rest = &line[at + " challenges ".len()..];
    let (challenged, reason) = rest
        .split_once(" because ")
        .or_else(|| rest.split_once(" for "))?;
    let challenged = challenged
        .trim()
        .strip_suffix(" to a duel")
        .unwrap_or(challenged.trim());
    if challenger.is_empty() || challenged.is_empty() || reason.trim().is_empty() {
        return None;
    }
    Some(Command::Challenge {
        challenger: challenger.to_owned(),
        challenged: challenged.trim().to_owned(),
        reason: reason.trim().to_owned(),
    })
}

/// `contest add NAME players N [teams] [referee bot|NAME] [game TAG] because
/// REASON`, `contest remove NAME because REASON`: the suite's changes, as
/// `[games]` takes them.
fn parse_contest(rest: &str) -> Result<Command, NotUnderstood> {
    const FORM: &str = "contest add NAME players N [teams] [no winner] [referee bot|NAME] [game TAG] because REASON, or contest remove NAME because REASON";
    let (verb, rest) = split_verb(rest);
    match verb.as_str() {
        "remove" if !rest.is_empty() => {
            let (name, reason) = split_reason(rest, FORM)?;
            if name.is_empty() {
                return Err(usage(FORM));
            }
            Ok(Command::RemoveContest {
                name: name.to_owned(),
                reason,
            })
        }
        "add" => {
            let (spec, reason) = split_reason(rest, FORM)?;
            contests::parse_spec(spec)
                .map(|contest| Command::AddContest { contest, reason })
                .ok_or_else(|| usage(FORM))
        }
        _ => Err(usage(FORM)),
    }
}
