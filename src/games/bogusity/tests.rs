//! Unit tests of `[bogusity]`, played on `games::table::Table` through the router
//! and the deadline driver, as the pipeline plays it.

use std::sync::Arc;

use jiff::SignedDuration;
use minijinja::{Environment, UndefinedBehavior};
use num_rational::BigRational;

use super::parse::{parse, parse_message};
use super::*;
use crate::engine::accounts::{self, Currency, Exactness, Holder};
use crate::engine::calendar::Calendar;
use crate::engine::game::{NoWords, Officers};
use crate::engine::{Status, players};
use crate::games::table::Table;
use crate::games::{GameParams, World};

const MODERATOR: &str = "mod@x.org";
const ALICE: &str = "alice@x.org";
const BOB: &str = "bob@x.org";
const CAROL: &str = "carol@x.org";
const DAVE: &str = "dave@x.org";

fn t0() -> Timestamp {
    "2026-03-02T09:00:00Z".parse().unwrap()
}

fn hours(n: i64) -> Timestamp {
    t0().checked_add(SignedDuration::from_hours(n)).unwrap()
}

fn world() -> World {
    let mut world = World::default();
    Arc::make_mut(&mut world.shared.accounts).currencies =
        vec![Currency::new("points", &["point"], Exactness::Integer)];
    world
}

/// Alice, Bob, Carol and Dave have joined; `mod@x.org` is a moderator.
fn table_with(params: Params) -> Table {
    let params = crate::games::Params::new(
        players::Params::default(),
        Officers {
            moderators: vec![Address::new(MODERATOR)],
            ..Officers::default()
        },
        Calendar::default(),
        Arc::new(NoWords),
        GameParams {
            bogusity: params,
            ..GameParams::default()
        },
    );
    let mut table = Table::new(world(), params);
    for name in ["Alice", "Bob", "Carol", "Dave"] {
        let from = format!("{}@x.org", name.to_lowercase());
        table.send(t0(), &from, true, "nomic", &format!("join {name}"));
    }
    table
}

fn table() -> Table {
    table_with(Params::default())
}

/// One line under `[bogusity]`: the sentence code, `Ok` when done.
fn run(table: &mut Table, at: Timestamp, from: &str, line: &str) -> Result<String, String> {
    table.send(at, from, true, TAG, line);
    let report = &table.last[0];
    match report.status {
        Status::Done => Ok(report.sentence.code.clone()),
        _ => Err(report.sentence.code.clone()),
    }
}

/// Alice's description 1, posted at t0 + 1 h; Bob's hearing on it, called at t0 + 2 h.
fn heard() -> Table {
    let mut table = table();
    run(
        &mut table,
        hours(1),
        ALICE,
        "describe An ancient relic: a golden donkey",
    )
    .unwrap();
    run(&mut table, hours(2), BOB, "call 1").unwrap();
    table
}

fn state(table: &Table) -> Arc<Descriptions> {
    table.state::<Bogusity>()
}

fn points(table: &Table, id: PlayerId) -> BigRational {
    table.world.accounts.balance(Holder::Player(id), "points")
}

fn transfers(table: &Table) -> Vec<&accounts::Event> {
    table
        .events
        .iter()
        .filter_map(|(_, _, event)| match event {
            crate::games::Event::Accounts(event @ accounts::Event::Transferred { .. }) => {
                Some(event)
            }
            _ => None,
        })
        .collect()
}

fn templates(mail: &[Mail]) -> Vec<&str> {
    mail.iter().map(|m| m.template.as_str()).collect()
}

