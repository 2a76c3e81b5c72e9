//! The rules change, and the games follow: after every step that changed the
//! ruleset registry, each game's bound rules are decided again
//! (`engine::ruleset::bindings::decide`), every decision that changed is
//! recorded as a registry event in the same step, the list is told what the bot
//! now does (what stopped, the new numbers, what waits for a ruling), the
//! moderators are asked privately about what is held, and each game whose
//! rules changed reacts (`Game::bindings_changed`). A moderator's ruling
//! (`[ruleset] binding ...`) goes through the same path.

use crate::engine::game::{Effect, Game, SharedEvent, Tx};
use crate::engine::ruleset::bindings::{self, Binding, Declared, Status};
use crate::engine::ruleset::{self, Event as RulesetEvent};
use crate::engine::{Audience, Mail, Timestamp};
use crate::engine::{Ctx, LineReport, NotUnderstood, Sentence, human_time, split_reason};

use super::{Outcome, Params, Registered, Visit, World, each_game};

/// Did these effects change the rules themselves (not only their bindings)?
pub(super) fn touched<E>(effects: &[Effect<E>]) -> bool {
    effects.iter().any(|e| {
        matches!(e, Effect::Shared(SharedEvent::Ruleset(event)) if !matches!(event, RulesetEvent::Bound { .. }))
    })
}

/// Why a game may not begin while `[bot] unrecorded_rules = "required"`: the
/// registry never held its rules, or holds under one of its numbers a rule of
/// a name its text does not give (Gnomic's 103 where Ghost's 103 is bound), the
/// game's own rules not yet imported. Each refusal names the command that
/// imports them.
pub(super) fn not_ready(ruleset: &ruleset::Ruleset, declared: &Declared) -> Option<Sentence> {
    let missing = bindings::never_held(ruleset, declared);
    if !missing.is_empty() {
        return Some(
            Sentence::new("ruleset_not_imported")
                .arg("game", declared.game)
                .arg("numbers", &missing)
                .arg("text", declared.text),
        );
    }
    let shipped = crate::rule_texts::find(declared.text)?;
    let names: Vec<String> = shipped
        .parse(1)
        .ok()?
        .into_iter()
        .map(|rule| rule.name)
        .collect();
    let (number, held) = declared.rules().into_iter().find_map(|number| {
        let held = ruleset.get(number)?;
        (!names.contains(&held.name)).then(|| (number, held.name.clone()))
    })?;
    Some(
        Sentence::new("ruleset_not_the_games")
            .arg("game", declared.game)
            .arg("number", number)
            .arg("name", held)
            .arg("text", declared.text)
            .arg("next", ruleset.next_free_number())
            .arg("one_rule", names.len() == 1),
    )
}

/// The binding a rule has when none is recorded: followed as the baseline.
fn unrecorded(game: &str, rule: u32) -> Binding {
    Binding {
        game: game.to_owned(),
        rule,
        status: Status::Follows,
        text: None,
        values: Vec::new(),
        acknowledged: Vec::new(),
    }
}

/// What a moderator or player reads of one changed binding.
fn entry(declared: &Declared, before: &Binding, after: &Binding) -> serde_json::Value {
    let parameters = declared.parameters_of(after.rule);
    let value_of = |binding: &Binding, name: &str, start: i64| {
        binding
            .values
            .iter()
            .find(|(n, _)| n == name)
            .map_or(start, |(_, v)| *v)
    };
    let values: Vec<serde_json::Value> = parameters
        .iter()
        .filter(|p| value_of(before, p.name, p.value) != value_of(after, p.name, p.value))
        .map(|p| {
            serde_json::json!({
                "name": p.name,
                "words": p.words,
                "was": value_of(before, p.name, p.value),
                "now": value_of(after, p.name, p.value),
            })
        })
        .collect();
    let (what, why) = match &after.status {
        Status::Follows if before.status == Status::Follows => ("numbers", None),
        Status::Follows => ("follows", None),
        Status::Stopped { why } => ("stopped", Some(why.clone())),
        Status::Held { difference } => ("held", Some(difference.clone())),
        Status::Off { reason } => ("off", Some(reason.clone())),
    };
    serde_json::json!({
        "game": declared.game,
        "rule": after.rule,
        "mechanics": declared.mechanics_of(after.rule),
        "what": what,
        "why": why,
        "values": values,
    })
}

