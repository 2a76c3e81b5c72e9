//! Issue 22: the rules change, and the hearings follow them. Played with
//! Ackanomic rules 1209 to 1250 imported (`rules/ackanomic-1209-1250.txt`), so
//! the moderator, who keeps the rules, amends and repeals the very rule 1211
//! §8 stands in.

use super::*;
use crate::engine::Audience;
use crate::games::bogusity::bound;

/// Rule 1211/3's text with `from` written `to` (every time it appears).
fn rule_1211_with(from: &str, to: &str) -> String {
    let text = bound::baseline();
    assert!(text.contains(from), "{from}");
    text.replace(from, to)
}

/// The Ackanomic page imported at t0 − 10 min, Alice to Dave seated, the
/// moderator keeping the rules.
fn acka() -> Table {
    let params = crate::games::Params::new(
        players::Params::default(),
        Officers {
            moderators: vec![Address::new(MODERATOR)],
            rules: vec![Address::new(MODERATOR)],
            ..Officers::default()
        },
        Calendar::default(),
        Arc::new(NoWords),
        GameParams::default(),
    );
    let mut table = Table::new(world(), params);
    let at = t0() - SignedDuration::from_mins(10);
    let rules = crate::engine::ruleset::parse_ruleset(bound::page()).unwrap();
    let done = table.world.ruleset.import(rules, at).unwrap();
    let events: Vec<_> = done
        .events
        .into_iter()
        .map(crate::games::Event::Ruleset)
        .collect();
    table.record(at, &events);
    assert!(table.world.ruleset.exists(1211));
    for name in ["Alice", "Bob", "Carol", "Dave"] {
        let from = format!("{}@x.org", name.to_lowercase());
        table.send(t0(), &from, true, "nomic", &format!("join {name}"));
    }
    table
}

/// Alice's description 1 at t0 + 1 h, Bob's hearing on it at t0 + 2 h (it
/// closes at t0 + 74 h), Carol finds it Bogus at t0 + 3 h.
fn heard_on_the_page() -> Table {
    let mut table = acka();
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
        CAROL,
        "This loophole surfer is totally Bogus",
    )
    .unwrap();
    table
}

/// The moderator amends rule 1211 to `text` at `at`.
fn amend(table: &mut Table, at: Timestamp, text: &str) {
    let mut lines = vec!["amend 1211"];
    lines.extend(text.lines().filter(|l| !l.trim().is_empty()));
    lines.push("end");
    let _ = table.message(at, MODERATOR, true, "ruleset", &lines);
    assert_eq!(table.last[0].status, Status::Done, "{:?}", table.last);
}

fn mail_of<'a>(table: &'a Table, from: usize, template: &str) -> &'a Mail {
    table.mail[from..]
        .iter()
        .find(|m| m.template == template)
        .unwrap_or_else(|| panic!("no {template} in {:?}", templates(&table.mail[from..])))
}

