//! Keeps the console's work in the SQLite store as it happens — every stream event, every message the user
//! sent, each task's latest state, the compose drafts and the audit trail of decisions — and restores the tabs
//! at start. Each event is committed before the app even looks at it (WAL, `synchronous=NORMAL`: a commit is a
//! write to the OS, no fsync), so a `kill -9` of the console loses nothing it had received; a flood of 100 000
//! events costs a few seconds of commits, measured with `cargo bench --bench frames`. A store that cannot be opened (locked, full,
//! corrupt) is reported once and the console keeps working in memory.

use std::collections::HashMap;

use chrono::Utc;

use crate::app::state::App;
use crate::app::task::TabId;
use crate::remote::tracker::state_name;
use crate::store::{AuditEntry, Direction, Store, TaskRecord, kind};

/// One write to the store.
enum Write {
    Event {
        agent_url: String,
        task_id: String,
        event: Box<a2a::StreamResponse>,
    },
    User {
        agent_url: String,
        task_id: String,
        text: String,
    },
    Note {
        agent_url: String,
        task_id: String,
        text: String,
        error: bool,
    },
    Task(TaskRecord),
    Draft {
        key: String,
        text: String,
    },
    Card {
        agent_url: String,
        card_url: String,
        raw: String,
        etag: Option<String>,
    },
    Audit(AuditEntry),
}

/// The store's front: writes what happens and remembers what it already saved.
pub struct Persister {
    store: Option<Store>,
    /// Whether a write error was already reported (once is enough; the console carries on in memory).
    warned: bool,
    /// Per tab: the (task, state, context) last saved, so a record is written only when it changes.
    saved: HashMap<TabId, (String, String, Option<String>)>,
    /// User messages sent before the agent gave the task an id.
    pending_user: HashMap<TabId, Vec<String>>,
    /// How many transcript entries of each tab were already looked at for user messages.
    seen_entries: HashMap<TabId, usize>,
}

/// Where the database lives: `$A2A_CONSOLE_DB`, else the data dir.
pub fn db_path() -> Option<std::path::PathBuf> {
    std::env::var_os("A2A_CONSOLE_DB")
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
        .or_else(Store::default_path)
}

impl Persister {
    /// A persister that writes nothing (no database, or it failed to open).
    pub fn disabled() -> Self {
        Self {
            store: None,
            warned: false,
            saved: HashMap::new(),
            pending_user: HashMap::new(),
            seen_entries: HashMap::new(),
        }
    }

    /// Write to an open store from now on.
    pub fn start(store: Store) -> Self {
        let mut p = Self::disabled();
        p.store = Some(store);
        p
    }

    /// Take the tabs that are already there (restored from the store) as saved, so they are not written again.
    pub fn adopt(&mut self, app: &App) {
        for t in &app.tabs {
            self.seen_entries.insert(t.id, t.transcript.len());
            if let Some(task_id) = t.tracker.task_id.clone() {
                self.saved.insert(
                    t.id,
                    (
                        task_id,
                        state_name(&t.tracker.state).to_string(),
                        t.tracker.context_id.clone(),
                    ),
                );
            }
        }
    }

    pub fn enabled(&self) -> bool {
        self.store.is_some()
    }

    fn send(&mut self, w: Write) {
        let Some(store) = &self.store else {
            return;
        };
        if let Err(e) = write(store, w)
            && !self.warned
        {
            tracing::warn!("the store failed ({e}); the console keeps working in memory");
            self.warned = true;
        }
    }

    fn agent_url(app: &App, tab: TabId) -> Option<String> {
        let t = app.tab(tab)?;
        app.agents.get(t.agent).map(|a| a.target.url.clone())
    }

