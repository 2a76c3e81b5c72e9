//! Unit tests of the ballot's whole life on the pure engine: parsing, sealing,
//! reminders, the tally and every sentence's wording.

use super::rules::box_error;
use super::*;
use crate::engine::calendar::Schedule;
use crate::engine::players::{Event as PlayerEvent, Registry};
use crate::engine::sealed::{SealError, SealedBox, Stage};
use crate::engine::{Audience, Ctx, Mail, NotUnderstood, Refusal, Sentence};
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

/// Everything a vote touches, changed only through the recorded `Change`s.
#[derive(Default)]
struct World {
    votes: Votes,
    sealed: SealedBox,
    schedule: Schedule,
    players: Registry,
    /// Every sentence answered, to check each has a wording.
    sentences: Vec<Sentence>,
}

impl World {
    /// Alice (1), Bob (2) and Carol (3), active players.
    fn new() -> World {
        let mut world = World::default();
        for (id, name) in [(1, "Alice"), (2, "Bob"), (3, "Carol")] {
            world.players.apply_event(
                &PlayerEvent::Joined {
                    id,
                    name: name.to_owned(),
                    address: Address::new(&format!("{}@x.org", name.to_lowercase())),
                },
                ts("2026-01-01T00:00:00Z"),
            );
        }
        world
    }

    fn record(&mut self, changes: &[Change], at: Timestamp) {
        for change in changes {
            match change {
                Change::Vote(event) => self.votes.apply_event(event, at),
                Change::Sealed(event) => self.sealed.apply_event(event),
                Change::Schedule(event) => self.schedule.apply_event(event, at),
            }
        }
    }

    /// Applies a line as the router would; returns the done command's changes
    /// and mail, or the refusal's code.
    fn run(
        &mut self,
        sender: &str,
        public: bool,
        at: Timestamp,
        line: &str,
    ) -> Result<(Vec<Change>, Vec<Mail>), String> {
        let ctx = Ctx {
            now: at,
            sender: Address::new(sender),
            sender_name: None,
            public,
            entropy: [9; 32],
        };
        let command = parse(line).map_err(|NotUnderstood(s)| s.code)?;
        match self.votes.apply(
            command,
            &ctx,
            &self.players,
            &self.sealed,
            &Params::default(),
            sender == MODERATOR,
        ) {
            Ok(done) => {
                self.sentences.push(done.sentence);
                self.record(&done.events, at);
                Ok((done.events, done.mail))
            }
            Err(Refusal(sentence)) => {
                let code = sentence.code.clone();
                self.sentences.push(sentence);
                Err(code)
            }
        }
    }

    /// Ballot 1 on a question, opened by the moderator at t0.
    fn with_ballot() -> World {
        let mut world = World::new();
        world
            .run(MODERATOR, true, t0(), "open Should rule 326 pass?")
            .unwrap();
        world
    }

