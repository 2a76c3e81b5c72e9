//! Reads `[contest]` command lines; whether a move is possible, and who may
//! give a ruling, is for `rules`.

use super::board::{Act, Square};
use super::{Command, Play, Ruling};
use crate::engine::{NotUnderstood, Sentence, UNKNOWN_COMMAND, split_reason, split_verb};

fn usage(form: &str) -> NotUnderstood {
    NotUnderstood(Sentence::new("usage").arg("usage", form))
}

/// The game's number in the tag: `[contest 2]`.
fn number_of(tag: &str) -> Option<u32> {
    tag.rsplit_once(' ').and_then(|(_, n)| n.parse().ok())
}

fn names(text: &str) -> Vec<String> {
    text.split(',')
        .flat_map(|p| p.split(" and "))
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
        .collect()
}

fn square(text: &str, form: &str) -> Result<Square, NotUnderstood> {
    Square::parse(text).ok_or_else(|| usage(form))
}

const DROP: &str = "drop PIECE at SQUARE (as drop knight at k10)";
const MOVE: &str = "move SQUARE SQUARE (as move k10 m11)";

/// A move as written: `play TEXT`, `drop PIECE at SQUARE`, `move FROM TO`.
fn play(verb: &str, rest: &str) -> Option<Result<Play, NotUnderstood>> {
    Some(match verb {
        "play" if !rest.is_empty() => Ok(Play::Text(rest.to_owned())),
        "play" => Err(usage("play YOUR MOVE")),
        "drop" => {
            let lower = rest.to_ascii_lowercase();
            match lower.rfind(" at ") {
                Some(at) if !rest[..at].trim().is_empty() => {
                    square(&rest[at + 4..], DROP).map(|at_square| {
                        Play::Board(Act::Drop {
                            piece: rest[..at].trim().to_lowercase(),
                            at: at_square,
                        })
                    })
                }
                _ => Err(usage(DROP)),
            }
        }
        "move" => {
            let words: Vec<&str> = rest
                .split(|c: char| c.is_whitespace() || c == '-')
                .filter(|w| !w.is_empty() && !w.eq_ignore_ascii_case("to"))
                .collect();
            match words.as_slice() {
                [from, to] => square(from, MOVE).and_then(|from| {
                    square(to, MOVE).map(|to| Play::Board(Act::Move { from, to }))
                }),
                _ => Err(usage(MOVE)),
            }
        }
        _ => return None,
    })
}

