//! The Space Nomic's actions carried out in the transaction: the engine
//! decides (`engine::act`), this records its events and tells the list what
//! a decision did.

use serde_json::{Value, json};

use super::engine::{self, Action, Event, State};
use super::{Command, Space, TAG, TEXT};
use crate::engine::game::{SharedEvent, Tx};
use crate::engine::sealed::Stage;
use crate::engine::{Audience, Ctx, Mail, Refusal, Sentence};

type SpaceTx<'a> = Tx<'a, Space>;

pub fn apply(tx: &mut SpaceTx<'_>, command: Command, ctx: &Ctx) -> Result<Sentence, Refusal> {
    match command {
        Command::Rules => Ok(rules(tx.state())),
        Command::Status => Ok(status(tx.state())),
        Command::Act(action) => act(tx, action, ctx),
    }
}

/// "If a player states in a public announcement that e causes an action [...]
/// e causes the action at the time it was announced": on the list only, at
/// the mail's arrival.
fn act(tx: &mut SpaceTx<'_>, action: Action, ctx: &Ctx) -> Result<Sentence, Refusal> {
    // "A player may set or withdraw moves of any type at any time by storing
    // eir moves": a move may be stored privately, and stays sealed until its
    // evaluation; every other action is announced in public.
    if !ctx.public && !is_move(&action) {
        return Err(Sentence::new("space_private").into());
    }
    let mechanic = mechanic_of(&action);
    if let Some((rule, why)) = super::bound::stopped(&tx.view(), tx.params(), mechanic) {
        return Err(Sentence::new("space_rule_stopped")
            .arg("rule", rule)
            .arg("mechanic", mechanic)
            .arg("why", why)
            .into());
    }
    let numbers = super::bound::numbers(&tx.view(), tx.params());
    let events = engine::act(
        tx.state(),
        &numbers,
        TEXT,
        ctx.sender.as_str(),
        action.clone(),
        ctx.now,
    )?;
    let before = tx.state().clone();
    for event in &events {
        tx.record(event.clone());
    }
    announce(tx, &before, &events);
    let commitment = if ctx.public {
        None
    } else {
        seal(tx, &action, ctx)
    };
    let state = tx.state();
    let me = state.player_at(ctx.sender.as_str());
    let my_name = me
        .map(|p| p.name.clone())
        .or_else(|| {
            state
                .players
                .iter()
                .find(|p| p.address.eq_ignore_ascii_case(ctx.sender.as_str()))
                .map(|p| p.name.clone())
        })
        .unwrap_or_default();
    let decided: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::Decided { name, passed, .. } => Some(format!(
                "{name} {}",
                if *passed { "passed" } else { "failed" }
            )),
            _ => None,
        })
        .collect();
    let sentence = match action {
        Action::Join { name } => Sentence::new("space_joined")
            .arg("name", name.trim())
            .arg("money", numbers.starting_money.human()),
        Action::Withdraw => Sentence::new("space_withdrew").arg("name", &my_name),
        Action::Propose { name, changes } => Sentence::new("space_proposed")
            .arg("proposal", name.trim())
            .arg("changes", changes.len()),
        Action::Vote { proposal, .. } => {
            let (sum, undecided) = match before.proposal(&proposal) {
                Some(p) => {
                    let after = state.proposal(&p.name).unwrap_or(p);
                    (after.sum().human(), state.undecided(after))
                }
                None => (String::new(), 0),
            };
            Sentence::new("space_voted")
                .arg("proposal", proposal.trim())
                .arg("sum", sum)
                .arg("undecided", undecided)
        }
        Action::Refresh { proposal } => {
            Sentence::new("space_refreshed").arg("proposal", proposal.trim())
        }
        Action::Destroy { proposal } => {
            Sentence::new("space_destroyed").arg("proposal", proposal.trim())
        }
        Action::Give { amount, to } => Sentence::new("space_gave")
            .arg("amount", amount.trim())
            .arg("to", to.unwrap_or_else(|| "nowhere".into()))
            .arg("balance", me.map(|p| p.money.human()).unwrap_or_default()),
        Action::Buy => Sentence::new("space_bought")
            .arg(
                "vertex",
                me.and_then(|p| p.location)
                    .map(super::graph::show)
                    .unwrap_or_default(),
            )
            .arg("balance", me.map(|p| p.money.human()).unwrap_or_default()),
        Action::GiveVertex { vertex, to } => Sentence::new("space_vertex_given")
            .arg("vertex", vertex.trim())
            .arg("to", to.unwrap_or_else(|| "god".into())),
        Action::Move { to } => Sentence::new("space_move_stored")
            .arg("vertex", to.trim())
            .arg(
                "at",
                state
                    .next_evaluation
                    .map(crate::engine::human_time)
                    .unwrap_or_default(),
            ),
        Action::CancelMove => Sentence::new("space_move_withdrawn"),
        Action::Mirror => Sentence::new("space_move_stored")
            .arg("vertex", "your mirror-state")
            .arg(
                "at",
                state
                    .next_evaluation
                    .map(crate::engine::human_time)
                    .unwrap_or_default(),
            ),
        Action::ChangeSpace { change } => Sentence::new("space_change_stored")
            .arg("change", change.to_string())
            .arg(
                "at",
                state
                    .next_space_evaluation
                    .map(crate::engine::human_time)
                    .unwrap_or_default(),
            ),
        Action::CancelSpaceChange => Sentence::new("space_change_withdrawn"),
        Action::Add { name, .. } => Sentence::new("space_added")
            .arg("name", name.trim())
            .arg("money", numbers.starting_money.human()),
        Action::EndGame => {
            let missing: Vec<String> = state
                .players
                .iter()
                .filter(|p| p.playing && !state.end_consents.contains(&p.id))
                .map(|p| p.name.clone())
                .collect();
            Sentence::new("space_end_consent").arg("missing", missing)
        }
        Action::Nod => Sentence::new("space_nodded"),
        Action::Accuse { player } => {
            if player.trim().eq_ignore_ascii_case(&my_name) {
                Sentence::new("space_paused")
            } else {
                Sentence::new("space_accused")
                    .arg("player", player.trim())
                    .arg(
                        "due",
                        state
                            .accusations
                            .last()
                            .map(|a| crate::engine::human_time(a.due))
                            .unwrap_or_default(),
                    )
            }
        }
        Action::Pause => Sentence::new("space_paused"),
        Action::Increment { player } => Sentence::new("space_incremented")
            .arg("player", player.trim())
            .arg(
                "point",
                state
                    .player_named(&player)
                    .map(|p| p.point)
                    .unwrap_or_default(),
            ),
    };
    let sentence = match commitment {
        Some(hash) => sentence.arg("commitment", hash),
        None => sentence,
    };
    Ok(sentence.arg("decided", decided))
}

