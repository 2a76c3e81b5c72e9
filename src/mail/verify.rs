//! The bot's own check of DKIM signatures (RFC 6376) and ARC chains (RFC 8617), with
//! mail-auth, so that deciding who sent a message need not believe any
//! `Authentication-Results` header. It reports what verified and what did not; it
//! decides nothing about senders (that is `auth`'s job), writes nothing, and never
//! panics on mail.
//!
//! # Keys
//!
//! DKIM key records can be pinned in a file (`identity.dkim_keys`); a pinned record
//! is used before DNS and never expires. One record a line: the record's name, white
//! space, then the TXT value as it would be published:
//!
//! ```text
//! # the list's key, pinned so a DNS outage cannot stop the moderators
//! game._domainkey.nomic.example  v=DKIM1; k=ed25519; p=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=
//! test._domainkey.mod.example.   "v=DKIM1; k=rsa; " "p=MIIBIjANBgkq..."
//! ```
//!
//! Lines that are blank or start with `#` are skipped. The name may end with a dot
//! and is compared without case. The value may be written as one or more quoted
//! strings, which are joined as a zone file joins them. A name given twice, a name
//! without `._domainkey.`, or a value that is not a DKIM key record is an error that
//! names the file and the line.
//!
//! # DNS
//!
//! With `dns` on, what is not pinned is asked of the resolvers in
//! `/etc/resolv.conf`, one attempt each, within `dns_timeout`. Answers are kept in
//! memory for as long as their TTL (at most 4096 names): a missing record for ten
//! minutes, a failed lookup (timeout, SERVFAIL) for 30 seconds, so a burst of mail
//! from a broken domain waits once. A failed
//! lookup is a `TempError`, a missing or unusable record a `PermError`. With `dns`
//! off nothing is ever sent on the network: a key that is not pinned is a
//! `TempError` at once.
//!
//! # Bounds
//!
//! At most [`MAX_SIGNATURES`] DKIM signatures are verified a message (the topmost
//! ones; later ones are not reported), and an ARC chain of more than
//! [`MAX_ARC_INSTANCES`] sets fails without a lookup. All key lookups of a message
//! run at the same time, so a message waits at most about one `dns_timeout`.
//! ATPS (RFC 6541) is not consulted and no failure report address (`r=y`) is looked
//! up: a signature passes or fails for its `d=` alone, with no lookup but its key.
//!
//! # Blocking
//!
//! [`Verifier::verify`] blocks its caller, whether plain code or a thread inside a
//! tokio runtime: the lookups run on a thread of the verifier's own, with its own
//! single-threaded runtime, and the caller waits on a standard channel, never on a
//! runtime. That thread ends when the last clone of the [`Verifier`] is dropped.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::fmt;
use std::hash::Hash;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, mpsc};
use std::time::{Duration, Instant};

use mail_auth::arc::ArcError;
use mail_auth::common::parse::TxtRecordParser;
use mail_auth::common::resolver::ToFqdn;
use mail_auth::common::verify::{DomainKey, VerifySignature};
use mail_auth::dkim::DkimError;
use mail_auth::hickory_resolver::config::{ResolverConfig, ResolverOpts};
use mail_auth::hickory_resolver::proto::op::ResponseCode;
use mail_auth::hickory_resolver::system_conf::read_system_conf;
use mail_auth::{
    AuthenticatedMessage, DkimResult, DnsError, Error, MessageAuthenticator, Parameters,
    ResolverCache, Txt,
};
use sha2::{Digest, Sha256};

/// DKIM signatures verified in one message; the topmost ones are kept.
pub const MAX_SIGNATURES: usize = 8;
/// ARC sets beyond which a chain fails unverified.
pub const MAX_ARC_INSTANCES: usize = 16;
/// Key records kept from DNS; the pinned ones do not count.
const MAX_CACHED_NAMES: usize = 4096;
/// How long a name with no usable key record is remembered.
const NEGATIVE_TTL: Duration = Duration::from_secs(10 * 60);
/// How long a lookup that failed (timeout, SERVFAIL) is remembered.
const FAILURE_TTL: Duration = Duration::from_secs(30);
/// How long past `dns_timeout` a caller waits for its answer before giving up.
const ANSWER_MARGIN: Duration = Duration::from_secs(30);

/// What the verifier is built from (the `[identity]` keys `dkim_keys`, `dns` and
/// `dns_timeout_seconds`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifySettings {
    /// Pinned DKIM key records, consulted before DNS (format in the module doc).
    pub keys_file: Option<PathBuf>,
    /// Whether to ask the system's resolvers for keys that are not pinned.
    pub dns: bool,
    /// The longest a key lookup may take.
    pub dns_timeout: Duration,
}

impl Default for VerifySettings {
    fn default() -> Self {
        VerifySettings {
            keys_file: None,
            dns: false,
            dns_timeout: Duration::from_secs(5),
        }
    }
}

/// Why a verifier could not be built; each is the operator's to fix.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// The keys file is missing or unreadable.
    #[error("cannot read the DKIM keys file {path}: {source}")]
    ReadKeys {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A line of the keys file is wrong.
    #[error("{path}:{line}: {message}")]
    Keys {
        path: PathBuf,
        line: usize,
        message: String,
    },
    /// `/etc/resolv.conf` could not be read, or the resolver not built.
    #[error("cannot set up the DNS resolver: {0}")]
    Resolver(String),
    /// The verifier's thread or its runtime could not start.
    #[error("cannot start the verifier's thread: {0}")]
    Thread(String),
}

/// The result of one check, as RFC 8601 names them; the text says why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing to check (no ARC set).
    None,
    Pass,
    Fail(String),
    TempError(String),
    PermError(String),
    Neutral(String),
}

impl Outcome {
    pub fn is_pass(&self) -> bool {
        matches!(self, Outcome::Pass)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::None => f.write_str("none"),
            Outcome::Pass => f.write_str("pass"),
            Outcome::Fail(why) => write!(f, "fail ({why})"),
            Outcome::TempError(why) => write!(f, "temperror ({why})"),
            Outcome::PermError(why) => write!(f, "permerror ({why})"),
            Outcome::Neutral(why) => write!(f, "neutral ({why})"),
        }
    }
}

