//! Inbound IMAP adapter, the first step of the pipeline: it lists, fetches and
//! flags messages on the server and hands their raw bytes, UID and INTERNALDATE
//! upward. It never touches SQLite, never parses MIME and never decides anything
//! about a message: storing it before calling [`Inbound::mark_seen`] is the
//! caller's job.
//!
//! Every network call runs under `tokio::time::timeout`, because async-imap has
//! no read timeout of its own. A command future that is dropped half-way (which
//! is what a timeout does) leaves the session out of step with the server, so an
//! `Inbound` whose command timed out or whose connection failed is *poisoned*:
//! every later call returns [`ImapError::Poisoned`] at once. Throw it away and
//! [`Inbound::connect`] again; an error's [`ImapError::kind`] says whether that is
//! worth trying.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::future::Future;
use std::time::Duration;

use async_imap::error::Error as ProtocolError;
use async_imap::extensions::idle::IdleResponse;
use async_imap::imap_proto::{MailboxDatum, Response};
use async_imap::types::UnsolicitedResponse;
use futures::StreamExt;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use tokio_rustls::rustls::pki_types::ServerName;

use crate::config::{ImapConfig, Tls};

/// TCP connect, TLS handshake and server greeting, together.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// An IMAP server greets at once; silence after the TCP connect is almost
/// always a TLS-only port spoken to in plain text, which would otherwise sit
/// out the whole connect timeout before saying so.
const GREETING_TIMEOUT: Duration = Duration::from_secs(8);
/// One command, or one response line of a long FETCH: a large backlog may take
/// longer than this in total, but the server must never go quiet for this long.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(60);
/// RFC 2177 lets a server drop an idle client after 30 minutes, so IDLE is
/// re-issued well before that.
const IDLE_MAX: Duration = Duration::from_secs(25 * 60);
/// How often [`Inbound::wait`] polls with NOOP when the server has no IDLE.
const POLL_FLOOR: Duration = Duration::from_secs(1);

/// What the caller should do about an [`ImapError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The connection dropped or timed out: reconnect later and try again.
    Retry,
    /// Retrying will not help until someone fixes the configuration or the account
    /// (bad login, missing mailbox, untrusted certificate).
    Operator,
}

