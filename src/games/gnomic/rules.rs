//! The commands and the count, clause by clause: the order of play (325), a
//! turn's post (304, 390, 108, 423, 371, 359, 402, 394), the secret votes (402,
//! 342, 105), and the count with its score update (322, 392, 109, 359, 205,
//! 304, 421, 372, 394, 204, 430, 310/431, 112). Each decision records its events
//! into the transaction as it is made. No vote reaches a public mail before the
//! count.

use std::collections::BTreeMap;

use jiff::SignedDuration;

use super::hack::{self, Hack};
use super::report;
use super::scoring::{self, Tally};
use super::{
    Choice, Command, Condition, CountedVote, Event, Gnomic, HackOutcome, Proposal, Reason,
    Sacrifice, Score, ScoreChange, State, TAG, Turn, TurnPost, TurnResult, Winner, batch_id,
};
use crate::engine::game::{SharedEvent, Tx, View};
use crate::engine::players::PlayerId;
use crate::engine::sealed::{SealError, Stage};
use crate::engine::{Audience, Ctx, Mail, Refusal, Sentence, human_time};

fn refuse(code: &str) -> Refusal {
    Refusal(Sentence::new(code))
}

pub(super) fn apply(
    tx: &mut Tx<'_, Gnomic>,
    command: Command,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    admit_newcomers(tx);
    match command {
        Command::Start if !tx.view().is_moderator(&ctx.sender) => {
            Err(Sentence::new("moderators_only").into())
        }
        Command::Start => start(tx, ctx),
        Command::Turn(post) => turn(tx, *post, ctx),
        Command::Vote { hack, choice } => vote(tx, hack, choice, ctx),
        Command::Greek { hack, count } => greek(tx, hack, count, ctx),
        Command::Status => Ok(Sentence::new("gnomic_status").arg(
            "status",
            report::status(tx.state(), &tx.view(), tx.params(), ctx.now),
        )),
    }
}

/// The players of the game who have not left, in the order of play: 325's
/// "alphabetical order by their 'name'", case aside.
pub(super) fn order(state: &State, view: &View<'_>) -> Vec<Score> {
    let mut seated: Vec<Score> = state
        .scores
        .iter()
        .filter_map(|score| {
            let player = view.players.by_id(score.player).filter(|p| p.is_active())?;
            Some(Score {
                name: player.name.clone(),
                ..score.clone()
            })
        })
        .collect();
    seated.sort_by_key(|s| (s.name.to_lowercase(), s.player));
    seated
}

/// Whose turn it is: the player after the last mover in alphabetical order
/// (by name, so a mover who left since still has a place), the first at the start.
pub(super) fn mover(state: &State, view: &View<'_>) -> Option<Score> {
    let order = order(state, view);
    let after = state.last_mover.as_ref().map(|name| name.to_lowercase());
    order
        .iter()
        .find(|s| {
            after
                .as_ref()
                .is_none_or(|last| s.name.to_lowercase() > *last)
        })
        .or(order.first())
        .cloned()
}

/// 325: a player who joined the nomic since the game began comes in "with
/// one-half the average score of the players in the game at that time", at most
/// 80% of the minimum, never below zero. The game's scores change only in its
/// own steps, so the first step after the join computes what the join would have.
fn admit_newcomers(tx: &mut Tx<'_, Gnomic>) {
    if tx.state().started_at.is_none() || tx.state().winner.is_some() {
        return;
    }
    let view = tx.view();
    let newcomers: Vec<(PlayerId, String)> = view
        .players
        .active()
        .filter(|p| tx.state().score(p.id).is_none())
        .map(|p| (p.id, p.name.clone()))
        .collect();
    for (player, name) in newcomers {
        let view = tx.view();
        let in_game: Vec<i64> = order(tx.state(), &view).iter().map(|s| s.points).collect();
        let points = scoring::starting_score(&tx.params().numbers, &in_game);
        tx.record(Event::Joined {
            player,
            name,
            points,
        });
    }
}

