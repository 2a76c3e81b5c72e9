//! Issue 24, item 13: wording. What a player or an officer reads: no copy of a
//! private question to the Rule Tag Moderator, a reveal that says which votes
//! were replaced, subjects without the bot's internal ids, help that points to
//! where the words are defined, and a demo that leaves no folder behind.

use jiff::{SignedDuration, Timestamp};

use crate::support::{LocalBot, SentMail, at, message};

const BOT: &str = "bot@nomic.example";
const LIST: &str = "game-list@nomic.example";
const MODERATOR: &str = "mod@nomic.example";

fn t0() -> Timestamp {
    at("2026-03-02T09:00:00Z")
}

fn mins(n: i64) -> SignedDuration {
    SignedDuration::from_mins(n)
}

fn send(
    bot: &LocalBot,
    id: &str,
    from: &str,
    to: &str,
    subject: &str,
    body: &str,
    when: Timestamp,
) {
    let message_id = format!("{id}@players.test");
    bot.deliver(id, &message(from, to, subject, &message_id, body), when);
}

#[test]
fn issue_24_item_13_a_private_help_or_status_under_rule_tag_is_not_copied_to_its_moderator() {
    use crate::ruletag::{MODERATOR as RTM, board, on, private};
    let bot = board(
        &["Ariel", "Earl"],
        10,
        crate::ruletag::FAR_BALL,
        crate::ruletag::FAR_GOAL,
    );
    bot.once(on(5, 1, 200));
    let sent_before = bot.sent().len();
    private(&bot, "Ariel", "help", on(5, 2, 0));
    private(&bot, "Ariel", "status", on(5, 2, 1));
    bot.once(on(5, 2, 2));
    let sent: Vec<SentMail> = bot.sent_mail().into_iter().skip(sent_before).collect();
    assert_eq!(sent.len(), 2, "two answers to Ariel, no copy: {sent:#?}");
    assert!(sent.iter().all(|mail| mail.is_to("ariel@nomic.example")));
    assert!(!sent.iter().any(|mail| mail.is_to(RTM)));
    // An action still reaches the Rule Tag Moderator.
    private(&bot, "Ariel", "status\nmove from null to 325", on(5, 2, 3));
    bot.once(on(5, 2, 4));
    let copies: Vec<SentMail> = bot
        .sent_mail()
        .into_iter()
        .skip(sent_before + 2)
        .filter(|mail| mail.is_to(RTM))
        .collect();
    assert_eq!(copies.len(), 1, "{copies:#?}");
    assert!(
        copies[0].body.contains("> move from null to 325"),
        "{}",
        copies[0].body
    );
}

#[test]
fn issue_24_item_13_a_reveal_marks_the_votes_replaced_and_no_subject_names_vote_1() {
    let config = crate::support::trusting().replace(
        "moderators = []",
        &format!("moderators = [\"{MODERATOR}\"]"),
    );
    let bot = LocalBot::with_config(&config);
    for (n, name) in ["Alice", "Bob"].iter().enumerate() {
        send(
            &bot,
            &format!("join-{name}"),
            &format!("{}@nomic.example", name.to_lowercase()),
            LIST,
            &format!("[nomic] join {name}"),
            "",
            t0() + mins(n as i64),
        );
    }
    send(
        &bot,
        "open",
        MODERATOR,
        LIST,
        "[vote] open Cake?",
        "",
        t0() + mins(5),
    );
    send(
        &bot,
        "a1",
        "alice@nomic.example",
        BOT,
        "[vote] yes",
        "",
        t0() + mins(10),
    );
    send(
        &bot,
        "a2",
        "alice@nomic.example",
        BOT,
        "[vote] no",
        "",
        t0() + mins(20),
    );
    send(
        &bot,
        "b1",
        "bob@nomic.example",
        BOT,
        "[vote] yes",
        "",
        t0() + mins(30),
    );
    // The ballot's deadline (three days by default) passes.
    bot.once(t0() + SignedDuration::from_hours(24 * 4));
    let sent = bot.sent_mail();
    for mail in &sent {
        assert!(
            !mail.subject.contains("vote:"),
            "an internal id: {}",
            mail.subject
        );
    }
    let reveal = sent
        .iter()
        .find(|mail| mail.subject.contains("Sealed actions of ballot 1 revealed"))
        .unwrap_or_else(|| panic!("the reveal: {sent:#?}"));
    let plain: Vec<&str> = reveal
        .body
        .lines()
        .skip_while(|line| !line.starts_with("In plain words"))
        .collect();
    let alice: Vec<&&str> = plain
        .iter()
        .filter(|l| l.contains("Alice, sealed"))
        .collect();
    assert_eq!(alice.len(), 2, "{}", reveal.body);
    assert!(
        alice[0].contains(": yes (replaced by Alice's later one"),
        "{}",
        reveal.body
    );
    assert!(!alice[1].contains("replaced"), "{}", reveal.body);
    assert!(
        plain
            .iter()
            .any(|l| l.contains("Bob, sealed") && !l.contains("replaced")),
        "{}",
        reveal.body
    );
    assert!(
        sent.iter().any(|m| m
            .subject
            .contains("Sealed actions of ballot 1: 3 commitments")),
        "{sent:#?}"
    );
}

