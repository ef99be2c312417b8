//! An agent that asks for authorization while the user is typing cannot take their keys: the real console runtime
//! (headless, keys injected at a person's typing speed) against a small agent of our own on 127.0.0.1 that answers
//! auth-required 3.5 s after the message. Nothing is decided for the user: no Authorization header reaches the
//! agent, no task is canceled, no approve or deny is audited, the typed sentence arrives whole as the user's own
//! message, the request is announced, and the dialog opens only on the user's keys, ignoring those typed as it opens.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use a2a_console::app::agent::AgentOrigin;
use a2a_console::app::state::App;
use a2a_console::config::keymap::Keymap;
use a2a_console::config::theme::Theme;
use a2a_console::remote::connect::agent::AgentTarget;
use a2a_console::testing::{Headless, sse_frame, status_json};
use a2a_console::tui::runtime::Runtime;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// What the agent saw: every JSON-RPC call (method, Authorization header, message text), and when it sent the
/// auth-required.
#[derive(Default)]
struct Seen {
    calls: Vec<(String, Option<String>, String)>,
    asked_at: Option<Instant>,
    /// Where the text of each reply on the task goes, as it arrives.
    replies: Option<tokio::sync::mpsc::UnboundedSender<String>>,
}

const ASK_AFTER: Duration = Duration::from_millis(3500);