/// A DKIM-Signature's tags, as mail-auth reads them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureTags {
    /// `d=`, lower-case.
    pub domain: String,
    /// `s=`, lower-case.
    pub selector: String,
    /// `h=`, lower-case, in order.
    pub signed_headers: Vec<String>,
    /// `t=`, seconds since the epoch.
    pub signed_at: Option<i64>,
    /// The replay key: hex SHA-256 of the signature's bytes (`b=` decoded). The same
    /// signature gives the same key however it is folded or its base64 is spelled.
    pub replay_key: String,
}

/// One DKIM signature and whether it verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DkimCheck {
    /// `d=`, lower-case.
    pub domain: String,
    /// `s=`, lower-case.
    pub selector: String,
    /// Never [`Outcome::None`].
    pub result: Outcome,
    /// See [`SignatureTags::replay_key`].
    pub replay_key: String,
    /// `h=`, lower-case, in order.
    pub signed_headers: Vec<String>,
    /// `t=`, seconds since the epoch.
    pub signed_at: Option<i64>,
}

/// One ARC set, as the message carries it (believe it only if the chain passed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArcInstance {
    /// `i=`.
    pub instance: u32,
    /// `d=` of its ARC-Seal, lower-case.
    pub sealer: String,
    /// Its ARC-Authentication-Results without the `i=` tag, unfolded: an
    /// `Authentication-Results` value ("authserv-id; dkim=pass ...").
    pub results: String,
}

/// The ARC chain's check. Everything but `result` is what the headers say, so it is
/// worth something only when `result` is [`Outcome::Pass`].
///
/// Even then, each ARC-Authentication-Results is only as good as the domain that
/// sealed it: anyone can start a chain with a set of their own whose results claim
/// anything, and a trusted relay then seals on top of it. Believe the results of an
/// instance sealed by a domain you trust ([`ArcCheck::results_sealed_by`]), not
/// `first_results` because `sealer` is trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArcCheck {
    /// [`Outcome::None`] when the message has no ARC set.
    pub result: Outcome,
    /// `d=` of the highest-instance ARC-Seal.
    pub sealer: Option<String>,
    /// The ARC-Authentication-Results of `i=1`, as in [`ArcInstance::results`];
    /// written by `instances[0].sealer`, who need not be `sealer`.
    pub first_results: Option<String>,
    /// Every set, by instance (at most [`MAX_ARC_INSTANCES`]).
    pub instances: Vec<ArcInstance>,
}

impl ArcCheck {
    fn none() -> ArcCheck {
        ArcCheck {
            result: Outcome::None,
            sealer: None,
            first_results: None,
            instances: Vec::new(),
        }
    }

    /// The results `domain` recorded in its highest set, when the chain passed and
    /// `domain` sealed a set: what that relay saw when the message reached it.
    pub fn results_sealed_by(&self, domain: &str) -> Option<&str> {
        if !self.result.is_pass() {
            return None;
        }
        self.instances
            .iter()
            .rev()
            .find(|set| set.sealer.eq_ignore_ascii_case(domain))
            .map(|set| set.results.as_str())
    }
}

/// What a message's signatures and ARC chain are worth.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verified {
    /// In header order, topmost first, at most [`MAX_SIGNATURES`]; signatures
    /// mail-auth cannot read (or with `l=`) are left out, as they cannot pass.
    pub dkim: Vec<DkimCheck>,
    pub arc: ArcCheck,
}

impl Verified {
    /// Every signature and the chain a temporary error, when no answer came.
    fn unavailable(raw: &[u8], why: &str) -> Verified {
        let dkim = signatures(raw)
            .into_iter()
            .map(|tags| DkimCheck {
                domain: tags.domain,
                selector: tags.selector,
                result: Outcome::TempError(why.to_string()),
                replay_key: tags.replay_key,
                signed_headers: tags.signed_headers,
                signed_at: tags.signed_at,
            })
            .collect();
        let has_arc =
            header_fields(raw).any(|(name, _)| name.trim_ascii().eq_ignore_ascii_case(b"ARC-Seal"));
        let arc = if has_arc {
            ArcCheck {
                result: Outcome::TempError(why.to_string()),
                ..ArcCheck::none()
            }
        } else {
            ArcCheck::none()
        };
        Verified { dkim, arc }
    }
}

/// The tags of the first [`MAX_SIGNATURES`] DKIM-Signature headers mail-auth can
/// read, in order (with those using `l=`, which [`Verifier::verify`] leaves out).
/// Nothing is verified and nothing looked up: for when the receiving server
/// verified and the caller needs the replay keys.
pub fn signatures(raw: &[u8]) -> Vec<SignatureTags> {
    header_fields(raw)
        .filter(|(name, _)| name.trim_ascii().eq_ignore_ascii_case(b"DKIM-Signature"))
        .filter_map(|(_, value)| mail_auth::dkim::Signature::parse(value).ok())
        .take(MAX_SIGNATURES)
        .map(|signature| tags(&signature))
        .collect()
}

/// The header fields before the first empty line, as (name, value) with the value's
/// folding kept. A line that is neither a field nor a continuation is skipped.
fn header_fields(raw: &[u8]) -> impl Iterator<Item = (&[u8], &[u8])> {
    let mut rest = raw;
    std::iter::from_fn(move || {
        loop {
            if rest.is_empty() || rest.starts_with(b"\n") || rest.starts_with(b"\r\n") {
                return None;
            }
            // A field runs to the first line end not followed by white space.
            let mut end = 0;
            let field_end = loop {
                match memchr_newline(&rest[end..]) {
                    None => break rest.len(),
                    Some(at) => {
                        end += at + 1;
                        if !matches!(rest.get(end), Some(b' ' | b'\t')) {
                            break end;
                        }
                    }
                }
            };
            let (field, tail) = rest.split_at(field_end);
            rest = tail;
            if let Some(colon) = field.iter().position(|b| *b == b':') {
                return Some((&field[..colon], &field[colon + 1..]));
            }
        }
    })
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|b| *b == b'\n')
}

