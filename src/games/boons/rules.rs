//! Rule 1211's sections carried out in the transaction, in the text's order:
//! a Boon falls due (§1–§2), is drawn (§4) or chosen (§3), created at once (§5)
//! or described (§6) and created later unless found Bogus (§7); what each Boon
//! of §9 creates is `create`. §8 is the `[bogusity]` game, reached through the
//! shared schedule (see mod.rs).

use num_rational::BigRational;
use serde_json::json;

use crate::engine::accounts::Holder;
use crate::engine::calendar::{self, Deadline};
use crate::engine::game::{SharedEvent, Standing, Tick, Tx};
use crate::engine::inventory::{self, Owner};
use crate::engine::players::Player;
use crate::engine::{Audience, Ctx, Mail, Refusal, Sentence, Timestamp, human_time};

use super::bound::{Bound, Now};
use super::list::{self, Boon, Kind, Lawful};
use super::{Bestowal, Boons, Event, Lapse, Method, Params, Stage, State, TAG};
use crate::engine::game::View;

type BoonsTx<'a> = Tx<'a, Boons>;

/// The tag of the game that holds §8's hearings, and the prefix of the
/// deadline that hands it a description.
const HEARINGS: &str = "bogusity";

/// `days` calendar days after `at` in the nomic's zone.
fn days_after(tx: &BoonsTx<'_>, at: Timestamp, days: u32) -> Option<Timestamp> {
    jiff::Span::new()
        .try_days(i64::from(days))
        .ok()
        .and_then(|span| tx.view().calendar.after(at, span).ok())
}

fn out_of_range(days: u32) -> Refusal {
    Refusal(Sentence::new("boons_out_of_range").arg("days", days))
}

fn schedule(tx: &mut BoonsTx<'_>, deadline: Deadline) {
    tx.record_shared(SharedEvent::Schedule(calendar::Event::Scheduled {
        deadline,
    }));
}

fn cancel(tx: &mut BoonsTx<'_>, id: String) {
    if tx.view().schedule.get(&id).is_some() {
        tx.record_shared(SharedEvent::Schedule(calendar::Event::Cancelled { id }));
    }
}

fn deadline_id(what: &str, number: u32) -> String {
    format!("{TAG}:{what}:{number}")
}

fn boon_json(boon: &Boon) -> serde_json::Value {
    json!({
        "key": boon.key,
        "text": boon.text,
        "entity": boon.entity,
        "weight": boon.weight,
        "must_describe": boon.must_describe(),
        "place": boon.place,
    })
}

fn the_sender(tx: &BoonsTx<'_>, ctx: &Ctx) -> Result<Player, Refusal> {
    tx.view()
        .players
        .active_by_address(&ctx.sender)
        .cloned()
        .ok_or_else(|| Refusal(Sentence::new("not_a_player").arg("address", ctx.sender.as_str())))
}

/// bot.toml's `[boons]` with rule 1211's numbers as the rule now says them:
/// every number of the rule is read here (`bound`).
fn numbers(tx: &BoonsTx<'_>) -> Params {
    Bound::of(&tx.view(), tx.params()).params()
}

/// §9 a, b: the particular kinds in force, bot.toml's with a moderator's.
fn kinds(tx: &BoonsTx<'_>) -> Vec<Kind> {
    list::kinds_in_force(&tx.params().kinds, &tx.state().kinds_set)
}

/// What a Boon that draws a kind may draw now, counting the instances in the
/// inventory as this transaction leaves it.
fn lawful_now(tx: &BoonsTx<'_>, boon: &Boon) -> Lawful {
    list::lawful(boon, &kinds(tx), tx.view().inventory, &tx.params().list)
}

// ---- §1–§2: a Boon falls due ----

/// A moderator's `bestow NAME [METHOD] because REASON`: the rules' other
/// bestowals, carried out by hand.
pub(super) fn bestow_by_moderator(
    tx: &mut BoonsTx<'_>,
    name: &str,
    method: Method,
    because: &str,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    if !tx.view().is_moderator(&ctx.sender) {
        return Err(Sentence::new("moderators_only").into());
    }
    let player = tx
        .view()
        .players
        .by_name(name)
        .cloned()
        .ok_or_else(|| Refusal(Sentence::new("no_such_player").arg("name", name)))?;
    let because = format!("{because} (bestowed by {})", ctx.signature());
    let number = fall_due(tx, &player, method, &because, ctx.entropy)?;
    Ok(Sentence::new("boons_bestowed")
        .arg("number", number)
        .arg("name", &player.name)
        .arg("method", method.word()))
}

