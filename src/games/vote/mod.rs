//! The `[vote]` game: secret ballots by mail, the first game built on sealed
//! actions and scheduled deadlines.
//!
//! A moderator opens a ballot on a question; each player votes yes or no by
//! private mail, sealed in the ballot's batch of the sealed box (only the last vote
//! of a player counts, so anyone may change their mind until the deadline); at the
//! deadline the box publishes the commitments, then the ballot reveals every vote
//! and announces the tally. A moderator may force a resolution early, with a
//! reason, and the result says so (DESIGN.md guarantee 5).
//!
//! Pure, like the engine: the time, the sender and the entropy come in through
//! `Ctx`, and a command returns `Change`s — to this game, the sealed box and the
//! schedule — that the router records. No vote ever reaches a public mail before
//! the reveal (guarantee 4): a vote is answered privately and sends no mail.
//!
//! Identifiers: ballot N seals into batch `vote:N`, its deadline is `vote:N`, and
//! the reminder of player ID is the deadline `vote:N:player:ID`.

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::engine::calendar::{self, Deadline};
use crate::engine::players::{PlayerId, Registry};
use crate::engine::sealed::{self, SealError, SealedBox, Stage};
use crate::engine::{
    Address, Audience, Ctx, Done, Mail, NotUnderstood, Refusal, Sentence, Timestamp, human_time,
    split_verb,
};

pub const TAG: &str = "vote";

/// The numbers of `[vote]`, from bot.toml.
#[derive(Debug, Clone)]
pub struct Params {
    /// How long a ballot is open, in days of 24 hours.
    pub days: i64,
}

impl Default for Params {
    fn default() -> Params {
        Params { days: 3 }
    }
}

/// Every ballot ever opened, open or resolved.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Votes {
    pub ballots: Vec<Ballot>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ballot {
    pub number: u32,
    pub question: String,
    pub opened_by: Address,
    pub opened_at: Timestamp,
    pub deadline: Timestamp,
    /// Set when the ballot is resolved, at its deadline or by a moderator.
    pub closed: Option<Tally>,
}

/// The result of a resolved ballot.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    pub yes: u32,
    pub no: u32,
    /// The names of the players whose vote counted, alphabetically.
    pub voters: Vec<String>,
    /// The moderator who forced the resolution before the deadline, if one did.
    pub forced_by: Option<String>,
    /// The moderator's reason for forcing it.
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Opened {
        number: u32,
        question: String,
        opened_by: Address,
        deadline: Timestamp,
    },
    Closed {
        number: u32,
        tally: Tally,
    },
}

/// Every change a command or a resolution makes, across the services it uses; the
/// router maps each to the World's event enum.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    Vote(Event),
    Sealed(sealed::Event),
    Schedule(calendar::Event),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Choice {
    Yes,
    No,
}

