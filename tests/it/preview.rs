//! Issue 24, item 14: `preview` as the first line of a message, under any tag,
//! answers privately what each following line would do now, and does none of
//! it: the state and the event log are the same after as before, and nothing
//! hidden (a sealed vote, a count, a copy for an officer) shows in the answer.

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

/// The trusting config with `mod@` as the moderator.
fn moderated() -> String {
    crate::support::trusting().replace(
        "moderators = []",
        &format!("moderators = [\"{MODERATOR}\"]"),
    )
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

/// Alice, Bob and Carol join on the list, a minute apart from `t0`.
fn three_players(bot: &LocalBot) {
    for (n, name) in ["Alice", "Bob", "Carol"].iter().enumerate() {
        let address = format!("{}@nomic.example", name.to_lowercase());
        send(
            bot,
            &format!("join-{name}"),
            &address,
            LIST,
            &format!("[nomic] join {name}"),
            "",
            t0() + mins(n as i64),
        );
    }
}

/// The private answer to the message `id`.
fn answer_to(bot: &LocalBot, id: &str) -> SentMail {
    let wanted = format!("{id}@players.test");
    let answers: Vec<SentMail> = bot
        .sent_mail()
        .into_iter()
        .filter(|mail| mail.in_reply_to.as_deref() == Some(wanted.as_str()) && !mail.is_to(LIST))
        .collect();
    assert_eq!(answers.len(), 1, "one answer to {id}: {answers:#?}");
    answers.into_iter().next().expect("the answer")
}

/// What the bot holds, and has recorded, right now.
fn snapshot(bot: &LocalBot) -> (serde_json::Value, usize) {
    (bot.state_json(), bot.log_json().len())
}

#[test]
fn issue_24_item_14_a_preview_under_nomic_shows_each_line_and_changes_nothing() {
    let bot = LocalBot::with_config(&moderated());
    three_players(&bot);
    bot.once(t0() + mins(5));
    let before = snapshot(&bot);
    let sent_before = bot.sent().len();
    send(
        &bot,
        "preview-rename",
        "alice@nomic.example",
        BOT,
        "[nomic] a new name",
        "preview\nrename Alicia\njoin Bob\ndance a jig",
        t0() + mins(10),
    );
    bot.once(t0() + mins(11));
    assert_eq!(
        snapshot(&bot),
        before,
        "a preview changes no state, records no event"
    );
    assert_eq!(
        bot.sent().len(),
        sent_before + 1,
        "one private answer, nothing else"
    );
    let answer = answer_to(&bot, "preview-rename");
    assert_eq!(answer.to, ["alice@nomic.example"]);
    assert!(answer.subject.contains("Preview"), "{}", answer.subject);
    let body = &answer.body;
    assert!(body.contains("Nothing below has happened"), "{body}");
    assert!(body.contains("> rename Alicia"), "{body}");
    assert!(
        body.contains("Would be done. You are now called Alicia"),
        "{body}"
    );
    // The announcement it would send, to whom, and what it says.
    assert!(body.contains("It would send to the list:"), "{body}");
    assert!(body.contains("Alicia"), "{body}");
    assert!(body.contains("> join Bob"), "{body}");
    assert!(body.contains("Refused: you are already a player"), "{body}");
    assert!(body.contains("Not understood"), "{body}");
    // The inbox says it was a preview.
    let applied = bot.inbox_with_status("applied");
    assert!(
        applied.contains("preview: answered with what it would do; nothing was applied"),
        "{applied}"
    );
    // Sent for real, the same lines do what the preview said.
    send(
        &bot,
        "rename",
        "alice@nomic.example",
        BOT,
        "[nomic] a new name",
        "rename Alicia",
        t0() + mins(20),
    );
    bot.once(t0() + mins(21));
    assert_ne!(snapshot(&bot), before);
    assert!(
        answer_to(&bot, "rename")
            .body
            .contains("You are now called Alicia")
    );
}

#[test]
fn issue_24_item_14_a_preview_on_the_list_is_answered_privately_and_announces_nothing() {
    let bot = LocalBot::with_config(&moderated());
    three_players(&bot);
    bot.once(t0() + mins(5));
    let before = snapshot(&bot);
    let sent_before = bot.sent().len();
    send(
        &bot,
        "preview-public",
        "bob@nomic.example",
        LIST,
        "[nomic] preview",
        "rename Robert",
        t0() + mins(10),
    );
    bot.once(t0() + mins(11));
    assert_eq!(snapshot(&bot), before);
    let sent: Vec<SentMail> = bot.sent_mail().into_iter().skip(sent_before).collect();
    assert_eq!(sent.len(), 1, "{sent:#?}");
    assert_eq!(sent[0].to, ["bob@nomic.example"], "never to the list");
    assert!(
        sent[0].body.contains("always answered privately"),
        "{}",
        sent[0].body
    );
    assert!(
        sent[0].body.contains("You are now called Robert"),
        "{}",
        sent[0].body
    );
}

/// Ballot 1 open, Alice and Bob have voted (yes and no); Carol has not.
fn ballot_with_two_votes() -> LocalBot {
    let bot = LocalBot::with_config(&moderated());
    three_players(&bot);
    send(
        &bot,
        "open",
        MODERATOR,
        LIST,
        "[vote] open Shall we adopt rule 326?",
        "",
        t0() + mins(10),
    );
    send(
        &bot,
        "vote-alice",
        "alice@nomic.example",
        BOT,
        "[vote] yes",
        "",
        t0() + mins(20),
    );
    send(
        &bot,
        "vote-bob",
        "bob@nomic.example",
        BOT,
        "[vote] no",
        "",
        t0() + mins(30),
    );
    bot.once(t0() + mins(40));
    bot
}

#[test]
fn issue_24_item_14_a_previewed_vote_is_sealed_nowhere_and_shows_no_salt() {
    let bot = ballot_with_two_votes();
    let before = snapshot(&bot);
    let sent_before = bot.sent().len();
    send(
        &bot,
        "preview-vote",
        "carol@nomic.example",
        BOT,
        "[vote]",
        "preview\nyes",
        t0() + mins(50),
    );
    bot.once(t0() + mins(51));
    assert_eq!(snapshot(&bot), before, "the vote is not sealed");
    assert_eq!(bot.sent().len(), sent_before + 1);
    let body = answer_to(&bot, "preview-vote").body;
    assert!(body.contains("Your vote on ballot 1 is yes"), "{body}");
    assert!(!body.to_lowercase().contains("salt"), "{body}");
    assert!(!body.contains("commitment"), "{body}");
    assert!(
        !body.contains("It would send"),
        "a vote sends nothing: {body}"
    );
}

#[test]
fn issue_24_item_14_a_moderator_previewing_the_close_of_a_sealed_ballot_sees_no_vote_and_no_count()
{
    let bot = ballot_with_two_votes();
    let before = snapshot(&bot);
    let sent_before = bot.sent().len();
    send(
        &bot,
        "preview-close",
        MODERATOR,
        BOT,
        "[vote]",
        "preview\nclose 1 because we are in a hurry",
        t0() + mins(50),
    );
    bot.once(t0() + mins(51));
    assert_eq!(
        snapshot(&bot),
        before,
        "the ballot stays open, its votes sealed"
    );
    let sent: Vec<SentMail> = bot.sent_mail().into_iter().skip(sent_before).collect();
    assert_eq!(sent.len(), 1, "no reveal, no result: {sent:#?}");
    let body = &sent[0].body;
    assert!(sent[0].is_to(MODERATOR));
    assert!(
        body.contains("> close 1 because we are in a hurry"),
        "{body}"
    );
    assert!(
        body.contains("what it would answer and announce is not shown"),
        "{body}"
    );
    for leak in [
        "Alice",
        "Bob",
        "Yes: 1",
        "No:  1",
        "1 yes",
        "salt",
        "commitment ",
    ] {
        assert!(!body.contains(leak), "the preview shows {leak:?}: {body}");
    }
}

#[test]
fn issue_24_item_14_a_preview_under_ghost_answers_and_starts_nothing() {
    let bot = LocalBot::with_config(&moderated());
    three_players(&bot);
    bot.once(t0() + mins(5));
    let before = snapshot(&bot);
    send(
        &bot,
        "preview-ghost",
        "alice@nomic.example",
        BOT,
        "[ghost]",
        "preview\nstatus\nplay x",
        t0() + mins(10),
    );
    bot.once(t0() + mins(11));
    assert_eq!(snapshot(&bot), before);
    let body = answer_to(&bot, "preview-ghost").body;
    assert!(body.contains("PREVIEW"), "{body}");
    assert!(body.contains("> status"), "{body}");
    assert!(body.contains("> play x"), "{body}");
}

#[test]
fn issue_24_item_14_a_private_rule_tag_action_previewed_reaches_no_moderator() {
    use crate::ruletag::{MODERATOR as RTM, board, on, private};
    let players = ["Ariel", "Earl"];
    let bot = board(
        &players,
        10,
        crate::ruletag::FAR_BALL,
        crate::ruletag::FAR_GOAL,
    );
    bot.once(on(5, 1, 200));
    let before = snapshot(&bot);
    let sent_before = bot.sent().len();
    private(&bot, "Ariel", "preview\nmove from null to 325", on(5, 2, 0));
    bot.once(on(5, 2, 1));
    assert_eq!(snapshot(&bot), before, "Ariel has not moved");
    let sent: Vec<SentMail> = bot.sent_mail().into_iter().skip(sent_before).collect();
    assert_eq!(
        sent.len(),
        1,
        "no copy to the Rule Tag Moderator: {sent:#?}"
    );
    assert!(sent[0].is_to("ariel@nomic.example"));
    assert!(!sent[0].is_to(RTM));
    let body = &sent[0].body;
    assert!(body.contains("> move from null to 325"), "{body}");
    assert!(body.contains("Would be done."), "{body}");
    assert!(
        body.contains("A copy of the answer would go to the moderators"),
        "{body}"
    );
}

#[test]
fn issue_24_item_14_a_preview_of_an_officers_command_is_judged_with_the_same_authentication() {
    // The shipped config believes no unsigned From for an officer's command.
    let config = nomicbot::config::DEFAULT_CONFIG.replace(
        "moderators = []",
        &format!("moderators = [\"{MODERATOR}\"]"),
    );
    let bot = LocalBot::with_config(&config);
    send(
        &bot,
        "forged-preview",
        MODERATOR,
        BOT,
        "[vote]",
        "preview\nopen Shall we?",
        t0(),
    );
    bot.once(t0() + mins(1));
    let aside = bot.inbox_with_status("aside");
    assert!(aside.contains("sender not believed"), "{aside}");
    let previews: Vec<SentMail> = bot
        .sent_mail()
        .into_iter()
        .filter(|mail| mail.subject.contains("Preview"))
        .collect();
    assert!(previews.is_empty(), "{previews:#?}");
}

#[test]
fn issue_24_item_14_a_preview_counts_against_the_daily_bound_of_actions() {
    let config = moderated().replace("max_actions_per_day = 100", "max_actions_per_day = 1");
    let bot = LocalBot::with_config(&config);
    send(
        &bot,
        "join",
        "alice@nomic.example",
        LIST,
        "[nomic] join Alice",
        "",
        t0(),
    );
    send(
        &bot,
        "preview-after",
        "alice@nomic.example",
        BOT,
        "[nomic] preview",
        "rename Alicia",
        t0() + mins(1),
    );
    bot.once(t0() + mins(2));
    let aside = bot.inbox_with_status("aside");
    assert!(aside.contains("max_actions_per_day"), "{aside}");
}

#[test]
fn issue_24_item_14_the_last_vote_of_a_gnomic_turn_previewed_says_a_count_follows_and_shows_no_vote()
 {
    let config = crate::support::gnomic_rules_elsewhere(&moderated());
    let bot = LocalBot::with_config(&config);
    let start = t0();
    for (n, name) in ["Alice", "Bob", "Carol", "Dave"].iter().enumerate() {
        send(
            &bot,
            &format!("join-{name}"),
            &format!("{}@nomic.example", name.to_lowercase()),
            LIST,
            &format!("[nomic] join {name}"),
            "",
            start + mins(n as i64),
        );
    }
    send(
        &bot,
        "start",
        MODERATOR,
        LIST,
        "[gnomic] start",
        "",
        start + mins(5),
    );
    let turn = "hack 301 \"Singing\"\nenact\nPlayers may sing.\nend\n";
    send(
        &bot,
        "turn",
        "alice@nomic.example",
        LIST,
        "[gnomic] turn",
        turn,
        start + mins(10),
    );
    send(
        &bot,
        "bob",
        "bob@nomic.example",
        BOT,
        "[gnomic]",
        "vote 301 for",
        start + mins(20),
    );
    send(
        &bot,
        "carol",
        "carol@nomic.example",
        BOT,
        "[gnomic]",
        "vote 301 against",
        start + mins(21),
    );
    bot.once(start + mins(30));
    let before = snapshot(&bot);
    let sent_before = bot.sent().len();
    send(
        &bot,
        "preview-dave",
        "dave@nomic.example",
        BOT,
        "[gnomic]",
        "preview\nvote 301 for",
        start + mins(40),
    );
    bot.once(start + mins(41));
    assert_eq!(snapshot(&bot), before, "no vote sealed, no count");
    let sent: Vec<SentMail> = bot.sent_mail().into_iter().skip(sent_before).collect();
    assert_eq!(
        sent.len(),
        1,
        "no count, no copy to the proponent: {sent:#?}"
    );
    assert!(sent[0].is_to("dave@nomic.example"));
    let body = &sent[0].body;
    assert!(body.contains("> vote 301 for"), "{body}");
    assert!(body.contains("Would be done."), "{body}");
    // The proponent's copy of the vote (rule 402) is named, not shown.
    assert!(
        body.contains("a private message to another player"),
        "{body}"
    );
    assert!(body.contains("something would fall due at once"), "{body}");
    for leak in ["Bob", "Carol", "against", "adopted", "salt"] {
        assert!(!body.contains(leak), "the preview shows {leak:?}: {body}");
    }
}