/// §1: "a Boon of the Ancients is bestowed upon a particular player": random
/// (§4) at once, or deterministic (§3) with the days to choose.
fn fall_due(
    tx: &mut BoonsTx<'_>,
    player: &Player,
    method: Method,
    because: &str,
    entropy: [u8; 32],
) -> Result<u32, Refusal> {
    let number = tx.state().last_number + 1;
    let choose_days = numbers(tx).choose_days.get();
    let until = match method {
        Method::Deterministic => {
            Some(days_after(tx, tx.at(), choose_days).ok_or_else(|| out_of_range(choose_days))?)
        }
        Method::Random => None,
    };
    tx.record(Event::Due {
        number,
        player: player.id,
        name: player.name.clone(),
        method,
        because: because.to_owned(),
        until,
    });
    match until {
        Some(until) => {
            schedule(
                tx,
                Deadline {
                    id: deadline_id("choose", number),
                    at: until,
                    owner: TAG.to_owned(),
                    who: Some(player.id),
                    what: format!("your choice of a Boon of the Ancients (Boon {number})"),
                    remind: true,
                },
            );
            let choices: Vec<_> = numbers(tx).list.iter().map(boon_json).collect();
            tx.mail(Mail::new(
                Audience::List,
                TAG,
                "boons_due",
                json!({
                    "number": number, "player": player.name, "because": because,
                    "at": human_time(tx.at()), "until": human_time(until),
                    "choose_days": choose_days, "choices": choices,
                }),
            ));
        }
        None => draw_and_take(tx, number, entropy),
    }
    Ok(number)
}

// ---- §4: the random method ----

