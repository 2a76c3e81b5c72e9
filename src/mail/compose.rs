//! Outgoing headers: From the bot, To the list or one person, the subject with
//! its tag, threading (`In-Reply-To`, `References`), `Auto-Submitted`, and a
//! stable `Message-ID` derived from the event that caused the mail, so a resend
//! after a crash is recognisable as the same message. Builds bytes with lettre;
//! sends nothing.

use lettre::Message;
use lettre::message::header::{ContentType, HeaderName, HeaderValue};
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart};
use sha2::{Digest, Sha256};

/// The header that marks the bot's own mail (one of several marks; see `is_own`).
pub const MARK_HEADER: &str = "X-Nomicbot";

#[derive(Debug, thiserror::Error)]
pub enum ComposeError {
    #[error("address {0:?} cannot be used in a mail header")]
    BadAddress(String),
    #[error("{0:?} is not a content type")]
    BadContentType(String),
    #[error("cannot build the message: {0}")]
    Build(#[from] lettre::error::Error),
}

/// Why the bot writes: RFC 3834's two kinds of automatic mail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An answer to a player's message.
    Reply,
    /// A scheduled notice (a deadline passed).
    Notice,
}

/// The message being answered, for threading.
#[derive(Debug, Clone, Default)]
pub struct Thread {
    pub message_id: Option<String>,
    pub references: Vec<String>,
}

pub struct Outgoing<'a> {
    pub from_name: &'a str,
    pub from_address: &'a str,
    pub to: &'a str,
    /// `to` is the list: an announcement.
    pub to_list: bool,
    pub tag: &'a str,
    pub subject: &'a str,
    pub body: &'a str,
    pub message_id: &'a str,
    pub kind: Kind,
    pub thread: &'a Thread,
    /// The cause, recorded in the mark header for the archive reader.
    pub cause: &'a str,
    pub date: jiff::Timestamp,
    /// Sent after the text as `multipart/mixed`; none: a single text part.
    pub attachments: &'a [crate::engine::Attachment],
}

/// A Message-ID that depends only on what caused the mail and its place among the
/// mail of that cause: the same step always yields the same ids.
pub fn message_id(cause: &str, index: usize, domain: &str) -> String {
    let digest = Sha256::digest(format!("{cause}\n{index}").as_bytes());
    let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    format!("{hex}.nomicbot@{domain}")
}

/// `[tag] subject`, unless the subject already starts with the tag; an answer's
/// `Re:` stays first (`Re: [nomic] join Alice`), where mail clients look for it.
pub fn tagged_subject(tag: &str, subject: &str) -> String {
    if let Some(rest) = subject
        .get(..3)
        .filter(|start| start.eq_ignore_ascii_case("re:"))
        .and_then(|_| subject.get(3..))
    {
        return format!("Re: {}", tagged_subject(tag, rest.trim_start()));
    }
    let prefix = format!("[{tag}]");
    if subject.to_lowercase().starts_with(&prefix.to_lowercase()) {
        subject.to_owned()
    } else if subject.is_empty() {
        prefix
    } else {
        format!("{prefix} {subject}")
    }
}

