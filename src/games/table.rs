//! A table to play on without the shell: a world, its parameters, a clock, and
//! the mail sent so far, driven by the same `driver` as the pipeline (every
//! deadline due before a line fires first). The games' unit tests, the samples
//! `check` renders and the secrecy test all play here. Pure: no store, no mail.

use std::collections::HashMap;
use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::engine::sealed::{self, Sealed};
use crate::engine::{Address, Ctx, LineReport, Mail, Timestamp};

use super::driver::{self, Next};
use super::sealed_log::{self, SealedLog};
use super::{Event, Message, Outcome, Params, Registered, World};

/// The engine, its parameters, and what it did.
pub struct Table {
    pub world: World,
    pub params: Params,
    /// Every mail sent, in order.
    pub mail: Vec<Mail>,
    /// Every event applied, with its time and a cause of its own (for `fold`).
    pub events: Vec<(Timestamp, String, Event)>,
    /// The answer to the last line sent.
    pub last: Vec<LineReport>,
    /// What of `events` a batch's commitments and reveal read (as the store's
    /// indexes do): each batch's sealed actions, and the voids.
    log: Log,
}

/// The table's log as `sealed_log::complete` reads it.
#[derive(Default)]
struct Log {
    sealed: HashMap<String, Vec<(String, Sealed)>>,
    voids: Vec<(Timestamp, String, Event)>,
}

impl SealedLog for Log {
    type Error = std::convert::Infallible;
    fn sealed_of(&mut self, batch: &str) -> Result<Vec<(String, Sealed)>, Self::Error> {
        Ok(self.sealed.get(batch).cloned().unwrap_or_default())
    }
    fn voids(&mut self) -> Result<Vec<(Timestamp, String, Event)>, Self::Error> {
        Ok(self.voids.clone())
    }
}

impl Table {
    pub fn new(world: World, params: Params) -> Table {
        Table {
            world,
            params,
            mail: Vec::new(),
            events: Vec::new(),
            last: Vec::new(),
            log: Log::default(),
        }
    }

    /// The step's commitments and reveal with every action of their batch, as
    /// the pipeline makes them.
    fn complete(&mut self, outcome: &mut Outcome) {
        let Ok(()) = sealed_log::complete(outcome, &mut self.log);
    }

    /// Secret bytes for a step: the same for the same moment and line, so a table
    /// replays alike.
    pub fn entropy(at: Timestamp, what: &str) -> [u8; 32] {
        let mut hasher = Sha256::new();
        hasher.update(at.to_string().as_bytes());
        hasher.update(what.as_bytes());
        hasher.finalize().into()
    }

    /// First fires every deadline due by `at`, then applies one message of lines
    /// from `from`; returns the outcome (its events already recorded).
    pub fn message(
        &mut self,
        at: Timestamp,
        from: &str,
        public: bool,
        tag: &str,
        lines: &[&str],
    ) -> Outcome {
        let ctx = Ctx {
            now: at,
            sender: Address::new(from),
            sender_name: None,
            public,
            entropy: Table::entropy(at, &lines.join("\n")),
        };
        let message = Message {
            tag: tag.to_owned(),
            subject_rest: String::new(),
            body_lines: lines.iter().map(|l| l.to_string()).collect(),
        };
        self.handle(&message, &ctx)
    }

    /// Applies one message as the router reads it (a subject's rest included), at
    /// `ctx.now`, once every deadline due by then has fired.
    pub fn handle(&mut self, message: &Message, ctx: &Ctx) -> Outcome {
        self.run_until(ctx.now);
        let mut outcome = self.world.handle(message, ctx, &self.params);
        self.complete(&mut outcome);
        self.record(ctx.now, &outcome.events);
        self.mail.extend(outcome.mail.iter().cloned());
        self.last = outcome.report.clone();
        outcome
    }

    /// One line from `from`.
    pub fn send(&mut self, at: Timestamp, from: &str, public: bool, tag: &str, line: &str) {
        let _outcome = self.message(at, from, public, tag, &[line]);
    }

    /// Applies events as the pipeline does: in order, then finished history retired.
    pub fn record(&mut self, at: Timestamp, events: &[Event]) {
        let cause = format!("table:{}", self.events.len());
        for event in events {
            self.world.apply_event(event, at);
            match event {
                Event::Sealed(sealed::Event::Sealed { batch, sealed }) => self
                    .log
                    .sealed
                    .entry(batch.clone())
                    .or_default()
                    .push((cause.clone(), sealed.clone())),
                Event::Override(super::Override::Voided { .. }) => {
                    self.log.voids.push((at, cause.clone(), event.clone()));
                }
                _ => {}
            }
            self.events.push((at, cause.clone(), event.clone()));
        }
        self.world.retire();
    }

    /// Fires every deadline due by `until`, one phase per step.
    pub fn run_until(&mut self, until: Timestamp) {
        let mut skip = None;
        while let Next::Deadline(at) = driver::next(&self.world, &self.params, None, until, skip) {
            let mut outcome = self
                .world
                .tick(at, &self.params, at, Table::entropy(at, "tick"));
            self.complete(&mut outcome);
            if outcome.events.is_empty() {
                skip = Some(at);
                continue;
            }
            self.record(at, &outcome.events);
            self.mail.extend(outcome.mail);
        }
    }

    /// A game's state now.
    pub fn state<G: Registered>(&self) -> Arc<G::State> {
        self.world.state::<G>()
    }

    /// The mail sent since mark `from` (an index into `mail`).
    pub fn mail_since(&self, from: usize) -> &[Mail] {
        self.mail.get(from..).unwrap_or_default()
    }
}
