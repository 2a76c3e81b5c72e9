//! The `[rule tag]` game (the "Rule Tag" proposal: rules "Elements", "Rule Tag",
//! "rule tag invalid paths", "rule tag moderation", "rule tag basketball"): the bot
//! does the Rule Tag Moderator's work, the human moderator is the arbiter.
//!
//! Players declare actions during an nweek, by private mail to the bot or on the
//! list; the bot checks each against the ruleset registry and its glossary and keeps
//! the ones that count (the last of each type; the *first* element change). At the
//! end of the nweek, after that nweek's rule changes are in the registry, the turn
//! is processed in the rule's order and the two notifications go to the list.
//!
//! Pure, like the engine: time, sender and entropy come in; a command or the end of
//! an nweek returns `Change`s (to this game, the accounts, the random officer, the
//! schedule and the glossary) that the router records. Private actions never reach
//! public mail or the public state before the end of their nweek.

use std::collections::BTreeMap;

use num_rational::BigRational;
use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::engine::accounts::{self, Accounts, Holder};
use crate::engine::calendar::{self, Calendar, Cycle, Deadline};
use crate::engine::players::{PlayerId, Registry};
use crate::engine::random::{self, DrawError, RandomOfficer};
use crate::engine::ruleset::{self, Ruleset};
use crate::engine::{
    Address, Audience, Ctx, Done, Mail, NotUnderstood, Refusal, Sentence, Timestamp, human_time,
    split_verb,
};

pub const TAG: &str = "rule tag";

/// The office the rule creates (rule "rule tag moderation").
pub const OFFICE: &str = "Rule Tag Moderator";

/// The two RTOs of rule "rule tag basketball", in the order grabs are resolved.
pub const BALL: &str = "rule tag ball";
pub const GOAL: &str = "rule tag goal";

/// Every number of the rule texts, from bot.toml `[ruletag]`, with the texts' values
/// as defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// The calendar cycle the rules call the nweek.
    pub cycle: String,
    /// "All rule tag actions must be made before the end of nday 8."
    pub actions_close_after_nday: u32,
    /// The moderator's notifications: "no later than nday 2" of the next nweek.
    pub notify_by_nday: u32,
    /// Hours after the end of the nweek the turn is processed: time for the rules
    /// officer to put the nweek's passed proposals into the registry ("after passed
    /// proposals have been enacted into the rules"). 0: at the end of the nweek.
    pub process_delay_hours: u32,
    /// The currency points are paid in.
    pub currency: String,
    /// Elemental Tag Resolve: what a losing player gives the winner.
    pub elemental_points: i64,
    /// Basketball Resolve: what the ball's holder on the goal's RTL gains.
    pub basket_points: i64,
    /// Penalties: moved to null this turn.
    pub null_move_penalty: i64,
    /// Penalties: RTL rule no longer exists (and the RTL is set to null).
    pub rule_gone_penalty: i64,
    /// Penalties: RTL rule changed this nweek.
    pub rule_changed_penalty: i64,
    /// The moderator's award, per nweek.
    pub moderator_award: i64,
    /// The moderator's censure when the notifications are late.
    pub moderator_censure: i64,
    /// Grab Actions (i) read literally: every possessed RTO is dropped at the end of
    /// every turn, grabbed or not. Off (the default): only an RTO someone grabbed is
    /// knocked loose. See docs/rulings.md.
    pub drop_possessed_without_grab: bool,
    /// Rule "rule tag invalid paths": terms that never link two rules.
    pub invalid_terms: Vec<String>,
    /// The Rule Tag Moderator's address; when empty, the holder of the office in
    /// `[officers.offices]`, else the first of `bot.moderators`.
    pub moderator: Option<String>,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            cycle: "nweek".to_owned(),
            actions_close_after_nday: 8,
            notify_by_nday: 2,
            process_delay_hours: 0,
            currency: "points".to_owned(),
            elemental_points: 15,
            basket_points: 25,
            null_move_penalty: 10,
            rule_gone_penalty: 25,
            rule_changed_penalty: 10,
            moderator_award: 10,
            moderator_censure: 20,
            drop_possessed_without_grab: false,
            invalid_terms: vec!["Object".into(), "Game Object".into(), "Player".into()],
            moderator: None,
        }
    }
}

/// What the game needs from the rest of the world for one command or one turn.
pub struct Env<'a> {
    pub players: &'a Registry,
    pub ruleset: &'a Ruleset,
    pub accounts: &'a Accounts,
    pub random: &'a RandomOfficer,
    pub calendar: &'a Calendar,
    pub params: &'a Params,
    /// The Rule Tag Moderator's address, resolved from config.
    pub moderator: Option<&'a Address>,
    /// Bot moderators and the Rule Tag Moderator may use the moderator's commands.
    pub is_officer: bool,
}

/// Attribute "element" (rule "Elements").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Element {
    #[default]
    Earth,
    Air,
    Fire,
    Water,
}

impl Element {
    fn from_word(word: &str) -> Option<Element> {
        match word.trim().trim_matches('"').to_lowercase().as_str() {
            "earth" => Some(Element::Earth),
            "air" => Some(Element::Air),
            "fire" => Some(Element::Fire),
            "water" => Some(Element::Water),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Element::Earth => "Earth",
            Element::Air => "Air",
            Element::Fire => "Fire",
            Element::Water => "Water",
        }
    }

    /// "Earth beats Water; Water beats Fire; Fire beats Air; Air beats Earth; all
    /// other combinations are neutral."
    pub fn beats(self, other: Element) -> bool {
        matches!(
            (self, other),
            (Element::Earth, Element::Water)
                | (Element::Water, Element::Fire)
                | (Element::Fire, Element::Air)
                | (Element::Air, Element::Earth)
        )
    }
}

/// A rule tag location: a rule number, or null (`None`).
pub type Rtl = Option<u32>;

fn rtl_text(rtl: Rtl) -> String {
    rtl.map_or_else(|| "null".to_owned(), |n| n.to_string())
}

/// A player's attributes in the game. Players not listed have the defaults.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standing {
    pub element: Element,
    pub rtl: Rtl,
}

/// Standings as a list of `[player, standing]` pairs: a map with number keys does
/// not survive serde's internally tagged enums (the event log's `Event`).
mod as_pairs {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use super::Standing;
    use crate::engine::players::PlayerId;

    pub fn serialize<S: Serializer>(
        map: &BTreeMap<PlayerId, Standing>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let pairs: Vec<(&PlayerId, &Standing)> = map.iter().collect();
        pairs.serialize(serializer)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<BTreeMap<PlayerId, Standing>, D::Error> {
        let pairs: Vec<(PlayerId, Standing)> = Vec::deserialize(deserializer)?;
        Ok(pairs.into_iter().collect())
    }
}

/// A rule tag object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rto {
    pub name: String,
    pub rtl: Rtl,
    /// The player in possession of it.
    pub holder: Option<PlayerId>,
}

/// One declared action, as it counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    Element {
        element: Element,
    },
    Move {
        from: Rtl,
        to: Rtl,
        /// The game term linking the two rules (none from or to null).
        term: Option<String>,
    },
    Grab {
        object: String,
        points: i64,
    },
    Drop {
        object: String,
    },
}

impl Action {
    pub fn kind(&self) -> ActionKind {
        match self {
            Action::Element { .. } => ActionKind::Element,
            Action::Move { .. } => ActionKind::Move,
            Action::Grab { .. } => ActionKind::Grab,
            Action::Drop { .. } => ActionKind::Drop,
        }
    }

    /// The action as the notifications list it.
    fn describe(&self) -> serde_json::Value {
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    Element,
    Move,
    Grab,
    Drop,
}

impl ActionKind {
    fn from_word(word: &str) -> Option<ActionKind> {
        match word.to_lowercase().as_str() {
            "element" | "element-change" => Some(ActionKind::Element),
            "move" => Some(ActionKind::Move),
            "grab" => Some(ActionKind::Grab),
            "drop" => Some(ActionKind::Drop),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ActionKind::Element => "element",
            ActionKind::Move => "move",
            ActionKind::Grab => "grab",
            ActionKind::Drop => "drop",
        }
    }
}

/// An action that counts this nweek, with who made it and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Declared {
    /// The nweek the action is for: while a processing delay runs, the next
    /// nweek's actions are taken before the last one is processed.
    pub nweek: i64,
    pub player: PlayerId,
    pub action: Action,
    pub at: Timestamp,
    /// Declared on the list: anyone may see it at once.
    pub public: bool,
}

