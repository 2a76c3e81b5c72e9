//! Importing a ruleset page (a web page of rules, or "Create a new rule" blocks):
//! the text in, the rules out. The shell reads the file; this never does.

use super::Rule;
use super::parse::unquote;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    #[error(
        "no rules found: neither a ruleset page (\"Rule 101\" lines), nor \"Create a new rule\" blocks, nor a rule under its title (\"103 - Ghost\")"
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

/// Reads a ruleset page (`Rule 101` headers, as on the Gnomic site), the
/// `Create a new rule "NAME":` blocks of a proposal, which carry no numbers (those
/// are numbered from `first_number` in the order they come), or one rule under
/// its title line (`103 - Ghost`).
pub fn parse_ruleset_with(text: &str, first_number: u32) -> Result<Vec<Rule>, ImportError> {
    let lines: Vec<&str> = text.lines().map(|line| line.trim_end()).collect();
    let title = lines
        .iter()
        .find(|line| !line.trim().is_empty())
        .and_then(|line| title_line(line));
    if lines.iter().any(|line| header_number(line).is_some()) {
        parse_page(&lines)
    } else if lines.iter().any(|line| create_rule_name(line).is_some()) {
        parse_proposal(&lines, first_number)
    } else if let Some((number, name)) = title {
        parse_titled(&lines, number, name)
    } else {
        Err(ImportError::UnknownFormat)
    }
}

/// `Rule 101` alone on its line.
fn header_number(line: &str) -> Option<u32> {
    header(line).map(|(number, _)| number)
}

/// `Rule 101`, or Ackanomic's `Rule 1211/3` (then `true`: the page writes a
/// revision, and under the number an author's line).
fn header(line: &str) -> Option<(u32, bool)> {
    let rest = line.trim().strip_prefix("Rule")?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    // Ackanomic's pages write the revision after a slash ("Rule 1211/3"): the
    // history of the text, not a number the registry keeps.
    let (number, revised) = match rest.trim().split_once('/') {
        Some((number, revision)) if revision.chars().all(|c| c.is_ascii_digit()) => (number, true),
        _ => (rest.trim(), false),
    };
    Some((number.parse().ok()?, revised))
}

/// A rule copied alone under its title: `103 - Ghost`.
fn title_line(line: &str) -> Option<(u32, String)> {
    let (number, name) = line.trim().split_once(" - ")?;
    if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let number: u32 = number.parse().ok()?;
    let name = name.trim();
    if name.is_empty() {
        return None;
    }
    Some((number, name.to_owned()))
}

/// An Ackanomic author's line: the player's name and, in brackets, the
/// person's ("Habeous Corpus (Ed Graham)").
fn is_byline(line: &str) -> bool {
    let line = line.trim();
    line.ends_with(')') && line.contains(" (") && !line.contains('.')
}

/// One rule under its title line (`103 - Ghost`): the line under the title is
/// its author's ("Guy Fawkes"), as under an Ackanomic page's name, and the text
/// runs from the next line to the end.
fn parse_titled(lines: &[&str], number: u32, name: String) -> Result<Vec<Rule>, ImportError> {
    let mut rest = lines
        .iter()
        .skip_while(|line| line.trim().is_empty())
        .skip(1)
        .skip_while(|line| line.trim().is_empty());
    let byline = rest
        .next()
        .map(|line| line.trim().to_owned())
        .unwrap_or_default();
    let body: Vec<&str> = rest.copied().collect();
    let text = paragraphs(&body)
        .into_iter()
        .map(|paragraph| paragraph.join("\n"))
        .collect::<Vec<_>>()
        .join("\n\n");
    if text.trim().is_empty() {
        return Err(ImportError::NoText { number, name });
    }
    Ok(vec![Rule {
        number,
        name,
        version: 1,
        text,
        mutable: !(100..200).contains(&number),
        note: byline,
    }])
}

/// A ruleset written one rule to a paragraph, without numbers or names (the
/// Space Nomic's): a paragraph is a run of lines, and a line that opens a new
/// sentence with a capital after a line that closed one begins the next rule,
/// so a wrapped line or a "- " item belongs to the rule before it. The rules
/// are numbered from `first_number` in the order they come and named
/// `"{name} {position}"` (the text names none).
pub fn parse_paragraphs(
    text: &str,
    first_number: u32,
    name: &str,
) -> Result<Vec<Rule>, ImportError> {
    let mut blocks: Vec<Vec<&str>> = Vec::new();
    let mut previous: Option<&str> = None;
    for line in text.lines().map(str::trim_end) {
        if line.trim().is_empty() {
            previous = None;
            continue;
        }
        let continues = previous.is_some_and(|before| {
            let opens = line.trim_start().starts_with(|c: char| c.is_uppercase());
            let closed = before.ends_with(['.', '!', '?', ':', '"', ')']);
            line.trim_start().starts_with("- ") || !opens || !closed
        });
        match blocks.last_mut() {
            Some(block) if continues => block.push(line),
            _ => blocks.push(vec![line]),
        }
        previous = Some(line);
    }
    if blocks.is_empty() {
        return Err(ImportError::UnknownFormat);
    }
    Ok((0u32..)
        .zip(blocks)
        .map(|(offset, block)| Rule {
            number: first_number.saturating_add(offset),
            name: format!("{name} {}", offset + 1),
            version: 1,
            text: block.join("\n"),
            mutable: true,
            note: String::new(),
        })
        .collect())
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
/// Ackanomic's ends with its menu's link and the validator's badge ("Acka Rules
/// Menu HTML 3.2 Checked!").
fn is_page_furniture(line: &str) -> bool {
    line.contains(" --- ")
        || line.starts_with("Comments on ")
        || line.starts_with("Acka Rules Menu")
        || line.contains("HTML 3.2 Checked")
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
    let mut blocks: Vec<(u32, bool, Vec<&str>)> = Vec::new();
    for line in &lines[first_header..] {
        if is_page_furniture(line) {
            break;
        }
        if let Some((number, revised)) = header(line) {
            let names_itself = blocks.last().is_some_and(|(current, _, body)| {
                *current == number && body.iter().all(|l| l.trim().is_empty())
            });
            if !names_itself {
                blocks.push((number, revised, Vec::new()));
                continue;
            }
        }
        if let Some((_, _, body)) = blocks.last_mut() {
            body.push(line);
        }
    }

    let mut rules: Vec<Rule> = Vec::new();
    for (number, revised, body) in blocks {
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
        let mut heading_lines = heading.lines().peekable();
        // An Ackanomic rule written without a title has only its author's line
        // over the text (rules 1213 and 1215): it is called by its number, as
        // Gnomic's page calls rule 322 "Rule 322".
        let untitled = revised
            && heading_lines.clone().count() == 1
            && heading_lines.peek().is_some_and(|line| is_byline(line));
        let name = if untitled {
            format!("Rule {number}")
        } else {
            page_rule_name(heading_lines.next().unwrap_or_default())
        };
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
