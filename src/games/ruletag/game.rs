//! `[rule tag]` behind the game interface: its officer (the Rule Tag
//! Moderator), who sees the private actions, and what stays secret until the end
//! of the nweek. The rules themselves are in `rules` and `turn`, the state in the
//! parent module.

use crate::engine::accounts::Currency;
use crate::engine::calendar::Deadline;
use crate::engine::game::{Game, Officers, Running, Scores, Secrecy, Tick, Tx, View};

use crate::engine::{Address, Ctx, NotUnderstood, Refusal, Sentence, Timestamp};

use super::rules;
use super::{Command, Event, OFFICE, Params, TAG, nweek_of_deadline, nweek_of_draws_deadline};

/// Rule Tag, refereed by the bot as the Rule Tag Moderator's deputy.
pub struct RuleTag;

/// The Rule Tag Moderator: the (first) holder of the office, as bot.toml or a
/// moderator's `appoint` names em; else `[ruletag] moderator`; else the first
/// moderator. An office emptied by `dismiss` falls to the moderators, not back to
/// `[ruletag] moderator`, whom the office's holders already started from.
pub fn moderator(officers: &Officers, params: &Params) -> Option<Address> {
    let holder = match officers.holders(OFFICE) {
        Some(holders) => holders.first().cloned(),
        None => params.moderator.as_deref().map(Address::new),
    };
    holder.or_else(|| officers.moderators.first().cloned())
}

impl Game for RuleTag {
    const NAME: &'static str = "ruletag";
    const TAGS: &'static [&'static str] = &[TAG];
    const ACCEPTS_ADJUST: bool = true;
    type State = super::RuleTag;
    type Event = Event;
    type Command = Command;
    type Params = Params;

    /// Rule 1250: a Contest of the Games & Contests suite the bot referees.
    fn contests(_params: &Params) -> Vec<crate::engine::contests::Contest> {
        vec![crate::engine::contests::Contest::by_the_bot(
            "Rule Tag", 0, TAG,
        )]
    }

    fn parse(line: &str, _tag: &str) -> Result<Command, NotUnderstood> {
        super::parse(line)
    }

    fn begins(command: &Command) -> bool {
        matches!(command, Command::Start)
    }

    fn apply(tx: &mut Tx<'_, RuleTag>, command: Command, ctx: &Ctx) -> Result<Sentence, Refusal> {
        rules::apply(tx, command, ctx)
    }

    fn apply_event(state: &mut super::RuleTag, event: &Event, at: Timestamp) {
        state.apply_event(event, at);
    }

    fn on_deadline(tx: &mut Tx<'_, RuleTag>, deadline: &Deadline, tick: &Tick) {
        if let Some(nweek) = nweek_of_deadline(&deadline.id) {
            rules::end_of_nweek(tx, nweek, tick);
        } else if let Some(nweek) = nweek_of_draws_deadline(&deadline.id) {
            rules::commit_draws(tx, nweek, tick);
        }
    }

    /// The proposal's five rules, each number of them the game uses bound to
    /// its words (`bound`).
    fn bindings(params: &Params) -> crate::engine::ruleset::bindings::Declared {
        super::bound::declared(params)
    }

    /// Rule "Rule Tag" left effect: the game ends; a held turn resumes once
    /// nothing is held.
    fn bindings_changed(tx: &mut Tx<'_, RuleTag>, _rules: &[u32]) {
        rules::bindings_changed(tx);
    }

    /// An action sent privately stays secret until the end of its nweek; on the
    /// list it is public.
    fn secrecy(command: &Command, ctx: &Ctx) -> Secrecy {
        let action = matches!(command, Command::Act(_) | Command::Move { .. });
        if action && !ctx.public {
            Secrecy::Secret {
                shown_as: "a private rule tag action (published with the nweek's actions when the nweek ends)",
            }
        } else {
            Secrecy::Public
        }
    }

    fn is_officer(officers: &Officers, params: &Params, address: &Address) -> bool {
        !officers.is_withdrawn(address)
            && (officers.holds(OFFICE, address)
                || moderator(officers, params).as_ref() == Some(address))
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
    fn may_adjust(
        officers: &Officers,
        params: &Params,
        address: &Address,
        currency: &Currency,
    ) -> bool {
        Self::is_officer(officers, params, address) && currency.is_called(&params.currency)
    }

    /// Rule Tag's own standing is each player's element and RTL; the points
    /// it pays are the nomic's, in their own column.
    fn scores(state: &super::RuleTag, view: &View<'_>) -> Option<Scores> {
        state.started_at?;
        Some(Scores {
            name: "Rule Tag element and RTL".to_owned(),
            of: view
                .players
                .active()
                .map(|player| {
                    let standing = state.standing(player.id);
                    let rtl = standing
                        .rtl
                        .map_or_else(|| "no RTL".to_owned(), |rtl| format!("RTL {rtl}"));
                    (player.id, format!("{} {rtl}", standing.element.as_str()))
                })
                .collect(),
        })
    }

    /// The nweek whose actions are being collected; private actions stay
    /// secret until it ends.
    fn running(state: &super::RuleTag, view: &View<'_>) -> Vec<Running> {
        if state.started_at.is_none() || state.ended.is_some() {
            return Vec::new();
        }
        let held = if state.held.is_some() {
            ", its turn held for a moderator's ruling"
        } else {
            ""
        };
        vec![Running {
            tag: TAG.to_owned(),
            what: format!("nweek {}{held}", state.nweek),
            players: view.players.active().map(|p| p.name.clone()).collect(),
            turn: None,
            deadline: None,
        }]
    }

    fn public_view(state: &super::RuleTag, view: &View<'_>, params: &Params) -> serde_json::Value {
        state
            .public_view()
            .view(view.players, view.accounts, params)
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
        super::report::state_text(shown).ok()
    }
}
