//! The whole world at a glance, for `[nomic] standings`, `[nomic] games` and the
//! periodic reports: the nomic's money and points beside every game's own score,
//! and the games running with their next deadline. It names no game: each game
//! says what is true for it through `Game::scores` and `Game::running`, and shows
//! only what its rules have revealed, so nothing here can leak a secret.

use serde_json::{Value, json};

use crate::engine::accounts::{Holder, amount_human};
use crate::engine::game::{Scores, View};
use crate::engine::{Sentence, Timestamp, human_time};

use super::{Params, Registered, Visit, World, each_game};

/// The code of the sentence `[nomic] standings` answers with.
pub const STANDINGS: &str = "summary_standings";
/// The code of the sentence `[nomic] games` answers with.
pub const GAMES: &str = "summary_games";

/// Fills a sentence that asks for the whole world (`standings`, `games`) from
/// it; any other sentence comes back as it was. The substrate's `[nomic]` sees
/// only the shared world, so the router fills these after the line is done.
pub fn fill(world: &World, params: &Params, now: Timestamp, sentence: Sentence) -> Sentence {
    match sentence.code.as_str() {
        STANDINGS => sentence.arg("table", standings(world, params)),
        GAMES => sentence.arg("games", running(world, params, now)),
        _ => sentence,
    }
}

/// One row per player of the nomic: eir balance in every currency, then eir
/// score in every game that keeps one; and the games that keep none, named.
pub fn standings(world: &World, params: &Params) -> Value {
    struct Collect<'a> {
        world: &'a World,
        params: &'a Params,
        /// Each game that keeps a score, by name, with its scores.
        scored: Vec<(&'static str, Scores)>,
        unscored: Vec<String>,
    }
    impl Visit for Collect<'_> {
        fn visit<G: Registered>(&mut self) {
            let state = G::take_state(self.world);
            let view = View::new(&self.world.shared, &self.params.setting);
            match G::scores(&state, &view) {
                Some(scores) => self.scored.push((G::NAME, scores)),
                None => self.unscored.push(format!("[{}]", G::TAGS[0])),
            }
        }
    }
    let mut collect = Collect {
        world,
        params,
        scored: Vec::new(),
        unscored: Vec::new(),
    };
    each_game(&mut collect);
    let accounts = &world.shared.accounts;
    let currencies: Vec<&str> = accounts
        .currencies
        .iter()
        .map(|currency| currency.name.as_str())
        .collect();
    let players: Vec<Value> = world
        .shared
        .players
        .players
        .iter()
        .filter(|player| player.is_active())
        .map(|player| {
            let balances: Vec<String> = currencies
                .iter()
                .map(|currency| {
                    amount_human(&accounts.balance(Holder::Player(player.id), currency))
                })
                .collect();
            let scores: Vec<Value> = collect
                .scored
                .iter()
                .map(|(_, scores)| {
                    scores
                        .of
                        .iter()
                        .find(|(id, _)| *id == player.id)
                        .map_or(Value::Null, |(_, score)| json!(score))
                })
                .collect();
            json!({ "name": player.name, "balances": balances, "scores": scores })
        })
        .collect();
    json!({
        "currencies": currencies,
        "scores": collect
            .scored
            .iter()
            .map(|(game, scores)| json!({ "game": game, "name": scores.name }))
            .collect::<Vec<_>>(),
        "players": players,
        "unscored": collect.unscored,
    })
}

/// Every running instance of every game, with its next deadline from the shared
/// schedule (the earliest one its tag owns).
pub fn running(world: &World, params: &Params, now: Timestamp) -> Value {
    struct Collect<'a> {
        world: &'a World,
        params: &'a Params,
        now: Timestamp,
        games: Vec<Value>,
    }
    impl Visit for Collect<'_> {
        fn visit<G: Registered>(&mut self) {
            let state = G::take_state(self.world);
            let view = View::new(&self.world.shared, &self.params.setting);
            for instance in G::running(&state, &view) {
                let scheduled = self
                    .world
                    .shared
                    .schedule
                    .entries
                    .iter()
                    .map(|entry| &entry.deadline)
                    .filter(|deadline| deadline.owner == instance.tag && deadline.at >= self.now)
                    .min_by_key(|deadline| deadline.at);
                let (deadline, deadline_what) = match instance.deadline {
                    Some(at) => (Some(human_time(at)), None),
                    None => (
                        scheduled.map(|d| human_time(d.at)),
                        scheduled.map(|d| match (d.what.strip_prefix("your "), &instance.turn) {
                            // A deadline is worded for its player's reminder
                            // ("your turn in Ghost 1"); the listing goes to anyone.
                            (Some(rest), Some(whose)) => format!("{whose}'s {rest}"),
                            _ => d.what.clone(),
                        }),
                    ),
                };
                self.games.push(json!({
                    "game": G::NAME,
                    "tag": instance.tag,
                    "what": instance.what,
                    "players": instance.players,
                    "turn": instance.turn,
                    "deadline": deadline,
                    "deadline_what": deadline_what,
                }));
            }
        }
    }
    let mut collect = Collect {
        world,
        params,
        now,
        games: Vec::new(),
    };
    each_game(&mut collect);
    Value::Array(collect.games)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Address, players};

    #[test]
    fn every_game_is_either_a_score_column_or_named_as_keeping_none() {
        let mut world = World::default();
        std::sync::Arc::make_mut(&mut world.shared.players).apply_event(
            &players::Event::Joined {
                id: 1,
                name: "Alice".into(),
                address: Address::new("alice@nomic.example"),
            },
            Timestamp::UNIX_EPOCH,
        );
        let table = standings(&world, &Params::default());
        let scored = table["scores"].as_array().unwrap().len();
        let unscored = table["unscored"].as_array().unwrap().len();
        assert_eq!(scored + unscored, crate::games::game_names().len());
        // Gnomic's score is named as the game's, never "points".
        assert!(
            table["scores"]
                .as_array()
                .unwrap()
                .iter()
                .all(|s| s["name"] != "points")
        );
        assert_eq!(table["players"][0]["name"], "Alice");
        assert_eq!(
            table["players"][0]["scores"].as_array().unwrap().len(),
            scored
        );
    }

    #[test]
    fn nothing_runs_in_a_new_world() {
        let games = running(&World::default(), &Params::default(), Timestamp::UNIX_EPOCH);
        assert_eq!(games, json!([]));
    }
}
