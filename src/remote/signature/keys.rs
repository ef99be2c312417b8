//! Which keys may sign an agent's card: the user's (`[agents.trust]`: a JWKS file, an inline JWK, pinned
//! thumbprints), the embedded demo agent's (known in-process), and the card's own `jku`. A `jku` is remote
//! data choosing a URL, so it is fetched only under rules the user can predict: https (http only to
//! loopback), the card's origin or one listed in `jku_origins`, no redirects, no headers or credentials
//! (a public JWKS needs none), a short timeout, 64 KB at most, and cached for the run.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, Jwk};
use serde_json::Value;
use url::Url;

use super::{JkuKeys, SignatureVerdict, jws};
use crate::config::TrustConfig;

/// A JWKS is a few keys; anything bigger is a mistake or an attack.
pub const MAX_JWKS_BYTES: usize = 64 * 1024;
/// A JWKS fetch should be quick; a slow one must not hold the card up.
pub const JKU_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a JWKS is kept when the server says nothing (`Cache-Control: max-age` wins when given).
const DEFAULT_JWKS_TTL: Duration = Duration::from_secs(300);
/// At most this many distinct `jku` URLs are fetched for one card.
const MAX_JKU_PER_CARD: usize = 4;

/// A key the user (or this process) trusts, and where it came from, for the verdict's words.
#[derive(Clone, Debug, PartialEq)]
pub struct TrustedKey {
    pub jwk: Jwk,
    pub source: String,
}

/// What we believe about one agent's signing keys.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Trust {
    pub keys: Vec<TrustedKey>,
    /// RFC 7638 SHA-256 thumbprints, base64url, without any `sha256:` prefix.
    pub pinned: Vec<String>,
    /// Origins other than the card's a `jku` may point at.
    pub jku_origins: Vec<String>,
}

impl Trust {
    /// From the agent's `[agents.trust]`; relative paths are read from `base` (the config file's directory).
    pub fn from_config(c: &TrustConfig, base: Option<&Path>) -> Result<Self, String> {
        let mut keys = Vec::new();
        if let Some(path) = &c.jwks_file {
            let full = match base {
                Some(b) if path.is_relative() => b.join(path),
                _ => path.clone(),
            };
            let text = std::fs::read_to_string(&full)
                .map_err(|e| format!("trust.jwks_file {}: {e}", full.display()))?;
            let value: Value = serde_json::from_str(&text)
                .map_err(|e| format!("trust.jwks_file {}: not JSON ({e})", full.display()))?;
            let set = jwks_keys(&value);
            if set.is_empty() {
                return Err(format!(
                    "trust.jwks_file {}: holds no key we can use",
                    full.display()
                ));
            }
            keys.extend(set.into_iter().map(|jwk| TrustedKey {
                jwk,
                source: format!("jwks_file {}", full.display()),
            }));
        }
        if let Some(inline) = &c.jwk {
            let value = match inline {
                Value::String(s) => serde_json::from_str(s)
                    .map_err(|e| format!("trust.jwk: not a JSON object ({e})"))?,
                v => v.clone(),
            };
            let jwk: Jwk = serde_json::from_value(value)
                .map_err(|e| format!("trust.jwk: not a key we can use ({e})"))?;
            keys.push(TrustedKey {
                jwk,
                source: "jwk in the config".into(),
            });
        }
        let mut pinned = Vec::new();
        for p in &c.pinned {
            pinned.push(normalize_thumbprint(p).ok_or_else(|| {
                format!("trust.pinned: {p:?} is not a base64url SHA-256 thumbprint")
            })?);
        }
        for o in &c.jku_origins {
            origin_of(o).map_err(|e| format!("trust.jku_origins: {e}"))?;
        }
        Ok(Self {
            keys,
            pinned,
            jku_origins: c.jku_origins.clone(),
        })
    }

    /// Trust for the embedded demo agent: its public key is known in this process.
    pub fn in_process(jwk: Jwk, source: &str) -> Self {
        Self {
            keys: vec![TrustedKey {
                jwk,
                source: source.into(),
            }],
            ..Self::default()
        }
    }

