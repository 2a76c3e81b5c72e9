//! `[duel]`: Duels, Ackanomic rule 1215/6; the bot is the duel clerk. A
//! Second posts a challenge (`ALICE challenges BOB because REASON`), the
//! Challenged player's Second answers within three days with a Contest of the
//! Games & Contests suite or a waiver (`accept N with CONTEST`, `accept N
//! waive`), or the challenge is forfeited; the Contest is played, and its winner
//! ends the duel with the points of §2. §4's conditions (Untouchable players,
//! the monthly limits, forfeits and cancellations by vacation and Gaol) are
//! `rules`, in the text's order.
//!
//! A Contest the bot referees is handed to its game on the shared schedule (a
//! deadline `ghost:duel:duel:N:A:B` owned by `ghost`), and that game tells the
//! winner back the same way (`duel:won:N:PLAYER`); no other game is imported.
//! Pure, like the engine: the time and the sender come in through `Ctx`.

pub mod bound;
mod parse;
mod report;
mod rules;
mod sample;
#[cfg(test)]
mod tests;

use std::num::NonZeroU32;

use serde::{Deserialize, Serialize};

use crate::engine::calendar::{self, Deadline};
use crate::engine::game::{Game, Running, SharedEvent, Standing, Tick, Tx, View};
use crate::engine::players::PlayerId;
use crate::engine::{Audience, Ctx, Mail, NotUnderstood, Refusal, Sentence, Timestamp, human_time};

/// The subject tag.
pub const TAG: &str = "duel";

/// Duels (Ackanomic rule 1215).
pub struct Duel;

/// A Contest of the Games & Contests suite (rule 1250), a part of the shared
/// world: the duel clerk reads it there, and its `contest add/remove` change it
/// there.
pub use crate::engine::contests::Contest;

/// The numbers of rule 1215, from `[duel]` in bot.toml; every default is the text's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// The number of the rule of Duels in the registry.
    pub rule: u32,
    pub currency: String,
    /// "The Challenged player has 3 days to find another player [...]".
    pub answer_days: NonZeroU32,
    /// "the winner of the Duel receives 6 points in addition".
    pub winner_points: u32,
    /// "The loser of the Duel loses 6 points in addition".
    pub loser_points: u32,
    /// "The winner's Second receives 3 points".
    pub second_winner_points: u32,
    /// "the loser's Second loses 3 points".
    pub second_loser_points: u32,
    /// §3: "the Challenged player loses 6 points".
    pub forfeit_loss: u32,
    /// §3: "the Challenging player gains 6 points".
    pub forfeit_gain: u32,
    /// true: §3 as written, the Challenged loses whoever forfeited. false: the
    /// player who forfeited loses and the other gains (docs/rulings.md).
    pub forfeit_by_role: bool,
    /// 4e: "or for three days if they do not go on that vacation within 3 days".
    pub announced_vacation_days: u32,
    /// 4h: "Untouchable until 3 days after the date he has declined".
    pub declined_days: u32,
    /// 4j: "No player may make more than 3 challenges per calendar month".
    pub challenges_per_month: u32,
    /// 4j: "No more than 6 duels may be called per calendar month".
    pub duels_per_month: u32,
    /// The Games & Contests suite as shipped; moderators add and remove by mail.
    pub contests: Vec<Contest>,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            rule: bound::RULE,
            currency: "points".to_owned(),
            answer_days: NonZeroU32::new(3).unwrap_or(NonZeroU32::MIN),
            winner_points: 6,
            loser_points: 6,
            second_winner_points: 3,
            second_loser_points: 3,
            forfeit_loss: 6,
            forfeit_gain: 6,
            forfeit_by_role: true,
            announced_vacation_days: 3,
            declined_days: 3,
            challenges_per_month: 3,
            duels_per_month: 6,
            contests: vec![Contest {
                name: "Ghost".to_owned(),
                players: 2,
                teams: false,
                definite_winner: true,
                referee: "bot".to_owned(),
                game: Some("ghost".to_owned()),
                private_moves: false,
                board: 0,
            }],
        }
    }
}

/// Every duel, the suite's changes by mail, the candidates for offices and the
/// announced vacations. Duels are kept whole: a number keeps answering.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Duels {
    pub duels: Vec<Challenge>,
    /// Contests a moderator added to the suite.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub added: Vec<Contest>,
    /// Contests a moderator removed (by name, lower case).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
    /// Vacations announced for a future date (4e).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub announced: Vec<Announced>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Announced {
    pub player: PlayerId,
    pub name: String,
    pub date: String,
    pub at: Timestamp,
}

