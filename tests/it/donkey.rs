//! `[donkey]`, Grab-a-Donkey (Ackanomic rule 1213/9, "Habeous Corpus"), through
//! the real pipeline: mail into the inbox Maildir, `nomicbot once`, the answers
//! and announcements read back from the outbox, the state from `state --json`.
//! One scenario per paragraph of the rule (the unlettered ones first, then A to
//! I), named after it and quoting it; then the secrecy of a long game.

use jiff::{SignedDuration, Timestamp};

use crate::support::{LocalBot, SentMail, at, balance, message};

const LIST: &str = "game-list@nomic.example";
const BOT: &str = "bot@nomic.example";
const MODERATOR: &str = "mod@nomic.example";
const WENDY: &str = "wendy@nomic.example";

/// Monday 2 March 2026, 09:00 UTC.
fn start() -> Timestamp {
    at("2026-03-02T09:00:00Z")
}

fn minutes(n: i64) -> Timestamp {
    start() + SignedDuration::from_mins(n)
}

/// The call is made at minute 20 and the game starts a day later (the notice
/// for declines); round `r` ends `r` days after that, with rounds of one day.
fn game_start() -> Timestamp {
    minutes(20) + SignedDuration::from_hours(24)
}

fn round_end(r: i64) -> Timestamp {
    game_start() + SignedDuration::from_hours(24 * r)
}

/// During round `r`, `m` minutes after it began.
fn in_round(r: i64, m: i64) -> Timestamp {
    round_end(r - 1) + SignedDuration::from_mins(m)
}

fn address(name: &str) -> String {
    format!("{}@nomic.example", name.to_lowercase())
}

struct Game {
    bot: LocalBot,
    sent: usize,
    count: std::cell::Cell<u32>,
}

impl Game {
    /// `names` have joined (Wendy first, the Wrangler-to-be); `mod@` is a
    /// moderator.
    fn with(names: &[&str]) -> Game {
        let config = crate::support::trusting().replace(
            "moderators = []",
            &format!("moderators = [\"{MODERATOR}\"]"),
        );
        let game = Game {
            bot: LocalBot::with_config(&config),
            sent: 0,
            count: std::cell::Cell::new(0),
        };
        for (i, name) in names.iter().enumerate() {
            game.deliver(
                &address(name),
                LIST,
                &format!("[nomic] join {name}"),
                "",
                start() + SignedDuration::from_secs(i as i64),
            );
        }
        game
    }

    fn new() -> Game {
        Game::with(&["Wendy", "Alice", "Bob", "Carol", "Dave"])
    }

    /// Wendy claims the Wranglership and calls a game of one-day rounds; the
    /// game has started: Alice, Bob, Carol and Dave are on the GAL.
    fn started() -> Game {
        let mut game = Game::new();
        game.call();
        game.wait(game_start() + SignedDuration::from_mins(1));
        game
    }

    fn call(&mut self) {
        self.send("Wendy", true, &["claim wrangler"], minutes(10));
        self.send("Wendy", true, &["call 1 days"], minutes(20));
    }

    fn deliver(&self, from: &str, to: &str, subject: &str, body: &str, when: Timestamp) {
        let count = self.count.get() + 1;
        self.count.set(count);
        let id = format!("{count}-{}@players.test", from.replace('@', "."));
        let name = format!("{count}-{}", from.replace('@', "."));
        self.bot
            .deliver(&name, &message(from, to, subject, &id, body), when);
    }

    /// One message of `[donkey]` lines from a player (by name) or a moderator
    /// ("Mod"), and a pass of the bot a minute later.
    fn send(&mut self, who: &str, public: bool, lines: &[&str], when: Timestamp) {
        let from = if who == "Mod" {
            MODERATOR.to_owned()
        } else {
            address(who)
        };
        let to = if public { LIST } else { BOT };
        self.deliver(&from, to, "[donkey] lines", &lines.join("\n"), when);
        self.bot.once(when + SignedDuration::from_mins(1));
    }

    fn act(&mut self, who: &str, line: &str, when: Timestamp) {
        self.send(who, false, &[line], when);
    }

    fn nomic(&mut self, who: &str, line: &str, when: Timestamp) {
        let from = if who == "Mod" {
            MODERATOR.to_owned()
        } else {
            address(who)
        };
        self.deliver(&from, LIST, &format!("[nomic] {line}"), "", when);
        self.bot.once(when + SignedDuration::from_mins(1));
    }

    fn wait(&self, until: Timestamp) {
        self.bot.once(until);
    }

