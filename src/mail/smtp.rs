//! Outbound SMTP adapter, the last step of the pipeline: it hands one rendered
//! message (headers included) and its envelope to the configured server with
//! lettre. It never touches SQLite, never parses or rewrites MIME, and never
//! decides whether to retry: the outbox does that from [`SmtpError::kind`].

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use lettre::address::{Address, Envelope};
use lettre::transport::smtp::authentication::{Credentials, DEFAULT_MECHANISMS};
use lettre::transport::smtp::client::{
    AsyncSmtpConnection, AsyncTokioStream, Certificate, Tls as LettreTls, TlsParameters,
};
use lettre::transport::smtp::commands::{Data, Mail, Rcpt, Rset};
use lettre::transport::smtp::extension::{ClientId, Extension, MailBodyParameter, MailParameter};

use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls::pki_types::ServerName;

use crate::config::{SmtpConfig, Tls};

/// lettre's own timeout covers only the TCP connect.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// The whole conversation for one message, since lettre sets no read timeout.
const SEND_TIMEOUT: Duration = Duration::from_secs(120);
/// A goodbye when the pool closes: not worth waiting long for.
const QUIT_TIMEOUT: Duration = Duration::from_secs(5);
/// An idle connection that does not answer RSET in this long is replaced.
const RSET_TIMEOUT: Duration = Duration::from_secs(10);
/// Servers drop idle clients after some minutes (RFC 5321 asks them to wait at
/// least five): a connection idle for longer than this is not tried again.
const IDLE_LIMIT: Duration = Duration::from_secs(60);
/// Connections kept open between messages: as many as messages are prepared at
/// once. The contents go one at a time, so the envelope of the next message or
/// two is all the overlap there is to win; more sessions open only compete with
/// the one finishing (measured on 2 cores: one message's own latency 18 ms
/// median with 3, 22 ms with 8, the same throughput).
pub const POOL_SIZE: usize = 3;

/// What the outbox should do about an [`SmtpError`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// Connection refused, timeout, 4xx: the same message may go later.
    Retry,
    /// 5xx for this message (a refused recipient, say): it will never go.
    Permanent,
    /// Nothing will go until someone fixes the configuration: bad credentials,
    /// an untrusted certificate, an unreadable CA file.
    Operator,
}

#[derive(Debug, thiserror::Error)]
pub enum SmtpError {
    #[error("[smtp] {0}")]
    Setup(String),
    /// `check --connect`: the envelope of the bot's mail refused.
    #[error("{0}")]
    Refused(String),
    #[error("{address:?} is not a valid envelope address: {reason}")]
    Address { address: String, reason: String },
    #[error("smtp message has no recipient")]
    NoRecipient,
    #[error("the server cannot take this message: {0}")]
    Unsupported(&'static str),
    #[error(
        "the SMTP server did not answer within {seconds}s: check [smtp] host and port; a TLS port (465) needs [smtp] tls = \"tls\""
    )]
    Timeout { seconds: u64 },
    #[error(
        "cannot connect to the SMTP server at {0} ({1}): check [smtp] host and port, and that the server is running"
    )]
    Connect(String, #[source] std::io::Error),
    /// `host:port`, and the handshake's error, said in words.
    #[error("{}", super::tls::handshake_advice("smtp", "SMTP", 465, .0, .1))]
    Handshake(String, std::io::Error),
    #[error("{}", send_words(.0))]
    Send(lettre::transport::smtp::Error),
}

impl SmtpError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            SmtpError::Setup(_) | SmtpError::Refused(_) => ErrorKind::Operator,
            SmtpError::Address { .. } | SmtpError::NoRecipient | SmtpError::Unsupported(_) => {
                ErrorKind::Permanent
            }
            SmtpError::Timeout { .. } | SmtpError::Connect(..) => ErrorKind::Retry,
            // rustls reports a certificate it does not trust as InvalidData:
            // retrying will not make it trusted.
            SmtpError::Handshake(_, error) if error.kind() == std::io::ErrorKind::InvalidData => {
                ErrorKind::Operator
            }
            SmtpError::Handshake(..) => ErrorKind::Retry,
            SmtpError::Send(error) => {
                if error.is_tls() || error.is_client() || is_tls_refusal(error) {
                    return ErrorKind::Operator;
                }
                match error.status() {
                    // 530/534/535/538 are about our credentials (RFC 4954), not the
                    // message: calling them permanent would discard the whole outbox.
                    Some(code) if ["530", "534", "535", "538"].contains(&&*code.to_string()) => {
                        ErrorKind::Operator
                    }
                    _ if error.is_permanent() => ErrorKind::Permanent,
                    // Transient codes, refused connections, dropped connections and
                    // replies we could not read.
                    _ => ErrorKind::Retry,
                }
            }
        }
    }
}

