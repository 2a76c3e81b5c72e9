//! `[rule tag]` behind the game interface: its officer (the Rule Tag
//! Moderator), who sees the private actions, and what stays secret until the end
//! of the nweek. The rules themselves are in the parent module.

use crate::engine::accounts::Currency;
use crate::engine::calendar::Deadline;
use crate::engine::game::{Game, Officers, Secrecy, SharedEvent, Tick, Tx, View};
use std::fmt::Write as _;

use crate::engine::{Address, Ctx, NotUnderstood, Refusal, Sentence, Timestamp};

use super::{Change, Command, Env, Event, OFFICE, Params, TAG, nweek_of_deadline};

/// Rule Tag, refereed by the bot as the Rule Tag Moderator's deputy.
pub struct RuleTag;

/// The Rule Tag Moderator: `[ruletag] moderator`, else the holder of the office,
/// else the first moderator.
pub fn moderator(officers: &Officers, params: &Params) -> Option<Address> {
    if let Some(address) = &params.moderator {
        return Some(Address::new(address));
    }
    officers
        .holders(OFFICE)
        .and_then(|holders| holders.first())
        .or(officers.moderators.first())
        .cloned()
}

fn env<'a>(
    view: &View<'a>,
    params: &'a Params,
    moderator: Option<&'a Address>,
    is_officer: bool,
) -> Env<'a> {
    Env {
        players: view.players,
        ruleset: view.ruleset,
        accounts: view.accounts,
        random: view.random,
        calendar: view.calendar,
        params,
        moderator,
        is_officer,
    }
}

fn record(tx: &mut Tx<'_, RuleTag>, changes: Vec<Change>) {
    for change in changes {
        match change {
            Change::RuleTag(event) => tx.record(event),
            Change::Accounts(event) => tx.record_shared(SharedEvent::Accounts(event)),
            Change::Random(event) => tx.record_shared(SharedEvent::Random(event)),
            Change::Schedule(event) => tx.record_shared(SharedEvent::Schedule(event)),
            Change::Ruleset(event) => tx.record_shared(SharedEvent::Ruleset(event)),
        }
    }
}