/// A player as the duel names em.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Who {
    pub id: PlayerId,
    pub name: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Challenged; the answer is due.
    Challenged,
    /// The Challenged player waived the choice; the Challenger chooses.
    Waived,
    /// The Contest is being played.
    Started,
    Over,
}

/// One duel, from its challenge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Challenge {
    pub number: u32,
    pub challenger: Who,
    pub challenged: Who,
    pub challenger_second: Who,
    pub challenged_second: Option<Who>,
    pub reason: String,
    pub challenged_at: Timestamp,
    pub answer_until: Timestamp,
    pub stage: Stage,
    pub contest: Option<String>,
    #[serde(default)]
    pub teams: bool,
    pub started_at: Option<Timestamp>,
    pub ended_at: Option<Timestamp>,
    pub end: Option<End>,
    /// "if I lose, I will ...", as the duellists posted them.
    #[serde(default)]
    pub commitments: Vec<Commitment>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Commitment {
    pub name: String,
    pub text: String,
    pub at: Timestamp,
}

/// How a duel ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum End {
    Won {
        winner: PlayerId,
        by: String,
    },
    /// The Contest ended without a winner.
    NoWinner {
        by: String,
    },
    Forfeited {
        by: PlayerId,
        /// "silence", "declined", "vacation", "gaol".
        why: String,
    },
    Cancelled {
        why: String,
    },
}

impl Challenge {
    pub fn is_open(&self) -> bool {
        self.stage != Stage::Over
    }

    pub fn duellists(&self) -> [PlayerId; 2] {
        [self.challenger.id, self.challenged.id]
    }

    /// The duellist who is not `id`.
    fn other(&self, id: PlayerId) -> &Who {
        if self.challenger.id == id {
            &self.challenged
        } else {
            &self.challenger
        }
    }

    fn name_of(&self, id: PlayerId) -> String {
        self.other(self.other(id).id).name.clone()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Challenged {
        number: u32,
        challenger: Who,
        challenged: Who,
        second: Who,
        reason: String,
        answer_until: Timestamp,
    },
    /// The Challenged player's Second answered: a Contest, or the waiver (None).
    Accepted {
        number: u32,
        second: Who,
        contest: Option<String>,
        teams: bool,
    },
    /// The Challenger chose the Contest after a waiver.
    Chosen {
        number: u32,
        contest: String,
        teams: bool,
    },
    Ended {
        number: u32,
        end: End,
    },
    Committed {
        number: u32,
        name: String,
        text: String,
    },
    ContestAdded {
        contest: Contest,
    },
    ContestRemoved {
        name: String,
    },
    VacationAnnounced {
        player: PlayerId,
        name: String,
        date: String,
    },
}

/// One command line, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `CHALLENGER challenges CHALLENGED because REASON`, by the Challenger's Second.
    Challenge {
        challenger: String,
        challenged: String,
        reason: String,
    },
    /// `accept N with CONTEST [as teams]` or `accept N waive`, by the
    /// Challenged player's Second.
    Accept {
        number: Option<u32>,
        contest: Option<String>,
        teams: bool,
    },
    /// `decline N`, by the Challenged player (or eir Second).
    Decline {
        number: Option<u32>,
    },
    /// `choose N CONTEST [as teams]`, by the Challenger after a waiver.
    Choose {
        number: Option<u32>,
        contest: String,
        teams: bool,
    },
    /// `winner N NAME`, by the Contest's referee or a moderator.
    Winner {
        number: Option<u32>,
        name: String,
    },
    /// `commit N: TEXT`, by a duellist.
    Commit {
        number: Option<u32>,
        text: String,
    },
    /// `vacation on YYYY-MM-DD`: an announced vacation (4e).
    Vacation {
        date: String,
    },
    /// A moderator's `contest add NAME players N [teams] [referee bot|NAME]
    /// [game TAG] because REASON`, the same as `[games] add`.
    AddContest {
        contest: Contest,
        reason: String,
    },
    /// A moderator's `contest remove NAME because REASON`.
    RemoveContest {
        name: String,
        reason: String,
    },
    /// A moderator's `cancel N because REASON`.
    Cancel {
        number: u32,
        reason: String,
    },
    /// `contests`: the suite.
    Contests,
    Status,
}

