//! The picture of a game's board (Party Chess, rule 1230, and any Contest
//! played on squares): the board at its size, every piece with its owner,
//! the files and ranks written on all four sides, and a list of the pieces
//! saying the same in words. Drawn from the board as the public sees it (the
//! caller passes `Match::board(true)`), so a sealed move never shows. Pure and
//! deterministic: squares in the board's order, integer geometry only, so a
//! replayed record gives the same bytes.

use std::fmt::Write;

use crate::engine::game::xml_text as escape;
use crate::engine::players::PlayerId;

use super::Match;
use super::board::{Board, Piece, Square};

/// Pixels per square.
const SQUARE: u32 = 28;
/// Room for the coordinates around the board.
const MARGIN: u32 = 24;
const RADIUS: u32 = 11;
/// The height of one line of the legend under the board.
const LINE: u32 = 18;
/// A generous width per character of the legend, to size the drawing.
const CHARACTER: u32 = 8;

/// The squares' colours: the usual light and dark of a chess board.
const LIGHT: &str = "#f0d9b5";
const DARK: &str = "#b58863";

/// Each owner's colour, by place (seats in turn order, then owners without a
/// seat), with the colour of the writing on it; the letters and seat numbers
/// say the same, so nothing rests on telling colours apart.
const COLOURS: &[(&str, &str)] = &[
    ("#ffffff", "#000000"),
    ("#222222", "#ffffff"),
    ("#c62828", "#ffffff"),
    ("#1565c0", "#ffffff"),
    ("#2e7d32", "#ffffff"),
    ("#f9a825", "#000000"),
    ("#6a1b9a", "#ffffff"),
    ("#00838f", "#ffffff"),
];

/// Who owns pieces on the board, each with the label the diagram gives em (the
/// seat, or `?` for an owner the referee set a piece for who has no seat):
/// the players in turn order, then the others in the board's order.
fn owners(game: &Match, board: &Board) -> Vec<(PlayerId, String)> {
    let mut out: Vec<(PlayerId, String)> = game
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| (*p, (i + 1).to_string()))
        .collect();
    for piece in board.squares.values() {
        if !out.iter().any(|(p, _)| *p == piece.owner) {
            out.push((piece.owner, "?".to_owned()));
        }
    }
    out
}

/// The piece's label, as the text diagram writes it: its letter and its
/// owner's seat (`N1`).
fn label(piece: &Piece, owners: &[(PlayerId, String)]) -> String {
    let seat = owners
        .iter()
        .find(|(p, _)| *p == piece.owner)
        .map_or("?", |(_, seat)| seat.as_str());
    format!("{}{seat}", piece.letter())
}

/// The kinds on the board, each with its letter, in the board's order of
/// first appearance (pieces are created at will, so the letters need saying).
fn kinds(board: &Board) -> Vec<(char, String)> {
    let mut out: Vec<(char, String)> = Vec::new();
    for piece in board.squares.values() {
        if !out.iter().any(|(_, kind)| *kind == piece.kind) {
            out.push((piece.letter(), piece.kind.clone()));
        }
    }
    out
}

fn heading(game: &Match, board: &Board) -> String {
    format!(
        "Game {} of {}, a {}x{} board",
        game.number, game.contest, board.size, board.size
    )
}

/// The text alternative: the game and its players, then one line per piece
/// (square, kind, owner, and the label the picture shows).
pub fn text(game: &Match, board: &Board, name: &dyn Fn(PlayerId) -> String) -> String {
    let owners = owners(game, board);
    let mut out = heading(game, board);
    if let Some(last) = board.size.checked_sub(1) {
        let corner = Square {
            file: last,
            rank: board.size,
        };
        let last_file = corner.to_string();
        let _ = write!(
            out,
            " (files a to {}, ranks 1 to {})",
            last_file.trim_end_matches(char::is_numeric),
            board.size
        );
    }
    let seats: Vec<String> = owners
        .iter()
        .filter(|(_, seat)| seat != "?")
        .map(|(p, seat)| format!("{seat} {}", name(*p)))
        .collect();
    let _ = writeln!(out, "; players: {}.", seats.join(", "));
    if board.squares.is_empty() {
        out.push_str("No pieces on the board.\n");
    }
    for (square, piece) in &board.squares {
        let _ = writeln!(
            out,
            "{square}: {} of {} ({})",
            piece.kind,
            name(piece.owner),
            label(piece, &owners)
        );
    }
    out
}

