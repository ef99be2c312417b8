//! The reqwest helpers every folder of `remote/` shares: the client builder (no redirects followed, our user
//! agent), size-limited body reads, `Cache-Control` ages, and the one-line reasons for a failed request
//! (the innermost cause, or a TLS hint a user can act on). They live here, below `card/`, `connect/`,
//! `wire/`, `auth/` and `signature/`, so that none of those folders imports another for them.

use std::time::Duration;

use futures::StreamExt;
use reqwest::StatusCode;
use reqwest::header::{self, HeaderMap};

use crate::remote::error::{RemoteError, one_line};

/// The HTTP client every agent call shares: connection timeout only, because SSE streams may legitimately
/// stay idle for minutes (the deadlines of each call are in `wire::WireLimits`).
///
/// It follows no redirect: a JSON-RPC or REST call that is redirected would carry the agent's credential (and a
/// POST body) to wherever the `Location` says. The 3xx reply comes back as it is, and `wire::http` names it.
pub fn http_client(connect_timeout: Duration) -> Result<reqwest::Client, RemoteError> {
    client_builder(connect_timeout)
        .build()
        .map_err(|e| RemoteError::transport(format!("cannot build the HTTP client: {e}")))
}

/// The settings of [`http_client`], shared by card fetchers, JWKS fetches and an agent with TLS settings of
/// its own (`connect::tls::agent_http`): no redirect followed by the client itself, our user agent.
pub fn client_builder(connect_timeout: Duration) -> reqwest::ClientBuilder {
    reqwest::Client::builder()
        .connect_timeout(connect_timeout)
        .redirect(reqwest::redirect::Policy::none())
        .user_agent(concat!("a2a-console/", env!("CARGO_PKG_VERSION")))
}

/// `Cache-Control: max-age=N` (and `no-store` / `no-cache` meaning "do not reuse without asking").
pub fn max_age(headers: &HeaderMap) -> Option<Duration> {
    let cc = headers.get(header::CACHE_CONTROL)?.to_str().ok()?;
    let mut age = None;
    for directive in cc.split(',').map(str::trim) {
        let lower = directive.to_ascii_lowercase();
        if lower == "no-store" || lower == "no-cache" {
            return None;
        }
        if let Some(v) = lower.strip_prefix("max-age=") {
            age = v
                .trim_matches('"')
                .parse::<u64>()
                .ok()
                .map(Duration::from_secs);
        }
    }
    age
}

