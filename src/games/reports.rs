//! The periodic reports the bot posts to the list as the officers of a nomic
//! post theirs: the Registrar's roster, the Treasuror's balances, the
//! Rulekeepor's changes of the period, the Scorekeepor's standings of every
//! game. Each is a deadline on the shared schedule (`report:<office>`), fired
//! by the driver like any other and scheduled again for the next period. It
//! names no game: the standings come from `summary`, and show only what the
//! rules have revealed.

use jiff::SignedDuration;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::engine::accounts::{Holder, amount_human};
use crate::engine::calendar::{self, Deadline};
use crate::engine::game::{Shared, SharedEvent, Tick};
use crate::engine::{Audience, Mail, Timestamp, human_time, players, ruleset};

use super::{Outcome, Params, World, shared_event, summary};

/// `[reports]` of bot.toml: when the reports go out, and which.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Reports {
    /// The reports fall at this moment and every period after it (a Monday
    /// noon, UTC, by default); the first after the first player joined is the
    /// first sent.
    pub start: Timestamp,
    pub registrar: Office,
    pub treasuror: Office,
    pub rulekeepor: Office,
    pub scorekeepor: Office,
}

/// One office's report: whether it is posted, and how often.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Office {
    /// On unless bot.toml turns it off: the bot holds the office.
    pub on: bool,
    /// Days between two reports; a week by default.
    pub every_days: u16,
}

impl Default for Office {
    fn default() -> Office {
        Office {
            on: false,
            every_days: 7,
        }
    }
}

impl Default for Reports {
    fn default() -> Reports {
        Reports {
            // A Monday.
            start: "2026-01-05T12:00:00Z"
                .parse()
                .unwrap_or(Timestamp::UNIX_EPOCH),
            registrar: Office::default(),
            treasuror: Office::default(),
            rulekeepor: Office::default(),
            scorekeepor: Office::default(),
        }
    }
}

/// The offices that report, as the rules of many nomics name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Registrar,
    Treasuror,
    Rulekeepor,
    Scorekeepor,
}

const KINDS: [Kind; 4] = [
    Kind::Registrar,
    Kind::Treasuror,
    Kind::Rulekeepor,
    Kind::Scorekeepor,
];

impl Kind {
    fn key(self) -> &'static str {
        match self {
            Kind::Registrar => "registrar",
            Kind::Treasuror => "treasuror",
            Kind::Rulekeepor => "rulekeepor",
            Kind::Scorekeepor => "scorekeepor",
        }
    }

    /// The office as the report names it.
    fn office(self) -> &'static str {
        match self {
            Kind::Registrar => "Registrar",
            Kind::Treasuror => "Treasuror",
            Kind::Rulekeepor => "Rulekeepor",
            Kind::Scorekeepor => "Scorekeepor",
        }
    }

    /// The tag the report goes under.
    fn tag(self) -> &'static str {
        match self {
            Kind::Rulekeepor => ruleset::TAG,
            _ => players::TAG,
        }
    }

    fn deadline_id(self) -> String {
        format!("report:{}", self.key())
    }

    fn of_deadline(id: &str) -> Option<Kind> {
        let key = id.strip_prefix("report:")?;
        KINDS.into_iter().find(|kind| kind.key() == key)
    }
}

impl Reports {
    fn office(&self, kind: Kind) -> &Office {
        match kind {
            Kind::Registrar => &self.registrar,
            Kind::Treasuror => &self.treasuror,
            Kind::Rulekeepor => &self.rulekeepor,
            Kind::Scorekeepor => &self.scorekeepor,
        }
    }

    fn period(&self, kind: Kind) -> SignedDuration {
        SignedDuration::from_hours(24 * i64::from(self.office(kind).every_days.max(1)))
    }

    /// The first report moment strictly after `after`: `start`, or `start` and
    /// a whole number of periods.
    fn next_after(&self, kind: Kind, after: Timestamp) -> Timestamp {
        if after < self.start {
            return self.start;
        }
        let period = self.period(kind).as_secs();
        let elapsed = after.as_second() - self.start.as_second();
        let periods = elapsed / period + 1;
        self.start
            .checked_add(SignedDuration::from_secs(periods.saturating_mul(period)))
            .unwrap_or(after)
    }

    /// The first moment of a report that is on but not yet on the schedule:
    /// the first report moment at or after the first player joined (none
    /// before anyone has). Scheduled when it fires (`World::tick`).
    fn first_due(&self, shared: &Shared, kind: Kind) -> Option<Timestamp> {
        if !self.office(kind).on || shared.schedule.get(&kind.deadline_id()).is_some() {
            return None;
        }
        let first_joined = shared.players.players.iter().map(|p| p.joined_at).min()?;
        let just_before = first_joined
            .checked_sub(SignedDuration::from_nanos(1))
            .unwrap_or(first_joined);
        Some(self.next_after(kind, just_before))
    }
}

/// The earliest report due that the schedule does not hold yet.
pub fn next_unscheduled(world: &World, params: &Params) -> Option<Timestamp> {
    KINDS
        .into_iter()
        .filter_map(|kind| params.reports.first_due(&world.shared, kind))
        .min()
}

/// The reports due at `now` that the schedule does not hold yet: posted, and
/// each scheduled for its next moment. Empty when none is due.
pub fn tick_unscheduled(world: &World, now: Timestamp, tick: &Tick, params: &Params) -> Outcome {
    let mut scratch = world.clone();
    let mut outcome = Outcome {
        phase: "reports",
        ..Outcome::default()
    };
    for kind in KINDS {
        if params
            .reports
            .first_due(&scratch.shared, kind)
            .is_some_and(|at| at <= now)
        {
            post(&mut scratch, kind, now, tick, params, &mut outcome);
        }
    }
    outcome
}

