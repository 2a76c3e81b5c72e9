//! What players do to the open turn's hacks besides voting: meta-amendments
//! (401, 434, 402), a proponent's change of eir own hack (401's last
//! paragraph), and the shout of UNRULEWORTHY!!! (383, 410). Records into the
//! transaction; reads the sealed votes only to refuse a second favourable vote
//! (401), and says nothing of them in public.

use jiff::SignedDuration;

use super::bound::Bound;
use super::hack::{self, Hack};
use super::report;
use super::rules::{self, box_error, check_all_voted, refuse_code};
use super::{Choice, Event, Gnomic, PostedHack, Proposal, TAG, Turn, TurnPost, batch_id};
use crate::engine::game::{SharedEvent, Tx, View};
use crate::engine::players::PlayerId;
use crate::engine::{Audience, Ctx, Mail, Refusal, Sentence, human_time};

/// The player sending, who must be in the game.
fn in_game(tx: &Tx<'_, Gnomic>, ctx: &Ctx) -> Result<(PlayerId, String), Refusal> {
    let view = tx.view();
    view.players
        .active_by_address(&ctx.sender)
        .filter(|p| tx.state().plays(p.id))
        .map(|p| (p.id, p.name.clone()))
        .ok_or_else(|| Refusal(Sentence::new("not_a_player").arg("address", ctx.sender.as_str())))
}

/// The open turn hack `number` is in (one of several under 432).
fn open_turn(tx: &Tx<'_, Gnomic>, number: u32) -> Result<Turn, Refusal> {
    let state = tx.state();
    if state.open.is_none() {
        return Err(refuse_code("gnomic_no_open_turn"));
    }
    state
        .turn_of(number)
        .cloned()
        .ok_or_else(|| rules::not_in_turn(state, number))
}

/// 401: a meta-amendment of `parent`, other than `except`, that `player` favours:
/// by a sealed vote, or as its proponent (402's assumed vote).
pub(super) fn favoured_child(
    view: &View<'_>,
    turn: &Turn,
    parent: u32,
    player: PlayerId,
    except: Option<u32>,
) -> Option<u32> {
    let votes = rules::sealed_votes(view, turn);
    turn.proposals
        .iter()
        .filter(|p| p.parent == Some(parent) && Some(p.hack.number) != except)
        .find(|p| {
            let number = p.hack.number;
            let own = turn
                .proponent_of(number)
                .is_some_and(|(id, _)| id == player);
            if own {
                p.proponent_vote == Choice::For
            } else {
                votes.get(&(player, number)) == Some(&Choice::For)
            }
        })
        .map(|p| p.hack.number)
}

/// 401, for a vote `for` on hack `number`: the sibling meta-amendment the voter
/// already favours, if any.
pub(super) fn favoured_sibling(
    view: &View<'_>,
    turn: &Turn,
    number: u32,
    player: PlayerId,
) -> Option<u32> {
    let parent = turn.proposal(number)?.parent?;
    favoured_child(view, turn, parent, player, Some(number))
}

/// The one hack of a meta-amendment's or change's post, and the poster's vote.
fn one_hack(post: TurnPost) -> Result<(PostedHack, Option<Choice>), Refusal> {
    if let Some(line) = post.stray.first() {
        return Err(Sentence::new("gnomic_meta_stray").arg("line", line).into());
    }
    if post.sacrifice.is_some() || !post.greek.is_empty() {
        return Err(refuse_code("gnomic_meta_extras"));
    }
    let mut hacks = post.hacks.into_iter();
    let posted = match (hacks.next(), hacks.next()) {
        (Some(Ok(posted)), None) => posted,
        (Some(Err((header, error))), None) => {
            return Err(error.sentence().arg("header", header).into());
        }
        (None, _) => return Err(refuse_code("gnomic_meta_no_hack")),
        (Some(_), Some(_)) => return Err(refuse_code("gnomic_meta_one_hack")),
    };
    if posted.condition.is_some() {
        return Err(refuse_code("gnomic_meta_extras"));
    }
    let mut own = None;
    for (number, choice) in post.own_votes {
        if number != posted.hack.number {
            return Err(Sentence::new("gnomic_unknown_hack")
                .arg("hack", number)
                .into());
        }
        own = Some(choice);
    }
    Ok((posted, own))
}

