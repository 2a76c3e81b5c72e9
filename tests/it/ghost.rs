//! `[ghost]` by mail, on the embedded Maildir transport: one scenario per paragraph
//! of Ackanomic rule 103, "Ghost" (`../shared/rules/ghost.txt`), named after it
//! (`section_4_play_3_...` is paragraph (3) of section 4's list of plays). Each test
//! sends mail in (plays on the list, requests to the bot), runs the bot, and checks
//! what the players see: the answers' wording, the announcements on the list (whose
//! turn, the ghost word, the deadline) and the state (`state ghost --json`, and the
//! accounts for the rewards).
//!
//! The players' numbers are drawn at random, so a test reads them from the state
//! after the start and names the players by number: `p[0]` is player 1.

use std::cell::Cell;

use jiff::{SignedDuration, Timestamp};
use nomicbot::engine::human_time;
use serde_json::Value;

use crate::support::{LocalBot, SentMail, at, message};

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";
/// The bot's moderator: not a player of the nomic.
const MODERATOR: &str = "mod@nomic.example";

/// When every test's nomic opens; players join a minute apart from then.
const OPENING: &str = "2026-05-01T12:00:00Z";

fn address(name: &str) -> String {
    if name == "Mod" {
        MODERATOR.to_owned()
    } else {
        format!("{}@nomic.example", name.to_lowercase())
    }
}

fn days(n: i64) -> SignedDuration {
    SignedDuration::from_hours(24 * n)
}

fn mins(n: i64) -> SignedDuration {
    SignedDuration::from_mins(n)
}

/// A nomic on the shipped config (with `mod@` as its moderator) and a clock: every
/// message arrives a minute after the one before, unless the test moves the clock.
struct Nomic {
    bot: LocalBot,
    clock: Cell<Timestamp>,
    count: Cell<u32>,
}

impl Nomic {
    /// The players `names` join on the list, a minute apart; nothing is run yet.
    fn new(names: &[&str]) -> Nomic {
        let config = crate::support::trusting().replace(
            "moderators = []",
            &format!("moderators = [\"{MODERATOR}\"]"),
        );
        let nomic = Nomic {
            bot: LocalBot::with_config(&config),
            clock: Cell::new(at(OPENING)),
            count: Cell::new(0),
        };
        for name in names {
            nomic.post(name, &format!("[nomic] join {name}"), "");
        }
        nomic
    }

    fn now(&self) -> Timestamp {
        self.clock.get()
    }

    /// The next message arrives a minute after `t`.
    fn set_clock(&self, t: Timestamp) {
        self.clock.set(t);
    }

    /// A message from `from` to `to`, a minute after the last: its arrival time.
    fn mail(&self, from: &str, to: &str, subject: &str, body: &str) -> Timestamp {
        let n = self.count.get() + 1;
        self.count.set(n);
        let when = self.clock.get() + mins(1);
        self.clock.set(when);
        let id = format!("g{n}@players.test");
        self.bot.deliver(
            &format!("g{n}"),
            &message(from, to, subject, &id, body),
            when,
        );
        when
    }

    /// `name` writes to the list.
    fn post(&self, name: &str, subject: &str, body: &str) -> Timestamp {
        self.mail(&address(name), LIST, subject, body)
    }

    /// `name` writes to the bot alone.
    fn private(&self, name: &str, subject: &str, body: &str) -> Timestamp {
        self.mail(&address(name), BOT, subject, body)
    }

    /// One pass of the bot at the clock's time.
    fn run(&self) {
        self.bot.once(self.now());
    }

    /// One pass of the bot at `t` (the clock moves there): deadlines up to `t` fire.
    fn run_at(&self, t: Timestamp) {
        self.set_clock(t);
        self.run();
    }

    fn ghost(&self) -> Value {
        serde_json::from_str(&self.bot.cli_ok(&["state", "ghost", "--json"]))
            .expect("state ghost --json prints JSON")
    }

    /// Instance `n` in `state ghost --json`.
    fn instance(&self, n: u64) -> Value {
        self.ghost()["instances"]
            .as_array()
            .expect("instances")
            .iter()
            .find(|i| i["number"] == n)
            .cloned()
            .unwrap_or_else(|| panic!("no instance {n} in {}", self.ghost()))
    }

    /// `referee` starts a game on the list with `names`; the bot runs. The players'
    /// names in the order of their numbers.
    fn start(&self, referee: &str, names: &[&str]) -> Vec<String> {
        self.post(
            referee,
            "[ghost]",
            &format!("start with {}", names.join(", ")),
        );
        self.run();
        let instances = self.ghost()["instances"].clone();
        let newest = instances
            .as_array()
            .and_then(|i| i.last())
            .unwrap_or_else(|| panic!("no game started: {:#?}", self.subjects()));
        seat_names(newest)
    }

    /// Everything the bot sent, in the order it wrote it.
    fn outbox(&self) -> Vec<SentMail> {
        let rows: Value =
            serde_json::from_str(&self.bot.cli_ok(&["outbox", "--json"])).expect("json");
        let sent = self.bot.sent_mail();
        rows.as_array()
            .expect("rows")
            .iter()
            .map(|row| {
                let id = row["message_id"].as_str().expect("message_id");
                let id = id.trim_start_matches('<').trim_end_matches('>');
                sent.iter()
                    .find(|m| m.message_id == id)
                    .cloned()
                    .unwrap_or_else(|| panic!("{id} is not in the outbox Maildir"))
            })
            .collect()
    }

    fn subjects(&self) -> Vec<String> {
        self.outbox()
            .into_iter()
            .map(|m| format!("{:?} {}", m.to, m.subject))
            .collect()
    }

    /// The bot's answer to `name`'s line `line` (the last, if several).
    fn answer(&self, name: &str, line: &str) -> String {
        let quoted = format!("> {line}\n");
        self.outbox()
            .into_iter()
            .rev()
            .find(|m| m.is_to(&address(name)) && m.body.contains(&quoted))
            .map(|m| m.body)
            .unwrap_or_else(|| {
                panic!(
                    "no answer to {name}'s {line:?}; the bot sent {:#?}",
                    self.subjects()
                )
            })
    }

    /// The announcements of Ghost `n` on the list, in order.
    fn news(&self, n: u32) -> Vec<SentMail> {
        let tag = format!("[ghost {n}]");
        self.outbox()
            .into_iter()
            .filter(|m| m.is_to(LIST) && m.subject.starts_with(&tag))
            .collect()
    }

    /// The announcement of Ghost `n` whose body says `needle` (the last, if several).
    fn news_with(&self, n: u32, needle: &str) -> SentMail {
        let news = self.news(n);
        news.iter()
            .rev()
            .find(|m| m.body.contains(needle))
            .cloned()
            .unwrap_or_else(|| {
                panic!(
                    "no announcement of Ghost {n} says {needle:?}: {:#?}",
                    news.iter()
                        .map(|m| format!("{}\n{}", m.subject, m.body))
                        .collect::<Vec<_>>()
                )
            })
    }

    /// `name`'s balance in `currency`, as the accounts print it.
    fn balance(&self, name: &str, currency: &str) -> Option<String> {
        let accounts: Value =
            serde_json::from_str(&self.bot.cli_ok(&["state", "accounts", "--json"])).expect("json");
        let players: Value =
            serde_json::from_str(&self.bot.cli_ok(&["state", "players", "--json"])).expect("json");
        let id = players["players"]
            .as_array()
            .expect("players")
            .iter()
            .find(|p| p["name"] == name)
            .map(|p| p["id"].clone())
            .unwrap_or_else(|| panic!("no player {name}: {players}"));
        accounts["balances"]
            .as_array()
            .expect("balances")
            .iter()
            .find(|b| b["currency"] == currency && b["holder"]["player"] == id)
            .map(|b| b["amount"].as_str().expect("amount").to_owned())
    }
}

/// An instance's players' names, in the order of their numbers.
fn seat_names(instance: &Value) -> Vec<String> {
    let seats = instance["seats"].as_array().expect("seats");
    for (i, seat) in seats.iter().enumerate() {
        assert_eq!(seat["number"], i + 1, "numbered from 1: {instance}");
    }
    seats
        .iter()
        .map(|s| s["name"].as_str().expect("name").to_owned())
        .collect()
}

/// Seat `number` of an instance.
fn seat(instance: &Value, number: u64) -> &Value {
    instance["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .find(|s| s["number"] == number)
        .unwrap_or_else(|| panic!("no seat {number}: {instance}"))
}

/// Why seat `number` was removed (`null` while in the game).
fn removed(instance: &Value, number: u64) -> Value {
    seat(instance, number)["removed"]["why"]["kind"].clone()
}

/// The seat whose turn it is, or `None`.
fn turn(instance: &Value) -> Option<u64> {
    (instance["stage"]["kind"] == "turn").then(|| instance["stage"]["seat"].as_u64().expect("seat"))
}

fn turn_deadline(instance: &Value) -> Value {
    instance["stage"]["clock"]["deadline"].clone()
}

fn ts(t: Timestamp) -> Value {
    Value::String(t.to_string())
}

fn assert_has(text: &str, needles: &[&str]) {
    for needle in needles {
        assert!(text.contains(needle), "{needle:?} in:\n{text}");
    }
}

/// Section 1, "Equipment: none": a game is set up, played and won by mail alone.
#[test]
fn section_1_equipment_none_a_game_is_played_by_mail_alone() {
    let g = Nomic::new(&["Rita", "Alice", "Bob"]);
    let p = g.start("Rita", &["Alice", "Bob"]);
    g.post(&p[0], "[ghost 1]", "g");
    g.post(&p[1], "[ghost 1]", "resign");
    g.run();
    let game = g.instance(1);
    assert_eq!(game["stage"]["kind"], "over", "{game}");
    assert_eq!(game["winner"], 1);
    let report = g.news_with(1, "REFEREE'S REPORT");
    assert_eq!(report.subject, format!("[ghost 1] Ghost 1: {} wins", p[0]));
}

/// Section 2: "Players: minimum -- 2; maximum -- the number of active players when
/// an instance of Ghost is initiated; Referees -- one".
#[test]
fn section_2_players_minimum_two_maximum_the_active_players() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol", "Dave"]);
    g.post("Dave", "[nomic] vacation until 2026-05-20", "");
    g.post("Rita", "[ghost]", "start with Alice");
    g.post("Rita", "[ghost]", "start with Alice, Nobody");
    g.post("Rita", "[ghost]", "start with Alice, Dave");
    g.post("Rita", "[ghost]", "start with Alice, Rita");
    g.post("Rita", "[ghost]", "start with Alice, Alice");
    g.post("Rita", "[ghost]", "start duel with Alice, Bob, Carol");
    g.post("Stranger", "[ghost]", "start with Alice, Bob");
    g.run();
    assert_has(
        &g.answer("Rita", "start with Alice"),
        &["Refused: a game of Ghost needs at least 2 players, and 1 was listed."],
    );
    assert_has(
        &g.answer("Rita", "start with Alice, Nobody"),
        &["Refused: there is no player called Nobody."],
    );
    // Dave is on vacation: not an active player, so not one a game may begin with.
    assert_has(
        &g.answer("Rita", "start with Alice, Dave"),
        &["Refused: Dave is not an active player just now"],
    );
    assert_has(
        &g.answer("Rita", "start with Alice, Rita"),
        &["the referee cannot also be a player"],
    );
    assert_has(
        &g.answer("Rita", "start with Alice, Alice"),
        &["Refused: Alice is listed twice"],
    );
    assert_has(
        &g.answer("Rita", "start duel with Alice, Bob, Carol"),
        &["Refused: a Duel is played by two players, and 3 were listed."],
    );
    assert_has(
        &g.answer("Stranger", "start with Alice, Bob"),
        &["stranger@nomic.example is not an active player of the nomic"],
    );
    assert!(g.ghost()["instances"].as_array().expect("list").is_empty());

    // The most: every active player (four; Dave is away), with the moderator, who is
    // no player, as the one referee.
    let p = g.start("Mod", &["Rita", "Alice", "Bob", "Carol"]);
    assert_eq!(p.len(), 4);
    let game = g.instance(1);
    assert_eq!(game["began"], 4);
    assert_eq!(game["referee"]["address"], MODERATOR, "{game}");
    assert_eq!(game["referee"]["player"], Value::Null);
    let started = g.news_with(1, "started Ghost 1");
    assert_has(
        &started.body,
        &[
            "mod@nomic.example started Ghost 1 (rule 103), with 4 players: Rita, Alice, Bob, Carol.",
            "mod@nomic.example is its referee.",
        ],
    );
}

