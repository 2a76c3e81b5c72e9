//! What the announcements of `[ghost]` carry: an instance's summary, its history as
//! sentences, the payments, and the mail a `Step` sends. Values only: the wording
//! is in templates/.

use serde_json::{Value, json};

use super::rules::Step;
use super::{Clock, Event, Instance, Payment, Record, Removal, Resolution, Stage, Why, tag};
use crate::engine::players::Registry;
use crate::engine::{Audience, Mail, Sentence, Timestamp, human_time};

fn remaining_json(seconds: i64) -> Value {
    let minutes = seconds.max(0) / 60;
    json!({
        "days": minutes / (24 * 60),
        "hours": minutes / 60 % 24,
        "minutes": minutes % 60,
    })
}

impl Step<'_, '_> {
    /// The records this step added to instance `n`'s history.
    fn records(&self, n: u32) -> &[Record] {
        let Some(inst) = self.inst(n) else {
            return &[];
        };
        let from = self
            .touched
            .iter()
            .find(|(t, _)| *t == n)
            .map_or(inst.history.len(), |(_, before)| *before);
        inst.history.get(from..).unwrap_or(&[])
    }

    /// What this step did to instance `n`, as history sentences, without the turn
    /// changes, start and end (the announcement shows those on their own).
    pub(super) fn happened(&self, n: u32) -> Vec<Sentence> {
        let Some(inst) = self.inst(n) else {
            return Vec::new();
        };
        self.records(n)
            .iter()
            .filter(|record| {
                !matches!(
                    record.event,
                    Event::TurnBegan { .. } | Event::Started { .. } | Event::Finished { .. }
                )
            })
            .map(|record| history_sentence(inst, record, self.players()))
            .collect()
    }

    /// The override this step carried out on instance `n`, if any: officer, reason.
    fn override_of(&self, n: u32) -> Option<(String, String)> {
        self.records(n)
            .iter()
            .find_map(|record| match &record.event {
                Event::WordSet {
                    officer, reason, ..
                }
                | Event::Ordered {
                    officer, reason, ..
                }
                | Event::TurnSet {
                    officer, reason, ..
                }
                | Event::ClockSet {
                    officer, reason, ..
                }
                | Event::Removed {
                    why: Why::Override { officer, reason },
                    ..
                }
                | Event::ProtestResolved {
                    how: Resolution::Override { officer, reason },
                    ..
                } => Some((officer.clone(), reason.clone())),
                _ => None,
            })
    }

    pub(super) fn summary(&self, n: u32) -> Value {
        self.inst(n)
            .map_or(Value::Null, |inst| summary(inst, self.players(), self.at()))
    }

    /// Ends the step: one announcement on the list per instance touched (then the
    /// seed of its random period, if it ended).
    pub(super) fn finish(mut self) {
        let mut mail = Vec::new();
        for (n, _) in &self.touched {
            if self.quiet.contains(n) {
                continue;
            }
            // An override is announced as one, with the officer and the reason.
            let officer = self.override_of(*n);
            mail.push(Mail::new(
                Audience::List,
                &tag(*n),
                "ghost_news",
                json!({
                    "number": n,
                    "at": human_time(self.at()),
                    "happened": self.happened(*n),
                    "officer": officer.as_ref().map(|(o, _)| o.clone()),
                    "reason": officer.as_ref().map(|(_, r)| r.clone()),
                    "game": self.summary(*n),
                    // The referee's report at the end carries the whole record.
                    "history": self.inst(*n).filter(|i| i.is_over()).map(|inst| {
                        inst.history
                            .iter()
                            .map(|record| history_sentence(inst, record, self.players()))
                            .collect::<Vec<_>>()
                    }),
                }),
            ));
            mail.extend(
                self.reveals
                    .iter()
                    .filter(|(i, _)| i == n)
                    .map(|(_, m)| m.clone()),
            );
        }
        for one in mail {
            self.mail(one);
        }
    }
}

fn payment_json(payment: &Payment, role: &str) -> Value {
    json!({
        "role": role,
        "to": payment.to,
        "amount": payment.amount,
        "currency": payment.currency,
        "paid": payment.unpaid.is_none(),
        "unpaid": payment.unpaid,
    })
}

