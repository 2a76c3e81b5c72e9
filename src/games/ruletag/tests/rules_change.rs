//! Issue 22: the rules change, and the bot follows them. The proposal's five
//! rules are in the registry under the default `[ruletag.rules]` numbers (1001
//! "Elements", 1002 "Rule Tag", 1003 "rule tag invalid paths", 1004 "rule tag
//! moderation", 1005 "rule tag basketball"), beside rules 101 to 103 the game is
//! played over; the rules officer changes them by mail.

use super::*;

const PROPOSAL: &str = include_str!("../../../../rules/rule-tag-proposal.txt");
const SCHOLAR: &str = "scholar@x.org";
const ALICE: &str = "alice@x.org";
const BOB: &str = "bob@x.org";

fn nweek_0(minutes: i64) -> Timestamp {
    let start: Timestamp = "2026-01-05T10:00:00Z".parse().unwrap();
    start + jiff::SignedDuration::from_mins(minutes)
}

/// After the end of nweek 0 (2026-01-15 00:00 UTC).
fn after_nweek_0() -> Timestamp {
    "2026-01-15T00:01:00Z".parse().unwrap()
}

/// The text of the proposal's rule "Rule Tag" (1002 here).
fn rule_tag_text() -> String {
    crate::engine::ruleset::parse_ruleset(PROPOSAL).unwrap()[1]
        .text
        .clone()
}

/// Mod (the moderator), Alice and Bob; every setup event is in the log, so a
/// replay from nothing gives the same world. Started, with the ball and goal on
/// 103 and 102, Alice (Air) and Bob (Earth) moving to 101 this nweek.
fn started() -> Table {
    let before: Timestamp = "2026-01-01T00:00:00Z".parse().unwrap();
    let mut world = games::World::default();
    Arc::make_mut(&mut world.shared.accounts).currencies =
        vec![Currency::new("points", &["point"], Exactness::Integer)];
    let officers = Officers {
        moderators: vec![Address::new(MODERATOR)],
        rules: vec![Address::new(SCHOLAR)],
        ..Officers::default()
    };
    let params = games::Params::new(
        players::Params::default(),
        officers,
        Calendar::default(),
        Arc::new(NoWords),
        GameParams::default(),
    );
    let mut table = Table::new(world, params);
    let mut events = Vec::new();
    for (id, name) in [(1, "Mod"), (2, "Alice"), (3, "Bob")] {
        events.push(games::Event::Players(players::Event::Joined {
            id,
            name: name.to_owned(),
            address: Address::new(&format!("{}@x.org", name.to_lowercase())),
        }));
    }
    for number in [101, 102, 103] {
        events.push(games::Event::Ruleset(ruleset::Event::Enacted {
            number,
            name: format!("Rule {number}"),
            text: "Players play.".to_owned(),
            mutable: true,
        }));
    }
    table.record(before, &events);
    let rules = crate::engine::ruleset::parse_ruleset_with(PROPOSAL, 1001).unwrap();
    let done = table.world.ruleset.import(rules, before).unwrap();
    let imported: Vec<_> = done.events.into_iter().map(games::Event::Ruleset).collect();
    table.record(before, &imported);
    for (minute, from, line) in [
        (0, MODERATOR, "start"),
        (1, MODERATOR, "relocate ball to 103 because out of the way"),
        (2, MODERATOR, "relocate goal to 102 because out of the way"),
        (3, ALICE, "element air"),
        (4, ALICE, "move from null to 101"),
        (5, BOB, "move from null to 101"),
    ] {
        table.send(nweek_0(minute), from, false, TAG, line);
        assert_eq!(
            table.last[0].status,
            Status::Done,
            "{line}: {:?}",
            table.last
        );
    }
    table
}

/// The rules officer amends rule 1002 ("Rule Tag") to `text`.
fn amend_rule_tag(table: &mut Table, minute: i64, text: &str) {
    let mut lines = vec!["amend 1002"];
    lines.extend(text.lines());
    lines.push("end");
    let _ = table.message(nweek_0(minute), SCHOLAR, true, "ruleset", &lines);
    assert_eq!(table.last[0].status, Status::Done, "{:?}", table.last);
}

fn templates_since(table: &Table, mark: usize) -> Vec<String> {
    table.mail[mark..]
        .iter()
        .map(|m| m.template.clone())
        .collect()
}

fn state(table: &Table) -> Arc<RuleTag> {
    table.state::<game::RuleTag>()
}

/// Each player's change in score in the last turn, by name.
fn score_change(table: &Table, name: &str) -> i64 {
    state(table)
        .last_report
        .as_ref()
        .expect("a turn was processed")
        .score_changes
        .iter()
        .find(|c| c["name"] == name)
        .and_then(|c| c["change"].as_i64())
        .unwrap_or(0)
}

/// Replay from the log gives the registry (bindings included) and the game.
fn assert_replays(table: &Table) {
    let records: Vec<(Timestamp, &str, &games::Event)> = table
        .events
        .iter()
        .map(|(at, cause, event)| (*at, cause.as_str(), event))
        .collect();
    let replayed = games::fold(games::World::default(), &records);
    assert_eq!(replayed.ruleset, table.world.ruleset);
    assert_eq!(replayed.games.ruletag, table.world.games.ruletag);
    // The currencies are configuration, not events: the balances replay.
    assert_eq!(
        replayed.shared.accounts.balances,
        table.world.shared.accounts.balances
    );
}