/// Read at most `limit` bytes of a body; more is an error that says how much.
pub async fn read_limited(resp: reqwest::Response, limit: usize) -> Result<Vec<u8>, RemoteError> {
    if let Some(len) = resp.content_length()
        && len as usize > limit
    {
        return Err(RemoteError::transport(format!(
            "the card is {} bytes, more than the {} byte limit",
            len, limit
        )));
    }
    let url = resp.url().clone();
    let mut body = Vec::new();
    let mut stream = resp.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| {
            RemoteError::transport(format!(
                "reading the card from {url} failed: {}",
                reqwest_reason(&e)
            ))
        })?;
        if body.len() + chunk.len() > limit {
            return Err(RemoteError::transport(format!(
                "the card at {url} is larger than the {limit} byte limit"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

pub fn status_hint(status: StatusCode) -> &'static str {
    match status.as_u16() {
        401 => " (unauthorized: the agent wants credentials; see [agents.auth] or --bearer-env)",
        403 => " (forbidden: the credentials were refused)",
        404 => " (not found)",
        500..=599 => " (server error on the agent's side)",
        _ => "",
    }
}

/// reqwest's errors chain their causes; the innermost one is what a user needs ("connection refused").
pub fn reqwest_reason(e: &reqwest::Error) -> String {
    if let Some(hint) = reqwest_tls_hint(e) {
        return hint.to_string();
    }
    let mut msg = if e.is_timeout() {
        "timed out".to_string()
    } else if e.is_connect() {
        "connection failed".to_string()
    } else {
        e.to_string()
    };
    let mut source = std::error::Error::source(e);
    let mut last = None;
    while let Some(s) = source {
        last = Some(s.to_string());
        source = s.source();
    }
    if let Some(l) = last {
        msg = format!("{msg}: {l}");
    }
    one_line(&msg)
}

/// Every message of an error and its sources, joined.
pub fn error_chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

/// A TLS failure said the way a user can act on it, from the text of a reqwest error and its causes (rustls
/// names alerts and verification failures): `None` when it is not one we know.
pub fn tls_hint(chain: &str) -> Option<&'static str> {
    // An alert the server sent: "received fatal alert: X" in rustls' words, `AlertReceived(X)` where only
    // the Debug form of the chain carries it (hyper's "connection was not ready" hides its cause).
    let alert = |name: &str| {
        chain.contains(&format!("fatal alert: {name}"))
            || chain.contains(&format!("AlertReceived({name})"))
    };
    // The server refused the handshake for want of a certificate. TLS 1.3 says `certificate_required`;
    // TLS 1.2 servers (and some 1.3 ones) send a bare `handshake_failure`.
    if alert("CertificateRequired") || alert("HandshakeFailure") {
        return Some("the agent asked for a client certificate (configure [agents.tls])");
    }
    // Our certificate reached the server and was not accepted.
    if [
        "UnknownCA",
        "BadCertificate",
        "CertificateUnknown",
        "AccessDenied",
        "UnsupportedCertificate",
    ]
    .iter()
    .any(|a| alert(a))
    {
        return Some(
            "the agent refused the client certificate (is it one its CA issued? see [agents.tls] client_cert)",
        );
    }
    if alert("CertificateExpired") {
        return Some("the agent says the client certificate has expired");
    }
    if alert("CertificateRevoked") {
        return Some("the agent says the client certificate was revoked");
    }
    // The server's certificate is not one we trust (rustls' `CertificateError` names).
    if chain.contains("UnknownIssuer") {
        return Some(
            "the agent's server certificate is not trusted (a private CA? set [agents.tls] ca_bundle)",
        );
    }
    if chain.contains("NotValidForName") {
        return Some("the agent's server certificate is not for this host name");
    }
    if chain.contains("invalid peer certificate: Expired") {
        return Some("the agent's server certificate has expired");
    }
    None
}

/// Whether hyper cancelled a request because its new connection failed before the request went out, and
/// kept no cause ("connection was not ready"). A TLS 1.3 server that refuses the client certificate does so
/// after the client's side of the handshake is done: when its alert arrives before the request is written,
/// hyper reports only this. Sending the request again usually shows the alert; for a GET that is safe.
pub fn cause_hidden(e: &reqwest::Error) -> bool {
    reqwest_tls_hint(e).is_none() && format!("{e:?}").contains("connection was not ready")
}

/// [`tls_hint`] for a reqwest error: its Display chain and its Debug form (which keeps the rustls error
/// that hyper's messages leave out). Neither is shown; only the hint is.
pub fn reqwest_tls_hint(e: &reqwest::Error) -> Option<&'static str> {
    tls_hint(&format!("{} {e:?}", error_chain(e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_name_what_to_do() {
        assert!(
            tls_hint("error sending request: received fatal alert: CertificateRequired")
                .unwrap()
                .contains("asked for a client certificate")
        );
        assert!(
            tls_hint("invalid peer certificate: UnknownIssuer")
                .unwrap()
                .contains("not trusted")
        );
        assert!(
            tls_hint("hyper::Error(Io, Custom { kind: InvalidData, error: AlertReceived(CertificateRequired) })")
                .unwrap()
                .contains("asked for a client certificate")
        );
        assert!(
            tls_hint("received fatal alert: UnknownCA")
                .unwrap()
                .contains("refused the client certificate")
        );
        assert_eq!(tls_hint("connection refused"), None);
    }
}
