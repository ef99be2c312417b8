//! The gate's rules, one scenario each, in the words of what a user would see go wrong without them.

use a2a::*;
use chrono::{TimeZone, Utc};

use super::*;
use crate::testing::chunk;

fn at(sec: i64) -> Option<chrono::DateTime<Utc>> {
    Utc.timestamp_opt(1_700_000_000 + sec, 0).single()
}

fn status(state: TaskState, text: Option<&str>, sec: i64) -> StreamResponse {
    StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
        task_id: "t".into(),
        context_id: "ctx".into(),
        status: TaskStatus {
            state,
            message: text.map(|t| {
                let mut m = Message::new(Role::Agent, vec![Part::text(t)]);
                m.message_id = format!("m-{t}");
                m
            }),
            timestamp: at(sec),
        },
        metadata: None,
    })
}

fn task(state: TaskState, parts: &[&str], text: Option<&str>, sec: i64) -> StreamResponse {
    let artifacts = (!parts.is_empty()).then(|| {
        vec![Artifact {
            artifact_id: "a".into(),
            name: Some("story".into()),
            description: None,
            parts: parts.iter().map(|p| Part::text(*p)).collect(),
            metadata: None,
            extensions: None,
        }]
    });
    let StreamResponse::StatusUpdate(u) = status(state, text, sec) else {
        unreachable!()
    };
    StreamResponse::Task(Task {
        id: "t".into(),
        context_id: "ctx".into(),
        status: u.status,
        artifacts,
        history: None,
        metadata: None,
    })
}

fn text_of(log: &TaskLog) -> String {
    log.artifacts[0]
        .artifact
        .parts
        .iter()
        .filter_map(Part::as_text)
        .collect()
}

fn applied(v: &Verdict) -> bool {
    matches!(v, Verdict::Applied { .. })
}

#[test]
fn the_same_chunks_from_stream_and_push_are_placed_once() {
    let mut log = TaskLog::default();
    let s = Source::Stream(1);
    for (i, word) in ["one ", "two ", "three"].iter().enumerate() {
        let last = i == 2;
        assert!(applied(&log.judge(s, &chunk("t", "a", word, i > 0, last))));
        // The push receiver delivers the very same chunk a moment later.
        assert_eq!(
            log.judge(Source::Push, &chunk("t", "a", word, i > 0, last)),
            Verdict::Duplicate
        );
    }
    assert_eq!(text_of(&log), "one two three");
    assert!(log.artifacts[0].complete());
}

#[test]
fn late_pushes_after_a_resubscribe_snapshot_do_not_append_on_top() {
    // The stream breaks after two chunks; pushes lag; the re-attach snapshot holds four parts; then the
    // lagging pushes for parts 3 and 4 arrive, then the new stream continues with part 5.
    let mut log = TaskLog::default();
    log.judge(Source::Stream(1), &chunk("t", "a", "1", false, false));
    log.judge(Source::Stream(1), &chunk("t", "a", "2", true, false));
    log.judge(Source::Push, &chunk("t", "a", "1", false, false));
    let v = log.judge(
        Source::Stream(2),
        &task(TaskState::Working, &["1", "2", "3", "4"], None, 1),
    );
    assert!(applied(&v), "{v:?}");
    for p in ["2", "3", "4"] {
        assert_eq!(
            log.judge(Source::Push, &chunk("t", "a", p, true, false)),
            Verdict::Duplicate,
            "push of part {p}"
        );
    }
    assert!(applied(
        &log.judge(Source::Stream(2), &chunk("t", "a", "5", true, true))
    ));
    assert_eq!(
        log.judge(Source::Push, &chunk("t", "a", "5", true, true)),
        Verdict::Duplicate
    );
    assert_eq!(text_of(&log), "12345");
    assert!(log.artifacts[0].complete());
}

#[test]
fn an_artifact_with_a_skipped_chunk_is_never_complete_until_a_snapshot_heals_it() {
    let mut log = TaskLog::default();
    // A stream re-opened without a snapshot (no offsets known) whose first chunk is not what we hold.
    log.judge(Source::Stream(1), &chunk("t", "a", "1", false, false));
    log.judge(Source::Stream(2), &chunk("t", "a", "3", true, true));
    assert!(log.artifacts[0].last_chunk);
    assert!(!log.artifacts[0].complete(), "a chunk may be missing");
    let v = log.judge(
        Source::Refresh,
        &task(TaskState::Completed, &["1", "2", "3"], None, 5),
    );
    assert!(applied(&v));
    assert_eq!(text_of(&log), "123");
    assert!(log.artifacts[0].complete());
}

