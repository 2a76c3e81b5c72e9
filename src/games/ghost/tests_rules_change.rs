//! Issue 22: the rules change, and the bot follows them. Rule 103 is in the
//! registry as the bot implements it (`rules/ghost.txt`); the moderator, who
//! keeps the rules, repeals or amends it while games run, and rules on what the
//! bot cannot read on its own. Every scenario replays from its log.

use super::bound::baseline;
use super::tests::{GhostTable, address, hours, render};
use super::*;
use crate::engine::ruleset::bindings::Status as Binding;
use crate::engine::{Audience, Mail, Status};
use crate::games;

/// Rita referees; Alice, Bob and Carol play; `mod@x.org` is a moderator and
/// keeps the rules; rule 103 was enacted with the text the bot implements
/// before anything began.
fn table() -> GhostTable {
    let mut g = GhostTable::new(&["Alice", "Bob", "Carol"]);
    g.table.params.setting.officers.rules = vec![address("mod")];
    ruleset(&mut g, hours(-1), "enact 103 Ghost", Some(baseline()));
    assert!(g.table.world.ruleset.exists(103));
    g
}

/// A `[ruleset]` message from the moderator: `line`, then `text` and `end`.
fn ruleset(g: &mut GhostTable, at: Timestamp, line: &str, text: Option<&str>) -> Vec<Mail> {
    let mut lines = vec![line];
    if let Some(text) = text {
        lines.extend(text.lines());
        lines.push("end");
    }
    let mark = g.table.mail.len();
    let _outcome = g
        .table
        .message(at, address("mod").as_str(), true, "ruleset", &lines);
    assert_eq!(
        g.table.last.first().map(|r| r.status),
        Some(Status::Done),
        "{line}: {:?}",
        g.table.last
    );
    let mail = g.table.mail_since(mark).to_vec();
    // Every mail of the game renders with its shipped template.
    for one in &mail {
        if crate::games::base_tag(&one.tag) == TAG {
            render(one);
        }
    }
    mail
}

/// Rita starts Ghost 1 with Alice, Bob and Carol at `at`.
fn start(g: &mut GhostTable, at: Timestamp) {
    g.run("Rita", at, "start with Alice, Bob, Carol")
        .unwrap_or_else(|code| panic!("start: {code}"));
}

/// Rule 103's text with `from` replaced by `to` (whitespace as in the file).
fn amended(from: &str, to: &str) -> String {
    let text = baseline();
    assert!(text.contains(from), "{from}");
    text.replacen(from, to, 1)
}

fn with(mail: &[Mail], template: &str) -> Vec<Mail> {
    mail.iter()
        .filter(|m| m.template == template)
        .cloned()
        .collect()
}

/// Replay from the log gives the registry (the bindings included) and every
/// game of Ghost as they are.
fn assert_replays(g: &GhostTable) {
    let records: Vec<(Timestamp, &str, &games::Event)> = g
        .table
        .events
        .iter()
        .map(|(at, cause, event)| (*at, cause.as_str(), event))
        .collect();
    let replayed = games::fold(games::World::default(), &records);
    assert_eq!(replayed.ruleset, g.table.world.ruleset);
    assert_eq!(replayed.games.ghosts, g.table.world.games.ghosts);
    assert_eq!(replayed.shared.schedule, g.table.world.shared.schedule);
}

