//! Buried Treasure (rule 1217) through the real servers: Alice buries a
//! Trinket and 5 A$ on the list and mails the map to the bot alone by SMTP,
//! posts a hint of her own, discloses part of the map privately to Bob, and
//! declares Carol the finder; the bot reads everything over IMAP, and the test
//! reads every mailbox back over IMAP: the map is in none but Alice's until the
//! find, and the published map checks against its commitment as the README
//! tells a player to check it.

use sha2::{Digest, Sha256};

use crate::e2e::ImapBot;
use crate::support::SentMail;

/// The secret word is never disclosed before the find; the part Alice
/// discloses to Bob is the end of the map.
const MAP: &str = "Find the word PAMPLEMOUSSE in a proposal that passes, then sing under the oak";
const SECRET: &str = "PAMPLEMOUSSE";
const PART: &str = "sing under the oak";

fn from_bot(raw: &str) -> bool {
    raw.contains("X-Nomicbot:")
}

/// Sends one message, to the list or to the bot alone, waits until the bot's
/// mailbox holds it, and runs one pass; returns the pass's summary.
async fn mail(
    bot: &ImapBot,
    from: &str,
    public: bool,
    subject: &str,
    body: &str,
    count: &mut usize,
) -> String {
    *count += 1;
    bot.send(from, public, subject, &format!("t{count}"), body)
        .await;
    let got = bot.wait_for(&bot.bot(), *count, |_| true).await;
    assert!(got.len() >= *count, "message {count} did not arrive");
    bot.cli(&["once"])
}

fn state(bot: &ImapBot, part: &str) -> serde_json::Value {
    serde_json::from_str(&bot.cli(&["state", part, "--json"])).expect("json")
}

/// The bot's mail in a mailbox, parsed.
async fn bots_mail(bot: &ImapBot, address: &str) -> Vec<SentMail> {
    bot.mailbox_of(address)
        .await
        .iter()
        .filter(|raw| from_bot(raw))
        .map(|raw| SentMail::parse(raw))
        .collect()
}

