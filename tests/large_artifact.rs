//! Issue 9, item 11: a very large artifact does not grow the console without bound. The real runtime on a
//! `TestBackend` against the embedded demo agent on 127.0.0.1 (its `big` scenario: 256 KiB chunks), with a
//! store in a temp dir and a small per-artifact limit: the transcript says when the limit is reached and what
//! happens to the rest, the task still completes, the console keeps (in memory and in the store) no more
//! than the limit, and a new console on the same store shows the same artifact and note.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use a2a_console::app::state::{AgentOrigin, App};
use a2a_console::config::keymap::Keymap;
use a2a_console::config::theme::Theme;
use a2a_console::remote::agent::AgentTarget;
use a2a_console::testing::Headless;
use a2a_console::tui::runtime::Runtime;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

const MIB: usize = 1024 * 1024;
const LIMIT: usize = MIB;
const PATIENCE: Duration = Duration::from_secs(60);

fn console(url: &str, db: &std::path::Path) -> Headless {
    let mut app = App::new(Keymap::defaults(), Theme::builtin("dark").unwrap());
    app.size = (140, 40);
    app.artifact_limit = Some(LIMIT);
    let mut t = AgentTarget::from_url(url, Duration::from_secs(20));
    t.label = "demo".into();
    app.add_agent(t, AgentOrigin::Config);
    let (mut rt, rx) = Runtime::new(None, "dark").unwrap();
    let store = a2a_console::store::Store::open(db).unwrap();
    a2a_console::tui::persist::restore_headers(&store, &mut app).unwrap();
    rt.writer = Some(a2a_console::store::writer::StoreWriter::spawn(store).unwrap());
    Headless::start(app, rt, rx)
}

async fn wait(h: &mut Headless, what: &str) -> String {
    h.wait(what, PATIENCE)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_artifact_past_the_size_limit_is_cut_with_a_note_and_the_task_continues() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("console.db");
    let mut h = console(&demo.base_url(), &db);
    wait(&mut h, "card 0.1.0").await;
    h.key(KeyCode::Char('n'));
    wait(&mut h, "Message → demo").await;
    // 4 MiB in 16 chunks of 256 KiB: the first 4 fit the 1 MiB limit exactly.
    h.type_text("big 4");
    h.key(KeyCode::Enter);
    wait(&mut h, "✓ completed").await;
    let done = h.finish(Duration::from_secs(10)).await.unwrap();
    done.result.as_ref().unwrap();
    let t = &done.app.tabs[0];
    let view = &t.artifacts[0];
    assert_eq!(view.bytes, LIMIT, "what fits is shown, nothing past it");
    assert!(view.text.len() <= LIMIT + 64 * 1024, "{}", view.text.len());
    assert_eq!(view.limited, Some(LIMIT));
    assert!(view.complete, "the last chunk still completes the artifact");
    let kept = &t.log.artifacts[0];
    assert!(kept.at_limit && kept.bytes <= LIMIT, "{}", kept.bytes);
    assert_eq!(kept.artifact.parts.len(), 4);
    let notes: Vec<String> = t
        .transcript
        .iter()
        .filter_map(|e| match e {
            a2a_console::app::task::Entry::Console { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect();
    let note = notes
        .iter()
        .find(|n| n.contains("reached the size limit of 1 MiB"))
        .unwrap_or_else(|| panic!("no limit note in {notes:?}"));
    assert!(
        note.contains("big.txt")
            && note.contains("max_artifact_mib")
            && note.contains("further chunks are not kept")
            && note.contains("the task itself continues"),
        "{note}"
    );
    assert_eq!(
        notes.iter().filter(|n| n.contains("size limit")).count(),
        1,
        "said once: {notes:?}"
    );
    let task_id = t.log.task_id.clone().unwrap();
    drop(done);

    // The store holds what was kept, not the 4 MiB the agent sent (chunks past the limit lose their parts).
    let store = a2a_console::store::Store::open(&db).unwrap();
    let events = store.events(&demo.base_url(), &task_id).unwrap();
    let stored: usize = events.iter().map(|e| e.json.len()).sum();
    assert!(
        events.len() > 16,
        "every chunk has its row: {}",
        events.len()
    );
    assert!(
        stored < LIMIT + 512 * 1024,
        "the store holds {stored} bytes of events"
    );
    drop(store);

    // A new console on the same store: the same artifact, the same note, nothing more and nothing lost.
    let mut h = console(&demo.base_url(), &db);
    h.key(KeyCode::Char('1'));
    h.press(KeyEvent::new(KeyCode::Char('1'), KeyModifiers::ALT));
    wait(&mut h, "reached the size limit").await;
    let done = h.finish(Duration::from_secs(10)).await.unwrap();
    let t = &done.app.tabs[0];
    assert_eq!(t.artifacts[0].bytes, LIMIT);
    assert_eq!(
        t.transcript
            .iter()
            .filter(
                |e| matches!(e, a2a_console::app::task::Entry::Console { text, .. }
                if text.contains("size limit"))
            )
            .count(),
        1
    );
    demo.shutdown().await;
}
