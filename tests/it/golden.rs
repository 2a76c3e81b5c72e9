//! Events are a contract (`docs/ARCHITECTURE.md`): a database written by a release
//! must open and replay to the same state in every later release. Each
//! `tests/fixtures/golden-vN.sqlite` is a short game of every kind, played through
//! the real pipeline by the release that introduced event format N and committed as
//! it wrote it, with the config it was played with beside it (`golden-vN.toml`).
//! The tests open a copy with today's code, check that the state loaded equals the
//! fold of the event log, and read back what a player or a tool would see
//! (`nomicbot state --json`), by the keys a tool relies on, not by internal types.
//!
//! Writing a fixture: `NOMICBOT_WRITE_GOLDEN=1 cargo test --locked golden` plays
//! `play_golden_game` and writes `golden-v{EVENT_FORMAT}.sqlite` (checkpointed, one
//! self-contained file) and its `.toml`. It refuses to replace an existing fixture
//! unless the variable is `overwrite`: a fixture is worth something only because an
//! older release wrote it, so never regenerate one a release has shipped. A new event
//! format gets a new fixture (and its facts below); the old ones stay and must pass.
//! Without the variable the same game is played in a temporary folder, so the
//! generator keeps working.

use std::path::{Path, PathBuf};

use jiff::{SignedDuration, Timestamp};
use serde_json::Value;

use crate::support::{LocalBot, alias_code, at, balance, message, repo_root};

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";
const MODERATOR: &str = "mod@nomic.example";
const SCHOLAR: &str = "scholar@nomic.example";

/// The bot's secret in the fixtures (it is otherwise random): the game's draws are
/// then the same each time the generator runs.
const GOLDEN_SECRET: &str = "90141e47b0b2f6c1d4a3e5f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b";

/// The ruleset imported before the game: the glossary links rules 1 to 4 through
/// "points", "turn" and "report".
const GOLDEN_RULES: &str = r#"Create a new rule "Points":
"Points" are a whole number that each player holds, starting at zero.

Create a new rule "Turns":
A "turn" is the time in which one player may act. In eir turn a player may gain
points.

Create a new rule "Winning":
The player with the most points at the end of a turn wins the game.

Create a new rule "Reports":
A "report" is a message from an officer to every player. Every report shows each
player's points and whose turn it is.
"#;

fn fixtures() -> PathBuf {
    repo_root().join("tests/fixtures")
}

fn golden_config() -> String {
    crate::support::trusting()
        .replace(
            "moderators = []",
            &format!("moderators = [\"{MODERATOR}\"]"),
        )
        .replacen("rules = []", &format!("rules = [\"{SCHOLAR}\"]"), 1)
}

fn database(bot: &LocalBot) -> PathBuf {
    let config = bot.config();
    config.resolve(&config.bot.database)
}

/// Plays the script, counting messages so each has its own Message-ID.
struct Script<'a> {
    bot: &'a LocalBot,
    sent: usize,
}

impl Script<'_> {
    /// Delivers one message; returns its Message-ID (without brackets).
    fn send(&mut self, from: &str, to: &str, subject: &str, body: &str, when: Timestamp) -> String {
        self.sent += 1;
        let id = format!("golden-{}@players.test", self.sent);
        self.bot.deliver(
            &format!("golden{}", self.sent),
            &message(from, to, subject, &id, body),
            when,
        );
        id
    }
}

fn player(name: &str) -> String {
    format!("{}@nomic.example", name.to_lowercase())
}

/// The rule a Rule Tag object is on, from `state ruletag --json`.
fn object_rule(bot: &LocalBot, object: &str) -> u64 {
    let view: Value = serde_json::from_str(&bot.cli_ok(&["state", "ruletag", "--json"]))
        .expect("state ruletag --json");
    view["objects"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|o| o["name"] == object)
        .and_then(|o| o["rtl"].as_u64())
        .unwrap_or_else(|| panic!("{object} is on a rule: {view}"))
}