#[derive(Debug, thiserror::Error)]
pub enum ImapError {
    #[error(
        "cannot connect to the IMAP server at {address} ({source}): check [imap] host and port, and that the server is running"
    )]
    Connect {
        address: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{}", super::tls::handshake_advice("imap", "IMAP", 993, .host, .error))]
    Handshake {
        /// `host:port`.
        host: String,
        // Said in words above, not as a cause.
        error: std::io::Error,
    },
    /// Says which key of `[imap]` is at fault.
    #[error("{0}")]
    TlsSetup(String),
    #[error(
        "the IMAP server refused the login as {user} ({}): check [imap] user and [imap] password (or password_file)",
        server_words(.error)
    )]
    Login {
        user: String,
        // Said in words above, not as a cause.
        error: ProtocolError,
    },
    #[error(
        "the IMAP server cannot open the mailbox {mailbox} ({}): check [imap] mailbox",
        server_words(.error)
    )]
    Select {
        mailbox: String,
        // Said in words above, not as a cause.
        error: ProtocolError,
    },
    #[error("imap mailbox {mailbox} has no uidvalidity")]
    NoUidValidity { mailbox: String },
    #[error("{}", timeout_words(.command, *.seconds))]
    Timeout { command: &'static str, seconds: u64 },
    #[error("imap {command} failed: {source}")]
    Command {
        command: &'static str,
        #[source]
        source: ProtocolError,
    },
    #[error("imap server closed the connection during {command}")]
    Closed { command: &'static str },
    #[error("imap server sent a bad fetch response for uid {uid}: {reason}")]
    BadFetch { uid: u32, reason: &'static str },
    #[error("imap uid {uid} was listed by uid search but not returned by uid fetch")]
    Missing { uid: u32 },
    #[error("imap session is unusable after an earlier error: reconnect")]
    Poisoned,
}

impl ImapError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            ImapError::Connect { .. }
            | ImapError::Timeout { .. }
            | ImapError::Closed { .. }
            | ImapError::Missing { .. }
            | ImapError::Poisoned => ErrorKind::Retry,
            // rustls reports a certificate it does not trust as InvalidData; anything
            // else during the handshake is the network's fault.
            ImapError::Handshake { error: source, .. } => {
                if source.kind() == std::io::ErrorKind::InvalidData {
                    ErrorKind::Operator
                } else {
                    ErrorKind::Retry
                }
            }
            // A date the server formats in a way we cannot read will look the same
            // next time.
            ImapError::TlsSetup(_)
            | ImapError::NoUidValidity { .. }
            | ImapError::BadFetch { .. } => ErrorKind::Operator,
            ImapError::Login { error: source, .. } | ImapError::Select { error: source, .. } => {
                if is_network(source) || is_unavailable(source) {
                    ErrorKind::Retry
                } else {
                    ErrorKind::Operator
                }
            }
            ImapError::Command { source, .. } => match source {
                // BAD means we sent something the server does not understand, and a
                // response we cannot parse will not parse better next time.
                ProtocolError::Bad(_) | ProtocolError::Parse(_) | ProtocolError::Validate(_) => {
                    ErrorKind::Operator
                }
                _ => ErrorKind::Retry,
            },
        }
    }

    /// Whether the session may still be used after this error.
    fn poisons(&self) -> bool {
        match self {
            ImapError::Timeout { .. } | ImapError::Closed { .. } | ImapError::Poisoned => true,
            ImapError::Command { source, .. } => is_network(source),
            _ => false,
        }
    }
}

/// What the server said, without the protocol library's wrapping (`code:
/// None, info: Some("...")`).
fn server_words(error: &ProtocolError) -> String {
    let text = error.to_string();
    match text.split_once("info: Some(\"") {
        Some((_, info)) => info.trim_end_matches(")").trim_end_matches('"').to_owned(),
        None => text,
    }
}

/// A timeout, and what a silent server usually means.
fn timeout_words(command: &str, seconds: u64) -> String {
    if command == "connect" {
        format!(
            "the IMAP server said nothing within {seconds}s of the connection: check [imap] host and port; a TLS port (993) needs [imap] tls = \"tls\""
        )
    } else {
        format!("the IMAP server did not answer {command} within {seconds}s")
    }
}

fn is_network(error: &ProtocolError) -> bool {
    matches!(error, ProtocolError::Io(_) | ProtocolError::ConnectionLost)
}

/// RFC 5530 `[UNAVAILABLE]`: the server's back end is down for now.
fn is_unavailable(error: &ProtocolError) -> bool {
    matches!(error, ProtocolError::No(text) if text.contains("UNAVAILABLE"))
}

/// One message as the server holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    pub uid: u32,
    /// INTERNALDATE: when the server received the message, the game's clock.
    pub internal_date: jiff::Timestamp,
    pub raw: Vec<u8>,
}

/// Why [`Inbound::wait`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wake {
    /// The server announced a new message (EXISTS or RECENT).
    NewMail,
    /// The wait ran out without news; the caller re-checks anyway.
    Timeout,
}

