//! `[rule tag]` by mail, on the embedded Maildir transport: each test is a clause of
//! the Rule Tag proposal (`../shared/rules/rule-tag-proposal.txt`), named after it:
//! the rules "Elements", "Rule Tag", "rule tag invalid paths", "rule tag moderation"
//! and "rule tag basketball". Each test sends mail in, and checks the mail out (the
//! answers, the copies to the Rule Tag Moderator, the list announcements) and the
//! state (`state ruletag --json`, with and without `--private`).
//!
//! The calendar is the shipped one: nweeks of ten ndays from 2026-01-05 (nweek 0), so
//! nweek 5 runs from 2026-02-24 to 2026-03-06, its actions close at the end of nday
//! 8, 2026-03-04 00:00 UTC, its turn is processed at 2026-03-06 00:00 UTC, and its
//! notifications are late after 2026-03-08 00:00 UTC (the end of nday 2 of nweek 6).
//!
//! The Gnomic ruleset is imported before the game: its glossary has "integer"
//! defined in 407 and used in 108, 304, 325, 390, 394, 401, 424; "proposal" and
//! "amendment" defined in 434, "proposal" used in 108, 109, 110, ..., "amendment"
//! used in 103, 108, ....

use jiff::{SignedDuration, Timestamp};
use serde_json::{Value, json};

use crate::support::{LocalBot, SentMail, at, message};

pub const LIST: &str = "game-list@nomic.example";
pub const BOT: &str = "bot@nomic.example";
/// The bot's moderator, and so the Rule Tag Moderator unless the config names another.
pub const MODERATOR: &str = "rtm@nomic.example";
/// The officer who keeps the rules (`[officers] rules`).
pub const SCHOLAR: &str = "scholar@nomic.example";

/// Where the RTOs are put when a test does not care: rules nobody moves to.
pub const FAR_BALL: u32 = 437;
pub const FAR_GOAL: u32 = 440;

/// Minute `minutes` of nday `nday` (1..=10) of nweek `nweek` (nweek 0 begins
/// 2026-01-05).
pub fn on(nweek: i64, nday: i64, minutes: i64) -> Timestamp {
    at("2026-01-05T00:00:00Z")
        + SignedDuration::from_mins(((nweek * 10 + nday - 1) * 24 * 60) + minutes)
}

/// The first nday of nweek 5.
pub fn nweek_start() -> Timestamp {
    on(5, 1, 0)
}

/// When nweek 5 ends and its turn is processed.
pub fn nweek_end() -> Timestamp {
    on(6, 1, 0)
}

/// A minute after the end of nweek `nweek`: its turn has been processed.
pub fn after_turn(nweek: i64) -> Timestamp {
    on(nweek + 1, 1, 1)
}

/// A player's address; "Mod" is the moderator.
pub fn address(name: &str) -> String {
    if name == "Mod" {
        MODERATOR.to_owned()
    } else {
        format!("{}@nomic.example", name.to_lowercase())
    }
}

/// The shipped config with `rtm@` as the bot's moderator, `scholar@` as the rules
/// officer, and `ruletag` (TOML lines) as its `[ruletag]` section.
pub fn config(ruletag: &str) -> String {
    let mut config = crate::support::trusting()
        .replace(
            "moderators = []",
            &format!("moderators = [\"{MODERATOR}\"]"),
        )
        .replacen("rules = []", &format!("rules = [\"{SCHOLAR}\"]"), 1);
    assert!(config.contains(SCHOLAR), "the rules officer is set");
    for setting in ruletag.lines().filter(|l| !l.trim().is_empty()) {
        config = set_ruletag(&config, setting);
    }
    config
}

/// Sets one `key = value` of the `[ruletag]` section: the shipped config may have
/// the section, and the key (TOML allows neither twice).
fn set_ruletag(config: &str, setting: &str) -> String {
    let key = setting.split('=').next().expect("key").trim();
    let mut lines: Vec<String> = config.lines().map(str::to_owned).collect();
    let Some(header) = lines.iter().position(|l| l.trim() == "[ruletag]") else {
        return format!("{config}\n[ruletag]\n{setting}\n");
    };
    let end = lines[header + 1..]
        .iter()
        .position(|l| l.trim_start().starts_with('['))
        .map_or(lines.len(), |at| header + 1 + at);
    let existing = (header + 1..end).find(|&i| {
        lines[i]
            .split('=')
            .next()
            .is_some_and(|k| k.trim() == key && !lines[i].trim_start().starts_with('#'))
    });
    match existing {
        Some(i) => lines[i] = setting.to_owned(),
        None => lines.insert(header + 1, setting.to_owned()),
    }
    lines.join("\n") + "\n"
}

/// `config` with `holder` in the office "Rule Tag Moderator" (`[officers.offices]`).
pub fn with_office(config: &str, holder: &str) -> String {
    let changed = config.replacen(
        "[officers.offices]\n",
        &format!("[officers.offices]\n\"Rule Tag Moderator\" = [\"{holder}\"]\n"),
        1,
    );
    assert_ne!(changed, config, "the config has [officers.offices]");
    changed
}

/// A bot whose moderator (and so Rule Tag Moderator) is `rtm@`, with the Gnomic
/// ruleset imported and the players joined; the game is not started yet.
pub fn game(players: &[&str]) -> LocalBot {
    game_with(players, &config(""))
}

/// `game` with a config of the test's own.
pub fn game_with(players: &[&str], config: &str) -> LocalBot {
    let bot = LocalBot::with_config(config);
    let gnomic = crate::support::repo_root().join("../shared/rules/gnomic-ruleset-v73.txt");
    bot.cli_ok(&[
        "import-rules",
        gnomic.to_str().expect("path"),
        "--now",
        "2026-02-23T00:00:00Z",
    ]);
    let mut when = nweek_start() + SignedDuration::from_mins(1);
    for name in std::iter::once(&"Mod").chain(players) {
        send(
            &bot,
            &address(name),
            LIST,
            &format!("[nomic] join {name}"),
            "",
            when,
        );
        when += SignedDuration::from_mins(1);
    }
    bot
}

/// `game` and then `start` by the moderator, at nday 1 of nweek 5.
pub fn started(players: &[&str]) -> LocalBot {
    let bot = game(players);
    start(&bot);
    bot
}

/// The moderator's `start`, at 01:00 on nday 1 of nweek 5.
pub fn start(bot: &LocalBot) {
    send(
        bot,
        MODERATOR,
        LIST,
        "[rule tag] start",
        "",
        nweek_start() + SignedDuration::from_hours(1),
    );
}

/// On a started game (nday 1 of nweek 5, from 02:00): every player given `points`,
/// the ball moved to `ball` and the goal to `goal`. Nothing is processed yet.
pub fn set_up(bot: &LocalBot, players: &[&str], points: i64, ball: u32, goal: u32) {
    let mut when = on(5, 1, 120);
    if points != 0 {
        for name in players {
            give_points(bot, name, points, when);
            when += SignedDuration::from_mins(1);
        }
    }
    relocate(bot, "ball", ball, when);
    relocate(bot, "goal", goal, when + SignedDuration::from_mins(1));
}

/// `started` and `set_up`.
pub fn board(players: &[&str], points: i64, ball: u32, goal: u32) -> LocalBot {
    let bot = started(players);
    set_up(&bot, players, points, ball, goal);
    bot
}

/// `board`, then each `(name, rule)` moves from null to its rule in nweek 5, and the
/// turn of nweek 5 is processed: the test goes on in nweek 6.
pub fn placed(
    players: &[&str],
    points: i64,
    places: &[(&str, u32)],
    ball: u32,
    goal: u32,
) -> LocalBot {
    let bot = board(players, points, ball, goal);
    for (i, (name, rule)) in (0..).zip(places) {
        private(
            &bot,
            name,
            &format!("move from null to {rule}"),
            on(5, 2, i),
        );
    }
    run_until(&bot, after_turn(5));
    for (name, rule) in places {
        assert_eq!(
            standing(&bot, name).1,
            json!(rule),
            "{name} placed on {rule}"
        );
    }
    bot
}

/// Earl (and `others`, with `points` each) on rule 325, Earl holding the ball there;
/// the goal on 407. The test goes on in nweek 6.
pub fn earl_holds_the_ball(others: &[(&str, u32)], points: i64) -> LocalBot {
    earl_holds_the_ball_with(others, points, &config(""))
}

/// `earl_holds_the_ball` with a config of the test's own.
pub fn earl_holds_the_ball_with(others: &[(&str, u32)], points: i64, config: &str) -> LocalBot {
    let mut players = vec!["Earl"];
    players.extend(others.iter().map(|(name, _)| *name));
    let bot = game_with(&players, config);
    start(&bot);
    set_up(&bot, &players, points, 325, 407);
    private(
        &bot,
        "Earl",
        "move from null to 325\ngrab ball 0",
        on(5, 2, 0),
    );
    for (i, (name, rule)) in (1..).zip(others) {
        private(
            &bot,
            name,
            &format!("move from null to {rule}"),
            on(5, 2, i),
        );
    }
    run_until(&bot, after_turn(5));
    assert_eq!(object(&bot, "rule tag ball"), (json!(325), json!("Earl")));
    bot
}

/// Delivers one message, with a Message-ID of its own.
pub fn send(bot: &LocalBot, from: &str, to: &str, subject: &str, body: &str, when: Timestamp) {
    static SENT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = SENT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let id = format!(
        "m{n}-{}-{}@players.test",
        when.as_second(),
        from.replace('@', "-")
    );
    bot.deliver(&id, &message(from, to, subject, &id, body), when);
}

/// `[rule tag]` lines by private mail to the bot (the Rule Tag Moderator's mailbox).
pub fn private(bot: &LocalBot, name: &str, body: &str, when: Timestamp) {
    send(bot, &address(name), BOT, "[rule tag]", body, when);
}

/// `[rule tag]` lines declared on the list.
pub fn on_list(bot: &LocalBot, name: &str, body: &str, when: Timestamp) {
    send(bot, &address(name), LIST, "[rule tag]", body, when);
}

/// `[ruleset]` lines from the rules officer: `amend N` + text + `end`, `repeal N`.
pub fn rules_officer(bot: &LocalBot, body: &str, when: Timestamp) {
    send(bot, SCHOLAR, BOT, "[ruleset]", body, when);
}

/// Runs the bot up to `now` (deadlines included).
pub fn run_until(bot: &LocalBot, now: Timestamp) {
    bot.once(now);
}

/// Rewrites bot.toml between two runs (the bot reads it at every run).
pub fn rewrite_config(bot: &LocalBot, config: &str) {
    std::fs::write(bot.config_path(), config).expect("write config");
}

/// Each player's (element, rtl, points) from `state ruletag --json`, by name.
pub fn standing(bot: &LocalBot, name: &str) -> (String, Value, String) {
    let state = ruletag_state(bot, false);
    let player = state["players"]
        .as_array()
        .expect("players")
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {state}"))
        .clone();
    (
        player["element"].as_str().expect("element").to_owned(),
        player["rtl"].clone(),
        player["points"].as_str().expect("points").to_owned(),
    )
}

pub fn points(bot: &LocalBot, name: &str) -> String {
    standing(bot, name).2
}

pub fn ruletag_state(bot: &LocalBot, private: bool) -> Value {
    let mut args = vec!["state", "ruletag", "--json"];
    if private {
        args.push("--private");
    }
    serde_json::from_str(&bot.cli_ok(&args)).expect("json")
}

/// This nweek's counted actions, as `state ruletag --json` (`--private`) shows them:
/// (player, description, public).
pub fn counted(bot: &LocalBot, private: bool) -> Vec<(String, String, bool)> {
    ruletag_state(bot, private)["actions"]
        .as_array()
        .expect("actions")
        .iter()
        .map(|a| {
            let what = match a["type"].as_str().expect("type") {
                "element" => format!("element {}", a["element"].as_str().unwrap_or("?")),
                "move" => match a["term"].as_str() {
                    Some(term) => format!(
                        "move {} {} {term}",
                        a["from"].as_str().unwrap_or("?"),
                        a["to"].as_str().unwrap_or("?")
                    ),
                    None => format!(
                        "move {} {}",
                        a["from"].as_str().unwrap_or("?"),
                        a["to"].as_str().unwrap_or("?")
                    ),
                },
                "grab" => format!(
                    "grab {} {}",
                    a["object"].as_str().unwrap_or("?"),
                    a["points"]
                ),
                "drop" => format!("drop {}", a["object"].as_str().unwrap_or("?")),
                other => other.to_owned(),
            };
            (
                a["player"].as_str().expect("player").to_owned(),
                what,
                a["public"].as_bool().expect("public"),
            )
        })
        .collect()
}

/// The object's (rtl, holder).
pub fn object(bot: &LocalBot, name: &str) -> (Value, Value) {
    let state = ruletag_state(bot, true);
    let object = state["objects"]
        .as_array()
        .expect("objects")
        .iter()
        .find(|o| o["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {state}"))
        .clone();
    (object["rtl"].clone(), object["holder"].clone())
}

