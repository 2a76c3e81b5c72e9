//! The clauses of the rules, in their order: who may act, move validity
//! (`check_move`), the moderator's overrides, and the end of an nweek, which hands
//! the turn to `turn`. Each command and the end of an nweek run in the seam's
//! transaction and record their events into it as they are decided. Reads no
//! clock: every instant comes in.

use num_rational::BigRational;
use serde_json::json;

use super::bound::Bound;
use super::turn::Turn;
use super::{
    Action, ActionKind, BALL, Command, Declared, Event, GOAL, OFFICE, Params, Rtl, Rto, RuleTag,
    TAG, draws_deadline_id, end_deadline_id, game, rtl_text,
};
use crate::engine::accounts::{self, Holder};
use crate::engine::calendar::{self, Calendar, Cycle, Deadline};
use crate::engine::game::{Game as _, SharedEvent, Tick, View};
use crate::engine::players::Player;
use crate::engine::random::{self, DrawError};
use crate::engine::ruleset::{self, Ruleset};
use crate::engine::{Audience, Ctx, Mail, Refusal, Sentence, Timestamp, human_time};

/// The transaction Rule Tag runs in.
pub(super) type Tx<'a> = crate::engine::game::Tx<'a, game::RuleTag>;

fn refused(code: &str) -> Refusal {
    Refusal(Sentence::new(code))
}

pub(super) fn points(n: i64) -> BigRational {
    BigRational::from_integer(n.into())
}

/// The moments of one nweek that the rules name.
pub(super) struct Times {
    nweek: i64,
    pub(super) start: Timestamp,
    /// Actions are valid strictly before this: the end of nday 8.
    pub(super) actions_close: Timestamp,
    /// The end of the nweek plus the processing delay: when the turn is processed.
    pub(super) process_at: Timestamp,
    /// The end of nday 2 of the next nweek: the notifications' limit.
    pub(super) notify_by: Timestamp,
}

fn cycle<'a>(calendar: &'a Calendar, numbers: &Params) -> Result<&'a Cycle, Refusal> {
    calendar
        .cycle(&numbers.cycle)
        .ok_or_else(|| Refusal(Sentence::new("ruletag_no_cycle").arg("cycle", &numbers.cycle)))
}

fn times(calendar: &Calendar, numbers: &Params, nweek: i64) -> Result<Times, Refusal> {
    let cycle = cycle(calendar, numbers)?;
    let bad = |e: calendar::CalendarError| {
        Refusal(Sentence::new("ruletag_calendar").arg("error", e.to_string()))
    };
    let start = calendar.unit_start(cycle, nweek, 1).map_err(bad)?;
    let actions_close = calendar
        .unit_end(
            cycle,
            nweek,
            numbers.actions_close_after_nday.min(cycle.units),
        )
        .map_err(bad)?;
    let end = calendar.unit_end(cycle, nweek, cycle.units).map_err(bad)?;
    let process_at = end
        .checked_add(jiff::SignedDuration::from_hours(i64::from(
            numbers.process_delay_hours,
        )))
        .map_err(|_| bad(calendar::CalendarError::OutOfRange))?;
    let notify_by = calendar
        .unit_end(
            cycle,
            nweek + 1,
            numbers.notify_by_nday.clamp(1, cycle.units),
        )
        .map_err(bad)?;
    Ok(Times {
        nweek,
        start,
        actions_close,
        process_at,
        notify_by,
    })
}

/// The end of nweek `nweek`, processed at `at`, and a second before it the
/// commitment of the turn's random period if the turn will draw: its own step, so
/// the commitment is handed to the mail server before any draw of the turn is made.
pub(super) fn end_deadlines(nweek: i64, at: Timestamp) -> [SharedEvent; 2] {
    let deadline = |id: String, at: Timestamp, what: String| {
        SharedEvent::Schedule(calendar::Event::Scheduled {
            deadline: Deadline {
                id,
                at,
                owner: TAG.to_owned(),
                who: None,
                what,
                remind: false,
            },
        })
    };
    [
        deadline(
            draws_deadline_id(nweek),
            at - jiff::SignedDuration::from_secs(COMMIT_AHEAD_SECONDS),
            format!("the commitment of rule tag nweek {nweek}'s random draws, if any"),
        ),
        deadline(
            end_deadline_id(nweek),
            at,
            format!("the end of rule tag nweek {nweek}"),
        ),
    ]
}