    /// What the router does when the clock reaches `at`: the sealed box commits
    /// first, then the schedule fires and each fired ballot deadline resolves.
    fn tick(&mut self, at: Timestamp) -> Vec<Mail> {
        let (events, mut mail) = self.sealed.tick(at);
        for event in &events {
            self.sealed.apply_event(event);
        }
        let (events, reminders) =
            self.schedule
                .tick(at, SignedDuration::from_hours(24), &self.players, at);
        mail.extend(reminders);
        let fired = self.schedule.fired_in(&events);
        for event in &events {
            self.schedule.apply_event(event, at);
        }
        for deadline in fired {
            if let Some(number) = ballot_of_deadline(&deadline.id) {
                let (changes, more) = self.votes.resolve(number, &self.sealed, at, None);
                self.record(&changes, at);
                mail.extend(more);
            }
        }
        mail
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
    let mut world = World::new();
    assert_eq!(
        world.run("alice@x.org", true, t0(), "open Cake?"),
        Err("moderators_only".to_owned())
    );
    assert_eq!(
        world.run("alice@x.org", false, t0(), "close 1 because I said so"),
        Err("moderators_only".to_owned())
    );
    assert!(world.votes.ballots.is_empty());
}

#[test]
fn opening_schedules_the_deadline_and_a_reminder_per_active_player() {
    let mut world = World::new();
    // Carol is on vacation: not an active player, so not reminded.
    world.players.apply_event(
        &PlayerEvent::VacationStarted {
            id: 3,
            until: hours(24 * 30),
        },
        t0(),
    );
    let (changes, mail) = world
        .run(MODERATOR, true, t0(), "open Should rule 326 pass?")
        .unwrap();
    let deadline = hours(72);
    assert_eq!(
        changes[0],
        Change::Vote(Event::Opened {
            number: 1,
            question: "Should rule 326 pass?".to_owned(),
            opened_by: Address::new(MODERATOR),
            deadline,
        })
    );
    assert_eq!(
        changes[1],
        Change::Sealed(sealed::Event::Opened {
            batch: "vote:1".to_owned(),
            owner: "vote".to_owned(),
            deadline,
        })
    );
    let scheduled: Vec<(String, Option<PlayerId>, bool)> = world
        .schedule
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
        world
            .schedule
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
    world.run(MODERATOR, true, t0(), "open Cake?").unwrap();
    assert_eq!(world.votes.ballots[1].number, 2);
    assert_eq!(
        world.schedule.next_due(SignedDuration::from_hours(24)),
        Some(hours(48))
    );
}

#[test]
fn a_vote_to_the_list_or_from_a_stranger_is_refused() {
    let mut world = World::with_ballot();
    assert_eq!(
        world.run("alice@x.org", true, hours(1), "1 yes"),
        Err("vote_public".to_owned())
    );
    assert_eq!(
        world.run("mallory@x.org", false, hours(1), "yes"),
        Err("not_a_player".to_owned())
    );
    assert!(world.sealed.batch("vote:1").unwrap().actions.is_empty());
}

#[test]
fn a_late_vote_is_refused_naming_the_deadline() {
    let mut world = World::with_ballot();
    assert_eq!(
        world.run("alice@x.org", false, hours(72), "yes"),
        Err("vote_late".to_owned())
    );
    let refusal = world.sentences.last().unwrap();
    assert_eq!(refusal.args["deadline"], "2026-05-04 12:00 UTC");
    assert_eq!(refusal.args["number"], 1);
    // After the resolution too.
    world.tick(hours(72));
    assert_eq!(
        world.run("alice@x.org", false, hours(73), "1 yes"),
        Err("vote_late".to_owned())
    );
}

#[test]
fn a_vote_seals_privately_and_cancels_the_reminder() {
    let mut world = World::with_ballot();
    let (changes, mail) = world.run("bob@x.org", false, hours(1), "no").unwrap();
    assert!(mail.is_empty(), "a vote sends no mail");
    match &changes[0] {
        Change::Sealed(sealed::Event::Sealed { batch, sealed }) => {
            assert_eq!(batch, "vote:1");
            assert_eq!(sealed.action_text, "no");
            assert_eq!(sealed.player, 2);
            assert_eq!(sealed.player_name, "Bob");
        }
        other => panic!("not a sealed action: {other:?}"),
    }
    assert_eq!(
        changes[1],
        Change::Schedule(calendar::Event::Cancelled {
            id: "vote:1:player:2".to_owned()
        })
    );
    assert!(world.schedule.get("vote:1:player:2").is_none());
    assert!(world.schedule.get("vote:1:player:1").is_some());
    let sentence = world.sentences.last().unwrap();
    assert_eq!(sentence.code, "vote_sealed");
    assert_eq!(sentence.args["choice"], "no");
    // Only Alice and Carol are reminded, 24 hours before.
    let reminders = world.tick(hours(48));
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
    let mut world = World::with_ballot();
    world.run("alice@x.org", false, hours(1), "yes").unwrap();
    world.run("bob@x.org", false, hours(2), "1 yes").unwrap();
    // Alice changes her mind; no second cancellation is needed.
    let (changes, _) = world
        .run("alice@x.org", false, hours(3), "vote 1 no")
        .unwrap();
    assert_eq!(changes.len(), 1);
    assert_eq!(world.sentences.last().unwrap().args["changed"], true);
    let mail = world.tick(hours(72));
    assert_eq!(
        templates(&mail),
        ["sealed_commitments", "sealed_reveal", "vote_result"]
    );
    let tally = world.votes.ballot(1).unwrap().closed.clone().unwrap();
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
    assert_eq!(world.sealed.batch("vote:1").unwrap().stage, Stage::Revealed);
    assert!(world.schedule.entries.is_empty());
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
    let (changes, mail) = world.votes.resolve(1, &world.sealed, hours(72), None);
    assert!(changes.is_empty() && mail.is_empty());
}

#[test]
fn a_forced_close_commits_before_it_reveals_and_names_the_officer() {
    let mut world = World::with_ballot();
    world.run("alice@x.org", false, hours(1), "yes").unwrap();
    let (changes, mail) = world
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
        changes[0],
        Change::Sealed(sealed::Event::Committed { .. })
    ));
    assert!(matches!(
        changes[1],
        Change::Sealed(sealed::Event::Revealed { .. })
    ));
    let tally = world.votes.ballot(1).unwrap().closed.clone().unwrap();
    assert_eq!((tally.yes, tally.no), (1, 0));
    assert_eq!(tally.forced_by.as_deref(), Some(MODERATOR));
    assert_eq!(tally.reason.as_deref(), Some("the rule was repealed"));
    let text = render(&mail[2]);
    assert!(text.contains(MODERATOR), "{text}");
    assert!(text.contains("the rule was repealed"), "{text}");
    // Nothing is left to fire or to remind.
    assert!(world.schedule.entries.is_empty());
    assert!(world.tick(hours(100)).is_empty());
    assert_eq!(
        world.run(MODERATOR, false, hours(6), "close 1 because again"),
        Err("vote_already_closed".to_owned())
    );
}

