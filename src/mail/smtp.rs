//! Outbound SMTP adapter, the last step of the pipeline: it hands one rendered
//! message (headers included) and its envelope to the configured server with
//! lettre. It never touches SQLite, never parses or rewrites MIME, and never
//! decides whether to retry: the outbox does that from [`SmtpError::kind`].

use std::time::Duration;

use lettre::address::{Address, Envelope};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls as LettreTls, TlsParameters};
use lettre::transport::smtp::{AsyncSmtpTransport, PoolConfig};
use lettre::{AsyncTransport, Tokio1Executor};

use crate::config::{SmtpConfig, Tls};

/// lettre's own timeout covers only the TCP connect.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// The whole conversation for one message, since lettre sets no read timeout.
const SEND_TIMEOUT: Duration = Duration::from_secs(120);

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
    #[error("smtp setup: {0}")]
    Setup(String),
    #[error("{address:?} is not a valid envelope address: {reason}")]
    Address { address: String, reason: String },
    #[error("smtp message has no recipient")]
    NoRecipient,
    #[error("smtp send timed out after {seconds}s")]
    Timeout { seconds: u64 },
    #[error("smtp send failed: {0}")]
    Send(#[source] lettre::transport::smtp::Error),
}

impl SmtpError {
    pub fn kind(&self) -> ErrorKind {
        match self {
            SmtpError::Setup(_) => ErrorKind::Operator,
            SmtpError::Address { .. } | SmtpError::NoRecipient => ErrorKind::Permanent,
            SmtpError::Timeout { .. } => ErrorKind::Retry,
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

/// The bot's way out: a lettre transport built once from `[smtp]`.
pub struct Outbound {
    transport: AsyncSmtpTransport<Tokio1Executor>,
}

impl std::fmt::Debug for Outbound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outbound").finish_non_exhaustive()
    }
}

impl Outbound {
    /// Builds the transport: plain, STARTTLS (required, never opportunistic) or
    /// implicit TLS per `cfg.tls`, trusting the webpki roots plus `cfg.ca_file`;
    /// AUTH only if `cfg.user` is set. Nothing is sent until [`Outbound::send`].
    ///
    /// Must run inside a Tokio runtime, and the `Outbound` must be dropped inside
    /// one: lettre's connection pool spawns a task on both.
    pub fn new(cfg: &SmtpConfig, password: Option<String>) -> Result<Outbound, SmtpError> {
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(&cfg.host)
            .port(cfg.port)
            .timeout(Some(CONNECT_TIMEOUT))
            // A connection is never reused: a send cut off by our timeout leaves its
            // connection mid-conversation, and lettre's pool would hand it out again.
            .pool_config(PoolConfig::new().max_size(0));
        match cfg.tls {
            Tls::None => {}
            Tls::Starttls => builder = builder.tls(LettreTls::Required(tls_parameters(cfg)?)),
            Tls::Tls => builder = builder.tls(LettreTls::Wrapper(tls_parameters(cfg)?)),
        }
        if let Some(user) = &cfg.user {
            let password = password.ok_or_else(|| {
                SmtpError::Setup(format!("smtp user {user} is set but no password is"))
            })?;
            builder = builder.credentials(Credentials::new(user.clone(), password));
        }
        Ok(Outbound {
            transport: builder.build(),
        })
    }

    /// Sends pre-rendered bytes (headers included) with an explicit envelope. An
    /// empty `envelope_from` is the null reverse-path `<>`. The message is sent
    /// as given: it should use CRLF line ends.
    pub async fn send(
        &self,
        envelope_from: &str,
        recipients: &[String],
        raw: &[u8],
    ) -> Result<(), SmtpError> {
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
        match tokio::time::timeout(SEND_TIMEOUT, self.transport.send_raw(&envelope, raw)).await {
            Ok(Ok(_response)) => Ok(()),
            Ok(Err(error)) => Err(SmtpError::Send(error)),
            Err(_elapsed) => Err(SmtpError::Timeout {
                seconds: SEND_TIMEOUT.as_secs(),
            }),
        }
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
            SmtpError::Setup(format!("cannot read ca file {}: {error}", path.display()))
        })?;
        let certificate = Certificate::from_pem(&pem).map_err(|error| {
            SmtpError::Setup(format!("bad ca file {}: {error}", path.display()))
        })?;
        builder = builder.add_root_certificate(certificate);
    }
    builder
        .build_rustls()
        .map_err(|error| SmtpError::Setup(format!("tls for {}: {error}", cfg.host)))
}
