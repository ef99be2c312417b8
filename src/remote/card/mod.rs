//! Fetching agent cards: well-known path (with the legacy fallback) or a direct card URL, `A2A-Version` sent,
//! the raw JSON kept byte for byte (signature checks need it), HTTP caching honoured (`ETag`,
//! `Cache-Control: max-age`), and every way a card can be broken turned into a one-line error. Redirects are
//! followed here, hop by hop, by the rules of `origin::judge_redirect` (the HTTP client itself follows none).

pub mod diff;
pub mod normalize;
pub mod rules;

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use reqwest::header::{self, HeaderMap};
use serde_json::Value;
use url::Url;

use crate::remote::auth::origin::{CredentialScope, Redirect, judge_redirect};
use crate::remote::card::normalize::{CardShape, CardWarning, normalize};
use crate::remote::error::{RemoteError, one_line};
use crate::remote::http::{cause_hidden, max_age, read_limited, reqwest_reason, status_hint};

/// Redirects followed for one card fetch.
const MAX_REDIRECTS: usize = 5;
/// Times a card request is sent again when hyper dropped the cause of its failure (see `cause_hidden`).
const HIDDEN_CAUSE_RETRIES: u32 = 2;

/// The current well-known path (v0.3 and later).
pub const WELL_KNOWN_CARD: &str = ".well-known/agent-card.json";
/// The path used before v0.3; still served by older agents.
pub const LEGACY_WELL_KNOWN_CARD: &str = ".well-known/agent.json";
/// Cards are small documents; anything bigger is a mistake or an attack.
pub const MAX_CARD_BYTES: usize = 1024 * 1024;

/// A card as fetched: the raw JSON, the normalised v1.0 card, and what was off about it.
#[derive(Clone, Debug)]
pub struct FetchedCard {
    /// The URL the card was actually read from (after the well-known fallback and redirects).
    pub url: Url,
    /// The body exactly as received.
    pub raw: String,
    pub card: a2a::AgentCard,
    pub shape: CardShape,
    pub warnings: Vec<CardWarning>,
    pub etag: Option<String>,
    pub max_age: Option<Duration>,
    /// True when the server answered 304 and this came from the cache.
    pub revalidated: bool,
    /// Who signed it: `None` until the card was judged (`agent::fetch_card` judges every card it fetches),
    /// so a card never passes for checked before it was.
    pub signature: Option<crate::remote::signature::SignatureVerdict>,
}

#[derive(Clone)]
struct CacheEntry {
    card: FetchedCard,
    fetched_at: Instant,
}

/// Card fetcher with an HTTP cache keyed by card URL.
pub struct CardFetcher {
    http: reqwest::Client,
    /// The whole fetch (every redirect hop and the legacy fallback, headers and body) must end within this:
    /// a server that trickles its headers or never ends a chunked body is given up, not waited on for ever.
    deadline: Duration,
    cache: Mutex<HashMap<String, CacheEntry>>,
    /// The JWKS documents signatures point at, cached for the run like the cards.
    pub jku: crate::remote::signature::JkuFetcher,
}

