//! Schema migrations by `PRAGMA user_version`: each entry runs once, in order,
//! in its own transaction. Never edit a shipped entry; add a new one.

use rusqlite::Connection;

const MIGRATIONS: &[&str] = &[
    // 1: the pipeline.
    "CREATE TABLE inbox (
        id INTEGER PRIMARY KEY,
        source TEXT NOT NULL,
        uidvalidity INTEGER,
        uid INTEGER,
        source_key TEXT,
        dedup_key TEXT NOT NULL,
        received_at TEXT NOT NULL,
        stored_at TEXT NOT NULL,
        raw BLOB NOT NULL,
        status TEXT NOT NULL,
        reason TEXT
    );
    CREATE UNIQUE INDEX inbox_origin ON inbox (source, ifnull(uidvalidity, -1), ifnull(uid, -1), ifnull(source_key, ''));
    CREATE INDEX inbox_pending ON inbox (status, received_at, id);
    CREATE INDEX inbox_dedup ON inbox (dedup_key);
    CREATE TABLE imap_sync (
        mailbox TEXT PRIMARY KEY,
        uidvalidity INTEGER NOT NULL,
        last_uid INTEGER NOT NULL
    );
    CREATE TABLE events (
        seq INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        cause TEXT NOT NULL,
        payload TEXT NOT NULL
    );
    CREATE TABLE state (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        world TEXT NOT NULL,
        clock TEXT
    );
    CREATE TABLE outbox (
        id INTEGER PRIMARY KEY,
        message_id TEXT NOT NULL UNIQUE,
        cause TEXT NOT NULL,
        template TEXT NOT NULL,
        envelope_from TEXT NOT NULL,
        recipients TEXT NOT NULL,
        raw BLOB NOT NULL,
        created_at TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending',
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at TEXT NOT NULL,
        last_error TEXT,
        sent_at TEXT
    );
    CREATE INDEX outbox_due ON outbox (status, next_attempt_at);",
    // 2: the bot's own secret (entropy for random seeds and sealed salts).
    "CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );",
    // 3: the format of each event's payload and of the state snapshot
    // (`store::events`, `STATE_FORMAT`). Every row written before is format 1.
    "ALTER TABLE events ADD COLUMN format INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE state ADD COLUMN format INTEGER NOT NULL DEFAULT 1;",
    // 4: arrival order as a number. `received_at` is RFC 3339 text, whose order is
    // not time's within a second (`...:00.3Z` sorts before `...:00Z`). The column
    // is filled for the rows already there by `finish`.
    "ALTER TABLE inbox ADD COLUMN arrival_ns INTEGER NOT NULL DEFAULT 0;
    DROP INDEX inbox_pending;
    CREATE INDEX inbox_pending ON inbox (status, arrival_ns, id);",
    // 5: the daily cap on answers (`[limits] max_answers_per_day`). An answer
    // records whose cap it counts against and on which day; past the cap a mail
    // is `folded`, to go out in its recipient's digest at `digest_at` (the end of
    // that day), after which it is `digested`.
    "ALTER TABLE outbox ADD COLUMN answer_to TEXT;
    ALTER TABLE outbox ADD COLUMN answer_day TEXT;
    ALTER TABLE outbox ADD COLUMN digest_at TEXT;
    CREATE INDEX outbox_answers ON outbox (answer_to, answer_day);
    CREATE INDEX outbox_folded ON outbox (status, digest_at);",
    // 6: the outbox's times compared as text (a retry's `next_attempt_at`, a
    // digest's `digest_at`) are written with nine fractional digits, so that text
    // order is time order (`...:00Z` sorted after `...:00.3Z`). `finish` pads the
    // rows already there.
    // Also: a duplicate that must still be looked at (`echo_of`, the row it
    // repeats): a private message the list delivered later, for instance.
    "ALTER TABLE inbox ADD COLUMN echo_of INTEGER;",
    // 7: the events by cause: a deadline's step is named after the steps already
    // taken at its instant (`Store::steps_at`), and a void finds its message's
    // events, without reading the whole log.
    "CREATE INDEX events_cause ON events (cause);",
    // 8: the flood bounds (`[limits] max_actions_per_day`, `max_outgoing_*`). A
    // message admitted to the games records its sender (`actor`) and the day it
    // counts on; one held by a bound also records which (`held`: `actions`, or
    // `outgoing:<hour>`), so its sender is told and the moderators alerted once.
    // The outbox records the time of the step that wrote each mail (`step_at`),
    // so an hour's volume is that of the steps of the hour, however late the
    // bot ran them. Rows written before stay NULL: counted in no hour.
    "ALTER TABLE inbox ADD COLUMN actor TEXT;
    ALTER TABLE inbox ADD COLUMN action_day TEXT;
    ALTER TABLE inbox ADD COLUMN held TEXT;
    CREATE INDEX inbox_actions ON inbox (actor, action_day);
    CREATE INDEX inbox_held ON inbox (held);
    ALTER TABLE outbox ADD COLUMN step_at TEXT;
    CREATE INDEX outbox_step ON outbox (step_at);",
    // 9: the DKIM signatures already received (`verify::SignatureTags::replay_key`),
    // each with the first message that carried it: a genuine signed message
    // re-sent by someone who received it, under a new Message-ID, is a replay.
    "CREATE TABLE signatures (
        replay_key TEXT PRIMARY KEY,
        inbox_id INTEGER NOT NULL
    );",
    // 10: the public web site kept current (`site`): how far each site folder
    // was built, with what its next build goes on from, and the announcements
    // to the list numbered once, in the record and within their game.
    "CREATE TABLE site_cursor (
        dir TEXT PRIMARY KEY,
        fingerprint TEXT NOT NULL,
        event_seq INTEGER NOT NULL,
        state TEXT NOT NULL
    );
    CREATE TABLE site_announcements (
        outbox_id INTEGER PRIMARY KEY,
        number INTEGER NOT NULL UNIQUE,
        game TEXT,
        game_number INTEGER
    );
    CREATE INDEX site_announcements_game ON site_announcements (game, game_number);",
    // 11: a batch's sealed actions, and the voids, found without reading the
    // whole log (`store::sealed_log`): a batch's commitments and reveal list
    // every action sealed in it, replaced ones included, and the live state
    // keeps only those that may still count (issue 30). Partial indexes over
    // the payload's JSON, so that no row is written differently.
    "CREATE INDEX events_sealed ON events (json_extract(payload, '$.batch'), seq)
        WHERE json_extract(payload, '$.game') = 'sealed' AND json_extract(payload, '$.kind') = 'sealed';
    CREATE INDEX events_voids ON events (seq)
        WHERE json_extract(payload, '$.game') = 'override' AND json_extract(payload, '$.kind') = 'voided';",
    // 12: the shared history the
    // site's fold retires (the revealed sealed batches, the finished random
    // periods), one row an item, numbered in the order retired, so a build
    // reads only the page an item falls on rather than carrying the whole
    // history in its cursor.
    "CREATE TABLE site_archive (
        dir TEXT NOT NULL,
        kind TEXT NOT NULL,
        number INTEGER NOT NULL,
        item TEXT NOT NULL,
        PRIMARY KEY (dir, kind, number)
    ) WITHOUT ROWID;",
    // 13: the state snapshot in rows (`store::state`): one per part of the world
    // and one per player, so a step writes what it changed. `generation` counts
    // the writes, so a process knows whether the rows are still those it wrote.
    // `finish` splits the snapshot there was and drops the column it was in.
    "CREATE TABLE state_parts (
        part TEXT PRIMARY KEY,
        json TEXT NOT NULL
    );
    CREATE TABLE state_players (
        position INTEGER PRIMARY KEY,
        json TEXT NOT NULL
    );
    ALTER TABLE state ADD COLUMN generation INTEGER NOT NULL DEFAULT 0;",
];

