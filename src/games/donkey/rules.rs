//! Grab-a-Donkey's paragraphs carried out in the transaction: the titles and the
//! call (the unlettered paragraphs), the GAL (A), the rounds (B), their
//! resolution (C, D, G), the end (F, H) and the Wranglership (I). No round
//! action reaches a public mail before the round's report.

use jiff::SignedDuration;
use num_bigint::BigInt;
use num_rational::BigRational;
use serde_json::{Value, json};

use super::bound::Bound;
use super::{
    Action, BELT_HOLDER, Command, Corral, Did, Donkey, Event, GAME_BOX, OnGal, Params, TAG, Titled,
    WRANGLER, batch_id,
};
use crate::engine::accounts::Holder;
use crate::engine::calendar::{self, Deadline};
use crate::engine::game::{SharedEvent, Standing, Tx};
use crate::engine::inventory::{self, Entity, Owner};
use crate::engine::offices;
use crate::engine::players::{Player, PlayerId};
use crate::engine::sealed::Stage;
use crate::engine::{Audience, Ctx, Mail, Refusal, Sentence, Timestamp, human_time};

type DonkeyTx<'a> = Tx<'a, Donkey>;

/// The equipment rule 1213 lists, one of each per player.
const EQUIPMENT: [&str; 3] = ["donkey", "lariat", "blanket"];
/// The entity C names: whoever holds it deflects a grab.
const LITTLE_LAMB: &str = "Little Lamb";
const SUCCESSOR: &str = "donkey:successor";

fn refuse(code: &str) -> Refusal {
    Refusal(Sentence::new(code))
}

fn numbers(tx: &DonkeyTx<'_>) -> Params {
    Bound::of(&tx.view(), tx.params()).numbers()
}

fn after_hours(at: Timestamp, hours: i64) -> Timestamp {
    at.checked_add(SignedDuration::from_hours(hours))
        .unwrap_or(at)
}

fn titled(player: &Player) -> Titled {
    Titled {
        player: player.id,
        name: player.name.clone(),
    }
}

fn schedule(tx: &mut DonkeyTx<'_>, id: String, at: Timestamp, what: String) {
    tx.record_shared(SharedEvent::Schedule(calendar::Event::Scheduled {
        deadline: Deadline {
            id,
            at,
            owner: TAG.to_owned(),
            who: None,
            what,
            remind: false,
        },
    }));
}

fn cancel(tx: &mut DonkeyTx<'_>, id: String) {
    tx.record_shared(SharedEvent::Schedule(calendar::Event::Cancelled { id }));
}

fn list(tx: &mut DonkeyTx<'_>, template: &str, values: Value) {
    tx.mail(Mail::new(Audience::List, TAG, template, values));
}

pub(super) fn apply(
    tx: &mut DonkeyTx<'_>,
    command: Command,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    adopt_the_registry(tx);
    if let Command::Status = command {
        return Ok(status(tx, ctx.now));
    }
    if let Some(why) = Bound::of(&tx.view(), tx.params()).stopped() {
        return Err(Sentence::new("donkey_rule_stopped")
            .arg("rule", tx.params().rule)
            .arg("why", why)
            .into());
    }
    let moderator = tx.view().is_moderator(&ctx.sender);
    match command {
        Command::Close { .. } | Command::SetTitle { .. } | Command::AmendmentUsed { .. }
            if !moderator =>
        {
            Err(refuse("moderators_only"))
        }
        Command::Close { reason } => close(tx, &reason, ctx),
        Command::SetTitle {
            title,
            name,
            reason,
        } => set_title(tx, &title, name.as_deref(), &reason, ctx),
        Command::AmendmentUsed { reason } => {
            let Some(holder) = tx.state().amendment_right.clone() else {
                return Err(refuse("donkey_no_amendment_right"));
            };
            tx.record(Event::AmendmentUsed);
            Ok(Sentence::new("donkey_amendment_used")
                .arg("name", holder.name)
                .arg("reason", reason))
        }
        other => {
            let player = tx
                .view()
                .players
                .active_by_address(&ctx.sender)
                .cloned()
                .ok_or_else(|| {
                    Refusal(Sentence::new("not_a_player").arg("address", ctx.sender.as_str()))
                })?;
            match other {
                Command::Claim => claim(tx, &player, ctx),
                Command::Call { days } => call(tx, &player, days, ctx),
                Command::Decline => decline(tx, &player, ctx),
                Command::Act(action) => act(tx, &player, action, ctx),
                Command::Transfer { name } => offer(tx, &player, &name),
                Command::Accept => accept(tx, &player),
                _ => Err(refuse("donkey_unknown")),
            }
        }
    }
}

// ---- Titles and calling (the paragraphs before A) ----

