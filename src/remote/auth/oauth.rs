//! OAuth 2.0 flows a terminal user can complete, driven by what an agent card declares: the device
//! authorization grant (RFC 8628: the user approves in a browser, the console polls) and the client
//! credentials grant (RFC 6749 §4.4: no user at all). The authorization code flow with PKCE lives in
//! [`oauth_code`](crate::remote::auth::oauth_code) and OpenID Connect in [`oidc`](crate::remote::auth::oidc); both use the hardened
//! form POST, URL checks and token parsing here, so every token endpoint is treated the same.
//!
//! Why not the `oauth2` crate: its 5.x release integrates with reqwest 0.12 (this project is on 0.13,
//! so it would pull in a second HTTP stack or need a hand-written adapter), its device-flow poller
//! has no cancellation hook, and its errors carry raw server text. The two grants are a form POST and
//! a small polling loop, so they are written out here against the RFCs.
//!
//! Everything the server sends is untrusted: strings that may reach the screen are passed through
//! [`sanitize_line`](crate::trust::sanitize::sanitize_line) (and capped), URLs are re-serialised by
//! the `url` crate (punycode hosts, percent-encoded paths), error bodies are truncated, and tokens
//! only ever live in [`Secret`], whose `Debug` is redacted. Endpoints must be `https`, except plain
//! `http` to a loopback host (local test servers): a token endpoint over plain HTTP would put the
//! client secret, the device code and the issued token on the wire unencrypted.
//!
//! Token endpoints must answer directly (RFC 6749 §3.2 gives them no redirects). A client that
//! follows redirects could re-send a POST body holding a secret to another host on a 307/308, so use
//! [`http_client`], which turns redirects off; with any other client a redirected response is
//! refused.

use answer::{interpret, optional_str, optional_u64, required_str, token_from};
use std::time::Duration;

use a2a::{AgentCard, OAuthFlows, SecurityScheme};
use base64::Engine;
use reqwest::StatusCode;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderValue, LOCATION};
use serde_json::{Map, Value};
use tokio::sync::watch;
use tokio::time::Instant;
use url::{Host, Url};

use crate::remote::auth::{Credential, Secret};
use crate::remote::error::one_line;

/// RFC 8628 §3.4: the grant type of the device access token request.
const DEVICE_CODE_GRANT: &str = "urn:ietf:params:oauth:grant-type:device_code";
/// RFC 8628 §3.2: the polling interval when the server does not give one.
const DEFAULT_INTERVAL_SECS: u64 = 5;
/// RFC 8628 §3.5: how much to add to the interval on each `slow_down`.
const SLOW_DOWN_STEP: Duration = Duration::from_secs(5);
/// A server that says `interval: 0` would have us hammer it; one second is the least we wait.
const MIN_INTERVAL_SECS: u64 = 1;
/// Caps a bogus `expires_in` so a device code can never keep the console polling for days (and so
/// `Instant + expires_in` cannot overflow).
const MAX_DEVICE_CODE_LIFETIME_SECS: u64 = 24 * 60 * 60;
/// Token and device responses are a few hundred bytes; a server that sends more is not an OAuth
/// server we want to buffer for.
pub(super) const MAX_BODY_BYTES: usize = 64 * 1024;

/// An issued access token (RFC 6749 §5.1). `Debug` never shows the tokens.
#[derive(Clone, Debug)]
pub struct TokenResponse {
    pub access_token: Secret,
    /// Sanitised. RFC 6749 makes it required; a missing one is taken to be `Bearer`, the only type
    /// this console can use anyway (see [`TokenResponse::bearer`]).
    pub token_type: String,
    /// Lifetime in seconds, when the server says.
    pub expires_in: Option<u64>,
    pub refresh_token: Option<Secret>,
    /// The scopes actually granted (space-separated, sanitised), when the server says.
    pub scope: Option<String>,
    /// OpenID Connect: the ID token (a JWS), still to be verified by [`oidc`](crate::remote::auth::oidc).
    pub id_token: Option<Secret>,
}