/// How long before the turn its random period is committed: long enough to be a
/// step of its own, short enough that nothing the turn depends on is likely to
/// change in between.
const COMMIT_AHEAD_SECONDS: i64 = 1;

/// Draws a rule number at random from `candidates`, through the random officer: in
/// the running period, or in one opened for the purpose (its commitment is published
/// with the draw; it stays open, so later draws are committed in advance). Each
/// event is recorded before the next is asked for: a draw counts once applied.
pub(super) fn draw_rule(
    tx: &mut Tx<'_>,
    entropy: [u8; 32],
    candidates: &[u32],
    purpose: &str,
) -> Result<u32, DrawError> {
    if tx.view().random.current.is_none() {
        let start = tx.view().random.start_period(TAG, entropy)?;
        tx.record_shared(SharedEvent::Random(start));
        let started = tx
            .view()
            .random
            .current
            .as_ref()
            .map(|r| r.started_mail(TAG));
        tx.mail_all(started);
    }
    let n = u32::try_from(candidates.len()).unwrap_or(u32::MAX);
    let (index, event) = tx.view().random.below(n, purpose, tx.at())?;
    tx.record_shared(SharedEvent::Random(event));
    // `below(n)` is under n, the number of candidates.
    candidates
        .get(index as usize)
        .copied()
        .ok_or(DrawError::Impossible {
            kind: random::DrawKind::Below { n },
            why: "the draw fell outside the candidates",
        })
}

/// Carries out one command, recording into `tx` as it goes; on a refusal the
/// router drops the transaction with whatever it holds (a draw already made).
pub(super) fn apply(tx: &mut Tx<'_>, command: Command, ctx: &Ctx) -> Result<Sentence, Refusal> {
    // The numbers as the game's rules now say (`bound`), not as bot.toml does.
    let bound = Bound::of(&tx.view(), tx.params());
    let bound_params = bound.params();
    let numbers = &bound_params;
    if let Some(ended) = &tx.state().ended
        && !matches!(command, Command::Status | Command::Start)
    {
        return Err(Refusal(
            Sentence::new("ruletag_ended")
                .arg("rule", ended.rule)
                .arg("why", &ended.why)
                .arg("at", human_time(ended.at)),
        ));
    }
    if matches!(command, Command::Act(_) | Command::Move { .. }) {
        let held: Vec<u32> = bound.held().into_iter().map(|(rule, _)| rule).collect();
        if !held.is_empty() {
            return Err(Refusal(Sentence::new("ruletag_held").arg("rules", held)));
        }
        if matches!(command, Command::Act(Action::Element { .. })) && !bound.steps().elements {
            return Err(Refusal(
                Sentence::new("ruletag_rule_stopped")
                    .arg("rule", "Elements")
                    .arg("number", bound.rules().elements),
            ));
        }
    }
    let officer_only = matches!(
        command,
        Command::Start
            | Command::Void { .. }
            | Command::Relocate { .. }
            | Command::Place { .. }
            | Command::SetElement { .. }
            | Command::Give { .. }
            | Command::Term { .. }
    );
    if officer_only && !game::RuleTag::is_officer(&tx.setting().officers, numbers, &ctx.sender) {
        return Err(Refusal(Sentence::new("office_only").arg("office", OFFICE)));
    }
    match command {
        Command::Start => {
            if let Some(why) = bound.game_stopped() {
                return Err(Refusal(
                    Sentence::new("ruletag_rule_not_in_effect")
                        .arg("rule", bound.rules().rule_tag)
                        .arg("why", why),
                ));
            }
            start(tx, numbers, ctx)
        }
        Command::Status => {
            let view = tx.view();
            Ok(Sentence::new("ruletag_status").arg(
                "state",
                tx.state()
                    .public_view()
                    .view(view.players, view.accounts, numbers),
            ))
        }
        Command::Act(action) => act(tx, numbers, action, ctx),
        Command::Move { from, to, term } => {
            let (state, view) = (tx.state(), tx.view());
            let (player, _) = state.gate(false, ctx, view, numbers)?;
            let current = state.standing(player.id).rtl;
            check_move(view.ruleset, numbers, current, from, to, term.as_deref())?;
            // The term as the glossary writes it, not as the player typed it.
            let term = term
                .filter(|_| current.is_some() && to.is_some())
                .map(|t| view.ruleset.term(&t).map_or(t, |known| known.term.clone()));
            act(
                tx,
                numbers,
                Action::Move {
                    from: current,
                    to,
                    term,
                },
                ctx,
            )
        }
        Command::Void { name, kind, reason } => void(tx, &name, kind, &reason, ctx),
        Command::Relocate {
            object,
            rtl,
            reason,
        } => relocate(tx, &object, rtl, &reason, ctx),
        Command::Place { name, rtl, reason } => place(tx, &name, rtl, &reason, ctx),
        Command::SetElement {
            name,
            element,
            reason,
        } => set_element(tx, &name, element, &reason, ctx),
        Command::Give {
            object,
            name,
            reason,
        } => give(tx, &object, &name, &reason, ctx),
        Command::Term {
            term,
            number,
            defined,
            reason,
        } => {
            if !tx.view().ruleset.exists(number) {
                return Err(Refusal(
                    Sentence::new("ruletag_no_rule").arg("number", number),
                ));
            }
            let mail = tx.state().override_mail(
                ctx,
                json!({"what": "term", "term": term, "number": number, "defined": defined}),
                &reason,
            );
            let event = if defined {
                ruleset::Event::TermDefined {
                    term: term.clone(),
                    number,
                }
            } else {
                ruleset::Event::TermUndefined {
                    term: term.clone(),
                    number,
                }
            };
            tx.record_shared(SharedEvent::Ruleset(event));
            tx.mail(mail);
            Ok(Sentence::new("ruletag_term_ruled")
                .arg("term", term)
                .arg("number", number)
                .arg("defined", defined))
        }
    }
}

