//! One POST to the push receiver, from the request to the event handed to the app: the checks run cheapest
//! and least revealing first (path, token, size, shape, task, context, repeat), and the body is read as a
//! v1.0 `StreamResponse` or a bare v0.3 `kind`-tagged object.

use super::token::{read_capped, token_matches};
use super::*;

/// Once the task's context is known, an event must carry exactly it: an empty or missing context id would
/// otherwise pass as "unchecked" and let a sender attach anything to the task.
pub(super) fn context_ok(known: Option<&str>, got: Option<&str>) -> Result<(), String> {
    match (known, got) {
        (Some(ours), Some(theirs)) if ours == theirs => Ok(()),
        (Some(ours), Some(theirs)) if !theirs.is_empty() => Err(format!(
            "the event is for context {:?}, not the task's {:?}",
            label(theirs),
            label(ours)
        )),
        (Some(ours), _) => Err(format!(
            "the event names no context, but the task's is {:?}",
            label(ours)
        )),
        (None, _) => Ok(()),
    }
}

/// POST /a2a/push/{id}. The checks run cheapest and least revealing first: path, token, size, shape, task,
/// context, repeat.
pub(super) async fn receive<A: AgentKey>(
    State(shared): State<Arc<Shared<A>>>,
    uri: Uri,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let Ok(Path(path_id)) = path else {
        return shared.reject(&label(uri.path()), Rejected::UnknownTask);
    };
    let Some(reg) = shared.find(&path_id) else {
        return shared.reject(&label(uri.path()), Rejected::UnknownTask);
    };
    let who = label(&reg.task_id);
    // Before the body is read, so an unauthenticated sender cannot make us buffer a megabyte.
    if !token_matches(&headers, &reg.token) {
        return shared.reject(&who, Rejected::BadToken);
    }
    // After the token (a stranger cannot use up an agent's places), before the body (the slow part).
    let _slot = match shared.in_flight.enter(&path_id, &reg.agent) {
        Ok(slot) => slot,
        Err(crowded) => {
            let mut refused = shared.reject_from(&reg.agent, &who, Rejected::Crowded(crowded));
            // Its body is never read; closing is the only way to be rid of it, and costs the sender nothing
            // it is owed.
            refused.headers_mut().insert(
                header::CONNECTION,
                header::HeaderValue::from_static("close"),
            );
            return refused;
        }
    };
    let limits = &shared.limits;
    let read = read_capped(&headers, body, limits.max_body_bytes);
    let bytes = match tokio::time::timeout(limits.body_timeout, read).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(why)) => return shared.reject(&who, why),
        Err(_) => return shared.reject(&who, Rejected::SlowBody),
    };
    let value: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => return shared.reject(&who, Rejected::Malformed(format!("not JSON: {e}"))),
    };
    let event = match parse_event(&value) {
        // A push is agent data like a stream event: an echoed credential is redacted on arrival (`echoed`).
        Ok(mut event) => {
            crate::remote::connect::echoed::event(&mut event);
            event
        }
        Err(why) => return shared.reject(&who, Rejected::Malformed(why)),
    };
    // The token proves who sent it, not what it is about: an event for another task must not ride on this
    // registration (MUST in spec §4.3.3).
    match event_task_id(&event) {
        Some(id) if id == reg.task_id => {}
        other => {
            let named = other.map_or_else(
                || "no task".to_owned(),
                |id| format!("task {:?}", label(id)),
            );
            return shared.reject(
                &who,
                Rejected::Malformed(format!("the event is for {named}, not this registration's")),
            );
        }
    }
    let context = event_context_id(&event);
    if let Err(why) = context_ok(reg.context.as_deref(), context) {
        return shared.reject(&who, Rejected::WrongContext(why));
    }
    // Re-serialised rather than the raw bytes, so a retry that differs only in whitespace is still a repeat.
    let digest = shared.hasher.hash_one(value.to_string());
    match shared.remember(&path_id, context, digest) {
        Remembered::Gone => return shared.reject(&who, Rejected::UnknownTask),
        Remembered::Repeat => return shared.reject(&who, Rejected::Duplicate),
        Remembered::WrongContext(why) => return shared.reject(&who, Rejected::WrongContext(why)),
        Remembered::New => {}
    }
    let delivered = PushEvent {
        agent: reg.agent,
        task_id: reg.task_id,
        event,
    };
    if shared.tx.send(delivered).is_err() {
        tracing::warn!(task = ?who, "push notification arrived while the console is shutting down");
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "the console is shutting down",
        )
            .into_response();
    }
    StatusCode::OK.into_response()
}

/// Anything that is not a POST to a webhook path.
pub(super) async fn elsewhere<A: AgentKey>(
    State(shared): State<Arc<Shared<A>>>,
    uri: Uri,
) -> Response {
    shared.reject(&label(uri.path()), Rejected::UnknownTask)
}

/// A v1.0 `StreamResponse`, or a bare v0.3 `kind`-tagged object (what the Python 0.3 SDK posts).
fn parse_event(value: &Value) -> Result<StreamResponse, String> {
    let Some(obj) = value.as_object() else {
        return Err("the body is not a JSON object".to_owned());
    };
    if obj.contains_key("kind") {
        return v03::event_from_v03(value)
            .map(|(event, _final)| event)
            .map_err(|e| format!("v0.3 event: {e}"));
    }
    // StreamResponse is a oneof; the SDK's deserializer would quietly pick one of several keys.
    let present: Vec<&str> = ["task", "message", "statusUpdate", "artifactUpdate"]
        .into_iter()
        .filter(|k| obj.contains_key(*k))
        .collect();
    if present.len() != 1 {
        return Err(format!(
            "expected exactly one of task, message, statusUpdate, artifactUpdate; found {}",
            if present.is_empty() {
                "none".to_owned()
            } else {
                present.join(", ")
            }
        ));
    }
    serde_json::from_value(value.clone()).map_err(|e| format!("{}: {e}", present[0]))
}

fn event_task_id(event: &StreamResponse) -> Option<&str> {
    match event {
        StreamResponse::Task(t) => Some(&t.id),
        StreamResponse::Message(m) => m.task_id.as_deref(),
        StreamResponse::StatusUpdate(s) => Some(&s.task_id),
        StreamResponse::ArtifactUpdate(a) => Some(&a.task_id),
    }
}

/// The context an event names (a message may name none).
fn event_context_id(event: &StreamResponse) -> Option<&str> {
    match event {
        StreamResponse::Task(t) => Some(&t.context_id),
        StreamResponse::Message(m) => m.context_id.as_deref(),
        StreamResponse::StatusUpdate(s) => Some(&s.context_id),
        StreamResponse::ArtifactUpdate(a) => Some(&a.context_id),
    }
}
