//! Secrets never reach a screen, a file or a log. Every credential the console resolves (a token from
//! `token_env` / `token_cmd`, an OAuth access token, a secret-looking static header) is registered here, and
//! every text on its way out — error messages, the console's notes in a tab, audit rows, log lines — goes
//! through [`redact`]. A secret can hide in text we did not write: reqwest's errors quote the full request URL,
//! so an API key sent as `?key=…` would be printed with it; hence URLs are also stripped of the values of query
//! parameters whose names say they carry one (and of the names the user configured for a query-string key).
//!
//! Audit rows and logged exchanges get a second net, by name and shape ([`redact_json`]): a header or JSON
//! field called like a credential loses its whole value, and a `Bearer …` / `Basic …` value or a URL whose
//! query carries an API key is scrubbed wherever it appears. Both nets write the one marker, [`REDACTED`].

use std::borrow::Cow;
use std::sync::{LazyLock, RwLock};

use serde_json::Value;
use url::Url;

/// What a secret is replaced with.
pub const REDACTED: &str = "‹redacted›";

/// Shorter values are not registered: replacing every "abc" in every message would garble text for nothing
/// (and a three-letter credential is not worth hiding from its owner's screen).
const MIN_SECRET_LEN: usize = 6;

/// Query parameters that carry credentials by convention (compared case-insensitively).
const SECRET_PARAMS: &[&str] = &[
    "key",
    "api_key",
    "apikey",
    "api-key",
    "x-api-key",
    "token",
    "access_token",
    "id_token",
    "refresh_token",
    "auth",
    "authorization",
    "secret",
    "client_secret",
    "password",
    "passwd",
    "pwd",
    "sig",
    "signature",
    "code",
    "session",
    "sessionid",
];

#[derive(Default)]
struct Registry {
    /// Longest first, so a secret that contains another is replaced whole.
    secrets: Vec<String>,
    /// Lower-case query parameter names configured for API keys.
    params: Vec<String>,
}

static REGISTRY: LazyLock<RwLock<Registry>> = LazyLock::new(|| RwLock::new(Registry::default()));

/// Remember a secret value so it is redacted wherever it would be shown.
pub fn register_secret(value: &str) {
    let value = value.trim();
    if value.chars().count() < MIN_SECRET_LEN {
        return;
    }
    let Ok(mut r) = REGISTRY.write() else {
        return;
    };
    if !r.secrets.iter().any(|s| s == value) {
        r.secrets.push(value.to_string());
        r.secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    }
}

/// Remember a query parameter name that carries a secret (an API key configured with `location = "query"`).
pub fn register_query_param(name: &str) {
    let name = name.trim().to_ascii_lowercase();
    if name.is_empty() {
        return;
    }
    let Ok(mut r) = REGISTRY.write() else {
        return;
    };
    if !r.params.contains(&name) {
        r.params.push(name);
    }
}

/// Does a header with this name carry a secret (for static headers: `X-API-Key`, `X-Auth-Token`, a cookie)?
pub fn is_secret_header(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    [
        "key", "token", "auth", "secret", "session", "cookie", "password",
    ]
    .iter()
    .any(|w| n.contains(w))
}

/// `text` with every registered secret (and nothing else) replaced by [`REDACTED`]: for what an agent sends,
/// where a `?code=…` in a link it wrote is its own business but our token echoed back is not.
pub fn redact_secrets(text: &str) -> Cow<'_, str> {
    match REGISTRY.read() {
        Ok(r) => replace_secrets(text, &r.secrets),
        Err(_) => Cow::Borrowed(text),
    }
}

/// `text` with each of `secrets` replaced by [`REDACTED`]: the one loop behind [`redact_secrets`] and [`redact`].
fn replace_secrets<'a>(text: &'a str, secrets: &[String]) -> Cow<'a, str> {
    let mut out = Cow::Borrowed(text);
    for s in secrets {
        if out.contains(s.as_str()) {
            out = Cow::Owned(out.replace(s.as_str(), REDACTED));
        }
    }
    out
}

