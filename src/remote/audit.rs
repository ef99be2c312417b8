//! Redaction for the wire/audit log: credentials are blanked before an exchange is written anywhere, so the
//! log can be shared in a bug report without leaking the user's tokens.
//!
//! Two nets, because either alone misses something: names (a header or JSON field called like a credential
//! loses its whole value) and shapes (a `Bearer …` / `Basic …` value, or a URL whose query carries an API key,
//! is scrubbed wherever it appears, whatever the field is called).

use std::collections::BTreeMap;

use serde_json::Value;
use url::Url;

/// What a blanked value becomes. A fixed marker (not an empty string) so a reader sees a value was there.
pub const REDACTED: &str = "[redacted]";

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
pub fn redact_text(s: &str) -> String {
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

/// Headers (the SDK's `ServiceParams`, a `HashMap<String, Vec<String>>`, or anything that iterates like it)
/// with every credential blanked, sorted by name so two logs of the same call compare equal.
pub fn redact_headers<'a, I, V>(headers: I) -> BTreeMap<String, Vec<String>>
where
    I: IntoIterator<Item = (&'a String, V)>,
    V: IntoIterator<Item = &'a String>,
{
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, values) in headers {
        let sensitive = is_sensitive_name(name);
        let entry = out.entry(name.to_ascii_lowercase()).or_default();
        for v in values {
            entry.push(if sensitive {
                REDACTED.to_string()
            } else {
                redact_text(v)
            });
        }
    }
    out
}

/// A `reqwest` header map (card fetches) with every credential blanked. Values that are not UTF-8 are
/// shown as a marker: they cannot be logged faithfully anyway.
pub fn redact_header_map(headers: &reqwest::header::HeaderMap) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, value) in headers {
        let name = name.as_str().to_string();
        let shown = if is_sensitive_name(&name) || value.is_sensitive() {
            REDACTED.to_string()
        } else {
            value
                .to_str()
                .map(redact_text)
                .unwrap_or_else(|_| "[binary]".to_string())
        };
        out.entry(name).or_default().push(shown);
    }
    out
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
        Value::String(s) => Value::String(redact_text(&s)),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::collections::HashMap;

    const SECRETS: &[&str] = &[
        "s3cr3t-bearer",
        "cookie-value-42",
        "xapikey-999",
        "hunter2",
        "client-secret-abc",
        "refresh-xyz",
        "push-token-777",
        "basic-dXNlcjpwYXNz",
        "query-key-555",
        "userinfo-pw",
        "cred-blob",
        "session-id-1",
    ];

    fn assert_clean(text: &str) {
        for s in SECRETS {
            assert!(!text.contains(s), "secret {s:?} survived in {text}");
        }
    }

    #[test]
    fn audit_names_split_into_words() {
        assert_eq!(words("X-API-Key"), ["x", "api", "key"]);
        assert_eq!(words("apiKey"), ["api", "key"]);
        assert_eq!(words("APIKey"), ["api", "key"]);
        assert_eq!(words("client_secret"), ["client", "secret"]);
        for n in [
            "Authorization",
            "proxy-authorization",
            "Cookie",
            "Set-Cookie",
            "X-API-Key",
            "x-goog-api-key",
            "apiKey",
            "access_token",
            "refreshToken",
            "accesstoken",
            "password",
            "client_secret",
            "credentials",
            "X-Auth-Token",
            "token",
        ] {
            assert!(is_sensitive_name(n), "{n} should be sensitive");
        }
        for n in [
            "content-type",
            "a2a-version",
            "messageId",
            "taskId",
            "tokenUrl",
            "authorizationUrl",
            "text",
            "author",
            "keyboard",
            "monkey",
            "statusCode",
            "code",
        ] {
            assert!(!is_sensitive_name(n), "{n} should not be sensitive");
        }
    }

    #[test]
    fn audit_no_secret_survives_headers() {
        let mut params: HashMap<String, Vec<String>> = HashMap::new();
        params.insert("Authorization".into(), vec!["Bearer s3cr3t-bearer".into()]);
        params.insert("Cookie".into(), vec!["sid=cookie-value-42".into()]);
        params.insert("X-API-Key".into(), vec!["xapikey-999".into()]);
        params.insert("X-Custom".into(), vec!["Basic basic-dXNlcjpwYXNz".into()]);
        params.insert("A2A-Version".into(), vec!["1.0".into()]);
        let red = redact_headers(&params);
        let text = serde_json::to_string(&red).unwrap_or_default();
        assert_clean(&text);
        assert_eq!(red["a2a-version"], ["1.0"]);
        assert_eq!(red["authorization"], [REDACTED]);
        assert_eq!(red["x-custom"], [format!("Basic {REDACTED}")]);

        let mut map = reqwest::header::HeaderMap::new();
        map.insert("authorization", "Bearer s3cr3t-bearer".parse().unwrap());
        map.insert("x-trace", "abc".parse().unwrap());
        let red = redact_header_map(&map);
        assert_clean(&serde_json::to_string(&red).unwrap_or_default());
        assert_eq!(red["x-trace"], ["abc"]);
    }

    #[test]
    fn audit_no_secret_survives_json() {
        let v = json!({
            "method": "SendMessage",
            "headers": {"Authorization": ["Bearer s3cr3t-bearer"], "cookie": "cookie-value-42"},
            "headerPairs": [["X-API-Key", "xapikey-999"], ["Accept", "text/event-stream"]],
            "params": {
                "message": {"messageId": "m1", "parts": [{"text": "my password is in a field, not here"}]},
                "configuration": {"pushNotificationConfig": {
                    "url": "https://hook.example/cb?api_key=query-key-555&x=1",
                    "token": "push-token-777",
                    "authentication": {"schemes": ["Bearer"], "credentials": "cred-blob"}
                }}
            },
            "oauth": {"client_secret": "client-secret-abc", "refresh_token": "refresh-xyz",
                      "tokenUrl": "https://auth.example/token"},
            "login": {"user": "bob", "password": "hunter2"},
            "proxy": "https://bob:userinfo-pw@proxy.example/",
            "sessionId": "session-id-1",
            "nested": [{"deeper": [{"Set-Cookie": "cookie-value-42"}]}],
            "authHeader": "Basic basic-dXNlcjpwYXNz"
        });
        let red = redact_json(v);
        let text = red.to_string();
        assert_clean(&text);
        // What is not a credential is kept, so the log stays useful.
        assert_eq!(red["method"], "SendMessage");
        assert_eq!(red["params"]["message"]["messageId"], "m1");
        assert_eq!(red["oauth"]["tokenUrl"], "https://auth.example/token");
        assert_eq!(red["login"]["user"], "bob");
        assert_eq!(red["headerPairs"][1][1], "text/event-stream");
        assert!(text.contains("x=1"), "{text}");
        // Prose that starts like a scheme is not a credential.
        for prose in [
            "Basic idea: keep it simple",
            "Token counts are high",
            "Bearer of news",
        ] {
            assert_eq!(redact_text(prose), prose);
        }
        assert_eq!(
            redact_text("token ghp_abcdefgh1234"),
            format!("token {REDACTED}")
        );
    }
}
