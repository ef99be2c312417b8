//! The console's memory across restarts: cached agent cards, tasks, every stream event as it arrived, compose
//! drafts and the audit log, in one SQLite file in the data dir.
//!
//! Durability is the point, so: WAL journal (readers never block the writer, a crash never leaves a torn
//! page), `synchronous=NORMAL` (a committed write is in the OS's hands, so a killed process loses nothing;
//! only a power cut can lose the last few commits, which costs far less than an fsync per stream event),
//! and every write is its own statement committed at once. The schema is versioned with `PRAGMA
//! user_version`; migrations run in one immediate transaction so two consoles starting together cannot both
//! migrate. A file we cannot read is reported, never deleted or rewritten: it is the user's history.

mod export;
pub mod record;
mod tabs;
pub mod writer;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension, Row, Transaction, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::trust::redact::redact_json;

#[cfg(test)]
pub use export::export_task_markdown;
pub use export::{TabExport, export_conversation_markdown, export_task_json, tab_export, tasks_in};
pub use tabs::{Pruned, Retention, StoredTab, TabEvent};

/// How long a write waits for another connection's lock before giving up with [`StoreError::Locked`]. Short,
/// because callers sit on the console's event loop: a second console holding the file must produce a message,
/// not a frozen screen.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_millis(1500);

/// The file name inside the data dir.
pub const DB_FILE: &str = "console.db";

/// One entry per schema version; `user_version` counts how many have been applied.
const MIGRATIONS: &[&str] = &[
    // 1: the first schema.
    "CREATE TABLE cards (
        agent_url  TEXT PRIMARY KEY,
        card_url   TEXT NOT NULL,
        raw_json   TEXT NOT NULL,
        etag       TEXT,
        fetched_at TEXT NOT NULL
    );
    CREATE TABLE tasks (
        agent_url     TEXT NOT NULL,
        task_id       TEXT NOT NULL,
        agent_name    TEXT NOT NULL,
        context_id    TEXT,
        state         TEXT NOT NULL,
        tab_id        INTEGER NOT NULL,
        snapshot_json TEXT,
        updated_at    TEXT NOT NULL,
        PRIMARY KEY (agent_url, task_id)
    );
    CREATE INDEX tasks_by_time ON tasks (updated_at);
    CREATE TABLE events (
        id        INTEGER PRIMARY KEY AUTOINCREMENT,
        agent_url TEXT NOT NULL,
        task_id   TEXT NOT NULL,
        kind      TEXT NOT NULL,
        json      TEXT NOT NULL,
        at        TEXT NOT NULL
    );
    CREATE INDEX events_by_task ON events (agent_url, task_id, id);
    CREATE TABLE drafts (
        tab_key    TEXT PRIMARY KEY,
        text       TEXT NOT NULL,
        updated_at TEXT NOT NULL
    );
    CREATE TABLE audit (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        at          TEXT NOT NULL,
        agent       TEXT NOT NULL,
        direction   TEXT NOT NULL CHECK (direction IN ('request', 'response', 'event', 'decision')),
        method      TEXT NOT NULL,
        task_id     TEXT,
        context_id  TEXT,
        message_id  TEXT,
        detail_json TEXT NOT NULL
    );",
    // 2: tabs, and every event's tab, source and verdict.
    tabs::MIGRATION_2,
    // 3: one index on events fewer (a task's events are found through its tab).
    tabs::MIGRATION_3,
    // 4: each tab's count of flagged entries.
    tabs::MIGRATION_4,
];

