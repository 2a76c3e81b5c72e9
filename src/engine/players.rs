//! The player registry, under the tag `[nomic]`: who plays, under which name, from
//! which addresses. Pure: commands in, events and mail out; `apply_event` is the
//! only thing that changes the registry.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};

use super::{
    Address, Audience, Ctx, Done, Mail, NotUnderstood, Refusal, Sentence, Timestamp, human_time,
    split_reason, split_verb,
};

pub const TAG: &str = "nomic";

/// The numbers of the registry, from `[players]` in bot.toml.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(default)]
pub struct Params {
    /// How long an alias request waits for its two confirmations: from the new
    /// address, and from an address already the player's with the code mailed to
    /// the main address.
    pub alias_confirm_hours: u32,
    pub max_name_chars: usize,
    /// The longest vacation `vacation until` accepts, in days from the message.
    pub max_vacation_days: u32,
    /// The most players the `players` answer names; the rest are counted. A
    /// list of hundreds must not get an answer that grows with every join.
    pub roster_names: usize,
    /// The bot's own address and the game list's: no player's alias (the shell
    /// hands them in from `[bot]`; they are no number of the registry).
    #[serde(skip)]
    pub own_addresses: Vec<Address>,
    /// Whether the shell can write mail to an address (its mail library reads
    /// addresses more strictly than `Address::looks_valid`): an `alias` it could
    /// not write to is refused on its line, never fails the whole message.
    #[serde(skip, default = "can_write_to_default")]
    pub can_write_to: fn(&str) -> bool,
}

fn can_write_to_default() -> fn(&str) -> bool {
    |address| Address::new(address).looks_valid()
}

impl Default for Params {
    fn default() -> Params {
        Params {
            alias_confirm_hours: 72,
            max_name_chars: 40,
            max_vacation_days: 366,
            roster_names: 50,
            own_addresses: Vec::new(),
            can_write_to: can_write_to_default(),
        }
    }
}

pub type PlayerId = u32;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Player {
    pub id: PlayerId,
    pub name: String,
    /// The address the player joined from: where private mail goes.
    pub address: Address,
    /// Further confirmed addresses of the same player.
    pub aliases: Vec<Address>,
    pub joined_at: Timestamp,
    /// Set when the player left; a player who left may join again from the same address.
    pub left_at: Option<Timestamp>,
    /// On vacation until this moment (announced); not an active player meanwhile.
    #[serde(default)]
    pub vacation_until: Option<Timestamp>,
    /// Declared inactive by a moderator; not an active player until reactivated.
    #[serde(default)]
    pub inactive: bool,
    /// In Gaol (put there by a moderator): still a player; games decide what it forbids.
    #[serde(default)]
    pub in_gaol: bool,
    /// The player's Home, where things of theirs live (the Machine That Goes *ping*).
    #[serde(default)]
    pub home: Option<String>,
    /// The offices ey runs for (`running for OFFICE`), as ey wrote them: rules
    /// speak of candidates (Ackanomic 1215 4g: two candidates for the same
    /// office may not duel).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub running_for: Vec<String>,
    /// The name's look, kept once computed: a join or rename compares the new
    /// name with every player's, and computing a confusable skeleton costs far
    /// more than comparing two. Rebuilt on demand after a load.
    #[serde(skip)]
    pub look: LookCache,
}

/// A player's [`Look`], computed at the first need and kept with the name it is
/// of, so a stale one (the name changed since) is never used. Not part of the
/// state: two players are equal whatever their caches hold. Shared, so the copy
/// of the registry each message works on does not copy every player's look.
#[derive(Debug, Clone, Default)]
pub struct LookCache(std::sync::OnceLock<Arc<(String, Look)>>);

impl PartialEq for LookCache {
    fn eq(&self, _: &LookCache) -> bool {
        true
    }
}

impl Player {
    /// Whether this player's name looks like `look` (see [`Look::same_as`]).
    pub fn looks_like(&self, look: &Look) -> bool {
        look.same_as(&self.look())
    }

    /// The look of the player's name, the kept one while the name is the one it
    /// was computed from.
    fn look(&self) -> std::borrow::Cow<'_, Look> {
        let (name, mine) = self
            .look
            .0
            .get_or_init(|| Arc::new((self.name.clone(), Look::of(&self.name))))
            .as_ref();
        if *name == self.name {
            std::borrow::Cow::Borrowed(mine)
        } else {
            std::borrow::Cow::Owned(Look::of(&self.name))
        }
    }

    pub fn is_active(&self) -> bool {
        self.left_at.is_none()
    }

    /// Counts as an active player at `now`: joined, not left, not inactive, not on vacation.
    pub fn is_active_at(&self, now: Timestamp) -> bool {
        self.is_active() && !self.inactive && self.vacation_until.is_none_or(|until| until <= now)
    }

    /// The name of the player's Home: the one set, or "NAME's Home".
    /// Whether ey runs for `office` (compared without regard to case).
    pub fn runs_for(&self, office: &str) -> bool {
        self.running_for
            .iter()
            .any(|o| o.eq_ignore_ascii_case(office))
    }

    pub fn home_name(&self) -> String {
        self.home
            .clone()
            .unwrap_or_else(|| format!("{}'s Home", self.name))
    }

    pub fn has_address(&self, address: &Address) -> bool {
        &self.address == address || self.aliases.contains(address)
    }
}

/// An `alias` request waiting for its two confirmations: the new address's (it
/// can read mail sent there) and the player's (an address already on the account,
/// with the code mailed to the main address). A forged request sent in a player's
/// name never gets the second, because the forger cannot read that mail.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingAlias {
    pub player: PlayerId,
    pub address: Address,
    pub requested_at: Timestamp,
    pub expires_at: Timestamp,
    /// `code_hash` of the code mailed to the player's main address. A request
    /// made before the player's confirmation existed has none, and can no longer
    /// complete: it is asked again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_hash: Option<String>,
    /// The new address sent `confirm`.
    #[serde(default)]
    pub address_confirmed: bool,
    /// The address of the player's that sent `confirm CODE`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confirmed_by: Option<Address>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Registry {
    /// Each player behind an `Arc`: the copy of the registry a message works on
    /// copies pointers, and a change copies the one player it touches (and the
    /// store writes that player's row alone, `store::state`).
    pub players: Vec<Arc<Player>>,
    pub pending_aliases: Vec<PendingAlias>,
    /// Ids given out by a `join` a moderator voided: the fold leaves the player
    /// out, but the id stays used, so that whatever later actions recorded under it
    /// (money given to em) never passes to the next player who joins.
    /// Invariant: a player id is never given out twice.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retired_ids: Vec<PlayerId>,
    /// Addresses whose every message must prove itself with a passphrase (the
    /// shell checks it: `mail::auth`). Only a salted hash is kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub passphrases: Vec<Passphrase>,
    /// A first passphrase asked for by mail that proved nothing of its sender:
    /// set only when the code mailed to the address comes back from it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pending_passphrases: Vec<PendingPassphrase>,
    /// Addresses that get a game's announcements privately (`observe GAME`),
    /// confirmed or waiting for the code mailed to them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub observers: Vec<Observer>,
    /// The active players' names by their look, so that a join or rename checks
    /// its name in two ordered lookups instead of against every player. Derived
    /// from `players`: not part of the state, built at the first need after a
    /// load, and kept current by `apply_event` once built.
    #[serde(skip)]
    names: NameIndex,
}

/// The index behind [`Registry::name_taken_by_other`]: the ids of the active
/// players (not left: inactive ones and those on vacation keep their names)
/// under both forms of their name's [`Look`]. Persistent sets (`imbl`), so the
/// copy of the registry each message works on shares them, and a change of a
/// name copies one path of each set, not the set: a join costs the same among
/// 20 players as among 2,000.
#[derive(Debug, Clone, Default)]
struct NameIndex(std::sync::OnceLock<Arc<Names>>);

impl PartialEq for NameIndex {
    fn eq(&self, _: &NameIndex) -> bool {
        true
    }
}

#[derive(Debug, Clone, Default)]
struct Names {
    lower_case: imbl::OrdSet<(Arc<str>, PlayerId)>,
    as_written: imbl::OrdSet<(Arc<str>, PlayerId)>,
}

impl Names {
    fn of(players: &[Arc<Player>]) -> Names {
        let mut names = Names::default();
        for player in players.iter().filter(|p| p.is_active()) {
            names.insert(player.id, &player.look());
        }
        names
    }

    fn insert(&mut self, id: PlayerId, look: &Look) {
        self.lower_case
            .insert((look.lower_case.as_str().into(), id));
        self.as_written
            .insert((look.as_written.as_str().into(), id));
    }

    fn remove(&mut self, id: PlayerId, look: &Look) {
        self.lower_case
            .remove(&(look.lower_case.as_str().into(), id));
        self.as_written
            .remove(&(look.as_written.as_str().into(), id));
    }

    /// The ids under either form of `look`.
    fn alike(&self, look: &Look) -> Vec<PlayerId> {
        let mut ids = Vec::new();
        for (set, key) in [
            (&self.lower_case, &look.lower_case),
            (&self.as_written, &look.as_written),
        ] {
            let key: Arc<str> = key.as_str().into();
            let under = set.range((key.clone(), PlayerId::MIN)..=(key, PlayerId::MAX));
            ids.extend(under.map(|(_, id)| *id));
        }
        ids
    }
}

/// An address that asked to observe a game: once confirmed with the code mailed
/// to it, it gets a private copy of every announcement the list gets under the
/// game's tag. Only public announcements, so a forged request leaks nothing;
/// the code keeps a forger from turning the bot on someone else's mailbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observer {
    pub address: Address,
    /// The game's own tag, lower-case (`ghost`, `rule tag`).
    pub game: String,
    pub confirmed: bool,
    /// The hash of the code mailed to the address (never the code).
    pub code_hash: String,
}

/// How many games one address may observe or ask to, at once: a forged
/// request costs its victim one mail, and no address becomes a mail cannon.
pub const MAX_OBSERVED_PER_ADDRESS: usize = 3;

/// A passphrase waiting for its address's confirmation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingPassphrase {
    #[serde(flatten)]
    pub passphrase: Passphrase,
    /// The hash of the code mailed to the address (never the code).
    pub code_hash: String,
}

