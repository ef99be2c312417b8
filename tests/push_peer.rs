//! Push notifications from the official SDKs' servers into our webhook receiver (`push`): the Python
//! a2a-sdk 1.3.0 and 0.3.26 peers and the JS @a2a-js/sdk 1.3.0 peer (tests/peers/), driven through the
//! console's own client. Each sender puts the token somewhere else and the 0.3 one posts whole v0.3 Tasks
//! (tests/peers/README.md item 10); all of them must get through, and nothing but repeats may be rejected.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use a2a::{
    CancelTaskRequest, Message, Part, PartContent, Role, SendMessageConfiguration,
    SendMessageRequest, SendMessageResponse, StreamResponse, Task, TaskState,
};
use a2a_console::push::{DEFAULT_BIND, PushEvent, PushReceiver, Rejected};
use a2a_console::remote::card::CardFetcher;
use a2a_console::remote::connect::agent::{AgentTarget, Connected, connect};
use a2a_console::remote::http::http_client;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

/// Upper bound for any one wait; the scenarios produce an event every 0.5 s at most.
const PATIENCE: Duration = Duration::from_secs(30);

async fn connect_to(url: &str) -> Connected {
    let http = http_client(Duration::from_secs(5)).unwrap();
    let target = AgentTarget::from_url(url, Duration::from_secs(20));
    connect(
        &target,
        &http,
        &CardFetcher::new(Duration::from_secs(5)).unwrap(),
    )
    .await
    .unwrap_or_else(|e| panic!("connect to {url}: {e:?}"))
}

/// Sends `text` (a follow-up when `task` is given) and returns the task.
async fn send(conn: &Connected, text: &str, task: Option<&Task>, return_immediately: bool) -> Task {
    let mut message = Message::new(Role::User, vec![Part::text(text)]);
    if let Some(t) = task {
        message.task_id = Some(t.id.clone());
        // The Python SDKs file a follow-up without it under a fresh context (tests/peers/README.md item 7).
        message.context_id = Some(t.context_id.clone());
    }
    let resp = conn
        .client
        .send_message(&SendMessageRequest {
            message,
            configuration: Some(SendMessageConfiguration {
                accepted_output_modes: None,
                task_push_notification_config: None,
                history_length: None,
                return_immediately: Some(return_immediately),
            }),
            metadata: None,
            tenant: None,
        })
        .await
        .unwrap_or_else(|e| panic!("send {text:?}: {e:?}"));
    match resp {
        SendMessageResponse::Task(t) => t,
        SendMessageResponse::Message(m) => panic!("expected a task, got message {m:?}"),
    }
}

async fn next(rx: &mut UnboundedReceiver<PushEvent>, what: &str) -> PushEvent {
    tokio::time::timeout(PATIENCE, rx.recv())
        .await
        .unwrap_or_else(|_| {
            panic!("no push notification within {PATIENCE:?} while waiting for {what}")
        })
        .expect("receiver alive")
}

fn state_of(e: &PushEvent) -> Option<TaskState> {
    match &e.event {
        StreamResponse::StatusUpdate(u) => Some(u.status.state.clone()),
        StreamResponse::Task(t) => Some(t.status.state.clone()),
        _ => None,
    }
}