/// The SVG document: rank 1 at the bottom, file a on the left, as a player
/// of the first seat sees the board; the legend under it.
pub fn svg(game: &Match, board: &Board, name: &dyn Fn(PlayerId) -> String) -> String {
    let owners = owners(game, board);
    let kinds = kinds(board);
    let size = board.size;
    let side = size * SQUARE;
    let legend: Vec<String> = owners
        .iter()
        .map(|(p, seat)| format!("{seat}: {}", name(*p)))
        .chain(
            kinds
                .iter()
                .map(|(letter, kind)| format!("{letter}: {kind}")),
        )
        .collect();
    let longest = legend
        .iter()
        .map(|line| line.chars().count())
        .max()
        .unwrap_or(0);
    let longest = u32::try_from(longest).unwrap_or(u32::MAX);
    let width = (side + 2 * MARGIN).max(
        longest
            .saturating_mul(CHARACTER)
            .saturating_add(2 * MARGIN + 2 * RADIUS),
    );
    let legend_top = side + 2 * MARGIN + LINE / 2;
    let legend_lines = u32::try_from(legend.len()).unwrap_or(u32::MAX);
    let height = legend_top + legend_lines.saturating_mul(LINE) + LINE / 2;
    // Where a square's top-left corner is drawn: rank `size` on top.
    let corner = |square: Square| {
        (
            MARGIN + square.file * SQUARE,
            MARGIN + size.saturating_sub(square.rank) * SQUARE,
        )
    };
    let mut out = String::new();
    out.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" role=\"img\" font-family=\"sans-serif\" font-size=\"12\">"
    );
    let _ = writeln!(out, "<title>{}</title>", escape(&heading(game, board)));
    let _ = writeln!(out, "<desc>{}</desc>", escape(&text(game, board, name)));
    let _ = writeln!(
        out,
        "<rect x=\"0\" y=\"0\" width=\"{width}\" height=\"{height}\" fill=\"#ffffff\"/>"
    );
    // The light squares as one rectangle, the dark ones drawn over it.
    let _ = writeln!(
        out,
        "<rect x=\"{MARGIN}\" y=\"{MARGIN}\" width=\"{side}\" height=\"{side}\" fill=\"{LIGHT}\" stroke=\"#000000\"/>"
    );
    let _ = writeln!(out, "<g fill=\"{DARK}\">");
    for rank in 1..=size {
        for file in 0..size {
            // a1 is dark, as on a chess board.
            if (file + rank) % 2 == 1 {
                let (x, y) = corner(Square { file, rank });
                let _ = writeln!(
                    out,
                    "<rect x=\"{x}\" y=\"{y}\" width=\"{SQUARE}\" height=\"{SQUARE}\"/>"
                );
            }
        }
    }
    out.push_str("</g>\n");
    // The coordinates on all four sides, so a square far from a1 reads easily.
    out.push_str("<g class=\"coordinates\" fill=\"#000000\" text-anchor=\"middle\">\n");
    for file in 0..size {
        let letter = Square { file, rank: 1 }.to_string();
        let letter = letter.trim_end_matches(char::is_numeric);
        let x = MARGIN + file * SQUARE + SQUARE / 2;
        for y in [MARGIN - 8, MARGIN + side + 16] {
            let _ = writeln!(out, "<text x=\"{x}\" y=\"{y}\">{letter}</text>");
        }
    }
    for rank in 1..=size {
        let y = MARGIN + size.saturating_sub(rank) * SQUARE + SQUARE / 2 + 4;
        for x in [MARGIN / 2, MARGIN + side + MARGIN / 2] {
            let _ = writeln!(out, "<text x=\"{x}\" y=\"{y}\">{rank}</text>");
        }
    }
    out.push_str("</g>\n");
    for (square, piece) in &board.squares {
        let (x, y) = corner(*square);
        let (cx, cy) = (x + SQUARE / 2, y + SQUARE / 2);
        let (fill, ink) = colour(&owners, piece.owner);
        let _ = writeln!(out, "<g class=\"piece\" data-square=\"{square}\">");
        let _ = writeln!(
            out,
            "<title>{square}: {} of {}</title>",
            escape(&piece.kind),
            escape(&name(piece.owner))
        );
        let _ = writeln!(
            out,
            "<circle cx=\"{cx}\" cy=\"{cy}\" r=\"{RADIUS}\" fill=\"{fill}\" stroke=\"#000000\"/>"
        );
        let _ = writeln!(
            out,
            "<text x=\"{cx}\" y=\"{}\" text-anchor=\"middle\" font-size=\"10\" font-weight=\"bold\" fill=\"{ink}\">{}</text>",
            cy + 4,
            escape(&label(piece, &owners))
        );
        out.push_str("</g>\n");
    }
    // The legend: who each seat is, in that seat's colour, then the letters.
    out.push_str("<g class=\"legend\">\n");
    for (i, line) in legend.iter().enumerate() {
        let i = u32::try_from(i).unwrap_or(u32::MAX);
        let y = legend_top + i.saturating_mul(LINE);
        if let Some((owner, _)) = owners.get(i as usize) {
            let (fill, _) = colour(&owners, *owner);
            let _ = writeln!(
                out,
                "<circle cx=\"{}\" cy=\"{}\" r=\"6\" fill=\"{fill}\" stroke=\"#000000\"/>",
                MARGIN + 6,
                y + LINE / 2
            );
        }
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\">{}</text>",
            MARGIN + 2 * RADIUS,
            y + LINE / 2 + 4,
            escape(line)
        );
    }
    out.push_str("</g>\n");
    out.push_str("</svg>\n");
    out
}

