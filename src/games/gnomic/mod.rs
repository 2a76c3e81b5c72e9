//! `[gnomic]`: the Gnomic ruleset (version 73) refereed by mail: turns in
//! alphabetical order (325), a turn's hacks posted at once (304, 423), secret
//! votes mailed to the bot and sealed (402, 342), the count when all have voted
//! or the 72 hours are over (322, 392, 109, 359), the change applied to the
//! ruleset (205, 107, 108) and the score update (304, 421, 372, 394, 390, 204,
//! 430, 310/431, 112); meta-amendments and changes (401, 421, 342, 434), the
//! shout of UNRULEWORTHY!!! (383, 410), the Voting Gnomes (440), and Judgment
//! with its fees and precedents (212, 373, 327); forfeiting (113), names (425)
//! and the exception state with its overlapping turns (432).
//!
//! The pure decisions come first, each clause tested on its own: `scoring` (the
//! arithmetic), `hack` (the form of a hack and what adopting it does to the
//! ruleset), `judgment` (the Judge, the fees, which meta-amendment takes
//! effect). `parse` reads the mail, `rules` carries out the turns, votes and
//! the count, `meta` the meta-amendments, changes and shouts, `judging`
//! Judgment, `exception` the agreements of 432; `report` gives the
//! announcements their values.
//! Built through the game seam alone; pure, like the engine: the time, the
//! sender and the entropy come in through `Ctx` and the transaction.
//!
//! Identifiers: turn N seals its votes into batch `gnomic:turn:N`; the game keeps
//! its deadlines itself (`next_deadline`: the earliest count of the open turns);
//! the voters' reminders are on the shared schedule (`rules::sync_reminders`).

pub mod bound;
mod correct;
mod exception;
pub mod hack;
mod judging;
pub mod judgment;
mod meta;
mod parse;
mod report;
mod rules;
mod sample;
pub mod scoring;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::engine::calendar::Deadline;
use crate::engine::game::{Game, Running, Scores, Secrecy, Standing, Tick, Tx, View};
use crate::engine::players::PlayerId;
use crate::engine::{Address, Ctx, NotUnderstood, Refusal, Sentence, Timestamp};

use hack::Hack;
use scoring::{Numbers, Tally};

pub const TAG: &str = "gnomic";

/// The Gnomic ruleset, version 73.
pub struct Gnomic;

/// The numbers of the rules, from `[gnomic]` in bot.toml; every default is the
/// text's. The arithmetic's own numbers are under `[gnomic.numbers]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Params {
    /// 108: "The numbers shall begin with 301".
    pub first_ordinal: u32,
    /// 402 and 322: "After all players have voted or 72 hours have passed".
    pub vote_hours: i64,
    /// 322's "applicable penalties for not voting": those of rules in effect.
    /// The one the ruleset names, 324's "one-time penalty of 10 points", is
    /// void (a void rule imposes nothing), so 0. A moderator who rules
    /// otherwise sets it: charged once per turn to a player who missed a vote.
    pub non_voter_penalty: i64,
    /// 342: "While the game is in web mode". A mailing list is not the web
    /// board: false. true: votes too soon after the posting are ignored.
    pub web_mode: bool,
    /// 342: "within two minutes of its initial posting".
    pub web_mode_root_seconds: i64,
    /// false (docs/rulings.md): without a sacrifice 304's "between one and three"
    /// stands, and a sacrifice of lambda allows mu. true: a turn without a
    /// sacrifice is a sacrifice of 0 percent, which allows mu = 1 proposal.
    pub mu_without_sacrifice: bool,
    /// true: a vote may be changed until the reveal; only the last counts.
    pub votes_may_change: bool,
    /// 359 lets a player make "as many proposals as they wish" when contingency
    /// keeps the number that can pass within 304's; the bot reads at most this
    /// many in one post (a limit of the bot, not of the rules).
    pub max_hacks_per_post: usize,
    /// 342: "Meta-amendments may not be voted on within 12 seconds of their
    /// posting" (web mode only).
    pub web_mode_meta_seconds: i64,
    /// 440: "If there are more than two players in the game, nu is equal to
    /// zero, else nu is 3-psi": the Gnomes vote while the players number fewer
    /// than this, and a turn's proposals must then be posted one per posting.
    pub gnome_total: usize,
    /// 401: "A rule won't take effect until all of its meta-amendments are
    /// voted on". false (the letter, with 402): each hack's vote is counted
    /// when it is complete, and only the taking effect waits. true: the whole
    /// turn's count waits for every meta-amendment's vote.
    pub meta_amendments_hold_the_count: bool,
    /// 383, 410 to the letter: a shout names one of the listed grounds and is
    /// at a proposal (434: not a meta-amendment). false: any shout at any hack.
    pub unruleworthy_literal: bool,
    /// The rule each mechanic follows, under `[gnomic.rules]`.
    #[serde(default)]
    pub rules: bound::Rules,
    #[serde(default)]
    pub numbers: Numbers,
    /// 373's fees, under `[gnomic.fees]`.
    #[serde(default)]
    pub fees: judgment::Fees,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            first_ordinal: 301,
            vote_hours: 72,
            non_voter_penalty: 0,
            web_mode: false,
            web_mode_root_seconds: 120,
            mu_without_sacrifice: false,
            votes_may_change: true,
            max_hacks_per_post: 8,
            web_mode_meta_seconds: 12,
            gnome_total: 3,
            unruleworthy_literal: true,
            meta_amendments_hold_the_count: false,
            rules: bound::Rules::default(),
            numbers: Numbers::default(),
            fees: judgment::Fees::default(),
        }
    }
}

