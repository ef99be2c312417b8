//! The requirements `check` judges an agent by: one stable id each, the spec section it comes from, its
//! level, the area it belongs to, and what a conformant agent does. Ids are part of the output's contract
//! (`--json`, JUnit, the console's report): a requirement may be added, never renamed.
//!
//! Sections are those of the A2A v1.0 specification (`docs/specification.md`, v1.0.1); JSON-RPC's own codes
//! come from JSON-RPC 2.0 §5.1. A requirement whose level the spec leaves open is a SHOULD, so a miss is a
//! WARN, never a FAIL.

use serde::Serialize;

/// How strongly the spec asks for it (RFC 2119).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    Must,
    Should,
    May,
}

impl Level {
    pub fn label(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
            Level::May => "MAY",
        }
    }
}

/// What the check found for one requirement (on one interface).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Verdict {
    Pass,
    /// A MUST not met.
    Fail,
    /// A SHOULD not met, or a MUST whose reading is uncertain.
    Warn,
    /// Not judged, with the reason (not declared, not reachable, not asked for).
    Skip,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Warn => "WARN",
            Verdict::Skip => "SKIP",
        }
    }
}

/// Where a requirement belongs in the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Area {
    Discovery,
    Card,
    Signature,
    ExtendedCard,
    Versions,
    JsonRpc,
    HttpJson,
    Grpc,
    Tasks,
    Equivalence,
}

impl Area {
    pub fn label(self) -> &'static str {
        match self {
            Area::Discovery => "discovery",
            Area::Card => "card",
            Area::Signature => "signature",
            Area::ExtendedCard => "extended card",
            Area::Versions => "versions",
            Area::JsonRpc => "JSON-RPC",
            Area::HttpJson => "HTTP+JSON",
            Area::Grpc => "gRPC",
            Area::Tasks => "tasks",
            Area::Equivalence => "binding equivalence",
        }
    }
}

/// One requirement of the catalogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Requirement {
    pub id: &'static str,
    pub area: Area,
    pub level: Level,
    /// Where the spec says it.
    pub section: &'static str,
    /// What a conformant agent does, in a few words.
    pub title: &'static str,
}

const fn req(
    id: &'static str,
    area: Area,
    level: Level,
    section: &'static str,
    title: &'static str,
) -> Requirement {
    Requirement {
        id,
        area,
        level,
        section,
        title,
    }
}

use Area::*;
use Level::*;

