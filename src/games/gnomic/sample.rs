//! The sample of `[gnomic]` (`Game::sample`): the moderator starts a game; Alice
//! posts a turn of two hacks on the list, Carol meta-amends one, the others
//! vote privately (Bob first on the list, which is refused), and the count
//! comes as soon as all have voted: one hack adopted and enacted, one failed
//! with its meta-amendment. Bob's turn then waits out the
//! 72 hours, and who did not vote is penalised. Pure: it only plays a script.

use crate::engine::game::Script;

use super::TAG;

const HOUR: i64 = 60;

pub(super) fn sample(script: &mut dyn Script) {
    script.say(
        "The moderator starts a game of Gnomic: the players take turns in alphabetical order.",
    );
    script.send(0, "Mod", true, TAG, &["start"]);
    script.say("Alice's turn: two hacks in one post to the list; she votes against the second.");
    script.send(
        10,
        "Alice",
        true,
        TAG,
        &[
            "turn",
            "hack 301 \"Bonus rounds\"",
            "enact",
            "Each turn alpha, beta and gamma are numbers a player may name.",
            "end",
            "hack 302 \"Reports, again\" amends 4",
            "text",
            "A report shows each player's points.",
            "end",
            "against 302",
            "greek 301 3",
        ],
    );
    script.say(
        "Carol meta-amends Alice's hack 302 on the list (rule 401): everyone votes on it too.",
    );
    script.send(
        15,
        "Carol",
        true,
        TAG,
        &[
            "meta 302",
            "hack 303 \"Reports, shorter\" amends 4",
            "text",
            "A report shows the scores.",
            "end",
        ],
    );
    script
        .say("Bob votes on the list: refused, a vote is secret. He votes again, to the bot alone.");
    script.send(20, "Bob", true, TAG, &["vote 301 for"]);
    script.send(
        25,
        "Bob",
        false,
        TAG,
        &["vote 301 for", "vote 302 against", "vote 303 for"],
    );
    script.send(
        30,
        "Carol",
        false,
        TAG,
        &["vote 301 against", "vote 302 against", "status"],
    );
    script.send(
        40,
        "Dave",
        false,
        TAG,
        &["vote 301 for", "vote 302 abstain", "vote 303 against"],
    );
    script.send(45, "Alice", false, TAG, &["vote 303 for"]);
    script.say("The last vote comes in: the bot publishes the commitments, reveals the votes and counts them.");
    script.send(
        50,
        "Mod",
        false,
        TAG,
        &["vote 301 for", "vote 302 against", "vote 303 abstain"],
    );
    script.wait(HOUR);
    script.say("Bob's turn: one hack. Only Carol votes; at the end of the 72 hours the others count as abstaining and lose 10 points.");
    script.send(
        2 * HOUR,
        "Bob",
        true,
        TAG,
        &["turn", "hack 304 \"No more reports\" repeals 4"],
    );
    script.send(3 * HOUR, "Carol", false, TAG, &["vote 304 against"]);
    script.wait(2 * HOUR + 72 * HOUR + 1);
    script.send(76 * HOUR, "Carol", true, TAG, &["status"]);
}
