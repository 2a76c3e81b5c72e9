//! The Officer in charge of Random Things: every random draw of every game goes
//! through here, so that anyone can check it afterwards (DESIGN.md, guarantee 6).
//! Pure: the seed comes in as an argument (the shell generates it), draws come out
//! as events, and `apply_event` is the only thing that changes the record.
//!
//! # How it works
//!
//! Play is cut into periods (a week, a game, a round: the caller chooses the label).
//! At the start of a period the officer takes a fresh secret seed and publishes only
//! its commitment, the SHA-256 of the seed. Every draw of the period is computed from
//! the seed by the procedure below and recorded with its purpose and result. At the
//! end of the period the seed is published: anyone can then check that it matches
//! the commitment (so it was not changed after the fact) and re-run every draw.
//!
//! The procedure is written out here rather than borrowed from a library, because a
//! library's `shuffle` may change between versions and players must be able to re-run
//! it with `sha256sum` and a pen.
//!
//! # The procedure, for players
//!
//! 1. **Seed.** 32 bytes, written as 64 lower-case hex digits, `SEED` below.
//! 2. **Commitment.** The SHA-256 of the 32 seed bytes (not of the 64 characters):
//!    `printf %s SEED | xxd -r -p | sha256sum`.
//! 3. **Blocks.** The draws of a period are numbered from 0 in the order they were
//!    made: draw `d`. Block `c` of draw `d` (c = 0, 1, 2, ...) is the SHA-256 of 40
//!    bytes: the seed, then `d` as 4 bytes big-endian, then `c` as 4 bytes big-endian:
//!    `printf '%s%08x%08x' SEED d c | xxd -r -p | sha256sum`.
//! 4. **Words.** Cut each block's 64 hex digits into 8 groups of 8; each group is a
//!    number from 0 to 4 294 967 295 (`2^32 - 1`). A draw reads words in order: the 8
//!    words of its block 0, then the 8 of its block 1, and so on, as far as it needs.
//! 5. **A number below `n`** (`1 <= n < 2^32`): let `limit = 2^32 - (2^32 mod n)`.
//!    Read the next word `x`. If `x < limit`, the number is `x mod n`; otherwise
//!    throw `x` away and read the next word. (Throwing away the top few words is what
//!    makes every number below `n` exactly equally likely; `x mod n` alone would
//!    favour the small ones.)
//! 6. **Kinds of draw.**
//!    - `below n`: one number below `n`. The result is that number.
//!    - `shuffle n`: start from the list `0, 1, ..., n-1`. For `i` from `n-1` down to
//!      1: take `j` = a number below `i + 1` and swap the list's entries at positions
//!      `i` and `j` (positions count from 0). The result is the list: entry `k` is
//!      which of the original items comes `k`-th.
//!    - `weighted w0, w1, ...`: let `total` be the sum of the weights; take `r` = a
//!      number below `total`; the result is the first `i` with
//!      `r < w0 + ... + wi`. A weight of 0 is never chosen.
//!
//! # Worked example
//!
//! Seed `000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f` (never use
//! it in a game). Commitment
//! `630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd`.
//! Draw 0, `below 6`: block 0 is
//! `printf '%s%08x%08x' 000102...1f 0 0 | xxd -r -p | sha256sum` =
//! `a9d6e500293a88bd...`; its first word `a9d6e500` is 2 849 432 832, below the
//! limit 4 294 967 292, and 2 849 432 832 mod 6 = 0. The result is 0.
//! Draw 1, `shuffle 3`: block 0 is `2bff74e8daa80f56...`. Start from `0, 1, 2`.
//! i = 2: the word `2bff74e8` = 738 161 896 is below the limit 4 294 967 295, and
//! mod 3 gives j = 1: swap positions 2 and 1, giving `0, 2, 1`. i = 1: the word
//! `daa80f56` = 3 668 447 062, mod 2 gives j = 0: swap positions 1 and 0. The result
//! is `2, 0, 1`. (The `worked_example_of_the_module_doc` test checks every number.)

use serde::{Deserialize, Serialize};
use serde_json::json;
use sha2::{Digest, Sha256};

use super::{Audience, Mail, Sentence, Timestamp, human_time};

/// The largest list `shuffle` takes: a game shuffles players, cards or squares, and a
/// bigger request is a mistake that should not allocate gigabytes.
pub const MAX_SHUFFLE: u32 = 100_000;