#[test]
fn rule_103_repealed_ends_every_running_game_with_no_winner_and_nothing_paid() {
    let mut g = table();
    start(&mut g, hours(0));
    let mut at = hours(0);
    g.plays(1, &mut at, &["s", "st"]);
    let rita = g.balance("Rita", "A$");
    let mail = ruleset(&mut g, hours(5), "repeal 103", None);
    // The list is told what stopped, and the game's own news says it ended.
    let said = with(&mail, "bindings_changed");
    assert_eq!(said.len(), 1, "{mail:?}");
    assert_eq!(said[0].values["changes"][0]["rule"], 103);
    assert_eq!(said[0].values["changes"][0]["what"], "stopped");
    assert_eq!(said[0].values["changes"][0]["why"], "repealed");
    let news = with(&mail, "ghost_news");
    assert_eq!(news.len(), 1);
    assert_eq!(news[0].values["game"]["stopped"], "repealed");
    assert_eq!(news[0].values["game"]["over"], true);
    let text = render(&news[0]);
    assert!(
        text.contains("no one wins, no one loses, and nothing is paid"),
        "{text}"
    );
    // Over: no winner, nothing paid, no clock left.
    let inst = g.inst(1);
    assert!(inst.is_over());
    assert_eq!(inst.winner, None);
    assert_eq!(inst.rewards, None);
    assert_eq!(inst.stopped.as_deref(), Some("repealed"));
    assert_eq!(g.balance("Rita", "A$"), rita);
    assert!(g.deadlines().is_empty(), "{:?}", g.deadlines());
    // A play is refused with the reason; the record still answers.
    assert_eq!(
        g.run_as("Alice", true, hours(6), Some(1), "sta"),
        Err("ghost_rule_stopped".to_owned())
    );
    assert_eq!(
        g.run("Rita", hours(6), "start with Alice, Bob"),
        Err("ghost_rule_stopped".to_owned())
    );
    assert!(
        g.run_as("Alice", true, hours(6), Some(1), "history")
            .is_ok()
    );
    // Enacted again with another text: not the rule the bot implements, held.
    let other = amended("Player 1 shall\nplay first", "Player 2 shall\nplay first");
    ruleset(&mut g, hours(7), "enact 103 Ghost", Some(&other));
    assert_eq!(
        g.run("Rita", hours(8), "start with Alice, Bob"),
        Err("ghost_rule_held".to_owned())
    );
    // Enacted again as the baseline: Ghost is back, for new games.
    ruleset(&mut g, hours(9), "repeal 103", None);
    ruleset(&mut g, hours(10), "enact 103 Ghost", Some(baseline()));
    g.run("Rita", hours(11), "start with Alice, Bob").unwrap();
    assert!(!g.inst(2).is_over());
    assert!(g.inst(1).is_over());
    assert_replays(&g);
}

#[test]
fn rule_103_one_of_its_numbers_amended_applies_from_then_on() {
    let mut g = table();
    start(&mut g, hours(0));
    let first_deadline = g.deadlines()[0].1;
    assert_eq!(first_deadline, hours(72));
    // The turn lasts the lesser of five days from now on.
    let five = amended("lesser of three\ndays", "lesser of five\ndays");
    let mail = ruleset(&mut g, hours(1), "amend 103", Some(&five));
    let said = with(&mail, "bindings_changed");
    assert_eq!(said[0].values["changes"][0]["what"], "numbers");
    assert_eq!(
        said[0].values["changes"][0]["values"][0]["name"],
        "turn_days"
    );
    assert_eq!(said[0].values["changes"][0]["values"][0]["now"], 5);
    assert!(with(&mail, "bindings_held").is_empty());
    // The turn under way keeps its deadline; the next one has five days.
    assert_eq!(g.deadlines()[0].1, first_deadline);
    let turn = g.turn_name(1).unwrap();
    g.run(&turn, hours(2), "s").unwrap();
    assert_eq!(g.deadlines()[0].1, hours(2 + 5 * 24));
    // The referee's fee amended too: paid as the rule now says.
    let fee = amended("shall receive 8 A$", "shall receive 11 A$");
    let fee = fee.replacen("lesser of three\ndays", "lesser of five\ndays", 1);
    ruleset(&mut g, hours(3), "amend 103", Some(&fee));
    let mut at = hours(3);
    for _ in 0..2 {
        let turn = g.turn_name(1).unwrap();
        at = at.checked_add(SignedDuration::from_hours(1)).unwrap();
        g.run(&turn, at, "resign").unwrap();
    }
    assert!(g.inst(1).is_over());
    let rewards = g.inst(1).rewards.clone().unwrap();
    assert_eq!(rewards.referee.amount, 11);
    assert_eq!(
        g.balance("Rita", "A$"),
        num_rational::BigRational::from_integer(11.into())
    );
    assert_replays(&g);
}

