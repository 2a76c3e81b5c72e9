//! Issue 22: the rules change, and the bot follows them. Played on the real
//! page (`rules/gnomic-ruleset-v73.txt`, imported), so hacks are numbered from
//! 441 and amend or repeal the very rules the mechanics are bound to.

use super::*;

const PAGE: &str = include_str!("../../../../rules/gnomic-ruleset-v73.txt");

/// The v73 page imported, Alice, Bob, Carol and Dave seated (`players`: the
/// first of them), n far off (the page's ordinals earn up to 150 a hack).
fn v73(players: usize) -> Table {
    let mut params = Params::default();
    params.numbers.threshold_floor = 100_000;
    let rules = crate::engine::ruleset::parse_ruleset(PAGE).unwrap();
    let params = crate::games::Params::new(
        players::Params::default(),
        Officers {
            moderators: vec![Address::new(MODERATOR)],
            ..Officers::default()
        },
        Calendar::default(),
        Arc::new(NoWords),
        GameParams {
            gnomic: params,
            ..games_off_the_page()
        },
    );
    let mut table = Table::new(World::default(), params);
    let done = table.world.ruleset.import(rules, mins(-10)).unwrap();
    let events: Vec<_> = done
        .events
        .into_iter()
        .map(crate::games::Event::Ruleset)
        .collect();
    table.record(mins(-10), &events);
    for name in ["Alice", "Bob", "Carol", "Dave"].into_iter().take(players) {
        let from = format!("{}@x.org", name.to_lowercase());
        table.send(mins(-5), &from, true, "nomic", &format!("join {name}"));
    }
    table.send(t0(), MODERATOR, true, TAG, "start");
    assert_eq!(table.last[0].status, Status::Done, "{:?}", table.last);
    table
}

/// Rule 103 of the page is Gnomic's, not Ghost's (Ackanomic's): the other
/// games are bound where the page has no rule, as bot.toml would bind them.
fn games_off_the_page() -> GameParams {
    let config: toml::Table = "[ghost]\nrule = 10103".parse().unwrap();
    GameParams::from_config(&config).unwrap()
}

/// `mover` posts `lines` at minute `at`; every other seated player votes as
/// `choice` gives (by hack) a minute later; the count follows.
fn play(
    table: &mut Table,
    at: i64,
    mover: &str,
    lines: &[&str],
    choice: impl Fn(&str, u32) -> &'static str,
) -> TurnResult {
    done(table, mins(at), mover, true, lines);
    let open = state(table).open.clone().expect("the turn is open");
    for voter in [ALICE, BOB, CAROL, DAVE] {
        if voter == mover
            || !state(table)
                .scores
                .iter()
                .any(|s| voter.starts_with(&s.name.to_lowercase()))
        {
            continue;
        }
        for proposal in &open.proposals {
            let number = proposal.hack.number;
            let line = format!("vote {number} {}", choice(voter, number));
            done(table, mins(at + 1), voter, false, &[&line]);
        }
    }
    table.run_until(mins(at + 2));
    last_result(table)
}

fn all_for(_: &str, _: u32) -> &'static str {
    "for"
}

fn reasons(result: &TurnResult) -> Vec<Reason> {
    result.changes.iter().map(|c| c.reason).collect()
}

fn binding_mail(table: &Table, from: usize) -> serde_json::Value {
    table.mail[from..]
        .iter()
        .find(|m| m.template == "bindings_changed")
        .map(|m| m.values.clone())
        .unwrap_or_else(|| {
            panic!(
                "no bindings_changed in {:?}",
                templates(&table.mail[from..])
            )
        })
}

#[test]
fn rule_372_repealed_by_an_adopted_hack_stops_the_vowel_bonus_at_the_completion_of_the_vote() {
    let mut table = v73(4);
    // While 372 is in effect: "Hm", "Shh." has no vowel: 2 × 150 more.
    let first = play(
        &mut table,
        1,
        ALICE,
        &["turn", "hack 441 \"Hm\"", "enact", "Shh.", "end"],
        all_for,
    );
    assert!(reasons(&first).contains(&Reason::Vowels { hack: 441 }));
    // Bob's turn repeals 372: from the completion of its vote the bonus is
    // gone, this turn's score update included (it comes after the vote).
    let mark = table.mail.len();
    let second = play(
        &mut table,
        10,
        BOB,
        &[
            "turn",
            "hack 442 \"Quiet\" repeals 372",
            "hack 443 \"Zz\"",
            "enact",
            "Zzz.",
            "end",
        ],
        all_for,
    );
    assert!(second.outcomes.iter().all(|o| o.adopted));
    assert!(
        !reasons(&second)
            .iter()
            .any(|r| matches!(r, Reason::Vowels { .. })),
        "{:?}",
        second.changes
    );
    // The announcement of the change says what stopped.
    let said = binding_mail(&table, mark);
    assert_eq!(said["changes"][0]["rule"], 372);
    assert_eq!(said["changes"][0]["what"], "stopped");
    assert_eq!(said["changes"][0]["why"], "repealed");
    assert_eq!(
        said["changes"][0]["mechanics"],
        serde_json::json!(["the vowel bonus"])
    );
    render_every_binding_mail(&table);
    // And it stays gone.
    let third = play(
        &mut table,
        20,
        CAROL,
        &["turn", "hack 444 \"Mm\"", "enact", "Pst.", "end"],
        all_for,
    );
    assert!(
        !reasons(&third)
            .iter()
            .any(|r| matches!(r, Reason::Vowels { .. }))
    );
}

