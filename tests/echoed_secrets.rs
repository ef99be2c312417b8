//! Issue [9] item 5: an agent that echoes back the credentials it was sent — the bearer token, a secret
//! static header, an API key that travelled in the query string — in a status message and an artifact. The
//! secrets must appear nowhere: not in the CLI's text or `--json` output (plain and streamed), not on the
//! console's screen, not in the bytes of its SQLite store, not in an export. The agent is a small JSON-RPC
//! server of ours on 127.0.0.1 that reads the request's headers and query and writes them into its replies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use a2a_console::app::agent::AgentOrigin;
use a2a_console::app::state::App;
use a2a_console::config::keymap::Keymap;
use a2a_console::config::theme::Theme;
use a2a_console::config::{AuthConfig, AuthKind};
use a2a_console::remote::connect::agent::AgentTarget;
use a2a_console::testing::Headless;
use a2a_console::tui::runtime::Runtime;
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use crossterm::event::KeyCode;
use serde_json::{Value, json};

const BEARER: &str = "bearer-secret-7f3a9c2e";
const HEADER: &str = "header-secret-51d0b8aa";
const QUERY_KEY: &str = "query-secret-c4e8a6d1";

/// What the agent saw of the request, as it writes it back.
fn echo_of(headers: &HeaderMap, uri: &Uri) -> String {
    let h = |n: &str| {
        headers
            .get(n)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("-")
            .to_string()
    };
    format!(
        "you sent Authorization: {}; X-Api-Token: {}; query: {}",
        h("authorization"),
        h("x-api-token"),
        uri.query().unwrap_or("-")
    )
}

fn task(echo: &str, state: &str) -> Value {
    json!({"id": "t-echo", "contextId": "c-echo",
        "status": {"state": state, "message": {"messageId": "m-echo", "role": "ROLE_AGENT",
            "parts": [{"text": echo}]}},
        "artifacts": [{"artifactId": "a-echo", "name": "what you sent",
            "parts": [{"text": echo}, {"data": {"echo": echo}}]}]})
}

async fn rpc(State(base): State<String>, headers: HeaderMap, uri: Uri, body: Bytes) -> Response {
    let _ = base;
    let req: Value = serde_json::from_slice(&body).unwrap_or_default();
    let id = req.get("id").cloned().unwrap_or(Value::Null);
    let echo = echo_of(&headers, &uri);
    let method = req.get("method").and_then(Value::as_str).unwrap_or("");
    match method {
        "SendStreamingMessage" | "SubscribeToTask" => {
            let frames = [
                json!({"statusUpdate": {"taskId": "t-echo", "contextId": "c-echo",
                    "status": {"state": "TASK_STATE_WORKING", "message": {"messageId": "m-w", "role": "ROLE_AGENT",
                        "parts": [{"text": format!("working: {echo}")}]}}}}),
                json!({"artifactUpdate": {"taskId": "t-echo", "contextId": "c-echo", "lastChunk": true,
                    "artifact": {"artifactId": "a-echo", "name": "what you sent", "parts": [{"text": echo}]}}}),
                json!({"statusUpdate": {"taskId": "t-echo", "contextId": "c-echo",
                    "status": {"state": "TASK_STATE_COMPLETED", "message": {"messageId": "m-c", "role": "ROLE_AGENT",
                        "parts": [{"text": format!("done: {echo}")}]}}}}),
            ];
            let body: String = frames
                .iter()
                .map(|r| {
                    format!(
                        "data: {}\n\n",
                        json!({"jsonrpc": "2.0", "id": id, "result": r})
                    )
                })
                .collect();
            ([(header::CONTENT_TYPE, "text/event-stream")], body).into_response()
        }
        "SendMessage" | "GetTask" | "CancelTask" => {
            let result = if method == "SendMessage" {
                json!({"task": task(&echo, "TASK_STATE_COMPLETED")})
            } else {
                task(&echo, "TASK_STATE_COMPLETED")
            };
            json_reply(json!({"jsonrpc": "2.0", "id": id, "result": result}))
        }
        _ => json_reply(json!({"jsonrpc": "2.0", "id": id,
            "error": {"code": -32601, "message": format!("no {method}; {echo}")}})),
    }
}

fn json_reply(v: Value) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], v.to_string()).into_response()
}

