//! A Ghost Duel through the real servers: the players join by SMTP, Carol
//! posts Alice's challenge to Bob on the list, Dave answers for Bob with Ghost,
//! the bot starts the Ghost Duel by itself (rule 1215 §2, rule 103's duel
//! form) and, when it ends, ends the duel with the points of both games; the
//! announcements are read back over IMAP from the list's mailbox.

use crate::e2e::ImapBot;
use crate::support::SentMail;

fn from_bot(raw: &str) -> bool {
    raw.contains("X-Nomicbot:")
}

/// Sends one message on the list under `tag` and has the bot take it.
async fn post(bot: &ImapBot, from: &str, tag: &str, body: &str, count: &mut usize) {
    *count += 1;
    bot.send(from, true, tag, &format!("d{count}"), body).await;
    let got = bot.wait_for(&bot.bot(), *count, |_| true).await;
    assert!(got.len() >= *count, "message {count} did not arrive");
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 1"), "{body:?}: {out}");
}

fn state(bot: &ImapBot, part: &str) -> serde_json::Value {
    serde_json::from_str(&bot.cli(&["state", part, "--json"])).expect("json")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_ghost_duel_by_mail_ends_the_duel_with_both_games_points() {
    let bot = ImapBot::new("duel");
    let mut count = 0;
    for (who, name) in [
        ("mod", "Mod"),
        ("alice", "Alice"),
        ("bob", "Bob"),
        ("carol", "Carol"),
        ("dave", "Dave"),
    ] {
        count += 1;
        bot.send(
            &bot.player(who),
            true,
            &format!("[nomic] join {name}"),
            &format!("j{count}"),
            "",
        )
        .await;
    }
    bot.wait_for(&bot.bot(), count, |_| true).await;
    bot.cli(&["once"]);

    post(
        &bot,
        &bot.player("carol"),
        "[duel]",
        "Alice challenges Bob because he called my proposal a loophole",
        &mut count,
    )
    .await;
    post(
        &bot,
        &bot.player("alice"),
        "[duel]",
        "commit 1: if I lose, I will withdraw my proposal",
        &mut count,
    )
    .await;
    post(
        &bot,
        &bot.player("dave"),
        "[duel]",
        "accept 1 with Ghost",
        &mut count,
    )
    .await;
    let ghosts = state(&bot, "ghost");
    let instance = &ghosts["instances"][0];
    assert_eq!(instance["duel"], true, "{ghosts}");
    assert_eq!(instance["origin"], "duel:1", "{ghosts}");

    // Bob leaves the Ghost Duel: Alice, the last in it, wins, and so wins the duel.
    post(&bot, &bot.player("bob"), "[ghost]", "resign", &mut count).await;
    let duels = state(&bot, "duel");
    assert_eq!(duels["duels"][0]["end"]["kind"], "won", "{duels}");

    let results: Vec<SentMail> = bot
        .wait_for(&bot.list(), 1, |raw| {
            from_bot(raw) && raw.contains("Duel 1: Alice wins")
        })
        .await
        .iter()
        .map(|raw| SentMail::parse(raw))
        .collect();
    assert_eq!(results.len(), 1, "one result of the duel on the list");
    for expected in [
        "Alice: +6 points",
        "Bob: -6 points",
        "Carol: +3 points",
        "Dave: -3 points",
        "Alice: if I lose, I will withdraw my proposal",
    ] {
        assert!(
            results[0].body.contains(expected),
            "{expected:?} in {}",
            results[0].body
        );
    }
    let challenges = bot
        .wait_for(&bot.list(), 1, |raw| {
            from_bot(raw) && raw.contains("Duel 1: Alice challenges Bob")
        })
        .await;
    assert_eq!(challenges.len(), 1, "the challenge was announced");

    // Rule 103's referee fee for the Ghost Duel, on top of the duel's points.
    let accounts = state(&bot, "accounts");
    let players = state(&bot, "players");
    let id_of = |name: &str| {
        players["players"]
            .as_array()
            .expect("players")
            .iter()
            .find(|p| p["name"] == name)
            .map(|p| p["id"].clone())
            .expect("id")
    };
    let balance = |name: &str, currency: &str| {
        accounts["balances"]
            .as_array()
            .expect("balances")
            .iter()
            .find(|b| b["currency"] == currency && b["holder"]["player"] == id_of(name))
            .map(|b| b["amount"].as_str().unwrap_or("").to_owned())
    };
    assert_eq!(balance("Mod", "A$").as_deref(), Some("8"), "{accounts}");
    assert_eq!(
        balance("Alice", "points").as_deref(),
        Some("6"),
        "{accounts}"
    );
    assert_eq!(
        balance("Bob", "points").as_deref(),
        Some("-6"),
        "{accounts}"
    );
    assert!(bot.cli(&["replay"]).contains("equals the live state"));
}
