//! Tests of the push receiver: the real server on 127.0.0.1, driven with reqwest, with the Rust SDK's own
//! push sender, and end to end with the embedded demo agent (official `a2a-server-lf`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use a2a::{
    CancelTaskRequest, Message, Part, Role, SendMessageConfiguration, SendMessageRequest,
    SendMessageResponse, StreamResponse, TaskState,
};
use a2a_server::{HttpPushSender, HttpPushSenderConfig};
use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use super::*;
use crate::push::token::{bearer, ct_eq};

const PATIENCE: Duration = Duration::from_secs(30);

async fn receiver() -> (PushReceiver, UnboundedReceiver<PushEvent>) {
    let (tx, rx) = unbounded_channel();
    let r = PushReceiver::start(DEFAULT_BIND, tx).await.unwrap();
    (r, rx)
}

/// Register `task` for agent "a" with its context unknown; returns (url, token).
fn reg(r: &PushReceiver, task: &str) -> (String, String) {
    reg_for(r, "a", task, None)
}

fn reg_for(r: &PushReceiver, agent: &str, task: &str, ctx: Option<&str>) -> (String, String) {
    let Registered { url, token } = r.register(agent.to_owned(), task, ctx).unwrap();
    (url, token)
}

fn status(task: &str, text: &str) -> Value {
    json!({"statusUpdate": {
        "taskId": task, "contextId": "ctx-1",
        "status": {"state": "TASK_STATE_WORKING", "timestamp": "2026-01-02T03:04:05.678Z",
                   "message": {"messageId": format!("m-{text}"), "role": "ROLE_AGENT", "parts": [{"text": text}]}}
    }})
}

async fn post(url: &str, headers: &[(&str, &str)], body: impl Into<reqwest::Body>) -> u16 {
    let mut req = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .body(body);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    req.send().await.unwrap().status().as_u16()
}

async fn post_json(url: &str, headers: &[(&str, &str)], body: &Value) -> u16 {
    post(url, headers, body.to_string()).await
}

async fn next(rx: &mut UnboundedReceiver<PushEvent>) -> PushEvent {
    tokio::time::timeout(PATIENCE, rx.recv())
        .await
        .expect("an event in time")
        .expect("channel open")
}

/// The handler sends on the channel before it answers, so after a reply anything delivered is already queued.
fn nothing_queued(rx: &mut UnboundedReceiver<PushEvent>) {
    if let Ok(e) = rx.try_recv() {
        panic!("unexpected delivery: {e:?}");
    }
}

fn status_text(e: &PushEvent) -> String {
    match &e.event {
        StreamResponse::StatusUpdate(u) => u
            .status
            .message
            .as_ref()
            .and_then(|m| m.parts.first())
            .and_then(|p| p.as_text())
            .unwrap_or_default()
            .to_owned(),
        other => panic!("expected a status update, got {other:?}"),
    }
}

#[tokio::test]
async fn push_delivers_with_each_token_header_style() {
    let (r, mut rx) = receiver().await;
    let (url, token) = reg(&r, "t-1");
    assert!(
        url.starts_with(&format!("http://{}/a2a/push/", r.local_addr())),
        "{url}"
    );
    assert!(url.starts_with("http://127.0.0.1:"));
    let bearer = format!("Bearer {token}");
    let lower = format!("bearer   {token}");
    let styles: [(&str, Vec<(&str, &str)>); 5] = [
        ("python", vec![("X-A2A-Notification-Token", &token)]),
        ("rust-sdk", vec![("A2A-Notification-Token", &token)]),
        ("js", vec![("Authorization", &bearer)]),
        ("scheme case", vec![("authorization", &lower)]),
        (
            "py10 both",
            vec![
                ("X-A2A-Notification-Token", &token),
                ("Authorization", &bearer),
            ],
        ),
    ];
    for (style, headers) in &styles {
        assert_eq!(
            post_json(&url, headers, &status("t-1", style)).await,
            200,
            "{style}"
        );
        let e = next(&mut rx).await;
        assert_eq!(e.task_id, "t-1");
        assert_eq!(status_text(&e), *style);
    }
    assert!(r.rejected().is_empty(), "{:?}", r.rejected());
    r.shutdown().await;
}

