//! A `Transport` for agents that still speak protocol 0.3 over JSON-RPC (its default binding; HTTP+JSON 0.3 is
//! `wire::v03_rest`, which reuses this mapping). Protocol 0.2.x has the same JSON-RPC wire and is spoken
//! the same way.
//!
//! The official Rust SDK implements 1.0 only (`a2a::VERSION`), so 0.3 needs its own transport. It maps every
//! request from the SDK's v1.0 types into the 0.3 JSON-RPC shape and every answer back (spec digest §12:
//! slash-style method names, `kind` discriminators, lowercase states, the `final` flag, nested push configs),
//! so nothing above `remote/` can tell which version is on the wire.

use a2a::*;
use a2a_client::{BoxStream, ServiceParams, Transport};
use async_trait::async_trait;
use base64::Engine;
use futures::StreamExt;
use serde_json::{Map, Value, json};

use crate::remote::wire::jsonrpc::{Headers, RawEvents, RpcEndpoint, cut_short};
use crate::remote::wire::sse::SseData;
use crate::remote::wire::{envelope, fault};

/// 0.3 JSON-RPC method names.
mod method {
    pub const SEND: &str = "message/send";
    pub const STREAM: &str = "message/stream";
    pub const GET: &str = "tasks/get";
    pub const CANCEL: &str = "tasks/cancel";
    pub const RESUBSCRIBE: &str = "tasks/resubscribe";
    pub const PUSH_SET: &str = "tasks/pushNotificationConfig/set";
    pub const PUSH_GET: &str = "tasks/pushNotificationConfig/get";
    pub const PUSH_LIST: &str = "tasks/pushNotificationConfig/list";
    pub const PUSH_DELETE: &str = "tasks/pushNotificationConfig/delete";
    pub const EXTENDED_CARD: &str = "agent/getAuthenticatedExtendedCard";
}

pub struct V03Transport {
    endpoint: RpcEndpoint,
}

impl V03Transport {
    pub fn new(endpoint: RpcEndpoint) -> Self {
        Self { endpoint }
    }

    async fn call(
        &self,
        params: &ServiceParams,
        method: &str,
        body_params: Value,
    ) -> Result<Value, A2AError> {
        let raw = self
            .endpoint
            .call(&headers_v03(params), method, body_params)
            .await?;
        serde_json::from_str(&raw).map_err(|e| parse_err("the reply", e))
    }
}

/// The SDK client's headers, for a 0.3 server: it always adds `A2A-Version: 1.0`, and a 0.3 server must be
/// told 0.3 (or nothing); 0.3 also used the `X-`-prefixed name for the extensions list.
pub fn headers_v03(params: &ServiceParams) -> Headers {
    let mut out = Headers::new();
    for (key, values) in params {
        if key.eq_ignore_ascii_case(SVC_PARAM_VERSION) {
            continue;
        }
        for v in values {
            out.push((key.clone(), v.clone()));
            if key.eq_ignore_ascii_case(SVC_PARAM_EXTENSIONS) {
                out.push(("X-A2A-Extensions".into(), v.clone()));
            }
        }
    }
    out.push((SVC_PARAM_VERSION.into(), "0.3".into()));
    out
}

pub(super) fn parse_err(what: &str, e: impl std::fmt::Display) -> A2AError {
    fault(format!("failed to parse {what} from the 0.3 agent: {e}"))
}

/// A 0.3 agent's extended card, read with the same lenient rules as its public card (both 0.3 bindings).
pub(super) fn extended_card(raw: &Value) -> Result<AgentCard, A2AError> {
    let normalized = crate::remote::card::normalize::normalize(raw, None)
        .map_err(|e| parse_err("the extended card", e))?;
    serde_json::from_value(normalized.card).map_err(|e| parse_err("the extended card", e))
}

// ---------------------------------------------------------------------------------------------------------
// v1.0 → v0.3 (requests)
// ---------------------------------------------------------------------------------------------------------

fn role_v03(role: &Role) -> &'static str {
    match role {
        Role::Agent => "agent",
        _ => "user",
    }
}

