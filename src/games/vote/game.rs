//! `[vote]` behind the game interface: how the router, the driver and the shell
//! reach the ballots. The rules themselves are in the parent module.

use crate::engine::calendar::Deadline;
use crate::engine::game::{Game, Secrecy, SharedEvent, Tick, Tx};
use crate::engine::{Ctx, NotUnderstood, Refusal, Sentence, Timestamp};

use super::{Change, Command, Event, Params, TAG, Votes, ballot_of_deadline};

/// Secret ballots.
pub struct Vote;

fn record(tx: &mut Tx<'_, Vote>, changes: Vec<Change>) {
    for change in changes {
        match change {
            Change::Vote(event) => tx.record(event),
            Change::Sealed(event) => tx.record_shared(SharedEvent::Sealed(event)),
            Change::Schedule(event) => tx.record_shared(SharedEvent::Schedule(event)),
        }
    }
}

impl Game for Vote {
    const NAME: &'static str = "vote";
    const TAGS: &'static [&'static str] = &[TAG];
    type State = Votes;
    type Event = Event;
    type Command = Command;
    type Params = Params;

    fn parse(line: &str, _tag: &str) -> Result<Command, NotUnderstood> {
        super::parse(line)
    }

    fn apply(tx: &mut Tx<'_, Vote>, command: Command, ctx: &Ctx) -> Result<Sentence, Refusal> {
        let view = tx.view();
        let done = tx.state().apply(
            command,
            ctx,
            view.players,
            view.sealed,
            tx.params(),
            view.is_moderator(&ctx.sender),
        )?;
        record(tx, done.events);
        tx.mail_all(done.mail);
        Ok(done.sentence)
    }

    fn apply_event(state: &mut Votes, event: &Event, at: Timestamp) {
        state.apply_event(event, at);
    }

    /// The per-player reminder deadlines of a ballot fire too; only the ballot's
    /// own deadline resolves it.
    fn on_deadline(tx: &mut Tx<'_, Vote>, deadline: &Deadline, _tick: &Tick) {
        let Some(number) = ballot_of_deadline(&deadline.id) else {
            return;
        };
        let (changes, mail) = tx
            .state()
            .resolve(number, tx.view().sealed, tx.at(), None);
        record(tx, changes);
        tx.mail_all(mail);
    }

    fn sample(script: &mut dyn crate::engine::game::Script) {
        super::sample::sample(script);
    }

    fn retire(state: &Votes) -> Option<Votes> {
        state.retire()
    }

    /// A vote is secret until its ballot's reveal, whoever casts it.
    fn secrecy(command: &Command, _ctx: &Ctx) -> Secrecy {
        match command {
            Command::Vote { .. } => Secrecy::Secret {
                until: "the ballot's deadline",
            },
            _ => Secrecy::Public,
        }
    }
}
