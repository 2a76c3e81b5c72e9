//! Rule 1217/7 carried out in the transaction: bury, write the map, disclose,
//! find, hand over, status; and the game's reactions to the shared world (a
//! holder on vacation or gone, entities destroyed). It judges no map's
//! conditions and never puts a map's text in a public mail before the find.

use num_traits::Zero;
use serde_json::json;
use sha2::{Digest, Sha256};

use super::{Buried, Command, End, Event, Finders, Map, Part, TAG, Treasure};
use crate::engine::Timestamp;
use crate::engine::accounts::{self, Holder, amount_human, parse_amount};
use crate::engine::calendar::{self, Deadline};
use crate::engine::game::{SharedEvent, Standing, Tx};
use crate::engine::inventory::{self, Owner};
use crate::engine::players::{Player, PlayerId};
use crate::engine::sealed::commitment_hash;
use crate::engine::{Audience, Ctx, Mail, Refusal, Sentence};

type TreasureTx<'a> = Tx<'a, Treasure>;

/// The Chartreuse Goose, as the inventory names its unique entity.
const GOOSE: &str = "Chartreuse Goose";

pub fn apply(tx: &mut TreasureTx<'_>, command: Command, ctx: &Ctx) -> Result<Sentence, Refusal> {
    let me = tx
        .view()
        .players
        .active_by_address(&ctx.sender)
        .cloned()
        .ok_or_else(|| {
            Refusal(Sentence::new("not_a_player").arg("address", ctx.sender.as_str()))
        })?;
    // A rule no longer in effect imposes nothing: no bury, map, disclosure or
    // find under it; what is buried stays so, and `status` still tells.
    if !matches!(command, Command::Status)
        && let Some(why) = super::bound::stopped(&tx.view(), tx.params())
    {
        return Err(refuse("treasure_rule_stopped")
            .arg("rule", tx.params().rule)
            .arg("why", why)
            .into());
    }
    match command {
        Command::Bury { parts, name } => bury(tx, ctx, &me, &parts, name),
        Command::Map { treasure, text } => map(tx, ctx, &me, &treasure, &text),
        Command::Disclose { treasure, part, to } => disclose(tx, &me, &treasure, part, &to),
        Command::Found { treasure, groups } => found(tx, ctx, &me, &treasure, &groups),
        Command::Hand { treasure } => hand(tx, &me, &treasure),
        Command::Status => Ok(status(tx)),
    }
}

fn refuse(code: &str) -> Sentence {
    Sentence::new(code)
}

