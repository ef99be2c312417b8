//! The CLI on a closed pipe: `export`, `audit`, `history` and `send … big` with stdout piped into a reader that
//! takes one line and closes (what `| head -1` does). Each must stop quietly with the documented code 141 (the
//! shell's code for a tool ended by SIGPIPE): no panic, no "Broken pipe" message, and no hang while the
//! agent keeps streaming to nobody.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};
use std::time::Duration;

use a2a_console::store::record::Record;
use a2a_console::store::{AuditEntry, Direction, Store};
use chrono::Utc;

/// What the command did after its reader went away.
struct Closed {
    first_line: String,
    code: Option<i32>,
    stderr: String,
}

/// Runs the binary, reads one line of its stdout, closes the pipe, and waits (at most 60 s) for it to end.
fn first_line_then_close(args: &[&str], env: &[(&str, &str)]) -> Closed {
    let empty = std::env::temp_dir().join("a2a-console-test-empty.toml");
    let _ = std::fs::write(&empty, "");
    let mut cmd = Command::new(common::bin());
    cmd.args(args)
        .env("A2A_CONSOLE_CONFIG", &empty)
        .env_remove("A2A_CONSOLE_LOG")
        .env_remove("RUST_BACKTRACE")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn a2a-console");
    let mut err = child.stderr.take().unwrap();
    let t_err = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    let mut first_line = String::new();
    {
        let mut reader = BufReader::new(child.stdout.take().unwrap());
        let _ = reader.read_line(&mut first_line);
        // The reader (and with it the pipe's only read end) is dropped here, as `head -1` exits.
    }
    let status = common::wait_or_kill(&mut child, Duration::from_secs(60), || {
        format!("a2a-console {args:?} was still running 60 s after its reader closed the pipe")
    });
    Closed {
        first_line,
        code: status.code(),
        stderr: t_err.join().unwrap(),
    }
}

fn assert_quiet_141(what: &str, c: &Closed) {
    assert!(
        !c.first_line.is_empty(),
        "{what}: printed nothing; stderr: {}",
        c.stderr
    );
    assert!(
        !c.stderr.contains("panicked") && !c.stderr.to_lowercase().contains("broken pipe"),
        "{what}: stderr after the reader went away: {}",
        c.stderr
    );
    assert_eq!(
        c.code,
        Some(141),
        "{what}: exit status; stderr: {}",
        c.stderr
    );
}

/// A store holding one task with enough events and audit entries to overflow any pipe buffer (64 KiB on
/// Linux): a command that fits in the buffer would finish before the reader closes it.
fn big_store(dir: &std::path::Path) -> String {
    let db = dir.join("console.db");
    let store = Store::open(&db).unwrap();
    let at = Utc::now();
    let mut records = vec![Record::Tab(Box::new(a2a_console::testing::tab_row(
        "t",
        "demo",
        Some("task-pipe"),
        "completed",
        at,
    )))];
    for i in 0..3000 {
        records.push(Record::Note {
            tab: "t".into(),
            task_id: Some("task-pipe".into()),
            text: format!("note {i}: {}", "x".repeat(60)),
            error: false,
            at,
        });
        records.push(Record::Audit(Box::new(AuditEntry {
            at,
            agent: "http://127.0.0.1:9".into(),
            direction: Direction::Request,
            method: "SendMessage".into(),
            task_id: Some("task-pipe".into()),
            context_id: None,
            message_id: Some(format!("m{i}")),
            detail_json: serde_json::json!({"text": "y".repeat(60)}),
        })));
    }
    store
        .write_batch(&records, &mut Default::default())
        .unwrap();
    db.display().to_string()
}

#[test]
fn stored_commands_exit_quietly_when_the_reader_closes() {
    let dir = tempfile::tempdir().unwrap();
    let db = big_store(dir.path());
    let env = [("A2A_CONSOLE_DB", db.as_str())];
    for args in [
        &["export", "task-pipe"][..],
        &["export", "task-pipe", "--format", "json"],
        &["audit"],
        &["audit", "--last", "3000"],
    ] {
        let c = first_line_then_close(args, &env);
        assert_quiet_141(&args.join(" "), &c);
    }
    // The same commands read to the end still succeed: only a closed pipe changes the ending.
    let whole = common::cli_env(&["export", "task-pipe"], &env);
    assert_eq!(whole.code, 0, "{}", whole.stderr);
    assert!(
        whole.stdout.contains("note 2999"),
        "the export was cut short"
    );
}

#[test]
fn send_big_exits_quietly_when_the_reader_closes() {
    let demo = common::demo_agent();
    for extra in [&["--stream"][..], &[][..], &["--json", "--stream"][..]] {
        let mut args = vec!["send", demo.url.as_str(), "big 2"];
        args.extend_from_slice(extra);
        let c = first_line_then_close(&args, &[]);
        assert_quiet_141(&args.join(" "), &c);
    }
}
