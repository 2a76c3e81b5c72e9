//! What the public web site (`crate::site`) keeps in the database so that its
//! next build costs what changed, not the whole history: each site folder's
//! cursor (the last event it folded in, and the state it goes on from), and the
//! announcements to the list numbered once, in the whole record and within
//! their game, so a page of old history is found by number without reading
//! the rest; and the shared history its fold retires (`site_archive`), by
//! number, so the page an item falls on is read without the rest. All of it is derived from the log and the outbox: deleting it
//! only makes the next build a whole one.

use std::collections::BTreeMap;

use jiff::Timestamp;
use rusqlite::{OptionalExtension, params};

use super::{EventRecord, Result, Store, StoreError, ts};

/// How far a site folder was built.
#[derive(Debug, Clone)]
pub struct SiteCursor {
    /// What the build depends on beside the database (the release, the
    /// settings the pages show): another fingerprint means a whole build.
    pub fingerprint: String,
    /// The last event folded in.
    pub event_seq: i64,
    /// The site's own state (JSON), private: the fold with its history.
    pub state: String,
}

/// One announcement to the list, with its numbers.
#[derive(Debug, Clone)]
pub struct SiteAnnouncement {
    /// Its place among all announcements, from 1.
    pub number: i64,
    /// The registered game its tag belongs to, and its place among that game's.
    pub game: Option<String>,
    pub game_number: Option<i64>,
    pub message_id: String,
    /// The step that wrote it (`mail:<key>`, `deadline:<time>`).
    pub cause: String,
    pub at: Timestamp,
    pub raw: Vec<u8>,
}

impl Store {
    pub fn site_cursor(&self, dir: &str) -> Result<Option<SiteCursor>> {
        Ok(self
            .conn
            .query_row(
                "SELECT fingerprint, event_seq, state FROM site_cursor WHERE dir = ?1",
                [dir],
                |row| {
                    Ok(SiteCursor {
                        fingerprint: row.get(0)?,
                        event_seq: row.get(1)?,
                        state: row.get(2)?,
                    })
                },
            )
            .optional()?)
    }

    /// Written by the site's build, beside the bot's own writes: one statement,
    /// atomic on its own. The site's files are written before it, so a crash
    /// between leaves a cursor behind the files, and the next build redoes
    /// the difference.
    pub fn set_site_cursor(&self, dir: &str, cursor: &SiteCursor) -> Result<()> {
        self.conn.execute(
            "INSERT INTO site_cursor (dir, fingerprint, event_seq, state) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT(dir) DO UPDATE SET fingerprint = ?2, event_seq = ?3, state = ?4",
            params![dir, cursor.fingerprint, cursor.event_seq, cursor.state],
        )?;
        Ok(())
    }

