//! Issue 11, items 3 to 5: how the bot reads what real mail programs and list
//! managers make of a player's message. Each case is a raw message under
//! `tests/corpus/` (a reply as mutt, s-nail, Thunderbird, Outlook, Gmail and
//! Apple Mail write it; a post with Mailman's, groups.io's or mlmmj's footer;
//! talk in a tagged thread), delivered to a bot on the embedded Maildir
//! transport. The tests assert what the player sees: the answer, or that there
//! is none, and the state.

use std::path::PathBuf;

use jiff::{SignedDuration, Timestamp};

use crate::support::{LocalBot, SentMail, at, message, repo_root};

const LIST: &str = "game-list@nomic.example";
const ALICE: &str = "alice@example.org";
const CAROL: &str = "carol@example.org";
const DAVE: &str = "dave@example.org";

fn corpus_dir() -> PathBuf {
    repo_root().join("tests/corpus")
}

/// A message of the corpus, as stored (`quoting/s-nail.eml`).
fn corpus(path: &str) -> String {
    let path = corpus_dir().join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

fn t0() -> Timestamp {
    at("2026-01-05T10:00:00Z")
}

/// A bot with these `key = value` lines of the shipped bot.toml replaced (a
/// key given as `# key` is a commented-out line of the file, set).
fn bot_with(settings: &[(&str, &str)]) -> LocalBot {
    let config: Vec<String> = crate::support::trusting()
        .lines()
        .map(|line| {
            match settings
                .iter()
                .find(|(key, _)| line.starts_with(&format!("{key} =")))
            {
                Some((key, value)) => format!("{} = {value}", key.trim_start_matches("# ")),
                None => line.to_owned(),
            }
        })
        .collect();
    LocalBot::with_config(&config.join("\n"))
}

/// The players join through the list, at `t0`; one pass.
fn players_join(bot: &LocalBot, players: &[(&str, &str)]) {
    for (index, (name, address)) in players.iter().enumerate() {
        bot.deliver(
            &format!("join{index}"),
            &message(
                &format!("{name} Example <{address}>"),
                LIST,
                &format!("[nomic] join {name}"),
                &format!("join.{}@example.org", name.to_lowercase()),
                "",
            ),
            t0() + SignedDuration::from_secs(index as i64),
        );
    }
    bot.once(t0() + SignedDuration::from_mins(1));
}

/// Delivers a corpus message at `t0` + 5 minutes and runs a pass; the mail the
/// bot sent in answer to it (In-Reply-To its Message-ID).
fn deliver(bot: &LocalBot, path: &str) -> Vec<SentMail> {
    let raw = corpus(path);
    let message_id = raw
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("message-id")
                .then(|| value.trim().trim_matches(['<', '>']).to_owned())
        })
        .unwrap_or_else(|| panic!("{path} has no Message-ID"));
    bot.deliver(
        &path.replace(['/', '.'], "-"),
        &raw,
        t0() + SignedDuration::from_mins(5),
    );
    bot.once(t0() + SignedDuration::from_mins(10));
    bot.sent_mail()
        .into_iter()
        .filter(|mail| mail.in_reply_to.as_deref() == Some(message_id.as_str()))
        .collect()
}

/// The one answer to `address` among `mail`.
fn answer_to<'a>(mail: &'a [SentMail], address: &str) -> &'a SentMail {
    let answers: Vec<&SentMail> = mail.iter().filter(|m| m.is_to(address)).collect();
    assert_eq!(answers.len(), 1, "one answer to {address}: {mail:#?}");
    answers[0]
}

/// The command lines an answer reports, in order (`> LINE` in its body).
fn reported_lines(answer: &SentMail) -> Vec<&str> {
    answer
        .body
        .lines()
        .filter_map(|line| line.strip_prefix("> "))
        .collect()
}

/// The names of the players, from `state --json`.
fn player_names(bot: &LocalBot) -> Vec<String> {
    bot.state_json()["players"]["players"]
        .as_array()
        .expect("players")
        .iter()
        .filter_map(|player| player["name"].as_str().map(str::to_owned))
        .collect()
}

/// Alice, a player, answers the bot's answer to her `join` with the corpus
/// reply `path`: the bot must read exactly `commands` and nothing it quoted.
fn alice_replies(path: &str, commands: &[&str]) -> LocalBot {
    let bot = LocalBot::new();
    players_join(&bot, &[("Alice", ALICE)]);
    let mail = deliver(&bot, path);
    let answer = answer_to(&mail, ALICE);
    assert_eq!(reported_lines(answer), commands, "{}", answer.body);
    assert!(!answer.body.contains("Not understood"), "{}", answer.body);
    assert!(!answer.body.contains("Commands under"), "{}", answer.body);
    bot
}

// --- Item 3: quoting styles and attribution lines -------------------------

