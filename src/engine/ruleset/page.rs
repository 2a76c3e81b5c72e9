//! Importing a ruleset page (a web page of rules, or "Create a new rule" blocks):
//! the text in, the rules out. The shell reads the file; this never does.

use super::Rule;
use super::parse::unquote;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    #[error(
        "no rules found: neither a ruleset page (\"Rule 101\" lines) nor \"Create a new rule\" blocks"
    )]
    UnknownFormat,
    #[error("the page lists rule {0} but holds no text for it")]
    Missing(u32),
    #[error("rule {0} appears twice")]
    Duplicate(u32),
    #[error("rule {0} has no name")]
    NoName(u32),
    #[error("rule {number} ({name}) has no text")]
    NoText { number: u32, name: String },
}

/// Reads a ruleset in either known format; new rules without numbers are numbered from 1.
pub fn parse_ruleset(text: &str) -> Result<Vec<Rule>, ImportError> {
    parse_ruleset_with(text, 1)
}

/// Reads a ruleset page (`Rule 101` headers, as on the Gnomic site) or the
/// `Create a new rule "NAME":` blocks of a proposal, which carry no numbers: those
/// are numbered from `first_number` in the order they come.
pub fn parse_ruleset_with(text: &str, first_number: u32) -> Result<Vec<Rule>, ImportError> {
    let lines: Vec<&str> = text.lines().map(|line| line.trim_end()).collect();
    if lines.iter().any(|line| header_number(line).is_some()) {
        parse_page(&lines)
    } else if lines.iter().any(|line| create_rule_name(line).is_some()) {
        parse_proposal(&lines, first_number)
    } else {
        Err(ImportError::UnknownFormat)
    }
}

/// `Rule 101` alone on its line.
fn header_number(line: &str) -> Option<u32> {
    let rest = line.trim().strip_prefix("Rule")?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    // Ackanomic's pages write the revision after a slash ("Rule 1211/3"): the
    // history of the text, not a number the registry keeps.
    let number = match rest.trim().split_once('/') {
        Some((number, revision)) if revision.chars().all(|c| c.is_ascii_digit()) => number,
        _ => rest.trim(),
    };
    number.parse().ok()
}

/// Rule `number`'s text on a ruleset page, as an import would record it: a
/// game's baseline is exactly what the registry holds once the page is in.
pub fn rule_text(page: &str, number: u32) -> Option<String> {
    parse_ruleset(page)
        .ok()?
        .into_iter()
        .find(|rule| rule.number == number)
        .map(|rule| rule.text)
}

/// Paragraphs: runs of non-blank lines, each joined with newlines.
pub(super) fn paragraphs<'a>(lines: &[&'a str]) -> Vec<Vec<&'a str>> {
    let mut paragraphs = vec![Vec::new()];
    for line in lines {
        if line.trim().is_empty() {
            paragraphs.push(Vec::new());
        } else if let Some(last) = paragraphs.last_mut() {
            last.push(*line);
        }
    }
    paragraphs.retain(|paragraph| !paragraph.is_empty());
    paragraphs
}

/// A page's own annotation of a rule's history, under its text ("initial rule.",
/// "Enacted by Thomas", "Amended from 363 by Thomas", ...).
fn is_history_note(paragraph: &str) -> bool {
    let lower = paragraph.trim().to_lowercase();
    let starts = [
        "initial rule",
        "enacted",
        "amended",
        "transmuted",
        "created",
        "proposed",
        "originally proposed",
        "(previous history lost)",
    ];
    !paragraph.contains('\n') && starts.iter().any(|start| lower.starts_with(start))
}

/// The navigation line at both ends of a ruleset page.
fn is_page_furniture(line: &str) -> bool {
    line.contains(" --- ") || line.starts_with("Comments on ")
}