    /// Round `r` is over and reported.
    fn end_round(&self, r: i64) {
        self.wait(round_end(r) + SignedDuration::from_mins(1));
    }

    fn new_mail(&mut self) -> Vec<SentMail> {
        let all = self.bot.sent_mail();
        let new = all[self.sent.min(all.len())..].to_vec();
        self.sent = all.len();
        new
    }

    /// The last answer to `who`.
    fn answer(&self, who: &str) -> String {
        let to = if who == "Mod" {
            MODERATOR.to_owned()
        } else {
            address(who)
        };
        self.bot
            .sent_mail()
            .into_iter()
            .filter(|m| m.is_to(&to))
            .map(|m| m.body)
            .next_back()
            .unwrap_or_default()
    }

    fn announced(&self, subject: &str) -> Vec<SentMail> {
        self.bot
            .sent_mail()
            .into_iter()
            .filter(|m| m.is_to(LIST) && m.subject.contains(subject))
            .collect()
    }

    /// The report of round `r`, its body.
    fn report(&self, r: i64) -> String {
        self.announced(&format!("the report of round {r}"))
            .into_iter()
            .map(|m| m.body)
            .next_back()
            .unwrap_or_else(|| panic!("no report of round {r}"))
    }

    fn donkey(&self) -> serde_json::Value {
        self.bot.state_json()["donkey"].clone()
    }