/// 371: "A player may not make more than one proposal in a given turn that is
/// "the same" [...] or a direct amendment of the same rule", for a hack posted
/// or changed beside the player's own hacks of the same level: the turn's
/// proposals, or eir meta-amendments of the same hack. Another player's
/// meta-amendment is an alternative, not a second proposal of eirs: of two
/// siblings at most one takes effect (401).
fn redundant_with(
    turn: &Turn,
    parent: Option<u32>,
    player: PlayerId,
    hack: &Hack,
) -> Result<(), Refusal> {
    let same_level = turn.proposals.iter().filter(|p| {
        p.parent == parent
            && p.hack.number != hack.number
            && turn
                .proponent_of(p.hack.number)
                .is_some_and(|(id, _)| id == player)
    });
    for other in same_level {
        if hack::redundant(&other.hack, hack) {
            return Err(Sentence::new("gnomic_redundant")
                .arg("first", other.hack.number)
                .arg("second", hack.number)
                .into());
        }
    }
    Ok(())
}

/// The votes on hack `number` close then: its own 72 hours.
fn closes(turn: &Turn, number: u32) -> jiff::Timestamp {
    turn.proposal(number)
        .and_then(|p| p.deadline)
        .unwrap_or(turn.deadline)
}

/// 401: "When voting, a player may immediately propose an amendment on one of
/// the current proposals. All players will then have to vote on that
/// meta-amendment as if it were an actual amendment."
pub(super) fn meta(
    tx: &mut Tx<'_, Gnomic>,
    parent: u32,
    post: TurnPost,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let (player, name) = in_game(tx, ctx)?;
    // A hack is posted for all to read and vote on: on the list.
    if !ctx.public {
        return Err(refuse_code("gnomic_meta_private"));
    }
    // 401 is where meta-amendments come from: gone, there are none.
    let bound = Bound::of(&tx.view(), tx.params());
    if !bound.follows(bound.rules().meta_amendments) {
        return Err(Sentence::new("gnomic_rule_not_followed")
            .arg("rule", bound.rules().meta_amendments)
            .into());
    }
    let turn = open_turn(tx, parent)?;
    let Some(amended) = turn.proposal(parent) else {
        return Err(rules::not_in_turn(tx.state(), parent));
    };
    // 401: "No player may meta-amend his own proposals."
    if turn
        .proponent_of(parent)
        .is_some_and(|(id, _)| id == player)
    {
        return Err(Sentence::new("gnomic_meta_own").arg("hack", parent).into());
    }
    // A hack whose vote is complete is no "current proposal" (401).
    if ctx.now >= closes(&turn, parent) || turn.hack_counted(parent) {
        return Err(Sentence::new("gnomic_vote_closed")
            .arg("hack", parent)
            .arg("closes", human_time(turn.closes_at()))
            .into());
    }
    let (posted, own) = one_hack(post)?;
    let hack = posted.hack;
    let params = tx.params();
    let view = tx.view();
    // 108: a meta-amendment is a hack, and takes the next ordinal.
    let expected = rules::next_ordinal(tx.state(), &view, params);
    if hack.number != expected {
        return Err(Sentence::new("gnomic_wrong_number")
            .arg("written", hack.number)
            .arg("expected", expected)
            .arg("title", &hack.title)
            .into());
    }
    let bound = Bound::of(&view, params);
    hack::adoption(&hack, view.ruleset, &bound.numbers())
        .map_err(|e| Refusal(e.sentence().arg("header", hack.number)))?;
    redundant_with(&turn, Some(parent), player, &hack)?;
    let proponent_vote = own.unwrap_or(Choice::For);
    // 401: the author's assumed "for" (402) is a favourable vote too.
    if proponent_vote == Choice::For
        && let Some(other) = favoured_child(&view, &turn, parent, player, None)
    {
        return Err(Sentence::new("gnomic_one_favourable")
            .arg("hack", hack.number)
            .arg("other", other)
            .arg("parent", parent)
            .into());
    }
    let vote_hours = bound.vote_hours();
    let deadline = vote_hours
        .checked_mul(3600)
        .filter(|s| *s > 0)
        .and_then(|s| ctx.now.checked_add(SignedDuration::from_secs(s)).ok())
        .ok_or_else(|| Refusal(Sentence::new("gnomic_bad_hours").arg("hours", vote_hours)))?;
    let batch = format!("{}:hack:{}", batch_id(turn.number), hack.number);
    let opened = view
        .sealed
        .open_titled(
            &batch,
            TAG,
            &format!("the votes on hack {} of turn {}", hack.number, turn.number),
            deadline,
        )
        .map_err(|e| box_error(&e))?;
    let proposal = Proposal {
        unanimity: hack::needs_unanimity(&hack, view.ruleset),
        hack,
        proponent_vote,
        condition: None,
        greek: None,
        parent: Some(parent),
        proponent: Some(player),
        proponent_name: Some(name.clone()),
        posted_at: Some(ctx.now),
        deadline: Some(deadline),
        batch: Some(batch),
        changed_at: None,
    };
    let amended_title = amended.hack.title.clone();
    tx.record(Event::MetaPosted {
        turn: turn.number,
        proposal: proposal.clone(),
    });
    tx.record_shared(SharedEvent::Sealed(opened));
    let state = tx.state();
    let open = state
        .open_turns()
        .find(|t| t.number == turn.number)
        .cloned()
        .unwrap_or(turn);
    let voters: Vec<String> = rules::voters_of(state, &tx.view(), &open, proposal.hack.number)
        .into_iter()
        .map(|s| s.name)
        .collect();
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "gnomic_meta",
        report::meta(
            &open,
            &proposal,
            &amended_title,
            &voters,
            tx.params(),
            Bound::of(&tx.view(), tx.params()).web_mode_meta_seconds(),
        ),
    ));
    rules::sync_reminders(tx);
    Ok(Sentence::new("gnomic_meta_posted")
        .arg("hack", proposal.hack.number)
        .arg("parent", parent)
        .arg("deadline", human_time(deadline)))
}

