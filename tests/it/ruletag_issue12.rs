//! Issue 12, the Rule Tag items, each test named after its item: mail in, and the
//! mail out and the state a user would see. The helpers and the calendar are those
//! of `ruletag.rs` (nweek 5 runs from 2026-02-24; its turn is at 2026-03-06 00:00
//! UTC; its notifications are late after 2026-03-08 00:00 UTC).

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};

use crate::ruletag::*;
use crate::support::{LocalBot, message};

/// Delivers one message with the Message-ID `id` (so a test can void it).
fn send_as(bot: &LocalBot, id: &str, from: &str, to: &str, body: &str, when: Timestamp) {
    bot.deliver(id, &message(from, to, "[rule tag]", id, body), when);
}

/// The list mail whose subject contains `subject`, in the order sent.
fn list_subjects(bot: &LocalBot) -> Vec<String> {
    bot.sent_mail()
        .into_iter()
        .filter(|m| m.is_to(LIST))
        .map(|m| m.subject)
        .collect()
}

/// The events of kind `kind` of the game, as `log --json` shows them.
fn game_events(bot: &LocalBot, kind: &str) -> Vec<Value> {
    bot.log_json()
        .into_iter()
        .filter(|row| row.to_string().contains(&format!("\"kind\":\"{kind}\"")))
        .collect()
}

// ---------------------------------------------------------------------------
// Item 1: an RTO goes where its holder goes, null included.
// ---------------------------------------------------------------------------

#[test]
fn item1_an_rto_follows_its_holder_to_null() {
    // "If an RTO has been successfully grabbed by a player then it moves whenever
    // the player moves, and to the same RTL", and the RTL's range includes null.
    let bot = earl_holds_the_ball(&[], 30);
    private(&bot, "Earl", "move to null", on(6, 2, 0));
    run_until(&bot, after_turn(6));
    assert_eq!(standing(&bot, "Earl").1, Value::Null);
    assert_eq!(points(&bot, "Earl"), "20", "the null-move penalty only");
    assert_eq!(object(&bot, "rule tag ball"), (Value::Null, json!("Earl")));
    let second = second_notification(&bot, 6);
    assert_has(
        &second,
        "Move Actions: the rule tag ball moved with Earl to null, still in eir possession.",
    );
    assert_has(&second, "    rule tag ball    on null, possessed by Earl");
    assert_lacks(&second, "relocated at random");
    assert_lacks(&second, "fell from eir hands");
    // Nothing was drawn: no random period was committed for the turn.
    assert!(
        !list_subjects(&bot)
            .iter()
            .skip_while(|s| !s.contains("Rule tag nweek 5: scores"))
            .any(|s| s.contains("andom")),
        "{:?}",
        list_subjects(&bot)
    );

    // Back on the board, the ball comes along.
    private(&bot, "Earl", "move from null to 108", on(7, 2, 0));
    run_until(&bot, after_turn(7));
    assert_eq!(object(&bot, "rule tag ball"), (json!(108), json!("Earl")));
}

#[test]
fn item1_an_rto_follows_its_holder_set_to_null_by_a_repeal() {
    // "Players whose RTL no longer points to a valid rule have their RTL set to
    // null": the ball Earl holds goes with em.
    let bot = earl_holds_the_ball(&[], 30);
    rules_officer(&bot, "repeal 325", on(6, 3, 0));
    run_until(&bot, after_turn(6));
    assert_eq!(standing(&bot, "Earl").1, Value::Null);
    assert_eq!(points(&bot, "Earl"), "5");
    assert_eq!(object(&bot, "rule tag ball"), (Value::Null, json!("Earl")));
    let second = second_notification(&bot, 6);
    assert_has(
        &second,
        "Penalties: rule 325, Earl's RTL, no longer exists: Earl loses 25 points and is set to null.",
    );
    assert_has(
        &second,
        "Penalties: the rule tag ball moved with Earl to null, still in eir possession.",
    );
}

