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
    // 5: lean event rows (the tab, the agent/task/source and the kind as small numbers, the time in µs),
    // read through the `events` view in the old columns.
    MIGRATION_5,
    // 6: the reports of `check`, one row per run, with the agent list's verdict beside each (the console shows
    // what changed since the last one, and the verdicts at start without reading reports).
    "CREATE TABLE checks (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        agent_url   TEXT NOT NULL,
        at          TEXT NOT NULL,
        badge       TEXT NOT NULL,
        must_failed INTEGER NOT NULL,
        report      TEXT NOT NULL
    );
    CREATE INDEX checks_by_agent ON checks (agent_url, id);",
    // 7: suite runs (`a2a-console test`, the console's suite page): each run's report as JSON (cases, checks,
    // what was seen: states, timings, events, artifacts), with its counts for `runs` to list without parsing.
    "CREATE TABLE runs (
        id       INTEGER PRIMARY KEY AUTOINCREMENT,
        at       TEXT NOT NULL,
        suites   TEXT NOT NULL,
        passed   INTEGER NOT NULL,
        failed   INTEGER NOT NULL,
        report   TEXT NOT NULL
    );",
    // 8: packed event rows (`store::pack`): a run of one tab's events in one row, LZ4-compressed, with the
    // latest event's time and the count beside the earliest's. The `events` view names such a row `pack`.
    MIGRATION_8,
];

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// Each connection's page cache, as `PRAGMA cache_size` takes it (negative: KiB).
const PAGE_CACHE_KIB: i64 = -512;

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
        // A page cache of 512 KiB instead of SQLite's 2 MB: the writer appends (a flood writes a pack row per 64
        // events) and reads each transcript once, front to back, so the pages it would keep are rarely read
        // again, and the kernel's file cache holds them anyway. In `cargo bench --bench flood` the default
        // cache was about 2 MB of the console's peak memory with the store on (31 against 33 MiB, median of 6).
        self.conn
            .pragma_update(None, "cache_size", PAGE_CACHE_KIB)
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
        conn.pragma_update(None, "cache_size", PAGE_CACHE_KIB)
            .ok()?;
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

