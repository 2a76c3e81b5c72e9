//! Sealed actions, for every game with secret moves: a game puts each private
//! action in a sealed batch; when the batch's deadline passes, the bot publishes one
//! commitment per action — a hash naming the player but not the action — before it
//! resolves anything, and after resolution the owner reveals every action with its
//! salt, so anyone can check from the list archive alone (`verify_sealed`) that no
//! action was changed after the deadline.
//!
//! Pure: the salts come from a `secret_seed` the caller passes in, never from the
//! OS. Private stays private (DESIGN.md guarantee 4): no action text reaches a public
//! mail before `reveal`.
//!
//! # The hash, for anyone checking by hand
//!
//! `commitment = hex(sha256(salt_hex ‖ "\n" ‖ player_name ‖ "\n" ‖ action_text))`,
//! where `salt_hex` is the 64 lower-case hex digits as printed in the reveal, so
//! `printf '%s\n%s\n%s' SALT NAME TEXT | sha256sum` reproduces it.
//!
//! # The salts, and the secret seed
//!
//! `salt = sha256(secret_seed ‖ batch_id ‖ index as 8 bytes big-endian)`, `index`
//! counting the batch's sealed actions from 0. A salt must be unguessable until the
//! reveal — with a guessable salt, anyone could hash every plausible action ("move
//! to 214", "grab ball 10") and read the sealed action off its commitment — so it is
//! derived from a 32-byte secret the shell keeps out of the event log, the state and
//! every mail. The salt itself goes into the `Sealed` event, so a replay never needs
//! the seed. The reveal publishes the salts, never the seed: one seed serves every
//! batch, and publishing it would expose the salts of batches still sealed.

use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::json;
use sha2::{Digest, Sha256};

use super::players::PlayerId;
use super::{Audience, Mail, Timestamp, human_time};

pub const COMMITMENTS_TEMPLATE: &str = "sealed_commitments";
pub const REVEAL_TEMPLATE: &str = "sealed_reveal";

/// One sealed action, as the bot keeps it privately until the reveal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sealed {
    pub player: PlayerId,
    /// The name at sealing time: it is part of the hash, so a later rename does not
    /// break the check.
    pub player_name: String,
    pub action_text: String,
    pub salt_hex: String,
    pub sealed_at: Timestamp,
    /// The choice the action makes, as its owner names it (the player; the
    /// player and the hack voted on): a later action of the same choice in the
    /// batch replaces this one, which then leaves the live state (the event log
    /// keeps it for the commitments and the reveal). `None`: nothing replaces
    /// it (every move counts), and every action sealed before issue 30.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<String>,
}

impl Sealed {
    pub fn commitment(&self) -> Commitment {
        Commitment {
            player: self.player,
            player_name: self.player_name.clone(),
            hash_hex: commitment_hash(&self.salt_hex, &self.player_name, &self.action_text),
        }
    }
}

/// What the list sees of a sealed action before the reveal: who, and a hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Commitment {
    pub player: PlayerId,
    pub player_name: String,
    pub hash_hex: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Taking sealed actions until the deadline.
    Open,
    /// Commitments published; the owner may resolve the actions, then reveal.
    Committed,
    Revealed,
}

/// How many sealed actions a frozen chunk of [`Actions`] holds.
const CHUNK: usize = 256;

/// A batch's sealed actions, in the order sealed: full chunks shared between
/// the copies of the state a transaction makes, and a short tail of its own.
/// A new action copies the tail and the chunks' pointers, never every action
/// before it (a ballot open for weeks holds every change of mind). Serialised
/// as the plain list it stands for.
#[derive(Debug, Clone, Default)]
pub struct Actions {
    full: Vec<Arc<[Sealed]>>,
    tail: Vec<Sealed>,
}

impl Actions {
    pub fn len(&self) -> usize {
        self.full.len() * CHUNK + self.tail.len()
    }