/// A moderator starts the game: the RTOs get random (non-null) starting RTLs,
/// two different rules, and the end of this nweek is scheduled.
fn start(tx: &mut Tx<'_>, numbers: &Params, ctx: &Ctx) -> Result<Sentence, Refusal> {
    if tx.state().is_running() {
        return Err(refused("ruletag_already_started"));
    }
    let rules: Vec<u32> = tx.view().ruleset.rules.iter().map(|r| r.number).collect();
    if rules.len() < 2 {
        return Err(Refusal(
            Sentence::new("ruletag_too_few_rules").arg("count", rules.len()),
        ));
    }
    let calendar = &tx.setting().calendar;
    let cycle = cycle(calendar, numbers)?;
    let position = calendar
        .cycle_position(cycle, ctx.now)
        .map_err(|e| Refusal(Sentence::new("ruletag_calendar").arg("error", e.to_string())))?;
    let nweek = position.cycle_index;
    let times = times(calendar, numbers, nweek)?;
    let refuse = |e: DrawError| Refusal(e.sentence());
    let ball =
        draw_rule(tx, ctx.entropy, &rules, "starting RTL of the rule tag ball").map_err(refuse)?;
    let others: Vec<u32> = rules.iter().copied().filter(|n| *n != ball).collect();
    let goal = draw_rule(
        tx,
        ctx.entropy,
        &others,
        "starting RTL of the rule tag goal",
    )
    .map_err(refuse)?;
    let objects = vec![
        Rto {
            name: BALL.to_owned(),
            rtl: Some(ball),
            holder: None,
        },
        Rto {
            name: GOAL.to_owned(),
            rtl: Some(goal),
            holder: None,
        },
    ];
    tx.record(Event::Started { nweek, objects });
    for deadline in end_deadlines(nweek, times.process_at) {
        tx.record_shared(deadline);
    }
    let values = json!({
        "by": ctx.signature(), "at": human_time(ctx.now), "nweek": nweek,
        "ball": ball, "goal": goal,
        "actions_close": human_time(times.actions_close),
        "process_at": human_time(times.process_at),
        "closed_already": ctx.now >= times.actions_close,
        "moderator": game::moderator(&tx.setting().officers, numbers),
    });
    tx.mail(Mail::new(Audience::List, TAG, "ruletag_started", values));
    Ok(Sentence::new("ruletag_started")
        .arg("ball", ball)
        .arg("goal", goal)
        .arg("process_at", human_time(times.process_at)))
}

