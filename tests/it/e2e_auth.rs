//! Sender authentication end to end (issue 23, items 1 and 3): really
//! DKIM-signed mail (mail-auth, the test keys) sent by SMTP through the real
//! Postfix, delivered by Dovecot, read by the bot binary over IMAP, under the
//! shipped `auth = "dkim"` with the test keys pinned (`dkim_keys`, no DNS).

use crate::auth::{MODERATOR, keys_file, mail, signed};
use crate::e2e::ImapBot;

/// A moderator whose address is of the list's own signing domain.
const BOSS: &str = "boss@nomic.example";

fn game(name: &str) -> ImapBot {
    let bot = ImapBot::new(name);
    bot.set_identity(&format!(
        "[identity]\nauth = \"dkim\"\ndkim_keys = {:?}\ndns = false\nlist_dkim_domain = \"nomic.example\"\n",
        keys_file().display().to_string()
    ));
    let config = std::fs::read_to_string(bot.config_path()).expect("bot.toml");
    let moderators = config
        .lines()
        .find(|line| line.starts_with("moderators = "))
        .expect("a moderators line")
        .to_owned();
    std::fs::write(
        bot.config_path(),
        config.replace(
            &moderators,
            &format!("moderators = [\"{MODERATOR}\", \"{BOSS}\"]"),
        ),
    )
    .expect("bot.toml");
    bot
}

/// Sends a raw message by SMTP to the bot.
async fn send(bot: &ImapBot, from: &str, raw: &str) {
    bot.smtp()
        .send(from, &[bot.bot()], raw.as_bytes())
        .await
        .expect("smtp send");
}

fn balance_of(state: &str, name: &str) -> Option<String> {
    let state: serde_json::Value = serde_json::from_str(state).expect("state --json");
    let id = state["players"]["players"]
        .as_array()?
        .iter()
        .find(|p| p["name"] == name)?["id"]
        .clone();
    state["accounts"]["balances"]
        .as_array()?
        .iter()
        .find(|b| b["holder"]["player"] == id && b["currency"] == "A$")
        .and_then(|b| b["amount"].as_str().map(str::to_owned))
}

#[tokio::test(flavor = "multi_thread")]
async fn forged_authentication_results_and_the_lists_own_signature_gain_no_office_through_real_postfix()
 {
    let bot = game("auth");
    let alice = bot.player("alice");
    let to = bot.bot();
    let list = bot.list();
    let private = |from: &str, subject: &str, id: &str, body: &str| {
        mail(
            &[
                ("From", from),
                ("To", &to),
                ("Subject", subject),
                ("Message-ID", &format!("<{id}-{}@players.test>", bot.name)),
            ],
            body,
        )
    };
    // The moderator joins and pays Alice with really signed mail.
    send(
        &bot,
        MODERATOR,
        &signed(
            &private(MODERATOR, "[nomic] join", "j-mod", "join Mod"),
            "mod.example",
        ),
    )
    .await;
    send(
        &bot,
        &alice,
        &private(&alice, "[nomic] join", "j-alice", "join Alice"),
    )
    .await;
    // Postfix may deliver in any order: each step waits for the one before.
    bot.wait_for(&bot.bot(), 2, |_| true).await;
    bot.cli(&["once"]);
    send(
        &bot,
        MODERATOR,
        &signed(
            &private(
                MODERATOR,
                "[nomic] pay",
                "pay",
                "adjust Alice 20 A$ because a start",
            ),
            "mod.example",
        ),
    )
    .await;
    bot.wait_for(&bot.bot(), 3, |_| true).await;
    bot.cli(&["once"]);
    // Item 1: a forged header claiming a pass, on unsigned mail in the moderator's name.
    send(
        &bot,
        MODERATOR,
        &format!(
            "Authentication-Results: {host}; dkim=pass header.d=mod.example; dmarc=pass header.from=mod.example\r\n{}",
            private(MODERATOR, "[nomic] fix", "forged-ar", "adjust Alice 1000 A$ because I say so"),
            host = bot.servers.host
        ),
    )
    .await;
    // Item 3: posted as the boss to the list, which signs what it relays with
    // d=nomic.example, the boss's own domain.
    let relayed = signed(
        &mail(
            &[
                ("From", BOSS),
                ("To", &list),
                ("List-Id", "<game-list.nomic.example>"),
                ("Subject", "[nomic] fix"),
                (
                    "Message-ID",
                    &format!("<as-boss-{}@players.test>", bot.name),
                ),
            ],
            "adjust Alice 5000 A$ because I say so",
        ),
        "nomic.example",
    );
    send(&bot, BOSS, &relayed).await;
    bot.wait_for(&bot.bot(), 5, |_| true).await;
    let out = bot.cli(&["once"]);
    assert!(out.contains("fetched 2, applied 0, kept aside 2"), "{out}");

    let state = bot.cli(&["state", "--json"]);
    assert_eq!(
        balance_of(&state, "Alice").as_deref(),
        Some("20"),
        "only the signed moderator's adjust: {state}"
    );
    let aside = bot.cli(&["inbox", "--status", "aside"]);
    assert_eq!(
        aside
            .matches("officer commands from a sender who is not authenticated")
            .count(),
        2,
        "{aside}"
    );
}
