//! Writing a batch of records in one transaction (the writer thread's job): every received event as a row
//! tagged with its tab, source and verdict, in multi-row INSERTs, or a run of them as one packed row
//! (`pack`); the tab headers; and the v1 `tasks` rows the CLI's `history` and `export` read, kept in step
//! from the same batch.

use foldhash::HashMap as FastMap;

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::pack;
use super::packing::{Incoming, Run, RunBuf, event_kind, utf8};
use super::record::{Record, TabRow};
use super::{Store, StoreError, codes, kind, ts};

/// Columns of an `event_rows` row as the writer fills them.
const EVENT_COLUMNS: usize = 6;

const INSERT_ONE: &str =
    "INSERT INTO event_rows (tab, ref, kind, verdict, at, json) VALUES (?, ?, ?, ?, ?, ?)";

/// Rows per multi-row INSERT. One statement per row spent a third of the writer's time in statement overhead
/// (bind, step, reset) during a flood; 64 rows × 6 columns stays far below SQLite's parameter limit.
const ROWS_PER_INSERT: usize = 64;

static INSERT_GROUP: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    let one = "(?, ?, ?, ?, ?, ?)";
    format!(
        "INSERT INTO event_rows (tab, ref, kind, verdict, at, json) VALUES {}",
        vec![one; ROWS_PER_INSERT].join(", ")
    )
});

/// One transcript row waiting for its INSERT.
pub(super) struct EventRow {
    pub(super) tab: i64,
    pub(super) refno: i64,
    pub(super) kind: &'static str,
    pub(super) verdict: Option<&'static str>,
    pub(super) at: i64,
    pub(super) json: String,
}

impl EventRow {
    /// Bind this row's columns after the first `offset` parameters (SQLite counts them from 1).
    fn bind(
        &self,
        stmt: &mut rusqlite::CachedStatement<'_>,
        offset: usize,
    ) -> rusqlite::Result<()> {
        stmt.raw_bind_parameter(offset + 1, self.tab)?;
        stmt.raw_bind_parameter(offset + 2, self.refno)?;
        stmt.raw_bind_parameter(offset + 3, codes::kind_code(self.kind))?;
        stmt.raw_bind_parameter(offset + 4, codes::verdict_code(self.verdict))?;
        stmt.raw_bind_parameter(offset + 5, self.at)?;
        stmt.raw_bind_parameter(offset + 6, &self.json)
    }
}

/// The plain rows of a batch not inserted yet, in record order.
#[derive(Default)]
pub(super) struct EventRows {
    pub(super) waiting: Vec<EventRow>,
    /// Bytes of JSON and packs inserted so far in the batch.
    pub(super) written: usize,
}

/// What the writer keeps across batches: each tab's agent URL, and the numbers of the tab keys and of the
/// (agent, task, source) triples its rows refer to. A batch that fails forgets all of it (a number made in a
/// rolled-back transaction names no row); the next batch looks them up again.
#[derive(Default)]
pub struct WriterCache {
    urls: FastMap<String, std::sync::Arc<str>>,
    /// Looked up for every event: a fast hasher rather than SipHash (the keys are the console's own).
    tabs: FastMap<String, i64>,
    /// Per tab number: `(task id, source, triple number)`; a tab has a handful, scanned without allocating.
    refs: FastMap<i64, Vec<(String, String, i64)>>,
    /// Buffers for runs and for sealing packs, kept so that a flood does not allocate them per pack.
    pub(super) spare: Vec<RunBuf>,
    pub(super) sealer: pack::Sealer,
    /// Bytes of event JSON and packs written since the writer last asked (what grows the WAL).
    written: usize,
}

impl WriterCache {
    /// The bytes written since the last call.
    pub(super) fn take_written(&mut self) -> usize {
        std::mem::take(&mut self.written)
    }
}

/// The number of a tab key, made on first use. Tab keys are never deleted, so a number stays valid.
pub(super) fn tab_no(conn: &Connection, tab: &str) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO tab_keys (tab_key) VALUES (?1) ON CONFLICT (tab_key) DO NOTHING",
    )?
    .execute([tab])?;
    conn.prepare_cached("SELECT id FROM tab_keys WHERE tab_key = ?1")?
        .query_row([tab], |r| r.get(0))
}

