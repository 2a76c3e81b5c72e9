//! `[bogusity]`: the Bogusity Hearing of Boons of the Ancients, Ackanomic rule
//! 1211 §8: "Any player may call a Bogusity Hearing within three days of a
//! description of a Must Describe Boon being posted. [...] If the result is the
//! former, the Boon is found to be Bogus and the player who described it loses 11
//! points."
//!
//! A player posts the description of a Must Describe Boon (`describe BOON:
//! TEXT`); the rest of rule 1211, which bestows Boons, is not refereed, so the
//! description is the player's claim, numbered, recorded and announced. Any player
//! may call a hearing on description N (`call N`) within `call_days` of its
//! posting, once per Boon; the players answer with one of the two valid responses
//! (the describer may not); at the hearing's deadline, `hearing_days` later, the
//! bot announces the tally and, if the Boon is found to be Bogus, charges the
//! describer in the same step. A moderator may close a hearing early, with a reason.
//!
//! Built through the game seam alone (`engine::game::Game`). Pure, like the
//! engine: the time and the sender come in through `Ctx`, the world through the
//! transaction. `rules` holds §8's clauses in the text's order, `parse` the
//! command lines, `report` the values of the announcements and answers.
//!
//! Identifiers: descriptions are numbered from 1; the hearing on description N
//! closes at the deadline `bogusity:N` on the shared schedule.

pub mod bound;
mod changes;
mod parse;
mod report;
mod rules;
mod sample;
#[cfg(test)]
mod tests;

use std::num::NonZeroU32;

use serde::{Deserialize, Serialize};

use crate::engine::calendar::{self, Deadline};
use crate::engine::game::{Game, Running, SharedEvent, Tick, Tx, View};
use crate::engine::players::PlayerId;
use crate::engine::{
    Address, Audience, Ctx, Mail, NotUnderstood, Refusal, Sentence, Timestamp, human_time,
};

pub use rules::Response;

/// The subject tag: the rule's own name for the thing, one word. `[boons]` is
/// left for the whole of rule 1211, should the rest of it be refereed one day.
pub const TAG: &str = "bogusity";

/// The Bogusity Hearing (Ackanomic rule 1211 §8).
pub struct Bogusity;

/// The numbers of §8, from `[bogusity]` in bot.toml; every default is the text's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// The number of the rule of the Boons of the Ancients in the registry:
    /// the hearings follow it as it changes (`bound`), and end when it leaves
    /// effect.
    pub rule: u32,
    /// "within three days of a description [...] being posted".
    pub call_days: NonZeroU32,
    /// How long a hearing takes responses. The text names no period (docs/rulings.md).
    pub hearing_days: NonZeroU32,
    /// "loses 11 points". 0: a Bogus finding costs nothing.
    pub bogus_penalty: u32,
    pub currency: String,
    /// false: a response counts only as the rule writes it. true: case,
    /// punctuation and spacing are not checked (docs/rulings.md).
    pub loose_responses: bool,
}

impl Default for Params {
    fn default() -> Params {
        let three = NonZeroU32::new(3).unwrap_or(NonZeroU32::MIN);
        Params {
            rule: bound::RULE,
            call_days: three,
            hearing_days: three,
            bogus_penalty: 11,
            currency: "points".to_owned(),
            loose_responses: false,
        }
    }
}

/// Every description ever posted, with its hearing if one was called. Nothing is
/// retired: a description's number must keep answering "its hearing was held".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Descriptions {
    pub descriptions: Vec<Description>,
    /// Rule 1211 is held for a moderator's ruling since then: the hearings'
    /// clocks stand still, and what other games hand over waits in `deferred`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_since: Option<Timestamp>,
    /// Deadlines of other games' making that fired while the rule was held.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deferred: Vec<Deadline>,
    /// Rule 1211 left effect (why): the hearings have ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<String>,
}

