//! The sending side's record of what the server accepted: `<database>.sent`,
//! one line per message (`outbox id` and the time), appended and flushed to
//! disk the moment the server accepts it, and folded into the outbox a page at
//! a time.
//!
//! Why a file beside the database and not an UPDATE per message: in the daemon
//! the applying side holds the database's write lock for a whole batch of
//! steps, and the next message's content may not go before the last one's
//! acceptance is on disk. Waiting for that lock after every message made
//! sending as slow as applying. The line costs one `fdatasync` and waits for
//! no one; a crash between the acceptance and the line can still send again
//! only that one message, and a crash before a fold loses nothing: the next
//! fold (every pass begins with one) reads the lines left behind.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use jiff::Timestamp;

use super::{Result, Store, StoreError};

/// The journal of one database. Only the process holding the database's lock
/// writes it.
#[derive(Debug)]
pub struct SentJournal {
    path: PathBuf,
    file: File,
}

impl SentJournal {
    /// Opens (or creates) the journal of `store`'s database.
    pub fn open(store: &Store) -> Result<SentJournal> {
        let path = PathBuf::from(format!("{}.sent", store.path));
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&path)
            .map_err(|source| io(&path, &source))?;
        Ok(SentJournal { path, file })
    }

    /// Records that the server accepted outbox message `id` at `at`, on disk
    /// before it returns.
    pub fn accepted(&mut self, id: i64, at: Timestamp) -> Result<()> {
        let line = format!("{id} {at}\n");
        self.file
            .write_all(line.as_bytes())
            .and_then(|()| self.file.sync_data())
            .map_err(|source| io(&self.path, &source))
    }

    /// Marks sent in the outbox every message the journal holds, in one
    /// transaction, then empties the journal. Marking is idempotent (only a
    /// pending message is marked), so a crash between the two is harmless. A
    /// line cut short by a crash is not a record: its message goes again.
    pub fn fold(&mut self, store: &mut Store) -> Result<usize> {
        let mut text = String::new();
        self.file
            .seek(SeekFrom::Start(0))
            .and_then(|_| self.file.read_to_string(&mut text))
            .map_err(|source| io(&self.path, &source))?;
        if text.is_empty() {
            return Ok(0);
        }
        let accepted = records(&text);
        store.mark_all_sent(&accepted)?;
        // No sync: the outbox's commit is on disk, and lines that come back
        // after a crash are marked again, which changes nothing.
        self.file
            .set_len(0)
            .map_err(|source| io(&self.path, &source))?;
        Ok(accepted.len())
    }
}

/// The complete lines of a journal: a line cut short by a crash is no record.
fn records(text: &str) -> Vec<(i64, Timestamp)> {
    text.split_inclusive('\n')
        .filter(|line| line.ends_with('\n'))
        .filter_map(|line| {
            let (id, at) = line.trim_end().split_once(' ')?;
            Some((id.parse().ok()?, at.parse().ok()?))
        })
        .collect()
}

/// What the journal of the database at `database` records and no fold has
/// brought in yet, for a reader (`nomicbot outbox`) that takes no lock and
/// writes nothing.
pub fn unfolded(database: &str) -> Vec<(i64, Timestamp)> {
    std::fs::read_to_string(format!("{database}.sent"))
        .map(|text| records(&text))
        .unwrap_or_default()
}

fn io(path: &Path, source: &std::io::Error) -> StoreError {
    if source.kind() == std::io::ErrorKind::StorageFull {
        return StoreError::DiskFull {
            path: path.display().to_string(),
            detail: source.to_string(),
        };
    }
    StoreError::Journal {
        path: path.display().to_string(),
        detail: source.to_string(),
    }
}