fn start(tx: &mut Tx<'_, Gnomic>, ctx: &Ctx) -> Result<Sentence, Refusal> {
    if let Some(open) = &tx.state().open {
        return Err(Sentence::new("gnomic_turn_open")
            .arg("turn", open.number)
            .arg("proponent", &open.proponent_name)
            .arg("deadline", human_time(open.deadline))
            .into());
    }
    let players: Vec<Score> = tx
        .view()
        .players
        .active()
        .map(|p| Score {
            player: p.id,
            name: p.name.clone(),
            points: 0,
        })
        .collect();
    tx.record(Event::Started {
        by: ctx.sender.clone(),
        players,
    });
    let view = tx.view();
    let order = order(tx.state(), &view);
    let first = order.first().map(|s| s.name.clone());
    let n = threshold(tx.state(), &view, tx.params());
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "gnomic_started",
        serde_json::json!({
            "by": ctx.signature(),
            "at": human_time(ctx.now),
            "order": order.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
            "first": first,
            "n": n,
            "next_ordinal": next_ordinal(tx.state(), &view, tx.params()),
            "vote_hours": tx.params().vote_hours,
        }),
    ));
    Ok(Sentence::new("gnomic_started")
        .arg(
            "order",
            order.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        )
        .arg("first", first))
}

/// 108: "The numbers shall begin with 301, and each rule change proposed in the
/// proper way shall receive the next successive integer": after every ordinal
/// given and every rule number in use or used.
pub(super) fn next_ordinal(state: &State, view: &View<'_>, params: &super::Params) -> u32 {
    let highest_rule = view.ruleset.next_free_number().saturating_sub(1);
    state
        .last_ordinal
        .max(highest_rule)
        .max(params.first_ordinal.saturating_sub(1))
        .saturating_add(1)
}

/// 310/431: n over the active players of the game (no bot players are refereed).
pub(super) fn threshold(state: &State, view: &View<'_>, params: &super::Params) -> i64 {
    let active: Vec<i64> = order(state, view)
        .iter()
        .filter(|s| {
            view.players
                .by_id(s.player)
                .is_some_and(|p| !p.inactive && p.vacation_until.is_none())
        })
        .map(|s| s.points)
        .collect();
    scoring::threshold(&params.numbers, &active)
}

/// 359: the most hacks that could take effect under any outcome of the votes.
fn most_that_can_pass(proposals: &[Proposal]) -> usize {
    let k = proposals.len().min(16);
    (0u32..(1 << k))
        .map(|mask| {
            let mut effective: BTreeMap<u32, bool> = BTreeMap::new();
            for (i, proposal) in proposals.iter().take(k).enumerate() {
                let voted = mask & (1 << i) != 0;
                let met = condition_met(proposal.condition, &effective);
                effective.insert(proposal.hack.number, voted && met);
            }
            effective.values().filter(|e| **e).count()
        })
        .max()
        .unwrap_or(0)
}

fn condition_met(condition: Option<Condition>, effective: &BTreeMap<u32, bool>) -> bool {
    condition.is_none_or(|c| effective.get(&c.hack).copied().unwrap_or(false) == c.adopted)
}

