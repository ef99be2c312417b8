//! The console's own HTTP transports for the JSON-RPC and HTTP+JSON bindings, v1.0 and v0.3.
//!
//! Why not the SDK's (`a2a-client-lf` 0.2.9)? Three measured shortfalls, none of them in its data model:
//! - **It hides the HTTP status.** Its JSON-RPC transport parses any body as JSON-RPC, so a 502 page from a
//!   proxy or an empty 500 surfaces as "failed to parse JSON-RPC response: expected value at line 1 column 1".
//! - **Its streams have no timeouts.** A server that sends one event and then nothing holds a stream open until
//!   the server gives up; there is no idle bound, no header deadline, no overall deadline.
//! - **Its SSE parser is quadratic.** `parse_sse_bytes` drains its buffer from the front for every event and
//!   rescans from the start for every boundary; on a 100,000-event stream that memmove is most of the CPU.
//!
//! So the HTTP bindings are ours, behind the SDK's own `Transport` trait, speaking the SDK's types: requests
//! and replies go through the SDK's ProtoJSON conversion (`a2a_pb::protojson_conv`), exactly as its own
//! transports do, so nothing above `remote/` can tell. gRPC stays on the SDK's transport.
//!
//! - `http`: sending a request under deadlines, naming what came back when it is not what we asked for.
//! - `sse`: Server-Sent Events in linear time and bounded memory, with idle and overall deadlines.
//! - `envelope`: JSON-RPC and REST envelopes and error objects, decoded without an intermediate tree.
//! - `jsonrpc`, `rest`: the v1.0 transports. The v0.3 ones (`wire::v03`, `wire::v03_rest`) map their wire
//!   shapes onto these same pieces.

pub mod envelope;
pub mod http;
pub mod jsonrpc;
pub mod read_ahead;
pub mod rest;
pub mod sse;
pub mod v03;
pub mod v03_rest;

use std::time::Duration;

use a2a::{A2AError, TypedDetail};

/// Bounds on one agent's calls. All of them come from the agent's config and the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WireLimits {
    /// A unary call's whole reply, and a stream's response headers, must arrive within this.
    pub request: Duration,
    /// A stream that receives nothing at all (no event, no keep-alive comment) for this long is given up.
    pub idle: Duration,
    /// A stream, however lively, is given up after this long (`None`: never).
    pub overall: Option<Duration>,
    /// Largest single SSE event, and largest unary reply body, in bytes.
    pub max_event_bytes: usize,
}

/// The idle bound when neither the config nor the command line sets one: long enough for an agent that thinks
/// for a while between updates, short enough that a dead connection is noticed (the console then re-attaches).
pub const DEFAULT_IDLE: Duration = Duration::from_secs(60);
/// Largest event or reply we accept by default: room for a big artifact chunk, not for an unbounded one.
pub const DEFAULT_MAX_EVENT_BYTES: usize = 64 << 20;

impl WireLimits {
    pub fn new(request: Duration) -> Self {
        Self {
            request,
            idle: DEFAULT_IDLE,
            overall: None,
            max_event_bytes: DEFAULT_MAX_EVENT_BYTES,
        }
    }
}

/// The `type_url` our transports put on failures that happened on the wire (not in the agent), so that
/// `error::classify` needs no guessing from message text.
pub const TRANSPORT_FAULT: &str = "type.a2a-console.invalid/TransportFault";

/// A failure on the wire or in what came over it: the SDK's error type, marked as ours.
/// A request body as plain serde JSON (the flat push-config shape the SDKs send and read).
pub fn json_body<T: serde::Serialize>(req: &T) -> Result<serde_json::Value, a2a::A2AError> {
    serde_json::to_value(req).map_err(|e| fault(format!("cannot encode the request: {e}")))
}

pub fn fault(message: impl Into<String>) -> A2AError {
    A2AError::internal(message.into())
        .with_details(vec![TypedDetail::new(TRANSPORT_FAULT, Default::default())])
}

/// A stream given up for silence (`sse`): a fault, marked so that a reader who no longer waits for anything
/// (the task is waiting for the user, or finished) can let the stream go without a word.
pub fn idle_fault(message: impl Into<String>) -> A2AError {
    A2AError::internal(message.into()).with_details(vec![TypedDetail::new(
        TRANSPORT_FAULT,
        [("idle".to_string(), serde_json::Value::Bool(true))].into(),
    )])
}

/// Whether an error is `idle_fault`'s.
pub fn is_idle(err: &A2AError) -> bool {
    err.details.as_deref().is_some_and(|d| {
        d.iter()
            .any(|t| t.type_url == TRANSPORT_FAULT && t.value.contains_key("idle"))
    })
}

/// Whether an error is one of `fault`'s.
pub fn is_fault(err: &A2AError) -> bool {
    err.details
        .as_deref()
        .is_some_and(|d| d.iter().any(|t| t.type_url == TRANSPORT_FAULT))
}

/// "1.2 kB", "512 B", "26.3 MB": sizes in messages, decimal like most HTTP tools print them.
pub fn human_size(bytes: usize) -> String {
    match bytes {
        0..1000 => format!("{bytes} B"),
        1000..1_000_000 => format!("{:.1} kB", bytes as f64 / 1e3),
        _ => format!("{:.1} MB", bytes as f64 / 1e6),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_like_http_tools() {
        assert_eq!(human_size(0), "0 B");
        assert_eq!(human_size(999), "999 B");
        assert_eq!(human_size(1234), "1.2 kB");
        assert_eq!(human_size(26_300_000), "26.3 MB");
    }

    #[test]
    fn faults_are_recognised_by_their_detail_not_their_text() {
        assert!(is_fault(&fault("anything")));
        assert!(!is_fault(&A2AError::internal("HTTP 500")));
        assert!(is_fault(&idle_fault("quiet")) && is_idle(&idle_fault("quiet")));
        assert!(!is_idle(&fault("no event for 30 s (idle timeout)")));
    }
}
