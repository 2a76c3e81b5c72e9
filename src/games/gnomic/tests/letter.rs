//! Issue 21: Gnomic to the letter. Each test quotes the clause it plays, on the
//! same table as the scenarios above.

use super::*;

fn changes_of(result: &TurnResult, name: &str) -> Vec<(i64, Reason)> {
    result
        .changes
        .iter()
        .filter(|c| c.name == name)
        .map(|c| (c.points, c.reason))
        .collect()
}

/// Votes on `hack` by Bob, Carol and Dave, privately, at `at`.
fn votes(table: &mut Table, at: Timestamp, hack: u32, choices: [&str; 3]) {
    for (from, choice) in [BOB, CAROL, DAVE].into_iter().zip(choices) {
        done(table, at, from, false, &[&format!("vote {hack} {choice}")]);
    }
}

#[test]
fn rule_304_a_proposal_that_fails_still_earns_its_fraction_of_favourable_votes_and_421_comes_on_top()
 {
    // 304: "subtracting 291 from the ordinal number of each proposal and
    // multiplying the result by the fraction of favorable votes it received,
    // rounded to the nearest integer, and adding this number to the
    // proponent's score". Alice abstains on her own 301 (402); Bob for, Carol
    // and Dave against: 1 of 3, not adopted. 304: 10 × 1/3 = 3.33 → 3; 421:
    // "(omicron-291) * (alpha/nu)" = 10 × 2/3 = 6.67 → 7.
    let mut table = table();
    let mut post = ENACT_301.to_vec();
    post.push("abstain 301");
    done(&mut table, mins(1), ALICE, true, &post);
    votes(&mut table, mins(2), 301, ["for", "against", "against"]);
    table.run_until(mins(3));
    let result = last_result(&table);
    assert!(!result.outcomes[0].adopted);
    // 372's P is the 3 it earned: V = 3 ("Speech", "Players may sing.": e) is
    // not below P, so no vowel bonus.
    assert_eq!(
        changes_of(&result, "Alice"),
        [
            (3, Reason::Favourable { hack: 301 }),
            (-7, Reason::Failed { hack: 301 })
        ]
    );
    assert_eq!(points(&table, "Alice"), -4);
    let update = the_mail(&table.mail, "gnomic_result");
    assert!(
        update.values["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| {
                c["reason"]["what"] == "favourable"
                    && c["reason"]["rule"] == "304"
                    && c["points"] == 3
            })
    );
    render_every_announcement(&table);
}

#[test]
fn rule_304_a_failed_transmutation_earns_its_fraction_too() {
    // 109: "may be adopted if and only if the vote is unanimous": 3 of 4 is
    // not. 304 still scores "each proposal": 10 × 3/4 = 7.5 → 8; 421: 10 × 1/4
    // = 2.5 → 3.
    let mut table = table();
    done(
        &mut table,
        mins(1),
        ALICE,
        true,
        &["turn", "hack 301 \"Softer\" transmutes 101"],
    );
    votes(&mut table, mins(2), 301, ["for", "for", "against"]);
    table.run_until(mins(3));
    let result = last_result(&table);
    assert!(!result.outcomes[0].adopted);
    assert_eq!(
        changes_of(&result, "Alice"),
        [
            (8, Reason::Favourable { hack: 301 }),
            (-3, Reason::Failed { hack: 301 })
        ]
    );
    // 204 is for "winning proposals" only: Dave gets nothing.
    assert!(changes_of(&result, "Dave").is_empty());
}

#[test]
fn rule_421_a_meta_amendment_that_failed_with_its_parent_has_no_share_and_no_penalty() {
    // 421: "If it had a majority of votes and therefore would have passed if
    // its parent proposal had passed, the player receives no penalty." It
    // failed: 401's share ("The player whose meta-amendment is adopted") is
    // not Bob's, though 301's proponent earned 304's fraction.
    let mut table = table();
    done(&mut table, mins(1), ALICE, true, &ENACT_301);
    done(&mut table, mins(2), BOB, true, &META_302);
    votes(&mut table, mins(3), 301, ["against", "against", "against"]);
    for voter in [ALICE, CAROL, DAVE] {
        done(&mut table, mins(3), voter, false, &["vote 302 for"]);
    }
    table.run_until(mins(4 + 72 * 60));
    let result = last_result(&table);
    assert!(!result.outcomes[0].adopted);
    assert!(
        changes_of(&result, "Bob").is_empty(),
        "{:?}",
        result.changes
    );
    // 301: 1 of 4 for: 304's 10 × 1/4 = 2.5 → 3, 421's 10 × 3/4 = 7.5 → 8.
    assert_eq!(
        changes_of(&result, "Alice")[..2],
        [
            (3, Reason::Favourable { hack: 301 }),
            (-8, Reason::Failed { hack: 301 })
        ]
    );
}

