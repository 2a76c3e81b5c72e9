//! `[gnomic]` command lines, read into `Command`s: one line each, except a turn
//! post, which takes every line after its first (its hacks and what goes with
//! them). Text work only: whose turn it is and what a hack may change is for
//! `rules`.

use crate::engine::{NotUnderstood, Sentence, split_reason, split_verb};

use super::hack;
use super::{Choice, Command, Condition, Correction, PostedHack, TAG, TurnPost};

const COMMANDS: &str = "turn (then the hacks), sacrifice LAMBDA, vote N for|against|abstain (privately), meta N (then a hack), change N (then the hack), greek N COUNT, UNRULEWORTHY!!! N GROUND, judgment QUESTION [accusing NAME], ruling agree|disagree: TEXT, overrule, consent, forfeit, exception begin|end, status, help (moderators: start, score NAME POINTS because REASON, next NAME because REASON, ordinal N because REASON)";

/// 383: the shout, exactly as the rule writes it.
pub const SHOUT: &str = "UNRULEWORTHY!!!";

fn usage(usage: &str) -> NotUnderstood {
    NotUnderstood(Sentence::new("usage").arg("usage", usage))
}

/// A hack's number as written: `441` or `#441`.
fn number(word: &str) -> Option<u32> {
    word.strip_prefix('#').unwrap_or(word).parse().ok()
}

/// `meta N` / `change N`: the first line of a post that carries a hack.
fn hack_post(line: &str) -> Option<(bool, Result<u32, NotUnderstood>)> {
    let (verb, rest) = split_verb(line);
    let meta = match verb.as_str() {
        "meta" => true,
        "change" => false,
        _ => return None,
    };
    let words: Vec<&str> = rest.split_whitespace().collect();
    let form = if meta {
        "meta N, then the hack on the lines below"
    } else {
        "change N, then the hack's new text on the lines below"
    };
    Some((
        meta,
        match words.as_slice() {
            [hack] => number(hack).ok_or_else(|| usage(form)),
            _ => Err(usage(form)),
        },
    ))
}

/// `UNRULEWORTHY!!! 441 [reason]`; a shout that is not the rule's exact words is
/// refused with them.
fn shout(line: &str) -> Option<Result<Command, NotUnderstood>> {
    let line = line.trim();
    if let Some(rest) = line.strip_prefix(SHOUT) {
        let rest = rest.trim();
        let (hack, reason) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        return Some(match number(hack.trim_end_matches([',', ':'])) {
            Some(hack) => Ok(Command::Unruleworthy {
                hack,
                reason: Some(reason.trim().to_owned()).filter(|r| !r.is_empty()),
            }),
            None => Err(usage("UNRULEWORTHY!!! N [reason]")),
        });
    }
    let first = line.split_whitespace().next()?;
    first
        .to_ascii_lowercase()
        .starts_with("unruleworthy")
        .then(|| {
            Err(usage(
                "UNRULEWORTHY!!! N [reason] (the shout as rule 383 writes it: capitals, three exclamation marks)",
            ))
        })
}

/// 390's statement, in the bot's short form (`sacrifice 13`) or the rule's own
/// words ("I sacrifice 13 percent of my score for the well-being of the game").
fn sacrifice(line: &str) -> Option<Result<Command, NotUnderstood>> {
    let lower = line.trim().to_lowercase();
    let rest = lower
        .strip_prefix("i sacrifice ")
        .or_else(|| lower.strip_prefix("sacrifice "))?;
    let form = "sacrifice LAMBDA (a whole percentage of your score, rule 390)";
    let lambda = rest.split_whitespace().next().unwrap_or("");
    let short_form = lower.starts_with("sacrifice ") && rest.split_whitespace().count() == 1;
    let rule_form = rest.contains("percent") || rest.contains('%');
    if !short_form && !rule_form {
        return Some(Err(usage(form)));
    }
    Some(
        lambda
            .trim_end_matches('%')
            .parse()
            .map(|lambda| Command::Sacrifice { lambda })
            .map_err(|_| usage(form)),
    )
}

