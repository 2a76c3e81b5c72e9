//! Issue 26, items 8 and 9: a Contest of the Games & Contests suite refereed
//! by a person and played by mail under `[contest]`, and Party Chess (rule
//! 1230, "a 20x20 board, drop-style setup, pieces created at will") among
//! them, whose board the bot keeps and mails as a diagram after each move.

use crate::offices::{BOT, LIST, MODERATOR, play, replies_to};
use crate::support::{LocalBot, at};

const ALICE: &str = "alice@nomic.example";
const BOB: &str = "bob@nomic.example";
const CAROL: &str = "carol@nomic.example";
const DAVE: &str = "dave@nomic.example";

fn list_mail(bot: &LocalBot) -> Vec<(String, String)> {
    bot.sent_mail()
        .into_iter()
        .filter(|m| m.is_to(LIST))
        .map(|m| (m.subject, m.body))
        .collect()
}

/// The body of the last list mail whose subject holds `subject`.
fn announced(bot: &LocalBot, subject: &str) -> String {
    list_mail(bot)
        .into_iter()
        .rev()
        .find(|(s, _)| s.contains(subject))
        .map(|(_, body)| body)
        .unwrap_or_else(|| panic!("no list mail about {subject:?}: {:#?}", list_mail(bot)))
}

/// The squares of one rank of the last diagram in `body`: (file letter, what
/// stands there), the empty ones left out.
fn rank(body: &str, rank: u32) -> Vec<(char, String)> {
    let label = format!("{rank:>3} ");
    let line = body
        .lines()
        .rev()
        .find(|l| l.starts_with(&label))
        .unwrap_or_else(|| panic!("no rank {rank} in {body}"));
    line.as_bytes()[label.len()..]
        .chunks(3)
        .enumerate()
        .filter_map(|(file, cell)| {
            let cell = String::from_utf8_lossy(cell).trim().to_owned();
            (cell != ".").then(|| ((b'a' + file as u8) as char, cell))
        })
        .collect()
}

/// Alice, Bob, Carol and Dave have joined; the moderator has made Carol the
/// referee of a two-player Party Chess (`extra`: more words of the Contest).
fn carol_referees(extra: &str) -> LocalBot {
    let bot = crate::offices::bot();
    play(
        &bot,
        "setup",
        at("2026-03-02T10:00:00Z"),
        &[
            (ALICE, LIST, "[nomic] join Alice", ""),
            (BOB, LIST, "[nomic] join Bob", ""),
            (CAROL, LIST, "[nomic] join Carol", ""),
            (DAVE, LIST, "[nomic] join Dave", ""),
            (
                MODERATOR,
                BOT,
                "[games]",
                &format!(
                    "add Party Chess players 2 no winner referee Carol board 20{extra} because Carol offered to referee it"
                ),
            ),
        ],
    );
    bot
}

fn started(extra: &str) -> LocalBot {
    let bot = carol_referees(extra);
    play(
        &bot,
        "start",
        at("2026-03-02T11:00:00Z"),
        &[(
            CAROL,
            LIST,
            "[contest] start Party Chess with Alice, Bob",
            "",
        )],
    );
    bot
}

