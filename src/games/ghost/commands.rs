//! The entry points of `[ghost]`: a command, a deadline that fired, a player who
//! left, a referee gone; and the recording of an event. Each entry point checks
//! who may do what and hands the work to one `Step` over the transaction it is
//! given; the state changes only by the events recorded (`Ghosts::apply_event`).

use std::sync::Arc;

use serde_json::{Value, json};

use super::bound::Bound;
use super::game::Ghost;
use super::report::{history_sentence, removal_sentence, summary};
use super::rules::Step;
use super::{
    Clock, Command, DeadlineKind, Event, Ghosts, Grounds, Instance, NewSeat, Overrider, Protest,
    Record, Referee, Resolution, Seat, Stage, Vacancy, When, Why, parse_deadline_id, tag,
};
use crate::engine::calendar::{self, Deadline};
use crate::engine::game::{SharedEvent, Tick, Tx};
use crate::engine::players::{PlayerId, Registry};
use crate::engine::random;
use crate::engine::{Address, Audience, Ctx, Mail, Refusal, Sentence, Timestamp, human_time};

pub(super) fn random_error(error: &random::DrawError) -> Refusal {
    Refusal(Sentence::new("ghost_random_error").arg("error", error.to_string()))
}

/// The sender's name as an officer: the player's name, or the address.
fn officer_name(ctx: &Ctx, players: &Registry) -> String {
    players
        .active_by_address(&ctx.sender)
        .map_or_else(|| ctx.sender.to_string(), |p| p.name.clone())
}

impl Ghosts {
    pub fn instance(&self, number: u32) -> Option<&Instance> {
        self.instances
            .iter()
            .map(Arc::as_ref)
            .find(|i| i.number == number)
    }

    /// The instances not over, in the order started.
    pub fn open_instances(&self) -> impl Iterator<Item = &Instance> {
        self.instances
            .iter()
            .map(Arc::as_ref)
            .filter(|i| !i.is_over())
    }

    /// Applies one event: to a new instance, or to a copy of the one it names
    /// (the others stay shared with the state this one was copied from).
    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        if let Event::Started {
            instance,
            duel,
            referee,
            seats,
            random_label,
            origin,
            ..
        } = event
            && self.instance(*instance).is_none()
        {
            self.instances.push(Arc::new(Instance {
                number: *instance,
                duel: *duel,
                referee: Some(referee.clone()),
                started_at: at,
                seats: seats
                    .iter()
                    .map(|seat| Seat {
                        number: seat.number,
                        player: seat.player,
                        name: seat.name.clone(),
                        joined_at: at,
                        addition_protest_until: None,
                        first_turn_at: None,
                        removed: None,
                    })
                    .collect(),
                began: u32::try_from(seats.len()).unwrap_or(u32::MAX),
                ghost_word: None,
                word_by: None,
                stage: Stage::Between,
                suspended_since: None,
                held_since: None,
                stopped: None,
                turns_begun: 0,
                protests_made: 0,
                random_label: random_label.clone(),
                winner: None,
                rewards: None,
                history: Vec::new(),
                origin: origin.clone(),
            }));
        }
        if let Some(instance) = self
            .instances
            .iter_mut()
            .find(|i| i.number == event.instance())
        {
            let instance = Arc::make_mut(instance);
            instance.apply(event, at);
            instance.history.push(Record {
                at,
                event: event.clone(),
            });
        }
    }

    /// The instance a command is for: `number` from the tag (`[ghost 2]`), or the one
    /// open instance. Several open and no number: refused, listing them.
    pub(super) fn pick(
        &self,
        number: Option<u32>,
        players: &Registry,
    ) -> Result<&Instance, Refusal> {
        let listed = |instances: Vec<&Instance>| -> Vec<Value> {
            instances
                .into_iter()
                .map(|i| {
                    json!({
                        "number": i.number,
                        "players": i.in_game().map(|s| i.name(s.number, players)).collect::<Vec<_>>(),
                        "referee": i.referee.as_ref().map(|r| r.name.clone()),
                    })
                })
                .collect()
        };
        match number {
            Some(number) => self.instance(number).ok_or_else(|| {
                Refusal(
                    Sentence::new("ghost_no_such_instance")
                        .arg("number", number)
                        .arg("open", listed(self.open_instances().collect())),
                )
            }),
            None => {
                let open: Vec<&Instance> = self.open_instances().collect();
                match open.as_slice() {
                    [only] => Ok(only),
                    [] => Err(Refusal(Sentence::new("ghost_none_open").arg(
                        "finished",
                        self.instances.iter().map(|i| i.number).collect::<Vec<_>>(),
                    ))),
                    _ => Err(Refusal(
                        Sentence::new("ghost_which").arg("instances", listed(open)),
                    )),
                }
            }
        }
    }
}

