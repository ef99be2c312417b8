//! The audit log: requests, responses and decisions written as they happen (credentials redacted first), read
//! back merged with the received events (referred to by their rows, never copied).

use super::*;

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

/// One line of the audit log. `detail_json` is redacted (`trust::redact::redact_json`) before it is written.
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

impl AuditEntry {
    /// A decision not tied to a task (a sign-in, a sign-out, a refresh that failed).
    pub fn decision(agent: String, method: String, detail_json: Value, at: DateTime<Utc>) -> Self {
        Self {
            at,
            agent,
            direction: Direction::Decision,
            method,
            task_id: None,
            context_id: None,
            message_id: None,
            detail_json,
        }
    }
}

impl Store {
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
