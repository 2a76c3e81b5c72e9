//! The sample of `[ghost]` (`Game::sample`): a game of Ghost to a winner and the
//! referee's report: a valid "is a word" protest, a play sent privately by
//! mistake and carried out by the moderator on the player's behalf, a "not
//! inside" protest answered with no word. Pure: it only plays a script, in the
//! order of play the bot drew.

use crate::engine::game::{Game, Script};

use super::TAG;
use super::game::Ghost;

const HOUR: i64 = 60;

pub(super) fn sample(script: &mut dyn Script) {
    script.say(
        "Ghost: the moderator starts a game with Alice, Bob and Carol and referees it; the bot \
         numbers the players at random.",
    );
    script.send(0, "Mod", true, TAG, &["start with Alice, Bob, Carol"]);
    let view = script.view(Ghost::NAME);
    let Some(instance) = view["instances"].as_array().and_then(|i| i.last()) else {
        script.say("The game did not start.");
        return;
    };
    let number = instance["number"].as_u64().unwrap_or(1);
    let order: Vec<String> = instance["seats"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|seat| seat["name"].as_str().map(str::to_owned))
        .collect();
    let [first, second, third] = order.as_slice() else {
        script.say("The game did not start with three players.");
        return;
    };
    let tag = format!("{TAG} {number}");
    script.say(&format!(
        "The order of play: 1 {first}, 2 {second}, 3 {third}. Plays go to the list."
    ));
    let mut minutes = 0;
    let mut play = |script: &mut dyn Script, who: &str, public: bool, line: &str| {
        minutes += HOUR;
        script.send(minutes, who, public, &tag, &[line]);
    };
    play(script, first, true, "s");
    play(script, second, true, "su");
    play(script, third, true, "sup");
    play(script, first, true, "supe");
    play(script, second, true, "super");
    script.say(&format!(
        "SUPER is a word of four or more letters: {third} protests, the dictionary agrees, \
         {second} is out."
    ));
    play(script, third, true, "protest word");
    script.say(&format!(
        "Dave, who does not play, asks for the game's status privately; {first} sends a new \
         letter to the bot instead of the list, which is refused, and the moderator plays it on \
         eir behalf with the reason."
    ));
    play(script, "Dave", false, "status");
    play(script, first, false, "x");
    play(
        script,
        "Mod",
        true,
        &format!("as {first} because ey sent the play to the bot by mistake: x"),
    );
    play(script, third, true, "xq");
    script.say(&format!(
        "XQ is inside no word, says {first}; {third} answers with XQAT, which is no word either: \
         {third} is out, {first} wins, and the referee's report pays the rewards."
    ));
    play(script, first, true, "protest not inside");
    play(script, third, true, "word xqat");
}