#[test]
fn rules_394_204_and_421_repealed_stop_their_bonuses_and_penalty() {
    let mut table = v73(4);
    play(
        &mut table,
        1,
        ALICE,
        &[
            "turn",
            "hack 441 \"No Greek\" repeals 394",
            "hack 442 \"No reward\" repeals 204",
            "hack 443 \"No mommy\" repeals 421",
        ],
        all_for,
    );
    for rule in [394, 204, 421] {
        assert!(!table.world.ruleset.exists(rule));
    }
    // Bob's hack with three Greek letters, adopted with Carol against: no
    // Greek bonus (394), nothing for Carol (204). His second fails: no 421.
    let result = play(
        &mut table,
        10,
        BOB,
        &[
            "turn",
            "hack 444 \"Letters\"",
            "enact",
            "Let alpha be 1, beta be 2 and gamma be 3.",
            "end",
            "hack 445 \"Doomed\"",
            "enact",
            "Nobody likes this.",
            "end",
        ],
        |voter, hack| match (voter, hack) {
            (CAROL, 444) => "against",
            (_, 445) => "against",
            _ => "for",
        },
    );
    assert!(result.outcomes[0].adopted && !result.outcomes[1].adopted);
    let reasons = reasons(&result);
    assert!(!reasons.iter().any(|r| matches!(
        r,
        Reason::Greek { .. } | Reason::AgainstWinner { .. } | Reason::Failed { .. }
    )));
    // 304 still scores both, the failed one its fraction.
    assert!(reasons.contains(&Reason::Adopted { hack: 444 }));
    assert!(reasons.contains(&Reason::Favourable { hack: 445 }));
}

#[test]
fn rule_440_repealed_sends_no_more_gnomes() {
    // Two players: 3 − 2 = 1 Gnome votes on each hack, one hack a post.
    let mut table = v73(2);
    let first = play(
        &mut table,
        1,
        ALICE,
        &["turn", "hack 441 \"Sunlight\" repeals 440"],
        all_for,
    );
    assert_eq!(first.outcomes[0].gnomes.len(), 1);
    assert!(first.outcomes[0].adopted);
    // No Gnome comes out of the mines now, and two hacks may share a post.
    let second = play(
        &mut table,
        10,
        BOB,
        &[
            "turn",
            "hack 442 \"One\"",
            "enact",
            "One.",
            "end",
            "hack 443 \"Two\"",
            "enact",
            "Two.",
            "end",
        ],
        all_for,
    );
    assert!(second.outcomes.iter().all(|o| o.gnomes.is_empty()));
}

/// Rule 304's v73 text with its 291 written otherwise.
fn rule_304_with(from: &str, to: &str) -> String {
    let rules = crate::engine::ruleset::parse_ruleset(PAGE).unwrap();
    let text = rules.iter().find(|r| r.number == 304).unwrap().text.clone();
    assert!(text.contains(from));
    text.replacen(from, to, 1)
}

/// Alice's turn: hack 441 amends 304 with `text`, adopted by all.
fn amend_304(table: &mut Table, text: &str) -> TurnResult {
    let mut lines = vec!["turn", "hack 441 \"A turn\" amends 304", "text"];
    lines.extend(text.lines());
    lines.push("end");
    play(table, 1, ALICE, &lines, all_for)
}