/// An owner's colour and the colour of writing on it; past the palette, the
/// colours come round again (the labels still tell the owners apart).
fn colour(owners: &[(PlayerId, String)], owner: PlayerId) -> (&'static str, &'static str) {
    let place = owners.iter().position(|(p, _)| *p == owner).unwrap_or(0);
    COLOURS[place % COLOURS.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Timestamp;
    use crate::games::refereed::board::Act;
    use crate::games::refereed::{Entry, Move};

    fn square(text: &str) -> Square {
        Square::parse(text).unwrap_or(Square { file: 99, rank: 0 })
    }

    fn game(size: u32, drops: &[(u32, &str, &str)]) -> Match {
        let record = drops
            .iter()
            .enumerate()
            .map(|(i, (player, piece, at))| {
                Entry::Move(Move {
                    number: u32::try_from(i).unwrap_or(0) + 1,
                    player: *player,
                    text: String::new(),
                    act: Some(Act::Drop {
                        piece: (*piece).to_owned(),
                        at: square(at),
                    }),
                    at: Timestamp::UNIX_EPOCH,
                    seal: None,
                    published: true,
                    struck: None,
                })
            })
            .collect();
        Match {
            number: 1,
            contest: "Party Chess".to_owned(),
            referee: String::new(),
            players: vec![7, 8],
            teams: Vec::new(),
            turn: Some(0),
            private_moves: false,
            board: size,
            hours: None,
            duel: None,
            record,
            ended: None,
            published_rounds: 0,
        }
    }

    fn name(id: PlayerId) -> String {
        match id {
            7 => "Alice".to_owned(),
            8 => "<b>Bob & \"Co\"</b>".to_owned(),
            _ => format!("player {id}"),
        }
    }

    fn drawn(game: &Match) -> (String, String) {
        let board = game.board(true).unwrap_or_default();
        (svg(game, &board, &name), text(game, &board, &name))
    }

    #[test]
    fn the_picture_has_the_boards_size_its_coordinates_and_every_piece_with_its_owner() {
        let (doc, _) = drawn(&game(20, &[(7, "knight", "k10"), (8, "dragon", "m11")]));
        // 20 by 20 squares: half of them dark, drawn one by one.
        assert_eq!(doc.matches("<rect x=").count(), 2 + 200, "{doc}");
        for coordinate in [">a</text>", ">t</text>", ">1</text>", ">20</text>"] {
            assert_eq!(doc.matches(coordinate).count(), 2, "{coordinate} in {doc}");
        }
        assert!(!doc.contains(">u</text>") && !doc.contains(">21</text>"));
        assert!(doc.contains("<title>k10: knight of Alice</title>"), "{doc}");
        assert!(
            doc.contains(">N1</text>") && doc.contains(">D2</text>"),
            "{doc}"
        );
        assert!(doc.contains(">1: Alice</text>") && doc.contains(">N: knight</text>"));
        assert!(doc.contains("<title>Game 1 of Party Chess, a 20x20 board</title>"));
    }

    #[test]
    fn the_board_drawn_follows_the_games_size() {
        let (doc, words) = drawn(&game(8, &[(7, "rook", "h8")]));
        assert_eq!(doc.matches("<rect x=").count(), 2 + 32, "{doc}");
        assert!(doc.contains(">h</text>") && !doc.contains(">i</text>"));
        assert!(
            words.starts_with("Game 1 of Party Chess, a 8x8 board (files a to h, ranks 1 to 8)"),
            "{words}"
        );
        // h8 is the top right square.
        assert!(doc.contains("<circle cx=\"234\" cy=\"38\""), "{doc}");
    }

    #[test]
    fn the_words_list_every_piece_with_its_owner() {
        let (_, words) = drawn(&game(20, &[(7, "knight", "k10"), (8, "dragon", "m11")]));
        assert_eq!(
            words,
            "Game 1 of Party Chess, a 20x20 board (files a to t, ranks 1 to 20); players: 1 Alice, 2 <b>Bob & \"Co\"</b>.\n\
             k10: knight of Alice (N1)\n\
             m11: dragon of <b>Bob & \"Co\"</b> (D2)\n"
        );
        let (_, empty) = drawn(&game(20, &[]));
        assert!(empty.ends_with("No pieces on the board.\n"), "{empty}");
    }

    #[test]
    fn names_and_kinds_are_escaped_and_the_same_board_gives_the_same_bytes() {
        let mut played = game(20, &[(7, "knight", "k10"), (8, "<dragon>", "m11")]);
        let (doc, _) = drawn(&played);
        assert!(
            doc.contains("&lt;b&gt;Bob &amp; &quot;Co&quot;&lt;/b&gt;"),
            "{doc}"
        );
        assert!(!doc.contains("<b>") && !doc.contains("<dragon>"), "{doc}");
        assert_eq!(drawn(&played).0, doc);
        // A sealed move is not on the public board.
        if let Some(Entry::Move(m)) = played.record.last_mut() {
            m.published = false;
        }
        let (doc, words) = drawn(&played);
        assert!(!doc.contains("m11") && !words.contains("m11"), "{doc}");
    }
}