#[test]
fn a_push_after_completion_is_stale_not_an_anomaly_and_does_not_roll_back() {
    let mut log = TaskLog::default();
    log.judge(Source::Stream(1), &status(TaskState::Working, None, 1));
    log.judge(
        Source::Stream(1),
        &status(TaskState::InputRequired, Some("name?"), 2),
    );
    log.judge(Source::Stream(1), &status(TaskState::Working, None, 3));
    log.judge(
        Source::Stream(1),
        &status(TaskState::Completed, Some("done"), 4),
    );
    // The push receiver delivers the same updates late, one of them never seen on the stream.
    for ev in [
        status(TaskState::InputRequired, Some("name?"), 2),
        status(TaskState::Working, Some("thinking"), 3),
        status(TaskState::Completed, Some("done"), 4),
    ] {
        let v = log.judge(Source::Push, &ev);
        assert!(matches!(v, Verdict::Duplicate | Verdict::Stale(_)), "{v:?}");
    }
    assert_eq!(log.state, TaskState::Completed);
}

#[test]
fn the_same_stream_talking_after_terminal_is_illegal() {
    let mut log = TaskLog::default();
    log.judge(Source::Stream(1), &status(TaskState::Completed, None, 1));
    let v = log.judge(
        Source::Stream(1),
        &status(TaskState::Working, Some("one more thing…"), 2),
    );
    assert!(matches!(v, Verdict::Illegal(ref why) if why.contains("already completed")));
    assert_eq!(log.state, TaskState::Completed);
    // The same terminal state again is only a duplicate.
    assert_eq!(
        log.judge(Source::Stream(1), &status(TaskState::Completed, None, 3)),
        Verdict::Duplicate
    );
}

#[test]
fn repeated_polls_that_change_nothing_are_duplicates() {
    let mut log = TaskLog::default();
    let first = log.judge(
        Source::Poll,
        &task(TaskState::Working, &[], Some("working on it"), 1),
    );
    assert!(matches!(
        first,
        Verdict::Applied {
            change: Change::Snapshot {
                new_message: true,
                ..
            },
            ..
        }
    ));
    for _ in 0..10 {
        assert_eq!(
            log.judge(
                Source::Poll,
                &task(TaskState::Working, &[], Some("working on it"), 1)
            ),
            Verdict::Duplicate
        );
    }
    // A poll with news is applied, and only the news is new.
    let v = log.judge(
        Source::Poll,
        &task(TaskState::Completed, &["result"], Some("done"), 2),
    );
    assert!(matches!(
        v,
        Verdict::Applied {
            change: Change::Snapshot {
                state_changed: true,
                new_message: true,
                ..
            },
            ..
        }
    ));
}

#[test]
fn an_older_status_is_stale() {
    let mut log = TaskLog::default();
    log.judge(
        Source::Stream(1),
        &status(TaskState::InputRequired, Some("name?"), 10),
    );
    let v = log.judge(Source::Push, &status(TaskState::Working, Some("x"), 5));
    assert!(matches!(v, Verdict::Stale(_)), "{v:?}");
    assert_eq!(log.state, TaskState::InputRequired);
}

#[test]
fn foreign_task_and_changed_context_are_illegal_and_not_merged() {
    let mut log = TaskLog::default();
    log.judge(Source::Stream(1), &status(TaskState::Working, None, 1));
    let mut foreign = status(TaskState::Completed, None, 2);
    if let StreamResponse::StatusUpdate(u) = &mut foreign {
        u.task_id = "other".into();
    }
    assert!(matches!(
        log.judge(Source::Push, &foreign),
        Verdict::Illegal(_)
    ));
    let mut moved = status(TaskState::Completed, None, 2);
    if let StreamResponse::StatusUpdate(u) = &mut moved {
        u.context_id = "c2".into();
    }
    assert!(matches!(
        log.judge(Source::Stream(1), &moved),
        Verdict::Illegal(_)
    ));
    assert_eq!(log.state, TaskState::Working);
}