/// Plain TCP and TLS streams behind one type, so one `Session` type covers all
/// three `tls` settings.
trait Transport: AsyncRead + AsyncWrite + Unpin + Send + fmt::Debug {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send + fmt::Debug> Transport for T {}

type Session = async_imap::Session<Box<dyn Transport>>;

/// A command that failed; the server hanging up (before its response or in the
/// middle of it, or before the command could be written) is said so.
fn failed(command: &'static str, source: ProtocolError) -> ImapError {
    match &source {
        ProtocolError::ConnectionLost => ImapError::Closed { command },
        ProtocolError::Io(error)
            if matches!(
                error.kind(),
                std::io::ErrorKind::UnexpectedEof
                    | std::io::ErrorKind::BrokenPipe
                    | std::io::ErrorKind::ConnectionReset
                    | std::io::ErrorKind::ConnectionAborted
            ) =>
        {
            ImapError::Closed { command }
        }
        _ => ImapError::Command { command, source },
    }
}

/// Runs one network step under [`COMMAND_TIMEOUT`].
async fn timed<T>(
    command: &'static str,
    step: impl Future<Output = Result<T, ProtocolError>>,
) -> Result<T, ImapError> {
    match tokio::time::timeout(COMMAND_TIMEOUT, step).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(source)) => Err(failed(command, source)),
        Err(_elapsed) => Err(ImapError::Timeout {
            command,
            seconds: COMMAND_TIMEOUT.as_secs(),
        }),
    }
}

/// A logged-in session with no mailbox selected: what tests and the benchmark
/// use to create, delete and fill mailboxes before the bot selects one.
pub struct Account {
    session: Session,
    supports_idle: bool,
    poll: Duration,
    poisoned: bool,
}

impl fmt::Debug for Account {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Account")
            .field("supports_idle", &self.supports_idle)
            .field("poisoned", &self.poisoned)
            .finish_non_exhaustive()
    }
}

/// Connects and logs in without selecting a mailbox (see [`Account`]).
pub async fn connect_no_select(cfg: &ImapConfig, password: &str) -> Result<Account, ImapError> {
    Account::connect(cfg, password).await
}

impl Account {
    /// Connects (plain, STARTTLS or TLS per `cfg.tls`) and logs in.
    pub async fn connect(cfg: &ImapConfig, password: &str) -> Result<Account, ImapError> {
        let client = match tokio::time::timeout(CONNECT_TIMEOUT, open(cfg)).await {
            Ok(client) => client?,
            Err(_elapsed) => {
                return Err(ImapError::Timeout {
                    command: "connect",
                    seconds: CONNECT_TIMEOUT.as_secs(),
                });
            }
        };
        let mut session =
            match tokio::time::timeout(COMMAND_TIMEOUT, client.login(&cfg.user, password)).await {
                Ok(Ok(session)) => session,
                Ok(Err((source, _client))) => {
                    return Err(ImapError::Login {
                        user: cfg.user.clone(),
                        error: source,
                    });
                }
                Err(_elapsed) => {
                    return Err(ImapError::Timeout {
                        command: "login",
                        seconds: COMMAND_TIMEOUT.as_secs(),
                    });
                }
            };
        let capabilities = timed("capability", session.capabilities()).await?;
        Ok(Account {
            session,
            supports_idle: capabilities.has_str("IDLE"),
            poll: Duration::from_secs(cfg.poll_seconds).max(POLL_FLOOR),
            poisoned: false,
        })
    }

    /// Selects `mailbox`, turning this account into an [`Inbound`]. A mailbox that
    /// does not exist is an [`ErrorKind::Operator`] error.
    pub async fn select(mut self, mailbox: &str) -> Result<Inbound, ImapError> {
        self.check()?;
        let selected =
            match tokio::time::timeout(COMMAND_TIMEOUT, self.session.select(mailbox)).await {
                Ok(Ok(selected)) => selected,
                Ok(Err(source)) => {
                    return Err(ImapError::Select {
                        mailbox: mailbox.to_owned(),
                        error: source,
                    });
                }
                Err(_elapsed) => {
                    return Err(ImapError::Timeout {
                        command: "select",
                        seconds: COMMAND_TIMEOUT.as_secs(),
                    });
                }
            };
        let uidvalidity = selected
            .uid_validity
            .ok_or_else(|| ImapError::NoUidValidity {
                mailbox: mailbox.to_owned(),
            })?;
        Ok(Inbound {
            account: self,
            uidvalidity,
        })
    }

