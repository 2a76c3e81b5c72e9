//! The one way the bot's connections trust a server: the webpki roots plus the
//! operator's own CA file, with ring as the only crypto provider (two providers
//! make rustls panic at run time).

use std::path::Path;
use std::sync::Arc;

use tokio_rustls::TlsConnector;
use tokio_rustls::rustls;

/// Trusts the webpki roots plus every certificate in `ca_file`. The error is a
/// sentence for the operator.
pub fn connector(ca_file: Option<&Path>) -> Result<TlsConnector, String> {
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    if let Some(path) = ca_file {
        let pem = std::fs::read(path)
            .map_err(|error| format!("cannot read ca file {}: {error}", path.display()))?;
        let mut added = 0;
        for cert in rustls_pemfile::certs(&mut pem.as_slice()) {
            let cert = cert.map_err(|error| format!("bad pem in {}: {error}", path.display()))?;
            roots
                .add(cert)
                .map_err(|error| format!("bad certificate in {}: {error}", path.display()))?;
            added += 1;
        }
        // An empty file would silently fall back to the public roots alone.
        if added == 0 {
            return Err(format!("no certificate in ca file {}", path.display()));
        }
    }
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(|error| error.to_string())?
    .with_root_certificates(roots)
    .with_no_client_auth();
    Ok(TlsConnector::from(Arc::new(config)))
}

/// A failed TLS handshake in an operator's words: a server that answers in
/// plain text (TLS asked of a plain port), a certificate not trusted, or the
/// network. `section` is the config's section, `port` its usual TLS port.
pub fn handshake_advice(
    section: &str,
    protocol: &str,
    port: u16,
    address: &str,
    error: &std::io::Error,
) -> String {
    let text = error.to_string();
    if text.contains("InvalidContentType") || text.contains("corrupt message") {
        format!(
            "the {protocol} server at {address} does not speak TLS there (it answered in plain text): \
             set [{section}] tls = \"starttls\" (or \"none\") for this port, or [{section}] port to its TLS port (usually {port})"
        )
    } else if text.contains("certificate") || text.contains("Certificate") {
        format!(
            "the {protocol} server at {address} shows a certificate that is not trusted ({text}): \
             set [{section}] ca_file to the CA that signed it, and [{section}] host to the name in it"
        )
    } else {
        format!(
            "the TLS handshake with the {protocol} server at {address} failed ({text}): check [{section}] tls and port"
        )
    }
}