/// 401: "If a player wishes to make a change to a proposal, he may do this by
/// posting such a message, but the change is not given a new proposal number
/// [...] All votes posted before the changes become invalid."
pub(super) fn change(
    tx: &mut Tx<'_, Gnomic>,
    number: u32,
    post: TurnPost,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let (player, _) = in_game(tx, ctx)?;
    let turn = open_turn(tx, number)?;
    let Some(proposal) = turn.proposal(number) else {
        return Err(rules::not_in_turn(tx.state(), number));
    };
    let (owner, owner_name) = turn
        .proponent_of(number)
        .map_or((turn.proponent, turn.proponent_name.clone()), |(id, n)| {
            (id, n.to_owned())
        });
    if owner != player {
        return Err(Sentence::new("gnomic_change_not_yours")
            .arg("hack", number)
            .arg("proponent", &owner_name)
            .into());
    }
    if ctx.now >= closes(&turn, number) || turn.hack_counted(number) {
        return Err(Sentence::new("gnomic_vote_closed")
            .arg("hack", number)
            .arg("closes", human_time(turn.closes_at()))
            .into());
    }
    let (posted, own) = one_hack(post)?;
    let hack: Hack = posted.hack;
    if hack.number != number {
        return Err(Sentence::new("gnomic_change_number")
            .arg("hack", number)
            .arg("written", hack.number)
            .into());
    }
    let view = tx.view();
    hack::adoption(
        &hack,
        view.ruleset,
        &Bound::of(&view, tx.params()).numbers(),
    )
    .map_err(|e| Refusal(e.sentence().arg("header", hack.number)))?;
    redundant_with(&turn, proposal.parent, player, &hack)?;
    if own.unwrap_or(proposal.proponent_vote) == Choice::For
        && proposal.parent.is_some()
        && let Some(other) = favoured_sibling(&view, &turn, number, player)
    {
        return Err(Sentence::new("gnomic_one_favourable")
            .arg("hack", number)
            .arg("other", other)
            .arg("parent", proposal.parent)
            .into());
    }
    let voided: Vec<String> = turn
        .voted
        .iter()
        .filter(|v| v.hack == number)
        .map(|v| v.name.clone())
        .collect();
    let unanimity = hack::needs_unanimity(&hack, view.ruleset);
    tx.record(Event::HackChanged {
        turn: turn.number,
        hack: hack.clone(),
        proponent_vote: own,
        unanimity,
    });
    let mut value = report::hack(&hack);
    value["proponent"] = serde_json::json!(owner_name);
    value["voided"] = serde_json::json!(voided);
    value["closes"] = serde_json::json!(human_time(closes(&turn, number)));
    value["at"] = serde_json::json!(human_time(ctx.now));
    tx.mail(Mail::new(Audience::List, TAG, "gnomic_changed", value));
    rules::sync_reminders(tx);
    Ok(Sentence::new("gnomic_change_posted")
        .arg("hack", number)
        .arg("voided", voided))
}

/// Hack `number` and every meta-amendment under it.
fn with_descendants(turn: &Turn, number: u32) -> Vec<u32> {
    let mut withdrawn = vec![number];
    let mut index = 0;
    while let Some(at) = withdrawn.get(index).copied() {
        withdrawn.extend(
            turn.proposals
                .iter()
                .filter(|p| p.parent == Some(at))
                .map(|p| p.hack.number),
        );
        index += 1;
    }
    withdrawn
}

