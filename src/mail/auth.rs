//! Sender authentication: how far the sender a message claims is believed, between
//! parsing (`parse.rs`) and the pipeline's step. It reads only what our own receiving
//! server stamped (`Authentication-Results`, RFC 8601, under the configured
//! authserv-id) and the passphrases of the registry; it sends nothing and decides
//! nothing about a game. A passphrase never leaves this module: it is taken out of
//! the command lines before they reach the engine, the answer or the log.
//!
//! The readings (see `docs/rulings.md`, "Sender authentication"):
//! - `identity.auth = "none"`: From is believed, as is the header a list's rewritten
//!   From is recovered from. Anyone can forge that: unsafe for officers on an open
//!   list. Passphrases still protect the addresses that set one.
//! - `identity.auth = "dmarc"`: full trust only for a DKIM pass aligned with the From
//!   domain, or `dmarc=pass`, in our server's header. Otherwise the sender holds no
//!   office: player commands are applied (`unauthenticated = "players"`) or nothing is
//!   (`"refuse"`), and a message that needed an office is refused whole and the real
//!   holder of the address told. A list's rewritten From is recovered only when the
//!   list's own DKIM passes and the recovered address is a known player, and never
//!   with an office.
//! - A passphrase, where an address set one, is required on every message from it:
//!   a line `passphrase: ...` in private mail, or (under `dmarc`) a DKIM pass aligned
//!   with its own domain, since mail on the list cannot carry a secret.

use jiff::Timestamp;
use mail_parser::{HeaderName, MessageParser};
use serde_json::json;
use sha2::{Digest, Sha256};

use crate::config::{AuthMode, IdentityConfig, Unauthenticated};
use crate::engine::game::Officers;
use crate::engine::players::{self, Passphrase, Registry};
use crate::engine::{Address, Audience, Ctx, LineReport, Mail, Sentence, Status};
use crate::games::{self, Message, Outcome, World};
use crate::mail::parse::{Envelope, Mailbox};
use crate::mail::verify;

/// The fewest characters a passphrase may have.
pub const MIN_PASSPHRASE_CHARS: usize = 8;

/// What stands in an answer for a passphrase.
const HIDDEN: &str = "********";

// ---------------------------------------------------------------------------
// Authentication-Results (RFC 8601)
// ---------------------------------------------------------------------------

/// One `Authentication-Results` header, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthResults {
    /// Lower-cased.
    pub authserv_id: String,
    pub results: Vec<ResInfo>,
}

/// One `method=result` of an `Authentication-Results` header with its properties.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResInfo {
    /// Lower-cased, without its version (`dkim/1` is `dkim`).
    pub method: String,
    /// Lower-cased.
    pub result: String,
    /// `(ptype.property, value)`, the name lower-cased, the value as written
    /// (a quoted string unquoted). `reason` is kept here too.
    pub properties: Vec<(String, String)>,
}

impl ResInfo {
    pub fn property(&self, name: &str) -> Option<&str> {
        self.properties
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The signing domain of a DKIM result: `header.d`, else the domain of `header.i`.
    pub fn dkim_domain(&self) -> Option<String> {
        let domain = match self.property("header.d") {
            Some(d) => d,
            None => self.property("header.i")?.rsplit('@').next()?,
        };
        let domain = domain.trim().trim_end_matches('.').to_lowercase();
        (!domain.is_empty()).then_some(domain)
    }
}

/// A cursor over a header value that knows RFC 5322 comments and quoted strings.
struct Cursor {
    chars: Vec<char>,
    at: usize,
}

impl Cursor {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        Some(c)
    }

    /// Skips white space (folding included) and `(comments)`, which nest.
    fn skip_cfws(&mut self) {
        while let Some(c) = self.peek() {
            if c.is_whitespace() {
                self.at += 1;
            } else if c == '(' {
                self.comment();
            } else {
                break;
            }
        }
    }

    fn comment(&mut self) {
        let mut depth = 0_usize;
        while let Some(c) = self.bump() {
            match c {
                '\\' => {
                    self.bump();
                }
                '(' => depth += 1,
                ')' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return;
                    }
                }
                _ => {}
            }
        }
    }

    /// A quoted string, the cursor on its opening quote; unterminated: to the end.
    fn quoted(&mut self) -> String {
        let mut text = String::new();
        self.bump();
        while let Some(c) = self.bump() {
            match c {
                '\\' => {
                    if let Some(escaped) = self.bump() {
                        text.push(escaped);
                    }
                }
                '"' => break,
                _ => text.push(c),
            }
        }
        text
    }

    /// A run of characters up to white space, `;`, `(`, `"` or one of `stops`.
    fn token(&mut self, stops: &[char]) -> String {
        let mut text = String::new();
        while let Some(c) = self.peek() {
            if c.is_whitespace() || matches!(c, ';' | '(' | '"') || stops.contains(&c) {
                break;
            }
            text.push(c);
            self.at += 1;
        }
        text
    }

    /// A value: a quoted string, or a token that may hold `=` and `/` (base64
    /// `header.b`, which real servers write unquoted).
    fn value(&mut self) -> String {
        if self.peek() == Some('"') {
            self.quoted()
        } else {
            self.token(&[])
        }
    }

    /// Skips to the next `;` outside comments and quoted strings (a part that does
    /// not read is left out rather than misread).
    fn skip_to_semicolon(&mut self) {
        while let Some(c) = self.peek() {
            match c {
                ';' => return,
                '"' => {
                    self.quoted();
                }
                '(' => self.comment(),
                _ => self.at += 1,
            }
        }
    }
}

/// Reads one `Authentication-Results` value (unfolded or not). `None` when it names
/// no authserv-id. A `resinfo` that does not read is left out.
pub fn parse_authentication_results(value: &str) -> Option<AuthResults> {
    let mut cursor = Cursor {
        chars: value.chars().collect(),
        at: 0,
    };
    cursor.skip_cfws();
    let authserv_id = cursor.value().trim().to_lowercase();
    if authserv_id.is_empty() {
        return None;
    }
    // An optional version after the authserv-id; anything else before the first
    // `;` is not part of the grammar and is skipped.
    cursor.skip_to_semicolon();
    let mut results = Vec::new();
    while cursor.bump() == Some(';') {
        if let Some(result) = resinfo(&mut cursor) {
            results.push(result);
        }
        cursor.skip_to_semicolon();
    }
    Some(AuthResults {
        authserv_id,
        results,
    })
}

fn resinfo(cursor: &mut Cursor) -> Option<ResInfo> {
    cursor.skip_cfws();
    let method = cursor.token(&['=', '/']).to_lowercase();
    if method.is_empty() {
        return None;
    }
    cursor.skip_cfws();
    if cursor.peek() == Some('/') {
        cursor.bump();
        cursor.skip_cfws();
        cursor.token(&['=']);
        cursor.skip_cfws();
    }
    // `none` (no method was applied) has no `=`.
    if cursor.peek() != Some('=') {
        return None;
    }
    cursor.bump();
    cursor.skip_cfws();
    let result = cursor.token(&['=']).to_lowercase();
    if result.is_empty() {
        return None;
    }
    let mut properties = Vec::new();
    loop {
        cursor.skip_cfws();
        match cursor.peek() {
            None | Some(';') => break,
            _ => {}
        }
        let name = cursor.token(&['=']).to_lowercase();
        cursor.skip_cfws();
        if name.is_empty() || cursor.peek() != Some('=') {
            // Not a property: the rest of this resinfo is not read.
            break;
        }
        cursor.bump();
        cursor.skip_cfws();
        let value = cursor.value();
        properties.push((name, value));
    }
    Some(ResInfo {
        method,
        result,
        properties,
    })
}

