//! Unit tests of the ballot's whole life, played on the pure table the pipeline's
//! driver runs (`games::table::Table`): parsing, sealing, reminders, the tally and
//! every sentence's wording.

use std::sync::Arc;

use super::game::Vote;
use super::rules::box_error;
use super::*;
use crate::engine::calendar::{self, Calendar, Deadline};
use crate::engine::game::{Effect, Game, NoWords, Officers, Tick, Tx};
use crate::engine::players::{self, PlayerId};
use crate::engine::sealed::{self, SealError, Stage};
use crate::engine::{Audience, Mail, Sentence, Status};
use crate::games::table::Table;
use crate::games::{self, GameParams, Outcome};
use jiff::SignedDuration;
use minijinja::{Environment, UndefinedBehavior};

const MODERATOR: &str = "mod@x.org";

fn ts(text: &str) -> Timestamp {
    text.parse().unwrap()
}

fn t0() -> Timestamp {
    ts("2026-05-01T12:00:00Z")
}

fn hours(n: i64) -> Timestamp {
    t0().checked_add(SignedDuration::from_hours(n)).unwrap()
}

/// A table with Alice (1), Bob (2) and Carol (3), active players, and MODERATOR
/// the bot's moderator; and every sentence answered, to check each has a wording.
struct Play {
    table: Table,
    /// The world before the first line, which `unretired` replays the log onto.
    start: games::World,
    sentences: Vec<Sentence>,
}

impl Play {
    fn new() -> Play {
        Play::with(Params::default())
    }

    fn with(vote: Params) -> Play {
        let mut world = games::World::default();
        for (id, name) in [(1, "Alice"), (2, "Bob"), (3, "Carol")] {
            world.apply_event(
                &games::Event::Players(players::Event::Joined {
                    id,
                    name: name.to_owned(),
                    address: Address::new(&format!("{}@x.org", name.to_lowercase())),
                }),
                ts("2026-01-01T00:00:00Z"),
            );
        }
        let officers = Officers {
            moderators: vec![Address::new(MODERATOR)],
            ..Officers::default()
        };
        let params = games::Params::new(
            players::Params::default(),
            officers,
            Calendar::default(),
            Arc::new(NoWords),
            GameParams {
                votes: vote,
                ..GameParams::default()
            },
        );
        Play {
            table: Table::new(world.clone(), params),
            start: world,
            sentences: Vec::new(),
        }
    }

    /// Ballot 1 on a question, opened by the moderator at t0.
    fn with_ballot() -> Play {
        let mut play = Play::new();
        play.run(MODERATOR, true, t0(), "open Should rule 326 pass?")
            .unwrap();
        play
    }

    /// A player's standing changes outside the game (before any line is sent).
    fn players_event(&mut self, event: players::Event, at: Timestamp) {
        let event = games::Event::Players(event);
        self.start.apply_event(&event, at);
        self.table.world.apply_event(&event, at);
    }

    /// One line under `[vote]`, through the router as the pipeline sends it (every
    /// deadline due first): its events and mail when done, else the sentence's code.
    fn run(
        &mut self,
        sender: &str,
        public: bool,
        at: Timestamp,
        line: &str,
    ) -> Result<(Vec<games::Event>, Vec<Mail>), String> {
        let Outcome { events, mail, .. } = self.table.message(at, sender, public, TAG, &[line]);
        let report = &self.table.last[0];
        if report.status != Status::NotUnderstood {
            self.sentences.push(report.sentence.clone());
        }
        match report.status {
            Status::Done => Ok((events, mail)),
            _ => Err(report.sentence.code.clone()),
        }
    }

    /// The mail the clock sends when it reaches `at`: whatever fell due before
    /// fires first and is not counted, as in the pipeline.
    fn tick(&mut self, at: Timestamp) -> Vec<Mail> {
        if let Ok(before) = at.checked_sub(SignedDuration::from_nanos(1)) {
            self.table.run_until(before);
        }
        let mark = self.table.mail.len();
        self.table.run_until(at);
        self.table.mail_since(mark).to_vec()
    }

    fn votes(&self) -> Arc<Votes> {
        self.table.state::<Vote>()
    }