/// The sealed batch of the moves of one type evaluated at `due`.
fn batch_of(kind: &str, due: crate::engine::Timestamp) -> String {
    format!("space:{kind}:{}", due.as_second())
}

/// The words a move is sealed as, and its type.
fn sealed_text(action: &Action) -> Option<(&'static str, String)> {
    Some(match action {
        Action::Move { to } => ("location", format!("move to {}", to.trim())),
        Action::CancelMove => ("location", "cancel move".to_owned()),
        Action::Mirror => ("location", "mirror".to_owned()),
        Action::ChangeSpace { change } => ("space", change.to_string()),
        Action::CancelSpaceChange => ("space", "cancel space change".to_owned()),
        _ => return None,
    })
}

/// A move stored privately is sealed in the batch of its type's next
/// evaluation (opened on the first): salted and hashed now, its commitment
/// published on the list when the evaluation comes, and revealed then
/// (`unseal`), so `nomicbot verify-sealed` checks that what was evaluated is
/// what was stored. The commitment's hash, for the player.
fn seal(tx: &mut SpaceTx<'_>, action: &Action, ctx: &Ctx) -> Option<String> {
    let (kind, text) = sealed_text(action)?;
    let due = if kind == "location" {
        tx.state().next_evaluation
    } else {
        tx.state().next_space_evaluation
    }?;
    let player = tx.state().player_at(ctx.sender.as_str())?.clone();
    let batch = batch_of(kind, due);
    let title = format!(
        "the Space Nomic's {kind} changes of {}",
        crate::engine::human_time(due)
    );
    if tx.view().sealed.batch(&batch).is_none()
        && let Ok(opened) = tx.view().sealed.open_titled(&batch, TAG, &title, due)
    {
        tx.record_shared(SharedEvent::Sealed(opened));
    }
    // The latest move of each player in the batch counts (`unseal`).
    let sealed = tx
        .view()
        .sealed
        .seal_choice(
            &batch,
            player.id,
            &player.name,
            &text,
            Some(player.id.to_string()),
            ctx.now,
            &ctx.entropy,
        )
        .ok()?;
    let hash = match &sealed {
        crate::engine::sealed::Event::Sealed { sealed, .. } => sealed.commitment().hash_hex,
        _ => String::new(),
    };
    tx.record_shared(SharedEvent::Sealed(sealed));
    Some(hash)
}