#[tokio::test]
async fn push_wrong_or_missing_token_is_401_and_not_delivered() {
    let (r, mut rx) = receiver().await;
    let (url, token) = reg(&r, "t-1");
    let (_, other) = reg(&r, "t-2");
    let body = status("t-1", "x");
    let basic = format!("Basic {token}");
    let cases: [Vec<(&str, &str)>; 5] = [
        vec![],
        vec![(
            "X-A2A-Notification-Token",
            "0123456789abcdef0123456789abcdef",
        )],
        // Another task's token does not open this task's URL.
        vec![("X-A2A-Notification-Token", &other)],
        vec![("Authorization", &basic)],
        vec![("X-A2A-Notification-Token", &token[..31])],
    ];
    for headers in &cases {
        assert_eq!(post_json(&url, headers, &body).await, 401, "{headers:?}");
        nothing_queued(&mut rx);
    }
    let rejected = r.rejected();
    assert_eq!(rejected.len(), cases.len());
    assert!(
        rejected
            .iter()
            .all(|(_, task, why)| task == "t-1" && *why == Rejected::BadToken)
    );
    r.shutdown().await;
}

#[tokio::test]
async fn push_unknown_task_or_path_is_404() {
    let (r, mut rx) = receiver().await;
    let (url, token) = reg(&r, "t-1");
    let auth = [("X-A2A-Notification-Token", token.as_str())];
    // The old scheme's address (the task id as the path) and a guessed id name no registration.
    let by_task = format!("http://{}/a2a/push/t-1", r.local_addr());
    assert_eq!(post_json(&by_task, &auth, &status("t-1", "x")).await, 404);
    let elsewhere = format!("http://{}/somewhere/else", r.local_addr());
    assert_eq!(post_json(&elsewhere, &auth, &status("t-1", "x")).await, 404);
    r.unregister(&"a".to_owned(), "t-1");
    assert_eq!(post_json(&url, &auth, &status("t-1", "x")).await, 404);
    nothing_queued(&mut rx);
    let rejected: Vec<(String, Rejected)> =
        r.rejected().into_iter().map(|(_, t, w)| (t, w)).collect();
    assert_eq!(
        rejected,
        vec![
            ("/a2a/push/t-1".to_owned(), Rejected::UnknownTask),
            ("/somewhere/else".to_owned(), Rejected::UnknownTask),
            (
                url.trim_start_matches(&format!("http://{}", r.local_addr()))
                    .to_owned(),
                Rejected::UnknownTask
            ),
        ]
    );
    r.shutdown().await;
}

#[tokio::test]
async fn push_body_over_one_mib_is_413() {
    let (r, mut rx) = receiver().await;
    let (url, token) = reg(&r, "t-1");
    let auth = [("X-A2A-Notification-Token", token.as_str())];
    // A valid event padded to 2 MiB, so only the size can be the reason.
    let mut body = status("t-1", "big");
    body["statusUpdate"]["metadata"] = json!({"pad": "x".repeat(2 * 1024 * 1024)});
    let text = body.to_string();
    assert_eq!(
        post(&url, &auth, text.clone()).await,
        413,
        "declared length"
    );
    // Chunked, no Content-Length: cut off while reading.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> = text
        .into_bytes()
        .chunks(64 * 1024)
        .map(|c| Ok(c.to_vec()))
        .collect();
    let streamed = reqwest::Body::wrap_stream(futures::stream::iter(chunks));
    assert_eq!(post(&url, &auth, streamed).await, 413, "chunked");
    nothing_queued(&mut rx);
    assert!(
        r.rejected()
            .iter()
            .all(|(_, _, why)| *why == Rejected::TooLarge)
    );
    // Just under the limit is fine.
    let mut body = status("t-1", "almost");
    let room = MAX_BODY_BYTES - body.to_string().len() - 40;
    body["statusUpdate"]["metadata"] = json!({"pad": "x".repeat(room)});
    assert_eq!(post_json(&url, &auth, &body).await, 200);
    assert_eq!(status_text(&next(&mut rx).await), "almost");
    r.shutdown().await;
}

