//! The console's memory across restarts: cached agent cards, tasks, every stream event as it arrived, compose
//! drafts and the audit log, in one SQLite file in the data dir.
//!
//! Durability is the point, so: WAL journal (readers never block the writer, a crash never leaves a torn
//! page), `synchronous=NORMAL` (a committed write is in the OS's hands, so a killed process loses nothing;
//! only a power cut can lose the last few commits, which costs far less than an fsync per stream event),
//! and what the console records is committed in batches by the writer thread (`writer`, `batch`), before the
//! frame that shows it. The schema is versioned with `PRAGMA user_version` (`schema`); migrations run in one
//! immediate transaction so two consoles starting together cannot both migrate. A file we cannot read is
//! reported, never deleted or rewritten: it is the user's history.

mod audit;
mod batch;
mod cards;
mod checks;
pub use checks::KeptCheck;
mod runs;
pub use runs::KeptRun;
mod codes;
mod events;
mod export;
mod pack;
mod packing;
pub mod record;
mod schema;
mod tabs;
mod tasks;
pub mod writer;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension, Row, Transaction, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::trust::redact::redact_json;

pub use audit::{AuditEntry, Direction};
pub use batch::WriterCache;
pub use cards::CachedCard;
pub use events::TabEvent;
#[cfg(test)]
pub use export::export_task_markdown;
pub use export::{TabExport, export_conversation_markdown, export_task_json, tab_export, tasks_in};
pub use schema::SCHEMA_VERSION;
pub use tabs::{Pruned, Retention, StoredTab};
pub use tasks::{StoredEvent, TaskRecord, stream_response};

/// How long a write waits for another connection's lock before giving up with [`StoreError::Locked`]. Short,
/// because callers sit on the console's event loop: a second console holding the file must produce a message,
/// not a frozen screen.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_millis(1500);

/// The file name inside the data dir.
pub const DB_FILE: &str = "console.db";

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
    /// A run of events stored as one row (schema 8, `pack`); readers give back its events, never this kind.
    pub const PACK: &str = "pack";
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

    // ---- cached cards ----

    // ---- tasks ----

    // ---- events ----

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
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_pack;
