//! `[boons]`, the Boons of the Ancients (Ackanomic rule 1211/3), through the
//! real pipeline: mail into the inbox Maildir, `nomicbot once`, the answers and
//! announcements read back from the outbox, the inventory from `state --json`.
//! The Machine That Goes *ping*'s correct guess bestows a real Boon (§1), and a
//! Must Describe Boon goes through the Bogusity Hearing of `[bogusity]` (§7, §8).

use jiff::{SignedDuration, Timestamp};

use crate::support::{LocalBot, SentMail, at, balance, message};

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";
const MODERATOR: &str = "mod@nomic.example";
const ALICE: &str = "alice@nomic.example";
const BOB: &str = "bob@nomic.example";
const CAROL: &str = "carol@nomic.example";
const DAVE: &str = "dave@nomic.example";

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
    /// Alice, Bob, Carol and Dave have joined; `mod@` is a moderator.
    fn new() -> Game {
        let config = crate::support::trusting().replace(
            "moderators = []",
            &format!("moderators = [\"{MODERATOR}\"]"),
        );
        let game = Game {
            bot: LocalBot::with_config(&config),
            count: std::cell::Cell::new(0),
        };
        for (i, name) in ["Alice", "Bob", "Carol", "Dave"].iter().enumerate() {
            let from = format!("{}@nomic.example", name.to_lowercase());
            game.deliver(
                &from,
                LIST,
                &format!("[nomic] join {name}"),
                "",
                start() + SignedDuration::from_secs(i as i64),
            );
        }
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

    /// One message of lines under `tag`, on the list, and a pass a minute later.
    fn send(&self, from: &str, tag: &str, lines: &[&str], when: Timestamp) {
        self.deliver(
            from,
            LIST,
            &format!("[{tag}] lines"),
            &lines.join("\n"),
            when,
        );
        self.bot.once(when + SignedDuration::from_mins(1));
    }

    fn announced(&self, subject: &str) -> Vec<SentMail> {
        self.bot
            .sent_mail()
            .into_iter()
            .filter(|m| m.is_to(LIST) && m.subject.contains(subject))
            .collect()
    }

    fn answered(&self, who: &str, words: &str) -> bool {
        self.bot
            .sent_mail()
            .into_iter()
            .any(|m| m.is_to(who) && m.body.contains(words))
    }

    fn entities(&self) -> Vec<serde_json::Value> {
        self.bot.state_json()["inventory"]["entities"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

#[test]
fn section_1_the_machines_correct_guess_bestows_a_random_boon() {
    let game = Game::new();
    game.send(
        MODERATOR,
        "ping",
        &["place Alice because the Machine must begin"],
        minutes(10),
    );
    game.deliver(
        ALICE,
        BOT,
        "[ping] truth",
        "truth the day of the week is odd",
        minutes(20),
    );
    game.bot.once(minutes(21));
    game.send(
        CAROL,
        "ping",
        &["guess the day of the week is odd"],
        minutes(30),
    );
    assert_eq!(game.announced("Congratulations, Carol!").len(), 1);
    // The Boon is drawn by the random officer at the guess's instant, in a
    // period opened for it and published after the draw.
    let chosen = game.announced("Boon of the Ancients 1 for Carol");
    assert_eq!(chosen.len(), 1, "no Boon was drawn");
    assert!(
        chosen[0].body.contains("random method"),
        "{}",
        chosen[0].body
    );
    assert!(
        chosen[0].body.contains("the Machine's truth"),
        "{}",
        chosen[0].body
    );
    let state = game.bot.state_json();
    let created = game.entities().len() == 1;
    let pending = state["boons"]["pending"].as_array().map_or(0, Vec::len) == 1;
    assert!(
        created != pending,
        "created at once, or waiting for its description: {state}"
    );
    // `verify-random` checks the published period.
    let revealed = game.announced("");
    assert!(
        revealed.iter().any(|m| m.body.contains("rule 1211 §4")),
        "the draw's purpose is published"
    );
}

#[test]
fn section_8_a_described_boon_through_the_bogusity_hearing() {
    let game = Game::new();
    // A forged bestowal is answered, and bestows nothing.
    game.send(
        ALICE,
        "boons",
        &["bestow Alice because I deserve it"],
        minutes(5),
    );
    assert!(game.answered(ALICE, "moderator"));
    game.send(
        MODERATOR,
        "boons",
        &[
            "bestow Alice deterministic because the test's Boon",
            "bestow Bob deterministic because the test's other Boon",
        ],
        minutes(10),
    );
    game.send(ALICE, "boons", &["choose d"], minutes(20));
    game.send(BOB, "boons", &["choose e"], minutes(21));
    game.send(ALICE, "boons", &["describe a brass astrolabe"], minutes(30));
    game.send(
        BOB,
        "boons",
        &["describe a perpetual motion engine"],
        minutes(31),
    );
    let posted = game.announced("Description 1 of a Must Describe Boon");
    assert_eq!(posted.len(), 1, "handed to [bogusity]");
    assert!(posted[0].body.contains("a brass astrolabe"));
    game.send(CAROL, "bogusity", &["call 1", "call 2"], minutes(60));
    game.send(
        CAROL,
        "bogusity",
        &[
            "1 This loophole surfer is totally Bogus",
            "2 Thats a pretty cool idea",
        ],
        minutes(70),
    );
    game.bot.once(start() + SignedDuration::from_hours(24 * 8));
    // Alice's relic is Bogus: no Boon, and 11 points lost; Bob's Blueprint is
    // created seven days after its description.
    assert_eq!(game.announced("no Boon for Alice").len(), 1);
    assert_eq!(
        balance(&game.bot.state_json(), "Alice", "points").as_deref(),
        Some("-11")
    );
    let entities = game.entities();
    assert_eq!(entities.len(), 1, "{entities:?}");
    assert_eq!(entities[0]["kind"], "Blueprint");
    assert_eq!(entities[0]["owner"]["place"], "Blueprint Archive");
    assert_eq!(game.announced("Bob receives Blueprint").len(), 1);
    let _ = DAVE;
}

impl Game {
    /// `nomicbot state boons --json`.
    fn boons_state(&self) -> serde_json::Value {
        serde_json::from_str(&self.bot.cli_ok(&["state", "boons", "--json"]))
            .expect("state boons --json prints JSON")
    }

    /// The Message-ID the next `deliver` gives its message.
    fn next_message_id(&self, from: &str) -> String {
        format!(
            "{}-{}@players.test",
            self.count.get() + 1,
            from.replace('@', ".")
        )
    }

    fn kinds_limited(&self) -> usize {
        self.bot
            .log_json()
            .iter()
            .filter(|r| r["event"]["kind"] == "kind_limited")
            .count()
    }
}

/// §9 a: "A random Qualified Gadget, such that no instance limits are exceeded
/// for any particular Gadgets, is bestowed". The kinds and limits come from
/// bot.toml and a moderator's mail, show in `state boons --json` with the
/// instances that exist, and bind the draw.
#[test]
fn rule_1211_9a_instance_limits_from_config_and_mail_show_in_state_and_bind_the_draw() {
    let config = crate::support::trusting()
        .replace(
            "moderators = []",
            &format!("moderators = [\"{MODERATOR}\"]"),
        )
        .replace(
            "# [[boons.kinds]]\n# entity = \"Qualified Gadget\"\n# name = \"Whoopee Cushion\"\n# limit = 3\n",
            "[[boons.kinds]]\nentity = \"Qualified Gadget\"\nname = \"Time Machine\"\nlimit = 0\n",
        );
    assert!(
        config.contains("name = \"Time Machine\""),
        "bot.toml's example moved"
    );
    let game = Game {
        bot: LocalBot::with_config(&config),
        count: std::cell::Cell::new(0),
    };
    for (i, name) in ["Alice", "Bob"].iter().enumerate() {
        let from = format!("{}@nomic.example", name.to_lowercase());
        game.deliver(
            &from,
            LIST,
            &format!("[nomic] join {name}"),
            "",
            start() + SignedDuration::from_secs(i as i64),
        );
    }
    let kinds = &game.boons_state()["kinds"];
    assert_eq!(kinds[0]["name"], "Time Machine");
    assert_eq!(kinds[0]["limit"], 0);
    assert_eq!(kinds[0]["under_limit"], false);
    game.send(
        MODERATOR,
        "boons",
        &[
            "limit Qualified Gadget: Whoopee Cushion to 1 because rule 1180 makes one",
            "bestow Alice deterministic because the test's Boon",
            "bestow Bob deterministic because the test's other Boon",
        ],
        minutes(10),
    );
    let announced = game.announced("instance limit of Qualified Gadget \"Whoopee Cushion\": 1");
    assert_eq!(announced.len(), 1);
    assert!(
        announced[0].body.contains("rule 1180 makes one"),
        "{}",
        announced[0].body
    );
    assert_eq!(game.kinds_limited(), 1);
    game.send(ALICE, "boons", &["choose a"], minutes(20));
    let entities = game.entities();
    assert_eq!(entities.len(), 1, "{entities:?}");
    assert_eq!(entities[0]["description"], "Whoopee Cushion");
    let state = game.boons_state();
    assert_eq!(state["kinds"][1]["name"], "Whoopee Cushion");
    assert_eq!(state["kinds"][1]["instances"], 1);
    assert_eq!(state["kinds"][1]["under_limit"], false);
    // Bob's choice of a Gadget would exceed a limit: refused, and he may choose
    // another.
    game.send(BOB, "boons", &["choose a"], minutes(30));
    assert!(game.answered(BOB, "instance limit"));
    game.send(BOB, "boons", &["choose c"], minutes(31));
    assert_eq!(game.entities().len(), 2);
    let replay = game.bot.cli_ok(&["replay"]);
    assert!(replay.contains("equals the live state"), "{replay}");
}

/// The hostile player: a limit set by a player, by a forged From naming the
/// moderator, by a reply quoting the moderator's command. None is carried out;
/// the moderator's own is, and a void of it restores the limit before.
#[test]
fn rule_1211_9a_a_forged_or_quoted_limit_changes_nothing() {
    let game = Game::new();
    game.send(
        ALICE,
        "boons",
        &["limit Qualified Gadget: Whoopee Cushion to 0 because mine is the only one"],
        minutes(5),
    );
    assert!(game.answered(ALICE, "moderator"));
    // The moderator sets a passphrase: a From naming em without it is forged.
    game.deliver(
        MODERATOR,
        BOT,
        "[nomic] passphrase",
        "passphrase set correct horse battery",
        minutes(6),
    );
    game.bot.once(minutes(6));
    // Unsigned, it waits for the code mailed to the address.
    let code = game
        .bot
        .sent_mail()
        .into_iter()
        .filter(|mail| mail.subject.contains("Confirm the passphrase"))
        .find_map(|mail| {
            mail.body
                .lines()
                .find_map(|line| line.trim().strip_prefix("passphrase confirm "))
                .map(str::to_owned)
        })
        .expect("the code mailed to the moderator");
    game.deliver(
        MODERATOR,
        BOT,
        "[nomic] passphrase",
        &format!("passphrase confirm {code}"),
        minutes(6) + SignedDuration::from_secs(30),
    );
    game.bot.once(minutes(7));
    game.send(
        MODERATOR,
        "boons",
        &["limit Qualified Gadget: Whoopee Cushion to 0 because forged"],
        minutes(8),
    );
    assert_eq!(game.kinds_limited(), 0, "a forged limit was set");
    let genuine = game.next_message_id(MODERATOR);
    game.deliver(
        MODERATOR,
        BOT,
        "[boons] limit",
        "passphrase: correct horse battery\nlimit Qualified Gadget: Whoopee Cushion to 2 because genuine",
        minutes(10),
    );
    game.bot.once(minutes(11));
    assert_eq!(game.kinds_limited(), 1);
    // A reply quoting the command is not a command.
    game.deliver(
        ALICE,
        LIST,
        "Re: [boons] Override: instance limit",
        "Why two?\n\n> limit Qualified Gadget: Whoopee Cushion to 0 because genuine\n> limit Otzma Card: The Fool to 9 because genuine\n",
        minutes(20),
    );
    game.bot.once(minutes(21));
    assert_eq!(game.kinds_limited(), 1, "a quoted command was carried out");
    let kinds = game.boons_state()["kinds"].clone();
    assert_eq!(kinds.as_array().map(Vec::len), Some(1), "{kinds}");
    assert_eq!(kinds[0]["limit"], 2);
    // The moderator's void of eir own limit takes the kind away again.
    game.deliver(
        MODERATOR,
        BOT,
        "[nomic] void",
        &format!("passphrase: correct horse battery\nvoid <{genuine}> because a mistake"),
        minutes(30),
    );
    game.bot.once(minutes(31));
    let kinds = game.boons_state()["kinds"].clone();
    assert_eq!(kinds.as_array().map(Vec::len), Some(0), "{kinds}");
}
