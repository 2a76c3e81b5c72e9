//! Offices appointed and dismissed by mail. bot.toml seeds the officers; from
//! then on a moderator's `appoint` and `dismiss` change them, as events in the
//! log like every other change: a `void` of the message undoes one, a replay gives
//! the same officers, and the list is told each time with the reason.
//!
//! The moderators themselves are named in bot.toml only. They are the root of
//! trust: a moderator's mailbox taken over could otherwise name accomplices, or
//! dismiss every other moderator so that nobody can undo it by mail.

use serde::{Deserialize, Serialize};

use super::game::Officers;
use super::{
    Address, Audience, Ctx, Done, Mail, NotUnderstood, Refusal, Sentence, human_time,
    players::{self, Registry},
    split_reason,
};

/// The office of the officers who keep the rules (`[officers] rules`).
pub const KEEPER: &str = "Keeper of the rules";

/// The changes made by mail, office by office (its name as first appointed or
/// dismissed, compared without regard to case), in order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Offices {
    changes: Vec<(String, Vec<Change>)>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Change {
    address: Address,
    holds: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Appointed {
        office: String,
        address: Address,
        officer: Address,
        reason: String,
    },
    Dismissed {
        office: String,
        address: Address,
        officer: Address,
        reason: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Appoint {
        office: String,
        who: String,
        reason: String,
    },
    Dismiss {
        office: String,
        who: String,
        reason: String,
    },
}

/// `appoint OFFICE ADDRESS because REASON`, `dismiss OFFICE ADDRESS because
/// REASON`: the office may be several words ("Rule Tag Moderator"), the holder
/// is the last word before `because` (an address, or a player's one-word name).
pub fn parse(verb: &str, rest: &str) -> Option<Result<Command, NotUnderstood>> {
    let usage = || {
        NotUnderstood(
            Sentence::new("usage").arg("usage", format!("{verb} OFFICE ADDRESS because REASON")),
        )
    };
    if verb != "appoint" && verb != "dismiss" {
        return None;
    }
    let form = format!("{verb} OFFICE ADDRESS because REASON");
    let (what, reason) = match split_reason(rest, &form) {
        Ok(split) => split,
        Err(refused) => return Some(Err(refused)),
    };
    let parsed = (|| {
        let (office, who) = what.trim().rsplit_once(char::is_whitespace)?;
        let office = office.split_whitespace().collect::<Vec<_>>().join(" ");
        if office.is_empty() {
            return None;
        }
        let who = who.trim().to_owned();
        Some(if verb == "appoint" {
            Command::Appoint {
                office,
                who,
                reason,
            }
        } else {
            Command::Dismiss {
                office,
                who,
                reason,
            }
        })
    })();
    Some(parsed.ok_or_else(usage))
}

impl Offices {
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    pub fn apply_event(&mut self, event: &Event) {
        let (office, address, holds) = match event {
            Event::Appointed {
                office, address, ..
            } => (office, address, true),
            Event::Dismissed {
                office, address, ..
            } => (office, address, false),
        };
        let change = Change {
            address: address.clone(),
            holds,
        };
        match self
            .changes
            .iter_mut()
            .find(|(name, _)| name.eq_ignore_ascii_case(office))
        {
            Some((_, changes)) => changes.push(change),
            None => self.changes.push((office.clone(), vec![change])),
        }
    }

    /// A moderator's `appoint` or `dismiss`, checked against the officers in force.
    pub fn apply(
        &self,
        command: Command,
        ctx: &Ctx,
        officers: &Officers,
        players: &Registry,
    ) -> Result<Done<Event>, Refusal> {
        // The officers as this message's earlier lines left them.
        let officers = &self.applied_to(officers);
        if !officers.is_moderator(&ctx.sender) {
            return Err(Refusal(Sentence::new("moderators_only")));
        }
        let (appoint, office, who, reason) = match command {
            Command::Appoint {
                office,
                who,
                reason,
            } => (true, office, who, reason),
            Command::Dismiss {
                office,
                who,
                reason,
            } => (false, office, who, reason),
        };
        if office.eq_ignore_ascii_case("moderator") || office.eq_ignore_ascii_case("moderators") {
            return Err(Refusal(Sentence::new("office_moderator")));
        }
        let names = officers.office_names();
        let Some(office) = names.iter().find(|n| n.eq_ignore_ascii_case(&office)) else {
            return Err(Refusal(
                Sentence::new("office_unknown")
                    .arg("office", office)
                    .arg("offices", names.join(", ")),
            ));
        };
        let address = holder_address(&who, players)?;
        // Who holds the office by appointment, as `applied_to` starts from; a
        // game's default holder counts as holding it only for a dismissal.
        let mut holders = officers.configured(office);
        let holds = if appoint {
            holders.contains(&address)
        } else {
            officers.holders_of(office).contains(&address)
        };
        if appoint == holds {
            return Err(Refusal(
                Sentence::new(if appoint {
                    "office_already_held"
                } else {
                    "office_not_held"
                })
                .arg("office", office)
                .arg("address", &address),
            ));
        }
        let event = if appoint {
            Event::Appointed {
                office: office.clone(),
                address: address.clone(),
                officer: ctx.sender.clone(),
                reason: reason.clone(),
            }
        } else {
            Event::Dismissed {
                office: office.clone(),
                address: address.clone(),
                officer: ctx.sender.clone(),
                reason: reason.clone(),
            }
        };
        holders.retain(|a| *a != address);
        if appoint {
            holders.push(address.clone());
        }
        let values = serde_json::json!({
            "officer": ctx.signature(), "office": office, "address": address,
            "name": players.active_by_address(&address).map(|p| p.name.clone()),
            "appointed": appoint, "reason": reason, "at": human_time(ctx.now),
            "holders": holders,
        });
        Ok(Done {
            events: vec![event],
            mail: vec![Mail::new(
                Audience::List,
                players::TAG,
                "office_changed",
                values,
            )],
            sentence: Sentence::new(if appoint {
                "office_appointed"
            } else {
                "office_dismissed"
            })
            .arg("office", office)
            .arg("address", &address),
        })
    }

    /// The officers in force: those of bot.toml with every change made by mail.
    /// An address whose offices are withdrawn for this step (unauthenticated
    /// mail) is appointed to nothing.
    pub fn applied_to(&self, seed: &Officers) -> Officers {
        let mut officers = seed.clone();
        for (office, changes) in &self.changes {
            let mut holders = seed.configured(office);
            for change in changes {
                holders.retain(|a| *a != change.address);
                if change.holds && !seed.is_withdrawn(&change.address) {
                    holders.push(change.address.clone());
                }
            }
            officers.set_holders(office, holders);
        }
        officers
    }
}

/// The holder named in a command: an address, or an active player's name.
fn holder_address(who: &str, players: &Registry) -> Result<Address, Refusal> {
    let who = who.trim_start_matches('<').trim_end_matches('>');
    if who.contains('@') {
        let address = Address::new(who);
        if !address.looks_valid() {
            return Err(Refusal(Sentence::new("bad_address").arg("address", who)));
        }
        return Ok(address);
    }
    players
        .by_name(who)
        .map(|p| p.address.clone())
        .ok_or_else(|| Refusal(Sentence::new("no_such_player").arg("name", who)))
}