// ---------------------------------------------------------------------------
// Domains
// ---------------------------------------------------------------------------

/// Public suffixes of two labels under which domains are registered at the third
/// label. A simplification of the Public Suffix List: enough for the common
/// country-code second levels; a private suffix (a hosting service's shared domain)
/// is not known, so two of its tenants count as one organisation.
const TWO_LABEL_SUFFIXES: &[&str] = &[
    "ac.uk", "co.uk", "gov.uk", "ltd.uk", "me.uk", "net.uk", "org.uk", "plc.uk", "sch.uk",
    "com.au", "edu.au", "gov.au", "net.au", "org.au", "ac.nz", "co.nz", "net.nz", "org.nz",
    "ac.jp", "co.jp", "go.jp", "ne.jp", "or.jp", "co.kr", "or.kr", "com.br", "net.br", "org.br",
    "co.za", "org.za", "com.cn", "net.cn", "org.cn", "com.tw", "com.hk", "com.sg", "co.in",
    "net.in", "org.in", "co.il", "com.mx", "com.ar", "com.tr", "co.id",
];

/// The organisational domain (RFC 7489 §3.2), by the simplification above: the
/// last two labels, or three under a known two-label suffix.
pub fn organizational_domain(domain: &str) -> String {
    let domain = domain.trim().trim_end_matches('.').to_lowercase();
    let labels: Vec<&str> = domain.split('.').collect();
    let keep = match labels.len() {
        0..=2 => labels.len(),
        n => {
            let last_two = labels[n - 2..].join(".");
            if TWO_LABEL_SUFFIXES.contains(&last_two.as_str()) {
                3
            } else {
                2
            }
        }
    };
    labels[labels.len() - keep..].join(".")
}

/// Relaxed alignment (RFC 7489 §3.1.1): the same organisational domain.
pub fn aligned(signing_domain: &str, from_domain: &str) -> bool {
    !signing_domain.is_empty()
        && organizational_domain(signing_domain) == organizational_domain(from_domain)
}

fn domain_of(address: &str) -> String {
    address
        .rsplit_once('@')
        .map(|(_, domain)| domain.trim().trim_end_matches('.').to_lowercase())
        .unwrap_or_default()
}

// ---------------------------------------------------------------------------
// The headers that matter
// ---------------------------------------------------------------------------

/// The header fields of a raw message as Postfix reads them when it runs
/// `header_checks` (its `is_header`): a field begins with a name of printable
/// ASCII other than `:`, then spaces or tabs, then `:`; a line that begins with a
/// space or a tab continues the field before it. The header ends at the first
/// line that is neither: a blank line, or any other line, which Postfix takes for
/// the first line of the body, so a field after it is never filtered and must
/// not be read either. Names as written, values unfolded (white space runs made
/// one space, trimmed).
fn header_fields_as_filtered(raw: &[u8]) -> Vec<(String, String)> {
    let mut fields: Vec<(String, String)> = Vec::new();
    for line in raw.split(|&byte| byte == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if let [b' ' | b'\t', ..] = line {
            let Some((_, value)) = fields.last_mut() else {
                break;
            };
            value.push(' ');
            value.push_str(&String::from_utf8_lossy(line));
            continue;
        }
        let name_length = line
            .iter()
            .position(|&byte| !(byte.is_ascii_graphic() && byte != b':'))
            .unwrap_or(line.len());
        let after_name = &line[name_length..];
        let blanks = after_name
            .iter()
            .position(|&byte| byte != b' ' && byte != b'\t')
            .unwrap_or(after_name.len());
        if name_length == 0 || after_name.get(blanks) != Some(&b':') {
            break;
        }
        fields.push((
            String::from_utf8_lossy(&line[..name_length]).into_owned(),
            String::from_utf8_lossy(&after_name[blanks + 1..]).into_owned(),
        ));
    }
    fields
        .into_iter()
        .map(|(name, value)| (name, value.split_whitespace().collect::<Vec<_>>().join(" ")))
        .collect()
}

/// The headers authentication reads, from the raw message.
#[derive(Debug, Default)]
pub struct Headers {
    /// Every `Authentication-Results` value, in order, unfolded.
    pub authentication_results: Vec<String>,
    /// Where each of them stands among all the header fields (0: the topmost).
    pub authentication_results_at: Vec<usize>,
    /// How many mailboxes the From headers name together.
    pub from_count: usize,
    /// For the notice to the holder of an address: a few headers as written.
    pub summary: Vec<(String, String)>,
}

impl Headers {
    pub fn read(raw: &[u8]) -> Headers {
        let Some(message) = MessageParser::default().parse_headers(raw) else {
            return Headers::default();
        };
        let raw_values = |name: &str| -> Vec<String> {
            message
                .headers()
                .iter()
                .filter(|header| header.name.as_str().eq_ignore_ascii_case(name))
                .filter_map(|header| {
                    raw.get(header.offset_start as usize..header.offset_end as usize)
                })
                .map(|bytes| {
                    String::from_utf8_lossy(bytes)
                        .split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect()
        };
        let from_count = message
            .header_values(HeaderName::From)
            .filter_map(|value| value.as_address())
            .map(|address| address.iter().count())
            .sum();
        let mut summary = Vec::new();
        for name in [
            "From",
            "Sender",
            "Reply-To",
            "Cc",
            "X-Original-From",
            "To",
            "Subject",
            "Date",
            "Message-ID",
        ] {
            for value in raw_values(name) {
                let value: String = value.chars().take(200).collect();
                summary.push((name.to_owned(), value));
            }
        }
        // Not mail-parser's reading: it takes a field after a line that is no
        // header, and trims any white space around a name, where the server's
        // filter (README, "Sender authentication") sees the body or no header.
        let (authentication_results_at, authentication_results): (Vec<usize>, Vec<String>) =
            header_fields_as_filtered(raw)
                .into_iter()
                .enumerate()
                .filter(|(_, (name, _))| name.eq_ignore_ascii_case("Authentication-Results"))
                .map(|(at, (_, value))| (at, value))
                .unzip();
        for value in &authentication_results {
            summary.push((
                "Authentication-Results".to_owned(),
                value.chars().take(300).collect(),
            ));
        }
        Headers {
            authentication_results,
            authentication_results_at,
            from_count,
            summary,
        }
    }

    /// The results our own server stamped (RFC 8601 §5, §7): our server prepends
    /// its headers, so they are the topmost run of consecutive headers with our
    /// authserv-id; a header with our id anywhere further down was written by
    /// someone else (a server that forgot to remove it let it through) and is
    /// never read. Two headers of the run that report the same method contradict
    /// each other, one of them forged: then none is believed.
    pub fn ours(&self, authserv_id: &str) -> Reading {
        let authserv_id = authserv_id.trim().to_lowercase();
        let mut reading = Reading::default();
        let mut run: Vec<AuthResults> = Vec::new();
        let mut last_at = None;
        let mut ignored = 0_usize;
        for (value, at) in self
            .authentication_results
            .iter()
            .zip(&self.authentication_results_at)
        {
            let Some(results) = parse_authentication_results(value) else {
                continue;
            };
            if results.authserv_id != authserv_id {
                continue;
            }
            let consecutive = last_at.is_none_or(|last: usize| last + 1 == *at);
            if run.is_empty() || (consecutive && ignored == 0) {
                run.push(results);
            } else {
                ignored += 1;
            }
            last_at = Some(*at);
        }
        if ignored > 0 {
            reading.ignored = format!(
                "{ignored} Authentication-Results header(s) claiming {authserv_id} below the ones it stamped, ignored"
            );
        }
        // A header saying `none` says our server applied no method: any other of
        // the run that reports one is not what our server found.
        if run.len() > 1 && run.iter().any(|header| header.results.is_empty()) {
            reading.contradiction = Some(format!(
                "one Authentication-Results header of {authserv_id} says no method was applied and another reports one: one of them is forged, so neither is believed"
            ));
            return reading;
        }
        for (n, header) in run.iter().enumerate() {
            for method in header.results.iter().map(|result| &result.method) {
                let elsewhere = run
                    .iter()
                    .enumerate()
                    .any(|(m, other)| m != n && other.results.iter().any(|r| &r.method == method));
                if elsewhere {
                    reading.contradiction = Some(format!(
                        "two Authentication-Results headers of {authserv_id} report {method}: one of them is forged, so neither is believed"
                    ));
                    return reading;
                }
            }
        }
        reading.results = run.into_iter().flat_map(|header| header.results).collect();
        reading
    }
}

/// What our server's headers say, as far as they are believed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Reading {
    pub results: Vec<ResInfo>,
    /// Set when the topmost headers contradict each other: `results` is empty.
    pub contradiction: Option<String>,
    /// Headers with our id that stood too far down to be ours (for the log).
    pub ignored: String,
}

/// What our server's results say of a From domain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// An aligned DKIM pass or a DMARC pass: what passed.
    Pass(String),
    /// A DMARC fail for this domain: a forgery by the domain's own policy.
    Fail(String),
    /// Nothing either way: why not.
    Unknown(String),
}

