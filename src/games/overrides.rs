//! The moderators' overrides, under any tag (DESIGN.md guarantee 5): `as PLAYER
//! because REASON: COMMAND` carries out a game's command on a player's behalf,
//! `void <MESSAGE-ID> because REASON` undoes a message's actions, and `adjust
//! PLAYER AMOUNT CURRENCY because REASON` (under the tags whose game accepts it)
//! sets a balance. Each is announced on the list with the reason, except what a
//! secret action would reveal: an override of a secret action is exactly as
//! secret as the player's own.

use num_rational::BigRational;
use serde::{Deserialize, Serialize};

use crate::engine::accounts::{self, Holder};
use crate::engine::game::{SharedEvent, View};
use crate::engine::{
    Address, Audience, Ctx, LineReport, Mail, NotUnderstood, Refusal, Sentence, Status, human_time,
    players, split_verb,
};

use super::router::apply_line;
use super::{Event, Outcome, Params, Registered, World};

/// A moderator's overrides that are events of their own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Override {
    /// The actions of the message with this Message-ID are void: the state is what it
    /// would be had that message never been applied; later actions stand as recorded.
    Voided {
        message_id: String,
        officer: Address,
        reason: String,
    },
}

/// An override, read; `C` is the game's command (the one carried out for a player).
#[derive(Debug)]
pub enum Command<C> {
    /// A moderator acts on a player's behalf: `as Alice because REASON: COMMAND`.
    OnBehalf {
        name: String,
        reason: String,
        line: String,
        inner: Result<C, NotUnderstood>,
    },
    /// A moderator voids a message's actions: `void <ID> because REASON`.
    Void { message_id: String, reason: String },
    /// A moderator's override of a balance: `adjust Bob -10 points because ...`.
    Adjust {
        name: String,
        amount: String,
        currency: String,
        reason: String,
    },
}

/// Reads a line as an override, if it is one for game `G`. `game_understood`:
/// the game read the line as its own (`void ALICE move because ...` voids one
/// counted action of a game, not a message).
pub fn parse<G: Registered>(
    line: &str,
    tag: &str,
    game_understood: bool,
) -> Option<Result<Command<G::Command>, NotUnderstood>> {
    let (verb, rest) = split_verb(line);
    match verb.as_str() {
        "as" => Some(parse_on_behalf::<G>(rest, tag)),
        "void" => match parse_void(rest) {
            Some(void) => Some(Ok(void)),
            None if game_understood => None,
            None => Some(Err(usage("void <MESSAGE-ID> because REASON"))),
        },
        "adjust" if G::ACCEPTS_ADJUST => Some(parse_adjust(rest)),
        _ => None,
    }
}

fn usage(text: &str) -> NotUnderstood {
    NotUnderstood(Sentence::new("usage").arg("usage", text))
}

fn parse_on_behalf<G: Registered>(
    rest: &str,
    tag: &str,
) -> Result<Command<G::Command>, NotUnderstood> {
    let usage = || usage("as PLAYER because REASON: COMMAND");
    let (who, command) = rest.split_once(':').ok_or_else(usage)?;
    let (name, reason) = who.split_once(" because ").ok_or_else(usage)?;
    let command = command.trim();
    Ok(Command::OnBehalf {
        name: name.trim().to_owned(),
        reason: reason.trim().to_owned(),
        line: command.to_owned(),
        inner: G::parse(command, tag),
    })
}

/// `void <ID> because REASON`; `None` when what is voided is no Message-ID (one word).
fn parse_void<C>(rest: &str) -> Option<Command<C>> {
    let (id, reason) = rest.split_once(" because ")?;
    let id = id
        .trim()
        .trim_start_matches('<')
        .trim_end_matches('>')
        .trim();
    if id.is_empty() || id.contains(char::is_whitespace) {
        return None;
    }
    Some(Command::Void {
        message_id: id.to_owned(),
        reason: reason.trim().to_owned(),
    })
}

/// `adjust NAME AMOUNT CURRENCY because REASON`: the reason is required, because
/// an override is announced with it.
fn parse_adjust<C>(rest: &str) -> Result<Command<C>, NotUnderstood> {
    let usage = || usage("adjust PLAYER AMOUNT CURRENCY because REASON");
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
    Ok(Command::Adjust {
        name: words[..at].join(" "),
        amount,
        currency: words[amount_end..].join(" "),
        reason: reason.trim().to_owned(),
    })
}

