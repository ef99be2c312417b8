//! A tab's run of received events on its way to a packed row (the writer's half of [`super::pack`]): each
//! event's JSON encoded straight into the pack's body, the run sealed into one row when it is long enough,
//! given back as plain rows when it is not, its buffers kept for the next run.

use rusqlite::{Transaction, params};

use super::batch::{EventRow, EventRows, WriterCache, event_json};
use super::pack::{self, PACK_BYTES, PACK_ENTRY_MAX, PACK_MAX, PACK_MIN};
use super::{Store, StoreError, codes, kind};

/// A tab's run of events not written yet: same tab, same triple, each small enough to pack. The events are
/// encoded straight into the pack's body; `entries` says where each starts, so that a run too short to pack
/// still gives its plain rows back.
pub(super) struct Run {
    pub(super) tab: i64,
    refno: i64,
    buf: RunBuf,
}

/// A run's buffers, reused from run to run (see [`WriterCache`]).
#[derive(Default)]
pub(super) struct RunBuf {
    body: Vec<u8>,
    entries: Vec<Entry>,
}

/// One event of a run: what its plain row would hold besides the JSON, and where it starts in the body.
struct Entry {
    kind: &'static str,
    verdict: &'static str,
    at: i64,
    start: usize,
}

/// Run buffers kept for the next batches: a handful of tabs stream at once.
const SPARE_RUNS: usize = 8;
/// A buffer grown past this (a run of large events) is not kept.
const SPARE_BYTES: usize = PACK_BYTES + 2 * PACK_ENTRY_MAX;

/// An event's kind, and whether a pack has codes for it and its verdict.
fn pack_codes(kind: &'static str, verdict: &'static str) -> Option<(u8, u8)> {
    codes::kind_index(kind).zip(codes::verdict_index(verdict))
}

/// An artifact chunk whose parts alone are over [`PACK_ENTRY_MAX`]: encoded as its own row at once, rather
/// than into the run's body and then copied out of it (a chunk can be megabytes).
fn surely_too_large(event: &a2a::StreamResponse) -> bool {
    let a2a::StreamResponse::ArtifactUpdate(u) = event else {
        return false;
    };
    let bytes: usize = u
        .artifact
        .parts
        .iter()
        .map(|p| match &p.content {
            a2a::PartContent::Text(t) => t.len(),
            a2a::PartContent::Raw(r) => r.len(),
            a2a::PartContent::Url(u) => u.len(),
            a2a::PartContent::Data(_) => 0,
        })
        .sum();
    bytes > PACK_ENTRY_MAX
}

/// A received event on its way to a row, with its tab's and triple's numbers.
pub(super) struct Incoming<'a> {
    pub(super) tab: i64,
    pub(super) refno: i64,
    pub(super) event: &'a a2a::StreamResponse,
    pub(super) verdict: &'static str,
    pub(super) at: i64,
}

impl Incoming<'_> {
    /// This event as a plain row.
    fn row(&self, kind: &'static str, json: String) -> EventRow {
        EventRow {
            tab: self.tab,
            refno: self.refno,
            kind,
            verdict: Some(self.verdict),
            at: self.at,
            json,
        }
    }
}

/// JSON the writer encoded, as text (serde_json writes UTF-8; this only turns a broken promise into an error).
pub(super) fn utf8(json: Vec<u8>) -> Result<String, StoreError> {
    String::from_utf8(json)
        .map_err(|e| StoreError::Other(format!("an event's JSON is not UTF-8: {e}")))
}

const INSERT_PACK: &str =
    "INSERT INTO event_rows (id, tab, ref, kind, verdict, at, json, at_last, n)
     VALUES (?1, ?2, ?3, ?4, NULL, ?5, ?6, ?7, ?8)";

/// An event's kind: the `StreamResponse` member it holds.
pub(super) fn event_kind(event: &a2a::StreamResponse) -> &'static str {
    use a2a::StreamResponse as S;
    match event {
        S::Task(_) => kind::TASK,
        S::Message(_) => kind::MESSAGE,
        S::StatusUpdate(_) => kind::STATUS,
        S::ArtifactUpdate(_) => kind::ARTIFACT,
    }
}