/// The list's own DKIM signature: its domain, and the selectors that tell it
/// from other signatures of that domain (none known: every signature of the
/// domain is the list's). The list signs whatever it relays, forged or not, so
/// its signature authenticates the list and never an author.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListSigner {
    /// Lower-case.
    pub domain: String,
    /// Lower-case; empty: every selector.
    pub selectors: Vec<String>,
}

impl ListSigner {
    /// Whether this result is of the list's signature. A result that names no
    /// selector counts as the list's when the domain is: it cannot be told apart.
    pub fn signed(&self, result: &ResInfo) -> bool {
        result.method == "dkim"
            && result
                .dkim_domain()
                .is_some_and(|domain| domain.eq_ignore_ascii_case(&self.domain))
            && (self.selectors.is_empty()
                || result.property("header.s").is_none_or(|selector| {
                    self.selectors
                        .iter()
                        .any(|s| s.eq_ignore_ascii_case(selector.trim()))
                }))
    }

    /// Whether a From domain is one the list's signature aligns with: a DMARC
    /// pass for it may rest on the list's signature alone.
    fn covers(&self, from_domain: &str) -> bool {
        aligned(&self.domain, from_domain)
    }
}

/// What the results say of a From domain. The list's own signature is left out
/// (unless the From is the list's own domain's and the message is the list's):
/// it authenticates the list, not the author.
pub fn verdict(results: &[ResInfo], from_domain: &str, list: &ListSigner) -> Verdict {
    let for_this_from = |result: &ResInfo| {
        result
            .property("header.from")
            .is_none_or(|from| from.trim().eq_ignore_ascii_case(from_domain))
    };
    let mut lists_own = None;
    for result in results {
        if result.method == "dkim"
            && result.result == "pass"
            && let Some(domain) = result.dkim_domain()
            && aligned(&domain, from_domain)
        {
            if list.signed(result) {
                lists_own = Some(domain);
                continue;
            }
            return Verdict::Pass(format!("dkim=pass header.d={domain}"));
        }
    }
    for result in results {
        if result.method == "dmarc" && result.result == "pass" && for_this_from(result) {
            if list.covers(from_domain) {
                // DMARC passes on any aligned signature, the list's included.
                lists_own.get_or_insert_with(|| list.domain.clone());
                continue;
            }
            return Verdict::Pass(format!("dmarc=pass header.from={from_domain}"));
        }
    }
    if let Some(result) = results
        .iter()
        .find(|r| r.method == "dmarc" && r.result == "fail" && for_this_from(r))
    {
        return Verdict::Fail(format!("dmarc={} header.from={from_domain}", result.result));
    }
    if let Some(domain) = lists_own {
        return Verdict::Unknown(format!(
            "only the list's own signature (d={domain}) passed: it authenticates the list, which signs whatever it relays, not the author"
        ));
    }
    if results.is_empty() {
        return Verdict::Unknown("no DKIM or DMARC result".to_owned());
    }
    let passes: Vec<String> = results
        .iter()
        .filter(|r| r.method == "dkim" && r.result == "pass")
        .filter_map(ResInfo::dkim_domain)
        .collect();
    if passes.is_empty() {
        Verdict::Unknown(format!("no DKIM or DMARC pass for {from_domain}"))
    } else {
        Verdict::Unknown(format!(
            "DKIM passed only for {} (not aligned with {from_domain})",
            passes.join(", ")
        ))
    }
}

/// Whether the list's own signature passed.
pub fn list_signature_passed(results: &[ResInfo], list: &ListSigner) -> bool {
    results
        .iter()
        .any(|result| result.result == "pass" && list.signed(result))
}

// ---------------------------------------------------------------------------
// Passphrases
// ---------------------------------------------------------------------------

/// A passphrase line taken out of a message, as a command of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PassphraseCommand {
    /// `passphrase set WORDS`: require WORDS from now on.
    Set(String),
    /// `passphrase clear`: require none.
    Clear,
    /// `passphrase confirm CODE`: the code mailed to the address for a first
    /// passphrase asked for by mail that proved nothing.
    Confirm(String),
    /// `passphrase clear ADDRESS because REASON`: a moderator's, for a player who
    /// lost eirs.
    ClearFor { address: Address, reason: String },
    /// A `passphrase` line that reads as nothing.
    Malformed,
    /// A passphrase command in the subject: never read there.
    InSubject,
}

