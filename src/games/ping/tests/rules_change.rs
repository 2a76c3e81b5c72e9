//! Issue 22: the rules change, and the bot follows them. Rule 1209/14 is in
//! the registry as the page writes it (`rules/ackanomic-1209-1250.txt`), the
//! moderator keeps the rules, and amends or repeals 1209 by mail (`[ruleset]`)
//! while the Machine pings by Alice's form. Each scenario is named after the
//! clause of the issue it plays.

use super::*;
use crate::engine::ruleset::Rule;
use crate::games::Event as GameEvent;

/// Alice's secret clause and its form; "odd" is in no rule, so a public mail
/// holding it would show the truth.
const CLAUSE: &str = "the day is odd";
const SECRET: &str = "odd";

fn day(n: i64) -> Timestamp {
    minutes(n * 24 * 60)
}

/// `with_1209`, and the Machine in Alice's Home pinging by her form on odd
/// days from tomorrow.
fn pinging() -> Table {
    let mut table = with_1209();
    run(
        &mut table,
        minutes(1),
        MODERATOR,
        true,
        "place Alice because it begins",
    )
    .unwrap();
    run(
        &mut table,
        minutes(2),
        ALICE,
        false,
        &format!("truth {CLAUSE}"),
    )
    .unwrap();
    run(&mut table, minutes(3), ALICE, false, "form day is odd").unwrap();
    table
}

/// `table()` with rule 1209 imported at its baseline and the moderator the
/// officer who keeps the rules.
fn with_1209() -> Table {
    let mut table = table();
    table.params.setting.officers.rules = vec![Address::new(MODERATOR)];
    let rule = Rule {
        number: 1209,
        name: "The Machine That Goes *ping*".into(),
        version: 14,
        text: bound::baseline().to_owned(),
        mutable: true,
        note: String::new(),
    };
    let done = table
        .world
        .ruleset
        .import(vec![rule], minutes(-10))
        .unwrap();
    let events: Vec<GameEvent> = done.events.into_iter().map(GameEvent::Ruleset).collect();
    table.record(minutes(-10), &events);
    table
}

/// The moderator amends rule 1209 to `text`, at `at`.
fn amend(table: &mut Table, at: Timestamp, text: &str) {
    let mut lines = vec!["amend 1209"];
    lines.extend(text.lines());
    lines.push("end");
    let _ = table.message(at, MODERATOR, true, "ruleset", &lines);
    assert_eq!(table.last[0].status, Status::Done, "{:?}", table.last);
}

fn baseline_with(from: &str, to: &str) -> String {
    let text = bound::baseline();
    assert!(text.contains(from), "{from}");
    text.replacen(from, to, 1)
}

fn templates(mail: &[Mail]) -> Vec<&str> {
    mail.iter().map(|m| m.template.as_str()).collect()
}

fn found<'a>(mail: &'a [Mail], template: &str) -> &'a Mail {
    mail.iter()
        .find(|m| m.template == template)
        .unwrap_or_else(|| panic!("no {template} in {:?}", templates(mail)))
}

fn pings(table: &Table) -> usize {
    table
        .state::<Ping>()
        .term
        .as_ref()
        .map_or(0, |t| t.pings.len())
}

/// Replay from the log gives the registry (its bindings included) and the
/// Machine as they are.
fn assert_replays(table: &Table) {
    let records: Vec<(Timestamp, &str, &GameEvent)> = table
        .events
        .iter()
        .map(|(at, cause, event)| (*at, cause.as_str(), event))
        .collect();
    let replayed = crate::games::fold(World::default(), &records);
    assert_eq!(replayed.ruleset, table.world.ruleset);
    assert_eq!(replayed.games.ping, table.world.games.ping);
}

/// No public mail holds the secret word of the truth.
fn assert_secret_kept(table: &Table) {
    for mail in table.mail.iter().filter(|m| m.to == Audience::List) {
        let text = mail.values.to_string().to_lowercase();
        assert!(!text.contains(SECRET), "{}: {text}", mail.template);
    }
}

