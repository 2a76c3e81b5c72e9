//! `[gnomic]`, the Gnomic ruleset (issue 13), through the real pipeline: mail into
//! the inbox Maildir, `nomicbot once`, the answers and announcements read back
//! from the outbox. A turn posted on the list, secret votes (one sent to the
//! list by mistake), the count with its reveal that `verify-sealed` accepts, the
//! adopted hack in the ruleset, and a reply quoting the turn that does nothing;
//! a meta-amendment taking effect instead of its hack, a shout of
//! UNRULEWORTHY!!!, and a Judgment with a forged ruling refused; the
//! reminders before the 72 hours end, the exception state with two turns
//! overlapping, and a forfeit.

use jiff::{SignedDuration, Timestamp};

use crate::support::{LocalBot, SentMail, at, message};

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";
const MODERATOR: &str = "mod@nomic.example";
const ALICE: &str = "alice@nomic.example";
const BOB: &str = "bob@nomic.example";
const CAROL: &str = "carol@nomic.example";
const DAVE: &str = "dave@nomic.example";

fn bot() -> LocalBot {
    let config = crate::support::gnomic_rules_elsewhere(crate::support::trusting()).replace(
        "moderators = []",
        &format!("moderators = [\"{MODERATOR}\"]"),
    );
    LocalBot::with_config(&config)
}

fn deliver(
    bot: &LocalBot,
    name: &str,
    from: &str,
    to: &str,
    subject: &str,
    body: &str,
    when: Timestamp,
) {
    let id = format!("{name}@players.test");
    bot.deliver(name, &message(from, to, subject, &id, body), when);
}

const TURN: &str = "hack 301 \"Singing\"\nenact\nPlayers may sing.\nend\n\nhack 302 \"Quiet\"\nenact\nPlayers may not sing.\nend\nagainst 302\n";

/// Four players join, the moderator starts the game, Alice posts her turn on
/// the list. Returns the moment of the post.
fn posted(bot: &LocalBot) -> Timestamp {
    let start = at("2026-03-02T09:00:00Z");
    for (i, name) in ["Alice", "Bob", "Carol", "Dave"].iter().enumerate() {
        let from = format!("{}@nomic.example", name.to_lowercase());
        deliver(
            bot,
            &format!("join-{name}"),
            &from,
            LIST,
            &format!("[nomic] join {name}"),
            "",
            start + SignedDuration::from_mins(i as i64),
        );
    }
    deliver(
        bot,
        "start",
        MODERATOR,
        LIST,
        "[gnomic] start",
        "",
        start + SignedDuration::from_mins(5),
    );
    let post = start + SignedDuration::from_mins(10);
    deliver(bot, "turn", ALICE, LIST, "[gnomic] turn", TURN, post);
    bot.once(post + SignedDuration::from_mins(1));
    post
}

fn to_list(bot: &LocalBot) -> Vec<SentMail> {
    bot.sent_mail()
        .into_iter()
        .filter(|m| m.is_to(LIST))
        .collect()
}

fn answers(bot: &LocalBot, who: &str) -> Vec<String> {
    bot.sent_mail()
        .into_iter()
        .filter(|m| m.is_to(who) && !m.is_to(LIST))
        .map(|m| m.body)
        .collect()
}

