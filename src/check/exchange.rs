//! How `check` talks to an agent: plain HTTP requests it builds byte by byte (a malformed body, a wrong
//! Content-Type, a missing version header are the point), each under a timeout, counted against a budget
//! announced up front, and each kept as evidence (method, URL, the headers that matter, body excerpts),
//! sanitised and with credentials redacted.
//!
//! Credentials and configured headers follow the console's rules (`origin::CredentialScope`): they go only to
//! the origin the user configured the agent at, or to one the user allowed. A request to any other origin is
//! not sent at all; the probes that would need one are skipped and say why.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures::StreamExt;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde::Serialize;

use crate::remote::auth::Secret;
use crate::remote::auth::origin::CredentialScope;
use crate::trust::redact::{REDACTED, is_secret_header, redact};
use crate::trust::sanitize::{sanitize_bytes, sanitize_line};

/// Largest body read from one response; the evidence quotes far less.
const MAX_BODY: usize = 1 << 20;
/// Characters of a body quoted in the evidence.
const EXCERPT_CHARS: usize = 600;
/// Response headers worth showing as evidence.
const SHOWN_HEADERS: &[&str] = &[
    "content-type",
    "cache-control",
    "etag",
    "last-modified",
    "a2a-version",
    "www-authenticate",
    "location",
];

/// One request and what came back, as shown to the user.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Exchange {
    pub method: String,
    pub url: String,
    /// The headers the probe set (credentials as ‹redacted›).
    pub request_headers: Vec<(String, String)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_body: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    pub response_headers: Vec<(String, String)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_body: Option<String>,
    /// The gRPC status of a gRPC call (`NOT_FOUND`, `OK` …), with its ErrorInfo reason when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grpc_status: Option<String>,
    /// What went wrong on the way (refused connection, timeout, not sent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub elapsed_ms: u64,
}

/// A request a probe wants sent.
#[derive(Clone, Debug)]
pub struct Probe {
    pub method: reqwest::Method,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Option<Vec<u8>>,
    /// Send no credential or configured header (the extended card's "served without credentials").
    pub anonymous: bool,
    /// An SSE answer is read for at most this long (a probe that only needs its first events).
    pub stream_for: Duration,
}

impl Probe {
    pub fn new(method: reqwest::Method, url: impl Into<String>) -> Self {
        Self {
            method,
            url: url.into(),
            headers: Vec::new(),
            body: None,
            anonymous: false,
            stream_for: Duration::from_secs(2),
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = Some(body.into());
        self
    }

    pub fn json(self, value: &serde_json::Value) -> Self {
        self.body(value.to_string())
    }

    pub fn anonymous(mut self) -> Self {
        self.anonymous = true;
        self
    }

    pub fn stream_for(mut self, d: Duration) -> Self {
        self.stream_for = d;
        self
    }
}

/// What came back, for the probe to judge; `exchange` is the evidence.
#[derive(Clone, Debug, Default)]
pub struct Reply {
    pub status: Option<u16>,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
    /// Set when nothing usable came back (not sent, refused, timed out).
    pub error: Option<String>,
    /// An event stream that was still open when the probe stopped reading it.
    pub cut: bool,
    pub exchange: Exchange,
}

impl Reply {
    pub fn content_type(&self) -> String {
        self.headers
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_ascii_lowercase()
    }

    /// The media type alone (`application/json; charset=utf-8` → `application/json`).
    pub fn media_type(&self) -> String {
        let ct = self.content_type();
        ct.split(';').next().unwrap_or_default().trim().to_string()
    }

    pub fn header(&self, name: &str) -> Option<String> {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    }

    pub fn json(&self) -> Option<serde_json::Value> {
        serde_json::from_slice(&self.body).ok()
    }
}

/// The requests a check may still send.
#[derive(Debug)]
struct Budget {
    limit: usize,
    used: AtomicUsize,
}

/// Sends probes for one check.
pub struct Prober {
    http: reqwest::Client,
    scope: CredentialScope,
    /// Configured headers and the credential's header, for in-scope requests only.
    credentials: Vec<(String, Secret)>,
    /// An API key that goes in the query string.
    query_key: Option<(String, Secret)>,
    timeout: Duration,
    budget: Budget,
}

impl Prober {
    pub fn new(
        http: reqwest::Client,
        scope: CredentialScope,
        credentials: Vec<(String, Secret)>,
        query_key: Option<(String, Secret)>,
        timeout: Duration,
        limit: usize,
    ) -> Self {
        Self {
            http,
            scope,
            credentials,
            query_key,
            timeout,
            budget: Budget {
                limit,
                used: AtomicUsize::new(0),
            },
        }
    }

    /// May a request go to this URL (the configured origin, or one the user allowed)?
    pub fn in_scope(&self, url: &str) -> bool {
        self.scope.permits_url(url)
    }

    /// Whether a credential or configured header would go with an in-scope request.
    pub fn has_credentials(&self) -> bool {
        !self.credentials.is_empty() || self.query_key.is_some()
    }

    /// Raise or lower the most requests this check may send (once the card says which interfaces it has).
    pub fn set_limit(&mut self, limit: usize) {
        self.budget.limit = limit;
    }

    /// Count one request that is not HTTP (a gRPC call) against the budget; `Err` with the reason when spent.
    pub fn take(&self) -> Result<(), String> {
        if self.budget.used.fetch_add(1, Ordering::Relaxed) >= self.budget.limit {
            return Err(format!(
                "not sent: the check's budget of {} requests is spent",
                self.budget.limit
            ));
        }
        Ok(())
    }

