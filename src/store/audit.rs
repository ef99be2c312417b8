//! The audit log: requests, responses and decisions written as they happen (credentials redacted first), read
//! back merged with the received events (referred to by their rows, never copied).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

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
        if limit == 0 {
            return Ok(Vec::new());
        }
        let sql_limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT at, agent, direction, method, task_id, context_id, message_id, detail_json, k, id
                     FROM (SELECT * FROM ({AUDIT_LOG}) ORDER BY at DESC, k DESC, id DESC LIMIT ?1)
                     ORDER BY at, k, id"
            ))
            .map_err(|e| self.err(e))?;
        // The newest `limit` so far, smallest on top: a pack is read only while it can still hold one of them,
        // so a store of millions of packed events never has them all in memory for a viewer of 500 lines.
        let mut newest: BinaryHeap<Reverse<Keyed>> = BinaryHeap::new();
        let keep = |newest: &mut BinaryHeap<Reverse<Keyed>>, k: Keyed| {
            newest.push(Reverse(k));
            if newest.len() > limit {
                newest.pop();
            }
        };
        let rows = stmt
            .query_map([sql_limit], keyed_row)
            .map_err(|e| self.err(e))?;
        for row in rows {
            keep(&mut newest, row.map_err(|e| self.err(e))?);
        }
        let mut packs = self
            .conn
            .prepare_cached(&format!("{AUDIT_PACKS} ORDER BY e.at_last DESC, e.id DESC"))
            .map_err(|e| self.err(e))?;
        let mut rows = packs
            .query([codes::kind_code(kind::PACK)])
            .map_err(|e| self.err(e))?;
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let at_last: i64 = row.get(9).map_err(|e| self.err(e))?;
            // Every event of this pack, and of those after it, is older than all the ones kept.
            if newest.len() >= limit && newest.peek().is_some_and(|Reverse(k)| at_last < k.key.0) {
                break;
            }
            for k in packed_entries(row).map_err(|e| self.err(e))? {
                keep(&mut newest, k);
            }
        }
        Ok(newest
            .into_sorted_vec()
            .into_iter()
            .rev()
            .map(|Reverse(k)| k.entry)
            .collect())
    }

    /// Write the whole audit log as JSON Lines, oldest first, streaming row by row; returns the line count.
    /// Packed events are merged in as they come due (a pack's events are no earlier than its row's time), so
    /// only the packs that overlap the time being written are held.
    pub fn export_audit_jsonl(&self, w: &mut impl Write) -> Result<usize, StoreError> {
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT at, agent, direction, method, task_id, context_id, message_id, detail_json, k, id
                 FROM ({AUDIT_LOG}) ORDER BY at, k, id"
            ))
            .map_err(|e| self.err(e))?;
        let mut packs = self
            .conn
            .prepare(&format!("{AUDIT_PACKS} ORDER BY e.at, e.id"))
            .map_err(|e| self.err(e))?;
        let mut rows = stmt.query([]).map_err(|e| self.err(e))?;
        let mut pack_rows = packs
            .query([codes::kind_code(kind::PACK)])
            .map_err(|e| self.err(e))?;
        // The next pack, read ahead: its time and its events.
        let read_pack =
            |rows: &mut rusqlite::Rows<'_>| -> Result<Option<(i64, Vec<Keyed>)>, StoreError> {
                match rows.next().map_err(|e| self.err(e))? {
                    Some(pack) => {
                        let at: i64 = pack.get(3).map_err(|e| self.err(e))?;
                        Ok(Some((at, packed_entries(pack).map_err(|e| self.err(e))?)))
                    }
                    None => Ok(None),
                }
            };
        let mut next_pack = read_pack(&mut pack_rows)?;
        let mut due: BinaryHeap<Reverse<Keyed>> = BinaryHeap::new();
        let mut n = 0;
        let mut write = |entry: &AuditEntry| -> Result<(), StoreError> {
            let line = serde_json::to_string(entry)
                .map_err(|e| StoreError::Other(format!("cannot encode audit entry: {e}")))?;
            writeln!(w, "{line}")
                .map_err(|e| StoreError::Io(format!("writing the audit export: {e}")))?;
            n += 1;
            Ok(())
        };
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            let keyed = keyed_row(row).map_err(|e| self.err(e))?;
            while let Some((at, _)) = &next_pack
                && *at <= keyed.key.0
            {
                if let Some((_, events)) = next_pack.take() {
                    due.extend(events.into_iter().map(Reverse));
                }
                next_pack = read_pack(&mut pack_rows)?;
            }
            while due.peek().is_some_and(|Reverse(d)| d.key < keyed.key) {
                if let Some(Reverse(d)) = due.pop() {
                    write(&d.entry)?;
                }
            }
            write(&keyed.entry)?;
        }
        while let Some((_, events)) = next_pack.take() {
            due.extend(events.into_iter().map(Reverse));
            next_pack = read_pack(&mut pack_rows)?;
        }
        while let Some(Reverse(d)) = due.pop() {
            write(&d.entry)?;
        }
        w.flush()
            .map_err(|e| StoreError::Io(format!("writing the audit export: {e}")))?;
        Ok(n)
    }
}