/// The game's live state: the scores, whose turn was last, the open turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// When a moderator started the current game; none before.
    pub started_at: Option<Timestamp>,
    /// Every player in the game with eir score, in the order they came in.
    pub scores: Vec<Score>,
    /// The name of the player whose turn came last: the next is the one after
    /// em in alphabetical order (325).
    pub last_mover: Option<String>,
    /// The turn whose votes are being taken; the first posted of them when
    /// turns overlap (432).
    pub open: Option<Turn>,
    /// 432: the turns posted while others were open, in the order posted.
    /// Invariant: empty while `open` is none.
    #[serde(default)]
    pub overlapping: Vec<Turn>,
    /// 432: the exception state, and the agreements to begin or end it.
    #[serde(default)]
    pub exception: Exception,
    /// Turns posted ever, over every game: turn N's votes are batch `gnomic:turn:N`.
    pub turns: u32,
    /// The last ordinal given to a hack (108).
    pub last_ordinal: u32,
    /// The last turn counted, for `status`.
    pub last_result: Option<TurnResult>,
    /// The game is won (112): no turn until a moderator starts a new game.
    pub winner: Option<Winner>,
    /// Judgment (212): the questions invoked and not yet completed.
    #[serde(default)]
    pub questions: Vec<Question>,
    /// Questions invoked ever: the next is numbered one more.
    #[serde(default)]
    pub questions_invoked: u32,
    /// 212: the players who consent to the next player beginning eir turn while
    /// a question is unsettled.
    #[serde(default)]
    pub consent: Vec<PlayerId>,
    /// 113: the players who forfeited the current game: out of the order, the
    /// votes and the penalties until a new game starts.
    #[serde(default)]
    pub forfeited: Vec<PlayerId>,
    /// 425: the players not seated because their name is mentioned in a rule in
    /// effect, with that name: told once per name.
    #[serde(default)]
    pub unseated: Vec<Unseated>,
    /// When the turn in the order of play began (the start, the last count in
    /// the order, a moderator's `next`): a player seated after it waits for
    /// the next turn (325: "taking one whole turn apiece").
    #[serde(default)]
    pub turn_began: Option<Timestamp>,
    /// 390: the sacrifices stated during a player's turn, before eir
    /// proposals (one per player; several only under 432); paid at once, each
    /// sets its turn's mu.
    #[serde(default)]
    pub stated_sacrifices: Vec<StatedSacrifice>,
    /// A moderator's correction of whose turn it is, until that turn is posted.
    #[serde(default)]
    pub next_mover: Option<PlayerId>,
}

/// 390: "A player may during his turn choose to lose nu points by stating".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatedSacrifice {
    pub player: PlayerId,
    pub sacrifice: Sacrifice,
}

/// 432's exception state ("Emergency break").
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Exception {
    /// Since when the state is in force; none outside it.
    pub since: Option<Timestamp>,
    /// Who has agreed to the next change of state (to begin it, or to end it).
    pub agreed: Vec<PlayerId>,
    /// The adopted changes registered during the state, in the order counted:
    /// performed when it ends.
    pub registered: Vec<RegisteredChange>,
}

impl Exception {
    pub fn active(&self) -> bool {
        self.since.is_some()
    }
}

/// 432: "all changes will be registered and performed with the ending of the
/// exception state".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RegisteredChange {
    pub turn: u32,
    /// The hack that takes effect: the adopted proposal, or the adopted
    /// meta-amendment of it (401).
    pub hack: Hack,
}

/// 425: a player kept out of the game by eir name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unseated {
    pub player: PlayerId,
    pub name: String,
    /// The first rule in effect that mentions the name.
    pub rule: u32,
}