#[test]
fn parse_forms() {
    assert_eq!(
        parse("describe An ancient  relic: a golden donkey"),
        Ok(Command::Describe {
            boon: "An ancient relic".into(),
            text: "a golden donkey".into()
        })
    );
    for line in [
        "call 3",
        "call #3",
        "Call hearing 3",
        "call a Bogusity Hearing on 3",
    ] {
        assert_eq!(parse(line), Ok(Command::Call { number: 3 }), "{line}");
    }
    let respond = |number, response, written: &str| {
        Ok(Command::Respond {
            number,
            response,
            written: written.into(),
        })
    };
    assert_eq!(
        parse("This loophole surfer is totally Bogus"),
        respond(
            None,
            Response::Bogus,
            "This loophole surfer is totally Bogus"
        )
    );
    assert_eq!(
        parse("2: Thats a pretty cool idea"),
        respond(Some(2), Response::CoolIdea, "Thats a pretty cool idea")
    );
    assert_eq!(
        parse("vote #2 \"That's a pretty cool idea!\""),
        respond(
            Some(2),
            Response::CoolIdea,
            "\"That's a pretty cool idea!\""
        )
    );
    assert_eq!(
        parse("close 1 because the Boon was never bestowed"),
        Ok(Command::Close {
            number: 1,
            reason: "the Boon was never bestowed".into()
        })
    );
    assert_eq!(parse("status"), Ok(Command::Status));
    for (line, code) in [
        ("describe a golden donkey", "usage"),
        ("describe : a golden donkey", "usage"),
        ("call", "usage"),
        ("call the police on 3", "usage"),
        ("close 1", "usage"),
        ("close 1 because ", "usage"),
        ("yes", "unknown_command"),
        ("2 this loophole surfer is bogus", "unknown_command"),
        ("", "unknown_command"),
    ] {
        assert_eq!(
            parse(line).map_err(|e| e.0.code),
            Err(code.to_owned()),
            "{line:?}"
        );
    }
    assert_eq!(hearing_of_deadline("bogusity:7"), Some(7));
    assert_eq!(hearing_of_deadline("bogusity:7:x"), None);
    assert_eq!(hearing_of_deadline("vote:7"), None);
}

