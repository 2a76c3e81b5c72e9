//! The sample of `[bogusity]` (`Game::sample`): two descriptions of Must Describe
//! Boons, a hearing on each, one found Bogus (its describer loses the points) and
//! one found a pretty cool idea. Pure: it only plays a script.

use crate::engine::game::Script;

use super::TAG;

const BOGUS: &str = "This loophole surfer is totally Bogus";
const COOL: &str = "Thats a pretty cool idea";
const DAY: i64 = 24 * 60;

pub(super) fn sample(script: &mut dyn Script) {
    script.say("Alice and Bob post the descriptions of their Must Describe Boons on the list.");
    script.send(
        0,
        "Alice",
        true,
        TAG,
        &["describe An ancient relic: a Trinket that pays its owner A$75 a day"],
    );
    script.send(
        5,
        "Bob",
        true,
        TAG,
        &["describe Ancient wisdom: an Otzma Card that reads the future"],
    );
    script.say("Carol calls a Bogusity Hearing on each, within three days; Alice may not respond on her own Boon.");
    script.send(60, "Carol", true, TAG, &["call 1", "call 2"]);
    script.send(70, "Alice", true, TAG, &[&format!("1 {BOGUS}")]);
    script.send(80, "Bob", true, TAG, &[&format!("1 {BOGUS}")]);
    script.send(
        90,
        "Carol",
        true,
        TAG,
        &[&format!("1 {BOGUS}"), &format!("2 {COOL}")],
    );
    script.send(100, "Dave", true, TAG, &[&format!("2 {COOL}"), "status"]);
    script.say(
        "At the end of the hearings: Alice's relic is Bogus, Bob's wisdom a pretty cool idea.",
    );
    script.wait(4 * DAY);
}
