//! The seam every game plugs into: the `Game` trait, the shared world a game
//! reads (`Shared`, seen through `View`), and the transaction (`Tx`) a command or
//! a deadline runs in. Pure like the rest of the engine, and it names no game: the
//! closed list of games lives in `games/mod.rs`, one registry line each.
//!
//! A transaction is a scratch world plus the effects collected so far. The scratch
//! shares every part of the world with the live one (`Arc`) and copies a part only
//! when the transaction first changes it, so a command costs what it changes, not
//! what the world weighs; a refused command is dropped with its transaction and
//! costs nothing to undo.

use std::collections::BTreeMap;
use std::fmt::Debug;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::accounts::{self, Accounts};
use super::calendar::{self, Calendar, Deadline, Schedule};
use super::contests;
use super::dictionary::Lexicon;
use super::inventory::{self, Inventory};
use super::offices::{self, Offices};
use super::players::{self, PlayerId, Registry};
use super::random::{self, RandomOfficer};
use super::ruleset::{self, Ruleset};
use super::sealed::{self, SealedBox};
use super::{Address, Ctx, Mail, NotUnderstood, Refusal, Sentence, Timestamp};

/// A game refereed by the bot: its tags, its commands and events, its rules.
///
/// Everything a game does goes through a `Tx`: it reads the world through
/// `tx.view()` and its own state through `tx.state()`, and changes them only by
/// recording events (`tx.record`, `tx.record_shared`), which the transaction
/// applies to its scratch copy at once, so a later decision sees an earlier one.
pub trait Game: Sized + 'static {
    /// The game's name: its section in bot.toml, `state NAME`, `demo --game NAME`.
    const NAME: &'static str;
    /// The subject tags it answers to, lower-case. The first is its own tag: the
    /// owner of its deadlines and the tag of its mail.
    const TAGS: &'static [&'static str];

    /// The live state: what the rules need from now on. Finished history (ended
    /// games, resolved ballots) stays in the event log; `retire` drops it.
    type State: Clone + Default + Debug + PartialEq + Serialize + DeserializeOwned + Send + Sync;
    /// What the event log records; the only way the state changes.
    type Event: Clone + Debug + PartialEq + Serialize + DeserializeOwned + Send + Sync;
    /// One command line, read.
    type Command: Debug;
    /// The game's numbers, deserialised from its bot.toml section.
    type Params: Clone + Default + Debug + DeserializeOwned + Send + Sync;

    /// Reads one command line. `tag` is the subject tag as written (`ghost 2`).
    /// A line that begins with none of the game's commands is `Err` with the
    /// sentence `engine::UNKNOWN_COMMAND`; any other sentence says the game
    /// recognised how it begins (the router then takes it for an attempt at a
    /// command, not for talk in a thread).
    fn parse(line: &str, tag: &str) -> Result<Self::Command, NotUnderstood>;

    /// Whether the rest of a subject after the tag is a command of this game, given
    /// the message's body lines (a game may want a subject command to stand alone).
    fn subject_is_command(rest: &str, tag: &str, _body: &[String]) -> bool {
        Self::parse(rest, tag).is_ok()
    }

    /// Whether a command begins the game or an instance of it (`start`; for a
    /// game without one, the act that first brings its matter into play). The
    /// router refuses it while the registry never held the game's rules and
    /// `[bot] unrecorded_rules` is "required".
    fn begins(_command: &Self::Command) -> bool {
        false
    }

    /// Carries out one command. On `Err` the transaction is dropped by the caller.
    fn apply(tx: &mut Tx<'_, Self>, command: Self::Command, ctx: &Ctx)
    -> Result<Sentence, Refusal>;

    /// Applies one of its events to its state; never fails (replay must not).
    fn apply_event(state: &mut Self::State, event: &Self::Event, at: Timestamp);

    /// One of its deadlines on the shared schedule fired (the deadline's owner is
    /// the game's first tag, perhaps with an instance's number: `ghost 2`).
    fn on_deadline(_tx: &mut Tx<'_, Self>, _deadline: &Deadline, _tick: &Tick) {}

    /// A deadline the game keeps itself rather than on the shared schedule.
    fn next_deadline(_state: &Self::State) -> Option<Timestamp> {
        None
    }

    /// A player's standing in the nomic changed (already applied to the view).
    fn standing_changed(_tx: &mut Tx<'_, Self>, _change: &Standing) {}

    /// Entities of the inventory were destroyed or used up by any rule
    /// (already applied to the view): their numbers.
    fn entities_gone(_tx: &mut Tx<'_, Self>, _ids: &[u32]) {}

    /// The mechanics the game computes, each bound to its rule and each of its
    /// numbers to the words of the rule it comes from, with the baseline texts
    /// (`engine::ruleset::bindings`). The game reads those numbers from the
    /// registry's bindings (`Ruleset::value`), and asks `Ruleset::follows`
    /// before applying a mechanic.
    fn bindings(_params: &Self::Params) -> ruleset::bindings::Declared {
        ruleset::bindings::Declared {
            game: Self::NAME,
            ..Default::default()
        }
    }

    /// `bindings` as the registry `ruleset` stands: for a game that finds its
    /// rules in the registry by name rather than by a configured number.
    fn bindings_in(params: &Self::Params, _ruleset: &Ruleset) -> ruleset::bindings::Declared {
        Self::bindings(params)
    }

    /// What the bot follows of the game's rules changed (already applied to the
    /// view): a rule left effect, was amended, was held or ruled on.
    fn bindings_changed(_tx: &mut Tx<'_, Self>, _rules: &[u32]) {}

    /// Whether a command is secret, and until when. The shell keeps a secret
    /// command, and any override of it, out of every public mail of its step.
    /// `ctx` is the message's (a private action may be secret where the same
    /// action on the list is not).
    fn secrecy(_command: &Self::Command, _ctx: &Ctx) -> Secrecy {
        Secrecy::Public
    }

    /// Whether an event of this game reveals what the game keeps hidden until
    /// it happens (a guess found right or wrong against a secret truth): a
    /// preview of the line that records it shows neither its answer nor its
    /// mail. Sealed actions and random draws are hidden for every game.
    fn hidden_from_preview(_event: &Self::Event) -> bool {
        false
    }

    /// The game's own officer (a referee, a moderator of the game) besides the
    /// bot's moderators: ey may act for players under this game's tags.
    fn is_officer(_officers: &Officers, _params: &Self::Params, _address: &Address) -> bool {
        false
    }

    /// Who gets a copy of the answer to a private message under this game's tags
    /// whose lines were carried out or refused (the game's judges of validity).
    fn private_copies(_officers: &Officers, _params: &Self::Params) -> Vec<Address> {
        Vec::new()
    }

    /// The Contests of the Games & Contests suite (rule 1250) this game ships
    /// in its config section; the shared suite starts from all of them.
    fn contests(_params: &Self::Params) -> Vec<contests::Contest> {
        Vec::new()
    }

    /// The game's offices for the `officers` roster: (office, holders).
    fn offices(_officers: &Officers, _params: &Self::Params) -> Vec<(String, Vec<Address>)> {
        Vec::new()
    }

    /// Whether this game's tags accept a moderator's `adjust PLAYER AMOUNT
    /// CURRENCY because REASON` (every tag accepts `as` and `void`).
    const ACCEPTS_ADJUST: bool = false;

    /// Whether `address`, no moderator, may adjust balances of `currency` under
    /// this game's tags (a game's arbiter of its own points).
    fn may_adjust(
        _officers: &Officers,
        _params: &Self::Params,
        _address: &Address,
        _currency: &accounts::Currency,
    ) -> bool {
        false
    }

    /// Whether blank lines of the body reach `parse_message` (paragraphs of a
    /// rule's text); most games read one command per non-blank line.
    const KEEPS_BLANK_LINES: bool = false;

    /// Reads a message's command lines: by default one command per line. A game
    /// whose command spans lines (a rule's text) groups them here.
    fn parse_message(
        lines: &[String],
        tag: &str,
    ) -> Vec<(String, Result<Self::Command, NotUnderstood>)> {
        lines
            .iter()
            .map(|line| (line.clone(), Self::parse(line, tag)))
            .collect()
    }

    /// How the state looks to the public (`state`, without `--private`).
    fn public_view(
        state: &Self::State,
        _view: &View<'_>,
        _params: &Self::Params,
    ) -> serde_json::Value {
        serde_json::to_value(state).unwrap_or(serde_json::Value::Null)
    }

    /// The whole state for the operator (`state NAME --private`).
    fn private_view(
        state: &Self::State,
        _view: &View<'_>,
        _params: &Self::Params,
    ) -> serde_json::Value {
        serde_json::to_value(state).unwrap_or(serde_json::Value::Null)
    }

    /// The state in words, for `state NAME` without `--json`; `None`: the JSON.
    /// `shown` is the view being shown (public or private); `now` the shell's time.
    fn state_text(
        _shown: &serde_json::Value,
        _state: &Self::State,
        _view: &View<'_>,
        _now: Timestamp,
    ) -> Option<String> {
        None
    }

    /// Each player's one score in this game, for `[nomic] standings` and the
    /// periodic reports, under a name that tells it from the nomic's points
    /// ("Gnomic score"). `None`: the game keeps no score, and the table says so.
    /// Only what the rules have revealed: never a secret.
    fn scores(_state: &Self::State, _view: &View<'_>) -> Option<Scores> {
        None
    }

    /// The game's running instances, for `[nomic] games` and the reports: who
    /// plays and whose turn it is. Their next deadline is read from the shared
    /// schedule by the instance's tag. Only what the rules have revealed.
    fn running(_state: &Self::State, _view: &View<'_>) -> Vec<Running> {
        Vec::new()
    }

    /// Pictures of the public state where people would rather look than read
    /// (the public record draws them on the game's page). Only what the rules
    /// have revealed: never a secret.
    fn pictures(_state: &Self::State, _view: &View<'_>) -> Vec<Picture> {
        Vec::new()
    }

    /// A short game, played by a script: `check` renders the mail it sends with
    /// the operator's templates, `demo --game NAME` plays it through the real
    /// pipeline, and the tests run it (the secrecy test among them). The players
    /// Mod (a moderator, and the keeper of the rules), Alice, Bob, Carol and Dave
    /// have joined, with 20 points each, and the four rules of the samples are in.
    fn sample(_script: &mut dyn Script) {}

    /// The live state without its finished history (which stays in the event
    /// log), or `None` when there is nothing to drop. Called after every step.
    fn retire(_state: &Self::State) -> Option<Self::State> {
        None
    }
}

/// What a game's sample plays on: the pure table of `check` and the tests, or
/// the real pipeline of `demo`. Players are named ("Alice"; "Mod" is the
/// moderator); times are minutes after the sample's start.
pub trait Script {
    /// One message of lines from a player, to the list (`public`) or the bot.
    fn send(&mut self, minutes: i64, from: &str, public: bool, tag: &str, lines: &[&str]);
    /// Lets time pass to `minutes` after the start: every deadline due fires.
    fn wait(&mut self, minutes: i64);
    /// A game's private view now (`state NAME --private --json`), to follow what
    /// was drawn at random.
    fn view(&self, game: &str) -> serde_json::Value;
    /// A line for the reader of the demo.
    fn say(&mut self, text: &str);
}

/// A game's scores (`Game::scores`): its name, and one score per player.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Scores {
    /// How the table names the score: never just "points", which are the nomic's.
    pub name: String,
    /// Each player's score, as the game writes it.
    pub of: Vec<(PlayerId, String)>,
}

/// Text for a picture's SVG: player names and the like are untrusted, so
/// everything XML gives a meaning to is escaped, and characters XML 1.0
/// forbids are dropped.
pub fn xml_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(' '),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

/// A drawing of a game's public state (`Game::pictures`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Picture {
    /// A short name, unique in the game, that its file is named after.
    pub name: String,
    /// An SVG document.
    pub svg: String,
    /// The same in words, for those who cannot see it.
    pub alt: String,
}

/// One running instance of a game (`Game::running`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Running {
    /// The tag its mail goes under (`ghost 2`): the owner of its deadlines.
    pub tag: String,
    /// What it is, shortly ("Duel", "turn 4 is being voted on").
    pub what: String,
    /// The players in it, by name.
    pub players: Vec<String>,
    /// Whose move the game waits for, if one player's.
    pub turn: Option<String>,
    /// Its next deadline, when the game knows it better than the earliest on
    /// the shared schedule under its tag (which may be a reminder's).
    pub deadline: Option<Timestamp>,
}

/// A deadline's moment as a game sees it besides `tx.at()`.
#[derive(Debug, Clone, Copy)]
pub struct Tick {
    /// The real time of this run: after a downtime, later than the deadline.
    pub caught_up_at: Timestamp,
    /// The secret of this instant (the same on every replay), for random draws.
    pub entropy: [u8; 32],
}

/// The event type of a part that records only shared events.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum NoEvent {}

/// Whether a command may be told to the list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Secrecy {
    Public,
    /// Secret until the game reveals it. `shown_as` is what the list may be told
    /// of it (a moderator's override of it is announced so): what it is, and when
    /// it is revealed, never what it says.
    Secret {
        shown_as: &'static str,
    },
}

