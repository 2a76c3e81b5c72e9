//! Scenario tests for the nomic substrate that are wired to mail so far: players'
//! standing, accounts, and the ruleset registry, by mail in and mail out.

use crate::support::{LocalBot, at, message};

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";
const MODERATOR: &str = "mod@nomic.example";
const SCHOLAR: &str = "scholar@nomic.example";

fn bot() -> LocalBot {
    let config = crate::support::trusting()
        .replace(
            "moderators = []",
            &format!("moderators = [\"{MODERATOR}\"]"),
        )
        .replace("rules = []", &format!("rules = [\"{SCHOLAR}\"]"));
    LocalBot::with_config(&config)
}

/// Delivers one message per (from, to, subject, body), a minute apart, and runs one pass.
fn play(bot: &LocalBot, script: &[(&str, &str, &str, &str)]) {
    let start = at("2026-02-02T10:00:00Z");
    for (index, (from, to, subject, body)) in script.iter().enumerate() {
        let when = start + jiff::SignedDuration::from_mins(index as i64);
        let id = format!("s{index}-{}@players.test", when.as_second());
        bot.deliver(
            &format!("m{index}"),
            &message(from, to, subject, &id, body),
            when,
        );
    }
    bot.once(start + jiff::SignedDuration::from_hours(1));
}

fn replies_to(bot: &LocalBot, address: &str) -> Vec<String> {
    bot.sent_mail()
        .into_iter()
        .filter(|m| m.is_to(address))
        .map(|m| m.body)
        .collect()
}

fn announcements(bot: &LocalBot) -> Vec<(String, String)> {
    bot.sent_mail()
        .into_iter()
        .filter(|m| m.is_to(LIST))
        .map(|m| (m.subject, m.body))
        .collect()
}

#[test]
fn a_moderators_adjustment_is_announced_with_the_reason_and_players_give_exactly() {
    let bot = bot();
    play(
        &bot,
        &[
            ("alice@nomic.example", LIST, "[nomic] join Alice", ""),
            ("bob@nomic.example", LIST, "[nomic] join Bob", ""),
            (
                MODERATOR,
                BOT,
                "[nomic]",
                "adjust Alice 10 A$ because won the first Ghost game",
            ),
            (
                "bob@nomic.example",
                BOT,
                "[nomic]",
                "adjust Bob 100 A$ because I say so",
            ),
            ("alice@nomic.example", LIST, "[nomic] give 4 A$ to bob", ""),
            (
                "alice@nomic.example",
                BOT,
                "[nomic]",
                "give 7 A$ to Bob\ngive 1/2 A$ to Bob\ngive 6 1/403 money to Bob\nbalance",
            ),
        ],
    );
    let public = announcements(&bot);
    let adjust = public
        .iter()
        .find(|(subject, _)| subject.contains("Override"))
        .unwrap_or_else(|| {
            panic!(
                "override announced: {public:#?}\n{}",
                bot.cli_ok(&["inbox"])
            )
        });
    assert!(
        adjust.1.contains("won the first Ghost game") && adjust.1.contains(MODERATOR),
        "{adjust:?}"
    );
    assert!(
        public
            .iter()
            .any(|(_, body)| body.contains("4") && body.contains("Bob")),
        "{public:?}"
    );

    let bob = replies_to(&bot, "bob@nomic.example").join("\n");
    assert!(bob.contains("only a moderator"), "{bob}");
    let alice = replies_to(&bot, "alice@nomic.example").join("\n");
    // 10 - 4 = 6 left: 7 is short, 1/2 is no whole A$, money she has none of.
    assert!(alice.contains("Refused") && alice.contains("6"), "{alice}");
    let state = bot.state_json();
    let balances = state["accounts"]["balances"].to_string();
    assert!(
        balances.contains("\"6\"") && balances.contains("\"4\""),
        "{balances}"
    );
    assert!(
        !balances.contains("/"),
        "no fractional A$ anywhere: {balances}"
    );
    let replay = bot.cli_ok(&["replay"]);
    assert!(replay.contains("equals the live state"), "{replay}");
}