/// A refusal or failure of the SMTP conversation in an operator's words: the
/// server's own reply, and which key of `[smtp]` usually fixes it.
fn send_words(error: &lettre::transport::smtp::Error) -> String {
    let code = error.status().map(|code| code.to_string());
    // lettre's text is "permanent error (535): 5.7.8 Error: authentication failed: ...".
    let said = error.to_string();
    match code.as_deref() {
        Some("530" | "534" | "535" | "538") => format!(
            "the SMTP server refused the login ({said}): check [smtp] user and [smtp] password (or password_file)"
        ),
        _ if error.is_tls() || is_tls_refusal(error) => {
            let mut cause = String::new();
            let mut source = std::error::Error::source(error);
            while let Some(inner) = source {
                cause = inner.to_string();
                source = inner.source();
            }
            let advice = super::tls::handshake_advice(
                "smtp",
                "SMTP",
                465,
                "this address",
                &std::io::Error::other(cause),
            );
            format!("{advice} ({said})")
        }
        Some(_) => format!("the SMTP server refused this message ({said})"),
        None => format!("sending over SMTP failed ({said}): check [smtp] host, port and tls"),
    }
}

/// lettre files a failed certificate check under "connection error", like a
/// refused connection; it shows as a rustls error (an io error of kind
/// InvalidData) down the source chain. Retrying will not make it trusted.
fn is_tls_refusal(error: &lettre::transport::smtp::Error) -> bool {
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if cause.is::<tokio_rustls::rustls::Error>() {
            return true;
        }
        if let Some(io) = cause.downcast_ref::<std::io::Error>()
            && io.kind() == std::io::ErrorKind::InvalidData
        {
            return true;
        }
        source = cause.source();
    }
    false
}

/// The bot's way out, built once from `[smtp]`: a pool of open connections,
/// each reused from one message to the next after an RSET, so a message costs
/// its own commands and not a connection, a greeting and a login. A connection
/// that fails in any way, or that a message timed out on, is never reused: the
/// next message opens a fresh one.
///
/// A message goes in two steps. [`Outbound::prepare`] does everything that
/// commits the server to nothing (connect or RSET, TLS, AUTH, MAIL, RCPT, DATA)
/// and may run for many messages at once; [`Prepared::finish`] sends the content
/// and waits for the acceptance. The caller runs one `finish` at a time and records
/// each acceptance before the next, so a crash can send again at most the one
/// message whose acceptance it had not yet recorded.
pub struct Outbound {
    host: String,
    port: u16,
    tls: LettreTls,
    credentials: Option<Credentials>,
    ca_file: Option<std::path::PathBuf>,
    hello: ClientId,
    idle: Arc<Mutex<Vec<Idle>>>,
}

/// A connection between two messages, and since when.
struct Idle {
    connection: AsyncSmtpConnection,
    since: Instant,
}

impl std::fmt::Debug for Outbound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outbound")
            .field("host", &self.host)
            .field("port", &self.port)
            .finish_non_exhaustive()
    }
}

/// A message whose envelope the server took and whose content it awaits.
pub struct Prepared {
    connection: AsyncSmtpConnection,
    /// Where the connection goes back once the server took the message.
    idle: Arc<Mutex<Vec<Idle>>>,
}

