//! The sample of `[duel]` (`Game::sample`): Carol, Alice's Second, challenges
//! Bob for her; Dave, Bob's Second, accepts with Ghost; the Ghost Duel the bot
//! starts is played to its end, and its winner ends the duel. Pure: it only
//! plays a script.

use crate::engine::game::Script;

use super::TAG;

pub(super) fn sample(script: &mut dyn Script) {
    script.say("Carol, Alice's Second, posts Alice's challenge to Bob on the list.");
    script.send(
        0,
        "Carol",
        true,
        TAG,
        &["Alice challenges Bob because he called my proposal a loophole"],
    );
    script.send(
        10,
        "Alice",
        true,
        TAG,
        &["commit 1: if I lose, I will withdraw the proposal"],
    );
    script.say("Dave, Bob's Second, answers within three days with a Contest of the suite: Ghost.");
    script.send(60, "Dave", true, TAG, &["accept 1 with Ghost", "status"]);
    script
        .say("The bot starts a Ghost Duel between them; Bob resigns it, and Alice wins the duel.");
    script.send(70, "Bob", true, "ghost", &["resign"]);
    script.wait(5);
}
