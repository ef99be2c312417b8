//! A `Transport` for agents that speak protocol 0.3 over HTTP+JSON (`/v1/message:send`, `/v1/tasks/{id}` …),
//! as the official Python SDK 0.3.x serves it.
//!
//! 0.3's HTTP+JSON bodies are the ProtoJSON of the 0.3 proto, which differs from 0.3's JSON-RPC shapes:
//! message parts are under `content` (artifact parts stay under `parts`), roles and states are enum names
//! (`ROLE_USER`, `TASK_STATE_INPUT_REQUIRED`), unions are keyed by field (`{"text":…}`, `{"file":{…}}`,
//! `{"statusUpdate":{…}}`) instead of `kind`, and push configs are named resources. Rather than a second
//! mapping onto v1.0, this one translates to and from 0.3's JSON-RPC shapes and reuses `wire::v03`'s
//! mapping for the rest: one place knows how 0.3 means what 1.0 means.
//!
//! Observed in a2a-sdk 0.3.26 (the peer in `tests/peers/py03_agent.py`): listing push configs answers 500
//! ("unknown exception") and deleting one 405 (the route is not registered); the errors say so as they come.

use a2a::*;
use a2a_client::{BoxStream, ServiceParams, Transport};
use async_trait::async_trait;
use reqwest::Method;
use serde_json::{Map, Value, json};

use crate::remote::wire::envelope;
use crate::remote::wire::jsonrpc::cut_short;
use crate::remote::wire::rest::{RestEndpoint, segment};
use crate::remote::wire::sse::SseData;
use crate::remote::wire::v03::{
    copy_keys, event_from_v03, extended_card, headers_v03, no_list_tasks, parse_err,
    push_config_from_v03, push_config_inner_v03, send_params_v03, task_value, until_final,
};

type EventStream = BoxStream<'static, Result<StreamResponse, A2AError>>;

pub struct V03RestTransport {
    endpoint: RestEndpoint,
}

impl V03RestTransport {
    pub fn new(endpoint: RestEndpoint) -> Self {
        Self { endpoint }
    }

    async fn call(
        &self,
        p: &ServiceParams,
        method: Method,
        path: &str,
        query: &[(String, String)],
        body: Option<&Value>,
    ) -> Result<Value, A2AError> {
        let raw = self
            .endpoint
            .call(method, path, query, &headers_v03(p), body)
            .await?;
        if raw.trim().is_empty() {
            return Ok(Value::Null);
        }
        serde_json::from_str(&raw).map_err(|e| parse_err("the reply", e))
    }