/// What was asked of the officer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum DrawKind {
    /// A random order of `n` things: the result is a permutation of `0..n`.
    Shuffle { n: u32 },
    /// A number from `0` to `n - 1`: the result has one entry.
    Below { n: u32 },
    /// An index into `weights`, each as likely as its weight: the result has one entry.
    Weighted { weights: Vec<u32> },
}

/// One recorded draw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Draw {
    /// The draw's number in its period, from 0: `d` in the procedure.
    pub index: u32,
    /// Why it was drawn: "Rule Tag: who is It after Bob's tag".
    pub purpose: String,
    pub kind: DrawKind,
    /// A permutation for `Shuffle`, one number for `Below` and `Weighted`.
    pub result: Vec<u32>,
    pub at: Timestamp,
}

/// One period: its seed, its commitment and its draws. While the period runs the
/// seed is secret; see `RandomOfficer::public_view`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PeriodRecord {
    pub label: String,
    /// SHA-256 of the seed bytes, 64 lower-case hex digits.
    pub commitment: String,
    /// The seed, 64 lower-case hex digits.
    pub seed: String,
    pub started_at: Timestamp,
    /// Set when the seed was published.
    pub revealed_at: Option<Timestamp>,
    pub draws: Vec<Draw>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RandomOfficer {
    /// The running period, if any: draws need one.
    pub current: Option<PeriodRecord>,
    /// Finished periods, oldest first, with their seeds published.
    pub past: Vec<PeriodRecord>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// A period began. The event carries the seed because the event log must be
    /// able to rebuild the state (guarantee 7); the log is private. What is
    /// published is the commitment only (`PeriodRecord::started_mail`).
    PeriodStarted {
        label: String,
        commitment: String,
        seed: String,
    },
    Drew {
        label: String,
        index: u32,
        purpose: String,
        #[serde(rename = "draw")]
        kind: DrawKind,
        result: Vec<u32>,
        at: Timestamp,
    },
    /// The period ended and its seed is now public.
    PeriodRevealed { label: String, seed: String },
}

/// Why the officer cannot draw, or cannot start or end a period. The game asked for
/// something impossible; `sentence` words it for a reply if a command caused it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DrawError {
    #[error("no random period is running")]
    NoPeriod,
    #[error("the random period {label:?} is still running")]
    PeriodRunning { label: String },
    #[error("cannot draw {kind:?}: {why}")]
    Impossible { kind: DrawKind, why: &'static str },
}

impl DrawError {
    pub fn sentence(&self) -> Sentence {
        match self {
            DrawError::NoPeriod => Sentence::new("random_no_period"),
            DrawError::PeriodRunning { label } => {
                Sentence::new("random_period_running").arg("label", label)
            }
            DrawError::Impossible { kind, why } => Sentence::new("random_impossible")
                .arg("draw", describe(kind))
                .arg("why", why),
        }
    }
}

/// The first thing wrong with a period's record, found by `verify`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VerifyError {
    #[error("the seed {seed:?} is not 64 hex digits")]
    BadSeed { seed: String },
    #[error("the seed hashes to {computed}, not to the published commitment {commitment}")]
    CommitmentMismatch {
        commitment: String,
        computed: String,
    },
    #[error("draw {position} is numbered {index}")]
    OutOfOrder { position: u32, index: u32 },
    #[error("draw {index} ({purpose:?}) could not be made: {why}")]
    Impossible {
        index: u32,
        purpose: String,
        why: String,
    },
    #[error("draw {index} ({purpose:?}) recorded {recorded:?} but the seed gives {computed:?}")]
    DrawMismatch {
        index: u32,
        purpose: String,
        recorded: Vec<u32>,
        computed: Vec<u32>,
    },
}

/// 64 lower-case hex digits.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Reads a seed written as 64 hex digits (either case).
pub fn parse_seed(text: &str) -> Option<[u8; 32]> {
    let text = text.trim().as_bytes();
    if text.len() != 64 {
        return None;
    }
    let mut seed = [0u8; 32];
    for (byte, pair) in seed.iter_mut().zip(text.chunks_exact(2)) {
        let pair = std::str::from_utf8(pair).ok()?;
        *byte = u8::from_str_radix(pair, 16).ok()?;
    }
    Some(seed)
}

