//! Issue 27: "A month of play (several players, moves, space changes,
//! purchases, proposals) scripted as mail through the real IMAP and SMTP
//! servers, whose final state a test recomputes independently from the event
//! log". Four players play thirty-one days of the Space Nomic by SMTP to the
//! list; the bot reads over IMAP, its clock moved by `--now`. Then the test
//! reads `nomicbot log --json` as an archive reader would and recomputes, with
//! its own exact arithmetic and its own breadth-first distances (none of the
//! crate's space code), every player's money, location and activity, the
//! owners, the graph and the ruleset, and compares them with
//! `nomicbot state space --json`.
//!
//! The month runs in the past (it ends days before the real clock): a message
//! is taken at its server arrival time or at `--now`, whichever is earlier, so
//! every message is applied exactly at the scripted instant.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::str::FromStr;

use jiff::{SignedDuration, Timestamp};
use num_bigint::BigInt;
use num_rational::BigRational;
use serde_json::{Value, json};

use crate::e2e::{ImapBot, is_from_bot};
use crate::support::SentMail;

type Vertex = (i64, i64);

const DAY: i64 = 24 * 60;

/// The bot on the real servers and the month's first midnight.
struct Month {
    bot: ImapBot,
    t0: Timestamp,
    sent: usize,
}

impl Month {
    fn at(&self, minutes: i64) -> Timestamp {
        self.t0 + SignedDuration::from_mins(minutes)
    }

    /// Time passes to `minutes` (the deadlines before it fire); then each
    /// message goes to the list by SMTP, and one pass applies them at that
    /// instant. Messages sent together are independent of their order.
    async fn step(&mut self, minutes: i64, messages: &[(&str, &str)]) {
        let now = self.at(minutes).to_string();
        self.bot.cli(&["once", "--now", &now]);
        for (who, body) in messages {
            self.sent += 1;
            let (subject, body) = match body.split_once('\n') {
                None => (format!("[space] {body}"), String::new()),
                Some(_) => ("[space] actions".to_owned(), (*body).to_owned()),
            };
            let from = self.bot.player(&who.to_lowercase());
            let id = format!("m{}", self.sent);
            self.bot.send(&from, true, &subject, &id, &body).await;
        }
        let got = self
            .bot
            .wait_for(&self.bot.bot(), self.sent, |_| true)
            .await;
        assert!(
            got.len() >= self.sent,
            "message {} did not arrive",
            self.sent
        );
        let out = self.bot.cli(&["once", "--now", &now]);
        assert!(
            out.contains(&format!("applied {}", messages.len())),
            "{messages:?} at {now}: {out}"
        );
    }

    fn json(&self, args: &[&str]) -> Value {
        serde_json::from_str(&self.bot.cli(args)).expect("json")
    }
}

/// Where Alice's and Carol's daily location changes take them: Alice between
/// (0, 0) and (1, 0), Carol between (1, 0) and (1, 1), along edges no space
/// change removes.
fn daily_moves(day: i64) -> [(&'static str, &'static str); 2] {
    if day % 2 == 0 {
        [("Alice", "move to (1, 0)"), ("Carol", "move to (1, 1)")]
    } else {
        [("Alice", "move to (0, 0)"), ("Carol", "move to (1, 0)")]
    }
}

/// Messages sent together: (player, body).
type Batch = Vec<(&'static str, &'static str)>;