#[test]
fn rule_324_is_void_and_imposes_no_penalty_for_not_voting() {
    // 324 "(void: conflicting rule)": "he will receive a one-time penalty of 10
    // points". A void rule is not in effect: 322's "any applicable penalties"
    // are none, and the turn's announcement promises none.
    let mut table = table();
    done(&mut table, mins(1), ALICE, true, &ENACT_301);
    let turn = the_mail(&table.mail, "gnomic_turn");
    assert_eq!(turn.values["penalty"], 0);
    table.run_until(mins(2 + 72 * 60));
    let result = last_result(&table);
    assert!(
        result.outcomes[0]
            .votes
            .iter()
            .filter(|v| v.missing)
            .count()
            == 3
    );
    assert!(!result.changes.iter().any(|c| c.reason == Reason::NoVote));
    for name in ["Bob", "Carol", "Dave"] {
        assert_eq!(points(&table, name), 0);
    }
}

#[test]
fn rule_304_a_turn_mailed_to_the_bot_alone_is_refused_and_stays_the_players_to_post() {
    // 304: "All a player's proposals for a given turn must be stated initially
    // in a single post to the web-board"; 302: "posted to the Message Board
    // before it is voted on".
    let mut table = table();
    table.mail.clear();
    assert_eq!(
        refused(&mut table, mins(1), ALICE, false, &ENACT_301),
        "gnomic_turn_private"
    );
    assert!(state(&table).open.is_none());
    assert!(public(&table.mail).is_empty());
    assert_eq!(state(&table).last_ordinal, 0);
    // The real post takes the same number.
    done(&mut table, mins(2), ALICE, true, &ENACT_301);
    assert_eq!(state(&table).open.as_ref().unwrap().proponent_name, "Alice");
}

#[test]
fn rule_325_a_newcomer_is_seated_at_the_instant_ey_joins_and_never_takes_the_turn_begun() {
    // 325: "Players shall alternate in alphabetical order ... taking one whole
    // turn apiece"; "If a player joins the game while it is in progress, they
    // shall begin play with one-half the average score of the players in the
    // game at that time".
    let mut table = table();
    with_points(&mut table, [40, 40, 40, 40]);
    done(&mut table, mins(1), ALICE, true, &ENACT_301);
    votes(&mut table, mins(2), 301, ["for", "for", "for"]);
    table.run_until(mins(3));
    // Bob's turn has begun. Ben joins: seated at once with 325's score, no
    // step of the game needed. Alice has 64 (10, and 372's 14), the others
    // 40: half the average is 23, under 80% of the minimum (32).
    assert_eq!(points(&table, "Alice"), 64);
    table.send(mins(4), "ben@x.org", true, "nomic", "join Ben");
    let ben = state(&table)
        .scores
        .iter()
        .find(|s| s.name == "Ben")
        .cloned()
        .expect("Ben seated at the instant of joining");
    assert_eq!(ben.since, Some(mins(4)));
    assert_eq!(ben.points, 23);
    // Ben comes before Bob in the alphabet, but Bob's turn has begun.
    assert_eq!(
        refused(
            &mut table,
            mins(5),
            "ben@x.org",
            true,
            &["turn", "hack 302 \"Mine\" repeals 210"]
        ),
        "gnomic_not_your_turn"
    );
    assert_eq!(table.last[0].sentence.args["mover"], "Bob");
    done(
        &mut table,
        mins(6),
        BOB,
        true,
        &["turn", "hack 302 \"Quiet\" repeals 210"],
    );
    // Ben votes on Bob's hack: every player is an eligible voter (105).
    for voter in [ALICE, "ben@x.org", CAROL, DAVE] {
        done(&mut table, mins(7), voter, false, &["vote 302 for"]);
    }
    table.run_until(mins(8));
    let update = the_mail(&table.mail, "gnomic_result");
    assert_eq!(update.values["next"], "Carol");
}

