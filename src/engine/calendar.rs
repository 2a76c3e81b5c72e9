//! Calendars and deadlines, for every game: days in the configured zone, named
//! cycles such as the nweek of ndays, and the `Schedule` of deadlines that the
//! shell fires through `tick`.
//!
//! Pure, like the rest of the engine: time is always an argument and the time-zone
//! rules come from the tz database bundled into the binary (`TimeZoneDatabase::
//! bundled`), never from the host, so a replay on another machine reads the same
//! calendar. The schedule sends reminders itself; what a fired deadline *means*
//! belongs to the game that owns it, which learns of it through `fired_in` (or
//! `due`) and its own tick.

use std::collections::BTreeMap;

use jiff::civil::{Date, DateTime, Time};
use jiff::tz::{TimeZone, TimeZoneDatabase};
use jiff::{SignedDuration, Span, Unit, Zoned};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::players::{PlayerId, Registry};
use super::{Audience, Mail, Timestamp, human_time};

/// The reminder template's stem: `templates/reminder.txt`.
pub const REMINDER_TEMPLATE: &str = "reminder";

/// Why a calendar could not be built or a date could not be reckoned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CalendarError {
    #[error("unknown time zone {0:?} (an IANA name such as \"Europe/London\" or \"UTC\")")]
    UnknownZone(String),
    #[error("bad time of day {0:?} (write it as HH:MM, e.g. \"21:00\")")]
    BadTimeOfDay(String),
    #[error("cycle {name:?}: {reason}")]
    BadCycle { name: String, reason: String },
    #[error("two cycles are called {0:?}")]
    DuplicateCycle(String),
    /// Only reachable within a few thousand years of jiff's limits (years -9999 and 9999).
    #[error("date out of range")]
    OutOfRange,
}

fn out_of_range<E>(_: E) -> CalendarError {
    CalendarError::OutOfRange
}

/// A time zone by IANA name, from the bundled database (no file is read).
pub fn time_zone(name: &str) -> Result<TimeZone, CalendarError> {
    let name = name.trim();
    if name.eq_ignore_ascii_case("UTC") || name.eq_ignore_ascii_case("GMT") {
        return Ok(TimeZone::UTC);
    }
    TimeZoneDatabase::bundled()
        .get(name)
        .map_err(|_| CalendarError::UnknownZone(name.to_owned()))
}

/// A wall-clock time written `HH:MM` (or `HH:MM:SS`).
pub fn time_of_day(text: &str) -> Result<Time, CalendarError> {
    text.trim()
        .parse::<Time>()
        .map_err(|_| CalendarError::BadTimeOfDay(text.to_owned()))
}

/// The first moment strictly after `now` at which the wall clock of `zone` reads
/// `at`: "21:00 GMT each day". Strictly after, so that a game which fires at 21:00
/// and asks for the next one at 21:00 gets tomorrow's, not the same instant again.
/// On a day when `at` falls in a DST gap, the moment is the one just after the gap.
pub fn next_daily(now: Timestamp, at: Time, zone: &TimeZone) -> Result<Timestamp, CalendarError> {
    // Start a day early: a DST adjustment can push a candidate across midnight, and
    // of yesterday's, today's and tomorrow's candidates one is always the answer.
    let mut date = now
        .to_zoned(zone.clone())
        .date()
        .yesterday()
        .map_err(out_of_range)?;
    for _ in 0..3 {
        let candidate = moment_at(date, at, zone)?;
        if candidate > now {
            return Ok(candidate);
        }
        date = date.tomorrow().map_err(out_of_range)?;
    }
    Err(CalendarError::OutOfRange)
}

/// The instant a wall-clock date and time denote in `zone`. In a DST gap it is the
/// moment just after the gap, in a fold the first of the two (jiff's "compatible"
/// choice, the same as RFC 5545 and Temporal).
fn moment_at(date: Date, at: Time, zone: &TimeZone) -> Result<Timestamp, CalendarError> {
    DateTime::from_parts(date, at)
        .to_zoned(zone.clone())
        .map(|zoned| zoned.timestamp())
        .map_err(out_of_range)
}

/// `[calendar]` in bot.toml, as written. `Calendar` is its checked form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CalendarConfig {
    /// IANA zone name: whose midnight a "day" starts at.
    pub time_zone: String,
    /// When a day begins on the zone's wall clock, `HH:MM`. "Acka Day" style games
    /// whose day does not begin at midnight set it here.
    pub day_starts_at: String,
    /// How long before a deadline the player who can miss it is reminded.
    pub remind_hours: u32,
    pub cycles: Vec<Cycle>,
}

impl Default for CalendarConfig {
    fn default() -> CalendarConfig {
        CalendarConfig {
            time_zone: "UTC".to_owned(),
            day_starts_at: "00:00".to_owned(),
            remind_hours: 24,
            cycles: vec![Cycle::default()],
        }
    }
}

