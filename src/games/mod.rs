//! The closed list of games, one registry line each, and the world they make up.
//! Everything else here names no game: the router (`router`), the moderators'
//! overrides (`overrides`), the Officer in charge of Random Things
//! (`random_officer`), the substrate's tags (`substrate`: `[nomic]`, `[ruleset]`)
//! and the driver of deadlines and messages (`driver`) work on any `Game`.
//! Pure, like the engine: the shell hands in a `Message` and its `Ctx` and gets
//! back events, mail and the answer.

pub mod bindings;
pub mod driver;
pub mod overrides;
pub mod random_officer;
pub mod reports;
pub mod router;
pub mod sealed_log;
pub mod section_error;
pub mod substrate;
pub mod suite;
pub mod summary;
pub mod table;

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::engine::accounts;
use crate::engine::calendar;
use crate::engine::contests;
use crate::engine::game::{Effect, Game, Officers, Script, Setting, Shared, SharedEvent, View};
use crate::engine::inventory;
use crate::engine::offices::{self, Offices};
use crate::engine::players;
use crate::engine::random;
use crate::engine::ruleset;
use crate::engine::sealed;
use crate::engine::{LineReport, Mail, Timestamp};

pub use overrides::Override;
pub use router::Message;

/// The registry: one line per game, `EventVariant state_key => module::Game`. The
/// event variant names the game in the event log (snake case), the state key
/// names its state in `state --json` and the snapshot.
macro_rules! games {
    ($($variant:ident $field:ident => $module:ident :: $($game:ident)::+,)*) => {
        $(pub mod $module;)*

        /// Every game's live state.
        #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
        pub struct States {
            $(#[serde(default)] pub $field: Arc<<$module::$($game)::+ as Game>::State>,)*
        }

        /// Every game's parameters, from its bot.toml section.
        #[derive(Debug, Clone, Default)]
        pub struct GameParams {
            $(pub $field: <$module::$($game)::+ as Game>::Params,)*
        }

        impl GameParams {
            /// Each game reads its own section of bot.toml; a section missing is
            /// the game's defaults.
            pub fn from_config(sections: &toml::Table) -> Result<GameParams, String> {
                Ok(GameParams {
                    $($field: match sections.get(<$module::$($game)::+ as Game>::NAME) {
                        Some(section) => section.clone().try_into().map_err(|e: toml::de::Error| {
                            crate::games::section_error::section_error::<<$module::$($game)::+ as Game>::Params>(
                                <$module::$($game)::+ as Game>::NAME,
                                section,
                                &e,
                            )
                        })?,
                        None => Default::default(),
                    },)*
                })
            }
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
            Offices(offices::Event),
            Inventory(inventory::Event),
            Contests(contests::Event),
            Override(Override),
            $($variant(<$module::$($game)::+ as Game>::Event),)*
        }

        $(impl Registered for $module::$($game)::+ {
            fn take_state(world: &World) -> Arc<Self::State> {
                world.games.$field.clone()
            }
            fn put_state(world: &mut World, state: Arc<Self::State>) {
                world.games.$field = state;
            }
            fn params(params: &Params) -> &Self::Params {
                &params.games.$field
            }
            fn wrap(event: Self::Event) -> Event {
                Event::$variant(event)
            }
            fn state_key() -> &'static str {
                stringify!($field)
            }
        })*

        /// Calls the visitor once per registered game, in the registry's order.
        pub fn each_game(visitor: &mut impl Visit) {
            $(visitor.visit::<$module::$($game)::+>();)*
        }

        /// Whether a line that recorded `event` must not have its answer or its
        /// mail shown by a preview: it reveals or draws what stays hidden until
        /// it happens (sealed actions and what is counted from them, a random
        /// draw, what a game keeps secret: `Game::hidden_from_preview`). A
        /// preview that showed it would let a player peek without acting.
        pub fn hidden_from_preview(event: &Event) -> bool {
            match event {
                Event::Sealed(sealed::Event::Committed { .. } | sealed::Event::Revealed { .. }) => true,
                Event::Random(_) => true,
                $(Event::$variant(event) => <$module::$($game)::+ as Game>::hidden_from_preview(event),)*
                _ => false,
            }
        }

        impl World {
    /// What follows a change of the ruleset made outside any game (an import by
    /// the operator): the bindings decided again, as after a game's step.
    pub fn after_rules_changed(&self, at: Timestamp, params: &Params) -> Outcome {
        let mut scratch = self.clone();
        let mut outcome = Outcome::default();
        bindings::react(&mut scratch, at, params, &mut outcome);
        outcome
    }
}

impl World {
            fn apply_game_event(&mut self, event: &Event, at: Timestamp) {
                match event {
                    $(Event::$variant(event) => {
                        <$module::$($game)::+ as Game>::apply_event(Arc::make_mut(&mut self.games.$field), event, at)
                    })*
                    _ => {}
                }
            }

            /// Drops every game's finished history from the live state.
            pub fn retire(&mut self) {
                self.shared.retire();
                $(if let Some(live) = <$module::$($game)::+ as Game>::retire(&self.games.$field) {
                    self.games.$field = Arc::new(live);
                })*
            }
        }
    };
}