/// A short game of every kind, through the real pipeline (Maildir in, `nomicbot
/// once`, the outbox): the registry, accounts, the ruleset, two ballots, the random
/// officer, an nweek of Rule Tag, a game of Ghost to a winner, and a void. On the
/// shipped calendar: nweek 0 runs from 2026-01-05 to 2026-01-15.
pub fn play_golden_game(bot: &LocalBot) {
    // The bot's secret is fixed before its first start.
    if let Some(folder) = database(bot).parent() {
        std::fs::create_dir_all(folder).expect("database folder");
    }
    drop(nomicbot::store::Store::open(&database(bot)).expect("create the database"));
    let conn = rusqlite::Connection::open(database(bot)).expect("open the database");
    conn.execute(
        "INSERT OR REPLACE INTO meta (key, value) VALUES ('secret', ?1)",
        [GOLDEN_SECRET],
    )
    .expect("set the secret");
    drop(conn);

    let rules = bot.dir.path().join("golden-rules.txt");
    std::fs::write(&rules, GOLDEN_RULES).expect("write the rules");
    bot.cli_ok(&[
        "import-rules",
        rules.to_str().expect("path"),
        "--now",
        "2026-01-04T12:00:00Z",
    ]);

    let mut script = Script { bot, sent: 0 };
    let day = |d: i64, hour: i64, minute: i64| {
        at("2026-01-05T00:00:00Z")
            + SignedDuration::from_hours(24 * (d - 5) + hour)
            + SignedDuration::from_mins(minute)
    };

    // 5 January: the registry, the accounts, the ruleset, Rule Tag starts, ballot 1.
    script.send(MODERATOR, LIST, "[nomic] join Mod", "", day(5, 10, 0));
    for (i, name) in ["Alice", "Bob", "Carol", "Dave", "Eve"].iter().enumerate() {
        let subject = format!("[nomic] join {name}");
        script.send(&player(name), LIST, &subject, "", day(5, 10, 1 + i as i64));
    }
    script.send(
        &player("Bob"),
        LIST,
        "[nomic] rename Robert",
        "",
        day(5, 10, 10),
    );
    script.send(
        &player("Alice"),
        BOT,
        "[nomic] alias alice.home@nomic.example",
        "",
        day(5, 10, 11),
    );
    script.send(
        "alice.home@nomic.example",
        BOT,
        "[nomic] confirm",
        "",
        day(5, 10, 12),
    );
    // Alice confirms too, with the code mailed to her (issue 23). Its Message-ID is
    // outside the script's count, so every later message keeps its id and draws.
    bot.once(day(5, 10, 12) + SignedDuration::from_secs(30));
    let code = bot
        .sent_mail()
        .iter()
        .filter(|m| m.is_to(&player("Alice")))
        .find_map(alias_code)
        .expect("a code mailed to Alice");
    bot.deliver(
        "golden-alias-code",
        &message(
            &player("Alice"),
            BOT,
            &format!("[nomic] confirm {code}"),
            "golden-alias-code@players.test",
            "",
        ),
        day(5, 10, 12) + SignedDuration::from_secs(40),
    );
    script.send(
        &player("Dave"),
        LIST,
        "[nomic] vacation until 2026-01-25",
        "",
        day(5, 10, 13),
    );
    script.send(&player("Eve"), LIST, "[nomic] leave", "", day(5, 10, 14));
    script.send(
        MODERATOR,
        BOT,
        "[nomic]",
        "adjust Alice 10 A$ because starting money for the golden game",
        day(5, 10, 20),
    );
    script.send(
        &player("Alice"),
        LIST,
        "[nomic] give 4 A$ to Robert",
        "",
        day(5, 10, 21),
    );
    script.send(
        SCHOLAR,
        LIST,
        "[ruleset] enact \"Tagging\"",
        "A \"tag\" is a touch between two players in eir turn.\nend",
        day(5, 10, 25),
    );
    script.send(
        SCHOLAR,
        LIST,
        "[ruleset] amend 3",
        "The player with the most points at the end of an nweek wins the game.\nend",
        day(5, 10, 26),
    );
    script.send(SCHOLAR, LIST, "[ruleset] repeal 4", "", day(5, 10, 27));
    // A random period of the moderator's, ended before Rule Tag opens its own.
    script.send(
        MODERATOR,
        LIST,
        "[nomic] random start golden draws",
        "",
        day(5, 10, 30),
    );
    script.send(
        MODERATOR,
        LIST,
        "[nomic]",
        "random draw 6 a die for the record",
        day(5, 10, 31),
    );
    script.send(MODERATOR, LIST, "[nomic] random end", "", day(5, 10, 32));
    script.send(MODERATOR, LIST, "[rule tag] start", "", day(5, 11, 0));
    script.send(
        MODERATOR,
        BOT,
        "[nomic] starting points",
        "adjust Alice 20 points because the golden game starts everyone with 20\n\
         adjust Robert 20 points because the golden game starts everyone with 20\n\
         adjust Carol 20 points because the golden game starts everyone with 20",
        day(5, 11, 30),
    );
    script.send(
        MODERATOR,
        LIST,
        "[vote] open Shall rule 5 stay as enacted?",
        "",
        day(5, 12, 0),
    );
    script.send(&player("Alice"), BOT, "[vote] yes", "", day(5, 13, 0));
    script.send(&player("Bob"), BOT, "[vote] no", "", day(5, 13, 10));
    script.send(&player("Carol"), BOT, "[vote] yes", "", day(5, 13, 20));
    bot.once(day(5, 14, 0));

    // 6 January: Rule Tag actions, Dave back.
    let ball = object_rule(bot, nomicbot::games::ruletag::BALL);
    let goal = object_rule(bot, nomicbot::games::ruletag::GOAL);
    script.send(
        &player("Alice"),
        BOT,
        "[rule tag]",
        &format!("element fire\nmove from null to {ball}\ngrab ball 5"),
        day(6, 10, 0),
    );
    script.send(
        &player("Bob"),
        LIST,
        "[rule tag]",
        &format!("element water\nmove from null to {ball}\ngrab ball 3"),
        day(6, 11, 0),
    );
    script.send(
        &player("Carol"),
        BOT,
        &format!("[rule tag] move from null to {goal}"),
        "element air",
        day(6, 12, 0),
    );
    script.send(&player("Dave"), LIST, "[nomic] back", "", day(6, 13, 0));
    bot.once(day(6, 14, 0));

    // 8 January, 12:00: ballot 1's deadline (commitments, reveal, result).
    bot.once(day(8, 13, 0));

    // 9 January: ballot 2, opened, voted on and closed early by the moderator.
    script.send(
        MODERATOR,
        LIST,
        "[vote] open Shall the golden game end early?",
        "",
        day(9, 10, 0),
    );
    script.send(&player("Alice"), BOT, "[vote] yes", "", day(9, 10, 30));
    script.send(
        MODERATOR,
        LIST,
        "[vote]",
        "close 2 because the golden game needs a ballot closed early",
        day(9, 11, 0),
    );
    bot.once(day(9, 12, 0));

    // 15 January, 00:00: the end of nweek 0, its turn processed.
    bot.once(day(15, 0, 1));

    // 16 January: a game of Ghost to a winner, refereed by Mod.
    script.send(
        MODERATOR,
        LIST,
        "[ghost] start with Alice, Robert, Carol",
        "",
        day(16, 10, 0),
    );
    bot.once(day(16, 11, 0));
    let order: Vec<String> = bot.state_json()["ghosts"]["instances"][0]["seats"]
        .as_array()
        .expect("the game of Ghost started")
        .iter()
        .map(|seat| seat["name"].as_str().expect("name").to_owned())
        .collect();
    assert_eq!(order.len(), 3, "{order:?}");
    let address = |n: usize| match order[n - 1].as_str() {
        "Robert" => player("Bob"),
        name => player(name),
    };
    let plays = [
        (1, "s"),
        (2, "su"),
        (3, "sup"),
        (1, "supe"),
        (2, "super"),
        // SUPER is a word of four or more letters: player 2 is out.
        (3, "protest word"),
        (1, "x"),
        (3, "xq"),
        // XQ is inside no word; player 3's answer is none: player 3 is out.
        (1, "protest not inside"),
        (3, "word xqat"),
    ];
    for (i, (n, play)) in (0..).zip(plays) {
        script.send(&address(n), LIST, "[ghost 1]", play, day(16, 12 + i, 0));
    }
    bot.once(day(17, 0, 0));

    // 17 January: a gift, voided by the moderator.
    let gift = script.send(
        &player("Bob"),
        LIST,
        "[nomic] give 2 A$ to Carol",
        "",
        day(17, 10, 0),
    );
    script.send(
        MODERATOR,
        LIST,
        "[nomic]",
        &format!("void <{gift}> because the golden game voids one message"),
        day(17, 11, 0),
    );
    bot.once(day(17, 12, 0));

    // Everything was applied: nothing kept aside, refused or misunderstood.
    assert_eq!(bot.inbox_with_status("aside").trim(), "", "nothing aside");
    for mail in bot.sent_mail() {
        assert!(
            !mail.body.contains("Not understood") && !mail.body.contains("Refused"),
            "{}\n{}",
            mail.subject,
            mail.body
        );
    }
    let replay = bot.cli_ok(&["replay"]);
    assert!(replay.contains("equals the live state"), "{replay}");
}

