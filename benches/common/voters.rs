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
pub fn voted(config: &Config, start: Timestamp, ballots: usize) -> (Table, Timestamp) {
    let lexicon = Arc::new(nomicbot::engine::game::NoWords);
    let params = nomicbot::pipeline::game_params(config, lexicon);
    let mut world = World::default();
    Arc::make_mut(&mut world.shared.accounts).currencies = config.accounts.currency.clone();
    let mut table = Table::new(world, params);
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
    (table, at)
}
