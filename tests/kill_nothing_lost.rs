//! "Nothing the screen has shown is ever lost": the real binary in tmux, on a store in a temp dir, follows a
//! flood of status updates from the demo agent (its own process) and is killed with SIGKILL — once in the middle
//! of a 100 000-update flood, right after the screen showed update *i* (which must then be in the store), and
//! once the moment the screen shows the task completed (every update, the final state and the user's message
//! must be in the store, and a new console restores the tab).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{tmux, wait_pane};

use std::process::Command;

use a2a_console::store::{Store, kind};

/// The real console in tmux, on a store in a temp dir, with the demo agent (its own process) configured; a
/// flood of `n` status updates already sent.
struct Flood {
    _demo: common::Server,
    _dir: tempfile::TempDir,
    db: std::path::PathBuf,
    session: String,
    script: String,
    pid: u32,
}

impl Flood {
    fn start(name: &str, n: u64) -> Flood {
        let demo = common::demo_agent();
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("console.db");
        let config = dir.path().join("config.toml");
        std::fs::write(
            &config,
            format!("[[agents]]\nname = \"demo\"\nurl = \"{}\"\n", demo.url),
        )
        .unwrap();
        let session = format!("a2a-{name}-{}", std::process::id());
        let script = format!(
            "exec env A2A_CONSOLE_DB={} XDG_STATE_HOME={} {} --config {}",
            db.display(),
            dir.path().display(),
            common::bin(),
            config.display()
        );
        let pid = common::tmux_start(&session, &script);
        wait_pane(&session, "the agent online", |p| p.contains("card 0.1.0"));
        tmux(&["send-keys", "-t", &session, "n"]);
        wait_pane(&session, "a new tab", |p| p.contains("Message → demo"));
        tmux(&["send-keys", "-t", &session, "-l", &format!("flood {n}")]);
        tmux(&["send-keys", "-t", &session, "Enter"]);
        Flood {
            _demo: demo,
            _dir: dir,
            db,
            session,
            script,
            pid,
        }
    }

    /// SIGKILL: no chance to flush anything.
    fn kill(&self) {
        Command::new("kill")
            .args(["-9", &self.pid.to_string()])
            .status()
            .unwrap();
        let _ = tmux(&["kill-session", "-t", &self.session]);
    }
}