#[tokio::test]
async fn push_malformed_bodies_are_400() {
    let (r, mut rx) = receiver().await;
    let (url, token) = reg(&r, "t-1");
    let auth = [("X-A2A-Notification-Token", token.as_str())];
    let two = json!({"statusUpdate": status("t-1", "a")["statusUpdate"], "task": {"id": "t-1"}});
    let cases: [(&str, String); 7] = [
        ("not json", "{not json".to_owned()),
        ("empty", String::new()),
        ("array", "[]".to_owned()),
        ("no variant", "{}".to_owned()),
        ("two variants", two.to_string()),
        (
            "bad field",
            json!({"statusUpdate": {"taskId": 5}}).to_string(),
        ),
        ("unknown v0.3 kind", json!({"kind": "mystery"}).to_string()),
    ];
    for (what, body) in &cases {
        assert_eq!(post(&url, &auth, body.clone()).await, 400, "{what}");
        nothing_queued(&mut rx);
    }
    let rejected = r.rejected();
    assert_eq!(rejected.len(), cases.len());
    assert!(
        rejected
            .iter()
            .all(|(_, _, why)| matches!(why, Rejected::Malformed(_)))
    );
    r.shutdown().await;
}

#[tokio::test]
async fn push_duplicate_is_acknowledged_but_delivered_once() {
    let (r, mut rx) = receiver().await;
    let (url, token) = reg(&r, "t-1");
    let auth = [("X-A2A-Notification-Token", token.as_str())];
    let body = status("t-1", "once");
    assert_eq!(post_json(&url, &auth, &body).await, 200);
    assert_eq!(post_json(&url, &auth, &body).await, 200);
    // A retry re-serialised with other whitespace is the same event.
    let pretty = serde_json::to_string_pretty(&body).unwrap();
    assert_eq!(post(&url, &auth, pretty).await, 200);
    assert_eq!(status_text(&next(&mut rx).await), "once");
    nothing_queued(&mut rx);
    let dups = r.rejected();
    assert_eq!(dups.len(), 2);
    assert!(dups.iter().all(|(_, _, why)| *why == Rejected::Duplicate));

    // Out of order passes through in arrival order; the tracker decides.
    for text in ["third", "second"] {
        assert_eq!(post_json(&url, &auth, &status("t-1", text)).await, 200);
    }
    assert_eq!(status_text(&next(&mut rx).await), "third");
    assert_eq!(status_text(&next(&mut rx).await), "second");

    // The same event for another task is not a duplicate of this one.
    let (url2, t2) = reg(&r, "t-2");
    let auth2 = [("A2A-Notification-Token", t2.as_str())];
    assert_eq!(post_json(&url2, &auth2, &status("t-2", "once")).await, 200);
    assert_eq!(next(&mut rx).await.task_id, "t-2");
    r.shutdown().await;
}

#[test]
fn push_seen_window_is_bounded() {
    let mut seen = Seen::default();
    for d in 0..(SEEN_PER_TASK as u64 + 10) {
        assert!(seen.insert(d));
    }
    assert_eq!(seen.set.len(), SEEN_PER_TASK);
    assert!(
        !seen.insert(SEEN_PER_TASK as u64 + 9),
        "recent ones remembered"
    );
    assert!(seen.insert(0), "the oldest were forgotten");
}