    async fn stream(
        &self,
        p: &ServiceParams,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<EventStream, A2AError> {
        let events = self
            .endpoint
            .stream(method, path, &headers_v03(p), body)
            .await?;
        Ok(until_final(events, decode_event))
    }
}

/// One 0.3 REST stream event (a ProtoJSON `StreamResponse` of the 0.3 proto) as a v1.0 event, and whether it
/// was flagged `final`.
pub fn decode_event(ev: &SseData) -> Result<(StreamResponse, bool), A2AError> {
    let v: Value = serde_json::from_str(&ev.data)
        .map_err(|e| cut_short(ev, parse_err("a stream event", e)))?;
    if let Some(e) = envelope::rest_error(reqwest::StatusCode::OK, &ev.data)
        && v.get("message").is_some_and(Value::is_string)
    {
        return Err(e);
    }
    event_from_v03(&union_to_rpc(&v)?)
}

// ---------------------------------------------------------------------------------------------------------
// 0.3 HTTP+JSON → 0.3 JSON-RPC shapes (replies)
// ---------------------------------------------------------------------------------------------------------

fn state_to_rpc(s: &str) -> &str {
    match s {
        "TASK_STATE_SUBMITTED" => "submitted",
        "TASK_STATE_WORKING" => "working",
        "TASK_STATE_COMPLETED" => "completed",
        "TASK_STATE_FAILED" => "failed",
        "TASK_STATE_CANCELLED" | "TASK_STATE_CANCELED" => "canceled",
        "TASK_STATE_INPUT_REQUIRED" => "input-required",
        "TASK_STATE_REJECTED" => "rejected",
        "TASK_STATE_AUTH_REQUIRED" => "auth-required",
        "TASK_STATE_UNSPECIFIED" => "unknown",
        // Anything else is passed on, and `wire::v03` names it in its error.
        other => other,
    }
}

fn part_to_rpc(p: &Value) -> Result<Value, A2AError> {
    let mut out = if let Some(t) = p.get("text") {
        json!({"kind": "text", "text": t})
    } else if let Some(f) = p.get("file") {
        let mut file = Map::new();
        if let Some(u) = f.get("fileWithUri") {
            file.insert("uri".into(), u.clone());
        }
        if let Some(b) = f.get("fileWithBytes") {
            file.insert("bytes".into(), b.clone());
        }
        for k in ["mimeType", "name"] {
            if let Some(v) = f.get(k) {
                file.insert(k.into(), v.clone());
            }
        }
        json!({"kind": "file", "file": file})
    } else if let Some(d) = p.get("data") {
        json!({"kind": "data", "data": d.get("data").cloned().unwrap_or(Value::Null)})
    } else {
        return Err(parse_err(
            "a message part",
            "it has none of `text`, `file`, `data`",
        ));
    };
    if let Some(md) = p.get("metadata") {
        out["metadata"] = md.clone();
    }
    Ok(out)
}

fn parts_to_rpc(v: Option<&Value>) -> Result<Value, A2AError> {
    match v {
        Some(Value::Array(ps)) => Ok(Value::Array(
            ps.iter().map(part_to_rpc).collect::<Result<_, _>>()?,
        )),
        _ => Ok(json!([])),
    }
}

fn message_to_rpc(m: &Value) -> Result<Value, A2AError> {
    let mut out = Map::new();
    out.insert("kind".into(), json!("message"));
    copy_keys(
        m,
        &mut out,
        &["messageId", "contextId", "taskId", "metadata", "extensions"],
    );
    let role = match m.get("role").and_then(Value::as_str) {
        Some("ROLE_AGENT") => "agent",
        _ => "user",
    };
    out.insert("role".into(), json!(role));
    out.insert("parts".into(), parts_to_rpc(m.get("content"))?);
    Ok(Value::Object(out))
}

fn status_to_rpc(s: &Value) -> Result<Value, A2AError> {
    let mut out = Map::new();
    let state = s.get("state").and_then(Value::as_str).unwrap_or("");
    out.insert("state".into(), json!(state_to_rpc(state)));
    if let Some(m) = s.get("message").filter(|m| m.is_object()) {
        out.insert("message".into(), message_to_rpc(m)?);
    }
    copy_keys(s, &mut out, &["timestamp"]);
    Ok(Value::Object(out))
}

fn artifact_to_rpc(a: &Value) -> Result<Value, A2AError> {
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
    out.insert("parts".into(), parts_to_rpc(a.get("parts"))?);
    Ok(Value::Object(out))
}

fn task_to_rpc(t: &Value) -> Result<Value, A2AError> {
    let mut out = Map::new();
    out.insert("kind".into(), json!("task"));
    copy_keys(t, &mut out, &["id", "contextId", "metadata"]);
    out.insert(
        "status".into(),
        status_to_rpc(t.get("status").unwrap_or(&Value::Null))?,
    );
    if let Some(Value::Array(arts)) = t.get("artifacts") {
        out.insert(
            "artifacts".into(),
            Value::Array(arts.iter().map(artifact_to_rpc).collect::<Result<_, _>>()?),
        );
    }
    if let Some(Value::Array(hist)) = t.get("history") {
        out.insert(
            "history".into(),
            Value::Array(hist.iter().map(message_to_rpc).collect::<Result<_, _>>()?),
        );
    }
    Ok(Value::Object(out))
}

/// A `StreamResponse` / `SendMessageResponse` union (`{"task":…}`, `{"message":…}`, `{"statusUpdate":…}`,
/// `{"artifactUpdate":…}`) as the `kind`-tagged 0.3 JSON-RPC result. A bare task (the reply to cancel and
/// get) is accepted too.
pub fn union_to_rpc(v: &Value) -> Result<Value, A2AError> {
    if let Some(t) = v.get("task") {
        return task_to_rpc(t);
    }
    if let Some(m) = v.get("message").or_else(|| v.get("msg")) {
        return message_to_rpc(m);
    }
    if let Some(u) = v.get("statusUpdate") {
        let mut out = Map::new();
        out.insert("kind".into(), json!("status-update"));
        copy_keys(u, &mut out, &["taskId", "contextId", "final", "metadata"]);
        out.insert(
            "status".into(),
            status_to_rpc(u.get("status").unwrap_or(&Value::Null))?,
        );
        return Ok(Value::Object(out));
    }
    if let Some(u) = v.get("artifactUpdate") {
        let mut out = Map::new();
        out.insert("kind".into(), json!("artifact-update"));
        copy_keys(
            u,
            &mut out,
            &["taskId", "contextId", "append", "lastChunk", "metadata"],
        );
        out.insert(
            "artifact".into(),
            artifact_to_rpc(u.get("artifact").unwrap_or(&Value::Null))?,
        );
        return Ok(Value::Object(out));
    }
    if v.get("id").is_some() && v.get("status").is_some() {
        return task_to_rpc(v);
    }
    Err(parse_err(
        "a reply",
        "it is none of task, message, statusUpdate, artifactUpdate",
    ))
}

/// `{"name":"tasks/T/pushNotificationConfigs/C","pushNotificationConfig":{…}}` as 0.3 JSON-RPC's
/// `{"taskId":"T","pushNotificationConfig":{…}}`.
fn push_config_to_rpc(v: &Value) -> Value {
    let mut out = json!({
        "pushNotificationConfig": v.get("pushNotificationConfig").cloned().unwrap_or(Value::Null),
    });
    if let Some(task_id) = v
        .get("name")
        .and_then(Value::as_str)
        .and_then(|n| n.strip_prefix("tasks/"))
        .and_then(|n| n.split('/').next())
        .filter(|t| !t.is_empty())
    {
        out["taskId"] = json!(task_id);
    }
    out
}

// ---------------------------------------------------------------------------------------------------------
// 0.3 JSON-RPC shapes → 0.3 HTTP+JSON (requests)
// ---------------------------------------------------------------------------------------------------------

fn part_to_rest(p: &Value) -> Value {
    let mut out = match p.get("kind").and_then(Value::as_str) {
        Some("file") => {
            let f = p.get("file").cloned().unwrap_or(Value::Null);
            let mut file = Map::new();
            if let Some(u) = f.get("uri") {
                file.insert("fileWithUri".into(), u.clone());
            }
            if let Some(b) = f.get("bytes") {
                file.insert("fileWithBytes".into(), b.clone());
            }
            for k in ["mimeType", "name"] {
                if let Some(v) = f.get(k) {
                    file.insert(k.into(), v.clone());
                }
            }
            json!({"file": file})
        }
        Some("data") => json!({"data": {"data": p.get("data").cloned().unwrap_or(json!({}))}}),
        _ => json!({"text": p.get("text").cloned().unwrap_or(json!(""))}),
    };
    if let Some(md) = p.get("metadata") {
        out["metadata"] = md.clone();
    }
    out
}

fn message_to_rest(m: &Value) -> Value {
    let mut out = Map::new();
    copy_keys(
        m,
        &mut out,
        &["messageId", "contextId", "taskId", "metadata", "extensions"],
    );
    let role = match m.get("role").and_then(Value::as_str) {
        Some("agent") => "ROLE_AGENT",
        _ => "ROLE_USER",
    };
    out.insert("role".into(), json!(role));
    let parts = m
        .get("parts")
        .and_then(Value::as_array)
        .map(|ps| ps.iter().map(part_to_rest).collect())
        .unwrap_or_default();
    out.insert("content".into(), Value::Array(parts));
    Value::Object(out)
}

fn send_params_rest(req: &SendMessageRequest) -> Value {
    let rpc = send_params_v03(req);
    let mut out = json!({"message": message_to_rest(rpc.get("message").unwrap_or(&Value::Null))});
    if let Some(c) = rpc.get("configuration") {
        let mut cfg = Map::new();
        copy_keys(
            c,
            &mut cfg,
            &["acceptedOutputModes", "historyLength", "blocking"],
        );
        if let Some(p) = c.get("pushNotificationConfig") {
            cfg.insert("pushNotification".into(), p.clone());
        }
        out["configuration"] = Value::Object(cfg);
    }
    if let Some(md) = rpc.get("metadata") {
        out["metadata"] = md.clone();
    }
    out
}

fn push_path(task_id: &str) -> Result<String, A2AError> {
    Ok(format!(
        "/v1/tasks/{}/pushNotificationConfigs",
        segment(task_id)?
    ))
}

#[async_trait]
impl Transport for V03RestTransport {
    async fn send_message(
        &self,
        p: &ServiceParams,
        req: &SendMessageRequest,
    ) -> Result<SendMessageResponse, A2AError> {
        let body = send_params_rest(req);
        let reply = self
            .call(p, Method::POST, "/v1/message:send", &[], Some(&body))
            .await?;
        match event_from_v03(&union_to_rpc(&reply)?)?.0 {
            StreamResponse::Task(t) => Ok(SendMessageResponse::Task(t)),
            StreamResponse::Message(m) => Ok(SendMessageResponse::Message(m)),
            _ => Err(parse_err(
                "the reply to message:send",
                "it is neither a task nor a message",
            )),
        }
    }

