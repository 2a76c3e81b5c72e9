//! MIME -> `Envelope`: the one place raw mail bytes are read. Never panics on
//! mail content; a message it cannot make sense of still yields an Envelope
//! (with no tag), so the pipeline can keep it aside with a reason.

use std::borrow::Cow;
use std::panic::{AssertUnwindSafe, catch_unwind};

use jiff::Timestamp;
use mail_parser::decoders::charsets::map::charset_decoder;
use mail_parser::decoders::html::html_to_text;
use mail_parser::{
    Address, HeaderForm, HeaderName, HeaderValue, Message, MessageParser, MessagePart, MimeHeaders,
    PartType,
};

/// One mailbox: address (lower-cased for comparison) and display name as written.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Mailbox {
    pub address: String,
    pub name: Option<String>,
}

/// Why a message is automatic and must never be answered (RFC 3834).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub enum Automatic {
    /// `Auto-Submitted:` with a value other than `no` (the value).
    AutoSubmitted(String),
    /// A delivery status notification or other bounce (why it was recognised).
    Bounce(String),
    /// `Precedence: bulk` / `junk`, or `X-Autoreply`/`X-Autorespond` style headers.
    BulkOrAutoreply(String),
    /// `X-Loop` names the bot or the list: the mail has been here before.
    Loop(String),
    /// The subject is a responder's ("Out of Office: ...", "Automatic reply: ...").
    Subject(String),
    /// From is one of the addresses only software writes from: the bot's own with
    /// a `+tag`, the list's `-bounces` or `-owner` (which address).
    ServiceAddress(String),
}

/// The subject's game tag: `Re: [game-list] [Rule  Tag] my move` gives
/// `tag = "rule tag"`, `rest = "my move"`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SubjectTag {
    /// Lower-cased, inner whitespace collapsed to one space.
    pub tag: String,
    /// What follows the tag in the subject, trimmed (may be empty).
    pub rest: String,
    /// A reply or forward prefix (`Re:`, `AW:`, `Fwd:`, ... in any language)
    /// stands before or just after the tag: the rest then repeats someone else's
    /// subject and is no command (see `pipeline::classify`).
    pub reply: bool,
}

/// Everything the pipeline needs from one message.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Envelope {
    /// Without angle brackets.
    pub message_id: Option<String>,
    pub from: Option<Mailbox>,
    /// The player behind the message: From, unless From is the list itself
    /// (DMARC rewriting), in which case it is recovered from the configured headers.
    pub sender: Option<Mailbox>,
    pub to: Vec<Mailbox>,
    pub cc: Vec<Mailbox>,
    pub reply_to: Vec<Mailbox>,
    pub list_id: Option<String>,
    /// Decoded (RFC 2047), may be empty.
    pub subject: String,
    pub tag: Option<SubjectTag>,
    /// The body lines that may hold commands, in order, trimmed, non-empty.
    pub command_lines: Vec<String>,
    /// Without angle brackets.
    pub in_reply_to: Vec<String>,
    pub references: Vec<String>,
    /// The sender's `Date:` header. Informational only: actions happen at arrival time.
    pub date: Option<Timestamp>,
    pub automatic: Option<Automatic>,
    /// The list rewrote From and named several possible authors: nobody is
    /// credited (`sender` is `None`).
    pub sender_doubt: Option<SenderDoubt>,
    /// The post came inside the list's own message (Mailman's `wrap_message`):
    /// `sender`, `message_id`, the threading, the body and the date are the post's.
    pub wrapped: bool,
    /// Problems met while parsing (bad charset, no text part, ...), for the record.
    pub defects: Vec<String>,
}

/// Why the author of a post whose From the list rewrote cannot be known.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SenderDoubt {
    pub reason: String,
    /// In the order the headers name them: Mailman adds the author last.
    pub candidates: Vec<Mailbox>,
}

/// What parsing needs to know about this deployment.
#[derive(Debug, Clone, Default)]
pub struct ParseOptions {
    /// Tags the bot knows, lower-case (e.g. "nomic", "help", "rule tag"). A bracketed
    /// subject part that is not one of these (a list prefix like `[game-list]`) is skipped.
    pub known_tags: Vec<String>,
    /// The list's addresses, lower-case: a From equal to one of these is a DMARC rewrite.
    pub list_addresses: Vec<String>,
    /// Headers to recover the real sender from, in order: "reply-to", "x-original-from", "cc".
    pub recover_from: Vec<String>,
    /// The List-Id the list stamps (`[bot] list_id`), lower-case, if configured.
    pub list_id: Option<String>,
    /// The first lines of the list's footer (`[list] footer_markers`): reading stops
    /// at a body line that is one of them.
    pub footer_markers: Vec<String>,
    /// The bot's own address (`[bot] address`), lower-case; empty when unknown.
    pub bot_address: String,
    /// The address the list writes in Reply-To of every post (`[list] reply_to`,
    /// lower-case): Mailman then puts a munged post's author in Cc, never in
    /// Reply-To. `None`: the list sets no Reply-To, and the author goes there.
    pub list_reply_to: Option<String>,
}

/// The defect of a message the MIME parser panicked on.
pub const PARSER_PANICKED: &str = "the MIME parser panicked on this message";

/// Reads one raw message. Never fails: what cannot be read is left empty and
/// noted in `defects`, so the caller can still store, answer or set aside the message.
pub fn parse(raw: &[u8], options: &ParseOptions) -> Envelope {
    // mail-parser is fuzzed upstream, but a panic here would stall the whole inbox
    // on one hostile message, so a panic is turned into a defect instead.
    match catch_unwind(AssertUnwindSafe(|| parse_message(raw, options))) {
        Ok(envelope) => envelope,
        Err(_) => empty_envelope(vec![PARSER_PANICKED.to_string()]),
    }
}

/// The header block of a raw message, up to and including the blank line that
/// ends it (the whole message when there is none). Parsing only this reads who
/// sent a message too large to read whole, and its Message-ID, at the cost of
/// its headers.
pub fn header_block(raw: &[u8]) -> &[u8] {
    let mut start = 0;
    while let Some(offset) = raw[start..].iter().position(|&byte| byte == b'\n') {
        let next = start + offset + 1;
        match raw.get(next..) {
            Some([b'\n', ..]) => return &raw[..next + 1],
            Some([b'\r', b'\n', ..]) => return &raw[..next + 2],
            _ => start = next,
        }
    }
    raw
}

fn empty_envelope(defects: Vec<String>) -> Envelope {
    Envelope {
        message_id: None,
        from: None,
        sender: None,
        to: Vec::new(),
        cc: Vec::new(),
        reply_to: Vec::new(),
        list_id: None,
        subject: String::new(),
        tag: None,
        command_lines: Vec::new(),
        in_reply_to: Vec::new(),
        references: Vec::new(),
        date: None,
        automatic: None,
        sender_doubt: None,
        wrapped: false,
        defects,
    }
}

fn parse_message(raw: &[u8], options: &ParseOptions) -> Envelope {
    let Some(message) = MessageParser::default().parse(raw) else {
        return empty_envelope(vec!["no header could be parsed".to_string()]);
    };
    let mut defects = Vec::new();

    let from = mailboxes(message.header_values(HeaderName::From))
        .into_iter()
        .next();
    if from.is_none() {
        defects.push("no From address".to_string());
    }
    let mut sender_doubt = None;
    let recovered = from
        .as_ref()
        .filter(|from| is_list_address(&from.address, options))
        .map(|_| recover_sender(&message, options));
    // Mailman's `wrap_message`: the list's own message, From the list, with the
    // post inside as it was sent. The post is what is read: its author, body,
    // Message-ID and threading; the list's headers (subject prefix, List-Id,
    // To) stay the outer message's. Its From is believed only when it is the
    // author the list placed in the outer headers, as for a munged post: under
    // `munge_from` a poster's own message/rfc822 body is no wrapper, and its
    // From is anyone's to write.
    let original = match &recovered {
        Some(Recovery::Found(author)) => wrapped_original(&message).filter(|post| {
            mailboxes(post.header_values(HeaderName::From))
                .first()
                .is_some_and(|inside| inside.address == author.address)
        }),
        _ => None,
    };
    let post = original.unwrap_or(&message);
    if original.is_some() {
        defects.push("wrapped by the list (DMARC mitigation): the post inside is read".to_string());
    }
    let sender = match (&from, recovered) {
        (_, Some(Recovery::Found(author))) => original
            .and_then(|post| {
                mailboxes(post.header_values(HeaderName::From))
                    .into_iter()
                    .next()
            })
            .or(Some(author)),
        (_, Some(Recovery::Doubt(doubt))) => {
            defects.push(doubt.reason.clone());
            sender_doubt = Some(doubt);
            None
        }
        (Some(from), Some(Recovery::Nobody)) => {
            defects.push(format!(
                "From is the list address {} and no recovery header names the sender",
                from.address
            ));
            None
        }
        (other, _) => other.clone(),
    };

    let message_id = post
        .message_id()
        .or_else(|| message.message_id())
        .map(str::trim)
        .filter(|id| !id.is_empty() && !id.contains(|c: char| c.is_whitespace() || c.is_control()))
        .map(str::to_string);
    if message_id.is_none() {
        // Dedup falls back to the IMAP UID alone, so the record should say why.
        defects.push("no Message-ID".to_string());
    }

    let subject = subject(&message, &mut defects);
    let tag = subject_tag(&subject, &options.known_tags);

    let date = date(post).or_else(|| date(&message));
    if date.is_none() && message.header(HeaderName::Date).is_some() {
        defects.push("unreadable Date header".to_string());
    }

    let body = body_text(post, &mut defects);
    let (in_reply_to, references) = match original {
        Some(post) => (
            message_ids(post.in_reply_to()),
            message_ids(post.references()),
        ),
        None => (
            message_ids(message.in_reply_to()),
            message_ids(message.references()),
        ),
    };
    let through = through_list(&message, options);
    let automatic = automatic(&message, through, options)
        .or_else(|| original.and_then(|post| automatic(post, true, options)));

    Envelope {
        message_id,
        from,
        sender,
        to: mailboxes(message.header_values(HeaderName::To)),
        cc: mailboxes(message.header_values(HeaderName::Cc)),
        reply_to: mailboxes(message.header_values(HeaderName::ReplyTo)),
        list_id: list_id(&message),
        subject,
        tag,
        command_lines: command_lines_with_footers(&body, &options.footer_markers),
        in_reply_to,
        references,
        date,
        automatic,
        sender_doubt,
        wrapped: original.is_some(),
        defects,
    }
}

/// The post inside a list's wrapper: the message/rfc822 that is the whole body
/// (Mailman's `wrap_message` without `dmarc_wrapped_message_text`) or an inline
/// part of a multipart/mixed (with it).
fn wrapped_original<'a, 'x>(message: &'a Message<'x>) -> Option<&'a Message<'x>> {
    let inline = |part: &MessagePart<'_>| {
        !part
            .content_disposition()
            .is_some_and(|disposition| disposition.is_attachment())
    };
    let content_type = message
        .header(HeaderName::ContentType)
        .and_then(HeaderValue::as_content_type)?;
    let whole = content_type.c_type.eq_ignore_ascii_case("message")
        && content_type
            .c_subtype
            .as_deref()
            .is_some_and(|sub| sub.eq_ignore_ascii_case("rfc822"));
    let mixed = content_type.c_type.eq_ignore_ascii_case("multipart")
        && content_type
            .c_subtype
            .as_deref()
            .is_some_and(|sub| sub.eq_ignore_ascii_case("mixed"));
    if !whole && !mixed {
        return None;
    }
    message.parts.iter().find_map(|part| match &part.body {
        PartType::Message(inner) if inline(part) => Some(inner),
        _ => None,
    })
}

/// The Message-ID that makes a message "the same message" (the inbox's
/// duplicate key): the message's own, but for a list's wrapper (Mailman's
/// `wrap_message`: From is the address its List-Post names, the body the post)
/// the post's inside, so the copy through the list and the one sent to the bot
/// directly are one message. Only the headers are read unless they show a
/// wrapper.
pub fn dedup_message_id(raw: &[u8]) -> Option<String> {
    let head = parse(header_block(raw), &ParseOptions::default());
    let list_post = MessageParser::default()
        .parse_headers(header_block(raw))
        .and_then(|message| raw_header_values(&message, "List-Post").into_iter().next())
        .unwrap_or_default();
    let wrapper = head
        .from
        .as_ref()
        .is_some_and(|from| names_address(&list_post.replace("mailto:", " "), &from.address));
    if wrapper {
        // At worst a poster's own message/rfc822 body makes the post a
        // duplicate of one already received: it is then not applied, which
        // credits nobody.
        let inside = catch_unwind(AssertUnwindSafe(|| {
            let message = MessageParser::default().parse(raw)?;
            let post = wrapped_original(&message)?;
            post.message_id()
                .map(str::trim)
                .filter(|id| {
                    !id.is_empty() && !id.contains(|c: char| c.is_whitespace() || c.is_control())
                })
                .map(str::to_string)
        }));
        if let Ok(Some(id)) = inside {
            return Some(id);
        }
    }
    head.message_id
}

/// Whether the message came through the configured list: its List-Id, its
/// List-Post, or a To or Cc naming the list. The list's own stamps
/// (`Precedence: bulk` or `list`) are then no mark of the post.
fn through_list(message: &Message<'_>, options: &ParseOptions) -> bool {
    if options.list_id.is_some() && list_id(message) == options.list_id {
        return true;
    }
    let names_list = |value: &str| {
        options
            .list_addresses
            .iter()
            .any(|list| !list.is_empty() && value.to_lowercase().contains(&list.to_lowercase()))
    };
    if raw_header_values(message, "List-Post")
        .iter()
        .any(|value| names_list(value))
    {
        return true;
    }
    mailboxes(message.header_values(HeaderName::To))
        .iter()
        .chain(&mailboxes(message.header_values(HeaderName::Cc)))
        .any(|mailbox| is_list_address(&mailbox.address, options))
}

/// The decoded subject. mail-parser reads raw 8-bit bytes in a header as UTF-8
/// only; old clients send Latin-1 there, which then reads as windows-1252 (its
/// superset) rather than as replacement characters.
fn subject(message: &Message<'_>, defects: &mut Vec<String>) -> String {
    let subject = decoded_subject(message, defects);
    let line = one_line(&subject);
    if line != subject.trim() {
        defects.push("subject: line breaks or control characters made spaces".to_string());
    }
    line
}

