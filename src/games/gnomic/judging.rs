//! Judgment in the flow of the game (212, 373, 327): invoking it with its fee,
//! the Judge's ruling and its fees, the unanimous overrule, the consent that
//! lets the next player begin, and the completion that enacts the ruling as a
//! precedent. Who judges and what the fees come to are `judgment`'s pure
//! decisions; the substance of a ruling is the Judge's, the bot only records it.

use super::bound::Bound;
use super::hack::{self, Change, Hack};
use super::judgment::{self, Exemption};
use super::rules::{self, order, refuse_code, threshold};
use super::{Event, Gnomic, Question, Reason, Ruling, Score, ScoreChange, State, TAG};
use crate::engine::game::{Tx, View};
use crate::engine::players::PlayerId;
use crate::engine::{Audience, Ctx, Mail, Refusal, Sentence, human_time};

fn in_game(tx: &Tx<'_, Gnomic>, ctx: &Ctx) -> Result<(PlayerId, String), Refusal> {
    let view = tx.view();
    if tx.state().started_at.is_none() {
        return Err(refuse_code("gnomic_not_started"));
    }
    view.players
        .active_by_address(&ctx.sender)
        .filter(|p| tx.state().plays(p.id))
        .map(|p| (p.id, p.name.clone()))
        .ok_or_else(|| Refusal(Sentence::new("not_a_player").arg("address", ctx.sender.as_str())))
}

/// 212's "the one moving": the mover of the open turn, else of the turn last
/// counted (its completion is the turn the question arises in, until the next
/// begins), else the first to play.
fn moving(state: &State, view: &View<'_>) -> Option<String> {
    let names: Vec<String> = order(state, view).into_iter().map(|s| s.name).collect();
    state
        .open
        .as_ref()
        .map(|t| t.proponent_name.clone())
        .or_else(|| state.last_mover.clone())
        .filter(|name| names.contains(name))
        .or_else(|| rules::mover(state, view).map(|s| s.name))
}

/// 373: "or if the loss would cause any other player to win the game": after
/// the loss, another player has at least n.
fn would_make_a_winner(tx: &Tx<'_, Gnomic>, loser: PlayerId, loss: i64) -> bool {
    let mut after = tx.state().clone();
    if let Some(score) = after.scores.iter_mut().find(|s| s.player == loser) {
        score.points -= loss;
    }
    let view = tx.view();
    let n = threshold(&after, &view, tx.params());
    order(&after, &view)
        .iter()
        .any(|s| s.player != loser && s.points >= n)
}

fn exemption(tx: &Tx<'_, Gnomic>, player: PlayerId, loss: i64) -> Option<Exemption> {
    let points = tx.state().score(player).map_or(0, |s| s.points);
    if points < Bound::of(&tx.view(), tx.params()).fees().exempt_below {
        Some(Exemption::FewPoints)
    } else if would_make_a_winner(tx, player, loss) {
        Some(Exemption::WouldMakeAWinner)
    } else {
        None
    }
}

fn exemption_str(exemption: Option<Exemption>) -> Option<&'static str> {
    exemption.map(|e| match e {
        Exemption::FewPoints => "few_points",
        Exemption::WouldMakeAWinner => "would_make_a_winner",
    })
}

fn changes_value(changes: &[ScoreChange]) -> serde_json::Value {
    serde_json::json!(
        changes
            .iter()
            .map(|c| serde_json::json!({"name": c.name, "points": c.points}))
            .collect::<Vec<_>>()
    )
}

fn scores_value(tx: &Tx<'_, Gnomic>) -> serde_json::Value {
    let view = tx.view();
    serde_json::json!(
        order(tx.state(), &view)
            .iter()
            .map(|s| serde_json::json!({"name": s.name, "points": s.points}))
            .collect::<Vec<_>>()
    )
}

