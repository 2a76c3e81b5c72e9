//! The sample of `[space]` (`Game::sample`), and `nomicbot demo --game space`:
//! a few days of the Space Nomic. Three players join; Alice proposes a
//! coloured rule, and Bob's vote of 2/3 passes it at the instant the sum can
//! no longer come down to zero; a second proposal fails at Alice's vote. Then
//! everyone stores a location change, evaluated the next day at 12:00 GMT;
//! Alice and Bob buy the vertices they stand on for 32 each; the daily income
//! at 21:00 GMT pays each the average of 2/(d²+2) over the owned vertices;
//! Alice moves on, and Carol asks for the status. Money moves in exact
//! fractions. Pure: it only plays a script.

use crate::engine::game::Script;

use super::TAG;

/// Minutes from the sample's start (10:00 GMT) to `hour`:00 GMT of `day`.
fn at(day: i64, hour: i64) -> i64 {
    day * 24 * 60 + (hour - 10) * 60
}

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
    script.send(40, "Alice", true, TAG, &["vote -1 on Walls"]);
    script.say(
        "Each stores a location change: from nowhere, any vertex of Space (the square \
         (0, 0), (1, 0), (1, 1), (0, 1)). They are evaluated the next day at 12:00 GMT.",
    );
    script.send(50, "Alice", true, TAG, &["move to (0, 0)"]);
    script.send(51, "Bob", true, TAG, &["move to (1, 1)"]);
    script.send(52, "Carol", true, TAG, &["move to (1, 0)"]);
    script.say("Day 1, 12:00 GMT: the location changes are executed, all of them.");
    script.wait(at(1, 12) + 1);
    script.say("Alice and Bob each buy the vertex they stand on: 32 money units to nowhere.");
    script.send(at(1, 13), "Alice", true, TAG, &["buy"]);
    script.send(at(1, 13) + 1, "Bob", true, TAG, &["buy"]);
    script.say(
        "Day 1, 21:00 GMT: the income. Two owned vertices, (0, 0) and (1, 1): Alice and Bob \
         are at distance 0 from one and 2 from the other, (2/2 + 2/6)/2 = 2/3; Carol, at \
         distance 1 from both, (2/3 + 2/3)/2 = 2/3.",
    );
    script.wait(at(1, 21) + 1);
    script.say("Day 2: Alice moves to an adjacent vertex; at 12:00 GMT it is executed.");
    script.send(at(2, 10), "Alice", true, TAG, &["move to (1, 0)"]);
    script.wait(at(2, 12) + 1);
    script.say("Carol asks for the status: money, locations and owners, exact.");
    script.send(at(2, 13), "Carol", true, TAG, &["status"]);
}
