//! The clauses of rule 103 as `Step` carries them out in the transaction: turns,
//! plays, protests, removals, additions, the referee's post and the rewards. It
//! decides and records events, each applied to the transaction's scratch state
//! at once, so a later decision sees an earlier one; the announcements a step
//! sends are built in `report`.

use num_bigint::BigInt;
use num_rational::BigRational;

use super::bound::Bound;
use super::commands::{require_public, require_referee_present};
use super::game::Ghost;
use super::{
    Clock, Event, Ghosts, Grounds, Instance, NewSeat, Overrider, Params, Payment, Protest, RULE,
    Referee, Reseated, Resolution, Rewards, Stage, Vacancy, Why, days, later, tag,
};
use crate::engine::accounts::Holder;
use crate::engine::calendar;
use crate::engine::dictionary::Lexicon;
use crate::engine::game::{SharedEvent, Tx};
use crate::engine::players::{PlayerId, Registry};
use crate::engine::random::RandomOfficer;
use crate::engine::{Ctx, Mail, Refusal, Sentence, Timestamp, human_time};

/// The work of one command or one firing, in its transaction: the state, the
/// world and the recording are the transaction's; the step keeps only what its
/// announcements need.
pub(super) struct Step<'t, 'a> {
    tx: &'t mut Tx<'a, Ghost>,
    /// The instances touched, with the length of their history before this step.
    pub(super) touched: Vec<(u32, usize)>,
    /// Instances whose announcement the caller makes itself (the start).
    pub(super) quiet: Vec<u32>,
    /// The seeds published because an instance ended, by instance.
    pub(super) reveals: Vec<(u32, Mail)>,
    /// Deadlines fired (the cause of this step) or cancelled in it: not to be
    /// cancelled again.
    pub(super) gone: Vec<String>,
    /// The game's numbers as rule 103 says them when the step begins
    /// (`bound`): an amendment of a number applies from then on.
    numbers: Params,
}

impl<'t, 'a> Step<'t, 'a> {
    pub(super) fn new(tx: &'t mut Tx<'a, Ghost>) -> Step<'t, 'a> {
        let numbers = Bound::of(&tx.view(), tx.params()).params().clone();
        Step {
            numbers,
            tx,
            touched: Vec::new(),
            quiet: Vec::new(),
            reveals: Vec::new(),
            gone: Vec::new(),
        }
    }

    /// The moment of the step: the message's arrival, or the deadline.
    pub(super) fn at(&self) -> Timestamp {
        self.tx.at()
    }

    pub(super) fn ghosts(&self) -> &Ghosts {
        self.tx.state()
    }

    pub(super) fn inst(&self, n: u32) -> Option<&Instance> {
        self.ghosts().instance(n)
    }

    pub(super) fn players(&self) -> &Registry {
        self.tx.view().players
    }

    pub(super) fn random(&self) -> &RandomOfficer {
        self.tx.view().random
    }

    /// The official dictionary.
    fn lexicon(&self) -> &dyn Lexicon {
        self.tx.view().lexicon
    }

    /// The game's numbers, as rule 103 says them now.
    pub(super) fn numbers(&self) -> &Params {
        &self.numbers
    }

    pub(super) fn referee_player(&self, n: u32) -> Option<PlayerId> {
        self.inst(n)
            .filter(|i| !i.is_over())
            .and_then(|i| i.referee.as_ref())
            .and_then(|r| r.player)
    }

    /// Records an event of the game, noting the instance's history before it
    /// for the announcement.
    pub(super) fn record(&mut self, event: Event) {
        let n = event.instance();
        if !self.touched.iter().any(|(t, _)| *t == n) {
            let before = self.inst(n).map_or(0, |i| i.history.len());
            self.touched.push((n, before));
        }
        self.tx.record(event);
    }

    /// Records an event of the shared world (schedule, random officer, accounts).
    pub(super) fn record_shared(&mut self, event: SharedEvent) {
        self.tx.record_shared(event);
    }

    pub(super) fn mail(&mut self, mail: Mail) {
        self.tx.mail(mail);
    }

    pub(super) fn cancel_pending(&mut self, n: u32) {
        let Some(deadline) = self.inst(n).and_then(Instance::pending_deadline) else {
            return;
        };
        if !self.gone.contains(&deadline.id) {
            self.gone.push(deadline.id.clone());
            self.record_shared(SharedEvent::Schedule(calendar::Event::Cancelled {
                id: deadline.id,
            }));
        }
    }

