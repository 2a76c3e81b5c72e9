//! Offices by mail (issue 12, item 3): a moderator appoints and dismisses every
//! office the rules name, bot.toml only seeds them; each change is announced
//! with the reason, logged, and undone by a `void`. Its helpers serve the
//! inventory's scenarios too (`inventory.rs`): the same shipped config with a
//! moderator, the same scripts.

use jiff::SignedDuration;

use crate::support::{LocalBot, at, message};

pub const LIST: &str = "game-list@nomic.example";
pub const BOT: &str = "bot@nomic.example";
pub const MODERATOR: &str = "mod@nomic.example";
const ORRT: &str = "orrt@nomic.example";
const RTM: &str = "rtm@nomic.example";

pub fn bot() -> LocalBot {
    let config = crate::support::trusting().replace(
        "moderators = []",
        &format!("moderators = [\"{MODERATOR}\"]"),
    );
    LocalBot::with_config(&config)
}

/// Delivers `(from, to, subject, body)` a minute apart from `start`, each with
/// the Message-ID `<NAME@players.test>` where NAME is the script's index
/// prefixed by `prefix`, and runs one pass.
pub fn play(
    bot: &LocalBot,
    prefix: &str,
    start: jiff::Timestamp,
    script: &[(&str, &str, &str, &str)],
) {
    for (index, (from, to, subject, body)) in script.iter().enumerate() {
        let when = start + SignedDuration::from_mins(index as i64);
        let id = format!("{prefix}{index}@players.test");
        bot.deliver(
            &format!("{prefix}{index}"),
            &message(from, to, subject, &id, body),
            when,
        );
    }
    bot.once(start + SignedDuration::from_hours(1));
}

pub fn replies_to(bot: &LocalBot, address: &str) -> String {
    bot.sent_mail()
        .into_iter()
        .filter(|m| m.is_to(address) && !m.is_to(LIST))
        .map(|m| m.body)
        .collect::<Vec<_>>()
        .join("\n---\n")
}

fn announcements(bot: &LocalBot) -> Vec<(String, String)> {
    bot.sent_mail()
        .into_iter()
        .filter(|m| m.is_to(LIST))
        .map(|m| (m.subject, m.body))
        .collect()
}

fn roster(bot: &LocalBot, asker: &str, when: jiff::Timestamp) -> String {
    let before = replies_to(bot, asker).len();
    bot.deliver(
        &format!("roster-{}", when.as_second()),
        &message(
            asker,
            BOT,
            "[nomic] officers",
            &format!("roster-{}@players.test", when.as_second()),
            "",
        ),
        when,
    );
    bot.once(when + SignedDuration::from_mins(1));
    replies_to(bot, asker)[before..].to_owned()
}

