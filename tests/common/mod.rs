//! Shared helpers for the integration tests: run the real `a2a-console` binary, and start servers (our demo
//! agent, the official SDKs' peers) on 127.0.0.1, waiting for their "listening" line, killing them on drop.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Path of the binary under test.
pub mod hostile_http;
pub mod oidc;
pub mod tls;

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_a2a-console")
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Output of one CLI run.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn all(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }
}

/// Run the CLI with no user config in the way, and a hard time limit (a hang is a test failure, not a hang).
pub fn cli(args: &[&str]) -> Run {
    cli_env(args, &[])
}

pub fn cli_env(args: &[&str], env: &[(&str, &str)]) -> Run {
    let empty = std::env::temp_dir().join("a2a-console-test-empty.toml");
    let _ = std::fs::write(&empty, "");
    let mut cmd = Command::new(bin());
    cmd.args(args)
        .env("A2A_CONSOLE_CONFIG", &empty)
        .env_remove("A2A_CONSOLE_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn a2a-console");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let t_err = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let status = wait_or_kill(&mut child, Duration::from_secs(90), || {
        format!("a2a-console {args:?} did not finish within 90 s")
    });
    let stdout = String::from_utf8_lossy(&t_out.join().unwrap()).into_owned();
    let stderr = String::from_utf8_lossy(&t_err.join().unwrap()).into_owned();
    Run {
        code: status.code().unwrap_or(-1),
        stdout,
        stderr,
    }
}

/// A server process that is killed when the test ends.
pub struct Server {
    child: Child,
    pub url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Wait for `child` to exit; past `limit` it is killed and the test fails with `why()`.
pub fn wait_or_kill(
    child: &mut std::process::Child,
    limit: Duration,
    why: impl Fn() -> String,
) -> std::process::ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("{}", why());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Start `cmd`, wait for a stdout line with `http://127.0.0.1:PORT`, and keep the rest of its output drained.
pub fn spawn_server(mut cmd: Command, what: &str) -> Server {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {what}: {e}"));
    let stdout = child.stdout.take().unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut sent = false;
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if !sent && let Some(i) = line.find("http://127.0.0.1:") {
                let url: String = line[i..]
                    .chars()
                    .take_while(|c| !c.is_whitespace())
                    .collect();
                let _ = tx.send(url.trim_end_matches(['/', ')', ',']).to_string());
                sent = true;
            }
        }
    });
    let err_lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let sink = err_lines.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if let Ok(mut v) = sink.lock()
                && v.len() < 200
            {
                v.push(line);
            }
        }
    });
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(url) => Server { child, url },
        Err(_) => {
            let _ = child.kill();
            let log = err_lines.lock().map(|v| v.join("\n")).unwrap_or_default();
            panic!("{what} did not report its URL within 60 s; stderr:\n{log}");
        }
    }
}

/// Where the demo agents the tests start keep their card-signing key (one file per test process).
pub fn demo_key_path() -> PathBuf {
    std::env::temp_dir().join(format!(
        "a2a-console-test-demo-key-{}.p8",
        std::process::id()
    ))
}

/// Our embedded demo agent, through the real binary.
pub fn demo_agent() -> Server {
    let mut cmd = Command::new(bin());
    cmd.args(["demo-agent", "--port", "0"]);
    // The demo keeps its card-signing key in the data dir; tests keep theirs out of the user's home.
    cmd.env("A2A_CONSOLE_DEMO_KEY", demo_key_path());
    spawn_server(cmd, "the demo agent")
}

/// Where `tests/peers/install.sh` put the official SDK peers.
pub fn peers_dir() -> PathBuf {
    std::env::var_os("PEERS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/peers"))
}

fn need(path: &Path, what: &str) {
    assert!(
        path.exists(),
        "{what} is not installed at {}: run `bash tests/peers/install.sh` (the README's test command does)",
        path.display()
    );
}

/// The official Python SDK 1.3.0 (protocol 1.0) peer.
pub fn py10_peer() -> Server {
    py10_peer_with(&[])
}

/// The Python 1.3.0 peer with extra arguments (`--with-v03`).
pub fn py10_peer_with(args: &[&str]) -> Server {
    python_peer("py10", "py10_agent.py", "Python a2a-sdk 1.3.0 peer", args)
}

/// The official Python SDK 0.3.x (protocol 0.3) peer.
pub fn py03_peer() -> Server {
    py03_peer_with(&[])
}

/// The Python 0.3 peer with extra arguments (`--no-extended-card`).
pub fn py03_peer_with(args: &[&str]) -> Server {
    python_peer("py03", "py03_agent.py", "Python a2a-sdk 0.3 peer", args)
}

fn python_peer(venv: &str, script: &str, what: &str, args: &[&str]) -> Server {
    let py = peers_dir().join(venv).join("bin/python");
    need(&py, what);
    let mut cmd = Command::new(py);
    cmd.arg(repo().join("tests/peers").join(script))
        .args(["--port", "0"])
        .args(args);
    spawn_server(cmd, what)
}

/// The official JS SDK 1.3.0 peer.
pub fn js_peer() -> Server {
    js_peer_with(&[])
}

/// The JS 1.3.0 peer with extra arguments (`--with-v03`, `--sdk-raw-card`).
pub fn js_peer_with(args: &[&str]) -> Server {
    let dir = peers_dir().join("js");
    need(
        &dir.join("node_modules/@a2a-js/sdk"),
        "JS @a2a-js/sdk 1.3.0 peer",
    );
    let mut cmd = Command::new("node");
    cmd.arg(repo().join("tests/peers/js_agent.mjs"))
        .args(["--port", "0"])
        .args(args)
        .env("NODE_PATH", dir.join("node_modules"));
    spawn_server(cmd, "JS @a2a-js/sdk 1.3.0 peer")
}

/// The task id printed by `send` in text mode ("task:    <id>").
pub fn task_id(out: &str) -> String {
    out.lines()
        .find_map(|l| l.strip_prefix("task:"))
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| panic!("no task id in output:\n{out}"))
}

/// Assert nothing a terminal would act on is in the output.
pub fn assert_terminal_safe(s: &str) {
    for c in s.chars() {
        let bad = (c.is_control() && c != '\n')
            || ('\u{80}'..='\u{9f}').contains(&c)
            || ('\u{202a}'..='\u{202e}').contains(&c);
        assert!(!bad, "output contains {:?}:\n{s}", c);
    }
}

/// Run tmux (the pseudo-terminal for the real binary's tests; the test script installs it).
pub fn tmux(args: &[&str]) -> String {
    let out = Command::new("tmux")
        .args(args)
        .output()
        .expect("tmux is installed (the test script installs it)");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Start `script` in a detached 120×36 tmux session; returns the pid of the process in its pane.
pub fn tmux_start(session: &str, script: &str) -> u32 {
    tmux(&[
        "new-session",
        "-d",
        "-s",
        session,
        "-x",
        "120",
        "-y",
        "36",
        script,
    ]);
    tmux(&["list-panes", "-t", session, "-F", "#{pane_pid}"])
        .trim()
        .parse()
        .expect("tmux reports the pane's pid")
}

/// Wait until the tmux pane shows what `cond` wants; panics with the pane after 90 s.
pub fn wait_pane(session: &str, what: &str, cond: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let pane = tmux(&["capture-pane", "-p", "-t", session]);
        if cond(&pane) {
            return pane;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what}; pane:\n{pane}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}
