//! The shipped word list, `dict/english.txt`: it loads, it is the size the README
//! says, and it answers the examples of Ackanomic rule 103.

use nomicbot::engine::dictionary::{Dictionary, Lexicon};

const SHIPPED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/dict/english.txt");

fn shipped_text() -> String {
    std::fs::read_to_string(SHIPPED).expect("dict/english.txt is shipped with the crate")
}

#[test]
fn the_shipped_list_is_lower_case_letters_one_word_a_line() {
    let text = shipped_text();
    let mut lines = 0;
    let mut previous = "";
    for (number, line) in text.lines().enumerate() {
        assert!(
            !line.is_empty() && line.bytes().all(|b| b.is_ascii_lowercase()),
            "line {}: {line:?}",
            number + 1
        );
        // Sorted and without duplicates, as dict/README.md says.
        assert!(previous < line, "line {}: {line:?}", number + 1);
        previous = line;
        lines += 1;
    }
    assert!(lines > 50_000, "{lines} lines");
}

#[test]
fn the_shipped_list_loads_and_answers_the_rule_examples() {
    let dictionary = Dictionary::from_text(&shipped_text()).expect("the shipped list loads");
    assert!(dictionary.len() > 50_000, "{} words", dictionary.len());
    assert_eq!(dictionary.skipped(), 0);
    assert!(dictionary.is_word("supersonic"));
    assert!(dictionary.is_inside_a_word("uperso"));
    assert!(!dictionary.is_inside_a_word("spronc"));
    assert!(!dictionary.is_word("uperso"));
}
