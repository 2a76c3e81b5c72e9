//! The closed list of games and the router: a message's tag picks the game, each
//! command line goes to it in the order written. Pure, like the engine: the shell
//! hands in a `Message` and its `Ctx` and gets back events, mail and the answer.

pub mod ghost;
pub mod ruletag;
pub mod vote;

use serde::{Deserialize, Serialize};

use crate::engine::accounts::{self, Accounts};
use crate::engine::calendar::{self, Calendar, Schedule};
use crate::engine::dictionary::Lexicon;
use crate::engine::players::{self, Registry};
use crate::engine::random::{self, RandomOfficer};
use crate::engine::ruleset::{self, Ruleset};
use crate::engine::sealed::{self, SealedBox};
use crate::engine::{
    Ctx, Done, LineReport, Mail, NotUnderstood, Refusal, Sentence, Status, Timestamp, split_verb,
};

/// Every tag the bot answers to, lower-case. A bracketed subject part that is not
/// one of these (a list prefix like `[game-list]`) is not a tag.
pub const KNOWN_TAGS: &[&str] = &[
    players::TAG,
    ruleset::TAG,
    vote::TAG,
    ruletag::TAG,
    ghost::TAG,
    "help",
];

/// The whole game state: what `state --json` shows and what replay rebuilds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct World {
    pub players: Registry,
    #[serde(default)]
    pub accounts: Accounts,
    #[serde(default)]
    pub ruleset: Ruleset,
    /// Every pending deadline a game set, with its reminders.
    #[serde(default)]
    pub schedule: Schedule,
    /// The Officer in charge of Random Things.
    #[serde(default)]
    pub random: RandomOfficer,
    /// Sealed actions, secret until their deadline.
    #[serde(default)]
    pub sealed: SealedBox,
    /// Secret ballots (`[vote]`).
    #[serde(default)]
    pub votes: vote::Votes,
    /// Rule Tag (`[rule tag]`).
    #[serde(default)]
    pub ruletag: ruletag::RuleTag,
    /// Ghost (`[ghost]`, `[ghost N]`): every instance.
    #[serde(default)]
    pub ghosts: ghost::Ghosts,
    /// Messages whose actions a moderator voided (their Message-IDs): `fold` leaves
    /// their events out.
    #[serde(default)]
    pub voided: Vec<String>,
}

/// Everything that ever changes the world; the event log holds these.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "game", rename_all = "snake_case")]
pub enum Event {
    Players(players::Event),
    Accounts(accounts::Event),
    Ruleset(ruleset::Event),
    Schedule(calendar::Event),
    Random(random::Event),
    Sealed(sealed::Event),
    Override(Override),
    Vote(vote::Event),
    RuleTag(ruletag::Event),
    Ghost(ghost::Event),
}

impl From<ghost::Change> for Event {
    fn from(change: ghost::Change) -> Event {
        match change {
            ghost::Change::Ghost(event) => Event::Ghost(event),
            ghost::Change::Schedule(event) => Event::Schedule(event),
            ghost::Change::Random(event) => Event::Random(event),
            ghost::Change::Accounts(event) => Event::Accounts(event),
        }
    }
}

impl From<ruletag::Change> for Event {
    fn from(change: ruletag::Change) -> Event {
        match change {
            ruletag::Change::RuleTag(event) => Event::RuleTag(event),
            ruletag::Change::Accounts(event) => Event::Accounts(event),
            ruletag::Change::Random(event) => Event::Random(event),
            ruletag::Change::Schedule(event) => Event::Schedule(event),
            ruletag::Change::Ruleset(event) => Event::Ruleset(event),
        }
    }
}

impl From<vote::Change> for Event {
    fn from(change: vote::Change) -> Event {
        match change {
            vote::Change::Vote(event) => Event::Vote(event),
            vote::Change::Sealed(event) => Event::Sealed(event),
            vote::Change::Schedule(event) => Event::Schedule(event),
        }
    }
}

/// A moderator's overrides that are events of their own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Override {
    /// The actions of the message with this Message-ID are void: the state is what it
    /// would be had that message never been applied; later actions stand as recorded.
    Voided {
        message_id: String,
        officer: crate::engine::Address,
        reason: String,
    },
}