/// A named cycle of equal units: the nweek of ndays.
///
/// A unit whose length is a whole number of days (`unit_hours` a multiple of 24)
/// is counted in calendar days of the zone, beginning at `day_starts_at`: an nday
/// is then 23 or 25 hours long over a DST change, and always starts at the same
/// wall-clock time. Any other length is counted in elapsed hours from `epoch`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Cycle {
    /// "nweek".
    pub name: String,
    /// "nday".
    pub unit: String,
    pub unit_hours: u32,
    /// Units per cycle: ndays per nweek.
    pub units: u32,
    /// Lies in unit 1 of cycle 0. For day units, the whole day containing it is that
    /// unit; for hour units, the unit starts exactly at the epoch.
    pub epoch: Timestamp,
}

impl Default for Cycle {
    fn default() -> Cycle {
        Cycle {
            name: "nweek".to_owned(),
            unit: "nday".to_owned(),
            unit_hours: 24,
            // The rule text names ndays 2, 8 and 9 and wraps from 9 to 2; ten ndays is
            // the reading in docs/rulings.md, and a parameter because rules change.
            units: 10,
            // A Monday, 2026-01-05 00:00 UTC. Placeholder: the moderator sets the real one.
            epoch: Timestamp::constant(1_767_571_200, 0),
        }
    }
}

impl Cycle {
    /// Whole days per unit, when the unit is counted in calendar days.
    fn unit_days(&self) -> Option<i64> {
        self.unit_hours
            .is_multiple_of(24)
            .then_some(i64::from(self.unit_hours / 24))
    }
}

/// One day of the calendar: its date and the instants it begins and ends at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Day {
    pub date: Date,
    pub start: Timestamp,
    /// The start of the next day: the day is `start <= t < end`.
    pub end: Timestamp,
}

/// Where an instant falls in a cycle: nweek `cycle_index`, nday `unit_number`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct CyclePosition {
    /// 0 for the cycle containing the epoch, negative before it.
    pub cycle_index: i64,
    /// 1-based: the first nday of an nweek is nday 1.
    pub unit_number: u32,
    pub unit_start: Timestamp,
    /// Exclusive: the start of the next unit.
    pub unit_end: Timestamp,
}

/// The checked calendar. Deserializes from `CalendarConfig`, so a bad zone name or
/// cycle stops bot.toml from loading instead of misdating a deadline later.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(try_from = "CalendarConfig")]
pub struct Calendar {
    config: CalendarConfig,
    zone: TimeZone,
    day_starts_at: Time,
}

impl Default for Calendar {
    fn default() -> Calendar {
        Calendar {
            config: CalendarConfig::default(),
            zone: TimeZone::UTC,
            day_starts_at: Time::midnight(),
        }
    }
}

impl TryFrom<CalendarConfig> for Calendar {
    type Error = CalendarError;

    fn try_from(config: CalendarConfig) -> Result<Calendar, CalendarError> {
        Calendar::new(config)
    }
}

impl Calendar {
    pub fn new(config: CalendarConfig) -> Result<Calendar, CalendarError> {
        let zone = time_zone(&config.time_zone)?;
        let day_starts_at = time_of_day(&config.day_starts_at)?;
        let mut names = BTreeMap::new();
        for cycle in &config.cycles {
            let bad = |reason: &str| CalendarError::BadCycle {
                name: cycle.name.clone(),
                reason: reason.to_owned(),
            };
            if cycle.units == 0 {
                return Err(bad("units must be at least 1"));
            }
            if cycle.unit_hours == 0 {
                return Err(bad("unit_hours must be at least 1"));
            }
            if names.insert(cycle.name.to_lowercase(), ()).is_some() {
                return Err(CalendarError::DuplicateCycle(cycle.name.clone()));
            }
        }
        Ok(Calendar {
            config,
            zone,
            day_starts_at,
        })
    }

    pub fn config(&self) -> &CalendarConfig {
        &self.config
    }

    pub fn zone(&self) -> &TimeZone {
        &self.zone
    }

    /// How long before a deadline its player is reminded: `remind_hours`.
    pub fn reminder_lead(&self) -> SignedDuration {
        SignedDuration::from_hours(i64::from(self.config.remind_hours))
    }

    /// The cycle called `name` ("nweek"), ignoring case.
    pub fn cycle(&self, name: &str) -> Option<&Cycle> {
        self.config
            .cycles
            .iter()
            .find(|cycle| cycle.name.eq_ignore_ascii_case(name))
    }

    /// An instant on the calendar's wall clock, for players: `2026-03-29 00:00 BST`.
    pub fn local_time(&self, at: Timestamp) -> String {
        at.to_zoned(self.zone.clone())
            .strftime("%Y-%m-%d %H:%M %Z")
            .to_string()
    }

    fn day_start(&self, date: Date) -> Result<Timestamp, CalendarError> {
        moment_at(date, self.day_starts_at, &self.zone)
    }