/// The number of an (agent, task, source) triple, made on first use; never deleted either.
pub(super) fn ref_no(
    conn: &Connection,
    url: &str,
    task: &str,
    source: &str,
) -> rusqlite::Result<i64> {
    conn.prepare_cached(
        "INSERT INTO event_refs (agent_url, task_id, source) VALUES (?1, ?2, ?3)
         ON CONFLICT (agent_url, task_id, source) DO NOTHING",
    )?
    .execute([url, task, source])?;
    conn.prepare_cached(
        "SELECT id FROM event_refs WHERE agent_url = ?1 AND task_id = ?2 AND source = ?3",
    )?
    .query_row([url, task, source], |r| r.get(0))
}

/// An event's row: its kind (the `StreamResponse` member) and the member's JSON, as the SDK writes it
/// (`event_serde`: the writer encodes every event of a flood).
pub(super) fn event_json(
    event: &a2a::StreamResponse,
) -> Result<(&'static str, String), StoreError> {
    let k = event_kind(event);
    let mut out = Vec::with_capacity(256);
    crate::task::quick_json::write_member(event, &mut out)
        .map_err(|e| StoreError::Other(format!("cannot encode a {k} event: {e}")))?;
    Ok((k, utf8(out)?))
}

impl Store {
    /// Write a batch in one transaction (group commit): a crash keeps all of it or none of it. `cache` is the
    /// writer's, kept across batches.
    pub fn write_batch(
        &self,
        records: &[Record],
        cache: &mut WriterCache,
    ) -> Result<(), StoreError> {
        let written = self.write_batch_in(records, cache);
        if written.is_err() {
            *cache = WriterCache::default();
        }
        written
    }