/// Every requirement, in report order.
pub const CATALOGUE: &[Requirement] = &[
    // Discovery (§8.2, §8.6, §14.3)
    req(
        "discovery.well-known",
        Discovery,
        Must,
        "§8.2, §14.3",
        "the card is served at /.well-known/agent-card.json",
    ),
    req(
        "discovery.content-type",
        Discovery,
        Should,
        "§8.2, §14.1",
        "the card is served as JSON (application/json or application/a2a+json)",
    ),
    req(
        "discovery.legacy-path",
        Discovery,
        May,
        "Appendix A",
        "the pre-0.3 path /.well-known/agent.json, if served, gives the same card",
    ),
    req(
        "discovery.cache-control",
        Discovery,
        Should,
        "§8.6.1",
        "the card has Cache-Control with max-age",
    ),
    req(
        "discovery.etag",
        Discovery,
        Should,
        "§8.6.1",
        "the card has an ETag",
    ),
    req(
        "discovery.conditional-get",
        Discovery,
        Should,
        "§8.6, RFC 9110 §13",
        "a conditional GET of an unchanged card is answered 304",
    ),
    // Card structure (§4.4, §8.3)
    req(
        "card.required-fields",
        Card,
        Must,
        "§4.4.1",
        "name, description, version, supportedInterfaces, capabilities, default modes and skills are present",
    ),
    req(
        "card.field-types",
        Card,
        Must,
        "§4.4, §5.6",
        "every field has its type (strings, booleans, lists, objects)",
    ),
    req(
        "card.interfaces",
        Card,
        Must,
        "§4.4.6, §8.3.1",
        "each interface has a url, a protocolBinding and a Major.Minor protocolVersion",
    ),
    req(
        "card.interface-urls",
        Card,
        Must,
        "§4.4.6",
        "interface URLs are absolute http(s) URLs (host:port for gRPC)",
    ),
    req(
        "card.bindings-known",
        Card,
        Should,
        "§5.8",
        "protocolBinding is JSONRPC, HTTP+JSON, GRPC or a custom-binding URI",
    ),
    req(
        "card.urls",
        Card,
        Should,
        "§4.4.1, §4.4.2",
        "provider, documentation and icon URLs are absolute URLs",
    ),
    req(
        "card.media-types",
        Card,
        Should,
        "§4.4.1, §4.4.5",
        "input and output modes are media types (type/subtype)",
    ),
    req(
        "card.skills",
        Card,
        Must,
        "§4.4.5",
        "each skill has an id, a name, a description and tags; skill ids are unique",
    ),
    req(
        "card.security-requirements",
        Card,
        Must,
        "§4.5, §4.4.1",
        "security requirements name schemes the card declares",
    ),
    req(
        "card.security-schemes",
        Card,
        Must,
        "§4.5.1",
        "each security scheme is exactly one known kind with its required fields",
    ),
    req(
        "card.v1-shape",
        Card,
        Should,
        "§A.2, §8.3",
        "a v1.0 card carries no v0.3-only fields (or carries them as a deliberate v0.3 fallback)",
    ),
    // Signatures (§8.4)
    req(
        "signature.verifies",
        Signature,
        Should,
        "§8.4.3",
        "a signed card's signature verifies against the card",
    ),
    // Extended card (§3.1.11, §3.3.4, §13.3)
    req(
        "extended-card.declared",
        ExtendedCard,
        Must,
        "§3.3.4",
        "an undeclared extended card is refused with UnsupportedOperationError",
    ),
    req(
        "extended-card.needs-auth",
        ExtendedCard,
        Must,
        "§3.1.11, §13.3",
        "a declared extended card is not served without credentials",
    ),
    req(
        "extended-card.served",
        ExtendedCard,
        Must,
        "§3.1.11",
        "a declared extended card is served to the configured credential",
    ),
    // Versions (§3.6.2)
    req(
        "version.supported",
        Versions,
        Must,
        "§3.6.2",
        "a request with the interface's A2A-Version is processed",
    ),
    req(
        "version.unsupported",
        Versions,
        Must,
        "§3.6.2, §5.4",
        "an unsupported A2A-Version gets VersionNotSupportedError",
    ),
    req(
        "version.absent-is-0.3",
        Versions,
        Must,
        "§3.6.2",
        "a request without A2A-Version is treated as 0.3, not as 1.0",
    ),
    // JSON-RPC (§9, JSON-RPC 2.0 §5.1)
    req(
        "jsonrpc.parse-error",
        JsonRpc,
        Must,
        "§9.5, JSON-RPC 2.0 §5.1",
        "a body that is not JSON gets -32700",
    ),
    req(
        "jsonrpc.invalid-request",
        JsonRpc,
        Must,
        "§9.5, JSON-RPC 2.0 §5.1",
        "a request without a method gets -32600",
    ),
    req(
        "jsonrpc.method-not-found",
        JsonRpc,
        Must,
        "§9.5, JSON-RPC 2.0 §5.1",
        "an unknown method gets -32601",
    ),
    req(
        "jsonrpc.invalid-params",
        JsonRpc,
        Must,
        "§3.3.2, §9.5",
        "params of the wrong type get -32602",
    ),
    req(
        "jsonrpc.request-content-type",
        JsonRpc,
        Should,
        "§9.1",
        "a request that is not application/json is refused",
    ),
    req(
        "jsonrpc.response-content-type",
        JsonRpc,
        Must,
        "§9.1",
        "responses are application/json",
    ),
    req(
        "jsonrpc.error-shape",
        JsonRpc,
        Must,
        "§9.5, JSON-RPC 2.0 §5",
        "errors are JSON-RPC error responses (jsonrpc, id, integer code, message; data a list of @type objects)",
    ),
    req(
        "jsonrpc.task-not-found",
        JsonRpc,
        Must,
        "§3.1.3, §3.1.5, §5.4",
        "GetTask and CancelTask of an unknown id get TaskNotFoundError (-32001)",
    ),
    req(
        "jsonrpc.list-bad-page-token",
        JsonRpc,
        Should,
        "§3.1.4, §3.3.2",
        "ListTasks with a page token it never issued gets -32602",
    ),
    req(
        "jsonrpc.push-not-supported",
        JsonRpc,
        Must,
        "§3.3.4, §5.4",
        "push-config calls get PushNotificationNotSupportedError (-32003) when push is not declared",
    ),
    req(
        "jsonrpc.streaming-not-supported",
        JsonRpc,
        Must,
        "§3.3.4, §5.4",
        "SubscribeToTask gets UnsupportedOperationError (-32004) when streaming is not declared",
    ),
    // HTTP+JSON (§11)
    req(
        "rest.task-not-found",
        HttpJson,
        Must,
        "§3.1.3, §3.1.5, §5.4, §11.6",
        "GET /tasks/{id} and POST /tasks/{id}:cancel of an unknown id get 404 TASK_NOT_FOUND",
    ),
    req(
        "rest.error-body",
        HttpJson,
        Must,
        "§11.6",
        "errors are google.rpc.Status JSON with an ErrorInfo (reason, domain a2a-protocol.org)",
    ),
    req(
        "rest.malformed-json",
        HttpJson,
        Must,
        "§3.3.2, §11.6",
        "a body that is not JSON gets 400",
    ),
    req(
        "rest.invalid-params",
        HttpJson,
        Must,
        "§3.3.2, §11.6",
        "a request of the wrong shape gets 400",
    ),
    req(
        "rest.unknown-route",
        HttpJson,
        Should,
        "§11.3",
        "a path that is no operation gets 404",
    ),
    req(
        "rest.request-content-type",
        HttpJson,
        Should,
        "§11.1",
        "a request body that is not JSON-typed is refused",
    ),
    req(
        "rest.response-content-type",
        HttpJson,
        Should,
        "§11.1, §14.1",
        "responses are application/a2a+json",
    ),
    req(
        "rest.list-bad-page-token",
        HttpJson,
        Should,
        "§3.1.4, §11.6",
        "GET /tasks with a page token it never issued gets 400",
    ),
    req(
        "rest.push-not-supported",
        HttpJson,
        Must,
        "§3.3.4, §5.4",
        "push-config routes get 400 PUSH_NOTIFICATION_NOT_SUPPORTED when push is not declared",
    ),
    req(
        "rest.streaming-not-supported",
        HttpJson,
        Must,
        "§3.3.4, §5.4",
        "/tasks/{id}:subscribe gets 400 UNSUPPORTED_OPERATION when streaming is not declared",
    ),
    // gRPC (§10)
    req(
        "grpc.task-not-found",
        Grpc,
        Must,
        "§5.4, §10.6",
        "GetTask and CancelTask of an unknown id get NOT_FOUND",
    ),
    req(
        "grpc.error-info",
        Grpc,
        Must,
        "§10.6",
        "A2A errors carry a google.rpc.ErrorInfo with the A2A reason",
    ),
    req(
        "grpc.push-not-supported",
        Grpc,
        Must,
        "§3.3.4, §5.4",
        "push-config calls get FAILED_PRECONDITION PUSH_NOTIFICATION_NOT_SUPPORTED when push is not declared",
    ),
    req(
        "grpc.streaming-not-supported",
        Grpc,
        Must,
        "§3.3.4, §5.4",
        "SubscribeToTask gets FAILED_PRECONDITION UNSUPPORTED_OPERATION when streaming is not declared",
    ),
    // Tasks, with --send (§3.1, §4.1, §3.5, §11.7)
    req(
        "task.send-shape",
        Tasks,
        Must,
        "§3.1.1, §4.1",
        "SendMessage returns a Task or a Message of valid shape",
    ),
    req(
        "task.stream-first-event",
        Tasks,
        Must,
        "§3.1.2, §11.7",
        "a stream starts with a Task or a single Message",
    ),
    req(
        "task.stream-states",
        Tasks,
        Must,
        "§4.1.3, §3.1.2",
        "no event after a terminal state; the stream ends at a terminal or interrupted state",
    ),
    req(
        "task.stream-ids",
        Tasks,
        Must,
        "§3.4, §4.2",
        "every event carries the task's id and contextId",
    ),
    req(
        "task.artifact-chunks",
        Tasks,
        Must,
        "§4.2.2, §4.1.7",
        "append only to an artifact already sent, none after its lastChunk",
    ),
    req(
        "task.get-agrees",
        Tasks,
        Must,
        "§3.1.3",
        "GetTask afterwards agrees with the stream's last state and artifacts",
    ),
    req(
        "task.history-length",
        Tasks,
        Must,
        "§3.2.4",
        "historyLength N returns at most N messages (0: none)",
    ),
    req(
        "task.list-finds",
        Tasks,
        Must,
        "§3.1.4",
        "ListTasks filtered by the contextId finds the task",
    ),
    req(
        "task.cancel-terminal",
        Tasks,
        Must,
        "§3.1.5, §5.4",
        "CancelTask of a finished task gets TaskNotCancelableError",
    ),
    req(
        "task.subscribe-terminal",
        Tasks,
        Must,
        "§3.1.6, §5.4",
        "SubscribeToTask of a finished task gets UnsupportedOperationError",
    ),
    req(
        "task.context-continues",
        Tasks,
        Must,
        "§3.4.1",
        "a message sent with the task's contextId is answered in that context",
    ),
    // Binding equivalence (§5.1)
    req(
        "equivalence.bindings",
        Equivalence,
        Must,
        "§5.1",
        "the same message over each declared binding gives equivalent results (an agent's own nondeterminism makes a difference a WARN)",
    ),
    req(
        "equivalence.stream-vs-send",
        Equivalence,
        Should,
        "§5.1, §3.1.2",
        "streaming and non-streaming give the same final state and artifacts",
    ),
];

