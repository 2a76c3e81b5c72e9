//! The Machine's truth (rule 1209 §III): its form, its words, its disguise, and a
//! guess compared with it (§VI) or a Magic Letter shown in it (§VII). Pure: the
//! dictionary and the ruleset's words come in as a predicate.

use serde::{Deserialize, Serialize};

/// What comes before the clause: "IF AND ONLY IF today".
pub const OPENING: &str = "IF AND ONLY IF today";
/// What follows it: ", THEN the Machine That Goes *ping* shall go *ping*."
pub const CLOSING: &str = ", THEN the Machine That Goes *ping* shall go *ping*.";

/// The numbers of §III and §VII, with the text's values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Limits {
    /// "{if clause} will be replaced by no more than twelve words".
    pub max_words: usize,
    /// "Common vowels ('a', 'e', 'i', 'o') cost A$25".
    pub premium_vowel: i64,
    /// "Common consonants ('d', 'l', 'n', 'r', 's', 't') cost A$15".
    pub premium_consonant: i64,
    /// "all other letters cost A$5".
    pub premium_other: i64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_words: 12,
            premium_vowel: 25,
            premium_consonant: 15,
            premium_other: 5,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TruthError {
    #[error("the if clause is empty")]
    Empty,
    #[error("the if clause has {words} words; no more than {max} are allowed")]
    TooManyWords { words: usize, max: usize },
    #[error("\"{0}\" is in neither the official dictionary nor the rules")]
    NotAWord(String),
    #[error("\"{part}\" (in \"{form}\") is in neither the official dictionary nor the rules")]
    NotAWordIn { part: String, form: String },
    #[error("\"{0}\" has an apostrophe or hyphen with no letters on one side")]
    Misused(String),
    #[error("\"{0}\" is neither a word nor standard punctuation")]
    NotPunctuation(String),
    #[error("the Machine has uttered this truth before")]
    Uttered,
}

/// A truth as the Scholar sent it: the whole sentence of §III, or the clause alone.
/// Returns the clause, trimmed, without its closing comma.
pub fn clause(text: &str) -> &str {
    let text = text.trim();
    let lower = text.to_ascii_lowercase();
    let opening = OPENING.to_ascii_lowercase();
    let closing = CLOSING.to_ascii_lowercase();
    let body = if lower.starts_with(&opening) {
        let rest = &text[OPENING.len()..];
        let rest_lower = &lower[OPENING.len()..];
        match rest_lower.rfind(closing.trim_end_matches('.')) {
            Some(at) => &rest[..at],
            None => rest,
        }
    } else {
        text
    };
    body.trim().trim_end_matches(',').trim()
}

/// An apostrophe: the typewriter's, or the typographer's (’) that many mail
/// programs put in its place, or its opening twin (‘) that some put by mistake.
fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '\u{2019}' | '\u{2018}')
}

/// The words of a clause as written: runs of letters and digits joined by
/// apostrophes and hyphens ("isn't", "week-end", "o'clock"). Two hyphens or more
/// in a row are a dash between two words ("Monday--Friday"), not a join; an
/// apostrophe or hyphen at either end of a run is a quotation mark or a suspended
/// hyphen ("'Monday'", "pre- and post-war"), not part of the word.
pub fn words(clause: &str) -> Vec<&str> {
    clause
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || is_apostrophe(c)))
        .flat_map(|run| run.split("--"))
        .map(|w| w.trim_matches(|c: char| c == '-' || is_apostrophe(c)))
        .filter(|w| !w.is_empty())
        .collect()
}

/// A word as it is looked up: lower case, every apostrophe the typewriter's, so
/// that "Isn’t" and "isn't" are one word.
pub fn normal(word: &str) -> String {
    word.chars()
        .map(|c| if is_apostrophe(c) { '\'' } else { c })
        .collect::<String>()
        .to_lowercase()
}

/// The words a rule's text holds, for §III's "exist in the Rules": each word as
/// written, and each piece of a hyphenated one ("week-end" holds "week" and
/// "end", which exist in that rule as much as the compound does), normalised.
pub fn vocabulary(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for word in words(text) {
        found.push(normal(word));
        if word.contains('-') {
            found.extend(word.split('-').map(normal));
        }
    }
    found
}