    pub fn is_empty(&self) -> bool {
        self.full.is_empty() && self.tail.is_empty()
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Sealed> + Clone {
        self.full
            .iter()
            .flat_map(|chunk| chunk.iter())
            .chain(self.tail.iter())
    }

    pub fn get(&self, index: usize) -> Option<&Sealed> {
        match self.full.get(index / CHUNK) {
            Some(chunk) => chunk.get(index % CHUNK),
            None => self.tail.get(index - self.full.len() * CHUNK),
        }
    }

    pub fn push(&mut self, sealed: Sealed) {
        self.tail.push(sealed);
        if self.tail.len() == CHUNK {
            self.full.push(Arc::from(std::mem::take(&mut self.tail)));
        }
    }

    /// Adds `sealed`, dropping the earlier action of its choice, if any: at
    /// most one action of a choice is ever here, so the batch grows with the
    /// choices made, not with how often they change.
    fn push_replacing(&mut self, sealed: Sealed) {
        if let Some(choice) = &sealed.choice {
            let same = |action: &Sealed| action.choice.as_ref() == Some(choice);
            if let Some(index) = self.tail.iter().position(same) {
                self.tail.remove(index);
            } else if self.full.iter().any(|chunk| chunk.iter().any(same)) {
                // Rare: a batch with more than a chunk of choices. The chunks
                // are full by invariant, so they are laid out again.
                *self = self
                    .iter()
                    .filter(|action| !same(action))
                    .cloned()
                    .collect();
            }
        }
        self.push(sealed);
    }
}

impl std::ops::Index<usize> for Actions {
    type Output = Sealed;
    fn index(&self, index: usize) -> &Sealed {
        self.get(index).expect("a sealed action at this index")
    }
}

impl<'a> IntoIterator for &'a Actions {
    type Item = &'a Sealed;
    type IntoIter = Box<dyn Iterator<Item = &'a Sealed> + 'a>;
    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl FromIterator<Sealed> for Actions {
    fn from_iter<I: IntoIterator<Item = Sealed>>(iter: I) -> Actions {
        let mut actions = Actions::default();
        for sealed in iter {
            actions.push(sealed);
        }
        actions
    }
}

impl PartialEq for Actions {
    fn eq(&self, other: &Actions) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Actions {}

impl Serialize for Actions {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Actions {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Actions, D::Error> {
        Ok(Vec::<Sealed>::deserialize(deserializer)?
            .into_iter()
            .collect())
    }
}

/// The sealed actions of one turn of one game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "StoredBatch")]
pub struct Batch {
    /// Stable and unique, chosen by the owner ("donkey:round:12").
    pub id: String,
    /// The owning game's tag: it heads the subjects of the batch's mail.
    pub owner: String,
    /// Actions sealed at or after this instant are refused.
    pub deadline: Timestamp,
    /// The actions that may still count, in the order sealed: an action
    /// replaced by a later one of the same choice (`Sealed::choice`) is no
    /// longer here, so a ballot open for weeks holds one vote per voter, not
    /// every change of mind. Which count is the owner's rule ("only the last
    /// one"), not the box's.
    pub actions: Actions,
    /// Every action ever sealed in the batch, replaced ones included, as the
    /// log holds them: published at the deadline (filled in by the shell from
    /// the log, see [`complete_committed`]), kept until the reveal.
    pub commitments: Vec<Commitment>,
    pub stage: Stage,
    /// What the batch's mail calls it ("ballot 1"), given by the owner; a batch
    /// opened without one is called by its id with the colons read as spaces.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title: String,
    /// How many actions were ever sealed in the batch, replaced ones included:
    /// the index of the next salt, which must never repeat.
    pub sealed_count: u64,
}

/// A batch as stored: snapshots written before issue 30 have no
/// `sealed_count`, and their batches kept every action sealed, so the count
/// is the number of actions.
#[derive(Deserialize)]
struct StoredBatch {
    id: String,
    owner: String,
    deadline: Timestamp,
    actions: Actions,
    commitments: Vec<Commitment>,
    stage: Stage,
    #[serde(default)]
    title: String,
    #[serde(default)]
    sealed_count: Option<u64>,
}

impl From<StoredBatch> for Batch {
    fn from(stored: StoredBatch) -> Batch {
        let sealed_count = stored
            .sealed_count
            .unwrap_or_else(|| u64::try_from(stored.actions.len()).unwrap_or(u64::MAX));
        Batch {
            id: stored.id,
            owner: stored.owner,
            deadline: stored.deadline,
            actions: stored.actions,
            commitments: stored.commitments,
            stage: stored.stage,
            title: stored.title,
            sealed_count,
        }
    }
}

impl Batch {
    /// The name of the batch in its mail's subjects: a player's words, never
    /// the id the games key it by (`vote:1`).
    pub fn title(&self) -> String {
        if self.title.is_empty() {
            self.id.replace(':', " ")
        } else {
            self.title.clone()
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SealedBox {
    pub batches: Vec<Batch>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Opened {
        batch: String,
        owner: String,
        deadline: Timestamp,
        /// Recorded since issue 24; absent before.
        #[serde(default, skip_serializing_if = "String::is_empty")]
        title: String,
    },
    Sealed {
        batch: String,
        sealed: Sealed,
    },
    Committed {
        batch: String,
        commitments: Vec<Commitment>,
    },
    Revealed {
        batch: String,
    },
}

/// A request the box cannot carry out. The owning game checks its own rules first;
/// these it turns into its own refusal sentence (say, "the round is closed").
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SealError {
    #[error("no sealed batch {0:?}")]
    NoBatch(String),
    #[error("sealed batch {0:?} already exists")]
    Exists(String),
    #[error("sealed batch {0:?} is closed: its deadline has passed")]
    Closed(String),
    #[error("sealed batch {0:?} is already committed")]
    AlreadyCommitted(String),
    #[error("sealed batch {0:?} has no commitments published yet")]
    NotCommitted(String),
    #[error("sealed batch {0:?} is already revealed")]
    AlreadyRevealed(String),
}

/// Why a reveal does not match its commitments.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    #[error("the revealed action of {player} matches none of {player}'s commitments")]
    Changed { player: String },
    #[error("a commitment of {player} has no revealed action")]
    Missing { player: String },
    #[error("the commitments are for batch {commitments:?}, the reveal for {reveal:?}")]
    OtherBatch { commitments: String, reveal: String },
    #[error(
        "found nothing sealed in the {mail} mail (no \"batch\" line, no \"{keyword}\" line): it should be the bot's mail {expected}"
    )]
    NothingSealed {
        mail: &'static str,
        keyword: &'static str,
        expected: &'static str,
    },
    #[error(
        "the two mails are given the wrong way round: the commitments mail (\"Sealed actions of ...: N commitments\") comes first, the reveal (\"Sealed actions of ... revealed\") second"
    )]
    Swapped,
    #[error("line {line} of the {mail} mail is not in the expected form: {text}")]
    Malformed {
        mail: &'static str,
        line: usize,
        text: String,
    },
}

/// `hex(sha256(salt_hex ‖ "\n" ‖ player_name ‖ "\n" ‖ action_text))`.
pub fn commitment_hash(salt_hex: &str, player_name: &str, action_text: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(salt_hex.as_bytes());
    hasher.update(b"\n");
    hasher.update(player_name.as_bytes());
    hasher.update(b"\n");
    hasher.update(action_text.as_bytes());
    hex(&hasher.finalize())
}

/// `hex(sha256(secret_seed ‖ batch_id ‖ index as u64 big-endian))`. The seed and the
/// index have fixed lengths, so no two (batch, index) pairs hash the same input.
pub fn derive_salt(secret_seed: &[u8; 32], batch_id: &str, index: u64) -> String {
    let mut hasher = Sha256::new();
    hasher.update(secret_seed);
    hasher.update(batch_id.as_bytes());
    hasher.update(index.to_be_bytes());
    hex(&hasher.finalize())
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        // Writing to a String cannot fail.
        let _ = write!(out, "{byte:02x}");
    }
    out
}

/// A string as a JSON literal: how names and action texts appear in the machine
/// lines, so that spaces, quotes, newlines and trailing blanks survive the mail.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| String::from("\"\""))
}

