//! Unit tests of `[ping]`: its parser, and a long term played on
//! `games::table::Table` through the router and the deadline driver, whose every
//! public mail is scanned for the truth's words. The scenarios of each section,
//! through the real pipeline, are in `tests/it/ping.rs`.

use std::sync::Arc;

use jiff::SignedDuration;

use super::parse::{is_claim, parse};
use super::*;
use crate::engine::accounts::{Currency, Exactness};
use crate::engine::calendar::Calendar;
use crate::engine::dictionary::Lexicon;
use crate::engine::game::Officers;
use crate::engine::{Address, Audience, Mail, Status, players};
use crate::games::table::Table;
use crate::games::{GameParams, World};

mod rules_change;

const MODERATOR: &str = "mod@x.org";
const ALICE: &str = "alice@x.org";
const BOB: &str = "bob@x.org";
const CAROL: &str = "carol@x.org";
const DAVE: &str = "dave@x.org";

/// A small official dictionary.
#[derive(Debug)]
struct Words;

impl Lexicon for Words {
    fn is_word(&self, word: &str) -> bool {
        [
            "is", "a", "the", "day", "odd", "even", "month", "of", "week",
        ]
        .contains(&word.to_lowercase().as_str())
    }
    fn is_inside_a_word(&self, _: &str) -> bool {
        false
    }
}

fn t0() -> Timestamp {
    "2026-03-02T09:00:00Z".parse().unwrap()
}

fn minutes(n: i64) -> Timestamp {
    t0() + SignedDuration::from_mins(n)
}

fn table() -> Table {
    let mut world = World::default();
    Arc::make_mut(&mut world.shared.accounts).currencies =
        vec![Currency::new("A$", &["a$"], Exactness::Integer)];
    let params = crate::games::Params::new(
        players::Params::default(),
        Officers {
            moderators: vec![Address::new(MODERATOR)],
            ..Officers::default()
        },
        Calendar::default(),
        Arc::new(Words),
        GameParams::default(),
    );
    let mut table = Table::new(world, params);
    for name in ["Alice", "Bob", "Carol", "Dave"] {
        let from = format!("{}@x.org", name.to_lowercase());
        table.send(t0(), &from, true, "nomic", &format!("join {name}"));
    }
    table
}

fn run(
    table: &mut Table,
    at: Timestamp,
    from: &str,
    public: bool,
    line: &str,
) -> Result<String, String> {
    table.send(at, from, public, TAG, line);
    let report = &table.last[0];
    match report.status {
        Status::Done => Ok(report.sentence.code.clone()),
        _ => Err(report.sentence.code.clone()),
    }
}

#[test]
fn parse_forms() {
    assert_eq!(
        parse("place Alice because it begins"),
        Ok(Command::Place {
            name: "Alice".into(),
            because: "it begins".into()
        })
    );
    assert_eq!(parse("pinged today"), Ok(Command::Pinged { on: None }));
    assert_eq!(
        parse("pinged on 2026-03-04"),
        Ok(Command::Pinged {
            on: Some(jiff::civil::date(2026, 3, 4))
        })
    );
    assert_eq!(parse("magic letter E"), Ok(Command::Magic { letter: 'e' }));
    assert_eq!(parse("magic 'q'"), Ok(Command::Magic { letter: 'q' }));
    assert!(parse("magic letter ee").is_err());
    assert_eq!(parse("Remove the Scholar"), Ok(Command::Remove));
    assert_eq!(
        parse("IF AND ONLY IF today is odd, THEN the Machine That Goes *ping* shall go *ping*."),
        Ok(Command::Truth {
            text: "IF AND ONLY IF today is odd, THEN the Machine That Goes *ping* shall go *ping*."
                .into()
        })
    );
    assert!(matches!(parse("flurble"), Err(NotUnderstood(s)) if s.code == "unknown_command"));
}

