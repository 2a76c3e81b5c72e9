//! The values of `[ping]`'s announcements (`templates/ping_*.txt`) and of its
//! longer answers (`templates/sentences/ping.txt`). Values only: the wording is
//! the templates'. Nothing here shows a truth that is not yet revealed.

use serde_json::{Value, json};

use crate::engine::players::Registry;
use crate::engine::{Timestamp, human_time};

use super::{Machine, Params, Reason, Term, truth};

/// `ping_moved`: the Machine moved (or found no Home), and why.
pub fn moved(
    previous: Option<&Term>,
    to: Option<(&str, &str)>,
    reason: &Reason,
    draw: Option<Value>,
    at: Timestamp,
    quack_at: Timestamp,
    numbers: &Params,
) -> Value {
    let (placed_by, because, grounds) = match reason {
        Reason::Placed { by, because } => (Some(by.as_str()), Some(because.as_str()), None),
        Reason::Removal { grounds } => (None, None, Some(grounds.as_str())),
        _ => (None, None, None),
    };
    json!({
        "why": reason.code(),
        "placed_by": placed_by,
        "because": because,
        "grounds": grounds,
        "previous": previous.map(|t| t.scholar_name.as_str()),
        "previous_home": previous.map(|t| t.home.as_str()),
        "scholar": to.map(|(name, _)| name),
        "home": to.map(|(_, home)| home),
        "draw": draw,
        "at": human_time(at),
        "quack_at": human_time(quack_at),
        "quack_days": numbers.quack_days,
        "reveal_after": numbers.reveal_after_pings,
    })
}

/// `status`: where the Machine is, the disguised truth, the pings, the guesses
/// and the Magic Letters of the term. Never the truth.
pub fn status(state: &Machine, players: &Registry, numbers: &Params) -> Value {
    let term = state.term.as_ref();
    let magic = state.magic_letters();
    json!({
        "rule": numbers.rule,
        "ended": state.ended.as_ref().map(|e| e.why.as_str()),
        "held": state.held_since.is_some(),
        "placed": term.is_some(),
        "scholar": term.map(|t| t.scholar_name.as_str()),
        "home": term.map(|t| t.home.as_str()),
        "since": term.map(|t| human_time(t.began_at)),
        "quack_at": term
            .filter(|t| t.truth.as_ref().is_none_or(|tr| tr.announced_at.is_none()))
            .map(|t| human_time(t.quack_at)),
        "disguised": state
            .announced()
            .map(|truth| truth::disguised(&truth.clause, &magic)),
        "by_form": state.announced().is_some_and(|t| t.form.is_some()),
        "pings": term.map_or(0, |t| t.pings.len()),
        "reveal_after": numbers.reveal_after_pings,
        "last_ping": term.and_then(|t| t.pings.last()).map(|p| p.date.to_string()),
        "guesses": term.map(|t| t.guesses.iter().map(|g| json!({
            "name": g.name,
            "correct": g.correct,
            "at": human_time(g.at),
        })).collect::<Vec<_>>()).unwrap_or_default(),
        "magic": magic.iter().map(char::to_string).collect::<Vec<_>>(),
        "boons_due": state.boons_due.iter().map(|b| b.name.as_str()).collect::<Vec<_>>(),
        "owed_reveals": state.owed_reveals.iter().map(|o| {
            players.by_id(o.player).map_or(o.name.clone(), |p| p.name.clone())
        }).collect::<Vec<_>>(),
    })
}

/// What `state ping` shows without `--private`: the state with every truth and
/// form not yet revealed blanked.
pub fn public_state(state: &Machine) -> Value {
    const SECRET: &str = "(secret until revealed)";
    let mut shown = state.clone();
    if let Some(truth) = shown.term.as_mut().and_then(|t| t.truth.as_mut()) {
        if !truth.revealed {
            truth.clause = SECRET.to_owned();
        }
        if truth.form.is_some() {
            truth.form = Some(SECRET.to_owned());
        }
    }
    for past in shown.uttered.iter_mut().filter(|u| !u.revealed) {
        past.clause = SECRET.to_owned();
    }
    for owed in &mut shown.owed_reveals {
        owed.clause = SECRET.to_owned();
    }
    serde_json::to_value(&shown).unwrap_or(Value::Null)
}
