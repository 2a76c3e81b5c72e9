//! Unit tests of `[boons]`, played on `games::table::Table` through the router
//! and the deadline driver, as the pipeline plays it. One scenario per section
//! of rule 1211, named after it, then the cheats a player might try.

use std::sync::Arc;

use jiff::SignedDuration;

use super::*;
use crate::engine::accounts::{Currency, Exactness, Holder};
use crate::engine::calendar::{self, Calendar};
use crate::engine::game::{NoWords, Officers};
use crate::engine::inventory::{Entity, Owner};
use crate::engine::random::{self, RandomOfficer};
use crate::engine::{Address, Mail, Status, players};
use crate::games::boons::list;
use crate::games::table::Table;
use crate::games::{GameParams, World};

const MODERATOR: &str = "mod@x.org";
const ALICE: &str = "alice@x.org";
const BOB: &str = "bob@x.org";
const CAROL: &str = "carol@x.org";
const DAVE: &str = "dave@x.org";

fn t0() -> Timestamp {
    "2026-03-02T09:00:00Z".parse().unwrap()
}

fn hours(n: i64) -> Timestamp {
    t0().checked_add(SignedDuration::from_hours(n)).unwrap()
}

fn table_with(params: Params, hearing_days: u32) -> Table {
    let mut world = World::default();
    Arc::make_mut(&mut world.shared.accounts).currencies = vec![
        Currency::new("points", &["point"], Exactness::Integer),
        Currency::new("A$", &["a$"], Exactness::Integer),
    ];
    let params = crate::games::Params::new(
        players::Params::default(),
        Officers {
            moderators: vec![Address::new(MODERATOR)],
            ..Officers::default()
        },
        Calendar::default(),
        Arc::new(NoWords),
        GameParams {
            boons: params,
            // The hearings' game is reached as the shell reaches it: by its
            // section of bot.toml, never by its types.
            ..GameParams::from_config(
                &toml::from_str(&format!("[bogusity]\nhearing_days = {hearing_days}")).unwrap(),
            )
            .unwrap()
        },
    );
    let mut table = Table::new(world, params);
    for name in ["Alice", "Bob", "Carol", "Dave"] {
        let from = format!("{}@x.org", name.to_lowercase());
        table.send(t0(), &from, true, "nomic", &format!("join {name}"));
    }
    table
}

fn fresh() -> Table {
    table_with(Params::default(), 3)
}

/// One line: the sentence code, `Ok` when done.
fn run(
    table: &mut Table,
    at: Timestamp,
    from: &str,
    tag: &str,
    line: &str,
) -> Result<String, String> {
    table.send(at, from, true, tag, line);
    let report = &table.last[0];
    match report.status {
        Status::Done => Ok(report.sentence.code.clone()),
        _ => Err(report.sentence.code.clone()),
    }
}

fn boons(table: &mut Table, at: Timestamp, from: &str, line: &str) -> Result<String, String> {
    run(table, at, from, TAG, line)
}

fn state(table: &Table) -> Arc<State> {
    table.state::<Boons>()
}

fn templates(mail: &[Mail]) -> Vec<&str> {
    mail.iter().map(|m| m.template.as_str()).collect()
}

fn owned(table: &Table, player: u32) -> Vec<Entity> {
    table
        .world
        .inventory
        .owned_by(&Owner::Player(player))
        .cloned()
        .collect()
}

fn lapses(table: &Table) -> Vec<Lapse> {
    table
        .events
        .iter()
        .filter_map(|(_, _, e)| match e {
            crate::games::Event::Boons(Event::Lapsed { lapse, .. }) => Some(*lapse),
            _ => None,
        })
        .collect()
}

/// Alice (player 1) receives a deterministic Boon at t0 + 1 h and chooses `key`
/// at t0 + 2 h.
fn chosen(table: &mut Table, key: &str) {
    boons(
        table,
        hours(1),
        MODERATOR,
        "bestow Alice deterministic because a test",
    )
    .unwrap();
    assert_eq!(
        boons(table, hours(2), ALICE, &format!("choose {key}")),
        Ok("boons_chose".into())
    );
}

/// The random periods as the log leaves them (the live state retires them).
fn periods(table: &Table) -> RandomOfficer {
    let mut officer = RandomOfficer::default();
    for (at, _, event) in &table.events {
        if let crate::games::Event::Random(event) = event {
            officer.apply_event(event, *at);
        }
    }
    officer
}