impl Choice {
    /// The sealed action's text: what the reveal shows and the tally reads back.
    pub fn as_str(self) -> &'static str {
        match self {
            Choice::Yes => "yes",
            Choice::No => "no",
        }
    }

    fn from_word(word: &str) -> Option<Choice> {
        match word.to_lowercase().as_str() {
            "yes" | "aye" => Some(Choice::Yes),
            "no" | "nay" => Some(Choice::No),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// A moderator's: a new ballot on `question`.
    Open { question: String },
    /// A player's secret vote; `number` may be left out when one ballot is open.
    Vote { number: Option<u32>, choice: Choice },
    /// A moderator's override: resolve ballot `number` now, for `reason`.
    Close { number: u32, reason: String },
    /// The open ballots and their deadlines.
    Ballots,
}

const COMMANDS: &str = "yes, no, N yes, N no, vote N yes, ballots, help (moderators: open QUESTION, close N because REASON)";

/// A ballot number as written: `3` or `#3`.
fn ballot_number(word: &str) -> Option<u32> {
    word.strip_prefix('#').unwrap_or(word).parse().ok()
}

/// Reads one `[vote]` command line: "open Should rule 326 pass?", "yes", "no",
/// "3 yes", "vote 3 no", "close 3 because REASON", "ballots".
pub fn parse(line: &str) -> Result<Command, NotUnderstood> {
    let (verb, rest) = split_verb(line);
    let usage = |usage: &str| NotUnderstood(Sentence::new("usage").arg("usage", usage));
    match verb.as_str() {
        "open" if !rest.is_empty() => Ok(Command::Open {
            question: rest.split_whitespace().collect::<Vec<_>>().join(" "),
        }),
        "open" => Err(usage("open QUESTION")),
        "ballots" | "ballot" if rest.is_empty() => Ok(Command::Ballots),
        "close" => {
            let (number, reason) = rest
                .split_once(" because ")
                .map(|(number, reason)| (ballot_number(number.trim()), reason.trim()))
                .ok_or_else(|| usage("close N because REASON"))?;
            match number {
                // The reason is required: an override is announced with it.
                Some(number) if !reason.is_empty() => Ok(Command::Close {
                    number,
                    reason: reason.to_owned(),
                }),
                _ => Err(usage("close N because REASON")),
            }
        }
        _ => parse_vote(line).ok_or_else(|| {
            NotUnderstood(
                Sentence::new("unknown_command")
                    .arg("tag", TAG)
                    .arg("commands", COMMANDS),
            )
        }),
    }
}

/// `[vote] [N] CHOICE`.
fn parse_vote(line: &str) -> Option<Command> {
    let mut words: Vec<&str> = line.split_whitespace().collect();
    if words
        .first()
        .is_some_and(|word| word.eq_ignore_ascii_case("vote"))
    {
        words.remove(0);
    }
    match words.as_slice() {
        [choice] => Some(Command::Vote {
            number: None,
            choice: Choice::from_word(choice)?,
        }),
        [number, choice] => Some(Command::Vote {
            number: Some(ballot_number(number)?),
            choice: Choice::from_word(choice)?,
        }),
        _ => None,
    }
}

/// The batch and the deadline of ballot `number`.
pub fn batch_id(number: u32) -> String {
    format!("vote:{number}")
}

/// The reminder deadline of `player` on ballot `number`.
pub fn reminder_id(number: u32, player: PlayerId) -> String {
    format!("vote:{number}:player:{player}")
}

/// The ballot a fired deadline resolves: `Some(N)` for `vote:N`, `None` for a
/// player's reminder deadline (`vote:N:player:ID`), which resolves nothing.
pub fn ballot_of_deadline(id: &str) -> Option<u32> {
    id.strip_prefix("vote:")?.parse().ok()
}

/// Open ballots as the sentences list them.
fn listed<'a>(ballots: impl Iterator<Item = &'a Ballot>) -> Vec<serde_json::Value> {
    ballots
        .map(|b| {
            json!({
                "number": b.number,
                "question": b.question,
                "deadline": human_time(b.deadline),
            })
        })
        .collect()
}

fn box_error(error: &SealError) -> Refusal {
    Refusal(Sentence::new("vote_box_error").arg("error", error.to_string()))
}

