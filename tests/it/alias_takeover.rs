//! Alias takeover (issue 23, item 5). With unauthenticated mail allowed player
//! commands, a forged `alias` sent with a player's From, then confirmed from the
//! forger's own new address, made that address the player's. An alias now also
//! needs the player's confirmation, with a code mailed to the player's address,
//! which the forger cannot read. Each test plays under `auth = "none"` and under
//! `auth = "dmarc"` with `unauthenticated = "players"` (no message here carries a
//! DKIM or DMARC result, so none is authenticated), through the real pipeline.

use std::collections::HashSet;

use jiff::{SignedDuration, Timestamp};

use crate::support::{LocalBot, SentMail, alias_code, at, message};

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";
const ALICE: &str = "alice@alice.example";
const EVE: &str = "eve2@evil.example";

fn config(auth: &str) -> String {
    let config = nomicbot::config::DEFAULT_CONFIG;
    assert!(config.contains("unauthenticated = \"players\""));
    config
        .replace("auth = \"dkim\"", &format!("auth = \"{auth}\""))
        .replace(
            "# authserv_id = \"mx.nomic.example\"",
            "authserv_id = \"mx.nomic.example\"",
        )
}

/// A bot where Alice has joined, and a clock of its own.
struct Game {
    bot: LocalBot,
    sent: usize,
}

impl Game {
    fn new(auth: &str) -> Game {
        let mut game = Game {
            bot: LocalBot::with_config(&config(auth)),
            sent: 0,
        };
        game.send(ALICE, LIST, "[nomic] join Alice");
        assert_eq!(game.names(), ["Alice"], "under {auth}");
        game
    }

    fn now(&self) -> Timestamp {
        at("2026-01-05T10:00:00Z") + SignedDuration::from_mins(10 * self.sent as i64)
    }

    /// Delivers one message, runs the bot, and returns what it sent, the answer first.
    fn send(&mut self, from: &str, to: &str, subject: &str) -> Vec<SentMail> {
        self.sent += 1;
        let id = format!("takeover-{}@test", self.sent);
        let before: HashSet<String> = self
            .bot
            .sent_mail()
            .into_iter()
            .map(|m| m.message_id)
            .collect();
        let arrival = self.now();
        self.bot.deliver(
            &format!("takeover{}", self.sent),
            &message(from, to, subject, &id, ""),
            arrival,
        );
        self.bot.once(arrival + SignedDuration::from_secs(30));
        let mut mail: Vec<SentMail> = self
            .bot
            .sent_mail()
            .into_iter()
            .filter(|m| !before.contains(&m.message_id))
            .collect();
        // Notices to others are threaded to the message too: the answer goes to its sender.
        mail.sort_by_key(|m| !(m.is_to(from) && m.in_reply_to.as_deref() == Some(id.as_str())));
        mail
    }

    /// The answer to a message: what the line was told.
    fn answer(&mut self, from: &str, subject: &str) -> String {
        let mail = self.send(from, BOT, subject);
        let answer = mail.first().expect("an answer");
        assert!(answer.is_to(from), "{mail:#?}");
        answer.body.clone()
    }

    /// The active players' names.
    fn names(&self) -> Vec<String> {
        self.players()
            .into_iter()
            .filter(|p| p["left_at"].is_null())
            .filter_map(|p| p["name"].as_str().map(str::to_owned))
            .collect()
    }

