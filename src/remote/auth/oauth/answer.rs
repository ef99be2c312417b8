//! Reading what a token or device-authorization endpoint answered: the JSON object, an OAuth error (RFC 6749
//! §5.2) or an HTTP error, with the body excerpted and any secret in it masked, and the token response's
//! fields.

use super::*;

/// Turns a status and body into the JSON object, an OAuth error, or an HTTP error.
pub(in crate::remote::auth) fn interpret(
    what: &'static str,
    status: StatusCode,
    location: Option<String>,
    bytes: &[u8],
    redact: &[&str],
) -> Result<Map<String, Value>, OAuthError> {
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(obj)) => {
            if let Some(code) = obj.get("error").and_then(Value::as_str) {
                return Err(OAuthError::Server {
                    status: status.as_u16(),
                    code: one_line(code),
                    description: optional_str(&obj, "error_description")
                        .map(|d| one_line(&masked(&d, redact))),
                    uri: optional_str(&obj, "error_uri").map(|u| one_line(&u)),
                });
            }
            if status.is_success() {
                return Ok(obj);
            }
        }
        _ if status.is_success() => {
            return Err(OAuthError::InvalidResponse {
                what,
                reason: format!("not a JSON object: {}", excerpt(bytes, redact)),
            });
        }
        _ => {}
    }
    let body = match (status.is_redirection(), location) {
        (true, Some(to)) => format!("a redirect to {to}, which OAuth endpoints must not send"),
        _ => excerpt(bytes, redact),
    };
    Err(OAuthError::Http {
        what,
        status: status.as_u16(),
        body,
    })
}

/// A body as one sanitised, capped line, with secrets masked.
pub(in crate::remote::auth) fn excerpt(bytes: &[u8], redact: &[&str]) -> String {
    let text = String::from_utf8_lossy(bytes);
    one_line(masked(&text, redact).trim())
}

pub(in crate::remote::auth) fn masked(text: &str, redact: &[&str]) -> String {
    redact
        .iter()
        .filter(|s| !s.is_empty())
        .fold(text.to_string(), |t, s| t.replace(s, "***"))
}

/// RFC 6749 §5.1. Field errors name the field only, never its value (it may be a token).
pub(in crate::remote::auth) fn token_from(
    obj: &Map<String, Value>,
) -> Result<TokenResponse, OAuthError> {
    let invalid = |reason: String| OAuthError::InvalidResponse {
        what: "token endpoint",
        reason,
    };
    let access_token = required_str(obj, "access_token").map_err(invalid)?;
    let token_type = optional_str(obj, "token_type").unwrap_or_else(|| "Bearer".into());
    Ok(TokenResponse {
        access_token: Secret::new(access_token),
        token_type: one_line(&token_type),
        expires_in: optional_u64(obj, "expires_in"),
        refresh_token: optional_str(obj, "refresh_token").map(Secret::new),
        scope: optional_str(obj, "scope").map(|s| one_line(&s)),
        id_token: optional_str(obj, "id_token").map(Secret::new),
    })
}

pub(in crate::remote::auth) fn required_str(
    obj: &Map<String, Value>,
    key: &str,
) -> Result<String, String> {
    optional_str(obj, key).ok_or_else(|| format!("no {key}"))
}

/// A non-empty string field.
pub(in crate::remote::auth) fn optional_str(obj: &Map<String, Value>, key: &str) -> Option<String> {
    obj.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(String::from)
}

/// A non-negative integer, also when sent as a string (some older servers quote `expires_in`).
pub(in crate::remote::auth) fn optional_u64(obj: &Map<String, Value>, key: &str) -> Option<u64> {
    match obj.get(key)? {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}
