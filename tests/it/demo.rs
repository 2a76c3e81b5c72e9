//! `nomicbot demo`, the README's first command, and its two game demos: each plays
//! through the real pipeline and prints what a newcomer should see.

fn demo(game: &str) -> String {
    let dir = tempfile::tempdir().expect("temp dir");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_nomicbot"))
        .args(["demo", "--game", game, "--dir"])
        .arg(dir.path())
        .output()
        .expect("run nomicbot demo");
    assert!(
        output.status.success(),
        "demo --game {game}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn the_registry_demo_answers_every_line_and_ignores_automatic_mail() {
    let out = demo("nomic");
    assert!(
        out.contains("Welcome, Alice: you are now a player."),
        "{out}"
    );
    assert!(out.contains("Kept aside"), "{out}");
    assert!(
        out.contains("Players (1):\n  Bob <bob@nomic.example>"),
        "{out}"
    );
}

#[test]
fn the_rule_tag_demo_plays_a_whole_nweek_to_both_notifications() {
    let out = demo("ruletag");
    for expected in [
        "Rule tag begins: the ball is on rule",
        "Copy: alice@nomic.example",
        "must be made before the end of nday 8",
        "first notification for nweek 0",
        "second notification for nweek 0",
        "Water beats Fire: Alice gives Bob 15 points",
        "receives the weekly award of 10 points",
        "Rule tag, nweek 1:",
    ] {
        assert!(out.contains(expected), "{expected:?} in:\n{out}");
    }
}

#[test]
fn the_ghost_demo_plays_to_a_winner_and_pays_the_rewards() {
    let out = demo("ghost");
    for expected in [
        "Ghost 1 begins:",
        "SUPER is a word of four or more letters in the official dictionary",
        "REFEREE'S REPORT",
        "3 players began the game",
        "8 A$",
        "4 points",
    ] {
        assert!(out.contains(expected), "{expected:?} in:\n{out}");
    }
}

#[test]
fn the_space_demo_plays_a_few_days_of_moves_purchases_and_income() {
    let out = demo("space");
    for expected in [
        "[space] Proposal Bridges passed",
        "[space] Proposal Walls failed",
        "Your vote on Bridges is counted",
        "Location changes evaluated",
        "Alice to (0, 0)",
        "You now own the vertex (0, 0), for 32 money units to nowhere",
        "[space] Income",
        "Carol: 2/3",
        "Alice: 95 812/1209 money units, at (1, 0)",
    ] {
        assert!(out.contains(expected), "{expected:?} in:\n{out}");
    }
}

/// Rule 1240: "They can be used only once." The Boons' demo begins with a Boon
/// creating an Otzma Card, its owner using it under `[nomic]`, and the second
/// use refused.
#[test]
fn the_boons_demo_creates_an_otzma_card_used_once_and_refuses_the_second_use() {
    let out = demo("boons");
    for expected in [
        "Boon of the Ancients 1: Carol receives Otzma Card",
        "Entity #1: Otzma Card, \"The Fool\", now held by Carol.",
        "Subject: [nomic] Carol uses #1 Otzma Card",
        "What Carol says it does: Bob skips his next turn",
        "Refused: #1 Otzma Card (The Fool) was used already, by Carol",
    ] {
        assert!(out.contains(expected), "{expected:?} in:\n{out}");
    }
    assert_eq!(
        out.matches("Subject: [nomic] Carol uses #1").count(),
        1,
        "one use announced:\n{out}"
    );
}

/// `demo --game NAME` refuses a name it does not know, listing the names it does:
/// `nomic` and every registered game, the list the next test plays through.
#[test]
fn an_unknown_demo_is_refused_with_every_name() {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_nomicbot"))
        .args(["demo", "--game", "nosuchgame"])
        .output()
        .expect("run nomicbot demo");
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    let names: Vec<&str> = nomicbot::demo::names();
    assert_eq!(names[0], "nomic");
    assert_eq!(&names[1..], nomicbot::games::game_names().as_slice());
    assert!(
        stderr.contains(&format!("[possible values: {}]", names.join(", "))),
        "{stderr}"
    );
}

/// Every registered game has a demo: the samples' setup and the game's sample
/// through the real pipeline, with some of the game's own mail in full and its
/// state at the end.
#[test]
fn every_registered_game_plays_its_sample_as_a_demo() {
    let samples = nomicbot::games::samples();
    assert!(!samples.is_empty(), "no game is registered");
    for sample in samples {
        let out = demo(sample.name);
        assert!(
            out.contains(&format!("nomicbot demo --game {}", sample.name)),
            "{out}"
        );
        let own_subjects = sample
            .tags
            .iter()
            .filter(|tag| out.contains(&format!("Subject: [{tag}")))
            .count();
        assert!(
            own_subjects > 0,
            "no mail of {} in full ({:?}):\n{out}",
            sample.name,
            sample.tags
        );
        assert!(
            out.contains(&format!("`nomicbot state {}` now:", sample.name)),
            "{out}"
        );
    }
}
