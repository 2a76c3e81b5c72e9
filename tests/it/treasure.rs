//! `[treasure]`, Buried Treasure (Ackanomic rule 1217/7), through the real
//! pipeline: mail into the inbox Maildir, `nomicbot once`, the answers and
//! announcements read back from the outbox, the inventory and balances from
//! `state --json`. Each test is named after the paragraph it shows and quotes it.

use jiff::{SignedDuration, Timestamp};
use sha2::{Digest, Sha256};

use crate::support::{LocalBot, SentMail, at, balance, message};

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";
const MODERATOR: &str = "mod@nomic.example";
const ALICE: &str = "alice@nomic.example";
const BOB: &str = "bob@nomic.example";
const CAROL: &str = "carol@nomic.example";

const MAP: &str = "Find the word PAMPLEMOUSSE in a proposal that passes, then sing under the oak";

fn start() -> Timestamp {
    at("2026-03-02T09:00:00Z")
}

fn minutes(n: i64) -> Timestamp {
    start() + SignedDuration::from_mins(n)
}

struct Game {
    bot: LocalBot,
    count: std::cell::Cell<u32>,
}

impl Game {
    /// Alice, Bob and Carol have joined; Alice owns a Trinket (#1) and 20 A$,
    /// Bob the Chartreuse Goose (#2).
    fn new() -> Game {
        Game::with_extra("")
    }

    /// The same, with `extra` appended to the shipped config.
    fn with_extra(extra: &str) -> Game {
        let config = crate::support::trusting().replace(
            "moderators = []",
            &format!("moderators = [\"{MODERATOR}\"]"),
        ) + extra;
        let game = Game {
            bot: LocalBot::with_config(&config),
            count: std::cell::Cell::new(0),
        };
        for (i, name) in ["Alice", "Bob", "Carol"].iter().enumerate() {
            let from = format!("{}@nomic.example", name.to_lowercase());
            game.deliver(
                &from,
                LIST,
                &format!("[nomic] join {name}"),
                "",
                start() + SignedDuration::from_secs(i as i64),
            );
        }
        game.bot.once(minutes(1));
        game.send(
            MODERATOR,
            "nomic",
            &[
                "create Trinket for Alice: a silver spoon because a start",
                "create Chartreuse Goose for Bob because a start",
                "adjust Alice 20 A$ because a start",
            ],
            minutes(2),
        );
        game
    }

    fn deliver(&self, from: &str, to: &str, subject: &str, body: &str, when: Timestamp) {
        let count = self.count.get() + 1;
        self.count.set(count);
        let id = format!("{count}-{}@players.test", from.replace('@', "."));
        let name = format!("{count}-{}", from.replace('@', "."));
        self.bot
            .deliver(&name, &message(from, to, subject, &id, body), when);
    }

    /// Lines under `tag` on the list, and a pass a minute later.
    fn send(&self, from: &str, tag: &str, lines: &[&str], when: Timestamp) {
        self.deliver(from, LIST, &format!("[{tag}]"), &lines.join("\n"), when);
        self.bot.once(when + SignedDuration::from_mins(1));
    }

    /// Lines under `tag` to the bot alone, and a pass a minute later.
    fn tell(&self, from: &str, tag: &str, lines: &[&str], when: Timestamp) {
        self.deliver(from, BOT, &format!("[{tag}]"), &lines.join("\n"), when);
        self.bot.once(when + SignedDuration::from_mins(1));
    }

    fn announced(&self, subject: &str) -> Vec<SentMail> {
        self.bot
            .sent_mail()
            .into_iter()
            .filter(|m| m.is_to(LIST) && m.subject.contains(subject))
            .collect()
    }

    fn answers_to(&self, who: &str) -> String {
        self.bot
            .sent_mail()
            .into_iter()
            .filter(|m| m.is_to(who))
            .map(|m| m.body)
            .collect::<Vec<_>>()
            .join("\n----\n")
    }

    fn owner_of(&self, id: u64) -> serde_json::Value {
        let state = self.bot.state_json();
        state["inventory"]["entities"]
            .as_array()
            .and_then(|all| all.iter().find(|e| e["id"] == id).cloned())
            .map(|e| e["owner"].clone())
            .unwrap_or_default()
    }