/// Rule 1250 and issue 26, item 7: a moderator's change of the suite carries
/// a reason, is announced, and `[games] list` says who referees each Contest.
#[test]
fn a_moderators_change_of_the_suite_is_announced_with_its_reason_and_the_list_names_each_referee() {
    let bot = carol_referees("");
    let body = announced(&bot, "Party Chess changed in the Games & Contests suite");
    assert!(
        body.contains("because Carol offered to referee it"),
        "{body}"
    );
    assert!(
        body.contains("refereed by Carol, by mail under [contest]"),
        "{body}"
    );
    assert!(body.contains("played on a 20x20 board"), "{body}");
    play(
        &bot,
        "list",
        at("2026-03-02T11:00:00Z"),
        &[
            (ALICE, BOT, "[games] list", ""),
            (MODERATOR, BOT, "[games] remove Rule Tag", ""),
        ],
    );
    let answer = replies_to(&bot, ALICE);
    assert!(
        answer.contains("Ghost: 2 players; refereed by the bot under [ghost]"),
        "{answer}"
    );
    assert!(
        answer.contains("Rule Tag: any number of players; refereed by the bot"),
        "{answer}"
    );
    assert!(
        answer.contains("Grab-a-Donkey: any number of players; refereed by the bot"),
        "{answer}"
    );
    assert!(
        answer.contains("Party Chess: 2 players, no definite winner; refereed by Carol by mail under [contest]; a 20x20 board"),
        "{answer}"
    );
    // A change without a reason is refused, and the suite keeps Rule Tag.
    assert!(replies_to(&bot, MODERATOR).contains("because REASON"));
    let state = bot.cli_ok(&["state", "contests", "--json"]);
    let state: serde_json::Value = serde_json::from_str(&state).unwrap_or_default();
    assert!(
        state["suite"].as_array().is_some_and(|s| s
            .iter()
            .any(|c| c["name"] == "Party Chess" && c["board"] == 20)),
        "{state}"
    );
}

/// Items 8 and 9: a game started by its referee, played by mail to a result,
/// the board mailed as a diagram after each move, a capture, the result and
/// the points, and a move after the end refused.
#[test]
fn a_party_chess_game_refereed_by_a_person_is_played_by_mail_to_a_result_with_its_board_diagrams() {
    let bot = started("");
    let body = announced(&bot, "Game 1 of Party Chess begins, refereed by Carol");
    assert!(
        body.contains("1. Alice") && body.contains("2. Bob"),
        "{body}"
    );
    assert!(body.contains("Alice moves first"), "{body}");
    assert!(
        body.contains("a   b   c") || body.contains("  a  b  c"),
        "{body}"
    );
    play(
        &bot,
        "moves",
        at("2026-03-02T12:00:00Z"),
        &[
            (ALICE, LIST, "[contest 1] drop KNIGHT at k10", ""),
            (BOB, LIST, "[contest 1] drop queen at m11", ""),
        ],
    );
    let first = announced(&bot, "move 1: Alice");
    assert!(first.contains("Alice: drop KNIGHT at k10"), "{first}");
    assert!(first.contains("Bob moves next"), "{first}");
    assert!(first.contains("1 = Alice, 2 = Bob"), "{first}");
    assert_eq!(rank(&first, 10), [('k', "N1".to_owned())]);
    let second = announced(&bot, "move 2: Bob");
    assert_eq!(rank(&second, 11), [('m', "Q2".to_owned())]);
    assert_eq!(rank(&second, 10), [('k', "N1".to_owned())]);

    play(
        &bot,
        "capture",
        at("2026-03-02T13:00:00Z"),
        &[(ALICE, LIST, "[contest 1] move k10 m11", "")],
    );
    let shown = bot.cli_ok(&["state", "contests"]);
    assert!(
        shown.contains("Party Chess: 2 players, no definite winner; referee Carol, under [contest]; a 20x20 board"),
        "{shown}"
    );
    assert!(
        shown.contains(
            "Game 1 of Party Chess ([contest 1]), referee Carol: Alice, Bob; 3 moves; Bob to move"
        ),
        "{shown}"
    );
    let capture = announced(&bot, "move 3: Alice");
    assert!(capture.contains("It captures Bob's queen"), "{capture}");
    assert_eq!(rank(&capture, 11), [('m', "N1".to_owned())]);
    assert!(rank(&capture, 10).is_empty(), "{capture}");
    assert!(
        capture
            .lines()
            .any(|l| l.split_whitespace().collect::<String>() == "abcdefghijklmnopqrst"),
        "{capture}"
    );

    play(
        &bot,
        "result",
        at("2026-03-02T14:00:00Z"),
        &[
            (
                CAROL,
                LIST,
                "[contest 1] result Alice wins, points Alice 3, Bob 1",
                "",
            ),
            (BOB, LIST, "[contest 1] drop king at a1", ""),
        ],
    );
    let result = announced(&bot, "Game 1 of Party Chess ends: Alice wins");
    assert!(
        result.contains("Alice: 3") && result.contains("Bob: 1"),
        "{result}"
    );
    assert_eq!(rank(&result, 11), [('m', "N1".to_owned())]);
    let bob = replies_to(&bot, BOB);
    assert!(bob.contains("Refused: game 1 is over"), "{bob}");
    play(
        &bot,
        "history",
        at("2026-03-02T15:00:00Z"),
        &[
            (DAVE, BOT, "[contest 1] record", ""),
            (DAVE, BOT, "[contest 1] history", ""),
        ],
    );
    let dave = replies_to(&bot, DAVE);
    assert!(
        dave.contains("The record of game 1 of Party Chess:"),
        "{dave}"
    );
    assert!(dave.contains("3. Alice: move k10 m11"), "{dave}");
    assert!(
        dave.contains("Game 1 of Party Chess ends: Alice wins"),
        "{dave}"
    );
    let state = bot.state_json();
    let game = &state["contest_games"]["matches"][0];
    assert_eq!(game["ended"]["points"][0][1], 3, "{state}");
    assert_eq!(game["record"].as_array().map(Vec::len), Some(3), "{state}");
}