/// A passphrase as compared: white space runs made one space, trimmed (mail
/// programs rewrap lines); case is kept.
fn normalize(secret: &str) -> String {
    secret.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The salted hash stored for a passphrase.
pub fn hash(salt: &str, secret: &str) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"nomicbot passphrase 1\n");
    hasher.update(salt.as_bytes());
    hasher.update(b"\n");
    hasher.update(normalize(secret).as_bytes());
    hex(&hasher.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether `secret` is the passphrase, compared without an early exit.
pub fn matches(passphrase: &Passphrase, secret: &str) -> bool {
    let given = hash(&passphrase.salt, secret);
    given.len() == passphrase.hash.len()
        && given
            .bytes()
            .zip(passphrase.hash.bytes())
            .fold(0_u8, |diff, (a, b)| diff | (a ^ b))
            == 0
}

/// If the line is a passphrase line: what it says after the word.
fn passphrase_rest(line: &str) -> Option<&str> {
    let line = line.trim();
    let head = line.get(..10)?;
    if !head.eq_ignore_ascii_case("passphrase") {
        return None;
    }
    let rest = &line[10..];
    (rest.is_empty() || rest.starts_with([':', ' ', '\t'])).then_some(rest)
}

/// Whether the line says a passphrase (`passphrase: ...`, `passphrase set ...`):
/// nothing the bot writes may repeat it.
pub fn is_passphrase_line(line: &str) -> bool {
    passphrase_rest(line).is_some()
}

/// A message with its passphrase lines taken out.
#[derive(Debug)]
pub struct Extracted {
    pub message: Message,
    /// The first `passphrase: ...` line's secret.
    pub presented: Option<String>,
    pub commands: Vec<PassphraseCommand>,
}

/// Takes every passphrase line out of the message: `passphrase: SECRET` (the proof),
/// and `passphrase set|clear ...` (commands); the subject's rest too, if it is one.
pub fn extract(mut message: Message) -> Extracted {
    let mut presented = None;
    let mut commands = Vec::new();
    if passphrase_rest(&message.subject_rest).is_some() {
        message.subject_rest.clear();
        commands.push(PassphraseCommand::InSubject);
    }
    message.body_lines.retain(|line| {
        let Some(rest) = passphrase_rest(line) else {
            return true;
        };
        if let Some(secret) = rest.strip_prefix(':') {
            presented.get_or_insert_with(|| secret.to_owned());
            return false;
        }
        let rest = rest.trim();
        let (verb, argument) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        let argument = argument.trim();
        let command = match verb.to_lowercase().as_str() {
            "set" if !argument.is_empty() => PassphraseCommand::Set(argument.to_owned()),
            "clear" if argument.is_empty() => PassphraseCommand::Clear,
            "confirm" if !argument.is_empty() => PassphraseCommand::Confirm(argument.to_owned()),
            "clear" => match argument.split_once(" because ") {
                Some((address, reason)) if !reason.trim().is_empty() => {
                    PassphraseCommand::ClearFor {
                        address: Address::new(address),
                        reason: reason.trim().to_owned(),
                    }
                }
                _ => PassphraseCommand::Malformed,
            },
            _ => PassphraseCommand::Malformed,
        };
        commands.push(command);
        false
    });
    Extracted {
        message,
        presented,
        commands,
    }
}

// ---------------------------------------------------------------------------
// The decision
// ---------------------------------------------------------------------------

/// How far the sender of one message is believed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trust {
    /// The sender is who the message says, with every office the address holds:
    /// how that was established.
    Full(String),
    /// Not established: player commands only, no office. Why not.
    Limited(String),
    /// Not checked yet: player commands need no check, and a message that needs
    /// an office is checked then ([`settle`]), so mail with no office to use
    /// costs no key lookup.
    Unchecked,
}

impl Trust {
    pub fn is_full(&self) -> bool {
        matches!(self, Trust::Full(_))
    }

    pub fn describe(&self) -> String {
        match self {
            Trust::Full(how) => format!("authenticated ({how})"),
            Trust::Limited(why) => format!("not authenticated ({why})"),
            Trust::Unchecked => "not checked (player commands only)".to_owned(),
        }
    }
}

/// Why a message is not applied at all. `why` is the notice's code; `reason` goes
/// to the inbox record (it never holds a passphrase).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub why: &'static str,
    pub reason: String,
    /// The holder of the address the message claims, who is told privately.
    pub tell: Option<Address>,
    pub trust: String,
}

impl Refused {
    /// A message that needed an office its sender does not hold with this trust.
    pub fn officer(address: &Address, trust: &Trust) -> Refused {
        Refused {
            why: "officer",
            reason: "officer commands from a sender who is not authenticated".to_owned(),
            tell: Some(address.clone()),
            trust: trust.describe(),
        }
    }
}

#[derive(Debug)]
pub enum Checked {
    Accepted {
        trust: Trust,
        message: Message,
        commands: Vec<PassphraseCommand>,
    },
    Refused(Refused),
}

/// What the check needs from the configuration.
#[derive(Debug, Clone)]
pub struct Policy {
    pub mode: AuthMode,
    pub authserv_id: String,
    pub unauthenticated: Unauthenticated,
    /// Lower-case.
    pub list_address: String,
    pub list: ListSigner,
    /// The domains whose ARC seal is believed (lower-case).
    pub arc_sealers: Vec<String>,
    /// An officer command signed longer ago than this before it arrived is
    /// refused as a possible replay.
    pub officer_signature_window: jiff::SignedDuration,
}

impl Policy {
    pub fn new(identity: &IdentityConfig, list_address: &str, list_dkim_domain: String) -> Policy {
        Policy {
            mode: identity.auth,
            authserv_id: identity
                .authserv_id
                .clone()
                .unwrap_or_default()
                .trim()
                .to_lowercase(),
            unauthenticated: identity.unauthenticated,
            list_address: list_address.trim().to_lowercase(),
            arc_sealers: if identity.arc_sealers.is_empty() {
                vec![list_dkim_domain.clone()]
            } else {
                identity
                    .arc_sealers
                    .iter()
                    .map(|s| s.trim().to_lowercase())
                    .collect()
            },
            list: ListSigner {
                domain: list_dkim_domain,
                selectors: identity
                    .list_dkim_selectors
                    .iter()
                    .map(|s| s.trim().to_lowercase())
                    .collect(),
            },
            officer_signature_window: jiff::SignedDuration::from_hours(i64::from(
                identity.officer_signature_hours,
            )),
        }
    }

    /// Where results come from, for the reasons.
    fn source(&self) -> String {
        match self.mode {
            AuthMode::Dmarc => format!("at {}", self.authserv_id),
            _ => "checked by the bot".to_owned(),
        }
    }
}

// ---------------------------------------------------------------------------
// Evidence: what is known of a message's signatures
// ---------------------------------------------------------------------------

/// What is known of a message's signatures, from our server's header
/// (`dmarc`) or from the bot's own check (`dkim`).
#[derive(Debug, Clone, Default)]
pub struct Evidence {
    /// DKIM (and, from our server, DMARC) results.
    pub results: Vec<ResInfo>,
    /// Why none of the results is believed.
    pub doubt: Option<String>,
    /// The results a trusted list recorded, in an ARC chain that verified,
    /// before it changed the message: its sealer and the results.
    pub arc: Option<(String, Vec<ResInfo>)>,
    /// Every DKIM-Signature's tags, for the signed date.
    pub signatures: Vec<verify::SignatureTags>,
    /// The Date header, read.
    pub date: Option<Timestamp>,
}

impl Evidence {
    /// From our receiving server's `Authentication-Results` (`auth = "dmarc"`).
    pub fn from_headers(policy: &Policy, raw: &[u8]) -> Evidence {
        let reading = Headers::read(raw).ours(&policy.authserv_id);
        if !reading.ignored.is_empty() {
            tracing::warn!(ignored = %reading.ignored, "a forged Authentication-Results header got past the receiving server");
        }
        Evidence {
            results: reading.results,
            doubt: reading.contradiction,
            arc: None,
            signatures: verify::signatures(raw),
            date: date_of(raw),
        }
    }

