//! The official dictionary: "is this a word" and "is this string inside any word",
//! answered from an index built once, never by scanning the list. Pure: the shell
//! reads the word-list file and hands its text in; nothing here opens a file.
//!
//! # The index
//!
//! The words, lower-cased, sorted and deduplicated, are stored end to end in one
//! string, each followed by a newline: `"aardvark\nabacus\n...\n"`. Two indexes point
//! into it with `u32` offsets:
//!
//! - `word_starts`, the start of each word in sorted order: "is this a word" is a
//!   binary search over it.
//! - `tails`, a suffix array cut at word ends: one entry for each position inside a
//!   word, naming the word's tail from there ("upersonic" for the second letter of
//!   "supersonic"), sorted by that tail. A fragment is inside a word exactly when it
//!   is the start of some tail, and the tails starting with a given fragment are
//!   next to one another in the sorted order, so one binary search finds out, in
//!   O(|fragment| log n) byte comparisons.
//!
//! Tails stop at the newline, so a fragment can never match across the end of one
//! word and the start of the next ("ussuper" is in no word even though
//! "abacus\nsupersonic\n" holds "us" and "super" side by side).
//!
//! Only the last of a run of tails each of which starts the next is kept: if tail
//! `t` is the start of the tail after it, every fragment that starts `t` also starts
//! that next one, so `t` answers nothing the next one does not. This drops repeated
//! tails ("s", "ing", "ation" occur thousands of times) and every tail that is the
//! start of a longer one ("ers" when "ersonic" is there). On the shipped list it keeps
//! 123,731 of 528,877 tails: with the words and their starts, about 1.3 MB in all.

use std::cmp::Ordering;
use std::fmt;

/// The byte that ends each word in the joined text. It is not a letter, so no
/// fragment (only letters are ever looked up) can contain it: that is what keeps a
/// match inside one word. It also sorts before every letter, so a tail sorts just
/// before the longer tails it starts ("ers" before "ersonic"), which is what lets the
/// pruning see them side by side; any other byte would give right answers with a
/// larger array.
const WORD_END: u8 = b'\n';

/// What a word game asks of a dictionary. Games take `&dyn Lexicon` so that tests
/// can hand in a small list.
pub trait Lexicon: std::fmt::Debug + Send + Sync {
    /// Is `word` (any case) a word of the dictionary?
    fn is_word(&self, word: &str) -> bool;
    /// Can `fragment` (any case) be found within some word of the dictionary
    /// (the whole word counts: "cat" is within "cat")?
    fn is_inside_a_word(&self, fragment: &str) -> bool;
}

/// Why a word list could not become a dictionary.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DictionaryError {
    #[error("the word list has no words ({skipped} lines were not words of letters a-z)")]
    NoWords { skipped: usize },
    #[error("the word list is too large to index ({bytes} bytes of words, at most 4 GiB)")]
    TooLarge { bytes: usize },
}

/// The official dictionary, indexed for the two questions of [`Lexicon`].
///
/// Invariant: it holds at least one word, `text` holds only `a`–`z` and
/// [`WORD_END`], and ends with [`WORD_END`].
pub struct Dictionary {
    text: String,
    word_starts: Vec<u32>,
    tails: Vec<u32>,
    skipped: usize,
}

impl Dictionary {
    /// Builds the dictionary from the text of a word list: one word a line. Each
    /// line is trimmed; blank lines are ignored; a line of ASCII letters is a word
    /// (lower-cased, so "Paris" becomes "paris": the list decides what is a word,
    /// not this code); any other line ("aardvark's", "éclair", "two words") is
    /// skipped and counted in [`skipped`](Self::skipped). Duplicates count once.
    pub fn from_text(list: &str) -> Result<Dictionary, DictionaryError> {
        let mut skipped = 0;
        let mut words: Vec<String> = Vec::new();
        for line in list.lines() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            if line.bytes().all(|b| b.is_ascii_alphabetic()) {
                words.push(line.to_ascii_lowercase());
            } else {
                skipped += 1;
            }
        }
        if words.is_empty() {
            return Err(DictionaryError::NoWords { skipped });
        }
        words.sort_unstable();
        words.dedup();