/// Section 2, second paragraph: a player removed from the game is no longer a player
/// in it; a removal is not necessarily a resignation (which destroys the ghost word),
/// though a resignation removes the player.
#[test]
fn section_2_a_removal_is_not_necessarily_a_resignation() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol"]);
    g.post(&p[0], "[ghost]", "s");
    g.post(&p[1], "[ghost]", "st");
    // ST is no word of four letters: the protest is invalid, and player 3 is removed,
    // but that is no resignation: the ghost word stands.
    g.post(&p[2], "[ghost]", "protest word");
    g.run();
    let game = g.instance(1);
    assert_eq!(removed(&game, 3), "invalid_protest", "{game}");
    assert_eq!(game["ghost_word"], "st");
    assert_eq!(turn(&game), Some(1));
    let news = g.news_with(1, "made an invalid protest");
    assert_eq!(
        news.subject,
        format!("[ghost 1] Ghost 1: {}'s turn, ghost word ST", p[0])
    );
    assert!(!news.body.contains("destroyed"), "{}", news.body);
    // Out of the game: no more plays.
    g.post(&p[2], "[ghost]", "leave");
    // A resignation removes the player and destroys the word.
    g.post(&p[0], "[ghost]", "resign");
    g.run();
    assert_has(
        &g.answer(&p[2], "leave"),
        &[
            "Refused: you are no longer a player in Ghost 1, so nothing was done. You were removed at",
            ": you made an invalid protest.",
        ],
    );
    let game = g.instance(1);
    assert_eq!(removed(&game, 1), "resigned");
    assert_eq!(game["winner"], 2);
    assert_has(
        &g.news_with(1, "REFEREE'S REPORT").body,
        &[
            &format!("{} resigned, and is out of the game.", p[0]),
            "the ghost word ST is destroyed.",
        ],
    );
}

/// Section 3: the referee sends the intent to start and the list of players; the
/// GamesMaster (the bot) announces the start publicly.
#[test]
fn section_3_the_referee_starts_an_instance_and_the_gamesmaster_announces_it() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol"]);
    // To the bot alone: the start is the referee's message to the GamesMaster.
    let started_at = g.private("Rita", "[ghost]", "start a game with Alice, Bob and Carol");
    g.run();
    let game = g.instance(1);
    let p = seat_names(&game);
    let mut sorted = p.clone();
    sorted.sort();
    assert_eq!(sorted, ["Alice", "Bob", "Carol"]);
    assert_eq!(game["referee"]["name"], "Rita");
    assert_eq!(game["started_at"], ts(started_at));
    assert_eq!(turn(&game), Some(1));
    assert_eq!(turn_deadline(&game), ts(started_at + days(3)));

    let news = g.news(1);
    assert_eq!(news.len(), 1, "one announcement");
    let announcement = &news[0];
    assert_eq!(
        announcement.subject,
        format!("[ghost 1] Ghost 1 begins: {} plays first", p[0])
    );
    assert_has(
        &announcement.body,
        &[
            &format!(
                "At {}, Rita started Ghost 1 (rule 103), with 3 players: Alice, Bob, Carol.",
                human_time(started_at)
            ),
            "Rita is its referee.",
            &format!("    1. {}\n    2. {}\n    3. {}\n", p[0], p[1], p[2]),
            &format!(
                "It is {}'s turn (player 1), until {} or until they play. There is no ghost word",
                p[0],
                human_time(started_at + days(3))
            ),
        ],
    );
    assert_has(
        &g.answer("Rita", "start a game with Alice, Bob and Carol"),
        &[
            "Done. Ghost 1 has begun, with you as its referee.",
            "The list has been told.",
        ],
    );
}

/// Section 4, first paragraph: numbers 1 to N at random; player 1 first, then in
/// increasing order, player 1 again after the highest; a turn begins when the
/// previous one ends.
#[test]
fn section_4_p1_numbers_at_random_and_turn_order_wraps() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol"]);
    // The numbers are a draw of the Officer in charge of Random Things, recorded.
    let random = g.bot.cli_ok(&["state", "random", "--json"]);
    assert!(
        random.contains("Ghost 1: the players' numbers, a shuffle of Alice, Bob, Carol as listed"),
        "{random}"
    );
    let t1 = g.post(&p[0], "[ghost]", "t");
    let t2 = g.post(&p[1], "[ghost]", "ta");
    let t3 = g.post(&p[2], "[ghost]", "tar");
    g.run();
    let subjects: Vec<String> = g.news(1).into_iter().map(|m| m.subject).collect();
    assert_eq!(
        subjects,
        [
            format!("[ghost 1] Ghost 1 begins: {} plays first", p[0]),
            format!("[ghost 1] Ghost 1: {}'s turn, ghost word T", p[1]),
            format!("[ghost 1] Ghost 1: {}'s turn, ghost word TA", p[2]),
            format!("[ghost 1] Ghost 1: {}'s turn, ghost word TAR", p[0]),
        ]
    );
    // Each turn began as the previous one ended, and lasts three days.
    for (who, began) in [(2, t1), (3, t2), (1, t3)] {
        let name = &p[who - 1];
        g.news_with(
            1,
            &format!(
                "It is {name}'s turn (player {who}), until {} or until they play.",
                human_time(began + days(3))
            ),
        );
    }
    assert_has(
        &g.news_with(1, "ghost word is TAR").body,
        &[&format!("After {} comes {}.", p[0], p[1])],
    );
    let game = g.instance(1);
    assert_eq!(turn(&game), Some(1));
    assert_eq!(game["stage"]["index"], 4);
    assert_eq!(game["stage"]["began_at"], ts(t3));
}

/// Section 4, first paragraph: "Each player's turn shall last the lesser of three
/// days or until that player plays"; section 4 (4): "A player who does not make a
/// move within his turn is assumed to have resigned."
#[test]
fn section_4_p1_a_turn_ends_after_three_days_as_a_resignation() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol"]);
    let played = g.post(&p[0], "[ghost]", "g");
    let deadline = played + days(3);
    // Half a day before the deadline, player 2 has been reminded.
    g.run_at(deadline - SignedDuration::from_hours(12));
    assert!(
        g.outbox().iter().any(|m| m.is_to(&address(&p[1]))
            && m.subject
                .contains(&format!("your turn in Ghost 1 by {}", human_time(deadline)))),
        "{:#?}",
        g.subjects()
    );
    assert!(removed(&g.instance(1), 2).is_null());
    // Player 2 writes a minute too late; the bot runs a minute after that.
    g.set_clock(deadline);
    g.post(&p[1], "[ghost]", "gh");
    g.run();

    let game = g.instance(1);
    assert_eq!(removed(&game, 2), "timed_out", "{game}");
    assert_eq!(
        seat(&game, 2)["removed"]["at"],
        ts(deadline),
        "at the deadline"
    );
    assert_eq!(
        game["ghost_word"],
        Value::Null,
        "a resignation destroys the word"
    );
    assert_eq!(turn(&game), Some(3));
    assert_eq!(game["stage"]["began_at"], ts(deadline));
    assert_eq!(turn_deadline(&game), ts(deadline + days(3)));

    let news = g.news_with(1, "did not play within their turn");
    assert_eq!(
        news.subject,
        format!("[ghost 1] Ghost 1: {}'s turn, no ghost word", p[2])
    );
    assert_has(
        &news.body,
        &[
            &format!(
                "{}: {} did not play within their turn, so is assumed to have resigned, and is out of the game.",
                human_time(deadline),
                p[1]
            ),
            "the ghost word G is destroyed.",
            &format!(
                "It is {}'s turn (player 3), until {}",
                p[2],
                human_time(deadline + days(3))
            ),
        ],
    );
    assert_has(
        &g.answer(&p[1], "gh"),
        &[&format!(
            "Refused: you are no longer a player in Ghost 1, so nothing was done. You were removed at {}: you did not play within your turn, so were assumed to have resigned.",
            human_time(deadline)
        )],
    );
}

/// Section 4, first paragraph: "...unless that player's play was a protest, in which
/// case it begins when the protest is resolved"; section 4 (3): "When a player
/// protests the ghost word, play is suspended until the protest is resolved."
#[test]
fn section_4_p1_after_a_protest_the_next_turn_begins_when_it_is_resolved() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol", "Dave"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol", "Dave"]);
    g.post(&p[0], "[ghost]", "h");
    g.post(&p[1], "[ghost]", "ho");
    let protested = g.post(
        &p[2],
        "[ghost]",
        "protest: it cannot be found within any word",
    );
    g.run();
    let game = g.instance(1);
    assert_eq!(game["stage"]["kind"], "protest", "{game}");
    assert_eq!(game["stage"]["protest"]["against"], 2);
    assert_eq!(
        game["stage"]["protest"]["clock"]["deadline"],
        ts(protested + days(3))
    );
    let news = g.news_with(1, "protested HO");
    assert_eq!(
        news.subject,
        format!(
            "[ghost 1] Ghost 1: protest, {} to answer by {}",
            p[1],
            human_time(protested + days(3))
        )
    );
    // While it is pending, no one plays, not even the next player.
    g.set_clock(protested + days(1));
    g.post(&p[3], "[ghost]", "hot");
    let answered = g.post(&p[1], "[ghost]", "word shot");
    g.run();
    assert_has(
        &g.answer(&p[3], "hot"),
        &[&format!(
            "Refused: play in Ghost 1 is suspended until the protest of HO is resolved: {} has until {} to post a word containing it.",
            p[1],
            human_time(protested + days(3))
        )],
    );
    // Resolved at the answer (invalid: the protester is out); the next turn, player
    // 4's, begins then.
    let game = g.instance(1);
    assert_eq!(removed(&game, 3), "invalid_protest");
    assert_eq!(turn(&game), Some(4));
    assert_eq!(game["stage"]["began_at"], ts(answered));
    assert_eq!(turn_deadline(&game), ts(answered + days(3)));
    assert_eq!(game["ghost_word"], Value::Null);
}

