//! Unit tests of `[ghost]`: the test table and its helpers, reading command lines,
//! and rule 103 §2 to §4(2). More in `tests_protest` and `tests_referee`.
//!
//! Every line reaches the game as a player's mail does: through the router and
//! the driver of `games::table::Table`, so each deadline due before a line fires
//! first (but for `run_before_deadlines`), and a leave or a vacation is the
//! registry's, told to the game as a change of standing.

use std::sync::Arc;

use minijinja::{Environment, UndefinedBehavior};
use num_bigint::BigInt;
use num_rational::BigRational;

use super::*;
use crate::engine::accounts::{Accounts, Currency, Exactness, Holder};
use crate::engine::calendar::{self, Calendar};
use crate::engine::dictionary::Lexicon;
use crate::engine::game::{Officers, Shared};
use crate::engine::players::{self, Event as PlayerEvent};
use crate::engine::random;
use crate::engine::{Audience, LineReport, Mail, Sentence, Status};
use crate::games::table::Table;
use crate::games::{self, GameParams, Message, Outcome, base_tag};

fn ts(text: &str) -> Timestamp {
    text.parse().unwrap()
}

pub(super) fn t0() -> Timestamp {
    ts("2026-05-01T12:00:00Z")
}

pub(super) fn hours(n: i64) -> Timestamp {
    t0().checked_add(SignedDuration::from_hours(n)).unwrap()
}