/// §4: the Officer in charge of Random Things draws a Boon, each as likely as
/// its weight over the sum. The draw is made in the running random period, or in
/// one opened for it whose seed is published at once, so anyone can check it.
fn draw_and_take(tx: &mut BoonsTx<'_>, number: u32, entropy: [u8; 32]) {
    let list = numbers(tx).list;
    // §9 a, b: a Boon whose every particular kind is at its instance limit
    // cannot be bestowed "such that no instance limits are exceeded", and §1
    // says a Boon is bestowed: it is not drawn (its number counts 0), which is
    // a redraw until a Boon that can be bestowed comes up, in one draw
    // (docs/rulings.md).
    let full: Vec<&str> = list
        .iter()
        .filter(|b| matches!(lawful_now(tx, b), Lawful::None))
        .map(|b| b.key.as_str())
        .collect();
    let weights: Vec<u32> = list
        .iter()
        .map(|b| {
            if full.contains(&b.key.as_str()) {
                0
            } else {
                b.weight
            }
        })
        .collect();
    let mut purpose = format!(
        "Boon of the Ancients {number} for {} (rule 1211 §4): one of {}",
        tx.state().get(number).map_or("", |b| b.name.as_str()),
        list.iter()
            .zip(&weights)
            .map(|(b, weight)| format!("({}) {weight}", b.key))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if !full.is_empty() {
        purpose.push_str(&format!(
            "; not {}: no kind under its instance limit (§9)",
            full.iter()
                .map(|key| format!("({key})"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let drawn = (weights.iter().map(|w| u64::from(*w)).sum::<u64>() > 0)
        .then(|| {
            draw(tx, entropy, &purpose, |random, at| {
                random.weighted(&weights, &purpose, at)
            })
        })
        .flatten();
    match drawn.and_then(|(index, draw)| Some((list.get(index)?.clone(), draw))) {
        Some((boon, draw)) => take(tx, number, &boon, Some(draw), entropy),
        None => lapse(tx, number, Lapse::NothingToDraw),
    }
}

/// One draw by the random officer, in the running period or in one opened
/// (and, after the draw, closed) for it; with what the announcement shows of it.
fn draw(
    tx: &mut BoonsTx<'_>,
    entropy: [u8; 32],
    purpose: &str,
    how: impl Fn(
        &crate::engine::random::RandomOfficer,
        Timestamp,
    ) -> Result<(usize, crate::engine::random::Event), crate::engine::random::DrawError>,
) -> Option<(usize, serde_json::Value)> {
    let opened = tx.view().random.current.is_none();
    if opened {
        let start = tx.view().random.start_period(TAG, entropy).ok()?;
        tx.record_shared(SharedEvent::Random(start));
        let started = tx
            .view()
            .random
            .current
            .as_ref()
            .map(|r| r.started_mail(TAG));
        tx.mail_all(started);
    }
    let random = tx.view().random;
    let label = random.current.as_ref()?.label.clone();
    let index = random.current.as_ref()?.draws.len();
    let (result, event) = how(random, tx.at()).ok()?;
    tx.record_shared(SharedEvent::Random(event));
    if opened && let Ok(end) = tx.view().random.end_period() {
        tx.record_shared(SharedEvent::Random(end));
        let revealed = tx.view().random.past.last().map(|r| r.revealed_mail(TAG));
        tx.mail_all(revealed);
    }
    Some((
        result,
        json!({"label": label, "index": index, "result": result, "purpose": purpose}),
    ))
}

// ---- §3: the deterministic method ----

/// §3: "the player designated to receive the Boon [...] has 3 days to choose a
/// Boon for himself to receive".
pub(super) fn choose(
    tx: &mut BoonsTx<'_>,
    number: Option<u32>,
    name: &str,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let player = the_sender(tx, ctx)?;
    let bestowal = pending_of(tx, &player, number, "choose", |s| {
        matches!(s, Stage::Choosing { .. })
    })?;
    let Stage::Choosing { until } = bestowal.stage else {
        return Err(Sentence::new("boons_none_pending")
            .arg("what", "choose")
            .into());
    };
    // The deadline fires before a later message, so this is belt and braces.
    if ctx.now >= until {
        return Err(too_late(&bestowal, until));
    }
    let boon = list::named(&numbers(tx).list, name)
        .cloned()
        .ok_or_else(|| {
            Refusal(
                Sentence::new("boons_no_such_boon").arg("boon", name).arg(
                    "choices",
                    tx.params()
                        .list
                        .iter()
                        .map(|b| format!("({}) {}", b.key, b.entity))
                        .collect::<Vec<_>>()
                        .join(", "),
                ),
            )
        })?;
    // §9 a, b: a Boon that cannot be bestowed "such that no instance limits
    // are exceeded" is no choice; the player still has the rest of the three
    // days to choose another.
    if let Lawful::None = lawful_now(tx, &boon) {
        return Err(Sentence::new("boons_no_lawful_kind")
            .arg("boon", boon_json(&boon))
            .arg("kinds", kinds_json(tx, &boon))
            .into());
    }
    cancel(tx, deadline_id("choose", bestowal.number));
    take(tx, bestowal.number, &boon, None, ctx.entropy);
    let describe_until = match tx.state().get(bestowal.number).map(|b| &b.stage) {
        Some(Stage::Describing { until, .. }) => Some(human_time(*until)),
        _ => None,
    };
    Ok(Sentence::new("boons_chose")
        .arg("number", bestowal.number)
        .arg("boon", boon_json(&boon))
        .arg("describe_until", describe_until))
}

fn too_late(bestowal: &Bestowal, until: Timestamp) -> Refusal {
    Refusal(
        Sentence::new("boons_too_late")
            .arg("number", bestowal.number)
            .arg("until", human_time(until)),
    )
}

/// The sender's one pending bestowal at `stage` (or the numbered one): a number
/// that is someone else's is refused as such, never acted on.
fn pending_of(
    tx: &BoonsTx<'_>,
    player: &Player,
    number: Option<u32>,
    what: &str,
    stage: impl Fn(&Stage) -> bool,
) -> Result<Bestowal, Refusal> {
    if let Some(number) = number {
        let bestowal = tx.state().get(number).ok_or_else(|| {
            Refusal(Sentence::new("boons_no_such_bestowal").arg("number", number))
        })?;
        if bestowal.player != player.id {
            return Err(Sentence::new("boons_not_yours")
                .arg("number", number)
                .arg("owner", &bestowal.name)
                .into());
        }
        if !stage(&bestowal.stage) {
            return Err(Sentence::new("boons_none_pending")
                .arg("what", what)
                .arg("number", number)
                .into());
        }
        return Ok(bestowal.clone());
    }
    let mine: Vec<&Bestowal> = tx
        .state()
        .of_player(player.id)
        .filter(|b| stage(&b.stage))
        .collect();
    match mine.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(Sentence::new("boons_none_pending").arg("what", what).into()),
        many => Err(Sentence::new("boons_which")
            .arg("what", what)
            .arg("numbers", many.iter().map(|b| b.number).collect::<Vec<_>>())
            .into()),
    }
}

// ---- §5–§6: the Boon chosen ----

/// The Boon is chosen (drawn or named): §5, created at once; §6, a Must
/// Describe Boon waits for its description.
fn take(
    tx: &mut BoonsTx<'_>,
    number: u32,
    boon: &Boon,
    draw: Option<serde_json::Value>,
    entropy: [u8; 32],
) {
    let Some(bestowal) = tx.state().get(number).cloned() else {
        return;
    };
    let numbers = numbers(tx);
    let describe_days = numbers.describe_days.get();
    let until = if boon.must_describe() {
        match days_after(tx, tx.at(), describe_days) {
            Some(until) => Some(until),
            None => return lapse(tx, number, Lapse::NoDescription),
        }
    } else {
        None
    };
    tx.record(Event::Chosen {
        number,
        boon: boon.clone(),
        until,
    });
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "boons_chosen",
        json!({
            "number": number, "player": bestowal.name, "method": bestowal.method.word(),
            "because": bestowal.because, "boon": boon_json(boon), "draw": draw,
            "at": human_time(tx.at()), "describe_until": until.map(human_time),
            "describe_days": describe_days, "create_days": numbers.create_days.get(),
        }),
    ));
    match until {
        Some(until) => schedule(
            tx,
            Deadline {
                id: deadline_id("describe", number),
                at: until,
                owner: TAG.to_owned(),
                who: Some(bestowal.player),
                what: format!("your description of Boon of the Ancients {number}"),
                remind: true,
            },
        ),
        None => create(tx, number, "", entropy),
    }
}

/// §6: "the player has 3 days to post a description of the Boon". The
/// description is also posted for §8's Bogusity Hearing.
pub(super) fn describe(
    tx: &mut BoonsTx<'_>,
    number: Option<u32>,
    text: String,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let player = the_sender(tx, ctx)?;
    let bestowal = pending_of(tx, &player, number, "describe", |s| {
        matches!(s, Stage::Describing { .. })
    })?;
    let Stage::Describing { boon, until } = &bestowal.stage else {
        return Err(Sentence::new("boons_none_pending")
            .arg("what", "describe")
            .into());
    };
    if ctx.now >= *until {
        return Err(too_late(&bestowal, *until));
    }
    let create_days = numbers(tx).create_days.get();
    let create_at =
        days_after(tx, ctx.now, create_days).ok_or_else(|| out_of_range(create_days))?;
    tx.record(Event::Described {
        number: bestowal.number,
        text: text.clone(),
        create_at,
    });
    cancel(tx, deadline_id("describe", bestowal.number));
    schedule(
        tx,
        Deadline {
            id: deadline_id("create", bestowal.number),
            at: create_at,
            owner: TAG.to_owned(),
            who: None,
            what: format!("the creation of Boon of the Ancients {}", bestowal.number),
            remind: false,
        },
    );
    let hearings = tx.params().hearings;
    if hearings {
        // The hearings' game takes the description up when this fires, in the
        // same instant: its three days to call a hearing start now.
        schedule(
            tx,
            Deadline {
                id: format!("{HEARINGS}:describe:{TAG}:{}", bestowal.number),
                at: ctx.now,
                owner: HEARINGS.to_owned(),
                who: Some(player.id),
                what: format!(
                    "{} (Boon {} of [{TAG}]): {text}",
                    boon.entity, bestowal.number
                ),
                remind: false,
            },
        );
    }
    Ok(Sentence::new("boons_described")
        .arg("number", bestowal.number)
        .arg("entity", &boon.entity)
        .arg("create_at", human_time(create_at))
        .arg("hearings", hearings))
}

// ---- §5, §7, §9: creation ----

/// Creates the Boon and gives it as §9 says for it, in one step: the entity in
/// the inventory (a unique one transferred from its holder), A$ transmuted from
/// the Treasury, a random kind where the list names kinds.
fn create(tx: &mut BoonsTx<'_>, number: u32, description: &str, entropy: [u8; 32]) {
    let Some(bestowal) = tx.state().get(number).cloned() else {
        return;
    };
    let mut boon = match &bestowal.stage {
        Stage::Describing { boon, .. } | Stage::Described { boon, .. } => boon.clone(),
        Stage::Choosing { .. } => return,
    };
    // (d)'s A$ as the rule says it at the creation, not at the choice.
    let bound = Bound::of(&tx.view(), tx.params());
    if let Some(now) = bound
        .params()
        .list
        .iter()
        .find(|b| b.key == boon.key && b.entity == boon.entity)
    {
        boon.from_treasury = now.from_treasury;
    }
    let trinket_value = boon.from_treasury.map(|a| bound.trinket_value(a));
    let Some(player) = tx
        .view()
        .players
        .by_id(bestowal.player)
        .filter(|p| p.is_active())
        .cloned()
    else {
        return lapse(tx, number, Lapse::PlayerLeft);
    };
    let reason = format!(
        "Boon of the Ancients {number} ({}) for {} (rule 1211)",
        boon.key, player.name
    );
    // (a), (b): "a random Qualified Gadget", "a random Otzma Card, all cards
    // having the same probability, such that no instance limits are exceeded":
    // drawn, each as likely, among the kinds known of the entity that have
    // fewer instances than their limit.
    let mut description = description.to_owned();
    let mut kind_draw = None;
    match lawful_now(tx, &boon) {
        Lawful::NoKinds => {}
        Lawful::None => return lapse(tx, number, Lapse::NoLawfulKind),
        Lawful::Among(kinds) => {
            let names: Vec<String> = kinds.into_iter().map(|k| k.name).collect();
            let purpose = format!(
                "the {} of Boon of the Ancients {number} (rule 1211 §9 {}): one of {}, those under their instance limit",
                boon.entity,
                boon.key,
                names.join(", ")
            );
            let n = u32::try_from(names.len()).unwrap_or(u32::MAX);
            // If the officer cannot draw, the entity is created as its kind
            // alone, and its announcement shows no draw of a kind.
            if let Some((index, draw)) = draw(tx, entropy, &purpose, |random, at| {
                random.below(n, &purpose, at).map(|(i, e)| (i as usize, e))
            }) {
                description = names.get(index).cloned().unwrap_or_default();
                kind_draw = Some(draw);
            }
        }
    }
    let mut previous_holder = None;
    let existing = boon
        .unique
        .then(|| tx.view().inventory.unique(&boon.entity).cloned())
        .flatten();
    let entity = match existing {
        // (h): "The Chartreuse Goose is transferred to the player", from
        // wherever it is.
        Some(goose) => {
            previous_holder = Some(owner_text(tx, &goose.owner));
            let to = Owner::Player(player.id);
            if goose.owner != to {
                tx.record_shared(SharedEvent::Inventory(inventory::Event::Transferred {
                    id: goose.id,
                    to,
                    reason: reason.clone(),
                }));
            }
            tx.view().inventory.get(goose.id).cloned()
        }
        None => {
            let mut new = boon.entity(player.id, &description);
            if let Some(value) = trinket_value {
                new.value = Some(format!("A${value}"));
            }
            match tx.view().inventory.create(new, &reason) {
                Some(event) => {
                    let id = match &event {
                        inventory::Event::Created { entity, .. } => Some(entity.id),
                        _ => None,
                    };
                    tx.record_shared(SharedEvent::Inventory(event));
                    id.and_then(|id| tx.view().inventory.get(id).cloned())
                }
                None => None,
            }
        }
    };
    // (d): "A$75 in the Treasury is transmuted into the Trinket": the money
    // leaves the Treasury for nowhere, and the Trinket carries its value.
    let treasury = boon.from_treasury.filter(|a| *a > 0).map(|amount| {
        let currency = tx.params().currency.clone();
        let event = tx.view().accounts.transfer(
            Holder::Treasury,
            Holder::Nowhere,
            &currency,
            &BigRational::from_integer(amount.into()),
            &format!("transmuted into the Trinket of {reason}"),
        );
        let refusal = match event {
            Ok(event) => {
                tx.record_shared(SharedEvent::Accounts(event));
                None
            }
            Err(Refusal(sentence)) => Some(sentence.code),
        };
        json!({"amount": amount, "currency": currency, "done": refusal.is_none(), "refusal": refusal})
    });
    tx.record(Event::Bestowed {
        number,
        entity: entity.as_ref().map(|e| e.id),
    });
    let entity_json = entity.as_ref().map(|e| {
        json!({
            "id": e.id, "kind": e.kind, "description": e.description,
            "value": e.value, "owner": owner_text(tx, &e.owner),
        })
    });
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "boons_created",
        json!({
            "number": number, "player": player.name, "boon": boon_json(&boon),
            "entity": entity_json, "previous_holder": previous_holder,
            "treasury": treasury, "kind_draw": kind_draw, "at": human_time(tx.at()),
        }),
    ));
}

fn owner_text(tx: &BoonsTx<'_>, owner: &Owner) -> String {
    match owner {
        Owner::Player(id) => tx
            .view()
            .players
            .by_id(*id)
            .map_or_else(|| format!("player {id}"), |p| p.name.clone()),
        Owner::Treasury => "the Treasury".to_owned(),
        Owner::Place(place) => place.clone(),
        Owner::Unowned => "nobody".to_owned(),
        Owner::Buried(number) => format!("buried in Treasure {number}"),
    }
}

/// No Boon is bestowed, and the list is told why.
fn lapse(tx: &mut BoonsTx<'_>, number: u32, lapse: Lapse) {
    let Some(bestowal) = tx.state().get(number).cloned() else {
        return;
    };
    for what in ["choose", "describe", "create"] {
        cancel(tx, deadline_id(what, number));
    }
    tx.record(Event::Lapsed { number, lapse });
    let boon = match &bestowal.stage {
        Stage::Describing { boon, .. } | Stage::Described { boon, .. } => Some(boon_json(boon)),
        Stage::Choosing { .. } => None,
    };
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "boons_lapsed",
        json!({
            "number": number, "player": bestowal.name, "lapse": lapse.code(),
            "boon": boon, "at": human_time(tx.at()),
        }),
    ));
}