#[test]
fn item1_an_rto_dropped_on_null_stays_there_and_is_grabbed_there() {
    // The RTL of an RTO may be null: dropped there, it stays, and a player on null
    // shares its RTL and may grab it.
    let bot = earl_holds_the_ball(&[("Ariel", 325)], 30);
    private(&bot, "Earl", "move to null", on(6, 2, 0));
    private(&bot, "Ariel", "move to null", on(6, 2, 1));
    run_until(&bot, after_turn(6));
    private(&bot, "Earl", "drop ball", on(7, 2, 0));
    run_until(&bot, after_turn(7));
    assert_eq!(object(&bot, "rule tag ball"), (Value::Null, Value::Null));
    assert_has(
        &second_notification(&bot, 7),
        "Drop Actions: Earl dropped the rule tag ball on null.",
    );
    private(&bot, "Ariel", "grab ball 0", on(8, 2, 0));
    run_until(&bot, after_turn(8));
    assert_eq!(object(&bot, "rule tag ball"), (Value::Null, json!("Ariel")));
}

#[test]
fn item1_with_rto_never_on_null_the_rto_falls_and_is_relocated() {
    // The reading before issue 12, kept as `[ruletag] rto_never_on_null = true`.
    let bot = earl_holds_the_ball_with(&[], 30, &config("rto_never_on_null = true"));
    private(&bot, "Earl", "move to null", on(6, 2, 0));
    run_until(&bot, after_turn(6));
    let (rtl, holder) = object(&bot, "rule tag ball");
    assert_eq!(holder, Value::Null);
    assert!(rtl.is_u64(), "on a rule: {rtl}");
    assert_has(
        &second_notification(&bot, 6),
        "Move Actions: the rule tag ball moved with Earl to null, and fell from eir hands.",
    );
}

// ---------------------------------------------------------------------------
// Item 4: every piece of Rule Tag state has an override by mail.
// ---------------------------------------------------------------------------

const MID_WAY: &str = "start
set Earl rtl 325 because the game began on the list in nweek 2
set Ariel rtl 407 because the game began on the list in nweek 2
set Ariel element water because the game began on the list in nweek 2
set Phoebe element fire because the game began on the list in nweek 2
give ball to Earl because the game began on the list in nweek 2
relocate goal to 407 because the game began on the list in nweek 2
adjust Earl 40 points because the game began on the list in nweek 2
adjust Ariel 25 points because the game began on the list in nweek 2";

#[test]
fn item4_a_moderator_takes_over_a_game_begun_before_the_bot_in_one_message() {
    let bot = game(&["Earl", "Ariel", "Phoebe"]);
    send_as(
        &bot,
        "midway@players.test",
        MODERATOR,
        BOT,
        MID_WAY,
        on(5, 1, 60),
    );
    run_until(&bot, on(5, 1, 61));
    let answer = last_answer(&bot, MODERATOR);
    assert_eq!(answer.matches("\nDone. ").count(), 9, "{answer}");
    assert_lacks(&answer, "Refused");
    assert_has(
        &answer,
        "Earl is now in possession of the rule tag ball, on eir RTL, 325.",
    );
    // The state the game had when the bot took over.
    assert_eq!(
        standing(&bot, "Earl"),
        ("Earth".into(), json!(325), "40".into())
    );
    assert_eq!(
        standing(&bot, "Ariel"),
        ("Water".into(), json!(407), "25".into())
    );
    assert_eq!(
        standing(&bot, "Phoebe"),
        ("Fire".into(), Value::Null, "0".into())
    );
    assert_eq!(object(&bot, "rule tag ball"), (json!(325), json!("Earl")));
    assert_eq!(object(&bot, "rule tag goal"), (json!(407), Value::Null));
    // Each override announced on the list, with the reason.
    for subject in [
        "Rule tag override: Earl's RTL set to 325",
        "Rule tag override: Ariel's RTL set to 407",
        "Rule tag override: Ariel's element set to Water",
        "Rule tag override: Phoebe's element set to Fire",
        "Rule tag override: rule tag ball given to Earl",
        "Rule tag override: rule tag goal relocated to rule 407",
    ] {
        let body = announcement(&bot, subject);
        assert_has(&body, "Reason: the game began on the list in nweek 2");
    }
    assert_has(
        &announcement(&bot, "Rule tag override: rule tag ball given to Earl"),
        "Earl is in possession of the rule tag ball, which moves to eir RTL, 325",
    );
    // Each is an event of the log, naming who and why.
    for kind in ["placed", "element_set", "given"] {
        let events = game_events(&bot, kind);
        assert!(!events.is_empty(), "{kind} in the log");
        assert!(
            events
                .iter()
                .all(|e| e.to_string().contains("the game began on the list")),
            "{events:?}"
        );
    }

    // The game goes on from there: Earl, on 325 with the ball, moves to the
    // goal's rule and scores.
    private(
        &bot,
        "Earl",
        "move from 325 to 407 via integer",
        on(5, 2, 0),
    );
    run_until(&bot, after_turn(5));
    assert_has(
        &second_notification(&bot, 5),
        "Basketball Resolve: Earl holds the ball on the goal's RTL (407) and gains 25 points.",
    );
}

