//! The router: a message's tag picks the game, each command line goes to it in
//! the order written, each in a transaction of its own over the message's scratch
//! world, so later lines see earlier ones and a refused line leaves no trace. It
//! names no game: every game is reached through the `Game` trait.

use crate::engine::game::{Effect, Secrecy, SharedEvent, Standing, Tx};
use crate::engine::inventory;

use crate::engine::{Audience, Ctx, LineReport, NotUnderstood, Sentence, Status, UNKNOWN_COMMAND};

use super::overrides;
use super::substrate;
use super::{Outcome, Params, Registered, Visit, World, base_tag, each_game};

/// A tagged message as the router sees it.
#[derive(Debug, Clone)]
pub struct Message {
    /// The subject tag, normalized ("nomic", "help", "ghost 2").
    pub tag: String,
    /// What followed the tag in the subject.
    pub subject_rest: String,
    /// The body's command lines, in order.
    pub body_lines: Vec<String>,
}

/// One line, read for a game.
enum Read<C> {
    Help,
    /// `history [N|all]` under a tag whose game has no `history` of its own.
    History(usize),
    Command(C),
    Override(overrides::Command<C>),
    NotUnderstood(Sentence),
}

impl World {
    /// Applies a tagged message, line by line: each line sees the effects of the lines
    /// before it. `self` is not changed; the caller records the events.
    pub fn handle(&self, message: &Message, ctx: &Ctx, params: &Params) -> Outcome {
        let in_force = params.with_offices(&self.shared.offices);
        let params = &*in_force;
        let game = base_tag(&message.tag);
        if game == "help" {
            return Outcome {
                help: super::known_tags()
                    .into_iter()
                    .filter(|t| t != "help")
                    .collect(),
                ..Outcome::default()
            };
        }
        struct Route<'a> {
            world: &'a World,
            message: &'a Message,
            ctx: &'a Ctx,
            params: &'a Params,
            game: &'a str,
            outcome: Option<Outcome>,
        }
        impl Visit for Route<'_> {
            fn visit<G: Registered>(&mut self) {
                if self.outcome.is_none() && G::TAGS.contains(&self.game) {
                    self.outcome = Some(handle_game::<G>(
                        self.world,
                        self.message,
                        self.ctx,
                        self.params,
                    ));
                }
            }
        }
        let mut route = Route {
            world: self,
            message,
            ctx,
            params,
            game,
            outcome: None,
        };
        substrate::each_part(&mut route);
        each_game(&mut route);
        route.outcome.unwrap_or_else(|| Outcome {
            report: lines_of(message, |_| true, false)
                .into_iter()
                .map(|line| LineReport {
                    line,
                    status: Status::NotUnderstood,
                    sentence: Sentence::new("unknown_tag").arg("tag", game),
                })
                .collect(),
            ..Outcome::default()
        })
    }
}

/// The lines to apply, in order. The subject's rest counts as a command when
/// `subject_is_command` says so (`[nomic] join Alice`); the body follows. A body
/// whose first command line repeats the subject's command does not apply it twice.
fn lines_of(
    message: &Message,
    subject_is_command: impl Fn(&str) -> bool,
    keep_blank: bool,
) -> Vec<String> {
    let rest = message.subject_rest.trim();
    let subject_is_command =
        !rest.is_empty() && (rest.eq_ignore_ascii_case("help") || subject_is_command(rest));
    let normalized = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let mut lines: Vec<String> = Vec::new();
    let mut body = message
        .body_lines
        .iter()
        .map(|l| l.trim().to_owned())
        .filter(|l| keep_blank || !l.is_empty())
        .peekable();
    if subject_is_command {
        lines.push(rest.to_owned());
        if body
            .peek()
            .is_some_and(|first| normalized(first) == normalized(rest))
        {
            body.next();
        }
    }
    lines.extend(body);
    lines
}

/// The code of the answer to `history` under any tag: the shell fills it with
/// the announcements the list had under that tag (`entries`), the latest
/// `count`, oldest first. What went to the list is public by definition, so a
/// history shows no secret.
pub const TAG_HISTORY: &str = "summary_history";

/// How many announcements `history` shows when no number is given, and at
/// most (`history all`): an answer must stay readable.
pub const HISTORY_SHOWN: usize = 10;
pub const HISTORY_MOST: usize = 100;