#[test]
fn rule_372_and_394_count_the_proposal_not_the_bots_syntax() {
    // 372: "The shortest proposal (in total number of characters) ... shall be
    // counted to determine the number of each vowel that it contains": the
    // title and the text proposed, "Hm" and "Shh.": V = 0 < P/2, so 2(P − V)
    // = 20. The words `hack`, `enact` and `end` are the bot's, not the
    // proposal's (they would make V = 2).
    let mut table = table();
    done(
        &mut table,
        mins(1),
        ALICE,
        true,
        &["turn", "hack 301 \"Hm\"", "enact", "Shh.", "end"],
    );
    votes(&mut table, mins(2), 301, ["for", "for", "for"]);
    table.run_until(mins(3));
    let result = last_result(&table);
    assert!(
        changes_of(&result, "Alice").contains(&(20, Reason::Vowels { hack: 301 })),
        "{:?}",
        result.changes
    );
}

#[test]
fn rule_394_the_bot_counts_the_greek_letters_of_the_proposal_itself() {
    // 394: "Any proposal that contains at least three Greek letters in its
    // text, used to represent numbers, shall receive a bonus of (sigma * 2 ^
    // gamma) / 100 points rounded down". With the page's ordinals (441 on),
    // sigma = 150 × 4/4; gamma = 3 (alpha, beta, gamma; "If two letters are
    // bound by the rule to stand for the same numerical value, then only one
    // of them counts": delta = gamma binds delta to gamma): 150 × 8 / 100 = 12.
    let mut rules = small_ruleset();
    rules.push(rule(440, "The ancient gnomic mines.", true));
    let mut table = table_with(Params::default(), rules);
    done(
        &mut table,
        mins(1),
        ALICE,
        true,
        &[
            "turn",
            "hack 441 \"Letters\"",
            "enact",
            "Let alpha be 1 and beta be 2. Let gamma be alpha plus beta, and delta = gamma.",
            "end",
        ],
    );
    let turn = the_mail(&table.mail, "gnomic_turn");
    assert_eq!(turn.values["hacks"][0]["greek_counted"], 3);
    votes(&mut table, mins(2), 441, ["for", "for", "for"]);
    table.run_until(mins(3));
    let result = last_result(&table);
    assert!(
        changes_of(&result, "Alice").contains(&(12, Reason::Greek { hack: 441 })),
        "{:?}",
        result.changes
    );
}

#[test]
fn rule_394_the_proponent_or_a_moderator_corrects_the_bots_count() {
    // "used to represent numbers" is not the bot's to see: the proponent's
    // `greek N COUNT` (or a moderator's) stands instead of the bot's count.
    let mut rules = small_ruleset();
    rules.push(rule(440, "The ancient gnomic mines.", true));
    let mut table = table_with(Params::default(), rules);
    done(
        &mut table,
        mins(1),
        ALICE,
        true,
        &[
            "turn",
            "hack 441 \"Letters\"",
            "enact",
            "Let alpha be 1, beta be 2 and gamma be 3.",
            "end",
        ],
    );
    assert_eq!(
        refused(&mut table, mins(2), BOB, false, &["greek 441 0"]),
        "gnomic_greek_not_yours"
    );
    done(&mut table, mins(2), MODERATOR, false, &["greek 441 0"]);
    votes(&mut table, mins(3), 441, ["for", "for", "for"]);
    table.run_until(mins(4));
    let result = last_result(&table);
    assert!(
        !result
            .changes
            .iter()
            .any(|c| matches!(c.reason, Reason::Greek { .. }))
    );
}