/// What the end of one nweek did: the two notifications' content, kept in the
/// state as the record of the last turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub nweek: i64,
    pub processed_at: Option<Timestamp>,
    /// Notification 1 (i): the valid actions of each player.
    pub actions: Vec<serde_json::Value>,
    /// Notification 1 (ii): each player's RTL and element, before the turn.
    pub standings: Vec<serde_json::Value>,
    /// Notification 2 (i): each player's change in score due to rule tag.
    pub score_changes: Vec<serde_json::Value>,
    /// Notification 2 (ii): each RTO's RTL and holder after the turn.
    pub objects: Vec<serde_json::Value>,
    /// Notification 2 (iii): every other change, step by step.
    pub changes: Vec<serde_json::Value>,
    /// The notifications were mailed after the nday-2 limit: the moderator is censured.
    pub late: bool,
}

/// The game's state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RuleTag {
    /// When a moderator started the game; nothing counts before.
    pub started_at: Option<Timestamp>,
    /// The nweek whose actions are being collected.
    pub nweek: i64,
    #[serde(with = "as_pairs")]
    pub standings: BTreeMap<PlayerId, Standing>,
    pub objects: Vec<Rto>,
    /// This nweek's counted actions: at most one of each type per player.
    pub actions: Vec<Declared>,
    pub last_report: Option<Report>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Started {
        nweek: i64,
        objects: Vec<Rto>,
    },
    /// An action that counts; it replaces the player's earlier one of its type.
    Declared {
        declared: Declared,
    },
    /// A moderator voided a player's counted action.
    Voided {
        player: PlayerId,
        action: ActionKind,
        nweek: i64,
        by: Address,
        reason: String,
    },
    /// A moderator moved an RTO (it is no longer possessed).
    Relocated {
        object: String,
        rtl: u32,
        by: Address,
        reason: String,
    },
    /// The end of an nweek: the new standings and objects, and what happened.
    NweekEnded {
        #[serde(with = "as_pairs")]
        standings: BTreeMap<PlayerId, Standing>,
        objects: Vec<Rto>,
        report: Report,
    },
}

/// Every change a command or the end of an nweek makes, across the services it uses.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    RuleTag(Event),
    Accounts(accounts::Event),
    Random(random::Event),
    Schedule(calendar::Event),
    Ruleset(ruleset::Event),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Element change, grab or drop.
    Act(Action),
    /// A move as written: `from` is the current RTL the player showed, if any.
    Move {
        from: Option<Rtl>,
        to: Rtl,
        term: Option<String>,
    },
    Status,
    /// A moderator's: begin the game, placing the RTOs at random.
    Start,
    /// A moderator's: void a player's counted action of one type.
    Void {
        name: String,
        kind: ActionKind,
        reason: String,
    },
    /// A moderator's: move an RTO.
    Relocate {
        object: String,
        rtl: u32,
        reason: String,
    },
    /// A moderator's ruling on a disputed game term: it is (or is not) defined in a rule.
    Term {
        term: String,
        number: u32,
        defined: bool,
        reason: String,
    },
}

const COMMANDS: &str = "element FIRE, move from 325 to 42 via \"score\", move to null, \
    grab ball 5, drop ball, status, help (moderators: start, void NAME move because REASON, \
    relocate ball to 42 because REASON, term \"score\" defined in 42 because REASON)";

fn usage(usage: &str) -> NotUnderstood {
    NotUnderstood(Sentence::new("usage").arg("usage", usage))
}

/// "325", "#325", "rule 325", "null".
fn parse_rtl(text: &str) -> Option<Rtl> {
    let text = text.trim().trim_matches('"');
    if text.eq_ignore_ascii_case("null") {
        return Some(None);
    }
    let text = match text.get(..5) {
        Some(prefix) if prefix.eq_ignore_ascii_case("rule ") => text[5..].trim_start(),
        _ => text,
    };
    text.strip_prefix('#')
        .unwrap_or(text)
        .parse()
        .ok()
        .map(Some)
}

fn unquote(text: &str) -> String {
    let quotes: &[char] = &['"', '“', '”', '\''];
    let text = text.trim().trim_end_matches('.').trim();
    text.strip_prefix(quotes)
        .and_then(|inner| inner.strip_suffix(quotes))
        .unwrap_or(text)
        .trim()
        .to_owned()
}

/// The RTO a player means: "ball", "the ball", "rule tag ball", any case.
pub fn object_name(written: &str) -> String {
    let lower = unquote(written).to_lowercase();
    let lower = lower.strip_prefix("the ").unwrap_or(&lower).trim();
    let short = lower.strip_prefix("rule tag ").unwrap_or(lower).trim();
    format!("rule tag {short}")
}

/// Splits `text` at the first of the whole words in `words`, outside quotes.
fn split_word<'t>(text: &'t str, words: &[&str]) -> Option<(&'t str, &'t str)> {
    let mut in_quotes = false;
    for (at, c) in text.char_indices() {
        if c == '"' || c == '“' || c == '”' {
            in_quotes = !in_quotes;
        }
        if in_quotes || !(at == 0 || text[..at].ends_with(char::is_whitespace)) {
            continue;
        }
        for word in words {
            let end = at + word.len();
            if text.len() >= end
                && text.is_char_boundary(end)
                && text[at..end].eq_ignore_ascii_case(word)
                && text[end..].chars().next().is_none_or(char::is_whitespace)
            {
                return Some((&text[..at], &text[end..]));
            }
        }
    }
    None
}

fn parse_move(rest: &str) -> Result<Command, NotUnderstood> {
    let usage = || usage("move from CURRENT to NEW via \"TERM\" (or: move to null)");
    let (places, term) = match split_word(rest, &["via", "using", "through", "by"]) {
        Some((places, term)) => (places, Some(unquote(term)).filter(|t| !t.is_empty())),
        None => (rest, None),
    };
    let (from, to) = split_word(places, &["to"]).ok_or_else(usage)?;
    let from = from.trim();
    let from = match split_word(from, &["from"]) {
        Some((before, from)) if before.trim().is_empty() => {
            Some(parse_rtl(from).ok_or_else(usage)?)
        }
        Some(_) => return Err(usage()),
        None if from.is_empty() => None,
        None => Some(parse_rtl(from).ok_or_else(usage)?),
    };
    let to = parse_rtl(to).ok_or_else(usage)?;
    Ok(Command::Move { from, to, term })
}

fn parse_grab(rest: &str) -> Result<Action, NotUnderstood> {
    let usage = || usage("grab OBJECT POINTS (as in: grab ball 5)");
    let words: Vec<&str> = rest.split_whitespace().collect();
    let at = words
        .iter()
        .rposition(|w| w.trim_start_matches(['-', '+']).parse::<u64>().is_ok())
        .ok_or_else(usage)?;
    let points: i64 = words[at].parse().map_err(|_| usage())?;
    let object: Vec<&str> = words[..at]
        .iter()
        .copied()
        .filter(|w| !w.eq_ignore_ascii_case("for") && !w.eq_ignore_ascii_case("with"))
        .collect();
    let trailing_ok = words[at + 1..]
        .iter()
        .all(|w| matches!(w.to_lowercase().as_str(), "points" | "point" | "pts"));
    if object.is_empty() || !trailing_ok {
        return Err(usage());
    }
    Ok(Action::Grab {
        object: object_name(&object.join(" ")),
        points,
    })
}

/// `... because REASON`: the reason is required, because an override is announced with it.
fn with_reason<'t>(rest: &'t str, usage_text: &str) -> Result<(&'t str, String), NotUnderstood> {
    match rest.split_once(" because ") {
        Some((what, reason)) if !reason.trim().is_empty() => {
            Ok((what.trim(), reason.trim().to_owned()))
        }
        _ => Err(usage(usage_text)),
    }
}