impl SealedBox {
    pub fn batch(&self, id: &str) -> Option<&Batch> {
        self.batches.iter().find(|batch| batch.id == id)
    }

    /// Whether a batch is revealed: its history is in the event log and the
    /// published reveal, no longer needed live.
    pub fn has_history(&self) -> bool {
        self.batches.iter().any(|b| b.stage == Stage::Revealed)
    }

    /// Drops the revealed batches.
    pub fn retire(&mut self) {
        self.batches.retain(|b| b.stage != Stage::Revealed);
    }

    /// What anyone may see: the actions of a batch not yet revealed are blanked.
    pub fn public_view(&self) -> SealedBox {
        let mut view = self.clone();
        for batch in &mut view.batches {
            if batch.stage != Stage::Revealed {
                batch.actions = batch
                    .actions
                    .iter()
                    .map(|action| Sealed {
                        action_text: "(sealed)".to_owned(),
                        salt_hex: "(sealed)".to_owned(),
                        // A choice may name what was voted on (a hack).
                        choice: None,
                        ..action.clone()
                    })
                    .collect();
            }
        }
        view
    }

    pub fn apply_event(&mut self, event: &Event) {
        match event {
            Event::Opened {
                batch,
                owner,
                deadline,
                title,
            } => {
                if self.batch(batch).is_none() {
                    self.batches.push(Batch {
                        id: batch.clone(),
                        owner: owner.clone(),
                        deadline: *deadline,
                        actions: Actions::default(),
                        commitments: Vec::new(),
                        stage: Stage::Open,
                        title: title.clone(),
                        sealed_count: 0,
                    });
                }
            }
            Event::Sealed { batch, sealed } => {
                if let Some(batch) = self.batch_mut(batch) {
                    batch.sealed_count = batch.sealed_count.saturating_add(1);
                    batch.actions.push_replacing(sealed.clone());
                }
            }
            Event::Committed { batch, commitments } => {
                if let Some(batch) = self.batch_mut(batch) {
                    batch.commitments = commitments.clone();
                    batch.stage = Stage::Committed;
                }
            }
            Event::Revealed { batch } => {
                if let Some(batch) = self.batch_mut(batch) {
                    batch.stage = Stage::Revealed;
                }
            }
        }
    }

    fn batch_mut(&mut self, id: &str) -> Option<&mut Batch> {
        self.batches.iter_mut().find(|batch| batch.id == id)
    }

    fn existing(&self, id: &str) -> Result<&Batch, SealError> {
        self.batch(id)
            .ok_or_else(|| SealError::NoBatch(id.to_owned()))
    }

    /// A new batch taking sealed actions until `deadline`.
    pub fn open(&self, batch: &str, owner: &str, deadline: Timestamp) -> Result<Event, SealError> {
        self.open_titled(batch, owner, "", deadline)
    }

    /// [`Self::open`], with the name the batch's mail gives it (`Batch::title`).
    pub fn open_titled(
        &self,
        batch: &str,
        owner: &str,
        title: &str,
        deadline: Timestamp,
    ) -> Result<Event, SealError> {
        if self.batch(batch).is_some() {
            return Err(SealError::Exists(batch.to_owned()));
        }
        Ok(Event::Opened {
            batch: batch.to_owned(),
            owner: owner.to_owned(),
            deadline,
            title: title.to_owned(),
        })
    }

    /// Seals one action of `player` at `now`, one that no later action replaces
    /// (every move counts). `secret_seed` is the shell's secret (see the module
    /// doc); the salt derived from it travels in the event.
    pub fn seal(
        &self,
        batch_id: &str,
        player: PlayerId,
        player_name: &str,
        action_text: &str,
        now: Timestamp,
        secret_seed: &[u8; 32],
    ) -> Result<Event, SealError> {
        self.seal_choice(
            batch_id,
            player,
            player_name,
            action_text,
            None,
            now,
            secret_seed,
        )
    }

    /// [`Self::seal`], for an action that makes `choice` (`Sealed::choice`,
    /// the owner's "only the last one counts"): it replaces the earlier action
    /// of the same choice in the live state.
    #[allow(clippy::too_many_arguments)]
    pub fn seal_choice(
        &self,
        batch_id: &str,
        player: PlayerId,
        player_name: &str,
        action_text: &str,
        choice: Option<String>,
        now: Timestamp,
        secret_seed: &[u8; 32],
    ) -> Result<Event, SealError> {
        let batch = self.existing(batch_id)?;
        if batch.stage != Stage::Open || now >= batch.deadline {
            return Err(SealError::Closed(batch_id.to_owned()));
        }
        // Replaced actions leave the batch, so its length is no fresh index:
        // the count of every action sealed in it is.
        let index = batch.sealed_count;
        Ok(Event::Sealed {
            batch: batch_id.to_owned(),
            sealed: Sealed {
                player,
                player_name: player_name.to_owned(),
                action_text: action_text.to_owned(),
                salt_hex: derive_salt(secret_seed, batch_id, index),
                sealed_at: now,
                choice,
            },
        })
    }