#[test]
fn section_1_and_2_a_boon_falls_due_when_a_rule_or_a_moderator_says_and_is_random_unless_said() {
    let mut table = fresh();
    // A forged bestowal: Alice is no moderator.
    assert_eq!(
        boons(&mut table, hours(1), ALICE, "bestow Alice because I say so"),
        Err("moderators_only".into())
    );
    assert!(state(&table).pending.is_empty() && state(&table).last_number == 0);
    // No method said: the random method (§2), drawn in the same step.
    let mark = table.mail.len();
    assert_eq!(
        boons(
            &mut table,
            hours(2),
            MODERATOR,
            "bestow Bob because a rule says so"
        ),
        Ok("boons_bestowed".into())
    );
    let due: Vec<Method> = table
        .events
        .iter()
        .filter_map(|(_, _, e)| match e {
            crate::games::Event::Boons(Event::Due { method, .. }) => Some(*method),
            _ => None,
        })
        .collect();
    assert_eq!(due, [Method::Random]);
    assert!(templates(table.mail_since(mark)).contains(&"boons_chosen"));
    // A rule's bestowal through the shared schedule (the Machine's correct
    // guess sets this deadline): it fires at its instant.
    let deadline = calendar::Deadline {
        id: "boons:due:random:test:1".into(),
        at: hours(3),
        owner: TAG.into(),
        who: Some(3),
        what: "a test rule".into(),
        remind: false,
    };
    table.record(
        hours(3),
        &[crate::games::Event::Schedule(calendar::Event::Scheduled {
            deadline,
        })],
    );
    table.run_until(hours(3));
    assert_eq!(state(&table).last_number, 2);
    let carol_chosen = table.events.iter().any(|(_, _, e)| {
        matches!(e, crate::games::Event::Boons(Event::Due { player: 3, because, .. }) if because == "a test rule")
    });
    assert!(carol_chosen);
}

#[test]
fn section_3_deterministic_the_player_has_3_days_to_choose_or_no_boon() {
    let mut table = fresh();
    boons(
        &mut table,
        hours(1),
        MODERATOR,
        "bestow Alice deterministic because a test",
    )
    .unwrap();
    boons(
        &mut table,
        hours(1),
        MODERATOR,
        "bestow Bob deterministically because a test",
    )
    .unwrap();
    // Bob cannot choose Alice's Boon.
    assert_eq!(
        boons(&mut table, hours(2), BOB, "choose #1 c"),
        Err("boons_not_yours".into())
    );
    assert_eq!(
        boons(&mut table, hours(2), ALICE, "choose z"),
        Err("boons_no_such_boon".into())
    );
    assert_eq!(
        boons(&mut table, hours(2), ALICE, "choose Bonus Vote"),
        Ok("boons_chose".into())
    );
    // Choosing twice: the first choice stands.
    assert_eq!(
        boons(&mut table, hours(3), ALICE, "choose h"),
        Err("boons_none_pending".into())
    );
    assert_eq!(owned(&table, 1).len(), 1);
    // Bob chooses after the three days: none is bestowed, and he is told so.
    let mark = table.mail.len();
    assert_eq!(
        boons(&mut table, hours(1 + 72), BOB, "choose h"),
        Err("boons_none_pending".into())
    );
    assert!(templates(table.mail_since(mark)).contains(&"boons_lapsed"));
    assert_eq!(lapses(&table), [Lapse::NoChoice]);
    assert!(owned(&table, 2).is_empty());
    assert!(table.world.inventory.unique("Chartreuse Goose").is_none());
}

#[test]
fn section_4_a_random_boon_is_drawn_by_the_officer_in_proportion_to_the_weights() {
    // Weights that sum to anything: only (b) can be drawn.
    let mut params = Params::default();
    for boon in &mut params.list {
        boon.weight = if boon.key == "c" { 3 } else { 0 };
    }
    let mut table = table_with(params, 3);
    let mark = table.mail.len();
    boons(
        &mut table,
        hours(1),
        MODERATOR,
        "bestow Dave because a test",
    )
    .unwrap();
    assert_eq!(owned(&table, 4)[0].kind, "Bonus Vote");
    // The draw in a period opened for it, its commitment mailed before the
    // draw and its seed after, so `verify-random` checks it.
    let sent = templates(table.mail_since(mark)).join(" ");
    let started = sent
        .find("random_period_started")
        .expect("commitment mailed");
    let chosen = sent.find("boons_chosen").expect("draw announced");
    assert!(started < chosen, "{sent}");
    assert!(
        sent.contains("random_period_revealed") || sent.contains("random_"),
        "{sent}"
    );
    let officer = periods(&table);
    let period = officer.past.last().expect("the period is published");
    assert_eq!(period.label, TAG);
    assert_eq!(period.draws.len(), 1);
    random::verify(period).expect("the draw verifies");
    // In a period the officer is running, the draw is made there and the
    // period is left running.
    let mut table = table_with(Params::default(), 3);
    table.send(
        hours(2),
        MODERATOR,
        true,
        "nomic",
        "random start the officer's",
    );
    boons(
        &mut table,
        hours(3),
        MODERATOR,
        "bestow Dave because a test",
    )
    .unwrap();
    let current = table.world.random.current.clone().expect("still running");
    assert_eq!(current.draws.len(), 1);
    assert!(current.draws[0].purpose.contains("rule 1211 §4"));
    // An empty list: nothing to draw, no Boon.
    let mut params = Params::default();
    params.list.clear();
    let mut table = table_with(params, 3);
    boons(
        &mut table,
        hours(1),
        MODERATOR,
        "bestow Dave because a test",
    )
    .unwrap();
    assert_eq!(lapses(&table), [Lapse::NothingToDraw]);
}

