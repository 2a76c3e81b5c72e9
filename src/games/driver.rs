//! The one driver of time: every deadline due before a message fires before it,
//! one phase per step, and each fired deadline goes to the game that owns it.
//! The pipeline, the samples and the tests all go through `next` and `tick`, so
//! that "the same messages give the same game" holds the same way everywhere.

use crate::engine::Timestamp;
use crate::engine::calendar::Deadline;
use crate::engine::game::{Game, Tick, Tx};

use super::{Event, Outcome, Params, Registered, Visit, World, base_tag, each_game, shared_event};
use crate::engine::game::SharedEvent;

/// What comes next when the world is brought up to a message or to `now`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// A deadline is due first: fire `World::tick(at)` and ask again.
    Deadline(Timestamp),
    /// Nothing is due before the pending message: apply it.
    Message,
    /// Nothing is due by `now` and no message is pending.
    Idle,
}

/// The next step: a deadline due no later than the pending message's arrival (or
/// `now` when none is pending) fires first. `skip`: an instant already found to
/// fire nothing, not to be offered again.
pub fn next(
    world: &World,
    params: &Params,
    pending: Option<Timestamp>,
    now: Timestamp,
    skip: Option<Timestamp>,
) -> Next {
    let horizon = pending.unwrap_or(now);
    match world.next_deadline(params).filter(|at| Some(*at) != skip) {
        Some(at) if at <= horizon => Next::Deadline(at),
        _ if pending.is_some() => Next::Message,
        _ => Next::Idle,
    }
}

impl World {
    /// The earliest moment the world must change without any mail.
    pub fn next_deadline(&self, params: &Params) -> Option<Timestamp> {
        let lead = params.setting.calendar.reminder_lead();
        struct Own<'a>(&'a World, Option<Timestamp>);
        impl Visit for Own<'_> {
            fn visit<G: Registered>(&mut self) {
                let at = G::next_deadline(&G::take_state(self.0));
                self.1 = [self.1, at].into_iter().flatten().min();
            }
        }
        let mut own = Own(self, None);
        each_game(&mut own);
        [
            self.players.next_deadline(),
            self.sealed.next_deadline(),
            self.schedule.next_due(lead),
            own.1,
            super::reports::next_unscheduled(self, params),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// The first batch of things due at `now`, one phase at a time, so that each
    /// phase is its own step in the record: the registry's expiries; then sealed
    /// actions' commitments (published before anything is resolved); then the
    /// schedule's reminders and deadlines, each fired deadline handed to its game;
    /// then the deadlines games keep themselves. Empty when nothing is due.
    /// `caught_up_at` is the real time of this run: after a downtime, reminders
    /// already overtaken by their deadline are not mailed.
    /// `entropy` is the secret of this instant (the same on every replay), for the
    /// random draws a deadline may need.
    pub fn tick(
        &self,
        now: Timestamp,
        params: &Params,
        caught_up_at: Timestamp,
        entropy: [u8; 32],
    ) -> Outcome {
        let in_force = params.with_offices(&self.shared.offices);
        let params = &*in_force;
        let phase = |phase, events: Vec<Event>, mail| Outcome {
            events,
            mail,
            phase,
            ..Outcome::default()
        };
        let (events, mail) = self.players.tick(now);
        if !events.is_empty() {
            return phase(
                "players",
                events.into_iter().map(Event::Players).collect(),
                mail,
            );
        }
        let (events, mail) = self.sealed.tick(now);
        if !events.is_empty() {
            return phase(
                "commitments",
                events.into_iter().map(Event::Sealed).collect(),
                mail,
            );
        }
        let tick = Tick {
            caught_up_at,
            entropy,
        };
        let (events, mail) = self.schedule.tick(
            now,
            params.setting.calendar.reminder_lead(),
            &self.players,
            caught_up_at,
        );
        if !events.is_empty() {
            let fired = self.schedule.fired_in(&events);
            let mut scratch = self.clone();
            let mut outcome = phase("schedule", Vec::new(), mail);
            for event in events {
                let event = SharedEvent::Schedule(event);
                scratch.shared.apply_event(&event, now);
                outcome.events.push(shared_event(event));
            }
            for deadline in fired {
                fire(&mut scratch, &deadline, now, &tick, params, &mut outcome);
            }
            return outcome;
        }
        // The periodic reports not yet on the schedule: the first of each.
        let reports = super::reports::tick_unscheduled(self, now, &tick, params);
        if !reports.events.is_empty() {
            return reports;
        }
        // The deadlines a game keeps itself.
        let mut scratch = self.clone();
        let mut outcome = phase("games", Vec::new(), Vec::new());
        struct Own<'a> {
            scratch: &'a mut World,
            now: Timestamp,
            tick: &'a Tick,
            params: &'a Params,
            outcome: &'a mut Outcome,
        }
        impl Visit for Own<'_> {
            fn visit<G: Registered>(&mut self) {
                let Some(at) = G::next_deadline(&G::take_state(self.scratch)) else {
                    return;
                };
                if at > self.now {
                    return;
                }
                let deadline = Deadline {
                    id: format!("{}:own", G::NAME),
                    at,
                    owner: G::TAGS[0].to_owned(),
                    who: None,
                    what: String::new(),
                    remind: false,
                };
                run::<G>(
                    self.scratch,
                    &deadline,
                    self.now,
                    self.tick,
                    self.params,
                    self.outcome,
                );
            }
        }
        each_game(&mut Own {
            scratch: &mut scratch,
            now,
            tick: &tick,
            params,
            outcome: &mut outcome,
        });
        outcome
    }
}

/// A deadline fired: the game that owns it (its first tag) decides what happens.
fn fire(
    scratch: &mut World,
    deadline: &Deadline,
    now: Timestamp,
    tick: &Tick,
    params: &Params,
    outcome: &mut Outcome,
) {
    if super::reports::fired(scratch, deadline, now, tick, params, outcome) {
        return;
    }
    struct Owner<'a> {
        scratch: &'a mut World,
        deadline: &'a Deadline,
        now: Timestamp,
        tick: &'a Tick,
        params: &'a Params,
        outcome: &'a mut Outcome,
    }
    impl Visit for Owner<'_> {
        fn visit<G: Registered>(&mut self) {
            // An owner may carry an instance's number (`ghost 2`): still the game's.
            if G::TAGS.first() == Some(&base_tag(&self.deadline.owner)) {
                run::<G>(
                    self.scratch,
                    self.deadline,
                    self.now,
                    self.tick,
                    self.params,
                    self.outcome,
                );
            }
        }
    }
    each_game(&mut Owner {
        scratch,
        deadline,
        now,
        tick,
        params,
        outcome,
    });
}

fn run<G: Registered>(
    scratch: &mut World,
    deadline: &Deadline,
    now: Timestamp,
    tick: &Tick,
    params: &Params,
    outcome: &mut Outcome,
) {
    let mut tx = Tx::<G>::new(
        scratch.shared.clone(),
        G::take_state(scratch),
        &params.setting,
        G::params(params),
        now,
    );
    <G as Game>::on_deadline(&mut tx, deadline, tick);
    let (shared, state, effects) = tx.finish();
    scratch.shared = shared;
    G::put_state(scratch, state);
    let rules_changed = super::bindings::touched(&effects);
    outcome.take::<G>(effects);
    if rules_changed {
        super::bindings::react(scratch, now, params, outcome);
    }
}
