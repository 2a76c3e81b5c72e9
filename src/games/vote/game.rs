//! `[vote]` behind the game interface: how the router, the driver and the shell
//! reach the ballots. The rules themselves are in `rules`, the state in the
//! parent module.

use crate::engine::calendar::Deadline;
use crate::engine::game::{Game, Running, Secrecy, Tick, Tx, View};
use crate::engine::{Ctx, NotUnderstood, Refusal, Sentence, Timestamp};

use super::rules;
use super::{Command, Event, Params, TAG, Votes, ballot_of_deadline};

/// Secret ballots.
pub struct Vote;

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
        rules::apply(tx, command, ctx)
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
        let _tally = rules::resolve(tx, number, None);
    }

    /// Each open ballot with its deadline; how anyone voted stays sealed, and
    /// so does who has voted. Ballots keep no score.
    fn running(state: &Votes, _view: &View<'_>) -> Vec<Running> {
        state
            .ballots
            .iter()
            .filter(|ballot| ballot.closed.is_none())
            .map(|ballot| Running {
                tag: TAG.to_owned(),
                what: format!("ballot {}: {}", ballot.number, ballot.question),
                players: Vec::new(),
                turn: None,
                deadline: Some(ballot.deadline),
            })
            .collect()
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
                shown_as: "a secret vote (revealed with the others at the ballot's deadline)",
            },
            _ => Secrecy::Public,
        }
    }
}