        let bytes: usize = words.iter().map(|word| word.len() + 1).sum();
        if u32::try_from(bytes).is_err() {
            return Err(DictionaryError::TooLarge { bytes });
        }
        let mut text = String::with_capacity(bytes);
        let mut word_starts = Vec::with_capacity(words.len());
        let mut tails = Vec::with_capacity(bytes - words.len());
        for word in &words {
            // Cannot truncate: every offset is below `bytes`, checked above.
            let start = text.len() as u32;
            word_starts.push(start);
            tails.extend(start..start + word.len() as u32);
            text.push_str(word);
            text.push(char::from(WORD_END));
        }
        drop(words);

        let text_bytes = text.as_bytes();
        // Sorting by the whole rest of the text sorts by tail too, because `WORD_END`
        // sorts before every letter; it is a plain byte comparison, with no search
        // for the word's end, so the build is faster. Equal tails are then ordered by
        // the words after them, which does no harm.
        tails.sort_unstable_by(|&a, &b| text_bytes[a as usize..].cmp(&text_bytes[b as usize..]));
        // Keep a tail only if it is not the start of the next one (see the module doc).
        let mut kept = 0;
        for index in 0..tails.len() {
            let redundant = tails.get(index + 1).is_some_and(|&next| {
                tail(text_bytes, next).starts_with(tail(text_bytes, tails[index]))
            });
            if !redundant {
                tails[kept] = tails[index];
                kept += 1;
            }
        }
        tails.truncate(kept);
        tails.shrink_to_fit();

        Ok(Dictionary {
            text,
            word_starts,
            tails,
            skipped,
        })
    }

    /// The number of distinct words.
    pub fn len(&self) -> usize {
        self.word_starts.len()
    }

    /// Always false: a dictionary holds at least one word. Here because clippy
    /// expects it next to `len`.
    pub fn is_empty(&self) -> bool {
        self.word_starts.is_empty()
    }

    /// The number of non-blank lines of the list that were not words of letters.
    pub fn skipped(&self) -> usize {
        self.skipped
    }

    /// The words, lower-case, in sorted order.
    pub fn words(&self) -> impl Iterator<Item = &str> {
        // Every word is followed by `WORD_END`, so the last piece is empty.
        self.text
            .split(char::from(WORD_END))
            .filter(|word| !word.is_empty())
    }

    /// The bytes the index takes (the joined words and the two offset arrays), for
    /// the benchmark and the operator's curiosity.
    pub fn index_bytes(&self) -> usize {
        self.text.len() + 4 * (self.word_starts.len() + self.tails.len())
    }

    /// The same answer as [`Lexicon::is_inside_a_word`], by looking at every word in
    /// turn: the baseline the benchmark and the tests hold the index against. Not for
    /// the game: on the shipped list it is hundreds of times slower.
    pub fn scan_inside(&self, fragment: &str) -> bool {
        match fold_letters(fragment) {
            Some(fragment) => {
                let fragment = fragment.as_str();
                self.words().any(|word| word.contains(fragment))
            }
            None => false,
        }
    }
}

impl Lexicon for Dictionary {
    /// A word is letters only: "" and anything with a space, apostrophe, hyphen or
    /// accent is not a word.
    fn is_word(&self, word: &str) -> bool {
        let Some(word) = fold_letters(word) else {
            return false;
        };
        let text = self.text.as_bytes();
        self.word_starts
            .binary_search_by(|&start| tail(text, start).cmp(word.as_bytes()))
            .is_ok()
    }

    /// The empty fragment is inside every word, so it is inside a word (a dictionary
    /// always has one). A fragment with anything but letters a–z in it, in any case,
    /// is inside none: the dictionary's words are letters only.
    fn is_inside_a_word(&self, fragment: &str) -> bool {
        let Some(fragment) = fold_letters(fragment) else {
            return false;
        };
        let fragment = fragment.as_bytes();
        let text = self.text.as_bytes();
        // The first tail not below the fragment. Cutting every suffix to the
        // fragment's length keeps the array's order (it was sorted by the whole
        // suffix), so the search is sound; and a suffix cut so equals the fragment
        // exactly when its tail starts with it, as a tail shorter than the fragment
        // shows its `WORD_END` within that length.
        let first = self.tails.partition_point(|&start| {
            let start = start as usize;
            let end = (start + fragment.len()).min(text.len());
            text[start..end].cmp(fragment) == Ordering::Less
        });
        self.tails
            .get(first)
            .is_some_and(|&start| text[start as usize..].starts_with(fragment))
    }
}