    /// Alice buries her Trinket and 5 A$ as "the spoon", and mails its map.
    fn buried_with_map(&self) {
        self.send(
            ALICE,
            "treasure",
            &["bury #1, 5 A$ as the spoon"],
            minutes(10),
        );
        self.tell(ALICE, "treasure", &[&format!("map 1: {MAP}")], minutes(20));
    }
}

#[test]
fn burying_a_player_may_bury_treasure_by_publicly_announcing_it_and_it_is_unowned() {
    // "A player may bury Treasure by publically announcing that they are doing
    // so, and by stating what the Treasure consists of. [...] Immediately after
    // this announcement, the player ceases to own the Treasure; it is considered
    // "buried" or "hidden", and is unowned. Buried Treasure is not considered
    // part of the Treasury."
    let game = Game::new();
    game.send(
        ALICE,
        "treasure",
        &["bury #1, 5 A$ as the spoon"],
        minutes(10),
    );
    let buried = game.announced("Treasure 1 buried: the spoon");
    assert_eq!(buried.len(), 1, "{}", game.answers_to(LIST));
    assert!(buried[0].body.contains("#1 Trinket"), "{}", buried[0].body);
    assert!(buried[0].body.contains("5 A$"), "{}", buried[0].body);
    assert_eq!(game.owner_of(1), serde_json::json!({"buried": 1}));
    let state = game.bot.state_json();
    assert_eq!(balance(&state, "Alice", "A$").as_deref(), Some("15"));
    assert_eq!(state["treasure"]["buried"][0]["name"], "the spoon");
}

#[test]
fn burying_the_treasure_must_consist_of_entities_owned_by_that_player() {
    // "The Treasure must consist of one or more tradeable entities owned by
    // that player."
    let game = Game::new();
    game.send(CAROL, "treasure", &["bury #2"], minutes(10));
    game.send(CAROL, "treasure", &["bury 5 A$"], minutes(12));
    let carol = game.answers_to(CAROL);
    assert!(carol.contains("you do not own #2"), "{carol}");
    assert!(carol.contains("Refused"), "{carol}");
    assert_eq!(
        game.owner_of(2)["player"],
        crate::support::player_id(&game.bot.state_json(), "Bob")
    );
    assert!(game.announced("buried").is_empty());
}

#[test]
fn the_map_is_kept_secret_and_only_its_commitment_is_published() {
    // "A player who buries Treasure must write a Treasure Map that describes,
    // at a minimum, the conditions which must be met for a player to "find"
    // the Treasure."
    let game = Game::new();
    game.buried_with_map();
    let sealed = game.announced("Treasure 1: the map is written");
    assert_eq!(sealed.len(), 1);
    assert!(!sealed[0].body.contains("PAMPLEMOUSSE"));
    assert!(game.answers_to(ALICE).contains("kept secret"));
    let public = game.bot.state_json();
    assert!(!public.to_string().contains("PAMPLEMOUSSE"), "{public:#}");
    // A map sent to the list is no longer secret: refused.
    game.send(ALICE, "treasure", &["map 1: dig"], minutes(30));
    assert!(game.answers_to(ALICE).contains("came through the list"));
}

#[test]
fn the_map_writer_is_free_to_disclose_part_of_the_map_privately() {
    // "The map writer is free to disclose all, part, or none of the map
    // publically or privately at any time".
    let game = Game::new();
    game.buried_with_map();
    game.send(
        ALICE,
        "treasure",
        &["disclose 1 \"sing under the oak\" to Bob"],
        minutes(30),
    );
    let bob = game.answers_to(BOB);
    assert!(bob.contains("sing under the oak"), "{bob}");
    assert!(!bob.contains("PAMPLEMOUSSE"), "{bob}");
    assert!(!game.answers_to(CAROL).contains("oak"));
    assert!(!game.answers_to(LIST).contains("oak"));
    // Only the writer discloses.
    game.send(BOB, "treasure", &["disclose 1"], minutes(40));
    assert!(game.answers_to(BOB).contains("only the writer"));
    assert!(!game.answers_to(LIST).contains("PAMPLEMOUSSE"));
}

