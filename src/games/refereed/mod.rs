//! `[contest]`: a Contest of the Games & Contests suite (rule 1250) that the
//! bot does not referee itself, played by mail under a human referee (issue
//! 26, item 8), and Party Chess (rule 1230) among them, whose board the bot
//! keeps (item 9).
//!
//! The referee the suite names (or a moderator, for a Contest with none)
//! starts a game with its players in turn order; each player mails eir moves
//! under `[contest N]`; the bot records each and echoes it to the list, or,
//! for a Contest with private moves, keeps it sealed (a commitment on the
//! list, the move to the referee alone) until the referee publishes it. The
//! bot keeps the turn and the pace the referee sets (the shared schedule),
//! takes the result and the points from the referee (`scores`), tells a Duel
//! its winner through the schedule as the Duel expects, and announces every
//! correction. It judges no move of the Contest's own rules: only what is
//! impossible (out of turn, not a player, after the end, off the board).
//!
//! The game's section of bot.toml is the suite itself: `[[contests]]`.

pub mod board;
pub mod bound;
mod parse;
mod picture;
mod rules;
mod sample;

use serde::{Deserialize, Serialize};

use crate::engine::calendar::Deadline;
use crate::engine::contests::Contest;
use crate::engine::game::{Game, Running, Scores, Secrecy, Tick, Tx, View};
use crate::engine::players::PlayerId;
use crate::engine::{Ctx, NotUnderstood, Refusal, Sentence, Timestamp};

use board::{Act, Board, Piece, Square};

pub const TAG: &str = "contest";

/// The Contests played by mail under a human referee.
pub struct Refereed;

/// bot.toml's `[[contests]]`: the Games & Contests suite as shipped, one
/// table per Contest.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Params {
    pub contests: Vec<Contest>,
}

/// What a player mailed as a move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Move {
    /// Counted from 1 in each game.
    pub number: u32,
    pub player: PlayerId,
    /// The move as written.
    pub text: String,
    /// What it does on the board, for a Contest played on one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub act: Option<Act>,
    pub at: Timestamp,
    /// For a Contest with private moves: its salt and commitment, published
    /// at once so the move published later can be checked against it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seal: Option<Seal>,
    /// Told to the list (at once, or when the referee published it).
    pub published: bool,
    /// Struck from the record by the referee, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub struck: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seal {
    pub salt_hex: String,
    pub commitment: String,
}

/// One line of a game's record: a move, or a referee's ruling on the board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "entry", rename_all = "snake_case")]
pub enum Entry {
    Move(Move),
    /// The referee set a square (to a piece, or empty).
    Set {
        square: Square,
        piece: Option<Piece>,
        reason: String,
    },
}

/// How a game ended, as its referee declared it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// The winner, if the game has one.
    pub winner: Option<PlayerId>,
    /// Points the referee awarded, per player.
    #[serde(default)]
    pub points: Vec<(PlayerId, i64)>,
    pub at: Timestamp,
}

/// One game of a Contest, played by mail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Match {
    pub number: u32,
    pub contest: String,
    /// The referee's name ("" when the moderators referee).
    pub referee: String,
    /// In turn order (for teams, alternating between the two).
    pub players: Vec<PlayerId>,
    /// The two teams, when played by teams.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub teams: Vec<Vec<PlayerId>>,
    /// Whose turn it is (an index into `players`); `None`: any order.
    pub turn: Option<usize>,
    pub private_moves: bool,
    /// The board's size (0: no board).
    pub board: u32,
    /// Hours each player has for a move, when the referee set a pace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hours: Option<u32>,
    /// The Duel this game decides (rule 1215), if the referee said so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duel: Option<u32>,
    pub record: Vec<Entry>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended: Option<Outcome>,
    /// How many times the referee published the sealed moves: the sealed
    /// moves since go into batch `contest:N:ROUND+1` of the sealed box.
    #[serde(default)]
    pub published_rounds: u32,
}

impl Match {
    /// The batch of the sealed box the sealed moves go into now.
    pub fn batch(&self) -> String {
        format!("{TAG}:{}:{}", self.number, self.published_rounds + 1)
    }

