//! What a sealed batch's commitments and reveal need from the log: the batch's
//! `Sealed` events and the moderators' voids, each read through an index of its
//! own (migration 11) rather than by reading the whole log. The live state keeps
//! only the sealed actions that may still count; the replaced ones are in the
//! log alone (`engine::sealed`, "the log's half"). Reads only.
//!
//! Both indexes match the payload's JSON as `EVENT_FORMAT` 1 writes it
//! (`{"game": "sealed", "kind": "sealed", "batch": ...}`, `{"game":
//! "override", "kind": "voided", ...}`): a format that writes these events
//! otherwise must add indexes for its own rows (`store::events`).

use super::{EventRecord, Result, Store};
use crate::engine::sealed::{self, Sealed};
use crate::games::{Event, Override};

/// The rows of one batch's `Sealed` events, as `events_sealed` indexes them.
const SEALED_OF: &str = "WHERE json_extract(payload, '$.game') = 'sealed'
       AND json_extract(payload, '$.kind') = 'sealed'
       AND json_extract(payload, '$.batch') = ?1";

/// The rows of the voids, as `events_voids` indexes them.
const VOIDS: &str = "WHERE json_extract(payload, '$.game') = 'override'
       AND json_extract(payload, '$.kind') = 'voided'";

impl Store {
    /// Every action sealed in `batch`, in the order sealed, with the cause of
    /// its step (a void names it). Costs the batch, not the log.
    pub fn sealed_of(&self, batch: &str) -> Result<Vec<(String, Sealed)>> {
        let mut found = Vec::new();
        self.scan_events(SEALED_OF, [batch], |record| -> Result<()> {
            if let Event::Sealed(sealed::Event::Sealed { batch: of, sealed }) = record.event
                && of == batch
            {
                found.push((record.cause, sealed));
            }
            Ok(())
        })?;
        Ok(found)
    }

    /// The moderators' voids, in order, as [`Store::void_events`] finds them,
    /// through the index of voids: a handful of rows, whatever the log's length.
    pub fn voids(&self) -> Result<Vec<EventRecord>> {
        let mut voids = Vec::new();
        self.scan_events(VOIDS, [], |record| -> Result<()> {
            if matches!(record.event, Event::Override(Override::Voided { .. })) {
                voids.push(record);
            }
            Ok(())
        })?;
        Ok(voids)
    }
}

/// The pipeline's log for `games::sealed_log::complete`: this store's, as far
/// as it is written (the steps of the open batch included: they are on the
/// same connection).
impl crate::games::sealed_log::SealedLog for &Store {
    type Error = super::StoreError;
    fn sealed_of(&mut self, batch: &str) -> Result<Vec<(String, Sealed)>> {
        Store::sealed_of(self, batch)
    }
    fn voids(&mut self) -> Result<Vec<(jiff::Timestamp, String, Event)>> {
        Ok(Store::voids(self)?
            .into_iter()
            .map(|record| (record.at, record.cause, record.event))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::super::events::EVENT_FORMAT;
    use super::*;

    /// Both reads go through their index, so their cost is the rows they
    /// return, not the log's length.
    #[test]
    fn a_batch_and_the_voids_are_read_through_their_indexes() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open(&dir.path().join("bot.sqlite")).expect("store");
        let plan = |filter: &str, values: &[&str]| -> Vec<String> {
            let sql = format!("EXPLAIN QUERY PLAN SELECT seq FROM events {filter} ORDER BY seq");
            let mut statement = store.conn.prepare(&sql).expect("plan");
            statement
                .query_map(rusqlite::params_from_iter(values), |row| row.get(3))
                .expect("rows")
                .map(|row| row.expect("row"))
                .collect()
        };
        for (steps, index) in [
            (plan(SEALED_OF, &["vote:1"]), "events_sealed"),
            (plan(VOIDS, &[]), "events_voids"),
        ] {
            // A scan of a partial index reads only the rows it holds.
            assert!(
                !steps.is_empty() && steps.iter().all(|step| step.contains(index)),
                "{index}: {steps:?}"
            );
        }
    }

    /// The indexes read the payload as format 1 writes it. A new format must
    /// say how these events look in it (see the module doc), then move this.
    #[test]
    fn the_indexes_match_the_event_format() {
        assert_eq!(EVENT_FORMAT, 1);
    }
}