games! {
    Vote votes => vote::game::Vote,
    RuleTag ruletag => ruletag::game::RuleTag,
    Ghost ghosts => ghost::game::Ghost,
    Bogusity bogusity => bogusity::Bogusity,
    Gnomic gnomic => gnomic::Gnomic,
    Ping ping => ping::Ping,
    Boons boons => boons::Boons,
    Duel duel => duel::Duel,
    Donkey donkey => donkey::Donkey,
    Treasure treasure => treasure::Treasure,
    Contest contest_games => refereed::Refereed,
    Space space => space::Space,
}

/// A game in the registry: where its state and parameters are in the world, and
/// how its events are named in the log. Generated by the registry line; the
/// substrate's tags implement it by hand.
pub trait Registered: Game {
    fn take_state(world: &World) -> Arc<Self::State>;
    fn put_state(world: &mut World, state: Arc<Self::State>);
    fn params(params: &Params) -> &Self::Params;
    fn wrap(event: Self::Event) -> Event;
    /// The key of its state in the snapshot and in `state --json`.
    fn state_key() -> &'static str;
}

/// Something done once per registered game (generic code cannot loop over types).
pub trait Visit {
    fn visit<G: Registered>(&mut self);
}

/// The whole game state: what `state --json` shows and what replay rebuilds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct World {
    #[serde(flatten)]
    pub shared: Shared,
    #[serde(flatten)]
    pub games: States,
    /// Messages whose actions a moderator voided (their Message-IDs): `fold` leaves
    /// their events out.
    #[serde(default)]
    pub voided: Vec<String>,
}

impl std::ops::Deref for World {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.shared
    }
}

impl World {
    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        match event {
            Event::Players(e) => self
                .shared
                .apply_event(&SharedEvent::Players(e.clone()), at),
            Event::Accounts(e) => self
                .shared
                .apply_event(&SharedEvent::Accounts(e.clone()), at),
            Event::Ruleset(e) => self
                .shared
                .apply_event(&SharedEvent::Ruleset(e.clone()), at),
            Event::Schedule(e) => self
                .shared
                .apply_event(&SharedEvent::Schedule(e.clone()), at),
            Event::Random(e) => self.shared.apply_event(&SharedEvent::Random(e.clone()), at),
            Event::Sealed(e) => self.shared.apply_event(&SharedEvent::Sealed(e.clone()), at),
            Event::Offices(e) => self
                .shared
                .apply_event(&SharedEvent::Offices(e.clone()), at),
            Event::Inventory(e) => self
                .shared
                .apply_event(&SharedEvent::Inventory(e.clone()), at),
            Event::Contests(e) => self
                .shared
                .apply_event(&SharedEvent::Contests(e.clone()), at),
            Event::Override(Override::Voided { message_id, .. }) => {
                self.voided.push(message_id.clone())
            }
            _ => self.apply_game_event(event, at),
        }
    }

    /// The game's state in this world.
    pub fn state<G: Registered>(&self) -> Arc<G::State> {
        G::take_state(self)
    }

    /// What anyone may see: a running random period's seed and the sealed actions
    /// not yet revealed are blanked, each game shows its public view (guarantee 4).
    pub fn public_view(&self, params: &Params) -> serde_json::Value {
        self.view_json(params, false)
    }

    /// Everything, secrets included (`state --private`).
    pub fn private_view(&self, params: &Params) -> serde_json::Value {
        self.view_json(params, true)
    }

    fn view_json(&self, params: &Params, private: bool) -> serde_json::Value {
        let mut shared = self.shared.clone();
        if !private {
            shared.random = Arc::new(self.shared.random.public_view());
            shared.sealed = Arc::new(self.shared.sealed.public_view());
            if self.shared.players.has_secrets() {
                shared.players = Arc::new(self.shared.players.public_view());
            }
        }
        let mut value = serde_json::to_value(&shared).unwrap_or_default();
        struct Views<'a> {
            world: &'a World,
            params: &'a Params,
            private: bool,
            out: &'a mut serde_json::Value,
        }
        impl Visit for Views<'_> {
            fn visit<G: Registered>(&mut self) {
                let state = G::take_state(self.world);
                let view = View::new(&self.world.shared, &self.params.setting);
                let game_params = G::params(self.params);
                let shown = if self.private {
                    G::private_view(&state, &view, game_params)
                } else {
                    G::public_view(&state, &view, game_params)
                };
                let key = G::state_key();
                self.out[key] = shown;
            }
        }
        each_game(&mut Views {
            world: self,
            params,
            private,
            out: &mut value,
        });
        value["voided"] = serde_json::to_value(&self.voided).unwrap_or_default();
        value
    }
}

