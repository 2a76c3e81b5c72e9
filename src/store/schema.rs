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
    // 4: the daily cap on answers (`[limits] max_answers_per_day`). An answer
    // records whose cap it counts against and on which day; past the cap a mail
    // is `folded`, to go out in its recipient's digest at `digest_at` (the end of
    // that day), after which it is `digested`.
    "ALTER TABLE outbox ADD COLUMN answer_to TEXT;
    ALTER TABLE outbox ADD COLUMN answer_day TEXT;
    ALTER TABLE outbox ADD COLUMN digest_at TEXT;
    CREATE INDEX outbox_answers ON outbox (answer_to, answer_day);
    CREATE INDEX outbox_folded ON outbox (status, digest_at);",
];

/// The schema this binary creates and reads.
pub fn current() -> i64 {
    i64::try_from(MIGRATIONS.len()).unwrap_or(i64::MAX)
}

/// The schema version of a database (`PRAGMA user_version`).
pub fn version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA user_version", [], |row| row.get(0))
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
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
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
}
