//! `check` against an agent of our own that answers every read-only probe the way the spec says, and then
//! against the same agent with one known defect at a time: each defect must be flagged under its own
//! requirement id, and nothing else may be (a probe that cannot fail, or one that blames the wrong
//! requirement, fails here). The agent lives in this file; only 127.0.0.1 is used.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::sync::Arc;

use a2a_console::check::requirement::Verdict;
use a2a_console::remote::connect::agent::AgentTarget;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// One thing the agent gets wrong (`Conformant`: nothing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Defect {
    Conformant,
    NoWellKnown,
    LegacyDiffers,
    CardAsText,
    NoCacheControl,
    NoEtag,
    IgnoresIfNoneMatch,
    CardMissingVersion,
    CardStreamingIsText,
    CardDuplicateSkill,
    CardUndeclaredScheme,
    CardV03Scheme,
    CardV03Fields,
    CardBadMediaType,
    CardPatchVersion,
    AcceptsAnyVersion,
    AbsentVersionIsV1,
    ParseErrorCode,
    InvalidRequestCode,
    MethodNotFoundCode,
    InvalidParamsProcessed,
    RpcAcceptsTextPlain,
    RpcAnswersTextPlain,
    RpcErrorWithoutMessage,
    RpcTaskNotFoundCode,
    RpcAcceptsBadPageToken,
    RpcPushAnswered,
    RpcSubscribeUnknownMethod,
    ExtendedCardWrongError,
    RestTaskNotFoundStatus,
    RestWrongDomain,
    RestMalformed500,
    RestInvalidParams500,
    RestUnknownRoute200,
    RestAcceptsTextPlain,
    RestPlainJson,
    RestAcceptsBadPageToken,
    RestPushAnswered,
    RestSubscribeTaskFirst,
    // Active probes (`check --send`): the agent makes tasks.
    StreamFirstEventStatus,
    StreamEventAfterTerminal,
    StreamEndsWorking,
    StreamWrongTaskId,
    StreamAppendBeforeFirstChunk,
    StreamChunkAfterLast,
    SendTaskWithoutId,
    GetDisagrees,
    HistoryIgnored,
    ListMissesTask,
    CancelCompletedOk,
    SubscribeCompletedStreams,
    ContextChanged,
    RestSendsFailed,
}

/// Each read-only defect, and the requirement it must be flagged under.
const ALL: &[(Defect, &str)] = {
    use Defect::*;
    &[
        (NoWellKnown, "discovery.well-known"),
        (LegacyDiffers, "discovery.legacy-path"),
        (CardAsText, "discovery.content-type"),
        (NoCacheControl, "discovery.cache-control"),
        (NoEtag, "discovery.etag"),
        (IgnoresIfNoneMatch, "discovery.conditional-get"),
        (CardMissingVersion, "card.required-fields"),
        (CardStreamingIsText, "card.field-types"),
        (CardDuplicateSkill, "card.skills"),
        (CardUndeclaredScheme, "card.security-requirements"),
        (CardV03Scheme, "card.security-schemes"),
        (CardV03Fields, "card.v1-shape"),
        (CardBadMediaType, "card.media-types"),
        (CardPatchVersion, "card.interfaces"),
        (AcceptsAnyVersion, "version.unsupported"),
        (AbsentVersionIsV1, "version.absent-is-0.3"),
        (ParseErrorCode, "jsonrpc.parse-error"),
        (InvalidRequestCode, "jsonrpc.invalid-request"),
        (MethodNotFoundCode, "jsonrpc.method-not-found"),
        (InvalidParamsProcessed, "jsonrpc.invalid-params"),
        (RpcAcceptsTextPlain, "jsonrpc.request-content-type"),
        (RpcAnswersTextPlain, "jsonrpc.response-content-type"),
        (RpcErrorWithoutMessage, "jsonrpc.error-shape"),
        (RpcTaskNotFoundCode, "jsonrpc.task-not-found"),
        (RpcAcceptsBadPageToken, "jsonrpc.list-bad-page-token"),
        (RpcPushAnswered, "jsonrpc.push-not-supported"),
        (RpcSubscribeUnknownMethod, "jsonrpc.streaming-not-supported"),
        (ExtendedCardWrongError, "extended-card.declared"),
        (RestTaskNotFoundStatus, "rest.task-not-found"),
        (RestWrongDomain, "rest.error-body"),
        (RestMalformed500, "rest.malformed-json"),
        (RestInvalidParams500, "rest.invalid-params"),
        (RestUnknownRoute200, "rest.unknown-route"),
        (RestAcceptsTextPlain, "rest.request-content-type"),
        (RestPlainJson, "rest.response-content-type"),
        (RestAcceptsBadPageToken, "rest.list-bad-page-token"),
        (RestPushAnswered, "rest.push-not-supported"),
        (RestSubscribeTaskFirst, "rest.streaming-not-supported"),
    ]
};