/// The sealed moves of the batch evaluated at `due`, if any: committed (if
/// the sealed box has not yet) and revealed on the list, the latest move of
/// each player counting, an earlier one marked replaced.
fn unseal(tx: &mut SpaceTx<'_>, kind: &str, due: crate::engine::Timestamp) {
    let batch = batch_of(kind, due);
    let sealed = tx.view().sealed;
    if sealed.batch(&batch).is_some_and(|b| b.stage == Stage::Open)
        && let Ok((event, mail)) = sealed.commit(&batch)
    {
        tx.record_shared(SharedEvent::Sealed(event));
        tx.mail(mail);
    }
    if tx
        .view()
        .sealed
        .batch(&batch)
        .is_some_and(|b| b.stage == Stage::Committed)
        && let Ok((event, mail)) = tx
            .view()
            .sealed
            .reveal_replacing(&batch, |s| Some(s.player.to_string()))
    {
        tx.record_shared(SharedEvent::Sealed(event));
        tx.mail(mail);
    }
}

/// The mechanic (`bound.rs`) under which the action is done: its rule
/// stopped, the action is refused.
fn mechanic_of(action: &Action) -> &'static str {
    match action {
        Action::Join { .. } | Action::Withdraw | Action::Add { .. } => "joining and withdrawing",
        Action::Propose { .. } => "proposals: creation and names",
        Action::Destroy { .. } => "destruction by the creator",
        Action::Vote { .. } => "votes in [-1, 1]",
        Action::Refresh { .. } => "refreshing, and destruction unrefreshed",
        Action::Give { .. } => "transfers",
        Action::Buy | Action::GiveVertex { .. } => "owners of vertices: buying and giving",
        Action::Move { .. }
        | Action::CancelMove
        | Action::Mirror
        | Action::ChangeSpace { .. }
        | Action::CancelSpaceChange => "moves: storing and their evaluation",
        Action::EndGame => "the end of the game",
        Action::Increment { .. } => "the point and incrementing",
        Action::Nod | Action::Accuse { .. } | Action::Pause => {
            "activity, accusing, nodding and pausing"
        }
    }
}

/// Whether the mechanic's rule is stopped now (see `bound::stopped`).
fn is_stopped(tx: &SpaceTx<'_>, mechanic: &str) -> bool {
    super::bound::stopped(&tx.view(), tx.params(), mechanic).is_some()
}

/// Storing or withdrawing a move, which may be done privately.
pub fn is_move(action: &Action) -> bool {
    matches!(
        action,
        Action::Move { .. }
            | Action::CancelMove
            | Action::Mirror
            | Action::ChangeSpace { .. }
            | Action::CancelSpaceChange
    )
}

fn name_of(state: &State, id: Option<u32>) -> String {
    id.and_then(|id| state.player(id))
        .map_or_else(|| "nowhere".to_owned(), |p| p.name.clone())
}

