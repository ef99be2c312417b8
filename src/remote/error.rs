//! What went wrong talking to a remote agent, classified the way a user (and the CLI's exit code) needs it.
//!
//! The official SDK reports everything as `a2a::A2AError`, and folds its own transport failures (connection
//! refused, unparseable body, broken SSE frame) into the same `INTERNAL_ERROR` code an agent uses for its own
//! failures. Our own transports (`wire/`) mark theirs with a detail (`wire::fault`); for the SDK's gRPC
//! transport we tell them apart by its message prefixes, which are stable strings in `a2a-client-lf` and
//! `a2a-grpc`. Anything else that came back as an error object is the agent's.

use a2a::A2AError;
use a2a::error_code;

/// Which side failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The user's input or configuration is wrong (exit code 2).
    Usage,
    /// We could not reach the agent, or what came back was not the protocol (exit code 3).
    Transport,
    /// The agent answered with an error object (exit code 4).
    Agent,
}

/// An error from the remote layer: a kind, and a one-line message a person can act on.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{message}")]
pub struct RemoteError {
    pub kind: ErrorKind,
    pub message: String,
    /// The A2A / JSON-RPC error code when the agent sent one.
    pub code: Option<i32>,
    /// The HTTP status that caused it, when one did and the caller may act on it (a card behind a 401).
    pub http_status: Option<u16>,
}

impl RemoteError {
    pub fn usage(message: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::Usage,
            message: safe(message.into()),
            code: None,
            http_status: None,
        }
    }

    pub fn transport(message: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::Transport,
            message: safe(message.into()),
            code: None,
            http_status: None,
        }
    }

    pub fn agent(code: i32, message: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::Agent,
            message: safe(message.into()),
            code: Some(code),
            http_status: None,
        }
    }

    /// Note the HTTP status this error stands for.
    pub fn with_http_status(mut self, status: u16) -> Self {
        self.http_status = Some(status);
        self
    }

    /// Prefix the message with what we were doing ("fetching the card of 'x'").
    pub fn context(mut self, what: impl std::fmt::Display) -> Self {
        self.message = format!("{}: {}", safe(what.to_string()), self.message);
        self
    }
}

/// Error messages quote remote text (a serde error can quote a card's field, a URL is the user's or the
/// agent's), and they are printed on the terminal and drawn in the console: sanitise them where they are made.
/// Secrets are redacted here too: reqwest quotes the request URL in its errors, API key and all.
fn safe(message: String) -> String {
    crate::trust::sanitize::sanitize_line(&crate::trust::redact::redact(&message)).0
}

/// Message prefixes the SDK uses for failures that happened on our side of the wire or in transit.
const SDK_TRANSPORT_PREFIXES: &[&str] = &[
    "HTTP request failed",
    "failed to parse",
    "failed to deserialize",
    "failed to serialize",
    "SSE ",
    "stream ended with",
    "expected streaming response",
    "JSON-RPC response missing result",
    "HTTP ",
    "gRPC connect error",
    "gRPC endpoint error",
    // The SDK's "gRPC TLS connect: …", and our own "gRPC TLS: <hint>" (remote/guard.rs).
    "gRPC TLS",
    "failed to build HTTP client",
];

/// Longest error text we repeat from the wire: a 500 page can be megabytes of HTML.
const MAX_ERROR_TEXT: usize = 300;

/// Classify an SDK error and make its text safe to print (remote text is untrusted and may be huge).
pub fn classify(err: &A2AError) -> RemoteError {
    let text = one_line(&err.message);
    if crate::remote::wire::is_fault(err) {
        return RemoteError::transport(hint_status(text));
    }
    let from_sdk = err.code == error_code::INTERNAL_ERROR
        && SDK_TRANSPORT_PREFIXES
            .iter()
            .any(|p| err.message.starts_with(p));
    if from_sdk {
        return RemoteError::transport(explain_transport(&text));
    }
    let name = code_name(err.code);
    RemoteError::agent(
        err.code,
        format!("{AGENT_ERROR} {} ({name}): {text}", err.code),
    )
}

/// How an agent's own error message is introduced in every message that quotes it.
const AGENT_ERROR: &str = "agent returned error";

/// Where the agent's own words start in a message that quotes an agent error ("… agent returned error -32603
/// (internal error): <the agent's message>"), so a note can show them as remote text. The first occurrence is
/// ours: what the agent wrote comes after it.
pub fn agent_text_start(message: &str) -> Option<usize> {
    let intro = message.find(AGENT_ERROR)?;
    let rest = message.get(intro..)?;
    let colon = rest.find("): ")?;
    let start = intro + colon + 3;
    (start < message.len()).then_some(start)
}

