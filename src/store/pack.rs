//! Packed event rows (schema 8): a run of events of one tab and one (agent, task, source) triple, received in
//! one batch, stored as one `event_rows` row whose `json` column is an LZ4 block of the events. A flood writes
//! thousands of small events a second; one row each made the writer's B-tree inserts, its WAL pages and their
//! checkpoint cost more CPU than the console spends showing them (`cargo bench --bench flood`). A pack of 64
//! costs one insert, and the events' JSON, which repeats the task and context ids in every event, shrinks
//! about tenfold.
//!
//! A pack keeps everything a plain row keeps: each event's kind, verdict, time and JSON, in order. Its row id
//! is the sequence number of its last event; the ones before it take the numbers just below, which the writer
//! reserves, so sequence numbers stay unique and in arrival order across plain rows and packs. `at` is the
//! earliest event's time, `at_last` the latest, `n` the count. Only events go into packs: the user's messages
//! and the console's notes stay plain rows, and so does an event too large to be worth packing.

use rusqlite::types::ValueRef;

use super::{codes, kind};

/// Fewer events than this in a run are written as plain rows (an interactive stream's batches hold one or
/// two; packing them would only cost a decompression on every read).
pub(super) const PACK_MIN: usize = 4;
/// Most events in one pack: a read of one event (the raw JSON viewer) decompresses at most this many.
pub(super) const PACK_MAX: usize = 64;
/// An event whose JSON is larger than this stays a plain row (a big artifact chunk gains little from a pack
/// and would make every read of its neighbours decompress it).
pub(super) const PACK_ENTRY_MAX: usize = 64 * 1024;
/// Most bytes of JSON in one pack before compression.
pub(super) const PACK_BYTES: usize = 256 * 1024;
/// The most a pack may say it holds uncompressed: more means the row is damaged (this refuses to allocate
/// what a corrupt length asks for).
const PACK_DECODED_MAX: usize = PACK_BYTES + PACK_MAX * (PACK_ENTRY_MAX + 32);

/// One event inside a pack, as the writer hands it over and a reader gets it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Packed {
    /// The kind's code ([`codes::kind_index`]).
    pub kind: u8,
    /// The verdict's code ([`codes::verdict_index`]).
    pub verdict: u8,
    /// Microseconds since the epoch.
    pub at: i64,
    pub json: String,
}

/// Bytes before an event's JSON in a pack: kind (1 byte), verdict (1), time (8, little-endian), JSON length
/// (4, little-endian).
pub(super) const HEADER: usize = 14;

/// Start an event in a pack's body: its header, with the JSON's length left to [`end_entry`]. Returns where
/// the entry starts. The writer encodes the event's JSON straight after it: no string per event.
pub(super) fn begin_entry(body: &mut Vec<u8>, kind: u8, verdict: u8, at: i64) -> usize {
    let start = body.len();
    body.push(kind);
    body.push(verdict);
    body.extend_from_slice(&at.to_le_bytes());
    body.extend_from_slice(&[0; 4]);
    start
}

/// The length of the JSON written after the entry's header at `start`.
pub(super) fn entry_len(body: &[u8], start: usize) -> usize {
    body.len().saturating_sub(start + HEADER)
}

/// Finish the entry at `start` (its JSON is everything after its header). The writer packs only events under
/// [`PACK_ENTRY_MAX`], so the length fits.
pub(super) fn end_entry(body: &mut [u8], start: usize) {
    let len = u32::try_from(entry_len(body, start)).unwrap_or(u32::MAX);
    if let Some(field) = body.get_mut(start + HEADER - 4..start + HEADER) {
        field.copy_from_slice(&len.to_le_bytes());
    }
}

/// Compresses pack bodies into one buffer and one LZ4 table kept from pack to pack: a flood seals one pack
/// per 64 events, and a fresh table and output for each cost as much as the compression.
#[derive(Default)]
pub(super) struct Sealer {
    table: lz4_flex::block::CompressTable,
    out: Vec<u8>,
}

impl Sealer {
    /// The stored form of a body: its length (4 bytes, little-endian), then its LZ4 block — what
    /// `lz4_flex::compress_prepend_size` makes, which [`decode`] reads.
    pub(super) fn seal(&mut self, body: &[u8]) -> &[u8] {
        let Ok(len) = u32::try_from(body.len()) else {
            // Never for a pack (PACK_DECODED_MAX); written anyway, and refused as damaged when read.
            self.out = lz4_flex::compress_prepend_size(body);
            return &self.out;
        };
        self.out.clear();
        self.out.extend_from_slice(&len.to_le_bytes());
        self.out
            .resize(4 + lz4_flex::block::get_maximum_output_size(body.len()), 0);
        let written = self
            .out
            .get_mut(4..)
            .map(|o| lz4_flex::block::compress_into_with_table(body, o, &mut self.table));
        match written {
            Some(Ok(n)) => self.out.truncate(4 + n),
            // The output is sized for the worst case, so this does not happen; the allocating path is right.
            _ => self.out = lz4_flex::compress_prepend_size(body),
        }
        &self.out
    }
}

