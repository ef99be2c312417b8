//! Suites and comparisons in the console, on the real runtime (a `TestBackend`, keys through the channel)
//! against the embedded demo agent: two tasks marked on the board and `=` shows them side by side with what
//! changed; a task written into a suite file with `W`, that file run on the agent with `U` (its results a
//! page, the run kept and compared with the one before), and a run that ends while the user types.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use a2a_console::testing::Headless;
use crossterm::event::KeyCode;

const WAIT: Duration = Duration::from_secs(45);

/// The console on the agent at `url` (named "demo"), with a store at `db` when given.
fn console(url: &str, db: Option<&std::path::Path>) -> Headless {
    let (app, rt, rx) = a2a_console::testing::console_on(&[("demo", url)], (150, 44), db);
    Headless::start(app, rt, rx)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_recorded_with_w_runs_from_u_and_is_kept_and_compared() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("recorded.toml");
    let mut h = console(&demo.base_url(), Some(&dir.path().join("store.db")));
    h.wait("card 0.1.0", WAIT).await.unwrap();
    // A conversation: the agent asks, the user answers, the task completes.
    h.key(KeyCode::Char('n'));
    h.wait("Message → demo", WAIT).await.unwrap();
    h.type_text("ask");
    h.key(KeyCode::Enter);
    h.wait("What is your name?", WAIT).await.unwrap();
    h.type_text("Ada");
    h.key(KeyCode::Enter);
    h.wait("Nice to meet you, Ada", WAIT).await.unwrap();
    h.key(KeyCode::Esc);
    // W writes it as a case into the file named.
    h.key(KeyCode::Char('W'));
    h.wait("Record this task as a suite case", WAIT)
        .await
        .unwrap();
    h.ctrl('u');
    h.type_text(suite.to_str().unwrap());
    h.key(KeyCode::Enter);
    h.wait("written to", WAIT).await.unwrap();
    let text = std::fs::read_to_string(&suite).unwrap();
    let file = a2a_console::suite::file::parse(&text).unwrap();
    let case = &file.cases[0];
    assert_eq!(case.message.as_deref(), Some("ask"), "{text}");
    assert_eq!(case.agent.as_deref(), Some("demo"), "{text}");
    assert_eq!(case.reply[0].when, "input-required", "{text}");
    assert_eq!(case.reply[0].message.as_deref(), Some("Ada"), "{text}");
    assert_eq!(case.expect.state.as_deref(), Some("completed"), "{text}");
    assert!(
        text.contains("# Recorded by a2a-console from task"),
        "{text}"
    );
    // U on the agent runs that file (offered again in the prompt) on it; the results open as a page.
    h.key(KeyCode::Tab);
    h.key(KeyCode::Char('U'));
    h.wait("Run a suite on this agent", WAIT).await.unwrap();
    h.key(KeyCode::Enter);
    let page = h.wait("Suite recorded.toml on demo", WAIT).await.unwrap();
    assert!(page.contains("1 PASS · 0 FAIL"), "{page}");
    assert!(page.contains("PASS  #1   ask"), "{page}");
    assert!(page.contains("kept as run 1"), "{page}");
    // Enter on the case: what was expected and what the agent gave.
    h.key(KeyCode::Char('.'));
    h.key(KeyCode::Enter);
    let detail = h.wait("states: submitted", WAIT).await.unwrap();
    assert!(
        detail.contains("ok   state: expected completed"),
        "{detail}"
    );
    h.key(KeyCode::Esc);
    h.key(KeyCode::Esc);
    h.wait("suite 1/1 ✓ recorded.toml", WAIT).await.unwrap();
    // A second run that ends while the user types a message: the page waits, the keys stay in the box.
    h.key(KeyCode::Char('U'));
    h.wait("Run a suite on this agent", WAIT).await.unwrap();
    h.key(KeyCode::Enter);
    h.key(KeyCode::Char('n'));
    h.type_text("typed while the suite runs");
    let s = h
        .wait_until("the run's end in the status line", WAIT, |s| {
            s.contains("on the agent shows the results")
        })
        .await
        .unwrap();
    assert!(!s.contains("Suite recorded.toml on demo"), "{s}");
    h.type_text(" and after");
    h.wait("typed while the suite runs and after", WAIT)
        .await
        .unwrap();
    // u shows it: kept as run 2, compared with run 1.
    h.key(KeyCode::Esc);
    h.key(KeyCode::Tab);
    h.key(KeyCode::Char('u'));
    let again = h.wait("kept as run 2", WAIT).await.unwrap();
    assert!(again.contains("since run 1:"), "{again}");
    assert!(again.contains("#Δ   since run 1"), "{again}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_marked_tasks_compare_side_by_side_with_what_changed() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let mut h = console(&demo.base_url(), None);
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_restored_from_the_store_are_read_before_they_are_compared() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store.db");
    let mut h = console(&demo.base_url(), Some(&db));
    h.wait("card 0.1.0", WAIT).await.unwrap();
    for text in ["echo first words", "echo second words"] {
        h.key(KeyCode::Esc);
        h.key(KeyCode::Char('n'));
        h.wait("Message → demo", WAIT).await.unwrap();
        h.type_text(text);
        h.key(KeyCode::Enter);
        h.wait(&format!("echo: {}", &text[5..]), WAIT)
            .await
            .unwrap();
    }
    h.key(KeyCode::Esc);
    h.finish(WAIT).await.unwrap();
    // Restarted: the tabs are headers until opened; the board compares them after reading both.
    let mut h = console(&demo.base_url(), Some(&db));
    h.wait("card 0.1.0", WAIT).await.unwrap();
    h.key(KeyCode::Char('b'));
    h.wait("Board", WAIT).await.unwrap();
    h.key(KeyCode::Char('m'));
    h.key(KeyCode::Char('j'));
    h.key(KeyCode::Char('m'));
    h.key(KeyCode::Char('='));
    let page = h.wait("compare: task", WAIT).await.unwrap();
    assert!(
        page.matches("states: submitted → working → completed")
            .count()
            >= 2,
        "both tasks read from the store: {page}"
    );
    // The board lists the newest first: whichever side each is on, the two texts are the diff.
    for text in ["echo: first words", "echo: second words"] {
        assert!(
            page.contains(&format!("- {text}")) || page.contains(&format!("+ {text}")),
            "{page}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn u_while_a_suite_runs_offers_to_stop_it_and_the_page_shows_what_ended() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("slow.toml");
    std::fs::write(
        &suite,
        "[[cases]]\nname = \"quick\"\nmessage = \"echo quick\"\n\n\
         [[cases]]\nname = \"slow\"\nmessage = \"slow 30\"\n[cases.expect]\nmax_seconds = 60\n",
    )
    .unwrap();
    let mut h = console(&demo.base_url(), Some(&dir.path().join("store.db")));
    h.wait("card 0.1.0", WAIT).await.unwrap();
    h.key(KeyCode::Char('U'));
    h.wait("Run a suite on this agent", WAIT).await.unwrap();
    h.ctrl('u');
    h.type_text(suite.to_str().unwrap());
    h.key(KeyCode::Enter);
    h.wait("suite 1/2 running", WAIT).await.unwrap();
    // U again: a question, and a no lets it run.
    h.key(KeyCode::Char('U'));
    h.wait("Stop the suite running on demo", WAIT)
        .await
        .unwrap();
    h.key(KeyCode::Char('n'));
    h.wait_until("the dialog closed", WAIT, |s| !s.contains("Stop the suite"))
        .await
        .unwrap();
    h.key(KeyCode::Char('U'));
    h.wait("Stop the suite running on demo", WAIT)
        .await
        .unwrap();
    h.key(KeyCode::Char('y'));
    let page = h.wait("· stopped", WAIT).await.unwrap();
    assert!(page.contains("1 PASS · 1 FAIL"), "{page}");
    assert!(page.contains("PASS  #1   quick"), "{page}");
    assert!(
        page.contains("FAIL  #2   slow")
            && page.contains("not run to its end: the run was stopped"),
        "{page}"
    );
    assert!(page.contains("kept as run 1"), "{page}");
}
