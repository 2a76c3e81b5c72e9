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
    Address, Audience, Ctx, LineReport, Mail, NotUnderstood, Refusal, Sentence, Status, Timestamp,
    human_time, players, random, split_reason, split_verb,
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
    /// A moderator's ruling on the bot's reading of a changed rule, under
    /// `[ruleset]`: `binding 304 keep|off|set NAME VALUE because REASON`.
    Binding(super::bindings::Ruling),
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
            Some(Ok(void)) => Some(Ok(void)),
            // A game's own `void` (one word or more, then its reason) is the game's.
            _ if game_understood => None,
            Some(Err(refused)) => Some(Err(refused)),
            None => Some(Err(usage(VOID_FORM))),
        },
        "adjust" if G::ACCEPTS_ADJUST => Some(parse_adjust(rest)),
        "binding" if tag == crate::engine::ruleset::TAG => {
            Some(super::bindings::parse_ruling(rest).map(Command::Binding))
        }
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
    let form = "as PLAYER because REASON: COMMAND";
    let (who, command) = rest.split_once(':').ok_or_else(|| usage(form))?;
    let (name, reason) = split_reason(who, form)?;
    if name.is_empty() {
        return Err(usage(form));
    }
    let command = command.trim();
    Ok(Command::OnBehalf {
        name: name.to_owned(),
        reason,
        line: command.to_owned(),
        inner: G::parse(command, tag),
    })
}

const VOID_FORM: &str = "void <MESSAGE-ID> because REASON";

/// `void <ID> because REASON`; `None` when what is voided is no Message-ID (one
/// word), `Some(Err)` when a Message-ID comes without a reason, or with one too long.
fn parse_void<C>(rest: &str) -> Option<Result<Command<C>, NotUnderstood>> {
    let message_id = |id: &str| {
        let id = id
            .trim()
            .trim_start_matches('<')
            .trim_end_matches('>')
            .trim()
            .to_owned();
        (!id.is_empty() && !id.contains(char::is_whitespace)).then_some(id)
    };
    match split_reason(rest, VOID_FORM) {
        Ok((id, reason)) => Some(Ok(Command::Void {
            message_id: message_id(id)?,
            reason,
        })),
        // Only the first word can be the Message-ID of a void without a reason.
        Err(refused) => {
            let first = rest.split_whitespace().next()?;
            message_id(first)?;
            Some(Err(refused))
        }
    }
}

