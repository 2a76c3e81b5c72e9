//! `[boons]` command lines, read into `Command`s. Text work only: who may do
//! what, and when, is for `rules`.

use crate::engine::{NotUnderstood, Sentence, split_verb};

use super::{Command, Method, TAG};

const COMMANDS: &str = "choose [#N] BOON, describe [#N] TEXT, status, help (moderators: bestow NAME [random|deterministic] because REASON, limit ENTITY: KIND to N|none because REASON)";

const LIMIT_FORM: &str = "limit ENTITY: KIND to N|none because REASON (for example: limit Qualified Gadget: Whoopee Cushion to 3 because rule 1180 says so)";

fn usage(usage: &str) -> NotUnderstood {
    NotUnderstood(Sentence::new("usage").arg("usage", usage))
}

/// A leading `#N` (a bestowal's number), and the rest.
fn numbered(rest: &str) -> (Option<u32>, &str) {
    if let Some(after) = rest.strip_prefix('#') {
        let (digits, more) = after.split_at(
            after
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(after.len()),
        );
        if let Ok(number) = digits.parse() {
            let more = more.trim_start();
            return (Some(number), more.strip_prefix(':').unwrap_or(more).trim());
        }
    }
    (None, rest)
}

pub fn parse(line: &str) -> Result<Command, NotUnderstood> {
    let (verb, rest) = split_verb(line);
    match verb.as_str() {
        "bestow" => parse_bestow(rest),
        "limit" => parse_limit(rest),
        "choose" => match numbered(rest) {
            (_, "") => Err(usage("choose [#N] BOON (its letter, a to h, or its name)")),
            (number, boon) => Ok(Command::Choose {
                number,
                boon: boon.to_owned(),
            }),
        },
        "describe" => match numbered(rest) {
            (_, "") => Err(usage("describe [#N] TEXT")),
            (number, text) => Ok(Command::Describe {
                number,
                text: text.to_owned(),
            }),
        },
        "status" if rest.is_empty() => Ok(Command::Status),
        _ => Err(NotUnderstood(
            Sentence::new("unknown_command")
                .arg("tag", TAG)
                .arg("commands", COMMANDS),
        )),
    }
}

/// `bestow NAME [random|randomly|deterministic|deterministically] because
/// REASON`: the reason is required, since the bestowal is announced with it.
fn parse_bestow(rest: &str) -> Result<Command, NotUnderstood> {
    let form = "bestow NAME [random|deterministic] because REASON";
    let (who, because) = rest.split_once(" because ").ok_or_else(|| usage(form))?;
    let mut words: Vec<&str> = who.split_whitespace().collect();
    let method = match words.last().map(|w| w.to_lowercase()).as_deref() {
        Some("deterministic" | "deterministically") => Method::Deterministic,
        Some("random" | "randomly") => Method::Random,
        // §2: "If the rule bestowing the Boon does not specify a method, the
        // random method is used."
        _ => {
            words.push("");
            Method::Random
        }
    };
    words.pop();
    let name = words.join(" ");
    if name.is_empty() || because.trim().is_empty() {
        return Err(usage(form));
    }
    Ok(Command::Bestow {
        name,
        method,
        because: because.trim().to_owned(),
    })
}

/// `limit ENTITY: KIND to N|none because REASON`: the instance limit of a
/// particular Gadget or Otzma Card (§9 a, b). The reason is required, since the
/// change is announced with it. The number is the last " to " of the line, so a
/// kind's name may hold one.
fn parse_limit(rest: &str) -> Result<Command, NotUnderstood> {
    let (what, because) = rest
        .split_once(" because ")
        .ok_or_else(|| usage(LIMIT_FORM))?;
    let (kind, limit) = what.rsplit_once(" to ").ok_or_else(|| usage(LIMIT_FORM))?;
    let (entity, name) = kind.split_once(':').ok_or_else(|| usage(LIMIT_FORM))?;
    let (entity, name, because) = (entity.trim(), name.trim(), because.trim());
    if entity.is_empty() || name.is_empty() || because.is_empty() {
        return Err(usage(LIMIT_FORM));
    }
    Ok(Command::Limit {
        entity: entity.to_owned(),
        name: name.to_owned(),
        limit: read_limit(limit.trim())?,
        because: because.to_owned(),
    })
}

/// A limit: a whole number from 0 (no instance may exist) to the largest an
/// entity's number can be, or "none" (no limit).
fn read_limit(text: &str) -> Result<Option<u32>, NotUnderstood> {
    let lower = text.to_lowercase();
    if matches!(lower.as_str(), "none" | "no limit" | "unlimited") {
        return Ok(None);
    }
    text.parse::<u32>().map(Some).map_err(|_| {
        NotUnderstood(
            Sentence::new("boons_bad_limit")
                .arg("limit", text)
                .arg("max", u32::MAX),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_read_as_written() {
        assert_eq!(
            parse("bestow Alice deterministic because she found the lamp"),
            Ok(Command::Bestow {
                name: "Alice".into(),
                method: Method::Deterministic,
                because: "she found the lamp".into()
            })
        );
        assert_eq!(
            parse("bestow Mary Ann because a rule says so"),
            Ok(Command::Bestow {
                name: "Mary Ann".into(),
                method: Method::Random,
                because: "a rule says so".into()
            })
        );
        assert_eq!(
            parse("choose #2 d"),
            Ok(Command::Choose {
                number: Some(2),
                boon: "d".into()
            })
        );
        assert_eq!(
            parse("describe #3: a brass astrolabe"),
            Ok(Command::Describe {
                number: Some(3),
                text: "a brass astrolabe".into()
            })
        );
        assert_eq!(
            parse("describe #3 is a number"),
            Ok(Command::Describe {
                number: Some(3),
                text: "is a number".into()
            })
        );
        assert_eq!(
            parse("limit Qualified Gadget: Time Machine to Go to 0 because it is broken"),
            Ok(Command::Limit {
                entity: "Qualified Gadget".into(),
                name: "Time Machine to Go".into(),
                limit: Some(0),
                because: "it is broken".into()
            })
        );
        assert_eq!(
            parse("LIMIT Otzma Card: The Fool to None because no limit was ever set"),
            Ok(Command::Limit {
                entity: "Otzma Card".into(),
                name: "The Fool".into(),
                limit: None,
                because: "no limit was ever set".into()
            })
        );
        for bad in ["-1", "4294967296", "99999999999999999999", "3.5", "three"] {
            assert_eq!(
                parse(&format!("limit Otzma Card: The Fool to {bad} because x"))
                    .unwrap_err()
                    .0
                    .code,
                "boons_bad_limit",
                "{bad}"
            );
        }
        assert!(parse("limit Otzma Card The Fool to 3 because x").is_err());
        assert!(parse("limit Otzma Card: The Fool to 3").is_err());
        assert!(parse("limit : The Fool to 3 because x").is_err());
        assert!(parse("bestow Alice").is_err());
        assert!(parse("choose").is_err());
        assert_eq!(
            parse("frobnicate").unwrap_err().0.code,
            "unknown_command".to_owned()
        );
    }
}