/// Makes the database one self-contained file (the WAL folded in) and copies it.
fn checkpoint_and_copy(from: &Path, to: &Path) {
    let conn = rusqlite::Connection::open(from).expect("open");
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .expect("checkpoint");
    conn.execute_batch("VACUUM").expect("vacuum");
    drop(conn);
    std::fs::copy(from, to).expect("copy the fixture");
}

#[test]
fn the_golden_game_plays_and_is_written_as_a_fixture_when_asked() {
    let config = golden_config();
    let bot = LocalBot::with_config(&config);
    play_golden_game(&bot);
    let text = bot.cli_ok(&["state"]);
    assert!(
        text.contains("Alice <alice@nomic.example> (also alice.home@nomic.example)"),
        "{text}"
    );
    let Ok(mode) = std::env::var("NOMICBOT_WRITE_GOLDEN") else {
        return;
    };
    let format = nomicbot::store::events::EVENT_FORMAT;
    let target = fixtures().join(format!("golden-v{format}.sqlite"));
    assert!(
        mode == "overwrite" || !target.exists(),
        "{} exists: a shipped fixture must not be regenerated (NOMICBOT_WRITE_GOLDEN=overwrite if it never shipped)",
        target.display()
    );
    std::fs::create_dir_all(fixtures()).expect("fixtures folder");
    checkpoint_and_copy(&database(&bot), &target);
    std::fs::write(target.with_extension("toml"), config).expect("write the config");
}

