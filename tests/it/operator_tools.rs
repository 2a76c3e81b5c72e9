//! Issue 24, items 4 and 12: errors that name the bot.toml key and the fix, and
//! operator tools a person can read (`state`, `log`, `inbox`, `check
//! --connect`, `once`'s exit code), as an operator meets them at the shell.
//! The IMAP and SMTP cases run against real servers of their own.

use std::process::Output;

use crate::e2e::ImapBot;
use crate::support::{LocalBot, OwnServers, at, free_port, message};

const BOT: &str = "bot@nomic.example";
const LIST: &str = "game-list@nomic.example";
const MODERATOR: &str = "mod@nomic.example";

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The binary run in `dir`, with no --config: as an operator types it.
fn nomicbot_in(dir: &std::path::Path, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_nomicbot"))
        .current_dir(dir)
        .env_remove("NOMICBOT_CONFIG")
        .args(args)
        .output()
        .expect("run nomicbot")
}

/// A bot whose shipped config has one line changed.
fn bot_with_line(from: &str, to: &str) -> LocalBot {
    let config = crate::support::trusting();
    assert!(config.contains(from), "the shipped config has {from:?}");
    LocalBot::with_config(&config.replacen(from, to, 1))
}

/// The refusal of a command run on a bad config, checked to be one line of words
/// for people: no Rust type name, no backtrace.
fn refusal(output: &Output) -> String {
    assert!(!output.status.success(), "accepted: {}", stdout(output));
    let text = stderr(output);
    for internal in [
        "i64",
        "u32",
        "usize",
        "Error {",
        "backtrace",
        "panicked",
        "os error 21",
    ] {
        assert!(!text.contains(internal), "{internal:?} in {text}");
    }
    text
}

#[test]
fn a_missing_bot_toml_points_to_nomicbot_init() {
    let dir = tempfile::tempdir().expect("temp dir");
    let text = refusal(&nomicbot_in(dir.path(), &["state"]));
    assert!(text.contains("no config at bot.toml"), "{text}");
    assert!(text.contains("nomicbot init"), "{text}");
    assert!(text.contains("--config"), "{text}");
}

#[test]
fn a_game_key_of_the_wrong_type_is_named_with_its_section_and_the_fix() {
    let bot = bot_with_line("\ndays = 3\n", "\ndays = \"three\"\n");
    let text = refusal(&bot.cli(&["check"]));
    assert!(text.contains("[vote] days = \"three\""), "{text}");
    assert!(text.contains("expected a whole number"), "{text}");
}

#[test]
fn a_shell_key_of_the_wrong_type_is_named_with_its_line() {
    let bot = bot_with_line("max_vacation_days = 366", "max_vacation_days = \"ten\"");
    let text = refusal(&bot.cli(&["state"]));
    assert!(
        text.contains("[players] max_vacation_days = \"ten\""),
        "{text}"
    );
    assert!(text.contains(", line "), "{text}");
    assert!(text.contains("write it without quotes"), "{text}");
}

#[test]
fn a_misspelled_key_is_named_with_the_keys_of_its_section() {
    let bot = bot_with_line("\ndays = 3\n", "\ndayz = 3\n");
    let text = refusal(&bot.cli(&["check"]));
    assert!(text.contains("[vote] dayz"), "{text}");
    assert!(text.contains("the keys here: days"), "{text}");
}

#[test]
fn a_database_path_that_is_a_folder_is_named_with_a_file_to_use() {
    let bot = bot_with_line("database = \"var/nomicbot.sqlite\"", "database = \"var\"");
    std::fs::create_dir_all(bot.dir.path().join("var")).expect("var/");
    let text = refusal(&bot.cli(&["state"]));
    assert!(
        text.contains("[bot] database = \"var\" is a folder"),
        "{text}"
    );
    assert!(
        text.contains("database = \"var/nomicbot.sqlite\""),
        "{text}"
    );
}