/// `bytes` with every registered secret replaced by [`REDACTED`] (a file part that echoes a token); `None`
/// when none occurs.
pub fn redact_secret_bytes(bytes: &[u8]) -> Option<Vec<u8>> {
    let r = REGISTRY.read().ok()?;
    let mut out: Option<Vec<u8>> = None;
    for s in &r.secrets {
        let hay = out.as_deref().unwrap_or(bytes);
        let mut next: Option<Vec<u8>> = None;
        let mut copied = 0;
        // Non-overlapping, left to right (memchr's two-way search: linear in the file part's size).
        for at in memchr::memmem::find_iter(hay, s.as_bytes()) {
            let buf = next.get_or_insert_with(|| Vec::with_capacity(hay.len()));
            buf.extend_from_slice(hay.get(copied..at).unwrap_or_default());
            buf.extend_from_slice(REDACTED.as_bytes());
            copied = at + s.len();
        }
        if let Some(mut buf) = next {
            buf.extend_from_slice(hay.get(copied..).unwrap_or_default());
            out = Some(buf);
        }
    }
    out
}

/// Whether any secret is registered (the common case for an agent without credentials is none, and then
/// nothing an agent sends needs looking at).
pub fn has_secrets() -> bool {
    REGISTRY.read().is_ok_and(|r| !r.secrets.is_empty())
}

/// `text` with every registered secret, and every secret-carrying query value, replaced by [`REDACTED`].
pub fn redact(text: &str) -> Cow<'_, str> {
    let Ok(r) = REGISTRY.read() else {
        return Cow::Borrowed(text);
    };
    let out = replace_secrets(text, &r.secrets);
    match redact_query_values(&out, &r.params) {
        Some(changed) => Cow::Owned(changed),
        None => out,
    }
}

/// Replace the values of secret-carrying query parameters (`?key=…`, `&access_token=…`); `None` when there
/// was nothing to replace.
fn redact_query_values(text: &str, configured: &[String]) -> Option<String> {
    if !text.contains('=') {
        return None;
    }
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut changed = false;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'?' || b == b'&' {
            let name_start = i + 1;
            let mut j = name_start;
            while j < bytes.len() && is_name_byte(bytes[j]) {
                j += 1;
            }
            if j < bytes.len() && bytes[j] == b'=' && j > name_start {
                let name = text[name_start..j].to_ascii_lowercase();
                let value_start = j + 1;
                let mut k = value_start;
                while k < bytes.len() && !ends_value(bytes[k]) {
                    k += 1;
                }
                let secret = SECRET_PARAMS.contains(&name.as_str()) || configured.contains(&name);
                if secret && k > value_start && &text[value_start..k] != REDACTED {
                    out.push_str(&text[copied..value_start]);
                    out.push_str(REDACTED);
                    copied = k;
                    changed = true;
                }
                i = k;
                continue;
            }
        }
        i += 1;
    }
    if !changed {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// Where a query value ends inside running text: the next parameter, the fragment, or something that cannot
/// be part of a URL (space, quote, bracket, the end of a parenthesised URL in reqwest's messages).
fn ends_value(b: u8) -> bool {
    matches!(
        b,
        b'&' | b'#' | b' ' | b'\t' | b'\n' | b'\r' | b'"' | b'\'' | b')' | b'>' | b']' | b','
    )
}

/// A `tracing` writer that redacts each line before it reaches the log file or stderr (reqwest and hyper log
/// URLs and headers at debug level).
pub struct RedactingWriter<W>(pub W);

impl<W: std::io::Write> std::io::Write for RedactingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // `tracing_subscriber::fmt` writes one formatted event per call, so a secret is never split across
        // two writes.
        match std::str::from_utf8(buf) {
            Ok(text) => {
                self.0.write_all(redact(text).as_bytes())?;
                Ok(buf.len())
            }
            Err(_) => self.0.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// Wraps any `MakeWriter` (a file, stderr) so every writer it makes redacts.
pub struct Redacting<M>(pub M);

impl<'a, M: tracing_subscriber::fmt::MakeWriter<'a>> tracing_subscriber::fmt::MakeWriter<'a>
    for Redacting<M>
{
    type Writer = RedactingWriter<M::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        RedactingWriter(self.0.make_writer())
    }
}

/// Words that make a header or field name sensitive (compared after splitting the name into words).
const SECRET_WORDS: &[&str] = &[
    "authorization",
    "auth",
    "authentication",
    "cookie",
    "token",
    "secret",
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "pass",
    "key",
    "apikey",
    "credential",
    "credentials",
    "session",
    "jwt",
    "bearer",
    "assertion",
];

/// A last word that says the field describes a credential rather than holds one (`tokenUrl`,
/// `apiKeyName`, `authType` in agent cards): these are public and useful in a log.
const DESCRIPTIVE_SUFFIXES: &[&str] = &[
    "url", "uri", "endpoint", "type", "name", "location", "in", "scheme", "schemes", "kind",
    "header", "param",
];

/// Split `X-API-Key`, `api_key`, `apiKey`, `APIKey` and `authToken` into lower-case words.
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        // A word boundary at a lower→upper step (`apiKey`) or at the last capital of an acronym (`APIKey`).
        let prev = i.checked_sub(1).and_then(|j| chars.get(j)).copied();
        let next = chars.get(i + 1).copied();
        let boundary = c.is_uppercase()
            && !cur.is_empty()
            && (prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit())
                || (prev.is_some_and(char::is_uppercase) && next.is_some_and(char::is_lowercase)));
        if boundary {
            out.push(std::mem::take(&mut cur));
        }
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// True when a header or field with this name holds a credential.
pub fn is_sensitive_name(name: &str) -> bool {
    let w = words(name);
    let Some(last) = w.last() else {
        return false;
    };
    if w.len() > 1 && DESCRIPTIVE_SUFFIXES.contains(&last.as_str()) {
        return false;
    }
    // `xapikey` or `accesstoken` written as one word still counts.
    w.iter().any(|word| {
        SECRET_WORDS.contains(&word.as_str())
            || [
                "token",
                "secret",
                "password",
                "apikey",
                "credential",
                "cookie",
            ]
            .iter()
            .any(|s| word.len() > s.len() && word.ends_with(s))
    })
}