impl RuleTag {
    /// Who may act now: the game runs, the sender is a player, nday 8 is not over.
    fn gate<'v>(
        &self,
        element: bool,
        ctx: &Ctx,
        view: View<'v>,
        numbers: &Params,
    ) -> Result<(&'v Player, Times), Refusal> {
        if !self.is_running() {
            return Err(refused("ruletag_not_started"));
        }
        let player = view.players.active_by_address(&ctx.sender).ok_or_else(|| {
            Refusal(Sentence::new("not_a_player").arg("address", ctx.sender.as_str()))
        })?;
        let times = times(view.calendar, numbers, self.nweek)?;
        // While a processing delay runs, the next nweek has begun but its actions
        // cannot be judged yet: they start from where this turn leaves everyone.
        let cycle = cycle(view.calendar, numbers)?;
        let now_in = view
            .calendar
            .cycle_position(cycle, ctx.now)
            .map_or(self.nweek, |position| position.cycle_index);
        if now_in > self.nweek {
            return Err(Refusal(
                Sentence::new("ruletag_processing")
                    .arg("nweek", self.nweek)
                    .arg("process_at", human_time(times.process_at)),
            ));
        }
        if ctx.now >= times.actions_close {
            return Err(Refusal(
                Sentence::new("ruletag_late")
                    .arg("rule", if element { "Elements" } else { "Rule Tag" })
                    .arg("nweek", times.nweek)
                    .arg("closed", human_time(times.actions_close))
                    .arg("next_open", human_time(times.process_at)),
            ));
        }
        Ok((player, times))
    }

    fn no_such_object(&self, object: &str) -> Refusal {
        let names: Vec<&str> = self.objects.iter().map(|o| o.name.as_str()).collect();
        Refusal(
            Sentence::new("ruletag_no_such_object")
                .arg("object", object)
                .arg("objects", names),
        )
    }
}

fn act(tx: &mut Tx<'_>, numbers: &Params, action: Action, ctx: &Ctx) -> Result<Sentence, Refusal> {
    let (state, view) = (tx.state(), tx.view());
    let (player, times) =
        state.gate(matches!(action, Action::Element { .. }), ctx, view, numbers)?;
    let standing = state.standing(player.id);
    let moderator = game::moderator(view.officers, numbers);
    let is_moderator = moderator.as_ref() == Some(&player.address)
        || moderator.as_ref().is_some_and(|m| player.has_address(m));
    // Rule "rule tag moderation" 1): the moderator makes no rule tag action but a
    // move to null. An element change is a game action of rule "Elements", not a
    // rule tag action, so it stays open to em.
    if is_moderator
        && !matches!(
            action,
            Action::Element { .. } | Action::Move { to: None, .. }
        )
    {
        return Err(refused("ruletag_moderator_only_null"));
    }
    let mut note = None;
    match &action {
        Action::Element { .. } => {
            if let Some(Declared {
                action: Action::Element { element },
                ..
            }) = state.counted(player.id, ActionKind::Element, times.nweek)
            {
                return Err(Refusal(
                    Sentence::new("ruletag_element_ignored").arg("element", element.as_str()),
                ));
            }
        }
        Action::Move { .. } => {}
        Action::Grab { object, points } => {
            let rto = state
                .object(object)
                .ok_or_else(|| state.no_such_object(object))?;
            if *points < 0 {
                return Err(refused("ruletag_grab_negative"));
            }
            let have = view
                .accounts
                .balance(Holder::Player(player.id), &numbers.currency);
            if points_of(&have) < *points {
                return Err(Refusal(
                    Sentence::new("ruletag_grab_more_than_held")
                        .arg("points", points)
                        .arg("have", accounts::amount_human(&have)),
                ));
            }
            let moving_to = match state.counted(player.id, ActionKind::Move, times.nweek) {
                Some(Declared {
                    action: Action::Move { to, .. },
                    ..
                }) => Some(*to),
                _ => None,
            };
            if rto.rtl != standing.rtl && moving_to != Some(rto.rtl) {
                note = Some(
                    json!({"object": object, "object_rtl": rtl_text(rto.rtl), "rtl": rtl_text(standing.rtl)}),
                );
            }
        }
        Action::Drop { object } => {
            let rto = state
                .object(object)
                .ok_or_else(|| state.no_such_object(object))?;
            if rto.holder != Some(player.id) {
                return Err(Refusal(
                    Sentence::new("ruletag_drop_not_held").arg("object", object),
                ));
            }
        }
    }
    let replaced = state
        .counted(player.id, action.kind(), times.nweek)
        .is_some();
    let mut sentence = Sentence::new("ruletag_declared")
        .arg("action", action.describe())
        .arg("replaced", replaced)
        .arg("nweek", times.nweek)
        .arg("closes", human_time(times.actions_close))
        .arg("public", ctx.public);
    sentence = sentence.arg("grab_note", note);
    let declared = Declared {
        nweek: times.nweek,
        player: player.id,
        action,
        at: ctx.now,
        public: ctx.public,
    };
    tx.record(Event::Declared { declared });
    Ok(sentence)
}