/// Item 8: "A move out of turn, from a non-player, or after the end is
/// refused with the reason", and item 9: what is impossible on the board.
#[test]
fn a_move_out_of_turn_from_a_non_player_or_impossible_on_the_board_is_refused_with_the_reason() {
    let bot = started("");
    play(
        &bot,
        "wrong",
        at("2026-03-02T12:00:00Z"),
        &[
            (BOB, LIST, "[contest 1] drop rook at a1", ""),
            (DAVE, LIST, "[contest 1] drop rook at a1", ""),
            (ALICE, LIST, "[contest 1] drop pawn at u5", ""),
            (ALICE, LIST, "[contest 1] move a1 a2", ""),
            (ALICE, LIST, "[contest 1] drop pawn at a1", ""),
            (BOB, LIST, "[contest 1] move a1 a2", ""),
            (ALICE, LIST, "[contest 1] result Alice wins", ""),
        ],
    );
    let bob = replies_to(&bot, BOB);
    assert!(
        bob.contains("Refused: it is Alice's turn in game 1, not yours"),
        "{bob}"
    );
    assert!(
        bob.contains("Refused: the piece on a1 is Alice's, not yours"),
        "{bob}"
    );
    let dave = replies_to(&bot, DAVE);
    assert!(
        dave.contains("Refused: you are not a player of game 1 of Party Chess"),
        "{dave}"
    );
    let alice = replies_to(&bot, ALICE);
    assert!(alice.contains("Refused: u5 is not on the board"), "{alice}");
    assert!(
        alice.contains("Refused: there is no piece on a1"),
        "{alice}"
    );
    assert!(alice.contains("Move 1 of game 1 is recorded"), "{alice}");
    assert!(
        alice.contains(
            "Refused: only the referee of game 1 (Carol) or a moderator gives its rulings"
        ),
        "{alice}"
    );
    let moves: Vec<_> = list_mail(&bot)
        .into_iter()
        .filter(|(s, _)| s.contains("Game 1 of Party Chess, move"))
        .collect();
    assert_eq!(moves.len(), 1, "{moves:#?}");
}