#[test]
fn section_5_a_boon_not_must_describe_is_created_at_once_and_given() {
    let mut table = fresh();
    chosen(&mut table, "g");
    let ears = owned(&table, 1);
    assert_eq!(ears.len(), 1);
    assert_eq!(ears[0].kind, "pointy ears");
    assert!(state(&table).pending.is_empty());
    assert!(templates(&table.mail).contains(&"boons_created"));
}

#[test]
fn section_6_a_must_describe_boon_waits_3_days_for_its_description() {
    let mut table = fresh();
    chosen(&mut table, "d");
    assert!(owned(&table, 1).is_empty());
    // Only the player designated to receive it describes it.
    assert_eq!(
        boons(&mut table, hours(3), BOB, "describe #1 a forged relic"),
        Err("boons_not_yours".into())
    );
    assert_eq!(
        boons(&mut table, hours(3), BOB, "describe a forged relic"),
        Err("boons_none_pending".into())
    );
    // No description in three days: no Boon.
    assert_eq!(
        boons(
            &mut table,
            hours(2 + 72),
            ALICE,
            "describe a brass astrolabe"
        ),
        Err("boons_none_pending".into())
    );
    assert_eq!(lapses(&table), [Lapse::NoDescription]);
    // In time: posted, and handed to the Bogusity Hearing.
    let mut table = fresh();
    chosen(&mut table, "d");
    assert_eq!(
        boons(&mut table, hours(3), ALICE, "describe a brass astrolabe"),
        Ok("boons_described".into())
    );
    assert_eq!(
        boons(&mut table, hours(3), ALICE, "describe again"),
        Err("boons_none_pending".into())
    );
    table.run_until(hours(3));
    let world = serde_json::to_value(&table.world).unwrap();
    let posted = &world["bogusity"]["descriptions"][0];
    assert_eq!(posted["text"], "a brass astrolabe");
    assert_eq!(posted["describer_name"], "Alice");
    assert_eq!(posted["posted_at"], serde_json::json!(hours(3)));
    assert_eq!(posted["origin"], "boons:1");
    assert!(matches!(
        state(&table).get(1).map(|b| &b.stage),
        Some(Stage::Described {
            description: Some(1),
            ..
        })
    ));
}

#[test]
fn section_7_a_described_boon_is_created_7_days_later_or_when_its_hearing_ends() {
    // No hearing: seven days after the description.
    let mut table = fresh();
    chosen(&mut table, "d");
    boons(&mut table, hours(3), ALICE, "describe a brass astrolabe").unwrap();
    table.run_until(hours(3 + 7 * 24 - 1));
    assert!(owned(&table, 1).is_empty());
    table.run_until(hours(3 + 7 * 24));
    assert_eq!(owned(&table, 1)[0].kind, "Trinket");
    // A hearing that ends after the seven days: created at its result.
    let mut table = table_with(Params::default(), 10);
    chosen(&mut table, "d");
    boons(&mut table, hours(3), ALICE, "describe a brass astrolabe").unwrap();
    assert_eq!(
        run(&mut table, hours(4), BOB, "bogusity", "call 1"),
        Ok("bogusity_called".into())
    );
    table.run_until(hours(3 + 8 * 24));
    assert!(owned(&table, 1).is_empty(), "the hearing is still open");
    table.run_until(hours(4 + 10 * 24));
    assert_eq!(owned(&table, 1)[0].kind, "Trinket");
}