/// The state of an instance as the announcements, `status` and the end report show
/// it. Every key is always there (null when it does not apply).
/// An instance as the announcements show it: who plays in which order, whose
/// turn it is until when, the ghost word, a protest, the rewards.
pub fn summary(inst: &Instance, players: &Registry, now: Timestamp) -> Value {
    let name = |seat: u32| inst.name(seat, players);
    let seats: Vec<Value> = inst
        .seats
        .iter()
        .map(|seat| {
            json!({
                "number": seat.number,
                "name": name(seat.number),
                "in_game": seat.removed.is_none(),
                "removed": seat.removed.as_ref().map(|r| r.why.code()),
                "removed_at": seat.removed.as_ref().map(|r| human_time(r.at)),
                "added": seat.addition_protest_until.is_some(),
                "joined": human_time(seat.joined_at),
            })
        })
        .collect();
    let turn = match &inst.stage {
        Stage::Turn {
            seat,
            began_at,
            clock,
            ..
        } => json!({
            "number": seat,
            "name": name(*seat),
            "began": human_time(*began_at),
            "deadline": clock.deadline().map(human_time),
            "remaining": remaining_json(clock.remaining_seconds(now)),
        }),
        _ => Value::Null,
    };
    let protest = match &inst.stage {
        Stage::Protest { protest } => json!({
            "by": name(protest.by),
            "against": protest.against.map(name),
            "grounds": protest.grounds.code(),
            "word": protest.word,
            "made": human_time(protest.made_at),
            "deadline": protest.clock.and_then(Clock::deadline).map(human_time),
            "remaining": protest.clock.map(|c| remaining_json(c.remaining_seconds(now))),
        }),
        _ => Value::Null,
    };
    let next = inst.turn().and_then(|seat| inst.next_after(seat)).map(name);
    json!({
        "number": inst.number,
        "duel": inst.duel,
        "referee": inst.referee.as_ref().map(|r| r.name.clone()),
        "started": human_time(inst.started_at),
        "began": inst.began,
        "players": seats,
        "order": inst.in_game().map(|s| name(s.number)).collect::<Vec<_>>(),
        "word": inst.ghost_word,
        "word_by": inst.word_by.map(name),
        "turn": turn,
        "next": next,
        "protest": protest,
        "suspended": inst.is_suspended(),
        "suspended_since": inst.suspended_since.map(human_time),
        "held": inst.is_held(),
        "held_since": inst.held_since.map(human_time),
        "stopped": inst.stopped,
        "additions_open": inst.additions_open() && !inst.clocks_stopped(),
        "over": inst.is_over(),
        "winner": inst.winner.map(name),
        "rewards": inst.rewards.as_ref().map(|r| json!({
            "began": r.began,
            "referee": payment_json(&r.referee, "referee"),
            "winner": payment_json(&r.winner, "winner"),
        })),
    })
}