    fn write_batch_in(
        &self,
        records: &[Record],
        cache: &mut WriterCache,
    ) -> Result<(), StoreError> {
        // Only the last header of each tab in the batch matters (a flood updates it on every event).
        let mut last_row: FastMap<&str, usize> = FastMap::default();
        for (i, r) in records.iter().enumerate() {
            if let Record::Tab(row) = r {
                last_row.insert(&row.tab, i);
            }
        }
        let tx = Transaction::new_unchecked(&self.conn, rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        let mut rows = EventRows::default();
        // Per tab, the run of events that may become a pack (a handful of tabs: scanned, not hashed).
        let mut runs: Vec<Run> = Vec::new();
        for (i, r) in records.iter().enumerate() {
            // Events, the user's messages and notes are transcript rows; everything else is written as it comes.
            let row = match r {
                Record::Event {
                    tab,
                    task_id,
                    source,
                    verdict,
                    event,
                    at,
                } => {
                    let task_id = task_id.as_deref().unwrap_or("");
                    let (tab, refno) = self.numbers(&tx, cache, tab, task_id, source)?;
                    let event = Incoming {
                        tab,
                        refno,
                        event,
                        verdict,
                        at: codes::micros(at),
                    };
                    self.add_event(&tx, &mut rows, &mut runs, cache, event)?;
                    None
                }
                Record::User {
                    tab,
                    task_id,
                    message,
                    at,
                } => {
                    let json =
                        crate::task::event_serde::to_json(message.as_ref()).map_err(|e| {
                            StoreError::Other(format!("cannot encode the message: {e}"))
                        })?;
                    Some((tab, task_id, kind::USER, json, at))
                }
                Record::Note {
                    tab,
                    task_id,
                    text,
                    error,
                    at,
                } => {
                    let json = serde_json::json!({ "text": text, "error": error }).to_string();
                    Some((tab, task_id, kind::NOTE, json, at))
                }
                other => {
                    // Rows go in before anything that may refer to them (a task adopted, a tab deleted).
                    for run in runs.drain(..) {
                        self.end_run(&tx, &mut rows, run, cache)?;
                    }
                    self.insert_events(&tx, &mut rows)?;
                    self.write_other(&tx, other, i, &last_row, cache)?;
                    None
                }
            };
            if let Some((tab, task_id, kind, json, at)) = row {
                let task_id = task_id.as_deref().unwrap_or("");
                let (tab, refno) = self.numbers(&tx, cache, tab, task_id, "")?;
                // The user's messages and the console's notes are never packed: they end their tab's run.
                self.end_run_where(&tx, &mut rows, &mut runs, cache, |r| r.tab == tab)?;
                let row = EventRow {
                    tab,
                    refno,
                    kind,
                    verdict: None,
                    at: codes::micros(at),
                    json,
                };
                self.push_plain(&tx, &mut rows, row)?;
            }
        }
        for run in runs.drain(..) {
            self.end_run(&tx, &mut rows, run, cache)?;
        }
        self.insert_events(&tx, &mut rows)?;
        tx.commit().map_err(|e| self.err(e))?;
        cache.written += rows.written;
        Ok(())
    }

    pub(super) fn push_plain(
        &self,
        tx: &Transaction<'_>,
        rows: &mut EventRows,
        row: EventRow,
    ) -> Result<(), StoreError> {
        rows.waiting.push(row);
        if rows.waiting.len() == ROWS_PER_INSERT {
            self.insert_events(tx, rows)?;
        }
        Ok(())
    }

    /// A row's tab number and triple number, from the cache when the tab wrote the same triple before.
    fn numbers(
        &self,
        tx: &Transaction<'_>,
        cache: &mut WriterCache,
        tab: &str,
        task_id: &str,
        source: &str,
    ) -> Result<(i64, i64), StoreError> {
        let tab_no = match cache.tabs.get(tab) {
            Some(n) => *n,
            None => {
                let n = tab_no(tx, tab).map_err(|e| self.err(e))?;
                cache.tabs.insert(tab.to_string(), n);
                n
            }
        };
        if let Some(known) = cache.refs.get(&tab_no)
            && let Some((_, _, n)) = known.iter().find(|(t, s, _)| t == task_id && s == source)
        {
            return Ok((tab_no, *n));
        }
        let url = self.url_of(tx, &mut cache.urls, tab)?;
        let n = ref_no(tx, &url, task_id, source).map_err(|e| self.err(e))?;
        cache
            .refs
            .entry(tab_no)
            .or_default()
            .push((task_id.to_string(), source.to_string(), n));
        Ok((tab_no, n))
    }

    /// Everything but the transcript's rows.
    fn write_other(
        &self,
        tx: &Transaction<'_>,
        record: &Record,
        i: usize,
        last_row: &FastMap<&str, usize>,
        cache: &mut WriterCache,
    ) -> Result<(), StoreError> {
        match record {
            Record::Tab(row) => {
                if cache
                    .urls
                    .get(&row.tab)
                    .is_none_or(|u| **u != *row.agent_url)
                {
                    // A tab whose agent URL changed refers to other triples from now on.
                    if let Some(n) = cache.tabs.get(&row.tab) {
                        cache.refs.remove(n);
                    }
                    cache
                        .urls
                        .insert(row.tab.clone(), row.agent_url.as_str().into());
                }
                if last_row.get(row.tab.as_str()) == Some(&i) {
                    self.upsert_tab(tx, row)?;
                }
            }
            Record::TaskAdopted { tab, task_id } => {
                // The tab's rows from before the agent named the task move to the named task's triples (the
                // old triples stay: numbers the cache holds never dangle).
                let tab_no = tab_no(tx, tab).map_err(|e| self.err(e))?;
                tx.prepare_cached(
                    "INSERT OR IGNORE INTO event_refs (agent_url, task_id, source)
                     SELECT DISTINCT r.agent_url, ?2, r.source FROM event_rows e JOIN event_refs r ON r.id = e.ref
                     WHERE e.tab = ?1 AND r.task_id = ''",
                )
                .and_then(|mut s| s.execute(params![tab_no, task_id]))
                .map_err(|e| self.err(e))?;
                tx.prepare_cached(
                    "UPDATE event_rows SET ref = (
                         SELECT n.id FROM event_refs o JOIN event_refs n
                           ON n.agent_url = o.agent_url AND n.source = o.source AND n.task_id = ?2
                         WHERE o.id = event_rows.ref)
                     WHERE tab = ?1 AND ref IN (SELECT id FROM event_refs WHERE task_id = '')",
                )
                .and_then(|mut s| s.execute(params![tab_no, task_id]))
                .map_err(|e| self.err(e))?;
            }
            Record::Draft { tab, text } => self.save_draft(tab, text)?,
            Record::Card {
                agent_url,
                card_url,
                raw,
                etag,
            } => self.save_card(agent_url, card_url, raw, etag.as_deref())?,
            Record::Check { agent_url, kept } => self.save_check(agent_url, kept)?,
            Record::Audit(entry) => self.audit(entry)?,
            Record::DeleteTab { tab } => {
                self.delete_tab_in(tx, tab)?;
            }
            Record::AgentKey { from, to, name } => {
                tx.prepare_cached(
                    "UPDATE tabs SET agent_key = ?1, agent_name = ?2 WHERE agent_key = ?3",
                )
                .and_then(|mut s| s.execute(params![to, name, from]))
                .map_err(|e| self.err(e))?;
            }
            Record::Event { .. } | Record::User { .. } | Record::Note { .. } => {}
        }
        Ok(())
    }

