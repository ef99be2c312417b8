//! The first start with no agent, on the real runtime: `D` starts the embedded demo agent on 127.0.0.1, the
//! console lists it and loads its card, and a task runs on it — all without leaving the console.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use a2a_console::app::state::App;
use a2a_console::config::keymap::Keymap;
use a2a_console::config::theme::Theme;
use a2a_console::testing::Headless;
use a2a_console::tui::runtime::Runtime;
use crossterm::event::KeyCode;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn d_starts_the_demo_agent_and_a_task_runs_on_it() {
    let mut app = App::new(Keymap::defaults(), Theme::builtin("dark").unwrap());
    app.size = (120, 36);
    let (rt, rx) = Runtime::new(None, "dark").unwrap();
    let mut h = Headless::start(app, rt, rx);
    let wait = Duration::from_secs(45);
    let first = h.wait("No agent configured", wait).await.unwrap();
    assert!(first.contains("Card · no agent"), "{first}");
    h.key(KeyCode::Char('D'));
    let online = h.wait("card 0.1.0", wait).await.unwrap();
    assert!(online.contains("demo"), "{online}");
    assert!(online.contains("http://127.0.0.1:"), "{online}");
    // A task on it: a new tab, a message, the demo's echo.
    h.key(KeyCode::Char('n'));
    h.type_text("echo first start");
    h.key(KeyCode::Enter);
    h.wait_until("the echo", wait, |s| {
        s.contains("completed") && s.contains("first start")
    })
    .await
    .unwrap();
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('q'));
    let done = h.finish(Duration::from_secs(10)).await.unwrap();
    done.result.unwrap();
    assert_eq!(done.app.agents.len(), 1);
    // The runtime hands the demo agent back for shutting down at exit.
    let demo = done
        .runtime
        .take_demo()
        .expect("the demo agent is kept for shutdown");
    demo.shutdown().await;
}