impl Outbound {
    /// Reads the settings: plain, STARTTLS (required, never opportunistic) or
    /// implicit TLS per `cfg.tls`, trusting the webpki roots plus `cfg.ca_file`;
    /// AUTH only if `cfg.user` is set. Nothing is sent until a message is.
    pub fn new(cfg: &SmtpConfig, password: Option<String>) -> Result<Outbound, SmtpError> {
        let tls = match cfg.tls {
            Tls::None => LettreTls::None,
            Tls::Starttls => LettreTls::Required(tls_parameters(cfg)?),
            Tls::Tls => LettreTls::Wrapper(tls_parameters(cfg)?),
        };
        let credentials = match &cfg.user {
            Some(user) => {
                let password = password.ok_or_else(|| {
                    SmtpError::Setup(format!(
                        "user = {user:?} is set but no password: set [smtp] password or password_file"
                    ))
                })?;
                Some(Credentials::new(user.clone(), password))
            }
            None => None,
        };
        Ok(Outbound {
            host: cfg.host.clone(),
            port: cfg.port,
            tls,
            credentials,
            ca_file: cfg.ca_file.clone(),
            hello: ClientId::default(),
            idle: Arc::default(),
        })
    }

    /// Sends pre-rendered bytes (headers included) with an explicit envelope, in
    /// one go. An empty `envelope_from` is the null reverse-path `<>`. The
    /// message is sent as given: it should use CRLF line ends.
    pub async fn send(
        &self,
        envelope_from: &str,
        recipients: &[String],
        raw: &[u8],
    ) -> Result<(), SmtpError> {
        self.prepare(envelope_from, recipients, raw)
            .await?
            .finish(raw)
            .await
    }

    /// Everything before the content: connects, secures, logs in, and gives the
    /// envelope. `raw` is only looked at, to ask for 8BITMIME when it needs it.
    pub async fn prepare(
        &self,
        envelope_from: &str,
        recipients: &[String],
        raw: &[u8],
    ) -> Result<Prepared, SmtpError> {
        let from = if envelope_from.is_empty() {
            None
        } else {
            Some(parse_address(envelope_from)?)
        };
        let to = recipients
            .iter()
            .map(|recipient| parse_address(recipient))
            .collect::<Result<Vec<_>, _>>()?;
        let envelope = Envelope::new(from, to).map_err(|_| SmtpError::NoRecipient)?;
        within(self.envelope(&envelope, raw)).await
    }

    /// lettre writes a message's content and its final dot apart: with Nagle's
    /// algorithm the dot would wait for the server's delayed acknowledgement of
    /// the content, some 40 ms a message, and messages are finished one by one.
    async fn tcp(&self) -> Result<TcpStream, SmtpError> {
        let connect = TcpStream::connect((self.host.as_str(), self.port));
        let tcp = match tokio::time::timeout(CONNECT_TIMEOUT, connect).await {
            Ok(Ok(tcp)) => tcp,
            Ok(Err(error)) => return Err(SmtpError::Connect(self.address(), error)),
            Err(_elapsed) => {
                return Err(SmtpError::Timeout {
                    seconds: CONNECT_TIMEOUT.as_secs(),
                });
            }
        };
        tcp.set_nodelay(true)
            .map_err(|error| SmtpError::Connect(self.address(), error))?;
        Ok(tcp)
    }

    fn address(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }

    /// Implicit TLS: lettre would open this connection itself, without
    /// `TCP_NODELAY`, so the handshake is ours, trusting what IMAP trusts.
    async fn handshake(&self, tcp: TcpStream) -> Result<Secured, SmtpError> {
        let connector = super::tls::connector(self.ca_file.as_deref())
            .map_err(|error| SmtpError::Setup(format!("ca_file: {error}")))?;
        let name = ServerName::try_from(self.host.clone()).map_err(|_| {
            SmtpError::Setup(format!(
                "host = {:?} is not a valid TLS server name: write the server's name or IP address",
                self.host
            ))
        })?;
        match tokio::time::timeout(CONNECT_TIMEOUT, connector.connect(name, tcp)).await {
            Ok(Ok(stream)) => Ok(Secured(stream)),
            Ok(Err(error)) => Err(SmtpError::Handshake(
                format!("{}:{}", self.host, self.port),
                error,
            )),
            Err(_elapsed) => Err(SmtpError::Timeout {
                seconds: CONNECT_TIMEOUT.as_secs(),
            }),
        }
    }