impl Secrecy {
    pub fn is_secret(self) -> bool {
        matches!(self, Secrecy::Secret { .. })
    }
}

/// A change of a player's standing the games may react to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// The player left the nomic.
    Left(PlayerId),
    /// The player went on vacation.
    Vacation(PlayerId),
    /// The player was put in Gaol.
    Gaoled(PlayerId),
    /// The player joined the nomic.
    Joined(PlayerId),
}

impl Standing {
    /// The standing changes among shared events just recorded.
    pub fn of(event: &SharedEvent) -> Option<Standing> {
        match event {
            SharedEvent::Players(players::Event::Left { id }) => Some(Standing::Left(*id)),
            SharedEvent::Players(players::Event::VacationStarted { id, .. }) => {
                Some(Standing::Vacation(*id))
            }
            SharedEvent::Players(players::Event::Gaoled { id, .. }) => Some(Standing::Gaoled(*id)),
            SharedEvent::Players(players::Event::Joined { id, .. }) => Some(Standing::Joined(*id)),
            _ => None,
        }
    }
}

/// The world every game shares: the registry, the accounts, the ruleset, the
/// schedule, the Officer in charge of Random Things and the sealed box. Each part
/// is behind an `Arc`, so a transaction's scratch copy costs a few pointers and a
/// part is copied only when changed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Shared {
    pub players: Arc<Registry>,
    #[serde(default)]
    pub accounts: Arc<Accounts>,
    #[serde(default)]
    pub ruleset: Arc<Ruleset>,
    /// Every pending deadline a game set, with its reminders.
    #[serde(default)]
    pub schedule: Arc<Schedule>,
    /// The Officer in charge of Random Things.
    #[serde(default)]
    pub random: Arc<RandomOfficer>,
    /// Sealed actions, secret until their deadline.
    #[serde(default)]
    pub sealed: Arc<SealedBox>,
    /// The offices appointed and dismissed by mail.
    #[serde(default)]
    pub offices: Arc<Offices>,
    /// The entities that are not money (Gadgets, Trinkets, the Chartreuse Goose).
    #[serde(default)]
    pub inventory: Arc<Inventory>,
    /// The moderators' changes to the Games & Contests suite (rule 1250).
    #[serde(default)]
    pub contests: Arc<contests::Suite>,
}

