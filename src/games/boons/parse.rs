//! `[boons]` command lines, read into `Command`s. Text work only: who may do
//! what, and when, is for `rules`.

use crate::engine::{NotUnderstood, Sentence, split_verb};

use super::{Command, Method, TAG};

const COMMANDS: &str = "choose [#N] BOON, describe [#N] TEXT, status, help (moderators: bestow NAME [random|deterministic] because REASON)";

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
        assert!(parse("bestow Alice").is_err());
        assert!(parse("choose").is_err());
        assert_eq!(
            parse("frobnicate").unwrap_err().0.code,
            "unknown_command".to_owned()
        );
    }
}