/// Text that reaches the bot's own mail (a subject goes back into a Subject
/// header, a command line into the answer) made one line: a CR, LF or other
/// control character, and a Unicode line or paragraph separator, becomes a space,
/// so a subject encoded with `=0D=0A` cannot add a header or a line to an answer.
pub fn one_line(text: &str) -> String {
    // A tab is only a space (and may be folding whitespace).
    let breaks = |c: char| (c.is_control() && c != '\t') || c == '\u{2028}' || c == '\u{2029}';
    if !text.contains(breaks) {
        return text.trim().to_string();
    }
    text.replace(breaks, " ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn decoded_subject(message: &Message<'_>, defects: &mut Vec<String>) -> String {
    let decoded = message.subject().unwrap_or_default().trim();
    if !decoded.contains('\u{fffd}') {
        return decoded.to_string();
    }
    let raw_bytes = message
        .headers()
        .iter()
        .rev()
        .find(|header| header.name == HeaderName::Subject)
        .and_then(|header| {
            message
                .raw_message
                .get(header.offset_start as usize..header.offset_end as usize)
        });
    let is_raw_8bit = |bytes: &[u8]| {
        std::str::from_utf8(bytes).is_err() && !bytes.windows(2).any(|pair| pair == b"=?")
    };
    match (raw_bytes, charset_decoder(b"windows-1252")) {
        (Some(bytes), Some(decode)) if is_raw_8bit(bytes) => {
            defects.push("subject: raw 8-bit bytes read as windows-1252".to_string());
            decode(bytes)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        }
        _ => {
            defects.push("subject: undecodable characters".to_string());
            decoded.to_string()
        }
    }
}

/// The `Date:` header. mail-parser reads most dates; jiff's RFC 2822 parser
/// also reads the obsolete forms it rejects (two-digit years, `CST`).
fn date(message: &Message<'_>) -> Option<Timestamp> {
    if let Some(HeaderValue::DateTime(date_time)) = message.header(HeaderName::Date)
        && date_time.is_valid()
        && let Ok(timestamp) = Timestamp::from_second(date_time.to_timestamp())
    {
        return Some(timestamp);
    }
    // The last one, as mail-parser's own accessors take the last of a repeated header.
    let raw = raw_header_values(message, "Date").pop()?;
    jiff::fmt::rfc2822::parse(&raw)
        .ok()
        .map(|zoned| zoned.timestamp())
}

/// The mailboxes of every occurrence of one address header, groups flattened.
fn mailboxes<'a, 'x: 'a>(values: impl Iterator<Item = &'a HeaderValue<'x>>) -> Vec<Mailbox> {
    values
        .filter_map(HeaderValue::as_address)
        .flat_map(Address::iter)
        .filter_map(|addr| {
            let address = addr.address()?.trim().to_lowercase();
            // mail-parser runs a malformed list such as `Bob <bob@a> Bobby <bobby@a>`
            // together into `bob@abobby@a`: that names nobody, and answering it
            // would fail, so it is no address at all.
            if address.is_empty()
                || address.matches('@').count() > 1
                || address.contains(|c: char| c.is_whitespace() || c == '<' || c == '>')
            {
                return None;
            }
            let name = addr.name().map(one_line).filter(|name| !name.is_empty());
            Some(Mailbox { address, name })
        })
        .collect()
}

fn is_list_address(address: &str, options: &ParseOptions) -> bool {
    options
        .list_addresses
        .iter()
        .any(|list| list.trim().eq_ignore_ascii_case(address))
}

/// The author of a post whose From the list rewrote (DMARC), if the list
/// certainly named them. Mailman (`handlers/dmarc.py`, `munged_headers`)
/// appends the original From to Reply-To when the list sets no Reply-To of its
/// own, and to Cc when it does (`reply_goes_to_list` pointing at the list or at
/// an explicit address), after any address the post already had there, unless it
/// was there already; Google Groups and groups.io put it in X-Original-From.
/// So:
/// - where the list sets a Reply-To (`[list] reply_to`), Reply-To is the list's
///   and the poster's, never the author's place: it is not read;
/// - where it sets none and Reply-To names someone, Mailman put the author
///   there, and a Cc is the poster's own (a reply-all's): Cc is not read. A
///   Reply-To naming the list itself may be a list that sets one after all: then
///   every configured header is read, and they must agree;
/// - one address left in the headers read (the list's own and its Reply-To
///   address left out) is the author; with several, the post itself put the
///   others there, and which one the list added cannot be told from the
///   headers: the message is not credited to anyone.
fn recover_sender(message: &Message<'_>, options: &ParseOptions) -> Recovery {
    let found_in = |header: &str| -> Vec<Mailbox> {
        // Parsing the raw field with an address parser works for any header name,
        // including ones mail-parser keeps as raw text such as X-Original-From.
        let header_name = HeaderName::from(header.trim().to_string());
        let values = message.header_as(header_name, HeaderForm::Addresses);
        mailboxes(values.iter())
            .into_iter()
            .filter(|mailbox| {
                !is_list_address(&mailbox.address, options)
                    && options.list_reply_to.as_deref() != Some(mailbox.address.as_str())
            })
            .collect()
    };
    let is_header = |header: &String, name: &str| header.trim().eq_ignore_ascii_case(name);
    let reads_reply_to = options
        .recover_from
        .iter()
        .any(|h| is_header(h, "reply-to"));
    let reply_to_is_the_authors = options.list_reply_to.is_none()
        && reads_reply_to
        && !found_in("reply-to").is_empty()
        && !mailboxes(message.header_values(HeaderName::ReplyTo))
            .iter()
            .any(|mailbox| is_list_address(&mailbox.address, options));
    let mut candidates: Vec<Mailbox> = Vec::new();
    let mut headers: Vec<&str> = Vec::new();
    for header in &options.recover_from {
        if (options.list_reply_to.is_some() && is_header(header, "reply-to"))
            || (reply_to_is_the_authors && is_header(header, "cc"))
        {
            continue;
        }
        let found = found_in(header);
        if !found.is_empty() {
            headers.push(header.as_str());
        }
        for mailbox in found {
            if !candidates.iter().any(|c| c.address == mailbox.address) {
                candidates.push(mailbox);
            }
        }
    }
    match candidates.len() {
        0 => Recovery::Nobody,
        1 => Recovery::Found(candidates.remove(0)),
        _ => Recovery::Doubt(SenderDoubt {
            reason: format!(
                "the list rewrote From, and {} name{} {}: the list added one of them, the post the others, and which one wrote it cannot be told",
                headers.join(" and "),
                if headers.len() == 1 { "s" } else { "" },
                candidates
                    .iter()
                    .map(|c| c.address.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            candidates,
        }),
    }
}

enum Recovery {
    Found(Mailbox),
    Doubt(SenderDoubt),
    Nobody,
}

fn message_ids(value: &HeaderValue<'_>) -> Vec<String> {
    let ids: Vec<&str> = match value {
        HeaderValue::Text(id) => vec![id.as_ref()],
        HeaderValue::TextList(ids) => ids.iter().map(Cow::as_ref).collect(),
        _ => Vec::new(),
    };
    ids.into_iter()
        .map(str::trim)
        // An id goes back into In-Reply-To and References: one with a space or a
        // control character in it is no Message-ID.
        .filter(|id| !id.is_empty() && !id.contains(|c: char| c.is_whitespace() || c.is_control()))
        .map(str::to_string)
        .collect()
}

/// Every value of a header as written (lossy UTF-8), unfolded. Used for the
/// headers whose exact text matters (`Auto-Submitted`, `List-Id`, ...), whatever
/// mail-parser would have made of them.
fn raw_header_values(message: &Message<'_>, name: &str) -> Vec<String> {
    message
        .headers()
        .iter()
        .filter(|header| header.name.as_str().eq_ignore_ascii_case(name))
        .filter_map(|header| {
            message
                .raw_message
                .get(header.offset_start as usize..header.offset_end as usize)
        })
        .map(|bytes| {
            String::from_utf8_lossy(bytes)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

fn list_id(message: &Message<'_>) -> Option<String> {
    let value = raw_header_values(message, "List-Id").into_iter().next()?;
    // RFC 2919: an optional phrase, then the id in angle brackets.
    let id = match value.rfind('<') {
        Some(open) => {
            let inner = &value[open + 1..];
            inner.split('>').next().unwrap_or(inner)
        }
        None => value.as_str(),
    };
    let id = id.trim().to_lowercase();
    (!id.is_empty()).then_some(id)
}

/// A structured header value without its RFC 5322 `(comments)`.
fn without_comments(value: &str) -> String {
    let mut depth = 0_usize;
    let mut result = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => result.push(c),
            _ => {}
        }
    }
    result
}

/// The de facto marks of responders and other machine-made mail, and who writes
/// them. Present at all makes a message automatic, unless its value is `no` or
/// `false`: RFC 3834 asks responders for `Auto-Submitted`, but many still write
/// only their own header.
const MACHINE_HEADERS: &[(&str, &str)] = &[
    ("X-Autoreply", "a vacation responder"),
    ("X-Auto-Reply", "a vacation responder"),
    ("X-Autorespond", "an autoresponder"),
    ("X-Autoresponse", "an autoresponder"),
    ("X-Mail-Autoreply", "an autoresponder"),
    ("X-Autogenerated", "an autoresponder"),
    ("X-Vacation", "a vacation responder"),
    (
        "X-FC-MachineGenerated",
        "FirstClass, on mail it made itself",
    ),
    (
        "X-MS-Exchange-Generated-Message-Source",
        "Exchange, on mail its own agents made",
    ),
];

/// How responders begin the subjects they write, lower-case: before the subject
/// they answer ("Automatic reply: Re: [nomic] join") or in place of it ("Out of
/// Office"). Outlook and Exchange in the languages players are likely to use,
/// Lotus Notes, and the usual words of vacation programs.
const RESPONDER_SUBJECTS: &[&str] = &[
    "out of office",
    "out of office autoreply",
    "out of office reply",
    "out of the office",
    "i am on vacation",
    "i am out of the office",
    "automatic reply",
    "automatic response",
    "auto-reply",
    "auto reply",
    "autoreply",
    "auto-response",
    "autoresponse",
    "abwesenheitsnotiz",
    "automatische antwort",
    "réponse automatique",
    "automatisch antwoord",
    "respuesta automática",
    "risposta automatica",
];

/// The responder's phrase a subject begins with, after the list's and the game's
/// bracketed prefixes. The phrase must end the subject or be followed by a colon,
/// so a player's "[nomic] Out of office tomorrow, count me in" is no responder's.
/// A reply prefix ahead of it ("Re: Out of Office: ...") is a person answering
/// the auto-reply, which is not automatic.
fn responder_subject(subject: &str) -> Option<&'static str> {
    let mut remaining = subject.trim_start();
    while let Some(inside) = remaining.strip_prefix('[') {
        let Some(close) = inside.find(']') else {
            break;
        };
        remaining = inside[close + 1..].trim_start();
    }
    let lower = normalize_tag(remaining);
    RESPONDER_SUBJECTS.iter().copied().find(|phrase| {
        lower.strip_prefix(phrase).is_some_and(|after| {
            let after = after.trim_start();
            after.is_empty() || after.starts_with(':') || after.starts_with('：')
        })
    })
}

/// Whether a header value names `address` as a whole address (`robot@x` does
/// not name `bot@x`).
fn names_address(value: &str, address: &str) -> bool {
    !address.is_empty()
        && value
            .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '<' | '>' | '"'))
            .any(|word| word.eq_ignore_ascii_case(address))
}

/// Which of the addresses only software writes from `from` is: the bot's own with
/// a `+tag` (a bounce sent back to a tagged return path), or the list's
/// administrative addresses. Mailman writes its bounces, notices and command
/// answers from `LIST-bounces`, `LIST-owner`, `LIST-request` and `LIST-confirm`,
/// each also with a `+...` suffix (`game-list-bounces+alice=x.org@`); mlmmj from
/// `LIST+bounces-...` and `LIST+owner`. The list's own address is not one: a
/// list that rewrites From for DMARC posts players' mail from it.
fn service_address(from: &str, options: &ParseOptions) -> Option<String> {
    let (from_local, from_domain) = from.rsplit_once('@')?;
    fn local_part_at<'a>(address: &'a str, domain: &str) -> Option<&'a str> {
        address
            .rsplit_once('@')
            .filter(|(_, its_domain)| its_domain.eq_ignore_ascii_case(domain))
            .map(|(local, _)| local)
    }
    if let Some(bot_local) = local_part_at(&options.bot_address, from_domain)
        && !bot_local.is_empty()
        && from_local
            .strip_prefix(bot_local)
            .is_some_and(|after| after.starts_with('+'))
    {
        return Some(format!("From {from}: the bot's address with a tag"));
    }
    for list in &options.list_addresses {
        let Some(list_local) = local_part_at(list.trim(), from_domain) else {
            continue;
        };
        let Some(after) = from_local
            .strip_prefix(list_local)
            .filter(|_| !list_local.is_empty())
        else {
            continue;
        };
        let mailman = ["-bounces", "-owner", "-request", "-confirm"]
            .iter()
            .any(|suffix| {
                after
                    .strip_prefix(suffix)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('+'))
            });
        let mlmmj = after.starts_with("+bounces-") || after == "+owner";
        if mailman || mlmmj {
            return Some(format!("From {from}: the list's administrative address"));
        }
    }
    None
}