/// An event of the shared world.
#[derive(Debug, Clone, PartialEq)]
pub enum SharedEvent {
    Players(players::Event),
    Accounts(accounts::Event),
    Ruleset(ruleset::Event),
    Schedule(calendar::Event),
    Random(random::Event),
    Sealed(sealed::Event),
    Offices(offices::Event),
    Inventory(inventory::Event),
    Contests(contests::Event),
}

impl Shared {
    pub fn apply_event(&mut self, event: &SharedEvent, at: Timestamp) {
        match event {
            SharedEvent::Players(e) => Arc::make_mut(&mut self.players).apply_event(e, at),
            SharedEvent::Accounts(e) => Arc::make_mut(&mut self.accounts).apply_event(e, at),
            SharedEvent::Ruleset(e) => Arc::make_mut(&mut self.ruleset).apply_event(e, at),
            SharedEvent::Schedule(e) => Arc::make_mut(&mut self.schedule).apply_event(e, at),
            SharedEvent::Random(e) => Arc::make_mut(&mut self.random).apply_event(e, at),
            SharedEvent::Sealed(e) => Arc::make_mut(&mut self.sealed).apply_event(e),
            SharedEvent::Offices(e) => Arc::make_mut(&mut self.offices).apply_event(e),
            SharedEvent::Inventory(e) => Arc::make_mut(&mut self.inventory).apply_event(e),
            SharedEvent::Contests(e) => Arc::make_mut(&mut self.contests).apply_event(e),
        }
    }