    pub(super) fn schedule_pending(&mut self, n: u32) {
        if let Some(deadline) = self.inst(n).and_then(Instance::pending_deadline) {
            self.record_shared(SharedEvent::Schedule(calendar::Event::Scheduled {
                deadline,
            }));
        }
    }

    /// Seat `seat`'s turn begins: announced, with a deadline (or, while there is no
    /// referee or rule 103 is held, a stopped clock holding a whole turn).
    pub(super) fn begin_turn(&mut self, n: u32, seat: u32) {
        let Some(inst) = self.inst(n) else { return };
        let length = days(self.numbers().turn_days);
        let clock = if inst.clocks_stopped() {
            Clock::Stopped {
                remaining_seconds: length.as_secs(),
            }
        } else {
            Clock::Running {
                deadline: later(self.at(), length),
            }
        };
        let event = Event::TurnBegan {
            instance: n,
            seat,
            index: inst.turns_begun + 1,
            word: inst.ghost_word.clone(),
            clock,
        };
        self.record(event);
        self.schedule_pending(n);
    }

    /// After seat `after`'s turn (or protest): the game is won, or the next turn begins.
    fn advance(&mut self, n: u32, after: u32) {
        if self.finish_if_won(n) {
            return;
        }
        if let Some(next) = self.inst(n).and_then(|i| i.next_after(after)) {
            self.begin_turn(n, next);
        }
    }

    fn destroy_word(&mut self, n: u32) {
        if let Some(word) = self.inst(n).and_then(|i| i.ghost_word.clone()) {
            self.record(Event::WordDestroyed { instance: n, word });
        }
    }

    /// Removes seat `seat`. In their turn it is a resignation: the ghost word is
    /// destroyed and the next turn begins. If a protest that awaits their answer was
    /// made against them, the bot resolves it with the dictionary. Then, if one player
    /// is left, they win.
    pub(super) fn remove(&mut self, n: u32, seat: u32, why: Why) {
        let Some(inst) = self.inst(n) else { return };
        if !inst.is_in_game(seat) {
            return;
        }
        let in_turn = inst.turn() == Some(seat);
        let awaited = match &inst.stage {
            Stage::Protest { protest } if protest.against == Some(seat) => Some(protest.clone()),
            _ => None,
        };
        if in_turn || awaited.is_some() {
            self.cancel_pending(n);
        }
        self.record(Event::Removed {
            instance: n,
            seat,
            why,
            in_turn,
        });
        if in_turn {
            self.destroy_word(n);
            self.advance(n, seat);
            return;
        }
        if self.finish_if_won(n) {
            return;
        }
        // The protested player left without posting a word containing the ghost
        // word: "If he does not, the protest is resolved as valid."
        if awaited.is_some() {
            self.resolve_protest(n, true, Resolution::Left);
        }
    }

    /// Resolves the instance's protest: the invalid protester, or the player with a
    /// valid protest against them, is removed; the ghost word is destroyed on a valid
    /// protest and always for `NotInside`; the next turn is the protester's next's.
    /// The caller cancels a pending deadline that did not fire.
    pub(super) fn resolve_protest(&mut self, n: u32, valid: bool, how: Resolution) {
        let Some(Stage::Protest { protest }) = self.inst(n).map(|i| i.stage.clone()) else {
            return;
        };
        self.record(Event::ProtestResolved {
            instance: n,
            protest: protest.clone(),
            valid,
            how,
        });
        let loser = if valid {
            protest.against
        } else {
            Some(protest.by)
        };
        if let Some(loser) = loser
            && self.inst(n).is_some_and(|i| i.is_in_game(loser))
        {
            let why = if valid {
                Why::ValidProtest
            } else {
                Why::InvalidProtest
            };
            self.record(Event::Removed {
                instance: n,
                seat: loser,
                why,
                in_turn: false,
            });
        }
        if valid || protest.grounds == Grounds::NotInside {
            self.destroy_word(n);
        }
        self.advance(n, protest.by);
    }