/// The titles are offices of the registry too: each change the game makes is
/// recorded there (`[nomic] officers` lists the holders), and a moderator's
/// `[nomic] appoint` or `dismiss` of the office is the game's (`adopt_the_registry`).
fn title(tx: &mut DonkeyTx<'_>, which: &str, to: Option<Titled>, why: &str) {
    let before = holder(tx.state(), which).map(|t| t.player);
    tx.record(Event::Title {
        title: which.to_owned(),
        to: to.clone(),
        why: why.to_owned(),
    });
    if before == to.as_ref().map(|t| t.player) {
        return;
    }
    let reason = format!(
        "Grab-a-Donkey (rule {}): {}",
        tx.params().rule,
        why.replace('_', " ")
    );
    let address =
        |tx: &DonkeyTx<'_>, player| tx.view().players.by_id(player).map(|p| p.address.clone());
    if let Some(address) = before.and_then(|player| address(tx, player)) {
        tx.record_shared(SharedEvent::Offices(offices::Event::Dismissed {
            office: which.to_owned(),
            address: address.clone(),
            officer: address,
            reason: reason.clone(),
        }));
    }
    if let Some(address) = to.and_then(|t| address(tx, t.player)) {
        tx.record_shared(SharedEvent::Offices(offices::Event::Appointed {
            office: which.to_owned(),
            address: address.clone(),
            officer: address,
            reason,
        }));
    }
}

fn holder<'a>(state: &'a Corral, which: &str) -> Option<&'a Titled> {
    if which == WRANGLER {
        state.wrangler.as_ref()
    } else {
        state.belt_holder.as_ref()
    }
}

/// A title the registry gives someone else than the game's books (a
/// moderator's `[nomic] appoint Wrangler ADDRESS because ...`, or bot.toml's
/// `[officers.offices]`) is taken from the registry, before anything else of
/// the step: the registry is where a nomic's offices are kept.
fn adopt_the_registry(tx: &mut DonkeyTx<'_>) {
    for which in [WRANGLER, BELT_HOLDER] {
        let Some(holders) = tx.view().officers.holders(which).cloned() else {
            continue;
        };
        // The latest appointed, when a moderator appointed without dismissing.
        let registry = holders
            .iter()
            .rev()
            .find_map(|address| tx.view().players.by_address(address))
            .map(titled);
        if registry.as_ref().map(|t| t.player) != holder(tx.state(), which).map(|t| t.player) {
            tx.record(Event::Title {
                title: which.to_owned(),
                to: registry,
                why: "registry".to_owned(),
            });
        }
    }
}

fn claim(tx: &mut DonkeyTx<'_>, player: &Player, ctx: &Ctx) -> Result<Sentence, Refusal> {
    // A claim is an announcement: "by publically announcing they are doing so".
    if !ctx.public {
        return Err(refuse("donkey_claim_public"));
    }
    let state = tx.state().clone();
    let me = titled(player);
    if state.wrangler.as_ref() == Some(&me) {
        return Err(refuse("donkey_already_wrangler"));
    }
    // I: the Wrangler went away mid-game: the first player not on the GAL.
    if let Some(game) = &state.game
        && game.wrangler_gone_until.is_some()
    {
        if state.on_gal(player.id) {
            return Err(refuse("donkey_claim_on_gal"));
        }
        title(tx, WRANGLER, Some(me.clone()), "successor");
        cancel(tx, SUCCESSOR.to_owned());
        announce_title(tx, WRANGLER, Some(&me.name), "successor", None);
        return Ok(Sentence::new("donkey_now_wrangler").arg("both", false));
    }
    // A Wrangler who left the nomic holds nothing: "If no Wrangler exists".
    let wrangler_left = state.wrangler.as_ref().is_some_and(|w| {
        tx.view()
            .players
            .by_id(w.player)
            .is_none_or(|p| !p.is_active())
    });
    if state.wrangler.is_none() || (wrangler_left && state.game.is_none()) {
        title(tx, WRANGLER, Some(me.clone()), "claimed");
        announce_title(tx, WRANGLER, Some(&me.name), "claimed", None);
        return Ok(Sentence::new("donkey_now_wrangler").arg("both", false));
    }
    let days = numbers(tx).claim_after_days;
    let since = state.last_ended;
    let due = since.map(|ended| after_hours(ended, i64::from(days) * 24));
    match (state.game.is_none(), due) {
        (true, Some(due)) if ctx.now >= due => {
            title(
                tx,
                WRANGLER,
                Some(me.clone()),
                "claimed after the days without a game",
            );
            title(
                tx,
                BELT_HOLDER,
                Some(me.clone()),
                "claimed after the days without a game",
            );
            announce_title(tx, WRANGLER, Some(&me.name), "sixty_days", None);
            Ok(Sentence::new("donkey_now_wrangler").arg("both", true))
        }
        (running, due) => Err(Sentence::new("donkey_claim_refused")
            .arg("wrangler", state.wrangler.as_ref().map(|w| w.name.clone()))
            .arg("running", !running)
            .arg("days", days)
            .arg("due", due.map(human_time))
            .into()),
    }
}