#[test]
fn item4_a_void_of_an_override_restores_the_state() {
    let bot = game(&["Earl", "Ariel"]);
    start(&bot);
    relocate(&bot, "ball", 325, on(5, 1, 100));
    send_as(
        &bot,
        "set-up@players.test",
        MODERATOR,
        BOT,
        "set Earl rtl 325 because a test\nset Earl element air because a test\ngive ball to Earl because a test",
        on(5, 1, 110),
    );
    run_until(&bot, on(5, 1, 111));
    assert_eq!(standing(&bot, "Earl").0, "Air");
    assert_eq!(object(&bot, "rule tag ball"), (json!(325), json!("Earl")));
    // Then Earl is moved again: the ball goes with em.
    send_as(
        &bot,
        "move-earl@players.test",
        MODERATOR,
        BOT,
        "set Earl rtl 407 because a test",
        on(5, 1, 120),
    );
    run_until(&bot, on(5, 1, 121));
    assert_eq!(standing(&bot, "Earl").1, json!(407));
    assert_eq!(object(&bot, "rule tag ball"), (json!(407), json!("Earl")));
    assert_has(
        &announcement(&bot, "Rule tag override: Earl's RTL set to 407"),
        "The rule tag ball, in eir possession, goes with em to 407.",
    );

    // Voiding the last override puts Earl and the ball back on 325.
    send_as(
        &bot,
        "void-1@players.test",
        MODERATOR,
        BOT,
        "void <move-earl@players.test> because it was a mistake",
        on(5, 1, 130),
    );
    run_until(&bot, on(5, 1, 131));
    assert_eq!(standing(&bot, "Earl").1, json!(325));
    assert_eq!(object(&bot, "rule tag ball"), (json!(325), json!("Earl")));
    // Voiding the set-up puts everything back as the start left it.
    send_as(
        &bot,
        "void-2@players.test",
        MODERATOR,
        BOT,
        "void <set-up@players.test> because it was a mistake",
        on(5, 1, 140),
    );
    run_until(&bot, on(5, 1, 141));
    assert_eq!(standing(&bot, "Earl").0, "Earth");
    assert_eq!(standing(&bot, "Earl").1, Value::Null);
    assert_eq!(object(&bot, "rule tag ball"), (json!(325), Value::Null));
    let voids = announcements(&bot, "void");
    assert!(
        voids.iter().all(|m| m.body.contains("it was a mistake")),
        "{voids:?}"
    );
    assert!(voids.len() >= 2, "each void announced: {voids:?}");
}

#[test]
fn item4_a_forged_moderator_override_is_refused() {
    // A player who writes as if ey were the moderator changes nothing.
    let bot = started(&["Earl", "Ariel"]);
    run_until(&bot, on(5, 1, 100));
    let before = ruletag_state(&bot, true);
    private(
        &bot,
        "Earl",
        "set Earl rtl 325 because I say so\nset Ariel element fire because I say so\ngive ball to Earl because I say so",
        on(5, 2, 0),
    );
    run_until(&bot, on(5, 2, 1));
    let answer = last_answer(&bot, &address("Earl"));
    assert_has(&answer, "In all: 0 done, 3 refused, 0 not understood.");
    assert_has(&answer, "Rule Tag Moderator");
    assert_eq!(ruletag_state(&bot, true), before);
    assert!(announcements(&bot, "Rule tag override").is_empty());
    // The reason is required, from the moderator too.
    private(&bot, "Mod", "set Earl rtl 325", on(5, 2, 2));
    run_until(&bot, on(5, 2, 3));
    assert_has(
        &last_answer(&bot, MODERATOR),
        "set PLAYER rtl RULE|null because REASON",
    );
    assert_eq!(standing(&bot, "Earl").1, Value::Null);
}

