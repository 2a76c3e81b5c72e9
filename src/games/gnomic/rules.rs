//! The commands and the count, clause by clause: the order of play (325), a
//! turn's post (304, 390, 108, 423, 371, 359, 402, 394), the secret votes (402,
//! 342, 105), and the count with its score update (322, 392, 109, 359, 205,
//! 304, 421, 372, 394, 204, 430, 310/431, 112). Each decision records its events
//! into the transaction as it is made. No vote reaches a public mail before the
//! count.

use std::collections::BTreeMap;

use jiff::SignedDuration;

use super::bound::Bound;
use super::hack::{self, Hack};
use super::judgment::{self, Node};
use super::report;
use super::scoring::{self, Tally};
use super::{
    Choice, Command, Condition, CountedVote, Event, Gnomic, HackOutcome, Proposal, Reason,
    RegisteredChange, Sacrifice, Score, ScoreChange, State, TAG, Turn, TurnPost, TurnResult,
    Winner, batch_id,
};
use super::{exception, judging, meta};
use crate::engine::calendar::{self, Deadline};
use crate::engine::game::{SharedEvent, Tx, View};
use crate::engine::players::PlayerId;
use crate::engine::ruleset::Ruleset;
use crate::engine::sealed::{SealError, Stage};
use crate::engine::{Address, Audience, Ctx, Mail, Refusal, Sentence, Timestamp, human_time};

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
        Command::Meta { parent, post } => meta::meta(tx, parent, *post, ctx),
        Command::Change { hack, post } => meta::change(tx, hack, *post, ctx),
        Command::Unruleworthy { hack, reason } => meta::shout(tx, hack, reason, ctx),
        Command::Judgment { question, accusing } => judging::invoke(tx, question, accusing, ctx),
        Command::Ruling { agreed, text } => judging::ruling(tx, agreed, text, ctx),
        Command::Overrule => judging::overrule(tx, ctx),
        Command::Consent => judging::consent(tx, ctx),
        Command::Forfeit => forfeit(tx, ctx),
        Command::Exception { end } => exception::agree(tx, end, ctx),
        Command::Sacrifice { lambda } => state_sacrifice(tx, lambda, ctx),
        Command::Correct { .. } if !tx.view().is_moderator(&ctx.sender) => {
            Err(Sentence::new("moderators_only").into())
        }
        Command::Correct { correction, reason } => {
            super::correct::correct(tx, correction, reason, ctx)
        }
    }
}

pub(super) fn refuse_code(code: &str) -> Refusal {
    refuse(code)
}

/// The players of the game who have not left, in the order of play: 325's
/// "alphabetical order by their 'name'", case aside.
pub(super) fn order(state: &State, view: &View<'_>) -> Vec<Score> {
    let mut seated: Vec<Score> = state
        .scores
        .iter()
        .filter(|score| !state.forfeited.contains(&score.player))
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

/// Whose turn it is: the player a moderator named, else the player after the
/// last mover in alphabetical order (by name, so a mover who left since still
/// has a place), the first at the start. A newcomer seated after the turn
/// began waits for the next one (325: "taking one whole turn apiece").
pub(super) fn mover(state: &State, view: &View<'_>) -> Option<Score> {
    let order = order(state, view);
    if let Some(named) = state.next_mover
        && let Some(score) = order.iter().find(|s| s.player == named)
    {
        return Some(score.clone());
    }
    let began = state.turn_began;
    let seated: Vec<Score> = order
        .iter()
        .filter(|s| {
            s.since
                .is_none_or(|since| began.is_some_and(|b| since <= b))
        })
        .cloned()
        .collect();
    let order = if seated.is_empty() { order } else { seated };
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
/// 425 keeps out a player whose name a rule mentions, until ey renames.
pub(super) fn admit_newcomers(tx: &mut Tx<'_, Gnomic>) {
    if tx.state().started_at.is_none() || tx.state().winner.is_some() {
        return;
    }
    let view = tx.view();
    let newcomers: Vec<(PlayerId, String, Address)> = view
        .players
        .active()
        .filter(|p| tx.state().score(p.id).is_none())
        .map(|p| (p.id, p.name.clone(), p.address.clone()))
        .collect();
    for (player, name, address) in newcomers {
        let view = tx.view();
        if let Some(rule) = rule_mentioning(view.ruleset, &name) {
            // Told once for each name ey takes.
            let told = tx
                .state()
                .unseated
                .iter()
                .any(|u| u.player == player && u.name == name);
            if !told {
                refuse_name(tx, player, &name, &address, rule);
            }
            continue;
        }
        let in_game: Vec<i64> = order(tx.state(), &view).iter().map(|s| s.points).collect();
        // 325's formula while the bot follows it; no rule, no starting score.
        let bound = Bound::of(&view, tx.params());
        let points = if bound.follows(bound.rules().newcomer) {
            scoring::starting_score(&bound.numbers(), &in_game)
        } else {
            0
        };
        tx.record(Event::Joined {
            player,
            name,
            points,
        });
    }
}

/// 425: "When joining, no player may choose a name that is mentioned in the
/// current ruleset": the first rule in effect (a void one is not) whose name
/// or text has `name` as a whole word, case aside.
pub(super) fn rule_mentioning(ruleset: &Ruleset, name: &str) -> Option<u32> {
    let name = name.trim().to_lowercase();
    if name.is_empty() {
        return None;
    }
    let whole_word = |text: &str| {
        let text = text.to_lowercase();
        text.match_indices(&name).any(|(at, found)| {
            let before = text[..at].chars().next_back();
            let after = text[at + found.len()..].chars().next();
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
        })
    };
    ruleset
        .rules
        .iter()
        .filter(|r| !r.note.trim_start().starts_with("(void"))
        .find(|r| whole_word(&r.text) || whole_word(&r.name))
        .map(|r| r.number)
}

/// 425: the player is not seated, and told why and how to rename, privately.
fn refuse_name(
    tx: &mut Tx<'_, Gnomic>,
    player: PlayerId,
    name: &str,
    address: &Address,
    rule: u32,
) {
    let rule_name = tx
        .view()
        .ruleset
        .get(rule)
        .map(|r| r.name.clone())
        .unwrap_or_default();
    tx.record(Event::NameRefused {
        player,
        name: name.to_owned(),
        rule,
    });
    tx.mail(Mail::new(
        Audience::Address(address.clone()),
        TAG,
        "gnomic_name_taken",
        serde_json::json!({
            "name": name,
            "rule": rule,
            "rule_name": rule_name,
        }),
    ));
}

/// 113: "A player always has the option to forfeit the game rather than
/// continue to play or incur a game penalty." Ey leaves the game, not the
/// nomic. An open turn of eirs is counted as posted (the hacks are the nomic's
/// proposals, and others may have voted), with no points or penalty for em.
fn forfeit(tx: &mut Tx<'_, Gnomic>, ctx: &Ctx) -> Result<Sentence, Refusal> {
    if tx.state().started_at.is_none() {
        return Err(refuse("gnomic_not_started"));
    }
    let view = tx.view();
    let player = view.players.active_by_address(&ctx.sender).ok_or_else(|| {
        Refusal(Sentence::new("not_a_player").arg("address", ctx.sender.as_str()))
    })?;
    let (id, name) = (player.id, player.name.clone());
    if tx.state().forfeited.contains(&id) {
        return Err(refuse("gnomic_forfeited_already"));
    }
    let Some(points) = tx.state().score(id).map(|s| s.points) else {
        return Err(Sentence::new("not_a_player")
            .arg("address", ctx.sender.as_str())
            .into());
    };
    let open_turn = tx
        .state()
        .open_turns()
        .find(|t| t.proponent == id)
        .map(|t| t.number);
    tx.record(Event::Forfeited {
        player: id,
        name: name.clone(),
        points,
    });
    let view = tx.view();
    let next = if tx.state().open.is_none() {
        mover(tx.state(), &view).map(|s| s.name)
    } else {
        None
    };
    let remaining: Vec<String> = order(tx.state(), &view)
        .into_iter()
        .map(|s| s.name)
        .collect();
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "gnomic_forfeited",
        serde_json::json!({
            "name": name,
            "at": human_time(ctx.now),
            "points": points,
            "open_turn": open_turn,
            "order": remaining,
            "next": next,
        }),
    ));
    // Ey was perhaps the last voter the count waited for, or the last
    // agreement the exception state waited for.
    check_all_voted(tx);
    sync_reminders(tx);
    exception::check(tx);
    Ok(Sentence::new("gnomic_forfeited")
        .arg("points", points)
        .arg("open_turn", open_turn))
}

