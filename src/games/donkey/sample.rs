//! The sample of `[donkey]` (`Game::sample`): Mod claims the Wranglership and
//! calls a game; Dave declines, so Alice, Bob and Carol are on the GAL. Round 1:
//! Alice grabs Bob, who admires, and Carol covers: Bob loses his donkey. Round
//! 2, two left: Alice's rock beats Carol's scissors, and Alice is the Belt
//! Holder. Pure: it only plays a script.

use crate::engine::game::Script;

use super::TAG;

const HOUR: i64 = 60;
const DAY: i64 = 24 * HOUR;

pub(super) fn sample(script: &mut dyn Script) {
    script.say(
        "Mod claims the title of Wrangler on the list and calls a game with rounds of one day.",
    );
    script.send(0, "Mod", true, TAG, &["claim wrangler"]);
    script.send(5, "Mod", true, TAG, &["call 1 days"]);
    script.say("Dave would rather watch: he declines publicly before the start.");
    script.send(60, "Dave", true, TAG, &["decline"]);
    script.wait(DAY + 10);
    script.say("Round 1: each player mails the bot alone. Alice grabs Bob's donkey, Carol covers, Bob says nothing (he admires).");
    script.send(DAY + 20, "Alice", false, TAG, &["grab Bob"]);
    script.send(DAY + 30, "Carol", false, TAG, &["cover"]);
    script.say("Bob posts his action to the list: it does not count, and he is told so privately.");
    script.send(DAY + 40, "Bob", true, TAG, &["cover"]);
    script.send(DAY + 50, "Carol", false, TAG, &["status"]);
    script.say("At the round's end the commitments, the reveal and the report: Alice took Bob's donkey; Alice and Carol are left, and play rock, scissors, paper.");
    script.wait(2 * DAY + 30);
    script.send(2 * DAY + 40, "Alice", false, TAG, &["rock"]);
    script.send(2 * DAY + 50, "Carol", false, TAG, &["scissors"]);
    script.say("Rock beats scissors: Alice grabs Carol's donkey, and is the Belt Holder and the Wrangler, with 3 points plus the two donkeys she grabbed.");
    script.wait(3 * DAY + 30);
}