    /// Drops finished history from the live parts (it stays in the event log): the
    /// revealed sealed batches and the random periods whose seeds are published.
    /// A part with nothing to drop is not touched (nor copied).
    pub fn retire(&mut self) {
        if self.sealed.has_history() {
            Arc::make_mut(&mut self.sealed).retire();
        }
        if !self.random.past.is_empty() {
            Arc::make_mut(&mut self.random).past.clear();
        }
    }
}

/// Who holds which office, from bot.toml: the moderators, the keepers of the
/// rules, and every other office by the name the rules give it.
#[derive(Debug, Clone, Default)]
pub struct Officers {
    pub moderators: Vec<Address>,
    pub rules: Vec<Address>,
    pub offices: BTreeMap<String, Vec<Address>>,
    /// The offices the games name besides these (a game's moderator set in its
    /// own section), for the roster.
    pub of_games: Vec<(String, Vec<Address>)>,
    /// Addresses that hold no office in this step, whatever the lists above say:
    /// the sender of mail the shell could not authenticate (`mail::auth`). A game
    /// whose officers are not in these lists (a referee in its state, a moderator
    /// in its own section) asks `is_withdrawn`.
    pub withdrawn: Vec<Address>,
    /// The offices a moderator may appoint to by mail besides those above: the
    /// offices the rule texts name (`[officers] names`).
    pub known: Vec<String>,
}