#[test]
fn rule_390_a_sacrifice_stated_on_its_own_sets_the_turns_mu() {
    // 390: "A player may during his turn choose to lose nu points by
    // stating:"I sacrifice lambda percent of my score for the well-being of
    // the game". A player may during his turn make mu proposals, where mu is
    // (1+lambda/kappa)rounded down". Alice has 50: 7 percent costs 4 (rounded
    // up) and allows 2 proposals.
    let mut table = table();
    with_points(&mut table, [50, 50, 50, 50]);
    assert_eq!(
        refused(&mut table, mins(1), BOB, true, &["sacrifice 7"]),
        "gnomic_not_your_turn"
    );
    assert_eq!(
        refused(&mut table, mins(1), ALICE, false, &["sacrifice 7"]),
        "gnomic_sacrifice_private"
    );
    table.mail.clear();
    done(
        &mut table,
        mins(2),
        ALICE,
        true,
        &["I sacrifice 7 percent of my score for the well-being of the game"],
    );
    assert_eq!(points(&table, "Alice"), 46);
    let said = the_mail(&table.mail, "gnomic_sacrificed");
    assert_eq!(said.to, Audience::List);
    assert_eq!(
        (said.values["nu"].clone(), said.values["mu"].clone()),
        (4.into(), 2.into())
    );
    assert_eq!(
        refused(&mut table, mins(3), ALICE, true, &["sacrifice 13"]),
        "gnomic_sacrificed_already"
    );
    let three = [
        "turn",
        "hack 301 \"A\" repeals 210",
        "hack 302 \"B\"",
        "enact",
        "Bees.",
        "end",
        "hack 303 \"C\"",
        "enact",
        "Cees.",
        "end",
    ];
    assert_eq!(
        refused(&mut table, mins(4), ALICE, true, &three),
        "gnomic_too_many"
    );
    assert_eq!(table.last[0].sentence.args["allowed"], 2);
    let mut with_another = three[..6].to_vec();
    with_another.push("sacrifice 13");
    assert_eq!(
        refused(&mut table, mins(4), ALICE, true, &with_another),
        "gnomic_sacrificed_already"
    );
    done(&mut table, mins(5), ALICE, true, &three[..6]);
    // Paid once: the post does not take nu again.
    assert_eq!(points(&table, "Alice"), 46);
    let open = state(&table).open.clone().unwrap();
    assert_eq!(open.sacrifice.map(|s| (s.lambda, s.mu)), Some((7, 2)));
    // Once the proposals are posted, the turn's sacrifice is past.
    assert_eq!(
        refused(&mut table, mins(6), ALICE, true, &["sacrifice 7"]),
        "gnomic_sacrifice_too_late"
    );
}

#[test]
fn rule_383_a_shout_names_one_of_the_listed_grounds() {
    // 383: "Players are allowed to shout "UNRULEWORTHY!!!" at any current
    // proposal, if this proposal would cause any player to win ..., or if it
    // is seriously unclear, ..."; 410 adds "unnecessarily obfuscated".
    let mut table = table();
    done(&mut table, mins(1), ALICE, true, &ENACT_301);
    assert_eq!(
        refused(&mut table, mins(2), BOB, true, &["UNRULEWORTHY!!! 301"]),
        "gnomic_shout_no_ground"
    );
    assert_eq!(
        refused(
            &mut table,
            mins(2),
            BOB,
            true,
            &["UNRULEWORTHY!!! 301 I just do not like it"]
        ),
        "gnomic_shout_no_ground"
    );
    assert!(state(&table).open.as_ref().unwrap().proposal(301).is_some());
    table.mail.clear();
    done(
        &mut table,
        mins(3),
        BOB,
        true,
        &["UNRULEWORTHY!!! 301 it is unnecessarily obfuscated"],
    );
    let shouted = the_mail(&table.mail, "gnomic_shouted");
    assert_eq!(
        shouted.values["ground"],
        "410: it is unnecessarily obfuscated"
    );
    render_every_announcement(&table);
}

#[test]
fn rule_434_a_shout_at_a_meta_amendment_is_refused() {
    // 434: "The word "proposal" identifies only proposals made by a player
    // during his own turn as a part of his initial post."
    let mut table = table();
    done(&mut table, mins(1), ALICE, true, &ENACT_301);
    done(&mut table, mins(2), BOB, true, &META_302);
    assert_eq!(
        refused(
            &mut table,
            mins(3),
            CAROL,
            true,
            &["UNRULEWORTHY!!! 302 it is seriously unclear"]
        ),
        "gnomic_shout_meta"
    );
    assert!(state(&table).open.as_ref().unwrap().proposal(302).is_some());
}