fn tags(signature: &mail_auth::dkim::Signature) -> SignatureTags {
    SignatureTags {
        domain: signature.d.clone(),
        selector: signature.s.clone(),
        signed_headers: signature
            .h
            .iter()
            .map(|name| name.to_ascii_lowercase())
            .collect(),
        // mail-auth reads a missing t= as 0.
        signed_at: i64::try_from(signature.t).ok().filter(|t| *t != 0),
        replay_key: replay_key(&signature.b),
    }
}

/// Hashing the decoded bytes rather than the base64 text: the decoder ignores the
/// unused bits of the last character, so the text can be respelled by a replayer and
/// still verify.
fn replay_key(signature: &[u8]) -> String {
    Sha256::digest(signature)
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// Verifies DKIM signatures and ARC chains. Cheap to clone and share between threads.
#[derive(Clone)]
pub struct Verifier {
    jobs: tokio::sync::mpsc::UnboundedSender<Job>,
    answer_within: Duration,
}

impl fmt::Debug for Verifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Verifier").finish_non_exhaustive()
    }
}

struct Job {
    raw: Vec<u8>,
    answer: mpsc::SyncSender<Verified>,
}

impl Verifier {
    /// Reads the pinned keys and starts the verifier's thread and resolver.
    pub fn new(settings: &VerifySettings) -> Result<Verifier, VerifyError> {
        let pinned = match &settings.keys_file {
            Some(path) => read_keys(path)?,
            None => HashMap::new(),
        };
        let cache = KeyCache::new(pinned, settings.dns);
        let (jobs, queue) = tokio::sync::mpsc::unbounded_channel();
        let (ready, started) = mpsc::sync_channel(1);
        let dns = settings.dns;
        let dns_timeout = settings.dns_timeout;
        std::thread::Builder::new()
            .name("dkim-verifier".to_string())
            .spawn(move || serve(cache, dns, dns_timeout, queue, ready))
            .map_err(|err| VerifyError::Thread(err.to_string()))?;
        match started.recv() {
            Ok(Ok(())) => Ok(Verifier {
                jobs,
                answer_within: dns_timeout.saturating_add(ANSWER_MARGIN),
            }),
            Ok(Err(err)) => Err(err),
            Err(_) => Err(VerifyError::Thread("it stopped while starting".to_string())),
        }
    }

    /// Verifies every DKIM signature (up to [`MAX_SIGNATURES`]) and the ARC chain.
    /// Blocks until done; safe to call from inside a tokio runtime (see the module
    /// doc). If the verifier cannot answer, everything is a `TempError`.
    pub fn verify(&self, raw: &[u8]) -> Verified {
        let (answer, answered) = mpsc::sync_channel(1);
        let job = Job {
            raw: raw.to_vec(),
            answer,
        };
        if self.jobs.send(job).is_err() {
            return Verified::unavailable(raw, "the verifier has stopped");
        }
        match answered.recv_timeout(self.answer_within) {
            Ok(verified) => verified,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                Verified::unavailable(raw, "the verifier did not answer in time")
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                Verified::unavailable(raw, "the verifier failed on this message")
            }
        }
    }
}

/// The verifier's thread: one task a message, so a slow lookup holds up only its own.
fn serve(
    cache: KeyCache,
    dns: bool,
    dns_timeout: Duration,
    mut queue: tokio::sync::mpsc::UnboundedReceiver<Job>,
    ready: mpsc::SyncSender<Result<(), VerifyError>>,
) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            let _ = ready.send(Err(VerifyError::Thread(err.to_string())));
            return;
        }
    };
    runtime.block_on(async move {
        let authenticator = match authenticator(dns, dns_timeout) {
            Ok(authenticator) => authenticator,
            Err(err) => {
                let _ = ready.send(Err(err));
                return;
            }
        };
        let checker = Arc::new(Checker {
            authenticator,
            cache,
            dns,
            dns_timeout,
        });
        if ready.send(Ok(())).is_err() {
            return;
        }
        while let Some(job) = queue.recv().await {
            let checker = Arc::clone(&checker);
            // A panic in mail-auth ends only this task; the dropped sender tells the
            // caller.
            tokio::spawn(async move {
                let verified = checker.check(&job.raw).await;
                let _ = job.answer.send(verified);
            });
        }
    });
}

fn authenticator(dns: bool, dns_timeout: Duration) -> Result<MessageAuthenticator, VerifyError> {
    let (config, mut options) = if dns {
        read_system_conf().map_err(|err| VerifyError::Resolver(err.to_string()))?
    } else {
        // No name server: nothing can leave the machine even if a lookup slipped
        // past the cache.
        (
            ResolverConfig::from_name_servers(Vec::new()),
            ResolverOpts::default(),
        )
    };
    options.timeout = dns_timeout;
    options.attempts = 1;
    MessageAuthenticator::new(config, options).map_err(|err| VerifyError::Resolver(err.to_string()))
}

struct Checker {
    authenticator: MessageAuthenticator,
    cache: KeyCache,
    dns: bool,
    dns_timeout: Duration,
}