    /// Test and benchmark helper: CREATE a mailbox.
    pub async fn create_mailbox(&mut self, name: &str) -> Result<(), ImapError> {
        self.check()?;
        let result = timed("create", self.session.create(name)).await;
        self.note(result)
    }

    /// Test and benchmark helper: DELETE a mailbox. Dovecot lets a session delete
    /// a mailbox another session has selected, and then hangs up on that one
    /// (`BYE Selected mailbox was deleted`): its next call fails with a
    /// [`ErrorKind::Retry`] error, and reconnecting shows the new UIDVALIDITY.
    pub async fn delete_mailbox(&mut self, name: &str) -> Result<(), ImapError> {
        self.check()?;
        let result = timed("delete", self.session.delete(name)).await;
        self.note(result)
    }

    /// Test and benchmark helper: APPEND a message, optionally with a chosen
    /// INTERNALDATE (second precision; the server stores it as given).
    pub async fn append(
        &mut self,
        mailbox: &str,
        raw: &[u8],
        internal_date: Option<jiff::Timestamp>,
    ) -> Result<(), ImapError> {
        self.check()?;
        let date =
            internal_date.map(|date| date.strftime("\"%d-%b-%Y %H:%M:%S +0000\"").to_string());
        let result = timed(
            "append",
            self.session.append(mailbox, None, date.as_deref(), raw),
        )
        .await;
        self.note(result)
    }

    /// LOGOUT, best effort: the connection is closed either way.
    pub async fn logout(mut self) {
        if !self.poisoned {
            let _ = tokio::time::timeout(COMMAND_TIMEOUT, self.session.logout()).await;
        }
    }

    fn check(&self) -> Result<(), ImapError> {
        if self.poisoned {
            Err(ImapError::Poisoned)
        } else {
            Ok(())
        }
    }

    /// Poisons the session if `result` says it is out of step with the server.
    fn note<T>(&mut self, result: Result<T, ImapError>) -> Result<T, ImapError> {
        if let Err(error) = &result
            && error.poisons()
        {
            self.poisoned = true;
        }
        result
    }

    /// Forgets EXISTS/RECENT news queued by earlier commands, so that only news
    /// that arrives from now on counts.
    fn drain_unsolicited(&mut self) -> bool {
        let mut new_mail = false;
        while let Ok(response) = self.session.unsolicited_responses.try_recv() {
            if matches!(
                response,
                UnsolicitedResponse::Exists(_) | UnsolicitedResponse::Recent(_)
            ) {
                new_mail = true;
            }
        }
        new_mail
    }
}

/// TCP connect, optional TLS, and the server greeting.
async fn open(cfg: &ImapConfig) -> Result<async_imap::Client<Box<dyn Transport>>, ImapError> {
    let address = format!("{}:{}", cfg.host, cfg.port);
    let tcp = TcpStream::connect((cfg.host.as_str(), cfg.port))
        .await
        .map_err(|source| ImapError::Connect {
            address: address.clone(),
            source,
        })?;
    // Nagle's delay would hold back each short command line.
    let _ = tcp.set_nodelay(true);
    match cfg.tls {
        Tls::None => greet(Box::new(tcp)).await,
        Tls::Tls => {
            let tls = handshake(cfg, tcp).await?;
            greet(Box::new(tls)).await
        }
        Tls::Starttls => {
            let mut client = greet(Box::new(tcp)).await?;
            client
                .run_command_and_check_ok("STARTTLS", None)
                .await
                .map_err(|source| ImapError::Command {
                    command: "starttls",
                    source,
                })?;
            // Invariant: after the tagged OK the server sends nothing until the
            // handshake, so no buffered bytes are lost by taking the stream back.
            let plain = client.into_inner();
            let tls = handshake(cfg, plain).await?;
            // No second greeting after STARTTLS (RFC 3501 6.2.1).
            Ok(async_imap::Client::new(Box::new(tls) as Box<dyn Transport>))
        }
    }
}

