//! Unit tests of `[duel]`'s reading of its lines.

use super::Command;
use super::parse::parse;

#[test]
fn a_challenge_names_the_challenger_the_challenged_and_the_reason() {
    assert_eq!(
        parse("Alice challenges Bob because he insulted my proposal"),
        Ok(Command::Challenge {
            challenger: "Alice".to_owned(),
            challenged: "Bob".to_owned(),
            reason: "he insulted my proposal".to_owned(),
        })
    );
}

#[test]
fn an_answer_is_a_contest_or_an_explicit_waiver() {
    assert_eq!(
        parse("accept 2 with Ghost"),
        Ok(Command::Accept {
            number: Some(2),
            contest: Some("Ghost".to_owned()),
            teams: false,
        })
    );
    assert_eq!(
        parse("accept 2 waive"),
        Ok(Command::Accept {
            number: Some(2),
            contest: None,
            teams: false,
        })
    );
    assert_eq!(
        parse("choose 2 Bridge as teams"),
        Ok(Command::Choose {
            number: Some(2),
            contest: "Bridge".to_owned(),
            teams: true,
        })
    );
}

#[test]
fn a_moderator_adds_a_contest_to_the_suite() {
    let Ok(Command::AddContest { contest, reason }) =
        parse("contest add Grab-a-Donkey players any referee Mod because it is a game")
    else {
        panic!("not read");
    };
    assert_eq!(reason, "it is a game");
    assert_eq!(contest.name, "Grab-a-Donkey");
    assert_eq!(contest.players, 0);
    assert_eq!(contest.referee, "Mod");
}

#[test]
fn lines_whose_letters_change_length_in_lower_case_are_read_without_a_panic() {
    for line in [
        "İİİ challenges İ because İİ",
        "accept 1 with İİ as teams",
        "contest add İİİ players 2 teams",
        "choose 1 ẞ as teams",
    ] {
        let _ = parse(line);
    }
}
