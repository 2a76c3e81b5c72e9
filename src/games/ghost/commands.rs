//! The entry points of `Ghosts`: a command, a deadline that fired, a player who
//! left, a referee gone, and the recording of an event. Each entry point checks who
//! may do what and hands the work to one `Step`; it returns changes and never
//! changes the state itself (only `apply_event` does, as the router records).

use serde_json::{Value, json};

use super::report::{history_sentence, summary};
use super::rules::Step;
use super::{
    Change, Clock, Command, DeadlineKind, Event, Ghosts, Grounds, Instance, NewSeat, Protest,
    Record, Referee, Resolution, Seat, Services, Stage, Vacancy, Why, parse_deadline_id, tag,
};
use crate::engine::players::{Player, PlayerId, Registry};
use crate::engine::random;
use crate::engine::{Audience, Ctx, Done, Mail, Refusal, Sentence, Timestamp, human_time};

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
        self.instances.iter().find(|i| i.number == number)
    }

    /// The instances not over, in the order started.
    pub fn open_instances(&self) -> impl Iterator<Item = &Instance> {
        self.instances.iter().filter(|i| !i.is_over())
    }

    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        if let Event::Started {
            instance,
            duel,
            referee,
            seats,
            random_label,
        } = event
            && self.instance(*instance).is_none()
        {
            self.instances.push(Instance {
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
                turns_begun: 0,
                protests_made: 0,
                random_label: random_label.clone(),
                winner: None,
                rewards: None,
                history: Vec::new(),
            });
        }
        if let Some(instance) = self
            .instances
            .iter_mut()
            .find(|i| i.number == event.instance())
        {
            instance.apply(event, at);
            instance.history.push(Record {
                at,
                event: event.clone(),
            });
        }
    }

    /// The instance a command is for: `number` from the tag (`[ghost 2]`), or the one
    /// open instance. Several open and no number: refused, listing them.
    fn pick(&self, number: Option<u32>, players: &Registry) -> Result<&Instance, Refusal> {
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

    /// Carries out one command. `instance` is the N of a `[ghost N]` tag; `None`
    /// means the one open instance (`start` ignores it: it always makes a new one).
    /// `is_moderator`: the sender may override rulings like the referee.
    pub fn apply(
        &self,
        instance: Option<u32>,
        command: Command,
        ctx: &Ctx,
        services: Services,
        is_moderator: bool,
    ) -> Result<Done<Change>, Refusal> {
        if let Command::Start { duel, names } = &command {
            return self.start(*duel, names, ctx, services, is_moderator);
        }
        let players = services.players;
        let inst = self.pick(instance, players)?;
        let n = inst.number;
        match command {
            Command::Status | Command::History => {
                let history = matches!(command, Command::History).then(|| {
                    inst.history
                        .iter()
                        .map(|record| history_sentence(inst, record, players))
                        .collect::<Vec<_>>()
                });
                return Ok(Done {
                    events: Vec::new(),
                    mail: Vec::new(),
                    sentence: Sentence::new("ghost_status")
                        .arg("number", n)
                        .arg("game", summary(inst, players, ctx.now))
                        .arg("history", history),
                });
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
        let mut step = Step::new(self, services, ctx.now);
        match command {
            Command::Start { .. } | Command::Status | Command::History => {}
            Command::Begin { letter } => {
                let seat = self.playing_seat(inst, ctx, services)?;
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
                    let seat = self.playing_seat(inst, ctx, services)?;
                    step.play(n, seat, &letters)?;
                }
            }
            Command::Protest { grounds } => {
                let seat = self.playing_seat(inst, ctx, services)?;
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
                if inst.turn() != Some(seat) {
                    return Err(not_your_turn(inst, players));
                }
                step.remove(n, seat, Why::Resigned);
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
                if !inst.is_referee(ctx, players) {
                    return Err(referee_only(inst));
                }
                step.suspend(n, Vacancy::Resigned);
            }
            Command::Rule { valid, reason } => {
                let officer = require_officer(inst, ctx, players, is_moderator)?;
                let Stage::Protest { .. } = inst.stage else {
                    return Err(Refusal(Sentence::new("ghost_no_protest").arg("number", n)));
                };
                step.cancel_pending(n);
                step.resolve_protest(n, valid, Resolution::Override { officer, reason });
            }
            Command::Remove { name, reason } => {
                let officer = require_officer(inst, ctx, players, is_moderator)?;
                let seat = inst
                    .seat_named(&name, players)
                    .filter(|s| s.removed.is_none())
                    .ok_or_else(|| {
                        Refusal(
                            Sentence::new("ghost_no_such_seat")
                                .arg("number", n)
                                .arg("name", name.trim()),
                        )
                    })?;
                step.remove(n, seat.number, Why::Override { officer, reason });
            }
            Command::SetWord { word, reason } => {
                let officer = require_officer(inst, ctx, players, is_moderator)?;
                if let Stage::Protest { protest } = &inst.stage {
                    return Err(protest_pending(inst, protest, players));
                }
                step.record(Event::WordSet {
                    instance: n,
                    word,
                    previous: inst.ghost_word.clone(),
                    officer,
                    reason,
                });
            }
        }
        let sentence = Sentence::new("ghost_done")
            .arg("number", n)
            .arg("happened", step.happened(n))
            .arg("game", step.summary(n));
        let (events, mail) = step.finish();
        Ok(Done {
            events,
            mail,
            sentence,
        })
    }

    /// The sender's seat, for a play in their turn: public, in the game, the
    /// instance not suspended, no protest pending, their turn and not late.
    fn playing_seat(&self, inst: &Instance, ctx: &Ctx, services: Services) -> Result<u32, Refusal> {
        let players = services.players;
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
        &self,
        duel: bool,
        names: &[String],
        ctx: &Ctx,
        services: Services,
        is_moderator: bool,
    ) -> Result<Done<Change>, Refusal> {
        let players = services.players;
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
        let mut chosen: Vec<&Player> = Vec::new();
        for name in names {
            let player = players.by_name(name).ok_or_else(|| {
                Refusal(Sentence::new("ghost_no_such_player").arg("name", name.trim()))
            })?;
            if !player.is_active_at(ctx.now) {
                return Err(Refusal(
                    Sentence::new("ghost_player_inactive").arg("name", &player.name),
                ));
            }
            if chosen.iter().any(|p| p.id == player.id) {
                return Err(Refusal(
                    Sentence::new("ghost_named_twice").arg("name", &player.name),
                ));
            }
            if referee.player == Some(player.id) {
                return Err(Refusal(
                    Sentence::new("ghost_referee_plays").arg("name", &player.name),
                ));
            }
            chosen.push(player);
        }
        let n_players = chosen.len();
        let max = players.active_at(ctx.now).count();
        let min_players = services.params.min_players.max(2);
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
        let number = self.instances.iter().map(|i| i.number).max().unwrap_or(0) + 1;
        let mut step = Step::new(self, services, ctx.now);
        let mut new_label = None;
        let label = tag(number);
        if let Some(event) = step
            .random
            .open_if_idle(&label, ctx.entropy, ctx.now)
            .map_err(|e| random_error(&e))?
        {
            step.changes.push(Change::Random(event));
            new_label = Some(label);
        }
        let listed: Vec<String> = chosen.iter().map(|p| p.name.clone()).collect();
        let purpose = format!(
            "Ghost {number}: the players' numbers, a shuffle of {} as listed",
            listed.join(", ")
        );
        let (order, event) = step
            .random
            .shuffle(
                u32::try_from(n_players).unwrap_or(u32::MAX),
                &purpose,
                ctx.now,
            )
            .map_err(|e| random_error(&e))?;
        let draw_index = step
            .random
            .current
            .as_ref()
            .map_or(0, |period| period.draws.len());
        step.random.apply_event(&event, ctx.now);
        step.changes.push(Change::Random(event));
        // Entry k of the shuffle is which listed player comes k-th: number k + 1.
        let seats: Vec<NewSeat> = (1u32..)
            .zip(&order)
            .filter_map(|(number, listed_at)| {
                let player = chosen.get(usize::try_from(*listed_at).ok()?)?;
                Some(NewSeat {
                    number,
                    player: player.id,
                    name: player.name.clone(),
                })
            })
            .collect();
        step.record(Event::Started {
            instance: number,
            duel,
            referee: referee.clone(),
            seats,
            random_label: new_label.clone(),
        });
        step.quiet.push(number);
        step.begin_turn(number, 1);
        let game = step.summary(number);
        let (label, commitment) = step
            .random
            .current
            .as_ref()
            .map(|p| (p.label.clone(), p.commitment.clone()))
            .unwrap_or_default();
        let mail = Mail::new(
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
                "days": services.params.turn_days,
                "answer_days": services.params.answer_days,
                "addition_protest_days": services.params.addition_protest_days,
                "game": game,
            }),
        );
        let sentence = Sentence::new("ghost_started")
            .arg("number", number)
            .arg("game", game)
            .arg("label", &label)
            .arg("commitment", &commitment);
        let (events, mut mails) = step.finish();
        mails.insert(0, mail);
        Ok(Done {
            events,
            mail: mails,
            sentence,
        })
    }

    /// A deadline of this game fired (owner "ghost", id `ghost:N:turn:K` or
    /// `ghost:N:protest:K`): the player whose turn it was is assumed to have
    /// resigned, or the unanswered protest is valid. A deadline that is no longer the
    /// instance's pending one (already played, moved, suspended) does nothing, so a
    /// repeated or stale firing is harmless.
    pub fn deadline_fired(
        &self,
        id: &str,
        at: Timestamp,
        services: Services,
    ) -> (Vec<Change>, Vec<Mail>) {
        let Some((n, kind, index)) = parse_deadline_id(id) else {
            return (Vec::new(), Vec::new());
        };
        let Some(inst) = self.instance(n) else {
            return (Vec::new(), Vec::new());
        };
        if inst.pending_deadline().is_none_or(|d| d.id != id) {
            return (Vec::new(), Vec::new());
        }
        let mut step = Step::new(self, services, at);
        step.gone.push(id.to_owned());
        match (&inst.stage, kind) {
            (Stage::Turn { seat, index: i, .. }, DeadlineKind::Turn) if *i == index => {
                step.remove(n, *seat, Why::TimedOut);
            }
            (Stage::Protest { protest }, DeadlineKind::Answer) if protest.index == index => {
                step.resolve_protest(n, true, Resolution::NoAnswer);
            }
            _ => {}
        }
        step.finish()
    }

    /// A player left the nomic (call it once the registry records the leave): in
    /// every running instance they are removed as if they had posted `leave` (a
    /// resignation if it was their turn), and every instance they referee is
    /// suspended until someone takes the post. So for a leave, call this alone, not
    /// `referee_gone` as well.
    pub fn player_left_nomic(
        &self,
        player: PlayerId,
        now: Timestamp,
        services: Services,
    ) -> (Vec<Change>, Vec<Mail>) {
        let mut step = Step::new(self, services, now);
        let open: Vec<u32> = self.open_instances().map(|i| i.number).collect();
        for n in open {
            let seat = step.inst(n).and_then(|i| i.seat_of_player(player));
            if let Some(seat) = seat {
                step.remove(n, seat, Why::LeftNomic);
            }
            if step.referee_player(n) == Some(player) {
                step.suspend(n, Vacancy::LeftNomic);
            }
        }
        step.finish()
    }

    /// The player is no longer referee of anything they referee (vacation, or
    /// `why` otherwise): each such running instance is suspended, its clocks stopped
    /// with the time they had left, until a nomic player not in it takes the post.
    pub fn referee_gone(
        &self,
        player: PlayerId,
        why: Vacancy,
        now: Timestamp,
        services: Services,
    ) -> (Vec<Change>, Vec<Mail>) {
        let mut step = Step::new(self, services, now);
        let open: Vec<u32> = self.open_instances().map(|i| i.number).collect();
        for n in open {
            if step.referee_player(n) == Some(player) {
                step.suspend(n, why);
            }
        }
        step.finish()
    }
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

/// The sender's seat among the players still in the game.
fn sender_seat(inst: &Instance, ctx: &Ctx, players: &Registry) -> Result<u32, Refusal> {
    players
        .active_by_address(&ctx.sender)
        .and_then(|p| inst.seat_of_player(p.id))
        .ok_or_else(|| {
            Refusal(
                Sentence::new("ghost_not_in_game")
                    .arg("number", inst.number)
                    .arg("referee", inst.is_referee(ctx, players)),
            )
        })
}

/// The referee, or a moderator: their name, for the announcement.
fn require_officer(
    inst: &Instance,
    ctx: &Ctx,
    players: &Registry,
    is_moderator: bool,
) -> Result<String, Refusal> {
    if inst.is_referee(ctx, players) || is_moderator {
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