    /// Is `jwk`'s thumbprint pinned?
    pub fn is_pinned(&self, jwk: &Jwk) -> bool {
        jws::thumbprint(jwk).is_some_and(|t| self.pinned.contains(&t))
    }

    /// Has the user said which key signs this agent's card? Then any other key is an alarm.
    pub fn has_expectation(&self) -> bool {
        !self.keys.is_empty() || !self.pinned.is_empty()
    }

    /// "pinned" or "configured", for the key-changed alarm.
    pub fn expectation_name(&self) -> &'static str {
        if self.keys.is_empty() {
            "pinned"
        } else {
            "configured"
        }
    }
}

/// `sha256:abc…`, `SHA-256:abc…` or `abc…` → `abc…`, if it is 43 base64url characters (32 bytes).
pub fn normalize_thumbprint(p: &str) -> Option<String> {
    let t = p.trim();
    let t = t
        .split_once(':')
        .filter(|(k, _)| {
            let k = k.to_ascii_lowercase();
            k == "sha256" || k == "sha-256"
        })
        .map_or(t, |(_, v)| v);
    let ok = t.len() == 43
        && t.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    ok.then(|| t.to_string())
}

/// The usable keys of a JWKS (`{"keys": [...]}`) or of a single JWK; an unreadable key is skipped, not fatal
/// (a set may hold encryption keys or algorithms we do not know).
pub fn jwks_keys(v: &Value) -> Vec<Jwk> {
    let list: Vec<&Value> = match v.get("keys") {
        Some(Value::Array(a)) => a.iter().collect(),
        Some(_) => Vec::new(),
        None if v.get("kty").is_some() => vec![v],
        None => Vec::new(),
    };
    list.into_iter()
        .filter_map(|k| serde_json::from_value::<Jwk>(k.clone()).ok())
        // Symmetric and unknown key types can never verify a publisher's signature.
        .filter(|k| {
            matches!(
                k.algorithm,
                AlgorithmParameters::EllipticCurve(_)
                    | AlgorithmParameters::RSA(_)
                    | AlgorithmParameters::OctetKeyPair(_)
            )
        })
        .collect()
}

fn origin_of(s: &str) -> Result<url::Origin, String> {
    let u = Url::parse(s).map_err(|e| format!("{s:?} is not a URL ({e})"))?;
    Ok(u.origin())
}

/// May a card read from `card_url` have us fetch `jku`? The URL to fetch, or why not.
pub fn jku_allowed(jku: &str, card_url: &Url, extra_origins: &[String]) -> Result<Url, String> {
    let shown = crate::remote::error::one_line(jku);
    let url = Url::parse(jku).map_err(|_| format!("jku {shown} is not a URL"))?;
    let loopback = match url.host() {
        Some(url::Host::Ipv4(a)) => a.is_loopback(),
        Some(url::Host::Ipv6(a)) => a.is_loopback(),
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        None => false,
    };
    match url.scheme() {
        "https" => {}
        "http" if loopback => {}
        _ => {
            return Err(format!(
                "jku {shown} refused: only https (or http to loopback) is fetched"
            ));
        }
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(format!("jku {shown} refused: it carries credentials"));
    }
    let origin = url.origin();
    let allowed = origin == card_url.origin()
        || extra_origins
            .iter()
            .filter_map(|o| origin_of(o).ok())
            .any(|o| o == origin);
    if !allowed {
        return Err(format!(
            "jku {shown} refused: not the card's origin (allow it with trust.jku_origins)"
        ));
    }
    Ok(url)
}

struct Cached {
    at: Instant,
    ttl: Duration,
    keys: Vec<Jwk>,
}

/// Fetches `jku` JWKS documents with their own HTTP client: no redirects, no cookies, no headers of the
/// agent, cached by URL for the run.
pub struct JkuFetcher {
    http: Option<reqwest::Client>,
    cache: Mutex<HashMap<String, Cached>>,
}

impl Default for JkuFetcher {
    fn default() -> Self {
        Self::new()
    }
}

impl JkuFetcher {
    pub fn new() -> Self {
        Self::within(JKU_TIMEOUT)
    }

