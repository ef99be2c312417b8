//! Secrets an agent sends back are redacted where its data enters: a `Transport` decorator around every
//! client (`client::build`) replaces each registered credential (`trust::redact`: the bearer token, the API
//! key — also when it travelled in the query string —, a secret-named static header, an OAuth access token)
//! with the redaction marker in everything a call returns: messages, tasks, artifacts (text, file names,
//! URLs, data, metadata, even file bytes), stream events, error messages and an extended card.
//!
//! Why here, once, rather than where text is shown: the same event goes to the transcript, the CLI's text
//! and `--json`, the local store and the exports made from it; redacted on arrival, none of them can hold
//! the secret. An agent that encodes the secret (base64, split across chunks) is not caught — it was given
//! the secret and can do with it what it likes —, but an echo, the common leak, never reaches a screen or
//! a file.

use std::collections::HashMap;

use a2a::*;
use a2a_client::{BoxStream, ServiceParams, Transport};
use async_trait::async_trait;
use futures::StreamExt;
use serde_json::Value;

use crate::trust::redact::{has_secrets, redact_secret_bytes, redact_secrets};

/// Replace `s` by its redacted form when a secret occurs in it.
fn text(s: &mut String) {
    if let std::borrow::Cow::Owned(r) = redact_secrets(s) {
        *s = r;
    }
}

fn opt_text(s: &mut Option<String>) {
    if let Some(s) = s {
        text(s);
    }
}

/// Every string in a JSON value, keys included.
pub fn value(v: &mut Value) {
    match v {
        Value::String(s) => text(s),
        Value::Array(items) => items.iter_mut().for_each(value),
        Value::Object(map) => {
            map.values_mut().for_each(value);
            // Keys are rebuilt only when one holds a secret, and then in their order: with serde_json's
            // `preserve_order`, a remove-and-insert per key (swap_remove) would shuffle every object the agent
            // sent whenever a credential is configured.
            if map
                .keys()
                .any(|k| matches!(redact_secrets(k), std::borrow::Cow::Owned(_)))
            {
                for (mut k, v) in std::mem::take(map) {
                    text(&mut k);
                    map.insert(k, v);
                }
            }
        }
        _ => {}
    }
}

fn metadata(m: &mut Option<HashMap<String, Value>>) {
    if let Some(m) = m {
        let entries: Vec<(String, Value)> = m.drain().collect();
        for (mut k, mut v) in entries {
            text(&mut k);
            value(&mut v);
            m.insert(k, v);
        }
    }
}

fn part(p: &mut Part) {
    match &mut p.content {
        PartContent::Text(s) | PartContent::Url(s) => text(s),
        PartContent::Raw(bytes) => {
            if let Some(r) = redact_secret_bytes(bytes) {
                *bytes = r;
            }
        }
        PartContent::Data(v) => value(v),
    }
    opt_text(&mut p.filename);
    opt_text(&mut p.media_type);
    metadata(&mut p.metadata);
}

pub fn message(m: &mut Message) {
    m.parts.iter_mut().for_each(part);
    metadata(&mut m.metadata);
}

pub fn artifact(a: &mut Artifact) {
    opt_text(&mut a.name);
    opt_text(&mut a.description);
    a.parts.iter_mut().for_each(part);
    metadata(&mut a.metadata);
}

fn status(s: &mut TaskStatus) {
    if let Some(m) = &mut s.message {
        message(m);
    }
}

pub fn task(t: &mut Task) {
    status(&mut t.status);
    t.artifacts.iter_mut().flatten().for_each(artifact);
    t.history.iter_mut().flatten().for_each(message);
    metadata(&mut t.metadata);
}

/// One stream event, in place. Ids are left alone: they are the agent's names for things, and changing one
/// would split a task in two.
pub fn event(ev: &mut StreamResponse) {
    if !has_secrets() {
        return;
    }
    match ev {
        StreamResponse::Task(t) => task(t),
        StreamResponse::Message(m) => message(m),
        StreamResponse::StatusUpdate(u) => {
            status(&mut u.status);
            metadata(&mut u.metadata);
        }
        StreamResponse::ArtifactUpdate(u) => {
            artifact(&mut u.artifact);
            metadata(&mut u.metadata);
        }
    }
}

/// An error the agent returned: its message (details are shown only through the message).
fn error(mut e: A2AError) -> A2AError {
    if has_secrets() {
        text(&mut e.message);
    }
    e
}

fn checked_task(r: Result<Task, A2AError>) -> Result<Task, A2AError> {
    match r {
        Ok(mut t) => {
            if has_secrets() {
                task(&mut t);
            }
            Ok(t)
        }
        Err(e) => Err(error(e)),
    }
}

type EventStream = BoxStream<'static, Result<StreamResponse, A2AError>>;

fn checked_stream(r: Result<EventStream, A2AError>) -> Result<EventStream, A2AError> {
    let events = r.map_err(error)?;
    Ok(events
        .map(|item| match item {
            Ok(mut ev) => {
                event(&mut ev);
                Ok(ev)
            }
            Err(e) => Err(error(e)),
        })
        .boxed())
}

/// The decorator: every reply of `inner`, redacted.
pub struct RedactingTransport {
    inner: Box<dyn Transport>,
}

impl RedactingTransport {
    pub fn new(inner: Box<dyn Transport>) -> Self {
        Self { inner }
    }
}