/// The passphrase an address requires, as a salted SHA-256 (hex): never the
/// passphrase itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Passphrase {
    pub address: Address,
    pub salt: String,
    pub hash: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Joined {
        id: PlayerId,
        name: String,
        address: Address,
    },
    Rejoined {
        id: PlayerId,
        name: String,
    },
    Left {
        id: PlayerId,
    },
    Renamed {
        id: PlayerId,
        name: String,
    },
    /// `code_hash` is the hash of the code mailed to the player (never the code);
    /// a log written before the player's confirmation existed holds none.
    AliasRequested {
        id: PlayerId,
        address: Address,
        expires_at: Timestamp,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        code_hash: Option<String>,
    },
    /// One half of an alias request: the new address confirmed it, the player has not yet.
    AliasAddressConfirmed {
        id: PlayerId,
        address: Address,
    },
    /// The other half: an address already the player's (`by`) sent the code; the
    /// new address has not confirmed yet.
    AliasPlayerConfirmed {
        id: PlayerId,
        address: Address,
        by: Address,
    },
    /// The alias is made: both halves are in (before the player's half existed,
    /// the new address's alone).
    AliasConfirmed {
        id: PlayerId,
        address: Address,
    },
    /// The request was dropped because its code was seen where others may read
    /// it (`reason`: `code_public`, or `code_from_another_address` when an
    /// address not the player's sent it, the new one included).
    AliasCancelled {
        id: PlayerId,
        address: Address,
        reason: String,
    },
    AliasExpired {
        id: PlayerId,
        address: Address,
    },
    VacationStarted {
        id: PlayerId,
        until: Timestamp,
    },
    VacationEnded {
        id: PlayerId,
    },
    /// A moderator's override, as the four below: `officer` and `reason` are
    /// recorded from the release that asked every override for a reason (issue
    /// 21); a log written before holds neither, and reads them as empty.
    Gaoled {
        id: PlayerId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        officer: Option<Address>,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        reason: String,
    },
    Released {
        id: PlayerId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        officer: Option<Address>,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        reason: String,
    },
    MarkedInactive {
        id: PlayerId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        officer: Option<Address>,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        reason: String,
    },
    MarkedActive {
        id: PlayerId,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        officer: Option<Address>,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        reason: String,
    },
    HomeSet {
        id: PlayerId,
        home: String,
    },
    /// From now on every message from `address` must carry its passphrase.
    PassphraseSet {
        address: Address,
        salt: String,
        hash: String,
    },
    PassphraseCleared {
        address: Address,
    },
    /// A first passphrase for `address`, set when the code mailed to it comes
    /// back (`passphrase confirm CODE`).
    PassphraseRequested {
        address: Address,
        salt: String,
        hash: String,
        code_hash: String,
    },
    /// A pending passphrase's code was shown where others read it.
    PassphraseRequestCancelled {
        address: Address,
    },
    /// `observe GAME`: the code went to the address.
    ObserveRequested {
        address: Address,
        game: String,
        code_hash: String,
    },
    /// `observe GAME CODE`: copies of the game's announcements go to the address.
    ObserveConfirmed {
        address: Address,
        game: String,
    },
    /// `unobserve GAME`, confirmed or not.
    Unobserved {
        address: Address,
        game: String,
    },
    /// `running for OFFICE`.
    RunningFor {
        id: PlayerId,
        office: String,
    },
    /// `not running for OFFICE`.
    NotRunningFor {
        id: PlayerId,
        office: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    Join {
        name: String,
    },
    Leave,
    Rename {
        name: String,
    },
    Alias {
        address: Address,
    },
    /// `code`: the code mailed to the player, normalised (`code_key`); none from
    /// the new address.
    Confirm {
        code: Option<String>,
    },
    Players,
    Vacation {
        until: jiff::civil::Date,
    },
    Back,
    Home {
        name: String,
    },
    /// A moderator's: put a player in Gaol, or let them out, with the reason.
    Gaol {
        name: String,
        reason: String,
    },
    Release {
        name: String,
        reason: String,
    },
    /// A moderator's: a player stops or starts counting as active, with the reason.
    Deactivate {
        name: String,
        reason: String,
    },
    Activate {
        name: String,
        reason: String,
    },
    /// `running for OFFICE` (`running: true`) or `not running for OFFICE`.
    RunningFor {
        office: String,
        running: bool,
    },
}

/// `for OFFICE`, the office in single spaces.
fn office_run_for(rest: &str) -> Option<String> {
    let office = rest.strip_prefix("for")?;
    if !office.starts_with(char::is_whitespace) {
        return None;
    }
    let office = office.split_whitespace().collect::<Vec<_>>().join(" ");
    (!office.is_empty()).then_some(office)
}

/// Reads one `[nomic]` command line.
pub fn parse(line: &str) -> Result<Command, NotUnderstood> {
    let (verb, rest) = split_verb(line);
    let usage = |usage: &str| NotUnderstood(Sentence::new("usage").arg("usage", usage));
    match verb.as_str() {
        "join" if !rest.is_empty() => Ok(Command::Join {
            name: rest.to_owned(),
        }),
        "join" => Err(usage("join NAME")),
        "leave" if rest.is_empty() => Ok(Command::Leave),
        "leave" => Err(usage("leave")),
        "rename" if !rest.is_empty() => Ok(Command::Rename {
            name: rest.to_owned(),
        }),
        "rename" => Err(usage("rename NAME")),
        "alias" if !rest.is_empty() && !rest.contains(char::is_whitespace) => Ok(Command::Alias {
            address: Address::new(rest.trim_matches(|c| c == '<' || c == '>')),
        }),
        "alias" => Err(usage("alias ADDRESS")),
        "confirm" if rest.is_empty() || rest.eq_ignore_ascii_case("alias") => {
            Ok(Command::Confirm { code: None })
        }
        "confirm" => {
            let code = code_key(rest);
            if code.is_empty() || !code.chars().all(|c| c.is_ascii_alphanumeric()) {
                return Err(usage("confirm (from the new address), confirm CODE (from yours)"));
            }
            Ok(Command::Confirm { code: Some(code) })
        }
        "players" | "roster" if rest.is_empty() => Ok(Command::Players),
        "vacation" => {
            let date = rest.strip_prefix("until").unwrap_or(rest).trim();
            date.parse::<jiff::civil::Date>()
                .map(|until| Command::Vacation { until })
                .map_err(|_| usage("vacation until YYYY-MM-DD"))
        }
        "back" if rest.is_empty() => Ok(Command::Back),
        "running" => office_run_for(rest)
            .map(|office| Command::RunningFor {
                office,
                running: true,
            })
            .ok_or_else(|| usage("running for OFFICE")),
        "not" if rest.starts_with("running") => office_run_for(rest["running".len()..].trim_start())
            .map(|office| Command::RunningFor {
                office,
                running: false,
            })
            .ok_or_else(|| usage("not running for OFFICE")),
        "home" if !rest.is_empty() => Ok(Command::Home { name: rest.to_owned() }),
        "home" => Err(usage("home NAME")),
        "gaol" | "jail" | "release" | "deactivate" | "activate" => {
            // An override takes a reason, like `adjust` and `as`: without one,
            // "deactivate Bob because he left" made "Bob because he left" the name.
            let form = format!("{verb} PLAYER because REASON");
            let (name, reason) = split_reason(rest, &form)?;
            if name.is_empty() {
                return Err(usage(&form));
            }
            let name = name.to_owned();
            Ok(match verb.as_str() {
                "gaol" | "jail" => Command::Gaol { name, reason },
                "release" => Command::Release { name, reason },
                "deactivate" => Command::Deactivate { name, reason },
                _ => Command::Activate { name, reason },
            })
        }
        _ => Err(NotUnderstood(
            Sentence::new("unknown_command").arg("tag", TAG).arg(
                "commands",
                "join NAME, leave, rename NAME, alias ADDRESS, confirm, confirm CODE, players, vacation until YYYY-MM-DD, back, home NAME, running for OFFICE, not running for OFFICE, give AMOUNT CURRENCY to NAME, balance, officers, standings, games, history, observe GAME, unobserve GAME, help (moderators: gaol, release, deactivate, activate, adjust, as, void, random)",
            ),
        )),
    }
}

/// How a name looks, to tell two names apart the way a reader would: its
/// confusable skeleton (Unicode TS #39: `Вob` with a Cyrillic В looks like `Bob`)
/// after compatibility normalisation (NFKC: fullwidth and mathematical letters
/// become plain ones), as written and lower-cased.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Look {
    as_written: String,
    lower_case: String,
}

impl Look {
    pub fn of(name: &str) -> Look {
        use unicode_normalization::UnicodeNormalization;
        let normal: String = name.trim().nfkc().collect();
        let skeleton = |text: &str| unicode_security::skeleton(text).collect::<String>();
        Look {
            as_written: skeleton(&normal),
            lower_case: skeleton(&normal.to_lowercase()),
        }
    }

    /// Two names are the same name when they look alike either way: ignoring case
    /// (`alice`, `ALICE`), or as written (`Ian` and `lan`, whose capital I is a
    /// small l).
    pub fn same_as(&self, other: &Look) -> bool {
        self.lower_case == other.lower_case || self.as_written == other.as_written
    }
}

/// The second confirmation of an alias request is in: the address is the player's.
/// The main address hears of it, unless it sent the confirmation and has the answer.
fn alias_made(player: &Player, address: &Address, sender: &Address) -> Done<Event> {
    let notice = Mail::new(
        Audience::Address(player.address.clone()),
        TAG,
        "alias_confirmed",
        json!({ "name": player.name, "address": address }),
    );
    Done {
        events: vec![Event::AliasConfirmed {
            id: player.id,
            address: address.clone(),
        }],
        mail: (&player.address != sender)
            .then_some(notice)
            .into_iter()
            .collect(),
        sentence: Sentence::new("alias_confirmed")
            .arg("address", address.as_str())
            .arg("name", &player.name),
    }
}

/// A done command with one event and one announcement on the list.
fn announced(
    event: Event,
    template: &str,
    values: serde_json::Value,
    sentence: Sentence,
) -> Done<Event> {
    Done {
        events: vec![event],
        mail: vec![Mail::new(Audience::List, TAG, template, values)],
        sentence,
    }
}

fn no_such_player(name: &str) -> Refusal {
    Refusal(Sentence::new("no_such_player").arg("name", name.trim()))
}

