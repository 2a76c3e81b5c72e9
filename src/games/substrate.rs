//! The substrate's own tags, routed like games: `[nomic]` (the player registry,
//! the accounts, the offices, the Officer in charge of Random Things) and
//! `[ruleset]` (the rules). They keep no state of their own: everything they
//! change is the shared world's, so they record shared events only.

use std::sync::Arc;

use crate::engine::game::{Game, NoEvent, Officers, SharedEvent, Tx};
use crate::engine::{
    Ctx, Done, NotUnderstood, Refusal, Sentence, Timestamp, accounts, inventory, offices, players,
    ruleset, split_verb,
};

use super::random_officer;
use super::{Event, Params, Registered, Visit, World};

/// The substrate's tags.
pub const TAGS: &[&str] = &[players::TAG, ruleset::TAG, super::suite::TAG];

/// Calls the visitor for each of the substrate's tags.
pub fn each_part(visitor: &mut impl Visit) {
    visitor.visit::<Nomic>();
    visitor.visit::<Rules>();
    visitor.visit::<super::suite::Suite>();
}

/// Records a substrate component's `Done` in a transaction.
fn record<G: Game, E>(tx: &mut Tx<'_, G>, done: Done<E>, into: fn(E) -> SharedEvent) -> Sentence {
    for event in done.events {
        tx.record_shared(into(event));
    }
    tx.mail_all(done.mail);
    done.sentence
}

/// `[nomic]`: the player registry, the accounts, `officers`, and the Officer in
/// charge of Random Things.
pub struct Nomic;

#[derive(Debug)]
pub enum NomicCommand {
    Players(players::Command),
    Accounts(accounts::Command),
    Random(random_officer::Command),
    /// `officers`: who holds which office.
    Officers,
    /// `standings`: the nomic's money and points, and every game's score.
    Standings,
    /// `games`: every running game, its players, whose turn, its next deadline.
    Games,
    /// `observe GAME`, then `observe GAME CODE` with the code mailed back.
    Observe {
        game: String,
        code: Option<String>,
    },
    /// `unobserve GAME`.
    Unobserve {
        game: String,
    },
    /// A moderator's `appoint` or `dismiss`.
    Office(offices::Command),
    /// `inventory`, and a moderator's `create`, `transfer`, `destroy`.
    Inventory(inventory::Command),
}

impl Game for Nomic {
    const NAME: &'static str = "nomic";
    const TAGS: &'static [&'static str] = &[players::TAG];
    const ACCEPTS_ADJUST: bool = true;
    type State = ();
    type Event = NoEvent;
    type Command = NomicCommand;
    type Params = players::Params;

    fn parse(line: &str, _tag: &str) -> Result<NomicCommand, NotUnderstood> {
        let (verb, rest) = split_verb(line);
        if verb == "random" {
            return random_officer::parse(rest).map(NomicCommand::Random);
        }
        if verb == "officers" && rest.is_empty() {
            return Ok(NomicCommand::Officers);
        }
        if matches!(verb.as_str(), "standings" | "scores") && rest.is_empty() {
            return Ok(NomicCommand::Standings);
        }
        if verb == "games" && rest.is_empty() {
            return Ok(NomicCommand::Games);
        }
        if verb == "observe" || verb == "unobserve" {
            return observe_parse(&verb, rest);
        }
        if let Some(command) = offices::parse(&verb, rest) {
            return command.map(NomicCommand::Office);
        }
        if let Some(command) = inventory::parse(line) {
            return command.map(NomicCommand::Inventory);
        }
        let players_error = match players::parse(line) {
            Ok(command) => return Ok(NomicCommand::Players(command)),
            Err(error) => error,
        };
        match accounts::parse(line) {
            Ok(command) => Ok(NomicCommand::Accounts(command)),
            // A malformed `give` is better explained by the accounts' own sentence.
            Err(error) if matches!(verb.as_str(), "give" | "balance" | "balances") => Err(error),
            Err(_) => Err(players_error),
        }
    }

    fn apply(
        tx: &mut Tx<'_, Nomic>,
        command: NomicCommand,
        ctx: &Ctx,
    ) -> Result<Sentence, Refusal> {
        match command {
            NomicCommand::Players(command) => {
                let view = tx.view();
                let done = view.players.apply(
                    command,
                    ctx,
                    tx.params(),
                    view.is_moderator(&ctx.sender),
                )?;
                Ok(record(tx, done, SharedEvent::Players))
            }
            NomicCommand::Accounts(command) => {
                let view = tx.view();
                let done = view.accounts.apply(command, ctx, view.players)?;
                Ok(record(tx, done, SharedEvent::Accounts))
            }
            NomicCommand::Random(command) => random_officer::apply(tx, command, ctx),
            NomicCommand::Officers => {
                Ok(Sentence::new("officers").arg("offices", roster(&tx.setting().officers)))
            }
            // Filled from the whole world by the router (`summary::fill`): the
            // substrate sees only the shared part.
            NomicCommand::Standings => Ok(Sentence::new(super::summary::STANDINGS)),
            NomicCommand::Games => Ok(Sentence::new(super::summary::GAMES)),
            NomicCommand::Observe { game, code } => observe(tx, game, code, ctx),
            NomicCommand::Unobserve { game } => unobserve(tx, game, ctx),
            NomicCommand::Inventory(command) => {
                let view = tx.view();
                let done = view.inventory.apply(
                    command,
                    ctx,
                    view.players,
                    view.is_moderator(&ctx.sender),
                )?;
                Ok(record(tx, done, SharedEvent::Inventory))
            }
            NomicCommand::Office(command) => {
                let view = tx.view();
                let done = view
                    .offices
                    .apply(command, ctx, view.officers, view.players)?;
                Ok(record(tx, done, SharedEvent::Offices))
            }
        }
    }

    fn apply_event(_: &mut (), event: &NoEvent, _: Timestamp) {
        match *event {}
    }
}