/// Decides every game's bound rules again against `scratch`'s registry and
/// records what changed (see the module's doc).
pub(super) fn react(scratch: &mut World, at: Timestamp, params: &Params, outcome: &mut Outcome) {
    struct Decide<'a> {
        scratch: &'a mut World,
        at: Timestamp,
        params: &'a Params,
        outcome: &'a mut Outcome,
        entries: Vec<serde_json::Value>,
        changed: Vec<(&'static str, Vec<u32>)>,
    }
    impl Visit for Decide<'_> {
        fn visit<G: Registered>(&mut self) {
            let declared = G::bindings_in(G::params(self.params), &self.scratch.ruleset);
            let mut rules = Vec::new();
            for rule in declared.rules() {
                let previous = self.scratch.ruleset.binding(G::NAME, rule).cloned();
                let after = bindings::decide(
                    &self.scratch.ruleset,
                    &declared,
                    rule,
                    previous.as_ref(),
                    self.params.setting.baseline_when_unrecorded,
                    &self.params.setting.bound,
                );
                let before = previous.unwrap_or_else(|| unrecorded(G::NAME, rule));
                if before.status == after.status && before.values == after.values {
                    continue;
                }
                self.entries.push(entry(&declared, &before, &after));
                record(
                    self.scratch,
                    self.outcome,
                    self.at,
                    RulesetEvent::Bound {
                        binding: after,
                        by: None,
                        reason: None,
                    },
                );
                rules.push(rule);
            }
            if !rules.is_empty() {
                self.changed.push((G::NAME, rules));
            }
        }
    }
    let mut decide = Decide {
        scratch,
        at,
        params,
        outcome,
        entries: Vec::new(),
        changed: Vec::new(),
    };
    each_game(&mut decide);
    let Decide {
        scratch,
        outcome,
        entries,
        changed,
        ..
    } = decide;
    announce(params, outcome, &entries, None);
    tell_games(scratch, at, params, outcome, &changed);
}

/// The list is told what changed; the moderators are asked about what is held.
pub(super) fn announce(
    params: &Params,
    outcome: &mut Outcome,
    entries: &[serde_json::Value],
    ruling: Option<serde_json::Value>,
) {
    if entries.is_empty() {
        return;
    }
    outcome.mail.push(Mail::new(
        Audience::List,
        ruleset::TAG,
        "bindings_changed",
        serde_json::json!({ "changes": entries, "ruling": ruling }),
    ));
    let held: Vec<&serde_json::Value> = entries.iter().filter(|e| e["what"] == "held").collect();
    if held.is_empty() {
        return;
    }
    for moderator in &params.setting.officers.moderators {
        outcome.mail.push(Mail::new(
            Audience::Address(moderator.clone()),
            ruleset::TAG,
            "bindings_held",
            serde_json::json!({ "held": held }),
        ));
    }
}

fn record(scratch: &mut World, outcome: &mut Outcome, at: Timestamp, event: RulesetEvent) {
    let event = SharedEvent::Ruleset(event);
    scratch.shared.apply_event(&event, at);
    outcome.events.push(super::shared_event(event));
}

/// Each game whose rules' bindings changed reacts in its own transaction.
pub(super) fn tell_games(
    scratch: &mut World,
    at: Timestamp,
    params: &Params,
    outcome: &mut Outcome,
    changed: &[(&'static str, Vec<u32>)],
) {
    struct React<'a> {
        scratch: &'a mut World,
        at: Timestamp,
        params: &'a Params,
        outcome: &'a mut Outcome,
        changed: &'a [(&'static str, Vec<u32>)],
    }
    impl Visit for React<'_> {
        fn visit<G: Registered>(&mut self) {
            let Some((_, rules)) = self.changed.iter().find(|(game, _)| *game == G::NAME) else {
                return;
            };
            let mut tx = Tx::<G>::new(
                self.scratch.shared.clone(),
                G::take_state(self.scratch),
                &self.params.setting,
                G::params(self.params),
                self.at,
            );
            <G as Game>::bindings_changed(&mut tx, rules);
            let (shared, state, effects) = tx.finish();
            if effects.is_empty() {
                return;
            }
            self.scratch.shared = shared;
            G::put_state(self.scratch, state);
            self.outcome.take::<G>(effects);
        }
    }
    if changed.is_empty() {
        return;
    }
    each_game(&mut React {
        scratch,
        at,
        params,
        outcome,
        changed,
    });
}

/// A moderator's ruling on a held (or any) bound rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ruling {
    pub rule: u32,
    pub what: Ruled,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ruled {
    /// Apply it as before the change (its numbers then).
    Keep,
    /// Apply it with this number.
    Set { name: String, value: i64 },
    /// Stop applying it.
    Off,
}