/// Schema 5: an event row keeps its body and small numbers. A flood wrote the same 36-byte tab key, agent URL,
/// task id, source, kind, verdict and a 27-byte time text on each of 100 000 rows (and the tab key again in
/// the index): 150 bytes a row besides the event's own JSON, and the time to format and compare them. Now the
/// tab is a `tab_keys` row, the agent/task/source triple an `event_refs` row (neither is ever deleted, so a
/// number cached by the writer stays valid), kind and verdict are codes ([`super::codes`]; a kind we do not
/// know is kept as its text), and `at` is microseconds since the epoch. The `events` view shows the rows in the
/// old columns (`at` formatted exactly as [`super::ts`] writes it) for the readers that are not on the hot path.
const MIGRATION_5: &str = "
    CREATE TABLE tab_keys (id INTEGER PRIMARY KEY, tab_key TEXT NOT NULL UNIQUE);
    CREATE TABLE event_refs (
        id        INTEGER PRIMARY KEY,
        agent_url TEXT NOT NULL,
        task_id   TEXT NOT NULL,
        source    TEXT NOT NULL,
        UNIQUE (agent_url, task_id, source)
    );
    CREATE TABLE event_rows (
        id      INTEGER PRIMARY KEY AUTOINCREMENT,
        tab     INTEGER,
        ref     INTEGER NOT NULL,
        kind    NOT NULL,
        verdict,
        at      INTEGER NOT NULL,
        json    TEXT NOT NULL
    );
    INSERT INTO tab_keys (tab_key) SELECT DISTINCT tab_key FROM events WHERE tab_key IS NOT NULL;
    INSERT OR IGNORE INTO event_refs (agent_url, task_id, source)
        SELECT DISTINCT agent_url, task_id, COALESCE(source, '') FROM events;
    INSERT INTO event_rows (id, tab, ref, kind, verdict, at, json)
        SELECT e.id, k.id, r.id,
               CASE e.kind WHEN 'user' THEN 0 WHEN 'message' THEN 1 WHEN 'task' THEN 2 WHEN 'statusUpdate' THEN 3
                           WHEN 'artifactUpdate' THEN 4 WHEN 'note' THEN 5 ELSE e.kind END,
               CASE e.verdict WHEN 'applied' THEN 0 WHEN 'duplicate' THEN 1 WHEN 'stale' THEN 2
                              WHEN 'illegal' THEN 3 ELSE e.verdict END,
               COALESCE(unixepoch(e.at), 0) * 1000000 + COALESCE(CAST(substr(e.at, 21, 6) AS INTEGER), 0),
               e.json
        FROM events e
        LEFT JOIN tab_keys k ON k.tab_key = e.tab_key
        JOIN event_refs r ON r.agent_url = e.agent_url AND r.task_id = e.task_id
                         AND r.source = COALESCE(e.source, '')
        ORDER BY e.id;
    -- Row ids are never reused: the new table carries on the old one's sequence.
    DELETE FROM sqlite_sequence WHERE name = 'event_rows';
    UPDATE sqlite_sequence SET name = 'event_rows' WHERE name = 'events';
    DROP TABLE events;
    CREATE INDEX events_by_tab ON event_rows (tab, id);
    CREATE VIEW events AS
        SELECT e.id AS id, r.agent_url AS agent_url, r.task_id AS task_id,
               CASE e.kind WHEN 0 THEN 'user' WHEN 1 THEN 'message' WHEN 2 THEN 'task' WHEN 3 THEN 'statusUpdate'
                           WHEN 4 THEN 'artifactUpdate' WHEN 5 THEN 'note' ELSE e.kind END AS kind,
               e.json AS json,
               strftime('%Y-%m-%dT%H:%M:%S', e.at / 1000000, 'unixepoch') || printf('.%06dZ', e.at % 1000000)
                   AS at,
               k.tab_key AS tab_key, NULLIF(r.source, '') AS source,
               CASE e.verdict WHEN 0 THEN 'applied' WHEN 1 THEN 'duplicate' WHEN 2 THEN 'stale'
                              WHEN 3 THEN 'illegal' ELSE e.verdict END AS verdict
        FROM event_rows e
        JOIN event_refs r ON r.id = e.ref
        LEFT JOIN tab_keys k ON k.id = e.tab;
";

/// Schema 8: see [`super::pack`]. A plain row leaves both new columns NULL.
const MIGRATION_8: &str = "
    ALTER TABLE event_rows ADD COLUMN at_last INTEGER;
    ALTER TABLE event_rows ADD COLUMN n INTEGER;
    DROP VIEW events;
    CREATE VIEW events AS
        SELECT e.id AS id, r.agent_url AS agent_url, r.task_id AS task_id,
               CASE e.kind WHEN 0 THEN 'user' WHEN 1 THEN 'message' WHEN 2 THEN 'task' WHEN 3 THEN 'statusUpdate'
                           WHEN 4 THEN 'artifactUpdate' WHEN 5 THEN 'note' WHEN 6 THEN 'pack' ELSE e.kind END AS kind,
               e.json AS json,
               strftime('%Y-%m-%dT%H:%M:%S', e.at / 1000000, 'unixepoch') || printf('.%06dZ', e.at % 1000000)
                   AS at,
               k.tab_key AS tab_key, NULLIF(r.source, '') AS source,
               CASE e.verdict WHEN 0 THEN 'applied' WHEN 1 THEN 'duplicate' WHEN 2 THEN 'stale'
                              WHEN 3 THEN 'illegal' ELSE e.verdict END AS verdict
        FROM event_rows e
        JOIN event_refs r ON r.id = e.ref
        LEFT JOIN tab_keys k ON k.id = e.tab;
";

#[cfg(test)]
mod tests {
    use super::*;

    type Row = (
        i64,
        String,
        String,
        String,
        String,
        String,
        Option<String>,
        Option<String>,
        Option<String>,
    );