/// A tiny official dictionary.
#[derive(Debug)]
struct TestLexicon(Vec<&'static str>);

impl Lexicon for TestLexicon {
    fn is_word(&self, word: &str) -> bool {
        self.0.iter().any(|w| w.eq_ignore_ascii_case(word))
    }

    fn is_inside_a_word(&self, fragment: &str) -> bool {
        let fragment = fragment.to_lowercase();
        self.0.iter().any(|w| w.contains(fragment.as_str()))
    }
}

fn lexicon() -> TestLexicon {
    TestLexicon(vec![
        "supersonic",
        "cat",
        "cattle",
        "word",
        "stop",
        "queue",
        "quiet",
        "ghost",
    ])
}

pub(super) fn address(who: &str) -> Address {
    Address::new(&format!("{}@x.org", who.to_lowercase()))
}

/// A table with Ghost on it: the nomic's players, and every ghost mail and
/// reminder sent so far, rendered as the shell renders it.
pub(super) struct GhostTable {
    pub(super) table: Table,
    pub(super) texts: Vec<(Mail, String)>,
    /// The events of the last line run, every part of the world's.
    pub(super) last_events: Vec<games::Event>,
}

impl GhostTable {
    /// Rita (the referee, id 1), then the named players, ids from 2, all active;
    /// accounts with points and A$; `mod@x.org` is a moderator.
    pub(super) fn new(names: &[&str]) -> GhostTable {
        GhostTable::with_currencies(
            names,
            vec![
                Currency::new("points", &["point"], Exactness::Integer),
                Currency::new("A$", &[], Exactness::Integer),
            ],
        )
    }

    pub(super) fn with_currencies(names: &[&str], currencies: Vec<Currency>) -> GhostTable {
        let mut world = games::World::default();
        for (id, name) in (1..).zip(std::iter::once(&"Rita").chain(names)) {
            let joined = PlayerEvent::Joined {
                id,
                name: (*name).to_owned(),
                address: address(name),
            };
            world.apply_event(&games::Event::Players(joined), ts("2026-01-01T00:00:00Z"));
        }
        *Arc::make_mut(&mut world.shared.accounts) = Accounts::with_currencies(currencies);
        let officers = Officers {
            moderators: vec![address("mod")],
            ..Officers::default()
        };
        let params = games::Params::new(
            players::Params::default(),
            officers,
            Calendar::default(),
            Arc::new(lexicon()),
            GameParams::default(),
        );
        GhostTable {
            table: Table::new(world, params),
            texts: Vec::new(),
            last_events: Vec::new(),
        }
    }
}

impl GhostTable {
    /// Applies a line from `who` ("Alice"; "mod" is the moderator) under `[ghost]`,
    /// or `[ghost N]` for `instance` N, once every deadline due by `at` has fired;
    /// returns the mail of the line, or the code of its refusal.
    pub(super) fn run_as(
        &mut self,
        who: &str,
        public: bool,
        at: Timestamp,
        instance: Option<u32>,
        line: &str,
    ) -> Result<Vec<Mail>, String> {
        let mark = self.table.mail.len();
        let tag = instance.map_or_else(|| TAG.to_owned(), tag);
        let outcome = self
            .table
            .message(at, address(who).as_str(), public, &tag, &[line]);
        self.keep(mark);
        self.answer(outcome)
    }

    /// The same line applied at `at` before the deadlines due by then have fired.
    /// The driver never lets a mail overtake a deadline; this reaches the rules'
    /// own check that a turn is over at its deadline.
    pub(super) fn run_before_deadlines(
        &mut self,
        who: &str,
        at: Timestamp,
        line: &str,
    ) -> Result<Vec<Mail>, String> {
        let ctx = Ctx {
            now: at,
            sender: address(who),
            sender_name: None,
            public: true,
            entropy: Table::entropy(at, line),
        };
        let message = Message {
            tag: TAG.to_owned(),
            subject_rest: String::new(),
            body_lines: vec![line.to_owned()],
        };
        let mark = self.table.mail.len();
        let outcome = self.table.world.handle(&message, &ctx, &self.table.params);
        self.table.record(at, &outcome.events);
        self.table.mail.extend(outcome.mail.iter().cloned());
        self.table.last.clone_from(&outcome.report);
        self.keep(mark);
        self.answer(outcome)
    }

    /// The mail of a one-line message, or the code of its refusal; the sentence
    /// of a ghost answer must render.
    fn answer(&mut self, outcome: Outcome) -> Result<Vec<Mail>, String> {
        let LineReport {
            status, sentence, ..
        } = self.table.last.last().expect("one line, one answer");
        if sentence.code.starts_with("ghost_") {
            render_sentence(sentence);
        }
        let result = match status {
            Status::Done => Ok(outcome.mail),
            Status::Refused | Status::NotUnderstood => Err(sentence.code.clone()),
        };
        self.last_events = outcome.events;
        result
    }

    /// A public line to the one open instance.
    pub(super) fn run(
        &mut self,
        who: &str,
        at: Timestamp,
        line: &str,
    ) -> Result<Vec<Mail>, String> {
        self.run_as(who, true, at, None, line)
    }

    /// A `[nomic]` line of the registry's from `who`, which must be done: what
    /// the games do about a change of standing comes with it. Returns the events
    /// and the mail of the line.
    pub(super) fn nomic(
        &mut self,
        who: &str,
        at: Timestamp,
        line: &str,
    ) -> (Vec<games::Event>, Vec<Mail>) {
        let mark = self.table.mail.len();
        let outcome = self
            .table
            .message(at, address(who).as_str(), true, players::TAG, &[line]);
        assert_eq!(
            self.table.last.last().map(|r| r.status),
            Some(Status::Done),
            "{who}: {line}: {:?}",
            self.table.last
        );
        self.keep(mark);
        (outcome.events, outcome.mail)
    }

    /// The clock reaches `at`: every reminder and deadline on the way fires, one
    /// instant at a time, as the driver fires them. Returns the mail sent.
    pub(super) fn tick(&mut self, at: Timestamp) -> Vec<Mail> {
        let mark = self.table.mail.len();
        self.table.run_until(at);
        self.keep(mark);
        self.table.mail_since(mark).to_vec()
    }

    /// `name` leaves the nomic (`[nomic] leave`); returns the games' mail about it.
    pub(super) fn left_nomic(&mut self, name: &str, at: Timestamp) -> Vec<Mail> {
        let (_events, mail) = self.nomic(name, at, "leave");
        ghost_mail(mail)
    }

    /// Renders the ghost mail sent since mark `from` (the registry's is worded
    /// elsewhere).
    fn keep(&mut self, from: usize) {
        for one in self.table.mail_since(from) {
            if base_tag(&one.tag) == TAG {
                self.texts.push((one.clone(), render(one)));
            }
        }
    }

    pub(super) fn shared(&self) -> &Shared {
        &self.table.world.shared
    }

    pub(super) fn ghosts(&self) -> &Ghosts {
        &self.table.world.games.ghosts
    }

    pub(super) fn inst(&self, number: u32) -> &Instance {
        self.ghosts().instance(number).unwrap()
    }
}

/// The mail of `[ghost]` among a step's (the registry's announcements left out).
pub(super) fn ghost_mail(mail: Vec<Mail>) -> Vec<Mail> {
    mail.into_iter()
        .filter(|m| base_tag(&m.tag) == TAG)
        .collect()
}

impl Instance {
    /// Why the player in `seat` is out of the game, if ey is.
    pub(super) fn removed_why(&self, seat: u32) -> Option<Why> {
        self.seat(seat)
            .unwrap()
            .removed
            .as_ref()
            .map(|r| r.why.clone())
    }
}

impl GhostTable {
    /// The players' names by number: `order(1)[0]` is player 1 of instance 1.
    pub(super) fn order(&self, number: u32) -> Vec<String> {
        self.inst(number)
            .seats
            .iter()
            .map(|s| s.name.clone())
            .collect()
    }

    pub(super) fn last_sentence(&self) -> &Sentence {
        &self.table.last.last().unwrap().sentence
    }

    /// The ghost deadlines in the schedule.
    pub(super) fn deadlines(&self) -> Vec<(String, Timestamp)> {
        self.shared()
            .schedule
            .entries
            .iter()
            .filter(|e| base_tag(&e.deadline.owner) == TAG)
            .map(|e| (e.deadline.id.clone(), e.deadline.at))
            .collect()
    }

    pub(super) fn balance(&self, name: &str, currency: &str) -> BigRational {
        let shared = self.shared();
        let id = shared
            .players
            .players
            .iter()
            .find(|p| p.name == name)
            .unwrap()
            .id;
        shared.accounts.balance(Holder::Player(id), currency)
    }

    /// Plays `lines` in turn order from the player whose turn it is, one hour
    /// apart from `at`.
    pub(super) fn plays(&mut self, number: u32, at: &mut Timestamp, lines: &[&str]) {
        for line in lines {
            let seat = self.inst(number).turn().unwrap();
            let name = self.inst(number).seat(seat).unwrap().name.clone();
            *at = at.checked_add(SignedDuration::from_hours(1)).unwrap();
            self.run_as(&name, true, *at, Some(number), line)
                .unwrap_or_else(|code| panic!("{name}: {line}: {code}"));
        }
    }

    pub(super) fn turn_name(&self, number: u32) -> Option<String> {
        let inst = self.inst(number);
        inst.turn()
            .map(|seat| inst.seat(seat).unwrap().name.clone())
    }
}

pub(super) fn integer(n: i64) -> BigRational {
    BigRational::from_integer(BigInt::from(n))
}

pub(super) fn templates(mail: &[Mail]) -> Vec<&str> {
    mail.iter().map(|m| m.template.as_str()).collect()
}

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    for (name, source) in [
        (
            "sentences/ghost.txt",
            include_str!("../../../templates/sentences/ghost.txt"),
        ),
        (
            "ghost_started.txt",
            include_str!("../../../templates/ghost_started.txt"),
        ),
        (
            "ghost_news.txt",
            include_str!("../../../templates/ghost_news.txt"),
        ),
        (
            "random_period_revealed.txt",
            include_str!("../../../templates/random_period_revealed.txt"),
        ),
        (
            "reminder.txt",
            include_str!("../../../templates/reminder.txt"),
        ),
        (
            "sentence",
            "{% import \"sentences/ghost.txt\" as ghost %}{{ ghost.sentence(s) }}",
        ),
    ] {
        env.add_template(name, source).unwrap();
    }
    env
}