/// Item 8: a Contest with private moves: each is mailed to the bot alone and
/// reaches no other player and not the list (a commitment only) before the
/// referee publishes it. Every mail is scanned.
#[test]
fn sealed_moves_reach_no_other_player_nor_the_list_before_the_referee_publishes_them() {
    let bot = started(" private");
    play(
        &bot,
        "sealed",
        at("2026-03-02T12:00:00Z"),
        &[
            (ALICE, LIST, "[contest 1] drop knight at k10", ""),
            (ALICE, BOT, "[contest 1] drop bishop at k10", ""),
            (BOB, BOT, "[contest 1] drop rook at c3", ""),
            (DAVE, BOT, "[contest 1] record", ""),
        ],
    );
    assert!(
        replies_to(&bot, ALICE)
            .contains("the moves of game 1 are sealed; mail yours to the bot's own address"),
        "{}",
        replies_to(&bot, ALICE)
    );
    for mail in bot.sent_mail() {
        let text = format!("{}\n{}", mail.subject, mail.body);
        let to_alice = mail.is_to(ALICE) && !mail.is_to(LIST);
        let to_bob = mail.is_to(BOB) && !mail.is_to(LIST);
        let to_carol = mail.is_to(CAROL) && !mail.is_to(LIST);
        if !to_alice && !to_carol {
            assert!(
                !text.contains("bishop"),
                "Alice's sealed move leaked: {text}"
            );
            assert!(!text.contains("B1"), "Alice's sealed piece leaked: {text}");
        }
        if !to_bob && !to_carol {
            assert!(
                !text.contains("rook at c3"),
                "Bob's sealed move leaked: {text}"
            );
            assert!(!text.contains("R2"), "Bob's sealed piece leaked: {text}");
        }
    }
    let sealed = announced(&bot, "move 1: Alice (sealed)");
    assert!(sealed.contains("commitment"), "{sealed}");
    let carol = replies_to(&bot, CAROL);
    assert!(
        carol.contains("drop bishop at k10") && carol.contains("drop rook at c3"),
        "{carol}"
    );
    let dave = replies_to(&bot, DAVE);
    assert!(dave.contains("1. Alice: (sealed)"), "{dave}");

    play(
        &bot,
        "publish",
        at("2026-03-02T13:00:00Z"),
        &[(CAROL, BOT, "[contest 1] publish", "")],
    );
    let published = announced(&bot, "the sealed moves published");
    assert!(
        published.contains("1. Alice: drop bishop at k10"),
        "{published}"
    );
    assert!(published.contains("2. Bob: drop rook at c3"), "{published}");
    assert_eq!(rank(&published, 10), [('k', "B1".to_owned())]);
    assert_eq!(rank(&published, 3), [('c', "R2".to_owned())]);
}

/// Item 8: "the referee may correct the record (a correction is an event,
/// announced)", and item 9: the referee's rulings on the board (undo a move,
/// set a square) as overrides.
#[test]
fn a_referees_correction_undo_and_ruling_on_a_square_are_announced_with_the_board() {
    let bot = started("");
    play(
        &bot,
        "moves",
        at("2026-03-02T12:00:00Z"),
        &[
            (ALICE, LIST, "[contest 1] drop knight at k10", ""),
            (BOB, LIST, "[contest 1] drop queen at k12", ""),
            (ALICE, LIST, "[contest 1] move k10 k12", ""),
        ],
    );
    assert!(announced(&bot, "move 3: Alice").contains("captures Bob's queen"));
    play(
        &bot,
        "rulings",
        at("2026-03-02T13:00:00Z"),
        &[
            (
                CAROL,
                LIST,
                "[contest 1] undo 3 because a knight does not move so",
                "",
            ),
            (
                CAROL,
                LIST,
                "[contest 1] correct 1: drop knight at j10 because Alice wrote j10 in her notes",
                "",
            ),
            (
                CAROL,
                LIST,
                "[contest 1] set t20 dragon of Bob because Bob's dragon flew in",
                "",
            ),
            (DAVE, LIST, "[contest 1] undo 1 because I say so", ""),
        ],
    );
    let undone = announced(&bot, "move 3 undone");
    assert!(
        undone.contains("because a knight does not move so"),
        "{undone}"
    );
    assert_eq!(rank(&undone, 12), [('k', "Q2".to_owned())]);
    assert_eq!(rank(&undone, 10), [('k', "N1".to_owned())]);
    let corrected = announced(&bot, "move 1 corrected");
    assert!(
        corrected.contains("from \"drop knight at k10\" to \"drop knight at j10\""),
        "{corrected}"
    );
    assert_eq!(rank(&corrected, 10), [('j', "N1".to_owned())]);
    let set = announced(&bot, "t20 set by the referee");
    assert!(set.contains("sets t20 to Bob's dragon"), "{set}");
    assert_eq!(rank(&set, 20), [('t', "D2".to_owned())]);
    assert!(replies_to(&bot, DAVE).contains("Refused: only the referee of game 1"));
    let log = bot
        .log_json()
        .iter()
        .map(|e| e.to_string())
        .collect::<String>();
    assert!(
        log.contains("\"corrected\"") && log.contains("\"struck\""),
        "{log}"
    );
}