/// Carries out an override on the message's scratch world.
pub fn apply<G: Registered>(
    scratch: &mut World,
    line: String,
    command: Command<G::Command>,
    ctx: &Ctx,
    params: &Params,
    outcome: &mut Outcome,
) -> LineReport {
    let refused = |line: String, sentence: Sentence| LineReport {
        line,
        status: Status::Refused,
        sentence,
    };
    match command {
        Command::OnBehalf {
            name,
            reason,
            line: inner_line,
            inner,
        } => on_behalf::<G>(
            scratch, line, &name, &reason, inner_line, inner, ctx, params, outcome,
        ),
        Command::Void { message_id, reason } => {
            if !params.is_moderator(&ctx.sender) {
                return refused(line, Sentence::new("moderators_only"));
            }
            let event = Event::Override(Override::Voided {
                message_id: message_id.clone(),
                officer: ctx.sender.clone(),
                reason: reason.clone(),
            });
            scratch.apply_event(&event, ctx.now);
            outcome.events.push(event);
            outcome.mail.push(Mail::new(
                Audience::List,
                players::TAG,
                "override_void",
                serde_json::json!({
                    "officer": ctx.sender, "message_id": message_id, "reason": reason,
                    "at": human_time(ctx.now),
                }),
            ));
            LineReport {
                line,
                status: Status::Done,
                sentence: Sentence::new("voided").arg("message_id", message_id),
            }
        }
        Command::Adjust {
            name,
            amount,
            currency,
            reason,
        } => {
            let view = View::new(&scratch.shared, &params.setting);
            match adjust::<G>(&view, &name, &amount, &currency, &reason, ctx, params) {
                Ok((event, mail, sentence)) => {
                    scratch
                        .shared
                        .apply_event(&SharedEvent::Accounts(event.clone()), ctx.now);
                    outcome.events.push(Event::Accounts(event));
                    outcome.mail.push(mail);
                    LineReport {
                        line,
                        status: Status::Done,
                        sentence,
                    }
                }
                Err(refusal) => refused(line, refusal.0),
            }
        }
    }
}

/// A moderator (or the game's own officer) acts for a player: the command is
/// applied as if the player had sent it, and the override is announced on the
/// list with the reason; the command itself only when the player's own action
/// would have been public.
#[allow(clippy::too_many_arguments)]
fn on_behalf<G: Registered>(
    scratch: &mut World,
    line: String,
    name: &str,
    reason: &str,
    inner_line: String,
    inner: Result<G::Command, NotUnderstood>,
    ctx: &Ctx,
    params: &Params,
    outcome: &mut Outcome,
) -> LineReport {
    let refused = |sentence: Sentence| LineReport {
        line: line.clone(),
        status: Status::Refused,
        sentence,
    };
    let may = params.is_moderator(&ctx.sender)
        || (inner.is_ok() && G::is_officer(params.officers(), G::params(params), &ctx.sender));
    if !may {
        return refused(Sentence::new("moderators_only"));
    }
    let Some(player) = scratch.players.by_name(name) else {
        return refused(Sentence::new("no_such_player").arg("name", name));
    };
    let command = match inner {
        Ok(command) => command,
        Err(NotUnderstood(sentence)) => {
            return LineReport {
                line,
                status: Status::NotUnderstood,
                sentence,
            };
        }
    };
    let player_name = player.name.clone();
    let as_player = Ctx {
        sender: player.address.clone(),
        sender_name: Some(player_name.clone()),
        ..ctx.clone()
    };
    // The same secrecy as the player's own action, sent the way this one was.
    let secrecy = match G::secrecy(&command, &as_player) {
        crate::engine::game::Secrecy::Secret { shown_as } => Some(shown_as),
        crate::engine::game::Secrecy::Public => None,
    };
    let secret = secrecy.is_some();
    let report = apply_line::<G>(
        scratch,
        inner_line.clone(),
        command,
        &as_player,
        params,
        outcome,
    );
    if report.status == Status::Done {
        outcome.mail.push(Mail::new(
            Audience::List,
            players::TAG,
            "override_on_behalf",
            serde_json::json!({
                "officer": ctx.sender, "name": player_name,
                // The list learns that an action was made, not which.
                "command": if secret { serde_json::Value::Null } else { inner_line.into() },
                "secret": secrecy,
                "reason": reason, "at": human_time(ctx.now),
            }),
        ));
    }
    LineReport { line, ..report }
}

/// A moderator's override of a balance: paid from nowhere, or taken to nowhere,
/// announced on the list with the moderator's reason.
fn adjust<G: Registered>(
    view: &View<'_>,
    name: &str,
    amount: &str,
    currency: &str,
    reason: &str,
    ctx: &Ctx,
    params: &Params,
) -> Result<(accounts::Event, Mail, Sentence), Refusal> {
    let configured = view
        .accounts
        .currency(currency)
        .map_or(currency.to_owned(), |c| c.name.clone());
    let may = params.is_moderator(&ctx.sender)
        || view
            .accounts
            .currency(currency)
            .is_some_and(|c| G::may_adjust(params.officers(), G::params(params), &ctx.sender, c));
    if !may {
        return Err(Refusal(Sentence::new("moderators_only")));
    }
    let player = view
        .players
        .by_name(name)
        .ok_or_else(|| Refusal(Sentence::new("no_such_player").arg("name", name)))?;
    let amount_value = accounts::parse_amount(amount)
        .ok_or_else(|| Refusal(Sentence::new("accounts_bad_amount").arg("amount", amount)))?;
    let why = format!("Override by {}: {reason}", ctx.sender);
    let holder = Holder::Player(player.id);
    let event = if amount_value >= BigRational::from_integer(0.into()) {
        view.accounts
            .transfer(Holder::Nowhere, holder, currency, &amount_value, &why)?
    } else {
        view.accounts.transfer(
            holder,
            Holder::Nowhere,
            currency,
            &-amount_value.clone(),
            &why,
        )?
    };
    let mail = Mail::new(
        Audience::List,
        players::TAG,
        "override_adjust",
        serde_json::json!({
            "officer": ctx.sender, "name": player.name, "amount": amount,
            "currency": configured, "reason": reason, "at": human_time(ctx.now),
        }),
    );
    let sentence = Sentence::new("adjusted")
        .arg("name", &player.name)
        .arg("amount", amount)
        .arg("currency", &configured);
    Ok((event, mail, sentence))
}
