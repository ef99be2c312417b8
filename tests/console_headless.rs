//! The real console runtime on a `TestBackend`, keys injected through a channel, against real servers on
//! 127.0.0.1: the embedded demo agent and the official Python SDK peer. Waits are on what the screen shows,
//! with timeouts, never fixed sleeps.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use a2a_console::app::agent::AgentOrigin;
use a2a_console::app::state::App;
use a2a_console::config::keymap::Keymap;
use a2a_console::config::theme::Theme;
use a2a_console::remote::connect::agent::AgentTarget;
use a2a_console::testing::Headless;
use a2a_console::tui::runtime::Runtime;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// The shared headless console, with this file's conventions: a 45 s wait that panics with the last screen.
struct Console {
    /// Where the local push receiver listens, when started.
    push_addr: Option<std::net::SocketAddr>,
    h: Headless,
}

impl Console {
    async fn start(agents: &[(&str, &str)]) -> Console {
        Self::start_with_db(agents, None).await
    }

    /// Like `start`, with the local store at `db` (tabs restored from it, everything written to it).
    async fn start_with_db(agents: &[(&str, &str)], db: Option<&std::path::Path>) -> Console {
        Self::start_full(agents, db, false).await
    }

    async fn start_full(
        agents: &[(&str, &str)],
        db: Option<&std::path::Path>,
        push: bool,
    ) -> Console {
        let (mut app, mut rt, rx) = a2a_console::testing::console_on(agents, (120, 40), db);
        let mut push_addr = None;
        if push {
            push_addr = Some(rt.start_push("127.0.0.1:0".parse().unwrap()).await.unwrap());
            app.push_enabled = true;
        }
        Console {
            push_addr,
            h: Headless::start(app, rt, rx),
        }
    }

    fn key(&self, code: KeyCode) {
        self.h.key(code);
    }

    fn press(&self, key: KeyEvent) {
        self.h.press(key);
    }

    fn type_text(&self, s: &str) {
        self.h.type_text(s);
    }

    /// Wait until the screen contains `needle`; returns the screen.
    async fn wait_for(&mut self, needle: &str) -> String {
        self.wait_until(needle, |s| s.contains(needle)).await
    }

    async fn wait_until(&mut self, what: &str, cond: impl Fn(&str) -> bool) -> String {
        self.h
            .wait_until(what, Duration::from_secs(45), cond)
            .await
            .unwrap_or_else(|e| panic!("{e}"))
    }

    /// Wait for the authorization dialog with its keys live (its key guard has run out).
    async fn wait_for_dialog(&mut self) -> String {
        self.wait_until("the authorization dialog, its keys live", |s| {
            s.contains("Authorization requested") && !s.contains("keys are ignored")
        })
        .await
    }

    async fn quit(self) -> (App, u64) {
        let done = self
            .h
            .finish(Duration::from_secs(10))
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        done.result.unwrap();
        (done.app, done.runtime.frames)
    }
}