/// Section 4, second paragraph: before the first turn of the player with the highest
/// number, a player may ask to be added; all players are told; the newcomer gets the
/// number one greater than the highest.
#[test]
fn section_4_p2_additions_get_the_next_number_until_the_highest_numbers_first_turn() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol", "Dave", "Erin", "Fay"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol"]);
    g.post(&p[0], "[ghost]", "k");
    // Dave tells the referee (the bot) privately; the addition goes to the list.
    let added = g.private("Dave", "[ghost]", "add me");
    // The referee cannot join.
    g.post("Rita", "[ghost]", "add me");
    g.run();
    let game = g.instance(1);
    assert_eq!(seat(&game, 4)["name"], "Dave", "{game}");
    assert_eq!(
        seat(&game, 4)["addition_protest_until"],
        ts(added + days(3))
    );
    assert_has(
        &g.news_with(1, "asked to join").body,
        &[
            &format!(
                "{}: Dave asked to join and was added as player 4. Any player already in the game may protest the addition until {} or until Dave's first turn begins, whichever comes first.",
                human_time(added),
                human_time(added + days(3))
            ),
            &format!(
                "The players still in, in their order of play: {}, {}, {}, Dave.",
                p[0], p[1], p[2]
            ),
            "Players may still be added",
        ],
    );
    assert_has(
        &g.answer("Rita", "add me"),
        &["Refused: you are the referee of Ghost 1"],
    );
    // Player 3's first turn is no longer the highest number's: Erin may still join.
    g.post(&p[1], "[ghost]", "ki");
    g.post("Erin", "[ghost]", "add me");
    g.post(&p[2], "[ghost]", "kin");
    // Dave plays after player 3, then Erin; then player 1 again.
    g.post("Dave", "[ghost]", "king");
    // Erin's first turn has begun: no more additions.
    g.post("Fay", "[ghost]", "add me");
    g.run();
    let game = g.instance(1);
    assert_eq!(seat(&game, 5)["name"], "Erin");
    assert_eq!(turn(&game), Some(5));
    assert_has(
        &g.answer("Fay", "add me"),
        &[
            "Refused: players may be added to Ghost 1 only before the first turn of the player with the highest number (Erin), and that turn has begun.",
        ],
    );
    g.post("Erin", "[ghost]", "kings");
    g.run();
    assert_eq!(turn(&g.instance(1)), Some(1), "after the highest, player 1");
}

/// Section 4, second paragraph: any player already in the game may protest an
/// addition, and the newcomer is removed.
#[test]
fn section_4_p2_an_addition_protested_away() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol", "Dave", "Erin"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol"]);
    g.post("Dave", "[ghost]", "add me");
    g.post("Erin", "[ghost]", "add me");
    // Erin was not in the game when Dave was added.
    g.post("Erin", "[ghost]", "protest addition Dave");
    // Protests are public.
    g.private(&p[1], "[ghost]", "protest addition Dave");
    let protested = g.post(&p[1], "[ghost]", "protest the addition of Dave");
    g.run();
    assert_has(
        &g.answer("Erin", "protest addition Dave"),
        &[
            "Refused: only a player who was in Ghost 1 before Dave was added may protest the addition.",
        ],
    );
    let game = g.instance(1);
    assert_eq!(removed(&game, 4), "addition_protested", "{game}");
    assert_eq!(seat(&game, 4)["removed"]["why"]["by"], 2);
    assert_eq!(seat(&game, 4)["removed"]["at"], ts(protested));
    assert!(removed(&game, 5).is_null(), "Erin stays, as player 5");
    assert_eq!(turn(&game), Some(1), "it was no one's play");
    assert_has(
        &g.news_with(1, "protested the addition").body,
        &[
            &format!(
                "{}: {} protested the addition of Dave, so Dave is out of the game.",
                human_time(protested),
                p[1]
            ),
            &format!(
                "in their order of play: {}, {}, {}, Erin.",
                p[0], p[1], p[2]
            ),
        ],
    );
    // Only one answer was "Done": the private protest was refused.
    let refused = g
        .outbox()
        .into_iter()
        .filter(|m| {
            m.is_to(&address(&p[1]))
                && m.body.contains("> protest addition Dave\n")
                && m.body.contains("Refused: plays in Ghost are public")
        })
        .count();
    assert_eq!(refused, 1, "{:#?}", g.subjects());
}

/// Section 4, second paragraph: the newcomer may be removed only "before the
/// beginning of the new player's first turn, or three days after their addition,
/// whichever comes first".
#[test]
fn section_4_p2_an_addition_is_final_after_three_days_or_at_the_newcomers_first_turn() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol", "Dave", "Erin"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol"]);
    g.post(&p[0], "[ghost]", "m");
    let dave_added = g.post("Dave", "[ghost]", "add me");
    // Player 2 takes two days; Erin joins in player 3's turn.
    g.set_clock(dave_added + days(2));
    g.post(&p[1], "[ghost]", "ma");
    let erin_added = g.post("Erin", "[ghost]", "add me");
    // Three days after Dave's addition, his first turn has not begun, but too late.
    g.set_clock(dave_added + days(3));
    g.post(&p[0], "[ghost]", "protest addition Dave");
    g.run();
    let game = g.instance(1);
    assert_eq!(turn(&game), Some(3), "{game}");
    assert_eq!(seat(&game, 5)["name"], "Erin");
    assert_has(
        &g.answer(&p[0], "protest addition Dave"),
        &[&format!(
            "Refused: Dave's addition can no longer be protested: the time to protest it ended at {}.",
            human_time(dave_added + days(3))
        )],
    );
    // Player 3 and Dave play: Erin's first turn begins, well within her three days.
    g.post(&p[2], "[ghost]", "mat");
    g.post("Dave", "[ghost]", "matt");
    g.post(&p[1], "[ghost]", "protest addition Erin");
    g.run();
    assert!(g.now() < erin_added + days(3));
    assert_has(
        &g.answer(&p[1], "protest addition Erin"),
        &["Refused: Erin's addition can no longer be protested: their first turn has begun."],
    );
    let game = g.instance(1);
    assert_eq!(turn(&game), Some(5), "{game}");
    assert!(
        removed(&game, 4).is_null() && removed(&game, 5).is_null(),
        "{game}"
    );
}

/// Section 4, second paragraph: "Players may not be added to instances of Ghost being
/// played as a Duel."
#[test]
fn section_4_p2_players_may_not_be_added_to_a_duel() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol"]);
    g.post("Rita", "[ghost]", "start duel with Alice, Bob");
    g.post("Carol", "[ghost]", "add me");
    g.run();
    assert_has(
        &g.answer("Carol", "add me"),
        &["Refused: Ghost 1 is played as a Duel, and no players may be added to a Duel."],
    );
    let game = g.instance(1);
    assert_eq!(game["duel"], true);
    assert_eq!(game["seats"].as_array().expect("seats").len(), 2);
    assert!(g.news(1)[0].subject.contains("begins as a Duel"));
}

/// Section 4, third paragraph: players may not use dictionaries to aid their play;
/// the official dictionary is the bot's, for protests, and it answers no player's
/// question about a word.
#[test]
fn section_4_p3_the_bot_looks_up_no_word_for_a_player() {
    let g = Nomic::new(&["Rita", "Alice", "Bob"]);
    let p = g.start("Rita", &["Alice", "Bob"]);
    g.post(&p[0], "[ghost]", "u");
    g.private(&p[1], "[ghost]", "check upe");
    g.private(&p[1], "[ghost]", "is upe inside a word");
    g.run();
    for line in ["check upe", "is upe inside a word"] {
        let answer = g.answer(&p[1], line);
        assert_has(&answer, &["Not understood: this is no [ghost] command."]);
        let quoted = format!("> {line}\n");
        let (_, said) = answer.split_once(&quoted).expect("the line quoted");
        let (said, _) = said.split_once("In all:").expect("a summary line");
        assert!(!said.to_lowercase().contains("upe "), "{said}");
    }
    assert_eq!(g.instance(1)["ghost_word"], "u");
}

/// Section 4, fourth paragraph: in his turn, each player begins, continues, protests
/// or resigns, "by sending a message describing the play to all players and the
/// referee": a play sent to the bot alone is refused, and so is a play out of turn.
#[test]
fn section_4_p4_plays_are_public_and_in_turn() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol"]);
    let p = g.start("Rita", &["Alice", "Bob"]);
    g.private(&p[0], "[ghost]", "s");
    g.post(&p[1], "[ghost]", "s");
    g.post("Carol", "[ghost]", "s");
    g.post("Rita", "[ghost]", "s");
    g.run();
    assert_has(
        &g.answer(&p[0], "s"),
        &[
            "Refused: plays in Ghost are public, and this came to the bot alone. Send it to the list, with [ghost 1] in the subject",
        ],
    );
    assert_has(
        &g.answer(&p[1], "s"),
        &[&format!(
            "Refused: it is not your turn in Ghost 1; it is {}'s.",
            p[0]
        )],
    );
    assert_has(
        &g.answer("Carol", "s"),
        &["Refused: you are not a player in Ghost 1."],
    );
    assert_has(
        &g.answer("Rita", "s"),
        &["Refused: you are not a player in Ghost 1; you are its referee."],
    );
    let game = g.instance(1);
    assert_eq!(game["ghost_word"], Value::Null);
    assert_eq!(turn(&game), Some(1));
    assert_eq!(g.news(1).len(), 1, "nothing announced but the start");
    // The same play on the list is accepted and announced.
    g.post(&p[0], "[ghost 1]", "s");
    g.run();
    assert_eq!(g.instance(1)["ghost_word"], "s");
    assert_has(
        &g.news_with(1, "began the ghost word S").body,
        &[&format!("{} began the ghost word S.", p[0])],
    );
}

/// Section 4 (1): "A player may only begin a new ghost word when there is no existing
/// ghost word. He shall do so by naming any letter of the alphabet."
#[test]
fn section_4_play_1_begin_only_with_no_ghost_word() {
    let g = Nomic::new(&["Rita", "Alice", "Bob"]);
    let p = g.start("Rita", &["Alice", "Bob"]);
    g.post(&p[0], "[ghost]", "protest word");
    g.post(&p[0], "[ghost]", "begin st");
    g.post(&p[0], "[ghost]", "begin 7");
    g.post(&p[0], "[ghost]", "begin with the letter Q");
    g.post(&p[1], "[ghost]", "begin u");
    g.run();
    assert_has(
        &g.answer(&p[0], "protest word"),
        &["Refused: there is no ghost word in Ghost 1, so there is nothing to protest."],
    );
    assert_has(
        &g.answer(&p[0], "begin st"),
        &[
            "Refused: there is no ghost word in Ghost 1, so you begin one by naming a single letter, not \"ST\".",
        ],
    );
    assert_has(
        &g.answer(&p[0], "begin 7"),
        &["Not understood: \"7\" is not a string of letters."],
    );
    assert_has(
        &g.answer(&p[1], "begin u"),
        &["Refused: there is a ghost word already, Q, so you cannot begin a new one."],
    );
    let game = g.instance(1);
    assert_eq!(game["ghost_word"], "q");
    assert_eq!(game["word_by"], 1);
    assert_eq!(turn(&game), Some(2));
}

/// Section 4 (2): continue with the existing word and one letter added at either the
/// beginning or the end; that string becomes the new ghost word.
#[test]
fn section_4_play_2_continue_one_letter_at_either_end() {
    let g = Nomic::new(&["Rita", "Alice", "Bob"]);
    let p = g.start("Rita", &["Alice", "Bob"]);
    g.post(&p[0], "[ghost]", "e");
    g.post(&p[1], "[ghost]", "PE"); // at the beginning, in capitals
    g.post(&p[0], "[ghost]", "play per"); // at the end
    g.post(&p[1], "[ghost]", "perso"); // two letters
    g.post(&p[1], "[ghost]", "pxer"); // in the middle
    g.post(&p[1], "[ghost]", "pers");
    g.post(&p[0], "[ghost]", "continue upers");
    g.run();
    let bad = |line: &str, upper: &str| {
        assert_has(
            &g.answer(&p[1], line),
            &[&format!(
                "Refused: {upper} does not continue the ghost word PER. Write the whole new string: PER with one letter added at the beginning (?PER) or at the end (PER?)."
            )],
        );
    };
    bad("perso", "PERSO");
    bad("pxer", "PXER");
    let game = g.instance(1);
    assert_eq!(game["ghost_word"], "upers", "{game}");
    assert_eq!(game["word_by"], 1);
    let words: Vec<&str> = game["history"]
        .as_array()
        .expect("history")
        .iter()
        .filter(|r| r["event"]["kind"] == "played")
        .map(|r| r["event"]["word"].as_str().expect("word"))
        .collect();
    assert_eq!(words, ["e", "pe", "per", "pers", "upers"]);
    assert_has(
        &g.news_with(1, "continued PE to PER").body,
        &[&format!("{} continued PE to PER.", p[0])],
    );
    assert_eq!(
        g.news_with(1, "continued PERS to UPERS").subject,
        format!("[ghost 1] Ghost 1: {}'s turn, ghost word UPERS", p[1])
    );
}