/// What a migration needs beyond its SQL, in the same transaction: `version` is
/// the schema version it brings the database to.
fn finish(version: usize, tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    match version {
        4 => fill_arrival_ns(tx),
        6 => pad_outbox_times(tx),
        13 => super::state::split_snapshot(tx),
        _ => Ok(()),
    }
}

fn parse_time(text: &str) -> rusqlite::Result<jiff::Timestamp> {
    text.parse().map_err(|error| {
        rusqlite::Error::FromSqlConversionFailure(1, rusqlite::types::Type::Text, Box::new(error))
    })
}

fn pad_outbox_times(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    let rows: Vec<(i64, String, Option<String>)> = tx
        .prepare("SELECT id, next_attempt_at, digest_at FROM outbox")?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut update =
        tx.prepare("UPDATE outbox SET next_attempt_at = ?2, digest_at = ?3 WHERE id = ?1")?;
    for (id, next, digest) in rows {
        let digest = digest.map(|at| parse_time(&at).map(sortable)).transpose()?;
        update.execute(rusqlite::params![id, sortable(parse_time(&next)?), digest])?;
    }
    Ok(())
}

/// The outbox's times that SQL compares, fixed-width (nine fractional digits)
/// so that text order is time order.
pub fn sortable(at: jiff::Timestamp) -> String {
    at.strftime("%Y-%m-%dT%H:%M:%S%.9fZ").to_string()
}