#[test]
fn finding_the_map_is_made_public_and_destroyed_and_the_finder_receives_the_treasure() {
    // "it is a duty of the map writer or a map custodian (if any exist) to make
    // this fact, and the map, public [...]. This action destroys the map, and
    // the player who achieved the conditions receives the Treasure".
    let game = Game::new();
    game.buried_with_map();
    game.send(
        ALICE,
        "treasure",
        &["found the spoon by Carol at 14:00 today"],
        minutes(60),
    );
    let found = game.announced("Treasure 1 found by Carol");
    assert_eq!(found.len(), 1, "{}", game.answers_to(ALICE));
    assert!(found[0].body.contains(MAP), "{}", found[0].body);
    let state = game.bot.state_json();
    assert_eq!(balance(&state, "Carol", "A$").as_deref(), Some("5"));
    assert_eq!(
        game.owner_of(1)["player"],
        crate::support::player_id(&state, "Carol")
    );
    assert_eq!(state["treasure"]["buried"], serde_json::json!([]));
    // The published map checks against the commitment published at its writing.
    let commitment = game.announced("the map is written")[0].body.clone();
    let salt = found[0]
        .body
        .split("Its salt is ")
        .nth(1)
        .and_then(|s| s.split(';').next())
        .expect("the salt is published")
        .trim()
        .to_owned();
    let hash = Sha256::digest(format!("{salt}\nAlice\n{MAP}").as_bytes());
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    assert!(commitment.contains(&hex), "{commitment}");
}

#[test]
fn the_map_writer_is_free_to_achieve_the_conditions_and_the_goose_is_transferred_to_em() {
    // "The map writer is free to achieve the conditions. This is considered bad
    // form, and the Chartreuse Goose is permitted to sneer. Furthermore, when
    // this happens, the Chartreuse Goose is transferred to the map writer from
    // wherever it is."
    let game = Game::new();
    game.buried_with_map();
    game.send(ALICE, "treasure", &["found 1 by Alice"], minutes(60));
    let found = game.announced("Treasure 1 found by Alice");
    assert_eq!(found.len(), 1);
    assert!(found[0].body.contains("Goose sneers"), "{}", found[0].body);
    let state = game.bot.state_json();
    assert_eq!(
        game.owner_of(2)["player"],
        crate::support::player_id(&state, "Alice")
    );
}

#[test]
fn no_map_text_reaches_the_list_or_another_player_before_its_writer_discloses_it() {
    // "The map writer is free to disclose all, part, or none of the map
    // publically or privately at any time, or drop hints, clues, obscure
    // riddles, etc in any manner they choose". A long scenario: bury, hints,
    // a partial private disclosure, the map handed to the Treasure-Harfer,
    // tries by others, then the find; until the find, no mail to anyone but
    // the writer and the custodian, and nothing another player can read
    // (`status`, `history`, `state`), carries the map's secret.
    let game = Game::new();
    game.send(
        MODERATOR,
        "nomic",
        &["appoint Treasure-Harfer carol@nomic.example because Carol keeps maps"],
        minutes(5),
    );
    game.buried_with_map();
    game.send(BOB, "treasure", &["status"], minutes(25));
    game.tell(CAROL, "treasure", &["status"], minutes(26));
    game.send(
        BOB,
        "treasure",
        &["disclose 1", "found 1 by Bob", "map 1: my own map"],
        minutes(27),
    );
    // A hint of the writer's own, on the list: hers to give.
    game.send(
        ALICE,
        "treasure",
        &["a fruit, in French, is the key"],
        minutes(28),
    );
    game.send(
        ALICE,
        "treasure",
        &["disclose 1 \"then sing under the oak\" to Bob"],
        minutes(30),
    );
    game.tell(
        ALICE,
        "treasure",
        &["hand 1 to the Treasure-Harfer"],
        minutes(35),
    );
    game.send(
        CAROL,
        "treasure",
        &["disclose 1 \"PAMPLEMOUSSE\""],
        minutes(40),
    );
    game.tell(BOB, "treasure", &["status", "history all"], minutes(45));
    game.send(BOB, "nomic", &["inventory", "history all"], minutes(46));
    let secret = "PAMPLEMOUSSE";
    let leaks = |mail: &SentMail| mail.body.contains(secret) || mail.subject.contains(secret);
    for mail in game.bot.sent_mail() {
        if mail.is_to(ALICE) || (mail.is_to(CAROL) && !mail.is_to(LIST)) {
            continue;
        }
        assert!(
            !leaks(&mail),
            "the map leaked to {:?}: {}",
            mail.to,
            mail.body
        );
    }
    assert!(game.answers_to(BOB).contains("then sing under the oak"));
    assert!(
        game.answers_to(BOB)
            .contains("Treasure 1 buried: the spoon"),
        "history under [treasure] names the bury"
    );
    assert!(
        game.answers_to(CAROL).contains(secret),
        "the custodian has the map"
    );
    let public = game.bot.state_json();
    assert!(!public.to_string().contains(secret), "{public:#}");
    let text = game.bot.cli_ok(&["state", "treasure"]);
    assert!(!text.contains(secret), "{text}");
    assert!(text.contains("the spoon"), "{text}");
    let status = game.answers_to(LIST) + &game.answers_to(BOB);
    assert!(status.contains("the spoon"), "{status}");
    assert!(status.contains("custodians Carol"), "{status}");
    // The find reveals it.
    game.send(CAROL, "treasure", &["found 1 by Bob"], minutes(60));
    assert!(
        game.announced("Treasure 1 found by Bob")[0]
            .body
            .contains(MAP)
    );
}