/// The month's script: (day, minute of the day, messages sent together).
fn script() -> Vec<(i64, i64, Batch)> {
    let h = |hour: i64, minute: i64| hour * 60 + minute;
    vec![
        (0, h(9, 0), vec![("Alice", "join Alice")]),
        (0, h(9, 1), vec![("Bob", "join Bob")]),
        (0, h(9, 2), vec![("Carol", "join Carol")]),
        (0, h(9, 3), vec![("Dave", "join Dave")]),
        (0, h(9, 10), vec![("Alice", "give 1/6 to Bob")]),
        (
            0,
            h(10, 0),
            vec![
                ("Alice", "move to (0, 0)"),
                ("Bob", "move to (1, 1)"),
                ("Carol", "move to (1, 0)"),
                ("Dave", "move to (0, 1)"),
            ],
        ),
        (
            0,
            h(10, 30),
            vec![(
                "Alice",
                "propose Bridges: create Bridges colour blue because rivers need crossing: Every river has a bridge.\n\
                 create Ferries colour green because some rivers are too wide: Every lake has a ferry.\n\
                 vote 1 on Bridges",
            )],
        ),
        // The first evaluation (day 1, 12:00) placed everyone.
        (1, h(14, 0), vec![("Alice", "buy"), ("Bob", "buy")]),
        // 1 + 1/2 - 2 < 0 and 1 + 1/2 + 2 > 0: undecided.
        (1, h(14, 30), vec![("Bob", "vote 1/2 on Bridges")]),
        // 1 + 1/2 - 1/3 - 1 > 0: passed at Carol's vote.
        (1, h(14, 40), vec![("Carol", "vote -1/3 on Bridges")]),
        // Nobody votes on it, nobody refreshes it: destroyed on day 18.
        (2, h(10, 30), vec![("Dave", "propose Forgotten: repeal 20")]),
        (2, h(14, 0), vec![("Alice", "buy")]),
        (
            3,
            h(10, 30),
            vec![("Carol", "propose Walls: repeal Bridges\nvote 1 on Walls")],
        ),
        (3, h(11, 0), vec![("Alice", "vote -1 on Walls")]),
        // 1 - 1 - 1 + 1 <= 0: failed at Dave's vote.
        (3, h(11, 10), vec![("Dave", "vote -1 on Walls")]),
        (
            4,
            h(10, 30),
            vec![(
                "Bob",
                "propose Renewed: modify Bridges: Every river has two bridges.\nvote 1/4 on Renewed",
            )],
        ),
        (5, h(10, 30), vec![("Alice", "give vertex (0, 0) to Dave")]),
        // Executed on day 6 at 12:00, both.
        (
            6,
            h(10, 30),
            vec![
                ("Bob", "add vertex (2, 1) joined to (1, 0) (1, 1)"),
                ("Dave", "add edge (0, 0) (1, 1)"),
            ],
        ),
        (8, h(10, 30), vec![("Alice", "accuse Dave of inactivity")]),
        (9, h(10, 30), vec![("Bob", "give 5 1/2 to Carol")]),
        (10, h(10, 30), vec![("Carol", "give 1 to nowhere")]),
        // Each alone keeps Space connected; together they cut (2, 1) off: on
        // day 12 neither is executed.
        (
            11,
            h(10, 30),
            vec![
                ("Alice", "remove edge to (2, 1)"),
                ("Bob", "remove edge to (2, 1)"),
            ],
        ),
        (14, h(10, 30), vec![("Carol", "refresh Renewed")]),
        (16, h(10, 30), vec![("Carol", "remove edge to (2, 1)")]),
        (20, h(10, 30), vec![("Bob", "pause")]),
        // 1/4 + 1 - 1 > 0 (Carol the only active player not to have voted).
        (21, h(10, 30), vec![("Alice", "vote 1 on Renewed")]),
        (
            22,
            h(10, 30),
            vec![
                ("Carol", "propose Tidy: repeal Ferries\nvote 1 on Tidy"),
                ("Alice", "add vertex (2, 0) joined to (1, 0) (2, 1)"),
            ],
        ),
        (23, h(10, 30), vec![("Alice", "vote 1/2 on Tidy")]),
        (27, h(10, 30), vec![("Dave", "withdraw")]),
        // (0, 0) is a former player's: on sale again.
        (29, h(14, 0), vec![("Alice", "buy")]),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn a_month_of_space_nomic_by_mail_recomputed_from_the_event_log() {
    let bot = ImapBot::new("month");
    // The text's end (2005) is long past: the shipped end instead.
    let config = std::fs::read_to_string(bot.config_path()).expect("bot.toml");
    std::fs::write(
        bot.config_path(),
        format!("{config}\n[space]\nend = \"2105-02-19T23:22:19Z\"\n"),
    )
    .expect("bot.toml");
    let today = Timestamp::now().as_second() / 86_400 * 86_400;
    let t0 = Timestamp::from_second(today).expect("midnight") - SignedDuration::from_hours(40 * 24);
    let mut month = Month { bot, t0, sent: 0 };

    let mut steps: Vec<(i64, Vec<(&str, &str)>)> = script()
        .into_iter()
        .map(|(day, minute, messages)| (day * DAY + minute, messages))
        .collect();
    for day in 2..=30 {
        steps.push((day * DAY + 10 * 60, daily_moves(day).to_vec()));
    }
    steps.sort_by_key(|(at, _)| *at);
    for (minute, messages) in &steps {
        month.step(*minute, messages).await;
    }
    month
        .bot
        .cli(&["once", "--now", &month.at(30 * DAY + 22 * 60).to_string()]);

    let state = month.json(&["state", "space", "--json"]);
    let log = month.json(&["log", "--json"]);
    let recomputed = Recount::from_log(&log);

    // What the script meant to happen happened (else the recount would check
    // a month that did not take place).
    let names: Vec<&str> = state["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert!(
        names.contains(&"Bridges") && !names.contains(&"Ferries"),
        "{names:?}"
    );
    assert_eq!(state["proposals"], json!([]), "{state}");
    let dave = player(&state, "Dave");
    assert_eq!(dave["playing"], false, "{dave}");
    assert_eq!(player(&state, "Bob")["active"], false);
    assert_eq!(state["space"]["vertices"].as_array().map(Vec::len), Some(6));
    assert_eq!(
        recomputed.evaluations,
        (30, 5),
        "location, space evaluations"
    );
    assert_eq!(recomputed.space_refused, 1, "day 12's ambiguous set");
    assert_eq!(recomputed.incomes, 31, "daily incomes");
    assert_eq!(recomputed.accused_inactive, 1, "Dave, on day 15");
    assert_eq!(recomputed.decided, (3, 1), "passed, failed");
    assert_eq!(recomputed.expired, 1);

    recomputed.compare(&state);

    // The players read all of it on the list.
    let expected = [
        "Proposal Bridges passed",
        "Proposal Walls failed",
        "Proposal Forgotten destroyed",
        "Proposal Renewed passed",
        "Proposal Tidy passed",
        "Space changes evaluated",
        "Location changes evaluated",
        "Income",
        "Activity",
    ];
    let listed: Vec<String> = month
        .bot
        .wait_for(&month.bot.list(), 1, |raw| {
            is_from_bot(raw)
                && SentMail::parse(raw)
                    .subject
                    .contains("Proposal Tidy passed")
        })
        .await;
    assert_eq!(listed.len(), 1, "the last decision reached the list");
    let listed: Vec<SentMail> = month
        .bot
        .mailbox_of(&month.bot.list())
        .await
        .iter()
        .filter(|raw| is_from_bot(raw))
        .map(|raw| SentMail::parse(raw))
        .collect();
    for subject in expected {
        assert!(
            listed.iter().any(|m| m.subject.contains(subject)),
            "{subject:?} on the list"
        );
    }
    assert!(
        listed
            .iter()
            .any(|m| m.subject.contains("Space changes evaluated")
                && m.body.contains("no space change is executed")
                && m.body.contains("would disconnect Space")),
        "day 12's evaluation told why nothing was executed"
    );
    assert!(month.bot.cli(&["replay"]).contains("equals the live state"));
}

fn player<'a>(state: &'a Value, name: &str) -> &'a Value {
    state["players"]
        .as_array()
        .and_then(|ps| ps.iter().find(|p| p["name"] == name))
        .unwrap_or_else(|| panic!("no {name} in {state}"))
}