/// Alice and Bob join; the moderator gives Alice 5 points.
fn two_players() -> LocalBot {
    let bot = bot_with_line(
        "moderators = []",
        &format!("moderators = [\"{MODERATOR}\"]"),
    );
    let t0 = at("2026-02-02T10:00:00Z");
    let mails = [
        (
            "alice@nomic.example",
            LIST,
            "[nomic] join Alice",
            "",
            "j-alice",
        ),
        ("bob@nomic.example", LIST, "[nomic] join Bob", "", "j-bob"),
        (
            MODERATOR,
            BOT,
            "[nomic]",
            "adjust Alice 5 points because a first-day gift",
            "gift",
        ),
    ];
    for (index, (from, to, subject, body, id)) in mails.into_iter().enumerate() {
        let when = t0 + jiff::SignedDuration::from_mins(index as i64);
        bot.deliver(
            id,
            &message(from, to, subject, &format!("{id}@t"), body),
            when,
        );
    }
    bot.once(t0 + jiff::SignedDuration::from_hours(1));
    bot
}

#[test]
fn state_is_text_for_people_by_default_and_json_with_names_beside_ids() {
    let bot = two_players();
    let text = bot.cli_ok(&["state"]);
    assert!(!text.trim_start().starts_with('{'), "{text}");
    assert!(text.contains("Players (2):"), "{text}");
    assert!(text.contains("Alice <alice@nomic.example>"), "{text}");
    // Bare `state` is everything: the other parts and the games follow.
    for heading in [
        "\nAccounts:",
        "\nRuleset:",
        "\nOffices:",
        "\nVote:",
        "\nGhost:",
    ] {
        assert!(text.contains(heading), "{heading:?} in\n{text}");
    }
    // A player is shown by name, never as `{"player": 1}`.
    assert!(text.contains("holder: Alice (#1)"), "{text}");
    assert!(!text.contains("\"player\""), "{text}");

    let part = bot.cli_ok(&["state", "accounts"]);
    assert!(!part.trim_start().starts_with('{'), "{part}");
    assert!(part.contains("amount: 5"), "{part}");
    let ruleset = bot.cli_ok(&["state", "ruleset"]);
    assert!(!ruleset.trim_start().starts_with('{'), "{ruleset}");

    let json: serde_json::Value =
        serde_json::from_str(&bot.cli_ok(&["state", "accounts", "--json"])).expect("JSON");
    let balance = &json["balances"][0];
    assert_eq!(
        balance["holder"],
        serde_json::json!({"player": 1}),
        "{json}"
    );
    assert_eq!(balance["holder_name"], "Alice", "{json}");
}

#[test]
fn state_help_documents_its_part_argument() {
    let bot = LocalBot::new();
    let help = bot.cli_ok(&["state", "--help"]);
    assert!(help.contains("[PART]"), "{help}");
    for part in [
        "players",
        "ruleset",
        "accounts",
        "gnomic",
        "--json",
        "--private",
    ] {
        assert!(help.contains(part), "{part:?} in\n{help}");
    }
    let unknown = bot.cli(&["state", "nonsense"]);
    let text = refusal(&unknown);
    assert!(text.contains("ruleset"), "{text}");
}

#[test]
fn log_and_inbox_show_time_sender_subject_and_what_happened() {
    let bot = two_players();
    let inbox = bot.cli_ok(&["inbox"]);
    let alice = inbox
        .lines()
        .find(|line| line.contains("alice@nomic.example"))
        .unwrap_or_else(|| panic!("Alice's join in\n{inbox}"));
    assert!(alice.starts_with("#1 2026-02-02 10:00 UTC"), "{alice}");
    assert!(alice.contains("\"[nomic] join Alice\""), "{alice}");
    assert!(alice.contains("applied, 1 event"), "{alice}");

    let log = bot.cli_ok(&["log"]);
    assert!(
        log.contains("2026-02-02 10:00 UTC  mail from alice@nomic.example \"[nomic] join Alice\""),
        "{log}"
    );
    assert!(log.contains("players joined"), "{log}");
    assert!(
        log.contains("to Alice (#1)"),
        "the gift names Alice:\n{log}"
    );
    assert!(!log.contains("{\"game\""), "no raw events:\n{log}");
}

