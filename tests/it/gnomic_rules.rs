//! Gnomic rules that the turn, vote and count scenarios touch only in passing,
//! each with a scenario of its own through the pipeline (issue 13): 302, 336,
//! 407, 423, 434 and 107.

use jiff::{SignedDuration, Timestamp};

use crate::support::{LocalBot, SentMail, at, message};

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";
const MODERATOR: &str = "mod@nomic.example";

fn address(name: &str) -> String {
    format!("{}@nomic.example", name.to_lowercase())
}

/// Alice, Bob and Carol have joined and the moderator has started the game;
/// each `send` is a message a minute after the last, and a pass of the bot.
struct Game {
    bot: LocalBot,
    when: Timestamp,
    count: u32,
}

impl Game {
    fn new() -> Game {
        Game::with(&["Alice", "Bob", "Carol"], None)
    }

    /// `players` joined; with `first_rule`, the moderator (also the keeper of the
    /// rules) enacted a rule of that number first, so that hacks are numbered
    /// after it (108).
    fn with(players: &[&str], first_rule: Option<u32>) -> Game {
        let config = crate::support::gnomic_rules_elsewhere(crate::support::trusting())
            .replace(
                "moderators = []",
                &format!("moderators = [\"{MODERATOR}\"]"),
            )
            .replacen("rules = []", &format!("rules = [\"{MODERATOR}\"]"), 1);
        let mut game = Game {
            bot: LocalBot::with_config(&config),
            when: at("2026-03-02T09:00:00Z"),
            count: 0,
        };
        for name in players {
            game.send_as(&address(name), LIST, &format!("[nomic] join {name}"), "");
        }
        if let Some(number) = first_rule {
            game.send_as(
                MODERATOR,
                LIST,
                "[ruleset]",
                &format!("enact {number} Placeholder\nA rule to number after.\nend"),
            );
        }
        game.send_as(MODERATOR, LIST, "[gnomic] start", "");
        game
    }

    fn send_as(&mut self, from: &str, to: &str, subject: &str, body: &str) {
        self.count += 1;
        self.when += SignedDuration::from_mins(1);
        let id = format!("m{}@players.test", self.count);
        self.bot.deliver(
            &format!("m{}", self.count),
            &message(from, to, subject, &id, body),
            self.when,
        );
        self.bot.once(self.when + SignedDuration::from_secs(30));
    }

    fn post(&mut self, name: &str, body: &str) {
        self.send_as(&address(name), LIST, "[gnomic] turn", body);
    }

    fn vote(&mut self, name: &str, line: &str) {
        self.send_as(&address(name), BOT, "[gnomic]", line);
    }

    fn last_answer(&self, name: &str) -> String {
        self.bot
            .sent_mail()
            .into_iter()
            .rfind(|m| m.is_to(&address(name)) && !m.is_to(LIST))
            .map(|m| m.body)
            .unwrap_or_default()
    }

    fn counted(&self, turn: u32) -> SentMail {
        self.bot
            .sent_mail()
            .into_iter()
            .find(|m| m.is_to(LIST) && m.subject.contains(&format!("Turn {turn} counted")))
            .unwrap_or_else(|| panic!("turn {turn} was not counted"))
    }
}