#[test]
fn vacation_gaol_and_the_active_players_by_mail() {
    let bot = bot();
    play(
        &bot,
        &[
            ("alice@nomic.example", LIST, "[nomic] join Alice", ""),
            ("bob@nomic.example", LIST, "[nomic] join Bob", ""),
            (
                "alice@nomic.example",
                LIST,
                "[nomic] vacation until 2026-02-10",
                "",
            ),
            (
                "alice@nomic.example",
                LIST,
                "[nomic] gaol Bob because he cheated",
                "",
            ),
            (MODERATOR, LIST, "[nomic] gaol Bob because he cheated", ""),
        ],
    );
    let public = announcements(&bot);
    assert!(
        public
            .iter()
            .any(|(s, _)| s.contains("Alice is on vacation until 2026-02-10")),
        "{public:?}"
    );
    assert!(
        public.iter().any(|(s, _)| s.contains("Bob is in Gaol")),
        "{public:?}"
    );
    assert!(
        replies_to(&bot, "alice@nomic.example")
            .join("\n")
            .contains("only a moderator")
    );
    let state = bot.state_json();
    let players = &state["players"]["players"];
    assert_eq!(players[0]["vacation_until"], "2026-02-10T00:00:00Z");
    assert_eq!(players[1]["in_gaol"], true);

    // The return is a deadline: it fires on the day announced, and says so.
    bot.once(at("2026-02-10T00:00:01Z"));
    let public = announcements(&bot);
    assert!(
        public.iter().any(|(s, _)| s.contains("Alice is back")),
        "{public:?}"
    );
    assert_eq!(
        bot.state_json()["players"]["players"][0]["vacation_until"],
        serde_json::Value::Null
    );
}

#[test]
fn the_rules_officer_amends_and_repeals_by_mail_and_anyone_reads_the_rules() {
    let bot = bot();
    let gnomic = crate::support::repo_root().join("../shared/rules/gnomic-ruleset-v73.txt");
    let out = bot.cli_ok(&[
        "import-rules",
        gnomic.to_str().expect("path"),
        "--now",
        "2026-02-01T00:00:00Z",
    ]);
    assert!(out.contains("imported"), "{out}");
    let numbers: Vec<u64> = bot.state_json()["ruleset"]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter_map(|r| r["number"].as_u64())
        .collect();
    assert!(
        numbers.contains(&101) && numbers.contains(&325),
        "{numbers:?}"
    );

    play(
        &bot,
        &[
            (
                SCHOLAR,
                LIST,
                "[ruleset] amend 325",
                "Players may take two turns.\nend",
            ),
            ("alice@nomic.example", LIST, "[ruleset] repeal 326", ""),
            (SCHOLAR, LIST, "[ruleset] repeal 326", ""),
            ("alice@nomic.example", BOT, "[ruleset] show 325", ""),
        ],
    );
    let alice = replies_to(&bot, "alice@nomic.example").join("\n");
    assert!(
        alice.contains("only the officer who keeps the rules"),
        "{alice}"
    );
    assert!(
        alice.contains("Players may take two turns."),
        "show answers with the new text: {alice}"
    );
    let public = announcements(&bot);
    assert!(
        public
            .iter()
            .any(|(_, b)| b.contains("Players may take two turns.")),
        "{public:?}"
    );
    let rules = bot.state_json()["ruleset"]["rules"].clone();
    let rule_325 = rules
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["number"] == 325)
        .expect("325")
        .clone();
    assert_eq!(rule_325["version"], 2);
    assert!(
        !rules
            .as_array()
            .expect("rules")
            .iter()
            .any(|r| r["number"] == 326),
        "326 repealed"
    );
}

