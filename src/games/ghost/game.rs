//! `[ghost]` behind the game interface: `[ghost N]` names an instance, a bare
//! play in the subject counts only with nothing below it, and a player who leaves
//! the nomic or a referee who goes on vacation changes the running games. The
//! rules themselves are in the parent module.

use crate::engine::calendar::Deadline;
use crate::engine::game::{Game, Running, Standing, Tick, Tx, View};
use std::fmt::Write as _;

use crate::engine::players::Registry;
use crate::engine::{Ctx, NotUnderstood, Refusal, Sentence, Timestamp};
use crate::games::instance_number;

use super::commands;
use super::{Command, Event, Ghosts, Params, TAG, Vacancy, is_bare_play};

/// Ghost (Ackanomic rule 103), every instance.
pub struct Ghost;

/// A command for instance N of `[ghost N]`, or for the only open one.
#[derive(Debug)]
pub struct Play {
    pub instance: Option<u32>,
    pub command: Command,
}

impl Game for Ghost {
    const NAME: &'static str = "ghost";
    const TAGS: &'static [&'static str] = &[TAG];
    type State = Ghosts;
    type Event = Event;
    type Command = Play;
    type Params = Params;

    /// Rule 1250: a Contest of the Games & Contests suite the bot referees.
    fn contests(_params: &Params) -> Vec<crate::engine::contests::Contest> {
        vec![crate::engine::contests::Contest::by_the_bot(
            "Ghost", 2, TAG,
        )]
    }

    fn parse(line: &str, tag: &str) -> Result<Play, NotUnderstood> {
        super::parse(line).map(|command| Play {
            instance: instance_number(tag),
            command,
        })
    }

    /// "[ghost] thanks" over a message is a subject, not the play THANKS; a
    /// subject with nothing below it ("[ghost 1] sup") is.
    fn subject_is_command(rest: &str, _tag: &str, body: &[String]) -> bool {
        super::parse(rest).is_ok()
            && (!is_bare_play(rest) || body.iter().all(|l| l.trim().is_empty()))
    }

    fn begins(play: &Play) -> bool {
        matches!(play.command, Command::Start { .. })
    }

    fn apply(tx: &mut Tx<'_, Ghost>, play: Play, ctx: &Ctx) -> Result<Sentence, Refusal> {
        commands::apply(tx, play.instance, play.command, ctx)
    }

    fn apply_event(state: &mut Ghosts, event: &Event, at: Timestamp) {
        state.apply_event(event, at);
    }

    fn on_deadline(tx: &mut Tx<'_, Ghost>, deadline: &Deadline, tick: &Tick) {
        commands::deadline_fired(tx, deadline, tick);
    }

    /// Each instance not over, with its players in the order of their numbers
    /// and whose turn it is. Ghost keeps no score: its winner is paid in the
    /// nomic's points.
    fn running(state: &Ghosts, view: &View<'_>) -> Vec<Running> {
        let name = |seat: &super::Seat| {
            view.players
                .by_id(seat.player)
                .map_or_else(|| seat.name.clone(), |player| player.name.clone())
        };
        state
            .instances
            .iter()
            .filter(|instance| !instance.is_over())
            .map(|instance| {
                let stage = if instance.is_suspended() {
                    ", suspended: no referee"
                } else if instance.is_held() {
                    ", held for a moderator's ruling"
                } else if matches!(instance.stage, super::Stage::Protest { .. }) {
                    ", a protest is being judged"
                } else {
                    ""
                };
                let word = match &instance.ghost_word {
                    Some(word) => format!("the ghost word is {}", word.to_uppercase()),
                    None => "no letter played yet".to_owned(),
                };
                Running {
                    tag: super::tag(instance.number),
                    what: format!(
                        "{}, {word}{stage}",
                        if instance.duel { "a Duel" } else { "Ghost" }
                    ),
                    players: instance.in_game().map(name).collect(),
                    turn: instance
                        .turn()
                        .and_then(|seat| instance.seats.iter().find(|s| s.number == seat))
                        .map(name),
                    deadline: None,
                }
            })
            .collect()
    }

    /// A player who leaves the nomic leaves every instance (and its referee post);
    /// a referee on vacation leaves the post.
    fn standing_changed(tx: &mut Tx<'_, Ghost>, change: &Standing) {
        match *change {
            Standing::Left(id) => commands::player_left_nomic(tx, id),
            Standing::Vacation(id) => commands::referee_gone(tx, id, Vacancy::Vacation),
            Standing::Gaoled(_) | Standing::Joined(_) => {}
        }
    }

    fn bindings(params: &Params) -> crate::engine::ruleset::bindings::Declared {
        super::bound::declared(params)
    }

    /// Rule 103 left effect, was held, or is followed again: the running
    /// instances end, wait, or go on (`commands::bindings_changed`).
    fn bindings_changed(tx: &mut Tx<'_, Ghost>, _rules: &[u32]) {
        commands::bindings_changed(tx);
    }

    fn sample(script: &mut dyn crate::engine::game::Script) {
        super::sample::sample(script);
    }

    fn state_text(
        _shown: &serde_json::Value,
        state: &Ghosts,
        view: &View<'_>,
        now: Timestamp,
    ) -> Option<String> {
        state_text(state, view.players, now).ok()
    }
}

/// `state ghost` for a person: every instance still running.
fn state_text(
    ghosts: &Ghosts,
    players: &Registry,
    now: Timestamp,
) -> Result<String, std::fmt::Error> {
    let mut out = String::new();
    let mut any = false;
    for instance in ghosts.open_instances() {
        any = true;
        let s = super::summary(instance, players, now);
        let text = |v: &serde_json::Value| v.as_str().map_or_else(|| v.to_string(), str::to_owned);
        writeln!(
            out,
            "Ghost {}{}, referee {}:",
            s["number"],
            if s["duel"] == true { " (a Duel)" } else { "" },
            s["referee"].as_str().unwrap_or("none: suspended")
        )?;
        let order: Vec<String> = s["order"]
            .as_array()
            .into_iter()
            .flatten()
            .map(text)
            .collect();
        writeln!(out, "  in play, in order: {}", order.join(", "))?;
        let word = s["word"]
            .as_str()
            .map_or("none".to_owned(), str::to_uppercase);
        writeln!(out, "  ghost word: {word}")?;
        if !s["turn"].is_null() {
            writeln!(
                out,
                "  {}'s turn, until {}",
                text(&s["turn"]["name"]),
                text(&s["turn"]["deadline"])
            )?;
        }
        if s["held"] == true {
            writeln!(
                out,
                "  held since {}: rule 103 changed, awaiting a moderator's ruling",
                text(&s["held_since"])
            )?;
        }
        if !s["protest"].is_null() {
            writeln!(
                out,
                "  protest by {} ({}), answer due {}",
                text(&s["protest"]["by"]),
                text(&s["protest"]["grounds"]),
                text(&s["protest"]["deadline"])
            )?;
        }
    }
    if !any {
        writeln!(out, "No game of Ghost is running.")?;
    }
    Ok(out)
}