// ---- Deadlines ----

/// What a fired deadline of `boons` means: its own clocks (`choose`,
/// `describe`, `create`), a Boon another rule bestows (`due`), or the news of a
/// hearing (`posted`, `called`, `bogus`, `cool`).
pub(super) fn on_deadline(tx: &mut BoonsTx<'_>, deadline: &Deadline, tick: &Tick) {
    let Some(rest) = deadline
        .id
        .strip_prefix(TAG)
        .and_then(|r| r.strip_prefix(':'))
    else {
        return;
    };
    let mut parts = rest.split(':');
    let verb = parts.next().unwrap_or_default();
    // Rule 1211 has left effect: nothing of it happens any more.
    if tx.state().ended.is_some() {
        return;
    }
    // Held: the game's own clocks stand still (they are set again, moved, at
    // the ruling); what another game hands over waits for it.
    if tx.state().held_since.is_some() {
        if !OWN_CLOCKS.contains(&verb) {
            tx.record(Event::Deferred {
                deadline: deadline.clone(),
            });
        }
        return;
    }
    if verb == "due" {
        return due_by_rule(tx, deadline, parts.next(), tick.entropy);
    }
    let Some(number) = parts.next().and_then(|n| n.parse::<u32>().ok()) else {
        return;
    };
    let description = parts.next().and_then(|n| n.parse::<u32>().ok());
    let Some(stage) = tx.state().get(number).map(|b| b.stage.clone()) else {
        return;
    };
    match (verb, stage) {
        ("choose", Stage::Choosing { .. }) => lapse(tx, number, Lapse::NoChoice),
        ("describe", Stage::Describing { .. }) => lapse(tx, number, Lapse::NoDescription),
        // §7: "7 days after their description is posted, or when the results of
        // a Bogusity Hearing [...] are publically knowable, whichever is later".
        (
            "create",
            Stage::Described {
                hearing_open: false,
                text,
                ..
            },
        ) => create(tx, number, &text, tick.entropy),
        ("posted", Stage::Described { .. }) => {
            if let Some(description) = description {
                tx.record(Event::Posted {
                    number,
                    description,
                });
            }
        }
        ("called", Stage::Described { .. }) => tx.record(Event::HearingCalled { number }),
        ("bogus", Stage::Described { .. }) => {
            tx.record(Event::Heard {
                number,
                bogus: true,
            });
            lapse(tx, number, Lapse::Bogus);
        }
        (
            "cool",
            Stage::Described {
                create_at, text, ..
            },
        ) => {
            tx.record(Event::Heard {
                number,
                bogus: false,
            });
            if tx.at() >= create_at {
                create(tx, number, &text, tick.entropy);
            }
        }
        _ => {}
    }
}

