//! What one task was seen to do, in the form expectations are checked on and runs are compared by: the states
//! in order, the events and their timing, the artifacts (text, JSON data, files by size and hash), the agent's
//! messages and the untrusted-content flags. Built while a case runs ([`Observer`]) or afterwards from a task
//! kept in the store ([`from_events`]), so `compare` reads a suite run and a console task the same way.
//!
//! Text is kept sanitised (what a terminal may show); flags are found on the raw text first. What is kept of
//! one task is bounded: a long stream keeps its first [`KEPT_EVENTS`] events and every artifact's first
//! [`KEPT_TEXT`] bytes of text (the hash covers all of it).

use std::time::Instant;

use a2a::{Message, Part, PartContent, StreamResponse};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::task::event_serde::Out;
use crate::task::log::{Source, TaskLog, Verdict};
use crate::task::phase::state_name;
use crate::trust::flags;
use crate::trust::sanitize::{sanitize_line, sanitize_text};

/// Events kept per task (the count goes on).
pub const KEPT_EVENTS: usize = 200;
/// Bytes of one artifact's text kept.
pub const KEPT_TEXT: usize = 256 * 1024;

/// One task, as seen.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Observed {
    pub task_id: Option<String>,
    pub context_id: Option<String>,
    /// States in order, each once per stretch.
    pub states: Vec<String>,
    pub final_state: Option<String>,
    /// Events applied (stream events, replies, polls that changed something).
    pub events: usize,
    pub first_event_ms: Option<u64>,
    pub total_ms: u64,
    pub artifacts: Vec<SeenArtifact>,
    /// The agent's messages (status messages, a direct reply), sanitised.
    pub messages: Vec<String>,
    /// Untrusted-content flags on anything the agent sent: "prompt injection (artifact report.md)".
    pub flags: Vec<String>,
    /// Protocol anomalies the task log refused or warned about.
    pub anomalies: Vec<String>,
    /// The first events as JSON (the wire's shape).
    pub event_log: Vec<Value>,
    /// Errors the case got past, and how (runs kept before this field read as none).
    #[serde(default)]
    pub recovered: Vec<String>,
}

impl Observed {
    /// `submitted → working → completed`, or `none`.
    pub fn states_line(&self) -> String {
        if self.states.is_empty() {
            "none".to_string()
        } else {
            self.states.join(" → ")
        }
    }

    /// `first event 0.01 s · end 0.05 s`.
    pub fn timing_line(&self) -> String {
        let secs = |ms: u64| format!("{:.2} s", ms as f64 / 1000.0);
        format!(
            "first event {} · end {}",
            self.first_event_ms.map_or("—".to_string(), secs),
            secs(self.total_ms)
        )
    }
}

impl SeenArtifact {
    /// `greeting (text/plain; 21 B text, 0 data, 0 file)`.
    pub fn summary(&self) -> String {
        format!(
            "{} ({}; {} B text, {} data, {} file)",
            self.name.as_deref().unwrap_or(&self.id),
            if self.media_types.is_empty() {
                "text".to_string()
            } else {
                self.media_types.join(", ")
            },
            self.text_bytes,
            self.data.len(),
            self.files.len()
        )
    }
}

/// One artifact, as reassembled.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SeenArtifact {
    pub id: String,
    pub name: Option<String>,
    pub media_types: Vec<String>,
    /// The text parts, joined, sanitised (at most [`KEPT_TEXT`] bytes).
    pub text: String,
    /// SHA-256 of the whole text, so two long texts cut the same way still compare.
    pub text_sha256: String,
    pub text_bytes: usize,
    pub data: Vec<Value>,
    pub files: Vec<SeenFile>,
}

/// A file part: never its content, its size and hash.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SeenFile {
    pub name: Option<String>,
    pub media_type: Option<String>,
    /// Raw bytes: their count and hash; a URL: the URL (sanitised), not fetched.
    pub bytes: Option<usize>,
    pub sha256: Option<String>,
    pub url: Option<String>,
}

/// Follows one case's task through the shared task gate, timing it from when the message went out.
pub struct Observer {
    pub log: TaskLog,
    started: Instant,
    pub seen: Observed,
    generation: u64,
}

impl Default for Observer {
    fn default() -> Self {
        Self::new()
    }
}

impl Observer {
    pub fn new() -> Self {
        Observer {
            log: TaskLog::default(),
            started: Instant::now(),
            seen: Observed::default(),
            generation: 0,
        }
    }