fn fill_arrival_ns(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    let rows: Vec<(i64, String)> = tx
        .prepare("SELECT id, received_at FROM inbox")?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut update = tx.prepare("UPDATE inbox SET arrival_ns = ?2 WHERE id = ?1")?;
    for (id, received_at) in rows {
        update.execute(rusqlite::params![id, arrival_ns(parse_time(&received_at)?)])?;
    }
    Ok(())
}

/// An arrival time as the number it is ordered by: nanoseconds since 1970 (UTC),
/// held at the ends of `i64` (the years 1677 and 2262); beyond, arrivals tie and
/// are taken in the order they were stored.
pub fn arrival_ns(at: jiff::Timestamp) -> i64 {
    let nanos = at.as_nanosecond();
    i64::try_from(nanos).unwrap_or(if nanos < 0 { i64::MIN } else { i64::MAX })
}

/// The schema this binary creates and reads.
pub fn current() -> i64 {
    i64::try_from(MIGRATIONS.len()).unwrap_or(i64::MAX)
}

/// The schema version of a database (`PRAGMA user_version`).
pub fn version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA user_version", [], |row| row.get(0))
}

/// The tables of a database, by name (SQLite's own left out).
pub fn tables(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    conn.prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
    )?
    .query_map([], |row| row.get(0))?
    .collect()
}

/// Whether a database with this schema version and these tables is nomicbot's:
/// a new one has no table at all; from the first migration on, it has those of
/// the first migration (another program's database may have a version too).
pub fn is_ours(version: i64, tables: &[String]) -> bool {
    if version == 0 {
        return tables.is_empty();
    }
    ["inbox", "imap_sync", "events", "state", "outbox"]
        .iter()
        .all(|table| tables.iter().any(|t| t == table))
}

