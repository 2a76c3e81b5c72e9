//! Issue 24, item 2: the rule texts travel with the bot. `nomicbot
//! import-rules NAME` imports each of the five shipped texts as it is written,
//! the games bound to a text follow it once it is in, an import never replaces
//! a rule of another name, and a game whose rules the registry never held does
//! not begin until they are imported (`[bot] unrecorded_rules = "required"`,
//! the shipped default).

use crate::offices::{BOT, LIST, MODERATOR, play, replies_to};
use crate::support::{LocalBot, at};

const NOW: &str = "2026-03-02T09:00:00Z";

/// The shipped configuration as an operator has it (`unrecorded_rules =
/// "required"`), From believed, with a moderator; each `(from, to)` of
/// `changes` replaced.
fn bot_with(changes: &[(&str, &str)]) -> LocalBot {
    let config = crate::support::trusting()
        .replace(
            "unrecorded_rules = \"baseline\"",
            "unrecorded_rules = \"required\"",
        )
        .replace(
            "moderators = []",
            &format!("moderators = [\"{MODERATOR}\"]"),
        );
    assert!(config.contains("unrecorded_rules = \"required\""));
    let config = changes.iter().fold(config, |config, (from, to)| {
        assert!(config.contains(from), "{from}");
        config.replacen(from, to, 1)
    });
    LocalBot::with_config(&config)
}

fn bot() -> LocalBot {
    bot_with(&[])
}

