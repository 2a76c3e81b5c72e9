//! The registry's unit tests: import, glossary, commands.

use super::glossary::uses_words;
use super::*;
use crate::engine::NotUnderstood;

const GNOMIC: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/rules/gnomic-ruleset-v73.txt"
));
const RULE_TAG: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/rules/rule-tag-proposal.txt"
));

fn at(minutes: i64) -> Timestamp {
    Timestamp::from_second(1_800_000_000 + minutes * 60).unwrap()
}

fn ctx(minutes: i64) -> Ctx {
    Ctx {
        now: at(minutes),
        sender: crate::engine::Address::new("officer@example.org"),
        sender_name: None,
        public: true,
        entropy: [7; 32],
    }
}

fn lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_owned).collect()
}

/// Applies a message as the shell would; returns each line's outcome.
fn run(
    ruleset: &mut Ruleset,
    message: &str,
    minutes: i64,
    officer: bool,
) -> Vec<Result<Done<Event>, Refusal>> {
    parse_message(&lines(message))
        .into_iter()
        .map(|(_, command)| {
            let command = command.map_err(|NotUnderstood(s)| Refusal(s))?;
            let done = ruleset.apply(command, &ctx(minutes), officer)?;
            for event in &done.events {
                ruleset.apply_event(event, at(minutes));
            }
            Ok(done)
        })
        .collect()
}

fn refusal(result: &Result<Done<Event>, Refusal>) -> &str {
    match result {
        Ok(_) => "done",
        Err(Refusal(sentence)) => &sentence.code,
    }
}

fn rule_tag_ruleset() -> Ruleset {
    let mut ruleset = Ruleset::default();
    let rules = parse_ruleset_with(RULE_TAG, 500).unwrap();
    ruleset.apply_event(&Event::Imported { rules }, at(0));
    ruleset
}

#[test]
fn the_gnomic_page_imports_every_listed_rule() {
    let rules = parse_ruleset(GNOMIC).unwrap();
    let expected: Vec<u32> = vec![
        101, 102, 103, 104, 105, 107, 108, 109, 110, 112, 113, 114, 115, 116, 117, 118, 119, 204,
        205, 211, 212, 213, 302, 303, 304, 310, 322, 324, 325, 327, 332, 334, 336, 342, 349, 359,
        364, 366, 370, 371, 372, 373, 381, 382, 383, 384, 390, 392, 394, 399, 401, 402, 407, 410,
        412, 419, 421, 423, 424, 425, 430, 431, 432, 434, 437, 440,
    ];
    let numbers: Vec<u32> = rules.iter().map(|rule| rule.number).collect();
    assert_eq!(numbers, expected);
    let rule = |number| rules.iter().find(|rule| rule.number == number).unwrap();
    assert_eq!(rule(101).name, "Follow the rules");
    assert_eq!(rule(104).name, "Two decks of cards");
    assert_eq!(rule(322).name, "Rule 322");
    assert_eq!(rule(336).name, "Now, hold up one finger...");
    assert_eq!(rule(303).name, "May they wait until they're dead");
    assert!(rule(303).note.starts_with("(void: conflicting rule)"));
    assert!(
        rule(325)
            .text
            .starts_with("Players shall alternate in alphabetical order")
    );
    assert!(
        rule(325)
            .text
            .ends_with("All scores will be rounded to next integer.")
    );
    assert!(!rule(325).text.contains("Amended to Prop."));
    assert!(rule(322).text.contains("within a 72-hour period"));
    assert!(rule(440).text.ends_with("all those greek letters."));
    assert!(!rule(440).text.contains("Comments on"));
    // Rule 102: the 100's are immutable, everything else mutable.
    for rule in &rules {
        assert_eq!(rule.mutable, rule.number >= 200, "rule {}", rule.number);
        assert_eq!(rule.version, 1);
    }
}

