//! Writes the site's files into its folder: each one atomically (a temporary
//! file in the same folder, fsync, rename), and only when its bytes changed.
//! A web server never serves half a page, a crash mid-build leaves the last
//! complete file, and a page nothing changed keeps its mtime (and its ETag).

use std::collections::BTreeSet;
use std::fs::{self, File};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::SiteError;

/// The site's folder, and what a build did to it.
pub struct Writer {
    dir: PathBuf,
    /// Files whose bytes changed (or that were new), written.
    pub written: Vec<String>,
    /// Files left as they were: their bytes were already these.
    pub unchanged: usize,
    /// Files of an earlier build that the site no longer has, removed.
    pub removed: Vec<String>,
    /// The manifest was rewritten: the folder's entries changed.
    dirty: bool,
}

/// The names of the files the last build left, so that the next one removes
/// those no longer part of the site and never a file the site did not write
/// (the folder may be a web root with files of its own).
const MANIFEST: &str = ".site-files";

impl Writer {
    pub fn new(dir: &Path) -> Result<Writer, SiteError> {
        fs::create_dir_all(dir).map_err(|source| SiteError::io(dir, source))?;
        Ok(Writer {
            dir: dir.to_owned(),
            written: Vec::new(),
            unchanged: 0,
            removed: Vec::new(),
            dirty: false,
        })
    }

    /// Puts `bytes` under `name` (a plain file name, no folder) unless the file
    /// holds them already.
    pub fn put(&mut self, name: &str, bytes: &[u8]) -> Result<(), SiteError> {
        let path = self.dir.join(name);
        // Compared by content, not by a hash kept aside: the folder is the only
        // record of what was written, so a file edited or lost by hand is mended.
        if fs::read(&path).is_ok_and(|old| old == bytes) {
            self.unchanged += 1;
            return Ok(());
        }
        // A dot file in the same folder: the rename stays on one file system, and
        // a web server that hides dot files never lists a half-written page.
        let temporary = self.dir.join(format!(".{name}.partial"));
        let written = (|| {
            let mut file = File::create(&temporary)?;
            file.write_all(bytes)?;
            file.sync_all()?;
            fs::rename(&temporary, &path)
        })();
        if let Err(source) = written {
            let _ = fs::remove_file(&temporary);
            return Err(SiteError::io(&path, source));
        }
        self.written.push(name.to_owned());
        Ok(())
    }

    /// Removes the files the last build left that `all` (every file of the
    /// site now) no longer names, and records `all` for the next build.
    pub fn retire(&mut self, all: &BTreeSet<String>) -> Result<(), SiteError> {
        let manifest = self.dir.join(MANIFEST);
        let before = fs::read_to_string(&manifest).unwrap_or_default();
        for name in before.lines().filter(|name| !all.contains(*name)) {
            // A name that is not a plain file name in this folder is no manifest's.
            if name.is_empty() || name.starts_with('.') || name.contains(['/', '\\']) {
                continue;
            }
            let path = self.dir.join(name);
            match fs::remove_file(&path) {
                Ok(()) => self.removed.push(name.to_owned()),
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => return Err(SiteError::io(&path, source)),
            }
        }
        let mut now = String::new();
        for name in all {
            now.push_str(name);
            now.push('\n');
        }
        if now != before {
            // Written like a page (atomically), but not counted as one.
            let written = self.written.len();
            self.put(MANIFEST, now.as_bytes())?;
            self.written.truncate(written);
            self.dirty = true;
        }
        Ok(())
    }

    /// Makes the renames durable: the folder's own entry list is synced once,
    /// after the last file, rather than once a file.
    pub fn finish(&self) -> Result<(), SiteError> {
        if self.written.is_empty() && self.removed.is_empty() && !self.dirty {
            return Ok(());
        }
        let folder = File::open(&self.dir).map_err(|source| SiteError::io(&self.dir, source))?;
        folder
            .sync_all()
            .map_err(|source| SiteError::io(&self.dir, source))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_is_written_once_and_left_alone_while_its_bytes_stay() {
        let dir = tempfile::tempdir().unwrap();
        let mut writer = Writer::new(dir.path()).unwrap();
        writer.put("a.html", b"one").unwrap();
        writer.put("a.html", b"one").unwrap();
        assert_eq!(writer.written, vec!["a.html"]);
        assert_eq!(writer.unchanged, 1);
        writer.put("a.html", b"two").unwrap();
        assert_eq!(fs::read(dir.path().join("a.html")).unwrap(), b"two");
        // No temporary file is left behind.
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec!["a.html"]);
    }

    #[test]
    fn a_file_the_site_no_longer_has_is_removed_and_a_file_it_never_wrote_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("about.html"), b"the owner's own page").unwrap();
        let mut writer = Writer::new(dir.path()).unwrap();
        writer.put("a.html", b"one").unwrap();
        writer.put("board-1.svg", b"<svg/>").unwrap();
        let all: BTreeSet<String> = ["a.html", "board-1.svg"].map(String::from).into();
        writer.retire(&all).unwrap();
        assert_eq!(writer.written, vec!["a.html", "board-1.svg"]);

        let mut next = Writer::new(dir.path()).unwrap();
        next.put("a.html", b"one").unwrap();
        next.retire(&["a.html".to_owned()].into()).unwrap();
        next.finish().unwrap();
        assert_eq!(next.removed, vec!["board-1.svg"]);
        assert!(next.written.is_empty());
        assert!(!dir.path().join("board-1.svg").exists());
        assert!(dir.path().join("about.html").exists());
    }
}