impl Officers {
    pub fn is_moderator(&self, address: &Address) -> bool {
        self.moderators.contains(address) && !self.is_withdrawn(address)
    }

    /// Does `address` hold the office (named as in the rules, any case), wherever
    /// it is kept? A moderator holds every office: the moderators are the final
    /// arbiters, and bot.toml promises it, so a first day needs no `appoint`.
    /// Withdrawn (unauthenticated mail), an address holds none, the implied ones
    /// included.
    pub fn holds(&self, office: &str, address: &Address) -> bool {
        !self.is_withdrawn(address)
            && (self.is_moderator(address) || self.holders_of(office).contains(address))
    }

    /// May `address` change the rules and the glossary (`[ruleset] enact` ...)?
    pub fn keeps_the_rules(&self, address: &Address) -> bool {
        self.holds(super::offices::KEEPER, address)
    }

    /// Whether `address` lost every office for this step (unauthenticated mail).
    pub fn is_withdrawn(&self, address: &Address) -> bool {
        self.withdrawn.contains(address)
    }

    /// These officers with every office of `address` withdrawn: taken out of every
    /// list, and marked for the offices the games keep themselves.
    pub fn without(&self, address: &Address) -> Officers {
        let mut officers = self.clone();
        officers.moderators.retain(|a| a != address);
        officers.rules.retain(|a| a != address);
        for holders in officers.offices.values_mut() {
            holders.retain(|a| a != address);
        }
        for (_, holders) in &mut officers.of_games {
            holders.retain(|a| a != address);
        }
        officers.withdrawn.push(address.clone());
        officers
    }