/// `state NAME` of a registered game (by its name or one of its tags, `-` for a
/// space): the view shown, and the same in words when the game has words for it.
pub fn state_of(
    world: &World,
    params: &Params,
    name: &str,
    private: bool,
    now: Timestamp,
) -> Option<(serde_json::Value, Option<String>)> {
    struct Find<'a> {
        world: &'a World,
        params: &'a Params,
        name: String,
        private: bool,
        now: Timestamp,
        found: Option<(serde_json::Value, Option<String>)>,
    }
    impl Visit for Find<'_> {
        fn visit<G: Registered>(&mut self) {
            let named = G::NAME == self.name || G::TAGS.contains(&self.name.as_str());
            if self.found.is_some() || !named {
                return;
            }
            let state = G::take_state(self.world);
            let view = View::new(&self.world.shared, &self.params.setting);
            let shown = if self.private {
                G::private_view(&state, &view, G::params(self.params))
            } else {
                G::public_view(&state, &view, G::params(self.params))
            };
            let text = G::state_text(&shown, &state, &view, self.now);
            self.found = Some((shown, text));
        }
    }
    let mut find = Find {
        world,
        params,
        name: name.to_lowercase().replace('-', " "),
        private,
        now,
        found: None,
    };
    each_game(&mut find);
    find.found
}

/// The world an event log describes: every event applied in order, except those of
/// a message a moderator voided. The one way state is rebuilt (replay, and after a void).
pub fn fold<'a>(world: World, records: &[(Timestamp, &'a str, &'a Event)]) -> World {
    let mut folding = Folding::new(world, voided_causes(records));
    for (at, cause, event) in records {
        folding.apply(*at, cause, event);
    }
    folding.finish()
}

/// `fold` one event at a time, for a log read as it streams by rather than held:
/// the voided causes are known first (from the log's voids alone, which is all
/// `voided_causes` reads), then every event of the log goes through `apply` in order.
pub struct Folding {
    world: World,
    voided: std::collections::HashSet<String>,
}

impl Folding {
    pub fn new(world: World, voided: std::collections::HashSet<String>) -> Folding {
        Folding { world, voided }
    }

    pub fn apply(&mut self, at: Timestamp, cause: &str, event: &Event) {
        if !self.voided.contains(cause) {
            self.world.apply_event(event, at);
        } else if let Event::Players(event) = event {
            // A voided join's id stays used (`Registry::retired_ids`).
            Arc::make_mut(&mut self.world.shared.players).skipped_event(event);
        }
    }

    pub fn finish(self) -> World {
        self.world
    }
}

/// The causes (`mail:<ID>`) whose events a void in force leaves out. A void is in
/// force unless its own message was voided by one in force: voiding a void
/// restores what it had voided. A void always names an earlier message (the shell
/// refuses one naming no message on record), so reading the log from its end
/// decides every void before the voids of it are needed. Only the voids among
/// `records` count: the log's voids alone, in order, give the same answer.
pub fn voided_causes(records: &[(Timestamp, &str, &Event)]) -> std::collections::HashSet<String> {
    let mut voided = std::collections::HashSet::new();
    for (_, cause, event) in records.iter().rev() {
        if let Event::Override(Override::Voided { message_id, .. }) = event
            && !voided.contains(*cause)
        {
            voided.insert(format!("mail:<{message_id}>"));
        }
    }
    voided
}

/// The parameters of the substrate and of every game, from bot.toml.
#[derive(Debug, Clone, Default)]
pub struct Params {
    pub players: players::Params,
    /// The officers, the calendar and the official dictionary.
    pub setting: Setting,
    pub games: GameParams,
    /// `[reports]`: the officers' periodic reports to the list.
    pub reports: reports::Reports,
}

impl Params {
    pub fn officers(&self) -> &Officers {
        &self.setting.officers
    }