#[test]
fn the_trust_warning_is_said_once_by_a_pass_and_not_by_the_reading_commands() {
    let bot = LocalBot::new();
    let pass = bot.cli(&["once", "--now", "2026-02-02T10:00:00Z"]);
    assert!(pass.status.success(), "{}", stderr(&pass));
    assert_eq!(
        stderr(&pass).matches("auth = \"none\"").count(),
        1,
        "{}",
        stderr(&pass)
    );
    for command in [&["state"][..], &["log"], &["inbox"], &["outbox"]] {
        let output = bot.cli(command);
        assert!(output.status.success(), "{command:?}: {}", stderr(&output));
        assert!(
            !stderr(&output).contains("auth = \"none\""),
            "{command:?}: {}",
            stderr(&output)
        );
    }
}

// ---------------------------------------------------------------------------
// Against real servers of the test's own.

/// Servers with TLS (STARTTLS on the plain ports, implicit TLS beside them),
/// and a bot on them whose config is then changed line by line.
fn bot_on_own_servers(name: &str) -> (OwnServers, ImapBot) {
    let own = OwnServers::start(name, true);
    let bot = ImapBot::on(own.servers(), name, "INBOX");
    (own, bot)
}

fn edit(bot: &ImapBot, from: &str, to: &str) {
    let config = std::fs::read_to_string(bot.config_path()).expect("bot.toml");
    assert!(config.contains(from), "{from:?} in {config}");
    std::fs::write(bot.config_path(), config.replacen(from, to, 1)).expect("bot.toml");
}

/// Trusts the servers' own CA in both sections.
fn trust_ca(bot: &ImapBot, own: &OwnServers) {
    let ca = own.get("MAILTEST_TLS_CA");
    edit(bot, "[smtp]\n", &format!("ca_file = \"{ca}\"\n[smtp]\n"));
    edit(
        bot,
        "retry_max_seconds",
        &format!("ca_file = \"{ca}\"\nretry_max_seconds"),
    );
}

#[test]
fn a_wrong_imap_password_is_named_with_the_keys_to_check() {
    let (_own, bot) = bot_on_own_servers("ops-password");
    edit(&bot, "password = \"", "password = \"wrong");
    let output = bot.command(&["once"]).output().expect("run");
    let text = refusal(&output);
    assert!(text.contains("refused the login"), "{text}");
    assert!(text.contains("[imap] user and [imap] password"), "{text}");
    assert!(!text.contains("info: Some"), "{text}");
}

#[test]
fn tls_asked_of_a_plain_imap_port_says_to_use_starttls() {
    let (own, bot) = bot_on_own_servers("ops-tls");
    trust_ca(&bot, &own);
    edit(&bot, "tls = \"none\"", "tls = \"tls\"");
    let output = bot.command(&["once"]).output().expect("run");
    let text = refusal(&output);
    assert!(text.contains("does not speak TLS there"), "{text}");
    assert!(text.contains("[imap] tls = \"starttls\""), "{text}");
    assert!(!text.contains("InvalidContentType"), "{text}");
}

#[test]
fn plain_text_asked_of_a_tls_only_imap_port_says_to_use_tls_without_waiting_out_the_connect() {
    let (own, bot) = bot_on_own_servers("ops-plain-on-tls");
    let plain = own.port("MAILTEST_IMAP_PORT");
    let tls_only = own.port("MAILTEST_IMAPS_PORT");
    edit(
        &bot,
        &format!("port = {plain}"),
        &format!("port = {tls_only}"),
    );
    let output = bot.command(&["check", "--connect"]).output().expect("run");
    let text = stdout(&output);
    assert!(!output.status.success(), "{text}");
    assert!(text.contains("said nothing within 8s"), "{text}");
    assert!(text.contains("[imap] tls = \"tls\""), "{text}");
}