    /// The world as the event log has it, before finished history retires from
    /// the live state (a revealed batch is dropped from the live sealed box).
    fn unretired(&self) -> games::World {
        let records: Vec<(Timestamp, &str, &games::Event)> = self
            .table
            .events
            .iter()
            .map(|(at, cause, event)| (*at, cause.as_str(), event))
            .collect();
        games::fold(self.start.clone(), &records)
    }

    /// What ballot `number`'s deadline records if it fires (again) at `at`, run
    /// in a transaction as the driver runs it.
    fn fire(&self, number: u32, at: Timestamp) -> Vec<Effect<Event>> {
        let params = &self.table.params;
        let mut tx = Tx::<Vote>::new(
            self.table.world.shared.clone(),
            self.votes(),
            &params.setting,
            params.game::<Vote>(),
            at,
        );
        let deadline = Deadline {
            id: batch_id(number),
            at,
            owner: TAG.to_owned(),
            who: None,
            what: format!("the result of ballot {number}"),
            remind: false,
        };
        let tick = Tick {
            caught_up_at: at,
            entropy: [0; 32],
        };
        Vote::on_deadline(&mut tx, &deadline, &tick);
        tx.finish().2
    }
}

fn templates(mail: &[Mail]) -> Vec<&str> {
    mail.iter().map(|m| m.template.as_str()).collect()
}

/// Renders a mail template of this game (or the sealed box's) the way the shell
/// does, with undefined values an error.
fn render(mail: &Mail) -> String {
    let source = match mail.template.as_str() {
        "vote_opened" => include_str!("../../../templates/vote_opened.txt"),
        "vote_result" => include_str!("../../../templates/vote_result.txt"),
        "sealed_commitments" => include_str!("../../../templates/sealed_commitments.txt"),
        "sealed_reveal" => include_str!("../../../templates/sealed_reveal.txt"),
        other => panic!("no template {other}"),
    };
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.add_template("t", source).unwrap();
    let text = env
        .get_template("t")
        .unwrap()
        .render(minijinja::Value::from(minijinja::value::Serde(
            &mail.values,
        )))
        .unwrap();
    assert!(text.starts_with("Subject: "), "{text}");
    text
}

#[test]
fn parse_forms() {
    let vote = |number, choice| Ok(Command::Vote { number, choice });
    assert_eq!(parse("yes"), vote(None, Choice::Yes));
    assert_eq!(parse("NO"), vote(None, Choice::No));
    assert_eq!(parse("3 yes"), vote(Some(3), Choice::Yes));
    assert_eq!(parse("vote 3 no"), vote(Some(3), Choice::No));
    assert_eq!(parse("vote #12 yes"), vote(Some(12), Choice::Yes));
    assert_eq!(parse("vote no"), vote(None, Choice::No));
    assert_eq!(
        parse("open Should  rule 326 pass?"),
        Ok(Command::Open {
            question: "Should rule 326 pass?".to_owned()
        })
    );
    assert_eq!(
        parse("close 3 because the rule was repealed"),
        Ok(Command::Close {
            number: 3,
            reason: "the rule was repealed".to_owned()
        })
    );
    assert_eq!(parse("ballots"), Ok(Command::Ballots));
    for (line, code) in [
        ("open", "usage"),
        ("close 3", "usage"),
        ("close x because y", "usage"),
        ("close 3 because ", "usage"),
        ("maybe", "unknown_command"),
        ("3 maybe", "unknown_command"),
        ("x yes", "unknown_command"),
        ("vote 3 yes please", "unknown_command"),
        ("", "unknown_command"),
    ] {
        assert_eq!(
            parse(line).map_err(|e| e.0.code),
            Err(code.to_owned()),
            "{line:?}"
        );
    }
    assert_eq!(ballot_of_deadline("vote:7"), Some(7));
    assert_eq!(ballot_of_deadline("vote:7:player:2"), None);
    assert_eq!(ballot_of_deadline("ghost:7"), None);
}

#[test]
fn only_a_moderator_opens_a_ballot() {
    let mut play = Play::new();
    assert_eq!(
        play.run("alice@x.org", true, t0(), "open Cake?").err(),
        Some("moderators_only".to_owned())
    );
    assert_eq!(
        play.run("alice@x.org", false, t0(), "close 1 because I said so")
            .err(),
        Some("moderators_only".to_owned())
    );
    assert!(play.votes().ballots.is_empty());
}

