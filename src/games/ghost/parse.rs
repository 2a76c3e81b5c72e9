//! Reading `[ghost]` command lines into `Command`s: forgiving about phrasing, and
//! nothing more; whether a command may be carried out is for `commands` and `rules`.

use jiff::SignedDuration;

use super::{Command, Grounds, MAX_LETTERS, TAG, When};
use crate::engine::Timestamp;
use crate::engine::{NotUnderstood, Sentence, split_verb};

const COMMANDS: &str = "start with NAME, NAME, ..., start duel with NAME, NAME, begin LETTER, play LETTERS (or the letters alone), protest word, protest not inside, word WORD (answering a protest), resign, leave, add me, protest addition NAME, referee, resign referee, status, history, help (referee: rule valid|invalid because REASON, remove NAME because REASON, set word LETTERS [by NAME] because REASON, clear word because REASON, turn NAME because REASON, deadline WHEN because REASON; moderator: order NAME, NAME, ... because REASON, start in order NAME, NAME, ... because REASON)";

fn usage(text: &str) -> NotUnderstood {
    NotUnderstood(Sentence::new("usage").arg("usage", text))
}

/// A string of letters as a player writes it: a–z in any case, perhaps quoted or
/// followed by a full stop. Lower-cased; `None` for anything else.
fn letters(text: &str) -> Option<String> {
    let text = text.trim_matches(['"', '\'', '`', '*', '.', '!', ' ']);
    (!text.is_empty() && text.len() <= MAX_LETTERS && text.bytes().all(|b| b.is_ascii_alphabetic()))
        .then(|| text.to_ascii_lowercase())
}

/// Verbs that, alone on a line, ask for their usage rather than being played.
const NOT_PLAYED_ALONE: &[&str] = &[
    "help", "start", "play", "begin", "protest", "remove", "rule",
];

/// Whether `parse` reads the line as a play only because it is a bare string of
/// letters ("uperso"). The router may want to refuse that reading for a subject
/// ("[ghost] thanks").
pub fn is_bare_play(line: &str) -> bool {
    bare_letters(line).is_some() && parse_command(line).is_err()
}

/// The line as a play of its letters: one word of letters, not a verb that needs more.
fn bare_letters(line: &str) -> Option<String> {
    let line = line.trim();
    if line.contains(char::is_whitespace)
        || NOT_PLAYED_ALONE.contains(&line.to_lowercase().as_str())
    {
        return None;
    }
    letters(line)
}

/// Letters after a verb, or why they are not letters.
fn letters_of(rest: &str, form: &str) -> Result<String, NotUnderstood> {
    if rest.is_empty() {
        return Err(usage(form));
    }
    letters(rest)
        .ok_or_else(|| NotUnderstood(Sentence::new("ghost_bad_letters").arg("text", rest.trim())))
}