/// Plays player `k` (0-based, cycling over `p`) the prefixes of `word` one letter at a
/// time, from the first letter: the last is made by player `(word.len() - 1) % n`.
fn spell(g: &Nomic, p: &[String], word: &str) {
    for end in 1..=word.len() {
        g.post(&p[(end - 1) % p.len()], "[ghost]", &word[..end]);
    }
}

/// Section 4 (3): "uperso" can be found within "supersonic": the protested player
/// posts it, the referee finds it in the official dictionary, and the protest is
/// invalid: the protester is removed, and the ghost word destroyed.
#[test]
fn section_4_play_3_uperso_is_inside_supersonic_invalid_protest() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol"]);
    spell(&g, &p, "uperso"); // player 3 makes UPERSO
    let protested = g.post(&p[0], "[ghost]", "protest not inside");
    g.post(&p[1], "[ghost]", "word supersonic"); // not the one protested
    g.post(&p[2], "[ghost]", "word supper"); // no UPERSO in it
    let answered = g.post(&p[2], "[ghost]", "word supersonic");
    g.run();
    assert_has(
        &g.news_with(1, "protested UPERSO").body,
        &[&format!(
            "{}: {} protested UPERSO, against {}: it cannot be found within any word in the official dictionary. {} has until {} to post a word containing it.",
            human_time(protested),
            p[0],
            p[2],
            p[2],
            human_time(protested + days(3))
        )],
    );
    assert_has(
        &g.answer(&p[1], "word supersonic"),
        &[&format!(
            "Refused: the protest in Ghost 1 is against {}; only they may answer it.",
            p[2]
        )],
    );
    assert_has(
        &g.answer(&p[2], "word supper"),
        &[
            "Refused: SUPPER does not contain the ghost word UPERSO, so it does not answer the protest.",
        ],
    );
    let news = g.news_with(1, "answered SUPERSONIC");
    assert_has(
        &news.body,
        &[
            &format!(
                "{}: the protest of {} against {} is invalid: {} answered SUPERSONIC, which is a word of the official dictionary.",
                human_time(answered),
                p[0],
                p[2],
                p[2]
            ),
            &format!("{} made an invalid protest, and is out of the game.", p[0]),
            "the ghost word UPERSO is destroyed.",
        ],
    );
    assert_eq!(
        news.subject,
        format!("[ghost 1] Ghost 1: {}'s turn, no ghost word", p[1])
    );
    let game = g.instance(1);
    assert_eq!(removed(&game, 1), "invalid_protest");
    assert!(removed(&game, 3).is_null());
    assert_eq!(game["ghost_word"], Value::Null);
    assert_eq!(turn(&game), Some(2));
}

/// Section 4 (3): "spronc" cannot be found within any word: the protested player's
/// answer is no word of the official dictionary, so the protest is valid: they are
/// removed, and the ghost word destroyed.
#[test]
fn section_4_play_3_spronc_is_inside_nothing_valid_protest() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol"]);
    spell(&g, &p, "spronc"); // player 3 makes SPRONC
    g.post(&p[0], "[ghost]", "protest: spronc is not inside any word");
    let answered = g.post(&p[2], "[ghost]", "word spronco");
    g.run();
    let game = g.instance(1);
    assert_eq!(removed(&game, 3), "valid_protest", "{game}");
    assert!(removed(&game, 1).is_null());
    assert_eq!(game["ghost_word"], Value::Null);
    // The protester played last: the next turn is player 2's, from the resolution.
    assert_eq!(turn(&game), Some(2));
    assert_eq!(game["stage"]["began_at"], ts(answered));
    assert_has(
        &g.news_with(1, "answered SPRONCO").body,
        &[
            &format!(
                "the protest of {} against {} is valid: {} answered SPRONCO, which is not a word of the official dictionary.",
                p[0], p[2], p[2]
            ),
            &format!(
                "{} had a valid protest made against them, and is out of the game.",
                p[2]
            ),
            "the ghost word SPRONC is destroyed.",
        ],
    );
}

/// Section 4 (3): the protested player "has three days to post a word containing the
/// ghost word. If he does not, the protest is resolved as valid."
#[test]
fn section_4_play_3_an_unanswered_not_inside_protest_is_valid_after_three_days() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol"]);
    spell(&g, &p, "zq"); // player 2 makes ZQ
    let protested = g.post(&p[2], "[ghost]", "protest not inside");
    let deadline = protested + days(3);
    g.set_clock(deadline);
    g.post(&p[1], "[ghost]", "word zqa");
    g.run();
    let game = g.instance(1);
    assert_eq!(removed(&game, 2), "valid_protest", "{game}");
    assert_eq!(seat(&game, 2)["removed"]["at"], ts(deadline));
    assert_eq!(game["ghost_word"], Value::Null);
    assert_eq!(turn(&game), Some(1));
    assert_eq!(game["stage"]["began_at"], ts(deadline));
    assert_has(
        &g.news_with(1, "did not post a word containing ZQ in time")
            .body,
        &[&format!(
            "{}: the protest of {} against {} is valid: {} did not post a word containing ZQ in time.",
            human_time(deadline),
            p[2],
            p[1],
            p[1]
        )],
    );
    assert_has(
        &g.answer(&p[1], "word zqa"),
        &[&format!(
            "Refused: you are no longer a player in Ghost 1, so nothing was done. You were removed at {}: a valid protest was made against you.",
            human_time(deadline)
        )],
    );
}

/// Section 4 (3): a protest that the ghost word is a word of four or more letters in
/// the official dictionary, when it is: valid, the player who made it is removed and
/// the word destroyed.
#[test]
fn section_4_play_3_a_word_of_four_or_more_letters_valid_protest() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol"]);
    spell(&g, &p, "tart"); // player 1 makes TART
    let protested = g.post(&p[1], "[ghost]", "protest: it is a word");
    g.run();
    let game = g.instance(1);
    assert_eq!(removed(&game, 1), "valid_protest", "{game}");
    assert_eq!(game["ghost_word"], Value::Null);
    assert_eq!(turn(&game), Some(3), "after the protester");
    assert_eq!(game["stage"]["began_at"], ts(protested));
    let news = g.news_with(1, "protested TART");
    assert_eq!(
        news.subject,
        format!("[ghost 1] Ghost 1: {}'s turn, no ghost word", p[2])
    );
    assert_has(
        &news.body,
        &[
            &format!(
                "{} protested TART, against {}: it is a word of four or more letters in the official dictionary.",
                p[1], p[0]
            ),
            &format!(
                "the protest of {} against {} is valid: TART is a word of four or more letters in the official dictionary.",
                p[1], p[0]
            ),
            &format!("{} had a valid protest made against them", p[0]),
            "the ghost word TART is destroyed.",
        ],
    );
}

/// Section 4 (3): the same protest when the ghost word is a word of fewer than four
/// letters, or no word: invalid, the protester is removed, and the word stands.
#[test]
fn section_4_play_3_not_a_word_of_four_or_more_letters_invalid_protest() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol", "Dave"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol", "Dave"]);
    spell(&g, &p, "tar"); // player 3 makes TAR, a word of three letters
    g.post(&p[3], "[ghost]", "protest word");
    g.run();
    let game = g.instance(1);
    assert_eq!(removed(&game, 4), "invalid_protest", "{game}");
    assert_eq!(
        game["ghost_word"], "tar",
        "an invalid protest leaves the word"
    );
    assert_eq!(turn(&game), Some(1));
    assert_has(
        &g.news_with(1, "protested TAR").body,
        &[&format!(
            "the protest of {} against {} is invalid: TAR is not a word of four or more letters in the official dictionary.",
            p[3], p[2]
        )],
    );
    // TARB has four letters and is no word.
    g.post(&p[0], "[ghost]", "tarb");
    g.post(
        &p[1],
        "[ghost]",
        "protest: tarb is a word of four or more letters",
    );
    g.run();
    let game = g.instance(1);
    assert_eq!(removed(&game, 2), "invalid_protest", "{game}");
    assert_eq!(game["ghost_word"], "tarb");
    assert_eq!(turn(&game), Some(3));
    assert_has(
        &g.news_with(1, "protested TARB").body,
        &["TARB is not a word of four or more letters in the official dictionary."],
    );
}

/// Section 4 (3): the protested player "has three days to post a word containing
/// the ghost word": the word posted alone on the list is such a post.
///
/// BUG: the bot reads a bare word as a play, refuses it because play is suspended,
/// and tells the protested player that they have until the deadline "to post a word
/// containing it", which is what they just did.
#[test]
fn section_4_play_3_the_protested_player_may_post_the_word_alone() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol"]);
    spell(&g, &p, "uperso"); // player 3 makes UPERSO
    g.post(&p[0], "[ghost]", "protest not inside");
    g.post(&p[2], "[ghost]", "supersonic");
    g.run();
    let answer = g.answer(&p[2], "supersonic");
    assert!(
        !answer.contains(&format!("{} has until", p[2])),
        "the protested player is not told to do what they just did:\n{answer}"
    );
    let game = g.instance(1);
    assert_eq!(removed(&game, 1), "invalid_protest", "{game}");
    assert_eq!(turn(&game), Some(2));
}

/// Section 4 (3) and the paragraph after (4): a protested player who leaves before
/// answering. The engine's reading (ghost/rules.rs, `Step::remove`): the bot settles the
/// protest at once with the dictionary, as no player in the game can answer for it.
#[test]
fn section_4_play_3_a_protested_player_who_leaves_without_answering_loses_the_protest() {
    // "the player against whom the protest was made has three days to post a word
    // containing the ghost word. If he does not, the protest is resolved as valid":
    // leaving is not posting one, even for UPERSO, which is inside SUPERSONIC.
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol", "Dave"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol", "Dave"]);
    spell(&g, &p, "uperso"); // player 2 makes UPERSO
    g.post(&p[2], "[ghost]", "protest not inside");
    let left = g.post(&p[1], "[ghost]", "leave");
    g.run();
    let game = g.instance(1);
    assert_eq!(removed(&game, 2), "left", "{game}");
    assert!(removed(&game, 3).is_null(), "the protester stays: {game}");
    assert_eq!(game["ghost_word"], Value::Null);
    assert_eq!(turn(&game), Some(4));
    assert_eq!(game["stage"]["began_at"], ts(left));
    assert_has(
        &g.news_with(1, "without posting").body,
        &[&format!(
            "the protest of {} against {} is valid: {} left the game without posting a word containing UPERSO.",
            p[2], p[1], p[1]
        )],
    );
}

/// Section 4 (4): "A player who resigns is removed from the game... When a player
/// resigns, the ghost word is destroyed."
#[test]
fn section_4_play_4_resign_removes_the_player_and_destroys_the_ghost_word() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol"]);
    g.post(&p[0], "[ghost]", "w");
    let resigned = g.post(&p[1], "[ghost]", "I resign");
    g.run();
    let game = g.instance(1);
    assert_eq!(removed(&game, 2), "resigned", "{game}");
    assert!(removed(&game, 3).is_null());
    assert_eq!(game["ghost_word"], Value::Null);
    assert_eq!(turn(&game), Some(3));
    assert_eq!(game["stage"]["began_at"], ts(resigned));
    let news = g.news_with(1, "resigned");
    assert_eq!(
        news.subject,
        format!("[ghost 1] Ghost 1: {}'s turn, no ghost word", p[2])
    );
    assert_has(
        &news.body,
        &[
            &format!("{} resigned, and is out of the game.", p[1]),
            "the ghost word W is destroyed.",
            &format!(
                "There is no ghost word: {} may begin one with any letter.",
                p[2]
            ),
        ],
    );
}

