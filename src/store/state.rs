//! The state snapshot (the world after the last step) in rows of its own, so
//! that a step writes what it changed, not the whole world: one row per part of
//! the world (`state_parts`: each shared part, each game's state, the voided
//! messages, the registry without its players) and one per player
//! (`state_players`). Only the store calls this; it runs in the step's own
//! transaction, so a crash keeps all of a snapshot or none of it.
//!
//! What changed is told by the `Arc`s the world is made of: the store keeps the
//! world it last wrote (clones of its `Arc`s, which also keeps every one of them
//! from being changed in place or its address reused), and a part whose `Arc`
//! is the same as then is the same. That holds only while the database holds
//! what this connection wrote: every write counts a generation in the `state`
//! row, and a database whose generation is not the one this connection last
//! wrote or read (another process wrote since) gets the whole world.

use std::sync::Arc;

use jiff::Timestamp;
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

use super::{Result, STATE_FORMAT, StoreError, ts};
use crate::engine::game::Shared;
use crate::engine::players::Player;
use crate::games::{Registered, Visit, World};

/// The key of the registry (without its players) among the parts: its key in
/// the world's JSON.
const REGISTRY: &str = "players";

/// The world this connection last wrote or read as the state, and its generation.
#[derive(Debug)]
pub(super) struct Written {
    generation: i64,
    world: World,
    /// The registry without its players, as written: a join changes the
    /// registry's `Arc`, seldom the rest of it.
    registry_rest: String,
}

/// A part of the world serialised on demand.
trait Json {
    fn json(&self) -> serde_json::Result<String>;
}

impl<T: Serialize> Json for T {
    fn json(&self) -> serde_json::Result<String> {
        serde_json::to_string(self)
    }
}

/// One part of the world: its key in the world's JSON, whether it is the very
/// one of the world last written, and its value.
struct Part {
    key: &'static str,
    same: bool,
    value: Arc<dyn Json>,
}

fn same<T>(now: &Arc<T>, then: Option<&Arc<T>>) -> bool {
    then.is_some_and(|then| Arc::ptr_eq(now, then))
}

/// Every part of `world` but the registry, each compared with `last`.
fn parts(world: &World, last: Option<&World>) -> Vec<Part> {
    // Every field named: a part added to the world cannot be left out.
    let World {
        shared,
        games: _,
        voided,
    } = world;
    let Shared {
        players: _,
        accounts,
        ruleset,
        schedule,
        random,
        sealed,
        offices,
        inventory,
        contests,
    } = shared;
    let then = last.map(|last| &last.shared);
    let mut parts = Vec::new();
    macro_rules! shared_part {
        ($($field:ident)*) => {
            $(parts.push(Part {
                key: stringify!($field),
                same: same($field, then.map(|then| &then.$field)),
                value: $field.clone(),
            });)*
        };
    }
    shared_part!(accounts ruleset schedule random sealed offices inventory contests);
    struct Games<'a> {
        world: &'a World,
        last: Option<&'a World>,
        parts: &'a mut Vec<Part>,
    }
    impl Visit for Games<'_> {
        fn visit<G: Registered>(&mut self) {
            let state = G::take_state(self.world);
            let then = self.last.map(G::take_state);
            self.parts.push(Part {
                key: G::state_key(),
                same: same(&state, then.as_ref()),
                value: state,
            });
        }
    }
    crate::games::each_game(&mut Games {
        world,
        last,
        parts: &mut parts,
    });
    parts.push(Part {
        key: "voided",
        same: last.is_some_and(|last| &last.voided == voided),
        value: Arc::new(voided.clone()),
    });
    parts
}

fn corrupt(what: &str) -> impl FnOnce(serde_json::Error) -> StoreError + '_ {
    move |source| StoreError::Corrupt {
        what: what.to_owned(),
        source,
    }
}