/// The deadlines the game sets itself, from its state.
const OWN_CLOCKS: [&str; 3] = ["choose", "describe", "create"];

/// A Boon another rule bestows, set on the schedule by that rule's game:
/// `boons:due:METHOD:…`, `who` the player, `what` the reason.
fn due_by_rule(tx: &mut BoonsTx<'_>, deadline: &Deadline, method: Option<&str>, entropy: [u8; 32]) {
    let method = match method {
        Some("deterministic") => Method::Deterministic,
        // §2: no method said is the random method.
        _ => Method::Random,
    };
    let Some(player) = deadline
        .who
        .and_then(|id| tx.view().players.by_id(id))
        .filter(|p| p.is_active())
        .cloned()
    else {
        return;
    };
    let _number = fall_due(tx, &player, method, &deadline.what, entropy);
}

/// A player who leaves the nomic receives no Boon still on its way.
pub(super) fn standing_changed(tx: &mut BoonsTx<'_>, change: &Standing) {
    if let Standing::Left(id) = *change {
        let numbers: Vec<u32> = tx.state().of_player(id).map(|b| b.number).collect();
        for number in numbers {
            lapse(tx, number, Lapse::PlayerLeft);
        }
    }
}

// ---- §9 a, b: the particular kinds and their instance limits ----