impl Duels {
    pub fn get(&self, number: u32) -> Option<&Challenge> {
        self.duels.iter().find(|d| d.number == number)
    }

    fn get_mut(&mut self, number: u32) -> Option<&mut Challenge> {
        self.duels.iter_mut().find(|d| d.number == number)
    }

    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        match event {
            Event::Challenged {
                number,
                challenger,
                challenged,
                second,
                reason,
                answer_until,
            } => {
                if self.get(*number).is_none() {
                    self.duels.push(Challenge {
                        number: *number,
                        challenger: challenger.clone(),
                        challenged: challenged.clone(),
                        challenger_second: second.clone(),
                        challenged_second: None,
                        reason: reason.clone(),
                        challenged_at: at,
                        answer_until: *answer_until,
                        stage: Stage::Challenged,
                        contest: None,
                        teams: false,
                        started_at: None,
                        ended_at: None,
                        end: None,
                        commitments: Vec::new(),
                    });
                }
            }
            Event::Accepted {
                number,
                second,
                contest,
                teams,
            } => {
                if let Some(duel) = self.get_mut(*number) {
                    duel.challenged_second = Some(second.clone());
                    // "The duel starts upon the Challenged Player's Second
                    // posting the acceptance of the Duel."
                    duel.started_at = Some(at);
                    duel.contest = contest.clone();
                    duel.teams = *teams;
                    duel.stage = if contest.is_some() {
                        Stage::Started
                    } else {
                        Stage::Waived
                    };
                }
            }
            Event::Chosen {
                number,
                contest,
                teams,
            } => {
                if let Some(duel) = self.get_mut(*number) {
                    duel.contest = Some(contest.clone());
                    duel.teams = *teams;
                    duel.stage = Stage::Started;
                }
            }
            Event::Ended { number, end } => {
                if let Some(duel) = self.get_mut(*number) {
                    duel.end = Some(end.clone());
                    duel.ended_at = Some(at);
                    duel.stage = Stage::Over;
                }
            }
            Event::Committed { number, name, text } => {
                if let Some(duel) = self.get_mut(*number) {
                    duel.commitments.push(Commitment {
                        name: name.clone(),
                        text: text.clone(),
                        at,
                    });
                }
            }
            Event::ContestAdded { contest } => {
                let key = contest.name.to_lowercase();
                self.removed.retain(|n| *n != key);
                self.added.retain(|c| c.name.to_lowercase() != key);
                self.added.push(contest.clone());
            }
            Event::ContestRemoved { name } => {
                let key = name.to_lowercase();
                self.added.retain(|c| c.name.to_lowercase() != key);
                if !self.removed.contains(&key) {
                    self.removed.push(key);
                }
            }
            Event::VacationAnnounced { player, name, date } => {
                self.announced.retain(|a| a.player != *player);
                self.announced.push(Announced {
                    player: *player,
                    name: name.clone(),
                    date: date.clone(),
                    at,
                });
            }
        }
    }

    /// The suite as it stood before it became a part of the shared world:
    /// bot.toml's, with the changes the duel clerk recorded then (old logs).
    pub fn suite(&self, shipped: &[Contest]) -> Vec<Contest> {
        let mut suite: Vec<Contest> = shipped
            .iter()
            .filter(|c| !self.removed.contains(&c.name.to_lowercase()))
            .filter(|c| {
                !self
                    .added
                    .iter()
                    .any(|a| a.name.eq_ignore_ascii_case(&c.name))
            })
            .cloned()
            .collect();
        suite.extend(self.added.iter().cloned());
        suite
    }

    fn next_number(&self) -> u32 {
        self.duels.iter().map(|d| d.number).max().unwrap_or(0) + 1
    }
}

/// The deadline by which the Challenged player's Second must answer duel `number`.
pub fn answer_deadline_id(number: u32) -> String {
    format!("{TAG}:{number}:answer")
}

fn answer_of_deadline(id: &str) -> Option<u32> {
    id.strip_prefix(TAG)?
        .strip_prefix(':')?
        .strip_suffix(":answer")?
        .parse()
        .ok()
}

/// `duel:won:N:PLAYER` (or `none`): the game that played the Contest tells its winner.
fn won_of_deadline(id: &str) -> Option<(u32, Option<PlayerId>)> {
    let rest = id.strip_prefix(TAG)?.strip_prefix(":won:")?;
    let (number, winner) = rest.split_once(':')?;
    Some((number.parse().ok()?, winner.parse().ok()))
}