    /// Record a stream event (or a task snapshot) that arrived for a tab.
    pub fn event(&mut self, app: &App, tab: TabId, event: &a2a::StreamResponse) {
        let Some(agent_url) = Self::agent_url(app, tab) else {
            return;
        };
        let task_id = match event {
            a2a::StreamResponse::Task(t) => t.id.clone(),
            a2a::StreamResponse::StatusUpdate(u) => u.task_id.clone(),
            a2a::StreamResponse::ArtifactUpdate(u) => u.task_id.clone(),
            a2a::StreamResponse::Message(m) => m
                .task_id
                .clone()
                .or_else(|| app.tab(tab).and_then(|t| t.tracker.task_id.clone()))
                .unwrap_or_default(),
        };
        if task_id.is_empty() {
            return;
        }
        self.send(Write::Event {
            agent_url: agent_url.clone(),
            task_id: task_id.clone(),
            event: Box::new(event.clone()),
        });
        // The audit trail names every event too (the full event is in the events table).
        let (method, context_id, message_id) = match event {
            a2a::StreamResponse::Task(t) => (
                "task",
                Some(t.context_id.clone()),
                t.status.message.as_ref().map(|m| m.message_id.clone()),
            ),
            a2a::StreamResponse::Message(m) => {
                ("message", m.context_id.clone(), Some(m.message_id.clone()))
            }
            a2a::StreamResponse::StatusUpdate(u) => (
                "statusUpdate",
                Some(u.context_id.clone()),
                u.status.message.as_ref().map(|m| m.message_id.clone()),
            ),
            a2a::StreamResponse::ArtifactUpdate(u) => {
                ("artifactUpdate", Some(u.context_id.clone()), None)
            }
        };
        let state = match event {
            a2a::StreamResponse::Task(t) => Some(state_name(&t.status.state)),
            a2a::StreamResponse::StatusUpdate(u) => Some(state_name(&u.status.state)),
            _ => None,
        };
        self.send(Write::Audit(AuditEntry {
            at: Utc::now(),
            agent: agent_url,
            direction: Direction::Event,
            method: method.to_string(),
            task_id: Some(task_id),
            context_id,
            message_id,
            detail_json: state
                .map(|s| serde_json::json!({ "state": s }))
                .unwrap_or(serde_json::Value::Null),
        }));
    }

    /// A response to a request (its outcome), for the audit log.
    pub fn response(&mut self, app: &App, tab: TabId, method: &str, outcome: Result<&str, &str>) {
        let t = app.tab(tab);
        let agent = Self::agent_url(app, tab).unwrap_or_default();
        let detail = match outcome {
            Ok(state) => serde_json::json!({ "ok": true, "state": state }),
            Err(e) => {
                serde_json::json!({ "ok": false, "error": crate::remote::error::one_line(e) })
            }
        };
        self.send(Write::Audit(AuditEntry {
            at: Utc::now(),
            agent,
            direction: Direction::Response,
            method: method.to_string(),
            task_id: t.and_then(|t| t.tracker.task_id.clone()),
            context_id: t.and_then(|t| t.tracker.context_id.clone()),
            message_id: None,
            detail_json: detail,
        }));
    }

    /// After `update`: save what changed — new user messages, notes, and each task's record.
    pub fn after_update(&mut self, app: &App) {
        if !self.enabled() {
            return;
        }
        for t in &app.tabs {
            let Some(agent_url) = app.agents.get(t.agent).map(|a| a.target.url.clone()) else {
                continue;
            };
            let mut notes = Vec::new();
            let seen = self.seen_entries.entry(t.id).or_insert(0);
            let new: Vec<&crate::app::task::Entry> = t.transcript.iter().skip(*seen).collect();
            *seen = t.transcript.len();
            for e in new {
                match e {
                    crate::app::task::Entry::User { text, .. } => self
                        .pending_user
                        .entry(t.id)
                        .or_default()
                        .push(text.clone()),
                    crate::app::task::Entry::Console { text, error, .. } => {
                        if let Some(task_id) = &t.tracker.task_id {
                            notes.push(Write::Note {
                                agent_url: agent_url.clone(),
                                task_id: task_id.clone(),
                                text: text.clone(),
                                error: *error,
                            });
                        }
                    }
                    _ => {}
                }
            }
            for n in notes {
                self.send(n);
            }
            let Some(task_id) = t.tracker.task_id.clone() else {
                continue;
            };
            if let Some(texts) = self.pending_user.remove(&t.id) {
                for text in texts {
                    self.send(Write::User {
                        agent_url: agent_url.clone(),
                        task_id: task_id.clone(),
                        text,
                    });
                }
            }
            let key = (
                task_id.clone(),
                state_name(&t.tracker.state).to_string(),
                t.tracker.context_id.clone(),
            );
            if self.saved.get(&t.id) != Some(&key) {
                self.saved.insert(t.id, key.clone());
                self.send(Write::Task(TaskRecord {
                    agent_url,
                    agent_name: t.agent_name.clone(),
                    task_id,
                    context_id: key.2,
                    state: key.1,
                    tab_id: t.id,
                    snapshot_json: None,
                    updated_at: Utc::now(),
                }));
            }
        }
    }

