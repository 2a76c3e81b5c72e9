//! One turn's processing at the end of an nweek, step by step in the rule's order,
//! in the transaction of the deadline: each payment and draw is recorded into it at
//! once, so a later step reads the accounts and the random officer as the earlier
//! ones left them (`tx.view()`). `Turn` keeps only the turn's own bookkeeping (the
//! standings and objects as they move, the record); at the end the record becomes
//! the notifications in `report` and one `NweekEnded` event.

use std::collections::BTreeMap;

use serde_json::json;

use super::bound::Steps;
use super::rules::{Times, Tx, draw_rule, points, points_of};
use super::{
    Action, ActionKind, BALL, Declared, Element, GOAL, Params, Report, Rtl, Rto, Standing, TAG,
    game, rtl_text,
};
use crate::engine::Timestamp;
use crate::engine::accounts::Holder;
use crate::engine::game::SharedEvent;
use crate::engine::players::PlayerId;

/// One turn's processing: the transaction it records into, and its own record.
pub(super) struct Turn<'t, 'a> {
    pub(super) tx: &'t mut Tx<'a>,
    /// The numbers as the game's rules now say (`bound`).
    pub(super) numbers: &'t Params,
    /// The steps whose rules are followed.
    steps: Steps,
    pub(super) nweek: i64,
    /// The deadline's moment: the turn's time in every event.
    pub(super) now: Timestamp,
    /// When the notifications are mailed: after a downtime, later than `now`.
    pub(super) posted: Timestamp,
    entropy: [u8; 32],
    pub(super) standings: BTreeMap<PlayerId, Standing>,
    pub(super) objects: Vec<Rto>,
    pub(super) report: Report,
    /// Each player's change in score due to rule tag.
    pub(super) deltas: BTreeMap<PlayerId, i64>,
    /// The moderator's award and censure: pay for the post, not changes in score
    /// due to rule tag, so notification 2 lists them apart.
    pub(super) moderation: Vec<serde_json::Value>,
    /// How many random draws the turn made.
    pub(super) draws: usize,
    /// The players in the game: everyone who has not left.
    pub(super) playing: Vec<PlayerId>,
    pub(super) moderator: Option<PlayerId>,
}

