//! Packed event rows (schema 8) through the store's own writer and readers: a flood's batch is stored as a few
//! packs and read back whole, in order, with unique sequence numbers, by every reader (the transcript, the raw
//! JSON lookup, the v1 task events, the audit log and its export, prune).

use std::sync::Arc;

use a2a::{Message, Part, Role, StreamResponse, TaskState, TaskStatus, TaskStatusUpdateEvent};
use chrono::{DateTime, Duration, TimeZone, Utc};

use super::record::{Record, TabRow};
use super::*;

const URL: &str = "http://127.0.0.1:9";

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, 4, 12, 0, 0).unwrap()
}

fn header(tab: &str, task: &str) -> Record {
    Record::Tab(Box::new(TabRow {
        tab: tab.into(),
        agent_key: "|demo||".into(),
        agent_url: URL.into(),
        agent_name: "demo".into(),
        task_id: Some(task.into()),
        context_id: Some("ctx".into()),
        state: "working".into(),
        last_text: None,
        created_at: t0(),
        state_since: t0(),
        updated_at: Utc::now(),
        closed: false,
        gone: false,
        flags: 0,
    }))
}

fn update(task: &str, i: usize) -> StreamResponse {
    let mut m = Message::new(Role::Agent, vec![Part::text(format!("flood {i}"))]);
    m.message_id = format!("m{i}");
    m.task_id = Some(task.into());
    StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
        task_id: task.into(),
        context_id: "ctx".into(),
        status: TaskStatus {
            state: TaskState::Working,
            message: Some(m),
            timestamp: None,
        },
        metadata: None,
    })
}

fn event(tab: &Arc<str>, task: &str, i: usize, verdict: &'static str) -> Record {
    received(tab, task, i, update(task, i), verdict)
}

/// `ev` received on `tab`'s stream for `task`, `i` µs after [`t0`].
fn received(
    tab: &Arc<str>,
    task: &str,
    i: usize,
    ev: StreamResponse,
    verdict: &'static str,
) -> Record {
    Record::Event {
        tab: tab.clone(),
        task_id: Some(task.into()),
        source: "stream#1".into(),
        verdict,
        event: Box::new(ev),
        at: t0() + Duration::microseconds(i as i64),
    }
}

fn write(store: &Store, records: &[Record]) {
    store
        .write_batch(records, &mut WriterCache::default())
        .unwrap();
}

/// The tab's events as stored, after checking that they are `want`, one for one: the same kind and, byte for
/// byte, the JSON the writer encodes for it.
fn read_back(store: &Store, tab: &str, want: &[StreamResponse]) -> Vec<TabEvent> {
    let events = store.tab_events(tab).unwrap();
    assert_eq!(events.len(), want.len());
    for (i, (e, w)) in events.iter().zip(want).enumerate() {
        let (k, json) = super::batch::event_json(w).unwrap();
        assert_eq!(
            (e.kind.as_str(), &e.json),
            (k, &json),
            "event {i} byte for byte"
        );
    }
    events
}

fn note(tab: &str, text: &str, i: usize) -> Record {
    Record::Note {
        tab: tab.into(),
        task_id: Some("t1".into()),
        text: text.into(),
        error: false,
        at: t0() + Duration::microseconds(i as i64),
    }
}

/// An in-memory store holding [`flood_batch`] for tab `tab-1`.
fn flooded() -> (Store, Arc<str>) {
    let store = Store::open_in_memory().unwrap();
    let tab: Arc<str> = "tab-1".into();
    let (records, _) = flood_batch(&tab);
    store
        .write_batch(&records, &mut WriterCache::default())
        .unwrap();
    (store, tab)
}

fn rows_of_kind(store: &Store, kind: &str) -> i64 {
    store
        .conn
        .query_row(
            "SELECT COUNT(*) FROM event_rows WHERE kind = ?1",
            [codes::kind_code(kind)],
            |r| r.get(0),
        )
        .unwrap()
}

/// The text of a stored status update's message.
fn said(json: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    v.pointer("/status/message/parts/0/text")
        .and_then(|t| t.as_str())
        .unwrap_or_default()
        .to_string()
}