#[test]
fn the_random_officer_commits_before_drawing_and_verify_random_catches_an_altered_draw() {
    let bot = bot();
    play(
        &bot,
        &[
            (
                "alice@nomic.example",
                BOT,
                "[nomic]",
                "random start nweek 1",
            ),
            (
                MODERATOR,
                LIST,
                "[nomic]",
                "random draw 6 the Ghost turn order",
            ),
            (MODERATOR, LIST, "[nomic] random start nweek 1", ""),
            (
                MODERATOR,
                LIST,
                "[nomic]",
                "random draw 6 the Ghost turn order\nrandom draw 100 a boon",
            ),
            (MODERATOR, LIST, "[nomic] random end", ""),
        ],
    );
    assert!(
        replies_to(&bot, "alice@nomic.example")
            .join("\n")
            .contains("only the Officer in charge of Random Things")
    );
    let moderator = replies_to(&bot, MODERATOR).join("\n");
    assert!(
        moderator.contains("no random period running"),
        "a draw needs a period: {moderator}"
    );

    // The commitment is published before any draw, and the seed only at the end.
    let public = announcements(&bot);
    let started = public
        .iter()
        .position(|(s, _)| s.contains("nweek 1") && !s.contains("seed"))
        .expect("start");
    let first_draw = public
        .iter()
        .position(|(s, _)| s.contains("Random draw"))
        .expect("draw");
    let revealed = public
        .iter()
        .position(|(s, _)| s.contains("the seed"))
        .expect("reveal");
    assert!(started < first_draw && first_draw < revealed, "{public:#?}");
    let seed = bot.state_json()["random"]["past"][0]["seed"]
        .as_str()
        .expect("seed")
        .to_owned();
    assert!(public[revealed].1.contains(&seed));
    assert!(
        !public[started].1.contains(&seed),
        "the seed stays secret until the end"
    );

    let verified = bot.cli(&["verify-random"]);
    assert!(
        verified.status.success(),
        "{}",
        String::from_utf8_lossy(&verified.stdout)
    );
    assert!(
        String::from_utf8_lossy(&verified.stdout).contains("2 draw(s) re-run, all as recorded")
    );

    // Someone edits one recorded draw in the database: the check fails and says which.
    let database = bot.dir.path().join("var/nomicbot.sqlite");
    let conn = rusqlite::Connection::open(&database).expect("db");
    let changed = conn
        .execute(
            "UPDATE events SET payload = replace(payload, '\"result\":[', '\"result\":[7') \
             WHERE payload LIKE '%\"kind\":\"drew\"%' AND payload LIKE '%a boon%'",
            [],
        )
        .expect("alter");
    assert_eq!(changed, 1);
    drop(conn);
    let verified = bot.cli(&["verify-random"]);
    assert!(!verified.status.success());
    let text = String::from_utf8_lossy(&verified.stdout);
    assert!(text.contains("FAILED") && text.contains("a boon"), "{text}");
}

#[test]
fn a_moderator_acts_for_a_player_and_voids_an_action_each_announced_with_the_reason() {
    let bot = bot();
    play(
        &bot,
        &[
            ("alice@nomic.example", LIST, "[nomic] join Alice", ""),
            ("bob@nomic.example", LIST, "[nomic] join Bob", ""),
            (
                MODERATOR,
                LIST,
                "[nomic]",
                "as Bob because he asked by phone: rename Robert",
            ),
            (
                "alice@nomic.example",
                BOT,
                "[nomic]",
                "as Bob because I can: leave",
            ),
            (
                MODERATOR,
                LIST,
                "[nomic]",
                "adjust Alice 10 A$ because a prize",
            ),
            (
                "alice@nomic.example",
                LIST,
                "[nomic] give 4 A$ to Robert",
                "",
            ),
            (
                MODERATOR,
                LIST,
                "[nomic]",
                "void <nonsense@nowhere> because testing",
            ),
        ],
    );
    let public = announcements(&bot);
    let behalf = public
        .iter()
        .find(|(s, _)| s.contains("acted for Bob"))
        .expect("on-behalf override announced");
    assert!(
        behalf.1.contains("he asked by phone") && behalf.1.contains("rename Robert"),
        "{behalf:?}"
    );
    assert!(
        public
            .iter()
            .any(|(s, _)| s.contains("Bob is now called Robert")),
        "{public:#?}"
    );
    assert!(
        replies_to(&bot, "alice@nomic.example")
            .join("\n")
            .contains("only a moderator")
    );
    assert!(
        replies_to(&bot, MODERATOR)
            .join("\n")
            .contains("no action of message <nonsense@nowhere>")
    );

    // Alice's gift is voided: her 4 A$ come back, Robert's go.
    let gift_id = bot
        .log_json()
        .iter()
        .find(|r| {
            r["event"]["kind"] == "transferred"
                && r["event"]["reason"]
                    .as_str()
                    .is_some_and(|x| x.contains("gift"))
        })
        .and_then(|r| {
            r["cause"].as_str().map(|c| {
                c.trim_start_matches("mail:<")
                    .trim_end_matches('>')
                    .to_owned()
            })
        })
        .expect("the gift's cause");
    let later = at("2026-02-02T12:00:00Z");
    bot.deliver(
        "void",
        &message(
            MODERATOR,
            LIST,
            "[nomic]",
            "void-1@players.test",
            &format!("void <{gift_id}> because it was a typo"),
        ),
        later,
    );
    bot.once(later + jiff::SignedDuration::from_mins(1));
    let public = announcements(&bot);
    let void = public
        .iter()
        .find(|(s, _)| s.contains("are void"))
        .expect("void announced");
    assert!(void.1.contains("it was a typo"), "{void:?}");
    let balances = bot.state_json()["accounts"]["balances"].to_string();
    assert!(
        balances.contains("\"10\"") && !balances.contains("\"4\""),
        "{balances}"
    );
    let replay = bot.cli_ok(&["replay"]);
    assert!(replay.contains("equals the live state"), "{replay}");
}