/// Carries out one command in `tx`. `instance` is the N of a `[ghost N]` tag;
/// `None` means the one open instance (`start` ignores it: it always makes a new
/// one). A moderator may override rulings like the referee. On `Err` the caller
/// drops the transaction with whatever was recorded in it (a random period
/// opened before a draw that failed).
pub(super) fn apply(
    tx: &mut Tx<'_, Ghost>,
    instance: Option<u32>,
    command: Command,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    // Rule 103 held or out of effect: what would apply it waits, or is gone;
    // the record stays readable.
    if !matches!(command, Command::Status | Command::History) {
        rule_in_effect(tx)?;
    }
    let is_moderator = tx.view().is_moderator(&ctx.sender);
    // Unauthenticated mail holds no office: not even the referee's post.
    let withdrawn = tx.view().officers.is_withdrawn(&ctx.sender);
    match &command {
        Command::Start { duel, names } => {
            return start(tx, *duel, names, ctx, is_moderator, None, None);
        }
        Command::StartInOrder {
            duel,
            names,
            reason,
        } => {
            // The rule has the numbers drawn at random; giving them by hand is for
            // a game begun before the bot refereed it, which only a moderator sets up.
            if !is_moderator {
                return Err(Refusal(Sentence::new("ghost_moderator_only")));
            }
            let ordered = Overrider {
                officer: officer_name(ctx, tx.view().players),
                reason: reason.clone(),
            };
            return start(tx, *duel, names, ctx, is_moderator, Some(ordered), None);
        }
        _ => {}
    }
    let mut step = Step::new(tx);
    let players = step.players();
    let inst = step.ghosts().pick(instance, players)?;
    let n = inst.number;
    match command {
        Command::Status | Command::History => {
            let history = matches!(command, Command::History).then(|| {
                inst.history
                    .iter()
                    .map(|record| history_sentence(inst, record, players))
                    .collect::<Vec<_>>()
            });
            return Ok(Sentence::new("ghost_status")
                .arg("number", n)
                .arg("game", summary(inst, players, ctx.now))
                .arg("history", history));
        }
        _ if inst.is_over() => {
            return Err(Refusal(
                Sentence::new("ghost_over")
                    .arg("number", n)
                    .arg("winner", inst.winner.map(|w| inst.name(w, players))),
            ));
        }
        _ => {}
    }
    // Each arm checks with `inst` and `players` (the state before the step), then
    // hands the work to the step, which alone records.
    let mut resign_as_leave = false;
    match command {
        Command::Start { .. }
        | Command::StartInOrder { .. }
        | Command::Status
        | Command::History => {}
        Command::Begin { letter } => {
            let seat = playing_seat(inst, ctx, players)?;
            if let Some(word) = &inst.ghost_word {
                return Err(Refusal(
                    Sentence::new("ghost_word_exists")
                        .arg("number", n)
                        .arg("word", word),
                ));
            }
            step.play(n, seat, &letter)?;
        }
        Command::Play { letters } => {
            // The protested player of a "not inside" protest who posts a bare
            // word is answering it ("three days to post a word containing the
            // ghost word"), not playing.
            let answering = matches!(
                &inst.stage,
                Stage::Protest { protest }
                    if protest.grounds == Grounds::NotInside
                        && protest.against.is_some()
                        && protest.against == sender_seat(inst, ctx, players).ok()
            );
            if answering {
                require_public(inst, ctx)?;
                let seat = sender_seat(inst, ctx, players)?;
                require_referee_present(inst)?;
                step.answer(n, seat, &letters)?;
            } else {
                let seat = playing_seat(inst, ctx, players)?;
                step.play(n, seat, &letters)?;
            }
        }
        Command::Protest { grounds } => {
            let seat = playing_seat(inst, ctx, players)?;
            step.protest(n, seat, grounds)?;
        }
        Command::Answer { word } => {
            require_public(inst, ctx)?;
            let seat = sender_seat(inst, ctx, players)?;
            require_referee_present(inst)?;
            step.answer(n, seat, &word)?;
        }
        Command::Resign => {
            require_public(inst, ctx)?;
            let seat = sender_seat(inst, ctx, players)?;
            // Resigning is a play, made in one's turn (rule 103 §4 (4)). Out of
            // turn the message is still one "to the effect" of leaving, which §4
            // allows at any time: the player leaves, the word stays, the order
            // goes on without them.
            if inst.turn() == Some(seat) {
                step.remove(n, seat, Why::Resigned);
            } else {
                resign_as_leave = true;
                step.remove(n, seat, Why::Left);
            }
        }
        Command::Leave => {
            require_public(inst, ctx)?;
            let seat = sender_seat(inst, ctx, players)?;
            step.remove(n, seat, Why::Left);
        }
        Command::AddMe => step.add(n, ctx)?,
        Command::ProtestAddition { name } => {
            require_public(inst, ctx)?;
            let seat = sender_seat(inst, ctx, players)?;
            require_referee_present(inst)?;
            step.protest_addition(n, seat, &name)?;
        }
        Command::TakeReferee => step.take_referee(n, ctx, is_moderator)?,
        Command::ResignReferee => {
            if withdrawn || !inst.is_referee(ctx, players) {
                return Err(referee_only(inst));
            }
            step.suspend(n, Vacancy::Resigned);
        }
        Command::Rule { valid, reason } => {
            let officer = require_officer(inst, ctx, players, is_moderator, withdrawn)?;
            let Stage::Protest { .. } = inst.stage else {
                return Err(Refusal(Sentence::new("ghost_no_protest").arg("number", n)));
            };
            step.cancel_pending(n);
            step.resolve_protest(n, valid, Resolution::Override { officer, reason });
        }
        Command::Remove { name, reason } => {
            let officer = require_officer(inst, ctx, players, is_moderator, withdrawn)?;
            let seat = seat_in_game(inst, &name, players)?;
            step.remove(n, seat, Why::Override { officer, reason });
        }
        Command::SetWord { word, by, reason } => {
            let officer = require_officer(inst, ctx, players, is_moderator, withdrawn)?;
            if let Stage::Protest { protest } = &inst.stage {
                return Err(protest_pending(inst, protest, players));
            }
            let by = match by {
                Some(name) => Some(seat_in_game(inst, &name, players)?),
                None => None,
            };
            if by.is_some() && word.is_none() {
                return Err(Refusal(Sentence::new("ghost_no_word").arg("number", n)));
            }
            let previous = inst.ghost_word.clone();
            step.record(Event::WordSet {
                instance: n,
                word,
                previous,
                officer,
                reason,
                by,
            });
        }
        Command::Order { names, reason } => {
            // The numbers are the referee's to draw at random (§4), so an order
            // given by hand is a moderator's correction, not the referee's.
            if !is_moderator {
                return Err(Refusal(Sentence::new("ghost_moderator_only")));
            }
            let officer = officer_name(ctx, players);
            step.order(n, &names, Overrider { officer, reason })?;
        }
        Command::SetTurn { name, reason } => {
            let officer = require_officer(inst, ctx, players, is_moderator, withdrawn)?;
            if let Stage::Protest { protest } = &inst.stage {
                return Err(protest_pending(inst, protest, players));
            }
            let seat = seat_in_game(inst, &name, players)?;
            step.cancel_pending(n);
            step.record(Event::TurnSet {
                instance: n,
                seat,
                officer,
                reason,
            });
            step.begin_turn(n, seat);
        }
        Command::SetDeadline { when, reason } => {
            let officer = require_officer(inst, ctx, players, is_moderator, withdrawn)?;
            let deadline = match when {
                When::At(at) => at,
                When::In(span) => super::later(ctx.now, span),
            };
            if deadline <= ctx.now {
                return Err(Refusal(
                    Sentence::new("ghost_deadline_past")
                        .arg("number", n)
                        .arg("deadline", human_time(deadline))
                        .arg("now", human_time(ctx.now)),
                ));
            }
            let previous = match &inst.stage {
                Stage::Turn { clock, .. } => clock.deadline(),
                Stage::Protest {
                    protest:
                        Protest {
                            clock: Some(clock), ..
                        },
                } => clock.deadline(),
                _ => {
                    return Err(Refusal(Sentence::new("ghost_no_clock").arg("number", n)));
                }
            };
            step.record(Event::ClockSet {
                instance: n,
                deadline,
                previous,
                officer,
                reason,
            });
            // The same deadline id again: the schedule moves it (and owes a new
            // reminder) rather than keeping the old time.
            step.schedule_pending(n);
        }
    }
    let sentence = Sentence::new("ghost_done")
        .arg("number", n)
        .arg("resign_as_leave", resign_as_leave)
        .arg("happened", step.happened(n))
        .arg("game", step.summary(n));
    step.finish();
    Ok(sentence)
}