/// Move validity, clause by clause; each refusal names the clause it fails.
fn check_move(
    ruleset: &Ruleset,
    numbers: &Params,
    current: Rtl,
    shown: Option<Rtl>,
    to: Rtl,
    term: Option<&str>,
) -> Result<(), Refusal> {
    // "the player must clearly show eir current RTL, new RTL and the game term
    // that links them": a move to null may leave the current RTL out (it is
    // then the current one), any other move may not.
    match shown {
        Some(shown) if shown != current => {
            return Err(Refusal(
                Sentence::new("ruletag_wrong_current")
                    .arg("shown", rtl_text(shown))
                    .arg("current", rtl_text(current)),
            ));
        }
        None if to.is_some() => {
            return Err(Refusal(
                Sentence::new("ruletag_move_needs_from")
                    .arg("to", rtl_text(to))
                    .arg("current", rtl_text(current)),
            ));
        }
        _ => {}
    }
    let Some(to) = to else {
        // (iv) Ey may choose null.
        return if current.is_none() {
            Err(refused("ruletag_already_null"))
        } else {
            Ok(())
        };
    };
    if !ruleset.exists(to) {
        return Err(Refusal(
            Sentence::new("ruletag_no_destination")
                .arg("to", to)
                .arg("repealed", ruleset.was_repealed(to)),
        ));
    }
    let Some(current) = current else {
        // (i) If eir current RTL is null, then ey may choose any rule number.
        return Ok(());
    };
    if current == to {
        return Err(Refusal(Sentence::new("ruletag_same_rule").arg("rtl", to)));
    }
    let Some(term) = term else {
        return Err(Refusal(
            Sentence::new("ruletag_move_needs_term")
                .arg("from", current)
                .arg("to", to)
                .arg("terms", linking_names(ruleset, numbers, current, to)),
        ));
    };
    if numbers
        .invalid_terms
        .iter()
        .any(|invalid| invalid.eq_ignore_ascii_case(term.trim()))
    {
        return Err(Refusal(
            Sentence::new("ruletag_invalid_path").arg("term", term),
        ));
    }
    let Some(known) = ruleset.term(term) else {
        return Err(Refusal(
            Sentence::new("ruletag_unknown_term")
                .arg("term", term)
                .arg("terms", linking_names(ruleset, numbers, current, to)),
        ));
    };
    // (ii) a rule that defines one of the game terms used in the current RTL rule;
    // (iii) a rule that uses one of the game terms defined in the current RTL rule.
    let clause_ii = known.used_in.contains(&current) && known.defined_in.contains(&to);
    let clause_iii = known.defined_in.contains(&current) && known.used_in.contains(&to);
    if clause_ii || clause_iii {
        Ok(())
    } else {
        Err(Refusal(
            Sentence::new("ruletag_not_linked")
                .arg("term", &known.term)
                .arg("from", current)
                .arg("to", to)
                .arg("defined_in", &known.defined_in)
                .arg("used_in", &known.used_in)
                .arg("terms", linking_names(ruleset, numbers, current, to)),
        ))
    }
}