    /// Puts the items of history a site folder's build retired (`kind`,
    /// number, public JSON), replacing any of the same number (a build redone
    /// after a crash writes the same), and lets go of those past each kind's
    /// count (`counts`: a whole build after a void may have fewer). One
    /// transaction, written before the files like the rows they page.
    pub fn put_site_archive(
        &self,
        dir: &str,
        items: &[(&str, i64, String)],
        counts: &[(&str, i64)],
    ) -> Result<()> {
        let tx = self.conn.unchecked_transaction()?;
        {
            let mut insert = tx.prepare(
                "INSERT OR REPLACE INTO site_archive (dir, kind, number, item) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for (kind, number, item) in items {
                insert.execute(params![dir, kind, number, item])?;
            }
            let mut trim = tx
                .prepare("DELETE FROM site_archive WHERE dir = ?1 AND kind = ?2 AND number > ?3")?;
            for (kind, count) in counts {
                trim.execute(params![dir, kind, count])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// A site folder's items of history of `kind` numbered `from..=to`, in order.
    pub fn site_archive(&self, dir: &str, kind: &str, from: i64, to: i64) -> Result<Vec<String>> {
        let mut statement = self.conn.prepare(
            "SELECT item FROM site_archive WHERE dir = ?1 AND kind = ?2 AND number BETWEEN ?3 AND ?4
             ORDER BY number",
        )?;
        let rows = statement.query_map(params![dir, kind, from, to], |row| row.get(0))?;
        Ok(rows.collect::<rusqlite::Result<Vec<String>>>()?)
    }

    /// The events after `seq`, in order (`each_event` from a point on).
    pub fn each_event_after<E: From<StoreError>>(
        &self,
        seq: i64,
        each: impl FnMut(EventRecord) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        self.scan_events("WHERE seq > ?1", [seq], each)
    }

    /// The head of the inbox message with this dedup key (`mail:<key>`'s key).
    pub fn inbox_head(&self, dedup_key: &str) -> Result<Option<Vec<u8>>> {
        Ok(self
            .conn
            .query_row(
                &format!(
                    "SELECT substr(raw, 1, {}) FROM inbox WHERE dedup_key = ?1 ORDER BY id LIMIT 1",
                    super::INBOX_HEAD_BYTES
                ),
                [dedup_key],
                |row| row.get(0),
            )
            .optional()?)
    }

    /// Numbers the mail to exactly `recipients` (the list) not numbered yet, in
    /// the outbox's order; `game_of` reads the game a raw message belongs to.
    pub fn number_site_announcements(
        &self,
        recipients: &[String],
        game_of: impl Fn(&[u8]) -> Option<String>,
    ) -> Result<()> {
        let recipients = serde_json::to_string(recipients).unwrap_or_default();
        let tx = self.conn.unchecked_transaction()?;
        let (last_id, mut number): (i64, i64) = tx.query_row(
            "SELECT coalesce(max(outbox_id), 0), coalesce(max(number), 0) FROM site_announcements",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )?;
        // Each game's count is looked up (by the index) when the game first
        // comes up among the new rows: a build costs what is new, not a pass
        // over every announcement.
        let mut counts: BTreeMap<String, i64> = BTreeMap::new();
        {
            let mut rows = tx.prepare(
                "SELECT id, raw FROM outbox WHERE recipients = ?1 AND id > ?2 ORDER BY id",
            )?;
            let mut insert = tx.prepare(
                "INSERT INTO site_announcements (outbox_id, number, game, game_number) VALUES (?1, ?2, ?3, ?4)",
            )?;
            let mut query = rows.query(params![recipients, last_id])?;
            while let Some(row) = query.next()? {
                let id: i64 = row.get(0)?;
                let raw: Vec<u8> = row.get(1)?;
                number += 1;
                let game = game_of(&raw);
                let game_number = match &game {
                    Some(game) => {
                        if !counts.contains_key(game) {
                            let count: i64 = tx.query_row(
                                "SELECT coalesce(max(game_number), 0) FROM site_announcements WHERE game = ?1",
                                [game],
                                |row| row.get(0),
                            )?;
                            counts.insert(game.clone(), count);
                        }
                        let count = counts.entry(game.clone()).or_default();
                        *count += 1;
                        Some(*count)
                    }
                    None => None,
                };
                insert.execute(params![id, number, game, game_number])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// How many announcements the list has had.
    pub fn site_announcement_count(&self) -> Result<i64> {
        Ok(self.conn.query_row(
            "SELECT coalesce(max(number), 0) FROM site_announcements",
            [],
            |row| row.get(0),
        )?)
    }

    /// The announcements numbered `from..=to`: among all, or within `game`.
    pub fn site_announcements(
        &self,
        game: Option<&str>,
        from: i64,
        to: i64,
    ) -> Result<Vec<SiteAnnouncement>> {
        let select = "SELECT s.number, s.game, s.game_number, o.message_id, o.cause,
                    coalesce(o.step_at, o.created_at), o.raw
             FROM site_announcements s JOIN outbox o ON o.id = s.outbox_id";
        let mut statement;
        let mut rows = match game {
            Some(game) => {
                statement = self.conn.prepare(&format!(
                    "{select} WHERE s.game = ?1 AND s.game_number BETWEEN ?2 AND ?3 ORDER BY s.game_number"
                ))?;
                statement.query(params![game, from, to])?
            }
            None => {
                statement = self.conn.prepare(&format!(
                    "{select} WHERE s.number BETWEEN ?1 AND ?2 ORDER BY s.number"
                ))?;
                statement.query(params![from, to])?
            }
        };
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            out.push(SiteAnnouncement {
                number: row.get(0)?,
                game: row.get(1)?,
                game_number: row.get(2)?,
                message_id: row.get(3)?,
                cause: row.get(4)?,
                at: ts(row.get(5)?)?,
                raw: row.get(6)?,
            });
        }
        Ok(out)
    }
}