#[test]
fn section_ix_the_claim_is_the_rules_words_weighter_included() {
    let claim = Params::default().weightier_claim;
    assert!(is_claim(
        "I have weighter matters to research, such as the shape of the Earth",
        &claim
    ));
    assert!(is_claim(
        "\"i have WEIGHTER matters to research, such as the shape of the earth.\"",
        &claim
    ));
    assert!(!is_claim(
        "I have weightier matters to research, such as the shape of the Earth",
        &claim
    ));
    assert!(!is_claim("I have weighter matters to research", &claim));
}

/// The check: a long term (truth, form, two weeks of pings, wrong
/// guesses, a Magic Letter, a moderator's `as` of the truth) and no public mail
/// shows the clause's words before the correct guess reveals them.
#[test]
fn the_truth_never_appears_in_public_mail_before_a_reveal() {
    let mut table = table();
    run(
        &mut table,
        minutes(1),
        MODERATOR,
        true,
        "place Alice because it begins",
    )
    .unwrap();
    let clause = "the day of the month is odd";
    assert_eq!(
        run(
            &mut table,
            minutes(2),
            ALICE,
            false,
            &format!("truth {clause}")
        ),
        Ok("ping_truth_accepted".into())
    );
    // A moderator's override of a second truth: refused, and secret all the same.
    let outcome = table.message(
        minutes(3),
        MODERATOR,
        true,
        TAG,
        &["as Alice because a test: truth the day of the week is even"],
    );
    assert!(!outcome.secret.is_empty() || outcome.report[0].status != Status::Done);
    run(&mut table, minutes(4), ALICE, false, "form day is odd").unwrap();
    run(&mut table, minutes(5), BOB, true, "guess the day is even").unwrap();
    run(&mut table, minutes(6), CAROL, true, "guess today is a day").unwrap();
    table.run_until(minutes(14 * 24 * 60));
    run(
        &mut table,
        minutes(14 * 24 * 60),
        DAVE,
        true,
        "magic letter o",
    )
    .unwrap();
    let before_reveal = table.mail.len();
    run(
        &mut table,
        minutes(14 * 24 * 60 + 1),
        DAVE,
        true,
        "guess The day of the month is ODD.",
    )
    .unwrap();
    let secret_words: Vec<&str> = vec!["month", "odd"];
    let public: Vec<&Mail> = table.mail[..before_reveal]
        .iter()
        .filter(|m| m.to == Audience::List)
        .collect();
    assert!(public.len() > 10, "{}", public.len());
    for mail in &public {
        let text = mail.values.to_string().to_lowercase();
        for word in &secret_words {
            assert!(
                !text.contains(word),
                "{word:?} in {}: {text}",
                mail.template
            );
        }
    }
    // The reveal and the move came with the correct guess.
    let after: Vec<&str> = table.mail[before_reveal..]
        .iter()
        .map(|m| m.template.as_str())
        .collect();
    assert!(
        after.contains(&"ping_revealed") && after.contains(&"ping_moved"),
        "{after:?}"
    );
    let state = table.state::<Ping>();
    assert_eq!(
        state.term.as_ref().map(|t| t.scholar_name.as_str()),
        Some("Dave")
    );
    assert_eq!(state.uttered.len(), 1);
}

#[test]
fn the_public_state_blanks_the_truth_and_its_form() {
    let mut table = table();
    run(
        &mut table,
        minutes(1),
        MODERATOR,
        true,
        "place Alice because it begins",
    )
    .unwrap();
    run(&mut table, minutes(2), ALICE, false, "truth the day is odd").unwrap();
    run(&mut table, minutes(3), ALICE, false, "form day is odd").unwrap();
    let shown = report::public_state(&table.state::<Ping>()).to_string();
    assert!(
        !shown.contains("the day is odd") && !shown.contains("day is odd"),
        "{shown}"
    );
    let status = run(&mut table, minutes(4), BOB, true, "status");
    assert_eq!(status, Ok("ping_status".into()));
    let args = serde_json::to_string(&table.last[0].sentence.args).unwrap();
    assert!(!args.contains("day is odd"), "{args}");
}