fn parse_page(lines: &[&str]) -> Result<Vec<Rule>, ImportError> {
    // The page opens with the index: lines of rule numbers only.
    let first_header = lines
        .iter()
        .position(|line| header_number(line).is_some())
        .unwrap_or(lines.len());
    let listed: Vec<u32> = lines[..first_header]
        .iter()
        .filter(|line| {
            !line.trim().is_empty()
                && line
                    .split_whitespace()
                    .all(|word| word.chars().all(|c| c.is_ascii_digit()))
        })
        .flat_map(|line| line.split_whitespace().filter_map(|word| word.parse().ok()))
        .collect();

    // Each block runs from its header to the next header. A header repeating the
    // number of a block that has no name yet is that rule's name (rule 322 is named
    // "Rule 322").
    let mut blocks: Vec<(u32, Vec<&str>)> = Vec::new();
    for line in &lines[first_header..] {
        if is_page_furniture(line) {
            break;
        }
        if let Some(number) = header_number(line) {
            let names_itself = blocks.last().is_some_and(|(current, body)| {
                *current == number && body.iter().all(|l| l.trim().is_empty())
            });
            if !names_itself {
                blocks.push((number, Vec::new()));
                continue;
            }
        }
        if let Some((_, body)) = blocks.last_mut() {
            body.push(line);
        }
    }

    let mut rules: Vec<Rule> = Vec::new();
    for (number, body) in blocks {
        if rules.iter().any(|rule| rule.number == number) {
            return Err(ImportError::Duplicate(number));
        }
        let mut paragraphs: Vec<String> = paragraphs(&body)
            .into_iter()
            .map(|paragraph| paragraph.join("\n"))
            .collect();
        let mut notes = Vec::new();
        if paragraphs
            .first()
            .is_some_and(|first| first.trim().starts_with("(void"))
        {
            notes.push(paragraphs.remove(0));
        }
        if paragraphs.is_empty() {
            return Err(ImportError::NoName(number));
        }
        // The name is the paragraph's first line; a line under it (Ackanomic's
        // author, "Guy Fawkes (Robert Shimmin)") is a note, not the name.
        let heading = paragraphs.remove(0);
        let mut heading_lines = heading.lines();
        let name = page_rule_name(heading_lines.next().unwrap_or_default());
        let byline = heading_lines.collect::<Vec<_>>().join("\n");
        if !byline.trim().is_empty() {
            notes.push(byline);
        }
        if paragraphs.last().is_some_and(|last| is_history_note(last)) {
            notes.extend(paragraphs.pop());
        }
        let text = paragraphs.join("\n\n");
        if text.trim().is_empty() {
            return Err(ImportError::NoText { number, name });
        }
        rules.push(Rule {
            number,
            name,
            version: 1,
            text,
            // The page has no mutability column. Rule 102: "Initially rules in the
            // 100's are immutable"; the page records no transmutation of one that
            // kept its number (302 is 106 transmuted, renumbered by rule 108).
            mutable: !(100..200).contains(&number),
            note: notes.join("\n"),
        });
    }
    if let Some(missing) = listed
        .iter()
        .find(|number| !rules.iter().any(|rule| rule.number == **number))
    {
        return Err(ImportError::Missing(*missing));
    }
    if rules.is_empty() {
        return Err(ImportError::UnknownFormat);
    }
    rules.sort_by_key(|rule| rule.number);
    Ok(rules)
}

/// A page's name line without its closing full stop ("Follow the rules." is the rule
/// "Follow the rules"; rule 108 calls rule 104 "Two decks of cards"), but keeping an
/// ellipsis.
fn page_rule_name(paragraph: &str) -> String {
    let name = paragraph.split_whitespace().collect::<Vec<_>>().join(" ");
    match name.strip_suffix('.') {
        Some(stripped) if !stripped.ends_with('.') => stripped.to_owned(),
        _ => name,
    }
}

/// `Create a new rule "NAME":`, `Create a new rule titled "NAME"` (the colon is
/// sometimes forgotten).
fn create_rule_name(line: &str) -> Option<String> {
    let line = line.trim();
    let prefix = "create a new rule";
    if !line.get(..prefix.len())?.eq_ignore_ascii_case(prefix) {
        return None;
    }
    let mut rest = line[prefix.len()..].trim();
    for word in ["titled", "called", "named", "entitled"] {
        if let Some(head) = rest.get(..word.len())
            && head.eq_ignore_ascii_case(word)
        {
            rest = rest[word.len()..].trim();
        }
    }
    Some(unquote(rest).to_owned())
}

fn parse_proposal(lines: &[&str], first_number: u32) -> Result<Vec<Rule>, ImportError> {
    let mut blocks: Vec<(String, Vec<&str>)> = Vec::new();
    for line in lines {
        if let Some(name) = create_rule_name(line) {
            blocks.push((name, Vec::new()));
        } else if let Some((_, body)) = blocks.last_mut() {
            body.push(line);
        }
    }
    let mut rules = Vec::new();
    for (offset, (name, body)) in (0u32..).zip(blocks) {
        let number = first_number.saturating_add(offset);
        if name.is_empty() {
            return Err(ImportError::NoName(number));
        }
        let text = body.join("\n").trim_matches('\n').to_owned();
        if text.trim().is_empty() {
            return Err(ImportError::NoText { number, name });
        }
        rules.push(Rule {
            number,
            name,
            version: 1,
            text,
            mutable: true,
            note: String::new(),
        });
    }
    Ok(rules)
}
