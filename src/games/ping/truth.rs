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

/// The words of a clause: runs of letters, digits, apostrophes and hyphens.
pub fn words(clause: &str) -> Vec<&str> {
    clause
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '-'))
        .map(|w| w.trim_matches(|c| c == '\'' || c == '-'))
        .filter(|w| !w.is_empty())
        .collect()
}

/// Standard English punctuation, besides the spaces between words.
fn is_punctuation(c: char) -> bool {
    matches!(
        c,
        '.' | ',' | ';' | ':' | '!' | '?' | '\'' | '"' | '-' | '(' | ')' | '’' | '“' | '”'
    )
}

/// Checks a clause against §III: at most twelve words, each a word of the
/// dictionary or of the rules (`known`), nothing else but punctuation, and never
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
    if found.len() > limits.max_words {
        return Err(TruthError::TooManyWords {
            words: found.len(),
            max: limits.max_words,
        });
    }
    if let Some(stray) = clause
        .chars()
        .find(|c| !(c.is_alphanumeric() || c.is_whitespace() || is_punctuation(*c)))
    {
        return Err(TruthError::NotPunctuation(stray.to_string()));
    }
    if let Some(unknown) = found.iter().find(|w| !known(w)) {
        return Err(TruthError::NotAWord((*unknown).to_owned()));
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
pub fn same(a: &str, b: &str) -> bool {
    let key = |text: &str| -> Vec<String> {
        words(clause(text))
            .into_iter()
            .map(str::to_lowercase)
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
}