impl Checker {
    async fn check(&self, raw: &[u8]) -> Verified {
        let Some(mut message) = AuthenticatedMessage::parse(raw) else {
            return Verified {
                dkim: Vec::new(),
                arc: ArcCheck::none(),
            };
        };
        message.dkim_headers.truncate(MAX_SIGNATURES);
        for header in &mut message.dkim_headers {
            // Neither changes whether d= signed: both only add lookups.
            header.header.r = false;
            header.header.atps = None;
            header.header.atpsh = None;
        }
        let arc_too_long = message.as_headers.len() > MAX_ARC_INSTANCES
            || message.ams_headers.len() > MAX_ARC_INSTANCES
            || message.aar_headers.len() > MAX_ARC_INSTANCES;

        let mut names: Vec<String> = message
            .dkim_headers
            .iter()
            .map(|header| header.header.domain_key())
            .collect();
        if !arc_too_long {
            // What mail-auth's ARC check looks up: the newest AMS and every seal.
            names.extend(
                message
                    .ams_headers
                    .iter()
                    .max_by_key(|header| header.header.i)
                    .map(|header| header.header.domain_key()),
            );
            names.extend(
                message
                    .as_headers
                    .iter()
                    .map(|header| header.header.domain_key()),
            );
        }
        let mut names: Vec<String> = names
            .into_iter()
            .map(|name| name.to_fqdn().into_owned())
            .collect();
        names.sort();
        names.dedup();
        futures::future::join_all(names.iter().map(|name| self.look_up(name))).await;

        let dkim = self.check_dkim(&message).await;
        let arc = if arc_too_long {
            ArcCheck {
                result: Outcome::Fail(format!("more than {MAX_ARC_INSTANCES} ARC sets")),
                ..ArcCheck::none()
            }
        } else {
            self.check_arc(&message).await
        };
        Verified { dkim, arc }
    }

    /// Leaves the answer in the cache, where mail-auth finds it without a lookup.
    async fn look_up(&self, name: &str) {
        if !self.dns || self.cache.get::<str>(name).is_some() {
            return;
        }
        let lookup = self
            .authenticator
            .txt_lookup::<DomainKey>(name, Some(&self.cache));
        let (failure, ttl) = match tokio::time::timeout(self.dns_timeout, lookup).await {
            // mail-auth has cached the record.
            Ok(Ok(_)) => return,
            Ok(Err(Error::Dns(DnsError::RecordNotFound(code))))
                if code == ResponseCode::NXDomain || code == ResponseCode::NoError =>
            {
                (Error::Dns(DnsError::RecordNotFound(code)), NEGATIVE_TTL)
            }
            // mail-auth calls a SERVFAIL or REFUSED "not found", a permanent error;
            // RFC 6376 6.1.2 makes it temporary.
            Ok(Err(Error::Dns(DnsError::RecordNotFound(code)))) => (
                Error::Dns(DnsError::Resolver(format!("the server answered {code}"))),
                FAILURE_TTL,
            ),
            Ok(Err(err @ Error::Dns(DnsError::Resolver(_)))) => (err, FAILURE_TTL),
            Ok(Err(err)) => (err, NEGATIVE_TTL),
            Err(_) => (
                Error::Dns(DnsError::Resolver(format!(
                    "no answer within {} ms",
                    self.dns_timeout.as_millis()
                ))),
                FAILURE_TTL,
            ),
        };
        self.cache.insert(
            name.to_string().into_boxed_str(),
            Txt::Error(failure),
            Instant::now() + ttl,
        );
    }

    async fn check_dkim(&self, message: &AuthenticatedMessage<'_>) -> Vec<DkimCheck> {
        let outputs = self
            .authenticator
            .verify_dkim(Parameters::new(message).with_txt_cache(&self.cache))
            .await;
        message
            .dkim_headers
            .iter()
            .map(|header| {
                let signature = &header.header;
                // Matched by address: mail-auth's outputs also hold its unreadable
                // signatures, which have none.
                let result = outputs
                    .iter()
                    .find(|output| {
                        output
                            .signature()
                            .is_some_and(|verified| std::ptr::eq(verified, signature))
                    })
                    .map_or_else(
                        || Outcome::TempError("not verified".to_string()),
                        |output| outcome(output.result()),
                    );
                let tags = tags(signature);
                DkimCheck {
                    domain: tags.domain,
                    selector: tags.selector,
                    result,
                    replay_key: tags.replay_key,
                    signed_headers: tags.signed_headers,
                    signed_at: tags.signed_at,
                }
            })
            .collect()
    }

    async fn check_arc(&self, message: &AuthenticatedMessage<'_>) -> ArcCheck {
        if message.as_headers.is_empty()
            && message.ams_headers.is_empty()
            && message.aar_headers.is_empty()
            && !message.has_arc_errors
        {
            return ArcCheck::none();
        }
        let output = self
            .authenticator
            .verify_arc(Parameters::new(message).with_txt_cache(&self.cache))
            .await;
        let mut result = outcome(output.result());
        if result == Outcome::None {
            // Only ARC headers mail-auth could not read.
            result = Outcome::Fail("no readable ARC set".to_string());
        }
        let mut seals: Vec<_> = message.as_headers.iter().map(|h| &h.header).collect();
        seals.sort_by_key(|seal| seal.i);
        let instances: Vec<ArcInstance> = seals
            .iter()
            .map(|seal| ArcInstance {
                instance: seal.i,
                sealer: seal.d.clone(),
                results: message
                    .aar_headers
                    .iter()
                    .find(|results| results.header.i == seal.i)
                    .map(|results| authentication_results(results.value))
                    .unwrap_or_default(),
            })
            .collect();
        ArcCheck {
            result,
            sealer: instances.last().map(|set| set.sealer.clone()),
            first_results: message
                .aar_headers
                .iter()
                .find(|results| results.header.i == 1)
                .map(|results| authentication_results(results.value)),
            instances,
        }
    }
}

fn outcome(result: &DkimResult) -> Outcome {
    match result {
        DkimResult::Pass => Outcome::Pass,
        DkimResult::None => Outcome::None,
        // mail-auth calls a body altered after signing "neutral"; RFC 8601 calls it a
        // failure, and so does anything deciding on it.
        DkimResult::Neutral(
            err @ (Error::Dkim(DkimError::FailedBodyHashMatch)
            | Error::Arc(ArcError::FailedBodyHashMatch)),
        ) => Outcome::Fail(err.to_string()),
        DkimResult::Neutral(err) => Outcome::Neutral(err.to_string()),
        DkimResult::Fail(err) => Outcome::Fail(err.to_string()),
        DkimResult::PermError(err) => Outcome::PermError(err.to_string()),
        DkimResult::TempError(err) => Outcome::TempError(err.to_string()),
    }
}