/// One question put to Judgment (212, 373).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Question {
    pub number: u32,
    pub invoker: PlayerId,
    pub invoker_name: String,
    pub text: String,
    #[serde(default)]
    pub accused: Option<PlayerId>,
    #[serde(default)]
    pub accused_name: Option<String>,
    /// 212's "the one moving", whose turn the question arises in.
    pub mover_name: String,
    /// None when every player who could judge has been overruled.
    pub judge: Option<PlayerId>,
    pub judge_name: Option<String>,
    /// How many Judges were overruled on this question.
    #[serde(default)]
    pub overruled: usize,
    #[serde(default)]
    pub ruling: Option<Ruling>,
    /// Who has voted to overrule the present ruling.
    #[serde(default)]
    pub overrule_votes: Vec<PlayerId>,
    pub invoked_at: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ruling {
    pub agreed: bool,
    pub text: String,
    pub at: Timestamp,
    /// 373's fees that followed it, reversed if it is overruled.
    pub changes: Vec<ScoreChange>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Score {
    pub player: PlayerId,
    pub name: String,
    pub points: i64,
    /// When a newcomer was seated (325); none for who was there at the start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<Timestamp>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Winner {
    pub player: PlayerId,
    pub name: String,
    pub points: i64,
    pub n: i64,
}

/// One turn: its hacks, the proponent's stated votes, who has voted (never how).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    pub number: u32,
    pub proponent: PlayerId,
    pub proponent_name: String,
    pub posted_at: Timestamp,
    /// 72 hours after the posting (`vote_hours`).
    pub deadline: Timestamp,
    pub proposals: Vec<Proposal>,
    pub sacrifice: Option<Sacrifice>,
    /// The sealed batches of its meta-amendments, each with its own 72 hours.
    #[serde(default)]
    pub meta_batches: Vec<String>,
    /// Who has voted on which hack: public, unlike the votes themselves.
    #[serde(default)]
    pub voted: Vec<Voted>,
    /// Set by the vote that completed the votes: the count is due then.
    #[serde(default)]
    pub all_voted_at: Option<Timestamp>,
    /// 432: posted during the exception state, out of the order of play: its
    /// count does not move the order on.
    #[serde(default)]
    pub exceptional: bool,
    /// 402 per hack: "After all players have voted or 72 hours have passed,
    /// the proponent shall post the votes [...] The votes will then be
    /// counted": each sealed batch is counted when its own vote is complete,
    /// and only the taking effect waits for the meta-amendments (401). False
    /// for turns posted under the other reading (the whole turn's count waits),
    /// and for every turn logged before it was a choice.
    #[serde(default)]
    pub counts_each_vote: bool,
    /// The sealed batches whose every voter had voted, and when.
    #[serde(default)]
    pub batches_all_voted: Vec<(String, Timestamp)>,
    /// The sealed batches counted before the turn's count, with their votes as
    /// revealed.
    #[serde(default)]
    pub counted: Vec<CountedBatch>,
    /// Its count waits for a moderator's ruling on a rule the count follows.
    #[serde(default)]
    pub held: bool,
}

/// A sealed batch whose vote was complete before the rest of its turn's: its
/// votes are public from then on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CountedBatch {
    pub batch: String,
    pub at: Timestamp,
    pub votes: Vec<RevealedVote>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RevealedVote {
    pub player: PlayerId,
    pub hack: u32,
    pub choice: Choice,
}

impl Turn {
    /// 401: "A rule won't take effect until all of its meta-amendments are voted
    /// on": the votes run until the latest of the turn's and its
    /// meta-amendments' own 72 hours.
    pub fn closes_at(&self) -> Timestamp {
        self.proposals
            .iter()
            .filter_map(|p| p.deadline)
            .fold(self.deadline, Timestamp::max)
    }

    pub fn proposal(&self, number: u32) -> Option<&Proposal> {
        self.proposals.iter().find(|p| p.hack.number == number)
    }

    /// Who proposed hack `number`: the turn's mover, or the meta-amendment's author.
    pub fn proponent_of(&self, number: u32) -> Option<(PlayerId, &str)> {
        let proposal = self.proposal(number)?;
        Some(match (&proposal.proponent, &proposal.proponent_name) {
            (Some(id), Some(name)) => (*id, name.as_str()),
            _ => (self.proponent, self.proponent_name.as_str()),
        })
    }

    /// When its votes are counted: when all have voted, else when they close.
    /// Under `counts_each_vote`, when the first of its batches not yet counted
    /// is complete (that batch's count, or the turn's if it is the last).
    pub fn count_due(&self) -> Timestamp {
        if self.counts_each_vote {
            let due = self
                .pending_batches()
                .into_iter()
                .map(|batch| self.batch_due(&batch))
                .min();
            if let Some(due) = due {
                return due;
            }
        }
        let closes = self.closes_at();
        self.all_voted_at.map_or(closes, |at| at.min(closes))
    }

    /// The sealed batches with a hack in the turn whose votes are not counted.
    pub fn pending_batches(&self) -> Vec<String> {
        let mut pending: Vec<String> = Vec::new();
        for proposal in &self.proposals {
            let batch = self.batch_of(proposal.hack.number);
            if !self.is_counted(&batch) && !pending.contains(&batch) {
                pending.push(batch);
            }
        }
        pending
    }

    /// The batch's votes were counted before the turn's count.
    pub fn is_counted(&self, batch: &str) -> bool {
        self.counted.iter().any(|c| c.batch == batch)
    }

    /// Hack `number`'s vote is complete and counted (402).
    pub fn hack_counted(&self, number: u32) -> bool {
        self.is_counted(&self.batch_of(number))
    }

    /// When batch `batch`'s vote is complete: all its voters voted, or its
    /// hacks' 72 hours are over.
    pub fn batch_due(&self, batch: &str) -> Timestamp {
        let closes = self
            .proposals
            .iter()
            .filter(|p| self.batch_of(p.hack.number) == batch)
            .map(|p| p.deadline.unwrap_or(self.deadline))
            .max()
            .unwrap_or(self.deadline);
        self.batches_all_voted
            .iter()
            .find(|(b, _)| b == batch)
            .map_or(closes, |(_, at)| (*at).min(closes))
    }

    /// The sealed batch hack `number`'s votes go into.
    pub fn batch_of(&self, number: u32) -> String {
        self.proposal(number)
            .and_then(|p| p.batch.clone())
            .unwrap_or_else(|| batch_id(self.number))
    }