/// 150 updates, a note after the 100th, three more: what a flood's batch looks like.
fn flood_batch(tab: &Arc<str>) -> (Vec<Record>, Vec<String>) {
    let mut records = vec![header(tab, "t1")];
    let mut want = Vec::new();
    for i in 0..150 {
        let verdict = if i % 7 == 0 { "duplicate" } else { "applied" };
        records.push(event(tab, "t1", i, verdict));
        want.push(format!("flood {i}"));
        if i == 100 {
            records.push(note(tab, "a note between the updates", i));
            want.push("note".into());
        }
    }
    (records, want)
}

#[test]
fn a_flood_is_packed_and_every_reader_gives_back_each_event_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.db")).unwrap();
    let tab: Arc<str> = "tab-1".into();
    let (records, want) = flood_batch(&tab);
    let mut cache = WriterCache::default();
    store.write_batch(&records, &mut cache).unwrap();
    // 150 events in a handful of rows.
    let packs = rows_of_kind(&store, kind::PACK);
    assert!(packs >= 2, "{packs} packs");
    let rows: i64 = store
        .conn
        .query_row("SELECT COUNT(*) FROM event_rows", [], |r| r.get(0))
        .unwrap();
    assert!(rows < 10, "{rows} rows for 151 transcript entries");

    let events = store.tab_events(&tab).unwrap();
    let got: Vec<String> = events
        .iter()
        .map(|e| {
            if e.kind == kind::NOTE {
                "note".into()
            } else {
                said(&e.json)
            }
        })
        .collect();
    assert_eq!(got, want);
    assert!(events.windows(2).all(|w| w[0].seq < w[1].seq), "seq order");
    for (i, e) in events.iter().filter(|e| e.kind != kind::NOTE).enumerate() {
        assert_eq!(e.kind, kind::STATUS);
        assert_eq!(e.at, t0() + Duration::microseconds(i as i64));
        assert_eq!(e.source.as_deref(), Some("stream#1"));
        assert_eq!(e.task_id, "t1");
        let (_, json) = super::batch::event_json(&update("t1", i)).unwrap();
        assert_eq!(e.json, json, "event {i} byte for byte");
    }
    // Row by row, stopping early, as the transcript loader reads.
    let mut first = Vec::new();
    store
        .for_each_tab_event(&tab, |e| {
            first.push(e.seq);
            first.len() < 70
        })
        .unwrap();
    assert_eq!(
        first,
        events.iter().take(70).map(|e| e.seq).collect::<Vec<_>>()
    );
    // The v1 reader of a task's events.
    let v1 = store.events(URL, "t1").unwrap();
    assert_eq!(
        v1.iter().map(|e| e.seq).collect::<Vec<_>>(),
        events.iter().map(|e| e.seq).collect::<Vec<_>>()
    );
    // The raw JSON viewer finds an event inside a pack by its time.
    let at = store
        .tab_events_at(&tab, &(t0() + Duration::microseconds(42)))
        .unwrap();
    assert_eq!(at.len(), 1);
    assert_eq!(said(&at[0].json), "flood 42");
}

