//! `a2a-console prune`: retention applied from the command line on a real store file — old tasks go (with
//! their events), recent ones stay, and the command says what it did.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use a2a_console::store::Store;
use a2a_console::store::record::Record;
use chrono::{Duration, Utc};

fn row(tab: &str, days_ago: i64) -> Record {
    let at = Utc::now() - Duration::days(days_ago);
    Record::Tab(Box::new(a2a_console::testing::tab_row(
        tab,
        "demo",
        Some(&format!("task-{tab}")),
        "completed",
        at,
    )))
}

#[test]
fn prune_forgets_old_tasks_and_keeps_recent_ones() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("console.db");
    {
        let store = Store::open(&db).unwrap();
        let mut records = vec![row("old", 40), row("recent", 2)];
        for i in 0..100 {
            records.push(Record::Note {
                tab: "old".into(),
                task_id: Some("task-old".into()),
                text: format!("note {i}"),
                error: false,
                at: Utc::now() - Duration::days(40),
            });
        }
        store
            .write_batch(&records, &mut Default::default())
            .unwrap();
    }
    let dbs = db.display().to_string();
    let r = common::cli_env(&["prune", "--keep-days", "7"], &[("A2A_CONSOLE_DB", &dbs)]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(
        r.stdout.contains("1 task(s) and 100 event(s)"),
        "{}",
        r.stdout
    );
    let store = Store::open(&db).unwrap();
    let tabs = store.open_tabs().unwrap();
    assert_eq!(tabs.len(), 1);
    assert_eq!(tabs[0].row.tab, "recent");
    let r = common::cli_env(&["history"], &[("A2A_CONSOLE_DB", &dbs)]);
    assert!(
        !r.stdout.contains("task-old") && r.stdout.contains("task-recent"),
        "{}",
        r.stdout
    );
}

/// A task the store knows only by its header (its rows were never written, or were pruned) is no transcript:
/// `export` says why and exits 2 instead of printing an empty one with success. A short id that names no task
/// is refused the same way.
#[test]
fn export_of_a_task_with_nothing_stored_is_an_error_not_an_empty_transcript() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("console.db");
    {
        let store = Store::open(&db).unwrap();
        store
            .write_batch(&[row("bare", 1)], &mut Default::default())
            .unwrap();
    }
    let dbs = db.display().to_string();
    let env = [("A2A_CONSOLE_DB", dbs.as_str())];
    let r = common::cli_env(&["history"], &env);
    assert!(r.stdout.contains("task-bare"), "{}", r.all());
    let r = common::cli_env(&["export", "task-bare"], &env);
    assert_eq!(r.code, 2, "{}", r.all());
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert!(
        r.stderr
            .contains("nothing of this conversation is in the local store"),
        "{}",
        r.stderr
    );
    let r = common::cli_env(&["export", "zzzzzzzz"], &env);
    assert_eq!(r.code, 2, "{}", r.all());
    assert!(
        r.stderr.contains("is not in the local store"),
        "{}",
        r.stderr
    );
}