pub fn part_to_v03(p: &Part) -> Value {
    let mut out = match &p.content {
        PartContent::Text(t) => json!({"kind": "text", "text": t}),
        PartContent::Raw(bytes) => {
            let mut file =
                json!({"bytes": base64::engine::general_purpose::STANDARD.encode(bytes)});
            if let Some(n) = &p.filename {
                file["name"] = json!(n);
            }
            if let Some(m) = &p.media_type {
                file["mimeType"] = json!(m);
            }
            json!({"kind": "file", "file": file})
        }
        PartContent::Url(u) => {
            let mut file = json!({"uri": u});
            if let Some(n) = &p.filename {
                file["name"] = json!(n);
            }
            if let Some(m) = &p.media_type {
                file["mimeType"] = json!(m);
            }
            json!({"kind": "file", "file": file})
        }
        // 0.3 data parts hold an object only; wrap anything else so it survives the trip.
        PartContent::Data(Value::Object(o)) => json!({"kind": "data", "data": o}),
        PartContent::Data(other) => json!({"kind": "data", "data": {"value": other}}),
    };
    if let Some(m) = &p.metadata {
        out["metadata"] = json!(m);
    }
    out
}

pub fn message_to_v03(m: &Message) -> Value {
    let mut out = json!({
        "kind": "message",
        "messageId": m.message_id,
        "role": role_v03(&m.role),
        "parts": m.parts.iter().map(part_to_v03).collect::<Vec<_>>(),
    });
    if let Some(c) = &m.context_id {
        out["contextId"] = json!(c);
    }
    if let Some(t) = &m.task_id {
        out["taskId"] = json!(t);
    }
    if let Some(r) = &m.reference_task_ids {
        out["referenceTaskIds"] = json!(r);
    }
    if let Some(md) = &m.metadata {
        out["metadata"] = json!(md);
    }
    if let Some(x) = &m.extensions {
        out["extensions"] = json!(x);
    }
    out
}

pub(super) fn send_params_v03(req: &SendMessageRequest) -> Value {
    let mut out = json!({"message": message_to_v03(&req.message)});
    let cfg = req.configuration.as_ref();
    // 0.3 gave no default for `blocking` (the SDK treats absent as blocking), so always say it.
    let mut config = json!({"blocking": !cfg.and_then(|c| c.return_immediately).unwrap_or(false)});
    if let Some(c) = cfg {
        if let Some(m) = &c.accepted_output_modes {
            config["acceptedOutputModes"] = json!(m);
        }
        if let Some(h) = c.history_length {
            config["historyLength"] = json!(h);
        }
        if let Some(p) = &c.task_push_notification_config {
            config["pushNotificationConfig"] = push_config_inner_v03(p);
        }
    }
    out["configuration"] = config;
    if let Some(md) = &req.metadata {
        out["metadata"] = json!(md);
    }
    out
}

pub(super) fn push_config_inner_v03(c: &TaskPushNotificationConfig) -> Value {
    let mut inner = json!({"url": c.url});
    if let Some(id) = &c.id {
        inner["id"] = json!(id);
    }
    if let Some(t) = &c.token {
        inner["token"] = json!(t);
    }
    if let Some(a) = &c.authentication {
        let mut auth = json!({"schemes": [a.scheme]});
        if let Some(cr) = &a.credentials {
            auth["credentials"] = json!(cr);
        }
        inner["authentication"] = auth;
    }
    inner
}

// ---------------------------------------------------------------------------------------------------------
// v0.3 → v1.0 (responses); done on JSON, then handed to the SDK's serde types
// ---------------------------------------------------------------------------------------------------------

pub fn state_from_v03(s: &str) -> Result<&'static str, A2AError> {
    Ok(match s {
        "submitted" => "TASK_STATE_SUBMITTED",
        "working" => "TASK_STATE_WORKING",
        "input-required" => "TASK_STATE_INPUT_REQUIRED",
        "auth-required" => "TASK_STATE_AUTH_REQUIRED",
        "completed" => "TASK_STATE_COMPLETED",
        "canceled" | "cancelled" => "TASK_STATE_CANCELED",
        "failed" => "TASK_STATE_FAILED",
        "rejected" => "TASK_STATE_REJECTED",
        "unknown" | "" => "TASK_STATE_UNSPECIFIED",
        other => return Err(parse_err("a task", format!("unknown task state {other:?}"))),
    })
}

