//! SQLite: the inbox (every message as received), the event log, the state
//! snapshot and the outbox. Only this module runs SQL. One writer connection;
//! every step of the pipeline is one transaction, so a crash leaves either all of
//! a step or none of it.

pub mod events;
pub mod lock;
mod schema;
mod sealed_log;
pub mod sent;
mod site;
mod state;

use std::path::Path;

use jiff::Timestamp;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use serde::Serialize;
use sha2::Digest;

use crate::games::{Event, World};
use schema::sortable;
pub use site::{SiteAnnouncement, SiteCursor};

/// The end of the reason of a private message's copy the list delivered, once
/// its sender has been told.
pub const ECHO_TOLD: &str =
    "the list delivered this private message to everyone, and its sender was told";

/// The beginning of the reason of a message kept aside and given back to the
/// pipeline by the operator (`nomicbot inbox --release ID`): the flood bounds
/// let it through.
pub const RELEASED: &str = "released by the operator";

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The database rolled back a batch of steps on its own (after a full disk,
    /// say): none of them was kept, and they are applied again.
    #[error("database: the last steps were rolled back and will be applied again")]
    BatchLost,
    /// The record of accepted mail beside the database (`store::sent`).
    #[error("cannot write {path}: {detail}")]
    Journal { path: String, detail: String },
    #[error("database {path}: journal mode is {mode}, not wal")]
    NotWal { path: String, mode: String },
    #[error("database holds data this version cannot read ({what}): {source}")]
    Corrupt {
        what: String,
        source: serde_json::Error,
    },
    #[error("database timestamp {value:?} is not valid")]
    BadTime { value: String },
    /// An event in a format this binary cannot read (newer, or damaged).
    #[error("database {path}: {source}")]
    Format {
        path: String,
        source: events::FormatError,
    },
    /// At open: a file that is no SQLite database, or a damaged one. Refused
    /// before anything is written.
    #[error(
        "database {path} {problem}: restore it from a backup, or set [bot] database in the config to the right file"
    )]
    Damaged { path: String, problem: String },
    /// At open: an SQLite database of another program. Refused before anything is
    /// written.
    #[error(
        "database {path} is not a nomicbot database (it holds {tables}): set [bot] database in the config to nomicbot's database, or to a file that does not exist yet for a new one"
    )]
    Foreign { path: String, tables: String },
    /// The database's disk (or the quota on it) is full: the transaction in hand was
    /// rolled back.
    #[error(
        "database {path}: its disk is full ({detail}): the step in hand was rolled back and nothing is lost; free some space, then run nomicbot again"
    )]
    DiskFull { path: String, detail: String },
    /// Tables and columns of a newer release: refused before anything is migrated.
    #[error(
        "database {path} has schema version {schema}, but this nomicbot ({version}) knows schema versions up to {known}: it was written by {written_by}; upgrade nomicbot to open it"
    )]
    NewerSchema {
        path: String,
        schema: i64,
        known: i64,
        version: &'static str,
        written_by: String,
    },
}

impl StoreError {
    /// Names the database in the errors its file or its disk caused, and says
    /// what to do about them; any other error as it is.
    fn in_database(self, path: &str) -> StoreError {
        let StoreError::Sqlite(error @ rusqlite::Error::SqliteFailure(failure, _)) = &self else {
            return self;
        };
        let path = path.to_owned();
        match failure.code {
            // SQLite reports a full disk as such, except when it cannot enlarge the
            // WAL's shared-memory file, which it reports as an I/O error.
            rusqlite::ErrorCode::DiskFull => StoreError::DiskFull {
                path,
                detail: error.to_string(),
            },
            rusqlite::ErrorCode::SystemIoFailure
                if failure.extended_code == rusqlite::ffi::SQLITE_IOERR_SHMSIZE =>
            {
                StoreError::DiskFull {
                    path,
                    detail: "cannot enlarge its -shm file".to_owned(),
                }
            }
            rusqlite::ErrorCode::NotADatabase => StoreError::Damaged {
                path,
                problem: format!("is not an SQLite database ({error})"),
            },
            rusqlite::ErrorCode::DatabaseCorrupt => StoreError::Damaged {
                path,
                problem: format!("is damaged ({error})"),
            },
            _ => self,
        }
    }
}

/// Refuses, before SQLite reads it, a file SQLite would misread: one that does not
/// begin with SQLite's header, or that is shorter than its header says (cut short
/// by a copy, a restore or a full disk). A missing or empty file is a new
/// database; one SQLite cannot open is left for SQLite to name.
fn check_header(path: &Path, shown: &str) -> Result<()> {
    use std::io::Read;
    let Ok(mut file) = std::fs::File::open(path) else {
        return Ok(());
    };
    let length = file.metadata().map_or(0, |m| m.len());
    if length == 0 {
        return Ok(());
    }
    let damaged = |problem: String| StoreError::Damaged {
        path: shown.to_owned(),
        problem,
    };
    let mut header = [0u8; 100];
    if file.read_exact(&mut header).is_err() || &header[..16] != b"SQLite format 3\0" {
        return Err(damaged(
            "is not an SQLite database (it does not begin with SQLite's header)".to_owned(),
        ));
    }
    // While a write-ahead log is there, the newest pages may be in it alone.
    let mut wal = path.as_os_str().to_owned();
    wal.push("-wal");
    if std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0) {
        return Ok(());
    }
    let page_size = match u16::from_be_bytes([header[16], header[17]]) {
        1 => 65536,
        size => u64::from(size),
    };
    let pages = u64::from(u32::from_be_bytes([
        header[28], header[29], header[30], header[31],
    ]));
    // The page count is valid when its change counter matches the file's.
    let counted = header[24..28] == header[92..96];
    if counted && length < page_size * pages {
        return Err(damaged(format!(
            "is cut short: it is {length} bytes long, and its header says {}",
            page_size * pages
        )));
    }
    Ok(())
}

/// The format of the state snapshot (the JSON of `games::World`, kept in rows by
/// `store::state`: one per part and one per player, `state.format` for them all).
/// Bump it whenever `World`'s JSON changes shape; it needs no migration, because the
/// snapshot is only a cache of the event log's fold: a snapshot in any other format
/// is ignored at open and the state rebuilt from the log (see `Store::load_world`).
/// 2: the live state keeps no finished history (ballots resolved, seeds published,
/// sealed batches revealed) and counts the ballots opened.
/// 3: the registry keeps the ids of voided joins (never given out again).
pub const STATE_FORMAT: i64 = 3;