impl<'t, 'a> Turn<'t, 'a> {
    /// `caught_up_at` is the real time of this run: the notifications are late
    /// when it is past the limit of `times`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        tx: &'t mut Tx<'a>,
        numbers: &'t Params,
        steps: Steps,
        entropy: [u8; 32],
        nweek: i64,
        times: &Times,
        caught_up_at: Timestamp,
        posted: Timestamp,
    ) -> Turn<'t, 'a> {
        let view = tx.view();
        let playing: Vec<PlayerId> = view.players.active().map(|p| p.id).collect();
        let moderator = game::moderator(view.officers, numbers)
            .and_then(|address| view.players.active_by_address(&address))
            .map(|p| p.id);
        let game = tx.state();
        let mut standings: BTreeMap<PlayerId, Standing> = BTreeMap::new();
        for id in &playing {
            standings.insert(*id, game.standing(*id));
        }
        let objects = game.objects.clone();
        let report = Report {
            late: caught_up_at > times.notify_by,
            ..Report::default()
        };
        let now = tx.at();
        Turn {
            tx,
            numbers,
            steps,
            nweek,
            now,
            posted,
            entropy,
            standings,
            objects,
            report,
            deltas: BTreeMap::new(),
            moderation: Vec::new(),
            draws: 0,
            playing,
            moderator,
        }
    }

    pub(super) fn name(&self, id: PlayerId) -> String {
        self.tx
            .view()
            .players
            .by_id(id)
            .map_or_else(|| format!("player {id}"), |p| p.name.clone())
    }

    fn change(&mut self, step: &str, what: &str, mut values: serde_json::Value) {
        values["step"] = json!(step);
        values["what"] = json!(what);
        self.report.changes.push(values);
    }

    fn actions_of(&self, kind: ActionKind) -> Vec<Declared> {
        self.tx
            .state()
            .actions
            .iter()
            .filter(|d| {
                d.action.kind() == kind && d.nweek == self.nweek && self.playing.contains(&d.player)
            })
            .cloned()
            .collect()
    }

    fn rtl(&self, id: PlayerId) -> Rtl {
        self.standings.get(&id).and_then(|s| s.rtl)
    }

    /// Moves points through the accounts, recording the change in score due to
    /// rule tag. A rule's penalty is owed even beyond the balance, so a score may
    /// go below zero.
    fn pay(&mut self, from: Holder, to: Holder, amount: i64, reason: &str) {
        if !self.transfer(from, to, amount, reason) {
            return;
        }
        for (holder, sign) in [(from, -1), (to, 1)] {
            if let Holder::Player(id) = holder {
                *self.deltas.entry(id).or_default() += sign * amount;
            }
        }
    }

    /// Moves points through the accounts; whether they moved.
    fn transfer(&mut self, from: Holder, to: Holder, amount: i64, reason: &str) -> bool {
        if amount <= 0 {
            return false;
        }
        let charged = self.tx.view().accounts.charge(
            from,
            to,
            &self.numbers.currency,
            &points(amount),
            reason,
        );
        match charged {
            Ok(event) => {
                self.tx.record_shared(SharedEvent::Accounts(event));
                true
            }
            Err(refusal) => {
                self.change(
                    "Points",
                    "payment_failed",
                    json!({"reason": reason, "error": refusal.0.code}),
                );
                false
            }
        }
    }

    /// "Players with an RTL of null cannot lose points as a result of rule tag
    /// actions or rule tag objects."
    fn may_lose(&self, id: PlayerId) -> bool {
        self.rtl(id).is_some()
    }

    fn draw(&mut self, candidates: &[u32], purpose: &str) -> Option<u32> {
        if candidates.is_empty() {
            return None;
        }
        self.draws += 1;
        draw_rule(self.tx, self.entropy, candidates, purpose).ok()
    }

    fn rules(&self) -> Vec<u32> {
        self.tx
            .view()
            .ruleset
            .rules
            .iter()
            .map(|r| r.number)
            .collect()
    }

    pub(super) fn run(&mut self, times: &Times) {
        let numbers = self.numbers;
        // A holder who left the nomic holds nothing: the RTO stays where it is.
        for index in 0..self.objects.len() {
            if let Some(holder) = self.objects[index].holder
                && !self.playing.contains(&holder)
            {
                self.objects[index].holder = None;
                let values = json!({"object": self.objects[index].name, "name": self.name(holder), "rtl": rtl_text(self.objects[index].rtl)});
                self.change("Drop Actions", "dropped", values);
            }
        }
        // The element changes of the nweek take effect first: the notification shows
        // each player's element as the turn begins.
        for declared in self.actions_of(ActionKind::Element) {
            if let Action::Element { element } = declared.action {
                self.standings.entry(declared.player).or_default().element = element;
            }
        }
        self.notification_one(times);

        // "Move Actions": Players who made rule tag move actions have their RTL
        // changed to their new location; possessed RTOs move with their holder.
        let mut moved_to_null: Vec<PlayerId> = Vec::new();
        for declared in self.actions_of(ActionKind::Move) {
            if let Action::Move { to, .. } = declared.action {
                self.move_player(declared.player, to, "Move Actions");
                if to.is_none() {
                    moved_to_null.push(declared.player);
                }
            }
        }
        // Rule "rule tag moderation" 2): a moderator with an RTL must move to null as
        // soon as possible; the bot does it for em at the first turn.
        if let Some(moderator) = self.moderator
            && let Some(from) = self.rtl(moderator)
            && !moved_to_null.contains(&moderator)
        {
            let values = json!({"name": self.name(moderator), "from": from});
            self.change("Move Actions", "moderator_to_null", values);
            self.move_player(moderator, None, "Move Actions");
            moved_to_null.push(moderator);
        }

        // "Drop Actions".
        for declared in self.actions_of(ActionKind::Drop) {
            if let Action::Drop { object } = &declared.action
                && let Some(rto) = self.objects.iter_mut().find(|o| &o.name == object)
                && rto.holder == Some(declared.player)
            {
                rto.holder = None;
                let rtl = rto.rtl;
                let values = json!({"name": self.name(declared.player), "object": object, "rtl": rtl_text(rtl)});
                self.change("Drop Actions", "dropped", values);
            }
        }

        // "Basketball Resolve" (while rule "rule tag basketball" is followed).
        if self.steps.basketball {
            self.basketball(numbers);
        }

        // "Grab Actions".
        self.grabs(numbers);

        // "Elemental Tag Resolve" (while rule "Elements" is followed).
        if self.steps.elements {
            self.elemental(numbers);
        }

        // "Penalties".
        for id in moved_to_null {
            // The moderator does not pay for moving to null. The null-RTL protection
            // does not cover this penalty: see docs/rulings.md.
            if Some(id) == self.moderator {
                let values = json!({"name": self.name(id), "points": numbers.null_move_penalty});
                self.change("Penalties", "moderator_free", values);
            } else {
                let values = json!({"name": self.name(id), "points": numbers.null_move_penalty});
                self.change("Penalties", "moved_to_null", values);
                self.pay(
                    Holder::Player(id),
                    Holder::Nowhere,
                    numbers.null_move_penalty,
                    "Rule Tag: Penalties, moved to null",
                );
            }
        }
        // "a rule that has just changed": changed since the last turn was processed,
        // or, for the first turn, since the nweek or the game began, whichever is later
        // (setting up the registry before the game is no change within it).
        let game = self.tx.state();
        let since = game
            .last_report
            .as_ref()
            .and_then(|report| report.processed_at)
            .unwrap_or_else(|| times.start.max(game.started_at.unwrap_or(times.start)));
        let playing = self.playing.clone();
        for id in playing {
            let Some(rule) = self.rtl(id) else { continue };
            let ruleset = self.tx.view().ruleset;
            if !ruleset.exists(rule) {
                let values = json!({"name": self.name(id), "rtl": rule, "points": numbers.rule_gone_penalty});
                self.change("Penalties", "rule_gone", values);
                self.pay(
                    Holder::Player(id),
                    Holder::Nowhere,
                    numbers.rule_gone_penalty,
                    "Rule Tag: Penalties, RTL rule no longer exists",
                );
                self.move_player(id, None, "Penalties");
            } else if ruleset.changed_between(rule, since, self.now) && self.may_lose(id) {
                let values = json!({"name": self.name(id), "rtl": rule, "points": numbers.rule_changed_penalty});
                self.change("Penalties", "rule_changed", values);
                self.pay(
                    Holder::Player(id),
                    Holder::Nowhere,
                    numbers.rule_changed_penalty,
                    "Rule Tag: Penalties, RTL rule changed",
                );
            }
        }
        // An RTO on a rule that is gone, or left on null by its holder, is put back
        // on the board at random (see docs/rulings.md).
        self.rehome_objects();

        // Rule "rule tag moderation": Award, and Censure when late (`Turn::new`).
        if let Some(moderator) = self.moderator.filter(|_| self.steps.moderation) {
            if self.transfer(
                Holder::Nowhere,
                Holder::Player(moderator),
                numbers.moderator_award,
                "Rule Tag moderation: Award",
            ) {
                self.moderation
                    .push(json!({"what": "award", "change": numbers.moderator_award}));
            }
            if self.report.late
                && self.transfer(
                    Holder::Player(moderator),
                    Holder::Nowhere,
                    numbers.moderator_censure,
                    "Rule Tag moderation: Censure, notifications late",
                )
            {
                self.moderation
                    .push(json!({"what": "censure", "change": -numbers.moderator_censure}));
            }
        }
    }

    fn move_player(&mut self, id: PlayerId, to: Rtl, step: &str) {
        let from = self.rtl(id);
        self.standings.entry(id).or_default().rtl = to;
        let values = json!({"name": self.name(id), "from": rtl_text(from), "to": rtl_text(to)});
        self.change(step, "moved", values);
        let name = self.name(id);
        let falls = to.is_none() && self.numbers.rto_never_on_null;
        for rto in self.objects.iter_mut().filter(|o| o.holder == Some(id)) {
            rto.rtl = to;
            if falls {
                // Read so, an RTO is never on null: it falls from its holder's hands
                // and is relocated at random in the Penalties step.
                rto.holder = None;
            }
            let values =
                json!({"object": rto.name, "name": name, "to": rtl_text(to), "fell": falls});
            self.report.changes.push({
                let mut v = values;
                v["step"] = json!(step);
                v["what"] = json!("carried");
                v
            });
        }
    }

    fn basketball(&mut self, numbers: &Params) {
        let ball = self.objects.iter().find(|o| o.name == BALL).cloned();
        let goal = self.objects.iter().find(|o| o.name == GOAL).cloned();
        let (Some(ball), Some(goal)) = (ball, goal) else {
            return;
        };
        let Some(holder) = ball.holder else { return };
        // Read literally, null is a location like any other: the holder of the ball
        // who also holds the goal scores there too.
        let off_the_board = ball.rtl.is_none() && numbers.rto_never_on_null;
        if off_the_board || self.rtl(holder) != goal.rtl || !self.playing.contains(&holder) {
            return;
        }
        let values = json!({"name": self.name(holder), "rtl": rtl_text(goal.rtl), "points": numbers.basket_points});
        self.change("Basketball Resolve", "scored", values);
        self.pay(
            Holder::Nowhere,
            Holder::Player(holder),
            numbers.basket_points,
            "Rule Tag basketball: the ball on the goal's RTL",
        );
        // Both objects become unpossessed and go to two different (non-null) RTLs.
        let rules = self.rules();
        let ball_rtl = self.draw(&rules, "rule tag ball relocated after a basket");
        let others: Vec<u32> = rules
            .iter()
            .copied()
            .filter(|n| Some(*n) != ball_rtl)
            .collect();
        let goal_rtl = self.draw(&others, "rule tag goal relocated after a basket");
        for (name, rtl) in [(BALL, ball_rtl), (GOAL, goal_rtl)] {
            if let Some(rto) = self.objects.iter_mut().find(|o| o.name == name) {
                rto.holder = None;
                if rtl.is_some() {
                    rto.rtl = rtl;
                }
                let values = json!({"object": name, "from": null, "to": rtl_text(rto.rtl)});
                self.change("Basketball Resolve", "relocated", values);
            }
        }
    }

    fn grabs(&mut self, numbers: &Params) {
        let grabs = self.actions_of(ActionKind::Grab);
        // Firstly, grabs where the player and the RTO have different RTLs are invalid.
        let mut valid: Vec<(PlayerId, String, i64)> = Vec::new();
        for declared in grabs {
            let Action::Grab { object, points } = declared.action else {
                continue;
            };
            let object_rtl = self
                .objects
                .iter()
                .find(|o| o.name == object)
                .and_then(|o| o.rtl);
            let player_rtl = self.rtl(declared.player);
            // An RTO dropped on null may be grabbed there, unless RTOs are never
            // on null.
            let on_board = object_rtl.is_some() || !numbers.rto_never_on_null;
            if on_board && object_rtl == player_rtl {
                valid.push((declared.player, object, points));
            } else {
                let values = json!({"name": self.name(declared.player), "object": object, "rtl": rtl_text(player_rtl), "object_rtl": rtl_text(object_rtl)});
                self.change("Grab Actions", "grab_invalid", values);
            }
        }
        // Then, for each RTO in turn.
        for index in 0..self.objects.len() {
            let name = self.objects[index].name.clone();
            let bids: Vec<(PlayerId, i64)> = valid
                .iter()
                .filter(|(_, object, _)| *object == name)
                .map(|(player, _, points)| (*player, *points))
                .collect();
            let holder = self.objects[index].holder;
            if bids.is_empty() && !(numbers.drop_possessed_without_grab && holder.is_some()) {
                continue;
            }
            // (i) If the RTO is in possession, it is dropped, and nothing else happens.
            if let Some(holder) = holder {
                self.objects[index].holder = None;
                let values = json!({"object": name, "name": self.name(holder), "rtl": rtl_text(self.objects[index].rtl)});
                self.change("Grab Actions", "knocked_loose", values);
                continue;
            }
            match bids.as_slice() {
                // (ii) Only one grab action: that player gains possession.
                [(player, _)] => {
                    self.objects[index].holder = Some(*player);
                    let values =
                        json!({"object": name, "name": self.name(*player), "clause": "ii"});
                    self.change("Grab Actions", "grabbed", values);
                }
                _ => {
                    // (iii) One player declared more than any other and has at least
                    // as many points: possession, and the points are spent.
                    let top = bids.iter().map(|(_, points)| *points).max().unwrap_or(0);
                    let at_top: Vec<PlayerId> = bids
                        .iter()
                        .filter(|(_, p)| *p == top)
                        .map(|(id, _)| *id)
                        .collect();
                    let winner = match at_top.as_slice() {
                        [one] => Some(*one),
                        _ => None,
                    };
                    let has = winner.map(|id| {
                        let accounts = self.tx.view().accounts;
                        points_of(&accounts.balance(Holder::Player(id), &numbers.currency))
                    });
                    match (winner, has) {
                        (Some(id), Some(has)) if has >= top => {
                            self.objects[index].holder = Some(id);
                            let values = json!({"object": name, "name": self.name(id), "clause": "iii", "points": top});
                            self.change("Grab Actions", "grabbed", values);
                            if self.may_lose(id) {
                                self.pay(
                                    Holder::Player(id),
                                    Holder::Nowhere,
                                    top,
                                    "Rule Tag: Grab Actions (iii), points declared",
                                );
                            }
                        }
                        // (iv) Otherwise, nothing happens.
                        _ => {
                            let names: Vec<String> =
                                bids.iter().map(|(id, _)| self.name(*id)).collect();
                            let values = json!({"object": name, "names": names, "tie": winner.is_none(), "points": top});
                            self.change("Grab Actions", "grab_nothing", values);
                        }
                    }
                }
            }
        }
    }

    fn elemental(&mut self, numbers: &Params) {
        let on_board: Vec<(PlayerId, u32, Element)> = self
            .playing
            .iter()
            .filter_map(|id| {
                let standing = self.standings.get(id)?;
                Some((*id, standing.rtl?, standing.element))
            })
            .collect();
        for (i, (a, rtl_a, element_a)) in on_board.iter().enumerate() {
            for (b, rtl_b, element_b) in &on_board[i + 1..] {
                if rtl_a != rtl_b {
                    continue;
                }
                let (winner, loser) = if element_a.beats(*element_b) {
                    (*a, *b)
                } else if element_b.beats(*element_a) {
                    (*b, *a)
                } else {
                    continue;
                };
                if !self.may_lose(loser) {
                    continue;
                }
                let values = json!({
                    "winner": self.name(winner), "loser": self.name(loser), "rtl": rtl_a,
                    "winner_element": self.standings[&winner].element.as_str(),
                    "loser_element": self.standings[&loser].element.as_str(),
                    "points": numbers.elemental_points,
                });
                self.change("Elemental Tag Resolve", "elemental", values);
                self.pay(
                    Holder::Player(loser),
                    Holder::Player(winner),
                    numbers.elemental_points,
                    "Rule Tag: Elemental Tag Resolve",
                );
            }
        }
    }

    fn rehome_objects(&mut self) {
        let rules = self.rules();
        for index in 0..self.objects.len() {
            let rto = &self.objects[index];
            let stranded = match rto.rtl {
                None => self.numbers.rto_never_on_null,
                Some(rule) => !self.tx.view().ruleset.exists(rule),
            };
            if !stranded {
                continue;
            }
            let name = rto.name.clone();
            let from = rto.rtl;
            let taken: Vec<u32> = self.objects.iter().filter_map(|o| o.rtl).collect();
            let free: Vec<u32> = rules
                .iter()
                .copied()
                .filter(|n| !taken.contains(n))
                .collect();
            let candidates = if free.is_empty() { rules.clone() } else { free };
            if let Some(rule) = self.draw(
                &candidates,
                &format!("{name} relocated off a null or repealed RTL"),
            ) {
                self.objects[index].rtl = Some(rule);
                self.objects[index].holder = None;
                self.change(
                    "Penalties",
                    "relocated",
                    json!({"object": name, "from": rtl_text(from), "to": rule}),
                );
            }
        }
    }

    /// The game's own random period ends with the turn, publishing its seed so
    /// that anyone can re-run this turn's draws. No next period is committed here:
    /// the next turn commits one only if it will draw (`rules::commit_draws`).
    pub(super) fn end_period(&mut self) {
        let random = self.tx.view().random;
        if random.current.as_ref().map(|p| p.label.as_str()) != Some(TAG) {
            return;
        }
        let Ok(end) = random.end_period() else {
            return;
        };
        self.tx.record_shared(SharedEvent::Random(end));
        let revealed = self
            .tx
            .view()
            .random
            .past
            .last()
            .map(|r| r.revealed_mail(TAG));
        self.tx.mail_all(revealed);
    }
}