/// The description of a Must Describe Boon, as a player posted it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Description {
    pub number: u32,
    /// The Boon described, as the player names it ("An ancient relic").
    pub boon: String,
    pub text: String,
    pub describer: PlayerId,
    pub describer_name: String,
    pub posted_at: Timestamp,
    /// The end of the three days to call a hearing: a call at or after it is late.
    pub call_until: Timestamp,
    pub hearing: Option<Hearing>,
    /// The game that posted it for a player, and its own number for the Boon
    /// (`boons:3`), when the description came through the shared schedule
    /// rather than by `describe`: it is told of the hearing (see `notify`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hearing {
    pub called_by: PlayerId,
    pub called_by_name: String,
    pub called_at: Timestamp,
    /// Its deadline on the shared schedule (`bogusity:N`).
    pub closes_at: Timestamp,
    /// Every response, in the order given; only each player's last counts.
    pub responses: Vec<Given>,
    /// Set when the hearing closed, at its deadline or by a moderator.
    pub finding: Option<Finding>,
    /// When it closed: its deadline, or a moderator's override before it.
    pub closed_at: Option<Timestamp>,
    /// Rule 1211 left effect while it was open: it closed without a result,
    /// and no one lost points by it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub abandoned: bool,
}

/// One response as given.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Given {
    pub player: PlayerId,
    pub name: String,
    pub response: Response,
    pub at: Timestamp,
}

/// The result of a closed hearing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// "This loophole surfer is totally Bogus", each player's last response.
    pub bogus: u32,
    /// "Thats a pretty cool idea", each player's last response.
    pub cool: u32,
    /// "the Boon is found to be Bogus": more of the former than of the latter.
    pub found_bogus: bool,
    /// The moderator who closed it before its deadline, and why.
    pub closed_by: Option<Address>,
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Described {
        number: u32,
        boon: String,
        text: String,
        describer: PlayerId,
        describer_name: String,
        call_until: Timestamp,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        origin: Option<String>,
    },
    HearingCalled {
        number: u32,
        called_by: PlayerId,
        called_by_name: String,
        closes_at: Timestamp,
    },
    Responded {
        number: u32,
        player: PlayerId,
        name: String,
        response: Response,
    },
    /// The penalty, if any, is the accounts transfer recorded in the same step.
    HearingClosed { number: u32, finding: Finding },
    /// Rule 1211 changed otherwise than in its numbers: the hearings' clocks
    /// stand still until a moderator rules (issue 22).
    Held { rule: u32, difference: String },
    /// A deadline another game set for this one fired while the rule was held.
    Deferred { deadline: Deadline },
    /// A moderator ruled: every period still running when the hold began (a
    /// call's three days, a hearing's) runs again with the time it had left.
    Resumed,
    /// Rule 1211 left effect: the hearings have ended, the open ones without a
    /// result.
    Ended { rule: u32, why: String },
    /// Rule 1211 is in effect again.
    Restarted,
}

/// One command line, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `describe BOON: TEXT`: the description of a Must Describe Boon.
    Describe { boon: String, text: String },
    /// `call N`: a Bogusity Hearing on description N.
    Call { number: u32 },
    /// `[N] RESPONSE`: one of the two responses, in some spelling; `written` is
    /// the response as written, judged against the reading in force.
    Respond {
        number: Option<u32>,
        response: Response,
        written: String,
    },
    /// A moderator's `close N because REASON`.
    Close { number: u32, reason: String },
    /// `status`: the descriptions and hearings.
    Status,
}