#[test]
fn opening_schedules_the_deadline_and_a_reminder_per_active_player() {
    let mut play = Play::new();
    // Carol is on vacation: not an active player, so not reminded.
    play.players_event(
        players::Event::VacationStarted {
            id: 3,
            until: hours(24 * 30),
        },
        t0(),
    );
    let (events, mail) = play
        .run(MODERATOR, true, t0(), "open Should rule 326 pass?")
        .unwrap();
    let deadline = hours(72);
    assert_eq!(
        events[0],
        games::Event::Vote(Event::Opened {
            number: 1,
            question: "Should rule 326 pass?".to_owned(),
            opened_by: Address::new(MODERATOR),
            deadline,
        })
    );
    assert_eq!(
        events[1],
        games::Event::Sealed(sealed::Event::Opened {
            batch: "vote:1".to_owned(),
            owner: "vote".to_owned(),
            deadline,
            title: "ballot 1".to_owned(),
        })
    );
    let schedule = &play.table.world.schedule;
    let scheduled: Vec<(String, Option<PlayerId>, bool)> = schedule
        .entries
        .iter()
        .map(|e| (e.deadline.id.clone(), e.deadline.who, e.deadline.remind))
        .collect();
    assert_eq!(
        scheduled,
        [
            ("vote:1".to_owned(), None, false),
            ("vote:1:player:1".to_owned(), Some(1), true),
            ("vote:1:player:2".to_owned(), Some(2), true),
        ]
    );
    assert!(
        schedule
            .entries
            .iter()
            .all(|e| e.deadline.at == deadline && e.deadline.owner == "vote")
    );
    assert_eq!(templates(&mail), ["vote_opened"]);
    assert_eq!(mail[0].to, Audience::List);
    let text = render(&mail[0]);
    assert!(text.contains("Should rule 326 pass?"), "{text}");
    assert!(text.contains("2026-05-04 12:00 UTC"), "{text}");
    // The next ballot takes the next number; the reminder is due 24 hours before.
    play.run(MODERATOR, true, t0(), "open Cake?").unwrap();
    assert_eq!(play.votes().ballots[1].number, 2);
    assert_eq!(
        play.table
            .world
            .schedule
            .next_due(SignedDuration::from_hours(24)),
        Some(hours(48))
    );
}

#[test]
fn a_vote_to_the_list_or_from_a_stranger_is_refused() {
    let mut play = Play::with_ballot();
    assert_eq!(
        play.run("alice@x.org", true, hours(1), "1 yes").err(),
        Some("vote_public".to_owned())
    );
    assert_eq!(
        play.run("mallory@x.org", false, hours(1), "yes").err(),
        Some("not_a_player".to_owned())
    );
    let sealed = &play.table.world.sealed;
    assert!(sealed.batch("vote:1").unwrap().actions.is_empty());
}

#[test]
fn a_late_vote_is_refused_naming_the_deadline() {
    let mut play = Play::with_ballot();
    // The ballot's deadline fires before a vote that arrives at it, as in the
    // pipeline: the vote finds it resolved.
    assert_eq!(
        play.run("alice@x.org", false, hours(72), "yes").err(),
        Some("vote_late".to_owned())
    );
    let refusal = play.sentences.last().unwrap();
    assert_eq!(refusal.args["deadline"], "2026-05-04 12:00 UTC");
    assert_eq!(refusal.args["number"], 1);
    // After the resolution too.
    play.tick(hours(72));
    assert_eq!(
        play.run("alice@x.org", false, hours(73), "1 yes").err(),
        Some("vote_late".to_owned())
    );
}