/// Scrub credential shapes out of a value whose name did not give it away.
fn redact_shapes(s: &str) -> String {
    // `Bearer <token>` and friends: the scheme word, then one token68 word (RFC 7235). Prose that happens to
    // start with "Basic" or "Token" has spaces after the next word, or a short one, and is kept.
    let trimmed = s.trim();
    if let Some((scheme, rest)) = trimmed.split_once(' ') {
        let is_scheme = ["bearer", "basic", "digest", "token", "negotiate"]
            .iter()
            .any(|k| scheme.eq_ignore_ascii_case(k));
        let rest = rest.trim_start();
        let token68 = rest.len() >= 8
            && rest
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._~+/=".contains(c));
        if is_scheme && token68 {
            return format!("{scheme} {REDACTED}");
        }
    }
    // Only short strings that look like a URL: a 5 MB artifact must not be parsed on its way to the log.
    if s.len() <= 8192
        && s.contains("://")
        && let Ok(mut url) = Url::parse(s)
    {
        let query_secret = url.query_pairs().any(|(k, _)| is_sensitive_name(&k));
        let userinfo = url.password().is_some();
        if query_secret {
            let pairs: Vec<(String, String)> = url
                .query_pairs()
                .map(|(k, v)| {
                    let v = if is_sensitive_name(&k) {
                        REDACTED.to_string()
                    } else {
                        v.into_owned()
                    };
                    (k.into_owned(), v)
                })
                .collect();
            url.query_pairs_mut().clear().extend_pairs(pairs);
        }
        if userinfo {
            // Only fails for URLs that cannot carry a password, and those have none to hide.
            let _ = url.set_password(Some(REDACTED));
        }
        if query_secret || userinfo {
            return url.to_string();
        }
    }
    s.to_string()
}

/// A JSON value with every credential blanked: fields named like a credential lose their whole value
/// (whatever its type), and credential-shaped strings are scrubbed everywhere else.
pub fn redact_json(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| {
                    let v = if is_sensitive_name(&k) && !matches!(v, Value::Null) {
                        Value::String(REDACTED.to_string())
                    } else {
                        redact_json(v)
                    };
                    (k, v)
                })
                .collect(),
        ),
        Value::Array(items) => {
            // `[["Authorization", "Bearer x"], …]`: a header list as pairs; the name decides for the value.
            if items.len() == 2
                && items
                    .first()
                    .and_then(Value::as_str)
                    .is_some_and(is_sensitive_name)
                && items.get(1).is_some_and(|v| !v.is_null())
            {
                let name = items.into_iter().next().unwrap_or(Value::Null);
                return Value::Array(vec![name, Value::String(REDACTED.to_string())]);
            }
            Value::Array(items.into_iter().map(redact_json).collect())
        }
        Value::String(s) => Value::String(redact_shapes(&s)),
        other => other,
    }
}

#[cfg(test)]
mod tests;