/// `history`, `history N`, `history all`: how many of the latest entries.
fn history_request(line: &str) -> Option<usize> {
    let (verb, rest) = crate::engine::split_verb(line);
    if verb != "history" {
        return None;
    }
    match rest.to_lowercase().as_str() {
        "" => Some(HISTORY_SHOWN),
        "all" => Some(HISTORY_MOST),
        number => number
            .parse::<usize>()
            .ok()
            .filter(|n| *n > 0)
            .map(|n| n.min(HISTORY_MOST)),
    }
}

fn is_help(line: &str) -> bool {
    line.trim().eq_ignore_ascii_case("help")
}

/// Every line of a message under one game's tag.
fn handle_game<G: Registered>(
    world: &World,
    message: &Message,
    ctx: &Ctx,
    params: &Params,
) -> Outcome {
    let tag = message.tag.as_str();
    let game = base_tag(tag);
    let mut outcome = Outcome::default();
    let lines = lines_of(
        message,
        |rest| {
            G::subject_is_command(rest, tag, &message.body_lines)
                || history_request(rest).is_some()
                || matches!(overrides::parse::<G>(rest, tag, false), Some(Ok(_)))
                // A slip in the subject's command (`[nomic] gvie 5 A$ to Bob`) is
                // answered as one in the body is, not taken for a mere subject.
                || (!rest.ends_with(['!', '?']) && !closest_commands::<G>(rest, tag).is_empty())
        },
        G::KEEPS_BLANK_LINES,
    );
    let mut scratch = world.clone();
    for (line, parsed) in G::parse_message(&lines, tag) {
        let read = if is_help(&line) {
            Read::Help
        } else if let (Err(_), Some(count)) = (&parsed, history_request(&line)) {
            Read::History(count)
        } else {
            match overrides::parse::<G>(&line, tag, parsed.is_ok()) {
                Some(Ok(command)) => Read::Override(command),
                Some(Err(NotUnderstood(sentence))) => Read::NotUnderstood(sentence),
                None => match parsed {
                    Ok(command) => Read::Command(command),
                    Err(NotUnderstood(sentence)) => Read::NotUnderstood(sentence),
                },
            }
        };
        outcome.line_starts.push(outcome.here());
        let report = match read {
            Read::Help => {
                push_unique(&mut outcome.help, game);
                LineReport {
                    line,
                    status: Status::Done,
                    sentence: Sentence::new("help_sent").arg("tag", game),
                }
            }
            Read::History(count) => LineReport {
                line,
                status: Status::Done,
                sentence: Sentence::new(TAG_HISTORY)
                    .arg("tag", tag)
                    .arg("count", count),
            },
            Read::Command(command) => {
                let mut report =
                    apply_line::<G>(&mut scratch, line, command, ctx, params, &mut outcome);
                if report.status == Status::Done {
                    report.sentence =
                        super::summary::fill(&scratch, params, ctx.now, report.sentence);
                }
                report
            }
            Read::Override(command) => {
                overrides::apply::<G>(&mut scratch, line, command, ctx, params, &mut outcome)
            }
            Read::NotUnderstood(sentence) => LineReport {
                sentence: with_closest::<G>(sentence, &line, tag, outcome.report.len()),
                line,
                status: Status::NotUnderstood,
            },
        };
        outcome.report.push(report);
    }
    let understood = outcome
        .report
        .iter()
        .any(|r| r.status != Status::NotUnderstood);
    if !understood {
        push_unique(&mut outcome.help, game);
        // Looking for a slip parses a line a thousand times or so: only the
        // first lines are looked at, so a long message of talk costs no more
        // than a short one.
        outcome.chatter = outcome.report.iter().enumerate().all(|(index, report)| {
            let slips = index < SLIP_CHECKED_LINES;
            !looks_like_a_command::<G>(&report.line, &report.sentence, tag, slips)
        });
    }
    outcome.copies = G::private_copies(params.officers(), G::params(params));
    outcome
}