/// Section 4, after (4): "A player may remove themselves from an instance of the game
/// at any time by posting a message to that effect. If it was their turn, they are
/// assumed to have resigned."
#[test]
fn section_4_leave_at_any_time_and_in_turn_it_is_a_resignation() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol", "Dave"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol", "Dave"]);
    let played = g.post(&p[0], "[ghost]", "y");
    g.private(&p[3], "[ghost]", "leave");
    g.post(&p[3], "[ghost]", "leave the game");
    g.run();
    assert_has(
        &g.answer(&p[3], "leave"),
        &["Refused: plays in Ghost are public"],
    );
    let game = g.instance(1);
    assert_eq!(removed(&game, 4), "left", "{game}");
    assert_eq!(game["ghost_word"], "y", "out of turn: no resignation");
    assert_eq!(turn(&game), Some(2));
    assert_eq!(
        turn_deadline(&game),
        ts(played + days(3)),
        "the turn goes on"
    );
    assert_has(
        &g.news_with(1, "left the game").body,
        &[&format!("{} left the game, and is out of the game.", p[3])],
    );
    // Player 2 leaves in turn: a resignation.
    g.post(&p[1], "[ghost]", "leave");
    g.run();
    let game = g.instance(1);
    assert_eq!(removed(&game, 2), "left");
    assert_eq!(game["ghost_word"], Value::Null);
    assert_eq!(turn(&game), Some(3));
    assert_has(
        &g.news_with(1, "which counts as a resignation").body,
        &[
            &format!(
                "{} left the game during their turn, which counts as a resignation, and is out of the game.",
                p[1]
            ),
            "the ghost word Y is destroyed.",
        ],
    );
}

/// Section 4, after (4): "If they leave Ackanomic, they are assumed to have posted
/// such a message."
#[test]
fn section_4_leaving_the_nomic_leaves_the_game() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol", "Dave"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol", "Dave"]);
    g.post(&p[0], "[ghost]", "o");
    // Player 4, out of turn, then player 2, in turn, leave the nomic.
    g.post(&p[3], "[nomic] leave", "");
    g.run();
    let game = g.instance(1);
    assert_eq!(removed(&game, 4), "left_nomic", "{game}");
    assert_eq!(game["ghost_word"], "o");
    assert_eq!(turn(&game), Some(2));
    assert_has(
        &g.news_with(1, "left the nomic").body,
        &[&format!(
            "{} left the nomic, so {} is out of the game too.",
            p[3], p[3]
        )],
    );
    g.post(&p[1], "[nomic] leave", "");
    g.run();
    let game = g.instance(1);
    assert_eq!(removed(&game, 2), "left_nomic");
    assert_eq!(game["ghost_word"], Value::Null);
    assert_eq!(turn(&game), Some(3));
    assert_has(
        &g.news_with(1, "this counts as a resignation").body,
        &[
            &format!(
                "{} left the nomic, so {} is out of the game too; as it was {}'s turn, this counts as a resignation.",
                p[1], p[1], p[1]
            ),
            "the ghost word O is destroyed.",
        ],
    );
}

/// Player `p[k]` resigns in their turn, for each `k` in `order`.
fn resign_in_turn(g: &Nomic, p: &[String], order: &[usize]) {
    for &k in order {
        g.post(&p[k], "[ghost]", "resign");
    }
}

/// Section 5: "If exactly one player remains in the game, that player wins... the
/// referee shall receive 8 A$... fewer than four players began the game, the winner
/// receives four points."
#[test]
fn section_5_winning_and_rewards_referee_8_a_winner_4_points_when_fewer_than_four_began() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol"]);
    g.post(&p[0], "[ghost]", "a");
    resign_in_turn(&g, &p, &[1]);
    // Two players are left: no winner yet.
    g.run();
    assert_eq!(g.instance(1)["winner"], Value::Null);
    let ended = g.post(&p[2], "[ghost]", "resign");
    g.run();
    let game = g.instance(1);
    assert_eq!(game["stage"]["kind"], "over", "{game}");
    assert_eq!(game["winner"], 1);
    assert_eq!(game["rewards"]["began"], 3);
    assert_eq!(g.balance("Rita", "A$").as_deref(), Some("8"));
    assert_eq!(g.balance(&p[0], "points").as_deref(), Some("4"));
    assert_eq!(g.balance(&p[1], "points"), None);
    assert_eq!(g.balance(&p[2], "points"), None);
    let report = g.news_with(1, "REFEREE'S REPORT");
    assert_eq!(report.subject, format!("[ghost 1] Ghost 1: {} wins", p[0]));
    assert_has(
        &report.body,
        &[
            &format!("{} is the only player left in Ghost 1, and wins.", p[0]),
            "3 players began the game.",
            "Rita receives 8 A$, as the referee.",
            &format!("{} receives 4 points, as the winner.", p[0]),
            &format!("    1. {}: the winner", p[0]),
            &format!("    3. {}: out at {} (resigned)", p[2], human_time(ended)),
            "The history of the game:",
        ],
    );
    // The random period opened for the numbers ends with the game: its seed is
    // published with the draw, whose result is the order of play (entry k names the
    // listed player who got number k + 1).
    let reveal = g.news_with(1, "Its seed was:");
    assert_eq!(
        reveal.subject,
        "[ghost 1] Random period \"ghost 1\": the seed and every draw"
    );
    let listed = ["Alice", "Bob", "Carol"];
    let result = reveal
        .body
        .lines()
        .find_map(|l| l.trim().strip_prefix("Result: "))
        .unwrap_or_else(|| panic!("{}", reveal.body));
    let order: Vec<&str> = result
        .split(", ")
        .map(|k| listed[k.parse::<usize>().expect("an index")])
        .collect();
    assert_eq!(order, p, "the numbers are the published draw");
    // The game is over: no more plays.
    g.post(&p[0], "[ghost 1]", "b");
    g.post(&p[0], "[ghost]", "c");
    g.run();
    assert_has(
        &g.answer(&p[0], "b"),
        &[&format!("Refused: Ghost 1 is over; {} won.", p[0])],
    );
    assert_has(
        &g.answer(&p[0], "c"),
        &["Refused: no game of Ghost is running. Past games: [ghost 1]"],
    );
}

/// Section 5: "If from four to eight players began the game, the winner receives
/// points equal to the number of players that began the game" (players added later
/// do not count).
#[test]
fn section_5_winning_and_rewards_points_equal_to_the_players_who_began_from_four_to_eight() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol", "Dave", "Erin", "Fay"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol", "Dave", "Erin"]);
    g.post("Fay", "[ghost]", "add me");
    let mut p = p;
    p.push("Fay".to_owned());
    resign_in_turn(&g, &p, &[0, 1, 2, 3, 4]);
    g.run();
    let game = g.instance(1);
    assert_eq!(game["winner"], 6, "{game}");
    assert_eq!(game["rewards"]["began"], 5);
    assert_eq!(g.balance("Fay", "points").as_deref(), Some("5"));
    assert_eq!(g.balance("Rita", "A$").as_deref(), Some("8"));
    assert_has(
        &g.news_with(1, "REFEREE'S REPORT").body,
        &[
            "5 players began the game.",
            "Fay receives 5 points, as the winner.",
        ],
    );
}

/// Section 5: "If more than eight players began the game, the winner receives 8
/// points."
#[test]
fn section_5_winning_and_rewards_eight_points_when_more_than_eight_began() {
    let names = [
        "Alice", "Bob", "Carol", "Dave", "Erin", "Fay", "Gus", "Hal", "Ivy",
    ];
    let g = Nomic::new(&std::iter::once("Rita").chain(names).collect::<Vec<_>>());
    let p = g.start("Rita", &names);
    resign_in_turn(&g, &p, &[0, 1, 2, 3, 4, 5, 6, 7]);
    g.run();
    let game = g.instance(1);
    assert_eq!(game["winner"], 9, "{game}");
    assert_eq!(game["rewards"]["began"], 9);
    assert_eq!(g.balance(&p[8], "points").as_deref(), Some("8"));
    assert_eq!(g.balance("Rita", "A$").as_deref(), Some("8"));
    assert_has(
        &g.news_with(1, "REFEREE'S REPORT").body,
        &[
            "9 players began the game.",
            &format!("{} receives 8 points, as the winner.", p[8]),
        ],
    );
}

/// Section 5: "If this game took place as a Duel, the winner shall receive no
/// additional compensation" (the referee is paid all the same).
#[test]
fn section_5_winning_and_rewards_a_duel_pays_the_winner_nothing_extra() {
    let g = Nomic::new(&["Rita", "Alice", "Bob"]);
    g.post("Rita", "[ghost]", "start duel with Alice, Bob");
    g.run();
    let p = seat_names(&g.instance(1));
    g.post(&p[0], "[ghost]", "d");
    g.post(&p[1], "[ghost]", "resign");
    g.run();
    let game = g.instance(1);
    assert_eq!(game["winner"], 1, "{game}");
    assert_eq!(game["rewards"]["winner"]["unpaid"], "duel");
    assert_eq!(g.balance("Rita", "A$").as_deref(), Some("8"));
    assert_eq!(g.balance(&p[0], "points"), None);
    let report = g.news_with(1, "REFEREE'S REPORT");
    assert_has(
        &report.body,
        &[
            "2 players began the game, played as a Duel.",
            "Rita receives 8 A$, as the referee.",
            &format!(
                "{} receives nothing more: the game was played as a Duel.",
                p[0]
            ),
        ],
    );
}

/// Section 6, first paragraph: on request, the players and their order of play, whose
/// turn it is, the ghost word, and a history of the game.
#[test]
fn section_6_status_and_history_on_request() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol", "Dave"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol"]);
    let t1 = g.post(&p[0], "[ghost]", "n");
    let t2 = g.post(&p[1], "[ghost]", "no");
    g.post(&p[2], "[ghost]", "resign");
    // Anyone may ask, privately: Dave plays in no game.
    g.private("Dave", "[ghost 1]", "status");
    g.private("Dave", "[ghost]", "history");
    g.run();
    let resigned = t2 + mins(1);
    let status = g.answer("Dave", "status");
    assert_has(
        &status,
        &[
            &format!(
                "Ghost 1, refereed by Rita, began at {} with 3 players. The players, in their order of play:",
                human_time(at(OPENING) + mins(6))
            ),
            &format!("    1. {}\n", p[0]),
            &format!("    2. {}\n", p[1]),
            &format!(
                "    3. {}: out since {} (resigned)\n",
                p[2],
                human_time(resigned)
            ),
            &format!(
                "It is {}'s turn (player 1), until {} or until they play. There is no ghost word",
                p[0],
                human_time(resigned + days(3))
            ),
        ],
    );
    assert!(!status.contains("The history of the game"), "{status}");
    let history = g.answer("Dave", "history");
    assert_has(
        &history,
        &[
            "The history of the game:",
            &format!(
                "the game began, refereed by Rita. The players' numbers: 1 {}, 2 {}, 3 {}.",
                p[0], p[1], p[2]
            ),
            &format!("{}: {} began the ghost word N.", human_time(t1), p[0]),
            &format!("{}: {} continued N to NO.", human_time(t2), p[1]),
            &format!(
                "{}: {} resigned, and is out of the game.",
                human_time(resigned),
                p[2]
            ),
            &format!("{}: the ghost word NO is destroyed.", human_time(resigned)),
            &format!(
                "{}: {}'s turn began (no ghost word), until {}.",
                human_time(resigned),
                p[0],
                human_time(resigned + days(3))
            ),
        ],
    );
}

