//! `[duel]`, Duels (Ackanomic rule 1215/6), through the real pipeline: mail
//! into the inbox Maildir, `nomicbot once`, the answers and announcements read
//! back from the outbox, the duels and the points from `state --json`. One
//! test per section and lettered condition of the rule, named after it and
//! quoting it.

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

fn days(n: i64) -> Timestamp {
    start() + SignedDuration::from_hours(24 * n)
}

struct Game {
    bot: LocalBot,
    count: std::cell::Cell<u32>,
}

impl Game {
    /// Alice, Bob, Carol and Dave have joined; `mod@` is a moderator.
    fn new() -> Game {
        Game::with(|config| config)
    }

    fn with(edit: impl FnOnce(String) -> String) -> Game {
        let config = crate::support::trusting().replace(
            "moderators = []",
            &format!("moderators = [\"{MODERATOR}\"]"),
        );
        let game = Game {
            bot: LocalBot::with_config(&edit(config)),
            count: std::cell::Cell::new(0),
        };
        for (i, name) in ["Alice", "Bob", "Carol", "Dave"].iter().enumerate() {
            let from = format!("{}@nomic.example", name.to_lowercase());
            game.deliver(
                &from,
                LIST,
                &format!("[nomic] join {name}"),
                "",
                start() - SignedDuration::from_mins(10) + SignedDuration::from_secs(i as i64),
            );
        }
        game
    }

    /// Delivers a message; gives its Message-ID.
    fn deliver(&self, from: &str, to: &str, subject: &str, body: &str, when: Timestamp) -> String {
        let count = self.count.get() + 1;
        self.count.set(count);
        let id = format!("{count}-{}@players.test", from.replace('@', "."));
        let name = format!("{count}-{}", from.replace('@', "."));
        self.bot
            .deliver(&name, &message(from, to, subject, &id, body), when);
        id
    }

    /// One message of lines under `tag`, on the list, and a pass a minute
    /// later; gives its Message-ID.
    fn send(&self, from: &str, tag: &str, lines: &[&str], when: Timestamp) -> String {
        let id = self.deliver(
            from,
            LIST,
            &format!("[{tag}] lines"),
            &lines.join("\n"),
            when,
        );
        self.bot.once(when + SignedDuration::from_mins(1));
        id
    }