/// `binding RULE keep|off|set NAME VALUE because REASON`.
pub fn parse_ruling(rest: &str) -> Result<Ruling, NotUnderstood> {
    let usage = || {
        NotUnderstood(Sentence::new("usage").arg(
            "usage",
            "binding RULE keep|off|set NAME VALUE because REASON",
        ))
    };
    let (what, reason) = split_reason(rest, "binding RULE keep|off|set NAME VALUE because REASON")?;
    let words: Vec<&str> = what.split_whitespace().collect();
    let rule = words
        .first()
        .and_then(|w| w.trim_start_matches('#').parse().ok())
        .ok_or_else(usage)?;
    let what = match words[1..] {
        [word] if word.eq_ignore_ascii_case("keep") => Ruled::Keep,
        [word] if word.eq_ignore_ascii_case("off") => Ruled::Off,
        [word, name, value] if word.eq_ignore_ascii_case("set") => Ruled::Set {
            name: name.to_owned(),
            value: value.parse().map_err(|_| usage())?,
        },
        _ => return Err(usage()),
    };
    Ok(Ruling { rule, what, reason })
}

/// Carries out a moderator's ruling: every game that binds the rule follows it
/// from now on, the list is told with the reason, and the games go on.
pub(super) fn rule(
    scratch: &mut World,
    line: String,
    ruling: Ruling,
    ctx: &Ctx,
    params: &Params,
    outcome: &mut Outcome,
) -> LineReport {
    let refused = |line: String, sentence: Sentence| LineReport {
        line,
        status: crate::engine::Status::Refused,
        sentence,
    };
    if !params.is_moderator(&ctx.sender) {
        return refused(line, Sentence::new("moderators_only"));
    }
    let games: Vec<Declared> = params
        .setting
        .bound
        .iter()
        .filter(|d| d.rules().contains(&ruling.rule))
        .cloned()
        .collect();
    if games.is_empty() {
        return refused(
            line,
            Sentence::new("binding_not_bound").arg("rule", ruling.rule),
        );
    }
    let mut entries = Vec::new();
    let mut changed = Vec::new();
    for declared in &games {
        let previous = scratch.ruleset.binding(declared.game, ruling.rule).cloned();
        let before = bindings::decide(
            &scratch.ruleset,
            declared,
            ruling.rule,
            previous.as_ref(),
            params.setting.baseline_when_unrecorded,
            &params.setting.bound,
        );
        let mut after = before.clone();
        // The ruling covers the enactments that use the rule's terms so far.
        after.acknowledged = bindings::touching(&scratch.ruleset, declared, ruling.rule)
            .into_iter()
            .map(|(number, _)| number)
            .collect();
        // A ruling is on the rule's text as it stands (under its new number,
        // if an amendment gave it one): a later change is decided again.
        let number = scratch.ruleset.current_number(ruling.rule);
        after.text = scratch.ruleset.get(number).map(|r| r.text.clone());
        match &ruling.what {
            Ruled::Keep => after.status = Status::Follows,
            Ruled::Off => {
                after.status = Status::Off {
                    reason: ruling.reason.clone(),
                }
            }
            Ruled::Set { name, value } => {
                if !declared
                    .parameters_of(ruling.rule)
                    .iter()
                    .any(|p| p.name == name)
                {
                    let names: Vec<&str> = declared
                        .parameters_of(ruling.rule)
                        .iter()
                        .map(|p| p.name)
                        .collect();
                    return refused(
                        line,
                        Sentence::new("binding_no_parameter")
                            .arg("rule", ruling.rule)
                            .arg("name", name)
                            .arg("names", names),
                    );
                }
                after.status = Status::Follows;
                after.values.retain(|(n, _)| n != name);
                after.values.push((name.clone(), *value));
            }
        }
        entries.push(entry(declared, &before, &after));
        record(
            scratch,
            outcome,
            ctx.now,
            RulesetEvent::Bound {
                binding: after,
                by: Some(ctx.sender.as_str().to_owned()),
                reason: Some(ruling.reason.clone()),
            },
        );
        changed.push((declared.game, vec![ruling.rule]));
    }
    announce(
        params,
        outcome,
        &entries,
        Some(serde_json::json!({
            "by": ctx.signature(),
            "reason": ruling.reason,
            "at": human_time(ctx.now),
        })),
    );
    tell_games(scratch, ctx.now, params, outcome, &changed);
    LineReport {
        line,
        status: crate::engine::Status::Done,
        sentence: Sentence::new("binding_ruled").arg("rule", ruling.rule),
    }
}