    /// The configured headers and the credential's header, for a caller that is not HTTP (gRPC metadata).
    pub fn credential_headers(&self) -> &[(String, Secret)] {
        &self.credentials
    }

    /// The request timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Requests sent so far, and the budget.
    pub fn used(&self) -> (usize, usize) {
        (self.budget.used.load(Ordering::Relaxed), self.budget.limit)
    }

    /// Send one probe. Never fails: what went wrong is in the reply's `error` and its evidence.
    pub async fn send(&self, probe: Probe) -> Reply {
        let mut exchange = Exchange {
            method: probe.method.to_string(),
            url: shown(&probe.url),
            request_headers: probe
                .headers
                .iter()
                .map(|(k, v)| (k.clone(), shown_value(k, v)))
                .collect(),
            request_body: probe.body.as_deref().map(excerpt),
            ..Exchange::default()
        };
        let fail = |mut exchange: Exchange, why: String| {
            let why = shown(&why);
            exchange.error = Some(why.clone());
            Reply {
                error: Some(why),
                exchange,
                ..Reply::default()
            }
        };
        if !self.in_scope(&probe.url) {
            return fail(
                exchange,
                "not sent: another origin than the agent's (allow it with --allow-origin)".into(),
            );
        }
        if self.budget.used.fetch_add(1, Ordering::Relaxed) >= self.budget.limit {
            return fail(
                exchange,
                format!(
                    "not sent: the check's budget of {} requests is spent",
                    self.budget.limit
                ),
            );
        }
        let mut url = probe.url.clone();
        let mut builder_headers = HeaderMap::new();
        for (k, v) in &probe.headers {
            if let (Ok(n), Ok(v)) = (
                HeaderName::from_bytes(k.as_bytes()),
                HeaderValue::from_str(v),
            ) {
                builder_headers.insert(n, v);
            }
        }
        if !probe.anonymous {
            for (k, v) in &self.credentials {
                if let (Ok(n), Ok(mut v)) = (
                    HeaderName::from_bytes(k.as_bytes()),
                    HeaderValue::from_str(v.expose()),
                ) {
                    v.set_sensitive(true);
                    builder_headers.insert(n, v);
                    exchange.request_headers.push((k.clone(), REDACTED.into()));
                }
            }
            if let Some((name, key)) = &self.query_key
                && let Ok(mut u) = url::Url::parse(&url)
            {
                u.query_pairs_mut().append_pair(name, key.expose());
                url = u.to_string();
            }
        }
        let mut req = self
            .http
            .request(probe.method.clone(), &url)
            .headers(builder_headers)
            .timeout(self.timeout);
        if let Some(b) = &probe.body {
            req = req.body(b.clone());
        }
        let started = Instant::now();
        let resp = match req.send().await {
            Ok(r) => r,
            Err(e) => {
                exchange.elapsed_ms = started.elapsed().as_millis() as u64;
                return fail(exchange, crate::remote::http::reqwest_reason(&e));
            }
        };
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let is_stream = headers
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.to_ascii_lowercase().starts_with("text/event-stream"));
        let (body, error, cut) = read_body(resp, is_stream, probe.stream_for, self.timeout).await;
        exchange.elapsed_ms = started.elapsed().as_millis() as u64;
        exchange.status = Some(status);
        exchange.response_headers = SHOWN_HEADERS
            .iter()
            .filter_map(|n| {
                headers
                    .get(*n)
                    .and_then(|v| v.to_str().ok())
                    .map(|v| (n.to_string(), sanitize_line(v).0))
            })
            .collect();
        exchange.response_body = (!body.is_empty()).then(|| excerpt(&body));
        let error = error.map(|e| shown(&e));
        exchange.error = error.clone();
        Reply {
            status: Some(status),
            headers,
            body,
            error,
            cut,
            exchange,
        }
    }
}

/// The body: whole for a unary answer (up to [`MAX_BODY`]); for an event stream, what arrives within
/// `stream_for` (a probe never waits for a stream to end; the flag says it was cut).
async fn read_body(
    resp: reqwest::Response,
    is_stream: bool,
    stream_for: Duration,
    timeout: Duration,
) -> (Vec<u8>, Option<String>, bool) {
    let until = Instant::now() + if is_stream { stream_for } else { timeout };
    let mut body = Vec::new();
    let mut stream = resp.bytes_stream();
    loop {
        let left = until.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.next()).await {
            Ok(Some(Ok(chunk))) => {
                body.extend_from_slice(&chunk);
                if body.len() > MAX_BODY {
                    body.truncate(MAX_BODY);
                    return (
                        body,
                        Some(format!("body larger than {MAX_BODY} bytes; cut")),
                        true,
                    );
                }
            }
            Ok(Some(Err(e))) => {
                return (body, Some(crate::remote::http::reqwest_reason(&e)), false);
            }
            Ok(None) => return (body, None, false),
            Err(_) if is_stream => return (body, None, true),
            Err(_) => return (body, Some("timed out reading the body".into()), true),
        }
    }
}

/// A header value as the evidence shows it.
fn shown_value(name: &str, value: &str) -> String {
    if is_secret_header(name) {
        REDACTED.to_string()
    } else {
        sanitize_line(value).0
    }
}

/// The start of a body, sanitised (no escape sequence reaches the terminal) and redacted.
pub fn excerpt(bytes: &[u8]) -> String {
    let (clean, _) = sanitize_bytes(bytes);
    crate::remote::error::truncate_chars(&redact(&clean), EXCERPT_CHARS)
}

/// A URL or an error as the evidence shows it: one line, sanitised (a card's URL is the agent's text), redacted.
pub fn shown(text: &str) -> String {
    sanitize_line(&redact(text)).0
}