async fn greet(
    stream: Box<dyn Transport>,
) -> Result<async_imap::Client<Box<dyn Transport>>, ImapError> {
    let mut client = async_imap::Client::new(stream);
    let Ok(greeting) = tokio::time::timeout(GREETING_TIMEOUT, client.read_response()).await else {
        return Err(ImapError::Timeout {
            command: "connect",
            seconds: GREETING_TIMEOUT.as_secs(),
        });
    };
    match greeting {
        Ok(Some(_greeting)) => Ok(client),
        Ok(None) => Err(ImapError::Closed {
            command: "greeting",
        }),
        Err(source) => Err(ImapError::Command {
            command: "greeting",
            source: source.into(),
        }),
    }
}

async fn handshake<S: AsyncRead + AsyncWrite + Unpin>(
    cfg: &ImapConfig,
    stream: S,
) -> Result<tokio_rustls::client::TlsStream<S>, ImapError> {
    let connector = super::tls::connector(cfg.ca_file.as_deref())
        .map_err(|error| ImapError::TlsSetup(format!("[imap] ca_file: {error}")))?;
    let server_name = ServerName::try_from(cfg.host.clone()).map_err(|_| {
        ImapError::TlsSetup(format!(
            "[imap] host = {:?} is not a valid TLS server name: write the server's name or IP address",
            cfg.host
        ))
    })?;
    connector
        .connect(server_name, stream)
        .await
        .map_err(|source| ImapError::Handshake {
            host: format!("{}:{}", cfg.host, cfg.port),
            error: source,
        })
}

/// The bot's inbox: one logged-in session with `cfg.mailbox` selected.
#[derive(Debug)]
pub struct Inbound {
    account: Account,
    uidvalidity: u32,
}

impl Inbound {
    /// Connect (plain, STARTTLS or TLS per `cfg.tls`, trusting the webpki roots
    /// plus `cfg.ca_file` if set), LOGIN, SELECT `cfg.mailbox`.
    pub async fn connect(cfg: &ImapConfig, password: &str) -> Result<Inbound, ImapError> {
        Account::connect(cfg, password)
            .await?
            .select(&cfg.mailbox)
            .await
    }

    /// UIDVALIDITY of the selected mailbox: when it changes, every stored UID
    /// means nothing any more.
    pub fn uidvalidity(&self) -> u32 {
        self.uidvalidity
    }

    pub fn supports_idle(&self) -> bool {
        self.account.supports_idle
    }

    /// Makes [`Inbound::wait`] poll with NOOP even if the server has IDLE: for
    /// servers whose IDLE misbehaves, and for testing the polling path.
    pub fn disable_idle(&mut self) {
        self.account.supports_idle = false;
    }

    /// Every message with UID > `last_uid`, in UID order: UID, INTERNALDATE and
    /// the full raw bytes (`BODY.PEEK[]`, so nothing is marked read).
    ///
    /// The UIDs are listed with UID SEARCH first and then fetched by exact UID,
    /// and a listed UID that the fetch does not return is an error: async-imap
    /// ends a FETCH stream silently both on a tagged NO and on a clean EOF, so
    /// without this a message could be skipped unnoticed.
    pub async fn fetch_after(&mut self, last_uid: u32) -> Result<Vec<Fetched>, ImapError> {
        let wanted = self.uids_after(last_uid).await?;
        if wanted.is_empty() {
            return Ok(Vec::new());
        }
        let result = self.fetch_uids(&wanted).await;
        self.account.note(result)
    }

    /// The first `at_most` messages with UID > `last_uid`, as [`Inbound::fetch_after`]
    /// gives them: a backlog is fetched a batch at a time, never whole.
    pub async fn fetch_after_at_most(
        &mut self,
        last_uid: u32,
        at_most: usize,
    ) -> Result<Vec<Fetched>, ImapError> {
        let wanted: BTreeSet<u32> = self
            .uids_after(last_uid)
            .await?
            .into_iter()
            .take(at_most.max(1))
            .collect();
        if wanted.is_empty() {
            return Ok(Vec::new());
        }
        let result = self.fetch_uids(&wanted).await;
        self.account.note(result)
    }