    /// From the bot's own check (`auth = "dkim"`).
    pub fn from_verified(policy: &Policy, verified: verify::Verified, raw: &[u8]) -> Evidence {
        let results = verified
            .dkim
            .iter()
            .map(|check| ResInfo {
                method: "dkim".to_owned(),
                result: match &check.result {
                    verify::Outcome::Pass => "pass",
                    verify::Outcome::Fail(_) => "fail",
                    verify::Outcome::TempError(_) => "temperror",
                    verify::Outcome::PermError(_) => "permerror",
                    verify::Outcome::Neutral(_) | verify::Outcome::None => "neutral",
                }
                .to_owned(),
                properties: vec![
                    ("header.d".to_owned(), check.domain.clone()),
                    ("header.s".to_owned(), check.selector.clone()),
                ],
            })
            .collect();
        // Only the results the trusted list itself sealed, and only when it is
        // the last to have sealed: a set below it may be anyone's (a forger can
        // start a chain claiming any pass), and a hop after it may have changed
        // the message.
        let arc = match &verified.arc.sealer {
            Some(sealer) if policy.arc_sealers.iter().any(|s| s == sealer) => verified
                .arc
                .results_sealed_by(sealer)
                .and_then(parse_authentication_results)
                .map(|results| (sealer.clone(), results.results)),
            _ => None,
        };
        Evidence {
            results,
            doubt: None,
            arc,
            signatures: verified
                .dkim
                .into_iter()
                .map(|check| verify::SignatureTags {
                    domain: check.domain,
                    selector: check.selector,
                    signed_headers: check.signed_headers,
                    signed_at: check.signed_at,
                    replay_key: check.replay_key,
                })
                .collect(),
            date: date_of(raw),
        }
    }

    /// When the signature that authenticated `domain` was made, as far as it
    /// says: its `t=`, else the Date header if it signed it. `Ok(None)`: no
    /// signature of that domain is on the message (DMARC passed on SPF).
    fn signed_at(&self, domain: &str, list: &ListSigner) -> Result<Option<Timestamp>, ()> {
        let mut theirs = self
            .signatures
            .iter()
            .filter(|tags| aligned(&tags.domain, domain))
            .filter(|tags| {
                !list.signed(&ResInfo {
                    method: "dkim".to_owned(),
                    result: "pass".to_owned(),
                    properties: vec![
                        ("header.d".to_owned(), tags.domain.clone()),
                        ("header.s".to_owned(), tags.selector.clone()),
                    ],
                })
            })
            .peekable();
        if theirs.peek().is_none() {
            return Ok(None);
        }
        // The latest any of them claims: a replayer cannot make it later.
        theirs
            .filter_map(|tags| {
                tags.signed_at
                    .and_then(|t| Timestamp::from_second(t).ok())
                    .or_else(|| {
                        tags.signed_headers
                            .iter()
                            .any(|h| h == "date")
                            .then_some(self.date)
                            .flatten()
                    })
            })
            .max()
            .map(Some)
            .ok_or(())
    }
}

/// The message's Date header.
fn date_of(raw: &[u8]) -> Option<Timestamp> {
    let message = MessageParser::default().parse_headers(raw)?;
    let date = message.date()?;
    Timestamp::from_second(date.to_timestamp()).ok()
}

/// One message's claim to come from `sender`.
pub struct Claim<'a> {
    pub raw: &'a [u8],
    pub envelope: &'a Envelope,
    pub sender: &'a Mailbox,
    pub public: bool,
    /// When it arrived (for the age of its signature).
    pub arrived: Timestamp,
}

/// How far an unrecovered From is believed on this evidence; `Err` when the
/// evidence says it is forged (a DMARC fail at our server).
fn trust_of(
    policy: &Policy,
    claim: &Claim<'_>,
    evidence: &Evidence,
) -> Result<Trust, (Trust, String)> {
    if let Some(doubt) = &evidence.doubt {
        return Ok(Trust::Limited(doubt.clone()));
    }
    if Headers::read(claim.raw).from_count > 1 {
        return Ok(Trust::Limited("several From addresses".to_owned()));
    }
    let from_domain = domain_of(&claim.sender.address);
    let how = match verdict(&evidence.results, &from_domain, &policy.list) {
        Verdict::Pass(how) => how,
        Verdict::Fail(how) => {
            return Err((
                Trust::Limited(how.clone()),
                format!("forged: {how} {}", policy.source()),
            ));
        }
        Verdict::Unknown(why) => match &evidence.arc {
            // The list changed the message (a subject prefix, a footer), which
            // broke the author's signature; its seal says the signature held
            // when the post reached it.
            Some((sealer, before)) => match verdict(before, &from_domain, &policy.list) {
                Verdict::Pass(how) => format!("{how}, as the ARC seal of {sealer} records"),
                _ => return Ok(Trust::Limited(format!("{why} {}", policy.source()))),
            },
            None => return Ok(Trust::Limited(format!("{why} {}", policy.source()))),
        },
    };
    // A genuine signed message can be re-sent by anyone who received it: an
    // old one is no officer's command now.
    match evidence.signed_at(&from_domain, &policy.list) {
        Ok(None) => Ok(Trust::Full(how)),
        Ok(Some(signed)) => {
            let age = claim.arrived.duration_since(signed);
            if age > policy.officer_signature_window {
                Ok(Trust::Limited(format!(
                    "its signature was made at {signed}, {} hours before it arrived, and an officer's command must be signed within {} hours (an older one may be a replay)",
                    age.as_hours(),
                    policy.officer_signature_window.as_hours()
                )))
            } else {
                Ok(Trust::Full(how))
            }
        }
        Err(()) => Ok(Trust::Limited(format!(
            "{how}, but the signature says neither when it was made (t=) nor signs the Date, so it could be a replay of any age"
        ))),
    }
}

/// Checks a message left [`Trust::Unchecked`] now that it needs an office.
/// A recovered sender never holds one.
pub fn settle(policy: &Policy, claim: &Claim<'_>, evidence: &Evidence) -> Trust {
    match trust_of(policy, claim, evidence) {
        Ok(trust) | Err((trust, _)) => trust,
    }
}

