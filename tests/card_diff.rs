//! A card that changes between two fetches: `card --diff` lists the changes field by field with the ones that
//! break a client flagged, and the console shows the same after `r`, and at start against the card its store
//! kept. The agent is a small server in this file whose card the test rewrites; only 127.0.0.1 is used.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_console::app::agent::AgentOrigin;
use a2a_console::app::state::App;
use a2a_console::config::keymap::Keymap;
use a2a_console::config::theme::Theme;
use a2a_console::remote::connect::agent::AgentTarget;
use a2a_console::testing::Headless;
use a2a_console::tui::runtime::Runtime;
use axum::Router;
use axum::extract::State;
use axum::response::IntoResponse;
use crossterm::event::KeyCode;
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(30);

fn card(base: &str, with_rest: bool) -> Value {
    let mut interfaces = vec![
        json!({"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}),
    ];
    if with_rest {
        interfaces.push(json!({"url": format!("{base}/rest"), "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}));
    }
    json!({
        "name": "Changing", "description": "its card changes", "version": "1",
        "supportedInterfaces": interfaces, "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "Echo", "description": "echoes", "tags": ["t"]}]
    })
}

/// Serve `card` (rewritable) at the well-known path.
async fn serve(card: Arc<Mutex<Value>>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    async fn get(State(c): State<Arc<Mutex<Value>>>) -> axum::response::Response {
        let body = c.lock().unwrap().to_string();
        ([("content-type", "application/json")], body).into_response()
    }
    let app = Router::new()
        .route("/.well-known/agent-card.json", axum::routing::get(get))
        .with_state(card);
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

fn cli_diff(url: &str, db: &std::path::Path, json: bool) -> common::Run {
    let mut args = vec!["card", url, "--diff"];
    if json {
        args.push("--json");
    }
    common::cli_env(&args, &[("A2A_CONSOLE_DB", db.to_str().unwrap())])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn card_diff_in_the_cli_flags_what_breaks_a_client() {
    let shared = Arc::new(Mutex::new(Value::Null));
    let base = serve(shared.clone()).await;
    *shared.lock().unwrap() = card(&base, true);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store.db");
    let url = base.clone();
    let db2 = db.clone();
    let first = tokio::task::spawn_blocking(move || cli_diff(&url, &db2, false))
        .await
        .unwrap();
    assert!(
        first
            .stdout
            .contains("no card of this agent was kept before"),
        "{}",
        first.all()
    );
    let url = base.clone();
    let db2 = db.clone();
    let same = tokio::task::spawn_blocking(move || cli_diff(&url, &db2, false))
        .await
        .unwrap();
    assert!(
        same.stdout.contains("no change since the card kept at"),
        "{}",
        same.all()
    );
    // The HTTP+JSON interface goes, the description changes.
    let mut changed = card(&base, false);
    changed["description"] = "its card changed".into();
    *shared.lock().unwrap() = changed;
    let url = base.clone();
    let db2 = db.clone();
    let diff = tokio::task::spawn_blocking(move || cli_diff(&url, &db2, true))
        .await
        .unwrap();
    let v: Value =
        serde_json::from_str(&diff.stdout).unwrap_or_else(|e| panic!("{e}: {}", diff.all()));
    assert_eq!(v["breaking"], 1, "{v:#}");
    assert_eq!(
        v["changes"][0]["field"],
        "supportedInterfaces[HTTP+JSON 1.0]"
    );
    assert_eq!(
        v["changes"][0]["breaking"],
        "the HTTP+JSON 1.0 interface was removed"
    );
    assert_eq!(v["changes"][1]["field"], "description");
    assert_eq!(v["changes"].as_array().unwrap().len(), 2, "{v:#}");
}

async fn console(url: &str, db: &std::path::Path) -> Headless {
    let mut app = App::new(Keymap::defaults(), Theme::builtin("dark").unwrap());
    app.size = (140, 44);
    let mut t = AgentTarget::from_url(url, Duration::from_secs(20));
    t.label = "changing".into();
    app.add_agent(t, AgentOrigin::Config);
    let (mut rt, rx) = Runtime::new(None, "dark").unwrap();
    let store = a2a_console::store::Store::open(db).unwrap();
    // As the console starts: the cards the store kept are what a fetched one is compared with.
    let cached = a2a_console::tui::persist::cached_cards(&store, &mut app);
    rt.prime_cards(cached);
    rt.writer = Some(a2a_console::store::writer::StoreWriter::spawn(store).unwrap());
    Headless::start(app, rt, rx)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_shows_a_changed_card_after_r_and_at_start() {
    let shared = Arc::new(Mutex::new(Value::Null));
    let base = serve(shared.clone()).await;
    *shared.lock().unwrap() = card(&base, true);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store.db");
    let mut h = console(&base, &db).await;
    h.wait("card 1", WAIT).await.unwrap();
    let s = h.wait("HTTP+JSON", WAIT).await.unwrap();
    assert!(!s.contains("card changed"), "{s}");
    // The agent drops its HTTP+JSON interface; the user refreshes the card.
    *shared.lock().unwrap() = card(&base, false);
    h.key(KeyCode::Char('r'));
    let s = h.wait("card changed · 1 breaking ✗", WAIT).await.unwrap();
    assert!(
        s.contains("✗ breaking: the HTTP+JSON 1.0 interface was removed"),
        "{s}"
    );
    drop(h);
    // The interface is back while the console was closed: at start, the card differs from the kept one.
    *shared.lock().unwrap() = card(&base, true);
    let mut h = console(&base, &db).await;
    let s = h.wait("card changed · 1 field", WAIT).await.unwrap();
    assert!(s.contains("+ supportedInterfaces[HTTP+JSON 1.0]"), "{s}");
}
