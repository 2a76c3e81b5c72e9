//! What the history and scale benchmarks both play on the pure engine: a
//! moderator and ten voters, and ballots voted and resolved.

use std::sync::Arc;

use jiff::{SignedDuration, Timestamp};
use nomicbot::config::Config;
use nomicbot::games::World;
use nomicbot::games::table::Table;

pub const MODERATOR: &str = "mod@nomic.example";
pub const VOTERS: usize = 10;

pub fn address(name: &str) -> String {
    format!("{}@nomic.example", name.to_lowercase())
}

/// A table where the moderator and the voters joined at `start`, and then
/// `ballots` ballots of ten votes were opened a minute apart and each resolved
/// at its deadline. Returns the table and the time it was played up to.
#[allow(dead_code)]
pub fn voted(config: &Config, start: Timestamp, ballots: usize) -> (Table, Timestamp) {
    let lexicon = Arc::new(nomicbot::engine::game::NoWords);
    let params = nomicbot::pipeline::game_params(config, lexicon);
    let mut world = World::default();
    Arc::make_mut(&mut world.shared.accounts).currencies = config.accounts.currency.clone();
    let mut table = Table::new(world, params);
    let at = vote_on(&mut table, start, ballots);
    (table, at)
}

/// On `table`, at `start`: the moderator and the voters join (a name already
/// taken is refused), and `ballots` ballots are voted and resolved as in
/// `voted`. Returns the time played up to.
pub fn vote_on(table: &mut Table, start: Timestamp, ballots: usize) -> Timestamp {
    let names: Vec<String> = (0..VOTERS).map(|i| format!("Voter{i}")).collect();
    table.send(start, MODERATOR, true, "nomic", "join Mod");
    for name in &names {
        table.send(
            start,
            &address(name),
            true,
            "nomic",
            &format!("join {name}"),
        );
    }
    let mut at = start;
    for _ in 0..ballots {
        at += SignedDuration::from_mins(1);
        table.send(at, MODERATOR, true, "vote", "open Shall we?");
        for (i, name) in names.iter().enumerate() {
            let vote = if i % 2 == 0 { "yes" } else { "no" };
            table.send(at, &address(name), false, "vote", vote);
        }
        at += SignedDuration::from_hours(24 * 4);
        table.run_until(at);
    }
    at
}

/// A table where the moderator and `players` players joined at `start`, one
/// ballot was opened, and then `votes` sealed votes were cast on it, the players
/// taking turns and each changing eir vote again and again: the ballot stays
/// open. The first vote of each player goes through the engine; the rest are
/// copies of those events with their own text, salt and time, applied as the
/// pipeline applies events (playing them all as messages would time the old
/// cost of a vote, not the history). Returns the table and the time of the
/// last vote.
#[allow(dead_code)]
pub fn open_ballot(
    config: &Config,
    start: Timestamp,
    players: usize,
    votes: usize,
) -> (Table, Timestamp) {
    let (mut table, names) = joined(config, start, players);
    let at = vote_on_open_ballot(&mut table, &names, start, votes);
    (table, at)
}

/// On `table`, after `start`: one ballot opened, then `votes` sealed votes on
/// it by `names` taking turns (see `open_ballot`). Returns the time of the
/// last vote.
pub fn vote_on_open_ballot(
    table: &mut Table,
    names: &[String],
    start: Timestamp,
    votes: usize,
) -> Timestamp {
    use nomicbot::engine::sealed;
    use nomicbot::games::Event;
    let mut at = start + SignedDuration::from_mins(1);
    table.send(
        at,
        MODERATOR,
        true,
        "vote",
        "open Shall we keep changing our minds?",
    );
    let mut firsts = Vec::new();
    for name in names.iter().take(votes) {
        at += SignedDuration::from_secs(1);
        table.send(at, &address(name), false, "vote", "yes");
        let last = table
            .events
            .iter()
            .rev()
            .find_map(|(_, _, event)| match event {
                Event::Sealed(sealed::Event::Sealed { batch, sealed }) => {
                    Some((batch.clone(), sealed.clone()))
                }
                _ => None,
            });
        firsts.push(last.expect("a sealed vote"));
    }
    let mut chunk = Vec::new();
    for i in firsts.len()..votes {
        at += SignedDuration::from_secs(1);
        let (batch, first) = &firsts[i % firsts.len()];
        let mut vote = first.clone();
        vote.action_text = if (i / firsts.len()) % 2 == 0 {
            "no"
        } else {
            "yes"
        }
        .to_owned();
        vote.salt_hex = sealed::derive_salt(&[9; 32], batch, i as u64);
        vote.sealed_at = at;
        chunk.push(Event::Sealed(sealed::Event::Sealed {
            batch: batch.clone(),
            sealed: vote,
        }));
        if chunk.len() == 1000 {
            table.record(at, &chunk);
            chunk.clear();
        }
    }
    table.record(at, &chunk);
    at
}

/// A table where the moderator and `players` players joined at `start`; the
/// players' names.
#[allow(dead_code)]
pub fn joined(config: &Config, start: Timestamp, players: usize) -> (Table, Vec<String>) {
    let lexicon = Arc::new(nomicbot::engine::game::NoWords);
    let params = nomicbot::pipeline::game_params(config, lexicon);
    let mut world = World::default();
    Arc::make_mut(&mut world.shared.accounts).currencies = config.accounts.currency.clone();
    let mut table = Table::new(world, params);
    table.send(start, MODERATOR, true, "nomic", "join Mod");
    let names: Vec<String> = (0..players).map(player_name).collect();
    for name in &names {
        table.send(
            start,
            &address(name),
            true,
            "nomic",
            &format!("join {name}"),
        );
    }
    (table, names)
}

/// Names no two of which look alike: the prefix and letters none of which,
/// alone or side by side, reads as another (no `rn` for `m`, no `l` for `I`).
pub fn player_name(i: usize) -> String {
    const LETTERS: &[u8] = b"abefhkpstxyz";
    let mut name = String::from("Pl");
    let mut n = i;
    loop {
        name.push(char::from(LETTERS[n % LETTERS.len()]));
        n /= LETTERS.len();
        if n == 0 {
            break;
        }
    }
    name
}