/// A named HTTP status that has a usual cause gets it said.
fn hint_status(text: String) -> String {
    let hint = if text.starts_with("HTTP 401") {
        " — the agent wants credentials (see [agents.auth] in the config, or --bearer-env)"
    } else if text.starts_with("HTTP 403") {
        " — the credentials were refused"
    } else if text.starts_with("HTTP 404") {
        " — is this the agent's interface URL?"
    } else {
        ""
    };
    format!("{text}{hint}")
}

/// Turn SDK phrasing into something that says what to check.
fn explain_transport(text: &str) -> String {
    if text.starts_with("failed to parse JSON-RPC response") {
        // The SDK's JSON-RPC transport does not look at the HTTP status, so a 401 page or a proxy error
        // surfaces as a parse failure. Say what it most likely means.
        return format!(
            "the reply was not JSON-RPC (wrong URL, an HTTP error page, or authentication required?) — {text}"
        );
    }
    if text.starts_with("HTTP request failed") {
        return format!("could not reach the agent — {text}");
    }
    text.to_string()
}

/// The spec's name for an error code, for messages.
pub fn code_name(code: i32) -> &'static str {
    match code {
        error_code::TASK_NOT_FOUND => "task not found",
        error_code::TASK_NOT_CANCELABLE => "task not cancelable",
        error_code::PUSH_NOTIFICATION_NOT_SUPPORTED => "push notifications not supported",
        error_code::UNSUPPORTED_OPERATION => "unsupported operation",
        error_code::CONTENT_TYPE_NOT_SUPPORTED => "content type not supported",
        error_code::INVALID_AGENT_RESPONSE => "invalid agent response",
        error_code::EXTENDED_CARD_NOT_CONFIGURED => "extended card not configured",
        error_code::EXTENSION_SUPPORT_REQUIRED => "extension support required",
        error_code::VERSION_NOT_SUPPORTED => "version not supported",
        error_code::PARSE_ERROR => "parse error",
        error_code::INVALID_REQUEST => "invalid request",
        error_code::METHOD_NOT_FOUND => "method not found",
        error_code::INVALID_PARAMS => "invalid params",
        error_code::INTERNAL_ERROR => "internal error",
        _ => "error",
    }
}

/// Sanitise remote text for a one-line message and cap its length.
pub fn one_line(raw: &str) -> String {
    let (clean, _) = crate::trust::sanitize::sanitize_line(raw);
    truncate_chars(&clean, MAX_ERROR_TEXT)
}

/// Cut at a char boundary and say how much was left out.
pub fn truncate_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((cut, _)) => format!("{}… ({} more bytes)", &s[..cut], s.len() - cut),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sdk_transport_failures_are_transport_errors() {
        let e = classify(&A2AError::internal(
            "HTTP request failed: error sending request",
        ));
        assert_eq!(e.kind, ErrorKind::Transport);
        assert!(e.message.contains("could not reach the agent"));
        let e = classify(&A2AError::internal(
            "failed to parse JSON-RPC response: expected value at line 1 column 1",
        ));
        assert_eq!(e.kind, ErrorKind::Transport);
        assert!(e.message.contains("not JSON-RPC"));
    }

    #[test]
    fn agent_error_objects_keep_code_and_message() {
        let e = classify(&A2AError::task_not_found("t-1"));
        assert_eq!(e.kind, ErrorKind::Agent);
        assert_eq!(e.code, Some(-32001));
        assert!(e.message.contains("-32001"));
        assert!(e.message.contains("task not found"));
        // An agent's own internal error is still the agent's.
        let e = classify(&A2AError::internal("database is down"));
        assert_eq!(e.kind, ErrorKind::Agent);
    }

    #[test]
    fn every_constructor_sanitises() {
        for e in [
            RemoteError::usage("a\u{1b}[2Jb"),
            RemoteError::transport("a\u{9b}31mb"),
            RemoteError::agent(1, "a\u{7}b").context("x\u{1b}]0;t\u{7}"),
        ] {
            assert!(
                !e.message.chars().any(|c| c.is_control()),
                "{:?}",
                e.message
            );
        }
    }

    #[test]
    fn hostile_and_huge_error_text_is_tamed() {
        let raw = format!("boom \x1b[2J\x07{}", "x".repeat(10_000));
        let e = classify(&A2AError::new(-32000, raw));
        assert!(!e.message.contains('\x1b'));
        assert!(!e.message.contains('\x07'));
        assert!(e.message.len() < 1_000);
    }
}