#[test]
fn a_description_on_the_lines_below_runs_to_end_and_keeps_its_paragraphs() {
    let lines: Vec<String> = [
        "describe Ancient knowledge:",
        "A Blueprint for a teapot.",
        "",
        "It pours.",
        "end",
        "status",
    ]
    .iter()
    .map(|l| l.to_string())
    .collect();
    let read = parse_message(&lines);
    assert_eq!(read.len(), 2);
    assert_eq!(read[0].0, "describe Ancient knowledge:");
    assert_eq!(
        read[0].1,
        Ok(Command::Describe {
            boon: "Ancient knowledge".into(),
            text: "A Blueprint for a teapot.\n\nIt pours.".into()
        })
    );
    assert_eq!(read[1].1, Ok(Command::Status));
    // Through the router, from a message.
    let mut table = table();
    let outcome = table.message(
        hours(1),
        ALICE,
        true,
        TAG,
        &lines.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    assert_eq!(outcome.report.len(), 2);
    assert_eq!(
        state(&table).descriptions[0].text,
        "A Blueprint for a teapot.\n\nIt pours."
    );
}

#[test]
fn a_description_is_numbered_recorded_and_announced() {
    let mut table = table();
    assert_eq!(
        run(&mut table, hours(1), ALICE, "describe An ancient relic:"),
        Err("bogusity_no_text".into())
    );
    let mark = table.mail.len();
    assert_eq!(
        run(
            &mut table,
            hours(1),
            ALICE,
            "describe An ancient relic: a golden donkey"
        ),
        Ok("bogusity_described".into())
    );
    run(&mut table, hours(2), BOB, "describe Ancient wisdom: a card").unwrap();
    let descriptions = &state(&table).descriptions;
    assert_eq!(descriptions.len(), 2);
    assert_eq!(descriptions[0].number, 1);
    assert_eq!(descriptions[0].describer_name, "Alice");
    assert_eq!(descriptions[0].posted_at, hours(1));
    assert_eq!(descriptions[0].call_until, hours(1 + 72));
    assert_eq!(descriptions[1].number, 2);
    let mail = table.mail_since(mark);
    assert_eq!(
        templates(mail),
        ["bogusity_described", "bogusity_described"]
    );
    assert_eq!(mail[0].to, Audience::List);
    assert_eq!(
        run(&mut table, hours(2), "stranger@x.org", "describe X: y"),
        Err("not_a_player".into())
    );
}

#[test]
fn any_player_may_call_a_hearing_within_three_days_and_only_one_per_boon() {
    let mut table = table();
    run(
        &mut table,
        hours(1),
        ALICE,
        "describe An ancient relic: a golden donkey",
    )
    .unwrap();
    run(
        &mut table,
        hours(1),
        ALICE,
        "describe Ancient wisdom: a card",
    )
    .unwrap();
    assert_eq!(
        run(&mut table, hours(2), "stranger@x.org", "call 1"),
        Err("not_a_player".into())
    );
    assert_eq!(
        run(&mut table, hours(2), BOB, "call 9"),
        Err("bogusity_no_such_description".into())
    );
    // Three days after the posting, to the second, is late.
    assert_eq!(
        run(&mut table, hours(73), BOB, "call 2"),
        Err("bogusity_call_late".into())
    );
    let mark = table.mail.len();
    assert_eq!(
        run(
            &mut table,
            hours(73) - SignedDuration::from_secs(1),
            BOB,
            "call 1"
        ),
        Ok("bogusity_called".into())
    );
    assert_eq!(templates(table.mail_since(mark)), ["bogusity_called"]);
    let entry = table
        .world
        .schedule
        .get("bogusity:1")
        .expect("the hearing's deadline");
    assert_eq!(entry.deadline.owner, "bogusity");
    assert_eq!(
        entry.deadline.at,
        hours(73 + 72) - SignedDuration::from_secs(1)
    );
    assert_eq!(
        run(
            &mut table,
            hours(73) - SignedDuration::from_secs(1),
            CAROL,
            "call 1"
        ),
        Err("bogusity_already_called".into())
    );
    // Still refused once the hearing is over.
    table.run_until(hours(200));
    assert_eq!(
        run(&mut table, hours(200), CAROL, "call 1"),
        Err("bogusity_call_late".into())
    );
    let hearing = state(&table).descriptions[0].hearing.clone().unwrap();
    assert_eq!(hearing.called_by_name, "Bob");
}

#[test]
fn the_describer_may_not_vote_and_only_the_valid_responses_count() {
    let mut table = heard();
    assert_eq!(
        run(&mut table, hours(3), ALICE, "Thats a pretty cool idea"),
        Err("bogusity_describer_may_not_vote".into())
    );
    for variant in [
        "That's a pretty cool idea",
        "thats a pretty cool idea",
        "This loophole surfer is totally bogus.",
        "Thats  a pretty cool idea",
    ] {
        assert_eq!(
            run(&mut table, hours(3), BOB, variant),
            Err("bogusity_not_valid".into()),
            "{variant}"
        );
    }
    assert_eq!(
        run(&mut table, hours(3), BOB, "yes"),
        Err("unknown_command".into())
    );
    assert_eq!(
        run(
            &mut table,
            hours(3),
            BOB,
            "\"This loophole surfer is totally Bogus\""
        ),
        Ok("bogusity_responded".into())
    );
    assert_eq!(
        run(
            &mut table,
            hours(3),
            CAROL,
            "1 \u{201c}Thats a pretty cool idea\u{201d}"
        ),
        Ok("bogusity_responded".into())
    );
    let hearing = state(&table).descriptions[0].hearing.clone().unwrap();
    let given: Vec<(&str, Response)> = hearing
        .responses
        .iter()
        .map(|g| (g.name.as_str(), g.response))
        .collect();
    assert_eq!(
        given,
        [("Bob", Response::Bogus), ("Carol", Response::CoolIdea)]
    );
}

#[test]
fn loose_responses_accept_any_case_punctuation_and_spacing() {
    let mut table = table_with(Params {
        loose_responses: true,
        ..Params::default()
    });
    run(
        &mut table,
        hours(1),
        ALICE,
        "describe An ancient relic: a golden donkey",
    )
    .unwrap();
    run(&mut table, hours(2), BOB, "call 1").unwrap();
    assert_eq!(
        run(&mut table, hours(3), BOB, "that's a pretty cool idea!"),
        Ok("bogusity_responded".into())
    );
    assert_eq!(
        run(
            &mut table,
            hours(3),
            CAROL,
            "THIS loophole surfer is totally bogus."
        ),
        Ok("bogusity_responded".into())
    );
    // The rule's words are recorded, whatever the spelling.
    assert_eq!(
        table.last[0].sentence.args["response"],
        "This loophole surfer is totally Bogus"
    );
}

#[test]
fn a_bogus_result_at_the_deadline_costs_the_describer_11_points_once() {
    let mut table = heard();
    run(&mut table, hours(3), BOB, "Thats a pretty cool idea").unwrap();
    run(
        &mut table,
        hours(4),
        CAROL,
        "This loophole surfer is totally Bogus",
    )
    .unwrap();
    run(
        &mut table,
        hours(5),
        DAVE,
        "This loophole surfer is totally Bogus",
    )
    .unwrap();
    // Bob changes his mind: only his last response counts.
    run(
        &mut table,
        hours(6),
        BOB,
        "This loophole surfer is totally Bogus",
    )
    .unwrap();
    assert_eq!(table.last[0].sentence.args["changed"], true);
    let mark = table.mail.len();
    // Just before the deadline nothing happened; a response at it is late.
    table.run_until(hours(2 + 72) - SignedDuration::from_secs(1));
    assert!(table.mail_since(mark).is_empty());
    assert_eq!(
        run(&mut table, hours(2 + 72), DAVE, "Thats a pretty cool idea"),
        Err("bogusity_hearing_closed".into())
    );
    assert_eq!(templates(table.mail_since(mark)), ["bogusity_result"]);
    let finding = state(&table).descriptions[0]
        .hearing
        .clone()
        .unwrap()
        .finding
        .unwrap();
    assert_eq!(
        (finding.bogus, finding.cool, finding.found_bogus),
        (3, 0, true)
    );
    assert_eq!(points(&table, 1), BigRational::from_integer((-11).into()));
    assert_eq!(transfers(&table).len(), 1);
    let at = table
        .events
        .iter()
        .find(|(_, _, e)| matches!(e, crate::games::Event::Accounts(_)))
        .map(|(at, _, _)| *at);
    assert_eq!(at, Some(hours(2 + 72)), "charged in the deadline's step");
    // Nothing fires twice.
    table.run_until(hours(1000));
    assert_eq!(transfers(&table).len(), 1);
    assert_eq!(templates(table.mail_since(mark)), ["bogusity_result"]);
    assert!(table.world.schedule.entries.is_empty());
}

#[test]
fn a_tie_or_no_response_is_not_bogus_and_costs_nothing() {
    let mut table = heard();
    run(&mut table, hours(3), BOB, "Thats a pretty cool idea").unwrap();
    run(
        &mut table,
        hours(4),
        CAROL,
        "This loophole surfer is totally Bogus",
    )
    .unwrap();
    table.run_until(hours(100));
    let finding = state(&table).descriptions[0]
        .hearing
        .clone()
        .unwrap()
        .finding
        .unwrap();
    assert_eq!(
        (finding.bogus, finding.cool, finding.found_bogus),
        (1, 1, false)
    );
    run(
        &mut table,
        hours(100),
        CAROL,
        "describe Ancient wisdom: a card",
    )
    .unwrap();
    run(&mut table, hours(101), BOB, "call 2").unwrap();
    table.run_until(hours(300));
    let finding = state(&table).descriptions[1]
        .hearing
        .clone()
        .unwrap()
        .finding
        .unwrap();
    assert_eq!(
        (finding.bogus, finding.cool, finding.found_bogus),
        (0, 0, false)
    );
    assert!(transfers(&table).is_empty());
}

#[test]
fn a_moderator_may_close_a_hearing_early_with_a_reason() {
    let mut table = heard();
    run(
        &mut table,
        hours(3),
        BOB,
        "This loophole surfer is totally Bogus",
    )
    .unwrap();
    assert_eq!(
        run(&mut table, hours(4), CAROL, "close 1 because I am bored"),
        Err("moderators_only".into())
    );
    assert_eq!(
        run(&mut table, hours(4), MODERATOR, "close 2 because x"),
        Err("bogusity_no_such_description".into())
    );
    let mark = table.mail.len();
    assert_eq!(
        run(
            &mut table,
            hours(4),
            MODERATOR,
            "close 1 because the relic was never bestowed"
        ),
        Ok("bogusity_closed".into())
    );
    assert_eq!(templates(table.mail_since(mark)), ["bogusity_result"]);
    let finding = state(&table).descriptions[0]
        .hearing
        .clone()
        .unwrap()
        .finding
        .unwrap();
    assert_eq!(finding.closed_by, Some(Address::new(MODERATOR)));
    assert_eq!(
        finding.reason.as_deref(),
        Some("the relic was never bestowed")
    );
    assert!(finding.found_bogus);
    assert_eq!(points(&table, 1), BigRational::from_integer((-11).into()));
    assert!(
        table.world.schedule.get("bogusity:1").is_none(),
        "the deadline is cancelled"
    );
    assert_eq!(
        run(&mut table, hours(5), MODERATOR, "close 1 because again"),
        Err("bogusity_already_closed".into())
    );
    assert_eq!(
        run(&mut table, hours(5), DAVE, "Thats a pretty cool idea"),
        Err("bogusity_hearing_closed".into())
    );
    table.run_until(hours(1000));
    assert_eq!(transfers(&table).len(), 1);
    assert_eq!(templates(table.mail_since(mark)), ["bogusity_result"]);
}

#[test]
fn a_response_without_a_number_needs_exactly_one_open_hearing() {
    let mut table = table();
    assert_eq!(
        run(&mut table, hours(1), BOB, "Thats a pretty cool idea"),
        Err("bogusity_none_open".into())
    );
    run(
        &mut table,
        hours(1),
        ALICE,
        "describe An ancient relic: a golden donkey",
    )
    .unwrap();
    run(&mut table, hours(1), BOB, "describe Ancient wisdom: a card").unwrap();
    assert_eq!(
        run(&mut table, hours(2), CAROL, "1 Thats a pretty cool idea"),
        Err("bogusity_no_hearing".into())
    );
    run(&mut table, hours(2), CAROL, "call 1").unwrap();
    run(&mut table, hours(2), CAROL, "call 2").unwrap();
    assert_eq!(
        run(&mut table, hours(3), DAVE, "Thats a pretty cool idea"),
        Err("bogusity_which".into())
    );
    assert_eq!(
        run(&mut table, hours(3), DAVE, "2 Thats a pretty cool idea"),
        Ok("bogusity_responded".into())
    );
    assert_eq!(
        run(&mut table, hours(3), DAVE, "status"),
        Ok("bogusity_status".into())
    );
    let listed = &table.last[0].sentence.args["descriptions"];
    assert_eq!(listed[1]["stage"], "hearing");
    assert_eq!(listed[1]["cool"], 1);
}

#[test]
fn the_state_is_the_fold_of_its_events() {
    let mut table = heard();
    run(
        &mut table,
        hours(3),
        CAROL,
        "This loophole surfer is totally Bogus",
    )
    .unwrap();
    table.run_until(hours(100));
    run(
        &mut table,
        hours(100),
        BOB,
        "describe Ancient wisdom: a card",
    )
    .unwrap();
    let records: Vec<(Timestamp, &str, &crate::games::Event)> = table
        .events
        .iter()
        .map(|(at, cause, event)| (*at, cause.as_str(), event))
        .collect();
    assert_eq!(crate::games::fold(world(), &records), table.world);
}

#[test]
fn a_penalty_the_accounts_refuse_is_reported_and_a_zero_penalty_is_none() {
    let unknown_currency = Params {
        currency: "zorkmids".into(),
        ..Params::default()
    };
    let no_penalty = Params {
        bogus_penalty: 0,
        ..Params::default()
    };
    for (params, refused) in [(unknown_currency, true), (no_penalty, false)] {
        let mut table = table_with(params);
        run(
            &mut table,
            hours(1),
            ALICE,
            "describe An ancient relic: a golden donkey",
        )
        .unwrap();
        run(&mut table, hours(2), BOB, "call 1").unwrap();
        run(
            &mut table,
            hours(3),
            BOB,
            "This loophole surfer is totally Bogus",
        )
        .unwrap();
        let mark = table.mail.len();
        table.run_until(hours(100));
        assert!(transfers(&table).is_empty());
        let result = &table.mail_since(mark)[0];
        assert_eq!(result.values["found_bogus"], true);
        assert_eq!(result.values["charged"], false);
        assert_eq!(result.values["penalty_error"].is_string(), refused);
        let text = render(result);
        assert_eq!(text.contains("a moderator must adjust"), refused, "{text}");
    }
}

/// Renders a mail of this game with the shipped template, strictly.
fn render(mail: &Mail) -> String {
    let source = match mail.template.as_str() {
        "bogusity_described" => include_str!("../../../templates/bogusity_described.txt"),
        "bogusity_called" => include_str!("../../../templates/bogusity_called.txt"),
        "bogusity_result" => include_str!("../../../templates/bogusity_result.txt"),
        other => panic!("no template {other}"),
    };
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.add_template("t", source).unwrap();
    let text = env
        .get_template("t")
        .unwrap()
        .render(minijinja::Value::from(minijinja::value::Serde(
            &mail.values,
        )))
        .unwrap_or_else(|e| panic!("{}: {e:#}", mail.template));
    assert!(text.starts_with("Subject: "), "{text}");
    text
}

#[test]
fn every_announcement_renders_with_the_values_the_game_sends() {
    let mut table = heard();
    run(
        &mut table,
        hours(3),
        BOB,
        "This loophole surfer is totally Bogus",
    )
    .unwrap();
    table.run_until(hours(100));
    let texts: Vec<String> = table
        .mail
        .iter()
        .filter(|m| m.tag == TAG)
        .map(render)
        .collect();
    assert_eq!(texts.len(), 3);
    assert!(
        texts[0].contains("a golden donkey") && texts[0].contains("call 1"),
        "{}",
        texts[0]
    );
    assert!(
        texts[1].contains("Thats a pretty cool idea") && texts[1].contains("loses 11 points"),
        "{}",
        texts[1]
    );
    assert!(
        texts[2].contains("found to be Bogus") && texts[2].contains("now -11 points"),
        "{}",
        texts[2]
    );
    assert!(
        texts[2].contains("Bob: This loophole surfer is totally Bogus"),
        "{}",
        texts[2]
    );
}

#[test]
fn every_sentence_has_a_wording() {
    let mut sentences = Vec::new();
    let mut keep = |table: &Table| sentences.push(table.last[0].sentence.clone());
    let mut table = table();
    for (at, from, line) in [
        (1, BOB, "Thats a pretty cool idea"),
        (1, ALICE, "describe An ancient relic:"),
        (1, ALICE, "describe An ancient relic: a golden donkey"),
        (1, BOB, "describe Ancient wisdom: a card"),
        (1, BOB, "call 9"),
        (2, BOB, "1 Thats a pretty cool idea"),
        (2, BOB, "call 1"),
        (2, CAROL, "call 2"),
        (2, CAROL, "call 1"),
        (3, ALICE, "1 Thats a pretty cool idea"),
        (3, DAVE, "Thats a pretty cool idea"),
        (3, DAVE, "1 thats a pretty cool idea"),
        (3, DAVE, "1 Thats a pretty cool idea"),
        (3, DAVE, "1 This loophole surfer is totally Bogus"),
        (3, DAVE, "status"),
        (4, MODERATOR, "close 1 because enough"),
        (4, MODERATOR, "close 1 because enough"),
        (100, DAVE, "2 Thats a pretty cool idea"),
        (100, DAVE, "call 2"),
    ] {
        table.send(hours(at), from, true, TAG, line);
        keep(&table);
    }
    sentences.push(Sentence::new("bogusity_out_of_range").arg("days", 3));
    // Rule 1211 held or out of effect (tests/rules_change.rs plays them).
    sentences.push(Sentence::new("bogusity_rule_held").arg("rule", 1211));
    sentences.push(
        Sentence::new("bogusity_rule_ended")
            .arg("rule", 1211)
            .arg("why", "repealed"),
    );
    let codes: Vec<&str> = sentences.iter().map(|s| s.code.as_str()).collect();
    let wordings = include_str!("../../../templates/sentences/bogusity.txt");
    for line in wordings.lines() {
        if let Some(code) = line
            .trim()
            .strip_prefix("{%- elif s.code == \"")
            .and_then(|rest| rest.split_once('"'))
            .map(|(code, _)| code)
        {
            assert!(codes.contains(&code), "{code} not exercised: {codes:?}");
        }
    }
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.add_template("sentences/bogusity.txt", wordings)
        .unwrap();
    env.add_template(
        "t",
        "{% import \"sentences/bogusity.txt\" as bogusity %}{{ bogusity.sentence(s) }}",
    )
    .unwrap();
    for sentence in sentences.iter().filter(|s| s.code.starts_with("bogusity_")) {
        let text = env
            .get_template("t")
            .unwrap()
            .render(minijinja::context! { s => minijinja::Value::from(minijinja::value::Serde(sentence)) })
            .unwrap_or_else(|e| panic!("{}: {e:#}", sentence.code));
        assert!(!text.contains("[no wording"), "{text}");
        assert!(!text.trim().is_empty(), "{}", sentence.code);
    }
}

mod rules_change;