    fn players(&self) -> Vec<serde_json::Value> {
        self.bot.state_json()["players"]["players"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    fn aliases_of_alice(&self) -> serde_json::Value {
        self.players()
            .into_iter()
            .find(|p| p["name"] == "Alice")
            .map(|p| p["aliases"].clone())
            .unwrap_or_default()
    }
}

#[test]
fn issue_23_a_forged_alias_confirmed_from_the_forgers_address_is_never_the_players() {
    for auth in ["none", "dmarc", "dkim"] {
        let mut game = Game::new(auth);
        // Eve writes with Alice's address as From.
        let mail = game.send(ALICE, BOT, &format!("[nomic] alias {EVE}"));
        let to_eve: Vec<&SentMail> = mail.iter().filter(|m| m.is_to(EVE)).collect();
        assert_eq!(to_eve.len(), 1, "{auth}: {mail:#?}");
        assert_eq!(
            alias_code(to_eve[0]),
            None,
            "{auth}: no code to the new address"
        );
        let to_alice: Vec<(&SentMail, String)> = mail
            .iter()
            .filter_map(|m| alias_code(m).map(|code| (m, code)))
            .collect();
        assert_eq!(to_alice.len(), 1, "{auth}: {mail:#?}");
        let (request, code) = &to_alice[0];
        assert_eq!(request.to, [ALICE], "{auth}");
        for says in [
            "A message sent with your address as its sender\n(alice@alice.example) asked",
            "If you did not ask for this, ignore this mail: without your answer\nthe address is not added",
        ] {
            assert!(
                request.body.contains(says),
                "{auth}: {says:?} in {}",
                request.body
            );
        }

        // Eve confirms from her own address: half of what is needed.
        let answer = game.answer(EVE, "[nomic] confirm");
        assert!(
            answer.contains("once the player also confirms"),
            "{auth}: {answer}"
        );
        assert_eq!(game.aliases_of_alice(), serde_json::json!([]), "{auth}");
        let state = game.bot.cli_ok(&["state"]);
        assert!(
            state.contains("; the new address confirmed, the player not yet)"),
            "{auth}: {state}"
        );
        // Her guesses at the code, from her address or Alice's, are refused.
        for from in [EVE, ALICE] {
            let answer = game.answer(from, "[nomic] confirm 0000-0000-0000-0000");
            assert!(
                answer.contains("Refused: no pending alias request has this code"),
                "{auth}: {answer}"
            );
        }
        // Eve's commands are nobody's: she cannot make Alice leave.
        let answer = game.answer(EVE, "[nomic] leave");
        assert!(
            answer.contains("Refused: eve2@evil.example is not the address of any player"),
            "{auth}: {answer}"
        );
        assert_eq!(game.names(), ["Alice"], "{auth}");

        // Had Eve got the code, sending it from her address burns it.
        let answer = game.answer(EVE, &format!("[nomic] confirm {code}"));
        assert!(
            answer.contains("The request to add eve2@evil.example is cancelled"),
            "{auth}: {answer}"
        );
        assert_eq!(
            game.bot.state_json()["players"]["pending_aliases"],
            serde_json::json!([]),
            "{auth}"
        );
        let answer = game.answer(ALICE, &format!("[nomic] confirm {code}"));
        assert!(
            answer.contains("Refused: no pending alias request has this code"),
            "{auth}: {answer}"
        );
        assert_eq!(game.aliases_of_alice(), serde_json::json!([]), "{auth}");
    }
}

#[test]
fn issue_23_an_ignored_request_expires_and_the_forgers_address_stays_nobodys() {
    for auth in ["none", "dmarc", "dkim"] {
        let mut game = Game::new(auth);
        game.send(ALICE, BOT, &format!("[nomic] alias {EVE}"));
        game.answer(EVE, "[nomic] confirm");
        let later = game.now() + SignedDuration::from_hours(80);
        game.bot.once(later);
        let expired: Vec<SentMail> = game
            .bot
            .sent_mail()
            .into_iter()
            .filter(|m| {
                m.subject
                    .contains("Alias request for eve2@evil.example expired")
            })
            .collect();
        assert_eq!(expired.len(), 1, "{auth}");
        assert_eq!(expired[0].to, [ALICE], "{auth}");
        assert!(
            expired[0].body.contains("not confirmed in time by you"),
            "{auth}: {}",
            expired[0].body
        );
        assert_eq!(game.aliases_of_alice(), serde_json::json!([]), "{auth}");
        let answer = game.answer(EVE, "[nomic] confirm");
        assert!(
            answer.contains("Refused: no player asked"),
            "{auth}: {answer}"
        );
    }
}

#[test]
fn issue_23_the_players_own_alias_is_made_with_both_confirmations_in_either_order() {
    for auth in ["none", "dmarc", "dkim"] {
        let mut game = Game::new(auth);
        // The player first, then the new address.
        let mail = game.send(ALICE, BOT, "[nomic] alias alice2@alice.example");
        let code = mail.iter().find_map(alias_code).expect("a code");
        let answer = game.answer(ALICE, &format!("[nomic] confirm {}", code.to_lowercase()));
        assert!(
            answer.contains("Your confirmation is in. alice2@alice.example becomes your address once it also answers"),
            "{auth}: {answer}"
        );
        let mail = game.send("alice2@alice.example", BOT, "[nomic] confirm");
        assert!(
            mail[0]
                .body
                .contains("alice2@alice.example is now an address of Alice"),
            "{auth}: {mail:#?}"
        );
        assert!(
            mail[1].is_to(ALICE) && mail[1].subject.contains("is now your address too"),
            "{auth}: {mail:#?}"
        );
        assert_eq!(
            game.aliases_of_alice(),
            serde_json::json!(["alice2@alice.example"]),
            "{auth}"
        );

        // The new address first, then the player, from the alias just made.
        let mail = game.send(
            "alice2@alice.example",
            BOT,
            "[nomic] alias alice3@alice.example",
        );
        let code = mail.iter().find_map(alias_code).expect("a code");
        assert!(
            mail.iter()
                .any(|m| alias_code(m).is_some() && m.to == [ALICE]),
            "{auth}: the code goes to the main address: {mail:#?}"
        );
        game.answer("alice3@alice.example", "[nomic] confirm");
        let answer = game.answer("alice2@alice.example", &format!("[nomic] confirm {code}"));
        assert!(
            answer.contains("alice3@alice.example is now an address of Alice"),
            "{auth}: {answer}"
        );
        assert_eq!(
            game.aliases_of_alice(),
            serde_json::json!(["alice2@alice.example", "alice3@alice.example"]),
            "{auth}"
        );
        // The new address now acts as Alice.
        game.answer("alice3@alice.example", "[nomic] rename Alicia");
        assert_eq!(game.names(), ["Alicia"], "{auth}");
    }
}

#[test]
fn issue_23_a_code_sent_to_the_list_is_burnt_and_the_player_told() {
    for auth in ["none", "dmarc", "dkim"] {
        let mut game = Game::new(auth);
        let mail = game.send(ALICE, BOT, "[nomic] alias alice2@alice.example");
        let code = mail.iter().find_map(alias_code).expect("a code");
        game.answer("alice2@alice.example", "[nomic] confirm");
        let mail = game.send(ALICE, LIST, &format!("[nomic] confirm {code}"));
        let told: Vec<&SentMail> = mail
            .iter()
            .filter(|m| {
                m.subject
                    .contains("Alias request for alice2@alice.example cancelled")
            })
            .collect();
        assert_eq!(told.len(), 1, "{auth}: {mail:#?}");
        assert_eq!(told[0].to, [ALICE], "{auth}");
        assert!(
            told[0].body.contains("was sent to the list"),
            "{auth}: {}",
            told[0].body
        );
        assert_eq!(game.aliases_of_alice(), serde_json::json!([]), "{auth}");
        assert_eq!(
            game.bot.state_json()["players"]["pending_aliases"],
            serde_json::json!([]),
            "{auth}"
        );
    }
}
