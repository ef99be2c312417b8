//! The JSON of the two events a stream carries by the thousand, a status update and an artifact chunk with
//! text parts, written straight into a buffer: byte for byte what [`event_serde`](super::event_serde)
//! writes, without serde. Any other shape (metadata, a part that is not plain text, extensions, another
//! member) goes through `event_serde`; a string that needs escaping, and the enum names, go through
//! serde_json, so the escaping is serde_json's own.
//!
//! Why: the store encodes every event it records, on a core the console's own threads want during a flood.
//! In a profile of `cargo bench --bench flood`, serde's per-field dispatch and its byte-at-a-time escaping
//! of strings that need none were a quarter of the store's CPU. Here the keys are literals, and a string is
//! checked for the bytes JSON escapes in one pass the compiler vectorises, then copied.

use a2a::{
    Artifact, Message, Part, PartContent, StreamResponse, TaskArtifactUpdateEvent, TaskStatus,
    TaskStatusUpdateEvent,
};
use chrono::SecondsFormat;

use super::event_serde::Out;

/// Append the JSON of the event's member (`{"taskId":…}` for a status update, not the `statusUpdate`
/// wrapper), as `serde_json::to_writer(out, &Out(member))` would.
pub fn write_member(event: &StreamResponse, out: &mut Vec<u8>) -> serde_json::Result<()> {
    match event {
        StreamResponse::StatusUpdate(u) if plain_status_update(u) => {
            status_update(u, out);
            Ok(())
        }
        StreamResponse::ArtifactUpdate(u) if plain_artifact_update(u) => {
            artifact_update(u, out);
            Ok(())
        }
        StreamResponse::StatusUpdate(u) => serde_json::to_writer(out, &Out(u)),
        StreamResponse::ArtifactUpdate(u) => serde_json::to_writer(out, &Out(u)),
        StreamResponse::Task(t) => serde_json::to_writer(out, &Out(t)),
        StreamResponse::Message(m) => serde_json::to_writer(out, &Out(m)),
    }
}

fn plain_status_update(u: &TaskStatusUpdateEvent) -> bool {
    u.metadata.is_none() && u.status.message.as_ref().is_none_or(plain_message)
}

fn plain_artifact_update(u: &TaskArtifactUpdateEvent) -> bool {
    u.metadata.is_none() && plain_artifact(&u.artifact)
}

fn plain_message(m: &Message) -> bool {
    m.metadata.is_none()
        && m.extensions.is_none()
        && m.reference_task_ids.is_none()
        && m.parts.iter().all(plain_part)
}

fn plain_artifact(a: &Artifact) -> bool {
    a.metadata.is_none() && a.extensions.is_none() && a.parts.iter().all(plain_part)
}

/// A text part with nothing else (empty metadata is not written, so it counts as none).
fn plain_part(p: &Part) -> bool {
    matches!(p.content, PartContent::Text(_))
        && p.filename.is_none()
        && p.media_type.is_none()
        && p.metadata.as_ref().is_none_or(|m| m.is_empty())
}

fn status_update(u: &TaskStatusUpdateEvent, out: &mut Vec<u8>) {
    ids(&u.task_id, &u.context_id, out);
    out.extend_from_slice(b",\"status\":");
    status(&u.status, out);
    out.push(b'}');
}

fn status(s: &TaskStatus, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"state\":");
    name(&s.state, out);
    if let Some(m) = &s.message {
        out.extend_from_slice(b",\"message\":");
        message(m, out);
    }
    if let Some(t) = &s.timestamp {
        out.extend_from_slice(b",\"timestamp\":");
        string(&t.to_rfc3339_opts(SecondsFormat::AutoSi, true), out);
    }
    out.push(b'}');
}

fn message(m: &Message, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"messageId\":");
    string(&m.message_id, out);
    optional(b",\"contextId\":", m.context_id.as_deref(), out);
    optional(b",\"taskId\":", m.task_id.as_deref(), out);
    out.extend_from_slice(b",\"role\":");
    name(&m.role, out);
    out.extend_from_slice(b",\"parts\":");
    parts(&m.parts, out);
    out.push(b'}');
}

fn artifact_update(u: &TaskArtifactUpdateEvent, out: &mut Vec<u8>) {
    ids(&u.task_id, &u.context_id, out);
    out.extend_from_slice(b",\"artifact\":{\"artifactId\":");
    let a = &u.artifact;
    string(&a.artifact_id, out);
    optional(b",\"name\":", a.name.as_deref(), out);
    optional(b",\"description\":", a.description.as_deref(), out);
    out.extend_from_slice(b",\"parts\":");
    parts(&a.parts, out);
    out.push(b'}');
    flag(b",\"append\":", u.append, out);
    flag(b",\"lastChunk\":", u.last_chunk, out);
    out.push(b'}');
}