/// Every `golden-vN.sqlite` in the fixtures folder, sorted.
fn golden_fixtures() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(fixtures())
        .expect("tests/fixtures")
        .map(|entry| entry.expect("entry").path())
        .filter(|path| {
            path.extension().is_some_and(|e| e == "sqlite")
                && path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("golden-v"))
        })
        .collect();
    found.sort();
    found
}

/// A bot in a temporary folder on a copy of a fixture and the config it was
/// played with.
fn open_fixture(fixture: &Path) -> LocalBot {
    let config = std::fs::read_to_string(fixture.with_extension("toml"))
        .unwrap_or_else(|e| panic!("the config beside {}: {e}", fixture.display()));
    let bot = LocalBot::with_config(&config);
    let target = database(&bot);
    std::fs::create_dir_all(target.parent().expect("database folder")).expect("folder");
    std::fs::copy(fixture, &target).expect("copy the fixture");
    bot
}

fn golden_v1() -> LocalBot {
    open_fixture(&fixtures().join("golden-v1.sqlite"))
}

#[test]
fn every_golden_fixture_opens_and_its_state_equals_the_fold_of_its_event_log() {
    let fixtures = golden_fixtures();
    assert!(
        fixtures.iter().any(|f| f.ends_with("golden-v1.sqlite")),
        "no golden fixture found in {}: {fixtures:?}",
        self::fixtures().display()
    );
    for fixture in &fixtures {
        let bot = open_fixture(fixture);
        let replay = bot.cli(&["replay"]);
        let out = String::from_utf8_lossy(&replay.stdout);
        assert!(
            replay.status.success() && out.contains("equals the live state"),
            "{}: {out}\n{}",
            fixture.display(),
            String::from_utf8_lossy(&replay.stderr)
        );
        // The draws recorded in the log still re-run from their published seeds.
        let verified = bot.cli_ok(&["verify-random"]);
        assert!(verified.contains("all as recorded"), "{verified}");
    }
}