#[test]
fn issue_24_item_13_demo_without_a_folder_leaves_no_temporary_folder_behind() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_nomicbot"))
        .arg("demo")
        .env("TMPDIR", tmp.path())
        .output()
        .expect("run nomicbot demo");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("Welcome, Alice"), "{stdout}");
    assert!(stdout.contains("temporary folder is removed"), "{stdout}");
    let left: Vec<_> = std::fs::read_dir(tmp.path())
        .expect("read the temporary folder")
        .map(|entry| entry.expect("entry").path())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
    // With --dir, the files stay where asked.
    let kept = tmp.path().join("kept");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_nomicbot"))
        .args(["demo", "--dir"])
        .arg(&kept)
        .env("TMPDIR", tmp.path())
        .output()
        .expect("run nomicbot demo");
    assert!(output.status.success());
    assert!(kept.join("bot.toml").is_file());
}

#[test]
fn issue_24_item_13_rule_tag_help_points_to_the_glossary_under_ruleset() {
    let bot = LocalBot::new();
    send(
        &bot,
        "help",
        "alice@nomic.example",
        BOT,
        "[rule tag] help",
        "",
        t0(),
    );
    bot.once(t0() + mins(1));
    let answers: Vec<SentMail> = bot
        .sent_mail()
        .into_iter()
        .filter(|mail| mail.is_to("alice@nomic.example"))
        .collect();
    assert_eq!(answers.len(), 1, "{answers:#?}");
    assert!(
        answers[0].body.contains("send \"terms\" under [ruleset]"),
        "{}",
        answers[0].body
    );
}

/// The README's `[ping]` section names every command the game answers to, as
/// the game itself lists them in its "Not understood" answer.
#[test]
fn issue_24_item_13_the_readme_ping_section_names_every_ping_command() {
    let bot = LocalBot::new();
    send(
        &bot,
        "xyzzy",
        "alice@nomic.example",
        BOT,
        "[ping] a command",
        "xyzzy",
        t0(),
    );
    bot.once(t0() + mins(1));
    let answer = bot
        .sent_mail()
        .into_iter()
        .find(|mail| mail.is_to("alice@nomic.example"))
        .expect("the answer");
    let body = answer.body.replace('\n', " ");
    let listed = body
        .split("The commands are: ")
        .nth(1)
        .and_then(|rest| rest.split(").").next())
        .unwrap_or_else(|| panic!("the list of commands in: {}", answer.body));
    let readme =
        std::fs::read_to_string(crate::support::repo_root().join("README.md")).expect("README");
    let start = readme.find("### `[ping]`").expect("the [ping] section");
    let section = &readme[start..];
    let section = &section[..section[4..]
        .find("\n### ")
        .map_or(section.len(), |end| end + 4)];
    let mut checked = 0;
    for command in listed.split([',', '(', ')', ':']) {
        let words: Vec<&str> = command
            .split_whitespace()
            .take_while(|word| word.chars().any(|c| c.is_lowercase()))
            .collect();
        if words.is_empty() || words == ["moderators"] || words == ["help"] {
            continue;
        }
        let command = words.join(" ");
        // Each as a line of the section's list of commands, as help lists it.
        assert!(
            section
                .lines()
                .any(|line| line.trim_start().starts_with(&command)),
            "{command:?} is not in the README's [ping] section"
        );
        checked += 1;
    }
    assert!(checked >= 10, "{listed}");
}