/// bot.toml's `[duel]` with rule 1215's numbers as the rule now says them.
fn numbers(tx: &Tx<'_, Duel>) -> Params {
    bound::Bound::of(&tx.view(), tx.params()).params()
}

fn days_after(tx: &Tx<'_, Duel>, at: Timestamp, days: u32) -> Timestamp {
    jiff::Span::new()
        .try_days(i64::from(days))
        .ok()
        .and_then(|span| tx.view().calendar.after(at, span).ok())
        .unwrap_or(at)
}

impl Game for Duel {
    const NAME: &'static str = "duel";
    const TAGS: &'static [&'static str] = &[TAG];
    type State = Duels;
    type Event = Event;
    type Command = Command;
    type Params = Params;

    fn parse(line: &str, _tag: &str) -> Result<Command, NotUnderstood> {
        parse::parse(line)
    }

    /// `[[duel.contests]]`: the suite as shipped.
    fn contests(params: &Params) -> Vec<Contest> {
        params.contests.clone()
    }

    /// The challenge begins a duel.
    fn begins(command: &Command) -> bool {
        matches!(command, Command::Challenge { .. })
    }

    fn apply(tx: &mut Tx<'_, Duel>, command: Command, ctx: &Ctx) -> Result<Sentence, Refusal> {
        if !matches!(command, Command::Status | Command::Contests)
            && let Some(why) = bound::Bound::of(&tx.view(), tx.params()).not_followed()
        {
            return Err(Sentence::new("duel_rule_not_followed")
                .arg("rule", tx.params().rule)
                .arg("why", why)
                .into());
        }
        rules::apply(tx, command, ctx)
    }

    fn apply_event(state: &mut Duels, event: &Event, at: Timestamp) {
        state.apply_event(event, at);
    }

    fn bindings(params: &Params) -> crate::engine::ruleset::bindings::Declared {
        bound::declared(params)
    }

    fn on_deadline(tx: &mut Tx<'_, Duel>, deadline: &Deadline, _tick: &Tick) {
        if let Some(number) = answer_of_deadline(&deadline.id) {
            rules::no_answer_in_time(tx, number);
        } else if let Some((number, winner)) = won_of_deadline(&deadline.id) {
            rules::contest_won(tx, number, winner, "the bot, refereeing the Contest");
        }
    }

    fn standing_changed(tx: &mut Tx<'_, Duel>, change: &Standing) {
        rules::standing_changed(tx, change);
    }

    /// Each duel not over: its duellists and what it waits for.
    fn running(state: &Duels, _view: &View<'_>) -> Vec<Running> {
        state
            .duels
            .iter()
            .filter(|d| d.is_open())
            .map(|d| Running {
                tag: TAG.to_owned(),
                what: match d.stage {
                    Stage::Challenged => {
                        format!("Duel {}: the challenge awaits its answer", d.number)
                    }
                    Stage::Waived => {
                        format!("Duel {}: the Challenger chooses the Contest", d.number)
                    }
                    _ => format!(
                        "Duel {}, fought as {}",
                        d.number,
                        d.contest.as_deref().unwrap_or("?")
                    ),
                },
                players: vec![d.challenger.name.clone(), d.challenged.name.clone()],
                turn: None,
                deadline: (d.stage == Stage::Challenged).then_some(d.answer_until),
            })
            .collect()
    }

    fn sample(script: &mut dyn crate::engine::game::Script) {
        sample::sample(script);
    }
}

/// Announces on the list.
fn announce(tx: &mut Tx<'_, Duel>, template: &str, values: serde_json::Value) {
    tx.mail(Mail::new(Audience::List, TAG, template, values));
}

/// Schedules a deadline of this game; the player who can miss it (the
/// challenged, for the answer) is reminded before it, as for every deadline.
fn schedule(
    tx: &mut Tx<'_, Duel>,
    id: String,
    at: Timestamp,
    owner: &str,
    who: Option<PlayerId>,
    what: String,
) {
    tx.record_shared(SharedEvent::Schedule(calendar::Event::Scheduled {
        deadline: Deadline {
            id,
            at,
            owner: owner.to_owned(),
            remind: who.is_some(),
            who,
            what,
        },
    }));
}

/// A short human time, for the sentences.
fn when(at: Timestamp) -> String {
    human_time(at)
}