impl TokenResponse {
    /// The token as a credential for agent calls. Only bearer tokens can be attached as they are;
    /// DPoP or MAC tokens need proof-of-possession this console does not do.
    pub fn bearer(&self) -> Result<Credential, OAuthError> {
        if self.token_type.eq_ignore_ascii_case("bearer") {
            Ok(Credential::Bearer(self.access_token.clone()))
        } else {
            Err(OAuthError::UnsupportedTokenType(self.token_type.clone()))
        }
    }
}

/// What the user needs to approve a device (RFC 8628 §3.2), plus the device code the console polls
/// with. All public strings are sanitised and the URLs are `https` (or loopback `http`).
#[derive(Clone, Debug)]
pub struct DeviceAuthorization {
    /// The code the user types at `verification_uri`.
    pub user_code: String,
    pub verification_uri: String,
    /// The same page with the code filled in, when the server offers one and it passes the URL
    /// checks.
    pub verification_uri_complete: Option<String>,
    /// Lifetime of the codes in seconds, as the server said.
    pub expires_in: u64,
    /// Seconds to wait between polls (at least one).
    pub interval: u64,
    device_code: Secret,
    /// When the server answered; `expires_in` counts from here, not from when polling starts.
    issued_at: Instant,
}

impl DeviceAuthorization {
    /// When polling gives up (the codes' lifetime, capped at a day).
    fn deadline(&self) -> Instant {
        self.issued_at + Duration::from_secs(self.expires_in.min(MAX_DEVICE_CODE_LIFETIME_SECS))
    }

    /// Time left before the codes expire, for a countdown next to the user code.
    pub fn remaining(&self) -> Duration {
        self.deadline().saturating_duration_since(Instant::now())
    }
}

/// Which OAuth grant a card's scheme offers, with the endpoints to run it against. The URLs are
/// normalised (`url` crate) and therefore safe to show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FlowKind {
    DeviceCode {
        device_authorization_url: String,
        token_url: String,
    },
    ClientCredentials {
        token_url: String,
    },
}

/// How the client authenticates at the token endpoint (RFC 6749 §2.3.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClientAuthMethod {
    /// HTTP Basic with the form-encoded id and secret (`client_secret_basic`): the method every
    /// server must support.
    #[default]
    Basic,
    /// `client_id` and `client_secret` in the form body (`client_secret_post`).
    Post,
}