/// Writes the parts of `world` that differ from `since` (all of them without
/// it); the JSON of the registry without its players.
pub(super) fn write_parts(
    conn: &Connection,
    world: &World,
    since: Option<&Written>,
) -> Result<String> {
    if since.is_none() {
        conn.execute("DELETE FROM state_parts", [])?;
        conn.execute("DELETE FROM state_players", [])?;
    }
    let mut upsert = conn.prepare_cached(
        "INSERT INTO state_parts (part, json) VALUES (?1, ?2)
         ON CONFLICT(part) DO UPDATE SET json = ?2",
    )?;
    for part in parts(world, since.map(|since| &since.world)) {
        if !part.same {
            let json = part.value.json().map_err(corrupt("state"))?;
            upsert.execute(params![part.key, json])?;
        }
    }
    let registry = &world.shared.players;
    let then = since.map(|since| &since.world.shared.players);
    if let (Some(since), true) = (since, same(registry, then)) {
        return Ok(since.registry_rest.clone());
    }
    let rest = registry
        .without_players()
        .json()
        .map_err(corrupt("state"))?;
    if since.is_none_or(|since| since.registry_rest != rest) {
        upsert.execute(params![REGISTRY, rest])?;
    }
    let old: &[Arc<Player>] = then.map_or(&[], |then| &then.players);
    let mut upsert_player = conn.prepare_cached(
        "INSERT INTO state_players (position, json) VALUES (?1, ?2)
         ON CONFLICT(position) DO UPDATE SET json = ?2",
    )?;
    for (position, player) in registry.players.iter().enumerate() {
        if old
            .get(position)
            .is_some_and(|then| Arc::ptr_eq(then, player))
        {
            continue;
        }
        let json = player.json().map_err(corrupt("state"))?;
        upsert_player.execute(params![position as i64, json])?;
    }
    if old.len() > registry.players.len() {
        conn.execute(
            "DELETE FROM state_players WHERE position >= ?1",
            [registry.players.len() as i64],
        )?;
    }
    Ok(rest)
}