    async fn fetch_uids(&mut self, wanted: &BTreeSet<u32>) -> Result<Vec<Fetched>, ImapError> {
        let session = &mut self.account.session;
        let mut stream = timed(
            "uid fetch",
            session.uid_fetch(uid_set(wanted), "(UID INTERNALDATE BODY.PEEK[])"),
        )
        .await?;
        let mut found = BTreeMap::new();
        let mut first_error = None;
        // Drain the stream to the tagged response, whatever it holds, so the next
        // command starts in step with the server: a bad message is remembered,
        // not returned at once.
        loop {
            let next = match tokio::time::timeout(COMMAND_TIMEOUT, stream.next()).await {
                Ok(next) => next,
                Err(_elapsed) => {
                    return Err(ImapError::Timeout {
                        command: "uid fetch",
                        seconds: COMMAND_TIMEOUT.as_secs(),
                    });
                }
            };
            let fetch = match next {
                None => break,
                Some(Ok(fetch)) => fetch,
                Some(Err(source)) => return Err(failed("uid fetch", source)),
            };
            // Unsolicited FETCH responses (flag changes made by another client)
            // come on the same stream and carry no body: skip them, along with
            // anything we did not ask for.
            let Some(uid) = fetch.uid.filter(|uid| wanted.contains(uid)) else {
                continue;
            };
            let Some(body) = fetch.body() else {
                continue;
            };
            let internal_date = match fetch.internal_date() {
                None => Err("no readable internaldate"),
                Some(date) => jiff::Timestamp::from_second(date.timestamp())
                    .map_err(|_| "internaldate out of range"),
            };
            let internal_date = match internal_date {
                Ok(internal_date) => internal_date,
                Err(reason) => {
                    first_error.get_or_insert(ImapError::BadFetch { uid, reason });
                    continue;
                }
            };
            found.insert(
                uid,
                Fetched {
                    uid,
                    internal_date,
                    raw: body.to_vec(),
                },
            );
        }
        if let Some(error) = first_error {
            return Err(error);
        }
        if let Some(&missing) = wanted.iter().find(|uid| !found.contains_key(uid)) {
            // The stream ends alike on the server's NO and on the server hanging
            // up between two responses: one NOOP tells which. (Not `noop()`,
            // which takes the end of the stream for its OK.)
            drop(stream);
            return Err(
                match timed("noop", session.run_command_and_check_ok("NOOP")).await {
                    Ok(()) => ImapError::Missing { uid: missing },
                    Err(ImapError::Closed { .. }) => ImapError::Closed {
                        command: "uid fetch",
                    },
                    Err(other) => other,
                },
            );
        }
        Ok(found.into_values().collect())
    }

    /// Flags the messages `\Seen`: the acknowledgement, sent once they are stored.
    pub async fn mark_seen(&mut self, uids: &[u32]) -> Result<(), ImapError> {
        self.account.check()?;
        if uids.is_empty() {
            return Ok(());
        }
        let uids: BTreeSet<u32> = uids.iter().copied().collect();
        let result = self.store_seen(uid_set(&uids)).await;
        self.account.note(result)
    }

    /// Flags every message up to `last_uid` `\Seen`: what was stored before a
    /// connection was cut between storing and flagging is acknowledged on the
    /// next connection.
    pub async fn mark_seen_through(&mut self, last_uid: u32) -> Result<(), ImapError> {
        self.account.check()?;
        if last_uid == 0 {
            return Ok(());
        }
        let result = self.store_seen(format!("1:{last_uid}")).await;
        self.account.note(result)
    }