/// The kinds a Boon draws among, each with its limit and the instances that
/// exist, for the answers and announcements.
fn kinds_json(tx: &BoonsTx<'_>, boon: &Boon) -> Vec<serde_json::Value> {
    kinds_table(&list::kinds_of(boon, &kinds(tx)), tx.view(), tx.params())
}

fn kinds_table(kinds: &[Kind], view: View<'_>, params: &Params) -> Vec<serde_json::Value> {
    kinds
        .iter()
        .map(|kind| {
            json!({
                "entity": kind.entity, "name": kind.name, "limit": kind.limit,
                "instances": list::instances(kind, view.inventory, &params.list),
                "under_limit": list::under_limit(kind, view.inventory, &params.list),
            })
        })
        .collect()
}

/// A moderator's `limit ENTITY: KIND to N|none because REASON`: sets the
/// instance limit of a particular Gadget or Otzma Card, or adds the kind. The
/// entity must be one a Boon of the list draws a kind of; instances that
/// already exist are left as they are, a limit below them only stops the draw.
pub(super) fn set_limit(
    tx: &mut BoonsTx<'_>,
    entity: &str,
    name: &str,
    limit: Option<u32>,
    because: &str,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    if !tx.view().is_moderator(&ctx.sender) {
        return Err(Sentence::new("moderators_only").into());
    }
    let drawn: Vec<String> = tx
        .params()
        .list
        .iter()
        .filter(|b| b.draws_a_kind())
        .map(|b| b.entity.clone())
        .fold(Vec::new(), |mut entities, e| {
            if !entities.iter().any(|k: &String| k.eq_ignore_ascii_case(&e)) {
                entities.push(e);
            }
            entities
        });
    let Some(entity) = drawn
        .iter()
        .find(|e| e.eq_ignore_ascii_case(entity))
        .cloned()
    else {
        return Err(Sentence::new("boons_no_such_entity")
            .arg("entity", entity)
            .arg("entities", drawn.join(", "))
            .into());
    };
    let before = kinds(tx).into_iter().find(|k| {
        k.entity.eq_ignore_ascii_case(&entity) && k.name.trim().eq_ignore_ascii_case(name)
    });
    tx.record(Event::KindLimited {
        entity: entity.clone(),
        name: name.to_owned(),
        limit,
        officer: ctx.signature(),
        because: because.to_owned(),
    });
    let kind = Kind {
        entity: entity.clone(),
        name: name.to_owned(),
        limit,
    };
    let instances = list::instances(&kind, tx.view().inventory, &tx.params().list);
    let values = json!({
        "officer": ctx.signature(), "entity": entity, "name": name, "limit": limit,
        "known": before.is_some(), "before": before.and_then(|k| k.limit),
        "instances": instances, "reason": because, "at": human_time(tx.at()),
    });
    tx.mail(Mail::new(Audience::List, TAG, "boons_kind", values));
    Ok(Sentence::new("boons_kind_set")
        .arg("entity", &entity)
        .arg("name", name)
        .arg("limit", limit)
        .arg("instances", instances))
}