pub fn compose(out: &Outgoing<'_>) -> Result<Vec<u8>, ComposeError> {
    let from = Mailbox::new(
        Some(out.from_name.to_owned()),
        out.from_address
            .parse()
            .map_err(|_| ComposeError::BadAddress(out.from_address.to_owned()))?,
    );
    let to: Mailbox = out
        .to
        .parse()
        .map_err(|_| ComposeError::BadAddress(out.to.to_owned()))?;
    let mut builder = Message::builder()
        .from(from)
        .to(to)
        .subject(tagged_subject(out.tag, out.subject))
        .message_id(Some(format!("<{}>", out.message_id)))
        .date(std::time::SystemTime::from(out.date));
    if let Some(parent) = &out.thread.message_id {
        let mut references: Vec<String> = out
            .thread
            .references
            .iter()
            .map(|r| format!("<{r}>"))
            .collect();
        references.push(format!("<{parent}>"));
        builder = builder
            .in_reply_to(format!("<{parent}>"))
            .references(references.join(" "));
    }
    // RFC 3834: `auto-replied` is an answer to the one who wrote; whatever goes
    // to the list, whatever caused it, is `auto-generated`.
    let auto_submitted = match out.kind {
        Kind::Reply if !out.to_list => "auto-replied",
        _ => "auto-generated",
    };
    builder = builder
        .raw_header(HeaderValue::new(
            HeaderName::new_from_ascii_str("Auto-Submitted"),
            auto_submitted.to_owned(),
        ))
        .raw_header(HeaderValue::new(
            HeaderName::new_from_ascii_str(MARK_HEADER),
            out.cause.to_owned(),
        ))
        // Some autoresponders honour only this one.
        .raw_header(HeaderValue::new(
            HeaderName::new_from_ascii_str("X-Auto-Response-Suppress"),
            "All".to_owned(),
        ));
    let body = SinglePart::builder()
        .header(ContentType::TEXT_PLAIN)
        .body(crlf(out.body));
    if out.attachments.is_empty() {
        return Ok(builder.singlepart(body)?.formatted());
    }
    // The boundary comes from the Message-ID, not chance, so a resend of the
    // same step yields the same bytes.
    let digest = Sha256::digest(format!("boundary\n{}", out.message_id).as_bytes());
    let boundary: String = digest.iter().take(12).map(|b| format!("{b:02x}")).collect();
    let mut parts = MultiPart::mixed()
        .boundary(format!("nomicbot-{boundary}"))
        .singlepart(body);
    for file in out.attachments {
        let kind = ContentType::parse(&file.content_type)
            .map_err(|_| ComposeError::BadContentType(file.content_type.clone()))?;
        parts = parts
            .singlepart(Attachment::new(file.file_name.clone()).body(crlf(&file.content), kind));
    }
    let message = builder.multipart(parts)?;
    Ok(message.formatted())
}

/// The body with CRLF line ends. lettre would convert it too, but by inserting
/// one `\r` at a time into the string, which costs the body's length for every
/// line (a 64k-line answer took most of a minute); given CRLF already, it has
/// nothing to insert.
fn crlf(body: &str) -> String {
    let mut out = String::with_capacity(body.len() + body.len() / 16);
    let mut previous = '\0';
    for c in body.chars() {
        if c == '\n' && previous != '\r' {
            out.push('\r');
        }
        out.push(c);
        previous = c;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_all_there_and_stable() {
        let thread = Thread {
            message_id: Some("abc@player.example".into()),
            references: vec!["root@player.example".into()],
        };
        let id = message_id("mail:abc@player.example", 0, "example.test");
        assert_eq!(id, message_id("mail:abc@player.example", 0, "example.test"));
        assert_ne!(id, message_id("mail:abc@player.example", 1, "example.test"));
        let raw = compose(&Outgoing {
            from_name: "nomicbot",
            from_address: "bot@example.test",
            to: "alice@example.test",
            to_list: false,
            tag: "nomic",
            subject: "Welcome, Zoë",
            body: "You joined.\n",
            message_id: &id,
            kind: Kind::Reply,
            thread: &thread,
            cause: "mail:abc@player.example",
            attachments: &[],
            date: jiff::Timestamp::UNIX_EPOCH,
        })
        .unwrap();
        let text = String::from_utf8_lossy(&raw);
        assert!(text.contains(&format!("Message-ID: <{id}>")), "{text}");
        assert!(text.contains("In-Reply-To: <abc@player.example>"), "{text}");
        assert!(
            text.contains("References: <root@player.example> <abc@player.example>"),
            "{text}"
        );
        assert!(text.contains("Auto-Submitted: auto-replied"), "{text}");
        assert!(text.contains("Subject: [nomic] Welcome, "), "{text}");
    }

    /// Issue "Headers of the bot's own mail": an answer's subject keeps `Re:`
    /// first, as mail clients expect.
    #[test]
    fn an_answer_reads_re_before_the_tag() {
        assert_eq!(
            tagged_subject("nomic", "Re: join Alice"),
            "Re: [nomic] join Alice"
        );
        assert_eq!(
            tagged_subject("nomic", "RE: [nomic] join Alice"),
            "Re: [nomic] join Alice"
        );
        assert_eq!(
            tagged_subject("nomic", "Alice joined"),
            "[nomic] Alice joined"
        );
        assert_eq!(tagged_subject("nomic", "Reward"), "[nomic] Reward");
        assert_eq!(tagged_subject("nomic", ""), "[nomic]");
    }
}