    /// Every sealed batch the turn opened, withdrawn hacks' included.
    pub fn batches(&self) -> Vec<String> {
        let mut all = vec![batch_id(self.number)];
        all.extend(self.meta_batches.iter().cloned());
        all
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Proposal {
    /// Kept in the log as written, and read again: `hack::Replacement`'s own
    /// form cannot be written as JSON.
    pub hack: Hack,
    /// 402: "implicitly assumed to vote favourable [...] unless explicitly stated".
    pub proponent_vote: Choice,
    /// 359: takes effect only if another hack of the turn is adopted (or rejected).
    pub condition: Option<Condition>,
    /// 394: the Greek letters used numerically, as the proponent confirmed.
    pub greek: Option<usize>,
    /// 109: it transmutes an immutable rule, so only a unanimous vote adopts it.
    pub unanimity: bool,
    /// 401: the hack this meta-amendment amends; none for a proposal (434).
    #[serde(default)]
    pub parent: Option<u32>,
    /// A meta-amendment's author; none for the turn's proposals (the mover's).
    #[serde(default)]
    pub proponent: Option<PlayerId>,
    #[serde(default)]
    pub proponent_name: Option<String>,
    /// A meta-amendment's posting (440's time-stamp, 342's twelve seconds);
    /// none for a proposal, posted with the turn.
    #[serde(default)]
    pub posted_at: Option<Timestamp>,
    /// A meta-amendment's own 72 hours (402).
    #[serde(default)]
    pub deadline: Option<Timestamp>,
    /// A meta-amendment's sealed batch.
    #[serde(default)]
    pub batch: Option<String>,
    /// 401: the proponent changed the hack then; votes sealed before are invalid.
    #[serde(default)]
    pub changed_at: Option<Timestamp>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Condition {
    pub hack: u32,
    pub adopted: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sacrifice {
    pub lambda: i64,
    pub nu: i64,
    pub mu: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Voted {
    pub hack: u32,
    pub player: PlayerId,
    pub name: String,
}

/// What the count of one turn decided.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnResult {
    pub turn: u32,
    pub proponent_name: String,
    pub outcomes: Vec<HackOutcome>,
    pub changes: Vec<ScoreChange>,
    /// 310/431: the threshold after the turn.
    pub n: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HackOutcome {
    pub hack: u32,
    pub title: String,
    pub tally: Tally,
    /// Every vote counted, by name (the proponent's, each voter's last, and
    /// "abstain" for who did not vote).
    pub votes: Vec<CountedVote>,
    /// Adopted by the vote (322, 392; 109's unanimity where it applies) and its
    /// condition met (359).
    pub adopted: bool,
    /// 359: false when the condition on it failed (no effect, no points).
    pub condition_met: bool,
    /// Why the adopted change could not be applied to the ruleset, if it could not.
    pub not_applied: Option<String>,
    /// 401: the hack this meta-amendment amends.
    #[serde(default)]
    pub parent: Option<u32>,
    /// 440: the Gnomes' votes, counted in the tally.
    #[serde(default)]
    pub gnomes: Vec<scoring::GnomeVote>,
    /// 401: an adopted meta-amendment took effect instead of this adopted hack.
    #[serde(default)]
    pub replaced_by: Option<u32>,
    /// 401: this meta-amendment took effect instead of the proposal it amends.
    #[serde(default)]
    pub instead_of: Option<u32>,
    /// 432: counted during the exception state, the change is registered and
    /// performed when the state ends.
    #[serde(default)]
    pub registered: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CountedVote {
    pub player: PlayerId,
    pub name: String,
    pub choice: Choice,
    /// No vote came: counted as an abstention (322).
    pub missing: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreChange {
    pub player: PlayerId,
    pub name: String,
    pub points: i64,
    pub reason: Reason,
}

/// Why a score changed, by rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum Reason {
    /// 304, an adopted proposal.
    Adopted { hack: u32 },
    /// 304, a proposal that was not adopted: "each proposal" earns the
    /// fraction of favourable votes it received.
    Favourable { hack: u32 },
    /// 421.
    Failed { hack: u32 },
    /// 372.
    Vowels { hack: u32 },
    /// 394.
    Greek { hack: u32 },
    /// 204.
    AgainstWinner { hack: u32 },
    /// 322.
    NoVote,
    /// 401: half the points of the amended hack's proponent.
    MetaShare { hack: u32 },
    /// 421's second part.
    FailedMeta { hack: u32 },
    /// 373: invoking Judgment.
    Invoked { question: u32 },
    /// 373: the Judge agreed with the invoker.
    Upheld { question: u32 },
    /// 373: the accused, when the Judge agreed.
    Accused { question: u32 },
    /// 212: the ruling was overruled, and its fees with it.
    Overruled { question: u32 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Choice {
    For,
    Against,
    Abstain,
}

impl Choice {
    pub fn as_str(self) -> &'static str {
        match self {
            Choice::For => "for",
            Choice::Against => "against",
            Choice::Abstain => "abstain",
        }
    }

    pub fn from_word(word: &str) -> Option<Choice> {
        match word.to_lowercase().as_str() {
            "for" | "favour" | "favor" | "yes" | "aye" => Some(Choice::For),
            "against" | "no" | "nay" => Some(Choice::Against),
            "abstain" | "abstains" | "abstention" => Some(Choice::Abstain),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// A new game: every player at zero (325), no turn yet.
    Started {
        by: Address,
        players: Vec<Score>,
    },
    /// A player came into a game in progress with 325's starting score.
    Joined {
        player: PlayerId,
        name: String,
        points: i64,
    },
    /// A turn's post; its sacrifice (390) is paid with it.
    TurnPosted {
        turn: Turn,
    },
    /// A player voted (or voted again) on a hack: who, never how.
    Voted {
        turn: u32,
        hack: u32,
        player: PlayerId,
        name: String,
    },
    AllVoted {
        turn: u32,
    },
    /// 402: every voter has voted on every hack of sealed batch `batch`.
    BatchAllVoted {
        turn: u32,
        batch: String,
    },
    /// 402: batch `batch`'s vote was complete before the rest of the turn's:
    /// its votes revealed and counted, its hacks' taking effect left to the
    /// turn's count (401).
    BatchCounted {
        turn: u32,
        counted: CountedBatch,
    },
    GreekConfirmed {
        turn: u32,
        hack: u32,
        count: usize,
    },
    /// The count: the outcomes, every score change, n, and the winner if any.
    Counted {
        result: TurnResult,
        winner: Option<Winner>,
    },
    /// 401: a meta-amendment posted while the turn's hacks are voted on.
    MetaPosted {
        turn: u32,
        proposal: Proposal,
    },
    /// 401: the proponent changed eir hack; the votes on it before are invalid.
    HackChanged {
        turn: u32,
        hack: Hack,
        #[serde(default)]
        proponent_vote: Option<Choice>,
        /// 109, for the hack as changed.
        #[serde(default)]
        unanimity: bool,
    },
    /// 383, 410: a shout of UNRULEWORTHY!!! repealed a hack (and the
    /// meta-amendments of it) at once.
    Shouted {
        turn: u32,
        hack: u32,
        withdrawn: Vec<u32>,
        player: PlayerId,
        name: String,
        reason: Option<String>,
        /// The ground of 383 or 410 the reason names.
        #[serde(default)]
        ground: Option<String>,
    },
    /// 212, 373: Judgment invoked, its fee charged at once.
    JudgmentInvoked {
        question: Question,
        changes: Vec<ScoreChange>,
    },
    /// 212: the Judge's ruling, and 373's fees.
    Ruled {
        question: u32,
        ruling: Ruling,
    },
    OverruleVoted {
        question: u32,
        player: PlayerId,
    },
    /// 212: overruled unanimously; the fees of the ruling reversed, the question
    /// passed to the Judge's predecessor.
    Overruled {
        question: u32,
        changes: Vec<ScoreChange>,
        judge: Option<PlayerId>,
        judge_name: Option<String>,
    },
    /// 212: consent to the next player beginning eir turn.
    Consented {
        player: PlayerId,
    },
    /// 425: the player's name is mentioned in rule `rule`: not seated until
    /// ey renames.
    NameRefused {
        player: PlayerId,
        name: String,
        rule: u32,
    },
    /// 432: a player agreed to begin (`end` false) or to end the exception state.
    ExceptionAgreed {
        player: PlayerId,
        name: String,
        end: bool,
    },
    /// 432: every active player agreed: the exception state is in force.
    ExceptionBegan,
    /// 432: an adopted change counted during the exception state, registered.
    ChangeRegistered {
        change: RegisteredChange,
    },
    /// 432: every active player agreed to end it; the registered changes were
    /// performed in the same step, in order.
    ExceptionEnded,
    /// 113: the player forfeited the game (not the nomic).
    Forfeited {
        player: PlayerId,
        name: String,
        points: i64,
    },
    /// 327: the Judgment completed; its ruling was enacted as rule `rule`.
    JudgmentCompleted {
        question: u32,
        rule: Option<u32>,
    },
    /// 390: a sacrifice stated on its own during the player's turn; nu is
    /// paid now and mu allowed for the turn's post.
    Sacrificed {
        player: PlayerId,
        name: String,
        sacrifice: Sacrifice,
    },
    /// A moderator set a player's score, with the reason.
    ScoreSet {
        player: PlayerId,
        name: String,
        points: i64,
        was: i64,
        by: Address,
        reason: String,
    },
    /// A moderator set whose turn it is, with the reason.
    MoverSet {
        player: PlayerId,
        name: String,
        by: Address,
        reason: String,
    },
    /// The count of turn `turn` waits for a ruling on these rules.
    CountHeld {
        turn: u32,
        rules: Vec<u32>,
    },
    /// The rulings are made: the count is due again.
    CountResumed {
        turn: u32,
    },
    /// A moderator set the next ordinal (108), with the reason.
    OrdinalSet {
        next: u32,
        by: Address,
        reason: String,
    },
}

/// A turn post as read (`parse`): the hacks and the lines that go with them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnPost {
    /// Each hack's lines read, or why not (with its header line).
    pub hacks: Vec<Result<PostedHack, (String, hack::HackError)>>,
    /// 390: "I sacrifice lambda percent of my score".
    pub sacrifice: Option<i64>,
    /// 402: the proponent says otherwise than "for".
    pub own_votes: Vec<(u32, Choice)>,
    /// 394: `greek N COUNT`.
    pub greek: Vec<(u32, usize)>,
    /// Lines of the post that are none of the above.
    pub stray: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct PostedHack {
    pub hack: Hack,
    pub condition: Option<Condition>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// A moderator's: a new game.
    Start,
    Turn(Box<TurnPost>),
    /// A secret vote, mailed to the bot alone.
    Vote {
        hack: u32,
        choice: Choice,
    },
    /// 394: the proponent confirms the Greek letters used as numbers.
    Greek {
        hack: u32,
        count: usize,
    },
    Status,
    /// 401: `meta N` and a hack amending hack N.
    Meta {
        parent: u32,
        post: Box<TurnPost>,
    },
    /// 401: `change N` and the hack's new text, by its proponent.
    Change {
        hack: u32,
        post: Box<TurnPost>,
    },
    /// 383, 410: `UNRULEWORTHY!!! N [reason]`.
    Unruleworthy {
        hack: u32,
        reason: Option<String>,
    },
    /// 212: `judgment QUESTION [accusing NAME]`.
    Judgment {
        question: String,
        accusing: Option<String>,
    },
    /// 212: the Judge's `ruling agree|disagree: TEXT`.
    Ruling {
        agreed: bool,
        text: String,
    },
    /// 212: `overrule`, by a player other than the Judge.
    Overrule,
    /// 212: `consent` to the next player beginning eir turn.
    Consent,
    /// 113: `forfeit` the game.
    Forfeit,
    /// 432: `exception begin` / `exception end`, one player's agreement.
    Exception {
        end: bool,
    },
    /// 390: `sacrifice LAMBDA`, stated on its own during one's turn.
    Sacrifice {
        lambda: i64,
    },
    /// A moderator's corrections, each with its reason: `score NAME POINTS`,
    /// `next NAME`, `ordinal N`.
    Correct {
        correction: Correction,
        reason: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Correction {
    Score { name: String, points: i64 },
    Next { name: String },
    Ordinal { next: u32 },
}

/// The sealed batch of turn `number`'s votes.
pub fn batch_id(number: u32) -> String {
    format!("{TAG}:turn:{number}")
}

impl State {
    pub fn score(&self, player: PlayerId) -> Option<&Score> {
        self.scores.iter().find(|s| s.player == player)
    }

    /// In the current game: seated, and not forfeited (113).
    pub fn plays(&self, player: PlayerId) -> bool {
        self.score(player).is_some() && !self.forfeited.contains(&player)
    }

    fn score_mut(&mut self, player: PlayerId) -> Option<&mut Score> {
        self.scores.iter_mut().find(|s| s.player == player)
    }

    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        match event {
            Event::Started { players, .. } => {
                self.started_at = Some(at);
                self.scores = players.clone();
                self.last_mover = None;
                self.open = None;
                self.overlapping.clear();
                self.exception = Exception::default();
                self.winner = None;
                self.last_result = None;
                self.questions.clear();
                self.consent.clear();
                self.forfeited.clear();
                self.unseated.clear();
                self.turn_began = Some(at);
                self.stated_sacrifices.clear();
                self.next_mover = None;
            }
            Event::Joined {
                player,
                name,
                points,
            } => {
                self.unseated.retain(|u| u.player != *player);
                if self.score(*player).is_none() {
                    self.scores.push(Score {
                        player: *player,
                        name: name.clone(),
                        points: *points,
                        since: Some(at),
                    });
                }
            }
            Event::TurnPosted { turn } => {
                self.turns = self.turns.max(turn.number);
                if let Some(last) = turn.proposals.iter().map(|p| p.hack.number).max() {
                    self.last_ordinal = self.last_ordinal.max(last);
                }
                // A sacrifice stated on its own was paid then (390).
                let stated = self.stated_sacrifices.len();
                self.stated_sacrifices
                    .retain(|s| s.player != turn.proponent);
                let paid = self.stated_sacrifices.len() < stated;
                if !turn.exceptional {
                    self.next_mover = None;
                }
                if let (false, Some(sacrifice), Some(score)) =
                    (paid, turn.sacrifice, self.score_mut(turn.proponent))
                {
                    score.points -= sacrifice.nu;
                }
                if self.open.is_none() {
                    self.open = Some(turn.clone());
                } else {
                    self.overlapping.push(turn.clone());
                }
            }
            Event::Voted {
                turn,
                hack,
                player,
                name,
            } => {
                if let Some(open) = self.turn_mut(*turn)
                    && !open
                        .voted
                        .iter()
                        .any(|v| v.hack == *hack && v.player == *player)
                {
                    open.voted.push(Voted {
                        hack: *hack,
                        player: *player,
                        name: name.clone(),
                    });
                }
            }
            Event::AllVoted { turn } => {
                if let Some(open) = self.turn_mut(*turn) {
                    open.all_voted_at.get_or_insert(at);
                }
            }
            Event::BatchAllVoted { turn, batch } => {
                if let Some(open) = self.turn_mut(*turn)
                    && !open.batches_all_voted.iter().any(|(b, _)| b == batch)
                {
                    open.batches_all_voted.push((batch.clone(), at));
                }
            }
            Event::BatchCounted { turn, counted } => {
                if let Some(open) = self.turn_mut(*turn)
                    && !open.is_counted(&counted.batch)
                {
                    open.counted.push(counted.clone());
                }
            }
            Event::GreekConfirmed { turn, hack, count } => {
                if let Some(open) = self.turn_mut(*turn)
                    && let Some(proposal) =
                        open.proposals.iter_mut().find(|p| p.hack.number == *hack)
                {
                    proposal.greek = Some(*count);
                }
            }
            Event::Counted { result, winner } => {
                for change in &result.changes {
                    if let Some(score) = self.score_mut(change.player) {
                        score.points += change.points;
                    }
                }
                if let Some(counted) = self.take_turn(result.turn)
                    && !counted.exceptional
                {
                    self.last_mover = Some(counted.proponent_name);
                    self.turn_began = Some(at);
                }
                self.last_result = Some(result.clone());
                self.winner = winner.clone();
            }
            Event::MetaPosted { turn, proposal } => {
                self.last_ordinal = self.last_ordinal.max(proposal.hack.number);
                if let Some(open) = self.turn_mut(*turn) {
                    if let Some(batch) = &proposal.batch {
                        open.meta_batches.push(batch.clone());
                    }
                    open.proposals.push(proposal.clone());
                    open.all_voted_at = None;
                }
            }
            Event::HackChanged {
                turn,
                hack,
                proponent_vote,
                unanimity,
            } => {
                if let Some(open) = self.turn_mut(*turn) {
                    if let Some(proposal) = open
                        .proposals
                        .iter_mut()
                        .find(|p| p.hack.number == hack.number)
                    {
                        proposal.hack = hack.clone();
                        proposal.changed_at = Some(at);
                        proposal.unanimity = *unanimity;
                        if let Some(choice) = proponent_vote {
                            proposal.proponent_vote = *choice;
                        }
                    }
                    open.voted.retain(|v| v.hack != hack.number);
                    open.all_voted_at = None;
                    let batch = open.batch_of(hack.number);
                    open.batches_all_voted.retain(|(b, _)| *b != batch);
                }
            }
            Event::Shouted {
                turn, withdrawn, ..
            } => {
                if let Some(open) = self.turn_mut(*turn) {
                    open.proposals
                        .retain(|p| !withdrawn.contains(&p.hack.number));
                    open.voted.retain(|v| !withdrawn.contains(&v.hack));
                }
            }
            Event::JudgmentInvoked { question, changes } => {
                self.questions_invoked = self.questions_invoked.max(question.number);
                self.questions.push(question.clone());
                self.apply_changes(changes);
            }
            Event::Ruled { question, ruling } => {
                self.apply_changes(&ruling.changes);
                if let Some(q) = self.questions.iter_mut().find(|q| q.number == *question) {
                    q.ruling = Some(ruling.clone());
                    q.overrule_votes.clear();
                }
            }
            Event::OverruleVoted { question, player } => {
                if let Some(q) = self.questions.iter_mut().find(|q| q.number == *question)
                    && !q.overrule_votes.contains(player)
                {
                    q.overrule_votes.push(*player);
                }
            }
            Event::Overruled {
                question,
                changes,
                judge,
                judge_name,
            } => {
                self.apply_changes(changes);
                if let Some(q) = self.questions.iter_mut().find(|q| q.number == *question) {
                    q.ruling = None;
                    q.overrule_votes.clear();
                    q.overruled += 1;
                    q.judge = *judge;
                    q.judge_name = judge_name.clone();
                }
            }
            Event::Consented { player } => {
                if !self.consent.contains(player) {
                    self.consent.push(*player);
                }
            }
            Event::NameRefused { player, name, rule } => {
                self.unseated.retain(|u| u.player != *player);
                self.unseated.push(Unseated {
                    player: *player,
                    name: name.clone(),
                    rule: *rule,
                });
            }
            Event::ExceptionAgreed { player, .. } => {
                if !self.exception.agreed.contains(player) {
                    self.exception.agreed.push(*player);
                }
            }
            Event::ExceptionBegan => {
                self.exception.since = Some(at);
                self.exception.agreed.clear();
            }
            Event::ChangeRegistered { change } => {
                self.exception.registered.push(change.clone());
            }
            Event::ExceptionEnded => {
                self.exception = Exception::default();
                self.turn_began = Some(at);
            }
            Event::Forfeited { player, .. } => {
                if !self.forfeited.contains(player) {
                    self.forfeited.push(*player);
                }
                self.stated_sacrifices.retain(|s| s.player != *player);
            }
            Event::JudgmentCompleted { question, .. } => {
                self.questions.retain(|q| q.number != *question);
                if self.questions.is_empty() {
                    self.consent.clear();
                }
            }
            Event::Sacrificed {
                player, sacrifice, ..
            } => {
                if let Some(score) = self.score_mut(*player) {
                    score.points -= sacrifice.nu;
                }
                self.stated_sacrifices.retain(|s| s.player != *player);
                self.stated_sacrifices.push(StatedSacrifice {
                    player: *player,
                    sacrifice: *sacrifice,
                });
            }
            Event::ScoreSet { player, points, .. } => {
                if let Some(score) = self.score_mut(*player) {
                    score.points = *points;
                }
            }
            Event::MoverSet { player, .. } => {
                self.next_mover = Some(*player);
                self.turn_began = Some(at);
            }
            Event::CountHeld { turn, .. } => {
                if let Some(open) = self.turn_mut(*turn) {
                    open.held = true;
                }
            }
            Event::CountResumed { turn } => {
                if let Some(open) = self.turn_mut(*turn) {
                    open.held = false;
                }
            }
            Event::OrdinalSet { next, .. } => {
                self.last_ordinal = next.saturating_sub(1);
            }
        }
    }

    fn apply_changes(&mut self, changes: &[ScoreChange]) {
        for change in changes {
            if let Some(score) = self.score_mut(change.player) {
                score.points += change.points;
            }
        }
    }

    /// When the next count is due: the earliest of the open turns'.
    pub fn count_due(&self) -> Option<Timestamp> {
        self.open_turns()
            .filter(|t| !t.held)
            .map(Turn::count_due)
            .min()
    }

    /// Every turn being voted on, in the order posted (several only under 432).
    pub fn open_turns(&self) -> impl Iterator<Item = &Turn> {
        self.open.iter().chain(self.overlapping.iter())
    }

    /// The open turn hack `number` is in, if any.
    pub fn turn_of(&self, number: u32) -> Option<&Turn> {
        self.open_turns().find(|t| t.proposal(number).is_some())
    }

    fn turn_mut(&mut self, number: u32) -> Option<&mut Turn> {
        self.open
            .iter_mut()
            .chain(self.overlapping.iter_mut())
            .find(|t| t.number == number)
    }

    /// Takes turn `number` out of the open turns, the next posted taking the
    /// first place if it was there.
    fn take_turn(&mut self, number: u32) -> Option<Turn> {
        if self.open.as_ref().is_some_and(|t| t.number == number) {
            let taken = self.open.take();
            if !self.overlapping.is_empty() {
                self.open = Some(self.overlapping.remove(0));
            }
            return taken;
        }
        let index = self.overlapping.iter().position(|t| t.number == number)?;
        Some(self.overlapping.remove(index))
    }
}

impl Game for Gnomic {
    const NAME: &'static str = "gnomic";
    const TAGS: &'static [&'static str] = &[TAG];
    type State = State;
    type Event = Event;
    type Command = Command;
    type Params = Params;

    /// A rule's text keeps its paragraphs.
    const KEEPS_BLANK_LINES: bool = true;

    /// The Gnomic score, told apart from the nomic's points by its name.
    fn scores(state: &State, _view: &View<'_>) -> Option<Scores> {
        Some(Scores {
            name: "Gnomic score".to_owned(),
            of: state
                .scores
                .iter()
                .map(|score| (score.player, score.points.to_string()))
                .collect(),
        })
    }

    /// The game, while it runs: the turn being voted on (who voted stays out,
    /// let alone how), or whose turn it is to post.
    fn running(state: &State, view: &View<'_>) -> Vec<Running> {
        if state.started_at.is_none() || state.winner.is_some() {
            return Vec::new();
        }
        let players = rules::order(state, view)
            .into_iter()
            .map(|score| score.name)
            .collect();
        let (what, turn) = match &state.open {
            Some(open) => (
                format!(
                    "turn {} by {} is being voted on",
                    open.number, open.proponent_name
                ),
                None,
            ),
            None => (
                "waiting for the next turn".to_owned(),
                rules::mover(state, view).map(|score| score.name),
            ),
        };
        vec![Running {
            tag: TAG.to_owned(),
            what,
            players,
            turn,
            deadline: state.open.as_ref().map(|open| open.deadline),
        }]
    }

    fn parse(line: &str, _tag: &str) -> Result<Command, NotUnderstood> {
        parse::parse(line)
    }

    /// A turn post (`turn`, or a first `hack` line) takes every line after it.
    fn parse_message(
        lines: &[String],
        _tag: &str,
    ) -> Vec<(String, Result<Command, NotUnderstood>)> {
        parse::parse_message(lines)
    }

    fn begins(command: &Command) -> bool {
        matches!(command, Command::Start)
    }

    fn apply(tx: &mut Tx<'_, Gnomic>, command: Command, ctx: &Ctx) -> Result<Sentence, Refusal> {
        rules::apply(tx, command, ctx)
    }

    fn apply_event(state: &mut State, event: &Event, at: Timestamp) {
        state.apply_event(event, at);
    }

    fn next_deadline(state: &State) -> Option<Timestamp> {
        state.count_due()
    }

    fn on_deadline(tx: &mut Tx<'_, Gnomic>, _deadline: &Deadline, _tick: &Tick) {
        rules::count(tx);
    }

    /// A voter who leaves may be the last one the count waited for. Who goes on vacation or to Gaol is no longer an active player whose
    /// agreement 432 waits for.
    fn standing_changed(tx: &mut Tx<'_, Gnomic>, change: &Standing) {
        if let Standing::Left(_) = change {
            rules::check_all_voted(tx);
        }
        // 325: a newcomer is in the game from the instant ey joins.
        if let Standing::Joined(_) = change {
            rules::admit_newcomers(tx);
        }
        exception::check(tx);
    }

    /// A vote is secret until the count, however it is sent.
    fn bindings(params: &Params) -> crate::engine::ruleset::bindings::Declared {
        bound::declared(params)
    }

    fn bindings_changed(tx: &mut Tx<'_, Gnomic>, _rules: &[u32]) {
        rules::hold_or_resume(tx);
    }

    fn secrecy(command: &Command, _ctx: &Ctx) -> Secrecy {
        match command {
            Command::Vote { .. } => Secrecy::Secret {
                shown_as: "a secret vote on a Gnomic hack (revealed with the others when the votes are counted)",
            },
            _ => Secrecy::Public,
        }
    }

    fn sample(script: &mut dyn crate::engine::game::Script) {
        sample::sample(script);
    }
}