/// Whether a line the game did not understand still looks like an attempt at a
/// command rather than talk, as an officer reading it would judge: the game
/// recognised how it begins (its reason is a usage or a bad value, not
/// `UNKNOWN_COMMAND`: `join`, `give 5 to`), or a slip of one letter in its first
/// word (one dropped, added, changed, or two swapped: `joni Alice`) makes a line
/// the game reads whole. A line that ends as an exclamation or a question ("How
/// generous of you!", "Leave it to me?") is talk whatever its first word.
/// Slips are looked for only when `slips` is set.
fn looks_like_a_command<G: Registered>(
    line: &str,
    reason: &Sentence,
    tag: &str,
    slips: bool,
) -> bool {
    let line = line.trim();
    if line.ends_with(['!', '?']) {
        return false;
    }
    if reason.code != UNKNOWN_COMMAND {
        return true;
    }
    if !slips {
        return false;
    }
    !closest_commands::<G>(line, tag).is_empty()
}

/// The words one slip of a letter away from a line's first word that make the
/// game read the line whole (`gvie 5 A$ to Bob`: `give`), in the order found,
/// each once. What "Not understood" suggests, and what makes a line a slip.
fn closest_commands<G: Registered>(line: &str, tag: &str) -> Vec<String> {
    let line = line.trim();
    let reads = |candidate: &str| {
        G::parse(candidate, tag).is_ok()
            || matches!(overrides::parse::<G>(candidate, tag, false), Some(Ok(_)))
    };
    // Only the letters the first word begins with are varied; what follows them
    // (a comma, the rest of the line) stays as written.
    let letters_end = line
        .find(|c: char| !c.is_alphabetic())
        .unwrap_or(line.len());
    let (word, tail) = line.split_at(letters_end);
    let word = word.to_lowercase();
    // A long word is no slip of a command's verb; this also bounds the work.
    if word.is_empty() || word.chars().count() > 16 {
        return Vec::new();
    }
    let mut closest: Vec<String> = Vec::new();
    for variant in one_letter_slips(&word) {
        if !closest.contains(&variant) && reads(&format!("{variant}{tail}")) {
            closest.push(variant);
        }
    }
    closest
}

/// An unknown command that is a slip of a known one is answered with the
/// command meant (`Did you mean: give?`). Only the first lines are looked at, as
/// for chatter, so a long message of talk costs no more than a short one.
fn with_closest<G: Registered>(
    sentence: Sentence,
    line: &str,
    tag: &str,
    index: usize,
) -> Sentence {
    if sentence.code != UNKNOWN_COMMAND || index >= SLIP_CHECKED_LINES {
        return sentence;
    }
    let closest = closest_commands::<G>(line, tag);
    if closest.is_empty() {
        sentence
    } else {
        sentence.arg("closest", closest.join(", "))
    }
}

/// How many lines of a message not understood are looked at for a slip of a
/// letter in their first word (`looks_like_a_command`).
const SLIP_CHECKED_LINES: usize = 10;

/// Every word one slip of a letter away from `word` (Damerau: a letter dropped,
/// added, changed, or two neighbours swapped), over the letters a to z.
fn one_letter_slips(word: &str) -> Vec<String> {
    let letters: Vec<char> = word.chars().collect();
    let mut slips = Vec::new();
    for index in 0..letters.len() {
        let mut dropped = letters.clone();
        dropped.remove(index);
        slips.push(dropped);
        if index > 0 {
            let mut swapped = letters.clone();
            swapped.swap(index - 1, index);
            slips.push(swapped);
        }
        for letter in 'a'..='z' {
            let mut changed = letters.clone();
            changed[index] = letter;
            slips.push(changed);
        }
    }
    for index in 0..=letters.len() {
        for letter in 'a'..='z' {
            let mut added = letters.clone();
            added.insert(index, letter);
            slips.push(added);
        }
    }
    slips
        .into_iter()
        .map(|slip| slip.into_iter().collect::<String>())
        .filter(|slip| slip != word)
        .collect()
}