fn change_of(table: &Table, from: usize) -> serde_json::Value {
    mail_of(table, from, "bindings_changed").values["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["game"] == "bogusity")
        .cloned()
        .expect("the hearings' binding changed")
}

/// Replay from the log gives the registry (the bindings included) and the
/// game as they are.
fn assert_replays(table: &Table) {
    let records: Vec<(Timestamp, &str, &crate::games::Event)> = table
        .events
        .iter()
        .map(|(at, cause, event)| (*at, cause.as_str(), event))
        .collect();
    let replayed = crate::games::fold(world(), &records);
    assert_eq!(replayed.ruleset, table.world.ruleset);
    assert_eq!(replayed.games.bogusity, table.world.games.bogusity);
    assert_eq!(replayed.accounts, table.world.accounts);
}

/// Renders the mail of the change with the shipped templates, strictly.
fn render_every_change_mail(table: &Table) {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    for mail in &table.mail {
        let source = match mail.template.as_str() {
            "bindings_changed" => include_str!("../../../../templates/bindings_changed.txt"),
            "bindings_held" => include_str!("../../../../templates/bindings_held.txt"),
            "bogusity_rule_changed" => {
                include_str!("../../../../templates/bogusity_rule_changed.txt")
            }
            _ => continue,
        };
        env.add_template_owned(mail.template.clone(), source.to_owned())
            .unwrap();
        let text = env
            .get_template(&mail.template)
            .unwrap()
            .render(minijinja::Value::from(minijinja::value::Serde(
                &mail.values,
            )))
            .unwrap_or_else(|e| panic!("{}: {e:#}", mail.template));
        assert!(text.starts_with("Subject: "), "{text}");
    }
}

#[test]
fn rule_1211_repealed_ends_the_hearings_an_open_one_closes_without_a_result() {
    let mut table = heard_on_the_page();
    let mark = table.mail.len();
    let _ = table.message(hours(4), MODERATOR, true, "ruleset", &["repeal 1211"]);
    assert_eq!(table.last[0].status, Status::Done, "{:?}", table.last);
    let change = change_of(&table, mark);
    assert_eq!(
        (change["what"].clone(), change["why"].clone()),
        ("stopped".into(), "repealed".into())
    );
    let ended = mail_of(&table, mark, "bogusity_rule_changed");
    assert_eq!(ended.values["what"], "ended");
    assert_eq!(ended.values["hearings"], serde_json::json!([1]));
    let hearing = state(&table).descriptions[0].hearing.clone().unwrap();
    assert!(hearing.abandoned && hearing.finding.is_none());
    assert_eq!(state(&table).ended.as_deref(), Some("repealed"));
    assert!(table.world.schedule.get("bogusity:1").is_none());
    // Nothing of §8 is applied any more; `status` still answers.
    for (from, line) in [
        (DAVE, "This loophole surfer is totally Bogus"),
        (DAVE, "describe Ancient wisdom: a card"),
        (DAVE, "call 1"),
        (MODERATOR, "close 1 because enough"),
    ] {
        assert_eq!(
            run(&mut table, hours(5), from, line),
            Err("bogusity_rule_ended".into()),
            "{line}"
        );
    }
    assert_eq!(
        run(&mut table, hours(5), DAVE, "status"),
        Ok("bogusity_status".into())
    );
    // No result ever comes, and no one loses points.
    let mark = table.mail.len();
    table.run_until(hours(1000));
    assert!(!templates(&table.mail[mark..]).contains(&"bogusity_result"));
    assert!(transfers(&table).is_empty());
    assert_eq!(points(&table, 1), BigRational::from_integer(0.into()));
    render_every_change_mail(&table);
    assert_replays(&table);
}

#[test]
fn rule_1211_amended_in_a_number_applies_the_new_number_from_then_on() {
    let mut table = heard_on_the_page();
    let mark = table.mail.len();
    amend(
        &mut table,
        hours(4),
        &rule_1211_with("loses 11 points", "loses 15 points"),
    );
    let change = change_of(&table, mark);
    assert_eq!(change["what"], "numbers", "{change}");
    assert_eq!(change["values"][0]["name"], "bogus_penalty");
    assert_eq!(change["values"][0]["now"], 15);
    assert!(!templates(&table.mail[mark..]).contains(&"bindings_held"));
    // The hearing closes at its deadline: Bogus, and Alice loses 15.
    table.run_until(hours(2 + 72));
    let finding = state(&table).descriptions[0]
        .hearing
        .clone()
        .unwrap()
        .finding
        .unwrap();
    assert!(finding.found_bogus);
    assert_eq!(points(&table, 1), BigRational::from_integer((-15).into()));
    let result = mail_of(&table, mark, "bogusity_result");
    assert_eq!(result.values["penalty"], 15, "{:?}", result.values);
    render_every_change_mail(&table);
    assert_replays(&table);
}

#[test]
fn rule_1211_amended_otherwise_holds_the_hearing_until_a_moderator_keeps_it() {
    let mut table = heard_on_the_page();
    let mark = table.mail.len();
    amend(
        &mut table,
        hours(4),
        &rule_1211_with("Any player may call", "Any active player may call"),
    );
    assert_eq!(change_of(&table, mark)["what"], "held");
    // The moderators are asked privately.
    let asked = mail_of(&table, mark, "bindings_held");
    assert_eq!(asked.to, Audience::Address(Address::new(MODERATOR)));
    assert_eq!(
        mail_of(&table, mark, "bogusity_rule_changed").values["what"],
        "held"
    );
    // Nothing is answered, and the hearing's result does not come.
    assert_eq!(
        run(
            &mut table,
            hours(5),
            DAVE,
            "This loophole surfer is totally Bogus"
        ),
        Err("bogusity_rule_held".into())
    );
    table.run_until(hours(100));
    assert!(
        state(&table).descriptions[0]
            .hearing
            .as_ref()
            .unwrap()
            .finding
            .is_none()
    );
    assert!(transfers(&table).is_empty());
    // The moderator keeps the rule: the hearing has the 70 hours it had left.
    let mark = table.mail.len();
    let _ = table.message(
        hours(100),
        MODERATOR,
        true,
        "ruleset",
        &["binding 1211 keep because the same hearing, in other words"],
    );
    assert_eq!(table.last[0].status, Status::Done, "{:?}", table.last);
    assert_eq!(
        mail_of(&table, mark, "bogusity_rule_changed").values["what"],
        "resumed"
    );
    let hearing = state(&table).descriptions[0].hearing.clone().unwrap();
    assert_eq!(hearing.closes_at, hours(100 + 70));
    run(
        &mut table,
        hours(101),
        DAVE,
        "This loophole surfer is totally Bogus",
    )
    .unwrap();
    table.run_until(hours(169));
    assert!(transfers(&table).is_empty());
    table.run_until(hours(171));
    assert_eq!(points(&table, 1), BigRational::from_integer((-11).into()));
    render_every_change_mail(&table);
    assert_replays(&table);
}