/// `state boons`: the Boons on their way, and under `kinds` every particular
/// kind in force with its limit, its instances and whether one more may be
/// bestowed (§9 a, b).
pub(super) fn view_with_kinds(
    state: &State,
    view: &View<'_>,
    params: &Params,
) -> serde_json::Value {
    let mut shown = serde_json::to_value(state).unwrap_or(serde_json::Value::Null);
    let in_force = list::kinds_in_force(&params.kinds, &state.kinds_set);
    if let Some(object) = shown.as_object_mut() {
        object.insert(
            "kinds".to_owned(),
            serde_json::Value::from(kinds_table(&in_force, *view, params)),
        );
    }
    shown
}

// ---- status ----

pub(super) fn status(tx: &BoonsTx<'_>) -> Sentence {
    let pending: Vec<serde_json::Value> = tx.state().pending.iter().map(pending_json).collect();
    Sentence::new("boons_status").arg("pending", pending)
}

fn pending_json(b: &Bestowal) -> serde_json::Value {
    let (stage, boon, until, description) = match &b.stage {
        Stage::Choosing { until } => ("choosing", None, Some(human_time(*until)), None),
        Stage::Describing { boon, until } => (
            "describing",
            Some(boon.entity.clone()),
            Some(human_time(*until)),
            None,
        ),
        Stage::Described {
            boon,
            create_at,
            description,
            hearing_open,
            ..
        } => (
            if *hearing_open {
                "hearing"
            } else {
                "described"
            },
            Some(boon.entity.clone()),
            Some(human_time(*create_at)),
            *description,
        ),
    };
    json!({
        "number": b.number, "player": b.name, "method": b.method.word(),
        "stage": stage, "boon": boon, "until": until, "description": description,
    })
}