fn announce_title(
    tx: &mut DonkeyTx<'_>,
    which: &str,
    name: Option<&str>,
    why: &str,
    officer: Option<(&str, &str)>,
) {
    list(
        tx,
        "donkey_title",
        json!({
            "title": which,
            "name": name,
            "why": why,
            "officer": officer.map(|(o, _)| o),
            "reason": officer.map(|(_, r)| r),
            "belt_holder_too": why == "sixty_days",
        }),
    );
}

fn call(tx: &mut DonkeyTx<'_>, player: &Player, days: u32, ctx: &Ctx) -> Result<Sentence, Refusal> {
    let state = tx.state().clone();
    if state.wrangler.as_ref().map(|w| w.player) != Some(player.id) {
        return Err(Sentence::new("donkey_wrangler_only")
            .arg("wrangler", state.wrangler.map(|w| w.name))
            .into());
    }
    if let Some(game) = &state.game {
        return Err(Sentence::new("donkey_game_running")
            .arg("number", game.number)
            .into());
    }
    let n = numbers(tx);
    if days < n.min_round_days || days > n.max_round_days {
        return Err(Sentence::new("donkey_round_days")
            .arg("min", n.min_round_days)
            .arg("max", n.max_round_days)
            .into());
    }
    // "only be called once per calendar month", the nomic's calendar.
    let calendar = tx.view().calendar;
    let month = calendar.month_start(ctx.now).ok();
    let this_month = state
        .calls
        .iter()
        .filter(|at| calendar.month_start(**at).ok() == month)
        .count();
    if this_month >= n.calls_per_month as usize {
        return Err(Sentence::new("donkey_called_this_month")
            .arg("calls", n.calls_per_month)
            .into());
    }
    let number = state.games + 1;
    let starts_at = after_hours(ctx.now, i64::from(n.notice_hours));
    tx.record(Event::Called {
        number,
        called_by: player.name.clone(),
        round_days: days,
        starts_at,
    });
    list(
        tx,
        "donkey_called",
        json!({
            "number": number,
            "wrangler": player.name,
            "round_days": days,
            "starts_at": human_time(starts_at),
            "now": n.notice_hours == 0,
        }),
    );
    if n.notice_hours == 0 {
        start(tx);
    } else {
        schedule(
            tx,
            format!("{TAG}:{number}:start"),
            starts_at,
            format!("the start of Grab-a-Donkey game {number}"),
        );
    }
    Ok(Sentence::new("donkey_called")
        .arg("number", number)
        .arg("starts_at", human_time(starts_at)))
}

fn decline(tx: &mut DonkeyTx<'_>, player: &Player, ctx: &Ctx) -> Result<Sentence, Refusal> {
    // A: "those who publically decline participation".
    if !ctx.public {
        return Err(refuse("donkey_decline_public"));
    }
    match &tx.state().game {
        Some(game) if game.round == 0 => {}
        Some(_) => return Err(refuse("donkey_decline_late")),
        None => return Err(refuse("donkey_no_game")),
    }
    tx.record(Event::Declined {
        who: titled(player),
    });
    Ok(Sentence::new("donkey_declined"))
}

// ---- A: the GAL and the equipment ----

/// The game starts: every active player but the Wrangler, those on vacation, in
/// Gaol or who declined, on the GAL, each issued the equipment.
fn start(tx: &mut DonkeyTx<'_>) {
    let Some(game) = tx.state().game.clone() else {
        return;
    };
    if game.round != 0 {
        return;
    }
    let wrangler = tx.state().wrangler.as_ref().map(|w| w.player);
    let now = tx.at();
    let gal: Vec<OnGal> = tx
        .view()
        .players
        .active_at(now)
        .filter(|p| !p.in_gaol && Some(p.id) != wrangler)
        .filter(|p| !game.declined.iter().any(|d| d.player == p.id))
        .map(|p| OnGal {
            player: p.id,
            name: p.name.clone(),
            grabbed: 0,
        })
        .collect();
    for on in &gal {
        for kind in EQUIPMENT {
            issue(tx, kind, on.player, game.number);
        }
    }
    let names: Vec<String> = gal.iter().map(|p| p.name.clone()).collect();
    list(
        tx,
        "donkey_started",
        json!({
            "number": game.number,
            "gal": names,
            "declined": game.declined.iter().map(|d| d.name.clone()).collect::<Vec<_>>(),
            "round_days": game.round_days,
        }),
    );
    next_round(tx, gal);
}