#[test]
fn section_8_the_bogusity_hearing_decides_a_described_boon() {
    // Found Bogus: no Boon, and the describer loses 11 points (§8's game).
    let mut table = fresh();
    chosen(&mut table, "e");
    boons(
        &mut table,
        hours(3),
        ALICE,
        "describe a perpetual motion engine",
    )
    .unwrap();
    run(&mut table, hours(4), BOB, "bogusity", "call 1").unwrap();
    assert_eq!(
        run(
            &mut table,
            hours(5),
            ALICE,
            "bogusity",
            "This loophole surfer is totally Bogus"
        ),
        Err("bogusity_describer_may_not_vote".into())
    );
    for who in [BOB, CAROL, DAVE] {
        run(
            &mut table,
            hours(5),
            who,
            "bogusity",
            "This loophole surfer is totally Bogus",
        )
        .unwrap();
    }
    table.run_until(hours(4 + 72));
    assert_eq!(lapses(&table), [Lapse::Bogus]);
    assert!(state(&table).pending.is_empty());
    table.run_until(hours(3 + 8 * 24));
    assert!(table.world.inventory.entities.is_empty());
    assert_eq!(
        table.world.accounts.balance(Holder::Player(1), "points"),
        num_rational::BigRational::from_integer((-11).into())
    );
    // Not Bogus: created seven days after the description.
    let mut table = fresh();
    chosen(&mut table, "e");
    boons(
        &mut table,
        hours(3),
        ALICE,
        "describe a perpetual motion engine",
    )
    .unwrap();
    run(&mut table, hours(4), BOB, "bogusity", "call 1").unwrap();
    run(
        &mut table,
        hours(5),
        CAROL,
        "bogusity",
        "Thats a pretty cool idea",
    )
    .unwrap();
    table.run_until(hours(4 + 72));
    assert!(table.world.inventory.entities.is_empty());
    table.run_until(hours(3 + 7 * 24));
    let blueprint = &table.world.inventory.entities[0];
    assert_eq!(blueprint.kind, "Blueprint");
    assert_eq!(blueprint.description, "a perpetual motion engine");
}

#[test]
fn section_9_each_boon_of_the_list_creates_what_the_rule_says() {
    let mut table = fresh();
    for key in ["a", "b", "c", "d", "e", "f", "g", "h"] {
        boons(
            &mut table,
            hours(1),
            MODERATOR,
            "bestow Alice deterministic because a test",
        )
        .unwrap();
        let number = state(&table).last_number;
        assert_eq!(
            boons(
                &mut table,
                hours(2),
                ALICE,
                &format!("choose #{number} {key}")
            ),
            Ok("boons_chose".into())
        );
        if ["d", "e", "f"].contains(&key) {
            boons(
                &mut table,
                hours(2),
                ALICE,
                &format!("describe #{number} the {key} of it"),
            )
            .unwrap();
        }
    }
    table.run_until(hours(2 + 7 * 24));
    fn of_kind(table: &Table, kind: &str) -> Vec<Entity> {
        table
            .world
            .inventory
            .entities
            .iter()
            .filter(|e| e.kind == kind)
            .cloned()
            .collect::<Vec<_>>()
    }
    let by_kind = |kind: &str| of_kind(&table, kind);
    // (a), (b): no Gadget or Card is named in the texts: the kind alone.
    assert_eq!(by_kind("Qualified Gadget")[0].owner, Owner::Player(1));
    let cards = by_kind("Otzma Card");
    assert!(cards.iter().any(|c| c.owner == Owner::Player(1)));
    // (f): added to the Otzma Card Rule Suite, as the player described it.
    assert!(
        cards
            .iter()
            .any(|c| c.owner == Owner::Place("Otzma Card Rule Suite".into())
                && c.description == "the f of it")
    );
    assert_eq!(by_kind("Bonus Vote")[0].owner, Owner::Player(1));
    // (d): A$75 of the Treasury transmuted into the Trinket.
    let trinket = &by_kind("Trinket")[0];
    assert_eq!(trinket.value.as_deref(), Some("A$75"));
    assert_eq!(
        table.world.accounts.balance(Holder::Treasury, "A$"),
        num_rational::BigRational::from_integer((-75).into())
    );
    // (e): in the Blueprint Archive, said to be created by the player.
    let blueprint = &by_kind("Blueprint")[0];
    assert_eq!(blueprint.owner, Owner::Place("Blueprint Archive".into()));
    assert_eq!(blueprint.created_by, Some(1));
    assert_eq!(by_kind("pointy ears")[0].owner, Owner::Player(1));
    // (h): the one Chartreuse Goose; bestowed again, it is taken from Alice.
    assert_eq!(by_kind("Chartreuse Goose")[0].owner, Owner::Player(1));
    boons(
        &mut table,
        hours(200),
        MODERATOR,
        "bestow Bob deterministic because a test",
    )
    .unwrap();
    boons(&mut table, hours(201), BOB, "choose Chartreuse Goose").unwrap();
    let geese = of_kind(&table, "Chartreuse Goose");
    assert_eq!(geese.len(), 1);
    assert_eq!(geese[0].owner, Owner::Player(2));
    assert!(
        table
            .mail
            .last()
            .is_some_and(|m| m.values["previous_holder"] == "Alice")
    );
}

