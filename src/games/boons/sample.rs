//! The sample of `[boons]` (`Game::sample`): a Gadget's instance limit set by
//! the moderator; a random Boon drawn by the Officer in charge of Random
//! Things; a deterministic one chosen (the Chartreuse Goose); a Must Describe
//! Trinket described, heard at a Bogusity Hearing under `[bogusity]`, found a
//! pretty cool idea and created seven days after its description; one chosen
//! too late. Pure: it only plays a script.

use crate::engine::game::Script;

use super::TAG;

const DAY: i64 = 24 * 60;

pub(super) fn sample(script: &mut dyn Script) {
    script.say("The moderator bestows a random Boon upon Alice: the random officer draws it.");
    script.send(
        0,
        "Mod",
        true,
        TAG,
        &["bestow Alice because the sample's first Boon"],
    );
    script.say(
        "Bob and Dave receive deterministic Boons: they have three days to choose. The moderator names a Qualified Gadget and its instance limit (§9 a).",
    );
    script.send(
        10,
        "Mod",
        true,
        TAG,
        &[
            "bestow Bob deterministic because the sample's second Boon",
            "bestow Dave deterministic because the sample's third Boon",
            "limit Qualified Gadget: Whoopee Cushion to 1 because the sample's Gadget",
        ],
    );
    script.send(20, "Bob", true, TAG, &["choose d", "status"]);
    script.say("Bob's Trinket is Must Describe: his description also goes to [bogusity].");
    script.send(
        30,
        "Bob",
        true,
        TAG,
        &["describe a brass astrolabe that points at lost things"],
    );
    script.wait(40);
    script.say("Carol calls a Bogusity Hearing on it; the players find it a pretty cool idea.");
    script.send(60, "Carol", true, "bogusity", &["call 1"]);
    script.send(70, "Carol", true, "bogusity", &["Thats a pretty cool idea"]);
    script.send(80, "Alice", true, "bogusity", &["Thats a pretty cool idea"]);
    script.say("Dave chooses too late: three days have passed, and no Boon is bestowed.");
    script.send(3 * DAY + 20, "Dave", true, TAG, &["choose h"]);
    script.say("Seven days after the description, the Trinket is created.");
    script.wait(8 * DAY);
    script.send(8 * DAY + 10, "Alice", true, TAG, &["status"]);
}