#[test]
fn item3_a_moderator_appoints_and_dismisses_an_officer_by_mail_and_the_office_follows() {
    let bot = bot();
    let start = at("2026-02-02T10:00:00Z");
    play(
        &bot,
        "a",
        start,
        &[
            // Not the officer yet: refused.
            (ORRT, LIST, "[nomic] random start week 1", ""),
            (
                MODERATOR,
                LIST,
                "[nomic]",
                &format!(
                    "appoint Officer in charge of Random Things {ORRT} because Orrt volunteered"
                ),
            ),
            (ORRT, LIST, "[nomic] random start week 2", ""),
        ],
    );
    let orrt = replies_to(&bot, ORRT);
    assert!(
        orrt.contains("only the Officer in charge of Random Things"),
        "{orrt}"
    );
    let public = announcements(&bot);
    let appointed = public
        .iter()
        .find(|(s, _)| s.contains("appointed"))
        .expect("the appointment is announced");
    assert_eq!(
        appointed.0,
        format!("[nomic] Officers: {ORRT} appointed Officer in charge of Random Things")
    );
    assert!(
        appointed.1.contains("Reason given: Orrt volunteered")
            && appointed.1.contains(MODERATOR)
            && appointed
                .1
                .contains(&format!("Officer in charge of Random Things now: {ORRT}")),
        "{appointed:?}"
    );
    assert!(
        public.iter().any(|(s, _)| s.contains("week 2")),
        "the appointed officer started a period: {public:#?}"
    );
    assert!(
        !public.iter().any(|(s, _)| s.contains("week 1")),
        "{public:#?}"
    );
    let listed = roster(&bot, "alice@nomic.example", at("2026-02-02T12:00:00Z"));
    assert!(
        listed.contains(&format!("Officer in charge of Random Things: {ORRT}")),
        "{listed}"
    );

    // Dismissed: the office is vacant (the moderators hold it) and Orrt's next
    // draw is refused.
    play(
        &bot,
        "b",
        at("2026-02-02T13:00:00Z"),
        &[
            (
                MODERATOR,
                BOT,
                "[nomic]",
                &format!("dismiss officer in charge of random things {ORRT} because Orrt is away"),
            ),
            (ORRT, LIST, "[nomic] random end", ""),
        ],
    );
    let public = announcements(&bot);
    let dismissed = public
        .iter()
        .find(|(s, _)| s.contains("dismissed"))
        .expect("the dismissal is announced");
    assert!(
        dismissed.1.contains("now vacant") && dismissed.1.contains("Reason given: Orrt is away"),
        "{dismissed:?}"
    );
    let orrt = replies_to(&bot, ORRT);
    assert_eq!(
        orrt.matches("only the Officer in charge of Random Things")
            .count(),
        2,
        "{orrt}"
    );
    let log = bot.log_json();
    let kinds: Vec<&str> = log
        .iter()
        .filter(|r| r["event"]["game"] == "offices")
        .filter_map(|r| r["event"]["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["appointed", "dismissed"]);
    let replay = bot.cli_ok(&["replay"]);
    assert!(replay.contains("equals the live state"), "{replay}");
}

#[test]
fn item3_the_rule_tag_moderator_is_appointed_by_mail_and_bot_toml_only_seeds_it() {
    let bot = bot();
    play(
        &bot,
        "a",
        at("2026-02-02T10:00:00Z"),
        &[
            ("alice@nomic.example", LIST, "[nomic] join Alice", ""),
            ("bob@nomic.example", LIST, "[nomic] join Bob", ""),
            (RTM, LIST, "[rule tag] start", ""),
            (
                MODERATOR,
                LIST,
                "[nomic]",
                &format!("appoint rule tag moderator {RTM} because Rita knows the game"),
            ),
            (RTM, LIST, "[rule tag] start", ""),
        ],
    );
    // Refused for want of the office before; after, the office is no longer
    // the reason (the game wants its rules imported first).
    let rtm = replies_to(&bot, RTM);
    assert_eq!(
        rtm.matches("only the Rule Tag Moderator").count(),
        1,
        "{rtm}"
    );
    assert!(rtm.contains("Import or enact the rules first"), "{rtm}");
    let public = announcements(&bot);
    assert!(
        public
            .iter()
            .any(|(s, b)| s.contains("appointed Rule Tag Moderator")
                && b.contains(&format!("Rule Tag Moderator now: {RTM}."))),
        "the first appointment replaces the moderator standing in: {public:#?}"
    );
    let listed = roster(&bot, "alice@nomic.example", at("2026-02-02T12:00:00Z"));
    assert!(
        listed.contains(&format!("Rule Tag Moderator: {RTM}")),
        "{listed}"
    );
}

#[test]
fn item3_only_a_moderator_appoints_and_never_a_moderator() {
    let bot = bot();
    play(
        &bot,
        "a",
        at("2026-02-02T10:00:00Z"),
        &[
            ("alice@nomic.example", LIST, "[nomic] join Alice", ""),
            // A player, and a sender forging nothing but asking all the same.
            (
                "alice@nomic.example",
                LIST,
                "[nomic]",
                "appoint Wrangler alice@nomic.example because I deserve it",
            ),
            (
                MODERATOR,
                BOT,
                "[nomic]",
                "appoint Moderator alice@nomic.example because she asked\n\
                 appoint Grand Poobah Alice because it sounds fun\n\
                 appoint Wrangler Alice\n\
                 appoint Wrangler Alice because she is fair\n\
                 appoint Wrangler alice@nomic.example because twice",
            ),
        ],
    );
    let alice = replies_to(&bot, "alice@nomic.example");
    assert!(alice.contains("only a moderator may do that"), "{alice}");
    let moderator = replies_to(&bot, MODERATOR);
    assert!(
        moderator.contains("the moderators are named in bot.toml only"),
        "{moderator}"
    );
    assert!(
        moderator.contains("no office called \"Grand Poobah\"")
            && moderator.contains("Rule Tag Moderator")
            && moderator.contains("Wrangler"),
        "{moderator}"
    );
    assert!(
        moderator.contains("appoint OFFICE ADDRESS because REASON"),
        "{moderator}"
    );
    assert!(
        moderator.contains("alice@nomic.example is now Wrangler")
            && moderator.contains("alice@nomic.example is Wrangler already"),
        "{moderator}"
    );
    let appointments = bot
        .log_json()
        .iter()
        .filter(|r| r["event"]["game"] == "offices")
        .count();
    assert_eq!(appointments, 1);
}

#[test]
fn item3_a_void_of_the_appointing_message_undoes_the_appointment() {
    let bot = bot();
    play(
        &bot,
        "a",
        at("2026-02-02T10:00:00Z"),
        &[(
            MODERATOR,
            LIST,
            "[nomic]",
            &format!("appoint Officer in charge of Random Things {ORRT} because a trial"),
        )],
    );
    play(
        &bot,
        "b",
        at("2026-02-02T12:00:00Z"),
        &[
            (
                MODERATOR,
                LIST,
                "[nomic]",
                "void <a0@players.test> because the trial is over",
            ),
            (ORRT, LIST, "[nomic] random start week 3", ""),
        ],
    );
    let orrt = replies_to(&bot, ORRT);
    assert!(
        orrt.contains("only the Officer in charge of Random Things"),
        "{orrt}"
    );
    let listed = roster(&bot, "alice@nomic.example", at("2026-02-02T14:00:00Z"));
    assert!(!listed.contains(ORRT), "{listed}");
    let replay = bot.cli_ok(&["replay"]);
    assert!(replay.contains("equals the live state"), "{replay}");
}

#[test]
fn item3_an_unauthenticated_appointment_is_not_carried_out() {
    // A forged From naming the moderator: with authentication on, the bot
    // refuses what needed the office. Here the forged mail comes without the
    // moderator's passphrase once one is set.
    let bot = bot();
    play(
        &bot,
        "a",
        at("2026-02-02T10:00:00Z"),
        &[(
            MODERATOR,
            BOT,
            "[nomic]",
            "passphrase set correct horse battery",
        )],
    );
    let code = crate::support::passphrase_code(&bot, MODERATOR);
    play(
        &bot,
        "a-confirm",
        at("2026-02-02T11:00:00Z"),
        &[(
            MODERATOR,
            BOT,
            "[nomic]",
            &format!("passphrase confirm {code}"),
        )],
    );
    play(
        &bot,
        "b",
        at("2026-02-02T12:00:00Z"),
        &[(
            MODERATOR,
            LIST,
            "[nomic]",
            &format!("appoint Wrangler {ORRT} because forged"),
        )],
    );
    assert!(
        !bot.log_json()
            .iter()
            .any(|r| r["event"]["game"] == "offices"),
        "a forged appointment changed nothing"
    );
    // The moderator's own, privately with the passphrase, is carried out.
    play(
        &bot,
        "c",
        at("2026-02-02T14:00:00Z"),
        &[(
            MODERATOR,
            BOT,
            "[nomic]",
            &format!("passphrase: correct horse battery\nappoint Wrangler {ORRT} because genuine"),
        )],
    );
    let log = bot.log_json();
    let appointed: Vec<&serde_json::Value> = log
        .iter()
        .filter(|r| r["event"]["game"] == "offices")
        .collect();
    assert_eq!(appointed.len(), 1, "{appointed:?}");
    assert_eq!(appointed[0]["event"]["reason"], "genuine");
    assert_eq!(
        announcements(&bot)
            .iter()
            .filter(|(s, _)| s.contains("appointed"))
            .count(),
        1,
        "only the genuine appointment is announced"
    );
}
