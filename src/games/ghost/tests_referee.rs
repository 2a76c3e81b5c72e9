//! Unit tests of `[ghost]`, rule 103 §5 and §6: rewards, reports, the referee's
//! vacancy and overrides; then several instances at once, every wording, and
//! random play.

use serde_json::{Value, json};

use super::commands::random_error;
use super::tests::*;
use super::tests_protest::protested_not_inside;
use super::*;
use crate::engine::Sentence;
use crate::engine::accounts::{self, Currency, Exactness};
use crate::engine::{calendar, random};
use crate::games;

#[test]
fn rule_5_a_four_player_game_to_a_winner_with_the_exact_rewards() {
    let mut world = started(
        &["Alice", "Bob", "Carol", "Dave"],
        "start with Alice, Bob, Carol, Dave",
        t0(),
    );
    let order = world.order(1);
    let mut at = t0();
    world.plays(1, &mut at, &["c", "ca", "cat", "catt", "cattl", "cattle"]);
    // Player 3 protests CATTLE, player 2's: valid, player 2 is out.
    world.run(&order[2], hours(7), "protest word").unwrap();
    assert!(!world.inst(1).is_in_game(2));
    assert_eq!(world.turn_name(1), Some(order[3].clone()));
    world.run(&order[3], hours(8), "resign").unwrap();
    assert_eq!(world.turn_name(1), Some(order[0].clone()));
    at = hours(8);
    world.plays(1, &mut at, &["x", "xz"]);
    // Player 1 protests XZ against player 3, who does not answer: player 1 wins.
    world
        .run(&order[0], hours(11), "protest not inside")
        .unwrap();
    // The clock fires the day-before reminder on its way to the deadline.
    assert_eq!(templates(&world.tick(hours(11 + 48))), ["reminder"]);
    let mail = world.tick(hours(11 + 72));
    assert_eq!(templates(&mail), ["ghost_news", "random_period_revealed"]);
    assert_eq!(mail[1].tag, "ghost 1");
    let inst = world.inst(1);
    assert!(inst.is_over());
    assert_eq!(inst.winner, Some(1));
    let rewards = inst.rewards.clone().unwrap();
    assert_eq!(rewards.began, 4);
    assert_eq!(rewards.referee.unpaid, None);
    assert_eq!(
        (rewards.winner.amount, rewards.winner.unpaid.clone()),
        (4, None)
    );
    assert_eq!(world.balance("Rita", "A$"), integer(8));
    assert_eq!(world.balance(&order[0], "points"), integer(4));
    assert_eq!(world.balance(&order[0], "A$"), integer(0));
    assert!(
        world.shared().random.current.is_none(),
        "the numbering's period is over"
    );
    assert!(world.deadlines().is_empty());
    let text = &world.texts[world.texts.len() - 2].1;
    assert!(
        text.contains(&format!("Subject: Ghost 1: {} wins", order[0])),
        "{text}"
    );
    assert!(
        text.contains("Rita receives 8 A$, as the referee."),
        "{text}"
    );
    assert!(
        text.contains(&format!("{} receives 4 points, as the winner.", order[0])),
        "{text}"
    );
    assert!(text.contains("The history of the game:"), "{text}");
    assert!(text.contains("2026-05-01 13:00 UTC:"), "{text}");
    // Only these two payments were made.
    assert_eq!(world.shared().accounts.balances.len(), 2);
    // Nothing more may be played; with no game open, the number is needed.
    assert_eq!(
        world
            .run_as(&order[0], true, hours(90), Some(1), "s")
            .unwrap_err(),
        "ghost_over"
    );
    assert_eq!(
        world.run(&order[0], hours(90), "s").unwrap_err(),
        "ghost_none_open"
    );
    // The state survives a JSON round trip and a replay of its history.
    let ghosts = world.ghosts();
    let json = serde_json::to_string(ghosts).unwrap();
    assert_eq!(&serde_json::from_str::<Ghosts>(&json).unwrap(), ghosts);
    let mut replayed = Ghosts::default();
    for record in &ghosts.instances[0].history {
        replayed.apply_event(&record.event, record.at);
    }
    assert_eq!(&replayed, ghosts);
}