#[test]
fn rule_304_amended_in_its_number_changes_the_points_from_then_on() {
    let mut table = v73(4);
    let mark = table.mail.len();
    amend_304(
        &mut table,
        &rule_304_with("subtracting 291", "subtracting 281"),
    );
    // 108: the amended rule is 441 now; the bot follows it there.
    assert!(!table.world.ruleset.exists(304) && table.world.ruleset.exists(441));
    let said = binding_mail(&table, mark);
    let change = &said["changes"][0];
    assert_eq!(
        (change["rule"].clone(), change["what"].clone()),
        (304.into(), "numbers".into())
    );
    assert_eq!(change["values"][0]["was"], 291);
    assert_eq!(change["values"][0]["now"], 281);
    render_every_binding_mail(&table);
    // Bob's hack 442, all for: (442 − 281) × 1 = 161.
    let result = play(
        &mut table,
        10,
        BOB,
        &["turn", "hack 442 \"Quiet\"", "enact", "Be quiet.", "end"],
        all_for,
    );
    assert!(result.changes.contains(&ScoreChange {
        player: 2,
        name: "Bob".into(),
        points: 161,
        reason: Reason::Adopted { hack: 442 },
    }));
    // `[ruleset] show 304` is refused (it is 441 now); show 441 says what it drives.
    let _ = table.message(mins(20), DAVE, false, "ruleset", &["show 441"]);
    // Replay from the log gives the same world, the new number included.
    assert_replays(&table);
}

#[test]
fn rule_304_amended_in_its_wording_holds_the_count_until_a_moderator_rules() {
    let mut table = v73(4);
    let mark = table.mail.len();
    amend_304(
        &mut table,
        &rule_304_with("subtracting 291 from", "adding 291 to"),
    );
    let said = binding_mail(&table, mark);
    assert_eq!(said["changes"][0]["what"], "held");
    // The moderators are asked privately, with the difference.
    let asked = table.mail[mark..]
        .iter()
        .find(|m| m.template == "bindings_held")
        .expect("the moderators are asked");
    assert_eq!(asked.to, Audience::Address(Address::new(MODERATOR)));
    assert!(
        asked.values["held"][0]["why"]
            .as_str()
            .unwrap()
            .contains("adding 291 to")
    );
    render_every_binding_mail(&table);
    // Bob's turn: its votes are in, but the count is held.
    done(
        &mut table,
        mins(10),
        BOB,
        true,
        &["turn", "hack 442 \"Quiet\"", "enact", "Be quiet.", "end"],
    );
    for voter in [ALICE, CAROL, DAVE] {
        done(&mut table, mins(11), voter, false, &["vote 442 for"]);
    }
    let mark = table.mail.len();
    table.run_until(mins(12));
    assert!(state(&table).open.as_ref().is_some_and(|t| t.held));
    assert_eq!(templates(&table.mail[mark..]), ["gnomic_count_held"]);
    // `status` says so.
    let _ = send(&mut table, mins(13), DAVE, false, &["status"]);
    assert_eq!(
        table.last[0].sentence.args["status"]["held"][0]["rule"],
        304
    );
    // Not a player's to rule.
    let _ = table.message(
        mins(14),
        BOB,
        true,
        "ruleset",
        &["binding 304 keep because I like it"],
    );
    assert_eq!(table.last[0].status, Status::Refused);
    // The moderator keeps the old reading: the count goes on, by 291.
    let _ = table.message(
        mins(15),
        MODERATOR,
        true,
        "ruleset",
        &["binding 304 keep because the change was meant as a typo fix"],
    );
    assert_eq!(table.last[0].status, Status::Done, "{:?}", table.last);
    assert!(
        state(&table).open.as_ref().is_some_and(|t| !t.held),
        "{:?} {:?}",
        templates(&table.mail),
        table.world.ruleset.bindings
    );
    table.run_until(mins(16));
    let result = last_result(&table);
    assert_eq!(result.turn, 2);
    assert!(result.changes.contains(&ScoreChange {
        player: 2,
        name: "Bob".into(),
        points: 151,
        reason: Reason::Adopted { hack: 442 },
    }));
    assert_replays(&table);
}

#[test]
fn a_moderator_sets_a_held_rules_number_or_switches_it_off() {
    let mut table = v73(4);
    amend_304(
        &mut table,
        &rule_304_with("subtracting 291 from", "adding 291 to"),
    );
    let _ = table.message(
        mins(5),
        MODERATOR,
        true,
        "ruleset",
        &["binding 304 set ordinal_offset 431 because the players meant a small reward"],
    );
    assert_eq!(table.last[0].status, Status::Done, "{:?}", table.last);
    let result = play(
        &mut table,
        10,
        BOB,
        &["turn", "hack 442 \"Quiet\"", "enact", "Be quiet.", "end"],
        all_for,
    );
    // (442 − 431) × 1 = 11.
    assert!(reasons(&result).contains(&Reason::Adopted { hack: 442 }));
    assert_eq!(result.changes[0].points, 11);
    // Off: no more points from 304.
    let _ = table.message(
        mins(20),
        MODERATOR,
        true,
        "ruleset",
        &["binding 304 off because the players agreed to score by hand"],
    );
    let result = play(
        &mut table,
        30,
        CAROL,
        &["turn", "hack 443 \"Loud\" repeals 205"],
        all_for,
    );
    assert!(!reasons(&result).contains(&Reason::Adopted { hack: 443 }));
    // A parameter the rule has not is refused with the names it has.
    let _ = table.message(
        mins(40),
        MODERATOR,
        true,
        "ruleset",
        &["binding 304 set offset 1 because no"],
    );
    assert_eq!(table.last[0].sentence.code, "binding_no_parameter");
}