#[test]
fn mutt_bottom_posted_and_interleaved_lines_are_read_and_its_quotes_are_not() {
    // "On ..., nomicbot wrote:", "> " quotes (the bot's signature among them),
    // the player's lines below and between them, then eir own signature.
    let bot = alice_replies("quoting/mutt.eml", &["rename Alicia", "players"]);
    assert_eq!(player_names(&bot), ["Alicia"]);
}

#[test]
fn s_nail_tab_quotes_are_not_commands() {
    // s-nail's "%f wrote:" attribution and its tab-indented quote, the bot's
    // signature "\t-- " in it, then the commands below.
    let bot = alice_replies("quoting/s-nail.eml", &["rename Alicia", "players"]);
    assert_eq!(player_names(&bot), ["Alicia"]);
}

#[test]
fn thunderbird_reply_below_the_quote_is_read() {
    let bot = alice_replies("quoting/thunderbird.eml", &["rename Alicia"]);
    assert_eq!(player_names(&bot), ["Alicia"]);
}

#[test]
fn outlook_from_sent_block_ends_the_reply() {
    // The original follows Outlook's "From: ... Sent: ..." block unquoted.
    let bot = alice_replies("quoting/outlook.eml", &["rename Alicia"]);
    assert_eq!(player_names(&bot), ["Alicia"]);
}

#[test]
fn gmail_wrapped_attribution_and_quote_are_not_commands() {
    let bot = alice_replies("quoting/gmail.eml", &["rename Alicia", "players"]);
    assert_eq!(player_names(&bot), ["Alicia"]);
}

#[test]
fn apple_mail_device_signature_and_quoted_attribution_are_not_commands() {
    // "Sent from my iPhone" above a quote whose first line is the attribution.
    let bot = alice_replies("quoting/apple-mail.eml", &["rename Alicia"]);
    assert_eq!(player_names(&bot), ["Alicia"]);
}

// --- Item 4: the list's footer -----------------------------------------------

#[test]
fn mailman_footer_is_not_read() {
    let bot = LocalBot::new();
    players_join(&bot, &[("Alice", ALICE)]);
    let mail = deliver(&bot, "footers/mailman.eml");
    let answer = answer_to(&mail, ALICE);
    assert_eq!(
        reported_lines(answer),
        ["rename Alicia", "players"],
        "{}",
        answer.body
    );
    assert!(!answer.body.contains("Not understood"), "{}", answer.body);
}

#[test]
fn groups_io_footer_gives_no_not_understood_lines() {
    let bot = bot_with(&[
        ("list", "\"game-list@groups.io\""),
        ("# list_id", "\"game-list.groups.io\""),
    ]);
    players_join(&bot, &[("Alice", ALICE)]);
    let mail = deliver(&bot, "footers/groups-io.eml");
    let answer = answer_to(&mail, ALICE);
    assert_eq!(
        reported_lines(answer),
        ["rename Alicia", "players"],
        "{}",
        answer.body
    );
    assert!(!answer.body.contains("Not understood"), "{}", answer.body);
    assert!(answer.body.contains("(on the list)"), "{}", answer.body);
    assert_eq!(player_names(&bot), ["Alicia"]);
}

#[test]
fn mlmmj_footer_after_a_base64_body_is_decoded_and_stripped() {
    // mlmmj appends control/footer to the raw post, after the encoded lines.
    let bot = LocalBot::new();
    players_join(&bot, &[("Alice", ALICE)]);
    let mail = deliver(&bot, "footers/mlmmj-base64.eml");
    let answer = answer_to(&mail, ALICE);
    assert_eq!(
        reported_lines(answer),
        ["rename Zoë", "players"],
        "{}",
        answer.body
    );
    assert!(!answer.body.contains("Not understood"), "{}", answer.body);
    assert_eq!(player_names(&bot), ["Zoë"]);
}

#[test]
fn mlmmj_footer_after_a_plain_body_ends_reading_at_its_configured_first_line() {
    // The operator's control/footer has no mark a reader could guess: its first
    // line goes into [list] footer_markers, beside the defaults.
    let markers = "[\"_______________________________________________\", \
        \"-=-=-=-=-=-=-=-=-=-=-=-\", \"~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\"]";
    let bot = bot_with(&[("footer_markers", markers)]);
    players_join(&bot, &[("Alice", ALICE)]);
    let mail = deliver(&bot, "footers/mlmmj-plain.eml");
    let answer = answer_to(&mail, ALICE);
    assert_eq!(
        reported_lines(answer),
        ["rename Zoë", "players"],
        "{}",
        answer.body
    );
    assert!(!answer.body.contains("Not understood"), "{}", answer.body);

    // Without the marker, the footer's lines are read (and not understood).
    let bot = LocalBot::new();
    players_join(&bot, &[("Alice", ALICE)]);
    let mail = deliver(&bot, "footers/mlmmj-plain.eml");
    let answer = answer_to(&mail, ALICE);
    assert!(answer.body.contains("Not understood"), "{}", answer.body);
}

