//! Reads `[treasure]` command lines.

use super::{Command, Finders};
use crate::engine::{NotUnderstood, Sentence, UNKNOWN_COMMAND, split_verb};

fn usage(form: &str) -> NotUnderstood {
    NotUnderstood(Sentence::new("usage").arg("usage", form))
}

pub fn parse(line: &str) -> Result<Command, NotUnderstood> {
    let (verb, rest) = split_verb(line);
    let rest = rest.trim();
    match verb.as_str() {
        "bury" => {
            let form = "bury AMOUNT CURRENCY, #ITEM, ... [as NAME]";
            let (what, name) = match rest.to_ascii_lowercase().rfind(" as ") {
                Some(at) => (&rest[..at], Some(rest[at + 4..].trim().to_owned())),
                None => (rest, None),
            };
            let parts: Vec<String> = what
                .split([',', '+'])
                .flat_map(|p| p.split(" and "))
                .map(|p| p.trim().to_owned())
                .filter(|p| !p.is_empty())
                .collect();
            if parts.is_empty() || name.as_deref() == Some("") {
                return Err(usage(form));
            }
            Ok(Command::Bury { parts, name })
        }
        "map" => {
            let (treasure, text) = rest
                .split_once(':')
                .ok_or_else(|| usage("map TREASURE: THE MAP'S TEXT"))?;
            if treasure.trim().is_empty() || text.trim().is_empty() {
                return Err(usage("map TREASURE: THE MAP'S TEXT"));
            }
            Ok(Command::Map {
                treasure: treasure.trim().to_owned(),
                text: text.trim().to_owned(),
            })
        }
        "disclose" => {
            let form = "disclose TREASURE [\"QUOTED PART\"] [to NAME, NAME]";
            let (what, to) = match rest.to_ascii_lowercase().rfind(" to ") {
                Some(at) if !rest[at..].contains('"') => (&rest[..at], names(&rest[at + 4..])),
                _ => (rest, Vec::new()),
            };
            let (treasure, part) = match what.split_once('"') {
                Some((treasure, quoted)) => {
                    let part = quoted.strip_suffix('"').map(str::trim).unwrap_or("");
                    if part.is_empty() {
                        return Err(usage(form));
                    }
                    (treasure.trim(), Some(part.to_owned()))
                }
                None => (what.trim(), None),
            };
            if treasure.is_empty() {
                return Err(usage(form));
            }
            Ok(Command::Disclose {
                treasure: treasure.to_owned(),
                part,
                to,
            })
        }
        "found" => {
            let form = "found TREASURE by PLAYER [at WHEN][; PLAYER at WHEN]";
            let (treasure, who) = rest.split_once(" by ").ok_or_else(|| usage(form))?;
            let mut groups = Vec::new();
            for group in who.split(';') {
                let (finder, when) = match group.rsplit_once(" at ") {
                    Some((finder, when)) => (finder, Some(when.trim().to_owned())),
                    None => (group, None),
                };
                let names = names(finder);
                if names.is_empty() || when.as_deref() == Some("") {
                    return Err(usage(form));
                }
                groups.push(Finders { names, when });
            }
            if treasure.trim().is_empty() {
                return Err(usage(form));
            }
            Ok(Command::Found {
                treasure: treasure.trim().to_owned(),
                groups,
            })
        }
        "hand" => {
            let form = "hand TREASURE to the Treasure-Harfer";
            let (treasure, to) = rest.split_once(" to ").ok_or_else(|| usage(form))?;
            let to = to.trim().trim_start_matches("the ").trim();
            if treasure.trim().is_empty() || !to.to_ascii_lowercase().contains("treasure-harfer") {
                return Err(usage(form));
            }
            Ok(Command::Hand {
                treasure: treasure.trim().to_owned(),
            })
        }
        "status" | "treasures" => Ok(Command::Status),
        _ => Err(NotUnderstood(Sentence::new(UNKNOWN_COMMAND))),
    }
}

/// "Bob, Carol and Dave": the names.
fn names(text: &str) -> Vec<String> {
    text.split([',', '&'])
        .flat_map(|n| n.split(" and "))
        .map(|n| n.trim().to_owned())
        .filter(|n| !n.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_find_names_simultaneous_finders_and_groups_at_their_own_times() {
        let Ok(Command::Found { treasure, groups }) =
            parse("found the spoon by Bob and Carol at 14:00; Dave at 13:00")
        else {
            panic!("not read as a find")
        };
        assert_eq!(treasure, "the spoon");
        assert_eq!(
            groups,
            vec![
                Finders {
                    names: vec!["Bob".into(), "Carol".into()],
                    when: Some("14:00".into()),
                },
                Finders {
                    names: vec!["Dave".into()],
                    when: Some("13:00".into()),
                },
            ]
        );
        assert!(parse("found 1 by ; Dave").is_err());
        assert!(parse("found 1").is_err());
    }
}
