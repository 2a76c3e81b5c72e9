//! A complete game of Ghost through the real servers: the referee starts it for
//! four players by SMTP, every play goes to the list by SMTP, the bot reads them
//! over IMAP and announces every turn; the game runs through both kinds of protest
//! and a resignation to a winner, and ends with the rewards in the accounts and the
//! referee's report in the list mailbox, read back over IMAP.

use crate::e2e::ImapBot;
use crate::support::SentMail;

fn from_bot(raw: &str) -> bool {
    raw.contains("X-Nomicbot:")
}

/// Sends one message on the list and has the bot take it: waits until the bot's
/// mailbox holds `count` messages, then runs one pass.
async fn play(bot: &ImapBot, from: &str, body: &str, count: &mut usize) {
    *count += 1;
    bot.send(from, true, "[ghost]", &format!("g{count}"), body)
        .await;
    let got = bot.wait_for(&bot.bot(), *count, |_| true).await;
    assert!(got.len() >= *count, "message {count} did not arrive");
    let out = bot.cli(&["once"]);
    assert!(out.contains("applied 1"), "{body:?}: {out}");
}

fn ghost_state(bot: &ImapBot) -> serde_json::Value {
    serde_json::from_str(&bot.cli(&["state", "ghost", "--json"])).expect("json")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_four_player_game_of_ghost_by_mail_ends_with_a_winner_paid_and_the_referees_report() {
    let bot = ImapBot::new("ghost");
    let referee = bot.player("mod");
    let names = ["Alice", "Bob", "Carol", "Dave"];
    let mut count = 0;
    for (who, name) in std::iter::once(("mod", "Mod")).chain(names.map(|n| (n, n))) {
        count += 1;
        bot.send(
            &bot.player(&who.to_lowercase()),
            true,
            &format!("[nomic] join {name}"),
            &format!("j{count}"),
            "",
        )
        .await;
    }
    bot.wait_for(&bot.bot(), count, |_| true).await;
    bot.cli(&["once"]);

    play(
        &bot,
        &referee,
        "start with Alice, Bob, Carol, Dave",
        &mut count,
    )
    .await;
    let state = ghost_state(&bot);
    let seats: Vec<String> = state["instances"][0]["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|s| s["name"].as_str().expect("name").to_owned())
        .collect();
    assert_eq!(seats.len(), 4, "{state}");
    let mut sorted = seats.clone();
    sorted.sort();
    assert_eq!(sorted, names, "each player got a number");
    let p = |n: usize| bot.player(&seats[n - 1].to_lowercase());

    // 1..4: S, SP, SPR, SPRQ.
    play(&bot, &p(1), "s", &mut count).await;
    play(&bot, &p(2), "sp", &mut count).await;
    play(&bot, &p(3), "play spr", &mut count).await;
    play(&bot, &p(4), "sprq", &mut count).await;
    // Player 1 protests that SPRQ is inside no word; player 4 answers with a word
    // that is none: the protest is valid and player 4 is out.
    play(&bot, &p(1), "protest not inside", &mut count).await;
    play(&bot, &p(4), "word sprqat", &mut count).await;
    // The word was destroyed; the turn after the protester's: player 2 begins anew.
    play(&bot, &p(2), "t", &mut count).await;
    // Player 3 protests that T is a word of four or more letters: invalid, out.
    play(&bot, &p(3), "protest word", &mut count).await;
    // Then player 1 (player 4 is out), then player 2 resigns: player 1 wins.
    play(&bot, &p(1), "ta", &mut count).await;
    play(&bot, &p(2), "resign", &mut count).await;

    let state = ghost_state(&bot);
    let instance = &state["instances"][0];
    assert_eq!(instance["winner"], 1, "{instance}");

    let list: Vec<SentMail> = bot
        .wait_for(&bot.list(), 1, |raw| {
            from_bot(raw) && raw.contains("REFEREE'S REPORT")
        })
        .await
        .iter()
        .map(|raw| SentMail::parse(raw))
        .collect();
    assert_eq!(list.len(), 1, "one referee's report on the list");
    let report = &list[0];
    assert!(
        report.subject.contains(&format!("{} wins", seats[0])),
        "{}",
        report.subject
    );
    for expected in [
        format!("{} is the only player left in Ghost 1, and wins.", seats[0]),
        "4 players began the game".to_owned(),
        "8 A$".to_owned(),
        "4 points".to_owned(),
    ] {
        assert!(
            report.body.contains(&expected),
            "{expected:?} in {}",
            report.body
        );
    }
    // Every turn change was announced on the list with whose turn it is.
    let turns: Vec<SentMail> = bot
        .mailbox_of(&bot.list())
        .await
        .iter()
        .filter(|raw| from_bot(raw))
        .map(|raw| SentMail::parse(raw))
        .filter(|m| m.subject.contains("'s turn"))
        .collect();
    assert!(turns.len() >= 8, "{} turn announcements", turns.len());
    assert!(
        turns.iter().any(|m| m.subject.contains("ghost word SPRQ")),
        "{:?}",
        turns.iter().map(|m| &m.subject).collect::<Vec<_>>()
    );

    let accounts: serde_json::Value =
        serde_json::from_str(&bot.cli(&["state", "accounts", "--json"])).expect("json");
    let players: serde_json::Value =
        serde_json::from_str(&bot.cli(&["state", "players", "--json"])).expect("json");
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
        balance(&seats[0], "points").as_deref(),
        Some("4"),
        "{accounts}"
    );
    for loser in &seats[1..] {
        assert_eq!(balance(loser, "points"), None, "{loser}: {accounts}");
    }

    // The record stands: the event log folds to the same state, and the numbering
    // draw re-runs from the published seed.
    assert!(bot.cli(&["replay"]).contains("equals the live state"));
    let verified = bot.cli(&["verify-random"]);
    assert!(
        verified.contains("seed matches its commitment; 1 draw(s) re-run, all as recorded"),
        "{verified}"
    );
}
