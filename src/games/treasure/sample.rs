//! The sample of `[treasure]` (`Game::sample`): Alice buries 5 points as "the
//! oak chest" and mails its map to the bot alone; she discloses a quoted part
//! of it to Bob only; the moderator makes Carol the Treasure-Harfer, Alice
//! hands her the map before a vacation, and Carol declares that Bob and Dave
//! achieved the conditions, Dave first. Pure: it only plays a script.

use crate::engine::game::Script;

use super::TAG;

pub(super) fn sample(script: &mut dyn Script) {
    script.say("Alice buries 5 points on the list, as \"the oak chest\".");
    script.send(0, "Alice", true, TAG, &["bury 5 points as the oak chest"]);
    script.say("She mails the map to the bot alone: the list sees only its commitment.");
    script.send(
        10,
        "Alice",
        false,
        TAG,
        &["map 1: Post a haiku about acorns to the list, then say OAKEN under [treasure]"],
    );
    script.say("She discloses a quoted part of it to Bob alone.");
    script.send(
        20,
        "Alice",
        false,
        TAG,
        &["disclose 1 \"a haiku about acorns\" to Bob"],
    );
    script.say("Mod makes Carol the Treasure-Harfer; Alice, going away, hands her the map.");
    script.send(
        30,
        "Mod",
        true,
        "nomic",
        &["appoint Treasure-Harfer Carol because someone must keep the maps"],
    );
    script.send(40, "Alice", true, TAG, &["hand 1 to the Treasure-Harfer"]);
    script.send(50, "Bob", true, TAG, &["status"]);
    script.say("Carol, the custodian, declares the find: Dave at 11:10, before Bob at 11:30. The map is published, and Dave receives the chest.");
    script.send(
        120,
        "Carol",
        true,
        TAG,
        &["found the oak chest by Bob at 2026-01-05 11:30; Dave at 2026-01-05 11:10"],
    );
    script.send(130, "Bob", true, TAG, &["status"]);
}