    /// The commitments of a batch, and the public mail that publishes them.
    pub fn commit(&self, batch_id: &str) -> Result<(Event, Mail), SealError> {
        let batch = self.existing(batch_id)?;
        if batch.stage != Stage::Open {
            return Err(SealError::AlreadyCommitted(batch_id.to_owned()));
        }
        // The actions still live: the shell adds the replaced ones from the
        // log (`complete_committed`, `complete_mail`).
        let commitments: Vec<Commitment> = batch.actions.iter().map(Sealed::commitment).collect();
        let lines: Vec<serde_json::Value> = commitments.iter().map(commitment_line).collect();
        let mail = Mail::new(
            Audience::List,
            &batch.owner,
            COMMITMENTS_TEMPLATE,
            json!({
                "batch": batch.id,
                "title": batch.title(),
                "batch_quoted": quoted(&batch.id),
                "owner": batch.owner,
                "deadline": human_time(batch.deadline),
                // For the shell: how many of the log's last actions of this
                // batch id are this batch's (`complete_mail`).
                "sealed_count": batch.sealed_count,
                "n_actions": commitments.len(),
                "commitments": lines,
            }),
        );
        Ok((
            Event::Committed {
                batch: batch_id.to_owned(),
                commitments,
            },
            mail,
        ))
    }

    /// Every action of a committed batch with its salt, for the list.
    pub fn reveal(&self, batch_id: &str) -> Result<(Event, Mail), SealError> {
        self.reveal_replacing(batch_id, |_| None)
    }

    /// [`Self::reveal`], marking each action a later one replaced: the owner's
    /// rule says which count (`choice` gives the choice an action makes, such
    /// as the player and the hack voted on; a later action of the same choice
    /// replaces it; `None` is replaced by nothing).
    pub fn reveal_replacing(
        &self,
        batch_id: &str,
        choice: impl Fn(&Sealed) -> Option<String>,
    ) -> Result<(Event, Mail), SealError> {
        let batch = self.existing(batch_id)?;
        // An action sealed before issue 30 has no choice of its own: the
        // owner's rule gives it.
        let choices: Vec<Option<String>> = batch
            .actions
            .iter()
            .map(|action| action.choice.clone().or_else(|| choice(action)))
            .collect();
        let replaced = |index: usize| {
            choices[index].as_ref().is_some_and(|mine| {
                choices[index + 1..]
                    .iter()
                    .any(|later| later.as_ref() == Some(mine))
            })
        };
        match batch.stage {
            Stage::Open => return Err(SealError::NotCommitted(batch_id.to_owned())),
            Stage::Revealed => return Err(SealError::AlreadyRevealed(batch_id.to_owned())),
            Stage::Committed => {}
        }
        let actions: Vec<serde_json::Value> = batch
            .actions
            .iter()
            .enumerate()
            .map(|(index, sealed)| reveal_line(sealed, replaced(index)))
            .collect();
        let mail = Mail::new(
            Audience::List,
            &batch.owner,
            REVEAL_TEMPLATE,
            json!({
                "batch": batch.id,
                "title": batch.title(),
                "batch_quoted": quoted(&batch.id),
                "owner": batch.owner,
                "deadline": human_time(batch.deadline),
                // For the shell: how many of the log's last actions of this
                // batch id are this batch's (`complete_mail`).
                "sealed_count": batch.sealed_count,
                "n_actions": actions.len(),
                "actions": actions,
            }),
        );
        Ok((
            Event::Revealed {
                batch: batch_id.to_owned(),
            },
            mail,
        ))
    }

    /// Marks a commitments or reveal mail of `batch_id` as closed at `now`
    /// when that is before the batch's deadline (a moderator closed it early):
    /// the announcement then gives the time it really closed.
    pub fn mark_closed_at(&self, batch_id: &str, mail: &mut Mail, now: Timestamp) {
        if self
            .batch(batch_id)
            .is_some_and(|batch| now < batch.deadline)
        {
            mail.values["closed_at"] = json!(human_time(now));
        }
    }

    /// The earliest deadline of a batch still open: then its commitments are due.
    pub fn next_deadline(&self) -> Option<Timestamp> {
        self.batches
            .iter()
            .filter(|batch| batch.stage == Stage::Open)
            .map(|batch| batch.deadline)
            .min()
    }

    /// Commits every open batch whose deadline is due by `now`, earliest first. The
    /// owner resolves the actions only after these events are recorded.
    pub fn tick(&self, now: Timestamp) -> (Vec<Event>, Vec<Mail>) {
        let mut due: Vec<&Batch> = self
            .batches
            .iter()
            .filter(|batch| batch.stage == Stage::Open && batch.deadline <= now)
            .collect();
        // A stable sort: batches due at the same instant stay in the order opened.
        due.sort_by_key(|batch| batch.deadline);
        let mut events = Vec::new();
        let mut mail = Vec::new();
        for batch in due {
            if let Ok((event, one_mail)) = self.commit(&batch.id) {
                events.push(event);
                mail.push(one_mail);
            }
        }
        (events, mail)
    }
}

/// One commitment as the commitments mail lists it.
fn commitment_line(commitment: &Commitment) -> serde_json::Value {
    // Invariant: only names and hashes go into this mail, never an action text.
    json!({
        "player": commitment.player_name,
        "player_quoted": quoted(&commitment.player_name),
        "hash": commitment.hash_hex,
    })
}

/// One action as the reveal lists it.
fn reveal_line(sealed: &Sealed, replaced: bool) -> serde_json::Value {
    json!({
        "replaced": replaced,
        "player": sealed.player_name,
        "player_quoted": quoted(&sealed.player_name),
        "salt": sealed.salt_hex,
        "text": sealed.action_text,
        "text_quoted": quoted(&sealed.action_text),
        // For prose: a line break in an action must not start a line
        // that could pass for a machine line.
        "text_one_line": sealed.action_text.split_whitespace().collect::<Vec<_>>().join(" "),
        "hash": commitment_hash(&sealed.salt_hex, &sealed.player_name, &sealed.action_text),
        "sealed_at": human_time(sealed.sealed_at),
    })
}