    pub fn is_moderator(&self, address: &crate::engine::Address) -> bool {
        self.setting.officers.is_moderator(address)
    }

    pub fn game<G: Registered>(&self) -> &G::Params {
        G::params(self)
    }

    /// These parameters with the officers in force: bot.toml's, changed by the
    /// appointments and dismissals made by mail. Every step reads the officers
    /// through this, so an appointment counts from the next message on.
    pub fn with_offices(&self, offices: &Offices) -> std::borrow::Cow<'_, Params> {
        if offices.is_empty() {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut params = self.clone();
        params.setting.officers = offices.applied_to(&self.setting.officers);
        std::borrow::Cow::Owned(params)
    }

    /// The parameters, with the offices the games name added to the officers
    /// (for the `officers` roster).
    pub fn new(
        players: players::Params,
        officers: Officers,
        calendar: calendar::Calendar,
        lexicon: Arc<dyn crate::engine::dictionary::Lexicon>,
        games: GameParams,
    ) -> Params {
        let mut params = Params {
            players,
            setting: Setting {
                officers,
                calendar,
                lexicon,
                bound: Arc::new(Vec::new()),
                baseline_when_unrecorded: true,
                rules_required: false,
                contests: Arc::new(Vec::new()),
                ..Setting::default()
            },
            games,
            reports: reports::Reports::default(),
        };
        struct Bound<'a>(&'a Params, Vec<crate::engine::ruleset::bindings::Declared>);
        impl Visit for Bound<'_> {
            fn visit<G: Registered>(&mut self) {
                let declared = G::bindings(self.0.game::<G>());
                if !declared.mechanics.is_empty() {
                    self.1.push(declared);
                }
            }
        }
        let mut bound = Bound(&params, Vec::new());
        each_game(&mut bound);
        params.setting.bound = Arc::new(bound.1);
        struct GameOffices<'a>(&'a Params, Vec<(String, Vec<crate::engine::Address>)>);
        impl Visit for GameOffices<'_> {
            fn visit<G: Registered>(&mut self) {
                self.1
                    .extend(G::offices(self.0.officers(), self.0.game::<G>()));
            }
        }
        struct Shipped<'a>(&'a Params, Vec<contests::Contest>);
        impl Visit for Shipped<'_> {
            fn visit<G: Registered>(&mut self) {
                self.1.extend(G::contests(self.0.game::<G>()));
            }
        }
        let mut shipped = Shipped(&params, Vec::new());
        each_game(&mut shipped);
        params.setting.contests = Arc::new(contests::one_each(shipped.1));
        let mut of_games = GameOffices(&params, Vec::new());
        each_game(&mut of_games);
        let of_games = of_games.1;
        params.setting.officers.of_games = of_games;
        params
    }
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
    /// Who gets a copy of the answer to a private action, besides the sender and
    /// the officers of `officers.copy_private_to` (the game says who).
    pub copies: Vec<crate::engine::Address>,
    /// For a tick: which phase of the instant this is (part of the step's cause).
    pub phase: &'static str,
    /// The command lines carried out that their game declared secret (a player's
    /// own, or the one a moderator carried out for em): what no public mail may
    /// show before the game reveals it.
    pub secret: Vec<String>,
    /// No line of the message was understood and none looked like an attempt at
    /// a command (`router::looks_like_a_command`): talk under a tag, such as
    /// "How generous of you!" in a reply. The shell decides what it is answered.
    pub chatter: bool,
    /// Where each line of `report` began in `events` and `mail`: what a line
    /// recorded and sent runs to where the next began. A preview shows each
    /// line's own mail (`pipeline::preview`). Lines the router did not apply
    /// (an unknown tag) have no entry.
    pub line_starts: Vec<LineStart>,
}

/// The lengths of an outcome's events and mail when a line began.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct LineStart {
    pub events: usize,
    pub mail: usize,
}

impl Outcome {
    /// Whether line `index` of the report did or tried something an officer who
    /// sees private actions must see: refused, or done with an event or a mail.
    /// A question answered (`help`, `status`, `balance`) changed nothing and is
    /// the asker's alone. A line the router did not apply counts as an action.
    pub fn line_acted(&self, index: usize) -> bool {
        let Some(report) = self.report.get(index) else {
            return false;
        };
        match report.status {
            crate::engine::Status::NotUnderstood => false,
            crate::engine::Status::Refused => true,
            crate::engine::Status::Done => {
                let (Some(start), next) = (
                    self.line_starts.get(index),
                    self.line_starts
                        .get(index + 1)
                        .copied()
                        .unwrap_or(self.here()),
                ) else {
                    return true;
                };
                next.events > start.events || next.mail > start.mail
            }
        }
    }