#[test]
fn check_connect_logs_in_to_both_servers_and_says_what_it_found() {
    let (own, bot) = bot_on_own_servers("ops-connect");
    trust_ca(&bot, &own);
    edit(&bot, "tls = \"none\"", "tls = \"starttls\"");
    edit(&bot, "tls = \"none\"", "tls = \"starttls\"");
    let output = bot.command(&["check", "--connect"]).output().expect("run");
    let text = stdout(&output);
    assert!(output.status.success(), "{text}{}", stderr(&output));
    assert!(text.contains("imap ok: logged in to"), "{text}");
    assert!(text.contains("mailbox INBOX selected"), "{text}");
    assert!(text.contains("smtp ok:"), "{text}");
    assert!(
        text.contains(&format!(
            "it takes mail from {} to {}",
            bot.bot(),
            bot.list()
        )),
        "{text}"
    );

    // The SMTP server down: a free port nobody listens on.
    let port = own.port("MAILTEST_SMTP_PORT");
    edit(
        &bot,
        &format!("port = {port}"),
        &format!("port = {}", free_port()),
    );
    let output = bot.command(&["check", "--connect"]).output().expect("run");
    let text = stdout(&output);
    assert!(!output.status.success(), "{text}");
    assert!(text.contains("imap ok:"), "{text}");
    assert!(
        text.contains("smtp FAILED: cannot connect to the SMTP server"),
        "{text}"
    );
    assert!(text.contains("check [smtp] host and port"), "{text}");
}

/// A player's join, in the bot's mailbox by SMTP; its two mails (answer and
/// announcement) are what the pass has to send.
async fn a_join_waiting(bot: &ImapBot) {
    let alice = bot.player("alice");
    bot.send(&alice, true, "[nomic] join Alice", "join", "")
        .await;
    let waiting = bot.wait_for(&bot.bot(), 1, |_| true).await;
    assert_eq!(waiting.len(), 1, "the join reached the bot's mailbox");
}

#[tokio::test(flavor = "multi_thread")]
async fn once_exits_69_when_the_smtp_server_is_down_and_0_once_it_sent_everything() {
    let (own, bot) = tokio::task::spawn_blocking(|| bot_on_own_servers("ops-down"))
        .await
        .expect("servers");
    a_join_waiting(&bot).await;
    let port = own.port("MAILTEST_SMTP_PORT");
    let nobody = free_port();
    edit(&bot, &format!("port = {port}"), &format!("port = {nobody}"));
    let output = bot.command(&["once"]).output().expect("run");
    assert_eq!(output.status.code(), Some(69), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("not sent yet 1"),
        "{}",
        stdout(&output)
    );
    let text = stderr(&output);
    assert!(
        text.contains("mail not sent: cannot connect to the SMTP server"),
        "{text}"
    );
    assert!(text.contains("2 message(s) wait in the outbox"), "{text}");

    edit(&bot, &format!("port = {nobody}"), &format!("port = {port}"));
    // The retry is due after the backoff (retry_max_seconds = 2 in this config).
    let later = (jiff::Timestamp::now() + jiff::SignedDuration::from_mins(5)).to_string();
    let output = bot
        .command(&["once", "--now", &later])
        .output()
        .expect("run");
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("sent 2"), "{}", stdout(&output));
}

#[tokio::test(flavor = "multi_thread")]
async fn once_exits_69_when_the_smtp_server_refuses_the_login_naming_the_password() {
    let (_own, bot) = tokio::task::spawn_blocking(|| bot_on_own_servers("ops-login"))
        .await
        .expect("servers");
    a_join_waiting(&bot).await;
    edit(
        &bot,
        "retry_max_seconds",
        &format!(
            "user = \"bot-{}\"\npassword = \"wrong\"\nretry_max_seconds",
            bot.name
        ),
    );
    let output = bot.command(&["once"]).output().expect("run");
    assert_eq!(output.status.code(), Some(69), "{}", stderr(&output));
    let text = stderr(&output);
    assert!(text.contains("the SMTP server refused the login"), "{text}");
    assert!(text.contains("[smtp] user and [smtp] password"), "{text}");
}