    /// Says goodbye on every idle connection: the end of a pass or of the daemon.
    pub async fn close(&self) {
        let idle = std::mem::take(&mut *lock(&self.idle));
        let goodbyes = idle.into_iter().map(|mut idle| async move {
            let _ = tokio::time::timeout(QUIT_TIMEOUT, idle.connection.quit()).await;
        });
        futures::future::join_all(goodbyes).await;
    }

    /// An idle connection that still answers, or a new one. A server may drop
    /// a connection it finds idle too long: RSET finds out before any of the
    /// message is spoken, and such a connection is simply replaced.
    async fn connection(&self) -> Result<AsyncSmtpConnection, SmtpError> {
        loop {
            let reused = {
                let mut idle = lock(&self.idle);
                idle.retain(|idle| idle.since.elapsed() < IDLE_LIMIT);
                idle.pop()
            };
            let Some(Idle { mut connection, .. }) = reused else {
                return self.connect().await;
            };
            let reset = tokio::time::timeout(RSET_TIMEOUT, connection.command(Rset)).await;
            if matches!(reset, Ok(Ok(_))) {
                return Ok(connection);
            }
        }
    }

    /// Connects, secures and logs in.
    async fn connect(&self) -> Result<AsyncSmtpConnection, SmtpError> {
        let tcp = self.tcp().await?;
        let stream: Box<dyn AsyncTokioStream> = match &self.tls {
            LettreTls::Wrapper(_) => Box::new(self.handshake(tcp).await?),
            _ => Box::new(tcp),
        };
        let mut connection = AsyncSmtpConnection::connect_with_transport(stream, &self.hello)
            .await
            .map_err(SmtpError::Send)?;
        if let LettreTls::Required(parameters) = &self.tls {
            connection
                .starttls(parameters.clone(), &self.hello)
                .await
                .map_err(SmtpError::Send)?;
        }
        if let Some(credentials) = &self.credentials {
            connection
                .auth(DEFAULT_MECHANISMS, credentials)
                .await
                .map_err(SmtpError::Send)?;
        }
        Ok(connection)
    }

    /// Connects, secures and logs in as a message would, then offers the
    /// envelope of a message from `from` to `to` and takes it back (RSET):
    /// nothing is sent. Says what the server is and offers.
    pub async fn check(&self, from: &str, to: &str) -> Result<String, SmtpError> {
        let mut connection = within(self.connect()).await?;
        let info = connection.server_info();
        let mut offers = Vec::new();
        for (extension, name) in [
            (Extension::StartTls, "STARTTLS"),
            (Extension::EightBitMime, "8BITMIME"),
            (Extension::SmtpUtfEight, "SMTPUTF8"),
        ] {
            if info.supports_feature(extension) {
                offers.push(name);
            }
        }
        let server = info.name().to_owned();
        let envelope = Envelope::new(Some(parse_address(from)?), vec![parse_address(to)?])
            .map_err(|_| SmtpError::NoRecipient)?;
        let offered = within(async {
            connection
                .command(Mail::new(envelope.from().cloned(), Vec::new()))
                .await
                .map_err(SmtpError::Send)?;
            for recipient in envelope.to() {
                connection
                    .command(Rcpt::new(recipient.clone(), Vec::new()))
                    .await
                    .map_err(SmtpError::Send)?;
            }
            connection.command(Rset).await.map_err(SmtpError::Send)
        })
        .await;
        let _ = tokio::time::timeout(QUIT_TIMEOUT, connection.quit()).await;
        offered.map_err(|error| match error {
            SmtpError::Send(refusal) => SmtpError::Refused(format!(
                "the SMTP server will not take mail from {from} to {to} ({refusal}): check [bot] address and list, and that [smtp] user may send as the bot"
            )),
            other => other,
        })?;
        Ok(format!(
            "{server} at {}, {}{}; it takes mail from {from} to {to}",
            self.address(),
            match (&self.tls, &self.credentials) {
                (LettreTls::None, None) => "no TLS, no login",
                (LettreTls::None, Some(_)) => "no TLS, logged in",
                (_, None) => "TLS, no login",
                (_, Some(_)) => "TLS, logged in",
            },
            if offers.is_empty() {
                String::new()
            } else {
                format!(" (offers {})", offers.join(", "))
            }
        ))
    }

