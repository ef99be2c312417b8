//! The console's tabs in the store: one header row per tab (what the board shows at restore), closing and
//! deleting them, and retention (old tabs, then the oldest until the store fits, and old audit entries).
//! Their events are written in `batch` and read in `events`.

use chrono::{Duration as Days, Utc};
use rusqlite::{OptionalExtension, Transaction};

use super::record::TabRow;
use super::{Store, StoreError, codes, parse_ts, ts};

/// A tab as stored: its header (the transcript is loaded when the tab is opened).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredTab {
    pub row: TabRow,
    /// The tab holds events (an existence check, not a count: start-up must not grow with the store).
    pub has_events: bool,
    /// What its compose box held when it was closed (or the console quit), if anything.
    pub draft: Option<String>,
}

/// What `prune` removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pruned {
    pub tabs: usize,
    pub events: usize,
    pub audit: usize,
    /// Bytes in use before and after (pages in use × page size; the file itself shrinks only on vacuum).
    pub bytes_before: u64,
    pub bytes_after: u64,
}

/// How long and how much to keep (`[store]` in the config).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// Tabs not updated for this many days are forgotten (with their events).
    pub keep_days: u32,
    /// Past this many MiB in use, the least recently updated tabs are forgotten until it fits.
    pub max_mb: u64,
    /// Audit entries older than this many days are dropped (the audit log's own retention).
    pub audit_keep_days: u32,
}

impl Default for Retention {
    fn default() -> Self {
        Self {
            keep_days: 30,
            max_mb: 512,
            audit_keep_days: 180,
        }
    }
}

/// The `[store]` table's settings, each unset one at its default.
impl From<&crate::config::StoreConfig> for Retention {
    fn from(c: &crate::config::StoreConfig) -> Self {
        let d = Self::default();
        Self {
            keep_days: c.keep_days.unwrap_or(d.keep_days),
            max_mb: c.max_mb.unwrap_or(d.max_mb),
            audit_keep_days: c.audit_keep_days.unwrap_or(d.audit_keep_days),
        }
    }
}

fn tab_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredTab> {
    let closed: Option<String> = r.get(11)?;
    Ok(StoredTab {
        row: TabRow {
            tab: r.get(0)?,
            agent_key: r.get(1)?,
            agent_url: r.get(2)?,
            agent_name: r.get(3)?,
            task_id: r.get(4)?,
            context_id: r.get(5)?,
            state: r.get(6)?,
            last_text: r.get(7)?,
            created_at: parse_ts(8, r.get(8)?)?,
            state_since: parse_ts(9, r.get(9)?)?,
            updated_at: parse_ts(10, r.get(10)?)?,
            closed: closed.is_some(),
            gone: r.get::<_, i64>(12)? != 0,
            flags: u32::try_from(r.get::<_, i64>(15)?).unwrap_or(0),
        },
        has_events: r.get::<_, i64>(13)? != 0,
        draft: r.get(14)?,
    })
}

const TAB_COLUMNS: &str =
    "tab_key, agent_key, agent_url, agent_name, task_id, context_id, state, last_text,
     created_at, state_since, updated_at, closed_at, gone,
     EXISTS (SELECT 1 FROM event_rows e WHERE e.tab = (SELECT k.id FROM tab_keys k WHERE k.tab_key = tabs.tab_key)),
     (SELECT d.text FROM drafts d WHERE d.tab_key = tabs.tab_key), flags";