    fn rows(conn: &Connection) -> Vec<Row> {
        conn.prepare(
            "SELECT id, agent_url, task_id, kind, json, at, tab_key, source, verdict FROM events ORDER BY id",
        )
        .unwrap()
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
                r.get(7)?,
                r.get(8)?,
            ))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
    }

    #[test]
    fn schema_5_shows_every_v4_row_as_it_was_and_keeps_the_sequence() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v4.db");
        let before = {
            let conn = Connection::open(&path).unwrap();
            for m in &MIGRATIONS[..4] {
                conn.execute_batch(m).unwrap();
            }
            conn.execute_batch(
                "PRAGMA user_version = 4;
                 INSERT INTO tabs (tab_key, agent_key, agent_url, agent_name, task_id, context_id, state, last_text,
                                   created_at, state_since, updated_at)
                   VALUES ('tab-a', '|http://a||', 'http://a', 'A', 't1', 'c1', 'completed', 'done',
                           '2026-01-01T00:00:00.000000Z', '2026-01-01T00:00:00.000000Z',
                           '2026-01-01T00:00:09.000000Z');
                 INSERT INTO events (agent_url, task_id, kind, json, at, tab_key, source, verdict) VALUES
                   ('http://a', '', 'user', '{\"u\":1}', '2026-01-01T00:00:01.000001Z', 'tab-a', NULL, NULL),
                   ('http://a', 't1', 'task', '{\"t\":1}', '2026-01-01T00:00:02.123456Z', 'tab-a', 'stream#1',
                    'applied'),
                   ('http://a', 't1', 'statusUpdate', '{\"s\":1}', '2026-01-01T00:00:02.123456Z', 'tab-a',
                    'stream#1', 'duplicate'),
                   ('http://a', 't1', 'artifactUpdate', '{\"a\":1}', '2026-01-01T00:00:03.999999Z', 'tab-a',
                    'push', 'stale'),
                   ('http://a', 't1', 'message', '{\"m\":1}', '2026-01-01T00:00:04.000000Z', 'tab-a',
                    'stream#2', 'illegal'),
                   ('http://a', 't1', 'note', '{\"text\":\"x\",\"error\":true}', '2026-01-01T00:00:05.500000Z',
                    'tab-a', NULL, NULL),
                   ('http://b', 't9', 'fromTheFuture', '{}', '2026-01-01T00:00:06.000000Z', NULL, NULL,
                    'someVerdict');
                 INSERT INTO events (agent_url, task_id, kind, json, at, tab_key)
                   VALUES ('http://b', 't9', 'note', '{}', '2026-01-01T00:00:07.000000Z', 'gone');
                 DELETE FROM events WHERE tab_key = 'gone';",
            )
            .unwrap();
            rows(&conn)
        };
        assert_eq!(before.len(), 7);
        let store = Store::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        // The view shows every row in the old columns, byte for byte, times included.
        assert_eq!(rows(&store.conn), before);
        // The deleted row's id is not handed out again.
        let next = store
            .append_event("http://b", "t9", kind::NOTE, "{}")
            .unwrap();
        assert_eq!(
            next,
            before.last().unwrap().0 + 2,
            "the deleted row's id was handed out again"
        );
        // The transcript of the tab reads the same rows from the lean table.
        let tab = store.tab_events("tab-a").unwrap();
        assert_eq!(tab.len(), 6);
        for (t, b) in tab.iter().zip(&before) {
            assert_eq!(
                (t.seq, &t.kind, &t.json, &t.task_id),
                (b.0, &b.3, &b.4, &b.2)
            );
            assert_eq!(&super::super::ts(&t.at), &b.5);
            assert_eq!(t.source, b.7);
        }
        // The audit log still lists the received events with their verdicts and states.
        let audit = store.audit_entries(50).unwrap();
        assert_eq!(
            audit
                .iter()
                .filter(|e| e.direction == Direction::Event)
                .count(),
            4
        );
    }
}