/// A mail to the list for every proposal decided or destroyed by the events:
/// what it did, and every payment.
fn announce(tx: &mut SpaceTx<'_>, before: &State, events: &[Event]) {
    let state = tx.state().clone();
    let mut mails: Vec<(String, Value)> = Vec::new();
    for event in events {
        match event {
            Event::Decided {
                name,
                passed,
                sum,
                undecided,
            } => {
                let creator = before
                    .proposal(name)
                    .map(|p| name_of(&state, Some(p.creator)))
                    .unwrap_or_default();
                mails.push((
                    "space_decided".into(),
                    json!({"proposal": name, "passed": passed, "sum": sum.human(),
                           "undecided": undecided, "creator": creator,
                           "changes": [], "payments": []}),
                ));
            }
            Event::Destroyed { name, why } => mails.push((
                "space_proposal_destroyed".into(),
                json!({"proposal": name, "why": why}),
            )),
            Event::RuleCreated { rule } => push(
                &mut mails,
                "changes",
                format!(
                    "rule {} \"{}\" created, colour {}",
                    rule.number,
                    rule.name,
                    rule.colour.as_deref().unwrap_or("none")
                ),
            ),
            Event::RuleModified { number, .. } => {
                let version = state.rule(&number.to_string()).map_or(0, |r| r.version);
                push(
                    &mut mails,
                    "changes",
                    format!("rule {number} modified (now version {version})"),
                );
            }
            Event::RuleRepealed { number } => {
                push(&mut mails, "changes", format!("rule {number} repealed"));
            }
            Event::ChangeSkipped { change, why, .. } => push(
                &mut mails,
                "changes",
                format!("not carried out: {change} ({why})"),
            ),
            Event::Transferred {
                from,
                to,
                amount,
                why,
            } => push(
                &mut mails,
                "payments",
                format!(
                    "{} to {}: {} ({why})",
                    name_of(&state, *from),
                    name_of(&state, *to),
                    amount.human()
                ),
            ),
            _ => {}
        }
    }
    for (template, values) in mails {
        tx.mail(Mail::new(Audience::List, TAG, &template, values));
    }
    tell_moderators(tx, before, events);
}

/// A passed change that modifies or repeals one of the text's rules whose
/// mechanics the bot computes is told to the moderators: what the new words
/// mean is for people, and they adjust the matching `[space]` number (or
/// rule) by hand.
fn tell_moderators(tx: &mut SpaceTx<'_>, before: &State, events: &[Event]) {
    let mut proposal = String::new();
    let mut touched = Vec::new();
    for event in events {
        let (number, what) = match event {
            Event::Decided { name, .. } => {
                proposal = name.clone();
                continue;
            }
            Event::RuleModified { number, .. } => (*number, "modified"),
            Event::RuleRepealed { number } => (*number, "repealed"),
            _ => continue,
        };
        let mechanics = super::bound::mechanics_of_place(number);
        if mechanics.is_empty() {
            continue;
        }
        let name = before
            .rule(&number.to_string())
            .map(|r| r.name.clone())
            .unwrap_or_default();
        touched.push(json!({"number": number, "name": name, "what": what,
                            "mechanics": mechanics, "proposal": proposal}));
    }
    if touched.is_empty() {
        return;
    }
    let moderators = tx.view().officers.moderators.clone();
    for moderator in moderators {
        tx.mail(Mail::new(
            Audience::Address(moderator),
            TAG,
            "space_rule_touched",
            json!({"rules": touched}),
        ));
    }
}

/// Adds a line to the list of the latest decision's mail, if one is open.
fn push(mails: &mut [(String, Value)], key: &str, line: String) {
    if let Some((template, values)) = mails.last_mut()
        && template == "space_decided"
        && let Some(list) = values[key].as_array_mut()
    {
        list.push(Value::String(line));
    }
}

