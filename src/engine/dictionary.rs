//! The official dictionary: "is this a word" and "is this string inside any word",
//! answered from an index built once, never by scanning the list. Pure: the shell
//! reads the word-list file and hands its text in.

/// What a word game asks of a dictionary. Games take `&dyn Lexicon` so that tests
/// can hand in a small list.
pub trait Lexicon: std::fmt::Debug + Send + Sync {
    /// Is `word` (any case) a word of the dictionary?
    fn is_word(&self, word: &str) -> bool;
    /// Can `fragment` (any case) be found within some word of the dictionary
    /// (the whole word counts: "cat" is within "cat")?
    fn is_inside_a_word(&self, fragment: &str) -> bool;
}