#[test]
fn rule_1209_repealed_ends_the_machine_its_truth_kept_secret() {
    let mut table = pinging();
    table.run_until(day(4));
    assert!(pings(&table) >= 1);
    run(&mut table, day(4), BOB, true, "guess the day is even").unwrap();
    let fined = table.world.shared.accounts.clone();
    let mark = table.mail.len();
    let _ = table.message(
        day(4) + SignedDuration::from_mins(1),
        MODERATOR,
        true,
        "ruleset",
        &["repeal 1209"],
    );
    assert_eq!(table.last[0].status, Status::Done, "{:?}", table.last);
    // The list is told what stopped, and what became of the Machine.
    let said = found(&table.mail[mark..], "bindings_changed");
    assert_eq!(said.values["changes"][0]["rule"], 1209);
    assert_eq!(said.values["changes"][0]["what"], "stopped");
    assert_eq!(said.values["changes"][0]["why"], "repealed");
    let ended = found(&table.mail[mark..], "ping_ended");
    assert_eq!(ended.to, Audience::List);
    assert_eq!(ended.values["scholar"], "Alice");
    assert_eq!(ended.values["announced"], true);
    // No Machine, no term, no Scholar; the truth joins those uttered, unrevealed.
    let state = table.state::<Ping>();
    assert!(state.term.is_none());
    assert_eq!(
        state.ended.as_ref().map(|e| e.why.as_str()),
        Some("repealed")
    );
    assert_eq!(state.uttered.len(), 1);
    assert!(!state.uttered[0].revealed);
    // The fine paid stays paid.
    assert_eq!(table.world.shared.accounts, fined);
    // Nothing of the rule is done any more: no pings, no guesses, no placing.
    let mark = table.mail.len();
    table.run_until(day(12));
    assert!(
        !templates(&table.mail[mark..]).contains(&"ping_notice"),
        "{:?}",
        templates(&table.mail[mark..])
    );
    assert!(table.world.shared.schedule.get("ping:day").is_none());
    for (from, line) in [
        (CAROL, "guess the day is odd"),
        (MODERATOR, "place Bob because it goes on"),
        (ALICE, "pinged today"),
    ] {
        assert_eq!(
            run(&mut table, day(12), from, true, line),
            Err("ping_rule_stopped".into()),
            "{line}"
        );
    }
    // `status` says so.
    assert_eq!(
        run(&mut table, day(12), BOB, true, "status"),
        Ok("ping_status".into())
    );
    assert_eq!(table.last[0].sentence.args["machine"]["ended"], "repealed");
    assert_secret_kept(&table);
    render_every_ending_and_binding_mail(&table);
    assert_replays(&table);
}