/// Reads one `[rule tag]` command line.
pub fn parse(line: &str) -> Result<Command, NotUnderstood> {
    let (verb, rest) = split_verb(line);
    match verb.as_str() {
        "element" | "element:" => {
            let rest = rest.strip_prefix("change").unwrap_or(rest).trim();
            let rest = rest.strip_prefix("to ").unwrap_or(rest);
            Element::from_word(rest)
                .map(|element| Command::Act(Action::Element { element }))
                .ok_or_else(|| usage("element EARTH|AIR|FIRE|WATER"))
        }
        "move" => parse_move(rest),
        "grab" => parse_grab(rest).map(Command::Act),
        "drop" if !rest.is_empty() => Ok(Command::Act(Action::Drop {
            object: object_name(rest),
        })),
        "drop" => Err(usage("drop OBJECT (as in: drop ball)")),
        "status" if rest.is_empty() => Ok(Command::Status),
        "start" if rest.is_empty() => Ok(Command::Start),
        "void" => {
            let text = "void PLAYER element|move|grab|drop because REASON";
            let (what, reason) = with_reason(rest, text)?;
            let (name, kind) = what
                .rsplit_once(char::is_whitespace)
                .ok_or_else(|| usage(text))?;
            let kind = ActionKind::from_word(kind).ok_or_else(|| usage(text))?;
            Ok(Command::Void {
                name: name.trim().to_owned(),
                kind,
                reason,
            })
        }
        "relocate" => {
            let text = "relocate OBJECT to RULE because REASON";
            let (what, reason) = with_reason(rest, text)?;
            let (object, rtl) = split_word(what, &["to"]).ok_or_else(|| usage(text))?;
            match parse_rtl(rtl) {
                Some(Some(rtl)) if !object.trim().is_empty() => Ok(Command::Relocate {
                    object: object_name(object),
                    rtl,
                    reason,
                }),
                _ => Err(usage(text)),
            }
        }
        "term" => {
            let text = "term \"TERM\" defined in RULE because REASON (or: not defined in)";
            let (what, reason) = with_reason(rest, text)?;
            let (term, number) = split_word(what, &["in"]).ok_or_else(|| usage(text))?;
            let number = match parse_rtl(number) {
                Some(Some(number)) => number,
                _ => return Err(usage(text)),
            };
            let term = term.trim();
            let (term, defined) = if let Some((term, _)) = split_word(term, &["not"]) {
                (term, false)
            } else if let Some((term, _)) = split_word(term, &["defined", "is"]) {
                (term, true)
            } else {
                return Err(usage(text));
            };
            let term = unquote(term);
            if term.is_empty() {
                return Err(usage(text));
            }
            Ok(Command::Term {
                term,
                number,
                defined,
                reason,
            })
        }
        _ => Err(NotUnderstood(
            Sentence::new("unknown_command")
                .arg("tag", TAG)
                .arg("commands", COMMANDS),
        )),
    }
}

/// The deadline that ends nweek `nweek`.
pub fn end_deadline_id(nweek: i64) -> String {
    format!("rule tag:end:{nweek}")
}

/// The nweek a fired deadline ends, if it is one of this game's.
pub fn nweek_of_deadline(id: &str) -> Option<i64> {
    id.strip_prefix("rule tag:end:")?.parse().ok()
}

fn refused(code: &str) -> Refusal {
    Refusal(Sentence::new(code))
}

fn points(n: i64) -> BigRational {
    BigRational::from_integer(n.into())
}

/// The moments of one nweek that the rules name.
struct Times {
    nweek: i64,
    start: Timestamp,
    /// Actions are valid strictly before this: the end of nday 8.
    actions_close: Timestamp,
    /// The end of the nweek plus the processing delay: when the turn is processed.
    process_at: Timestamp,
    /// The end of nday 2 of the next nweek: the notifications' limit.
    notify_by: Timestamp,
}

fn cycle<'a>(env: &Env<'a>) -> Result<&'a Cycle, Refusal> {
    env.calendar
        .cycle(&env.params.cycle)
        .ok_or_else(|| Refusal(Sentence::new("ruletag_no_cycle").arg("cycle", &env.params.cycle)))
}

fn times(env: &Env, nweek: i64) -> Result<Times, Refusal> {
    let cycle = cycle(env)?;
    let bad = |e: calendar::CalendarError| {
        Refusal(Sentence::new("ruletag_calendar").arg("error", e.to_string()))
    };
    let start = env.calendar.unit_start(cycle, nweek, 1).map_err(bad)?;
    let actions_close = env
        .calendar
        .unit_end(
            cycle,
            nweek,
            env.params.actions_close_after_nday.min(cycle.units),
        )
        .map_err(bad)?;
    let end = env
        .calendar
        .unit_end(cycle, nweek, cycle.units)
        .map_err(bad)?;
    let process_at = end
        .checked_add(jiff::SignedDuration::from_hours(i64::from(
            env.params.process_delay_hours,
        )))
        .map_err(|_| bad(calendar::CalendarError::OutOfRange))?;
    let notify_by = env
        .calendar
        .unit_end(
            cycle,
            nweek + 1,
            env.params.notify_by_nday.clamp(1, cycle.units),
        )
        .map_err(bad)?;
    Ok(Times {
        nweek,
        start,
        actions_close,
        process_at,
        notify_by,
    })
}

fn end_deadline(nweek: i64, at: Timestamp) -> Change {
    Change::Schedule(calendar::Event::Scheduled {
        deadline: Deadline {
            id: end_deadline_id(nweek),
            at,
            owner: TAG.to_owned(),
            who: None,
            what: format!("the end of rule tag nweek {nweek}"),
            remind: false,
        },
    })
}

/// Draws a rule number at random from `candidates`, through the random officer: in
/// the running period, or in one opened for the purpose (its commitment is published
/// with the draw; it stays open, so later draws are committed in advance).
fn draw_rule(
    random: &mut RandomOfficer,
    changes: &mut Vec<Change>,
    mail: &mut Vec<Mail>,
    entropy: [u8; 32],
    candidates: &[u32],
    purpose: &str,
    at: Timestamp,
) -> Result<u32, DrawError> {
    if let Some(event) = random.open_if_idle(TAG, entropy, at)? {
        mail.extend(
            random
                .current
                .as_ref()
                .map(|record| record.started_mail(TAG)),
        );
        changes.push(Change::Random(event));
    }
    let n = u32::try_from(candidates.len()).unwrap_or(u32::MAX);
    let (index, event) = random.below(n, purpose, at)?;
    random.apply_event(&event, at);
    changes.push(Change::Random(event));
    // `below(n)` is under n, the number of candidates.
    candidates
        .get(index as usize)
        .copied()
        .ok_or(DrawError::Impossible {
            kind: random::DrawKind::Below { n },
            why: "the draw fell outside the candidates",
        })
}

