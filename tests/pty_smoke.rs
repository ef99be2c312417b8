//! Smoke tests of the real binary in a real pseudo-terminal (tmux): the first frame appears, `q` quits, and the
//! terminal is restored (raw mode off, alternate screen left); a signal from outside (SIGTERM, SIGHUP, SIGQUIT,
//! SIGINT) ends it with the terminal restored too; a corrupt database leaves it working in memory.
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

/// The console in a pane gets `signal` from outside (as from `kill`, a closed terminal, a supervisor): it must
/// exit with 128 + the signal's number, and what it wrote last must turn off everything it turned on — mouse
/// capture, bracketed paste, the alternate screen, the hidden cursor — with the tty back in cooked mode. Its
/// log, written meanwhile, is 0600 in a 0700 directory.
fn a_signal_ends_the_console_with_the_terminal_restored(signal: &str, number: i32) {
    let session = format!("a2a-signal-{signal}-{}", std::process::id());
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display();
    std::fs::write(dir.path().join("config.toml"), "").unwrap();
    // The inner shell writes its pid and then becomes the console (exec), so the signal goes to the console
    // itself; the outer one reports how it ended and the tty's mode.
    let script = format!(
        "sh -c 'echo $$ > {d}/pid; exec env A2A_CONSOLE_DB={d}/db/console.db XDG_STATE_HOME={d}/state \
         A2A_CONSOLE_CONFIG={d}/config.toml {} --demo'; echo \"EXIT=$?\"; \
         stty -a | tr ' ' '\\n' | grep -x -e icanon -e -icanon; sleep 30",
        common::bin()
    );
    common::tmux_start(&session, &script);
    wait_pane(
        &session,
        "the first frame with the demo agent online",
        |p| p.contains("Agents") && p.contains("card 0.1.0"),
    );
    // From here on, every byte the console writes to its terminal is copied to `raw`.
    let raw = dir.path().join("raw");
    tmux(&[
        "pipe-pane",
        "-O",
        "-t",
        &session,
        &format!("cat > {}", raw.display()),
    ]);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !raw.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "pipe-pane never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let pid = std::fs::read_to_string(dir.path().join("pid")).unwrap();
    let killed = std::process::Command::new("kill")
        .args([&format!("-{signal}"), pid.trim()])
        .status()
        .unwrap();
    assert!(killed.success());
    let after = wait_pane(&session, "the exit line and the tty mode", |p| {
        p.contains("EXIT=") && p.lines().any(|l| matches!(l.trim(), "icanon" | "-icanon"))
    });
    tmux(&["kill-session", "-t", &session]);
    assert!(
        after.contains(&format!("EXIT={}", 128 + number)),
        "SIG{signal} must end the console with {}:\n{after}",
        128 + number
    );
    assert!(
        after.lines().any(|l| l.trim() == "icanon"),
        "raw mode must be off after SIG{signal}:\n{after}"
    );
    assert!(
        !after.contains("Agents"),
        "the alternate screen must be left after SIG{signal}:\n{after}"
    );
    let bytes = std::fs::read(&raw).unwrap();
    let out = String::from_utf8_lossy(&bytes);
    // Each mode the console turned on is turned off after the last time it was (re)enabled.
    for (on, off, what) in [
        ("\x1b[?1049h", "\x1b[?1049l", "leave the alternate screen"),
        ("\x1b[?1000h", "\x1b[?1000l", "disable mouse capture"),
        ("\x1b[?1006h", "\x1b[?1006l", "disable SGR mouse reports"),
        ("\x1b[?2004h", "\x1b[?2004l", "disable bracketed paste"),
        ("\x1b[?25l", "\x1b[?25h", "show the cursor"),
    ] {
        let last_off = out.rfind(off);
        assert!(
            last_off.is_some() && out.rfind(on) < last_off,
            "after SIG{signal} the console must {what} ({off:?}); it wrote last:\n{:?}",
            &out[out.len().saturating_sub(400)..]
        );
    }
    let log = dir.path().join("state/a2a-console/console.log");
    let mode = |p: &std::path::Path| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    };
    assert_eq!(mode(&log), 0o600, "the log must be private");
    assert_eq!(mode(log.parent().unwrap()), 0o700);
    assert_eq!(mode(&dir.path().join("db/console.db")), 0o600);
}