/// "The Treasure must consist of one or more tradeable entities owned by that
/// player"; "Immediately after this announcement, the player ceases to own the
/// Treasure".
fn bury(
    tx: &mut TreasureTx<'_>,
    ctx: &Ctx,
    me: &Player,
    written: &[String],
    name: Option<String>,
) -> Result<Sentence, Refusal> {
    if !ctx.public {
        return Err(refuse("treasure_bury_private").into());
    }
    let number = tx.state().last_number + 1;
    let name = name.unwrap_or_else(|| format!("Treasure {number}"));
    if tx.state().find(&name).is_some() || tx.state().find_past(&name).is_some() {
        return Err(refuse("treasure_name_taken").arg("name", &name).into());
    }
    let reason = format!("rule 1217: buried as treasure {number} ({name})");
    let mut parts = Vec::new();
    let mut shown = Vec::new();
    for part in written {
        if let Some(id) = part
            .strip_prefix('#')
            .and_then(|n| n.trim().parse::<u32>().ok())
        {
            let entity = tx
                .view()
                .inventory
                .get(id)
                .cloned()
                .ok_or_else(|| Refusal(refuse("treasure_no_such_item").arg("item", part)))?;
            if entity.owner != Owner::Player(me.id) {
                return Err(refuse("treasure_not_yours").arg("item", part).into());
            }
            if !tx.setting().is_tradeable(&entity.kind) {
                return Err(refuse("treasure_untradeable")
                    .arg("what", format!("#{id} {}", entity.kind))
                    .arg("kind", &entity.kind)
                    .into());
            }
            tx.record_shared(SharedEvent::Inventory(inventory::Event::Transferred {
                id,
                to: Owner::Buried(number),
                reason: reason.clone(),
            }));
            shown.push(format!("#{id} {}", entity.kind));
            parts.push(Part::Item { id });
            continue;
        }
        let (amount, currency) = part
            .split_once(char::is_whitespace)
            .and_then(|(a, c)| Some((parse_amount(a)?, c.trim())))
            .ok_or_else(|| Refusal(refuse("treasure_what").arg("part", part)))?;
        // Untradeable money is refused as such, before any shortfall.
        if let Some(money) = tx.view().accounts.currency(currency)
            && !money.tradeable
        {
            return Err(refuse("treasure_untradeable")
                .arg("what", format!("{} {}", amount_human(&amount), money.name))
                .arg("kind", &money.name)
                .into());
        }
        let event = tx.view().accounts.transfer(
            Holder::Player(me.id),
            Holder::Buried(number),
            currency,
            &amount,
            &reason,
        )?;
        let accounts::Event::Transferred { currency, .. } = &event else {
            return Err(refuse("treasure_what").arg("part", part).into());
        };
        let currency = currency.clone();
        tx.record_shared(SharedEvent::Accounts(event));
        shown.push(format!("{} {currency}", amount_human(&amount)));
        parts.push(Part::Money {
            amount: accounts::amount_text(&amount),
            currency,
        });
    }
    tx.record(Event::Buried {
        number,
        name: name.clone(),
        writer: me.id,
        parts,
    });
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "treasure_buried",
        json!({"number": number, "name": name, "writer": me.name, "parts": shown}),
    ));
    Ok(refuse("treasure_buried")
        .arg("number", number)
        .arg("name", &name))
}

fn treasure(tx: &TreasureTx<'_>, written: &str) -> Result<Buried, Refusal> {
    if let Some(buried) = tx.state().find(written) {
        if buried.lost {
            return Err(refuse("treasure_lost").arg("name", &buried.name).into());
        }
        return Ok(buried.clone());
    }
    // "This action destroys the map": a later declaration finds no map.
    if let Some(past) = tx.state().find_past(written) {
        let (code, finder, when) = match &past.end {
            End::Found { finder, when, .. } => {
                ("treasure_found_already", name_of(tx, *finder), when.clone())
            }
            End::Empty { .. } => ("treasure_empty_already", String::new(), None),
        };
        return Err(refuse(code)
            .arg("name", &past.name)
            .arg("finder", finder)
            .arg("when", when)
            .into());
    }
    Err(refuse("treasure_unknown").arg("treasure", written).into())
}

fn name_of(tx: &TreasureTx<'_>, id: PlayerId) -> String {
    tx.view()
        .players
        .by_id(id)
        .map_or_else(|| format!("player {id}"), |p| p.name.clone())
}

fn writer_only(treasure: &Buried, me: &Player) -> Result<(), Refusal> {
    if treasure.writer != me.id {
        return Err(refuse("treasure_not_writer")
            .arg("name", &treasure.name)
            .into());
    }
    Ok(())
}