#[test]
fn issue_13_a_turn_by_mail_secret_votes_the_count_and_the_ruleset_changed() {
    let bot = bot();
    let post = posted(&bot);
    let announced = to_list(&bot);
    assert!(
        announced
            .iter()
            .any(|m| m.subject.contains("Alice's turn: hacks 301, 302")),
        "{:#?}",
        announced.iter().map(|m| &m.subject).collect::<Vec<_>>()
    );
    // Bob votes on the list: refused and not counted.
    let later = |mins: i64| post + SignedDuration::from_mins(mins);
    deliver(
        &bot,
        "bob-public",
        BOB,
        LIST,
        "[gnomic] vote 301 for",
        "",
        later(5),
    );
    bot.once(later(6));
    assert!(
        answers(&bot, BOB)
            .iter()
            .any(|b| b.contains("not counted: a vote is secret")),
        "{:#?}",
        answers(&bot, BOB)
    );
    // A reply quoting the turn is no turn: the quoted lines are not read.
    let quoted: String = TURN.lines().map(|l| format!("> {l}\n")).collect();
    deliver(
        &bot,
        "carol-reply",
        CAROL,
        LIST,
        "Re: [gnomic] turn",
        &format!("On Monday, Alice wrote:\n{quoted}\nNice singing.\n"),
        later(7),
    );
    deliver(
        &bot,
        "bob",
        BOB,
        BOT,
        "[gnomic]",
        "vote 301 for\nvote 302 against",
        later(8),
    );
    deliver(
        &bot,
        "carol",
        CAROL,
        BOT,
        "[gnomic]",
        "vote 301 for\nvote 302 for\nstatus",
        later(9),
    );
    bot.once(later(10));
    // The status tells who has voted, not how; Alice has her copies (402).
    assert!(
        answers(&bot, CAROL)
            .iter()
            .any(|b| b.contains("voted: Bob, Carol; waiting for: Dave")),
        "{:#?}",
        answers(&bot, CAROL)
    );
    let copies: Vec<String> = answers(&bot, ALICE)
        .into_iter()
        .filter(|b| b.contains("this is your copy"))
        .collect();
    assert_eq!(copies.len(), 4, "{copies:#?}");
    // No vote has reached the list yet.
    for mail in to_list(&bot) {
        assert!(
            !mail.body.contains("302 against") && !mail.subject.contains("counted"),
            "{}: {}",
            mail.subject,
            mail.body
        );
    }
    deliver(
        &bot,
        "dave",
        DAVE,
        BOT,
        "[gnomic]",
        "vote 301 against\nvote 302 abstain",
        later(20),
    );
    bot.once(later(21));
    let list = to_list(&bot);
    let result = list
        .iter()
        .find(|m| m.subject.contains("Turn 1 counted"))
        .unwrap_or_else(|| panic!("{:#?}", list.iter().map(|m| &m.subject).collect::<Vec<_>>()));
    // 301: Alice, Bob, Carol for, Dave against: adopted, 10 × 3/4 → 8. 302:
    // Alice against, Bob against, Carol for, Dave abstains: 1 for, 2 against,
    // failed: 11 × 2/3 = 7.3 → 7 lost. Dave voted against the winner: +10.
    assert!(
        result.subject.contains("301 adopted, 302 not adopted"),
        "{}",
        result.subject
    );
    assert!(
        result
            .body
            .contains("Alice: +8, hack 301 adopted (rule 304)"),
        "{}",
        result.body
    );
    assert!(
        result
            .body
            .contains("Alice: -7, hack 302 failed (rule 421)"),
        "{}",
        result.body
    );
    assert!(
        result.body.contains("Dave: +10, voted against hack 301"),
        "{}",
        result.body
    );
    assert!(result.body.contains("Next to play: Bob"), "{}", result.body);
    let state = bot.state_json();
    let rules = state["ruleset"]["rules"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        rules
            .iter()
            .any(|r| r["number"] == 301 && r["text"] == "Players may sing.")
    );
    assert!(!rules.iter().any(|r| r["number"] == 302));

    // verify-sealed accepts the archived commitments and reveal.
    let commitments = list
        .iter()
        .find(|m| m.raw.contains("gnomic:turn:1") && m.body.to_lowercase().contains("commitment"))
        .expect("the commitments");
    let reveal = list
        .iter()
        .rfind(|m| m.raw.contains("gnomic:turn:1") && m.body.contains("salt"))
        .expect("the reveal");
    let dir = bot.dir.path();
    std::fs::write(dir.join("commitments.eml"), &commitments.raw).expect("write");
    std::fs::write(dir.join("reveal.eml"), &reveal.raw).expect("write");
    let out = bot.cli_ok(&[
        "verify-sealed",
        &dir.join("commitments.eml").display().to_string(),
        &dir.join("reveal.eml").display().to_string(),
    ]);
    assert!(out.contains("6 sealed action(s)"), "{out}");
}

#[test]
fn issue_13_help_lists_every_command_with_an_example() {
    let bot = bot();
    let when = at("2026-03-02T09:00:00Z");
    deliver(&bot, "help", ALICE, BOT, "[gnomic] help", "", when);
    bot.once(when + SignedDuration::from_mins(1));
    let answer = answers(&bot, ALICE).join("\n");
    for example in [
        "hack 441 \"Title of the hack\"",
        "amends 325",
        "replace from",
        "repeals 303",
        "transmutes 205",
        "sacrifice 13",
        "against 441",
        "greek 441 3",
        "if 441 adopted",
        "vote 441 for",
        "status",
        "start",
        "meta 441",
        "change 441",
        "UNRULEWORTHY!!! 441",
        "judgment Is hack 441 legal",
        "accusing Bob",
        "ruling agree:",
        "overrule",
        "consent",
    ] {
        assert!(answer.contains(example), "{example} in:\n{answer}");
    }
}

