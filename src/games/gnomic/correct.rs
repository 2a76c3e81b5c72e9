//! A moderator's corrections of the game: a player's score, whose turn it is,
//! the next ordinal (108). The bot referees to the letter, but a moderator is
//! the final arbiter: each correction takes a reason, is logged as an event of
//! its own (replayed like any other) and announced on the list, as `adjust` is.

use super::rules::{self, refuse_code};
use super::{Correction, Event, Gnomic, TAG};
use crate::engine::game::Tx;
use crate::engine::players::PlayerId;
use crate::engine::{Audience, Ctx, Mail, Refusal, Sentence, human_time};

pub(super) fn correct(
    tx: &mut Tx<'_, Gnomic>,
    correction: Correction,
    reason: String,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    if tx.state().started_at.is_none() {
        return Err(refuse_code("gnomic_not_started"));
    }
    let (what, name, value, was) = match correction {
        Correction::Score { name, points } => {
            let (player, name, was) = seated(tx, &name)?;
            tx.record(Event::ScoreSet {
                player,
                name: name.clone(),
                points,
                was,
                by: ctx.sender.clone(),
                reason: reason.clone(),
            });
            (
                "score",
                Some(name),
                points.to_string(),
                Some(was.to_string()),
            )
        }
        Correction::Next { name } => {
            let (player, name, _) = seated(tx, &name)?;
            let view = tx.view();
            // Only who is in the order of play can take a turn.
            if !rules::order(tx.state(), &view)
                .iter()
                .any(|s| s.player == player)
            {
                return Err(Sentence::new("gnomic_not_in_order")
                    .arg("name", &name)
                    .into());
            }
            let was = rules::mover(tx.state(), &view).map(|s| s.name);
            tx.record(Event::MoverSet {
                player,
                name: name.clone(),
                by: ctx.sender.clone(),
                reason: reason.clone(),
            });
            ("next", Some(name.clone()), name, was)
        }
        Correction::Ordinal { next } => {
            // 108's numbers name rules: one already in use, or given to a hack
            // still being voted on, would give two things one number.
            let view = tx.view();
            let highest_rule = view.ruleset.next_free_number().saturating_sub(1);
            let open_highest = tx
                .state()
                .open_turns()
                .flat_map(|t| t.proposals.iter().map(|p| p.hack.number))
                .max()
                .unwrap_or(0);
            let lowest = highest_rule.max(open_highest).saturating_add(1);
            if next < lowest {
                return Err(Sentence::new("gnomic_ordinal_in_use")
                    .arg("next", next)
                    .arg("lowest", lowest)
                    .into());
            }
            let was = rules::next_ordinal(tx.state(), &view, tx.params());
            tx.record(Event::OrdinalSet {
                next,
                by: ctx.sender.clone(),
                reason: reason.clone(),
            });
            ("ordinal", None, next.to_string(), Some(was.to_string()))
        }
    };
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "gnomic_corrected",
        serde_json::json!({
            "what": what,
            "name": name,
            "value": value,
            "was": was,
            "by": ctx.signature(),
            "reason": reason,
            "at": human_time(ctx.now),
        }),
    ));
    Ok(Sentence::new("gnomic_corrected")
        .arg("what", what)
        .arg("name", name)
        .arg("value", value))
}

/// A player seated in the game, by name (any case): id, name, score.
fn seated(tx: &Tx<'_, Gnomic>, name: &str) -> Result<(PlayerId, String, i64), Refusal> {
    let view = tx.view();
    let player = view
        .players
        .by_name(name)
        .ok_or_else(|| Refusal(Sentence::new("gnomic_no_such_player").arg("name", name)))?;
    let score = tx
        .state()
        .score(player.id)
        .ok_or_else(|| Refusal(Sentence::new("gnomic_no_such_player").arg("name", name)))?;
    Ok((player.id, player.name.clone(), score.points))
}
