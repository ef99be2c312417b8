//! Sending one request under the agent's deadlines, and naming what came back when it is not what we asked
//! for: "HTTP 502 Bad Gateway (text/html, 1.2 kB)", "HTTP 500 Internal Server Error (empty body)",
//! "HTTP 302 Found → https://elsewhere/". The SDK's transports never say the status.

use std::time::Duration;

use a2a::A2AError;
use bytes::{Bytes, BytesMut};
use futures::StreamExt;
use reqwest::header::{CONTENT_TYPE, HeaderMap, LOCATION};
use reqwest::{RequestBuilder, Response, StatusCode};
use tokio::time::Instant;

use super::{WireLimits, fault, human_size};
use crate::remote::http::reqwest_reason;

/// What a complete (unary) reply carried.
pub struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Reply {
    pub fn text(&self) -> Result<&str, A2AError> {
        std::str::from_utf8(&self.body).map_err(|e| {
            fault(format!(
                "the reply ({}) is not UTF-8 text: {e}",
                content_summary(&self.headers, self.body.len())
            ))
        })
    }

    /// "HTTP 502 Bad Gateway (text/html, 1.2 kB)" and the like, with a short quote when the body is text.
    pub fn describe(&self) -> String {
        describe_status(self.status, &self.headers, Some(&self.body))
    }
}

/// Send a request; its response headers must arrive within `limits.request` (from `started`).
pub async fn send(
    builder: RequestBuilder,
    limits: &WireLimits,
    started: Instant,
) -> Result<Response, A2AError> {
    let (client, request) = builder.build_split();
    let request =
        request.map_err(|e| fault(format!("cannot build the request: {}", reqwest_reason(&e))))?;
    let url = request.url().clone();
    // The client is shared and has no per-request timeout (a stream may idle for minutes): the deadline is
    // here.
    let sent = client.execute(request);
    let response = match tokio::time::timeout_at(started + limits.request, sent).await {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => {
            return Err(fault(format!(
                "HTTP request failed: could not reach {} — {}",
                origin_of(&url),
                reqwest_reason(&e)
            )));
        }
        Err(_) => {
            return Err(fault(format!(
                "HTTP request failed: no response from {} within {} (header deadline)",
                origin_of(&url),
                seconds(limits.request)
            )));
        }
    };
    if response.status().is_redirection() {
        return Err(fault(format!(
            "{}; calls to an agent follow no redirects (they would carry its credentials and the request \
             there). If the agent has moved, configure its new URL",
            describe_status(response.status(), response.headers(), None)
        )));
    }
    Ok(response)
}

/// Send a request and read its whole reply; all of it must arrive within `limits.request`, and the body may
/// not exceed `limits.max_event_bytes`.
pub async fn unary(builder: RequestBuilder, limits: &WireLimits) -> Result<Reply, A2AError> {
    let started = Instant::now();
    let response = send(builder, limits, started).await?;
    let status = response.status();
    let headers = response.headers().clone();
    let body = read_body(response, limits, started + limits.request).await?;
    Ok(Reply {
        status,
        headers,
        body,
    })
}

/// Read a body up to the size limit and before `deadline`.
pub async fn read_body(
    response: Response,
    limits: &WireLimits,
    deadline: Instant,
) -> Result<Bytes, A2AError> {
    let status = response.status();
    let limit = limits.max_event_bytes;
    if let Some(len) = response.content_length()
        && len > limit as u64
    {
        return Err(fault(format!(
            "HTTP {} reply of {} is larger than the limit ({})",
            status.as_u16(),
            human_size(len as usize),
            human_size(limit)
        )));
    }
    let mut body = BytesMut::new();
    let mut chunks = response.bytes_stream();
    loop {
        let next = match tokio::time::timeout_at(deadline, chunks.next()).await {
            Ok(next) => next,
            Err(_) => {
                return Err(fault(format!(
                    "HTTP request failed: the reply stopped after {} (deadline)",
                    human_size(body.len())
                )));
            }
        };
        match next {
            None => return Ok(body.freeze()),
            Some(Ok(chunk)) => {
                if body.len() + chunk.len() > limit {
                    return Err(fault(format!(
                        "HTTP {} reply is larger than the limit ({})",
                        status.as_u16(),
                        human_size(limit)
                    )));
                }
                body.extend_from_slice(&chunk);
            }
            Some(Err(e)) => {
                return Err(fault(format!(
                    "HTTP request failed: the connection closed after {} of the reply — {}",
                    human_size(body.len()),
                    reqwest_reason(&e)
                )));
            }
        }
    }
}

/// Whether a response declares Server-Sent Events.
pub fn is_event_stream(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"text/event-stream"))
}

/// Whether a response declares JSON (`application/json`, `application/problem+json`, …).
pub fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|m| {
            let m = m.trim().to_ascii_lowercase();
            m == "application/json" || m.ends_with("+json")
        })
}