/// Decides how far the message's sender is believed, and takes its passphrase
/// lines out. The registry is the world's as this message finds it. `evidence`
/// is asked for at most once, and under `auth = "dkim"` only when the answer
/// matters before the message is handled; otherwise the trust is left
/// [`Trust::Unchecked`] for [`settle`].
pub fn check(
    policy: &Policy,
    claim: &Claim<'_>,
    registry: &Registry,
    message: Message,
    evidence: &dyn Fn() -> Evidence,
) -> Checked {
    let Extracted {
        message,
        presented,
        commands,
    } = extract(message);
    let sender = Address::new(&claim.sender.address);
    let refused = |why: &'static str, reason: String, trust: &Trust| {
        Checked::Refused(Refused {
            why,
            reason,
            tell: Some(sender.clone()),
            trust: trust.describe(),
        })
    };

    let recovered =
        claim.envelope.from.as_ref().is_some_and(|from| {
            from.address == policy.list_address && from.address != sender.as_str()
        });
    // A header the list's rewritten From is recovered from is anyone's to write:
    // it never carries an office, in any mode.
    let recovered_trust = || {
        Trust::Limited(
            "recovered from a header of the list's rewritten From, which anyone posting to the list can write"
                .to_owned(),
        )
    };
    let needs_answer_now = policy.mode == AuthMode::Dmarc
        || recovered
        || registry.passphrase(&sender).is_some()
        || policy.unauthenticated == Unauthenticated::Refuse
        || !commands.is_empty();
    let mut trust = match policy.mode {
        AuthMode::None if recovered => recovered_trust(),
        AuthMode::None => Trust::Full("identity.auth = none: From is believed".to_owned()),
        AuthMode::Dmarc | AuthMode::Dkim if !needs_answer_now => Trust::Unchecked,
        AuthMode::Dmarc | AuthMode::Dkim => {
            let evidence = evidence();
            if recovered {
                let trust = recovered_trust();
                let arc_vouches = evidence.arc.as_ref().is_some_and(|(_, before)| {
                    matches!(
                        verdict(before, &domain_of(sender.as_str()), &policy.list),
                        Verdict::Pass(_)
                    )
                });
                if !arc_vouches && !list_signature_passed(&evidence.results, &policy.list) {
                    return refused(
                        "list_unsigned",
                        format!(
                            "From is the list, and the list's DKIM signature (d={}) did not pass {}: the sender cannot be recovered",
                            policy.list.domain,
                            policy.source()
                        ),
                        &trust,
                    );
                }
                // The list's seal records the author's own signature: the author
                // is known for real, a newcomer too (still with no office).
                if !arc_vouches && registry.active_by_address(&sender).is_none() {
                    return refused(
                        "recovered_unknown",
                        format!(
                            "the sender recovered from the list's rewritten From, {sender}, is no known player"
                        ),
                        &trust,
                    );
                }
                trust
            } else {
                match trust_of(policy, claim, &evidence) {
                    Ok(trust) => trust,
                    Err((trust, reason)) => return refused("forged", reason, &trust),
                }
            }
        }
    };

    match (registry.passphrase(&sender), &presented) {
        (Some(_), Some(_)) if claim.public => {
            return refused(
                "passphrase_public",
                "a passphrase line was sent on the list".to_owned(),
                &trust,
            );
        }
        (Some(passphrase), Some(secret)) => {
            if !matches(passphrase, secret) {
                return refused(
                    "passphrase_wrong",
                    "the passphrase of the address is wrong".to_owned(),
                    &trust,
                );
            }
            trust = Trust::Full("passphrase".to_owned());
        }
        (Some(_), None) => {
            // Under `none`, From alone is what the passphrase is there to doubt.
            if !(policy.mode != AuthMode::None && trust.is_full()) {
                return refused(
                    "passphrase_missing",
                    "the address requires a passphrase and the message carries none".to_owned(),
                    &trust,
                );
            }
        }
        (None, _) => {}
    }

    if let Trust::Limited(why) = &trust
        && policy.unauthenticated == Unauthenticated::Refuse
    {
        return refused(
            "unauthenticated",
            format!("the sender is not authenticated: {why}"),
            &trust,
        );
    }
    Checked::Accepted {
        trust,
        message,
        commands,
    }
}

/// Carries out an unauthenticated message with every office of its sender
/// withdrawn. `Err` holds the lines that needed an office, when the outcome with
/// the sender's offices would differ: then nothing of it may be applied.
pub fn handle_limited(
    world: &World,
    message: &Message,
    ctx: &Ctx,
    params: &games::Params,
) -> Result<Outcome, Vec<String>> {
    let mut limited_params = params.clone();
    limited_params.setting.officers = params.setting.officers.without(&ctx.sender);
    let limited = world.handle(message, ctx, &limited_params);
    let full = world.handle(message, ctx, params);
    if used_office(&full, &limited) {
        Err(office_lines(&full, &limited))
    } else {
        Ok(limited)
    }
}

/// Whether a message needed an office: its outcome with every office the sender
/// holds differs from its outcome with none (a line done only with it, or other
/// events). Generic: it names no command and no game.
pub fn used_office(full: &Outcome, limited: &Outcome) -> bool {
    full.events != limited.events
        || full
            .report
            .iter()
            .map(|line| line.status)
            .ne(limited.report.iter().map(|line| line.status))
}

/// The lines that were done only with the sender's offices, for the notice.
pub fn office_lines(full: &Outcome, limited: &Outcome) -> Vec<String> {
    full.report
        .iter()
        .enumerate()
        .filter(|(n, line)| {
            line.status == Status::Done
                && limited
                    .report
                    .get(*n)
                    .is_none_or(|l| l.status != Status::Done)
        })
        .map(|(_, line)| line.line.clone())
        .collect()
}

/// Carries out the passphrase commands of an accepted message after its other
/// commands: registry events, answer lines (never showing a passphrase) and mail.
/// `Err` when one needs an office the sender does not hold with this trust (a
/// moderator's `passphrase clear ADDRESS` from unauthenticated mail).
pub fn apply_commands(
    commands: Vec<PassphraseCommand>,
    ctx: &Ctx,
    trust: &Trust,
    policy: &Policy,
    registry: &Registry,
    officers: &Officers,
    outcome: &mut Outcome,
) -> Result<(), String> {
    // A first passphrase is set at once only for a sender a signature proved;
    // otherwise a forger could set one on anyone's address, and then act as them
    // with it, offices and all.
    let proven = trust.is_full() && policy.mode != AuthMode::None;
    let (sender, public, entropy) = (&ctx.sender, ctx.public, ctx.entropy);
    // Most messages hold no passphrase command: the copy below grows with the
    // players, so they should not pay for it.
    if commands.is_empty() {
        return Ok(());
    }
    let mut registry = registry.clone();
    for (index, command) in commands.into_iter().enumerate() {
        let (line, status, sentence, event) = match command {
            PassphraseCommand::InSubject => (
                "passphrase (in the subject)".to_owned(),
                Status::Refused,
                Sentence::new("passphrase_in_subject"),
                None,
            ),
            PassphraseCommand::Malformed => (
                "passphrase ...".to_owned(),
                Status::NotUnderstood,
                Sentence::new("passphrase_usage").arg("min", MIN_PASSPHRASE_CHARS),
                None,
            ),
            PassphraseCommand::Set(secret) => {
                let line = format!("passphrase set {HIDDEN}");
                if public {
                    (
                        line,
                        Status::Refused,
                        Sentence::new("passphrase_on_list"),
                        None,
                    )
                } else if normalize(&secret).chars().count() < MIN_PASSPHRASE_CHARS {
                    (
                        line,
                        Status::Refused,
                        Sentence::new("passphrase_short").arg("min", MIN_PASSPHRASE_CHARS),
                        None,
                    )
                } else if registry.passphrase(sender).is_some() && !trust.is_full() {
                    (
                        line,
                        Status::Refused,
                        Sentence::new("passphrase_unauthenticated"),
                        None,
                    )
                } else {
                    let mut hasher = Sha256::new();
                    hasher.update(entropy);
                    hasher.update(b"passphrase salt");
                    hasher.update(index.to_le_bytes());
                    let salt = hex(&hasher.finalize()[..16]);
                    let hash = hash(&salt, &secret);
                    if proven || registry.passphrase(sender).is_some() {
                        (
                            line,
                            Status::Done,
                            Sentence::new("passphrase_set"),
                            Some(players::Event::PassphraseSet {
                                address: sender.clone(),
                                salt,
                                hash,
                            }),
                        )
                    } else {
                        let code = players::confirmation_code(&entropy, "passphrase code", sender);
                        outcome.mail.push(Mail::new(
                            Audience::Address(sender.clone()),
                            players::TAG,
                            "passphrase_confirm_request",
                            json!({ "address": sender, "code": code }),
                        ));
                        (
                            line,
                            Status::Done,
                            Sentence::new("passphrase_requested"),
                            Some(players::Event::PassphraseRequested {
                                address: sender.clone(),
                                salt,
                                hash,
                                code_hash: players::code_hash(&players::code_key(&code)),
                            }),
                        )
                    }
                }
            }
            PassphraseCommand::Confirm(code) => {
                let line = "passphrase confirm ********".to_owned();
                let matching = registry.pending_passphrase(sender).filter(|pending| {
                    pending.code_hash == players::code_hash(&players::code_key(&code))
                });
                match matching {
                    None => (
                        line,
                        Status::Refused,
                        Sentence::new("passphrase_code_wrong"),
                        None,
                    ),
                    // Shown on the list, the code is anyone's: the request is void.
                    Some(_) if public => (
                        line,
                        Status::Refused,
                        Sentence::new("passphrase_code_public"),
                        Some(players::Event::PassphraseRequestCancelled {
                            address: sender.clone(),
                        }),
                    ),
                    Some(pending) => (
                        line,
                        Status::Done,
                        Sentence::new("passphrase_set"),
                        Some(players::Event::PassphraseSet {
                            address: sender.clone(),
                            salt: pending.passphrase.salt.clone(),
                            hash: pending.passphrase.hash.clone(),
                        }),
                    ),
                }
            }
            PassphraseCommand::Clear => {
                let line = "passphrase clear".to_owned();
                if registry.passphrase(sender).is_none() {
                    (
                        line,
                        Status::Refused,
                        Sentence::new("passphrase_none"),
                        None,
                    )
                } else if !trust.is_full() {
                    (
                        line,
                        Status::Refused,
                        Sentence::new("passphrase_unauthenticated"),
                        None,
                    )
                } else {
                    (
                        line,
                        Status::Done,
                        Sentence::new("passphrase_cleared"),
                        Some(players::Event::PassphraseCleared {
                            address: sender.clone(),
                        }),
                    )
                }
            }
            PassphraseCommand::ClearFor { address, reason } => {
                let line = format!("passphrase clear {address} because {reason}");
                let is_moderator = officers.is_moderator(sender);
                if is_moderator && !trust.is_full() {
                    return Err(line);
                }
                if !is_moderator {
                    (
                        line,
                        Status::Refused,
                        Sentence::new("moderators_only"),
                        None,
                    )
                } else if registry.passphrase(&address).is_none() {
                    (
                        line,
                        Status::Refused,
                        Sentence::new("passphrase_none_for").arg("address", &address),
                        None,
                    )
                } else {
                    outcome.mail.push(Mail::new(
                        Audience::Address(address.clone()),
                        players::TAG,
                        "passphrase_cleared",
                        json!({ "address": address, "officer": sender, "reason": reason }),
                    ));
                    (
                        line,
                        Status::Done,
                        Sentence::new("passphrase_cleared_for").arg("address", &address),
                        Some(players::Event::PassphraseCleared { address }),
                    )
                }
            }
        };
        if let Some(event) = event {
            registry.apply_event(&event, Timestamp::UNIX_EPOCH);
            outcome.events.push(games::Event::Players(event));
        }
        outcome.report.push(LineReport {
            line,
            status,
            sentence,
        });
    }
    Ok(())
}

