//! The sample of `[space]` (`Game::sample`): three players join, Alice
//! proposes a coloured rule, and Bob's vote passes it at the instant the sum
//! can no longer come down to zero; a second proposal fails at Carol's vote;
//! money moves in exact fractions. Pure: it only plays a script.

use crate::engine::game::Script;

use super::TAG;

pub(super) fn sample(script: &mut dyn Script) {
    script.say("Alice, Bob and Carol join the Space Nomic: 97 money units each, nowhere, active.");
    script.send(0, "Alice", true, TAG, &["join Alice"]);
    script.send(1, "Bob", true, TAG, &["join Bob"]);
    script.send(2, "Carol", true, TAG, &["join Carol"]);
    script.say("Alice proposes a rule with its colour and the reason for it, and votes 1.");
    script.send(
        10,
        "Alice",
        true,
        TAG,
        &[
            "propose Bridges: create Bridges colour blue because rivers need crossing: Every river has a bridge.",
            "vote 1 on Bridges",
        ],
    );
    script.say("Bob votes 2/3: 1 + 2/3 - 1 > 0 whatever Carol votes, so Bridges passes now.");
    script.send(
        20,
        "Bob",
        true,
        TAG,
        &["vote 2/3 on Bridges", "give 1/6 to Carol"],
    );
    script.send(
        30,
        "Carol",
        true,
        TAG,
        &["propose Walls: repeal Bridges", "vote -1 on Walls"],
    );
    script.say("Alice votes -1 too: -2 + 1 is at most zero whatever Bob votes, so Walls fails.");
    script.send(40, "Alice", true, TAG, &["vote -1 on Walls", "status"]);
}