/// Item 8: "a Duel's Contest result should reach Duels through the schedule
/// as Duels expect": a Duel fought at a Contest a person referees under
/// `[contest]` ends when the referee declares the game's result.
#[test]
fn a_duel_fought_at_a_human_refereed_contest_ends_with_the_result_its_referee_declares() {
    let bot = carol_referees("");
    play(
        &bot,
        "duel",
        at("2026-03-02T11:00:00Z"),
        &[
            (
                MODERATOR,
                BOT,
                "[games]",
                "add Chess players 2 board 8 because the moderators referee it",
            ),
            (
                CAROL,
                LIST,
                "[duel]",
                "Alice challenges Bob because he called my proposal a loophole",
            ),
            (DAVE, LIST, "[duel] accept 1 with Chess", ""),
            (
                MODERATOR,
                LIST,
                "[contest] start Chess with Alice, Bob for duel 1",
                "",
            ),
            (ALICE, LIST, "[contest 1] drop king at e1", ""),
            (BOB, LIST, "[contest 1] drop king at e8", ""),
            (MODERATOR, LIST, "[contest 1] result Bob wins", ""),
        ],
    );
    let started = announced(&bot, "Game 1 of Chess begins");
    assert!(started.contains("the Contest of Duel 1"), "{started}");
    assert!(rank(&announced(&bot, "move 2: Bob"), 8) == [('e', "K2".to_owned())]);
    let result = announced(&bot, "Game 1 of Chess ends: Bob wins");
    assert!(result.contains("Duel 1 is told"), "{result}");
    let duel = announced(&bot, "Duel 1: Bob wins");
    assert!(duel.contains("Chess"), "{duel}");
}

/// Item 8: "starts a game of a Contest with its players (and teams)": two
/// teams of two, turns alternating between them, the winning team named.
#[test]
fn a_contest_played_by_two_teams_of_two_alternates_their_turns_and_names_the_winning_team() {
    let bot = carol_referees("");
    play(
        &bot,
        "teams",
        at("2026-03-02T11:00:00Z"),
        &[
            (
                MODERATOR,
                BOT,
                "[games]",
                "add Bughouse players 2 teams board 8 because the club plays it",
            ),
            (
                MODERATOR,
                LIST,
                "[contest] start Party Chess with Alice and Bob against Carol and Dave",
                "",
            ),
            (
                MODERATOR,
                LIST,
                "[contest] start Bughouse with Alice and Bob against Carol and Dave",
                "",
            ),
            (ALICE, LIST, "[contest 1] drop king at e1", ""),
            (BOB, LIST, "[contest 1] drop king at e2", ""),
            (CAROL, LIST, "[contest 1] drop king at e8", ""),
            (MODERATOR, LIST, "[contest 1] result Bob wins", ""),
        ],
    );
    let moderator = replies_to(&bot, MODERATOR);
    assert!(
        moderator.contains("Refused: Party Chess is not played by teams"),
        "{moderator}"
    );
    let started = announced(&bot, "Game 1 of Bughouse begins");
    assert!(
        started.contains("Two teams: Alice and Bob\nagainst Carol and Dave"),
        "{started}"
    );
    assert!(
        started.contains("1. Alice") && started.contains("2. Carol") && started.contains("3. Bob"),
        "{started}"
    );
    assert!(replies_to(&bot, BOB).contains("it is Carol's turn in game 1"));
    let result = announced(&bot, "Game 1 of Bughouse ends: Alice and Bob win");
    assert!(
        result.contains("the team of Alice and Bob wins"),
        "{result}"
    );
}

