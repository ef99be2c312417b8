//! Store tests: a round trip per table, durability (WAL, reopen, a writer killed with SIGKILL), the failure
//! modes a user can meet (locked, corrupt, newer schema), exports and audit redaction.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use a2a::{
    Message, Part, Role, StreamResponse, Task, TaskArtifactUpdateEvent, TaskState, TaskStatus,
    TaskStatusUpdateEvent,
};
use chrono::TimeZone;
use serde_json::json;

use super::*;

const SHORT: Duration = Duration::from_millis(150);

fn at(secs: i64) -> DateTime<Utc> {
    Utc.timestamp_opt(1_760_000_000 + secs, 123_456_000)
        .single()
        .unwrap()
}

fn rec(task: &str, secs: i64) -> TaskRecord {
    TaskRecord {
        agent_url: "http://127.0.0.1:9999".into(),
        agent_name: "Demo".into(),
        task_id: task.into(),
        context_id: Some("ctx-1".into()),
        state: "working".into(),
        tab_id: 3,
        snapshot_json: Some(r#"{"id":"t"}"#.into()),
        updated_at: at(secs),
    }
}

fn temp_db() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested").join("console.db");
    (dir, path)
}

fn msg(id: &str, role: Role, text: &str) -> Message {
    Message {
        message_id: id.into(),
        context_id: Some("ctx-1".into()),
        task_id: Some("t1".into()),
        role,
        parts: vec![Part::text(text)],
        metadata: None,
        extensions: None,
        reference_task_ids: None,
    }
}

fn status(state: TaskState, message: Option<Message>) -> TaskStatusUpdateEvent {
    TaskStatusUpdateEvent {
        task_id: "t1".into(),
        context_id: "ctx-1".into(),
        status: TaskStatus {
            state,
            message,
            timestamp: None,
        },
        metadata: None,
    }
}

fn chunk(text: &str, append: bool, last: bool) -> TaskArtifactUpdateEvent {
    crate::testing::chunk_event(("t1", "ctx-1"), ("a1", "report.md"), text, append, last)
}