#[tokio::test]
async fn push_v03_task_body_is_accepted() {
    let (r, mut rx) = receiver().await;
    let (url, token) = reg(&r, "t-03");
    // What the Python 0.3 SDK posts: the whole Task in v0.3 shape, `X-A2A-Notification-Token` only.
    let body = json!({
        "kind": "task", "id": "t-03", "contextId": "c-03",
        "status": {"state": "completed", "timestamp": "2026-01-02T03:04:05.678901+00:00"},
        "artifacts": [{"artifactId": "echo", "name": "echo", "parts": [{"kind": "text", "text": "echo: hi"}]}],
        "history": [{"kind": "message", "messageId": "m1", "role": "user", "parts": [{"kind": "text", "text": "hi"}]}]
    });
    let auth = [("X-A2A-Notification-Token", token.as_str())];
    assert_eq!(post_json(&url, &auth, &body).await, 200);
    let e = next(&mut rx).await;
    let StreamResponse::Task(task) = e.event else {
        panic!("expected a task, got {:?}", e.event)
    };
    assert_eq!(task.id, "t-03");
    assert_eq!(task.status.state, TaskState::Completed);
    assert_eq!(
        task.artifacts.unwrap()[0].parts[0].as_text(),
        Some("echo: hi")
    );

    // A v0.3 status-update for another task is still caught.
    let other = json!({"kind": "status-update", "taskId": "t-x", "contextId": "c", "final": true,
                       "status": {"state": "working"}});
    assert_eq!(post_json(&url, &auth, &other).await, 400);
    nothing_queued(&mut rx);
    r.shutdown().await;
}

#[tokio::test]
async fn push_event_for_another_task_is_rejected() {
    let (r, mut rx) = receiver().await;
    let (url, a) = reg(&r, "t-a");
    reg(&r, "t-b");
    let auth = [("X-A2A-Notification-Token", a.as_str())];
    assert_eq!(post_json(&url, &auth, &status("t-b", "x")).await, 400);
    let task_b =
        json!({"task": {"id": "t-b", "contextId": "c", "status": {"state": "TASK_STATE_WORKING"}}});
    assert_eq!(post_json(&url, &auth, &task_b).await, 400);
    let loose =
        json!({"message": {"messageId": "m", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}});
    assert_eq!(
        post_json(&url, &auth, &loose).await,
        400,
        "a message with no task"
    );
    nothing_queued(&mut rx);
    let reasons: Vec<String> = r.rejected().iter().map(|(_, _, w)| w.to_string()).collect();
    assert!(reasons[0].contains("task \"t-b\""), "{reasons:?}");
    assert!(reasons[2].contains("no task"), "{reasons:?}");
    // A message that names the task is fine.
    let mine = json!({"message": {"messageId": "m", "taskId": "t-a", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}});
    assert_eq!(post_json(&url, &auth, &mine).await, 200);
    assert!(matches!(
        next(&mut rx).await.event,
        StreamResponse::Message(_)
    ));
    r.shutdown().await;
}

/// Task ids are the agent's to choose and never part of the URL, so any id works and none can bend the path.
#[tokio::test]
async fn push_odd_task_ids_work_and_stay_out_of_the_url() {
    let (r, mut rx) = receiver().await;
    let id = "a/b c?d#é%/../x";
    let (url, token) = reg(&r, id);
    let tail = url.rsplit('/').next().unwrap();
    assert_eq!(tail.len(), 2 * PATH_ID_BYTES, "{url}");
    assert!(tail.bytes().all(|b| b.is_ascii_hexdigit()), "{url}");
    let auth = [("X-A2A-Notification-Token", token.as_str())];
    assert_eq!(post_json(&url, &auth, &status(id, "odd")).await, 200);
    let e = next(&mut rx).await;
    assert_eq!(e.task_id, id);
    r.shutdown().await;
}

#[tokio::test]
async fn push_register_again_rotates_the_token() {
    let (r, mut rx) = receiver().await;
    let (old_url, old) = reg(&r, "t-1");
    let (url, new) = reg(&r, "t-1");
    assert_ne!(old, new);
    assert_ne!(old_url, url);
    assert_eq!(new.len(), 2 * TOKEN_BYTES);
    assert!(new.bytes().all(|b| b.is_ascii_hexdigit()));
    let body = status("t-1", "x");
    // The old address is gone, and the old token does not open the new one.
    assert_eq!(
        post_json(&old_url, &[("X-A2A-Notification-Token", &new)], &body).await,
        404
    );
    assert_eq!(
        post_json(&url, &[("X-A2A-Notification-Token", &old)], &body).await,
        401
    );
    assert_eq!(
        post_json(&url, &[("X-A2A-Notification-Token", &new)], &body).await,
        200
    );
    next(&mut rx).await;
    r.shutdown().await;
}