/// Renders a mail the way the shell does, with undefined values an error.
pub(super) fn render(mail: &Mail) -> String {
    let env = environment();
    let text = env
        .get_template(&format!("{}.txt", mail.template))
        .unwrap()
        .render(minijinja::Value::from(minijinja::value::Serde(
            &mail.values,
        )))
        .unwrap_or_else(|e| panic!("{}: {e:#}", mail.template));
    assert!(text.starts_with("Subject: "), "{text}");
    assert!(!text.contains("[no wording"), "{text}");
    text
}

/// Renders a ghost sentence (others are worded elsewhere).
pub(super) fn render_sentence(sentence: &Sentence) -> String {
    let env = environment();
    let text = env
        .get_template("sentence")
        .unwrap()
        .render(minijinja::context! {
            s => minijinja::Value::from(minijinja::value::Serde(sentence))
        })
        .unwrap_or_else(|e| panic!("{}: {e:#}", sentence.code));
    assert!(!text.contains("[no wording"), "{text}");
    assert!(!text.trim().is_empty(), "{}", sentence.code);
    text
}

/// Rita starts instance 1 with these players, privately, at `at`.
pub(super) fn started(names: &[&str], line: &str, at: Timestamp) -> GhostTable {
    let mut world = GhostTable::new(names);
    world.run_as("Rita", false, at, None, line).unwrap();
    world
}