    /// Whether a line was done, and whether one was done or refused, of the
    /// lines that acted (`line_acted`): what decides the officers' copies of a
    /// private answer.
    pub fn acted(&self) -> (bool, bool) {
        let acted: Vec<&crate::engine::LineReport> = (0..self.report.len())
            .filter(|index| self.line_acted(*index))
            .map(|index| &self.report[index])
            .collect();
        let done = acted
            .iter()
            .any(|line| line.status == crate::engine::Status::Done);
        (done, !acted.is_empty())
    }

    /// Where the next line begins, at the end of what is recorded so far.
    pub fn here(&self) -> LineStart {
        LineStart {
            events: self.events.len(),
            mail: self.mail.len(),
        }
    }

    /// Takes a game's effects: its events wrapped for the log, its mail in order.
    pub fn take<G: Registered>(&mut self, effects: Vec<Effect<G::Event>>) {
        for effect in effects {
            match effect {
                Effect::Game(event) => self.events.push(G::wrap(event)),
                Effect::Shared(event) => self.events.push(shared_event(event)),
                Effect::Mail(mail) => self.mail.push(mail),
            }
        }
    }
}

/// A shared event as the log names it.
pub fn shared_event(event: SharedEvent) -> Event {
    match event {
        SharedEvent::Players(e) => Event::Players(e),
        SharedEvent::Accounts(e) => Event::Accounts(e),
        SharedEvent::Ruleset(e) => Event::Ruleset(e),
        SharedEvent::Schedule(e) => Event::Schedule(e),
        SharedEvent::Random(e) => Event::Random(e),
        SharedEvent::Sealed(e) => Event::Sealed(e),
        SharedEvent::Offices(e) => Event::Offices(e),
        SharedEvent::Inventory(e) => Event::Inventory(e),
        SharedEvent::Contests(e) => Event::Contests(e),
    }
}

/// Every tag the bot answers to, lower-case: the substrate's, every game's, and
/// `help`. A bracketed subject part that is not one of these (a list prefix like
/// `[game-list]`) is not a tag.
pub fn known_tags() -> Vec<String> {
    struct Tags(Vec<String>);
    impl Visit for Tags {
        fn visit<G: Registered>(&mut self) {
            self.0.extend(G::TAGS.iter().map(|t| t.to_string()));
        }
    }
    let mut tags = Tags(substrate::TAGS.iter().map(|t| t.to_string()).collect());
    each_game(&mut tags);
    tags.0.push("help".into());
    tags.0
}

/// The names of the registered games, in the registry's order.
pub fn game_names() -> Vec<&'static str> {
    struct Names(Vec<&'static str>);
    impl Visit for Names {
        fn visit<G: Registered>(&mut self) {
            self.0.push(G::NAME);
        }
    }
    let mut names = Names(Vec::new());
    each_game(&mut names);
    names.0
}

/// The registered games whose rules the shipped text `text` holds (each
/// game's `Declared::text`, under its default numbers).
pub fn following(text: &str) -> Vec<&'static str> {
    struct Following<'a>(&'a str, Vec<&'static str>);
    impl Visit for Following<'_> {
        fn visit<G: Registered>(&mut self) {
            if G::bindings(&Default::default()).text == self.0 {
                self.1.push(G::NAME);
            }
        }
    }
    let mut following = Following(text, Vec::new());
    each_game(&mut following);
    following.1
}

/// A registered game's sample (`Game::sample`): what `check` renders and `demo
/// --game NAME` plays.
#[derive(Clone, Copy)]
pub struct Sample {
    pub name: &'static str,
    /// The game's tags, its own first (the tag of its mail).
    pub tags: &'static [&'static str],
    pub play: fn(&mut dyn Script),
}

impl Sample {
    /// Whether a mail is the game's own: sent under one of its tags (`ghost 2`
    /// is ghost's).
    pub fn is_own(&self, mail: &Mail) -> bool {
        self.tags.contains(&base_tag(&mail.tag))
    }
}

/// Every registered game's sample, in the registry's order.
pub fn samples() -> Vec<Sample> {
    struct Samples(Vec<Sample>);
    impl Visit for Samples {
        fn visit<G: Registered>(&mut self) {
            self.0.push(Sample {
                name: G::NAME,
                tags: G::TAGS,
                play: G::sample,
            });
        }
    }
    let mut samples = Samples(Vec::new());
    each_game(&mut samples);
    samples.0
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