/// Each defect of the task-making agent (`check --send`), and the requirement it must be flagged under.
const ACTIVE: &[(Defect, &str)] = {
    use Defect::*;
    &[
        (StreamFirstEventStatus, "task.stream-first-event"),
        (StreamEventAfterTerminal, "task.stream-states"),
        (StreamEndsWorking, "task.stream-states"),
        (StreamWrongTaskId, "task.stream-ids"),
        (StreamAppendBeforeFirstChunk, "task.artifact-chunks"),
        (StreamChunkAfterLast, "task.artifact-chunks"),
        (SendTaskWithoutId, "task.send-shape"),
        (GetDisagrees, "task.get-agrees"),
        (HistoryIgnored, "task.history-length"),
        (ListMissesTask, "task.list-finds"),
        (CancelCompletedOk, "task.cancel-terminal"),
        (SubscribeCompletedStreams, "task.subscribe-terminal"),
        (ContextChanged, "task.context-continues"),
        (RestSendsFailed, "equivalence.bindings"),
    ]
};

struct Agent {
    defect: Defect,
    base: String,
    /// Declares streaming and makes tasks (for the active probes).
    active: bool,
    tasks: std::sync::Mutex<Vec<Value>>,
}

fn card(a: &Agent) -> Value {
    use Defect::*;
    let mut c = json!({
        "name": "conformant", "description": "answers every probe as the spec says", "version": "1.0",
        "supportedInterfaces": [
            {"url": format!("{}/rpc", a.base), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": format!("{}/rest", a.base), "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}
        ],
        "capabilities": if a.active { json!({"streaming": true}) } else { json!({}) },
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "securitySchemes": {"key": {"apiKeySecurityScheme": {"location": "header", "name": "X-Key"}}},
        "securityRequirements": [{}, {"schemes": {"key": {}}}],
        "skills": [{"id": "echo", "name": "Echo", "description": "echoes", "tags": ["test"]}]
    });
    match a.defect {
        CardMissingVersion => {
            c.as_object_mut().map(|o| o.remove("version"));
        }
        CardStreamingIsText => c["capabilities"]["streaming"] = "no".into(),
        CardDuplicateSkill => {
            c["skills"] = json!([
                {"id": "echo", "name": "Echo", "description": "echoes", "tags": ["test"]},
                {"id": "echo", "name": "Echo 2", "description": "echoes again", "tags": ["test"]}
            ])
        }
        CardUndeclaredScheme => {
            c["securityRequirements"] = json!([{"schemes": {"oauth": {"list": []}}}])
        }
        CardV03Scheme => {
            c["securitySchemes"]["key"] = json!({"type": "apiKey", "in": "header", "name": "X-Key"})
        }
        CardV03Fields => c["preferredTransport"] = "JSONRPC".into(),
        CardBadMediaType => c["defaultOutputModes"] = json!(["text"]),
        CardPatchVersion => {
            c["supportedInterfaces"][0]["protocolVersion"] = "1.0.0".into();
            c["supportedInterfaces"][1]["protocolVersion"] = "1.0.0".into();
        }
        _ => {}
    }
    c
}

fn with_type(status: StatusCode, ct: &str, body: String) -> Response {
    (status, [("content-type", ct.to_string())], body).into_response()
}

