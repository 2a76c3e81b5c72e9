//! The closed list of games and the router: a message's tag picks the game, each
//! command line goes to it in the order written. Pure, like the engine: the shell
//! hands in a `Message` and its `Ctx` and gets back events, mail and the answer.

use serde::{Deserialize, Serialize};

use crate::engine::accounts::{self, Accounts};
use crate::engine::players::{self, Registry};
use crate::engine::ruleset::{self, Ruleset};
use crate::engine::{
    Ctx, Done, LineReport, Mail, NotUnderstood, Refusal, Sentence, Status, Timestamp, split_verb,
};

/// Every tag the bot answers to, lower-case. A bracketed subject part that is not
/// one of these (a list prefix like `[game-list]`) is not a tag.
pub const KNOWN_TAGS: &[&str] = &[players::TAG, ruleset::TAG, "help"];

/// The whole game state: what `state --json` shows and what replay rebuilds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct World {
    pub players: Registry,
    #[serde(default)]
    pub accounts: Accounts,
    #[serde(default)]
    pub ruleset: Ruleset,
}

/// Everything that ever changes the world; the event log holds these.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "game", rename_all = "snake_case")]
pub enum Event {
    Players(players::Event),
    Accounts(accounts::Event),
    Ruleset(ruleset::Event),
}

/// The parameters of every game, from bot.toml.
#[derive(Debug, Clone, Default)]
pub struct Params {
    pub players: players::Params,
    /// The moderators' addresses (bot.toml `bot.moderators`).
    pub moderators: Vec<crate::engine::Address>,
    /// The officer(s) who keep the rules (bot.toml `officers.rules`).
    pub rules_officers: Vec<crate::engine::Address>,
}

impl Params {
    pub fn is_moderator(&self, address: &crate::engine::Address) -> bool {
        self.moderators.contains(address)
    }
}

/// A tagged message as the router sees it.
#[derive(Debug, Clone)]
pub struct Message {
    /// The subject tag, normalized ("nomic", "help", "ghost 2").
    pub tag: String,
    /// What followed the tag in the subject.
    pub subject_rest: String,
    /// The body's command lines, in order.
    pub body_lines: Vec<String>,
}

/// What a message or a tick did.
#[derive(Debug, Default)]
#[must_use = "the events must be recorded and the mail queued, or the action is lost"]
pub struct Outcome {
    pub events: Vec<Event>,
    pub mail: Vec<Mail>,
    /// One entry per command line, in order (empty for ticks).
    pub report: Vec<LineReport>,
    /// Tags whose command reference the answer must carry.
    pub help: Vec<String>,
}