/// An ARC-Authentication-Results value as an Authentication-Results value: unfolded,
/// without its leading `i=N;`.
fn authentication_results(value: &[u8]) -> String {
    let text = String::from_utf8_lossy(value);
    let unfolded: String = text.chars().filter(|c| *c != '\r' && *c != '\n').collect();
    let unfolded = unfolded.trim();
    let rest = match unfolded.split_once(';') {
        Some((tag, rest)) if is_instance_tag(tag) => rest,
        _ => unfolded,
    };
    rest.trim().to_string()
}

fn is_instance_tag(tag: &str) -> bool {
    let compact: String = tag.chars().filter(|c| !c.is_whitespace()).collect();
    compact
        .strip_prefix("i=")
        .is_some_and(|number| !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()))
}

// ---------------------------------------------------------------------------
// Keys: the pinned file and the DNS cache
// ---------------------------------------------------------------------------

fn read_keys(path: &Path) -> Result<HashMap<Box<str>, Txt>, VerifyError> {
    let text = std::fs::read_to_string(path).map_err(|source| VerifyError::ReadKeys {
        path: path.to_path_buf(),
        source,
    })?;
    parse_keys(&text, path)
}

fn parse_keys(text: &str, path: &Path) -> Result<HashMap<Box<str>, Txt>, VerifyError> {
    let mut keys = HashMap::new();
    let mut first_line: HashMap<Box<str>, usize> = HashMap::new();
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        let error = |message: String| VerifyError::Keys {
            path: path.to_path_buf(),
            line: number,
            message,
        };
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((name, value)) = line.split_once(|c: char| c.is_whitespace()) else {
            return Err(error(format!("{line} has no key record after it")));
        };
        let name = name.to_fqdn().into_owned();
        let Some((selector, domain)) = name.split_once("._domainkey.") else {
            return Err(error(format!(
                "{name} is not a key's name (SELECTOR._domainkey.DOMAIN)"
            )));
        };
        if selector.is_empty() || domain.trim_end_matches('.').is_empty() {
            return Err(error(format!(
                "{name} is not a key's name (SELECTOR._domainkey.DOMAIN)"
            )));
        }
        let record = unquote(value.trim()).map_err(error)?;
        let key = DomainKey::parse(record.as_bytes())
            .map_err(|err| error(format!("not a DKIM key record: {err}")))?;
        let name = name.into_boxed_str();
        if let Some(earlier) = first_line.get(&name) {
            return Err(error(format!("{name} is already given on line {earlier}")));
        }
        first_line.insert(name.clone(), number);
        keys.insert(name, Txt::from(key));
    }
    Ok(keys)
}

/// A TXT value as written in a zone file: bare, or quoted strings to be joined.
fn unquote(value: &str) -> Result<String, String> {
    if !value.starts_with('"') {
        return Ok(value.to_string());
    }
    let mut joined = String::new();
    let mut chars = value.chars();
    loop {
        match chars.by_ref().find(|c| !c.is_whitespace()) {
            None => return Ok(joined),
            Some('"') => {}
            Some(_) => return Err("text between quoted strings".to_string()),
        }
        loop {
            match chars.next() {
                None => return Err("a quoted string is not closed".to_string()),
                Some('"') => break,
                Some('\\') => match chars.next() {
                    Some(escaped) => joined.push(escaped),
                    None => return Err("a quoted string is not closed".to_string()),
                },
                Some(c) => joined.push(c),
            }
        }
    }
}

/// Pinned records first, then what DNS answered while it is valid. With DNS off, a
/// name not pinned is answered with a temporary error, so mail-auth never reaches
/// for the resolver.
struct KeyCache {
    pinned: HashMap<Box<str>, Txt>,
    looked_up: Mutex<HashMap<Box<str>, (Txt, Instant)>>,
    dns: bool,
}

impl KeyCache {
    fn new(pinned: HashMap<Box<str>, Txt>, dns: bool) -> KeyCache {
        KeyCache {
            pinned,
            looked_up: Mutex::new(HashMap::new()),
            dns,
        }
    }

    fn looked_up(&self) -> MutexGuard<'_, HashMap<Box<str>, (Txt, Instant)>> {
        // The map stays consistent whatever panicked while holding it.
        self.looked_up
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl ResolverCache<Box<str>, Txt> for KeyCache {
    fn get<Q>(&self, name: &Q) -> Option<Txt>
    where
        Box<str>: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        if let Some(record) = self.pinned.get(name) {
            return Some(record.clone());
        }
        if let Some((record, valid_until)) = self.looked_up().get(name)
            && *valid_until > Instant::now()
        {
            return Some(record.clone());
        }
        (!self.dns).then(|| {
            Txt::Error(Error::Dns(DnsError::Resolver(
                "the key is not pinned and DNS is off".to_string(),
            )))
        })
    }