impl Votes {
    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        match event {
            Event::Opened {
                number,
                question,
                opened_by,
                deadline,
            } => {
                if self.ballot(*number).is_none() {
                    self.ballots.push(Ballot {
                        number: *number,
                        question: question.clone(),
                        opened_by: opened_by.clone(),
                        opened_at: at,
                        deadline: *deadline,
                        closed: None,
                    });
                }
            }
            Event::Closed { number, tally } => {
                if let Some(ballot) = self.ballots.iter_mut().find(|b| b.number == *number) {
                    ballot.closed = Some(tally.clone());
                }
            }
        }
    }

    pub fn ballot(&self, number: u32) -> Option<&Ballot> {
        self.ballots.iter().find(|b| b.number == number)
    }

    /// The ballots not yet resolved, in the order opened.
    pub fn open_ballots(&self) -> impl Iterator<Item = &Ballot> {
        self.ballots.iter().filter(|b| b.closed.is_none())
    }

    pub fn apply(
        &self,
        command: Command,
        ctx: &Ctx,
        players: &Registry,
        sealed: &SealedBox,
        params: &Params,
        is_moderator: bool,
    ) -> Result<Done<Change>, Refusal> {
        match command {
            Command::Open { .. } | Command::Close { .. } if !is_moderator => {
                Err(Sentence::new("moderators_only").into())
            }
            Command::Open { question } => self.open(&question, ctx, players, sealed, params),
            Command::Vote { number, choice } => self.vote(number, choice, ctx, players, sealed),
            Command::Close { number, reason } => self.close(number, &reason, ctx, players, sealed),
            Command::Ballots => Ok(Done {
                events: Vec::new(),
                mail: Vec::new(),
                sentence: Sentence::new("vote_ballots").arg("ballots", listed(self.open_ballots())),
            }),
        }
    }

    fn open(
        &self,
        question: &str,
        ctx: &Ctx,
        players: &Registry,
        sealed: &SealedBox,
        params: &Params,
    ) -> Result<Done<Change>, Refusal> {
        // A zero or negative length would open a ballot that is already late; the
        // parameter is the moderators' to fix, so say which value is wrong.
        let deadline = params
            .days
            .checked_mul(24)
            .filter(|hours| *hours > 0)
            .and_then(|hours| {
                ctx.now
                    .checked_add(jiff::SignedDuration::from_hours(hours))
                    .ok()
            })
            .ok_or_else(|| Refusal(Sentence::new("vote_bad_days").arg("days", params.days)))?;
        let number = self.ballots.iter().map(|b| b.number).max().unwrap_or(0) + 1;
        let batch = batch_id(number);
        let opened = sealed
            .open(&batch, TAG, deadline)
            .map_err(|e| box_error(&e))?;
        let mut events = vec![
            Change::Vote(Event::Opened {
                number,
                question: question.to_owned(),
                opened_by: ctx.sender.clone(),
                deadline,
            }),
            Change::Sealed(opened),
            Change::Schedule(calendar::Event::Scheduled {
                deadline: Deadline {
                    id: batch.clone(),
                    at: deadline,
                    owner: TAG.to_owned(),
                    who: None,
                    what: format!("the result of ballot {number}"),
                    remind: false,
                },
            }),
        ];
        // One deadline per player who can miss the vote, only so that the calendar
        // reminds them; voting cancels it.
        events.extend(players.active_at(ctx.now).map(|player| {
            Change::Schedule(calendar::Event::Scheduled {
                deadline: Deadline {
                    id: reminder_id(number, player.id),
                    at: deadline,
                    owner: TAG.to_owned(),
                    who: Some(player.id),
                    what: format!("your vote on ballot {number}"),
                    remind: true,
                },
            })
        }));
        Ok(Done {
            events,
            mail: vec![Mail::new(
                Audience::List,
                TAG,
                "vote_opened",
                json!({
                    "number": number,
                    "question": question,
                    "opened_by": ctx.sender,
                    "at": human_time(ctx.now),
                    "deadline": human_time(deadline),
                    "days": params.days,
                }),
            )],
            sentence: Sentence::new("vote_opened")
                .arg("number", number)
                .arg("question", question)
                .arg("deadline", human_time(deadline)),
        })
    }

    fn vote(
        &self,
        number: Option<u32>,
        choice: Choice,
        ctx: &Ctx,
        players: &Registry,
        sealed: &SealedBox,
    ) -> Result<Done<Change>, Refusal> {
        // Any player who has not left may vote, even on vacation or in Gaol: writing
        // in is taking part, and the rule text forbids neither.
        let player = players.active_by_address(&ctx.sender).ok_or_else(|| {
            Refusal(Sentence::new("not_a_player").arg("address", ctx.sender.as_str()))
        })?;
        // A secret vote sent to the list is no longer secret: it is refused so that
        // no one is misled into thinking the list copy was the sealed one.
        if ctx.public {
            return Err(Sentence::new("vote_public").into());
        }
        let ballot = match number {
            Some(number) => self.ballot(number).ok_or_else(|| self.no_such(number))?,
            None => {
                let open: Vec<&Ballot> = self.open_ballots().collect();
                match open.as_slice() {
                    [only] => *only,
                    // Nothing open: a vote that just missed the latest ballot is told
                    // it was late, and when the ballot closed, rather than "no ballot".
                    [] => match self.ballots.iter().max_by_key(|b| b.deadline) {
                        Some(last) if ctx.now >= last.deadline => last,
                        _ => return Err(Sentence::new("vote_none_open").into()),
                    },
                    _ => {
                        return Err(Sentence::new("vote_which")
                            .arg("choice", choice.as_str())
                            .arg("ballots", listed(open.into_iter()))
                            .into());
                    }
                }
            }
        };
        let late = || {
            Refusal(
                Sentence::new("vote_late")
                    .arg("number", ballot.number)
                    .arg("deadline", human_time(ballot.deadline)),
            )
        };
        if ballot.closed.is_some() || ctx.now >= ballot.deadline {
            return Err(late());
        }
        let batch = batch_id(ballot.number);
        let already_voted = sealed
            .batch(&batch)
            .is_some_and(|b| b.actions.iter().any(|a| a.player == player.id));
        let sealed_event = sealed
            .seal(
                &batch,
                player.id,
                &player.name,
                choice.as_str(),
                ctx.now,
                &ctx.entropy,
            )
            .map_err(|e| match e {
                SealError::Closed(_) => late(),
                other => box_error(&other),
            })?;
        let mut events = vec![Change::Sealed(sealed_event)];
        // The reminder goes with the first vote; a change of mind has none left.
        if !already_voted {
            events.push(Change::Schedule(calendar::Event::Cancelled {
                id: reminder_id(ballot.number, player.id),
            }));
        }
        // Invariant (guarantee 4): no mail. The answer goes to the voter alone.
        Ok(Done {
            events,
            mail: Vec::new(),
            sentence: Sentence::new("vote_sealed")
                .arg("number", ballot.number)
                .arg("choice", choice.as_str())
                .arg("deadline", human_time(ballot.deadline))
                .arg("changed", already_voted),
        })
    }

    fn close(
        &self,
        number: u32,
        reason: &str,
        ctx: &Ctx,
        players: &Registry,
        sealed: &SealedBox,
    ) -> Result<Done<Change>, Refusal> {
        let ballot = self.ballot(number).ok_or_else(|| self.no_such(number))?;
        if ballot.closed.is_some() {
            return Err(Sentence::new("vote_already_closed")
                .arg("number", number)
                .into());
        }
        let (mut events, mail) = self.resolve(number, sealed, ctx.now, Some((&ctx.sender, reason)));
        let tally = events.iter().find_map(|change| match change {
            Change::Vote(Event::Closed { tally, .. }) => Some(tally.clone()),
            _ => None,
        });
        let tally = tally.unwrap_or_default();
        // The ballot's own deadline must not fire later, and no one should be
        // reminded of a vote that is over. The schedule is not at hand, so every
        // player who has not voted gets a cancellation; one for a player who was never
        // reminded is a no-op.
        events.push(Change::Schedule(calendar::Event::Cancelled {
            id: batch_id(number),
        }));
        let voted: Vec<PlayerId> = sealed
            .batch(&batch_id(number))
            .map(|b| b.actions.iter().map(|a| a.player).collect())
            .unwrap_or_default();
        events.extend(
            players
                .players
                .iter()
                .filter(|p| !voted.contains(&p.id))
                .map(|p| {
                    Change::Schedule(calendar::Event::Cancelled {
                        id: reminder_id(number, p.id),
                    })
                }),
        );
        Ok(Done {
            events,
            mail,
            sentence: Sentence::new("vote_closed")
                .arg("number", number)
                .arg("yes", tally.yes)
                .arg("no", tally.no)
                .arg("reason", reason),
        })
    }

    fn no_such(&self, number: u32) -> Refusal {
        Refusal(
            Sentence::new("vote_no_such_ballot")
                .arg("number", number)
                .arg("ballots", listed(self.open_ballots())),
        )
    }

    /// A ballot's deadline fired (owner "vote", deadline id "vote:N"), or a
    /// moderator forced it (`forced`: who, and why): reveal the votes and tally them.
    ///
    /// Mail order is the sealed box's promise: the commitments (published here only
    /// if the box has not yet done it, i.e. on a forced close before the deadline),
    /// then the reveal, then the result. A ballot unknown or already resolved gives
    /// nothing, so a repeated firing is harmless.
    pub fn resolve(
        &self,
        number: u32,
        sealed: &SealedBox,
        at: Timestamp,
        forced: Option<(&Address, &str)>,
    ) -> (Vec<Change>, Vec<Mail>) {
        let mut changes = Vec::new();
        let mut mail = Vec::new();
        let Some(ballot) = self.ballot(number).filter(|b| b.closed.is_none()) else {
            return (changes, mail);
        };
        let batch_name = batch_id(number);
        // The box's later stages need the earlier ones applied: work on a copy.
        let mut scratch = sealed.clone();
        if scratch
            .batch(&batch_name)
            .is_some_and(|b| b.stage == Stage::Open)
            && let Ok((event, one_mail)) = scratch.commit(&batch_name)
        {
            scratch.apply_event(&event);
            changes.push(Change::Sealed(event));
            mail.push(one_mail);
        }
        if let Ok((event, one_mail)) = scratch.reveal(&batch_name) {
            scratch.apply_event(&event);
            changes.push(Change::Sealed(event));
            mail.push(one_mail);
        }
        let tally = tally(
            scratch
                .batch(&batch_name)
                .map_or(&[][..], |b| b.actions.as_slice()),
            forced,
        );
        mail.push(Mail::new(
            Audience::List,
            TAG,
            "vote_result",
            json!({
                "number": number,
                "question": ballot.question,
                "opened_by": ballot.opened_by,
                "opened_at": human_time(ballot.opened_at),
                "deadline": human_time(ballot.deadline),
                "at": human_time(at),
                "yes": tally.yes,
                "no": tally.no,
                "majority": match tally.yes.cmp(&tally.no) {
                    std::cmp::Ordering::Greater => "yes",
                    std::cmp::Ordering::Less => "no",
                    std::cmp::Ordering::Equal => "tie",
                },
                "voters": tally.voters,
                "n_voters": tally.voters.len(),
                "forced": tally.forced_by.is_some(),
                "officer": tally.forced_by,
                "reason": tally.reason,
            }),
        ));
        changes.push(Change::Vote(Event::Closed { number, tally }));
        (changes, mail)
    }
}