#[test]
fn finding_two_players_achieving_it_simultaneously_are_drawn_by_the_officer_in_charge_of_random_things()
 {
    // "If the condition is achieved simultaneously by 2 or more players, the
    // finder is determined at random by the Officer in charge of Random Things.
    // All such players shall be eligible for the random selection, even
    // non-active ones."
    let game = Game::new();
    game.buried_with_map();
    game.send(
        ALICE,
        "treasure",
        &["found 1 by Bob and Carol"],
        minutes(60),
    );
    let found: Vec<SentMail> = game
        .bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to(LIST) && m.subject.contains("Treasure 1 found by"))
        .collect();
    assert_eq!(found.len(), 1, "{}", game.answers_to(ALICE));
    assert!(
        found[0]
            .body
            .contains("Officer in charge of Random Things drew"),
        "{}",
        found[0].body
    );
    assert!(found[0].body.contains("verify-random"), "{}", found[0].body);
}

#[test]
fn custodians_the_treasure_harfer_holds_the_map_and_may_neither_disclose_it_nor_find_it() {
    // "Whenever a map writer goes on vacation, or leaves the game, they should
    // give the map to the Treasure-Harfer (or acting Treasure-Harfer), who
    // becomes the map custodian [...] they are not permitted to disclose
    // anything about the map, or find the Treasure associated with that map".
    let game = Game::new();
    game.send(
        MODERATOR,
        "nomic",
        &["appoint Treasure-Harfer carol@nomic.example because Carol keeps maps"],
        minutes(5),
    );
    game.buried_with_map();
    game.send(
        ALICE,
        "treasure",
        &["hand 1 to the Treasure-Harfer"],
        minutes(30),
    );
    assert_eq!(
        game.announced("Carol is custodian").len(),
        1,
        "{}",
        game.answers_to(ALICE)
    );
    assert!(game.answers_to(CAROL).contains("PAMPLEMOUSSE"));
    assert!(!game.answers_to(LIST).contains("PAMPLEMOUSSE"));
    game.send(CAROL, "treasure", &["disclose 1"], minutes(40));
    let carol = game
        .answers_to(CAROL)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        carol.contains("not permit you to disclose anything")
            || carol.contains("does not permit a custodian to disclose"),
        "{carol}"
    );
    // A custodian's find is refused; the custodian may declare another's.
    game.send(ALICE, "treasure", &["found 1 by Carol"], minutes(50));
    let alice = game
        .answers_to(ALICE)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(alice.contains("Carol is a custodian"), "{alice}");
    game.send(CAROL, "treasure", &["found 1 by Bob"], minutes(60));
    assert_eq!(game.announced("Treasure 1 found by Bob").len(), 1);
    assert!(
        !game
            .announced("disclose")
            .iter()
            .any(|m| m.body.contains("PAMPLEMOUSSE"))
    );
}