fn issue(tx: &mut DonkeyTx<'_>, kind: &str, to: PlayerId, number: u32) {
    let reason = format!("issued from the Game Box for Grab-a-Donkey game {number}");
    let boxed = tx
        .view()
        .inventory
        .entities
        .iter()
        .find(|e| e.kind == kind && e.owner == Owner::Place(GAME_BOX.to_owned()))
        .map(|e| e.id);
    let event = match boxed {
        Some(id) => Some(inventory::Event::Transferred {
            id,
            to: Owner::Player(to),
            reason,
        }),
        None => tx.view().inventory.create(
            Entity::new(kind, Owner::Player(to), "Grab-a-Donkey equipment"),
            &reason,
        ),
    };
    if let Some(event) = event {
        tx.record_shared(SharedEvent::Inventory(event));
    }
}

/// The equipment back in the Game Box "at the end of the game".
fn return_equipment(tx: &mut DonkeyTx<'_>, number: u32) {
    let out: Vec<u32> = tx
        .view()
        .inventory
        .entities
        .iter()
        .filter(|e| EQUIPMENT.contains(&e.kind.as_str()) && matches!(e.owner, Owner::Player(_)))
        .map(|e| e.id)
        .collect();
    for id in out {
        tx.record_shared(SharedEvent::Inventory(inventory::Event::Transferred {
            id,
            to: Owner::Place(GAME_BOX.to_owned()),
            reason: format!("returned at the end of Grab-a-Donkey game {number}"),
        }));
    }
}

fn move_entity(tx: &mut DonkeyTx<'_>, kind: &str, from: PlayerId, to: PlayerId, reason: String) {
    let found = tx
        .view()
        .inventory
        .entities
        .iter()
        .find(|e| e.kind.eq_ignore_ascii_case(kind) && e.owner == Owner::Player(from))
        .map(|e| e.id);
    if let Some(id) = found {
        tx.record_shared(SharedEvent::Inventory(inventory::Event::Transferred {
            id,
            to: Owner::Player(to),
            reason,
        }));
    }
}

/// The next round with what is left of the GAL, or the end (F, H).
fn next_round(tx: &mut DonkeyTx<'_>, gal: Vec<OnGal>) {
    let Some(game) = tx.state().game.clone() else {
        return;
    };
    match gal.len() {
        0 => end(tx, None, "none_left"),
        1 => end(tx, gal.into_iter().next(), "one_left"),
        _ => {
            let round = game.round + 1;
            let ends = after_hours(tx.at(), i64::from(game.round_days) * 24);
            let batch = batch_id(game.number, round);
            if let Ok(opened) = tx.view().sealed.open_titled(
                &batch,
                TAG,
                &format!("Grab-a-Donkey game {} round {round}", game.number),
                ends,
            ) {
                tx.record_shared(SharedEvent::Sealed(opened));
            }
            schedule(
                tx,
                batch,
                ends,
                format!("the end of round {round} of Grab-a-Donkey"),
            );
            let throws = gal.len() == 2;
            let names: Vec<String> = gal.iter().map(|p| p.name.clone()).collect();
            tx.record(Event::RoundBegan { round, ends, gal });
            list(
                tx,
                "donkey_round",
                json!({
                    "number": game.number,
                    "round": round,
                    "gal": names,
                    "ends": human_time(ends),
                    "throws": throws,
                }),
            );
        }
    }
}

// ---- B: the round actions ----