    pub fn moves(&self) -> impl Iterator<Item = &Move> {
        self.record.iter().filter_map(|e| match e {
            Entry::Move(m) => Some(m),
            Entry::Set { .. } => None,
        })
    }

    pub fn move_mut(&mut self, number: u32) -> Option<&mut Move> {
        self.record.iter_mut().find_map(|e| match e {
            Entry::Move(m) if m.number == number => Some(m),
            _ => None,
        })
    }

    /// The board from the record: every move not struck and every ruling, in
    /// order; `public`: the sealed moves not yet published left out. A move a
    /// later correction made impossible is left out too (the referee sees it
    /// in the record).
    pub fn board(&self, public: bool) -> Option<Board> {
        if self.board == 0 {
            return None;
        }
        let mut board = Board::new(self.board);
        for entry in &self.record {
            match entry {
                Entry::Move(m) => {
                    if m.struck.is_some() || (public && !m.published) {
                        continue;
                    }
                    if let Some(act) = &m.act {
                        board.apply(act, m.player).ok();
                    }
                }
                Entry::Set { square, piece, .. } => {
                    board.set(*square, piece.clone()).ok();
                }
            }
        }
        Some(board)
    }

    /// A player's seat (1-based), as the diagram shows it.
    pub fn seat(&self, player: PlayerId) -> Option<usize> {
        self.players
            .iter()
            .position(|p| *p == player)
            .map(|i| i + 1)
    }

    pub fn whose_turn(&self) -> Option<PlayerId> {
        self.turn.and_then(|t| self.players.get(t)).copied()
    }

    /// The public view: sealed moves' texts and salts blanked.
    fn without_secrets(&self) -> Match {
        let mut shown = self.clone();
        for entry in &mut shown.record {
            if let Entry::Move(m) = entry
                && !m.published
            {
                m.text = String::new();
                m.act = None;
                if let Some(seal) = &mut m.seal {
                    seal.salt_hex = String::new();
                }
            }
        }
        shown
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// Every game, ended ones too: a number keeps answering, and the points
    /// the referees awarded stay in the standings.
    pub matches: Vec<Match>,
}

impl State {
    pub fn get(&self, number: u32) -> Option<&Match> {
        self.matches.iter().find(|m| m.number == number)
    }

    fn get_mut(&mut self, number: u32) -> Option<&mut Match> {
        self.matches.iter_mut().find(|m| m.number == number)
    }