/// `observe GAME [CODE]` and `unobserve GAME`: the game by any of its tags,
/// the code (`XXXX-XXXX-XXXX-XXXX`) last when there is one.
fn observe_parse(verb: &str, rest: &str) -> Result<NomicCommand, NotUnderstood> {
    let usage = |usage: &str| NotUnderstood(Sentence::new("usage").arg("usage", usage));
    let mut words: Vec<&str> = rest.split_whitespace().collect();
    let code = match words.last() {
        Some(last)
            if verb == "observe" && words.len() > 1 && players::code_key(last).len() == 16 =>
        {
            let code = players::code_key(last);
            words.pop();
            Some(code)
        }
        _ => None,
    };
    let game = words.join(" ").trim_matches(['[', ']']).to_lowercase();
    if game.is_empty() {
        return Err(usage(if verb == "observe" {
            "observe GAME"
        } else {
            "unobserve GAME"
        }));
    }
    Ok(match verb {
        "observe" => NomicCommand::Observe { game, code },
        _ => NomicCommand::Unobserve { game },
    })
}

/// The game a tag names, by its own (first) tag: what observers are kept by.
fn observed_game(written: &str) -> Result<String, Refusal> {
    struct Find<'a>(&'a str, Option<String>, Vec<String>);
    impl Visit for Find<'_> {
        fn visit<G: Registered>(&mut self) {
            self.2.push(G::TAGS[0].to_owned());
            if self.1.is_none() && (G::TAGS.contains(&self.0) || G::NAME == self.0) {
                self.1 = Some(G::TAGS[0].to_owned());
            }
        }
    }
    let mut find = Find(super::base_tag(written), None, Vec::new());
    each_part(&mut find);
    super::each_game(&mut find);
    find.1.ok_or_else(|| {
        Sentence::new("observe_unknown_game")
            .arg("game", written)
            .arg("games", find.2.join(", "))
            .into()
    })
}

/// Someone who is no player asks to get a game's announcements privately, or
/// confirms with the code mailed for it.
fn observe(
    tx: &mut Tx<'_, Nomic>,
    written: String,
    code: Option<String>,
    ctx: &Ctx,
) -> Result<Sentence, Refusal> {
    let game = observed_game(&written)?;
    let view = tx.view();
    let registry = view.players;
    if let Some(player) = registry.active_by_address(&ctx.sender) {
        return Err(Sentence::new("observe_player")
            .arg("name", &player.name)
            .arg("game", &game)
            .into());
    }
    let own = registry
        .observers
        .iter()
        .find(|o| o.address == ctx.sender && o.game == game);
    if own.is_some_and(|o| o.confirmed) {
        return Err(Sentence::new("observe_already").arg("game", &game).into());
    }
    let event = match code {
        Some(code) => {
            let Some(pending) = own else {
                return Err(Sentence::new("observe_no_request")
                    .arg("game", &game)
                    .into());
            };
            if pending.code_hash != players::code_hash(&code) {
                return Err(Sentence::new("observe_code_wrong")
                    .arg("game", &game)
                    .into());
            }
            players::Event::ObserveConfirmed {
                address: ctx.sender.clone(),
                game: game.clone(),
            }
        }
        None => {
            let others = registry
                .observers
                .iter()
                .filter(|o| o.address == ctx.sender && o.game != game)
                .count();
            if others >= players::MAX_OBSERVED_PER_ADDRESS {
                return Err(Sentence::new("observe_too_many")
                    .arg("max", players::MAX_OBSERVED_PER_ADDRESS)
                    .into());
            }
            let code = players::confirmation_code(&ctx.entropy, "observe code", &ctx.sender);
            let event = players::Event::ObserveRequested {
                address: ctx.sender.clone(),
                game: game.clone(),
                code_hash: players::code_hash(&players::code_key(&code)),
            };
            tx.record_shared(SharedEvent::Players(event));
            return Ok(Sentence::new("observe_requested")
                .arg("game", &game)
                .arg("code", code));
        }
    };
    tx.record_shared(SharedEvent::Players(event));
    Ok(Sentence::new("observe_confirmed").arg("game", game))
}

