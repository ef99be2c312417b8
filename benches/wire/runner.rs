//! Running one client as a separate process and measuring it. Each client runs under a small wrapper (this
//! binary with `--rusage`) that starts it, waits for it and then asks the kernel for its children's peak RSS
//! (`getrusage(RUSAGE_CHILDREN)`: the wrapper has no other child, so that is the client's own `ru_maxrss`).
//! The wrapper also times the client from spawn to exit, so its own start-up is not in the number.
//!
//! What a client prints is either thrown away (`/dev/null`, as a user piping the CLI would), kept (a small
//! `WIRE …` result line) or counted line by line without being kept (the console's `--json` output).

use std::collections::HashMap;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What becomes of a client's stdout.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Stdout {
    Null,
    /// Kept whole (a few lines at most), for the `WIRE key=value …` line.
    Capture,
    /// Lines counted as they stream past; only the last line is kept.
    CountLines,
}

/// One process to run.
pub struct Launch {
    pub program: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub unset: Vec<String>,
    pub stdout: Stdout,
    /// Killed after this long (the sample then fails).
    pub limit: Duration,
}

/// What one run of a client showed.
pub struct Sample {
    /// Spawn to exit, as the wrapper saw it.
    pub secs: f64,
    pub rss_kb: u64,
    /// The client's exit code; -1 when a signal ended it, -2 when it was killed for taking too long.
    pub code: i32,
    /// The `key=value` pairs of the client's `WIRE` line ([`Stdout::Capture`]).
    pub fields: HashMap<String, String>,
    /// Lines on stdout and the last one ([`Stdout::CountLines`]).
    pub lines: u64,
    pub last_line: String,
    /// The client's stderr (the start of it).
    pub stderr: String,
}

/// Proxy variables a child must not see: every address here is loopback, and nothing may go elsewhere.
const PROXY_VARS: &[&str] = &[
    "HTTP_PROXY",
    "http_proxy",
    "HTTPS_PROXY",
    "https_proxy",
    "ALL_PROXY",
    "all_proxy",
];
const RESULT: &str = "WIRE-RUSAGE ";
/// How much of a client's stderr is kept.
const STDERR_KEEP: usize = 4096;

/// Run `l` under the wrapper and collect what it showed.
pub fn run(l: &Launch) -> Sample {
    let exe = std::env::current_exe().expect("current exe");
    let mut cmd = Command::new(exe);
    cmd.arg("--rusage")
        .arg(l.limit.as_secs().to_string())
        .arg("--")
        .arg(&l.program)
        .args(&l.args)
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .stdout(match l.stdout {
            Stdout::Null => Stdio::null(),
            Stdout::Capture | Stdout::CountLines => Stdio::piped(),
        });
    for v in PROXY_VARS
        .iter()
        .copied()
        .chain(l.unset.iter().map(String::as_str))
    {
        cmd.env_remove(v);
    }
    cmd.env("NO_PROXY", "127.0.0.1,localhost")
        .env("no_proxy", "127.0.0.1,localhost");
    for (k, v) in &l.env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn the wrapper");
    let mut err = child.stderr.take().expect("stderr pipe");
    let stderr = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    let stdout = child.stdout.take().map(|mut out| {
        let mode = l.stdout;
        std::thread::spawn(move || read_stdout(&mut out, mode))
    });
    let _ = child.wait();
    let (captured, lines, last_line) = stdout
        .map(|t| t.join().expect("stdout reader"))
        .unwrap_or_default();
    let stderr = stderr.join().expect("stderr reader");
    let (ours, theirs): (Vec<&str>, Vec<&str>) =
        stderr.lines().partition(|l| l.starts_with(RESULT));
    let result = ours
        .last()
        .map(|l| fields(&l[RESULT.len()..]))
        .unwrap_or_default();
    let num = |k: &str| result.get(k).and_then(|v| v.parse::<f64>().ok());
    let mut kept: String = theirs.join("\n");
    if kept.len() > STDERR_KEEP {
        let cut = (0..=STDERR_KEEP)
            .rev()
            .find(|i| kept.is_char_boundary(*i))
            .unwrap_or(0);
        kept.truncate(cut);
    }
    Sample {
        secs: num("secs").unwrap_or(f64::NAN),
        rss_kb: num("maxrss_kb").unwrap_or(0.0) as u64,
        code: num("code").map_or(-3, |c| c as i32),
        fields: captured
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix("WIRE "))
            .map(fields)
            .unwrap_or_default(),
        lines,
        last_line,
        stderr: kept,
    }
}

