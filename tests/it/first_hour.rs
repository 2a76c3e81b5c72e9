//! Issue 24, "A moderator's first day", whole: a moderator's first hour from
//! the config `nomicbot init` writes, as the README tells it. Name the
//! moderator (with the name a mail client shows), pin eir domain's DKIM key,
//! import the rule texts shipped with the bot by name, start every game by mail,
//! then read the standings, the running games, a game's history, a rule's
//! history, and the weekly reports a week later.

use std::process::Command;

use jiff::{SignedDuration, Timestamp};

use crate::support::{LocalBot, SentMail, at};

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";
const MODERATOR: &str = "mod@mod.example";

/// The moment the first hour begins: a Monday morning.
fn start() -> Timestamp {
    at("2026-01-05T09:00:00Z")
}

struct FirstHour {
    bot: LocalBot,
    sent: usize,
}

impl FirstHour {
    /// `nomicbot init` in a new folder, then bot.toml edited as the README says.
    fn init() -> FirstHour {
        let dir = tempfile::tempdir().expect("temp dir");
        let init = Command::new(env!("CARGO_BIN_EXE_nomicbot"))
            .arg("init")
            .current_dir(dir.path())
            .output()
            .expect("run nomicbot init");
        assert!(
            init.status.success(),
            "init: {}",
            String::from_utf8_lossy(&init.stderr)
        );
        let path = dir.path().join("bot.toml");
        let written = std::fs::read_to_string(&path).expect("init writes bot.toml");
        let edited = edit(
            &written,
            &[
                (
                    "moderators = []",
                    "moderators = [\"Mod <mod@mod.example>\"]".to_owned(),
                ),
                (
                    "# dkim_keys = \"dkim-keys.txt\"",
                    format!(
                        "dkim_keys = {:?}",
                        crate::auth::keys_file().display().to_string()
                    ),
                ),
                // The test has no network; the moderator's key is pinned above.
                ("\ndns = true\n", "\ndns = false\n".to_owned()),
            ],
        );
        std::fs::write(&path, edited).expect("write bot.toml");
        FirstHour {
            bot: LocalBot { dir },
            sent: 0,
        }
    }

    fn cli_ok(&self, args: &[&str]) -> String {
        self.bot.cli_ok(args)
    }

    fn set(&self, from: &str, to: &str) {
        let path = self.bot.config_path();
        let text = std::fs::read_to_string(&path).expect("bot.toml");
        std::fs::write(&path, edit(&text, &[(from, to.to_owned())])).expect("write bot.toml");
    }

    /// Delivers a message at `when` (signed by the sender's domain when `sign`)
    /// and runs one pass then.
    fn send(&mut self, when: Timestamp, from: &str, to: &str, subject: &str, body: &str) {
        self.sent += 1;
        let raw = format!(
            "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <hour{n}@players.test>\r\n\
             Date: {date}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n",
            n = self.sent,
            date = when.strftime("%a, %d %b %Y %H:%M:%S +0000"),
            body = body.replace('\n', "\r\n"),
        );
        let raw = if from == MODERATOR {
            crate::auth::signed(&raw, "mod.example")
        } else {
            raw
        };
        self.bot.deliver(&format!("hour{}", self.sent), &raw, when);
        self.bot.once(when);
    }

    fn mail(&self) -> Vec<SentMail> {
        self.bot.sent_mail()
    }

    /// The latest private answer to `address`.
    fn answer_to(&self, address: &str) -> String {
        self.mail()
            .into_iter()
            .filter(|m| m.is_to(address) && !m.is_to(LIST))
            .map(|m| m.body)
            .next_back()
            .unwrap_or_default()
    }
}

fn edit(text: &str, changes: &[(&str, String)]) -> String {
    let mut text = text.to_owned();
    for (from, to) in changes {
        assert!(text.contains(from), "bot.toml has no {from:?}");
        text = text.replacen(from, to, 1);
    }
    text
}

fn minutes(n: i64) -> Timestamp {
    start() + SignedDuration::from_mins(n)
}

fn player(name: &str) -> String {
    format!("{}@players.example", name.to_lowercase())
}

fn refused(answer: &str) -> bool {
    answer.contains("Refused") || answer.contains("refused")
}