#[test]
fn which_ballot_when_several_are_open() {
    let mut world = World::new();
    assert_eq!(
        world.run("alice@x.org", false, t0(), "yes"),
        Err("vote_none_open".to_owned())
    );
    world.run(MODERATOR, true, t0(), "open Cake?").unwrap();
    world.run(MODERATOR, true, t0(), "open Pie?").unwrap();
    assert_eq!(
        world.run("alice@x.org", false, hours(1), "yes"),
        Err("vote_which".to_owned())
    );
    assert_eq!(
        world.run("alice@x.org", false, hours(1), "9 yes"),
        Err("vote_no_such_ballot".to_owned())
    );
    world.run("alice@x.org", false, hours(1), "2 yes").unwrap();
    world
        .run("alice@x.org", false, hours(1), "ballots")
        .unwrap();
    let listed = &world.sentences.last().unwrap().args["ballots"];
    assert_eq!(listed.as_array().map(Vec::len), Some(2));
}

#[test]
fn every_sentence_has_a_wording() {
    let mut world = World::new();
    let _ = world.run("alice@x.org", false, t0(), "yes");
    let _ = world.run(MODERATOR, true, t0(), "open Cake?");
    let _ = world.run(MODERATOR, true, t0(), "open Pie?");
    let _ = world.run("alice@x.org", false, hours(1), "yes");
    let _ = world.run("alice@x.org", false, hours(1), "9 yes");
    let _ = world.run("alice@x.org", true, hours(1), "1 yes");
    let _ = world.run("alice@x.org", false, hours(1), "1 yes");
    let _ = world.run("alice@x.org", false, hours(1), "ballots");
    let _ = world.run(MODERATOR, false, hours(2), "close 1 because enough");
    let _ = world.run(MODERATOR, false, hours(2), "close 1 because enough");
    let _ = world.run("alice@x.org", false, hours(200), "2 no");
    let ctx = Ctx {
        now: t0(),
        sender: Address::new(MODERATOR),
        sender_name: None,
        public: true,
        entropy: [0; 32],
    };
    let bad_days = world.votes.apply(
        Command::Open {
            question: "x".to_owned(),
        },
        &ctx,
        &world.players,
        &world.sealed,
        &Params { days: 0 },
        true,
    );
    let Err(Refusal(bad_days)) = bad_days else {
        panic!("zero days accepted")
    };
    let mut sentences = world.sentences.clone();
    sentences.push(bad_days);
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