/// Section 6, second paragraph: a referee who goes on vacation is no longer the
/// referee; while there is no referee the game is suspended: the turn deadline does
/// not fire; a player of the nomic who is not in the game takes the post publicly,
/// and the clock runs again with the time that was left.
#[test]
fn section_6_a_referee_vacancy_freezes_the_clock() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol", "Dave"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol"]);
    let played = g.post(&p[0], "[ghost]", "s");
    // A day later the referee goes on vacation: player 2 has 1 day 23 h 59 min left.
    g.set_clock(played + days(1));
    let away = g.post("Rita", "[nomic] vacation until 2026-05-20", "");
    let left = (played + days(3)).duration_since(away);
    assert_eq!(left, SignedDuration::from_mins(2 * 24 * 60 - 1));
    g.post(&p[1], "[ghost]", "sa");
    g.run();
    let game = g.instance(1);
    assert_eq!(game["referee"], Value::Null, "{game}");
    assert_eq!(game["suspended_since"], ts(away));
    assert_eq!(game["stage"]["clock"]["kind"], "stopped");
    assert_eq!(game["stage"]["clock"]["remaining_seconds"], left.as_secs());
    let news = g.news_with(1, "went on vacation");
    assert_eq!(news.subject, "[ghost 1] Ghost 1: suspended, no referee");
    assert_has(
        &news.body,
        &[
            &format!(
                "{}: Rita went on vacation, so is no longer the referee. The game is suspended and its clocks are stopped until someone takes the post.",
                human_time(away)
            ),
            &format!("({}'s turn, with 1 day, 23 hours, 59 minutes left)", p[1]),
        ],
    );
    assert_has(
        &g.answer(&p[1], "sa"),
        &["Refused: Ghost 1 is suspended, because it has no referee."],
    );

    // After the old reminder time and before the old deadline: no reminder, and
    // then far past the old deadline, player 2 is still in the game.
    g.run_at(played + days(2) + SignedDuration::from_hours(12));
    assert!(
        !g.outbox().iter().any(|m| m.subject.contains("Reminder")),
        "{:#?}",
        g.subjects()
    );
    let back = at("2026-05-10T12:00:00Z");
    g.run_at(back);
    let game = g.instance(1);
    assert!(removed(&game, 2).is_null(), "{game}");
    assert_eq!(turn(&game), Some(2));
    assert!(
        !g.outbox().iter().any(|m| m.subject.contains("Reminder")),
        "{:#?}",
        g.subjects()
    );
    // Rita is away (not active); player 1 plays in the game; Dave must say it on the list.
    g.post("Rita", "[ghost]", "referee");
    g.post(&p[0], "[ghost]", "referee");
    g.private("Dave", "[ghost]", "referee");
    let resumed = g.post("Dave", "[ghost 1]", "I will referee");
    g.run();
    assert_has(
        &g.answer("Rita", "referee"),
        &["Refused: rita@nomic.example is not the address of an active player of the nomic."],
    );
    assert_has(
        &g.answer(&p[0], "referee"),
        &["Refused: you are a player in Ghost 1, and its referee must not be."],
    );
    assert_has(
        &g.answer("Dave", "referee"),
        &["Refused: plays in Ghost are public"],
    );
    let deadline = resumed + left;
    let game = g.instance(1);
    assert_eq!(game["referee"]["name"], "Dave", "{game}");
    assert_eq!(game["suspended_since"], Value::Null);
    assert_eq!(turn_deadline(&game), ts(deadline));
    let news = g.news_with(1, "took the referee's post");
    assert_eq!(
        news.subject,
        format!("[ghost 1] Ghost 1: {}'s turn, ghost word S", p[1])
    );
    assert_has(
        &news.body,
        &[
            &format!(
                "{}: Dave took the referee's post; the clocks run again with the time they had left.",
                human_time(resumed)
            ),
            &format!(
                "It is {}'s turn (player 2), until {}",
                p[1],
                human_time(deadline)
            ),
        ],
    );
    // Player 2 is reminded of the new deadline; the clock runs out with the time it
    // had left; then player 3 resigns, player 1 wins, and Dave is paid as the referee.
    g.run_at(deadline - SignedDuration::from_hours(12));
    assert!(
        g.outbox().iter().any(|m| m.is_to(&address(&p[1]))
            && m.subject.contains(&format!("by {}", human_time(deadline)))),
        "reminded of the new deadline: {:#?}",
        g.subjects()
    );
    g.run_at(deadline + mins(1));
    let game = g.instance(1);
    assert_eq!(removed(&game, 2), "timed_out", "{game}");
    assert_eq!(seat(&game, 2)["removed"]["at"], ts(deadline));
    g.post(&p[2], "[ghost]", "resign");
    g.run();
    assert_eq!(g.instance(1)["winner"], 1);
    assert_eq!(g.balance("Dave", "A$").as_deref(), Some("8"));
    assert_eq!(g.balance("Rita", "A$"), None);
}

/// Section 6, second paragraph: a referee who resigns the post is no longer the
/// referee; the moderator, no player of the nomic, may take it (and is not paid).
#[test]
fn section_6_a_referee_who_resigns_the_post_suspends_the_game_until_someone_takes_it() {
    let g = Nomic::new(&["Rita", "Alice", "Bob"]);
    let p = g.start("Rita", &["Alice", "Bob"]);
    g.post(&p[0], "[ghost]", "resign referee");
    let resigned = g.post("Rita", "[ghost]", "resign referee");
    g.post("Rita", "[ghost]", "resign referee");
    g.run();
    assert_has(
        &g.answer(&p[0], "resign referee"),
        &["Refused: only the referee of Ghost 1 (Rita) or a moderator may do that."],
    );
    let game = g.instance(1);
    assert_eq!(game["suspended_since"], ts(resigned), "{game}");
    assert_has(
        &g.news_with(1, "resigned the referee's post").body,
        &[&format!(
            "{}: Rita resigned the referee's post, so is no longer the referee.",
            human_time(resigned)
        )],
    );
    g.post("Mod", "[ghost]", "referee");
    g.post("Rita", "[ghost]", "referee");
    g.run();
    assert_has(
        &g.answer("Rita", "referee"),
        &["Refused: Ghost 1 has a referee, mod@nomic.example."],
    );
    assert_eq!(g.instance(1)["referee"]["address"], MODERATOR);
    g.post(&p[0], "[ghost]", "x");
    g.post(&p[1], "[ghost]", "resign");
    g.run();
    let game = g.instance(1);
    assert_eq!(game["winner"], 1, "{game}");
    assert_eq!(game["rewards"]["referee"]["unpaid"], "not_a_player");
    assert_has(
        &g.news_with(1, "REFEREE'S REPORT").body,
        &[
            "mod@nomic.example refereed, but is not a player of the nomic, so the referee's 8 A$ are not paid.",
        ],
    );
    assert_eq!(g.balance("Rita", "A$"), None);
}

/// Section 6, second paragraph: a referee who leaves the nomic is no longer the
/// referee; a game that ends while the post is vacant pays no referee.
#[test]
fn section_6_a_referee_who_leaves_the_nomic_leaves_the_post() {
    let g = Nomic::new(&["Rita", "Alice", "Bob"]);
    let p = g.start("Rita", &["Alice", "Bob"]);
    let gone = g.post("Rita", "[nomic] leave", "");
    g.run();
    let game = g.instance(1);
    assert_eq!(game["suspended_since"], ts(gone), "{game}");
    assert_has(
        &g.news_with(1, "left the nomic, so is no longer the referee")
            .body,
        &["Ghost 1 is suspended: it has had no referee since"],
    );
    // Leaving is allowed at any time, even while suspended: player 2 wins.
    g.post(&p[0], "[ghost]", "leave");
    g.run();
    let game = g.instance(1);
    assert_eq!(game["winner"], 2, "{game}");
    assert_eq!(game["rewards"]["referee"]["unpaid"], "no_referee");
    assert_eq!(g.balance(&p[1], "points").as_deref(), Some("4"));
    assert_has(
        &g.news_with(1, "REFEREE'S REPORT").body,
        &["No one receives the referee's 8 A$: the post was vacant when the game ended."],
    );
}

/// Section 6, second paragraph: while there is no referee, the protested player's
/// time to answer stops too, and so does the time to protest an addition; both run
/// again with the time they had left when someone takes the post.
#[test]
fn section_6_a_vacancy_stops_the_time_to_answer_a_protest_and_to_protest_an_addition() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol", "Dave", "Erin"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol"]);
    let dave_added = g.post("Dave", "[ghost]", "add me");
    spell(&g, &p, "zq"); // player 2 makes ZQ
    let protested = g.post(&p[2], "[ghost]", "protest not inside");
    let vacant = g.post("Rita", "[ghost]", "resign referee");
    let answer_left = (protested + days(3)).duration_since(vacant);
    let addition_left = (dave_added + days(3)).duration_since(vacant);
    // Long after both would have ended, the protest still waits.
    g.set_clock(vacant + days(6));
    g.post(&p[1], "[ghost]", "word zqx");
    g.post(&p[0], "[ghost]", "protest addition Dave");
    let resumed = g.post("Erin", "[ghost]", "referee");
    g.run();
    assert_has(
        &g.answer(&p[1], "word zqx"),
        &["Refused: Ghost 1 is suspended, because it has no referee."],
    );
    assert_has(
        &g.answer(&p[0], "protest addition Dave"),
        &["Refused: Ghost 1 is suspended"],
    );
    let game = g.instance(1);
    assert_eq!(game["referee"]["name"], "Erin", "{game}");
    assert_eq!(game["stage"]["kind"], "protest");
    assert_eq!(
        game["stage"]["protest"]["clock"]["deadline"],
        ts(resumed + answer_left)
    );
    assert_eq!(
        seat(&game, 4)["addition_protest_until"],
        ts(resumed + addition_left),
        "the window to protest Dave's addition got the suspended time back"
    );
    assert_eq!(
        g.news_with(1, "Erin took the referee's post").subject,
        format!(
            "[ghost 1] Ghost 1: protest, {} to answer by {}",
            p[1],
            human_time(resumed + answer_left)
        )
    );
    // Now the addition may be protested, and the answer is late only after the new
    // deadline.
    g.post(&p[0], "[ghost]", "protest addition Dave");
    g.run_at(resumed + answer_left + mins(1));
    let game = g.instance(1);
    assert_eq!(removed(&game, 4), "addition_protested", "{game}");
    assert_eq!(removed(&game, 2), "valid_protest");
    assert_eq!(seat(&game, 2)["removed"]["at"], ts(resumed + answer_left));
}

/// Several instances at once: each mails under its own tag, `[ghost N]`; a command
/// under `[ghost]` alone is refused while more than one is open.
#[test]
fn several_instances_at_once_need_the_number_in_the_tag() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol", "Dave"]);
    let one = g.start("Rita", &["Alice", "Bob"]);
    let two = g.start("Carol", &["Dave", "Alice"]);
    assert_eq!(
        g.news(2)[0].subject,
        format!("[ghost 2] Ghost 2 begins: {} plays first", two[0])
    );
    g.post(&one[0], "[ghost]", "s");
    g.post(&one[0], "[ghost 3]", "status");
    g.post(&one[0], "[ghost 1]", "h");
    g.post(&two[0], "[ghost 2]", "q");
    g.run();
    assert_has(
        &g.answer(&one[0], "s"),
        &[
            "Refused: several games of Ghost are running, so say which one with its number in the subject tag, as in [ghost 1].",
            "[ghost 1]: ",
            &format!("[ghost 2]: {}, {}; refereed by Carol", two[0], two[1]),
        ],
    );
    assert_has(
        &g.answer(&one[0], "status"),
        &[&format!(
            "Refused: there is no Ghost 3. The running games: [ghost 1] ({}, {}), [ghost 2] ({}, {}).",
            one[0], one[1], two[0], two[1]
        )],
    );
    assert_eq!(g.instance(1)["ghost_word"], "h");
    assert_eq!(g.instance(2)["ghost_word"], "q");
    assert_eq!(
        g.news_with(1, "began the ghost word H").subject,
        format!("[ghost 1] Ghost 1: {}'s turn, ghost word H", one[1])
    );
    assert_eq!(
        g.news_with(2, "began the ghost word Q").subject,
        format!("[ghost 2] Ghost 2: {}'s turn, ghost word Q", two[1])
    );
    // Ghost 1 ends; then [ghost] alone means the one still open.
    g.post(&one[1], "[ghost 1]", "resign");
    g.post(&two[1], "[ghost]", "qu");
    g.run();
    assert_eq!(g.instance(1)["winner"], 1);
    assert_eq!(g.instance(2)["ghost_word"], "qu");
}