#[test]
fn section_9_a_random_kind_is_drawn_when_the_list_names_kinds() {
    let mut params = Params::default();
    params.list[0].kinds = vec!["Whoopee Cushion".into()];
    let mut table = table_with(params, 3);
    chosen(&mut table, "a");
    let gadget = &owned(&table, 1)[0];
    assert_eq!(gadget.kind, "Qualified Gadget");
    assert_eq!(gadget.description, "Whoopee Cushion");
}

#[test]
fn a_player_who_leaves_receives_no_boon_on_its_way() {
    let mut table = fresh();
    chosen(&mut table, "d");
    table.send(hours(3), ALICE, true, "nomic", "leave");
    assert_eq!(lapses(&table), [Lapse::PlayerLeft]);
}

#[test]
fn status_lists_the_boons_on_their_way() {
    let mut table = fresh();
    chosen(&mut table, "d");
    boons(
        &mut table,
        hours(3),
        MODERATOR,
        "bestow Bob deterministic because a test",
    )
    .unwrap();
    assert_eq!(
        boons(&mut table, hours(4), CAROL, "status"),
        Ok("boons_status".into())
    );
    let pending = &table.last[0].sentence.args["pending"];
    assert_eq!(pending[0]["stage"], "describing");
    assert_eq!(pending[1]["stage"], "choosing");
}

#[test]
fn bot_toml_gives_the_rules_list_and_numbers() {
    let config: toml::Table = toml::from_str(include_str!("../../../bot.toml")).unwrap();
    let params: Params = config["boons"].clone().try_into().unwrap();
    assert_eq!(params, Params::default());
}

// ---- §9 a, b: instance limits (issue 21, item 11) ----

fn kind(entity: &str, name: &str, limit: Option<u32>) -> Kind {
    Kind {
        entity: entity.into(),
        name: name.into(),
        limit,
    }
}

/// The rule's list with these particular kinds in bot.toml.
fn with_kinds(kinds: Vec<Kind>) -> Table {
    table_with(
        Params {
            kinds,
            ..Params::default()
        },
        3,
    )
}

/// The descriptions of the entities of `entity` that exist, sorted.
fn instances_of(table: &Table, entity: &str) -> Vec<String> {
    let mut names: Vec<String> = table
        .world
        .inventory
        .entities
        .iter()
        .filter(|e| e.kind == entity)
        .map(|e| e.description.clone())
        .collect();
    names.sort();
    names
}

/// A deterministic Boon for `name` at `at`, chosen at once as `key`.
fn bestow_and_choose(
    table: &mut Table,
    at: Timestamp,
    from: &str,
    key: &str,
) -> Result<String, String> {
    let name = match from {
        ALICE => "Alice",
        BOB => "Bob",
        CAROL => "Carol",
        _ => "Dave",
    };
    boons(
        table,
        at,
        MODERATOR,
        &format!("bestow {name} deterministic because a test"),
    )
    .unwrap();
    boons(table, at, from, &format!("choose {key}"))
}

fn kind_events(table: &Table) -> Vec<(String, String, Option<u32>)> {
    table
        .events
        .iter()
        .filter_map(|(_, _, e)| match e {
            crate::games::Event::Boons(Event::KindLimited {
                entity,
                name,
                limit,
                ..
            }) => Some((entity.clone(), name.clone(), *limit)),
            _ => None,
        })
        .collect()
}