impl Descriptions {
    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        match event {
            Event::Described {
                number,
                boon,
                text,
                describer,
                describer_name,
                call_until,
                origin,
            } => {
                if self.get(*number).is_none() {
                    self.descriptions.push(Description {
                        number: *number,
                        boon: boon.clone(),
                        text: text.clone(),
                        describer: *describer,
                        describer_name: describer_name.clone(),
                        posted_at: at,
                        call_until: *call_until,
                        hearing: None,
                        origin: origin.clone(),
                    });
                }
            }
            Event::HearingCalled {
                number,
                called_by,
                called_by_name,
                closes_at,
            } => {
                if let Some(description) = self.get_mut(*number)
                    && description.hearing.is_none()
                {
                    description.hearing = Some(Hearing {
                        called_by: *called_by,
                        called_by_name: called_by_name.clone(),
                        called_at: at,
                        closes_at: *closes_at,
                        responses: Vec::new(),
                        finding: None,
                        closed_at: None,
                        abandoned: false,
                    });
                }
            }
            Event::Responded {
                number,
                player,
                name,
                response,
            } => {
                if let Some(hearing) = self.hearing_mut(*number) {
                    hearing.responses.push(Given {
                        player: *player,
                        name: name.clone(),
                        response: *response,
                        at,
                    });
                }
            }
            Event::HearingClosed { number, finding } => {
                if let Some(hearing) = self.hearing_mut(*number) {
                    hearing.finding = Some(finding.clone());
                    hearing.closed_at = Some(at);
                }
            }
            Event::Held { .. } => {
                self.held_since.get_or_insert(at);
            }
            Event::Deferred { deadline } => self.deferred.push(deadline.clone()),
            Event::Resumed => {
                if let Some(since) = self.held_since.take() {
                    for description in &mut self.descriptions {
                        description.call_until = stretched(description.call_until, since, at);
                        if let Some(hearing) = description
                            .hearing
                            .as_mut()
                            .filter(|h| h.finding.is_none() && !h.abandoned)
                        {
                            hearing.closes_at = stretched(hearing.closes_at, since, at);
                        }
                    }
                }
                self.deferred.clear();
            }
            Event::Ended { why, .. } => {
                for description in &mut self.descriptions {
                    if let Some(hearing) = description
                        .hearing
                        .as_mut()
                        .filter(|h| h.finding.is_none() && !h.abandoned)
                    {
                        hearing.abandoned = true;
                        hearing.closed_at = Some(at);
                    }
                }
                self.ended = Some(why.clone());
                self.held_since = None;
                self.deferred.clear();
            }
            Event::Restarted => self.ended = None,
        }
    }

    pub fn get(&self, number: u32) -> Option<&Description> {
        self.descriptions.iter().find(|d| d.number == number)
    }

    fn get_mut(&mut self, number: u32) -> Option<&mut Description> {
        self.descriptions.iter_mut().find(|d| d.number == number)
    }

    fn hearing_mut(&mut self, number: u32) -> Option<&mut Hearing> {
        self.get_mut(number).and_then(|d| d.hearing.as_mut())
    }

    /// The descriptions whose hearing is open (called, not closed), in order.
    pub fn open_hearings(&self) -> impl Iterator<Item = &Description> {
        self.descriptions.iter().filter(|d| {
            d.hearing
                .as_ref()
                .is_some_and(|h| h.finding.is_none() && !h.abandoned)
        })
    }

    fn next_number(&self) -> u32 {
        self.descriptions
            .iter()
            .map(|d| d.number)
            .max()
            .unwrap_or(0)
            + 1
    }
}

/// A period still running when a hold began at `since`, resumed at `at` with
/// the time it had left then; one that had run out before is left as it was.
fn stretched(clock: Timestamp, since: Timestamp, at: Timestamp) -> Timestamp {
    if clock <= since {
        return clock;
    }
    at.checked_add(clock.duration_since(since)).unwrap_or(clock)
}

/// The deadline of the hearing on description `number`.
pub fn deadline_id(number: u32) -> String {
    format!("{TAG}:{number}")
}

/// The description whose hearing a fired deadline closes: `Some(N)` for `bogusity:N`.
pub fn hearing_of_deadline(id: &str) -> Option<u32> {
    id.strip_prefix(TAG)?.strip_prefix(':')?.parse().ok()
}

/// The origin (`boons:3`) of a description handed over on the schedule:
/// `Some` for `bogusity:describe:boons:3`.
pub fn handed_description(id: &str) -> Option<String> {
    let rest = id.strip_prefix(TAG)?.strip_prefix(":describe:")?;
    let (tag, number) = rest.split_once(':')?;
    number.parse::<u32>().ok()?;
    Some(format!("{tag}:{number}"))
}

/// Tells the game a description came from what became of its hearing, by a
/// deadline that game owns at this instant: `TAG:WHAT:N:D` (`boons:bogus:3:1`),
/// WHAT one of `posted`, `called`, `bogus`, `cool`, D the description's number
/// here.
fn notify(tx: &mut Tx<'_, Bogusity>, description: &Description, what: &str) {
    let Some((tag, their_number)) = description
        .origin
        .as_deref()
        .and_then(|o| o.split_once(':'))
    else {
        return;
    };
    tx.record_shared(SharedEvent::Schedule(calendar::Event::Scheduled {
        deadline: Deadline {
            id: format!("{tag}:{what}:{their_number}:{}", description.number),
            at: tx.at(),
            owner: tag.to_owned(),
            who: None,
            what: format!("description {} ({what})", description.number),
            remind: false,
        },
    }));
}

/// `days` calendar days after `at` in the nomic's zone ("3 days after X" is the
/// same wall-clock time three days later: docs/rulings.md, "Calendars").
fn days_after(
    tx: &Tx<'_, Bogusity>,
    at: Timestamp,
    days: NonZeroU32,
) -> Result<Timestamp, Refusal> {
    jiff::Span::new()
        .try_days(i64::from(days.get()))
        .ok()
        .and_then(|span| tx.view().calendar.after(at, span).ok())
        .ok_or_else(|| Refusal(Sentence::new("bogusity_out_of_range").arg("days", days.get())))
}