/// The world an event log describes: every event applied in order, except those of
/// a message a moderator voided. The one way state is rebuilt (replay, and after a void).
pub fn fold<'a>(mut world: World, records: &[(Timestamp, &'a str, &'a Event)]) -> World {
    let voided: Vec<String> = records
        .iter()
        .filter_map(|(_, _, event)| match event {
            Event::Override(Override::Voided { message_id, .. }) => {
                Some(format!("mail:<{message_id}>"))
            }
            _ => None,
        })
        .collect();
    for (at, cause, event) in records {
        if !voided.iter().any(|v| v == cause) {
            world.apply_event(event, *at);
        }
    }
    world
}

/// The parameters of every game, from bot.toml.
#[derive(Debug, Clone, Default)]
pub struct Params {
    pub players: players::Params,
    /// The moderators' addresses (bot.toml `bot.moderators`).
    pub moderators: Vec<crate::engine::Address>,
    /// The officer(s) who keep the rules (bot.toml `officers.rules`).
    pub rules_officers: Vec<crate::engine::Address>,
    /// Days, cycles and the reminders' lead time (bot.toml `[calendar]`).
    pub calendar: Calendar,
    pub vote: vote::Params,
    pub ruletag: ruletag::Params,
    pub ghost: ghost::Params,
    /// The official dictionary of word games (Ghost), loaded by the shell.
    pub dictionary: Dictionary,
    /// Every named office (bot.toml `[officers.offices]`): office → holders.
    pub offices: std::collections::BTreeMap<String, Vec<crate::engine::Address>>,
}

impl Params {
    pub fn is_moderator(&self, address: &crate::engine::Address) -> bool {
        self.moderators.contains(address)
    }

    /// Does `address` hold the office (named as in the rules, any case)? A
    /// moderator holds every office: the moderators are the final arbiters.
    pub fn holds(&self, office: &str, address: &crate::engine::Address) -> bool {
        self.is_moderator(address)
            || self.offices.iter().any(|(name, holders)| {
                name.eq_ignore_ascii_case(office) && holders.contains(address)
            })
    }

    /// The Rule Tag Moderator: `[ruletag] moderator`, else the holder of the office,
    /// else the first moderator.
    pub fn ruletag_moderator(&self) -> Option<crate::engine::Address> {
        if let Some(address) = &self.ruletag.moderator {
            return Some(crate::engine::Address::new(address));
        }
        self.offices
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(ruletag::OFFICE))
            .and_then(|(_, holders)| holders.first())
            .or(self.moderators.first())
            .cloned()
    }

    /// Who gets a copy of the answer to a private action under `tag`, besides the
    /// officers of `officers.copy_private_to`: the Rule Tag Moderator sees the
    /// private rule tag actions.
    pub fn private_copies(&self, tag: &str) -> Vec<crate::engine::Address> {
        match tag {
            ruletag::TAG => self.ruletag_moderator().into_iter().collect(),
            _ => Vec::new(),
        }
    }

    /// The Rule Tag Moderator, by config or office, or a bot moderator.
    pub fn is_ruletag_officer(&self, address: &crate::engine::Address) -> bool {
        self.holds(ruletag::OFFICE, address) || self.ruletag_moderator().as_ref() == Some(address)
    }

    /// Who holds what, for the `officers` command.
    fn roster(&self) -> serde_json::Value {
        let mut offices: Vec<serde_json::Value> = vec![
            serde_json::json!({ "office": "Moderator", "holders": self.moderators }),
            serde_json::json!({ "office": "Keeper of the rules", "holders": self.rules_officers }),
        ];
        offices.extend(
            self.offices.iter().map(
                |(office, holders)| serde_json::json!({ "office": office, "holders": holders }),
            ),
        );
        // The Rule Tag Moderator may come from `[ruletag] moderator` or be the
        // first moderator: name em even when no office lists em.
        let listed = self
            .offices
            .keys()
            .any(|office| office.eq_ignore_ascii_case(ruletag::OFFICE));
        if !listed && let Some(moderator) = self.ruletag_moderator() {
            offices.push(serde_json::json!({ "office": ruletag::OFFICE, "holders": [moderator] }));
        }
        serde_json::Value::Array(offices)
    }
}