fn turn(tx: &mut Tx<'_, Gnomic>, post: TurnPost, ctx: &Ctx) -> Result<Sentence, Refusal> {
    let params = tx.params();
    let state = tx.state();
    if state.started_at.is_none() {
        return Err(refuse("gnomic_not_started"));
    }
    if let Some(winner) = &state.winner {
        return Err(Sentence::new("gnomic_won")
            .arg("winner", &winner.name)
            .arg("points", winner.points)
            .into());
    }
    let view = tx.view();
    let player = view.players.active_by_address(&ctx.sender).ok_or_else(|| {
        Refusal(Sentence::new("not_a_player").arg("address", ctx.sender.as_str()))
    })?;
    if let Some(open) = &state.open {
        return Err(Sentence::new("gnomic_turn_open")
            .arg("turn", open.number)
            .arg("proponent", &open.proponent_name)
            .arg("deadline", human_time(open.deadline))
            .into());
    }
    // 325: "Turns may not be skipped or passed".
    let mover = mover(state, &view).ok_or_else(|| refuse("gnomic_not_started"))?;
    if mover.player != player.id {
        return Err(Sentence::new("gnomic_not_your_turn")
            .arg("mover", &mover.name)
            .into());
    }
    if let Some(line) = post.stray.first() {
        return Err(Sentence::new("gnomic_stray").arg("line", line).into());
    }
    let mut hacks: Vec<(Hack, Option<Condition>)> = Vec::new();
    for posted in post.hacks {
        match posted {
            Ok(posted) => hacks.push((posted.hack, posted.condition)),
            Err((header, error)) => return Err(error.sentence().arg("header", header).into()),
        }
    }
    if hacks.is_empty() {
        return Err(refuse("gnomic_no_hacks"));
    }
    if hacks.len() > params.max_hacks_per_post {
        return Err(Sentence::new("gnomic_too_many")
            .arg("count", hacks.len())
            .arg("allowed", params.max_hacks_per_post)
            .into());
    }
    // 390's sacrifice, paid with the post.
    let points = state.score(player.id).map_or(0, |s| s.points);
    let sacrifice = match post.sacrifice {
        Some(lambda) => {
            let made = scoring::sacrifice(&params.numbers, points, lambda).map_err(|e| {
                Refusal(Sentence::new("gnomic_sacrifice_refused").arg("why", e.to_string()))
            })?;
            Some(Sacrifice {
                lambda,
                nu: made.nu,
                mu: made.mu,
            })
        }
        None => None,
    };
    // 304 "between one and three", or 390's mu (docs/rulings.md).
    let allowed = match sacrifice {
        Some(s) => s.mu as usize,
        None if params.mu_without_sacrifice => 1,
        None => params.numbers.max_proposals as usize,
    };
    // 108: each hack the next ordinal, in the order posted.
    let first = next_ordinal(state, &view, params);
    for (index, (hack, _)) in hacks.iter().enumerate() {
        let expected = first.saturating_add(index as u32);
        if hack.number != expected {
            return Err(Sentence::new("gnomic_wrong_number")
                .arg("written", hack.number)
                .arg("expected", expected)
                .arg("title", &hack.title)
                .into());
        }
    }
    // 371.
    for (i, (a, _)) in hacks.iter().enumerate() {
        if let Some((b, _)) = hacks[i + 1..].iter().find(|(b, _)| hack::redundant(a, b)) {
            return Err(Sentence::new("gnomic_redundant")
                .arg("first", a.number)
                .arg("second", b.number)
                .into());
        }
    }
    let mut proposals: Vec<Proposal> = Vec::new();
    for (hack, condition) in hacks {
        // 423: what the bot cannot apply is refused now (and checked again at adoption).
        hack::adoption(&hack, view.ruleset)
            .map_err(|e| Refusal(e.sentence().arg("header", hack.number)))?;
        // 359: the condition names an earlier hack of the same post.
        if let Some(c) = condition
            && !proposals.iter().any(|p| p.hack.number == c.hack)
        {
            return Err(Sentence::new("gnomic_bad_condition")
                .arg("hack", hack.number)
                .arg("on", c.hack)
                .into());
        }
        proposals.push(Proposal {
            unanimity: hack::needs_unanimity(&hack, view.ruleset),
            hack,
            proponent_vote: Choice::For,
            condition,
            greek: None,
        });
    }
    let can_pass = most_that_can_pass(&proposals);
    if can_pass > allowed {
        return Err(Sentence::new("gnomic_too_many")
            .arg("count", can_pass)
            .arg("allowed", allowed)
            .arg("sacrifice", sacrifice.map(|s| s.lambda))
            .into());
    }
    for (number, choice) in post.own_votes {
        let proposal = proposals
            .iter_mut()
            .find(|p| p.hack.number == number)
            .ok_or_else(|| Refusal(Sentence::new("gnomic_unknown_hack").arg("hack", number)))?;
        proposal.proponent_vote = choice;
    }
    for (number, count) in post.greek {
        let proposal = proposals
            .iter_mut()
            .find(|p| p.hack.number == number)
            .ok_or_else(|| Refusal(Sentence::new("gnomic_unknown_hack").arg("hack", number)))?;
        proposal.greek = Some(greek_count(&proposal.hack, count)?);
    }
    let deadline = params
        .vote_hours
        .checked_mul(3600)
        .filter(|s| *s > 0)
        .and_then(|s| ctx.now.checked_add(SignedDuration::from_secs(s)).ok())
        .ok_or_else(|| {
            Refusal(Sentence::new("gnomic_bad_hours").arg("hours", params.vote_hours))
        })?;
    let number = state.turns.saturating_add(1);
    let opened = view
        .sealed
        .open(&batch_id(number), TAG, deadline)
        .map_err(|e| box_error(&e))?;
    let turn = Turn {
        number,
        proponent: player.id,
        proponent_name: player.name.clone(),
        posted_at: ctx.now,
        deadline,
        proposals,
        sacrifice,
        voted: Vec::new(),
        all_voted_at: None,
    };
    tx.record(Event::TurnPosted { turn: turn.clone() });
    tx.record_shared(SharedEvent::Sealed(opened));
    let voters: Vec<String> = voters(tx.state(), &tx.view(), &turn)
        .into_iter()
        .map(|s| s.name)
        .collect();
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "gnomic_turn",
        report::turn(&turn, &voters, tx.params()),
    ));
    // Alone in the game: nobody else to wait for.
    check_all_voted(tx);
    Ok(Sentence::new("gnomic_turn_posted")
        .arg("turn", number)
        .arg(
            "hacks",
            turn.proposals
                .iter()
                .map(|p| p.hack.number)
                .collect::<Vec<_>>(),
        )
        .arg("deadline", human_time(deadline)))
}