/// One history line as a sentence (`ghost_h_*`): the wording is in
/// templates/sentences/ghost.txt. Every code always has all its args.
pub(super) fn history_sentence(inst: &Instance, record: &Record, players: &Registry) -> Sentence {
    let name = |seat: u32| inst.name(seat, players);
    let at = human_time(record.at);
    match &record.event {
        Event::Started {
            duel,
            referee,
            seats,
            ordered,
            ..
        } => Sentence::new("ghost_h_started")
            .arg("at", at)
            .arg("duel", duel)
            .arg("referee", &referee.name)
            .arg("ordered_by", ordered.as_ref().map(|o| o.officer.clone()))
            .arg("reason", ordered.as_ref().map(|o| o.reason.clone()))
            .arg(
                "players",
                seats
                    .iter()
                    .map(|s| json!({"number": s.number, "name": name(s.number)}))
                    .collect::<Vec<_>>(),
            ),
        Event::TurnBegan {
            seat, word, clock, ..
        } => Sentence::new("ghost_h_turn")
            .arg("at", at)
            .arg("name", name(*seat))
            .arg("number", seat)
            .arg("word", word)
            .arg("deadline", clock.deadline().map(human_time)),
        Event::Played {
            seat,
            word,
            previous,
            ..
        } => Sentence::new("ghost_h_played")
            .arg("at", at)
            .arg("name", name(*seat))
            .arg("word", word)
            .arg("previous", previous),
        Event::Protested { protest, .. } => Sentence::new("ghost_h_protested")
            .arg("at", at)
            .arg("name", name(protest.by))
            .arg("against", protest.against.map(name))
            .arg("grounds", protest.grounds.code())
            .arg("word", &protest.word)
            .arg(
                "deadline",
                protest.clock.and_then(Clock::deadline).map(human_time),
            ),
        Event::ProtestResolved {
            protest,
            valid,
            how,
            ..
        } => {
            let (how_code, found, answer, in_dictionary, officer, reason) = match how {
                Resolution::Dictionary { found } => {
                    ("dictionary", Some(*found), None, None, None, None)
                }
                Resolution::Answer {
                    word,
                    in_dictionary,
                } => (
                    "answer",
                    None,
                    Some(word.clone()),
                    Some(*in_dictionary),
                    None,
                    None,
                ),
                Resolution::NoAnswer => ("no_answer", None, None, None, None, None),
                Resolution::Left => ("left", None, None, None, None, None),
                Resolution::Override { officer, reason } => (
                    "override",
                    None,
                    None,
                    None,
                    Some(officer.clone()),
                    Some(reason.clone()),
                ),
            };
            Sentence::new("ghost_h_resolved")
                .arg("at", at)
                .arg("valid", valid)
                .arg("grounds", protest.grounds.code())
                .arg("word", &protest.word)
                .arg("protester", name(protest.by))
                .arg("against", protest.against.map(name))
                .arg("how", how_code)
                .arg("found", found)
                .arg("answer", answer)
                .arg("in_dictionary", in_dictionary)
                .arg("officer", officer)
                .arg("reason", reason)
        }
        Event::Removed {
            seat, why, in_turn, ..
        } => {
            let (by, officer, reason) = match why {
                Why::AdditionProtested { by } => (Some(name(*by)), None, None),
                Why::Override { officer, reason } => {
                    (None, Some(officer.clone()), Some(reason.clone()))
                }
                _ => (None, None, None),
            };
            Sentence::new("ghost_h_removed")
                .arg("at", at)
                .arg("name", name(*seat))
                .arg("why", why.code())
                .arg("in_turn", in_turn)
                .arg("by", by)
                .arg("officer", officer)
                .arg("reason", reason)
        }
        Event::WordDestroyed { word, .. } => Sentence::new("ghost_h_destroyed")
            .arg("at", at)
            .arg("word", word),
        Event::WordSet {
            word,
            previous,
            officer,
            reason,
            by,
            ..
        } => Sentence::new("ghost_h_word_set")
            .arg("at", at)
            .arg("word", word)
            .arg("previous", previous)
            .arg("officer", officer)
            .arg("reason", reason)
            .arg("by", by.map(name)),
        Event::Ordered {
            seats,
            officer,
            reason,
            ..
        } => Sentence::new("ghost_h_ordered")
            .arg("at", at)
            .arg("officer", officer)
            .arg("reason", reason)
            .arg(
                "seats",
                seats
                    .iter()
                    .map(|s| {
                        json!({
                            "name": s.name,
                            "from": s.from,
                            "to": s.to,
                            "restored": s.restored,
                        })
                    })
                    .collect::<Vec<_>>(),
            ),
        Event::TurnSet {
            seat,
            officer,
            reason,
            ..
        } => Sentence::new("ghost_h_turn_set")
            .arg("at", at)
            .arg("name", name(*seat))
            .arg("officer", officer)
            .arg("reason", reason),
        Event::ClockSet {
            deadline,
            previous,
            officer,
            reason,
            ..
        } => Sentence::new("ghost_h_clock_set")
            .arg("at", at)
            .arg("deadline", human_time(*deadline))
            .arg("previous", previous.map(human_time))
            .arg("officer", officer)
            .arg("reason", reason),
        Event::Added {
            seat,
            protest_until,
            ..
        } => Sentence::new("ghost_h_added")
            .arg("at", at)
            .arg("name", name(seat.number))
            .arg("number", seat.number)
            .arg("until", human_time(*protest_until)),
        Event::Suspended { why, referee, .. } => Sentence::new("ghost_h_suspended")
            .arg("at", at)
            .arg("why", why.code())
            .arg("referee", &referee.name),
        Event::Resumed { referee, .. } => Sentence::new("ghost_h_resumed")
            .arg("at", at)
            .arg("referee", &referee.name),
        Event::Held {
            rule, difference, ..
        } => Sentence::new("ghost_h_held")
            .arg("at", at)
            .arg("rule", rule)
            .arg("difference", difference),
        Event::Released { rule, .. } => Sentence::new("ghost_h_released")
            .arg("at", at)
            .arg("rule", rule),
        Event::RuleStopped { rule, why, .. } => Sentence::new("ghost_h_rule_stopped")
            .arg("at", at)
            .arg("rule", rule)
            .arg("why", why),
        Event::Finished {
            winner, rewards, ..
        } => Sentence::new("ghost_h_won")
            .arg("at", at)
            .arg("winner", winner.map(name))
            .arg(
                "referee_paid",
                rewards
                    .as_ref()
                    .map(|r| payment_json(&r.referee, "referee")),
            )
            .arg(
                "winner_paid",
                rewards.as_ref().map(|r| payment_json(&r.winner, "winner")),
            ),
    }
}

/// Why a player is no longer in the instance, for their own late move: when,
/// why, and who, as the history tells it.
pub(super) fn removal_sentence(inst: &Instance, removal: &Removal, players: &Registry) -> Sentence {
    let (by, officer, reason) = match &removal.why {
        Why::AdditionProtested { by } => (Some(inst.name(*by, players)), None, None),
        Why::Override { officer, reason } => (None, Some(officer.clone()), Some(reason.clone())),
        _ => (None, None, None),
    };
    Sentence::new("ghost_removed_player")
        .arg("number", inst.number)
        .arg("at", human_time(removal.at))
        .arg("why", removal.why.code())
        .arg("in_turn", removal.in_turn)
        .arg("by", by)
        .arg("officer", officer)
        .arg("reason", reason)
}