    async fn send_streaming_message(
        &self,
        p: &ServiceParams,
        req: &SendMessageRequest,
    ) -> Result<EventStream, A2AError> {
        let body = send_params_rest(req);
        self.stream(p, Method::POST, "/v1/message:stream", Some(&body))
            .await
    }

    async fn get_task(&self, p: &ServiceParams, req: &GetTaskRequest) -> Result<Task, A2AError> {
        let query: Vec<(String, String)> = req
            .history_length
            .map(|h| vec![("historyLength".into(), h.to_string())])
            .unwrap_or_default();
        let path = format!("/v1/tasks/{}", segment(&req.id)?);
        let reply = self.call(p, Method::GET, &path, &query, None).await?;
        task_value(&union_to_rpc(&reply)?)
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
        let id = segment(&req.id)?;
        let body = json!({"name": format!("tasks/{}", req.id)});
        let reply = self
            .call(
                p,
                Method::POST,
                &format!("/v1/tasks/{id}:cancel"),
                &[],
                Some(&body),
            )
            .await?;
        task_value(&union_to_rpc(&reply)?)
    }

    async fn subscribe_to_task(
        &self,
        p: &ServiceParams,
        req: &SubscribeToTaskRequest,
    ) -> Result<EventStream, A2AError> {
        let path = format!("/v1/tasks/{}:subscribe", segment(&req.id)?);
        self.stream(p, Method::GET, &path, None).await
    }