/// The official dictionary as the games see it: any `Lexicon`, shared.
#[derive(Debug, Clone)]
pub struct Dictionary(pub std::sync::Arc<dyn Lexicon>);

impl Default for Dictionary {
    fn default() -> Dictionary {
        Dictionary(std::sync::Arc::new(NoWords))
    }
}

/// The dictionary of a bot configured without one: no word is in it.
#[derive(Debug)]
struct NoWords;

impl Lexicon for NoWords {
    fn is_word(&self, _: &str) -> bool {
        false
    }
    fn is_inside_a_word(&self, _: &str) -> bool {
        false
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
    /// For a tick: which phase of the instant this is (part of the step's cause).
    pub phase: &'static str,
}

impl Outcome {
    fn phase(phase: &'static str, events: Vec<Event>, mail: Vec<Mail>) -> Outcome {
        Outcome {
            events,
            mail,
            phase,
            ..Outcome::default()
        }
    }
}

impl World {
    /// What anyone may see: a running random period's seed and the sealed actions
    /// not yet revealed are blanked (guarantee 4).
    pub fn public_view(&self) -> World {
        let mut view = self.clone();
        view.random = self.random.public_view();
        view.ruletag = self.ruletag.public_view();
        for batch in &mut view.sealed.batches {
            if batch.stage != sealed::Stage::Revealed {
                for action in &mut batch.actions {
                    action.action_text = "(sealed)".to_owned();
                    action.salt_hex = "(sealed)".to_owned();
                }
            }
        }
        view
    }

    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        match event {
            Event::Players(event) => self.players.apply_event(event, at),
            Event::Accounts(event) => self.accounts.apply_event(event, at),
            Event::Ruleset(event) => self.ruleset.apply_event(event, at),
            Event::Schedule(event) => self.schedule.apply_event(event, at),
            Event::Random(event) => self.random.apply_event(event, at),
            Event::Sealed(event) => self.sealed.apply_event(event),
            Event::Override(Override::Voided { message_id, .. }) => {
                self.voided.push(message_id.clone())
            }
            Event::Vote(event) => self.votes.apply_event(event, at),
            Event::RuleTag(event) => self.ruletag.apply_event(event, at),
            Event::Ghost(event) => self.ghosts.apply_event(event, at),
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
            Parsed::OnBehalf {
                name,
                reason,
                line: inner_line,
                inner,
            } => {
                return self.on_behalf(
                    line, &name, &reason, inner_line, *inner, ctx, params, outcome,
                );
            }
            Parsed::Void { message_id, reason } => {
                if !params.is_moderator(&ctx.sender) {
                    Err(Refusal(Sentence::new("moderators_only")))
                } else {
                    let values = serde_json::json!({
                        "officer": ctx.sender, "message_id": message_id, "reason": reason,
                        "at": crate::engine::human_time(ctx.now),
                    });
                    Ok((
                        vec![Event::Override(Override::Voided {
                            message_id: message_id.clone(),
                            officer: ctx.sender.clone(),
                            reason,
                        })],
                        vec![Mail::new(
                            crate::engine::Audience::List,
                            players::TAG,
                            "override_void",
                            values,
                        )],
                        Sentence::new("voided").arg("message_id", message_id),
                    ))
                }
            }
            Parsed::Officers => Ok((
                Vec::new(),
                Vec::new(),
                Sentence::new("officers").arg("offices", params.roster()),
            )),
            Parsed::Vote(command) => self
                .votes
                .apply(
                    command,
                    ctx,
                    &self.players,
                    &self.sealed,
                    &params.vote,
                    params.is_moderator(&ctx.sender),
                )
                .map(|done| {
                    (
                        done.events.into_iter().map(Event::from).collect(),
                        done.mail,
                        done.sentence,
                    )
                }),
            Parsed::Random(command) => self
                .random_command(command, ctx, params)
                .map(|done| wrap(done, Event::Random)),
            Parsed::Ghost { instance, command } => self
                .ghosts
                .apply(
                    instance,
                    command,
                    ctx,
                    self.ghost_services(params),
                    params.is_moderator(&ctx.sender),
                )
                .map(|done| {
                    (
                        done.events.into_iter().map(Event::from).collect(),
                        done.mail,
                        done.sentence,
                    )
                }),
            Parsed::RuleTag(command) => {
                let moderator = params.ruletag_moderator();
                let is_officer = params.is_moderator(&ctx.sender)
                    || params.holds(ruletag::OFFICE, &ctx.sender)
                    || moderator.as_ref() == Some(&ctx.sender);
                let env = self.ruletag_env(params, moderator.as_ref(), is_officer);
                self.ruletag.apply(command, ctx, &env).map(|done| {
                    (
                        done.events.into_iter().map(Event::from).collect(),
                        done.mail,
                        done.sentence,
                    )
                })
            }
            Parsed::Help => Err(Refusal(Sentence::new("help_sent"))),
        };
        match result {
            Ok((events, mail, sentence)) => {
                for event in &events {
                    self.apply_event(event, ctx.now);
                }
                // What a change of standing does to the games: a player who leaves
                // the nomic leaves every game; a referee on vacation leaves the post.
                let (more_events, more_mail) = self.standing_changed(&events, ctx.now, params);
                for event in &more_events {
                    self.apply_event(event, ctx.now);
                }
                outcome.events.extend(events);
                outcome.mail.extend(mail);
                outcome.events.extend(more_events);
                outcome.mail.extend(more_mail);
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

    /// What Ghost sees of the world.
    fn ghost_services<'a>(&'a self, params: &'a Params) -> ghost::Services<'a> {
        ghost::Services {
            players: &self.players,
            accounts: &self.accounts,
            random: &self.random,
            lexicon: params.dictionary.0.as_ref(),
            params: &params.ghost,
        }
    }

    /// The games' consequences of registry events already applied to `self`.
    fn standing_changed(
        &self,
        events: &[Event],
        now: Timestamp,
        params: &Params,
    ) -> (Vec<Event>, Vec<Mail>) {
        let mut world = self.clone();
        let mut all_events = Vec::new();
        let mut all_mail = Vec::new();
        for event in events {
            let (changes, mail) = match event {
                Event::Players(players::Event::Left { id }) => {
                    world
                        .ghosts
                        .player_left_nomic(*id, now, world.ghost_services(params))
                }
                Event::Players(players::Event::VacationStarted { id, .. }) => {
                    world.ghosts.referee_gone(
                        *id,
                        ghost::Vacancy::Vacation,
                        now,
                        world.ghost_services(params),
                    )
                }
                _ => continue,
            };
            let events: Vec<Event> = changes.into_iter().map(Event::from).collect();
            for event in &events {
                world.apply_event(event, now);
            }
            all_events.extend(events);
            all_mail.extend(mail);
        }
        (all_events, all_mail)
    }

    /// What Rule Tag sees of the world.
    fn ruletag_env<'a>(
        &'a self,
        params: &'a Params,
        moderator: Option<&'a crate::engine::Address>,
        is_officer: bool,
    ) -> ruletag::Env<'a> {
        ruletag::Env {
            players: &self.players,
            ruleset: &self.ruleset,
            accounts: &self.accounts,
            random: &self.random,
            calendar: &params.calendar,
            params: &params.ruletag,
            moderator,
            is_officer,
        }
    }