/// The tally of the revealed actions: only each player's last vote counts.
fn tally(actions: &[sealed::Sealed], forced: Option<(&Address, &str)>) -> Tally {
    // The last action per player, found by walking back from the end.
    let mut last: Vec<&sealed::Sealed> = Vec::new();
    for action in actions.iter().rev() {
        if !last.iter().any(|seen| seen.player == action.player) {
            last.push(action);
        }
    }
    let count = |choice: Choice| {
        let n = last
            .iter()
            .filter(|a| a.action_text == choice.as_str())
            .count();
        u32::try_from(n).unwrap_or(u32::MAX)
    };
    let mut voters: Vec<String> = last.iter().map(|a| a.player_name.clone()).collect();
    voters.sort_by_key(|name| name.to_lowercase());
    Tally {
        yes: count(Choice::Yes),
        no: count(Choice::No),
        voters,
        forced_by: forced.map(|(officer, _)| officer.to_string()),
        reason: forced.map(|(_, reason)| reason.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::calendar::Schedule;
    use crate::engine::players::Event as PlayerEvent;
    use jiff::SignedDuration;
    use minijinja::{Environment, UndefinedBehavior};

    const MODERATOR: &str = "mod@x.org";

    fn ts(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    fn t0() -> Timestamp {
        ts("2026-05-01T12:00:00Z")
    }

    fn hours(n: i64) -> Timestamp {
        t0().checked_add(SignedDuration::from_hours(n)).unwrap()
    }

    /// Everything a vote touches, changed only through the recorded `Change`s.
    #[derive(Default)]
    struct World {
        votes: Votes,
        sealed: SealedBox,
        schedule: Schedule,
        players: Registry,
        /// Every sentence answered, to check each has a wording.
        sentences: Vec<Sentence>,
    }

    impl World {
        /// Alice (1), Bob (2) and Carol (3), active players.
        fn new() -> World {
            let mut world = World::default();
            for (id, name) in [(1, "Alice"), (2, "Bob"), (3, "Carol")] {
                world.players.apply_event(
                    &PlayerEvent::Joined {
                        id,
                        name: name.to_owned(),
                        address: Address::new(&format!("{}@x.org", name.to_lowercase())),
                    },
                    ts("2026-01-01T00:00:00Z"),
                );
            }
            world
        }

        fn record(&mut self, changes: &[Change], at: Timestamp) {
            for change in changes {
                match change {
                    Change::Vote(event) => self.votes.apply_event(event, at),
                    Change::Sealed(event) => self.sealed.apply_event(event),
                    Change::Schedule(event) => self.schedule.apply_event(event, at),
                }
            }
        }

        /// Applies a line as the router would; returns the done command's changes
        /// and mail, or the refusal's code.
        fn run(
            &mut self,
            sender: &str,
            public: bool,
            at: Timestamp,
            line: &str,
        ) -> Result<(Vec<Change>, Vec<Mail>), String> {
            let ctx = Ctx {
                now: at,
                sender: Address::new(sender),
                sender_name: None,
                public,
                entropy: [9; 32],
            };
            let command = parse(line).map_err(|NotUnderstood(s)| s.code)?;
            match self.votes.apply(
                command,
                &ctx,
                &self.players,
                &self.sealed,
                &Params::default(),
                sender == MODERATOR,
            ) {
                Ok(done) => {
                    self.sentences.push(done.sentence);
                    self.record(&done.events, at);
                    Ok((done.events, done.mail))
                }
                Err(Refusal(sentence)) => {
                    let code = sentence.code.clone();
                    self.sentences.push(sentence);
                    Err(code)
                }
            }
        }

        /// Ballot 1 on a question, opened by the moderator at t0.
        fn with_ballot() -> World {
            let mut world = World::new();
            world
                .run(MODERATOR, true, t0(), "open Should rule 326 pass?")
                .unwrap();
            world
        }

        /// What the router does when the clock reaches `at`: the sealed box commits
        /// first, then the schedule fires and each fired ballot deadline resolves.
        fn tick(&mut self, at: Timestamp) -> Vec<Mail> {
            let (events, mut mail) = self.sealed.tick(at);
            for event in &events {
                self.sealed.apply_event(event);
            }
            let (events, reminders) =
                self.schedule
                    .tick(at, SignedDuration::from_hours(24), &self.players, at);
            mail.extend(reminders);
            let fired = self.schedule.fired_in(&events);
            for event in &events {
                self.schedule.apply_event(event, at);
            }
            for deadline in fired {
                if let Some(number) = ballot_of_deadline(&deadline.id) {
                    let (changes, more) = self.votes.resolve(number, &self.sealed, at, None);
                    self.record(&changes, at);
                    mail.extend(more);
                }
            }
            mail
        }
    }

    fn templates(mail: &[Mail]) -> Vec<&str> {
        mail.iter().map(|m| m.template.as_str()).collect()
    }

    /// Renders a mail template of this game (or the sealed box's) the way the shell
    /// does, with undefined values an error.
    fn render(mail: &Mail) -> String {
        let source = match mail.template.as_str() {
            "vote_opened" => include_str!("../../../templates/vote_opened.txt"),
            "vote_result" => include_str!("../../../templates/vote_result.txt"),
            "sealed_commitments" => include_str!("../../../templates/sealed_commitments.txt"),
            "sealed_reveal" => include_str!("../../../templates/sealed_reveal.txt"),
            other => panic!("no template {other}"),
        };
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.add_template("t", source).unwrap();
        let text = env
            .get_template("t")
            .unwrap()
            .render(minijinja::Value::from(minijinja::value::Serde(
                &mail.values,
            )))
            .unwrap();
        assert!(text.starts_with("Subject: "), "{text}");
        text
    }

    #[test]
    fn parse_forms() {
        let vote = |number, choice| Ok(Command::Vote { number, choice });
        assert_eq!(parse("yes"), vote(None, Choice::Yes));
        assert_eq!(parse("NO"), vote(None, Choice::No));
        assert_eq!(parse("3 yes"), vote(Some(3), Choice::Yes));
        assert_eq!(parse("vote 3 no"), vote(Some(3), Choice::No));
        assert_eq!(parse("vote #12 yes"), vote(Some(12), Choice::Yes));
        assert_eq!(parse("vote no"), vote(None, Choice::No));
        assert_eq!(
            parse("open Should  rule 326 pass?"),
            Ok(Command::Open {
                question: "Should rule 326 pass?".to_owned()
            })
        );
        assert_eq!(
            parse("close 3 because the rule was repealed"),
            Ok(Command::Close {
                number: 3,
                reason: "the rule was repealed".to_owned()
            })
        );
        assert_eq!(parse("ballots"), Ok(Command::Ballots));
        for (line, code) in [
            ("open", "usage"),
            ("close 3", "usage"),
            ("close x because y", "usage"),
            ("close 3 because ", "usage"),
            ("maybe", "unknown_command"),
            ("3 maybe", "unknown_command"),
            ("x yes", "unknown_command"),
            ("vote 3 yes please", "unknown_command"),
            ("", "unknown_command"),
        ] {
            assert_eq!(
                parse(line).map_err(|e| e.0.code),
                Err(code.to_owned()),
                "{line:?}"
            );
        }
        assert_eq!(ballot_of_deadline("vote:7"), Some(7));
        assert_eq!(ballot_of_deadline("vote:7:player:2"), None);
        assert_eq!(ballot_of_deadline("ghost:7"), None);
    }

    #[test]
    fn only_a_moderator_opens_a_ballot() {
        let mut world = World::new();
        assert_eq!(
            world.run("alice@x.org", true, t0(), "open Cake?"),
            Err("moderators_only".to_owned())
        );
        assert_eq!(
            world.run("alice@x.org", false, t0(), "close 1 because I said so"),
            Err("moderators_only".to_owned())
        );
        assert!(world.votes.ballots.is_empty());
    }

    #[test]
    fn opening_schedules_the_deadline_and_a_reminder_per_active_player() {
        let mut world = World::new();
        // Carol is on vacation: not an active player, so not reminded.
        world.players.apply_event(
            &PlayerEvent::VacationStarted {
                id: 3,
                until: hours(24 * 30),
            },
            t0(),
        );
        let (changes, mail) = world
            .run(MODERATOR, true, t0(), "open Should rule 326 pass?")
            .unwrap();
        let deadline = hours(72);
        assert_eq!(
            changes[0],
            Change::Vote(Event::Opened {
                number: 1,
                question: "Should rule 326 pass?".to_owned(),
                opened_by: Address::new(MODERATOR),
                deadline,
            })
        );
        assert_eq!(
            changes[1],
            Change::Sealed(sealed::Event::Opened {
                batch: "vote:1".to_owned(),
                owner: "vote".to_owned(),
                deadline,
            })
        );
        let scheduled: Vec<(String, Option<PlayerId>, bool)> = world
            .schedule
            .entries
            .iter()
            .map(|e| (e.deadline.id.clone(), e.deadline.who, e.deadline.remind))
            .collect();
        assert_eq!(
            scheduled,
            [
                ("vote:1".to_owned(), None, false),
                ("vote:1:player:1".to_owned(), Some(1), true),
                ("vote:1:player:2".to_owned(), Some(2), true),
            ]
        );
        assert!(
            world
                .schedule
                .entries
                .iter()
                .all(|e| e.deadline.at == deadline && e.deadline.owner == "vote")
        );
        assert_eq!(templates(&mail), ["vote_opened"]);
        assert_eq!(mail[0].to, Audience::List);
        let text = render(&mail[0]);
        assert!(text.contains("Should rule 326 pass?"), "{text}");
        assert!(text.contains("2026-05-04 12:00 UTC"), "{text}");
        // The next ballot takes the next number; the reminder is due 24 hours before.
        world.run(MODERATOR, true, t0(), "open Cake?").unwrap();
        assert_eq!(world.votes.ballots[1].number, 2);
        assert_eq!(
            world.schedule.next_due(SignedDuration::from_hours(24)),
            Some(hours(48))
        );
    }

    #[test]
    fn a_vote_to_the_list_or_from_a_stranger_is_refused() {
        let mut world = World::with_ballot();
        assert_eq!(
            world.run("alice@x.org", true, hours(1), "1 yes"),
            Err("vote_public".to_owned())
        );
        assert_eq!(
            world.run("mallory@x.org", false, hours(1), "yes"),
            Err("not_a_player".to_owned())
        );
        assert!(world.sealed.batch("vote:1").unwrap().actions.is_empty());
    }

    #[test]
    fn a_late_vote_is_refused_naming_the_deadline() {
        let mut world = World::with_ballot();
        assert_eq!(
            world.run("alice@x.org", false, hours(72), "yes"),
            Err("vote_late".to_owned())
        );
        let refusal = world.sentences.last().unwrap();
        assert_eq!(refusal.args["deadline"], "2026-05-04 12:00 UTC");
        assert_eq!(refusal.args["number"], 1);
        // After the resolution too.
        world.tick(hours(72));
        assert_eq!(
            world.run("alice@x.org", false, hours(73), "1 yes"),
            Err("vote_late".to_owned())
        );
    }

    #[test]
    fn a_vote_seals_privately_and_cancels_the_reminder() {
        let mut world = World::with_ballot();
        let (changes, mail) = world.run("bob@x.org", false, hours(1), "no").unwrap();
        assert!(mail.is_empty(), "a vote sends no mail");
        match &changes[0] {
            Change::Sealed(sealed::Event::Sealed { batch, sealed }) => {
                assert_eq!(batch, "vote:1");
                assert_eq!(sealed.action_text, "no");
                assert_eq!(sealed.player, 2);
                assert_eq!(sealed.player_name, "Bob");
            }
            other => panic!("not a sealed action: {other:?}"),
        }
        assert_eq!(
            changes[1],
            Change::Schedule(calendar::Event::Cancelled {
                id: "vote:1:player:2".to_owned()
            })
        );
        assert!(world.schedule.get("vote:1:player:2").is_none());
        assert!(world.schedule.get("vote:1:player:1").is_some());
        let sentence = world.sentences.last().unwrap();
        assert_eq!(sentence.code, "vote_sealed");
        assert_eq!(sentence.args["choice"], "no");
        // Only Alice and Carol are reminded, 24 hours before.
        let reminders = world.tick(hours(48));
        let to: Vec<&Audience> = reminders.iter().map(|m| &m.to).collect();
        assert_eq!(
            to,
            [
                &Audience::Address(Address::new("alice@x.org")),
                &Audience::Address(Address::new("carol@x.org"))
            ]
        );
    }

    #[test]
    fn the_last_vote_counts_and_the_tally_is_right_after_the_deadline() {
        let mut world = World::with_ballot();
        world.run("alice@x.org", false, hours(1), "yes").unwrap();
        world.run("bob@x.org", false, hours(2), "1 yes").unwrap();
        // Alice changes her mind; no second cancellation is needed.
        let (changes, _) = world
            .run("alice@x.org", false, hours(3), "vote 1 no")
            .unwrap();
        assert_eq!(changes.len(), 1);
        assert_eq!(world.sentences.last().unwrap().args["changed"], true);
        let mail = world.tick(hours(72));
        assert_eq!(
            templates(&mail),
            ["sealed_commitments", "sealed_reveal", "vote_result"]
        );
        let tally = world.votes.ballot(1).unwrap().closed.clone().unwrap();
        assert_eq!(
            tally,
            Tally {
                yes: 1,
                no: 1,
                voters: vec!["Alice".to_owned(), "Bob".to_owned()],
                forced_by: None,
                reason: None,
            }
        );
        assert_eq!(world.sealed.batch("vote:1").unwrap().stage, Stage::Revealed);
        assert!(world.schedule.entries.is_empty());
        let text = render(&mail[2]);
        assert!(text.contains("Should rule 326 pass?"), "{text}");
        assert!(!text.contains("forced"), "{text}");
        // The sealed box's own check passes on the archived mails.
        let body = |m: &Mail| render(m).split_once('\n').unwrap().1.to_owned();
        assert_eq!(
            sealed::verify_sealed(&body(&mail[0]), &body(&mail[1])),
            Ok(3)
        );
        // A second firing changes nothing.
        let (changes, mail) = world.votes.resolve(1, &world.sealed, hours(72), None);
        assert!(changes.is_empty() && mail.is_empty());
    }

    #[test]
    fn a_forced_close_commits_before_it_reveals_and_names_the_officer() {
        let mut world = World::with_ballot();
        world.run("alice@x.org", false, hours(1), "yes").unwrap();
        let (changes, mail) = world
            .run(
                MODERATOR,
                false,
                hours(5),
                "close 1 because the rule was repealed",
            )
            .unwrap();
        assert_eq!(
            templates(&mail),
            ["sealed_commitments", "sealed_reveal", "vote_result"]
        );
        assert!(matches!(
            changes[0],
            Change::Sealed(sealed::Event::Committed { .. })
        ));
        assert!(matches!(
            changes[1],
            Change::Sealed(sealed::Event::Revealed { .. })
        ));
        let tally = world.votes.ballot(1).unwrap().closed.clone().unwrap();
        assert_eq!((tally.yes, tally.no), (1, 0));
        assert_eq!(tally.forced_by.as_deref(), Some(MODERATOR));
        assert_eq!(tally.reason.as_deref(), Some("the rule was repealed"));
        let text = render(&mail[2]);
        assert!(text.contains(MODERATOR), "{text}");
        assert!(text.contains("the rule was repealed"), "{text}");
        // Nothing is left to fire or to remind.
        assert!(world.schedule.entries.is_empty());
        assert!(world.tick(hours(100)).is_empty());
        assert_eq!(
            world.run(MODERATOR, false, hours(6), "close 1 because again"),
            Err("vote_already_closed".to_owned())
        );
    }

    #[test]
    fn which_ballot_when_several_are_open() {
        let mut world = World::new();
        assert_eq!(
            world.run("alice@x.org", false, t0(), "yes"),
            Err("vote_none_open".to_owned())
        );
        world.run(MODERATOR, true, t0(), "open Cake?").unwrap();
        world.run(MODERATOR, true, t0(), "open Pie?").unwrap();
        assert_eq!(
            world.run("alice@x.org", false, hours(1), "yes"),
            Err("vote_which".to_owned())
        );
        assert_eq!(
            world.run("alice@x.org", false, hours(1), "9 yes"),
            Err("vote_no_such_ballot".to_owned())
        );
        world.run("alice@x.org", false, hours(1), "2 yes").unwrap();
        world
            .run("alice@x.org", false, hours(1), "ballots")
            .unwrap();
        let listed = &world.sentences.last().unwrap().args["ballots"];
        assert_eq!(listed.as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn every_sentence_has_a_wording() {
        let mut world = World::new();
        let _ = world.run("alice@x.org", false, t0(), "yes");
        let _ = world.run(MODERATOR, true, t0(), "open Cake?");
        let _ = world.run(MODERATOR, true, t0(), "open Pie?");
        let _ = world.run("alice@x.org", false, hours(1), "yes");
        let _ = world.run("alice@x.org", false, hours(1), "9 yes");
        let _ = world.run("alice@x.org", true, hours(1), "1 yes");
        let _ = world.run("alice@x.org", false, hours(1), "1 yes");
        let _ = world.run("alice@x.org", false, hours(1), "ballots");
        let _ = world.run(MODERATOR, false, hours(2), "close 1 because enough");
        let _ = world.run(MODERATOR, false, hours(2), "close 1 because enough");
        let _ = world.run("alice@x.org", false, hours(200), "2 no");
        let ctx = Ctx {
            now: t0(),
            sender: Address::new(MODERATOR),
            sender_name: None,
            public: true,
            entropy: [0; 32],
        };
        let bad_days = world.votes.apply(
            Command::Open {
                question: "x".to_owned(),
            },
            &ctx,
            &world.players,
            &world.sealed,
            &Params { days: 0 },
            true,
        );
        let Err(Refusal(bad_days)) = bad_days else {
            panic!("zero days accepted")
        };
        let mut sentences = world.sentences.clone();
        sentences.push(bad_days);
        sentences.push(box_error(&SealError::Exists("vote:1".to_owned())).0);
        let codes: Vec<&str> = sentences
            .iter()
            .map(|s| s.code.as_str())
            .filter(|c| c.starts_with("vote_"))
            .collect();
        for code in [
            "vote_opened",
            "vote_sealed",
            "vote_public",
            "vote_late",
            "vote_which",
            "vote_none_open",
            "vote_no_such_ballot",
            "vote_already_closed",
            "vote_closed",
            "vote_ballots",
            "vote_bad_days",
            "vote_box_error",
        ] {
            assert!(codes.contains(&code), "{code} not exercised");
        }
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.add_template(
            "sentences/vote.txt",
            include_str!("../../../templates/sentences/vote.txt"),
        )
        .unwrap();
        env.add_template(
            "t",
            "{% import \"sentences/vote.txt\" as vote %}{{ vote.sentence(s) }}",
        )
        .unwrap();
        for sentence in sentences.iter().filter(|s| s.code.starts_with("vote_")) {
            let text = env
                .get_template("t")
                .unwrap()
                .render(minijinja::context! { s => minijinja::Value::from(minijinja::value::Serde(sentence)) })
                .unwrap_or_else(|e| panic!("{}: {e:#}", sentence.code));
            assert!(!text.contains("[no wording"), "{text}");
            assert!(!text.trim().is_empty(), "{}", sentence.code);
        }
    }
}