/// "A player who buries Treasure must write a Treasure Map": privately, sealed
/// by a commitment the list sees at once.
fn map(
    tx: &mut TreasureTx<'_>,
    ctx: &Ctx,
    me: &Player,
    written: &str,
    text: &str,
) -> Result<Sentence, Refusal> {
    if ctx.public {
        return Err(refuse("treasure_map_public").into());
    }
    let buried = treasure(tx, written)?;
    writer_only(&buried, me)?;
    if buried.map.is_some() {
        return Err(refuse("treasure_map_written")
            .arg("name", &buried.name)
            .into());
    }
    // The salt must be unguessable, or anyone could hash likely maps and
    // read this one off its commitment.
    let mut hasher = Sha256::new();
    hasher.update(ctx.entropy);
    hasher.update(format!("treasure:{}", buried.number).as_bytes());
    let salt_hex = hex(&hasher.finalize());
    let commitment = commitment_hash(&salt_hex, &me.name, text);
    tx.record(Event::MapWritten {
        number: buried.number,
        map: Map {
            text: text.to_owned(),
            salt_hex,
            commitment: commitment.clone(),
        },
    });
    // The step of a secret command sends nothing to the list, so the
    // commitment goes out from a deadline due at once.
    tx.record_shared(SharedEvent::Schedule(calendar::Event::Scheduled {
        deadline: Deadline {
            id: format!("treasure:map:{}", buried.number),
            at: ctx.now,
            owner: TAG.to_owned(),
            who: None,
            what: format!("the commitment of the map of {}", buried.name),
            remind: false,
        },
    }));
    Ok(refuse("treasure_map_kept").arg("name", &buried.name))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// "The map writer is free to disclose all, part, or none of the map publically
/// or privately at any time".
fn disclose(
    tx: &mut TreasureTx<'_>,
    me: &Player,
    written: &str,
    part: Option<String>,
    to: &[String],
) -> Result<Sentence, Refusal> {
    let buried = treasure(tx, written)?;
    writer_only(&buried, me)?;
    let map = buried
        .map
        .clone()
        .ok_or_else(|| Refusal(refuse("treasure_no_map").arg("name", &buried.name)))?;
    let text = match part {
        Some(part) if !map.text.contains(&part) => {
            return Err(refuse("treasure_not_in_map").arg("part", &part).into());
        }
        Some(part) => part,
        None => map.text.clone(),
    };
    let whole = text == map.text;
    let values = json!({"number": buried.number, "name": buried.name, "writer": me.name,
                        "text": text, "whole": whole});
    if to.is_empty() {
        tx.mail(Mail::new(Audience::List, TAG, "treasure_disclosed", values));
        return Ok(refuse("treasure_disclosed_list").arg("name", &buried.name));
    }
    let mut names = Vec::new();
    let mut addresses = Vec::new();
    for name in to {
        let player = tx
            .view()
            .players
            .by_name(name)
            .cloned()
            .ok_or_else(|| Refusal(refuse("treasure_no_player").arg("player", name)))?;
        names.push(player.name.clone());
        addresses.push(player.address.clone());
    }
    for address in addresses {
        tx.mail(Mail::new(
            Audience::Address(address),
            TAG,
            "treasure_disclosed",
            values.clone(),
        ));
    }
    Ok(refuse("treasure_disclosed_to")
        .arg("name", &buried.name)
        .arg("players", names.join(", ")))
}

/// "This action destroys the map, and the player who achieved the conditions
/// receives the Treasure".
fn found(
    tx: &mut TreasureTx<'_>,
    ctx: &Ctx,
    me: &Player,
    written: &str,
    groups: &[Finders],
) -> Result<Sentence, Refusal> {
    let buried = treasure(tx, written)?;
    // "it is a duty of the map writer or a map custodian".
    if buried.writer != me.id && !buried.is_custodian(me.id) {
        return Err(refuse("treasure_not_writer")
            .arg("name", &buried.name)
            .into());
    }
    let map = buried
        .map
        .clone()
        .ok_or_else(|| Refusal(refuse("treasure_no_map").arg("name", &buried.name)))?;
    let mut resolved: Vec<(Vec<Player>, Option<Timestamp>, Option<String>)> = Vec::new();
    for group in groups {
        let mut players = Vec::new();
        for name in &group.names {
            let player = any_player(tx, name)
                .ok_or_else(|| Refusal(refuse("treasure_no_player").arg("player", name)))?;
            // "Any player responsible for announcing that another player has
            // achieved the conditions will not do so in the case of a map
            // custodian".
            if buried.is_custodian(player.id) {
                return Err(refuse("treasure_custodian_finder")
                    .arg("player", &player.name)
                    .arg("name", &buried.name)
                    .into());
            }
            players.push(player);
        }
        let at = group.when.as_deref().and_then(|w| when_of(w, ctx.now));
        resolved.push((players, at, group.when.clone()));
    }
    // "In the case of multiple players achieving the conditions before the map
    // is destroyed, the first to achieve it finds the Treasure": with several
    // WHENs, the earliest.
    if resolved.len() > 1
        && let Some((_, _, when)) = resolved.iter().find(|(_, at, _)| at.is_none())
    {
        return Err(refuse("treasure_when_unclear")
            .arg("when", when.clone().unwrap_or_default())
            .into());
    }
    let first = resolved.iter().filter_map(|(_, at, _)| *at).min();
    let when = resolved
        .iter()
        .find(|(_, at, _)| *at == first)
        .and_then(|(_, _, when)| when.clone());
    let mut eligible = Vec::new();
    for (players, at, _) in &resolved {
        if *at != first {
            continue;
        }
        for player in players {
            if !eligible.iter().any(|p: &Player| p.id == player.id) {
                eligible.push(player.clone());
            }
        }
    }
    let finders: Vec<String> = eligible.iter().map(|p| p.name.clone()).collect();
    let later: Vec<serde_json::Value> = resolved
        .iter()
        .filter(|(_, at, _)| *at != first)
        .map(|(players, _, when)| {
            json!({"names": players.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", "),
                   "when": when})
        })
        .collect();
    // "If the condition is achieved simultaneously by 2 or more players, the
    // finder is determined at random by the Officer in charge of Random
    // Things. All such players shall be eligible [...], even non-active ones."
    let mut drawn = None;
    let finder = if eligible.len() > 1 {
        let purpose = format!(
            "the finder of treasure {} among {}",
            buried.number,
            eligible
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        );
        let n = u32::try_from(eligible.len()).unwrap_or(u32::MAX);
        let (index, draw) = draw(tx, ctx.entropy, &purpose, n)
            .ok_or_else(|| Refusal(refuse("treasure_no_draw")))?;
        drawn = Some(draw);
        eligible.swap_remove(index.min(eligible.len() - 1))
    } else {
        eligible
            .pop()
            .ok_or_else(|| Refusal(refuse("treasure_no_player").arg("player", "")))?
    };
    let reason = format!(
        "rule 1217: found treasure {} ({})",
        buried.number, buried.name
    );
    let mut shown = Vec::new();
    for part in &buried.parts {
        match part {
            Part::Item { id } => {
                // Only what is still buried: a moderator may have moved an
                // item out since (`Unowned`: buried before treasures owned
                // their items).
                let Some(entity) = tx.view().inventory.get(*id).cloned().filter(|e| {
                    e.owner == Owner::Buried(buried.number) || e.owner == Owner::Unowned
                }) else {
                    continue;
                };
                tx.record_shared(SharedEvent::Inventory(inventory::Event::Transferred {
                    id: *id,
                    to: Owner::Player(finder.id),
                    reason: reason.clone(),
                }));
                shown.push(format!("#{id} {}", entity.kind));
            }
            Part::Money { amount, currency } => {
                let Some(amount) = parse_amount(amount) else {
                    continue;
                };
                let accounts = tx.view().accounts;
                let held = Holder::Buried(buried.number);
                // A treasure buried before buried money had its own account
                // holds it nowhere: the finder is paid it back into existence.
                let event = if accounts.balance(held, currency) >= amount {
                    accounts.transfer(
                        held,
                        Holder::Player(finder.id),
                        currency,
                        &amount,
                        &reason,
                    )?
                } else {
                    accounts.pay_from_nowhere(
                        Holder::Player(finder.id),
                        currency,
                        &amount,
                        &reason,
                    )?
                };
                tx.record_shared(SharedEvent::Accounts(event));
                shown.push(format!("{} {currency}", amount_human(&amount)));
            }
        }
    }
    // "when this happens, the Chartreuse Goose is transferred to the map
    // writer from wherever it is."
    let mut goose = None;
    if finder.id == buried.writer
        && let Some(entity) = the_goose(tx)
    {
        if entity.owner != Owner::Player(finder.id) {
            tx.record_shared(SharedEvent::Inventory(inventory::Event::Transferred {
                id: entity.id,
                to: Owner::Player(finder.id),
                reason: "rule 1217: the map writer found eir own treasure".to_owned(),
            }));
        }
        goose = Some(entity.id);
    }
    tx.record(Event::Found {
        number: buried.number,
        finder: finder.id,
        when: when.clone(),
    });
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "treasure_found",
        json!({"number": buried.number, "name": buried.name, "writer": me.name,
               "finder": finder.name, "when": when, "parts": shown,
               "map": map.text, "salt": map.salt_hex, "commitment": map.commitment,
               "own": finder.id == buried.writer, "goose": goose,
               "draw": drawn, "among": finders, "later": later}),
    ));
    Ok(refuse("treasure_found")
        .arg("name", &buried.name)
        .arg("finder", &finder.name))
}