impl World {
    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        match event {
            Event::Players(event) => self.players.apply_event(event, at),
            Event::Accounts(event) => self.accounts.apply_event(event, at),
            Event::Ruleset(event) => self.ruleset.apply_event(event, at),
        }
    }

    /// Applies a tagged message, line by line: each line sees the effects of the lines
    /// before it. `self` is not changed; the caller records the events.
    pub fn handle(&self, message: &Message, ctx: &Ctx, params: &Params) -> Outcome {
        let mut outcome = Outcome::default();
        let game = base_tag(&message.tag);
        if game == "help" {
            outcome.help = KNOWN_TAGS
                .iter()
                .filter(|t| **t != "help")
                .map(|t| t.to_string())
                .collect();
            return outcome;
        }
        let mut scratch = self.clone();
        for (line, parsed) in parse_lines(message, game) {
            let report = match parsed {
                Ok(Parsed::Help) => {
                    push_unique(&mut outcome.help, game);
                    LineReport {
                        line,
                        status: Status::Done,
                        sentence: Sentence::new("help_sent").arg("tag", game),
                    }
                }
                Ok(command) => scratch.apply_command(line, command, ctx, params, &mut outcome),
                Err(NotUnderstood(sentence)) => LineReport {
                    line,
                    status: Status::NotUnderstood,
                    sentence,
                },
            };
            outcome.report.push(report);
        }
        let understood = outcome
            .report
            .iter()
            .any(|r| r.status != Status::NotUnderstood);
        if !understood {
            push_unique(&mut outcome.help, game);
        }
        outcome
    }

    /// Carries out one parsed command on this (scratch) world, recording its events
    /// and mail in `outcome`; the report says what became of the line.
    fn apply_command(
        &mut self,
        line: String,
        command: Parsed,
        ctx: &Ctx,
        params: &Params,
        outcome: &mut Outcome,
    ) -> LineReport {
        fn wrap<E>(done: Done<E>, into: fn(E) -> Event) -> (Vec<Event>, Vec<Mail>, Sentence) {
            (
                done.events.into_iter().map(into).collect(),
                done.mail,
                done.sentence,
            )
        }
        let result = match command {
            Parsed::Players(command) => self
                .players
                .apply(
                    command,
                    ctx,
                    &params.players,
                    params.is_moderator(&ctx.sender),
                )
                .map(|done| wrap(done, Event::Players)),
            Parsed::Accounts(command) => self
                .accounts
                .apply(command, ctx, &self.players)
                .map(|done| wrap(done, Event::Accounts)),
            Parsed::Ruleset(command) => self
                .ruleset
                .apply(command, ctx, params.rules_officers.contains(&ctx.sender))
                .map(|done| wrap(done, Event::Ruleset)),
            Parsed::Adjust {
                name,
                amount,
                currency,
                reason,
            } => self
                .adjust(&name, &amount, &currency, &reason, ctx, params)
                .map(|done| wrap(done, Event::Accounts)),
            Parsed::Help => Err(Refusal(Sentence::new("help_sent"))),
        };
        match result {
            Ok((events, mail, sentence)) => {
                for event in &events {
                    self.apply_event(event, ctx.now);
                }
                outcome.events.extend(events);
                outcome.mail.extend(mail);
                LineReport {
                    line,
                    status: Status::Done,
                    sentence,
                }
            }
            Err(refusal) => LineReport {
                line,
                status: Status::Refused,
                sentence: refusal.0,
            },
        }
    }

    /// A moderator's override of a balance: paid from nowhere, or taken to nowhere,
    /// announced on the list with the moderator's reason.
    fn adjust(
        &self,
        name: &str,
        amount: &str,
        currency: &str,
        reason: &str,
        ctx: &Ctx,
        params: &Params,
    ) -> Result<Done<accounts::Event>, Refusal> {
        if !params.is_moderator(&ctx.sender) {
            return Err(Refusal(Sentence::new("moderators_only")));
        }
        let player = self
            .players
            .by_name(name)
            .ok_or_else(|| Refusal(Sentence::new("no_such_player").arg("name", name)))?;
        let amount_value = accounts::parse_amount(amount)
            .ok_or_else(|| Refusal(Sentence::new("accounts_bad_amount").arg("amount", amount)))?;
        let why = format!("Override by {}: {reason}", ctx.sender);
        let holder = accounts::Holder::Player(player.id);
        let event = if amount_value >= num_rational::BigRational::from_integer(0.into()) {
            self.accounts.transfer(
                accounts::Holder::Nowhere,
                holder,
                currency,
                &amount_value,
                &why,
            )?
        } else {
            self.accounts.transfer(
                holder,
                accounts::Holder::Nowhere,
                currency,
                &-amount_value.clone(),
                &why,
            )?
        };
        let currency_name = self
            .accounts
            .currency(currency)
            .map_or(currency.to_owned(), |c| c.name.clone());
        Ok(Done {
            events: vec![event],
            mail: vec![Mail::new(
                crate::engine::Audience::List,
                players::TAG,
                "override_adjust",
                serde_json::json!({
                    "officer": ctx.sender, "name": player.name, "amount": amount,
                    "currency": currency_name, "reason": reason, "at": crate::engine::human_time(ctx.now),
                }),
            )],
            sentence: Sentence::new("adjusted")
                .arg("name", &player.name)
                .arg("amount", amount)
                .arg("currency", currency_name),
        })
    }

    /// The earliest moment the world must change without any mail.
    pub fn next_deadline(&self) -> Option<Timestamp> {
        [self.players.next_deadline()].into_iter().flatten().min()
    }

    /// Everything due at `now`.
    pub fn tick(&self, now: Timestamp) -> Outcome {
        let (events, mail) = self.players.tick(now);
        Outcome {
            events: events.into_iter().map(Event::Players).collect(),
            mail,
            ..Outcome::default()
        }
    }
}