#[test]
fn rule_302_a_hack_is_posted_before_it_is_voted_on_and_guides_play_as_voted() {
    let mut game = Game::new();
    // A vote on a hack nobody has posted.
    game.vote("Bob", "vote 301 for");
    assert!(
        game.last_answer("Bob").contains("Refused"),
        "{}",
        game.last_answer("Bob")
    );
    let text = "Players may whistle,\nbut only in tune.";
    game.post(
        "Alice",
        &format!("hack 301 \"Whistling\"\nenact\n{text}\nend"),
    );
    game.vote("Bob", "vote 301 for");
    game.vote("Carol", "vote 301 for");
    game.counted(1);
    let state = game.bot.state_json();
    let rules = state["ruleset"]["rules"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let rule = rules
        .iter()
        .find(|r| r["number"] == 301)
        .expect("rule 301 enacted");
    assert_eq!(rule["text"], text, "in the form in which it was voted on");
}

#[test]
fn rule_336_each_player_has_one_vote_per_proposal() {
    let mut game = Game::new();
    game.post("Alice", "hack 301 \"Tea\"\nenact\nTea at four.\nend");
    // Bob votes twice: one vote, the last (a vote may be changed until the count).
    game.vote("Bob", "vote 301 for");
    game.vote("Bob", "vote 301 against");
    game.vote("Carol", "vote 301 against");
    let count = game.counted(1);
    assert!(
        count.body.contains("1 for, 2 against, 0 abstaining"),
        "{}",
        count.body
    );
    assert!(count.body.contains("Bob: against"), "{}", count.body);
}

#[test]
fn rule_407_a_fractional_award_is_rounded_to_the_nearest_integer() {
    let mut game = Game::new();
    game.post("Alice", "hack 301 \"Tea\"\nenact\nTea at four.\nend");
    game.vote("Bob", "vote 301 for");
    game.vote("Carol", "vote 301 against");
    // 304: (301 − 291) × 2/3 = 6.67, rounded to 7.
    let count = game.counted(1);
    assert!(
        count
            .body
            .contains("Alice: +7, hack 301 adopted (rule 304)"),
        "{}",
        count.body
    );
}

#[test]
fn rule_423_a_hack_the_bot_cannot_apply_is_refused_with_the_reason() {
    let mut game = Game::new();
    game.post("Alice", "hack 301 Untitled\nenact\nText.\nend");
    assert!(
        game.last_answer("Alice").contains("the title is missing"),
        "{}",
        game.last_answer("Alice")
    );
    game.post(
        "Alice",
        "hack 301 \"Cut\" amends 999\nreplace from \"A\" to \"B.\" with\nC.\nend",
    );
    assert!(
        game.last_answer("Alice")
            .contains("there is no rule 999 in effect"),
        "{}",
        game.last_answer("Alice")
    );
    assert!(
        !game
            .bot
            .sent_mail()
            .iter()
            .any(|m| m.is_to(LIST) && m.subject.contains("Alice's turn")),
        "no turn was posted"
    );
}

#[test]
fn rule_434_a_proposal_is_made_in_ones_own_turn_and_initial_post() {
    let mut game = Game::new();
    // Bob's hack in Alice's turn is no proposal.
    game.post("Bob", "hack 301 \"Mine\"\nenact\nMine.\nend");
    assert!(
        game.last_answer("Bob").contains("it is Alice's turn"),
        "{}",
        game.last_answer("Bob")
    );
    // Alice's turn is one post: a second post while it is voted on is refused.
    game.post("Alice", "hack 301 \"One\"\nenact\nOne.\nend");
    game.post("Alice", "hack 302 \"Two\"\nenact\nTwo.\nend");
    assert!(
        game.last_answer("Alice").contains("Refused"),
        "{}",
        game.last_answer("Alice")
    );
}

#[test]
fn rule_107_an_adopted_change_takes_effect_at_the_completion_of_the_vote() {
    let mut game = Game::new();
    game.post("Alice", "hack 301 \"Tea\"\nenact\nTea at four.\nend");
    let posted = game.when;
    game.vote("Bob", "vote 301 for");
    game.vote("Carol", "vote 301 for");
    let completed = game.when;
    game.counted(1);
    let state = game.bot.state_json();
    let changes = state["ruleset"]["changes"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let enacted = changes
        .iter()
        .find(|c| c["number"] == 301)
        .expect("the change is logged");
    let at: Timestamp = enacted["at"].as_str().expect("at").parse().expect("time");
    assert!(at >= completed && at > posted, "{at} vs {completed}");
}

#[test]
fn rule_310_and_431_n_is_100_or_twice_the_average_of_the_players_scores() {
    // Hacks numbered from 381: each adopted by all earns its ordinal less 291.
    let mut game = Game::with(&["Alice", "Bob", "Carol", "Dave"], Some(380));
    // A text with more a's than the points, so that 372 adds nothing.
    let filler = "a".repeat(100);
    for (turn, (name, others)) in [
        ("Alice", ["Bob", "Carol", "Dave"]),
        ("Bob", ["Alice", "Carol", "Dave"]),
        ("Carol", ["Alice", "Bob", "Dave"]),
    ]
    .iter()
    .enumerate()
    {
        let number = 381 + turn as u32;
        game.post(
            name,
            &format!("hack {number} \"Filler {number}\"\nenact\n{filler}\nend"),
        );
        for other in others {
            game.vote(other, &format!("vote {number} for"));
        }
    }
    // 90, 91 and 92 points: twice the average of 90, 91, 92 and 0 is 136.5,
    // above 100, so n is 137 (rounded up) and nobody has reached it.
    let count = game.counted(3);
    for line in [
        "Alice: 90",
        "Bob: 91",
        "Carol: 92",
        "Dave: 0",
        "n, the winning threshold (rules 112, 310 and 431): 137.",
        "Next to play: Dave (rule 325).",
    ] {
        assert!(count.body.contains(line), "{line:?} in {}", count.body);
    }
    // With two counted turns n was still the floor: twice 181/4 is 90.5.
    assert!(
        game.counted(2)
            .body
            .contains("n, the winning threshold (rules 112, 310 and 431): 100."),
        "{}",
        game.counted(2).body
    );
}

#[test]
fn rule_205_an_adopted_hack_changes_the_rules_every_game_plays_on() {
    use crate::ruletag::{
        BOT as RT_BOT, FAR_BALL, FAR_GOAL, LIST as RT_LIST, MODERATOR as RTM, address, after_turn,
        assert_has, on, placed, points, run_until, second_notification, send, standing,
    };
    // Rule Tag is running on the Gnomic page: Earl on rule 407, Ariel on 325.
    let bot = placed(
        &["Earl", "Ariel"],
        40,
        &[("Earl", 407), ("Ariel", 325)],
        FAR_BALL,
        FAR_GOAL,
    );
    // In nweek 6, a game of Gnomic among the same players repeals 407 by a hack
    // (the page's rules reach 440, so the hack is 441).
    send(&bot, RTM, RT_LIST, "[gnomic] start", "", on(6, 2, 0));
    send(
        &bot,
        &address("Ariel"),
        RT_LIST,
        "[gnomic] turn",
        "hack 441 \"Fewer rules\" repeals 407",
        on(6, 2, 10),
    );
    for (i, name) in ["Earl", "Mod"].iter().enumerate() {
        send(
            &bot,
            &address(name),
            RT_BOT,
            "[gnomic]",
            "vote 441 for",
            on(6, 2, 20 + i as i64),
        );
    }
    run_until(&bot, after_turn(6));
    let state = bot.state_json();
    let rules = state["ruleset"]["rules"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        !rules.iter().any(|r| r["number"] == 407),
        "407 was repealed"
    );
    // Rule Tag's turn sees the rule gone: Earl loses 25 and goes to null.
    assert_eq!(standing(&bot, "Earl").1, serde_json::Value::Null);
    assert_eq!(points(&bot, "Earl"), "15");
    assert_has(
        &second_notification(&bot, 6),
        "Penalties: rule 407, Earl's RTL, no longer exists: Earl loses 25 points and is set to null.",
    );
}