/// Applies the migrations the database has not had yet. The caller has refused a
/// database whose schema is newer than `current()`.
pub fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    let version = version(conn)?;
    for (index, sql) in MIGRATIONS
        .iter()
        .enumerate()
        .skip(usize::try_from(version).unwrap_or(0))
    {
        // IMMEDIATE: the write lock first, then the version read again, so that a
        // second process opening the same database at once (a reader beside the
        // bot) waits and then skips what the first one did.
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let done: i64 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
        if done > i64::try_from(index).unwrap_or(i64::MAX) {
            continue;
        }
        tx.execute_batch(sql)?;
        finish(index + 1, &tx)?;
        tx.pragma_update(
            None,
            "user_version",
            i64::try_from(index + 1).unwrap_or(i64::MAX),
        )?;
        tx.commit()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database as the release before event formats left it (schema 2).
    fn schema_2(path: &std::path::Path) {
        let conn = Connection::open(path).expect("open");
        conn.execute_batch(MIGRATIONS[0]).expect("schema 1");
        conn.execute_batch(MIGRATIONS[1]).expect("schema 2");
        conn.pragma_update(None, "user_version", 2)
            .expect("version");
        conn.execute(
            "INSERT INTO events (at, cause, payload) VALUES ('2026-01-05T10:00:00Z', 'mail:<a@b>',
             '{\"game\":\"players\",\"kind\":\"joined\",\"id\":1,\"name\":\"Alice\",\"address\":\"alice@nomic.example\"}')",
            [],
        )
        .expect("event");
        conn.execute(
            "INSERT INTO state (id, world, clock) VALUES (1, '{\"players\":{}}', '2026-01-05T10:00:00Z')",
            [],
        )
        .expect("state");
    }

    #[test]
    fn a_schema_2_database_upgrades_in_place_and_its_rows_are_format_1() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("old.sqlite");
        schema_2(&path);
        let store = crate::store::Store::open(&path).expect("opens and migrates");
        assert_eq!(version(&store.conn).expect("version"), current());
        let events = store.events().expect("the old event reads");
        assert_eq!(events.len(), 1);
        let (format, state_format): (i64, i64) = store
            .conn
            .query_row(
                "SELECT (SELECT format FROM events), (SELECT format FROM state)",
                [],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .expect("formats");
        assert_eq!((format, state_format), (1, 1));
    }

    /// Hardening: "Arrival order breaks within one second", in a database written
    /// before the fix (schema 3): its pending messages are taken in time order.
    #[test]
    fn a_schema_3_inbox_is_ordered_by_time_after_the_upgrade() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("old.sqlite");
        {
            let conn = Connection::open(&path).expect("open");
            for sql in &MIGRATIONS[..3] {
                conn.execute_batch(sql).expect("schema");
            }
            conn.pragma_update(None, "user_version", 3)
                .expect("version");
            // Stored in time order; as text, the later two sort first.
            for (n, received_at) in [
                "2026-01-05T10:00:00Z",
                "2026-01-05T10:00:00.25Z",
                "2026-01-05T10:00:00.3Z",
            ]
            .iter()
            .enumerate()
            {
                conn.execute(
                    "INSERT INTO inbox (source, source_key, dedup_key, received_at, stored_at, raw, status)
                     VALUES ('file', ?1, ?1, ?2, ?2, x'', 'pending')",
                    rusqlite::params![format!("m{n}"), received_at],
                )
                .expect("inbox row");
            }
        }
        let store = crate::store::Store::open(&path).expect("opens and migrates");
        let mut order = Vec::new();
        while let Some(row) = store.next_pending().expect("next") {
            order.push(row.dedup_key.clone());
            store
                .conn
                .execute(
                    "UPDATE inbox SET status = 'applied' WHERE id = ?1",
                    [row.id],
                )
                .expect("done");
        }
        assert_eq!(order, ["m0", "m1", "m2"]);
    }

    /// Issue 30: a database of schema 10 kept the state as one JSON text; the
    /// upgrade splits it into rows and the world loads as it was. A snapshot in
    /// another format is left to be rebuilt from the log, as before.
    #[test]
    fn a_schema_10_snapshot_is_split_into_rows_and_loads_as_it_was() {
        use crate::engine::Address;
        use crate::engine::players::Event as PlayerEvent;
        use crate::games::{Event, World};
        let mut world = World::default();
        for id in 1..=40 {
            world.apply_event(
                &Event::Players(PlayerEvent::Joined {
                    id,
                    name: format!("Player{id}"),
                    address: Address::new(&format!("player{id}@nomic.example")),
                }),
                "2026-01-05T10:00:00Z".parse().expect("time"),
            );
        }
        world.voided.push("gone@nomic.example".to_owned());
        let json = serde_json::to_string(&world).expect("json");
        let old = |format: i64| {
            let dir = tempfile::tempdir().expect("temp dir");
            let path = dir.path().join("old.sqlite");
            let conn = Connection::open(&path).expect("open");
            for sql in &MIGRATIONS[..10] {
                conn.execute_batch(sql).expect("schema");
            }
            conn.pragma_update(None, "user_version", 10)
                .expect("version");
            conn.execute(
                "INSERT INTO state (id, world, clock, format) VALUES (1, ?1, '2026-01-05T10:00:00Z', ?2)",
                rusqlite::params![json, format],
            )
            .expect("state");
            drop(conn);
            let mut store = crate::store::Store::open(&path).expect("opens and migrates");
            assert_eq!(version(&store.conn).expect("version"), current());
            (dir, store.load_world().expect("load"))
        };
        let (_dir, (loaded, clock)) = old(crate::store::STATE_FORMAT);
        assert_eq!(loaded.as_ref(), Some(&world));
        assert_eq!(clock, Some("2026-01-05T10:00:00Z".parse().expect("time")));
        let (_dir, (loaded, clock)) = old(crate::store::STATE_FORMAT - 1);
        assert_eq!(loaded, None, "rebuilt from the log");
        assert!(clock.is_some());
    }

    #[test]
    fn a_newer_schema_is_refused_before_anything_is_migrated() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("new.sqlite");
        drop(crate::store::Store::open(&path).expect("create"));
        {
            let conn = Connection::open(&path).expect("open");
            conn.pragma_update(None, "user_version", current() + 1)
                .expect("version");
            conn.execute(
                "UPDATE meta SET value = '7.0.0' WHERE key = 'written_by'",
                [],
            )
            .expect("meta");
        }
        let error = crate::store::Store::open(&path)
            .err()
            .expect("a newer schema is refused")
            .to_string();
        assert!(
            error.contains(&format!("schema version {}", current() + 1))
                && error.contains("written by nomicbot 7.0.0"),
            "{error}"
        );
    }

    /// Hardening: the outbox's times compared as text. A retry due a fraction of
    /// a second after a whole second is not due on that second, and a database
    /// written before the fix (schema 5) has its times padded by the upgrade.
    #[test]
    fn a_retry_within_one_second_waits_for_its_time_before_and_after_the_upgrade() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("old.sqlite");
        {
            let conn = Connection::open(&path).expect("open");
            for sql in &MIGRATIONS[..5] {
                conn.execute_batch(sql).expect("schema");
            }
            conn.pragma_update(None, "user_version", 5)
                .expect("version");
            conn.execute(
                "INSERT INTO outbox (message_id, cause, template, envelope_from, recipients, raw, created_at, next_attempt_at, status, digest_at)
                 VALUES ('<a@x>', 'test', 'reply', '', '[\"a@x\"]', x'', '2026-01-05T10:00:00Z', '2026-01-05T10:00:00.3Z', 'pending', NULL),
                        ('<b@x>', 'test', 'reply', '', '[\"b@x\"]', x'', '2026-01-05T10:00:00Z', '2026-01-05T10:00:00Z', 'folded', '2026-01-05T23:59:59.5Z')",
                [],
            )
            .expect("rows");
        }
        let store = crate::store::Store::open(&path).expect("upgrade");
        let at = |text: &str| text.parse::<jiff::Timestamp>().expect("time");
        let due = |now: &str| store.due_outbox(at(now)).expect("due").len();
        assert_eq!(
            due("2026-01-05T10:00:00Z"),
            0,
            "not due on the whole second"
        );
        assert_eq!(due("2026-01-05T10:00:00.299Z"), 0);
        assert_eq!(due("2026-01-05T10:00:00.3Z"), 1);
        assert_eq!(
            store.next_retry().expect("retry"),
            Some(at("2026-01-05T10:00:00.3Z"))
        );
        let digest = at("2026-01-05T23:59:59.5Z");
        assert_eq!(store.next_digest().expect("digest"), Some(digest));
        assert_eq!(store.folded(digest).expect("folded").len(), 1);
    }
}