#[test]
fn parse_forms() {
    let play = |letters: &str| {
        Ok(Command::Play {
            letters: letters.to_owned(),
        })
    };
    assert_eq!(
        parse("start with Alice, Bob and Carol"),
        Ok(Command::Start {
            duel: false,
            names: vec!["Alice".into(), "Bob".into(), "Carol".into()]
        })
    );
    assert_eq!(
        parse("Start a duel with Alice and Bob"),
        Ok(Command::Start {
            duel: true,
            names: vec!["Alice".into(), "Bob".into()]
        })
    );
    assert_eq!(
        parse("start Alice, Bob as a duel"),
        Ok(Command::Start {
            duel: true,
            names: vec!["Alice".into(), "Bob".into()]
        })
    );
    assert_eq!(parse("begin S"), Ok(Command::Begin { letter: "s".into() }));
    assert_eq!(
        parse("begin with the letter q"),
        Ok(Command::Begin { letter: "q".into() })
    );
    assert_eq!(parse("play UPERSO"), play("uperso"));
    assert_eq!(parse("uperso"), play("uperso"));
    assert_eq!(parse("  \"Uperso.\" "), play("uperso"));
    assert_eq!(parse("play: uperso"), play("uperso"));
    // A word that is also a verb is played with "play", or alone when the verb
    // needs more.
    assert_eq!(parse("play status"), play("status"));
    assert_eq!(parse("word"), play("word"));
    assert!(is_bare_play("uperso") && is_bare_play("word"));
    assert!(!is_bare_play("status") && !is_bare_play("play uperso"));
    let protest = |grounds| Ok(Command::Protest { grounds });
    for line in [
        "protest word",
        "protest: it is a word",
        "Protest: it's a word",
        "protest that the ghost word is a word of four or more letters in the official dictionary",
    ] {
        assert_eq!(parse(line), protest(Grounds::IsAWord), "{line}");
    }
    for line in [
        "protest not inside",
        "protest: it cannot be found within any word",
        "protest: it can't be found in any word",
        "challenge no word contains it",
    ] {
        assert_eq!(parse(line), protest(Grounds::NotInside), "{line}");
    }
    assert_eq!(
        parse("protest addition Dave"),
        Ok(Command::ProtestAddition {
            name: "dave".into()
        })
    );
    assert_eq!(
        parse("protest Dave's addition"),
        Ok(Command::ProtestAddition {
            name: "dave".into()
        })
    );
    assert_eq!(
        parse("word supersonic"),
        Ok(Command::Answer {
            word: "supersonic".into()
        })
    );
    assert_eq!(
        parse("answer: Supersonic"),
        Ok(Command::Answer {
            word: "supersonic".into()
        })
    );
    assert_eq!(parse("resign"), Ok(Command::Resign));
    assert_eq!(parse("I resign"), Ok(Command::Resign));
    assert_eq!(parse("leave"), Ok(Command::Leave));
    assert_eq!(parse("add me"), Ok(Command::AddMe));
    assert_eq!(parse("join"), Ok(Command::AddMe));
    assert_eq!(parse("referee"), Ok(Command::TakeReferee));
    assert_eq!(parse("I will referee"), Ok(Command::TakeReferee));
    assert_eq!(parse("take the referee post"), Ok(Command::TakeReferee));
    assert_eq!(parse("resign referee"), Ok(Command::ResignReferee));
    assert_eq!(parse("resign as referee"), Ok(Command::ResignReferee));
    assert_eq!(parse("status"), Ok(Command::Status));
    assert_eq!(parse("history"), Ok(Command::History));
    assert_eq!(
        parse("rule valid because the dictionary has it"),
        Ok(Command::Rule {
            valid: true,
            reason: "the dictionary has it".into()
        })
    );
    assert_eq!(
        parse("rule invalid because no"),
        Ok(Command::Rule {
            valid: false,
            reason: "no".into()
        })
    );
    assert_eq!(
        parse("remove Bob Smith because he asked by phone"),
        Ok(Command::Remove {
            name: "Bob Smith".into(),
            reason: "he asked by phone".into()
        })
    );
    assert_eq!(
        parse("set word SPR because a typo"),
        Ok(Command::SetWord {
            word: Some("spr".into()),
            by: None,
            reason: "a typo".into()
        })
    );
    assert_eq!(
        parse("set the ghost word to spr because a typo"),
        Ok(Command::SetWord {
            word: Some("spr".into()),
            by: None,
            reason: "a typo".into()
        })
    );
    assert_eq!(
        parse("clear word because a typo"),
        Ok(Command::SetWord {
            word: None,
            by: None,
            reason: "a typo".into()
        })
    );
    for (line, code) in [
        ("start", "usage"),
        ("play", "usage"),
        ("begin", "usage"),
        ("play upér", "ghost_bad_letters"),
        ("word super sonic", "ghost_bad_letters"),
        ("protest", "usage"),
        ("protest: it is not a word", "usage"),
        ("rule valid", "usage"),
        ("rule maybe because x", "usage"),
        ("remove Bob", "usage"),
        ("set word x y because z", "usage"),
        ("set word uper", "usage"),
        ("hello there", "unknown_command"),
        ("help", "unknown_command"),
        ("", "unknown_command"),
    ] {
        assert_eq!(
            parse(line).map_err(|e| e.0.code),
            Err(code.to_owned()),
            "{line:?}"
        );
    }
    assert_eq!(turn_deadline_id(2, 7), "ghost:2:turn:7");
    assert_eq!(answer_deadline_id(2, 1), "ghost:2:protest:1");
    assert_eq!(instance_of_deadline("ghost:2:turn:7"), Some(2));
    assert_eq!(instance_of_deadline("ghost:2:protest:1"), Some(2));
    assert_eq!(instance_of_deadline("ghost:2:turn:7:x"), None);
    assert_eq!(instance_of_deadline("vote:2"), None);
}