/// When a finder achieved the conditions, read from the declaration's "at
/// WHEN", in UTC: "2026-03-02 14:00", "2026-03-02T14:00:00Z", "2026-03-02",
/// or "14:00" (of the declaration's day), with "today" or "UTC" allowed.
fn when_of(written: &str, now: Timestamp) -> Option<Timestamp> {
    let cleaned = written
        .split_whitespace()
        .filter(|w| !matches!(w.to_ascii_lowercase().as_str(), "today" | "utc" | "on"))
        .collect::<Vec<_>>()
        .join(" ");
    if let Ok(at) = cleaned.parse::<Timestamp>() {
        return Some(at);
    }
    let utc = |dt: jiff::civil::DateTime| dt.to_zoned(jiff::tz::TimeZone::UTC).ok();
    if let Ok(dt) = cleaned.parse::<jiff::civil::DateTime>() {
        return utc(dt).map(|z| z.timestamp());
    }
    if let Ok(date) = cleaned.parse::<jiff::civil::Date>() {
        return utc(date.to_datetime(jiff::civil::Time::midnight())).map(|z| z.timestamp());
    }
    if let Ok(time) = cleaned.parse::<jiff::civil::Time>() {
        let today = now.to_zoned(jiff::tz::TimeZone::UTC).date();
        return utc(today.to_datetime(time)).map(|z| z.timestamp());
    }
    None
}