#[test]
fn the_rule_tag_proposal_imports_five_numbered_rules() {
    let rules = parse_ruleset_with(RULE_TAG, 326).unwrap();
    let names: Vec<(u32, &str)> = rules.iter().map(|r| (r.number, r.name.as_str())).collect();
    assert_eq!(
        names,
        [
            (326, "Elements"),
            (327, "Rule Tag"),
            (328, "rule tag invalid paths"),
            (329, "rule tag moderation"),
            (330, "rule tag basketball"),
        ]
    );
    assert!(
        rules[0]
            .text
            .starts_with("There is an attribute \"element\".")
    );
    assert!(rules[1].text.ends_with("then this rule takes precedence."));
    assert!(rules[4].text.ends_with("starting\nRTL's to all RTO's."));
    assert!(rules.iter().all(|rule| rule.mutable));
    assert_eq!(parse_ruleset(RULE_TAG).unwrap()[0].number, 1);
    assert_eq!(parse_ruleset("hello"), Err(ImportError::UnknownFormat));
    assert_eq!(
        parse_ruleset("Create a new rule \"Empty\":\n\n"),
        Err(ImportError::NoText {
            number: 1,
            name: "Empty".into()
        })
    );
}

#[test]
fn an_ackanomic_rule_without_a_title_is_called_by_its_number_and_its_author_is_a_note() {
    let page = "Rule 1213/9\nHabeous Corpus (Ed Graham)\n\nCreate a game.\n\n\
                Rule 1217/7\nBuried Treasure!\nMalenkai (Randy Hall)\n\nBury it.\n\n\
                Acka Rules Menu HTML 3.2 Checked!";
    let rules = parse_ruleset(page).unwrap();
    let read: Vec<(&str, &str, &str)> = rules
        .iter()
        .map(|r| (r.name.as_str(), r.note.as_str(), r.text.as_str()))
        .collect();
    assert_eq!(
        read,
        [
            ("Rule 1213", "Habeous Corpus (Ed Graham)", "Create a game."),
            ("Buried Treasure!", "Malenkai (Randy Hall)", "Bury it."),
        ]
    );
}

#[test]
fn a_rule_under_its_title_line_has_its_author_as_a_note() {
    let text = "103 - Ghost\n\nGuy Fawkes\n1. Equipment: none \n2. Players\n\n3. Beginning";
    let rules = parse_ruleset(text).unwrap();
    assert_eq!(rules.len(), 1);
    assert_eq!((rules[0].number, rules[0].name.as_str()), (103, "Ghost"));
    assert_eq!(rules[0].note, "Guy Fawkes");
    assert_eq!(
        rules[0].text,
        "1. Equipment: none\n2. Players\n\n3. Beginning"
    );
}

#[test]
fn a_ruleset_of_paragraphs_keeps_wrapped_lines_and_items_with_their_rule() {
    let text = "A player may act.\nUnless a rule forbids:\n- e may move to an\nadjacent vertex.\n\
                - e may wait.\nThe game ends.";
    let rules = parse_paragraphs(text, 7, "Space Nomic").unwrap();
    let read: Vec<(u32, &str, &str)> = rules
        .iter()
        .map(|r| (r.number, r.name.as_str(), r.text.as_str()))
        .collect();
    assert_eq!(
        read,
        [
            (7, "Space Nomic 1", "A player may act."),
            (
                8,
                "Space Nomic 2",
                "Unless a rule forbids:\n- e may move to an\nadjacent vertex.\n- e may wait."
            ),
            (9, "Space Nomic 3", "The game ends."),
        ]
    );
}

#[test]
fn a_page_that_lists_a_rule_it_does_not_hold_is_refused() {
    let page = "101 102\n\nRule 101\n\nFollow the rules.\n\nAll players must.\n\ninitial rule.\n";
    assert_eq!(parse_ruleset(page), Err(ImportError::Missing(102)));
}

