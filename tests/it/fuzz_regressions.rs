//! What the fuzz targets (`fuzz/`, `nomicbot::fuzzing`) found, each input as
//! `cargo fuzz tmin` shortened it, and what a player or the operator sees of it
//! now. Each test names what was wrong.

use jiff::{SignedDuration, Timestamp};

use crate::support::{LocalBot, at, message};

const LIST: &str = "game-list@nomic.example";

fn t0() -> Timestamp {
    at("2026-03-02T10:00:00Z")
}

/// Delivers `raw` and then an ordinary `[nomic] players` from Alice, runs one
/// pass, and returns the bot: every message must be accounted for (applied, or
/// kept aside with the reason) and Alice answered, whatever `raw` did.
fn after(raw: &[u8]) -> LocalBot {
    let local = LocalBot::new();
    local.deliver("fuzzed", &String::from_utf8_lossy(raw), t0());
    local.deliver(
        "after",
        &message(
            "Alice <alice@players.test>",
            LIST,
            "[nomic] players",
            "after@players.test",
            "",
        ),
        t0() + SignedDuration::from_secs(1),
    );
    local.once(t0() + SignedDuration::from_mins(5));
    let bot = local.open();
    let rows = bot.store.inbox(None).expect("inbox");
    assert_eq!(rows.len(), 2, "{rows:?}");
    for row in &rows {
        match row.status {
            nomicbot::store::InboxStatus::Applied => {}
            _ => assert!(
                row.reason.as_deref().is_some_and(|r| !r.is_empty()),
                "neither applied nor kept aside with a reason: {row:?}"
            ),
        }
    }
    let answered = local
        .sent_mail()
        .iter()
        .any(|mail| mail.is_to("alice@players.test") && mail.subject.contains("players"));
    assert!(answered, "the message after it was not answered");
    drop(bot);
    local
}

/// intake: a multipart whose boundary is `-`, its part a message/rfc822 holding
/// another, trips a `debug_assert!` in mail-parser 0.11.9 (message.rs:485,
/// "Invalid part ID, could not find multipart"). A release build reads on; a
/// debug build's panic is caught by `mail::parse`. Either way nothing stops.
#[test]
fn a_nested_rfc822_part_that_trips_a_mail_parser_assertion_stops_nothing() {
    let raw = b"0\nContent-Type:multipart/;boundary=-\n\n---Content-Type:message/rfc822\n\n\
                Content-Type: message/rfc822\n\n\n-----_";
    after(raw);
}
