//! What of the suites' headers the Contests by mail follow: the Contests a
//! person referees are bound to rule 1250 (Games & Contests), and Party Chess,
//! with the size of its board, to rule 1230 (Party Chess), each with the text
//! of the Ackanomic page as the baseline (`rules/ackanomic-1209-1250.txt`).
//! The suites' headers have the numbers the page gives them: `[[contests]]`
//! is a list, with no section of its own to renumber them in.

use std::sync::OnceLock;

use super::{Params, Refereed};
use crate::engine::game::{Game, View};
use crate::engine::ruleset::bindings::{self, Declared, Mechanic, Parameter, Status};

/// The head of the Games & Contests Rule Suite.
pub const SUITE_RULE: u32 = 1250;
/// The head of the Party Chess Rule Suite.
pub const PARTY_CHESS_RULE: u32 = 1230;
/// The Contest rule 1230 heads, as the suite names it.
pub const PARTY_CHESS: &str = "Party Chess";
/// "a 20x20 board": the text's size, when `[[contests]]` gives none.
const PARTY_CHESS_BOARD: u32 = 20;

const PAGE: &str = include_str!("../../../rules/ackanomic-1209-1250.txt");

fn text_of(rule: u32, cell: &'static OnceLock<String>) -> &'static str {
    cell.get_or_init(|| crate::engine::ruleset::rule_text(PAGE, rule).unwrap_or_default())
}

/// Rules 1250/0 and 1230/1 as the page gives them: the baselines.
pub fn baseline(rule: u32) -> &'static str {
    static SUITE: OnceLock<String> = OnceLock::new();
    static CHESS: OnceLock<String> = OnceLock::new();
    if rule == PARTY_CHESS_RULE {
        text_of(PARTY_CHESS_RULE, &CHESS)
    } else {
        text_of(SUITE_RULE, &SUITE)
    }
}

/// Party Chess's board as `[[contests]]` ships it (the text's 20 without it).
fn shipped_board(params: &Params) -> u32 {
    params
        .contests
        .iter()
        .find(|c| c.name.eq_ignore_ascii_case(PARTY_CHESS) && c.board > 0)
        .map_or(PARTY_CHESS_BOARD, |c| c.board)
}

/// Every mechanic of the game with its rule (`Game::bindings`).
pub fn declared(params: &Params) -> Declared {
    Declared {
        game: <Refereed as Game>::NAME,
        mechanics: vec![
            Mechanic {
                name: "Contests refereed by a person, played by mail",
                rule: SUITE_RULE,
                parameters: Vec::new(),
            },
            Mechanic {
                name: "the Party Chess board",
                rule: PARTY_CHESS_RULE,
                parameters: vec![Parameter {
                    name: "board",
                    words: "played on a 20x20 board",
                    value: i64::from(shipped_board(params)),
                }],
            },
        ],
        baseline: vec![
            (PARTY_CHESS_RULE, baseline(PARTY_CHESS_RULE)),
            (SUITE_RULE, baseline(SUITE_RULE)),
        ],
        text: "ackanomic",
    }
}

/// One rule of the two as it stands in the registry.
pub struct Bound {
    binding: bindings::Binding,
}

impl Bound {
    pub fn of(view: &View<'_>, params: &Params, rule: u32) -> Bound {
        let binding = bindings::decide(
            view.ruleset,
            &declared(params),
            rule,
            view.ruleset.binding(<Refereed as Game>::NAME, rule),
            view.baseline_when_unrecorded,
            view.bound,
        );
        Bound { binding }
    }

    /// Why nothing of the rule is done now, if so: repealed, held, off.
    pub fn stopped(&self) -> Option<String> {
        match &self.binding.status {
            Status::Follows => None,
            Status::Stopped { why } => Some(why.clone()),
            Status::Held { .. } => Some("held for a moderator's ruling".to_owned()),
            Status::Off { reason } => Some(format!("switched off: {reason}")),
        }
    }

    /// Party Chess's board when rule 1230's size was changed since the text
    /// (a moderator's `binding 1230 set board N`); otherwise the suite's.
    pub fn board(&self) -> Option<u32> {
        self.binding
            .values
            .iter()
            .find(|(name, _)| name == "board")
            .and_then(|(_, value)| u32::try_from(*value).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_party_chess_board_stands_in_the_words_of_rule_1230() {
        let params = Params::default();
        let text = baseline(PARTY_CHESS_RULE);
        assert!(text.contains("Party Chess Rule Suite"), "{text}");
        assert!(baseline(SUITE_RULE).contains("Games & Contests"));
        let all = declared(&params);
        let parameters = all.parameters_of(PARTY_CHESS_RULE);
        for parameter in &parameters {
            assert!(text.contains(parameter.words), "{}", parameter.name);
        }
        // "20x20" is one word to the registry, not a number in place: a new
        // size holds Party Chess until a moderator rules on it.
        let amended = text.replacen("20x20", "24x24", 1);
        assert!(bindings::numbers_changed(text, &amended, &parameters).is_err());
    }
}