#[test]
fn the_glossary_of_rule_tag_finds_terms_aliases_and_uses() {
    let ruleset = rule_tag_ruleset();
    let (elements, rule_tag, invalid_paths, moderation, basketball) = (500, 501, 502, 503, 504);

    let element = ruleset.term("Element").unwrap();
    assert_eq!(element.defined_in, [elements]);
    // "Each players' current RTL and element"; "elemental" is another word.
    assert_eq!(element.used_in, [moderation]);

    let rto = ruleset.term("RTO").unwrap();
    assert_eq!(rto.term, "rule tag object");
    assert_eq!(rto.aliases, ["rto"]);
    assert_eq!(rto.defined_in, [rule_tag]);
    assert_eq!(rto.used_in, [moderation, basketball]);

    let rtl = ruleset.term("rule tag location").unwrap();
    assert_eq!(rtl.aliases, ["rtl"]);
    assert_eq!(ruleset.rules_defining("RTL"), [rule_tag]);
    assert_eq!(ruleset.rules_using("rtl"), [moderation, basketball]);

    // A new term, not a third name of the location.
    assert_eq!(ruleset.rules_defining("RTL rule"), [rule_tag]);
    assert_eq!(ruleset.term("game term").unwrap().used_in, [invalid_paths]);
    let moderator = ruleset.term("rule tag moderator").unwrap();
    assert_eq!(moderator.defined_in, [moderation]);
    assert_eq!(
        moderator.aliases,
        ["the bearer of the wobbly hat of justice"]
    );
    // The Elements rule names the moderator only in a [[comment]].
    assert_eq!(moderator.used_in, [rule_tag, basketball]);
    assert_eq!(ruleset.rules_defining("rule tag action"), [rule_tag]);
    assert_eq!(ruleset.rules_defining("element change"), [elements]);
    assert_eq!(ruleset.rules_defining("rule tag ball"), [basketball]);
    // Listed values and mentions are no definitions.
    assert!(ruleset.term("earth").is_none());
    assert!(ruleset.term("player").is_none());
    assert!(ruleset.term("move actions").is_none());

    let defined: Vec<&str> = ruleset
        .terms_defined_in(elements)
        .iter()
        .map(|t| t.term.as_str())
        .collect();
    assert_eq!(defined, ["element", "element change"]);
    assert!(
        ruleset
            .terms_used_in(moderation)
            .iter()
            .any(|t| t.term == "rule tag object")
    );
    let links: Vec<&str> = ruleset
        .linking_terms(moderation, elements)
        .iter()
        .map(|t| t.term.as_str())
        .collect();
    assert_eq!(links, ["element"]);
}

#[test]
fn gnomic_definitions_are_found_but_rule_names_are_not() {
    let rules = parse_ruleset(GNOMIC).unwrap();
    let glossary = extract_glossary(&rules);
    let term = |name: &str| glossary.iter().find(|t| t.is_named(name));
    assert_eq!(term("simple majority").unwrap().defined_in, [392]);
    assert_eq!(
        term("ffmrfl").unwrap().term,
        "fund for mental reeducation of formal logicians"
    );
    assert_eq!(term("the fund").unwrap().defined_in, [419]);
    assert_eq!(term("chat mode").unwrap().defined_in, [437]);
    assert!(term("e-mail mode").is_some());
    assert!(term("two decks of cards").is_none());
}

#[test]
fn enact_amend_and_repeal_keep_history_and_log() {
    let mut ruleset = rule_tag_ruleset();
    let results = run(
        &mut ruleset,
        "enact \"Rule Tag Scores\"\nScores of rule tag are public.\nend\nshow 505",
        10,
        true,
    );
    assert_eq!(refusal(&results[0]), "done");
    let mail = &results[0].as_ref().unwrap().mail[0];
    assert_eq!(mail.template, "ruleset_changed");
    assert_eq!(mail.values["kind"], "enacted");
    assert_eq!(mail.values["number"], 505);
    let shown = &results[1].as_ref().unwrap().sentence;
    assert_eq!(shown.code, "ruleset_rule");
    assert_eq!(shown.args["text"], "Scores of rule tag are public.");

    run(
        &mut ruleset,
        "amend 505\nScores are secret.\n\nReally.",
        20,
        true,
    );
    let rule = ruleset.get(505).unwrap();
    assert_eq!((rule.version, rule.name.as_str()), (2, "Rule Tag Scores"));
    assert_eq!(rule.text, "Scores are secret.\n\nReally.");
    assert_eq!(
        ruleset.past.last().unwrap().text,
        "Scores of rule tag are public."
    );

    assert!(ruleset.changed_between(505, at(15), at(25)));
    assert!(!ruleset.changed_between(505, at(21), at(30)));
    assert!(!ruleset.changed_between(501, at(15), at(25)));
    // Half-open: a change at the end of the span belongs to the next one.
    assert!(!ruleset.changed_between(505, at(11), at(20)));

    let results = run(&mut ruleset, "repeal rule 505", 30, true);
    assert_eq!(
        results[0].as_ref().unwrap().mail[0].values["kind"],
        "repealed"
    );
    assert!(!ruleset.exists(505));
    assert!(ruleset.was_repealed(505));
    assert_eq!(ruleset.next_free_number(), 506);
    let kinds: Vec<ChangeKind> = ruleset
        .changes_between(at(5), at(31))
        .iter()
        .map(|c| c.kind)
        .collect();
    assert_eq!(
        kinds,
        [
            ChangeKind::Enacted,
            ChangeKind::Amended,
            ChangeKind::Repealed
        ]
    );
    assert_eq!(
        refusal(&run(&mut ruleset, "show 505", 31, false)[0]),
        "ruleset_no_such_rule"
    );

    // The state survives a round trip through JSON, as the store keeps it.
    let json = serde_json::to_string(&ruleset).unwrap();
    assert_eq!(serde_json::from_str::<Ruleset>(&json).unwrap(), ruleset);
}

