//! What the game shows: the actions and standings as the notifications and
//! `state ruletag` list them, the override announcement and the two notifications.
//! Mail carries values only: its wording is in the templates. The one text made
//! here is `state_text`, `state ruletag` in words for the operator's terminal.

use std::fmt::Write as _;

use serde_json::json;

use super::rules::{Times, end_deadlines, times_after};
use super::turn::Turn;
use super::{Action, Event, Params, RuleTag, Standing, TAG, rtl_text};
use crate::engine::accounts::{self, Accounts, Holder};
use crate::engine::players::{PlayerId, Registry};
use crate::engine::{Audience, Ctx, Mail, human_time};

impl Action {
    /// The action as the notifications list it.
    pub(super) fn describe(&self) -> serde_json::Value {
        match self {
            Action::Element { element } => json!({"type": "element", "element": element.as_str()}),
            Action::Move { from, to, term } => json!({
                "type": "move", "from": rtl_text(*from), "to": rtl_text(*to), "term": term,
            }),
            Action::Grab { object, points } => {
                json!({"type": "grab", "object": object, "points": points})
            }
            Action::Drop { object } => json!({"type": "drop", "object": object}),
        }
    }
}

impl RuleTag {
    /// What anyone may see: the private actions of the running nweek are left out.
    pub fn public_view(&self) -> RuleTag {
        let mut view = self.clone();
        view.actions.retain(|d| d.public);
        view
    }

    /// `state ruletag`: every player's element, RTL and points, every RTO's RTL and
    /// holder, and this nweek's counted actions.
    pub fn view(
        &self,
        players: &Registry,
        accounts: &Accounts,
        numbers: &Params,
    ) -> serde_json::Value {
        let name = |id: PlayerId| players.by_id(id).map(|p| p.name.clone());
        let standings: Vec<serde_json::Value> = players
            .active()
            .map(|p| {
                let standing = self.standing(p.id);
                json!({
                    "name": p.name,
                    "element": standing.element.as_str(),
                    "rtl": standing.rtl,
                    "points": accounts::amount_text(&accounts.balance(Holder::Player(p.id), &numbers.currency)),
                })
            })
            .collect();
        let objects: Vec<serde_json::Value> = self
            .objects
            .iter()
            .map(|o| json!({"name": o.name, "rtl": o.rtl, "holder": o.holder.and_then(name)}))
            .collect();
        let actions: Vec<serde_json::Value> = self
            .actions
            .iter()
            .map(|d| {
                let mut value = d.action.describe();
                value["player"] = json!(name(d.player));
                value["public"] = json!(d.public);
                value["at"] = json!(human_time(d.at));
                value
            })
            .collect();
        let mut shown = json!({
            "running": self.is_running(),
            "nweek": self.nweek,
            "players": standings,
            "objects": objects,
            "actions": actions,
            "last_report": self.last_report,
        });
        // Only when it happened: the game's rule left effect, or a turn waits.
        if let Some(ended) = &self.ended {
            shown["ended"] = json!({
                "at": human_time(ended.at), "nweek": ended.nweek,
                "rule": ended.rule, "why": ended.why,
            });
        }
        if let Some(nweek) = self.held {
            shown["held"] = json!(nweek);
        }
        shown
    }

    pub(super) fn override_mail(&self, ctx: &Ctx, what: serde_json::Value, reason: &str) -> Mail {
        Mail::new(
            Audience::List,
            TAG,
            "ruletag_override",
            json!({
                "officer": ctx.signature(), "what": what, "reason": reason,
                "at": human_time(ctx.now), "nweek": self.nweek,
            }),
        )
    }
}

impl Turn<'_, '_> {
    /// What both notifications say: the nweek, when, the moderator and eir pay,
    /// and the next nweek's moments.
    fn common(&self, times: &Times, next: Option<&Times>) -> serde_json::Value {
        json!({
            "nweek": self.nweek,
            "at": human_time(self.posted),
            "processed": human_time(self.now),
            "moderator": self.moderator.map(|id| self.name(id)),
            "award": self.numbers.moderator_award,
            "censure": self.numbers.moderator_censure,
            "late": self.report.late,
            "notify_by": human_time(times.notify_by),
            "next_close": next.map(|t| human_time(t.actions_close)),
            "next_process": next.map(|t| human_time(t.process_at)),
        })
    }

    fn next_times(&self) -> Option<Times> {
        times_after(&self.tx.setting().calendar, self.numbers, self.nweek + 1)
    }

