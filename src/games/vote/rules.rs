//! Opening, voting, closing and resolving a ballot: the checks, then the events
//! recorded into the transaction as they are decided (to the ballots, the sealed
//! box and the schedule). No vote reaches a public mail before the reveal.

use serde_json::json;

use super::game::Vote;
use super::{Ballot, Choice, Command, Event, TAG, Tally, Votes, batch_id, reminder_id};
use crate::engine::calendar::{self, Deadline};
use crate::engine::game::{SharedEvent, Tx};
use crate::engine::players::PlayerId;
use crate::engine::sealed::{self, SealError, Stage};
use crate::engine::{Address, Audience, Ctx, Mail, Refusal, Sentence, human_time};

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

fn schedule(tx: &mut Tx<'_, Vote>, event: calendar::Event) {
    tx.record_shared(SharedEvent::Schedule(event));
}

/// Carries out one command, recording into `tx` as it goes; on a refusal the
/// router drops the transaction with whatever it holds.
pub(super) fn apply(
    tx: &mut Tx<'_, Vote>,
    command: Command,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    match command {
        Command::Open { .. } | Command::Close { .. } if !tx.view().is_moderator(&ctx.sender) => {
            Err(Sentence::new("moderators_only").into())
        }
        Command::Open { question } => open(tx, &question, ctx),
        Command::Vote { number, choice } => vote(tx, number, choice, ctx),
        Command::Close { number, reason } => close(tx, number, &reason, ctx),
        Command::Ballots => {
            Ok(Sentence::new("vote_ballots").arg("ballots", listed(tx.state().open_ballots())))
        }
    }
}

fn open(tx: &mut Tx<'_, Vote>, question: &str, ctx: &Ctx) -> Result<Sentence, Refusal> {
    let params = tx.params();
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
    let votes = tx.state();
    let number = votes
        .ballots
        .iter()
        .map(|b| b.number)
        .max()
        .unwrap_or(0)
        .max(votes.opened)
        + 1;
    let batch = batch_id(number);
    let opened = tx
        .view()
        .sealed
        .open_titled(&batch, TAG, &format!("ballot {number}"), deadline)
        .map_err(|e| box_error(&e))?;
    tx.record(Event::Opened {
        number,
        question: question.to_owned(),
        opened_by: ctx.sender.clone(),
        deadline,
    });
    tx.record_shared(SharedEvent::Sealed(opened));
    schedule(
        tx,
        calendar::Event::Scheduled {
            deadline: Deadline {
                id: batch.clone(),
                at: deadline,
                owner: TAG.to_owned(),
                who: None,
                what: format!("the result of ballot {number}"),
                remind: false,
            },
        },
    );
    // One deadline per player who can miss the vote, only so that the calendar
    // reminds them; voting cancels it.
    let reminded: Vec<PlayerId> = tx.view().players.active_at(ctx.now).map(|p| p.id).collect();
    for player in reminded {
        schedule(
            tx,
            calendar::Event::Scheduled {
                deadline: Deadline {
                    id: reminder_id(number, player),
                    at: deadline,
                    owner: TAG.to_owned(),
                    who: Some(player),
                    what: format!("your vote on ballot {number}"),
                    remind: true,
                },
            },
        );
    }
    tx.mail(Mail::new(
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
    ));
    Ok(Sentence::new("vote_opened")
        .arg("number", number)
        .arg("question", question)
        .arg("deadline", human_time(deadline)))
}

/// The ballot a vote is for: the one named, else the only one open.
fn ballot_for<'v>(
    votes: &'v Votes,
    number: Option<u32>,
    choice: Choice,
    ctx: &Ctx,
) -> Result<&'v Ballot, Refusal> {
    match number {
        Some(number) => votes.ballot(number).ok_or_else(|| no_such(votes, number)),
        None => {
            let open: Vec<&Ballot> = votes.open_ballots().collect();
            match open.as_slice() {
                [only] => Ok(*only),
                // Nothing open: a vote that just missed the latest ballot is told
                // it was late, and when the ballot closed, rather than "no ballot".
                [] => match votes.ballots.iter().max_by_key(|b| b.deadline) {
                    Some(last) if ctx.now >= last.deadline => Ok(last),
                    _ => Err(Sentence::new("vote_none_open").into()),
                },
                _ => Err(Sentence::new("vote_which")
                    .arg("choice", choice.as_str())
                    .arg("ballots", listed(open.into_iter()))
                    .into()),
            }
        }
    }
}

fn vote(
    tx: &mut Tx<'_, Vote>,
    number: Option<u32>,
    choice: Choice,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let view = tx.view();
    // Any player who has not left may vote, even on vacation or in Gaol: writing
    // in is taking part, and the rule text forbids neither.
    let player = view.players.active_by_address(&ctx.sender).ok_or_else(|| {
        Refusal(Sentence::new("not_a_player").arg("address", ctx.sender.as_str()))
    })?;
    // A secret vote sent to the list is no longer secret: it is refused so that
    // no one is misled into thinking the list copy was the sealed one.
    if ctx.public {
        return Err(Sentence::new("vote_public").into());
    }
    let ballot = ballot_for(tx.state(), number, choice, ctx)?;
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
    let already_voted = view
        .sealed
        .batch(&batch)
        .is_some_and(|b| b.actions.iter().any(|a| a.player == player.id));
    // Only each player's last vote counts: a new one replaces eir earlier one.
    let sealed_event = view
        .sealed
        .seal_choice(
            &batch,
            player.id,
            &player.name,
            choice.as_str(),
            Some(replaced_by(player.id)),
            ctx.now,
            &ctx.entropy,
        )
        .map_err(|e| match e {
            SealError::Closed(_) => late(),
            other => box_error(&other),
        })?;
    let (ballot_number, deadline, player_id) = (ballot.number, ballot.deadline, player.id);
    tx.record_shared(SharedEvent::Sealed(sealed_event));
    // The reminder goes with the first vote; a change of mind has none left.
    if !already_voted {
        schedule(
            tx,
            calendar::Event::Cancelled {
                id: reminder_id(ballot_number, player_id),
            },
        );
    }
    // Invariant (guarantee 4): no mail. The answer goes to the voter alone.
    Ok(Sentence::new("vote_sealed")
        .arg("number", ballot_number)
        .arg("choice", choice.as_str())
        .arg("deadline", human_time(deadline))
        .arg("changed", already_voted))
}