    /// The day containing `now`, with its start and end in the zone.
    pub fn day_of(&self, now: Timestamp) -> Result<Day, CalendarError> {
        let mut date = now.to_zoned(self.zone.clone()).date();
        // The wall-clock date is the day's date unless the day starts later than
        // midnight and `now` is before today's start ("Acka Day" at 21:00).
        while self.day_start(date)? > now {
            date = date.yesterday().map_err(out_of_range)?;
        }
        loop {
            let next = date.tomorrow().map_err(out_of_range)?;
            let end = self.day_start(next)?;
            if end > now {
                return Ok(Day {
                    date,
                    start: self.day_start(date)?,
                    end,
                });
            }
            date = next;
        }
    }

    /// The start of the calendar month containing `now`: the start of its day 1.
    pub fn month_start(&self, now: Timestamp) -> Result<Timestamp, CalendarError> {
        self.day_start(self.day_of(now)?.date.first_of_month())
    }

    /// `span` after `t` on the calendar's wall clock: "3 days after X" is the same
    /// wall-clock time three calendar days later (71 or 73 hours across a DST
    /// change); hours and smaller units are exact elapsed time.
    pub fn after(&self, t: Timestamp, span: Span) -> Result<Timestamp, CalendarError> {
        t.to_zoned(self.zone.clone())
            .checked_add(span)
            .map(|zoned: Zoned| zoned.timestamp())
            .map_err(out_of_range)
    }

    /// The next moment strictly after `now` at which this calendar's wall clock reads
    /// `at`. For a rule with its own zone ("21:00 GMT") use the free `next_daily`.
    pub fn next_daily(&self, now: Timestamp, at: Time) -> Result<Timestamp, CalendarError> {
        next_daily(now, at, &self.zone)
    }

    /// Where `now` falls in `cycle`: which nweek and which nday.
    pub fn cycle_position(
        &self,
        cycle: &Cycle,
        now: Timestamp,
    ) -> Result<CyclePosition, CalendarError> {
        let units = i64::from(cycle.units.max(1));
        let total = match cycle.unit_days() {
            Some(days_per_unit) => {
                let epoch_date = self.day_of(cycle.epoch)?.date;
                let date = self.day_of(now)?.date;
                let days = i64::from(
                    date.since((Unit::Day, epoch_date))
                        .map_err(out_of_range)?
                        .get_days(),
                );
                days.div_euclid(days_per_unit.max(1))
            }
            None => {
                let elapsed = now.as_nanosecond() - cycle.epoch.as_nanosecond();
                let unit = i128::from(cycle.unit_hours.max(1)) * 3_600 * 1_000_000_000;
                i64::try_from(elapsed.div_euclid(unit)).map_err(out_of_range)?
            }
        };
        let unit_number = u32::try_from(total.rem_euclid(units) + 1).map_err(out_of_range)?;
        Ok(CyclePosition {
            cycle_index: total.div_euclid(units),
            unit_number,
            unit_start: self.nth_unit_start(cycle, total)?,
            unit_end: self.nth_unit_start(cycle, total + 1)?,
        })
    }

    /// The start of nday `unit_number` (1-based) of nweek `cycle_index`.
    pub fn unit_start(
        &self,
        cycle: &Cycle,
        cycle_index: i64,
        unit_number: u32,
    ) -> Result<Timestamp, CalendarError> {
        self.nth_unit_start(cycle, self.unit_total(cycle, cycle_index, unit_number)?)
    }

    /// The end of nday `unit_number` of nweek `cycle_index`: "before the end of nday
    /// 8" means strictly before this instant, which is also the start of the next nday.
    pub fn unit_end(
        &self,
        cycle: &Cycle,
        cycle_index: i64,
        unit_number: u32,
    ) -> Result<Timestamp, CalendarError> {
        let total = self.unit_total(cycle, cycle_index, unit_number)?;
        self.nth_unit_start(
            cycle,
            total.checked_add(1).ok_or(CalendarError::OutOfRange)?,
        )
    }

    /// Units since the epoch's unit, from an nweek and a 1-based nday.
    fn unit_total(
        &self,
        cycle: &Cycle,
        cycle_index: i64,
        unit_number: u32,
    ) -> Result<i64, CalendarError> {
        if unit_number == 0 || unit_number > cycle.units {
            return Err(CalendarError::BadCycle {
                name: cycle.name.clone(),
                reason: format!(
                    "there is no {} {unit_number}: they run from 1 to {}",
                    cycle.unit, cycle.units
                ),
            });
        }
        cycle_index
            .checked_mul(i64::from(cycle.units))
            .and_then(|n| n.checked_add(i64::from(unit_number) - 1))
            .ok_or(CalendarError::OutOfRange)
    }

    /// The start of the `total`-th unit after the epoch's unit (negative: before).
    fn nth_unit_start(&self, cycle: &Cycle, total: i64) -> Result<Timestamp, CalendarError> {
        match cycle.unit_days() {
            Some(days_per_unit) => {
                let epoch_date = self.day_of(cycle.epoch)?.date;
                let days = total
                    .checked_mul(days_per_unit)
                    .ok_or(CalendarError::OutOfRange)?;
                let span = Span::new().try_days(days).map_err(out_of_range)?;
                self.day_start(epoch_date.checked_add(span).map_err(out_of_range)?)
            }
            None => {
                let hours = total
                    .checked_mul(i64::from(cycle.unit_hours))
                    .ok_or(CalendarError::OutOfRange)?;
                let seconds = hours.checked_mul(3_600).ok_or(CalendarError::OutOfRange)?;
                cycle
                    .epoch
                    .checked_add(SignedDuration::from_secs(seconds))
                    .map_err(out_of_range)
            }
        }
    }
}

