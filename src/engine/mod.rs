//! The pure kernel every game uses: addresses, the clock as an input, outgoing
//! mail as values, the sentences a reply is made of, and the player registry.
//!
//! Invariant: nothing under `engine` (or `games`) does I/O or reads the clock.
//! Time comes in as a `Timestamp` argument, text goes out as a template name and
//! its values. The `no_io_in_the_engine` test guards this.

pub mod accounts;
pub mod calendar;
pub mod contests;
pub mod dictionary;
pub mod game;
pub mod inventory;
pub mod offices;
pub mod players;
pub mod random;
pub mod ruleset;
pub mod sealed;

use std::collections::BTreeMap;
use std::fmt;

pub use jiff::Timestamp;
use serde::{Deserialize, Serialize};

/// An e-mail address, trimmed and lower-cased: how the engine knows a person.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Address(String);

impl Address {
    pub fn new(address: &str) -> Address {
        Address(address.trim().to_lowercase())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Good enough to tell an address from a typo: one `@` with something on both sides
    /// and a dot in the domain. The mail server is the judge of the rest.
    pub fn looks_valid(&self) -> bool {
        match self.0.split_once('@') {
            Some((local, domain)) => {
                !local.is_empty()
                    && domain.contains('.')
                    && !domain.contains('@')
                    && !self
                        .0
                        .chars()
                        .any(|c| c.is_whitespace() || c == '<' || c == '>')
            }
            None => false,
        }
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Who wrote, when the message arrived, and whether it came through the list.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// The arrival time on the mail server: the moment the action happens.
    pub now: Timestamp,
    pub sender: Address,
    /// The display name the sender's mail carried, for a friendly default.
    pub sender_name: Option<String>,
    /// Came through the list (public) or to the bot alone (private).
    pub public: bool,
    /// Secret, unpredictable bytes for this step, from the shell: the seed of a random
    /// period, the salts of sealed actions. Derived from a secret kept in the database
    /// and the step's cause, so a replay of the same step gets the same bytes.
    pub entropy: [u8; 32],
}

impl Ctx {
    /// How an announcement names the sender acting as an officer: by the name
    /// their mail carried, with the address (`Carol Mod <carol@example.org>`),
    /// or by the address alone when the mail carried no name.
    pub fn signature(&self) -> String {
        match self.sender_name.as_deref().map(str::trim) {
            Some(name) if !name.is_empty() => format!("{name} <{}>", self.sender.as_str()),
            _ => self.sender.as_str().to_owned(),
        }
    }
}

/// Who an outgoing mail is for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Audience {
    /// The game list: the public record.
    List,
    /// One person, privately.
    Address(Address),
}

/// An outgoing mail the engine asks for. It holds no wording: the shell renders
/// `template` from `templates/` with `values`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mail {
    pub to: Audience,
    /// The subject tag, without brackets ("nomic").
    pub tag: String,
    /// The template's file stem: `templates/<template>.txt`.
    pub template: String,
    pub values: serde_json::Value,
    /// Files sent with the text, after it; none for almost every mail, whose
    /// bytes then stay a single text part.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<Attachment>,
}

/// A named file carried by a mail (a picture, say), as text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Attachment {
    pub file_name: String,
    pub content_type: String,
    pub content: String,
}

impl Mail {
    pub fn with_attachment(mut self, file_name: &str, content_type: &str, content: String) -> Mail {
        self.attachments.push(Attachment {
            file_name: file_name.to_owned(),
            content_type: content_type.to_owned(),
            content,
        });
        self
    }

    pub fn new(to: Audience, tag: &str, template: &str, values: serde_json::Value) -> Mail {
        Mail {
            to,
            tag: tag.to_owned(),
            template: template.to_owned(),
            values,
            attachments: Vec::new(),
        }
    }
}

/// One sentence of a reply, by code: `templates/sentences.txt` holds the wording of
/// every code, so a moderator can restyle it. `args` are the sentence's blanks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sentence {
    pub code: String,
    pub args: BTreeMap<String, serde_json::Value>,
}

impl Sentence {
    pub fn new(code: &str) -> Sentence {
        Sentence {
            code: code.to_owned(),
            args: BTreeMap::new(),
        }
    }

    #[must_use = "a sentence is a value: the argument is only in the returned copy"]
    pub fn arg(mut self, name: &str, value: impl Serialize) -> Sentence {
        let value = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
        self.args.insert(name.to_owned(), value);
        self
    }
}

/// What became of one command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Done,
    Refused,
    NotUnderstood,
}

/// One line of the answer to a message: the line as written, and its result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LineReport {
    pub line: String,
    pub status: Status,
    pub sentence: Sentence,
}

