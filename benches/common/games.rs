//! What the history benchmark plays beyond ballots, on the pure engine: a game
//! of Gnomic with an open turn whose votes keep changing, and a running game of
//! Ghost with many moves.

use jiff::{SignedDuration, Timestamp};
use nomicbot::config::Config;
use nomicbot::games::table::Table;
use nomicbot::games::{self, Event};

use super::voters::{MODERATOR, address, joined};

/// The Gnomic list's address and the bot's: where a line goes decides
/// whether it is public.
pub const LIST: &str = "game-list@nomic.example";
pub const BOT: &str = "bot@nomic.example";

/// One message of one line, as the pipeline gets it.
#[derive(Debug, Clone)]
pub struct Line {
    pub from: String,
    pub public: bool,
    pub tag: String,
    pub text: String,
}

impl Line {
    fn new(from: &str, public: bool, tag: &str, text: &str) -> Line {
        Line {
            from: from.to_owned(),
            public,
            tag: tag.to_owned(),
            text: text.to_owned(),
        }
    }

    fn send(&self, table: &mut Table, at: Timestamp) {
        table.send(at, &self.from, self.public, &self.tag, &self.text);
    }

    /// The mail's To and Subject.
    pub fn to_subject(&self) -> (&'static str, String) {
        let to = if self.public { LIST } else { BOT };
        (to, format!("[{}] {}", self.tag, self.text))
    }
}

/// A game played up to a moment, and what is sent next: the message `i` of
/// the measured ones.
pub struct Played {
    pub table: Table,
    pub at: Timestamp,
    /// How many of the table's events are the game's own kind (its events and
    /// the sealed actions it holds).
    pub kind_events: usize,
    pub next: Box<dyn Fn(usize) -> Line>,
}

fn count_kind(table: &Table, of: impl Fn(&Event) -> bool) -> usize {
    table.events.iter().filter(|(_, _, e)| of(e)).count()
}

/// How many players the Gnomic game has.
pub const GNOMIC_PLAYERS: usize = 20;
/// Turns taken and counted before the open one.
const GNOMIC_TURNS: usize = 5;

/// A game of Gnomic among the moderator and 19 players: five turns taken
/// (a hack each, everyone voting, rejected), then a sixth posted and left open
/// while all but one of the others vote and change their votes again and
/// again, up to `events` events of Gnomic and sealed votes. The one who never
/// votes keeps the turn open until its 72 hours. The first vote of each voter
/// goes through the engine; the rest are copies of its events with their own
/// choice, salt and time (as `voters::vote_on_open_ballot` does).
pub fn gnomic_open_turn(config: &Config, start: Timestamp, events: usize) -> Played {
    use nomicbot::engine::sealed;
    let (mut table, names) = joined(config, start, GNOMIC_PLAYERS - 1);
    let is_kind = |e: &Event| matches!(e, Event::Gnomic(_) | Event::Sealed(_));
    let mut at = start + SignedDuration::from_mins(1);
    table.send(at, MODERATOR, true, "gnomic", "start");
    // The order of play is alphabetical: Mod first, then the players.
    let mut order: Vec<(String, String)> = vec![("Mod".to_owned(), MODERATOR.to_owned())];
    let mut sorted = names.clone();
    sorted.sort_by_key(|n| n.to_lowercase());
    order.extend(sorted.iter().map(|n| (n.clone(), address(n))));
    let next_hack = |table: &Table| {
        let state = table.state::<games::gnomic::Gnomic>();
        let highest = table.world.ruleset.next_free_number().saturating_sub(1);
        state.last_ordinal.max(highest).max(300) + 1
    };
    let post = |table: &mut Table, at: Timestamp, mover: &str, hack: u32| {
        let _outcome = table.message(
            at,
            mover,
            true,
            "gnomic",
            &[
                "turn",
                &format!("hack {hack} \"Rule {hack}\""),
                "enact",
                "Umbrellas are green.",
                "end",
            ],
        );
        assert!(
            table.state::<games::gnomic::Gnomic>().open.is_some(),
            "turn {hack} was not posted: {:?}",
            table.last
        );
    };
    for turn in 0..GNOMIC_TURNS {
        at += SignedDuration::from_mins(1);
        let hack = next_hack(&table);
        post(&mut table, at, &order[turn % order.len()].1, hack);
        for (k, (_, voter)) in order.iter().enumerate() {
            if k == turn % order.len() {
                continue;
            }
            at += SignedDuration::from_secs(1);
            // Rejected, abstained on: an adopted rule would change the
            // ruleset the count's bindings follow, and hold the next count for
            // a moderator's ruling.
            let choice = if k % 3 == 0 { "abstain" } else { "against" };
            table.send(at, voter, false, "gnomic", &format!("vote {hack} {choice}"));
        }
        at += SignedDuration::from_mins(1);
        table.run_until(at);
        assert!(
            table.state::<games::gnomic::Gnomic>().open.is_none(),
            "turn {turn} was not counted: {:?}",
            table.state::<games::gnomic::Gnomic>().open
        );
    }
    // The open turn: the mover after the last, and one player who never votes.
    let mover = GNOMIC_TURNS % order.len();
    let silent = (mover + 1) % order.len();
    at += SignedDuration::from_mins(1);
    let hack = next_hack(&table);
    post(&mut table, at, &order[mover].1, hack);
    let voters: Vec<String> = order
        .iter()
        .enumerate()
        .filter(|(k, _)| *k != mover && *k != silent)
        .map(|(_, (_, a))| a.clone())
        .collect();
    let mut firsts: Vec<Vec<Event>> = Vec::new();
    for voter in &voters {
        at += SignedDuration::from_secs(1);
        let before = table.events.len();
        table.send(at, voter, false, "gnomic", &format!("vote {hack} for"));
        firsts.push(
            table.events[before..]
                .iter()
                .map(|(_, _, e)| e.clone())
                .collect(),
        );
        assert!(
            firsts.last().is_some_and(|e| !e.is_empty()),
            "{voter}'s vote was refused: {:?}",
            table.last
        );
    }
    let mut kind = count_kind(&table, is_kind);
    let mut chunk = Vec::new();
    let mut i = 0usize;
    while kind < events {
        at += SignedDuration::from_secs(1);
        let choice = if (i / voters.len()).is_multiple_of(2) {
            "against"
        } else {
            "for"
        };
        for event in &firsts[i % voters.len()] {
            let mut event = event.clone();
            if let Event::Sealed(sealed::Event::Sealed { batch, sealed }) = &mut event {
                sealed.action_text = sealed.action_text.replace("for", choice);
                sealed.salt_hex = sealed::derive_salt(&[7; 32], batch, i as u64);
                sealed.sealed_at = at;
            }
            kind += usize::from(is_kind(&event));
            chunk.push(event);
        }
        i += 1;
        if chunk.len() >= 1000 {
            table.record(at, &chunk);
            chunk.clear();
        }
    }
    table.record(at, &chunk);
    let kind_events = count_kind(&table, is_kind);
    Played {
        table,
        at,
        kind_events,
        next: Box::new(move |i| {
            let choice = if i % 2 == 0 { "against" } else { "for" };
            Line::new(
                &voters[i % voters.len()],
                false,
                "gnomic",
                &format!("vote {hack} {choice}"),
            )
        }),
    }
}