fn void(
    tx: &mut Tx<'_>,
    name: &str,
    kind: ActionKind,
    reason: &str,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let state = tx.state();
    let player = tx
        .view()
        .players
        .by_name(name)
        .ok_or_else(|| Refusal(Sentence::new("no_such_player").arg("name", name)))?;
    // The latest nweek with such an action: the next one's, while a processing
    // delay runs and both are on record.
    let Some(nweek) = state
        .actions
        .iter()
        .filter(|d| d.player == player.id && d.action.kind() == kind)
        .map(|d| d.nweek)
        .max()
    else {
        return Err(Refusal(
            Sentence::new("ruletag_no_action")
                .arg("name", &player.name)
                .arg("action", kind.as_str()),
        ));
    };
    // The action itself may be private: the announcement names only its type.
    let mail = state.override_mail(
        ctx,
        json!({"what": "void", "name": player.name, "action": kind.as_str()}),
        reason,
    );
    let sentence = Sentence::new("ruletag_voided")
        .arg("name", &player.name)
        .arg("action", kind.as_str());
    let player = player.id;
    tx.record(Event::Voided {
        player,
        action: kind,
        nweek,
        by: ctx.sender.clone(),
        reason: reason.to_owned(),
    });
    tx.mail(mail);
    Ok(sentence)
}

fn relocate(
    tx: &mut Tx<'_>,
    object: &str,
    rtl: u32,
    reason: &str,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let state = tx.state();
    state
        .object(object)
        .ok_or_else(|| state.no_such_object(object))?;
    if !tx.view().ruleset.exists(rtl) {
        return Err(Refusal(Sentence::new("ruletag_no_rule").arg("number", rtl)));
    }
    let mail = state.override_mail(
        ctx,
        json!({"what": "relocate", "object": object, "rtl": rtl}),
        reason,
    );
    tx.record(Event::Relocated {
        object: object.to_owned(),
        rtl,
        by: ctx.sender.clone(),
        reason: reason.to_owned(),
    });
    tx.mail(mail);
    Ok(Sentence::new("ruletag_relocated")
        .arg("object", object)
        .arg("rtl", rtl))
}

/// The player a moderator's override names: one who plays (has not left).
fn named_player<'v>(view: View<'v>, name: &str) -> Result<&'v Player, Refusal> {
    view.players
        .by_name(name)
        .ok_or_else(|| Refusal(Sentence::new("no_such_player").arg("name", name)))
}

/// A moderator sets a player's RTL, as the arbiter of "any other game event or
/// object solely regarding the sub-game of rule tag" (rule "rule tag moderation"
/// 3)): the RTOs ey holds go with em, as they would with a move.
fn place(
    tx: &mut Tx<'_>,
    name: &str,
    rtl: Rtl,
    reason: &str,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let (state, view, numbers) = (tx.state(), tx.view(), tx.params());
    if !state.is_running() {
        return Err(refused("ruletag_not_started"));
    }
    let player = named_player(view, name)?;
    if let Some(number) = rtl
        && !view.ruleset.exists(number)
    {
        return Err(Refusal(
            Sentence::new("ruletag_no_rule").arg("number", number),
        ));
    }
    let held: Vec<Rto> = state
        .objects
        .iter()
        .filter(|o| o.holder == Some(player.id))
        .cloned()
        .collect();
    // Under `rto_never_on_null` an RTO does not follow its holder to null: it
    // falls where it was, unpossessed.
    let falls = rtl.is_none() && numbers.rto_never_on_null;
    let carried: Vec<&str> = held.iter().map(|o| o.name.as_str()).collect();
    let mail = state.override_mail(
        ctx,
        json!({"what": "place", "name": player.name, "rtl": rtl_text(rtl),
               "from": rtl_text(state.standing(player.id).rtl),
               "carried": carried, "falls": falls}),
        reason,
    );
    let sentence = Sentence::new("ruletag_placed")
        .arg("name", &player.name)
        .arg("rtl", rtl_text(rtl))
        .arg("carried", &carried)
        .arg("falls", falls);
    let player = player.id;
    if falls {
        for rto in &held {
            if let Some(on) = rto.rtl {
                tx.record(Event::Relocated {
                    object: rto.name.clone(),
                    rtl: on,
                    by: ctx.sender.clone(),
                    reason: reason.to_owned(),
                });
            }
        }
    }
    tx.record(Event::Placed {
        player,
        rtl,
        by: ctx.sender.clone(),
        reason: reason.to_owned(),
    });
    tx.mail(mail);
    Ok(sentence)
}