/// §9 a: "A random Qualified Gadget, such that no instance limits are exceeded
/// for any particular Gadgets, is bestowed (45)."
#[test]
fn rule_1211_9a_a_random_gadget_is_drawn_only_among_gadgets_under_their_instance_limit() {
    let mut table = with_kinds(vec![
        kind("Qualified Gadget", "Whoopee Cushion", Some(1)),
        kind("Qualified Gadget", "Time Machine", Some(0)),
        kind("Qualified Gadget", "Laser Pointer", Some(2)),
        kind("Otzma Card", "The Fool", None),
    ]);
    for (i, from) in [ALICE, BOB, CAROL].into_iter().enumerate() {
        assert_eq!(
            bestow_and_choose(&mut table, hours(i as i64 + 1), from, "a"),
            Ok("boons_chose".into())
        );
    }
    // Whatever the draws, three Gadgets can exist, and only these: a limit of 0
    // is never drawn, and no limit is exceeded.
    assert_eq!(
        instances_of(&table, "Qualified Gadget"),
        ["Laser Pointer", "Laser Pointer", "Whoopee Cushion"]
    );
    // Each kind was drawn by the random officer among those under their limit,
    // and the announcement says which.
    let created: Vec<&Mail> = table
        .mail
        .iter()
        .filter(|m| m.template == "boons_created")
        .collect();
    assert_eq!(created.len(), 3);
    assert!(
        created[0].values["kind_draw"]["purpose"]
            .as_str()
            .is_some_and(
                |p| p.contains("Whoopee Cushion, Laser Pointer") && !p.contains("Time Machine")
            ),
        "{:?}",
        created[0].values
    );
    let officer = periods(&table);
    for period in &officer.past {
        random::verify(period).expect("every draw verifies");
    }
}

/// §9 a, §3: a Gadget with no particular Gadget under its limit cannot be
/// bestowed "such that no instance limits are exceeded": the choice is
/// refused, and the player chooses another within the three days.
#[test]
fn rule_1211_9a_choosing_a_gadget_when_every_gadget_is_at_its_limit_is_refused() {
    let mut table = with_kinds(vec![kind("Qualified Gadget", "Whoopee Cushion", Some(1))]);
    bestow_and_choose(&mut table, hours(1), ALICE, "a").unwrap();
    assert_eq!(
        bestow_and_choose(&mut table, hours(2), BOB, "Qualified Gadget"),
        Err("boons_no_lawful_kind".into())
    );
    let refusal = &table.last[0].sentence.args;
    assert_eq!(refusal["kinds"][0]["instances"], 1);
    assert_eq!(refusal["kinds"][0]["limit"], 1);
    // Still Bob's to choose, and he chooses another.
    assert!(matches!(
        state(&table).of_player(2).next().map(|b| &b.stage),
        Some(Stage::Choosing { .. })
    ));
    assert_eq!(
        boons(&mut table, hours(3), BOB, "choose c"),
        Ok("boons_chose".into())
    );
    assert_eq!(
        instances_of(&table, "Qualified Gadget"),
        ["Whoopee Cushion"]
    );
    assert!(lapses(&table).is_empty());
    // A Whoopee Cushion destroyed frees its place under the limit.
    table.send(
        hours(4),
        MODERATOR,
        true,
        "nomic",
        "destroy #1 because it went flat",
    );
    assert_eq!(
        bestow_and_choose(&mut table, hours(5), CAROL, "a"),
        Ok("boons_chose".into())
    );
    assert_eq!(
        instances_of(&table, "Qualified Gadget"),
        ["Whoopee Cushion"]
    );
}

/// §9 b: "A random Otzma Card, all cards having the same probability, such
/// that no instance limits are exceeded for any particular Otzma Card, is
/// bestowed (25)." An instance is counted wherever it is, a moderator's too;
/// the card texts (f) adds to the Otzma Card Rule Suite are no instances.
#[test]
fn rule_1211_9b_a_random_otzma_card_is_drawn_among_the_cards_under_their_limit() {
    let mut table = with_kinds(vec![
        kind("Otzma Card", "The Fool", Some(1)),
        kind("Otzma Card", "The Tower", Some(1)),
    ]);
    // A Fool made by hand counts.
    table.send(
        hours(1),
        MODERATOR,
        true,
        "nomic",
        "create Otzma Card for Dave: the fool because found in a drawer",
    );
    // (f)'s card described as "The Tower" is a card of the Rule Suite, not an
    // instance of one: it takes nobody's place.
    bestow_and_choose(&mut table, hours(2), CAROL, "f").unwrap();
    boons(&mut table, hours(2), CAROL, "describe The Tower").unwrap();
    table.run_until(hours(24 * 8));
    assert_eq!(
        table
            .world
            .inventory
            .owned_by(&Owner::Place("Otzma Card Rule Suite".into()))
            .count(),
        1
    );
    // Only The Tower is under its limit: Alice's card is The Tower, drawn
    // among one.
    assert_eq!(
        bestow_and_choose(&mut table, hours(24 * 8 + 1), ALICE, "b"),
        Ok("boons_chose".into())
    );
    assert_eq!(owned(&table, 1)[0].description, "The Tower");
    // Every card at its limit: (b) is refused as a choice.
    assert_eq!(
        bestow_and_choose(&mut table, hours(24 * 8 + 2), BOB, "b"),
        Err("boons_no_lawful_kind".into())
    );
}