/// Waits for the bot's mail whose subject contains `subject` in `address`'s INBOX.
async fn wait_for_subject(bot: &ImapBot, address: &str, subject: &str) -> Vec<SentMail> {
    bot.wait_for(address, 1, |raw| {
        from_bot(raw) && SentMail::parse(raw).subject.contains(subject)
    })
    .await
    .iter()
    .map(|raw| SentMail::parse(raw))
    .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_treasure_buried_hinted_disclosed_in_part_and_found_by_mail() {
    let bot = ImapBot::new("treasure");
    let alice = bot.player("alice");
    let bob = bot.player("bob");
    let carol = bot.player("carol");
    let dave = bot.player("dave");
    let moderator = bot.player("mod");
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
    let out = mail(
        &bot,
        &moderator,
        true,
        "[nomic]",
        "create Trinket for Alice: a silver spoon because a start\n\
         adjust Alice 20 A$ because a start",
        &mut count,
    )
    .await;
    assert!(out.contains("applied 1"), "{out}");

    // Burying, on the list: the Trinket and 5 A$ are nobody's at once, buried
    // in the treasure.
    let out = mail(
        &bot,
        &alice,
        true,
        "[treasure]",
        "bury #1, 5 A$ as the spoon",
        &mut count,
    )
    .await;
    assert!(out.contains("applied 1"), "{out}");
    let buried = wait_for_subject(&bot, &bot.list(), "Treasure 1 buried: the spoon").await;
    assert_eq!(buried.len(), 1, "the bury is announced on the list");
    assert!(buried[0].body.contains("#1 Trinket"), "{}", buried[0].body);
    assert!(buried[0].body.contains("5 A$"), "{}", buried[0].body);
    let treasure = state(&bot, "treasure");
    assert_eq!(treasure["buried"][0]["name"], "the spoon", "{treasure}");
    let inventory = state(&bot, "inventory");
    assert_eq!(
        inventory["entities"][0]["owner"],
        serde_json::json!({"buried": 1}),
        "{inventory}"
    );

    // The map, to the bot alone: the list gets only its commitment.
    let out = mail(
        &bot,
        &alice,
        false,
        "[treasure]",
        &format!("map 1: {MAP}"),
        &mut count,
    )
    .await;
    assert!(out.contains("applied 1"), "{out}");
    let sealed = wait_for_subject(&bot, &bot.list(), "Treasure 1: the map is written").await;
    assert_eq!(sealed.len(), 1, "the commitment is announced on the list");
    assert!(!sealed[0].body.contains(SECRET), "{}", sealed[0].body);
    let kept = wait_for_subject(&bot, &alice, "[treasure]").await;
    assert!(
        kept.iter().any(|m| m.body.contains("kept secret")),
        "alice is told her map is kept secret: {:?}",
        kept.iter().map(|m| &m.body).collect::<Vec<_>>()
    );
    let treasure = state(&bot, "treasure");
    assert!(!treasure.to_string().contains(SECRET), "{treasure}");

    // A hint is the writer's business: a plain post on the list and a reply in
    // the thread, both talk among the players, get no answer and break nothing.
    let before = bots_mail(&bot, &alice).await.len();
    let listed = bots_mail(&bot, &bot.list()).await.len();
    let out = mail(
        &bot,
        &alice,
        true,
        "A hint for the treasure hunters",
        "Think of grapefruit, and of what passes.",
        &mut count,
    )
    .await;
    assert!(out.contains("applied 0"), "{out}");
    let out = mail(
        &bot,
        &alice,
        true,
        "Re: [treasure] Treasure 1 buried: the spoon",
        "Another hint: bring a good voice.",
        &mut count,
    )
    .await;
    assert!(out.contains("sent 0"), "{out}");
    // Then a disclosure to Bob alone, mailed to the bot alone so that the
    // quoted part does not go to the list with the command.
    let out = mail(
        &bot,
        &alice,
        false,
        "[treasure]",
        &format!("disclose 1 \"{PART}\" to Bob"),
        &mut count,
    )
    .await;
    assert!(out.contains("applied 1"), "{out}");
    let disclosed = wait_for_subject(&bot, &bob, "part of the map of the spoon").await;
    assert_eq!(disclosed.len(), 1, "bob gets the part");
    assert!(disclosed[0].body.contains(PART), "{}", disclosed[0].body);
    assert!(!disclosed[0].body.contains(SECRET), "{}", disclosed[0].body);
    // The hints reached the players through the list, untouched.
    let hints = bot
        .wait_for(&bot.list(), 2, |raw| {
            !from_bot(raw) && (raw.contains("grapefruit") || raw.contains("good voice"))
        })
        .await;
    assert_eq!(hints.len(), 2, "both hints on the list");
    // The hints got no answer; the list got nothing more from the bot.
    assert_eq!(
        bots_mail(&bot, &alice).await.len(),
        before + 1,
        "one answer, to the disclose"
    );
    assert_eq!(bots_mail(&bot, &bot.list()).await.len(), listed);

    // Before the find, the map is in no mailbox but its writer's and the bot's,
    // and the part only in Bob's.
    for address in [
        bot.list(),
        bob.clone(),
        carol.clone(),
        dave.clone(),
        moderator.clone(),
    ] {
        for raw in bot.mailbox_of(&address).await {
            assert!(
                !raw.contains(SECRET),
                "the map in {address}'s mailbox: {raw}"
            );
            if address != bob {
                assert!(
                    !raw.contains(PART),
                    "the part in {address}'s mailbox: {raw}"
                );
            }
        }
    }

    // The find, declared by the writer on the list.
    let out = mail(
        &bot,
        &alice,
        true,
        "[treasure]",
        "found 1 by Carol at 14:00 today",
        &mut count,
    )
    .await;
    assert!(out.contains("applied 1"), "{out}");
    let found = wait_for_subject(&bot, &bot.list(), "Treasure 1 found by Carol").await;
    assert_eq!(found.len(), 1, "the find is announced on the list");
    assert!(found[0].body.contains(MAP), "{}", found[0].body);

    // The check the README and the commitment's announcement describe: sha256
    // of the salt, a newline, the writer's name, a newline, the map's text.
    let salt = found[0]
        .body
        .split("Its salt is ")
        .nth(1)
        .and_then(|s| s.split(';').next())
        .expect("the salt is published")
        .trim()
        .to_owned();
    let commitment = hex(&Sha256::digest(format!("{salt}\nAlice\n{MAP}").as_bytes()));
    assert!(
        sealed[0].body.contains(&commitment),
        "{commitment} in {}",
        sealed[0].body
    );
    assert!(found[0].body.contains(&commitment), "{}", found[0].body);
    // And the README's command line gives the same.
    let by_shell = std::process::Command::new("sh")
        .arg("-c")
        .arg(r#"printf '%s\n%s\n%s' "$SALT" Alice "$MAP_TEXT" | sha256sum"#)
        .env("SALT", &salt)
        .env("MAP_TEXT", MAP)
        .output()
        .expect("sh");
    let by_shell = String::from_utf8_lossy(&by_shell.stdout);
    assert!(by_shell.starts_with(&commitment), "{by_shell}");

    // The state: nothing buried any more; the Trinket and the 5 A$ are Carol's.
    let treasure = state(&bot, "treasure");
    assert_eq!(treasure["buried"], serde_json::json!([]), "{treasure}");
    let players = state(&bot, "players");
    let carol_id = players["players"]
        .as_array()
        .expect("players")
        .iter()
        .find(|p| p["name"] == "Carol")
        .map(|p| p["id"].clone())
        .expect("carol");
    let inventory = state(&bot, "inventory");
    assert_eq!(
        inventory["entities"][0]["owner"]["player"], carol_id,
        "{inventory}"
    );
    let accounts = state(&bot, "accounts");
    let carols = accounts["balances"]
        .as_array()
        .expect("balances")
        .iter()
        .find(|b| b["currency"] == "A$" && b["holder"]["player"] == carol_id)
        .map(|b| b["amount"].clone());
    assert_eq!(carols, Some(serde_json::json!("5")), "{accounts}");
    assert!(bot.cli(&["replay"]).contains("equals the live state"));
}
