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
            if sample.name == "gnomic" {
                // The sample's hacks keep their numbers and are refused when
                // played again: turns of the bench's own, a week later.
                gnomic_turns(&mut table, nomicbot::samples::at(offset + 7 * 24 * 60));
            }
            if sample.name == "treasure" {
                // Likewise a treasure's name: chests of the round's own.
                treasures(
                    &mut table,
                    nomicbot::samples::at(offset + 7 * 24 * 60),
                    round,
                );
            }
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

/// Gnomic turns played after the sample's, in each round.
const GNOMIC_TURNS: usize = 8;

/// `GNOMIC_TURNS` turns of Gnomic from `at` among the samples' players: whoever
/// may post does (each tries in turn), everyone else votes on the hack, and it
/// is counted when all have voted. Stops where a turn cannot be posted or
/// counted (a count held for a moderator's ruling).
fn gnomic_turns(table: &mut Table, mut at: Timestamp) {
    use nomicbot::games::gnomic::Gnomic;
    let players = nomicbot::samples::PLAYERS;
    let _outcome = table.message(at, &address(players[0]), true, "gnomic", &["start"]);
    for turn in 0..GNOMIC_TURNS {
        if table.state::<Gnomic>().open.is_some() {
            return;
        }
        let highest = table.world.ruleset.next_free_number().saturating_sub(1);
        let hack = table.state::<Gnomic>().last_ordinal.max(highest).max(300) + 1;
        let mut mover = None;
        for name in players {
            at += jiff::SignedDuration::from_secs(1);
            let _outcome = table.message(
                at,
                &address(name),
                true,
                "gnomic",
                &[
                    "turn",
                    &format!("hack {hack} \"Umbrellas\""),
                    "enact",
                    "Umbrellas are green.",
                    "end",
                ],
            );
            if table.state::<Gnomic>().open.is_some() {
                mover = Some(name);
                break;
            }
        }
        let Some(mover) = mover else {
            if std::env::var_os("BENCH_SHOW_REFUSED").is_some() {
                eprintln!("[gnomic] no turn {hack} posted: {:?}", table.last);
            }
            return;
        };
        // Rejected: an adopted rule would hold the next count for a
        // moderator's ruling on the rules the count follows.
        for (k, name) in players.iter().filter(|n| **n != mover).enumerate() {
            at += jiff::SignedDuration::from_secs(1);
            let choice = if k == turn % 4 { "abstain" } else { "against" };
            table.send(
                at,
                &address(name),
                false,
                "gnomic",
                &format!("vote {hack} {choice}"),
            );
        }
        at += jiff::SignedDuration::from_mins(1);
        table.run_until(at);
        if std::env::var_os("BENCH_SHOW_REFUSED").is_some()
            && let Some(open) = &table.state::<Gnomic>().open
        {
            eprintln!("[gnomic] turn {} not counted: {open:?}", open.number);
        }
    }
}

/// Treasures buried, mapped and found after the sample's, in each round.
const TREASURES: usize = 8;

/// `TREASURES` treasures from `at`, named for `round`: Alice buries each,
/// mails its map to the bot, and declares it found by Bob.
fn treasures(table: &mut Table, mut at: Timestamp, round: usize) {
    let alice = address(nomicbot::samples::PLAYERS[1]);
    for j in 0..TREASURES {
        let name = format!("the chest {round}-{j}");
        for (public, line) in [
            (true, format!("bury 2 points as {name}")),
            (false, format!("map {name}: Say CHEST under [treasure]")),
            (true, format!("found {name} by Bob")),
        ] {
            at += jiff::SignedDuration::from_mins(1);
            let _outcome = table.message(at, &alice, public, "treasure", &[&line]);
            if std::env::var_os("BENCH_SHOW_REFUSED").is_some() {
                for r in &table.last {
                    if r.status != nomicbot::engine::Status::Done {
                        eprintln!("[treasure] Alice: {} -> {:?}", r.line, r.sentence);
                    }
                }
            }
        }
    }
}