#[test]
fn kill_9_after_a_flood_loses_no_event() {
    const N: usize = 3000;
    let f = Flood::start("kill", N as u64);
    wait_pane(&f.session, "the flood to complete", |p| {
        p.contains("✓ completed")
    });
    // What the user types next is on screen only: it must be in the store a second after the first key.
    tmux(&["send-keys", "-t", &f.session, "-l", "half a thought"]);
    wait_pane(&f.session, "the draft on screen", |p| {
        p.contains("half a thought")
    });
    wait_for_draft(&f.db, "half a thought");
    f.kill();
    let (db, session, script) = (&f.db, &f.session, &f.script);

    let store = Store::open(db).unwrap();
    let tasks = store.tasks().unwrap();
    assert_eq!(tasks.len(), 1, "{tasks:?}");
    let events = store
        .events(&tasks[0].agent_url, &tasks[0].task_id)
        .unwrap();
    let updates = events.iter().filter(|e| e.kind == kind::STATUS).count();
    assert!(
        updates >= N,
        "only {updates} of {N} status updates were stored"
    );
    let last = events
        .iter()
        .rev()
        .find(|e| e.kind == kind::STATUS || e.kind == kind::TASK)
        .unwrap();
    assert!(
        last.json.contains("TASK_STATE_COMPLETED"),
        "the final state is stored: {}",
        last.json
    );
    assert!(
        events
            .iter()
            .any(|e| e.kind == kind::USER && e.json.contains(&format!("flood {N}"))),
        "the user's message is stored"
    );
    println!(
        "measured: {} events stored for the task ({updates} status updates for a flood of {N}), final state completed",
        events.len()
    );

    // The CLI reads the same store: history, a Markdown export, the audit log.
    let dbs = db.display().to_string();
    let env = [("A2A_CONSOLE_DB", dbs.as_str())];
    let r = common::cli_env(&["history"], &env);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(
        r.stdout.contains(&tasks[0].task_id) && r.stdout.contains("completed"),
        "{}",
        r.stdout
    );
    let r = common::cli_env(&["export", &tasks[0].task_id], &env);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains(&format!("flood {N}")), "{}", r.stdout);
    common::assert_terminal_safe(&r.stdout);
    let r = common::cli_env(&["export", &tasks[0].task_id, "--format", "json"], &env);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(v["events"].as_array().unwrap().len() >= N);
    let r = common::cli_env(&["audit"], &env);
    assert_eq!(r.code, 0, "{}", r.all());
    // Every event is in the audit trail with its task id and state.
    let event_lines = r
        .stdout
        .lines()
        .filter(|l| l.contains("\"direction\":\"event\"") && l.contains(&tasks[0].task_id))
        .count();
    assert!(
        event_lines >= N,
        "{event_lines} audited events for a flood of {N}"
    );
    // The request that started the task carries the message id (the task id did not exist yet).
    assert!(
        r.stdout
            .lines()
            .any(|l| l.contains("\"SendStreamingMessage\"") && !l.contains("\"messageId\":null")),
        "{}",
        r.stdout
    );

    // And a new console shows it again.
    let session2 = format!("{session}-2");
    common::tmux_start(&session2, script);
    tmux(&["send-keys", "-t", &session2, "M-1"]);
    let pane = wait_pane(&session2, "the restored tab", |p| {
        p.contains("✓ completed") && p.contains(&format!("Sent {N} status updates"))
    });
    let _ = tmux(&["kill-session", "-t", &session2]);
    assert!(pane.contains("flood"), "{pane}");
    assert!(
        pane.contains("half a thought"),
        "the draft typed before the kill is back in the box: {pane}"
    );
}

/// Wait (at most 20 s) until the store holds `text` as an open tab's draft. The console is running and may be
/// writing: a store that cannot be read at this moment is read again.
fn wait_for_draft(db: &std::path::Path, text: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let drafts: Vec<Option<String>> = Store::open(db)
            .and_then(|s| s.open_tabs())
            .map(|tabs| tabs.into_iter().map(|t| t.draft).collect())
            .unwrap_or_default();
        if drafts.iter().any(|d| d.as_deref() == Some(text)) {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the draft {text:?} never reached the store: {drafts:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// The highest `flood i/N` the screen shows.
fn shown_update(pane: &str) -> Option<u64> {
    pane.match_indices("flood ")
        .filter_map(|(at, _)| {
            let rest = pane.get(at + 6..)?;
            let (i, _) = rest.split_once('/')?;
            i.parse().ok()
        })
        .max()
}

#[test]
fn kill_9_in_the_middle_of_a_100k_flood_loses_nothing_the_screen_showed() {
    const N: u64 = 100_000;
    let f = Flood::start("kill-mid", N);
    // Well into the flood, read what the screen shows and kill at once.
    let pane = wait_pane(&f.session, "the flood to be under way", |p| {
        shown_update(p).is_some_and(|i| i >= 5_000)
    });
    f.kill();
    let shown = shown_update(&pane).unwrap();
    assert!(
        shown < N,
        "killed in the middle, not after the end ({shown})"
    );

    let store = Store::open(&f.db).unwrap();
    let tabs = store.open_tabs().unwrap();
    assert_eq!(tabs.len(), 1, "{tabs:?}");
    let events = store.tab_events(&tabs[0].row.tab).unwrap();
    let needle = format!("flood {shown}/{N}");
    assert!(
        events
            .iter()
            .any(|e| e.kind == kind::STATUS && e.json.contains(&needle)),
        "the screen showed {needle:?}, but the store does not have it ({} events stored)",
        events.len()
    );
    let stored = events.iter().filter(|e| e.kind == kind::STATUS).count();
    assert!(
        events.first().is_some_and(|e| e.kind == kind::USER),
        "the user's message comes first"
    );
    println!(
        "measured: killed after the screen showed update {shown} of {N}; {stored} status updates were stored"
    );
}