/// Stdout as the mode wants it: (captured text, line count, last line).
fn read_stdout(out: &mut impl Read, mode: Stdout) -> (String, u64, String) {
    let mut buf = vec![0u8; 256 * 1024];
    let mut captured = Vec::new();
    let mut lines = 0u64;
    // The current (unfinished) line's last bytes, and the last finished line.
    let mut current: Vec<u8> = Vec::new();
    let mut last: Vec<u8> = Vec::new();
    const LINE_KEEP: usize = 64 * 1024;
    loop {
        let n = match out.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let chunk = &buf[..n];
        if mode == Stdout::Capture {
            captured.extend_from_slice(chunk);
            continue;
        }
        let mut from = 0;
        for nl in memchr::memchr_iter(b'\n', chunk) {
            lines += 1;
            keep_head(&mut current, &chunk[from..nl], LINE_KEEP);
            last = std::mem::take(&mut current);
            from = nl + 1;
        }
        keep_head(&mut current, &chunk[from..], LINE_KEEP);
    }
    (
        String::from_utf8_lossy(&captured).into_owned(),
        lines,
        String::from_utf8_lossy(&last).into_owned(),
    )
}

/// Append `more` to `line`, keeping only its first `keep` bytes (enough to recognise the event).
fn keep_head(line: &mut Vec<u8>, more: &[u8], keep: usize) {
    let room = keep.saturating_sub(line.len());
    line.extend_from_slice(&more[..more.len().min(room)]);
}

/// `a=1 b=x` → {a: 1, b: x}.
fn fields(line: &str) -> HashMap<String, String> {
    line.split_whitespace()
        .filter_map(|w| w.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The wrapper (`--rusage LIMIT -- PROGRAM ARGS…`): run the client with this process's stdio, then print its
/// wall time, peak RSS and exit code on stderr.
pub fn wrap(args: &[String]) -> i32 {
    let limit = args
        .first()
        .and_then(|s| s.parse().ok())
        .map_or(Duration::from_secs(120), Duration::from_secs);
    let Some(sep) = args.iter().position(|a| a == "--") else {
        eprintln!("wrapper: no -- PROGRAM");
        return 2;
    };
    let Some(program) = args.get(sep + 1) else {
        eprintln!("wrapper: no PROGRAM");
        return 2;
    };
    let start = Instant::now();
    let mut child = match Command::new(program).args(&args[sep + 2..]).spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("wrapper: cannot start {program}: {e}");
            eprintln!("{RESULT}secs=0 maxrss_kb=0 code=127");
            return 0;
        }
    };
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let (status, timed_out) = match rx.recv_timeout(limit) {
        Ok(s) => (s, false),
        Err(_) => {
            // Our own child, by its id: it took too long.
            let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGKILL);
            (rx.recv().expect("wait result"), true)
        }
    };
    let secs = start.elapsed().as_secs_f64();
    let rss_kb = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .map(|u| u.max_rss())
        .unwrap_or(0);
    let code = match (&status, timed_out) {
        (_, true) => -2,
        (Ok(s), _) => s.code().unwrap_or(-1),
        (Err(_), _) => -1,
    };
    eprintln!("{RESULT}secs={secs:.6} maxrss_kb={rss_kb} code={code}");
    0
}