/// The proposals unrefreshed for 16 days are destroyed, and the list told.
pub fn expire(tx: &mut SpaceTx<'_>) {
    let numbers = super::bound::numbers(&tx.view(), tx.params());
    let mut events = engine::expire(tx.state(), &numbers, tx.at());
    // Its rule stopped, no proposal is destroyed unrefreshed: the clock of
    // each due one starts again, so the deadline moves on.
    if is_stopped(tx, "refreshing, and destruction unrefreshed") {
        let days = jiff::SignedDuration::from_hours(numbers.refresh_days.max(1) * 24);
        let expires_at = tx
            .at()
            .checked_add(days)
            .unwrap_or(crate::engine::Timestamp::MAX);
        events = events
            .into_iter()
            .filter_map(|event| match event {
                Event::Destroyed { name, .. } => Some(Event::Refreshed { name, expires_at }),
                _ => None,
            })
            .collect();
        for event in events {
            tx.record(event);
        }
        return;
    }
    let before = tx.state().clone();
    for event in &events {
        tx.record(event.clone());
    }
    announce(tx, &before, &events);
}

/// The configured end, once reached, is recorded in the state.
pub fn reach_end(tx: &mut SpaceTx<'_>) {
    if is_stopped(tx, "the end of the game") {
        return;
    }
    let numbers = super::bound::numbers(&tx.view(), tx.params());
    for event in engine::reach_end(tx.state(), &numbers, tx.at()) {
        tx.record(event);
    }
}

/// The types of moves due now, in the order phi.
pub fn evaluate_in_phi_order(tx: &mut SpaceTx<'_>) {
    let phi = super::bound::numbers(&tx.view(), tx.params()).phi;
    let mut done = (false, false);
    for kind in phi.iter().map(|k| k.trim().to_ascii_lowercase()) {
        match kind.as_str() {
            "location" if !done.0 => {
                evaluate(tx);
                done.0 = true;
            }
            "space" if !done.1 => {
                evaluate_space(tx);
                done.1 = true;
            }
            _ => {}
        }
    }
    // A type phi leaves out still comes, last.
    if !done.0 {
        evaluate(tx);
    }
    if !done.1 {
        evaluate_space(tx);
    }
}

/// The space changes, if due: evaluated, and the list told what happened
/// when any were stored.
fn evaluate_space(tx: &mut SpaceTx<'_>) {
    if let Some(due) = tx
        .state()
        .next_space_evaluation
        .filter(|due| *due <= tx.at())
    {
        unseal(tx, "space", due);
    }
    let numbers = super::bound::numbers(&tx.view(), tx.params());
    let stored: Vec<String> = tx
        .state()
        .space_moves
        .iter()
        .map(|(player, change)| format!("{}: {change}", name_of(tx.state(), Some(*player))))
        .collect();
    let mut events = engine::evaluate_space_changes(tx.state(), &numbers, tx.at());
    // Its rule stopped, the evaluation executes nothing (the period moves on).
    if is_stopped(tx, "moves: storing and their evaluation") {
        events.retain(|event| matches!(event, Event::SpaceChangesEvaluated { .. }));
        for event in events {
            tx.record(match event {
                Event::SpaceChangesEvaluated { next, .. } => Event::SpaceChangesEvaluated {
                    executed: false,
                    why: "the rule of moves is not in effect".into(),
                    next,
                },
                other => other,
            });
        }
        return;
    }
    let mut done = Vec::new();
    let mut why = String::new();
    for event in &events {
        match event {
            Event::SpaceChanged { player, change } => {
                done.push(format!("{}: {change}", name_of(tx.state(), Some(*player))));
            }
            Event::SpaceChangesEvaluated { why: w, .. } => why = w.clone(),
            _ => {}
        }
    }
    let before = tx.state().clone();
    for event in &events {
        tx.record(event.clone());
    }
    if !stored.is_empty() && !events.is_empty() {
        tx.mail(Mail::new(
            Audience::List,
            TAG,
            "space_changes",
            json!({"done": done, "why": why, "stored": stored}),
        ));
    }
    announce(tx, &before, &events);
}