/// §9 b: "all cards having the same probability": each card under its limit
/// is one number of the officer's uniform draw.
#[test]
fn rule_1211_9b_all_cards_under_their_limit_have_the_same_probability() {
    let mut table = with_kinds(vec![
        kind("Otzma Card", "The Fool", None),
        kind("Otzma Card", "The Tower", Some(0)),
        kind("Otzma Card", "The Moon", None),
        kind("Otzma Card", "The Sun", Some(5)),
    ]);
    bestow_and_choose(&mut table, hours(1), ALICE, "b").unwrap();
    let officer = periods(&table);
    let draw = &officer.past.last().expect("published").draws[0];
    assert_eq!(draw.kind, random::DrawKind::Below { n: 3 });
    assert!(
        draw.purpose.contains("The Fool, The Moon, The Sun"),
        "{}",
        draw.purpose
    );
}

/// §9 a, §1, §4: under the random method a Boon that cannot be bestowed
/// within the instance limits is not drawn (its number counts 0): the draw
/// falls on a Boon that can be, as a redraw would, in one verifiable draw.
#[test]
fn rule_1211_9a_the_random_method_never_draws_a_gadget_no_gadget_can_be() {
    let mut params = Params {
        kinds: vec![kind("Qualified Gadget", "Time Machine", Some(0))],
        ..Params::default()
    };
    params.list.retain(|b| b.key == "a" || b.key == "c");
    let mut table = table_with(params, 3);
    for i in 0..6 {
        boons(
            &mut table,
            hours(i + 1),
            MODERATOR,
            "bestow Dave because a test",
        )
        .unwrap();
    }
    assert!(instances_of(&table, "Qualified Gadget").is_empty());
    assert_eq!(owned(&table, 4).len(), 6);
    assert!(owned(&table, 4).iter().all(|e| e.kind == "Bonus Vote"));
    let officer = periods(&table);
    let draw = &officer.past[0].draws[0];
    assert_eq!(
        draw.kind,
        random::DrawKind::Weighted {
            weights: vec![0, 10]
        }
    );
    assert!(draw.purpose.contains("not (a)"), "{}", draw.purpose);
    // With no Boon left that can be bestowed, nothing is drawn, as with an
    // empty list.
    let mut params = Params {
        kinds: vec![kind("Qualified Gadget", "Time Machine", Some(0))],
        ..Params::default()
    };
    params.list.retain(|b| b.key == "a");
    let mut table = table_with(params, 3);
    boons(
        &mut table,
        hours(1),
        MODERATOR,
        "bestow Dave because a test",
    )
    .unwrap();
    assert_eq!(lapses(&table), [Lapse::NothingToDraw]);
}

/// §9 a with §7: a Gadget a list makes Must Describe is created seven days
/// after its description; if by then every Gadget is at its limit, none can be
/// bestowed "such that no instance limits are exceeded".
#[test]
fn rule_1211_9a_a_gadget_created_later_lapses_when_every_gadget_is_full_by_then() {
    let mut params = Params {
        kinds: vec![kind("Qualified Gadget", "Whoopee Cushion", Some(1))],
        hearings: false,
        ..Params::default()
    };
    params.list[0].must_describe = Some(true);
    let mut table = table_with(params, 3);
    bestow_and_choose(&mut table, hours(1), ALICE, "a").unwrap();
    boons(&mut table, hours(2), ALICE, "describe a cushion").unwrap();
    table.send(
        hours(3),
        MODERATOR,
        true,
        "nomic",
        "create Qualified Gadget for Bob: Whoopee Cushion because found",
    );
    let mark = table.mail.len();
    table.run_until(hours(24 * 8));
    assert_eq!(lapses(&table), [Lapse::NoLawfulKind]);
    assert!(owned(&table, 1).is_empty());
    assert!(templates(table.mail_since(mark)).contains(&"boons_lapsed"));
}