#[tokio::test]
async fn push_rejection_list_is_bounded() {
    let (r, _rx) = receiver().await;
    let url = format!("http://{}/nope", r.local_addr());
    let http = reqwest::Client::new();
    for _ in 0..(REJECTIONS_KEPT + 5) {
        http.post(&url).send().await.unwrap();
    }
    assert_eq!(r.rejected().len(), REJECTIONS_KEPT);
    r.shutdown().await;
}

#[tokio::test]
async fn push_shutdown_frees_the_port() {
    let (r, _rx) = receiver().await;
    let addr = r.local_addr();
    r.shutdown().await;
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}

#[tokio::test]
async fn push_app_gone_is_503() {
    let (r, rx) = receiver().await;
    let (url, token) = reg(&r, "t-1");
    drop(rx);
    let auth = [("X-A2A-Notification-Token", token.as_str())];
    assert_eq!(post_json(&url, &auth, &status("t-1", "x")).await, 503);
    r.shutdown().await;
}

/// The official Rust SDK's sender (`a2a-server-lf` `HttpPushSender`): `A2A-Notification-Token` for `token`,
/// `Authorization: Bearer` for `authentication`; either alone gets through.
#[tokio::test]
async fn push_accepts_the_rust_sdk_sender() {
    let (r, mut rx) = receiver().await;
    let sender = HttpPushSender::new(Some(HttpPushSenderConfig {
        timeout: Duration::from_secs(10),
        // Errors (non-2xx) become Err here, so the test sees them.
        fail_on_error: true,
        // Its SSRF guard refuses loopback, i.e. exactly our receiver.
        validate_urls: false,
    }));
    let full = r.config_for("a".into(), "t-1", None).unwrap();
    let event: StreamResponse = serde_json::from_value(status("t-1", "full")).unwrap();
    sender.send_push(&full, event).await.unwrap();
    assert_eq!(status_text(&next(&mut rx).await), "full");

    let token_only = TaskPushNotificationConfig {
        authentication: None,
        ..r.config_for("a".into(), "t-1", None).unwrap()
    };
    let event: StreamResponse = serde_json::from_value(status("t-1", "token")).unwrap();
    sender.send_push(&token_only, event).await.unwrap();
    assert_eq!(status_text(&next(&mut rx).await), "token");

    let auth_only = TaskPushNotificationConfig {
        token: None,
        ..r.config_for("a".into(), "t-1", None).unwrap()
    };
    let event: StreamResponse = serde_json::from_value(status("t-1", "auth")).unwrap();
    sender.send_push(&auth_only, event).await.unwrap();
    assert_eq!(status_text(&next(&mut rx).await), "auth");

    let stale = TaskPushNotificationConfig {
        token: Some("stale".into()),
        authentication: None,
        ..r.config_for("a".into(), "t-1", None).unwrap()
    };
    let event: StreamResponse = serde_json::from_value(status("t-1", "stale")).unwrap();
    assert!(sender.send_push(&stale, event).await.is_err());
    nothing_queued(&mut rx);
    r.shutdown().await;
}