fn parts_text(tx: &TreasureTx<'_>, parts: &[Part]) -> String {
    let view = tx.view();
    parts
        .iter()
        .map(|p| match p {
            Part::Item { id } => view.inventory.get(*id).map_or_else(
                || format!("#{id} (destroyed)"),
                |e| format!("#{id} {}", e.kind),
            ),
            Part::Money { amount, currency } => format!("{amount} {currency}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every treasure, buried or not, with its writer and custodians: never a
/// map's text.
fn status(tx: &TreasureTx<'_>) -> Sentence {
    let names = |ids: &[PlayerId]| {
        ids.iter()
            .map(|id| name_of(tx, *id))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut treasures: Vec<_> = tx
        .state()
        .buried
        .iter()
        .map(|t| {
            let state = if t.lost {
                "lost"
            } else if t.map.is_some() {
                "buried"
            } else {
                "unmapped"
            };
            json!({"number": t.number, "name": t.name, "writer": name_of(tx, t.writer),
                   "parts": parts_text(tx, &t.parts), "mapped": t.map.is_some(),
                   "state": state, "custodians": names(&t.custodians),
                   "holder": name_of(tx, t.holder())})
        })
        .collect();
    treasures.extend(tx.state().past.iter().map(|t| {
        let (state, finder, when) = match &t.end {
            End::Found { finder, when, .. } => ("found", name_of(tx, *finder), when.clone()),
            End::Empty { .. } => ("empty", String::new(), None),
        };
        json!({"number": t.number, "name": t.name, "writer": name_of(tx, t.writer),
               "parts": parts_text(tx, &t.parts), "mapped": true, "state": state,
               "custodians": names(&t.custodians), "finder": finder, "when": when})
    }));
    treasures.sort_by_key(|t| t["number"].as_u64());
    Sentence::new("treasure_status").arg("treasures", treasures)
}

/// Standing changes: "Whenever a map writer goes on vacation, or leaves the
/// game, they should give the map to the Treasure-Harfer"; "It is possible,
/// and acceptable, for a map to be permanently or temporarily lost because of
/// players leaving the game."
pub fn standing_changed(tx: &mut TreasureTx<'_>, change: &Standing) {
    match *change {
        Standing::Vacation(id) => {
            let held: Vec<Buried> = tx
                .state()
                .buried
                .iter()
                .filter(|t| !t.lost && t.map.is_some() && t.holder() == id)
                .cloned()
                .collect();
            let Some(player) = tx.view().players.by_id(id).cloned() else {
                return;
            };
            for t in held {
                tx.mail(Mail::new(
                    Audience::Address(player.address.clone()),
                    TAG,
                    "treasure_reminder",
                    json!({"number": t.number, "name": t.name, "player": player.name}),
                ));
            }
        }
        Standing::Left(id) => {
            let players = tx.view().players;
            let in_game = |p: PlayerId| {
                players
                    .by_id(p)
                    .is_some_and(|player| player.left_at.is_none())
            };
            let lost: Vec<Buried> = tx
                .state()
                .buried
                .iter()
                .filter(|t| !t.lost && t.holders().any(|h| h == id))
                .filter(|t| !t.holders().any(in_game))
                .cloned()
                .collect();
            for t in lost {
                tx.record(Event::Lost { number: t.number });
                tx.mail(Mail::new(
                    Audience::List,
                    TAG,
                    "treasure_lost",
                    json!({"number": t.number, "name": t.name,
                           "player": name_of(tx, id), "parts": parts_text(tx, &t.parts)}),
                ));
            }
        }
        _ => {}
    }
}

/// "If a Treasure ever contains 0 or less buried entities, the Map for that
/// Treasure is destroyed": checked whenever another rule destroys entities.
pub fn entities_gone(tx: &mut TreasureTx<'_>, ids: &[u32]) {
    let view = tx.view();
    let emptied: Vec<Buried> = tx
        .state()
        .buried
        .iter()
        .filter(|t| {
            t.parts
                .iter()
                .any(|p| matches!(p, Part::Item { id } if ids.contains(id)))
        })
        .filter(|t| {
            t.parts.iter().all(|p| match p {
                Part::Item { id } => view.inventory.get(*id).is_none(),
                Part::Money { currency, .. } => view
                    .accounts
                    .balance(Holder::Buried(t.number), currency)
                    .is_zero(),
            })
        })
        .cloned()
        .collect();
    for t in emptied {
        tx.record(Event::Emptied { number: t.number });
        tx.mail(Mail::new(
            Audience::List,
            TAG,
            "treasure_emptied",
            json!({"number": t.number, "name": t.name, "writer": name_of(tx, t.writer),
                   "parts": parts_text(tx, &t.parts)}),
        ));
    }
}

/// A map's deadline fired: the list is told its commitment.
pub fn publish_commitment(tx: &mut TreasureTx<'_>, deadline: &Deadline) {
    let Some(number) = deadline
        .id
        .strip_prefix("treasure:map:")
        .and_then(|n| n.parse::<u32>().ok())
    else {
        return;
    };
    let Some(buried) = tx.state().find(&number.to_string()).cloned() else {
        return;
    };
    let Some(map) = &buried.map else {
        return;
    };
    let writer = tx
        .view()
        .players
        .by_id(buried.writer)
        .map_or_else(|| format!("player {}", buried.writer), |p| p.name.clone());
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "treasure_map_sealed",
        json!({"number": buried.number, "name": buried.name, "writer": writer,
               "commitment": map.commitment}),
    ));
}

/// The Chartreuse Goose: the unique one the Boons bestow, or one a moderator
/// created by hand (which the inventory does not mark unique).
fn the_goose(tx: &TreasureTx<'_>) -> Option<inventory::Entity> {
    let inventory = tx.view().inventory;
    inventory.unique(GOOSE).cloned().or_else(|| {
        inventory
            .entities
            .iter()
            .find(|e| e.kind.eq_ignore_ascii_case(GOOSE))
            .cloned()
    })
}

/// A player by name, active or not: a finder need not be active.
fn any_player(tx: &TreasureTx<'_>, name: &str) -> Option<Player> {
    let players = tx.view().players;
    players.by_name(name).cloned().or_else(|| {
        players
            .players
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(name.trim()))
            .map(|p| Player::clone(p))
    })
}

/// One draw below `n` by the random officer, in the running period or in one
/// opened (and, after the draw, closed) for it; with what the announcement
/// shows of it.
fn draw(
    tx: &mut TreasureTx<'_>,
    entropy: [u8; 32],
    purpose: &str,
    n: u32,
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
    let (result, event) = random.below(n, purpose, tx.at()).ok()?;
    tx.record_shared(SharedEvent::Random(event));
    if opened && let Ok(end) = tx.view().random.end_period() {
        tx.record_shared(SharedEvent::Random(end));
        let revealed = tx.view().random.past.last().map(|r| r.revealed_mail(TAG));
        tx.mail_all(revealed);
    }
    let result = result as usize;
    Some((
        result,
        json!({"label": label, "index": index, "result": result, "purpose": purpose}),
    ))
}

/// "Whenever a map writer goes on vacation, or leaves the game, they should
/// give the map to the Treasure-Harfer (or acting Treasure-Harfer), who becomes
/// the map custodian".
fn hand(tx: &mut TreasureTx<'_>, me: &Player, written: &str) -> Result<Sentence, Refusal> {
    let buried = treasure(tx, written)?;
    if buried.holder() != me.id {
        return Err(refuse("treasure_not_holder")
            .arg("name", &buried.name)
            .into());
    }
    let map = buried
        .map
        .clone()
        .ok_or_else(|| Refusal(refuse("treasure_no_map").arg("name", &buried.name)))?;
    let to = harfer(tx, &buried, me).ok_or_else(|| Refusal(refuse("treasure_no_harfer")))?;
    tx.record(Event::Handed {
        number: buried.number,
        to: to.id,
    });
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "treasure_handed",
        json!({"number": buried.number, "name": buried.name, "from": me.name,
               "to": to.name}),
    ));
    // The custodian must know the conditions to declare a find.
    tx.mail(Mail::new(
        Audience::Address(to.address.clone()),
        TAG,
        "treasure_custody",
        json!({"number": buried.number, "name": buried.name, "from": me.name,
               "to": to.name, "map": map.text}),
    ));
    Ok(refuse("treasure_handed")
        .arg("name", &buried.name)
        .arg("to", &to.name))
}

