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
        // Only this batch's own: a batch id opened again after its batch
        // retired has the earlier one's actions before them.
        let count = outcome
            .mail
            .iter()
            .filter(|mail| sealed::batch_of_mail(mail) == Some(batch.as_str()))
            .find_map(sealed::sealed_count_of_mail);
        if let Some(count) = count
            && history.len() > count
        {
            history.drain(..history.len() - count);
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::sealed::SealedBox;

    /// A log as the store or the table hands it over.
    struct Log(Vec<(String, Sealed)>);

    impl SealedLog for Log {
        type Error = std::convert::Infallible;
        fn sealed_of(&mut self, _: &str) -> Result<Vec<(String, Sealed)>, Self::Error> {
            Ok(self.0.clone())
        }
        fn voids(&mut self) -> Result<Vec<(Timestamp, String, Event)>, Self::Error> {
            Ok(Vec::new())
        }
    }

    fn ts(text: &str) -> Timestamp {
        text.parse().expect("time")
    }

    /// Seals `votes` (player, text) in a new batch `b` of `sealed_box`; the
    /// log's entries for them.
    fn seal(sealed_box: &mut SealedBox, votes: &[(u32, &str)]) -> Vec<(String, Sealed)> {
        let open = sealed_box.open("b", "vote", ts("2026-04-02T00:00:00Z"));
        sealed_box.apply_event(&open.expect("opened"));
        let mut log = Vec::new();
        for (player, text) in votes {
            let event = sealed_box
                .seal_choice(
                    "b",
                    *player,
                    &format!("P{player}"),
                    text,
                    Some(player.to_string()),
                    ts("2026-04-01T00:00:00Z"),
                    &[1; 32],
                )
                .expect("sealed");
            if let sealed::Event::Sealed { sealed, .. } = &event {
                log.push((format!("mail:{}", log.len()), sealed.clone()));
            }
            sealed_box.apply_event(&event);
        }
        log
    }

    #[test]
    fn a_batch_id_opened_again_takes_only_its_own_actions_from_the_log() {
        // An earlier batch under the same id, revealed and retired.
        let mut earlier = SealedBox::default();
        let mut log = seal(&mut earlier, &[(1, "yes"), (1, "no"), (2, "no")]);
        let mut sealed_box = SealedBox::default();
        log.extend(seal(&mut sealed_box, &[(1, "yes"), (1, "no")]));
        let (events, mail) = sealed_box.tick(ts("2026-04-02T00:00:00Z"));
        let mut outcome = Outcome {
            events: events.into_iter().map(Event::Sealed).collect(),
            mail,
            ..Outcome::default()
        };
        let Ok(()) = complete(&mut outcome, &mut Log(log));
        assert_eq!(outcome.mail[0].values["n_actions"], 2);
        match &outcome.events[0] {
            Event::Sealed(sealed::Event::Committed { commitments, .. }) => {
                assert_eq!(commitments.len(), 2);
            }
            other => panic!("not the commitments: {other:?}"),
        }
    }
}