// The log's half of the commitments and the reveal. The live state keeps only
// the actions that may still count (`Batch::actions`), but the list must see a
// commitment for every action ever sealed, and the reveal must show every one,
// the replaced ones marked: those come from the event log, which the engine
// never reads. The engine's commitments and reveal are therefore built from
// the live actions, and the shell, before it stores or renders them, hands
// each to these functions with `history`: every action sealed in the batch, in
// the order sealed, as the log holds them (the events of voided messages left
// out). Pure, so the table the games' tests play on does the same from the
// events it keeps.

/// The batch a commitments or reveal mail is about; `None` for any other mail.
pub fn batch_of_mail(mail: &Mail) -> Option<&str> {
    match mail.template.as_str() {
        COMMITMENTS_TEMPLATE | REVEAL_TEMPLATE => mail.values["batch"].as_str(),
        _ => None,
    }
}

/// How many actions were sealed in the batch of a commitments or reveal mail,
/// replaced ones included: the last this many actions of the log under the
/// batch's id are its own (an id reopened after its batch retired would find
/// the earlier batch's actions before them).
pub fn sealed_count_of_mail(mail: &Mail) -> Option<usize> {
    batch_of_mail(mail)?;
    mail.values["sealed_count"]
        .as_u64()
        .and_then(|count| usize::try_from(count).ok())
}

/// The batch a `Committed` event publishes; `None` for any other event.
pub fn batch_of_committed(event: &Event) -> Option<&str> {
    match event {
        Event::Committed { batch, .. } => Some(batch),
        _ => None,
    }
}

/// A `Committed` event with a commitment for every action of `history`.
pub fn complete_committed(event: &mut Event, history: &[Sealed]) {
    if let Event::Committed { commitments, .. } = event {
        *commitments = merged(
            commitments,
            |commitment| commitment.hash_hex.clone(),
            history,
            Sealed::commitment,
        );
    }
}