    /// If at most one player is left, the game is over: the winner is announced and
    /// paid, and the random period the instance started is ended.
    fn finish_if_won(&mut self, n: u32) -> bool {
        let Some(inst) = self.inst(n) else {
            return true;
        };
        if inst.is_over() {
            return true;
        }
        let in_game: Vec<u32> = inst.in_game().map(|s| s.number).collect();
        if in_game.len() > 1 {
            return false;
        }
        let winner = in_game.first().copied();
        let origin = inst.origin.clone();
        let winner_player = winner.and_then(|seat| inst.seat(seat)).map(|s| s.player);
        self.cancel_pending(n);
        let rewards = winner.and_then(|winner| self.pay(n, winner));
        self.record(Event::Finished {
            instance: n,
            winner,
            rewards,
        });
        self.end_period(n);
        if let Some(origin) = origin {
            super::commands::tell_origin(self.tx, &origin, winner_player);
        }
        true
    }

    /// Rule 103 §5: the referee's fee, and the winner's points unless a Duel. A
    /// payment the accounts refuse (say, a currency not configured) is not made and
    /// the result says why; it does not stop the game from ending.
    fn pay(&mut self, n: u32, winner: u32) -> Option<Rewards> {
        let players = self.players();
        let accounts = self.tx.view().accounts;
        let numbers = self.numbers();
        let inst = self.inst(n)?;
        let winner_seat = inst.seat(winner)?;
        let began = inst.began;
        let mut transfers = Vec::new();
        let mut pay_to =
            |player: PlayerId, name: String, amount: i64, currency: &str, why: String| {
                let amount_value = BigRational::from_integer(BigInt::from(amount));
                match accounts.transfer(
                    Holder::Nowhere,
                    Holder::Player(player),
                    currency,
                    &amount_value,
                    &why,
                ) {
                    Ok(event) => {
                        transfers.push(event);
                        Payment {
                            to: Some(name),
                            amount,
                            currency: currency.to_owned(),
                            unpaid: None,
                        }
                    }
                    Err(Refusal(sentence)) => {
                        unpaid_to(Some(name), amount, currency, &sentence.code)
                    }
                }
            };
        let fee = numbers.referee_fee;
        let fee_currency = numbers.referee_currency.as_str();
        let referee = match &inst.referee {
            None => unpaid_to(None, fee, fee_currency, "no_referee"),
            Some(referee) => match referee
                .player
                .and_then(|id| players.by_id(id))
                .filter(|p| p.is_active())
            {
                None => unpaid_to(
                    Some(referee.name.clone()),
                    fee,
                    fee_currency,
                    "not_a_player",
                ),
                Some(player) => pay_to(
                    player.id,
                    player.name.clone(),
                    fee,
                    fee_currency,
                    format!("{RULE}: the referee of Ghost {n}"),
                ),
            },
        };
        let winner_name = inst.name(winner, players);
        let winner = if inst.duel {
            unpaid_to(Some(winner_name), 0, &numbers.winner_currency, "duel")
        } else {
            pay_to(
                winner_seat.player,
                winner_name,
                numbers.winner_points(began),
                &numbers.winner_currency,
                format!("{RULE}: the winner of Ghost {n}, which {began} players began"),
            )
        };
        for event in transfers {
            self.record_shared(SharedEvent::Accounts(event));
        }
        Some(Rewards {
            began,
            referee,
            winner,
        })
    }

    /// Ends the random period the instance started, if it still runs: its seed is
    /// published after the instance's last announcement.
    pub(super) fn end_period(&mut self, n: u32) {
        let Some(label) = self.inst(n).and_then(|i| i.random_label.clone()) else {
            return;
        };
        let random = self.random();
        if random.current.as_ref().is_none_or(|p| p.label != label) {
            return;
        }
        if let Ok(event) = random.end_period() {
            self.record_shared(SharedEvent::Random(event));
            if let Some(record) = self.random().past.last() {
                let revealed = record.revealed_mail(&tag(n));
                self.reveals.push((n, revealed));
            }
        }
    }

    pub(super) fn suspend(&mut self, n: u32, why: Vacancy) {
        let Some(referee) = self.inst(n).and_then(|i| i.referee.clone()) else {
            return;
        };
        self.cancel_pending(n);
        self.record(Event::Suspended {
            instance: n,
            why,
            referee,
        });
    }