impl Game for Bogusity {
    const NAME: &'static str = "bogusity";
    const TAGS: &'static [&'static str] = &[TAG];
    type State = Descriptions;
    type Event = Event;
    type Command = Command;
    type Params = Params;

    /// A description's paragraphs are kept (`parse_message` skips blank lines
    /// everywhere else).
    const KEEPS_BLANK_LINES: bool = true;

    fn parse(line: &str, _tag: &str) -> Result<Command, NotUnderstood> {
        parse::parse(line)
    }

    /// Each hearing still open, with its deadline; the responses stay unread
    /// until it closes. The hearings keep no score: a Bogus finding costs the
    /// nomic's points.
    fn running(state: &Descriptions, _view: &View<'_>) -> Vec<Running> {
        state
            .descriptions
            .iter()
            .filter_map(|description| {
                let hearing = description.hearing.as_ref()?;
                if hearing.finding.is_some() || hearing.closed_at.is_some() {
                    return None;
                }
                Some(Running {
                    tag: TAG.to_owned(),
                    what: format!(
                        "a hearing on description {} ({}, by {}), called by {}",
                        description.number,
                        description.boon,
                        description.describer_name,
                        hearing.called_by_name
                    ),
                    players: Vec::new(),
                    turn: None,
                    deadline: Some(hearing.closes_at),
                })
            })
            .collect()
    }

    fn sample(script: &mut dyn crate::engine::game::Script) {
        sample::sample(script);
    }

    /// `describe BOON:` with nothing after the colon takes the lines below it, up
    /// to a line `end` (or the end of the message), as the description.
    fn parse_message(
        lines: &[String],
        _tag: &str,
    ) -> Vec<(String, Result<Command, NotUnderstood>)> {
        parse::parse_message(lines)
    }

    /// No start: each description posted (`describe`) may begin a hearing.
    fn begins(command: &Command) -> bool {
        matches!(command, Command::Describe { .. })
    }

    fn apply(tx: &mut Tx<'_, Bogusity>, command: Command, ctx: &Ctx) -> Result<Sentence, Refusal> {
        if !matches!(command, Command::Status) {
            changes::in_effect(tx)?;
        }
        match command {
            Command::Describe { boon, text } => describe(tx, boon, text, ctx),
            Command::Call { number } => call(tx, number, ctx),
            Command::Respond {
                number,
                response,
                written,
            } => respond(tx, number, response, &written, ctx),
            Command::Close { number, reason } => {
                if !tx.view().is_moderator(&ctx.sender) {
                    return Err(Sentence::new("moderators_only").into());
                }
                close_early(tx, number, &reason, ctx)
            }
            Command::Status => Ok(Sentence::new("bogusity_status")
                .arg("descriptions", report::status(tx.state(), ctx.now))),
        }
    }

    fn apply_event(state: &mut Descriptions, event: &Event, at: Timestamp) {
        state.apply_event(event, at);
    }

    /// "If the result is the former [...]": the hearing's deadline decides it.
    /// Also takes up a description another game posts for a player: a
    /// deadline `bogusity:describe:TAG:N` it owns, its `who` the describer and
    /// its `what` "BOON: TEXT".
    fn bindings(params: &Params) -> crate::engine::ruleset::bindings::Declared {
        bound::declared(params)
    }

    fn bindings_changed(tx: &mut Tx<'_, Bogusity>, _rules: &[u32]) {
        changes::rule_changed(tx);
    }

    fn on_deadline(tx: &mut Tx<'_, Bogusity>, deadline: &Deadline, _tick: &Tick) {
        // Rule 1211 has left effect: nothing of it happens any more.
        if tx.state().ended.is_some() {
            return;
        }
        // Held: a hearing's clock stands still (set again, moved, at the
        // ruling); a description another game hands over waits for it.
        if tx.state().held_since.is_some() {
            if hearing_of_deadline(&deadline.id).is_none() {
                tx.record(Event::Deferred {
                    deadline: deadline.clone(),
                });
            }
            return;
        }
        if let Some(number) = hearing_of_deadline(&deadline.id) {
            close(tx, number, None);
        } else if let Some(origin) = handed_description(&deadline.id) {
            posted_for(tx, deadline, origin);
        }
    }
}