/// Why this message must not be answered, if it must not (RFC 3834 and the
/// de facto headers of vacation responders and bounce generators).
fn automatic(
    message: &Message<'_>,
    through_list: bool,
    options: &ParseOptions,
) -> Option<Automatic> {
    for value in raw_header_values(message, "Auto-Submitted") {
        let keyword = without_comments(value.split(';').next().unwrap_or_default())
            .trim()
            .to_lowercase();
        // An empty value is malformed; treating it as automatic errs on the side
        // of not starting a mail loop.
        if keyword != "no" {
            return Some(Automatic::AutoSubmitted(keyword));
        }
    }

    let is_report = message
        .header(HeaderName::ContentType)
        .and_then(HeaderValue::as_content_type)
        .is_some_and(|content_type| {
            content_type.c_type.eq_ignore_ascii_case("multipart")
                && content_type
                    .c_subtype
                    .as_deref()
                    .is_some_and(|subtype| subtype.eq_ignore_ascii_case("report"))
        });
    if is_report {
        return Some(Automatic::Bounce(
            "Content-Type multipart/report".to_string(),
        ));
    }
    let from = mailboxes(message.header_values(HeaderName::From))
        .into_iter()
        .next()
        .map(|from| from.address);
    let from_local_part = from
        .as_deref()
        .map(|address| address.split('@').next().unwrap_or_default());
    if let Some(local_part) = from_local_part
        && (local_part == "mailer-daemon" || local_part == "postmaster")
    {
        return Some(Automatic::Bounce(format!("From {local_part}")));
    }
    if let Some(reason) = from
        .as_deref()
        .and_then(|from| service_address(from, options))
    {
        return Some(Automatic::ServiceAddress(reason));
    }
    let empty_return_path = raw_header_values(message, "Return-Path")
        .iter()
        .any(|value| {
            value
                .chars()
                .filter(|c| !c.is_whitespace())
                .eq("<>".chars())
        });
    if empty_return_path {
        return Some(Automatic::Bounce("empty Return-Path <>".to_string()));
    }
    // Exim and others name the addresses that failed; only a bounce carries it.
    if let Some(value) = raw_header_values(message, "X-Failed-Recipients")
        .into_iter()
        .next()
    {
        return Some(Automatic::Bounce(format!("X-Failed-Recipients: {value}")));
    }

    // RFC 3834 section 2: a responder must not answer mail that already passed
    // through it, and procmail-style responders and lists mark that with X-Loop.
    // The bot's address there means its own mail came back. A list may stamp
    // its own address on every post it relays, as it does Precedence, so through
    // the list only the bot's counts.
    for value in raw_header_values(message, "X-Loop") {
        let names_list = !through_list
            && options
                .list_addresses
                .iter()
                .any(|list| names_address(&value, list.trim()));
        if names_address(&value, &options.bot_address) || names_list {
            return Some(Automatic::Loop(format!("X-Loop: {value}")));
        }
    }

    // A list stamps `Precedence: bulk` (or `list`) on every post it relays:
    // through the list, only the post's own marks count.
    let precedence_headers: &[&str] = if through_list {
        &["X-Precedence"]
    } else {
        &["Precedence", "X-Precedence"]
    };
    for &header in precedence_headers {
        for value in raw_header_values(message, header) {
            let precedence = without_comments(&value).trim().to_lowercase();
            // `list` is what every list message carries; only bulk, junk and the
            // non-standard auto_reply mean "do not answer".
            if matches!(precedence.as_str(), "bulk" | "junk" | "auto_reply") {
                return Some(Automatic::BulkOrAutoreply(format!(
                    "{header}: {precedence}"
                )));
            }
        }
    }
    for &(header, who) in MACHINE_HEADERS {
        if let Some(value) = raw_header_values(message, header).into_iter().next() {
            let word = without_comments(&value).trim().to_lowercase();
            if word != "no" && word != "false" {
                return Some(Automatic::BulkOrAutoreply(format!(
                    "{header}: {value} ({who})"
                )));
            }
        }
    }
    // Novell GroupWise marks its responders by message class.
    for value in raw_header_values(message, "X-POST-MessageClass") {
        if value.to_lowercase().contains("autoresponder") {
            return Some(Automatic::BulkOrAutoreply(format!(
                "X-POST-MessageClass: {value}"
            )));
        }
    }
    // The Unix vacation(1) program names itself as the mailer.
    for value in raw_header_values(message, "X-Mailer") {
        let first_word = value.split_whitespace().next().unwrap_or_default();
        if first_word.eq_ignore_ascii_case("vacation") {
            return Some(Automatic::BulkOrAutoreply(format!("X-Mailer: {value}")));
        }
    }
    for value in raw_header_values(message, "X-Auto-Response-Suppress") {
        // Exchange stamps `All` on its own automatic mail; narrower values such as
        // `OOF` also appear on ordinary mail from some clients, so they do not count.
        if value
            .split(',')
            .any(|flag| flag.trim().eq_ignore_ascii_case("all"))
        {
            return Some(Automatic::BulkOrAutoreply(format!(
                "X-Auto-Response-Suppress: {value}"
            )));
        }
    }
    let subject = message.subject().unwrap_or_default();
    if let Some(phrase) = responder_subject(subject) {
        return Some(Automatic::Subject(phrase.to_string()));
    }
    None
}

/// The whole text body of a message, decoded (for `verify-sealed`, which reads the
/// bot's archived mail). Empty when the message has no text.
pub fn text_of(raw: &[u8]) -> String {
    match MessageParser::default().parse(raw) {
        Some(message) => body_text(&message, &mut Vec::new()),
        None => String::new(),
    }
}

/// The decoded subject of a message (for the digest of folded answers, which
/// reads the bot's own mail). Empty when it has none.
pub fn subject_of(raw: &[u8]) -> String {
    MessageParser::default()
        .parse(header_block(raw))
        .and_then(|message| message.subject().map(str::to_owned))
        .unwrap_or_default()
}

/// The text to look for commands in: the first text body (text/plain preferred
/// by mail-parser in an alternative), or a lone HTML body turned into text.
fn body_text(message: &Message<'_>, defects: &mut Vec<String>) -> String {
    // mail-parser also lists inline images and other inline parts as text
    // bodies, so the first one that really is text is the one players wrote.
    let is_text =
        |part: &&MessagePart<'_>| matches!(part.body, PartType::Text(_) | PartType::Html(_));
    // When a multipart is broken (a boundary never closed, a `related` root that
    // names the wrong part) mail-parser leaves the text out of its body list; the
    // first inline text part is then the best guess at what the sender wrote.
    let fallback = || {
        let inline_text = |part: &&MessagePart<'_>| {
            is_text(part)
                && !part
                    .content_disposition()
                    .is_some_and(|disposition| disposition.is_attachment())
        };
        let mut inline = message.parts.iter().filter(inline_text);
        let first = inline
            .clone()
            .find(|part| matches!(part.body, PartType::Text(_)));
        first.or_else(|| inline.next())
    };
    let Some(part) = message.text_bodies().find(is_text).or_else(fallback) else {
        defects.push("no text body".to_string());
        return String::new();
    };
    if part.is_encoding_problem {
        if let Some(text) = base64_with_text_after(part, &message.raw_message) {
            defects.push(
                "text body: text after the base64 lines (a list's footer) left out".to_string(),
            );
            return text;
        }
        // mail-parser then keeps the undecoded text, which is still worth scanning.
        defects.push("text body: unknown charset or broken transfer encoding".to_string());
    }
    match &part.body {
        PartType::Html(html) => html_to_text(&html_with_block_breaks(html)),
        PartType::Text(text) => text.to_string(),
        _ => String::new(),
    }
}

/// The text of a base64 body that has plain text after its encoded lines. A list
/// manager may add its footer to a post as it is, after the encoded body (mlmmj
/// appends `control/footer` to the raw message), and mail-parser then cannot
/// decode the body at all. The leading run of base64 lines is the sender's text,
/// decoded in its charset; what follows them was added on the way and is left
/// out. `None` when the part is not such a body.
fn base64_with_text_after(part: &MessagePart<'_>, raw_message: &[u8]) -> Option<String> {
    let is_base64 = part
        .content_transfer_encoding()
        .is_some_and(|encoding| encoding.trim().eq_ignore_ascii_case("base64"));
    if !is_base64 {
        return None;
    }
    let raw = raw_message.get(part.offset_body as usize..part.offset_end as usize)?;
    let is_base64_line = |line: &[u8]| {
        line.iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
    };
    let mut encoded = Vec::new();
    let mut width = None;
    for line in raw.split(|&byte| byte == b'\n') {
        let line = line.trim_ascii();
        if line.is_empty() && encoded.is_empty() {
            continue;
        }
        if line.is_empty() || !is_base64_line(line) {
            break;
        }
        // Every encoded line but the last is as wide as the first, and the data
        // is whole groups of four: a short word of a footer is not mistaken for
        // the body's last line.
        let width = *width.get_or_insert(line.len());
        let is_last = line.len() < width || line.ends_with(b"=");
        if line.len() > width || (is_last && (encoded.len() + line.len()) % 4 != 0) {
            break;
        }
        encoded.extend_from_slice(line);
        if is_last {
            break;
        }
    }
    if encoded.is_empty() || encoded.len() % 4 != 0 {
        return None;
    }
    let decoded = mail_parser::decoders::base64::base64_decode(&encoded)?;
    let charset = part
        .content_type()
        .and_then(|content_type| content_type.attribute("charset"))
        .and_then(|charset| charset_decoder(charset.trim().as_bytes()));
    let text = match charset {
        Some(decode) => decode(&decoded),
        None => String::from_utf8_lossy(&decoded).into_owned(),
    };
    let is_html = part.content_type().is_some_and(|content_type| {
        content_type
            .subtype()
            .is_some_and(|subtype| subtype.eq_ignore_ascii_case("html"))
    });
    Some(if is_html {
        html_to_text(&html_with_block_breaks(&text))
    } else {
        text
    })
}

/// mail-parser's `html_to_text` breaks lines only at `<br>` and `</p>`, but mail
/// clients write one `<div>` per line, so block tags get a `<br>` first or the
/// commands of an HTML-only message would run together on one line.
fn html_with_block_breaks(html: &str) -> String {
    const BLOCK_TAGS: [&str; 11] = [
        "div",
        "p",
        "li",
        "tr",
        "blockquote",
        "h1",
        "h2",
        "h3",
        "h4",
        "pre",
        "table",
    ];
    let mut result = String::with_capacity(html.len() + html.len() / 8);
    let mut pieces = html.split('<');
    if let Some(first) = pieces.next() {
        result.push_str(first);
    }
    for piece in pieces {
        let tag_name: String = piece
            .trim_start_matches('/')
            .chars()
            .take_while(char::is_ascii_alphanumeric)
            .collect::<String>()
            .to_ascii_lowercase();
        if BLOCK_TAGS.contains(&tag_name.as_str()) {
            result.push_str("<br>");
        }
        result.push('<');
        result.push_str(piece);
    }
    result
}

/// Reply and forward prefixes, lower-case, as mail clients write them in the
/// languages players are likely to use: RFC 5322's `Re`, `Fw`/`Fwd`, and the
/// localized forms of Outlook, Thunderbird (`mailnews.localizedRe`), Apple Mail
/// and Gmail (the table of Wikipedia's "List of email subject abbreviations").
const REPLY_PREFIXES: &[&str] = &[
    // English, Latin, and most clients whatever their language.
    "re",
    "fw",
    "fwd",
    // German: Antwort, weitergeleitet.
    "aw",
    "antwort",
    "wg",
    // Dutch: Antwoord, Doorsturen.
    "antw",
    "doorst",
    // Danish, Norwegian, Swedish, Icelandic: svar; videresendt, vidarebefordrat, framsent.
    "sv",
    "vs",
    "vb",
    "fs",
    // Finnish: vastaus, välitetty.
    "vl",
    // French: réponse, référence, transféré.
    "réf",
    "ref",
    "tr",
    // Italian: risposta, riferimento, inoltrato.
    "r",
    "rif",
    "i",
    // Spanish: respuesta, reenviado.
    "rv",
    // Portuguese: resposta, encaminhado.
    "res",
    "enc",
    // Polish: odpowiedź, przekazanie dalej. Czech, Slovak: odpověď.
    "odp",
    "pd",
    // Hungarian: válasz, továbbítás.
    "v",
    "vá",
    "tov",
    // Turkish: yanıt, iletilen.
    "ynt",
    "ilt",
    "i̇lt",
    // Indonesian: balas, terusan. Welsh: ateb, ymlaen.
    "bls",
    "trs",
    "atb",
    "yml",
    // Greek, Russian, Hebrew, Arabic.
    "απ",
    "σχετ",
    "πρθ",
    "отв",
    "ответ",
    "пересл",
    "השב",
    "הועבר",
    "رد",
    // Chinese, Japanese, Korean.
    "回复",
    "回覆",
    "答复",
    "答覆",
    "转发",
    "轉寄",
    "返信",
    "転送",
    "회신",
    "답장",
    "전달",
];

/// Strips one `Re:`-style prefix (also `Re[2]:`, `Re(2):`, `Re^2:`, `RE :`,
/// `AW:`, `回复：`), or returns None. The prefix is a whole word: `Rest: x` is
/// no reply.
fn strip_reply_prefix(text: &str) -> Option<&str> {
    let text = text.trim_start();
    let word_end = text
        .find(|c: char| !c.is_alphabetic() && c != '\u{307}')
        .unwrap_or(text.len());
    let word = text[..word_end].to_lowercase();
    if word.is_empty() || !REPLY_PREFIXES.contains(&word.as_str()) {
        return None;
    }
    let mut after = text[word_end..].trim_start();
    after = after.strip_prefix('.').unwrap_or(after).trim_start();
    // A reply counter such as `Re[2]:`, `Re(2):` or `Re^2:`.
    for (open, close) in [('[', ']'), ('(', ')')] {
        if let Some(inner) = after.strip_prefix(open)
            && let Some(end) = inner.find(close)
            && inner[..end].trim().chars().all(|c| c.is_ascii_digit())
        {
            after = inner[end + close.len_utf8()..].trim_start();
        }
    }
    if let Some(power) = after.strip_prefix('^') {
        after = power.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    after
        .strip_prefix(':')
        .or_else(|| after.strip_prefix('：'))
        .map(str::trim_start)
}

/// Strips every leading reply prefix; whether there was one.
fn strip_reply_prefixes(mut text: &str) -> (&str, bool) {
    let mut reply = false;
    while let Some(after) = strip_reply_prefix(text) {
        text = after;
        reply = true;
    }
    (text.trim(), reply)
}

/// Lower-case with inner whitespace collapsed: `" Rule   Tag "` -> `"rule tag"`.
fn normalize_tag(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Whether a normalized bracket part names a known tag, directly or as a
/// numbered instance (`ghost 2` when `ghost` is known).
fn is_known_tag(tag: &str, known_tags: &[String]) -> bool {
    let is_known = |candidate: &str| {
        !candidate.is_empty()
            && known_tags
                .iter()
                .any(|known| normalize_tag(known) == candidate)
    };
    if is_known(tag) {
        return true;
    }
    match tag.rsplit_once(' ') {
        Some((words, number)) => {
            !number.is_empty() && number.chars().all(|c| c.is_ascii_digit()) && is_known(words)
        }
        None => false,
    }
}

/// Finds the game tag at the start of a subject, after any reply prefixes and
/// list prefixes. Only the leading run of prefixes and bracket parts is searched:
/// a bracket after free text (`about the [ping] rule`) is talk, not a command.
pub fn subject_tag(subject: &str, known_tags: &[String]) -> Option<SubjectTag> {
    let mut remaining = subject.trim_start();
    let mut reply = false;
    loop {
        if let Some(after) = strip_reply_prefix(remaining) {
            remaining = after;
            reply = true;
            continue;
        }
        let inside = remaining.strip_prefix('[')?;
        let close = inside.find(']')?;
        let tag = normalize_tag(&inside[..close]);
        let after = inside[close + 1..].trim_start();
        if is_known_tag(&tag, known_tags) {
            let (rest, reply_after_tag) = strip_reply_prefixes(after);
            return Some(SubjectTag {
                tag,
                rest: rest.to_string(),
                reply: reply || reply_after_tag,
            });
        }
        remaining = after;
    }
}

/// Trims ordinary whitespace and the invisible characters mail clients leave
/// in otherwise empty lines (non-breaking space is already whitespace to Rust).
fn trim_line(line: &str) -> &str {
    line.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}' || c == '\u{200b}')
}

/// How sure a line is to be a reply's attribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Attribution {
    /// "On Mon, Alice wrote:", "Le ... a écrit :", "alice@example.org wrote:": it
    /// introduces someone else's message whether or not that is quoted.
    Certain,
    /// "Alice wrote:" alone (Thunderbird's short form, a mailer's custom one): an
    /// attribution only when a quotation follows it.
    IfQuoted,
}

