//! `[gnomic]`: the Gnomic ruleset (version 73) refereed by mail: turns in
//! alphabetical order (325), a turn's hacks posted at once (304, 423), secret
//! votes mailed to the bot and sealed (402, 342), the count when all have voted
//! or the 72 hours are over (322, 392, 109, 359), the change applied to the
//! ruleset (205, 107, 108) and the score update (304, 421, 372, 394, 390, 204,
//! 430, 310/431, 112).
//!
//! The pure decisions come first, each clause tested on its own: `scoring` (the
//! arithmetic), `hack` (the form of a hack and what adopting it does to the
//! ruleset), `judgment` (the Judge, the fees, which meta-amendment takes effect;
//! not yet in the flow). `parse` reads the mail, `rules` carries out the
//! commands and the count, `report` gives the announcements their values.
//! Built through the game seam alone; pure, like the engine: the time, the
//! sender and the entropy come in through `Ctx` and the transaction.
//!
//! Identifiers: turn N seals its votes into batch `gnomic:turn:N`; the game keeps
//! its one deadline itself (`next_deadline`: the open turn's count).

pub mod hack;
pub mod judgment;
mod parse;
mod report;
mod rules;
mod sample;
pub mod scoring;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};

use crate::engine::calendar::Deadline;
use crate::engine::game::{Game, Secrecy, Standing, Tick, Tx};
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
    /// 322's "applicable penalties for not voting": the 10 points of 315/324
    /// (docs/rulings.md). Charged once per turn to a player who missed a vote.
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
    #[serde(default)]
    pub numbers: Numbers,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            first_ordinal: 301,
            vote_hours: 72,
            non_voter_penalty: 10,
            web_mode: false,
            web_mode_root_seconds: 120,
            mu_without_sacrifice: false,
            votes_may_change: true,
            max_hacks_per_post: 8,
            numbers: Numbers::default(),
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
    /// The turn whose votes are being taken.
    pub open: Option<Turn>,
    /// Turns posted ever, over every game: turn N's votes are batch `gnomic:turn:N`.
    pub turns: u32,
    /// The last ordinal given to a hack (108).
    pub last_ordinal: u32,
    /// The last turn counted, for `status`.
    pub last_result: Option<TurnResult>,
    /// The game is won (112): no turn until a moderator starts a new game.
    pub winner: Option<Winner>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Score {
    pub player: PlayerId,
    pub name: String,
    pub points: i64,
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
    /// Who has voted on which hack: public, unlike the votes themselves.
    #[serde(default)]
    pub voted: Vec<Voted>,
    /// Set by the vote that completed the votes: the count is due then.
    #[serde(default)]
    pub all_voted_at: Option<Timestamp>,
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
    /// 304.
    Adopted { hack: u32 },
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
}

/// The sealed batch of turn `number`'s votes.
pub fn batch_id(number: u32) -> String {
    format!("{TAG}:turn:{number}")
}

impl State {
    pub fn score(&self, player: PlayerId) -> Option<&Score> {
        self.scores.iter().find(|s| s.player == player)
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
                self.winner = None;
                self.last_result = None;
            }
            Event::Joined {
                player,
                name,
                points,
            } => {
                if self.score(*player).is_none() {
                    self.scores.push(Score {
                        player: *player,
                        name: name.clone(),
                        points: *points,
                    });
                }
            }
            Event::TurnPosted { turn } => {
                self.turns = self.turns.max(turn.number);
                if let Some(last) = turn.proposals.iter().map(|p| p.hack.number).max() {
                    self.last_ordinal = self.last_ordinal.max(last);
                }
                if let (Some(sacrifice), Some(score)) =
                    (turn.sacrifice, self.score_mut(turn.proponent))
                {
                    score.points -= sacrifice.nu;
                }
                self.open = Some(turn.clone());
            }
            Event::Voted {
                turn,
                hack,
                player,
                name,
            } => {
                if let Some(open) = self.open.as_mut().filter(|t| t.number == *turn)
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
                if let Some(open) = self.open.as_mut().filter(|t| t.number == *turn) {
                    open.all_voted_at.get_or_insert(at);
                }
            }
            Event::GreekConfirmed { turn, hack, count } => {
                if let Some(open) = self.open.as_mut().filter(|t| t.number == *turn)
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
                if let Some(open) = self.open.take() {
                    self.last_mover = Some(open.proponent_name);
                }
                self.last_result = Some(result.clone());
                self.winner = winner.clone();
            }
        }
    }

    /// When the open turn's votes are counted: when all have voted, else at its deadline.
    pub fn count_due(&self) -> Option<Timestamp> {
        self.open
            .as_ref()
            .map(|t| t.all_voted_at.map_or(t.deadline, |at| at.min(t.deadline)))
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

    /// A voter who leaves may be the last one the count waited for.
    fn standing_changed(tx: &mut Tx<'_, Gnomic>, change: &Standing) {
        if let Standing::Left(_) = change {
            rules::check_all_voted(tx);
        }
    }

    /// A vote is secret until the count, however it is sent.
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