impl Store {
    /// Add a received event after everything of its tab so far: encoded straight into its tab's run when a
    /// pack can hold it, else as a plain row once the tab's run is written.
    pub(super) fn add_event(
        &self,
        tx: &Transaction<'_>,
        rows: &mut EventRows,
        runs: &mut Vec<Run>,
        cache: &mut WriterCache,
        ev: Incoming<'_>,
    ) -> Result<(), StoreError> {
        let kind = event_kind(ev.event);
        let codes = pack_codes(kind, ev.verdict).filter(|_| !surely_too_large(ev.event));
        // The tab's run ends here when this event cannot join it.
        self.end_run_where(tx, rows, runs, cache, |r| {
            r.tab == ev.tab && (codes.is_none() || r.refno != ev.refno)
        })?;
        let Some((k, v)) = codes else {
            let (_, json) = event_json(ev.event)?;
            return self.push_plain(tx, rows, ev.row(kind, json));
        };
        let i = match runs.iter().position(|r| r.tab == ev.tab) {
            Some(i) => i,
            None => {
                runs.push(Run {
                    tab: ev.tab,
                    refno: ev.refno,
                    buf: cache.spare.pop().unwrap_or_default(),
                });
                runs.len() - 1
            }
        };
        let Some(run) = runs.get_mut(i) else {
            return Err(StoreError::Other("a run went missing".into()));
        };
        let body = &mut run.buf.body;
        let start = pack::begin_entry(body, k, v, ev.at);
        if let Err(e) = crate::task::quick_json::write_member(ev.event, body) {
            body.truncate(start);
            return Err(StoreError::Other(format!(
                "cannot encode a {kind} event: {e}"
            )));
        }
        if pack::entry_len(body, start) > PACK_ENTRY_MAX {
            // Too large to be worth packing: the run so far, then this event as a plain row.
            let json = body.split_off(start + pack::HEADER);
            body.truncate(start);
            let json = utf8(json)?;
            self.end_run_where(tx, rows, runs, cache, |r| r.tab == ev.tab)?;
            return self.push_plain(tx, rows, ev.row(kind, json));
        }
        pack::end_entry(body, start);
        run.buf.entries.push(Entry {
            kind,
            verdict: ev.verdict,
            at: ev.at,
            start,
        });
        if run.buf.entries.len() >= PACK_MAX || run.buf.body.len() >= PACK_BYTES {
            self.end_run_where(tx, rows, runs, cache, |r| r.tab == ev.tab)?;
        }
        Ok(())
    }

    /// Write the run `ends` picks, if there is one (a batch holds at most one run per tab).
    pub(super) fn end_run_where(
        &self,
        tx: &Transaction<'_>,
        rows: &mut EventRows,
        runs: &mut Vec<Run>,
        cache: &mut WriterCache,
        ends: impl Fn(&Run) -> bool,
    ) -> Result<(), StoreError> {
        match runs.iter().position(ends) {
            Some(i) => {
                let run = runs.swap_remove(i);
                self.end_run(tx, rows, run, cache)
            }
            None => Ok(()),
        }
    }

    /// Write a tab's run: one packed row when it is long enough, else its rows as plain ones. Plain rows
    /// waiting go in first, so sequence numbers keep the order the records came in. The run's buffers go back
    /// to the cache for the next run.
    pub(super) fn end_run(
        &self,
        tx: &Transaction<'_>,
        rows: &mut EventRows,
        run: Run,
        cache: &mut WriterCache,
    ) -> Result<(), StoreError> {
        let written = if run.buf.entries.len() < PACK_MIN {
            self.write_unpacked(tx, rows, &run)
        } else {
            self.insert_pack(tx, rows, &run, &mut cache.sealer)
        };
        let mut buf = run.buf;
        buf.body.clear();
        buf.entries.clear();
        if cache.spare.len() < SPARE_RUNS && buf.body.capacity() <= SPARE_BYTES {
            cache.spare.push(buf);
        }
        written
    }

    /// A run too short to pack, as plain rows.
    fn write_unpacked(
        &self,
        tx: &Transaction<'_>,
        rows: &mut EventRows,
        run: &Run,
    ) -> Result<(), StoreError> {
        let buf = &run.buf;
        for (i, e) in buf.entries.iter().enumerate() {
            let end = buf
                .entries
                .get(i + 1)
                .map_or(buf.body.len(), |next| next.start);
            let json = buf
                .body
                .get(e.start + pack::HEADER..end)
                .unwrap_or_default();
            let row = EventRow {
                tab: run.tab,
                refno: run.refno,
                kind: e.kind,
                verdict: Some(e.verdict),
                at: e.at,
                json: utf8(json.to_vec())?,
            };
            self.push_plain(tx, rows, row)?;
        }
        Ok(())
    }

    /// A run as one packed row.
    fn insert_pack(
        &self,
        tx: &Transaction<'_>,
        rows: &mut EventRows,
        run: &Run,
        sealer: &mut pack::Sealer,
    ) -> Result<(), StoreError> {
        self.insert_events(tx, rows)?;
        let buf = &run.buf;
        let (first, last) = buf
            .entries
            .iter()
            .fold((i64::MAX, i64::MIN), |(lo, hi), e| {
                (lo.min(e.at), hi.max(e.at))
            });
        let blob = sealer.seal(&buf.body);
        // The pack's id is its last event's sequence number; the numbers below it are its other events'
        // (AUTOINCREMENT carries on after the largest id inserted, so no later row takes one of them).
        let last_seq: i64 = tx
            .prepare_cached(
                "SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'event_rows'), 0),
                            COALESCE((SELECT MAX(id) FROM event_rows), 0))",
            )
            .and_then(|mut s| s.query_row([], |r| r.get(0)))
            .map_err(|e| self.err(e))?;
        let count = i64::try_from(buf.entries.len()).unwrap_or(i64::MAX);
        rows.written += blob.len();
        tx.prepare_cached(INSERT_PACK)
            .and_then(|mut s| {
                s.execute(params![
                    last_seq + count,
                    run.tab,
                    run.refno,
                    codes::kind_code(kind::PACK),
                    first,
                    blob,
                    last,
                    count
                ])
            })
            .map_err(|e| self.err(e))?;
        Ok(())
    }
}