    /// Insert the waiting rows, in order: whole groups with one statement each, the rest one by one (a
    /// statement per group size would crowd the statement cache).
    pub(super) fn insert_events(
        &self,
        tx: &Transaction<'_>,
        rows: &mut EventRows,
    ) -> Result<(), StoreError> {
        if rows.waiting.len() == ROWS_PER_INSERT {
            let mut stmt = tx.prepare_cached(&INSERT_GROUP).map_err(|e| self.err(e))?;
            for (n, row) in rows.waiting.iter().enumerate() {
                row.bind(&mut stmt, n * EVENT_COLUMNS)
                    .map_err(|e| self.err(e))?;
            }
            stmt.raw_execute().map_err(|e| self.err(e))?;
        } else {
            let mut stmt = tx.prepare_cached(INSERT_ONE).map_err(|e| self.err(e))?;
            for row in &rows.waiting {
                row.bind(&mut stmt, 0).map_err(|e| self.err(e))?;
                stmt.raw_execute().map_err(|e| self.err(e))?;
            }
        }
        rows.written += rows.waiting.iter().map(|r| r.json.len()).sum::<usize>();
        rows.waiting.clear();
        Ok(())
    }

    fn url_of(
        &self,
        tx: &Transaction<'_>,
        urls: &mut FastMap<String, std::sync::Arc<str>>,
        tab: &str,
    ) -> Result<std::sync::Arc<str>, StoreError> {
        if let Some(u) = urls.get(tab) {
            return Ok(u.clone());
        }
        let url: Option<String> = tx
            .query_row(
                "SELECT agent_url FROM tabs WHERE tab_key = ?1",
                [tab],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))?;
        let url: std::sync::Arc<str> = url.unwrap_or_default().into();
        urls.insert(tab.to_string(), url.clone());
        Ok(url)
    }

    fn upsert_tab(&self, tx: &Transaction<'_>, row: &TabRow) -> Result<(), StoreError> {
        let closed = row.closed.then(|| ts(&row.updated_at));
        tx.prepare_cached(
            "INSERT INTO tabs (tab_key, agent_key, agent_url, agent_name, task_id, context_id, state, last_text,
                               created_at, state_since, updated_at, closed_at, gone, flags)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
             ON CONFLICT (tab_key) DO UPDATE SET
               agent_key = excluded.agent_key, agent_url = excluded.agent_url, agent_name = excluded.agent_name,
               task_id = excluded.task_id, context_id = excluded.context_id, state = excluded.state,
               last_text = excluded.last_text, state_since = excluded.state_since,
               updated_at = excluded.updated_at, closed_at = excluded.closed_at, gone = excluded.gone,
               flags = excluded.flags",
        )
        .and_then(|mut s| {
            s.execute(params![
                row.tab,
                row.agent_key,
                row.agent_url,
                row.agent_name,
                row.task_id,
                row.context_id,
                row.state,
                row.last_text,
                ts(&row.created_at),
                ts(&row.state_since),
                ts(&row.updated_at),
                closed,
                i64::from(row.gone),
                i64::from(row.flags)
            ])
        })
        .map_err(|e| self.err(e))?;
        // The v1 `tasks` row, for the CLI's history and export.
        if let Some(task_id) = &row.task_id {
            tx.prepare_cached(
                "INSERT INTO tasks (agent_url, task_id, agent_name, context_id, state, tab_id, snapshot_json,
                                    updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, 0, NULL, ?6)
                 ON CONFLICT (agent_url, task_id) DO UPDATE SET
                   agent_name = excluded.agent_name, context_id = excluded.context_id,
                   state = excluded.state, updated_at = excluded.updated_at",
            )
            .and_then(|mut s| {
                s.execute(params![
                    row.agent_url,
                    task_id,
                    row.agent_name,
                    row.context_id,
                    row.state,
                    ts(&row.updated_at)
                ])
            })
            .map_err(|e| self.err(e))?;
        }
        Ok(())
    }
}