    /// Who holds an office, from wherever it is kept: the keepers of the rules,
    /// an office of bot.toml, or one a game names (its own section's moderator).
    pub fn holders_of(&self, office: &str) -> Vec<Address> {
        if office.eq_ignore_ascii_case(super::offices::KEEPER) {
            return self.rules.clone();
        }
        self.holders(office)
            .or_else(|| {
                self.of_games
                    .iter()
                    .find(|(name, _)| name.eq_ignore_ascii_case(office))
                    .map(|(_, holders)| holders)
            })
            .cloned()
            .unwrap_or_default()
    }

    /// The holders bot.toml (or an earlier appointment) names for an office: not a
    /// game's default holder (the first moderator standing in for a vacant office),
    /// whom the first appointment replaces.
    pub fn configured(&self, office: &str) -> Vec<Address> {
        if office.eq_ignore_ascii_case(super::offices::KEEPER) {
            return self.rules.clone();
        }
        self.holders(office).cloned().unwrap_or_default()
    }

    /// Puts the holders of an office where `holders_of` finds them first.
    pub fn set_holders(&mut self, office: &str, holders: Vec<Address>) {
        if office.eq_ignore_ascii_case(super::offices::KEEPER) {
            self.rules = holders;
            return;
        }
        match self
            .offices
            .iter_mut()
            .find(|(name, _)| name.eq_ignore_ascii_case(office))
        {
            Some((_, current)) => *current = holders,
            None => {
                self.offices.insert(office.to_owned(), holders);
            }
        }
    }

    /// Every office a moderator may appoint to: the keepers of the rules, the
    /// offices of bot.toml, those the games name and those the rule texts name.
    pub fn office_names(&self) -> Vec<String> {
        let mut names: Vec<String> = vec![super::offices::KEEPER.to_owned()];
        let more = self
            .offices
            .keys()
            .chain(self.of_games.iter().map(|(name, _)| name))
            .chain(&self.known);
        for name in more {
            if !names.iter().any(|n| n.eq_ignore_ascii_case(name)) {
                names.push(name.clone());
            }
        }
        names
    }

    /// The holders the configuration names for an office, if it names the office.
    pub fn holders(&self, office: &str) -> Option<&Vec<Address>> {
        self.offices
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(office))
            .map(|(_, holders)| holders)
    }
}

/// What the configuration gives every game: the officers, the calendar and the
/// official dictionary.
#[derive(Clone)]
pub struct Setting {
    pub officers: Officers,
    /// Days, cycles and the reminders' lead time (bot.toml `[calendar]`).
    pub calendar: Calendar,
    /// The official dictionary of word games, loaded by the shell.
    pub lexicon: Arc<dyn Lexicon>,
    /// Every game's mechanics and the rules they follow (`Game::bindings`),
    /// from bot.toml: what `[ruleset] show` and `state` tell of a rule.
    pub bound: Arc<Vec<ruleset::bindings::Declared>>,
    /// `[bot] unrecorded_rules`: a game whose bound rules the registry never
    /// held plays by the baseline (true, "baseline" and "required") or applies
    /// none of them (false, "absent").
    pub baseline_when_unrecorded: bool,
    /// `[bot] unrecorded_rules = "required"`: such a game does not begin
    /// (`Game::begins`) until its rules are imported.
    pub rules_required: bool,
    /// The Games & Contests suite as shipped (every game's `Game::contests`);
    /// the moderators' changes are the shared part `contests`.
    pub contests: Arc<Vec<contests::Contest>>,
    /// The kinds of entity no player may hand on (`[accounts]
    /// untradeable_kinds`); a currency says it of itself (`tradeable`).
    pub untradeable_kinds: Arc<Vec<String>>,
}