    pub fn apply_event(&mut self, event: &Event, at: Timestamp) {
        match event {
            Event::Started {
                number,
                contest,
                referee,
                players,
                teams,
                any_order,
                private_moves,
                board,
                duel,
            } => self.matches.push(Match {
                number: *number,
                contest: contest.clone(),
                referee: referee.clone(),
                players: players.clone(),
                teams: teams.clone(),
                turn: (!any_order).then_some(0),
                private_moves: *private_moves,
                board: *board,
                hours: None,
                duel: *duel,
                record: Vec::new(),
                ended: None,
                published_rounds: 0,
            }),
            Event::Moved { number, mv } => {
                if let Some(m) = self.get_mut(*number) {
                    if let Some(turn) = m.turn {
                        m.turn = Some((turn + 1) % m.players.len().max(1));
                    }
                    m.record.push(Entry::Move(mv.clone()));
                }
            }
            Event::Published { number, moves } => {
                if let Some(m) = self.get_mut(*number) {
                    m.published_rounds += 1;
                    for entry in &mut m.record {
                        if let Entry::Move(mv) = entry
                            && moves.contains(&mv.number)
                        {
                            mv.published = true;
                        }
                    }
                }
            }
            Event::Struck {
                number,
                move_number,
                reason,
            } => {
                if let Some(mv) = self.get_mut(*number).and_then(|m| m.move_mut(*move_number)) {
                    mv.struck = Some(reason.clone());
                }
            }
            Event::Corrected {
                number,
                move_number,
                text,
                act,
                ..
            } => {
                if let Some(mv) = self.get_mut(*number).and_then(|m| m.move_mut(*move_number)) {
                    mv.text = text.clone();
                    mv.act = act.clone();
                    mv.struck = None;
                }
            }
            Event::Set {
                number,
                square,
                piece,
                reason,
            } => {
                if let Some(m) = self.get_mut(*number) {
                    m.record.push(Entry::Set {
                        square: *square,
                        piece: piece.clone(),
                        reason: reason.clone(),
                    });
                }
            }
            Event::Turn { number, seat } => {
                if let Some(m) = self.get_mut(*number) {
                    m.turn = *seat;
                }
            }
            Event::Paced { number, hours } => {
                if let Some(m) = self.get_mut(*number) {
                    m.hours = *hours;
                }
            }
            Event::Ended {
                number,
                winner,
                points,
            } => {
                if let Some(m) = self.get_mut(*number) {
                    m.ended = Some(Outcome {
                        winner: *winner,
                        points: points.clone(),
                        at,
                    });
                }
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Started {
        number: u32,
        contest: String,
        referee: String,
        players: Vec<PlayerId>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        teams: Vec<Vec<PlayerId>>,
        any_order: bool,
        private_moves: bool,
        board: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        duel: Option<u32>,
    },
    Moved {
        number: u32,
        mv: Move,
    },
    Published {
        number: u32,
        moves: Vec<u32>,
    },
    Struck {
        number: u32,
        move_number: u32,
        reason: String,
    },
    Corrected {
        number: u32,
        move_number: u32,
        text: String,
        act: Option<Act>,
        reason: String,
    },
    Set {
        number: u32,
        square: Square,
        piece: Option<Piece>,
        reason: String,
    },
    /// The referee gave the turn to a seat (`None`: any order).
    Turn {
        number: u32,
        seat: Option<usize>,
    },
    Paced {
        number: u32,
        hours: Option<u32>,
    },
    Ended {
        number: u32,
        winner: Option<PlayerId>,
        points: Vec<(PlayerId, i64)>,
    },
}

/// A player's move, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Play {
    /// `play TEXT`: any move, for a Contest without a board.
    Text(String),
    /// `drop PIECE at SQUARE` or `move SQUARE SQUARE`.
    Board(Act),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// The referee's `start CONTEST with A, B, C [in any order] [for duel N]`,
    /// or `start CONTEST with A and B against C and D`.
    Start {
        contest: String,
        players: Vec<String>,
        /// The two teams, when played by teams (`players` alternates them).
        teams: Vec<Vec<String>>,
        any_order: bool,
        duel: Option<u32>,
    },
    /// A player's move, in game `number` (from the tag) or eir only game.
    Play {
        number: Option<u32>,
        play: Play,
        text: String,
    },
    /// The referee's commands on a game.
    Referee { number: Option<u32>, ruling: Ruling },
    /// `record`: the record of a game so far.
    Record { number: Option<u32> },
    /// `status`: the games in play.
    Status,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ruling {
    /// `publish`: the sealed moves, to the list.
    Publish,
    /// `turn NAME` / `turn any`.
    Turn(Option<String>),
    /// `deadline N hours|days` / `deadline none`: each move's time.
    Pace(Option<u32>),
    /// `undo M because REASON`.
    Undo { move_number: u32, reason: String },
    /// `correct M: TEXT because REASON`.
    Correct {
        move_number: u32,
        play: Play,
        text: String,
        reason: String,
    },
    /// `set SQUARE PIECE of NAME because REASON` / `set SQUARE empty because REASON`.
    Set {
        square: Square,
        piece: Option<(String, String)>,
        reason: String,
    },
    /// `result NAME wins|draw|no winner [points NAME N, NAME N]`.
    Result {
        winner: Option<String>,
        points: Vec<(String, i64)>,
    },
}

impl Game for Refereed {
    const NAME: &'static str = "contests";
    const TAGS: &'static [&'static str] = &[TAG];
    type State = State;
    type Event = Event;
    type Command = Command;
    type Params = Params;

    fn parse(line: &str, tag: &str) -> Result<Command, NotUnderstood> {
        parse::parse(line, tag)
    }

    fn begins(command: &Command) -> bool {
        matches!(command, Command::Start { .. })
    }

    fn apply(tx: &mut Tx<'_, Refereed>, command: Command, ctx: &Ctx) -> Result<Sentence, Refusal> {
        rules::apply(tx, command, ctx)
    }

    fn apply_event(state: &mut State, event: &Event, at: Timestamp) {
        state.apply_event(event, at);
    }

    fn bindings(params: &Params) -> crate::engine::ruleset::bindings::Declared {
        bound::declared(params)
    }

    /// `[[contests]]`: the suite as shipped.
    fn contests(params: &Params) -> Vec<Contest> {
        params.contests.clone()
    }

    fn on_deadline(tx: &mut Tx<'_, Refereed>, deadline: &Deadline, _tick: &Tick) {
        rules::on_deadline(tx, deadline);
    }

    /// A move mailed to the bot alone is sealed: the list never sees it
    /// before the referee publishes it.
    fn secrecy(command: &Command, ctx: &Ctx) -> Secrecy {
        match command {
            Command::Play { .. } if !ctx.public => Secrecy::Secret {
                shown_as: "a sealed move of a Contest (secret until its referee publishes it)",
            },
            _ => Secrecy::Public,
        }
    }

    /// The suite as it stands (shipped, with the moderators' changes) and
    /// every game, sealed moves blanked.
    fn public_view(state: &State, view: &View<'_>, _params: &Params) -> serde_json::Value {
        let shown = State {
            matches: state.matches.iter().map(Match::without_secrets).collect(),
        };
        serde_json::json!({
            "suite": view.suite(),
            "matches": shown.matches,
        })
    }

    fn private_view(state: &State, view: &View<'_>, _params: &Params) -> serde_json::Value {
        serde_json::json!({
            "suite": view.suite(),
            "matches": state.matches,
        })
    }

    /// `state contests` for a person: the suite and who referees each
    /// Contest, then every game in play with its board as the public sees it.
    fn state_text(
        _shown: &serde_json::Value,
        state: &State,
        view: &View<'_>,
        _now: Timestamp,
    ) -> Option<String> {
        Some(state_text(state, view))
    }

    /// The points the referees awarded, over every game.
    fn scores(state: &State, _view: &View<'_>) -> Option<Scores> {
        let mut of: Vec<(PlayerId, i64)> = Vec::new();
        for outcome in state.matches.iter().filter_map(|m| m.ended.as_ref()) {
            for (player, points) in &outcome.points {
                match of.iter_mut().find(|(p, _)| p == player) {
                    Some((_, total)) => *total += points,
                    None => of.push((*player, *points)),
                }
            }
        }
        Some(Scores {
            name: "Contest points".to_owned(),
            of: of.into_iter().map(|(p, n)| (p, n.to_string())).collect(),
        })
    }

    /// The board of every game in play on one (Party Chess among them), as
    /// the public sees it: a sealed move shows once its referee publishes it.
    fn pictures(state: &State, view: &View<'_>) -> Vec<crate::engine::game::Picture> {
        let name = |id: PlayerId| {
            view.players
                .by_id(id)
                .map_or_else(|| format!("player {id}"), |p| p.name.clone())
        };
        state
            .matches
            .iter()
            .filter(|m| m.ended.is_none())
            .filter_map(|m| {
                let board = m.board(true)?;
                Some(crate::engine::game::Picture {
                    name: format!("board-{}", m.number),
                    svg: picture::svg(m, &board, &name),
                    alt: picture::text(m, &board, &name),
                })
            })
            .collect()
    }

    fn sample(script: &mut dyn crate::engine::game::Script) {
        sample::sample(script);
    }

    fn running(state: &State, view: &View<'_>) -> Vec<Running> {
        let name = |id: PlayerId| {
            view.players
                .by_id(id)
                .map_or_else(|| format!("player {id}"), |p| p.name.clone())
        };
        state
            .matches
            .iter()
            .filter(|m| m.ended.is_none())
            .map(|m| Running {
                tag: format!("{TAG} {}", m.number),
                what: format!("{} ({})", m.contest, rules::referee_name(m)),
                players: m.players.iter().map(|p| name(*p)).collect(),
                turn: m.whose_turn().map(name),
                deadline: None,
            })
            .collect()
    }
}

fn state_text(state: &State, view: &View<'_>) -> String {
    let name = |id: PlayerId| {
        view.players
            .by_id(id)
            .map_or_else(|| format!("player {id}"), |p| p.name.clone())
    };
    let mut out = String::from("The Games & Contests suite (rule 1250):\n");
    for contest in view.suite() {
        let players = match contest.players {
            0 => "any number of players".to_owned(),
            n => format!("{n} players"),
        };
        let referee = if contest.refereed_by_the_bot() {
            format!(
                "the bot, under [{}]",
                contest.game.clone().unwrap_or_default()
            )
        } else if contest.referee.is_empty() {
            "the moderators, under [contest]".to_owned()
        } else {
            format!("{}, under [contest]", contest.referee)
        };
        out.push_str(&format!("  {}: {players}", contest.name));
        if contest.teams {
            out.push_str(", or two teams of two");
        }
        if !contest.definite_winner {
            out.push_str(", no definite winner");
        }
        out.push_str(&format!("; referee {referee}"));
        if contest.private_moves {
            out.push_str("; sealed moves");
        }
        if contest.board > 0 {
            out.push_str(&format!("; a {0}x{0} board", contest.board));
        }
        out.push('\n');
    }
    for game in state.matches.iter().filter(|m| m.ended.is_none()) {
        let players: Vec<String> = game.players.iter().map(|p| name(*p)).collect();
        out.push_str(&format!(
            "Game {} of {} ([{TAG} {}]), referee {}: {}; {} moves",
            game.number,
            game.contest,
            game.number,
            rules::referee_name(game),
            players.join(", "),
            game.moves().count()
        ));
        if let Some(turn) = game.whose_turn() {
            out.push_str(&format!("; {} to move", name(turn)));
        }
        out.push('\n');
        if let Some(board) = game.board(true) {
            out.push_str(&board.diagram(|p| game.seat(p)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(text: &str) -> Square {
        Square::parse(text).unwrap_or(Square { file: 99, rank: 0 })
    }

    fn moved(number: u32, player: PlayerId, act: Act, published: bool) -> Event {
        Event::Moved {
            number: 1,
            mv: Move {
                number,
                player,
                text: String::new(),
                act: Some(act),
                at: Timestamp::UNIX_EPOCH,
                seal: None,
                published,
                struck: None,
            },
        }
    }

    /// The board is the record replayed: an undone move's capture is undone,
    /// a ruling sets a square, a sealed move shows only to the referee.
    #[test]
    fn the_board_is_redrawn_from_the_record_without_struck_or_sealed_moves() {
        let mut state = State::default();
        let at = Timestamp::UNIX_EPOCH;
        state.apply_event(
            &Event::Started {
                number: 1,
                contest: "Party Chess".into(),
                referee: "Carol".into(),
                players: vec![7, 8],
                teams: Vec::new(),
                any_order: false,
                private_moves: false,
                board: 20,
                duel: None,
            },
            at,
        );
        let drop = |piece: &str, at: &str| Act::Drop {
            piece: piece.into(),
            at: square(at),
        };
        state.apply_event(&moved(1, 7, drop("knight", "k10"), true), at);
        state.apply_event(&moved(2, 8, drop("queen", "m11"), true), at);
        state.apply_event(
            &moved(
                3,
                7,
                Act::Move {
                    from: square("k10"),
                    to: square("m11"),
                },
                true,
            ),
            at,
        );
        let board = |state: &State, public| state.get(1).and_then(|m| m.board(public));
        assert_eq!(board(&state, true).map(|b| b.squares.len()), Some(1));
        state.apply_event(
            &Event::Struck {
                number: 1,
                move_number: 3,
                reason: "illegal".into(),
            },
            at,
        );
        let after_undo = board(&state, true).unwrap_or_default();
        assert_eq!(after_undo.squares.len(), 2);
        assert_eq!(after_undo.squares[&square("m11")].owner, 8);
        state.apply_event(
            &Event::Set {
                number: 1,
                square: square("m11"),
                piece: None,
                reason: "a ruling".into(),
            },
            at,
        );
        state.apply_event(&moved(4, 8, drop("rook", "a1"), false), at);
        let public = board(&state, true).unwrap_or_default();
        let private = board(&state, false).unwrap_or_default();
        assert_eq!(public.squares.len(), 1);
        assert_eq!(private.squares.len(), 2);
        assert_eq!(state.get(1).and_then(Match::whose_turn), Some(7));
    }
}