/// 212: "Disagreement for the purposes of this rule may be created by the
/// insistence of any player. This process is called invoking Judgment." 373:
/// the invoker "will instantly lose 20 points".
pub(super) fn invoke(
    tx: &mut Tx<'_, Gnomic>,
    text: String,
    accusing: Option<String>,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let (player, name) = in_game(tx, ctx)?;
    if !ctx.public {
        return Err(refuse_code("gnomic_judgment_private"));
    }
    let view = tx.view();
    let seated = order(tx.state(), &view);
    let accused: Option<Score> = match &accusing {
        Some(wanted) => Some(
            seated
                .iter()
                .find(|s| s.name.eq_ignore_ascii_case(wanted) && s.player != player)
                .cloned()
                .ok_or_else(|| {
                    Refusal(Sentence::new("gnomic_no_such_player").arg("name", wanted))
                })?,
        ),
        None => None,
    };
    let names: Vec<String> = seated.iter().map(|s| s.name.clone()).collect();
    let mover_name = moving(tx.state(), &view).ok_or_else(|| refuse_code("gnomic_no_judge"))?;
    // 212: "one Judge settles all questions arising from the game until the next
    // turn is begun": a later question goes to the Judge in office.
    let judge_name = tx
        .state()
        .questions
        .iter()
        .rev()
        .find_map(|q| q.judge_name.clone())
        .or_else(|| judgment::judge(&names, &mover_name, 0).map(str::to_owned))
        .ok_or_else(|| refuse_code("gnomic_no_judge"))?;
    let judge = seated
        .iter()
        .find(|s| s.name == judge_name)
        .map(|s| s.player);
    let fees = &Bound::of(&tx.view(), tx.params()).fees();
    let points = tx.state().score(player).map_or(0, |s| s.points);
    let winner_after = would_make_a_winner(tx, player, fees.invoke);
    let fee = judgment::invoking(fees, &name, points, winner_after);
    let changes: Vec<ScoreChange> = fee
        .changes
        .iter()
        .map(|(_, points)| ScoreChange {
            player,
            name: name.clone(),
            points: *points,
            reason: Reason::Invoked {
                question: tx.state().questions_invoked.saturating_add(1),
            },
        })
        .collect();
    let question = Question {
        number: tx.state().questions_invoked.saturating_add(1),
        invoker: player,
        invoker_name: name.clone(),
        text,
        accused: accused.as_ref().map(|s| s.player),
        accused_name: accused.as_ref().map(|s| s.name.clone()),
        mover_name,
        judge,
        judge_name: Some(judge_name.clone()),
        overruled: 0,
        ruling: None,
        overrule_votes: Vec::new(),
        invoked_at: ctx.now,
    };
    tx.record(Event::JudgmentInvoked {
        question: question.clone(),
        changes: changes.clone(),
    });
    let next = rules::mover(tx.state(), &tx.view()).map(|s| s.name);
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "gnomic_judgment",
        serde_json::json!({
            "what": "invoked",
            "question": question.number,
            "text": question.text,
            "invoker": name,
            "accused": question.accused_name,
            "judge": judge_name,
            "mover": question.mover_name,
            "next": next,
            "at": human_time(ctx.now),
            "changes": changes_value(&changes),
            "exempt": exemption_str(fee.exempt),
            "fee": Bound::of(&tx.view(), tx.params()).fees().invoke,
            "scores": scores_value(tx),
        }),
    ));
    Ok(Sentence::new("gnomic_judgment_invoked")
        .arg("question", question.number)
        .arg("judge", judge_name)
        .arg("fee", changes.first().map_or(0, |c| -c.points))
        .arg("exempt", exemption_str(fee.exempt)))
}