/// Lower-case words with the punctuation a player puts around a phrase taken off.
fn phrase(text: &str) -> String {
    text.to_lowercase()
        .replace(['’', '‘'], "'")
        .chars()
        .map(|c| {
            if matches!(c, ':' | '"' | '.' | ',' | '!' | ';' | '(' | ')') {
                ' '
            } else {
                c
            }
        })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Reads one `[ghost]` command line. Forgiving: "protest: it is a word", "i resign",
/// "start a duel with Alice and Bob", or the letters of a play alone on the line
/// ("uperso"; a word that is also a command, such as "status", is played with
/// "play status").
pub fn parse(line: &str) -> Result<Command, NotUnderstood> {
    parse_command(line).or_else(|error| {
        bare_letters(line)
            .map(|letters| Command::Play { letters })
            .ok_or(error)
    })
}

/// The commands with a verb.
fn parse_command(line: &str) -> Result<Command, NotUnderstood> {
    let (verb, rest) = split_verb(line);
    let verb = verb.trim_end_matches(':');
    let rest = rest.trim_start_matches(':').trim();
    let words = phrase(rest);
    let unknown = || {
        NotUnderstood(
            Sentence::new("unknown_command")
                .arg("tag", TAG)
                .arg("commands", COMMANDS),
        )
    };
    match verb {
        "start" | "new" => parse_start(rest),
        "begin" | "letter" => {
            let letter = ["with the letter", "with", "the letter", "letter"]
                .iter()
                .find_map(|prefix| {
                    words
                        .strip_prefix(prefix)
                        .filter(|after| after.starts_with(' '))
                })
                .unwrap_or(rest);
            Ok(Command::Begin {
                letter: letters_of(letter, "begin LETTER")?,
            })
        }
        "play" | "continue" | "move" => Ok(Command::Play {
            letters: letters_of(rest, "play LETTERS")?,
        }),
        "protest" | "challenge" => parse_protest(&words),
        "word" | "answer" | "inside" | "within" => Ok(Command::Answer {
            word: letters_of(rest, "word WORD")?,
        }),
        "resign" if words.is_empty() || words == "the game" || words == "game" => {
            Ok(Command::Resign)
        }
        "resign" | "quit" | "stop" if words.contains("referee") || words.contains("post") => {
            Ok(Command::ResignReferee)
        }
        "leave" | "quit" | "withdraw"
            if matches!(words.as_str(), "" | "game" | "the game" | "this game") =>
        {
            Ok(Command::Leave)
        }
        "add" | "join"
            if matches!(words.as_str(), "" | "me" | "me please" | "please" | "me in") =>
        {
            Ok(Command::AddMe)
        }
        "referee" if matches!(words.as_str(), "" | "me" | "please" | "me please") => {
            Ok(Command::TakeReferee)
        }
        "take" | "become" | "i'll" | "i" | "i'd"
            if matches!(
                words.as_str(),
                "referee"
                    | "the referee post"
                    | "the post"
                    | "over as referee"
                    | "will referee"
                    | "referee the game"
                    | "the referee's post"
                    | "like to referee"
                    | "will be referee"
                    | "the referee"
            ) =>
        {
            Ok(Command::TakeReferee)
        }
        "i" if words == "resign" => Ok(Command::Resign),
        "i" if words == "leave" => Ok(Command::Leave),
        "status" | "state" | "who" if words.is_empty() => Ok(Command::Status),
        "history" | "log" | "record" if words.is_empty() => Ok(Command::History),
        "rule" | "ruling" | "rules" => parse_rule(rest),
        "remove" => match rest.split_once(" because ") {
            Some((name, reason)) if !name.trim().is_empty() && !reason.trim().is_empty() => {
                Ok(Command::Remove {
                    name: name.trim().to_owned(),
                    reason: reason.trim().to_owned(),
                })
            }
            _ => Err(usage("remove NAME because REASON")),
        },
        "set" | "clear" => parse_set_word(verb, rest),
        "order" | "reorder" => {
            let (names, reason) = because(rest, "order NAME, NAME, ... because REASON")?;
            let names = names_of(names.trim_start_matches("of play").trim_start_matches(':'));
            if names.is_empty() {
                return Err(usage("order NAME, NAME, ... because REASON"));
            }
            Ok(Command::Order { names, reason })
        }
        "turn" => {
            const FORM: &str = "turn NAME because REASON";
            let (name, reason) = because(rest, FORM)?;
            let name = name.trim_start_matches("to ").trim();
            if name.is_empty() {
                return Err(usage(FORM));
            }
            Ok(Command::SetTurn {
                name: name.to_owned(),
                reason,
            })
        }
        "deadline" | "clock" => {
            const FORM: &str = "deadline YYYY-MM-DD HH:MM UTC because REASON, or deadline in N days|hours because REASON";
            let (when, reason) = because(rest, FORM)?;
            let when = when_of(&when).ok_or_else(|| usage(FORM))?;
            Ok(Command::SetDeadline { when, reason })
        }
        _ => Err(unknown()),
    }
}

/// `start [a] [duel] with NAME, NAME and NAME [as a duel]`.
fn parse_start(rest: &str) -> Result<Command, NotUnderstood> {
    const FORM: &str = "start with NAME, NAME, ... or start duel with NAME, NAME";
    // A moderator's start with the numbers as listed comes with a reason:
    // "start in order Alice, Bob because ...", "start with Alice, Bob in order
    // because ...".
    let (mut text, reason) = match rest.split_once(" because ") {
        Some((head, reason)) if !reason.trim().is_empty() => {
            (head.to_owned(), Some(reason.trim().to_owned()))
        }
        _ => (rest.to_owned(), None),
    };
    let in_order = ["in this order", "in order"].iter().any(|marker| {
        let found = text.to_ascii_lowercase().find(marker);
        if let Some(at) = found {
            text.replace_range(at..at + marker.len(), " ");
        }
        found.is_some()
    });
    let reason = reason.filter(|_| in_order);
    let mut duel = false;
    let mut text = text.trim();
    // Leading filler words, "duel" among them, before the names.
    loop {
        let (word, after) = split_verb(text);
        let word = word.trim_end_matches(':');
        match word {
            "a" | "an" | "new" | "game" | "ghost" | "instance" | "with" | "between" | "among"
            | "for" | "players" | "of" => text = after,
            "duel" => {
                duel = true;
                text = after;
            }
            _ => break,
        }
    }
    for ending in [" as a duel", " as duel", " (duel)", " duel"] {
        if text.to_lowercase().ends_with(ending) {
            duel = true;
            text = &text[..text.len() - ending.len()];
        }
    }
    let names = names_of(text);
    if names.is_empty() {
        return Err(usage(FORM));
    }
    Ok(match reason {
        Some(reason) => Command::StartInOrder {
            duel,
            names,
            reason,
        },
        None => Command::Start { duel, names },
    })
}

/// "Alice, Bob and Carol", "Alice & Bob; Carol": the names, in order.
fn names_of(text: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for part in text.split([',', ';', '&']) {
        let mut part = part.trim();
        loop {
            let lower = part.to_lowercase();
            if let Some(rest) = lower.strip_prefix("and ") {
                part = &part[part.len() - rest.len()..];
                continue;
            }
            match lower.find(" and ") {
                Some(at) => {
                    names.push(part[..at].trim().to_owned());
                    part = part[at + 5..].trim();
                }
                None => break,
            }
        }
        if !part.is_empty() {
            names.push(part.to_owned());
        }
    }
    names.retain(|name| !name.is_empty());
    names
}

/// An override's `WHAT because REASON`: both must be there.
fn because(rest: &str, form: &str) -> Result<(String, String), NotUnderstood> {
    match rest.split_once(" because ") {
        Some((what, reason)) if !what.trim().is_empty() && !reason.trim().is_empty() => {
            Ok((what.trim().to_owned(), reason.trim().to_owned()))
        }
        _ => Err(usage(form)),
    }
}

/// A deadline as a moderator writes it: the bot's own form (`2026-05-04 12:00
/// UTC`, as every announcement shows it), RFC 3339, or `in N days|hours|minutes`.
fn when_of(text: &str) -> Option<When> {
    let text = text.trim().trim_start_matches("at ").trim();
    if let Some(span) = text.strip_prefix("in ") {
        let (n, unit) = span.trim().split_once(char::is_whitespace)?;
        let n: i64 = n
            .parse()
            .ok()
            .filter(|n| (1..=3650 * 24 * 60).contains(n))?;
        let minutes = match unit.trim().trim_end_matches('s') {
            "day" => n.checked_mul(24 * 60)?,
            "hour" => n.checked_mul(60)?,
            "minute" | "min" => n,
            _ => return None,
        };
        return Some(When::In(SignedDuration::from_mins(minutes)));
    }
    if let Ok(at) = text.parse::<Timestamp>() {
        return Some(When::At(at));
    }
    let civil = text.trim_end_matches("UTC").trim_end_matches("utc").trim();
    let at = jiff::civil::DateTime::strptime("%Y-%m-%d %H:%M", civil).ok()?;
    at.to_zoned(jiff::tz::TimeZone::UTC)
        .ok()
        .map(|z| When::At(z.timestamp()))
}

/// `protest word`, `protest not inside`, `protest addition NAME`, and longer
/// phrasings of the same.
fn parse_protest(words: &str) -> Result<Command, NotUnderstood> {
    const FORM: &str = "protest word, protest not inside, or protest addition NAME";
    for prefix in [
        "the addition of ",
        "addition of ",
        "addition ",
        "adding ",
        "add ",
    ] {
        if let Some(name) = words.strip_prefix(prefix).filter(|n| !n.trim().is_empty()) {
            return Ok(Command::ProtestAddition {
                name: name.trim().to_owned(),
            });
        }
    }
    if let Some(name) = words
        .strip_suffix("'s addition")
        .filter(|n| !n.trim().is_empty())
    {
        return Ok(Command::ProtestAddition {
            name: name.trim().to_owned(),
        });
    }
    const NOT_INSIDE: &[&str] = &[
        "inside",
        "within",
        "in any word",
        "cannot",
        "can't",
        "cant",
        "not found",
        "impossible",
        "no such word",
        "no word",
    ];
    if NOT_INSIDE.iter().any(|key| words.contains(key)) {
        return Ok(Command::Protest {
            grounds: Grounds::NotInside,
        });
    }
    // "not a word" is no ground of protest: rather than guess, ask.
    let has_not = words.split(' ').any(|w| w == "not" || w == "isn't");
    if !has_not
        && (matches!(words, "word" | "a word" | "is a word" | "real word")
            || words.contains("is a word")
            || words.contains("'s a word")
            || words.contains("four or more letters")
            || words.contains("complete word"))
    {
        return Ok(Command::Protest {
            grounds: Grounds::IsAWord,
        });
    }
    Err(usage(FORM))
}

/// `rule valid because REASON`, `rule invalid because REASON`.
fn parse_rule(rest: &str) -> Result<Command, NotUnderstood> {
    const FORM: &str = "rule valid because REASON, or rule invalid because REASON";
    let (head, reason) = rest.split_once(" because ").ok_or_else(|| usage(FORM))?;
    let head = phrase(head);
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(usage(FORM));
    }
    let words: Vec<&str> = head.split(' ').collect();
    let valid = if words.contains(&"invalid") || words.contains(&"not") {
        false
    } else if words.contains(&"valid") {
        true
    } else {
        return Err(usage(FORM));
    };
    Ok(Command::Rule {
        valid,
        reason: reason.to_owned(),
    })
}

