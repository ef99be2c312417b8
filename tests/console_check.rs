//! `check` in the console, on the real runtime (a `TestBackend`, keys through the channel) against the demo
//! agent served by the real binary: `C` runs it in the background with its progress in the agent list, the
//! report opens as a page, Enter shows a finding's evidence, the agent keeps its verdict, a second run says
//! what changed, and a check that ends while the user types does not take the keys.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use a2a_console::testing::Headless;
use crossterm::event::KeyCode;

const WAIT: Duration = Duration::from_secs(45);

fn console(url: &str, db: &std::path::Path) -> Headless {
    let (app, rt, rx) = a2a_console::testing::console_on(&[("demo", url)], (140, 44), Some(db));
    Headless::start(app, rt, rx)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn c_checks_the_agent_and_the_page_shows_findings_and_evidence() {
    let demo = common::demo_agent();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store.db");
    let mut h = console(&demo.url, &db);
    h.wait("card ", WAIT).await.unwrap();
    h.key(KeyCode::Char('C'));
    let page = h.wait("Check of demo", WAIT).await.unwrap();
    assert!(page.contains("▍PASS  discovery.well-known"), "{page}");
    assert!(page.contains("read-only"), "{page}");
    assert!(page.contains("rows quote the agent's answers"), "{page}");
    // Select the first rows and open one finding's evidence.
    h.key(KeyCode::Char('.'));
    h.key(KeyCode::Char('.'));
    h.key(KeyCode::Enter);
    let ev = h.wait("requirement:", WAIT).await.unwrap();
    assert!(ev.contains("discovery.well-known"), "{ev}");
    h.key(KeyCode::Esc);
    // The verdict stays in the agent list: the demo's HTTP+JSON side ignores A2A-Version (2 MUSTs).
    let list = h.wait("check 2 MUST ✗", WAIT).await.unwrap();
    assert!(!list.contains("Check of demo"), "{list}");
    // A second run compares with the first, kept in the store.
    h.key(KeyCode::Char('C'));
    let again = h
        .wait_until("the second page", WAIT, |s| {
            s.contains("since the last check: nothing changed")
        })
        .await
        .unwrap();
    assert!(again.contains("Check of demo"), "{again}");
    h.key(KeyCode::Esc);
    drop(h);
    // After a restart the verdict is back, before any check runs.
    let h = console(&demo.url, &db);
    let mut h = h;
    h.wait("check 2 MUST ✗", WAIT).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_that_ends_while_typing_does_not_take_the_keys() {
    let demo = common::demo_agent();
    let dir = tempfile::tempdir().unwrap();
    let mut h = console(&demo.url, &dir.path().join("store.db"));
    h.wait("card ", WAIT).await.unwrap();
    h.key(KeyCode::Char('C'));
    // Straight into a new task's compose box, typing while the check runs and ends.
    h.key(KeyCode::Char('n'));
    h.type_text("hello while the check runs");
    let s = h
        .wait_until("the check's end in the status line", WAIT, |s| {
            s.contains("check of demo done")
        })
        .await
        .unwrap();
    assert!(
        !s.contains("Check of demo ·"),
        "the page must not open over the compose box:\n{s}"
    );
    h.type_text(" and after");
    let s = h
        .wait("hello while the check runs and after", WAIT)
        .await
        .unwrap();
    assert!(s.contains("check 2 MUST ✗"), "{s}");
}