/// A moment a game waits for, as data: the schedule holds it until it fires or is
/// cancelled, and reminds the player who can miss it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deadline {
    /// Stable and unique, chosen by the owner ("ghost:1:turn:7"): scheduling the same
    /// id again moves the deadline instead of adding a second one.
    pub id: String,
    pub at: Timestamp,
    /// The owning game's tag ("vote"), or that tag with the number of the game's
    /// instance ("ghost 2"): the game reacts when the deadline fires, and this tag
    /// heads the reminder's subject.
    pub owner: String,
    /// The player who can miss it, if any: only they are reminded.
    pub who: Option<PlayerId>,
    /// What is due, as the player reads it: "your turn in [ghost]".
    pub what: String,
    /// Whether `who` gets a reminder beforehand.
    pub remind: bool,
}

/// A deadline in the schedule, and what the schedule did about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub deadline: Deadline,
    /// When it was (last) scheduled: a reminder that would fall before this is not
    /// sent, since the mail that set the deadline told the player just then.
    pub scheduled_at: Timestamp,
    pub reminded: bool,
}

impl Entry {
    /// When this entry's reminder is due, if it still has one to send.
    fn reminder_at(&self, lead: SignedDuration) -> Option<Timestamp> {
        let deadline = &self.deadline;
        if !deadline.remind || deadline.who.is_none() || self.reminded {
            return None;
        }
        let at = deadline.at.checked_sub(lead).ok()?;
        (at >= self.scheduled_at && at < deadline.at).then_some(at)
    }
}

/// Every pending deadline. `apply_event` is the only thing that changes it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Schedule {
    /// In the order they were first scheduled: ties in time fire in this order.
    pub entries: Vec<Entry>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Scheduled { deadline: Deadline },
    Cancelled { id: String },
    Fired { id: String },
    Reminded { id: String },
}

/// Something due by a given moment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Due {
    /// Remind `deadline.who`: due at `deadline.at - lead`.
    Reminder { deadline: Deadline },
    /// The deadline itself: due at `deadline.at`.
    Deadline { deadline: Deadline },
}

impl Due {
    pub fn deadline(&self) -> &Deadline {
        match self {
            Due::Reminder { deadline } | Due::Deadline { deadline } => deadline,
        }
    }
}

impl Schedule {
    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.entries.iter().find(|entry| entry.deadline.id == id)
    }

    /// `at` is the moment of the event (the arrival time of the message or the tick).
    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        match event {
            Event::Scheduled { deadline } => {
                let entry = Entry {
                    deadline: deadline.clone(),
                    scheduled_at: at,
                    reminded: false,
                };
                // Rescheduling keeps the entry's place among ties and owes a new
                // reminder for the new time.
                match self
                    .entries
                    .iter_mut()
                    .find(|existing| existing.deadline.id == deadline.id)
                {
                    Some(existing) => *existing = entry,
                    None => self.entries.push(entry),
                }
            }
            Event::Cancelled { id } | Event::Fired { id } => {
                self.entries.retain(|entry| &entry.deadline.id != id);
            }
            Event::Reminded { id } => {
                if let Some(entry) = self.entries.iter_mut().find(|e| &e.deadline.id == id) {
                    entry.reminded = true;
                }
            }
        }
    }

    /// The earliest moment something is due, reminders included: the shell sleeps
    /// until then (or the next mail). `lead` is `Calendar::reminder_lead`.
    pub fn next_due(&self, lead: SignedDuration) -> Option<Timestamp> {
        self.entries
            .iter()
            .flat_map(|entry| [entry.reminder_at(lead), Some(entry.deadline.at)])
            .flatten()
            .min()
    }

    /// Everything due by `now`, in time order (a reminder before a deadline at the
    /// same instant, then the order of scheduling). A reminder whose deadline is
    /// itself due by `now` is stale — the bot was down — and is left out: reminding a
    /// player of a deadline that has passed helps no one. Its deadline is in the list
    /// and fires as usual, and firing removes the reminder with it.
    pub fn due(&self, now: Timestamp, lead: SignedDuration) -> Vec<Due> {
        let mut due: Vec<(Timestamp, u8, usize, Due)> = Vec::new();
        for (position, entry) in self.entries.iter().enumerate() {
            let deadline = &entry.deadline;
            if deadline.at <= now {
                due.push((
                    deadline.at,
                    1,
                    position,
                    Due::Deadline {
                        deadline: deadline.clone(),
                    },
                ));
            } else if let Some(at) = entry.reminder_at(lead).filter(|at| *at <= now) {
                due.push((
                    at,
                    0,
                    position,
                    Due::Reminder {
                        deadline: deadline.clone(),
                    },
                ));
            }
        }
        due.sort_by_key(|(at, kind, position, _)| (*at, *kind, *position));
        due.into_iter().map(|(_, _, _, due)| due).collect()
    }

    /// Carries out everything due by `now`: a `Reminded` event and a reminder to the
    /// player for each reminder, a `Fired` event for each deadline. The owner learns
    /// which of its deadlines fired from `fired_in`.
    ///
    /// `caught_up_at` is when the bot is actually running this tick (after a downtime,
    /// later than `now`): a reminder whose deadline is already past by then is marked
    /// done without a mail, so a bot catching up sends no stale notices. The events
    /// are the same either way, so the log does not depend on the downtime.
    pub fn tick(
        &self,
        now: Timestamp,
        lead: SignedDuration,
        players: &Registry,
        caught_up_at: Timestamp,
    ) -> (Vec<Event>, Vec<Mail>) {
        let mut events = Vec::new();
        let mut mail = Vec::new();
        for due in self.due(now, lead) {
            match due {
                Due::Reminder { deadline } => {
                    // A player who has left is not written to; the reminder still
                    // counts as done so it is not retried forever.
                    if let Some(player) = deadline
                        .who
                        .filter(|_| deadline.at > caught_up_at)
                        .and_then(|id| players.by_id(id))
                        .filter(|player| player.is_active())
                    {
                        mail.push(reminder_mail(
                            &deadline,
                            &player.name,
                            &player.address,
                            lead,
                        ));
                    }
                    events.push(Event::Reminded { id: deadline.id });
                }
                Due::Deadline { deadline } => events.push(Event::Fired { id: deadline.id }),
            }
        }
        (events, mail)
    }

    /// The deadlines that `events` fire, from this schedule as it was before they are
    /// applied: the router hands each to its owner's tick.
    pub fn fired_in(&self, events: &[Event]) -> Vec<Deadline> {
        events
            .iter()
            .filter_map(|event| match event {
                Event::Fired { id } => self.get(id).map(|entry| entry.deadline.clone()),
                _ => None,
            })
            .collect()
    }
}