/// A commitments mail with a commitment for every action of `history`, or a
/// reveal with every action of it: those the engine did not have (not live:
/// replaced by a later action of the same choice) are marked replaced.
pub fn complete_mail(mail: &mut Mail, history: &[Sealed]) {
    let hash_of = |line: &serde_json::Value| line["hash"].as_str().unwrap_or_default().to_owned();
    let (key, lines) = match mail.template.as_str() {
        COMMITMENTS_TEMPLATE => {
            let lines = mail.values["commitments"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let all = merged(&lines, hash_of, history, |sealed| {
                commitment_line(&sealed.commitment())
            });
            ("commitments", all)
        }
        REVEAL_TEMPLATE => {
            let lines = mail.values["actions"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let all = merged(&lines, hash_of, history, |sealed| reveal_line(sealed, true));
            ("actions", all)
        }
        _ => return,
    };
    mail.values["n_actions"] = json!(lines.len());
    mail.values[key] = serde_json::Value::Array(lines);
}

/// `history` in its order, each entry the engine's own where it has one (same
/// hash) and `from_log`'s otherwise; then any entry of the engine's the log did
/// not hold, in the engine's order (never expected: the log holds every action
/// the state does).
fn merged<T: Clone>(
    engine: &[T],
    hash_of: impl Fn(&T) -> String,
    history: &[Sealed],
    from_log: impl Fn(&Sealed) -> T,
) -> Vec<T> {
    use std::collections::HashMap;
    let mut unused: HashMap<String, Vec<usize>> = HashMap::new();
    for (index, entry) in engine.iter().enumerate().rev() {
        unused.entry(hash_of(entry)).or_default().push(index);
    }
    let mut taken = vec![false; engine.len()];
    let mut all = Vec::with_capacity(history.len().max(engine.len()));
    for sealed in history {
        let hash = commitment_hash(&sealed.salt_hex, &sealed.player_name, &sealed.action_text);
        match unused.get_mut(&hash).and_then(Vec::pop) {
            Some(index) => {
                taken[index] = true;
                all.push(engine[index].clone());
            }
            None => all.push(from_log(sealed)),
        }
    }
    all.extend(
        engine
            .iter()
            .zip(&taken)
            .filter(|(_, taken)| !**taken)
            .map(|(entry, _)| entry.clone()),
    );
    all
}

/// One `commitment <hash> <"player">` line.
struct CommitmentLine {
    hash: String,
    player: String,
}

/// One `action <"player"> salt <hex> text <"text">` line.
struct ActionLine {
    player: String,
    salt: String,
    text: String,
}

/// Reads a JSON string literal at the start of `text`; returns it and the rest.
fn take_quoted(text: &str) -> Option<(String, &str)> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<String>();
    match stream.next() {
        Some(Ok(value)) => Some((value, &text[stream.byte_offset()..])),
        _ => None,
    }
}

fn is_hash(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The machine lines of a mail body: its `batch` line, if any, and every line that
/// starts with `keyword`, parsed by `parse`. Other lines are prose and skipped.
fn machine_lines<T>(
    body: &str,
    mail: &'static str,
    keyword: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<(Option<String>, Vec<T>), VerifyError> {
    let mut batch = None;
    let mut found = Vec::new();
    for (index, line) in body.lines().enumerate() {
        // Machine lines start in the first column: indented prose never counts.
        let line = line.trim_end();
        let malformed = || VerifyError::Malformed {
            mail,
            line: index + 1,
            text: line.to_owned(),
        };
        if let Some(rest) = line.strip_prefix("batch ") {
            match take_quoted(rest.trim()) {
                Some((id, tail)) if tail.trim().is_empty() => batch = Some(id),
                _ => return Err(malformed()),
            }
        } else if let Some(rest) = line
            .strip_prefix(keyword)
            .and_then(|rest| rest.strip_prefix(' '))
        {
            found.push(parse(rest.trim()).ok_or_else(malformed)?);
        }
    }
    Ok((batch, found))
}

/// Checks an archived reveal against its archived commitments, both as mail bodies
/// rendered from `sealed_commitments.txt` and `sealed_reveal.txt`: every revealed
/// action must hash to a commitment of the same player, and every commitment must be
/// revealed. Returns the number of actions checked.
pub fn verify_sealed(commitments_text: &str, reveal_text: &str) -> Result<usize, VerifyError> {
    let (committed_batch, commitments) =
        machine_lines(commitments_text, "commitments", "commitment", |rest| {
            let (hash, player) = rest.split_once(' ')?;
            let (player, tail) = take_quoted(player.trim())?;
            (is_hash(hash) && tail.trim().is_empty()).then(|| CommitmentLine {
                hash: hash.to_ascii_lowercase(),
                player,
            })
        })?;
    let (revealed_batch, actions) = machine_lines(reveal_text, "reveal", "action", |rest| {
        let (player, rest) = take_quoted(rest)?;
        let rest = rest.trim_start().strip_prefix("salt ")?;
        let (salt, rest) = rest.split_once(' ')?;
        let rest = rest.trim_start().strip_prefix("text ")?;
        let (text, tail) = take_quoted(rest.trim())?;
        (is_hash(salt) && tail.trim().is_empty()).then(|| ActionLine {
            player,
            salt: salt.to_ascii_lowercase(),
            text,
        })
    })?;
    // A file that is not the mail it should be (a swapped pair, a wrong
    // attachment) would otherwise read as an empty batch, and pass.
    if committed_batch.is_none() && commitments.is_empty() {
        return Err(VerifyError::NothingSealed {
            mail: "commitments",
            keyword: "commitment",
            expected: "\"Sealed actions of ...: N commitments\"",
        });
    }
    if revealed_batch.is_none() && actions.is_empty() {
        return Err(VerifyError::NothingSealed {
            mail: "reveal",
            keyword: "action",
            expected: "\"Sealed actions of ... revealed\"",
        });
    }
    let starts_a_line = |text: &str, word: &str| text.lines().any(|line| line.starts_with(word));
    if commitments.is_empty()
        && actions.is_empty()
        && (starts_a_line(commitments_text, "action ") || starts_a_line(reveal_text, "commitment "))
    {
        return Err(VerifyError::Swapped);
    }
    if let (Some(commitments), Some(reveal)) = (&committed_batch, &revealed_batch)
        && commitments != reveal
    {
        return Err(VerifyError::OtherBatch {
            commitments: commitments.clone(),
            reveal: reveal.clone(),
        });
    }
    let mut used = vec![false; commitments.len()];
    for action in &actions {
        let hash = commitment_hash(&action.salt, &action.player, &action.text);
        // The hash covers the name, so a match is also a match of the player; the
        // name on the commitment line is checked too, since that is what readers see.
        let matching = commitments.iter().enumerate().find(|(index, commitment)| {
            !used[*index] && commitment.hash == hash && commitment.player == action.player
        });
        match matching {
            Some((index, _)) => used[index] = true,
            None => {
                return Err(VerifyError::Changed {
                    player: action.player.clone(),
                });
            }
        }
    }
    if let Some((_, commitment)) = commitments
        .iter()
        .zip(&used)
        .map(|(commitment, used)| (used, commitment))
        .find(|(used, _)| !**used)
    {
        return Err(VerifyError::Missing {
            player: commitment.player.clone(),
        });
    }
    Ok(actions.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use minijinja::{Environment, UndefinedBehavior};

    const SEED: [u8; 32] = [7; 32];

    fn ts(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    /// Renders a shipped template the way the shell does (strict blanks, subject line
    /// off, trailing blanks trimmed), without importing the shell.
    fn render(mail: &Mail) -> String {
        let source = match mail.template.as_str() {
            COMMITMENTS_TEMPLATE => include_str!("../../templates/sealed_commitments.txt"),
            REVEAL_TEMPLATE => include_str!("../../templates/sealed_reveal.txt"),
            other => panic!("no template {other}"),
        };
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.add_template("t", source).unwrap();
        let text = env
            .get_template("t")
            .unwrap()
            .render(minijinja::Value::from(minijinja::value::Serde(
                &mail.values,
            )))
            .unwrap();
        let (subject, body) = text.split_once('\n').unwrap();
        assert!(subject.starts_with("Subject: "), "{subject}");
        body.lines()
            .map(str::trim_end)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// A batch with three sealed actions, committed: the box, and both mails.
    fn three_actions() -> (SealedBox, Mail, Mail) {
        let mut sealed_box = SealedBox::default();
        let deadline = ts("2026-04-02T23:00:00Z");
        let opened = sealed_box.open("ruletag:8", "rule tag", deadline).unwrap();
        sealed_box.apply_event(&opened);
        let actions = [
            (1, "Alice", "move to 214 via \"game term\""),
            (2, "Bob Smith", "grab ball 10"),
            // Trailing blanks and a line break that could pass for a machine line.
            (
                3,
                "Carol",
                "move to null  \naction \"Carol\" salt 00 text \"x\"",
            ),
        ];
        for (player, name, text) in actions {
            let event = sealed_box
                .seal(
                    "ruletag:8",
                    player,
                    name,
                    text,
                    ts("2026-03-30T10:00:00Z"),
                    &SEED,
                )
                .unwrap();
            sealed_box.apply_event(&event);
        }
        assert_eq!(sealed_box.next_deadline(), Some(deadline));
        let (events, mut mail) = sealed_box.tick(deadline);
        assert_eq!(events.len(), 1);
        for event in &events {
            sealed_box.apply_event(event);
        }
        assert_eq!(sealed_box.next_deadline(), None);
        let (revealed, reveal_mail) = sealed_box.reveal("ruletag:8").unwrap();
        sealed_box.apply_event(&revealed);
        (sealed_box, mail.remove(0), reveal_mail)
    }

    #[test]
    fn seal_three_commit_reveal_and_verify() {
        let (sealed_box, commitments, reveal) = three_actions();
        assert_eq!(commitments.to, Audience::List);
        assert_eq!(commitments.tag, "rule tag");
        assert_eq!(
            sealed_box.batch("ruletag:8").unwrap().stage,
            Stage::Revealed
        );
        let commitments_body = render(&commitments);
        let reveal_body = render(&reveal);
        assert_eq!(verify_sealed(&commitments_body, &reveal_body), Ok(3));
        // Archives keep CRLF line ends; the check does not mind.
        assert_eq!(
            verify_sealed(
                &commitments_body.replace('\n', "\r\n"),
                &reveal_body.replace('\n', "\r\n")
            ),
            Ok(3)
        );
        // The hash is the documented one, reproducible with printf and sha256sum.
        let first = &sealed_box.batch("ruletag:8").unwrap().actions[0];
        assert_eq!(
            first.commitment().hash_hex,
            hex(&Sha256::digest(format!(
                "{}\nAlice\nmove to 214 via \"game term\"",
                first.salt_hex
            )))
        );
    }

    #[test]
    fn actions_in_chunks_read_and_serialise_as_one_list() {
        let sealed = |i: usize| Sealed {
            player: u32::try_from(i % 20).unwrap(),
            player_name: format!("P{}", i % 20),
            action_text: if i.is_multiple_of(2) { "yes" } else { "no" }.to_owned(),
            salt_hex: derive_salt(&SEED, "vote:1", i as u64),
            sealed_at: ts("2026-03-30T10:00:00Z"),
            choice: None,
        };
        let plain: Vec<Sealed> = (0..CHUNK * 2 + 7).map(sealed).collect();
        let actions: Actions = plain.iter().cloned().collect();
        assert_eq!(actions.len(), plain.len());
        assert!(actions.iter().eq(plain.iter()));
        assert!(actions.iter().rev().eq(plain.iter().rev()));
        for i in [0, CHUNK - 1, CHUNK, CHUNK * 2, CHUNK * 2 + 6] {
            assert_eq!(actions[i], plain[i]);
        }
        assert_eq!(actions.get(plain.len()), None);
        // The stored form is the plain list's, so states written before read alike.
        let json = serde_json::to_string(&actions).unwrap();
        assert_eq!(json, serde_json::to_string(&plain).unwrap());
        let back: Actions = serde_json::from_str(&json).unwrap();
        assert_eq!(back, actions);
        // A copy shares the full chunks and goes its own way.
        let mut copy = actions.clone();
        copy.push(sealed(9999));
        assert_eq!(actions.len() + 1, copy.len());
        assert_ne!(copy, actions);
    }

    /// Issue 30: a batch where Alice changes her vote 1,000 times and Bob votes
    /// once. Each vote's choice is its player.
    fn changed_minds(sealed_box: &mut SealedBox) -> Vec<Sealed> {
        let deadline = ts("2026-04-02T23:00:00Z");
        sealed_box.apply_event(&sealed_box.open("vote:1", "vote", deadline).unwrap());
        let mut history = Vec::new();
        let mut at = ts("2026-03-30T10:00:00Z");
        for (player, name, text) in (0..1000)
            .map(|i| (1, "Alice", if i % 2 == 0 { "yes" } else { "no" }))
            .chain([(2, "Bob", "yes")])
        {
            at += jiff::SignedDuration::from_secs(1);
            let event = sealed_box
                .seal_choice(
                    "vote:1",
                    player,
                    name,
                    text,
                    Some(player.to_string()),
                    at,
                    &SEED,
                )
                .unwrap();
            if let Event::Sealed { sealed, .. } = &event {
                history.push(sealed.clone());
            }
            sealed_box.apply_event(&event);
        }
        history
    }

    #[test]
    fn a_replaced_action_leaves_the_live_state_and_salts_stay_fresh() {
        let mut sealed_box = SealedBox::default();
        let history = changed_minds(&mut sealed_box);
        let batch = sealed_box.batch("vote:1").unwrap();
        // One action per choice: Alice's last, then Bob's.
        let live: Vec<(&str, &str)> = batch
            .actions
            .iter()
            .map(|a| (a.player_name.as_str(), a.action_text.as_str()))
            .collect();
        assert_eq!(live, [("Alice", "no"), ("Bob", "yes")]);
        assert_eq!(batch.sealed_count, 1001);
        // Every salt is the one of its index among all the actions ever sealed.
        let salts: std::collections::HashSet<&str> =
            history.iter().map(|s| s.salt_hex.as_str()).collect();
        assert_eq!(salts.len(), 1001);
        assert_eq!(
            batch.actions[1].salt_hex,
            derive_salt(&SEED, "vote:1", 1000)
        );
        // The choice may name what was chosen: the public view does not show it.
        let public = sealed_box.public_view();
        assert!(
            public.batches[0]
                .actions
                .iter()
                .all(|a| a.choice.is_none() && a.action_text == "(sealed)")
        );
    }

    #[test]
    fn the_log_completes_the_commitments_and_the_reveal_marking_the_replaced() {
        let mut sealed_box = SealedBox::default();
        let history = changed_minds(&mut sealed_box);
        let (mut events, mut mail) = sealed_box.tick(ts("2026-04-02T23:00:00Z"));
        // The engine alone knows the live actions only.
        assert_eq!(mail[0].values["n_actions"], 2);
        complete_committed(&mut events[0], &history);
        complete_mail(&mut mail[0], &history);
        assert_eq!(mail[0].values["n_actions"], 1001);
        sealed_box.apply_event(&events[0]);
        assert_eq!(sealed_box.batch("vote:1").unwrap().commitments.len(), 1001);
        let (revealed, mut reveal) = sealed_box
            .reveal_replacing("vote:1", |s| Some(s.player.to_string()))
            .unwrap();
        complete_mail(&mut reveal, &history);
        sealed_box.apply_event(&revealed);
        let actions = reveal.values["actions"].as_array().unwrap();
        assert_eq!(actions.len(), 1001);
        let kept: Vec<usize> = actions
            .iter()
            .enumerate()
            .filter(|(_, a)| a["replaced"] == false)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(kept, [999, 1000]);
        let body = render(&reveal);
        assert_eq!(body.matches("only the last counts").count(), 999);
        assert_eq!(verify_sealed(&render(&mail[0]), &body), Ok(1001));
        // Completing twice changes nothing.
        let again = reveal.clone();
        complete_mail(&mut reveal, &history);
        assert_eq!(again, reveal);
    }

    #[test]
    fn a_batch_stored_before_issue_30_counts_every_action_it_kept() {
        let (sealed_box, _, _) = three_actions();
        let mut json = serde_json::to_value(&sealed_box).unwrap();
        let batch = json["batches"][0].as_object_mut().unwrap();
        batch.remove("sealed_count");
        for action in batch["actions"].as_array_mut().unwrap() {
            assert!(action.get("choice").is_none());
        }
        let back: SealedBox = serde_json::from_value(json).unwrap();
        assert_eq!(back.batches[0].sealed_count, 3);
        assert_eq!(back, sealed_box);
    }

    #[test]
    fn an_altered_action_fails_naming_the_player() {
        let (_, commitments, reveal) = three_actions();
        let commitments_body = render(&commitments);
        let reveal_body = render(&reveal).replace("grab ball 10", "grab ball 11");
        assert_eq!(
            verify_sealed(&commitments_body, &reveal_body),
            Err(VerifyError::Changed {
                player: "Bob Smith".to_owned()
            })
        );
        // Even a trailing blank counts: it is quoted, so the mail cannot lose it.
        let reveal_body = render(&reveal).replace("move to null  \\n", "move to null\\n");
        assert_eq!(
            verify_sealed(&commitments_body, &reveal_body),
            Err(VerifyError::Changed {
                player: "Carol".to_owned()
            })
        );
        // A withheld action is caught too.
        let withheld: String = render(&reveal)
            .lines()
            .filter(|line| !line.starts_with("action \"Alice\""))
            .map(|line| format!("{line}\n"))
            .collect();
        assert_eq!(
            verify_sealed(&commitments_body, &withheld),
            Err(VerifyError::Missing {
                player: "Alice".to_owned()
            })
        );
    }

    #[test]
    fn the_commitments_mail_holds_no_action_text() {
        let (_, commitments, _) = three_actions();
        let body = render(&commitments);
        let values = commitments.values.to_string();
        for text in ["214", "grab ball", "move to", "null"] {
            assert!(!body.contains(text), "{text:?} in the commitments mail");
            assert!(!values.contains(text), "{text:?} in the commitments values");
        }
        for name in ["Alice", "Bob Smith", "Carol"] {
            assert!(body.contains(name));
        }
    }

    #[test]
    fn the_same_inputs_give_the_same_commitments_and_the_seed_matters() {
        let (first, commitments_a, _) = three_actions();
        let (second, commitments_b, _) = three_actions();
        assert_eq!(commitments_a, commitments_b);
        assert_eq!(first, second);
        let salt = derive_salt(&SEED, "ruletag:8", 0);
        assert_eq!(salt, first.batch("ruletag:8").unwrap().actions[0].salt_hex);
        assert_ne!(salt, derive_salt(&[8; 32], "ruletag:8", 0));
        assert_ne!(salt, derive_salt(&SEED, "ruletag:8", 1));
        assert_ne!(salt, derive_salt(&SEED, "ruletag:9", 0));
    }

    #[test]
    fn sealing_is_refused_at_the_deadline_and_reveal_waits_for_the_commitments() {
        let mut sealed_box = SealedBox::default();
        let deadline = ts("2026-04-02T23:00:00Z");
        sealed_box.apply_event(&sealed_box.open("b", "donkey", deadline).unwrap());
        assert_eq!(
            sealed_box.open("b", "donkey", deadline),
            Err(SealError::Exists("b".to_owned()))
        );
        assert_eq!(
            sealed_box.reveal("b").map(|_| ()),
            Err(SealError::NotCommitted("b".to_owned()))
        );
        assert_eq!(
            sealed_box.seal("b", 1, "Alice", "cover", deadline, &SEED),
            Err(SealError::Closed("b".to_owned()))
        );
        assert_eq!(
            sealed_box.seal("nope", 1, "Alice", "cover", deadline, &SEED),
            Err(SealError::NoBatch("nope".to_owned()))
        );
        // An empty batch still publishes (no) commitments, and verifies as zero actions.
        let (events, mail) = sealed_box.tick(deadline);
        sealed_box.apply_event(&events[0]);
        let (_, reveal) = sealed_box.reveal("b").unwrap();
        assert_eq!(verify_sealed(&render(&mail[0]), &render(&reveal)), Ok(0));
    }

    #[test]
    fn commitments_of_another_batch_do_not_verify() {
        let (_, commitments, reveal) = three_actions();
        let reveal_body = render(&reveal).replace("batch \"ruletag:8\"", "batch \"ruletag:9\"");
        assert!(matches!(
            verify_sealed(&render(&commitments), &reveal_body),
            Err(VerifyError::OtherBatch { .. })
        ));
        let broken = render(&commitments).replace("commitment ", "commitment zz");
        assert!(matches!(
            verify_sealed(&broken, &render(&reveal)),
            Err(VerifyError::Malformed { .. })
        ));
    }
}