impl Game for RuleTag {
    const NAME: &'static str = "ruletag";
    const TAGS: &'static [&'static str] = &[TAG];
    const ACCEPTS_ADJUST: bool = true;
    type State = super::RuleTag;
    type Event = Event;
    type Command = Command;
    type Params = Params;

    fn parse(line: &str, _tag: &str) -> Result<Command, NotUnderstood> {
        super::parse(line)
    }

    fn apply(tx: &mut Tx<'_, RuleTag>, command: Command, ctx: &Ctx) -> Result<Sentence, Refusal> {
        let view = tx.view();
        let moderator = moderator(view.officers, tx.params());
        let is_officer = Self::is_officer(view.officers, tx.params(), &ctx.sender);
        let done = tx.state().apply(
            command,
            ctx,
            &env(&view, tx.params(), moderator.as_ref(), is_officer),
        )?;
        record(tx, done.events);
        tx.mail_all(done.mail);
        Ok(done.sentence)
    }

    fn apply_event(state: &mut super::RuleTag, event: &Event, at: Timestamp) {
        state.apply_event(event, at);
    }

    fn on_deadline(tx: &mut Tx<'_, RuleTag>, deadline: &Deadline, tick: &Tick) {
        let Some(nweek) = nweek_of_deadline(&deadline.id) else {
            return;
        };
        let view = tx.view();
        let moderator = moderator(view.officers, tx.params());
        let (changes, mail) = tx.state().end_of_nweek(
            nweek,
            tx.at(),
            tick.caught_up_at,
            tick.entropy,
            &env(&view, tx.params(), moderator.as_ref(), false),
        );
        record(tx, changes);
        tx.mail_all(mail);
    }

    /// An action sent privately stays secret until the end of its nweek; on the
    /// list it is public.
    fn secrecy(command: &Command, ctx: &Ctx) -> Secrecy {
        let action = matches!(command, Command::Act(_) | Command::Move { .. });
        if action && !ctx.public {
            Secrecy::Secret {
                until: "the end of the nweek",
            }
        } else {
            Secrecy::Public
        }
    }

    fn is_officer(officers: &Officers, params: &Params, address: &Address) -> bool {
        officers.holds(OFFICE, address) || moderator(officers, params).as_ref() == Some(address)
    }

    /// The Rule Tag Moderator sees the private actions.
    fn private_copies(officers: &Officers, params: &Params) -> Vec<Address> {
        moderator(officers, params).into_iter().collect()
    }

    /// The Rule Tag Moderator may come from `[ruletag] moderator` or be the first
    /// moderator: name em even when no office lists em.
    fn offices(officers: &Officers, params: &Params) -> Vec<(String, Vec<Address>)> {
        match (officers.holders(OFFICE), moderator(officers, params)) {
            (None, Some(moderator)) => vec![(OFFICE.to_owned(), vec![moderator])],
            _ => Vec::new(),
        }
    }

    /// The Rule Tag Moderator is "the arbiter as to who loses points and gains
    /// them as a result of the game of rule tag": ey adjusts that currency.
    fn may_adjust(officers: &Officers, params: &Params, address: &Address, currency: &Currency) -> bool {
        Self::is_officer(officers, params, address) && currency.is_called(&params.currency)
    }

    fn public_view(state: &super::RuleTag, view: &View<'_>, params: &Params) -> serde_json::Value {
        state.public_view().view(view.players, view.accounts, params)
    }

    fn private_view(state: &super::RuleTag, view: &View<'_>, params: &Params) -> serde_json::Value {
        state.view(view.players, view.accounts, params)
    }

    fn sample(script: &mut dyn crate::engine::game::Script) {
        super::sample::sample(script);
    }

    fn state_text(
        shown: &serde_json::Value,
        _state: &super::RuleTag,
        _view: &View<'_>,
        _now: Timestamp,
    ) -> Option<String> {
        state_text(shown).ok()
    }
}

/// `state ruletag` for a person: the view's JSON as lines.
fn state_text(view: &serde_json::Value) -> Result<String, std::fmt::Error> {
    let text = |v: &serde_json::Value| match v {
        serde_json::Value::Null => "null".to_owned(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let mut out = String::new();
    if view["running"] != true {
        writeln!(out, "Rule tag has not started.")?;
        return Ok(out);
    }
    writeln!(out, "Rule tag, nweek {}:", view["nweek"])?;
    for p in view["players"].as_array().into_iter().flatten() {
        writeln!(
            out,
            "  {:<20} {:<6} RTL {:<6} {} points",
            text(&p["name"]),
            text(&p["element"]),
            text(&p["rtl"]),
            text(&p["points"])
        )?;
    }
    for o in view["objects"].as_array().into_iter().flatten() {
        let holder = match &o["holder"] {
            serde_json::Value::Null => String::new(),
            holder => format!(", held by {}", text(holder)),
        };
        writeln!(out, "  {} on {}{holder}", text(&o["name"]), text(&o["rtl"]))?;
    }
    let actions = view["actions"].as_array().cloned().unwrap_or_default();
    writeln!(out, "Counted actions this nweek: {}", actions.len())?;
    for a in &actions {
        let what = match a["type"].as_str() {
            Some("element") => format!("element {}", text(&a["element"])),
            Some("move") if a["term"].is_null() => {
                format!("move from {} to {}", text(&a["from"]), text(&a["to"]))
            }
            Some("move") => format!(
                "move from {} to {} via \"{}\"",
                text(&a["from"]),
                text(&a["to"]),
                text(&a["term"])
            ),
            Some("grab") => format!(
                "grab {} for {} points",
                text(&a["object"]),
                text(&a["points"])
            ),
            Some("drop") => format!("drop {}", text(&a["object"])),
            _ => a.to_string(),
        };
        let private = if a["public"] == true {
            ""
        } else {
            " (private)"
        };
        writeln!(out, "  {}: {what}{private}", text(&a["player"]))?;
    }
    Ok(out)
}