/// 394: the count confirmed is at most the distinct letters the text names.
fn greek_count(hack: &Hack, count: usize) -> Result<usize, Refusal> {
    let found = scoring::greek_letters(&hack.text);
    if count > found.len() {
        return Err(Sentence::new("gnomic_greek_too_many")
            .arg("hack", hack.number)
            .arg("count", count)
            .arg("letters", found)
            .into());
    }
    Ok(count)
}

/// Who votes on a turn's hacks by mail: every player of the game who has not
/// left, but the proponent, whose vote is in the post (402, 105).
pub(super) fn voters(state: &State, view: &View<'_>, turn: &Turn) -> Vec<Score> {
    order(state, view)
        .into_iter()
        .filter(|s| s.player != turn.proponent)
        .collect()
}

pub(super) fn box_error(error: &SealError) -> Refusal {
    Refusal(Sentence::new("gnomic_box_error").arg("error", error.to_string()))
}

fn vote(
    tx: &mut Tx<'_, Gnomic>,
    number: u32,
    choice: Choice,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let view = tx.view();
    let player = view.players.active_by_address(&ctx.sender).ok_or_else(|| {
        Refusal(Sentence::new("not_a_player").arg("address", ctx.sender.as_str()))
    })?;
    // A vote on the list is no longer secret (349, 402): refused, not counted.
    if ctx.public {
        return Err(refuse("gnomic_vote_public"));
    }
    let state = tx.state();
    let late = |last: &TurnResult| {
        Refusal(
            Sentence::new("gnomic_vote_late")
                .arg("hack", number)
                .arg("turn", last.turn),
        )
    };
    let Some(turn) = state.open.as_ref() else {
        return Err(match &state.last_result {
            Some(last) if last.outcomes.iter().any(|o| o.hack == number) => late(last),
            _ => refuse("gnomic_no_open_turn"),
        });
    };
    if !turn.proposals.iter().any(|p| p.hack.number == number) {
        return Err(Sentence::new("gnomic_not_in_turn")
            .arg("hack", number)
            .arg(
                "hacks",
                turn.proposals
                    .iter()
                    .map(|p| p.hack.number)
                    .collect::<Vec<_>>(),
            )
            .into());
    }
    if turn.proponent == player.id {
        return Err(Sentence::new("gnomic_own_hack").arg("hack", number).into());
    }
    if state.score(player.id).is_none() {
        return Err(Sentence::new("not_a_player")
            .arg("address", ctx.sender.as_str())
            .into());
    }
    // 342: in web mode, a vote within two minutes of the posting is ignored.
    let params = tx.params();
    if params.web_mode
        && ctx.now
            < turn
                .posted_at
                .checked_add(SignedDuration::from_secs(params.web_mode_root_seconds))
                .unwrap_or(turn.posted_at)
    {
        return Err(Sentence::new("gnomic_vote_too_soon")
            .arg("hack", number)
            .arg("seconds", params.web_mode_root_seconds)
            .into());
    }
    let changed = turn
        .voted
        .iter()
        .any(|v| v.hack == number && v.player == player.id);
    if changed && !params.votes_may_change {
        return Err(Sentence::new("gnomic_vote_final")
            .arg("hack", number)
            .into());
    }
    let batch = batch_id(turn.number);
    let sealed = view
        .sealed
        .seal(
            &batch,
            player.id,
            &player.name,
            &format!("{number} {}", choice.as_str()),
            ctx.now,
            &ctx.entropy,
        )
        .map_err(|e| match e {
            SealError::Closed(_) => Refusal(
                Sentence::new("gnomic_vote_late")
                    .arg("hack", number)
                    .arg("turn", turn.number),
            ),
            other => box_error(&other),
        })?;
    let (turn_number, deadline, proponent) = (turn.number, turn.deadline, turn.proponent);
    let (voter_id, voter_name) = (player.id, player.name.clone());
    tx.record_shared(SharedEvent::Sealed(sealed));
    tx.record(Event::Voted {
        turn: turn_number,
        hack: number,
        player: voter_id,
        name: voter_name.clone(),
    });
    // 402: "send their vote by e-mail to the player who made a given proposal":
    // the bot receives it and sends the proponent a copy, to em alone.
    if let Some(proponent) = tx.view().players.by_id(proponent) {
        tx.mail(Mail::new(
            Audience::Address(proponent.address.clone()),
            TAG,
            "gnomic_vote_copy",
            serde_json::json!({
                "voter": voter_name,
                "hack": number,
                "choice": choice.as_str(),
                "changed": changed,
                "turn": turn_number,
                "deadline": human_time(deadline),
            }),
        ));
    }
    check_all_voted(tx);
    // Invariant: no public mail. The answer goes to the voter alone.
    Ok(Sentence::new("gnomic_vote_sealed")
        .arg("hack", number)
        .arg("choice", choice.as_str())
        .arg("changed", changed)
        .arg("may_change", tx.params().votes_may_change)
        .arg("deadline", human_time(deadline)))
}