fn act(
    tx: &mut DonkeyTx<'_>,
    player: &Player,
    action: Action,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let Some(game) = tx.state().game.clone() else {
        return Err(refuse("donkey_no_game"));
    };
    let Some(ends) = game.round_ends.filter(|_| game.round > 0) else {
        return Err(refuse("donkey_not_started"));
    };
    if !game.gal.iter().any(|p| p.player == player.id) {
        return Err(refuse("donkey_not_on_gal"));
    }
    // B: "in a private message": one sent to the list does not count.
    if ctx.public {
        return Err(refuse("donkey_action_public"));
    }
    let throws = game.gal.len() == 2;
    let action = match action {
        a if throws && !a.is_throw() => return Err(refuse("donkey_throws_only")),
        a if !throws && a.is_throw() => return Err(refuse("donkey_no_throws")),
        Action::Resign if game.round != 1 => return Err(refuse("donkey_resign_first_round")),
        Action::Grab(name) => {
            let target = game
                .gal
                .iter()
                .find(|p| p.name.eq_ignore_ascii_case(name.trim()))
                .ok_or_else(|| Refusal(Sentence::new("donkey_grab_whom").arg("name", &name)))?;
            if target.player == player.id {
                return Err(refuse("donkey_grab_own"));
            }
            Action::Grab(target.name.clone())
        }
        a => a,
    };
    let batch = batch_id(game.number, game.round);
    // Each player's last action of the round counts (`unseal`).
    let sealed = tx
        .view()
        .sealed
        .seal_choice(
            &batch,
            player.id,
            &player.name,
            &action.text(),
            Some(player.id.to_string()),
            ctx.now,
            &ctx.entropy,
        )
        .map_err(|_| refuse("donkey_round_over"))?;
    tx.record_shared(SharedEvent::Sealed(sealed));
    let changed = game.acted.contains(&player.name);
    if !changed {
        tx.record(Event::Acted {
            name: player.name.clone(),
        });
    }
    // The human Wrangler reads every action as it arrives, privately.
    let wrangler = tx
        .state()
        .wrangler
        .as_ref()
        .and_then(|w| tx.view().players.by_id(w.player))
        .filter(|w| w.is_active())
        .map(|w| w.address.clone());
    if let Some(address) = wrangler {
        tx.mail(Mail::new(
            Audience::Address(address),
            TAG,
            "donkey_action",
            json!({
                "number": game.number,
                "round": game.round,
                "name": player.name,
                "action": action.text(),
                "at": human_time(ctx.now),
                "ends": human_time(ends),
                "changed": changed,
            }),
        ));
    }
    Ok(Sentence::new("donkey_acted")
        .arg("action", action.text())
        .arg("round", game.round)
        .arg("ends", human_time(ends))
        .arg("changed", changed))
}

// ---- C, D, E, G: the round's end ----

/// Publishes the round's commitments and reveal, and gives each player's last
/// action.
fn unseal(tx: &mut DonkeyTx<'_>, batch: &str) -> Vec<(PlayerId, String)> {
    let sealed = tx.view().sealed;
    if sealed.batch(batch).is_some_and(|b| b.stage == Stage::Open)
        && let Ok((event, mail)) = sealed.commit(batch)
    {
        tx.record_shared(SharedEvent::Sealed(event));
        tx.mail(mail);
    }
    if let Ok((event, mail)) = tx
        .view()
        .sealed
        .reveal_replacing(batch, |s| Some(s.player.to_string()))
    {
        tx.record_shared(SharedEvent::Sealed(event));
        tx.mail(mail);
    }
    let mut last: Vec<(PlayerId, String)> = Vec::new();
    if let Some(b) = tx.view().sealed.batch(batch) {
        for action in &b.actions {
            last.retain(|(p, _)| *p != action.player);
            last.push((action.player, action.action_text.clone()));
        }
    }
    last
}