// ---- Issue 22: rule 1211 changes ----

/// Refuses a command that applies rule 1211 while it is held or has left
/// effect, with a sentence saying which.
pub(super) fn in_effect(tx: &BoonsTx<'_>) -> Result<(), Refusal> {
    let rule = tx.params().rule;
    if let Some(why) = &tx.state().ended {
        return Err(Sentence::new("boons_rule_ended")
            .arg("rule", rule)
            .arg("why", why)
            .into());
    }
    if tx.state().held_since.is_some() {
        return Err(Sentence::new("boons_rule_held").arg("rule", rule).into());
    }
    Ok(())
}

/// What the bot follows of rule 1211 changed: the game ends when the rule left
/// effect, its clocks stand still while it is held, and run again (with the
/// time they had left) when a moderator rules or the rule is followed again.
pub(super) fn rule_changed(tx: &mut BoonsTx<'_>) {
    let rule = tx.params().rule;
    let now = Bound::of(&tx.view(), tx.params()).now();
    match now {
        Now::Stopped(why) => {
            if tx.state().ended.is_none() {
                end(tx, rule, &why);
            }
        }
        Now::Held(difference) => {
            if tx.state().ended.is_none() && tx.state().held_since.is_none() {
                tx.record(Event::Held {
                    rule,
                    difference: difference.clone(),
                });
                announce(tx, "held", rule, Some(&difference), json!([]));
            }
        }
        Now::Follows => {
            if tx.state().ended.is_some() {
                tx.record(Event::Restarted);
                announce(tx, "restarted", rule, None, json!([]));
            } else if tx.state().held_since.is_some() {
                resume(tx, rule);
            }
        }
    }
}

/// docs/rulings.md: every Boon on its way lapses (no Boon is bestowed by a rule
/// no longer in effect), its clocks cancelled; what was created stays.
fn end(tx: &mut BoonsTx<'_>, rule: u32, why: &str) {
    let numbers: Vec<u32> = tx.state().pending.iter().map(|b| b.number).collect();
    for number in &numbers {
        lapse(tx, *number, Lapse::RuleEnded);
    }
    tx.record(Event::Ended {
        rule,
        why: why.to_owned(),
    });
    announce(tx, "ended", rule, Some(why), json!(numbers));
}

/// The ruling came: each clock of the game still running when the hold began
/// is set again with the time it had left; what other games handed over
/// during the hold fires now.
fn resume(tx: &mut BoonsTx<'_>, rule: u32) {
    let deferred = tx.state().deferred.clone();
    let Some(since) = tx.state().held_since else {
        return;
    };
    tx.record(Event::Resumed);
    let mut moved = Vec::new();
    for bestowal in tx.state().pending.clone() {
        let (what, at, who, text) = match &bestowal.stage {
            Stage::Choosing { until } if bestowal.method == Method::Deterministic => (
                "choose",
                *until,
                Some(bestowal.player),
                format!(
                    "your choice of a Boon of the Ancients (Boon {})",
                    bestowal.number
                ),
            ),
            Stage::Describing { until, .. } => (
                "describe",
                *until,
                Some(bestowal.player),
                format!(
                    "your description of Boon of the Ancients {}",
                    bestowal.number
                ),
            ),
            Stage::Described { create_at, .. } => (
                "create",
                *create_at,
                None,
                format!("the creation of Boon of the Ancients {}", bestowal.number),
            ),
            Stage::Choosing { .. } => continue,
        };
        // A clock that ran out before the hold was handled then.
        if at <= since {
            continue;
        }
        schedule(
            tx,
            Deadline {
                id: deadline_id(what, bestowal.number),
                at,
                owner: TAG.to_owned(),
                who,
                what: text,
                remind: who.is_some(),
            },
        );
        moved.push(json!({"number": bestowal.number, "what": what, "until": human_time(at)}));
    }
    for deadline in deferred {
        schedule(
            tx,
            Deadline {
                at: tx.at(),
                ..deadline
            },
        );
    }
    announce(tx, "resumed", rule, None, json!(moved));
}

fn announce(
    tx: &mut BoonsTx<'_>,
    what: &str,
    rule: u32,
    why: Option<&str>,
    boons: serde_json::Value,
) {
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "boons_rule_changed",
        json!({
            "what": what, "rule": rule, "why": why, "boons": boons,
            "at": human_time(tx.at()),
        }),
    ));
}