/// A moderator sets a player's element (rule "Elements"), outside the nweek's
/// element changes: it takes effect at once.
fn set_element(
    tx: &mut Tx<'_>,
    name: &str,
    element: super::Element,
    reason: &str,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let (state, view) = (tx.state(), tx.view());
    if !state.is_running() {
        return Err(refused("ruletag_not_started"));
    }
    let player = named_player(view, name)?;
    let mail = state.override_mail(
        ctx,
        json!({"what": "element", "name": player.name, "element": element.as_str(),
               "from": state.standing(player.id).element.as_str()}),
        reason,
    );
    let sentence = Sentence::new("ruletag_element_set")
        .arg("name", &player.name)
        .arg("element", element.as_str());
    let player = player.id;
    tx.record(Event::ElementSet {
        player,
        element,
        by: ctx.sender.clone(),
        reason: reason.to_owned(),
    });
    tx.mail(mail);
    Ok(sentence)
}

/// A moderator gives a player possession of an RTO: the RTO moves to eir RTL, as
/// a possessed RTO is always where its holder is.
fn give(
    tx: &mut Tx<'_>,
    object: &str,
    name: &str,
    reason: &str,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let (state, view, numbers) = (tx.state(), tx.view(), tx.params());
    if !state.is_running() {
        return Err(refused("ruletag_not_started"));
    }
    let rto = state
        .object(object)
        .ok_or_else(|| state.no_such_object(object))?;
    let player = named_player(view, name)?;
    let rtl = state.standing(player.id).rtl;
    if rtl.is_none() && numbers.rto_never_on_null {
        return Err(Refusal(
            Sentence::new("ruletag_give_on_null")
                .arg("name", &player.name)
                .arg("object", object),
        ));
    }
    let mail = state.override_mail(
        ctx,
        json!({"what": "give", "object": object, "name": player.name, "rtl": rtl_text(rtl),
               "from": rtl_text(rto.rtl),
               "previous": rto.holder.and_then(|id| view.players.by_id(id)).map(|p| p.name.clone())}),
        reason,
    );
    let sentence = Sentence::new("ruletag_given")
        .arg("object", object)
        .arg("name", &player.name)
        .arg("rtl", rtl_text(rtl));
    let player = player.id;
    tx.record(Event::Given {
        object: object.to_owned(),
        player,
        rtl,
        by: ctx.sender.clone(),
        reason: reason.to_owned(),
    });
    tx.mail(mail);
    Ok(sentence)
}

/// The end of nweek `nweek`: the turn processed in the rule's order, the two
/// notifications, the moderator's award (and censure when the notifications go
/// out after the limit), and the next nweek's end scheduled. `tick.caught_up_at`
/// is the real time the bot runs this: after a downtime it may be past the limit.
pub(super) fn end_of_nweek(tx: &mut Tx<'_>, nweek: i64, tick: &Tick) {
    let state = tx.state();
    if !state.is_running() || nweek != state.nweek {
        return;
    }
    // "after passed proposals have been enacted into the rules": the turn runs
    // by the game's rules as they stand now; one held waits for a ruling.
    let bound = Bound::of(&tx.view(), tx.params());
    let held: Vec<u32> = bound.held().into_iter().map(|(rule, _)| rule).collect();
    if !held.is_empty() {
        if state.held != Some(nweek) {
            tx.record(Event::TurnHeld {
                nweek,
                rules: held.clone(),
            });
            let values = json!({"nweek": nweek, "rules": held, "at": human_time(tx.at())});
            tx.mail(Mail::new(Audience::List, TAG, "ruletag_turn_held", values));
        }
        return;
    }
    let numbers = bound.params();
    let Ok(times) = times(&tx.setting().calendar, &numbers, nweek) else {
        return;
    };
    // A turn held for a ruling is not late by the wait: the moderator could
    // not post before it.
    let caught_up_at = if state.resumed == Some(nweek) {
        times.process_at
    } else {
        tick.caught_up_at
    };
    // The mail goes out now: after a downtime that is later than the turn.
    let posted = tick.caught_up_at.max(tx.at());
    let mut turn = Turn::new(
        tx,
        &numbers,
        bound.steps(),
        tick.entropy,
        nweek,
        &times,
        caught_up_at,
        posted,
    );
    turn.run(&times);
    turn.end_period();
    turn.finish(&times);
}