/// 402: "After all players have voted [...] the proponent shall post the votes":
/// when every voter has voted on every hack, the count is due at once.
pub(super) fn check_all_voted(tx: &mut Tx<'_, Gnomic>) {
    let Some(turn) = tx.state().open.clone() else {
        return;
    };
    if turn.all_voted_at.is_some() {
        return;
    }
    let voters = voters(tx.state(), &tx.view(), &turn);
    let all = voters.iter().all(|voter| {
        turn.proposals.iter().all(|p| {
            turn.voted
                .iter()
                .any(|v| v.player == voter.player && v.hack == p.hack.number)
        })
    });
    if all {
        tx.record(Event::AllVoted { turn: turn.number });
    }
}

fn greek(
    tx: &mut Tx<'_, Gnomic>,
    number: u32,
    count: usize,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let player = tx
        .view()
        .players
        .active_by_address(&ctx.sender)
        .map(|p| p.id)
        .ok_or_else(|| {
            Refusal(Sentence::new("not_a_player").arg("address", ctx.sender.as_str()))
        })?;
    let turn = tx
        .state()
        .open
        .as_ref()
        .ok_or_else(|| refuse("gnomic_no_open_turn"))?;
    let proposal = turn
        .proposals
        .iter()
        .find(|p| p.hack.number == number)
        .ok_or_else(|| Refusal(Sentence::new("gnomic_unknown_hack").arg("hack", number)))?;
    if turn.proponent != player {
        return Err(Sentence::new("gnomic_greek_not_yours")
            .arg("hack", number)
            .arg("proponent", &turn.proponent_name)
            .into());
    }
    let count = greek_count(&proposal.hack, count)?;
    let turn_number = turn.number;
    tx.record(Event::GreekConfirmed {
        turn: turn_number,
        hack: number,
        count,
    });
    Ok(Sentence::new("gnomic_greek_confirmed")
        .arg("hack", number)
        .arg("count", count))
}

