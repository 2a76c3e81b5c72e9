//! Reads `[space]` command lines. A proposal's changes may follow its
//! `propose NAME:` line, one to a line (`parse_message` groups them).

use super::Command;
use super::changes::SpaceChange;
use super::engine::{Action, Change};
use super::graph::all_coords;
use crate::engine::{NotUnderstood, Sentence, UNKNOWN_COMMAND, split_verb};

fn usage(form: &str) -> NotUnderstood {
    NotUnderstood(Sentence::new("usage").arg("usage", form))
}

const PROPOSE: &str = "propose NAME: CHANGE, then one change to a line: create [NAME] colour COLOUR because REASON: TEXT / modify RULE: TEXT / repeal RULE";

pub fn parse(line: &str) -> Result<Command, NotUnderstood> {
    let (verb, rest) = split_verb(line);
    let rest = rest.trim();
    let act = |action| Ok(Command::Act(action));
    match verb.as_str() {
        "join" => {
            if rest.is_empty() {
                return Err(usage("join NAME"));
            }
            act(Action::Join {
                name: rest.to_owned(),
            })
        }
        "withdraw" => act(Action::Withdraw),
        "add" if rest.to_ascii_lowercase().contains(" as ") => {
            let form = "add ADDRESS as NAME";
            let at = rest.to_ascii_lowercase().find(" as ").unwrap_or(0);
            let (address, name) = (rest[..at].trim(), rest[at + 4..].trim());
            if address.is_empty() || name.is_empty() {
                return Err(usage(form));
            }
            act(Action::Add {
                address: address.trim_matches(['<', '>']).to_owned(),
                name: name.to_owned(),
            })
        }
        "end" if rest.is_empty() || rest.eq_ignore_ascii_case("the game") => act(Action::EndGame),
        "propose" => {
            let (name, change) = match rest.split_once(':') {
                Some((name, change)) => (name.trim(), change.trim()),
                None => (rest, ""),
            };
            if name.is_empty() {
                return Err(usage(PROPOSE));
            }
            let changes = if change.is_empty() {
                Vec::new()
            } else {
                vec![parse_change(change)?]
            };
            act(Action::Propose {
                name: name.to_owned(),
                changes,
            })
        }
        "vote" => {
            let form = "vote NUMBER on PROPOSAL (a rational number from -1 to 1: 2/3, -0.25)";
            let (vote, proposal) = rest.split_once(" on ").ok_or_else(|| usage(form))?;
            if vote.trim().is_empty() || proposal.trim().is_empty() {
                return Err(usage(form));
            }
            act(Action::Vote {
                proposal: proposal.trim().to_owned(),
                vote: vote.trim().to_owned(),
            })
        }
        "refresh" | "destroy" => {
            if rest.is_empty() {
                return Err(usage(&format!("{verb} PROPOSAL")));
            }
            let proposal = rest.to_owned();
            act(if verb == "refresh" {
                Action::Refresh { proposal }
            } else {
                Action::Destroy { proposal }
            })
        }
        "give" if rest.to_ascii_lowercase().starts_with("vertex") => {
            let form = "give vertex (X, Y) to PLAYER (or to god)";
            let (vertex, to) = rest["vertex".len()..]
                .rsplit_once(" to ")
                .ok_or_else(|| usage(form))?;
            let to = to.trim();
            if vertex.trim().is_empty() || to.is_empty() {
                return Err(usage(form));
            }
            act(Action::GiveVertex {
                vertex: vertex.trim().to_owned(),
                to: (!to.eq_ignore_ascii_case("god")).then(|| to.to_owned()),
            })
        }
        "buy" => act(Action::Buy),
        "move" => {
            let form = "move to (X, Y)";
            let to = rest.strip_prefix("to ").unwrap_or(rest).trim();
            if to.is_empty() {
                return Err(usage(form));
            }
            act(Action::Move { to: to.to_owned() })
        }
        "cancel" if rest.eq_ignore_ascii_case("move") => act(Action::CancelMove),
        "mirror" | "flip"
            if matches!(
                rest.to_ascii_lowercase().as_str(),
                "" | "mirror" | "mirror-state"
            ) =>
        {
            act(Action::Mirror)
        }
        "cancel" if rest.eq_ignore_ascii_case("space change") => act(Action::CancelSpaceChange),
        "remove" | "add" => {
            let form = "remove edge to (Y) / add edge (Y) (Z) / add vertex (A) joined to (Y) (Z)";
            let what = rest.to_ascii_lowercase();
            let at = all_coords(rest);
            let change = match (verb.as_str(), at.as_slice()) {
                ("remove", [y]) if what.starts_with("edge") => SpaceChange::RemoveEdge { y: *y },
                ("add", [y, z]) if what.starts_with("edge") => {
                    SpaceChange::AddEdge { y: *y, z: *z }
                }
                ("add", [a, y, z]) if what.starts_with("vertex") => SpaceChange::AddVertex {
                    a: *a,
                    y: *y,
                    z: *z,
                },
                _ => return Err(usage(form)),
            };
            act(Action::ChangeSpace { change })
        }
        "give" | "transfer" => {
            let form = "give AMOUNT to PLAYER (or to nowhere)";
            let (amount, to) = rest.rsplit_once(" to ").ok_or_else(|| usage(form))?;
            let to = to.trim();
            if amount.trim().is_empty() || to.is_empty() {
                return Err(usage(form));
            }
            act(Action::Give {
                amount: amount.trim().to_owned(),
                to: (!to.eq_ignore_ascii_case("nowhere")).then(|| to.to_owned()),
            })
        }
        "nod" => act(Action::Nod),
        "increment" => {
            if rest.trim().is_empty() {
                return Err(usage("increment PLAYER"));
            }
            act(Action::Increment {
                player: rest.trim().to_owned(),
            })
        }
        "pause" => act(Action::Pause),
        "accuse" => {
            let form = "accuse PLAYER [of inactivity]";
            let lower = rest.to_ascii_lowercase();
            let player = match lower.strip_suffix(" of inactivity") {
                Some(kept) => &rest[..kept.len()],
                None => rest,
            };
            if player.trim().is_empty() {
                return Err(usage(form));
            }
            act(Action::Accuse {
                player: player.trim().to_owned(),
            })
        }
        "rules" | "ruleset" => Ok(Command::Rules),
        "status" => Ok(Command::Status),
        _ => Err(NotUnderstood(Sentence::new(UNKNOWN_COMMAND))),
    }
}