/// The echoing agent on 127.0.0.1; its base URL.
async fn echo_agent() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let card = json!({"name": "echoer", "description": "echoes what it was sent", "version": "1",
        "supportedInterfaces": [{"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true}, "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"], "skills": []})
    .to_string();
    let app = Router::new()
        .route(
            "/.well-known/agent-card.json",
            get(move || {
                let card = card.clone();
                async move { json_reply(serde_json::from_str(&card).unwrap()) }
            }),
        )
        .route("/rpc", post(rpc))
        .with_state(base.clone());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    base
}

fn assert_no_secret(what: &str, text: &str) {
    for s in [BEARER, HEADER, QUERY_KEY] {
        assert!(!text.contains(s), "{what} shows {s}:\n{text}");
    }
}

/// The agent really does echo them: without the redactor every one of them would be on screen.
fn assert_echo_arrived(what: &str, text: &str) {
    assert!(
        text.contains("Authorization: ‹redacted›; X-Api-Token: ‹redacted›"),
        "{what}: {text}"
    );
}

#[test]
fn the_cli_never_prints_an_echoed_secret() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let base = rt.block_on(echo_agent());
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    std::fs::write(
        &cfg,
        format!(
            "[[agents]]\nname = \"bearer\"\nurl = \"{base}\"\nheaders = {{ \"X-Api-Token\" = \"{HEADER}\" }}\n\
             [agents.auth]\ntype = \"bearer\"\ntoken_cmd = \"printf %s {BEARER}\"\n\n\
             [[agents]]\nname = \"query\"\nurl = \"{base}\"\n[agents.auth]\ntype = \"api_key\"\n\
             location = \"query\"\nname = \"api_key\"\ntoken_cmd = \"printf %s {QUERY_KEY}\"\n"
        ),
    )
    .unwrap();
    let cfg = cfg.to_str().unwrap();
    for agent in ["bearer", "query"] {
        for extra in [&[][..], &["--json"], &["--stream"], &["--stream", "--json"]] {
            let mut args = vec!["--config", cfg, "send", agent, "what did I send?"];
            args.extend_from_slice(extra);
            let r = common::cli(&args);
            assert_eq!(r.code, 0, "{agent} {extra:?}: {}", r.all());
            assert_no_secret(&format!("send {agent} {extra:?}"), &r.all());
            assert!(
                r.stdout.contains("‹redacted›"),
                "{agent} {extra:?}: {}",
                r.stdout
            );
        }
        let r = common::cli(&["--config", cfg, "get", agent, "t-echo", "--json"]);
        assert_no_secret(&format!("get {agent}"), &r.all());
    }
    let r = common::cli(&["--config", cfg, "send", "bearer", "again"]);
    assert_echo_arrived("send", &r.stdout);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_screen_store_and_export_never_hold_an_echoed_secret() {
    let base = echo_agent().await;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("console.db");
    let mut app = App::new(Keymap::defaults(), Theme::builtin("dark").unwrap());
    app.size = (140, 45);
    let mut t = AgentTarget::from_url(&base, Duration::from_secs(20));
    t.label = "echoer".into();
    t.headers.insert("X-Api-Token".into(), HEADER.into());
    t.auth = Some(AuthConfig {
        kind: AuthKind::Bearer,
        token_cmd: Some(format!("printf %s {BEARER}")),
        ..AuthConfig::new(AuthKind::Bearer)
    });
    app.add_agent(t, AgentOrigin::Config);
    let (mut rt, rx) = Runtime::new(None, "dark").unwrap();
    let store = a2a_console::store::Store::open(&db).unwrap();
    rt.writer = Some(a2a_console::store::writer::StoreWriter::spawn(store).unwrap());
    let mut h = Headless::start(app, rt, rx);
    let wait = Duration::from_secs(45);
    h.wait("card 1", wait)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    h.key(KeyCode::Char('n'));
    h.wait("Message → echoer", wait)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    h.type_text("what did I send?");
    h.key(KeyCode::Enter);
    let screen = h
        .wait_until("the echo, completed", wait, |s| {
            s.contains("✓ completed") && s.contains("‹redacted›")
        })
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_no_secret("the transcript", &screen);
    assert_echo_arrived("the transcript", &screen);
    // The raw JSON of the task and of the selected event (the artifact, two entries up from the newest).
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char(','));
    h.key(KeyCode::Char(','));
    h.key(KeyCode::Char(','));
    h.key(KeyCode::Char('J'));
    let raw = h
        .wait_until("the raw JSON viewer", wait, |s| {
            s.contains("Raw JSON") && s.contains("‹redacted›")
        })
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_no_secret("the raw JSON view", &raw);
    h.key(KeyCode::Esc);
    let done = h.finish(Duration::from_secs(15)).await.unwrap();
    done.result.unwrap();

    // Every byte of the store (the database and, if any, its write-ahead log).
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let path = entry.unwrap().path();
        let bytes = std::fs::read(&path).unwrap();
        assert_no_secret(
            &path.display().to_string(),
            &String::from_utf8_lossy(&bytes),
        );
    }
    let store = a2a_console::store::Store::open(&db).unwrap();
    let rec = store
        .tasks()
        .unwrap()
        .into_iter()
        .find(|t| t.task_id == "t-echo")
        .expect("the task is stored");
    let events = store.events(&rec.agent_url, "t-echo").unwrap();
    let all = format!("{events:?}");
    assert!(
        all.contains("‹redacted›"),
        "the echo is stored, redacted: {all}"
    );
    drop(store);
    let dbs = db.display().to_string();
    for format in ["md", "json"] {
        let r = common::cli_env(
            &["export", "t-echo", "--format", format],
            &[("A2A_CONSOLE_DB", &dbs)],
        );
        assert_eq!(r.code, 0, "{}", r.all());
        assert_no_secret(&format!("export --format {format}"), &r.stdout);
        assert!(r.stdout.contains("‹redacted›"), "{}", r.stdout);
    }
}