fn start(tx: &mut Tx<'_, Gnomic>, ctx: &Ctx) -> Result<Sentence, Refusal> {
    if let Some(open) = &tx.state().open {
        return Err(Sentence::new("gnomic_turn_open")
            .arg("turn", open.number)
            .arg("proponent", &open.proponent_name)
            .arg("deadline", human_time(open.closes_at()))
            .into());
    }
    let view = tx.view();
    let mut players: Vec<Score> = Vec::new();
    let mut refused: Vec<(PlayerId, String, Address, u32)> = Vec::new();
    for p in view.players.active() {
        match rule_mentioning(view.ruleset, &p.name) {
            Some(rule) => refused.push((p.id, p.name.clone(), p.address.clone(), rule)),
            None => players.push(Score {
                player: p.id,
                name: p.name.clone(),
                points: 0,
                since: None,
            }),
        }
    }
    tx.record(Event::Started {
        by: ctx.sender.clone(),
        players,
    });
    for (player, name, address, rule) in &refused {
        refuse_name(tx, *player, name, address, *rule);
    }
    let unseated: Vec<&str> = refused
        .iter()
        .map(|(_, name, _, _)| name.as_str())
        .collect();
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
            "vote_hours": Bound::of(&view, tx.params()).vote_hours(),
            "unseated": unseated,
        }),
    ));
    Ok(Sentence::new("gnomic_started")
        .arg(
            "order",
            order.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        )
        .arg("first", first)
        .arg("unseated", unseated))
}

/// 108: "The numbers shall begin with 301, and each rule change proposed in the
/// proper way shall receive the next successive integer": after every ordinal
/// given and every rule number in use or used.
pub(super) fn next_ordinal(state: &State, view: &View<'_>, params: &super::Params) -> u32 {
    let highest_rule = view.ruleset.next_free_number().saturating_sub(1);
    state
        .last_ordinal
        .max(highest_rule)
        .max(Bound::of(view, params).first_ordinal().saturating_sub(1))
        .saturating_add(1)
}

/// 310/431: n over the active players of the game (no bot players are refereed).
pub(super) fn threshold(state: &State, view: &View<'_>, params: &super::Params) -> i64 {
    let active: Vec<i64> = active_players(state, view)
        .iter()
        .map(|s| s.points)
        .collect();
    scoring::threshold(&Bound::of(view, params).numbers(), &active)
}

/// The active players of the game (310, 432): in it, not on vacation, not
/// declared inactive.
pub(super) fn active_players(state: &State, view: &View<'_>) -> Vec<Score> {
    order(state, view)
        .into_iter()
        .filter(|s| {
            view.players
                .by_id(s.player)
                .is_some_and(|p| !p.inactive && p.vacation_until.is_none())
        })
        .collect()
}

/// 359: the most hacks that could take effect under any outcome of the votes.
fn most_that_can_pass(proposals: &[Proposal]) -> usize {
    let k = proposals.len().min(16);
    (0u32..(1 << k))
        .map(|mask| {
            let mut effective: BTreeMap<u32, bool> = BTreeMap::new();
            for (i, proposal) in proposals.iter().take(k).enumerate() {
                let voted = mask & (1 << i) != 0;
                let met = condition_met_for(proposal.condition, &effective);
                effective.insert(proposal.hack.number, voted && met);
            }
            effective.values().filter(|e| **e).count()
        })
        .max()
        .unwrap_or(0)
}

fn condition_met_for(condition: Option<Condition>, effective: &BTreeMap<u32, bool>) -> bool {
    condition.is_none_or(|c| effective.get(&c.hack).copied().unwrap_or(false) == c.adopted)
}

/// A game is under way: started, and not won (112).
fn under_way(state: &State) -> Result<(), Refusal> {
    if state.started_at.is_none() {
        return Err(refuse("gnomic_not_started"));
    }
    if let Some(winner) = &state.winner {
        return Err(Sentence::new("gnomic_won")
            .arg("winner", &winner.name)
            .arg("points", winner.points)
            .into());
    }
    Ok(())
}