/// Step 2 of the procedure: SHA-256 of the seed bytes, in hex.
pub fn commitment(seed: &[u8; 32]) -> String {
    hex(&Sha256::digest(seed))
}

/// Step 3: block `counter` of draw `index`.
fn block(seed: &[u8; 32], index: u32, counter: u32) -> [u8; 32] {
    let mut hasher = Sha256::new();
    hasher.update(seed);
    hasher.update(index.to_be_bytes());
    hasher.update(counter.to_be_bytes());
    hasher.finalize().into()
}

/// Step 4: the words of one draw, in order.
struct Words<'a> {
    seed: &'a [u8; 32],
    index: u32,
    counter: u32,
    block: [u8; 32],
    /// The next word's position in `block`, 0 to 8; 8 means the block is used up.
    position: usize,
}

impl<'a> Words<'a> {
    fn new(seed: &'a [u8; 32], index: u32) -> Words<'a> {
        Words {
            seed,
            index,
            counter: 0,
            block: block(seed, index, 0),
            position: 0,
        }
    }

    fn next_word(&mut self) -> u32 {
        if self.position == 8 {
            // Each word is accepted with probability over 1/2, so no draw comes near
            // 2^32 blocks; wrapping only keeps the arithmetic total.
            self.counter = self.counter.wrapping_add(1);
            self.block = block(self.seed, self.index, self.counter);
            self.position = 0;
        }
        let start = self.position * 4;
        self.position += 1;
        u32::from_be_bytes([
            self.block[start],
            self.block[start + 1],
            self.block[start + 2],
            self.block[start + 3],
        ])
    }

    /// Step 5: uniform below `n`, by rejection. Invariant: `n >= 1`.
    fn below(&mut self, n: u32) -> u32 {
        let n = u64::from(n.max(1));
        let two_to_32 = 1u64 << 32;
        let limit = two_to_32 - two_to_32 % n;
        loop {
            let word = u64::from(self.next_word());
            if word < limit {
                // `word % n < n <= u32::MAX`, so the conversion cannot fail.
                return u32::try_from(word % n).unwrap_or(0);
            }
        }
    }
}

/// Numbers that are the same on every run, drawn by the documented procedure from
/// a seed named by a label: what tests and benchmarks use when they need many
/// arbitrary but repeatable choices. Draw `i` is `compute(seed, i, Below { n })`.
pub struct Stream {
    seed: [u8; 32],
    index: u32,
}

impl Stream {
    /// The stream whose seed is the SHA-256 of `label`.
    pub fn new(label: &str) -> Stream {
        Stream {
            seed: Sha256::digest(label.as_bytes()).into(),
            index: 0,
        }
    }