#[test]
fn refusals_say_why() {
    let mut ruleset = rule_tag_ruleset();
    let gnomic = parse_ruleset(GNOMIC).unwrap();
    ruleset.apply_event(&Event::Imported { rules: gnomic }, at(1));
    let codes = |ruleset: &mut Ruleset, message: &str, officer: bool| -> Vec<String> {
        run(ruleset, message, 5, officer)
            .iter()
            .map(|r| refusal(r).to_owned())
            .collect()
    };
    assert_eq!(
        codes(
            &mut ruleset,
            "repeal 325\namend 325\nnew text\nend\ndefine x in 325",
            false
        ),
        ["ruleset_not_officer"; 3]
    );
    // Reading is for anyone.
    assert_eq!(
        codes(&mut ruleset, "show 325\nterms\nrules", false),
        ["done"; 3]
    );
    assert_eq!(
        codes(
            &mut ruleset,
            "repeal 999\namend 998\ntext\nend\nshow 997",
            true
        ),
        ["ruleset_no_such_rule"; 3]
    );
    assert_eq!(
        codes(
            &mut ruleset,
            "amend 101\nFollow no rules.\nend\nrepeal 101",
            true
        ),
        ["ruleset_immutable"; 2]
    );
    assert_eq!(
        codes(
            &mut ruleset,
            "enact 325 Again\ntext\nend\nenact Nothing\nend",
            true
        ),
        ["ruleset_number_taken", "ruleset_empty_text"]
    );
    assert_eq!(
        codes(&mut ruleset, "amend 325\n\nend", true),
        ["ruleset_empty_text"]
    );
    assert_eq!(
        codes(&mut ruleset, "dance\nrepeal\nenact 12\ntext of it", true),
        ["unknown_command", "usage", "usage"]
    );
    // Transmuting is how an immutable rule becomes amendable (Gnomic rule 103).
    assert_eq!(
        codes(
            &mut ruleset,
            "transmute 101\namend 101\nFollow no rules.",
            true
        ),
        ["done", "done"]
    );
    let rule = ruleset.get(101).unwrap();
    assert!(rule.mutable);
    assert_eq!(rule.version, 3);
    assert_eq!(rule.name, "Follow the rules");
}

