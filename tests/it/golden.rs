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

use crate::support::{LocalBot, at, message, repo_root};

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
    nomicbot::config::DEFAULT_CONFIG
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