fn rule(state: &Value, number: u64) -> Option<Value> {
    state["ruleset"]["rules"]
        .as_array()
        .expect("ruleset.rules")
        .iter()
        .find(|r| r["number"] == number)
        .cloned()
}

#[test]
fn golden_v1_players_names_aliases_and_departures_are_as_played() {
    let bot = golden_v1();
    // What a person reads (bare `state` goes on to every part and game).
    let text = bot.cli_ok(&["state", "players"]);
    for line in [
        "Players (5):",
        "Mod <mod@nomic.example>",
        "Alice <alice@nomic.example> (also alice.home@nomic.example)",
        "Robert <bob@nomic.example>",
        "Carol <carol@nomic.example>",
        "Dave <dave@nomic.example>",
    ] {
        assert!(text.contains(line), "{line:?} in\n{text}");
    }
    assert!(!text.contains("Eve"), "Eve left:\n{text}");
    // What a tool reads.
    let state = bot.state_json();
    let players = state["players"]["players"].as_array().expect("players");
    let eve = players
        .iter()
        .find(|p| p["name"] == "Eve")
        .expect("Eve stays on record");
    assert_eq!(eve["left_at"], "2026-01-05T10:14:00Z");
    let dave = players.iter().find(|p| p["name"] == "Dave").expect("Dave");
    assert_eq!(dave["vacation_until"], Value::Null, "Dave came back");
    assert_eq!(state["players"]["pending_aliases"], serde_json::json!([]));
}

#[test]
fn golden_v1_balances_show_the_gift_the_adjustment_the_fee_and_the_void() {
    let state = golden_v1().state_json();
    // Alice: 10 A$ from the moderator, 4 given to Robert. Robert's 2 A$ to Carol
    // were voided. Mod: the Ghost referee's fee.
    assert_eq!(balance(&state, "Alice", "A$").as_deref(), Some("6"));
    assert_eq!(balance(&state, "Robert", "A$").as_deref(), Some("4"));
    assert_eq!(balance(&state, "Mod", "A$").as_deref(), Some("8"));
    assert!(
        balance(&state, "Carol", "A$").is_none_or(|amount| amount == "0"),
        "the voided gift left Carol nothing: {}",
        state["accounts"]
    );
    assert_eq!(
        state["voided"],
        serde_json::json!(["golden-44@players.test"])
    );
}

#[test]
fn golden_v1_rules_show_the_enactment_the_amendment_and_the_repeal() {
    let state = golden_v1().state_json();
    let amended = rule(&state, 3).expect("rule 3");
    assert_eq!(
        amended["text"],
        "The player with the most points at the end of an nweek wins the game."
    );
    assert_eq!(amended["version"], 2);
    let enacted = rule(&state, 5).expect("rule 5");
    assert_eq!(enacted["name"], "Tagging");
    assert_eq!(
        enacted["text"],
        "A \"tag\" is a touch between two players in eir turn."
    );
    assert!(rule(&state, 4).is_none(), "rule 4 was repealed");
    assert_eq!(rule(&state, 1).expect("rule 1")["name"], "Points");
}

#[test]
fn golden_v1_ballots_were_resolved_at_the_deadline_and_forced_closed() {
    let bot = golden_v1();
    let state = bot.state_json();
    let ballots = state["votes"]["ballots"].as_array().expect("votes.ballots");
    let first = ballots.iter().find(|b| b["number"] == 1).expect("ballot 1");
    assert_eq!(first["question"], "Shall rule 5 stay as enacted?");
    assert_eq!(first["closed"]["yes"], 2);
    assert_eq!(first["closed"]["no"], 1);
    assert_eq!(first["closed"]["forced_by"], Value::Null);
    let second = ballots.iter().find(|b| b["number"] == 2).expect("ballot 2");
    assert_eq!(second["closed"]["yes"], 1);
    assert_eq!(second["closed"]["forced_by"], MODERATOR);
    assert_eq!(
        second["closed"]["reason"],
        "the golden game needs a ballot closed early"
    );
    // The sealed votes were committed before they were revealed, in the log.
    let log = bot.log_json();
    let position = |kind: &str| {
        log.iter()
            .position(|r| r["event"]["game"] == "sealed" && r["event"]["kind"] == kind)
            .unwrap_or_else(|| panic!("a sealed {kind} event"))
    };
    assert!(position("committed") < position("revealed"));
}