/// The meta key that records the last release that opened the database to write.
const WRITTEN_BY: &str = "written_by";

pub type Result<T> = std::result::Result<T, StoreError>;

/// Where a message came from: decides its key for "stored already?".
#[derive(Debug, Clone)]
pub enum Origin {
    /// IMAP mailbox, UIDVALIDITY and UID.
    Imap {
        mailbox: String,
        uidvalidity: u32,
        uid: u32,
    },
    /// A Maildir file, by its unique name.
    Maildir { unique: String },
    /// Given on the command line (`ingest`), by a hash of its bytes and position.
    File { key: String },
}

impl Origin {
    fn parts(&self) -> (String, Option<i64>, Option<i64>, Option<String>) {
        match self {
            Origin::Imap {
                mailbox,
                uidvalidity,
                uid,
            } => (
                format!("imap:{mailbox}"),
                Some(i64::from(*uidvalidity)),
                Some(i64::from(*uid)),
                None,
            ),
            Origin::Maildir { unique } => ("maildir".into(), None, None, Some(unique.clone())),
            Origin::File { key } => ("file".into(), None, None, Some(key.clone())),
        }
    }
}

/// One message as received: stored before anything is done with it.
#[derive(Debug, Clone)]
pub struct Received {
    pub origin: Origin,
    pub received_at: Timestamp,
    pub raw: Vec<u8>,
    /// Message-ID, or a hash of the bytes when there is none: the same message
    /// seen again (a re-created mailbox, a re-ingested file) is not applied twice.
    pub dedup_key: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    New(i64),
    /// Same dedup key as an earlier message: kept, marked duplicate, not applied.
    Duplicate(i64),
    /// This very origin was stored before (e.g. a crash before the Maildir move).
    AlreadyStored,
}

/// What became of an inbox message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InboxStatus {
    Pending,
    /// Commands were applied (or refused) and the sender answered.
    Applied,
    /// Kept aside with a reason: no tag, automatic, the bot's own, no sender.
    Aside,
    Duplicate,
}

/// Enough of a message's start for its From and Subject: headers longer than
/// this are rare, and a sender shown as unknown is all that is lost.
const INBOX_HEAD_BYTES: usize = 16 * 1024;