/// A pack's body: each event as [`begin_entry`] lays it out (what the writer builds event by event).
#[cfg(test)]
pub(super) fn body_of(events: &[Packed]) -> Vec<u8> {
    let mut body = Vec::new();
    for e in events {
        let start = begin_entry(&mut body, e.kind, e.verdict, e.at);
        body.extend_from_slice(e.json.as_bytes());
        end_entry(&mut body, start);
    }
    body
}

/// A pack as stored.
#[cfg(test)]
pub(super) fn encode(events: &[Packed]) -> Vec<u8> {
    Sealer::default().seal(&body_of(events)).to_vec()
}

/// The events of a pack, in order; an error says what is wrong with a damaged one.
pub(super) fn decode(blob: &[u8]) -> Result<Vec<Packed>, String> {
    let declared = blob
        .get(..4)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map(u32::from_le_bytes)
        .ok_or("the pack is shorter than its header")?;
    if usize::try_from(declared).map_or(true, |d| d > PACK_DECODED_MAX) {
        return Err(format!("the pack says it holds {declared} bytes"));
    }
    let raw = lz4_flex::decompress_size_prepended(blob).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    let mut rest = raw.as_slice();
    while !rest.is_empty() {
        let (head, body) = rest
            .split_at_checked(HEADER)
            .ok_or("an event's header is cut short")?;
        let [
            kind,
            verdict,
            t0,
            t1,
            t2,
            t3,
            t4,
            t5,
            t6,
            t7,
            l0,
            l1,
            l2,
            l3,
        ] = <[u8; HEADER]>::try_from(head).map_err(|e| e.to_string())?;
        let len =
            usize::try_from(u32::from_le_bytes([l0, l1, l2, l3])).map_err(|e| e.to_string())?;
        let (json, after) = body
            .split_at_checked(len)
            .ok_or("an event's JSON is cut short")?;
        out.push(Packed {
            kind,
            verdict,
            at: i64::from_le_bytes([t0, t1, t2, t3, t4, t5, t6, t7]),
            json: String::from_utf8(json.to_vec()).map_err(|e| e.to_string())?,
        });
        rest = after;
    }
    Ok(out)
}

/// The sequence number of a pack's `i`-th event: the row's id is the last one's.
pub(super) fn seq_of(row_id: i64, n: usize, i: usize) -> i64 {
    let back = i64::try_from(n.saturating_sub(1).saturating_sub(i)).unwrap_or(0);
    row_id - back
}

/// What a reader shows for a pack that cannot be read back: one note in its place, saying how many events of
/// the transcript are missing and why (a damaged file is the user's to know about, not to be hidden).
pub(super) fn unreadable_note(n: usize, why: &str) -> (String, String) {
    let text =
        format!("{n} received events could not be read back from the console's database ({why})");
    (
        kind::NOTE.to_string(),
        serde_json::json!({ "text": text, "error": true }).to_string(),
    )
}

/// One transcript row as read back: a plain row's event, or one of a pack's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Unpacked {
    pub seq: i64,
    pub kind: String,
    pub verdict: Option<String>,
    /// Microseconds since the epoch.
    pub at: i64,
    pub json: String,
}

/// The stored columns of one `event_rows` row.
pub(super) struct StoredRow<'a> {
    pub id: i64,
    pub kind: ValueRef<'a>,
    pub verdict: ValueRef<'a>,
    pub at: i64,
    pub json: ValueRef<'a>,
    /// A pack's count (`None` for a plain row).
    pub n: Option<i64>,
}

impl<'a> StoredRow<'a> {
    /// The columns `id, kind, verdict, at, json, n` of a row, in that order from column `first`.
    pub fn read(r: &'a rusqlite::Row<'_>, first: usize) -> rusqlite::Result<Self> {
        Ok(StoredRow {
            id: r.get(first)?,
            kind: r.get_ref(first + 1)?,
            verdict: r.get_ref(first + 2)?,
            at: r.get(first + 3)?,
            json: r.get_ref(first + 4)?,
            n: r.get(first + 5)?,
        })
    }
}