/// Item 8: "keeps the turn order and the deadlines the referee sets (the
/// shared schedule)": the list is told when a move's time is up, and the
/// referee decides what follows.
#[test]
fn the_time_the_referee_sets_for_a_move_runs_on_the_schedule_and_the_list_is_told_when_it_is_up() {
    let bot = started("");
    play(
        &bot,
        "pace",
        at("2026-03-02T12:00:00Z"),
        &[
            (CAROL, LIST, "[contest 1] deadline 3 hours", ""),
            (ALICE, LIST, "[contest 1] drop knight at k10", ""),
        ],
    );
    let pace = announced(&bot, "the time for a move");
    assert!(pace.contains("each move is due within 3 hours"), "{pace}");
    assert!(list_mail(&bot).iter().all(|(s, _)| !s.contains("is up")));
    bot.once(at("2026-03-02T16:00:00Z"));
    let up = announced(&bot, "time for Bob's move is up");
    assert!(
        up.contains("Bob has not moved within the 3 hours Carol set"),
        "{up}"
    );
    play(
        &bot,
        "turn",
        at("2026-03-02T16:30:00Z"),
        &[
            (CAROL, LIST, "[contest 1] turn Alice", ""),
            (ALICE, LIST, "[contest 1] drop rook at a1", ""),
        ],
    );
    let turn = announced(&bot, "Game 1 of Party Chess: the turn");
    assert!(turn.contains("gives the turn to Alice"), "{turn}");
    assert!(announced(&bot, "move 2: Alice").contains("Bob moves next"));
}

/// Rules 1230 and 1250 bind the Contests by mail: with rule 1230 repealed,
/// Party Chess is no more and the bot starts no game of it, while another
/// Contest of the suite (rule 1250 still in effect) is still played by mail.
#[test]
fn rule_1230_repealed_no_party_chess_is_started_but_other_contests_are() {
    let bot = carol_referees("");
    bot.cli_ok(&["import-rules", "ackanomic", "--now", "2026-03-02T10:30:00Z"]);
    play(
        &bot,
        "repeal",
        at("2026-03-02T10:40:00Z"),
        &[
            (MODERATOR, LIST, "[ruleset] repeal 1230", ""),
            (
                MODERATOR,
                BOT,
                "[games]",
                "add Ludo players 2 no winner referee Carol because Carol has the box",
            ),
        ],
    );
    play(
        &bot,
        "start",
        at("2026-03-02T11:00:00Z"),
        &[(
            CAROL,
            LIST,
            "[contest] start Party Chess with Alice, Bob",
            "",
        )],
    );
    let answers: String = bot
        .sent_mail()
        .into_iter()
        .filter(|m| m.is_to(CAROL))
        .map(|m| m.body)
        .collect();
    assert!(
        answers.contains("rule 1230 is not followed now (repealed)"),
        "{answers}"
    );
    assert!(
        list_mail(&bot)
            .iter()
            .all(|(s, _)| !s.contains("Game 1 of Party Chess"))
    );
    play(
        &bot,
        "ludo",
        at("2026-03-02T12:00:00Z"),
        &[(CAROL, LIST, "[contest] start Ludo with Alice, Bob", "")],
    );
    assert!(
        list_mail(&bot)
            .iter()
            .any(|(s, _)| s.contains("Game 1 of Ludo")),
        "{:?}",
        list_mail(&bot)
    );
}

/// Rule 1230 amended to a 24x24 board: a change of words the bot does not
/// read by itself, so Party Chess waits for a moderator, whose `binding 1230
/// set board 24` gives the games started after it a 24x24 board.
#[test]
fn rule_1230_amended_to_another_board_holds_party_chess_until_a_moderator_sets_its_size() {
    let bot = carol_referees("");
    bot.cli_ok(&["import-rules", "ackanomic", "--now", "2026-03-02T10:30:00Z"]);
    let amended = nomicbot::engine::ruleset::rule_text(
        include_str!("../../rules/ackanomic-1209-1250.txt"),
        1230,
    )
    .expect("rule 1230")
    .replacen("20x20", "24x24", 1);
    play(
        &bot,
        "amend",
        at("2026-03-02T10:40:00Z"),
        &[(MODERATOR, LIST, "[ruleset] amend 1230", &amended)],
    );
    play(
        &bot,
        "held",
        at("2026-03-02T11:00:00Z"),
        &[(
            CAROL,
            LIST,
            "[contest] start Party Chess with Alice, Bob",
            "",
        )],
    );
    assert!(
        crate::offices::replies_to(&bot, CAROL).contains("held for a moderator's ruling"),
        "{}",
        crate::offices::replies_to(&bot, CAROL)
    );
    play(
        &bot,
        "ruling",
        at("2026-03-02T12:00:00Z"),
        &[
            (
                MODERATOR,
                LIST,
                "[ruleset] binding 1230 set board 24 because the board grew",
                "",
            ),
            (
                CAROL,
                LIST,
                "[contest] start Party Chess with Alice, Bob",
                "",
            ),
        ],
    );
    let shown = bot.cli_ok(&["state", "contests", "--json"]);
    let state: serde_json::Value = serde_json::from_str(&shown).expect("JSON");
    assert_eq!(state["matches"][0]["board"], 24, "{shown}");
}