/// A running game of Ghost among three players refereed by the moderator, with
/// `events` events of Ghost: each round the three play a letter in turn and
/// the second protests the third's word as a word (a protest looked up at
/// once: too short, so invalid and the protester is out) until the referee
/// seats em again and clears the word. The rounds after the first ten are
/// copies of the tenth's events (a round ends where it began, but for the
/// instance's history), applied as the pipeline applies events.
pub fn ghost_running(config: &Config, start: Timestamp, events: usize) -> Played {
    let (mut table, names) = joined(config, start, 3);
    let is_kind = |e: &Event| matches!(e, Event::Ghost(_));
    let mut at = start + SignedDuration::from_mins(1);
    table.send(
        at,
        MODERATOR,
        true,
        "ghost",
        &format!("start with {}", names.join(", ")),
    );
    let instance = table
        .state::<games::ghost::game::Ghost>()
        .open_instances()
        .next()
        .cloned()
        .expect("the game of Ghost started");
    let seat = |k: usize| instance.seats[k].name.clone();
    let order: Vec<String> = (0..3).map(seat).collect();
    let round: Vec<Line> = ghost_round(&order);
    let mut played_rounds = 0;
    let mut last_round: Vec<Event> = Vec::new();
    while count_kind(&table, is_kind) < events && played_rounds < 10 {
        let before = table.events.len();
        for line in &round {
            at += SignedDuration::from_secs(1);
            line.send(&mut table, at);
            assert!(
                table
                    .last
                    .iter()
                    .all(|r| r.status == nomicbot::engine::Status::Done),
                "{line:?} was refused: {:?}",
                table.last
            );
        }
        last_round = table.events[before..]
            .iter()
            .map(|(_, _, e)| e.clone())
            .collect();
        played_rounds += 1;
    }
    let per_round = last_round.iter().filter(|e| is_kind(e)).count().max(1);
    let mut kind = count_kind(&table, is_kind);
    while kind < events {
        table.record(at, &last_round);
        kind += per_round;
    }
    let kind_events = count_kind(&table, is_kind);
    Played {
        table,
        at,
        kind_events,
        next: Box::new(move |i| round[i % round.len()].clone()),
    }
}

/// One round of Ghost among `order` (the seats 1, 2, 3), beginning with seat
/// 1's turn and no ghost word, and ending so.
fn ghost_round(order: &[String]) -> Vec<Line> {
    let [first, second, third] = order else {
        panic!("three players: {order:?}");
    };
    let play = |who: &str, text: &str| Line::new(&address(who), true, "ghost", text);
    vec![
        play(first, "q"),
        play(second, "qz"),
        play(third, "qzx"),
        play(first, "protest word"),
        Line::new(
            MODERATOR,
            true,
            "ghost",
            &format!("order {first}, {second}, {third} because back in after a bench's protest"),
        ),
        Line::new(MODERATOR, true, "ghost", "clear word because a bench"),
        Line::new(
            MODERATOR,
            true,
            "ghost",
            &format!("turn {first} because a bench's round begins"),
        ),
    ]
}