/// Carries out one command for `ctx.sender` in a transaction over `scratch`: on
/// success the scratch world takes its changes and `outcome` its effects, and
/// every game reacts to the standing changes it made; on refusal nothing changes.
/// A secret command's public mail is withheld: the game reveals it later.
pub(super) fn apply_line<G: Registered>(
    scratch: &mut World,
    line: String,
    command: G::Command,
    ctx: &Ctx,
    params: &Params,
    outcome: &mut Outcome,
) -> LineReport {
    if params.setting.rules_required && G::begins(&command) {
        let declared = G::bindings_in(G::params(params), &scratch.ruleset);
        if let Some(sentence) = super::bindings::not_ready(&scratch.ruleset, &declared) {
            return LineReport {
                line,
                status: Status::Refused,
                sentence,
            };
        }
    }
    let secrecy = G::secrecy(&command, ctx);
    let mut tx = Tx::<G>::new(
        scratch.shared.clone(),
        G::take_state(scratch),
        &params.setting,
        G::params(params),
        ctx.now,
    );
    match G::apply(&mut tx, command, ctx) {
        Ok(mut sentence) => {
            // Every game's `status` names the rules it follows (issue 22).
            if sentence.code.ends_with("_status") {
                let bound: Vec<_> = params
                    .setting
                    .bound
                    .iter()
                    .filter(|d| d.game == G::NAME)
                    .cloned()
                    .collect();
                if !bound.is_empty() {
                    sentence = sentence.arg(
                        "bound_rules",
                        crate::engine::ruleset::bindings::report(
                            tx.view().ruleset,
                            &bound,
                            None,
                            params.setting.baseline_when_unrecorded,
                        ),
                    );
                }
            }
            let (shared, state, mut effects) = tx.finish();
            scratch.shared = shared;
            G::put_state(scratch, state);
            if let Secrecy::Secret { .. } = secrecy {
                effects.retain(|e| !matches!(e, Effect::Mail(mail) if mail.to == Audience::List));
                outcome.secret.push(line.clone());
            }
            let changes: Vec<Standing> = effects
                .iter()
                .filter_map(|e| match e {
                    Effect::Shared(event) => Standing::of(event),
                    _ => None,
                })
                .collect();
            let gone: Vec<u32> = effects
                .iter()
                .filter_map(|e| match e {
                    Effect::Shared(SharedEvent::Inventory(
                        inventory::Event::Destroyed { id, .. } | inventory::Event::Used { id, .. },
                    )) => Some(*id),
                    _ => None,
                })
                .collect();
            let rules_changed = super::bindings::touched(&effects);
            outcome.take::<G>(effects);
            for change in changes {
                standing_changed(scratch, change, ctx.now, params, outcome);
            }
            if !gone.is_empty() {
                entities_gone(scratch, &gone, ctx.now, params, outcome);
            }
            if rules_changed {
                super::bindings::react(scratch, ctx.now, params, outcome);
            }
            LineReport {
                line,
                status: Status::Done,
                sentence,
            }
        }
        Err(refusal) => LineReport {
            line,
            status: Status::Refused,
            sentence: refusal.0,
        },
    }
}

/// What a change of standing does to every game: a player who leaves the nomic
/// leaves every game; a referee on vacation leaves the post.
fn standing_changed(
    scratch: &mut World,
    change: Standing,
    at: crate::engine::Timestamp,
    params: &Params,
    outcome: &mut Outcome,
) {
    struct React<'a> {
        scratch: &'a mut World,
        change: Standing,
        at: crate::engine::Timestamp,
        params: &'a Params,
        outcome: &'a mut Outcome,
    }
    impl Visit for React<'_> {
        fn visit<G: Registered>(&mut self) {
            let mut tx = Tx::<G>::new(
                self.scratch.shared.clone(),
                G::take_state(self.scratch),
                &self.params.setting,
                G::params(self.params),
                self.at,
            );
            G::standing_changed(&mut tx, &self.change);
            let (shared, state, effects) = tx.finish();
            if effects.is_empty() {
                return;
            }
            self.scratch.shared = shared;
            G::put_state(self.scratch, state);
            self.outcome.take::<G>(effects);
        }
    }
    each_game(&mut React {
        scratch,
        change,
        at,
        params,
        outcome,
    });
}

