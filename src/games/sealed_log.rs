//! A step's sealed commitments and reveal made whole from the event log, before
//! the step is recorded or its mail rendered: the engine builds them from the
//! live state, which keeps only the sealed actions that may still count, and the
//! list must see every action sealed, replaced ones included (`engine::sealed`,
//! "the log's half"). The pipeline reads its log through the store's indexes;
//! the table the games' tests play on, through the events it keeps. Names no game.

use std::collections::BTreeSet;

use crate::engine::Timestamp;
use crate::engine::sealed::{self, Sealed};

use super::{Event, Outcome};

/// The log recorded before the step, as `complete` reads it.
pub trait SealedLog {
    type Error;
    /// Every `Sealed` event of `batch`, in order, with the cause of its step.
    fn sealed_of(&mut self, batch: &str) -> Result<Vec<(String, Sealed)>, Self::Error>;
    /// Every moderator's void, in order (`Override::Voided`), with its time and cause.
    fn voids(&mut self) -> Result<Vec<(Timestamp, String, Event)>, Self::Error>;
}

/// Gives every `Committed` event and every commitments or reveal mail of
/// `outcome` all the actions sealed in its batch: the log's, less those of
/// voided messages (as `fold` leaves them out), then the step's own. Reads the
/// log only when the step commits or reveals a batch, and then only that batch
/// and the voids.
pub fn complete<L: SealedLog>(outcome: &mut Outcome, log: &mut L) -> Result<(), L::Error> {
    let batches: BTreeSet<String> = outcome
        .events
        .iter()
        .filter_map(|event| match event {
            Event::Sealed(event) => sealed::batch_of_committed(event),
            _ => None,
        })
        .chain(outcome.mail.iter().filter_map(sealed::batch_of_mail))
        .map(str::to_owned)
        .collect();
    if batches.is_empty() {
        return Ok(());
    }
    // The step's own voids are not counted: the engine committed with what
    // they void still in the world, as before issue 30.
    let voids = log.voids()?;
    let records: Vec<(Timestamp, &str, &Event)> = voids
        .iter()
        .map(|(at, cause, event)| (*at, cause.as_str(), event))
        .collect();
    let voided = super::voided_causes(&records);
    for batch in &batches {
        let mut history: Vec<Sealed> = log
            .sealed_of(batch)?
            .into_iter()
            .filter(|(cause, _)| !voided.contains(cause))
            .map(|(_, sealed)| sealed)
            .collect();
        // The box refuses an action after its batch's commitments, so every
        // one of this step precedes them.
        history.extend(outcome.events.iter().filter_map(|event| match event {
            Event::Sealed(sealed::Event::Sealed { batch: of, sealed }) if of == batch => {
                Some(sealed.clone())
            }
            _ => None,
        }));
        for event in &mut outcome.events {
            if let Event::Sealed(event) = event
                && sealed::batch_of_committed(event) == Some(batch.as_str())
            {
                sealed::complete_committed(event, &history);
            }
        }
        for mail in &mut outcome.mail {
            if sealed::batch_of_mail(mail) == Some(batch.as_str()) {
                sealed::complete_mail(mail, &history);
            }
        }
    }
    Ok(())
}