/// The events a row holds, in order: one for a plain row, a pack's all; a pack that cannot be read gives one
/// note saying so in its place.
pub(super) fn unpack(row: StoredRow<'_>) -> Vec<Unpacked> {
    if !is_pack(row.kind) {
        let json = match row.json {
            ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8_lossy(t).into_owned(),
            _ => String::new(),
        };
        return vec![Unpacked {
            seq: row.id,
            kind: codes::kind_name(row.kind),
            verdict: codes::verdict_name(row.verdict),
            at: row.at,
            json,
        }];
    }
    let decoded = match row.json {
        ValueRef::Blob(b) => decode(b),
        _ => Err("the pack is not a blob".to_string()),
    };
    match decoded {
        Ok(events) => {
            let n = events.len();
            events
                .into_iter()
                .enumerate()
                .map(|(i, p)| Unpacked {
                    seq: seq_of(row.id, n, i),
                    kind: codes::kind_of_index(p.kind),
                    verdict: codes::verdict_of_index(p.verdict),
                    at: p.at,
                    json: p.json,
                })
                .collect()
        }
        Err(why) => {
            tracing::warn!("stored pack {} cannot be read: {why}", row.id);
            let n = row.n.and_then(|n| usize::try_from(n).ok()).unwrap_or(0);
            let (kind, json) = unreadable_note(n, &why);
            vec![Unpacked {
                seq: row.id,
                kind,
                verdict: None,
                at: row.at,
                json,
            }]
        }
    }
}

/// Whether a stored kind is a pack's.
pub(super) fn is_pack(kind: ValueRef<'_>) -> bool {
    codes::kind_name(kind) == kind::PACK
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(i: i64) -> Packed {
        Packed {
            kind: 3,
            verdict: (i % 4) as u8,
            at: 1_764_000_000_000_000 + i,
            json: format!(
                r#"{{"taskId":"t","status":{{"state":"TASK_STATE_WORKING"}},"n":{i},"é":"ü"}}"#
            ),
        }
    }

    #[test]
    fn a_pack_gives_back_every_event_in_order_and_is_smaller() {
        let events: Vec<Packed> = (0..64).map(ev).collect();
        let blob = encode(&events);
        assert_eq!(decode(&blob).unwrap(), events);
        let raw: usize = events.iter().map(|e| e.json.len()).sum();
        assert!(blob.len() * 3 < raw, "{} vs {raw}", blob.len());
        assert_eq!(decode(&encode(&[])).unwrap(), vec![]);
    }

    #[test]
    fn a_damaged_pack_is_an_error_never_a_panic_or_a_huge_allocation() {
        let blob = encode(&(0..8).map(ev).collect::<Vec<_>>());
        for cut in 0..blob.len() {
            let _ = decode(&blob[..cut]);
        }
        let mut huge = blob.clone();
        huge[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decode(&huge).unwrap_err().contains("says it holds"));
        let mut flipped = blob.clone();
        for b in flipped.iter_mut().skip(4) {
            *b ^= 0x5a;
        }
        assert!(decode(&flipped).is_err());
        assert!(decode(b"").is_err());
    }

    /// One sealer for pack after pack (its table reused, grown for a large body, then used for small ones
    /// again) gives back each body whole; until its table grows it writes exactly what a fresh compressor
    /// writes.
    #[test]
    fn a_reused_sealer_seals_each_body_so_that_it_reads_back_whole() {
        let mut sealer = Sealer::default();
        let large: Vec<u8> = (0..100_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        let bodies = [
            ev(1).json.into_bytes(),
            body_of(&(0..64).map(ev).collect::<Vec<_>>()),
            Vec::new(),
            large,
            body_of(&(5..9).map(ev).collect::<Vec<_>>()),
            ev(2).json.into_bytes(),
        ];
        for (i, body) in bodies.iter().enumerate() {
            let sealed = sealer.seal(body).to_vec();
            if i < 3 {
                assert_eq!(sealed, lz4_flex::compress_prepend_size(body), "body {i}");
            }
            assert_eq!(
                lz4_flex::decompress_size_prepended(&sealed).unwrap(),
                *body,
                "body {i}"
            );
        }
        let events: Vec<Packed> = (0..64).map(ev).collect();
        assert_eq!(decode(sealer.seal(&body_of(&events))).unwrap(), events);
    }

    #[test]
    fn sequence_numbers_end_at_the_row_id() {
        assert_eq!(
            (0..4).map(|i| seq_of(100, 4, i)).collect::<Vec<_>>(),
            vec![97, 98, 99, 100]
        );
    }
}