// ---- The recount: the archive reader's own arithmetic ------------------------

fn rational(text: &str) -> BigRational {
    BigRational::from_str(text.trim()).unwrap_or_else(|_| panic!("not a rational: {text}"))
}

fn whole(n: i64) -> BigRational {
    BigRational::from_integer(BigInt::from(n))
}

/// The text's numbers, read from the text, not from the crate.
fn starting_money() -> BigRational {
    whole(97)
}
fn pass_reward() -> BigRational {
    whole(18)
}
/// "6 + 1/403": both the fine and every voter's reward.
fn six_and_a_403rd() -> BigRational {
    whole(6) + BigRational::new(BigInt::from(1), BigInt::from(403))
}
fn vertex_price() -> BigRational {
    whole(32)
}

fn vertex(value: &Value) -> Vertex {
    (value[0].as_i64().expect("x"), value[1].as_i64().expect("y"))
}

fn edge(a: Vertex, b: Vertex) -> (Vertex, Vertex) {
    if a <= b { (a, b) } else { (b, a) }
}

/// "Two vertices of Space are considered coordinatewise adjacent if both [...]
/// differences [...] are at most 1."
fn near(a: Vertex, b: Vertex) -> bool {
    (a.0 - b.0).abs() <= 1 && (a.1 - b.1).abs() <= 1
}