    /// A number from 0 to `n - 1` (0 when `n` is 0 or 1).
    pub fn below(&mut self, n: usize) -> usize {
        let n = u32::try_from(n).unwrap_or(u32::MAX);
        if n <= 1 {
            return 0;
        }
        let draw = Words::new(&self.seed, self.index).below(n);
        self.index = self.index.wrapping_add(1);
        draw as usize
    }
}

/// Step 6: the result of draw number `index` of the period with this seed.
pub fn compute(seed: &[u8; 32], index: u32, kind: &DrawKind) -> Result<Vec<u32>, DrawError> {
    let impossible = |why| {
        Err(DrawError::Impossible {
            kind: kind.clone(),
            why,
        })
    };
    let mut words = Words::new(seed, index);
    match kind {
        DrawKind::Below { n: 0 } => impossible("there is no number below 0"),
        DrawKind::Below { n } => Ok(vec![words.below(*n)]),
        DrawKind::Shuffle { n } if *n > MAX_SHUFFLE => impossible("too many things to shuffle"),
        DrawKind::Shuffle { n } => {
            let mut list: Vec<u32> = (0..*n).collect();
            for i in (1..*n).rev() {
                let j = words.below(i + 1);
                // Both positions are below `n`, the list's length.
                list.swap(i as usize, j as usize);
            }
            Ok(list)
        }
        DrawKind::Weighted { weights } => {
            let total: u64 = weights.iter().map(|&weight| u64::from(weight)).sum();
            let Ok(total) = u32::try_from(total) else {
                return impossible("the weights add up to 2^32 or more");
            };
            if total == 0 {
                return impossible("the weights add up to 0");
            }
            let r = u64::from(words.below(total));
            let mut running = 0u64;
            for (i, &weight) in weights.iter().enumerate() {
                running += u64::from(weight);
                if r < running {
                    return Ok(vec![u32::try_from(i).unwrap_or(u32::MAX)]);
                }
            }
            // `r < total`, the last running sum, so the loop has returned.
            impossible("the weights add up to 0")
        }
    }
}

/// Checks a finished period: the seed matches the commitment, and every recorded
/// draw is what the seed gives. The error names the first thing wrong.
pub fn verify(record: &PeriodRecord) -> Result<(), VerifyError> {
    let seed = parse_seed(&record.seed).ok_or_else(|| VerifyError::BadSeed {
        seed: record.seed.clone(),
    })?;
    let computed = commitment(&seed);
    if !computed.eq_ignore_ascii_case(record.commitment.trim()) {
        return Err(VerifyError::CommitmentMismatch {
            commitment: record.commitment.clone(),
            computed,
        });
    }
    for (position, draw) in (0u32..).zip(&record.draws) {
        if draw.index != position {
            return Err(VerifyError::OutOfOrder {
                position,
                index: draw.index,
            });
        }
        let computed =
            compute(&seed, draw.index, &draw.kind).map_err(|error| VerifyError::Impossible {
                index: draw.index,
                purpose: draw.purpose.clone(),
                why: error.to_string(),
            })?;
        if computed != draw.result {
            return Err(VerifyError::DrawMismatch {
                index: draw.index,
                purpose: draw.purpose.clone(),
                recorded: draw.result.clone(),
                computed,
            });
        }
    }
    Ok(())
}

/// "a number below 6", "a shuffle of 5", "a weighted choice among 3, 1, 1".
pub fn describe(kind: &DrawKind) -> String {
    match kind {
        DrawKind::Below { n } => format!("a number below {n}"),
        DrawKind::Shuffle { n } => format!("a shuffle of {n}"),
        DrawKind::Weighted { weights } => format!(
            "a weighted choice among {}",
            weights
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

impl PeriodRecord {
    /// The announcement of a period: its label and commitment, never the seed.
    pub fn started_mail(&self, tag: &str) -> Mail {
        Mail::new(
            Audience::List,
            tag,
            "random_period_started",
            json!({
                "label": self.label,
                "commitment": self.commitment,
                "at": human_time(self.started_at),
            }),
        )
    }

    /// The end of a period: the seed and every draw, for anyone to check.
    pub fn revealed_mail(&self, tag: &str) -> Mail {
        let draws: Vec<serde_json::Value> = self
            .draws
            .iter()
            .map(|draw| {
                json!({
                    "index": draw.index,
                    "purpose": draw.purpose,
                    "draw": describe(&draw.kind),
                    "result": draw
                        .result
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                    "at": human_time(draw.at),
                    "block_command": format!(
                        "printf '%s%08x%08x' {} {} 0 | xxd -r -p | sha256sum",
                        self.seed, draw.index
                    ),
                })
            })
            .collect();
        Mail::new(
            Audience::List,
            tag,
            "random_period_revealed",
            json!({
                "label": self.label,
                "seed": self.seed,
                "commitment": self.commitment,
                "started": human_time(self.started_at),
                "revealed": human_time(self.revealed_at.unwrap_or(self.started_at)),
                "draws": draws,
            }),
        )
    }
}

impl RandomOfficer {
    /// Opens a period with a fresh seed from the shell. Refused while one runs: a
    /// period's seed must be revealed before the next is committed.
    pub fn start_period(&self, label: &str, seed: [u8; 32]) -> Result<Event, DrawError> {
        if let Some(current) = &self.current {
            return Err(DrawError::PeriodRunning {
                label: current.label.clone(),
            });
        }
        Ok(Event::PeriodStarted {
            label: label.to_owned(),
            commitment: commitment(&seed),
            seed: hex(&seed),
        })
    }

    /// Opens a period under `label` with `seed` unless one is running, so that a
    /// game's draw is always made in a committed period. Returns the event to
    /// record, already applied to `self`; `None` when a period was running.
    pub fn open_if_idle(
        &mut self,
        label: &str,
        seed: [u8; 32],
        at: Timestamp,
    ) -> Result<Option<Event>, DrawError> {
        if self.current.is_some() {
            return Ok(None);
        }
        let event = self.start_period(label, seed)?;
        self.apply_event(&event, at);
        Ok(Some(event))
    }

    /// Closes the running period, publishing its seed.
    pub fn end_period(&self) -> Result<Event, DrawError> {
        let current = self.current.as_ref().ok_or(DrawError::NoPeriod)?;
        Ok(Event::PeriodRevealed {
            label: current.label.clone(),
            seed: current.seed.clone(),
        })
    }

    /// Makes the next draw of the running period. Pure: the draw counts only once
    /// its event is applied, so apply each draw's event before asking for the next
    /// (two draws computed on the same state would share a number and a result).
    pub fn draw(
        &self,
        kind: DrawKind,
        purpose: &str,
        at: Timestamp,
    ) -> Result<(Vec<u32>, Event), DrawError> {
        let current = self.current.as_ref().ok_or(DrawError::NoPeriod)?;
        // The state only ever holds seeds it wrote itself; a hand-edited one that no
        // longer reads is reported as no usable period rather than drawn from.
        let seed = parse_seed(&current.seed).ok_or(DrawError::NoPeriod)?;
        let index = u32::try_from(current.draws.len()).map_err(|_| DrawError::Impossible {
            kind: kind.clone(),
            why: "the period has too many draws",
        })?;
        let result = compute(&seed, index, &kind)?;
        let event = Event::Drew {
            label: current.label.clone(),
            index,
            purpose: purpose.to_owned(),
            kind,
            result: result.clone(),
            at,
        };
        Ok((result, event))
    }

    /// A random order of `n` things: a permutation of `0..n`.
    pub fn shuffle(
        &self,
        n: u32,
        purpose: &str,
        at: Timestamp,
    ) -> Result<(Vec<u32>, Event), DrawError> {
        self.draw(DrawKind::Shuffle { n }, purpose, at)
    }

    /// A number from 0 to `n - 1`, each equally likely.
    pub fn below(&self, n: u32, purpose: &str, at: Timestamp) -> Result<(u32, Event), DrawError> {
        let (result, event) = self.draw(DrawKind::Below { n }, purpose, at)?;
        Ok((result.first().copied().unwrap_or(0), event))
    }

    /// An index into `weights`, each as likely as its weight.
    pub fn weighted(
        &self,
        weights: &[u32],
        purpose: &str,
        at: Timestamp,
    ) -> Result<(usize, Event), DrawError> {
        let kind = DrawKind::Weighted {
            weights: weights.to_vec(),
        };
        let (result, event) = self.draw(kind, purpose, at)?;
        Ok((result.first().map_or(0, |&i| i as usize), event))
    }

    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        match event {
            Event::PeriodStarted {
                label,
                commitment,
                seed,
            } => {
                // A period still running (only possible in a hand-made log) is kept
                // in the record, unrevealed, rather than lost.
                if let Some(previous) = self.current.take() {
                    self.past.push(previous);
                }
                self.current = Some(PeriodRecord {
                    label: label.clone(),
                    commitment: commitment.clone(),
                    seed: seed.clone(),
                    started_at: at,
                    revealed_at: None,
                    draws: Vec::new(),
                });
            }
            Event::Drew {
                index,
                purpose,
                kind,
                result,
                at,
                ..
            } => {
                if let Some(current) = &mut self.current {
                    current.draws.push(Draw {
                        index: *index,
                        purpose: purpose.clone(),
                        kind: kind.clone(),
                        result: result.clone(),
                        at: *at,
                    });
                }
            }
            Event::PeriodRevealed { .. } => {
                if let Some(mut current) = self.current.take() {
                    current.revealed_at = Some(at);
                    self.past.push(current);
                }
            }
        }
    }

    /// The state as anyone may see it: the running period's seed is blanked, since
    /// publishing it early would let players predict every remaining draw.
    pub fn public_view(&self) -> RandomOfficer {
        let mut view = self.clone();
        if let Some(current) = &mut view.current {
            current.seed = "(secret until the period ends)".to_owned();
        }
        view
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_stream_repeats_itself_and_stays_below_its_bound() {
        let draws = |label: &str| {
            let mut stream = Stream::new(label);
            (1..200).map(|n| stream.below(n)).collect::<Vec<_>>()
        };
        assert_eq!(draws("a"), draws("a"));
        assert_ne!(draws("a"), draws("b"));
        assert!(draws("a").iter().zip(1..).all(|(draw, n)| *draw < n));
    }

    use super::*;

    const EXAMPLE_SEED: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";

    fn at(minutes: i64) -> Timestamp {
        Timestamp::from_second(1_800_000_000 + minutes * 60).unwrap()
    }

    fn seed(byte: u8) -> [u8; 32] {
        [byte; 32]
    }

    fn started(label: &str, seed: [u8; 32]) -> RandomOfficer {
        let mut officer = RandomOfficer::default();
        let event = officer.start_period(label, seed).unwrap();
        officer.apply_event(&event, at(0));
        officer
    }

    /// Several draws of every kind, then the reveal: a real finished record.
    fn finished_record(seed: [u8; 32]) -> PeriodRecord {
        let mut officer = started("week 1", seed);
        let apply = |officer: &mut RandomOfficer, event: Event| officer.apply_event(&event, at(1));
        for n in [1, 2, 6, 7, 52] {
            let (_, event) = officer.shuffle(n, &format!("shuffle {n}"), at(1)).unwrap();
            apply(&mut officer, event);
            let (_, event) = officer.below(n, &format!("below {n}"), at(1)).unwrap();
            apply(&mut officer, event);
        }
        for weights in [vec![1, 0, 3], vec![0, 5], vec![7], vec![u32::MAX - 1, 1]] {
            let (_, event) = officer.weighted(&weights, "weighted", at(1)).unwrap();
            apply(&mut officer, event);
        }
        let event = officer.end_period().unwrap();
        officer.apply_event(&event, at(2));
        assert!(officer.current.is_none());
        officer.past.pop().unwrap()
    }

    #[test]
    fn worked_example_of_the_module_doc() {
        let seed = parse_seed(EXAMPLE_SEED).unwrap();
        assert_eq!(
            commitment(&seed),
            "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
        );
        assert!(hex(&block(&seed, 0, 0)).starts_with("a9d6e500293a88bd"));
        assert_eq!(
            compute(&seed, 0, &DrawKind::Below { n: 6 }).unwrap(),
            vec![0]
        );
        assert!(hex(&block(&seed, 1, 0)).starts_with("2bff74e8daa80f56"));
        assert_eq!(
            compute(&seed, 1, &DrawKind::Shuffle { n: 3 }).unwrap(),
            vec![2, 0, 1]
        );
        // And through the officer, numbered as the doc says.
        let mut officer = RandomOfficer::default();
        let event = officer.start_period("example", seed).unwrap();
        officer.apply_event(&event, at(0));
        let (face, event) = officer.below(6, "die", at(0)).unwrap();
        officer.apply_event(&event, at(0));
        let (order, _) = officer.shuffle(3, "order", at(0)).unwrap();
        assert_eq!((face, order), (0, vec![2, 0, 1]));
    }

    #[test]
    fn a_real_record_verifies() {
        let record = finished_record(seed(7));
        assert_eq!(record.draws.len(), 14);
        assert_eq!(verify(&record), Ok(()));
        // Results have the promised shapes.
        for draw in &record.draws {
            match &draw.kind {
                DrawKind::Shuffle { n } => {
                    let mut sorted = draw.result.clone();
                    sorted.sort_unstable();
                    assert_eq!(sorted, (0..*n).collect::<Vec<_>>());
                }
                DrawKind::Below { n } => assert!(draw.result[0] < *n),
                DrawKind::Weighted { weights } => {
                    assert!(weights[draw.result[0] as usize] > 0)
                }
            }
        }
    }

    #[test]
    fn an_altered_draw_is_named() {
        let mut record = finished_record(seed(7));
        record.draws[5].result[0] = (record.draws[5].result[0] + 1) % 6;
        match verify(&record) {
            Err(VerifyError::DrawMismatch { index, purpose, .. }) => {
                assert_eq!(index, 5);
                assert_eq!(purpose, "below 6");
            }
            other => panic!("{other:?}"),
        }
        let mut record = finished_record(seed(7));
        record.draws[4].result.swap(0, 1);
        assert!(matches!(
            verify(&record),
            Err(VerifyError::DrawMismatch { index: 4, .. })
        ));
        let mut record = finished_record(seed(7));
        record.draws.remove(0);
        assert!(matches!(
            verify(&record),
            Err(VerifyError::OutOfOrder {
                position: 0,
                index: 1
            })
        ));
    }

    #[test]
    fn a_seed_that_does_not_match_the_commitment_fails() {
        let mut record = finished_record(seed(7));
        record.seed = hex(&seed(8));
        assert!(matches!(
            verify(&record),
            Err(VerifyError::CommitmentMismatch { .. })
        ));
        record.seed = "not hex".to_owned();
        assert!(matches!(verify(&record), Err(VerifyError::BadSeed { .. })));
    }

    #[test]
    fn same_seed_same_draws_and_a_different_seed_differs() {
        assert_eq!(
            finished_record(seed(3)).draws,
            finished_record(seed(3)).draws
        );
        let ours = finished_record(seed(3));
        let theirs = finished_record(seed(4));
        assert_ne!(
            ours.draws.iter().map(|d| &d.result).collect::<Vec<_>>(),
            theirs.draws.iter().map(|d| &d.result).collect::<Vec<_>>()
        );
    }

    #[test]
    fn below_six_is_uniform_enough() {
        let mut officer = started("dice", seed(42));
        let mut counts = [0u32; 6];
        for _ in 0..10_000 {
            let (face, event) = officer.below(6, "a die", at(1)).unwrap();
            counts[face as usize] += 1;
            officer.apply_event(&event, at(1));
        }
        let expected = 10_000.0 / 6.0;
        let chi_square: f64 = counts
            .iter()
            .map(|&count| (f64::from(count) - expected).powi(2) / expected)
            .sum();
        // 5 degrees of freedom: 20.5 is the 0.1% critical value.
        assert!(chi_square < 20.5, "{counts:?} gives {chi_square}");
        let event = officer.end_period().unwrap();
        officer.apply_event(&event, at(2));
        assert_eq!(verify(&officer.past[0]), Ok(()));
    }

    #[test]
    fn draws_need_a_period_and_possible_requests() {
        let officer = RandomOfficer::default();
        assert_eq!(
            officer.below(6, "x", at(0)).unwrap_err(),
            DrawError::NoPeriod
        );
        assert_eq!(officer.end_period().unwrap_err(), DrawError::NoPeriod);
        let officer = started("week 1", seed(1));
        assert!(matches!(
            officer.start_period("week 2", seed(2)),
            Err(DrawError::PeriodRunning { .. })
        ));
        assert!(officer.below(0, "x", at(0)).is_err());
        assert!(officer.weighted(&[], "x", at(0)).is_err());
        assert!(officer.weighted(&[0, 0], "x", at(0)).is_err());
        assert!(officer.weighted(&[u32::MAX, 1], "x", at(0)).is_err());
        assert!(officer.shuffle(MAX_SHUFFLE + 1, "x", at(0)).is_err());
        assert_eq!(officer.shuffle(0, "x", at(0)).unwrap().0, Vec::<u32>::new());
        assert_eq!(
            DrawError::NoPeriod.sentence().code,
            "random_no_period".to_owned()
        );
    }

    #[test]
    fn the_seed_stays_secret_until_revealed_and_state_round_trips() {
        let mut officer = started("week 1", seed(9));
        let commitment_text = officer.current.as_ref().unwrap().commitment.clone();
        let mail = officer.current.as_ref().unwrap().started_mail("nomic");
        let published = serde_json::to_string(&mail).unwrap();
        assert!(published.contains(&commitment_text));
        assert!(!published.contains(&hex(&seed(9))));
        assert!(
            !serde_json::to_string(&officer.public_view())
                .unwrap()
                .contains(&hex(&seed(9)))
        );

        let (_, event) = officer.shuffle(4, "turn order", at(1)).unwrap();
        officer.apply_event(&event, at(1));
        let text = serde_json::to_string(&officer).unwrap();
        assert_eq!(
            serde_json::from_str::<RandomOfficer>(&text).unwrap(),
            officer
        );
        let event_text = serde_json::to_string(&event).unwrap();
        assert!(event_text.contains("\"kind\":\"drew\""), "{event_text}");
        assert_eq!(serde_json::from_str::<Event>(&event_text).unwrap(), event);

        let end = officer.end_period().unwrap();
        officer.apply_event(&end, at(2));
        let mail = officer.past[0].revealed_mail("nomic");
        assert_eq!(mail.values["seed"], hex(&seed(9)));
        assert_eq!(mail.values["draws"][0]["purpose"], "turn order");
        assert_eq!(mail.values["draws"][0]["draw"], "a shuffle of 4");
    }
}