impl RuleTag {
    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        match event {
            Event::Started { nweek, objects } => {
                self.started_at = Some(at);
                self.nweek = *nweek;
                self.objects = objects.clone();
                self.actions.clear();
            }
            Event::Declared { declared } => {
                let kind = declared.action.kind();
                self.actions.retain(|d| {
                    !(d.player == declared.player
                        && d.action.kind() == kind
                        && d.nweek == declared.nweek)
                });
                self.actions.push(declared.clone());
            }
            Event::Voided {
                player,
                action,
                nweek,
                ..
            } => {
                self.actions.retain(|d| {
                    !(d.player == *player && d.action.kind() == *action && d.nweek == *nweek)
                });
            }
            Event::Relocated { object, rtl, .. } => {
                if let Some(rto) = self.objects.iter_mut().find(|o| &o.name == object) {
                    rto.rtl = Some(*rtl);
                    rto.holder = None;
                }
            }
            Event::NweekEnded {
                standings,
                objects,
                report,
            } => {
                self.standings = standings.clone();
                self.objects = objects.clone();
                self.actions.retain(|d| d.nweek > report.nweek);
                self.nweek = report.nweek + 1;
                self.last_report = Some(report.clone());
            }
        }
    }

    pub fn is_running(&self) -> bool {
        self.started_at.is_some()
    }

    pub fn standing(&self, player: PlayerId) -> Standing {
        self.standings.get(&player).cloned().unwrap_or_default()
    }

    pub fn object(&self, name: &str) -> Option<&Rto> {
        self.objects.iter().find(|o| o.name == name)
    }

    fn counted(&self, player: PlayerId, kind: ActionKind, nweek: i64) -> Option<&Declared> {
        self.actions
            .iter()
            .find(|d| d.player == player && d.action.kind() == kind && d.nweek == nweek)
    }

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
        params: &Params,
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
                    "points": accounts::amount_text(&accounts.balance(Holder::Player(p.id), &params.currency)),
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
        json!({
            "running": self.is_running(),
            "nweek": self.nweek,
            "players": standings,
            "objects": objects,
            "actions": actions,
            "last_report": self.last_report,
        })
    }

    pub fn apply(&self, command: Command, ctx: &Ctx, env: &Env) -> Result<Done<Change>, Refusal> {
        let officer_only = matches!(
            command,
            Command::Start | Command::Void { .. } | Command::Relocate { .. } | Command::Term { .. }
        );
        if officer_only && !env.is_officer {
            return Err(Refusal(Sentence::new("office_only").arg("office", OFFICE)));
        }
        match command {
            Command::Start => self.start(ctx, env),
            Command::Status => Ok(Done {
                events: Vec::new(),
                mail: Vec::new(),
                sentence: Sentence::new("ruletag_status").arg(
                    "state",
                    self.public_view()
                        .view(env.players, env.accounts, env.params),
                ),
            }),
            Command::Act(action) => self.act(action, ctx, env),
            Command::Move { from, to, term } => {
                let (player, _) = self.gate(false, ctx, env)?;
                let current = self.standing(player.id).rtl;
                self.check_move(current, from, to, term.as_deref(), env)?;
                // The term as the glossary writes it, not as the player typed it.
                let term = term
                    .filter(|_| current.is_some() && to.is_some())
                    .map(|t| env.ruleset.term(&t).map_or(t, |known| known.term.clone()));
                self.act(
                    Action::Move {
                        from: current,
                        to,
                        term,
                    },
                    ctx,
                    env,
                )
            }
            Command::Void { name, kind, reason } => self.void(&name, kind, &reason, ctx, env),
            Command::Relocate {
                object,
                rtl,
                reason,
            } => self.relocate(&object, rtl, &reason, ctx, env),
            Command::Term {
                term,
                number,
                defined,
                reason,
            } => {
                if !env.ruleset.exists(number) {
                    return Err(Refusal(
                        Sentence::new("ruletag_no_rule").arg("number", number),
                    ));
                }
                let event = if defined {
                    ruleset::Event::TermDefined {
                        term: term.clone(),
                        number,
                    }
                } else {
                    ruleset::Event::TermUndefined {
                        term: term.clone(),
                        number,
                    }
                };
                Ok(Done {
                    events: vec![Change::Ruleset(event)],
                    mail: vec![self.override_mail(
                        ctx,
                        json!({"what": "term", "term": term, "number": number, "defined": defined}),
                        &reason,
                    )],
                    sentence: Sentence::new("ruletag_term_ruled")
                        .arg("term", term)
                        .arg("number", number)
                        .arg("defined", defined),
                })
            }
        }
    }

    fn override_mail(&self, ctx: &Ctx, what: serde_json::Value, reason: &str) -> Mail {
        Mail::new(
            Audience::List,
            TAG,
            "ruletag_override",
            json!({
                "officer": ctx.sender, "what": what, "reason": reason,
                "at": human_time(ctx.now), "nweek": self.nweek,
            }),
        )
    }

    /// A moderator starts the game: the RTOs get random (non-null) starting RTLs,
    /// two different rules, and the end of this nweek is scheduled.
    fn start(&self, ctx: &Ctx, env: &Env) -> Result<Done<Change>, Refusal> {
        if self.is_running() {
            return Err(refused("ruletag_already_started"));
        }
        let rules: Vec<u32> = env.ruleset.rules.iter().map(|r| r.number).collect();
        if rules.len() < 2 {
            return Err(Refusal(
                Sentence::new("ruletag_too_few_rules").arg("count", rules.len()),
            ));
        }
        let cycle = cycle(env)?;
        let position = env
            .calendar
            .cycle_position(cycle, ctx.now)
            .map_err(|e| Refusal(Sentence::new("ruletag_calendar").arg("error", e.to_string())))?;
        let nweek = position.cycle_index;
        let times = times(env, nweek)?;
        let mut changes = Vec::new();
        let mut mail = Vec::new();
        let mut random = env.random.clone();
        let refuse = |e: DrawError| Refusal(e.sentence());
        let ball = draw_rule(
            &mut random,
            &mut changes,
            &mut mail,
            ctx.entropy,
            &rules,
            "starting RTL of the rule tag ball",
            ctx.now,
        )
        .map_err(refuse)?;
        let others: Vec<u32> = rules.iter().copied().filter(|n| *n != ball).collect();
        let goal = draw_rule(
            &mut random,
            &mut changes,
            &mut mail,
            ctx.entropy,
            &others,
            "starting RTL of the rule tag goal",
            ctx.now,
        )
        .map_err(refuse)?;
        let objects = vec![
            Rto {
                name: BALL.to_owned(),
                rtl: Some(ball),
                holder: None,
            },
            Rto {
                name: GOAL.to_owned(),
                rtl: Some(goal),
                holder: None,
            },
        ];
        changes.push(Change::RuleTag(Event::Started {
            nweek,
            objects: objects.clone(),
        }));
        changes.push(end_deadline(nweek, times.process_at));
        let values = json!({
            "by": ctx.sender, "at": human_time(ctx.now), "nweek": nweek,
            "ball": ball, "goal": goal,
            "actions_close": human_time(times.actions_close),
            "process_at": human_time(times.process_at),
            "closed_already": ctx.now >= times.actions_close,
            "moderator": env.moderator,
        });
        mail.push(Mail::new(Audience::List, TAG, "ruletag_started", values));
        Ok(Done {
            events: changes,
            mail,
            sentence: Sentence::new("ruletag_started")
                .arg("ball", ball)
                .arg("goal", goal)
                .arg("process_at", human_time(times.process_at)),
        })
    }

    /// Who may act now: the game runs, the sender is a player, nday 8 is not over.
    fn gate<'w>(
        &self,
        element: bool,
        ctx: &Ctx,
        env: &Env<'w>,
    ) -> Result<(&'w crate::engine::players::Player, Times), Refusal> {
        if !self.is_running() {
            return Err(refused("ruletag_not_started"));
        }
        let player = env.players.active_by_address(&ctx.sender).ok_or_else(|| {
            Refusal(Sentence::new("not_a_player").arg("address", ctx.sender.as_str()))
        })?;
        let times = times(env, self.nweek)?;
        // While a processing delay runs, the next nweek has begun but its actions
        // cannot be judged yet: they start from where this turn leaves everyone.
        let cycle = cycle(env)?;
        let now_in = env
            .calendar
            .cycle_position(cycle, ctx.now)
            .map_or(self.nweek, |position| position.cycle_index);
        if now_in > self.nweek {
            return Err(Refusal(
                Sentence::new("ruletag_processing")
                    .arg("nweek", self.nweek)
                    .arg("process_at", human_time(times.process_at)),
            ));
        }
        if ctx.now >= times.actions_close {
            return Err(Refusal(
                Sentence::new("ruletag_late")
                    .arg("rule", if element { "Elements" } else { "Rule Tag" })
                    .arg("nweek", times.nweek)
                    .arg("closed", human_time(times.actions_close))
                    .arg("next_open", human_time(times.process_at)),
            ));
        }
        Ok((player, times))
    }

    fn act(&self, action: Action, ctx: &Ctx, env: &Env) -> Result<Done<Change>, Refusal> {
        let (player, times) = self.gate(matches!(action, Action::Element { .. }), ctx, env)?;
        let standing = self.standing(player.id);
        let is_moderator = env.moderator == Some(&player.address)
            || env.moderator.is_some_and(|m| player.has_address(m));
        // Rule "rule tag moderation" 1): the moderator makes no rule tag action but a
        // move to null. An element change is a game action of rule "Elements", not a
        // rule tag action, so it stays open to em.
        if is_moderator
            && !matches!(
                action,
                Action::Element { .. } | Action::Move { to: None, .. }
            )
        {
            return Err(refused("ruletag_moderator_only_null"));
        }
        let mut note = None;
        match &action {
            Action::Element { .. } => {
                if let Some(Declared {
                    action: Action::Element { element },
                    ..
                }) = self.counted(player.id, ActionKind::Element, times.nweek)
                {
                    return Err(Refusal(
                        Sentence::new("ruletag_element_ignored").arg("element", element.as_str()),
                    ));
                }
            }
            Action::Move { .. } => {}
            Action::Grab { object, points } => {
                let rto = self
                    .object(object)
                    .ok_or_else(|| self.no_such_object(object))?;
                if *points < 0 {
                    return Err(refused("ruletag_grab_negative"));
                }
                let have = env
                    .accounts
                    .balance(Holder::Player(player.id), &env.params.currency);
                if points_of(&have) < *points {
                    return Err(Refusal(
                        Sentence::new("ruletag_grab_more_than_held")
                            .arg("points", points)
                            .arg("have", accounts::amount_human(&have)),
                    ));
                }
                let moving_to = match self.counted(player.id, ActionKind::Move, times.nweek) {
                    Some(Declared {
                        action: Action::Move { to, .. },
                        ..
                    }) => Some(*to),
                    _ => None,
                };
                if rto.rtl != standing.rtl && moving_to != Some(rto.rtl) {
                    note = Some(
                        json!({"object": object, "object_rtl": rtl_text(rto.rtl), "rtl": rtl_text(standing.rtl)}),
                    );
                }
            }
            Action::Drop { object } => {
                let rto = self
                    .object(object)
                    .ok_or_else(|| self.no_such_object(object))?;
                if rto.holder != Some(player.id) {
                    return Err(Refusal(
                        Sentence::new("ruletag_drop_not_held").arg("object", object),
                    ));
                }
            }
        }
        let replaced = self
            .counted(player.id, action.kind(), times.nweek)
            .is_some();
        let declared = Declared {
            nweek: times.nweek,
            player: player.id,
            action: action.clone(),
            at: ctx.now,
            public: ctx.public,
        };
        let mut sentence = Sentence::new("ruletag_declared")
            .arg("action", action.describe())
            .arg("replaced", replaced)
            .arg("nweek", times.nweek)
            .arg("closes", human_time(times.actions_close))
            .arg("public", ctx.public);
        sentence = sentence.arg("grab_note", note);
        Ok(Done {
            events: vec![Change::RuleTag(Event::Declared { declared })],
            mail: Vec::new(),
            sentence,
        })
    }

    /// Move validity, clause by clause; each refusal names the clause it fails.
    fn check_move(
        &self,
        current: Rtl,
        shown: Option<Rtl>,
        to: Rtl,
        term: Option<&str>,
        env: &Env,
    ) -> Result<(), Refusal> {
        // "the player must clearly show eir current RTL, new RTL and the game term
        // that links them": a move to null may leave the current RTL out (it is
        // then the current one), any other move may not.
        match shown {
            Some(shown) if shown != current => {
                return Err(Refusal(
                    Sentence::new("ruletag_wrong_current")
                        .arg("shown", rtl_text(shown))
                        .arg("current", rtl_text(current)),
                ));
            }
            None if to.is_some() => {
                return Err(Refusal(
                    Sentence::new("ruletag_move_needs_from")
                        .arg("to", rtl_text(to))
                        .arg("current", rtl_text(current)),
                ));
            }
            _ => {}
        }
        let Some(to) = to else {
            // (iv) Ey may choose null.
            return if current.is_none() {
                Err(refused("ruletag_already_null"))
            } else {
                Ok(())
            };
        };
        if !env.ruleset.exists(to) {
            return Err(Refusal(
                Sentence::new("ruletag_no_destination")
                    .arg("to", to)
                    .arg("repealed", env.ruleset.was_repealed(to)),
            ));
        }
        let Some(current) = current else {
            // (i) If eir current RTL is null, then ey may choose any rule number.
            return Ok(());
        };
        if current == to {
            return Err(Refusal(Sentence::new("ruletag_same_rule").arg("rtl", to)));
        }
        let Some(term) = term else {
            return Err(Refusal(
                Sentence::new("ruletag_move_needs_term")
                    .arg("from", current)
                    .arg("to", to)
                    .arg("terms", linking_names(env, current, to)),
            ));
        };
        if env
            .params
            .invalid_terms
            .iter()
            .any(|invalid| invalid.eq_ignore_ascii_case(term.trim()))
        {
            return Err(Refusal(
                Sentence::new("ruletag_invalid_path").arg("term", term),
            ));
        }
        let Some(known) = env.ruleset.term(term) else {
            return Err(Refusal(
                Sentence::new("ruletag_unknown_term")
                    .arg("term", term)
                    .arg("terms", linking_names(env, current, to)),
            ));
        };
        // (ii) a rule that defines one of the game terms used in the current RTL rule;
        // (iii) a rule that uses one of the game terms defined in the current RTL rule.
        let clause_ii = known.used_in.contains(&current) && known.defined_in.contains(&to);
        let clause_iii = known.defined_in.contains(&current) && known.used_in.contains(&to);
        if clause_ii || clause_iii {
            Ok(())
        } else {
            Err(Refusal(
                Sentence::new("ruletag_not_linked")
                    .arg("term", &known.term)
                    .arg("from", current)
                    .arg("to", to)
                    .arg("defined_in", &known.defined_in)
                    .arg("used_in", &known.used_in)
                    .arg("terms", linking_names(env, current, to)),
            ))
        }
    }

    fn no_such_object(&self, object: &str) -> Refusal {
        let names: Vec<&str> = self.objects.iter().map(|o| o.name.as_str()).collect();
        Refusal(
            Sentence::new("ruletag_no_such_object")
                .arg("object", object)
                .arg("objects", names),
        )
    }

    fn void(
        &self,
        name: &str,
        kind: ActionKind,
        reason: &str,
        ctx: &Ctx,
        env: &Env,
    ) -> Result<Done<Change>, Refusal> {
        let player = env
            .players
            .by_name(name)
            .ok_or_else(|| Refusal(Sentence::new("no_such_player").arg("name", name)))?;
        // The latest nweek with such an action: the next one's, while a processing
        // delay runs and both are on record.
        let Some(nweek) = self
            .actions
            .iter()
            .filter(|d| d.player == player.id && d.action.kind() == kind)
            .map(|d| d.nweek)
            .max()
        else {
            return Err(Refusal(
                Sentence::new("ruletag_no_action")
                    .arg("name", &player.name)
                    .arg("action", kind.as_str()),
            ));
        };
        Ok(Done {
            events: vec![Change::RuleTag(Event::Voided {
                player: player.id,
                action: kind,
                nweek,
                by: ctx.sender.clone(),
                reason: reason.to_owned(),
            })],
            // The action itself may be private: the announcement names only its type.
            mail: vec![self.override_mail(
                ctx,
                json!({"what": "void", "name": player.name, "action": kind.as_str()}),
                reason,
            )],
            sentence: Sentence::new("ruletag_voided")
                .arg("name", &player.name)
                .arg("action", kind.as_str()),
        })
    }

    fn relocate(
        &self,
        object: &str,
        rtl: u32,
        reason: &str,
        ctx: &Ctx,
        env: &Env,
    ) -> Result<Done<Change>, Refusal> {
        self.object(object)
            .ok_or_else(|| self.no_such_object(object))?;
        if !env.ruleset.exists(rtl) {
            return Err(Refusal(Sentence::new("ruletag_no_rule").arg("number", rtl)));
        }
        Ok(Done {
            events: vec![Change::RuleTag(Event::Relocated {
                object: object.to_owned(),
                rtl,
                by: ctx.sender.clone(),
                reason: reason.to_owned(),
            })],
            mail: vec![self.override_mail(
                ctx,
                json!({"what": "relocate", "object": object, "rtl": rtl}),
                reason,
            )],
            sentence: Sentence::new("ruletag_relocated")
                .arg("object", object)
                .arg("rtl", rtl),
        })
    }

    /// The end of nweek `nweek`: the turn processed in the rule's order, the two
    /// notifications, the moderator's award (and censure when the notifications go
    /// out after the limit), and the next nweek's end scheduled. `caught_up_at` is
    /// the real time the bot runs this: after a downtime it may be past the limit.
    pub fn end_of_nweek(
        &self,
        nweek: i64,
        now: Timestamp,
        caught_up_at: Timestamp,
        entropy: [u8; 32],
        env: &Env,
    ) -> (Vec<Change>, Vec<Mail>) {
        if !self.is_running() || nweek != self.nweek {
            return (Vec::new(), Vec::new());
        }
        let Ok(times) = times(env, nweek) else {
            return (Vec::new(), Vec::new());
        };
        let mut turn = Turn::new(self, env, now, entropy, nweek);
        turn.run(&times, caught_up_at);
        turn.renew_period();
        // The mail goes out now: after a downtime that is later than the turn.
        turn.finish(nweek, &times, caught_up_at.max(now))
    }
}