/// Refuses what would apply rule 103 while the bot does not follow it: held
/// for a moderator's ruling, or out of effect.
fn rule_in_effect(tx: &Tx<'_, Ghost>) -> Result<(), Refusal> {
    let bound = Bound::of(&tx.view(), tx.params());
    if let Some(difference) = bound.held() {
        return Err(Refusal(
            Sentence::new("ghost_rule_held")
                .arg("rule", bound.rule())
                .arg("difference", difference),
        ));
    }
    if let Some(why) = bound.stopped() {
        return Err(Refusal(
            Sentence::new("ghost_rule_stopped")
                .arg("rule", bound.rule())
                .arg("why", why),
        ));
    }
    Ok(())
}

/// What the bot follows of rule 103 changed (`Game::bindings_changed`): out of
/// effect, every running instance ends with no winner and nothing paid; held,
/// every running instance stops its clocks until a moderator rules; followed
/// again, the held instances go on with the time their clocks had left. A
/// number amended needs nothing here: each step reads the numbers anew.
pub(super) fn bindings_changed(tx: &mut Tx<'_, Ghost>) {
    let bound = Bound::of(&tx.view(), tx.params());
    let rule = bound.rule();
    let mut step = Step::new(tx);
    let open: Vec<(u32, bool)> = step
        .ghosts()
        .open_instances()
        .map(|i| (i.number, i.is_held()))
        .collect();
    for (n, held) in open {
        if let Some(why) = bound.stopped() {
            step.cancel_pending(n);
            step.record(Event::RuleStopped {
                instance: n,
                rule,
                why,
            });
            step.end_period(n);
        } else if let Some(difference) = bound.held() {
            if !held {
                step.cancel_pending(n);
                step.record(Event::Held {
                    instance: n,
                    rule,
                    difference: difference.to_owned(),
                });
            }
        } else if held {
            step.record(Event::Released { instance: n, rule });
            step.schedule_pending(n);
        }
    }
    step.finish();
}