/// Crockford's base32: no I, L, O or U, so a code retyped from a screen survives.
const CODE_ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// The code mailed to a player to confirm adding `address`: 80 bits of the step's
/// secret entropy, which whoever sent the request cannot predict, written
/// `XXXX-XXXX-XXXX-XXXX`. The address is hashed in so that two `alias` lines of one
/// message get two codes.
fn alias_code(entropy: &[u8; 32], address: &Address) -> String {
    confirmation_code(entropy, "alias code", address)
}

/// A code that only the holder of an address can read, for `purpose`: 80 bits
/// of the step's secret entropy, written `XXXX-XXXX-XXXX-XXXX`.
pub fn confirmation_code(entropy: &[u8; 32], purpose: &str, address: &Address) -> String {
    let mut hasher = Sha256::new();
    hasher.update(entropy);
    hasher.update(purpose.as_bytes());
    hasher.update(b"\n");
    hasher.update(address.as_str().as_bytes());
    let digest = hasher.finalize();
    let bits = digest[..10]
        .iter()
        .fold(0_u128, |bits, byte| bits << 8 | u128::from(*byte));
    let mut code = String::new();
    for n in 0..16 {
        if n > 0 && n % 4 == 0 {
            code.push('-');
        }
        let index = (bits >> (75 - 5 * n)) & 31;
        code.push(char::from(CODE_ALPHABET[index as usize]));
    }
    code
}

/// A code as typed, the way it is compared: any case, dashes and spaces ignored,
/// and the letters Crockford's alphabet leaves out read as the digits they look like.
pub fn code_key(typed: &str) -> String {
    typed
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .map(|c| match c.to_ascii_uppercase() {
            'O' => '0',
            'I' | 'L' => '1',
            c => c,
        })
        .collect()
}

/// What the registry keeps of a code: its SHA-256 (hex). The log and `state` are the
/// operator's to read, and a code kept in them could be read off and sent.
pub fn code_hash(key: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"nomicbot alias code\n");
    hasher.update(key.as_bytes());
    hasher
        .finalize()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

impl Registry {
    /// The registry without its players: what the store keeps beside the
    /// players' own rows. Every field named, so a new one is not forgotten.
    pub fn without_players(&self) -> Registry {
        let Registry {
            players: _,
            pending_aliases,
            retired_ids,
            passphrases,
            pending_passphrases,
            observers,
            names: _,
        } = self;
        Registry {
            players: Vec::new(),
            pending_aliases: pending_aliases.clone(),
            retired_ids: retired_ids.clone(),
            passphrases: passphrases.clone(),
            pending_passphrases: pending_passphrases.clone(),
            observers: observers.clone(),
            names: NameIndex::default(),
        }
    }

    /// The registry with these players (read back from the store's rows); the
    /// name index is built again at the first need.
    pub fn with_players(self, players: Vec<Arc<Player>>) -> Registry {
        Registry {
            players,
            names: NameIndex::default(),
            ..self
        }
    }

    /// The player (active or not) known by this address, main or alias.
    pub fn by_address(&self, address: &Address) -> Option<&Player> {
        self.players
            .iter()
            .find(|p| p.has_address(address))
            .map(Arc::as_ref)
    }

    pub fn active_by_address(&self, address: &Address) -> Option<&Player> {
        self.by_address(address).filter(|p| p.is_active())
    }

    pub fn by_id(&self, id: PlayerId) -> Option<&Player> {
        self.players.iter().find(|p| p.id == id).map(Arc::as_ref)
    }

    /// The id the next new player gets: one above every id ever given out, the
    /// players' and those of voided joins alike.
    pub fn next_id(&self) -> PlayerId {
        let players = self.players.iter().map(|p| p.id);
        players
            .chain(self.retired_ids.iter().copied())
            .max()
            .unwrap_or(0)
            + 1
    }

    /// The fold left this event out (its message was voided): an id it gave out
    /// stays used.
    pub fn skipped_event(&mut self, event: &Event) {
        if let Event::Joined { id, .. } = event
            && !self.retired_ids.contains(id)
        {
            self.retired_ids.push(*id);
        }
    }

    fn with(&mut self, id: PlayerId, change: impl FnOnce(&mut Player)) {
        if let Some(player) = self.players.iter_mut().find(|p| p.id == id) {
            change(Arc::make_mut(player));
        }
    }

    /// The players who count as active at `now`: what games ask when they need
    /// "the active players" (not left, not inactive, not on vacation).
    pub fn active_at(&self, now: Timestamp) -> impl Iterator<Item = &Player> {
        self.players
            .iter()
            .map(Arc::as_ref)
            .filter(move |p| p.is_active_at(now))
    }

    /// An active player by name: the one so called, ignoring case, else the one
    /// name that looks the same (`same_look`) when only one does.
    pub fn by_name(&self, name: &str) -> Option<&Player> {
        let name = name.trim();
        if let Some(player) = self.active().find(|p| p.name.eq_ignore_ascii_case(name)) {
            return Some(player);
        }
        let look = Look::of(name);
        let mut alike = self.active().filter(|p| p.looks_like(&look));
        match (alike.next(), alike.next()) {
            (Some(player), None) => Some(player),
            _ => None,
        }
    }

    pub fn active(&self) -> impl Iterator<Item = &Player> {
        self.players
            .iter()
            .map(Arc::as_ref)
            .filter(|p| p.is_active())
    }

    /// Another active player whose name is this one or looks like it: `Аlice`
    /// (Cyrillic А), `Ａlice` (fullwidth) and `𝐀lice` (mathematical bold) are all
    /// Alice's name.
    fn name_taken_by_other(&self, name: &str, me: Option<PlayerId>) -> Option<&Player> {
        let look = Look::of(name);
        let alike: Vec<PlayerId> = self
            .names()
            .alike(&look)
            .into_iter()
            .filter(|id| Some(*id) != me)
            .collect();
        if alike.is_empty() {
            return None;
        }
        // The first in the registry's order, as a scan of every player would name.
        self.active().find(|p| alike.contains(&p.id))
    }

    fn names(&self) -> &Names {
        self.names
            .0
            .get_or_init(|| Arc::new(Names::of(&self.players)))
    }