/// Entities destroyed by one rule, told to every game that keeps them (a
/// buried Treasure).
fn entities_gone(
    scratch: &mut World,
    ids: &[u32],
    at: crate::engine::Timestamp,
    params: &Params,
    outcome: &mut Outcome,
) {
    struct React<'a> {
        scratch: &'a mut World,
        ids: &'a [u32],
        at: crate::engine::Timestamp,
        params: &'a Params,
        outcome: &'a mut Outcome,
    }
    impl Visit for React<'_> {
        fn visit<G: Registered>(&mut self) {
            let mut tx = Tx::<G>::new(
                self.scratch.shared.clone(),
                G::take_state(self.scratch),
                &self.params.setting,
                G::params(self.params),
                self.at,
            );
            G::entities_gone(&mut tx, self.ids);
            let (shared, state, effects) = tx.finish();
            if effects.is_empty() {
                return;
            }
            self.scratch.shared = shared;
            G::put_state(self.scratch, state);
            self.outcome.take::<G>(effects);
        }
    }
    each_game(&mut React {
        scratch,
        ids,
        at,
        params,
        outcome,
    });
}

fn push_unique(tags: &mut Vec<String>, tag: &str) {
    if !tags.iter().any(|t| t == tag) {
        tags.push(tag.to_owned());
    }
}