    /// A letter begun or added, by seat `seat` in their turn.
    pub(super) fn play(&mut self, n: u32, seat: u32, letters: &str) -> Result<(), Refusal> {
        let Some(inst) = self.inst(n) else {
            return Ok(());
        };
        let previous = inst.ghost_word.clone();
        match &previous {
            None if letters.len() != 1 => {
                return Err(Refusal(
                    Sentence::new("ghost_one_letter")
                        .arg("number", n)
                        .arg("letters", letters),
                ));
            }
            Some(word)
                if !(letters.len() == word.len() + 1
                    && (letters.ends_with(word.as_str())
                        || letters.starts_with(word.as_str()))) =>
            {
                return Err(Refusal(
                    Sentence::new("ghost_bad_continuation")
                        .arg("number", n)
                        .arg("word", word)
                        .arg("letters", letters)
                        .arg("before", format!("?{word}"))
                        .arg("after", format!("{word}?")),
                ));
            }
            _ => {}
        }
        self.cancel_pending(n);
        self.record(Event::Played {
            instance: n,
            seat,
            word: letters.to_owned(),
            previous,
        });
        self.advance(n, seat);
        Ok(())
    }

    /// A protest of the ghost word by seat `seat` in their turn.
    pub(super) fn protest(&mut self, n: u32, seat: u32, grounds: Grounds) -> Result<(), Refusal> {
        let Some(inst) = self.inst(n) else {
            return Ok(());
        };
        let Some(word) = inst.ghost_word.clone() else {
            return Err(Refusal(Sentence::new("ghost_no_word").arg("number", n)));
        };
        let against = inst.word_by;
        if against == Some(seat) {
            return Err(Refusal(
                Sentence::new("ghost_protest_self").arg("number", n),
            ));
        }
        let against_in_game = against.is_some_and(|a| inst.is_in_game(a));
        let index = inst.protests_made + 1;
        let lexicon = self.lexicon();
        // Only a protest that the protested player must answer waits; the others are
        // looked up at once.
        let (clock, immediate) = match grounds {
            Grounds::IsAWord => {
                let found = word.len() >= self.numbers().word_min_letters && lexicon.is_word(&word);
                (None, Some((found, found)))
            }
            Grounds::NotInside if !against_in_game => {
                let inside = lexicon.is_inside_a_word(&word);
                (None, Some((!inside, inside)))
            }
            Grounds::NotInside => (
                Some(Clock::Running {
                    deadline: later(self.at(), days(self.numbers().answer_days)),
                }),
                None,
            ),
        };
        self.cancel_pending(n);
        self.record(Event::Protested {
            instance: n,
            protest: Protest {
                index,
                by: seat,
                against,
                grounds,
                word,
                made_at: self.at(),
                clock,
            },
        });
        match immediate {
            Some((valid, found)) => {
                self.resolve_protest(n, valid, Resolution::Dictionary { found });
            }
            None => self.schedule_pending(n),
        }
        Ok(())
    }

    /// The protested player's word containing the ghost word.
    pub(super) fn answer(&mut self, n: u32, seat: u32, word: &str) -> Result<(), Refusal> {
        let Some(inst) = self.inst(n) else {
            return Ok(());
        };
        let no_protest = || Refusal(Sentence::new("ghost_no_protest").arg("number", n));
        let Stage::Protest { protest } = &inst.stage else {
            return Err(no_protest());
        };
        let Some(Clock::Running { deadline }) = protest.clock else {
            return Err(no_protest());
        };
        if protest.against != Some(seat) {
            return Err(Refusal(
                Sentence::new("ghost_not_protested").arg("number", n).arg(
                    "against",
                    protest.against.map(|s| inst.name(s, self.players())),
                ),
            ));
        }
        if self.at() >= deadline {
            return Err(Refusal(
                Sentence::new("ghost_late")
                    .arg("number", n)
                    .arg("deadline", human_time(deadline)),
            ));
        }
        if !word.contains(protest.word.as_str()) {
            return Err(Refusal(
                Sentence::new("ghost_answer_lacks")
                    .arg("number", n)
                    .arg("word", &protest.word)
                    .arg("answer", word)
                    .arg("deadline", human_time(deadline)),
            ));
        }
        let in_dictionary = self.lexicon().is_word(word);
        self.cancel_pending(n);
        self.resolve_protest(
            n,
            !in_dictionary,
            Resolution::Answer {
                word: word.to_owned(),
                in_dictionary,
            },
        );
        Ok(())
    }