fn points_of(amount: &BigRational) -> i64 {
    amount.floor().to_integer().try_into().unwrap_or(i64::MAX)
}

fn linking_names(env: &Env, from: u32, to: u32) -> Vec<String> {
    env.ruleset
        .linking_terms(from, to)
        .into_iter()
        .map(|t| t.term.clone())
        .filter(|t| {
            !env.params
                .invalid_terms
                .iter()
                .any(|invalid| invalid.eq_ignore_ascii_case(t))
        })
        .collect()
}

/// One turn's processing: a scratch copy of everything it changes, and the record.
struct Turn<'e, 'a> {
    nweek: i64,
    env: &'e Env<'a>,
    game: &'e RuleTag,
    now: Timestamp,
    entropy: [u8; 32],
    standings: BTreeMap<PlayerId, Standing>,
    objects: Vec<Rto>,
    accounts: Accounts,
    random: RandomOfficer,
    changes: Vec<Change>,
    mail: Vec<Mail>,
    report: Report,
    deltas: BTreeMap<PlayerId, i64>,
    /// The players in the game: everyone who has not left.
    playing: Vec<PlayerId>,
    moderator: Option<PlayerId>,
}

impl<'e, 'a> Turn<'e, 'a> {
    fn new(
        game: &'e RuleTag,
        env: &'e Env<'a>,
        now: Timestamp,
        entropy: [u8; 32],
        nweek: i64,
    ) -> Turn<'e, 'a> {
        let playing: Vec<PlayerId> = env.players.active().map(|p| p.id).collect();
        let moderator = env
            .moderator
            .and_then(|address| env.players.active_by_address(address))
            .map(|p| p.id);
        let mut standings: BTreeMap<PlayerId, Standing> = BTreeMap::new();
        for id in &playing {
            standings.insert(*id, game.standing(*id));
        }
        Turn {
            nweek,
            env,
            game,
            now,
            entropy,
            standings,
            objects: game.objects.clone(),
            accounts: env.accounts.clone(),
            random: env.random.clone(),
            changes: Vec::new(),
            mail: Vec::new(),
            report: Report::default(),
            deltas: BTreeMap::new(),
            playing,
            moderator,
        }
    }