/// Start a conversation: `n` opens a tab on the selected agent, type, Enter sends.
fn send(c: &Console, text: &str) {
    c.type_text(text);
    c.key(KeyCode::Enter);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skill_example_runs_and_badge_goes_working_then_completed() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let mut c = Console::start(&[("demo", &demo.base_url())]).await;
    c.wait_for("card 0.1.0").await;
    // Skills browser: the cursor is on the first example ("echo hello, agent"); Enter opens a tab with it.
    c.key(KeyCode::Char('s'));
    c.wait_for("Skills · demo").await;
    c.key(KeyCode::Enter);
    let screen = c.wait_for("Message → demo").await;
    assert!(
        screen.contains("echo hello, agent"),
        "the example is in the compose box:\n{screen}"
    );
    c.key(KeyCode::Enter);
    let screen = c.wait_for("✓ completed").await;
    assert!(screen.contains("echo: hello, agent"), "{screen}");

    // A streamed artifact: the badge shows working while chunks arrive, then completed.
    send(&c, "stream 60");
    c.wait_until("working", |s| s.contains("◐ working")).await;
    let screen = c
        .wait_until("completed again", |s| {
            s.contains("✓ completed") && s.contains("complete") && !s.contains("◐ working")
        })
        .await;
    assert!(
        screen.contains("Chapter"),
        "the streamed story is shown:\n{screen}"
    );
    let (app, frames) = c.quit().await;
    assert_eq!(app.tabs.len(), 1);
    assert!(frames > 2);
    demo.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ask_answer_hostile_and_cancel() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let mut c = Console::start(&[("demo", &demo.base_url())]).await;
    c.wait_for("card 0.1.0").await;
    c.key(KeyCode::Char('n'));
    c.wait_for("Message → demo").await;
    send(&c, "ask");
    let screen = c.wait_for("? input-required").await;
    assert!(screen.contains("What is your name?"), "{screen}");
    assert!(screen.contains("waiting for your answer"), "{screen}");
    send(&c, "Ada");
    c.wait_for("Nice to meet you, Ada").await;

    // Hostile text arrives sanitised and marked.
    c.key(KeyCode::Esc); // leave the compose box: there `n` types an n
    c.key(KeyCode::Char('n'));
    c.wait_for("▶2 demo").await;
    send(&c, "hostile");
    let screen = c
        .wait_until("hostile done", |s| {
            // Tab 2's own badge (tab 1's "✓ completed" is on the tab bar too).
            let tab2_done = s.lines().next().is_some_and(|bar| {
                bar.split("▶2 demo").nth(1).is_some_and(|t| {
                    t.split("  ")
                        .next()
                        .is_some_and(|t| t.contains("✓ completed"))
                })
            });
            tab2_done && s.contains("⚠")
        })
        .await;
    assert!(
        !screen.contains('\u{1b}') && !screen.contains('\u{7}'),
        "{screen:?}"
    );
    assert!(screen.contains("▍remote · demo"), "{screen}");

    // Cancel a slow task, with confirmation.
    c.key(KeyCode::Esc);
    c.key(KeyCode::Char('n'));
    c.wait_for("▶3 demo").await;
    send(&c, "slow 60");
    c.wait_for("◐ working").await;
    c.key(KeyCode::Esc); // leave the compose box
    c.key(KeyCode::Char('c'));
    // The confirmation guards its keys for half a second after it opens (a key typed for something else
    // must not cancel a task): answer once the guard has run out, as a person reading it would.
    c.wait_until("the cancel confirmation, its keys live", |s| {
        s.contains("Cancel task") && !s.contains("keys are ignored")
    })
    .await;
    c.key(KeyCode::Char('y'));
    c.wait_for("⊘ canceled").await;
    c.quit().await;
    demo.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_stream_marks_the_tab_disconnected_and_keeps_what_arrived() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let mut c = Console::start(&[
        ("demo", &demo.base_url()),
        ("nowhere", "http://127.0.0.1:1"),
    ])
    .await;
    // A card that fails to load shows its error and does not block the other agent.
    let screen = c
        .wait_until("both agents settled", |s| {
            s.contains("card 0.1.0") && s.contains("error:")
        })
        .await;
    assert!(screen.contains("✗ nowhere"), "{screen}");
    c.key(KeyCode::Char('n'));
    c.wait_for("Message → demo").await;
    send(&c, "slow 60");
    c.wait_for("Working… 2/").await;
    demo.shutdown().await;
    let screen = c.wait_for("↯ disconnected").await;
    assert!(
        screen.contains("Working… 2/"),
        "what was received is kept:\n{screen}"
    );
    assert!(screen.contains("press R"), "{screen}");
    c.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn python_sdk_peer_in_the_console() {
    let peer = common::py10_peer();
    let mut c = Console::start(&[("py", &peer.url)]).await;
    c.wait_for("Python v1.0 peer").await;
    c.key(KeyCode::Char('n'));
    c.wait_for("Message → py").await;
    send(&c, "stream");
    let screen = c
        .wait_until("stream done", |s| {
            s.contains("✓ completed") && s.contains("chunk 9")
        })
        .await;
    assert!(
        screen.contains("chunk 0 chunk 1"),
        "chunks reassembled in order:\n{screen}"
    );
    send(&c, "ask");
    c.wait_for("What is your name?").await;
    send(&c, "Grace");
    c.wait_for("Nice to meet you, Grace").await;
    c.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_megabyte_artifact_streams_in_and_scrolls() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let mut c = Console::start(&[("demo", &demo.base_url())]).await;
    c.wait_for("card 0.1.0").await;
    c.key(KeyCode::Char('n'));
    c.wait_for("Message → demo").await;
    send(&c, "big 5");
    let end = c.wait_for("✓ completed").await;
    c.key(KeyCode::Esc);
    c.key(KeyCode::Char('g')); // to the top
    let top = c
        .wait_until("the top of the transcript", |s| {
            s.contains("you ·") && s.contains("big 5")
        })
        .await;
    assert_ne!(top, end);
    c.key(KeyCode::PageDown);
    c.wait_until("scrolled", |s| s != top).await;
    let (app, _) = c.quit().await;
    let t = &app.tabs[0];
    assert!(
        t.artifacts[0].bytes >= 5 * 1024 * 1024,
        "all 5 MB arrived: {}",
        t.artifacts[0].bytes
    );
    demo.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auth_required_is_approved_by_hand_or_denied() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let mut c = Console::start(&[("demo", &demo.base_url())]).await;
    c.wait_for("card 0.1.0").await;
    c.key(KeyCode::Char('n'));
    c.wait_for("Message → demo").await;
    send(&c, "auth");
    // The user is in the compose box: the request waits there, announced, until they leave it.
    c.wait_for("authorization waits: Esc").await;
    c.key(KeyCode::Esc);
    let screen = c.wait_for_dialog().await;
    assert!(
        screen.contains("bearer: HTTP Bearer"),
        "the card's schemes are shown:\n{screen}"
    );
    // Approve at once, while the demo agent still holds its stream open in auth-required (it refuses the
    // follow-up for a moment; the console retries).
    // Approve with a pasted token: masked on screen, sent only on the follow-up request.
    c.press(KeyEvent::new(KeyCode::Char('t'), KeyModifiers::CONTROL));
    let before = c
        .wait_until("the token prompt, its keys live", |s| {
            s.contains("Approve with a token") && !s.contains("keys are ignored")
        })
        .await;
    c.type_text("demo-secret");
    let masked = c.wait_for("•••••••••••").await;
    // The agent's own message mentions the demo token; what the user typed must add no copy of it.
    assert_eq!(
        masked.matches("demo-secret").count(),
        before.matches("demo-secret").count(),
        "the typed token is never shown:\n{masked}"
    );
    c.key(KeyCode::Enter);
    let done = c.wait_for("state → completed").await;
    // The transcript shows the words the agent received, and the protected step's result above the state that
    // ends the task (the answer is one snapshot holding both).
    assert!(
        done.contains(a2a_console::app::msg::APPROVAL_TEXT) && !done.contains("(approved with"),
        "{done}"
    );
    let rows: Vec<&str> = done.lines().collect();
    let result = rows
        .iter()
        .position(|r| r.contains("The protected step ran"));
    let completed = rows.iter().position(|r| r.contains("state → completed"));
    assert!(
        matches!((result, completed), (Some(r), Some(c)) if r < c),
        "{done}"
    );

    // A second auth request, denied: the task is canceled.
    c.key(KeyCode::Esc);
    c.key(KeyCode::Char('n'));
    c.wait_for("▶2 demo").await;
    send(&c, "auth");
    c.wait_for("authorization waits: Esc").await;
    c.key(KeyCode::Esc);
    c.wait_for_dialog().await;
    c.press(KeyEvent::new(KeyCode::Char('x'), KeyModifiers::CONTROL));
    c.wait_for("⊘ canceled").await;
    c.quit().await;
    demo.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn import_existing_tasks_onto_the_board() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    // Tasks started elsewhere (here: by the CLI) are imported with ListTasks.
    let out = common::cli(&["send", &demo.base_url(), "echo started elsewhere"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let mut c = Console::start(&[("demo", &demo.base_url())]).await;
    c.wait_for("card 0.1.0").await;
    c.key(KeyCode::Char('I'));
    c.wait_for("Import tasks").await;
    c.type_text("state=completed");
    c.key(KeyCode::Enter);
    let board = c.wait_for("imported").await;
    assert!(board.contains("Board"), "{board}");
    assert!(board.contains("✓ completed"), "{board}");
    c.key(KeyCode::Enter);
    c.wait_for("echo: started elsewhere").await;
    c.quit().await;
    demo.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_task_survives_a_restart_and_is_reattached() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("console.db");
    let mut c = Console::start_with_db(&[("demo", &demo.base_url())], Some(&db)).await;
    c.wait_for("card 0.1.0").await;
    c.key(KeyCode::Char('n'));
    c.wait_for("Message → demo").await;
    send(&c, "slow 30");
    let before = c.wait_for("Working… 2/").await;
    assert!(before.contains("slow 30"), "{before}");
    c.quit().await;

    // A new console on the same store: the tab is back with its transcript, and follows the task again.
    let mut c = Console::start_with_db(&[("demo", &demo.base_url())], Some(&db)).await;
    c.key(KeyCode::Char('1'));
    c.press(KeyEvent::new(KeyCode::Char('1'), KeyModifiers::ALT));
    let restored = c.wait_for("restored from the local store").await;
    assert!(
        restored.contains("slow 30") || restored.contains("Working…"),
        "{restored}"
    );
    c.wait_for("re-attaching to the restored task").await;
    c.wait_until("new ticks after the restart", |s| {
        s.contains("Working… 5/") || s.contains("Working… 6/") || s.contains("Working… 7/")
    })
    .await;
    // The audit log viewer shows the requests made before the restart (Alt-1 left command keys live: no Esc).
    c.key(KeyCode::Char('L'));
    let audit = c.wait_for("Audit log ·").await;
    assert!(
        audit.contains("SendStreamingMessage") && audit.contains("SubscribeToTask"),
        "{audit}"
    );
    c.key(KeyCode::Esc);
    // Export the transcript to Markdown.
    c.key(KeyCode::Char('E'));
    c.wait_for("Export the transcript").await;
    for _ in 0..40 {
        c.key(KeyCode::Backspace);
    }
    let out = dir.path().join("task.md");
    c.type_text(&out.display().to_string());
    c.key(KeyCode::Enter);
    c.wait_for("exported to").await;
    let md = std::fs::read_to_string(&out).unwrap();
    assert!(md.contains("slow 30"), "{md}");
    // Exporting again to the same file does not overwrite it (a file the user named, or one at a symlink).
    std::fs::write(&out, "keep me").unwrap();
    c.key(KeyCode::Char('E'));
    c.wait_for("Export the transcript").await;
    for _ in 0..40 {
        c.key(KeyCode::Backspace);
    }
    c.type_text(&out.display().to_string());
    c.key(KeyCode::Enter);
    c.wait_for("already exists").await;
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "keep me");
    c.quit().await;
    demo.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn push_notifications_are_registered_received_listed_and_deleted() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let mut c = Console::start_full(&[("demo", &demo.base_url())], None, true).await;
    c.wait_for("card 0.1.0").await;
    c.key(KeyCode::Char('n'));
    c.wait_for("Message → demo").await;
    send(&c, "slow 4");
    let screen = c.wait_for("push configs registered").await;
    assert!(
        screen.contains("127.0.0.1:") && screen.contains("/a2a/push/"),
        "the webhook is on loopback:\n{screen}"
    );
    c.wait_for("receiving push notifications for this task")
        .await;
    // A forged notification at a guessed address (the task id; the real one is random) and one for a task
    // the console never started are refused.
    let listed = common::cli(&["list", &demo.base_url(), "--json"]);
    let v: serde_json::Value = serde_json::from_str(&listed.stdout).unwrap();
    let task_id = v["tasks"][0]["id"].as_str().unwrap().to_string();
    let addr = c.push_addr.unwrap();
    let http = reqwest::Client::new();
    let forged = serde_json::json!({"statusUpdate": {"taskId": task_id, "contextId": "x", "status": {"state": "TASK_STATE_FAILED"}}});
    let r = http
        .post(format!("http://{addr}/a2a/push/{task_id}"))
        .header("Authorization", "Bearer not-the-token")
        .json(&forged)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    let r = http
        .post(format!("http://{addr}/a2a/push/somebody-elses-task"))
        .json(&forged)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    c.key(KeyCode::Esc);
    c.key(KeyCode::Char('P'));
    c.wait_for("push configs listed").await;
    c.key(KeyCode::Char('X'));
    c.wait_for("push configs deleted").await;
    let done = c.wait_for("✓ completed").await;
    assert!(
        !done.contains("✗ failed"),
        "the forged FAILED was never applied:\n{done}"
    );
    c.quit().await;
    demo.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auth_required_approved_by_signing_in_with_the_device_flow() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let mut c = Console::start(&[("demo", &demo.base_url())]).await;
    c.wait_for("card 0.1.0").await;
    c.key(KeyCode::Char('n'));
    c.wait_for("Message → demo").await;
    send(&c, "auth");
    c.wait_for("authorization waits: Esc").await;
    c.key(KeyCode::Esc);
    let modal = c.wait_for_dialog().await;
    assert!(
        modal.contains("Ctrl-O sign in with the OAuth 2.0 device flow"),
        "{modal}"
    );
    c.key(KeyCode::Char('l'));
    c.wait_until("the auth stream to close", |s| {
        s.contains("! auth-required") && !s.contains("auth-required live")
    })
    .await;
    // "Later" leaves command keys live: `A` reopens the dialog at once (no Esc needed to leave the compose box).
    c.key(KeyCode::Char('A'));
    c.wait_for_dialog().await;
    c.press(KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL));
    let sign_in = c.wait_for("DEMO-4242").await;
    assert!(sign_in.contains("/oauth/verify"), "{sign_in}");
    c.wait_for("✓ completed").await;
    c.quit().await;
    demo.shutdown().await;
}

/// A small agent whose first stream breaks after two updates while the task goes on; SubscribeToTask then
/// delivers the rest. Our own fault injector (like tests/bad_input.rs): the real console talks to it over HTTP.
async fn flaky_agent() -> String {
    use axum::body::{Body, Bytes};
    use axum::response::Response;
    use axum::routing::{get, post};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let card = serde_json::json!({
        "name": "Flaky agent", "description": "breaks its first stream", "version": "1",
        "supportedInterfaces": [{"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": []
    })
    .to_string();
    use a2a_console::testing::sse_frame as frame;
    let status = |state: &str, text: &str| {
        a2a_console::testing::status_json("t-flaky", "c-flaky", state, Some(text))
    };
    let rpc = move |body: String| async move {
        let v: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
        let method = v["method"].as_str().unwrap_or("").to_string();
        let task = serde_json::json!({"task": {"id": "t-flaky", "contextId": "c-flaky", "status": {"state": "TASK_STATE_WORKING"}}});
        let frames: Vec<String> = match method.as_str() {
            // The first stream: two updates, then the connection ends without a final state.
            "SendStreamingMessage" => vec![
                frame(task),
                frame(status("TASK_STATE_WORKING", "step one")),
                frame(status("TASK_STATE_WORKING", "step two")),
            ],
            "SubscribeToTask" => vec![
                frame(task),
                frame(status("TASK_STATE_WORKING", "step three")),
                frame(status("TASK_STATE_COMPLETED", "all done")),
            ],
            _ => {
                let body =
                    serde_json::json!({"jsonrpc": "2.0", "id": v["id"], "result": task["task"]})
                        .to_string();
                return Response::builder()
                    .header("content-type", "application/json")
                    .body(Body::from(body))
                    .unwrap();
            }
        };
        let stream = futures::stream::iter(
            frames
                .into_iter()
                .map(|f| Ok::<_, std::convert::Infallible>(Bytes::from(f))),
        );
        Response::builder()
            .header("content-type", "text/event-stream")
            .body(Body::from_stream(stream))
            .unwrap()
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_stream_is_reattached_and_nothing_received_is_lost() {
    let base = flaky_agent().await;
    let mut c = Console::start(&[("flaky", &base)]).await;
    c.wait_for("Flaky agent").await;
    c.key(KeyCode::Char('n'));
    c.wait_for("Message → flaky").await;
    send(&c, "go");
    c.wait_for("re-attaching in 1 s").await;
    let done = c.wait_for("✓ completed").await;
    // "step one" and "step two" are consecutive status messages: one line, "step two", counted as updated once.
    for kept in [
        "updated 1×",
        "step two",
        "step three",
        "all done",
        "disconnected",
    ] {
        assert!(
            done.contains(kept),
            "{kept:?} missing after the re-attach:\n{done}"
        );
    }
    c.quit().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_the_agent_no_longer_knows_is_marked_and_not_reattached() {
    // The demo agent restarted (a new process knows none of the old tasks): a tab restored from the store
    // for a task it never had gets -32001 on re-attach, says so, and stops trying.
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("console.db");
    {
        let store = a2a_console::store::Store::open(&db).unwrap();
        let mut target = AgentTarget::from_url(&demo.base_url(), Duration::from_secs(20));
        target.label = "demo".into();
        let now = chrono::Utc::now();
        let row = a2a_console::store::record::TabRow {
            tab: "tab-forgotten".into(),
            agent_key: a2a_console::app::state::agent_key(&target, AgentOrigin::Config),
            agent_url: demo.base_url(),
            agent_name: "demo".into(),
            task_id: Some("task-from-before-the-restart".into()),
            context_id: Some("ctx".into()),
            state: "working".into(),
            last_text: Some("Working… 3/30 s".into()),
            created_at: now,
            state_since: now,
            updated_at: now,
            closed: false,
            gone: false,
            flags: 0,
        };
        store
            .write_batch(
                &[a2a_console::store::record::Record::Tab(Box::new(row))],
                &mut Default::default(),
            )
            .unwrap();
    }
    let mut c = Console::start_with_db(&[("demo", &demo.base_url())], Some(&db)).await;
    c.press(KeyEvent::new(KeyCode::Char('1'), KeyModifiers::ALT));
    let screen = c.wait_for("no longer knows this task").await;
    assert!(screen.contains("∅ task unknown"), "{screen}");
    c.quit().await;
    // And the next start does not try again.
    let store = a2a_console::store::Store::open(&db).unwrap();
    assert!(store.open_tabs().unwrap()[0].row.gone);
    demo.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_store_is_shown_and_the_console_keeps_working_then_recovers() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("console.db");
    let mut c = Console::start_with_db(&[("demo", &demo.base_url())], Some(&db)).await;
    c.wait_for("card 0.1.0").await;
    // Another program makes every write fail, as a full disk would.
    let other = rusqlite::Connection::open(&db).unwrap();
    other
        .execute_batch(
            "CREATE TRIGGER full BEFORE INSERT ON event_rows BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;",
        )
        .unwrap();
    c.key(KeyCode::Char('n'));
    c.wait_for("Message → demo").await;
    send(&c, "echo while the disk is full");
    let screen = c.wait_for("the local store is failing").await;
    assert!(screen.contains("not saved to the local store"), "{screen}");
    // The conversation goes on in memory.
    c.wait_for("✓ completed").await;
    // Space again: the next write succeeds and the console says so.
    other.execute_batch("DROP TRIGGER full;").unwrap();
    send(&c, "echo after");
    c.wait_for("writable again").await;
    c.quit().await;
    demo.shutdown().await;
}

/// An agent that serves only its card, whose one interface uses a binding the console does not speak.
async fn card_only_agent() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let card = std::fs::read_to_string(
        common::repo().join("tests/fixtures/cards/custom_binding_only.json"),
    )
    .unwrap()
    .replace("{{BASE}}", &base);
    let app = axum::Router::new().route(
        "/.well-known/agent-card.json",
        axum::routing::get(move || {
            let card = card.clone();
            async move {
                (
                    [(axum::http::header::CONTENT_TYPE, "application/json")],
                    card,
                )
            }
        }),
    );
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    base
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_only_agent_is_shown_and_sending_to_it_explains_why() {
    let url = card_only_agent().await;
    let mut c = Console::start(&[("mesh", &url)]).await;
    let screen = c.wait_for("card only · card 3.1.0").await;
    assert!(
        screen.contains("Mesh Relay"),
        "the card is shown:\n{screen}"
    );
    assert!(screen.contains("✗ unknown binding"), "{screen}");
    c.key(KeyCode::Char('n'));
    c.wait_for("Message → mesh").await;
    send(&c, "hello");
    let screen = c.wait_for("is card only").await;
    assert!(screen.contains("nothing was sent"), "{screen}");
    c.quit().await;
}

/// The highest `flood N/TOTAL` on the screen.
fn flood_progress(screen: &str, total: u32) -> u32 {
    let tail = format!("/{total}");
    screen
        .match_indices(&tail)
        .filter_map(|(at, _)| {
            let head = screen.get(..at)?;
            let number = head.trim_end_matches(|c: char| c.is_ascii_digit());
            let digits = head.get(number.len()..)?;
            number.ends_with("flood ").then(|| digits.parse().ok())?
        })
        .max()
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_store_holds_a_flood_back_instead_of_the_screen_running_ahead_of_it() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("console.db");
    let mut app = App::new(Keymap::defaults(), Theme::builtin("dark").unwrap());
    app.size = (120, 40);
    let mut target = AgentTarget::from_url(&demo.base_url(), Duration::from_secs(20));
    target.label = "demo".into();
    app.add_agent(target, AgentOrigin::Config);
    let (mut rt, rx) = Runtime::new(None, "dark").unwrap();
    // A store that waits up to 60 s for a lock rather than failing, as on a slow or shared disk.
    let store = a2a_console::store::Store::open_with_timeout(&db, Duration::from_secs(60)).unwrap();
    rt.writer = Some(a2a_console::store::writer::StoreWriter::spawn(store).unwrap());
    let mut c = Console {
        push_addr: None,
        h: Headless::start(app, rt, rx),
    };
    c.wait_for("card 0.1.0").await;
    c.key(KeyCode::Char('n'));
    c.wait_for("Message → demo").await;
    // Another program holds the database's write lock: the console's writer cannot commit.
    let other = rusqlite::Connection::open(&db).unwrap();
    other.execute_batch("BEGIN IMMEDIATE;").unwrap();
    send(&c, "flood 20000");
    // Frames wait for the store, then go on screen anyway (after 2 s) saying it is slow.
    c.wait_for("the local store is slow").await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let screen = c
        .wait_until("flood progress", |s| flood_progress(s, 20_000) > 0)
        .await;
    let shown = flood_progress(&screen, 20_000);
    // The flood is held back a couple of thousand events ahead of the disk (the writer's allowed lag plus
    // one round), not applied on (the demo agent sends 20 000 in well under a second).
    assert!(
        shown <= 3_000,
        "{shown} events applied past a stalled store:\n{screen}"
    );
    other.execute_batch("COMMIT;").unwrap();
    c.wait_for("✓ completed").await;
    let (app, _) = c.quit().await;
    assert_eq!(app.tabs.len(), 1);
    // Everything arrived and is on disk.
    let store = a2a_console::store::Store::open(&db).unwrap();
    let tab = store.open_tabs().unwrap().into_iter().next().unwrap();
    let events = store
        .events(&tab.row.agent_url, tab.row.task_id.as_deref().unwrap())
        .unwrap();
    assert!(events.len() > 20_000, "{} events stored", events.len());
    demo.shutdown().await;
}

/// The Markdown export lists each message once, though the agent's snapshots carry the user's messages in
/// their history too (issue 10: "You: ask" appeared twice). Two tasks in one tab: the second one's export.
async fn export_twice_asked(url: &str, ready: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("console.db");
    let mut c = Console::start_with_db(&[("peer", url)], Some(&db)).await;
    c.wait_for(ready).await;
    c.key(KeyCode::Char('n'));
    c.wait_for("Message → peer").await;
    send(&c, "echo one");
    c.wait_for("completed").await;
    send(&c, "ask");
    c.wait_for("What is your name?").await;
    send(&c, "Ada");
    c.wait_for("Nice to meet you, Ada").await;
    c.key(KeyCode::Esc);
    c.key(KeyCode::Char('E'));
    c.wait_for("Export the transcript").await;
    for _ in 0..40 {
        c.key(KeyCode::Backspace);
    }
    let out = dir.path().join("task.md");
    c.type_text(&out.display().to_string());
    c.key(KeyCode::Enter);
    c.wait_for("exported to").await;
    c.quit().await;
    let md = std::fs::read_to_string(&out).unwrap();
    // The whole conversation, each task marked (issue [10] item 2: the second task's alone was exported).
    assert_eq!(md.matches("### Task ").count(), 2, "{md}");
    assert!(md.starts_with("# Conversation with peer"), "{md}");
    assert!(md.contains("> echo one\n"), "{md}");
    // The CLI finds the conversation from its first task's short id, as the console shows it.
    let first = a2a_console::store::Store::open(&db)
        .unwrap()
        .tasks()
        .unwrap()
        .into_iter()
        .min_by_key(|t| t.updated_at)
        .unwrap();
    let short =
        a2a_console::task::short_id::tail(&first.task_id, a2a_console::app::short_id::SHORT);
    let dbs = db.display().to_string();
    let r = common::cli_env(&["export", &short], &[("A2A_CONSOLE_DB", &dbs)]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert_eq!(
        r.stdout.trim_end(),
        md.trim_end(),
        "the CLI exports what E does"
    );
    md
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_markdown_export_lists_each_message_once() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let md = export_twice_asked(&demo.base_url(), "card 0.1.0").await;
    assert_eq!(md.matches("> ask\n").count(), 1, "{md}");
    assert_eq!(md.matches("> Ada\n").count(), 1, "{md}");
    demo.shutdown().await;
    let peer = common::py10_peer();
    let md = export_twice_asked(&peer.url, "Python v1.0 peer").await;
    assert_eq!(md.matches("> ask\n").count(), 1, "{md}");
    assert_eq!(md.matches("> Ada\n").count(), 1, "{md}");
    let peer = common::py03_peer();
    let md = export_twice_asked(&peer.url, "peer").await;
    assert_eq!(md.matches("> ask\n").count(), 1, "{md}");
    assert_eq!(md.matches("> Ada\n").count(), 1, "{md}");
    let peer = common::js_peer();
    let md = export_twice_asked(&peer.url, "JS").await;
    assert_eq!(md.matches("> ask\n").count(), 1, "{md}");
    assert_eq!(md.matches("> Ada\n").count(), 1, "{md}");
}

/// The Python SDK's two-part `code` artifact (markdown, then data; no `lastChunk`): the markdown is rendered,
/// each part under its header, the artifact is complete with its task, and `z` folds the data part.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_sdk_code_artifact_shows_every_part() {
    let peer = common::py10_peer();
    let mut c = Console::start(&[("py", &peer.url)]).await;
    c.wait_for("Python v1.0 peer").await;
    c.key(KeyCode::Char('n'));
    c.wait_for("Message → py").await;
    send(&c, "code");
    let screen = c
        .wait_until("code done", |s| {
            s.contains("✓ completed") && s.contains("part 2/2 · application/json")
        })
        .await;
    assert!(screen.contains("part 1/2 · text/markdown"), "{screen}");
    assert!(!screen.contains("```"), "markdown rendered: {screen}");
    assert!(!screen.contains("streaming…"), "complete: {screen}");
    c.key(KeyCode::Esc);
    c.key(KeyCode::Char('z'));
    c.wait_for("folded the JSON of part 2/2").await;
    c.quit().await;
}

/// The transcript tools on the real runtime: search a streamed story (`/`, `n`), copy (headless: no terminal,
/// so the fallback is said), and the status message going away on its own (a deadline, not a tick: the task
/// has finished, nothing is live).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_copy_and_the_status_expires_on_its_own() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let mut c = Console::start(&[("demo", &demo.base_url())]).await;
    c.wait_for("card 0.1.0").await;
    c.key(KeyCode::Char('n'));
    c.wait_for("Message → demo").await;
    send(&c, "stream 20");
    c.wait_until("completed", |s| {
        s.contains("✓ completed") && s.contains("complete")
    })
    .await;
    c.key(KeyCode::Esc);
    c.key(KeyCode::Char('/'));
    c.wait_for("Search this transcript").await;
    c.type_text("chapter");
    c.key(KeyCode::Enter);
    c.wait_for("match 1/").await;
    c.key(KeyCode::Char('n'));
    let screen = c.wait_for("match 2/").await;
    assert!(
        screen.contains("G follows"),
        "scrolled to the match:\n{screen}"
    );
    c.key(KeyCode::Char('y'));
    c.wait_for("no terminal to write to — S saves").await;
    // Info goes at the next key; this error stays its ten seconds, then goes without any key.
    let last_row = |s: &str| s.lines().last().unwrap_or_default().to_string();
    c.wait_until("the error expired", |s| {
        !last_row(s).contains("could not copy")
    })
    .await;
    let (app, _) = c.quit().await;
    assert!(app.tabs[0].search.is_some());
    demo.shutdown().await;
}

/// `J` on an entry whose event is too big to keep in memory (the demo's `big` sends 256 KiB chunks): the viewer
/// reads the event from the local store, by its arrival time, and shows it (cut to a readable size).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn raw_json_of_an_event_too_big_to_keep_comes_from_the_store() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("console.db");
    let mut c = Console::start_with_db(&[("demo", &demo.base_url())], Some(&db)).await;
    c.wait_for("card 0.1.0").await;
    c.key(KeyCode::Char('n'));
    c.wait_for("Message → demo").await;
    send(&c, "big 1");
    c.wait_for("✓ completed").await;
    c.key(KeyCode::Esc);
    // From nothing, `,` selects the newest entry (the state change), then the artifact before it.
    c.key(KeyCode::Char(','));
    c.key(KeyCode::Char(','));
    c.wait_until("the artifact selected", |s| {
        s.lines().any(|l| l.contains("▶") && l.contains("artifact"))
    })
    .await;
    c.key(KeyCode::Char('J'));
    let shown = c
        .wait_until("the stored event in the viewer", |s| {
            s.contains("Raw JSON")
                && s.contains("\"artifactUpdate\"")
                && !s.contains("reading the event")
        })
        .await;
    assert!(shown.contains("\"artifactId\""), "{shown}");
    c.key(KeyCode::Esc);
    c.quit().await;
    demo.shutdown().await;
}

/// Issue [10] items 7 and 16 end to end, with a real store: attached files show by name and size (or why not),
/// Alt-X drops one, a tab closed with a draft comes back with it on Ctrl-T, Ctrl-C with a draft asks once, and
/// the draft is there again after a restart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drafts_and_attachments_survive_close_reopen_and_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("console.db");
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, b"twelve bytes").unwrap();
    let missing = dir.path().join("missing.bin");
    // No agent answers there: nothing is sent, the box is what matters.
    let agents = [("nowhere", "http://127.0.0.1:9")];
    let mut c = Console::start_with_db(&agents, Some(&db)).await;
    c.key(KeyCode::Char('n'));
    c.wait_for("Message →").await;
    c.type_text("half a thought");
    let ctrl = |ch| KeyEvent::new(KeyCode::Char(ch), KeyModifiers::CONTROL);
    for path in [&file, &missing] {
        c.press(ctrl('o'));
        c.wait_for("Attach").await;
        c.type_text(&path.display().to_string());
        c.key(KeyCode::Enter);
    }
    let attached = |s: &str| {
        s.lines()
            .find(|l| l.contains('📎'))
            .unwrap_or_default()
            .to_string()
    };
    let screen = c
        .wait_until("both files listed, with what is known of them", |s| {
            let line = attached(s);
            line.contains("notes.txt (12 B)") && line.contains("missing.bin (⚠ not found)")
        })
        .await;
    assert!(attached(&screen).contains("Alt-X"), "{screen}");
    c.press(KeyEvent::new(KeyCode::Char('x'), KeyModifiers::ALT));
    c.wait_until("the missing file dropped", |s| {
        let line = attached(s);
        line.contains("notes.txt") && !line.contains("missing.bin")
    })
    .await;

    // Ctrl-W in the box deletes a word; from the transcript it closes the tab, and Ctrl-T brings the draft back.
    c.type_text(" oops");
    c.press(ctrl('w'));
    c.key(KeyCode::Esc);
    c.press(ctrl('w'));
    c.wait_for("its draft is kept").await;
    c.press(ctrl('t'));
    let screen = c
        .wait_until("the tab back with its draft", |s| {
            s.contains("with its draft") && s.contains("half a thought ") && !s.contains("oops")
        })
        .await;
    assert!(attached(&screen).contains("notes.txt (12 B)"), "{screen}");

    // Ctrl-C with a draft: kept, and said; the harness's second press quits.
    c.press(ctrl('c'));
    c.wait_for("draft kept").await;
    let (app, _) = c.quit().await;
    assert!(app.quit);

    // The next start shows the tab with its text.
    let mut again = Console::start_with_db(&agents, Some(&db)).await;
    again.press(KeyEvent::new(KeyCode::Char('1'), KeyModifiers::ALT));
    again.wait_for("half a thought").await;
    again.quit().await;
}