/// The official TCK's id for the same requirement (`a2aproject/a2a-tck`, branch `1.0-dev` at 357c4a8), where
/// it has one. The TCK encodes spec v1.0.0; where v1.0.1 changed a code, our probes accept both.
pub fn tck_id(id: &str) -> Option<&'static str> {
    Some(match id {
        "discovery.well-known" => "CARD-DISC-001",
        "discovery.cache-control" => "CARD-CACHE-001",
        "discovery.etag" => "CARD-CACHE-002",
        "card.required-fields" | "card.field-types" => "CARD-STRUCT-001",
        "card.interfaces" | "card.interface-urls" => "CARD-PROTO-002",
        "extended-card.declared" => "CORE-CAP-003",
        "version.supported" => "VER-SERVER-001",
        "version.unsupported" => "VER-SERVER-002",
        "version.absent-is-0.3" => "VER-SERVER-003",
        "jsonrpc.method-not-found" => "CORE-ERR-001",
        "jsonrpc.invalid-params" => "CORE-ERR-002",
        "jsonrpc.response-content-type" => "JSONRPC-FMT-002",
        "jsonrpc.error-shape" => "JSONRPC-ERR-001",
        "jsonrpc.task-not-found" => "CORE-GET-002",
        "jsonrpc.push-not-supported" | "rest.push-not-supported" | "grpc.push-not-supported" => {
            "CORE-CAP-001"
        }
        "jsonrpc.streaming-not-supported"
        | "rest.streaming-not-supported"
        | "grpc.streaming-not-supported" => "CORE-CAP-002",
        "rest.task-not-found" => "HTTP_JSON-STATUS-001",
        "rest.error-body" => "HTTP_JSON-ERR-002",
        "rest.response-content-type" => "HTTP_JSON-SVC-001",
        "grpc.task-not-found" => "GRPC-ERR-002",
        "grpc.error-info" => "GRPC-ERR-001",
        "task.stream-first-event" => "CORE-STREAM-003",
        "task.stream-states" => "STREAM-ORDER-001",
        "task.cancel-terminal" => "CORE-CANCEL-002",
        "task.subscribe-terminal" => "STREAM-SUB-003",
        "task.history-length" => "CORE-HIST-002",
        "equivalence.bindings" => "BIND-EQUIV-002",
        _ => return None,
    })
}

/// The requirement with this id (every id a probe uses is in the catalogue; a test checks it).
pub fn find(id: &str) -> Option<&'static Requirement> {
    CATALOGUE.iter().find(|r| r.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_well_formed() {
        let mut seen = std::collections::HashSet::new();
        for r in CATALOGUE {
            assert!(seen.insert(r.id), "duplicate id {}", r.id);
            assert!(
                r.id.chars()
                    .all(|c| c.is_ascii_lowercase() || c == '.' || c == '-' || c.is_ascii_digit()),
                "{}",
                r.id
            );
            assert!(r.section.starts_with('§') || r.section.starts_with("Appendix"));
        }
    }
}
