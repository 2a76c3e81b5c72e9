//! Issue 30: the state snapshot is kept in rows (a part of the world each, a
//! player each) and a step writes what it changed. What a reader loads must
//! be the world the bot holds, whoever wrote last.

use jiff::{SignedDuration, Timestamp};
use nomicbot::engine::Address;
use nomicbot::engine::players::Event as PlayerEvent;
use nomicbot::games::{Event, World};
use nomicbot::pipeline::Bot;
use nomicbot::store::{Origin, Received, Step, Store};

use crate::support::{LocalBot, at, message};

const BOT: &str = "bot@nomic.example";

fn send(bot: &mut Bot, key: &str, from: &str, subject: &str, when: Timestamp) {
    let raw = message(from, BOT, subject, &format!("{key}@players.test"), "").into_bytes();
    bot.receive(
        &[Received {
            origin: Origin::File {
                key: key.to_owned(),
            },
            received_at: when,
            dedup_key: Bot::dedup_key(&raw),
            raw,
        }],
        None,
        when,
    )
    .expect("receive");
    let done = bot.process(when).expect("process");
    assert_eq!(done.applied, 1, "{key} was not applied");
}

fn address(name: &str) -> String {
    format!("{}@players.test", name.to_lowercase())
}

#[test]
fn after_a_join_among_many_players_the_stored_state_is_the_live_world() {
    let local = LocalBot::new();
    let mut bot = local.open();
    let start = at("2026-01-05T10:00:00Z");
    let mut when = start;
    for n in 0..80 {
        when += SignedDuration::from_secs(1);
        let name = format!("Player{n}");
        send(
            &mut bot,
            &format!("join{n}"),
            &address(&name),
            &format!("[nomic] join {name}"),
            when,
        );
    }
    // Changes in the middle of the registry and at its end.
    when += SignedDuration::from_secs(1);
    send(
        &mut bot,
        "rename",
        &address("Player7"),
        "[nomic] rename Seventh",
        when,
    );
    when += SignedDuration::from_secs(1);
    send(
        &mut bot,
        "leave",
        &address("Player30"),
        "[nomic] leave",
        when,
    );
    when += SignedDuration::from_secs(1);
    send(
        &mut bot,
        "newcomer",
        &address("Newcomer"),
        "[nomic] join Newcomer",
        when,
    );
    let live = bot.world().clone();
    assert_eq!(live.players.players.len(), 81);
    // A process of its own reads the rows back.
    let again = local.open();
    assert_eq!(again.world(), &live, "loaded == live");
    let replay = local.cli_ok(&["replay"]);
    assert!(replay.contains("equals the live state"), "{replay}");
    let state = local.state_json();
    let players = state["players"]["players"].as_array().expect("players");
    assert_eq!(players.len(), 81);
    assert_eq!(players[7]["name"], "Seventh");
    assert!(!players[30]["left_at"].is_null());
    assert_eq!(players[80]["name"], "Newcomer");
}

fn joined(world: &mut World, id: u32) {
    world.apply_event(
        &Event::Players(PlayerEvent::Joined {
            id,
            name: format!("Player{id}"),
            address: Address::new(&address(&format!("Player{id}"))),
        }),
        at("2026-01-05T10:00:00Z"),
    );
}

fn renamed(world: &World, id: u32, name: &str) -> World {
    let mut world = world.clone();
    world.apply_event(
        &Event::Players(PlayerEvent::Renamed {
            id,
            name: name.to_owned(),
        }),
        at("2026-01-05T11:00:00Z"),
    );
    world
}

fn commit(store: &mut Store, world: &World, second: i64) {
    let when = at("2026-01-05T12:00:00Z") + SignedDuration::from_secs(second);
    store
        .commit(Step {
            inbox: None,
            cause: format!("test:{second}"),
            at: when,
            events: Vec::new(),
            world,
            mail: Vec::new(),
            now: when,
        })
        .expect("commit");
}

fn stored(path: &std::path::Path) -> World {
    Store::open(path)
        .expect("open")
        .load_world()
        .expect("load")
        .0
        .expect("a state")
}

/// Two processes on one database (`once` beside the daemon, a tool): each
/// writes only what changed since its own last write, and so must see when the
/// other wrote in between, and then write the whole world: the rows are never
/// a mix of two writers' worlds.
#[test]
fn two_stores_writing_in_turn_never_leave_a_mix_of_their_worlds() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("shared.sqlite");
    let mut first = Store::open(&path).expect("first");
    let mut second = Store::open(&path).expect("second");
    let mut w1 = World::default();
    for id in 1..=50 {
        joined(&mut w1, id);
    }
    commit(&mut first, &w1, 1);
    assert_eq!(stored(&path), w1);

    let (read, _) = second.load_world().expect("load");
    assert_eq!(read.as_ref(), Some(&w1));
    let w2 = renamed(&w1, 5, "Fifth");
    commit(&mut second, &w2, 2);
    assert_eq!(stored(&path), w2);

    // The first store last wrote w1 and knows nothing of w2: its world (w1
    // with another change) is written whole, without the second's rename.
    let w3 = renamed(&w1, 9, "Ninth");
    commit(&mut first, &w3, 3);
    assert_eq!(stored(&path), w3);

    let mut w4 = w2.clone();
    joined(&mut w4, 51);
    commit(&mut second, &w4, 4);
    assert_eq!(stored(&path), w4);

    // Having read what the other wrote, a store goes on from it.
    let (read, _) = first.load_world().expect("load");
    assert_eq!(read.as_ref(), Some(&w4));
    let w5 = renamed(&w4, 1, "First");
    commit(&mut first, &w5, 5);
    assert_eq!(stored(&path), w5);
    let w6 = renamed(&w5, 50, "Fiftieth");
    commit(&mut first, &w6, 6);
    assert_eq!(stored(&path), w6);
}