/// The count of the open turn, when it is due: the commitments and the reveal of
/// the sealed votes (402: "the proponent shall post the votes"), each hack's
/// tally, the changes applied to the ruleset (205), the scores (304, 421, 372,
/// 394, 204, 322), and the score update (430) with n and the winner (310, 112).
pub(super) fn count(tx: &mut Tx<'_, Gnomic>) {
    let Some(turn) = tx.state().open.clone() else {
        return;
    };
    if tx.state().count_due().is_none_or(|due| due > tx.at()) {
        return;
    }
    let batch = batch_id(turn.number);
    let sealed = tx.view().sealed;
    if sealed.batch(&batch).is_some_and(|b| b.stage == Stage::Open)
        && let Ok((event, mail)) = sealed.commit(&batch)
    {
        tx.record_shared(SharedEvent::Sealed(event));
        tx.mail(mail);
    }
    let mut last: BTreeMap<(PlayerId, u32), Choice> = BTreeMap::new();
    if let Some(batch) = tx.view().sealed.batch(&batch) {
        for action in &batch.actions {
            let mut words = action.action_text.split_whitespace();
            if let (Some(Some(hack)), Some(Some(choice))) = (
                words.next().map(|w| w.parse::<u32>().ok()),
                words.next().map(Choice::from_word),
            ) {
                last.insert((action.player, hack), choice);
            }
        }
    }
    if let Ok((event, mail)) = tx.view().sealed.reveal(&batch) {
        tx.record_shared(SharedEvent::Sealed(event));
        tx.mail(mail);
    }
    let voters = voters(tx.state(), &tx.view(), &turn);
    let numbers = tx.params().numbers.clone();
    let mut outcomes: Vec<HackOutcome> = Vec::new();
    let mut changes: Vec<ScoreChange> = Vec::new();
    let mut effective: BTreeMap<u32, bool> = BTreeMap::new();
    let mut missed: Vec<&Score> = Vec::new();
    let change = |player: PlayerId, name: &str, points: i64, reason: Reason| ScoreChange {
        player,
        name: name.to_owned(),
        points,
        reason,
    };
    // The points each hack earned (304), for 372's P.
    let mut earned: BTreeMap<u32, i64> = BTreeMap::new();
    for proposal in &turn.proposals {
        let number = proposal.hack.number;
        let mut votes = vec![CountedVote {
            player: turn.proponent,
            name: turn.proponent_name.clone(),
            choice: proposal.proponent_vote,
            missing: false,
        }];
        for voter in &voters {
            let given = last.get(&(voter.player, number)).copied();
            if given.is_none() && !missed.iter().any(|m| m.player == voter.player) {
                missed.push(voter);
            }
            votes.push(CountedVote {
                player: voter.player,
                name: voter.name.clone(),
                choice: given.unwrap_or(Choice::Abstain),
                missing: given.is_none(),
            });
        }
        let count = |choice: Choice| votes.iter().filter(|v| v.choice == choice).count() as u32;
        let tally = Tally {
            favour: count(Choice::For),
            against: count(Choice::Against),
            abstain: count(Choice::Abstain),
        };
        // 109: "unanimous among the eligible voters": every one for.
        let by_vote = if proposal.unanimity {
            tally.against == 0 && tally.abstain == 0
        } else {
            tally.adopted()
        };
        let condition_met = condition_met(proposal.condition, &effective);
        let adopted = by_vote && condition_met;
        effective.insert(number, adopted);
        // 205, 107: the change takes effect now, at the completion of the vote.
        let mut not_applied = None;
        if adopted {
            match hack::adoption(&proposal.hack, tx.view().ruleset) {
                Ok(events) => {
                    for event in events {
                        tx.record_shared(SharedEvent::Ruleset(event));
                    }
                }
                Err(error) => not_applied = Some(error.to_string()),
            }
        }
        let proponent = (turn.proponent, turn.proponent_name.as_str());
        let ordinal = i64::from(number);
        if !condition_met {
            // 359: "the player receives no points for these proposals".
            earned.insert(number, 0);
        } else if by_vote {
            let points = scoring::proposal_points(&numbers, ordinal, &tally);
            earned.insert(number, points);
            changes.push(change(
                proponent.0,
                proponent.1,
                points,
                Reason::Adopted { hack: number },
            ));
            if let Some(gamma) = proposal.greek {
                let bonus = scoring::greek_bonus(&numbers, points, gamma);
                if bonus != 0 {
                    changes.push(change(
                        proponent.0,
                        proponent.1,
                        bonus,
                        Reason::Greek { hack: number },
                    ));
                }
            }
            // 204: only where adoption needed no unanimity.
            if !proposal.unanimity {
                for vote in votes.iter().filter(|v| v.choice == Choice::Against) {
                    changes.push(change(
                        vote.player,
                        &vote.name,
                        numbers.against_winner_bonus,
                        Reason::AgainstWinner { hack: number },
                    ));
                }
            }
        } else {
            earned.insert(number, 0);
            let penalty = scoring::failed_penalty(&numbers, ordinal, &tally);
            if penalty != 0 {
                changes.push(change(
                    proponent.0,
                    proponent.1,
                    -penalty,
                    Reason::Failed { hack: number },
                ));
            }
        }
        outcomes.push(HackOutcome {
            hack: number,
            title: proposal.hack.title.clone(),
            tally,
            votes,
            adopted,
            condition_met,
            not_applied,
        });
    }
    // 372: the shortest hack of the turn, repeals and transmutations aside.
    if let Some(shortest) = turn
        .proposals
        .iter()
        .filter(|p| !p.hack.is_repeal() && !p.hack.is_transmutation())
        .min_by_key(|p| p.hack.text.chars().count())
    {
        let points = earned.get(&shortest.hack.number).copied().unwrap_or(0);
        let bonus = scoring::vowel_bonus(&shortest.hack.text, points);
        if bonus != 0 {
            changes.push(change(
                turn.proponent,
                &turn.proponent_name,
                bonus,
                Reason::Vowels {
                    hack: shortest.hack.number,
                },
            ));
        }
    }
    // 322: who did not vote still "receive[s] any applicable penalties".
    let penalty = tx.params().non_voter_penalty;
    if penalty != 0 {
        for voter in missed {
            changes.push(change(voter.player, &voter.name, -penalty, Reason::NoVote));
        }
    }
    // 310, 112: n after the turn, and who reaches it.
    let mut after = tx.state().clone();
    for c in &changes {
        if let Some(score) = after.scores.iter_mut().find(|s| s.player == c.player) {
            score.points += c.points;
        }
    }
    let view = tx.view();
    let n = threshold(&after, &view, tx.params());
    let winner = order(&after, &view)
        .into_iter()
        .filter(|s| s.points >= n)
        .max_by_key(|s| (s.points, std::cmp::Reverse(s.name.to_lowercase())))
        .map(|s| Winner {
            player: s.player,
            name: s.name,
            points: s.points,
            n,
        });
    let result = TurnResult {
        turn: turn.number,
        proponent_name: turn.proponent_name.clone(),
        outcomes,
        changes,
        n,
    };
    tx.record(Event::Counted {
        result: result.clone(),
        winner: winner.clone(),
    });
    let view = tx.view();
    let next = if winner.is_none() {
        mover(tx.state(), &view).map(|s| s.name)
    } else {
        None
    };
    let scores = order(tx.state(), &view);
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "gnomic_result",
        report::result(
            &turn,
            &result,
            &scores,
            winner.as_ref(),
            next,
            tx.at(),
            tx.params(),
        ),
    ));
}