/// `ghost 2` names instance 2 of ghost: the game is the words before the number.
pub fn base_tag(tag: &str) -> &str {
    match tag.rsplit_once(' ') {
        Some((base, number)) if number.chars().all(|c| c.is_ascii_digit()) => base,
        _ => tag,
    }
}

fn push_unique(tags: &mut Vec<String>, tag: &str) {
    if !tags.iter().any(|t| t == tag) {
        tags.push(tag.to_owned());
    }
}

/// A command line read for one of the games.
#[derive(Debug)]
enum Parsed {
    Help,
    Players(players::Command),
    Accounts(accounts::Command),
    Ruleset(ruleset::Command),
    /// A moderator's override of a balance: `adjust Bob -10 points because ...`.
    Adjust {
        name: String,
        amount: String,
        currency: String,
        reason: String,
    },
}

/// `adjust NAME AMOUNT CURRENCY because REASON`: the reason is required, because
/// an override is announced with it.
fn parse_adjust(rest: &str) -> Result<Parsed, NotUnderstood> {
    let usage = || {
        NotUnderstood(
            Sentence::new("usage").arg("usage", "adjust PLAYER AMOUNT CURRENCY because REASON"),
        )
    };
    let (what, reason) = rest.split_once(" because ").ok_or_else(usage)?;
    let words: Vec<&str> = what.split_whitespace().collect();
    // The amount is the first word that reads as one; the name is before it.
    let at = words
        .iter()
        .position(|w| accounts::parse_amount(w).is_some())
        .filter(|at| *at > 0 && *at + 1 < words.len())
        .ok_or_else(usage)?;
    let (mut amount_end, mut amount) = (at + 1, words[at].to_owned());
    // A mixed number ("6 1/403") takes the next word too.
    if let Some(next) = words.get(at + 1)
        && next.contains('/')
        && at + 2 < words.len()
    {
        amount = format!("{amount} {next}");
        amount_end = at + 2;
    }
    Ok(Parsed::Adjust {
        name: words[..at].join(" "),
        amount,
        currency: words[amount_end..].join(" "),
        reason: reason.trim().to_owned(),
    })
}

/// Reads one line under `[nomic]`: the registry's commands, then the accounts'.
fn parse_nomic(line: &str) -> Result<Parsed, NotUnderstood> {
    let (verb, rest) = split_verb(line);
    if verb == "adjust" {
        return parse_adjust(rest);
    }
    let players_error = match players::parse(line) {
        Ok(command) => return Ok(Parsed::Players(command)),
        Err(error) => error,
    };
    match accounts::parse(line) {
        Ok(command) => Ok(Parsed::Accounts(command)),
        // A malformed `give` is better explained by the accounts' own sentence.
        Err(error) if matches!(split_verb(line).0.as_str(), "give" | "balance" | "balances") => {
            Err(error)
        }
        Err(_) => Err(players_error),
    }
}

