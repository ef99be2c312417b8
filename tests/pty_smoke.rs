//! One smoke test of the real binary in a real pseudo-terminal (tmux): the first frame appears, `q` quits,
//! and the terminal is restored (raw mode off, alternate screen left).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::{tmux, wait_pane};

#[test]
fn first_frame_then_q_quits_and_the_terminal_is_restored() {
    let session = format!("a2a-smoke-{}", std::process::id());
    let empty = std::env::temp_dir().join("a2a-console-smoke.toml");
    std::fs::write(&empty, "").unwrap();
    // After the console exits, print its exit code and whether the tty is back in canonical (cooked) mode.
    let script = format!(
        "A2A_CONSOLE_CONFIG={} {} --demo; echo \"EXIT=$?\"; stty -a | tr ' ' '\\n' | grep -x -e icanon -e -icanon; sleep 30",
        empty.display(),
        common::bin()
    );
    common::tmux_start(&session, &script);
    let first = wait_pane(
        &session,
        "the first frame with the demo agent online",
        |p| p.contains("Agents") && p.contains("card 0.1.0"),
    );
    assert!(first.contains("demo"), "{first}");
    tmux(&["send-keys", "-t", &session, "q"]);
    // The exit code and the stty line are printed one after the other: wait for both (under load the second
    // can come a moment later).
    let after = wait_pane(&session, "the exit line and the tty mode", |p| {
        p.contains("EXIT=") && p.lines().any(|l| matches!(l.trim(), "icanon" | "-icanon"))
    });
    tmux(&["kill-session", "-t", &session]);
    assert!(after.contains("EXIT=0"), "{after}");
    assert!(
        after.lines().any(|l| l.trim() == "icanon"),
        "raw mode must be off after exit:\n{after}"
    );
    assert!(
        !after.contains("Agents"),
        "the alternate screen must be left (the console's frame is gone):\n{after}"
    );
}

#[test]
fn a_corrupt_database_is_reported_and_the_console_works_in_memory() {
    let session = format!("a2a-corrupt-{}", std::process::id());
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("console.db");
    std::fs::write(
        &db,
        b"this is not an SQLite database, just bytes \x00\x01\x02 that look like one to nobody",
    )
    .unwrap();
    let before = std::fs::read(&db).unwrap();
    let empty = dir.path().join("config.toml");
    std::fs::write(&empty, "").unwrap();
    let script = format!(
        "A2A_CONSOLE_DB={} XDG_STATE_HOME={} A2A_CONSOLE_CONFIG={} {} --demo; echo \"EXIT=$?\"; sleep 30",
        db.display(),
        dir.path().display(),
        empty.display(),
        common::bin()
    );
    tmux(&[
        "new-session",
        "-d",
        "-s",
        &session,
        "-x",
        "140",
        "-y",
        "36",
        &script,
    ]);
    let pane = wait_pane(&session, "the in-memory notice", |p| {
        p.contains("working in memory only")
    });
    assert!(
        pane.contains("card 0.1.0") || pane.contains("demo"),
        "{pane}"
    );
    // Still usable: a task runs.
    tmux(&["send-keys", "-t", &session, "n"]);
    wait_pane(&session, "a new tab", |p| p.contains("Message → demo"));
    tmux(&["send-keys", "-t", &session, "-l", "echo still works"]);
    tmux(&["send-keys", "-t", &session, "Enter"]);
    wait_pane(&session, "the reply", |p| p.contains("echo: still works"));
    tmux(&["send-keys", "-t", &session, "C-c"]);
    wait_pane(&session, "the exit line", |p| p.contains("EXIT="));
    tmux(&["kill-session", "-t", &session]);
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "the user's file is never modified"
    );
}