/// The agent: its first stream says "working on it", then auth-required after [`ASK_AFTER`]; a reply on the task
/// without a credential is asked again.
async fn slow_asking_agent(seen: Arc<Mutex<Seen>>) -> String {
    use axum::body::{Body, Bytes};
    use axum::http::HeaderMap;
    use axum::response::Response;
    use axum::routing::{get, post};
    use futures::StreamExt;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let card = serde_json::json!({
        "name": "Asker", "description": "asks for authorization a few seconds in", "version": "7.7.7",
        "supportedInterfaces": [{"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "securitySchemes": {"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}},
        "skills": []
    })
    .to_string();
    let rpc = move |headers: HeaderMap, body: String| {
        let seen = seen.clone();
        async move {
            let v: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
            let method = v["method"].as_str().unwrap_or("").to_string();
            let auth = headers
                .get("authorization")
                .map(|h| String::from_utf8_lossy(h.as_bytes()).into_owned());
            let text = v["params"]["message"]["parts"][0]["text"]
                .as_str()
                .unwrap_or("")
                .to_string();
            let follow_up = v["params"]["message"]["taskId"].as_str() == Some("t-ask");
            {
                let mut seen = seen.lock().unwrap();
                if follow_up && let Some(tx) = &seen.replies {
                    let _ = tx.send(text.clone());
                }
                seen.calls.push((method.clone(), auth, text));
            }
            let task = |state: &str| serde_json::json!({"task": {"id": "t-ask", "contextId": "c-ask", "status": {"state": state}}});
            // Each ask is a new status message (the console drops a repeated one as a duplicate).
            let ask = move || {
                let text = if follow_up {
                    "still no token: I need it to go on"
                } else {
                    "I need your token to go on"
                };
                sse_frame(status_json(
                    "t-ask",
                    "c-ask",
                    "TASK_STATE_AUTH_REQUIRED",
                    Some(text),
                ))
            };
            if method != "SendStreamingMessage" {
                let state = if method == "CancelTask" {
                    "TASK_STATE_CANCELED"
                } else {
                    "TASK_STATE_AUTH_REQUIRED"
                };
                let body = serde_json::json!({"jsonrpc": "2.0", "id": v["id"], "result": task(state)["task"]})
                    .to_string();
                return Response::builder()
                    .header("content-type", "application/json")
                    .body(Body::from(body))
                    .unwrap();
            }
            let first = vec![
                sse_frame(task("TASK_STATE_WORKING")),
                sse_frame(status_json(
                    "t-ask",
                    "c-ask",
                    "TASK_STATE_WORKING",
                    Some("working on it"),
                )),
            ];
            let later = if follow_up {
                futures::stream::once(async move { ask() }).boxed()
            } else {
                futures::stream::once(async move {
                    // The scenario's own timing (a server that answers late), not a wait of the test's.
                    tokio::time::sleep(ASK_AFTER).await;
                    seen.lock().unwrap().asked_at = Some(Instant::now());
                    ask()
                })
                .boxed()
            };
            let frames = futures::stream::iter(first)
                .chain(later)
                .map(|f| Ok::<_, std::convert::Infallible>(Bytes::from(f)));
            Response::builder()
                .header("content-type", "text/event-stream")
                .body(Body::from_stream(frames))
                .unwrap()
        }
    };
    let card_route = move || {
        let card = card.clone();
        async move {
            Response::builder()
                .header("content-type", "application/json")
                .body(Body::from(card))
                .unwrap()
        }
    };
    let app = axum::Router::new()
        .route("/.well-known/agent-card.json", get(card_route))
        .route("/rpc", post(rpc));
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

async fn wait(h: &mut Headless, what: &str, cond: impl Fn(&str) -> bool) -> String {
    h.wait_until(what, Duration::from_secs(45), cond)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_authorization_request_that_arrives_mid_sentence_decides_nothing() {
    let (tx, mut replies) = tokio::sync::mpsc::unbounded_channel();
    let seen = Arc::new(Mutex::new(Seen {
        replies: Some(tx),
        ..Seen::default()
    }));
    let url = slow_asking_agent(seen.clone()).await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("console.db");
    let mut app = App::new(Keymap::defaults(), Theme::builtin("dark").unwrap());
    app.size = (140, 40);
    let mut target = AgentTarget::from_url(&url, Duration::from_secs(20));
    target.label = "asker".into();
    app.add_agent(target, AgentOrigin::Config);
    let (mut rt, rx) = Runtime::new(None, "dark").unwrap();
    let store = a2a_console::store::Store::open(&db).unwrap();
    rt.writer = Some(a2a_console::store::writer::StoreWriter::spawn(store).unwrap());
    let mut h = Headless::start(app, rt, rx);
    wait(&mut h, "the card", |s| s.contains("7.7.7")).await;
    h.key(KeyCode::Char('n'));
    wait(&mut h, "the compose box", |s| s.contains("Message → asker")).await;
    h.type_text("start the job");
    h.key(KeyCode::Enter);
    wait(&mut h, "the agent working", |s| s.contains("working on it")).await;

    // A person typing their next message at about 6.7 characters a second, across the moment the request
    // arrives (3.5 s in): every letter the dialog used to take (p, a, d, o, y), then Enter.
    let sentence = "please do a password reset for day one, yes ok";
    let mut beat = tokio::time::interval(Duration::from_millis(150));
    let started = Instant::now();
    for c in sentence.chars() {
        beat.tick().await;
        h.key(KeyCode::Char(c));
    }
    let typed_until = Instant::now();
    let asked = seen
        .lock()
        .unwrap()
        .asked_at
        .expect("the agent asked while the user typed");
    assert!(
        started < asked && asked < typed_until,
        "the request arrived mid-sentence ({:?} after the first key, typing took {:?})",
        asked - started,
        typed_until - started
    );
    // Announced while the user types, never opened over the box.
    let screen = wait(
        &mut h,
        "the announcement and the whole sentence in the box",
        |s| {
            s.contains("authorization waits: Esc")
                && s.contains("asks for authorization and waits")
                && s.contains(sentence)
        },
    )
    .await;
    assert!(!screen.contains("Authorization requested"), "{screen}");
    // Enter sends it: the user's own message on the task, whole, with no credential.
    h.key(KeyCode::Enter);
    let follow_up = tokio::time::timeout(Duration::from_secs(30), replies.recv())
        .await
        .expect("the typed message reached the agent in time")
        .expect("the agent is still there");
    assert_eq!(follow_up, sentence);
    wait(&mut h, "the request again", |s| {
        s.contains("authorization waits: Esc")
            && s.matches("asks for authorization and waits").count() >= 2
    })
    .await;

    // Leaving the box opens the dialog; keys typed as it opens are ignored and counted.
    h.key(KeyCode::Esc);
    h.type_text("ad");
    h.press(KeyEvent::new(KeyCode::Char('x'), KeyModifiers::CONTROL));
    wait(&mut h, "the ignored keys", |s| {
        s.contains("Authorization requested") && s.contains("ignored 3 keys typed as it opened")
    })
    .await;
    h.key(KeyCode::Char('l'));
    wait(&mut h, "the dialog closed", |s| {
        !s.contains("Authorization requested")
    })
    .await;
    // `A` reopens it, behind the same guard.
    h.key(KeyCode::Char('A'));
    h.press(KeyEvent::new(KeyCode::Char('t'), KeyModifiers::CONTROL));
    h.key(KeyCode::Enter);
    let screen = wait(&mut h, "the guard after A", |s| {
        s.contains("Authorization requested") && s.contains("ignored 2 keys typed as it opened")
    })
    .await;
    assert!(
        screen.contains("Ctrl-Y") && screen.contains("Ctrl-X"),
        "{screen}"
    );
    h.key(KeyCode::Esc);
    wait(&mut h, "the dialog closed", |s| {
        !s.contains("Authorization requested")
    })
    .await;

    let done = h.finish(Duration::from_secs(10)).await.unwrap();
    done.result.unwrap();
    let calls = &seen.lock().unwrap().calls;
    assert!(
        calls.iter().all(|(_, auth, _)| auth.is_none()),
        "no Authorization header ever went out: {calls:?}"
    );
    assert!(
        calls.iter().all(|(m, _, _)| m != "CancelTask"),
        "the task was not canceled: {calls:?}"
    );
    let store = a2a_console::store::Store::open(&db).unwrap();
    let audit = a2a_console::tui::persist::audit_lines(&store, 1000).unwrap();
    assert!(
        audit
            .iter()
            .all(|r| !r.line.contains("decision=approve") && !r.line.contains("decision=deny")),
        "no approve or deny was audited: {audit:#?}"
    );
    assert!(
        audit.iter().any(|r| r.line.contains("decision=later")),
        "the user's own later is: {audit:#?}"
    );
}