    fn remove<Q>(&self, name: &Q) -> Option<Txt>
    where
        Box<str>: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.looked_up().remove(name).map(|(record, _)| record)
    }

    fn insert(&self, name: Box<str>, record: Txt, valid_until: Instant) {
        if self.pinned.contains_key(&name) {
            return;
        }
        let mut looked_up = self.looked_up();
        if looked_up.len() >= MAX_CACHED_NAMES && !looked_up.contains_key(&name) {
            let now = Instant::now();
            looked_up.retain(|_, (_, until)| *until > now);
            if looked_up.len() >= MAX_CACHED_NAMES {
                let soonest = looked_up
                    .iter()
                    .min_by_key(|(_, (_, until))| *until)
                    .map(|(name, _)| name.clone());
                if let Some(soonest) = soonest {
                    looked_up.remove(&soonest);
                }
            }
        }
        looked_up.insert(name, (record, valid_until));
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use mail_auth::AuthenticationResults;
    use mail_auth::arc::ArcSealer;
    use mail_auth::common::crypto::Ed25519Key;
    use mail_auth::common::headers::HeaderWriter;
    use mail_auth::dkim::DkimSigner;

    use super::*;

    const AUTHOR: &str = "alice.example";
    const LIST: &str = "nomic.example";
    const MALLORY: &str = "mallory.example";

    const MESSAGE: &str = "From: Alice <alice@alice.example>\r\n\
        To: game-list@nomic.example\r\n\
        Subject: vote\r\n\
        Message-ID: <1@alice.example>\r\n\
        Date: Fri, 27 Nov 2026 12:00:00 +0000\r\n\
        \r\n\
        vote yes on 301\r\n";

    /// One test key a domain, made once for every test.
    struct TestKeys {
        private: HashMap<&'static str, Vec<u8>>,
        /// Each domain's key record (the TXT value).
        records: HashMap<&'static str, String>,
        /// The keys file's text for every domain, selector `test`.
        file: String,
    }

    fn test_keys() -> &'static TestKeys {
        static KEYS: std::sync::OnceLock<TestKeys> = std::sync::OnceLock::new();
        KEYS.get_or_init(|| {
            let mut private = HashMap::new();
            let mut records = HashMap::new();
            let mut file = String::from("# test keys\n\n");
            for domain in [AUTHOR, LIST, MALLORY] {
                let pkcs8 = Ed25519Key::generate_pkcs8().expect("a test key");
                let key = Ed25519Key::from_pkcs8_der(&pkcs8).expect("the test key");
                let record = format!("v=DKIM1; k=ed25519; p={}", to_base64(&key.public_key()));
                file.push_str(&format!("test._domainkey.{domain}  {record}\n"));
                records.insert(domain, record);
                private.insert(domain, pkcs8);
            }
            TestKeys {
                private,
                records,
                file,
            }
        })
    }

    fn to_base64(bytes: &[u8]) -> String {
        const DIGITS: &[u8; 64] =
            b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut text = String::new();
        for group in bytes.chunks(3) {
            let padded = [
                group[0],
                group.get(1).copied().unwrap_or(0),
                group.get(2).copied().unwrap_or(0),
            ];
            let bits = u32::from_be_bytes([0, padded[0], padded[1], padded[2]]);
            for place in 0..4 {
                if place <= group.len() {
                    text.push(char::from(
                        DIGITS[(bits >> (18 - 6 * place) & 0x3f) as usize],
                    ));
                } else {
                    text.push('=');
                }
            }
        }
        text
    }

    fn key(domain: &str) -> Ed25519Key {
        Ed25519Key::from_pkcs8_der(&test_keys().private[domain]).expect("the test key")
    }

    fn keys_file(text: &str) -> tempfile::NamedTempFile {
        let mut file = tempfile::NamedTempFile::new().expect("a temporary file");
        file.write_all(text.as_bytes()).expect("write the keys");
        file
    }

    /// A verifier that knows the test keys and never uses the network.
    fn verifier() -> Verifier {
        let file = keys_file(&test_keys().file);
        Verifier::new(&VerifySettings {
            keys_file: Some(file.path().to_path_buf()),
            dns: false,
            dns_timeout: Duration::from_secs(5),
        })
        .expect("a verifier")
    }

    fn signed(raw: &str, domain: &str, selector: &str) -> String {
        sign(raw, domain, selector, key(domain))
    }

    /// Signed as `domain` with the key of `key_domain`.
    fn signed_with(raw: &str, domain: &str, key_domain: &str) -> String {
        sign(raw, domain, "test", key(key_domain))
    }

    fn sign(raw: &str, domain: &str, selector: &str, key: Ed25519Key) -> String {
        let signature = DkimSigner::from_key(key)
            .domain(domain)
            .selector(selector)
            .headers(["From", "To", "Subject", "Message-ID", "Date"])
            .sign(raw.as_bytes())
            .expect("sign");
        format!("{}{raw}", signature.to_header())
    }

    /// The signed header names as the signature writes them, in its order.
    fn h_tag(raw: &str) -> Vec<String> {
        let (_, value) = header_fields(raw.as_bytes())
            .next()
            .expect("the signature on top");
        let compact: String = String::from_utf8_lossy(value)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let h = compact
            .split(';')
            .find_map(|tag| tag.strip_prefix("h="))
            .expect("an h= tag");
        h.split(':').map(|name| name.to_ascii_lowercase()).collect()
    }

    #[test]
    fn a_message_signed_by_a_pinned_key_passes() {
        let raw = signed(MESSAGE, AUTHOR, "test");
        let verified = verifier().verify(raw.as_bytes());
        assert_eq!(verified.dkim.len(), 1);
        let check = &verified.dkim[0];
        assert_eq!(check.result, Outcome::Pass);
        assert_eq!(check.domain, AUTHOR);
        assert_eq!(check.selector, "test");
        assert_eq!(check.signed_headers, h_tag(&raw));
        assert!(check.signed_at.is_some_and(|t| t > 1_700_000_000));
        assert_eq!(check.replay_key.len(), 64);
        assert_eq!(verified.arc, ArcCheck::none());
    }

    #[test]
    fn a_message_altered_after_signing_fails() {
        let verifier = verifier();
        let raw = signed(MESSAGE, AUTHOR, "test");
        let header_changed = raw.replace("Subject: vote", "Subject: vote ");
        let verified = verifier.verify(header_changed.replace("vote \r", "veto\r").as_bytes());
        assert!(
            matches!(verified.dkim[0].result, Outcome::Fail(_)),
            "{:?}",
            verified.dkim[0].result
        );
        let body_changed = raw.replace("vote yes", "vote no");
        let verified = verifier.verify(body_changed.as_bytes());
        assert!(
            matches!(verified.dkim[0].result, Outcome::Fail(_)),
            "{:?}",
            verified.dkim[0].result
        );
    }

    #[test]
    fn an_unknown_selector_without_dns_is_a_quick_temperror() {
        let verifier = verifier();
        let raw = signed(MESSAGE, AUTHOR, "rotated");
        let started = Instant::now();
        let verified = verifier.verify(raw.as_bytes());
        assert!(started.elapsed() < Duration::from_secs(1));
        assert_eq!(verified.dkim[0].selector, "rotated");
        assert!(
            matches!(verified.dkim[0].result, Outcome::TempError(_)),
            "{:?}",
            verified.dkim[0].result
        );
    }

    #[test]
    fn two_signatures_are_both_reported_topmost_first() {
        let raw = signed(&signed(MESSAGE, AUTHOR, "test"), LIST, "test");
        let verified = verifier().verify(raw.as_bytes());
        let domains: Vec<_> = verified.dkim.iter().map(|c| c.domain.as_str()).collect();
        assert_eq!(domains, [LIST, AUTHOR]);
        assert!(verified.dkim.iter().all(|c| c.result.is_pass()));
        assert_ne!(verified.dkim[0].replay_key, verified.dkim[1].replay_key);
    }

    #[test]
    fn signatures_reads_the_tags_and_the_replay_key_ignores_folding() {
        let raw = signed(MESSAGE, AUTHOR, "test");
        let tags = signatures(raw.as_bytes());
        assert_eq!(tags.len(), 1);
        assert_eq!(tags[0].domain, AUTHOR);
        assert_eq!(tags[0].selector, "test");
        assert_eq!(tags[0].signed_headers, h_tag(&raw));
        assert!(tags[0].signed_headers.contains(&"from".to_string()));
        assert!(tags[0].signed_at.is_some());

        // Fold the b= value differently: the same signature, the same key.
        let b_at = raw.find(" b=").expect("a b= tag") + 3;
        let (head, tail) = raw.split_at(b_at + 10);
        let refolded = format!("{head}\r\n\t {tail}");
        assert_ne!(refolded, raw);
        let refolded_tags = signatures(refolded.as_bytes());
        assert_eq!(refolded_tags[0].replay_key, tags[0].replay_key);

        // And the verifier reports the same key for it.
        let verified = verifier().verify(refolded.as_bytes());
        assert_eq!(verified.dkim[0].replay_key, tags[0].replay_key);
        assert!(verified.dkim[0].result.is_pass(), "{:?}", verified.dkim[0]);
    }

    #[test]
    fn a_bad_keys_file_names_its_line() {
        let file = keys_file(
            "# pinned\n\ntest._domainkey.alice.example. \"v=DKIM1; k=ed25519; \" \"p=AAAA\"\n\
             test._domainkey.bob.example v=DKIM1; k=ed25519; p=!!\n",
        );
        let settings = VerifySettings {
            keys_file: Some(file.path().to_path_buf()),
            ..VerifySettings::default()
        };
        let message = Verifier::new(&settings)
            .expect_err("line 4 is bad")
            .to_string();
        assert!(
            message.starts_with(&format!("{}:4: ", file.path().display())),
            "{message}"
        );

        let missing = keys_file("alice.example v=DKIM1; p=AAAA\n");
        let settings = VerifySettings {
            keys_file: Some(missing.path().to_path_buf()),
            ..VerifySettings::default()
        };
        let message = Verifier::new(&settings)
            .expect_err("no _domainkey")
            .to_string();
        assert!(message.contains(":1: "), "{message}");
    }

    #[test]
    fn quoted_values_and_trailing_dots_are_read() {
        let keys = parse_keys(
            "A._domainkey.Alice.Example.   \"v=DKIM1; k=ed25519; \" \"p=AAAA\"\n",
            Path::new("keys"),
        )
        .expect("a good file");
        assert!(keys.contains_key("a._domainkey.alice.example."));
        assert!(unquote("\"open").is_err());
    }

    /// The list receives Alice's mail, checks it, tags the subject, adds a footer
    /// and seals.
    fn sealed_by_the_list() -> String {
        let received = signed(MESSAGE, AUTHOR, "test");
        let forwarded = received
            .replace("Subject: vote", "Subject: [game] vote")
            .replace("301\r\n", "301\r\n-- \r\nthe game list\r\n");
        sealed(&received, &forwarded, LIST, "mx.nomic.example")
    }

    /// `sealer` checks `received` (its signatures and chain), then seals
    /// `forwarded`, the message it passes on.
    fn sealed(received: &str, forwarded: &str, sealer: &str, authserv_id: &str) -> String {
        sealed_with(received, forwarded, sealer, authserv_id, &test_keys().file)
    }

    /// As [`sealed`], with the keys `sealer` believes.
    fn sealed_with(
        received: &str,
        forwarded: &str,
        sealer: &str,
        authserv_id: &str,
        keys: &str,
    ) -> String {
        let file = keys_file(keys);
        let cache = KeyCache::new(read_keys(file.path()).expect("keys"), false);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let authenticator = authenticator(false, Duration::from_secs(1)).expect("a resolver");
        let message = AuthenticatedMessage::parse(received.as_bytes()).expect("a message");
        let (dkim, arc) = runtime.block_on(async {
            let dkim = authenticator
                .verify_dkim(Parameters::new(&message).with_txt_cache(&cache))
                .await;
            let arc = authenticator
                .verify_arc(Parameters::new(&message).with_txt_cache(&cache))
                .await;
            (dkim, arc)
        });
        let results = AuthenticationResults::new(authserv_id)
            .with_dkim_results(&dkim, "alice@alice.example")
            .with_arc_result(&arc, std::net::Ipv4Addr::LOCALHOST.into());
        let message = AuthenticatedMessage::parse(forwarded.as_bytes()).expect("a message");
        let set = ArcSealer::from_key(key(sealer))
            .domain(sealer)
            .selector("test")
            .headers(["From", "To", "Subject", "DKIM-Signature"])
            .seal(&message, &results, &arc)
            .expect("seal");
        format!("{}{forwarded}", set.to_header())
    }

    #[test]
    fn an_arc_chain_sealed_by_the_list_passes() {
        let verified = verifier().verify(sealed_by_the_list().as_bytes());
        assert!(!verified.dkim[0].result.is_pass(), "the list altered it");
        let arc = &verified.arc;
        assert_eq!(arc.result, Outcome::Pass, "{arc:?}");
        assert_eq!(arc.sealer.as_deref(), Some(LIST));
        let first = arc.first_results.as_deref().expect("i=1 results");
        assert!(first.starts_with("mx.nomic.example;"), "{first}");
        assert!(first.contains("dkim=pass"), "{first}");
        assert!(first.contains("header.d=alice.example"), "{first}");
        assert_eq!(arc.instances.len(), 1);
        assert_eq!(arc.instances[0].instance, 1);
        assert_eq!(arc.instances[0].sealer, LIST);
        assert_eq!(arc.instances[0].results, first);
    }

    #[test]
    fn a_forged_first_set_under_the_lists_seal_is_not_the_lists_word() {
        // Mallory starts the chain: she "verifies" a signature she made with her own
        // key as Alice's, against a key record she made up, and seals her results.
        let forged = signed_with(MESSAGE, AUTHOR, MALLORY);
        let mallorys_keys = test_keys()
            .file
            .replace(&test_keys().records[AUTHOR], &test_keys().records[MALLORY]);
        let with_mallorys_set = sealed_with(
            &forged,
            &forged,
            MALLORY,
            "mx.alice.example",
            &mallorys_keys,
        );
        let on_the_list = with_mallorys_set.replace("Subject: vote", "Subject: [game] vote");
        let sealed_twice = sealed(&with_mallorys_set, &on_the_list, LIST, "mx.nomic.example");
        let verified = verifier().verify(sealed_twice.as_bytes());
        assert!(!verified.dkim[0].result.is_pass(), "not Alice's key");

        let arc = verified.arc;
        assert_eq!(arc.result, Outcome::Pass, "{arc:?}");
        assert_eq!(arc.sealer.as_deref(), Some(LIST));
        let first = arc.first_results.as_deref().expect("i=1 results");
        assert!(
            first.starts_with("mx.alice.example;"),
            "Mallory wrote it: {first}"
        );
        assert!(first.contains("dkim=pass"), "and it claims a pass: {first}");
        assert_eq!(arc.instances[0].sealer, MALLORY);
        let lists = arc.results_sealed_by(LIST).expect("the list's results");
        assert!(lists.starts_with("mx.nomic.example;"), "{lists}");
        assert!(
            lists.contains("dkim=fail"),
            "the list saw through it: {lists}"
        );
        assert!(lists.contains("arc=pass"), "{lists}");
        assert_eq!(arc.results_sealed_by(AUTHOR), None);
    }

    #[test]
    fn an_arc_chain_altered_after_sealing_fails() {
        let verifier = verifier();
        let sealed = sealed_by_the_list();
        let retitled = sealed.replace("[game] vote", "[game] veto");
        let verified = verifier.verify(retitled.as_bytes());
        assert!(
            matches!(verified.arc.result, Outcome::Fail(_)),
            "{:?}",
            verified.arc
        );
        let rewritten = sealed.replace("vote yes", "vote no");
        let verified = verifier.verify(rewritten.as_bytes());
        assert!(
            matches!(verified.arc.result, Outcome::Fail(_)),
            "{:?}",
            verified.arc
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn verify_works_on_a_runtime_worker_thread() {
        let verifier = verifier();
        let raw = signed(MESSAGE, AUTHOR, "test");
        let verified = verifier.verify(raw.as_bytes());
        assert!(verified.dkim[0].result.is_pass());
        let moved = verifier.clone();
        let from_task = tokio::spawn(async move { moved.verify(raw.as_bytes()) })
            .await
            .expect("the task");
        assert!(from_task.dkim[0].result.is_pass());
    }

    #[tokio::test(flavor = "current_thread")]
    async fn verify_works_inside_a_current_thread_runtime() {
        let raw = signed(MESSAGE, AUTHOR, "test");
        assert!(verifier().verify(raw.as_bytes()).dkim[0].result.is_pass());
    }

    #[test]
    fn garbage_never_panics_and_work_is_bounded() {
        let verifier = verifier();
        let one = signed(MESSAGE, AUTHOR, "test");
        let signature_header = &one[..one.find("From:").expect("From")];
        let many = format!("{}{MESSAGE}", signature_header.repeat(200));
        let mut long_header = String::from("X-Long: ");
        long_header.push_str(&"a ".repeat(500_000));
        long_header.push_str("\r\n");
        let inputs: Vec<Vec<u8>> = vec![
            Vec::new(),
            b"\r\n\r\n".to_vec(),
            b"no colon at all".to_vec(),
            vec![0xff; 4096],
            b"DKIM-Signature: v=1; a=rsa-sha256; d=; s=; b=!!; bh=\r\n\r\nx".to_vec(),
            b"ARC-Seal: i=99; cv=none\r\nARC-Seal: garbage\r\n\r\n".to_vec(),
            format!("{long_header}{MESSAGE}").into_bytes(),
            many.into_bytes(),
        ];
        for input in &inputs {
            let verified = verifier.verify(input);
            assert!(verified.dkim.len() <= MAX_SIGNATURES);
            assert!(!verified.arc.result.is_pass());
            assert!(signatures(input).len() <= MAX_SIGNATURES);
        }
        let verified = verifier.verify(inputs.last().expect("many"));
        assert_eq!(verified.dkim.len(), MAX_SIGNATURES);
        assert!(verified.dkim.iter().all(|c| c.result.is_pass()));
    }

    #[test]
    fn a_verifier_can_be_shared_between_threads() {
        fn shareable<T: Send + Sync + Clone + 'static>() {}
        shareable::<Verifier>();
    }

    #[test]
    fn the_cache_keeps_a_bounded_number_of_names() {
        let cache = KeyCache::new(HashMap::new(), true);
        let later = Instant::now() + Duration::from_secs(60);
        for n in 0..MAX_CACHED_NAMES + 10 {
            cache.insert(
                format!("s{n}._domainkey.example.").into_boxed_str(),
                Txt::Error(Error::ParseError),
                later,
            );
        }
        assert_eq!(cache.looked_up().len(), MAX_CACHED_NAMES);
        let gone = Instant::now() - Duration::from_secs(1);
        cache.insert(
            "old._domainkey.example.".into(),
            Txt::Error(Error::ParseError),
            gone,
        );
        assert!(cache.get::<str>("old._domainkey.example.").is_none());
    }
}