    fn gal(&self) -> Vec<String> {
        self.donkey()["game"]["gal"]
            .as_array()
            .map(|gal| {
                gal.iter()
                    .map(|p| p["name"].as_str().unwrap_or_default().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    }

    fn title(&self, which: &str) -> Option<String> {
        self.donkey()[which]["name"].as_str().map(str::to_owned)
    }

    /// The kinds of what `name` owns in the inventory.
    fn owns(&self, name: &str) -> Vec<String> {
        let state = self.bot.state_json();
        let id = crate::support::player_id(&state, name);
        let mut kinds: Vec<String> = state["inventory"]["entities"]
            .as_array()
            .map(|all| {
                all.iter()
                    .filter(|e| e["owner"]["player"] == id)
                    .map(|e| e["kind"].as_str().unwrap_or_default().to_owned())
                    .collect()
            })
            .unwrap_or_default();
        kinds.sort();
        kinds
    }

    fn points(&self, name: &str) -> i64 {
        balance(&self.bot.state_json(), name, "points")
            .and_then(|b| b.parse().ok())
            .unwrap_or(0)
    }
}

fn strings(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

/// "The Wrangler may call for a Grab-a-Donkey game at any time, as long as no
/// Grab-a-Donkey game is currently being played. If no Wrangler exists, the
/// first player to claim to be Wrangler may call [...]. A game of Grab-a-Donkey
/// may only be called once per calendar month, however."
#[test]
fn the_wrangler_calls_a_game_once_per_calendar_month() {
    let mut game = Game::new();
    game.send("Alice", true, &["call 1 days"], minutes(1));
    assert!(
        game.answer("Alice").contains("only the Wrangler"),
        "{}",
        game.answer("Alice")
    );
    game.send("Wendy", false, &["claim wrangler"], minutes(2));
    assert!(game.answer("Wendy").contains("publicly"));
    game.send("Wendy", true, &["claim wrangler"], minutes(3));
    assert_eq!(game.title("wrangler").as_deref(), Some("Wendy"));
    game.send("Bob", true, &["claim wrangler"], minutes(4));
    assert!(
        game.answer("Bob").contains("Wendy is the Wrangler"),
        "{}",
        game.answer("Bob")
    );
    // "Rounds will last no less than one full day and no more than 3 full days".
    game.send("Wendy", true, &["call 4 days"], minutes(5));
    assert!(
        game.answer("Wendy").contains("no more than 3"),
        "{}",
        game.answer("Wendy")
    );
    game.send("Wendy", true, &["call 1 days"], minutes(20));
    assert_eq!(game.announced("called by the Wrangler Wendy").len(), 1);
    game.send("Wendy", true, &["call 2 days"], minutes(30));
    assert!(game.answer("Wendy").contains("is being played"));
    // Everyone covers: D's lone non-coverer is Alice, who admires.
    game.wait(game_start() + SignedDuration::from_mins(1));
    for who in ["Bob", "Carol", "Dave"] {
        game.act(who, "cover", in_round(1, 10));
    }
    game.end_round(1);
    assert!(game.announced("has ended: Alice is the Belt Holder").len() == 1);
    // Alice is now the Wrangler, in March still: a second call is refused.
    assert_eq!(game.title("wrangler").as_deref(), Some("Alice"));
    game.send(
        "Alice",
        true,
        &["call 1 days"],
        round_end(1) + SignedDuration::from_hours(1),
    );
    assert!(
        game.answer("Alice").contains("once per calendar month"),
        "{}",
        game.answer("Alice")
    );
    // In April it is not.
    game.send("Alice", true, &["call 1 days"], at("2026-04-01T10:00:00Z"));
    assert!(
        game.answer("Alice").contains("is called"),
        "{}",
        game.answer("Alice")
    );
}

/// "If it has been at least 60 days since the most recent game of Grab-a-Donkey
/// ended, and there is no game of Grab-a-Donkey in progress, any player may
/// claim the title of Wrangler and Belt-Holder, by publically announcing they
/// are doing so. The titles are then transferred to the claimant."
#[test]
fn sixty_days_after_the_last_game_any_player_claims_wrangler_and_belt_holder() {
    let mut game = Game::started();
    for who in ["Bob", "Carol", "Dave"] {
        game.act(who, "cover", in_round(1, 10));
    }
    game.end_round(1);
    assert_eq!(game.title("belt_holder").as_deref(), Some("Alice"));
    let ended = round_end(1);
    game.send(
        "Bob",
        true,
        &["claim wrangler"],
        ended + SignedDuration::from_hours(24 * 59),
    );
    assert!(
        game.answer("Bob").contains("60 days"),
        "{}",
        game.answer("Bob")
    );
    assert_eq!(game.title("wrangler").as_deref(), Some("Alice"));
    game.send(
        "Bob",
        true,
        &["claim wrangler"],
        ended + SignedDuration::from_hours(24 * 60 + 1),
    );
    assert_eq!(game.title("wrangler").as_deref(), Some("Bob"));
    assert_eq!(game.title("belt_holder").as_deref(), Some("Bob"));
    assert_eq!(
        game.announced("Bob is now the Wrangler and the Belt-Holder")
            .len(),
        1
    );
}

/// A: "When a new game of Grab-a-Donkey starts, all Players of Ackanomic,
/// excluding the Wrangler, those exempted as noted above, or those who
/// publically decline participation, will be placed on the Grab-a-Donkey Active
/// List" — and the equipment "will be issued from the Game Box at the start of
/// play, and [...] automatically be returned to the Game Box at the end".
#[test]
fn a_the_gal_is_every_active_player_but_the_wrangler_the_away_the_gaoled_and_decliners() {
    let mut game = Game::with(&["Wendy", "Alice", "Bob", "Carol", "Dave", "Eve", "Fay"]);
    game.call();
    game.nomic("Eve", "vacation until 2026-03-20", minutes(30));
    game.nomic("Mod", "gaol Fay because she cheated at cards", minutes(31));
    game.send("Dave", false, &["decline"], minutes(40));
    assert!(game.answer("Dave").contains("publicly"));
    game.send("Dave", true, &["decline"], minutes(41));
    game.wait(game_start() + SignedDuration::from_mins(1));
    assert_eq!(game.gal(), strings(&["Alice", "Bob", "Carol"]));
    assert_eq!(
        game.owns("Alice"),
        strings(&["blanket", "donkey", "lariat"])
    );
    assert!(game.owns("Dave").is_empty());
    // Alice grabs Bob, who admires: Bob's donkey is Alice's.
    game.act("Alice", "grab Bob", in_round(1, 5));
    game.act("Carol", "cover", in_round(1, 6));
    game.end_round(1);
    assert_eq!(game.owns("Bob"), strings(&["blanket", "lariat"]));
    // Round 2, two left: Alice's rock beats Carol's scissors; the end returns
    // everything to the Game Box.
    game.act("Alice", "rock", in_round(2, 5));
    game.act("Carol", "scissors", in_round(2, 6));
    game.end_round(2);
    for name in ["Alice", "Bob", "Carol"] {
        assert!(game.owns(name).is_empty(), "{name}: {:?}", game.owns(name));
    }
}

/// B: "Unless a player specifies a different choice to the Wrangler in a
/// private message by the end of the Round, the player will Stand Around
/// Admiring their Donkey. [...] Players may change their action at any time
/// before the end of the Round."
#[test]
fn b_the_latest_private_action_counts_none_is_admiring_and_one_on_the_list_does_not_count() {
    let mut game = Game::started();
    game.new_mail();
    game.act("Alice", "grab Bob", in_round(1, 5));
    game.act("Alice", "cover", in_round(1, 6));
    // Carol posts to the list: it does not count, and she is told privately.
    game.send("Carol", true, &["grab Dave"], in_round(1, 7));
    assert!(game.answer("Carol").contains("does not count"));
    // The Wrangler gets a private copy of each action as it arrives.
    let copies: Vec<SentMail> = game
        .new_mail()
        .into_iter()
        .filter(|m| m.is_to(WENDY))
        .collect();
    assert_eq!(copies.len(), 2, "{copies:?}");
    assert!(copies[0].body.contains("grab Bob"));
    assert!(copies[1].body.contains("cover"));
    game.end_round(1);
    let report = game.report(1);
    assert!(report.contains("Alice: cover"), "{report}");
    assert!(
        report.contains("Carol: admire (no action: admiring)"),
        "{report}"
    );
    assert!(report.contains("No donkey was grabbed."), "{report}");
}

/// B: "Upon a player resigning, or leaving the game of Ackanomic, their stated
/// actions that round are disregarded, and they are removed from the GAL at the
/// start of the next round. They are considered to have Covered their Donkey
/// for determining the outcome of the current round."
#[test]
fn b_resigners_and_leavers_count_as_covered_and_are_removed_next_round() {
    let mut game = Game::started();
    game.act("Alice", "resign", in_round(1, 5));
    game.act("Bob", "grab Carol", in_round(1, 6));
    game.act("Bob", "grab Alice", in_round(1, 7));
    game.act("Dave", "grab Carol", in_round(1, 8));
    game.nomic("Dave", "leave", in_round(1, 9));
    game.act("Carol", "cover", in_round(1, 10));
    game.end_round(1);
    let report = game.report(1);
    // Alice resigned: covered, so Bob's grab of her donkey fails; Dave left.
    assert!(report.contains("No donkey was grabbed."), "{report}");
    assert!(report.contains("Dave: left the nomic"), "{report}");
    // D: Bob alone did not cover; everyone else leaves.
    assert!(game.title("belt_holder").as_deref() == Some("Bob"));
    // "resign (this action is only permissible in the first round)".
    let mut game = Game::started();
    game.act("Alice", "grab Bob", in_round(1, 5));
    game.end_round(1);
    assert_eq!(game.gal(), strings(&["Alice", "Carol", "Dave"]));
    game.act("Alice", "resign", in_round(2, 5));
    assert!(
        game.answer("Alice").contains("only in the first round"),
        "{}",
        game.answer("Alice")
    );
}

/// C: "If exactly one player ("A") chose to Grab another player's donkey ("B"),
/// and if B did not Cover their donkey, then B will lose their donkey and be
/// removed from the GAL at the start of the following Round".
#[test]
fn c_one_grabber_takes_an_uncovered_donkey_and_not_a_covered_one() {
    let mut game = Game::started();
    game.act("Alice", "grab Bob", in_round(1, 5));
    game.act("Carol", "grab Dave", in_round(1, 6));
    game.act("Dave", "cover", in_round(1, 7));
    game.end_round(1);
    let report = game.report(1);
    assert!(
        report.contains("Alice successfully grabbed Bob's donkey."),
        "{report}"
    );
    assert!(!report.contains("grabbed Dave's"), "{report}");
    assert_eq!(game.gal(), strings(&["Alice", "Carol", "Dave"]));
    assert_eq!(
        game.owns("Alice"),
        strings(&["blanket", "donkey", "donkey", "lariat"])
    );
}

/// C: "If more than one player attempted to grab "B"'s donkey, none of those
/// attempts is successful."
#[test]
fn c_two_grabbers_of_one_donkey_both_fail() {
    let mut game = Game::started();
    game.act("Alice", "grab Bob", in_round(1, 5));
    game.act("Carol", "grab Bob", in_round(1, 6));
    game.end_round(1);
    let report = game.report(1);
    assert!(report.contains("No donkey was grabbed."), "{report}");
    assert_eq!(game.gal(), strings(&["Alice", "Bob", "Carol", "Dave"]));
}

/// C: "unless player B is in possesion of the Little Lamb, in which case A
/// willbecome confused and grab the lamb by mistake and B will remain in
/// possesion of his donkey. (In this situation, possesion of the Little Lamb
/// will transfer to player A.)"
#[test]
fn c_the_little_lamb_deflects_the_grab_and_passes_to_the_grabber() {
    let mut game = Game::started();
    game.nomic(
        "Mod",
        "create Little Lamb for Bob because rule 1213 names it",
        in_round(1, 1),
    );
    game.act("Alice", "grab Bob", in_round(1, 5));
    game.end_round(1);
    let report = game.report(1);
    assert!(
        report.contains("Alice became confused and grabbed the Little Lamb"),
        "{report}"
    );
    assert_eq!(game.owns("Bob"), strings(&["blanket", "donkey", "lariat"]));
    assert!(game.owns("Alice").contains(&"Little Lamb".to_owned()));
    assert_eq!(game.gal(), strings(&["Alice", "Bob", "Carol", "Dave"]));
}

/// D: "If only one player on the GAL did not choose to Cover their donkey, then
/// all other players will be removed from the GAL at the start of the following
/// Round." H: "That player shall be considered to be the Belt Holder [...] (and
/// shall also have the title of Wrangler). The Belt Holder shall be awarded 3
/// Points plus the number of donkeys he successfully grabbed that game."
#[test]
fn d_the_only_one_not_covering_stays_and_h_makes_em_belt_holder_with_points() {
    let mut game = Game::started();
    let before = game.points("Dave");
    game.act("Alice", "cover", in_round(1, 5));
    game.act("Bob", "cover", in_round(1, 6));
    game.act("Carol", "cover", in_round(1, 7));
    game.end_round(1);
    assert!(
        game.report(1)
            .contains("Removed from the GAL: Alice, Bob, Carol.")
    );
    assert_eq!(game.title("belt_holder").as_deref(), Some("Dave"));
    assert_eq!(game.title("wrangler").as_deref(), Some("Dave"));
    assert_eq!(game.points("Dave"), before + 3);
    // "the right to Propose exactly one (1) amendment to this rule", shown by status.
    game.send(
        "Carol",
        false,
        &["status"],
        round_end(1) + SignedDuration::from_mins(5),
    );
    assert!(
        game.answer("Carol")
            .contains("Dave, as Belt Holder, has the right to propose exactly one amendment"),
        "{}",
        game.answer("Carol")
    );
    game.send(
        "Mod",
        true,
        &["amendment used because proposal 1300 is his"],
        round_end(1) + SignedDuration::from_mins(10),
    );
    assert!(game.donkey()["amendment_right"].is_null());
}

/// G: "If and when there are exactly two players left on the GAL, the
/// permissible moves become (a) rock, (b) scissors, (c) paper. [...] Player A
/// chose rock while Player B chose scissors / scissors [...] paper / paper
/// [...] rock: Player A is said to have successfully grabbed Player B's donkey,
/// and Player B loses his donkey and is removed from the GAL."
#[test]
fn g_with_two_left_rock_beats_scissors_beats_paper_beats_rock() {
    for (alice, carol) in [
        ("rock", "scissors"),
        ("scissors", "paper"),
        ("paper", "rock"),
    ] {
        let mut game = Game::started();
        game.act("Alice", "grab Bob", in_round(1, 5));
        game.act("Carol", "grab Dave", in_round(1, 6));
        game.end_round(1);
        assert_eq!(game.gal(), strings(&["Alice", "Carol"]));
        game.act("Alice", "cover", in_round(2, 4));
        assert!(game.answer("Alice").contains("rock, scissors and paper"));
        // Carol throws the winning move against Alice's, then Alice wins it.
        game.act("Alice", alice, in_round(2, 5));
        game.act("Carol", carol, in_round(2, 6));
        game.end_round(2);
        assert!(
            game.report(2)
                .contains("Alice successfully grabbed Carol's donkey."),
            "{alice} {carol}"
        );
        assert_eq!(game.title("belt_holder").as_deref(), Some("Alice"));
        // 3 points plus two donkeys: Bob's and Carol's.
        let ended = game.announced("Alice is the Belt Holder");
        assert!(
            ended[0].body.contains("awarded\n5 points")
                || ended[0].body.contains("awarded 5 points")
                || ended[0].body.contains("5 points"),
            "{}",
            ended[0].body
        );
    }
}

/// G: "Any player not making such a move in this case is removed from the GAL
/// at the end of the round." A draw grabs nothing: another round is played.
#[test]
fn g_a_draw_plays_another_round_and_a_missing_move_is_removal() {
    let mut game = Game::started();
    game.act("Alice", "grab Bob", in_round(1, 5));
    game.act("Carol", "grab Dave", in_round(1, 6));
    game.end_round(1);
    game.act("Alice", "paper", in_round(2, 5));
    game.act("Carol", "paper", in_round(2, 6));
    game.end_round(2);
    assert!(game.report(2).contains("No donkey was grabbed."));
    assert_eq!(game.gal(), strings(&["Alice", "Carol"]));
    game.act("Alice", "rock", in_round(3, 5));
    game.end_round(3);
    assert!(
        game.report(3).contains("Carol: no move"),
        "{}",
        game.report(3)
    );
    assert_eq!(game.title("belt_holder").as_deref(), Some("Alice"));
}

/// F: "If and when there are exactly zero players left on the GAL, that game of
/// Grab-a-Donkey shall end. The current Wrangler shall lose their title at that
/// time."
#[test]
fn f_none_left_ends_the_game_and_the_wrangler_loses_the_title() {
    let mut game = Game::started();
    game.act("Alice", "grab Bob", in_round(1, 5));
    game.act("Carol", "grab Dave", in_round(1, 6));
    game.end_round(1);
    // Neither throws: both removed, none left.
    game.end_round(2);
    assert!(game.announced("There is no Wrangler").is_empty());
    assert!(game.donkey()["game"].is_null());
    assert!(game.title("wrangler").is_none());
    assert!(game.title("belt_holder").is_none());
    let ended = game.announced("Grab-a-Donkey game 1 has ended");
    assert!(
        ended[0].body.contains("No player is left on the GAL"),
        "{}",
        ended[0].body
    );
}

/// I: "the Wrangler may voluntarily give the transfer the title of Wrangler to
/// any willing player not on the GAL. The transfer must occur between two
/// rounds, immediately after the old wrangler releases the results for a round."
#[test]
fn i_the_wrangler_transfers_the_title_between_rounds_to_a_willing_player_off_the_gal() {
    let mut game = Game::with(&["Wendy", "Alice", "Bob", "Carol", "Dave", "Eve"]);
    game.call();
    game.send("Eve", true, &["decline"], minutes(30));
    game.wait(game_start() + SignedDuration::from_mins(1));
    game.send(
        "Wendy",
        false,
        &["transfer wrangler to Eve"],
        in_round(1, 2),
    );
    assert!(game.answer("Wendy").contains("between two rounds"));
    game.end_round(1);
    game.send(
        "Wendy",
        false,
        &["transfer wrangler to Alice"],
        in_round(2, 2),
    );
    assert!(game.answer("Wendy").contains("not on the GAL"));
    game.send(
        "Wendy",
        false,
        &["transfer wrangler to Eve"],
        in_round(2, 3),
    );
    game.send("Eve", true, &["accept wrangler"], in_round(2, 4));
    assert_eq!(game.title("wrangler").as_deref(), Some("Eve"));
    assert_eq!(game.announced("Eve is now the Wrangler").len(), 1);
}

/// I: "If the Wrangler goes on Vacation or quits the game of Ackanomic, the
/// first player not on the GAL to name himself Wrangler shall become the
/// Wrangler, and the game of Grab-a-Donkey shall continue from its last
/// publically knowable state."
#[test]
fn i_the_wrangler_leaves_mid_game_and_a_successor_off_the_gal_takes_over() {
    let mut game = Game::with(&["Wendy", "Alice", "Bob", "Carol", "Dave", "Eve"]);
    game.call();
    game.send("Eve", true, &["decline"], minutes(30));
    game.wait(game_start() + SignedDuration::from_mins(1));
    game.nomic("Wendy", "leave", in_round(1, 2));
    assert_eq!(game.announced("the Wrangler Wendy is away").len(), 1);
    game.send("Alice", true, &["claim wrangler"], in_round(1, 3));
    assert!(game.answer("Alice").contains("on the GAL"));
    game.send("Eve", true, &["claim wrangler"], in_round(1, 4));
    assert_eq!(game.title("wrangler").as_deref(), Some("Eve"));
    game.act("Alice", "grab Bob", in_round(1, 5));
    game.end_round(1);
    assert!(
        game.report(1)
            .contains("Alice successfully grabbed Bob's donkey.")
    );
    game.wait(round_end(1) + SignedDuration::from_hours(24 * 3 + 1));
    assert!(!game.donkey()["game"].is_null(), "the game goes on");
}

/// I: "If no player not on the GAL does so within three days, and the old
/// Wrangler has not yet returned from Vacation or rejoined the game, then the
/// current game of Grab-a-Donkey will end, and there shall be no Wrangler."
#[test]
fn i_the_wrangler_leaves_mid_game_and_nobody_takes_over_within_three_days() {
    let mut game = Game::started();
    game.nomic("Wendy", "vacation until 2026-03-30", in_round(1, 2));
    game.wait(in_round(1, 2) + SignedDuration::from_hours(24 * 3 + 2));
    assert!(game.donkey()["game"].is_null());
    assert!(game.title("wrangler").is_none());
    let ended = game.announced("Grab-a-Donkey game 1 has ended");
    assert!(ended[0].body.contains("no Wrangler"), "{}", ended[0].body);
    assert!(game.owns("Alice").is_empty());
}

/// A moderator forces a round closed; the report says so, with the reason.
#[test]
fn a_moderator_closes_a_round_early_and_the_report_says_so() {
    let mut game = Game::started();
    game.act("Alice", "grab Bob", in_round(1, 5));
    game.send(
        "Mod",
        true,
        &["close round because the list was down all day"],
        in_round(1, 30),
    );
    let report = game.report(1);
    assert!(report.contains("OVERRIDE"), "{report}");
    assert!(report.contains("the list was down all day"), "{report}");
    assert!(
        report.contains("Alice successfully grabbed Bob's donkey."),
        "{report}"
    );
}

/// "No round action reaches the list, another player or anyone but the human
/// Wrangler before the round's report": every mail of a long game is scanned.
#[test]
fn no_round_action_reaches_anyone_but_the_wrangler_before_its_report() {
    let mut game = Game::started();
    // Round by round, each player's actions; then a status and a history from
    // a player, and a preview, before the round ends.
    let rounds: [&[(&str, &str)]; 3] = [
        &[
            ("Alice", "cover"),
            ("Bob", "grab Carol"),
            ("Carol", "grab Dave"),
            ("Dave", "admire"),
            ("Alice", "grab Dave"),
        ],
        &[("Alice", "cover"), ("Bob", "cover"), ("Carol", "admire")],
        &[("Alice", "rock"), ("Carol", "paper")],
    ];
    for (i, actions) in rounds.iter().enumerate() {
        let r = i as i64 + 1;
        if game.donkey()["game"].is_null() {
            break;
        }
        game.new_mail();
        for (n, (who, line)) in actions.iter().enumerate() {
            game.act(who, line, in_round(r, 5 + n as i64));
            game.send(who, true, &["status"], in_round(r, 30 + n as i64));
            game.send(who, false, &["history"], in_round(r, 40 + n as i64));
        }
        let before: Vec<SentMail> = game.new_mail();
        for mail in &before {
            if mail.is_to(WENDY) {
                continue;
            }
            // A player's own answers may quote eir own actions, nobody else's.
            let own: Vec<&str> = actions
                .iter()
                .filter(|(who, _)| mail.is_to(&address(who)) && !mail.is_to(LIST))
                .map(|(_, line)| *line)
                .collect();
            for (who, line) in actions.iter() {
                if own.contains(line) {
                    continue;
                }
                for leak in [
                    format!("\"{line}\""),
                    format!(": {line}"),
                    format!("> {line}"),
                ] {
                    assert!(!mail.body.contains(&leak), "{who}'s {leak} in {mail:?}");
                }
            }
        }
        game.end_round(r);
    }
}

/// The shipped configuration: a game does not begin without its rules. After
/// `nomicbot import-rules ackanomic` the registry holds rule 1213, and the call
/// goes through.
#[test]
fn a_call_waits_for_rule_1213_in_the_registry_and_goes_through_after_the_import() {
    let config = crate::support::trusting()
        .replace(
            "unrecorded_rules = \"baseline\"",
            "unrecorded_rules = \"required\"",
        )
        .replace(
            "moderators = []",
            &format!("moderators = [\"{MODERATOR}\"]"),
        );
    let mut game = Game {
        bot: LocalBot::with_config(&config),
        sent: 0,
        count: std::cell::Cell::new(0),
    };
    game.deliver(&address("Wendy"), LIST, "[nomic] join Wendy", "", start());
    game.send("Wendy", true, &["claim wrangler"], minutes(10));
    game.send("Wendy", true, &["call 1 days"], minutes(20));
    assert!(
        game.answer("Wendy").contains("1213"),
        "{}",
        game.answer("Wendy")
    );
    assert!(game.donkey()["game"].is_null());
    game.bot.cli_ok(&[
        "import-rules",
        "ackanomic",
        "--now",
        &minutes(25).to_string(),
    ]);
    game.send("Wendy", true, &["call 1 days"], minutes(30));
    assert!(
        game.answer("Wendy").contains("is called"),
        "{}",
        game.answer("Wendy")
    );
}

/// "If no Wrangler exists, the first player to claim to be Wrangler may call":
/// a Wrangler who left the nomic between games is none.
#[test]
fn a_wrangler_who_left_the_nomic_between_games_is_no_wrangler() {
    let mut game = Game::new();
    game.send("Wendy", true, &["claim wrangler"], minutes(10));
    game.nomic("Wendy", "leave", minutes(15));
    game.send("Bob", true, &["claim wrangler"], minutes(20));
    assert_eq!(game.title("wrangler").as_deref(), Some("Bob"));
}

/// Rule 1213 repealed mid-game: Grab-a-Donkey is no more, the game ends with
/// no Belt Holder and the equipment goes back to the Game Box.
#[test]
fn rule_1213_repealed_mid_game_ends_the_game_and_the_titles() {
    let mut game = Game::new();
    game.bot.cli_ok(&[
        "import-rules",
        "ackanomic",
        "--now",
        &minutes(5).to_string(),
    ]);
    game.call();
    game.wait(game_start() + SignedDuration::from_mins(1));
    game.act("Alice", "grab Bob", in_round(1, 5));
    game.deliver(
        MODERATOR,
        LIST,
        "[ruleset] repeal 1213",
        "",
        in_round(1, 10),
    );
    game.wait(in_round(1, 11));
    assert!(game.donkey()["game"].is_null(), "{}", game.donkey());
    assert!(game.title("wrangler").is_none());
    let ended = game.announced("Grab-a-Donkey game 1 has ended");
    assert!(
        ended[0].body.contains("Rule 1213 is no longer in effect"),
        "{}",
        ended[0].body
    );
    assert!(game.owns("Alice").is_empty());
}

/// Rule 1213 amended otherwise than in its numbers: the bot holds it, the
/// round's end waits, and after a moderator's ruling the report comes.
#[test]
fn rule_1213_changed_in_its_words_holds_the_round_until_a_moderator_rules() {
    let mut game = Game::new();
    game.bot.cli_ok(&[
        "import-rules",
        "ackanomic",
        "--now",
        &minutes(5).to_string(),
    ]);
    game.call();
    game.wait(game_start() + SignedDuration::from_mins(1));
    game.act("Alice", "grab Bob", in_round(1, 5));
    let text = nomicbot::games::donkey::bound::baseline().replacen(
        "Create a game known as Grab-a-Donkey.",
        "Create a game known as Grab-a-Mule.",
        1,
    );
    game.deliver(
        MODERATOR,
        LIST,
        "[ruleset] amend 1213",
        &format!("amend 1213\n{text}\nend"),
        in_round(1, 10),
    );
    game.end_round(1);
    assert!(game.announced("the report of round 1").is_empty());
    game.send(
        "Carol",
        false,
        &["status"],
        round_end(1) + SignedDuration::from_mins(5),
    );
    assert!(
        game.answer("Carol")
            .contains("held for a moderator's ruling"),
        "{}",
        game.answer("Carol")
    );
    game.deliver(
        MODERATOR,
        LIST,
        "[ruleset] binding 1213 keep because a mule is a donkey enough",
        "",
        round_end(1) + SignedDuration::from_mins(10),
    );
    game.wait(round_end(1) + SignedDuration::from_mins(11));
    assert!(
        game.report(1)
            .contains("Alice successfully grabbed Bob's donkey.")
    );
}

/// 1: "The Wrangler and the Belt-Holder are titles the bot records (an office
/// of the registry, overridable by a moderator)": a claim shows in `[nomic]
/// officers`, and a moderator's `[nomic] dismiss` and `appoint` of the office
/// are the game's from the next step on.
#[test]
fn the_titles_are_offices_of_the_registry_and_a_moderators_appointment_is_the_games() {
    let mut game = Game::new();
    game.send("Wendy", true, &["claim wrangler"], minutes(10));
    game.nomic("Alice", "officers", minutes(11));
    let roster = game.answer("Alice");
    assert!(roster.contains("Wrangler"), "{roster}");
    assert!(roster.contains("wendy@nomic.example"), "{roster}");

    game.nomic(
        "Mod",
        "dismiss Wrangler wendy@nomic.example because she asked to rest",
        minutes(12),
    );
    game.nomic(
        "Mod",
        "appoint Wrangler bob@nomic.example because he volunteered",
        minutes(13),
    );
    game.send("Bob", false, &["status"], minutes(14));
    assert_eq!(game.title("wrangler").as_deref(), Some("Bob"));
    // The new Wrangler calls; the old one may not.
    game.send("Wendy", true, &["call 1 days"], minutes(15));
    assert!(
        game.answer("Wendy").contains("Wrangler"),
        "{}",
        game.answer("Wendy")
    );
    game.send("Bob", true, &["call 1 days"], minutes(16));
    let called = game.answer("Bob");
    assert!(!called.contains("Refused"), "{called}");
}