/// What standard English writes after an apostrophe on a word's stem: the
/// possessive or "is"/"has" ('s), "not" (n't, whose n joins the stem: "isn't"),
/// "would"/"had" ('d), "will" ('ll), "am" ('m), "are" ('re), "have" ('ve).
const ENDINGS: [&str; 7] = ["s", "t", "d", "ll", "m", "re", "ve"];

/// How many of §III's twelve words `word` is, or why it is not "a word [...]
/// in the official dictionary or [...] in the Rules" with "punctuation properly
/// used". A word `known` whole counts one. Otherwise its apostrophes and hyphens
/// are punctuation between words, and each of the words they separate must be
/// known and counts one, so that gluing words with hyphens gains none
/// ("the-day-is-odd" is four); a standard ending after an apostrophe ("'s",
/// "n't") is part of its stem's word, not a word of its own.
fn reading(word: &str, known: &impl Fn(&str) -> bool) -> Result<usize, TruthError> {
    // "can''t" and "week-'end": no letters between two marks is no proper use.
    if word
        .split(|c: char| c == '-' || is_apostrophe(c))
        .any(str::is_empty)
    {
        return Err(TruthError::Misused(word.to_owned()));
    }
    if known(&normal(word)) {
        return Ok(1);
    }
    word.split('-')
        .map(|piece| piece_reading(piece, word, known))
        .sum()
}

/// One hyphen-free piece of `word` (no empty parts: `reading` checked).
fn piece_reading(
    piece: &str,
    word: &str,
    known: &impl Fn(&str) -> bool,
) -> Result<usize, TruthError> {
    let is_known = |part: &str| known(&normal(part));
    if is_known(piece) {
        return Ok(1);
    }
    let parts: Vec<&str> = piece.split(is_apostrophe).collect();
    if let [stems @ .., last_stem, ending] = parts.as_slice() {
        let ending = normal(ending);
        // "isn't" is "is" and "not": the n is written on the stem.
        let stem_known = is_known(last_stem)
            || (ending == "t"
                && last_stem.len() > 1
                && last_stem.ends_with(['n', 'N'])
                && is_known(&last_stem[..last_stem.len() - 1]));
        let ending_fits = ENDINGS.contains(&ending.as_str())
            && (ending != "t" || last_stem.ends_with(['n', 'N']));
        if ending_fits && stem_known && stems.iter().all(|stem| is_known(stem)) {
            return Ok(stems.len() + 1);
        }
    }
    match parts.iter().find(|part| !is_known(part)) {
        Some(unknown) if *unknown == word => Err(TruthError::NotAWord(word.to_owned())),
        Some(unknown) => Err(TruthError::NotAWordIn {
            part: (*unknown).to_owned(),
            form: word.to_owned(),
        }),
        None => Ok(parts.len()),
    }
}

/// Standard English punctuation, besides the spaces between words.
fn is_punctuation(c: char) -> bool {
    is_apostrophe(c)
        || matches!(
            c,
            '.' | ',' | ';' | ':' | '!' | '?' | '"' | '-' | '(' | ')' | '“' | '”' | '–' | '—'
        )
}

/// Checks a clause against §III: nothing but words and punctuation, each word
/// a word of the dictionary or of the rules (`known`, asked with the word in
/// lower case, any apostrophe the typewriter's) whole or by the words its
/// apostrophes and hyphens separate, at most twelve words counted so, and never
/// uttered before (`uttered`: the Machine's past truths' clauses).
pub fn check(
    clause: &str,
    limits: &Limits,
    known: impl Fn(&str) -> bool,
    uttered: &[String],
) -> Result<(), TruthError> {
    let found = words(clause);
    if found.is_empty() {
        return Err(TruthError::Empty);
    }
    if let Some(stray) = clause
        .chars()
        .find(|c| !(c.is_alphanumeric() || c.is_whitespace() || is_punctuation(*c)))
    {
        return Err(TruthError::NotPunctuation(stray.to_string()));
    }
    let mut counted = 0;
    for word in &found {
        counted += reading(word, &known)?;
    }
    if counted > limits.max_words {
        return Err(TruthError::TooManyWords {
            words: counted,
            max: limits.max_words,
        });
    }
    if uttered.iter().any(|past| same(past, clause)) {
        return Err(TruthError::Uttered);
    }
    Ok(())
}

/// The whole truth, as the rule writes it.
pub fn sentence(clause: &str) -> String {
    format!("{OPENING} {clause}{CLOSING}")
}