impl Setting {
    /// Whether an inventory entity of `kind` is tradeable.
    pub fn is_tradeable(&self, kind: &str) -> bool {
        inventory::is_tradeable(kind, &self.untradeable_kinds)
    }
}

impl Default for Setting {
    fn default() -> Setting {
        Setting {
            officers: Officers::default(),
            calendar: Calendar::default(),
            lexicon: Arc::new(NoWords),
            bound: Arc::new(Vec::new()),
            baseline_when_unrecorded: true,
            rules_required: false,
            contests: Arc::new(Vec::new()),
            untradeable_kinds: Arc::new(
                inventory::UNTRADEABLE_KINDS
                    .iter()
                    .map(|k| (*k).to_owned())
                    .collect(),
            ),
        }
    }
}

impl Debug for Setting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Setting")
            .field("officers", &self.officers)
            .field("calendar", &self.calendar)
            .finish_non_exhaustive()
    }
}

/// The dictionary of a bot configured without one: no word is in it.
#[derive(Debug)]
pub struct NoWords;

impl Lexicon for NoWords {
    fn is_word(&self, _: &str) -> bool {
        false
    }
    fn is_inside_a_word(&self, _: &str) -> bool {
        false
    }
}

/// The shared world as a game reads it: the parts, and the setting.
#[derive(Clone, Copy)]
pub struct View<'a> {
    pub players: &'a Registry,
    pub accounts: &'a Accounts,
    pub ruleset: &'a Ruleset,
    pub schedule: &'a Schedule,
    pub random: &'a RandomOfficer,
    pub sealed: &'a SealedBox,
    pub offices: &'a Offices,
    pub inventory: &'a Inventory,
    pub contests: &'a contests::Suite,
    /// The suite as shipped (`Setting::contests`).
    pub shipped_contests: &'a [contests::Contest],
    pub calendar: &'a Calendar,
    pub officers: &'a Officers,
    pub lexicon: &'a dyn Lexicon,
    /// `Setting::baseline_when_unrecorded`.
    pub baseline_when_unrecorded: bool,
    /// `Setting::bound`: every game's mechanics and rules.
    pub bound: &'a [ruleset::bindings::Declared],
}

impl<'a> View<'a> {
    pub fn new(shared: &'a Shared, setting: &'a Setting) -> View<'a> {
        View {
            players: &shared.players,
            accounts: &shared.accounts,
            ruleset: &shared.ruleset,
            schedule: &shared.schedule,
            random: &shared.random,
            sealed: &shared.sealed,
            offices: &shared.offices,
            inventory: &shared.inventory,
            contests: &shared.contests,
            shipped_contests: &setting.contests,
            calendar: &setting.calendar,
            officers: &setting.officers,
            lexicon: setting.lexicon.as_ref(),
            baseline_when_unrecorded: setting.baseline_when_unrecorded,
            bound: &setting.bound,
        }
    }

    /// The Games & Contests suite as it stands: shipped, with the changes by mail.
    pub fn suite(&self) -> Vec<contests::Contest> {
        self.contests.suite(self.shipped_contests)
    }

    pub fn is_moderator(&self, address: &Address) -> bool {
        self.officers.is_moderator(address)
    }
}

