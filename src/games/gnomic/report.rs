//! The values of `[gnomic]`'s announcements (`templates/gnomic_*.txt`) and of
//! `status` (`templates/sentences/gnomic.txt`). Values only: the wording is the
//! templates'. Nothing here reads a sealed vote: before the count the values
//! say who has voted, never how.

use serde_json::{Value, json};

use super::hack::{Change, Hack, Replacement};
use super::rules;
use super::scoring::{GnomeChoice, GnomeVote, Tally};
use super::{CountedVote, Params, Proposal, Reason, Score, State, Turn, TurnResult, Winner};
use crate::engine::game::View;
use crate::engine::{Timestamp, human_time};

/// A hack as the announcements show it.
pub(super) fn hack(hack: &Hack) -> Value {
    let (kind, rule, text, section) = match &hack.change {
        Change::Enact { text, mutable } => (
            if *mutable { "enact" } else { "enact_immutable" },
            None,
            Some(text.clone()),
            None,
        ),
        Change::Amend { rule, replacement } => {
            let (text, section) = match replacement {
                Replacement::Whole { text } => (text.clone(), None),
                Replacement::Section { from, to, text } => {
                    (text.clone(), Some(format!("from \"{from}\" to \"{to}\"")))
                }
                Replacement::Sentences { first, last, text } if first == last => {
                    (text.clone(), Some(format!("sentence {first}")))
                }
                Replacement::Sentences { first, last, text } => {
                    (text.clone(), Some(format!("sentences {first} to {last}")))
                }
                Replacement::Paragraph { number, text } => {
                    (text.clone(), Some(format!("paragraph {number}")))
                }
            };
            ("amend", Some(*rule), Some(text), section)
        }
        Change::Repeal { rule } => ("repeal", Some(*rule), None, None),
        Change::Transmute { rule } => ("transmute", Some(*rule), None, None),
    };
    json!({
        "number": hack.number,
        "title": hack.title,
        "kind": kind,
        "rule": rule,
        "text": text,
        "section": section,
    })
}

/// `gnomic_turn`: a turn's post, with how to vote.
pub fn turn(turn: &Turn, voters: &[String], params: &Params) -> Value {
    let hacks: Vec<Value> = turn
        .proposals
        .iter()
        .map(|p| {
            let mut value = hack(&p.hack);
            value["proponent_vote"] = json!(p.proponent_vote.as_str());
            value["condition"] = json!(p.condition.map(|c| json!({
                "hack": c.hack,
                "adopted": c.adopted,
            })));
            value["unanimity"] = json!(p.unanimity);
            value["greek"] = json!(p.greek);
            value["greek_counted"] = json!(super::scoring::greek_count(&p.hack.proposed_text()));
            value
        })
        .collect();
    json!({
        "turn": turn.number,
        "proponent": turn.proponent_name,
        "at": human_time(turn.posted_at),
        "deadline": human_time(turn.deadline),
        // 402's hours as the rule stood when the turn was posted.
        "vote_hours": (turn.deadline - turn.posted_at).get_hours(),
        "hacks": hacks,
        "first": turn.proposals.first().map(|p| p.hack.number),
        "sacrifice": turn.sacrifice.map(|s| json!({"lambda": s.lambda, "nu": s.nu, "mu": s.mu})),
        "voters": voters,
        "web_mode": params.web_mode,
        "web_mode_seconds": params.web_mode_root_seconds,
        "may_change": params.votes_may_change,
        "penalty": params.non_voter_penalty,
    })
}

fn reason(reason: Reason) -> Value {
    let (rule, hack, what) = match reason {
        Reason::Adopted { hack } => ("304", Some(hack), "adopted"),
        Reason::Favourable { hack } => ("304", Some(hack), "favourable"),
        Reason::Failed { hack } => ("421", Some(hack), "failed"),
        Reason::Vowels { hack } => ("372", Some(hack), "vowels"),
        Reason::Greek { hack } => ("394", Some(hack), "greek"),
        Reason::AgainstWinner { hack } => ("204", Some(hack), "against_winner"),
        Reason::NoVote => ("322", None, "no_vote"),
        Reason::MetaShare { hack } => ("401", Some(hack), "meta_share"),
        Reason::FailedMeta { hack } => ("421", Some(hack), "failed_meta"),
        Reason::Invoked { question } => ("373", Some(question), "invoked"),
        Reason::Upheld { question } => ("373", Some(question), "upheld"),
        Reason::Accused { question } => ("373", Some(question), "accused"),
        Reason::Overruled { question } => ("212", Some(question), "overruled"),
    };
    json!({ "rule": rule, "hack": hack, "what": what })
}