    /// `add me`: a nomic player joins with the next number.
    pub(super) fn add(&mut self, n: u32, ctx: &Ctx) -> Result<(), Refusal> {
        let players = self.players();
        let Some(inst) = self.inst(n) else {
            return Ok(());
        };
        let player = players
            .active_by_address(&ctx.sender)
            .filter(|p| p.is_active_at(ctx.now))
            .ok_or_else(|| {
                Refusal(Sentence::new("ghost_not_a_player").arg("address", ctx.sender.as_str()))
            })?;
        let refuse = |code: &str| Refusal(Sentence::new(code).arg("number", n));
        if inst.duel {
            return Err(refuse("ghost_duel_no_additions"));
        }
        if inst.is_referee(ctx, players) {
            return Err(refuse("ghost_is_referee"));
        }
        if inst.seat_of_player(player.id).is_some() {
            return Err(refuse("ghost_already_in"));
        }
        if inst.seats.iter().any(|s| s.player == player.id) {
            return Err(refuse("ghost_no_return"));
        }
        require_referee_present(inst)?;
        if !inst.additions_open() {
            let highest = inst.in_game().last().map(|s| inst.name(s.number, players));
            return Err(Refusal(
                Sentence::new("ghost_additions_closed")
                    .arg("number", n)
                    .arg("highest", highest),
            ));
        }
        let number = inst.seats.iter().map(|s| s.number).max().unwrap_or(0) + 1;
        self.record(Event::Added {
            instance: n,
            seat: NewSeat {
                number,
                player: player.id,
                name: player.name.clone(),
            },
            protest_until: later(self.at(), days(self.numbers().addition_protest_days)),
        });
        Ok(())
    }

    /// An earlier player protests a newcomer's addition: the newcomer is removed.
    pub(super) fn protest_addition(
        &mut self,
        n: u32,
        seat: u32,
        name: &str,
    ) -> Result<(), Refusal> {
        let players = self.players();
        let Some(inst) = self.inst(n) else {
            return Ok(());
        };
        let newcomer = inst
            .seat_named(name, players)
            .filter(|s| s.removed.is_none() && s.addition_protest_until.is_some())
            .ok_or_else(|| {
                Refusal(
                    Sentence::new("ghost_not_a_newcomer")
                        .arg("number", n)
                        .arg("name", name.trim()),
                )
            })?;
        let newcomer_name = inst.name(newcomer.number, players);
        let until = newcomer.addition_protest_until.unwrap_or(self.at());
        let final_because = if newcomer.first_turn_at.is_some() {
            Some("turn")
        } else if self.at() >= until {
            Some("time")
        } else {
            None
        };
        if let Some(why) = final_because {
            return Err(Refusal(
                Sentence::new("ghost_addition_final")
                    .arg("number", n)
                    .arg("name", newcomer_name)
                    .arg("why", why)
                    .arg("until", human_time(until)),
            ));
        }
        if seat >= newcomer.number {
            return Err(Refusal(
                Sentence::new("ghost_not_earlier")
                    .arg("number", n)
                    .arg("name", newcomer_name),
            ));
        }
        let newcomer = newcomer.number;
        self.remove(n, newcomer, Why::AdditionProtested { by: seat });
        Ok(())
    }

    /// `referee`: a nomic player who is not in the instance takes the vacant post;
    /// the clocks run again with the time they had left.
    pub(super) fn take_referee(
        &mut self,
        n: u32,
        ctx: &Ctx,
        is_moderator: bool,
    ) -> Result<(), Refusal> {
        let players = self.players();
        let Some(inst) = self.inst(n) else {
            return Ok(());
        };
        require_public(inst, ctx)?;
        if let Some(referee) = &inst.referee {
            return Err(Refusal(
                Sentence::new("ghost_referee_present")
                    .arg("number", n)
                    .arg("referee", &referee.name),
            ));
        }
        let player = players
            .active_by_address(&ctx.sender)
            .filter(|p| p.is_active_at(ctx.now));
        if player.is_none() && !is_moderator {
            return Err(Refusal(
                Sentence::new("ghost_not_a_player").arg("address", ctx.sender.as_str()),
            ));
        }
        if player.is_some_and(|p| inst.seat_of_player(p.id).is_some()) {
            return Err(Refusal(
                Sentence::new("ghost_referee_is_player").arg("number", n),
            ));
        }
        self.record(Event::Resumed {
            instance: n,
            referee: Referee {
                address: ctx.sender.clone(),
                player: player.map(|p| p.id),
                name: player.map_or_else(|| ctx.sender.to_string(), |p| p.name.clone()),
            },
        });
        self.schedule_pending(n);
        Ok(())
    }
}