#[test]
fn item4_with_rto_never_on_null_no_rto_is_given_on_null() {
    let bot = game_with(&["Earl"], &config("rto_never_on_null = true"));
    start(&bot);
    private(
        &bot,
        "Mod",
        "give ball to Earl because a test",
        on(5, 1, 100),
    );
    run_until(&bot, on(5, 1, 101));
    assert_has(
        &last_answer(&bot, MODERATOR),
        "Refused: Earl's RTL is null, and with rto_never_on_null set an RTO is never on null",
    );
}

// ---------------------------------------------------------------------------
// Item 5: the moderator decides whether an action is valid: ey sees refusals.
// ---------------------------------------------------------------------------

#[test]
fn item5_the_moderator_gets_a_copy_of_refused_private_actions() {
    let bot = board(&["Earl", "Ariel"], 10, FAR_BALL, FAR_GOAL);
    private(
        &bot,
        "Earl",
        "grab ball 50\nmove from 325 to 43",
        on(5, 2, 0),
    );
    run_until(&bot, on(5, 2, 1));
    let copy = copies(&bot, MODERATOR)
        .into_iter()
        .find(|m| m.subject.contains("Copy: earl@"))
        .expect("a copy of Earl's refused actions");
    assert_has(
        &copy.body,
        "Refused: you declared 50 points but have 10, and rule \"Rule Tag\" says you may not declare more points than you have.",
    );
    assert_has(&copy.body, "grab ball 50");
    assert!(copy.is_to(MODERATOR) && !copy.is_to(LIST), "privately");
    // A refusal on the list is public already: no copy.
    on_list(&bot, "Ariel", "grab ball 50", on(5, 2, 2));
    run_until(&bot, on(5, 2, 3));
    assert!(
        !copies(&bot, MODERATOR)
            .iter()
            .any(|m| m.subject.contains("Copy: ariel@"))
    );
    // And the secret stays off the list until the end of the nweek.
    assert!(
        bot.sent_mail()
            .iter()
            .filter(|m| m.is_to(LIST))
            .all(|m| !m.body.contains("grab ball 50") || m.body.contains("ariel")),
    );
    let leaked: Vec<String> = bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to(LIST) && m.body.contains("move from 325 to 43"))
        .map(|m| m.body)
        .collect();
    assert!(leaked.is_empty(), "{leaked:?}");
}

// ---------------------------------------------------------------------------
// Item 6: the wording of the record.
// ---------------------------------------------------------------------------

#[test]
fn item6_the_notifications_keep_element_changes_and_the_moderators_pay_apart() {
    let bot = board(&["Earl", "Ariel"], 0, FAR_BALL, FAR_GOAL);
    private(
        &bot,
        "Earl",
        "element fire\nmove from null to 325",
        on(5, 2, 0),
    );
    private(&bot, "Mod", "element air", on(5, 2, 1));
    run_until(&bot, after_turn(5));
    let first = first_notification(&bot, 5);
    assert_has(
        &first,
        "(i) The valid rule tag actions made by each player:\n\n    Earl:\n        move from null to 325 (made privately)\n",
    );
    assert_has(
        &first,
        "    Mod: element change to Air (made privately)\n    Earl: element change to Fire (made privately)\n",
    );
    assert_lacks(&first, "    Mod:\n");
    let second = second_notification(&bot, 5);
    // The award is no change in score due to rule tag.
    assert_has(&second, &score_change_line("Mod", 0));
    assert_has(
        &second,
        "The Rule Tag Moderator's pay (rule \"rule tag moderation\"), apart from the\nchanges in score due to rule tag:\n\n    Award: Mod receives the weekly award of 10 points.\n",
    );
    // Every player, zeros included.
    for (name, score) in [("Mod", "10"), ("Earl", "0"), ("Ariel", "0")] {
        assert_has(&second, &format!("    {name:<20} {score}\n"));
    }
    let scores = &second[second.find("Scores:").expect("scores")..];
    for name in ["Mod", "Earl", "Ariel"] {
        assert_has(scores, name);
    }
}