/// The values of the notice to the holder of an address that a message in its
/// name was not applied.
pub fn notice_values(
    refused: &Refused,
    address: &Address,
    registry: &Registry,
    raw: &[u8],
    lines: &[String],
    public: bool,
    at: &str,
) -> serde_json::Value {
    // An officer whose mail no signature proves learns how to act with a
    // passphrase instead.
    let passphrase_help = refused.why == "officer" && registry.passphrase(address).is_none();
    let headers: Vec<serde_json::Value> = Headers::read(raw)
        .summary
        .into_iter()
        .map(|(name, value)| json!({ "name": name, "value": value }))
        .collect();
    json!({
        "why": refused.why,
        "address": address,
        "reason": refused.reason,
        "trust": refused.trust,
        "headers": headers,
        "lines": lines,
        "public": public,
        "at": at,
        "passphrase_help": passphrase_help,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(value: &str) -> AuthResults {
        parse_authentication_results(value).expect("an authserv-id")
    }

    #[test]
    fn ar_simple_dkim_pass() {
        let ar = parse("mx.example.org; dkim=pass header.d=example.com header.s=sel");
        assert_eq!(ar.authserv_id, "mx.example.org");
        assert_eq!(ar.results.len(), 1);
        assert_eq!(ar.results[0].method, "dkim");
        assert_eq!(ar.results[0].result, "pass");
        assert_eq!(ar.results[0].dkim_domain().as_deref(), Some("example.com"));
    }

    #[test]
    fn ar_comments_versions_quotes_and_folding() {
        let ar = parse(
            "mx.example.org (Postfix; \"quoted ; semicolon\") 1;\r\n\tdkim/1 = pass (good (nested; comment) signature)\r\n\t header.i=\"@Sub.Example.COM\" header.b=\"a;b\";\r\n spf=fail (sender IP is 192.0.2.1) smtp.mailfrom=x@y.org;\r\n\tdmarc=pass (p=reject dis=none) header.from=example.com",
        );
        assert_eq!(ar.authserv_id, "mx.example.org");
        let methods: Vec<_> = ar
            .results
            .iter()
            .map(|r| (r.method.as_str(), r.result.as_str()))
            .collect();
        assert_eq!(
            methods,
            [("dkim", "pass"), ("spf", "fail"), ("dmarc", "pass")]
        );
        assert_eq!(
            ar.results[0].dkim_domain().as_deref(),
            Some("sub.example.com")
        );
        assert_eq!(ar.results[0].property("header.b"), Some("a;b"));
        assert_eq!(ar.results[2].property("header.from"), Some("example.com"));
    }

    #[test]
    fn ar_unquoted_base64_and_none() {
        let ar = parse("mx.example.org; dkim=pass header.d=a.org header.b=Ab/+c=d=");
        assert_eq!(ar.results[0].property("header.b"), Some("Ab/+c=d="));
        let none = parse("mx.example.org; none");
        assert!(none.results.is_empty());
        let quoted_id = parse("\"mx.example.org\"; dkim=fail header.d=a.org");
        assert_eq!(quoted_id.authserv_id, "mx.example.org");
        assert_eq!(parse_authentication_results("  (only a comment) "), None);
    }

    #[test]
    fn ar_garbage_never_panics() {
        for value in [
            "",
            ";",
            "x;;;",
            "x; =",
            "x; dkim=",
            "x; dkim=pass header.d",
            "x; dkim=pass (unterminated",
            "x; dkim=pass header.d=\"unterminated",
            "x; dkim/=pass",
            "x; \\(",
            "é; dkim=pass header.d=é.org",
        ] {
            let _ = parse_authentication_results(value);
        }
    }

    /// Issue 23, item 2: every form of the header a forger tried is read as
    /// ours, as the README's filter drops every one of them; a field the filter
    /// cannot see (after a line Postfix takes for the body) is not read at all.
    #[test]
    fn issue_23_item_2_authentication_results_are_read_as_the_filter_reads_them() {
        let ours = |header: &str| {
            let raw = format!("From: mod@nomic.example\r\n{header}\r\nSubject: x\r\n\r\nbody\r\n");
            Headers::read(raw.as_bytes())
                .ours("mx.nomic.example")
                .results
                .len()
        };
        for header in [
            "Authentication-Results: mx.nomic.example; dkim=pass header.d=nomic.example",
            "Authentication-Results: (x) mx.nomic.example; dkim=pass header.d=nomic.example",
            "Authentication-Results: \"mx.nomic.example\"; dkim=pass header.d=nomic.example",
            "Authentication-Results: MX.NOMIC.EXAMPLE; dkim=pass header.d=nomic.example",
            "AUTHENTICATION-RESULTS: mx.nomic.example; dkim=pass header.d=nomic.example",
            "Authentication-Results:mx.nomic.example; dkim=pass header.d=nomic.example",
            "Authentication-results : mx.nomic.example; dkim=pass header.d=nomic.example",
            "Authentication-Results\t: mx.nomic.example; dkim=pass header.d=nomic.example",
            "Authentication-Results: mx.nomic.example 1; dkim=pass header.d=nomic.example",
            "Authentication-Results:\r\n mx.nomic.example;\r\n\tdkim=pass header.d=nomic.example",
        ] {
            assert_eq!(ours(header), 1, "{header:?}");
        }
        for header in [
            "X-Not a header\r\nAuthentication-Results: mx.nomic.example; dkim=pass header.d=nomic.example",
            "Authentication-Results\x0c: mx.nomic.example; dkim=pass header.d=nomic.example",
            "Authentication Results: mx.nomic.example; dkim=pass header.d=nomic.example",
            "ARC-Authentication-Results: i=1; mx.nomic.example; dkim=pass header.d=nomic.example",
            "X-Authentication-Results: mx.nomic.example; dkim=pass header.d=nomic.example",
        ] {
            assert_eq!(ours(header), 0, "{header:?}");
        }
        let body_only =
            b"\r\nAuthentication-Results: mx.nomic.example; dkim=pass header.d=nomic.example\r\n";
        assert!(Headers::read(body_only).authentication_results.is_empty());
    }

    #[test]
    fn organizational_domains() {
        assert_eq!(organizational_domain("mail.example.com"), "example.com");
        assert_eq!(organizational_domain("Example.COM."), "example.com");
        assert_eq!(organizational_domain("a.b.example.co.uk"), "example.co.uk");
        assert_eq!(organizational_domain("com"), "com");
        assert!(aligned("mail.example.com", "example.com"));
        assert!(!aligned("example.net", "example.com"));
        assert!(!aligned("evil.co.uk", "example.co.uk"));
        assert!(!aligned("", "example.com"));
    }

    fn results(value: &str) -> Vec<ResInfo> {
        parse(value).results
    }

    #[test]
    fn verdicts() {
        let list = ListSigner {
            domain: "lists.l.org".to_owned(),
            selectors: Vec::new(),
        };
        assert!(matches!(
            verdict(
                &results("mx; dkim=pass header.d=mail.a.org"),
                "a.org",
                &list
            ),
            Verdict::Pass(_)
        ));
        assert!(matches!(
            verdict(&results("mx; dkim=pass header.d=evil.org"), "a.org", &list),
            Verdict::Unknown(_)
        ));
        assert!(matches!(
            verdict(&results("mx; dmarc=pass header.from=a.org"), "a.org", &list),
            Verdict::Pass(_)
        ));
        assert!(matches!(
            verdict(&results("mx; dmarc=pass header.from=b.org"), "a.org", &list),
            Verdict::Unknown(_)
        ));
        assert!(matches!(
            verdict(
                &results("mx; dkim=fail header.d=a.org; dmarc=fail header.from=a.org"),
                "a.org",
                &list
            ),
            Verdict::Fail(_)
        ));
        assert!(list_signature_passed(
            &results("mx; dkim=pass header.d=lists.l.org"),
            &list
        ));
        assert!(!list_signature_passed(
            &results("mx; dkim=pass header.d=a.org"),
            &list
        ));
    }

    #[test]
    fn the_lists_own_signature_authenticates_no_author() {
        let list = ListSigner {
            domain: "nomic.example".to_owned(),
            selectors: Vec::new(),
        };
        for header in [
            "mx; dkim=pass header.d=nomic.example header.s=list",
            "mx; dkim=pass header.d=nomic.example; dmarc=pass header.from=nomic.example",
        ] {
            let verdict = verdict(&results(header), "nomic.example", &list);
            assert!(
                matches!(&verdict, Verdict::Unknown(why) if why.contains("list's own signature")),
                "{header}: {verdict:?}"
            );
        }
        let told_apart = ListSigner {
            domain: "nomic.example".to_owned(),
            selectors: vec!["list".to_owned()],
        };
        assert!(matches!(
            verdict(
                &results(
                    "mx; dkim=pass header.d=nomic.example header.s=list; dkim=pass header.d=nomic.example header.s=staff"
                ),
                "nomic.example",
                &told_apart
            ),
            Verdict::Pass(_)
        ));
        assert!(matches!(
            verdict(
                &results("mx; dkim=pass header.d=nomic.example"),
                "nomic.example",
                &told_apart
            ),
            Verdict::Unknown(_)
        ));
    }

    fn headers(raw: &str) -> Headers {
        Headers::read(raw.replace('\n', "\r\n").as_bytes())
    }

    #[test]
    fn only_the_topmost_run_of_our_headers_is_read() {
        let body = "From: mod@mod.example\nSubject: x\n\nbody\n";
        let ours = "Authentication-Results: mx.ours; dkim=fail header.d=mod.example\n";
        let forged = "Authentication-Results: mx.ours; dkim=pass header.d=mod.example\n";
        let received = "Received: from a by b; Mon, 5 Jan 2026 10:00:00 +0000\n";
        // Further down, below what our server wrote: never read.
        let below = headers(&format!("{ours}{received}{forged}{body}")).ours("mx.ours");
        assert_eq!(below.results.len(), 1);
        assert_eq!(below.results[0].result, "fail");
        assert!(!below.ignored.is_empty());
        // Right above or below ours: the run contradicts itself, none is believed.
        for raw in [
            format!("{forged}{ours}{received}{body}"),
            format!("{ours}{forged}{received}{body}"),
        ] {
            let reading = headers(&raw).ours("mx.ours");
            assert!(reading.results.is_empty(), "{raw}");
            assert!(reading.contradiction.is_some(), "{raw}");
        }
        // Two headers of ours for two methods (OpenDKIM and OpenDMARC) are read.
        let two = headers(&format!(
            "Authentication-Results: mx.ours; dmarc=pass header.from=mod.example\n{ours}{body}"
        ))
        .ours("mx.ours");
        assert_eq!(two.results.len(), 2);
        assert!(two.contradiction.is_none());
    }

    #[test]
    fn passphrase_lines_are_taken_out() {
        let message = Message {
            tag: "nomic".into(),
            subject_rest: "passphrase set oops".into(),
            body_lines: vec![
                "join Alice".into(),
                "Passphrase:  open   sesame ".into(),
                "passphrase set correct horse".into(),
                "passphrase clear".into(),
                "passphrase clear bob@x.org because he asked".into(),
                "passphrases are fun".into(),
                "passphrase".into(),
            ],
        };
        let extracted = extract(message);
        assert_eq!(
            extracted.message.body_lines,
            ["join Alice", "passphrases are fun"]
        );
        assert!(extracted.message.subject_rest.is_empty());
        assert_eq!(extracted.presented.as_deref(), Some("  open   sesame"));
        assert_eq!(
            extracted.commands,
            [
                PassphraseCommand::InSubject,
                PassphraseCommand::Set("correct horse".into()),
                PassphraseCommand::Clear,
                PassphraseCommand::ClearFor {
                    address: Address::new("bob@x.org"),
                    reason: "he asked".into()
                },
                PassphraseCommand::Malformed,
            ]
        );
    }

    #[test]
    fn passphrase_hash_matches_after_rewrapping_only() {
        let passphrase = Passphrase {
            address: Address::new("a@x.org"),
            salt: "00ff".into(),
            hash: hash("00ff", "open sesame"),
        };
        assert!(matches(&passphrase, "  open \t sesame "));
        assert!(!matches(&passphrase, "Open sesame"));
        assert!(!matches(&passphrase, ""));
        assert_ne!(hash("00fe", "open sesame"), passphrase.hash);
    }
}