/// A second before the turn of nweek `nweek`: the turn is run on a scratch copy of
/// the world, and if it draws at random, a period of the Officer in charge of
/// Random Things is opened now and its commitment mailed, in a step before the
/// turn's. A turn that draws nothing opens (and so reveals) no period.
pub(super) fn commit_draws(tx: &mut Tx<'_>, nweek: i64, tick: &Tick) {
    let state = tx.state();
    if !state.is_running() || nweek != state.nweek || tx.view().random.current.is_some() {
        return;
    }
    let bound = Bound::of(&tx.view(), tx.params());
    if !bound.held().is_empty() {
        return;
    }
    let numbers = bound.params();
    let Ok(times) = times(&tx.setting().calendar, &numbers, nweek) else {
        return;
    };
    let view = tx.view();
    let shared = crate::engine::game::Shared {
        players: std::sync::Arc::new(view.players.clone()),
        accounts: std::sync::Arc::new(view.accounts.clone()),
        ruleset: std::sync::Arc::new(view.ruleset.clone()),
        schedule: std::sync::Arc::new(view.schedule.clone()),
        random: std::sync::Arc::new(view.random.clone()),
        sealed: std::sync::Arc::new(view.sealed.clone()),
        offices: std::sync::Arc::new(view.offices.clone()),
        inventory: std::sync::Arc::new(view.inventory.clone()),
        contests: std::sync::Arc::new(view.contests.clone()),
    };
    let mut scratch = Tx::new(
        shared,
        std::sync::Arc::new(state.clone()),
        tx.setting(),
        tx.params(),
        times.process_at,
    );
    let draws = {
        let mut turn = Turn::new(
            &mut scratch,
            &numbers,
            bound.steps(),
            tick.entropy,
            nweek,
            &times,
            tick.caught_up_at,
            times.process_at,
        );
        turn.run(&times);
        turn.draws
    };
    drop(scratch);
    if draws == 0 {
        return;
    }
    let Ok(start) = tx.view().random.start_period(TAG, tick.entropy) else {
        return;
    };
    tx.record_shared(SharedEvent::Random(start));
    let started = tx
        .view()
        .random
        .current
        .as_ref()
        .map(|r| r.started_mail(TAG));
    tx.mail_all(started);
}

pub(super) fn points_of(amount: &BigRational) -> i64 {
    amount.floor().to_integer().try_into().unwrap_or(i64::MAX)
}

fn linking_names(ruleset: &Ruleset, numbers: &Params, from: u32, to: u32) -> Vec<String> {
    ruleset
        .linking_terms(from, to)
        .into_iter()
        .map(|t| t.term.clone())
        .filter(|t| {
            !numbers
                .invalid_terms
                .iter()
                .any(|invalid| invalid.eq_ignore_ascii_case(t))
        })
        .collect()
}

pub(super) fn times_after(calendar: &Calendar, numbers: &Params, nweek: i64) -> Option<Times> {
    times(calendar, numbers, nweek).ok()
}

/// The bindings of the game's rules changed (`Game::bindings_changed`): when
/// rule "Rule Tag" left effect the game ends (its nweek's actions lapse, points
/// already won or lost stand, the board stays as the record); when no rule of
/// the game is held any more, a turn held for a ruling is processed at once.
pub(super) fn bindings_changed(tx: &mut Tx<'_>) {
    let state = tx.state();
    if !state.is_running() {
        return;
    }
    let bound = Bound::of(&tx.view(), tx.params());
    let nweek = state.nweek;
    if let Some(why) = bound.game_stopped() {
        let rule = bound.rules().rule_tag;
        let lapsed = state.actions.len();
        let standings =
            state
                .public_view()
                .view(tx.view().players, tx.view().accounts, &bound.params());
        tx.record(Event::Ended {
            nweek,
            rule,
            why: why.clone(),
        });
        for id in [draws_deadline_id(nweek), end_deadline_id(nweek)] {
            tx.record_shared(SharedEvent::Schedule(calendar::Event::Cancelled { id }));
        }
        let values = json!({
            "rule": rule, "why": why, "at": human_time(tx.at()), "nweek": nweek,
            "lapsed": lapsed, "state": standings,
        });
        tx.mail(Mail::new(Audience::List, TAG, "ruletag_ended", values));
        return;
    }
    if state.held == Some(nweek) && bound.held().is_empty() {
        tx.record(Event::TurnResumed { nweek });
        // Due at once: the draws' commitment first, the turn a second later.
        let at = tx.at() + jiff::SignedDuration::from_secs(COMMIT_AHEAD_SECONDS);
        for deadline in end_deadlines(nweek, at) {
            tx.record_shared(deadline);
        }
    }
}