#[test]
fn sequence_numbers_stay_unique_across_packs_plain_rows_and_other_writers() {
    let store = Store::open_in_memory().unwrap();
    let tab: Arc<str> = "tab-1".into();
    let mut cache = WriterCache::default();
    let (records, _) = flood_batch(&tab);
    store.write_batch(&records, &mut cache).unwrap();
    // The v1 path appends with AUTOINCREMENT, after the reserved numbers.
    let v1 = store
        .append_event(URL, "t1", kind::NOTE, r#"{"text":"v1","error":false}"#)
        .unwrap();
    let (more, _) = flood_batch(&tab);
    store.write_batch(&more, &mut cache).unwrap();
    // Two tabs interleaved in one batch: each is packed, each reads back in its own order.
    let other: Arc<str> = "tab-2".into();
    let mut mixed = vec![header(&other, "t2")];
    for i in 0..40 {
        mixed.push(event(&tab, "t1", 1000 + i, "applied"));
        mixed.push(event(&other, "t2", i, "applied"));
    }
    store.write_batch(&mixed, &mut cache).unwrap();

    let seqs: Vec<i64> = store
        .tab_events(&tab)
        .unwrap()
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(seqs.len(), 151 * 2 + 40);
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    let all: Vec<i64> = seqs
        .iter()
        .copied()
        .chain(store.tab_events(&other).unwrap().iter().map(|e| e.seq))
        .chain([v1])
        .collect();
    let unique: std::collections::BTreeSet<i64> = all.iter().copied().collect();
    assert_eq!(unique.len(), all.len(), "a sequence number was given twice");
    let second: Vec<String> = store
        .tab_events(&other)
        .unwrap()
        .iter()
        .map(|e| said(&e.json))
        .collect();
    assert_eq!(
        second,
        (0..40).map(|i| format!("flood {i}")).collect::<Vec<_>>()
    );
}

#[test]
fn a_short_run_stays_plain_rows() {
    let store = Store::open_in_memory().unwrap();
    let tab: Arc<str> = "tab-1".into();
    let mut records = vec![header(&tab, "t1")];
    records.extend((0..pack::PACK_MIN - 1).map(|i| event(&tab, "t1", i, "applied")));
    write(&store, &records);
    assert_eq!(rows_of_kind(&store, kind::PACK), 0);
    assert_eq!(
        rows_of_kind(&store, kind::STATUS),
        pack::PACK_MIN as i64 - 1
    );
    let want: Vec<StreamResponse> = (0..pack::PACK_MIN - 1).map(|i| update("t1", i)).collect();
    read_back(&store, &tab, &want);
}

/// A run broken by an event too large to pack, by another task's events and by a verdict a pack has no code
/// for: every event comes back once, byte for byte, in the order it came, whichever row holds it.
#[test]
fn a_run_broken_by_a_large_event_or_another_task_keeps_every_event_in_order() {
    let store = Store::open_in_memory().unwrap();
    let tab: Arc<str> = "tab-1".into();
    let mut records = vec![header(&tab, "t1")];
    let mut want: Vec<StreamResponse> = Vec::new();
    let mut push = |records: &mut Vec<Record>, task: &str, ev: StreamResponse, verdict| {
        records.push(received(&tab, task, want.len(), ev.clone(), verdict));
        want.push(ev);
    };
    for i in 0..10 {
        push(&mut records, "t1", update("t1", i), "applied");
    }
    let mut big = update("t1", 10);
    if let StreamResponse::StatusUpdate(u) = &mut big {
        u.status.message = Some(Message::new(
            Role::Agent,
            vec![Part::text("x".repeat(pack::PACK_ENTRY_MAX + 1))],
        ));
    }
    push(&mut records, "t1", big, "applied");
    for i in 11..17 {
        push(&mut records, "t1", update("t1", i), "applied");
    }
    for i in 17..27 {
        push(&mut records, "t2", update("t2", i), "stale");
    }
    push(
        &mut records,
        "t2",
        update("t2", 27),
        "a verdict of a newer console",
    );
    for i in 28..30 {
        push(&mut records, "t2", update("t2", i), "applied");
    }
    write(&store, &records);
    // Packs for the runs of 10, 6 and 10; the large event, the odd verdict and the last two stay plain rows.
    assert_eq!(rows_of_kind(&store, kind::PACK), 3);
    assert_eq!(rows_of_kind(&store, kind::STATUS), 4);
    let events = read_back(&store, &tab, &want);
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e.at, t0() + Duration::microseconds(i as i64), "event {i}");
        assert_eq!(e.task_id, if i < 17 { "t1" } else { "t2" }, "event {i}");
    }
    // The verdict without a code is kept as its text.
    let odd: String = store
        .conn
        .query_row(
            "SELECT verdict FROM event_rows WHERE typeof(verdict) = 'text'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(odd, "a verdict of a newer console");
    assert!(events.windows(2).all(|w| w[0].seq < w[1].seq), "seq order");
}

/// A large artifact chunk between two runs: its own plain row (encoded straight into it), the runs around it
/// packs, every event back in order.
#[test]
fn a_large_artifact_chunk_between_runs_is_its_own_row() {
    let store = Store::open_in_memory().unwrap();
    let tab: Arc<str> = "tab-1".into();
    let chunk = StreamResponse::ArtifactUpdate(a2a::TaskArtifactUpdateEvent {
        task_id: "t1".into(),
        context_id: "ctx".into(),
        artifact: a2a::Artifact {
            artifact_id: "a1".into(),
            name: None,
            description: None,
            parts: vec![Part::text("y".repeat(pack::PACK_ENTRY_MAX + 10))],
            metadata: None,
            extensions: None,
        },
        append: None,
        last_chunk: Some(true),
        metadata: None,
    });
    let mut want: Vec<StreamResponse> = (0..5).map(|i| update("t1", i)).collect();
    want.push(chunk);
    want.extend((6..11).map(|i| update("t1", i)));
    let mut records = vec![header(&tab, "t1")];
    records.extend(
        want.iter()
            .enumerate()
            .map(|(i, ev)| received(&tab, "t1", i, ev.clone(), "applied")),
    );
    write(&store, &records);
    assert_eq!(rows_of_kind(&store, kind::PACK), 2);
    assert_eq!(rows_of_kind(&store, kind::ARTIFACT), 1);
    read_back(&store, &tab, &want);
}