#[test]
fn the_officers_are_configured_by_office_and_listed_by_mail() {
    let config = crate::support::trusting()
        .replace("moderators = []", &format!("moderators = [\"{MODERATOR}\"]"))
        .replace(
            "[officers.offices]\n",
            "[officers.offices]\n\"Officer in charge of Random Things\" = [\"orrt@nomic.example\"]\nReferee = []\n",
        );
    let bot = LocalBot::with_config(&config);
    play(
        &bot,
        &[
            ("alice@nomic.example", BOT, "[nomic] officers", ""),
            (
                "orrt@nomic.example",
                LIST,
                "[nomic] random start week 1",
                "",
            ),
        ],
    );
    let alice = replies_to(&bot, "alice@nomic.example").join("\n");
    assert!(
        alice.contains("Officer in charge of Random Things: orrt@nomic.example"),
        "{alice}"
    );
    assert!(alice.contains("Referee: (vacant)"), "{alice}");
    assert!(
        alice.contains(&format!("Moderator: {MODERATOR}")),
        "{alice}"
    );
    let public = announcements(&bot);
    assert!(
        public.iter().any(|(s, _)| s.contains("week 1")),
        "the officer started a period: {public:#?}"
    );
}

#[test]
fn an_amended_rule_keeps_its_paragraphs() {
    // A rule text has paragraphs; the blank lines between them are the text's,
    // not empty commands.
    let bot = bot();
    play(
        &bot,
        &[(
            SCHOLAR,
            LIST,
            "[ruleset] enact 901 \"Paragraphs\"",
            "The first paragraph.\n\n\nThe second paragraph,\nin two lines.\nend\n\nrules",
        )],
    );
    let rules = bot.state_json()["ruleset"]["rules"].clone();
    let rule = rules
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["number"] == 901)
        .unwrap_or_else(|| panic!("901 in {rules}"))
        .clone();
    assert_eq!(
        rule["text"],
        "The first paragraph.\n\nThe second paragraph,\nin two lines."
    );
    let answer = replies_to(&bot, SCHOLAR).join("\n");
    assert!(!answer.contains("Not understood"), "{answer}");
}

/// Issue "Headers of the bot's own mail": an announcement names the officer
/// who acted by the name their mail carried, not by a bare address.
#[test]
fn announcements_name_the_officer_by_name_where_one_is_known() {
    let bot = bot();
    play(
        &bot,
        &[
            ("bob@nomic.example", LIST, "[nomic] join Bob", ""),
            (
                &format!("Mona Moderator <{MODERATOR}>"),
                LIST,
                "[nomic] gaol Bob because he cheated",
                "",
            ),
            (
                MODERATOR,
                LIST,
                "[nomic] release Bob because he served his time",
                "",
            ),
        ],
    );
    let public = announcements(&bot);
    assert!(
        public.iter().any(
            |(_, body)| body.contains(&format!("Mona Moderator <{MODERATOR}> put Bob in Gaol"))
        ),
        "{public:?}"
    );
    assert!(
        public
            .iter()
            .any(|(_, body)| body.contains(&format!("{MODERATOR} released Bob from Gaol"))),
        "with no name, the address: {public:?}"
    );
}

