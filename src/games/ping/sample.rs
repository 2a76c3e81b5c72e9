//! The sample of `[ping]` (`Game::sample`): a moderator places the Machine in
//! Alice's Home; Alice mails the truth and its form to the bot alone; the bot
//! posts the disguised truth and pings by the form; two wrong guesses are
//! ridiculed and fined, Dave names a Magic Letter after six pings, Bob's second
//! guess is refused, and Dave's correct guess takes the Machine home with him.
//! Pure: it only plays a script.

use crate::engine::game::Script;

use super::TAG;

const DAY: i64 = 24 * 60;

pub(super) fn sample(script: &mut dyn Script) {
    script.say(
        "The moderator places the Machine That Goes *ping* in Alice's Home: she is the Scholar.",
    );
    script.send(
        0,
        "Mod",
        true,
        TAG,
        &["place Alice because the Machine must begin somewhere"],
    );
    script.say("Alice mails the truth and a form the bot can check to the bot alone; the list sees it disguised.");
    script.send(
        10,
        "Alice",
        false,
        TAG,
        &["truth the day of the month is odd", "form day is odd"],
    );
    script.say("Bob and Carol guess on the list, wrongly: ridiculed, and fined A$10 each.");
    script.send(60, "Bob", true, TAG, &["guess today is a Tuesday"]);
    script.send(70, "Carol", true, TAG, &["guess the day is even"]);
    script.say(
        "The Machine goes *ping* on every odd day; after six pings Dave names a Magic Letter.",
    );
    script.wait(12 * DAY + 120);
    script.send(12 * DAY + 130, "Dave", true, TAG, &["magic letter o"]);
    script.send(12 * DAY + 140, "Bob", true, TAG, &["guess the day is odd"]);
    script.say("Dave guesses right: congratulated, a Boon of the Ancients falls due to him, and the Machine moves to his Home.");
    script.send(
        13 * DAY,
        "Dave",
        true,
        TAG,
        &["guess the day of the month is odd", "status"],
    );
}