#[test]
fn a_moderators_first_hour_from_init_to_the_weekly_report() {
    let mut hour = FirstHour::init();
    let check = hour.cli_ok(&["check"]);
    assert!(check.contains("config ok"), "{check}");

    // The players join on the list.
    for (n, name) in ["Alice", "Bob", "Carol"].into_iter().enumerate() {
        hour.send(
            minutes(n as i64),
            &player(name),
            LIST,
            &format!("[nomic] join {name}"),
            "",
        );
    }

    // A game does not begin before its rules are in the registry, and says how.
    hour.send(minutes(5), MODERATOR, BOT, "[gnomic] start", "");
    let refusal = hour.answer_to(MODERATOR);
    assert!(
        refusal.contains("nomicbot import-rules gnomic"),
        "{refusal}"
    );

    // The operator imports the texts shipped with the bot, by name.
    let list = hour.cli_ok(&["import-rules", "--list"]);
    for name in ["gnomic", "ackanomic", "ghost", "rule-tag", "space"] {
        assert!(list.contains(name), "{list}");
    }
    hour.cli_ok(&["import-rules", "gnomic", "--now", &minutes(6).to_string()]);
    hour.cli_ok(&[
        "import-rules",
        "ackanomic",
        "--now",
        &minutes(7).to_string(),
    ]);
    let rule_tag = hour.cli_ok(&["import-rules", "rule-tag", "--now", &minutes(8).to_string()]);
    // The proposal numbers none of its rules: they take the numbers bot.toml
    // gives Rule Tag, so there is nothing to set.
    assert!(rule_tag.contains("1001 Elements"), "{rule_tag}");
    // Ghost is Ackanomic's rule 103, and Gnomic's 103 is another rule: the
    // import says so and how to give Ghost a number of its own.
    let clash = hour.bot.cli(&["import-rules", "ghost"]);
    assert!(!clash.status.success());
    let why = String::from_utf8_lossy(&clash.stderr);
    assert!(why.contains("--number"), "{why}");
    let ghost = hour.cli_ok(&[
        "import-rules",
        "ghost",
        "--number",
        "1300",
        "--now",
        &minutes(9).to_string(),
    ]);
    assert!(ghost.contains("rule = 1300"), "{ghost}");
    hour.set("\nrule = 103\n", "\nrule = 1300\n");
    hour.cli_ok(&["import-rules", "space", "--now", &minutes(10).to_string()]);
    let check = hour.cli_ok(&["check"]);
    assert!(check.contains("config ok"), "{check}");

    // Every game starts by mail.
    let starts = [
        ("[gnomic] start", ""),
        ("[ghost] start with Alice, Bob, Carol", ""),
        ("[rule tag] start", ""),
        ("[ping] place Alice because she volunteered", ""),
        ("[vote] open Shall the nomic have a motto?", ""),
    ];
    for (n, (subject, body)) in starts.into_iter().enumerate() {
        hour.send(minutes(20 + n as i64), MODERATOR, LIST, subject, body);
        let answer = hour.answer_to(MODERATOR);
        assert!(!refused(&answer), "{subject}: {answer}");
    }

    // The standings, the running games, a game's history, a rule's history.
    hour.send(minutes(30), &player("Alice"), BOT, "[nomic] standings", "");
    let standings = hour.answer_to(&player("Alice"));
    assert!(standings.contains("Gnomic score"), "{standings}");
    assert!(standings.contains("points"), "{standings}");
    for name in ["Alice", "Bob", "Carol"] {
        assert!(standings.contains(name), "{standings}");
    }

    hour.send(minutes(31), &player("Bob"), BOT, "[nomic] games", "");
    let games = hour.answer_to(&player("Bob"));
    for tag in ["[gnomic]", "[ghost 1]", "[rule tag]", "[ping]", "[vote]"] {
        assert!(games.contains(tag), "{tag} missing from: {games}");
    }
    assert!(games.contains("'s turn in Ghost 1"), "{games}");

    hour.send(minutes(32), &player("Carol"), BOT, "[gnomic] history", "");
    let history = hour.answer_to(&player("Carol"));
    assert!(!refused(&history), "{history}");
    assert!(history.contains("[gnomic]"), "{history}");

    hour.send(
        minutes(33),
        &player("Carol"),
        BOT,
        "[ruleset] history 325",
        "",
    );
    let rule_history = hour.answer_to(&player("Carol"));
    assert!(rule_history.contains("325"), "{rule_history}");
    assert!(rule_history.contains("A turn"), "{rule_history}");

    // A week later the offices' reports are on the list.
    hour.bot
        .once(start() + SignedDuration::from_hours(24 * 7 + 4));
    let reports: Vec<String> = hour
        .mail()
        .into_iter()
        .filter(|m| m.is_to(LIST) && m.subject.contains("report"))
        .map(|m| m.subject)
        .collect();
    for office in ["Registrar", "Treasuror", "Rulekeepor", "Scorekeepor"] {
        assert!(
            reports.iter().any(|subject| subject.contains(office)),
            "no {office}'s report among {reports:?}"
        );
    }
}