/// Where the card lives, from what the user gave us.
pub fn card_urls(input: &str) -> Result<Vec<Url>, RemoteError> {
    let url = Url::parse(input)
        .map_err(|e| RemoteError::usage(format!("{input:?} is not a URL ({e})")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(RemoteError::usage(format!(
            "{input:?}: only http and https URLs can serve a card"
        )));
    }
    let path = url.path();
    if path.ends_with(".json") || path.contains("/.well-known/") {
        return Ok(vec![url]);
    }
    // A base URL: `https://host/agents/x` → `https://host/agents/x/.well-known/agent-card.json`.
    let mut base = url.clone();
    if !base.path().ends_with('/') {
        base.set_path(&format!("{}/", base.path()));
    }
    let join = |p: &str| {
        base.join(p)
            .map_err(|e| RemoteError::usage(format!("{input:?}: {e}")))
    };
    Ok(vec![join(WELL_KNOWN_CARD)?, join(LEGACY_WELL_KNOWN_CARD)?])
}

impl CardFetcher {
    /// A fetcher with its own HTTP client: one that follows no redirect by itself, so each hop can be judged
    /// (and the headers dropped on an origin change) before any connection is made to it. `timeout` bounds
    /// the connection and, by default, the whole fetch (see [`CardFetcher::fetch_scoped_within`]).
    pub fn new(timeout: Duration) -> Result<Self, RemoteError> {
        let http = crate::remote::http::client_builder(timeout)
            .build()
            .map_err(|e| RemoteError::transport(format!("cannot build the HTTP client: {e}")))?;
        Ok(Self::with_client(http, timeout))
    }

    /// A fetcher over a client made from [`fetcher_builder`] (one agent's, with its TLS settings), whose
    /// fetches end within `deadline` unless told otherwise.
    pub fn with_client(http: reqwest::Client, deadline: Duration) -> Self {
        Self {
            http,
            deadline,
            cache: Mutex::new(HashMap::new()),
            jku: crate::remote::signature::JkuFetcher::within(deadline),
        }
    }

    /// Fetch a card from a base URL or a direct card URL. `headers` are the agent's static headers, and its
    /// credential only when the agent has refused the card without it (see `agent::fetch_card`).
    pub async fn fetch(
        &self,
        input: &str,
        headers: &HeaderMap,
    ) -> Result<FetchedCard, RemoteError> {
        self.fetch_with(input, headers, false).await
    }

    /// Like `fetch`; with `revalidate` a cached card is checked with the server (`If-None-Match`) even while
    /// its `max-age` says it is fresh — what a user pressing "refresh" expects.
    pub async fn fetch_with(
        &self,
        input: &str,
        headers: &HeaderMap,
        revalidate: bool,
    ) -> Result<FetchedCard, RemoteError> {
        let scope = CredentialScope::new(input, &[]).map_err(RemoteError::usage)?;
        self.fetch_scoped(input, headers, revalidate, &scope).await
    }

    /// `fetch_with` for an agent whose credentials and headers belong to `scope`: redirects to its other
    /// allowed origins are followed (without the headers), to anywhere else refused.
    pub async fn fetch_scoped(
        &self,
        input: &str,
        headers: &HeaderMap,
        revalidate: bool,
        scope: &CredentialScope,
    ) -> Result<FetchedCard, RemoteError> {
        self.fetch_scoped_within(input, headers, revalidate, scope, self.deadline)
            .await
    }

    /// `fetch_scoped`, all of it (connect, every hop's headers, the body, the legacy fallback) within
    /// `deadline` — the agent's `timeout_secs` or `--timeout`. reqwest's client has no overall timeout here
    /// because the same settings serve streams; so it is enforced around the whole fetch.
    pub async fn fetch_scoped_within(
        &self,
        input: &str,
        headers: &HeaderMap,
        revalidate: bool,
        scope: &CredentialScope,
        deadline: Duration,
    ) -> Result<FetchedCard, RemoteError> {
        let urls = card_urls(input)?;
        let first = urls.first().map(Url::to_string).unwrap_or_default();
        match tokio::time::timeout(deadline, self.fetch_urls(&urls, headers, revalidate, scope))
            .await
        {
            Ok(r) => r,
            Err(_) => Err(RemoteError::transport(format!(
                "no card from {} within {} s (the request timeout, --timeout or timeout_secs): the server did \
                 not finish answering",
                one_line(&first),
                deadline.as_secs_f32()
            ))),
        }
    }

    async fn fetch_urls(
        &self,
        urls: &[Url],
        headers: &HeaderMap,
        revalidate: bool,
        scope: &CredentialScope,
    ) -> Result<FetchedCard, RemoteError> {
        let mut last_err = None;
        for (i, url) in urls.iter().enumerate() {
            match self.fetch_url(url, headers, revalidate, scope).await {
                Ok(card) => return Ok(card),
                // Only a 404 on the modern path sends us to the legacy one.
                Err(FetchError::NotFound(e)) if i + 1 < urls.len() => last_err = Some(e),
                Err(FetchError::NotFound(e)) | Err(FetchError::Other(e)) => {
                    return Err(match (last_err, i) {
                        (Some(_), _) => e.context(format!(
                            "no card at {} or {}",
                            urls.first().map(Url::as_str).unwrap_or_default(),
                            url
                        )),
                        (None, _) => e,
                    });
                }
            }
        }
        Err(last_err.unwrap_or_else(|| RemoteError::usage("no card URL to try")))
    }

    async fn fetch_url(
        &self,
        url: &Url,
        headers: &HeaderMap,
        revalidate: bool,
        scope: &CredentialScope,
    ) -> Result<FetchedCard, FetchError> {
        let cached = self.cached(url);
        if let Some(entry) = cached.as_ref().filter(|_| !revalidate) {
            let fresh = entry
                .card
                .max_age
                .is_some_and(|age| entry.fetched_at.elapsed() < age);
            if fresh {
                return Ok(entry.card.clone());
            }
        }
        let etag = cached.as_ref().and_then(|c| c.card.etag.clone());
        let resp = self.send_following(url, headers, etag, scope).await?;
        let status = resp.status();
        let final_url = resp.url().clone();
        let resp_headers = resp.headers().clone();

        if status == StatusCode::NOT_MODIFIED
            && let Some(entry) = cached
        {
            let mut card = entry.card;
            card.revalidated = true;
            card.max_age = max_age(&resp_headers).or(card.max_age);
            self.store(url, card.clone());
            return Ok(card);
        }
        if !status.is_success() {
            let err = RemoteError::transport(format!(
                "card request to {url} failed with HTTP {}{}",
                status.as_u16(),
                status_hint(status)
            ))
            .with_http_status(status.as_u16());
            return Err(if status == StatusCode::NOT_FOUND {
                FetchError::NotFound(err)
            } else {
                FetchError::Other(err)
            });
        }
        let content_type = resp_headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        let body = read_limited(resp, MAX_CARD_BYTES)
            .await
            .map_err(FetchError::Other)?;
        let card = parse_card(url, &final_url, &content_type, body, &resp_headers)
            .map_err(FetchError::Other)?;
        self.store(url, card.clone());
        Ok(card)
    }

    /// GET the card, following redirects one hop at a time: each target is judged (origin, address ranges)
    /// before anything connects to it, and once the origin changes no configured header goes along.
    async fn send_following(
        &self,
        url: &Url,
        headers: &HeaderMap,
        etag: Option<String>,
        scope: &CredentialScope,
    ) -> Result<reqwest::Response, FetchError> {
        let mut at = url.clone();
        let mut headers = headers.clone();
        for _ in 0..=MAX_REDIRECTS {
            let mut tries = 0;
            let resp = loop {
                let mut req = self
                    .http
                    .get(at.clone())
                    .headers(headers.clone())
                    .header(a2a::SVC_PARAM_VERSION, a2a::VERSION)
                    .header(header::ACCEPT, "application/json");
                if let Some(etag) = etag.as_deref().filter(|_| at == *url) {
                    req = req.header(header::IF_NONE_MATCH, etag);
                }
                match req.send().await {
                    Ok(resp) => break resp,
                    // A failure whose cause hyper dropped: the next try usually names it (a refused client
                    // certificate), and a GET may be sent again.
                    Err(e) if tries < HIDDEN_CAUSE_RETRIES && cause_hidden(&e) => tries += 1,
                    Err(e) => {
                        return Err(FetchError::Other(RemoteError::transport(format!(
                            "could not fetch the card from {at}: {}",
                            reqwest_reason(&e)
                        ))));
                    }
                }
            };
            let status = resp.status();
            if !status.is_redirection() || status == StatusCode::NOT_MODIFIED {
                return Ok(resp);
            }
            let Some(to) = resp
                .headers()
                .get(header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|l| at.join(l).ok())
            else {
                return Err(FetchError::Other(RemoteError::transport(format!(
                    "the card request to {at} was answered with HTTP {} and no usable Location",
                    status.as_u16()
                ))));
            };
            let addresses = resolve(&to).await;
            match judge_redirect(scope, &at, &to, &addresses) {
                Redirect::Follow { keep_headers } => {
                    if !keep_headers {
                        headers = HeaderMap::new();
                    }
                    at = to;
                }
                Redirect::Refuse(why) => {
                    return Err(FetchError::Other(RemoteError::transport(why)));
                }
            }
        }
        Err(FetchError::Other(RemoteError::transport(format!(
            "the card at {url} redirects more than {MAX_REDIRECTS} times"
        ))))
    }

    /// Drops the cached copy of the card at `url`, so the next fetch asks without `If-None-Match`.
    pub fn forget(&self, url: &Url) {
        if let Ok(mut c) = self.cache.lock() {
            c.remove(url.as_str());
        }
    }

    fn cached(&self, url: &Url) -> Option<CacheEntry> {
        self.cache
            .lock()
            .ok()
            .and_then(|c| c.get(url.as_str()).cloned())
    }

    fn store(&self, url: &Url, card: FetchedCard) {
        if let Ok(mut c) = self.cache.lock() {
            c.insert(
                url.to_string(),
                CacheEntry {
                    card,
                    fetched_at: Instant::now(),
                },
            );
        }
    }

    /// Seed the cache (e.g. from the on-disk store) so the next fetch revalidates with `If-None-Match`.
    pub fn prime(&self, card: FetchedCard) {
        let url = card.url.clone();
        if let Ok(mut c) = self.cache.lock() {
            c.insert(
                url.to_string(),
                CacheEntry {
                    card: FetchedCard {
                        max_age: None,
                        ..card
                    },
                    fetched_at: Instant::now(),
                },
            );
        }
    }
}

/// The addresses a redirect target's host stands for: its literal address, or what DNS says (empty when the
/// lookup fails; the request then fails on its own). reqwest resolves again when it connects, so a name that
/// changes its answer in between is not caught here; IP literals, the usual SSRF vector in a Location, are.
pub(crate) async fn resolve(url: &Url) -> Vec<std::net::IpAddr> {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => vec![ip.into()],
        Some(url::Host::Ipv6(ip)) => vec![ip.into()],
        Some(url::Host::Domain(name)) => {
            let port = url.port_or_known_default().unwrap_or(80);
            match tokio::net::lookup_host((name, port)).await {
                Ok(addrs) => addrs.map(|a| a.ip()).collect(),
                Err(_) => Vec::new(),
            }
        }
        None => Vec::new(),
    }
}