impl Store {
    pub(super) fn delete_tab_in(
        &self,
        tx: &Transaction<'_>,
        tab: &str,
    ) -> Result<usize, StoreError> {
        let task: Option<(String, Option<String>)> = tx
            .query_row(
                "SELECT agent_url, task_id FROM tabs WHERE tab_key = ?1",
                [tab],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(|e| self.err(e))?;
        // Counted in events, not rows: a pack holds `n` of them.
        let events: i64 = tx
            .query_row(
                "SELECT COALESCE(SUM(COALESCE(n, 1)), 0) FROM event_rows
                 WHERE tab = (SELECT id FROM tab_keys WHERE tab_key = ?1)",
                [tab],
                |r| r.get(0),
            )
            .map_err(|e| self.err(e))?;
        tx.execute(
            "DELETE FROM event_rows WHERE tab = (SELECT id FROM tab_keys WHERE tab_key = ?1)",
            [tab],
        )
        .map_err(|e| self.err(e))?;
        let events = usize::try_from(events).unwrap_or(0);
        tx.execute("DELETE FROM tabs WHERE tab_key = ?1", [tab])
            .map_err(|e| self.err(e))?;
        tx.execute("DELETE FROM drafts WHERE tab_key = ?1", [tab])
            .map_err(|e| self.err(e))?;
        if let Some((url, Some(task_id))) = task {
            tx.execute(
                "DELETE FROM tasks WHERE agent_url = ?1 AND task_id = ?2",
                [&url, &task_id],
            )
            .map_err(|e| self.err(e))?;
        }
        Ok(events)
    }

    /// Open tabs (not closed), oldest first, headers only: what the console shows at start.
    pub fn open_tabs(&self) -> Result<Vec<StoredTab>, StoreError> {
        self.tab_query(&format!(
            "SELECT {TAB_COLUMNS} FROM tabs WHERE closed_at IS NULL ORDER BY created_at, rowid"
        ))
    }

    /// One tab's header, open or closed.
    pub fn stored_tab(&self, tab: &str) -> Result<Option<StoredTab>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {TAB_COLUMNS} FROM tabs WHERE tab_key = ?1"
            ))
            .map_err(|e| self.err(e))?;
        stmt.query_row([tab], tab_row)
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Closed tabs, the most recently closed first, for reopening.
    pub fn closed_tabs(&self, limit: usize) -> Result<Vec<StoredTab>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.tab_query(&format!(
            "SELECT {TAB_COLUMNS} FROM tabs WHERE closed_at IS NOT NULL
             ORDER BY closed_at DESC, rowid DESC LIMIT {limit}"
        ))
    }

    fn tab_query(&self, sql: &str) -> Result<Vec<StoredTab>, StoreError> {
        let mut stmt = self.conn.prepare(sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], tab_row)
            .map_err(|e| self.err(e))?
            .collect::<rusqlite::Result<Vec<_>>>();
        rows.map_err(|e| self.err(e))
    }

    /// Forget a tab: its header, events and draft, in one transaction. Returns the events removed.
    pub fn delete_tab(&self, tab: &str) -> Result<usize, StoreError> {
        let tx = Transaction::new_unchecked(&self.conn, rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        let n = self.delete_tab_in(&tx, tab)?;
        tx.commit().map_err(|e| self.err(e))?;
        Ok(n)
    }

    /// Bytes in use: pages holding data × page size.
    pub fn bytes_in_use(&self) -> Result<u64, StoreError> {
        let q = |p: &str| -> Result<i64, StoreError> {
            self.conn
                .pragma_query_value(None, p, |r| r.get(0))
                .map_err(|e| self.err(e))
        };
        let used = q("page_count")? - q("freelist_count")?;
        Ok(u64::try_from(used.max(0) * q("page_size")?).unwrap_or(0))
    }

    /// Apply the retention rules: tabs older than `keep_days`, then the least recently updated until the store
    /// fits in `max_mb`, then audit entries older than `audit_keep_days`. `vacuum` also gives the freed space
    /// back to the file system (slow on a big file: the `prune` command does it, the console's start does not).
    pub fn prune(&self, keep: Retention, vacuum: bool) -> Result<Pruned, StoreError> {
        let mut out = Pruned {
            bytes_before: self.bytes_in_use()?,
            ..Pruned::default()
        };
        let now = Utc::now();
        let cutoff = ts(&(now - Days::days(i64::from(keep.keep_days))));
        let tx = Transaction::new_unchecked(&self.conn, rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        let old: Vec<String> = {
            let mut s = tx
                .prepare("SELECT tab_key FROM tabs WHERE updated_at < ?1")
                .map_err(|e| self.err(e))?;
            s.query_map([&cutoff], |r| r.get(0))
                .map_err(|e| self.err(e))?
                .collect::<rusqlite::Result<Vec<_>>>()
                .map_err(|e| self.err(e))?
        };
        for tab in &old {
            out.events += self.delete_tab_in(&tx, tab)?;
            out.tabs += 1;
        }
        // Events written before tabs existed, or whose tab is gone (a pack goes once its latest event is old).
        const STRAYS: &str =
            "FROM event_rows WHERE COALESCE(at_last, at) < ?1 AND (tab IS NULL OR tab NOT IN
                     (SELECT k.id FROM tab_keys k JOIN tabs t ON t.tab_key = k.tab_key))";
        let old_events = codes::micros(&(now - Days::days(i64::from(keep.keep_days))));
        let strays: i64 = tx
            .query_row(
                &format!("SELECT COALESCE(SUM(COALESCE(n, 1)), 0) {STRAYS}"),
                [old_events],
                |r| r.get(0),
            )
            .map_err(|e| self.err(e))?;
        tx.execute(&format!("DELETE {STRAYS}"), [old_events])
            .map_err(|e| self.err(e))?;
        out.events += usize::try_from(strays).unwrap_or(0);
        let audit_cutoff = ts(&(now - Days::days(i64::from(keep.audit_keep_days))));
        out.audit = tx
            .execute("DELETE FROM audit WHERE at < ?1", [&audit_cutoff])
            .map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))?;
        // Size: forget the least recently updated tabs, a few at a time, until what is in use fits.
        let max = keep.max_mb.saturating_mul(1024 * 1024);
        while self.bytes_in_use()? > max {
            let victims: Vec<String> = {
                let mut s = self
                    .conn
                    .prepare("SELECT tab_key FROM tabs ORDER BY updated_at, rowid LIMIT 8")
                    .map_err(|e| self.err(e))?;
                s.query_map([], |r| r.get(0))
                    .map_err(|e| self.err(e))?
                    .collect::<rusqlite::Result<Vec<_>>>()
                    .map_err(|e| self.err(e))?
            };
            if victims.is_empty() {
                break;
            }
            for tab in &victims {
                out.events += self.delete_tab(tab)?;
                out.tabs += 1;
            }
        }
        if vacuum {
            self.conn.execute_batch("VACUUM").map_err(|e| self.err(e))?;
        }
        out.bytes_after = self.bytes_in_use()?;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::SCHEMA_VERSION;
    use crate::store::kind;
    use crate::store::record::Record;
    use crate::store::writer::StoreWriter;
    use chrono::DateTime;

    fn row(tab: &str, agent_key: &str, state: &str, at: DateTime<Utc>) -> TabRow {
        crate::testing::tab_row(tab, agent_key, None, state, at)
    }

    fn status_event(task: &str, state: a2a::TaskState) -> Box<a2a::StreamResponse> {
        Box::new(a2a::StreamResponse::StatusUpdate(
            a2a::TaskStatusUpdateEvent {
                task_id: task.into(),
                context_id: "c".into(),
                status: a2a::TaskStatus {
                    state,
                    message: None,
                    timestamp: None,
                },
                metadata: None,
            },
        ))
    }

    #[test]
    fn a_batch_keeps_order_timestamps_and_the_user_message_before_the_task_is_named() {
        let store = Store::open_in_memory().unwrap();
        // Stored to the microsecond.
        let t0 = DateTime::from_timestamp_micros(Utc::now().timestamp_micros()).unwrap()
            - Days::hours(5);
        let t1 = t0 + Days::seconds(1);
        let mut urls = crate::store::WriterCache::default();
        let user = a2a::Message::new(a2a::Role::User, vec![a2a::Part::text("ask")]);
        let mut named = row("tab-1", "demo", "working", t1);
        named.created_at = t0;
        named.task_id = Some("t1".into());
        store
            .write_batch(
                &[
                    Record::Tab(Box::new(row("tab-1", "demo", "new", t0))),
                    Record::User {
                        tab: "tab-1".into(),
                        task_id: None,
                        message: Box::new(user),
                        at: t0,
                    },
                    Record::Event {
                        tab: "tab-1".into(),
                        task_id: Some("t1".into()),
                        source: "stream#1".into(),
                        verdict: "applied",
                        event: status_event("t1", a2a::TaskState::Working),
                        at: t1,
                    },
                    Record::TaskAdopted {
                        tab: "tab-1".into(),
                        task_id: "t1".into(),
                    },
                    Record::Tab(Box::new(named)),
                ],
                &mut urls,
            )
            .unwrap();
        let tabs = store.open_tabs().unwrap();
        assert_eq!(tabs.len(), 1);
        assert_eq!(tabs[0].row.state, "working");
        assert_eq!(tabs[0].row.created_at, t0);
        assert!(tabs[0].has_events);
        assert_eq!(store.tab_events("tab-1").unwrap().len(), 2);
        let events = store.tab_events("tab-1").unwrap();
        assert_eq!(events[0].kind, kind::USER);
        assert_eq!(
            events[0].at, t0,
            "the receive time comes back, not the restore time"
        );
        assert_eq!(events[1].source.as_deref(), Some("stream#1"));
        // The CLI's export sees the user's message under the task id too.
        let v1 = store.events("http://127.0.0.1:9", "t1").unwrap();
        assert_eq!(v1.len(), 2);
        assert!(store.task("http://127.0.0.1:9", "t1").unwrap().is_some());
    }

    /// Two agents may name a task alike: each one's tab is found under its own URL, the newer never shadows it.
    #[test]
    fn the_tab_of_a_task_is_the_agents_own_when_two_agents_share_a_task_id() {
        let store = Store::open_in_memory().unwrap();
        let now = Utc::now();
        let mut first = row("tab-a", "a", "completed", now - Days::minutes(1));
        first.agent_url = "http://127.0.0.1:1".into();
        first.task_id = Some("t1".into());
        let mut second = row("tab-b", "b", "completed", now);
        second.agent_url = "http://127.0.0.1:2".into();
        second.task_id = Some("t1".into());
        store
            .write_batch(
                &[Record::Tab(Box::new(first)), Record::Tab(Box::new(second))],
                &mut crate::store::WriterCache::default(),
            )
            .unwrap();
        let of = |url: &str| store.tab_of_task(url, "t1").unwrap();
        assert_eq!(of("http://127.0.0.1:1").as_deref(), Some("tab-a"));
        assert_eq!(of("http://127.0.0.1:2").as_deref(), Some("tab-b"));
        assert_eq!(of("http://127.0.0.1:3"), None);
    }

    #[test]
    fn closed_tabs_are_not_open_and_deleting_forgets_everything() {
        let store = Store::open_in_memory().unwrap();
        let now = Utc::now();
        let mut urls = crate::store::WriterCache::default();
        let mut closed = row("b", "demo", "completed", now);
        closed.closed = true;
        store
            .write_batch(
                &[
                    Record::Tab(Box::new(row("a", "demo", "working", now))),
                    Record::Tab(Box::new(closed)),
                    Record::Note {
                        tab: "b".into(),
                        task_id: None,
                        text: "hello".into(),
                        error: false,
                        at: now,
                    },
                ],
                &mut urls,
            )
            .unwrap();
        assert_eq!(store.open_tabs().unwrap().len(), 1);
        assert_eq!(store.closed_tabs(10).unwrap()[0].row.tab, "b");
        assert_eq!(store.delete_tab("b").unwrap(), 1);
        assert!(store.closed_tabs(10).unwrap().is_empty());
        assert!(store.tab_events("b").unwrap().is_empty());
    }

    #[test]
    fn prune_forgets_old_tabs_then_the_oldest_until_it_fits_and_old_audit() {
        let store = Store::open_in_memory().unwrap();
        let mut urls = crate::store::WriterCache::default();
        let old = Utc::now() - Days::days(40);
        let recent = Utc::now() - Days::hours(1);
        let mut records = vec![
            Record::Tab(Box::new(row("old", "demo", "completed", old))),
            Record::Tab(Box::new(row("new", "demo", "completed", recent))),
            Record::Audit(Box::new(crate::store::AuditEntry {
                at: old - Days::days(200),
                agent: "x".into(),
                direction: crate::store::Direction::Request,
                method: "GetTask".into(),
                task_id: None,
                context_id: None,
                message_id: None,
                detail_json: serde_json::Value::Null,
            })),
        ];
        for _ in 0..50 {
            records.push(Record::Note {
                tab: "old".into(),
                task_id: None,
                text: "x".repeat(1000),
                error: false,
                at: old,
            });
        }
        store.write_batch(&records, &mut urls).unwrap();
        let p = store.prune(Retention::default(), false).unwrap();
        assert_eq!((p.tabs, p.events, p.audit), (1, 50, 1));
        assert_eq!(store.open_tabs().unwrap()[0].row.tab, "new");
        // A size limit of 0 MiB forgets everything that is left.
        let p = store
            .prune(
                Retention {
                    max_mb: 0,
                    ..Retention::default()
                },
                true,
            )
            .unwrap();
        assert_eq!(p.tabs, 1);
        assert!(store.open_tabs().unwrap().is_empty());
    }

    #[test]
    fn the_writer_commits_batches_in_order_and_reads_see_them() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("c.db")).unwrap();
        let mut w = StoreWriter::spawn(store).unwrap();
        let now = Utc::now();
        w.write(vec![Record::Tab(Box::new(row(
            "a", "demo", "working", now,
        )))]);
        let mut last = 0;
        for i in 0..1000 {
            last = w.write(vec![Record::Note {
                tab: "a".into(),
                task_id: None,
                text: format!("note {i}"),
                error: false,
                at: now,
            }]);
        }
        assert_eq!(last, 1001);
        let (tx, rx) = std::sync::mpsc::channel();
        w.run(move |s| {
            let _ = tx.send(s.tab_events("a").map(|e| e.len()));
        });
        let n = rx.recv().unwrap().unwrap();
        assert_eq!(n, 1000, "a read sees every write queued before it");
        let status = w.status();
        assert_eq!(status.borrow().committed, 1001);
        assert!(status.borrow().failure.is_none());
        w.stop();
    }

    #[test]
    fn a_v1_store_migrates_its_tasks_into_tabs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v1.db");
        {
            let conn = rusqlite::Connection::open(&path).unwrap();
            conn.execute_batch(super::super::schema::MIGRATIONS[0])
                .unwrap();
            conn.execute_batch(
                "PRAGMA user_version = 1;
                 INSERT INTO tasks VALUES ('http://a', 't1', 'A', 'c1', 'completed', 3, NULL,
                                           '2026-01-01T00:00:05.000000Z');
                 INSERT INTO events (agent_url, task_id, kind, json, at)
                   VALUES ('http://a', 't1', 'note', '{\"text\":\"hi\",\"error\":false}',
                           '2026-01-01T00:00:01.000000Z');",
            )
            .unwrap();
        }
        let store = Store::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
        let tabs = store.open_tabs().unwrap();
        assert_eq!(tabs.len(), 1);
        assert_eq!(tabs[0].row.task_id.as_deref(), Some("t1"));
        assert_eq!(
            tabs[0].row.created_at.to_rfc3339(),
            "2026-01-01T00:00:01+00:00"
        );
        assert_eq!(store.tab_events(&tabs[0].row.tab).unwrap().len(), 1);
        // Schema 3: the task's rows are still found by task (through its tab), without an index of their own.
        assert_eq!(store.events("http://a", "t1").unwrap().len(), 1);
        let indexes: Vec<String> = store
            .conn
            .prepare(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'event_rows'",
            )
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(indexes, vec!["events_by_tab".to_string()]);
    }
}
