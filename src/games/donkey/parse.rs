//! Reading `[donkey]` command lines: syntax only; who may do what, and when, is
//! for `rules` to say.

use super::{Action, Command};
use crate::engine::{NotUnderstood, Sentence, split_reason, split_verb};

const COMMANDS: &str = "cover, grab NAME, admire, resign, rock, scissors, paper, claim wrangler, call N days, decline, transfer wrangler to NAME, accept wrangler, status, history, help (moderators: close round because REASON, title wrangler|belt-holder NAME|nobody because REASON, amendment used because REASON)";

fn usage(text: &str) -> NotUnderstood {
    NotUnderstood(Sentence::new("usage").arg("usage", text))
}

/// A round action as written (also the sealed text read back).
pub fn action(line: &str) -> Option<Action> {
    let (verb, rest) = split_verb(line);
    let rest = rest.trim();
    match (verb.as_str(), rest.is_empty()) {
        ("cover", true) => Some(Action::Cover),
        ("admire", true) => Some(Action::Admire),
        ("resign", true) => Some(Action::Resign),
        ("rock", true) => Some(Action::Rock),
        ("scissors", true) => Some(Action::Scissors),
        ("paper", true) => Some(Action::Paper),
        ("grab", false) => Some(Action::Grab(rest.to_owned())),
        _ => None,
    }
}

pub fn parse(line: &str) -> Result<Command, NotUnderstood> {
    if let Some(action) = action(line) {
        return Ok(Command::Act(action));
    }
    let (verb, rest) = split_verb(line);
    let rest = rest.trim();
    let lower = rest.to_lowercase();
    match verb.as_str() {
        "grab" => Err(usage("grab NAME")),
        "claim" if lower.starts_with("wrangler") => Ok(Command::Claim),
        "claim" => Err(usage("claim wrangler")),
        "call" => {
            let days = lower
                .split_whitespace()
                .next()
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| usage("call N days"))?;
            Ok(Command::Call { days })
        }
        "decline" if rest.is_empty() => Ok(Command::Decline),
        "transfer" => {
            let name = lower
                .strip_prefix("wrangler to ")
                .map(|_| rest["wrangler to ".len()..].trim().to_owned())
                .filter(|n| !n.is_empty())
                .ok_or_else(|| usage("transfer wrangler to NAME"))?;
            Ok(Command::Transfer { name })
        }
        "accept" if lower == "wrangler" || lower.is_empty() => Ok(Command::Accept),
        "status" if rest.is_empty() => Ok(Command::Status),
        "close" if lower.starts_with("round") => {
            let (_, reason) = split_reason(rest, "close round because REASON")?;
            Ok(Command::Close { reason })
        }
        "title" => {
            let form = "title wrangler|belt-holder NAME|nobody because REASON";
            let (head, reason) = split_reason(rest, form)?;
            let (title, name) = head.split_once(' ').ok_or_else(|| usage(form))?;
            let title = match title.to_lowercase().as_str() {
                "wrangler" => super::WRANGLER,
                "belt-holder" | "beltholder" => super::BELT_HOLDER,
                _ => return Err(usage(form)),
            };
            let name = name.trim();
            Ok(Command::SetTitle {
                title: title.to_owned(),
                name: (!name.eq_ignore_ascii_case("nobody")).then(|| name.to_owned()),
                reason,
            })
        }
        "amendment" if lower.starts_with("used") => {
            let (_, reason) = split_reason(rest, "amendment used because REASON")?;
            Ok(Command::AmendmentUsed { reason })
        }
        _ => Err(NotUnderstood(
            Sentence::new("unknown_command")
                .arg("tag", super::TAG)
                .arg("commands", COMMANDS),
        )),
    }
}