/// `resolve` for an interface URL as a card writes it (a bare `host:port` counts as http); nothing when it
/// does not parse (the client then says why).
pub(crate) async fn resolve_host(url: &str) -> Vec<std::net::IpAddr> {
    let parsed = if url.contains("://") {
        Url::parse(url)
    } else {
        Url::parse(&format!("http://{url}"))
    };
    match parsed {
        Ok(u) => resolve(&u).await,
        Err(_) => Vec::new(),
    }
}

enum FetchError {
    NotFound(RemoteError),
    Other(RemoteError),
}

/// Turn a body into a card, or say exactly what is wrong with it.
pub fn parse_card(
    requested: &Url,
    final_url: &Url,
    content_type: &str,
    body: Vec<u8>,
    headers: &HeaderMap,
) -> Result<FetchedCard, RemoteError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(RemoteError::transport(format!(
            "the card at {requested} is empty"
        )));
    }
    let looks_html = content_type.contains("html")
        || body
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            .is_some_and(|b| *b == b'<');
    if looks_html {
        return Err(RemoteError::transport(format!(
            "the card at {requested} is HTML, not JSON (content type {:?}): is this the agent's URL?",
            if content_type.is_empty() {
                "none"
            } else {
                content_type
            }
        )));
    }
    let raw = String::from_utf8(body).map_err(|e| {
        RemoteError::transport(format!("the card at {requested} is not UTF-8 text ({e})"))
    })?;
    let value: Value = serde_json::from_str(&raw).map_err(|e| {
        let what = if e.is_eof() {
            "is truncated JSON"
        } else {
            "is not valid JSON"
        };
        RemoteError::transport(format!("the card at {requested} {what} ({e})"))
    })?;
    let normalized = normalize(&value, Some(final_url))
        .map_err(|e| RemoteError::transport(format!("the card at {requested} is unusable: {e}")))?;
    let card: a2a::AgentCard = serde_json::from_value(normalized.card).map_err(|e| {
        RemoteError::transport(format!(
            "the card at {requested} could not be read even after normalising: {}",
            one_line(&e.to_string())
        ))
    })?;
    Ok(FetchedCard {
        url: final_url.clone(),
        raw,
        card,
        shape: normalized.shape,
        warnings: normalized.warnings,
        etag: headers
            .get(header::ETAG)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string),
        max_age: max_age(headers),
        revalidated: false,
        signature: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_url_gets_well_known_then_legacy() {
        let urls = card_urls("http://127.0.0.1:8080/agents/x").unwrap();
        assert_eq!(
            urls[0].as_str(),
            "http://127.0.0.1:8080/agents/x/.well-known/agent-card.json"
        );
        assert_eq!(
            urls[1].as_str(),
            "http://127.0.0.1:8080/agents/x/.well-known/agent.json"
        );
        let direct = card_urls("http://127.0.0.1:8080/cards/x.json").unwrap();
        assert_eq!(direct.len(), 1);
        assert!(card_urls("ftp://x").is_err());
        assert!(card_urls("not a url").is_err());
    }

    #[test]
    fn cache_control_parsing() {
        let mut h = HeaderMap::new();
        h.insert(
            header::CACHE_CONTROL,
            "public, max-age=300".parse().unwrap(),
        );
        assert_eq!(max_age(&h), Some(Duration::from_secs(300)));
        h.insert(
            header::CACHE_CONTROL,
            "no-cache, max-age=300".parse().unwrap(),
        );
        assert_eq!(max_age(&h), None);
    }

    #[test]
    fn broken_bodies_give_clear_errors() {
        let u = Url::parse("http://127.0.0.1:1/.well-known/agent-card.json").unwrap();
        let h = HeaderMap::new();
        let err = |ct: &str, body: &str| {
            parse_card(&u, &u, ct, body.as_bytes().to_vec(), &h)
                .unwrap_err()
                .message
        };
        assert!(err("application/json", "  ").contains("empty"));
        assert!(err("text/html", "<html>hi</html>").contains("HTML"));
        assert!(err("application/json", "<!doctype html>").contains("HTML"));
        assert!(err("application/json", "{\"name\": \"x").contains("truncated"));
        assert!(err("application/json", "{nope}").contains("not valid JSON"));
        assert!(err("application/json", "42").contains("not an object"));
    }
}