/// Who takes a map: the Treasure-Harfer of the registry's offices, else the
/// acting Treasure-Harfer (the office of that name), else, the office being
/// vacant, a moderator who plays; an active player in each case (not on
/// vacation: "Upon the Treasure-Harfer going on vacation, they should give the
/// map to the acting Treasure-Harfer"), never the one handing it over nor its
/// writer.
fn harfer(tx: &TreasureTx<'_>, buried: &Buried, me: &Player) -> Option<Player> {
    let view = tx.view();
    let now = tx.at();
    [super::HARFER, super::ACTING_HARFER]
        .iter()
        .flat_map(|office| view.officers.holders_of(office))
        .chain(view.officers.moderators.iter().cloned())
        .filter_map(|address| view.players.active_by_address(&address).cloned())
        .filter(|p| p.is_active_at(now))
        .find(|p| p.id != me.id && p.id != buried.writer)
}

/// `state treasure` for a person: every treasure, what it holds, who holds
/// its map, how it ended; never a map's text.
pub fn state_text(state: &super::State, view: &crate::engine::game::View<'_>) -> String {
    let name = |id: PlayerId| {
        view.players
            .by_id(id)
            .map_or_else(|| format!("player {id}"), |p| p.name.clone())
    };
    let names = |ids: &[PlayerId]| {
        ids.iter()
            .map(|id| name(*id))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let parts = |parts: &[Part]| {
        parts
            .iter()
            .map(|p| match p {
                Part::Item { id } => view.inventory.get(*id).map_or_else(
                    || format!("#{id} (destroyed)"),
                    |e| format!("#{id} {}", e.kind),
                ),
                Part::Money { amount, currency } => format!("{amount} {currency}"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut lines = Vec::new();
    for t in &state.buried {
        let how = if t.lost {
            "its map lost: buried for good".to_owned()
        } else if let Some(map) = &t.map {
            format!(
                "buried, its map held by {} (commitment {})",
                name(t.holder()),
                map.commitment
            )
        } else {
            "buried, no map yet".to_owned()
        };
        lines.push((
            t.number,
            format!(
                "Treasure {}: {}, buried by {}: {}{}; {how}",
                t.number,
                t.name,
                name(t.writer),
                parts(&t.parts),
                if t.custodians.is_empty() {
                    String::new()
                } else {
                    format!("; custodians {}", names(&t.custodians))
                },
            ),
        ));
    }
    for t in &state.past {
        let how = match &t.end {
            End::Found { finder, when, .. } => format!(
                "found by {}{}, its map published and destroyed",
                name(*finder),
                when.as_ref().map(|w| format!(" ({w})")).unwrap_or_default()
            ),
            End::Empty { .. } => {
                "empty, every entity destroyed by other rules, its map destroyed".to_owned()
            }
        };
        lines.push((
            t.number,
            format!(
                "Treasure {}: {}, buried by {}: {}{}; {how}",
                t.number,
                t.name,
                name(t.writer),
                parts(&t.parts),
                if t.custodians.is_empty() {
                    String::new()
                } else {
                    format!("; custodians {}", names(&t.custodians))
                },
            ),
        ));
    }
    lines.sort_by_key(|(number, _)| *number);
    if lines.is_empty() {
        return "No treasure was ever buried.\n".to_owned();
    }
    lines.into_iter().map(|(_, line)| line + "\n").collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finders_when_reads_as_a_utc_time_comparable_with_another() {
        let now: Timestamp = "2026-03-02T15:00:00Z".parse().expect("a time");
        let at = |w: &str| when_of(w, now).map(|t| t.to_string());
        assert_eq!(
            at("2026-03-02 14:00").as_deref(),
            Some("2026-03-02T14:00:00Z")
        );
        assert_eq!(at("14:00 today").as_deref(), Some("2026-03-02T14:00:00Z"));
        assert_eq!(
            at("2026-03-02T13:30:00Z").as_deref(),
            Some("2026-03-02T13:30:00Z")
        );
        assert_eq!(at("2026-03-01").as_deref(), Some("2026-03-01T00:00:00Z"));
        assert_eq!(at("dawn"), None);
    }
}
