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
];

pub fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0))?;
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