/// §9 a, b: the kinds and limits are a moderator's to set by mail: announced,
/// logged, and binding on the next draw. A kind named again (any case) takes
/// the new limit; a new name adds a kind.
#[test]
fn rule_1211_9a_a_moderator_sets_and_adds_instance_limits_by_mail() {
    let mut table = with_kinds(vec![kind("Qualified Gadget", "Whoopee Cushion", None)]);
    let mark = table.mail.len();
    assert_eq!(
        boons(
            &mut table,
            hours(1),
            MODERATOR,
            "limit qualified gadget: WHOOPEE CUSHION to 0 because rule 1180 caps it"
        ),
        Ok("boons_kind_set".into())
    );
    let sent = table.mail_since(mark);
    assert_eq!(templates(sent), ["boons_kind"]);
    assert_eq!(sent[0].to, crate::engine::Audience::List);
    assert_eq!(sent[0].values["known"], true);
    assert_eq!(sent[0].values["reason"], "rule 1180 caps it");
    assert_eq!(
        kind_events(&table),
        [(
            "Qualified Gadget".to_owned(),
            "WHOOPEE CUSHION".to_owned(),
            Some(0)
        )]
    );
    // Limit 0: none may exist, so (a) cannot be chosen.
    assert_eq!(
        bestow_and_choose(&mut table, hours(2), ALICE, "a"),
        Err("boons_no_lawful_kind".into())
    );
    boons(
        &mut table,
        hours(3),
        MODERATOR,
        "limit Qualified Gadget: Laser Pointer to none because a new Gadget",
    )
    .unwrap();
    assert_eq!(
        table.mail.last().map(|m| &m.values["known"]),
        Some(&false.into())
    );
    assert_eq!(
        boons(&mut table, hours(4), ALICE, "choose a"),
        Ok("boons_chose".into())
    );
    assert_eq!(instances_of(&table, "Qualified Gadget"), ["Laser Pointer"]);
    assert_eq!(
        list::kinds_in_force(&Params::default().kinds, &state(&table).kinds_set),
        [
            kind("Qualified Gadget", "WHOOPEE CUSHION", Some(0)),
            kind("Qualified Gadget", "Laser Pointer", None)
        ]
    );
}

/// The cheats: a player setting a limit, an entity no Boon draws a kind of,
/// numbers that are no limit. None changes anything.
#[test]
fn rule_1211_9a_only_a_moderator_sets_a_limit_and_only_a_lawful_one() {
    let mut table = fresh();
    assert_eq!(
        boons(
            &mut table,
            hours(1),
            ALICE,
            "limit Qualified Gadget: Whoopee Cushion to 0 because mine is the only one"
        ),
        Err("moderators_only".into())
    );
    for entity in ["Trinket", "Chartreuse Goose", "Gadget", "Qualified Gadgets"] {
        assert_eq!(
            boons(
                &mut table,
                hours(2),
                MODERATOR,
                &format!("limit {entity}: Whoopee Cushion to 3 because a test")
            ),
            Err("boons_no_such_entity".into()),
            "{entity}"
        );
    }
    for limit in ["-1", "4294967296", "1e9", "99999999999999999999999"] {
        assert_eq!(
            boons(
                &mut table,
                hours(3),
                MODERATOR,
                &format!("limit Otzma Card: The Fool to {limit} because a test")
            ),
            Err("boons_bad_limit".into()),
            "{limit}"
        );
    }
    // The largest is a limit, though no more entities can ever be numbered.
    assert_eq!(
        boons(
            &mut table,
            hours(4),
            MODERATOR,
            "limit Otzma Card: The Fool to 4294967295 because a test"
        ),
        Ok("boons_kind_set".into())
    );
    assert_eq!(kind_events(&table).len(), 1);
}

/// bot.toml's `[[boons.kinds]]`: a limit is a whole number from 0; a negative
/// or too large one is a configuration error, found at start-up.
#[test]
fn rule_1211_9a_bot_toml_kinds_and_their_limits() {
    let read = |limit: &str| {
        toml::from_str::<Params>(&format!(
            "[[kinds]]\nentity = \"Qualified Gadget\"\nname = \"Whoopee Cushion\"\n{limit}"
        ))
    };
    assert_eq!(
        read("limit = 3").unwrap().kinds,
        [kind("Qualified Gadget", "Whoopee Cushion", Some(3))]
    );
    assert_eq!(read("").unwrap().kinds[0].limit, None);
    assert!(read("limit = -1").is_err());
    assert!(read("limit = 4294967296").is_err());
    assert!(read("limit = 3\nweight = 2").is_err());
    // Named twice: the later limit.
    assert_eq!(
        list::kinds_in_force(
            &[
                kind("Otzma Card", "The Fool", Some(1)),
                kind("otzma card", "the fool", Some(2))
            ],
            &[]
        ),
        [kind("Otzma Card", "the fool", Some(2))]
    );
}

mod rules_change;