    /// Keeps the index, if built, current with a change of the player `id`'s
    /// name or standing: `change` runs between taking the player's old entry out
    /// and putting the new one in.
    fn reindexed(&mut self, id: PlayerId, change: impl FnOnce(&mut Player)) {
        let Some(player) = self.players.iter_mut().find(|p| p.id == id) else {
            return;
        };
        let player = Arc::make_mut(player);
        let Some(names) = self.names.0.get_mut() else {
            change(player);
            return;
        };
        let names = Arc::make_mut(names);
        if player.is_active() {
            names.remove(id, &player.look());
        }
        change(player);
        if player.is_active() {
            names.insert(id, &player.look());
        }
    }

    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        match event {
            Event::Joined { id, name, address } => {
                let player = Player {
                    id: *id,
                    name: name.clone(),
                    address: address.clone(),
                    aliases: Vec::new(),
                    joined_at: at,
                    left_at: None,
                    vacation_until: None,
                    inactive: false,
                    in_gaol: false,
                    home: None,
                    running_for: Vec::new(),
                    look: LookCache::default(),
                };
                if let Some(names) = self.names.0.get_mut() {
                    Arc::make_mut(names).insert(*id, &player.look());
                }
                self.players.push(Arc::new(player));
            }
            Event::Rejoined { id, name } => self.reindexed(*id, |player| {
                player.name = name.clone();
                player.look = LookCache::default();
                player.joined_at = at;
                player.left_at = None;
            }),
            Event::Left { id } => {
                self.reindexed(*id, |player| player.left_at = Some(at));
                self.pending_aliases.retain(|pending| pending.player != *id);
            }
            Event::Renamed { id, name } => self.reindexed(*id, |player| {
                player.name = name.clone();
                player.look = LookCache::default();
            }),
            Event::AliasRequested {
                id,
                address,
                expires_at,
                code_hash,
            } => {
                self.pending_aliases
                    .retain(|pending| &pending.address != address);
                self.pending_aliases.push(PendingAlias {
                    player: *id,
                    address: address.clone(),
                    requested_at: at,
                    expires_at: *expires_at,
                    code_hash: code_hash.clone(),
                    address_confirmed: false,
                    confirmed_by: None,
                });
            }
            Event::AliasAddressConfirmed { id, address } => {
                for pending in self.pending_aliases.iter_mut() {
                    if pending.player == *id && &pending.address == address {
                        pending.address_confirmed = true;
                    }
                }
            }
            Event::AliasPlayerConfirmed { id, address, by } => {
                for pending in self.pending_aliases.iter_mut() {
                    if pending.player == *id && &pending.address == address {
                        pending.confirmed_by = Some(by.clone());
                    }
                }
            }
            Event::AliasConfirmed { id, address } => {
                self.pending_aliases
                    .retain(|pending| &pending.address != address);
                self.with(*id, |player| player.aliases.push(address.clone()));
            }
            Event::AliasExpired { address, .. } | Event::AliasCancelled { address, .. } => {
                self.pending_aliases
                    .retain(|pending| &pending.address != address);
            }
            Event::VacationStarted { id, until } => {
                self.with(*id, |p| p.vacation_until = Some(*until))
            }
            Event::VacationEnded { id } => self.with(*id, |p| p.vacation_until = None),
            Event::Gaoled { id, .. } => self.with(*id, |p| p.in_gaol = true),
            Event::Released { id, .. } => self.with(*id, |p| p.in_gaol = false),
            Event::MarkedInactive { id, .. } => self.with(*id, |p| p.inactive = true),
            Event::MarkedActive { id, .. } => self.with(*id, |p| p.inactive = false),
            Event::HomeSet { id, home } => self.with(*id, |p| p.home = Some(home.clone())),
            Event::RunningFor { id, office } => self.with(*id, |p| {
                if !p.runs_for(office) {
                    p.running_for.push(office.clone());
                }
            }),
            Event::NotRunningFor { id, office } => self.with(*id, |p| {
                p.running_for.retain(|o| !o.eq_ignore_ascii_case(office));
            }),
            Event::PassphraseSet {
                address,
                salt,
                hash,
            } => {
                self.passphrases.retain(|p| &p.address != address);
                self.pending_passphrases
                    .retain(|p| &p.passphrase.address != address);
                self.passphrases.push(Passphrase {
                    address: address.clone(),
                    salt: salt.clone(),
                    hash: hash.clone(),
                });
            }
            Event::PassphraseCleared { address } => {
                self.passphrases.retain(|p| &p.address != address);
                self.pending_passphrases
                    .retain(|p| &p.passphrase.address != address);
            }
            Event::PassphraseRequested {
                address,
                salt,
                hash,
                code_hash,
            } => {
                self.pending_passphrases
                    .retain(|p| &p.passphrase.address != address);
                self.pending_passphrases.push(PendingPassphrase {
                    passphrase: Passphrase {
                        address: address.clone(),
                        salt: salt.clone(),
                        hash: hash.clone(),
                    },
                    code_hash: code_hash.clone(),
                });
            }
            Event::PassphraseRequestCancelled { address } => {
                self.pending_passphrases
                    .retain(|p| &p.passphrase.address != address);
            }
            Event::ObserveRequested {
                address,
                game,
                code_hash,
            } => {
                self.observers
                    .retain(|o| !(&o.address == address && &o.game == game));
                self.observers.push(Observer {
                    address: address.clone(),
                    game: game.clone(),
                    confirmed: false,
                    code_hash: code_hash.clone(),
                });
            }
            Event::ObserveConfirmed { address, game } => {
                for observer in &mut self.observers {
                    if &observer.address == address && &observer.game == game {
                        observer.confirmed = true;
                    }
                }
            }
            Event::Unobserved { address, game } => {
                self.observers
                    .retain(|o| !(&o.address == address && &o.game == game));
            }
        }
    }

    /// The confirmed observers of a game (its own tag, lower-case).
    pub fn observers_of(&self, game: &str) -> Vec<&Address> {
        self.observers
            .iter()
            .filter(|o| o.confirmed && o.game == game)
            .map(|o| &o.address)
            .collect()
    }

    /// The passphrase `address` requires, if it requires one.
    pub fn passphrase(&self, address: &Address) -> Option<&Passphrase> {
        self.passphrases.iter().find(|p| &p.address == address)
    }

    /// The registry as anyone may see it: which addresses require a passphrase,
    /// not its hash (a weak passphrase could be guessed from it), nor the hash of
    /// an alias request's code.
    pub fn public_view(&self) -> Registry {
        let mut public = self.clone();
        for passphrase in &mut public.passphrases {
            passphrase.salt = String::new();
            passphrase.hash = "(hidden)".to_owned();
        }
        for pending in &mut public.pending_aliases {
            if pending.code_hash.is_some() {
                pending.code_hash = Some("(hidden)".to_owned());
            }
        }
        for pending in &mut public.pending_passphrases {
            pending.passphrase.salt = String::new();
            pending.passphrase.hash = "(hidden)".to_owned();
            pending.code_hash = "(hidden)".to_owned();
        }
        for observer in &mut public.observers {
            observer.code_hash = "(hidden)".to_owned();
        }
        public
    }

    /// The passphrase waiting for `address`'s confirmation, if one is.
    pub fn pending_passphrase(&self, address: &Address) -> Option<&PendingPassphrase> {
        self.pending_passphrases
            .iter()
            .find(|p| &p.passphrase.address == address)
    }

    /// Whether `public_view` hides anything.
    pub fn has_secrets(&self) -> bool {
        !self.passphrases.is_empty()
            || !self.pending_passphrases.is_empty()
            || self.pending_aliases.iter().any(|p| p.code_hash.is_some())
            || !self.observers.is_empty()
    }

    /// Carries out one command. On `Err` nothing happened.
    /// Carries out one command; `is_moderator` says whether the sender holds a
    /// moderator's office (gaol, release, activate, deactivate need it).
    pub fn apply(
        &self,
        command: Command,
        ctx: &Ctx,
        params: &Params,
        is_moderator: bool,
    ) -> Result<Done<Event>, Refusal> {
        let me = self.by_address(&ctx.sender);
        let active_me = me.filter(|p| p.is_active());
        let not_a_player =
            || Refusal(Sentence::new("not_a_player").arg("address", ctx.sender.as_str()));
        match command {
            Command::Join { name } => {
                if let Some(player) = active_me {
                    return Err(Sentence::new("already_playing")
                        .arg("name", &player.name)
                        .into());
                }
                let name = self.check_name(&name, None, params)?;
                let (event, id) = match me {
                    Some(former) => (
                        Event::Rejoined {
                            id: former.id,
                            name: name.clone(),
                        },
                        former.id,
                    ),
                    None => {
                        let id = self.next_id();
                        (
                            Event::Joined {
                                id,
                                name: name.clone(),
                                address: ctx.sender.clone(),
                            },
                            id,
                        )
                    }
                };
                let n_players = self.active().count() + 1;
                Ok(Done {
                    events: vec![event],
                    mail: vec![Mail::new(
                        Audience::List,
                        TAG,
                        "player_joined",
                        json!({ "name": name, "id": id, "at": human_time(ctx.now), "n_players": n_players }),
                    )],
                    sentence: Sentence::new("joined").arg("name", name),
                })
            }
            Command::Leave => {
                let player = active_me.ok_or_else(not_a_player)?;
                let n_players = self.active().count() - 1;
                Ok(Done {
                    events: vec![Event::Left { id: player.id }],
                    mail: vec![Mail::new(
                        Audience::List,
                        TAG,
                        "player_left",
                        json!({ "name": player.name, "at": human_time(ctx.now), "n_players": n_players }),
                    )],
                    sentence: Sentence::new("left").arg("name", &player.name),
                })
            }
            Command::Rename { name } => {
                let player = active_me.ok_or_else(not_a_player)?;
                let name = self.check_name(&name, Some(player.id), params)?;
                if name == player.name {
                    return Err(Sentence::new("same_name").arg("name", name).into());
                }
                Ok(Done {
                    events: vec![Event::Renamed {
                        id: player.id,
                        name: name.clone(),
                    }],
                    mail: vec![Mail::new(
                        Audience::List,
                        TAG,
                        "player_renamed",
                        json!({ "old_name": player.name, "new_name": name, "at": human_time(ctx.now) }),
                    )],
                    sentence: Sentence::new("renamed").arg("name", name),
                })
            }
            Command::Alias { address } => {
                let player = active_me.ok_or_else(not_a_player)?;
                if !address.looks_valid() || !(params.can_write_to)(address.as_str()) {
                    return Err(Sentence::new("bad_address")
                        .arg("address", address.as_str())
                        .into());
                }
                if params.own_addresses.contains(&address) {
                    return Err(Sentence::new("alias_own_address")
                        .arg("address", address.as_str())
                        .into());
                }
                if let Some(owner) = self.by_address(&address) {
                    return Err(Sentence::new("address_in_use")
                        .arg("address", address.as_str())
                        .arg("name", &owner.name)
                        .into());
                }
                // One request per new address: were another player's replaced, the
                // new address's `confirm` could complete a request it never saw.
                if self
                    .pending_aliases
                    .iter()
                    .any(|pending| pending.address == address && pending.player != player.id)
                {
                    return Err(Sentence::new("alias_pending_elsewhere")
                        .arg("address", address.as_str())
                        .into());
                }
                let expires_at = ctx
                    .now
                    .checked_add(jiff::SignedDuration::from_hours(i64::from(
                        params.alias_confirm_hours,
                    )))
                    .unwrap_or(ctx.now);
                let code = alias_code(&ctx.entropy, &address);
                Ok(Done {
                    events: vec![Event::AliasRequested {
                        id: player.id,
                        address: address.clone(),
                        expires_at,
                        code_hash: Some(code_hash(&code_key(&code))),
                    }],
                    mail: vec![
                        Mail::new(
                            Audience::Address(address.clone()),
                            TAG,
                            "alias_confirm_request",
                            json!({
                                "name": player.name,
                                "address": address,
                                "main_address": player.address,
                                "expires": human_time(expires_at),
                            }),
                        ),
                        // The code goes only where the player reads: whoever
                        // forged the request from eir address never sees it.
                        Mail::new(
                            Audience::Address(player.address.clone()),
                            TAG,
                            "alias_player_request",
                            json!({
                                "name": player.name,
                                "address": address,
                                "requested_by": ctx.signature(),
                                "public": ctx.public,
                                "at": human_time(ctx.now),
                                "code": code,
                                "expires": human_time(expires_at),
                            }),
                        ),
                    ],
                    sentence: Sentence::new("alias_requested")
                        .arg("address", address.as_str())
                        .arg("main_address", player.address.as_str())
                        .arg("expires", human_time(expires_at)),
                })
            }
            Command::Confirm { code: None } => {
                let pending = self
                    .pending_aliases
                    .iter()
                    .find(|pending| pending.address == ctx.sender)
                    .ok_or_else(|| {
                        Refusal(
                            Sentence::new("no_pending_alias").arg("address", ctx.sender.as_str()),
                        )
                    })?;
                let player = self.pending_player(pending)?;
                if pending.address_confirmed {
                    return Err(Sentence::new("alias_waiting_for_player")
                        .arg("address", pending.address.as_str())
                        .arg("main_address", player.address.as_str())
                        .into());
                }
                if pending.confirmed_by.is_some() {
                    return Ok(alias_made(player, &pending.address, &ctx.sender));
                }
                Ok(Done {
                    events: vec![Event::AliasAddressConfirmed {
                        id: player.id,
                        address: pending.address.clone(),
                    }],
                    mail: Vec::new(),
                    sentence: Sentence::new("alias_address_confirmed")
                        .arg("address", pending.address.as_str())
                        .arg("name", &player.name)
                        .arg("main_address", player.address.as_str()),
                })
            }
            Command::Confirm { code: Some(key) } => {
                let hash = code_hash(&key);
                let pending = self
                    .pending_aliases
                    .iter()
                    .find(|pending| pending.code_hash.as_ref() == Some(&hash))
                    .ok_or_else(|| Refusal(Sentence::new("alias_code_wrong")))?;
                let player = self.pending_player(pending)?;
                // A code seen on the list, or in the hands of an address that is not
                // the player's (the new one included), may be in a forger's: it is
                // burnt, and the player asks again.
                let burnt = if ctx.public {
                    Some("code_public")
                } else if !player.has_address(&ctx.sender) {
                    Some("code_from_another_address")
                } else {
                    None
                };
                if let Some(reason) = burnt {
                    return Ok(Done {
                        events: vec![Event::AliasCancelled {
                            id: player.id,
                            address: pending.address.clone(),
                            reason: reason.to_owned(),
                        }],
                        mail: vec![Mail::new(
                            Audience::Address(player.address.clone()),
                            TAG,
                            "alias_cancelled",
                            json!({
                                "name": player.name,
                                "address": pending.address,
                                "reason": reason,
                                "sender": ctx.sender,
                                "at": human_time(ctx.now),
                            }),
                        )],
                        sentence: Sentence::new("alias_code_burnt")
                            .arg("address", pending.address.as_str())
                            .arg("reason", reason),
                    });
                }
                if pending.confirmed_by.is_some() {
                    return Err(Sentence::new("alias_waiting_for_address")
                        .arg("address", pending.address.as_str())
                        .into());
                }
                if pending.address_confirmed {
                    return Ok(alias_made(player, &pending.address, &ctx.sender));
                }
                Ok(Done {
                    events: vec![Event::AliasPlayerConfirmed {
                        id: player.id,
                        address: pending.address.clone(),
                        by: ctx.sender.clone(),
                    }],
                    mail: Vec::new(),
                    sentence: Sentence::new("alias_player_confirmed")
                        .arg("address", pending.address.as_str()),
                })
            }
            Command::Players => {
                let mut roster = self.roster();
                let count = roster.len();
                roster.truncate(params.roster_names);
                Ok(Done {
                    events: Vec::new(),
                    mail: Vec::new(),
                    sentence: Sentence::new("roster")
                        .arg("players", roster)
                        .arg("count", count)
                        .arg("more", count.saturating_sub(params.roster_names))
                        // Where the full roster can be read. There is no web record
                        // yet: once there is, its address of the roster goes here
                        // and the answer links to it instead of naming `state`.
                        .arg("full_roster", serde_json::Value::Null),
                })
            }
            Command::Vacation { until } => {
                let player = active_me.ok_or_else(not_a_player)?;
                // The return is announced as a date: the vacation ends as that day begins (UTC).
                // A day past the last instant time can hold (9999-12-31) is beyond any
                // longest vacation, and refused as that, never as a day in the past.
                let until_at = until
                    .to_zoned(jiff::tz::TimeZone::UTC)
                    .map(|z| z.timestamp())
                    .ok();
                if until_at.is_some_and(|until_at| until_at <= ctx.now) {
                    return Err(Sentence::new("vacation_in_past")
                        .arg("date", until.to_string())
                        .into());
                }
                let longest = ctx
                    .now
                    .checked_add(jiff::SignedDuration::from_hours(
                        24 * i64::from(params.max_vacation_days),
                    ))
                    .unwrap_or(jiff::Timestamp::MAX);
                let until_at = match until_at {
                    Some(until_at) if until_at <= longest => until_at,
                    _ => {
                        return Err(Sentence::new("vacation_too_long")
                            .arg("date", until.to_string())
                            .arg("max_days", params.max_vacation_days)
                            .arg("latest", longest.strftime("%Y-%m-%d").to_string())
                            .into());
                    }
                };
                Ok(announced(
                    Event::VacationStarted {
                        id: player.id,
                        until: until_at,
                    },
                    "player_vacation",
                    json!({ "name": player.name, "until": until.to_string(), "at": human_time(ctx.now) }),
                    Sentence::new("vacation_started").arg("date", until.to_string()),
                ))
            }
            Command::Back => {
                let player = active_me.ok_or_else(not_a_player)?;
                if player.vacation_until.is_none_or(|until| until <= ctx.now) {
                    return Err(Sentence::new("not_on_vacation").into());
                }
                Ok(announced(
                    Event::VacationEnded { id: player.id },
                    "player_back",
                    json!({ "name": player.name, "at": human_time(ctx.now) }),
                    Sentence::new("vacation_ended"),
                ))
            }
            Command::RunningFor { office, running } => {
                let player = active_me.ok_or_else(not_a_player)?;
                let events = match (running, player.runs_for(&office)) {
                    (true, false) => vec![Event::RunningFor {
                        id: player.id,
                        office: office.clone(),
                    }],
                    (false, true) => vec![Event::NotRunningFor {
                        id: player.id,
                        office: office.clone(),
                    }],
                    _ => Vec::new(),
                };
                Ok(Done {
                    events,
                    mail: Vec::new(),
                    sentence: Sentence::new("running_for")
                        .arg("office", office)
                        .arg("running", running),
                })
            }
            Command::Home { name } => {
                let player = active_me.ok_or_else(not_a_player)?;
                let home = name.split_whitespace().collect::<Vec<_>>().join(" ");
                Ok(Done {
                    events: vec![Event::HomeSet {
                        id: player.id,
                        home: home.clone(),
                    }],
                    mail: Vec::new(),
                    sentence: Sentence::new("home_set").arg("home", home),
                })
            }
            Command::Gaol { .. }
            | Command::Release { .. }
            | Command::Deactivate { .. }
            | Command::Activate { .. }
                if !is_moderator =>
            {
                Err(Sentence::new("moderators_only").into())
            }
            Command::Gaol { name, reason } => {
                let player = self.by_name(&name).ok_or_else(|| no_such_player(&name))?;
                if player.in_gaol {
                    return Err(Sentence::new("already_in_gaol")
                        .arg("name", &player.name)
                        .into());
                }
                Ok(announced(
                    Event::Gaoled {
                        id: player.id,
                        officer: Some(ctx.sender.clone()),
                        reason: reason.clone(),
                    },
                    "player_gaoled",
                    json!({ "name": player.name, "officer": ctx.signature(), "reason": reason, "at": human_time(ctx.now) }),
                    Sentence::new("gaoled").arg("name", &player.name),
                ))
            }
            Command::Release { name, reason } => {
                let player = self.by_name(&name).ok_or_else(|| no_such_player(&name))?;
                if !player.in_gaol {
                    return Err(Sentence::new("not_in_gaol")
                        .arg("name", &player.name)
                        .into());
                }
                Ok(announced(
                    Event::Released {
                        id: player.id,
                        officer: Some(ctx.sender.clone()),
                        reason: reason.clone(),
                    },
                    "player_released",
                    json!({ "name": player.name, "officer": ctx.signature(), "reason": reason, "at": human_time(ctx.now) }),
                    Sentence::new("released").arg("name", &player.name),
                ))
            }
            Command::Deactivate {
                ref name,
                ref reason,
            }
            | Command::Activate {
                ref name,
                ref reason,
            } => {
                let deactivate = matches!(command, Command::Deactivate { .. });
                let player = self.by_name(name).ok_or_else(|| no_such_player(name))?;
                if player.inactive == deactivate {
                    return Err(Sentence::new("standing_unchanged")
                        .arg("name", &player.name)
                        .into());
                }
                let (id, officer) = (player.id, Some(ctx.sender.clone()));
                let event = if deactivate {
                    Event::MarkedInactive {
                        id,
                        officer,
                        reason: reason.clone(),
                    }
                } else {
                    Event::MarkedActive {
                        id,
                        officer,
                        reason: reason.clone(),
                    }
                };
                Ok(announced(
                    event,
                    "player_standing",
                    json!({ "name": player.name, "active": !deactivate, "officer": ctx.signature(), "reason": reason, "at": human_time(ctx.now) }),
                    Sentence::new("standing_changed")
                        .arg("name", &player.name)
                        .arg("active", !deactivate),
                ))
            }
        }
    }

    /// The player a pending request is for, if it can still complete: the player
    /// plays, the request carries the player's code, the address is nobody's yet.
    fn pending_player(&self, pending: &PendingAlias) -> Result<&Player, Refusal> {
        let player = self
            .by_id(pending.player)
            .filter(|p| p.is_active())
            .ok_or_else(|| {
                Refusal(Sentence::new("no_pending_alias").arg("address", pending.address.as_str()))
            })?;
        if pending.code_hash.is_none() {
            return Err(Sentence::new("alias_request_outdated")
                .arg("address", pending.address.as_str())
                .into());
        }
        if let Some(owner) = self.by_address(&pending.address) {
            return Err(Sentence::new("address_in_use")
                .arg("address", pending.address.as_str())
                .arg("name", &owner.name)
                .into());
        }
        Ok(player)
    }

    /// The active players, for the roster and `state`.
    pub fn roster(&self) -> Vec<serde_json::Value> {
        self.active()
            .map(|p| {
                json!({
                    "name": p.name,
                    "address": p.address,
                    "aliases": p.aliases,
                    "joined": human_time(p.joined_at),
                    "home": p.home_name(),
                    "vacation_until": p.vacation_until.map(human_time),
                    "in_gaol": p.in_gaol,
                    "inactive": p.inactive,
                })
            })
            .collect()
    }

    fn check_name(
        &self,
        name: &str,
        me: Option<PlayerId>,
        params: &Params,
    ) -> Result<String, Refusal> {
        let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
        let allowed = |c: char| c.is_alphanumeric() || " -_.'".contains(c);
        if name.chars().count() > params.max_name_chars || !name.chars().all(allowed) {
            return Err(Sentence::new("bad_name")
                .arg("name", &name)
                .arg("max", params.max_name_chars)
                .into());
        }
        // Two names would make a command mean two things: "the Treasury" is an
        // account (`give 5 A$ to the Treasury`), and "because" starts a
        // moderator's reason (`gaol NAME because REASON`). Look-alikes of the
        // Treasury's name are refused as the name itself is.
        let reserved = if super::accounts::names_the_treasury(&name) {
            Some("treasury")
        } else if name
            .split_whitespace()
            .any(|word| word.eq_ignore_ascii_case("because"))
        {
            Some("because")
        } else {
            None
        };
        if let Some(reserved) = reserved {
            return Err(Sentence::new("name_reserved")
                .arg("name", &name)
                .arg("reserved", reserved)
                .into());
        }
        if let Some(other) = self.name_taken_by_other(&name, me) {
            return Err(Sentence::new("name_taken").arg("name", &other.name).into());
        }
        Ok(name)
    }

    /// The earliest moment something must happen without any mail: an alias request expiring.
    pub fn next_deadline(&self) -> Option<Timestamp> {
        let vacations = self.active().filter_map(|p| p.vacation_until);
        self.pending_aliases
            .iter()
            .map(|pending| pending.expires_at)
            .chain(vacations)
            .min()
    }

    /// Everything due at `now`: expired alias requests are dropped and the player told.
    pub fn tick(&self, now: Timestamp) -> (Vec<Event>, Vec<Mail>) {
        let mut events = Vec::new();
        let mut mail = Vec::new();
        for pending in self.pending_aliases.iter().filter(|p| p.expires_at <= now) {
            events.push(Event::AliasExpired {
                id: pending.player,
                address: pending.address.clone(),
            });
            if let Some(player) = self.by_id(pending.player) {
                mail.push(Mail::new(
                    Audience::Address(player.address.clone()),
                    TAG,
                    "alias_expired",
                    json!({
                        "name": player.name,
                        "address": pending.address,
                        "requested": human_time(pending.requested_at),
                        "address_confirmed": pending.address_confirmed,
                        "player_confirmed": pending.confirmed_by.is_some(),
                    }),
                ));
            }
        }
        // A vacation ends by itself on the announced day: the player is back.
        for player in self
            .active()
            .filter(|p| p.vacation_until.is_some_and(|until| until <= now))
        {
            events.push(Event::VacationEnded { id: player.id });
            mail.push(Mail::new(
                Audience::List,
                TAG,
                "player_back",
                json!({ "name": player.name, "at": human_time(now) }),
            ));
        }
        (events, mail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(sender: &str, minutes: i64) -> Ctx {
        Ctx {
            now: Timestamp::from_second(1_800_000_000 + minutes * 60).unwrap(),
            sender: Address::new(sender),
            sender_name: None,
            public: true,
            entropy: [7; 32],
        }
    }

    /// Applies a line as the shell would, and returns the mail it asked for.
    fn run(registry: &mut Registry, line: &str, ctx: &Ctx) -> Result<Vec<Mail>, Refusal> {
        let command = parse(line).map_err(|NotUnderstood(s)| Refusal(s))?;
        let done = registry.apply(
            command,
            ctx,
            &Params::default(),
            ctx.sender.as_str() == "mod@x.org",
        )?;
        for event in &done.events {
            registry.apply_event(event, ctx.now);
        }
        Ok(done.mail)
    }

    #[test]
    fn join_announces_and_refuses_a_second_join() {
        let mut registry = Registry::default();
        let mail = run(&mut registry, "join Alice", &ctx("Alice@Example.org", 0)).unwrap();
        assert_eq!(mail[0].to, Audience::List);
        assert_eq!(mail[0].template, "player_joined");
        let again = run(&mut registry, "join Alice", &ctx("alice@example.org", 1)).unwrap_err();
        assert_eq!(again.0.code, "already_playing");
        let taken = run(&mut registry, "join alice", &ctx("other@example.org", 2)).unwrap_err();
        assert_eq!(taken.0.code, "name_taken");
    }

    #[test]
    fn a_look_alike_is_refused_among_2000_players_and_a_rename_changes_the_kept_look() {
        let mut registry = Registry::default();
        for i in 0..2000 {
            run(
                &mut registry,
                &format!("join Player {i}"),
                &ctx(&format!("p{i}@x.org"), 0),
            )
            .unwrap();
        }
        run(&mut registry, "join Alice", &ctx("a@x.org", 1)).unwrap();
        // Cyrillic А: the kept look of Alice still catches it.
        let refused = run(&mut registry, "join \u{410}lice", &ctx("m@x.org", 2)).unwrap_err();
        assert_eq!(refused.0.code, "name_taken");
        assert_eq!(refused.0.args["name"], "Alice");
        // After a rename the old name is free and the new one taken, look-alikes too.
        run(&mut registry, "rename Alicia", &ctx("a@x.org", 3)).unwrap();
        let taken = run(&mut registry, "join AL\u{406}CIA", &ctx("n@x.org", 4)).unwrap_err();
        assert_eq!(taken.0.code, "name_taken");
        assert_eq!(taken.0.args["name"], "Alicia");
        run(&mut registry, "join \u{410}lice", &ctx("m@x.org", 5)).unwrap();
        // A registry read back from its JSON has no looks kept, and is equal.
        let json = serde_json::to_string(&registry).unwrap();
        let back: Registry = serde_json::from_str(&json).unwrap();
        assert_eq!(back, registry);
        let mut back = back;
        let refused = run(&mut back, "join player 7", &ctx("q@x.org", 6)).unwrap_err();
        assert_eq!(refused.0.code, "name_taken");
    }

    /// What `name_taken_by_other` answered before the index: a look at every
    /// active player.
    fn scanned(registry: &Registry, name: &str, me: Option<PlayerId>) -> Option<PlayerId> {
        let look = Look::of(name);
        registry
            .active()
            .find(|p| Some(p.id) != me && p.looks_like(&look))
            .map(|p| p.id)
    }

    const PROBES: [&str; 14] = [
        "Bob",
        "\u{412}ob",
        "bob",
        "Ian",
        "lan",
        "IAN",
        "\u{ff21}lice",
        "alice",
        "Alicia",
        "Carol",
        "carol",
        "Dave",
        "Eve",
        "Nobody",
    ];

    /// The index and a full scan name the same player for every probe, for
    /// every player as "me" and for none.
    fn agrees(registry: &Registry) {
        let mes = registry.players.iter().map(|p| Some(p.id)).chain([None]);
        for me in mes {
            for probe in PROBES {
                assert_eq!(
                    registry.name_taken_by_other(probe, me).map(|p| p.id),
                    scanned(registry, probe, me),
                    "{probe} for {me:?}"
                );
            }
        }
    }

    #[test]
    fn issue_30_the_name_index_agrees_with_a_scan_after_joins_renames_leaves_and_reloads() {
        let mut registry = Registry::default();
        let steps = [
            ("b@x.org", "join \u{412}ob"),
            ("i@x.org", "join lan"),
            ("a@x.org", "join \u{ff21}lice"),
            ("c@x.org", "join Carol"),
            ("d@x.org", "join Dave"),
            ("c@x.org", "rename Eve"),
            ("e@x.org", "join carol"),
            ("d@x.org", "leave"),
            ("i@x.org", "rename Ian"),
            ("a@x.org", "vacation until 2027-03-01"),
            ("mod@x.org", "deactivate carol because away"),
            ("b@x.org", "leave"),
            ("b@x.org", "join Bob"),
            ("d@x.org", "join Dave"),
            ("i@x.org", "leave"),
        ];
        // One registry checked (so its index is built early and kept current),
        // one replayed from JSON midway and never checked until the end.
        let mut replayed: Option<Registry> = None;
        let mut events = Vec::new();
        for (minutes, (sender, line)) in steps.into_iter().enumerate() {
            let ctx = ctx(sender, minutes as i64);
            let command = parse(line).map_err(|NotUnderstood(s)| Refusal(s)).unwrap();
            let done = registry
                .apply(command, &ctx, &Params::default(), sender == "mod@x.org")
                .unwrap_or_else(|refusal| panic!("{line}: {refusal:?}"));
            for event in &done.events {
                registry.apply_event(event, ctx.now);
                if let Some(replayed) = replayed.as_mut() {
                    replayed.apply_event(event, ctx.now);
                } else {
                    events.push((event.clone(), ctx.now));
                }
            }
            agrees(&registry);
            if minutes == 6 {
                let json = serde_json::to_string(&registry).unwrap();
                replayed = Some(serde_json::from_str(&json).unwrap());
            }
        }
        let replayed = replayed.unwrap();
        assert_eq!(replayed, registry);
        agrees(&replayed);
        // Read back at the end, and replayed from the start.
        let json = serde_json::to_string(&registry).unwrap();
        let back: Registry = serde_json::from_str(&json).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), json);
        agrees(&back);
        let mut fresh = Registry::default();
        for (event, at) in &events {
            fresh.apply_event(event, *at);
        }
        agrees(&fresh);
        // The look-alikes, named: Вob's name went with em, Bob is Bob's again;
        // Ian (once lan) left, so lan is free; Ａlice on vacation and carol
        // deactivated keep their names.
        assert_eq!(
            registry.name_taken_by_other("CAROL", None).unwrap().name,
            "carol"
        );
        assert_eq!(
            registry.name_taken_by_other("bob", None).unwrap().name,
            "Bob"
        );
        assert!(registry.name_taken_by_other("lan", None).is_none());
        let alice = registry.name_taken_by_other("alice", None).unwrap();
        assert_eq!(alice.name, "\u{ff21}lice");
        assert!(
            registry
                .name_taken_by_other("alice", Some(alice.id))
                .is_none()
        );
    }

    #[test]
    fn hardening_10_names_that_look_alike_are_the_same_name() {
        let mut registry = Registry::default();
        run(&mut registry, "join Alice", &ctx("a@x.org", 0)).unwrap();
        run(&mut registry, "join Bob", &ctx("b@x.org", 0)).unwrap();
        // Cyrillic А, fullwidth Ａ, mathematical bold 𝐀, and the case.
        for (n, name) in [
            "\u{410}lice",
            "\u{ff21}lice",
            "\u{1d400}lice",
            "ALICE",
            "Al\u{456}ce",
        ]
        .iter()
        .enumerate()
        {
            let refused = run(
                &mut registry,
                &format!("join {name}"),
                &ctx(&format!("m{n}@x.org"), 1),
            )
            .unwrap_err();
            assert_eq!(refused.0.code, "name_taken", "{name}");
            assert_eq!(refused.0.args["name"], "Alice");
        }
        // Cyrillic В while Bob exists.
        let refused = run(&mut registry, "rename \u{412}ob", &ctx("a@x.org", 2)).unwrap_err();
        assert_eq!(refused.0.code, "name_taken");
        assert_eq!(
            run(&mut registry, "join Ian", &ctx("i@x.org", 3)).map(|_| ()),
            Ok(())
        );
        assert_eq!(
            run(&mut registry, "join lan", &ctx("l@x.org", 3))
                .unwrap_err()
                .0
                .code,
            "name_taken"
        );
        // Names that only look alike find the player when one does.
        assert_eq!(registry.by_name("\u{410}LICE").map(|p| p.id), Some(1));
        assert_eq!(registry.by_name("Carol").map(|p| p.id), None);
        assert!(Look::of("Alice").same_as(&Look::of(" alice ")));
        assert!(!Look::of("Alice").same_as(&Look::of("Alicia")));
    }

    #[test]
    fn hardening_10_no_alias_to_the_bot_or_the_list_and_no_vacation_past_the_longest() {
        let mut registry = Registry::default();
        run(&mut registry, "join Alice", &ctx("a@x.org", 0)).unwrap();
        let params = Params {
            own_addresses: vec![Address::new("bot@x.org"), Address::new("list@x.org")],
            max_vacation_days: 30,
            ..Params::default()
        };
        let apply = |line: &str| {
            registry
                .apply(parse(line).unwrap(), &ctx("a@x.org", 1), &params, false)
                .map(|done| done.events)
        };
        for own in ["alias list@x.org", "alias <BOT@x.org>"] {
            assert_eq!(apply(own).unwrap_err().0.code, "alias_own_address");
        }
        assert!(apply("alias a2@x.org").is_ok());
        // 2027-01-15 is the day of the message: 30 days on is 2027-02-14.
        let refused = apply("vacation until 9999-12-31").unwrap_err().0;
        assert_eq!(refused.code, "vacation_too_long");
        assert_eq!(refused.args["latest"], "2027-02-14");
        assert_eq!(
            apply("vacation until 2027-02-15").unwrap_err().0.code,
            "vacation_too_long"
        );
        assert!(apply("vacation until 2027-02-14").is_ok());
        assert_eq!(
            apply("vacation until 2027-01-15").unwrap_err().0.code,
            "vacation_in_past"
        );
    }

    #[test]
    fn leave_then_join_again_keeps_the_player_id() {
        let mut registry = Registry::default();
        run(&mut registry, "join Alice", &ctx("a@x.org", 0)).unwrap();
        run(&mut registry, "leave", &ctx("a@x.org", 1)).unwrap();
        assert_eq!(registry.active().count(), 0);
        assert_eq!(
            run(&mut registry, "leave", &ctx("a@x.org", 2))
                .unwrap_err()
                .0
                .code,
            "not_a_player"
        );
        run(&mut registry, "join Alicia", &ctx("a@x.org", 3)).unwrap();
        assert_eq!(registry.players.len(), 1);
        assert_eq!(registry.players[0].name, "Alicia");
    }

    /// The same message, sent to the bot alone.
    fn private(sender: &str, minutes: i64) -> Ctx {
        Ctx {
            public: false,
            ..ctx(sender, minutes)
        }
    }

    /// The code the bot mailed to the player for an alias request.
    fn code_in(mail: &[Mail]) -> String {
        let request = mail
            .iter()
            .find(|m| m.template == "alias_player_request")
            .expect("a request to the player");
        request.values["code"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    fn owner_of(registry: &Registry, address: &str) -> Option<String> {
        registry
            .active_by_address(&Address::new(address))
            .map(|p| p.name.clone())
    }

    #[test]
    fn alias_needs_confirmation_from_the_new_address_and_the_player_and_expires() {
        let mut registry = Registry::default();
        run(&mut registry, "join Alice", &ctx("a@x.org", 0)).unwrap();
        let mail = run(&mut registry, "alias a2@y.org", &private("a@x.org", 1)).unwrap();
        assert_eq!(mail[0].to, Audience::Address(Address::new("a2@y.org")));
        assert_eq!(mail[0].template, "alias_confirm_request");
        assert_eq!(mail[1].to, Audience::Address(Address::new("a@x.org")));
        let code = code_in(&mail);
        // Someone else cannot confirm it.
        assert_eq!(
            run(&mut registry, "confirm", &ctx("mallory@z.org", 2))
                .unwrap_err()
                .0
                .code,
            "no_pending_alias"
        );
        run(&mut registry, "confirm", &ctx("A2@y.org", 3)).unwrap();
        assert_eq!(owner_of(&registry, "a2@y.org"), None, "half confirmed");
        assert_eq!(
            run(&mut registry, "confirm", &ctx("a2@y.org", 3))
                .unwrap_err()
                .0
                .code,
            "alias_waiting_for_player"
        );
        let mail = run(
            &mut registry,
            &format!("confirm {code}"),
            &private("a@x.org", 4),
        )
        .unwrap();
        assert!(
            mail.is_empty(),
            "the answer tells the main address: {mail:?}"
        );
        assert_eq!(owner_of(&registry, "a2@y.org").as_deref(), Some("Alice"));
        assert!(registry.pending_aliases.is_empty());

        run(&mut registry, "alias a3@y.org", &private("a2@y.org", 5)).unwrap();
        let deadline = registry.next_deadline().unwrap();
        assert_eq!(
            deadline,
            ctx("", 5).now + jiff::SignedDuration::from_hours(72)
        );
        let (events, mail) = registry.tick(deadline);
        assert_eq!(events.len(), 1);
        assert_eq!(mail[0].template, "alias_expired");
    }

    #[test]
    fn issue_23_a_forged_alias_confirmed_from_the_attackers_address_is_not_made() {
        let mut registry = Registry::default();
        run(&mut registry, "join Alice", &ctx("a@x.org", 0)).unwrap();
        // Eve forges Alice's From; the code goes to Alice, whose mail Eve cannot read.
        let mail = run(
            &mut registry,
            "alias eve2@evil.example",
            &private("a@x.org", 1),
        )
        .unwrap();
        assert!(
            mail.iter()
                .filter(|m| m.values["code"].is_string())
                .all(|m| m.to == Audience::Address(Address::new("a@x.org")))
        );
        let done = run(&mut registry, "confirm", &private("eve2@evil.example", 2)).unwrap();
        assert!(done.is_empty(), "nobody is told of a half: {done:?}");
        assert_eq!(owner_of(&registry, "eve2@evil.example"), None);
        // A guess is refused and burns nothing.
        for guess in ["confirm 0000-0000-0000-0000", "confirm alias2"] {
            for sender in ["eve2@evil.example", "a@x.org"] {
                let refused = run(&mut registry, guess, &private(sender, 3)).unwrap_err();
                assert_eq!(refused.0.code, "alias_code_wrong", "{guess} from {sender}");
            }
        }
        assert_eq!(registry.pending_aliases.len(), 1);
        // Then the deadline passes: the address was never Alice's.
        let (events, mail) = registry.tick(registry.next_deadline().unwrap());
        assert_eq!(mail[0].values["address_confirmed"], true);
        assert_eq!(mail[0].values["player_confirmed"], false);
        for event in &events {
            registry.apply_event(event, ctx("", 5000).now);
        }
        assert_eq!(owner_of(&registry, "eve2@evil.example"), None);
        assert_eq!(
            run(&mut registry, "leave", &ctx("eve2@evil.example", 5001))
                .unwrap_err()
                .0
                .code,
            "not_a_player"
        );
    }

    #[test]
    fn issue_23_the_player_may_confirm_first_from_any_address_of_theirs_in_any_case() {
        let mut registry = Registry::default();
        run(&mut registry, "join Alice", &ctx("a@x.org", 0)).unwrap();
        let mail = run(&mut registry, "alias a2@y.org", &private("a@x.org", 1)).unwrap();
        let code = code_in(&mail);
        assert_eq!(code.len(), 19, "{code}");
        run(
            &mut registry,
            &format!("confirm {code}"),
            &private("a@x.org", 2),
        )
        .unwrap();
        run(&mut registry, "confirm", &private("a2@y.org", 3)).unwrap();
        assert_eq!(owner_of(&registry, "a2@y.org").as_deref(), Some("Alice"));

        // The next request is confirmed from the alias, the code typed loosely.
        let mail = run(&mut registry, "alias a3@y.org", &private("a2@y.org", 4)).unwrap();
        assert_eq!(mail[1].to, Audience::Address(Address::new("a@x.org")));
        let typed = code_in(&mail).to_lowercase().replace('-', " ");
        let confirmed = run(
            &mut registry,
            &format!("confirm {typed}"),
            &private("a2@y.org", 5),
        );
        assert!(confirmed.is_ok(), "{confirmed:?}");
        assert_eq!(
            run(
                &mut registry,
                &format!("confirm {typed}"),
                &private("a@x.org", 5)
            )
            .unwrap_err()
            .0
            .code,
            "alias_waiting_for_address"
        );
        let mail = run(&mut registry, "confirm", &ctx("a3@y.org", 6)).unwrap();
        assert_eq!(mail[0].template, "alias_confirmed");
        assert_eq!(mail[0].to, Audience::Address(Address::new("a@x.org")));
        assert_eq!(owner_of(&registry, "a3@y.org").as_deref(), Some("Alice"));
    }

    #[test]
    fn issue_23_a_code_sent_on_the_list_or_from_the_new_address_is_burnt() {
        let mut registry = Registry::default();
        run(&mut registry, "join Alice", &ctx("a@x.org", 0)).unwrap();
        for (n, (sender, public, reason)) in [
            ("a@x.org", true, "code_public"),
            ("a2@y.org", false, "code_from_another_address"),
            ("someone@z.org", false, "code_from_another_address"),
        ]
        .into_iter()
        .enumerate()
        {
            let minutes = 10 * n as i64;
            let mail = run(
                &mut registry,
                "alias a2@y.org",
                &private("a@x.org", minutes),
            )
            .unwrap();
            run(&mut registry, "confirm", &private("a2@y.org", minutes + 1)).unwrap();
            let line = format!("confirm {}", code_in(&mail));
            let confirm = Ctx {
                public,
                ..ctx(sender, minutes + 2)
            };
            let mail = run(&mut registry, &line, &confirm).unwrap();
            assert_eq!(mail[0].template, "alias_cancelled", "{sender}");
            assert_eq!(mail[0].to, Audience::Address(Address::new("a@x.org")));
            assert_eq!(mail[0].values["reason"], reason);
            assert!(registry.pending_aliases.is_empty(), "{sender}");
            assert_eq!(owner_of(&registry, "a2@y.org"), None);
            // Once burnt, the code is no code at all.
            assert_eq!(
                run(&mut registry, &line, &private("a@x.org", minutes + 3))
                    .unwrap_err()
                    .0
                    .code,
                "alias_code_wrong"
            );
        }
    }

    #[test]
    fn issue_23_one_request_per_new_address_and_a_new_one_gets_a_new_code() {
        let mut registry = Registry::default();
        run(&mut registry, "join Alice", &ctx("a@x.org", 0)).unwrap();
        run(&mut registry, "join Mallory", &ctx("m@x.org", 0)).unwrap();
        let first = run(&mut registry, "alias a2@y.org", &private("a@x.org", 1)).unwrap();
        assert_eq!(
            run(&mut registry, "alias a2@y.org", &private("m@x.org", 2))
                .unwrap_err()
                .0
                .code,
            "alias_pending_elsewhere"
        );
        // Alice's own request again, in another step: the first code is void.
        let again = Ctx {
            entropy: [8; 32],
            ..private("a@x.org", 3)
        };
        let second = run(&mut registry, "alias a2@y.org", &again).unwrap();
        assert_ne!(code_in(&first), code_in(&second));
        let line = format!("confirm {}", code_in(&first));
        assert_eq!(
            run(&mut registry, &line, &private("a@x.org", 4))
                .unwrap_err()
                .0
                .code,
            "alias_code_wrong"
        );
        // Mallory's own code does not confirm Alice's request.
        let mallorys = run(&mut registry, "alias m2@y.org", &private("m@x.org", 5)).unwrap();
        let line = format!("confirm {}", code_in(&mallorys));
        run(&mut registry, &line, &private("m@x.org", 6)).unwrap();
        run(&mut registry, "confirm", &private("a2@y.org", 7)).unwrap();
        assert_eq!(owner_of(&registry, "a2@y.org"), None);
        // Two lines of one message get two codes.
        let both = run(&mut registry, "alias a4@y.org", &private("a@x.org", 8)).unwrap();
        let other = run(&mut registry, "alias a5@y.org", &private("a@x.org", 8)).unwrap();
        assert_ne!(code_in(&both), code_in(&other));
    }

    #[test]
    fn issue_23_a_log_from_before_the_players_confirmation_still_reads() {
        let mut registry = Registry::default();
        run(&mut registry, "join Alice", &ctx("a@x.org", 0)).unwrap();
        let old = |value: serde_json::Value| -> Event { serde_json::from_value(value).unwrap() };
        let at = ctx("", 1).now;
        registry.apply_event(
            &old(json!({"kind": "alias_requested", "id": 1, "address": "a2@y.org", "expires_at": "2027-01-20T00:00:00Z"})),
            at,
        );
        registry.apply_event(
            &old(json!({"kind": "alias_confirmed", "id": 1, "address": "a2@y.org"})),
            at,
        );
        assert_eq!(owner_of(&registry, "a2@y.org").as_deref(), Some("Alice"));
        // A request still waiting under the old rule can no longer complete.
        registry.apply_event(
            &old(json!({"kind": "alias_requested", "id": 1, "address": "a3@y.org", "expires_at": "2027-01-20T00:00:00Z"})),
            at,
        );
        assert_eq!(
            run(&mut registry, "confirm", &private("a3@y.org", 2))
                .unwrap_err()
                .0
                .code,
            "alias_request_outdated"
        );
        // And the hash of a code is no one's to see.
        run(&mut registry, "alias a4@y.org", &private("a@x.org", 3)).unwrap();
        assert!(registry.has_secrets());
        let shown = serde_json::to_string(&registry.public_view()).unwrap();
        let hash = registry.pending_aliases[1].code_hash.clone().unwrap();
        assert!(!shown.contains(&hash), "{shown}");
    }

    #[test]
    fn issue_23_codes_are_read_in_any_case_without_dashes_and_lookalikes() {
        assert_eq!(code_key("k7qm-2xhd 9pwa-rt3f"), "K7QM2XHD9PWART3F");
        assert_eq!(code_key("O1L0-i"), "01101");
        assert_eq!(
            parse("confirm k7qm-2xhd").unwrap(),
            Command::Confirm {
                code: Some("K7QM2XHD".to_owned())
            }
        );
        assert_eq!(
            parse("confirm alias").unwrap(),
            Command::Confirm { code: None }
        );
        assert_eq!(parse("confirm the thing!").unwrap_err().0.code, "usage");
        let code = alias_code(&[1; 32], &Address::new("a@x.org"));
        assert!(
            code.chars()
                .all(|c| c == '-' || CODE_ALPHABET.contains(&(c as u8))),
            "{code}"
        );
        assert_eq!(code_key(&code).len(), 16);
        assert_ne!(code, alias_code(&[2; 32], &Address::new("a@x.org")));
    }

    #[test]
    fn vacation_makes_a_player_inactive_until_the_announced_day() {
        let mut registry = Registry::default();
        run(&mut registry, "join Alice", &ctx("a@x.org", 0)).unwrap();
        let now = ctx("a@x.org", 1).now;
        assert_eq!(registry.active_at(now).count(), 1);
        let mail = run(
            &mut registry,
            "vacation until 2027-03-01",
            &ctx("a@x.org", 1),
        )
        .unwrap();
        assert_eq!(mail[0].template, "player_vacation");
        assert_eq!(registry.active_at(now).count(), 0);
        let back_at = registry.next_deadline().unwrap();
        assert_eq!(back_at.to_string(), "2027-03-01T00:00:00Z");
        let (events, mail) = registry.tick(back_at);
        assert_eq!(events, [Event::VacationEnded { id: 1 }]);
        assert_eq!(mail[0].template, "player_back");
        for event in &events {
            registry.apply_event(event, back_at);
        }
        assert_eq!(registry.active_at(back_at).count(), 1);
        let refused = run(
            &mut registry,
            "vacation until 2020-01-01",
            &ctx("a@x.org", 2),
        )
        .unwrap_err();
        assert_eq!(refused.0.code, "vacation_in_past");
        assert_eq!(
            run(&mut registry, "back", &ctx("a@x.org", 2))
                .unwrap_err()
                .0
                .code,
            "not_on_vacation"
        );
    }

    #[test]
    fn only_a_moderator_puts_a_player_in_gaol_and_gaol_keeps_them_active() {
        let mut registry = Registry::default();
        run(&mut registry, "join Alice", &ctx("a@x.org", 0)).unwrap();
        assert_eq!(
            run(
                &mut registry,
                "gaol Alice because a test",
                &ctx("a@x.org", 1)
            )
            .unwrap_err()
            .0
            .code,
            "moderators_only"
        );
        run(
            &mut registry,
            "gaol alice because a test",
            &ctx("mod@x.org", 1),
        )
        .unwrap();
        assert!(registry.players[0].in_gaol);
        assert_eq!(registry.active_at(ctx("", 2).now).count(), 1);
        assert_eq!(
            run(
                &mut registry,
                "gaol Alice because again",
                &ctx("mod@x.org", 2)
            )
            .unwrap_err()
            .0
            .code,
            "already_in_gaol"
        );
        run(
            &mut registry,
            "release Alice because served",
            &ctx("mod@x.org", 3),
        )
        .unwrap();
        assert!(!registry.players[0].in_gaol);
        assert_eq!(
            run(
                &mut registry,
                "gaol Nobody because a test",
                &ctx("mod@x.org", 3)
            )
            .unwrap_err()
            .0
            .code,
            "no_such_player"
        );
        run(
            &mut registry,
            "deactivate Alice because she is away",
            &ctx("mod@x.org", 4),
        )
        .unwrap();
        assert_eq!(registry.active_at(ctx("", 5).now).count(), 0);
        run(&mut registry, "home The Old Mill", &ctx("a@x.org", 5)).unwrap();
        assert_eq!(registry.players[0].home_name(), "The Old Mill");
    }

    #[test]
    fn every_standing_override_takes_a_reason_recorded_in_the_event_and_the_announcement() {
        let mut registry = Registry::default();
        run(&mut registry, "join Alice", &ctx("a@x.org", 0)).unwrap();
        for verb in ["gaol", "jail", "release", "deactivate", "activate"] {
            for line in [format!("{verb} Alice"), format!("{verb} Alice because ")] {
                let refused = parse(&line).unwrap_err().0;
                assert_eq!(refused.code, "reason_required", "{line}");
                assert_eq!(
                    refused.args["usage"],
                    format!("{verb} PLAYER because REASON")
                );
            }
            assert_eq!(
                parse(&format!("{verb} because x")).unwrap_err().0.code,
                "usage"
            );
        }
        let mail = run(
            &mut registry,
            "deactivate alice Because she has not played for a month",
            &ctx("mod@x.org", 1),
        )
        .unwrap();
        assert_eq!(mail[0].values["reason"], "she has not played for a month");
        assert_eq!(mail[0].values["name"], "Alice");
        let done = registry
            .apply(
                parse("gaol Alice because a test").unwrap(),
                &ctx("mod@x.org", 2),
                &Params::default(),
                true,
            )
            .unwrap();
        assert_eq!(
            serde_json::to_value(&done.events[0]).unwrap(),
            json!({"kind": "gaoled", "id": 1, "officer": "mod@x.org", "reason": "a test"})
        );
        // A log written before reasons were recorded still reads.
        let old: Event =
            serde_json::from_value(json!({"kind": "marked_inactive", "id": 1})).unwrap();
        assert_eq!(
            old,
            Event::MarkedInactive {
                id: 1,
                officer: None,
                reason: String::new()
            }
        );
    }

    #[test]
    fn no_name_may_be_the_treasurys_or_hold_the_word_because() {
        let mut registry = Registry::default();
        for name in [
            "Treasury",
            "the treasury",
            "The  Treasury",
            "Тreasury",
            "Bob because",
            "Eve BECAUSE x",
        ] {
            let refused = run(&mut registry, &format!("join {name}"), &ctx("a@x.org", 0))
                .unwrap_err()
                .0;
            assert_eq!(refused.code, "name_reserved", "{name}");
        }
        run(&mut registry, "join Treasurer Becauser", &ctx("a@x.org", 0)).unwrap();
        let refused = run(&mut registry, "rename Treasury", &ctx("a@x.org", 1))
            .unwrap_err()
            .0;
        assert_eq!(refused.args["reserved"], "treasury");
    }

    #[test]
    fn bad_names_and_addresses_are_refused_with_the_reason() {
        let mut registry = Registry::default();
        let long = "x".repeat(41);
        assert_eq!(
            run(&mut registry, &format!("join {long}"), &ctx("a@x.org", 0))
                .unwrap_err()
                .0
                .code,
            "bad_name"
        );
        assert_eq!(
            run(&mut registry, "join <script>", &ctx("a@x.org", 0))
                .unwrap_err()
                .0
                .code,
            "bad_name"
        );
        run(&mut registry, "join Alice", &ctx("a@x.org", 0)).unwrap();
        assert_eq!(
            run(&mut registry, "alias nonsense", &ctx("a@x.org", 1))
                .unwrap_err()
                .0
                .code,
            "bad_address"
        );
        assert!(parse("dance").is_err());
        assert!(parse("join").is_err());
    }
}