/// A reply attribution line in the languages players are likely to use. `text`
/// may be two lines joined, as clients wrap a long one (`wrapped`): then only the
/// forms that say where they begin ("On ...") count, so a command just above an
/// attribution is never taken for its first half.
fn attribution(text: &str, wrapped: bool) -> Option<Attribution> {
    let lower = text.to_lowercase();
    let lower = lower.trim_end();
    let certain = (lower.starts_with("on ") && lower.ends_with("wrote:"))
        || (lower.starts_with("le ")
            && (lower.ends_with("a écrit :") || lower.ends_with("a écrit:")))
        || (lower.starts_with("am ") && lower.contains("schrieb") && lower.ends_with(':'))
        || (lower.starts_with("el ") && lower.ends_with("escribió:"))
        || (lower.starts_with("il ") && lower.ends_with("ha scritto:"))
        || (lower.starts_with("op ") && lower.contains("schreef") && lower.ends_with(':'))
        || (lower.starts_with("em ") && lower.ends_with("escreveu:"))
        || (lower.starts_with("w dniu ")
            && (lower.contains("napisał") || lower.ends_with("pisze:")))
        || (lower.starts_with("den ") && lower.contains(" skrev ") && lower.ends_with(':'))
        || mutt_bracket_attribution(lower);
    if certain {
        return Some(Attribution::Certain);
    }
    if wrapped {
        return None;
    }
    // Gmail's Danish and Norwegian begin with the date, so only on one line:
    // "man. 5. jan. 2026 kl. 10:01 skrev Bob <b@x.org>:".
    if lower.contains(" skrev ") && lower.ends_with(">:") && lower.contains('@') {
        return Some(Attribution::Certain);
    }
    // "NAME wrote:" as Thunderbird, s-nail ("%f wrote:"), Gnus ("writes:") and
    // Outlook Express write it, in the same languages.
    let names_an_author = [
        "wrote:",
        "writes:",
        "a écrit :",
        "a écrit:",
        "schrieb:",
        "escribió:",
        "ha scritto:",
        "schreef:",
        // Gmail's Portuguese, Nordic, Polish, Finnish and Czech forms end with
        // the verb after the author: "... Bob <b@x.org> escreveu:".
        "escreveu:",
        "skrev:",
        "napisał:",
        "napisał(a):",
        "napisal(a):",
        "kirjoitti:",
        "napsal:",
        "napsal(a):",
    ]
    .iter()
    .any(|ending| lower.ends_with(ending));
    // A line ending so is one sentence at most, never a paragraph.
    if !names_an_author || lower.chars().count() > 200 {
        return None;
    }
    // With an address in it, it names the author of what follows: s-nail's
    // "nomicbot <bot@nomic.example> wrote:".
    if lower.contains('@') {
        Some(Attribution::Certain)
    } else {
        Some(Attribution::IfQuoted)
    }
}

/// The phrase inside an Outlook-style dashed separator (`-----Original
/// Message-----`) and its forward form, in the languages of `REPLY_PREFIXES`,
/// as Outlook, Thunderbird and Yahoo Mail write them. Compared lower-cased.
const SEPARATOR_PHRASES: &[&str] = &[
    "original message",
    "forwarded message",
    "reply message",
    // German: Outlook, Thunderbird.
    "ursprüngliche nachricht",
    "weitergeleitete nachricht",
    // French: Outlook, Thunderbird.
    "message d'origine",
    "message d’origine",
    "message original",
    "message transféré",
    "message transmis",
    // Spanish.
    "mensaje original",
    "mensaje reenviado",
    // Italian.
    "messaggio originale",
    "messaggio inoltrato",
    // Dutch.
    "oorspronkelijk bericht",
    "doorgestuurd bericht",
    // Portuguese.
    "mensagem original",
    "mensagem encaminhada",
    "mensagem reencaminhada",
    // Swedish, Danish, Norwegian.
    "ursprungligt meddelande",
    "vidarebefordrat meddelande",
    "oprindelig meddelelse",
    "videresendt meddelelse",
    "opprinnelig melding",
    "videresendt melding",
    // Finnish.
    "alkuperäinen viesti",
    "edelleenlähetetty viesti",
    // Polish.
    "oryginalna wiadomość",
    "wiadomość oryginalna",
    "przekazana wiadomość",
    "wiadomość przesłana dalej",
    "treść przekazanej wiadomości",
    // Czech.
    "původní zpráva",
    "přeposlaná zpráva",
];

/// Apple Mail's line above a forwarded message, per language.
const FORWARD_INTRODUCTIONS: &[&str] = &[
    "begin forwarded message:",
    "anfang der weitergeleiteten nachricht:",
    "début du message réexpédié :",
    "début du message réexpédié:",
    "début du message transféré :",
    "début du message transféré:",
    "inicio del mensaje reenviado:",
    "inizio messaggio inoltrato:",
    "begin doorgestuurd bericht:",
    "início da mensagem reencaminhada:",
    "início da mensagem encaminhada:",
    "vidarebefordrat mejl:",
    "start på videresendt besked:",
    "videresendt melding:",
    "välitetty viesti alkaa:",
    "początek przekazywanej wiadomości:",
];

/// The header block Outlook writes above the message it quotes or forwards:
/// its first field (who wrote it) and the field that must follow (when). One
/// row per language of `REPLY_PREFIXES`, classic Outlook's name for the time
/// first, then New Outlook's and Apple Mail's. Compared lower-cased, without the
/// colon (French puts a space before it: `De :`).
const QUOTED_HEADER_FIELDS: &[(&str, &[&str])] = &[
    ("from", &["sent", "date"]),
    // German: Von / Gesendet (Outlook), Datum (New Outlook, Apple Mail).
    ("von", &["gesendet", "datum"]),
    // French, Spanish, Portuguese share "De".
    (
        "de",
        &[
            "envoyé",
            "date",
            "enviado el",
            "enviado",
            "enviada em",
            "enviado em",
            "enviada",
            "fecha",
            "data",
        ],
    ),
    ("da", &["inviato", "data"]),
    ("van", &["verzonden", "datum"]),
    ("från", &["skickat", "datum"]),
    // Danish, Norwegian.
    ("fra", &["sendt", "dato"]),
    ("lähettäjä", &["lähetetty", "päivämäärä"]),
    // Polish, Czech.
    ("od", &["wysłano", "wysłane", "data", "odesláno", "datum"]),
];

/// mutt's other common attribution, `set attribution = "* %n <%a> [%d]:"`:
/// `* Bob <bob@example.org> [2026-01-05 10:01]:`. The address and the date in
/// brackets tell it from a bullet of a list the player wrote.
fn mutt_bracket_attribution(lower: &str) -> bool {
    let Some(rest) = lower.strip_prefix("* ") else {
        return false;
    };
    let Some(inner) = rest.strip_suffix("]:") else {
        return false;
    };
    match (inner.rfind(" ["), inner.find('<'), inner.find('>')) {
        (Some(date), Some(open), Some(close)) => {
            open < close && close < date && inner[open..close].contains('@')
        }
        _ => false,
    }
}

/// Separators after which only quoted or forwarded mail follows.
fn is_separator(line: &str) -> bool {
    let lower = line.to_lowercase();
    // Clients vary the number of dashes and the spaces inside them.
    (lower.starts_with("---")
        && SEPARATOR_PHRASES
            .iter()
            .any(|phrase| lower.contains(phrase)))
        || FORWARD_INTRODUCTIONS.contains(&lower.as_str())
        || (line.len() >= 10 && line.chars().all(|c| c == '_'))
}

/// The line a phone's or a webmail's mail program adds under what its user
/// wrote ("Sent from my iPhone", "Get Outlook for Android"): nobody's command.
fn is_device_signature(line: &str) -> bool {
    let lower = line.to_lowercase();
    [
        "sent from my ",
        "get outlook for ",
        "sent from mail for windows",
        "sent from yahoo mail",
        "sent with proton mail",
    ]
    .iter()
    .any(|start| lower.starts_with(start))
}

/// The name of a header-like field at the start of a line (`*Von:* x`,
/// `De : x`, `Enviado el: x`), lower-cased, or None.
fn field_name(line: &str) -> Option<String> {
    let line = line.trim_start_matches('*').trim_start();
    let colon = line.find([':', '：'])?;
    let name = line[..colon].trim_end_matches('*').trim();
    (!name.is_empty() && name.chars().count() <= 20).then(|| name.to_lowercase())
}

/// An Outlook-style quoted header block (`QUOTED_HEADER_FIELDS`): `From: ...`
/// directly followed by `Sent: ...` or `Date: ...`, in any of its languages.
fn is_quoted_header_block(line: &str, next_line: Option<&str>) -> bool {
    let (Some(first), Some(second)) = (field_name(line), next_line.and_then(field_name)) else {
        return false;
    };
    QUOTED_HEADER_FIELDS
        .iter()
        .any(|(from, when)| *from == first && when.contains(&second.as_str()))
}

/// One line of a body as the reader sees it.
struct BodyLine {
    /// Made one line and trimmed (`one_line`, `trim_line`).
    text: String,
    /// Began with a tab: how mailx and s-nail quote (their `indentprefix`).
    tab_indented: bool,
}

impl BodyLine {
    fn is_blank(&self) -> bool {
        self.text.is_empty()
    }

    /// Quoted with `>` (mutt, Thunderbird, Gmail, Apple Mail, ...).
    fn is_angle_quoted(&self) -> bool {
        self.text.starts_with('>')
    }
}

/// How a quotation under an attribution marks its lines.
#[derive(Clone, Copy, PartialEq, Eq)]
enum QuoteMark {
    Angle,
    Tab,
}

/// The end of the quotation that starts at `start` (blank lines first allowed):
/// the index of its first line that is neither blank nor quoted the same way.
/// `None` when no quotation starts there.
fn quotation_end(lines: &[BodyLine], start: usize) -> Option<usize> {
    let first = start
        + lines
            .get(start..)?
            .iter()
            .position(|line| !line.is_blank())?;
    let mark = if lines[first].is_angle_quoted() {
        QuoteMark::Angle
    } else if lines[first].tab_indented {
        QuoteMark::Tab
    } else {
        return None;
    };
    let belongs = |line: &BodyLine| {
        line.is_blank()
            || match mark {
                QuoteMark::Angle => line.is_angle_quoted(),
                QuoteMark::Tab => line.tab_indented,
            }
    };
    Some(
        lines[first..]
            .iter()
            .position(|line| !belongs(line))
            .map_or(lines.len(), |offset| first + offset),
    )
}

/// The body lines that may be commands: in order, trimmed, without quotes, the
/// signature, or anything after a forward marker or an unquoted reply. A reply's
/// attribution and the quotation under it are skipped, and what follows them is
/// read (a bottom-posted or interleaved reply). A run of blank lines between two
/// lines is kept as one empty string (a paragraph break in a rule text); games
/// that read one command per line skip them.
pub fn command_lines(body: &str) -> Vec<String> {
    command_lines_with_footers(body, &[])
}