/// The referee (or a moderator) may override any ruling, with a reason; each override
/// is announced on the list with the officer and the reason.
#[test]
fn the_referee_overrides_with_a_reason_announced_on_the_list() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol"]);
    g.post(&p[0], "[ghost]", "s");
    g.post(&p[1], "[ghost]", "set word st because I say so");
    g.post("Rita", "[ghost]", "rule valid because no protest");
    g.post(
        "Rita",
        "[ghost]",
        "set word st because the list mangled the first mail",
    );
    g.run();
    assert_has(
        &g.answer(&p[1], "set word st because I say so"),
        &["Refused: only the referee of Ghost 1 (Rita) or a moderator may do that."],
    );
    assert_has(
        &g.answer("Rita", "rule valid because no protest"),
        &["Refused: no protest awaits an answer or a ruling in Ghost 1."],
    );
    let game = g.instance(1);
    assert_eq!(game["ghost_word"], "st", "{game}");
    assert_eq!(game["word_by"], 1, "still player 1's word");
    assert_eq!(turn(&game), Some(2), "the override is no one's turn");
    let news = g.news_with(1, "OVERRIDE");
    assert_eq!(
        news.subject,
        format!(
            "[ghost 1] Ghost 1: override by Rita; {}'s turn, ghost word ST",
            p[1]
        )
    );
    assert_has(
        &news.body,
        &[
            "OVERRIDE: Rita overrode the bot's ruling. Reason given: the list mangled the first mail",
            "Rita set the ghost word to ST (it was S), overriding, because the list mangled the first mail.",
        ],
    );

    // A moderator rules on a pending protest.
    g.post(&p[1], "[ghost]", "sta");
    g.post(&p[2], "[ghost]", "protest not inside");
    g.post("Mod", "[ghost]", "rule invalid because STA is in STAR");
    g.run();
    let game = g.instance(1);
    assert_eq!(removed(&game, 3), "invalid_protest", "{game}");
    assert_eq!(turn(&game), Some(1));
    let news = g.news_with(1, "STA is in STAR");
    assert!(
        news.subject
            .starts_with("[ghost 1] Ghost 1: override by mod@nomic.example;"),
        "{}",
        news.subject
    );
    assert_has(
        &news.body,
        &[&format!(
            "the protest of {} against {} is invalid: so ruled mod@nomic.example, overriding the bot, because STA is in STAR.",
            p[2], p[1]
        )],
    );
    // The referee removes a player: player 2 is left, and wins.
    g.post(
        "Rita",
        "[ghost]",
        &format!("remove {} because they asked to stop", p[0]),
    );
    g.run();
    let game = g.instance(1);
    assert_eq!(removed(&game, 1), "override");
    assert_eq!(game["winner"], 2);
    let report = g.news_with(1, "REFEREE'S REPORT");
    assert!(
        report.subject.contains("override by Rita"),
        "{}",
        report.subject
    );
    assert_has(
        &report.body,
        &[
            "Reason given: they asked to stop",
            &format!(
                "Rita removed {} from the game, overriding, because they asked to stop",
                p[0]
            ),
        ],
    );
}

/// Section 4: "Plays shall be made by sending a message describing the play". A
/// subject with nothing below it is such a message; a subject over a message of
/// its own is only a subject.
#[test]
fn section_4_a_play_in_the_subject_alone_counts_and_a_chatty_subject_does_not() {
    let g = Nomic::new(&["Rita", "Alice", "Bob"]);
    let p = g.start("Rita", &["Alice", "Bob"]);
    g.post(&p[0], "[ghost 1] s", "");
    g.post(&p[1], "[ghost 1] thanks", "I will think about it.");
    g.run();
    let game = g.instance(1);
    assert_eq!(game["ghost_word"], "s", "{game}");
    assert_eq!(turn(&game), Some(2), "{game}");
}

// Issue 12: the items on Ghost, each test named after its item.

impl Nomic {
    /// The Message-ID of the last message sent in, without angle brackets.
    fn last_id(&self) -> String {
        format!("g{}@players.test", self.count.get())
    }
}

/// Item 2: "A player may remove themselves from an instance of the game at any time
/// by posting a message to that effect." A "resign" out of turn is such a message:
/// the player leaves, the ghost word stays, the order skips them; in one's own turn
/// it is still the play (4), which destroys the word.
#[test]
fn item2_resign_out_of_turn_leaves_the_instance() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol", "Dave"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol", "Dave"]);
    let played = g.post(&p[0], "[ghost]", "w");
    // Player 3 resigns while it is player 2's turn.
    let left = g.post(&p[2], "[ghost]", "resign");
    g.run();
    assert_has(
        &g.answer(&p[2], "resign"),
        &[
            "It was not your turn, and a resignation is a play made in one's own turn; but rule 103 lets a player remove themselves from the game at any time by posting a message to that effect, so your \"resign\" is taken as leaving: you are out of the game, the ghost word stays as it was, and the turns go on without you.",
            &format!("{} left the game, and is out of the game.", p[2]),
        ],
    );
    let game = g.instance(1);
    assert_eq!(removed(&game, 3), "left", "{game}");
    assert_eq!(seat(&game, 3)["removed"]["at"], ts(left));
    assert_eq!(seat(&game, 3)["removed"]["in_turn"], false);
    assert_eq!(game["ghost_word"], "w", "no resignation: the word stays");
    assert_eq!(turn(&game), Some(2));
    assert_eq!(
        turn_deadline(&game),
        ts(played + days(3)),
        "the turn goes on"
    );
    assert_has(
        &g.news_with(1, "left the game").body,
        &[&format!("{} left the game, and is out of the game.", p[2])],
    );
    // Player 2 resigns in their own turn: the play (4), the word destroyed, and
    // the order skips player 3.
    let resigned = g.post(&p[1], "[ghost]", "resign");
    g.run();
    let game = g.instance(1);
    assert_eq!(removed(&game, 2), "resigned", "{game}");
    assert_eq!(seat(&game, 2)["removed"]["in_turn"], true);
    assert_eq!(game["ghost_word"], Value::Null);
    assert_eq!(turn(&game), Some(4), "player 3 is skipped");
    assert_eq!(turn_deadline(&game), ts(resigned + days(3)));
    assert_has(
        &g.news_with(1, "resigned, and").body,
        &[
            &format!("{} resigned, and is out of the game.", p[1]),
            "the ghost word W is destroyed.",
        ],
    );
    // Resigning again: out of the game, and told since when and why.
    g.post(&p[2], "[ghost]", "resign");
    g.run();
    assert_has(
        &g.answer(&p[2], "resign"),
        &[&format!(
            "Refused: you are no longer a player in Ghost 1, so nothing was done. You were removed at {}: you left the game.",
            human_time(left)
        )],
    );
}

/// Item 4: a moderator starting a real game mid-way reaches its state by mail in
/// one message (players seated in their order, the word so far and its maker,
/// whose turn, the deadline), and the game plays on from there: the deadline set
/// is the one that fires.
#[test]
fn item4_a_moderator_sets_up_a_game_mid_way_by_mail_and_play_goes_on() {
    let g = Nomic::new(&["Alice", "Bob", "Carol", "Dave"]);
    let deadline: Timestamp = at("2026-05-03T18:00:00Z");
    let setup = g.post(
        "Mod",
        "[ghost]",
        "start in order Carol, Alice, Bob because the game began on the old list\n\
         set word upe by Alice because UPE is the word so far on the old list\n\
         turn Bob because it was Bob's turn on the old list\n\
         deadline 2026-05-03 18:00 UTC because Bob's turn began at 2026-04-30 18:00 UTC",
    );
    g.run();
    let game = g.instance(1);
    assert_eq!(
        seat_names(&game),
        ["Carol", "Alice", "Bob"],
        "as listed: {game}"
    );
    assert_eq!(game["ghost_word"], "upe");
    assert_eq!(game["word_by"], 2, "Alice made it");
    assert_eq!(turn(&game), Some(3));
    assert_eq!(turn_deadline(&game), ts(deadline));
    assert_eq!(game["random_label"], Value::Null, "nothing was drawn");
    assert_eq!(game["referee"]["address"], MODERATOR);
    let answer = g.answer("Mod", "turn Bob because it was Bob's turn on the old list");
    assert_has(
        &answer,
        &[
            "Ghost 1 has begun, with you as its referee. The players' numbers, in the order you listed them: 1 Carol, 2 Alice, 3 Bob.",
            "mod@nomic.example gave the turn to Bob, overriding, because it was Bob's turn on the old list.",
            &format!(
                "mod@nomic.example moved the deadline from {} to 2026-05-03 18:00 UTC, overriding, because Bob's turn began at 2026-04-30 18:00 UTC.",
                human_time(setup + days(3))
            ),
        ],
    );
    let news = g.news(1);
    let start = &news[0];
    assert_eq!(start.subject, "[ghost 1] Ghost 1 begins: Carol plays first");
    assert_has(
        &start.body,
        &[
            "OVERRIDE: mod@nomic.example gave the players their numbers in the order\nlisted, instead of a random draw. Reason given: the game began on the old list",
            "    1. Carol\n    2. Alice\n    3. Bob",
        ],
    );
    let word = g.news_with(1, "as made by Alice");
    assert_has(
        &word.body,
        &[
            "OVERRIDE: mod@nomic.example overrode the bot's ruling. Reason given: UPE is the word so far on the old list",
            "mod@nomic.example set the ghost word to UPE, as made by Alice (a protest of it is made against them), overriding, because UPE is the word so far on the old list.",
        ],
    );
    let clock = g.news_with(1, "moved the deadline");
    assert_eq!(
        clock.subject,
        "[ghost 1] Ghost 1: override by mod@nomic.example; Bob's turn, ghost word UPE"
    );
    assert_has(
        &clock.body,
        &["It is Bob's turn (player 3), until 2026-05-03 18:00 UTC"],
    );
    // Bob is reminded a day before the deadline set, under the instance's tag.
    g.run_at(deadline - days(1));
    let reminder = g
        .outbox()
        .into_iter()
        .find(|m| m.is_to(&address("Bob")) && m.subject.contains("Reminder"))
        .unwrap_or_else(|| panic!("no reminder: {:#?}", g.subjects()));
    assert_eq!(
        reminder.subject,
        "[ghost 1] Reminder: your turn in Ghost 1 by 2026-05-03 18:00 UTC"
    );
    // Bob does not play: at the deadline set he is assumed to have resigned, and
    // play goes on with Carol, player 1.
    g.run_at(deadline + mins(1));
    let game = g.instance(1);
    assert_eq!(removed(&game, 3), "timed_out", "{game}");
    assert_eq!(seat(&game, 3)["removed"]["at"], ts(deadline));
    assert_eq!(game["ghost_word"], Value::Null);
    assert_eq!(turn(&game), Some(1));
    g.post("Carol", "[ghost]", "s");
    g.post("Alice", "[ghost]", "st");
    g.post("Carol", "[ghost]", "protest word");
    g.run();
    let game = g.instance(1);
    assert_eq!(game["ghost_word"], "st", "{game}");
    assert_eq!(
        removed(&game, 1),
        "invalid_protest",
        "ST is no word of four letters"
    );
    assert_eq!(game["winner"], 2, "Alice is left");
}

