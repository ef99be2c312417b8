//! What the push receiver reads of a request before trusting it: the registration's token (from any of the
//! three headers senders use) and a body bounded in size.

use axum::body::Body;
use axum::http::{HeaderMap, header};
use futures::StreamExt;

use crate::push::Rejected;

const TOKEN_HEADERS: [&str; 2] = ["x-a2a-notification-token", "a2a-notification-token"];

/// Whether any of the three token carriers holds the task's token. Every candidate is compared (no early
/// exit) and each comparison is constant-time, so response timing says nothing about the token.
pub(super) fn token_matches(headers: &HeaderMap, expected: &str) -> bool {
    let mut presented: Vec<&[u8]> = Vec::new();
    for name in TOKEN_HEADERS {
        presented.extend(headers.get_all(name).iter().map(|v| v.as_bytes()));
    }
    presented.extend(
        headers
            .get_all(header::AUTHORIZATION)
            .iter()
            .filter_map(|v| bearer(v.as_bytes())),
    );
    presented
        .iter()
        .fold(false, |ok, t| ok | ct_eq(t, expected.as_bytes()))
}

/// The credentials of `Authorization: Bearer <token>` (scheme case-insensitive, RFC 9110 §11.1).
pub(super) fn bearer(value: &[u8]) -> Option<&[u8]> {
    let s = std::str::from_utf8(value).ok()?.trim();
    let (scheme, rest) = s.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| rest.trim().as_bytes())
}

/// Constant-time equality. Lengths may differ in time: every token we mint has the same length, so the
/// length is no secret.
pub(super) fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

/// The body, refusing more than `limit` bytes: a declared length over the limit before reading anything,
/// a chunked or longer body as soon as the limit is crossed.
pub(super) async fn read_capped(
    headers: &HeaderMap,
    body: Body,
    limit: usize,
) -> Result<Vec<u8>, Rejected> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|s| s.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(Rejected::TooLarge);
    }
    let mut out = Vec::with_capacity(declared.and_then(|n| usize::try_from(n).ok()).unwrap_or(0));
    let mut chunks = body.into_data_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|e| Rejected::Malformed(format!("reading the body: {e}")))?;
        if out.len() + chunk.len() > limit {
            return Err(Rejected::TooLarge);
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}
