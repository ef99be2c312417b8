//! Issue 9, item 11: a very large artifact does not grow the console without bound. The real runtime on a
//! `TestBackend` against the embedded demo agent on 127.0.0.1 (its `big` scenario: 256 KiB chunks), with a
//! store in a temp dir and a small per-artifact limit: the transcript says when the limit is reached and what
//! happens to the rest, the task still completes, the console keeps (in memory and in the store) no more
//! than the limit, and a new console on the same store shows the same artifact and note. Without a limit, a
//! large artifact is kept whole in a spool file (not in memory): shown, searched and saved from there.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use a2a_console::app::agent::AgentOrigin;
use a2a_console::app::state::App;
use a2a_console::config::keymap::Keymap;
use a2a_console::config::theme::Theme;
use a2a_console::remote::connect::agent::AgentTarget;
use a2a_console::testing::Headless;
use a2a_console::tui::runtime::Runtime;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

const MIB: usize = 1024 * 1024;
const LIMIT: usize = MIB;
const PATIENCE: Duration = Duration::from_secs(60);

fn console(url: &str, db: &std::path::Path) -> Headless {
    console_with(url, db, Some(LIMIT), None)
}

fn console_with(
    url: &str,
    db: &std::path::Path,
    limit: Option<usize>,
    save_dir: Option<&std::path::Path>,
) -> Headless {
    let mut app = App::new(Keymap::defaults(), Theme::builtin("dark").unwrap());
    app.size = (140, 40);
    app.artifact_limit = limit;
    app.save_dir = save_dir.map(|d| d.to_path_buf());
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

/// The demo's `big` lines: "line 00000001: the quick brown fox…", 64 bytes each, numbered from 1.
const BIG_LINE: usize = 64;

/// Every line of `text` is the demo's numbered line, numbered on from 1 without a gap.
fn assert_big_lines(text: &[u8], lines: usize) {
    assert_eq!(text.len(), lines * BIG_LINE);
    for (i, line) in text.split(|b| *b == b'\n').take(lines).enumerate() {
        let head = format!("line {:08}: ", i + 1);
        assert!(
            line.starts_with(head.as_bytes()) && line.len() == BIG_LINE - 1,
            "line {}: {:?}",
            i + 1,
            String::from_utf8_lossy(line)
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_artifact_is_kept_whole_on_disk_and_shown_searched_and_saved_from_there() {
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let saves = tempfile::tempdir().unwrap();
    let db = dir.path().join("console.db");
    let mut h = console_with(&demo.base_url(), &db, None, Some(saves.path()));
    wait(&mut h, "card 0.1.0").await;
    h.key(KeyCode::Char('n'));
    wait(&mut h, "Message → demo").await;
    // 12 MiB in 48 chunks of 256 KiB: three times the size at which the text leaves memory.
    h.type_text("big 12");
    h.key(KeyCode::Enter);
    wait(&mut h, "✓ completed").await;
    let lines = 12 * MIB / BIG_LINE;
    // Following the end, the screen shows the artifact's last line, read back from the spool file.
    wait(&mut h, &format!("line {lines:08}: the quick")).await;

    // Search reads the whole text a piece at a time: a line from the middle is found.
    h.key(KeyCode::Esc);
    h.key(KeyCode::Char('/'));
    h.type_text("line 00098765:");
    h.key(KeyCode::Enter);
    let screen = wait(&mut h, "match 1/1").await;
    assert!(screen.contains("line 00098765: the quick"), "{screen}");

    // y does not read 12 MiB for the clipboard: it says why and what to do instead (the search selected the
    // artifact, where its match is).
    h.key(KeyCode::Char('y'));
    wait(&mut h, "too large for the terminal clipboard").await;

    // S saves the whole text, copied from the spool a piece at a time.
    h.key(KeyCode::Char('S'));
    wait(&mut h, "Save · 1 parts").await;
    h.key(KeyCode::Enter);
    wait(&mut h, "saves to").await;
    h.key(KeyCode::Enter);
    wait(&mut h, &format!("saved {} bytes", 12 * MIB)).await;
    let done = h.finish(Duration::from_secs(10)).await.unwrap();
    done.result.as_ref().unwrap();
    let saved = std::fs::read_dir(saves.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .next()
        .expect("a saved file");
    assert_big_lines(&std::fs::read(&saved).unwrap(), lines);

    // The console holds the text once, on disk: the view is spooled, the gate keeps prints, not the parts.
    let t = &done.app.tabs[0];
    let view = &t.artifacts[0];
    assert!(view.text.is_spooled());
    assert_eq!(
        (view.bytes, view.text.len(), view.text.line_count()),
        (12 * MIB, 12 * MIB, lines)
    );
    assert!(view.complete && view.limited.is_none());
    let kept = &t.log.artifacts[0];
    assert_eq!(kept.artifact.parts.len(), 48);
    assert!(
        kept.prints.iter().all(|p| p.hollow),
        "{:?}",
        &kept.prints[..2]
    );
    assert!(
        kept.artifact
            .parts
            .iter()
            .all(|p| matches!(&p.content, a2a::PartContent::Text(t) if t.is_empty()))
    );
    drop(done);

    // A new console on the same store brings the whole artifact back, spooled again.
    let mut h = console_with(&demo.base_url(), &db, None, None);
    h.key(KeyCode::Char('1'));
    h.press(KeyEvent::new(KeyCode::Char('1'), KeyModifiers::ALT));
    wait(&mut h, &format!("line {lines:08}: the quick")).await;
    let done = h.finish(Duration::from_secs(10)).await.unwrap();
    let view = &done.app.tabs[0].artifacts[0];
    assert!(view.text.is_spooled());
    assert_eq!(view.text.len(), 12 * MIB);
    demo.shutdown().await;
}