/// Issue 21, item 12: the Treasury is an account like any other for a moderator's
/// `adjust` and a player's `give`, announced like any other; a player cannot
/// overdraw, a forged moderator cannot adjust it, and no player may take its name.
#[test]
fn the_treasury_is_an_account_for_adjust_and_give_and_no_player_may_take_its_name() {
    let bot = bot();
    play(
        &bot,
        &[
            ("alice@nomic.example", LIST, "[nomic] join Alice", ""),
            (
                "eve@nomic.example",
                BOT,
                "[nomic]",
                "join the Treasury\njoin TREASURY\njoin Тreasury",
            ),
            (
                MODERATOR,
                BOT,
                "[nomic]",
                "adjust the Treasury 20 A$ because seed money\nadjust Alice 3 A$ because a start",
            ),
            (
                "alice@nomic.example",
                BOT,
                "[nomic]",
                "give 5 A$ to the Treasury",
            ),
            (
                "alice@nomic.example",
                LIST,
                "[nomic] give 2 A$ to treasury",
                "",
            ),
            (
                "alice@nomic.example",
                BOT,
                "[nomic]",
                "adjust the Treasury -100 A$ because I say so",
            ),
            (
                MODERATOR,
                BOT,
                "[nomic]",
                "adjust THE TREASURY -30 A$ because a fine the rules forgot",
            ),
            ("alice@nomic.example", BOT, "[nomic]", "balance"),
        ],
    );
    let eve = replies_to(&bot, "eve@nomic.example").join("\n");
    assert_eq!(
        eve.matches("cannot be a player's name: it names the Treasury")
            .count(),
        3,
        "{eve}"
    );
    let public = announcements(&bot);
    let seeded = public
        .iter()
        .find(|(subject, _)| subject.contains("Override: the Treasury's A$ adjusted by 20"))
        .unwrap_or_else(|| panic!("{public:#?}"));
    assert!(
        seeded.1.contains("The Treasury now has 20 A$") && seeded.1.contains("seed money"),
        "{seeded:?}"
    );
    assert!(
        public.iter().any(
            |(subject, body)| subject.contains("Alice gave 2 A$ to the Treasury")
                && body.contains("the Treasury now has 22 A$")
        ),
        "{public:#?}"
    );
    let fined = public
        .iter()
        .find(|(subject, _)| subject.contains("Override: the Treasury's A$ adjusted by -30"))
        .unwrap_or_else(|| panic!("{public:#?}"));
    assert!(fined.1.contains("The Treasury now has -8 A$"), "{fined:?}");

    let alice = replies_to(&bot, "alice@nomic.example").join("\n");
    // 3 A$ held: the 5 are refused and nothing moves; the forged override too.
    assert!(alice.contains("you have 3 A$, not enough"), "{alice}");
    assert!(alice.contains("only a moderator"), "{alice}");
    assert!(
        alice.contains("Your balances:\n    0 points\n    1 A$")
            && alice.contains("The Treasury holds:\n    0 points\n    -8 A$"),
        "{alice}"
    );
    let state = bot.state_json();
    assert_eq!(
        crate::support::balance(&state, "Alice", "A$").as_deref(),
        Some("1")
    );
    let accounts: serde_json::Value =
        serde_json::from_str(&bot.cli_ok(&["state", "accounts", "--json"])).expect("json");
    assert!(
        accounts["balances"]
            .as_array()
            .expect("balances")
            .iter()
            .any(|b| b["holder"] == "treasury" && b["currency"] == "A$" && b["amount"] == "-8"),
        "{accounts:#}"
    );
    assert_eq!(
        state["players"]["players"].as_array().map(Vec::len),
        Some(1),
        "only Alice plays"
    );
    let replay = bot.cli_ok(&["replay"]);
    assert!(replay.contains("equals the live state"), "{replay}");
}

/// Issue 21, item 13: `deactivate PLAYER because REASON` takes the reason off the
/// name, as every override does; the reason is in the event and the announcement,
/// and an override without one is refused with the form it is written in.
#[test]
fn every_override_takes_a_reason_recorded_in_the_log_and_announced() {
    let bot = bot();
    play(
        &bot,
        &[
            ("bob@nomic.example", LIST, "[nomic] join Bob", ""),
            (
                MODERATOR,
                BOT,
                "[nomic]",
                "deactivate Bob\ngaol Bob because\nadjust Bob 5 A$ because   \nas Bob because : leave\nvoid <s0@players.test>",
            ),
            (
                MODERATOR,
                LIST,
                "[nomic] deactivate Bob because he has not played for a month",
                "",
            ),
            (
                MODERATOR,
                BOT,
                "[nomic]",
                "Activate bob BECAUSE he wrote back\ngaol Bob because he cheated",
            ),
        ],
    );
    let moderator = replies_to(&bot, MODERATOR).join("\n");
    for form in [
        "deactivate PLAYER because REASON",
        "gaol PLAYER because REASON",
        "adjust PLAYER AMOUNT CURRENCY because REASON",
        "as PLAYER because REASON: COMMAND",
        "void <MESSAGE-ID> because REASON",
    ] {
        assert!(
            moderator.contains(&format!(
                "an override gives its reason, for the list and the archive. The command is written \"{form}\""
            )),
            "{form}: {moderator}"
        );
    }
    let public = announcements(&bot);
    let standing = public
        .iter()
        .find(|(subject, _)| subject == "[nomic] Bob is now inactive")
        .unwrap_or_else(|| panic!("{public:#?}"));
    assert!(
        standing
            .1
            .contains("Reason given: he has not played for a month"),
        "{standing:?}"
    );
    assert!(
        public
            .iter()
            .any(|(_, body)| body.contains("Reason given: he wrote back")),
        "{public:#?}"
    );
    assert!(
        public
            .iter()
            .any(|(_, body)| body.contains("put Bob in Gaol")
                && body.contains("Reason given: he cheated")),
        "{public:#?}"
    );
    let log = bot.log_json();
    let recorded: Vec<(&str, &str)> = log
        .iter()
        .filter_map(|row| {
            let event = &row["event"];
            Some((event["kind"].as_str()?, event["reason"].as_str()?))
        })
        .collect();
    assert_eq!(
        recorded,
        [
            ("marked_inactive", "he has not played for a month"),
            ("marked_active", "he wrote back"),
            ("gaoled", "he cheated"),
        ],
        "{log:#?}"
    );
    let state = bot.state_json();
    let bob = &state["players"]["players"][0];
    assert_eq!(
        (bob["inactive"].clone(), bob["in_gaol"].clone()),
        (false.into(), true.into())
    );
}

