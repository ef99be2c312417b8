//! The push receiver against hostile agents and clients of ours on 127.0.0.1 (issue 8, findings 6 and 7):
//! an agent that reuses another agent's task id, events with an empty context id, a thousand idle sockets,
//! clients that never finish their headers or bodies, and a flood of refused requests. Each test asserts what
//! a user would notice: the other agent's tab unchanged, a real agent's push still delivered, the log small.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_console::app::agent::AgentOrigin;
use a2a_console::app::state::App;
use a2a_console::config::keymap::Keymap;
use a2a_console::config::theme::Theme;
use a2a_console::push::{DEFAULT_BIND, Limits, PushEvent, PushReceiver, Registered};
use a2a_console::remote::connect::agent::AgentTarget;
use a2a_console::testing::{Headless, sse_frame, status_json};
use a2a_console::tui::runtime::Runtime;
use axum::Router;
use axum::body::Body;
use axum::http::header;
use axum::response::Response;
use axum::routing::{get, post};
use crossterm::event::KeyCode;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use tokio::time::Instant;

const PATIENCE: Duration = Duration::from_secs(45);

// ---------------------------------------------------------------------------------------------------------
// A scripted agent: streams one task (always the same id) that stays working, and keeps the push config the
// console registers, so the test can post as that agent.

#[derive(Clone)]
struct Scripted {
    base: String,
    context: &'static str,
    hello: &'static str,
    push: Arc<Mutex<Option<Value>>>,
}

const SHARED_TASK: &str = "task-42";