    async fn store_seen(&mut self, uid_set: String) -> Result<(), ImapError> {
        let session = &mut self.account.session;
        let mut stream = timed(
            "uid store",
            session.uid_store(uid_set, "+FLAGS.SILENT (\\Seen)"),
        )
        .await?;
        loop {
            match tokio::time::timeout(COMMAND_TIMEOUT, stream.next()).await {
                Ok(None) => return Ok(()),
                Ok(Some(Ok(_unsolicited))) => {}
                Ok(Some(Err(source))) => return Err(failed("uid store", source)),
                Err(_elapsed) => {
                    return Err(ImapError::Timeout {
                        command: "uid store",
                        seconds: COMMAND_TIMEOUT.as_secs(),
                    });
                }
            }
        }
    }

    /// Is there any message with UID > `last_uid`? The re-check before idling.
    pub async fn has_after(&mut self, last_uid: u32) -> Result<bool, ImapError> {
        Ok(!self.uids_after(last_uid).await?.is_empty())
    }

    /// UID SEARCH for UIDs above `last_uid`. `n:*` always matches the highest
    /// UID even when it is below `n` (`*` is "the largest UID in use"), hence
    /// the filter.
    async fn uids_after(&mut self, last_uid: u32) -> Result<BTreeSet<u32>, ImapError> {
        self.account.check()?;
        let Some(first) = last_uid.checked_add(1) else {
            return Ok(BTreeSet::new());
        };
        let session = &mut self.account.session;
        let result = timed("uid search", session.uid_search(format!("UID {first}:*"))).await;
        let found = self.account.note(result)?;
        Ok(found.into_iter().filter(|&uid| uid > last_uid).collect())
    }

    /// Waits until the server reports new mail or `timeout` passes, then hands
    /// the session back. Uses IDLE (capped at 25 minutes, after which it returns
    /// [`Wake::Timeout`] so the caller re-checks and idles again) when the
    /// server has it; otherwise NOOP every `poll_seconds`.
    ///
    /// A [`Wake::NewMail`] is a hint, not a promise: call
    /// [`Inbound::fetch_after`] either way.
    pub async fn wait(mut self, timeout: Duration) -> Result<(Inbound, Wake), ImapError> {
        self.account.check()?;
        // News that came with earlier commands is stale: the caller's has_after
        // re-check already covered it.
        self.account.drain_unsolicited();
        if self.account.supports_idle {
            self.idle(timeout.min(IDLE_MAX)).await
        } else {
            self.poll(timeout).await
        }
    }

    async fn idle(self, timeout: Duration) -> Result<(Inbound, Wake), ImapError> {
        let Inbound {
            account,
            uidvalidity,
        } = self;
        let Account {
            session,
            supports_idle,
            poll,
            poisoned: _,
        } = account;
        let mut handle = session.idle();
        timed("idle", handle.init()).await?;
        let deadline = tokio::time::Instant::now() + timeout;
        let wake = loop {
            let remaining = deadline.saturating_duration_since(tokio::time::Instant::now());
            if remaining.is_zero() {
                break Wake::Timeout;
            }
            // async-imap's own IDLE timeout restarts on every keep-alive (Dovecot
            // sends `* OK Still here` every two minutes), so it alone would never
            // fire; the outer timeout bounds the total. Dropping the wait future
            // between responses is safe: the stream keeps partial input buffered.
            // Invariant: `_interrupt` lives until the end of this turn, since
            // dropping the StopSource ends the wait at once.
            let (waiting, _interrupt) = handle.wait_with_timeout(remaining);
            match tokio::time::timeout(remaining, waiting).await {
                Err(_) | Ok(Ok(IdleResponse::Timeout)) => break Wake::Timeout,
                // The stream ended without our interrupt: the server hung up.
                Ok(Ok(IdleResponse::ManualInterrupt)) => {
                    return Err(ImapError::Closed { command: "idle" });
                }
                Ok(Ok(IdleResponse::NewData(response))) => {
                    // EXPUNGE and flag changes are not new mail: keep idling.
                    if matches!(
                        response.parsed(),
                        Response::MailboxData(MailboxDatum::Exists(_) | MailboxDatum::Recent(_))
                    ) {
                        break Wake::NewMail;
                    }
                }
                Ok(Err(source)) => return Err(failed("idle", source)),
            }
        };
        let session = timed("done", handle.done()).await?;
        let inbound = Inbound {
            account: Account {
                session,
                supports_idle,
                poll,
                poisoned: false,
            },
            uidvalidity,
        };
        Ok((inbound, wake))
    }

