//! The store's schema and its connection settings: the numbered migrations (`PRAGMA user_version` counts
//! them; they run in one immediate transaction so two consoles starting together cannot both migrate), WAL
//! and checkpoints, and the checks a user or a test can run on a file.

use super::*;

/// One entry per schema version; `user_version` counts how many have been applied.
pub(super) const MIGRATIONS: &[&str] = &[
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
    MIGRATION_2,
    // 3: one index on events fewer (a task's events are found through its tab).
    MIGRATION_3,
    // 4: each tab's count of flagged entries.
    MIGRATION_4,
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

impl Store {
    pub(super) fn setup(&self, busy: Duration, wal: bool) -> Result<(), StoreError> {
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

    pub(super) fn migrate(&self) -> Result<(), StoreError> {
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
}

/// Schema 2: tabs, and the tab/source/verdict of every event. v1 tasks become tabs keyed by agent URL and task.
const MIGRATION_2: &str = "
    CREATE TABLE tabs (
        tab_key     TEXT PRIMARY KEY,
        agent_key   TEXT NOT NULL,
        agent_url   TEXT NOT NULL,
        agent_name  TEXT NOT NULL,
        task_id     TEXT,
        context_id  TEXT,
        state       TEXT NOT NULL,
        last_text   TEXT,
        created_at  TEXT NOT NULL,
        state_since TEXT NOT NULL,
        updated_at  TEXT NOT NULL,
        closed_at   TEXT,
        gone        INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX tabs_by_time ON tabs (updated_at);
    ALTER TABLE events ADD COLUMN tab_key TEXT;
    ALTER TABLE events ADD COLUMN source TEXT;
    ALTER TABLE events ADD COLUMN verdict TEXT;
    CREATE INDEX events_by_tab ON events (tab_key, id);
    -- The v1 index led with the agent's URL, repeated in every entry; the task id alone finds a task's rows.
    DROP INDEX events_by_task;
    CREATE INDEX events_by_task ON events (task_id);
    INSERT INTO tabs (tab_key, agent_key, agent_url, agent_name, task_id, context_id, state, created_at,
                      state_since, updated_at)
        SELECT agent_url || ' ' || task_id, '|' || agent_url || '||', agent_url, agent_name, task_id, context_id,
               state,
               COALESCE((SELECT MIN(at) FROM events e WHERE e.agent_url = t.agent_url AND e.task_id = t.task_id),
                        updated_at),
               updated_at, updated_at
        FROM tasks t;
    UPDATE events SET tab_key = agent_url || ' ' || task_id;
";

/// Schema 3: events lose their task-id index. Every event row is written with its tab, so a task's events are
/// found through `tabs` (small) and `events_by_tab`; a second index on the busiest table cost the writer about a
/// fifth of its time in a flood.
const MIGRATION_3: &str = "
    DROP INDEX events_by_task;
    CREATE INDEX tabs_by_task ON tabs (task_id);
";

/// Schema 4: a tab's count of flagged entries, so the board shows it after a restart before the transcript is
/// loaded (it was 0 until the tab was opened).
const MIGRATION_4: &str = "ALTER TABLE tabs ADD COLUMN flags INTEGER NOT NULL DEFAULT 0;";