fn resolve(tx: &mut DonkeyTx<'_>, forced: Option<(&str, &str)>) {
    let Some(game) = tx.state().game.clone() else {
        return;
    };
    if game.round == 0 || game.round_ends.is_none() {
        return;
    }
    let batch = batch_id(game.number, game.round);
    cancel(tx, batch.clone());
    let last = unseal(tx, &batch);
    let chosen = |id: PlayerId| {
        last.iter()
            .find(|(p, _)| *p == id)
            .and_then(|(_, text)| Action::from_text(text))
    };
    let left = |tx: &DonkeyTx<'_>, id: PlayerId| {
        tx.view().players.by_id(id).is_none_or(|p| !p.is_active())
    };
    let mut did = Vec::new();
    let mut removed: Vec<PlayerId> = Vec::new();
    let mut grabs: Vec<(String, String)> = Vec::new();
    let mut lambs: Vec<(String, String)> = Vec::new();
    let name_of = |id: PlayerId| {
        game.gal
            .iter()
            .find(|p| p.player == id)
            .map(|p| p.name.clone())
            .unwrap_or_default()
    };
    if game.gal.len() == 2 {
        // G: rock, scissors, paper; no move is removal; a draw plays again.
        let (a, b) = (&game.gal[0], &game.gal[1]);
        let throw = |tx: &DonkeyTx<'_>, id| chosen(id).filter(|_| !left(tx, id));
        let (ta, tb) = (throw(tx, a.player), throw(tx, b.player));
        for (on, t) in [(a, &ta), (b, &tb)] {
            did.push(Did {
                name: on.name.clone(),
                action: match t {
                    Some(t) => t.text(),
                    None if left(tx, on.player) => "left the nomic".to_owned(),
                    None => "no move".to_owned(),
                },
                chose: t.is_some(),
            });
            if t.is_none() {
                removed.push(on.player);
            }
        }
        if let (Some(x), Some(y)) = (&ta, &tb) {
            let (winner, loser) = if x.beats(y) {
                (Some(a), Some(b))
            } else if y.beats(x) {
                (Some(b), Some(a))
            } else {
                (None, None)
            };
            if let (Some(w), Some(l)) = (winner, loser) {
                grabs.push((w.name.clone(), l.name.clone()));
                removed.push(l.player);
                move_entity(
                    tx,
                    "donkey",
                    l.player,
                    w.player,
                    format!("grabbed in Grab-a-Donkey game {}", game.number),
                );
            }
        }
    } else {
        // B: a player who resigned or left is counted as covered this round.
        let mut choice: Vec<(&OnGal, Action)> = Vec::new();
        for on in &game.gal {
            let gone = left(tx, on.player);
            let mine = chosen(on.player);
            let effective = if gone || mine == Some(Action::Resign) {
                removed.push(on.player);
                Action::Cover
            } else {
                mine.clone().unwrap_or(Action::Admire)
            };
            did.push(Did {
                name: on.name.clone(),
                action: if gone {
                    "left the nomic".to_owned()
                } else {
                    mine.as_ref().map_or("admire".to_owned(), Action::text)
                },
                chose: mine.is_some(),
            });
            choice.push((on, effective));
        }
        // C: one grabber of an uncovered donkey takes it; several all fail.
        for (target, target_choice) in &choice {
            let grabbers: Vec<&OnGal> = choice
                .iter()
                .filter(|(_, c)| *c == Action::Grab(target.name.clone()))
                .map(|(p, _)| *p)
                .collect();
            let [grabber] = grabbers.as_slice() else {
                continue;
            };
            if *target_choice == Action::Cover {
                continue;
            }
            let has_lamb = tx.view().inventory.entities.iter().any(|e| {
                e.kind.eq_ignore_ascii_case(LITTLE_LAMB) && e.owner == Owner::Player(target.player)
            });
            if has_lamb {
                lambs.push((grabber.name.clone(), target.name.clone()));
                move_entity(
                    tx,
                    LITTLE_LAMB,
                    target.player,
                    grabber.player,
                    format!(
                        "grabbed by mistake in Grab-a-Donkey game {} (rule 1213 C)",
                        game.number
                    ),
                );
            } else {
                grabs.push((grabber.name.clone(), target.name.clone()));
                if !removed.contains(&target.player) {
                    removed.push(target.player);
                }
                move_entity(
                    tx,
                    "donkey",
                    target.player,
                    grabber.player,
                    format!("grabbed in Grab-a-Donkey game {}", game.number),
                );
            }
        }
        // D: the only one who did not cover stays; all others leave.
        let uncovered: Vec<PlayerId> = choice
            .iter()
            .filter(|(_, c)| *c != Action::Cover)
            .map(|(p, _)| p.player)
            .collect();
        if let [only] = uncovered.as_slice() {
            for on in &game.gal {
                if on.player != *only && !removed.contains(&on.player) {
                    removed.push(on.player);
                }
            }
        }
    }
    let removed_names: Vec<String> = removed.iter().map(|id| name_of(*id)).collect();
    tx.record(Event::Reported {
        round: game.round,
        did: did.clone(),
        removed: removed_names.clone(),
        grabs: grabs.clone(),
    });
    let remaining: Vec<OnGal> = tx
        .state()
        .game
        .iter()
        .flat_map(|g| g.gal.iter())
        .filter(|p| !removed.contains(&p.player))
        .cloned()
        .collect();
    list(
        tx,
        "donkey_report",
        json!({
            "number": game.number,
            "round": game.round,
            "did": did,
            "grabs": grabs.iter().map(|(a, b)| json!({"grabber": a, "victim": b})).collect::<Vec<_>>(),
            "lambs": lambs.iter().map(|(a, b)| json!({"grabber": a, "holder": b})).collect::<Vec<_>>(),
            "removed": removed_names,
            "remaining": remaining.iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
            "throws": game.gal.len() == 2,
            "forced": forced.is_some(),
            "officer": forced.map(|(o, _)| o),
            "reason": forced.map(|(_, r)| r),
        }),
    );
    next_round(tx, remaining);
}

// ---- F, H: the end ----

