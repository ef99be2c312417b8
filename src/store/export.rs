//! A stored task as something to keep or share: a Markdown transcript for people and a JSON document for
//! programs, both rebuilt from the events exactly as they arrived.
//!
//! The Markdown passes every string through `trust::sanitize` (no escape sequence reaches a file that someone
//! will later `cat`), and puts remote text in block quotes under the agent's name, so an agent cannot make its
//! words look like the user's by writing a heading. The JSON keeps the data faithful: serde escapes control
//! characters, so it carries no raw escape bytes either.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use a2a::{Artifact, Message, Role, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent};
use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use super::{StoredEvent, TaskRecord, kind};
use crate::remote::message::parts_text;
use crate::remote::tracker::state_name;
use crate::trust::sanitize::{sanitize_line, sanitize_text};

/// Names the JSON export's shape, so a reader can tell versions apart.
pub const JSON_EXPORT_FORMAT: &str = "a2a-console/task/1";

/// A one-line remote field (name, id, URL) made safe for Markdown: sanitised, and with the characters that
/// would start emphasis, links, HTML or headings escaped, so a name cannot restyle the transcript around it.
fn line(s: &str) -> String {
    let clean = sanitize_line(s).0;
    let mut out = String::with_capacity(clean.len());
    for c in clean.chars() {
        if matches!(
            c,
            '\\' | '*' | '_' | '`' | '[' | ']' | '<' | '>' | '#' | '|' | '~' | '!'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn when(t: &DateTime<Utc>) -> String {
    t.format("%Y-%m-%d %H:%M:%S UTC").to_string()
}

/// Quote a block of text line by line; an empty block still shows that something (nothing) was said.
fn quote(out: &mut String, raw: &str) {
    let text = sanitize_text(raw).0;
    let text = text.trim_end_matches('\n');
    if text.is_empty() {
        out.push_str("> _(empty)_\n");
    }
    for l in text.lines() {
        if l.is_empty() {
            out.push_str(">\n");
        } else {
            let _ = writeln!(out, "> {l}");
        }
    }
    out.push('\n');
}

/// What an event says, decoded once.
#[derive(Clone)]
enum Decoded {
    User(Message),
    Message(Message),
    Task(Box<Task>),
    Status(TaskStatusUpdateEvent),
    Artifact(TaskArtifactUpdateEvent),
    Note { text: String, error: bool },
    Unreadable,
}

fn decode(e: &StoredEvent) -> Decoded {
    fn parse<T: crate::remote::event_serde::Wired>(s: &str) -> Option<T> {
        crate::remote::event_serde::from_json(s).ok()
    }
    let d = match e.kind.as_str() {
        kind::USER => parse(&e.json).map(Decoded::User),
        kind::MESSAGE => parse(&e.json).map(Decoded::Message),
        kind::TASK => parse(&e.json).map(|t| Decoded::Task(Box::new(t))),
        kind::STATUS => parse(&e.json).map(Decoded::Status),
        kind::ARTIFACT => parse(&e.json).map(Decoded::Artifact),
        kind::NOTE => serde_json::from_str::<Value>(&e.json)
            .ok()
            .map(|v| Decoded::Note {
                text: v
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string(),
                error: v.get("error").and_then(Value::as_bool).unwrap_or(false),
            }),
        _ => None,
    };
    d.unwrap_or(Decoded::Unreadable)
}

/// Artifacts as they stood at the end, with the chunks put back together (A2A `append` / replace rules).
fn final_artifacts(decoded: &[(Option<&StoredEvent>, Decoded)]) -> HashMap<String, Artifact> {
    let mut out: HashMap<String, Artifact> = HashMap::new();
    for (_, d) in decoded {
        match d {
            Decoded::Artifact(u) => {
                let id = u.artifact.artifact_id.clone();
                match out.get_mut(&id) {
                    Some(a) if u.append == Some(true) => a.parts.extend(u.artifact.parts.clone()),
                    _ => {
                        out.insert(id, u.artifact.clone());
                    }
                }
            }
            Decoded::Task(t) => {
                for a in t.artifacts.iter().flatten() {
                    out.insert(a.artifact_id.clone(), a.clone());
                }
            }
            _ => {}
        }
    }
    out
}

/// Renders entries once each: messages by id, artifacts by id, state only when it changes.
struct Transcript<'a> {
    out: String,
    agent: &'a str,
    seen_messages: HashSet<String>,
    /// What the user sent, by text, as the console recorded it: an agent's history that echoes one of these
    /// under another message id (or none) is the same message, not a second one.
    sent: HashMap<String, usize>,
    seen_artifacts: HashSet<String>,
    state: Option<String>,
    artifacts: HashMap<String, Artifact>,
}

impl Transcript<'_> {
    fn message(&mut self, m: &Message, at: &DateTime<Utc>, from_user: bool) {
        if !m.message_id.is_empty() && !self.seen_messages.insert(m.message_id.clone()) {
            return;
        }
        let text = parts_text(&m.parts);
        if from_user {
            *self.sent.entry(text.clone()).or_default() += 1;
        } else if m.role == Role::User
            && let Some(n) = self.sent.get_mut(&text).filter(|n| **n > 0)
        {
            *n -= 1;
            return;
        }
        let who = if from_user || m.role == Role::User {
            "You".to_string()
        } else {
            line(self.agent)
        };
        let _ = writeln!(self.out, "**{who}** · {}\n", when(at));
        quote(&mut self.out, &text);
    }

    fn state(&mut self, state: &a2a::TaskState, at: &DateTime<Utc>) {
        let name = state_name(state).to_string();
        if self.state.as_deref() != Some(name.as_str()) {
            let _ = writeln!(self.out, "_State: {name}_ · {}\n", when(at));
            self.state = Some(name);
        }
    }

    fn artifact(&mut self, id: &str, at: &DateTime<Utc>) {
        if !self.seen_artifacts.insert(id.to_string()) {
            return;
        }
        let Some(a) = self.artifacts.get(id) else {
            return;
        };
        let title = match a.name.as_deref().filter(|n| !n.is_empty()) {
            Some(n) => format!("Artifact “{}”", line(n)),
            None => format!("Artifact {}", line(id)),
        };
        let _ = writeln!(
            self.out,
            "**{title}** from {} · {}\n",
            line(self.agent),
            when(at)
        );
        if let Some(d) = a.description.as_deref().filter(|d| !d.is_empty()) {
            let _ = writeln!(self.out, "_{}_\n", line(d));
        }
        let text = parts_text(&a.parts);
        quote(&mut self.out, &text);
    }

    fn task(&mut self, t: &Task, at: &DateTime<Utc>) {
        for m in t.history.iter().flatten() {
            self.message(m, at, false);
        }
        self.state(&t.status.state, at);
        if let Some(m) = &t.status.message {
            self.message(m, at, false);
        }
        for a in t.artifacts.iter().flatten() {
            self.artifact(&a.artifact_id, at);
        }
    }
}

/// The task ids of a conversation's rows, in the order they first appear (rows with no task id, a message
/// exchange's, name none).
pub fn tasks_in(events: &[StoredEvent]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for e in events {
        if !e.task_id.is_empty() && !out.contains(&e.task_id.as_str()) {
            out.push(&e.task_id);
        }
    }
    out
}

/// A readable transcript: the header (agent, ids, state), then what the user sent, what the agent said, state
/// changes, notes, and each artifact's text (chunks reassembled) where it first appeared. A snapshot in the
/// record fills in what the events lack (a blocking reply has no stream events).
pub fn export_task_markdown(rec: &TaskRecord, events: &[StoredEvent]) -> String {
    let snapshot = rec
        .snapshot_json
        .as_deref()
        .and_then(|s| serde_json::from_str::<Task>(s).ok())
        .map(|t| (rec.task_id.clone(), t));
    export_conversation_markdown(rec, events, snapshot.into_iter().collect())
}

/// A tab's whole conversation as a readable transcript: every task of it in order, each under its own heading,
/// with its own artifacts (two tasks may name an artifact alike: each keeps its own). `snapshots` are the
/// tasks' stored snapshots by task id; each fills in what its task's events lack. `rec` is the tab's latest
/// task (its id empty for a message exchange).
pub fn export_conversation_markdown(
    rec: &TaskRecord,
    events: &[StoredEvent],
    snapshots: HashMap<String, Task>,
) -> String {
    let decoded: Vec<(Option<&StoredEvent>, Decoded)> =
        events.iter().map(|e| (Some(e), decode(e))).collect();
    let mut tasks: Vec<String> = tasks_in(events).into_iter().map(str::to_owned).collect();
    // A snapshot of a task no row names (a blocking reply recorded only as the task's row) still counts.
    let mut rest: Vec<(String, Task)> = snapshots.into_iter().collect();
    rest.sort_by(|a, b| a.0.cmp(&b.0));
    let mut snapshots: HashMap<String, Task> = HashMap::new();
    for (id, t) in rest {
        if !tasks.contains(&id) {
            tasks.push(id.clone());
        }
        snapshots.insert(id, t);
    }
    // Each task's artifacts reassembled from its own rows (and its snapshot).
    let mut by_task: HashMap<String, HashMap<String, Artifact>> = HashMap::new();
    for task in &tasks {
        let mut own: Vec<(Option<&StoredEvent>, Decoded)> = Vec::new();
        for (e, d) in &decoded {
            if e.is_some_and(|e| &e.task_id == task) {
                own.push((*e, d.clone()));
            }
        }
        if let Some(t) = snapshots.get(task) {
            own.push((None, Decoded::Task(Box::new(t.clone()))));
        }
        by_task.insert(task.clone(), final_artifacts(&own));
    }
    let untasked: Vec<(Option<&StoredEvent>, Decoded)> = decoded
        .iter()
        .filter(|(e, _)| e.is_some_and(|e| e.task_id.is_empty()))
        .map(|(e, d)| (*e, d.clone()))
        .collect();
    let mut tr = Transcript {
        out: String::new(),
        agent: &rec.agent_name,
        seen_messages: HashSet::new(),
        sent: HashMap::new(),
        seen_artifacts: HashSet::new(),
        state: None,
        artifacts: final_artifacts(&untasked),
    };
    let several = tasks.len() > 1;
    // A tab whose agent answered with messages only has no task: it is exported as a message exchange.
    let exchange = tasks.is_empty() && rec.task_id.is_empty();
    if several {
        let _ = writeln!(tr.out, "# Conversation with {}\n", line(&rec.agent_name));
    } else if exchange {
        let _ = writeln!(
            tr.out,
            "# Message exchange with {}\n",
            line(&rec.agent_name)
        );
    } else {
        let only = tasks.first().map(String::as_str).unwrap_or(&rec.task_id);
        let _ = writeln!(
            tr.out,
            "# Task {} with {}\n",
            line(only),
            line(&rec.agent_name)
        );
    }
    let _ = writeln!(
        tr.out,
        "- Agent: {} ({})",
        line(&rec.agent_name),
        line(&rec.agent_url)
    );
    if exchange {
        tr.out
            .push_str("- Task: none (the agent answered with messages)\n");
    } else if several {
        let ids: Vec<String> = tasks.iter().map(|t| line(t)).collect();
        let _ = writeln!(tr.out, "- Tasks: {} ({})", tasks.len(), ids.join(", "));
    } else {
        let only = tasks.first().map(String::as_str).unwrap_or(&rec.task_id);
        let _ = writeln!(tr.out, "- Task: {}", line(only));
    }
    if let Some(c) = &rec.context_id {
        let _ = writeln!(tr.out, "- Context: {}", line(c));
    }
    let _ = writeln!(tr.out, "- State: {}", line(&rec.state));
    let _ = writeln!(tr.out, "- Updated: {}\n", when(&rec.updated_at));
    tr.out.push_str("## Transcript\n\n");
    // Snapshots go at the end of their task's rows: they only fill in what the rows lack.
    let mut current: Option<String> = None;
    let mut snapshot_of = |tr: &mut Transcript, task: Option<&String>| {
        if let Some(t) = task.and_then(|t| snapshots.remove(t)) {
            tr.task(&t, &rec.updated_at);
        }
    };
    for (e, d) in &decoded {
        let at = e.map(|e| e.at).unwrap_or(rec.updated_at);
        if let Some(e) = e.filter(|e| !e.task_id.is_empty())
            && current.as_deref() != Some(e.task_id.as_str())
        {
            snapshot_of(&mut tr, current.as_ref());
            current = Some(e.task_id.clone());
            if several {
                let _ = writeln!(tr.out, "### Task {}\n", line(&e.task_id));
            }
            tr.state = None;
            tr.seen_artifacts.clear();
            tr.artifacts = by_task.remove(&e.task_id).unwrap_or_default();
        }
        tr.entry(*e, d, at);
    }
    snapshot_of(&mut tr, current.as_ref());
    // Tasks known only by their snapshot.
    for task in tasks {
        if let Some(t) = snapshots.remove(&task) {
            if several {
                let _ = writeln!(tr.out, "### Task {}\n", line(&task));
            }
            tr.state = None;
            tr.seen_artifacts.clear();
            tr.artifacts = by_task.remove(&task).unwrap_or_default();
            tr.task(&t, &rec.updated_at);
        }
    }
    // Every block ends with a blank line; a file ends with one newline.
    let len = tr.out.trim_end_matches('\n').len();
    tr.out.truncate(len);
    tr.out.push('\n');
    tr.out
}

impl Transcript<'_> {
    /// One stored row, as the transcript shows it.
    fn entry(&mut self, e: Option<&StoredEvent>, d: &Decoded, at: DateTime<Utc>) {
        match d {
            Decoded::User(m) => self.message(m, &at, true),
            Decoded::Message(m) => self.message(m, &at, false),
            Decoded::Task(t) => self.task(t, &at),
            Decoded::Status(u) => {
                self.state(&u.status.state, &at);
                if let Some(m) = &u.status.message {
                    self.message(m, &at, false);
                }
            }
            Decoded::Artifact(u) => self.artifact(&u.artifact.artifact_id, &at),
            Decoded::Note { text, error } => {
                let label = if *error { "Error" } else { "Note" };
                let _ = writeln!(self.out, "_{label}:_ {} · {}\n", line(text), when(&at));
            }
            Decoded::Unreadable => {
                if let Some(e) = e {
                    let _ = writeln!(
                        self.out,
                        "_(an event of kind “{}”, #{}, that this version cannot read; it is in the JSON export)_\n",
                        line(&e.kind),
                        e.seq
                    );
                }
            }
        }
    }
}

/// The task and every stored event as one JSON document. Event payloads are embedded as JSON (or, if a
/// payload does not parse, as the original string under `raw`).
pub fn export_task_json(rec: &TaskRecord, events: &[StoredEvent]) -> Value {
    let parse = |s: &str| serde_json::from_str::<Value>(s).unwrap_or_else(|_| json!({ "raw": s }));
    json!({
        "format": JSON_EXPORT_FORMAT,
        "agent": { "url": rec.agent_url, "name": rec.agent_name },
        "task": {
            "id": rec.task_id,
            "contextId": rec.context_id,
            "state": rec.state,
            "tabId": rec.tab_id,
            "updatedAt": rec.updated_at,
            "snapshot": rec.snapshot_json.as_deref().map(parse),
        },
        // A conversation's tasks in order (one for a single task, none for a message exchange).
        "tasks": tasks_in(events),
        "events": events.iter().map(|e| json!({
            "seq": e.seq,
            "at": e.at,
            "taskId": e.task_id,
            "kind": e.kind,
            "data": parse(&e.json),
        })).collect::<Vec<_>>(),
    })
}