/// The disguised truth (§III): every letter (and digit) of the clause a `*`,
/// spaces and punctuation kept; the Magic Letters of the term (§VII) shown.
pub fn disguised(clause: &str, magic: &[char]) -> String {
    let shown: String = clause
        .chars()
        .map(|c| {
            // Letters and digits are hidden, but the Magic Letters of the term.
            let shown = !c.is_alphanumeric() || magic.iter().any(|m| m.eq_ignore_ascii_case(&c));
            if shown { c } else { '*' }
        })
        .collect();
    sentence(&shown)
}

/// Two wordings of a clause are the same truth: compared without regard to case,
/// spacing and punctuation (§VI's "correct guess", and "never uttered before").
/// Punctuation aside includes the apostrophes and hyphens inside a word: "isn’t"
/// is "isnt", "week-end" is "weekend".
pub fn same(a: &str, b: &str) -> bool {
    let key = |text: &str| -> Vec<String> {
        words(clause(text))
            .into_iter()
            .map(|word| {
                word.chars()
                    .filter(|c| !(*c == '-' || is_apostrophe(*c)))
                    .collect::<String>()
                    .to_lowercase()
            })
            .collect()
    };
    key(a) == key(b)
}

/// §VII's premium for naming `letter`.
pub fn premium(letter: char, limits: &Limits) -> i64 {
    match letter.to_ascii_lowercase() {
        'a' | 'e' | 'i' | 'o' => limits.premium_vowel,
        'd' | 'l' | 'n' | 'r' | 's' | 't' => limits.premium_consonant,
        _ => limits.premium_other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = "IF AND ONLY IF today is Wednesday or Thursday, THEN the Machine That Goes *ping* shall go *ping*.";

    #[test]
    fn section_iii_the_rules_own_example_is_disguised_exactly() {
        assert_eq!(clause(EXAMPLE), "is Wednesday or Thursday");
        assert_eq!(
            clause("is Wednesday or Thursday"),
            "is Wednesday or Thursday"
        );
        assert_eq!(
            disguised(clause(EXAMPLE), &[]),
            "IF AND ONLY IF today ** ********* ** ********, THEN the Machine That Goes *ping* shall go *ping*."
        );
        assert_eq!(sentence("is Wednesday or Thursday"), EXAMPLE);
    }

    #[test]
    fn section_iii_at_most_twelve_dictionary_words_and_punctuation_never_uttered_before() {
        let limits = Limits::default();
        let known = |w: &str| !w.eq_ignore_ascii_case("blorf");
        assert_eq!(check("is Tuesday", &limits, known, &[]), Ok(()));
        assert_eq!(
            check(
                "is a day of the week that ends in y and is not Sunday",
                &limits,
                known,
                &[]
            ),
            Err(TruthError::TooManyWords { words: 14, max: 12 })
        );
        assert_eq!(
            check("is blorf", &limits, known, &[]),
            Err(TruthError::NotAWord("blorf".into()))
        );
        assert_eq!(
            check("is Tuesday (or Friday), at least!", &limits, known, &[]),
            Ok(())
        );
        assert_eq!(
            check("is Tuesday <3", &limits, known, &[]),
            Err(TruthError::NotPunctuation("<".into()))
        );
        assert_eq!(
            check("is TUESDAY.", &limits, known, &["is Tuesday".into()]),
            Err(TruthError::Uttered)
        );
        assert_eq!(check("", &limits, known, &[]), Err(TruthError::Empty));
    }

    #[test]
    fn section_vi_a_guess_is_compared_without_case_spacing_or_punctuation() {
        assert!(same(EXAMPLE, "is wednesday  or thursday"));
        assert!(same(
            "is Wednesday, or Thursday!",
            "IS WEDNESDAY OR THURSDAY"
        ));
        assert!(!same(EXAMPLE, "is Wednesday or Friday"));
    }

    #[test]
    fn section_vii_magic_letters_are_shown_and_cost_their_premium() {
        assert_eq!(
            disguised("is Wednesday or Thursday", &['s', 'D']),
            "IF AND ONLY IF today *s **d**sd** ** ****sd**, THEN the Machine That Goes *ping* shall go *ping*."
        );
        let limits = Limits::default();
        assert_eq!(premium('A', &limits), 25);
        assert_eq!(premium('t', &limits), 15);
        assert_eq!(premium('q', &limits), 5);
    }

    /// The dictionary of the tests below: no single letters but "a" and "o", and no
    /// word with an apostrophe or hyphen but "o'clock".
    fn small_dictionary(word: &str) -> bool {
        [
            "a", "o", "is", "it", "the", "day", "week", "end", "clock", "can", "do", "they", "we",
            "twelve", "past", "or", "monday", "friday", "odd", "pre", "post", "war", "of", "not",
            "o'clock",
        ]
        .contains(&word)
    }

    #[test]
    fn section_iii_punctuation_properly_used_a_word_whose_parts_are_words_is_a_word() {
        // "Each of these words must be in the official dictionary or exist in the
        // Rules. {if clause} shall not contain anything that is not a word, except
        // punctuation properly used by the rules of standard English."
        let limits = Limits::default();
        for clause in [
            "isn't a week-end day",
            "is past twelve o'clock",
            "is the week's end",
            "they're past the week-end, or it's Monday",
            "can't be a week-end day",
            "doesn't end",
        ] {
            let known = |w: &str| small_dictionary(w) || w == "does" || w == "be";
            assert_eq!(check(clause, &limits, known, &[]), Ok(()), "{clause}");
        }
        // Today's reading of a plain word is unchanged.
        assert_eq!(
            check("is blorf", &limits, small_dictionary, &[]),
            Err(TruthError::NotAWord("blorf".into()))
        );
    }

    #[test]
    fn section_iii_a_word_in_the_dictionary_or_the_rules_whole_is_one_word() {
        // "o'clock" is in the small dictionary whole; "rock'n'roll" is whole in the
        // rules (`known` is the dictionary or the rules' vocabulary).
        let limits = Limits::default();
        let rules = vocabulary("A Trinket of rock'n'roll, and a week-end.");
        assert!(rules.contains(&"rock'n'roll".to_owned()), "{rules:?}");
        assert!(rules.contains(&"week".to_owned()), "{rules:?}");
        let known = |w: &str| small_dictionary(w) || rules.iter().any(|r| r == w);
        assert_eq!(check("is rock'n'roll day", &limits, known, &[]), Ok(()));
        // "o'clock" whole is one word: twelve words in all. Looked up by its
        // parts, "o" and "clock", it would be two, and the clause thirteen.
        let twelve = "is past twelve o'clock or day of a week-end or Monday";
        assert_eq!(check(twelve, &limits, small_dictionary, &[]), Ok(()));
        let by_parts = |w: &str| w != "o'clock" && small_dictionary(w);
        assert_eq!(
            check(twelve, &limits, by_parts, &[]),
            Err(TruthError::TooManyWords { words: 13, max: 12 })
        );
    }

    #[test]
    fn section_iii_no_more_than_twelve_words_hyphens_glue_none_together() {
        // "{if clause} will be replaced by no more than twelve words": a hyphenated
        // word the dictionary and the rules do not hold whole is the words it
        // joins, so gluing thirteen words with hyphens is thirteen words.
        let limits = Limits::default();
        let glued = "is-the-day-of-the-week-or-the-day-of-a-week-end";
        assert_eq!(
            check(glued, &limits, small_dictionary, &[]),
            Err(TruthError::TooManyWords { words: 13, max: 12 })
        );
        // Two words of a week-end, and one for "week's": "'s" is no word.
        assert_eq!(
            check(
                "is a week-end or the week's end or Monday or Friday",
                &limits,
                small_dictionary,
                &[]
            ),
            Ok(())
        );
        assert_eq!(
            check(
                "is a week-end or the week's end or Monday or the Friday",
                &limits,
                small_dictionary,
                &[]
            ),
            Err(TruthError::TooManyWords { words: 13, max: 12 })
        );
    }

    #[test]
    fn section_iii_hyphens_and_apostrophes_gluing_non_words_are_refused() {
        // "Each of these words must be in the official dictionary or exist in the
        // Rules", whatever punctuation joins them.
        let limits = Limits::default();
        let refused = |clause: &str, part: &str, form: &str| {
            assert_eq!(
                check(clause, &limits, small_dictionary, &[]),
                Err(TruthError::NotAWordIn {
                    part: part.into(),
                    form: form.into()
                }),
                "{clause}"
            );
        };
        refused("is a-b-c", "b", "a-b-c");
        refused("is week-blorf", "blorf", "week-blorf");
        refused("is blorf's day", "blorf", "blorf's");
        // "n't" needs an n: "it't" is no contraction, and "t" no word here.
        refused("it't odd", "t", "it't");
        // Not an ending of English: "'x" is a part, and must be a word.
        refused("is the day'x", "x", "day'x");
        // "isn't" is "is" and "not", but "blorfn't" is not "blorf" and "not".
        refused("blorfn't odd", "blorfn", "blorfn't");
    }

    #[test]
    fn section_iii_curly_apostrophes_are_apostrophes() {
        // "punctuation properly used by the rules of standard English": ’ is the
        // typographer's apostrophe, ‘ a mail program's mistake for it.
        let limits = Limits::default();
        assert_eq!(
            check("isn’t a week‘s end", &limits, small_dictionary, &[]),
            Ok(())
        );
        assert_eq!(words("isn’t a week-end"), ["isn’t", "a", "week-end"]);
        assert_eq!(normal("Isn’t"), "isn't");
        // Twelve past o’clock: the dictionary's "o'clock", whole.
        assert_eq!(
            check(
                "is past twelve o’clock",
                &limits,
                |w: &str| w != "o" && small_dictionary(w),
                &[]
            ),
            Ok(())
        );
        // The disguise keeps it, like every mark of punctuation.
        assert_eq!(
            disguised("isn’t a week-end", &[]),
            "IF AND ONLY IF today ***’* * ****-***, THEN the Machine That Goes *ping* shall go *ping*."
        );
    }

    #[test]
    fn section_iii_marks_at_either_end_are_quotation_marks_and_suspended_hyphens() {
        // Quotation marks and a suspended hyphen are "punctuation properly used";
        // they are not part of the word they stand by.
        let limits = Limits::default();
        assert_eq!(
            words("is 'Monday' or pre- and post-war"),
            ["is", "Monday", "or", "pre", "and", "post-war"]
        );
        let known = |w: &str| small_dictionary(w) || w == "and";
        assert_eq!(
            check("is 'Monday' or ‘Friday’", &limits, known, &[]),
            Ok(())
        );
        assert_eq!(
            check("is a pre- or post-war day", &limits, known, &[]),
            Ok(())
        );
        // A leading apostrophe is read as a quotation mark: "'tis" is "tis".
        assert_eq!(
            check("'tis Monday", &limits, known, &[]),
            Err(TruthError::NotAWord("tis".into()))
        );
    }

    #[test]
    fn section_iii_a_mark_with_no_letters_on_one_side_is_not_properly_used() {
        let limits = Limits::default();
        let check = |clause: &str| check(clause, &limits, small_dictionary, &[]);
        // Two hyphens are a dash, between words or alone: "--" is no word.
        assert_eq!(check("--"), Err(TruthError::Empty));
        assert_eq!(check("-- ' -"), Err(TruthError::Empty));
        assert_eq!(check("is Monday -- or Friday"), Ok(()));
        assert_eq!(check("is Monday--or Friday"), Ok(()));
        assert_eq!(words("Monday---Friday"), ["Monday", "Friday"]);
        // Two marks with nothing between them inside a word.
        assert_eq!(
            check("can''t end"),
            Err(TruthError::Misused("can''t".into()))
        );
        assert_eq!(
            check("is a week-'end"),
            Err(TruthError::Misused("week-'end".into()))
        );
        assert_eq!(
            check("is a week'-end"),
            Err(TruthError::Misused("week'-end".into()))
        );
    }

    #[test]
    fn section_vi_apostrophes_and_hyphens_are_punctuation_in_a_guess() {
        // "the correct guess": case, spacing and punctuation aside, a curly
        // apostrophe and a straight one, or none, are the same guess.
        let truth = "isn’t a week-end day";
        assert!(same(truth, "isn't a week-end day"));
        assert!(same(truth, "ISNT A WEEKEND DAY"));
        assert!(!same(truth, "isn't a week end day"));
        assert!(!same(truth, "is not a week-end day"));
        // And one wording of it is "a truth the Machine has uttered before".
        assert_eq!(
            check(
                "isnt a weekend day",
                &Limits::default(),
                |_: &str| true,
                &[truth.into()]
            ),
            Err(TruthError::Uttered)
        );
    }
}