/// A deadline of the schedule fired: if it is a report's, the report is posted
/// (unless turned off since) and the next one scheduled.
pub fn fired(
    scratch: &mut World,
    deadline: &Deadline,
    now: Timestamp,
    tick: &Tick,
    params: &Params,
    outcome: &mut Outcome,
) -> bool {
    let Some(kind) = Kind::of_deadline(&deadline.id) else {
        return false;
    };
    if params.reports.office(kind).on {
        post(scratch, kind, now, tick, params, outcome);
    }
    true
}

/// Posts one report and schedules the next, after the real time of this run
/// too: a bot that was down for weeks sends one report, not one per week.
fn post(
    scratch: &mut World,
    kind: Kind,
    now: Timestamp,
    tick: &Tick,
    params: &Params,
    outcome: &mut Outcome,
) {
    let reports = &params.reports;
    let since = now.checked_sub(reports.period(kind)).unwrap_or(now);
    outcome.mail.push(Mail::new(
        Audience::List,
        kind.tag(),
        "report",
        report(scratch, kind, since, now, params),
    ));
    let next = reports.next_after(kind, now.max(tick.caught_up_at));
    let event = SharedEvent::Schedule(calendar::Event::Scheduled {
        deadline: Deadline {
            id: kind.deadline_id(),
            at: next,
            owner: kind.tag().to_owned(),
            who: None,
            what: format!("the {}'s report", kind.office()),
            remind: false,
        },
    });
    scratch.shared.apply_event(&event, now);
    outcome.events.push(shared_event(event));
}

/// What one report tells, as the template's values.
pub fn report(
    world: &World,
    kind: Kind,
    since: Timestamp,
    now: Timestamp,
    params: &Params,
) -> Value {
    let shared = &world.shared;
    let mut values = json!({
        "office": kind.office(),
        "kind": kind.key(),
        "at": human_time(now),
        "since": human_time(since),
        "every_days": params.reports.office(kind).every_days,
        "players": null,
        "balances": null,
        "changes": null,
        "standings": null,
        "games": null,
    });
    match kind {
        Kind::Registrar => {
            values["players"] = json!(
                shared
                    .players
                    .active()
                    .map(|p| json!({
                        "name": p.name,
                        "joined": human_time(p.joined_at),
                        "vacation_until": p.vacation_until.map(human_time),
                        "in_gaol": p.in_gaol,
                        "inactive": p.inactive,
                    }))
                    .collect::<Vec<_>>()
            );
        }
        Kind::Treasuror => {
            let accounts = &shared.accounts;
            values["balances"] = json!(
                accounts
                    .currencies
                    .iter()
                    .map(|currency| {
                        let holders: Vec<Value> = shared
                            .players
                            .active()
                            .map(|p| {
                                json!({
                                    "name": p.name,
                                    "amount": amount_human(&accounts.balance(Holder::Player(p.id), &currency.name)),
                                })
                            })
                            .collect();
                        json!({
                            "currency": currency.name,
                            "holders": holders,
                            "treasury": amount_human(&accounts.balance(Holder::Treasury, &currency.name)),
                        })
                    })
                    .collect::<Vec<_>>()
            );
        }
        Kind::Rulekeepor => {
            let rules = &shared.ruleset;
            values["changes"] = json!(
                rules
                    .changes
                    .iter()
                    .filter(|change| since < change.at && change.at <= now)
                    .map(|change| {
                        let name = rules
                            .rules
                            .iter()
                            .chain(&rules.past)
                            .find(|r| r.number == change.number && r.version == change.version)
                            .map(|r| r.name.clone());
                        json!({
                            "number": change.number,
                            "name": name,
                            "kind": change.kind,
                            "version": change.version,
                            "at": human_time(change.at),
                            "by": change.by,
                        })
                    })
                    .collect::<Vec<_>>()
            );
        }
        Kind::Scorekeepor => {
            values["standings"] = summary::standings(world, params);
            values["games"] = summary::running(world, params, now);
        }
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    #[test]
    fn reports_fall_on_the_start_and_every_period_after_it() {
        let reports = Reports::default();
        let kind = Kind::Registrar;
        assert_eq!(
            reports.next_after(kind, at("2025-12-01T00:00:00Z")),
            at("2026-01-05T12:00:00Z")
        );
        assert_eq!(
            reports.next_after(kind, at("2026-01-05T12:00:00Z")),
            at("2026-01-12T12:00:00Z")
        );
        assert_eq!(
            reports.next_after(kind, at("2026-03-04T08:00:00Z")),
            at("2026-03-09T12:00:00Z")
        );
    }

    #[test]
    fn a_report_turned_off_is_never_due() {
        let mut world = World::default();
        std::sync::Arc::make_mut(&mut world.shared.players).apply_event(
            &players::Event::Joined {
                id: 1,
                name: "Alice".into(),
                address: crate::engine::Address::new("alice@nomic.example"),
            },
            at("2026-03-02T09:00:00Z"),
        );
        let mut params = Params::default();
        assert_eq!(next_unscheduled(&world, &params), None);
        params.reports.treasuror.on = true;
        assert_eq!(
            next_unscheduled(&world, &params),
            Some(at("2026-03-02T12:00:00Z"))
        );
    }

    #[test]
    fn no_report_before_anyone_joined() {
        let mut params = Params::default();
        params.reports.registrar.on = true;
        assert_eq!(next_unscheduled(&World::default(), &params), None);
    }
}