impl Step<'_, '_> {
    /// A moderator's order of play: the players listed get the numbers 1, 2, ...
    /// in that order. Every player still in the game must be listed (removing one
    /// is `remove`); a removed player listed is back in the game, a nomic player
    /// new to it is seated. Removed players not listed keep their order after the
    /// listed ones, so that every number stays one player's.
    pub(super) fn order(
        &mut self,
        n: u32,
        names: &[String],
        overrider: Overrider,
    ) -> Result<(), Refusal> {
        let players = self.players();
        let at = self.at();
        let min_players = self.numbers().min_players.max(2);
        let Some(inst) = self.inst(n) else {
            return Ok(());
        };
        let mut listed: Vec<Reseated> = Vec::new();
        for (to, name) in (1u32..).zip(names) {
            let reseated = match inst.seat_named(name, players) {
                Some(seat) => Reseated {
                    player: seat.player,
                    name: inst.name(seat.number, players),
                    from: Some(seat.number),
                    to,
                    restored: seat.removed.is_some(),
                },
                None => {
                    let player = players.by_name(name).ok_or_else(|| {
                        Refusal(Sentence::new("ghost_no_such_player").arg("name", name.trim()))
                    })?;
                    Reseated {
                        player: player.id,
                        name: player.name.clone(),
                        from: None,
                        to,
                        restored: false,
                    }
                }
            };
            if listed.iter().any(|r| r.player == reseated.player) {
                return Err(Refusal(
                    Sentence::new("ghost_named_twice").arg("name", &reseated.name),
                ));
            }
            if inst
                .referee
                .as_ref()
                .is_some_and(|r| r.player == Some(reseated.player))
            {
                return Err(Refusal(
                    Sentence::new("ghost_referee_plays").arg("name", &reseated.name),
                ));
            }
            // A player back in the game or new to it must be one the nomic still has.
            if (reseated.from.is_none() || reseated.restored)
                && !players
                    .by_id(reseated.player)
                    .is_some_and(|p| p.is_active_at(at))
            {
                return Err(Refusal(
                    Sentence::new("ghost_player_inactive").arg("name", &reseated.name),
                ));
            }
            listed.push(reseated);
        }
        let missing: Vec<String> = inst
            .in_game()
            .filter(|s| !listed.iter().any(|r| r.from == Some(s.number)))
            .map(|s| inst.name(s.number, players))
            .collect();
        if !missing.is_empty() {
            return Err(Refusal(
                Sentence::new("ghost_order_incomplete")
                    .arg("number", n)
                    .arg("missing", missing),
            ));
        }
        if listed.len() < min_players {
            return Err(Refusal(
                Sentence::new("ghost_too_few")
                    .arg("n", listed.len())
                    .arg("min", min_players),
            ));
        }
        if inst.duel && listed.len() != 2 {
            return Err(Refusal(
                Sentence::new("ghost_duel_two").arg("n", listed.len()),
            ));
        }
        let mut next = u32::try_from(listed.len()).unwrap_or(u32::MAX);
        for seat in &inst.seats {
            if !listed.iter().any(|r| r.from == Some(seat.number)) {
                next = next.saturating_add(1);
                listed.push(Reseated {
                    player: seat.player,
                    name: inst.name(seat.number, players),
                    from: Some(seat.number),
                    to: next,
                    restored: false,
                });
            }
        }
        self.record(Event::Ordered {
            instance: n,
            seats: listed,
            officer: overrider.officer,
            reason: overrider.reason,
        });
        Ok(())
    }
}

fn unpaid_to(to: Option<String>, amount: i64, currency: &str, why: &str) -> Payment {
    Payment {
        to,
        amount,
        currency: currency.to_owned(),
        unpaid: Some(why.to_owned()),
    }
}