#[test]
fn rule_401_a_meta_amendment_by_mail_is_voted_on_and_takes_effect_instead() {
    let bot = bot();
    let post = posted(&bot);
    let later = |mins: i64| post + SignedDuration::from_mins(mins);
    // Bob meta-amends Alice's 301 on the list: the hack in the body.
    deliver(
        &bot,
        "bob-meta",
        BOB,
        LIST,
        "[gnomic] meta 301",
        "hack 303 \"Singing, loudly\"\nenact\nPlayers may sing loudly.\nend\n",
        later(2),
    );
    bot.once(later(3));
    let list = to_list(&bot);
    assert!(
        list.iter()
            .any(|m| m.subject.contains("Bob meta-amends hack 301: hack 303")),
        "{:#?}",
        list.iter().map(|m| &m.subject).collect::<Vec<_>>()
    );
    // Alice may not meta-amend her own hack.
    deliver(
        &bot,
        "alice-meta",
        ALICE,
        LIST,
        "[gnomic] meta 302",
        "hack 304 \"Mine\"\nenact\nMine.\nend\n",
        later(4),
    );
    for (name, from, body) in [
        ("bob", BOB, "vote 301 for\nvote 302 against"),
        (
            "carol",
            CAROL,
            "vote 301 for\nvote 302 against\nvote 303 for",
        ),
        ("dave", DAVE, "vote 301 for\nvote 302 against\nvote 303 for"),
    ] {
        deliver(&bot, name, from, BOT, "[gnomic]", body, later(5));
    }
    bot.once(later(6));
    assert!(
        answers(&bot, ALICE)
            .iter()
            .any(|b| b.contains("no player may meta-amend his own proposals")),
        "{:#?}",
        answers(&bot, ALICE)
    );
    // 301 and 302: their vote is complete and counted (402); the turn's count, and
    // what takes effect, wait for Alice's vote on the meta-amendment (401).
    assert!(
        to_list(&bot)
            .iter()
            .any(|m| m.subject.contains("Turn 1: the votes on 301, 302 counted"))
    );
    assert!(
        !to_list(&bot)
            .iter()
            .any(|m| m.subject.contains("Turn 1 counted"))
    );
    deliver(
        &bot,
        "alice",
        ALICE,
        BOT,
        "[gnomic]",
        "vote 303 for",
        later(7),
    );
    bot.once(later(8));
    let list = to_list(&bot);
    let result = list
        .iter()
        .find(|m| m.subject.contains("Turn 1 counted"))
        .unwrap_or_else(|| panic!("{:#?}", list.iter().map(|m| &m.subject).collect::<Vec<_>>()));
    assert!(
        result
            .body
            .contains("but meta-amendment 303 takes effect instead (rule 401)"),
        "{}",
        result.body
    );
    // 301: 10 points to Alice; half of it, 5, to Bob (401).
    assert!(
        result.body.contains("Bob: +5, half the points"),
        "{}",
        result.body
    );
    let state = bot.state_json();
    let rules = state["ruleset"]["rules"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        rules
            .iter()
            .any(|r| r["number"] == 303 && r["text"] == "Players may sing loudly.")
    );
    assert!(!rules.iter().any(|r| r["number"] == 301));
    // The meta-amendment's own batch verifies as well.
    let commitments = list
        .iter()
        .find(|m| {
            m.raw.contains("gnomic:turn:1:hack:303") && m.body.to_lowercase().contains("commitment")
        })
        .expect("the commitments");
    let reveal = list
        .iter()
        .rfind(|m| m.raw.contains("gnomic:turn:1:hack:303") && m.body.contains("salt"))
        .expect("the reveal");
    let dir = bot.dir.path();
    std::fs::write(dir.join("commitments.eml"), &commitments.raw).expect("write");
    std::fs::write(dir.join("reveal.eml"), &reveal.raw).expect("write");
    let out = bot.cli_ok(&[
        "verify-sealed",
        &dir.join("commitments.eml").display().to_string(),
        &dir.join("reveal.eml").display().to_string(),
    ]);
    assert!(out.contains("3 sealed action(s)"), "{out}");
}