/// Renders the ending and the registry's announcements with their shipped
/// templates, strict about undefined values.
fn render_every_ending_and_binding_mail(table: &Table) {
    let mut env = minijinja::Environment::new();
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    let mut rendered = 0;
    for mail in &table.mail {
        let source = match mail.template.as_str() {
            "ping_ended" => include_str!("../../../../templates/ping_ended.txt"),
            "bindings_changed" => include_str!("../../../../templates/bindings_changed.txt"),
            "bindings_held" => include_str!("../../../../templates/bindings_held.txt"),
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
        assert!(!text.to_lowercase().contains(SECRET), "{text}");
        rendered += 1;
    }
    assert!(rendered >= 2);
}

#[test]
fn rule_1209_amended_in_a_number_applies_the_new_number_from_then_on() {
    let mut table = pinging();
    table.run_until(day(2));
    run(&mut table, day(2), BOB, true, "guess the day is even").unwrap();
    assert_eq!(table.last[0].sentence.args["fine"], 10);
    let mark = table.mail.len();
    amend(
        &mut table,
        day(2) + SignedDuration::from_mins(1),
        &baseline_with("a fine of A$ 10", "a fine of A$ 20"),
    );
    let said = found(&table.mail[mark..], "bindings_changed");
    let change = &said.values["changes"][0];
    assert_eq!(change["what"], "numbers");
    assert_eq!(change["values"][0]["name"], "guess_fine");
    assert_eq!(change["values"][0]["was"], 10);
    assert_eq!(change["values"][0]["now"], 20);
    assert!(!templates(&table.mail[mark..]).contains(&"bindings_held"));
    // Carol's wrong guess now costs A$ 20; the Machine goes on pinging.
    run(
        &mut table,
        day(2) + SignedDuration::from_mins(2),
        CAROL,
        true,
        "guess today is a day",
    )
    .unwrap();
    assert_eq!(table.last[0].sentence.args["fine"], 20);
    let before = pings(&table);
    table.run_until(day(6));
    assert!(pings(&table) > before);
    // A second amendment of another number: the first stays.
    amend(
        &mut table,
        day(6),
        &baseline_with("a fine of A$ 10", "a fine of A$ 20").replacen(
            "has gone *ping* thirty times",
            "has gone *ping* forty times",
            1,
        ),
    );
    let values = &table
        .world
        .ruleset
        .binding("ping", 1209)
        .expect("decided")
        .values;
    assert!(
        values.contains(&("guess_fine".to_owned(), 20)),
        "{values:?}"
    );
    assert!(
        values.contains(&("reveal_after_pings".to_owned(), 40)),
        "{values:?}"
    );
    assert_secret_kept(&table);
    assert_replays(&table);
}

#[test]
fn rule_1209_amended_otherwise_is_held_until_a_moderator_keeps_it() {
    let mut table = pinging();
    table.run_until(day(2));
    let before = pings(&table);
    let mark = table.mail.len();
    amend(
        &mut table,
        day(2) + SignedDuration::from_mins(1),
        &baseline_with(
            "he shall pay a fine of A$ 10 for mocking the sacred truth",
            "he shall pay a fine of A$ 10 for mocking the holy truth",
        ),
    );
    let said = found(&table.mail[mark..], "bindings_changed");
    assert_eq!(said.values["changes"][0]["what"], "held");
    // The moderators are asked privately, with the difference.
    let asked = found(&table.mail[mark..], "bindings_held");
    assert_eq!(asked.to, Audience::Address(Address::new(MODERATOR)));
    assert!(
        asked.values["held"][0]["why"]
            .as_str()
            .unwrap()
            .contains("holy truth")
    );
    assert!(table.state::<Ping>().held_since.is_some());
    // Nothing of the rule runs: no daily pings, guesses refused as held.
    let mark = table.mail.len();
    table.run_until(day(6));
    assert_eq!(pings(&table), before);
    assert!(!templates(&table.mail[mark..]).contains(&"ping_notice"));
    assert_eq!(
        run(&mut table, day(6), BOB, true, "guess the day is even"),
        Err("ping_rule_held".into())
    );
    assert_eq!(
        run(&mut table, day(6), BOB, true, "status"),
        Ok("ping_status".into())
    );
    assert_eq!(table.last[0].sentence.args["machine"]["held"], true);
    render_every_ending_and_binding_mail(&table);
    // Not a player's to rule.
    let _ = table.message(
        day(6),
        BOB,
        true,
        "ruleset",
        &["binding 1209 keep because I like it"],
    );
    assert_eq!(table.last[0].status, Status::Refused);
    // The moderator keeps it: the Machine goes on.
    let _ = table.message(
        day(6) + SignedDuration::from_mins(1),
        MODERATOR,
        true,
        "ruleset",
        &["binding 1209 keep because only the wording of the fine changed"],
    );
    assert_eq!(table.last[0].status, Status::Done, "{:?}", table.last);
    assert!(table.state::<Ping>().held_since.is_none());
    run(
        &mut table,
        day(6) + SignedDuration::from_mins(2),
        BOB,
        true,
        "guess the day is even",
    )
    .unwrap();
    table.run_until(day(10));
    assert!(pings(&table) > before);
    assert_secret_kept(&table);
    assert_replays(&table);
}

#[test]
fn while_rule_1209_is_held_the_scholars_seven_days_do_not_run() {
    let mut table = with_1209();
    run(
        &mut table,
        minutes(1),
        MODERATOR,
        true,
        "place Alice because it begins",
    )
    .unwrap();
    let quack_at = table.state::<Ping>().term.as_ref().unwrap().quack_at;
    amend(
        &mut table,
        day(1),
        &baseline_with("the Machine randomly teleports", "the Machine teleports"),
    );
    // Three days held: no quack at the seventh day, and no truth taken.
    table.run_until(day(4));
    assert_eq!(
        run(&mut table, day(4), ALICE, false, &format!("truth {CLAUSE}")),
        Err("ping_rule_held".into())
    );
    let _ = table.message(
        day(4),
        MODERATOR,
        true,
        "ruleset",
        &["binding 1209 keep because random or not, it teleports"],
    );
    assert_eq!(table.last[0].status, Status::Done, "{:?}", table.last);
    let moved = table.state::<Ping>().term.as_ref().unwrap().quack_at;
    assert_eq!(moved, quack_at + SignedDuration::from_hours(3 * 24));
    table.run_until(quack_at + SignedDuration::from_hours(24));
    assert_eq!(
        table
            .state::<Ping>()
            .term
            .as_ref()
            .map(|t| t.scholar_name.as_str()),
        Some("Alice")
    );
    assert_replays(&table);
}