// --- Item 5: chatter in a tagged thread --------------------------------------

#[test]
fn chatter_in_a_tagged_thread_gets_no_answer() {
    let bot = LocalBot::new();
    players_join(
        &bot,
        &[
            ("Alice", ALICE),
            ("Bob", "bob@example.org"),
            ("Carol", CAROL),
        ],
    );
    let events_before = bot.log_json().len();
    let mail_before = bot.sent().len();
    let mail = deliver(&bot, "chatter/prose-reply.eml");
    assert!(mail.is_empty(), "no answer to chatter: {mail:#?}");
    assert_eq!(bot.sent().len(), mail_before, "no mail at all");
    assert_eq!(bot.log_json().len(), events_before, "nothing happened");
    let aside = bot.inbox_with_status("aside");
    assert!(aside.contains("chatter"), "{aside}");
}

#[test]
fn chatter_answer_short_is_one_line_without_the_help() {
    let bot = bot_with(&[("chatter_answer", "\"short\"")]);
    players_join(&bot, &[("Carol", CAROL)]);
    let mail = deliver(&bot, "chatter/prose-reply.eml");
    let answer = answer_to(&mail, CAROL);
    assert_eq!(mail.len(), 1, "{mail:#?}");
    assert!(
        answer
            .body
            .contains("reads as a [nomic] command, so nothing was done"),
        "{}",
        answer.body
    );
    assert!(!answer.body.contains("Not understood"), "{}", answer.body);
    assert!(!answer.body.contains("Commands under"), "{}", answer.body);
    let text = answer.body.split("\n-- \n").next().unwrap_or_default();
    assert_eq!(text.trim().lines().count(), 1, "{}", answer.body);
}

/// A reply from Carol whose lines are all not understood, one of them an
/// attempt at a command: answered line by line, with the help.
fn carol_gets_the_help(path: &str, attempt: &str) {
    let bot = LocalBot::new();
    players_join(&bot, &[("Carol", CAROL)]);
    let mail = deliver(&bot, path);
    let answer = answer_to(&mail, CAROL);
    assert!(reported_lines(answer).contains(&attempt), "{}", answer.body);
    assert!(answer.body.contains("Not understood"), "{}", answer.body);
    assert!(
        answer.body.contains("Commands under [nomic]"),
        "{}",
        answer.body
    );
}

#[test]
fn chatter_a_reply_with_a_slip_in_a_command_gets_the_help() {
    carol_gets_the_help("chatter/typo-reply.eml", "gvie 2 A$ to Bob");
}

#[test]
fn chatter_a_reply_with_a_malformed_command_gets_the_help() {
    carol_gets_the_help("chatter/usage-reply.eml", "give 2 to Bob");
}

#[test]
fn chatter_a_reply_that_asks_for_help_gets_it() {
    let bot = LocalBot::new();
    let mail = deliver(&bot, "chatter/help-reply.eml");
    let answer = answer_to(&mail, DAVE);
    assert!(
        answer.body.contains("Commands under [nomic]"),
        "{}",
        answer.body
    );
}

/// Every file under `tests/corpus/`, as `folder/name`: each has its test above,
/// so a file added without one fails here (and an empty folder cannot pass).
#[test]
fn every_corpus_file_has_its_test() {
    let mut files = Vec::new();
    for folder in std::fs::read_dir(corpus_dir()).expect("tests/corpus") {
        let folder = folder.expect("a folder").path();
        for file in std::fs::read_dir(&folder).expect("a corpus folder") {
            let file = file.expect("a file").path();
            files.push(format!(
                "{}/{}",
                folder.file_name().unwrap_or_default().to_string_lossy(),
                file.file_name().unwrap_or_default().to_string_lossy()
            ));
        }
    }
    files.sort();
    assert_eq!(
        files,
        [
            "chatter/help-reply.eml",
            "chatter/prose-reply.eml",
            "chatter/typo-reply.eml",
            "chatter/usage-reply.eml",
            "footers/groups-io.eml",
            "footers/mailman.eml",
            "footers/mlmmj-base64.eml",
            "footers/mlmmj-plain.eml",
            "lists/mailman3-munged-with-own-reply-to.eml",
            "lists/mailman3-munged.eml",
            "lists/mailman3-wrapped-own.eml",
            "lists/mailman3-wrapped.eml",
            "lists/mlmmj-precedence-bulk.eml",
            "quoting/apple-mail.eml",
            "quoting/gmail.eml",
            "quoting/mutt.eml",
            "quoting/outlook.eml",
            "quoting/s-nail.eml",
            "quoting/thunderbird.eml",
        ]
    );
}