#[test]
fn rule_tag_repealed_ends_the_game_points_stand_the_nweek_lapses_and_commands_are_refused() {
    let mut table = started();
    let mark = table.mail.len();
    let _ = table.message(nweek_0(10), SCHOLAR, true, "ruleset", &["repeal 1002"]);
    assert_eq!(table.last[0].status, Status::Done, "{:?}", table.last);
    let sent = templates_since(&table, mark);
    assert!(sent.contains(&"bindings_changed".to_owned()), "{sent:?}");
    assert!(sent.contains(&"ruletag_ended".to_owned()), "{sent:?}");
    let ended = state(&table).ended.clone().expect("the game ended");
    assert_eq!(
        (ended.rule, ended.why.as_str(), ended.nweek),
        (1002, "repealed", 0)
    );
    assert!(!state(&table).is_running());
    assert!(
        state(&table).actions.is_empty(),
        "the nweek's actions lapse"
    );
    // The board stays as the record.
    assert_eq!(state(&table).object(BALL).unwrap().rtl, Some(103));
    // Every command but status and start is refused, saying why.
    table.send(nweek_0(11), BOB, false, TAG, "element fire");
    assert_eq!(table.last[0].status, Status::Refused);
    assert_eq!(table.last[0].sentence.code, "ruletag_ended");
    table.send(
        nweek_0(12),
        MODERATOR,
        true,
        TAG,
        "relocate ball to 101 because x",
    );
    assert_eq!(table.last[0].sentence.code, "ruletag_ended");
    // No new game while the rule is gone.
    table.send(nweek_0(13), MODERATOR, true, TAG, "start");
    assert_eq!(table.last[0].sentence.code, "ruletag_rule_not_in_effect");
    // The end of the nweek processes nothing and pays no award.
    let (mark, accounts) = (table.mail.len(), table.world.shared.accounts.clone());
    table.run_until(after_nweek_0());
    assert!(
        !templates_since(&table, mark)
            .iter()
            .any(|t| t.starts_with("ruletag_")),
        "{:?}",
        templates_since(&table, mark)
    );
    assert_eq!(table.world.shared.accounts, accounts);
    assert_replays(&table);
}

#[test]
fn a_bound_number_amended_applies_from_then_on() {
    let mut table = started();
    let text = rule_tag_text();
    let amended = text.replacen("then ey loses 15 points", "then ey loses 40 points", 1);
    assert_ne!(amended, text);
    let mark = table.mail.len();
    amend_rule_tag(&mut table, 10, &amended);
    let said = &table.mail[mark..]
        .iter()
        .find(|m| m.template == "bindings_changed")
        .expect("announced")
        .values;
    assert_eq!(said["changes"][0]["rule"], 1002);
    assert_eq!(said["changes"][0]["what"], "numbers");
    assert_eq!(said["changes"][0]["values"][0]["now"], 40);
    // The turn: Air beats Earth on 101, by 40 now.
    table.run_until(after_nweek_0());
    assert_eq!(state(&table).nweek, 1);
    assert_eq!(score_change(&table, "Alice"), 40);
    assert_eq!(score_change(&table, "Bob"), -40);
    assert!(state(&table).ended.is_none());
    assert_replays(&table);
}

#[test]
fn rule_tag_otherwise_amended_is_held_until_a_moderator_keeps_it() {
    let mut table = started();
    let text = rule_tag_text();
    let amended = text.replacen("Air beats Earth", "Earth beats Air", 1);
    assert_ne!(amended, text);
    let mark = table.mail.len();
    amend_rule_tag(&mut table, 10, &amended);
    let held_mail = table.mail[mark..]
        .iter()
        .find(|m| m.template == "bindings_held")
        .expect("the moderators are asked");
    assert_eq!(
        held_mail.to,
        crate::engine::Audience::Address(Address::new(MODERATOR))
    );
    assert_eq!(held_mail.values["held"][0]["rule"], 1002);
    // A player's action is refused, saying it is held.
    table.send(nweek_0(11), BOB, false, TAG, "element fire");
    assert_eq!(table.last[0].status, Status::Refused);
    assert_eq!(table.last[0].sentence.code, "ruletag_held");
    // The end of the nweek waits.
    let mark = table.mail.len();
    table.run_until(after_nweek_0());
    assert_eq!(templates_since(&table, mark), ["ruletag_turn_held"]);
    assert_eq!(state(&table).held, Some(0));
    assert_eq!(state(&table).nweek, 0);
    // Much later, the moderator keeps the reading before the change: the turn
    // runs at once, by the old precedence, and is not late by the wait.
    let later: Timestamp = "2026-01-20T00:00:00Z".parse().unwrap();
    let _ = table.message(
        later,
        MODERATOR,
        true,
        "ruleset",
        &["binding 1002 keep because the players meant the old precedence"],
    );
    assert_eq!(table.last[0].status, Status::Done, "{:?}", table.last);
    assert_eq!(state(&table).held, None);
    let mark = table.mail.len();
    table.run_until(later + jiff::SignedDuration::from_mins(1));
    let sent = templates_since(&table, mark);
    assert!(
        sent.contains(&"ruletag_notification_results".to_owned()),
        "{sent:?}"
    );
    assert_eq!(state(&table).nweek, 1);
    assert_eq!(score_change(&table, "Alice"), 15);
    assert_eq!(score_change(&table, "Bob"), -15);
    assert!(!state(&table).last_report.as_ref().unwrap().late);
    // Actions are taken again.
    table.send(
        later + jiff::SignedDuration::from_mins(2),
        BOB,
        false,
        TAG,
        "element fire",
    );
    assert_eq!(table.last[0].status, Status::Done, "{:?}", table.last);
    assert_replays(&table);
}