fn rpc_error(a: &Agent, id: &Value, code: i64, reason: &str) -> Response {
    let mut err = json!({"code": code, "message": reason.to_lowercase(),
        "data": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason, "domain": "a2a-protocol.org"}]});
    if a.defect == Defect::RpcErrorWithoutMessage {
        err.as_object_mut().map(|o| o.remove("message"));
    }
    let ct = if a.defect == Defect::RpcAnswersTextPlain {
        "text/plain"
    } else {
        "application/json"
    };
    with_type(
        StatusCode::OK,
        ct,
        json!({"jsonrpc": "2.0", "id": id, "error": err}).to_string(),
    )
}

fn rpc(a: &Agent, headers: &HeaderMap, body: &Bytes) -> Response {
    use Defect::*;
    let d = a.defect;
    let ct = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if !ct.starts_with("application/json") && d != RpcAcceptsTextPlain {
        return rpc_error(a, &Value::Null, -32600, "INVALID_REQUEST");
    }
    let Ok(req) = serde_json::from_slice::<Value>(body) else {
        return rpc_error(
            a,
            &Value::Null,
            if d == ParseErrorCode { -32600 } else { -32700 },
            "PARSE_ERROR",
        );
    };
    let id = req.get("id").cloned().unwrap_or(Value::Null);
    let Some(method) = req.get("method").and_then(Value::as_str) else {
        return rpc_error(
            a,
            &id,
            if d == InvalidRequestCode {
                -32601
            } else {
                -32600
            },
            "INVALID_REQUEST",
        );
    };
    let version = headers.get("a2a-version").and_then(|v| v.to_str().ok());
    let version_ok = match version {
        Some("1.0") => true,
        None => d == AbsentVersionIsV1,
        Some(_) => d == AcceptsAnyVersion,
    };
    if !version_ok {
        return rpc_error(a, &id, -32009, "VERSION_NOT_SUPPORTED");
    }
    let params = req.get("params").cloned().unwrap_or(Value::Null);
    if a.active
        && let Some(r) = active_rpc(a, method, &params, &id)
    {
        return r;
    }
    match method {
        "GetTask" | "CancelTask" => {
            if !params.get("id").is_some_and(Value::is_string) && d != InvalidParamsProcessed {
                return rpc_error(a, &id, -32602, "INVALID_PARAMS");
            }
            let code = if d == RpcTaskNotFoundCode && method == "GetTask" { -32602 } else { -32001 };
            rpc_error(a, &id, code, "TASK_NOT_FOUND")
        }
        "ListTasks" if d == RpcAcceptsBadPageToken => with_type(
            StatusCode::OK,
            "application/json",
            json!({"jsonrpc": "2.0", "id": id, "result": {"tasks": [], "nextPageToken": "", "pageSize": 50, "totalSize": 0}}).to_string(),
        ),
        "ListTasks" => rpc_error(a, &id, -32602, "INVALID_PARAMS"),
        "ListTaskPushNotificationConfigs" if d == RpcPushAnswered => with_type(
            StatusCode::OK,
            "application/json",
            json!({"jsonrpc": "2.0", "id": id, "result": {}}).to_string(),
        ),
        "ListTaskPushNotificationConfigs" => rpc_error(a, &id, -32003, "PUSH_NOTIFICATION_NOT_SUPPORTED"),
        "SubscribeToTask" if d == RpcSubscribeUnknownMethod => rpc_error(a, &id, -32601, "METHOD_NOT_FOUND"),
        "SubscribeToTask" => rpc_error(a, &id, -32004, "UNSUPPORTED_OPERATION"),
        "GetExtendedAgentCard" if d == ExtendedCardWrongError => {
            rpc_error(a, &id, -32007, "EXTENDED_AGENT_CARD_NOT_CONFIGURED")
        }
        "GetExtendedAgentCard" => rpc_error(a, &id, -32004, "UNSUPPORTED_OPERATION"),
        _ => rpc_error(
            a,
            &id,
            if d == MethodNotFoundCode { -32600 } else { -32601 },
            "METHOD_NOT_FOUND",
        ),
    }
}