fn reminder_mail(
    deadline: &Deadline,
    name: &str,
    address: &super::Address,
    lead: SignedDuration,
) -> Mail {
    Mail::new(
        Audience::Address(address.clone()),
        &deadline.owner,
        REMINDER_TEMPLATE,
        json!({
            "name": name,
            "what": deadline.what,
            "at": human_time(deadline.at),
            "owner": deadline.owner,
            "id": deadline.id,
            "lead_hours": lead.as_hours(),
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Address;
    use crate::engine::players::Event as PlayerEvent;
    use jiff::ToSpan;

    fn ts(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    fn calendar(zone: &str, day_starts_at: &str, epoch: &str) -> Calendar {
        Calendar::new(CalendarConfig {
            time_zone: zone.to_owned(),
            day_starts_at: day_starts_at.to_owned(),
            remind_hours: 24,
            cycles: vec![Cycle {
                epoch: ts(epoch),
                ..Cycle::default()
            }],
        })
        .unwrap()
    }

    /// Alice, player 1, joined through the registry's own event so that the test
    /// does not depend on the fields of `Player`.
    fn registry() -> Registry {
        let mut registry = Registry::default();
        registry.apply_event(
            &PlayerEvent::Joined {
                id: 1,
                name: "Alice".to_owned(),
                address: Address::new("alice@example.org"),
            },
            ts("2026-01-01T00:00:00Z"),
        );
        registry
    }

    fn deadline(id: &str, at: Timestamp, who: Option<PlayerId>) -> Deadline {
        Deadline {
            id: id.to_owned(),
            at,
            owner: "ghost".to_owned(),
            who,
            what: format!("{id} is due"),
            remind: true,
        }
    }

    fn schedule(items: &[(Deadline, Timestamp)]) -> Schedule {
        let mut schedule = Schedule::default();
        for (deadline, at) in items {
            schedule.apply_event(
                &Event::Scheduled {
                    deadline: deadline.clone(),
                },
                *at,
            );
        }
        schedule
    }

    const DAY: SignedDuration = SignedDuration::from_hours(24);

    #[test]
    fn a_deadline_three_days_after_a_message_fires_at_exactly_that_instant() {
        let calendar = Calendar::default();
        let message = ts("2026-03-02T17:45:12Z");
        let at = calendar.after(message, 3.days()).unwrap();
        assert_eq!(at, ts("2026-03-05T17:45:12Z"));
        let schedule = schedule(&[(deadline("boon:3", at, None), message)]);
        assert_eq!(schedule.next_due(DAY), Some(at));
        let just_before = at.checked_sub(SignedDuration::from_nanos(1)).unwrap();
        assert!(schedule.due(just_before, DAY).is_empty());
        let (events, mail) = schedule.tick(at, DAY, &registry(), at);
        assert_eq!(
            events,
            vec![Event::Fired {
                id: "boon:3".to_owned()
            }]
        );
        assert!(mail.is_empty());
        assert_eq!(schedule.fired_in(&events)[0].id, "boon:3");
    }

    #[test]
    fn three_days_are_calendar_days_across_a_dst_change() {
        let calendar = calendar("Europe/London", "00:00", "2026-01-05T00:00:00Z");
        // Noon GMT on Friday 27 March; the clocks go forward on Sunday the 29th.
        let at = calendar
            .after(ts("2026-03-27T12:00:00Z"), 3.days())
            .unwrap();
        assert_eq!(calendar.local_time(at), "2026-03-30 12:00 BST");
        assert_eq!(at, ts("2026-03-30T11:00:00Z"));
        let exact = calendar
            .after(ts("2026-03-27T12:00:00Z"), 72.hours())
            .unwrap();
        assert_eq!(exact, ts("2026-03-30T12:00:00Z"));
    }

    #[test]
    fn due_items_come_in_time_order_reminders_first_on_ties() {
        let t0 = ts("2026-05-01T00:00:00Z");
        let later = |hours: i64| t0.checked_add(SignedDuration::from_hours(hours)).unwrap();
        let schedule = schedule(&[
            (deadline("c", later(60), None), t0),
            (deadline("a", later(50), Some(1)), t0),
            (deadline("b", later(26), None), t0),
            (deadline("d", later(26), None), t0),
            (deadline("e", later(50), Some(1)), t0),
        ]);
        assert_eq!(schedule.next_due(DAY), Some(later(26)));
        let due = schedule.due(later(100), DAY);
        let order: Vec<(&str, &str)> = due
            .iter()
            .map(|d| match d {
                Due::Reminder { deadline } => ("reminder", deadline.id.as_str()),
                Due::Deadline { deadline } => ("deadline", deadline.id.as_str()),
            })
            .collect();
        // The reminders of a and e are stale at hour 100 and left out.
        assert_eq!(
            order,
            vec![
                ("deadline", "b"),
                ("deadline", "d"),
                ("deadline", "a"),
                ("deadline", "e"),
                ("deadline", "c"),
            ]
        );
        // At hour 26 the reminders of a and e (due at 26) come before the deadlines
        // b and d of the same instant, each pair in the order of scheduling.
        let due = schedule.due(later(26), DAY);
        let ids: Vec<&str> = due.iter().map(|d| d.deadline().id.as_str()).collect();
        assert_eq!(ids, vec!["a", "e", "b", "d"]);
        assert!(matches!(due[0], Due::Reminder { .. }));
        assert!(matches!(due[2], Due::Deadline { .. }));
    }

    #[test]
    fn a_reminder_goes_to_the_player_24_hours_before() {
        let t0 = ts("2026-05-01T09:00:00Z");
        let at = ts("2026-05-04T21:00:00Z");
        let mut schedule = schedule(&[(deadline("ghost:1:turn:7", at, Some(1)), t0)]);
        let remind_at = ts("2026-05-03T21:00:00Z");
        assert_eq!(schedule.next_due(DAY), Some(remind_at));
        assert!(schedule.due(ts("2026-05-03T20:59:59Z"), DAY).is_empty());

        let (events, mail) = schedule.tick(remind_at, DAY, &registry(), remind_at);
        assert_eq!(
            events,
            vec![Event::Reminded {
                id: "ghost:1:turn:7".to_owned()
            }]
        );
        assert_eq!(mail.len(), 1);
        assert_eq!(
            mail[0].to,
            Audience::Address(Address::new("alice@example.org"))
        );
        assert_eq!(mail[0].template, "reminder");
        assert_eq!(mail[0].tag, "ghost");
        assert_eq!(mail[0].values["at"], "2026-05-04 21:00 UTC");
        assert_eq!(mail[0].values["lead_hours"], 24);
        for event in &events {
            schedule.apply_event(event, remind_at);
        }
        // Reminded once: next comes the deadline itself.
        assert_eq!(schedule.next_due(DAY), Some(at));
        assert!(schedule.fired_in(&events).is_empty());
    }

    #[test]
    fn a_stale_reminder_after_downtime_is_skipped_but_the_deadline_fires() {
        let t0 = ts("2026-05-01T09:00:00Z");
        let at = ts("2026-05-04T21:00:00Z");
        let schedule = schedule(&[(deadline("ghost:1:turn:7", at, Some(1)), t0)]);
        // The bot was down from before the reminder until after the deadline.
        let back = ts("2026-05-06T08:00:00Z");
        let (events, mail) = schedule.tick(back, DAY, &registry(), back);
        assert!(
            mail.is_empty(),
            "no reminder for a deadline that has passed"
        );
        assert_eq!(
            events,
            vec![Event::Fired {
                id: "ghost:1:turn:7".to_owned()
            }]
        );
        let mut after = schedule.clone();
        for event in &events {
            after.apply_event(event, back);
        }
        assert_eq!(after.next_due(DAY), None);
        // Back between the reminder and the deadline: the late reminder is still useful.
        let (events, mail) = schedule.tick(
            ts("2026-05-04T10:00:00Z"),
            DAY,
            &registry(),
            ts("2026-05-04T10:00:00Z"),
        );
        assert_eq!(mail.len(), 1);
        assert!(matches!(events[0], Event::Reminded { .. }));
    }

    #[test]
    fn no_reminder_for_a_deadline_set_closer_than_the_lead() {
        let t0 = ts("2026-05-04T09:00:00Z");
        let at = ts("2026-05-04T21:00:00Z");
        let schedule = schedule(&[(deadline("duel:2", at, Some(1)), t0)]);
        assert_eq!(schedule.next_due(DAY), Some(at));
        let (_, mail) = schedule.tick(
            ts("2026-05-04T12:00:00Z"),
            DAY,
            &registry(),
            ts("2026-05-04T12:00:00Z"),
        );
        assert!(mail.is_empty());
    }

    #[test]
    fn cancelling_and_rescheduling() {
        let t0 = ts("2026-05-01T00:00:00Z");
        let mut schedule = schedule(&[(deadline("x", ts("2026-05-02T00:00:00Z"), None), t0)]);
        schedule.apply_event(
            &Event::Scheduled {
                deadline: deadline("x", ts("2026-05-09T00:00:00Z"), None),
            },
            t0,
        );
        assert_eq!(schedule.entries.len(), 1);
        assert_eq!(schedule.next_due(DAY), Some(ts("2026-05-09T00:00:00Z")));
        schedule.apply_event(&Event::Cancelled { id: "x".to_owned() }, t0);
        assert_eq!(schedule.next_due(DAY), None);
        // The state survives a round trip through JSON, as the store keeps it.
        let json = serde_json::to_string(&schedule).unwrap();
        assert_eq!(serde_json::from_str::<Schedule>(&json).unwrap(), schedule);
    }

    #[test]
    fn nweek_and_nday_in_utc() {
        let calendar = calendar("UTC", "00:00", "2026-01-05T00:00:00Z");
        let nweek = calendar.cycle("nweek").unwrap();
        let at = |t: &str| calendar.cycle_position(nweek, ts(t)).unwrap();
        let first = at("2026-01-05T00:00:00Z");
        assert_eq!((first.cycle_index, first.unit_number), (0, 1));
        assert_eq!(first.unit_end, ts("2026-01-06T00:00:00Z"));
        let last = at("2026-01-14T23:59:59Z");
        assert_eq!((last.cycle_index, last.unit_number), (0, 10));
        let next = at("2026-01-15T00:00:00Z");
        assert_eq!((next.cycle_index, next.unit_number), (1, 1));
        let before = at("2026-01-04T12:00:00Z");
        assert_eq!((before.cycle_index, before.unit_number), (-1, 10));
        // Across the European DST change nothing moves in UTC: 24-hour ndays.
        let spring = at("2026-03-29T00:30:00Z");
        assert_eq!(spring.unit_start, ts("2026-03-29T00:00:00Z"));
        assert_eq!(spring.unit_end, ts("2026-03-30T00:00:00Z"));
        assert_eq!((spring.cycle_index, spring.unit_number), (8, 4));
    }

    #[test]
    fn nweek_and_nday_across_a_dst_change_in_london() {
        // nday 1 of nweek 0 is Monday 5 January 2026 in London.
        let calendar = calendar("Europe/London", "00:00", "2026-01-05T00:00:00Z");
        let nweek = calendar.cycle("nweek").unwrap();
        // Sunday 29 March 2026, the day the clocks go forward: 83 days after the
        // epoch, nday 4 of nweek 8, and 23 hours long.
        let day = calendar
            .cycle_position(nweek, ts("2026-03-29T12:00:00Z"))
            .unwrap();
        assert_eq!((day.cycle_index, day.unit_number), (8, 4));
        assert_eq!(day.unit_start, ts("2026-03-29T00:00:00Z"));
        assert_eq!(day.unit_end, ts("2026-03-29T23:00:00Z"));
        // Just after local midnight BST, which is still the 29th in UTC: already nday 5.
        let next = calendar
            .cycle_position(nweek, ts("2026-03-29T23:30:00Z"))
            .unwrap();
        assert_eq!((next.cycle_index, next.unit_number), (8, 5));
        assert_eq!(calendar.local_time(next.unit_start), "2026-03-30 00:00 BST");
        // Autumn: Sunday 25 October 2026 is 25 hours long.
        let autumn = calendar
            .cycle_position(nweek, ts("2026-10-25T12:00:00Z"))
            .unwrap();
        assert_eq!(autumn.unit_start, ts("2026-10-24T23:00:00Z"));
        assert_eq!(autumn.unit_end, ts("2026-10-26T00:00:00Z"));
        // The arithmetic agrees both ways round.
        assert_eq!(
            calendar
                .unit_start(nweek, autumn.cycle_index, autumn.unit_number)
                .unwrap(),
            autumn.unit_start
        );
    }

    #[test]
    fn hour_units_count_elapsed_time_whatever_the_zone() {
        let mut config = CalendarConfig {
            time_zone: "Europe/London".to_owned(),
            ..CalendarConfig::default()
        };
        config.cycles[0].unit_hours = 12;
        config.cycles[0].units = 4;
        config.cycles[0].epoch = ts("2026-03-28T00:00:00Z");
        let calendar = Calendar::new(config).unwrap();
        let cycle = calendar.cycle("nweek").unwrap();
        let position = calendar
            .cycle_position(cycle, ts("2026-03-29T13:00:00Z"))
            .unwrap();
        assert_eq!((position.cycle_index, position.unit_number), (0, 4));
        assert_eq!(position.unit_start, ts("2026-03-29T12:00:00Z"));
    }

    #[test]
    fn the_end_of_nday_8() {
        let calendar = calendar("Europe/London", "00:00", "2026-01-05T00:00:00Z");
        let nweek = calendar.cycle("nweek").unwrap();
        // nweek 8 starts on 26 March; its nday 8 is 2 April (BST), ending at local midnight.
        let end = calendar.unit_end(nweek, 8, 8).unwrap();
        assert_eq!(calendar.local_time(end), "2026-04-03 00:00 BST");
        assert_eq!(end, ts("2026-04-02T23:00:00Z"));
        assert_eq!(end, calendar.unit_start(nweek, 8, 9).unwrap());
        // The end of the last nday is the start of the next nweek.
        assert_eq!(
            calendar.unit_end(nweek, 8, 10).unwrap(),
            calendar.unit_start(nweek, 9, 1).unwrap()
        );
        assert!(calendar.unit_end(nweek, 8, 0).is_err());
        assert!(calendar.unit_end(nweek, 8, 11).is_err());
    }

    #[test]
    fn daily_at_21_00_gmt() {
        let gmt = time_zone("GMT").unwrap();
        let nine = time_of_day("21:00").unwrap();
        let next = |t: &str| next_daily(ts(t), nine, &gmt).unwrap();
        assert_eq!(next("2026-06-01T12:00:00Z"), ts("2026-06-01T21:00:00Z"));
        // Strictly after: at 21:00 the next one is tomorrow's.
        assert_eq!(next("2026-06-01T21:00:00Z"), ts("2026-06-02T21:00:00Z"));
        assert_eq!(next("2026-06-01T23:59:00Z"), ts("2026-06-02T21:00:00Z"));
        // GMT is not London: in summer 21:00 GMT is 22:00 on London clocks.
        let london = time_zone("Europe/London").unwrap();
        assert_eq!(
            next_daily(ts("2026-06-01T12:00:00Z"), nine, &london).unwrap(),
            ts("2026-06-01T20:00:00Z")
        );
    }

    #[test]
    fn a_day_starting_at_21_00_and_the_month() {
        let calendar = calendar("UTC", "21:00", "2026-01-05T00:00:00Z");
        let day = calendar.day_of(ts("2026-06-01T12:00:00Z")).unwrap();
        assert_eq!(day.date, jiff::civil::date(2026, 5, 31));
        assert_eq!(day.start, ts("2026-05-31T21:00:00Z"));
        assert_eq!(day.end, ts("2026-06-01T21:00:00Z"));
        let day = calendar.day_of(ts("2026-06-01T21:00:00Z")).unwrap();
        assert_eq!(day.date, jiff::civil::date(2026, 6, 1));
        assert_eq!(
            calendar.month_start(ts("2026-06-15T00:00:00Z")).unwrap(),
            ts("2026-06-01T21:00:00Z")
        );
        let london = calendar_in_london();
        assert_eq!(
            london.month_start(ts("2026-06-15T00:00:00Z")).unwrap(),
            ts("2026-05-31T23:00:00Z")
        );
    }

    fn calendar_in_london() -> Calendar {
        calendar("Europe/London", "00:00", "2026-01-05T00:00:00Z")
    }

    #[test]
    fn bad_config_is_refused_when_loaded() {
        let parse = |json_text: &str| -> Result<Calendar, String> {
            let config: CalendarConfig =
                serde_json::from_str(json_text).map_err(|e| e.to_string())?;
            Calendar::new(config).map_err(|e| e.to_string())
        };
        assert!(parse(r#"{"time_zone": "Mars/Olympus"}"#).is_err());
        assert!(parse(r#"{"day_starts_at": "25:00"}"#).is_err());
        assert!(
            parse(
                r#"{"cycles": [{"name": "nweek", "units": 0, "epoch": "2026-01-05T00:00:00Z"}]}"#
            )
            .is_err()
        );
        let calendar = parse(r#"{"time_zone": "Europe/London"}"#).unwrap();
        assert_eq!(calendar.cycle("NWEEK").map(|c| c.units), Some(10));
        // `Calendar` deserializes through the check.
        assert!(serde_json::from_str::<Calendar>(r#"{"time_zone": "Nowhere"}"#).is_err());
    }
}