fn close(tx: &mut Tx<'_, Vote>, number: u32, reason: &str, ctx: &Ctx) -> Result<Sentence, Refusal> {
    let votes = tx.state();
    let ballot = votes.ballot(number).ok_or_else(|| no_such(votes, number))?;
    if ballot.closed.is_some() {
        return Err(Sentence::new("vote_already_closed")
            .arg("number", number)
            .into());
    }
    // Who voted, and so holds no reminder; read before the reveal changes the batch.
    let view = tx.view();
    let voted: Vec<PlayerId> = view
        .sealed
        .batch(&batch_id(number))
        .map(|b| b.actions.iter().map(|a| a.player).collect())
        .unwrap_or_default();
    let not_voted: Vec<PlayerId> = view
        .players
        .players
        .iter()
        .map(|p| p.id)
        .filter(|id| !voted.contains(id))
        .collect();
    let tally = resolve(tx, number, Some((&ctx.sender, reason))).unwrap_or_default();
    // The ballot's own deadline must not fire later, and no one should be
    // reminded of a vote that is over. Every player who has not voted gets a
    // cancellation; one for a player who was never reminded is a no-op, so the
    // schedule need not be searched.
    schedule(
        tx,
        calendar::Event::Cancelled {
            id: batch_id(number),
        },
    );
    for player in not_voted {
        schedule(
            tx,
            calendar::Event::Cancelled {
                id: reminder_id(number, player),
            },
        );
    }
    Ok(Sentence::new("vote_closed")
        .arg("number", number)
        .arg("yes", tally.yes)
        .arg("no", tally.no)
        .arg("reason", reason))
}

fn no_such(votes: &Votes, number: u32) -> Refusal {
    // A resolved ballot whose record is history now: closed, not unknown.
    if number >= 1 && number <= votes.opened {
        return Refusal(Sentence::new("vote_already_closed").arg("number", number));
    }
    Refusal(
        Sentence::new("vote_no_such_ballot")
            .arg("number", number)
            .arg("ballots", listed(votes.open_ballots())),
    )
}

/// A ballot's deadline fired (owner "vote", deadline id "vote:N"), or a
/// moderator forced it (`forced`: who, and why): reveal the votes and tally them.
/// Returns the tally recorded.
///
/// Mail order is the sealed box's promise: the commitments (published here only
/// if the box has not yet done it, i.e. on a forced close before the deadline),
/// then the reveal, then the result. Each stage is recorded before the next is
/// asked for, since the box's later stages need the earlier ones applied. A
/// ballot unknown or already resolved records nothing, so a repeated firing is
/// harmless.
pub(super) fn resolve(
    tx: &mut Tx<'_, Vote>,
    number: u32,
    forced: Option<(&Address, &str)>,
) -> Option<Tally> {
    let ballot = tx
        .state()
        .ballot(number)
        .filter(|b| b.closed.is_none())?
        .clone();
    let batch_name = batch_id(number);
    let sealed = tx.view().sealed;
    if sealed
        .batch(&batch_name)
        .is_some_and(|b| b.stage == Stage::Open)
        && let Ok((event, mut mail)) = sealed.commit(&batch_name)
    {
        sealed.mark_closed_at(&batch_name, &mut mail, tx.at());
        tx.record_shared(SharedEvent::Sealed(event));
        tx.mail(mail);
    }
    // Only each player's last vote counts: the reveal marks the ones replaced.
    let sealed = tx.view().sealed;
    if let Ok((event, mut mail)) =
        sealed.reveal_replacing(&batch_name, |vote| Some(replaced_by(vote.player)))
    {
        sealed.mark_closed_at(&batch_name, &mut mail, tx.at());
        tx.record_shared(SharedEvent::Sealed(event));
        tx.mail(mail);
    }
    let view = tx.view();
    let tally = tally(
        view.sealed
            .batch(&batch_name)
            .into_iter()
            .flat_map(|b| b.actions.iter()),
        forced,
    );
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "vote_result",
        json!({
            "number": number,
            "question": ballot.question,
            "opened_by": ballot.opened_by,
            "opened_at": human_time(ballot.opened_at),
            "deadline": human_time(ballot.deadline),
            "at": human_time(tx.at()),
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
    tx.record(Event::Closed {
        number,
        tally: tally.clone(),
    });
    Some(tally)
}

/// The choice a vote makes (`Sealed::choice`): a ballot has a batch of its
/// own, so the player alone.
fn replaced_by(player: PlayerId) -> String {
    player.to_string()
}

/// The tally of the revealed actions: only each player's last vote counts.
fn tally<'a>(
    actions: impl DoubleEndedIterator<Item = &'a sealed::Sealed>,
    forced: Option<(&Address, &str)>,
) -> Tally {
    // The last action per player, found by walking back from the end.
    let mut last: Vec<&sealed::Sealed> = Vec::new();
    for action in actions.rev() {
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