#[derive(Debug, Clone, PartialEq)]
struct Graph {
    /// Each vertex and its owner: a player's id, or god/a non-player (`None`
    /// is god; former players stay as their id).
    owners: BTreeMap<Vertex, Option<u64>>,
    edges: BTreeSet<(Vertex, Vertex)>,
}

impl Graph {
    /// The graphwise distances from `from`, by breadth-first search.
    fn distances(&self, from: Vertex) -> BTreeMap<Vertex, i64> {
        let mut seen = BTreeMap::from([(from, 0)]);
        let mut queue = VecDeque::from([from]);
        while let Some(v) = queue.pop_front() {
            let d = seen[&v];
            for (a, b) in &self.edges {
                let other = if *a == v {
                    *b
                } else if *b == v {
                    *a
                } else {
                    continue;
                };
                if let std::collections::btree_map::Entry::Vacant(slot) = seen.entry(other) {
                    slot.insert(d + 1);
                    queue.push_back(other);
                }
            }
        }
        seen
    }

    fn connected(&self) -> bool {
        match self.owners.keys().next() {
            None => true,
            Some(v) => self.distances(*v).len() == self.owners.len(),
        }
    }

    /// A space change by a player at `x`, if valid by the text.
    fn change(&mut self, x: Option<Vertex>, change: &Value) -> bool {
        let Some(x) = x else { return false };
        let kind = change["kind"].as_str().unwrap_or_default();
        match kind {
            "remove_edge" => {
                let y = vertex(&change["y"]);
                if !self.edges.remove(&edge(x, y)) {
                    return false;
                }
                self.connected()
            }
            "add_edge" => {
                let (y, z) = (vertex(&change["y"]), vertex(&change["z"]));
                let valid = y != z
                    && self.owners.contains_key(&y)
                    && self.owners.contains_key(&z)
                    && near(x, y)
                    && near(x, z)
                    && near(y, z);
                valid && self.edges.insert(edge(y, z))
            }
            "add_vertex" => {
                let (a, y, z) = (
                    vertex(&change["a"]),
                    vertex(&change["y"]),
                    vertex(&change["z"]),
                );
                let valid = y != z
                    && self.owners.contains_key(&y)
                    && self.owners.contains_key(&z)
                    && near(x, y)
                    && near(x, z)
                    && !self.owners.contains_key(&a);
                if valid {
                    self.owners.insert(a, None);
                    self.edges.insert(edge(a, y));
                    self.edges.insert(edge(a, z));
                }
                valid
            }
            other => panic!("unknown space change {other}"),
        }
    }
}

#[derive(Debug, Clone)]
struct Player {
    name: String,
    money: BigRational,
    location: Option<Vertex>,
    active: bool,
    playing: bool,
    /// When ey last performed an action or a move.
    last_acted: Timestamp,
}

#[derive(Debug, Clone)]
struct Proposal {
    creator: u64,
    changes: Vec<Value>,
    votes: Vec<(u64, BigRational)>,
    refreshed: Timestamp,
}

#[derive(Debug, Default)]
struct Recount {
    players: BTreeMap<u64, Player>,
    graph: Option<Graph>,
    /// Number to (name, version).
    rules: BTreeMap<u64, (String, u64)>,
    numbers_used: BTreeSet<u64>,
    proposals: BTreeMap<String, Proposal>,
    location_moves: BTreeMap<u64, Vertex>,
    space_moves: BTreeMap<u64, Value>,
    /// The log's own income transfers since the last income, to check
    /// against ours.
    logged_income: BTreeMap<u64, BigRational>,
    evaluations: (u32, u32),
    /// Each player's balance less the starting 97 by the log's own transfers
    /// (rewards, fines, prices, income and all), to check against ours.
    logged_balance: BTreeMap<u64, BigRational>,
    /// Accusations of inactivity by another player: who, when.
    accusations: Vec<(u64, Timestamp)>,
    accused_inactive: u32,
    /// Space evaluations that executed nothing.
    space_refused: u32,
    incomes: u32,
    decided: (u32, u32),
    expired: u32,
}

