//! Issue 22: rule 1211 changes, and the hearings follow. When the rule leaves
//! effect the hearings end: an open hearing closes without a result and no
//! one loses points by it; nothing more is posted, called or answered. When it
//! is changed otherwise than in §8's numbers it is held: nothing is posted,
//! called, answered or closed, and every period still running stands still
//! until a moderator rules (`[ruleset] binding 1211 ...`), then runs again
//! with the time it had left. An amended number applies from then on
//! (`bound`). docs/rulings.md.

use serde_json::json;

use super::bound::{Bound, Now};
use super::{Bogusity, Event, TAG, deadline_id};
use crate::engine::calendar::{self, Deadline};
use crate::engine::game::{SharedEvent, Tx};
use crate::engine::{Audience, Mail, Refusal, Sentence, human_time};

type BogusityTx<'a> = Tx<'a, Bogusity>;

/// Refuses a command that applies §8 while rule 1211 is held or has left
/// effect, with a sentence saying which.
pub(super) fn in_effect(tx: &BogusityTx<'_>) -> Result<(), Refusal> {
    let rule = tx.params().rule;
    if let Some(why) = &tx.state().ended {
        return Err(Sentence::new("bogusity_rule_ended")
            .arg("rule", rule)
            .arg("why", why)
            .into());
    }
    if tx.state().held_since.is_some() {
        return Err(Sentence::new("bogusity_rule_held").arg("rule", rule).into());
    }
    Ok(())
}

/// What the bot follows of rule 1211 changed (see the module's doc).
pub(super) fn rule_changed(tx: &mut BogusityTx<'_>) {
    let rule = tx.params().rule;
    match Bound::of(&tx.view(), tx.params()).now() {
        Now::Stopped(why) => {
            if tx.state().ended.is_none() {
                end(tx, rule, &why);
            }
        }
        Now::Held(difference) => {
            if tx.state().ended.is_none() && tx.state().held_since.is_none() {
                tx.record(Event::Held {
                    rule,
                    difference: difference.clone(),
                });
                announce(tx, "held", rule, Some(&difference), json!([]));
            }
        }
        Now::Follows => {
            if tx.state().ended.is_some() {
                tx.record(Event::Restarted);
                announce(tx, "restarted", rule, None, json!([]));
            } else if tx.state().held_since.is_some() {
                resume(tx, rule);
            }
        }
    }
}

/// The open hearings close without a result, their deadlines cancelled.
fn end(tx: &mut BogusityTx<'_>, rule: u32, why: &str) {
    let open: Vec<u32> = tx.state().open_hearings().map(|d| d.number).collect();
    for number in &open {
        let id = deadline_id(*number);
        if tx.view().schedule.get(&id).is_some() {
            tx.record_shared(SharedEvent::Schedule(calendar::Event::Cancelled { id }));
        }
    }
    tx.record(Event::Ended {
        rule,
        why: why.to_owned(),
    });
    announce(tx, "ended", rule, Some(why), json!(open));
}

/// The ruling came: each open hearing's deadline is set again with the time
/// it had left when the hold began (a call's three days are moved in the
/// state); what other games handed over during the hold fires now.
fn resume(tx: &mut BogusityTx<'_>, rule: u32) {
    let deferred = tx.state().deferred.clone();
    let Some(since) = tx.state().held_since else {
        return;
    };
    tx.record(Event::Resumed);
    let mut moved = Vec::new();
    let open: Vec<(u32, crate::engine::Timestamp)> = tx
        .state()
        .open_hearings()
        .filter_map(|d| Some((d.number, d.hearing.as_ref()?.closes_at)))
        .collect();
    for (number, closes_at) in open {
        // A hearing whose deadline passed before the hold was closed then.
        if closes_at <= since {
            continue;
        }
        tx.record_shared(SharedEvent::Schedule(calendar::Event::Scheduled {
            deadline: Deadline {
                id: deadline_id(number),
                at: closes_at,
                owner: TAG.to_owned(),
                who: None,
                what: format!("the result of the Bogusity Hearing on description {number}"),
                remind: false,
            },
        }));
        moved.push(json!({"number": number, "closes_at": human_time(closes_at)}));
    }
    for deadline in deferred {
        tx.record_shared(SharedEvent::Schedule(calendar::Event::Scheduled {
            deadline: Deadline {
                at: tx.at(),
                ..deadline
            },
        }));
    }
    announce(tx, "resumed", rule, None, json!(moved));
}

fn announce(
    tx: &mut BogusityTx<'_>,
    what: &str,
    rule: u32,
    why: Option<&str>,
    hearings: serde_json::Value,
) {
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "bogusity_rule_changed",
        json!({
            "what": what, "rule": rule, "why": why, "hearings": hearings,
            "at": human_time(tx.at()),
        }),
    ));
}