#[test]
fn the_audit_log_and_its_export_list_every_packed_event_in_time_order() {
    let store = Store::open_in_memory().unwrap();
    let tab: Arc<str> = "tab-1".into();
    let (records, _) = flood_batch(&tab);
    let mut records = records;
    // A request between the updates, in time.
    records.push(Record::Audit(Box::new(AuditEntry {
        at: t0() + Duration::microseconds(60),
        agent: URL.into(),
        direction: Direction::Request,
        method: "GetTask".into(),
        task_id: Some("t1".into()),
        context_id: None,
        message_id: None,
        detail_json: serde_json::json!({}),
    })));
    store
        .write_batch(&records, &mut WriterCache::default())
        .unwrap();
    let seqs: Vec<i64> = store
        .tab_events(&tab)
        .unwrap()
        .iter()
        .filter(|e| e.kind != kind::NOTE)
        .map(|e| e.seq)
        .collect();
    let check = |entries: &[AuditEntry]| {
        let events: Vec<&AuditEntry> = entries
            .iter()
            .filter(|e| e.direction == Direction::Event)
            .collect();
        assert_eq!(events.len(), 150);
        for (i, e) in events.iter().enumerate() {
            assert_eq!(e.method, kind::STATUS);
            assert_eq!(e.detail_json["event"], seqs[i]);
            assert_eq!(e.detail_json["source"], "stream#1");
            let verdict = if i % 7 == 0 { "duplicate" } else { "applied" };
            assert_eq!(e.detail_json["verdict"], verdict);
            assert_eq!(e.detail_json["state"], "TASK_STATE_WORKING");
            assert_eq!(e.task_id.as_deref(), Some("t1"));
        }
        assert!(entries.windows(2).all(|w| w[0].at <= w[1].at), "time order");
        let request = entries.iter().position(|e| e.method == "GetTask").unwrap();
        assert_eq!(entries[request - 1].detail_json["event"], seqs[59]);
        assert_eq!(entries[request + 1].detail_json["event"], seqs[60]);
    };
    let all = store.audit_entries(1000).unwrap();
    assert_eq!(all.len(), 151);
    check(&all);
    let mut out = Vec::new();
    assert_eq!(store.export_audit_jsonl(&mut out).unwrap(), 151);
    let exported: Vec<AuditEntry> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    check(&exported);
    assert_eq!(exported, all);
    // The last few are the newest, packed or not, wherever the cut falls among the packs.
    for n in [0, 1, 5, 64, 90, 150, 151] {
        let last = store.audit_entries(n).unwrap();
        assert_eq!(last, all[all.len() - n..].to_vec(), "last {n}");
    }
}

#[test]
fn forgetting_a_tab_counts_its_events_not_its_rows() {
    let (store, tab) = flooded();
    assert_eq!(store.delete_tab(&tab).unwrap(), 151);
    assert!(store.tab_events(&tab).unwrap().is_empty());
}

#[test]
fn a_damaged_pack_reads_as_a_note_saying_how_many_events_are_missing() {
    let (store, tab) = flooded();
    store
        .conn
        .execute(
            "UPDATE event_rows SET json = X'0000FF7F0102' WHERE id = (SELECT MIN(id) FROM event_rows WHERE kind = ?1)",
            [codes::kind_code(kind::PACK)],
        )
        .unwrap();
    let events = store.tab_events(&tab).unwrap();
    let notes: Vec<&TabEvent> = events.iter().filter(|e| e.kind == kind::NOTE).collect();
    assert!(
        notes
            .iter()
            .any(|n| n.json.contains("64 received events could not be read back")),
        "{notes:?}"
    );
    assert_eq!(events.len(), 151 - 64 + 1);
}