/// The numbers of the rules in effect.
pub fn rule_numbers(bot: &LocalBot) -> Vec<u32> {
    let ruleset: Value =
        serde_json::from_str(&bot.cli_ok(&["state", "ruleset", "--json"])).expect("json");
    ruleset["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| u32::try_from(r["number"].as_u64().expect("number")).expect("u32"))
        .collect()
}

/// The answers to `who`, newest last.
pub fn replies_to(bot: &LocalBot, who: &str) -> Vec<SentMail> {
    bot.sent_mail()
        .into_iter()
        .filter(|m| m.is_to(who) && !m.is_to(LIST))
        .collect()
}

/// The answers to `who` under `[rule tag]`, copies to an officer left out, newest last.
pub fn answers(bot: &LocalBot, who: &str) -> Vec<SentMail> {
    replies_to(bot, who)
        .into_iter()
        .filter(|m| m.subject.starts_with("Re: [rule tag]"))
        .collect()
}

/// The last answer to `who` under `[rule tag]` (not a copy).
pub fn last_answer(bot: &LocalBot, who: &str) -> String {
    answers(bot, who)
        .last()
        .map(|m| format!("{}\n{}", m.subject, m.body))
        .unwrap_or_default()
}

/// The copies of private actions' answers that `officer` received.
pub fn copies(bot: &LocalBot, officer: &str) -> Vec<SentMail> {
    replies_to(bot, officer)
        .into_iter()
        .filter(|m| m.subject.contains("Copy: "))
        .collect()
}

/// The last answer to `who`.
pub fn last_reply(bot: &LocalBot, who: &str) -> String {
    replies_to(bot, who)
        .last()
        .map(|m| format!("{}\n{}", m.subject, m.body))
        .unwrap_or_default()
}

/// Mail to the list whose subject contains `subject`.
pub fn announcements(bot: &LocalBot, subject: &str) -> Vec<SentMail> {
    bot.sent_mail()
        .into_iter()
        .filter(|m| m.is_to(LIST) && m.subject.contains(subject))
        .collect()
}

/// The only list mail whose subject contains `subject`: its body.
pub fn announcement(bot: &LocalBot, subject: &str) -> String {
    let found = announcements(bot, subject);
    assert_eq!(
        found.len(),
        1,
        "one list mail about {subject:?}: {:?}",
        bot.sent_mail()
            .iter()
            .map(|m| m.subject.clone())
            .collect::<Vec<_>>()
    );
    found[0].body.clone()
}

/// Notification 1 of nweek `nweek`: the actions, and every player's RTL and element.
pub fn first_notification(bot: &LocalBot, nweek: i64) -> String {
    announcement(
        bot,
        &format!("Rule tag nweek {nweek}: the actions, and every player's RTL and element"),
    )
}

/// Notification 2 of nweek `nweek`: scores, the RTOs, and what changed.
pub fn second_notification(bot: &LocalBot, nweek: i64) -> String {
    announcement(
        bot,
        &format!("Rule tag nweek {nweek}: scores, the RTOs, and what changed"),
    )
}

/// A line of notification 1 (ii).
pub fn standing_line(name: &str, rtl: &str, element: &str) -> String {
    format!("    {name:<20} RTL {rtl:<6} {element}")
}

/// A line of notification 2 (i).
pub fn score_change_line(name: &str, change: i64) -> String {
    let change = if change > 0 {
        format!("+{change}")
    } else {
        change.to_string()
    };
    format!("    {name:<20} {change}\n")
}

/// A line of notification 2 (ii).
pub fn object_line(name: &str, rtl: u32, holder: Option<&str>) -> String {
    format!(
        "    {name:<16} on rule {rtl}, possessed by {}",
        holder.unwrap_or("nobody")
    )
}

/// Some answer to `who` contains `needle`, whichever order the answers went out in.
#[track_caller]
pub fn assert_answered(bot: &LocalBot, who: &str, needle: &str) {
    let bodies: Vec<String> = answers(bot, who).into_iter().map(|m| m.body).collect();
    assert!(
        bodies.iter().any(|b| b.contains(needle)),
        "expected {needle:?} in an answer to {who}: {bodies:?}"
    );
}

#[track_caller]
pub fn assert_has(text: &str, needle: &str) {
    assert!(text.contains(needle), "expected {needle:?} in:\n{text}");
}

#[track_caller]
pub fn assert_lacks(text: &str, needle: &str) {
    assert!(
        !text.contains(needle),
        "did not expect {needle:?} in:\n{text}"
    );
}

/// Adjusts a player's points by a moderator's override, so tests start from known scores.
pub fn give_points(bot: &LocalBot, name: &str, points: i64, when: Timestamp) {
    send(
        bot,
        MODERATOR,
        BOT,
        "[nomic] adjust",
        &format!("adjust {name} {points} points because the test starts here"),
        when,
    );
}

/// Moves an RTO by the moderator's override.
pub fn relocate(bot: &LocalBot, object: &str, rule: u32, when: Timestamp) {
    send(
        bot,
        MODERATOR,
        BOT,
        "[rule tag]",
        &format!("relocate {object} to {rule} because the test needs it there"),
        when,
    );
}

const LATE_IN_NWEEK_5: &str =
    "must be made before the end of nday 8, and for nweek 5 that was 2026-03-04 00:00 UTC";

// ---------------------------------------------------------------------------
// Rule "Elements"
// ---------------------------------------------------------------------------

#[test]
fn elements_the_default_element_is_earth() {
    // "its default value is "Earth"."
    let bot = started(&["Earl", "Ariel"]);
    run_until(&bot, on(5, 2, 0));
    for name in ["Mod", "Earl", "Ariel"] {
        assert_eq!(standing(&bot, name).0, "Earth", "{name}");
    }
    assert_has(
        &announcement(&bot, "Rule tag begins"),
        "Every player starts with the element Earth",
    );
    run_until(&bot, after_turn(5));
    let first = first_notification(&bot, 5);
    for name in ["Mod", "Earl", "Ariel"] {
        assert_has(&first, &standing_line(name, "null", "Earth"));
    }
}

#[test]
fn elements_a_player_changes_element_by_private_mail_or_on_the_list() {
    // "Players may change their element with an "element change" game action."
    let bot = started(&["Earl", "Ariel", "Phoebe"]);
    send(
        &bot,
        &address("Ariel"),
        BOT,
        "[rule tag] element air",
        "",
        on(5, 2, 0),
    );
    on_list(&bot, "Phoebe", "element water", on(5, 2, 1));
    private(&bot, "Earl", "element change to \"Fire\"", on(5, 2, 2));
    run_until(&bot, on(5, 2, 10));

    let ariel = last_answer(&bot, &address("Ariel"));
    assert_has(&ariel, "Re: [rule tag] element air");
    assert_has(
        &ariel,
        "Done. Counted: element change to Air. It takes effect at the end of nweek 5.",
    );
    assert_has(
        &ariel,
        "It stays private (the Rule Tag Moderator has a copy)",
    );
    let phoebe = last_answer(&bot, &address("Phoebe"));
    assert_has(&phoebe, "(on the list)");
    assert_has(&phoebe, "Done. Counted: element change to Water.");
    assert_lacks(&phoebe, "stays private");
    // The moderator has a copy of the private ones only.
    let copies: Vec<String> = copies(&bot, MODERATOR)
        .into_iter()
        .map(|m| m.subject)
        .collect();
    assert!(
        copies
            .iter()
            .any(|s| s.contains("Copy: ariel@nomic.example: Re: element air")),
        "{copies:?}"
    );
    assert!(
        copies
            .iter()
            .any(|s| s.contains("Copy: earl@nomic.example")),
        "{copies:?}"
    );
    assert!(!copies.iter().any(|s| s.contains("phoebe@")), "{copies:?}");

    assert_eq!(
        counted(&bot, true),
        vec![
            ("Ariel".to_owned(), "element Air".to_owned(), false),
            ("Phoebe".to_owned(), "element Water".to_owned(), true),
            ("Earl".to_owned(), "element Fire".to_owned(), false),
        ]
    );
    assert_eq!(
        counted(&bot, false),
        vec![("Phoebe".to_owned(), "element Water".to_owned(), true)]
    );
    // The change takes effect at the end of the nweek.
    assert_eq!(standing(&bot, "Ariel").0, "Earth");

    run_until(&bot, after_turn(5));
    assert_eq!(standing(&bot, "Ariel").0, "Air");
    assert_eq!(standing(&bot, "Phoebe").0, "Water");
    assert_eq!(standing(&bot, "Earl").0, "Fire");
    let first = first_notification(&bot, 5);
    assert_has(&first, "element change to Air (made privately)");
    assert_has(&first, "element change to Water\n");
    assert_has(&first, &standing_line("Ariel", "null", "Air"));
    assert_has(&first, &standing_line("Earl", "null", "Fire"));
}

#[test]
fn elements_only_the_first_element_change_in_an_nweek_counts() {
    // "Only one element change game action can be made by a player in an nweek;
    // subsequent such declarations in the same nweek will be ignored."
    let bot = started(&["Ariel"]);
    private(&bot, "Ariel", "element air", on(5, 2, 0));
    private(&bot, "Ariel", "element fire", on(5, 3, 0));
    let ignored = "Ignored: you already changed your element this nweek, to Air, and rule \"Elements\" counts only the first element change in an nweek (\"subsequent such declarations in the same nweek will be ignored\").";
    run_until(&bot, on(5, 3, 1));
    assert_has(&last_answer(&bot, &address("Ariel")), ignored);
    on_list(&bot, "Ariel", "element water", on(5, 4, 0));
    run_until(&bot, on(5, 4, 1));
    assert_has(&last_answer(&bot, &address("Ariel")), ignored);
    assert_eq!(
        counted(&bot, true),
        vec![("Ariel".to_owned(), "element Air".to_owned(), false)]
    );

    run_until(&bot, after_turn(5));
    assert_eq!(standing(&bot, "Ariel").0, "Air");
    let first = first_notification(&bot, 5);
    assert_has(&first, "element change to Air");
    assert_lacks(&first, "Fire");
    assert_lacks(&first, "Water");

    // A new nweek, a new first change.
    private(&bot, "Ariel", "element water", on(6, 2, 0));
    run_until(&bot, on(6, 2, 1));
    assert_has(
        &last_answer(&bot, &address("Ariel")),
        "Done. Counted: element change to Water.",
    );
    run_until(&bot, after_turn(6));
    assert_eq!(standing(&bot, "Ariel").0, "Water");
}

#[test]
fn elements_element_change_after_the_end_of_nday_8_is_refused() {
    // "Element change game actions must be made before the end of nday 8."
    let bot = started(&["Earl", "Ariel"]);
    private(&bot, "Ariel", "element air", on(5, 9, -1));
    private(&bot, "Earl", "element fire", on(5, 9, 0));
    on_list(&bot, "Earl", "element water", on(5, 10, 0));
    run_until(&bot, on(5, 10, 1));
    assert_has(
        &answers(&bot, &address("Ariel"))[0].body,
        "Done. Counted: element change to Air.",
    );
    for reply in answers(&bot, &address("Earl")) {
        assert_has(
            &reply.body,
            &format!(
                "Refused: rule \"Elements\" says element change game actions {LATE_IN_NWEEK_5}. Actions for the next nweek are taken from 2026-03-06 00:00 UTC."
            ),
        );
    }
    run_until(&bot, after_turn(5));
    assert_eq!(standing(&bot, "Earl").0, "Earth");
    assert_eq!(standing(&bot, "Ariel").0, "Air");
}

// ---------------------------------------------------------------------------
// Rule "Rule Tag": the RTL, the actions and when they may be made
// ---------------------------------------------------------------------------

#[test]
fn rule_tag_the_rtl_defaults_to_null() {
    // "Its default value is null." RTOs get random non-null RTLs (rule "rule tag
    // basketball").
    let bot = started(&["Earl", "Ariel"]);
    run_until(&bot, on(5, 2, 0));
    for name in ["Mod", "Earl", "Ariel"] {
        assert_eq!(standing(&bot, name).1, Value::Null, "{name}");
    }
    let rules = rule_numbers(&bot);
    for name in ["rule tag ball", "rule tag goal"] {
        let (rtl, holder) = object(&bot, name);
        let rtl = u32::try_from(rtl.as_u64().expect("an RTO is never on null")).expect("u32");
        assert!(rules.contains(&rtl), "{name} on rule {rtl}, which exists");
        assert_eq!(holder, Value::Null);
    }
}

#[test]
fn rule_tag_actions_by_private_mail_are_answered_with_a_copy_to_the_moderator() {
    // "All rule tag actions may be made by emailing the rule tag moderator with a
    // subject line starting "[rule tag]"."
    let bot = started(&["Earl"]);
    send(
        &bot,
        &address("Earl"),
        BOT,
        "[rule tag] move from null to 325",
        "",
        on(5, 2, 0),
    );
    run_until(&bot, on(5, 2, 1));
    let answers = answers(&bot, &address("Earl"));
    assert_eq!(answers.len(), 1);
    assert_eq!(answers[0].subject, "Re: [rule tag] move from null to 325");
    assert_has(&answers[0].body, "(to the bot)");
    assert_has(
        &answers[0].body,
        "> move from null to 325\nDone. Counted: move from null to 325. It takes effect at the end of nweek 5; only your last move action of the nweek counts, so you may change it until 2026-03-04 00:00 UTC. It stays private (the Rule Tag Moderator has a copy)",
    );
    let copy = replies_to(&bot, MODERATOR)
        .into_iter()
        .find(|m| m.subject.contains("Copy: earl@nomic.example"))
        .expect("a copy to the Rule Tag Moderator");
    assert_eq!(
        copy.subject,
        "[rule tag] Copy: earl@nomic.example: Re: move from null to 325"
    );
    assert_has(
        &copy.body,
        "A copy for the officer: earl@nomic.example wrote privately",
    );
    assert_has(&copy.body, "Done. Counted: move from null to 325.");
    assert_eq!(
        counted(&bot, true),
        vec![("Earl".to_owned(), "move null 325".to_owned(), false)]
    );

    run_until(&bot, after_turn(5));
    assert_eq!(standing(&bot, "Earl").1, json!(325));
    assert_has(
        &first_notification(&bot, 5),
        "move from null to 325 (made privately)",
    );
}

#[test]
fn rule_tag_actions_declared_on_the_list_count_too() {
    // "They may also be made by the normal method of declaring them on the public
    // forum."
    let bot = started(&["Earl"]);
    on_list(&bot, "Earl", "move from null to 325", on(5, 2, 0));
    run_until(&bot, on(5, 2, 1));
    let answer = last_answer(&bot, &address("Earl"));
    assert_has(&answer, "(on the list)");
    assert_has(&answer, "Done. Counted: move from null to 325.");
    assert_lacks(&answer, "stays private");
    assert!(
        !replies_to(&bot, MODERATOR)
            .iter()
            .any(|m| m.subject.contains("Copy: earl@")),
        "nothing to copy: the list has it"
    );
    assert_eq!(
        counted(&bot, false),
        vec![("Earl".to_owned(), "move null 325".to_owned(), true)]
    );

    run_until(&bot, after_turn(5));
    assert_eq!(standing(&bot, "Earl").1, json!(325));
    let first = first_notification(&bot, 5);
    assert_has(&first, "move from null to 325\n");
    assert_lacks(&first, "(made privately)");
}

#[test]
fn rule_tag_all_actions_after_the_end_of_nday_8_are_refused() {
    // "All rule tag actions must be made before the end of nday 8."
    let bot = board(&["Earl"], 20, 325, FAR_GOAL);
    private(
        &bot,
        "Earl",
        "move from null to 325\ngrab ball 5\ndrop ball",
        on(5, 9, 0),
    );
    on_list(&bot, "Earl", "move from null to 407", on(5, 10, 0));
    run_until(&bot, on(5, 10, 1));
    let answers = answers(&bot, &address("Earl"));
    assert_eq!(answers.len(), 2);
    let late = format!(
        "Refused: rule \"Rule Tag\" says all rule tag actions {LATE_IN_NWEEK_5}. Actions for the next nweek are taken from 2026-03-06 00:00 UTC."
    );
    assert_eq!(
        answers[0].body.matches(&late).count(),
        3,
        "{}",
        answers[0].body
    );
    assert_has(
        &answers[0].body,
        "In all: 0 done, 3 refused, 0 not understood.",
    );
    assert_has(&answers[1].body, &late);
    assert!(counted(&bot, true).is_empty());
    // The moderator decides whether an action is valid: ey sees the refused
    // private ones too (issue 12, item 5), and only the private ones.
    let moderator_copies = copies(&bot, MODERATOR);
    assert_eq!(moderator_copies.len(), 1, "the private message only");
    assert_has(&moderator_copies[0].body, &late);

    run_until(&bot, after_turn(5));
    assert_eq!(standing(&bot, "Earl").1, Value::Null);
    assert_has(
        &first_notification(&bot, 5),
        "No player made a valid rule tag action this nweek.",
    );
}

#[test]
fn rule_tag_only_the_last_move_of_an_nweek_counts() {
    // "Only the last rule tag action ey makes of a given type in a given nweek shall
    // be counted as having meaning in the rules."
    let bot = started(&["Earl"]);
    private(&bot, "Earl", "move from null to 325", on(5, 2, 0));
    on_list(&bot, "Earl", "move from null to 407", on(5, 3, 0));
    run_until(&bot, on(5, 3, 1));
    assert_has(
        &last_answer(&bot, &address("Earl")),
        "Done. Replaced: your move action this nweek is now: move from null to 407.",
    );
    // A refused move is not made: the last valid one still counts.
    private(&bot, "Earl", "move from null to 9999", on(5, 4, 0));
    run_until(&bot, on(5, 4, 1));
    assert_has(
        &last_answer(&bot, &address("Earl")),
        "Refused: there is no rule 9999",
    );
    assert_eq!(
        counted(&bot, true),
        vec![("Earl".to_owned(), "move null 407".to_owned(), true)]
    );

    run_until(&bot, after_turn(5));
    assert_eq!(standing(&bot, "Earl").1, json!(407));
    let first = first_notification(&bot, 5);
    assert_has(&first, "move from null to 407");
    assert_lacks(&first, "move from null to 325");
}

#[test]
fn rule_tag_only_the_last_grab_of_an_nweek_counts() {
    let bot = board(&["Earl", "Ariel"], 50, 325, FAR_GOAL);
    private(
        &bot,
        "Earl",
        "move from null to 325\ngrab ball 30",
        on(5, 2, 0),
    );
    private(
        &bot,
        "Ariel",
        "move from null to 325\ngrab ball 10",
        on(5, 2, 1),
    );
    private(
        &bot,
        "Earl",
        "grab the rule tag ball for 5 points",
        on(5, 3, 0),
    );
    run_until(&bot, on(5, 3, 1));
    assert_has(
        &last_answer(&bot, &address("Earl")),
        "Done. Replaced: your grab action this nweek is now: grab rule tag ball for 5 points.",
    );
    let grabs: Vec<_> = counted(&bot, true)
        .into_iter()
        .filter(|a| a.1.starts_with("grab"))
        .collect();
    assert_eq!(
        grabs,
        vec![
            (
                "Ariel".to_owned(),
                "grab rule tag ball 10".to_owned(),
                false
            ),
            ("Earl".to_owned(), "grab rule tag ball 5".to_owned(), false),
        ]
    );

    run_until(&bot, after_turn(5));
    // Earl's 30 no longer counts: Ariel's 10 is the highest.
    assert_eq!(object(&bot, "rule tag ball"), (json!(325), json!("Ariel")));
    assert_eq!(points(&bot, "Ariel"), "40");
    assert_eq!(points(&bot, "Earl"), "50");
    let second = second_notification(&bot, 5);
    assert_has(
        &second,
        "Grab Actions: Ariel gains possession of the rule tag ball, clause (iii), and loses the 10 points declared.",
    );
    assert_lacks(&first_notification(&bot, 5), "30 points");
}

// ---------------------------------------------------------------------------
// Rule "Rule Tag": moves
// ---------------------------------------------------------------------------

#[test]
fn rule_tag_move_clause_i_from_null_to_any_rule() {
    // "(i) If eir current RTL is null, then ey may choose any rule number."
    let bot = started(&["Earl", "Ariel", "Phoebe"]);
    private(&bot, "Earl", "move from null to 440", on(5, 2, 0));
    private(&bot, "Ariel", "move from null to rule 101", on(5, 2, 1));
    on_list(&bot, "Phoebe", "move from null to #213", on(5, 2, 2));
    private(&bot, "Phoebe", "move from null to 9999", on(5, 2, 3));
    run_until(&bot, on(5, 2, 10));
    assert_has(
        &answers(&bot, &address("Earl"))[0].body,
        "Done. Counted: move from null to 440.",
    );
    assert_has(
        &answers(&bot, &address("Ariel"))[0].body,
        "Done. Counted: move from null to 101.",
    );
    assert_has(
        &last_answer(&bot, &address("Phoebe")),
        "Refused: there is no rule 9999, and a move must choose the number of a rule that exists (clauses (i)-(iii)).",
    );
    run_until(&bot, after_turn(5));
    assert_eq!(standing(&bot, "Earl").1, json!(440));
    assert_eq!(standing(&bot, "Ariel").1, json!(101));
    assert_eq!(standing(&bot, "Phoebe").1, json!(213));
    let second = second_notification(&bot, 5);
    assert_has(&second, "Move Actions: Earl moved from null to 440.");
    assert_has(&second, "Move Actions: Phoebe moved from null to 213.");
}

#[test]
fn rule_tag_move_clause_ii_to_a_rule_that_defines_a_term_used_in_the_current_rule() {
    // "(ii) Ey may choose the rule number of a rule that defines one of the game
    // terms used in eir current RTL rule." "integer" is used in 325 and defined in
    // 407; "amendment" is used in 108 and defined in 434.
    let bot = placed(
        &["Earl", "Ariel"],
        0,
        &[("Earl", 325), ("Ariel", 108)],
        FAR_BALL,
        FAR_GOAL,
    );
    private(
        &bot,
        "Earl",
        "move from 325 to 407 via \"integer\"",
        on(6, 2, 0),
    );
    on_list(
        &bot,
        "Ariel",
        "move from rule 108 to rule 434 using amendment",
        on(6, 2, 1),
    );
    run_until(&bot, on(6, 2, 10));
    assert_has(
        &last_answer(&bot, &address("Earl")),
        "Done. Counted: move from 325 to 407 via \"integer\".",
    );
    assert_has(
        &last_answer(&bot, &address("Ariel")),
        "Done. Counted: move from 108 to 434 via \"amendment\".",
    );
    assert_eq!(
        counted(&bot, true),
        vec![
            ("Earl".to_owned(), "move 325 407 integer".to_owned(), false),
            (
                "Ariel".to_owned(),
                "move 108 434 amendment".to_owned(),
                true
            ),
        ]
    );
    run_until(&bot, after_turn(6));
    assert_eq!(standing(&bot, "Earl").1, json!(407));
    assert_eq!(standing(&bot, "Ariel").1, json!(434));
    let first = first_notification(&bot, 6);
    assert_has(
        &first,
        "move from 325 to 407 via \"integer\" (made privately)",
    );
    assert_has(&first, "move from 108 to 434 via \"amendment\"\n");
    assert_has(&first, &standing_line("Earl", "325", "Earth"));
}

#[test]
fn rule_tag_move_clause_iii_to_a_rule_that_uses_a_term_defined_in_the_current_rule() {
    // "(iii) Ey may choose the rule number of a rule that uses one of the game terms
    // defined in the current RTL rule." "integer" is defined in 407 and used in 394;
    // "proposal" is defined in 434 and used in 109.
    let bot = placed(
        &["Earl", "Ariel"],
        0,
        &[("Earl", 407), ("Ariel", 434)],
        FAR_BALL,
        FAR_GOAL,
    );
    private(
        &bot,
        "Earl",
        "move from 407 to 394 via integer",
        on(6, 2, 0),
    );
    private(
        &bot,
        "Ariel",
        "move from 434 to 109 via \"Proposal\"",
        on(6, 2, 1),
    );
    run_until(&bot, on(6, 2, 10));
    assert_has(
        &last_answer(&bot, &address("Earl")),
        "Done. Counted: move from 407 to 394 via \"integer\".",
    );
    assert_has(
        &last_answer(&bot, &address("Ariel")).to_lowercase(),
        "done. counted: move from 434 to 109 via \"proposal\".",
    );
    run_until(&bot, after_turn(6));
    assert_eq!(standing(&bot, "Earl").1, json!(394));
    assert_eq!(standing(&bot, "Ariel").1, json!(109));
}

#[test]
fn rule_tag_move_game_terms_come_from_the_glossary_of_the_imported_ruleset() {
    // "For the purposes of rule tag, a rule that defines a game term is a rule that
    // explains what that specific meaning is. More than one rule can define a single
    // game term." The glossary after importing Gnomic v73.
    let bot = game(&[]);
    let ruleset: Value =
        serde_json::from_str(&bot.cli_ok(&["state", "ruleset", "--json"])).expect("json");
    let term = |name: &str| {
        ruleset["glossary"]
            .as_array()
            .expect("glossary")
            .iter()
            .find(|t| t["term"] == name)
            .unwrap_or_else(|| panic!("no {name} in the glossary"))
            .clone()
    };
    let integer = term("integer");
    assert_eq!(integer["defined_in"], json!([407]));
    assert_eq!(
        integer["used_in"],
        json!([108, 304, 325, 390, 394, 401, 424])
    );
    let proposal = term("proposal");
    assert_eq!(proposal["defined_in"], json!([434]));
    for rule in [108, 109, 110] {
        assert!(
            proposal["used_in"]
                .as_array()
                .expect("used")
                .contains(&json!(rule)),
            "{proposal}"
        );
    }
    assert_eq!(term("amendment")["defined_in"], json!([434]));
    // No rule defines "player", "object" or "game object".
    for name in ["player", "object", "game object"] {
        assert!(
            !ruleset["glossary"]
                .as_array()
                .expect("glossary")
                .iter()
                .any(|t| t["term"] == name),
            "{name}"
        );
    }
}

#[test]
fn rule_tag_move_clause_iv_to_null() {
    // "(iv) Ey may choose null." With or without the current RTL shown.
    let bot = placed(
        &["Earl", "Ariel", "Phoebe"],
        30,
        &[("Earl", 325), ("Ariel", 407)],
        FAR_BALL,
        FAR_GOAL,
    );
    private(&bot, "Earl", "move to null", on(6, 2, 0));
    on_list(&bot, "Ariel", "move from 407 to null", on(6, 2, 1));
    private(&bot, "Phoebe", "move to null", on(6, 2, 2));
    run_until(&bot, on(6, 2, 10));
    assert_has(
        &last_answer(&bot, &address("Earl")),
        "Done. Counted: move from 325 to null.",
    );
    assert_has(
        &last_answer(&bot, &address("Ariel")),
        "Done. Counted: move from 407 to null.",
    );
    assert_has(
        &last_answer(&bot, &address("Phoebe")),
        "Refused: your RTL is already null, so there is nowhere to move to under clause (iv).",
    );
    run_until(&bot, after_turn(6));
    assert_eq!(standing(&bot, "Earl").1, Value::Null);
    assert_eq!(standing(&bot, "Ariel").1, Value::Null);
    let second = second_notification(&bot, 6);
    assert_has(&second, "Move Actions: Earl moved from 325 to null.");
    assert_has(&second, "Move Actions: Ariel moved from 407 to null.");
}

#[test]
fn rule_tag_move_must_clearly_show_the_current_rtl_the_new_rtl_and_the_linking_term() {
    // "As part of the rule tag move action, the player must clearly show eir current
    // RTL, new RTL and the game term that links them."
    let bot = placed(&["Earl", "Ariel"], 0, &[("Earl", 325)], FAR_BALL, FAR_GOAL);
    private(
        &bot,
        "Earl",
        "move to 407 via integer\nmove from 101 to 407 via integer\nmove from 325 to 407\nmove from 325 to 325 via integer",
        on(6, 2, 0),
    );
    private(
        &bot,
        "Ariel",
        "move to 325\nmove from 325 to 407 via integer",
        on(6, 2, 1),
    );
    run_until(&bot, on(6, 2, 10));
    let earl = last_answer(&bot, &address("Earl"));
    assert_has(
        &earl,
        "> move to 407 via integer\nRefused: rule \"Rule Tag\" requires a move to clearly show your current RTL, new RTL and the game term that links them. Write it as \"move from 325 to 407 via \"TERM\"\".",
    );
    assert_has(
        &earl,
        "> move from 101 to 407 via integer\nRefused: you showed 101 as your current RTL, but it is 325. Rule \"Rule Tag\" requires the move to show your current RTL, new RTL and the linking game term",
    );
    assert_has(
        &earl,
        "> move from 325 to 407\nRefused: a move from rule 325 to rule 407 must show the game term that links them (clauses (ii) and (iii)), as in \"move from 325 to 407 via \"TERM\"\". Terms that link them: integer.",
    );
    assert_has(
        &earl,
        "> move from 325 to 325 via integer\nRefused: you are already on rule 325",
    );
    assert_has(&earl, "In all: 0 done, 4 refused, 0 not understood.");
    let ariel = last_answer(&bot, &address("Ariel"));
    assert_has(
        &ariel,
        "> move to 325\nRefused: rule \"Rule Tag\" requires a move to clearly show your current RTL, new RTL and the game term that links them. Write it as \"move from null to 325\".",
    );
    assert_has(
        &ariel,
        "> move from 325 to 407 via integer\nRefused: you showed 325 as your current RTL, but it is null.",
    );
    assert!(counted(&bot, true).is_empty());
    run_until(&bot, after_turn(6));
    assert_eq!(standing(&bot, "Earl").1, json!(325));
    assert_eq!(standing(&bot, "Ariel").1, Value::Null);
}

#[test]
fn rule_tag_move_a_term_that_does_not_link_the_two_rules_is_refused() {
    let bot = placed(&["Earl"], 0, &[("Earl", 325)], FAR_BALL, FAR_GOAL);
    private(
        &bot,
        "Earl",
        "move from 325 to 434 via integer\nmove from 325 to 407 via scorez\nmove from 325 to 101 via proposal",
        on(6, 2, 0),
    );
    run_until(&bot, on(6, 2, 10));
    let earl = last_answer(&bot, &address("Earl"));
    assert_has(
        &earl,
        "Refused: \"integer\" does not link rule 325 to rule 434. Clause (ii) needs it used in 325 and defined in 434; clause (iii) needs it defined in 325 and used in 434. The glossary has it defined in 407 and used in 108, 304, 325, 390, 394, 401, 424.",
    );
    assert_has(
        &earl,
        "Refused: \"scorez\" is not a game term of the glossary, so it cannot link two rules (clauses (ii) and (iii)). Terms that link these rules: integer.",
    );
    assert_has(
        &earl,
        "Refused: \"proposal\" does not link rule 325 to rule 101.",
    );
    assert_has(&earl, "In all: 0 done, 3 refused");
    assert!(counted(&bot, true).is_empty());
    run_until(&bot, after_turn(6));
    assert_eq!(standing(&bot, "Earl").1, json!(325));
}

#[test]
fn rule_tag_move_to_a_repealed_rule_is_refused() {
    // A destination must be a rule: one repealed no longer exists.
    let bot = placed(&["Earl", "Ariel"], 0, &[("Earl", 325)], FAR_BALL, FAR_GOAL);
    rules_officer(&bot, "repeal 407", on(6, 2, 0));
    private(
        &bot,
        "Earl",
        "move from 325 to 407 via integer",
        on(6, 2, 1),
    );
    private(&bot, "Ariel", "move from null to 407", on(6, 2, 2));
    run_until(&bot, on(6, 2, 10));
    assert!(
        !rule_numbers(&bot).contains(&407),
        "the officer repealed 407"
    );
    for name in ["Earl", "Ariel"] {
        assert_has(
            &last_answer(&bot, &address(name)),
            "Refused: there is no rule 407 any more (it was repealed), and a move must choose the number of a rule that exists (clauses (i)-(iii)).",
        );
    }
    assert!(counted(&bot, true).is_empty());
}

// ---------------------------------------------------------------------------
// Rule "Rule Tag": grabs and drops, as declared
// ---------------------------------------------------------------------------

#[test]
fn rule_tag_grab_may_not_declare_more_points_than_held_or_less_than_0() {
    // "Ey may not declare more points than ey has. Ey may not declare less than 0"
    let bot = board(&["Earl"], 20, 325, FAR_GOAL);
    private(
        &bot,
        "Earl",
        "move from null to 325\ngrab ball 21\ngrab ball -1\ngrab bat 1\ngrab ball 20",
        on(5, 2, 0),
    );
    run_until(&bot, on(5, 2, 10));
    let earl = last_answer(&bot, &address("Earl"));
    assert_has(
        &earl,
        "> grab ball 21\nRefused: you declared 21 points but have 20, and rule \"Rule Tag\" says you may not declare more points than you have.",
    );
    assert_has(
        &earl,
        "> grab ball -1\nRefused: rule \"Rule Tag\" says you may not declare less than 0 points for a grab.",
    );
    assert_has(
        &earl,
        "> grab bat 1\nRefused: there is no RTO called \"rule tag bat\". The RTOs are: rule tag ball, rule tag goal.",
    );
    assert_has(
        &earl,
        "> grab ball 20\nDone. Counted: grab rule tag ball for 20 points.",
    );
    assert_eq!(
        counted(&bot, true),
        vec![
            ("Earl".to_owned(), "move null 325".to_owned(), false),
            ("Earl".to_owned(), "grab rule tag ball 20".to_owned(), false),
        ]
    );
}

#[test]
fn rule_tag_grab_where_player_and_rto_are_on_different_rtls_at_resolution_is_invalid() {
    // "Firstly, any grab actions where the player and the RTO have different RTL's
    // are declared invalid and play no more part in the game."
    let bot = board(&["Earl", "Ariel"], 20, 101, FAR_GOAL);
    // Earl grabs the ball on 101 while moving to 325: the answer warns em.
    private(
        &bot,
        "Earl",
        "move from null to 325\ngrab ball 5",
        on(5, 2, 0),
    );
    run_until(&bot, on(5, 2, 1));
    assert_has(
        &last_answer(&bot, &address("Earl")),
        "Done. Counted: grab rule tag ball for 5 points. It takes effect at the end of nweek 5; only your last grab action of the nweek counts, so you may change it until 2026-03-04 00:00 UTC. It stays private (the Rule Tag Moderator has a copy) until the end of the nweek, when every action is published. Note: a grab counts only if you and the RTO share an RTL when grabs are resolved, after the moves; now you are on null and rule tag ball is on 101.",
    );
    // Ariel grabs the goal where it is; then the moderator moves the goal away.
    relocate(&bot, "goal", 325, on(5, 2, 5));
    private(
        &bot,
        "Ariel",
        "move from null to 325\ngrab goal 3",
        on(5, 3, 0),
    );
    relocate(&bot, "goal", 407, on(5, 7, 0));
    run_until(&bot, after_turn(5));
    assert_lacks(&answers(&bot, &address("Ariel"))[0].body, "Note:");
    let second = second_notification(&bot, 5);
    assert_has(
        &second,
        "Grab Actions: Earl's grab of the rule tag ball is invalid: Earl is on 325, the rule tag ball on 101.",
    );
    assert_has(
        &second,
        "Grab Actions: Ariel's grab of the rule tag goal is invalid: Ariel is on 325, the rule tag goal on 407.",
    );
    assert_eq!(object(&bot, "rule tag ball"), (json!(101), Value::Null));
    assert_eq!(object(&bot, "rule tag goal"), (json!(407), Value::Null));
    assert_eq!(points(&bot, "Earl"), "20");
    assert_eq!(points(&bot, "Ariel"), "20");
}

#[test]
fn rule_tag_move_and_grab_in_one_nweek_move_actions_come_before_grab_actions() {
    let bot = board(&["Earl"], 20, 325, FAR_GOAL);
    private(
        &bot,
        "Earl",
        "move from null to 325\ngrab ball 3",
        on(5, 2, 0),
    );
    run_until(&bot, on(5, 2, 1));
    assert_lacks(&last_answer(&bot, &address("Earl")), "Note:");
    run_until(&bot, after_turn(5));
    assert_eq!(object(&bot, "rule tag ball"), (json!(325), json!("Earl")));
    assert_eq!(points(&bot, "Earl"), "20");
    let second = second_notification(&bot, 5);
    let moved = second
        .find("Move Actions: Earl moved from null to 325.")
        .expect(&second);
    let grabbed = second
        .find("Grab Actions: Earl gains possession of the rule tag ball, clause (ii).")
        .expect(&second);
    assert!(moved < grabbed, "{second}");
    assert_has(&second, &object_line("rule tag ball", 325, Some("Earl")));
}

#[test]
fn rule_tag_a_possessed_rto_moves_with_its_holder() {
    // "If an RTO has been successfully grabbed by a player then it moves whenever the
    // player moves, and to the same RTL."
    let bot = earl_holds_the_ball(&[], 20);
    relocate(&bot, "goal", FAR_GOAL, on(6, 1, 60));
    private(
        &bot,
        "Earl",
        "move from 325 to 407 via integer",
        on(6, 2, 0),
    );
    run_until(&bot, after_turn(6));
    assert_eq!(standing(&bot, "Earl").1, json!(407));
    assert_eq!(object(&bot, "rule tag ball"), (json!(407), json!("Earl")));
    let second = second_notification(&bot, 6);
    assert_has(
        &second,
        "Move Actions: the rule tag ball moved with Earl to 407.",
    );
    assert_has(&second, &object_line("rule tag ball", 407, Some("Earl")));
    // Nobody grabbed it: it stays in Earl's possession (Grab Actions (i) reading).
    run_until(&bot, after_turn(7));
    assert_eq!(object(&bot, "rule tag ball"), (json!(407), json!("Earl")));
}

#[test]
fn rule_tag_drop_only_an_rto_you_possess() {
    // "If the player has possession of an RTO then ey may make a "rule tag drop" rule
    // tag action. Ey must name the object ey is dropping."
    let bot = board(&["Earl", "Ariel"], 0, 325, FAR_GOAL);
    // Earl's grab is not resolved yet: ey possesses nothing.
    private(
        &bot,
        "Earl",
        "move from null to 325\ngrab ball 0\ndrop ball",
        on(5, 2, 0),
    );
    run_until(&bot, after_turn(5));
    let not_held = "Refused: you are not in possession of the rule tag ball, and rule \"Rule Tag\" allows a drop only of an RTO you possess.";
    assert_has(&answers(&bot, &address("Earl"))[0].body, not_held);
    assert_eq!(object(&bot, "rule tag ball"), (json!(325), json!("Earl")));

    private(&bot, "Ariel", "drop ball\ndrop goal\ndrop", on(6, 2, 0));
    private(&bot, "Earl", "drop bat\ndrop goal", on(6, 2, 1));
    run_until(&bot, on(6, 2, 10));
    let ariel = last_answer(&bot, &address("Ariel"));
    assert_has(&ariel, not_held);
    assert_has(
        &ariel,
        "Refused: you are not in possession of the rule tag goal",
    );
    assert_has(&ariel, "drop OBJECT (as in: drop ball)");
    let earl = last_answer(&bot, &address("Earl"));
    assert_has(&earl, "Refused: there is no RTO called \"rule tag bat\".");
    assert_has(
        &earl,
        "Refused: you are not in possession of the rule tag goal",
    );
    assert!(counted(&bot, true).is_empty());
}

#[test]
fn rule_tag_a_drop_action_releases_the_rto() {
    // "Drop Actions": Players who made rule tag drop actions are no longer in
    // possession of the RTO that they dropped.
    let bot = earl_holds_the_ball(&[], 20);
    private(&bot, "Earl", "drop the ball", on(6, 2, 0));
    run_until(&bot, on(6, 2, 1));
    assert_has(
        &last_answer(&bot, &address("Earl")),
        "Done. Counted: drop rule tag ball.",
    );
    run_until(&bot, after_turn(6));
    assert_eq!(object(&bot, "rule tag ball"), (json!(325), Value::Null));
    assert_eq!(standing(&bot, "Earl").1, json!(325));
    assert_has(
        &first_notification(&bot, 6),
        "drop rule tag ball (made privately)",
    );
    let second = second_notification(&bot, 6);
    assert_has(
        &second,
        "Drop Actions: Earl dropped the rule tag ball on 325.",
    );
    assert_has(&second, &object_line("rule tag ball", 325, None));
}

#[test]
fn rule_tag_drop_actions_come_before_grab_actions() {
    // "Drop Actions" before "Grab Actions": a ball dropped this turn is not in
    // possession when it is grabbed, so a lone grab takes it, clause (ii).
    let bot = earl_holds_the_ball(&[("Ariel", 325)], 20);
    private(&bot, "Earl", "drop ball", on(6, 2, 0));
    private(&bot, "Ariel", "grab ball 3", on(6, 2, 1));
    run_until(&bot, after_turn(6));
    assert_eq!(object(&bot, "rule tag ball"), (json!(325), json!("Ariel")));
    assert_eq!(points(&bot, "Ariel"), "20");
    let second = second_notification(&bot, 6);
    assert_has(
        &second,
        "Drop Actions: Earl dropped the rule tag ball on 325.",
    );
    assert_has(
        &second,
        "Grab Actions: Ariel gains possession of the rule tag ball, clause (ii).",
    );
    assert_lacks(&second, "clause (i);");
}

// ---------------------------------------------------------------------------
// Rule "Rule Tag": "Grab Actions"
// ---------------------------------------------------------------------------

#[test]
fn rule_tag_grab_actions_i_a_possessed_rto_is_knocked_loose() {
    // "(i) If the RTO is in possession, it is dropped, and nothing else happens to it
    // this turn."
    let bot = earl_holds_the_ball(&[("Ariel", 325), ("Phoebe", 325)], 30);
    private(&bot, "Ariel", "grab ball 10", on(6, 2, 0));
    private(&bot, "Phoebe", "grab ball 4", on(6, 2, 1));
    run_until(&bot, after_turn(6));
    assert_eq!(object(&bot, "rule tag ball"), (json!(325), Value::Null));
    for name in ["Earl", "Ariel", "Phoebe"] {
        assert_eq!(points(&bot, name), "30", "{name} pays nothing");
    }
    let second = second_notification(&bot, 6);
    assert_has(
        &second,
        "Grab Actions: the rule tag ball was possessed by Earl and is dropped, clause (i); nothing else happens to it this turn.",
    );
    assert_lacks(&second, "gains possession");
}

#[test]
fn rule_tag_grab_actions_i_read_literally_drops_every_possessed_rto() {
    // `drop_possessed_without_grab = true`: every possessed RTO is dropped at every
    // turn, grabbed or not.
    let bot = game_with(&["Earl"], &config("drop_possessed_without_grab = true"));
    start(&bot);
    set_up(&bot, &["Earl"], 0, 325, FAR_GOAL);
    private(
        &bot,
        "Earl",
        "move from null to 325\ngrab ball 0",
        on(5, 2, 0),
    );
    run_until(&bot, after_turn(5));
    assert_eq!(object(&bot, "rule tag ball"), (json!(325), json!("Earl")));
    run_until(&bot, after_turn(6));
    assert_eq!(object(&bot, "rule tag ball"), (json!(325), Value::Null));
    assert_has(
        &second_notification(&bot, 6),
        "the rule tag ball was possessed by Earl and is dropped, clause (i)",
    );
}

#[test]
fn rule_tag_grab_actions_ii_a_lone_grab_gains_possession_without_paying() {
    // "(ii) Otherwise if there is only one grab action for the RTO, then the player
    // making the grab action gains possession."
    let bot = board(&["Earl", "Ariel"], 40, 325, 407);
    private(
        &bot,
        "Earl",
        "move from null to 325\ngrab ball 40",
        on(5, 2, 0),
    );
    on_list(
        &bot,
        "Ariel",
        "move from null to 407\ngrab goal 7",
        on(5, 2, 1),
    );
    run_until(&bot, after_turn(5));
    assert_eq!(object(&bot, "rule tag ball"), (json!(325), json!("Earl")));
    assert_eq!(object(&bot, "rule tag goal"), (json!(407), json!("Ariel")));
    assert_eq!(points(&bot, "Earl"), "40");
    assert_eq!(points(&bot, "Ariel"), "40");
    let second = second_notification(&bot, 5);
    // RTOs are resolved in turn: the ball, then the goal.
    let ball = second
        .find("Earl gains possession of the rule tag ball, clause (ii).")
        .expect(&second);
    let goal = second
        .find("Ariel gains possession of the rule tag goal, clause (ii).")
        .expect(&second);
    assert!(ball < goal);
    assert_has(&second, &score_change_line("Earl", 0));
    assert_has(&second, &object_line("rule tag goal", 407, Some("Ariel")));
}

#[test]
fn rule_tag_grab_actions_iii_the_highest_bidder_gains_possession_and_pays() {
    // "(iii) ... there is one player who declared more points than any other; and who
    // has at least as many points as he declared; then that player gains possession
    // and loses the number of points ey declared."
    let bot = board(&["Earl", "Ariel", "Phoebe"], 50, 325, FAR_GOAL);
    for (i, (name, bid)) in (0..).zip([("Earl", 5), ("Ariel", 12), ("Phoebe", 7)]) {
        private(
            &bot,
            name,
            &format!("move from null to 325\ngrab ball {bid}"),
            on(5, 2, i),
        );
    }
    run_until(&bot, after_turn(5));
    assert_eq!(object(&bot, "rule tag ball"), (json!(325), json!("Ariel")));
    assert_eq!(points(&bot, "Ariel"), "38");
    assert_eq!(points(&bot, "Earl"), "50");
    assert_eq!(points(&bot, "Phoebe"), "50");
    let second = second_notification(&bot, 5);
    assert_has(
        &second,
        "Grab Actions: Ariel gains possession of the rule tag ball, clause (iii), and loses the 12 points declared.",
    );
    assert_has(&second, &score_change_line("Ariel", -12));
    assert_has(&second, &score_change_line("Earl", 0));
    assert_has(&second, &object_line("rule tag ball", 325, Some("Ariel")));
}

#[test]
fn rule_tag_grab_actions_iv_a_tie_gets_nothing() {
    // "(iv) Otherwise, nothing happens."
    let bot = board(&["Earl", "Ariel"], 50, 325, FAR_GOAL);
    private(
        &bot,
        "Earl",
        "move from null to 325\ngrab ball 10",
        on(5, 2, 0),
    );
    private(
        &bot,
        "Ariel",
        "move from null to 325\ngrab ball 10",
        on(5, 2, 1),
    );
    run_until(&bot, after_turn(5));
    assert_eq!(object(&bot, "rule tag ball"), (json!(325), Value::Null));
    assert_eq!(points(&bot, "Earl"), "50");
    assert_eq!(points(&bot, "Ariel"), "50");
    assert_has(
        &second_notification(&bot, 5),
        "Grab Actions: Earl, Ariel grabbed the rule tag ball, but more than one declared the most (10): nothing happens, clause (iv).",
    );
}

#[test]
fn rule_tag_grab_actions_iv_a_top_bidder_short_of_points_at_resolution_gets_nothing() {
    // The top bidder's points are checked at resolution; the next bidder does not step up.
    let bot = board(&["Earl", "Ariel"], 30, 325, FAR_GOAL);
    private(
        &bot,
        "Earl",
        "move from null to 325\ngrab ball 25",
        on(5, 2, 0),
    );
    private(
        &bot,
        "Ariel",
        "move from null to 325\ngrab ball 10",
        on(5, 2, 1),
    );
    give_points(&bot, "Earl", -20, on(5, 7, 0));
    run_until(&bot, after_turn(5));
    assert_eq!(object(&bot, "rule tag ball"), (json!(325), Value::Null));
    assert_eq!(points(&bot, "Earl"), "10");
    assert_eq!(points(&bot, "Ariel"), "30");
    assert_has(
        &second_notification(&bot, 5),
        "Grab Actions: Earl, Ariel grabbed the rule tag ball, but the highest bidder does not have the 25 points declared: nothing happens, clause (iv).",
    );
}

// ---------------------------------------------------------------------------
// Rule "Rule Tag": "Elemental Tag Resolve"
// ---------------------------------------------------------------------------

/// Each `(name, element, rule)` changes element and moves from null to the rule in
/// nweek 5 (everyone has 50 points); the turn is processed.
fn elemental(players: &[(&str, &str, Option<u32>)]) -> LocalBot {
    let names: Vec<&str> = players.iter().map(|p| p.0).collect();
    let bot = board(&names, 50, FAR_BALL, FAR_GOAL);
    for (i, (name, element, rule)) in (0..).zip(players) {
        let mut body = format!("element {element}");
        if let Some(rule) = rule {
            body.push_str(&format!("\nmove from null to {rule}"));
        }
        private(&bot, name, &body, on(5, 2, i));
    }
    run_until(&bot, after_turn(5));
    bot
}

#[test]
fn elemental_tag_resolve_the_rules_own_example() {
    // "given three players with elements Earth, Air and Fire, on the same RTL: Air
    // gives Fire 15 points; Earth gives Air 15 points."
    let bot = started(&["Earl", "Ariel", "Phoebe"]);
    let day2 = nweek_start() + SignedDuration::from_hours(30);
    for name in ["Earl", "Ariel", "Phoebe"] {
        give_points(&bot, name, 50, day2);
    }
    send(
        &bot,
        &address("Ariel"),
        BOT,
        "[rule tag] element air",
        "",
        day2,
    );
    send(
        &bot,
        &address("Phoebe"),
        BOT,
        "[rule tag]",
        "element fire",
        day2,
    );
    for name in ["Earl", "Ariel", "Phoebe"] {
        send(
            &bot,
            &address(name),
            BOT,
            "[rule tag]",
            "move from null to 325",
            day2 + SignedDuration::from_mins(5),
        );
    }
    run_until(&bot, nweek_end() + SignedDuration::from_mins(1));
    assert_eq!(
        standing(&bot, "Earl"),
        ("Earth".into(), 325.into(), "35".into())
    );
    assert_eq!(
        standing(&bot, "Ariel"),
        ("Air".into(), 325.into(), "50".into())
    );
    assert_eq!(
        standing(&bot, "Phoebe"),
        ("Fire".into(), 325.into(), "65".into())
    );
    let results = announcements(&bot, "scores, the RTOs");
    assert_eq!(results.len(), 1, "one second notification");
    let body = &results[0].body;
    assert!(
        !body.contains("Earth beats"),
        "Earth and Fire are neutral: {body}"
    );
    assert!(
        body.contains("Fire beats Air: Ariel gives Phoebe 15 points")
            && body.contains("Air beats Earth: Earl gives Ariel 15 points"),
        "{body}"
    );
}

#[test]
fn elemental_tag_resolve_each_of_the_four_beats() {
    // "Earth beats Water; Water beats Fire; Fire beats Air; Air beats Earth."
    let bot = elemental(&[
        ("Earl", "earth", Some(101)),
        ("Wanda", "water", Some(101)),
        ("Walter", "water", Some(102)),
        ("Phoebe", "fire", Some(102)),
        ("Fiona", "fire", Some(103)),
        ("Ariel", "air", Some(103)),
        ("Aaron", "air", Some(104)),
        ("Edith", "earth", Some(104)),
    ]);
    for winner in ["Earl", "Walter", "Fiona", "Aaron"] {
        assert_eq!(points(&bot, winner), "65", "{winner}");
    }
    for loser in ["Wanda", "Phoebe", "Ariel", "Edith"] {
        assert_eq!(points(&bot, loser), "35", "{loser}");
    }
    let second = second_notification(&bot, 5);
    for line in [
        "Elemental Tag Resolve: on rule 101, Earth beats Water: Wanda gives Earl 15 points.",
        "Elemental Tag Resolve: on rule 102, Water beats Fire: Phoebe gives Walter 15 points.",
        "Elemental Tag Resolve: on rule 103, Fire beats Air: Ariel gives Fiona 15 points.",
        "Elemental Tag Resolve: on rule 104, Air beats Earth: Edith gives Aaron 15 points.",
    ] {
        assert_has(&second, line);
    }
    assert_has(&second, &score_change_line("Earl", 15));
    assert_has(&second, &score_change_line("Wanda", -15));
}

#[test]
fn elemental_tag_resolve_all_other_combinations_are_neutral() {
    let bot = elemental(&[
        ("Earl", "earth", Some(101)),
        ("Phoebe", "fire", Some(101)),
        ("Ariel", "air", Some(102)),
        ("Wanda", "water", Some(102)),
        ("Fiona", "fire", Some(103)),
        ("Fred", "fire", Some(103)),
        ("Edith", "earth", Some(104)),
        ("Eric", "earth", Some(104)),
    ]);
    for name in [
        "Earl", "Phoebe", "Ariel", "Wanda", "Fiona", "Fred", "Edith", "Eric",
    ] {
        assert_eq!(points(&bot, name), "50", "{name}");
    }
    assert_lacks(&second_notification(&bot, 5), "Elemental Tag Resolve");
}

#[test]
fn elemental_tag_resolve_only_players_on_the_same_non_null_rtl() {
    // "Players on the same (non-null) RTL as another player"
    let bot = elemental(&[
        ("Earl", "earth", Some(325)),
        ("Wanda", "water", Some(407)),
        ("Edith", "earth", None),
        ("Walter", "water", None),
        ("Ariel", "air", None),
    ]);
    for name in ["Earl", "Wanda", "Edith", "Walter", "Ariel"] {
        assert_eq!(points(&bot, name), "50", "{name}");
    }
    assert_lacks(&second_notification(&bot, 5), "Elemental Tag Resolve");
}

#[test]
fn elemental_tag_resolve_each_combination_of_more_than_two_players_is_honoured() {
    // "Where there are more than two players on an RTL, each combination of players
    // is honoured."
    let bot = elemental(&[
        ("Earl", "earth", Some(325)),
        ("Wanda", "water", Some(325)),
        ("Walter", "water", Some(325)),
        ("Ariel", "air", Some(325)),
    ]);
    // Earl: +15 +15 (the Waters) -15 (Ariel); Ariel +15; the Waters -15 each.
    assert_eq!(points(&bot, "Earl"), "65");
    assert_eq!(points(&bot, "Ariel"), "65");
    assert_eq!(points(&bot, "Wanda"), "35");
    assert_eq!(points(&bot, "Walter"), "35");
    let second = second_notification(&bot, 5);
    assert_eq!(
        second.matches("Elemental Tag Resolve:").count(),
        3,
        "{second}"
    );
}

// ---------------------------------------------------------------------------
// Rule "Rule Tag": "Penalties", and the null RTL
// ---------------------------------------------------------------------------

#[test]
fn rule_tag_penalties_moved_to_null_lose_10_points() {
    // "Players who moved to null this turn lose 10 points." Even though they are then
    // on null, and even below zero.
    let bot = placed(
        &["Earl", "Ariel"],
        0,
        &[("Earl", 325), ("Ariel", 407)],
        FAR_BALL,
        FAR_GOAL,
    );
    give_points(&bot, "Earl", 30, on(6, 1, 60));
    private(&bot, "Earl", "move to null", on(6, 2, 0));
    private(&bot, "Ariel", "move to null", on(6, 2, 1));
    run_until(&bot, after_turn(6));
    assert_eq!(points(&bot, "Earl"), "20");
    assert_eq!(points(&bot, "Ariel"), "-10");
    let second = second_notification(&bot, 6);
    assert_has(
        &second,
        "Penalties: Earl moved to null this turn and loses 10 points.",
    );
    assert_has(
        &second,
        "Penalties: Ariel moved to null this turn and loses 10 points.",
    );
    assert_has(&second, &score_change_line("Earl", -10));
    assert_has(&second, &score_change_line("Ariel", -10));
}

#[test]
fn rule_tag_penalties_rtl_rule_repealed_sets_the_rtl_to_null_and_costs_25() {
    // "Players whose RTL no longer points to a valid rule have their RTL set to null
    // and lose 25 points."
    let bot = placed(
        &["Earl", "Ariel"],
        40,
        &[("Earl", 407), ("Ariel", 325)],
        FAR_BALL,
        FAR_GOAL,
    );
    rules_officer(&bot, "repeal 407", on(6, 3, 0));
    run_until(&bot, after_turn(6));
    assert_eq!(standing(&bot, "Earl").1, Value::Null);
    assert_eq!(points(&bot, "Earl"), "15");
    assert_eq!(standing(&bot, "Ariel").1, json!(325));
    assert_eq!(points(&bot, "Ariel"), "40");
    let second = second_notification(&bot, 6);
    assert_has(
        &second,
        "Penalties: rule 407, Earl's RTL, no longer exists: Earl loses 25 points and is set to null.",
    );
    assert_has(&second, "Penalties: Earl moved from 407 to null.");
    // Gone, not also "changed"; and not "moved to null" by a move.
    assert_lacks(&second, "changed this nweek");
    assert_lacks(&second, "moved to null this turn");
}

#[test]
fn rule_tag_penalties_rtl_rule_amended_costs_10() {
    // "Players whose RTL points to a rule that has just changed lose 10 points."
    let bot = placed(
        &["Earl", "Ariel"],
        40,
        &[("Earl", 325), ("Ariel", 407)],
        FAR_BALL,
        FAR_GOAL,
    );
    rules_officer(
        &bot,
        "amend 325\nPlayers take turns in alphabetical order. Every score is an integer.\nend",
        on(6, 3, 0),
    );
    run_until(&bot, after_turn(6));
    assert_eq!(points(&bot, "Earl"), "30");
    assert_eq!(points(&bot, "Ariel"), "40");
    assert_eq!(standing(&bot, "Earl").1, json!(325));
    assert_has(
        &second_notification(&bot, 6),
        "Penalties: rule 325, Earl's RTL, changed this nweek: Earl loses 10 points.",
    );
    // Once only: the next turn does not count the same change again.
    run_until(&bot, after_turn(7));
    assert_eq!(points(&bot, "Earl"), "30");
    assert_lacks(&second_notification(&bot, 7), "changed this nweek");
}

#[test]
fn rule_tag_penalties_come_after_passed_proposals_have_been_enacted_into_the_rules() {
    // "At the end of the nweek, after passed proposals have been enacted into the
    // rules, the rule tag moderator processes the end of the ruletag turn." With a
    // processing delay, an amendment the rules officer makes after the end of the
    // nweek and before the turn is processed is in the registry for the turn.
    let bot = game_with(&["Earl"], &config("process_delay_hours = 12"));
    start(&bot);
    set_up(&bot, &["Earl"], 40, FAR_BALL, FAR_GOAL);
    private(&bot, "Earl", "move from null to 325", on(5, 2, 0));
    run_until(&bot, on(6, 1, 12 * 60 + 1));
    assert_eq!(standing(&bot, "Earl").1, json!(325));
    assert_has(
        &first_notification(&bot, 5),
        "posted at 2026-03-06 12:01 UTC",
    );

    rules_officer(
        &bot,
        "amend 325\nEvery score is an integer.\nend",
        on(7, 1, 6 * 60),
    );
    run_until(&bot, on(7, 1, 12 * 60 + 1));
    let ruleset: Value =
        serde_json::from_str(&bot.cli_ok(&["state", "ruleset", "--json"])).expect("json");
    let rule = ruleset["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .find(|r| r["number"] == 325)
        .expect("325")
        .clone();
    assert_eq!(rule["text"], "Every score is an integer.");
    assert_eq!(points(&bot, "Earl"), "30");
    assert_has(
        &second_notification(&bot, 6),
        "Penalties: rule 325, Earl's RTL, changed this nweek: Earl loses 10 points.",
    );
}

#[test]
fn rule_tag_penalties_a_rule_changed_before_the_game_began_has_not_just_changed() {
    // Setting up the registry before the game is no change within it.
    let bot = game(&["Earl"]);
    rules_officer(
        &bot,
        "amend 325\nEvery score is an integer.\nend",
        on(5, 1, 30),
    );
    start(&bot);
    set_up(&bot, &["Earl"], 40, FAR_BALL, FAR_GOAL);
    private(&bot, "Earl", "move from null to 325", on(5, 2, 0));
    run_until(&bot, after_turn(5));
    assert_eq!(standing(&bot, "Earl").1, json!(325));
    assert_eq!(points(&bot, "Earl"), "40");
    assert_lacks(&second_notification(&bot, 5), "changed this nweek");
}

#[test]
fn rule_tag_players_on_null_cannot_lose_points_as_a_result_of_rule_tag_actions_or_objects() {
    // A null player's grab is invalid and costs nothing; elemental resolve does not
    // touch em.
    let bot = board(&["Earl", "Ariel", "Wanda"], 30, 325, FAR_GOAL);
    private(&bot, "Earl", "grab ball 30", on(5, 2, 0));
    private(
        &bot,
        "Ariel",
        "move from null to 325\ngrab ball 5",
        on(5, 2, 1),
    );
    private(&bot, "Wanda", "element water", on(5, 2, 2));
    run_until(&bot, after_turn(5));
    // Earl stayed on null: eir grab is invalid, so Ariel's is the only one, clause (ii).
    assert_eq!(object(&bot, "rule tag ball"), (json!(325), json!("Ariel")));
    assert_eq!(points(&bot, "Earl"), "30");
    assert_eq!(points(&bot, "Ariel"), "30");
    assert_eq!(points(&bot, "Wanda"), "30");
    let second = second_notification(&bot, 5);
    assert_has(
        &second,
        "Grab Actions: Earl's grab of the rule tag ball is invalid: Earl is on null, the rule tag ball on 325.",
    );
    assert_has(
        &second,
        "Ariel gains possession of the rule tag ball, clause (ii).",
    );
    assert_lacks(&second, "Elemental Tag Resolve");
}

#[test]
fn rule_tag_an_rto_carried_to_null_falls_and_is_relocated_at_random() {
    // `rto_never_on_null = true`, the reading before issue 12: an RTO is never on
    // null; when its holder moves to null it falls and is put back on a rule at
    // random (not the other RTO's).
    let bot = earl_holds_the_ball_with(&[], 30, &config("rto_never_on_null = true"));
    private(&bot, "Earl", "move to null", on(6, 2, 0));
    run_until(&bot, after_turn(6));
    assert_eq!(standing(&bot, "Earl").1, Value::Null);
    assert_eq!(points(&bot, "Earl"), "20");
    let (rtl, holder) = object(&bot, "rule tag ball");
    assert_eq!(holder, Value::Null);
    let rtl = u32::try_from(rtl.as_u64().expect("the ball is on a rule")).expect("u32");
    assert!(rule_numbers(&bot).contains(&rtl));
    assert_ne!(rtl, 407, "not on the goal's rule");
    let second = second_notification(&bot, 6);
    assert_has(
        &second,
        "Move Actions: the rule tag ball moved with Earl to null, and fell from eir hands.",
    );
    assert_has(
        &second,
        &format!("the rule tag ball is relocated at random to rule {rtl} (from null)."),
    );
    assert_has(&second, &object_line("rule tag ball", rtl, None));
}

#[test]
fn rule_tag_an_rto_on_a_repealed_rule_is_relocated_at_random() {
    let bot = board(&["Earl"], 0, 407, 325);
    rules_officer(&bot, "repeal 407", on(5, 3, 0));
    run_until(&bot, after_turn(5));
    let (rtl, holder) = object(&bot, "rule tag ball");
    assert_eq!(holder, Value::Null);
    let rtl = u32::try_from(rtl.as_u64().expect("the ball is on a rule")).expect("u32");
    assert!(rule_numbers(&bot).contains(&rtl));
    assert_ne!(rtl, 325, "not on the goal's rule");
    assert_has(
        &second_notification(&bot, 5),
        &format!("the rule tag ball is relocated at random to rule {rtl} (from 407)."),
    );
}

#[test]
fn rule_tag_a_player_who_leaves_drops_out_and_eir_rto_is_dropped() {
    let bot = earl_holds_the_ball(&[("Ariel", 325)], 20);
    send(
        &bot,
        &address("Earl"),
        LIST,
        "[nomic] leave",
        "",
        on(6, 2, 0),
    );
    run_until(&bot, after_turn(6));
    assert_eq!(object(&bot, "rule tag ball"), (json!(325), Value::Null));
    let second = second_notification(&bot, 6);
    assert_has(&second, "Earl dropped the rule tag ball on 325.");
    assert_lacks(&second, &score_change_line("Earl", 0));
    assert!(
        !ruletag_state(&bot, false)["players"]
            .as_array()
            .expect("players")
            .iter()
            .any(|p| p["name"] == "Earl"),
        "Earl left"
    );
}

// ---------------------------------------------------------------------------
// Rule "rule tag invalid paths"
// ---------------------------------------------------------------------------

#[test]
fn rule_tag_invalid_paths_object_game_object_and_player_never_link_two_rules() {
    // "The following game terms are not valid for use as game terms in the game of
    // rule tag: "Object", "Game Object", "Player"." Even once the moderator has ruled
    // that rule 384 defines "Player" (325 uses it).
    let bot = placed(&["Earl"], 0, &[("Earl", 325)], FAR_BALL, FAR_GOAL);
    send(
        &bot,
        MODERATOR,
        BOT,
        "[rule tag]",
        "term \"Player\" defined in 384 because rule 384 defines players",
        on(6, 1, 60),
    );
    private(
        &bot,
        "Earl",
        "move from 325 to 384 via Player\nmove from 325 to 384 via \"player\"\nmove from 325 to 384 via Object\nmove from 325 to 384 via \"Game Object\"\nmove from 325 to 384",
        on(6, 2, 0),
    );
    run_until(&bot, on(6, 2, 10));
    assert_has(
        &last_answer(&bot, MODERATOR),
        "Ruled: \"Player\" is a game term defined in rule 384.",
    );
    let earl = last_answer(&bot, &address("Earl"));
    for term in ["Player", "player", "Object", "Game Object"] {
        assert_has(
            &earl,
            &format!(
                "Refused: rule \"rule tag invalid paths\" says \"{term}\" is not valid for use as a game term in rule tag"
            ),
        );
    }
    assert_has(
        &earl,
        "> move from 325 to 384\nRefused: a move from rule 325 to rule 384 must show the game term that links them",
    );
    assert_lacks(&earl, "Terms that link them: player");
    assert_has(&earl, "In all: 0 done, 5 refused");
    run_until(&bot, after_turn(6));
    assert_eq!(standing(&bot, "Earl").1, json!(325));
}

// ---------------------------------------------------------------------------
// Rule "rule tag moderation"
// ---------------------------------------------------------------------------

#[test]
fn rule_tag_moderation_1_the_moderator_may_make_no_rule_tag_action_but_a_move_to_null() {
    // "1) The rule tag moderator may not make rule tag actions, except to rule tag
    // move to null."
    let bot = board(&[], 0, 325, FAR_GOAL);
    private(
        &bot,
        "Mod",
        "move from null to 325\ngrab ball 0\ndrop ball\nelement fire",
        on(5, 2, 0),
    );
    on_list(&bot, "Mod", "move from null to 325", on(5, 2, 1));
    send(
        &bot,
        MODERATOR,
        BOT,
        "[rule tag]",
        "as Mod because the moderator wants to play: move from null to 325",
        on(5, 2, 3),
    );
    run_until(&bot, on(5, 2, 10));
    let only_null = "Refused: rule \"rule tag moderation\" 1) says the Rule Tag Moderator may not make rule tag actions, except to move to null.";
    let answers = answers(&bot, MODERATOR);
    let private_answer = answers
        .iter()
        .find(|m| m.body.contains("> grab ball 0"))
        .expect("the answer");
    assert_eq!(
        private_answer.body.matches(only_null).count(),
        3,
        "{}",
        private_answer.body
    );
    assert_has(
        &private_answer.body,
        "> element fire\nDone. Counted: element change to Fire.",
    );
    assert!(
        answers
            .iter()
            .filter(|m| m.body.contains(only_null))
            .count()
            >= 3,
        "list and `as` refused too"
    );
    assert_eq!(
        counted(&bot, true),
        vec![("Mod".to_owned(), "element Fire".to_owned(), false)]
    );
    run_until(&bot, after_turn(5));
    assert_eq!(
        standing(&bot, "Mod"),
        ("Fire".to_owned(), Value::Null, "10".to_owned())
    );
}

#[test]
fn rule_tag_moderation_2_a_moderator_with_an_rtl_is_moved_to_null_and_pays_nothing() {
    // "2) Should the post holder ever have an RTL that is not null, ey must move to
    // null as soon as possible." "4) The rule tag moderator does not pay points for
    // moving to null." Earl plays in nweek 5, then becomes the Rule Tag Moderator by
    // config (`[ruletag] moderator`).
    let bot = earl_holds_the_ball(&[("Ariel", 325)], 30);
    rewrite_config(&bot, &config("moderator = \"earl@nomic.example\""));
    private(
        &bot,
        "Earl",
        "move from 325 to 407 via integer",
        on(6, 2, 0),
    );
    private(&bot, "Ariel", "element water", on(6, 2, 1));
    run_until(&bot, on(6, 2, 10));
    assert_has(
        &last_answer(&bot, &address("Earl")),
        "Refused: rule \"rule tag moderation\" 1) says the Rule Tag Moderator may not make rule tag actions, except to move to null.",
    );
    // The new moderator gets the copies of private actions.
    assert!(
        copies(&bot, &address("Earl"))
            .iter()
            .any(|m| m.subject.contains("Copy: ariel@nomic.example")),
        "Earl has the copy of Ariel's private action"
    );
    run_until(&bot, after_turn(6));
    assert_eq!(standing(&bot, "Earl").1, Value::Null);
    // No penalty for moving to null; the award is Earl's now.
    assert_eq!(points(&bot, "Earl"), "40");
    assert_eq!(points(&bot, "Mod"), "10");
    let second = second_notification(&bot, 6);
    assert_has(
        &second,
        "Move Actions: Earl, the Rule Tag Moderator, was on rule 325; rule \"rule tag moderation\" 2) says ey must move to null as soon as possible, so the bot moves em there.",
    );
    assert_has(&second, "Move Actions: Earl moved from 325 to null.");
    assert_lacks(&second, "Earl moved to null this turn and loses");
    assert_has(
        &second,
        "Penalties: Earl moved to null this turn, free of the 10-point penalty: rule \"rule tag moderation\" 4) says the rule tag moderator does not pay points for moving to null.",
    );
    assert_has(
        &second,
        "Award: Earl receives the weekly award of 10 points.",
    );
    // The award is pay for the post, not a change in score due to rule tag.
    assert_has(&second, &score_change_line("Earl", 0));
    // The ball Earl held went with em to null, still in eir possession.
    assert_eq!(object(&bot, "rule tag ball"), (Value::Null, json!("Earl")));
    // Water beats Earth no more: Earl is on null, Ariel alone on 325.
    assert_eq!(points(&bot, "Ariel"), "30");
}

#[test]
fn rule_tag_moderation_4_the_moderator_does_not_pay_for_moving_to_null() {
    // The office holder by `[officers.offices]` moves to null emself.
    let bot = placed(&["Earl"], 30, &[("Earl", 325)], FAR_BALL, FAR_GOAL);
    rewrite_config(&bot, &with_office(&config(""), "earl@nomic.example"));
    private(&bot, "Earl", "move from 325 to null", on(6, 2, 0));
    run_until(&bot, on(6, 2, 10));
    assert_has(
        &last_answer(&bot, &address("Earl")),
        "Done. Counted: move from 325 to null.",
    );
    run_until(&bot, after_turn(6));
    assert_eq!(standing(&bot, "Earl").1, Value::Null);
    assert_eq!(points(&bot, "Earl"), "40");
    let second = second_notification(&bot, 6);
    assert_lacks(&second, "moved to null this turn and loses");
    assert_lacks(&second, "the bot moves em there");
    assert_has(
        &second,
        "Penalties: Earl moved to null this turn, free of the 10-point penalty: rule \"rule tag moderation\" 4) says the rule tag moderator does not pay points for moving to null.",
    );
    assert_has(
        &second,
        "Award: Earl receives the weekly award of 10 points.",
    );
}

#[test]
fn rule_tag_moderation_notification_1_shows_the_valid_actions_and_every_players_rtl_and_element() {
    // "1) To post a notification to the public forum no earlier than nday 9 and no
    // later than nday 2, showing: (i) valid rule tag actions made by each player.
    // (ii) Each players' current RTL and element."
    let bot = board(&["Earl", "Ariel", "Phoebe"], 20, 325, FAR_GOAL);
    private(
        &bot,
        "Earl",
        "element fire\nmove from null to 325\ngrab ball 5",
        on(5, 2, 0),
    );
    on_list(
        &bot,
        "Ariel",
        "move from null to 407\ngrab ball 50",
        on(5, 2, 1),
    );
    run_until(&bot, on(5, 9, 0));
    assert!(
        announcements(&bot, "Rule tag nweek 5").is_empty(),
        "nothing before the end of the nweek"
    );
    run_until(&bot, after_turn(5));
    let first = first_notification(&bot, 5);
    // Posted when the bot ran, a minute after the turn; on time, so no more is said.
    assert_has(&first, "posted at 2026-03-06 00:01 UTC.");
    assert_has(
        &first,
        "    Earl:\n        move from null to 325 (made privately)\n        grab rule tag ball for 5 points (made privately)\n",
    );
    // An element change is no rule tag action: it is listed apart.
    assert_has(
        &first,
        "Element changes (rule \"Elements\"; game actions of their own, not rule tag\nactions), in effect as the turn begins:\n\n    Earl: element change to Fire (made privately)\n",
    );
    assert_has(&first, "    Ariel:\n        move from null to 407\n");
    // Refused actions are not listed; Phoebe made none.
    assert_lacks(&first, "50 points");
    assert_lacks(&first, "Phoebe:");
    for (name, element) in [
        ("Mod", "Earth"),
        ("Earl", "Fire"),
        ("Ariel", "Earth"),
        ("Phoebe", "Earth"),
    ] {
        assert_has(&first, &standing_line(name, "null", element));
    }
    // Notification 1 goes out before notification 2.
    let subjects: Vec<String> = bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to(LIST))
        .map(|m| m.subject)
        .collect();
    let one = subjects
        .iter()
        .position(|s| s.contains("the actions, and every"))
        .expect("first");
    let two = subjects
        .iter()
        .position(|s| s.contains("scores, the RTOs"))
        .expect("second");
    assert!(one < two, "{subjects:?}");
    let report = &ruletag_state(&bot, false)["last_report"];
    assert_eq!(report["nweek"], 5);
    assert_eq!(report["late"], false);
}

#[test]
fn rule_tag_moderation_notification_2_shows_score_changes_the_rtos_and_every_other_change() {
    // "2) To post a notification to the public forum no later than nday 2 showing: (i)
    // The changes in score of each player due to rule tag. (ii) The location of each
    // RTO and who, if anyone, is in possession of it. (iii) Any other rule tag specific
    // changes of state."
    let bot = board(&["Earl", "Ariel", "Phoebe"], 20, 325, 407);
    private(
        &bot,
        "Earl",
        "move from null to 325\ngrab ball 5",
        on(5, 2, 0),
    );
    private(
        &bot,
        "Ariel",
        "element water\nmove from null to 325",
        on(5, 2, 1),
    );
    private(
        &bot,
        "Phoebe",
        "move from null to 325\ngrab ball 4",
        on(5, 2, 2),
    );
    run_until(&bot, after_turn(5));
    let second = second_notification(&bot, 5);
    assert_has(&second, "posted at 2026-03-06 00:01 UTC.");
    // Earl wins the ball for 5 and, Earth, beats Ariel's Water; so does Phoebe.
    assert_eq!(points(&bot, "Earl"), "30");
    assert_eq!(points(&bot, "Ariel"), "-10");
    assert_eq!(points(&bot, "Phoebe"), "35");
    assert_eq!(points(&bot, "Mod"), "10");
    for (name, change) in [("Mod", 0), ("Earl", 10), ("Ariel", -30), ("Phoebe", 15)] {
        assert_has(&second, &score_change_line(name, change));
    }
    assert_has(&second, &object_line("rule tag ball", 325, Some("Earl")));
    assert_has(&second, &object_line("rule tag goal", 407, None));
    let steps = [
        "Move Actions: Earl moved from null to 325.",
        "Move Actions: Ariel moved from null to 325.",
        "Grab Actions: Earl gains possession of the rule tag ball, clause (iii), and loses the 5 points declared.",
        "Elemental Tag Resolve: on rule 325, Earth beats Water: Ariel gives Earl 15 points.",
        "Elemental Tag Resolve: on rule 325, Earth beats Water: Ariel gives Phoebe 15 points.",
    ];
    let mut last = 0;
    for step in steps {
        let at = second
            .find(step)
            .unwrap_or_else(|| panic!("{step:?} in:\n{second}"));
        assert!(at >= last, "{step:?} out of order in:\n{second}");
        last = at;
    }
    assert_has(
        &second,
        "Award: Mod receives the weekly award of 10 points.",
    );
    assert_has(&second, "Scores:");
    assert_has(&second, &format!("    {:<20} {}", "Phoebe", 35));
    assert_has(
        &second,
        "Actions for the next nweek are taken until 2026-03-14 00:00 UTC; its turn is\nprocessed at 2026-03-16 00:00 UTC.",
    );
    let report = &ruletag_state(&bot, false)["last_report"];
    assert_eq!(
        report["objects"][0],
        json!({"name": "rule tag ball", "rtl": "325", "holder": "Earl"})
    );
}

#[test]
fn rule_tag_moderation_award_10_points_each_nweek() {
    // "Award: 10 points per week."
    let bot = started(&["Earl"]);
    for nweek in [5, 6, 7] {
        run_until(&bot, after_turn(nweek));
    }
    assert_eq!(points(&bot, "Mod"), "30");
    for nweek in [5, 6, 7] {
        let second = second_notification(&bot, nweek);
        assert_has(
            &second,
            "Award: Mod receives the weekly award of 10 points.",
        );
        assert_lacks(&second, "censure");
    }
}

#[test]
fn rule_tag_moderation_censure_when_the_notifications_are_late() {
    // "Censure: If in a given week the rule tag moderator fails to post the required
    // notifications by nday 2, ey shall lose 20 points." The bot is down from the
    // start of the game until after the end of nday 2 of nweek 6.
    let bot = board(&["Earl"], 20, FAR_BALL, FAR_GOAL);
    private(&bot, "Earl", "move from null to 325", on(5, 2, 0));
    run_until(&bot, on(6, 3, 1));
    assert_eq!(points(&bot, "Mod"), "-10");
    assert_eq!(standing(&bot, "Earl").1, json!(325));
    let second = second_notification(&bot, 5);
    assert_has(
        &second,
        "    Award: Mod receives the weekly award of 10 points.\n    Censure: the notifications are late (the limit was 2026-03-08 00:00 UTC), so Mod loses 20 points.\n",
    );
    assert_has(&second, &score_change_line("Mod", 0));
    assert_eq!(ruletag_state(&bot, false)["last_report"]["late"], true);
    // Both notifications went out, late.
    assert_has(
        &first_notification(&bot, 5),
        "move from null to 325 (made privately)",
    );
}

#[test]
fn rule_tag_moderation_late_notifications_say_when_they_were_posted() {
    // After a downtime the notifications go out late; they must not claim to have
    // been posted at the end of the nweek (the censure turns on that time).
    let bot = board(&["Earl"], 20, FAR_BALL, FAR_GOAL);
    run_until(&bot, on(6, 3, 1));
    for notification in [first_notification(&bot, 5), second_notification(&bot, 5)] {
        assert_lacks(&notification, "posted at 2026-03-06 00:00 UTC");
        assert_has(&notification, "2026-03-08 00:01 UTC");
    }
}

#[test]
fn rule_tag_moderation_notifications_at_the_end_of_nday_2_are_not_late() {
    // "no later than nday 2": mailed at the very end of nday 2 is in time.
    let bot = board(&["Earl"], 20, FAR_BALL, FAR_GOAL);
    run_until(&bot, on(6, 3, 0));
    assert_eq!(points(&bot, "Mod"), "10");
    assert_lacks(&second_notification(&bot, 5), "censure");
    assert_eq!(ruletag_state(&bot, false)["last_report"]["late"], false);
}

#[test]
fn rule_tag_moderation_void_an_action_with_a_reason() {
    // "2) The rule tag moderator is the arbiter of what constitutes a valid rule tag
    // action and what the result of a rule tag action is."
    let bot = started(&["Earl", "Ariel"]);
    private(&bot, "Earl", "move from null to 325", on(5, 2, 0));
    send(
        &bot,
        MODERATOR,
        BOT,
        "[rule tag]",
        "void Earl move because Earl asked to take it back",
        on(5, 3, 0),
    );
    send(
        &bot,
        MODERATOR,
        BOT,
        "[rule tag]",
        "void Ariel grab because nothing",
        on(5, 3, 1),
    );
    run_until(&bot, on(5, 3, 10));
    assert_answered(
        &bot,
        MODERATOR,
        "Done. Earl's move action of this nweek is void. The list has been told, with your reason.",
    );
    assert_answered(
        &bot,
        MODERATOR,
        "Refused: Ariel has no counted grab action this nweek.",
    );
    let announced = announcement(&bot, "Rule tag override: Earl's move action void");
    assert_has(
        &announced,
        "Earl's move action of nweek 5 is void; it will not count.",
    );
    assert_has(&announced, "Reason: Earl asked to take it back");
    assert_has(&announced, "rtm@nomic.example, as arbiter of rule tag");
    // The private action is not disclosed by the void.
    assert_lacks(&announced, "325");
    assert!(counted(&bot, true).is_empty());
    run_until(&bot, after_turn(5));
    assert_eq!(standing(&bot, "Earl").1, Value::Null);
    assert_lacks(&first_notification(&bot, 5), "move from null to 325");
}

#[test]
fn rule_tag_moderation_substitute_an_action_for_a_player() {
    let bot = started(&["Earl"]);
    send(
        &bot,
        MODERATOR,
        BOT,
        "[rule tag]",
        "as Earl because eir mail bounced: move from null to 325",
        on(5, 2, 0),
    );
    run_until(&bot, on(5, 2, 10));
    assert_has(
        &last_answer(&bot, MODERATOR),
        "Done. Counted: move from null to 325.",
    );
    let announced = announcement(&bot, "Override: rtm@nomic.example acted for Earl");
    // Sent privately, the substituted action stays as secret as Earl's own would.
    assert_lacks(&announced, "325");
    assert_has(&announced, "a private rule tag action");
    assert_has(&announced, "Reason given: eir mail bounced");
    assert_eq!(
        counted(&bot, true),
        vec![("Earl".to_owned(), "move null 325".to_owned(), false)]
    );
    run_until(&bot, after_turn(5));
    assert_eq!(standing(&bot, "Earl").1, json!(325));
}

#[test]
fn rule_tag_moderation_rule_on_a_disputed_game_term() {
    // "3) The rule tag moderator is the arbiter of any other game event or object
    // solely regarding the sub-game of rule tag." The glossary has no "score"; rule
    // 430 explains scores and 325 uses the word.
    let bot = placed(&["Earl"], 0, &[("Earl", 325)], FAR_BALL, FAR_GOAL);
    private(
        &bot,
        "Earl",
        "move from 325 to 430 via \"score\"",
        on(6, 2, 0),
    );
    run_until(&bot, on(6, 2, 1));
    assert_has(
        &last_answer(&bot, &address("Earl")),
        "Refused: \"score\" is not a game term of the glossary, so it cannot link two rules (clauses (ii) and (iii)).",
    );
    send(
        &bot,
        MODERATOR,
        BOT,
        "[rule tag]",
        "term \"score\" defined in 430 because rule 430 explains how scores are kept",
        on(6, 3, 0),
    );
    private(
        &bot,
        "Earl",
        "move from 325 to 430 via \"score\"",
        on(6, 3, 1),
    );
    run_until(&bot, on(6, 3, 10));
    assert_has(
        &last_answer(&bot, MODERATOR),
        "Ruled: \"score\" is a game term defined in rule 430. The glossary is corrected and the list has been told, with your reason.",
    );
    let announced = announcement(&bot, "Rule tag override: ruling on the game term \"score\"");
    assert_has(&announced, "\"score\" is a game term defined in rule 430.");
    assert_has(&announced, "Reason: rule 430 explains how scores are kept");
    assert_has(
        &last_answer(&bot, &address("Earl")),
        "Done. Counted: move from 325 to 430 via \"score\".",
    );
    run_until(&bot, after_turn(6));
    assert_eq!(standing(&bot, "Earl").1, json!(430));
}

#[test]
fn rule_tag_moderation_relocate_an_rto_with_a_reason() {
    let bot = earl_holds_the_ball(&[], 0);
    send(
        &bot,
        MODERATOR,
        BOT,
        "[rule tag]",
        "relocate the ball to 407 because it was stuck",
        on(6, 2, 0),
    );
    send(
        &bot,
        MODERATOR,
        BOT,
        "[rule tag]",
        "relocate ball to 9999 because why not",
        on(6, 2, 1),
    );
    run_until(&bot, on(6, 2, 10));
    assert_answered(
        &bot,
        MODERATOR,
        "Done. The rule tag ball is now on rule 407, possessed by nobody. The list has been told, with your reason.",
    );
    assert_answered(
        &bot,
        MODERATOR,
        "Refused: there is no rule 9999 in the registry.",
    );
    let announced: Vec<SentMail> = announcements(
        &bot,
        "Rule tag override: rule tag ball relocated to rule 407",
    )
    .into_iter()
    .filter(|m| m.body.contains("it was stuck"))
    .collect();
    assert_eq!(announced.len(), 1);
    assert_has(
        &announced[0].body,
        "The rule tag ball is moved to rule 407, possessed by nobody.",
    );
    assert_has(&announced[0].body, "Reason: it was stuck");
    assert_eq!(object(&bot, "rule tag ball"), (json!(407), Value::Null));
}

#[test]
fn rule_tag_moderation_adjust_points_under_rule_tag() {
    // "1) The rule tag moderator is the arbiter as to who loses points and gains them
    // as a result of the game of rule tag."
    let bot = board(&["Earl"], 20, FAR_BALL, FAR_GOAL);
    send(
        &bot,
        MODERATOR,
        BOT,
        "[rule tag]",
        "adjust Earl -5 points because eir grab was misread",
        on(5, 2, 0),
    );
    run_until(&bot, on(5, 2, 10));
    assert_has(
        &last_answer(&bot, MODERATOR),
        "Done. Earl's points adjusted by -5.",
    );
    let announced = announcement(&bot, "Override: Earl's points adjusted by -5");
    assert_has(&announced, "Reason given: eir grab was misread");
    assert_eq!(points(&bot, "Earl"), "15");
}

#[test]
fn rule_tag_moderation_the_overrides_are_refused_to_other_players() {
    let bot = board(&["Earl", "Ariel"], 20, FAR_BALL, FAR_GOAL);
    private(&bot, "Ariel", "move from null to 325", on(5, 2, 0));
    private(
        &bot,
        "Earl",
        "start\nvoid Ariel move because I say so\nterm \"score\" defined in 430 because I say so\nrelocate ball to 325 because I say so\nas Ariel because I say so: move from null to 407\nadjust Ariel -5 points because I say so",
        on(5, 2, 1),
    );
    run_until(&bot, on(5, 2, 10));
    let earl = last_answer(&bot, &address("Earl"));
    let office_only = "Refused: only the Rule Tag Moderator (or a moderator) may do that.";
    assert_eq!(earl.matches(office_only).count(), 4, "{earl}");
    assert_eq!(
        earl.matches("Refused: only a moderator may do that.")
            .count(),
        2,
        "{earl}"
    );
    assert_has(&earl, "In all: 0 done, 6 refused");
    assert_eq!(
        counted(&bot, true),
        vec![("Ariel".to_owned(), "move null 325".to_owned(), false)]
    );
    assert_eq!(
        object(&bot, "rule tag ball"),
        (json!(FAR_BALL), Value::Null)
    );
    assert_eq!(points(&bot, "Ariel"), "20");
    assert!(
        announcements(&bot, "Override: ")
            .iter()
            .all(|m| !m.body.contains("I say so"))
    );
    assert!(
        announcements(&bot, "Rule tag override")
            .iter()
            .all(|m| !m.body.contains("I say so"))
    );
}

#[test]
fn rule_tag_moderation_the_office_holder_voids_relocates_and_rules_on_terms() {
    // The Rule Tag Moderator need not be a bot moderator: the holder of the office
    // (`[officers.offices]`) has the arbiter's powers.
    let bot = game_with(
        &["Judge", "Earl"],
        &with_office(&config(""), "judge@nomic.example"),
    );
    start(&bot);
    set_up(&bot, &["Earl"], 20, FAR_BALL, FAR_GOAL);
    private(&bot, "Earl", "move from null to 325", on(5, 2, 0));
    private(
        &bot,
        "Judge",
        "void Earl move because a test\nrelocate goal to 407 because a test\nterm \"score\" defined in 430 because a test",
        on(5, 2, 1),
    );
    run_until(&bot, on(5, 2, 10));
    // The private action's copy goes to the office holder.
    assert!(
        copies(&bot, &address("Judge"))
            .iter()
            .any(|m| m.subject.contains("Copy: earl@nomic.example")),
        "the copy goes to the Rule Tag Moderator"
    );
    let judge = last_answer(&bot, &address("Judge"));
    assert_eq!(judge.matches("\nDone. ").count(), 3, "{judge}");
    assert_lacks(&judge, "Refused");
    assert!(counted(&bot, true).is_empty());
    assert_eq!(object(&bot, "rule tag goal"), (json!(407), Value::Null));
    run_until(&bot, after_turn(5));
    // The award goes to the office holder, not to the bot moderator.
    assert_eq!(points(&bot, "Judge"), "10");
    assert_eq!(points(&bot, "Mod"), "0");
}

#[test]
fn rule_tag_moderation_the_office_holder_substitutes_actions_and_adjusts_points() {
    // The help for [rule tag] gives the Rule Tag Moderator "as NAME because REASON:
    // ..." and "adjust NAME N points because REASON"; rule "rule tag moderation"
    // makes em the arbiter of valid actions (2) and of points (1).
    let bot = game_with(
        &["Judge", "Earl"],
        &with_office(&config(""), "judge@nomic.example"),
    );
    start(&bot);
    set_up(&bot, &["Earl"], 20, FAR_BALL, FAR_GOAL);
    private(
        &bot,
        "Judge",
        "as Earl because eir mail bounced: move from null to 325\nadjust Earl -5 points because a misread grab",
        on(5, 2, 1),
    );
    run_until(&bot, on(5, 2, 10));
    let judge = last_answer(&bot, &address("Judge"));
    assert_eq!(judge.matches("\nDone. ").count(), 2, "{judge}");
    assert_lacks(&judge, "Refused");
    assert_eq!(points(&bot, "Earl"), "15");
    assert_eq!(
        counted(&bot, true),
        vec![("Earl".to_owned(), "move null 325".to_owned(), false)]
    );
}

// ---------------------------------------------------------------------------
// Rule "rule tag basketball"
// ---------------------------------------------------------------------------

#[test]
fn rule_tag_basketball_the_ball_and_goal_start_on_two_different_rules_drawn_at_random() {
    // "The rule tag moderator must assign random (but non-null) starting RTL's to all
    // RTO's." The draws are the Officer in charge of Random Things'.
    let bot = started(&["Earl"]);
    run_until(&bot, on(5, 1, 61));
    let (ball, _) = object(&bot, "rule tag ball");
    let (goal, _) = object(&bot, "rule tag goal");
    let ball = u32::try_from(ball.as_u64().expect("non-null")).expect("u32");
    let goal = u32::try_from(goal.as_u64().expect("non-null")).expect("u32");
    assert_ne!(ball, goal);
    let rules = rule_numbers(&bot);
    assert!(rules.contains(&ball) && rules.contains(&goal));
    let begins = announcement(&bot, "Rule tag begins");
    assert_has(&begins, &format!("rule tag ball    on rule {ball}"));
    assert_has(&begins, &format!("rule tag goal    on rule {goal}"));
    assert_has(
        &begins,
        "The Officer in charge of Random Things placed the rule tag objects at random",
    );
    assert_has(
        &last_answer(&bot, MODERATOR),
        &format!(
            "Rule tag has begun: the rule tag ball is on rule {ball} and the rule tag goal on rule {goal}."
        ),
    );

    // The moderator ends the random period; the seed is published and the draws check.
    send(&bot, MODERATOR, BOT, "[nomic] random end", "", on(5, 1, 90));
    run_until(&bot, on(5, 1, 91));
    assert_has(
        &last_reply(&bot, MODERATOR),
        "The random period \"rule tag\" is over; its seed and every draw are published on the list.",
    );
    let random: Value =
        serde_json::from_str(&bot.cli_ok(&["state", "random", "--json"])).expect("json");
    let period = &random["past"][0];
    assert_eq!(period["label"], "rule tag");
    let draws = period["draws"].as_array().expect("draws");
    assert_eq!(draws.len(), 2);
    assert_eq!(draws[0]["purpose"], "starting RTL of the rule tag ball");
    assert_eq!(draws[0]["kind"], json!({"type": "below", "n": rules.len()}));
    let index =
        |draw: &Value| usize::try_from(draw["result"][0].as_u64().expect("result")).expect("usize");
    assert_eq!(rules[index(&draws[0])], ball);
    assert_eq!(draws[1]["purpose"], "starting RTL of the rule tag goal");
    let others: Vec<u32> = rules.iter().copied().filter(|n| *n != ball).collect();
    assert_eq!(others[index(&draws[1])], goal);
    let verified = bot.cli_ok(&["verify-random"]);
    assert_has(
        &verified,
        "period \"rule tag\": seed matches its commitment; 2 draw(s) re-run, all as recorded",
    );
}

#[test]
fn rule_tag_basketball_the_holder_of_the_ball_on_the_goals_rtl_gains_25() {
    // "1) The player in possession of the rule tag ball gains 25 points. 2) Both the
    // rule tag ball and the rule tag goal become no longer in possession of any
    // player; they are relocated to two different (non-null) RTL's, chosen at random"
    let bot = earl_holds_the_ball(&[], 20);
    private(
        &bot,
        "Earl",
        "move from 325 to 407 via integer",
        on(6, 2, 0),
    );
    run_until(&bot, after_turn(6));
    assert_eq!(points(&bot, "Earl"), "45");
    let (ball, ball_holder) = object(&bot, "rule tag ball");
    let (goal, goal_holder) = object(&bot, "rule tag goal");
    assert_eq!((ball_holder, goal_holder), (Value::Null, Value::Null));
    let ball = u32::try_from(ball.as_u64().expect("non-null")).expect("u32");
    let goal = u32::try_from(goal.as_u64().expect("non-null")).expect("u32");
    assert_ne!(ball, goal);
    let rules = rule_numbers(&bot);
    assert!(rules.contains(&ball) && rules.contains(&goal));
    let second = second_notification(&bot, 6);
    assert_has(
        &second,
        "Basketball Resolve: Earl holds the ball on the goal's RTL (407) and gains 25 points.",
    );
    assert_has(
        &second,
        &format!("Basketball Resolve: the rule tag ball is relocated at random to rule {ball}."),
    );
    assert_has(
        &second,
        &format!("Basketball Resolve: the rule tag goal is relocated at random to rule {goal}."),
    );
    assert_has(&second, &score_change_line("Earl", 25));
    assert_has(&second, &object_line("rule tag ball", ball, None));

    // Each turn that draws ends the game's random period, publishing its seed: the
    // start's draws are in the first period (ended by the first turn), the
    // basket's in the second, committed a second before the turn.
    let random: Value =
        serde_json::from_str(&bot.cli_ok(&["state", "random", "--json"])).expect("json");
    let purposes = |period: usize| -> Vec<Value> {
        random["past"][period]["draws"]
            .as_array()
            .expect("draws")
            .iter()
            .map(|d| d["purpose"].clone())
            .collect()
    };
    assert_eq!(
        purposes(0),
        vec![
            json!("starting RTL of the rule tag ball"),
            json!("starting RTL of the rule tag goal"),
        ]
    );
    assert_eq!(
        purposes(1),
        vec![
            json!("rule tag ball relocated after a basket"),
            json!("rule tag goal relocated after a basket"),
        ]
    );
    assert!(
        random["current"].is_null(),
        "no next period is committed: the next turn commits one if it draws"
    );
    // `verify-random` re-runs these draws from the event log: see
    // rule_tag_state_a_processed_turn_is_in_the_event_log_and_replays.
}

#[test]
fn rule_tag_basketball_resolve_comes_before_grab_actions() {
    // Nothing scores without the ball in possession; a ball grabbed this turn scores
    // at the next turn, because Basketball Resolve comes before Grab Actions.
    let bot = board(&["Earl"], 20, 325, 325);
    private(&bot, "Earl", "move from null to 325", on(5, 2, 0));
    run_until(&bot, after_turn(5));
    assert_lacks(&second_notification(&bot, 5), "Basketball Resolve");
    private(&bot, "Earl", "grab ball 0", on(6, 2, 0));
    run_until(&bot, after_turn(6));
    assert_eq!(object(&bot, "rule tag ball"), (json!(325), json!("Earl")));
    assert_lacks(&second_notification(&bot, 6), "Basketball Resolve");
    assert_eq!(points(&bot, "Earl"), "20");
    run_until(&bot, after_turn(7));
    assert_eq!(points(&bot, "Earl"), "45");
    assert_has(
        &second_notification(&bot, 7),
        "Basketball Resolve: Earl holds the ball on the goal's RTL (325) and gains 25 points.",
    );
}

// ---------------------------------------------------------------------------
// The state, and the secrecy of private actions
// ---------------------------------------------------------------------------

#[test]
fn rule_tag_state_shows_every_players_element_rtl_points_and_every_rtos_rtl_and_holder() {
    let bot = earl_holds_the_ball(&[("Ariel", 407)], 20);
    private(
        &bot,
        "Earl",
        "move from 325 to 407 via integer",
        on(6, 2, 0),
    );
    on_list(&bot, "Ariel", "element fire", on(6, 2, 1));
    run_until(&bot, on(6, 2, 10));
    let state = ruletag_state(&bot, true);
    assert_eq!(state["running"], true);
    assert_eq!(state["nweek"], 6);
    assert_eq!(
        state["players"],
        json!([
            {"name": "Mod", "element": "Earth", "rtl": null, "points": "10"},
            {"name": "Earl", "element": "Earth", "rtl": 325, "points": "20"},
            {"name": "Ariel", "element": "Earth", "rtl": 407, "points": "20"},
        ])
    );
    assert_eq!(
        state["objects"],
        json!([
            {"name": "rule tag ball", "rtl": 325, "holder": "Earl"},
            {"name": "rule tag goal", "rtl": 407, "holder": null},
        ])
    );
    assert_eq!(
        state["actions"],
        json!([
            {"player": "Earl", "type": "move", "from": "325", "to": "407", "term": "integer", "public": false, "at": "2026-03-07 00:00 UTC"},
            {"player": "Ariel", "type": "element", "element": "Fire", "public": true, "at": "2026-03-07 00:01 UTC"},
        ])
    );
    let public = ruletag_state(&bot, false);
    assert_eq!(public["players"], state["players"]);
    assert_eq!(public["objects"], state["objects"]);
    assert_eq!(public["actions"], json!([state["actions"][1]]));
}

#[test]
fn rule_tag_private_actions_stay_secret_until_the_end_of_the_nweek() {
    let bot = started(&["Earl", "Ariel", "Phoebe"]);
    run_until(&bot, on(5, 1, 61));
    let (start_ball, _) = object(&bot, "rule tag ball");
    // A destination the start announcement cannot name as its example.
    let (earl_to, ariel_to) = if start_ball == json!(108) {
        (304, 390)
    } else if start_ball == json!(304) {
        (108, 390)
    } else {
        (108, 304)
    };
    set_up(&bot, &["Earl", "Ariel", "Phoebe"], 20, 440, 437);
    private(
        &bot,
        "Earl",
        &format!("element water\nmove from null to {earl_to}\ngrab ball 7"),
        on(5, 2, 0),
    );
    private(
        &bot,
        "Ariel",
        &format!("move from null to {ariel_to}"),
        on(5, 2, 1),
    );
    on_list(&bot, "Phoebe", "move from null to 440", on(5, 2, 2));
    send(
        &bot,
        &address("Phoebe"),
        LIST,
        "[rule tag] status",
        "",
        on(5, 3, 0),
    );
    run_until(&bot, on(5, 10, 23 * 60 + 59));

    let secrets = [
        "Water".to_owned(),
        format!("move from null to {earl_to}"),
        format!("move from null to {ariel_to}"),
        "grab rule tag ball".to_owned(),
        "for 7 points".to_owned(),
        "(made privately)".to_owned(),
    ];
    let list_mail: Vec<SentMail> = bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to(LIST))
        .collect();
    assert!(!list_mail.is_empty());
    for mail in &list_mail {
        for secret in &secrets {
            assert!(
                !mail.body.contains(secret.as_str()),
                "{secret:?} in a list mail:\n{}\n{}",
                mail.subject,
                mail.body
            );
        }
    }
    // Nor in what another player sees, nor in the public state.
    let status = last_answer(&bot, &address("Phoebe"));
    assert_has(
        &status,
        "Public actions counted so far this nweek:\n    Phoebe: move from null to 440",
    );
    for secret in &secrets {
        assert_lacks(&status, secret);
    }
    assert_eq!(
        counted(&bot, false),
        vec![("Phoebe".to_owned(), "move null 440".to_owned(), true)]
    );
    let public_state = bot.cli_ok(&["state", "--json"]);
    for secret in ["\"Water\"", "\"grab\""] {
        assert_lacks(&public_state, secret);
    }
    assert_eq!(counted(&bot, true).len(), 5);

    // After the end of the nweek, notification 1 has them all.
    run_until(&bot, after_turn(5));
    let first = first_notification(&bot, 5);
    assert_has(&first, "element change to Water (made privately)");
    assert_has(
        &first,
        &format!("move from null to {earl_to} (made privately)"),
    );
    assert_has(&first, "grab rule tag ball for 7 points (made privately)");
    assert_has(
        &first,
        &format!("move from null to {ariel_to} (made privately)"),
    );
    assert_has(&first, "move from null to 440\n");
}

