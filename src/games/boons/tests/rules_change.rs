//! Issue 22: the rules change, and the Boons follow them. Played with
//! Ackanomic rules 1209 to 1250 imported (`rules/ackanomic-1209-1250.txt`), so
//! the moderator, who keeps the rules, amends and repeals the very rule 1211
//! the game is bound to.

use super::*;
use num_rational::BigRational;

use crate::engine::Audience;
use crate::games::boons::bound;

/// Rule 1211/3's text with `from` written `to` (every time it appears).
fn rule_1211_with(changes: &[(&str, &str)]) -> String {
    let mut text = bound::baseline().to_owned();
    for (from, to) in changes {
        assert!(text.contains(from), "{from}");
        text = text.replace(from, to);
    }
    text
}

/// The Ackanomic page imported at t0 − 10 min, Alice to Dave seated, the
/// moderator keeping the rules.
fn acka() -> Table {
    let mut world = World::default();
    Arc::make_mut(&mut world.shared.accounts).currencies = vec![
        Currency::new("points", &["point"], Exactness::Integer),
        Currency::new("A$", &["a$"], Exactness::Integer),
    ];
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
    let mut table = Table::new(world, params);
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

/// Replay from the log gives the registry (the bindings included) and both
/// games as they are.
fn assert_replays(table: &Table) {
    let records: Vec<(Timestamp, &str, &crate::games::Event)> = table
        .events
        .iter()
        .map(|(at, cause, event)| (*at, cause.as_str(), event))
        .collect();
    let replayed = crate::games::fold(World::default(), &records);
    assert_eq!(replayed.ruleset, table.world.ruleset);
    assert_eq!(replayed.games.boons, table.world.games.boons);
    assert_eq!(replayed.games.bogusity, table.world.games.bogusity);
    assert_eq!(replayed.inventory, table.world.inventory);
}

/// Renders the mail of the change with the shipped templates, strictly.
fn render_every_change_mail(table: &Table) {
    let mut env = minijinja::Environment::new();
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    for mail in &table.mail {
        let source = match mail.template.as_str() {
            "bindings_changed" => include_str!("../../../../templates/bindings_changed.txt"),
            "bindings_held" => include_str!("../../../../templates/bindings_held.txt"),
            "boons_rule_changed" => include_str!("../../../../templates/boons_rule_changed.txt"),
            "boons_lapsed" => include_str!("../../../../templates/boons_lapsed.txt"),
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
fn rule_1211_repealed_ends_the_boons_those_on_their_way_lapse_and_what_was_created_stays() {
    let mut table = acka();
    // Bob's Boon is created before: a Bonus Vote (c), not Must Describe.
    boons(
        &mut table,
        hours(1),
        MODERATOR,
        "bestow Bob deterministic because a test",
    )
    .unwrap();
    boons(&mut table, hours(1), BOB, "choose c").unwrap();
    assert_eq!(owned(&table, 2).len(), 1);
    // Alice's is on its way when the rule goes.
    chosen_later(&mut table);
    let mark = table.mail.len();
    let _ = table.message(hours(3), MODERATOR, true, "ruleset", &["repeal 1211"]);
    assert_eq!(table.last[0].status, Status::Done, "{:?}", table.last);
    let said = mail_of(&table, mark, "bindings_changed");
    assert!(
        said.values["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["game"] == "boons" && c["what"] == "stopped" && c["why"] == "repealed"),
        "{:?}",
        said.values
    );
    let ended = mail_of(&table, mark, "boons_rule_changed");
    assert_eq!(ended.values["what"], "ended");
    assert_eq!(ended.values["boons"], serde_json::json!([2]));
    assert_eq!(lapses(&table), [Lapse::RuleEnded]);
    assert!(state(&table).pending.is_empty());
    assert_eq!(state(&table).ended.as_deref(), Some("repealed"));
    // What was created stays; nothing of the rule is applied any more.
    assert_eq!(owned(&table, 2).len(), 1);
    assert_eq!(
        boons(
            &mut table,
            hours(4),
            MODERATOR,
            "bestow Carol because a test"
        ),
        Err("boons_rule_ended".into())
    );
    assert_eq!(
        boons(&mut table, hours(4), ALICE, "choose c"),
        Err("boons_rule_ended".into())
    );
    assert_eq!(
        boons(&mut table, hours(4), ALICE, "status"),
        Ok("boons_status".into())
    );
    let mark = table.mail.len();
    table.run_until(hours(1000));
    assert!(
        !templates(&table.mail[mark..])
            .iter()
            .any(|t| t.starts_with("boons")),
        "{:?}",
        templates(&table.mail[mark..])
    );
    render_every_change_mail(&table);
    assert_replays(&table);
}

/// Alice receives a deterministic Boon at t0 + 2 h (three days to choose).
fn chosen_later(table: &mut Table) {
    boons(
        table,
        hours(2),
        MODERATOR,
        "bestow Alice deterministic because a test",
    )
    .unwrap();
}

fn choosing_until(table: &Table, number: u32) -> Timestamp {
    match state(table).get(number).map(|b| b.stage.clone()) {
        Some(Stage::Choosing { until }) => until,
        other => panic!("{other:?}"),
    }
}

#[test]
fn rule_1211_amended_in_a_number_applies_the_new_number_from_then_on() {
    let mut table = acka();
    // Before: three days to choose.
    boons(
        &mut table,
        hours(1),
        MODERATOR,
        "bestow Bob deterministic because a test",
    )
    .unwrap();
    assert_eq!(choosing_until(&table, 1), hours(1 + 72));
    let mark = table.mail.len();
    amend(
        &mut table,
        hours(2),
        &rule_1211_with(&[
            ("has 3 days to choose", "has 5 days to choose"),
            ("if three days pass", "if five days pass"),
            ("A$75", "A$60"),
        ]),
    );
    let said = mail_of(&table, mark, "bindings_changed");
    let change = said.values["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["game"] == "boons")
        .cloned()
        .unwrap();
    assert_eq!(change["what"], "numbers", "{change}");
    assert!(
        change["values"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v["name"] == "choose_days" && v["was"] == 3 && v["now"] == 5),
        "{change}"
    );
    assert!(!templates(&table.mail[mark..]).contains(&"bindings_held"));
    // Bob's clock is left as it was set; a Boon bestowed now has five days.
    assert_eq!(choosing_until(&table, 1), hours(1 + 72));
    chosen_later(&mut table);
    assert_eq!(choosing_until(&table, 2), hours(2 + 120));
    // The Trinket takes A$60 from the Treasury now, and is worth A$60.
    boons(&mut table, hours(3), ALICE, "choose d").unwrap();
    boons(&mut table, hours(4), ALICE, "describe a brass astrolabe").unwrap();
    table.run_until(hours(4 + 7 * 24 + 1));
    let trinket = owned(&table, 1)
        .into_iter()
        .find(|e| e.kind == "Trinket")
        .expect("the Trinket is created");
    assert_eq!(trinket.value.as_deref(), Some("A$60"));
    assert_eq!(
        table.world.accounts.balance(Holder::Treasury, "A$"),
        BigRational::from_integer((-60).into())
    );
    render_every_change_mail(&table);
    assert_replays(&table);
}

#[test]
fn rule_1211_amended_otherwise_holds_the_boons_until_a_moderator_keeps_it() {
    let mut table = acka();
    chosen_later(&mut table);
    assert_eq!(choosing_until(&table, 1), hours(2 + 72));
    let mark = table.mail.len();
    amend(
        &mut table,
        hours(10),
        &rule_1211_with(&[("Boons may either be bestowed", "Boons may only be bestowed")]),
    );
    let said = mail_of(&table, mark, "bindings_changed");
    assert!(
        said.values["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["game"] == "boons" && c["what"] == "held"),
        "{:?}",
        said.values
    );
    // The moderators are asked privately, with the difference.
    let asked = mail_of(&table, mark, "bindings_held");
    assert_eq!(asked.to, Audience::Address(Address::new(MODERATOR)));
    assert!(
        asked.values["held"][0]["why"]
            .as_str()
            .unwrap()
            .contains("may only be"),
        "{:?}",
        asked.values
    );
    assert_eq!(
        mail_of(&table, mark, "boons_rule_changed").values["what"],
        "held"
    );
    assert_eq!(state(&table).held_since, Some(hours(10)));
    // Nothing of the rule is applied while it is held, and its clock stands still.
    assert_eq!(
        boons(&mut table, hours(11), ALICE, "choose c"),
        Err("boons_rule_held".into())
    );
    assert_eq!(
        boons(
            &mut table,
            hours(11),
            MODERATOR,
            "bestow Bob because a test"
        ),
        Err("boons_rule_held".into())
    );
    table.run_until(hours(100));
    assert!(lapses(&table).is_empty());
    assert_eq!(state(&table).pending.len(), 1);
    // Not a player's to rule.
    let _ = table.message(
        hours(100),
        BOB,
        true,
        "ruleset",
        &["binding 1211 keep because I like it"],
    );
    assert_eq!(table.last[0].status, Status::Refused);
    // The moderator keeps it: Alice has the 64 hours she had left at the hold.
    let mark = table.mail.len();
    let _ = table.message(
        hours(100),
        MODERATOR,
        true,
        "ruleset",
        &["binding 1211 keep because only a wording, the same game"],
    );
    assert_eq!(table.last[0].status, Status::Done, "{:?}", table.last);
    assert_eq!(
        mail_of(&table, mark, "boons_rule_changed").values["what"],
        "resumed"
    );
    assert_eq!(state(&table).held_since, None);
    assert_eq!(choosing_until(&table, 1), hours(100 + 64));
    assert_eq!(
        table
            .world
            .schedule
            .get("boons:choose:1")
            .map(|e| e.deadline.at),
        Some(hours(100 + 64))
    );
    assert_eq!(
        boons(&mut table, hours(101), ALICE, "choose c"),
        Ok("boons_chose".into())
    );
    assert_eq!(owned(&table, 1).len(), 1);
    render_every_change_mail(&table);
    assert_replays(&table);
}
