//! The sample of `[contest]` (`Game::sample`): the moderator referees a game
//! of Party Chess between Alice and Bob (the board mailed after each move, a
//! capture, a move undone, the result), then adds a Contest with sealed
//! moves, and Carol's move stays sealed until the referee publishes it. Pure:
//! it only plays a script.

use crate::engine::game::Script;

pub(super) fn sample(script: &mut dyn Script) {
    script.say("The moderator, who referees Party Chess as shipped, starts a game of it.");
    script.send(
        0,
        "Mod",
        true,
        "contest",
        &["start Party Chess with Alice, Bob"],
    );
    script.send(1, "Mod", true, "contest 1", &["deadline 2 days"]);
    script.say("Alice and Bob drop pieces created at will, and Alice's knight captures.");
    script.send(10, "Alice", true, "contest 1", &["drop knight at k10"]);
    script.send(20, "Bob", true, "contest 1", &["drop dragon at m11"]);
    script.send(30, "Alice", true, "contest 1", &["move k10 m11"]);
    script.say("The referee rules the capture illegal in Party Chess, and undoes it.");
    script.send(
        40,
        "Mod",
        true,
        "contest 1",
        &["undo 3 because a knight may not take a dragon"],
    );
    script.say("Bob lets the two days pass; the referee then declares the result.");
    script.wait(40 + 49 * 60);
    script.send(
        50 * 60,
        "Mod",
        true,
        "contest 1",
        &["result Alice wins, points Alice 3"],
    );
    script.say("A Contest with sealed moves: Carol's move goes to the bot alone.");
    script.send(
        51 * 60,
        "Mod",
        false,
        "games",
        &["add Blind Chess players 2 private board 8 because Carol and Dave asked for it"],
    );
    script.send(
        51 * 60 + 1,
        "Mod",
        true,
        "contest",
        &["start Blind Chess with Carol, Dave"],
    );
    script.send(
        51 * 60 + 10,
        "Carol",
        false,
        "contest 2",
        &["drop rook at c3"],
    );
    script.send(51 * 60 + 20, "Mod", false, "contest 2", &["publish"]);
}