/// Writes `world` as the state at `clock`: only what changed since `last` if
/// the database still holds it, else the whole world. What this connection
/// wrote, to keep once the transaction is committed (not before: a rolled back
/// write leaves the database as it was).
pub(super) fn write(
    conn: &Connection,
    last: Option<&Written>,
    world: &World,
    clock: Timestamp,
) -> Result<Written> {
    let stored: Option<(i64, i64)> = conn
        .query_row(
            "SELECT generation, format FROM state WHERE id = 1",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()?;
    let since = last.filter(|last| stored == Some((last.generation, STATE_FORMAT)));
    let registry_rest = write_parts(conn, world, since)?;
    let generation = stored.map_or(0, |(generation, _)| generation) + 1;
    conn.execute(
        "INSERT INTO state (id, clock, format, generation) VALUES (1, ?1, ?2, ?3)
         ON CONFLICT(id) DO UPDATE SET clock = ?1, format = ?2, generation = ?3",
        params![clock.to_string(), STATE_FORMAT, generation],
    )?;
    Ok(Written {
        generation,
        world: world.clone(),
        registry_rest,
    })
}

/// The state as stored, and the clock. No world when there is no snapshot or
/// one in another `STATE_FORMAT`. The caller reads in one transaction, so the
/// rows are of one generation.
pub(super) fn read(conn: &Connection) -> Result<(Option<Written>, Option<Timestamp>)> {
    let row: Option<(Option<String>, i64, i64)> = conn
        .query_row(
            "SELECT clock, format, generation FROM state WHERE id = 1",
            [],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )
        .optional()?;
    let Some((clock, format, generation)) = row else {
        return Ok((None, None));
    };
    let clock = clock.map(ts).transpose()?;
    if format != STATE_FORMAT {
        return Ok((None, clock));
    }
    // The world's JSON, put together from its parts: the same object as the
    // world serialised whole.
    let mut json = String::from("{");
    let mut registry_rest = String::new();
    let mut statement = conn.prepare("SELECT part, json FROM state_parts ORDER BY part")?;
    let mut rows = statement.query([])?;
    while let Some(row) = rows.next()? {
        let key: String = row.get(0)?;
        let part = row.get_ref(1)?.as_str().map_err(rusqlite::Error::from)?;
        if key == REGISTRY {
            registry_rest = part.to_owned();
        }
        if json.len() > 1 {
            json.push(',');
        }
        json.push_str(&serde_json::to_string(&key).map_err(corrupt("state"))?);
        json.push(':');
        json.push_str(part);
    }
    json.push('}');
    let mut world: World = serde_json::from_str(&json).map_err(corrupt("state"))?;
    let mut players = Vec::new();
    let mut statement =
        conn.prepare("SELECT position, json FROM state_players ORDER BY position")?;
    let mut rows = statement.query([])?;
    while let Some(row) = rows.next()? {
        let position: i64 = row.get(0)?;
        let player = row.get_ref(1)?.as_str().map_err(rusqlite::Error::from)?;
        let player: Player =
            serde_json::from_str(player).map_err(corrupt(&format!("state: player #{position}")))?;
        players.push(Arc::new(player));
    }
    let registry = std::mem::take(Arc::make_mut(&mut world.shared.players));
    world.shared.players = Arc::new(registry.with_players(players));
    Ok((
        Some(Written {
            generation,
            world,
            registry_rest,
        }),
        clock,
    ))
}

impl Written {
    pub(super) fn world(&self) -> &World {
        &self.world
    }
}

/// Schema 13: the snapshot of one JSON text in the `state` row, split into its
/// rows. A snapshot this release cannot read (another `STATE_FORMAT`, or
/// damaged) is left out: the state is rebuilt from the log at the next open,
/// as for any snapshot in another format.
pub(super) fn split_snapshot(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    let row: Option<(String, i64)> = tx
        .query_row("SELECT world, format FROM state WHERE id = 1", [], |row| {
            Ok((row.get(0)?, row.get(1)?))
        })
        .optional()?;
    tx.execute_batch("ALTER TABLE state DROP COLUMN world;")?;
    let Some((json, format)) = row else {
        return Ok(());
    };
    let world = (format == STATE_FORMAT)
        .then(|| serde_json::from_str::<World>(&json).ok())
        .flatten();
    match world {
        Some(world) => {
            write_parts(tx, &world, None).map_err(|error| match error {
                StoreError::Sqlite(error) => error,
                other => rusqlite::Error::ToSqlConversionFailure(Box::new(other)),
            })?;
        }
        // Unreadable in this release's own format: marked as no format at all.
        None if format == STATE_FORMAT => {
            tx.execute("UPDATE state SET format = 0 WHERE id = 1", [])?;
        }
        None => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Address;
    use crate::engine::players::Event as PlayerEvent;
    use crate::games::Event;

    fn at(second: i64) -> Timestamp {
        Timestamp::from_second(1_780_000_000 + second).expect("time")
    }

    fn joined(world: &mut World, id: u32) {
        world.apply_event(
            &Event::Players(PlayerEvent::Joined {
                id,
                name: format!("Player{id}"),
                address: Address::new(&format!("player{id}@nomic.example")),
            }),
            at(i64::from(id)),
        );
    }

    fn renamed(world: &mut World, id: u32, name: &str) {
        world.apply_event(
            &Event::Players(PlayerEvent::Renamed {
                id,
                name: name.to_owned(),
            }),
            at(1000),
        );
    }

    fn with_players(n: u32) -> World {
        let mut world = World::default();
        for id in 1..=n {
            joined(&mut world, id);
        }
        world
    }

    fn store() -> (tempfile::TempDir, crate::store::Store) {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = crate::store::Store::open(&dir.path().join("state.sqlite")).expect("open");
        (dir, store)
    }

    #[test]
    fn a_join_among_many_players_writes_one_player_row_and_the_state_row() {
        let (_dir, store) = store();
        let mut world = with_players(500);
        let first = write(&store.conn, None, &world, at(1)).expect("first");
        let before = store.conn.total_changes();
        joined(&mut world, 501);
        let second = write(&store.conn, Some(&first), &world, at(2)).expect("join");
        assert_eq!(
            store.conn.total_changes() - before,
            2,
            "the new player's row and the state row, nothing else"
        );
        let before = store.conn.total_changes();
        renamed(&mut world, 7, "Seventh");
        write(&store.conn, Some(&second), &world, at(3)).expect("rename");
        assert_eq!(store.conn.total_changes() - before, 2);
        let (read, clock) = read(&store.conn).expect("read");
        assert_eq!(read.expect("a world").world, world);
        assert_eq!(clock, Some(at(3)));
    }

    #[test]
    fn the_world_read_back_serialises_as_the_world_written() {
        let (_dir, store) = store();
        let mut world = with_players(30);
        renamed(&mut world, 3, "Third");
        world.voided.push("gone@nomic.example".to_owned());
        write(&store.conn, None, &world, at(1)).expect("write");
        let (read, _) = read(&store.conn).expect("read");
        let read = read.expect("a world").world;
        assert_eq!(read, world);
        assert_eq!(
            serde_json::to_string(&read).expect("json"),
            serde_json::to_string(&world).expect("json")
        );
    }

    #[test]
    fn fewer_players_than_written_leave_no_row_behind() {
        let (_dir, store) = store();
        let world = with_players(10);
        let first = write(&store.conn, None, &world, at(1)).expect("first");
        let mut fewer = world.clone();
        Arc::make_mut(&mut fewer.shared.players).players.truncate(4);
        write(&store.conn, Some(&first), &fewer, at(2)).expect("fewer");
        let (read, _) = read(&store.conn).expect("read");
        assert_eq!(read.expect("a world").world, fewer);
    }
}