fn part_from_v03(p: &Value) -> Result<Value, A2AError> {
    let kind = p
        .get("kind")
        .or_else(|| p.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let mut out = match kind {
        "text" => json!({"text": p.get("text").and_then(Value::as_str).unwrap_or("")}),
        "data" => json!({"data": p.get("data").cloned().unwrap_or(Value::Null)}),
        "file" => {
            let file = p.get("file").cloned().unwrap_or(Value::Null);
            let mut o = if let Some(b) = file.get("bytes").and_then(Value::as_str) {
                json!({"raw": b})
            } else if let Some(u) = file.get("uri").and_then(Value::as_str) {
                json!({"url": u})
            } else {
                return Err(parse_err("a file part", "it has neither `bytes` nor `uri`"));
            };
            if let Some(n) = file.get("name").and_then(Value::as_str) {
                o["filename"] = json!(n);
            }
            if let Some(m) = file.get("mimeType").and_then(Value::as_str) {
                o["mediaType"] = json!(m);
            }
            o
        }
        other => {
            return Err(parse_err(
                "a message part",
                format!("unknown part kind {other:?}"),
            ));
        }
    };
    if let Some(md @ Value::Object(_)) = p.get("metadata") {
        out["metadata"] = md.clone();
    }
    Ok(out)
}

fn parts_from_v03(v: Option<&Value>) -> Result<Value, A2AError> {
    match v {
        Some(Value::Array(parts)) => Ok(Value::Array(
            parts.iter().map(part_from_v03).collect::<Result<_, _>>()?,
        )),
        _ => Ok(Value::Array(Vec::new())),
    }
}

pub(super) fn copy_keys(src: &Value, out: &mut Map<String, Value>, keys: &[&str]) {
    for k in keys {
        if let Some(v) = src.get(*k).filter(|v| !v.is_null()) {
            out.insert((*k).to_string(), v.clone());
        }
    }
}

fn message_from_v03(m: &Value) -> Result<Value, A2AError> {
    let mut out = Map::new();
    copy_keys(
        m,
        &mut out,
        &[
            "messageId",
            "contextId",
            "taskId",
            "referenceTaskIds",
            "metadata",
            "extensions",
        ],
    );
    out.entry("messageId").or_insert_with(|| json!(""));
    let role = match m.get("role").and_then(Value::as_str) {
        Some("agent") => "ROLE_AGENT",
        Some("user") => "ROLE_USER",
        _ => "ROLE_UNSPECIFIED",
    };
    out.insert("role".into(), json!(role));
    out.insert("parts".into(), parts_from_v03(m.get("parts"))?);
    Ok(Value::Object(out))
}

fn status_from_v03(s: &Value) -> Result<Value, A2AError> {
    let state = state_from_v03(s.get("state").and_then(Value::as_str).unwrap_or(""))?;
    let mut out = json!({"state": state});
    if let Some(m) = s.get("message").filter(|m| !m.is_null()) {
        out["message"] = message_from_v03(m)?;
    }
    if let Some(t) = s.get("timestamp").filter(|t| t.is_string()) {
        out["timestamp"] = t.clone();
    }
    Ok(out)
}

fn artifact_from_v03(a: &Value) -> Result<Value, A2AError> {
    let mut out = Map::new();
    copy_keys(
        a,
        &mut out,
        &[
            "artifactId",
            "name",
            "description",
            "metadata",
            "extensions",
        ],
    );
    out.entry("artifactId").or_insert_with(|| json!(""));
    out.insert("parts".into(), parts_from_v03(a.get("parts"))?);
    Ok(Value::Object(out))
}

fn task_from_v03(t: &Value) -> Result<Value, A2AError> {
    let mut out = Map::new();
    copy_keys(t, &mut out, &["id", "contextId", "metadata"]);
    out.insert(
        "status".into(),
        status_from_v03(t.get("status").unwrap_or(&Value::Null))?,
    );
    if let Some(Value::Array(arts)) = t.get("artifacts") {
        out.insert(
            "artifacts".into(),
            Value::Array(
                arts.iter()
                    .map(artifact_from_v03)
                    .collect::<Result<_, _>>()?,
            ),
        );
    }
    if let Some(Value::Array(h)) = t.get("history") {
        out.insert(
            "history".into(),
            Value::Array(h.iter().map(message_from_v03).collect::<Result<_, _>>()?),
        );
    }
    Ok(Value::Object(out))
}

/// A 0.3 `kind`-tagged result (task, message, status-update, artifact-update) as a v1.0 `StreamResponse`,
/// plus whether it carried `final: true`.
pub fn event_from_v03(v: &Value) -> Result<(StreamResponse, bool), A2AError> {
    if !v.is_object() {
        return Err(parse_err("a stream event", "not a JSON object"));
    }
    let kind = v.get("kind").and_then(Value::as_str).unwrap_or("");
    let (wrapped, is_final) = match kind {
        "task" => (json!({"task": task_from_v03(v)?}), false),
        "message" => (json!({"message": message_from_v03(v)?}), false),
        "status-update" => {
            let mut o = Map::new();
            copy_keys(v, &mut o, &["taskId", "contextId", "metadata"]);
            o.insert(
                "status".into(),
                status_from_v03(v.get("status").unwrap_or(&Value::Null))?,
            );
            let fin = v.get("final").and_then(Value::as_bool).unwrap_or(false);
            (json!({"statusUpdate": o}), fin)
        }
        "artifact-update" => {
            let mut o = Map::new();
            copy_keys(
                v,
                &mut o,
                &["taskId", "contextId", "append", "lastChunk", "metadata"],
            );
            o.insert(
                "artifact".into(),
                artifact_from_v03(v.get("artifact").unwrap_or(&Value::Null))?,
            );
            (json!({"artifactUpdate": o}), false)
        }
        other => {
            return Err(parse_err(
                "a stream event",
                format!("unknown kind {other:?}"),
            ));
        }
    };
    let event = serde_json::from_value(wrapped).map_err(|e| parse_err("a stream event", e))?;
    Ok((event, is_final))
}

/// One SSE `data:` payload of a 0.3 stream: a JSON-RPC envelope (or, leniently, a bare result) holding an event.
pub(crate) fn event_from_sse_data(data: &str) -> Result<(StreamResponse, bool), A2AError> {
    let result = match envelope::rpc_reply(data) {
        Ok(envelope::RpcOutcome::Error(e)) => return Err(e),
        Ok(envelope::RpcOutcome::Result(Some(raw))) => raw.get(),
        // A JSON-RPC reply that is malformed or whose result is null or missing holds no event: its own
        // members (an agent's stray `kind`, `taskId` …) are not one, or the console would show what was
        // never sent as a result.
        _ if is_rpc_envelope(data) => {
            return Err(fault(
                "a stream event from the 0.3 agent: its JSON-RPC reply is malformed or has no result"
                    .to_string(),
            ));
        }
        // Leniently, a bare result.
        _ => data,
    };
    let v: Value = serde_json::from_str(result).map_err(|e| parse_err("a stream event", e))?;
    event_from_v03(&v)
}

/// An object that says it is a JSON-RPC reply: it has a `jsonrpc`, `result` or `error` member (a bare 0.3
/// event has none of them).
fn is_rpc_envelope(data: &str) -> bool {
    matches!(serde_json::from_str::<Value>(data), Ok(Value::Object(o))
        if ["jsonrpc", "result", "error"].iter().any(|k| o.contains_key(*k)))
}

/// 0.3 has no way to list tasks (either binding).
pub(super) fn no_list_tasks() -> A2AError {
    A2AError::unsupported_operation(
        "ListTasks does not exist in protocol 0.3; this agent only speaks 0.3",
    )
}

pub(crate) fn task_value(v: &Value) -> Result<Task, A2AError> {
    serde_json::from_value(task_from_v03(v)?).map_err(|e| parse_err("a task", e))
}

pub(crate) fn push_config_from_v03(
    task_id: &str,
    v: &Value,
) -> Result<TaskPushNotificationConfig, A2AError> {
    // 0.3 wraps the config: {taskId, pushNotificationConfig: {id, url, token, authentication{schemes, credentials}}}.
    let inner = v.get("pushNotificationConfig").unwrap_or(v);
    let mut out = json!({
        "taskId": v.get("taskId").and_then(Value::as_str).unwrap_or(task_id),
        "url": inner.get("url").and_then(Value::as_str).unwrap_or(""),
    });
    if let Some(id) = inner.get("id").and_then(Value::as_str) {
        out["id"] = json!(id);
    }
    if let Some(t) = inner.get("token").and_then(Value::as_str) {
        out["token"] = json!(t);
    }
    if let Some(a) = inner.get("authentication") {
        let scheme = a
            .get("schemes")
            .and_then(|s| s.get(0))
            .and_then(Value::as_str)
            .unwrap_or("");
        let mut auth = json!({"scheme": scheme});
        if let Some(c) = a.get("credentials").and_then(Value::as_str) {
            auth["credentials"] = json!(c);
        }
        out["authentication"] = auth;
    }
    serde_json::from_value(out).map_err(|e| parse_err("a push notification config", e))
}

// ---------------------------------------------------------------------------------------------------------
// The transport
// ---------------------------------------------------------------------------------------------------------

type EventStream = BoxStream<'static, Result<StreamResponse, A2AError>>;

impl V03Transport {
    async fn open_stream(
        &self,
        params: &ServiceParams,
        method: &str,
        body_params: Value,
    ) -> Result<EventStream, A2AError> {
        let events = self
            .endpoint
            .stream(&headers_v03(params), method, body_params)
            .await?;
        Ok(until_final(events, |ev| {
            event_from_sse_data(&ev.data).map_err(|e| cut_short(ev, e))
        }))
    }
}

/// Decode a 0.3 stream and stop after an event flagged `final` (0.3's end-of-stream marker), even if the
/// server keeps the connection open.
pub(super) fn until_final(
    events: RawEvents,
    decode: fn(&SseData) -> Result<(StreamResponse, bool), A2AError>,
) -> EventStream {
    futures::stream::unfold((events, false), move |(mut events, done)| async move {
        if done {
            return None;
        }
        let item = events.next().await?;
        Some(match item.and_then(|ev| decode(&ev)) {
            Ok((event, is_final)) => (Ok(event), (events, is_final)),
            Err(e) => (Err(e), (events, false)),
        })
    })
    .boxed()
}

#[async_trait]
impl Transport for V03Transport {
    async fn send_message(
        &self,
        p: &ServiceParams,
        req: &SendMessageRequest,
    ) -> Result<SendMessageResponse, A2AError> {
        let result = self.call(p, method::SEND, send_params_v03(req)).await?;
        match event_from_v03(&result)?.0 {
            StreamResponse::Task(t) => Ok(SendMessageResponse::Task(t)),
            StreamResponse::Message(m) => Ok(SendMessageResponse::Message(m)),
            _ => Err(parse_err(
                "the reply to message/send",
                "it is neither a task nor a message",
            )),
        }
    }

    async fn send_streaming_message(
        &self,
        p: &ServiceParams,
        req: &SendMessageRequest,
    ) -> Result<EventStream, A2AError> {
        self.open_stream(p, method::STREAM, send_params_v03(req))
            .await
    }

    async fn get_task(&self, p: &ServiceParams, req: &GetTaskRequest) -> Result<Task, A2AError> {
        let mut params = json!({"id": req.id});
        if let Some(h) = req.history_length {
            params["historyLength"] = json!(h);
        }
        task_value(&self.call(p, method::GET, params).await?)
    }

    async fn list_tasks(
        &self,
        _p: &ServiceParams,
        _req: &ListTasksRequest,
    ) -> Result<ListTasksResponse, A2AError> {
        Err(no_list_tasks())
    }

    async fn cancel_task(
        &self,
        p: &ServiceParams,
        req: &CancelTaskRequest,
    ) -> Result<Task, A2AError> {
        let mut params = json!({"id": req.id});
        if let Some(md) = &req.metadata {
            params["metadata"] = json!(md);
        }
        task_value(&self.call(p, method::CANCEL, params).await?)
    }

    async fn subscribe_to_task(
        &self,
        p: &ServiceParams,
        req: &SubscribeToTaskRequest,
    ) -> Result<EventStream, A2AError> {
        self.open_stream(p, method::RESUBSCRIBE, json!({"id": req.id}))
            .await
    }

    async fn create_push_config(
        &self,
        p: &ServiceParams,
        req: &TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, A2AError> {
        let task_id = req.task_id.clone();
        let params =
            json!({"taskId": task_id, "pushNotificationConfig": push_config_inner_v03(req)});
        push_config_from_v03(&task_id, &self.call(p, method::PUSH_SET, params).await?)
    }

    async fn get_push_config(
        &self,
        p: &ServiceParams,
        req: &GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig, A2AError> {
        let params = json!({"id": req.task_id, "pushNotificationConfigId": req.id});
        push_config_from_v03(&req.task_id, &self.call(p, method::PUSH_GET, params).await?)
    }

    async fn list_push_configs(
        &self,
        p: &ServiceParams,
        req: &ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse, A2AError> {
        let result = self
            .call(p, method::PUSH_LIST, json!({"id": req.task_id}))
            .await?;
        let list = match &result {
            Value::Array(a) => a.clone(),
            Value::Object(o) => o
                .get("configs")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        let configs = list
            .iter()
            .map(|c| push_config_from_v03(&req.task_id, c))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ListTaskPushNotificationConfigsResponse {
            configs,
            next_page_token: None,
        })
    }

    async fn delete_push_config(
        &self,
        p: &ServiceParams,
        req: &DeleteTaskPushNotificationConfigRequest,
    ) -> Result<(), A2AError> {
        let params = json!({"id": req.task_id, "pushNotificationConfigId": req.id});
        self.call(p, method::PUSH_DELETE, params).await.map(|_| ())
    }

    async fn get_extended_agent_card(
        &self,
        p: &ServiceParams,
        _req: &GetExtendedAgentCardRequest,
    ) -> Result<AgentCard, A2AError> {
        let raw = self.call(p, method::EXTENDED_CARD, json!({})).await?;
        extended_card(&raw)
    }

    async fn destroy(&self) -> Result<(), A2AError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_mapping_uses_kind_and_blocking() {
        let mut msg = Message::new(
            Role::User,
            vec![
                Part::text("hi"),
                Part::raw(vec![1, 2, 3]).with_filename("a.bin"),
            ],
        );
        msg.task_id = Some("t1".into());
        let req = SendMessageRequest {
            message: msg,
            configuration: Some(SendMessageConfiguration {
                accepted_output_modes: None,
                task_push_notification_config: None,
                history_length: Some(3),
                return_immediately: Some(true),
            }),
            metadata: None,
            tenant: None,
        };
        let v = send_params_v03(&req);
        assert_eq!(v["message"]["kind"], "message");
        assert_eq!(v["message"]["role"], "user");
        assert_eq!(v["message"]["taskId"], "t1");
        assert_eq!(
            v["message"]["parts"][0],
            json!({"kind": "text", "text": "hi"})
        );
        assert_eq!(v["message"]["parts"][1]["file"]["bytes"], "AQID");
        assert_eq!(v["message"]["parts"][1]["file"]["name"], "a.bin");
        assert_eq!(v["configuration"]["blocking"], false);
        assert_eq!(v["configuration"]["historyLength"], 3);
    }

    #[test]
    fn task_and_events_map_to_v1_types() {
        let task = json!({
            "kind": "task", "id": "t1", "contextId": "c1",
            "status": {"state": "input-required", "message": {"kind": "message", "messageId": "m", "role": "agent",
                "parts": [{"kind": "text", "text": "name?"}]}},
            "artifacts": [{"artifactId": "a", "parts": [{"kind": "data", "data": {"k": 1}},
                {"kind": "file", "file": {"uri": "https://x/f", "mimeType": "text/csv", "name": "f.csv"}}]}]
        });
        let (ev, fin) = event_from_v03(&task).unwrap();
        assert!(!fin);
        let StreamResponse::Task(t) = ev else {
            panic!("not a task")
        };
        assert_eq!(t.status.state, TaskState::InputRequired);
        assert_eq!(t.status.message.unwrap().role, Role::Agent);
        let parts = &t.artifacts.unwrap()[0].parts;
        assert_eq!(parts[1].media_type.as_deref(), Some("text/csv"));
        assert!(matches!(parts[1].content, PartContent::Url(_)));

        let upd = json!({"kind": "status-update", "taskId": "t1", "contextId": "c1",
            "status": {"state": "completed"}, "final": true});
        let (ev, fin) = event_from_v03(&upd).unwrap();
        assert!(fin);
        assert!(
            matches!(ev, StreamResponse::StatusUpdate(s) if s.status.state == TaskState::Completed)
        );

        let art = json!({"kind": "artifact-update", "taskId": "t1", "contextId": "c1", "append": true, "lastChunk": false,
            "artifact": {"artifactId": "a", "parts": [{"kind": "text", "text": "more"}]}});
        let (ev, _) = event_from_v03(&art).unwrap();
        assert!(matches!(ev, StreamResponse::ArtifactUpdate(a) if a.append == Some(true)));
    }

    #[test]
    fn unknown_state_and_part_kind_are_clear_errors() {
        let e = event_from_v03(
            &json!({"kind": "task", "id": "t", "contextId": "c", "status": {"state": "pondering"}}),
        )
        .unwrap_err();
        assert!(
            e.message.contains("unknown task state \"pondering\""),
            "{}",
            e.message
        );
        let e = event_from_v03(
            &json!({"kind": "message", "messageId": "m", "role": "agent",
            "parts": [{"kind": "hologram"}]}),
        )
        .unwrap_err();
        assert!(
            e.message.contains("unknown part kind \"hologram\""),
            "{}",
            e.message
        );
        let e = event_from_v03(&json!({"kind": "weather"})).unwrap_err();
        assert!(e.message.contains("unknown kind"));
    }

    /// The fuzzer's find (`tests/fuzz_corpus/regressions/v03/array_wraps_event.json`): an SSE `data:` line
    /// holding an array around an event was read as a JSON-RPC envelope whose `result` was the array's first
    /// element, and became that event.
    #[test]
    fn an_array_around_an_event_is_no_event() {
        let data = r#"[{"kind":"artifact-update","taskId":"t1","contextId":"c1","append":true,"lastChunk":null,"artifact":{"artifactId":"a1","parts":[{"type":"text","text":"chunk"}]}}]"#;
        let e = event_from_sse_data(data).unwrap_err();
        assert!(e.message.contains("not a JSON object"), "{}", e.message);
        let wrapped = format!(
            r#"[{{"jsonrpc":"2.0","id":1,"result":{}}}]"#,
            &data[1..data.len() - 1]
        );
        assert!(event_from_sse_data(&wrapped).is_err());
        // The same event as an object, alone or in an envelope, still decodes.
        let inner = &data[1..data.len() - 1];
        assert!(event_from_sse_data(inner).is_ok());
        let env = format!(r#"{{"jsonrpc":"2.0","id":1,"result":{inner}}}"#);
        assert!(matches!(
            event_from_sse_data(&env),
            Ok((StreamResponse::ArtifactUpdate(_), false))
        ));
    }

    /// The fuzzer's finds (`tests/fuzz_corpus/regressions/v03/null_result_is_no_event.json`): a status update
    /// carrying `"result": null` was read as an envelope without a result and then, leniently, as a bare
    /// event: a reply that says "no result" became an input-required question.
    #[test]
    fn a_reply_with_a_null_or_missing_result_is_no_event() {
        let event = r#""kind":"status-update","taskId":"t1","contextId":"c1","final":true,"status":{"state":"input-required"}"#;
        for data in [
            format!("{{{event},\"result\":null}}"),
            format!("{{\"jsonrpc\":\"2.0\",\"id\":1,{event}}}"),
            format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null,{event}}}"),
            // The second find (`…/v03/malformed_reply_is_no_event.json`): an `error` that is no error
            // object made the reply unreadable, and the whole object was then taken as a bare message.
            r#"{"error":false,"result":0,"kind":"message"}"#.to_string(),
            format!("{{\"error\":false,{event}}}"),
        ] {
            let e = event_from_sse_data(&data).unwrap_err();
            assert!(e.message.contains("no result"), "{data}: {}", e.message);
        }
        // The bare event, and the event as a reply's result, still decode.
        assert!(matches!(
            event_from_sse_data(&format!("{{{event}}}")),
            Ok((StreamResponse::StatusUpdate(_), true))
        ));
        assert!(matches!(
            event_from_sse_data(&format!(
                r#"{{"jsonrpc":"2.0","id":1,"result":{{{event}}}}}"#
            )),
            Ok((StreamResponse::StatusUpdate(_), true))
        ));
    }

    #[test]
    fn the_version_header_says_03_and_extensions_go_under_both_names() {
        let params = ServiceParams::from([
            (SVC_PARAM_VERSION.to_string(), vec!["1.0".to_string()]),
            (SVC_PARAM_EXTENSIONS.to_string(), vec!["urn:x".to_string()]),
        ]);
        let h = headers_v03(&params);
        assert!(h.contains(&(SVC_PARAM_VERSION.to_string(), "0.3".to_string())));
        assert!(!h.iter().any(|(_, v)| v == "1.0"));
        assert!(h.contains(&("X-A2A-Extensions".to_string(), "urn:x".to_string())));
    }

    #[test]
    fn push_config_round_trip_shapes() {
        let c = push_config_from_v03(
            "t1",
            &json!({"taskId": "t1", "pushNotificationConfig": {"id": "p1", "url": "http://127.0.0.1:9/hook", "token": "tok",
                "authentication": {"schemes": ["Bearer"], "credentials": "x"}}}),
        )
        .unwrap();
        assert_eq!(c.id.as_deref(), Some("p1"));
        assert_eq!(c.authentication.unwrap().scheme, "Bearer");
    }
}