    /// A fetcher whose every JWKS request (connect, headers and body) ends within `timeout`: the card
    /// fetcher's deadline, so a `jku` that trickles is given up as the card itself would be.
    pub fn within(timeout: Duration) -> Self {
        // Built without a credential or default header on purpose; `None` only if TLS cannot initialise, and
        // then every jku says so.
        let http = reqwest::Client::builder()
            .connect_timeout(timeout)
            .timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("a2a-console/", env!("CARGO_PKG_VERSION")))
            .build()
            .ok();
        Self {
            http,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// Forgets every cached JWKS: a card that did not verify is looked at again with the keys served now.
    pub fn forget_all(&self) {
        if let Ok(mut cache) = self.cache.lock() {
            cache.clear();
        }
    }

    /// The keys served at `url` (already judged by [`jku_allowed`]).
    pub async fn fetch(&self, url: &Url) -> Result<Vec<Jwk>, String> {
        if let Ok(cache) = self.cache.lock()
            && let Some(c) = cache.get(url.as_str())
            && c.at.elapsed() < c.ttl
        {
            return Ok(c.keys.clone());
        }
        let shown = crate::remote::error::one_line(url.as_str());
        let http = self
            .http
            .as_ref()
            .ok_or_else(|| "no HTTP client for the jku".to_string())?;
        let resp = http
            .get(url.clone())
            .header(
                reqwest::header::ACCEPT,
                "application/jwk-set+json, application/json",
            )
            .send()
            .await
            .map_err(|e| format!("jku {shown}: {}", crate::remote::http::reqwest_reason(&e)))?;
        let status = resp.status();
        if status.is_redirection() {
            return Err(format!(
                "jku {shown}: redirected (HTTP {}), not followed",
                status.as_u16()
            ));
        }
        if !status.is_success() {
            return Err(format!("jku {shown}: HTTP {}", status.as_u16()));
        }
        let ttl = crate::remote::http::max_age(resp.headers()).unwrap_or(DEFAULT_JWKS_TTL);
        let body = crate::remote::http::read_limited(resp, MAX_JWKS_BYTES)
            .await
            .map_err(|e| format!("jku {shown}: {}", e.message))?;
        let value: Value =
            serde_json::from_slice(&body).map_err(|_| format!("jku {shown}: not JSON"))?;
        let keys = jwks_keys(&value);
        if keys.is_empty() {
            return Err(format!("jku {shown}: holds no key we can use"));
        }
        if let Ok(mut cache) = self.cache.lock() {
            cache.insert(
                url.as_str().to_string(),
                Cached {
                    at: Instant::now(),
                    ttl,
                    keys: keys.clone(),
                },
            );
        }
        Ok(keys)
    }
}

/// Judge a card as fetched from `card_url`: fetch what its `jku` headers point at (under the rules above),
/// then the pure check.
pub async fn judge(raw: &str, card_url: &Url, trust: &Trust, jku: &JkuFetcher) -> SignatureVerdict {
    let Ok(card) = serde_json::from_str::<Value>(raw) else {
        return super::verify_raw(raw, trust, &JkuKeys::new());
    };
    judge_value(&card, card_url, trust, jku).await
}

/// [`judge`] on a parsed card (the extended card arrives parsed).
pub async fn judge_value(
    card: &Value,
    card_url: &Url,
    trust: &Trust,
    jku: &JkuFetcher,
) -> SignatureVerdict {
    let mut wanted: Vec<String> = super::entries(card)
        .iter()
        .filter_map(|(p, _, h)| p.and_then(|p| jws::parse_header(p, *h).ok()))
        .filter_map(|h| h.jku)
        .collect();
    wanted.dedup();
    let mut fetched = JkuKeys::new();
    for raw_url in wanted {
        if fetched.contains_key(&raw_url) {
            continue;
        }
        let got = if fetched.len() >= MAX_JKU_PER_CARD {
            Err("too many distinct jku URLs on one card".to_string())
        } else {
            match jku_allowed(&raw_url, card_url, &trust.jku_origins) {
                Ok(url) => jku.fetch(&url).await,
                Err(e) => Err(e),
            }
        };
        fetched.insert(raw_url, got);
    }
    super::verify_value(card, trust, &fetched)
}

#[cfg(test)]
mod tests;
