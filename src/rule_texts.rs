//! The rule texts of the nomic the bot was built for, shipped inside it
//! (`rules/`), so that `nomicbot import-rules NAME` needs no file. This is a
//! table of texts; which games follow a text is each game's own declaration
//! (`Declared::text`), asked here, not written here.

use crate::engine::ruleset::{self, ImportError, Rule};

/// How a text writes its rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Numbered rules (a ruleset page, a rule under its title) or "Create a new
    /// rule" blocks: `ruleset::parse_ruleset_with` reads it.
    Numbered,
    /// One rule to a paragraph, no numbers, no names: numbered from the next
    /// free number and named `"{names} {position}"`.
    Paragraphs { names: &'static str },
}

/// One shipped text.
#[derive(Debug)]
pub struct RuleText {
    /// What `import-rules` takes (the file's stem works too).
    pub name: &'static str,
    pub file: &'static str,
    /// What it holds, for `import-rules --list`.
    pub holds: &'static str,
    pub text: &'static str,
    pub layout: Layout,
    /// The bot.toml key that tells the games which number a text of one rule
    /// has, when it is imported under another (`--number`).
    pub number_key: Option<&'static str>,
}

pub const TEXTS: &[RuleText] = &[
    RuleText {
        name: "gnomic",
        file: "gnomic-ruleset-v73.txt",
        holds: "the Gnomic ruleset, version 73 (rules 101-440)",
        text: include_str!("../rules/gnomic-ruleset-v73.txt"),
        layout: Layout::Numbered,
        number_key: None,
    },
    RuleText {
        name: "ackanomic",
        file: "ackanomic-1209-1250.txt",
        holds: "Ackanomic rules 1209-1250 (the Machine That Goes *ping*, Boons of the Ancients, Grab-a-Donkey, Duels, Buried Treasure, three suites' heads)",
        text: include_str!("../rules/ackanomic-1209-1250.txt"),
        layout: Layout::Numbered,
        number_key: None,
    },
    RuleText {
        name: "ghost",
        file: "ghost.txt",
        holds: "Ackanomic rule 103, Ghost",
        text: include_str!("../rules/ghost.txt"),
        layout: Layout::Numbered,
        number_key: Some("[ghost] rule"),
    },
    RuleText {
        name: "rule-tag",
        file: "rule-tag-proposal.txt",
        holds: "the proposal creating Rule Tag (\"Create a new rule\" blocks, numbered from the next free number)",
        text: include_str!("../rules/rule-tag-proposal.txt"),
        layout: Layout::Numbered,
        number_key: None,
    },
    RuleText {
        name: "space",
        file: "space-nomic-ruleset.txt",
        holds: "the Space Nomic's ruleset (one rule to a paragraph, numbered from the next free number)",
        text: include_str!("../rules/space-nomic-ruleset.txt"),
        layout: Layout::Paragraphs {
            names: "Space Nomic",
        },
        number_key: None,
    },
];

/// A shipped text by its name or its file's name, with or without ".txt".
pub fn find(name: &str) -> Option<&'static RuleText> {
    let name = name.trim().to_lowercase();
    TEXTS.iter().find(|text| {
        text.name == name || text.file == name || text.file.strip_suffix(".txt") == Some(&name)
    })
}

/// The shipped text a file holds, if it is one (a copy of `rules/`), so that
/// importing it by its path reads it as importing it by name does.
pub fn matching(content: &str) -> Option<&'static RuleText> {
    TEXTS.iter().find(|text| text.text.trim() == content.trim())
}

/// The names `import-rules` takes, for a refusal.
pub fn names() -> Vec<&'static str> {
    TEXTS.iter().map(|text| text.name).collect()
}

impl RuleText {
    /// Its rules as an import records them; rules without numbers are numbered
    /// from `first_number`.
    pub fn parse(&self, first_number: u32) -> Result<Vec<Rule>, ImportError> {
        match self.layout {
            Layout::Numbered => ruleset::parse_ruleset_with(self.text, first_number),
            Layout::Paragraphs { names } => {
                ruleset::parse_paragraphs(self.text, first_number, names)
            }
        }
    }

    /// The games whose rules it holds (their own declarations).
    pub fn games(&self) -> Vec<&'static str> {
        crate::games::following(self.name)
    }
}

/// `nomicbot import-rules --list`: one line to a text.
pub fn list() -> String {
    let mut out =
        String::from("The rule texts shipped with the bot (nomicbot import-rules NAME):\n");
    for text in TEXTS {
        let games = text.games();
        let games = if games.is_empty() {
            "no game of the bot follows it".to_owned()
        } else {
            format!("followed by: {}", games.join(", "))
        };
        out.push_str(&format!(
            "  {:<10} {:<24} {}; {games}\n",
            text.name, text.file, text.holds
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_text_imports_as_written() {
        let counts: Vec<(&str, usize)> = TEXTS
            .iter()
            .map(|text| (text.name, text.parse(1).map_or(0, |rules| rules.len())))
            .collect();
        assert_eq!(
            counts,
            vec![
                ("gnomic", 66),
                ("ackanomic", 8),
                ("ghost", 1),
                ("rule-tag", 5),
                ("space", 54),
            ]
        );
    }
}