fn end(tx: &mut DonkeyTx<'_>, belt: Option<OnGal>, why: &str) {
    let Some(game) = tx.state().game.clone() else {
        return;
    };
    if game.round > 0 && game.round_ends.is_some() {
        let batch = batch_id(game.number, game.round);
        cancel(tx, batch.clone());
        let _ = unseal(tx, &batch);
    }
    cancel(tx, SUCCESSOR.to_owned());
    cancel(tx, format!("{TAG}:{}:start", game.number));
    let n = numbers(tx);
    let mut points = None;
    match &belt {
        Some(on) => {
            // H: Belt Holder and Wrangler, 3 points plus the donkeys grabbed.
            let who = Titled {
                player: on.player,
                name: on.name.clone(),
            };
            title(tx, BELT_HOLDER, Some(who.clone()), "won the game");
            title(tx, WRANGLER, Some(who), "won the game");
            let amount = n.belt_points + i64::from(on.grabbed);
            let reason = format!(
                "Belt Holder of Grab-a-Donkey game {} (rule 1213 H)",
                game.number
            );
            if let Ok(event) = tx.view().accounts.transfer(
                Holder::Nowhere,
                Holder::Player(on.player),
                &n.currency,
                &BigRational::from_integer(BigInt::from(amount)),
                &reason,
            ) {
                tx.record_shared(SharedEvent::Accounts(event));
            }
            points = Some(amount);
        }
        // F: none left: the Wrangler loses the title. I: nobody took over.
        None => title(tx, WRANGLER, None, why),
    }
    return_equipment(tx, game.number);
    tx.record(Event::Ended {
        belt_holder: belt.as_ref().map(|b| b.name.clone()),
        why: why.to_owned(),
    });
    list(
        tx,
        "donkey_ended",
        json!({
            "number": game.number,
            "why": why,
            "belt_holder": belt.as_ref().map(|b| b.name.clone()),
            "grabbed": belt.as_ref().map(|b| b.grabbed),
            "points": points,
            "currency": n.currency,
            "base": n.belt_points,
        }),
    );
}

// ---- I: the Wranglership ----

fn offer(tx: &mut DonkeyTx<'_>, player: &Player, name: &str) -> Result<Sentence, Refusal> {
    let state = tx.state().clone();
    if state.wrangler.as_ref().map(|w| w.player) != Some(player.id) {
        return Err(Sentence::new("donkey_wrangler_only")
            .arg("wrangler", state.wrangler.map(|w| w.name))
            .into());
    }
    let Some(game) = &state.game else {
        return Err(refuse("donkey_no_game"));
    };
    // "between two rounds, immediately after the old wrangler releases the
    // results for a round": after a report, before any action of the next.
    if game.round < 2 || !game.acted.is_empty() {
        return Err(refuse("donkey_transfer_between_rounds"));
    }
    let to = tx
        .view()
        .players
        .by_name(name)
        .cloned()
        .ok_or_else(|| Refusal(Sentence::new("no_such_player").arg("name", name)))?;
    if state.on_gal(to.id) || to.id == player.id {
        return Err(refuse("donkey_transfer_on_gal"));
    }
    tx.record(Event::Offered {
        to: Some(titled(&to)),
    });
    Ok(Sentence::new("donkey_offered").arg("name", to.name))
}

fn accept(tx: &mut DonkeyTx<'_>, player: &Player) -> Result<Sentence, Refusal> {
    let game = tx.state().game.clone();
    match game {
        Some(game)
            if game.offered_to.as_ref().map(|t| t.player) == Some(player.id)
                && game.acted.is_empty() =>
        {
            title(tx, WRANGLER, Some(titled(player)), "transferred");
            announce_title(tx, WRANGLER, Some(&player.name), "transferred", None);
            Ok(Sentence::new("donkey_now_wrangler").arg("both", false))
        }
        _ => Err(refuse("donkey_no_offer")),
    }
}

/// I: the Wrangler went on vacation or left the nomic mid-game.
pub(super) fn standing_changed(tx: &mut DonkeyTx<'_>, change: &Standing) {
    let state = tx.state().clone();
    let (Some(wrangler), Some(game)) = (&state.wrangler, &state.game) else {
        return;
    };
    let gone = match *change {
        Standing::Vacation(id) | Standing::Left(id) => id == wrangler.player,
        _ => false,
    };
    if !gone || game.wrangler_gone_until.is_some() {
        return;
    }
    let days = numbers(tx).successor_days;
    let until = after_hours(tx.at(), i64::from(days) * 24);
    tx.record(Event::WranglerGone { until: Some(until) });
    schedule(
        tx,
        SUCCESSOR.to_owned(),
        until,
        "a new Wrangler for Grab-a-Donkey".to_owned(),
    );
    list(
        tx,
        "donkey_wrangler_gone",
        json!({
            "name": wrangler.name,
            "until": human_time(until),
            "days": days,
        }),
    );
}