/// Why a flow failed. Every string inside came through
/// [`sanitize_line`](crate::trust::sanitize::sanitize_line) and is capped, so the whole error may be
/// shown as is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OAuthError {
    #[error("{what} {url} is not usable: {reason}")]
    InvalidUrl {
        what: &'static str,
        url: String,
        reason: String,
    },
    #[error(
        "{what} {url} uses plain http to a host that is not loopback; refusing, because tokens and \
         secrets must not travel unencrypted (use https)"
    )]
    InsecureEndpoint { what: &'static str, url: String },
    /// The server answered with an RFC 6749 §5.2 / RFC 8628 §3.5 error object.
    #[error("{}", server_error_text(code, description.as_deref(), uri.as_deref()))]
    Server {
        status: u16,
        code: String,
        description: Option<String>,
        uri: Option<String>,
    },
    /// The codes' lifetime ran out while polling, without the server saying so.
    #[error(
        "expired_token: the device code expired before the request was approved; start the sign-in again"
    )]
    DeviceCodeExpired,
    #[error("sign-in cancelled")]
    Cancelled,
    /// A redirect whose `state` is not this sign-in's: a stale browser tab, or a forged redirect.
    #[error(
        "wrong state: the redirect does not belong to this sign-in (a stale browser tab or a forged \
         redirect); its code was not used — sign in again"
    )]
    WrongState,
    /// A redirect (or pasted address) that cannot be this sign-in's answer.
    #[error("the sign-in redirect is not usable: {reason}")]
    Redirect { reason: String },
    /// The ID token failed a check (signature, issuer, audience, times, nonce).
    #[error("the ID token was refused: {reason}")]
    IdToken { reason: String },
    /// An HTTP error without an OAuth error object (a proxy page, a crash, a redirect).
    #[error("{what} answered HTTP {status}{}", body_suffix(body))]
    Http {
        what: &'static str,
        status: u16,
        body: String,
    },
    #[error("{what} sent an unusable answer: {reason}")]
    InvalidResponse { what: &'static str, reason: String },
    #[error("cannot reach the {what}: {reason}")]
    Network { what: &'static str, reason: String },
    #[error("token type {0:?} cannot be used as a bearer token")]
    UnsupportedTokenType(String),
}

impl OAuthError {
    /// The RFC 6749 / RFC 8628 error code, if this is one (`access_denied`, `expired_token`,
    /// `invalid_client`, …).
    pub fn code(&self) -> Option<&str> {
        match self {
            OAuthError::Server { code, .. } => Some(code),
            OAuthError::DeviceCodeExpired => Some("expired_token"),
            _ => None,
        }
    }
}

/// A code, what it means, and the server's own words.
fn server_error_text(code: &str, description: Option<&str>, uri: Option<&str>) -> String {
    let meaning = match code {
        "invalid_request" => "the request was malformed or lacked a parameter",
        "invalid_client" => {
            "client authentication failed (unknown client id, wrong secret or unsupported method)"
        }
        "invalid_grant" => {
            "the grant (authorization code, device code or refresh token) is invalid, expired, \
             already used or revoked"
        }
        "unauthorized_client" => "this client may not use this grant type",
        "unsupported_grant_type" => "the server does not support this grant type",
        "invalid_scope" => "a requested scope is invalid, unknown or not allowed",
        "access_denied" => "the request was denied (consent refused)",
        "expired_token" => "the device code expired before the request was approved; start again",
        "authorization_pending" => "the request has not been approved yet",
        "slow_down" => "polling too fast",
        _ => "the authorization server refused the request",
    };
    let mut out = format!("{code}: {meaning}");
    if let Some(d) = description {
        out.push_str(&format!(" (server says: {d})"));
    }
    if let Some(u) = uri {
        out.push_str(&format!(" [see {u}]"));
    }
    out
}

fn body_suffix(body: &str) -> String {
    if body.is_empty() {
        String::new()
    } else {
        format!(": {body}")
    }
}

/// The total deadline of one OAuth request when the caller names none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// What a network failure's reason says when the deadline ended it (callers add the number of seconds).
pub const TIMED_OUT: &str = "no complete answer within the request timeout";

/// An HTTP client fit for OAuth endpoints: no redirects (see the module docs), bounded waits.
pub fn http_client() -> Result<reqwest::Client, OAuthError> {
    http_client_within(DEFAULT_TIMEOUT)
}

/// [`http_client`] whose every request (connect, headers and body) ends within `timeout` — the agent's
/// `timeout_secs` or `--timeout`: a provider that trickles its headers or never ends its body is given up.
pub fn http_client_within(timeout: Duration) -> Result<reqwest::Client, OAuthError> {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(timeout.min(Duration::from_secs(10)))
        .timeout(timeout)
        .user_agent(concat!("a2a-console/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| OAuthError::Network {
            what: "HTTP client",
            reason: one_line(&e.to_string()),
        })
}

/// RFC 8628 step 1: ask for a device code and a user code. Show the user `user_code` and
/// `verification_uri`, then call [`poll_device_token`].
pub async fn start_device_flow(
    http: &reqwest::Client,
    device_authorization_url: &str,
    client_id: &str,
    scopes: &[String],
) -> Result<DeviceAuthorization, OAuthError> {
    const WHAT: &str = "device authorization endpoint";
    let url = endpoint_url(device_authorization_url, WHAT)?;
    let scope = scopes.join(" ");
    let mut form = vec![("client_id", client_id)];
    if !scope.is_empty() {
        form.push(("scope", &scope));
    }
    let obj = post_form(http, &url, WHAT, None, &form, &[]).await?;

    let invalid = |reason: String| OAuthError::InvalidResponse { what: WHAT, reason };
    let device_code = required_str(&obj, "device_code").map_err(invalid)?;
    let user_code = required_str(&obj, "user_code").map_err(invalid)?;
    // Google's endpoint spells it `verification_url`.
    let verification_uri = required_str(&obj, "verification_uri")
        .or_else(|_| required_str(&obj, "verification_url"))
        .map_err(invalid)?;
    let verification_uri = checked_url(&verification_uri, "verification URI")?;
    // The complete URI is a convenience; one that fails the checks is dropped, not fatal.
    let verification_uri_complete = optional_str(&obj, "verification_uri_complete")
        .and_then(|u| checked_url(&u, "verification URI").ok())
        .map(String::from);
    let expires_in =
        optional_u64(&obj, "expires_in").ok_or_else(|| invalid("no usable expires_in".into()))?;
    let interval = optional_u64(&obj, "interval")
        .unwrap_or(DEFAULT_INTERVAL_SECS)
        .max(MIN_INTERVAL_SECS);
    Ok(DeviceAuthorization {
        user_code: one_line(&user_code),
        verification_uri: verification_uri.into(),
        verification_uri_complete,
        expires_in,
        interval,
        device_code: Secret::new(device_code),
        issued_at: Instant::now(),
    })
}

/// RFC 8628 step 3: poll the token endpoint until the user approves. Waits `interval` before each
/// poll, keeps going on `authorization_pending`, adds five seconds on `slow_down`, and stops with an
/// error on any other answer, when the codes expire, or as soon as `cancel` becomes `true` (also in
/// the middle of a request). A dropped sender never cancels.
pub async fn poll_device_token(
    http: &reqwest::Client,
    token_url: &str,
    client_id: &str,
    auth: &DeviceAuthorization,
    mut cancel: watch::Receiver<bool>,
) -> Result<TokenResponse, OAuthError> {
    const WHAT: &str = "token endpoint";
    let url = endpoint_url(token_url, WHAT)?;
    let deadline = auth.deadline();
    let mut interval = Duration::from_secs(auth.interval.max(MIN_INTERVAL_SECS));
    let form = [
        ("grant_type", DEVICE_CODE_GRANT),
        ("device_code", auth.device_code.expose()),
        ("client_id", client_id),
    ];
    let redact = [auth.device_code.expose()];
    loop {
        let wake = Instant::now()
            .checked_add(interval)
            .map_or(deadline, |t| t.min(deadline));
        tokio::select! {
            biased;
            () = cancelled(&mut cancel) => return Err(OAuthError::Cancelled),
            () = tokio::time::sleep_until(wake) => {}
        }
        if Instant::now() >= deadline {
            return Err(OAuthError::DeviceCodeExpired);
        }
        // No timer races the request: the caller's client bounds it. (A deadline timer here would
        // also fire early under a paused test clock.)
        let answer = tokio::select! {
            biased;
            () = cancelled(&mut cancel) => return Err(OAuthError::Cancelled),
            a = post_form(http, &url, WHAT, None, &form, &redact) => a,
        };
        match answer.and_then(|obj| token_from(&obj)) {
            Ok(token) => return Ok(token),
            Err(OAuthError::Server { code, .. }) if code == "authorization_pending" => {}
            Err(OAuthError::Server { code, .. }) if code == "slow_down" => {
                interval = interval.saturating_add(SLOW_DOWN_STEP);
            }
            Err(e) => return Err(e),
        }
    }
}

/// RFC 6749 §4.4: a token for the client itself, authenticated with `client_secret_basic`.
pub async fn client_credentials(
    http: &reqwest::Client,
    token_url: &str,
    client_id: &str,
    client_secret: &Secret,
    scopes: &[String],
) -> Result<TokenResponse, OAuthError> {
    client_credentials_with(
        http,
        token_url,
        client_id,
        client_secret,
        scopes,
        ClientAuthMethod::Basic,
    )
    .await
}

/// [`client_credentials`] with a chosen client authentication method.
pub async fn client_credentials_with(
    http: &reqwest::Client,
    token_url: &str,
    client_id: &str,
    client_secret: &Secret,
    scopes: &[String],
    method: ClientAuthMethod,
) -> Result<TokenResponse, OAuthError> {
    const WHAT: &str = "token endpoint";
    let url = endpoint_url(token_url, WHAT)?;
    let scope = scopes.join(" ");
    let mut form = vec![("grant_type", "client_credentials")];
    if !scope.is_empty() {
        form.push(("scope", &scope));
    }
    let basic = match method {
        ClientAuthMethod::Basic => Some(basic_auth(client_id, client_secret)),
        ClientAuthMethod::Post => {
            form.push(("client_id", client_id));
            form.push(("client_secret", client_secret.expose()));
            None
        }
    };
    let obj = post_form(
        http,
        &url,
        WHAT,
        basic.as_ref(),
        &form,
        &[client_secret.expose()],
    )
    .await?;
    token_from(&obj)
}

/// The OAuth flows a card declares that this console can run: `(scheme name, flow, scopes)`, sorted
/// by scheme name. Names are sanitised; scopes that break the RFC 6749 §3.3 grammar (and could
/// therefore not be requested anyway) are dropped; flows whose endpoints are not http(s) URLs are
/// left out. Flows on plain-http non-loopback endpoints stay in the list, so the user learns why
/// they are refused when chosen.
pub fn flows_in_card(card: &AgentCard) -> Vec<(String, FlowKind, Vec<String>)> {
    let Some(schemes) = &card.security_schemes else {
        return Vec::new();
    };
    let mut out: Vec<(String, FlowKind, Vec<String>)> = schemes
        .iter()
        .filter_map(|(name, scheme)| {
            let SecurityScheme::OAuth2(oauth) = scheme else {
                return None;
            };
            let (kind, scopes) = match &oauth.flows {
                OAuthFlows::DeviceCode(f) => (
                    FlowKind::DeviceCode {
                        device_authorization_url: card_url(&f.device_authorization_url)?,
                        token_url: card_url(&f.token_url)?,
                    },
                    &f.scopes,
                ),
                OAuthFlows::ClientCredentials(f) => (
                    FlowKind::ClientCredentials {
                        token_url: card_url(&f.token_url)?,
                    },
                    &f.scopes,
                ),
                _ => return None,
            };
            let mut scopes: Vec<String> = scopes
                .keys()
                .filter(|s| crate::config::auth::is_scope_token(s))
                .cloned()
                .collect();
            scopes.sort();
            Some((one_line(name), kind, scopes))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// A card's endpoint, normalised, if it is an http(s) URL at all.
fn card_url(raw: &str) -> Option<String> {
    let url = Url::parse(raw).ok()?;
    matches!(url.scheme(), "https" | "http").then(|| url.into())
}

/// The checks for token and device authorization endpoints: http(s), encrypted unless loopback, no
/// user info (reqwest would send it as Basic auth), no fragment (RFC 6749 §3.2).
pub(super) fn endpoint_url(raw: &str, what: &'static str) -> Result<Url, OAuthError> {
    let url = checked_url(raw, what)?;
    if url.fragment().is_some() {
        return Err(OAuthError::InvalidUrl {
            what,
            url: one_line(raw),
            reason: "an endpoint URL must not have a #fragment".into(),
        });
    }
    Ok(url)
}

/// http(s) only; plain http only to loopback (a verification page over plain http would expose the
/// user's login just as a token endpoint would expose the token); no user info.
pub(super) fn checked_url(raw: &str, what: &'static str) -> Result<Url, OAuthError> {
    let invalid = |reason: &str| OAuthError::InvalidUrl {
        what,
        url: one_line(raw),
        reason: reason.into(),
    };
    let url = Url::parse(raw).map_err(|e| invalid(&e.to_string()))?;
    match url.scheme() {
        "https" => {}
        "http" if is_loopback(&url) => {}
        "http" => {
            return Err(OAuthError::InsecureEndpoint {
                what,
                url: one_line(url.as_str()),
            });
        }
        _ => return Err(invalid("only http and https URLs are allowed")),
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(invalid("the URL must not carry a user name or password"));
    }
    Ok(url)
}

pub(super) fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Ipv4(a)) => a.is_loopback(),
        Some(Host::Ipv6(a)) => a.is_loopback(),
        Some(Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}

/// RFC 6749 §2.3.1: id and secret are form-encoded *before* the Basic encoding, so a secret with
/// `:` or non-ASCII survives.
pub(super) fn basic_auth(client_id: &str, client_secret: &Secret) -> Secret {
    let id: String = url::form_urlencoded::byte_serialize(client_id.as_bytes()).collect();
    let secret: String =
        url::form_urlencoded::byte_serialize(client_secret.expose().as_bytes()).collect();
    let encoded = base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}"));
    Secret::new(format!("Basic {encoded}"))
}

/// Resolves when `cancel` holds `true`; never, once the sender is gone.
async fn cancelled(cancel: &mut watch::Receiver<bool>) {
    if cancel.wait_for(|c| *c).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// POSTs a form and returns the JSON object of a successful answer. OAuth error objects become
/// [`OAuthError::Server`] whatever the status (some servers send them with 200); anything else that
/// is not a 2xx JSON object is an error with a sanitised, capped excerpt in which `redact` strings
/// (secrets we sent, in case the server echoes the request) are masked.
pub(super) async fn post_form(
    http: &reqwest::Client,
    url: &Url,
    what: &'static str,
    authorization: Option<&Secret>,
    form: &[(&str, &str)],
    redact: &[&str],
) -> Result<Map<String, Value>, OAuthError> {
    // Encoded by hand rather than with reqwest's `form` feature, which would add a dependency for
    // one line.
    let body = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish();
    let mut request = http
        .post(url.clone())
        .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
        // GitHub answers form-encoded unless asked for JSON.
        .header(ACCEPT, "application/json")
        .body(body);
    if let Some(auth) = authorization {
        let mut value =
            HeaderValue::from_str(auth.expose()).map_err(|_| OAuthError::InvalidUrl {
                what,
                url: one_line(url.as_str()),
                reason: "the client credentials cannot be sent in a header".into(),
            })?;
        value.set_sensitive(true);
        request = request.header(AUTHORIZATION, value);
    }
    let network = |e: reqwest::Error| network_failure(what, url, e);
    let mut response = request.send().await.map_err(network)?;
    if response.url() != url {
        return Err(OAuthError::InvalidResponse {
            what,
            reason: format!(
                "redirected to {}; OAuth endpoints must answer directly",
                one_line(response.url().as_str())
            ),
        });
    }
    let status = response.status();
    let location = response
        .headers()
        .get(LOCATION)
        .map(|l| one_line(&String::from_utf8_lossy(l.as_bytes())));
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(network)? {
        if bytes.len() + chunk.len() > MAX_BODY_BYTES {
            return Err(OAuthError::InvalidResponse {
                what,
                reason: format!(
                    "HTTP {} with a body over {} KiB",
                    status.as_u16(),
                    MAX_BODY_BYTES / 1024
                ),
            });
        }
        bytes.extend_from_slice(&chunk);
    }
    interpret(what, status, location, &bytes, redact)
}

impl OAuthError {
    /// The error as a user reads it; one that the deadline ended says how long that was and where it is set.
    pub fn within(&self, timeout: Duration) -> String {
        match self {
            OAuthError::Network { reason, .. } if reason.ends_with(TIMED_OUT) => format!(
                "{self} ({} s: --timeout or timeout_secs)",
                timeout.as_secs_f32()
            ),
            _ => self.to_string(),
        }
    }
}

/// A failed request as an error naming the endpoint; one the deadline ended says so ([`TIMED_OUT`]).
pub(crate) fn network_failure(what: &'static str, url: &Url, e: reqwest::Error) -> OAuthError {
    let reason = if e.is_timeout() {
        format!("{}: {TIMED_OUT}", one_line(url.as_str()))
    } else {
        one_line(&e.without_url().to_string())
    };
    OAuthError::Network { what, reason }
}

pub(super) mod answer;

#[cfg(test)]
mod tests;