/// Whether a line is one of a proposal's changes.
pub fn is_change(line: &str) -> bool {
    let (verb, _) = split_verb(line);
    let verb = verb.trim_end_matches(':');
    matches!(verb, "create" | "modify" | "repeal")
}

/// `create [NAME] colour COLOUR because REASON: TEXT`, `modify RULE: TEXT`,
/// `repeal RULE`.
pub fn parse_change(text: &str) -> Result<Change, NotUnderstood> {
    let text = text.trim();
    // The verb ends at a space or at the colon of a rule without a name.
    let end = text
        .find(|c: char| c.is_whitespace() || c == ':')
        .unwrap_or(text.len());
    let (verb, rest) = (text[..end].to_lowercase(), text[end..].trim());
    match verb.as_str() {
        "create" => {
            let (head, body) = rest.split_once(':').unwrap_or((rest, ""));
            let lower = head.to_ascii_lowercase();
            let colour_at = lower.find("colour ").or_else(|| lower.find("color "));
            let because_at = lower.find(" because ");
            let name = head[..colour_at.or(because_at).unwrap_or(head.len())].trim();
            let colour = colour_at.map_or("", |at| {
                let start = head[at..].find(' ').map_or(head.len(), |s| at + s + 1);
                head[start..because_at.unwrap_or(head.len()).max(start)].trim()
            });
            let reason = because_at.map_or("", |at| head[at + " because ".len()..].trim());
            if body.trim().is_empty() {
                return Err(usage(PROPOSE));
            }
            Ok(Change::Create {
                name: (!name.is_empty()).then(|| name.trim_matches('"').to_owned()),
                colour: colour.to_owned(),
                reason: reason.to_owned(),
                text: body.trim().to_owned(),
            })
        }
        "modify" => {
            let (rule, body) = rest.split_once(':').ok_or_else(|| usage(PROPOSE))?;
            if rule.trim().is_empty() || body.trim().is_empty() {
                return Err(usage(PROPOSE));
            }
            Ok(Change::Modify {
                rule: rule.trim().to_owned(),
                text: body.trim().to_owned(),
            })
        }
        "repeal" if !rest.is_empty() => Ok(Change::Repeal {
            rule: rest.to_owned(),
        }),
        _ => Err(usage(PROPOSE)),
    }
}

/// One command per line, but the change lines after a `propose` belong to it.
pub fn parse_message(lines: &[String]) -> Vec<(String, Result<Command, NotUnderstood>)> {
    let mut out: Vec<(String, Result<Command, NotUnderstood>)> = Vec::new();
    let mut proposing = false;
    for line in lines {
        if proposing && is_change(line) {
            let Some((text, read)) = out.last_mut() else {
                continue;
            };
            text.push('\n');
            text.push_str(line);
            match parse_change(line) {
                Ok(change) => {
                    if let Ok(Command::Act(Action::Propose { changes, .. })) = read {
                        changes.push(change);
                    }
                }
                Err(why) => {
                    *read = Err(why);
                    proposing = false;
                }
            }
            continue;
        }
        let read = parse(line);
        proposing = matches!(read, Ok(Command::Act(Action::Propose { .. })));
        out.push((line.clone(), read));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_created_rule_reads_its_name_colour_reason_and_text() {
        let change =
            parse_change("create Bridges colour deep blue because water: Bridges exist.").unwrap();
        assert_eq!(
            change,
            Change::Create {
                name: Some("Bridges".into()),
                colour: "deep blue".into(),
                reason: "water".into(),
                text: "Bridges exist.".into(),
            }
        );
        let bare = parse_change("create: Bridges exist.").unwrap();
        assert!(
            matches!(bare, Change::Create { colour, reason, .. } if colour.is_empty() && reason.is_empty())
        );
    }

    #[test]
    fn the_change_lines_after_propose_belong_to_it() {
        let lines: Vec<String> = ["propose Bridges: repeal 3", "modify 4: New.", "status"]
            .iter()
            .map(|l| l.to_string())
            .collect();
        let read = parse_message(&lines);
        assert_eq!(read.len(), 2);
        let Ok(Command::Act(Action::Propose { changes, .. })) = &read[0].1 else {
            panic!("{:?}", read[0]);
        };
        assert_eq!(changes.len(), 2);
    }
}
