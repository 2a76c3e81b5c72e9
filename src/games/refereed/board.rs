//! The board of a Contest played on squares (rule 1230 Party Chess: "a 20x20
//! board, drop-style setup, pieces created at will"): which piece stands where,
//! and what a drop or a move does to it. Pure, and it judges no legality of
//! the game's own rules (the referee does): only what is impossible on a board
//! (a square off it, a move from an empty square, another player's piece).
//! Kept as plain data so that a drawing reads it (the text diagram here, the
//! SVG in picture.rs).

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::engine::players::PlayerId;

/// The most files a board may have: one letter each, a to z.
pub const MOST_FILES: u32 = 26;

/// A square: its file (0 = a) and its rank (1 = the first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Square {
    pub file: u32,
    pub rank: u32,
}

impl Square {
    /// Reads `k10` (any case); `None` when it is not a letter and a number.
    /// Whether it is on a given board is `Board::check`'s question.
    pub fn parse(text: &str) -> Option<Square> {
        let text = text.trim().to_ascii_lowercase();
        let mut chars = text.chars();
        let letter = chars.next().filter(char::is_ascii_lowercase)?;
        let rank: u32 = chars.as_str().parse().ok()?;
        Some(Square {
            file: u32::from(letter) - u32::from('a'),
            rank,
        })
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let letter = char::from_u32(u32::from('a') + self.file).unwrap_or('?');
        write!(f, "{letter}{}", self.rank)
    }
}

impl Serialize for Square {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Square {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Square, D::Error> {
        let text = String::deserialize(deserializer)?;
        Square::parse(&text).ok_or_else(|| serde::de::Error::custom("not a square"))
    }
}

/// A piece: its kind as its creator named it ("knight", "dragon": pieces are
/// created at will), and whose it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Piece {
    pub kind: String,
    pub owner: PlayerId,
}

impl Piece {
    /// The letter a diagram shows: chess's own for its pieces (N for a knight),
    /// the first letter of the kind's name otherwise.
    pub fn letter(&self) -> char {
        let kind = self.kind.to_ascii_lowercase();
        if kind == "knight" {
            return 'N';
        }
        kind.chars().next().map_or('?', |c| c.to_ascii_uppercase())
    }
}

/// What a player does on the board.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Act {
    /// A new piece of the player's, dropped on an empty square.
    Drop { piece: String, at: Square },
    /// The player's piece moved; a piece on `to` is captured.
    Move { from: Square, to: Square },
}

/// Why the board cannot take an act.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Impossible {
    OffBoard(Square),
    Empty(Square),
    NotYours { square: Square, owner: PlayerId },
    Taken(Square),
    OwnPiece(Square),
    NowhereToGo(Square),
}

/// The board: its size and the pieces on it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Board {
    /// Files and ranks (20 for Party Chess).
    pub size: u32,
    /// The pieces, by square.
    pub squares: BTreeMap<Square, Piece>,
}

impl Board {
    pub fn new(size: u32) -> Board {
        Board {
            size: size.min(MOST_FILES),
            squares: BTreeMap::new(),
        }
    }

    pub fn check(&self, square: Square) -> Result<Square, Impossible> {
        if square.file < self.size && (1..=self.size).contains(&square.rank) {
            Ok(square)
        } else {
            Err(Impossible::OffBoard(square))
        }
    }

    /// Carries out `act` by `player`: the piece it captured, if any. On `Err`
    /// the board is unchanged.
    pub fn apply(&mut self, act: &Act, player: PlayerId) -> Result<Option<Piece>, Impossible> {
        match act {
            Act::Drop { piece, at } => {
                let at = self.check(*at)?;
                if self.squares.contains_key(&at) {
                    return Err(Impossible::Taken(at));
                }
                self.squares.insert(
                    at,
                    Piece {
                        kind: piece.to_lowercase(),
                        owner: player,
                    },
                );
                Ok(None)
            }
            Act::Move { from, to } => {
                let from = self.check(*from)?;
                let to = self.check(*to)?;
                if from == to {
                    return Err(Impossible::NowhereToGo(from));
                }
                let piece = self.squares.get(&from).ok_or(Impossible::Empty(from))?;
                if piece.owner != player {
                    return Err(Impossible::NotYours {
                        square: from,
                        owner: piece.owner,
                    });
                }
                if self.squares.get(&to).is_some_and(|p| p.owner == player) {
                    return Err(Impossible::OwnPiece(to));
                }
                let piece = self.squares.remove(&from).ok_or(Impossible::Empty(from))?;
                Ok(self.squares.insert(to, piece))
            }
        }
    }

    /// A referee's ruling: `square` holds `piece`, or nothing.
    pub fn set(&mut self, square: Square, piece: Option<Piece>) -> Result<(), Impossible> {
        let square = self.check(square)?;
        match piece {
            Some(piece) => self.squares.insert(square, piece),
            None => self.squares.remove(&square),
        };
        Ok(())
    }