#[test]
fn rule_2_players_from_two_to_the_number_of_active_players() {
    let mut world = GhostTable::new(&["Alice", "Bob", "Carol"]);
    let mut refused =
        |who: &str, line: &str| world.run_as(who, false, t0(), None, line).expect_err(line);
    assert_eq!(refused("Rita", "start with Alice"), "ghost_too_few");
    assert_eq!(
        refused("Rita", "start with Alice, alice"),
        "ghost_named_twice"
    );
    assert_eq!(
        refused("Rita", "start with Alice, Nobody"),
        "ghost_no_such_player"
    );
    assert_eq!(
        refused("Rita", "start with Rita, Alice"),
        "ghost_referee_plays"
    );
    assert_eq!(
        refused("Mallory", "start with Alice, Bob"),
        "ghost_start_who"
    );
    assert_eq!(
        refused("Rita", "start duel with Alice, Bob, Carol"),
        "ghost_duel_two"
    );
    // A player on vacation is not an active player.
    world.nomic("Bob", t0(), "vacation until 2026-05-31");
    assert_eq!(
        world
            .run_as("Rita", false, t0(), None, "start with Alice, Bob")
            .unwrap_err(),
        "ghost_player_inactive"
    );
    assert!(world.ghosts().instances.is_empty());
    // A moderator who is not a player may referee; every active player may play.
    world
        .run_as("mod", false, t0(), None, "start with Alice, Carol, Rita")
        .unwrap();
    let inst = world.inst(1);
    assert_eq!(inst.seats.len(), 3);
    assert_eq!(inst.began, 3);
    assert_eq!(
        inst.referee,
        Some(Referee {
            address: Address::new("mod@x.org"),
            player: None,
            name: "mod@x.org".to_owned()
        })
    );
    // Once removed, a player is no longer a player in that instance.
    let first = world.order(1)[1].clone();
    world.run(&first, hours(1), "leave").unwrap();
    assert_eq!(world.run(&first, hours(2), "status").map(|_| ()), Ok(()));
    assert_eq!(
        world.run(&first, hours(2), "leave").unwrap_err(),
        "ghost_removed_player"
    );
}