#[test]
fn sigterm_ends_the_console_with_the_terminal_restored() {
    a_signal_ends_the_console_with_the_terminal_restored("TERM", 15);
}

#[test]
fn sighup_ends_the_console_with_the_terminal_restored() {
    a_signal_ends_the_console_with_the_terminal_restored("HUP", 1);
}

#[test]
fn sigquit_ends_the_console_with_the_terminal_restored() {
    a_signal_ends_the_console_with_the_terminal_restored("QUIT", 3);
}

#[test]
fn sigint_from_outside_ends_the_console_with_the_terminal_restored() {
    a_signal_ends_the_console_with_the_terminal_restored("INT", 2);
}

/// One full path a new user takes, keys in the order a person presses them, in the real binary in tmux: start
/// on the demo agent → the skills page → a skill's example → its story streams in → search the transcript →
/// copy (OSC 52, which tmux with `set-clipboard on` turns into a paste buffer we can read back) → the board →
/// quit. Every step is checked on the screen the user sees.
#[test]
fn start_demo_skill_stream_search_copy_board_quit() {
    let session = format!("a2a-path-{}", std::process::id());
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display();
    std::fs::write(dir.path().join("config.toml"), "").unwrap();
    let script = format!(
        "A2A_CONSOLE_DB={d}/console.db XDG_STATE_HOME={d}/state A2A_CONSOLE_CONFIG={d}/config.toml {} --demo; \
         echo \"EXIT=$?\"; sleep 30",
        common::bin()
    );
    common::tmux_start(&session, &script);
    // The console copies by OSC 52; tmux keeps what arrives as a buffer when set-clipboard is on.
    tmux(&["set-option", "-s", "set-clipboard", "on"]);
    let keys = |k: &[&str]| {
        let mut args = vec!["send-keys", "-t", session.as_str()];
        args.extend_from_slice(k);
        tmux(&args);
    };
    wait_pane(&session, "the demo agent online", |p| {
        p.contains("card 0.1.0")
    });
    // Skills: the cursor starts on the first example; one down is "stream".
    keys(&["s"]);
    wait_pane(&session, "the skills page", |p| {
        p.contains("Streaming story")
    });
    keys(&["j"]);
    wait_pane(&session, "the stream example selected", |p| {
        p.lines()
            .any(|l| l.contains("▶") && l.contains("stream") && !l.contains("200"))
    });
    keys(&["Enter"]);
    let tab = wait_pane(&session, "a new tab with the example to send", |p| {
        p.contains("Message → demo") && p.contains("TYPING")
    });
    assert!(tab.contains("stream"), "{tab}");
    keys(&["Enter"]);
    wait_pane(&session, "the story streamed to its end", |p| {
        p.contains("The end.") && p.contains("completed")
    });
    // Leave the compose box, then search what the agent wrote.
    keys(&["Escape"]);
    wait_pane(&session, "command keys", |p| p.contains("KEYS"));
    keys(&["/"]);
    wait_pane(&session, "the search prompt", |p| p.contains("Search"));
    keys(&["-l", "lighthouse"]);
    keys(&["Enter"]);
    // The search starts from where the view is (the end, here) and wraps, as in a pager: read where it landed.
    let first = wait_pane(&session, "a match", |p| match_shown(p).is_some());
    let (at, total) = match_shown(&first).unwrap_or_default();
    assert!(
        total >= 2,
        "the story names the lighthouse more than once:\n{first}"
    );
    keys(&["n"]);
    let next = at % total + 1;
    wait_pane(&session, "the next match", |p| {
        match_shown(p) == Some((next, total))
    });
    // Copy the entry the search landed on.
    keys(&["y"]);
    let copied = wait_pane(&session, "the copy confirmed", |p| p.contains("copied"));
    assert!(copied.contains("OSC 52"), "{copied}");
    let buffer = tmux(&["show-buffer"]);
    assert!(
        buffer.contains("lighthouse keeper"),
        "the clipboard holds the story:\n{buffer}"
    );
    // The board lists the task; q quits cleanly.
    keys(&["b"]);
    wait_pane(&session, "the board", |p| {
        p.contains("Board ·") && p.contains("completed")
    });
    keys(&["q"]);
    let after = wait_pane(&session, "the exit line", |p| p.contains("EXIT="));
    tmux(&["kill-session", "-t", &session]);
    assert!(after.contains("EXIT=0"), "{after}");
}

