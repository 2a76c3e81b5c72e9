//! One process at a time applies or sends for a database: an exclusive OS file
//! lock (`flock` on Unix, `LockFileEx` on Windows) on `<database>.lock`, held for
//! a whole pass (`once`, `ingest`, `import-rules`) or the daemon's whole life
//! (`run`). Reading commands (`state`, `outbox`, `log`, ...) take no lock.
//!
//! Why a file lock and not SQLite's own: SQLite locks last one transaction, and
//! each step must commit on its own; a transaction held for the whole pass would
//! commit nothing until its end, and `locking_mode = EXCLUSIVE` would shut out
//! the readers too. The kernel drops the lock when the process dies, even by
//! SIGKILL, so a crash never leaves a stale lock behind. The lock file is never
//! deleted (deleting it would let two processes lock two different files).

use std::fs::{File, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process holds the lock (and still did after the wait).
    #[error("{database} is in use by another nomicbot{holder}; {after}", holder = holder_text(.holder), after = waited_text(*.waited))]
    Busy {
        database: PathBuf,
        /// The holder's process id, as it wrote it into the lock file.
        holder: Option<u32>,
        waited: Duration,
    },
    #[error("cannot lock {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn holder_text(holder: &Option<u32>) -> String {
    holder.map_or_else(String::new, |pid| format!(" (process {pid})"))
}

fn waited_text(waited: Duration) -> String {
    if waited.is_zero() {
        "only one may apply or send at a time".to_owned()
    } else {
        format!(
            "gave up after waiting {} s for it to finish",
            waited.as_secs()
        )
    }
}

/// The lock, held until dropped (or the process ends).
#[derive(Debug)]
pub struct DatabaseLock {
    // Invariant: the file stays open while the lock is held; closing it unlocks.
    _file: File,
    path: PathBuf,
}

impl DatabaseLock {
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The lock file of a database: `<database>.lock`, beside it.
pub fn lock_path(database: &Path) -> PathBuf {
    let mut name = database.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Takes the database's lock, waiting up to `wait` for another process to let
/// go of it (`Duration::ZERO`: not at all).
pub fn acquire(database: &Path, wait: Duration) -> Result<DatabaseLock, LockError> {
    let path = lock_path(database);
    let io = |source| LockError::Io {
        path: path.clone(),
        source,
    };
    let mut file = File::options()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io)?;
    let started = Instant::now();
    let mut pause = Duration::from_millis(20);
    let mut told = false;
    loop {
        match file.try_lock() {
            Ok(()) => break,
            Err(TryLockError::WouldBlock) => {
                let holder = read_holder(&mut file);
                if started.elapsed() >= wait {
                    return Err(LockError::Busy {
                        database: database.to_owned(),
                        holder,
                        waited: wait,
                    });
                }
                if !told {
                    tracing::info!(database = %database.display(), holder = ?holder, wait = ?wait, "another nomicbot is busy with this database: waiting for it");
                    told = true;
                }
                std::thread::sleep(pause.min(wait.saturating_sub(started.elapsed())));
                pause = (pause * 2).min(Duration::from_millis(500));
            }
            Err(TryLockError::Error(error)) => return Err(io(error)),
        }
    }
    // Who holds it, for the message a second process prints. Only informative:
    // the lock itself is the kernel's.
    let pid = std::process::id().to_string();
    file.set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| file.write_all(pid.as_bytes()))
        .and_then(|()| file.flush())
        .map_err(io)?;
    Ok(DatabaseLock { _file: file, path })
}

fn read_holder(file: &mut File) -> Option<u32> {
    let mut text = String::new();
    file.rewind().ok()?;
    file.read_to_string(&mut text).ok()?;
    text.trim().parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_database_is_refused_until_the_first_is_dropped() {
        let dir = tempfile::tempdir().expect("temp dir");
        let database = dir.path().join("bot.sqlite");
        let first = acquire(&database, Duration::ZERO).expect("first lock");
        assert_eq!(first.path(), dir.path().join("bot.sqlite.lock"));
        let error = acquire(&database, Duration::from_millis(50)).expect_err("held");
        match &error {
            LockError::Busy { holder, .. } => assert_eq!(*holder, Some(std::process::id())),
            other => panic!("{other}"),
        }
        assert!(error.to_string().contains("in use by another nomicbot"));
        drop(first);
        acquire(&database, Duration::ZERO).expect("free again");
    }
}
