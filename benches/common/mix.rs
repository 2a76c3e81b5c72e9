//! Every registered game's sample played again and again on one table, on the
//! pure engine: the scale benchmark's mix of every game's events.

use jiff::Timestamp;
use nomicbot::config::Config;
use nomicbot::engine::game::Script;
use nomicbot::games;
use nomicbot::games::table::Table;

use super::voters::address;

/// A `Script` on a table whose minutes count from `offset` minutes after the
/// samples' start: the samples played again later on the same table.
struct Later<'t> {
    table: &'t mut Table,
    offset: i64,
}

impl Script for Later<'_> {
    fn send(&mut self, minutes: i64, from: &str, public: bool, tag: &str, lines: &[&str]) {
        let at = nomicbot::samples::at(self.offset + minutes);
        let _outcome = self.table.message(at, &address(from), public, tag, lines);
        if std::env::var_os("BENCH_SHOW_REFUSED").is_some() {
            for r in &self.table.last {
                if r.status != nomicbot::engine::Status::Done {
                    eprintln!("[{tag}] {from}: {} -> {:?}", r.line, r.sentence);
                }
            }
        }
    }

    fn wait(&mut self, minutes: i64) {
        self.table
            .run_until(nomicbot::samples::at(self.offset + minutes));
    }

    fn view(&self, game: &str) -> serde_json::Value {
        let now = self
            .table
            .events
            .last()
            .map_or(nomicbot::samples::START, |(at, _, _)| *at);
        games::state_of(&self.table.world, &self.table.params, game, true, now)
            .map_or(serde_json::Value::Null, |(view, _)| view)
    }

    fn say(&mut self, _text: &str) {}
}

/// How far apart two samples begin on the one table: longer than any lasts.
const SAMPLE_DAYS: i64 = 30;

/// Every registered game's sample, after the samples' setup, played `rounds`
/// times on one table, each sample 30 days after the last (a sample that
/// cannot start again where the last left off refuses what it cannot do, as
/// the bot would). Returns the table and the time played up to.
pub fn every_game(config: &Config, rounds: usize) -> (Table, Timestamp) {
    let mut stage = nomicbot::samples::OnTable {
        table: nomicbot::samples::new_table(config),
        said: Vec::new(),
    };
    nomicbot::samples::setup(&mut stage);
    let mut table = stage.table;
    let samples = games::samples();
    for round in 0..rounds {
        for (k, sample) in samples.iter().enumerate() {
            let offset = ((round * samples.len() + k) as i64) * SAMPLE_DAYS * 24 * 60;
            // The samples before spent and lost points: each starts rich.
            let lines: Vec<String> = nomicbot::samples::PLAYERS
                .iter()
                .map(|name| format!("adjust {name} 100 points because a sample begins"))
                .collect();
            let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
            let _outcome = table.message(
                nomicbot::samples::at(offset - 1),
                &address(nomicbot::samples::PLAYERS[0]),
                false,
                "nomic",
                &lines,
            );
            (sample.play)(&mut Later {
                table: &mut table,
                offset,
            });
        }
    }
    let offset = (rounds * samples.len()) as i64 * SAMPLE_DAYS * 24 * 60;
    let at = nomicbot::samples::at(offset);
    table.run_until(at);
    (table, at)
}

/// How many of `table`'s events each game (or shared part) made, by the name
/// the log gives it.
pub fn events_by_game(table: &Table) -> Vec<(String, usize)> {
    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
    for (_, _, event) in &table.events {
        let json = serde_json::to_value(event).expect("json");
        let name = json["game"].as_str().unwrap_or("?").to_owned();
        *counts.entry(name).or_default() += 1;
    }
    counts.into_iter().collect()
}