#[test]
fn burying_the_treasure_must_consist_of_tradeable_entities_and_shows_as_buried() {
    // "The Treasure must consist of one or more tradeable entities owned by
    // that player. [...] Buried Treasure is not considered part of the
    // Treasury." Here the operator made Trinkets untradeable.
    let game = Game::with_extra(
        "\n[accounts]\nuntradeable_kinds = [\"Trinket\"]\n\
         [[accounts.currency]]\nname = \"A$\"\nexactness = \"integer\"\n\
         [[accounts.currency]]\nname = \"points\"\nexactness = \"integer\"\ntradeable = false\n",
    );
    game.send(ALICE, "treasure", &["bury #1, 5 A$"], minutes(10));
    game.send(ALICE, "treasure", &["bury 1 points"], minutes(11));
    let alice = game.answers_to(ALICE);
    assert!(alice.contains("#1 Trinket is not tradeable"), "{alice}");
    assert!(alice.contains("1 points is not tradeable"), "{alice}");
    assert!(game.announced("buried").is_empty());
    assert_eq!(
        game.owner_of(1)["player"],
        crate::support::player_id(&game.bot.state_json(), "Alice")
    );
    // Money is, and shows as buried, nobody's and not the Treasury's.
    game.send(ALICE, "treasure", &["bury 5 A$"], minutes(12));
    assert_eq!(
        game.announced("Treasure 1 buried").len(),
        1,
        "{}",
        game.answers_to(ALICE)
    );
    game.tell(BOB, "nomic", &["balance", "inventory"], minutes(14));
    let bob = game.answers_to(BOB);
    assert!(bob.contains("5 A$ buried in Treasure 1"), "{bob}");
    let state = game.bot.state_json();
    assert_eq!(balance(&state, "Alice", "A$").as_deref(), Some("15"));
    let text = game.bot.cli_ok(&["state", "accounts"]);
    assert!(text.contains("buried in Treasure 1"), "{text}");
}

#[test]
fn burying_an_item_shows_it_buried_in_the_inventory() {
    // "it is considered "buried" or "hidden", and is unowned."
    let game = Game::new();
    game.buried_with_map();
    game.tell(CAROL, "nomic", &["inventory"], minutes(30));
    let carol = game.answers_to(CAROL);
    assert!(
        carol.contains("#1 Trinket, buried in Treasure 1"),
        "{carol}"
    );
    let text = game.bot.cli_ok(&["state", "inventory"]);
    assert!(text.contains("buried in Treasure 1"), "{text}");
}

#[test]
fn finding_the_first_to_achieve_it_finds_the_treasure() {
    // "In the case of multiple players achieving the conditions before the
    // map is destroyed, the first to achieve it finds the Treasure."
    let game = Game::new();
    game.buried_with_map();
    game.send(
        ALICE,
        "treasure",
        &["found 1 by Bob at 2026-03-02 14:00; Carol at 2026-03-02 13:30"],
        minutes(60),
    );
    let found = game.announced("Treasure 1 found by Carol");
    assert_eq!(found.len(), 1, "{}", game.answers_to(ALICE));
    assert!(
        found[0].body.contains("Bob (2026-03-02 14:00)"),
        "{}",
        found[0].body
    );
    let state = game.bot.state_json();
    assert_eq!(
        game.owner_of(1)["player"],
        crate::support::player_id(&state, "Carol")
    );
    // A later declaration, even of an earlier time, finds no map: it was
    // destroyed by the find.
    game.send(
        ALICE,
        "treasure",
        &["found 1 by Bob at 2026-03-02 12:00"],
        minutes(70),
    );
    let alice = game.answers_to(ALICE);
    assert!(alice.contains("already found by Carol"), "{alice}");
    assert_eq!(game.announced("found by Bob").len(), 0);
    // Times that cannot be compared are refused, not guessed at.
    game.send(ALICE, "treasure", &["bury 5 A$"], minutes(80));
    game.tell(ALICE, "treasure", &["map 2: dig"], minutes(81));
    game.send(
        ALICE,
        "treasure",
        &["found 2 by Bob at dawn; Carol at dusk"],
        minutes(90),
    );
    assert!(game.answers_to(ALICE).contains("\"dawn\" is none"));
}