fn import(bot: &LocalBot, args: &[&str]) -> std::process::Output {
    let mut all = vec!["import-rules"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--now", NOW]);
    bot.cli(&all)
}

fn import_ok(bot: &LocalBot, args: &[&str]) -> String {
    let output = import(bot, args);
    assert!(
        output.status.success(),
        "import-rules {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn import_refused(bot: &LocalBot, args: &[&str]) -> String {
    let output = import(bot, args);
    assert!(
        !output.status.success(),
        "import-rules {args:?} succeeded:\n{}",
        String::from_utf8_lossy(&output.stdout)
    );
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The registry's rules, by number and name.
fn rules(bot: &LocalBot) -> Vec<(u64, String)> {
    let ruleset = bot.state_json()["ruleset"].clone();
    let rules = ruleset["rules"]
        .as_array()
        .cloned()
        .or_else(|| ruleset.as_array().cloned())
        .unwrap_or_default();
    rules
        .iter()
        .map(|rule| {
            (
                rule["number"].as_u64().unwrap_or_default(),
                rule["name"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// `nomicbot state bindings --json`: (rule, status) of each rule `game` binds.
fn bindings_of(bot: &LocalBot, game: &str) -> Vec<(u64, String)> {
    let text = bot.cli_ok(&["state", "bindings", "--json"]);
    let bindings: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    bindings
        .as_array()
        .expect("a list of bindings")
        .iter()
        .filter(|b| b["game"] == game)
        .map(|b| {
            (
                b["rule"].as_u64().unwrap_or_default(),
                b["status"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

fn assert_followed(bot: &LocalBot, game: &str, held: &[(u64, String)]) {
    let bindings = bindings_of(bot, game);
    assert!(!bindings.is_empty(), "{game} binds no rule");
    for (rule, status) in &bindings {
        assert_eq!(status, "follows", "{game}'s rule {rule}: {bindings:?}");
        assert!(
            held.iter().any(|(number, _)| number == rule),
            "{game}'s rule {rule} is not in the registry: {held:?}"
        );
    }
}

#[test]
fn gnomic_imports_by_name_with_its_66_rules_and_gnomic_follows_them() {
    let bot = bot();
    let out = import_ok(&bot, &["gnomic"]);
    assert!(out.contains("imported gnomic: 66 rule(s)"), "{out}");
    assert!(out.contains("101 Follow the rules"), "{out}");
    let held = rules(&bot);
    assert_eq!(held.len(), 66);
    assert!(held.contains(&(322, "Rule 322".to_owned())), "{held:?}");
    assert_followed(&bot, "gnomic", &held);
}

#[test]
fn ackanomic_imports_its_eight_rules_authors_as_notes_and_untitled_rules_by_number() {
    let bot = bot();
    let out = import_ok(&bot, &["ackanomic"]);
    assert!(out.contains("imported ackanomic: 8 rule(s)"), "{out}");
    let held = rules(&bot);
    let names: Vec<&str> = held.iter().map(|(_, name)| name.as_str()).collect();
    assert_eq!(
        names,
        [
            "The Machine That Goes *ping*",
            "Boons of the Ancients",
            "Rule 1213",
            "Rule 1215",
            "Buried Treasure!",
            "Party Chess Rule Suite",
            "Otzma Cards Rule Suite",
            "Games & Contests Rule Suite",
        ]
    );
    let shown = bot.cli_ok(&["state", "ruleset", "--json"]);
    assert!(!shown.contains("HTML 3.2 Checked"), "{shown}");
    assert!(
        shown.contains("Habeous Corpus (Ed Graham)"),
        "the author is a note"
    );
    for game in ["ping", "boons", "bogusity"] {
        assert_followed(&bot, game, &held);
    }
}

#[test]
fn ghost_imports_as_rule_103_ghost_and_the_ghost_game_follows_it() {
    let bot = bot();
    let out = import_ok(&bot, &["ghost"]);
    assert!(
        out.contains("imported ghost: 1 rule(s) (103 Ghost)"),
        "{out}"
    );
    let held = rules(&bot);
    assert_eq!(held, [(103, "Ghost".to_owned())]);
    assert_followed(&bot, "ghost", &held);
}

#[test]
fn rule_tag_imports_its_five_rules_from_the_next_free_number_and_rule_tag_follows_them() {
    let bot = bot_with(&[
        ("elements = 1001", "elements = 1"),
        ("rule_tag = 1002", "rule_tag = 2"),
        ("invalid_paths = 1003", "invalid_paths = 3"),
        ("moderation = 1004", "moderation = 4"),
        ("basketball = 1005", "basketball = 5"),
    ]);
    let out = import_ok(&bot, &["rule-tag"]);
    assert!(out.contains("imported rule-tag: 5 rule(s)"), "{out}");
    let held = rules(&bot);
    assert_eq!(held[..2], [(1, "Elements".into()), (2, "Rule Tag".into())]);
    assert_followed(&bot, "ruletag", &held);
}

#[test]
fn rule_tag_imports_under_the_numbers_bot_toml_binds_it_to_when_they_are_free() {
    let bot = bot();
    let out = import_ok(&bot, &["rule-tag"]);
    assert!(out.contains("1001 Elements"), "{out}");
    assert!(out.contains("1005 rule tag basketball"), "{out}");
    assert!(!out.contains("set the game's rule numbers"), "{out}");
    let held = rules(&bot);
    assert_followed(&bot, "ruletag", &held);
}

#[test]
fn rule_tag_imported_where_its_numbers_are_taken_says_which_to_set() {
    let bot = bot();
    let rule = tempfile::NamedTempFile::new().expect("a file");
    std::fs::write(
        rule.path(),
        "Create a new rule \"Something else\":\nAnother rule sits at 1001.\n",
    )
    .expect("write");
    import_ok(
        &bot,
        &[rule.path().to_str().expect("a path"), "--number", "1001"],
    );
    let out = import_ok(&bot, &["rule-tag"]);
    assert!(out.contains("1002 Elements"), "{out}");
    assert!(out.contains("[ruletag]"), "{out}");
    assert!(out.contains("1002, 1003, 1004, 1005, 1006"), "{out}");
}

#[test]
fn the_space_nomic_imports_one_rule_to_a_paragraph_numbered_after_the_registry() {
    let bot = bot();
    import_ok(&bot, &["ghost"]);
    let out = import_ok(&bot, &["space"]);
    assert!(out.contains("imported space: 54 rule(s)"), "{out}");
    let held = rules(&bot);
    assert_eq!(held.len(), 55);
    assert_eq!(held[1], (104, "Space Nomic 1".to_owned()));
    let shown = bot.cli_ok(&["state", "ruleset", "--json"]);
    // A wrapped line and a "- " item belong to the rule before them.
    assert!(
        shown.contains("Unless another rule prohibits such actions:\\n- when a player's location is a vertex of Space, e may change it to an\\nadjacent vertex."),
        "{shown}"
    );
}

#[test]
fn a_shipped_text_imports_by_its_file_name_and_by_its_path_as_by_its_name() {
    let bot = bot();
    assert!(import_ok(&bot, &["ghost.txt"]).contains("(103 Ghost)"));
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/rules/space-nomic-ruleset.txt");
    assert!(import_ok(&bot, &[path]).contains("54 rule(s)"));
    // The same text again: the same rules, nothing replaced.
    assert!(import_ok(&bot, &["ghost"]).contains("(103 Ghost)"));
    assert_eq!(rules(&bot).len(), 55);
}

#[test]
fn ghost_over_gnomics_rule_103_is_refused_naming_both_and_the_fix() {
    let bot = bot();
    import_ok(&bot, &["gnomic"]);
    let refused = import_refused(&bot, &["ghost"]);
    assert!(
        refused.contains("\"Definition of rule changes\""),
        "{refused}"
    );
    assert!(refused.contains("\"Ghost\""), "{refused}");
    assert!(
        refused.contains("nomicbot import-rules ghost --number 441"),
        "{refused}"
    );
    assert!(refused.contains("[ghost] rule = 441"), "{refused}");
    assert!(rules(&bot).contains(&(103, "Definition of rule changes".to_owned())));
}

#[test]
fn ghost_under_another_number_is_followed_once_bot_toml_names_it() {
    let bot = bot();
    import_ok(&bot, &["gnomic"]);
    let out = import_ok(&bot, &["ghost", "--number", "441"]);
    assert!(out.contains("(441 Ghost)"), "{out}");
    assert!(out.contains("[ghost] rule = 441"), "{out}");
    let config = std::fs::read_to_string(bot.config_path()).expect("config");
    std::fs::write(
        bot.config_path(),
        config.replacen("\nrule = 103\n", "\nrule = 441\n", 1),
    )
    .expect("config");
    let held = rules(&bot);
    assert_eq!(bindings_of(&bot, "ghost"), [(441, "follows".to_owned())]);
    assert_followed(&bot, "ghost", &held);
}

#[test]
fn an_unknown_name_is_refused_with_the_names_of_the_shipped_texts() {
    let bot = bot();
    let refused = import_refused(&bot, &["nomic-classic"]);
    assert!(
        refused.contains("gnomic, ackanomic, ghost, rule-tag, space"),
        "{refused}"
    );
    assert!(refused.contains("import-rules --list"), "{refused}");
}

#[test]
fn list_names_each_shipped_text_its_file_and_the_games_that_follow_it() {
    let bot = bot();
    let list = bot.cli_ok(&["import-rules", "--list"]);
    for line in [
        "gnomic-ruleset-v73.txt",
        "ackanomic-1209-1250.txt",
        "ghost.txt",
        "rule-tag-proposal.txt",
        "space-nomic-ruleset.txt",
        "followed by: bogusity, ping, boons",
        "followed by: ghost",
    ] {
        assert!(list.contains(line), "{line}: {list}");
    }
}

#[test]
fn gnomic_does_not_start_before_its_rules_are_imported_and_starts_after() {
    let bot = bot();
    play(
        &bot,
        "a",
        at(NOW),
        &[(MODERATOR, LIST, "[gnomic] start", "")],
    );
    let refused = replies_to(&bot, MODERATOR);
    assert!(
        refused.contains("nomicbot import-rules gnomic"),
        "{refused}"
    );
    let state = bot.cli_ok(&["state", "gnomic", "--json"]);
    import_ok(&bot, &["gnomic"]);
    play(
        &bot,
        "b",
        at("2026-03-02T11:00:00Z"),
        &[(MODERATOR, LIST, "[gnomic] start", "")],
    );
    let answers = replies_to(&bot, MODERATOR);
    let after = answers.split("\n---\n").last().unwrap_or_default();
    assert!(!after.contains("Refused"), "{after}");
    assert_ne!(bot.cli_ok(&["state", "gnomic", "--json"]), state);
    let _ = BOT;
}

#[test]
fn ghost_does_not_start_before_its_rule_is_imported() {
    let bot = bot();
    play(
        &bot,
        "a",
        at(NOW),
        &[
            ("alice@nomic.example", LIST, "[nomic] join Alice", ""),
            ("bob@nomic.example", LIST, "[nomic] join Bob", ""),
            (MODERATOR, BOT, "[ghost] start Alice, Bob", ""),
        ],
    );
    let refused = replies_to(&bot, MODERATOR);
    assert!(refused.contains("nomicbot import-rules ghost"), "{refused}");
}

#[test]
fn ghost_does_not_start_on_gnomics_rule_103_and_says_how_to_import_its_own() {
    let bot = bot();
    import_ok(&bot, &["gnomic"]);
    play(
        &bot,
        "a",
        at("2026-03-02T10:00:00Z"),
        &[
            ("alice@nomic.example", LIST, "[nomic] join Alice", ""),
            ("bob@nomic.example", LIST, "[nomic] join Bob", ""),
            (MODERATOR, BOT, "[ghost] start Alice, Bob", ""),
        ],
    );
    let refused = replies_to(&bot, MODERATOR);
    assert!(
        refused.contains("\"Definition of rule changes\""),
        "{refused}"
    );
    assert!(
        refused.contains("nomicbot import-rules ghost --number 441"),
        "{refused}"
    );
}

#[test]
fn a_rule_never_imported_is_shown_as_the_bots_own_text_not_as_followed() {
    let bot = bot();
    assert_eq!(bindings_of(&bot, "ghost"), [(103, "baseline".to_owned())]);
    let text = bot.cli_ok(&["state", "bindings"]);
    assert!(text.contains("not in the ruleset"), "{text}");
    import_ok(&bot, &["ghost"]);
    assert_eq!(bindings_of(&bot, "ghost"), [(103, "follows".to_owned())]);
}