#[test]
fn rule_103_otherwise_amended_holds_the_game_until_a_moderator_rules_by_mail() {
    let mut g = table();
    start(&mut g, hours(0));
    let turn = g.turn_name(1).unwrap();
    assert_eq!(g.deadlines()[0].1, hours(72));
    // A change of words the bot cannot map onto what it computes.
    let other = amended(
        "are forbidden from using dictionaries",
        "may use dictionaries",
    );
    let mail = ruleset(&mut g, hours(10), "amend 103", Some(&other));
    // The moderators are asked privately; the list is told.
    let asked = with(&mail, "bindings_held");
    assert_eq!(asked.len(), 1, "{mail:?}");
    assert_eq!(asked[0].to, Audience::Address(address("mod")));
    assert_eq!(asked[0].values["held"][0]["rule"], 103);
    assert!(
        asked[0].values["held"][0]["why"]
            .as_str()
            .unwrap()
            .contains("may use dictionaries"),
        "{}",
        asked[0].values
    );
    assert_eq!(
        with(&mail, "bindings_changed")[0].values["changes"][0]["what"],
        "held"
    );
    assert!(matches!(
        g.table.world.ruleset.binding("ghost", 103).unwrap().status,
        Binding::Held { .. }
    ));
    // The game waits: its clock stopped, with 62 hours left.
    assert!(g.inst(1).is_held());
    assert!(g.deadlines().is_empty(), "{:?}", g.deadlines());
    assert_eq!(with(&mail, "ghost_news")[0].values["game"]["held"], true);
    // No automatic ruling while it waits, however long.
    g.tick(hours(200));
    assert_eq!(g.turn_name(1), Some(turn.clone()));
    assert!(g.inst(1).in_game().count() == 3);
    // What would apply the rule is refused, saying it is held.
    assert_eq!(
        g.run(&turn, hours(201), "s"),
        Err("ghost_rule_held".to_owned())
    );
    assert!(
        g.last_sentence().args["difference"]
            .as_str()
            .unwrap()
            .contains("may use dictionaries")
    );
    assert!(g.run(&turn, hours(201), "status").is_ok());
    // A moderator keeps it, by mail: the game goes on with the time it had.
    let mail = ruleset(
        &mut g,
        hours(202),
        "binding 103 keep because the bot never checks what players look up",
        None,
    );
    assert_eq!(
        with(&mail, "bindings_changed")[0].values["changes"][0]["what"],
        "follows"
    );
    assert!(!g.inst(1).is_held());
    assert_eq!(g.deadlines()[0].1, hours(202 + 62));
    g.run(&turn, hours(203), "s").unwrap();
    assert_eq!(g.inst(1).ghost_word.as_deref(), Some("s"));
    assert_replays(&g);
}

#[test]
fn rule_103_held_then_switched_off_by_a_moderator_ends_the_game_as_if_repealed() {
    let mut g = table();
    start(&mut g, hours(0));
    let other = amended(
        "are forbidden from using dictionaries",
        "may use dictionaries",
    );
    ruleset(&mut g, hours(1), "amend 103", Some(&other));
    assert!(g.inst(1).is_held());
    // A player who leaves the nomic meanwhile still leaves the game; a turn
    // that begins while it waits begins with its clock stopped.
    let turn = g.turn_name(1).unwrap();
    g.left_nomic(&turn, hours(2));
    assert!(g.inst(1).seat_of_player_named(&turn).is_none());
    assert!(g.deadlines().is_empty(), "{:?}", g.deadlines());
    let mail = ruleset(
        &mut g,
        hours(3),
        "binding 103 off because this is no longer the game of Ghost",
        None,
    );
    assert_eq!(
        with(&mail, "bindings_changed")[0].values["changes"][0]["what"],
        "off"
    );
    let inst = g.inst(1);
    assert!(inst.is_over());
    assert_eq!(inst.winner, None);
    assert_eq!(inst.rewards, None);
    assert!(
        inst.stopped
            .as_deref()
            .is_some_and(|why| why.contains("this is no longer the game of Ghost"))
    );
    assert_eq!(
        g.run("Rita", hours(4), "start with Alice, Bob"),
        Err("ghost_rule_stopped".to_owned())
    );
    assert_replays(&g);
}

impl Instance {
    fn seat_of_player_named(&self, name: &str) -> Option<u32> {
        self.in_game().find(|s| s.name == name).map(|s| s.number)
    }
}
