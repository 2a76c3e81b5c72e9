//! `[games]`: the Games & Contests suite (Ackanomic rule 1250), a part of the
//! substrate, since other rules name its Contests (a Duel's must come from it)
//! and no game may import another. `list` answers it; a moderator's `add` and
//! `remove` change it for every game that reads it (`View::suite`). The suite as
//! shipped is what the games declare of themselves and what bot.toml's
//! `[[contests]]` (and, from before, `[[duel.contests]]`) says
//! (`Game::contests`). Every change by mail carries a reason and is announced.

use std::sync::Arc;

use serde_json::{Value, json};

use super::{Event, Params, Registered, World};
use crate::engine::contests::{self, Contest};
use crate::engine::game::{Game, NoEvent, SharedEvent, Tx};
use crate::engine::{
    Audience, Ctx, Mail, NotUnderstood, Refusal, Sentence, Timestamp, split_reason, split_verb,
};

/// The subject tag.
pub const TAG: &str = "games";

pub struct Suite;

#[derive(Debug)]
pub enum Command {
    /// `list`: the suite.
    List,
    /// A moderator's `add NAME players N [teams] [no winner] [referee bot|NAME]
    /// [game TAG] [private] [board N] because REASON`.
    Add(Contest, String),
    /// A moderator's `remove NAME because REASON`.
    Remove(String, String),
}

fn usage() -> NotUnderstood {
    NotUnderstood(Sentence::new("usage").arg(
        "usage",
        format!(
            "list, or (moderators) add {} because REASON, or remove NAME because REASON",
            contests::SPEC
        ),
    ))
}

/// The suite as the answers show it.
fn listed(suite: &[Contest]) -> Value {
    suite
        .iter()
        .map(|c| {
            json!({
                "name": c.name,
                "players": c.players,
                "teams": c.teams,
                "definite_winner": c.definite_winner,
                "by_the_bot": c.refereed_by_the_bot(),
                "referee": c.referee,
                "game": c.game,
                "private_moves": c.private_moves,
                "board": c.board,
            })
        })
        .collect()
}

/// A moderator's new (or replacing) Contest, from whichever tag it came
/// (`[games]`, or `[duel] contest add`): announced with its reason, recorded.
pub fn add<G: Game>(tx: &mut Tx<'_, G>, contest: Contest, reason: &str, ctx: &Ctx) {
    let replaced = tx
        .view()
        .suite()
        .iter()
        .any(|c| c.name.eq_ignore_ascii_case(&contest.name));
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "games_changed",
        json!({"added": listed(std::slice::from_ref(&contest)), "replaced": replaced,
               "removed": null, "reason": reason, "by": ctx.signature()}),
    ));
    tx.record_shared(SharedEvent::Contests(contests::Event::Added { contest }));
}

/// A moderator's removal of a Contest, announced with its reason: the name as
/// the suite spells it, or the refusal naming the suite.
pub fn remove<G: Game>(
    tx: &mut Tx<'_, G>,
    written: &str,
    reason: &str,
    ctx: &Ctx,
) -> Result<String, Refusal> {
    let suite = tx.view().suite();
    let Some(found) = suite.iter().find(|c| c.name.eq_ignore_ascii_case(written)) else {
        return Err(Sentence::new("games_no_such_contest")
            .arg("name", written)
            .arg(
                "suite",
                suite.iter().map(|c| c.name.clone()).collect::<Vec<_>>(),
            )
            .into());
    };
    let name = found.name.clone();
    tx.mail(Mail::new(
        Audience::List,
        TAG,
        "games_changed",
        json!({"removed": name, "added": [], "replaced": false,
               "reason": reason, "by": ctx.signature()}),
    ));
    tx.record_shared(SharedEvent::Contests(contests::Event::Removed {
        name: name.clone(),
    }));
    Ok(name)
}

impl Game for Suite {
    const NAME: &'static str = "games";
    const TAGS: &'static [&'static str] = &[TAG];
    type State = ();
    type Event = NoEvent;
    type Command = Command;
    type Params = ();

    fn parse(line: &str, _tag: &str) -> Result<Command, NotUnderstood> {
        let (verb, rest) = split_verb(line);
        let rest = rest.trim();
        match verb.as_str() {
            "list" | "contests" if rest.is_empty() => Ok(Command::List),
            "add" => {
                let (spec, reason) =
                    split_reason(rest, &format!("add {} because REASON", contests::SPEC))?;
                contests::parse_spec(spec)
                    .map(|contest| Command::Add(contest, reason))
                    .ok_or_else(usage)
            }
            "remove" if !rest.is_empty() => {
                let (name, reason) = split_reason(rest, "remove NAME because REASON")?;
                if name.is_empty() {
                    return Err(usage());
                }
                Ok(Command::Remove(name.to_owned(), reason))
            }
            _ => Err(usage()),
        }
    }

    fn apply(tx: &mut Tx<'_, Suite>, command: Command, ctx: &Ctx) -> Result<Sentence, Refusal> {
        let suite = tx.view().suite();
        if !matches!(command, Command::List) && !tx.view().is_moderator(&ctx.sender) {
            return Err(Sentence::new("moderators_only").into());
        }
        match command {
            Command::List => Ok(Sentence::new("games_list").arg("suite", listed(&suite))),
            Command::Add(contest, reason) => {
                let name = contest.name.clone();
                add(tx, contest, &reason, ctx);
                Ok(Sentence::new("games_contest_added").arg("name", name))
            }
            Command::Remove(name, reason) => {
                let name = remove(tx, &name, &reason, ctx)?;
                Ok(Sentence::new("games_contest_removed").arg("name", name))
            }
        }
    }

    fn apply_event(_: &mut (), event: &NoEvent, _: Timestamp) {
        match *event {}
    }
}

impl Registered for Suite {
    fn take_state(_: &World) -> Arc<()> {
        Arc::new(())
    }
    fn put_state(_: &mut World, _: Arc<()>) {}
    fn params(_: &Params) -> &() {
        &()
    }
    fn wrap(event: NoEvent) -> Event {
        match event {}
    }
    fn state_key() -> &'static str {
        <Suite as Game>::NAME
    }
}