#[test]
fn rule_383_any_shout_is_taken_when_the_literal_reading_is_switched_off() {
    let mut table = table_with(
        Params {
            unruleworthy_literal: false,
            ..Params::default()
        },
        small_ruleset(),
    );
    done(&mut table, mins(1), ALICE, true, &ENACT_301);
    done(&mut table, mins(2), BOB, true, &META_302);
    done(&mut table, mins(3), CAROL, true, &["UNRULEWORTHY!!! 302"]);
    done(
        &mut table,
        mins(3),
        CAROL,
        true,
        &["UNRULEWORTHY!!! 301 no"],
    );
    assert!(state(&table).open.as_ref().unwrap().proposals.is_empty());
}

#[test]
fn a_moderator_corrects_a_score_whose_turn_it_is_and_the_next_ordinal_with_a_reason() {
    let mut table = table();
    // Not a player's to do, and never without a reason.
    assert_eq!(
        refused(
            &mut table,
            mins(1),
            BOB,
            true,
            &["score Bob 99 because I say so"]
        ),
        "moderators_only"
    );
    let report = send(&mut table, mins(1), MODERATOR, true, &["score Bob 40"]);
    assert_eq!(report[0].0, Status::NotUnderstood);
    table.mail.clear();
    done(
        &mut table,
        mins(2),
        MODERATOR,
        true,
        &["score Bob 40 because the count of turn 3 missed his 204 bonus"],
    );
    assert_eq!(points(&table, "Bob"), 40);
    let said = the_mail(&table.mail, "gnomic_corrected");
    assert_eq!(said.to, Audience::List);
    assert_eq!(
        said.values["reason"],
        "the count of turn 3 missed his 204 bonus"
    );
    assert_eq!(said.values["was"], "0");
    done(
        &mut table,
        mins(3),
        MODERATOR,
        true,
        &["next Carol because Alice and Bob agreed to swap"],
    );
    assert_eq!(
        refused(
            &mut table,
            mins(4),
            ALICE,
            true,
            &["turn", "hack 301 \"Quiet\" repeals 210"]
        ),
        "gnomic_not_your_turn"
    );
    assert_eq!(table.last[0].sentence.args["mover"], "Carol");
    // 108's numbers: not one a rule holds.
    assert_eq!(
        refused(
            &mut table,
            mins(5),
            MODERATOR,
            true,
            &["ordinal 205 because why not"]
        ),
        "gnomic_ordinal_in_use"
    );
    done(
        &mut table,
        mins(5),
        MODERATOR,
        true,
        &["ordinal 350 because the page's numbers went on to 349"],
    );
    // `status` names the next ordinal whether or not a turn is open.
    let _ = send(&mut table, mins(6), DAVE, false, &["status"]);
    assert_eq!(table.last[0].sentence.args["status"]["next_ordinal"], 350);
    done(
        &mut table,
        mins(7),
        CAROL,
        true,
        &["turn", "hack 350 \"Quiet\" repeals 210"],
    );
    let _ = send(&mut table, mins(8), DAVE, false, &["status"]);
    assert_eq!(table.last[0].sentence.args["status"]["next_ordinal"], 351);
    votes_but(&mut table, mins(9), 350, CAROL);
    table.run_until(mins(10));
    // The order goes on after Carol: Dave.
    assert_eq!(
        the_mail(&table.mail, "gnomic_result").values["next"],
        "Dave"
    );
    // The corrections are events: the state is their fold.
    let events: Vec<&str> = table
        .events
        .iter()
        .filter_map(|(_, _, e)| match e {
            crate::games::Event::Gnomic(Event::ScoreSet { .. }) => Some("score"),
            crate::games::Event::Gnomic(Event::MoverSet { .. }) => Some("next"),
            crate::games::Event::Gnomic(Event::OrdinalSet { .. }) => Some("ordinal"),
            _ => None,
        })
        .collect();
    assert_eq!(events, ["score", "next", "ordinal"]);
    render_every_announcement(&table);
}

/// Every player but `proponent` votes for `hack`.
fn votes_but(table: &mut Table, at: Timestamp, hack: u32, proponent: &str) {
    for voter in [ALICE, BOB, CAROL, DAVE] {
        if voter != proponent {
            done(table, at, voter, false, &[&format!("vote {hack} for")]);
        }
    }
}