/// bot.toml's `[bogusity]` with §8's numbers as rule 1211 now says them:
/// every number of the rule is read here (`bound`).
fn numbers(tx: &Tx<'_, Bogusity>) -> Params {
    bound::Bound::of(&tx.view(), tx.params()).params()
}

fn describe(
    tx: &mut Tx<'_, Bogusity>,
    boon: String,
    text: String,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let player = rules::a_player(tx.view().players, &ctx.sender)?.clone();
    if text.is_empty() {
        return Err(Sentence::new("bogusity_no_text").arg("boon", &boon).into());
    }
    let (number, call_until) = post(tx, boon, text, &player, None)?;
    Ok(Sentence::new("bogusity_described")
        .arg("number", number)
        .arg("call_until", human_time(call_until)))
}

/// A description another game posted for a player (`handed_description`).
/// What cannot be posted (a describer gone, a date out of range) is dropped:
/// that game's own clock then decides for the Boon.
fn posted_for(tx: &mut Tx<'_, Bogusity>, deadline: &Deadline, origin: String) {
    let Some(player) = deadline
        .who
        .and_then(|id| tx.view().players.by_id(id))
        .cloned()
    else {
        return;
    };
    let (boon, text) = deadline
        .what
        .split_once(": ")
        .unwrap_or(("a Must Describe Boon", &deadline.what));
    let posted = post(tx, boon.to_owned(), text.to_owned(), &player, Some(origin));
    if let Some(description) = posted.ok().and_then(|(n, _)| tx.state().get(n).cloned()) {
        notify(tx, &description, "posted");
    }
}

/// Numbers, records and announces a description.
fn post(
    tx: &mut Tx<'_, Bogusity>,
    boon: String,
    text: String,
    player: &crate::engine::players::Player,
    origin: Option<String>,
) -> Result<(u32, Timestamp), Refusal> {
    let call_until = days_after(tx, tx.at(), numbers(tx).call_days)?;
    let number = tx.state().next_number();
    tx.record(Event::Described {
        number,
        boon,
        text,
        describer: player.id,
        describer_name: player.name.clone(),
        call_until,
        origin,
    });
    let description = tx.state().get(number).cloned();
    if let Some(description) = &description {
        tx.mail(Mail::new(
            Audience::List,
            TAG,
            "bogusity_described",
            report::described(description, &numbers(tx)),
        ));
    }
    Ok((number, call_until))
}

fn call(tx: &mut Tx<'_, Bogusity>, number: u32, ctx: &Ctx) -> Result<Sentence, Refusal> {
    let view = tx.view();
    let caller = rules::a_player(view.players, &ctx.sender)?.clone();
    let description = described(tx.state(), number)?.clone();
    rules::any_player_may_call_within_three_days(&description, ctx.now)?;
    rules::only_one_hearing_per_boon(&description)?;
    let closes_at = days_after(tx, ctx.now, tx.params().hearing_days)?;
    tx.record(Event::HearingCalled {
        number,
        called_by: caller.id,
        called_by_name: caller.name.clone(),
        closes_at,
    });
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
    if let Some(description) = tx.state().get(number).cloned() {
        tx.mail(Mail::new(
            Audience::List,
            TAG,
            "bogusity_called",
            report::called(&description, &numbers(tx)),
        ));
        notify(tx, &description, "called");
    }
    Ok(Sentence::new("bogusity_called")
        .arg("number", number)
        .arg("describer", &description.describer_name)
        .arg("closes_at", human_time(closes_at)))
}

fn respond(
    tx: &mut Tx<'_, Bogusity>,
    number: Option<u32>,
    response: Response,
    written: &str,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let player = rules::a_player(tx.view().players, &ctx.sender)?.clone();
    let description = match number {
        Some(number) => described(tx.state(), number)?,
        None => the_open_hearing(tx.state(), response)?,
    }
    .clone();
    let Some(hearing) = &description.hearing else {
        return Err(Sentence::new("bogusity_no_hearing")
            .arg("number", description.number)
            .into());
    };
    if hearing.finding.is_some() || ctx.now >= hearing.closes_at {
        return Err(Sentence::new("bogusity_hearing_closed")
            .arg("number", description.number)
            .arg(
                "closed_at",
                human_time(hearing.closed_at.unwrap_or(hearing.closes_at)),
            )
            .into());
    }
    rules::describer_may_not_vote(&description, &player)?;
    let response = rules::valid_response(response, written, tx.params().loose_responses)?;
    let changed = hearing.responses.iter().any(|g| g.player == player.id);
    tx.record(Event::Responded {
        number: description.number,
        player: player.id,
        name: player.name,
        response,
    });
    Ok(Sentence::new("bogusity_responded")
        .arg("number", description.number)
        .arg("response", response.words())
        .arg("changed", changed)
        .arg("closes_at", human_time(hearing.closes_at)))
}