#[test]
fn rule_383_a_shout_by_mail_repeals_a_hack_and_judgment_follows_it() {
    let bot = bot();
    let post = posted(&bot);
    let later = |mins: i64| post + SignedDuration::from_mins(mins);
    deliver(
        &bot,
        "carol-shout",
        CAROL,
        LIST,
        "[gnomic] UNRULEWORTHY!!! 302 it contradicts itself",
        "",
        later(2),
    );
    bot.once(later(3));
    let list = to_list(&bot);
    let shout = list
        .iter()
        .find(|m| m.subject.contains("UNRULEWORTHY!!! Hack 302 is repealed"))
        .unwrap_or_else(|| panic!("{:#?}", list.iter().map(|m| &m.subject).collect::<Vec<_>>()));
    assert!(
        shout
            .body
            .contains("Carol shouted \"UNRULEWORTHY!!!\" at hack 302"),
        "{}",
        shout.body
    );
    // Alice disputes it: Judgment, with Dave (preceding Alice) as the Judge.
    deliver(
        &bot,
        "alice-judgment",
        ALICE,
        LIST,
        "[gnomic] judgment Was the shout at 302 grounded? accusing Carol",
        "",
        later(4),
    );
    bot.once(later(5));
    let list = to_list(&bot);
    let invoked = list
        .iter()
        .find(|m| {
            m.subject
                .contains("Judgment 1 invoked by Alice; Dave is the Judge")
        })
        .unwrap_or_else(|| panic!("{:#?}", list.iter().map(|m| &m.subject).collect::<Vec<_>>()));
    // Alice has no points: no fee (373).
    assert!(
        invoked.body.contains("fewer than 30 points"),
        "{}",
        invoked.body
    );
    deliver(
        &bot,
        "bob-ruling",
        BOB,
        LIST,
        "[gnomic] ruling agree: forged",
        "",
        later(6),
    );
    deliver(
        &bot,
        "dave-ruling",
        DAVE,
        LIST,
        "[gnomic] ruling disagree: 302 contradicts itself indeed",
        "",
        later(7),
    );
    bot.once(later(8));
    assert!(
        answers(&bot, BOB)
            .iter()
            .any(|b| b.contains("only the Judge may rule")),
        "{:#?}",
        answers(&bot, BOB)
    );
    assert!(
        to_list(&bot)
            .iter()
            .any(|m| m.subject.contains("Judgment 1: Dave disagrees with Alice"))
    );
}

#[test]
fn rule_432_by_mail_reminders_the_exception_state_overlapping_turns_and_a_forfeit() {
    let bot = bot();
    let post = posted(&bot);
    let later = |mins: i64| post + SignedDuration::from_mins(mins);
    deliver(
        &bot,
        "bob",
        BOB,
        BOT,
        "[gnomic]",
        "vote 301 for\nvote 302 against",
        later(1),
    );
    // A day before the 72 hours end: Carol and Dave, who have not voted, are
    // reminded privately; Bob, who has, is not; nothing says how anyone voted.
    bot.once(later(48 * 60 + 1));
    for who in [CAROL, DAVE] {
        let reminders: Vec<String> = answers(&bot, who)
            .into_iter()
            .filter(|b| b.contains("a reminder: your secret vote on hack 301, 302 of turn 1"))
            .collect();
        assert_eq!(reminders.len(), 1, "{:#?}", answers(&bot, who));
        assert!(!reminders[0].contains("against") || reminders[0].contains("for|against|abstain"));
        assert!(!reminders[0].contains("Bob"));
    }
    assert!(
        !answers(&bot, BOB).iter().any(|b| b.contains("a reminder")),
        "{:#?}",
        answers(&bot, BOB)
    );
    // Every player agrees to the exception state; Bob then posts a turn of
    // his own while Alice's is open.
    for (i, (name, from)) in [
        ("Alice", ALICE),
        ("Bob", BOB),
        ("Carol", CAROL),
        ("Dave", DAVE),
    ]
    .iter()
    .enumerate()
    {
        deliver(
            &bot,
            &format!("exception-{name}"),
            from,
            LIST,
            "[gnomic] exception begin",
            "",
            later(48 * 60 + 2 + i as i64),
        );
    }
    deliver(
        &bot,
        "bob-turn",
        BOB,
        LIST,
        "[gnomic] turn",
        "hack 303 \"Dance\"\nenact\nPlayers may dance.\nend\n",
        later(48 * 60 + 10),
    );
    deliver(
        &bot,
        "dave-forfeit",
        DAVE,
        LIST,
        "[gnomic] forfeit",
        "",
        later(48 * 60 + 11),
    );
    bot.once(later(48 * 60 + 12));
    let subjects: Vec<String> = to_list(&bot).into_iter().map(|m| m.subject).collect();
    for expected in [
        "The exception state is in force (rule 432)",
        "Bob's turn",
        "Dave forfeits the game of Gnomic",
    ] {
        assert!(
            subjects.iter().any(|s| s.contains(expected)),
            "{expected}: {subjects:#?}"
        );
    }
    let state = bot.state_json();
    let gnomic = &state["gnomic"];
    assert_eq!(gnomic["overlapping"][0]["number"], 2, "{gnomic:#}");
    assert!(gnomic["exception"]["since"].is_string(), "{gnomic:#}");
}