/// Item 4: the overrides of a seat (the order of play, whose turn it is), the word
/// and the clock, each announced with its reason, logged, and undone by a void of
/// the message that made it.
#[test]
fn item4_overrides_of_seat_turn_word_and_clock_are_announced_and_voidable() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol", "Dave"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol"]);
    let played = g.post(&p[0], "[ghost]", "s");
    g.run();
    let before = g.instance(1);
    assert_eq!(turn(&before), Some(2));

    // The clock.
    let moved = g.post(
        "Rita",
        "[ghost]",
        "deadline in 5 days because the list was down",
    );
    let clock_id = g.last_id();
    g.run();
    let game = g.instance(1);
    assert_eq!(turn_deadline(&game), ts(moved + days(5)));
    let news = g.news_with(1, "moved the deadline");
    assert!(
        news.subject.contains("override by Rita"),
        "{}",
        news.subject
    );
    assert_has(
        &news.body,
        &[
            "OVERRIDE: Rita overrode the bot's ruling. Reason given: the list was down",
            &format!(
                "Rita moved the deadline from {} to {}, overriding, because the list was down.",
                human_time(played + days(3)),
                human_time(moved + days(5))
            ),
        ],
    );
    g.post(
        "Mod",
        "[ghost 1]",
        &format!("void <{clock_id}> because Rita misread the outage"),
    );
    g.run();
    assert_eq!(
        turn_deadline(&g.instance(1)),
        ts(played + days(3)),
        "the void restores the deadline"
    );

    // Whose turn it is.
    g.post(
        "Rita",
        "[ghost]",
        &format!("turn {} because their play was lost", p[2]),
    );
    let turn_id = g.last_id();
    g.run();
    let game = g.instance(1);
    assert_eq!(turn(&game), Some(3));
    assert_has(
        &g.news_with(1, "gave the turn to").body,
        &[&format!(
            "Rita gave the turn to {}, overriding, because their play was lost.",
            p[2]
        )],
    );
    g.post(
        "Mod",
        "[ghost 1]",
        &format!("void <{turn_id}> because it was lost on purpose"),
    );
    g.run();
    let game = g.instance(1);
    assert_eq!(turn(&game), Some(2), "the void gives the turn back");
    assert_eq!(turn_deadline(&game), ts(played + days(3)));

    // The word, with its maker.
    g.post(
        "Rita",
        "[ghost]",
        &format!("set word sp by {} because the list mangled it", p[2]),
    );
    let word_id = g.last_id();
    g.run();
    let game = g.instance(1);
    assert_eq!(
        (game["ghost_word"].clone(), game["word_by"].clone()),
        ("sp".into(), 3.into())
    );
    g.post(
        "Mod",
        "[ghost 1]",
        &format!("void <{word_id}> because it was not mangled"),
    );
    g.run();
    let game = g.instance(1);
    assert_eq!(
        (game["ghost_word"].clone(), game["word_by"].clone()),
        ("s".into(), 1.into())
    );

    // The seats: a moderator reorders, bringing Dave in; the turn stays with its
    // player, whatever their new number.
    let turn_player = p[1].clone();
    g.post(
        "Mod",
        "[ghost]",
        &format!(
            "order {}, Dave, {}, {} because the numbers were drawn twice",
            p[2], p[0], p[1]
        ),
    );
    let order_id = g.last_id();
    g.run();
    let game = g.instance(1);
    assert_eq!(
        seat_names(&game),
        [p[2].as_str(), "Dave", p[0].as_str(), p[1].as_str()],
        "{game}"
    );
    assert_eq!(turn(&game), Some(4), "still {turn_player}'s turn");
    assert_eq!(game["word_by"], 3, "still {}'s word", p[0]);
    let news = g.news_with(1, "set the order of play");
    assert_has(
        &news.body,
        &[
            "OVERRIDE: mod@nomic.example overrode the bot's ruling. Reason given: the numbers were drawn twice",
            &format!(
                "mod@nomic.example set the order of play, overriding, because the numbers were drawn twice: 1 {} (was 3), 2 Dave (seated), 3 {} (was 1), 4 {} (was 2).",
                p[2], p[0], p[1]
            ),
            &format!(
                "The players still in, in their order of play: {}, Dave, {}, {}.",
                p[2], p[0], p[1]
            ),
        ],
    );
    // The record still says who did what.
    g.post("Rita", "[ghost]", "history");
    g.run();
    assert_has(
        &g.answer("Rita", "history"),
        &[&format!("{} began the ghost word S.", p[0])],
    );
    g.post(
        "Mod",
        "[ghost 1]",
        &format!("void <{order_id}> because a mistake"),
    );
    g.run();
    let game = g.instance(1);
    assert_eq!(
        seat_names(&game),
        seat_names(&before),
        "the void restores the order"
    );
    assert_eq!(turn(&game), Some(2));
    assert_eq!(game["ghost_word"], "s");
}

/// Item 4: only the referee or a moderator overrides (the order of play only a
/// moderator); anyone else is refused with a sentence, and a reply quoting an
/// override does nothing.
#[test]
fn item4_a_forged_override_is_refused_with_a_sentence() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol"]);
    g.post(&p[0], "[ghost]", "s");
    g.run();
    let before = g.instance(1);
    g.post(&p[2], "[ghost]", &format!("turn {} because I say so", p[2]));
    g.post(&p[2], "[ghost]", "deadline in 9 days because I say so");
    g.post(&p[2], "[ghost]", "set word sq by Rita because I say so");
    g.post(
        "Rita",
        "[ghost]",
        &format!("order {}, {}, {} because I prefer it", p[2], p[1], p[0]),
    );
    g.post(
        "Rita",
        "[ghost]",
        "start in order Alice, Bob because I prefer it",
    );
    g.post(
        &p[2],
        "Re: [ghost 1] Ghost 1: override",
        &format!(
            "> turn {} because the list was down\n\nWell, I never.",
            p[2]
        ),
    );
    g.run();
    let referee_only = "Refused: only the referee of Ghost 1 (Rita) or a moderator may do that.";
    assert_has(
        &g.answer(&p[2], &format!("turn {} because I say so", p[2])),
        &[referee_only],
    );
    assert_has(
        &g.answer(&p[2], "deadline in 9 days because I say so"),
        &[referee_only],
    );
    assert_has(
        &g.answer(&p[2], "set word sq by Rita because I say so"),
        &[referee_only],
    );
    let moderator_only = "Refused: only a moderator may give the players' numbers by hand. Rule 103 has the referee assign them at random";
    assert_has(
        &g.answer(
            "Rita",
            &format!("order {}, {}, {} because I prefer it", p[2], p[1], p[0]),
        ),
        &[moderator_only],
    );
    assert_has(
        &g.answer("Rita", "start in order Alice, Bob because I prefer it"),
        &[moderator_only],
    );
    let after = g.instance(1);
    assert_eq!(after["stage"], before["stage"], "nothing moved");
    assert_eq!(after["seats"], before["seats"]);
    assert_eq!(after["ghost_word"], "s");
    assert_eq!(g.ghost()["instances"].as_array().map(Vec::len), Some(1));
    // A moderator's deadline in the past, or with no clock running, is refused.
    g.post(
        "Mod",
        "[ghost]",
        "deadline 2026-04-01 12:00 UTC because testing",
    );
    g.run();
    assert_has(
        &g.answer("Mod", "deadline 2026-04-01 12:00 UTC because testing"),
        &["Refused: a deadline must be later than now"],
    );
}

/// Item 8: a protested addition names who is out.
#[test]
fn item8_a_protested_addition_names_who_is_out() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol", "Dave"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol"]);
    g.post("Dave", "[ghost]", "add me");
    let protested = g.post(&p[0], "[ghost]", "protest addition Dave");
    g.run();
    assert_eq!(removed(&g.instance(1), 4), "addition_protested");
    let line = format!(
        "{}: {} protested the addition of Dave, so Dave is out of the game.",
        human_time(protested),
        p[0]
    );
    assert_has(&g.news_with(1, "protested the addition").body, &[&line]);
    assert_has(&g.answer(&p[0], "protest addition Dave"), &[&line]);
}

/// Item 8: leaving the nomic, in one's turn or not, reads as a sentence.
#[test]
fn item8_leaving_the_nomic_reads_as_a_clear_sentence() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol"]);
    g.post(&p[2], "[nomic] leave", "");
    g.post(&p[0], "[nomic] leave", "");
    g.run();
    assert_has(
        &g.news_with(1, &format!("{} left the nomic", p[2])).body,
        &[&format!(
            "{} left the nomic, so {} is out of the game too.",
            p[2], p[2]
        )],
    );
    assert_has(
        &g.news_with(1, &format!("{} left the nomic", p[0])).body,
        &[&format!(
            "{} left the nomic, so {} is out of the game too; as it was {}'s turn, this counts as a resignation.",
            p[0], p[0], p[0]
        )],
    );
}

/// Item 8: reminders carry the instance's number in their tag, as every other
/// mail of the instance does.
#[test]
fn item8_reminders_carry_the_instance_number() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol", "Dave"]);
    let one = g.start("Rita", &["Alice", "Bob"]);
    let two = g.start("Carol", &["Dave", "Alice"]);
    g.run_at(g.now() + days(2) + mins(30));
    let reminders: Vec<SentMail> = g
        .outbox()
        .into_iter()
        .filter(|m| m.subject.contains("Reminder"))
        .collect();
    let subjects: Vec<(Vec<String>, String)> = reminders
        .iter()
        .map(|m| (m.to.clone(), m.subject.clone()))
        .collect();
    assert_eq!(reminders.len(), 2, "{subjects:?}");
    assert!(
        reminders.iter().any(|m| m.is_to(&address(&one[0]))
            && m.subject
                .starts_with("[ghost 1] Reminder: your turn in Ghost 1 by ")),
        "{subjects:?}"
    );
    assert!(
        reminders.iter().any(|m| m.is_to(&address(&two[0]))
            && m.subject
                .starts_with("[ghost 2] Reminder: your turn in Ghost 2 by ")),
        "{subjects:?}"
    );
    // The instance's turn still ends at its deadline.
    g.run_at(g.now() + days(1));
    assert_eq!(removed(&g.instance(1), 1), "timed_out");
    assert_eq!(removed(&g.instance(2), 1), "timed_out");
}

/// Item 8: a removed player's late play is told when and why they were removed,
/// from the instance's state: here by the referee, in their turn.
#[test]
fn item8_a_removed_players_late_play_says_when_and_why() {
    let g = Nomic::new(&["Rita", "Alice", "Bob", "Carol"]);
    let p = g.start("Rita", &["Alice", "Bob", "Carol"]);
    let removed_at = g.post(
        "Rita",
        "[ghost]",
        &format!("remove {} because they asked by phone", p[0]),
    );
    g.post(&p[0], "[ghost]", "s");
    g.run();
    let game = g.instance(1);
    assert_eq!(removed(&game, 1), "override");
    assert_eq!(seat(&game, 1)["removed"]["in_turn"], true);
    assert_eq!(seat(&game, 1)["removed"]["at"], ts(removed_at));
    assert_has(
        &g.answer(&p[0], "s"),
        &[&format!(
            "Refused: you are no longer a player in Ghost 1, so nothing was done. You were removed at {}: Rita removed you, overriding, because they asked by phone, in your turn, which counted as a resignation. A player removed from a game does not come back into it",
            human_time(removed_at)
        )],
    );
    assert_eq!(g.instance(1)["ghost_word"], Value::Null);
}