/// `{"taskId":…,"contextId":…` — an update's first two members.
fn ids(task_id: &str, context_id: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(b"{\"taskId\":");
    string(task_id, out);
    out.extend_from_slice(b",\"contextId\":");
    string(context_id, out);
}

/// A member that is left out when it has no value; `key` is written as it is (`,"name":`).
fn optional(key: &[u8], value: Option<&str>, out: &mut Vec<u8>) {
    if let Some(v) = value {
        out.extend_from_slice(key);
        string(v, out);
    }
}

/// A boolean member that is left out when it has no value.
fn flag(key: &[u8], value: Option<bool>, out: &mut Vec<u8>) {
    if let Some(v) = value {
        out.extend_from_slice(key);
        out.extend_from_slice(if v { b"true" } else { b"false" });
    }
}

/// An enum as the SDK names it (a few bytes; its impl is the one `event_serde` uses).
fn name<T: serde::Serialize>(value: &T, out: &mut Vec<u8>) {
    if serde_json::to_writer(&mut *out, value).is_err() {
        out.extend_from_slice(b"null");
    }
}

/// Text parts only (see [`plain_part`]).
fn parts(parts: &[Part], out: &mut Vec<u8>) {
    out.push(b'[');
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"text\":");
        match &p.content {
            PartContent::Text(t) => string(t, out),
            // Not reached: callers check `plain_part` first.
            _ => out.extend_from_slice(b"null"),
        }
        out.push(b'}');
    }
    out.push(b']');
}

/// A JSON string: copied between quotes when nothing in it needs escaping, else as serde_json escapes it.
fn string(s: &str, out: &mut Vec<u8>) {
    if needs_escape(s.as_bytes()) {
        // Writing a `str` into a `Vec` cannot fail.
        let _ = serde_json::to_writer(&mut *out, s);
    } else {
        out.reserve(s.len() + 2);
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    }
}