#[test]
fn a_vote_seals_privately_and_cancels_the_reminder() {
    let mut play = Play::with_ballot();
    let (events, mail) = play.run("bob@x.org", false, hours(1), "no").unwrap();
    assert!(mail.is_empty(), "a vote sends no mail");
    match &events[0] {
        games::Event::Sealed(sealed::Event::Sealed { batch, sealed }) => {
            assert_eq!(batch, "vote:1");
            assert_eq!(sealed.action_text, "no");
            assert_eq!(sealed.player, 2);
            assert_eq!(sealed.player_name, "Bob");
        }
        other => panic!("not a sealed action: {other:?}"),
    }
    assert_eq!(
        events[1],
        games::Event::Schedule(calendar::Event::Cancelled {
            id: "vote:1:player:2".to_owned()
        })
    );
    let schedule = &play.table.world.schedule;
    assert!(schedule.get("vote:1:player:2").is_none());
    assert!(schedule.get("vote:1:player:1").is_some());
    let sentence = play.sentences.last().unwrap();
    assert_eq!(sentence.code, "vote_sealed");
    assert_eq!(sentence.args["choice"], "no");
    // Only Alice and Carol are reminded, 24 hours before.
    let reminders = play.tick(hours(48));
    let to: Vec<&Audience> = reminders.iter().map(|m| &m.to).collect();
    assert_eq!(
        to,
        [
            &Audience::Address(Address::new("alice@x.org")),
            &Audience::Address(Address::new("carol@x.org"))
        ]
    );
}

#[test]
fn the_last_vote_counts_and_the_tally_is_right_after_the_deadline() {
    let mut play = Play::with_ballot();
    play.run("alice@x.org", false, hours(1), "yes").unwrap();
    play.run("bob@x.org", false, hours(2), "1 yes").unwrap();
    // Alice changes her mind; no second cancellation is needed.
    let (events, _) = play
        .run("alice@x.org", false, hours(3), "vote 1 no")
        .unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(play.sentences.last().unwrap().args["changed"], true);
    let mail = play.tick(hours(72));
    assert_eq!(
        templates(&mail),
        ["sealed_commitments", "sealed_reveal", "vote_result"]
    );
    let tally = play.votes().ballot(1).unwrap().closed.clone().unwrap();
    assert_eq!(
        tally,
        Tally {
            yes: 1,
            no: 1,
            voters: vec!["Alice".to_owned(), "Bob".to_owned()],
            forced_by: None,
            reason: None,
        }
    );
    let unretired = play.unretired();
    assert_eq!(
        unretired.sealed.batch("vote:1").unwrap().stage,
        Stage::Revealed
    );
    assert!(play.table.world.schedule.entries.is_empty());
    let text = render(&mail[2]);
    assert!(text.contains("Should rule 326 pass?"), "{text}");
    assert!(!text.contains("forced"), "{text}");
    // The sealed box's own check passes on the archived mails.
    let body = |m: &Mail| render(m).split_once('\n').unwrap().1.to_owned();
    assert_eq!(
        sealed::verify_sealed(&body(&mail[0]), &body(&mail[1])),
        Ok(3)
    );
    // A second firing changes nothing.
    assert!(play.fire(1, hours(72)).is_empty());
}

#[test]
fn a_forced_close_commits_before_it_reveals_and_names_the_officer() {
    let mut play = Play::with_ballot();
    play.run("alice@x.org", false, hours(1), "yes").unwrap();
    let (events, mail) = play
        .run(
            MODERATOR,
            false,
            hours(5),
            "close 1 because the rule was repealed",
        )
        .unwrap();
    assert_eq!(
        templates(&mail),
        ["sealed_commitments", "sealed_reveal", "vote_result"]
    );
    assert!(matches!(
        events[0],
        games::Event::Sealed(sealed::Event::Committed { .. })
    ));
    assert!(matches!(
        events[1],
        games::Event::Sealed(sealed::Event::Revealed { .. })
    ));
    let tally = play.votes().ballot(1).unwrap().closed.clone().unwrap();
    assert_eq!((tally.yes, tally.no), (1, 0));
    assert_eq!(tally.forced_by.as_deref(), Some(MODERATOR));
    assert_eq!(tally.reason.as_deref(), Some("the rule was repealed"));
    let text = render(&mail[2]);
    assert!(text.contains(MODERATOR), "{text}");
    assert!(text.contains("the rule was repealed"), "{text}");
    // Issue 29, item 6: the commitments and the reveal give the time the
    // ballot really closed, not the deadline it would have had.
    let closed = crate::engine::human_time(hours(5));
    for sealed_mail in &mail[..2] {
        let text = render(sealed_mail);
        assert!(
            text.contains(&format!("closed at {closed}, before")),
            "{text}"
        );
        assert!(!text.contains("passed at"), "{text}");
    }
    // Nothing is left to fire or to remind, up to and past the old deadline.
    assert!(play.table.world.schedule.entries.is_empty());
    let mark = play.table.mail.len();
    play.table.run_until(hours(100));
    assert!(play.table.mail_since(mark).is_empty());
    assert_eq!(
        play.run(MODERATOR, false, hours(6), "close 1 because again")
            .err(),
        Some("vote_already_closed".to_owned())
    );
}