/// The location changes, if due: evaluated, and the list told what happened
/// when any were stored.
fn evaluate(tx: &mut SpaceTx<'_>) {
    if let Some(due) = tx.state().next_evaluation.filter(|due| *due <= tx.at()) {
        unseal(tx, "location", due);
    }
    let numbers = super::bound::numbers(&tx.view(), tx.params());
    let stored: Vec<String> = tx
        .state()
        .location_moves
        .iter()
        .map(|(player, to)| {
            format!(
                "{} to {}",
                name_of(tx.state(), Some(*player)),
                super::graph::show(*to)
            )
        })
        .collect();
    let mut stored = stored;
    stored.extend(tx.state().mirror_moves.iter().map(|player| {
        format!(
            "{} changes eir mirror-state",
            name_of(tx.state(), Some(*player))
        )
    }));
    let mut events = engine::evaluate_moves(tx.state(), &numbers, tx.at());
    // Its rule stopped, the evaluation executes nothing (the period moves on).
    if is_stopped(tx, "moves: storing and their evaluation") {
        events.retain(|event| matches!(event, Event::MovesEvaluated { .. }));
        for event in events {
            tx.record(match event {
                Event::MovesEvaluated { next, .. } => Event::MovesEvaluated {
                    executed: false,
                    why: "the rule of moves is not in effect".into(),
                    next,
                },
                other => other,
            });
        }
        return;
    }
    let mut moved = Vec::new();
    let mut why = String::new();
    for event in &events {
        match event {
            Event::Moved { id, to } => moved.push(format!(
                "{} to {}",
                name_of(tx.state(), Some(*id)),
                super::graph::show(*to)
            )),
            Event::MovesEvaluated { why: w, .. } => why = w.clone(),
            _ => {}
        }
    }
    let before = tx.state().clone();
    for event in &events {
        tx.record(event.clone());
    }
    if !stored.is_empty() && !events.is_empty() {
        tx.mail(Mail::new(
            Audience::List,
            TAG,
            "space_moves",
            json!({"moved": moved, "why": why, "stored": stored}),
        ));
    }
    announce(tx, &before, &events);
}

/// The activity rules due: accusations that take effect, removals; the list
/// is told who became inactive or was removed.
pub fn activity(tx: &mut SpaceTx<'_>) {
    let numbers = super::bound::numbers(&tx.view(), tx.params());
    let mut events = engine::activity_rules(tx.state(), &numbers, tx.at());
    let activity_stopped = is_stopped(tx, "activity, accusing, nodding and pausing");
    let removal_stopped = is_stopped(tx, "removal after long inactivity");
    // A rule stopped does nothing: a due accusation is spent without effect,
    // a due removal is dropped; what would have followed from them (proposals
    // decided) does not happen.
    if activity_stopped || removal_stopped {
        events = events
            .into_iter()
            .filter_map(|event| match event {
                Event::AccusationDue { .. } => Some(event),
                Event::Activity { .. } if !activity_stopped => Some(event),
                Event::Removed { .. } if !removal_stopped => Some(event),
                Event::Removed { id } => Some(Event::Activity {
                    id,
                    active: false,
                    paused: false,
                    removal_at: None,
                }),
                _ => None,
            })
            .collect();
    }
    let before = tx.state().clone();
    let mut inactive = Vec::new();
    let mut removed = Vec::new();
    for event in &events {
        match event {
            Event::Activity {
                id, active: false, ..
            } => {
                inactive.push(name_of(&before, Some(*id)));
            }
            Event::Removed { id } => removed.push(name_of(&before, Some(*id))),
            _ => {}
        }
    }
    for event in &events {
        tx.record(event.clone());
    }
    if !inactive.is_empty() || !removed.is_empty() {
        tx.mail(Mail::new(
            Audience::List,
            TAG,
            "space_activity",
            json!({"inactive": inactive, "removed": removed}),
        ));
    }
    announce(tx, &before, &events);
}