/// A command that was carried out: what happened (events), who must hear of it
/// (mail), and the sentence for the sender's answer.
#[derive(Debug)]
#[must_use = "the events of a done command must be recorded, or the action is lost"]
pub struct Done<E> {
    pub events: Vec<E>,
    pub mail: Vec<Mail>,
    pub sentence: Sentence,
}

/// A command the rules do not allow: the sentence says why and what would be valid.
/// A game outcome, rendered as a reply; not an error.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal(pub Sentence);

impl From<Sentence> for Refusal {
    fn from(sentence: Sentence) -> Refusal {
        Refusal(sentence)
    }
}

/// A line that is no command of this tag; the sentence hints at what was meant.
#[derive(Debug, Clone, PartialEq)]
pub struct NotUnderstood(pub Sentence);

/// The code of the sentence a game's `parse` gives a line that begins with none
/// of its commands. Any other sentence of a `NotUnderstood` (a usage, a bad
/// amount) says the game recognised how the line begins.
pub const UNKNOWN_COMMAND: &str = "unknown_command";

/// Splits a command line into its first word (lower-cased) and the rest (trimmed).
pub fn split_verb(line: &str) -> (String, &str) {
    let line = line.trim();
    match line.split_once(char::is_whitespace) {
        Some((verb, rest)) => (verb.to_lowercase(), rest.trim()),
        None => (line.to_lowercase(), ""),
    }
}

/// The longest reason an override takes, in characters: a reason is announced to
/// the whole list and kept in the log for good, so a megabyte of it (a mistake, or
/// a moderator's mailbox in the wrong hands) is refused rather than broadcast.
pub const MAX_REASON_CHARS: usize = 1000;

/// Splits an override's `WHAT because REASON` at the first word "because" (any
/// case, whitespace on both sides), and checks the reason: every override takes
/// one, so that it stands on its own in the archive. `form` is how the command is
/// written ("gaol PLAYER because REASON"), named by the refusal when the reason is
/// missing or empty. The first "because" is the split, so no player's name may
/// hold the word (`players::Registry` refuses such a name).
pub fn split_reason<'a>(rest: &'a str, form: &str) -> Result<(&'a str, String), NotUnderstood> {
    let missing = || NotUnderstood(Sentence::new("reason_required").arg("usage", form));
    // ASCII lower-casing keeps every byte where it was, so the offsets found in
    // `lower` are offsets in `rest`, on character boundaries ("because" is ASCII).
    let lower = rest.to_ascii_lowercase();
    let mut from = 0;
    while let Some(found) = lower[from..].find("because") {
        let (start, end) = (from + found, from + found + "because".len());
        let word_starts = start == 0 || lower[..start].ends_with(char::is_whitespace);
        let word_ends = end == lower.len() || lower[end..].starts_with(char::is_whitespace);
        if word_starts && word_ends {
            let reason = rest[end..].split_whitespace().collect::<Vec<_>>().join(" ");
            if reason.is_empty() {
                return Err(missing());
            }
            let chars = reason.chars().count();
            if chars > MAX_REASON_CHARS {
                return Err(NotUnderstood(
                    Sentence::new("reason_too_long")
                        .arg("chars", chars)
                        .arg("max", MAX_REASON_CHARS),
                ));
            }
            return Ok((rest[..start].trim(), reason));
        }
        from = end;
    }
    Err(missing())
}

/// Time in a form a player reads: `2026-11-21 23:50 UTC`.
pub fn human_time(at: Timestamp) -> String {
    at.strftime("%Y-%m-%d %H:%M UTC").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_overrides_reason_is_split_at_the_first_because_and_must_say_something() {
        let form = "gaol PLAYER because REASON";
        assert_eq!(
            split_reason("Bob  Because he  cheated because twice", form).unwrap(),
            ("Bob", "he cheated because twice".to_owned())
        );
        assert_eq!(
            split_reason("Becausewhy\tbecause\tasked", form).unwrap(),
            ("Becausewhy", "asked".to_owned()),
            "a word containing \"because\" is no split: only the word is"
        );
        for missing in ["Bob", "Bob because", "Bob because   ", "Bob becausewhy", ""] {
            let refused = split_reason(missing, form).unwrap_err().0;
            assert_eq!(refused.code, "reason_required", "{missing:?}");
            assert_eq!(refused.args["usage"], form);
        }
        let long = format!("Bob because {}", "x".repeat(MAX_REASON_CHARS + 1));
        let refused = split_reason(&long, form).unwrap_err().0;
        assert_eq!(refused.code, "reason_too_long");
        assert_eq!(refused.args["chars"], MAX_REASON_CHARS + 1);
        let longest = format!("Bob because {}", "x".repeat(MAX_REASON_CHARS));
        assert!(split_reason(&longest, form).is_ok());
    }
}