/// 383: "Players are allowed to shout "UNRULEWORTHY!!!" at any current
/// proposal [...] The proposal will then be repealed instantaneously." Whether
/// the shout's ground holds is for Judgment, not for the bot.
pub(super) fn shout(
    tx: &mut Tx<'_, Gnomic>,
    number: u32,
    reason: Option<String>,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let (player, name) = in_game(tx, ctx)?;
    let state = tx.state();
    let open = state.turn_of(number).filter(|t| !t.hack_counted(number));
    let Some(turn) = open.cloned() else {
        let counted = state.turn_of(number).is_some()
            || state
                .last_result
                .as_ref()
                .is_some_and(|r| r.outcomes.iter().any(|o| o.hack == number));
        return Err(Sentence::new(if counted {
            "gnomic_shout_counted"
        } else {
            "gnomic_shout_no_hack"
        })
        .arg("hack", number)
        .into());
    };
    let title = turn
        .proposal(number)
        .map(|p| p.hack.title.clone())
        .unwrap_or_default();
    // 383 and 410 allow the shout; each only while the bot follows it.
    let bound = Bound::of(&tx.view(), tx.params());
    let (by_383, by_410) = (
        bound.follows(bound.rules().shout),
        bound.follows(bound.rules().obfuscated),
    );
    if !by_383 && !by_410 {
        return Err(Sentence::new("gnomic_rule_not_followed")
            .arg("rule", bound.rules().shout)
            .into());
    }
    let ground = reason
        .as_deref()
        .and_then(ground_named)
        .filter(|g| if g.starts_with("410") { by_410 } else { by_383 });
    if tx.params().unruleworthy_literal {
        // 434: "The word "proposal" identifies only proposals made by a
        // player during his own turn as a part of his initial post".
        if let Some(parent) = turn.proposal(number).and_then(|p| p.parent) {
            return Err(Sentence::new("gnomic_shout_meta")
                .arg("hack", number)
                .arg("parent", parent)
                .into());
        }
        // 383, 410: "Players are allowed to shout ... if" one of the grounds
        // holds: a shout names one. Whether it truly holds is for Judgment.
        if ground.is_none() {
            return Err(Sentence::new("gnomic_shout_no_ground")
                .arg("hack", number)
                .arg("grounds", GROUNDS.iter().map(|g| g.1).collect::<Vec<_>>())
                .into());
        }
    }
    let withdrawn = with_descendants(&turn, number);
    tx.record(Event::Shouted {
        turn: turn.number,
        hack: number,
        withdrawn: withdrawn.clone(),
        player,
        name: name.clone(),
        reason: reason.clone(),
        ground: ground.map(str::to_owned),
    });
    let remaining: Vec<u32> = tx
        .state()
        .open_turns()
        .find(|t| t.number == turn.number)
        .map(|t| t.proposals.iter().map(|p| p.hack.number).collect())
        .unwrap_or_default();
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "gnomic_shouted",
        serde_json::json!({
            "by": name,
            "at": human_time(ctx.now),
            "hack": number,
            "title": title,
            "withdrawn": withdrawn,
            "reason": reason,
            "ground": ground,
            "turn": turn.number,
            "remaining": remaining,
        }),
    ));
    check_all_voted(tx);
    rules::sync_reminders(tx);
    Ok(Sentence::new("gnomic_shouted")
        .arg("hack", number)
        .arg("withdrawn", withdrawn))
}

/// The grounds on which 383 and 410 allow the shout, each with the words a
/// shout's reason names it by (any case) and the rule's own words.
const GROUNDS: [(&[&str], &str); 9] = [
    (
        &["win"],
        "383: it would cause any player to win the game within two turns",
    ),
    (
        &["redundan"],
        "383: it is redundant with an existing or proposed rule",
    ),
    (
        &[
            "contradicts rule",
            "contradicts the rule",
            "contradicts a rule",
            "contradicts current",
            "contradicts an existing",
            "contradicts existing",
            "contradicts the current",
            "conflicts with",
        ],
        "383: it contradicts one of the current rules",
    ),
    (
        &["contradicts itself", "self-contradict", "contradictory"],
        "383: it contradicts itself",
    ),
    (&["unclear"], "383: it is seriously unclear"),
    (
        &["disadvantage"],
        "383: it would cause a major disadvantage to a certain player or group of players",
    ),
    (
        &["offend", "offensive"],
        "383: it could offend a certain group of players",
    ),
    (
        &["new aspect", "nothing new"],
        "383: it does not bring any new aspect to the gameplay",
    ),
    (&["obfuscat"], "410: it is unnecessarily obfuscated"),
];

/// The ground a shout's reason names, in the rule's words; none if it names
/// none of them.
fn ground_named(reason: &str) -> Option<&'static str> {
    let reason = reason.to_lowercase();
    GROUNDS
        .iter()
        .find(|(words, _)| words.iter().any(|w| reason.contains(w)))
        .map(|(_, ground)| *ground)
}