/// The audit log as read: requests, responses and decisions from `audit`, and every received event from
/// `events` (referred to by its row, never copied: one row per received event).
const AUDIT_LOG: &str = "
    SELECT at, agent, direction, method, task_id, context_id, message_id, detail_json, 0 AS k, id FROM audit
    UNION ALL
    SELECT at, agent_url, 'event', kind, NULLIF(task_id, ''), NULL, NULL,
           json_object('event', id, 'source', source, 'verdict', verdict,
                       'state', json_extract(json, '$.status.state')),
           1, id
    FROM events WHERE kind IN ('task', 'message', 'statusUpdate', 'artifactUpdate')";

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Why the store could not do what was asked. Each variant carries the detail (which file, what SQLite said);
/// `Display` adds what the user can do about it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    #[error(
        "the console database is in use by another program ({0}); close the other a2a-console (or sqlite tool) and try again"
    )]
    Locked(String),
    #[error(
        "the disk is full, so the console could not save ({0}); free some space — what was saved before is intact"
    )]
    Full(String),
    #[error(
        "the console database is damaged or is not a database ({0}); it was left untouched — move it aside to start afresh, or restore it from a backup"
    )]
    Corrupt(String),
    #[error(
        "cannot read or write the console database ({0}); check that the path exists and is writable"
    )]
    Io(String),
    #[error("console database error: {0}")]
    Other(String),
}

/// A card as last fetched, so the console can show it at once and revalidate with `If-None-Match`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CachedCard {
    pub card_url: String,
    /// The body byte for byte (signature checks need it).
    pub raw_json: String,
    pub etag: Option<String>,
    pub fetched_at: DateTime<Utc>,
}

/// One task as last known. `state` is the wire name (`working`, `completed`, …, see
/// `remote::tracker::state_name`); `snapshot_json` is the `a2a::Task` JSON when we have one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskRecord {
    pub agent_url: String,
    pub agent_name: String,
    pub task_id: String,
    pub context_id: Option<String>,
    pub state: String,
    pub tab_id: u64,
    pub snapshot_json: Option<String>,
    pub updated_at: DateTime<Utc>,
}

/// One thing that arrived for a task (or that the user sent), in arrival order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    /// Increases with arrival; unique across the whole store.
    pub seq: i64,
    pub agent_url: String,
    pub task_id: String,
    /// One of [`kind`]'s constants (unknown kinds are kept and exported as raw JSON).
    pub kind: String,
    pub json: String,
    pub at: DateTime<Utc>,
}

/// The event kinds the console writes. Stream events use the `StreamResponse` member names, so the JSON is the
/// member's value and the pair round-trips to an `a2a::StreamResponse`.
pub mod kind {
    /// A message the user sent (`a2a::Message`).
    pub const USER: &str = "user";
    /// `StreamResponse::Message` (`a2a::Message`).
    pub const MESSAGE: &str = "message";
    /// `StreamResponse::Task`, or a task from a blocking reply or `GetTask` (`a2a::Task`).
    pub const TASK: &str = "task";
    /// `StreamResponse::StatusUpdate` (`a2a::TaskStatusUpdateEvent`).
    pub const STATUS: &str = "statusUpdate";
    /// `StreamResponse::ArtifactUpdate` (`a2a::TaskArtifactUpdateEvent`).
    pub const ARTIFACT: &str = "artifactUpdate";
    /// The console's own note (`{"text": …, "error": bool}`): a disconnect, an error, a cancel.
    pub const NOTE: &str = "note";
}

/// Which way an audit entry went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Request,
    Response,
    Event,
    /// A choice the user made (approved a tool call, cancelled a task, trusted a card).
    Decision,
}

impl Direction {
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Request => "request",
            Direction::Response => "response",
            Direction::Event => "event",
            Direction::Decision => "decision",
        }
    }

    pub fn parse(s: &str) -> Option<Direction> {
        match s {
            "request" => Some(Direction::Request),
            "response" => Some(Direction::Response),
            "event" => Some(Direction::Event),
            "decision" => Some(Direction::Decision),
            _ => None,
        }
    }
}