pub fn parse(line: &str, tag: &str) -> Result<Command, NotUnderstood> {
    let number = number_of(tag);
    let (verb, rest) = split_verb(line);
    let rest = rest.trim();
    if let Some(played) = play(&verb, rest) {
        return Ok(Command::Play {
            number,
            play: played?,
            text: line.trim().to_owned(),
        });
    }
    let ruling = |ruling| Ok(Command::Referee { number, ruling });
    match verb.as_str() {
        "start" => {
            let form = "start CONTEST with NAME, NAME [in any order] [for duel N], or start CONTEST with NAME and NAME against NAME and NAME";
            let lower = rest.to_ascii_lowercase();
            let at = lower.find(" with ").ok_or_else(|| usage(form))?;
            let contest = rest[..at].trim().to_owned();
            let mut who = &rest[at + " with ".len()..];
            let mut duel = None;
            if let Some(at) = who.to_ascii_lowercase().rfind(" for duel ") {
                duel = Some(
                    who[at + " for duel ".len()..]
                        .trim()
                        .trim_start_matches('#')
                        .parse()
                        .map_err(|_| usage(form))?,
                );
                who = &who[..at];
            }
            let any_order = who.to_ascii_lowercase().ends_with(" in any order");
            if any_order {
                who = &who[..who.len() - " in any order".len()];
            }
            let lower = who.to_ascii_lowercase();
            let (players, teams) = match lower.find(" against ") {
                Some(at) => {
                    let first = names(&who[..at]);
                    let second = names(&who[at + " against ".len()..]);
                    // Turns alternate between the teams: A1, B1, A2, B2.
                    let mut players = Vec::new();
                    for i in 0..first.len().max(second.len()) {
                        players.extend(first.get(i).cloned());
                        players.extend(second.get(i).cloned());
                    }
                    (players, vec![first, second])
                }
                None => (names(who), Vec::new()),
            };
            if contest.is_empty() || players.is_empty() {
                return Err(usage(form));
            }
            Ok(Command::Start {
                contest,
                players,
                teams,
                any_order,
                duel,
            })
        }
        "publish" if rest.is_empty() => ruling(Ruling::Publish),
        "turn" => match rest.to_ascii_lowercase().as_str() {
            "" => Err(usage("turn NAME, or turn any")),
            "any" => ruling(Ruling::Turn(None)),
            _ => ruling(Ruling::Turn(Some(rest.to_owned()))),
        },
        "deadline" => {
            let form = "deadline N hours, deadline N days, or deadline none";
            let words: Vec<String> = rest.split_whitespace().map(str::to_lowercase).collect();
            match words.as_slice() {
                [none] if none == "none" => ruling(Ruling::Pace(None)),
                [n, unit] => {
                    let n: u32 = n.parse().map_err(|_| usage(form))?;
                    let hours = match unit.as_str() {
                        "hour" | "hours" => n,
                        "day" | "days" => n.saturating_mul(24),
                        _ => return Err(usage(form)),
                    };
                    if hours == 0 {
                        return Err(usage(form));
                    }
                    ruling(Ruling::Pace(Some(hours)))
                }
                _ => Err(usage(form)),
            }
        }
        "undo" => {
            let form = "undo MOVE because REASON";
            let (what, reason) = split_reason(rest, form)?;
            let move_number = what
                .trim_start_matches('#')
                .parse()
                .map_err(|_| usage(form))?;
            ruling(Ruling::Undo {
                move_number,
                reason,
            })
        }
        "correct" => {
            let form = "correct MOVE: THE MOVE AS IT SHOULD READ because REASON";
            let (what, reason) = split_reason(rest, form)?;
            let (number_text, text) = what.split_once(':').ok_or_else(|| usage(form))?;
            let move_number = number_text
                .trim()
                .trim_start_matches('#')
                .parse()
                .map_err(|_| usage(form))?;
            let text = text.trim();
            let (verb, rest) = split_verb(text);
            let play = play(&verb, rest).unwrap_or_else(|| Ok(Play::Text(text.to_owned())))?;
            ruling(Ruling::Correct {
                move_number,
                play,
                text: text.to_owned(),
                reason,
            })
        }
        "set" => {
            let form =
                "set SQUARE PIECE of NAME because REASON, or set SQUARE empty because REASON";
            let (what, reason) = split_reason(rest, form)?;
            let (at, piece) = what
                .split_once(char::is_whitespace)
                .ok_or_else(|| usage(form))?;
            let square = square(at, form)?;
            let piece = piece.trim();
            let piece = if piece.eq_ignore_ascii_case("empty") {
                None
            } else {
                let lower = piece.to_ascii_lowercase();
                let of = lower.rfind(" of ").ok_or_else(|| usage(form))?;
                Some((
                    piece[..of].trim().to_lowercase(),
                    piece[of + 4..].trim().to_owned(),
                ))
            };
            ruling(Ruling::Set {
                square,
                piece,
                reason,
            })
        }
        "result" => {
            let form = "result NAME wins [points NAME N, NAME N], or result no winner [points ...]";
            let lower = rest.to_ascii_lowercase();
            let (who, points_text) = match lower.find("points ") {
                Some(at) => (&rest[..at], &rest[at + "points ".len()..]),
                None => (rest, ""),
            };
            let who = who.trim().trim_end_matches([',', ';']).trim();
            let winner = match who.to_ascii_lowercase().as_str() {
                "no winner" | "draw" | "none" => None,
                w if w.ends_with(" wins") => {
                    Some(who[..who.len() - " wins".len()].trim().to_owned())
                }
                _ => return Err(usage(form)),
            };
            let mut points = Vec::new();
            for part in points_text
                .split(',')
                .map(str::trim)
                .filter(|p| !p.is_empty())
            {
                let (name, n) = part
                    .rsplit_once(char::is_whitespace)
                    .ok_or_else(|| usage(form))?;
                let n: i64 = n.trim_start_matches('+').parse().map_err(|_| usage(form))?;
                points.push((name.trim().to_owned(), n));
            }
            ruling(Ruling::Result { winner, points })
        }
        "record" => Ok(Command::Record {
            number: number.or_else(|| rest.trim_start_matches('#').parse().ok()),
        }),
        "status" | "games" => Ok(Command::Status),
        _ => Err(NotUnderstood(Sentence::new(UNKNOWN_COMMAND))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_read_by_square() {
        let Ok(Command::Play { number, play, .. }) = parse("drop KNIGHT at k10", "contest 2")
        else {
            panic!("a drop");
        };
        assert_eq!(number, Some(2));
        assert_eq!(
            play,
            Play::Board(Act::Drop {
                piece: "knight".into(),
                at: Square { file: 10, rank: 10 }
            })
        );
        for line in ["move k10 m11", "move k10-m11", "move k10 to m11"] {
            assert!(
                matches!(
                    parse(line, "contest"),
                    Ok(Command::Play {
                        play: Play::Board(Act::Move { .. }),
                        ..
                    })
                ),
                "{line}"
            );
        }
    }

    #[test]
    fn a_referees_rulings_read() {
        assert_eq!(
            parse(
                "start Party Chess with Alice, Bob and Carol for duel 3",
                "contest"
            ),
            Ok(Command::Start {
                contest: "Party Chess".into(),
                players: vec!["Alice".into(), "Bob".into(), "Carol".into()],
                teams: Vec::new(),
                any_order: false,
                duel: Some(3),
            })
        );
        assert_eq!(
            parse("result Alice wins, points Alice 3, Bob -1", "contest 1"),
            Ok(Command::Referee {
                number: Some(1),
                ruling: Ruling::Result {
                    winner: Some("Alice".into()),
                    points: vec![("Alice".into(), 3), ("Bob".into(), -1)],
                }
            })
        );
        assert!(matches!(
            parse(
                "set k10 empty because the knight was never there",
                "contest"
            ),
            Ok(Command::Referee {
                ruling: Ruling::Set { piece: None, .. },
                ..
            })
        ));
        assert!(parse("undo 3", "contest").is_err());
        let Ok(Command::Start { players, teams, .. }) = parse(
            "start Bughouse with Alice and Bob against Carol and Dave",
            "contest",
        ) else {
            panic!("a start by teams");
        };
        assert_eq!(players, ["Alice", "Carol", "Bob", "Dave"]);
        assert_eq!(teams, [["Alice", "Bob"], ["Carol", "Dave"]]);
    }
}