    /// A new stream (the answer to an interrupted state): the task log expects the old state once more.
    pub fn next_stream(&mut self) {
        self.generation += 1;
        self.log.resuming = true;
    }

    pub fn source(&self) -> Source {
        Source::Stream(self.generation)
    }

    /// One piece of task data; `source` is [`Observer::source`] for a stream.
    pub fn event(&mut self, source: Source, event: &StreamResponse) {
        let ms = self.elapsed_ms();
        let verdict = self.log.judge(source, event);
        match &verdict {
            Verdict::Applied { warning, .. } => {
                if let Some(w) = warning {
                    self.seen.anomalies.push(sanitize_line(w).0);
                }
                self.seen.events += 1;
                self.seen.first_event_ms.get_or_insert(ms);
                if self.seen.event_log.len() < KEPT_EVENTS
                    && let Ok(v) = serde_json::to_value(Out(event))
                {
                    self.seen.event_log.push(v);
                }
                if self.log.phase().is_some() {
                    let state = state_name(&self.log.state).to_string();
                    if self.seen.states.last() != Some(&state) {
                        self.seen.states.push(state);
                    }
                }
                if let Some(m) = &self.log.status_message {
                    self.message(m.clone());
                }
                if let StreamResponse::Message(m) = event {
                    self.message(m.clone());
                }
            }
            Verdict::Illegal(why) => self.seen.anomalies.push(sanitize_line(why).0),
            Verdict::Duplicate | Verdict::Stale(_) => {}
        }
    }

    fn message(&mut self, m: Message) {
        let raw = parts_text(&m.parts);
        if raw.is_empty() {
            return;
        }
        let (text, findings) = sanitize_text(&raw);
        if self.seen.messages.last() == Some(&text) {
            return;
        }
        note_flags(&mut self.seen.flags, &findings, &text, "message");
        self.seen.messages.push(text);
    }