/// Longest quote of a reply body in a message.
const QUOTE_CHARS: usize = 160;

/// "HTTP 404 Not Found (application/json, 58 B): {…}". The body, when given and textual, is quoted briefly
/// (an HTML page by its `<title>`); the quote is remote text and is sanitised where the message is shown.
pub fn describe_status(status: StatusCode, headers: &HeaderMap, body: Option<&[u8]>) -> String {
    let head = match status.canonical_reason() {
        Some(reason) => format!("HTTP {} {reason}", status.as_u16()),
        None => format!("HTTP {}", status.as_u16()),
    };
    if status.is_redirection() {
        let to = headers
            .get(LOCATION)
            .and_then(|v| v.to_str().ok())
            .map(crate::remote::error::one_line)
            .unwrap_or_else(|| "(no Location)".to_string());
        return format!("{head} → {to}");
    }
    let Some(body) = body else {
        return head;
    };
    if body.is_empty() {
        return format!("{head} (empty body)");
    }
    let summary = content_summary(headers, body.len());
    match quote(headers, body) {
        Some(q) => format!("{head} ({summary}): {q}"),
        None => format!("{head} ({summary})"),
    }
}

/// "text/html, 1.2 kB": the declared type (or "no content type") and the size.
pub fn content_summary(headers: &HeaderMap, len: usize) -> String {
    let kind = headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|m| crate::remote::error::one_line(m.trim()))
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| "no content type".to_string());
    format!("{kind}, {}", human_size(len))
}

fn quote(headers: &HeaderMap, body: &[u8]) -> Option<String> {
    let text = std::str::from_utf8(body.get(..body.len().min(64 * 1024))?)
        .or_else(|e| std::str::from_utf8(&body[..e.valid_up_to()]))
        .ok()?;
    let html = headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("html"))
        || text.trim_start().starts_with('<');
    let shown = if html {
        let lower = text.to_ascii_lowercase();
        let start = lower.find("<title>")? + "<title>".len();
        let end = lower.get(start..)?.find("</title>")? + start;
        text.get(start..end)?.trim().to_string()
    } else {
        text.trim().to_string()
    };
    if shown.is_empty() {
        return None;
    }
    Some(crate::remote::error::truncate_chars(
        &crate::remote::error::one_line(&shown),
        QUOTE_CHARS,
    ))
}

/// "http://127.0.0.1:41010": where a request went, without path or query (which may carry a key).
pub fn origin_of(url: &url::Url) -> String {
    url.origin().ascii_serialization()
}

pub fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{} s", s as u64)
    } else {
        format!("{s:.1} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(ct: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        if let Some(ct) = ct {
            h.insert(CONTENT_TYPE, HeaderValue::from_str(ct).unwrap());
        }
        h
    }

    #[test]
    fn statuses_are_named_with_type_size_and_a_short_quote() {
        let page = format!(
            "<html><head><title>502 Bad Gateway</title></head><body>{}</body></html>",
            "x".repeat(1100)
        );
        assert_eq!(
            describe_status(
                StatusCode::BAD_GATEWAY,
                &headers(Some("text/html; charset=utf-8")),
                Some(page.as_bytes())
            ),
            "HTTP 502 Bad Gateway (text/html, 1.2 kB): 502 Bad Gateway"
        );
        assert_eq!(
            describe_status(StatusCode::INTERNAL_SERVER_ERROR, &headers(None), Some(b"")),
            "HTTP 500 Internal Server Error (empty body)"
        );
        assert_eq!(
            describe_status(
                StatusCode::UNAUTHORIZED,
                &headers(Some("application/json")),
                Some(br#"{"error":"unauthorized"}"#)
            ),
            r#"HTTP 401 Unauthorized (application/json, 24 B): {"error":"unauthorized"}"#
        );
        let mut h = headers(None);
        h.insert(
            LOCATION,
            HeaderValue::from_static("https://elsewhere.example/"),
        );
        assert_eq!(
            describe_status(StatusCode::FOUND, &h, None),
            "HTTP 302 Found → https://elsewhere.example/"
        );
    }

    #[test]
    fn hostile_bodies_are_quoted_tamed() {
        let body = format!("\x1b]0;owned\x07{}", "y".repeat(5000));
        let d = describe_status(
            StatusCode::SERVICE_UNAVAILABLE,
            &headers(Some("text/plain")),
            Some(body.as_bytes()),
        );
        assert!(!d.contains('\x1b') && !d.contains('\x07'), "{d:?}");
        assert!(d.chars().count() < 260, "{}", d.len());
        // Not UTF-8 at all: no quote, still the status, type and size.
        let d = describe_status(
            StatusCode::BAD_GATEWAY,
            &headers(Some("application/octet-stream")),
            Some(&[0xff, 0xfe, 0x00]),
        );
        assert_eq!(d, "HTTP 502 Bad Gateway (application/octet-stream, 3 B)");
    }
}