/// The sender's seat, for a play in their turn: public, in the game, the
/// instance not suspended, no protest pending, their turn and not late.
fn playing_seat(inst: &Instance, ctx: &Ctx, players: &Registry) -> Result<u32, Refusal> {
    require_public(inst, ctx)?;
    let seat = sender_seat(inst, ctx, players)?;
    require_referee_present(inst)?;
    match &inst.stage {
        Stage::Protest { protest } => Err(protest_pending(inst, protest, players)),
        Stage::Turn {
            seat: turn, clock, ..
        } if *turn == seat => match clock.deadline() {
            Some(deadline) if ctx.now >= deadline => Err(Refusal(
                Sentence::new("ghost_late")
                    .arg("number", inst.number)
                    .arg("deadline", human_time(deadline)),
            )),
            _ => Ok(seat),
        },
        _ => Err(not_your_turn(inst, players)),
    }
}

/// `start`: checks the players, draws their numbers and begins turn 1.
fn start(
    tx: &mut Tx<'_, Ghost>,
    duel: bool,
    names: &[String],
    ctx: &Ctx,
    is_moderator: bool,
    ordered: Option<Overrider>,
    origin: Option<String>,
) -> Result<Sentence, Refusal> {
    let mut step = Step::new(tx);
    let players = step.players();
    let numbers = step.numbers().clone();
    let starter = players
        .active_by_address(&ctx.sender)
        .filter(|p| p.is_active_at(ctx.now));
    if starter.is_none() && !is_moderator {
        return Err(Refusal(
            Sentence::new("ghost_start_who").arg("address", ctx.sender.as_str()),
        ));
    }
    let referee = Referee {
        address: ctx.sender.clone(),
        player: starter.map(|p| p.id),
        name: starter.map_or_else(|| ctx.sender.to_string(), |p| p.name.clone()),
    };
    let mut chosen: Vec<(PlayerId, String)> = Vec::new();
    for name in names {
        let player = players.by_name(name).ok_or_else(|| {
            Refusal(Sentence::new("ghost_no_such_player").arg("name", name.trim()))
        })?;
        if !player.is_active_at(ctx.now) {
            return Err(Refusal(
                Sentence::new("ghost_player_inactive").arg("name", &player.name),
            ));
        }
        if chosen.iter().any(|(id, _)| *id == player.id) {
            return Err(Refusal(
                Sentence::new("ghost_named_twice").arg("name", &player.name),
            ));
        }
        if referee.player == Some(player.id) {
            return Err(Refusal(
                Sentence::new("ghost_referee_plays").arg("name", &player.name),
            ));
        }
        chosen.push((player.id, player.name.clone()));
    }
    let n_players = chosen.len();
    let max = players.active_at(ctx.now).count();
    let min_players = numbers.min_players.max(2);
    if n_players < min_players {
        return Err(Refusal(
            Sentence::new("ghost_too_few")
                .arg("n", n_players)
                .arg("min", min_players),
        ));
    }
    if duel && n_players != 2 {
        return Err(Refusal(Sentence::new("ghost_duel_two").arg("n", n_players)));
    }
    if n_players > max {
        return Err(Refusal(
            Sentence::new("ghost_too_many")
                .arg("n", n_players)
                .arg("max", max),
        ));
    }
    let number = step
        .ghosts()
        .instances
        .iter()
        .map(|i| i.number)
        .max()
        .unwrap_or(0)
        + 1;
    let listed: Vec<String> = chosen.iter().map(|(_, name)| name.clone()).collect();
    let purpose = format!(
        "Ghost {number}: the players' numbers, a shuffle of {} as listed",
        listed.join(", ")
    );
    let mut new_label = None;
    let (order, draw_index): (Vec<u32>, usize) = if ordered.is_some() {
        (
            (0..u32::try_from(n_players).unwrap_or(u32::MAX)).collect(),
            0,
        )
    } else {
        // The numbering is drawn in the running random period, or in one the
        // instance opens (and ends when it ends).
        let label = tag(number);
        if step.random().current.is_none() {
            let event = step
                .random()
                .start_period(&label, ctx.entropy)
                .map_err(|e| random_error(&e))?;
            step.record_shared(SharedEvent::Random(event));
            new_label = Some(label);
        }
        let (order, event) = step
            .random()
            .shuffle(
                u32::try_from(n_players).unwrap_or(u32::MAX),
                &purpose,
                ctx.now,
            )
            .map_err(|e| random_error(&e))?;
        let draw_index = step
            .random()
            .current
            .as_ref()
            .map_or(0, |period| period.draws.len());
        step.record_shared(SharedEvent::Random(event));
        (order, draw_index)
    };
    // Entry k of the shuffle is which listed player comes k-th: number k + 1.
    let seats: Vec<NewSeat> = (1u32..)
        .zip(&order)
        .filter_map(|(number, listed_at)| {
            let (player, name) = chosen.get(usize::try_from(*listed_at).ok()?)?;
            Some(NewSeat {
                number,
                player: *player,
                name: name.clone(),
            })
        })
        .collect();
    step.record(Event::Started {
        instance: number,
        duel,
        referee: referee.clone(),
        seats,
        random_label: new_label.clone(),
        ordered: ordered.clone(),
        origin,
    });
    step.quiet.push(number);
    step.begin_turn(number, 1);
    let game = step.summary(number);
    let (label, commitment) = step
        .random()
        .current
        .as_ref()
        .map(|p| (p.label.clone(), p.commitment.clone()))
        .unwrap_or_default();
    // The start's own announcement comes before anything else the step sends.
    step.mail(Mail::new(
        Audience::List,
        &tag(number),
        "ghost_started",
        json!({
            "number": number,
            "at": human_time(ctx.now),
            "referee": referee.name,
            "duel": duel,
            "listed": listed,
            "label": label,
            "commitment": commitment,
            "new_period": new_label.is_some(),
            "purpose": purpose,
            "draw_index": draw_index,
            "ordered": ordered.as_ref().map(|o| json!({"officer": o.officer, "reason": o.reason})),
            "days": numbers.turn_days,
            "answer_days": numbers.answer_days,
            "addition_protest_days": numbers.addition_protest_days,
            "game": game,
        }),
    ));
    let sentence = Sentence::new("ghost_started")
        .arg("number", number)
        .arg("ordered", ordered.is_some())
        .arg("game", game)
        .arg("label", &label)
        .arg("commitment", &commitment);
    step.finish();
    Ok(sentence)
}

