//! Suites and comparisons in the console, on the real runtime (a `TestBackend`, keys through the channel)
//! against the embedded demo agent: two tasks marked on the board and `=` shows them side by side with what
//! changed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use a2a_console::app::agent::AgentOrigin;
use a2a_console::app::state::App;
use a2a_console::config::keymap::Keymap;
use a2a_console::config::theme::Theme;
use a2a_console::remote::connect::agent::AgentTarget;
use a2a_console::testing::Headless;
use a2a_console::tui::runtime::Runtime;
use crossterm::event::KeyCode;

const WAIT: Duration = Duration::from_secs(45);

async fn console(url: &str) -> Headless {
    let mut app = App::new(Keymap::defaults(), Theme::builtin("dark").unwrap());
    app.size = (150, 44);
    let mut t = AgentTarget::from_url(url, Duration::from_secs(20));
    t.label = "demo".into();
    app.add_agent(t, AgentOrigin::Config);
    let (rt, rx) = Runtime::new(None, "dark").unwrap();
    Headless::start(app, rt, rx)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_marked_tasks_compare_side_by_side_with_what_changed() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let mut h = console(&demo.base_url()).await;
    h.wait("card 0.1.0", WAIT).await.unwrap();
    // Two tasks: an echo, then a failure.
    for text in ["echo first words", "fail"] {
        h.key(KeyCode::Esc);
        h.key(KeyCode::Char('n'));
        h.wait("Message → demo", WAIT).await.unwrap();
        h.type_text(text);
        h.key(KeyCode::Enter);
    }
    h.wait("✗ failed", WAIT).await.unwrap();
    h.key(KeyCode::Esc);
    // `=` before anything is marked says how.
    h.key(KeyCode::Char('b'));
    h.wait("Board", WAIT).await.unwrap();
    h.key(KeyCode::Char('='));
    h.wait("mark two tasks on the board", WAIT).await.unwrap();
    // Mark both rows, then compare.
    h.key(KeyCode::Char('m'));
    h.key(KeyCode::Char('j'));
    h.key(KeyCode::Char('m'));
    h.key(KeyCode::Char('='));
    let page = h.wait("compare: task", WAIT).await.unwrap();
    assert!(page.contains("what changed, left → right"), "{page}");
    assert!(
        page.contains("states: submitted → working → failed"),
        "{page}"
    );
    assert!(
        page.contains("states: submitted → working → completed"),
        "{page}"
    );
    assert!(page.contains("artifacts: 1"), "{page}");
    assert!(page.contains("artifacts: 0"), "{page}");
    // The removed or added artifact and the changed states are said in the changes.
    assert!(page.contains("now submitted → working"), "{page}");
    assert!(page.contains("artifact"), "{page}");
    // Every summary row carries the remote bar.
    assert!(page.contains("▍task "), "{page}");
    h.key(KeyCode::Char('q'));
    let closed = h
        .wait_until("closed", WAIT, |s| !s.contains("compare: task"))
        .await
        .unwrap();
    assert!(closed.contains("Board"), "{closed}");
}
