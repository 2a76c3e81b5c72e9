//! The embedded local transport: incoming mail is taken from a Maildir's `new/`
//! and moved to `cur/` once stored; outgoing mail is written as files into an
//! outbox Maildir. No server, so a new user can run the bot at once.

use std::io::Write;
use std::path::{Path, PathBuf};

use jiff::Timestamp;
use sha2::{Digest, Sha256};

#[derive(Debug, thiserror::Error)]
#[error("maildir {path}: {source}")]
pub struct MaildirError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> MaildirError + '_ {
    move |source| MaildirError {
        path: path.to_owned(),
        source,
    }
}

/// Creates `tmp/`, `new/` and `cur/` if they are missing.
pub fn ensure(dir: &Path) -> Result<(), MaildirError> {
    for sub in ["tmp", "new", "cur"] {
        let path = dir.join(sub);
        std::fs::create_dir_all(&path).map_err(io(&path))?;
    }
    Ok(())
}

/// A message waiting in `new/`, not yet read (a backlog is read one batch at a
/// time, never whole).
#[derive(Debug)]
pub struct Waiting {
    /// The Maildir unique name: the file name up to the `:2,` info part.
    pub unique: String,
    pub path: PathBuf,
    /// Delivery time: the file's modification time.
    pub delivered_at: Timestamp,
    /// The file's size in bytes.
    pub size: u64,
}

impl Waiting {
    /// The message's raw bytes.
    pub fn read(&self) -> Result<Vec<u8>, MaildirError> {
        std::fs::read(&self.path).map_err(io(&self.path))
    }
}

/// Every message in `new/`, oldest delivery first.
pub fn waiting(dir: &Path) -> Result<Vec<Waiting>, MaildirError> {
    let new = dir.join("new");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&new).map_err(io(&new))? {
        let entry = entry.map_err(io(&new))?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || !path.is_file() {
            continue;
        }
        let metadata = entry.metadata().map_err(io(&path))?;
        let delivered_at = metadata
            .modified()
            .ok()
            .and_then(|t| Timestamp::try_from(t).ok())
            .unwrap_or(Timestamp::UNIX_EPOCH);
        let unique = name.split(':').next().unwrap_or(&name).to_owned();
        out.push(Waiting {
            unique,
            path,
            delivered_at,
            size: metadata.len(),
        });
    }
    out.sort_by(|a, b| {
        a.delivered_at
            .cmp(&b.delivered_at)
            .then_with(|| a.unique.cmp(&b.unique))
    });
    Ok(out)
}

/// Moves a stored message to `cur/`, flagged seen: the Maildir acknowledgement.
pub fn mark_seen(dir: &Path, waiting: &Waiting) -> Result<(), MaildirError> {
    let target = dir.join("cur").join(format!("{}:2,S", waiting.unique));
    std::fs::rename(&waiting.path, &target).map_err(io(&waiting.path))
}

/// Writes one message into a Maildir (`tmp/` then rename into `new/`, so a reader never
/// sees half a file). The name comes from the Message-ID: delivering the same message
/// twice (a crash between writing and recording it) leaves one file.
pub fn deliver(dir: &Path, message_id: &str, raw: &[u8]) -> Result<PathBuf, MaildirError> {
    ensure(dir)?;
    let digest = Sha256::digest(message_id.as_bytes());
    let name: String = digest.iter().take(12).map(|b| format!("{b:02x}")).collect();
    let name = format!("{name}.nomicbot");
    let target = dir.join("new").join(&name);
    let tmp = dir.join("tmp").join(&name);
    let mut file = std::fs::File::create(&tmp).map_err(io(&tmp))?;
    file.write_all(raw).map_err(io(&tmp))?;
    file.sync_all().map_err(io(&tmp))?;
    std::fs::rename(&tmp, &target).map_err(io(&target))?;
    Ok(target)
}

/// Every message in a Maildir (`new/` and `cur/`), oldest first: for the demo and tests.
pub fn read_all(dir: &Path) -> Result<Vec<(PathBuf, Vec<u8>)>, MaildirError> {
    let mut files = Vec::new();
    for sub in ["new", "cur"] {
        let path = dir.join(sub);
        let Ok(entries) = std::fs::read_dir(&path) else {
            continue;
        };
        for entry in entries.flatten() {
            let modified = entry.metadata().and_then(|m| m.modified()).ok();
            files.push((modified, entry.path()));
        }
    }
    files.sort();
    files
        .into_iter()
        .map(|(_, path)| {
            std::fs::read(&path)
                .map(|raw| (path.clone(), raw))
                .map_err(io(&path))
        })
        .collect()
}