#[test]
fn rule_3_the_start_is_announced_with_random_numbers_and_their_commitment() {
    let mut world = GhostTable::new(&["Alice", "Bob", "Carol"]);
    let mail = world
        .run_as("Rita", false, t0(), None, "start with Alice, Bob, Carol")
        .unwrap();
    assert_eq!(templates(&mail), ["ghost_started"]);
    assert_eq!(mail[0].to, Audience::List);
    assert_eq!(mail[0].tag, "ghost 1");
    let inst = world.inst(1);
    let numbers: Vec<u32> = inst.seats.iter().map(|s| s.number).collect();
    assert_eq!(numbers, [1, 2, 3]);
    let mut names = world.order(1);
    names.sort();
    assert_eq!(names, ["Alice", "Bob", "Carol"]);
    // The numbers are the officer's draw, and can be re-run from the seed.
    let period = world.shared().random.current.clone().unwrap();
    assert_eq!(period.label, "ghost 1");
    assert_eq!(period.draws.len(), 1);
    let seed = random::parse_seed(&period.seed).unwrap();
    let order = random::compute(&seed, 0, &random::DrawKind::Shuffle { n: 3 }).unwrap();
    let listed = ["Alice", "Bob", "Carol"];
    let expected: Vec<&str> = order.iter().map(|i| listed[*i as usize]).collect();
    assert_eq!(world.order(1), expected);
    let text = &world.texts[0].1;
    assert!(text.contains(&period.commitment), "{text}");
    assert!(!text.contains(&period.seed), "the seed is secret: {text}");
    assert!(text.contains(&format!("1. {}", expected[0])), "{text}");
    assert!(text.contains("2026-05-04 12:00 UTC"), "{text}");
    // Player 1's turn, with a reminder.
    assert_eq!(world.turn_name(1).as_deref(), Some(expected[0]));
    assert_eq!(
        world.deadlines(),
        [("ghost:1:turn:1".to_owned(), hours(72))]
    );
    let entry = world.shared().schedule.get("ghost:1:turn:1").unwrap();
    assert!(entry.deadline.remind);
    assert_eq!(
        entry.deadline.who,
        world.shared().players.by_name(expected[0]).map(|p| p.id)
    );
    let sentence = world.last_sentence();
    assert_eq!(sentence.code, "ghost_started");
    assert_eq!(sentence.args["commitment"], period.commitment.as_str());
}

