//! The v1 task rows and the event API by task (CLI `history` and `export`, and the tests): one row per task as
//! last known, and its events in arrival order.

use super::*;

/// One task as last known. `state` is the wire name (`working`, `completed`, …, see
/// `task::phase::state_name`); `snapshot_json` is the `a2a::Task` JSON when we have one.
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

/// A stored event read back as the stream response it was; `None` for what is not one (the user's messages,
/// the console's notes, kinds this build does not know).
pub fn stream_response(
    kind_name: &str,
    json: &str,
) -> Option<Result<a2a::StreamResponse, serde_json::Error>> {
    use crate::task::event_serde::from_json;
    Some(match kind_name {
        kind::TASK => from_json(json).map(a2a::StreamResponse::Task),
        kind::MESSAGE => from_json(json).map(a2a::StreamResponse::Message),
        kind::STATUS => from_json(json).map(a2a::StreamResponse::StatusUpdate),
        kind::ARTIFACT => from_json(json).map(a2a::StreamResponse::ArtifactUpdate),
        _ => return None,
    })
}

impl Store {
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
            "DELETE FROM event_rows
             WHERE tab IN (SELECT k.id FROM tab_keys k
                           WHERE k.tab_key IN (SELECT tab_key FROM tabs WHERE task_id = ?2 UNION SELECT ?1 || ' ' || ?2))
               AND ref IN (SELECT id FROM event_refs WHERE agent_url = ?1 AND task_id = ?2)",
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

    pub(super) fn task_query(
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

    /// Record one thing that arrived (or was sent) for a task; returns its sequence number. Committed before
    /// this returns.
    pub fn append_event(
        &self,
        agent_url: &str,
        task_id: &str,
        kind: &str,
        json: &str,
    ) -> Result<i64, StoreError> {
        // Filed under the key migration 2 gave rows that had no tab (`url task`), so the task's events are found
        // the same way as everyone's: through their tab.
        let tab = super::batch::tab_no(&self.conn, &format!("{agent_url} {task_id}"))
            .map_err(|e| self.err(e))?;
        let refno =
            super::batch::ref_no(&self.conn, agent_url, task_id, "").map_err(|e| self.err(e))?;
        self.conn
            .prepare_cached(
                "INSERT INTO event_rows (tab, ref, kind, verdict, at, json) VALUES (?1, ?2, ?3, NULL, ?4, ?5)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    tab,
                    refno,
                    super::codes::kind_code(kind),
                    super::codes::micros(&Utc::now()),
                    json
                ])
            })
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
        let (k, json) = batch::event_json(event)?;
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
                "SELECT e.id, e.kind, e.verdict, e.at, e.json, e.n
                 FROM event_rows e JOIN event_refs r ON r.id = e.ref
                 WHERE e.tab IN (SELECT k.id FROM tab_keys k WHERE k.tab_key IN
                                   (SELECT tab_key FROM tabs WHERE task_id = ?2 UNION SELECT ?1 || ' ' || ?2))
                   AND r.agent_url = ?1 AND r.task_id = ?2 ORDER BY e.id",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([agent_url, task_id], |r| {
                let stored = pack::StoredRow::read(r, 0)?;
                pack::unpack(stored)
                    .into_iter()
                    .map(|u| {
                        Ok(StoredEvent {
                            seq: u.seq,
                            agent_url: agent_url.to_string(),
                            task_id: task_id.to_string(),
                            kind: u.kind,
                            json: u.json,
                            at: codes::from_micros(3, u.at)?,
                        })
                    })
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(|e| self.err(e))?
            .collect::<rusqlite::Result<Vec<_>>>();
        rows.map(|r| r.into_iter().flatten().collect())
            .map_err(|e| self.err(e))
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