/// One line of the audit log. `detail_json` is redacted (`remote::audit::redact_json`) before it is written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    pub at: DateTime<Utc>,
    /// The agent's URL (or name, for decisions not tied to a URL).
    pub agent: String,
    pub direction: Direction,
    /// The A2A method (`SendStreamingMessage`, `GetTask`, …), or what was decided.
    pub method: String,
    pub task_id: Option<String>,
    pub context_id: Option<String>,
    pub message_id: Option<String>,
    #[serde(rename = "detail")]
    pub detail_json: Value,
}

/// The console's SQLite store. One connection; not `Sync`, so it lives with whoever owns it (the runtime).
pub struct Store {
    conn: Connection,
    /// Where the file is, for error messages.
    label: String,
}

fn ts(t: &DateTime<Utc>) -> String {
    // Fixed width with `Z`, so text order is time order and `ORDER BY` on the column is correct.
    t.to_rfc3339_opts(SecondsFormat::Micros, true)
}

fn parse_ts(idx: usize, s: String) -> rusqlite::Result<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(&s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(idx, rusqlite::types::Type::Text, Box::new(e))
        })
}

/// Sort a SQLite failure into what the user can do about it.
fn classify(label: &str, e: rusqlite::Error) -> StoreError {
    let detail = format!("{label}: {e}");
    match &e {
        rusqlite::Error::SqliteFailure(f, _) => match f.code {
            ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => StoreError::Locked(detail),
            ErrorCode::DiskFull => StoreError::Full(detail),
            ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase => StoreError::Corrupt(detail),
            ErrorCode::CannotOpen
            | ErrorCode::SystemIoFailure
            | ErrorCode::ReadOnly
            | ErrorCode::PermissionDenied
            | ErrorCode::NoLargeFileSupport => StoreError::Io(detail),
            _ => StoreError::Other(detail),
        },
        rusqlite::Error::InvalidPath(_) => StoreError::Io(detail),
        // A row we wrote but cannot read back means the file was changed under us.
        rusqlite::Error::FromSqlConversionFailure(..)
        | rusqlite::Error::IntegralValueOutOfRange(..)
        | rusqlite::Error::Utf8Error(..) => StoreError::Corrupt(detail),
        _ => StoreError::Other(detail),
    }
}

/// Where the store is: `$A2A_CONSOLE_DB`, else [`Store::default_path`].
pub fn db_path() -> Option<PathBuf> {
    std::env::var_os("A2A_CONSOLE_DB")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(Store::default_path)
}

impl Store {
    /// `~/.local/share/a2a-console/console.db` on Linux (the platform's data dir elsewhere); `None` when the
    /// platform has no home directory.
    pub fn default_path() -> Option<PathBuf> {
        directories::ProjectDirs::from("", "", "a2a-console").map(|d| d.data_dir().join(DB_FILE))
    }

