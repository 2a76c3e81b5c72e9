//! The Officer in charge of Random Things, driven by mail (DESIGN.md guarantee 6):
//! `random start LABEL` begins a period and publishes the SHA-256 of its seed,
//! `random draw N PURPOSE` draws and announces, `random end` publishes the seed
//! and every draw. Only the holder of the office (or a moderator) may.

use crate::engine::game::{Game, SharedEvent, Tx};
use crate::engine::random::DrawError;
use crate::engine::{
    Audience, Ctx, Mail, NotUnderstood, Refusal, Sentence, human_time, players, split_verb,
};

/// The office that drives the random draws by mail (a moderator may too).
pub const OFFICE: &str = "Officer in charge of Random Things";

/// `random start LABEL`, `random draw N PURPOSE`, `random end`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Start { label: String },
    Draw { n: u32, purpose: String },
    End,
}

/// Reads what follows `random`.
pub fn parse(rest: &str) -> Result<Command, NotUnderstood> {
    let usage = || {
        NotUnderstood(Sentence::new("usage").arg(
            "usage",
            "random start LABEL | random draw N PURPOSE | random end",
        ))
    };
    let (verb, rest) = split_verb(rest);
    match verb.as_str() {
        "start" if !rest.is_empty() => Ok(Command::Start {
            label: rest.to_owned(),
        }),
        "draw" => {
            let (n, purpose) = rest.split_once(char::is_whitespace).ok_or_else(usage)?;
            let n = n.parse().map_err(|_| usage())?;
            Ok(Command::Draw {
                n,
                purpose: purpose.trim().to_owned(),
            })
        }
        "end" if rest.is_empty() => Ok(Command::End),
        _ => Err(usage()),
    }
}

/// Carries out a command of the officer in any transaction.
pub fn apply<G: Game>(
    tx: &mut Tx<'_, G>,
    command: Command,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    if !tx.view().officers.holds(OFFICE, &ctx.sender) {
        return Err(Refusal(Sentence::new("office_only").arg("office", OFFICE)));
    }
    let refuse = |error: DrawError| Refusal(error.sentence());
    match command {
        Command::Start { label } => {
            let event = tx
                .view()
                .random
                .start_period(&label, ctx.entropy)
                .map_err(refuse)?;
            tx.record_shared(SharedEvent::Random(event));
            let record = tx.view().random.current.clone();
            if let Some(record) = &record {
                tx.mail(record.started_mail(players::TAG));
            }
            Ok(Sentence::new("random_started").arg("label", label).arg(
                "commitment",
                record.map(|r| r.commitment).unwrap_or_default(),
            ))
        }
        Command::Draw { n, purpose } => {
            let random = tx.view().random;
            let (result, event) = random.below(n, &purpose, ctx.now).map_err(refuse)?;
            let label = random
                .current
                .as_ref()
                .map(|r| r.label.clone())
                .unwrap_or_default();
            let index = random.current.as_ref().map_or(0, |r| r.draws.len());
            tx.record_shared(SharedEvent::Random(event));
            tx.mail(Mail::new(
                Audience::List,
                players::TAG,
                "random_drew",
                serde_json::json!({
                    "label": label, "purpose": purpose, "n": n, "result": result + 1,
                    "index": index, "at": human_time(ctx.now),
                }),
            ));
            Ok(Sentence::new("random_drew")
                .arg("purpose", purpose)
                .arg("n", n)
                .arg("result", result + 1))
        }
        Command::End => {
            let event = tx.view().random.end_period().map_err(refuse)?;
            tx.record_shared(SharedEvent::Random(event));
            let record = tx.view().random.past.last().cloned();
            if let Some(record) = &record {
                tx.mail(record.revealed_mail(players::TAG));
            }
            Ok(Sentence::new("random_ended")
                .arg("label", record.map(|r| r.label).unwrap_or_default()))
        }
    }
}
