//! The sample of `[boons]` (`Game::sample`): an Otzma Card created by a Boon
//! and used once by its owner under `[nomic]`, the second use refused (rule
//! 1240); a Gadget's instance limit set by
//! the moderator; a random Boon drawn by the Officer in charge of Random
//! Things; a deterministic one chosen (the Chartreuse Goose); a Must Describe
//! Trinket described, heard at a Bogusity Hearing under `[bogusity]`, found a
//! pretty cool idea and created seven days after its description; one chosen
//! too late. Pure: it only plays a script.

use crate::engine::game::Script;

use super::TAG;

const DAY: i64 = 24 * 60;

pub(super) fn sample(script: &mut dyn Script) {
    otzma_card(script);
    script.say("The moderator bestows a random Boon upon Alice: the random officer draws it.");
    script.send(
        10,
        "Mod",
        true,
        TAG,
        &["bestow Alice because the sample's first Boon"],
    );
    script.say(
        "Bob and Dave receive deterministic Boons: they have three days to choose. The moderator names a Qualified Gadget and its instance limit (§9 a).",
    );
    script.send(
        20,
        "Mod",
        true,
        TAG,
        &[
            "bestow Bob deterministic because the sample's second Boon",
            "bestow Dave deterministic because the sample's third Boon",
            "limit Qualified Gadget: Whoopee Cushion to 1 because the sample's Gadget",
        ],
    );
    script.send(30, "Bob", true, TAG, &["choose d", "status"]);
    script.say("Bob's Trinket is Must Describe: his description also goes to [bogusity].");
    script.send(
        40,
        "Bob",
        true,
        TAG,
        &["describe a brass astrolabe that points at lost things"],
    );
    script.wait(50);
    script.say("Carol calls a Bogusity Hearing on it; the players find it a pretty cool idea.");
    script.send(70, "Carol", true, "bogusity", &["call 1"]);
    script.send(80, "Carol", true, "bogusity", &["Thats a pretty cool idea"]);
    script.send(90, "Alice", true, "bogusity", &["Thats a pretty cool idea"]);
    script.say("Dave chooses too late: three days have passed, and no Boon is bestowed.");
    script.send(3 * DAY + 30, "Dave", true, TAG, &["choose h"]);
    script.say("Seven days after the description, the Trinket is created.");
    script.wait(8 * DAY);
    script.send(8 * DAY + 10, "Alice", true, TAG, &["status"]);
}

/// Rule 1240: "They can be used only once." The first entity of the sample,
/// so its number is #1 whatever the random draws after it.
fn otzma_card(script: &mut dyn Script) {
    script.say(
        "The moderator names an Otzma Card (The Fool) and bestows a deterministic Boon upon Carol; \
         she chooses the ancient scroll, a random Otzma Card, and the random officer draws The Fool.",
    );
    script.send(
        0,
        "Mod",
        true,
        TAG,
        &[
            "limit Otzma Card: The Fool to 1 because the sample's card",
            "bestow Carol deterministic because the sample's card",
        ],
    );
    script.send(2, "Carol", true, TAG, &["choose b"]);
    script.say(
        "Carol uses the card under [nomic], saying what it does: it is used up and the list is told. \
         A second use of it is refused.",
    );
    script.send(
        4,
        "Carol",
        true,
        "nomic",
        &["use Otzma Card #1: Bob skips his next turn"],
    );
    script.send(
        6,
        "Carol",
        true,
        "nomic",
        &["use #1: Dave skips his next turn"],
    );
}