#[test]
fn rule_tag_state_a_processed_turn_is_in_the_event_log_and_replays() {
    // The record of the game is the event log: turns that left players on rules
    // must read back (`log --json`), rebuild the live state (`replay`), and let the
    // random officer's draws (the start and a basket) be re-run (`verify-random`).
    let bot = earl_holds_the_ball(&[("Ariel", 407)], 20);
    private(
        &bot,
        "Earl",
        "move from 325 to 407 via integer",
        on(6, 2, 0),
    );
    run_until(&bot, on(7, 1, 61));
    assert_eq!(points(&bot, "Earl"), "45", "Earl scored");
    let log = bot.log_json();
    assert_eq!(
        log.iter()
            .filter(|e| e.to_string().contains("nweek_ended"))
            .count(),
        2,
        "both turns are in the log"
    );
    assert_has(&bot.cli_ok(&["replay"]), "equals the live state");
    // No `random end` needed: every turn publishes the seed of its draws.
    let verified = bot.cli_ok(&["verify-random"]);
    assert_has(
        &verified,
        "period \"rule tag\": seed matches its commitment; 2 draw(s) re-run, all as recorded\nperiod \"rule tag\": seed matches its commitment; 2 draw(s) re-run, all as recorded",
    );
}

#[test]
fn rule_tag_with_a_processing_delay_the_next_nweeks_actions_wait_for_their_turn() {
    // `process_delay_hours` gives the rules officer time to enact the nweek's
    // passed proposals before the turn. Meanwhile the next nweek has begun, but
    // its actions start from where the turn leaves everyone: they are taken after.
    let bot = game_with(&["Earl"], &config("process_delay_hours = 12"));
    start(&bot);
    private(&bot, "Earl", "move from null to 325", on(5, 2, 0));
    private(&bot, "Earl", "element fire", on(6, 1, 60));
    run_until(&bot, on(6, 1, 2 * 60));
    assert_has(
        &last_answer(&bot, &address("Earl")),
        "Refused: nweek 5 is over and its turn is processed at 2026-03-06 12:00 UTC",
    );
    private(
        &bot,
        "Earl",
        "move from 325 to 407 via integer",
        on(6, 1, 12 * 60 + 5),
    );
    run_until(&bot, on(6, 1, 12 * 60 + 10));
    assert_has(
        &first_notification(&bot, 5),
        "move from null to 325 (made privately)",
    );
    assert_has(
        &last_answer(&bot, &address("Earl")),
        "Done. Counted: move from 325 to 407 via \"integer\". It takes effect at the end of nweek 6",
    );
    run_until(&bot, on(7, 1, 12 * 60 + 1));
    assert_eq!(standing(&bot, "Earl").1, Value::from(407));
}