async fn scripted_agent(context: &'static str, hello: &'static str) -> Scripted {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let me = Scripted {
        base: base.clone(),
        context,
        hello,
        push: Arc::new(Mutex::new(None)),
    };
    let card = json!({
        "name": format!("agent {context}"), "description": "scripted", "version": format!("7.{context}"),
        "supportedInterfaces": [{"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true, "pushNotifications": true},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": []
    })
    .to_string();
    let state = me.clone();
    let app = Router::new()
        .route(
            "/.well-known/agent-card.json",
            get(move || {
                let card = card.clone();
                async move {
                    Response::builder()
                        .header(header::CONTENT_TYPE, "application/json")
                        .body(Body::from(card))
                        .unwrap()
                }
            }),
        )
        .route(
            "/rpc",
            post(move |body: String| {
                let state = state.clone();
                async move { state.rpc(&body) }
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    me
}

impl Scripted {
    fn task(&self) -> Value {
        json!({"id": SHARED_TASK, "contextId": self.context, "status": {"state": "TASK_STATE_WORKING",
            "message": {"messageId": format!("m-{}", self.context), "role": "ROLE_AGENT",
                        "parts": [{"text": self.hello}]}}})
    }

    fn rpc(&self, body: &str) -> Response {
        let req: Value = serde_json::from_str(body).unwrap();
        let id = req["id"].clone();
        let json = |v: Value| {
            Response::builder()
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from(v.to_string()))
                .unwrap()
        };
        match req["method"].as_str().unwrap_or_default() {
            "SendStreamingMessage" | "SubscribeToTask" => {
                let first = sse_frame(json!({"task": self.task()}));
                // Stays open, as a long task's stream does.
                let stream = futures::stream::unfold(Some(first), |next| async move {
                    match next {
                        Some(f) => Some((Ok::<_, std::convert::Infallible>(f), None)),
                        None => {
                            tokio::time::sleep(Duration::from_secs(600)).await;
                            None
                        }
                    }
                });
                Response::builder()
                    .header(header::CONTENT_TYPE, "text/event-stream")
                    .body(Body::from_stream(stream))
                    .unwrap()
            }
            "CreateTaskPushNotificationConfig" => {
                let mut cfg = req["params"].clone();
                cfg["id"] = json!("cfg-1");
                *self.push.lock().unwrap() = Some(cfg.clone());
                json(json!({"jsonrpc": "2.0", "id": id, "result": cfg}))
            }
            "GetTask" => json(json!({"jsonrpc": "2.0", "id": id, "result": self.task()})),
            other => json(json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": format!("no {other}")}})),
        }
    }

    /// The webhook URL and token the console gave this agent.
    async fn registered(&self) -> (String, String) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(cfg) = self.push.lock().unwrap().clone() {
                let token = cfg["token"].as_str().unwrap().to_owned();
                return (cfg["url"].as_str().unwrap().to_owned(), token);
            }
            assert!(Instant::now() < deadline, "the console never registered");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

async fn wait(h: &mut Headless, what: &str) -> String {
    h.wait(what, PATIENCE)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

async fn post_push(url: &str, token: &str, body: &Value) -> u16 {
    reqwest::Client::new()
        .post(url)
        .header("X-A2A-Notification-Token", token)
        .json(body)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// Finding 6: agent B uses the same task id as agent A. Before, B's registration took over A's token, and
/// B's pushes (with an empty context id, which passed the check) were shown in A's tab. Now B gets its own
/// address and token: B's token does not open A's address, B's empty or foreign context is refused, and
/// what B may legitimately push lands in B's own tab, never in A's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_reusing_another_agents_task_id_cannot_write_into_its_tab() {
    let a = scripted_agent("ctx-a", "A is working on it").await;
    let b = scripted_agent("ctx-b", "B is working on it").await;
    let mut app = App::new(Keymap::defaults(), Theme::builtin("dark").unwrap());
    app.size = (120, 40);
    for (label, url) in [("alpha", &a.base), ("bravo", &b.base)] {
        let mut t = AgentTarget::from_url(url, Duration::from_secs(20));
        t.label = label.to_string();
        app.add_agent(t, AgentOrigin::Config);
    }
    let (mut rt, rx) = Runtime::new(None, "dark").unwrap();
    rt.start_push(DEFAULT_BIND).await.unwrap();
    app.push_enabled = true;
    let mut h = Headless::start(app, rt, rx);
    // Both cards loaded (each agent row shows its card's version).
    wait(&mut h, "card 7.ctx-a").await;
    wait(&mut h, "card 7.ctx-b").await;

    // A task on A, then one on B (agent list: focus it, move down, new task).
    h.key(KeyCode::Char('n'));
    h.type_text("hello A");
    h.key(KeyCode::Enter);
    wait(&mut h, "A is working on it").await;
    let (url_a, token_a) = a.registered().await;
    h.key(KeyCode::Esc);
    h.key(KeyCode::BackTab);
    h.key(KeyCode::Down);
    h.key(KeyCode::Char('n'));
    h.type_text("hello B");
    h.key(KeyCode::Enter);
    wait(&mut h, "B is working on it").await;
    let (url_b, token_b) = b.registered().await;
    assert_ne!(url_a, url_b, "one address per (agent, task)");
    assert_ne!(token_a, token_b);

    let injected = |ctx: &str, text: &str| {
        status_json(SHARED_TASK, ctx, "TASK_STATE_INPUT_REQUIRED", Some(text))
    };
    // B's token at A's address; B with no context, or with A's; all refused.
    assert_eq!(
        post_push(&url_a, &token_b, &injected("ctx-a", "B via A's url")).await,
        401
    );
    assert_eq!(
        post_push(&url_b, &token_b, &injected("", "B no context")).await,
        400
    );
    assert_eq!(
        post_push(&url_b, &token_b, &injected("ctx-a", "B with A's context")).await,
        400
    );
    // What B may push about its own task shows in B's tab.
    assert_eq!(
        post_push(&url_b, &token_b, &injected("ctx-b", "B's own update")).await,
        200
    );
    wait(&mut h, "B's own update").await;

    // A's tab: only A's text, nothing of B's.
    h.press(crossterm::event::KeyEvent::new(
        KeyCode::Char('1'),
        crossterm::event::KeyModifiers::ALT,
    ));
    let screen = h
        .wait_until("A's tab", PATIENCE, |s| {
            s.contains("A is working on it") && !s.contains("B is working on it")
        })
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    for leaked in [
        "B via A's url",
        "B no context",
        "B with A's context",
        "B's own update",
    ] {
        assert!(
            !screen.contains(leaked),
            "{leaked:?} reached A's tab:\n{screen}"
        );
    }
    // A itself, once its context is known, cannot drop it either.
    assert_eq!(
        post_push(&url_a, &token_a, &injected("", "A without context")).await,
        400
    );
    assert_eq!(
        post_push(&url_a, &token_a, &injected("ctx-a", "A's own update")).await,
        200
    );
    let screen = wait(&mut h, "A's own update").await;
    assert!(!screen.contains("A without context"), "{screen}");
    let done = h.finish(Duration::from_secs(10)).await.unwrap();
    done.result.unwrap();
}

// ---------------------------------------------------------------------------------------------------------
// The receiver alone, with short limits.

async fn receiver(limits: Limits) -> (PushReceiver, UnboundedReceiver<PushEvent>) {
    let (tx, rx) = unbounded_channel();
    (
        PushReceiver::start_with(DEFAULT_BIND, limits, tx)
            .await
            .unwrap(),
        rx,
    )
}

fn event(text: &str) -> Value {
    status_json("t-1", "c-1", "TASK_STATE_WORKING", Some(text))
}

async fn next(rx: &mut UnboundedReceiver<PushEvent>) -> PushEvent {
    tokio::time::timeout(PATIENCE, rx.recv())
        .await
        .expect("an event in time")
        .expect("channel open")
}

/// Wait for `cond`, polling (the receiver's counts change on its own tasks).
async fn eventually(what: &str, within: Duration, cond: impl Fn() -> bool) {
    let deadline = Instant::now() + within;
    while !cond() {
        assert!(Instant::now() < deadline, "not within {within:?}: {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// How long until the server closes `s` (reads until EOF or reset), at most `within`.
async fn closed_within(s: &mut TcpStream, within: Duration) -> Option<Duration> {
    let start = Instant::now();
    let mut buf = [0u8; 4096];
    let read = async {
        loop {
            match s.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
    };
    tokio::time::timeout(within, read)
        .await
        .ok()
        .map(|()| start.elapsed())
}

/// Finding 7: 1 100 sockets that connect and say nothing. Before, each held a descriptor for good and the
/// console's own connections to agents then failed. Now the receiver serves at most its cap, and a real
/// agent's push still gets through at once (it takes the place of the socket idle longest).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_idle_sockets_do_not_lock_out_a_real_push() {
    let (r, mut rx) = receiver(Limits {
        max_connections: 32,
        // Long, so it is the cap that helps here, not the timeout.
        header_timeout: Duration::from_secs(60),
        ..Limits::default()
    })
    .await;
    let Registered { url, token } = r.register("agent".into(), "t-1", Some("c-1")).unwrap();
    let mut idle = Vec::new();
    for _ in 0..1100 {
        idle.push(TcpStream::connect(r.local_addr()).await.unwrap());
    }
    eventually("the receiver keeps to its cap", PATIENCE, || {
        r.connections() <= 32
    })
    .await;
    let started = Instant::now();
    assert_eq!(post_push(&url, &token, &event("through")).await, 200);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let e = next(&mut rx).await;
    assert_eq!((e.agent.as_str(), e.task_id.as_str()), ("agent", "t-1"));
    assert!(r.connections() <= 32, "{}", r.connections());
    drop(idle);
    r.shutdown().await;
}

/// Every place taken by a request in progress (slow bodies): a new connection is closed at once instead of
/// waiting in a queue, and once the slow bodies time out the cap frees and a push is accepted again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_cap_with_every_connection_busy_new_ones_are_closed_then_accepted_when_it_frees() {
    let body_timeout = Duration::from_millis(1500);
    let (r, mut rx) = receiver(Limits {
        max_connections: 4,
        body_timeout,
        ..Limits::default()
    })
    .await;
    let Registered { url, token } = r.register("agent".into(), "t-1", None).unwrap();
    let path = url
        .trim_start_matches(&format!("http://{}", r.local_addr()))
        .to_owned();
    let mut slow = Vec::new();
    for _ in 0..4 {
        let mut s = TcpStream::connect(r.local_addr()).await.unwrap();
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: x\r\nX-A2A-Notification-Token: {token}\r\n\
             Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{{"
        );
        s.write_all(head.as_bytes()).await.unwrap();
        slow.push(s);
    }
    eventually("four busy connections", PATIENCE, || {
        r.busy_connections() == 4
    })
    .await;
    let mut extra = TcpStream::connect(r.local_addr()).await.unwrap();
    // Well before anything could free a place (the slow bodies have 1.5 s): closed, not parked.
    let closed = closed_within(&mut extra, Duration::from_millis(500)).await;
    assert!(
        closed.is_some(),
        "a connection beyond the cap waits instead of being closed"
    );
    // The slow bodies run out of time (408) and their places free up.
    for s in &mut slow {
        let mut got = Vec::new();
        let _ = tokio::time::timeout(PATIENCE, s.read_to_end(&mut got)).await;
        assert!(
            String::from_utf8_lossy(&got).starts_with("HTTP/1.1 408"),
            "{:?}",
            String::from_utf8_lossy(&got)
        );
    }
    assert_eq!(post_push(&url, &token, &event("after")).await, 200);
    assert_eq!(next(&mut rx).await.task_id, "t-1");
    r.shutdown().await;
}

/// A client that never finishes its request head is dropped after the header timeout, and a kept-alive
/// connection with nothing more to say after the idle timeout; neither holds a place afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_headers_and_idle_keep_alive_connections_are_dropped() {
    let (r, _rx) = receiver(Limits {
        header_timeout: Duration::from_millis(400),
        idle_timeout: Duration::from_millis(300),
        ..Limits::default()
    })
    .await;
    let mut slow = TcpStream::connect(r.local_addr()).await.unwrap();
    slow.write_all(b"POST /a2a/push/0123 HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let after = closed_within(&mut slow, Duration::from_secs(10))
        .await
        .expect("a half-sent head is dropped");
    assert!(after >= Duration::from_millis(300), "{after:?}");

    let mut kept = TcpStream::connect(r.local_addr()).await.unwrap();
    kept.write_all(b"POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 512];
    let n = kept.read(&mut buf).await.unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 404"));
    closed_within(&mut kept, Duration::from_secs(10))
        .await
        .expect("an idle kept-alive connection is closed");
    eventually("no places held", Duration::from_secs(5), || {
        r.connections() == 0
    })
    .await;
    r.shutdown().await;
}

/// What became of one of a crowding agent's connections.
#[derive(Debug, Default)]
struct Trickled {
    /// What the server wrote back (a 429 naming the reason, for a refused one).
    answer: String,
    /// The server closed it.
    closed: bool,
}

/// Sends `head` and then one byte of body every 200 ms (never finishing it), until the server answers or
/// closes, or `stop` fires.
async fn trickle(
    addr: std::net::SocketAddr,
    head: String,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> Trickled {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let mut out = Trickled::default();
    if s.write_all(head.as_bytes()).await.is_err() {
        out.closed = true;
        return out;
    }
    let mut buf = [0u8; 1024];
    loop {
        tokio::select! {
            read = s.read(&mut buf) => match read {
                Ok(0) | Err(_) => {
                    out.closed = true;
                    return out;
                }
                Ok(n) => out.answer.push_str(&String::from_utf8_lossy(&buf[..n])),
            },
            _ = tokio::time::sleep(Duration::from_millis(200)) => {
                if s.write_all(b" ").await.is_err() {
                    out.closed = true;
                    return out;
                }
            }
            _ = stop.changed() => return out,
        }
    }
}

/// Issue 9, item 10: agent X holds slow bodies on its own valid path (right token, a request head, then a
/// byte now and then). Before, its connections took every place of the receiver (all busy, so each new
/// connection was closed at once) until the bodies timed out, and agent Y's push was refused. Now X gets at
/// most its few places in flight; its extra requests are answered 429 with the reason and closed, and Y's
/// push is delivered at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_agent_trickling_bodies_on_its_own_path_cannot_starve_another_agents_push() {
    let (r, mut rx) = receiver(Limits {
        max_connections: 16,
        // Long, so nothing frees X's places during the test but the per-agent bound itself.
        body_timeout: Duration::from_secs(120),
        header_timeout: Duration::from_secs(120),
        ..Limits::default()
    })
    .await;
    let x = r.register("agent-x".into(), "t-x", None).unwrap();
    let y = r.register("agent-y".into(), "t-1", Some("c-1")).unwrap();
    let path = x
        .url
        .trim_start_matches(&format!("http://{}", r.local_addr()))
        .to_owned();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {}\r\n\
         Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{{",
        x.token
    );
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let mut crowd = Vec::new();
    for _ in 0..40 {
        crowd.push(tokio::spawn(trickle(
            r.local_addr(),
            head.clone(),
            stopped.clone(),
        )));
    }
    // X's requests reach the handler; at most its per-registration bound stays in progress.
    eventually("X's crowd is served or refused", PATIENCE, || {
        r.rejected().len() + r.busy_connections() >= 16
    })
    .await;
    eventually(
        "X holds at most a few places",
        Duration::from_secs(10),
        || r.busy_connections() <= 4,
    )
    .await;
    let started = Instant::now();
    assert_eq!(
        post_push(&y.url, &y.token, &event("Y gets through")).await,
        200
    );
    let e = next(&mut rx).await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!((e.agent.as_str(), e.task_id.as_str()), ("agent-y", "t-1"));
    // X's extra connections were answered with the reason and closed; the few in flight are still open.
    let finished = {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let done = crowd.iter().filter(|t| t.is_finished()).count();
            if done >= 36 || Instant::now() >= deadline {
                break done;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    let _ = stop.send(true);
    let mut outcomes = Vec::new();
    for t in crowd {
        outcomes.push(t.await.unwrap());
    }
    let closed = outcomes.iter().filter(|o| o.closed).count();
    assert!(
        finished >= 36 && closed >= 36,
        "X kept too many connections: {closed} of 40 closed"
    );
    let told = outcomes
        .iter()
        .filter(|o| {
            o.answer.starts_with("HTTP/1.1 429") && o.answer.contains("already in progress")
        })
        .count();
    assert!(
        told >= 1,
        "no refused connection was told why: {outcomes:?}"
    );
    assert!(
        r.rejected()
            .iter()
            .any(|(_, task, why)| task == "t-x" && why.to_string().contains("already in progress")),
        "{:?}",
        r.rejected()
    );
    r.shutdown().await;
}
