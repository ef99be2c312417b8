//! Reading a tab's events back: the transcript of a tab in arrival order (streamed row by row, so a large tab
//! is never held twice), the tab a task belongs to, and the rows received at one instant (the raw JSON view).

use chrono::{DateTime, Utc};
use rusqlite::{OptionalExtension, params};

use super::{Store, StoreError, codes, kind, pack};

/// One row of a tab's transcript, in arrival order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TabEvent {
    pub seq: i64,
    pub kind: String,
    pub json: String,
    /// `stream#3`, `push`, … (`None` for v1 rows and for the user's own messages and notes).
    pub source: Option<String>,
    pub at: DateTime<Utc>,
    /// The task the row belongs to (empty for a message exchange, or before the agent named the task): a
    /// tab holds a conversation's tasks one after the other.
    pub task_id: String,
}

/// A tab's rows as the transcript reads them (`id, kind, verdict, at, json, n, source, task_id`), straight
/// from the lean table: the time as stored (µs), no text to format and parse back. A pack row stands for its
/// events ([`super::pack`]).
const TAB_EVENTS: &str =
    "SELECT e.id, e.kind, e.verdict, e.at, e.json, e.n, NULLIF(r.source, ''), r.task_id
     FROM event_rows e JOIN event_refs r ON r.id = e.ref
     WHERE e.tab = (SELECT id FROM tab_keys WHERE tab_key = ?1)";

/// The events of one row of [`TAB_EVENTS`], in order.
fn tab_events_of(r: &rusqlite::Row) -> rusqlite::Result<Vec<TabEvent>> {
    let source: Option<String> = r.get(6)?;
    let task_id: String = r.get(7)?;
    let stored = pack::StoredRow::read(r, 0)?;
    pack::unpack(stored)
        .into_iter()
        .map(|u| {
            Ok(TabEvent {
                seq: u.seq,
                kind: u.kind,
                json: u.json,
                source: source.clone(),
                at: codes::from_micros(3, u.at)?,
                task_id: task_id.clone(),
            })
        })
        .collect()
}

impl Store {
    /// A tab's transcript in arrival order, a row at a time: `f` gets each row as it is read (a 100 MiB
    /// artifact's rows are never all in memory at once) and returns false to stop.
    pub fn for_each_tab_event(
        &self,
        tab: &str,
        mut f: impl FnMut(TabEvent) -> bool,
    ) -> Result<(), StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("{TAB_EVENTS} ORDER BY e.id"))
            .map_err(|e| self.err(e))?;
        let mut rows = stmt.query([tab]).map_err(|e| self.err(e))?;
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            for event in tab_events_of(row).map_err(|e| self.err(e))? {
                if !f(event) {
                    return Ok(());
                }
            }
        }
        Ok(())
    }

    /// The tab whose transcript holds `task_id` of the agent at `agent_url` (the latest, should two; two agents
    /// can use the same task id): an earlier task of a conversation is found too, not only the tab's current one.
    pub fn tab_of_task(
        &self,
        agent_url: &str,
        task_id: &str,
    ) -> Result<Option<String>, StoreError> {
        // A tab's current task is indexed; an earlier task of a conversation is found among the events (a scan:
        // the events table keeps no task-id index, see MIGRATION_3; this is for the CLI's export, once).
        let current: Option<String> = self
            .conn
            .query_row(
                "SELECT tab_key FROM tabs WHERE agent_url = ?1 AND task_id = ?2 \
                 ORDER BY updated_at DESC LIMIT 1",
                [agent_url, task_id],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))?;
        if current.is_some() {
            return Ok(current);
        }
        self.conn
            .query_row(
                "SELECT tab_key FROM events WHERE agent_url = ?1 AND task_id = ?2 AND tab_key IS NOT NULL \
                 ORDER BY id DESC LIMIT 1",
                [agent_url, task_id],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// A tab's transcript in arrival order.
    pub fn tab_events(&self, tab: &str) -> Result<Vec<TabEvent>, StoreError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("{TAB_EVENTS} ORDER BY e.id"))
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([tab], tab_events_of)
            .map_err(|e| self.err(e))?
            .collect::<rusqlite::Result<Vec<_>>>();
        rows.map(|r| r.into_iter().flatten().collect())
            .map_err(|e| self.err(e))
    }

    /// The events (not the user's messages or the console's notes) a tab received at `at`, in arrival order:
    /// what the raw JSON viewer shows for an entry whose event is no longer in memory. At most a few: two
    /// events rarely share a microsecond.
    pub fn tab_events_at(
        &self,
        tab: &str,
        at: &DateTime<Utc>,
    ) -> Result<Vec<TabEvent>, StoreError> {
        // A pack is read when the instant falls between its earliest and latest event.
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "{TAB_EVENTS} AND (e.at = ?2 OR (e.at_last IS NOT NULL AND ?2 BETWEEN e.at AND e.at_last))
                 AND e.kind NOT IN (?3, ?4) ORDER BY e.id"
            ))
            .map_err(|e| self.err(e))?;
        let at = codes::micros(at);
        let mut rows = stmt
            .query(params![
                tab,
                at,
                codes::kind_code(kind::USER),
                codes::kind_code(kind::NOTE)
            ])
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let events = tab_events_of(row).map_err(|e| self.err(e))?;
            out.extend(
                events
                    .into_iter()
                    .filter(|e| codes::micros(&e.at) == at && e.kind != kind::NOTE),
            );
            if out.len() >= AT_MOST_AT_ONE_INSTANT {
                out.truncate(AT_MOST_AT_ONE_INSTANT);
                break;
            }
        }
        Ok(out)
    }
}

/// Rows [`Store::tab_events_at`] gives back at most.
const AT_MOST_AT_ONE_INSTANT: usize = 16;