#[async_trait]
impl Transport for RedactingTransport {
    async fn send_message(
        &self,
        p: &ServiceParams,
        r: &SendMessageRequest,
    ) -> Result<SendMessageResponse, A2AError> {
        let mut reply = self.inner.send_message(p, r).await.map_err(error)?;
        if has_secrets() {
            match &mut reply {
                SendMessageResponse::Task(t) => task(t),
                SendMessageResponse::Message(m) => message(m),
            }
        }
        Ok(reply)
    }
    async fn send_streaming_message(
        &self,
        p: &ServiceParams,
        r: &SendMessageRequest,
    ) -> Result<EventStream, A2AError> {
        checked_stream(self.inner.send_streaming_message(p, r).await)
    }
    async fn get_task(&self, p: &ServiceParams, r: &GetTaskRequest) -> Result<Task, A2AError> {
        checked_task(self.inner.get_task(p, r).await)
    }
    async fn list_tasks(
        &self,
        p: &ServiceParams,
        r: &ListTasksRequest,
    ) -> Result<ListTasksResponse, A2AError> {
        let mut list = self.inner.list_tasks(p, r).await.map_err(error)?;
        if has_secrets() {
            list.tasks.iter_mut().for_each(task);
        }
        Ok(list)
    }
    async fn cancel_task(
        &self,
        p: &ServiceParams,
        r: &CancelTaskRequest,
    ) -> Result<Task, A2AError> {
        checked_task(self.inner.cancel_task(p, r).await)
    }
    async fn subscribe_to_task(
        &self,
        p: &ServiceParams,
        r: &SubscribeToTaskRequest,
    ) -> Result<EventStream, A2AError> {
        checked_stream(self.inner.subscribe_to_task(p, r).await)
    }
    // Push configurations echo what we sent (our receiver's URL and token), not agent text: passed through.
    async fn create_push_config(
        &self,
        p: &ServiceParams,
        r: &TaskPushNotificationConfig,
    ) -> Result<TaskPushNotificationConfig, A2AError> {
        self.inner.create_push_config(p, r).await.map_err(error)
    }
    async fn get_push_config(
        &self,
        p: &ServiceParams,
        r: &GetTaskPushNotificationConfigRequest,
    ) -> Result<TaskPushNotificationConfig, A2AError> {
        self.inner.get_push_config(p, r).await.map_err(error)
    }
    async fn list_push_configs(
        &self,
        p: &ServiceParams,
        r: &ListTaskPushNotificationConfigsRequest,
    ) -> Result<ListTaskPushNotificationConfigsResponse, A2AError> {
        self.inner.list_push_configs(p, r).await.map_err(error)
    }
    async fn delete_push_config(
        &self,
        p: &ServiceParams,
        r: &DeleteTaskPushNotificationConfigRequest,
    ) -> Result<(), A2AError> {
        self.inner.delete_push_config(p, r).await.map_err(error)
    }
    async fn get_extended_agent_card(
        &self,
        p: &ServiceParams,
        r: &GetExtendedAgentCardRequest,
    ) -> Result<AgentCard, A2AError> {
        let card = self
            .inner
            .get_extended_agent_card(p, r)
            .await
            .map_err(error)?;
        if !has_secrets() {
            return Ok(card);
        }
        // Rare and small: through JSON, every string of it. A card that does not read back is kept as it was
        // rather than lost (its text is sanitised where it is shown).
        let Ok(mut v) = serde_json::to_value(&card) else {
            return Ok(card);
        };
        value(&mut v);
        Ok(serde_json::from_value(v).unwrap_or(card))
    }
    async fn destroy(&self) -> Result<(), A2AError> {
        self.inner.destroy().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_echoed_secret_is_redacted_everywhere_in_an_event_and_ids_stay() {
        let secret = "echoed-secret-4711-abcdef";
        crate::trust::redact::register_secret(secret);
        let mut ev = StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: format!("t-{secret}"),
            context_id: "c".into(),
            artifact: Artifact {
                artifact_id: "a".into(),
                name: Some(format!("name {secret}")),
                description: None,
                parts: vec![
                    Part::text(format!("Authorization: Bearer {secret}")),
                    Part::raw(format!("key={secret}\n").into_bytes()),
                    Part::data(serde_json::json!({"echo": [secret], secret: 1})),
                ],
                metadata: None,
                extensions: None,
            },
            append: None,
            last_chunk: Some(true),
            metadata: Some(HashMap::from([("h".to_string(), Value::from(secret))])),
        });
        event(&mut ev);
        let json = serde_json::to_string(&ev).unwrap();
        let StreamResponse::ArtifactUpdate(u) = &ev else {
            panic!()
        };
        assert_eq!(u.task_id, format!("t-{secret}"), "ids are left alone");
        let without_id = json.replace(&u.task_id, "");
        assert!(!without_id.contains(secret), "{json}");
        let PartContent::Raw(bytes) = &u.artifact.parts[1].content else {
            panic!()
        };
        assert_eq!(bytes, "key=‹redacted›\n".as_bytes());
        assert!(json.contains("Bearer ‹redacted›"), "{json}");
    }

    /// A data part keeps the agent's key order when a credential is configured, with or without a secret in it.
    #[test]
    fn redaction_keeps_the_order_of_an_objects_keys() {
        let secret = "order-secret-0815-qwerty";
        crate::trust::redact::register_secret(secret);
        let mut v =
            serde_json::json!({"zeta": 1, "alpha": {"y": secret, "b": 2, "a": 3}, "mid": [secret]});
        value(&mut v);
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"{"zeta":1,"alpha":{"y":"‹redacted›","b":2,"a":3},"mid":["‹redacted›"]}"#
        );
        let mut keyed = serde_json::json!({"first": 1, secret: 2, "last": 3});
        value(&mut keyed);
        assert_eq!(
            serde_json::to_string(&keyed).unwrap(),
            r#"{"first":1,"‹redacted›":2,"last":3}"#
        );
    }
}