#[test]
fn officer_corrections_survive_re_extraction() {
    let mut ruleset = rule_tag_ruleset();
    let results = run(
        &mut ruleset,
        "define nweek in 500\nundefine RTO in 501\nundefine element in 503",
        5,
        true,
    );
    assert_eq!(refusal(&results[0]), "done");
    assert_eq!(
        results[0].as_ref().unwrap().mail[0].values["kind"],
        "defined"
    );
    assert_eq!(refusal(&results[1]), "done");
    assert_eq!(refusal(&results[2]), "ruleset_term_not_defined");
    let nweek = ruleset.term("nweek").unwrap();
    assert!(nweek.corrected);
    assert_eq!(nweek.defined_in, [500]);
    assert_eq!(nweek.used_in, [501]);
    // The only rule defining it no longer does: no game term any more.
    assert!(ruleset.term("rule tag object").is_none());
    assert_eq!(
        refusal(&run(&mut ruleset, "define nweek in 500", 6, true)[0]),
        "ruleset_term_already_defined"
    );

    // An amendment re-reads the rules; the corrections still hold.
    run(
        &mut ruleset,
        "amend 501\nA \"rule tag object\" is a game object.",
        7,
        true,
    );
    assert!(ruleset.term("rto").is_none());
    assert_eq!(ruleset.rules_defining("nweek"), [500]);
    assert!(ruleset.rules_using("nweek").is_empty());

    // Defining it again undoes the undefine.
    run(&mut ruleset, "define rule tag object in 501", 8, true);
    assert_eq!(ruleset.rules_defining("rule tag object"), [501]);
    assert_eq!(ruleset.corrections.len(), 2);
}

#[test]
fn parse_message_groups_the_text_of_amend_and_enact() {
    let message = lines(
        "amend 325\nPlayers take turns.\n\nIn order.\nend\nshow 325\n\
         enact 326 \"Rule Tag\":\nA \"rule tag object\" is a type of game object.\n\
         enact immutable Sacred\nNever change.",
    );
    let read = parse_message(&message);
    let commands: Vec<&Command> = read.iter().map(|(_, c)| c.as_ref().unwrap()).collect();
    assert_eq!(read[0].0, "amend 325");
    assert_eq!(
        commands,
        [
            &Command::Amend {
                number: 325,
                text: "Players take turns.\n\nIn order.".into()
            },
            &Command::Show { number: 325 },
            &Command::Enact {
                number: Some(326),
                name: "Rule Tag".into(),
                // No "end": the text runs to the next... end of the message,
                // including what looks like a command.
                text: "A \"rule tag object\" is a type of game object.\n\
                       enact immutable Sacred\nNever change."
                    .into(),
                mutable: true,
            },
        ]
    );
    assert_eq!(
        parse("define \"rule tag object\" in rule 12"),
        Ok(Command::Define {
            term: "rule tag object".into(),
            number: 12
        })
    );
    assert_eq!(
        parse("enact immutable 7 Sacred"),
        Ok(Command::Enact {
            number: Some(7),
            name: "Sacred".into(),
            text: String::new(),
            mutable: false
        })
    );
    assert_eq!(parse("glossary"), Ok(Command::Terms));
}

#[test]
fn whole_words_and_plurals() {
    assert!(uses_words("the rto's rtl", "rto"));
    assert!(uses_words("all rule tag actions", "rule tag action"));
    assert!(uses_words("two boxes", "box"));
    assert!(!uses_words("elemental precedence", "element"));
    assert!(!uses_words("non-null", "null"));
    assert!(!uses_words("rtls", "rtl s"));
}

#[test]
fn a_page_whose_headers_carry_a_revision_is_read_by_number() {
    // Ackanomic's "Rule 1209/14": the number, then the revision.
    let page = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/rules/ackanomic-1209-1250.txt"
    ));
    let rules = parse_ruleset(page).unwrap();
    let numbers: Vec<u32> = rules.iter().map(|r| r.number).collect();
    assert_eq!(numbers, [1209, 1211, 1213, 1215, 1217, 1230, 1240, 1250]);
    let ping = rules.iter().find(|r| r.number == 1209).unwrap();
    assert_eq!(ping.name, "The Machine That Goes *ping*");
    assert!(ping.text.starts_with("I. There exists the unique entity"));
    // The author under the title is a note, not part of the name.
    assert_eq!(ping.note, "Guy Fawkes (Robert Shimmin)");
}

#[test]
fn a_one_letter_name_for_a_player_in_an_example_is_no_term() {
    let page = include_str!("../../../rules/ackanomic-1209-1250.txt");
    let rules = parse_ruleset(page).expect("the page");
    let glossary = extract_glossary(&rules);
    assert!(
        glossary.iter().all(|term| term.term.chars().count() > 1),
        "{:?}",
        glossary.iter().map(|term| &term.term).collect::<Vec<_>>()
    );
}