/// The Judge decides: `ruling agree|disagree: TEXT`, on the first question
/// before em that has no ruling. 373's fees follow.
pub(super) fn ruling(
    tx: &mut Tx<'_, Gnomic>,
    agreed: bool,
    text: String,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let (player, name) = in_game(tx, ctx)?;
    let questions = &tx.state().questions;
    let Some(question) = questions
        .iter()
        .find(|q| q.ruling.is_none() && q.judge == Some(player))
        .cloned()
    else {
        // Only the Judge may rule (212).
        return Err(match questions.iter().find(|q| q.ruling.is_none()) {
            Some(q) => Sentence::new("gnomic_not_the_judge")
                .arg("question", q.number)
                .arg("judge", q.judge_name.clone())
                .into(),
            None => refuse_code("gnomic_no_question"),
        });
    };
    let fees = Bound::of(&tx.view(), tx.params()).fees();
    let accused_exemption = question
        .accused
        .map(|accused| exemption(tx, accused, fees.accused));
    let decided = judgment::ruled(
        &fees,
        &question.invoker_name,
        agreed,
        question.accused_name.as_deref().zip(accused_exemption),
    );
    let id_of = |who: &str| {
        if who == question.invoker_name {
            Some(question.invoker)
        } else {
            question.accused
        }
    };
    let changes: Vec<ScoreChange> = decided
        .changes
        .iter()
        .filter_map(|(who, points)| {
            Some(ScoreChange {
                player: id_of(who)?,
                name: who.clone(),
                points: *points,
                reason: if *points > 0 {
                    Reason::Upheld {
                        question: question.number,
                    }
                } else {
                    Reason::Accused {
                        question: question.number,
                    }
                },
            })
        })
        .collect();
    tx.record(Event::Ruled {
        question: question.number,
        ruling: Ruling {
            agreed,
            text: text.clone(),
            at: ctx.now,
            changes: changes.clone(),
        },
    });
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "gnomic_judgment",
        serde_json::json!({
            "what": "ruled",
            "question": question.number,
            "text": question.text,
            "invoker": question.invoker_name,
            "accused": question.accused_name,
            "judge": name,
            "agreed": agreed,
            "ruling": text,
            "at": human_time(ctx.now),
            "changes": changes_value(&changes),
            "exempt": exemption_str(decided.exempt),
            "scores": scores_value(tx),
        }),
    ));
    Ok(Sentence::new("gnomic_ruled")
        .arg("question", question.number)
        .arg("agreed", agreed))
}

/// 212: "The Judge's Judgment may be overruled only by a unanimous vote of the
/// other players taken before the next turn is begun."
pub(super) fn overrule(tx: &mut Tx<'_, Gnomic>, ctx: &Ctx) -> Result<Sentence, Refusal> {
    let (player, name) = in_game(tx, ctx)?;
    let Some(question) = tx
        .state()
        .questions
        .iter()
        .rev()
        .find(|q| q.ruling.is_some())
        .cloned()
    else {
        return Err(refuse_code("gnomic_nothing_to_overrule"));
    };
    if question.judge == Some(player) {
        return Err(Sentence::new("gnomic_judge_overrules")
            .arg("question", question.number)
            .into());
    }
    tx.record(Event::OverruleVoted {
        question: question.number,
        player,
    });
    let view = tx.view();
    let seated = order(tx.state(), &view);
    let names: Vec<String> = seated.iter().map(|s| s.name.clone()).collect();
    let voting: Vec<String> = tx
        .state()
        .questions
        .iter()
        .find(|q| q.number == question.number)
        .map(|q| {
            seated
                .iter()
                .filter(|s| q.overrule_votes.contains(&s.player))
                .map(|s| s.name.clone())
                .collect()
        })
        .unwrap_or_default();
    let judge_name = question.judge_name.clone().unwrap_or_default();
    let waiting: Vec<String> = names
        .iter()
        .filter(|n| **n != judge_name && !voting.contains(n))
        .cloned()
        .collect();
    if !judgment::overruled(&names, &judge_name, &voting) {
        return Ok(Sentence::new("gnomic_overrule_voted")
            .arg("question", question.number)
            .arg("waiting", waiting));
    }
    // The Judge preceding the Judge decides the question anew.
    let new_judge =
        judgment::judge(&names, &question.mover_name, question.overruled + 1).map(str::to_owned);
    let new_id = new_judge
        .as_ref()
        .and_then(|n| seated.iter().find(|s| s.name == *n))
        .map(|s| s.player);
    let reversed: Vec<ScoreChange> = question
        .ruling
        .as_ref()
        .map(|r| {
            r.changes
                .iter()
                .map(|c| ScoreChange {
                    points: -c.points,
                    reason: Reason::Overruled {
                        question: question.number,
                    },
                    ..c.clone()
                })
                .collect()
        })
        .unwrap_or_default();
    tx.record(Event::Overruled {
        question: question.number,
        changes: reversed.clone(),
        judge: new_id,
        judge_name: new_judge.clone(),
    });
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "gnomic_judgment",
        serde_json::json!({
            "what": "overruled",
            "question": question.number,
            "text": question.text,
            "invoker": question.invoker_name,
            "accused": question.accused_name,
            "overruled_judge": judge_name,
            "judge": new_judge,
            "by": name,
            "at": human_time(ctx.now),
            "changes": changes_value(&reversed),
            "scores": scores_value(tx),
        }),
    ));
    Ok(Sentence::new("gnomic_overruled")
        .arg("question", question.number)
        .arg("judge", new_judge))
}