    fn name(&self, id: PlayerId) -> String {
        self.env
            .players
            .by_id(id)
            .map_or_else(|| format!("player {id}"), |p| p.name.clone())
    }

    fn change(&mut self, step: &str, what: &str, mut values: serde_json::Value) {
        values["step"] = json!(step);
        values["what"] = json!(what);
        self.report.changes.push(values);
    }

    fn actions_of(&self, kind: ActionKind) -> Vec<Declared> {
        self.game
            .actions
            .iter()
            .filter(|d| {
                d.action.kind() == kind && d.nweek == self.nweek && self.playing.contains(&d.player)
            })
            .cloned()
            .collect()
    }

    fn rtl(&self, id: PlayerId) -> Rtl {
        self.standings.get(&id).and_then(|s| s.rtl)
    }

    /// Moves points through the accounts, recording the change in score. A rule's
    /// penalty is owed even beyond the balance, so a score may go below zero.
    fn pay(&mut self, from: Holder, to: Holder, amount: i64, reason: &str) {
        if amount <= 0 {
            return;
        }
        let currency = self.env.params.currency.clone();
        match self
            .accounts
            .charge(from, to, &currency, &points(amount), reason)
        {
            Ok(event) => {
                self.accounts.apply_event(&event, self.now);
                self.changes.push(Change::Accounts(event));
                for (holder, sign) in [(from, -1), (to, 1)] {
                    if let Holder::Player(id) = holder {
                        *self.deltas.entry(id).or_default() += sign * amount;
                    }
                }
            }
            Err(refusal) => self.change(
                "Points",
                "payment_failed",
                json!({"reason": reason, "error": refusal.0.code}),
            ),
        }
    }

    /// "Players with an RTL of null cannot lose points as a result of rule tag
    /// actions or rule tag objects."
    fn may_lose(&self, id: PlayerId) -> bool {
        self.rtl(id).is_some()
    }

    fn draw(&mut self, candidates: &[u32], purpose: &str) -> Option<u32> {
        if candidates.is_empty() {
            return None;
        }
        draw_rule(
            &mut self.random,
            &mut self.changes,
            &mut self.mail,
            self.entropy,
            candidates,
            purpose,
            self.now,
        )
        .ok()
    }

    fn rules(&self) -> Vec<u32> {
        self.env.ruleset.rules.iter().map(|r| r.number).collect()
    }

    fn run(&mut self, times: &Times, caught_up_at: Timestamp) {
        let params = self.env.params.clone();
        // A holder who left the nomic holds nothing: the RTO stays where it is.
        for index in 0..self.objects.len() {
            if let Some(holder) = self.objects[index].holder
                && !self.playing.contains(&holder)
            {
                self.objects[index].holder = None;
                let values = json!({"object": self.objects[index].name, "name": self.name(holder), "rtl": rtl_text(self.objects[index].rtl)});
                self.change("Drop Actions", "dropped", values);
            }
        }
        // The element changes of the nweek take effect first: the notification shows
        // each player's element as the turn begins.
        for declared in self.actions_of(ActionKind::Element) {
            if let Action::Element { element } = declared.action {
                self.standings.entry(declared.player).or_default().element = element;
            }
        }
        self.notification_one();

        // "Move Actions": Players who made rule tag move actions have their RTL
        // changed to their new location; possessed RTOs move with their holder.
        let mut moved_to_null: Vec<PlayerId> = Vec::new();
        for declared in self.actions_of(ActionKind::Move) {
            if let Action::Move { to, .. } = declared.action {
                self.move_player(declared.player, to, "Move Actions");
                if to.is_none() {
                    moved_to_null.push(declared.player);
                }
            }
        }
        // Rule "rule tag moderation" 2): a moderator with an RTL must move to null as
        // soon as possible; the bot does it for em at the first turn.
        if let Some(moderator) = self.moderator
            && self.rtl(moderator).is_some()
        {
            self.move_player(moderator, None, "Move Actions");
            moved_to_null.push(moderator);
        }

        // "Drop Actions".
        for declared in self.actions_of(ActionKind::Drop) {
            if let Action::Drop { object } = &declared.action
                && let Some(rto) = self.objects.iter_mut().find(|o| &o.name == object)
                && rto.holder == Some(declared.player)
            {
                rto.holder = None;
                let rtl = rto.rtl;
                let values = json!({"name": self.name(declared.player), "object": object, "rtl": rtl_text(rtl)});
                self.change("Drop Actions", "dropped", values);
            }
        }

        // "Basketball Resolve".
        self.basketball(&params);

        // "Grab Actions".
        self.grabs(&params);

        // "Elemental Tag Resolve".
        self.elemental(&params);

        // "Penalties".
        for id in moved_to_null {
            // The moderator does not pay for moving to null. The null-RTL protection
            // does not cover this penalty: see docs/rulings.md.
            if Some(id) != self.moderator {
                let values = json!({"name": self.name(id), "points": params.null_move_penalty});
                self.change("Penalties", "moved_to_null", values);
                self.pay(
                    Holder::Player(id),
                    Holder::Nowhere,
                    params.null_move_penalty,
                    "Rule Tag: Penalties, moved to null",
                );
            }
        }
        // "a rule that has just changed": changed since the last turn was processed,
        // or, for the first turn, since the nweek or the game began, whichever is later
        // (setting up the registry before the game is no change within it).
        let since = self
            .game
            .last_report
            .as_ref()
            .and_then(|report| report.processed_at)
            .unwrap_or_else(|| times.start.max(self.game.started_at.unwrap_or(times.start)));
        let playing = self.playing.clone();
        for id in playing {
            let Some(rule) = self.rtl(id) else { continue };
            if !self.env.ruleset.exists(rule) {
                let values =
                    json!({"name": self.name(id), "rtl": rule, "points": params.rule_gone_penalty});
                self.change("Penalties", "rule_gone", values);
                self.pay(
                    Holder::Player(id),
                    Holder::Nowhere,
                    params.rule_gone_penalty,
                    "Rule Tag: Penalties, RTL rule no longer exists",
                );
                self.move_player(id, None, "Penalties");
            } else if self.env.ruleset.changed_between(rule, since, self.now) && self.may_lose(id) {
                let values = json!({"name": self.name(id), "rtl": rule, "points": params.rule_changed_penalty});
                self.change("Penalties", "rule_changed", values);
                self.pay(
                    Holder::Player(id),
                    Holder::Nowhere,
                    params.rule_changed_penalty,
                    "Rule Tag: Penalties, RTL rule changed",
                );
            }
        }
        // An RTO on a rule that is gone, or left on null by its holder, is put back
        // on the board at random (see docs/rulings.md).
        self.rehome_objects();

        // Rule "rule tag moderation": Award, and Censure when late.
        self.report.late = caught_up_at > times.notify_by;
        if let Some(moderator) = self.moderator {
            self.pay(
                Holder::Nowhere,
                Holder::Player(moderator),
                params.moderator_award,
                "Rule Tag moderation: Award",
            );
            if self.report.late {
                self.pay(
                    Holder::Player(moderator),
                    Holder::Nowhere,
                    params.moderator_censure,
                    "Rule Tag moderation: Censure, notifications late",
                );
            }
        }
    }