#[test]
fn rule_tag_state_in_words_for_the_moderator() {
    let bot = started(&["Earl", "Ariel"]);
    private(&bot, "Earl", "move from null to 325", on(5, 2, 0));
    on_list(&bot, "Ariel", "element air", on(5, 2, 5));
    run_until(&bot, on(5, 2, 10));
    let public = bot.cli_ok(&["state", "ruletag"]);
    assert_has(&public, "Rule tag, nweek 5:");
    assert_has(&public, "Counted actions this nweek: 1");
    assert_has(&public, "Ariel: element Air\n");
    // Only the move is secret: the ball or the goal may well have been drawn onto 325.
    assert_lacks(&public, "Earl: move");
    assert_lacks(&public, "to 325 (private)");
    let private = bot.cli_ok(&["state", "ruletag", "--private"]);
    assert_has(&private, "Earl: move from null to 325 (private)");
}

#[test]
fn rule_tag_moderation_the_post_is_named_by_officers() {
    // "There will be a post titled "Rule Tag Moderator"": `officers` names its holder
    // even when it comes from the moderators rather than [officers.offices].
    let bot = game(&["Earl"]);
    send(
        &bot,
        &address("Earl"),
        BOT,
        "[nomic] officers",
        "",
        on(5, 2, 0),
    );
    run_until(&bot, on(5, 2, 1));
    let answer = last_reply(&bot, &address("Earl"));
    assert_has(&answer, "Rule Tag Moderator");
    assert_has(&answer, MODERATOR);
}