/// Replay from the log gives the registry (the bindings and their numbers
/// included) and the game as they are.
fn assert_replays(table: &Table) {
    let records: Vec<(Timestamp, &str, &crate::games::Event)> = table
        .events
        .iter()
        .map(|(at, cause, event)| (*at, cause.as_str(), event))
        .collect();
    let replayed = crate::games::fold(World::default(), &records);
    assert_eq!(replayed.ruleset, table.world.ruleset);
    assert_eq!(replayed.games.gnomic, table.world.games.gnomic);
}

/// Renders the registry's announcements with their shipped templates.
fn render_every_binding_mail(table: &Table) {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    for mail in &table.mail {
        let source = match mail.template.as_str() {
            "bindings_changed" => include_str!("../../../../templates/bindings_changed.txt"),
            "bindings_held" => include_str!("../../../../templates/bindings_held.txt"),
            "gnomic_count_held" => include_str!("../../../../templates/gnomic_count_held.txt"),
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
fn with_unrecorded_rules_absent_a_ruleset_without_gnomics_rules_scores_nothing() {
    // `[bot] unrecorded_rules = "absent"`: a rule not in the registry is not in
    // effect, so with none of Gnomic's rules imported 304 gives no points; with
    // the default ("baseline") the same turn scores by the texts of v73.
    // "Hm", "Shh.": 304's 10 and 372's 2 × 10.
    for (baseline, expected) in [(true, 30), (false, 0)] {
        // The text's numbers: no rule of this ruleset is one of them.
        let params = Params::default();
        let rules = vec![rule(205, "Rules take effect.", true)];
        let mut table = bound_table(params, rules);
        table.params.setting.baseline_when_unrecorded = baseline;
        done(
            &mut table,
            mins(1),
            ALICE,
            true,
            &["turn", "hack 301 \"Hm\"", "enact", "Shh.", "end"],
        );
        for voter in [BOB, CAROL, DAVE] {
            done(&mut table, mins(2), voter, false, &["vote 301 for"]);
        }
        table.run_until(mins(3));
        assert_eq!(points(&table, "Alice"), expected, "baseline: {baseline}");
    }
}

#[test]
fn an_enactment_using_a_term_a_bound_rule_defines_is_held_for_the_moderators() {
    // 434 defines "proposal"; a new rule that uses the word may change what
    // the bot computes of proposals: the moderators are asked, the next count
    // waits, and a ruling lets it go on.
    let mut table = v73(4);
    let mark = table.mail.len();
    play(
        &mut table,
        1,
        ALICE,
        &[
            "turn",
            "hack 441 \"Short\"",
            "enact",
            "A proposal of more than ten words earns nothing.",
            "end",
        ],
        all_for,
    );
    let said = binding_mail(&table, mark);
    assert_eq!(said["changes"][0]["rule"], 434);
    assert_eq!(said["changes"][0]["what"], "held");
    assert!(
        said["changes"][0]["why"]
            .as_str()
            .unwrap()
            .contains("rule 441")
    );
    assert!(
        table.mail[mark..]
            .iter()
            .any(|m| m.template == "bindings_held")
    );
    done(
        &mut table,
        mins(10),
        BOB,
        true,
        &["turn", "hack 442 \"Quiet\"", "enact", "Be quiet.", "end"],
    );
    for voter in [ALICE, CAROL, DAVE] {
        done(&mut table, mins(11), voter, false, &["vote 442 for"]);
    }
    table.run_until(mins(12));
    assert!(state(&table).open.as_ref().is_some_and(|t| t.held));
    let _ = table.message(
        mins(13),
        MODERATOR,
        true,
        "ruleset",
        &["binding 434 keep because 441 only adds a condition the Judge can apply"],
    );
    assert_eq!(table.last[0].status, Status::Done, "{:?}", table.last);
    table.run_until(mins(14));
    assert_eq!(last_result(&table).turn, 2);
    assert_replays(&table);
}