    fn move_player(&mut self, id: PlayerId, to: Rtl, step: &str) {
        let from = self.rtl(id);
        self.standings.entry(id).or_default().rtl = to;
        let values = json!({"name": self.name(id), "from": rtl_text(from), "to": rtl_text(to)});
        self.change(step, "moved", values);
        let name = self.name(id);
        for rto in self.objects.iter_mut().filter(|o| o.holder == Some(id)) {
            rto.rtl = to;
            if to.is_none() {
                // An RTO is never on null: it falls from its holder's hands and is
                // relocated at random below.
                rto.holder = None;
            }
            let values = json!({"object": rto.name, "name": name, "to": rtl_text(to)});
            self.report.changes.push({
                let mut v = values;
                v["step"] = json!(step);
                v["what"] = json!("carried");
                v
            });
        }
    }

    fn basketball(&mut self, params: &Params) {
        let ball = self.objects.iter().find(|o| o.name == BALL).cloned();
        let goal = self.objects.iter().find(|o| o.name == GOAL).cloned();
        let (Some(ball), Some(goal)) = (ball, goal) else {
            return;
        };
        let Some(holder) = ball.holder else { return };
        if ball.rtl.is_none() || self.rtl(holder) != goal.rtl || !self.playing.contains(&holder) {
            return;
        }
        let values = json!({"name": self.name(holder), "rtl": rtl_text(goal.rtl), "points": params.basket_points});
        self.change("Basketball Resolve", "scored", values);
        self.pay(
            Holder::Nowhere,
            Holder::Player(holder),
            params.basket_points,
            "Rule Tag basketball: the ball on the goal's RTL",
        );
        // Both objects become unpossessed and go to two different (non-null) RTLs.
        let rules = self.rules();
        let ball_rtl = self.draw(&rules, "rule tag ball relocated after a basket");
        let others: Vec<u32> = rules
            .iter()
            .copied()
            .filter(|n| Some(*n) != ball_rtl)
            .collect();
        let goal_rtl = self.draw(&others, "rule tag goal relocated after a basket");
        for (name, rtl) in [(BALL, ball_rtl), (GOAL, goal_rtl)] {
            if let Some(rto) = self.objects.iter_mut().find(|o| o.name == name) {
                rto.holder = None;
                if rtl.is_some() {
                    rto.rtl = rtl;
                }
                let values = json!({"object": name, "from": null, "to": rtl_text(rto.rtl)});
                self.change("Basketball Resolve", "relocated", values);
            }
        }
    }

    fn grabs(&mut self, params: &Params) {
        let grabs = self.actions_of(ActionKind::Grab);
        // Firstly, grabs where the player and the RTO have different RTLs are invalid.
        let mut valid: Vec<(PlayerId, String, i64)> = Vec::new();
        for declared in grabs {
            let Action::Grab { object, points } = declared.action else {
                continue;
            };
            let object_rtl = self
                .objects
                .iter()
                .find(|o| o.name == object)
                .and_then(|o| o.rtl);
            let player_rtl = self.rtl(declared.player);
            if object_rtl.is_some() && object_rtl == player_rtl {
                valid.push((declared.player, object, points));
            } else {
                let values = json!({"name": self.name(declared.player), "object": object, "rtl": rtl_text(player_rtl), "object_rtl": rtl_text(object_rtl)});
                self.change("Grab Actions", "grab_invalid", values);
            }
        }
        // Then, for each RTO in turn.
        for index in 0..self.objects.len() {
            let name = self.objects[index].name.clone();
            let bids: Vec<(PlayerId, i64)> = valid
                .iter()
                .filter(|(_, object, _)| *object == name)
                .map(|(player, _, points)| (*player, *points))
                .collect();
            let holder = self.objects[index].holder;
            if bids.is_empty() && !(params.drop_possessed_without_grab && holder.is_some()) {
                continue;
            }
            // (i) If the RTO is in possession, it is dropped, and nothing else happens.
            if let Some(holder) = holder {
                self.objects[index].holder = None;
                let values = json!({"object": name, "name": self.name(holder), "rtl": rtl_text(self.objects[index].rtl)});
                self.change("Grab Actions", "knocked_loose", values);
                continue;
            }
            match bids.as_slice() {
                // (ii) Only one grab action: that player gains possession.
                [(player, _)] => {
                    self.objects[index].holder = Some(*player);
                    let values =
                        json!({"object": name, "name": self.name(*player), "clause": "ii"});
                    self.change("Grab Actions", "grabbed", values);
                }
                _ => {
                    // (iii) One player declared more than any other and has at least
                    // as many points: possession, and the points are spent.
                    let top = bids.iter().map(|(_, points)| *points).max().unwrap_or(0);
                    let at_top: Vec<PlayerId> = bids
                        .iter()
                        .filter(|(_, p)| *p == top)
                        .map(|(id, _)| *id)
                        .collect();
                    let winner = match at_top.as_slice() {
                        [one] => Some(*one),
                        _ => None,
                    };
                    let has = winner.map(|id| {
                        points_of(&self.accounts.balance(Holder::Player(id), &params.currency))
                    });
                    match (winner, has) {
                        (Some(id), Some(has)) if has >= top => {
                            self.objects[index].holder = Some(id);
                            let values = json!({"object": name, "name": self.name(id), "clause": "iii", "points": top});
                            self.change("Grab Actions", "grabbed", values);
                            if self.may_lose(id) {
                                self.pay(
                                    Holder::Player(id),
                                    Holder::Nowhere,
                                    top,
                                    "Rule Tag: Grab Actions (iii), points declared",
                                );
                            }
                        }
                        // (iv) Otherwise, nothing happens.
                        _ => {
                            let names: Vec<String> =
                                bids.iter().map(|(id, _)| self.name(*id)).collect();
                            let values = json!({"object": name, "names": names, "tie": winner.is_none(), "points": top});
                            self.change("Grab Actions", "grab_nothing", values);
                        }
                    }
                }
            }
        }
    }

    fn elemental(&mut self, params: &Params) {
        let on_board: Vec<(PlayerId, u32, Element)> = self
            .playing
            .iter()
            .filter_map(|id| {
                let standing = self.standings.get(id)?;
                Some((*id, standing.rtl?, standing.element))
            })
            .collect();
        for (i, (a, rtl_a, element_a)) in on_board.iter().enumerate() {
            for (b, rtl_b, element_b) in &on_board[i + 1..] {
                if rtl_a != rtl_b {
                    continue;
                }
                let (winner, loser) = if element_a.beats(*element_b) {
                    (*a, *b)
                } else if element_b.beats(*element_a) {
                    (*b, *a)
                } else {
                    continue;
                };
                if !self.may_lose(loser) {
                    continue;
                }
                let values = json!({
                    "winner": self.name(winner), "loser": self.name(loser), "rtl": rtl_a,
                    "winner_element": self.standings[&winner].element.as_str(),
                    "loser_element": self.standings[&loser].element.as_str(),
                    "points": params.elemental_points,
                });
                self.change("Elemental Tag Resolve", "elemental", values);
                self.pay(
                    Holder::Player(loser),
                    Holder::Player(winner),
                    params.elemental_points,
                    "Rule Tag: Elemental Tag Resolve",
                );
            }
        }
    }

    fn rehome_objects(&mut self) {
        let rules = self.rules();
        for index in 0..self.objects.len() {
            let rto = &self.objects[index];
            let stranded = match rto.rtl {
                None => true,
                Some(rule) => !self.env.ruleset.exists(rule),
            };
            if !stranded {
                continue;
            }
            let name = rto.name.clone();
            let from = rto.rtl;
            let taken: Vec<u32> = self.objects.iter().filter_map(|o| o.rtl).collect();
            let free: Vec<u32> = rules
                .iter()
                .copied()
                .filter(|n| !taken.contains(n))
                .collect();
            let candidates = if free.is_empty() { rules.clone() } else { free };
            if let Some(rule) = self.draw(
                &candidates,
                &format!("{name} relocated off a null or repealed RTL"),
            ) {
                self.objects[index].rtl = Some(rule);
                self.objects[index].holder = None;
                self.change(
                    "Penalties",
                    "relocated",
                    json!({"object": name, "from": rtl_text(from), "to": rule}),
                );
            }
        }
    }

