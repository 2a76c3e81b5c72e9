//! Reading `[donkey]` lines and G's three winning pairs.

use super::parse::parse;
use super::{Action, Command};

#[test]
fn round_actions_read_as_the_rule_names_them() {
    assert_eq!(parse("cover"), Ok(Command::Act(Action::Cover)));
    assert_eq!(
        parse("Grab Bob"),
        Ok(Command::Act(Action::Grab("Bob".to_owned())))
    );
    assert_eq!(parse("call 2 days"), Ok(Command::Call { days: 2 }));
    assert_eq!(parse("claim wrangler"), Ok(Command::Claim));
    assert!(parse("close round because the list was down").is_ok());
    assert!(parse("grab").is_err());
}

#[test]
fn rock_beats_scissors_beats_paper_beats_rock() {
    assert!(Action::Rock.beats(&Action::Scissors));
    assert!(Action::Scissors.beats(&Action::Paper));
    assert!(Action::Paper.beats(&Action::Rock));
    assert!(!Action::Rock.beats(&Action::Rock));
    assert!(!Action::Scissors.beats(&Action::Rock));
}