/// Rita starts a game of `n` players (from ten), then all but player 1 leave.
fn rewards_after(n: usize, duel: bool) -> (GhostTable, Rewards, Vec<games::Event>) {
    let names = [
        "Alice", "Bob", "Carol", "Dave", "Eve", "Frank", "Grace", "Heidi", "Ivan", "Judy",
    ];
    let listed = names[..n].join(", ");
    let line = if duel {
        format!("start duel with {listed}")
    } else {
        format!("start with {listed}")
    };
    let mut world = started(&names, &line, t0());
    let order = world.order(1);
    let mut last = Vec::new();
    for name in &order[1..] {
        world.run(name, hours(1), "leave").unwrap();
        last = world.last_events.clone();
    }
    let rewards = world.inst(1).rewards.clone().unwrap();
    (world, rewards, last)
}

#[test]
fn rule_5_rewards_for_three_four_nine_players_and_a_duel() {
    let params = Params::default();
    assert_eq!(
        [2, 3, 4, 5, 8, 9, 20].map(|n| params.winner_points(n)),
        [4, 4, 4, 5, 8, 8, 8]
    );
    let (world, rewards, changes) = rewards_after(3, false);
    assert_eq!((rewards.began, rewards.winner.amount), (3, 4));
    let first = world.order(1)[0].clone();
    assert_eq!(world.balance(&first, "points"), integer(4));
    let reasons: Vec<&str> = changes
        .iter()
        .filter_map(|c| match c {
            games::Event::Accounts(accounts::Event::Transferred { reason, .. }) => {
                Some(reason.as_str())
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        reasons,
        [
            "Rule 103 (Ghost) §5: the referee of Ghost 1",
            "Rule 103 (Ghost) §5: the winner of Ghost 1, which 3 players began"
        ]
    );
    let (world, rewards, _) = rewards_after(9, false);
    assert_eq!((rewards.began, rewards.winner.amount), (9, 8));
    assert_eq!(world.balance(&world.order(1)[0], "points"), integer(8));
    let (world, rewards, _) = rewards_after(2, true);
    assert_eq!(rewards.winner.unpaid.as_deref(), Some("duel"));
    assert_eq!(world.balance(&world.order(1)[0], "points"), integer(0));
    assert_eq!(world.balance("Rita", "A$"), integer(8));
    let text = &world.texts[world.texts.len() - 2].1;
    assert!(
        text.contains("receives nothing more: the game was played as a Duel"),
        "{text}"
    );
}

#[test]
fn rule_5_a_referee_who_is_no_player_is_not_paid_and_a_refused_payment_is_reported() {
    let mut world = GhostTable::with_currencies(
        &["Alice", "Bob"],
        vec![Currency::new("A$", &[], Exactness::Integer)],
    );
    world
        .run_as("mod", false, t0(), None, "start with Alice, Bob")
        .unwrap();
    let order = world.order(1);
    let mail = world.run(&order[1], hours(1), "leave").unwrap();
    let rewards = world.inst(1).rewards.clone().unwrap();
    assert_eq!(rewards.referee.unpaid.as_deref(), Some("not_a_player"));
    assert_eq!(
        rewards.winner.unpaid.as_deref(),
        Some("accounts_unknown_currency")
    );
    assert!(world.shared().accounts.balances.is_empty());
    let text = render(&mail[0]);
    assert!(
        text.contains("mod@x.org refereed, but is not a player of the nomic"),
        "{text}"
    );
    assert!(text.contains("the payment could not be made"), "{text}");
}

#[test]
fn rule_6_status_and_history_on_request() {
    let mut world = started(
        &["Alice", "Bob", "Carol"],
        "start with Alice, Bob, Carol",
        t0(),
    );
    let order = world.order(1);
    let mut at = t0();
    world.plays(1, &mut at, &["s", "st"]);
    // Anyone may ask, privately.
    world
        .run_as("Mallory", false, hours(3), None, "status")
        .unwrap();
    let status = world.last_sentence().clone();
    assert_eq!(status.code, "ghost_status");
    assert_eq!(status.args["history"], Value::Null);
    let game = &status.args["game"];
    assert_eq!(game["turn"]["name"], order[2].as_str());
    assert_eq!(game["turn"]["deadline"], "2026-05-04 14:00 UTC");
    assert_eq!(game["turn"]["remaining"]["days"], 2);
    assert_eq!(game["turn"]["remaining"]["hours"], 23);
    assert_eq!(game["word"], "st");
    assert_eq!(game["order"].as_array().map(Vec::len), Some(3));
    let text = render_sentence(&status);
    assert!(text.contains(&format!("1. {}", order[0])), "{text}");
    assert!(text.contains("The ghost word is ST"), "{text}");
    world
        .run_as(&order[0], false, hours(3), None, "history")
        .unwrap();
    let history = world.last_sentence().clone();
    let lines: Vec<&str> = history.args["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["code"].as_str().unwrap())
        .collect();
    assert_eq!(
        lines,
        [
            "ghost_h_started",
            "ghost_h_turn",
            "ghost_h_played",
            "ghost_h_turn",
            "ghost_h_played",
            "ghost_h_turn"
        ]
    );
    let text = render_sentence(&history);
    assert!(
        text.contains(&format!(
            "2026-05-01 13:00 UTC: {} began the ghost word S.",
            order[0]
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "2026-05-01 14:00 UTC: {} continued S to ST.",
            order[1]
        )),
        "{text}"
    );
    // A finished game keeps answering, under its number.
    assert!(
        world
            .run_as("Mallory", false, hours(3), Some(1), "history")
            .is_ok()
    );
}

#[test]
fn rule_6_a_referee_vacancy_freezes_the_clock_until_someone_takes_the_post() {
    let mut world = started(
        &["Alice", "Bob", "Carol", "Eve"],
        "start with Alice, Bob, Carol",
        t0(),
    );
    let order = world.order(1);
    world.run(&order[0], hours(10), "s").unwrap();
    assert_eq!(
        world.deadlines(),
        [("ghost:1:turn:2".to_owned(), hours(82))]
    );
    world.run("Dave", hours(11), "add me").unwrap_err();
    // Rita goes on vacation at +20h: 62 hours of the turn are left.
    let (events, mail) = world.nomic("Rita", hours(20), "vacation until 2026-05-31");
    let reaction: Vec<&games::Event> = events
        .iter()
        .filter(|e| !matches!(e, games::Event::Players(_)))
        .collect();
    assert_eq!(
        reaction[0],
        &games::Event::Schedule(calendar::Event::Cancelled {
            id: "ghost:1:turn:2".to_owned()
        })
    );
    let mail = ghost_mail(mail);
    assert_eq!(templates(&mail), ["ghost_news"]);
    let text = &world.texts.last().unwrap().1;
    assert!(
        text.contains("Subject: Ghost 1: suspended, no referee"),
        "{text}"
    );
    assert!(text.contains("2 days, 14 hours left"), "{text}");
    assert!(world.deadlines().is_empty());
    let inst = world.inst(1);
    assert!(inst.referee.is_none());
    assert!(matches!(
        inst.stage,
        Stage::Turn {
            clock: Clock::Stopped {
                remaining_seconds: 223_200
            },
            ..
        }
    ));
    // Suspended: no plays, nothing fires.
    assert_eq!(
        world.run(&order[1], hours(21), "st").unwrap_err(),
        "ghost_suspended"
    );
    assert!(world.tick(hours(100)).is_empty());
    assert_eq!(
        world.run("Rita", hours(101), "resign referee").unwrap_err(),
        "ghost_referee_only"
    );
    // Not a player of the instance, and publicly.
    assert_eq!(
        world.run(&order[2], hours(110), "referee").unwrap_err(),
        "ghost_referee_is_player"
    );
    assert_eq!(
        world
            .run_as("Eve", false, hours(110), None, "referee")
            .unwrap_err(),
        "ghost_public"
    );
    let mail = world.run("Eve", hours(120), "I will referee").unwrap();
    assert_eq!(templates(&mail), ["ghost_news"]);
    assert_eq!(
        world.inst(1).referee.as_ref().map(|r| r.name.as_str()),
        Some("Eve")
    );
    // The clock resumes with the 62 hours that were left.
    assert_eq!(
        world.deadlines(),
        [("ghost:1:turn:2".to_owned(), hours(120 + 62))]
    );
    assert_eq!(
        world.run("Carol", hours(121), "referee").unwrap_err(),
        "ghost_referee_present"
    );
    world.run(&order[1], hours(121), "st").unwrap();
    // Eve resigns the post; Rita, back, takes it again.
    world.run("Eve", hours(122), "resign referee").unwrap();
    assert!(world.deadlines().is_empty());
    world.nomic("Rita", hours(130), "back");
    world.run("Rita", hours(130), "referee").unwrap();
    assert_eq!(
        world.deadlines(),
        [("ghost:1:turn:3".to_owned(), hours(130 + 71))]
    );
    // A referee who leaves the nomic leaves the post too.
    world.left_nomic("Rita", hours(131));
    assert!(world.inst(1).is_suspended());
    let history = world
        .inst(1)
        .history
        .iter()
        .filter(|r| matches!(r.event, Event::Suspended { .. }))
        .count();
    assert_eq!(history, 3);
}

#[test]
fn rule_6_an_addition_window_gets_the_suspended_time_back() {
    let mut world = started(
        &["Alice", "Bob", "Carol", "Dave", "Eve"],
        "start with Alice, Bob, Carol",
        t0(),
    );
    world.run("Dave", hours(1), "add me").unwrap();
    world.run("Rita", hours(10), "resign referee").unwrap();
    world.run("Eve", hours(40), "referee").unwrap();
    assert_eq!(
        world.inst(1).seat(4).unwrap().addition_protest_until,
        Some(hours(73 + 30))
    );
}

#[test]
fn rule_6_the_referee_and_moderators_override_with_a_reason() {
    let (mut world, order) = protested_not_inside(["u", "up", "upe", "uper", "upers", "uperso"]);
    assert_eq!(
        world
            .run(&order[1], hours(8), "rule valid because I say so")
            .unwrap_err(),
        "ghost_referee_only"
    );
    let mail = world
        .run_as(
            "Rita",
            false,
            hours(8),
            None,
            "rule valid because the dictionary's supersonic is a typo",
        )
        .unwrap();
    assert_eq!(templates(&mail), ["ghost_news"]);
    assert_eq!(mail[0].values["officer"], "Rita");
    let text = render(&mail[0]);
    assert!(
        text.contains("Subject: Ghost 1: override by Rita;"),
        "{text}"
    );
    assert!(
        text.contains("Reason given: the dictionary's supersonic is a typo"),
        "{text}"
    );
    let inst = world.inst(1);
    assert_eq!(inst.removed_why(3), Some(Why::ValidProtest));
    assert!(
        world
            .deadlines()
            .iter()
            .all(|(id, _)| id.contains(":turn:"))
    );
    assert_eq!(
        world
            .run_as("Rita", false, hours(9), None, "rule invalid because again")
            .unwrap_err(),
        "ghost_no_protest"
    );
    // Set the ghost word; a moderator removes a player in their turn.
    world
        .run_as(
            "Rita",
            false,
            hours(9),
            None,
            "set word qu because it was mistyped",
        )
        .unwrap();
    assert_eq!(world.inst(1).ghost_word.as_deref(), Some("qu"));
    let turn = world.turn_name(1).unwrap();
    world
        .run_as(
            "mod",
            false,
            hours(10),
            None,
            &format!("remove {turn} because they asked"),
        )
        .unwrap();
    let inst = world.inst(1);
    assert!(inst.is_over(), "two of three were removed");
    assert_eq!(
        world
            .run_as("mod", false, hours(11), Some(1), "remove Nobody because x")
            .unwrap_err(),
        "ghost_over"
    );
    // A word set by the referee where there was none is no player's: a protest of
    // it is decided by the dictionary.
    let mut world = started(
        &["Alice", "Bob", "Carol"],
        "start with Alice, Bob, Carol",
        t0(),
    );
    let order = world.order(1);
    world
        .run_as("Rita", false, hours(1), None, "set word zq because a test")
        .unwrap();
    assert_eq!(world.inst(1).word_by, None);
    world
        .run(&order[0], hours(2), "protest not inside")
        .unwrap();
    let inst = world.inst(1);
    assert!(inst.ghost_word.is_none());
    assert_eq!(inst.in_game().count(), 3);
    assert_eq!(
        world
            .run_as("Rita", false, hours(3), None, "remove Nobody because x")
            .unwrap_err(),
        "ghost_no_such_seat"
    );
    world
        .run_as("Rita", false, hours(3), None, "clear word because x")
        .unwrap();
}

#[test]
fn several_instances_at_once_need_the_number() {
    let mut world = GhostTable::new(&["Alice", "Bob", "Carol", "Dave"]);
    assert_eq!(
        world.run("Alice", t0(), "s").unwrap_err(),
        "ghost_none_open"
    );
    world
        .run_as("Rita", false, t0(), None, "start with Alice, Bob")
        .unwrap();
    let mail = world
        .run_as("Rita", false, t0(), None, "start with Carol, Dave")
        .unwrap();
    assert_eq!(mail[0].tag, "ghost 2");
    // The second game draws in the period the first opened.
    assert_eq!(mail[0].values["new_period"], false);
    assert_eq!(
        world
            .shared()
            .random
            .current
            .as_ref()
            .map(|p| p.draws.len()),
        Some(2)
    );
    let first = world.order(1)[0].clone();
    assert_eq!(world.run(&first, hours(1), "s").unwrap_err(), "ghost_which");
    assert_eq!(
        world.last_sentence().args["instances"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    assert_eq!(
        world
            .run_as(&first, true, hours(1), Some(3), "s")
            .unwrap_err(),
        "ghost_no_such_instance"
    );
    assert_eq!(
        world
            .run_as(&first, true, hours(1), Some(2), "s")
            .unwrap_err(),
        "ghost_not_in_game"
    );
    let mail = world.run_as(&first, true, hours(1), Some(1), "s").unwrap();
    assert_eq!(mail[0].tag, "ghost 1");
    let other = world.order(2)[0].clone();
    world.run_as(&other, true, hours(1), Some(2), "q").unwrap();
    assert_eq!(world.inst(2).ghost_word.as_deref(), Some("q"));
    // Game 1 ends: its period ends and its seed is published; game 2 goes on alone,
    // and then needs no number.
    let second = world.order(1)[1].clone();
    let mail = world
        .run_as(&second, true, hours(2), Some(1), "leave")
        .unwrap();
    assert_eq!(templates(&mail), ["ghost_news", "random_period_revealed"]);
    assert!(world.shared().random.current.is_none());
    let next = world.turn_name(2).unwrap();
    world.run(&next, hours(3), "qu").unwrap();
    let last = world.order(2)[0].clone();
    let mail = world.run(&last, hours(4), "leave").unwrap();
    assert_eq!(templates(&mail), ["ghost_news"], "game 2 opened no period");
    assert_eq!(
        world.run("Alice", hours(5), "s").unwrap_err(),
        "ghost_none_open"
    );
    assert_eq!(world.last_sentence().args["finished"], json!([1, 2]));
}

/// Every `ghost_` code the module can produce has a wording, and every wording
/// renders with its sample arguments.
#[test]
fn every_sentence_has_a_wording_and_every_sample_renders() {
    // Every file of the module, tests included, as when it was one file.
    let source = [
        include_str!("mod.rs"),
        include_str!("parse.rs"),
        include_str!("commands.rs"),
        include_str!("rules.rs"),
        include_str!("report.rs"),
        include_str!("tests.rs"),
        include_str!("tests_protest.rs"),
        include_str!("tests_referee.rs"),
    ]
    .concat();
    let wordings = include_str!("../../../templates/sentences/ghost.txt");
    let mut codes: Vec<&str> = Vec::new();
    for opener in ["Sentence::new(\"", "refuse(\""] {
        for (at, _) in source.match_indices(opener) {
            let rest = &source[at + opener.len()..];
            if let Some(end) = rest.find('"') {
                let code = &rest[..end];
                if code.starts_with("ghost_") && !codes.contains(&code) {
                    codes.push(code);
                }
            }
        }
    }
    assert!(codes.len() > 40, "{codes:?}");
    for code in &codes {
        assert!(
            wordings.contains(&format!("s.code == \"{code}\"")),
            "no wording for {code}"
        );
    }
    // Each branch is preceded by a sample line; render every one with it.
    let mut rendered = 0;
    let lines: Vec<&str> = wordings.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        let Some(sample) = line
            .trim()
            .strip_prefix("{#- sample:")
            .and_then(|s| s.strip_suffix("#}"))
        else {
            continue;
        };
        let code = lines[i + 1]
            .split('"')
            .nth(1)
            .unwrap_or_else(|| panic!("no branch after line {}", i + 1));
        let mut sentence = Sentence::new(code);
        let mut rest = sample.trim();
        while !rest.is_empty() && rest != "(no args)" {
            let (key, after) = rest.split_once('=').unwrap();
            let mut values = serde_json::Deserializer::from_str(after).into_iter::<Value>();
            let value = values.next().unwrap().unwrap();
            sentence = sentence.arg(key.trim(), value);
            rest = after[values.byte_offset()..].trim();
        }
        render_sentence(&sentence);
        rendered += 1;
    }
    assert_eq!(rendered, wordings.matches("s.code == ").count());
    // The refusals no scenario above reaches.
    for sentence in [
        Sentence::new("ghost_too_many").arg("n", 12).arg("max", 10),
        random_error(&random::DrawError::NoPeriod).0,
    ] {
        render_sentence(&sentence);
    }
}

/// Random lines from random people at random times, many games over: the
/// engine never panics, and what the rule makes invariant stays so.
#[test]
fn random_play_keeps_every_game_consistent() {
    let everyone = ["Alice", "Bob", "Carol", "Dave", "Eve", "Rita", "mod", "Zed"];
    for seed in 0..25u64 {
        let mut rng = crate::engine::random::Stream::new(&format!("random ghost {seed}"));
        let n_players = 2 + rng.below(4);
        let names = &everyone[..n_players];
        let mut world = GhostTable::new(&["Alice", "Bob", "Carol", "Dave", "Eve", "Zed"]);
        let start = format!("start with {}", names.join(", "));
        world.run_as("Rita", true, t0(), None, &start).unwrap();
        let mut at = t0();
        for _ in 0..80 {
            at = at
                .checked_add(SignedDuration::from_mins(1 + rng.below(3000) as i64))
                .unwrap();
            // The clock reaches `at`: every reminder and deadline on the way fires.
            world.tick(at);
            let word = world.inst(1).ghost_word.clone().unwrap_or_default();
            let letter = char::from(b'a' + rng.below(26) as u8);
            let line = match rng.below(20) {
                0..=3 => format!("{word}{letter}"),
                4 => format!("{letter}{word}"),
                5 => letter.to_string(),
                6 => "protest word".to_owned(),
                7 => "protest not inside".to_owned(),
                8 => format!(
                    "word {}",
                    ["supersonic", "cattle", "queue", "zzz", "ghost"][rng.below(5)]
                ),
                9 => ["resign", "leave", "add me"][rng.below(3)].to_owned(),
                10 => format!("protest addition {}", everyone[rng.below(6)]),
                11 => ["status", "history", "referee", "resign referee"][rng.below(4)].to_owned(),
                12 => format!("remove {} because the dice said so", everyone[rng.below(6)]),
                13 => format!(
                    "rule {} because the dice said so",
                    ["valid", "invalid"][rng.below(2)]
                ),
                14 => format!("set word {word}{letter} because the dice said so"),
                15 => "clear word because the dice said so".to_owned(),
                16 => format!("turn {} because the dice said so", everyone[rng.below(6)]),
                17 => format!(
                    "deadline in {} hours because the dice said so",
                    rng.below(100)
                ),
                18 => {
                    let mut listed: Vec<&str> = everyone[..6]
                        .iter()
                        .copied()
                        .filter(|_| rng.below(2) == 0)
                        .collect();
                    let by = rng.below(listed.len().max(1));
                    listed.rotate_left(by);
                    format!("order {} because the dice said so", listed.join(", "))
                }
                _ => format!(
                    "set word {word}{letter} by {} because the dice said so",
                    everyone[rng.below(6)]
                ),
            };
            let who = everyone[rng.below(everyone.len())];
            let public = rng.below(8) != 0;
            let instance = if rng.below(2) == 0 { None } else { Some(1) };
            let _ = world.run_as(who, public, at, instance, &line);
            check_invariants(&world, seed, &line);
        }
    }

    fn check_invariants(world: &GhostTable, seed: u64, line: &str) {
        let inst = world.inst(1);
        let in_game: Vec<u32> = inst.in_game().map(|s| s.number).collect();
        let context = || format!("seed {seed}, after {line:?}: {inst:#?}");
        let numbers: Vec<u32> = inst.seats.iter().map(|s| s.number).collect();
        assert!(
            numbers.windows(2).all(|w| w[0] < w[1]),
            "seats in order, each number one player's: {}",
            context()
        );
        if inst.is_over() {
            assert!(in_game.len() <= 1, "over with players left: {}", context());
            assert_eq!(inst.winner, in_game.first().copied(), "{}", context());
            assert!(
                world.deadlines().is_empty(),
                "an instance that is over has no clock: {:?} {}",
                world.deadlines(),
                context()
            );
            return;
        }
        assert!(
            in_game.len() >= 2,
            "not over with {in_game:?}: {}",
            context()
        );
        match &inst.stage {
            Stage::Turn { seat, .. } => {
                assert!(in_game.contains(seat), "{}", context());
                if !inst.is_suspended() {
                    assert!(
                        world
                            .deadlines()
                            .iter()
                            .any(|(id, _)| id.contains(":turn:")),
                        "a turn without its clock: {}",
                        context()
                    );
                }
            }
            Stage::Protest { protest } => {
                assert!(in_game.contains(&protest.by), "{}", context());
            }
            Stage::Between | Stage::Over => panic!("at rest in between: {}", context()),
        }
        if let Some(word) = &inst.ghost_word {
            assert!(
                !word.is_empty() && word.chars().all(|c| c.is_ascii_lowercase()),
                "{}",
                context()
            );
        }
    }
}