fn rest_error(a: &Agent, status: u16, reason: &str) -> Response {
    let domain = if a.defect == Defect::RestWrongDomain {
        "example.com"
    } else {
        "a2a-protocol.org"
    };
    let body = json!({"error": {"code": status, "status": "X", "message": reason.to_lowercase(),
        "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason, "domain": domain}]}});
    let ct = if a.defect == Defect::RestPlainJson {
        "application/json"
    } else {
        "application/a2a+json"
    };
    with_type(
        StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST),
        ct,
        body.to_string(),
    )
}

fn rest(
    a: &Agent,
    method: &Method,
    path: &str,
    query: &str,
    headers: &HeaderMap,
    body: &Bytes,
) -> Response {
    use Defect::*;
    let d = a.defect;
    let ok = |v: Value| with_type(StatusCode::OK, "application/a2a+json", v.to_string());
    let is_task = path.starts_with("/tasks/");
    let known =
        path == "/message:send" || path == "/tasks" || path == "/extendedAgentCard" || is_task;
    if !known {
        return if d == RestUnknownRoute200 {
            ok(json!({}))
        } else {
            rest_error(a, 404, "NOT_FOUND")
        };
    }
    let version = headers.get("a2a-version").and_then(|v| v.to_str().ok());
    let version_ok = match version {
        Some("1.0") => true,
        None => d == AbsentVersionIsV1,
        Some(_) => d == AcceptsAnyVersion,
    };
    if !version_ok {
        return rest_error(a, 400, "VERSION_NOT_SUPPORTED");
    }
    if *method == Method::POST {
        let ct = headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        if !ct.contains("json") && d != RestAcceptsTextPlain {
            return rest_error(a, 415, "CONTENT_TYPE_NOT_SUPPORTED");
        }
    }
    if path == "/message:send"
        && a.active
        && let Ok(v) = serde_json::from_slice::<Value>(body)
        && v.get("message").is_some_and(Value::is_object)
    {
        let mut task = make_task(a, &v["message"]);
        if d == RestSendsFailed {
            task["status"]["state"] = "TASK_STATE_FAILED".into();
        }
        return ok(json!({ "task": task }));
    }
    if path == "/message:send" {
        let Ok(v) = serde_json::from_slice::<Value>(body) else {
            return rest_error(
                a,
                if d == RestMalformed500 { 500 } else { 400 },
                "INVALID_REQUEST",
            );
        };
        if !v.get("message").is_some_and(Value::is_object) {
            return rest_error(
                a,
                if d == RestInvalidParams500 { 500 } else { 400 },
                "INVALID_PARAMS",
            );
        }
        return rest_error(a, 400, "INVALID_PARAMS");
    }
    if path == "/tasks" {
        return if query.contains("pageToken") && d != RestAcceptsBadPageToken {
            rest_error(a, 400, "INVALID_PARAMS")
        } else {
            ok(json!({"tasks": [], "nextPageToken": "", "pageSize": 50, "totalSize": 0}))
        };
    }
    if path == "/extendedAgentCard" {
        return rest_error(a, 400, "UNSUPPORTED_OPERATION");
    }
    if path.ends_with("/pushNotificationConfigs") {
        return if d == RestPushAnswered {
            ok(json!({}))
        } else {
            rest_error(a, 400, "PUSH_NOTIFICATION_NOT_SUPPORTED")
        };
    }
    if path.ends_with(":subscribe") && d != RestSubscribeTaskFirst {
        return rest_error(a, 400, "UNSUPPORTED_OPERATION");
    }
    rest_error(
        a,
        if d == RestTaskNotFoundStatus {
            400
        } else {
            404
        },
        "TASK_NOT_FOUND",
    )
}

async fn handle(State(a): State<Arc<Agent>>, req: Request) -> Response {
    use Defect::*;
    let (parts, body) = req.into_parts();
    let body = axum::body::to_bytes(body, 1 << 20)
        .await
        .unwrap_or_default();
    let path = parts.uri.path().to_string();
    let query = parts.uri.query().unwrap_or("").to_string();
    let d = a.defect;
    if path == "/.well-known/agent-card.json" {
        if d == NoWellKnown {
            return StatusCode::NOT_FOUND.into_response();
        }
        let text = card(&a).to_string();
        let etag = "\"v1\"";
        let inm = parts
            .headers
            .get("if-none-match")
            .and_then(|v| v.to_str().ok());
        let ims = parts.headers.get("if-modified-since").is_some();
        if d != IgnoresIfNoneMatch && (inm == Some(etag) || ims) {
            return StatusCode::NOT_MODIFIED.into_response();
        }
        let mut r = with_type(
            StatusCode::OK,
            if d == CardAsText {
                "text/plain"
            } else {
                "application/json"
            },
            text,
        );
        let h = r.headers_mut();
        if d != NoCacheControl {
            h.insert("cache-control", "max-age=300".parse().unwrap());
        }
        if d != NoEtag {
            h.insert("etag", etag.parse().unwrap());
        }
        h.insert(
            "last-modified",
            "Wed, 02 Dec 2026 10:00:00 GMT".parse().unwrap(),
        );
        return r;
    }
    if path == "/.well-known/agent.json" {
        return if d == LegacyDiffers {
            with_type(
                StatusCode::OK,
                "application/json",
                json!({"name": "another"}).to_string(),
            )
        } else {
            StatusCode::NOT_FOUND.into_response()
        };
    }
    if path == "/rpc" && parts.method == Method::POST {
        return rpc(&a, &parts.headers, &body);
    }
    if let Some(rest_path) = path.strip_prefix("/rest") {
        return rest(&a, &parts.method, rest_path, &query, &parts.headers, &body);
    }
    StatusCode::NOT_FOUND.into_response()
}

async fn serve(defect: Defect) -> String {
    serve_as(defect, false).await
}

async fn serve_as(defect: Defect, active: bool) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let agent = Arc::new(Agent {
        defect,
        base: base.clone(),
        active,
        tasks: Default::default(),
    });
    let app = Router::new().fallback(handle).with_state(agent);
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

/// The ids check flags (any verdict but PASS), less the SKIPs every run of this agent has.
async fn flagged(defect: Defect) -> BTreeSet<String> {
    let base = serve(defect).await;
    let target = AgentTarget::from_url(&base, std::time::Duration::from_secs(5));
    let mut notes = Vec::new();
    let report = a2a_console::check::run(&target, &Default::default(), &|_| {}, &mut notes)
        .await
        .unwrap();
    assert!(report.requests_sent <= report.request_budget);
    report
        .findings
        .iter()
        .filter(|f| f.verdict != Verdict::Pass)
        // The active probes are skipped unless asked for (`check --send`).
        .filter(|f| {
            !(f.verdict == Verdict::Skip
                && (f.id.starts_with("task.") || f.id.starts_with("equivalence.")))
        })
        // Unsigned card: signing is optional.
        .filter(|f| !(f.id == "signature.verifies" && f.verdict == Verdict::Skip))
        // With no card, everything after discovery is skipped, which is right.
        .filter(|f| !(defect == Defect::NoWellKnown && f.verdict == Verdict::Skip))
        .map(|f| f.id.to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conformant_agent_passes_every_read_only_probe() {
    assert_eq!(flagged(Defect::Conformant).await, BTreeSet::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_defect_is_flagged_under_its_own_id_and_nothing_else() {
    let mut wrong = Vec::new();
    for (d, id) in ALL {
        let got = flagged(*d).await;
        let want: BTreeSet<String> = [id.to_string()].into();
        if got != want {
            wrong.push(format!("{d:?}: expected {want:?}, got {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_must_failure_is_exit_8_and_the_reports_are_well_formed() {
    let base = serve(Defect::RpcTaskNotFoundCode).await;
    let dir = tempfile::tempdir().unwrap();
    let junit = dir.path().join("check.xml");
    std::fs::write(dir.path().join("none.toml"), "").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_a2a-console"))
        .args(["check", &base, "--json", "--junit"])
        .arg(&junit)
        .env("A2A_CONSOLE_CONFIG", dir.path().join("none.toml"))
        .env("XDG_DATA_HOME", dir.path())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(8),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["schema"], 1);
    assert_eq!(report["summary"]["must_failed"], true);
    let failed: Vec<&Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["verdict"] == "FAIL")
        .collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["id"], "jsonrpc.task-not-found");
    assert_eq!(failed[0]["level"], "MUST");
    assert_eq!(failed[0]["tck"], "CORE-GET-002");
    assert!(
        failed[0]["evidence"][0]["response_body"]
            .as_str()
            .unwrap()
            .contains("-32602")
    );
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert!(xml.starts_with("<?xml"));
    assert_eq!(
        xml.matches("<testcase ").count(),
        report["findings"].as_array().unwrap().len()
    );
    assert_eq!(xml.matches("<failure ").count(), 1);
    assert_eq!(
        xml.matches("<testcase ").count(),
        xml.matches("</testcase>").count()
    );
}

#[test]
fn an_agent_that_does_not_answer_is_exit_3_not_a_verdict() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("none.toml"), "").unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_a2a-console"))
        .args(["check", &url])
        .env("A2A_CONSOLE_CONFIG", dir.path().join("none.toml"))
        .env("XDG_DATA_HOME", dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("FAIL  discovery.well-known"), "{text}");
    assert!(text.contains("no card could be read"), "{text}");
}

/// A finished task for `message` (in its context, or a new one), kept for GetTask, ListTasks and the rest.
fn make_task(a: &Agent, message: &Value) -> Value {
    let context = match message.get("contextId").and_then(Value::as_str) {
        Some(c) if a.defect != Defect::ContextChanged => c.to_string(),
        _ => uuid::Uuid::new_v4().to_string(),
    };
    let id = uuid::Uuid::new_v4().to_string();
    let state = if a.defect == Defect::StreamEndsWorking {
        "TASK_STATE_WORKING"
    } else {
        "TASK_STATE_COMPLETED"
    };
    let task = json!({
        "id": id, "contextId": context,
        "status": {"state": state},
        "artifacts": [{"artifactId": "a1", "parts": [{"text": "hello"}]}],
        "history": [message.clone(), {"messageId": uuid::Uuid::new_v4().to_string(), "role": "ROLE_AGENT", "parts": [{"text": "hello"}]}]
    });
    a.tasks.lock().unwrap().push(task.clone());
    task
}

fn find_task(a: &Agent, id: &str) -> Option<Value> {
    a.tasks
        .lock()
        .unwrap()
        .iter()
        .find(|t| t["id"] == id)
        .cloned()
}

fn rpc_ok(id: &Value, result: Value) -> Response {
    with_type(
        StatusCode::OK,
        "application/json",
        json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string(),
    )
}

/// The events of a streamed task, each a JSON-RPC response.
fn stream_events(a: &Agent, task: &Value, id: &Value) -> Response {
    use Defect::*;
    let d = a.defect;
    let (tid, ctx) = (task["id"].clone(), task["contextId"].clone());
    let mut first = task.clone();
    first["status"]["state"] = "TASK_STATE_SUBMITTED".into();
    first.as_object_mut().map(|o| o.remove("artifacts"));
    let status = |s: &str, t: &Value| json!({"statusUpdate": {"taskId": t, "contextId": ctx, "status": {"state": s}}});
    let chunk = |text: &str, append: bool, last: bool| json!({"artifactUpdate": {"taskId": tid, "contextId": ctx, "artifact": {"artifactId": "a1", "parts": [{"text": text}]}, "append": append, "lastChunk": last}});
    let mut events = Vec::new();
    if d != StreamFirstEventStatus {
        events.push(json!({ "task": first }));
    }
    let working_id = if d == StreamWrongTaskId {
        json!("another-task")
    } else {
        tid.clone()
    };
    events.push(status("TASK_STATE_WORKING", &working_id));
    events.push(chunk(
        "hel",
        d == StreamAppendBeforeFirstChunk,
        d == StreamChunkAfterLast,
    ));
    events.push(chunk("lo", true, true));
    if d != StreamEndsWorking {
        events.push(status("TASK_STATE_COMPLETED", &tid));
    }
    if d == StreamEventAfterTerminal {
        events.push(status("TASK_STATE_WORKING", &tid));
    }
    let body: String = events
        .iter()
        .map(|e| {
            format!(
                "data: {}\n\n",
                json!({"jsonrpc": "2.0", "id": id, "result": e})
            )
        })
        .collect();
    with_type(StatusCode::OK, "text/event-stream", body)
}

/// The task-making side of the JSON-RPC interface; `None` for what the read-only handler answers.
fn active_rpc(a: &Agent, method: &str, params: &Value, id: &Value) -> Option<Response> {
    use Defect::*;
    let d = a.defect;
    let task_id = params.get("id").and_then(Value::as_str).unwrap_or_default();
    Some(match method {
        "SendMessage" => {
            let mut task = make_task(a, params.get("message")?);
            if d == SendTaskWithoutId {
                task.as_object_mut().map(|o| o.remove("id"));
            }
            rpc_ok(id, json!({ "task": task }))
        }
        "SendStreamingMessage" => {
            let task = make_task(a, params.get("message")?);
            stream_events(a, &task, id)
        }
        "GetTask" => {
            let mut task = find_task(a, task_id)?;
            if d == GetDisagrees {
                task["status"]["state"] = "TASK_STATE_FAILED".into();
            }
            if let Some(n) = params.get("historyLength").and_then(Value::as_u64)
                && d != HistoryIgnored
            {
                let h: Vec<Value> = task["history"].as_array().cloned().unwrap_or_default();
                let keep = h[h.len().saturating_sub(n as usize)..].to_vec();
                if keep.is_empty() {
                    task.as_object_mut().map(|o| o.remove("history"));
                } else {
                    task["history"] = keep.into();
                }
            }
            rpc_ok(id, task)
        }
        "ListTasks" if params.get("pageToken").is_none() => {
            let ctx = params.get("contextId").cloned().unwrap_or(Value::Null);
            let tasks: Vec<Value> = if d == ListMissesTask {
                Vec::new()
            } else {
                a.tasks
                    .lock()
                    .unwrap()
                    .iter()
                    .filter(|t| t["contextId"] == ctx)
                    .cloned()
                    .collect()
            };
            rpc_ok(
                id,
                json!({"tasks": tasks, "nextPageToken": "", "pageSize": 50, "totalSize": tasks.len()}),
            )
        }
        "CancelTask" => {
            let task = find_task(a, task_id)?;
            let state = task["status"]["state"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            if state == "TASK_STATE_COMPLETED" && d != CancelCompletedOk {
                return Some(rpc_error(a, id, -32002, "TASK_NOT_CANCELABLE"));
            }
            let mut tasks = a.tasks.lock().unwrap();
            let t = tasks.iter_mut().find(|t| t["id"] == task_id)?;
            if state != "TASK_STATE_COMPLETED" {
                t["status"]["state"] = "TASK_STATE_CANCELED".into();
            }
            rpc_ok(id, t.clone())
        }
        "SubscribeToTask" => match find_task(a, task_id) {
            Some(t) if d == SubscribeCompletedStreams => with_type(
                StatusCode::OK,
                "text/event-stream",
                format!(
                    "data: {}\n\n",
                    json!({"jsonrpc": "2.0", "id": id, "result": {"task": t}})
                ),
            ),
            Some(_) => rpc_error(a, id, -32004, "UNSUPPORTED_OPERATION"),
            None => rpc_error(a, id, -32001, "TASK_NOT_FOUND"),
        },
        _ => return None,
    })
}

/// The active probes' verdicts (FAIL and WARN; a probe that depends on a failed one may be skipped).
async fn flagged_active(defect: Defect) -> BTreeSet<String> {
    let base = serve_as(defect, true).await;
    let target = AgentTarget::from_url(&base, std::time::Duration::from_secs(5));
    let opts = a2a_console::check::Options {
        send: Some("hello".into()),
        examples: false,
    };
    let report = a2a_console::check::run(&target, &opts, &|_| {}, &mut Vec::new())
        .await
        .unwrap();
    assert!(report.active);
    assert!(
        report.requests_sent <= report.request_budget,
        "{} > {}",
        report.requests_sent,
        report.request_budget
    );
    report
        .findings
        .iter()
        .filter(|f| f.id.starts_with("task.") || f.id.starts_with("equivalence."))
        .filter(|f| matches!(f.verdict, Verdict::Fail | Verdict::Warn))
        .map(|f| f.id.to_string())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn active_probes_pass_a_conformant_agent_and_flag_each_defect_under_its_id() {
    assert_eq!(flagged_active(Defect::Conformant).await, BTreeSet::new());
    let mut wrong = Vec::new();
    for (d, id) in ACTIVE {
        let got = flagged_active(*d).await;
        let want: BTreeSet<String> = [id.to_string()].into();
        if got != want {
            wrong.push(format!("{d:?}: expected {want:?}, got {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
