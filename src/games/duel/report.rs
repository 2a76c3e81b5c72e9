//! The values of `[duel]`'s announcements (`templates/duel_*.txt`) and of its
//! longer answers (`templates/sentences/duel.txt`). Values only: the wording
//! is the templates'.

use serde_json::{Value, json};

use super::{Challenge, Contest, Duels, End, Params, Stage};
use crate::engine::human_time;

pub fn suite_names(suite: &[Contest]) -> Vec<String> {
    suite.iter().map(|c| c.name.clone()).collect()
}

pub fn suite(suite: &[Contest]) -> Value {
    suite
        .iter()
        .map(|c| {
            json!({
                "name": c.name,
                "players": c.players,
                "teams": c.teams,
                "definite_winner": c.definite_winner,
                "by_the_bot": c.refereed_by_the_bot(),
                "referee": c.referee,
            })
        })
        .collect()
}

pub fn commitments(duel: &Challenge) -> Value {
    duel.commitments
        .iter()
        .map(|c| json!({"name": c.name, "text": c.text, "at": human_time(c.at)}))
        .collect()
}

pub fn challenged(duel: &Challenge, contests: &[Contest], numbers: &Params) -> Value {
    json!({
        "number": duel.number,
        "challenger": duel.challenger.name,
        "challenged": duel.challenged.name,
        "second": duel.challenger_second.name,
        "reason": duel.reason,
        "at": human_time(duel.challenged_at),
        "until": human_time(duel.answer_until),
        "days": numbers.answer_days.get(),
        "suite": suite_names(contests),
        "loss": numbers.forfeit_loss,
        "gain": numbers.forfeit_gain,
        "currency": numbers.currency,
    })
}

pub fn accepted(duel: &Challenge, contest: Option<&Contest>) -> Value {
    json!({
        "number": duel.number,
        "challenger": duel.challenger.name,
        "challenged": duel.challenged.name,
        "second": duel.challenged_second.as_ref().map(|s| s.name.clone()),
        "challenger_second": duel.challenger_second.name,
        "waived": contest.is_none(),
        "contest": contest.map(|c| c.name.clone()),
        "teams": duel.teams,
        "by_the_bot": contest.is_some_and(Contest::refereed_by_the_bot),
        "referee": contest.map(|c| c.referee.clone()),
    })
}

pub fn ended(duel: &Challenge, end: &End, points: &[Value], numbers: &Params) -> Value {
    let (kind, winner, loser, by, why) = match end {
        End::Won { winner, by } => (
            "won",
            Some(duel.name_of(*winner)),
            Some(duel.other(*winner).name.clone()),
            Some(by.clone()),
            None,
        ),
        End::NoWinner { by } => ("no_winner", None, None, Some(by.clone()), None),
        End::Cancelled { why } => ("cancelled", None, None, None, Some(why.clone())),
        End::Forfeited { why, .. } => ("forfeited", None, None, None, Some(why.clone())),
    };
    json!({
        "number": duel.number,
        "kind": kind,
        "challenger": duel.challenger.name,
        "challenged": duel.challenged.name,
        "contest": duel.contest,
        "winner": winner,
        "loser": loser,
        "by": by,
        "why": why,
        "points": points,
        "currency": numbers.currency,
        "commitments": commitments(duel),
    })
}

pub fn open_duels(state: &Duels) -> Value {
    state
        .duels
        .iter()
        .filter(|d| d.is_open())
        .map(|d| {
            json!({
                "number": d.number,
                "challenger": d.challenger.name,
                "challenged": d.challenged.name,
                "stage": d.stage,
                "contest": d.contest,
                "until": (d.stage == Stage::Challenged).then(|| human_time(d.answer_until)),
            })
        })
        .collect()
}