/// A deadline of this game fired (owner "ghost", id `ghost:N:turn:K` or
/// `ghost:N:protest:K`): the player whose turn it was is assumed to have
/// resigned, or the unanswered protest is valid. A deadline that is no longer the
/// instance's pending one (already played, moved, suspended) does nothing, so a
/// repeated or stale firing is harmless.
pub(super) fn deadline_fired(tx: &mut Tx<'_, Ghost>, deadline: &Deadline, tick: &Tick) {
    let id = deadline.id.as_str();
    if let Some((origin, names)) = handed_duel(tx, id) {
        duel_handed(tx, deadline, tick, origin, &names);
        return;
    }
    let Some((n, kind, index)) = parse_deadline_id(id) else {
        return;
    };
    let mut step = Step::new(tx);
    let Some(inst) = step.inst(n) else {
        return;
    };
    if inst.pending_deadline().is_none_or(|d| d.id != id) {
        return;
    }
    let timed_out = match &inst.stage {
        Stage::Turn { seat, index: i, .. } if kind == DeadlineKind::Turn && *i == index => {
            Some(*seat)
        }
        _ => None,
    };
    let unanswered = matches!(
        &inst.stage,
        Stage::Protest { protest } if kind == DeadlineKind::Answer && protest.index == index
    );
    step.gone.push(id.to_owned());
    if let Some(seat) = timed_out {
        step.remove(n, seat, Why::TimedOut);
    } else if unanswered {
        step.resolve_protest(n, true, Resolution::NoAnswer);
    }
    step.finish();
}