    fn notification_one(&mut self) {
        let mut actions = Vec::new();
        for id in self.playing.clone() {
            let list: Vec<serde_json::Value> = self
                .game
                .actions
                .iter()
                .filter(|d| d.player == id && d.nweek == self.nweek)
                .map(|d| {
                    let mut value = d.action.describe();
                    value["public"] = json!(d.public);
                    value
                })
                .collect();
            if !list.is_empty() {
                actions.push(json!({"name": self.name(id), "actions": list}));
            }
        }
        let standings: Vec<serde_json::Value> = self
            .playing
            .iter()
            .map(|id| {
                let standing = self.standings.get(id).cloned().unwrap_or_default();
                json!({"name": self.name(*id), "rtl": rtl_text(standing.rtl), "element": standing.element.as_str()})
            })
            .collect();
        self.report.actions = actions;
        self.report.standings = standings;
    }

    /// The game's own random period ends with the turn, publishing its seed so that
    /// anyone can re-run this turn's draws, and the next one is committed at once,
    /// before any draw of the next turn.
    fn renew_period(&mut self) {
        if self.random.current.as_ref().map(|p| p.label.as_str()) != Some(TAG) {
            return;
        }
        let Ok(end) = self.random.end_period() else {
            return;
        };
        self.random.apply_event(&end, self.now);
        if let Some(record) = self.random.past.last() {
            self.mail.push(record.revealed_mail(TAG));
        }
        self.changes.push(Change::Random(end));
        // A seed of its own: this instant's entropy may have seeded the period
        // just revealed.
        let mut hasher = Sha256::new();
        hasher.update(self.entropy);
        hasher.update(b"the next rule tag period");
        let seed: [u8; 32] = hasher.finalize().into();
        if let Ok(Some(start)) = self.random.open_if_idle(TAG, seed, self.now) {
            let started = self.random.current.as_ref().map(|r| r.started_mail(TAG));
            self.mail.extend(started);
            self.changes.push(Change::Random(start));
        }
    }

    fn finish(mut self, nweek: i64, times: &Times, posted: Timestamp) -> (Vec<Change>, Vec<Mail>) {
        self.report.nweek = nweek;
        self.report.processed_at = Some(self.now);
        let name_of = |id: Option<PlayerId>| id.map(|id| self.name(id));
        self.report.objects = self
            .objects
            .iter()
            .map(|o| json!({"name": o.name, "rtl": rtl_text(o.rtl), "holder": name_of(o.holder)}))
            .collect();
        self.report.score_changes = self
            .playing
            .iter()
            .map(|id| {
                json!({
                    "name": self.name(*id),
                    "change": self.deltas.get(id).copied().unwrap_or(0),
                    "points": accounts::amount_human(&self.accounts.balance(Holder::Player(*id), &self.env.params.currency)),
                })
            })
            .collect();
        let next = times_after(self.env, nweek + 1);
        let common = json!({
            "nweek": nweek,
            "at": human_time(posted),
            "processed": human_time(self.now),
            "moderator": self.moderator.map(|id| self.name(id)),
            "award": self.env.params.moderator_award,
            "censure": self.env.params.moderator_censure,
            "late": self.report.late,
            "notify_by": human_time(times.notify_by),
            "next_close": next.as_ref().map(|t| human_time(t.actions_close)),
            "next_process": next.as_ref().map(|t| human_time(t.process_at)),
        });
        let mut first = common.clone();
        first["actions"] = json!(self.report.actions);
        first["standings"] = json!(self.report.standings);
        let mut second = common;
        second["score_changes"] = json!(self.report.score_changes);
        second["objects"] = json!(self.report.objects);
        second["changes"] = json!(self.report.changes);
        second["standings"] = json!(
            self.playing
                .iter()
                .map(|id| {
                    let standing = self.standings.get(id).cloned().unwrap_or_default();
                    json!({"name": self.name(*id), "rtl": rtl_text(standing.rtl), "element": standing.element.as_str()})
                })
                .collect::<Vec<_>>()
        );
        second["scores"] = json!(
            self.accounts
                .scores(&self.env.params.currency)
                .into_iter()
                .map(|(id, amount)| json!({"name": self.name(id), "points": accounts::amount_human(&amount)}))
                .collect::<Vec<_>>()
        );
        // Notification 1 goes before anything drawn for the turn is announced.
        let mut mail = vec![Mail::new(
            Audience::List,
            TAG,
            "ruletag_notification_actions",
            first,
        )];
        mail.append(&mut self.mail);
        mail.push(Mail::new(
            Audience::List,
            TAG,
            "ruletag_notification_results",
            second,
        ));
        let mut changes = self.changes;
        changes.push(Change::RuleTag(Event::NweekEnded {
            standings: self
                .standings
                .into_iter()
                .filter(|(_, s)| *s != Standing::default())
                .collect(),
            objects: self.objects,
            report: self.report,
        }));
        if let Some(next) = next {
            changes.push(end_deadline(nweek + 1, next.process_at));
        }
        (changes, mail)
    }
}

fn times_after(env: &Env, nweek: i64) -> Option<Times> {
    times(env, nweek).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn act(line: &str) -> Action {
        match parse(line) {
            Ok(Command::Act(action)) => action,
            other => panic!("{line}: {other:?}"),
        }
    }

    fn mv(line: &str) -> (Option<Rtl>, Rtl, Option<String>) {
        match parse(line) {
            Ok(Command::Move { from, to, term }) => (from, to, term),
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn the_forgiving_syntax_of_the_readme() {
        assert_eq!(
            mv("move from 325 to 42 via \"score\""),
            (Some(Some(325)), Some(42), Some("score".into()))
        );
        assert_eq!(
            mv("Move from rule #325 to Rule 42 using game object"),
            (Some(Some(325)), Some(42), Some("game object".into()))
        );
        assert_eq!(mv("move to null"), (None, None, None));
        assert_eq!(mv("move from null to 42"), (Some(None), Some(42), None));
        // A term may itself contain "to" inside quotes.
        assert_eq!(
            mv("move from 1 to 2 via \"go to gaol\""),
            (Some(Some(1)), Some(2), Some("go to gaol".into()))
        );
        assert_eq!(
            act("grab ball 5"),
            Action::Grab {
                object: BALL.into(),
                points: 5
            }
        );
        assert_eq!(
            act("grab the rule tag goal for 0 points"),
            Action::Grab {
                object: GOAL.into(),
                points: 0
            }
        );
        assert_eq!(
            act("grab ball -3"),
            Action::Grab {
                object: BALL.into(),
                points: -3
            }
        );
        assert_eq!(
            act("drop Ball"),
            Action::Drop {
                object: BALL.into()
            }
        );
        assert_eq!(
            act("element fire"),
            Action::Element {
                element: Element::Fire
            }
        );
        assert_eq!(
            act("element change to Water"),
            Action::Element {
                element: Element::Water
            }
        );
        for bad in ["move 42", "grab ball", "element lava", "drop", "dance"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_moderators_commands_need_a_reason() {
        assert_eq!(
            parse("void Bob move because a typo").ok(),
            Some(Command::Void {
                name: "Bob".into(),
                kind: ActionKind::Move,
                reason: "a typo".into()
            })
        );
        assert_eq!(
            parse("relocate ball to 42 because it fell off").ok(),
            Some(Command::Relocate {
                object: BALL.into(),
                rtl: 42,
                reason: "it fell off".into()
            })
        );
        assert_eq!(
            parse("term \"score\" defined in 42 because rule 42 explains it").ok(),
            Some(Command::Term {
                term: "score".into(),
                number: 42,
                defined: true,
                reason: "rule 42 explains it".into()
            })
        );
        assert_eq!(
            parse("term score not defined in 42 because it only mentions it").ok(),
            Some(Command::Term {
                term: "score".into(),
                number: 42,
                defined: false,
                reason: "it only mentions it".into()
            })
        );
        for bad in [
            "void Bob move",
            "relocate ball to 42",
            "term x in 4 because y",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn elemental_precedence_is_a_cycle_of_four() {
        use Element::*;
        let beats: Vec<(Element, Element)> = [Earth, Air, Fire, Water]
            .iter()
            .flat_map(|a| [Earth, Air, Fire, Water].map(|b| (*a, b)))
            .filter(|(a, b)| a.beats(*b))
            .collect();
        assert_eq!(
            beats,
            [(Earth, Water), (Air, Earth), (Fire, Air), (Water, Fire)]
        );
    }

    #[test]
    fn deadline_ids_name_their_nweek() {
        assert_eq!(nweek_of_deadline(&end_deadline_id(-3)), Some(-3));
        assert_eq!(nweek_of_deadline("vote:3"), None);
    }
}