#[test]
fn item6_the_moderators_move_to_null_says_it_was_free_and_why() {
    let bot = placed(&["Earl"], 30, &[("Earl", 325)], FAR_BALL, FAR_GOAL);
    rewrite_config(&bot, &config("moderator = \"earl@nomic.example\""));
    run_until(&bot, after_turn(6));
    assert_eq!(points(&bot, "Earl"), "40");
    let second = second_notification(&bot, 6);
    assert_has(
        &second,
        "Move Actions: Earl, the Rule Tag Moderator, was on rule 325; rule \"rule tag moderation\" 2) says ey must move to null as soon as possible, so the bot moves em there.",
    );
    assert_has(
        &second,
        "Penalties: Earl moved to null this turn, free of the 10-point penalty: rule \"rule tag moderation\" 4) says the rule tag moderator does not pay points for moving to null.",
    );
}

// ---------------------------------------------------------------------------
// Item 7: a turn that draws nothing publishes no random period.
// ---------------------------------------------------------------------------

#[test]
fn item7_only_a_turn_that_draws_commits_and_reveals_a_random_period() {
    let bot = earl_holds_the_ball(&[], 20);
    // Turns 6 and 7 draw nothing: no random mail at all after the first turn's.
    run_until(&bot, after_turn(7));
    let random_mail = |bot: &LocalBot| -> Vec<String> {
        list_subjects(bot)
            .into_iter()
            .skip_while(|s| !s.contains("Rule tag nweek 5: scores"))
            .filter(|s| s.to_lowercase().contains("random"))
            .collect()
    };
    assert_eq!(random_mail(&bot), Vec::<String>::new());
    // Turn 8 draws (a basket): the commitment goes out first, in a mail of its
    // own a second before the turn, and the reveal with the turn.
    private(
        &bot,
        "Earl",
        "move from 325 to 407 via integer",
        on(8, 2, 0),
    );
    run_until(&bot, after_turn(8));
    let subjects = list_subjects(&bot);
    let position = |needle: &str| {
        subjects
            .iter()
            .rposition(|s| s.contains(needle))
            .unwrap_or_else(|| panic!("{needle:?} in {subjects:?}"))
    };
    let random = random_mail(&bot);
    assert_eq!(random.len(), 2, "{random:?}");
    let committed = subjects
        .iter()
        .position(|s| *s == random[0])
        .expect("commitment");
    assert!(committed < position("Rule tag nweek 8: the actions"));
    assert!(position("Rule tag nweek 8: the actions") < position(&random[1]));
    assert!(position(&random[1]) < position("Rule tag nweek 8: scores"));
    let state: Value =
        serde_json::from_str(&bot.cli_ok(&["state", "random", "--json"])).expect("json");
    assert!(state["current"].is_null(), "the period ended with the turn");
    // The commitment was made a second before the turn, in its own step.
    let commitment = bot
        .log_json()
        .into_iter()
        .rfind(|row| row.to_string().contains("period_started"))
        .expect("the commitment in the log");
    assert_has(&commitment.to_string(), "2026-04-04T23:59:59Z");
}

// ---------------------------------------------------------------------------
// Item 12: the censure depends on when the bot actually posted.
// ---------------------------------------------------------------------------

#[test]
fn item12_the_censure_depends_on_when_the_bot_actually_posted() {
    // The same mail; the bot is down from the start until it catches up either at
    // the very end of nday 2 of nweek 6 or a minute later. The rule judges when
    // the moderator posted, so the outcome differs: this is the one exception to
    // "the outcome never depends on when the bot ran" (docs/ARCHITECTURE.md).
    let outcome = |caught_up: Timestamp| {
        let bot = board(&["Earl"], 20, FAR_BALL, FAR_GOAL);
        private(&bot, "Earl", "move from null to 325", on(5, 2, 0));
        run_until(&bot, caught_up);
        let late = ruletag_state(&bot, false)["last_report"]["late"].clone();
        let second = second_notification(&bot, 5);
        (points(&bot, "Mod"), late, second.contains("Censure:"))
    };
    assert_eq!(outcome(on(6, 3, 0)), ("10".into(), json!(false), false));
    assert_eq!(
        outcome(on(6, 3, 0) + SignedDuration::from_mins(1)),
        ("-10".into(), json!(true), true)
    );
}