#[test]
fn the_answered_question_in_a_follow_up_snapshot_is_stale() {
    let mut log = TaskLog::default();
    log.judge(
        Source::Stream(1),
        &status(TaskState::InputRequired, Some("name?"), 1),
    );
    log.resuming = true;
    let v = log.judge(
        Source::Stream(2),
        &task(TaskState::InputRequired, &[], Some("name?"), 1),
    );
    assert!(matches!(v, Verdict::Stale(_) | Verdict::Duplicate), "{v:?}");
    assert!(!log.settled());
    log.judge(Source::Stream(2), &status(TaskState::Working, None, 2));
    log.judge(
        Source::Stream(2),
        &status(TaskState::InputRequired, Some("and your age?"), 3),
    );
    assert!(log.settled(), "a fresh question ends the wait");
}

#[test]
fn a_chunk_without_append_replaces_unless_it_is_the_same_first_chunk() {
    let mut log = TaskLog::default();
    log.judge(Source::Stream(1), &chunk("t", "a", "draft", false, false));
    log.judge(Source::Stream(1), &chunk("t", "a", " more", true, false));
    assert_eq!(
        log.judge(Source::Push, &chunk("t", "a", "draft", false, false)),
        Verdict::Duplicate
    );
    assert_eq!(text_of(&log), "draft more");
    let v = log.judge(Source::Stream(1), &chunk("t", "a", "final", false, true));
    assert!(matches!(
        v,
        Verdict::Applied {
            change: Change::Artifact(ArtifactChange {
                edit: ArtifactEdit::Replaced,
                ..
            }),
            ..
        }
    ));
    assert_eq!(text_of(&log), "final");
}

#[test]
fn a_push_that_joined_mid_artifact_is_aligned_by_content() {
    let mut log = TaskLog::default();
    log.judge(Source::Stream(1), &chunk("t", "a", "1", false, false));
    log.judge(Source::Stream(1), &chunk("t", "a", "2", true, false));
    log.judge(Source::Stream(1), &chunk("t", "a", "3", true, false));
    // The push registration happened after part 1: its first chunk is part 2.
    assert_eq!(
        log.judge(Source::Push, &chunk("t", "a", "2", true, false)),
        Verdict::Duplicate
    );
    assert_eq!(
        log.judge(Source::Push, &chunk("t", "a", "3", true, false)),
        Verdict::Duplicate
    );
    // The stream breaks; the push carries on alone.
    assert!(applied(
        &log.judge(Source::Push, &chunk("t", "a", "4", true, true))
    ));
    assert_eq!(text_of(&log), "1234");
    assert!(log.artifacts[0].complete());
}

#[test]
fn the_same_message_twice_is_a_duplicate() {
    let mut log = TaskLog::default();
    let mut m = Message::new(Role::Agent, vec![Part::text("hi")]);
    m.message_id = "m1".into();
    let ev = StreamResponse::Message(m);
    assert!(matches!(
        log.judge(Source::Reply, &ev),
        Verdict::Applied {
            change: Change::Message { direct: true },
            ..
        }
    ));
    assert_eq!(log.judge(Source::Push, &ev), Verdict::Duplicate);
}

#[test]
fn sources_round_trip_through_their_labels() {
    for s in [
        Source::Stream(7),
        Source::Poll,
        Source::Refresh,
        Source::Reply,
        Source::Cancel,
        Source::Push,
        Source::Import,
    ] {
        assert_eq!(Source::parse(&s.label()), Some(s));
    }
    assert_eq!(Source::parse("stream#x"), None);
}

#[test]
fn one_stream_is_trusted_in_its_own_order_whatever_its_clock_says() {
    let mut log = TaskLog::default();
    log.judge(
        Source::Stream(1),
        &status(TaskState::Working, Some("a"), 10),
    );
    // The agent's clock stepped back: the same stream is still in order.
    let v = log.judge(
        Source::Stream(1),
        &status(TaskState::InputRequired, Some("b"), 9),
    );
    assert!(applied(&v), "{v:?}");
    assert_eq!(log.state, TaskState::InputRequired);
}

#[test]
fn an_append_to_an_artifact_never_started_is_kept_with_a_warning() {
    let mut log = TaskLog::default();
    let v = log.judge(Source::Stream(1), &chunk("t", "x", "late", true, true));
    assert!(
        matches!(v, Verdict::Applied { warning: Some(ref w), .. } if w.contains("unknown artifact")),
        "{v:?}"
    );
    assert_eq!(text_of(&log), "late");
}
