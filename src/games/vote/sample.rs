//! The sample of `[vote]` (`Game::sample`): a ballot from its opening to its
//! result at the deadline, with a vote refused on the list, a change of mind and
//! a moderator's vote on a player's behalf. Pure: it only plays a script.

use crate::engine::game::{Game, Script};

use super::TAG;
use super::game::Vote;

const DAY: i64 = 24 * 60;

pub(super) fn sample(script: &mut dyn Script) {
    script
        .say("A secret ballot: the moderator opens it on the list; the votes go to the bot alone.");
    script.send(
        0,
        "Mod",
        true,
        TAG,
        &["open Shall the game last another month?"],
    );
    let number = script.view(Vote::NAME)["ballots"]
        .as_array()
        .and_then(|ballots| ballots.last())
        .and_then(|ballot| ballot["number"].as_u64())
        .unwrap_or(1);
    script.say("Alice votes privately; Bob votes on the list, which is refused: a vote is secret.");
    script.send(10, "Alice", false, TAG, &["yes"]);
    script.send(20, "Bob", true, TAG, &["no"]);
    script.say("Bob votes again, privately, and Carol names the ballot and lists the open ones.");
    script.send(25, "Bob", false, TAG, &["no"]);
    script.send(
        30,
        "Carol",
        false,
        TAG,
        &["ballots", &format!("{number} yes")],
    );
    script.say(
        "Dave asked the moderator by phone: the moderator votes on his behalf, with the reason. \
         The list learns that an override was made, not the vote.",
    );
    script.send(
        60,
        "Mod",
        false,
        TAG,
        &["as Dave because he asked by phone, his mail being down: no"],
    );
    script.say("Bob changes his mind: only a player's last vote counts.");
    script.send(DAY, "Bob", false, TAG, &["yes"]);
    script.say(
        "A day before the deadline, whoever has not voted is reminded; at the deadline the bot \
         publishes a commitment per vote, then the reveal, then the result.",
    );
    script.wait(3 * DAY + 60);
}