/// A Duel another game handed over on the schedule: the deadline
/// `ghost:duel:TAG:N:A:B` it owns, A and B the duellists' player ids, its
/// `who` the referee when a player referees (otherwise the first moderator
/// does). Gives the origin (`TAG:N`) and the duellists' names.
fn handed_duel(tx: &Tx<'_, Ghost>, id: &str) -> Option<(String, Vec<String>)> {
    let rest = id.strip_prefix("ghost:duel:")?;
    let parts: Vec<&str> = rest.split(':').collect();
    let [game, number, a, b] = parts.as_slice() else {
        return None;
    };
    number.parse::<u32>().ok()?;
    let players = tx.view().players;
    let name = |id: &str| -> Option<String> {
        let id = id.parse().ok()?;
        players.by_id(id).map(|p| p.name.clone())
    };
    Some((format!("{game}:{number}"), vec![name(a)?, name(b)?]))
}

/// Starts the Duel another game handed over, as `start duel with A, B` from
/// its referee; what cannot start (a duellist gone) is told back as a Duel
/// with no winner, so the other game is not left waiting.
fn duel_handed(
    tx: &mut Tx<'_, Ghost>,
    deadline: &Deadline,
    tick: &Tick,
    origin: String,
    names: &[String],
) {
    let view = tx.view();
    let referee = deadline
        .who
        .and_then(|id| view.players.by_id(id))
        .map(|p| p.address.clone())
        .or_else(|| view.officers.moderators.first().cloned())
        .unwrap_or_else(|| Address::new("nobody"));
    let ctx = Ctx {
        now: tx.at(),
        sender: referee,
        sender_name: None,
        public: true,
        entropy: tick.entropy,
    };
    if start(tx, true, names, &ctx, true, None, Some(origin.clone())).is_err() {
        tell_origin(tx, &origin, None);
    }
}