/// The packed event rows (schema 8) with what their audit entries need: [`AUDIT_LOG`] leaves them out, as
/// SQL cannot read their compressed JSON.
const AUDIT_PACKS: &str = "
    SELECT e.id, e.kind, e.verdict, e.at, e.json, e.n, r.agent_url, NULLIF(r.task_id, ''), NULLIF(r.source, ''),
           e.at_last
    FROM event_rows e JOIN event_refs r ON r.id = e.ref WHERE e.kind = ?1";

/// An audit entry with where it sorts: (time in µs, 0 for the audit table and 1 for an event, row or
/// sequence number), the order [`AUDIT_LOG`] is read in.
struct Keyed {
    key: (i64, i64, i64),
    entry: AuditEntry,
}

impl PartialEq for Keyed {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}
impl Eq for Keyed {}
impl PartialOrd for Keyed {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Keyed {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key.cmp(&other.key)
    }
}

/// A row of [`AUDIT_LOG`] read with its `k` and `id` (columns 8 and 9).
fn keyed_row(r: &Row<'_>) -> rusqlite::Result<Keyed> {
    let entry = audit_row(r)?;
    Ok(Keyed {
        key: (codes::micros(&entry.at), r.get(8)?, r.get(9)?),
        entry,
    })
}

/// A pack's events as audit entries, with the same detail the SQL gives a plain row.
fn packed_entries(r: &Row<'_>) -> rusqlite::Result<Vec<Keyed>> {
    let agent: String = r.get(6)?;
    let task_id: Option<String> = r.get(7)?;
    let source: Option<String> = r.get(8)?;
    let stored = pack::StoredRow::read(r, 0)?;
    pack::unpack(stored)
        .into_iter()
        .filter(|u| AUDITED_KINDS.contains(&u.kind.as_str()))
        .map(|u| {
            let state = serde_json::from_str::<Value>(&u.json)
                .ok()
                .and_then(|v| v.pointer("/status/state").cloned())
                .unwrap_or(Value::Null);
            Ok(Keyed {
                key: (u.at, 1, u.seq),
                entry: AuditEntry {
                    at: codes::from_micros(3, u.at)?,
                    agent: agent.clone(),
                    direction: Direction::Event,
                    method: u.kind,
                    task_id: task_id.clone(),
                    context_id: None,
                    message_id: None,
                    detail_json: serde_json::json!({
                        "event": u.seq,
                        "source": source,
                        "verdict": u.verdict,
                        "state": state,
                    }),
                },
            })
        })
        .collect()
}

/// The kinds of received events the audit log lists (as in [`AUDIT_LOG`]).
const AUDITED_KINDS: [&str; 4] = [kind::TASK, kind::MESSAGE, kind::STATUS, kind::ARTIFACT];

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