    async fn poll(mut self, timeout: Duration) -> Result<(Inbound, Wake), ImapError> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let remaining = deadline.saturating_duration_since(tokio::time::Instant::now());
            if remaining.is_zero() {
                return Ok((self, Wake::Timeout));
            }
            tokio::time::sleep(remaining.min(self.account.poll)).await;
            let result = timed("noop", self.account.session.noop()).await;
            self.account.note(result)?;
            if self.account.drain_unsolicited() {
                return Ok((self, Wake::NewMail));
            }
        }
    }

    /// Test and benchmark helper: see [`Account::append`].
    pub async fn append(
        &mut self,
        mailbox: &str,
        raw: &[u8],
        internal_date: Option<jiff::Timestamp>,
    ) -> Result<(), ImapError> {
        self.account.append(mailbox, raw, internal_date).await
    }

    /// Test and benchmark helper: see [`Account::create_mailbox`].
    pub async fn create_mailbox(&mut self, name: &str) -> Result<(), ImapError> {
        self.account.create_mailbox(name).await
    }

    /// Test and benchmark helper: see [`Account::delete_mailbox`].
    pub async fn delete_mailbox(&mut self, name: &str) -> Result<(), ImapError> {
        self.account.delete_mailbox(name).await
    }

    /// LOGOUT, best effort.
    pub async fn logout(self) {
        self.account.logout().await;
    }
}

/// Test and benchmark helper: every message of `cfg.mailbox`, on a session of
/// its own.
pub async fn read_mailbox(cfg: &ImapConfig, password: &str) -> Result<Vec<Fetched>, ImapError> {
    let mut inbound = Inbound::connect(cfg, password).await?;
    let messages = inbound.fetch_after(0).await;
    inbound.logout().await;
    messages
}

/// `1:3,7,9:10`: a compact IMAP sequence set for sorted UIDs.
fn uid_set(uids: &BTreeSet<u32>) -> String {
    let mut set = String::new();
    let mut uids = uids.iter().copied().peekable();
    while let Some(start) = uids.next() {
        let mut end = start;
        while let Some(&next) = uids.peek() {
            if Some(next) != end.checked_add(1) {
                break;
            }
            end = next;
            uids.next();
        }
        if !set.is_empty() {
            set.push(',');
        }
        if start == end {
            set.push_str(&start.to_string());
        } else {
            set.push_str(&format!("{start}:{end}"));
        }
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uid_set_compresses_runs() {
        let uids: BTreeSet<u32> = [1, 2, 3, 7, 9, 10, u32::MAX].into_iter().collect();
        assert_eq!(uid_set(&uids), "1:3,7,9:10,4294967295");
        assert_eq!(uid_set(&BTreeSet::new()), "");
    }

    #[test]
    fn timeouts_and_closed_connections_poison_the_session() {
        let timeout = ImapError::Timeout {
            command: "noop",
            seconds: 1,
        };
        assert!(timeout.poisons());
        assert_eq!(timeout.kind(), ErrorKind::Retry);
        let refused = ImapError::Login {
            user: "bot".into(),
            error: ProtocolError::No("[AUTHENTICATIONFAILED] Authentication failed.".into()),
        };
        assert!(!refused.poisons());
        assert_eq!(refused.kind(), ErrorKind::Operator);
    }
}