/// Tells the game a Duel came from its winner (a player id, or `none`), by a
/// deadline that game owns at this instant: `TAG:won:N:WINNER`.
pub(super) fn tell_origin(tx: &mut Tx<'_, Ghost>, origin: &str, winner: Option<PlayerId>) {
    let Some((game, number)) = origin.split_once(':') else {
        return;
    };
    let winner = winner.map_or_else(|| "none".to_owned(), |id| id.to_string());
    tx.record_shared(SharedEvent::Schedule(calendar::Event::Scheduled {
        deadline: Deadline {
            id: format!("{game}:won:{number}:{winner}"),
            at: tx.at(),
            owner: game.to_owned(),
            who: None,
            what: format!("the winner of the Ghost Duel for {game} {number}"),
            remind: false,
        },
    }));
}

/// A player left the nomic (the registry has recorded the leave): in every
/// running instance they are removed as if they had posted `leave` (a
/// resignation if it was their turn), and every instance they referee is
/// suspended until someone takes the post. So for a leave, call this alone, not
/// `referee_gone` as well.
pub(super) fn player_left_nomic(tx: &mut Tx<'_, Ghost>, player: PlayerId) {
    let mut step = Step::new(tx);
    let open: Vec<u32> = step.ghosts().open_instances().map(|i| i.number).collect();
    for n in open {
        let seat = step.inst(n).and_then(|i| i.seat_of_player(player));
        if let Some(seat) = seat {
            step.remove(n, seat, Why::LeftNomic);
        }
        if step.referee_player(n) == Some(player) {
            step.suspend(n, Vacancy::LeftNomic);
        }
    }
    step.finish();
}