fn text(parts: &[Part]) -> String {
    parts
        .iter()
        .filter_map(|p| match &p.content {
            PartContent::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}

/// The status message's text (status updates and v0.3 Task snapshots alike).
fn status_text(e: &PushEvent) -> String {
    let status = match &e.event {
        StreamResponse::StatusUpdate(u) => &u.status,
        StreamResponse::Task(t) => &t.status,
        _ => return String::new(),
    };
    status
        .message
        .as_ref()
        .map(|m| text(&m.parts))
        .unwrap_or_default()
}

/// Artifact text carried by the event (an artifact update, or a Task snapshot's artifacts).
fn artifact_text(e: &PushEvent) -> String {
    match &e.event {
        StreamResponse::ArtifactUpdate(a) => text(&a.artifact.parts),
        StreamResponse::Task(t) => t
            .artifacts
            .iter()
            .flatten()
            .map(|a| text(&a.parts))
            .collect(),
        _ => String::new(),
    }
}

/// `slow`: register after the task started, see at least two "tick" updates pushed, cancel, and (where
/// the SDK pushes it) see the canceled state pushed too. Returns the receiver's rejections.
async fn slow_ticks_then_cancel(url: &str, canceled_is_pushed: bool) -> Vec<Rejected> {
    let conn = connect_to(url).await;
    let (tx, mut rx) = unbounded_channel();
    let receiver = PushReceiver::start(DEFAULT_BIND, tx).await.unwrap();
    let task = send(&conn, "slow", None, true).await;
    let cfg = receiver
        .config_for("peer".to_owned(), &task.id, Some(&task.context_id))
        .unwrap();
    let created = conn
        .client
        .create_push_config(&cfg)
        .await
        .unwrap_or_else(|e| panic!("CreateTaskPushNotificationConfig: {e:?}"));
    assert_eq!(created.url, cfg.url);

    let mut ticks = Vec::new();
    while ticks.len() < 2 {
        let e = next(&mut rx, "tick updates").await;
        assert_eq!(e.task_id, task.id);
        if state_of(&e) == Some(TaskState::Working) && status_text(&e).starts_with("tick ") {
            ticks.push(status_text(&e));
        }
    }
    assert_ne!(ticks[0], ticks[1], "each tick is a new event");

    conn.client
        .cancel_task(&CancelTaskRequest {
            id: task.id.clone(),
            metadata: None,
            tenant: None,
        })
        .await
        .unwrap_or_else(|e| panic!("CancelTask: {e:?}"));
    if canceled_is_pushed {
        loop {
            let e = next(&mut rx, "the canceled state").await;
            assert_eq!(e.task_id, task.id);
            if state_of(&e) == Some(TaskState::Canceled) {
                break;
            }
        }
    }
    let rejected = receiver
        .rejected()
        .into_iter()
        .map(|(_, _, why)| why)
        .collect();
    receiver.shutdown().await;
    rejected
}

/// `ask`: register while the task waits for input, answer, and see the answer's events pushed up to
/// completion, including the greeting artifact.
async fn ask_then_answer(url: &str) {
    let conn = connect_to(url).await;
    let (tx, mut rx) = unbounded_channel();
    let receiver = PushReceiver::start(DEFAULT_BIND, tx).await.unwrap();
    let task = send(&conn, "ask", None, false).await;
    assert_eq!(task.status.state, TaskState::InputRequired);
    let cfg = receiver
        .config_for("peer".to_owned(), &task.id, Some(&task.context_id))
        .unwrap();
    conn.client
        .create_push_config(&cfg)
        .await
        .unwrap_or_else(|e| panic!("CreateTaskPushNotificationConfig: {e:?}"));
    send(&conn, "Ada", Some(&task), false).await;

    let mut greeting = String::new();
    loop {
        let e = next(&mut rx, "the answer's events").await;
        assert_eq!(e.task_id, task.id);
        greeting.push_str(&artifact_text(&e));
        if state_of(&e) == Some(TaskState::Completed) {
            break;
        }
    }
    assert!(greeting.contains("Nice to meet you, Ada"), "{greeting:?}");
    assert_only_duplicates(
        &receiver
            .rejected()
            .into_iter()
            .map(|(_, _, why)| why)
            .collect::<Vec<_>>(),
    );
    receiver.shutdown().await;
}

/// Repeats are normal (at-least-once delivery) and dropped quietly; anything else means a sender we fail.
fn assert_only_duplicates(rejected: &[Rejected]) {
    assert!(
        rejected.iter().all(|why| *why == Rejected::Duplicate),
        "{rejected:?}"
    );
}

/// Python a2a-sdk 1.3.0: a StreamResponse per event, `X-A2A-Notification-Token` and `Authorization`.
#[tokio::test]
async fn py10_pushes_each_event() {
    let peer = common::py10_peer();
    assert_only_duplicates(&slow_ticks_then_cancel(&peer.url, true).await);
    ask_then_answer(&peer.url).await;
}

/// JS @a2a-js/sdk 1.3.0: the same bodies as application/a2a+json, and only `Authorization` (no token header).
#[tokio::test]
async fn js_pushes_each_event_with_authorization_only() {
    let peer = common::js_peer();
    // The JS SDK posts the canceled update twice, byte for byte: a real repeat, dropped as a duplicate.
    assert_only_duplicates(&slow_ticks_then_cancel(&peer.url, true).await);
    ask_then_answer(&peer.url).await;
}

/// Python a2a-sdk 0.3.26: a whole v0.3 Task per event (`kind: "task"`), `X-A2A-Notification-Token` only.
/// It does not push the canceled state (like its resubscribe stream, which misses it too).
#[tokio::test]
async fn py03_pushes_task_snapshots() {
    let peer = common::py03_peer();
    assert_only_duplicates(&slow_ticks_then_cancel(&peer.url, false).await);
    ask_then_answer(&peer.url).await;
}