/// End to end with the embedded demo agent (official `a2a-server-lf`): a `slow` task started without
/// waiting, CreateTaskPushNotificationConfig with our URL and token through the console's own client, then
/// the status updates arrive at the receiver until the task completes.
#[tokio::test]
async fn push_end_to_end_with_the_demo_agent() {
    use crate::remote::card::CardFetcher;
    use crate::remote::connect::agent::{AgentTarget, connect};
    use crate::remote::http::http_client;

    let agent = crate::demo::spawn(0).await.unwrap();
    let (r, mut rx) = receiver().await;
    let http = http_client(Duration::from_secs(5)).unwrap();
    let target = AgentTarget::from_url(&agent.base_url(), Duration::from_secs(10));
    let conn = connect(
        &target,
        &http,
        &CardFetcher::new(Duration::from_secs(5)).unwrap(),
    )
    .await
    .unwrap();
    let sent = conn
        .client
        .send_message(&SendMessageRequest {
            message: Message::new(Role::User, vec![Part::text("slow 2")]),
            configuration: Some(SendMessageConfiguration {
                accepted_output_modes: None,
                task_push_notification_config: None,
                history_length: None,
                return_immediately: Some(true),
            }),
            metadata: None,
            tenant: None,
        })
        .await
        .unwrap();
    let SendMessageResponse::Task(task) = sent else {
        panic!("expected a task, got {sent:?}")
    };
    let cfg = r
        .config_for("demo".into(), &task.id, Some(&task.context_id))
        .unwrap();
    let created = conn.client.create_push_config(&cfg).await.unwrap();
    assert_eq!(created.url, cfg.url);

    let mut states = Vec::new();
    let mut texts = Vec::new();
    loop {
        let e = next(&mut rx).await;
        assert_eq!(
            (e.agent.as_str(), e.task_id.as_str()),
            ("demo", task.id.as_str())
        );
        let state = match &e.event {
            StreamResponse::StatusUpdate(u) => {
                if let Some(t) = u.status.message.as_ref().and_then(|m| m.parts.first()) {
                    texts.push(t.as_text().unwrap_or_default().to_owned());
                }
                Some(u.status.state.clone())
            }
            StreamResponse::Task(t) => Some(t.status.state.clone()),
            _ => None,
        };
        if let Some(s) = state {
            states.push(s.clone());
            if s.is_terminal() {
                break;
            }
        }
    }
    assert_eq!(states.last(), Some(&TaskState::Completed), "{states:?}");
    assert!(
        texts.iter().any(|t| t.contains("Working… 2/2 s")),
        "{texts:?}"
    );
    assert!(r.rejected().is_empty(), "{:?}", r.rejected());
    // Nothing left running if the assertion above was the last event.
    let _ = conn
        .client
        .cancel_task(&CancelTaskRequest {
            id: task.id.clone(),
            metadata: None,
            tenant: None,
        })
        .await;
    r.shutdown().await;
    agent.shutdown().await;
}

#[test]
fn push_token_helpers() {
    assert!(ct_eq(b"abc", b"abc"));
    assert!(!ct_eq(b"abc", b"abd"));
    assert!(!ct_eq(b"abc", b"abcd"));
    assert_eq!(bearer(b"Bearer tok"), Some(&b"tok"[..]));
    assert_eq!(bearer(b"BEARER  tok "), Some(&b"tok"[..]));
    assert_eq!(bearer(b"Basic tok"), None);
    assert_eq!(bearer(b"Bearer"), None);
    assert_eq!(label(&"x".repeat(500)).chars().count(), LABEL_MAX_CHARS + 1);
    assert_eq!(
        base_url("0.0.0.0:8080".parse().unwrap()),
        "http://127.0.0.1:8080"
    );
    assert_eq!(base_url("[::]:8080".parse().unwrap()), "http://[::1]:8080");
    assert_eq!(
        base_url("192.168.1.5:9".parse().unwrap()),
        "http://192.168.1.5:9"
    );
}