/// A moderator's correction: `score NAME POINTS`, `next NAME` or `ordinal N`,
/// each followed by `because REASON`.
fn correction(verb: &str, rest: &str) -> Option<Result<Command, NotUnderstood>> {
    let form = match verb {
        "score" => "score NAME POINTS because REASON",
        "next" => "next NAME because REASON",
        "ordinal" => "ordinal N because REASON",
        _ => return None,
    };
    let (what, reason) = match split_reason(rest, form) {
        Ok(split) => split,
        Err(refused) => return Some(Err(refused)),
    };
    if what.is_empty() {
        return Some(Err(usage(form)));
    }
    let correction = match verb {
        "score" => match what.rsplit_once(char::is_whitespace) {
            Some((name, points)) => match points.trim_start_matches('+').parse() {
                Ok(points) => Correction::Score {
                    name: name.trim().to_owned(),
                    points,
                },
                Err(_) => return Some(Err(usage(form))),
            },
            None => return Some(Err(usage(form))),
        },
        "next" => Correction::Next {
            name: what.to_owned(),
        },
        _ => match number(what) {
            Some(next) => Correction::Ordinal { next },
            None => return Some(Err(usage(form))),
        },
    };
    Some(Ok(Command::Correct {
        correction,
        reason: reason.to_owned(),
    }))
}

/// One line: `start`, `turn`, `vote N CHOICE`, `greek N COUNT`, `status`, and
/// the lines of meta-amendments, shouts and Judgment.
pub fn parse(line: &str) -> Result<Command, NotUnderstood> {
    if let Some(shouted) = shout(line) {
        return shouted;
    }
    if let Some(stated) = sacrifice(line) {
        return stated;
    }
    if let Some((meta, hack)) = hack_post(line) {
        let hack = hack?;
        let post = Box::default();
        return Ok(if meta {
            Command::Meta { parent: hack, post }
        } else {
            Command::Change { hack, post }
        });
    }
    let (verb, rest) = split_verb(line);
    let words: Vec<&str> = rest.split_whitespace().collect();
    if let Some(corrected) = correction(&verb, rest) {
        return corrected;
    }
    match verb.as_str() {
        "start" if rest.is_empty() => Ok(Command::Start),
        "start" => Err(usage("start")),
        "status" if rest.is_empty() => Ok(Command::Status),
        "turn" if rest.is_empty() => Ok(Command::Turn(Box::default())),
        "vote" => match words.as_slice() {
            [hack, choice] => match (number(hack), Choice::from_word(choice)) {
                (Some(hack), Some(choice)) => Ok(Command::Vote { hack, choice }),
                _ => Err(usage("vote N for|against|abstain")),
            },
            _ => Err(usage("vote N for|against|abstain")),
        },
        "greek" => match words.as_slice() {
            [hack, count] => match (number(hack), count.parse()) {
                (Some(hack), Ok(count)) => Ok(Command::Greek { hack, count }),
                _ => Err(usage("greek N COUNT")),
            },
            _ => Err(usage("greek N COUNT")),
        },
        "judgment" | "judgement" if !rest.is_empty() => {
            // `... accusing NAME` at the end names the accused (373).
            let (question, accusing) = match rest.rsplit_once(char::is_whitespace) {
                Some((before, name)) => match before.trim_end().rsplit_once(char::is_whitespace) {
                    Some((question, word)) if word.eq_ignore_ascii_case("accusing") => {
                        (question.trim(), Some(name.to_owned()))
                    }
                    None if before.trim().eq_ignore_ascii_case("accusing") => {
                        ("", Some(name.to_owned()))
                    }
                    _ => (rest, None),
                },
                None => (rest, None),
            };
            if question.is_empty() {
                return Err(usage("judgment QUESTION [accusing NAME]"));
            }
            Ok(Command::Judgment {
                question: question.to_owned(),
                accusing,
            })
        }
        "judgment" | "judgement" => Err(usage("judgment QUESTION [accusing NAME]")),
        "ruling" => {
            let (word, text) = rest
                .split_once([':', ' '])
                .map_or((rest, ""), |(w, t)| (w, t.trim_start_matches(':').trim()));
            let agreed = match word.trim().to_ascii_lowercase().as_str() {
                "agree" | "agrees" => true,
                "disagree" | "disagrees" => false,
                _ => return Err(usage("ruling agree|disagree: TEXT")),
            };
            if text.is_empty() {
                return Err(usage("ruling agree|disagree: TEXT"));
            }
            Ok(Command::Ruling {
                agreed,
                text: text.to_owned(),
            })
        }
        "overrule" if rest.is_empty() => Ok(Command::Overrule),
        "consent" if rest.is_empty() => Ok(Command::Consent),
        "exception" => match rest.trim().to_ascii_lowercase().as_str() {
            "begin" | "invoke" => Ok(Command::Exception { end: false }),
            "end" => Ok(Command::Exception { end: true }),
            _ => Err(usage("exception begin|end")),
        },
        "forfeit" if rest.is_empty() => Ok(Command::Forfeit),
        "forfeit" => Err(usage("forfeit")),
        "overrule" => Err(usage("overrule")),
        "consent" => Err(usage("consent")),
        _ if hack::is_header(line) => Err(usage("turn, then the hacks on the lines below")),
        _ => Err(NotUnderstood(
            Sentence::new("unknown_command")
                .arg("tag", TAG)
                .arg("commands", COMMANDS),
        )),
    }
}