    /// A human decision (approve / deny / later), with the tab's task and context ids.
    pub fn audit(&mut self, app: &App, tab: TabId, line: &str) {
        tracing::info!(target: "a2a_console::audit", "{line}");
        let t = app.tab(tab);
        let agent = Self::agent_url(app, tab).unwrap_or_default();
        self.send(Write::Audit(AuditEntry {
            at: Utc::now(),
            agent,
            direction: Direction::Decision,
            method: "auth-required approval".into(),
            task_id: t.and_then(|t| t.tracker.task_id.clone()),
            context_id: t.and_then(|t| t.tracker.context_id.clone()),
            message_id: None,
            detail_json: serde_json::json!({ "decision": line }),
        }));
    }

    /// A request the console sent, for the audit log (method, task, context; never credentials).
    pub fn request(&mut self, app: &App, tab: TabId, method: &str, message_id: Option<&str>) {
        let t = app.tab(tab);
        let agent = Self::agent_url(app, tab).unwrap_or_default();
        self.send(Write::Audit(AuditEntry {
            at: Utc::now(),
            agent,
            direction: Direction::Request,
            method: method.to_string(),
            task_id: t.and_then(|t| t.tracker.task_id.clone()),
            context_id: t.and_then(|t| t.tracker.context_id.clone()),
            message_id: message_id.map(str::to_string),
            detail_json: serde_json::Value::Null,
        }));
    }

    /// Keep an agent's card (raw JSON and ETag) so the next start can show it and revalidate it.
    pub fn card(&mut self, agent_url: &str, card: &crate::remote::card::FetchedCard) {
        if card.revalidated {
            return;
        }
        self.send(Write::Card {
            agent_url: agent_url.to_string(),
            card_url: card.url.to_string(),
            raw: card.raw.clone(),
            etag: card.etag.clone(),
        });
    }

    /// Save every tab's unsent compose text (on quit).
    pub fn drafts(&mut self, app: &App) {
        for t in &app.tabs {
            let (Some(agent_url), Some(task_id)) =
                (Self::agent_url(app, t.id), t.tracker.task_id.clone())
            else {
                continue;
            };
            self.send(Write::Draft {
                key: format!("{agent_url} {task_id}"),
                text: t.compose.lines().join("\n"),
            });
        }
    }

    /// The audit log's last `n` entries as lines for the viewer (remote strings sanitised).
    pub fn audit_lines(&self, n: usize) -> Result<Vec<String>, String> {
        let store = self
            .store
            .as_ref()
            .ok_or("no local store: the audit log is kept only with one")?;
        let entries = store.audit_entries(n).map_err(|e| e.to_string())?;
        Ok(entries
            .iter()
            .map(|e| {
                let line = format!(
                    "{} {:<8} {:<28} task {} · context {} · message {} · {} {}",
                    e.at.format("%Y-%m-%d %H:%M:%S"),
                    e.direction.as_str(),
                    e.method,
                    e.task_id.as_deref().unwrap_or("—"),
                    e.context_id.as_deref().unwrap_or("—"),
                    e.message_id.as_deref().unwrap_or("—"),
                    e.agent,
                    if e.detail_json.is_null() {
                        String::new()
                    } else {
                        e.detail_json.to_string()
                    }
                );
                crate::trust::sanitize::sanitize_line(&line).0
            })
            .collect())
    }

    /// Write a tab's stored transcript to `path`: JSON for a `.json` path, Markdown otherwise.
    pub fn export(&self, app: &App, tab: TabId, path: &std::path::Path) -> Result<String, String> {
        let store = self
            .store
            .as_ref()
            .ok_or("no local store: nothing to export from")?;
        let agent_url = Self::agent_url(app, tab).ok_or("the tab's agent is gone")?;
        let task_id = app
            .tab(tab)
            .and_then(|t| t.tracker.task_id.clone())
            .ok_or("no task in this tab")?;
        let rec = store
            .task(&agent_url, &task_id)
            .map_err(|e| e.to_string())?
            .ok_or("the task is not in the local store yet")?;
        let events = store
            .events(&agent_url, &task_id)
            .map_err(|e| e.to_string())?;
        let text = if path.extension().is_some_and(|e| e == "json") {
            serde_json::to_string_pretty(&crate::store::export_task_json(&rec, &events))
                .map_err(|e| e.to_string())?
        } else {
            crate::store::export_task_markdown(&rec, &events)
        };
        std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        Ok(format!("exported to {}", path.display()))
    }

    /// Close the store (everything is already committed).
    pub fn flush_and_stop(&mut self) {
        self.store = None;
    }
}

