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