#[test]
fn custodians_a_map_whose_every_holder_left_the_game_is_lost() {
    // "It is possible, and acceptable, for a map to be permanently or
    // temporarily lost because of players leaving the game. Such is the
    // nature of buried treasure."
    let game = Game::new();
    game.buried_with_map();
    game.send(ALICE, "nomic", &["leave"], minutes(30));
    let lost = game.announced("the map of the spoon is lost");
    assert_eq!(lost.len(), 1, "{}", game.answers_to(LIST));
    assert!(!lost[0].body.contains("PAMPLEMOUSSE"));
    assert_eq!(game.owner_of(1), serde_json::json!({"buried": 1}));
    game.send(BOB, "treasure", &["status"], minutes(40));
    assert!(
        game.answers_to(BOB)
            .contains("its map lost: buried for good")
    );
    assert_eq!(game.bot.state_json()["treasure"]["buried"][0]["lost"], true);
}

#[test]
fn custodians_a_writer_going_on_vacation_is_reminded_and_a_custodian_keeps_the_map() {
    // "Whenever a map writer goes on vacation, or leaves the game, they should
    // give the map to the Treasure-Harfer (or acting Treasure-Harfer), who
    // becomes the map custodian (although for short vacations, they may not
    // wish to do this)."
    let game = Game::new();
    game.buried_with_map();
    game.send(ALICE, "nomic", &["vacation until 2026-04-01"], minutes(30));
    let alice = game.answers_to(ALICE);
    assert!(alice.contains("hand 1 to the Treasure-Harfer"), "{alice}");
    game.send(
        MODERATOR,
        "nomic",
        &["appoint Treasure-Harfer carol@nomic.example because Carol keeps maps"],
        minutes(35),
    );
    game.tell(
        ALICE,
        "treasure",
        &["hand 1 to the Treasure-Harfer"],
        minutes(40),
    );
    assert_eq!(
        game.announced("Carol is custodian").len(),
        1,
        "{}",
        game.answers_to(ALICE)
    );
    // The writer leaves; the custodian still holds the map: not lost.
    game.send(ALICE, "nomic", &["back", "leave"], minutes(50));
    assert!(game.announced("is lost").is_empty());
    game.send(CAROL, "treasure", &["found 1 by Bob"], minutes(60));
    assert_eq!(game.announced("Treasure 1 found by Bob").len(), 1);
}

#[test]
fn if_a_treasure_ever_contains_0_buried_entities_its_map_is_destroyed() {
    // "If a Treasure ever contains 0 or less buried entities, the Map for that
    // Treasure is destroyed."
    let game = Game::new();
    game.send(ALICE, "treasure", &["bury #1 as the spoon"], minutes(10));
    game.tell(ALICE, "treasure", &[&format!("map 1: {MAP}")], minutes(20));
    game.send(
        MODERATOR,
        "nomic",
        &["destroy #1 because the moths ate it"],
        minutes(30),
    );
    let empty = game.announced("the spoon is empty, its map destroyed");
    assert_eq!(empty.len(), 1, "{}", game.answers_to(LIST));
    assert!(!empty[0].body.contains("PAMPLEMOUSSE"));
    game.send(
        ALICE,
        "treasure",
        &["found 1 by Bob", "status"],
        minutes(40),
    );
    let alice = game.answers_to(ALICE);
    assert!(alice.contains("the spoon is empty"), "{alice}");
    assert!(
        alice.contains("empty, every entity destroyed by other rules"),
        "{alice}"
    );
    let state = game.bot.state_json();
    assert_eq!(state["treasure"]["past"][0]["end"], "empty");
}

#[test]
fn the_treasure_demo_plays_a_find_by_the_custodian() {
    let dir = tempfile::tempdir().expect("temp dir");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_nomicbot"))
        .args(["demo", "--game", "treasure", "--dir"])
        .arg(dir.path())
        .output()
        .expect("run nomicbot demo");
    let out = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(out.contains("Treasure 1 found by Dave"), "{out}");
}

