//! 432, the exception state ("Emergency break"): each player's agreement to
//! begin or end it, the change of state when every active player of the game
//! has agreed, and the changes registered during it performed at its end, in
//! the order counted. What a turn does differently during it (any player, at
//! any time, overlapping) is `rules`'s; this module only records agreements and
//! changes of state.

use super::bound::Bound;
use super::hack;
use super::rules::{self, refuse_code};
use super::{Event, Gnomic, TAG};
use crate::engine::game::Tx;
use crate::engine::{Audience, Ctx, Mail, Refusal, Sentence, human_time};

/// 432: "All active players must agree on its invokation" and "The exception
/// state ends when all active players agree to let it end": one player's
/// agreement to the next change of state.
pub(super) fn agree(tx: &mut Tx<'_, Gnomic>, end: bool, ctx: &Ctx) -> Result<Sentence, Refusal> {
    let state = tx.state();
    if state.started_at.is_none() {
        return Err(refuse_code("gnomic_not_started"));
    }
    let view = tx.view();
    let (player, name) = view
        .players
        .active_by_address(&ctx.sender)
        .filter(|p| state.plays(p.id))
        .map(|p| (p.id, p.name.clone()))
        .ok_or_else(|| {
            Refusal(Sentence::new("not_a_player").arg("address", ctx.sender.as_str()))
        })?;
    match (state.exception.active(), end) {
        (true, false) => return Err(refuse_code("gnomic_exception_in_force")),
        (false, true) => return Err(refuse_code("gnomic_exception_not_in_force")),
        _ => {}
    }
    if state.exception.agreed.contains(&player) {
        return Err(Sentence::new("gnomic_exception_agreed_already")
            .arg("end", end)
            .arg("waiting", waiting(tx))
            .into());
    }
    tx.record(Event::ExceptionAgreed { player, name, end });
    let waiting = waiting(tx);
    check(tx);
    Ok(Sentence::new("gnomic_exception_agreed")
        .arg("end", end)
        .arg("waiting", waiting))
}

/// The active players of the game who have not agreed yet.
fn waiting(tx: &Tx<'_, Gnomic>) -> Vec<String> {
    let state = tx.state();
    rules::active_players(state, &tx.view())
        .into_iter()
        .filter(|s| !state.exception.agreed.contains(&s.player))
        .map(|s| s.name)
        .collect()
}

/// The state changes once every active player of the game has agreed: after an
/// agreement, and when a player who had not agreed stops being active (a
/// forfeit, a vacation, leaving).
pub(super) fn check(tx: &mut Tx<'_, Gnomic>) {
    let state = tx.state();
    if state.started_at.is_none() || state.exception.agreed.is_empty() || !waiting(tx).is_empty() {
        return;
    }
    if state.exception.active() {
        end(tx);
    } else {
        tx.record(Event::ExceptionBegan);
        let view = tx.view();
        let players: Vec<String> = rules::active_players(tx.state(), &view)
            .into_iter()
            .map(|s| s.name)
            .collect();
        let open: Vec<u32> = tx.state().open_turns().map(|t| t.number).collect();
        tx.mail(Mail::new(
            Audience::List,
            TAG,
            "gnomic_exception",
            serde_json::json!({
                "what": "began",
                "at": human_time(tx.at()),
                "players": players,
                "open": open,
                "applied": [],
                "next": null,
            }),
        ));
    }
}

/// 432: "all changes will be registered and performed with the ending of the
/// exception state": in the order they were counted, each against the ruleset
/// as the ones before it left it; one that can no longer be applied (an earlier
/// one repealed its rule) is reported with the reason.
fn end(tx: &mut Tx<'_, Gnomic>) {
    let registered = tx.state().exception.registered.clone();
    let mut applied = Vec::new();
    for change in registered {
        let not_applied = match hack::adoption(
            &change.hack,
            tx.view().ruleset,
            &Bound::of(&tx.view(), tx.params()).numbers(),
        ) {
            Ok(events) => {
                let by = format!(
                    "[gnomic] turn {}, hack {} (registered during the exception state)",
                    change.turn, change.hack.number
                );
                hack::record_adoption(tx, events, &by);
                None
            }
            Err(error) => Some(error.to_string()),
        };
        applied.push(serde_json::json!({
            "turn": change.turn,
            "hack": change.hack.number,
            "title": change.hack.title,
            "not_applied": not_applied,
        }));
    }
    tx.record(Event::ExceptionEnded);
    let view = tx.view();
    let players: Vec<String> = rules::active_players(tx.state(), &view)
        .into_iter()
        .map(|s| s.name)
        .collect();
    let open: Vec<u32> = tx.state().open_turns().map(|t| t.number).collect();
    let next = if open.is_empty() && tx.state().winner.is_none() {
        rules::mover(tx.state(), &view).map(|s| s.name)
    } else {
        None
    };
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "gnomic_exception",
        serde_json::json!({
            "what": "ended",
            "at": human_time(tx.at()),
            "players": players,
            "open": open,
            "applied": applied,
            "next": next,
        }),
    ));
}