/// The lines to apply, in order, each read for its game. The subject's rest counts
/// as a command when it reads as one for this game (`[nomic] join Alice`); the body
/// follows. A body whose first command line repeats the subject's command does not
/// apply it twice.
fn parse_lines(message: &Message, game: &str) -> Vec<(String, Result<Parsed, NotUnderstood>)> {
    let rest = message.subject_rest.trim();
    let subject_is_command = !rest.is_empty()
        && (rest.eq_ignore_ascii_case("help")
            || match game {
                players::TAG => parse_nomic(rest).is_ok(),
                ruleset::TAG => ruleset::parse(rest).is_ok(),
                _ => false,
            });
    let normalized = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let mut lines: Vec<String> = Vec::new();
    let mut body = message
        .body_lines
        .iter()
        .map(|l| l.trim().to_owned())
        .peekable();
    if subject_is_command {
        lines.push(rest.to_owned());
        if body
            .peek()
            .is_some_and(|first| normalized(first) == normalized(rest))
        {
            body.next();
        }
    }
    lines.extend(body);
    let is_help = |line: &str| line.trim().eq_ignore_ascii_case("help");
    match game {
        // Rules span several lines: the ruleset groups a command with its text.
        ruleset::TAG => ruleset::parse_message(&lines)
            .into_iter()
            .map(|(line, parsed)| {
                let parsed = if is_help(&line) {
                    Ok(Parsed::Help)
                } else {
                    parsed.map(Parsed::Ruleset)
                };
                (line, parsed)
            })
            .collect(),
        players::TAG => lines
            .into_iter()
            .map(|line| {
                let parsed = if is_help(&line) {
                    Ok(Parsed::Help)
                } else {
                    parse_nomic(&line)
                };
                (line, parsed)
            })
            .collect(),
        _ => lines
            .into_iter()
            .map(|line| {
                let parsed = if is_help(&line) {
                    Ok(Parsed::Help)
                } else {
                    Err(NotUnderstood(Sentence::new("unknown_tag").arg("tag", game)))
                };
                (line, parsed)
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Address;

    fn ctx() -> Ctx {
        Ctx {
            now: Timestamp::from_second(1_800_000_000).unwrap(),
            sender: Address::new("alice@example.org"),
            sender_name: None,
            public: true,
        }
    }

    fn message(tag: &str, rest: &str, body: &[&str]) -> Message {
        Message {
            tag: tag.into(),
            subject_rest: rest.into(),
            body_lines: body.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn subject_command_and_the_same_body_line_apply_once() {
        let outcome = World::default().handle(
            &message("nomic", "join Alice", &["join Alice", "players"]),
            &ctx(),
            &Params::default(),
        );
        let statuses: Vec<_> = outcome
            .report
            .iter()
            .map(|r| (r.line.as_str(), r.status))
            .collect();
        assert_eq!(
            statuses,
            [("join Alice", Status::Done), ("players", Status::Done)]
        );
        assert_eq!(outcome.events.len(), 1);
    }

    #[test]
    fn a_subject_that_is_no_command_is_just_a_subject() {
        let outcome = World::default().handle(
            &message("nomic", "hello everyone", &["join Alice"]),
            &ctx(),
            &Params::default(),
        );
        assert_eq!(outcome.report.len(), 1);
        assert!(outcome.help.is_empty());
    }

    #[test]
    fn later_lines_see_earlier_ones_and_nothing_is_dropped() {
        let outcome = World::default().handle(
            &message(
                "nomic",
                "",
                &["join Alice", "rename Alicia", "dance a jig", "join Bob"],
            ),
            &ctx(),
            &Params::default(),
        );
        let statuses: Vec<_> = outcome.report.iter().map(|r| r.status).collect();
        assert_eq!(
            statuses,
            [
                Status::Done,
                Status::Done,
                Status::NotUnderstood,
                Status::Refused
            ]
        );
        assert_eq!(outcome.report[3].sentence.code, "already_playing");
    }

    #[test]
    fn a_tag_without_an_understood_command_gets_the_help() {
        let outcome = World::default().handle(
            &message("nomic", "", &["what is this"]),
            &ctx(),
            &Params::default(),
        );
        assert_eq!(outcome.help, ["nomic"]);
        let outcome =
            World::default().handle(&message("help", "", &[]), &ctx(), &Params::default());
        assert_eq!(outcome.help, ["nomic", "ruleset"]);
    }
}