impl fmt::Debug for Dictionary {
    // The derived form would print the whole word list.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dictionary")
            .field("words", &self.len())
            .field("tails", &self.tails.len())
            .field("skipped", &self.skipped)
            .finish()
    }
}

/// The word's tail from `start`: the bytes up to (not including) the next `WORD_END`.
fn tail(text: &[u8], start: u32) -> &[u8] {
    let rest = &text[start as usize..];
    let length = rest
        .iter()
        .position(|&b| b == WORD_END)
        .unwrap_or(rest.len());
    &rest[..length]
}

/// `text` lower-cased if it is ASCII letters only (or empty); `None` otherwise.
fn fold_letters(text: &str) -> Option<String> {
    text.bytes()
        .all(|b| b.is_ascii_alphabetic())
        .then(|| text.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dictionary(words: &[&str]) -> Dictionary {
        Dictionary::from_text(&words.join("\n")).expect("a list with words")
    }

    #[test]
    fn the_rule_examples() {
        let dictionary = dictionary(&["supersonic", "bronco", "spruce"]);
        assert!(dictionary.is_inside_a_word("uperso"));
        assert!(!dictionary.is_inside_a_word("spronc"));
    }

    #[test]
    fn any_case_is_the_same_letters() {
        let dictionary = Dictionary::from_text("SuperSonic\nabacus\n").expect("words");
        assert!(dictionary.is_word("supersonic"));
        assert!(dictionary.is_word("SUPERSONIC"));
        assert!(dictionary.is_word("Abacus"));
        assert!(dictionary.is_inside_a_word("UPERSO"));
        assert!(dictionary.is_inside_a_word("uPeRsO"));
        assert!(dictionary.scan_inside("UPERSO"));
    }

    #[test]
    fn the_whole_word_is_inside_it_and_nothing_longer_is() {
        let dictionary = dictionary(&["cat", "dog"]);
        assert!(dictionary.is_inside_a_word("cat"));
        assert!(dictionary.is_inside_a_word("c"));
        assert!(dictionary.is_inside_a_word("at"));
        assert!(dictionary.is_inside_a_word("t"));
        assert!(!dictionary.is_inside_a_word("cats"));
        assert!(!dictionary.is_inside_a_word("scat"));
        // After the last tail in sorted order.
        assert!(!dictionary.is_inside_a_word("zz"));
        // Before the first.
        assert!(!dictionary.is_inside_a_word("aa"));
    }

    #[test]
    fn a_fragment_never_spans_two_words() {
        // Sorted and joined these are "abacus\nsupersonic\n": "sonic" ends one word
        // and "ab" starts the first, "us" ends one and "super" starts the next.
        let dictionary = dictionary(&["supersonic", "abacus"]);
        assert!(!dictionary.is_inside_a_word("ussuper"));
        assert!(!dictionary.is_inside_a_word("ussu"));
        assert!(!dictionary.is_inside_a_word("cab"));
        assert!(!dictionary.scan_inside("ussuper"));
    }

    #[test]
    fn is_word_is_exact() {
        let dictionary = dictionary(&["supersonic", "super", "sonic"]);
        assert!(dictionary.is_word("super"));
        assert!(dictionary.is_word("sonic"));
        assert!(dictionary.is_word("supersonic"));
        assert!(!dictionary.is_word("supers"));
        assert!(!dictionary.is_word("upersonic"));
        assert!(!dictionary.is_word("supersonics"));
        assert!(!dictionary.is_word(""));
        assert!(!dictionary.is_word("super sonic"));
        assert!(!dictionary.is_word("super\nsonic"));
    }

    #[test]
    fn the_empty_fragment_is_inside_and_non_letters_are_not() {
        let dictionary = dictionary(&["cat"]);
        assert!(dictionary.is_inside_a_word(""));
        assert!(dictionary.scan_inside(""));
        for fragment in ["c t", "ca\n", "\n", "cät", "c'a", "-", "ca1", " cat"] {
            assert!(!dictionary.is_inside_a_word(fragment), "{fragment:?}");
            assert!(!dictionary.scan_inside(fragment), "{fragment:?}");
        }
    }

    #[test]
    fn lines_that_are_not_words_are_skipped_and_counted() {
        let list = "cat\r\n\n  dog  \ncat's\néclair\ntwo words\nCAT\n\n1st\n";
        let dictionary = Dictionary::from_text(list).expect("words");
        assert_eq!(dictionary.len(), 2, "cat, dog; CAT is cat again");
        assert_eq!(dictionary.skipped(), 4);
        assert_eq!(dictionary.words().collect::<Vec<_>>(), ["cat", "dog"]);
        assert!(!dictionary.is_empty());
        assert!(!dictionary.is_word("cat's"));
        assert!(!dictionary.is_inside_a_word("clair"));
    }

    #[test]
    fn a_list_without_words_is_an_error() {
        assert_eq!(
            Dictionary::from_text("").err(),
            Some(DictionaryError::NoWords { skipped: 0 })
        );
        assert_eq!(
            Dictionary::from_text("\n  \nit's\n42\n").err(),
            Some(DictionaryError::NoWords { skipped: 2 })
        );
        let message = DictionaryError::NoWords { skipped: 2 }.to_string();
        assert!(
            message.starts_with("the word list has no words"),
            "{message}"
        );
    }

    #[test]
    fn repeated_tails_are_kept_once() {
        // Each of "ats", "ts" and "s" is the tail of all three words: one copy of each
        // is enough. With the three whole words that leaves six tails.
        let dictionary = dictionary(&["cats", "bats", "hats"]);
        assert_eq!(dictionary.tails.len(), 6, "{dictionary:?}");
        assert!(dictionary.is_inside_a_word("s"));
        assert!(dictionary.is_inside_a_word("at"));
    }

    #[test]
    fn debug_does_not_print_the_list() {
        let text = format!("{:?}", dictionary(&["supersonic"]));
        assert!(!text.contains("supersonic"), "{text}");
        assert!(text.contains("words: 1"), "{text}");
    }

    /// `length` letters of `alphabet`, drawn from `random`.
    fn letters(
        random: &mut crate::engine::random::Stream,
        alphabet: &[u8],
        length: usize,
    ) -> String {
        (0..length)
            .map(|_| char::from(alphabet[random.below(alphabet.len())]))
            .collect()
    }

    #[test]
    fn the_index_agrees_with_the_scan() {
        let mut random = crate::engine::random::Stream::new("dictionary property test");
        // A small alphabet, so that random fragments are often inside some word and
        // often not, and runs of shared tails are common.
        let alphabet = b"abcde";
        let words: Vec<String> = (0..400)
            .map(|_| {
                let length = 1 + random.below(9);
                letters(&mut random, alphabet, length)
            })
            .collect();
        let dictionary = Dictionary::from_text(&words.join("\n")).expect("words");
        let (mut inside, mut outside) = (0, 0);
        for round in 0..5000 {
            let fragment = if round % 3 == 0 {
                // A piece of a real word, sometimes in upper case.
                let word = &words[random.below(words.len())];
                let start = random.below(word.len());
                let end = start + 1 + random.below(word.len() - start);
                if round % 2 == 0 {
                    word[start..end].to_ascii_uppercase()
                } else {
                    word[start..end].to_owned()
                }
            } else {
                let length = random.below(9);
                letters(&mut random, b"abcdef", length)
            };
            let expected = dictionary.scan_inside(&fragment);
            assert_eq!(
                dictionary.is_inside_a_word(&fragment),
                expected,
                "{fragment:?}"
            );
            assert_eq!(
                dictionary.is_word(&fragment),
                words.contains(&fragment.to_ascii_lowercase()),
                "{fragment:?}"
            );
            if expected {
                inside += 1;
            } else {
                outside += 1;
            }
        }
        // Both answers were exercised, or the test proves little.
        assert!(
            inside > 1000 && outside > 1000,
            "{inside} in, {outside} out"
        );
    }
}