#[test]
fn store_cards_round_trip() {
    let s = Store::open_in_memory().unwrap();
    assert_eq!(s.load_card("http://a").unwrap(), None);
    s.save_card(
        "http://a",
        "http://a/.well-known/agent-card.json",
        r#"{"name":"A"}"#,
        Some("\"v1\""),
    )
    .unwrap();
    let c = s.load_card("http://a").unwrap().unwrap();
    assert_eq!(c.card_url, "http://a/.well-known/agent-card.json");
    assert_eq!(c.raw_json, r#"{"name":"A"}"#);
    assert_eq!(c.etag.as_deref(), Some("\"v1\""));
    assert!((Utc::now() - c.fetched_at).num_seconds() < 60);
    // A refetch replaces the row, including dropping an ETag the server no longer sends.
    s.save_card(
        "http://a",
        "http://a/.well-known/agent.json",
        r#"{"name":"A2"}"#,
        None,
    )
    .unwrap();
    let c = s.load_card("http://a").unwrap().unwrap();
    assert_eq!((c.raw_json.as_str(), c.etag), (r#"{"name":"A2"}"#, None));
    assert_eq!(c.card_url, "http://a/.well-known/agent.json");
}

#[test]
fn store_tasks_round_trip_newest_first() {
    let s = Store::open_in_memory().unwrap();
    s.upsert_task(&rec("old", 1)).unwrap();
    s.upsert_task(&rec("new", 5)).unwrap();
    let mut mid = rec("mid", 3);
    mid.context_id = None;
    mid.snapshot_json = None;
    mid.tab_id = u64::from(u32::MAX) + 7;
    s.upsert_task(&mid).unwrap();
    let all = s.tasks().unwrap();
    let ids: Vec<&str> = all.iter().map(|t| t.task_id.as_str()).collect();
    assert_eq!(ids, ["new", "mid", "old"]);
    assert_eq!(all[1], mid);
    assert_eq!(all[0], rec("new", 5));

    // Same (agent, task) is one row: the update replaces it and moves it to the top.
    let mut again = rec("old", 9);
    again.state = "completed".into();
    s.upsert_task(&again).unwrap();
    let all = s.tasks().unwrap();
    assert_eq!(all.len(), 3);
    assert_eq!(all[0], again);
    assert_eq!(s.task("http://127.0.0.1:9999", "old").unwrap(), Some(again));
    // Another agent may reuse a task id.
    let mut other = rec("old", 2);
    other.agent_url = "http://other".into();
    s.upsert_task(&other).unwrap();
    assert_eq!(s.tasks().unwrap().len(), 4);
    assert_eq!(s.task("http://nope", "old").unwrap(), None);

    let mut huge = rec("huge", 1);
    huge.tab_id = u64::MAX;
    assert!(matches!(s.upsert_task(&huge), Err(StoreError::Other(_))));
}

#[test]
fn store_events_round_trip_in_arrival_order() {
    let s = Store::open_in_memory().unwrap();
    let a = "http://a";
    let mut seqs = Vec::new();
    for i in 0..50 {
        seqs.push(
            s.append_event(a, "t1", kind::NOTE, &format!(r#"{{"i":{i}}}"#))
                .unwrap(),
        );
        s.append_event(a, "t2", kind::NOTE, "{}").unwrap();
    }
    let evs = s.events(a, "t1").unwrap();
    assert_eq!(evs.len(), 50);
    assert!(seqs.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(evs.iter().map(|e| e.seq).collect::<Vec<_>>(), seqs);
    for (i, e) in evs.iter().enumerate() {
        assert_eq!(e.json, format!(r#"{{"i":{i}}}"#));
        assert_eq!((e.agent_url.as_str(), e.task_id.as_str()), (a, "t1"));
    }
    assert!(s.events(a, "none").unwrap().is_empty());
    // Forgetting a task takes its events with it, and only its own.
    s.upsert_task(&rec("t2", 1)).unwrap();
    let mut t2 = rec("t2", 1);
    t2.agent_url = a.into();
    s.upsert_task(&t2).unwrap();
    assert!(s.delete_task(a, "t2").unwrap());
    assert!(!s.delete_task(a, "t2").unwrap());
    assert!(s.events(a, "t2").unwrap().is_empty());
    assert_eq!(s.events(a, "t1").unwrap().len(), 50);
    assert_eq!(s.tasks().unwrap().len(), 1);
    assert!(s.events("http://b", "t1").unwrap().is_empty());

    // Typed helpers store the StreamResponse member, which decodes back to the same event.
    let ev = StreamResponse::StatusUpdate(status(TaskState::Working, None));
    s.append_stream_event(a, "t3", &ev).unwrap();
    s.append_user_message(a, "t3", &msg("u1", Role::User, "hi"))
        .unwrap();
    let evs = s.events(a, "t3").unwrap();
    assert_eq!(evs[0].kind, kind::STATUS);
    let back: TaskStatusUpdateEvent = serde_json::from_str(&evs[0].json).unwrap();
    assert_eq!(StreamResponse::StatusUpdate(back), ev);
    assert_eq!(evs[1].kind, kind::USER);
}

#[test]
fn store_drafts_round_trip() {
    let s = Store::open_in_memory().unwrap();
    assert_eq!(s.draft("tab-1").unwrap(), None);
    s.save_draft("tab-1", "half a thought\nsecond line")
        .unwrap();
    s.save_draft("tab-2", "other").unwrap();
    assert_eq!(
        s.draft("tab-1").unwrap().as_deref(),
        Some("half a thought\nsecond line")
    );
    s.save_draft("tab-1", "rewritten").unwrap();
    assert_eq!(s.draft("tab-1").unwrap().as_deref(), Some("rewritten"));
    s.save_draft("tab-1", "").unwrap();
    assert_eq!(s.draft("tab-1").unwrap(), None);
    assert_eq!(s.draft("tab-2").unwrap().as_deref(), Some("other"));
}

fn entry(i: i64, direction: Direction, detail: Value) -> AuditEntry {
    AuditEntry {
        at: at(i),
        agent: "http://a".into(),
        direction,
        method: "SendStreamingMessage".into(),
        task_id: Some(format!("t{i}")),
        context_id: Some("ctx".into()),
        message_id: (i % 2 == 0).then(|| format!("m{i}")),
        detail_json: detail,
    }
}

#[test]
fn store_audit_round_trip_redacted_and_exported() {
    let s = Store::open_in_memory().unwrap();
    let dirs = [
        Direction::Request,
        Direction::Response,
        Direction::Event,
        Direction::Decision,
    ];
    for i in 0..10 {
        let detail = json!({
            "n": i,
            "headers": {"Authorization": "Bearer tok-SECRET-1", "X-API-Key": "key-SECRET-2"},
            "url": "https://a.example/rpc?api_key=q-SECRET-3",
            "body": {"params": {"message": {"parts": [{"text": "hello"}]}}},
        });
        s.audit(&entry(i, dirs[i as usize % 4], detail)).unwrap();
    }
    let last = s.audit_entries(3).unwrap();
    assert_eq!(last.len(), 3);
    assert_eq!(
        last.iter()
            .map(|e| e.detail_json["n"].as_i64().unwrap())
            .collect::<Vec<_>>(),
        [7, 8, 9]
    );
    let e = &last[0];
    assert_eq!(e.at, at(7));
    assert_eq!(e.direction, Direction::Decision);
    assert_eq!(e.task_id.as_deref(), Some("t7"));
    assert_eq!(e.message_id, None);
    assert_eq!(last[1].message_id.as_deref(), Some("m8"));
    assert_eq!(
        e.detail_json["body"]["params"]["message"]["parts"][0]["text"],
        "hello"
    );
    assert_eq!(s.audit_entries(100).unwrap().len(), 10);
    assert!(s.audit_entries(0).unwrap().is_empty());

    let mut out = Vec::new();
    assert_eq!(s.export_audit_jsonl(&mut out).unwrap(), 10);
    let text = String::from_utf8(out).unwrap();
    assert!(
        !text.contains("SECRET"),
        "a secret reached the audit log: {text}"
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 10);
    let first: AuditEntry = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(first.direction, Direction::Request);
    assert_eq!(first.detail_json["n"], 0);
    let raw: Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(raw["direction"], "request");
    assert_eq!(raw["taskId"], "t0");

    // Nothing in the file either: redaction happens before the write, not on the way out.
    let stored: Vec<String> = s
        .conn
        .prepare("SELECT detail_json FROM audit")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert!(stored.iter().all(|d| !d.contains("SECRET")));
}

#[test]
fn store_file_is_wal_normal_private_and_versioned() {
    let (_dir, path) = temp_db();
    let s = Store::open(&path).unwrap();
    assert_eq!(s.journal_mode().unwrap(), "wal");
    let sync: i64 = s
        .conn
        .pragma_query_value(None, "synchronous", |r| r.get(0))
        .unwrap();
    assert_eq!(sync, 1, "synchronous should be NORMAL");
    assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
    s.integrity_check().unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let dir_mode = std::fs::metadata(path.parent().unwrap())
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(dir_mode, 0o700);
    }
    assert!(
        Store::default_path()
            .unwrap()
            .ends_with("a2a-console/console.db")
    );
}

#[test]
fn store_reopen_keeps_everything() {
    let (_dir, path) = temp_db();
    {
        let s = Store::open(&path).unwrap();
        s.save_card("http://a", "http://a/card", "{}", Some("e"))
            .unwrap();
        s.upsert_task(&rec("t1", 1)).unwrap();
        s.append_event("http://a", "t1", kind::NOTE, r#"{"text":"x"}"#)
            .unwrap();
        s.save_draft("tab", "draft").unwrap();
        s.audit(&entry(1, Direction::Request, json!({"ok": true})))
            .unwrap();
    }
    // Migrations are idempotent: a second open of a current file changes nothing.
    let s = Store::open(&path).unwrap();
    let s = {
        drop(s);
        Store::open(&path).unwrap()
    };
    assert_eq!(s.schema_version().unwrap(), SCHEMA_VERSION);
    assert_eq!(
        s.load_card("http://a").unwrap().unwrap().etag.as_deref(),
        Some("e")
    );
    assert_eq!(s.tasks().unwrap(), vec![rec("t1", 1)]);
    assert_eq!(s.events("http://a", "t1").unwrap().len(), 1);
    assert_eq!(s.draft("tab").unwrap().as_deref(), Some("draft"));
    assert_eq!(
        s.audit_entries(10).unwrap(),
        vec![entry(1, Direction::Request, json!({"ok": true}))]
    );
}

const KILL_ENV: &str = "A2A_CONSOLE_STORE_KILL_CHILD";
const APPENDED: &str = "STORE-APPENDED";

/// The child half of `store_events_survive_sigkill`: does nothing unless the parent set the variable.
#[test]
fn store_kill_child_writer() {
    let Ok(path) = std::env::var(KILL_ENV) else {
        return;
    };
    let s = Store::open(Path::new(&path)).unwrap();
    s.upsert_task(&rec("t1", 1)).unwrap();
    let mut last = 0;
    for i in 0..3 {
        last = s
            .append_event("http://a", "t1", kind::NOTE, &format!(r#"{{"i":{i}}}"#))
            .unwrap();
    }
    // Straight to the process's stdout (not the test harness's capture), then wait to be killed. The sleep
    // is bounded so a parent that died cannot leave this process behind for long.
    let mut out = std::io::stdout().lock();
    writeln!(out, "{APPENDED} {last}").unwrap();
    out.flush().unwrap();
    std::thread::sleep(Duration::from_secs(30));
}

#[cfg(unix)]
#[test]
fn store_events_survive_sigkill() {
    use std::os::unix::process::ExitStatusExt;

    let (_dir, path) = temp_db();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "store::tests::store_kill_child_writer",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(KILL_ENV, &path)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for l in BufReader::new(stdout).lines().map_while(Result::ok) {
            // The harness may have printed `test … ` on the same line first.
            if let Some((_, seq)) = l.split_once(APPENDED) {
                let _ = tx.send(seq.trim().parse::<i64>().unwrap_or(-1));
                return;
            }
        }
    });
    let seq = rx.recv_timeout(Duration::from_secs(60));
    // SIGKILL, right after the append returned: no destructor, no checkpoint, no clean close.
    child.kill().unwrap();
    let status = child.wait().unwrap();
    let seq = seq.expect("the child never reported its append");
    assert_eq!(status.signal(), Some(9), "the child should die by SIGKILL");
    // The writes are still only in the WAL (nothing checkpointed them into the main file).
    let wal = path.with_file_name("console.db-wal");
    assert!(
        std::fs::metadata(&wal)
            .map(|m| m.len() > 0)
            .unwrap_or(false)
    );

    let s = Store::open(&path).unwrap();
    let evs = s.events("http://a", "t1").unwrap();
    assert_eq!(evs.len(), 3);
    assert_eq!(evs.last().unwrap().seq, seq);
    assert_eq!(evs.last().unwrap().json, r#"{"i":2}"#);
    assert_eq!(s.tasks().unwrap().len(), 1);
}

#[test]
fn store_locked_database_is_an_error_not_a_hang() {
    let (_dir, path) = temp_db();
    let s = Store::open_with_timeout(&path, SHORT).unwrap();
    s.append_event("http://a", "t1", kind::NOTE, "{}").unwrap();

    // Another writer holds the write lock.
    let other = Connection::open(&path).unwrap();
    other
        .execute_batch("BEGIN EXCLUSIVE; INSERT INTO drafts VALUES ('k', 'v', 'now');")
        .unwrap();
    let t0 = Instant::now();
    let err = s
        .append_event("http://a", "t1", kind::NOTE, "{}")
        .unwrap_err();
    assert!(
        t0.elapsed() < Duration::from_secs(5),
        "waited {:?}",
        t0.elapsed()
    );
    assert!(matches!(err, StoreError::Locked(_)), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.contains("in use by another program") && msg.contains("console.db"),
        "{msg}"
    );
    // Readers are not blocked by a writer in WAL mode, so the console can still show history.
    assert_eq!(s.events("http://a", "t1").unwrap().len(), 1);
    other.execute_batch("COMMIT").unwrap();
    s.append_event("http://a", "t1", kind::NOTE, "{}").unwrap();

    // A connection in exclusive locking mode keeps everyone out, even at open. (It can only take that lock
    // while it is alone.)
    drop(s);
    other.busy_timeout(Duration::from_secs(5)).unwrap();
    other
        .execute_batch(
            "PRAGMA locking_mode=EXCLUSIVE; BEGIN EXCLUSIVE; DELETE FROM drafts; COMMIT;",
        )
        .unwrap();
    let t0 = Instant::now();
    let err = Store::open_with_timeout(&path, SHORT).err().unwrap();
    assert!(t0.elapsed() < Duration::from_secs(5));
    assert!(matches!(err, StoreError::Locked(_)), "{err:?}");
    drop(other);
    Store::open_with_timeout(&path, SHORT).unwrap();
}

#[test]
fn store_corrupt_file_is_reported_and_left_alone() {
    let (_dir, path) = temp_db();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    // xorshift: random-looking bytes without a dependency.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let bytes: Vec<u8> = (0..8192)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    std::fs::write(&path, &bytes).unwrap();
    let err = Store::open(&path).err().unwrap();
    assert!(matches!(err, StoreError::Corrupt(_)), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.contains("damaged") && msg.contains("left untouched"),
        "{msg}"
    );
    assert_eq!(
        std::fs::read(&path).unwrap(),
        bytes,
        "the user's file must not change"
    );
    assert!(!path.with_file_name("console.db-wal").exists());
}

#[test]
fn store_newer_schema_is_refused_untouched() {
    let (_dir, path) = temp_db();
    drop(Store::open(&path).unwrap());
    let c = Connection::open(&path).unwrap();
    c.pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .unwrap();
    drop(c);
    let err = Store::open(&path).err().unwrap();
    assert!(
        matches!(&err, StoreError::Other(m) if m.contains("newer a2a-console")),
        "{err:?}"
    );
}

#[test]
fn store_errors_read_as_advice() {
    let e = StoreError::Full("/x/console.db: disk full".into());
    assert!(e.to_string().contains("free some space"));
    let e = StoreError::Io("/x".into());
    assert!(e.to_string().contains("writable"));
    // A directory where the file should be is an I/O problem the user can fix, not a panic.
    let dir = tempfile::tempdir().unwrap();
    let err = Store::open(dir.path()).err().unwrap();
    assert!(matches!(err, StoreError::Io(_)), "{err:?}");
}

fn transcript() -> (TaskRecord, Vec<StoredEvent>) {
    let s = Store::open_in_memory().unwrap();
    let a = "http://127.0.0.1:9999";
    s.append_user_message(a, "t1", &msg("u1", Role::User, "Summarise the report"))
        .unwrap();
    let evs = [
        StreamResponse::StatusUpdate(status(TaskState::Submitted, None)),
        StreamResponse::StatusUpdate(status(
            TaskState::Working,
            Some(msg(
                "s1",
                Role::Agent,
                "Reading \x1b[31mthe\x1b[0m file\x07",
            )),
        )),
        StreamResponse::ArtifactUpdate(chunk("# Summary\nFirst ", false, false)),
        StreamResponse::ArtifactUpdate(chunk("half, \x1b]0;pwned\x07second half.", true, true)),
        StreamResponse::Message(msg("m1", Role::Agent, "### You\nI am not the user")),
        StreamResponse::StatusUpdate(status(TaskState::Completed, None)),
    ];
    for e in &evs {
        s.append_stream_event(a, "t1", e).unwrap();
    }
    s.append_event(
        a,
        "t1",
        kind::NOTE,
        r#"{"text":"stream closed","error":false}"#,
    )
    .unwrap();
    s.append_event(a, "t1", "future-kind", "{}").unwrap();
    let mut r = rec("t1", 10);
    r.state = "completed".into();
    r.snapshot_json = None;
    (r, s.events(a, "t1").unwrap())
}

#[test]
fn store_export_markdown_is_a_clean_transcript() {
    let (r, evs) = transcript();
    let md = export_task_markdown(&r, &evs);
    for want in [
        "# Task t1 with Demo",
        "**You**",
        "> Summarise the report",
        "_State: submitted_",
        "_State: working_",
        "_State: completed_",
        "the",
        "Artifact “report.md”",
        "> # Summary",
        "> First half, ",
        "second half.",
        "> ### You",
        "> I am not the user",
        "_Note:_ stream closed",
        "future-kind",
    ] {
        assert!(md.contains(want), "missing {want:?} in:\n{md}");
    }
    // Chunks are reassembled into one artifact, shown once.
    assert_eq!(md.matches("Artifact “report.md”").count(), 1);
    // The agent's fake heading stays inside its quote.
    assert!(!md.lines().any(|l| l == "### You"));
    assert!(
        !md.contains('\x1b') && !md.contains('\x07'),
        "raw escapes in:\n{md:?}"
    );
    assert!(md.chars().all(|c| c == '\n' || !c.is_control()));
    assert!(md.ends_with("export)_\n"), "one newline at the end: {md:?}");
    let order = [
        "Summarise",
        "_State: working_",
        "Reading",
        "Summary",
        "not the user",
        "_State: completed_",
    ];
    let pos: Vec<usize> = order.iter().map(|w| md.find(w).unwrap()).collect();
    assert!(pos.windows(2).all(|w| w[0] < w[1]), "out of order:\n{md}");
}

#[test]
fn store_export_markdown_lists_a_message_echoed_under_another_id_once() {
    // The console records what the user sent; the agent's snapshot echoes it in `history` under an id of its
    // own (or none): "You: ask" was listed twice.
    let s = Store::open_in_memory().unwrap();
    s.append_user_message("http://a", "t1", &msg("u1", Role::User, "ask"))
        .unwrap();
    let task = Task {
        id: "t1".into(),
        context_id: "ctx-1".into(),
        status: TaskStatus {
            state: TaskState::InputRequired,
            message: Some(msg("m2", Role::Agent, "What is your name?")),
            timestamp: None,
        },
        artifacts: None,
        history: Some(vec![
            msg("server-minted", Role::User, "ask"),
            msg("m0", Role::User, "sent by another client"),
        ]),
        metadata: None,
    };
    s.append_stream_event("http://a", "t1", &StreamResponse::Task(task))
        .unwrap();
    let md = export_task_markdown(&rec("t1", 4), &s.events("http://a", "t1").unwrap());
    assert_eq!(md.matches("> ask\n").count(), 1, "{md}");
    assert_eq!(md.matches("**You**").count(), 2, "{md}");
    assert!(md.contains("> sent by another client"), "{md}");
}

#[test]
fn store_export_markdown_uses_the_snapshot_when_events_are_few() {
    // A blocking reply: only the user's message was an event; the rest is in the task snapshot.
    let s = Store::open_in_memory().unwrap();
    s.append_user_message("http://a", "t1", &msg("u1", Role::User, "ping"))
        .unwrap();
    let task = Task {
        id: "t1".into(),
        context_id: "ctx-1".into(),
        status: TaskStatus {
            state: TaskState::Completed,
            message: None,
            timestamp: None,
        },
        artifacts: Some(vec![chunk("pong", false, true).artifact]),
        history: Some(vec![
            msg("u1", Role::User, "ping"),
            msg("m2", Role::Agent, "pong!"),
        ]),
        metadata: None,
    };
    let mut r = rec("t1", 4);
    r.snapshot_json = Some(serde_json::to_string(&task).unwrap());
    // A name cannot restyle the transcript (here: pass itself off as a link, or as "You" in bold).
    r.agent_name = "[You](https://x)**".into();
    let md = export_task_markdown(&r, &s.events("http://a", "t1").unwrap());
    assert!(md.contains(r"**\[You\](https://x)\*\*** ·"), "{md}");
    assert_eq!(md.matches("> ping").count(), 1, "{md}");
    assert!(
        md.contains("> pong!") && md.contains("> pong\n") && md.contains("_State: completed_"),
        "{md}"
    );
}

#[test]
fn store_export_json_keeps_everything_without_raw_escapes() {
    let (r, evs) = transcript();
    let v = export_task_json(&r, &evs);
    assert_eq!(v["format"], export::JSON_EXPORT_FORMAT);
    assert_eq!(v["task"]["id"], "t1");
    assert_eq!(v["task"]["state"], "completed");
    assert_eq!(v["agent"]["name"], "Demo");
    let events = v["events"].as_array().unwrap();
    assert_eq!(events.len(), evs.len());
    assert_eq!(events[0]["kind"], "user");
    assert_eq!(
        events[0]["data"]["parts"][0]["text"],
        "Summarise the report"
    );
    // The data is faithful (the escape is still there, as data) …
    assert!(
        events[2]["data"]["status"]["message"]["parts"][0]["text"]
            .as_str()
            .unwrap()
            .contains('\x1b')
    );
    // … but the serialised document carries it escaped, never as a raw byte.
    let text = serde_json::to_string_pretty(&v).unwrap();
    assert!(!text.contains('\x1b') && text.contains("\\u001b"));
    let seqs: Vec<i64> = events.iter().map(|e| e["seq"].as_i64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]));
}