    /// Open (creating the directory, file and schema when missing) with the default busy timeout.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        Self::open_with_timeout(path, DEFAULT_BUSY_TIMEOUT)
    }

    /// Open with a chosen busy timeout (tests use a short one; a CLI run could afford a longer one).
    pub fn open_with_timeout(path: &Path, busy: Duration) -> Result<Store, StoreError> {
        let label = path.display().to_string();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            crate::files::create_private_dir(dir).map_err(|e| {
                StoreError::Io(format!("{label}: cannot create {}: {e}", dir.display()))
            })?;
        }
        // Readable by the user alone: conversations and the audit log are nobody else's business, and SQLite
        // gives its `-wal` and `-shm` files the mode of the database file. An empty file is a valid empty
        // database.
        crate::files::create_private_file(path)
            .map_err(|e| StoreError::Io(format!("{label}: cannot create the file: {e}")))?;
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| classify(&label, e))?;
        let store = Store { conn, label };
        store.setup(busy, true)?;
        Ok(store)
    }

    /// A store that lives as long as the value (tests, `--no-store` runs).
    pub fn open_in_memory() -> Result<Store, StoreError> {
        let label = ":memory:".to_string();
        let conn = Connection::open_in_memory().map_err(|e| classify(&label, e))?;
        let store = Store { conn, label };
        store.setup(DEFAULT_BUSY_TIMEOUT, false)?;
        Ok(store)
    }

    fn err(&self, e: rusqlite::Error) -> StoreError {
        classify(&self.label, e)
    }

    fn setup(&self, busy: Duration, wal: bool) -> Result<(), StoreError> {
        self.conn.busy_timeout(busy).map_err(|e| self.err(e))?;
        // Reading the header first: a file that is not a database fails here, before anything is written.
        let version: i64 = self
            .conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(|e| self.err(e))?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::Other(format!(
                "{}: written by a newer a2a-console (schema {version}, this one knows {SCHEMA_VERSION}); \
                 upgrade, or point this one at another file",
                self.label
            )));
        }
        if wal {
            let mode: String = self
                .conn
                .pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))
                .map_err(|e| self.err(e))?;
            if !mode.eq_ignore_ascii_case("wal") {
                // Some file systems (network mounts) cannot do WAL; the store still works, just with more
                // blocking between readers and the writer.
                tracing::warn!(
                    "{}: journal_mode is {mode}, not WAL; the file system may not support it",
                    self.label
                );
            }
        }
        self.conn
            .pragma_update(None, "synchronous", "NORMAL")
            .map_err(|e| self.err(e))?;
        self.migrate()
    }

    /// A second connection to the same file, for checkpoints that must not hold up the writer's commits
    /// (`None` for an in-memory store, which has no WAL). The schema is the first connection's business.
    pub(super) fn side_connection(&self) -> Option<Store> {
        let path = self.conn.path().filter(|p| !p.is_empty())?;
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .ok()?;
        conn.busy_timeout(DEFAULT_BUSY_TIMEOUT).ok()?;
        Some(Store {
            conn,
            label: self.label.clone(),
        })
    }

    /// Let the WAL grow to `pages` before a commit checkpoints it (SQLite's default is 1000 pages, ~4 MB; 0:
    /// never, someone else checkpoints).
    pub(super) fn set_autocheckpoint(&self, pages: u32) -> Result<(), StoreError> {
        self.conn
            .pragma_update(None, "wal_autocheckpoint", pages)
            .map_err(|e| self.err(e))
    }

    /// Copy what the WAL holds into the database file, without waiting for readers (the writer does this when it
    /// has nothing else to do), and keep the WAL file from staying large.
    pub fn checkpoint(&self) -> Result<(), StoreError> {
        self.conn
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
            .map_err(|e| self.err(e))
    }

    fn migrate(&self) -> Result<(), StoreError> {
        let tx = Transaction::new_unchecked(&self.conn, rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        // Read again inside the lock: another console may have migrated while we waited.
        let mut version: i64 = tx
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(|e| self.err(e))?;
        for (i, sql) in MIGRATIONS.iter().enumerate() {
            let target = i as i64 + 1;
            if version >= target {
                continue;
            }
            tx.execute_batch(sql).map_err(|e| self.err(e))?;
            tx.pragma_update(None, "user_version", target)
                .map_err(|e| self.err(e))?;
            version = target;
        }
        tx.commit().map_err(|e| self.err(e))
    }

    /// The schema version of the open file.
    pub fn schema_version(&self) -> Result<i64, StoreError> {
        self.conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// The journal mode in force (`wal` for a file store).
    pub fn journal_mode(&self) -> Result<String, StoreError> {
        self.conn
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .map_err(|e| self.err(e))
    }

    /// A full consistency check (reads the whole file: for a `doctor` command, not for every start).
    pub fn integrity_check(&self) -> Result<(), StoreError> {
        let verdict: String = self
            .conn
            .query_row("PRAGMA quick_check", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        if verdict == "ok" {
            Ok(())
        } else {
            Err(StoreError::Corrupt(format!("{}: {verdict}", self.label)))
        }
    }

    // ---- cached cards ----

    pub fn save_card(
        &self,
        agent_url: &str,
        card_url: &str,
        raw_json: &str,
        etag: Option<&str>,
    ) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT INTO cards (agent_url, card_url, raw_json, etag, fetched_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT (agent_url) DO UPDATE SET
                   card_url = excluded.card_url, raw_json = excluded.raw_json,
                   etag = excluded.etag, fetched_at = excluded.fetched_at",
                params![agent_url, card_url, raw_json, etag, ts(&Utc::now())],
            )
            .map(drop)
            .map_err(|e| self.err(e))
    }

    pub fn load_card(&self, agent_url: &str) -> Result<Option<CachedCard>, StoreError> {
        self.conn
            .query_row(
                "SELECT card_url, raw_json, etag, fetched_at FROM cards WHERE agent_url = ?1",
                [agent_url],
                |r| {
                    Ok(CachedCard {
                        card_url: r.get(0)?,
                        raw_json: r.get(1)?,
                        etag: r.get(2)?,
                        fetched_at: parse_ts(3, r.get(3)?)?,
                    })
                },
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    // ---- tasks ----

    /// Insert or replace the task's row (one per `(agent_url, task_id)`).
    pub fn upsert_task(&self, rec: &TaskRecord) -> Result<(), StoreError> {
        let tab = i64::try_from(rec.tab_id).map_err(|_| {
            StoreError::Other(format!("tab id {} is too large to store", rec.tab_id))
        })?;
        self.conn
            .execute(
                "INSERT INTO tasks (agent_url, task_id, agent_name, context_id, state, tab_id, snapshot_json,
                                    updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT (agent_url, task_id) DO UPDATE SET
                   agent_name = excluded.agent_name, context_id = excluded.context_id,
                   state = excluded.state, tab_id = excluded.tab_id,
                   snapshot_json = excluded.snapshot_json, updated_at = excluded.updated_at",
                params![
                    rec.agent_url,
                    rec.task_id,
                    rec.agent_name,
                    rec.context_id,
                    rec.state,
                    tab,
                    rec.snapshot_json,
                    ts(&rec.updated_at)
                ],
            )
            .map(drop)
            .map_err(|e| self.err(e))
    }

    /// Every task, the most recently updated first.
    pub fn tasks(&self) -> Result<Vec<TaskRecord>, StoreError> {
        self.task_query(
            "SELECT agent_url, agent_name, task_id, context_id, state, tab_id, snapshot_json, updated_at
             FROM tasks ORDER BY updated_at DESC, rowid DESC",
            &[],
        )
    }

    /// One task, when known.
    pub fn task(&self, agent_url: &str, task_id: &str) -> Result<Option<TaskRecord>, StoreError> {
        Ok(self
            .task_query(
                "SELECT agent_url, agent_name, task_id, context_id, state, tab_id, snapshot_json, updated_at
                 FROM tasks WHERE agent_url = ?1 AND task_id = ?2",
                &[&agent_url, &task_id],
            )?
            .into_iter()
            .next())
    }

    /// The task with this id, whatever agent URL it was recorded under (the most recently updated, should
    /// two agents share an id): the demo agent and a moved agent change URLs, their tasks stay theirs.
    pub fn task_by_id(&self, task_id: &str) -> Result<Option<TaskRecord>, StoreError> {
        Ok(self
            .task_query(
                "SELECT agent_url, agent_name, task_id, context_id, state, tab_id, snapshot_json, updated_at
                 FROM tasks WHERE task_id = ?1 ORDER BY updated_at DESC, rowid DESC LIMIT 1",
                &[&task_id],
            )?
            .into_iter()
            .next())
    }

    /// Forget a task: its row and all its events, together (one transaction, so a crash cannot leave events
    /// without their task). Returns whether there was a row.
    pub fn delete_task(&self, agent_url: &str, task_id: &str) -> Result<bool, StoreError> {
        let tx = Transaction::new_unchecked(&self.conn, rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        tx.execute(
            "DELETE FROM events
             WHERE tab_key IN (SELECT tab_key FROM tabs WHERE task_id = ?2 UNION SELECT ?1 || ' ' || ?2)
               AND agent_url = ?1 AND task_id = ?2",
            [agent_url, task_id],
        )
        .map_err(|e| self.err(e))?;
        let n = tx
            .execute(
                "DELETE FROM tasks WHERE agent_url = ?1 AND task_id = ?2",
                [agent_url, task_id],
            )
            .map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))?;
        Ok(n > 0)
    }

    fn task_query(
        &self,
        sql: &str,
        args: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<TaskRecord>, StoreError> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(args, task_row)
            .map_err(|e| self.err(e))?
            .collect::<rusqlite::Result<Vec<_>>>();
        rows.map_err(|e| self.err(e))
    }

    // ---- events ----

    /// Record one thing that arrived (or was sent) for a task; returns its sequence number. Committed before
    /// this returns.
    pub fn append_event(
        &self,
        agent_url: &str,
        task_id: &str,
        kind: &str,
        json: &str,
    ) -> Result<i64, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                // Filed under the key migration 2 gave rows that had no tab (`url task`), so the task's
                // events are found the same way as everyone's: through their tab.
                "INSERT INTO events (agent_url, task_id, kind, json, at, tab_key)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?1 || ' ' || ?2)",
            )
            .map_err(|e| self.err(e))?;
        stmt.execute(params![agent_url, task_id, kind, json, ts(&Utc::now())])
            .map_err(|e| self.err(e))?;
        Ok(self.conn.last_insert_rowid())
    }

    /// Record a stream event under its `StreamResponse` member name.
    pub fn append_stream_event(
        &self,
        agent_url: &str,
        task_id: &str,
        event: &a2a::StreamResponse,
    ) -> Result<i64, StoreError> {
        let (k, json) = tabs::event_json(event)?;
        self.append_event(agent_url, task_id, k, &json)
    }

    /// Record a message the user sent.
    pub fn append_user_message(
        &self,
        agent_url: &str,
        task_id: &str,
        message: &a2a::Message,
    ) -> Result<i64, StoreError> {
        let json = crate::task::event_serde::to_json(message)
            .map_err(|e| StoreError::Other(format!("cannot encode the message: {e}")))?;
        self.append_event(agent_url, task_id, kind::USER, &json)
    }

    /// A task's events in arrival order (found through the tabs that hold the task: events have no index of
    /// their own on the task id).
    pub fn events(&self, agent_url: &str, task_id: &str) -> Result<Vec<StoredEvent>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT id, agent_url, task_id, kind, json, at FROM events
                 WHERE tab_key IN (SELECT tab_key FROM tabs WHERE task_id = ?2 UNION SELECT ?1 || ' ' || ?2)
                   AND agent_url = ?1 AND task_id = ?2 ORDER BY id",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([agent_url, task_id], |r| {
                Ok(StoredEvent {
                    seq: r.get(0)?,
                    agent_url: r.get(1)?,
                    task_id: r.get(2)?,
                    kind: r.get(3)?,
                    json: r.get(4)?,
                    at: parse_ts(5, r.get(5)?)?,
                })
            })
            .map_err(|e| self.err(e))?
            .collect::<rusqlite::Result<Vec<_>>>();
        rows.map_err(|e| self.err(e))
    }

    // ---- drafts ----

    /// Keep what is in a tab's compose box. Saving an empty draft forgets it.
    pub fn save_draft(&self, tab_key: &str, text: &str) -> Result<(), StoreError> {
        let result = if text.is_empty() {
            self.conn
                .execute("DELETE FROM drafts WHERE tab_key = ?1", [tab_key])
        } else {
            self.conn.execute(
                "INSERT INTO drafts (tab_key, text, updated_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT (tab_key) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at",
                params![tab_key, text, ts(&Utc::now())],
            )
        };
        result.map(drop).map_err(|e| self.err(e))
    }

    /// A tab's draft (the console reads it with the tab's row: `StoredTab.draft`).
    #[cfg(test)]
    pub fn draft(&self, tab_key: &str) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row(
                "SELECT text FROM drafts WHERE tab_key = ?1",
                [tab_key],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    // ---- audit log ----

    /// Append to the audit log. The detail is redacted here, so no caller can forget to.
    pub fn audit(&self, e: &AuditEntry) -> Result<(), StoreError> {
        let detail = crate::trust::redact::redact(&redact_json(e.detail_json.clone()).to_string())
            .into_owned();
        let mut stmt = self
            .conn
            .prepare_cached(
                "INSERT INTO audit (at, agent, direction, method, task_id, context_id, message_id, detail_json)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )
            .map_err(|e| self.err(e))?;
        stmt.execute(params![
            ts(&e.at),
            e.agent,
            e.direction.as_str(),
            e.method,
            e.task_id,
            e.context_id,
            e.message_id,
            detail
        ])
        .map(drop)
        .map_err(|e| self.err(e))
    }

    /// The last `limit` entries, oldest first (as a log reads).
    pub fn audit_entries(&self, limit: usize) -> Result<Vec<AuditEntry>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT at, agent, direction, method, task_id, context_id, message_id, detail_json
                     FROM (SELECT * FROM ({AUDIT_LOG}) ORDER BY at DESC, k DESC, id DESC LIMIT ?1)
                     ORDER BY at, k, id"
            ))
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([limit], audit_row)
            .map_err(|e| self.err(e))?
            .collect::<rusqlite::Result<Vec<_>>>();
        rows.map_err(|e| self.err(e))
    }

    /// Write the whole audit log as JSON Lines, oldest first, streaming row by row; returns the line count.
    pub fn export_audit_jsonl(&self, w: &mut impl Write) -> Result<usize, StoreError> {
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT at, agent, direction, method, task_id, context_id, message_id, detail_json
                 FROM ({AUDIT_LOG}) ORDER BY at, k, id"
            ))
            .map_err(|e| self.err(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.err(e))?;
        let mut n = 0;
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let entry = audit_row(row).map_err(|e| self.err(e))?;
            let line = serde_json::to_string(&entry)
                .map_err(|e| StoreError::Other(format!("cannot encode audit entry: {e}")))?;
            writeln!(w, "{line}")
                .map_err(|e| StoreError::Io(format!("writing the audit export: {e}")))?;
            n += 1;
        }
        w.flush()
            .map_err(|e| StoreError::Io(format!("writing the audit export: {e}")))?;
        Ok(n)
    }
}