/// Issue 21, item 13: a reason goes to the whole list and stays in the log, so
/// one longer than `MAX_REASON_CHARS` is refused and never announced; a
/// megabyte of it is not even read (the answer would pass `max_answer_bytes`).
#[test]
fn a_reason_too_long_is_refused_and_never_reaches_the_list() {
    let bot = bot();
    let long = "x".repeat(nomicbot::engine::MAX_REASON_CHARS + 1);
    let megabyte = "y".repeat(1_000_000);
    play(
        &bot,
        &[
            ("bob@nomic.example", LIST, "[nomic] join Bob", ""),
            (
                MODERATOR,
                BOT,
                "[nomic]",
                &format!("gaol Bob because {long}"),
            ),
            (
                MODERATOR,
                BOT,
                "[nomic]",
                &format!("gaol Bob because {megabyte}"),
            ),
        ],
    );
    let moderator = replies_to(&bot, MODERATOR).join("\n");
    assert!(
        moderator.contains("the reason has 1001 characters, and a reason has at most 1000"),
        "{}",
        &moderator[..moderator.len().min(2000)]
    );
    assert!(
        announcements(&bot)
            .iter()
            .all(|(subject, body)| !subject.contains("Gaol")
                && !body.contains("xxxx")
                && !body.contains("yyyy")),
        "nothing announced"
    );
    assert_eq!(bot.state_json()["players"]["players"][0]["in_gaol"], false);
    let aside = bot.inbox_with_status("aside");
    assert_eq!(aside.lines().count(), 1, "the megabyte's message: {aside}");
}

/// Issue 21, item 14: `outbox --json` shows Message-ID and In-Reply-To as they
/// stand in the headers, angle brackets and all.
#[test]
fn cli_outbox_json_shows_message_id_and_in_reply_to_with_angle_brackets() {
    let bot = bot();
    play(
        &bot,
        &[("alice@nomic.example", BOT, "[nomic] join Alice", "")],
    );
    let rows: serde_json::Value =
        serde_json::from_str(&bot.cli_ok(&["outbox", "--json"])).expect("outbox --json");
    let rows = rows.as_array().expect("a list");
    assert!(!rows.is_empty());
    let header = |row: &serde_json::Value, name: &str| -> Option<String> {
        row["message"]["headers"]
            .as_array()?
            .iter()
            .find(|h| {
                h["name"]
                    .as_str()
                    .is_some_and(|n| n.eq_ignore_ascii_case(name))
            })
            .and_then(|h| h["value"].as_str().map(str::to_owned))
    };
    for row in rows {
        let id = header(row, "Message-ID").expect("every message has a Message-ID");
        assert!(
            id.starts_with('<') && id.ends_with('>') && !id.contains(' '),
            "{id}"
        );
    }
    let answer = rows
        .iter()
        .find(|row| row["message"]["to"][0] == "alice@nomic.example")
        .expect("Alice's answer");
    let first = format!(
        "<s0-{}@players.test>",
        at("2026-02-02T10:00:00Z").as_second()
    );
    assert_eq!(
        header(answer, "In-Reply-To").as_deref(),
        Some(first.as_str())
    );
    assert!(header(answer, "References").is_some_and(|r| r.contains(&first)));
}