#[test]
fn the_map_writer_is_not_a_map_custodian_unless_he_happens_to_become_one() {
    // "The map writer is not a map custodian, unless he happens to become one
    // as specified in the above paragraph." Handing the map over makes the
    // Treasure-Harfer its custodian, not the writer: she may still disclose
    // it, and may still be its finder.
    let game = Game::new();
    game.send(
        MODERATOR,
        "nomic",
        &["appoint Treasure-Harfer carol@nomic.example because Carol keeps maps"],
        minutes(5),
    );
    game.buried_with_map();
    game.send(
        ALICE,
        "treasure",
        &["hand 1 to the Treasure-Harfer"],
        minutes(30),
    );
    game.send(
        ALICE,
        "treasure",
        &["disclose 1 \"sing under the oak\""],
        minutes(40),
    );
    let disclosed = game.announced("part of the map of the spoon");
    assert_eq!(disclosed.len(), 1, "{}", game.answers_to(ALICE));
    game.send(CAROL, "treasure", &["found 1 by Alice"], minutes(50));
    let found = game.announced("Treasure 1 found by Alice");
    assert_eq!(found.len(), 1, "{}", game.answers_to(CAROL));
    assert!(found[0].body.contains("Goose sneers"), "{}", found[0].body);
    let state = game.bot.state_json();
    assert_eq!(state["treasure"]["past"][0]["end"], "found");
    assert_eq!(
        state["treasure"]["past"][0]["custodians"],
        serde_json::json!([crate::support::player_id(&state, "Carol")])
    );
}

#[test]
fn custodians_the_acting_treasure_harfer_takes_the_map_when_the_office_is_vacant() {
    // "they should give the map to the Treasure-Harfer (or acting
    // Treasure-Harfer), who becomes the map custodian".
    let game = Game::new();
    game.buried_with_map();
    game.send(
        ALICE,
        "treasure",
        &["hand 1 to the Treasure-Harfer"],
        minutes(25),
    );
    assert!(
        game.answers_to(ALICE)
            .contains("no player holds the office"),
        "{}",
        game.answers_to(ALICE)
    );
    game.send(
        MODERATOR,
        "nomic",
        &["appoint acting Treasure-Harfer bob@nomic.example because Carol is away"],
        minutes(30),
    );
    game.send(
        ALICE,
        "treasure",
        &["hand 1 to the Treasure-Harfer"],
        minutes(40),
    );
    assert_eq!(
        game.announced("Bob is custodian").len(),
        1,
        "{}",
        game.answers_to(MODERATOR)
    );
    assert!(game.answers_to(BOB).contains("PAMPLEMOUSSE"));
}

/// Rule 1217 repealed: a rule no longer in effect imposes nothing. Nothing more
/// is buried, mapped or found under it; what is buried stays so, and `status`
/// still tells what is buried.
#[test]
fn rule_1217_repealed_buries_and_finds_nothing_more_and_status_still_answers() {
    let game = Game::new();
    game.bot.cli_ok(&[
        "import-rules",
        "ackanomic",
        "--now",
        &minutes(3).to_string(),
    ]);
    game.buried_with_map();
    game.send(MODERATOR, "ruleset", &["repeal 1217"], minutes(30));
    game.send(ALICE, "treasure", &["found 1 by Bob"], minutes(40));
    let answers = game.answers_to(ALICE);
    assert!(
        answers.contains("rule 1217 (Buried Treasure) is not followed now (repealed)"),
        "{answers}"
    );
    assert!(game.announced("found by").is_empty());
    assert_eq!(game.owner_of(1), serde_json::json!({"buried": 1}));
    game.send(ALICE, "treasure", &["bury 5 A$"], minutes(50));
    assert!(game.announced("Treasure 2 buried").is_empty());
    game.tell(BOB, "treasure", &["status"], minutes(60));
    let status = game.answers_to(BOB);
    assert!(status.contains("the spoon"), "{status}");
    assert!(!status.contains(MAP), "{status}");
}