/// Issue 28, 3: "the Party Chess board where it runs ... with a text
/// alternative". The public record draws each game in play on its board, at
/// the size rule 1230 gives, every piece with its owner, and says the same in
/// words; a sealed move stays off it until its referee publishes it.
#[test]
fn the_public_record_draws_the_board_of_a_game_in_play_with_the_same_in_words() {
    let bot = started(" private");
    play(
        &bot,
        "sealed",
        at("2026-03-02T12:00:00Z"),
        &[
            (ALICE, BOT, "[contest 1] drop knight at k10", ""),
            (BOB, BOT, "[contest 1] drop dragon at m11", ""),
        ],
    );
    let site = bot.dir.path().join("site");
    let build = || {
        bot.cli_ok(&["site", site.to_str().unwrap_or_default()]);
        let read = |name: &str| std::fs::read_to_string(site.join(name)).unwrap_or_default();
        (
            read("game-contests.html"),
            read("game-contests-board-1.svg"),
        )
    };
    // The moves are sealed: the board is drawn, empty.
    let (page, picture) = build();
    assert!(
        picture.starts_with("<?xml") && picture.contains("<svg"),
        "{picture}"
    );
    let figure = |page: &str| {
        let start = page.find("<figure>").unwrap_or(0);
        let end = page.find("</figure>").unwrap_or(0);
        page.get(start..end).unwrap_or_default().to_owned()
    };
    let words = figure(&page);
    assert!(words.contains("No pieces on the board."), "{page}");
    for secret in ["k10", "m11", "knight", "dragon"] {
        assert!(!picture.contains(secret), "{secret} in {picture}");
        assert!(!words.contains(secret), "{secret} in {words}");
    }
    play(
        &bot,
        "publish",
        at("2026-03-02T13:00:00Z"),
        &[(CAROL, BOT, "[contest 1] publish", "")],
    );
    let (page, picture) = build();
    assert!(
        picture.contains("<title>Game 1 of Party Chess, a 20x20 board</title>"),
        "{picture}"
    );
    // Files a to t and ranks 1 to 20, on every side.
    assert!(picture.contains(">t</text>") && picture.contains(">20</text>"));
    assert!(!picture.contains(">u</text>") && !picture.contains(">21</text>"));
    assert!(
        picture.contains("<title>k10: knight of Alice</title>"),
        "{picture}"
    );
    assert!(
        picture.contains("<title>m11: dragon of Bob</title>"),
        "{picture}"
    );
    assert!(picture.contains(">N1</text>") && picture.contains(">D2</text>"));
    assert!(picture.contains(">1: Alice</text>") && picture.contains(">2: Bob</text>"));
    assert!(
        page.contains(
            "<img src=\"game-contests-board-1.svg\" alt=\"Game 1 of Party Chess, a 20x20 board (files a to t, ranks 1 to 20); players: 1 Alice, 2 Bob."
        ),
        "{page}"
    );
    let words = figure(&page);
    assert!(words.contains("k10: knight of Alice (N1)"), "{words}");
    assert!(words.contains("m11: dragon of Bob (D2)"), "{words}");
    // A game that has ended is no longer drawn.
    play(
        &bot,
        "result",
        at("2026-03-02T14:00:00Z"),
        &[(CAROL, LIST, "[contest 1] result Alice wins", "")],
    );
    let (page, _) = build();
    assert!(!page.contains("game-contests-board-1.svg"), "{page}");
}