/// `command_lines`, stopping also at the first line of a list's footer: a line
/// that is one of `footer_markers` (surrounding whitespace aside).
pub fn command_lines_with_footers(body: &str, footer_markers: &[String]) -> Vec<String> {
    let lines: Vec<BodyLine> = body
        .split('\n')
        .map(|line| {
            let line = line.strip_suffix('\r').unwrap_or(line);
            BodyLine {
                text: trim_line(&one_line(line)).to_string(),
                tab_indented: line.starts_with('\t'),
            }
        })
        .collect();
    let is_footer = |text: &str| {
        footer_markers
            .iter()
            .map(|marker| marker.trim())
            .any(|marker| !marker.is_empty() && marker == text)
    };
    let mut commands = Vec::new();
    let mut index = 0;
    while let Some(line) = lines.get(index) {
        let text = line.text.as_str();
        if line.is_blank() {
            // A paragraph break, kept once between lines: rule texts have paragraphs.
            if commands
                .last()
                .is_some_and(|last: &String| !last.is_empty())
            {
                commands.push(String::new());
            }
            index += 1;
            continue;
        }
        if line.is_angle_quoted() || is_device_signature(text) {
            index += 1;
            continue;
        }
        let next_line = lines
            .get(index + 1)
            .map(|next| next.text.as_str())
            .filter(|next| !next.is_empty());
        if text == "--"
            || is_footer(text)
            || is_separator(text)
            || is_quoted_header_block(text, next_line)
        {
            break;
        }
        // An attribution, on one line or wrapped onto the next by the client.
        let found = match attribution(text, false) {
            Some(kind) => Some((kind, 1)),
            None => next_line
                .filter(|next| {
                    !next.starts_with('>') && attribution(next, false) != Some(Attribution::Certain)
                })
                .and_then(|next| attribution(&format!("{text} {next}"), true))
                .map(|kind| (kind, 2)),
        };
        if let Some((kind, length)) = found {
            match quotation_end(&lines, index + length) {
                // The quoted message is skipped; what follows is the reply's.
                Some(end) => {
                    index = end;
                    continue;
                }
                // Someone else's message, unquoted: nothing after it is ours.
                None if kind == Attribution::Certain => break,
                None => {}
            }
        }
        commands.push(text.to_string());
        index += 1;
    }
    if commands.last().is_some_and(String::is_empty) {
        commands.pop();
    }
    commands
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> Vec<String> {
        ["rule tag", "ghost", "ping", "nomic", "vote"]
            .iter()
            .map(|tag| tag.to_string())
            .collect()
    }

    fn options() -> ParseOptions {
        ParseOptions {
            known_tags: known(),
            list_addresses: vec!["list@example.org".to_string()],
            recover_from: vec![
                "reply-to".to_string(),
                "x-original-from".to_string(),
                "cc".to_string(),
            ],
            list_id: None,
            footer_markers: vec!["-=-=-=-=-=-=-=-=-=-=-=-".to_string()],
            bot_address: "bot@example.org".to_string(),
            list_reply_to: None,
        }
    }

    fn tag(subject: &str) -> Option<(String, String)> {
        subject_tag(subject, &known()).map(|found| (found.tag, found.rest))
    }

    fn some(tag: &str, rest: &str) -> Option<(String, String)> {
        Some((tag.to_string(), rest.to_string()))
    }

    /// A message with the given extra header lines and a plain text body.
    fn plain(headers: &str, body: &str) -> Vec<u8> {
        format!(
            "From: Alice <Alice@Example.COM>\r\nTo: list@example.org\r\n\
             Subject: [ping] bob\r\nMessage-ID: <m1@example.com>\r\n{headers}\
             Content-Type: text/plain; charset=utf-8\r\n\r\n{body}"
        )
        .into_bytes()
    }

    #[test]
    fn header_block_ends_at_the_first_blank_line() {
        let raw = b"From: a@example.com\r\nSubject: x\r\n\r\nbody\r\n\r\nmore";
        assert_eq!(
            header_block(raw),
            b"From: a@example.com\r\nSubject: x\r\n\r\n"
        );
        assert_eq!(header_block(b"A: b\n\nbody"), b"A: b\n\n");
        assert_eq!(header_block(b"A: b\r\n"), b"A: b\r\n");
        let envelope = parse(header_block(&plain("", "ping bob\r\n")), &options());
        assert_eq!(envelope.message_id.as_deref(), Some("m1@example.com"));
        assert_eq!(envelope.tag.map(|found| found.tag).as_deref(), Some("ping"));
        assert!(envelope.command_lines.is_empty());
    }

    // --- subject_tag -----------------------------------------------------------

    #[test]
    fn subject_plain_tag_is_lower_cased() {
        assert_eq!(tag("[Rule Tag]"), some("rule tag", ""));
        assert_eq!(tag("[PING] bob"), some("ping", "bob"));
    }

    #[test]
    fn subject_list_prefix_and_reply_are_skipped() {
        assert_eq!(
            tag("Re: [game-list] [rule tag] my move"),
            some("rule tag", "my move")
        );
        assert_eq!(
            tag("[game-list] Re: [rule tag] my move"),
            some("rule tag", "my move")
        );
        assert_eq!(tag("[game-list][other] [ping]x"), some("ping", "x"));
    }

    #[test]
    fn subject_every_reply_prefix_form_is_skipped() {
        for subject in [
            "Re: [ping] bob",
            "RE: [ping] bob",
            "re:[ping] bob",
            "Re : [ping] bob",
            "Fwd: [ping] bob",
            "Fw: [ping] bob",
            "AW: [ping] bob",
            "SV: [ping] bob",
            "Antw: [ping] bob",
            "Re[2]: [ping] bob",
            "Re [3] : [ping] bob",
            "Re: Re: AW: Fwd: RE: [ping] bob",
            "  Re:   [game-list]   Re: [ping]   bob  ",
        ] {
            assert_eq!(tag(subject), some("ping", "bob"), "{subject}");
        }
    }

    fn is_reply(subject: &str) -> bool {
        subject_tag(subject, &known()).is_some_and(|found| found.reply)
    }

    #[test]
    fn subject_reply_is_recognised_in_every_common_form() {
        for subject in [
            "Re: [ping] bob",
            "RE : [ping] bob",
            "Aw: [ping] bob",
            "Antwort: [ping] bob",
            "Sv: [ping] bob",
            "VS: [ping] bob",
            "Odp: [ping] bob",
            "R: [ping] bob",
            "RIF: [ping] bob",
            "Réf. : [ping] bob",
            "TR: [ping] bob",
            "WG: [ping] bob",
            "Fw: [ping] bob",
            "ENC: [ping] bob",
            "RV: [ping] bob",
            "İLT: [ping] bob",
            "ΑΠ: [ping] bob",
            "Отв: [ping] bob",
            "回复：[ping] bob",
            "Re^2: [ping] bob",
            "Re(3): [ping] bob",
            "Re: Re: [ping] bob",
            "[game-list] Re: [ping] bob",
            "[ping] Re: bob",
            "[ping] AW: bob",
        ] {
            assert!(is_reply(subject), "{subject}");
            assert_eq!(tag(subject), some("ping", "bob"), "{subject}");
        }
        for subject in [
            "[ping] bob",
            "[game-list] [ping] bob",
            "[ping] Rest: bob",
            "[ping] re bob",
        ] {
            assert!(!is_reply(subject), "{subject}");
        }
        // A word that merely starts like a prefix is no prefix.
        assert_eq!(tag("Read: [ping] bob"), None);
    }

    #[test]
    fn subject_spaces_inside_brackets_collapse() {
        assert_eq!(tag("[ Rule   Tag ] move"), some("rule tag", "move"));
    }

    #[test]
    fn subject_numbered_tag_is_known() {
        assert_eq!(tag("[ghost 2] guess"), some("ghost 2", "guess"));
        assert_eq!(tag("Re: [Ghost   12]"), some("ghost 12", ""));
        // A number alone is not a tag, and neither is an unknown word with one.
        assert_eq!(tag("[2] [ghost] x"), some("ghost", "x"));
        assert_eq!(tag("[goblin 2]"), None);
    }

    #[test]
    fn subject_rest_loses_a_further_reply_prefix() {
        assert_eq!(tag("[rule tag] Re: my move"), some("rule tag", "my move"));
        assert_eq!(
            tag("[rule tag] RE: Re:   my move "),
            some("rule tag", "my move")
        );
    }

    #[test]
    fn subject_first_known_tag_wins() {
        assert_eq!(tag("[vote] [ping] bob"), some("vote", "[ping] bob"));
    }

    #[test]
    fn subject_without_known_tag_has_none() {
        assert_eq!(tag(""), None);
        assert_eq!(tag("hello"), None);
        assert_eq!(tag("[game-list] hello"), None);
        assert_eq!(tag("[ping"), None);
        assert_eq!(tag("[]"), None);
        // A tag after free text is talk about the game, not a command.
        assert_eq!(tag("About the [ping] rule"), None);
        // `Revision:` is not `Re:`.
        assert_eq!(tag("Revision: [ping]"), None);
        // Multi-byte text must not trip the prefix matcher.
        assert_eq!(tag("Ré: ü [ping]"), None);
    }

    // --- command_lines ---------------------------------------------------------

    #[test]
    fn body_quotes_are_skipped_and_blank_lines_kept_once_between_lines() {
        let body = "vote yes\r\n\r\n> vote no\r\n   >> old\r\n \u{a0} \r\n  ping bob  \r\n";
        assert_eq!(command_lines(body), ["vote yes", "", "ping bob"]);
        // Leading and trailing blank lines are not kept: a break is between lines.
        assert_eq!(command_lines("\n\nvote yes\n\n\n"), ["vote yes"]);
    }

    #[test]
    fn body_stops_at_signature() {
        assert_eq!(
            command_lines("vote yes\n-- \nAlice\nvote no\n"),
            ["vote yes"]
        );
        assert_eq!(command_lines("vote yes\n--\nvote no\n"), ["vote yes"]);
        // A longer rule of dashes is not a signature separator.
        assert_eq!(command_lines("a\n---\nb"), ["a", "---", "b"]);
    }

    #[test]
    fn body_stops_at_one_line_attribution() {
        let body = "ping bob\n\nOn Mon, 3 Feb 2025 at 10:00, Bob <b@x.org> wrote:\nping alice\n";
        assert_eq!(command_lines(body), ["ping bob"]);
    }

    #[test]
    fn body_stops_at_wrapped_attribution() {
        let body =
            "ping bob\r\nOn Mon, 3 Feb 2025 at 10:00, Alice <a@x>\r\nwrote:\r\n\r\nping carol\r\n";
        assert_eq!(command_lines(body), ["ping bob"]);
    }

    #[test]
    fn body_keeps_an_on_line_that_is_no_attribution() {
        assert_eq!(
            command_lines("On second thought\nvote no\n"),
            ["On second thought", "vote no"]
        );
    }

    #[test]
    fn body_stops_at_other_reply_headers() {
        for marker in [
            "-----Original Message-----",
            "----- Original Message -----",
            "-------- Original Message --------",
            "Le lun. 3 févr. 2025 à 10:00, Bob <b@x.org> a écrit :",
            "Am Mo., 3. Feb. 2025 um 10:00 Uhr schrieb Bob <b@x.org>:",
            "________________________________",
            "---------- Forwarded message ---------",
            "-------- Forwarded Message --------",
            "Begin forwarded message:",
        ] {
            let body = format!("vote yes\n{marker}\nvote no\n");
            assert_eq!(command_lines(&body), ["vote yes"], "{marker}");
        }
    }

    #[test]
    fn body_stops_at_outlook_header_block() {
        let body = "vote yes\r\nFrom: Bob <b@x.org>\r\nSent: Monday\r\nvote no\r\n";
        assert_eq!(command_lines(body), ["vote yes"]);
        let body = "vote yes\n*From:* Bob\n*Date:* Monday\nvote no\n";
        assert_eq!(command_lines(body), ["vote yes"]);
        // A From: line alone is kept: it may be part of what the player wrote.
        assert_eq!(
            command_lines("From: here\nvote no"),
            ["From: here", "vote no"]
        );
    }

    /// What each language's Outlook writes above the message it quotes: the
    /// dashed separator of classic Outlook with its header block, or the block
    /// alone (New Outlook, Outlook on the web after its rule of underscores).
    const OUTLOOK_BLOCKS: &[&str] = &[
        "-----Original Message-----\nFrom: Bob <b@x.org>\nSent: Monday, January 5, 2026 10:01 AM\nTo: list@x.org\nSubject: [ping] bob",
        "-----Ursprüngliche Nachricht-----\nVon: Bob <b@x.org>\nGesendet: Montag, 5. Januar 2026 10:01\nAn: list@x.org\nBetreff: [ping] bob",
        "Von: Bob <b@x.org>\nDatum: Montag, 5. Januar 2026 um 10:01\nAn: list@x.org\nBetreff: [ping] bob",
        "-----Message d'origine-----\nDe : Bob <b@x.org>\nEnvoyé : lundi 5 janvier 2026 10:01\nÀ : list@x.org\nObjet : [ping] bob",
        "De : Bob <b@x.org>\nDate : lundi, 5 janvier 2026 à 10:01\nÀ : list@x.org\nObjet : [ping] bob",
        "-----Mensaje original-----\nDe: Bob [mailto:b@x.org]\nEnviado el: lunes, 5 de enero de 2026 10:01\nPara: list@x.org\nAsunto: [ping] bob",
        "De: Bob <b@x.org>\nFecha: lunes, 5 de enero de 2026, 10:01\nPara: list@x.org\nAsunto: [ping] bob",
        "-----Messaggio originale-----\nDa: Bob <b@x.org>\nInviato: lunedì 5 gennaio 2026 10:01\nA: list@x.org\nOggetto: [ping] bob",
        "Da: Bob <b@x.org>\nData: lunedì, 5 gennaio 2026 10:01\nA: list@x.org\nOggetto: [ping] bob",
        "-----Oorspronkelijk bericht-----\nVan: Bob [mailto:b@x.org]\nVerzonden: maandag 5 januari 2026 10:01\nAan: list@x.org\nOnderwerp: [ping] bob",
        "-----Mensagem original-----\nDe: Bob <b@x.org>\nEnviada em: segunda-feira, 5 de janeiro de 2026 10:01\nPara: list@x.org\nAssunto: [ping] bob",
        "De: Bob <b@x.org>\nEnviado: segunda-feira, 5 de janeiro de 2026 10:01\nPara: list@x.org\nAssunto: [ping] bob",
        "-----Ursprungligt meddelande-----\nFrån: Bob <b@x.org>\nSkickat: den 5 januari 2026 10:01\nTill: list@x.org\nÄmne: [ping] bob",
        "-----Oprindelig meddelelse-----\nFra: Bob <b@x.org>\nSendt: 5. januar 2026 10:01\nTil: list@x.org\nEmne: [ping] bob",
        "-----Opprinnelig melding-----\nFra: Bob <b@x.org>\nSendt: 5. januar 2026 10:01\nTil: list@x.org\nEmne: [ping] bob",
        "-----Alkuperäinen viesti-----\nLähettäjä: Bob <b@x.org>\nLähetetty: maanantai 5. tammikuuta 2026 10.01\nVastaanottaja: list@x.org\nAihe: [ping] bob",
        "-----Oryginalna wiadomość-----\nOd: Bob <b@x.org>\nWysłano: poniedziałek, 5 stycznia 2026 10:01\nDo: list@x.org\nTemat: [ping] bob",
        "Od: Bob <b@x.org>\nData: poniedziałek, 5 stycznia 2026 10:01\nDo: list@x.org\nTemat: [ping] bob",
        "________________________________\nVon: Bob <b@x.org>\nGesendet: Montag, 5. Januar 2026 10:01",
    ];

    #[test]
    fn outlook_blocks_in_every_language_end_what_is_read() {
        for block in OUTLOOK_BLOCKS {
            for newline in ["\n", "\r\n"] {
                let body =
                    format!("vote yes\n\n{block}\n\nvote no\nping carol\n").replace('\n', newline);
                assert_eq!(command_lines(&body), ["vote yes"], "{block}");
            }
        }
        // Bold field names, as Outlook's HTML part renders them.
        let body = "vote yes\n*Von:* Bob\n*Gesendet:* Montag\nvote no\n";
        assert_eq!(command_lines(body), ["vote yes"]);
        // A field alone, or two that are no header block, are the player's words.
        assert_eq!(command_lines("Von: mir\nvote no"), ["Von: mir", "vote no"]);
        assert_eq!(
            command_lines("De : moi\nObjet : rien\nvote no"),
            ["De : moi", "Objet : rien", "vote no"]
        );
    }

    #[test]
    fn forward_introductions_in_every_language_end_what_is_read() {
        for marker in [
            "Anfang der weitergeleiteten Nachricht:",
            "Début du message réexpédié :",
            "Inicio del mensaje reenviado:",
            "Inizio messaggio inoltrato:",
            "Begin doorgestuurd bericht:",
            "---------- Weitergeleitete Nachricht ---------",
            "-------- Message transféré --------",
            "-------- Messaggio inoltrato --------",
            "-------- Vidarebefordrat meddelande --------",
            "--- Treść przekazanej wiadomości ---",
        ] {
            let body = format!("vote yes\n{marker}\nvote no\n");
            assert_eq!(command_lines(&body), ["vote yes"], "{marker}");
        }
    }

    #[test]
    fn attribution_forms_in_other_languages_and_mutts_other_one() {
        for line in [
            // mutt, `attribution = "* %n <%a> [%d]:"`.
            "* Bob Example <bob@x.org> [2026-01-05 10:01]:",
            "* Bob <bob@x.org> [Mon, 05 Jan 2026 10:01:00 +0000]:",
            // Gmail.
            "Am Mo., 5. Jan. 2026 um 10:01 Uhr schrieb Bob <b@x.org>:",
            "Le lun. 5 janv. 2026 à 10:01, Bob <b@x.org> a écrit :",
            "El lun, 5 ene 2026 a las 10:01, Bob (<b@x.org>) escribió:",
            "Il giorno lun 5 gen 2026 alle ore 10:01 Bob <b@x.org> ha scritto:",
            "Op ma 5 jan 2026 om 10:01 schreef Bob <b@x.org>:",
            "Em seg., 5 de jan. de 2026 às 10:01, Bob <b@x.org> escreveu:",
            "Den mån 5 jan. 2026 kl 10:01 skrev Bob <b@x.org>:",
            "man. 5. jan. 2026 kl. 10:01 skrev Bob <b@x.org>:",
            "pon., 5 sty 2026 o 10:01 Bob <b@x.org> napisał(a):",
            "ma 5. tammik. 2026 klo 10.01 Bob (b@x.org) kirjoitti:",
            "po 5. 1. 2026 v 10:01 odesílatel Bob <b@x.org> napsal:",
            // Thunderbird.
            "Am 05.01.26 um 10:01 schrieb Bob:",
            "Le 05/01/2026 à 10:01, Bob a écrit :",
            "W dniu 5.01.2026 o 10:01, Bob pisze:",
            "Den 2026-01-05 kl. 10:01, skrev Bob:",
            // Apple Mail.
            "On 5 Jan 2026, at 10:01, Bob <b@x.org> wrote:",
            "Am 05.01.2026 um 10:01 schrieb Bob <b@x.org>:",
        ] {
            let body = format!("vote yes\n{line}\n> vote no\n\nping bob\n");
            assert_eq!(command_lines(&body), ["vote yes", "ping bob"], "{line}");
        }
        // A bullet the player wrote is no attribution.
        assert_eq!(
            command_lines("* first [a]:\nvote yes"),
            ["* first [a]:", "vote yes"]
        );
    }

    #[test]
    fn attribution_forms_of_real_clients() {
        for (line, kind) in [
            // mutt, Gmail, Thunderbird, Apple Mail.
            (
                "On Mon, Jan 05, 2026 at 10:01:00AM +0000, nomicbot wrote:",
                Attribution::Certain,
            ),
            ("On 05/01/2026 10:01, nomicbot wrote:", Attribution::Certain),
            (
                "On 5 Jan 2026, at 10:01, nomicbot <bot@nomic.example> wrote:",
                Attribution::Certain,
            ),
            // s-nail's "%f wrote:", Gnus's "writes:".
            ("nomicbot <bot@nomic.example> wrote:", Attribution::Certain),
            ("Alice <a@x.org> writes:", Attribution::Certain),
            // Thunderbird's short form names no address.
            ("nomicbot wrote:", Attribution::IfQuoted),
            ("nomicbot a écrit :", Attribution::IfQuoted),
        ] {
            assert_eq!(attribution(line, false), Some(kind), "{line}");
        }
        assert_eq!(attribution("vote yes", false), None);
        assert_eq!(attribution("wrote: a letter", false), None);
        // Joined over two lines, only a form that says where it begins counts.
        assert_eq!(
            attribution("give 2 A$ to Bob nomicbot <bot@x.org> wrote:", true),
            None
        );
    }

    #[test]
    fn body_reads_on_after_a_quoted_reply() {
        // Bottom-posted and interleaved (mutt, Thunderbird).
        let body = "On Mon, Bob wrote:\n> vote no\n>\n> -- \n> Bob\n\nvote yes\n> more\nping bob\n";
        assert_eq!(command_lines(body), ["vote yes", "ping bob"]);
        // Top-posted (Gmail): nothing after the quote.
        let body = "vote yes\n\nOn Mon, Bob <b@x.org> wrote:\n\n> vote no\n";
        assert_eq!(command_lines(body), ["vote yes"]);
    }

    #[test]
    fn body_tab_quote_under_an_attribution_is_skipped() {
        // s-nail: "%f wrote:", a blank line, the quote indented by a tab.
        let body = "nomicbot <bot@x.org> wrote:\n\n\tYour message:\n\t\n\t> vote no\n\t-- \n\tnomicbot\n\nvote yes\n";
        assert_eq!(command_lines(body), ["vote yes"]);
        // A tab-indented line with no attribution above it is the writer's own.
        assert_eq!(
            command_lines("vote yes\n\tping bob\n"),
            ["vote yes", "ping bob"]
        );
    }

    #[test]
    fn body_short_attribution_counts_only_above_a_quote() {
        assert_eq!(
            command_lines("Bob wrote:\n> vote no\nvote yes\n"),
            ["vote yes"]
        );
        // "... wrote:" over unquoted lines is the writer's own sentence.
        assert_eq!(
            command_lines("Here is what I wrote:\nvote yes\n"),
            ["Here is what I wrote:", "vote yes"]
        );
        // With an address it names someone else's message, quoted or not.
        assert_eq!(
            command_lines("vote yes\nbob@x.org wrote:\nvote no\n"),
            ["vote yes"]
        );
    }

    #[test]
    fn body_keeps_a_command_just_above_an_attribution() {
        let body = "vote yes\nOn Mon, Bob <b@x.org> wrote:\n> vote no\nping bob\n";
        assert_eq!(command_lines(body), ["vote yes", "ping bob"]);
    }

    #[test]
    fn body_skips_a_device_signature() {
        let body = "vote yes\n\nSent from my iPhone\n\n> On 5 Jan 2026, at 10:01, Bob <b@x.org> wrote:\n> vote no\n";
        assert_eq!(command_lines(body), ["vote yes"]);
        assert_eq!(
            command_lines("vote yes\nGet Outlook for Android\n"),
            ["vote yes"]
        );
    }

    #[test]
    fn body_stops_at_a_configured_footer_marker() {
        let markers = ["-=-=-=-=-=-=-=-=-=-=-=-".to_string(), "  ".to_string()];
        let body = "vote yes\n\n-=-=-=-=-=-=-=-=-=-=-=-\nGroups.io Links: You receive all messages sent to this group.\n-=-=-=-=-=-=-=-=-=-=-=-\n";
        assert_eq!(command_lines_with_footers(body, &markers), ["vote yes"]);
        // An empty marker matches nothing, not a blank line.
        assert_eq!(
            command_lines_with_footers("vote yes\n\nping bob", &markers),
            ["vote yes", "", "ping bob"]
        );
        // Mailman's rule of underscores ends reading without being configured.
        assert_eq!(
            command_lines(
                "vote yes\n_______________________________________________\nGame-list mailing list -- game-list@x.org\n"
            ),
            ["vote yes"]
        );
    }

    #[test]
    fn base64_body_with_a_footer_appended_is_decoded_and_the_footer_left_out() {
        // As mlmmj delivers it: the footer appended raw after the encoded lines.
        let raw = plain(
            "Content-Transfer-Encoding: base64\r\n",
            "dm90ZSB5ZXMNCnZvdGUgbm8NCg==\r\n-- \r\nThe game list: to leave, write to list+unsubscribe@example.org\r\n",
        );
        let envelope = parse(&raw, &options());
        assert_eq!(envelope.command_lines, ["vote yes", "vote no"]);
        assert!(
            envelope
                .defects
                .iter()
                .any(|defect| defect.contains("footer")),
            "{:?}",
            envelope.defects
        );
        // A footer of one word is not taken for the body's last encoded line,
        // and a Latin-1 body keeps its charset.
        let raw = format!(
            "From: a@example.com\r\nSubject: [vote]\r\n\
             Content-Type: text/plain; charset=iso-8859-1\r\n\
             Content-Transfer-Encoding: base64\r\n\r\n{}\r\nUnsubscribe\r\nat https://example.org/leave\r\n",
            "dm90ZSDp9Q0K"
        );
        let envelope = parse(raw.as_bytes(), &options());
        assert_eq!(envelope.command_lines, ["vote éõ"]);
    }

    // --- parse -----------------------------------------------------------------

    #[test]
    fn parse_plain_message() {
        let raw = plain(
            "Cc: \"Bob B\" <BOB@example.net>, carol@example.net\r\n\
             In-Reply-To: <parent@example.com>\r\n\
             References: <root@example.com> <parent@example.com>\r\n\
             Date: Mon, 3 Feb 2025 10:00:00 +0100\r\n\
             List-Id: The Game <Game.Example.ORG>\r\n",
            "ping bob\r\n> old\r\n",
        );
        let envelope = parse(&raw, &options());
        let alice = Mailbox {
            address: "alice@example.com".to_string(),
            name: Some("Alice".to_string()),
        };
        assert_eq!(envelope.from.as_ref(), Some(&alice));
        assert_eq!(envelope.sender, Some(alice));
        assert_eq!(envelope.message_id.as_deref(), Some("m1@example.com"));
        assert_eq!(envelope.in_reply_to, ["parent@example.com"]);
        assert_eq!(
            envelope.references,
            ["root@example.com", "parent@example.com"]
        );
        assert_eq!(envelope.cc.len(), 2);
        assert_eq!(envelope.cc[0].address, "bob@example.net");
        assert_eq!(envelope.cc[0].name.as_deref(), Some("Bob B"));
        assert_eq!(envelope.to[0].address, "list@example.org");
        assert_eq!(envelope.list_id.as_deref(), Some("game.example.org"));
        assert_eq!(
            envelope.date,
            Some("2025-02-03T09:00:00Z".parse::<Timestamp>().unwrap())
        );
        assert_eq!(envelope.subject, "[ping] bob");
        assert_eq!(
            envelope.tag,
            Some(SubjectTag {
                tag: "ping".to_string(),
                rest: "bob".to_string(),
                reply: false,
            })
        );
        assert_eq!(envelope.command_lines, ["ping bob"]);
        assert_eq!(envelope.automatic, None);
        assert!(envelope.defects.is_empty(), "{:?}", envelope.defects);
    }

    #[test]
    fn parse_encoded_subject_and_name() {
        let raw = b"From: =?UTF-8?Q?Ren=C3=A9e?= <renee@example.com>\r\n\
            Subject: =?ISO-8859-1?Q?Re=3A_=5Bping=5D_Jos=E9?=\r\n\r\nping jose\r\n";
        let envelope = parse(raw, &options());
        assert_eq!(envelope.subject, "Re: [ping] José");
        assert_eq!(
            envelope.tag.map(|found| found.rest).as_deref(),
            Some("José")
        );
        assert_eq!(
            envelope.from.and_then(|from| from.name).as_deref(),
            Some("Renée")
        );
    }

    #[test]
    fn parse_raw_latin1_subject() {
        let raw = b"From: a@example.com\r\nSubject: [vote] Ver\xe3o\r\n\r\nx\r\n";
        let envelope = parse(raw, &options());
        assert_eq!(envelope.subject, "[vote] Verão");
        assert_eq!(
            envelope.tag.map(|found| found.rest).as_deref(),
            Some("Verão")
        );
    }

    #[test]
    fn parse_broken_multipart_still_finds_text() {
        // The inner boundaries are never closed; mail-parser lists no text body.
        let raw = b"From: a@example.com\r\nSubject: [vote]\r\n\
            Content-Type: multipart/mixed; boundary=\"x\"\r\n\r\n\
            --x\r\nContent-Type: multipart/mixed; boundary=\"xy\"\r\n\r\n\
            --xy\r\nContent-Type: text/plain\r\n\r\nvote yes\r\n";
        assert_eq!(parse(raw, &options()).command_lines, ["vote yes"]);
    }

    #[test]
    fn parse_html_only_body_becomes_lines() {
        let raw = b"From: a@example.com\r\nSubject: [vote]\r\n\
            Content-Type: text/html; charset=utf-8\r\n\r\n\
            <html><head><style>p {}</style></head><body>\
            <div>vote&nbsp;yes</div><div>vote <b>no</b></div><p>ping bob</p>\
            <div>On Mon, Bob wrote:</div><blockquote>vote maybe</blockquote>\
            </body></html>\r\n";
        let envelope = parse(raw, &options());
        // Blocks become lines, with the paragraph breaks between them.
        assert_eq!(
            envelope.command_lines,
            ["vote\u{a0}yes", "", "vote no", "", "ping bob"]
        );
    }

    #[test]
    fn parse_prefers_text_plain_in_alternative() {
        let raw = b"From: a@example.com\r\nSubject: [vote]\r\n\
            Content-Type: multipart/alternative; boundary=\"b\"\r\n\r\n\
            --b\r\nContent-Type: text/html\r\n\r\n<p>from html</p>\r\n\
            --b\r\nContent-Type: text/plain\r\n\r\nfrom text\r\n--b--\r\n";
        assert_eq!(parse(raw, &options()).command_lines, ["from text"]);
    }

    #[test]
    fn parse_quoted_printable_body() {
        let raw = plain(
            "Content-Transfer-Encoding: quoted-printable\r\n",
            "caf=C3=A9 vote=3Dyes\r\nlong=\r\n line\r\n",
        );
        assert_eq!(
            parse(&raw, &options()).command_lines,
            ["café vote=yes", "long line"]
        );
    }

    #[test]
    fn parse_base64_body() {
        let raw = plain(
            "Content-Transfer-Encoding: base64\r\n",
            "dm90ZSB5ZXMNCnZvdGUgbm8NCj4gcXVvdGVkDQo=\r\n",
        );
        assert_eq!(
            parse(&raw, &options()).command_lines,
            ["vote yes", "vote no"]
        );
    }

    #[test]
    fn parse_latin1_body() {
        let mut raw = b"From: a@example.com\r\nSubject: [vote]\r\n\
            Content-Type: text/plain; charset=iso-8859-1\r\n\
            Content-Transfer-Encoding: 8bit\r\n\r\nvote \xe9t\xe9\r\n"
            .to_vec();
        raw.extend_from_slice(b"-- \r\nsig\r\n");
        assert_eq!(parse(&raw, &options()).command_lines, ["vote été"]);
    }

    #[test]
    fn parse_iso_2022_jp_body() {
        let raw = b"From: a@example.com\r\nSubject: [vote]\r\n\
            Content-Type: text/plain; charset=ISO-2022-JP\r\n\
            Content-Transfer-Encoding: 7bit\r\n\r\n\
            vote \x1b$B$3$s$K$A$O\x1b(B\r\n";
        assert_eq!(parse(raw, &options()).command_lines, ["vote こんにちは"]);
    }

    fn dmarc(extra: &str) -> Option<Mailbox> {
        let raw = format!(
            "From: \"Alice via game-list\" <List@Example.org>\r\n\
             To: list@example.org\r\n{extra}Subject: [ping] bob\r\n\r\nping bob\r\n"
        );
        parse(raw.as_bytes(), &options()).sender
    }

    #[test]
    fn dmarc_sender_from_reply_to() {
        let sender = dmarc("Reply-To: Alice <Alice@example.com>\r\n");
        assert_eq!(
            sender,
            Some(Mailbox {
                address: "alice@example.com".to_string(),
                name: Some("Alice".to_string())
            })
        );
    }

    #[test]
    fn dmarc_sender_from_x_original_from() {
        // The list's own Reply-To is not the author, so X-Original-From is next.
        let sender = dmarc(
            "Reply-To: list@example.org\r\n\
             X-Original-From: =?UTF-8?Q?Al=C3=AFce?= <alice@example.com>\r\n",
        );
        assert_eq!(
            sender,
            Some(Mailbox {
                address: "alice@example.com".to_string(),
                name: Some("Alïce".to_string())
            })
        );
    }

    #[test]
    fn dmarc_sender_from_cc() {
        let sender = dmarc("Cc: list@example.org, Alice <alice@example.com>\r\n");
        assert_eq!(
            sender.map(|mailbox| mailbox.address).as_deref(),
            Some("alice@example.com")
        );
    }

    #[test]
    fn addresses_run_together_name_nobody() {
        // From enmime's malformed-multiple-address-header-values.raw.
        let raw = b"From: Bob Dunite <bob@extern> Bobby Dunite <bobby@extern>\r\n\
            Subject: [ping] x\r\n\r\nping x\r\n";
        let envelope = parse(raw, &options());
        assert_eq!(envelope.from, None);
        assert_eq!(envelope.sender, None);
        assert!(
            envelope
                .defects
                .iter()
                .any(|defect| defect == "no From address")
        );
    }

    #[test]
    fn dmarc_sender_unknown_is_none() {
        assert_eq!(dmarc(""), None);
        let raw = b"From: list@example.org\r\nSubject: x\r\n\r\nx\r\n";
        let envelope = parse(raw, &options());
        assert_eq!(envelope.sender, None);
        assert!(
            envelope
                .defects
                .iter()
                .any(|defect| defect.contains("recovery"))
        );
    }

    #[test]
    fn dmarc_recovery_reads_only_the_configured_headers() {
        let mut options = options();
        options.recover_from = vec!["cc".to_string()];
        let raw = b"From: list@example.org\r\nReply-To: r@example.com\r\n\
            Cc: c@example.com\r\nSubject: x\r\n\r\nx\r\n";
        let sender = parse(raw, &options).sender;
        assert_eq!(
            sender.map(|mailbox| mailbox.address).as_deref(),
            Some("c@example.com")
        );
    }

    /// Issue "A munged post is credited to another player": Mailman adds the
    /// author after any Reply-To (or Cc) the post already had, so with several
    /// addresses there the author cannot be told, and nobody is credited.
    #[test]
    fn a_munged_post_is_credited_to_no_other_player() {
        let munged = |extra: &str| {
            format!(
                "From: \"Dave via Game\" <list@example.org>\r\n{extra}\
                 To: list@example.org\r\nSubject: [ping] x\r\n\r\nping x\r\n"
            )
        };
        // Dave wrote no Reply-To of his own: the list's is his alone.
        let alone = parse(
            munged("Reply-To: Dave <dave@example.com>\r\n").as_bytes(),
            &options(),
        );
        assert_eq!(
            alone.sender.map(|m| m.address).as_deref(),
            Some("dave@example.com")
        );
        assert_eq!(alone.sender_doubt, None);
        for (extra, named) in [
            // Dave's own Reply-To: bob, then the list's Dave.
            (
                "Reply-To: bob@example.com, Dave <dave@example.com>\r\n",
                ["bob@example.com", "dave@example.com"],
            ),
            // A moderator in Reply-To.
            (
                "Reply-To: carol@example.com, Dave <dave@example.com>\r\n",
                ["carol@example.com", "dave@example.com"],
            ),
            // A reply-all's Cc, on a list that puts the author in Cc.
            (
                "Cc: alice@example.com, Bob <bob@example.com>\r\n",
                ["alice@example.com", "bob@example.com"],
            ),
            // Spread over two headers, with a Reply-To naming the list: the
            // list may write its own Reply-To, and the author is then in Cc.
            (
                "Reply-To: list@example.org, alice@example.com\r\nCc: dave@example.com\r\n",
                ["alice@example.com", "dave@example.com"],
            ),
        ] {
            let envelope = parse(munged(extra).as_bytes(), &options());
            assert_eq!(envelope.sender, None, "{extra}");
            let doubt = envelope.sender_doubt.expect("a doubt");
            let candidates: Vec<&str> = doubt
                .candidates
                .iter()
                .map(|c| c.address.as_str())
                .collect();
            assert_eq!(candidates, named, "{extra}");
            assert!(doubt.reason.contains("cannot be told"), "{}", doubt.reason);
        }
        // The list's own address among them is no candidate.
        let with_list = parse(
            munged("Reply-To: list@example.org, Dave <dave@example.com>\r\n").as_bytes(),
            &options(),
        );
        assert_eq!(
            with_list.sender.map(|m| m.address).as_deref(),
            Some("dave@example.com")
        );
    }

    /// Issue 29 item 2: a reply-all under `munge_from` on a list that writes no
    /// Reply-To. Mailman put the author in Reply-To; the Cc is the poster's own
    /// (the player answered), and is not read.
    #[test]
    fn a_munged_reply_all_is_credited_to_its_author_from_reply_to() {
        let raw = "From: \"Alice via Game\" <list@example.org>\r\n\
             To: list@example.org\r\nCc: Bob <bob@example.com>\r\n\
             Reply-To: Alice <alice@example.com>\r\nSubject: Re: [ping] x\r\n\r\nping x\r\n";
        let envelope = parse(raw.as_bytes(), &options());
        assert_eq!(
            envelope.sender.map(|m| m.address).as_deref(),
            Some("alice@example.com")
        );
        assert_eq!(envelope.sender_doubt, None);
        // The poster's own Reply-To naming Bob, with Mailman's Alice after it:
        // which one the list added cannot be told.
        let own = raw.replace(
            "Reply-To: Alice <alice@example.com>",
            "Reply-To: bob@example.com, Alice <alice@example.com>",
        );
        let envelope = parse(own.as_bytes(), &options());
        assert_eq!(envelope.sender, None);
        assert!(envelope.sender_doubt.is_some());
    }

    /// Issue 29 item 3: a list that writes its own Reply-To (`[list] reply_to`,
    /// Mailman's `explicit_header` or `point_to_list`) puts a munged post's
    /// author in Cc; its Reply-To, the list's and the poster's, is never read.
    #[test]
    fn a_list_that_writes_reply_to_has_the_author_in_cc() {
        let mut options = options();
        options.list_reply_to = Some("discuss@example.org".to_string());
        let munged = |extra: &str| {
            format!(
                "From: \"Alice via Game\" <list@example.org>\r\nTo: list@example.org\r\n\
                 {extra}Subject: [ping] x\r\n\r\nping x\r\n"
            )
        };
        let sender_with =
            |options: &ParseOptions, extra: &str| parse(munged(extra).as_bytes(), options).sender;
        let sender = |extra: &str| sender_with(&options, extra);
        assert_eq!(
            sender("Reply-To: discuss@example.org\r\nCc: Alice <alice@example.com>\r\n")
                .map(|m| m.address)
                .as_deref(),
            Some("alice@example.com")
        );
        // The poster's own Reply-To, kept after the list's, names Bob: not read.
        assert_eq!(
            sender(
                "Reply-To: discuss@example.org, bob@example.com\r\n\
                 Cc: Alice <alice@example.com>\r\n"
            )
            .map(|m| m.address)
            .as_deref(),
            Some("alice@example.com")
        );
        // A reply-all's Cc with Mailman's Alice after it cannot be told apart
        // from Bob's own post Cc'ing himself and Alice.
        let envelope = parse(
            munged("Reply-To: discuss@example.org\r\nCc: bob@example.com, alice@example.com\r\n")
                .as_bytes(),
            &options,
        );
        assert_eq!(envelope.sender, None);
        assert!(envelope.sender_doubt.is_some());
        // Without the setting, the list's Reply-To address reads as the author.
        let unset = parse(
            munged("Reply-To: discuss@example.org\r\nCc: Alice <alice@example.com>\r\n").as_bytes(),
            &super::tests::options(),
        );
        assert_eq!(
            unset.sender.map(|m| m.address).as_deref(),
            Some("discuss@example.org")
        );
        // The list pointing Reply-To at itself: the author is in Cc.
        let mut options = options.clone();
        options.list_reply_to = Some("list@example.org".to_string());
        assert_eq!(
            sender_with(
                &options,
                "Reply-To: list@example.org\r\nCc: Alice <alice@example.com>\r\n"
            )
            .map(|m| m.address)
            .as_deref(),
            Some("alice@example.com")
        );
    }

    /// Issue 29 item 1: Mailman's `wrap_message` without a footer or a text of
    /// its own: the whole body is the post. Its author, Message-ID, threading
    /// and body are the post's; a player's own forward is no wrapper.
    #[test]
    fn a_post_the_list_wrapped_is_read_from_inside() {
        let inner = "From: Alice <alice@example.com>\r\nTo: list@example.org\r\n\
             Message-ID: <inner@example.com>\r\nIn-Reply-To: <parent@example.com>\r\n\
             Subject: [ping] bob\r\n\r\nping bob\r\n";
        let wrapped = format!(
            "To: list@example.org\r\nSubject: [game-list] [ping] bob\r\n\
             List-Post: <mailto:list@example.org>\r\nMIME-Version: 1.0\r\n\
             Message-ID: <outer@list.example.org>\r\n\
             From: Alice via Game <list@example.org>\r\nReply-To: Alice <alice@example.com>\r\n\
             Content-Type: message/rfc822\r\nContent-Disposition: inline\r\n\r\n{inner}"
        );
        let envelope = parse(wrapped.as_bytes(), &options());
        assert!(envelope.wrapped);
        assert_eq!(
            envelope.sender.map(|m| m.address).as_deref(),
            Some("alice@example.com")
        );
        assert_eq!(
            envelope.from.map(|m| m.address).as_deref(),
            Some("list@example.org")
        );
        assert_eq!(envelope.message_id.as_deref(), Some("inner@example.com"));
        assert_eq!(envelope.in_reply_to, ["parent@example.com"]);
        assert_eq!(envelope.command_lines, ["ping bob"]);
        assert_eq!(
            dedup_message_id(wrapped.as_bytes()).as_deref(),
            Some("inner@example.com")
        );
        // Under munge_from, Bob's own post whose body is a message From Alice:
        // Mailman named Bob as the author, and the body is no wrapper.
        let forged = wrapped
            .replace(
                "Reply-To: Alice <alice@example.com>",
                "Reply-To: Bob <bob@example.com>",
            )
            .replace(
                "Message-ID: <outer@list.example.org>",
                "Message-ID: <bobs@example.com>",
            );
        let envelope = parse(forged.as_bytes(), &options());
        assert!(!envelope.wrapped);
        assert_eq!(
            envelope.sender.map(|m| m.address).as_deref(),
            Some("bob@example.com")
        );
        assert_eq!(envelope.message_id.as_deref(), Some("bobs@example.com"));
        // With his own Reply-To naming Alice too: nobody.
        let forged = forged.replace(
            "Reply-To: Bob <bob@example.com>",
            "Reply-To: alice@example.com, Bob <bob@example.com>",
        );
        let envelope = parse(forged.as_bytes(), &options());
        assert!(!envelope.wrapped);
        assert_eq!(envelope.sender, None);
        assert!(envelope.sender_doubt.is_some());
        // Alice forwarding a post as an attachment: her own message.
        let forward = format!(
            "From: Alice <alice@example.com>\r\nTo: bot@example.org\r\nSubject: [ping] fwd\r\n\
             Message-ID: <forward@example.com>\r\nMIME-Version: 1.0\r\n\
             Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n\
             Content-Type: text/plain\r\n\r\nping carol\r\n--b\r\n\
             Content-Type: message/rfc822\r\n\r\n{inner}\r\n--b--\r\n"
        );
        let envelope = parse(forward.as_bytes(), &options());
        assert!(!envelope.wrapped);
        assert_eq!(envelope.message_id.as_deref(), Some("forward@example.com"));
        assert_eq!(envelope.command_lines, ["ping carol"]);
        assert_eq!(
            dedup_message_id(forward.as_bytes()).as_deref(),
            Some("forward@example.com")
        );
    }

    /// A message mailed to the bot itself, not through the list.
    fn automatic_of(headers: &str) -> Option<Automatic> {
        let raw = String::from_utf8(plain(headers, "ping bob\r\n"))
            .expect("utf-8")
            .replace("To: list@example.org", "To: bot@example.org");
        parse(raw.as_bytes(), &options()).automatic
    }

    /// Issue "A list that stamps `Precedence: bulk` is ignored whole": through
    /// the list (named in To, in List-Post, or by its List-Id) the list's
    /// Precedence is no mark of the post; the post's own marks still are.
    #[test]
    fn a_list_that_stamps_precedence_bulk_is_not_ignored() {
        let mut options = options();
        options.list_id = Some("game.example.org".to_string());
        let through_to = plain("Precedence: bulk\r\n", "ping bob\r\n");
        assert_eq!(parse(&through_to, &options).automatic, None);
        for headers in [
            "Precedence: list\r\nList-Id: The game <game.example.org>\r\n",
            "Precedence: bulk\r\nList-Post: <mailto:list@example.org>\r\n",
        ] {
            let raw = String::from_utf8(plain(headers, "ping bob\r\n"))
                .expect("utf-8")
                .replace("To: list@example.org", "To: someone@example.org");
            assert_eq!(parse(raw.as_bytes(), &options).automatic, None, "{headers}");
        }
        let vacation = plain(
            "Precedence: bulk\r\nAuto-Submitted: auto-replied\r\n",
            "ping bob\r\n",
        );
        assert_eq!(
            parse(&vacation, &options).automatic,
            Some(Automatic::AutoSubmitted("auto-replied".to_string()))
        );
        assert_eq!(
            automatic_of("Precedence: bulk\r\n"),
            Some(Automatic::BulkOrAutoreply("Precedence: bulk".to_string())),
            "mailed to the bot itself, bulk is still automatic"
        );
    }

    #[test]
    fn auto_submitted() {
        assert_eq!(
            automatic_of("Auto-Submitted: Auto-Replied; owner-email=\"a@b\"\r\n"),
            Some(Automatic::AutoSubmitted("auto-replied".to_string()))
        );
        assert_eq!(automatic_of("Auto-Submitted: no\r\n"), None);
        assert_eq!(automatic_of("Auto-Submitted: No (a comment)\r\n"), None);
    }

    #[test]
    fn bulk_and_autoreply_headers() {
        assert!(matches!(
            automatic_of("Precedence: bulk\r\n"),
            Some(Automatic::BulkOrAutoreply(_))
        ));
        assert!(matches!(
            automatic_of("Precedence: JUNK\r\n"),
            Some(Automatic::BulkOrAutoreply(_))
        ));
        assert_eq!(automatic_of("Precedence: list\r\n"), None);
        assert!(automatic_of("X-Autoreply: yes\r\n").is_some());
        assert!(automatic_of("X-Autorespond: vacation\r\n").is_some());
        assert!(automatic_of("X-Auto-Response-Suppress: All\r\n").is_some());
        assert_eq!(automatic_of("X-Auto-Response-Suppress: OOF\r\n"), None);
    }

    #[test]
    fn hardening_10_every_mark_of_an_auto_reply_or_bounce_is_never_answered() {
        for headers in [
            "X-Autoreply: yes\r\n",
            "X-Auto-Reply: yes\r\n",
            "X-Precedence: auto_reply\r\n",
            "X-Precedence: bulk\r\n",
            "X-Vacation: yes\r\n",
            "X-POST-MessageClass: 9; Autoresponder\r\n",
            "X-Mailer: vacation 1.2.7\r\n",
            "X-Mailer: Vacation\r\n",
        ] {
            assert!(
                matches!(automatic_of(headers), Some(Automatic::BulkOrAutoreply(_))),
                "{headers}"
            );
        }
        assert!(matches!(
            automatic_of("X-Failed-Recipients: bob@example.com\r\n"),
            Some(Automatic::Bounce(_))
        ));
        for headers in [
            "X-Mailer: Thunderbird 128\r\n",
            "X-Mailer: vacationer's mail 1.0\r\n",
            "X-Precedence: list\r\n",
            "X-POST-MessageClass: 1; Mail\r\n",
            "X-Auto-Reply: no\r\n",
        ] {
            assert_eq!(automatic_of(headers), None, "{headers}");
        }
    }

    /// A message mailed to the bot from `from` with `subject`.
    fn automatic_from(from: &str, subject: &str, headers: &str) -> Option<Automatic> {
        let raw = String::from_utf8(plain(headers, "ping bob\r\n"))
            .expect("utf-8")
            .replace("To: list@example.org", "To: bot@example.org")
            .replace("Alice <Alice@Example.COM>", from)
            .replace("Subject: [ping] bob", &format!("Subject: {subject}"));
        parse(raw.as_bytes(), &options()).automatic
    }

    #[test]
    fn issue_23_item_8_every_responder_header_is_automatic() {
        for (header, _) in MACHINE_HEADERS {
            let headers = format!("{header}: yes\r\n");
            assert!(
                matches!(automatic_of(&headers), Some(Automatic::BulkOrAutoreply(_))),
                "{header}"
            );
            let lower = format!("{}: Yes\r\n", header.to_lowercase());
            assert!(automatic_of(&lower).is_some(), "{lower}");
            for off in ["no", "False"] {
                let headers = format!("{header}: {off}\r\n");
                assert_eq!(automatic_of(&headers), None, "{headers}");
            }
        }
    }

    #[test]
    fn issue_23_item_8_x_autoresponse_and_x_mail_autoreply() {
        assert!(automatic_of("X-Autoresponse: yes\r\n").is_some());
        assert!(automatic_of("X-Mail-Autoreply: dtc\r\n").is_some());
    }

    #[test]
    fn issue_23_item_8_firstclass_and_exchange_generated_mail() {
        assert!(automatic_of("X-FC-MachineGenerated: true\r\n").is_some());
        assert!(
            automatic_of("X-MS-Exchange-Generated-Message-Source: Mailbox Rules Agent\r\n")
                .is_some()
        );
    }

    #[test]
    fn issue_23_item_8_x_loop_naming_the_bot_or_the_list() {
        assert_eq!(
            automatic_of("X-Loop: bot@example.org\r\n"),
            Some(Automatic::Loop("X-Loop: bot@example.org".to_string()))
        );
        assert!(automatic_of("X-Loop: <BOT@Example.org>\r\n").is_some());
        assert!(automatic_of("X-Loop: list@example.org\r\n").is_some());
        // Someone else's loop mark, or an address that only ends like the bot's.
        assert_eq!(automatic_of("X-Loop: alice@example.com\r\n"), None);
        assert_eq!(automatic_of("X-Loop: robot@example.org\r\n"), None);
        // Through the list, the list's own stamp is no mark of the post.
        assert_eq!(
            parse(
                &plain("X-Loop: list@example.org\r\n", "ping bob\r\n"),
                &options()
            )
            .automatic,
            None
        );
        assert!(
            parse(
                &plain("X-Loop: bot@example.org\r\n", "ping bob\r\n"),
                &options()
            )
            .automatic
            .is_some()
        );
    }

    #[test]
    fn issue_23_item_8_responder_subjects() {
        for subject in [
            "Out of Office: [ping] bob",
            "[nomic] Out of Office: join Alice",
            "[game-list] [nomic] Out of Office AutoReply: join Alice",
            "Auto-Reply: Re: [nomic] join Alice",
            "Automatic reply: [ping] bob",
            "AutoReply: [ping] bob",
            "[nomic] I am on vacation",
            "I am on vacation",
            "Abwesenheitsnotiz: [ping] bob",
            "Automatische Antwort: AW: [ping] bob",
            "Réponse automatique : [ping] bob",
            "out  of   office",
        ] {
            assert!(
                matches!(
                    automatic_from("Alice <alice@example.com>", subject, ""),
                    Some(Automatic::Subject(_))
                ),
                "{subject}"
            );
        }
        for subject in [
            "[nomic] Out of office tomorrow, count me in",
            "[ping] bob",
            "Re: Out of Office: [ping] bob",
            "Re: [nomic] Automatic reply: join Alice",
            "[nomic] Autoreplies are a nuisance",
            "[nomic] I am on vacation until May",
            "About the out of office rule",
        ] {
            assert_eq!(
                automatic_from("Alice <alice@example.com>", subject, ""),
                None,
                "{subject}"
            );
        }
    }

    #[test]
    fn issue_23_item_8_the_bots_and_the_lists_service_addresses() {
        for from in [
            "bot+bounce-123@example.org",
            "BOT+x@Example.org",
            "list-bounces@example.org",
            "list-bounces+alice=example.com@example.org",
            "list-owner@example.org",
            "list-request@example.org",
            "list-confirm+abc@example.org",
            "list+bounces-alice=example.com@example.org",
            "list+owner@example.org",
        ] {
            assert!(
                matches!(
                    automatic_from(from, "[ping] bob", ""),
                    Some(Automatic::ServiceAddress(_))
                ),
                "{from}"
            );
        }
        for from in [
            "alice@example.com",
            "bot+x@elsewhere.example",
            "bots+x@example.org",
            "list-bouncer@example.org",
            "list-owners@example.org",
            "list+alice@example.org",
            "list-bounces@elsewhere.example",
        ] {
            assert_eq!(automatic_from(from, "[ping] bob", ""), None, "{from}");
        }
    }

    #[test]
    fn hardening_10_a_line_break_in_a_subject_or_a_line_is_a_space() {
        let raw = "From: Eve <eve@example.com>\r\nTo: list@example.org\r\n\
            Subject: =?utf-8?q?=5Bnomic=5D_join_Eve=0D=0ABcc=3A_victim=40x=2Eorg?=\r\n\
            Message-ID: <m1@example.com>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\
            players\r\nrename Eve\rBcc: x@y.org\r\njoin A\u{2028}B\r\n"
            .as_bytes()
            .to_vec();
        let envelope = parse(&raw, &options());
        assert_eq!(envelope.subject, "[nomic] join Eve Bcc: victim@x.org");
        assert!(!envelope.subject.contains(['\r', '\n']));
        let tag = envelope.tag.expect("tag");
        assert_eq!(tag.rest, "join Eve Bcc: victim@x.org");
        assert_eq!(
            envelope.command_lines,
            ["players", "rename Eve Bcc: x@y.org", "join A B"]
        );
        assert_eq!(one_line(" a\tb "), "a\tb");
    }

    #[test]
    fn bounce_by_return_path_or_from() {
        assert_eq!(
            automatic_of("Return-Path: <>\r\n"),
            Some(Automatic::Bounce("empty Return-Path <>".to_string()))
        );
        assert_eq!(automatic_of("Return-Path: <alice@example.com>\r\n"), None);
        let raw = b"From: Mail Delivery System <MAILER-DAEMON@mx.example.com>\r\n\
            Subject: Undelivered\r\n\r\nsorry\r\n";
        assert!(matches!(
            parse(raw, &options()).automatic,
            Some(Automatic::Bounce(_))
        ));
    }

    #[test]
    fn bounce_multipart_report() {
        let raw = b"From: Mail Delivery <mx@example.com>\r\n\
            To: alice@example.com\r\nSubject: Delivery Status Notification (Failure)\r\n\
            MIME-Version: 1.0\r\n\
            Content-Type: multipart/report; report-type=delivery-status; boundary=\"B\"\r\n\r\n\
            --B\r\nContent-Type: text/plain\r\n\r\nDelivery to bob failed.\r\n\
            --B\r\nContent-Type: message/delivery-status\r\n\r\n\
            Reporting-MTA: dns; mx.example.com\r\n\r\nFinal-Recipient: rfc822; bob@x\r\nAction: failed\r\n\
            --B\r\nContent-Type: message/rfc822\r\n\r\n\
            From: alice@example.com\r\nSubject: [ping] bob\r\n\r\nping bob\r\n--B--\r\n";
        let envelope = parse(raw, &options());
        assert_eq!(
            envelope.automatic,
            Some(Automatic::Bounce(
                "Content-Type multipart/report".to_string()
            ))
        );
        assert_eq!(envelope.command_lines, ["Delivery to bob failed."]);
    }

    #[test]
    fn parse_obsolete_date() {
        let raw = b"From: a@example.com\r\nDate: Wed, 11 Feb 98 11:51 CST\r\n\r\nx\r\n";
        assert_eq!(
            parse(raw, &options()).date,
            Some("1998-02-11T17:51:00Z".parse::<Timestamp>().unwrap())
        );
    }

    #[test]
    fn parse_skips_inline_image_before_text() {
        let raw = b"From: a@example.com\r\nSubject: [vote]\r\n\
            Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n\
            --b\r\nContent-Type: image/png\r\nContent-Disposition: inline\r\n\
            Content-Transfer-Encoding: base64\r\n\r\niVBORw0KGgo=\r\n\
            --b\r\nContent-Type: text/plain\r\n\r\nvote yes\r\n--b--\r\n";
        let envelope = parse(raw, &options());
        assert_eq!(envelope.command_lines, ["vote yes"]);
        assert!(
            envelope
                .defects
                .iter()
                .all(|defect| !defect.contains("text body"))
        );
    }

    #[test]
    fn garbage_never_panics() {
        for raw in [
            &b""[..],
            b"\r\n\r\n",
            b"\xff\xfe\x00garbage",
            b"From: <\r\nSubject: =?x?Q?\r\nContent-Type: multipart/mixed; boundary=\r\n\r\n--",
            b"Date: yesterday\r\nList-Id: <\r\nReturn-Path: \r\n\r\nbody",
        ] {
            let envelope = parse(raw, &options());
            assert!(envelope.tag.is_none());
        }
        let envelope = parse(b"Date: yesterday\r\nFrom: a@b\r\n\r\nx", &options());
        assert_eq!(envelope.date, None);
        assert!(
            envelope
                .defects
                .iter()
                .any(|defect| defect.contains("Date"))
        );
    }
}