fn gnome_choice(choice: GnomeChoice) -> &'static str {
    match choice {
        GnomeChoice::Favour => "for",
        GnomeChoice::Against => "against",
        GnomeChoice::Abstain => "abstain",
    }
}

/// `gnomic_meta`: a meta-amendment posted (401), with how to vote on it.
pub fn meta(
    turn: &Turn,
    proposal: &Proposal,
    amended_title: &str,
    voters: &[String],
    params: &Params,
    web_mode_seconds: i64,
) -> Value {
    let mut value = hack(&proposal.hack);
    value["turn"] = json!(turn.number);
    value["parent"] = json!(proposal.parent);
    value["amended_title"] = json!(amended_title);
    value["proponent"] = json!(proposal.proponent_name);
    value["proponent_vote"] = json!(proposal.proponent_vote.as_str());
    value["at"] = json!(proposal.posted_at.map(human_time));
    value["deadline"] = json!(proposal.deadline.map(human_time));
    value["closes"] = json!(human_time(turn.closes_at()));
    value["voters"] = json!(voters);
    value["web_mode"] = json!(params.web_mode);
    value["web_mode_seconds"] = json!(web_mode_seconds);
    value["unanimity"] = json!(proposal.unanimity);
    value
}

/// One hack of `gnomic_votes_counted`: its vote complete before its turn's
/// count (402), the votes by name, the tally and whether the vote adopts it.
pub fn counted_hack(
    proposal: &Proposal,
    votes: &[CountedVote],
    gnomes: &[GnomeVote],
    tally: Tally,
    by_vote: bool,
) -> Value {
    json!({
        "hack": proposal.hack.number,
        "title": proposal.hack.title,
        "parent": proposal.parent,
        "favour": tally.favour,
        "against": tally.against,
        "abstain": tally.abstain,
        "votes": votes.iter().map(|v| json!({
            "name": v.name, "choice": v.choice.as_str(), "missing": v.missing,
        })).collect::<Vec<_>>(),
        "gnomes": gnomes.iter().enumerate().map(|(i, g)| json!({
            "gnome": i + 1, "mu": g.mu, "choice": gnome_choice(g.vote),
        })).collect::<Vec<_>>(),
        "adopted": by_vote,
        "unanimity": proposal.unanimity,
    })
}

/// `gnomic_result`: the votes counted, what took effect, and the score update
/// of rule 430 ("all scores and penalties made during this turn, the current
/// score of all active and bot players and the current number n").
pub fn result(
    turn: &Turn,
    result: &TurnResult,
    scores: &[Score],
    winner: Option<&Winner>,
    next: Option<String>,
    at: Timestamp,
    params: &Params,
) -> Value {
    let outcomes: Vec<Value> = result
        .outcomes
        .iter()
        .map(|o| {
            json!({
                "hack": o.hack,
                "title": o.title,
                "favour": o.tally.favour,
                "against": o.tally.against,
                "abstain": o.tally.abstain,
                "votes": o.votes.iter().map(|v| json!({
                    "name": v.name, "choice": v.choice.as_str(), "missing": v.missing,
                })).collect::<Vec<_>>(),
                "adopted": o.adopted,
                "condition_met": o.condition_met,
                "not_applied": o.not_applied,
                "unanimity": turn.proposals.iter().any(|p| p.hack.number == o.hack && p.unanimity),
                "parent": o.parent,
                "gnomes": o.gnomes.iter().enumerate().map(|(i, g)| json!({
                    "gnome": i + 1, "mu": g.mu, "choice": gnome_choice(g.vote),
                })).collect::<Vec<_>>(),
                "replaced_by": o.replaced_by,
                "instead_of": o.instead_of,
                "registered": o.registered,
            })
        })
        .collect();
    let changes: Vec<Value> = result
        .changes
        .iter()
        .map(|c| json!({ "name": c.name, "points": c.points, "reason": reason(c.reason) }))
        .collect();
    json!({
        "turn": turn.number,
        "proponent": turn.proponent_name,
        "posted_at": human_time(turn.posted_at),
        "deadline": human_time(turn.deadline),
        "at": human_time(at),
        "early": at < turn.deadline,
        "outcomes": outcomes,
        "sacrifice": turn.sacrifice.map(|s| json!({"lambda": s.lambda, "nu": s.nu})),
        "changes": changes,
        "scores": scores.iter().map(|s| json!({"name": s.name, "points": s.points})).collect::<Vec<_>>(),
        "n": result.n,
        "winner": winner.map(|w| json!({"name": w.name, "points": w.points})),
        "next": next,
        "penalty": params.non_voter_penalty,
    })
}