/// Whether JSON must escape a byte of `s`: a quote, a backslash or a control character (what serde_json
/// escapes; DEL and non-ASCII are written as they are). One pass without an early exit, so that it
/// vectorises.
fn needs_escape(s: &[u8]) -> bool {
    s.iter().fold(false, |any, &b| {
        any | (b < 0x20) | (b == b'"') | (b == b'\\')
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a::{Role, TaskState};
    use chrono::{TimeZone, Utc};
    use proptest::prelude::*;
    use std::collections::HashMap;

    fn serde_bytes(event: &StreamResponse) -> Vec<u8> {
        let mut out = Vec::new();
        match event {
            StreamResponse::StatusUpdate(u) => serde_json::to_writer(&mut out, &Out(u)),
            StreamResponse::ArtifactUpdate(u) => serde_json::to_writer(&mut out, &Out(u)),
            StreamResponse::Task(t) => serde_json::to_writer(&mut out, &Out(t)),
            StreamResponse::Message(m) => serde_json::to_writer(&mut out, &Out(m)),
        }
        .unwrap();
        out
    }

    fn quick_bytes(event: &StreamResponse) -> Vec<u8> {
        // Appended after what is already in the buffer, as the store's pack does.
        let mut out = b"prefix".to_vec();
        write_member(event, &mut out).unwrap();
        out.split_off(6)
    }

    fn same(event: &StreamResponse) {
        let quick = quick_bytes(event);
        let serde = serde_bytes(event);
        assert_eq!(
            String::from_utf8_lossy(&quick),
            String::from_utf8_lossy(&serde)
        );
    }

    fn status(text: &str, state: TaskState) -> TaskStatusUpdateEvent {
        let mut m = Message::new(Role::Agent, vec![Part::text(text)]);
        m.task_id = Some("task-1".into());
        m.context_id = Some("ctx-1".into());
        TaskStatusUpdateEvent {
            task_id: "task-1".into(),
            context_id: "ctx-1".into(),
            status: TaskStatus {
                state,
                message: Some(m),
                timestamp: Some(Utc.with_ymd_and_hms(2026, 12, 5, 1, 2, 3).unwrap()),
            },
            metadata: None,
        }
    }

    fn chunk(text: &str) -> TaskArtifactUpdateEvent {
        TaskArtifactUpdateEvent {
            task_id: "task-1".into(),
            context_id: "ctx-1".into(),
            artifact: Artifact {
                artifact_id: "a-1".into(),
                name: Some("report.md".into()),
                description: None,
                parts: vec![Part::text(text)],
                metadata: None,
                extensions: None,
            },
            append: Some(true),
            last_chunk: None,
            metadata: None,
        }
    }

    #[test]
    fn a_status_update_is_written_as_event_serde_writes_it_in_every_shape() {
        let states = [
            TaskState::Submitted,
            TaskState::Working,
            TaskState::InputRequired,
            TaskState::AuthRequired,
            TaskState::Completed,
            TaskState::Failed,
            TaskState::Canceled,
            TaskState::Rejected,
            TaskState::Unspecified,
        ];
        for state in states {
            same(&StreamResponse::StatusUpdate(status("flood 1/100", state)));
        }
        let mut u = status(
            "a \"quoted\" \\ line\nnext\ttab \u{1b}[31m é 🦀 \u{7f}",
            TaskState::Working,
        );
        same(&StreamResponse::StatusUpdate(u.clone()));
        // Timestamps at each precision chrono's AutoSi chooses.
        for nanos in [0, 5_000_000, 5_120_000, 5_123_456, 999_999_999] {
            u.status.timestamp = Some(
                Utc.with_ymd_and_hms(2026, 12, 5, 1, 2, 3).unwrap()
                    + chrono::Duration::nanoseconds(nanos),
            );
            same(&StreamResponse::StatusUpdate(u.clone()));
        }
        u.status.timestamp = None;
        same(&StreamResponse::StatusUpdate(u.clone()));
        if let Some(m) = u.status.message.as_mut() {
            m.context_id = None;
            m.task_id = None;
            m.role = Role::User;
            m.parts.push(Part::text(""));
            m.parts.push(Part::text("third"));
            m.parts[0].metadata = Some(HashMap::new());
        }
        same(&StreamResponse::StatusUpdate(u.clone()));
        u.status.message = None;
        same(&StreamResponse::StatusUpdate(u));
    }

    #[test]
    fn any_other_shape_goes_through_event_serde() {
        let mut u = status("x", TaskState::Working);
        u.metadata = Some(HashMap::new());
        same(&StreamResponse::StatusUpdate(u.clone()));
        u.metadata = None;
        let m = u.status.message.as_mut().unwrap();
        m.parts[0].metadata = Some(HashMap::from([("k".into(), serde_json::json!(1.5))]));
        same(&StreamResponse::StatusUpdate(u.clone()));
        let m = u.status.message.as_mut().unwrap();
        m.parts = vec![Part::data(serde_json::json!({"a": [1, "b\n"]}))];
        m.extensions = Some(vec!["urn:x".into()]);
        same(&StreamResponse::StatusUpdate(u.clone()));
        let mut c = chunk("text");
        c.artifact
            .parts
            .push(Part::url("https://example.invalid/f"));
        same(&StreamResponse::ArtifactUpdate(c.clone()));
        c.artifact.parts.truncate(1);
        c.artifact.metadata = Some(HashMap::new());
        same(&StreamResponse::ArtifactUpdate(c));
        same(&StreamResponse::Message(u.status.message.clone().unwrap()));
    }

    #[test]
    fn an_artifact_chunk_is_written_as_event_serde_writes_it_in_every_shape() {
        let mut c = chunk("## Heading\n\n| a | b |\n\"q\" \\ \u{0}");
        for (append, last) in [
            (None, None),
            (Some(true), None),
            (Some(false), Some(true)),
            (None, Some(false)),
        ] {
            c.append = append;
            c.last_chunk = last;
            same(&StreamResponse::ArtifactUpdate(c.clone()));
        }
        c.artifact.name = None;
        c.artifact.description = Some("what it is".into());
        c.artifact.parts = Vec::new();
        same(&StreamResponse::ArtifactUpdate(c));
    }

    proptest! {
        #[test]
        fn any_text_and_ids_come_out_as_serde_json_writes_them(
            text in any::<String>(),
            id in "[\\x00-\\x7f]{0,40}",
            name in proptest::option::of(any::<String>()),
        ) {
            let mut u = status(&text, TaskState::Working);
            u.task_id = id.clone();
            u.context_id = text.clone();
            same(&StreamResponse::StatusUpdate(u));
            let mut c = chunk(&text);
            c.artifact.artifact_id = id;
            c.artifact.name = name;
            same(&StreamResponse::ArtifactUpdate(c));
        }
    }
}