/// Finding 6 at the receiver: two agents use the same task id. Each gets its own path and token; neither
/// registration disturbs the other, B's token does not open A's address, and what B posts is delivered as
/// B's. (Before, B's registration replaced A's token and B's events were delivered as the task's, period.)
#[tokio::test]
async fn push_same_task_id_from_two_agents_stays_apart() {
    let (r, mut rx) = receiver().await;
    let (url_a, tok_a) = reg_for(&r, "agent-a", "shared", Some("ctx-1"));
    let (url_b, tok_b) = reg_for(&r, "agent-b", "shared", Some("ctx-1"));
    assert_ne!(url_a, url_b);
    assert_ne!(tok_a, tok_b);
    let body = status("shared", "from b");
    assert_eq!(
        post_json(&url_a, &[("X-A2A-Notification-Token", &tok_b)], &body).await,
        401,
        "B's token on A's address"
    );
    nothing_queued(&mut rx);
    assert_eq!(
        post_json(&url_b, &[("X-A2A-Notification-Token", &tok_b)], &body).await,
        200
    );
    let e = next(&mut rx).await;
    assert_eq!(
        (e.agent.as_str(), e.task_id.as_str()),
        ("agent-b", "shared")
    );
    // A's registration still works, with A's own token, after B registered the same task id.
    let body = status("shared", "from a");
    assert_eq!(
        post_json(&url_a, &[("X-A2A-Notification-Token", &tok_a)], &body).await,
        200
    );
    assert_eq!(next(&mut rx).await.agent, "agent-a");
    // Forgetting agent B leaves A's registration alone.
    r.unregister_agent(&"agent-b".to_owned());
    let body = status("shared", "b again");
    assert_eq!(
        post_json(&url_b, &[("X-A2A-Notification-Token", &tok_b)], &body).await,
        404
    );
    let body = status("shared", "a again");
    assert_eq!(
        post_json(&url_a, &[("X-A2A-Notification-Token", &tok_a)], &body).await,
        200
    );
    assert_eq!(next(&mut rx).await.agent, "agent-a");
    r.shutdown().await;
}

fn with_context(task: &str, ctx: &str, text: &str) -> Value {
    let mut v = status(task, text);
    v["statusUpdate"]["contextId"] = json!(ctx);
    v
}

/// Once a registration knows the task's context, an event with an empty or another context id is refused
/// (before, an empty one passed as "not checked"). Unknown at registration, the first accepted event's
/// context becomes the known one.
#[tokio::test]
async fn push_empty_or_other_context_is_refused_once_known() {
    let (r, mut rx) = receiver().await;
    let (url, token) = reg_for(&r, "a", "t-1", Some("ctx-1"));
    let auth = [("X-A2A-Notification-Token", token.as_str())];
    for (ctx, text) in [("", "empty"), ("ctx-2", "other")] {
        assert_eq!(
            post_json(&url, &auth, &with_context("t-1", ctx, text)).await,
            400,
            "{text}"
        );
        nothing_queued(&mut rx);
    }
    let no_ctx = json!({"message": {"messageId": "m", "taskId": "t-1", "role": "ROLE_AGENT", "parts": [{"text": "hi"}]}});
    assert_eq!(
        post_json(&url, &auth, &no_ctx).await,
        400,
        "a message naming no context"
    );
    assert!(
        r.rejected()
            .iter()
            .all(|(_, _, why)| matches!(why, Rejected::WrongContext(_)))
    );
    assert_eq!(
        post_json(&url, &auth, &with_context("t-1", "ctx-1", "right")).await,
        200
    );
    assert_eq!(status_text(&next(&mut rx).await), "right");

    let (url, token) = reg_for(&r, "a", "t-2", None);
    let auth = [("X-A2A-Notification-Token", token.as_str())];
    assert_eq!(
        post_json(&url, &auth, &with_context("t-2", "ctx-9", "first")).await,
        200
    );
    next(&mut rx).await;
    assert_eq!(
        post_json(&url, &auth, &with_context("t-2", "", "then empty")).await,
        400
    );
    nothing_queued(&mut rx);
    r.shutdown().await;
}

/// Paths and tokens come from the OS CSPRNG: long, hex, and never repeated.
#[test]
fn push_paths_and_tokens_are_long_and_unique() {
    let mut seen = HashSet::new();
    for _ in 0..2000 {
        let p = random_hex(PATH_ID_BYTES).unwrap();
        let t = random_hex(TOKEN_BYTES).unwrap();
        assert_eq!((p.len(), t.len()), (32, 64));
        assert!(seen.insert(p) && seen.insert(t));
    }
}

#[test]
fn push_context_rule() {
    assert!(context_ok(None, None).is_ok());
    assert!(context_ok(None, Some("")).is_ok());
    assert!(context_ok(Some("c"), Some("c")).is_ok());
    assert!(context_ok(Some("c"), Some("")).is_err());
    assert!(context_ok(Some("c"), None).is_err());
    assert!(context_ok(Some("c"), Some("d")).is_err());
}