fn close_early(
    tx: &mut Tx<'_, Bogusity>,
    number: u32,
    reason: &str,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let description = described(tx.state(), number)?;
    match &description.hearing {
        None => Err(Sentence::new("bogusity_no_hearing")
            .arg("number", number)
            .into()),
        Some(hearing) if hearing.finding.is_some() => Err(Sentence::new("bogusity_already_closed")
            .arg("number", number)
            .into()),
        Some(_) => {
            tx.record_shared(SharedEvent::Schedule(calendar::Event::Cancelled {
                id: deadline_id(number),
            }));
            let finding = close(tx, number, Some((&ctx.sender, reason)));
            Ok(Sentence::new("bogusity_closed")
                .arg("number", number)
                .arg("bogus", finding.as_ref().map_or(0, |f| f.bogus))
                .arg("cool", finding.as_ref().map_or(0, |f| f.cool))
                .arg("found_bogus", finding.is_some_and(|f| f.found_bogus))
                .arg("reason", reason))
        }
    }
}

/// Closes the hearing on description `number` (at its deadline, or `forced` by a
/// moderator): the tally, the finding, the penalty and the announcement, in one
/// step. A hearing unknown or already closed gives nothing, so a repeated firing
/// is harmless and the penalty is charged once.
fn close(
    tx: &mut Tx<'_, Bogusity>,
    number: u32,
    forced: Option<(&Address, &str)>,
) -> Option<Finding> {
    let description = tx.state().get(number)?.clone();
    let hearing = description
        .hearing
        .as_ref()
        .filter(|h| h.finding.is_none() && !h.abandoned)?;
    let finding = rules::result(hearing, forced);
    tx.record(Event::HearingClosed {
        number,
        finding: finding.clone(),
    });
    // §7: the Boon waits for "the results of a Bogusity Hearing [...]".
    notify(
        tx,
        &description,
        if finding.found_bogus { "bogus" } else { "cool" },
    );
    let penalty = if finding.found_bogus {
        rules::the_describer_loses_points(&description, tx.view().accounts, &numbers(tx))
    } else {
        Ok(None)
    };
    let penalty = match penalty {
        Ok(Some(event)) => {
            tx.record_shared(SharedEvent::Accounts(event));
            report::Penalty::Charged
        }
        Ok(None) => report::Penalty::None,
        Err(Refusal(sentence)) => report::Penalty::Failed(sentence.code),
    };
    let balance = tx.view().accounts.balance(
        crate::engine::accounts::Holder::Player(description.describer),
        &tx.params().currency,
    );
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "bogusity_result",
        report::result(
            &description,
            hearing,
            &finding,
            &penalty,
            &balance,
            tx.at(),
            &numbers(tx),
        ),
    ));
    Some(finding)
}

fn described(state: &Descriptions, number: u32) -> Result<&Description, Refusal> {
    state.get(number).ok_or_else(|| {
        Refusal(
            Sentence::new("bogusity_no_such_description")
                .arg("number", number)
                .arg("last", state.descriptions.last().map(|d| d.number)),
        )
    })
}

/// The one open hearing a response without a number is for (or, when none is
/// open, the last one, which refuses it as closed).
fn the_open_hearing(state: &Descriptions, response: Response) -> Result<&Description, Refusal> {
    let open: Vec<&Description> = state.open_hearings().collect();
    match open.as_slice() {
        [only] => Ok(only),
        // A response that just missed the last hearing is told it closed, and when.
        [] => state
            .descriptions
            .iter()
            .filter(|d| d.hearing.is_some())
            .max_by_key(|d| d.hearing.as_ref().map(|h| h.closes_at))
            .ok_or_else(|| Sentence::new("bogusity_none_open").into()),
        _ => Err(Sentence::new("bogusity_which")
            .arg("response", response.words())
            .arg("hearings", report::hearings(open.into_iter()))
            .into()),
    }
}