    /// Notification 1: the valid actions and the standings as the turn begins. It
    /// is mailed now, before anything drawn for the turn is announced.
    pub(super) fn notification_one(&mut self, times: &Times) {
        let mut actions = Vec::new();
        let mut rule_tag_actions = Vec::new();
        let mut element_changes = Vec::new();
        for id in self.playing.clone() {
            let list: Vec<serde_json::Value> = self
                .tx
                .state()
                .actions
                .iter()
                .filter(|d| d.player == id && d.nweek == self.nweek)
                .map(|d| {
                    let mut value = d.action.describe();
                    value["public"] = json!(d.public);
                    value
                })
                .collect();
            if list.is_empty() {
                continue;
            }
            // By rule "Elements" an element change is a game action of its own, not
            // a rule tag action: notification 1 (i) lists rule tag actions only.
            let (elements, others): (Vec<_>, Vec<_>) =
                list.iter().cloned().partition(|a| a["type"] == "element");
            for element in elements {
                element_changes.push(json!({
                    "name": self.name(id), "element": element["element"], "public": element["public"],
                }));
            }
            if !others.is_empty() {
                rule_tag_actions.push(json!({"name": self.name(id), "actions": others}));
            }
            actions.push(json!({"name": self.name(id), "actions": list}));
        }
        let standings = self.standings_now();
        self.report.actions = actions;
        self.report.standings = standings;
        let mut first = self.common(times, self.next_times().as_ref());
        first["actions"] = json!(rule_tag_actions);
        first["element_changes"] = json!(element_changes);
        first["standings"] = json!(self.report.standings);
        self.tx.mail(Mail::new(
            Audience::List,
            TAG,
            "ruletag_notification_actions",
            first,
        ));
    }

    /// Every player's RTL and element as they stand.
    fn standings_now(&self) -> Vec<serde_json::Value> {
        self.playing
            .iter()
            .map(|id| {
                let standing = self.standings.get(id).cloned().unwrap_or_default();
                json!({"name": self.name(*id), "rtl": rtl_text(standing.rtl), "element": standing.element.as_str()})
            })
            .collect()
    }

    /// Notification 2, the turn's event and the next nweek's end.
    pub(super) fn finish(mut self, times: &Times) {
        self.report.nweek = self.nweek;
        self.report.processed_at = Some(self.now);
        let name_of = |id: Option<PlayerId>| id.map(|id| self.name(id));
        self.report.objects = self
            .objects
            .iter()
            .map(|o| json!({"name": o.name, "rtl": rtl_text(o.rtl), "holder": name_of(o.holder)}))
            .collect();
        let currency = &self.numbers.currency;
        let balances = self.tx.view().accounts;
        self.report.score_changes = self
            .playing
            .iter()
            .map(|id| {
                json!({
                    "name": self.name(*id),
                    "change": self.deltas.get(id).copied().unwrap_or(0),
                    "points": accounts::amount_human(&balances.balance(Holder::Player(*id), currency)),
                })
            })
            .collect();
        let next = self.next_times();
        let mut second = self.common(times, next.as_ref());
        second["score_changes"] = json!(self.report.score_changes);
        second["objects"] = json!(self.report.objects);
        second["changes"] = json!(self.report.changes);
        second["standings"] = json!(self.standings_now());
        second["moderation"] = json!(self.moderation);
        // Every player of the game, zeros included (a player with no points is
        // still playing), highest first.
        let mut scores: Vec<(PlayerId, _)> = self
            .playing
            .iter()
            .map(|id| (*id, balances.balance(Holder::Player(*id), currency)))
            .collect();
        scores.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        second["scores"] = json!(
            scores
                .iter()
                .map(|(id, amount)| json!({"name": self.name(*id), "points": accounts::amount_human(amount)}))
                .collect::<Vec<_>>()
        );
        self.tx.mail(Mail::new(
            Audience::List,
            TAG,
            "ruletag_notification_results",
            second,
        ));
        self.tx.record(Event::NweekEnded {
            standings: self
                .standings
                .into_iter()
                .filter(|(_, s)| *s != Standing::default())
                .collect(),
            objects: self.objects,
            report: self.report,
        });
        if let Some(next) = next {
            for deadline in end_deadlines(self.nweek + 1, next.process_at) {
                self.tx.record_shared(deadline);
            }
        }
    }
}

/// `state ruletag` for a person: the view's JSON as lines.
pub(super) fn state_text(view: &serde_json::Value) -> Result<String, std::fmt::Error> {
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