    /// The same, to the bot alone.
    fn send_privately(&self, from: &str, tag: &str, lines: &[&str], when: Timestamp) {
        self.deliver(
            from,
            BOT,
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

    fn assert_answered(&self, who: &str, words: &[&str]) {
        let answers: Vec<String> = self
            .bot
            .sent_mail()
            .into_iter()
            .filter(|m| m.is_to(who))
            .map(|m| m.body)
            .collect();
        assert!(
            answers.iter().any(|b| words.iter().all(|w| b.contains(w))),
            "no answer to {who} contains {words:?}:\n{answers:#?}"
        );
    }

    fn points(&self, name: &str) -> i64 {
        balance(&self.bot.state_json(), name, "points")
            .and_then(|b| b.parse().ok())
            .unwrap_or(0)
    }

    fn duel(&self, number: usize) -> serde_json::Value {
        self.bot.state_json()["duel"]["duels"][number - 1].clone()
    }

    /// Carol, Alice's Second, posts Alice's challenge to Bob at `when`.
    fn alice_challenges_bob(&self, when: Timestamp) {
        self.send(
            CAROL,
            "duel",
            &["Alice challenges Bob because he called my proposal a loophole"],
            when,
        );
    }
}

#[test]
fn section_2_the_second_posts_a_public_message_and_the_challenged_players_second_responds_with_a_contest()
 {
    // "The Second posts a public message, which announces the name of the
    // Challenging player, the name of the Challenged player, the reason for the
    // Challenge [...]."
    let game = Game::new();
    game.send_privately(
        CAROL,
        "duel",
        &["Alice challenges Bob because he called my proposal a loophole"],
        minutes(0),
    );
    game.assert_answered(CAROL, &["public message"]);
    assert!(game.duel(1).is_null(), "a private challenge is not one");
    game.alice_challenges_bob(minutes(10));
    let challenge = game.announced("Duel 1: Alice challenges Bob");
    assert_eq!(challenge.len(), 1);
    assert!(
        challenge[0]
            .body
            .contains("he called my proposal a loophole")
    );
    assert!(challenge[0].body.contains("Carol, as Alice's Second"));
    // "The Challenged player has 3 days to find another player who agrees to
    // be their Second and have the Second respond to the message publically.
    // The message must contain [...] The Challenge it is a reply to, and a
    // Game or Contest chosen by the Challenged player for the Duel".
    game.send(DAVE, "duel", &["accept 1 with Ghost"], minutes(60));
    assert_eq!(game.duel(1)["stage"], "started");
    assert_eq!(game.duel(1)["challenged_second"]["name"], "Dave");
    assert_eq!(game.duel(1)["contest"], "Ghost");
    // "The duel starts upon the Challenged Player's Second posting the
    // acceptance of the Duel": the bot referees Ghost, and starts it at once.
    let ghost = &game.bot.state_json()["ghosts"]["instances"][0];
    assert_eq!(ghost["duel"], true);
    assert_eq!(ghost["origin"], "duel:1");
}

#[test]
fn section_2_an_explicit_waiver_lets_the_challenging_player_choose_a_contest() {
    // "If the Challenged player waived the privilege of choosing a Contest,
    // the Challenging player may choose a Contest."
    let game = Game::new();
    game.alice_challenges_bob(minutes(0));
    game.send(DAVE, "duel", &["accept 1 waive"], minutes(60));
    assert_eq!(game.duel(1)["stage"], "waived");
    game.send(BOB, "duel", &["choose 1 Ghost"], minutes(70));
    game.assert_answered(BOB, &["the Challenging player, Alice, chooses"]);
    game.send(ALICE, "duel", &["choose 1 Ghost"], minutes(80));
    assert_eq!(game.duel(1)["stage"], "started");
    assert_eq!(
        game.bot.state_json()["ghosts"]["instances"][0]["duel"],
        true
    );
}

#[test]
fn section_2_and_3_no_response_within_the_3_days_is_a_forfeit_by_silence() {
    // "If there is no response to the Challenge within the 3 days [...] he is
    // considered to have forfeited the Duel." §3: "the Challenged player loses
    // 6 points, and the Challenging player gains 6 points. The Seconds scores
    // are not changed in this case."
    let game = Game::new();
    game.alice_challenges_bob(minutes(0));
    let before: Vec<i64> = ["Alice", "Bob", "Carol", "Dave"]
        .iter()
        .map(|n| game.points(n))
        .collect();
    game.bot.once(days(3) + SignedDuration::from_mins(1));
    assert_eq!(game.duel(1)["end"]["kind"], "forfeited");
    assert_eq!(game.duel(1)["end"]["why"], "silence");
    assert_eq!(game.points("Alice"), before[0] + 6);
    assert_eq!(game.points("Bob"), before[1] - 6);
    assert_eq!(game.points("Carol"), before[2]);
    assert_eq!(game.points("Dave"), before[3]);
    assert_eq!(game.announced("Duel 1: forfeited by Bob").len(), 1);
    // Late: the answer after the three days is refused.
    game.send(
        DAVE,
        "duel",
        &["accept 1 with Ghost"],
        days(3) + SignedDuration::from_mins(5),
    );
    game.assert_answered(DAVE, &["already been answered"]);
}

/// "within 3 days": the challenged player, who forfeits by silence, is
/// reminded privately before the three days are up, as of every deadline a
/// player can miss; an answer given takes the reminder away.
#[test]
fn section_2_the_challenged_player_is_reminded_before_the_3_days_to_answer_are_up() {
    let game = Game::new();
    game.alice_challenges_bob(minutes(0));
    game.bot.once(days(2) + SignedDuration::from_hours(1));
    let reminders: Vec<SentMail> = game
        .bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.subject.contains("Reminder"))
        .collect();
    assert_eq!(reminders.len(), 1, "{reminders:#?}");
    assert!(reminders[0].is_to(BOB) && !reminders[0].is_to(LIST));
    assert!(
        reminders[0]
            .subject
            .contains("the answer to the challenge of Duel 1"),
        "{}",
        reminders[0].subject
    );

    let answered = Game::new();
    answered.alice_challenges_bob(minutes(0));
    answered.send(DAVE, "duel", &["accept 1 with Ghost"], minutes(30));
    answered.bot.once(days(2) + SignedDuration::from_hours(1));
    assert!(
        answered
            .bot
            .sent_mail()
            .iter()
            .all(|m| !m.subject.contains("the answer to the challenge of Duel 1")),
        "an answered challenge reminds nobody of its answer"
    );
}

#[test]
fn section_2_the_challenged_player_declines_and_forfeits_and_4h_is_untouchable_3_days_after() {
    // "[...] or the Challenged player declines the Challenge [...] he is
    // considered to have forfeited the Duel." 4h: "A player who has declined a
    // Duel [...] is Untouchable until 3 days after the date he has declined".
    let game = Game::new();
    game.alice_challenges_bob(minutes(0));
    game.send(BOB, "duel", &["decline 1"], minutes(30));
    assert_eq!(game.duel(1)["end"]["why"], "declined");
    game.send(
        DAVE,
        "duel",
        &["Carol challenges Bob because of the decline"],
        days(2),
    );
    game.assert_answered(DAVE, &["Bob is Untouchable (4h: declined Duel 1"]);
    game.send(
        DAVE,
        "duel",
        &["Carol challenges Bob because of the decline"],
        days(3) + SignedDuration::from_hours(1),
    );
    assert_eq!(game.duel(2)["challenger"]["name"], "Carol");
}

#[test]
fn section_2_a_contest_not_in_the_suite_or_not_for_exactly_two_players_is_refused() {
    // "The Game or Contest [...] must be one in the Games and Contests Rule
    // Suite. Moreover, it must be playable by exactly two players, or two
    // teams of two players each and have definitive rules for determining a
    // winner".
    let game = Game::new();
    game.send(
        MODERATOR,
        "duel",
        &[
            "contest add Grab-a-Donkey players any because it is a game",
            "contest add Calvinball players 2 no winner because we like it",
        ],
        minutes(0),
    );
    game.alice_challenges_bob(minutes(10));
    game.send(DAVE, "duel", &["accept 1 with Chess"], minutes(20));
    game.assert_answered(
        DAVE,
        &[
            "\"Chess\" is not",
            "Ghost",
            "Party Chess",
            "Grab-a-Donkey, Calvinball",
        ],
    );
    game.send(DAVE, "duel", &["accept 1 with Grab-a-Donkey"], minutes(30));
    game.assert_answered(DAVE, &["playable by exactly two players", "any number"]);
    game.send(DAVE, "duel", &["accept 1 with Calvinball"], minutes(40));
    game.assert_answered(DAVE, &["no definitive rules for determining a winner"]);
    assert_eq!(game.duel(1)["stage"], "challenged");
    game.send(
        MODERATOR,
        "duel",
        &[
            "contest remove Calvinball because nobody plays it",
            "contests",
        ],
        minutes(50),
    );
    game.assert_answered(
        MODERATOR,
        &["Removed from the Games & Contests suite: Calvinball"],
    );
}

#[test]
fn section_2_the_team_option_only_when_the_four_are_different_players() {
    // "If the Challenging player, the Challenged player, and the two Seconds
    // are not four different players, then the team option is not available".
    let game = Game::new();
    game.send(
        MODERATOR,
        "duel",
        &["contest add Bridge players 2 teams referee Carol because Carol deals"],
        minutes(0),
    );
    game.alice_challenges_bob(minutes(10));
    game.send(
        CAROL,
        "duel",
        &["accept 1 with Bridge as teams"],
        minutes(20),
    );
    game.assert_answered(CAROL, &["not four different players"]);
    game.send(
        DAVE,
        "duel",
        &["accept 1 with Bridge as teams"],
        minutes(30),
    );
    assert_eq!(game.duel(1)["teams"], true);
    assert!(
        game.announced("Alice and Bob duel at Bridge")[0]
            .body
            .contains("each\nduellist teamed with eir Second")
    );
}

#[test]
fn section_2_a_duel_fought_as_a_game_of_ghost_to_the_end_with_both_games_points() {
    // "When the Duel is over, the winner of the Duel receives 6 points in
    // addition to any rewards or penalties he may have received as part of the
    // Contest itself. [...] The winner's Second receives 3 points, the loser's
    // Second loses 3 points." The Ghost Duel's referee (the moderator, a player
    // here) is paid rule 103's fee; a Duel's winner gets nothing from Ghost.
    let game = Game::new();
    game.deliver(MODERATOR, LIST, "[nomic] join Mod", "", minutes(-5));
    game.alice_challenges_bob(minutes(0));
    let before: Vec<i64> = ["Alice", "Bob", "Carol", "Dave", "Mod"]
        .iter()
        .map(|n| game.points(n))
        .collect();
    game.send(
        ALICE,
        "duel",
        &["commit 1: if I lose, I will withdraw my proposal"],
        minutes(5),
    );
    game.send(DAVE, "duel", &["accept 1 with Ghost"], minutes(60));
    assert!(
        !game.announced("[ghost 1]").is_empty(),
        "the Ghost Duel started"
    );
    // Bob leaves the Ghost Duel: Alice is the last in it, and wins.
    game.send(BOB, "ghost", &["resign"], minutes(70));
    let ghost = &game.bot.state_json()["ghosts"]["instances"][0];
    assert!(!ghost["winner"].is_null(), "Ghost 1 is over: {ghost}");
    assert_eq!(game.duel(1)["end"]["kind"], "won");
    assert_eq!(game.points("Alice"), before[0] + 6);
    assert_eq!(game.points("Bob"), before[1] - 6);
    assert_eq!(game.points("Carol"), before[2] + 3);
    assert_eq!(game.points("Dave"), before[3] - 3);
    assert_eq!(game.points("Mod"), before[4]);
    assert_eq!(
        balance(&game.bot.state_json(), "Mod", "A$").as_deref(),
        Some("8"),
        "rule 103's referee fee"
    );
    let result = game.announced("Duel 1: Alice wins");
    assert_eq!(result.len(), 1);
    assert!(
        result[0]
            .body
            .contains("Alice: if I lose, I will withdraw my proposal")
    );
}

#[test]
fn section_2_another_contests_referee_reports_the_winner_and_the_commitments_are_listed() {
    let game = Game::new();
    game.send(
        MODERATOR,
        "duel",
        &["contest add Chess players 2 referee Carol because Carol referees"],
        minutes(0),
    );
    game.send(
        DAVE,
        "duel",
        &["Bob challenges Alice because of a heated discussion"],
        minutes(10),
    );
    game.send(
        BOB,
        "duel",
        &["commit 1: if I lose, I will vote for Alice's proposal"],
        minutes(15),
    );
    game.send(CAROL, "duel", &["accept 1 with Chess"], minutes(20));
    game.send(DAVE, "duel", &["winner 1 Alice"], minutes(30));
    game.assert_answered(DAVE, &["reported by its referee"]);
    game.send(CAROL, "duel", &["winner 1 Alice"], minutes(40));
    let result = game.announced("Duel 1: Alice wins");
    assert_eq!(result.len(), 1);
    assert!(
        result[0]
            .body
            .contains("Bob: if I lose, I will vote for Alice's proposal")
    );
    assert!(result[0].body.contains("Carol: +3 points"));
    assert!(result[0].body.contains("Dave: -3 points"));
}

#[test]
fn condition_4a_and_4b_an_untouchable_player_challenged_is_refused() {
    // 4a: "It is impermissible to Challenge an Untouchable Player to a Duel."
    // 4b: "A Player who Challenged another Player [...] or [...] has been
    // Challenged [...] is Untouchable until the Duel procedures are resolved."
    let game = Game::new();
    game.alice_challenges_bob(minutes(0));
    game.send(
        DAVE,
        "duel",
        &["Carol challenges Bob because me too"],
        minutes(10),
    );
    game.assert_answered(
        DAVE,
        &["Bob is Untouchable (4b: in Duel 1", "impermissible"],
    );
    game.send(
        DAVE,
        "duel",
        &["Carol challenges Alice because me too"],
        minutes(20),
    );
    game.assert_answered(DAVE, &["Alice is Untouchable (4b"]);
    game.send(BOB, "duel", &["status"], minutes(30));
    game.assert_answered(
        BOB,
        &[
            "Duel 1: Alice against Bob, the answer is due by",
            "Untouchable (rule 1215 §4)",
        ],
    );
}

#[test]
fn condition_4c_the_challengee_is_untouchable_until_the_end_of_the_month_the_duel_ended() {
    // 4c: "A Player who was a Challengee in a Duel, that is, was Challenged to
    // a Duel and accepted, continues to be Untouchable until the end of the
    // Calendar month in which the duel ended."
    let game = Game::new();
    game.send(
        MODERATOR,
        "duel",
        &["contest add Chess players 2 because a board is here"],
        minutes(0),
    );
    game.alice_challenges_bob(minutes(10));
    game.send(DAVE, "duel", &["accept 1 with Chess"], minutes(20));
    game.send(MODERATOR, "duel", &["winner 1 Bob"], minutes(30));
    game.send(
        DAVE,
        "duel",
        &["Carol challenges Bob because again"],
        days(20),
    );
    game.assert_answered(
        DAVE,
        &[
            "Bob is Untouchable (4c: the Challengee of Duel 1",
            "2026-04-01",
        ],
    );
    // Alice, the Challenger, is not.
    game.send(
        DAVE,
        "duel",
        &["Carol challenges Alice because again"],
        days(20) + SignedDuration::from_mins(5),
    );
    assert_eq!(game.duel(2)["challenged"]["name"], "Alice");
    game.send(
        BOB,
        "duel",
        &["decline 2"],
        days(20) + SignedDuration::from_mins(6),
    );
    game.assert_answered(BOB, &["only the Challenged player, Alice"]);
    game.send(
        ALICE,
        "duel",
        &["decline 2"],
        days(20) + SignedDuration::from_mins(7),
    );
    game.send(
        DAVE,
        "duel",
        &["Carol challenges Bob because in April"],
        at("2026-04-01T09:00:00Z"),
    );
    assert_eq!(game.duel(3)["challenged"]["name"], "Bob");
}

#[test]
fn condition_4d_players_on_vacation_or_in_gaol_are_untouchable() {
    let game = Game::new();
    game.send(BOB, "nomic", &["vacation until 2026-03-10"], minutes(0));
    game.alice_challenges_bob(minutes(10));
    game.assert_answered(CAROL, &["Bob is Untouchable (4d: on vacation"]);
    game.send(
        MODERATOR,
        "nomic",
        &["gaol Dave because a test"],
        minutes(20),
    );
    game.send(
        CAROL,
        "duel",
        &["Alice challenges Dave because gaol"],
        minutes(30),
    );
    game.assert_answered(CAROL, &["Dave is Untouchable (4d: in Gaol"]);
}

#[test]
fn condition_4e_a_player_who_announces_a_vacation_is_untouchable_for_three_days() {
    // 4e: "A Player who announces that he will be going on Vacation on a
    // specific future date is Untouchable until they return from that
    // vacation, or for three days if they do not go on that vacation within 3
    // days."
    let game = Game::new();
    game.send(BOB, "duel", &["vacation on 2026-03-04"], minutes(0));
    game.alice_challenges_bob(minutes(10));
    game.assert_answered(
        CAROL,
        &["Bob is Untouchable (4e: announced a vacation on 2026-03-04"],
    );
    game.alice_challenges_bob(days(3) + SignedDuration::from_mins(10));
    assert_eq!(game.duel(1)["challenged"]["name"], "Bob");
}

#[test]
fn condition_4f_a_player_engaged_in_a_duel_who_goes_on_vacation_forfeits() {
    // 4f: "If a player who is currently engaged in Duel procedures goes on
    // Vacation or to Gaol he forfeits the duel."
    let game = Game::new();
    game.alice_challenges_bob(minutes(0));
    game.send(BOB, "nomic", &["vacation until 2026-03-20"], minutes(10));
    assert_eq!(game.duel(1)["end"]["kind"], "forfeited");
    assert_eq!(game.duel(1)["end"]["why"], "vacation");
    assert_eq!(game.announced("Duel 1: forfeited by Bob").len(), 1);
    // To Gaol: a Challenger who goes forfeits too, and §3 as written
    // (`forfeit_by_role`) still has the Challenged player lose the points.
    let (carol, dave) = (game.points("Carol"), game.points("Dave"));
    game.send(
        ALICE,
        "duel",
        &["Carol challenges Dave because gaol"],
        minutes(20),
    );
    game.send(
        MODERATOR,
        "nomic",
        &["gaol Carol because a test"],
        minutes(30),
    );
    assert_eq!(game.duel(2)["end"]["why"], "gaol");
    assert_eq!(game.points("Carol"), carol + 6);
    assert_eq!(game.points("Dave"), dave - 6);
}

#[test]
fn condition_4g_a_player_running_for_office_may_not_challenge_another_running_for_the_same_office()
{
    let game = Game::new();
    game.send(ALICE, "nomic", &["running for Speaker"], minutes(0));
    game.send(BOB, "nomic", &["running for Speaker"], minutes(1));
    game.alice_challenges_bob(minutes(10));
    game.assert_answered(CAROL, &["both run for speaker", "4g"]);
    game.send(BOB, "nomic", &["not running for Speaker"], minutes(20));
    game.alice_challenges_bob(minutes(30));
    assert_eq!(game.duel(1)["challenged"]["name"], "Bob");
}

#[test]
fn condition_4i_if_both_go_on_vacation_the_duel_is_cancelled() {
    // 4i: "If both the Challenger and the Challenged go on Vacation
    // simultaneously, then the Duel is cancelled."
    let game = Game::new();
    game.send(ALICE, "nomic", &["vacation until 2026-03-20"], minutes(0));
    // Alice's Second challenges for her while she is away (she is Untouchable,
    // but 4a forbids challenging her, not her challenging).
    game.alice_challenges_bob(minutes(10));
    game.send(BOB, "nomic", &["vacation until 2026-03-21"], minutes(20));
    assert_eq!(game.duel(1)["end"]["kind"], "cancelled");
    assert_eq!(game.announced("Duel 1: cancelled").len(), 1);
}

#[test]
fn condition_4j_a_fourth_challenge_in_a_month_is_refused() {
    // 4j: "No player may make more than 3 challenges per calendar month."
    let game = Game::new();
    for (i, day) in [0, 4, 8].iter().enumerate() {
        game.alice_challenges_bob(days(*day));
        game.send(
            BOB,
            "duel",
            &[&format!("decline {}", i + 1)],
            days(*day) + SignedDuration::from_mins(5),
        );
    }
    game.alice_challenges_bob(days(12));
    game.assert_answered(CAROL, &["Alice has made 3 challenges this calendar month"]);
    game.alice_challenges_bob(at("2026-04-01T10:00:00Z"));
    assert_eq!(game.duel(4)["challenger"]["name"], "Alice");
}

#[test]
fn condition_4j_no_more_than_the_duels_a_month_the_rule_allows() {
    // 4j: "No more than 6 duels may be called per calendar month." The number
    // is a parameter; at 1 the second duel of the month is refused.
    let game = Game::with(|config| config.replace("duels_per_month = 6", "duels_per_month = 1"));
    game.alice_challenges_bob(minutes(0));
    game.send(
        BOB,
        "duel",
        &["Carol challenges Dave because a second duel"],
        minutes(10),
    );
    game.assert_answered(BOB, &["1 duels were called this calendar month"]);
}

#[test]
fn a_moderator_cancels_a_duel_and_state_duel_shows_it() {
    let game = Game::new();
    game.alice_challenges_bob(minutes(0));
    game.send(
        MODERATOR,
        "duel",
        &["cancel 1 because a mistake"],
        minutes(10),
    );
    assert_eq!(game.duel(1)["end"]["why"], "a mistake");
    let shown = game.bot.cli_ok(&["state", "duel", "--json"]);
    assert!(shown.contains("\"cancelled\""), "{shown}");
    // The answer deadline went with it: no forfeit three days later.
    game.bot.once(days(4));
    assert!(game.announced("forfeited").is_empty());
}

#[test]
fn a_moderator_overrides_by_mail_an_answer_as_a_second_and_a_void_of_the_challenge() {
    let game = Game::new();
    game.alice_challenges_bob(minutes(0));
    game.send(
        MODERATOR,
        "duel",
        &["as Dave because his mail bounced: accept 1 with Ghost"],
        minutes(10),
    );
    assert_eq!(game.duel(1)["challenged_second"]["name"], "Dave");
    assert_eq!(game.duel(1)["stage"], "started");
    game.send(
        DAVE,
        "duel",
        &["Carol challenges Alice because a second quarrel"],
        minutes(20),
    );
    game.assert_answered(DAVE, &["Alice is Untouchable (4b"]);
    let second = game.send(
        ALICE,
        "duel",
        &["Dave challenges Carol because a third quarrel"],
        minutes(30),
    );
    assert_eq!(game.duel(2)["challenger"]["name"], "Dave");
    game.send(
        MODERATOR,
        "nomic",
        &[&format!("void <{second}> because a mistake")],
        minutes(40),
    );
    assert!(game.duel(2).is_null(), "the voided challenge is gone");
}

#[test]
fn help_status_history_and_the_games_listing_by_mail() {
    let game = Game::new();
    game.alice_challenges_bob(minutes(0));
    game.send_privately(BOB, "duel", &["help"], minutes(10));
    game.assert_answered(BOB, &["Commands under [duel]", "accept N with CONTEST"]);
    game.send_privately(BOB, "duel", &["status", "contests", "history"], minutes(20));
    game.assert_answered(
        BOB,
        &[
            "Duel 1: Alice against Bob, the answer is due by 2026-03-05 09:00 UTC",
            "Alice: 4b: in Duel 1, not yet resolved",
            "Ghost: 2 players; refereed by the bot",
            "Alice challenges Bob",
        ],
    );
    game.send_privately(CAROL, "nomic", &["games"], minutes(30));
    game.assert_answered(CAROL, &["Duel 1: the challenge awaits its answer"]);
}

#[test]
fn duels_begin_only_once_rule_1215_is_imported_and_then_follow_it() {
    let game = Game::with(|config| {
        config.replace(
            "unrecorded_rules = \"baseline\"",
            "unrecorded_rules = \"required\"",
        )
    });
    game.alice_challenges_bob(minutes(0));
    game.assert_answered(CAROL, &["nomicbot import-rules ackanomic"]);
    assert!(game.duel(1).is_null());
    game.bot.cli_ok(&["import-rules", "ackanomic"]);
    game.alice_challenges_bob(minutes(10));
    assert_eq!(game.duel(1)["challenged"]["name"], "Bob");
}