impl Recount {
    fn from_log(log: &Value) -> Recount {
        let mut recount = Recount::default();
        for record in log.as_array().expect("the log is an array") {
            let event = &record["event"];
            if event["game"] != "space" {
                continue;
            }
            let at: Timestamp = record["at"].as_str().expect("at").parse().expect("time");
            recount.apply(event, at);
        }
        recount
    }

    fn graph(&mut self) -> &mut Graph {
        self.graph.as_mut().expect("the game has begun")
    }

    fn id(event: &Value, key: &str) -> u64 {
        event[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{key} in {event}"))
    }

    fn apply(&mut self, event: &Value, at: Timestamp) {
        let kind = event["kind"].as_str().expect("kind");
        match kind {
            "ruleset_started" => {
                // The starting graph is `[space]`'s default, the square.
                let square = [(0, 0), (1, 0), (1, 1), (0, 1)];
                let graph = Graph {
                    owners: square.iter().map(|v| (*v, None)).collect(),
                    edges: (0..4)
                        .map(|i| edge(square[i], square[(i + 1) % 4]))
                        .collect(),
                };
                // The log records the graph it started from: the same.
                let recorded: BTreeSet<Vertex> = event["space"]["vertices"]
                    .as_array()
                    .expect("the starting vertices")
                    .iter()
                    .map(|v| vertex(&v["at"]))
                    .collect();
                assert_eq!(recorded, square.into_iter().collect(), "{event}");
                self.graph = Some(graph);
                for rule in event["rules"].as_array().expect("rules") {
                    let number = Self::id(rule, "number");
                    assert_eq!(rule["version"], 0, "{rule}");
                    let name = rule["name"].as_str().expect("name").to_owned();
                    self.rules.insert(number, (name, 0));
                    self.numbers_used.insert(number);
                }
                assert_eq!(self.rules.len(), 54, "one rule a paragraph of the text");
            }
            "joined" => {
                let id = Self::id(event, "id");
                self.players.insert(
                    id,
                    Player {
                        name: event["name"].as_str().expect("name").to_owned(),
                        money: starting_money(),
                        location: None,
                        active: true,
                        playing: true,
                        last_acted: at,
                    },
                );
            }
            "transferred" => {
                let amount = rational(event["amount"].as_str().expect("amount"));
                if let Some(from) = event["from"].as_u64() {
                    *self.logged_balance.entry(from).or_default() -= amount.clone();
                }
                if let Some(to) = event["to"].as_u64() {
                    *self.logged_balance.entry(to).or_default() += amount.clone();
                }
                match event["why"].as_str().unwrap_or_default() {
                    // The only transfer a player announces: as announced.
                    "a transfer" => {
                        if let Some(from) = event["from"].as_u64() {
                            self.pay(from, -amount.clone());
                        }
                        if let Some(to) = event["to"].as_u64() {
                            self.pay(to, amount);
                        }
                    }
                    "income" => {
                        let to = Self::id(event, "to");
                        *self.logged_income.entry(to).or_default() += amount;
                    }
                    // Rewards, fines and prices: recomputed from the text below.
                    _ => {}
                }
            }
            "proposed" => {
                self.proposals.insert(
                    event["name"].as_str().expect("name").to_lowercase(),
                    Proposal {
                        creator: Self::id(event, "creator"),
                        changes: event["changes"].as_array().expect("changes").clone(),
                        votes: Vec::new(),
                        refreshed: at,
                    },
                );
            }
            "refreshed" => {
                let name = event["name"].as_str().expect("name").to_lowercase();
                self.proposals.get_mut(&name).expect("refreshed").refreshed = at;
            }
            "voted" => {
                let name = event["name"].as_str().expect("name").to_lowercase();
                let vote = rational(event["vote"].as_str().expect("vote"));
                assert!(vote <= whole(1) && vote >= whole(-1), "{event}");
                let voter = Self::id(event, "voter");
                self.proposals
                    .get_mut(&name)
                    .expect("voted on")
                    .votes
                    .push((voter, vote));
            }
            "decided" => self.decide(event),
            "destroyed" => {
                let name = event["name"].as_str().expect("name").to_lowercase();
                let proposal = self.proposals.remove(&name).expect("destroyed");
                // "If a proposal has existed for at least 16 days and has not
                // been refreshed in the last 16 days, it is destroyed."
                assert_eq!(
                    at.duration_since(proposal.refreshed),
                    SignedDuration::from_hours(16 * 24)
                );
                self.expired += 1;
            }
            "acted" => {
                let p = self.player(Self::id(event, "id"));
                p.active = true;
                p.last_acted = at;
            }
            "accused" => self.accusations.push((Self::id(event, "accused"), at)),
            "activity" => {
                let id = Self::id(event, "id");
                let active = event["active"].as_bool().expect("active");
                if !active && event["paused"] == false {
                    // "Any player who was accused of inactivity by another
                    // player 7 days ago and has not performed an action or a
                    // move in the last 7 days".
                    let week = SignedDuration::from_hours(7 * 24);
                    let last = self.players[&id].last_acted;
                    assert!(
                        self.accusations.iter().any(|(accused, when)| *accused == id
                            && at.duration_since(*when) == week
                            && at.duration_since(last) >= week),
                        "{event} at {at}"
                    );
                    self.accused_inactive += 1;
                }
                self.player(id).active = active;
            }
            "withdrew" | "removed" => self.player(Self::id(event, "id")).playing = false,
            "vertex_owned" => {
                let at = vertex(&event["at"]);
                let new = event["owner"]["entity"].as_u64();
                let before = self.graph().owners[&at];
                let owned_by_a_player = before.is_some_and(|id| self.players[&id].playing);
                if !owned_by_a_player {
                    // "can become the owner of that vertex if e transfers 32
                    // money units to nowhere", standing there.
                    let buyer = new.expect("a player buys");
                    assert_eq!(self.players[&buyer].location, Some(at), "{event}");
                    self.pay(buyer, -vertex_price());
                }
                self.graph().owners.insert(at, new);
            }
            "move_stored" => {
                let player = Self::id(event, "player");
                self.location_moves.insert(player, vertex(&event["to"]));
            }
            "move_withdrawn" => {
                self.location_moves.remove(&Self::id(event, "player"));
            }
            "moves_evaluated" => self.evaluate_locations(event),
            "space_change_stored" => {
                let player = Self::id(event, "player");
                self.space_moves.insert(player, event["change"].clone());
            }
            "space_change_withdrawn" => {
                self.space_moves.remove(&Self::id(event, "player"));
            }
            "space_changes_evaluated" => self.evaluate_space(event),
            "income_paid" => self.income(),
            _ => {}
        }
    }

    fn player(&mut self, id: u64) -> &mut Player {
        self.players.get_mut(&id).expect("a player")
    }

    fn pay(&mut self, id: u64, amount: BigRational) {
        let player = self.player(id);
        player.money += amount;
    }

    /// "Suppose that all active players who had not yet voted [...] were all to
    /// do so": checked against our own activity flags, then carried out.
    fn decide(&mut self, event: &Value) {
        let name = event["name"].as_str().expect("name").to_lowercase();
        let passed = event["passed"].as_bool().expect("passed");
        let proposal = self.proposals.remove(&name).expect("decided");
        let sum: BigRational = proposal.votes.iter().map(|(_, v)| v.clone()).sum();
        let undecided = self
            .players
            .iter()
            .filter(|(id, p)| {
                p.playing && p.active && !proposal.votes.iter().any(|(v, _)| v == *id)
            })
            .count();
        let undecided = whole(i64::try_from(undecided).expect("few"));
        if passed {
            assert!(&sum - &undecided > whole(0), "{event}: {sum} - {undecided}");
            self.decided.0 += 1;
            for change in &proposal.changes {
                self.carry_out(change);
            }
            if self.players[&proposal.creator].playing {
                self.pay(proposal.creator, pass_reward());
            }
        } else {
            assert!(
                &sum + &undecided <= whole(0),
                "{event}: {sum} + {undecided}"
            );
            self.decided.1 += 1;
            if self.players[&proposal.creator].playing {
                self.pay(proposal.creator, -six_and_a_403rd());
            }
        }
        for (voter, _) in &proposal.votes {
            if self.players[voter].playing {
                self.pay(*voter, six_and_a_403rd());
            }
        }
    }

    fn rule_number(&self, written: &str) -> Option<u64> {
        written
            .parse()
            .ok()
            .filter(|n| self.rules.contains_key(n))
            .or_else(|| {
                self.rules
                    .iter()
                    .find(|(_, (name, _))| name.eq_ignore_ascii_case(written))
                    .map(|(n, _)| *n)
            })
    }

    /// "When a rule is modified, its replacement takes its number and name,
    /// and the version number [...] plus one. When a rule is otherwise created,
    /// the new rule is numbered with the least non-negative integer which has
    /// never previously been used".
    fn carry_out(&mut self, change: &Value) {
        match change["kind"].as_str().expect("kind") {
            "create" => {
                let number = (0..)
                    .find(|n| !self.numbers_used.contains(n))
                    .expect("a number");
                let name = change["name"].as_str().expect("named").to_owned();
                assert!(change["colour"].as_str().is_some_and(|c| !c.is_empty()));
                assert!(change["reason"].as_str().is_some_and(|r| !r.is_empty()));
                self.numbers_used.insert(number);
                self.rules.insert(number, (name, 0));
            }
            "modify" => {
                let number = self
                    .rule_number(change["rule"].as_str().expect("rule"))
                    .expect("the modified rule");
                self.rules.get_mut(&number).expect("rule").1 += 1;
            }
            "repeal" => {
                let number = self
                    .rule_number(change["rule"].as_str().expect("rule"))
                    .expect("the repealed rule");
                self.rules.remove(&number);
            }
            other => panic!("unknown change {other}"),
        }
    }

    /// "when a player's location is a vertex of Space, e may change it to an
    /// adjacent vertex"; "when [...] nowhere, [...] to any vertex of Space";
    /// all or none.
    fn evaluate_locations(&mut self, event: &Value) {
        let moves = std::mem::take(&mut self.location_moves);
        if moves.is_empty() && event["why"] == "the game begins" {
            return;
        }
        self.evaluations.0 += 1;
        let graph = self.graph.clone().expect("space");
        let valid = moves.iter().all(|(id, to)| {
            let p = &self.players[id];
            p.playing
                && graph.owners.contains_key(to)
                && p.location
                    .is_none_or(|from| graph.edges.contains(&edge(from, *to)))
        });
        assert_eq!(event["executed"], valid, "{event} {moves:?}");
        if valid {
            for (id, to) in moves {
                let p = self.player(id);
                p.location = Some(to);
                // "Whenever a player performs an action or a move".
                p.active = true;
            }
        }
    }

    /// "if there is an unambiguous way to execute all moves of this type then
    /// this occurs": every order is tried; executed when at least one order
    /// works and all that work give one Space.
    fn evaluate_space(&mut self, event: &Value) {
        let moves: Vec<(u64, Value)> = std::mem::take(&mut self.space_moves).into_iter().collect();
        if event["why"] == "the game begins" {
            return;
        }
        self.evaluations.1 += 1;
        let start = self.graph.clone().expect("space");
        let mut results: Vec<Graph> = Vec::new();
        for order in orders(moves.len()) {
            let mut graph = start.clone();
            let valid = order.iter().all(|i| {
                let (id, change) = &moves[*i];
                let p = &self.players[id];
                let at = if p.playing { p.location } else { None };
                graph.change(at, change)
            });
            if valid {
                results.push(graph);
            }
        }
        let executed = !results.is_empty() && results.iter().all(|g| *g == results[0]);
        assert_eq!(event["executed"], executed, "{event} {moves:?}");
        if !executed {
            self.space_refused += 1;
        }
        if executed {
            self.graph = Some(results.swap_remove(0));
            for (id, _) in moves {
                self.player(id).active = true;
            }
        }
    }

    /// "Each day at 21:00 GMT, each player gains [...] the average [
    /// 2/(d_1^2+2) + ... ]/n"; nowhere is infinitely far (a term of 0).
    fn income(&mut self) {
        self.incomes += 1;
        let graph = self.graph.clone().expect("space");
        let owned: Vec<Vertex> = graph
            .owners
            .iter()
            .filter(|(_, owner)| owner.is_some_and(|id| self.players[&id].playing))
            .map(|(v, _)| *v)
            .collect();
        let logged = std::mem::take(&mut self.logged_income);
        let mut ours = BTreeMap::new();
        if !owned.is_empty() {
            let n = whole(i64::try_from(owned.len()).expect("few"));
            let ids: Vec<u64> = self
                .players
                .iter()
                .filter(|(_, p)| p.playing)
                .map(|(id, _)| *id)
                .collect();
            for id in ids {
                let distances = self.players[&id]
                    .location
                    .map(|at| graph.distances(at))
                    .unwrap_or_default();
                let sum: BigRational = owned
                    .iter()
                    .filter_map(|v| distances.get(v))
                    .map(|d| BigRational::new(BigInt::from(2), BigInt::from(d * d + 2)))
                    .sum();
                let gain = sum / &n;
                if gain > whole(0) {
                    ours.insert(id, gain.clone());
                    self.pay(id, gain);
                }
            }
        }
        assert_eq!(ours, logged, "the income the log records");
    }

    /// Ours against the bot's `state space --json`.
    fn compare(&self, state: &Value) {
        for (id, ours) in &self.players {
            let theirs = state["players"]
                .as_array()
                .and_then(|ps| ps.iter().find(|p| p["id"] == *id))
                .unwrap_or_else(|| panic!("no player {id} in {state}"));
            assert_eq!(theirs["name"], ours.name.as_str());
            let money = rational(theirs["money"].as_str().expect("money"));
            assert_eq!(money, ours.money, "{}'s money", ours.name);
            let logged =
                starting_money() + self.logged_balance.get(id).cloned().unwrap_or_default();
            assert_eq!(
                logged, ours.money,
                "{}'s money by the log's transfers",
                ours.name
            );
            let location = ours.location.map_or(Value::Null, |(x, y)| json!([x, y]));
            assert_eq!(theirs["location"], location, "{}'s location", ours.name);
            assert_eq!(theirs["active"], ours.active, "{}'s activity", ours.name);
            assert_eq!(theirs["playing"], ours.playing, "{} playing", ours.name);
        }
        let graph = self.graph.as_ref().expect("space");
        let owners: BTreeMap<Vertex, Option<u64>> = state["space"]["vertices"]
            .as_array()
            .expect("vertices")
            .iter()
            .map(|v| (vertex(&v["at"]), v["owner"]["entity"].as_u64()))
            .collect();
        assert_eq!(owners, graph.owners, "the vertices and their owners");
        let edges: BTreeSet<(Vertex, Vertex)> = state["space"]["edges"]
            .as_array()
            .expect("edges")
            .iter()
            .map(|e| edge(vertex(&e[0]), vertex(&e[1])))
            .collect();
        assert_eq!(edges, graph.edges, "the edges of Space");
        let rules: BTreeMap<u64, (String, u64)> = state["rules"]
            .as_array()
            .expect("rules")
            .iter()
            .map(|r| {
                (
                    Self::id(r, "number"),
                    (
                        r["name"].as_str().expect("name").to_owned(),
                        r["version"].as_u64().expect("version"),
                    ),
                )
            })
            .collect();
        assert_eq!(rules, self.rules, "the ruleset's names and versions");
    }
}

/// Every order of `n` things (a few).
fn orders(n: usize) -> Vec<Vec<usize>> {
    if n == 0 {
        return vec![Vec::new()];
    }
    let mut all = Vec::new();
    for first in 0..n {
        for rest in orders(n - 1) {
            let mut order = vec![first];
            order.extend(rest.into_iter().map(|i| if i >= first { i + 1 } else { i }));
            all.push(order);
        }
    }
    all
}
