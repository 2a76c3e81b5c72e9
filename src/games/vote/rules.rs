//! Opening, voting, closing and resolving a ballot: the checks, the sealed box's
//! changes and the schedule's. No vote reaches a public mail before the reveal.

use serde_json::json;

use super::{
    Ballot, Change, Choice, Command, Event, Params, TAG, Tally, Votes, batch_id, reminder_id,
};
use crate::engine::calendar::{self, Deadline};
use crate::engine::players::{PlayerId, Registry};
use crate::engine::sealed::{self, SealError, SealedBox, Stage};
use crate::engine::{Address, Audience, Ctx, Done, Mail, Refusal, Sentence, Timestamp, human_time};

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

pub(super) fn box_error(error: &SealError) -> Refusal {
    Refusal(Sentence::new("vote_box_error").arg("error", error.to_string()))
}

impl Votes {
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
        let number = self
            .ballots
            .iter()
            .map(|b| b.number)
            .max()
            .unwrap_or(0)
            .max(self.opened)
            + 1;
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
        // A resolved ballot whose record is history now: closed, not unknown.
        if number >= 1 && number <= self.opened {
            return Refusal(Sentence::new("vote_already_closed").arg("number", number));
        }
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