/// One effect of a transaction, in the order it happened.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect<E> {
    /// An event of the game.
    Game(E),
    /// An event of the shared world (accounts, schedule, random officer, sealed box, ...).
    Shared(SharedEvent),
    /// A mail to send.
    Mail(Mail),
}

/// What a finished transaction hands back: the scratch world, the scratch
/// state of the game, and the effects in order.
pub type Finished<G> = (
    Shared,
    Arc<<G as Game>::State>,
    Vec<Effect<<G as Game>::Event>>,
);

/// A transaction: a scratch copy of the shared world and of one game's state, and
/// the effects recorded so far. Dropping it undoes everything.
#[must_use = "a transaction's effects must be taken, or the action is lost"]
pub struct Tx<'a, G: Game> {
    shared: Shared,
    state: Arc<G::State>,
    setting: &'a Setting,
    params: &'a G::Params,
    at: Timestamp,
    effects: Vec<Effect<G::Event>>,
}

impl<'a, G: Game> Tx<'a, G> {
    pub fn new(
        shared: Shared,
        state: Arc<G::State>,
        setting: &'a Setting,
        params: &'a G::Params,
        at: Timestamp,
    ) -> Tx<'a, G> {
        Tx {
            shared,
            state,
            setting,
            params,
            at,
            effects: Vec::new(),
        }
    }

    /// The moment of the transaction: the message's arrival, or the deadline.
    pub fn at(&self) -> Timestamp {
        self.at
    }

    pub fn view(&self) -> View<'_> {
        View::new(&self.shared, self.setting)
    }

    pub fn state(&self) -> &G::State {
        &self.state
    }

    pub fn params(&self) -> &'a G::Params {
        self.params
    }

    pub fn setting(&self) -> &'a Setting {
        self.setting
    }

    /// Records an event of the game and applies it to the scratch state.
    pub fn record(&mut self, event: G::Event) {
        G::apply_event(Arc::make_mut(&mut self.state), &event, self.at);
        self.effects.push(Effect::Game(event));
    }

    /// Records an event of the shared world and applies it to the scratch world.
    pub fn record_shared(&mut self, event: SharedEvent) {
        self.shared.apply_event(&event, self.at);
        self.effects.push(Effect::Shared(event));
    }

    pub fn mail(&mut self, mail: Mail) {
        self.effects.push(Effect::Mail(mail));
    }

    pub fn mail_all(&mut self, mail: impl IntoIterator<Item = Mail>) {
        for one in mail {
            self.mail(one);
        }
    }

    /// The effects so far, in order.
    pub fn effects(&self) -> &[Effect<G::Event>] {
        &self.effects
    }

    /// Ends the transaction: the scratch world, the scratch state and the effects.
    pub fn finish(self) -> Finished<G> {
        (self.shared, self.state, self.effects)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 24, item 1: the offices a moderator holds by being one go with the
    /// moderator's own when the mail is not authenticated.
    #[test]
    fn a_withdrawn_moderator_loses_the_offices_being_a_moderator_implies() {
        let moderator = Address::new("mod@nomic.example");
        let officers = Officers {
            moderators: vec![moderator.clone()],
            ..Officers::default()
        };
        assert!(officers.keeps_the_rules(&moderator));
        assert!(officers.holds("Officer in charge of Random Things", &moderator));
        let withdrawn = officers.without(&moderator);
        assert!(!withdrawn.is_moderator(&moderator));
        assert!(!withdrawn.keeps_the_rules(&moderator));
        assert!(!withdrawn.holds("Officer in charge of Random Things", &moderator));
    }

    #[test]
    fn a_keeper_of_the_rules_keeps_them_and_holds_no_other_office() {
        let keeper = Address::new("keeper@nomic.example");
        let officers = Officers {
            rules: vec![keeper.clone()],
            ..Officers::default()
        };
        assert!(officers.keeps_the_rules(&keeper));
        assert!(!officers.holds("Referee", &keeper));
        assert!(!officers.without(&keeper).keeps_the_rules(&keeper));
    }
}
