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
use crate::task::outgoing::parts_text;
use crate::task::phase::state_name;
use crate::trust::sanitize::{sanitize_line, sanitize_text};

/// A tab's whole conversation, rendered for export.
pub enum TabExport {
    Markdown(String),
    Json(Value),
}

/// A tab's whole conversation as the store holds it, rendered for export: Markdown, or JSON when `json`.
/// Every task of the conversation is in it, each marked; an empty tab is an error with its reason, never an
/// empty transcript.
pub fn tab_export(
    store: &super::Store,
    tab_key: &str,
    agent_url: &str,
    agent_name: &str,
    json: bool,
) -> Result<TabExport, String> {
    let events: Vec<StoredEvent> = store
        .tab_events(tab_key)
        .map_err(|e| e.to_string())?
        .into_iter()
        .map(|e| StoredEvent {
            seq: e.seq,
            agent_url: agent_url.to_string(),
            task_id: e.task_id,
            kind: e.kind,
            json: e.json,
            at: e.at,
        })
        .collect();
    let header = store.stored_tab(tab_key).map_err(|e| e.to_string())?;
    let mut tasks: Vec<String> = tasks_in(&events).into_iter().map(str::to_owned).collect();
    if let Some(t) = header.as_ref().and_then(|h| h.row.task_id.clone())
        && !tasks.contains(&t)
    {
        tasks.push(t);
    }
    // Each task's row holds the snapshot of a blocking reply: the agent's own first (two agents can share a task
    // id), else by id alone (a task recorded under the agent's earlier URL, as the demo's was before its port
    // was fixed).
    let mut records = Vec::new();
    for t in &tasks {
        let own = store.task(agent_url, t).map_err(|e| e.to_string())?;
        let found = match own {
            Some(r) => Some(r),
            None => store.task_by_id(t).map_err(|e| e.to_string())?,
        };
        records.extend(found);
    }
    if events.is_empty() && records.iter().all(|r| r.snapshot_json.is_none()) {
        return Err(
            "nothing of this conversation is in the local store yet (nothing was sent or received, \
             or it was pruned)"
                .into(),
        );
    }
    let latest = records.last();
    let row = header.as_ref().map(|h| &h.row);
    let rec = TaskRecord {
        agent_url: agent_url.to_string(),
        agent_name: agent_name.to_string(),
        task_id: tasks.last().cloned().unwrap_or_default(),
        context_id: row
            .and_then(|r| r.context_id.clone())
            .or_else(|| latest.and_then(|r| r.context_id.clone())),
        state: match (row, latest) {
            (Some(r), _) if r.task_id.is_some() => r.state.clone(),
            (_, Some(l)) => l.state.clone(),
            _ if tasks.is_empty() => "no task".into(),
            _ => "unknown".into(),
        },
        tab_id: 0,
        snapshot_json: latest.and_then(|r| r.snapshot_json.clone()),
        updated_at: events
            .last()
            .map(|e| e.at)
            .into_iter()
            .chain(latest.map(|r| r.updated_at))
            .max()
            .unwrap_or_else(Utc::now),
    };
    if json {
        return Ok(TabExport::Json(export_task_json(&rec, &events)));
    }
    let snapshots = records
        .iter()
        .filter_map(|r| {
            let t = serde_json::from_str::<a2a::Task>(r.snapshot_json.as_deref()?).ok()?;
            Some((r.task_id.clone(), t))
        })
        .collect();
    Ok(TabExport::Markdown(export_conversation_markdown(
        &rec, &events, snapshots,
    )))
}

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
    fn parse<T: crate::task::event_serde::Wired>(s: &str) -> Option<T> {
        crate::task::event_serde::from_json(s).ok()
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
fn final_artifacts<'a>(
    decoded: impl IntoIterator<Item = &'a Decoded>,
    snapshot: Option<&Task>,
) -> HashMap<String, Artifact> {
    let mut out: HashMap<String, Artifact> = HashMap::new();
    for d in decoded {
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
    // The task's stored snapshot last: it holds the artifacts as they ended.
    for a in snapshot
        .and_then(|t| t.artifacts.as_ref())
        .into_iter()
        .flatten()
    {
        out.insert(a.artifact_id.clone(), a.clone());
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
    /// Start a task's part of a conversation: its heading (when there are several), and its own artifacts
    /// (a copy: a task whose rows come again after another's, a late push, still finds them).
    fn begin_task(
        &mut self,
        task: &str,
        several: bool,
        by_task: &HashMap<String, HashMap<String, Artifact>>,
    ) {
        if several {
            let _ = writeln!(self.out, "### Task {}\n", line(task));
        }
        self.state = None;
        self.seen_artifacts.clear();
        self.artifacts = by_task.get(task).cloned().unwrap_or_default();
    }

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
#[cfg(test)]
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
    let mut unnamed: Vec<&String> = snapshots.keys().filter(|id| !tasks.contains(id)).collect();
    unnamed.sort();
    let unnamed: Vec<String> = unnamed.into_iter().cloned().collect();
    tasks.extend(unnamed);
    let mut snapshots = snapshots;
    // Each task's artifacts reassembled from its own rows (and its snapshot).
    fn rows_of<'a>(
        decoded: &'a [(Option<&StoredEvent>, Decoded)],
        task: &'a str,
    ) -> impl Iterator<Item = &'a Decoded> {
        decoded
            .iter()
            .filter(move |(e, _)| e.is_some_and(|e| e.task_id == task))
            .map(|(_, d)| d)
    }
    let by_task: HashMap<String, HashMap<String, Artifact>> = tasks
        .iter()
        .map(|task| {
            (
                task.clone(),
                final_artifacts(rows_of(&decoded, task), snapshots.get(task)),
            )
        })
        .collect();
    let mut tr = Transcript {
        out: String::new(),
        agent: &rec.agent_name,
        seen_messages: HashSet::new(),
        sent: HashMap::new(),
        seen_artifacts: HashSet::new(),
        state: None,
        artifacts: final_artifacts(rows_of(&decoded, ""), None),
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
            tr.begin_task(&e.task_id, several, &by_task);
        }
        tr.entry(*e, d, at);
    }
    snapshot_of(&mut tr, current.as_ref());
    // Tasks known only by their snapshot.
    for task in tasks {
        if let Some(t) = snapshots.remove(&task) {
            tr.begin_task(&task, several, &by_task);
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