#[test]
fn golden_v1_rule_tag_points_and_objects_after_the_nweek() {
    let bot = golden_v1();
    let view: Value = serde_json::from_str(&bot.cli_ok(&["state", "ruletag", "--json"]))
        .expect("state ruletag --json");
    assert_eq!(view["running"], true);
    assert_eq!(view["nweek"], 1, "nweek 0 was processed");
    let standing = |name: &str| {
        view["players"]
            .as_array()
            .expect("players")
            .iter()
            .find(|p| p["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{name} in {view}"))
    };
    // Robert's Water tagged Alice's Fire on rule 3 (+15 from her); Alice spent 5 on
    // the grab; Mod's award; Carol's 20 and her 4 for winning at Ghost.
    for (name, points, element) in [
        ("Mod", "10", "Earth"),
        ("Alice", "0", "Fire"),
        ("Robert", "35", "Water"),
        ("Carol", "24", "Air"),
    ] {
        let player = standing(name);
        assert_eq!(player["points"], points, "{name}: {player}");
        assert_eq!(player["element"], element, "{name}: {player}");
    }
    let ball = view["objects"]
        .as_array()
        .expect("objects")
        .iter()
        .find(|o| o["name"] == nomicbot::games::ruletag::BALL)
        .expect("the ball");
    assert_eq!(ball["holder"], "Alice");
    assert_eq!(ball["rtl"], 3);
}

#[test]
fn golden_v1_ghost_was_won_by_carol_and_the_referee_paid() {
    let state = golden_v1().state_json();
    let instance = &state["ghosts"]["instances"][0];
    assert_eq!(instance["number"], 1);
    let winner = instance["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .find(|seat| seat["number"] == instance["winner"])
        .unwrap_or_else(|| panic!("a winner's seat: {instance}"));
    assert_eq!(winner["name"], "Carol");
    assert_eq!(balance(&state, "Carol", "points").as_deref(), Some("24"));
}

#[test]
fn a_state_snapshot_in_another_format_is_rebuilt_from_the_event_log() {
    let expected = golden_v1().state_json();
    let bot = golden_v1();
    let conn = rusqlite::Connection::open(database(&bot)).expect("open");
    conn.execute("UPDATE state SET world = '{}', format = 99", [])
        .expect("a snapshot of another release");
    drop(conn);
    assert_eq!(bot.state_json(), expected);
}

#[test]
fn an_event_in_a_newer_format_is_refused_at_open_naming_the_release_that_wrote_it() {
    let bot = golden_v1();
    let newer = nomicbot::store::events::EVENT_FORMAT + 1;
    let conn = rusqlite::Connection::open(database(&bot)).expect("open");
    let seq: i64 = conn
        .query_row("SELECT max(seq) FROM events", [], |row| row.get(0))
        .expect("the last event");
    conn.execute(
        "UPDATE events SET format = ?1 WHERE seq = ?2",
        rusqlite::params![newer, seq],
    )
    .expect("an event of a newer release");
    conn.execute(
        "UPDATE meta SET value = '99.0.0' WHERE key = 'written_by'",
        [],
    )
    .expect("written by it");
    drop(conn);
    for command in [&["state", "--json"][..], &["once"], &["replay"]] {
        let output = bot.cli(command);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{command:?} opened it");
        assert!(
            stderr.contains(&format!("event #{seq} is in event format {newer}"))
                && stderr.contains("written by nomicbot 99.0.0")
                && stderr.contains("upgrade nomicbot to open it"),
            "{command:?}: {stderr}"
        );
    }
    // Nothing was written: the database still names the release that wrote it.
    let conn = rusqlite::Connection::open(database(&bot)).expect("open");
    let written_by: String = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'written_by'",
            [],
            |row| row.get(0),
        )
        .expect("written_by");
    assert_eq!(written_by, "99.0.0");
}