#[test]
fn rule_4_turns_go_up_by_number_wrap_around_and_skip_removed_players() {
    let mut world = started(
        &["Alice", "Bob", "Carol"],
        "start with Alice, Bob, Carol",
        t0(),
    );
    let order = world.order(1);
    let mut at = t0();
    world.plays(1, &mut at, &["q", "qu", "que"]);
    // After the highest number comes player 1 again.
    assert_eq!(world.turn_name(1), Some(order[0].clone()));
    assert_eq!(world.inst(1).ghost_word.as_deref(), Some("que"));
    // Each turn change is announced with whose turn, the word and the deadline.
    let (last_mail, text) = world.texts.last().unwrap();
    assert_eq!(last_mail.template, "ghost_news");
    assert_eq!(last_mail.tag, "ghost 1");
    assert!(
        text.contains(&format!(
            "Subject: Ghost 1: {}'s turn, ghost word QUE",
            order[0]
        )),
        "{text}"
    );
    assert!(text.contains("2026-05-04 15:00 UTC"), "{text}");
    // Only the current turn's deadline is pending; it is three days from the turn's start.
    assert_eq!(
        world.deadlines(),
        [("ghost:1:turn:4".to_owned(), hours(75))]
    );
    // Player 2 leaves out of turn: after player 1 comes player 3.
    world.run(&order[1], hours(4), "leave").unwrap();
    world.plays(1, &mut at, &["queu"]);
    assert_eq!(world.turn_name(1), Some(order[2].clone()));
    world.plays(1, &mut at, &["queue"]);
    assert_eq!(world.turn_name(1), Some(order[0].clone()));
}

#[test]
fn rule_4_plays_are_public_in_turn_and_by_players_only() {
    let mut world = started(&["Alice", "Bob", "Carol"], "start with Alice, Bob", t0());
    let order = world.order(1);
    assert_eq!(
        world
            .run_as(&order[0], false, hours(1), None, "s")
            .unwrap_err(),
        "ghost_public"
    );
    assert_eq!(
        world.run(&order[1], hours(1), "s").unwrap_err(),
        "ghost_not_your_turn"
    );
    assert_eq!(world.last_sentence().args["turn"], order[0].as_str());
    assert_eq!(
        world.run("Carol", hours(1), "s").unwrap_err(),
        "ghost_not_in_game"
    );
    assert_eq!(
        world.run("Rita", hours(1), "s").unwrap_err(),
        "ghost_not_in_game"
    );
    assert_eq!(world.last_sentence().args["referee"], true);
    // At the deadline the turn is over, even before the clock has fired.
    assert_eq!(
        world
            .run_before_deadlines(&order[0], hours(72), "s")
            .unwrap_err(),
        "ghost_late"
    );
    assert!(world.inst(1).ghost_word.is_none());
}

#[test]
fn rule_4_a_turn_lasts_three_days_then_the_player_is_assumed_to_have_resigned() {
    let mut world = started(
        &["Alice", "Bob", "Carol", "Dave"],
        "start with Alice, Bob, Carol, Dave",
        t0(),
    );
    let order = world.order(1);
    let mut at = t0();
    world.plays(1, &mut at, &["s"]);
    // Player 2 is reminded a day before the deadline, then times out.
    let reminders = world.tick(hours(1 + 48));
    assert_eq!(templates(&reminders), ["reminder"]);
    assert_eq!(reminders[0].to, Audience::Address(address(&order[1])));
    assert!(world.tick(hours(1 + 71)).is_empty());
    let mail = world.tick(hours(1 + 72));
    assert_eq!(templates(&mail), ["ghost_news"]);
    let inst = world.inst(1);
    let removal = inst.seat(2).unwrap().removed.clone().unwrap();
    assert_eq!(removal.why, Why::TimedOut);
    assert_eq!(removal.at, hours(73));
    // A resignation destroys the ghost word; the next player's turn begins.
    assert!(inst.ghost_word.is_none());
    assert_eq!(world.turn_name(1), Some(order[2].clone()));
    assert_eq!(
        world.deadlines(),
        [("ghost:1:turn:3".to_owned(), hours(73 + 72))]
    );
    let text = &world.texts.last().unwrap().1;
    assert!(text.contains("did not play within their turn"), "{text}");
    assert!(text.contains("the ghost word S is destroyed"), "{text}");
    // The old deadline firing again changes nothing.
    let stale = calendar::Deadline {
        id: "ghost:1:turn:2".to_owned(),
        at: hours(80),
        owner: TAG.to_owned(),
        who: None,
        what: "a turn already over".to_owned(),
        remind: false,
    };
    let scheduled = calendar::Event::Scheduled { deadline: stale };
    world
        .table
        .record(hours(79), &[games::Event::Schedule(scheduled)]);
    let events = world.table.events.len();
    let ghosts = world.ghosts().clone();
    assert!(world.tick(hours(80)).is_empty());
    assert_eq!(world.ghosts(), &ghosts);
    let fired = calendar::Event::Fired {
        id: "ghost:1:turn:2".to_owned(),
    };
    let after: Vec<&games::Event> = world.table.events[events..]
        .iter()
        .map(|(_, _, e)| e)
        .collect();
    assert_eq!(after, [&games::Event::Schedule(fired)]);
}