/// Whether a question awaits a Judge's ruling (one with no Judge left cannot).
fn unsettled(state: &State) -> Option<&Question> {
    state
        .questions
        .iter()
        .find(|q| q.ruling.is_none() && q.judge.is_some())
}

/// 212: "When Judgment has been invoked, the next player may not begin his or
/// her turn without the consent of a majority of the other players."
pub(super) fn consent(tx: &mut Tx<'_, Gnomic>, ctx: &Ctx) -> Result<Sentence, Refusal> {
    let (player, _) = in_game(tx, ctx)?;
    if unsettled(tx.state()).is_none() {
        return Err(refuse_code("gnomic_no_question"));
    }
    let view = tx.view();
    let next = rules::mover(tx.state(), &view);
    if next.as_ref().is_some_and(|s| s.player == player) {
        return Err(refuse_code("gnomic_consent_own"));
    }
    tx.record(Event::Consented { player });
    let (given, needed) = consent_count(tx.state(), &tx.view(), next.as_ref());
    Ok(Sentence::new("gnomic_consented")
        .arg("given", given)
        .arg("needed", needed))
}

/// The consents given among the other players, and how many make a majority.
fn consent_count(state: &State, view: &View<'_>, next: Option<&Score>) -> (usize, usize) {
    let others: Vec<Score> = order(state, view)
        .into_iter()
        .filter(|s| next.is_none_or(|n| n.player != s.player))
        .collect();
    let given = others
        .iter()
        .filter(|s| state.consent.contains(&s.player))
        .count();
    (given, others.len() / 2 + 1)
}

/// May `next` begin eir turn (212)? Only with a majority's consent while a
/// question awaits its ruling.
pub(super) fn may_begin(state: &State, view: &View<'_>, next: &Score) -> Result<(), Refusal> {
    let Some(question) = unsettled(state) else {
        return Ok(());
    };
    let (given, needed) = consent_count(state, view, Some(next));
    if given >= needed {
        return Ok(());
    }
    Err(Sentence::new("gnomic_judgment_pending")
        .arg("question", question.number)
        .arg("judge", question.judge_name.clone())
        .arg("given", given)
        .arg("needed", needed)
        .into())
}

/// 327: "The decision of a judge shall be posted and declared as a new rule
/// [...] That rule will take effect after the completion of the judgement."
/// The next turn's beginning completes every question: each ruling is enacted
/// as a new rule under the next ordinal (108); a question left without a ruling
/// lapses.
pub(super) fn complete(tx: &mut Tx<'_, Gnomic>) {
    let questions = tx.state().questions.clone();
    if questions.is_empty() {
        return;
    }
    let mut enacted = Vec::new();
    for question in questions {
        let mut rule = None;
        if let Some(ruling) = &question.ruling {
            let number = rules::next_ordinal(tx.state(), &tx.view(), tx.params());
            let judge = question.judge_name.clone().unwrap_or_default();
            let text = format!(
                "Judgment {}, invoked by {}: {}\nThe Judge, {}, {} with {}: {}",
                question.number,
                question.invoker_name,
                question.text,
                judge,
                if ruling.agreed { "agrees" } else { "disagrees" },
                question.invoker_name,
                ruling.text,
            );
            let precedent = Hack {
                number,
                title: format!("Precedent of Judgment {}", question.number),
                change: Change::Enact {
                    text: text.clone(),
                    mutable: true,
                },
                text: text.clone(),
            };
            if let Ok(events) = hack::adoption(
                &precedent,
                tx.view().ruleset,
                &Bound::of(&tx.view(), tx.params()).numbers(),
            ) {
                let by = format!("[gnomic] Judgment {}", question.number);
                hack::record_adoption(tx, events, &by);
                rule = Some(number);
                enacted.push(serde_json::json!({
                    "question": question.number,
                    "rule": number,
                    "title": precedent.title,
                    "text": text,
                }));
            }
        }
        tx.record(Event::JudgmentCompleted {
            question: question.number,
            rule,
        });
    }
    if !enacted.is_empty() {
        tx.mail(Mail::new(
            Audience::List,
            TAG,
            "gnomic_judgment",
            serde_json::json!({
                "what": "completed",
                "enacted": enacted,
                "at": human_time(tx.at()),
            }),
        ));
    }
}