/// `adjust NAME AMOUNT CURRENCY because REASON`: the reason is required, because
/// an override is announced with it.
fn parse_adjust<C>(rest: &str) -> Result<Command<C>, NotUnderstood> {
    let form = "adjust PLAYER AMOUNT CURRENCY because REASON";
    let usage = || usage(form);
    let (what, reason) = split_reason(rest, form)?;
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
        reason,
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
        Command::Binding(ruling) => {
            super::bindings::rule(scratch, line, ruling, ctx, params, outcome)
        }
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
                    "officer": ctx.signature(), "message_id": message_id, "reason": reason,
                    "at": human_time(ctx.now),
                    // Filled by the shell when this void undoes another (`judge_void`).
                    "restored": [],
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

/// Judges a void on the event log, which the engine's state cannot show (the
/// shell calls it with the log as recorded, this message's earlier events
/// included). `Ok` lists the Message-IDs whose void this one undoes (a void of a
/// void restores the message it had voided); `Err` is the refusal.
///
/// Refused: a message with no event on record, one already void, and one that
/// would take back what the Officer in charge of Random Things published (a draw,
/// a seed revealed, or a period in which something was drawn): the list saw the
/// commitment, the draws and the seeds, and a void that erased them would leave
/// draws no one can check and, after a voided draw, a next draw that repeats it.
pub fn judge_void(
    records: &[(Timestamp, &str, &Event)],
    message_id: &str,
) -> Result<Vec<String>, Sentence> {
    let target = format!("mail:<{message_id}>");
    let Some(first) = records.iter().position(|(_, cause, _)| *cause == target) else {
        return Err(Sentence::new("void_nothing").arg("message_id", message_id));
    };
    if super::voided_causes(records).contains(&target) {
        return Err(Sentence::new("void_already").arg("message_id", message_id));
    }
    let refuse_random = |what: &str, label: &str| {
        Err(Sentence::new("void_random")
            .arg("message_id", message_id)
            .arg("what", what)
            .arg("label", label))
    };
    let mut restored = Vec::new();
    for (position, (_, cause, event)) in records.iter().enumerate().skip(first) {
        if *cause != target {
            continue;
        }
        match event {
            Event::Random(random::Event::Drew { label, .. }) => {
                return refuse_random("drew", label);
            }
            Event::Random(random::Event::PeriodRevealed { label, .. }) => {
                return refuse_random("revealed", label);
            }
            Event::Random(random::Event::PeriodStarted { label, .. }) => {
                // The period's draws are those recorded after its start, until
                // the next period starts.
                let drawn = records[position + 1..]
                    .iter()
                    .map(|(_, _, event)| event)
                    .take_while(|event| {
                        !matches!(event, Event::Random(random::Event::PeriodStarted { .. }))
                    })
                    .any(|event| matches!(event, Event::Random(random::Event::Drew { .. })));
                if drawn {
                    return refuse_random("started", label);
                }
            }
            Event::Override(Override::Voided { message_id, .. }) => {
                restored.push(message_id.clone());
            }
            _ => {}
        }
    }
    Ok(restored)
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
                "officer": ctx.signature(), "name": player_name,
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
    // "the Treasury" is always the account: no player may be so called.
    let (holder, holder_name) = if accounts::names_the_treasury(name) {
        (Holder::Treasury, "the Treasury".to_owned())
    } else {
        let player = view
            .players
            .by_name(name)
            .ok_or_else(|| Refusal(Sentence::new("no_such_player").arg("name", name)))?;
        (Holder::Player(player.id), player.name.clone())
    };
    let amount_value = accounts::parse_amount(amount)
        .ok_or_else(|| Refusal(Sentence::new("accounts_bad_amount").arg("amount", amount)))?;
    let why = format!("Override by {}: {reason}", ctx.sender);
    let zero = BigRational::from_integer(0.into());
    let event = if amount_value >= zero {
        view.accounts
            .transfer(Holder::Nowhere, holder, currency, &amount_value, &why)?
    } else if params.is_moderator(&ctx.sender) {
        // A moderator may set any balance: the money is owed even beyond what the
        // player holds, and the balance may go below zero (said in the answer and
        // the announcement).
        view.accounts.charge(
            holder,
            Holder::Nowhere,
            currency,
            &-amount_value.clone(),
            &why,
        )?
    } else {
        view.accounts.transfer(
            holder,
            Holder::Nowhere,
            currency,
            &-amount_value.clone(),
            &why,
        )?
    };
    let balance = view.accounts.balance(holder, &configured) + &amount_value;
    let negative = balance < zero;
    let balance = accounts::amount_human(&balance);
    let mail = Mail::new(
        Audience::List,
        players::TAG,
        "override_adjust",
        serde_json::json!({
            "officer": ctx.signature(), "name": holder_name, "amount": amount,
            "currency": configured, "reason": reason, "at": human_time(ctx.now),
            "balance": balance, "negative": negative,
        }),
    );
    let sentence = Sentence::new("adjusted")
        .arg("name", &holder_name)
        .arg("amount", amount)
        .arg("currency", &configured)
        .arg("balance", balance)
        .arg("negative", negative);
    Ok((event, mail, sentence))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::players::Event as PlayerEvent;

    fn at(minute: i64) -> Timestamp {
        Timestamp::from_second(1_800_000_000 + minute * 60).unwrap()
    }

    fn void(message_id: &str) -> Event {
        Event::Override(Override::Voided {
            message_id: message_id.to_owned(),
            officer: Address::new("mod@x.org"),
            reason: "a test".to_owned(),
        })
    }

    fn joined(id: u32, name: &str) -> Event {
        Event::Players(PlayerEvent::Joined {
            id,
            name: name.to_owned(),
            address: Address::new(&format!("{}@x.org", name.to_lowercase())),
        })
    }

    fn started(label: &str) -> Event {
        Event::Random(random::Event::PeriodStarted {
            label: label.to_owned(),
            commitment: "c".to_owned(),
            seed: "s".to_owned(),
        })
    }

    fn drew(label: &str, index: u32) -> Event {
        Event::Random(random::Event::Drew {
            label: label.to_owned(),
            index,
            purpose: "a die".to_owned(),
            kind: random::DrawKind::Below { n: 6 },
            result: vec![3],
            at: at(0),
        })
    }

    #[test]
    fn adjust_reads_the_treasury_as_a_name_and_every_override_wants_its_reason() {
        match parse_adjust::<()>("the Treasury -6 1/403 money Because a fine") {
            Ok(Command::Adjust {
                name,
                amount,
                currency,
                reason,
            }) => assert_eq!(
                (
                    name.as_str(),
                    amount.as_str(),
                    currency.as_str(),
                    reason.as_str()
                ),
                ("the Treasury", "-6 1/403", "money", "a fine")
            ),
            other => panic!("{other:?}"),
        }
        let code = |result: Result<Command<()>, NotUnderstood>| result.unwrap_err().0.code;
        assert_eq!(code(parse_adjust("Bob 5 A$")), "reason_required");
        assert_eq!(code(parse_adjust("Bob 5 A$ because ")), "reason_required");
        assert_eq!(code(parse_adjust("Bob because lots")), "usage");
        assert!(matches!(
            parse_void::<()>("<a@x.org>"),
            Some(Err(NotUnderstood(sentence))) if sentence.code == "reason_required"
        ));
        assert!(
            parse_void::<()>("Alice move because a slip").is_none(),
            "a game's own void"
        );
        assert!(matches!(
            parse_void::<()>("<a@x.org> BECAUSE a slip"),
            Some(Ok(Command::Void { message_id, reason })) if message_id == "a@x.org" && reason == "a slip"
        ));
    }

    #[test]
    fn a_void_of_a_void_restores_and_a_void_of_that_voids_again() {
        let (a, v1, v2, v3) = (joined(1, "Alice"), void("a"), void("v1"), void("v2"));
        let mut records = vec![(at(0), "mail:<a>", &a), (at(1), "mail:<v1>", &v1)];
        let voided = crate::games::voided_causes(&records);
        assert!(voided.contains("mail:<a>"));
        assert_eq!(judge_void(&records, "v1"), Ok(vec!["a".to_owned()]));
        records.push((at(2), "mail:<v2>", &v2));
        let voided = crate::games::voided_causes(&records);
        assert!(!voided.contains("mail:<a>") && voided.contains("mail:<v1>"));
        let world = crate::games::fold(World::default(), &records);
        assert_eq!(world.players.players.len(), 1, "Alice is restored");
        assert_eq!(world.voided, ["v1"]);
        records.push((at(3), "mail:<v3>", &v3));
        let world = crate::games::fold(World::default(), &records);
        assert!(world.players.players.is_empty(), "Alice is void again");
        assert_eq!(judge_void(&records, "v2").unwrap_err().code, "void_already");
        assert_eq!(judge_void(&records, "zz").unwrap_err().code, "void_nothing");
    }

    #[test]
    fn a_voided_join_keeps_its_id_out_of_use() {
        let (alice, v) = (joined(1, "Alice"), void("a"));
        let records = vec![(at(0), "mail:<a>", &alice), (at(1), "mail:<v>", &v)];
        let world = crate::games::fold(World::default(), &records);
        assert!(world.players.players.is_empty());
        assert_eq!(world.players.retired_ids, [1]);
        assert_eq!(world.players.next_id(), 2);
    }

    #[test]
    fn a_void_never_takes_back_a_published_draw_or_seed() {
        let (start, draw, start2) = (started("w1"), drew("w1", 0), started("w2"));
        let revealed = Event::Random(random::Event::PeriodRevealed {
            label: "w1".to_owned(),
            seed: "s".to_owned(),
        });
        let mut records = vec![(at(0), "mail:<start>", &start)];
        assert_eq!(
            judge_void(&records, "start"),
            Ok(Vec::new()),
            "nothing drawn yet"
        );
        records.push((at(1), "deadline:x", &draw));
        let refused = judge_void(&records, "start").unwrap_err();
        assert_eq!(
            (refused.code.as_str(), &refused.args["what"]),
            ("void_random", &"started".into())
        );
        records.push((at(2), "mail:<end>", &revealed));
        records.push((at(3), "mail:<start2>", &start2));
        assert_eq!(
            judge_void(&records, "end").unwrap_err().args["what"],
            "revealed"
        );
        assert_eq!(
            judge_void(&records, "start2"),
            Ok(Vec::new()),
            "its own period has no draw"
        );
    }
}