/// `status`: whose turn it is, the open hacks and who has voted on each (never
/// how), the scores and n.
pub fn status(state: &State, view: &View<'_>, params: &Params, now: Timestamp) -> Value {
    let open_turn = |turn: &Turn| {
        json!({
            "turn": turn.number,
            "proponent": turn.proponent_name,
            "deadline": human_time(turn.closes_at()),
            "counting": turn.count_due() <= now,
            "hacks": turn.proposals.iter().map(|p| {
                let voters = rules::voters_of(state, view, turn, p.hack.number);
                let voted: Vec<&str> = voters.iter()
                    .filter(|v| turn.voted.iter().any(|x| x.player == v.player && x.hack == p.hack.number))
                    .map(|v| v.name.as_str()).collect();
                let waiting: Vec<&str> = voters.iter()
                    .filter(|v| !voted.contains(&v.name.as_str()))
                    .map(|v| v.name.as_str()).collect();
                json!({
                    "number": p.hack.number, "title": p.hack.title, "voted": voted, "waiting": waiting,
                    "parent": p.parent, "proponent": p.proponent_name,
                    "counted": turn.hack_counted(p.hack.number),
                    "closes": human_time(p.deadline.unwrap_or(turn.deadline)),
                })
            }).collect::<Vec<_>>(),
        })
    };
    let open = state.open.as_ref().map(open_turn);
    let overlapping: Vec<Value> = state.overlapping.iter().map(open_turn).collect();
    let names = |ids: &[crate::engine::players::PlayerId]| -> Vec<String> {
        state
            .scores
            .iter()
            .filter(|s| ids.contains(&s.player))
            .map(|s| s.name.clone())
            .collect()
    };
    // The rules the game follows, and what it does not apply now (issue 22).
    let bound = super::bound::Bound::of(view, params);
    let held: Vec<Value> = bound
        .held()
        .into_iter()
        .map(|(rule, why)| json!({"rule": rule, "why": why}))
        .collect();
    let not_followed: Vec<Value> = bound
        .not_followed()
        .into_iter()
        .map(|(rule, mechanics, why)| json!({"rule": rule, "mechanics": mechanics, "why": why}))
        .collect();
    json!({
        "follows": bound.followed(view),
        "held": held,
        "not_followed": not_followed,
        "overlapping": overlapping,
        "exception": {
            "active": state.exception.active(),
            "since": state.exception.since.map(human_time),
            "agreed": names(&state.exception.agreed),
            "registered": state.exception.registered.iter().map(|r| json!({"turn": r.turn, "hack": r.hack.number, "title": r.hack.title})).collect::<Vec<_>>(),
        },
        "started": state.started_at.is_some(),
        "mover": if state.open.is_none() && state.winner.is_none() {
            rules::mover(state, view).map(|s| s.name)
        } else {
            None
        },
        // The precedents of 327 take their numbers first, when the next turn begins.
        "next_ordinal": rules::next_ordinal(state, view, params).saturating_add(if state.open.is_none() {
            state.questions.iter().filter(|q| q.ruling.is_some()).count() as u32
        } else {
            0
        }),
        "open": open,
        "scores": rules::order(state, view).iter().map(|s| json!({"name": s.name, "points": s.points})).collect::<Vec<_>>(),
        "n": rules::threshold(state, view, params),
        "winner": state.winner.as_ref().map(|w| json!({"name": w.name, "points": w.points})),
        "questions": state.questions.iter().map(|q| json!({
            "number": q.number,
            "text": q.text,
            "invoker": q.invoker_name,
            "accused": q.accused_name,
            "judge": q.judge_name,
            "ruling": q.ruling.as_ref().map(|r| json!({"agreed": r.agreed, "text": r.text})),
            "overrule_votes": q.overrule_votes.len(),
        })).collect::<Vec<_>>(),
    })
}