fn task_row(r: &Row<'_>) -> rusqlite::Result<TaskRecord> {
    let tab: i64 = r.get(5)?;
    Ok(TaskRecord {
        agent_url: r.get(0)?,
        agent_name: r.get(1)?,
        task_id: r.get(2)?,
        context_id: r.get(3)?,
        state: r.get(4)?,
        tab_id: u64::try_from(tab).map_err(|_| rusqlite::Error::IntegralValueOutOfRange(5, tab))?,
        snapshot_json: r.get(6)?,
        updated_at: parse_ts(7, r.get(7)?)?,
    })
}

fn audit_row(r: &Row<'_>) -> rusqlite::Result<AuditEntry> {
    let direction: String = r.get(2)?;
    let detail: String = r.get(7)?;
    Ok(AuditEntry {
        at: parse_ts(0, r.get(0)?)?,
        agent: r.get(1)?,
        direction: Direction::parse(&direction).ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(
                2,
                rusqlite::types::Type::Text,
                format!("unknown direction {direction:?}").into(),
            )
        })?,
        method: r.get(3)?,
        task_id: r.get(4)?,
        context_id: r.get(5)?,
        message_id: r.get(6)?,
        detail_json: serde_json::from_str(&detail).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(7, rusqlite::types::Type::Text, Box::new(e))
        })?,
    })
}

#[cfg(test)]
mod tests;
