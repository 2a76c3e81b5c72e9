//! The Games & Contests suite (Ackanomic rule 1250): the sub-games other rules
//! name (a Duel's Contest must come from it). A part of the shared world, so that
//! any game reads it and none imports another: the suite as shipped is config
//! (each game's `Game::contests`: the bot's own games declare themselves, and
//! bot.toml's `[[contests]]` and the older `[[duel.contests]]` add theirs), and
//! the moderators' changes by mail are events of this part, kept here.

use serde::{Deserialize, Serialize};

/// A Contest of the suite: what a rule may ask of it, and who referees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Contest {
    pub name: String,
    /// How many players (or teams) play it; 0 for "any number".
    pub players: u32,
    /// Playable by two teams of two players each.
    #[serde(default)]
    pub teams: bool,
    /// Its rules determine a winner (or a winning team).
    #[serde(default = "yes")]
    pub definite_winner: bool,
    /// "bot": the bot starts and referees it (through `game`); otherwise the
    /// name of the player who referees it by mail under `[contest]` (and may
    /// report a Duel's winner); empty: the moderators referee it.
    #[serde(default)]
    pub referee: String,
    /// The game the bot hands it to when it referees it ("ghost").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
    /// Played by mail under `[contest]` with a human referee: its moves are
    /// mailed to the bot alone and kept sealed until the referee publishes
    /// them (false: each move is echoed to the list).
    #[serde(default, skip_serializing_if = "is_false")]
    pub private_moves: bool,
    /// Played on a square board of this many files and ranks, which the bot
    /// keeps (Party Chess, rule 1230: "a 20x20 board"); 0: no board.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub board: u32,
}

fn is_false(value: &bool) -> bool {
    !*value
}

fn is_zero(value: &u32) -> bool {
    *value == 0
}

fn yes() -> bool {
    true
}

impl Contest {
    /// A Contest the bot referees through one of its games (`tag`), as that
    /// game declares itself to the suite (`Game::contests`).
    pub fn by_the_bot(name: &str, players: u32, tag: &str) -> Contest {
        Contest {
            name: name.to_owned(),
            players,
            teams: false,
            definite_winner: true,
            referee: "bot".to_owned(),
            game: Some(tag.to_owned()),
            private_moves: false,
            board: 0,
        }
    }

    pub fn refereed_by_the_bot(&self) -> bool {
        self.referee.eq_ignore_ascii_case("bot") && self.game.is_some()
    }
}

/// The moderators' changes to the suite as shipped.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Suite {
    /// Contests a moderator added (or replaced, by name).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub added: Vec<Contest>,
    /// Contests a moderator removed (by name, lower case).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub removed: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    Added { contest: Contest },
    Removed { name: String },
}

impl Suite {
    pub fn apply_event(&mut self, event: &Event) {
        match event {
            Event::Added { contest } => {
                let key = contest.name.to_lowercase();
                self.removed.retain(|n| *n != key);
                self.added.retain(|c| c.name.to_lowercase() != key);
                self.added.push(contest.clone());
            }
            Event::Removed { name } => {
                let key = name.to_lowercase();
                self.added.retain(|c| c.name.to_lowercase() != key);
                if !self.removed.contains(&key) {
                    self.removed.push(key);
                }
            }
        }
    }

    /// The suite as it stands: `shipped` (config), with these changes.
    pub fn suite(&self, shipped: &[Contest]) -> Vec<Contest> {
        let mut suite: Vec<Contest> = shipped
            .iter()
            .filter(|c| !self.removed.contains(&c.name.to_lowercase()))
            .filter(|c| {
                !self
                    .added
                    .iter()
                    .any(|a| a.name.eq_ignore_ascii_case(&c.name))
            })
            .cloned()
            .collect();
        suite.extend(self.added.iter().cloned());
        suite
    }
}

/// One Contest per name (any case), in the order first named, each as the
/// last declaration says: the games declare themselves first and the
/// configuration (`[[duel.contests]]`, then `[[contests]]`) after them, so
/// what the operator wrote wins over what a game says of itself.
pub fn one_each(declared: Vec<Contest>) -> Vec<Contest> {
    let mut suite: Vec<Contest> = Vec::new();
    for contest in declared {
        match suite
            .iter_mut()
            .find(|c| c.name.eq_ignore_ascii_case(&contest.name))
        {
            Some(earlier) => *earlier = contest,
            None => suite.push(contest),
        }
    }
    suite
}

/// The form of a Contest written by mail.
pub const SPEC: &str =
    "NAME players N [teams] [no winner] [referee bot|NAME] [game TAG] [private] [board N]";

/// Reads `NAME players N [teams] [no winner] [referee bot|NAME] [game TAG]
/// [private] [board N]` (the players' N may be `any`); `None` when it is not so written.
pub fn parse_spec(rest: &str) -> Option<Contest> {
    let lower = rest.to_ascii_lowercase();
    let at = lower.find(" players ")?;
    let name = rest[..at].trim().to_owned();
    let words: Vec<&str> = rest[at + " players ".len()..].split_whitespace().collect();
    let players = words.first().and_then(|w| {
        if w.eq_ignore_ascii_case("any") {
            Some(0)
        } else {
            w.parse().ok()
        }
    })?;
    let mut contest = Contest {
        name,
        players,
        teams: false,
        definite_winner: true,
        referee: String::new(),
        game: None,
        private_moves: false,
        board: 0,
    };
    let mut i = 1;
    while let Some(word) = words.get(i) {
        match word.to_lowercase().as_str() {
            "teams" => contest.teams = true,
            "no" if words
                .get(i + 1)
                .is_some_and(|w| w.eq_ignore_ascii_case("winner")) =>
            {
                contest.definite_winner = false;
                i += 1;
            }
            "referee" => {
                contest.referee = words.get(i + 1)?.to_string();
                i += 1;
            }
            "game" => {
                contest.game = Some(words.get(i + 1)?.to_lowercase());
                i += 1;
            }
            "private" => contest.private_moves = true,
            "board" => {
                contest.board = words.get(i + 1)?.parse().ok()?;
                i += 1;
            }
            _ => return None,
        }
        i += 1;
    }
    (!contest.name.is_empty()).then_some(contest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contest(name: &str, players: u32) -> Contest {
        Contest {
            name: name.to_owned(),
            players,
            teams: false,
            definite_winner: true,
            referee: String::new(),
            game: None,
            private_moves: false,
            board: 0,
        }
    }

    #[test]
    fn a_moderator_replaces_removes_and_restores_contests_of_the_shipped_suite() {
        let shipped = [contest("Ghost", 2), contest("Party Chess", 0)];
        let mut suite = Suite::default();
        suite.apply_event(&Event::Added {
            contest: contest("party chess", 2),
        });
        suite.apply_event(&Event::Removed {
            name: "GHOST".into(),
        });
        let now = suite.suite(&shipped);
        assert_eq!(now, [contest("party chess", 2)]);
        suite.apply_event(&Event::Added {
            contest: contest("Ghost", 2),
        });
        assert_eq!(suite.suite(&shipped).len(), 2);
    }

    #[test]
    fn the_configured_contest_replaces_what_a_game_declares_of_itself() {
        let mut chess = contest("party chess", 0);
        chess.referee = "Carol".into();
        let suite = one_each(vec![
            contest("Ghost", 2),
            contest("Party Chess", 2),
            chess.clone(),
        ]);
        assert_eq!(suite, [contest("Ghost", 2), chess]);
    }
}