    pub fn elapsed_ms(&self) -> u64 {
        u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// The task as it ended (or as far as it got): artifacts read from the log, the clock stopped.
    pub fn finish(mut self) -> Observed {
        self.seen.total_ms = self.elapsed_ms();
        finish_log(&mut self.seen, &self.log);
        self.seen
    }
}

/// Fill in what the log holds at the end: ids, final state, artifacts.
fn finish_log(seen: &mut Observed, log: &TaskLog) {
    seen.task_id = log.task_id.clone();
    seen.context_id = log.context_id.clone();
    seen.final_state = log
        .phase()
        .map(|_| state_name(&log.state).to_string())
        .or_else(|| log.direct_reply.as_ref().map(|_| "message".to_string()));
    seen.artifacts = artifacts_of(log, &mut seen.flags);
}

/// The artifacts of the task a log follows now (a console tab's log keeps its earlier tasks' too), as seen; their untrusted-content flags are added to `flags` (the console's
/// compare builds a task's [`Observed`] from a tab with this).
pub fn artifacts_of(log: &TaskLog, flags: &mut Vec<String>) -> Vec<SeenArtifact> {
    log.current_artifacts()
        .iter()
        .map(|a| artifact(&a.artifact, flags))
        .collect()
}

fn artifact(a: &a2a::Artifact, flagged: &mut Vec<String>) -> SeenArtifact {
    let name = a.name.as_deref().map(|n| sanitize_line(n).0);
    let what = format!(
        "artifact {}",
        name.clone()
            .unwrap_or_else(|| sanitize_line(&a.artifact_id).0)
    );
    let mut out = SeenArtifact {
        id: sanitize_line(&a.artifact_id).0,
        name,
        ..SeenArtifact::default()
    };
    let mut raw_text = String::new();
    for p in &a.parts {
        if let Some(m) = p.media_type.as_deref() {
            let m = sanitize_line(m).0;
            if !out.media_types.contains(&m) {
                out.media_types.push(m);
            }
        }
        match &p.content {
            PartContent::Text(t) => raw_text.push_str(t),
            PartContent::Data(v) => {
                if !out.media_types.iter().any(|m| m == "application/json")
                    && p.media_type.is_none()
                {
                    out.media_types.push("application/json".into());
                }
                out.data.push(v.clone());
            }
            PartContent::Raw(b) => out.files.push(SeenFile {
                name: p.filename.as_deref().map(|n| sanitize_line(n).0),
                media_type: p.media_type.as_deref().map(|m| sanitize_line(m).0),
                bytes: Some(b.len()),
                sha256: Some(hex(&Sha256::digest(b))),
                url: None,
            }),
            PartContent::Url(u) => out.files.push(SeenFile {
                name: p.filename.as_deref().map(|n| sanitize_line(n).0),
                media_type: p.media_type.as_deref().map(|m| sanitize_line(m).0),
                bytes: None,
                sha256: None,
                url: Some(sanitize_line(u).0),
            }),
        }
    }
    out.text_bytes = raw_text.len();
    out.text_sha256 = hex(&Sha256::digest(raw_text.as_bytes()));
    let (text, findings) = sanitize_text(&raw_text);
    note_flags(flagged, &findings, &text, &what);
    for v in &out.data {
        let (_, findings) = sanitize_text(&v.to_string());
        note_flags(flagged, &findings, "", &what);
    }
    out.text = cut(text, KEPT_TEXT);
    out
}

/// The flags of one sanitised text, each kind once per place.
fn note_flags(
    into: &mut Vec<String>,
    findings: &crate::trust::sanitize::Findings,
    text: &str,
    what: &str,
) {
    let mut found = flags::from_findings(findings);
    found.extend(flags::scan(text));
    for f in found {
        let line = format!("{} ({what})", f.kind.label());
        if !into.contains(&line) {
            into.push(line);
        }
    }
}

fn parts_text(parts: &[Part]) -> String {
    parts
        .iter()
        .filter_map(|p| p.as_text())
        .collect::<Vec<_>>()
        .join("\n")
}

fn cut(mut s: String, max: usize) -> String {
    if s.len() > max {
        let at = crate::trust::sanitize::floor_char_boundary(&s, max);
        s.truncate(at);
        s.push_str("\n… (cut)");
    }
    s
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// One kept event of a console task: when it arrived, and the event (`None` for what the user sent).
pub struct KeptEvent {
    pub at: chrono::DateTime<chrono::Utc>,
    pub event: Option<StreamResponse>,
}

/// A task kept in the store, replayed through the task gate: timings are counted from the first message the
/// user sent (or the first event, when none was kept).
pub fn from_events(events: &[KeptEvent]) -> Observed {
    let start = events.first().map(|e| e.at);
    let ms = |at: chrono::DateTime<chrono::Utc>| {
        start.map_or(0, |s| {
            u64::try_from((at - s).num_milliseconds()).unwrap_or(0)
        })
    };
    let mut observer = Observer::new();
    let (mut first, mut last) = (None, 0);
    for e in events {
        let Some(ev) = &e.event else {
            // The user answered: what comes next is the task going on, on a new stream.
            observer.next_stream();
            continue;
        };
        let before = observer.seen.events;
        observer.event(observer.source(), ev);
        if observer.seen.events > before {
            first.get_or_insert(ms(e.at));
        }
        last = ms(e.at);
    }
    let mut out = observer.finish();
    out.first_event_ms = first;
    out.total_ms = last;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a::{Artifact, Task, TaskState, TaskStatus};

    fn task(state: TaskState, artifacts: Vec<Artifact>) -> StreamResponse {
        StreamResponse::Task(Task {
            id: "t1".into(),
            context_id: "c1".into(),
            status: TaskStatus {
                state,
                message: None,
                timestamp: None,
            },
            artifacts: Some(artifacts),
            history: None,
            metadata: None,
        })
    }

    #[test]
    fn states_artifacts_and_flags_are_seen() {
        let mut o = Observer::new();
        o.event(o.source(), &task(TaskState::Working, vec![]));
        let a = Artifact {
            artifact_id: "a1".into(),
            name: Some("report".into()),
            description: None,
            parts: vec![
                Part::text("hello \u{1b}[31mred\u{1b}[0m"),
                Part::data(serde_json::json!({"language": "rust"})),
            ],
            metadata: None,
            extensions: None,
        };
        o.event(o.source(), &task(TaskState::Completed, vec![a]));
        let seen = o.finish();
        assert_eq!(seen.states, ["working", "completed"]);
        assert_eq!(seen.final_state.as_deref(), Some("completed"));
        assert_eq!(seen.events, 2);
        let art = &seen.artifacts[0];
        assert!(!art.text.contains('\u{1b}'), "kept text is sanitised");
        assert_eq!(art.data, [serde_json::json!({"language": "rust"})]);
        assert!(art.media_types.contains(&"application/json".to_string()));
        assert!(
            seen.flags
                .iter()
                .any(|f| f.contains("escape sequence (artifact report)")),
            "{:?}",
            seen.flags
        );
    }
}