/// "match 3/17" in the tab's title: (3, 17).
fn match_shown(pane: &str) -> Option<(usize, usize)> {
    let rest = pane.split("match ").nth(1)?;
    let (at, rest) = rest.split_once('/')?;
    let total: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((at.parse().ok()?, total.parse().ok()?))
}

/// The embedded demo agent keeps one address across starts (issue [10] item 3): its tasks are stored under one
/// agent URL, so `history` lists a task once after a restart that restored its tab, and the restored tab talks
/// to the same address. `[demo] port` sets the port (a free one here, so parallel tests never share it).
#[test]
fn the_demo_agent_keeps_its_address_across_restarts_and_history_lists_its_task_once() {
    let session = format!("a2a-demo-port-{}", std::process::id());
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    std::fs::write(
        dir.path().join("config.toml"),
        format!("[demo]\nport = {port}\n"),
    )
    .unwrap();
    let env = format!(
        "A2A_CONSOLE_DB={d}/console.db XDG_STATE_HOME={d}/state A2A_CONSOLE_CONFIG={d}/config.toml"
    );
    let script = format!(
        "{env} {bin} --demo; echo \"FIRST=$?\"; {env} {bin} --demo; echo \"SECOND=$?\"; sleep 30",
        bin = common::bin()
    );
    common::tmux_start(&session, &script);
    let keys = |k: &[&str]| {
        let mut args = vec!["send-keys", "-t", session.as_str()];
        args.extend_from_slice(k);
        tmux(&args);
    };
    let first = wait_pane(&session, "the demo agent online", |p| {
        p.contains("card 0.1.0")
    });
    assert!(first.contains(&format!("127.0.0.1:{port}")), "{first}");
    keys(&["n"]);
    wait_pane(&session, "a new tab", |p| p.contains("Message → demo"));
    keys(&["-l", "echo same address"]);
    keys(&["Enter"]);
    wait_pane(&session, "the echo completed", |p| p.contains("completed"));
    keys(&["Escape"]);
    wait_pane(&session, "command keys", |p| p.contains("KEYS"));
    keys(&["q"]);
    let second = wait_pane(&session, "the second start, its tab restored", |p| {
        // The alternate screen hides FIRST=…: the second start opens on the card page, its tab restored.
        p.contains("Card · demo") && p.contains("card 0.1.0") && p.contains("completed")
    });
    assert!(second.contains(&format!("127.0.0.1:{port}")), "{second}");
    keys(&["q"]);
    let after = wait_pane(&session, "the second exit", |p| p.contains("SECOND="));
    assert!(
        after.contains("FIRST=0") && after.contains("SECOND=0"),
        "{after}"
    );
    tmux(&["kill-session", "-t", &session]);
    let db = format!("{d}/console.db");
    let r = common::cli_env(&["history", "--json"], &[("A2A_CONSOLE_DB", &db)]);
    let tasks: Vec<serde_json::Value> = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(tasks.len(), 1, "{}", r.stdout);
    assert_eq!(
        tasks[0]["agent"].as_str(),
        Some(format!("http://127.0.0.1:{port}").as_str()),
        "{}",
        r.stdout
    );
}