fn unobserve(tx: &mut Tx<'_, Nomic>, written: String, ctx: &Ctx) -> Result<Sentence, Refusal> {
    let game = observed_game(&written)?;
    let observing = tx
        .view()
        .players
        .observers
        .iter()
        .any(|o| o.address == ctx.sender && o.game == game);
    if !observing {
        return Err(Sentence::new("observe_not_observing")
            .arg("game", &game)
            .into());
    }
    tx.record_shared(SharedEvent::Players(players::Event::Unobserved {
        address: ctx.sender.clone(),
        game: game.clone(),
    }));
    Ok(Sentence::new("observe_stopped").arg("game", game))
}

/// Who holds what, for the `officers` command: the configured offices, then the
/// games' own.
pub fn roster(officers: &Officers) -> serde_json::Value {
    let mut offices: Vec<(&str, &Vec<crate::engine::Address>)> = vec![
        ("Moderator", &officers.moderators),
        ("Keeper of the rules", &officers.rules),
    ];
    offices.extend(officers.offices.iter().map(|(o, h)| (o.as_str(), h)));
    for (office, holders) in &officers.of_games {
        if !offices.iter().any(|(o, _)| o.eq_ignore_ascii_case(office)) {
            offices.push((office, holders));
        }
    }
    serde_json::Value::Array(
        offices
            .into_iter()
            .map(|(office, holders)| serde_json::json!({ "office": office, "holders": holders }))
            .collect(),
    )
}

/// `[ruleset]`: the rules (a rule's text spans the lines below its command).
pub struct Rules;

impl Game for Rules {
    const NAME: &'static str = "ruleset";
    const TAGS: &'static [&'static str] = &[ruleset::TAG];
    const KEEPS_BLANK_LINES: bool = true;
    type State = ();
    type Event = NoEvent;
    type Command = ruleset::Command;
    type Params = ();

    fn parse(line: &str, _tag: &str) -> Result<ruleset::Command, NotUnderstood> {
        ruleset::parse(line)
    }

    fn parse_message(
        lines: &[String],
        _tag: &str,
    ) -> Vec<(String, Result<ruleset::Command, NotUnderstood>)> {
        ruleset::parse_message(lines)
    }

    fn apply(
        tx: &mut Tx<'_, Rules>,
        command: ruleset::Command,
        ctx: &Ctx,
    ) -> Result<Sentence, Refusal> {
        let view = tx.view();
        let show = match command {
            ruleset::Command::Show { number } => Some(number),
            _ => None,
        };
        let done = view
            .ruleset
            .apply(command, ctx, view.officers.keeps_the_rules(&ctx.sender))?;
        let sentence = record(tx, done, SharedEvent::Ruleset);
        // What the games compute from the rule shown, and with which numbers.
        Ok(match show {
            Some(number) => sentence.arg(
                "bound",
                ruleset::bindings::report(
                    tx.view().ruleset,
                    &tx.setting().bound,
                    Some(number),
                    tx.setting().baseline_when_unrecorded,
                ),
            ),
            None => sentence,
        })
    }

    fn apply_event(_: &mut (), event: &NoEvent, _: Timestamp) {
        match *event {}
    }
}

/// The substrate keeps no state of its own: its transactions start from none.
macro_rules! stateless {
    ($part:ty, $params:ident) => {
        impl Registered for $part {
            fn take_state(_: &World) -> Arc<()> {
                Arc::new(())
            }
            fn put_state(_: &mut World, _: Arc<()>) {}
            fn params(params: &Params) -> &Self::Params {
                $params(params)
            }
            fn wrap(event: NoEvent) -> Event {
                match event {}
            }
            fn state_key() -> &'static str {
                <$part as Game>::NAME
            }
        }
    };
}

fn players_params(params: &Params) -> &players::Params {
    &params.players
}

fn no_params(_: &Params) -> &'static () {
    &()
}

stateless!(Nomic, players_params);
stateless!(Rules, no_params);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observe_reads_the_game_by_any_tag_and_the_code_last() {
        let read = |line: &str| match Nomic::parse(line, "nomic") {
            Ok(NomicCommand::Observe { game, code }) => Some((game, code)),
            _ => None,
        };
        assert_eq!(read("observe ghost"), Some(("ghost".into(), None)));
        assert_eq!(read("observe [Rule Tag]"), Some(("rule tag".into(), None)));
        assert_eq!(
            read("observe rule tag k7qm-2xhd-9pwa-rt3f"),
            Some(("rule tag".into(), Some("K7QM2XHD9PWART3F".into())))
        );
        assert!(read("observe").is_none());
        assert!(matches!(
            Nomic::parse("unobserve vote", "nomic"),
            Ok(NomicCommand::Unobserve { game }) if game == "vote"
        ));
        assert_eq!(observed_game("ghost 2").ok(), Some("ghost".to_owned()));
        assert_eq!(observed_game("ruletag").ok(), Some("rule tag".to_owned()));
        assert!(observed_game("chess").is_err());
    }
}