    async fn create_push_config(
        &self,
        p: &ServiceParams,
        req: &TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, A2AError> {
        let inner = push_config_inner_v03(req);
        let config_id = req.id.clone().unwrap_or_default();
        let name = format!("tasks/{}/pushNotificationConfigs/{config_id}", req.task_id);
        let body = json!({
            "parent": format!("tasks/{}", req.task_id),
            "configId": config_id,
            "config": {"name": name, "pushNotificationConfig": inner},
        });
        let reply = self
            .call(p, Method::POST, &push_path(&req.task_id)?, &[], Some(&body))
            .await?;
        push_config_from_v03(&req.task_id, &push_config_to_rpc(&reply))
    }

    async fn get_push_config(
        &self,
        p: &ServiceParams,
        req: &GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig, A2AError> {
        let path = format!("{}/{}", push_path(&req.task_id)?, segment(&req.id)?);
        let reply = self.call(p, Method::GET, &path, &[], None).await?;
        push_config_from_v03(&req.task_id, &push_config_to_rpc(&reply))
    }

    async fn list_push_configs(
        &self,
        p: &ServiceParams,
        req: &ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse, A2AError> {
        let reply = self
            .call(p, Method::GET, &push_path(&req.task_id)?, &[], None)
            .await?;
        let list = match &reply {
            Value::Array(a) => a.clone(),
            v => v
                .get("configs")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
        };
        let configs = list
            .iter()
            .map(|c| push_config_from_v03(&req.task_id, &push_config_to_rpc(c)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ListTaskPushNotificationConfigsResponse {
            configs,
            next_page_token: reply
                .get("nextPageToken")
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
                .map(String::from),
        })
    }

    async fn delete_push_config(
        &self,
        p: &ServiceParams,
        req: &DeleteTaskPushNotificationConfigRequest,
    ) -> Result<(), A2AError> {
        let path = format!("{}/{}", push_path(&req.task_id)?, segment(&req.id)?);
        self.call(p, Method::DELETE, &path, &[], None)
            .await
            .map(|_| ())
    }

    async fn get_extended_agent_card(
        &self,
        p: &ServiceParams,
        _req: &GetExtendedAgentCardRequest,
    ) -> Result<AgentCard, A2AError> {
        let raw = self.call(p, Method::GET, "/v1/card", &[], None).await?;
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
    fn replies_of_the_python_03_rest_server_map_to_v1() {
        // As a2a-sdk 0.3.26 answers `ask` (trimmed).
        let reply = json!({"task": {"id": "t1", "contextId": "c1",
            "status": {"state": "TASK_STATE_INPUT_REQUIRED", "message": {"messageId": "m", "contextId": "c1",
                "taskId": "t1", "role": "ROLE_AGENT", "content": [{"text": "What is your name?"}]}},
            "history": [{"messageId": "m1", "role": "ROLE_USER", "content": [{"text": "ask"}], "metadata": {}}]}});
        let task = task_value(&union_to_rpc(&reply).unwrap()).unwrap();
        assert_eq!(task.status.state, TaskState::InputRequired);
        let m = task.status.message.unwrap();
        assert_eq!(m.role, Role::Agent);
        assert!(matches!(&m.parts[0].content, PartContent::Text(t) if t == "What is your name?"));
        // A stream's artifact update and final status.
        let ev = SseData {
            data: json!({"artifactUpdate": {"taskId": "t1", "contextId": "c1", "append": true,
                "artifact": {"artifactId": "story", "parts": [{"text": "chunk 1 "}]}}})
            .to_string(),
            index: 3,
            unfinished: false,
        };
        let (e, fin) = decode_event(&ev).unwrap();
        assert!(!fin);
        assert!(matches!(e, StreamResponse::ArtifactUpdate(a) if a.append == Some(true)));
        let ev = SseData {
            data: json!({"statusUpdate": {"taskId": "t1", "contextId": "c1", "final": true,
                "status": {"state": "TASK_STATE_CANCELLED"}}})
            .to_string(),
            index: 4,
            unfinished: false,
        };
        let (e, fin) = decode_event(&ev).unwrap();
        assert!(fin);
        assert!(
            matches!(e, StreamResponse::StatusUpdate(u) if u.status.state == TaskState::Canceled)
        );
    }

    #[test]
    fn requests_use_content_enum_roles_and_file_unions() {
        let mut msg = Message::new(
            Role::User,
            vec![
                Part::text("hi"),
                Part::url("https://example.invalid/a.png").with_media_type("image/png"),
            ],
        );
        msg.message_id = "m1".into();
        let req = SendMessageRequest {
            message: msg,
            configuration: None,
            metadata: None,
            tenant: None,
        };
        let body = send_params_rest(&req);
        assert_eq!(body["message"]["role"], "ROLE_USER");
        assert_eq!(body["message"]["content"][0], json!({"text": "hi"}));
        assert_eq!(
            body["message"]["content"][1]["file"]["fileWithUri"],
            "https://example.invalid/a.png"
        );
        assert_eq!(
            body["message"]["content"][1]["file"]["mimeType"],
            "image/png"
        );
        assert_eq!(body["configuration"]["blocking"], true);
    }

    #[test]
    fn push_config_names_give_the_task() {
        let v = json!({"name": "tasks/t9/pushNotificationConfigs/c1",
            "pushNotificationConfig": {"id": "c1", "url": "http://127.0.0.1:9/hook", "token": "tok"}});
        let c = push_config_from_v03("ignored", &push_config_to_rpc(&v)).unwrap();
        assert_eq!(c.task_id, "t9");
        assert_eq!(c.id.as_deref(), Some("c1"));
    }
}