impl InboxStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            InboxStatus::Pending => "pending",
            InboxStatus::Applied => "applied",
            InboxStatus::Aside => "aside",
            InboxStatus::Duplicate => "duplicate",
        }
    }
    fn parse(s: &str) -> InboxStatus {
        match s {
            "applied" => InboxStatus::Applied,
            "aside" => InboxStatus::Aside,
            "duplicate" => InboxStatus::Duplicate,
            _ => InboxStatus::Pending,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct InboxRow {
    pub id: i64,
    pub source: String,
    pub dedup_key: String,
    pub received_at: Timestamp,
    pub status: InboxStatus,
    pub reason: Option<String>,
    #[serde(skip)]
    pub raw: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct EventRecord {
    pub seq: i64,
    pub at: Timestamp,
    /// What caused it: `mail:<dedup key>` or `deadline:<time>`.
    pub cause: String,
    pub event: Event,
}

/// An outgoing message, rendered and ready to go.
#[derive(Debug, Clone, Serialize)]
pub struct OutRow {
    pub id: i64,
    pub message_id: String,
    pub cause: String,
    pub template: String,
    pub envelope_from: String,
    pub recipients: Vec<String>,
    #[serde(skip)]
    pub raw: Vec<u8>,
    pub created_at: Timestamp,
    pub status: String,
    pub attempts: i64,
    pub next_attempt_at: Timestamp,
    pub last_error: Option<String>,
    pub sent_at: Option<Timestamp>,
}

/// A new outgoing message for `commit`.
#[derive(Debug, Clone)]
pub struct NewMail {
    pub message_id: String,
    pub template: String,
    pub envelope_from: String,
    pub recipients: Vec<String>,
    pub raw: Vec<u8>,
    /// What the daily cap on answers makes of it (`Quota::Free` for the rest).
    pub quota: Quota,
    /// What it was written from, so the answer that reaches the daily cap can be
    /// written again with the notice that says so. Not stored.
    pub written_from: Option<Box<WrittenFrom>>,
}

/// The inputs of one rendered mail (see [`NewMail::written_from`]).
#[derive(Debug, Clone)]
pub struct WrittenFrom {
    pub mail: crate::engine::Mail,
    pub cause: String,
    pub index: usize,
    pub thread: crate::mail::compose::Thread,
    pub kind: crate::mail::compose::Kind,
    pub now: Timestamp,
}

/// A mail under the daily cap on answers to a sender (`[limits] max_answers_per_day`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Quota {
    /// Not an answer (an announcement, a notice): never capped.
    Free,
    /// An answer sent now, counted against `sender`'s cap on `day` (a date).
    Counted { sender: String, day: String },
    /// Past the cap: kept in the outbox, and sent in its recipient's digest at
    /// `digest_at` (the end of the day).
    Folded { digest_at: Timestamp },
}

/// One step of the pipeline, committed at once: a message (or a deadline) handled,
/// its events, the new state and its outgoing mail.
#[derive(Debug)]
pub struct Step<'a> {
    /// The inbox message this step handled, and what became of it.
    pub inbox: Option<(i64, InboxStatus, Option<String>)>,
    pub cause: String,
    pub at: Timestamp,
    pub events: Vec<Event>,
    pub world: &'a World,
    pub mail: Vec<NewMail>,
    pub now: Timestamp,
}

pub struct Store {
    conn: Connection,
    /// The database file, for error messages.
    path: String,
    /// The steps committed since [`Store::begin_batch`], if a batch is open.
    batch: Option<Batch>,
    /// The state this connection last wrote or read, while the database holds
    /// it: the next write writes only what differs (`store::state`).
    written: Option<state::Written>,
}

/// Steps committed inside one transaction: each atomic on its own (a
/// savepoint), all durable together at [`Store::end_batch`], which writes the
/// state once for all of them.
#[derive(Debug, Default)]
struct Batch {
    /// The clock the state row gets: the time of the last step.
    clock: Option<Timestamp>,
}

/// 32 bytes from the operating system's generator.
fn fresh_secret() -> [u8; 32] {
    use rand::TryRng;
    let mut bytes = [0u8; 32];
    if rand::rngs::SysRng.try_fill_bytes(&mut bytes).is_err() {
        // No OS generator: fall back to what differs between machines and moments.
        let seed = format!(
            "{:?} {} {:?}",
            std::time::SystemTime::now(),
            std::process::id(),
            std::thread::current().id()
        );
        bytes.copy_from_slice(&sha2::Sha256::digest(seed.as_bytes()));
    }
    bytes
}

/// The release recorded as the last to open the database for writing.
fn written_by(conn: &Connection) -> Result<Option<String>> {
    let has_meta: bool = conn.query_row(
        "SELECT count(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'meta'",
        [],
        |row| row.get(0),
    )?;
    if !has_meta {
        return Ok(None);
    }
    Ok(conn
        .query_row(
            "SELECT value FROM meta WHERE key = ?1",
            params![WRITTEN_BY],
            |row| row.get(0),
        )
        .optional()?)
}

fn ts(value: String) -> Result<Timestamp> {
    value.parse().map_err(|_| StoreError::BadTime { value })
}

/// A write waits for the other connection's transaction to end in short naps,
/// so it goes on the moment the lock is free (SQLite's own timeout naps up to
/// 100 ms at a time), for ten seconds at most.
fn wait_for_the_lock(naps: i32) -> bool {
    const NAP: std::time::Duration = std::time::Duration::from_micros(200);
    const NAPS: i32 = 50_000;
    std::thread::sleep(NAP);
    naps < NAPS
}

impl Store {
    pub fn open(path: &Path) -> Result<Store> {
        let shown = path.display().to_string();
        Store::open_checked(path, &shown).map_err(|error| error.in_database(&shown))
    }

    fn open_checked(path: &Path, shown: &str) -> Result<Store> {
        // Nothing is written before the file is known to be a nomicbot database
        // this release can read: any other file is refused as it is.
        check_header(path, shown)?;
        let mut conn = Connection::open(path)?;
        conn.busy_handler(Some(wait_for_the_lock))?;
        let schema_version = schema::version(&conn)?;
        let tables = schema::tables(&conn)?;
        if !schema::is_ours(schema_version, &tables) {
            return Err(StoreError::Foreign {
                path: shown.to_owned(),
                tables: format!("the tables {}", tables.join(", ")),
            });
        }
        if schema_version > schema::current() {
            return Err(StoreError::NewerSchema {
                written_by: written_by(&conn)
                    .ok()
                    .flatten()
                    .filter(|v| v != env!("CARGO_PKG_VERSION"))
                    .map_or_else(
                        || "a newer nomicbot".to_owned(),
                        |v| format!("nomicbot {v}"),
                    ),
                path: shown.to_owned(),
                schema: schema_version,
                known: schema::current(),
                version: env!("CARGO_PKG_VERSION"),
            });
        }
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::NotWal {
                path: path.display().to_string(),
                mode,
            });
        }
        // NORMAL would already survive a process crash in WAL mode; FULL also survives
        // a power cut, so a message acknowledged on the server is never lost. Each
        // commit costs one fsync of the WAL.
        conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;")?;
        schema::migrate(&mut conn)?;
        let store = Store {
            conn,
            path: shown.to_owned(),
            batch: None,
            written: None,
        };
        store.check_event_formats()?;
        store.conn.execute(
            "INSERT INTO meta (key, value) VALUES (?1, ?2)
             ON CONFLICT(key) DO UPDATE SET value = ?2 WHERE value != ?2",
            params![WRITTEN_BY, env!("CARGO_PKG_VERSION")],
        )?;
        Ok(store)
    }

    /// Runs a write, naming the database in what its file or its disk makes fail
    /// (a full disk above all).
    fn write<T>(&mut self, write: impl FnOnce(&mut Connection) -> Result<T>) -> Result<T> {
        write(&mut self.conn).map_err(|error| error.in_database(&self.path))
    }

    /// Refuses to open a log with an event this binary cannot read (a newer release
    /// wrote it), naming the release, before any state is loaded or written.
    fn check_event_formats(&self) -> Result<()> {
        let unreadable: Option<(i64, i64)> = self
            .conn
            .query_row(
                "SELECT seq, format FROM events WHERE format > ?1 OR format < 1 ORDER BY format DESC, seq LIMIT 1",
                params![events::EVENT_FORMAT],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?;
        if let Some((seq, format)) = unreadable {
            let written_by = written_by(&self.conn)?;
            events::check_readable(&format!("event #{seq}"), format, written_by.as_deref())
                .map_err(|source| StoreError::Format {
                    path: self.path.clone(),
                    source,
                })?;
        }
        Ok(())
    }

    /// Stores a batch of received messages in one transaction, and (for IMAP) the
    /// new high-water mark with them, so a crash cannot separate the two.
    pub fn store_received(
        &mut self,
        batch: &[Received],
        imap_mark: Option<(&str, u32, u32)>,
        now: Timestamp,
    ) -> Result<Vec<Stored>> {
        self.write(|conn| {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let mut results = Vec::with_capacity(batch.len());
            for message in batch {
                let (source, uidvalidity, uid, source_key) = message.origin.parts();
                let exists: Option<i64> = tx
                    .query_row(
                        "SELECT id FROM inbox WHERE source = ?1 AND uidvalidity IS ?2 AND uid IS ?3 AND source_key IS ?4",
                        params![source, uidvalidity, uid, source_key],
                        |row| row.get(0),
                    )
                    .optional()?;
                if exists.is_some() {
                    results.push(Stored::AlreadyStored);
                    continue;
                }
                let earlier: Option<i64> = tx
                    .query_row(
                        "SELECT id FROM inbox WHERE dedup_key = ?1 AND status != 'duplicate' ORDER BY id LIMIT 1",
                        params![message.dedup_key],
                        |row| row.get(0),
                    )
                    .optional()?;
                let (status, reason) = match earlier {
                    Some(id) => (
                        InboxStatus::Duplicate,
                        Some(format!("same message as inbox #{id}")),
                    ),
                    None => (InboxStatus::Pending, None),
                };
                tx.execute(
                    "INSERT INTO inbox (source, uidvalidity, uid, source_key, dedup_key, received_at, stored_at, raw, status, reason, arrival_ns, echo_of)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                    params![
                        source,
                        uidvalidity,
                        uid,
                        source_key,
                        message.dedup_key,
                        message.received_at.to_string(),
                        now.to_string(),
                        message.raw,
                        status.as_str(),
                        reason,
                        schema::arrival_ns(message.received_at),
                        earlier
                    ],
                )?;
                let id = tx.last_insert_rowid();
                results.push(match earlier {
                    Some(_) => Stored::Duplicate(id),
                    None => Stored::New(id),
                });
            }
            if let Some((mailbox, uidvalidity, last_uid)) = imap_mark {
                tx.execute(
                    "INSERT INTO imap_sync (mailbox, uidvalidity, last_uid) VALUES (?1, ?2, ?3)
                     ON CONFLICT(mailbox) DO UPDATE SET uidvalidity = ?2, last_uid = ?3",
                    params![mailbox, i64::from(uidvalidity), i64::from(last_uid)],
                )?;
            }
            tx.commit()?;
            Ok(results)
        })
    }

    /// The UIDVALIDITY and last UID seen for an IMAP mailbox.
    pub fn imap_mark(&self, mailbox: &str) -> Result<Option<(u32, u32)>> {
        Ok(self
            .conn
            .query_row(
                "SELECT uidvalidity, last_uid FROM imap_sync WHERE mailbox = ?1",
                params![mailbox],
                |row| Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?)),
            )
            .optional()?
            .map(|(validity, uid)| {
                (
                    u32::try_from(validity).unwrap_or(0),
                    u32::try_from(uid).unwrap_or(0),
                )
            }))
    }

    /// The oldest message not yet handled, in arrival order: by the arrival time
    /// as a number (its text does not sort as time within a second), then in the
    /// order stored.
    pub fn next_pending(&self) -> Result<Option<InboxRow>> {
        self.inbox_query(
            "WHERE status = 'pending' ORDER BY arrival_ns, id LIMIT 1",
            [],
        )
        .map(|mut rows| rows.pop())
    }

    /// The oldest duplicate not yet looked at whose first copy has been handled,
    /// with that first copy.
    pub fn next_echo(&self) -> Result<Option<(InboxRow, InboxRow)>> {
        let echo = self
            .inbox_query(
                "WHERE echo_of IS NOT NULL AND (SELECT status FROM inbox AS first WHERE first.id = inbox.echo_of) != 'pending'
                 ORDER BY arrival_ns, id LIMIT 1",
                [],
            )?
            .pop();
        let Some(echo) = echo else {
            return Ok(None);
        };
        let first: i64 = self.conn.query_row(
            "SELECT echo_of FROM inbox WHERE id = ?1",
            [echo.id],
            |row| row.get(0),
        )?;
        let first = self.inbox_query("WHERE id = ?1", [first])?.pop();
        Ok(first.map(|first| (echo, first)))
    }

    /// Whether a copy of this message was already found to have gone public,
    /// and its sender told (the reason says so).
    pub fn echo_told(&self, dedup_key: &str) -> Result<bool> {
        Ok(self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM inbox WHERE dedup_key = ?1 AND status = 'duplicate' AND echo_of IS NULL AND reason LIKE ?2)",
            params![dedup_key, format!("%{ECHO_TOLD}")],
            |row| row.get(0),
        )?)
    }

    /// Each stored message's key and the start of its text (where its headers
    /// are): enough to say who sent it and its subject, without holding every
    /// message whole.
    pub fn inbox_heads(&self) -> Result<Vec<(String, Vec<u8>)>> {
        let mut statement = self.conn.prepare(&format!(
            "SELECT dedup_key, substr(raw, 1, {INBOX_HEAD_BYTES}) FROM inbox ORDER BY id"
        ))?;
        let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    }

    pub fn inbox(&self, status: Option<InboxStatus>) -> Result<Vec<InboxRow>> {
        match status {
            Some(status) => self.inbox_query("WHERE status = ?1 ORDER BY id", [status.as_str()]),
            None => self.inbox_query("ORDER BY id", []),
        }
    }

    fn inbox_query<P: rusqlite::Params>(&self, tail: &str, params: P) -> Result<Vec<InboxRow>> {
        let mut statement = self.conn.prepare(&format!(
            "SELECT id, source, dedup_key, received_at, status, reason, raw FROM inbox {tail}"
        ))?;
        let rows = statement.query_map(params, |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, String>(3)?,
                row.get::<_, String>(4)?,
                row.get::<_, Option<String>>(5)?,
                row.get::<_, Vec<u8>>(6)?,
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (id, source, dedup_key, received_at, status, reason, raw) = row?;
            out.push(InboxRow {
                id,
                source,
                dedup_key,
                received_at: ts(received_at)?,
                status: InboxStatus::parse(&status),
                reason,
                raw,
            });
        }
        Ok(out)
    }

    /// The state snapshot and the time the world has been brought up to. No world
    /// when there is no snapshot, or when it is in another `STATE_FORMAT` than this
    /// binary's (an older or a newer release wrote it): then the caller folds the
    /// event log, which is the source of truth, and the next commit writes a
    /// snapshot in today's format.
    pub fn load_world(&mut self) -> Result<(Option<World>, Option<Timestamp>)> {
        // One read transaction: the rows all of one write, even while another
        // process writes.
        let read = if self.conn.is_autocommit() {
            let snapshot = self.conn.unchecked_transaction()?;
            let read = state::read(&snapshot);
            drop(snapshot);
            read
        } else {
            state::read(&self.conn)
        };
        let (written, clock) = read.map_err(|error| error.in_database(&self.path))?;
        let world = written.as_ref().map(|written| written.world().clone());
        self.written = written;
        Ok((world, clock))
    }

    /// Commits one step: inbox status, events, state, outbox, all or nothing.
    /// Inside a batch the state is left to [`Store::end_batch`].
    pub fn commit(&mut self, step: Step<'_>) -> Result<()> {
        let in_batch = self.batch.is_some();
        // Forgotten until the write is committed: a write that fails leaves the
        // next one to write the whole world.
        let last = self.written.take();
        let written = self.atomically(|tx| {
            if let Some((id, status, reason)) = &step.inbox {
                tx.execute(
                    "UPDATE inbox SET status = ?2, reason = ?3, echo_of = NULL WHERE id = ?1",
                    params![id, status.as_str(), reason],
                )?;
            }
            for event in &step.events {
                let payload = serde_json::to_string(event).map_err(|source| StoreError::Corrupt {
                    what: "event".into(),
                    source,
                })?;
                tx.execute(
                    "INSERT INTO events (at, cause, payload, format) VALUES (?1, ?2, ?3, ?4)",
                    params![
                        step.at.to_string(),
                        step.cause,
                        payload,
                        events::EVENT_FORMAT
                    ],
                )?;
            }
            let written = if in_batch {
                None
            } else {
                Some(state::write(tx, last.as_ref(), step.world, step.at)?)
            };
            for mail in &step.mail {
                let recipients =
                    serde_json::to_string(&mail.recipients).map_err(|source| StoreError::Corrupt {
                        what: "recipients".into(),
                        source,
                    })?;
                let (status, answer_to, answer_day, digest_at) = match &mail.quota {
                    Quota::Free => ("pending", None, None, None),
                    Quota::Counted { sender, day } => {
                        ("pending", Some(sender.as_str()), Some(day.as_str()), None)
                    }
                    Quota::Folded { digest_at } => ("folded", None, None, Some(sortable(*digest_at))),
                };
                // A stable Message-ID makes a second insert of the same mail a no-op.
                tx.execute(
                    "INSERT OR IGNORE INTO outbox (message_id, cause, template, envelope_from, recipients, raw, created_at, next_attempt_at, status, answer_to, answer_day, digest_at, step_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8, ?9, ?10, ?11, ?12)",
                    params![
                        mail.message_id,
                        step.cause,
                        mail.template,
                        mail.envelope_from,
                        recipients,
                        mail.raw,
                        sortable(step.now),
                        status,
                        answer_to,
                        answer_day,
                        digest_at,
                        sortable(step.at)
                    ],
                )?;
            }
            Ok(written)
        })?;
        self.written = written.or(last);
        if let Some(batch) = &mut self.batch {
            batch.clock = Some(step.at);
        }
        Ok(())
    }

    /// Claims these DKIM signatures for the message `inbox_id`, unless an earlier
    /// message carried one of them: then that message's dedup key (its
    /// Message-ID). A message handled again finds its own claims.
    pub fn claim_signatures(&mut self, inbox_id: i64, keys: &[String]) -> Result<Option<String>> {
        self.atomically(|tx| {
            for key in keys {
                let earlier: Option<(i64, String)> = tx
                    .query_row(
                        "SELECT s.inbox_id, ifnull(i.dedup_key, '') FROM signatures s LEFT JOIN inbox i ON i.id = s.inbox_id WHERE s.replay_key = ?1",
                        params![key],
                        |row| Ok((row.get(0)?, row.get(1)?)),
                    )
                    .optional()?;
                if let Some((earlier, dedup_key)) = earlier
                    && earlier != inbox_id
                {
                    return Ok(Some(dedup_key));
                }
            }
            for key in keys {
                tx.execute(
                    "INSERT OR IGNORE INTO signatures (replay_key, inbox_id) VALUES (?1, ?2)",
                    params![key, inbox_id],
                )?;
            }
            Ok(None)
        })
    }

    /// How many answers were sent to `sender` on `day` (a date), counted against
    /// the daily cap.
    pub fn answers_on(&self, sender: &str, day: &str) -> Result<usize> {
        let count: i64 = self.conn.query_row(
            "SELECT count(*) FROM outbox WHERE answer_to = ?1 AND answer_day = ?2",
            params![sender, day],
            |row| row.get(0),
        )?;
        Ok(usize::try_from(count).unwrap_or(usize::MAX))
    }

    /// How many messages of `actor` the games were given on `day` (a date),
    /// counted against `[limits] max_actions_per_day`: those admitted by the
    /// bound and applied, not those a moderator released past it.
    pub fn actions_on(&self, actor: &str, day: &str) -> Result<usize> {
        let count: i64 = self.conn.query_row(
            "SELECT count(*) FROM inbox WHERE actor = ?1 AND action_day = ?2 AND held IS NULL AND status = 'applied'",
            params![actor, day],
            |row| row.get(0),
        )?;
        Ok(usize::try_from(count).unwrap_or(usize::MAX))
    }

    /// Records that a message is given to the games as an action of `actor` on
    /// `day`, or (`held`) that a flood bound holds it. Written in the open batch,
    /// so it is durable with the step or not at all; written again the same if
    /// the step is taken again.
    pub fn mark_actor(
        &mut self,
        id: i64,
        actor: &str,
        day: &str,
        held: Option<&str>,
    ) -> Result<()> {
        self.atomically(|tx| {
            tx.execute(
                "UPDATE inbox SET actor = ?2, action_day = ?3, held = ?4 WHERE id = ?1",
                params![id, actor, day, held],
            )?;
            Ok(())
        })
    }

    /// Whether a message of `actor` other than `id` was held on `day` by a bound
    /// whose mark begins with `held` (then its sender was told already).
    pub fn was_held(&self, actor: &str, day: &str, held: &str, id: i64) -> Result<bool> {
        Ok(self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM inbox WHERE actor = ?1 AND action_day = ?2 AND substr(held, 1, length(?3)) = ?3 AND id != ?4)",
            params![actor, day, held, id],
            |row| row.get(0),
        )?)
    }

    /// Whether a message other than `id`, of any sender, was held with this
    /// very mark (then the moderators were alerted of this crossing already).
    pub fn held_as(&self, held: &str, id: i64) -> Result<bool> {
        Ok(self.conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM inbox WHERE held = ?1 AND id != ?2)",
            params![held, id],
            |row| row.get(0),
        )?)
    }

    /// The mail written by the steps from `from` to `until` (excluded), as a
    /// count and bytes, less the answers folded into a digest (the digest is
    /// counted when it is written).
    pub fn outgoing_between(&self, from: Timestamp, until: Timestamp) -> Result<(usize, usize)> {
        let (count, bytes): (i64, i64) = self.conn.query_row(
            "SELECT count(*), coalesce(sum(length(raw)), 0) FROM outbox WHERE step_at >= ?1 AND step_at < ?2 AND digest_at IS NULL",
            params![sortable(from), sortable(until)],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )?;
        Ok((
            usize::try_from(count).unwrap_or(usize::MAX),
            usize::try_from(bytes).unwrap_or(usize::MAX),
        ))
    }

    /// Gives messages kept aside back to the pipeline, marked as released (the
    /// flood bounds let them through). Returns the ids that were aside.
    pub fn release(&mut self, ids: &[i64]) -> Result<Vec<i64>> {
        self.atomically(|tx| {
            let mut released = Vec::new();
            for id in ids {
                let changed = tx.execute(
                    "UPDATE inbox SET status = 'pending', reason = ?2 || ifnull(': ' || reason, '') WHERE id = ?1 AND status = 'aside'",
                    params![id, RELEASED],
                )?;
                if changed > 0 {
                    released.push(*id);
                }
            }
            Ok(released)
        })
    }

    /// The earliest time a digest of folded answers is due.
    pub fn next_digest(&self) -> Result<Option<Timestamp>> {
        let next: Option<String> = self.conn.query_row(
            "SELECT min(digest_at) FROM outbox WHERE status = 'folded'",
            [],
            |row| row.get(0),
        )?;
        next.map(ts).transpose()
    }

    /// The folded mail whose digest is due at `digest_at`, in the order it was written.
    pub fn folded(&self, digest_at: Timestamp) -> Result<Vec<OutRow>> {
        self.outbox_query(
            "WHERE status = 'folded' AND digest_at = ?1 ORDER BY id",
            [sortable(digest_at)],
        )
    }

    /// Commits the digests due at `at`: the folded mail they gather becomes
    /// `digested`, the digests are queued, and the world's clock moves to `at`
    /// (so no later message can be answered on the day they close), at once.
    pub fn commit_digests(
        &mut self,
        at: Timestamp,
        gathered: &[i64],
        digests: &[NewMail],
        now: Timestamp,
    ) -> Result<()> {
        let in_batch = self.batch.is_some();
        self.atomically(|tx| {
            for id in gathered {
                tx.execute(
                    "UPDATE outbox SET status = 'digested' WHERE id = ?1 AND status = 'folded'",
                    params![id],
                )?;
            }
            for mail in digests {
                let recipients =
                    serde_json::to_string(&mail.recipients).map_err(|source| StoreError::Corrupt {
                        what: "recipients".into(),
                        source,
                    })?;
                tx.execute(
                    "INSERT OR IGNORE INTO outbox (message_id, cause, template, envelope_from, recipients, raw, created_at, next_attempt_at, step_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7, ?8)",
                    params![
                        mail.message_id,
                        format!("digest:{at}"),
                        mail.template,
                        mail.envelope_from,
                        recipients,
                        mail.raw,
                        sortable(now),
                        sortable(at)
                    ],
                )?;
            }
            if !in_batch {
                tx.execute(
                    "UPDATE state SET clock = ?1 WHERE id = 1",
                    params![at.to_string()],
                )?;
            }
            Ok(())
        })?;
        if let Some(batch) = &mut self.batch {
            batch.clock = Some(at);
        }
        Ok(())
    }

    /// Opens a batch: the steps committed until [`Store::end_batch`] share one
    /// transaction. Each is still all or nothing; together they cost one
    /// commit and one write of the state instead of one each.
    pub fn begin_batch(&mut self) -> Result<()> {
        if self.batch.is_none() {
            self.write(|conn| Ok(conn.execute_batch("BEGIN IMMEDIATE")?))?;
            self.batch = Some(Batch::default());
        }
        Ok(())
    }

    /// Makes the batch's steps durable, with `world` (the state after the last
    /// of them) as the state. An error means none of them is: the database
    /// rolled the batch back, and the caller must forget it too.
    pub fn end_batch(&mut self, world: &World) -> Result<()> {
        let Some(batch) = self.batch.take() else {
            return Ok(());
        };
        let last = self.written.take();
        let result = self.write(|conn| {
            if conn.is_autocommit() {
                // The database already rolled it back (a full disk can).
                return Err(StoreError::BatchLost);
            }
            let written = match batch.clock {
                Some(clock) => Some(state::write(conn, last.as_ref(), world, clock)?),
                None => None,
            };
            conn.execute_batch("COMMIT")?;
            Ok(written)
        });
        match result {
            Ok(written) => {
                self.written = written.or(last);
                Ok(())
            }
            Err(error) => {
                if !self.conn.is_autocommit() {
                    let _ = self.conn.execute_batch("ROLLBACK");
                }
                Err(error)
            }
        }
    }

    /// One step's writes, all or nothing: a transaction of its own, or a
    /// savepoint inside the open batch.
    fn atomically<T>(&mut self, writes: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let in_batch = self.batch.is_some();
        self.write(|conn| {
            if in_batch {
                let savepoint = conn.savepoint()?;
                let result = writes(&savepoint)?;
                savepoint.commit()?;
                Ok(result)
            } else {
                let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                let result = writes(&tx)?;
                tx.commit()?;
                Ok(result)
            }
        })
    }

    /// The event log, every event brought to today's format (`events::upgrade`).
    /// How many steps with a cause beginning `prefix` are in the log: the
    /// deadline steps already taken at one instant (`deadline:<at>:`). Counted
    /// through the cause index, as a range, so the log is not read.
    pub fn steps_with_prefix(&self, prefix: &str) -> Result<usize> {
        // The first string past every string that begins with `prefix`: its
        // last character raised by one (`:` becomes `;`).
        let mut end = prefix.to_owned();
        let last = end
            .pop()
            .map_or('\u{0}', |c| char::from_u32(c as u32 + 1).unwrap_or(c));
        end.push(last);
        let count: i64 = self.conn.query_row(
            "SELECT COUNT(DISTINCT cause) FROM events WHERE cause >= ?1 AND cause < ?2",
            rusqlite::params![prefix, end],
            |row| row.get(0),
        )?;
        Ok(usize::try_from(count).unwrap_or(0))
    }

    /// Whether a step with this cause is in the log.
    pub fn has_cause(&self, cause: &str) -> Result<bool> {
        Ok(self
            .conn
            .query_row(
                "SELECT 1 FROM events WHERE cause = ?1 LIMIT 1",
                [cause],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }

    /// The whole event log in memory, for the rare reader that needs it at once
    /// (a void judged against the log); `each_event` reads it without holding it.
    pub fn events(&self) -> Result<Vec<EventRecord>> {
        let mut out = Vec::new();
        self.each_event(|record| -> Result<()> {
            out.push(record);
            Ok(())
        })?;
        Ok(out)
    }

    /// Hands `each` every event of the log in order, read and decoded one row at a
    /// time, so that a log of any length is read in constant memory. Stops at the
    /// first error `each` returns.
    pub fn each_event<E: From<StoreError>>(
        &self,
        each: impl FnMut(EventRecord) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        self.scan_events("", [], each)
    }

    /// The moderators' voids in the log, in order (`Override::Voided`): what
    /// `games::voided_causes` needs to know before the log is folded. Read without
    /// the rest of the log: only the rows whose text can hold a void are decoded,
    /// and each is checked to really be one (a player named "voided" is not).
    pub fn void_events(&self) -> Result<Vec<EventRecord>> {
        let mut voids = Vec::new();
        // A row of an older format may name the void otherwise until upgraded:
        // those are all decoded.
        self.scan_events(
            "WHERE format != ?1 OR instr(payload, '\"voided\"') > 0",
            [events::EVENT_FORMAT],
            |record| -> Result<()> {
                if matches!(
                    record.event,
                    Event::Override(crate::games::Override::Voided { .. })
                ) {
                    voids.push(record);
                }
                Ok(())
            },
        )?;
        Ok(voids)
    }

    /// How many events the log holds (a progress bar's length).
    pub fn count_events(&self) -> Result<u64> {
        let count: i64 = self
            .conn
            .query_row("SELECT COUNT(*) FROM events", [], |row| row.get(0))?;
        Ok(u64::try_from(count).unwrap_or(0))
    }

    /// Runs `read` in one read transaction: every query in it sees the same log,
    /// even while another process commits (a replay reads the voids first, then
    /// the whole log, and the two must agree).
    pub fn reading<T, E: From<StoreError>>(
        &self,
        read: impl FnOnce(&Store) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E> {
        let snapshot = self
            .conn
            .unchecked_transaction()
            .map_err(|error| E::from(StoreError::from(error).in_database(&self.path)))?;
        let out = read(self);
        // Nothing was written: dropping the transaction only ends the snapshot.
        drop(snapshot);
        out
    }

    fn scan_events<P: rusqlite::Params, E: From<StoreError>>(
        &self,
        filter: &str,
        params: P,
        mut each: impl FnMut(EventRecord) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let mut statement = self
            .conn
            .prepare(&format!(
                "SELECT seq, at, cause, payload, format FROM events {filter} ORDER BY seq"
            ))
            .map_err(StoreError::from)?;
        let mut rows = statement.query(params).map_err(StoreError::from)?;
        while let Some(row) = rows.next().map_err(StoreError::from)? {
            let record = self.event_record(row)?;
            each(record)?;
        }
        Ok(())
    }

    /// One row of `events`, brought to today's format (`events::upgrade`).
    fn event_record(&self, row: &rusqlite::Row<'_>) -> Result<EventRecord> {
        let seq: i64 = row.get(0)?;
        let at: String = row.get(1)?;
        let cause: String = row.get(2)?;
        let format: i64 = row.get(4)?;
        let what = format!("event #{seq}");
        let corrupt = |source| StoreError::Corrupt {
            what: what.clone(),
            source,
        };
        // Borrowed from the row: the payload is parsed where SQLite holds it.
        let payload = row.get_ref(3)?.as_str().map_err(rusqlite::Error::from)?;
        let event = if format == events::EVENT_FORMAT {
            serde_json::from_str(payload).map_err(corrupt)?
        } else {
            let old: serde_json::Value = serde_json::from_str(payload).map_err(corrupt)?;
            let current =
                events::upgrade(&what, format, old).map_err(|source| StoreError::Format {
                    path: self.path.clone(),
                    source,
                })?;
            serde_json::from_value(current).map_err(corrupt)?
        };
        Ok(EventRecord {
            seq,
            at: ts(at)?,
            cause,
            event,
        })
    }

    /// Outgoing mail due for a (first or further) attempt at `now`.
    pub fn due_outbox(&self, now: Timestamp) -> Result<Vec<OutRow>> {
        self.outbox_query(
            "WHERE status = 'pending' AND next_attempt_at <= ?1 ORDER BY id",
            [sortable(now)],
        )
    }

    /// At most `limit` of the messages due by `now` that come after `after`
    /// (an outbox id), in order: a backlog is sent a page at a time, never
    /// loaded whole. The outbox is a queue: nothing comes after a message that
    /// failed and waits for its retry, not even mail queued since, so the
    /// commitments of sealed actions never fall behind their reveal.
    pub fn due_outbox_page(&self, now: Timestamp, after: i64, limit: usize) -> Result<Vec<OutRow>> {
        self.outbox_query(
            "WHERE status = 'pending' AND next_attempt_at <= ?1 AND id > ?2
               AND id < COALESCE((SELECT MIN(id) FROM outbox
                                  WHERE status = 'pending' AND attempts > 0 AND next_attempt_at > ?1),
                                 9223372036854775807)
             ORDER BY id LIMIT ?3",
            params![
                sortable(now),
                after,
                i64::try_from(limit).unwrap_or(i64::MAX)
            ],
        )
    }

    /// Every outgoing message, as the sending side knows it: what it recorded
    /// as accepted and has not folded in yet (`sent`) shows as sent.
    pub fn outbox(&self) -> Result<Vec<OutRow>> {
        let mut rows = self.outbox_query("ORDER BY id", [])?;
        let accepted: std::collections::HashMap<i64, Timestamp> =
            sent::unfolded(&self.path).into_iter().collect();
        for row in rows.iter_mut().filter(|row| row.status == "pending") {
            if let Some(at) = accepted.get(&row.id) {
                row.status = "sent".to_owned();
                row.sent_at = Some(*at);
                row.attempts += 1;
                row.last_error = None;
            }
        }
        Ok(rows)
    }

    /// The earliest retry of a message that could not be sent yet.
    pub fn next_retry(&self) -> Result<Option<Timestamp>> {
        let next: Option<String> = self.conn.query_row(
            "SELECT min(next_attempt_at) FROM outbox WHERE status = 'pending'",
            [],
            |row| row.get(0),
        )?;
        next.map(ts).transpose()
    }

    fn outbox_query<P: rusqlite::Params>(&self, tail: &str, params: P) -> Result<Vec<OutRow>> {
        let mut statement = self.conn.prepare(&format!(
            "SELECT id, message_id, cause, template, envelope_from, recipients, raw, created_at, status, attempts,
                    next_attempt_at, last_error, sent_at FROM outbox {tail}"
        ))?;
        let rows = statement.query_map(params, |row| {
            Ok((
                (
                    row.get::<_, i64>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, String>(3)?,
                ),
                (
                    row.get::<_, String>(4)?,
                    row.get::<_, String>(5)?,
                    row.get::<_, Vec<u8>>(6)?,
                ),
                (
                    row.get::<_, String>(7)?,
                    row.get::<_, String>(8)?,
                    row.get::<_, i64>(9)?,
                ),
                (
                    row.get::<_, String>(10)?,
                    row.get::<_, Option<String>>(11)?,
                    row.get::<_, Option<String>>(12)?,
                ),
            ))
        })?;
        let mut out = Vec::new();
        for row in rows {
            let (
                (id, message_id, cause, template),
                (envelope_from, recipients, raw),
                (created_at, status, attempts),
                (next, last_error, sent_at),
            ) = row?;
            out.push(OutRow {
                id,
                message_id,
                cause,
                template,
                envelope_from,
                recipients: serde_json::from_str(&recipients).map_err(|source| {
                    StoreError::Corrupt {
                        what: format!("outbox #{id} recipients"),
                        source,
                    }
                })?,
                raw,
                created_at: ts(created_at)?,
                status,
                attempts,
                next_attempt_at: ts(next)?,
                last_error,
                sent_at: sent_at.map(ts).transpose()?,
            });
        }
        Ok(out)
    }

    /// The mail written to exactly these recipients (the list), newest first,
    /// as (the moment of the step that wrote it, raw message), each passed to `take` until it says stop:
    /// `history` reads the list's announcements back without loading them all.
    pub fn each_mail_to(
        &self,
        recipients: &[String],
        mut take: impl FnMut(Timestamp, &[u8]) -> bool,
    ) -> Result<()> {
        let recipients = serde_json::to_string(recipients).unwrap_or_default();
        let mut statement = self
            .conn
            .prepare("SELECT coalesce(step_at, created_at), raw FROM outbox WHERE recipients = ?1 ORDER BY id DESC")?;
        let mut rows = statement.query([recipients])?;
        while let Some(row) = rows.next()? {
            let at = ts(row.get::<_, String>(0)?)?;
            let raw: Vec<u8> = row.get(1)?;
            if !take(at, &raw) {
                break;
            }
        }
        Ok(())
    }

    pub fn mark_sent(&mut self, id: i64, at: Timestamp) -> Result<()> {
        self.write(|conn| {
            conn.execute(
                "UPDATE outbox SET status = 'sent', sent_at = ?2, attempts = attempts + 1, last_error = NULL WHERE id = ?1",
                params![id, at.to_string()],
            )?;
            Ok(())
        })
    }

    /// Marks sent every message of `accepted` (outbox id, when) that is still
    /// pending, in one transaction: what [`sent::SentJournal::fold`] brings in.
    pub fn mark_all_sent(&mut self, accepted: &[(i64, Timestamp)]) -> Result<()> {
        self.atomically(|tx| {
            let mut update = tx.prepare(
                "UPDATE outbox SET status = 'sent', sent_at = ?2, attempts = attempts + 1, last_error = NULL
                 WHERE id = ?1 AND status = 'pending'",
            )?;
            for (id, at) in accepted {
                update.execute(params![id, at.to_string()])?;
            }
            Ok(())
        })
    }

    /// Records a failed attempt: tried again at `retry_at`, or never (`None`: the
    /// server refused it for good; the operator sees it in `outbox`).
    pub fn mark_failed(&mut self, id: i64, error: &str, retry_at: Option<Timestamp>) -> Result<()> {
        self.write(|conn| {
            match retry_at {
                Some(at) => conn.execute(
                    "UPDATE outbox SET attempts = attempts + 1, last_error = ?2, next_attempt_at = ?3 WHERE id = ?1",
                    params![id, error, sortable(at)],
                )?,
                None => conn.execute(
                    "UPDATE outbox SET attempts = attempts + 1, last_error = ?2, status = 'failed' WHERE id = ?1",
                    params![id, error],
                )?,
            };
            Ok(())
        })
    }

    /// Puts every message due by `now` after `id` back to wait until `at`
    /// without counting an attempt: none was tried, because the server failed
    /// the one before them, and none may overtake it.
    pub fn defer_after(
        &mut self,
        id: i64,
        error: &str,
        now: Timestamp,
        at: Timestamp,
    ) -> Result<()> {
        self.write(|conn| {
            conn.execute(
                "UPDATE outbox SET last_error = ?2, next_attempt_at = ?4
                 WHERE status = 'pending' AND id > ?1 AND next_attempt_at <= ?3",
                params![id, error, sortable(now), sortable(at)],
            )?;
            Ok(())
        })
    }

    /// A second connection to the same database, for the sending side of the
    /// daemon: it marks mail sent while this one applies the next messages.
    /// Both write in `IMMEDIATE` transactions, so neither can find its snapshot
    /// stale half-way; the other waits for the lock (the busy timeout).
    pub fn reopen(&self) -> Result<Store> {
        let path = Path::new(&self.path);
        let open = || -> Result<Connection> {
            let conn = Connection::open(path)?;
            conn.busy_handler(Some(wait_for_the_lock))?;
            conn.execute_batch("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;")?;
            Ok(conn)
        };
        let conn = open().map_err(|error| error.in_database(&self.path))?;
        Ok(Store {
            conn,
            path: self.path.clone(),
            batch: None,
            written: None,
        })
    }

    /// The bot's secret: 32 random bytes made when the database was created, never
    /// published. Every step's entropy is derived from it (see `pipeline`).
    pub fn secret(&mut self) -> Result<[u8; 32]> {
        self.write(|conn| {
            let stored: Option<String> = conn
                .query_row("SELECT value FROM meta WHERE key = 'secret'", [], |row| {
                    row.get(0)
                })
                .optional()?;
            if let Some(hex) = stored
                && let Some(bytes) = crate::engine::random::parse_seed(&hex)
            {
                return Ok(bytes);
            }
            // Two processes opening a new database at once (a reader beside the one
            // that holds the lock) must agree on one secret: the first write wins, and
            // everyone reads it back.
            let bytes = fresh_secret();
            conn.execute(
                "INSERT INTO meta (key, value) VALUES ('secret', ?1)
                 ON CONFLICT(key) DO UPDATE SET value = ?1 WHERE length(value) != 64",
                params![crate::engine::random::hex(&bytes)],
            )?;
            let stored: String =
                conn.query_row("SELECT value FROM meta WHERE key = 'secret'", [], |row| {
                    row.get(0)
                })?;
            Ok(crate::engine::random::parse_seed(&stored).unwrap_or(bytes))
        })
    }

    /// Did the bot itself send a message with this Message-ID? (Loop safety that
    /// survives a list stripping every header but Message-ID.)
    pub fn is_own_message(&self, message_id: &str) -> Result<bool> {
        Ok(self
            .conn
            .query_row(
                "SELECT 1 FROM outbox WHERE message_id = ?1",
                params![message_id],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }
}