/// Rule 1213 left effect: the game in progress ends with no Belt Holder, and
/// the titles the rule created are no more. Followed again after a hold: a
/// start or a round's end that fell due meanwhile happens now.
pub(super) fn bindings_changed(tx: &mut DonkeyTx<'_>) {
    let bound = Bound::of(&tx.view(), tx.params());
    if !bound.repealed() {
        // Followed again after a hold: what fell due meanwhile is done now.
        let Some(game) = tx.state().game.clone() else {
            return;
        };
        if bound.stopped().is_none() {
            if game.round == 0 && game.starts_at <= tx.at() {
                start(tx);
            } else if game.round_ends.is_some_and(|ends| ends <= tx.at()) {
                resolve(tx, None);
            }
        }
        return;
    }
    if tx.state().game.is_some() {
        end(tx, None, "rule_stopped");
    }
    if tx.state().wrangler.is_some() {
        title(tx, WRANGLER, None, "rule_stopped");
    }
    if tx.state().belt_holder.is_some() {
        title(tx, BELT_HOLDER, None, "rule_stopped");
    }
}

pub(super) fn on_deadline(tx: &mut DonkeyTx<'_>, id: &str) {
    adopt_the_registry(tx);
    if Bound::of(&tx.view(), tx.params()).stopped().is_some() {
        return;
    }
    let Some(game) = tx.state().game.clone() else {
        return;
    };
    if id == SUCCESSOR {
        let back = tx
            .state()
            .wrangler
            .as_ref()
            .and_then(|w| tx.view().players.by_id(w.player))
            .is_some_and(|p| p.is_active_at(tx.at()));
        if back {
            tx.record(Event::WranglerGone { until: None });
        } else if game.wrangler_gone_until.is_some() {
            end(tx, None, "no_wrangler");
        }
        return;
    }
    if id == format!("{TAG}:{}:start", game.number) {
        start(tx);
    } else if id == batch_id(game.number, game.round) {
        resolve(tx, None);
    }
}

// ---- Moderators ----

fn close(tx: &mut DonkeyTx<'_>, reason: &str, ctx: &Ctx) -> Result<Sentence, Refusal> {
    match &tx.state().game {
        Some(game) if game.round > 0 && game.round_ends.is_some() => {}
        _ => return Err(refuse("donkey_no_round")),
    }
    let round = tx.state().game.as_ref().map_or(0, |g| g.round);
    resolve(tx, Some((&ctx.signature(), reason)));
    Ok(Sentence::new("donkey_closed").arg("round", round))
}

fn set_title(
    tx: &mut DonkeyTx<'_>,
    which: &str,
    name: Option<&str>,
    reason: &str,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let to = match name {
        Some(name) => Some(titled(tx.view().players.by_name(name).ok_or_else(
            || Refusal(Sentence::new("no_such_player").arg("name", name)),
        )?)),
        None => None,
    };
    if which == WRANGLER {
        cancel(tx, SUCCESSOR.to_owned());
    }
    title(tx, which, to.clone(), "override");
    let shown = to.as_ref().map(|t| t.name.clone());
    announce_title(
        tx,
        which,
        shown.as_deref(),
        "override",
        Some((&ctx.signature(), reason)),
    );
    Ok(Sentence::new("donkey_title_set")
        .arg("title", which)
        .arg("name", shown))
}

// ---- status ----

fn status(tx: &DonkeyTx<'_>, now: Timestamp) -> Sentence {
    let state: &Corral = tx.state();
    let n = numbers(tx);
    let game = state.game.as_ref().map(|g| {
        let not_yet: Vec<String> = g
            .gal
            .iter()
            .filter(|p| !g.acted.contains(&p.name))
            .map(|p| p.name.clone())
            .collect();
        json!({
            "number": g.number,
            "round": g.round,
            "starts_at": human_time(g.starts_at),
            "ends": g.round_ends.map(human_time),
            "gal": g.gal.iter().map(|p| p.name.clone()).collect::<Vec<_>>(),
            "acted": g.acted,
            "not_yet": not_yet,
            "declined": g.declined.iter().map(|d| d.name.clone()).collect::<Vec<_>>(),
            "throws": g.gal.len() == 2,
            "wrangler_gone_until": g.wrangler_gone_until.map(human_time),
        })
    });
    let claim_from = state
        .last_ended
        .map(|at| after_hours(at, i64::from(n.claim_after_days) * 24));
    Sentence::new("donkey_status")
        .arg("wrangler", state.wrangler.as_ref().map(|w| w.name.clone()))
        .arg(
            "belt_holder",
            state.belt_holder.as_ref().map(|w| w.name.clone()),
        )
        .arg(
            "amendment",
            state.amendment_right.as_ref().map(|w| w.name.clone()),
        )
        .arg("game", game)
        .arg("last_ended", state.last_ended.map(human_time))
        .arg(
            "claim_open",
            state.game.is_none() && claim_from.is_some_and(|at| now >= at),
        )
        .arg("claim_from", claim_from.map(human_time))
}