/// A message's lines: one command each, blank lines skipped, until a line `turn`
/// or a first hack header; that line and every line after it are the turn post.
pub fn parse_message(lines: &[String]) -> Vec<(String, Result<Command, NotUnderstood>)> {
    let mut read = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        if let Some((meta, hack)) = hack_post(line) {
            let command = hack.map(|hack| {
                let post = Box::new(turn_post(&lines[index + 1..]));
                if meta {
                    Command::Meta { parent: hack, post }
                } else {
                    Command::Change { hack, post }
                }
            });
            read.push((line.trim().to_owned(), command));
            return read;
        }
        let starts_turn = line.trim().eq_ignore_ascii_case("turn") || hack::is_header(line);
        if starts_turn {
            let rest = if hack::is_header(line) {
                &lines[index..]
            } else {
                &lines[index + 1..]
            };
            read.push((
                line.trim().to_owned(),
                Ok(Command::Turn(Box::new(turn_post(rest)))),
            ));
            return read;
        }
        read.push((line.clone(), parse(line)));
    }
    read
}

/// Whether a hack's header says it repeals or transmutes: such a hack is its
/// header line alone.
fn is_one_line(header: &str) -> bool {
    let after_title = header
        .rfind(['"', '”'])
        .map_or(header, |at| &header[at..])
        .to_ascii_lowercase();
    after_title.contains("repeals") || after_title.contains("transmutes")
}

/// `if 441 adopted` / `if 441 rejected`.
fn condition(line: &str) -> Option<Condition> {
    let words: Vec<String> = line
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    match words
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["if", hack, outcome] => Some(Condition {
            hack: number(hack)?,
            adopted: match *outcome {
                "adopted" | "accepted" => true,
                "rejected" | "failed" => false,
                _ => return None,
            },
        }),
        _ => None,
    }
}

/// The lines of a turn post after `turn`: hacks (each a header and, for an
/// enactment or an amendment, its body up to `end`), `sacrifice LAMBDA`,
/// `against N` / `abstain N` / `for N`, `greek N COUNT`, `if N adopted|rejected`
/// right after a header.
pub fn turn_post(lines: &[String]) -> TurnPost {
    let mut post = TurnPost::default();
    let mut index = 0;
    while let Some(line) = lines.get(index) {
        index += 1;
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        if hack::is_header(trimmed) {
            let mut hack_lines = vec![trimmed.to_owned()];
            let mut condition_found = None;
            if let Some(next) = lines.get(index)
                && let Some(found) = condition(next)
            {
                condition_found = Some(found);
                index += 1;
            }
            if !is_one_line(trimmed) {
                while let Some(body) = lines.get(index) {
                    if hack::is_header(body.trim()) {
                        break;
                    }
                    index += 1;
                    hack_lines.push(body.trim_end().to_owned());
                    if body.trim().eq_ignore_ascii_case("end") {
                        break;
                    }
                }
            }
            post.hacks.push(
                hack::parse(&hack_lines)
                    .map(|hack| PostedHack {
                        hack,
                        condition: condition_found,
                    })
                    .map_err(|error| (trimmed.to_owned(), error)),
            );
            continue;
        }
        let (verb, rest) = split_verb(trimmed);
        let words: Vec<&str> = rest.split_whitespace().collect();
        match (verb.as_str(), words.as_slice()) {
            ("sacrifice", [lambda]) => match lambda.trim_end_matches('%').parse() {
                Ok(lambda) => post.sacrifice = Some(lambda),
                Err(_) => post.stray.push(trimmed.to_owned()),
            },
            ("for" | "against" | "abstain", [hack]) => match number(hack) {
                Some(hack) => post
                    .own_votes
                    .push((hack, Choice::from_word(&verb).unwrap_or(Choice::For))),
                None => post.stray.push(trimmed.to_owned()),
            },
            ("greek", [hack, count]) => match (number(hack), count.parse()) {
                (Some(hack), Ok(count)) => post.greek.push((hack, count)),
                _ => post.stray.push(trimmed.to_owned()),
            },
            _ => post.stray.push(trimmed.to_owned()),
        }
    }
    post
}
