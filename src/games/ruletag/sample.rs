//! The sample of `[rule tag]` (`Game::sample`): a whole nweek, from the start to
//! both notifications: private and public actions (the moderator gets a copy of
//! the private ones), a moderator's override, refused and late actions, then the
//! turn processed at the end of the nweek. Pure: it only plays a script, following
//! the ball and the goal wherever they were drawn.

use crate::engine::game::{Game, Script};

use super::game::RuleTag;
use super::{BALL, GOAL, TAG};

const DAY: i64 = 24 * 60;

/// The rule an RTO is on, in the game's private view.
fn rtl_of(script: &dyn Script, object: &str) -> u64 {
    script.view(RuleTag::NAME)["objects"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|o| o["name"] == object)
        .and_then(|o| o["rtl"].as_u64())
        .unwrap_or(1)
}

pub(super) fn sample(script: &mut dyn Script) {
    script.say(
        "Rule Tag: the moderator starts the game; the bot draws the rules the ball and the goal \
         start on.",
    );
    script.send(0, "Mod", true, TAG, &["start"]);
    let ball = rtl_of(script, BALL);
    let goal = rtl_of(script, GOAL);
    // Rules 1 to 4 are in; Dave will play on 2 and 3.
    let target = (1..=4).find(|n| ![ball, goal, 2].contains(n)).unwrap_or(4);
    script.say(&format!(
        "The ball is on rule {ball}, the goal on rule {goal}. The moderator overrides the draw of \
         the goal, with a reason: announced on the list."
    ));
    script.send(
        30,
        "Mod",
        true,
        TAG,
        &[&format!(
            "relocate goal to {target} because the goal starts away from the ball and from rule 2 this nweek"
        )],
    );
    let goal = rtl_of(script, GOAL);
    script.say(
        "Alice acts privately (the moderator gets a copy); Bob acts on the list; both go for the \
         ball, with opposite elements.",
    );
    script.send(
        DAY,
        "Alice",
        false,
        TAG,
        &[
            "element fire",
            &format!("move from null to {ball}"),
            "grab ball 5",
        ],
    );
    script.send(
        2 * DAY,
        "Bob",
        true,
        TAG,
        &[
            "element water",
            &format!("move from null to {ball}"),
            "grab ball 3",
        ],
    );
    script
        .say("Carol goes to the goal privately; only the first element change of an nweek counts.");
    script.send(
        3 * DAY,
        "Carol",
        false,
        TAG,
        &[
            &format!("move from null to {goal}"),
            "element air",
            "element earth",
        ],
    );
    script.say("Dave forgets where he is, then moves; on nday 9 he is too late.");
    script.send(
        4 * DAY,
        "Dave",
        true,
        TAG,
        &["move to 2", "move from null to 2"],
    );
    script.send(
        9 * DAY,
        "Dave",
        true,
        TAG,
        &["move from 2 to 3 via \"turn\""],
    );
    script.say(
        "The end of the nweek: the turn is processed in the rule's order and both notifications \
         go to the list; the moderator's award is paid.",
    );
    script.wait(10 * DAY);
}