    async fn envelope(&self, envelope: &Envelope, raw: &[u8]) -> Result<Prepared, SmtpError> {
        let mut connection = self.connection().await?;
        let info = connection.server_info();
        let mut options = Vec::new();
        let addresses = envelope.from().into_iter().chain(envelope.to());
        if addresses.map(|a| a.as_ref()).any(|a: &str| !a.is_ascii()) {
            if !info.supports_feature(Extension::SmtpUtfEight) {
                return Err(SmtpError::Unsupported(
                    "an address is not ASCII and it does not offer SMTPUTF8",
                ));
            }
            options.push(MailParameter::SmtpUtfEight);
        }
        if !raw.is_ascii() {
            if !info.supports_feature(Extension::EightBitMime) {
                return Err(SmtpError::Unsupported(
                    "the message is not ASCII and it does not offer 8BITMIME",
                ));
            }
            options.push(MailParameter::Body(MailBodyParameter::EightBitMime));
        }
        let commands = async {
            connection
                .command(Mail::new(envelope.from().cloned(), options))
                .await?;
            for recipient in envelope.to() {
                connection
                    .command(Rcpt::new(recipient.clone(), Vec::new()))
                    .await?;
            }
            connection.command(Data).await
        };
        commands.await.map_err(SmtpError::Send)?;
        Ok(Prepared {
            connection,
            idle: Arc::clone(&self.idle),
        })
    }
}

impl Prepared {
    /// Sends the content and its final dot. `Ok` means the server has taken the
    /// message (its 250): from here on it is the server's to deliver.
    pub async fn finish(mut self, raw: &[u8]) -> Result<(), SmtpError> {
        within(async { self.connection.message(raw).await.map_err(SmtpError::Send) }).await?;
        let mut idle = lock(&self.idle);
        if idle.len() < POOL_SIZE {
            idle.push(Idle {
                connection: self.connection,
                since: Instant::now(),
            });
        }
        Ok(())
    }
}

/// The pool holds no invariant a panic could break half-way.
fn lock(idle: &Mutex<Vec<Idle>>) -> MutexGuard<'_, Vec<Idle>> {
    idle.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// lettre sets no read timeout: each step as a whole gets [`SEND_TIMEOUT`].
async fn within<T>(step: impl Future<Output = Result<T, SmtpError>>) -> Result<T, SmtpError> {
    match tokio::time::timeout(SEND_TIMEOUT, step).await {
        Ok(result) => result,
        Err(_elapsed) => Err(SmtpError::Timeout {
            seconds: SEND_TIMEOUT.as_secs(),
        }),
    }
}

fn parse_address(address: &str) -> Result<Address, SmtpError> {
    address
        .parse()
        .map_err(|error: lettre::address::AddressError| SmtpError::Address {
            address: address.to_owned(),
            reason: error.to_string(),
        })
}

/// The certificate is checked against `cfg.host` (a name or an IP address).
fn tls_parameters(cfg: &SmtpConfig) -> Result<TlsParameters, SmtpError> {
    let mut builder = TlsParameters::builder(cfg.host.clone());
    if let Some(path) = &cfg.ca_file {
        let pem = std::fs::read(path).map_err(|error| {
            SmtpError::Setup(format!("ca_file: cannot read {}: {error}", path.display()))
        })?;
        let certificate = Certificate::from_pem(&pem).map_err(|error| {
            SmtpError::Setup(format!(
                "ca_file: {} holds no PEM certificate ({error})",
                path.display()
            ))
        })?;
        builder = builder.add_root_certificate(certificate);
    }
    builder.build_rustls().map_err(|error| {
        SmtpError::Setup(format!("tls: cannot set up TLS for {}: {error}", cfg.host))
    })
}

/// An implicit-TLS connection handed to lettre, which takes any stream that
/// says whom it is connected to.
#[derive(Debug)]
struct Secured(TlsStream<TcpStream>);

impl AsyncTokioStream for Secured {
    fn peer_addr(&self) -> std::io::Result<std::net::SocketAddr> {
        self.0.get_ref().0.peer_addr()
    }
}

impl AsyncRead for Secured {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_read(cx, buf)
    }
}

impl AsyncWrite for Secured {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}