/// `set word LETTERS because REASON`, `clear word because REASON`.
fn parse_set_word(verb: &str, rest: &str) -> Result<Command, NotUnderstood> {
    const FORM: &str = "set word LETTERS [by NAME] because REASON, or clear word because REASON";
    let (what, reason) = rest.split_once(" because ").ok_or_else(|| usage(FORM))?;
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(usage(FORM));
    }
    let what = phrase(what);
    let mut words: Vec<&str> = what.split(' ').filter(|w| !w.is_empty()).collect();
    while words
        .first()
        .is_some_and(|w| matches!(*w, "the" | "ghost" | "word" | "to"))
    {
        words.remove(0);
    }
    // "set word ST by Alice because ...": the player whose turn made it.
    let mut by = None;
    if let Some(at) = words.iter().position(|w| *w == "by")
        && at + 1 < words.len()
    {
        by = Some(words[at + 1..].join(" "));
        words.truncate(at);
    }
    let word = match (verb, words.as_slice()) {
        ("clear", []) if by.is_none() => None,
        ("set", ["none" | "nothing" | "-"]) => None,
        ("set", [letters_text]) => Some(letters(letters_text).ok_or_else(|| {
            NotUnderstood(Sentence::new("ghost_bad_letters").arg("text", *letters_text))
        })?),
        _ => return Err(usage(FORM)),
    };
    Ok(Command::SetWord {
        word,
        by,
        reason: reason.to_owned(),
    })
}