    /// The board as text: rank `size` at the top, files along the bottom; a
    /// piece is its letter and its owner's seat (`N1`: a knight of the first
    /// player), an empty square a dot. `seat` gives a player's seat (1-based).
    pub fn diagram(&self, seat: impl Fn(PlayerId) -> Option<usize>) -> String {
        let mut out = String::new();
        for rank in (1..=self.size).rev() {
            out.push_str(&format!("{rank:>3} "));
            for file in 0..self.size {
                let square = Square { file, rank };
                match self.squares.get(&square) {
                    Some(piece) => {
                        let seat =
                            seat(piece.owner).map_or_else(|| "?".to_owned(), |s| s.to_string());
                        out.push_str(&format!("{:>3}", format!("{}{seat}", piece.letter())));
                    }
                    None => out.push_str("  ."),
                }
            }
            out.push('\n');
        }
        out.push_str("    ");
        for file in 0..self.size {
            let square = Square { file, rank: 1 };
            out.push_str(&format!(
                "{:>3}",
                square.to_string().trim_end_matches(char::is_numeric)
            ));
        }
        out.push('\n');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(text: &str) -> Square {
        Square::parse(text).unwrap_or(Square { file: 99, rank: 0 })
    }

    fn drop(piece: &str, at: &str) -> Act {
        Act::Drop {
            piece: piece.to_owned(),
            at: sq(at),
        }
    }

    fn step(from: &str, to: &str) -> Act {
        Act::Move {
            from: sq(from),
            to: sq(to),
        }
    }

    #[test]
    fn squares_read_and_write_as_a_letter_and_a_rank() {
        assert_eq!(sq("k10"), Square { file: 10, rank: 10 });
        assert_eq!(sq("T20").to_string(), "t20");
        assert_eq!(Square::parse("10k"), None);
        assert_eq!(Square::parse("k"), None);
    }

    #[test]
    fn a_drop_creates_a_piece_and_a_move_onto_an_occupied_square_captures() {
        let mut board = Board::new(20);
        assert_eq!(board.apply(&drop("Knight", "k10"), 1), Ok(None));
        assert_eq!(board.apply(&drop("dragon", "m11"), 2), Ok(None));
        let captured = board.apply(&step("k10", "m11"), 1);
        assert_eq!(
            captured,
            Ok(Some(Piece {
                kind: "dragon".into(),
                owner: 2
            }))
        );
        assert_eq!(board.squares.len(), 1);
        assert_eq!(board.squares[&sq("m11")].letter(), 'N');
    }

    #[test]
    fn the_board_refuses_what_is_impossible_on_it() {
        let mut board = Board::new(20);
        assert_eq!(
            board.apply(&drop("pawn", "u1"), 1),
            Err(Impossible::OffBoard(sq("u1")))
        );
        assert_eq!(
            board.apply(&drop("pawn", "a21"), 1),
            Err(Impossible::OffBoard(sq("a21")))
        );
        assert_eq!(
            board.apply(&step("a1", "a2"), 1),
            Err(Impossible::Empty(sq("a1")))
        );
        board.apply(&drop("pawn", "a1"), 1).ok();
        assert_eq!(
            board.apply(&step("a1", "a2"), 2),
            Err(Impossible::NotYours {
                square: sq("a1"),
                owner: 1
            })
        );
        assert_eq!(
            board.apply(&drop("rook", "a1"), 2),
            Err(Impossible::Taken(sq("a1")))
        );
        let before = board.clone();
        board.apply(&drop("rook", "a2"), 1).ok();
        assert_eq!(
            board.apply(&step("a1", "a2"), 1),
            Err(Impossible::OwnPiece(sq("a2")))
        );
        assert_ne!(board, before);
    }

    #[test]
    fn the_diagram_shows_ranks_from_the_top_and_files_a_to_t() {
        let mut board = Board::new(20);
        board.apply(&drop("knight", "k10"), 7).ok();
        board.apply(&drop("queen", "a1"), 9).ok();
        let seat = |p| match p {
            7 => Some(1),
            9 => Some(2),
            _ => None,
        };
        let diagram = board.diagram(seat);
        let lines: Vec<&str> = diagram.lines().collect();
        assert_eq!(lines.len(), 21);
        assert!(lines[0].starts_with(" 20 "), "{diagram}");
        assert!(lines[10].starts_with(" 10 "), "{diagram}");
        assert_eq!(lines[10].split_whitespace().nth(11), Some("N1"));
        assert_eq!(lines[19].split_whitespace().nth(1), Some("Q2"));
        assert_eq!(
            lines[20].split_whitespace().collect::<String>(),
            "abcdefghijklmnopqrst"
        );
    }
}