#[test]
fn rule_4_1_begin_only_when_no_ghost_word() {
    let mut world = started(
        &["Alice", "Bob", "Carol"],
        "start with Alice, Bob, Carol",
        t0(),
    );
    let order = world.order(1);
    assert_eq!(
        world.run(&order[0], hours(1), "begin st").unwrap_err(),
        "ghost_one_letter"
    );
    assert_eq!(
        world.run(&order[0], hours(1), "st").unwrap_err(),
        "ghost_one_letter"
    );
    world.run(&order[0], hours(1), "begin S").unwrap();
    assert_eq!(world.inst(1).ghost_word.as_deref(), Some("s"));
    assert_eq!(
        world.run(&order[1], hours(2), "begin t").unwrap_err(),
        "ghost_word_exists"
    );
    assert_eq!(world.last_sentence().args["word"], "s");
    assert_eq!(
        world.run(&order[1], hours(2), "t").unwrap_err(),
        "ghost_bad_continuation"
    );
    // Once the word is destroyed, a new one may be begun.
    world.run(&order[1], hours(2), "resign").unwrap();
    world.run(&order[2], hours(3), "t").unwrap();
    assert_eq!(world.inst(1).ghost_word.as_deref(), Some("t"));
}

#[test]
fn rule_4_2_continue_by_adding_one_letter_at_either_end() {
    let mut world = started(
        &["Alice", "Bob", "Carol"],
        "start with Alice, Bob, Carol",
        t0(),
    );
    let order = world.order(1);
    let mut at = t0();
    world.plays(1, &mut at, &["p", "pe", "upe", "uper", "upers"]);
    assert_eq!(world.inst(1).ghost_word.as_deref(), Some("upers"));
    let turn = world.turn_name(1).unwrap();
    for bad in ["upers", "xupersx", "upxers", "uper", "tupersx", "uperst"] {
        if bad == "uperst" {
            continue;
        }
        assert_eq!(
            world.run(&turn, hours(6), bad).unwrap_err(),
            "ghost_bad_continuation",
            "{bad}"
        );
    }
    let refusal = world.last_sentence().clone();
    assert_eq!(refusal.args["word"], "upers");
    assert_eq!(refusal.args["before"], "?upers");
    assert_eq!(refusal.args["after"], "upers?");
    let text = render_sentence(&refusal);
    assert!(
        text.contains(
            "UPERS with one letter added at the beginning (?UPERS) or at the end (UPERS?)"
        ),
        "{text}"
    );
    world.run(&turn, hours(6), "play UPERSO").unwrap();
    assert_eq!(world.inst(1).ghost_word.as_deref(), Some("uperso"));
    assert_eq!(
        world.inst(1).word_by,
        world
            .inst(1)
            .seats
            .iter()
            .find(|s| s.name == turn)
            .map(|s| s.number)
    );
    assert_ne!(world.turn_name(1).unwrap(), turn);
    let _ = order;
}