/// The player is no longer referee of anything they referee (vacation, or
/// `why` otherwise): each such running instance is suspended, its clocks stopped
/// with the time they had left, until a nomic player not in it takes the post.
pub(super) fn referee_gone(tx: &mut Tx<'_, Ghost>, player: PlayerId, why: Vacancy) {
    let mut step = Step::new(tx);
    let open: Vec<u32> = step.ghosts().open_instances().map(|i| i.number).collect();
    for n in open {
        if step.referee_player(n) == Some(player) {
            step.suspend(n, why);
        }
    }
    step.finish();
}

pub(super) fn require_public(inst: &Instance, ctx: &Ctx) -> Result<(), Refusal> {
    if ctx.public {
        Ok(())
    } else {
        Err(Refusal(
            Sentence::new("ghost_public").arg("number", inst.number),
        ))
    }
}

pub(super) fn require_referee_present(inst: &Instance) -> Result<(), Refusal> {
    if inst.is_suspended() {
        Err(Refusal(
            Sentence::new("ghost_suspended").arg("number", inst.number),
        ))
    } else {
        Ok(())
    }
}

/// The sender's seat among the players still in the game. A removed player is
/// told when and why they went out, so a late move is not met with a bare "you
/// are not a player" by someone who thinks they still are.
fn sender_seat(inst: &Instance, ctx: &Ctx, players: &Registry) -> Result<u32, Refusal> {
    let player = players.active_by_address(&ctx.sender);
    if let Some(seat) = player.and_then(|p| inst.seat_of_player(p.id)) {
        return Ok(seat);
    }
    let removed = player.and_then(|p| {
        inst.seats
            .iter()
            .rev()
            .find(|s| s.player == p.id)
            .and_then(|s| s.removed.as_ref())
    });
    Err(Refusal(match removed {
        Some(removal) => removal_sentence(inst, removal, players),
        None => Sentence::new("ghost_not_in_game")
            .arg("number", inst.number)
            .arg("referee", inst.is_referee(ctx, players)),
    }))
}

/// The seat of the player called `name` who is still in the game.
fn seat_in_game(inst: &Instance, name: &str, players: &Registry) -> Result<u32, Refusal> {
    inst.seat_named(name, players)
        .filter(|s| s.removed.is_none())
        .map(|s| s.number)
        .ok_or_else(|| {
            Refusal(
                Sentence::new("ghost_no_such_seat")
                    .arg("number", inst.number)
                    .arg("name", name.trim()),
            )
        })
}

/// The referee, or a moderator: their name, for the announcement.
fn require_officer(
    inst: &Instance,
    ctx: &Ctx,
    players: &Registry,
    is_moderator: bool,
    withdrawn: bool,
) -> Result<String, Refusal> {
    if (inst.is_referee(ctx, players) && !withdrawn) || is_moderator {
        Ok(officer_name(ctx, players))
    } else {
        Err(referee_only(inst))
    }
}

fn referee_only(inst: &Instance) -> Refusal {
    Refusal(
        Sentence::new("ghost_referee_only")
            .arg("number", inst.number)
            .arg("referee", inst.referee.as_ref().map(|r| r.name.clone())),
    )
}

fn not_your_turn(inst: &Instance, players: &Registry) -> Refusal {
    Refusal(
        Sentence::new("ghost_not_your_turn")
            .arg("number", inst.number)
            .arg("turn", inst.turn().map(|seat| inst.name(seat, players))),
    )
}

fn protest_pending(inst: &Instance, protest: &Protest, players: &Registry) -> Refusal {
    Refusal(
        Sentence::new("ghost_protest_pending")
            .arg("number", inst.number)
            .arg("word", &protest.word)
            .arg("against", protest.against.map(|s| inst.name(s, players)))
            .arg(
                "deadline",
                protest.clock.and_then(Clock::deadline).map(human_time),
            ),
    )
}
