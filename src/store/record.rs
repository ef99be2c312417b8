//! What `update` asks the store to keep (`Effect::Record`): plain data, no I/O. The app decides what is worth
//! recording at the moment it accepts something; the store writer (its own thread) only writes it down.

use chrono::{DateTime, Utc};

use super::AuditEntry;

/// A tab's header row: who it talks to, which task, where the task stands. Upserted whenever one of these
/// changes; the writer keeps only the last one per tab in a batch.
#[derive(Debug, Clone, PartialEq)]
pub struct TabRow {
    /// Minted when the tab is created (a UUID); stable across restarts.
    pub tab: String,
    /// The configured agent's stable key (see `app::ids::AgentId`).
    pub agent_key: String,
    pub agent_url: String,
    pub agent_name: String,
    pub task_id: Option<String>,
    pub context_id: Option<String>,
    /// The wire name (`working`, …), or `new` before any task.
    pub state: String,
    /// The last thing the agent said, for the board before the transcript is loaded (raw: sanitised on load).
    pub last_text: Option<String>,
    pub created_at: DateTime<Utc>,
    pub state_since: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    /// The user closed the tab: it is not restored at start (it can be reopened from history).
    pub closed: bool,
    /// The agent said it does not know the task (it restarted, or forgot): never re-attached.
    pub gone: bool,
    /// How many entries were flagged (the board's ⚠ column, before the transcript is loaded).
    pub flags: u32,
}

/// One thing to write.
#[derive(Debug, Clone)]
pub enum Record {
    Tab(Box<TabRow>),
    /// Something that arrived for a tab's task, as received, with where it came from and what the task log
    /// made of it (`applied`, `duplicate`, `stale`, `illegal`). One row per received event.
    Event {
        /// Shared with the tab (one allocation per tab, not per event: a flood makes 100 000 of these).
        tab: std::sync::Arc<str>,
        task_id: Option<std::sync::Arc<str>>,
        source: std::sync::Arc<str>,
        verdict: &'static str,
        event: Box<a2a::StreamResponse>,
        at: DateTime<Utc>,
    },
    /// A message the user sent (before the agent named the task, `task_id` is `None`).
    User {
        tab: String,
        task_id: Option<String>,
        message: Box<a2a::Message>,
        at: DateTime<Utc>,
    },
    /// The console's own note in a tab (a disconnect, an error, a cancel).
    Note {
        tab: String,
        task_id: Option<String>,
        text: String,
        error: bool,
        at: DateTime<Utc>,
    },
    /// The agent named the task: the tab's earlier rows without a task id get it.
    TaskAdopted {
        tab: String,
        task_id: String,
    },
    /// What is in a tab's compose box (empty: forget it).
    Draft {
        tab: String,
        text: String,
    },
    /// An agent's card as fetched (raw JSON and ETag), to show at once and revalidate next start.
    Card {
        agent_url: String,
        card_url: String,
        raw: String,
        etag: Option<String>,
    },
    /// A `check` report (its `--json` object) and its verdict, for the agent at `agent_url`.
    Check {
        agent_url: String,
        kept: Box<super::KeptCheck>,
    },
    /// A request, a response or a decision (events are not copied here: the audit log reads them from the
    /// events table).
    Audit(Box<AuditEntry>),
    /// Forget a tab: its row and all its events.
    DeleteTab {
        tab: String,
    },
    /// An agent was renamed: its tabs (open or closed) are filed under its new key, with its new name.
    AgentKey {
        from: String,
        to: String,
        name: String,
    },
}

impl Record {
    /// The tab a record belongs to, if any (to tell the user which tabs lost what when the store fails).
    pub fn tab(&self) -> Option<&str> {
        match self {
            Record::Tab(r) => Some(&r.tab),
            Record::Event { tab, .. } => Some(tab),
            Record::User { tab, .. }
            | Record::Note { tab, .. }
            | Record::TaskAdopted { tab, .. }
            | Record::Draft { tab, .. }
            | Record::DeleteTab { tab } => Some(tab),
            Record::Card { .. }
            | Record::Check { .. }
            | Record::Audit(_)
            | Record::AgentKey { .. } => None,
        }
    }
}