#[test]
fn which_ballot_when_several_are_open() {
    let mut play = Play::new();
    assert_eq!(
        play.run("alice@x.org", false, t0(), "yes").err(),
        Some("vote_none_open".to_owned())
    );
    play.run(MODERATOR, true, t0(), "open Cake?").unwrap();
    play.run(MODERATOR, true, t0(), "open Pie?").unwrap();
    assert_eq!(
        play.run("alice@x.org", false, hours(1), "yes").err(),
        Some("vote_which".to_owned())
    );
    assert_eq!(
        play.run("alice@x.org", false, hours(1), "9 yes").err(),
        Some("vote_no_such_ballot".to_owned())
    );
    play.run("alice@x.org", false, hours(1), "2 yes").unwrap();
    play.run("alice@x.org", false, hours(1), "ballots").unwrap();
    let listed = &play.sentences.last().unwrap().args["ballots"];
    assert_eq!(listed.as_array().map(Vec::len), Some(2));
}

#[test]
fn every_sentence_has_a_wording() {
    let mut play = Play::new();
    let _ = play.run("alice@x.org", false, t0(), "yes");
    let _ = play.run(MODERATOR, true, t0(), "open Cake?");
    let _ = play.run(MODERATOR, true, t0(), "open Pie?");
    let _ = play.run("alice@x.org", false, hours(1), "yes");
    let _ = play.run("alice@x.org", false, hours(1), "9 yes");
    let _ = play.run("alice@x.org", true, hours(1), "1 yes");
    let _ = play.run("alice@x.org", false, hours(1), "1 yes");
    let _ = play.run("alice@x.org", false, hours(1), "ballots");
    let _ = play.run(MODERATOR, false, hours(2), "close 1 because enough");
    let _ = play.run(MODERATOR, false, hours(2), "close 1 because enough");
    let _ = play.run("alice@x.org", false, hours(200), "2 no");
    // A ballot of zero days is refused, naming the parameter.
    let mut zero_days = Play::with(Params { days: 0 });
    let bad_days = zero_days.run(MODERATOR, true, t0(), "open x");
    assert_eq!(
        bad_days.err(),
        Some("vote_bad_days".to_owned()),
        "zero days accepted"
    );
    let mut sentences = play.sentences.clone();
    sentences.extend(zero_days.sentences);
    sentences.push(box_error(&SealError::Exists("vote:1".to_owned())).0);
    let codes: Vec<&str> = sentences
        .iter()
        .map(|s| s.code.as_str())
        .filter(|c| c.starts_with("vote_"))
        .collect();
    for code in [
        "vote_opened",
        "vote_sealed",
        "vote_public",
        "vote_late",
        "vote_which",
        "vote_none_open",
        "vote_no_such_ballot",
        "vote_already_closed",
        "vote_closed",
        "vote_ballots",
        "vote_bad_days",
        "vote_box_error",
    ] {
        assert!(codes.contains(&code), "{code} not exercised");
    }
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.add_template(
        "sentences/vote.txt",
        include_str!("../../../templates/sentences/vote.txt"),
    )
    .unwrap();
    env.add_template(
        "t",
        "{% import \"sentences/vote.txt\" as vote %}{{ vote.sentence(s) }}",
    )
    .unwrap();
    for sentence in sentences.iter().filter(|s| s.code.starts_with("vote_")) {
        let text = env
            .get_template("t")
            .unwrap()
            .render(minijinja::context! { s => minijinja::Value::from(minijinja::value::Serde(sentence)) })
            .unwrap_or_else(|e| panic!("{}: {e:#}", sentence.code));
        assert!(!text.contains("[no wording"), "{text}");
        assert!(!text.trim().is_empty(), "{}", sentence.code);
    }
}