    /// A moderator acts for a player: the command is applied as if the player had sent
    /// it, and the override is announced on the list with the moderator's reason.
    #[allow(clippy::too_many_arguments)]
    fn on_behalf(
        &mut self,
        line: String,
        name: &str,
        reason: &str,
        inner_line: String,
        inner: Result<Parsed, NotUnderstood>,
        ctx: &Ctx,
        params: &Params,
        outcome: &mut Outcome,
    ) -> LineReport {
        let refused = |sentence: Sentence| LineReport {
            line: line.clone(),
            status: Status::Refused,
            sentence,
        };
        // The Rule Tag Moderator substitutes rule tag actions; the rest is the
        // moderators'.
        let rule_tag_action = matches!(inner, Ok(Parsed::RuleTag(_)));
        let may = params.is_moderator(&ctx.sender)
            || (rule_tag_action && params.is_ruletag_officer(&ctx.sender));
        if !may {
            return refused(Sentence::new("moderators_only"));
        }
        let secret = rule_tag_action && !ctx.public;
        let Some(player) = self.players.by_name(name) else {
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
        let report = self.apply_command(inner_line.clone(), command, &as_player, params, outcome);
        if report.status == Status::Done {
            outcome.mail.push(Mail::new(
                crate::engine::Audience::List,
                players::TAG,
                "override_on_behalf",
                serde_json::json!({
                    "officer": ctx.sender, "name": player_name,
                    // A private rule tag action stays secret until the end of the
                    // nweek: the list learns that one was made, not which.
                    "command": if secret { serde_json::Value::Null } else { inner_line.clone().into() },
                    "reason": reason, "at": crate::engine::human_time(ctx.now),
                }),
            ));
        }
        LineReport { line, ..report }
    }

    /// A moderator drives the Officer in charge of Random Things: a period begins
    /// with its commitment published, each draw is announced, the end reveals the seed.
    fn random_command(
        &self,
        command: RandomCommand,
        ctx: &Ctx,
        params: &Params,
    ) -> Result<Done<random::Event>, Refusal> {
        if !params.holds(RANDOM_OFFICE, &ctx.sender) {
            return Err(Refusal(
                Sentence::new("office_only").arg("office", RANDOM_OFFICE),
            ));
        }
        let refuse = |error: random::DrawError| Refusal(error.sentence());
        let mut after = self.random.clone();
        match command {
            RandomCommand::Start { label } => {
                let event = self
                    .random
                    .start_period(&label, ctx.entropy)
                    .map_err(refuse)?;
                after.apply_event(&event, ctx.now);
                let mail = after
                    .current
                    .as_ref()
                    .map(|record| record.started_mail(players::TAG));
                let commitment = after
                    .current
                    .as_ref()
                    .map(|r| r.commitment.clone())
                    .unwrap_or_default();
                Ok(Done {
                    events: vec![event],
                    mail: mail.into_iter().collect(),
                    sentence: Sentence::new("random_started")
                        .arg("label", label)
                        .arg("commitment", commitment),
                })
            }
            RandomCommand::Draw { n, purpose } => {
                let (result, event) = self.random.below(n, &purpose, ctx.now).map_err(refuse)?;
                let label = self
                    .random
                    .current
                    .as_ref()
                    .map(|r| r.label.clone())
                    .unwrap_or_default();
                let index = self.random.current.as_ref().map_or(0, |r| r.draws.len());
                let values = serde_json::json!({
                    "label": label, "purpose": purpose, "n": n, "result": result + 1,
                    "index": index, "at": crate::engine::human_time(ctx.now),
                });
                Ok(Done {
                    events: vec![event],
                    mail: vec![Mail::new(
                        crate::engine::Audience::List,
                        players::TAG,
                        "random_drew",
                        values,
                    )],
                    sentence: Sentence::new("random_drew")
                        .arg("purpose", purpose)
                        .arg("n", n)
                        .arg("result", result + 1),
                })
            }
            RandomCommand::End => {
                let event = self.random.end_period().map_err(refuse)?;
                after.apply_event(&event, ctx.now);
                let record = after.past.last();
                Ok(Done {
                    events: vec![event],
                    mail: record
                        .map(|r| r.revealed_mail(players::TAG))
                        .into_iter()
                        .collect(),
                    sentence: Sentence::new("random_ended")
                        .arg("label", record.map(|r| r.label.clone()).unwrap_or_default()),
                })
            }
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
        // The Rule Tag Moderator is "the arbiter as to who loses points and gains
        // them as a result of the game of rule tag": ey adjusts that currency.
        let ruletag_points = params.is_ruletag_officer(&ctx.sender)
            && self
                .accounts
                .currency(currency)
                .is_some_and(|c| c.is_called(&params.ruletag.currency));
        if !params.is_moderator(&ctx.sender) && !ruletag_points {
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
    pub fn next_deadline(&self, params: &Params) -> Option<Timestamp> {
        let lead = params.calendar.reminder_lead();
        [
            self.players.next_deadline(),
            self.sealed.next_deadline(),
            self.schedule.next_due(lead),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// The first batch of things due at `now`, one phase at a time, so that each
    /// phase is its own step in the record: the registry's expiries; then sealed
    /// actions' commitments (published before anything is resolved); then the
    /// schedule's reminders and deadlines, each fired deadline handed to its game.
    /// Empty when nothing is due.
    /// `caught_up_at` is the real time of this run: after a downtime, reminders
    /// already overtaken by their deadline are not mailed.
    /// `entropy` is the secret of this instant (the same on every replay), for the
    /// random draws a deadline may need.
    pub fn tick(
        &self,
        now: Timestamp,
        params: &Params,
        caught_up_at: Timestamp,
        entropy: [u8; 32],
    ) -> Outcome {
        let (events, mail) = self.players.tick(now);
        if !events.is_empty() {
            return Outcome::phase(
                "players",
                events.into_iter().map(Event::Players).collect(),
                mail,
            );
        }
        let (events, mail) = self.sealed.tick(now);
        if !events.is_empty() {
            return Outcome::phase(
                "commitments",
                events.into_iter().map(Event::Sealed).collect(),
                mail,
            );
        }
        let (events, mut mail) = self.schedule.tick(
            now,
            params.calendar.reminder_lead(),
            &self.players,
            caught_up_at,
        );
        let fired = self.schedule.fired_in(&events);
        let mut all: Vec<Event> = events.into_iter().map(Event::Schedule).collect();
        for deadline in fired {
            let (more_events, more_mail) =
                self.deadline_fired(&deadline, now, params, caught_up_at, entropy);
            all.extend(more_events);
            mail.extend(more_mail);
        }
        Outcome::phase("schedule", all, mail)
    }

    /// A game's deadline fired: the owner decides what happens.
    fn deadline_fired(
        &self,
        deadline: &calendar::Deadline,
        now: Timestamp,
        params: &Params,
        caught_up_at: Timestamp,
        entropy: [u8; 32],
    ) -> (Vec<Event>, Vec<Mail>) {
        match deadline.owner.as_str() {
            // The per-player reminder deadlines of a ballot fire too; only the
            // ballot's own deadline resolves it.
            vote::TAG => match vote::ballot_of_deadline(&deadline.id) {
                Some(number) => {
                    let (changes, mail) = self.votes.resolve(number, &self.sealed, now, None);
                    (changes.into_iter().map(Event::from).collect(), mail)
                }
                None => (Vec::new(), Vec::new()),
            },
            ghost::TAG => {
                let (changes, mail) =
                    self.ghosts
                        .deadline_fired(&deadline.id, now, self.ghost_services(params));
                (changes.into_iter().map(Event::from).collect(), mail)
            }
            ruletag::TAG => match ruletag::nweek_of_deadline(&deadline.id) {
                Some(nweek) => {
                    let moderator = params.ruletag_moderator();
                    let env = self.ruletag_env(params, moderator.as_ref(), false);
                    let (changes, mail) =
                        self.ruletag
                            .end_of_nweek(nweek, now, caught_up_at, entropy, &env);
                    (changes.into_iter().map(Event::from).collect(), mail)
                }
                None => (Vec::new(), Vec::new()),
            },
            _ => (Vec::new(), Vec::new()),
        }
    }
}

/// The instance a tag names: 2 for `ghost 2`, none for `ghost`.
pub fn instance_number(tag: &str) -> Option<u32> {
    match tag.rsplit_once(' ') {
        Some((_, number)) => number.parse().ok(),
        None => None,
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
    /// The Officer in charge of Random Things, driven by a moderator.
    Random(RandomCommand),
    Vote(vote::Command),
    RuleTag(ruletag::Command),
    /// A Ghost command for instance N of `[ghost N]`, or the only open one.
    Ghost {
        instance: Option<u32>,
        command: ghost::Command,
    },
    /// `officers`: who holds which office.
    Officers,
    /// A moderator acts on a player's behalf: `as Alice because REASON: join Alice`.
    OnBehalf {
        name: String,
        reason: String,
        line: String,
        inner: Box<Result<Parsed, NotUnderstood>>,
    },
    /// A moderator voids a message's actions: `void <ID> because REASON`.
    Void {
        message_id: String,
        reason: String,
    },
    /// A moderator's override of a balance: `adjust Bob -10 points because ...`.
    Adjust {
        name: String,
        amount: String,
        currency: String,
        reason: String,
    },
}

/// The overrides any tag accepts from a moderator, read before the game's own
/// commands: `as NAME because REASON: COMMAND` and `void <MESSAGE-ID> because REASON`.
/// `game` reads the command a moderator carries out for a player.
fn parse_override(
    line: &str,
    game: &dyn Fn(&str) -> Result<Parsed, NotUnderstood>,
) -> Option<Result<Parsed, NotUnderstood>> {
    let (verb, rest) = split_verb(line);
    match verb.as_str() {
        "as" => {
            let usage = || {
                NotUnderstood(
                    Sentence::new("usage").arg("usage", "as PLAYER because REASON: COMMAND"),
                )
            };
            let Some((who, command)) = rest.split_once(':') else {
                return Some(Err(usage()));
            };
            let Some((name, reason)) = who.split_once(" because ") else {
                return Some(Err(usage()));
            };
            let command = command.trim();
            let inner = game(command);
            Some(Ok(Parsed::OnBehalf {
                name: name.trim().to_owned(),
                reason: reason.trim().to_owned(),
                line: command.to_owned(),
                inner: Box::new(inner),
            }))
        }
        "void" => {
            let usage = || {
                NotUnderstood(
                    Sentence::new("usage").arg("usage", "void <MESSAGE-ID> because REASON"),
                )
            };
            let Some((id, reason)) = rest.split_once(" because ") else {
                return Some(Err(usage()));
            };
            let id = id
                .trim()
                .trim_start_matches('<')
                .trim_end_matches('>')
                .trim();
            if id.is_empty() || id.contains(char::is_whitespace) {
                return Some(Err(usage()));
            }
            Some(Ok(Parsed::Void {
                message_id: id.to_owned(),
                reason: reason.trim().to_owned(),
            }))
        }
        _ => None,
    }
}

/// The office that drives the random draws by mail (a moderator may too).
const RANDOM_OFFICE: &str = "Officer in charge of Random Things";

/// `random start LABEL`, `random draw N PURPOSE`, `random end`.
#[derive(Debug)]
enum RandomCommand {
    Start { label: String },
    Draw { n: u32, purpose: String },
    End,
}

fn parse_random(rest: &str) -> Result<Parsed, NotUnderstood> {
    let usage = || {
        NotUnderstood(Sentence::new("usage").arg(
            "usage",
            "random start LABEL | random draw N PURPOSE | random end",
        ))
    };
    let (verb, rest) = split_verb(rest);
    let command = match verb.as_str() {
        "start" if !rest.is_empty() => RandomCommand::Start {
            label: rest.to_owned(),
        },
        "draw" => {
            let (n, purpose) = rest.split_once(char::is_whitespace).ok_or_else(usage)?;
            let n = n.parse().map_err(|_| usage())?;
            RandomCommand::Draw {
                n,
                purpose: purpose.trim().to_owned(),
            }
        }
        "end" if rest.is_empty() => RandomCommand::End,
        _ => return Err(usage()),
    };
    Ok(Parsed::Random(command))
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

/// Reads one line under `[rule tag]`: the overrides, a moderator's `adjust`, then
/// the game's own commands.
fn parse_ruletag(line: &str) -> Result<Parsed, NotUnderstood> {
    let (verb, rest) = split_verb(line);
    // `void ALICE move because ...` voids one counted action; `void <ID> because
    // ...` (a Message-ID, one word) voids a whole message, as under every tag.
    let voids_an_action = verb == "void"
        && rest
            .split_once(" because ")
            .is_some_and(|(what, _)| what.trim().contains(char::is_whitespace));
    if !voids_an_action
        && let Some(parsed) = parse_override(line, &|command| {
            ruletag::parse(command).map(Parsed::RuleTag)
        })
    {
        return parsed;
    }
    if verb == "adjust" {
        return parse_adjust(rest);
    }
    ruletag::parse(line).map(Parsed::RuleTag)
}

/// Reads one line under `[nomic]`: the registry's commands, then the accounts'.
fn parse_nomic(line: &str) -> Result<Parsed, NotUnderstood> {
    if let Some(parsed) = parse_override(line, &parse_nomic) {
        return parsed;
    }
    let (verb, rest) = split_verb(line);
    if verb == "adjust" {
        return parse_adjust(rest);
    }
    if verb == "random" {
        return parse_random(rest);
    }
    if verb == "officers" && rest.is_empty() {
        return Ok(Parsed::Officers);
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
                vote::TAG => vote::parse(rest).is_ok(),
                ruletag::TAG => ruletag::parse(rest).is_ok(),
                // "[ghost] thanks" over a message is a subject, not the play
                // THANKS; a subject with nothing below it ("[ghost 1] sup") is.
                ghost::TAG => {
                    ghost::parse(rest).is_ok()
                        && (!ghost::is_bare_play(rest)
                            || message.body_lines.iter().all(|l| l.trim().is_empty()))
                }
                _ => false,
            });
    let normalized = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let mut lines: Vec<String> = Vec::new();
    // Blank lines are paragraph breaks, which only the ruleset's texts keep.
    let keep_blank = game == ruleset::TAG;
    let mut body = message
        .body_lines
        .iter()
        .map(|l| l.trim().to_owned())
        .filter(|l| keep_blank || !l.is_empty())
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
    // One command per line, `help` anywhere, each read by `parse`.
    let each_line = |parse: &dyn Fn(&str) -> Result<Parsed, NotUnderstood>| {
        lines
            .iter()
            .map(|line| {
                let parsed = if is_help(line) {
                    Ok(Parsed::Help)
                } else {
                    parse(line)
                };
                (line.clone(), parsed)
            })
            .collect()
    };
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
        vote::TAG => {
            let vote = |line: &str| vote::parse(line).map(Parsed::Vote);
            each_line(&|line| parse_override(line, &vote).unwrap_or_else(|| vote(line)))
        }
        ghost::TAG => {
            // `[ghost 2]` names the instance of every line, overrides included.
            let instance = instance_number(&message.tag);
            let ghost =
                |line: &str| ghost::parse(line).map(|command| Parsed::Ghost { instance, command });
            each_line(&|line| parse_override(line, &ghost).unwrap_or_else(|| ghost(line)))
        }
        ruletag::TAG => each_line(&parse_ruletag),
        players::TAG => each_line(&parse_nomic),
        _ => each_line(&|_| Err(NotUnderstood(Sentence::new("unknown_tag").arg("tag", game)))),
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
            entropy: [7; 32],
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

    /// Mail content never panics the router, whatever the tag and the line.
    #[test]
    fn odd_lines_under_every_tag_are_answered_not_panicked_on() {
        let lines = [
            "",
            " ",
            "\u{feff}",
            "move",
            "move to",
            "move from to",
            "move from 4294967296 to 1",
            "move from null to 1 via",
            "move from 1 to 2 via \"",
            "move from 1 to 2 via \"\"",
            "move from \u{2603} to \u{1F600} via \u{e9}t\u{e9}",
            "grab ball 99999999999999999999999",
            "grab \u{1F3C0} -0",
            "grab 5",
            "drop \"\"",
            "element \u{1F525}",
            "void x y because",
            "void because because because",
            "relocate to to to because x",
            "term in in because x",
            "term \"\" not defined in 3 because x",
            "as : move to null",
            "as x because y: ",
            "start with",
            "start duel with ,,,",
            "protest",
            "protest addition",
            "word",
            "play",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "\u{e9}",
            "adjust",
            "adjust x 1/0 points because y",
            "random draw 0 x",
        ];
        let params = Params::default();
        let world = World::default();
        for tag in KNOWN_TAGS
            .iter()
            .map(|t| t.to_string())
            .chain(["ghost 7".into()])
        {
            for line in lines {
                let outcome = world.handle(&message(&tag, line, &[line]), &ctx(), &params);
                assert!(
                    !outcome.report.is_empty() || !outcome.help.is_empty(),
                    "{tag}: {line:?}"
                );
            }
        }
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
        assert_eq!(
            outcome.help,
            ["nomic", "ruleset", "vote", "rule tag", "ghost"]
        );
    }
}