/// The daily income, if due: paid, and the list told every gain.
pub fn income(tx: &mut SpaceTx<'_>) {
    let numbers = super::bound::numbers(&tx.view(), tx.params());
    let mut events = engine::pay_income(tx.state(), &numbers, tx.at());
    if events.is_empty() {
        return;
    }
    // Its rule stopped, nothing is paid (the day moves on).
    if is_stopped(tx, "the daily income") {
        events.retain(|event| matches!(event, Event::IncomePaid { .. }));
        for event in events {
            tx.record(event);
        }
        return;
    }
    let mut gains = Vec::new();
    for event in &events {
        if let Event::Transferred {
            to: Some(id),
            amount,
            ..
        } = event
        {
            gains.push(format!(
                "{}: {}",
                name_of(tx.state(), Some(*id)),
                amount.human()
            ));
        }
        tx.record(event.clone());
    }
    if !gains.is_empty() {
        tx.mail(Mail::new(
            Audience::List,
            TAG,
            "space_income",
            json!({"gains": gains}),
        ));
    }
}

/// The periodic report, if due: the gamestate, to the list (stored moves only
/// counted).
pub fn report(tx: &mut SpaceTx<'_>) {
    let Some(due) = tx.state().next_report else {
        return;
    };
    let numbers = super::bound::numbers(&tx.view(), tx.params());
    let ended = engine::end_of(tx.state(), &numbers).is_some_and(|end| due >= end);
    if due > tx.at() || ended {
        return;
    }
    let mut values = serde_json::to_value(status(tx.state()).args).unwrap_or(Value::Null);
    let picture = super::picture::svg(tx.state());
    if let Value::Object(map) = &mut values {
        map.insert(
            "picture".into(),
            Value::from(super::picture::text(tx.state())),
        );
    }
    let days = jiff::SignedDuration::from_hours(numbers.report_days.max(1).saturating_mul(24));
    tx.record(Event::Reported {
        next: due
            .checked_add(days)
            .unwrap_or(crate::engine::Timestamp::MAX),
    });
    // Its rule stopped, the report is not sent (the week moves on).
    if is_stopped(tx, "the weekly report of the gamestate") {
        return;
    }
    tx.mail(
        Mail::new(Audience::List, TAG, "space_report", values).with_attachment(
            "space.svg",
            "image/svg+xml",
            picture,
        ),
    );
}

fn rules(state: &State) -> Sentence {
    let rules: Vec<Value> = state
        .rules
        .iter()
        .map(|r| {
            json!({"number": r.number, "name": r.name, "version": r.version,
                   "colour": r.colour.clone().unwrap_or_default(), "text": r.text})
        })
        .collect();
    Sentence::new("space_rules").arg("rules", rules)
}

/// Players, money, locations, activity; proposals with their sums and what
/// would decide them.
fn status(state: &State) -> Sentence {
    let players: Vec<Value> = state
        .players
        .iter()
        .filter(|p| p.playing)
        .map(|p| {
            json!({"name": p.name, "money": p.money.human(),
                   "location": p.location.map_or_else(|| "nowhere".into(), super::graph::show),
                   "active": p.active, "point": p.point})
        })
        .collect();
    let proposals: Vec<Value> = state
        .proposals
        .iter()
        .map(|p| {
            json!({"name": p.name, "creator": name_of(state, Some(p.creator)),
                   "sum": p.sum().human(), "votes": p.votes.len(),
                   "undecided": state.undecided(p),
                   "expires": crate::engine::human_time(p.expires_at)})
        })
        .collect();
    let vertices: Vec<Value> = state
        .space
        .vertices
        .iter()
        .map(|v| {
            let owner = match v.owner {
                super::graph::Owner::God => "god".to_owned(),
                super::graph::Owner::Entity(id) => name_of(state, Some(id)),
            };
            json!({"at": super::graph::show(v.at), "owner": owner})
        })
        .collect();
    let edges: Vec<String> = state
        .space
        .edges
        .iter()
        .map(|(a, b)| format!("{}-{}", super::graph::show(*a), super::graph::show(*b)))
        .collect();
    Sentence::new("space_status")
        .arg("players", players)
        .arg("proposals", proposals)
        .arg("vertices", vertices)
        .arg(
            "moves_stored",
            state.location_moves.len() + state.mirror_moves.len() + state.space_moves.len(),
        )
        .arg("edges", edges)
        .arg(
            "income",
            state
                .next_income
                .map(crate::engine::human_time)
                .unwrap_or_default(),
        )
}