/// The game behind a tag, for callers outside the router (tests, the shell).
pub fn game_of_tag(tag: &str) -> Option<&'static str> {
    struct Find<'a>(&'a str, Option<&'static str>);
    impl Visit for Find<'_> {
        fn visit<G: Registered>(&mut self) {
            if self.1.is_none() && G::TAGS.contains(&self.0) {
                self.1 = Some(G::NAME);
            }
        }
    }
    let mut find = Find(base_tag(tag), None);
    substrate::each_part(&mut find);
    each_game(&mut find);
    find.1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Address, Timestamp};
    use crate::games::known_tags;

    fn ctx() -> Ctx {
        Ctx {
            now: Timestamp::from_second(1_800_000_000).unwrap(),
            sender: Address::new("alice@example.org"),
            sender_name: None,
            public: true,
            entropy: [7; 32],
        }
    }

    fn message(tag: &str, rest: &str, body: &[&str]) -> Message {
        Message {
            tag: tag.into(),
            subject_rest: rest.into(),
            body_lines: body.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn subject_command_and_the_same_body_line_apply_once() {
        let outcome = World::default().handle(
            &message("nomic", "join Alice", &["join Alice", "players"]),
            &ctx(),
            &Params::default(),
        );
        let statuses: Vec<_> = outcome
            .report
            .iter()
            .map(|r| (r.line.as_str(), r.status))
            .collect();
        assert_eq!(
            statuses,
            [("join Alice", Status::Done), ("players", Status::Done)]
        );
        assert_eq!(outcome.events.len(), 1);
    }

    #[test]
    fn a_subject_that_is_no_command_is_just_a_subject() {
        let outcome = World::default().handle(
            &message("nomic", "hello everyone", &["join Alice"]),
            &ctx(),
            &Params::default(),
        );
        assert_eq!(outcome.report.len(), 1);
        assert!(outcome.help.is_empty());
    }

    #[test]
    fn later_lines_see_earlier_ones_and_nothing_is_dropped() {
        let outcome = World::default().handle(
            &message(
                "nomic",
                "",
                &["join Alice", "rename Alicia", "dance a jig", "join Bob"],
            ),
            &ctx(),
            &Params::default(),
        );
        let statuses: Vec<_> = outcome.report.iter().map(|r| r.status).collect();
        assert_eq!(
            statuses,
            [
                Status::Done,
                Status::Done,
                Status::NotUnderstood,
                Status::Refused
            ]
        );
        assert_eq!(outcome.report[3].sentence.code, "already_playing");
    }

    /// Mail content never panics the router, whatever the tag and the line.
    #[test]
    fn odd_lines_under_every_tag_are_answered_not_panicked_on() {
        let lines = [
            "",
            " ",
            "\u{feff}",
            "move",
            "move to",
            "move from to",
            "move from 4294967296 to 1",
            "move from null to 1 via",
            "move from 1 to 2 via \"",
            "move from 1 to 2 via \"\"",
            "move from \u{2603} to \u{1F600} via \u{e9}t\u{e9}",
            "grab ball 99999999999999999999999",
            "grab \u{1F3C0} -0",
            "grab 5",
            "drop \"\"",
            "element \u{1F525}",
            "void x y because",
            "void because because because",
            "relocate to to to because x",
            "term in in because x",
            "term \"\" not defined in 3 because x",
            "as : move to null",
            "as x because y: ",
            "start with",
            "start duel with ,,,",
            "protest",
            "protest addition",
            "word",
            "play",
            "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
            "\u{e9}",
            "adjust",
            "adjust x 1/0 points because y",
            "random draw 0 x",
        ];
        let params = Params::default();
        let world = World::default();
        for tag in known_tags().into_iter().chain(["ghost 7".into()]) {
            for line in lines {
                let outcome = world.handle(&message(&tag, line, &[line]), &ctx(), &params);
                assert!(
                    !outcome.report.is_empty() || !outcome.help.is_empty(),
                    "{tag}: {line:?}"
                );
            }
        }
    }

    #[test]
    fn talk_is_chatter_and_an_attempt_at_a_command_is_not() {
        let chatter = |lines: &[&str]| {
            World::default()
                .handle(&message("nomic", "", lines), &ctx(), &Params::default())
                .chatter
        };
        assert!(chatter(&[
            "How generous of you!",
            "Bob will be pleased, I think."
        ]));
        assert!(chatter(&["Thanks", "Nice one"]));
        assert!(chatter(&[]));
        // A command's verb in an exclamation or a question is talk.
        assert!(chatter(&["Leave it to me!", "Leave so soon?"]));
        // The game recognised how the line begins.
        assert!(!chatter(&["Nice one", "give 2 to Bob"]));
        assert!(!chatter(&["join"]));
        // An override's verb.
        assert!(!chatter(&["as Bob"]));
        // A slip of one letter in the first word.
        assert!(!chatter(&["gvie 2 A$ to Bob"]));
        assert!(!chatter(&["joni Alice"]));
        assert!(!chatter(&["plyers"]));
        assert!(!chatter(&["Playerss"]));
        // Understood lines are no chatter.
        assert!(!chatter(&["players", "Nice one"]));
    }

    #[test]
    fn one_letter_slips_are_dropped_added_changed_or_swapped_letters() {
        let slips = one_letter_slips("joni");
        for slip in ["join", "jon", "jonie", "loni", "ojni"] {
            assert!(slips.iter().any(|s| s == slip), "{slip}");
        }
        assert!(!slips.iter().any(|s| s == "joni" || s == "jn"));
    }

    /// Issue 24, item 7: `history` under any tag; a game's own (Ghost's) wins.
    #[test]
    fn history_under_any_tag_asks_for_the_lists_announcements_unless_the_game_has_its_own() {
        let history = |tag: &str, line: &str| {
            let outcome =
                World::default().handle(&message(tag, "", &[line]), &ctx(), &Params::default());
            let sentence = &outcome.report[0].sentence;
            (sentence.code.clone(), sentence.args.get("count").cloned())
        };
        assert_eq!(
            history("vote", "history"),
            (TAG_HISTORY.to_owned(), Some(HISTORY_SHOWN.into()))
        );
        assert_eq!(
            history("nomic", "history 3"),
            (TAG_HISTORY.to_owned(), Some(3.into()))
        );
        assert_eq!(
            history("rule tag", "history all"),
            (TAG_HISTORY.to_owned(), Some(HISTORY_MOST.into()))
        );
        assert_eq!(
            history("gnomic", "history 100000"),
            (TAG_HISTORY.to_owned(), Some(HISTORY_MOST.into()))
        );
        assert_ne!(history("ghost", "history").0, TAG_HISTORY);
        // `[ruleset] history N` is rule N's history.
        assert_ne!(history("ruleset", "history 301").0, TAG_HISTORY);
    }

    #[test]
    fn a_tag_without_an_understood_command_gets_the_help() {
        let outcome = World::default().handle(
            &message("nomic", "", &["what is this"]),
            &ctx(),
            &Params::default(),
        );
        assert_eq!(outcome.help, ["nomic"]);
        let outcome =
            World::default().handle(&message("help", "", &[]), &ctx(), &Params::default());
        // Every tag but help, in the registry's order; a game added later comes after.
        assert_eq!(
            outcome.help[..6],
            ["nomic", "ruleset", "games", "vote", "rule tag", "ghost"]
        );
    }
}