fn write(store: &Store, w: Write) -> Result<(), crate::store::StoreError> {
    match w {
        Write::Event {
            agent_url,
            task_id,
            event,
        } => store
            .append_stream_event(&agent_url, &task_id, &event)
            .map(|_| ()),
        Write::User {
            agent_url,
            task_id,
            text,
        } => {
            let m = a2a::Message::new(a2a::Role::User, vec![a2a::Part::text(text)]);
            store
                .append_user_message(&agent_url, &task_id, &m)
                .map(|_| ())
        }
        Write::Note {
            agent_url,
            task_id,
            text,
            error,
        } => store
            .append_event(
                &agent_url,
                &task_id,
                kind::NOTE,
                &serde_json::json!({"text": text, "error": error}).to_string(),
            )
            .map(|_| ()),
        Write::Task(rec) => store.upsert_task(&rec),
        Write::Draft { key, text } => store.save_draft(&key, &text),
        Write::Card {
            agent_url,
            card_url,
            raw,
            etag,
        } => store.save_card(&agent_url, &card_url, &raw, etag.as_deref()),
        Write::Audit(e) => store.audit(&e),
    }
}

/// Rebuild tabs from the store for the configured agents; returns how many were restored.
pub fn restore(store: &Store, app: &mut App) -> Result<usize, String> {
    let records = store.tasks().map_err(|e| e.to_string())?;
    let mut restored = 0;
    // Oldest first, so tab order follows creation.
    for rec in records.into_iter().rev() {
        let Some(agent) = app
            .agents
            .iter()
            .position(|a| a.target.url == rec.agent_url)
        else {
            continue;
        };
        let events = store
            .events(&rec.agent_url, &rec.task_id)
            .map_err(|e| e.to_string())?;
        let id = app.new_tab(agent);
        let Some(t) = app.tab_mut(id) else {
            continue;
        };
        t.tracker.task_id = Some(rec.task_id.clone());
        t.tracker.context_id = rec.context_id.clone();
        for e in &events {
            let ev: Option<a2a::StreamResponse> = match e.kind.as_str() {
                kind::TASK => serde_json::from_str(&e.json)
                    .ok()
                    .map(a2a::StreamResponse::Task),
                kind::MESSAGE => serde_json::from_str(&e.json)
                    .ok()
                    .map(a2a::StreamResponse::Message),
                kind::STATUS => serde_json::from_str(&e.json)
                    .ok()
                    .map(a2a::StreamResponse::StatusUpdate),
                kind::ARTIFACT => serde_json::from_str(&e.json)
                    .ok()
                    .map(a2a::StreamResponse::ArtifactUpdate),
                kind::USER => {
                    if let Ok(m) = serde_json::from_str::<a2a::Message>(&e.json) {
                        t.record_user(&crate::remote::message::parts_text(&m.parts), vec![]);
                    }
                    None
                }
                kind::NOTE => {
                    let v: serde_json::Value = serde_json::from_str(&e.json).unwrap_or_default();
                    let text = v
                        .get("text")
                        .and_then(|x| x.as_str())
                        .unwrap_or("")
                        .to_string();
                    let error = v.get("error").and_then(|x| x.as_bool()).unwrap_or(false);
                    t.note(text, error);
                    None
                }
                _ => None,
            };
            if let Some(ev) = ev {
                t.apply_event(&ev);
            }
        }
        if let Ok(Some(draft)) = store.draft(&format!("{} {}", rec.agent_url, rec.task_id)) {
            t.compose.insert_str(draft);
        }
        t.note(
            format!("restored from the local store ({} event(s))", events.len()),
            false,
        );
        // Still running (or waiting): follow it again once the agent's card has loaded.
        t.pending_reattach = !t.is_terminal();
        t.link = crate::app::task::Link::Idle;
        restored += 1;
    }
    Ok(restored)
}

/// Cards kept from earlier runs, ready to prime the fetcher's cache (so the first fetch is a conditional one).
pub fn cached_cards(store: &Store, app: &App) -> Vec<crate::remote::card::FetchedCard> {
    let mut out = Vec::new();
    for a in &app.agents {
        let Ok(Some(c)) = store.load_card(&a.target.url) else {
            continue;
        };
        let Ok(url) = url::Url::parse(&c.card_url) else {
            continue;
        };
        let mut headers = reqwest::header::HeaderMap::new();
        if let Some(etag) = c
            .etag
            .as_deref()
            .and_then(|e| reqwest::header::HeaderValue::from_str(e).ok())
        {
            headers.insert(reqwest::header::ETAG, etag);
        }
        if let Ok(card) = crate::remote::card::parse_card(
            &url,
            &url,
            "application/json",
            c.raw_json.into_bytes(),
            &headers,
        ) {
            out.push(card);
        }
    }
    out
}