fn turn(tx: &mut Tx<'_, Gnomic>, post: TurnPost, ctx: &Ctx) -> Result<Sentence, Refusal> {
    let state = tx.state();
    under_way(state)?;
    // 304: "All a player's proposals for a given turn must be stated initially
    // in a single post" to the board (302): mailed to the bot alone, it is no
    // post, and the turn stays the player's to post.
    if !ctx.public {
        return Err(refuse("gnomic_turn_private"));
    }
    let view = tx.view();
    let player = view.players.active_by_address(&ctx.sender).ok_or_else(|| {
        Refusal(Sentence::new("not_a_player").arg("address", ctx.sender.as_str()))
    })?;
    // 432: "During the exception state, any player may at any time perform a
    // turn, turns may overlap"; it "takes precedence over" the order of play.
    let exceptional = state.exception.active();
    if state.forfeited.contains(&player.id) {
        return Err(refuse("gnomic_forfeited_already"));
    }
    if !state.plays(player.id) {
        return Err(Sentence::new("not_a_player")
            .arg("address", ctx.sender.as_str())
            .into());
    }
    if !exceptional {
        if let Some(open) = &state.open {
            return Err(Sentence::new("gnomic_turn_open")
                .arg("turn", open.number)
                .arg("proponent", &open.proponent_name)
                .arg("deadline", human_time(open.closes_at()))
                .into());
        }
        // 325: "Turns may not be skipped or passed".
        let mover = mover(state, &view).ok_or_else(|| refuse("gnomic_not_started"))?;
        if mover.player != player.id {
            return Err(Sentence::new("gnomic_not_your_turn")
                .arg("mover", &mover.name)
                .into());
        }
        // 212: an unsettled Judgment holds the next turn back, unless a majority
        // of the other players consent; beginning the turn completes it (327).
        // A turn out of the order (432) is not "the next turn": Judgment waits.
        judging::may_begin(state, &view, &mover)?;
    }
    let player = player.clone();
    if !exceptional {
        judging::complete(tx);
    }
    let params = tx.params();
    let state = tx.state();
    let view = tx.view();
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
    // 440: "If there are less than three players in the game, all proposals
    // must be posted in separate postings."
    let bound = Bound::of(&view, params);
    let gnomes_vote = bound.follows(bound.rules().gnomes);
    if gnomes_vote && hacks.len() > 1 && order(state, &view).len() < bound.gnome_total() {
        return Err(Sentence::new("gnomic_separate_postings")
            .arg("count", hacks.len())
            .arg("players", order(state, &view).len())
            .into());
    }
    if hacks.len() > params.max_hacks_per_post {
        return Err(Sentence::new("gnomic_too_many")
            .arg("count", hacks.len())
            .arg("allowed", params.max_hacks_per_post)
            .into());
    }
    // 390's sacrifice: stated on its own before the post (paid then), or
    // in the post (paid with it); once a turn.
    let points = state.score(player.id).map_or(0, |s| s.points);
    let stated = state
        .stated_sacrifices
        .iter()
        .find(|s| s.player == player.id)
        .map(|s| s.sacrifice);
    let sacrifice = match (stated, post.sacrifice) {
        (Some(stated), Some(_)) => {
            return Err(Sentence::new("gnomic_sacrificed_already")
                .arg("lambda", stated.lambda)
                .into());
        }
        (Some(stated), None) => Some(stated),
        (None, None) => None,
        (None, Some(lambda)) => {
            if !bound.follows(bound.rules().sacrifice) {
                return Err(Sentence::new("gnomic_rule_not_followed")
                    .arg("rule", bound.rules().sacrifice)
                    .into());
            }
            let made = scoring::sacrifice(&bound.numbers(), points, lambda).map_err(|e| {
                Refusal(Sentence::new("gnomic_sacrifice_refused").arg("why", e.to_string()))
            })?;
            Some(Sacrifice {
                lambda,
                nu: made.nu,
                mu: made.mu,
            })
        }
    };
    // 304 "between one and three", or 390's mu (docs/rulings.md).
    let allowed = match sacrifice {
        Some(s) => s.mu as usize,
        None if params.mu_without_sacrifice => 1,
        // 304 repealed: no allowance but the bot's own limit on a post.
        None if !bound.follows(bound.rules().proposal_points) => params.max_hacks_per_post,
        None => bound.numbers().max_proposals as usize,
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
        hack::adoption(&hack, view.ruleset, &bound.numbers())
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
            parent: None,
            proponent: None,
            proponent_name: None,
            posted_at: None,
            deadline: None,
            batch: None,
            changed_at: None,
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
    let vote_hours = bound.vote_hours();
    let deadline = vote_hours
        .checked_mul(3600)
        .filter(|s| *s > 0)
        .and_then(|s| ctx.now.checked_add(SignedDuration::from_secs(s)).ok())
        .ok_or_else(|| Refusal(Sentence::new("gnomic_bad_hours").arg("hours", vote_hours)))?;
    let number = state.turns.saturating_add(1);
    let opened = view
        .sealed
        .open_titled(
            &batch_id(number),
            TAG,
            &format!("the votes of turn {number}"),
            deadline,
        )
        .map_err(|e| box_error(&e))?;
    let turn = Turn {
        number,
        proponent: player.id,
        proponent_name: player.name.clone(),
        posted_at: ctx.now,
        deadline,
        proposals,
        sacrifice,
        meta_batches: Vec::new(),
        voted: Vec::new(),
        all_voted_at: None,
        exceptional,
        counts_each_vote: !params.meta_amendments_hold_the_count,
        batches_all_voted: Vec::new(),
        counted: Vec::new(),
        held: false,
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
    sync_reminders(tx);
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

/// 390: "A player may during his turn choose to lose nu points by stating
/// ...": on the list, by the player whose turn it is, before eir proposals
/// (once they are posted the turn's allowance is spent), once a turn. Nu is
/// paid at once; mu is the allowance of the turn's post.
fn state_sacrifice(tx: &mut Tx<'_, Gnomic>, lambda: i64, ctx: &Ctx) -> Result<Sentence, Refusal> {
    let state = tx.state();
    under_way(state)?;
    if !ctx.public {
        return Err(refuse("gnomic_sacrifice_private"));
    }
    let view = tx.view();
    let player = view.players.active_by_address(&ctx.sender).ok_or_else(|| {
        Refusal(Sentence::new("not_a_player").arg("address", ctx.sender.as_str()))
    })?;
    if !state.plays(player.id) {
        return Err(Sentence::new("not_a_player")
            .arg("address", ctx.sender.as_str())
            .into());
    }
    // 432: during the exception state any player's turn may begin at any time.
    if !state.exception.active() {
        if let Some(open) = &state.open {
            return Err(Sentence::new("gnomic_sacrifice_too_late")
                .arg("turn", open.number)
                .arg("proponent", &open.proponent_name)
                .into());
        }
        let mover = mover(state, &view).ok_or_else(|| refuse("gnomic_not_started"))?;
        if mover.player != player.id {
            return Err(Sentence::new("gnomic_not_your_turn")
                .arg("mover", &mover.name)
                .into());
        }
    }
    if let Some(stated) = state
        .stated_sacrifices
        .iter()
        .find(|s| s.player == player.id)
    {
        return Err(Sentence::new("gnomic_sacrificed_already")
            .arg("lambda", stated.sacrifice.lambda)
            .into());
    }
    let points = state.score(player.id).map_or(0, |s| s.points);
    let bound = Bound::of(&tx.view(), tx.params());
    if !bound.follows(bound.rules().sacrifice) {
        return Err(Sentence::new("gnomic_rule_not_followed")
            .arg("rule", bound.rules().sacrifice)
            .into());
    }
    let made = scoring::sacrifice(&bound.numbers(), points, lambda).map_err(|e| {
        Refusal(Sentence::new("gnomic_sacrifice_refused").arg("why", e.to_string()))
    })?;
    let sacrifice = Sacrifice {
        lambda,
        nu: made.nu,
        mu: made.mu,
    };
    let (id, name) = (player.id, player.name.clone());
    tx.record(Event::Sacrificed {
        player: id,
        name: name.clone(),
        sacrifice,
    });
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "gnomic_sacrificed",
        serde_json::json!({
            "name": name,
            "at": human_time(ctx.now),
            "lambda": lambda,
            "nu": sacrifice.nu,
            "mu": sacrifice.mu,
            "points": points - sacrifice.nu,
        }),
    ));
    Ok(Sentence::new("gnomic_sacrificed")
        .arg("lambda", lambda)
        .arg("nu", sacrifice.nu)
        .arg("mu", sacrifice.mu))
}

/// The schedule's id of `player`'s reminder to vote in sealed batch `batch`.
fn reminder_id(batch: &str, player: PlayerId) -> String {
    format!("{batch}:remind:{player}")
}

/// The reminders the open turns owe: one per voter and sealed batch whose votes
/// are still open and in which ey has not voted on every hack ey votes on. The
/// schedule mails each `lead` before the batch closes, to the voter alone, and
/// says nothing of anyone's vote.
fn owed_reminders(state: &State, view: &View<'_>, now: Timestamp) -> Vec<Deadline> {
    let mut owed = Vec::new();
    for turn in state.open_turns() {
        for batch in turn.pending_batches() {
            let hacks: Vec<&Proposal> = turn
                .proposals
                .iter()
                .filter(|p| turn.batch_of(p.hack.number) == batch)
                .collect();
            let Some(closes) = hacks
                .iter()
                .map(|p| p.deadline.unwrap_or(turn.deadline))
                .max()
                .filter(|at| *at > now)
            else {
                continue;
            };
            for voter in order(state, view) {
                let waiting: Vec<u32> = hacks
                    .iter()
                    .map(|p| p.hack.number)
                    .filter(|number| {
                        voters_of(state, view, turn, *number)
                            .iter()
                            .any(|v| v.player == voter.player)
                            && !turn
                                .voted
                                .iter()
                                .any(|v| v.player == voter.player && v.hack == *number)
                    })
                    .collect();
                if waiting.is_empty() {
                    continue;
                }
                let hacks = waiting
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ");
                owed.push(Deadline {
                    id: reminder_id(&batch, voter.player),
                    at: closes,
                    owner: TAG.to_owned(),
                    who: Some(voter.player),
                    what: format!(
                        "your secret vote on hack {hacks} of turn {} (\"vote N for|against|abstain\", mailed to the bot, not to the list)",
                        turn.number
                    ),
                    remind: true,
                });
            }
        }
    }
    owed
}

/// Brings the shared schedule's Gnomic reminders in line with what is owed:
/// schedules the missing (a voter whose vote a change voided owes one again),
/// cancels those no longer owed (voted, forfeited, counted). An entry already
/// there is left alone, so a reminder already sent is not sent twice.
pub(super) fn sync_reminders(tx: &mut Tx<'_, Gnomic>) {
    let now = tx.at();
    let view = tx.view();
    let owed = owed_reminders(tx.state(), &view, now);
    let prefix = format!("{TAG}:turn:");
    let stale: Vec<String> = view
        .schedule
        .entries
        .iter()
        .map(|e| &e.deadline)
        .filter(|d| d.owner == TAG && d.id.starts_with(&prefix) && d.id.contains(":remind:"))
        .filter(|d| !owed.iter().any(|o| o.id == d.id))
        .map(|d| d.id.clone())
        .collect();
    let missing: Vec<Deadline> = owed
        .into_iter()
        .filter(|o| view.schedule.get(&o.id).is_none())
        .collect();
    for id in stale {
        tx.record_shared(SharedEvent::Schedule(calendar::Event::Cancelled { id }));
    }
    for deadline in missing {
        tx.record_shared(SharedEvent::Schedule(calendar::Event::Scheduled {
            deadline,
        }));
    }
}

/// 394: a correction of the bot's count is at most the distinct letters the
/// proposal's text names.
fn greek_count(hack: &Hack, count: usize) -> Result<usize, Refusal> {
    let found = scoring::greek_letters(&hack.proposed_text());
    if count > found.len() {
        return Err(Sentence::new("gnomic_greek_too_many")
            .arg("hack", hack.number)
            .arg("count", count)
            .arg("letters", found)
            .into());
    }
    Ok(count)
}

/// Who votes on a turn's proposals by mail: every player of the game who has
/// not left, but the proponent, whose vote is in the post (402, 105).
pub(super) fn voters(state: &State, view: &View<'_>, turn: &Turn) -> Vec<Score> {
    order(state, view)
        .into_iter()
        .filter(|s| s.player != turn.proponent)
        .collect()
}

/// Who votes on hack `number` by mail: every player of the game but its own
/// proponent (the turn's mover votes on the meta-amendments of eir hacks).
pub(super) fn voters_of(state: &State, view: &View<'_>, turn: &Turn, number: u32) -> Vec<Score> {
    let proponent = turn.proponent_of(number).map(|(id, _)| id);
    order(state, view)
        .into_iter()
        .filter(|s| Some(s.player) != proponent)
        .collect()
}

/// Every vote sealed on the turn's hacks, the last of each player on each hack,
/// leaving out those sealed before the hack was changed (401) and those on
/// hacks no longer in the turn. Read by the engine only: never mailed before
/// the count.
pub(super) fn sealed_votes(view: &View<'_>, turn: &Turn) -> BTreeMap<(PlayerId, u32), Choice> {
    let mut last = BTreeMap::new();
    // A batch counted before the turn's count is no longer in the sealed box:
    // its votes as they were revealed.
    for counted in &turn.counted {
        for vote in &counted.votes {
            last.insert((vote.player, vote.hack), vote.choice);
        }
    }
    for batch in turn.batches() {
        if turn.is_counted(&batch) {
            continue;
        }
        let Some(batch) = view.sealed.batch(&batch) else {
            continue;
        };
        for action in &batch.actions {
            let mut words = action.action_text.split_whitespace();
            if let (Some(Some(hack)), Some(Some(choice))) = (
                words.next().map(|w| w.parse::<u32>().ok()),
                words.next().map(Choice::from_word),
            ) && let Some(proposal) = turn.proposal(hack)
                && proposal.changed_at.is_none_or(|at| action.sealed_at >= at)
            {
                last.insert((action.player, hack), choice);
            }
        }
    }
    last
}

/// Hack `number` is in no open turn: the refusal names the hacks that are.
pub(super) fn not_in_turn(state: &State, number: u32) -> Refusal {
    Refusal(
        Sentence::new("gnomic_not_in_turn").arg("hack", number).arg(
            "hacks",
            state
                .open_turns()
                .flat_map(|t| t.proposals.iter().map(|p| p.hack.number))
                .collect::<Vec<_>>(),
        ),
    )
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
    if state.open.is_none() {
        return Err(match &state.last_result {
            Some(last) if last.outcomes.iter().any(|o| o.hack == number) => late(last),
            _ => refuse("gnomic_no_open_turn"),
        });
    }
    let Some(turn) = state.turn_of(number) else {
        return Err(not_in_turn(state, number));
    };
    if turn
        .proponent_of(number)
        .is_some_and(|(id, _)| id == player.id)
    {
        return Err(Sentence::new("gnomic_own_hack").arg("hack", number).into());
    }
    // 402: its vote is complete and counted; the rest of the turn goes on.
    if turn.hack_counted(number) {
        return Err(Sentence::new("gnomic_vote_late")
            .arg("hack", number)
            .arg("turn", turn.number)
            .into());
    }
    if !state.plays(player.id) {
        return Err(Sentence::new("not_a_player")
            .arg("address", ctx.sender.as_str())
            .into());
    }
    // 342: in web mode, a vote within two minutes of a root proposal's
    // posting, or twelve seconds of a meta-amendment's, is ignored.
    let params = tx.params();
    let proposal = turn.proposal(number);
    let (posted, seconds) = match proposal.and_then(|p| p.posted_at) {
        Some(at) => (at, Bound::of(&view, params).web_mode_meta_seconds()),
        None => (turn.posted_at, params.web_mode_root_seconds),
    };
    if params.web_mode
        && ctx.now
            < posted
                .checked_add(SignedDuration::from_secs(seconds))
                .unwrap_or(posted)
    {
        return Err(Sentence::new("gnomic_vote_too_soon")
            .arg("hack", number)
            .arg("seconds", seconds)
            .into());
    }
    // 401: "A player may not vote favorable on more than one meta-amendment of
    // a certain rule or meta-amendment".
    if choice == Choice::For
        && let Some(other) = meta::favoured_sibling(&view, turn, number, player.id)
    {
        return Err(Sentence::new("gnomic_one_favourable")
            .arg("hack", number)
            .arg("other", other)
            .arg("parent", proposal.and_then(|p| p.parent))
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
    let batch = turn.batch_of(number);
    let text = format!("{number} {}", choice.as_str());
    let sealed = view
        .sealed
        .seal_choice(
            &batch,
            player.id,
            &player.name,
            &text,
            Some(choice_of(player.id, &text)),
            ctx.now,
            &ctx.entropy,
        )
        .map_err(|e| match e {
            SealError::Closed(_) => Refusal(
                Sentence::new("gnomic_vote_closed")
                    .arg("hack", number)
                    .arg("closes", human_time(turn.closes_at())),
            ),
            other => box_error(&other),
        })?;
    let (turn_number, deadline) = (turn.number, turn.closes_at());
    let proponent = turn
        .proponent_of(number)
        .map_or(turn.proponent, |(id, _)| id);
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
    sync_reminders(tx);
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
    let turns: Vec<Turn> = tx.state().open_turns().cloned().collect();
    for turn in turns {
        check_turn_all_voted(tx, &turn);
    }
}

fn check_turn_all_voted(tx: &mut Tx<'_, Gnomic>, turn: &Turn) {
    let view = tx.view();
    let all_voted_on = |p: &Proposal| {
        turn.hack_counted(p.hack.number)
            || voters_of(tx.state(), &view, turn, p.hack.number)
                .iter()
                .all(|voter| {
                    turn.voted
                        .iter()
                        .any(|v| v.player == voter.player && v.hack == p.hack.number)
                })
    };
    // 402 per hack: each batch's vote is complete on its own.
    let mut complete: Vec<String> = Vec::new();
    if turn.counts_each_vote {
        for batch in turn.pending_batches() {
            let done = turn
                .proposals
                .iter()
                .filter(|p| turn.batch_of(p.hack.number) == batch)
                .all(all_voted_on);
            if done && !turn.batches_all_voted.iter().any(|(b, _)| *b == batch) {
                complete.push(batch);
            }
        }
    }
    let all = turn.all_voted_at.is_none() && turn.proposals.iter().all(all_voted_on);
    for batch in complete {
        tx.record(Event::BatchAllVoted {
            turn: turn.number,
            batch,
        });
    }
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
    let moderator = tx.view().is_moderator(&ctx.sender);
    let player = tx
        .view()
        .players
        .active_by_address(&ctx.sender)
        .map(|p| p.id);
    if player.is_none() && !moderator {
        return Err(Sentence::new("not_a_player")
            .arg("address", ctx.sender.as_str())
            .into());
    }
    if tx.state().open.is_none() {
        return Err(refuse("gnomic_no_open_turn"));
    }
    let turn = tx
        .state()
        .turn_of(number)
        .ok_or_else(|| Refusal(Sentence::new("gnomic_unknown_hack").arg("hack", number)))?;
    let proposal = turn
        .proposal(number)
        .ok_or_else(|| Refusal(Sentence::new("gnomic_unknown_hack").arg("hack", number)))?;
    // The proponent's correction, or a moderator's.
    if Some(turn.proponent) != player && !moderator {
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
    // 432: overlapping turns are counted each on its own, the earliest due first.
    while let Some(turn) = tx
        .state()
        .open_turns()
        .filter(|t| !t.held && t.count_due() <= tx.at())
        .min_by_key(|t| (t.count_due(), t.number))
        .cloned()
    {
        // A rule the count follows was changed otherwise than in its numbers:
        // the count waits for a moderator's ruling ([ruleset] binding ...).
        let held = Bound::of(&tx.view(), tx.params()).held();
        if !held.is_empty() {
            let rules: Vec<u32> = held.iter().map(|(rule, _)| *rule).collect();
            tx.record(Event::CountHeld {
                turn: turn.number,
                rules: rules.clone(),
            });
            tx.mail(Mail::new(
                Audience::List,
                TAG,
                "gnomic_count_held",
                serde_json::json!({
                    "turn": turn.number,
                    "proponent": turn.proponent_name,
                    "rules": rules,
                    "at": human_time(tx.at()),
                }),
            ));
            continue;
        }
        let pending = turn.pending_batches();
        let due: Vec<String> = pending
            .iter()
            .filter(|b| turn.batch_due(b) <= tx.at())
            .cloned()
            .collect();
        if turn.counts_each_vote && !due.is_empty() && due.len() < pending.len() {
            count_batches(tx, &turn, &due);
        } else {
            count_turn(tx, turn);
        }
    }
}

/// The votes on one hack, once its vote is complete: the proponent's, each
/// voter's last (an abstention for who did not vote), the Gnomes' (440), the
/// tally, and whether the vote adopts it (322, 392; 109's unanimity).
struct CountedVotes {
    votes: Vec<CountedVote>,
    gnomes: Vec<scoring::GnomeVote>,
    tally: Tally,
    by_vote: bool,
}

fn counted_votes(
    tx: &Tx<'_, Gnomic>,
    turn: &Turn,
    proposal: &Proposal,
    last: &BTreeMap<(PlayerId, u32), Choice>,
) -> CountedVotes {
    let number = proposal.hack.number;
    let view = tx.view();
    let (proponent_id, proponent_name) = turn.proponent_of(number).map_or(
        (turn.proponent, turn.proponent_name.clone()),
        |(id, name)| (id, name.to_owned()),
    );
    let mut votes = vec![CountedVote {
        player: proponent_id,
        name: proponent_name,
        choice: proposal.proponent_vote,
        missing: false,
    }];
    for voter in voters_of(tx.state(), &view, turn, number) {
        let given = last.get(&(voter.player, number)).copied();
        votes.push(CountedVote {
            player: voter.player,
            name: voter.name.clone(),
            choice: given.unwrap_or(Choice::Abstain),
            missing: given.is_none(),
        });
    }
    // 440: the Gnomes vote at the count, from the posting's time-stamp.
    let posted = proposal.posted_at.unwrap_or(turn.posted_at);
    let stamp = posted
        .to_zoned(view.calendar.zone().clone())
        .strftime("%Y-%m-%d %H:%M:%S")
        .to_string();
    let players_in_game = order(tx.state(), &view).len();
    // 440: no Gnome comes out of the mines once the rule is gone.
    let bound = Bound::of(&view, tx.params());
    let gnomes = if bound.follows(bound.rules().gnomes) {
        scoring::gnome_votes(&stamp, players_in_game, bound.gnome_total())
    } else {
        Vec::new()
    };
    let count = |choice: Choice| votes.iter().filter(|v| v.choice == choice).count() as u32;
    let gnome_count =
        |choice: scoring::GnomeChoice| gnomes.iter().filter(|g| g.vote == choice).count() as u32;
    let tally = Tally {
        favour: count(Choice::For) + gnome_count(scoring::GnomeChoice::Favour),
        against: count(Choice::Against) + gnome_count(scoring::GnomeChoice::Against),
        abstain: count(Choice::Abstain) + gnome_count(scoring::GnomeChoice::Abstain),
    };
    let by_vote = by_vote_of(
        proposal,
        &tally,
        bound.follows(bound.rules().simple_majority),
    );
    CountedVotes {
        votes,
        gnomes,
        tally,
        by_vote,
    }
}

/// The score changes of a counted turn, each from its rule if the bot follows
/// it: 304's points, 394's and 372's bonuses, 204's, 421's penalties, 401's
/// share.
fn score_update(
    turn: &Turn,
    outcomes: &[HackOutcome],
    nodes: &[Node],
    bound: &Bound,
) -> Vec<ScoreChange> {
    let rules = bound.rules();
    let numbers = bound.numbers();
    let mut changes: Vec<ScoreChange> = Vec::new();
    let change = |player: PlayerId, name: &str, points: i64, reason: Reason| ScoreChange {
        player,
        name: name.to_owned(),
        points,
        reason,
    };
    // The points each hack earned its proponent (304; 401's share), for 372's P
    // and for the share of a meta-amendment of it.
    let mut earned: BTreeMap<u32, i64> = BTreeMap::new();
    for (proposal, outcome) in turn.proposals.iter().zip(outcomes) {
        let number = proposal.hack.number;
        let (proponent_id, proponent_name) = turn.proponent_of(number).map_or(
            (turn.proponent, turn.proponent_name.clone()),
            |(id, name)| (id, name.to_owned()),
        );
        let ordinal = i64::from(number);
        let tally = &outcome.tally;
        let by_vote = outcome.adopted;
        match proposal.parent {
            None if !outcome.condition_met => {
                // 359: "the player receives no points for these proposals".
                earned.insert(number, 0);
            }
            None => {
                // 304 scores "each proposal", adopted or not: the fraction of
                // favourable votes it received.
                let points = if bound.follows(rules.proposal_points) {
                    scoring::proposal_points(&numbers, ordinal, tally)
                } else {
                    0
                };
                earned.insert(number, points);
                if points != 0 {
                    let reason = if by_vote {
                        Reason::Adopted { hack: number }
                    } else {
                        Reason::Favourable { hack: number }
                    };
                    changes.push(change(proponent_id, &proponent_name, points, reason));
                }
                // 394: "Any proposal that contains at least three Greek letters",
                // sigma being what it "would receive without any bonuses".
                if bound.follows(rules.greek) {
                    let gamma = proposal
                        .greek
                        .unwrap_or_else(|| scoring::greek_count(&proposal.hack.proposed_text()));
                    let bonus = scoring::greek_bonus(&numbers, points, gamma);
                    if bonus != 0 {
                        changes.push(change(
                            proponent_id,
                            &proponent_name,
                            bonus,
                            Reason::Greek { hack: number },
                        ));
                    }
                }
                if by_vote {
                    // 204: only where adoption needed no unanimity.
                    if !proposal.unanimity && bound.follows(rules.against_winner) {
                        for vote in outcome.votes.iter().filter(|v| v.choice == Choice::Against) {
                            changes.push(change(
                                vote.player,
                                &vote.name,
                                numbers.against_winner_bonus,
                                Reason::AgainstWinner { hack: number },
                            ));
                        }
                    }
                } else if bound.follows(rules.failed_penalty) {
                    // 421: "When a proposal fails", on top of 304's points.
                    let penalty = scoring::failed_penalty(&numbers, ordinal, tally);
                    if penalty != 0 {
                        changes.push(change(
                            proponent_id,
                            &proponent_name,
                            -penalty,
                            Reason::Failed { hack: number },
                        ));
                    }
                }
            }
            Some(parent) => {
                // 421 calls a meta-amendment whose parent failed "failed", with
                // no penalty if it had a majority: no share of 401 either.
                let parent_adopted = nodes.iter().any(|n| n.number == parent && n.adopted);
                if outcome.adopted && parent_adopted {
                    // 401: half of what the amended hack's proponent received.
                    let share = if bound.follows(rules.meta_amendments) {
                        scoring::meta_share(earned.get(&parent).copied().unwrap_or(0))
                    } else {
                        0
                    };
                    earned.insert(number, share);
                    if share != 0 {
                        changes.push(change(
                            proponent_id,
                            &proponent_name,
                            share,
                            Reason::MetaShare { hack: number },
                        ));
                    }
                } else if bound.follows(rules.failed_penalty) {
                    earned.insert(number, 0);
                    let kappa = judgment::level(nodes, number);
                    let penalty = scoring::failed_meta_penalty(ordinal, kappa, tally);
                    if penalty != 0 {
                        changes.push(change(
                            proponent_id,
                            &proponent_name,
                            -penalty,
                            Reason::FailedMeta { hack: number },
                        ));
                    }
                }
            }
        }
    }
    // 372: the shortest proposal of the turn (434: no meta-amendment),
    // repeals and transmutations aside.
    if bound.follows(rules.vowels)
        && let Some(shortest) = turn
            .proposals
            .iter()
            .filter(|p| p.parent.is_none() && !p.hack.is_repeal() && !p.hack.is_transmutation())
            .min_by_key(|p| p.hack.proposed_text().chars().count())
    {
        let points = earned.get(&shortest.hack.number).copied().unwrap_or(0);
        let bonus = scoring::vowel_bonus(&shortest.hack.proposed_text(), points);
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
    changes
}

/// Whether the vote alone adopts a hack (322, 392; 109: "unanimous among the
/// eligible voters": every one for).
fn by_vote_of(proposal: &Proposal, tally: &Tally, ties_adopt: bool) -> bool {
    if proposal.unanimity {
        tally.against == 0 && tally.abstain == 0
    } else {
        tally.adopted_when(ties_adopt)
    }
}

/// The bindings of the game's rules changed: a count held for a ruling goes on
/// once no rule it follows is held any more (it is then due at once).
pub(super) fn hold_or_resume(tx: &mut Tx<'_, Gnomic>) {
    if !Bound::of(&tx.view(), tx.params()).held().is_empty() {
        return;
    }
    let held: Vec<u32> = tx
        .state()
        .open_turns()
        .filter(|t| t.held)
        .map(|t| t.number)
        .collect();
    for turn in held {
        tx.record(Event::CountResumed { turn });
    }
}

/// 402 per hack: the batches whose vote is complete while others of the turn
/// are still open are revealed and counted now; what they adopt waits for the
/// turn's count to take effect (401: "A rule won't take effect until all of its
/// meta-amendments are voted on"), and so do the points (304's second part
/// follows the voting of the whole turn).
fn count_batches(tx: &mut Tx<'_, Gnomic>, turn: &Turn, batches: &[String]) {
    let at = tx.at();
    for batch in batches {
        let sealed = tx.view().sealed;
        if sealed.batch(batch).is_some_and(|b| b.stage == Stage::Open)
            && let Ok((event, mail)) = sealed.commit(batch)
        {
            tx.record_shared(SharedEvent::Sealed(event));
            tx.mail(mail);
        }
    }
    let last = sealed_votes(&tx.view(), turn);
    let mut outcomes: Vec<serde_json::Value> = Vec::new();
    for batch in batches {
        if let Ok((event, mail)) = tx.view().sealed.reveal_replacing(batch, replaced_by) {
            tx.record_shared(SharedEvent::Sealed(event));
            tx.mail(mail);
        }
        let hacks: Vec<&Proposal> = turn
            .proposals
            .iter()
            .filter(|p| turn.batch_of(p.hack.number) == *batch)
            .collect();
        let votes: Vec<super::RevealedVote> = last
            .iter()
            .filter(|((_, hack), _)| hacks.iter().any(|p| p.hack.number == *hack))
            .map(|((player, hack), choice)| super::RevealedVote {
                player: *player,
                hack: *hack,
                choice: *choice,
            })
            .collect();
        for proposal in hacks {
            let counted = counted_votes(tx, turn, proposal, &last);
            outcomes.push(report::counted_hack(
                proposal,
                &counted.votes,
                &counted.gnomes,
                counted.tally,
                counted.by_vote,
            ));
        }
        tx.record(Event::BatchCounted {
            turn: turn.number,
            counted: super::CountedBatch {
                batch: batch.clone(),
                at,
                votes,
            },
        });
    }
    let waiting: Vec<u32> = tx
        .state()
        .open_turns()
        .find(|t| t.number == turn.number)
        .map(|t| {
            t.proposals
                .iter()
                .filter(|p| !t.hack_counted(p.hack.number))
                .map(|p| p.hack.number)
                .collect()
        })
        .unwrap_or_default();
    sync_reminders(tx);
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "gnomic_votes_counted",
        serde_json::json!({
            "turn": turn.number,
            "proponent": turn.proponent_name,
            "at": human_time(at),
            "outcomes": outcomes,
            "waiting": waiting,
        }),
    ));
}

/// Which sealed votes a later one replaces (the reveal marks them): only each
/// player's last vote on a hack counts, and a vote's text begins with the hack's
/// number ("304 yes").
fn replaced_by(vote: &crate::engine::sealed::Sealed) -> Option<String> {
    vote.action_text
        .split_whitespace()
        .next()
        .map(|_| choice_of(vote.player, &vote.action_text))
}

/// The choice a vote makes (`Sealed::choice`): the player, and the hack its
/// text begins with. A later vote of the same choice replaces it.
fn choice_of(player: PlayerId, text: &str) -> String {
    let hack = text.split_whitespace().next().unwrap_or_default();
    format!("{player} {hack}")
}

fn count_turn(tx: &mut Tx<'_, Gnomic>, turn: Turn) {
    // Every batch's commitments first, then every reveal: the commitments
    // reach the list before any vote does. A batch counted before is done.
    let batches: Vec<String> = turn
        .batches()
        .into_iter()
        .filter(|b| !turn.is_counted(b))
        .collect();
    for batch in &batches {
        let sealed = tx.view().sealed;
        if sealed.batch(batch).is_some_and(|b| b.stage == Stage::Open)
            && let Ok((event, mail)) = sealed.commit(batch)
        {
            tx.record_shared(SharedEvent::Sealed(event));
            tx.mail(mail);
        }
    }
    let last = sealed_votes(&tx.view(), &turn);
    for batch in &batches {
        if let Ok((event, mail)) = tx.view().sealed.reveal_replacing(batch, replaced_by) {
            tx.record_shared(SharedEvent::Sealed(event));
            tx.mail(mail);
        }
    }
    let mut outcomes: Vec<HackOutcome> = Vec::new();
    let mut effective: BTreeMap<u32, bool> = BTreeMap::new();
    let mut missed: Vec<Score> = Vec::new();
    let mut nodes: Vec<Node> = Vec::new();
    // (1) The votes: each hack's tally, and what its vote decides (322, 392,
    // 109, 359, 401).
    for proposal in &turn.proposals {
        let number = proposal.hack.number;
        let counted = counted_votes(tx, &turn, proposal, &last);
        for vote in counted.votes.iter().filter(|v| v.missing) {
            if !missed.iter().any(|m| m.player == vote.player) {
                missed.push(Score {
                    player: vote.player,
                    name: vote.name.clone(),
                    points: 0,
                    since: None,
                });
            }
        }
        let (condition_met, adopted) = match proposal.parent {
            None => {
                let met = condition_met_for(proposal.condition, &effective);
                effective.insert(number, counted.by_vote && met);
                (met, counted.by_vote && met)
            }
            Some(_) => (true, counted.by_vote),
        };
        nodes.push(Node {
            number,
            parent: proposal.parent,
            adopted,
            favour: counted.tally.favour,
        });
        outcomes.push(HackOutcome {
            hack: number,
            title: proposal.hack.title.clone(),
            tally: counted.tally,
            votes: counted.votes,
            adopted,
            condition_met,
            not_applied: None,
            parent: proposal.parent,
            gnomes: counted.gnomes,
            replaced_by: None,
            instead_of: None,
            registered: false,
        });
    }
    // 205, 107: each adopted proposal takes effect now, at the completion of
    // the vote, or the adopted meta-amendment of it instead (401).
    for root in turn.proposals.iter().filter(|p| p.parent.is_none()) {
        let Some(target) = judgment::taking_effect(&nodes, root.hack.number) else {
            continue;
        };
        let Some(hack) = turn.proposal(target).map(|p| p.hack.clone()) else {
            continue;
        };
        // 432: "The ruleset will not be altered during the exception state,
        // all changes will be registered and performed with the ending".
        let registered = tx.state().exception.active();
        let not_applied = if registered {
            tx.record(Event::ChangeRegistered {
                change: RegisteredChange {
                    turn: turn.number,
                    hack,
                },
            });
            None
        } else {
            let numbers = Bound::of(&tx.view(), tx.params()).numbers();
            match hack::adoption(&hack, tx.view().ruleset, &numbers) {
                Ok(events) => {
                    let by = format!(
                        "[gnomic] turn {} of {}, hack {}",
                        turn.number, turn.proponent_name, hack.number
                    );
                    hack::record_adoption(tx, events, &by);
                    None
                }
                Err(error) => Some(error.to_string()),
            }
        };
        for outcome in outcomes.iter_mut() {
            if outcome.hack == target {
                outcome.not_applied = not_applied.clone();
                outcome.registered = registered;
                if target != root.hack.number {
                    outcome.instead_of = Some(root.hack.number);
                }
            } else if outcome.hack == root.hack.number {
                outcome.replaced_by = Some(target);
            }
        }
    }
    // (2) The score update comes after the voting (304), by the rules as the
    // vote's completion left them: a rule this count repealed or amended
    // already binds it.
    let bound = Bound::of(&tx.view(), tx.params());
    let changes = score_update(&turn, &outcomes, &nodes, &bound);
    let mut changes = changes;
    // 113: who forfeited is out of the game: no points, no penalty.
    let forfeited = tx.state().forfeited.clone();
    changes.retain(|c| !forfeited.contains(&c.player));
    // 322: who did not vote still "receive[s] any applicable penalties".
    let penalty = tx.params().non_voter_penalty;
    if penalty != 0 {
        for voter in &missed {
            changes.push(ScoreChange {
                player: voter.player,
                name: voter.name.clone(),
                points: -penalty,
                reason: Reason::NoVote,
            });
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
    // 432: a turn overlapping one whose count made a winner is still counted,
    // but the game was won then and stays won.
    let winner = tx.state().winner.clone().or_else(|| {
        order(&after, &view)
            .into_iter()
            .filter(|s| s.points >= n)
            .max_by_key(|s| (s.points, std::cmp::Reverse(s.name.to_lowercase())))
            .map(|s| Winner {
                player: s.player,
                name: s.name,
                points: s.points,
                n,
            })
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
    sync_reminders(tx);
    let view = tx.view();
    let next = if winner.is_none() && tx.state().open.is_none() {
        mover(tx.state(), &view).map(|s| s.name)
    } else {
        None
    };
    let scores = order(tx.state(), &view);
    let mut values = report::result(
        &turn,
        &result,
        &scores,
        winner.as_ref(),
        next,
        tx.at(),
        tx.params(),
    );
    // 432: no one is "next" while any player may post a turn.
    values["exception"] = serde_json::json!(tx.state().exception.active());
    tx.mail(Mail::new(Audience::List, TAG, "gnomic_result", values));
}
