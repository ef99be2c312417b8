//! The long-running fuzzer, on stable Rust: runs one target of `a2a_console::testing::fuzz::TARGETS` for a
//! given time on structure-aware inputs (the same proptest strategies as `tests/fuzz_props.rs`: generated
//! from scratch and mutated from the seed corpus in `tests/fuzz_corpus/`), catches every panic, and writes each
//! distinct failure, as found and shrunk, to `target/fuzz-failures/<target>/`.
//!
//! ```text
//! cargo run --release --features testing --example fuzz -- <target> [--minutes N | --seconds N] [--seed N]
//! cargo run --release --features testing --example fuzz -- <target> --replay FILE...
//! cargo run --release --features testing --example fuzz -- --list
//! ```
//!
//! Coverage-less (no instrumentation on stable): the structure comes from the generators instead. An abort
//! (stack overflow, out of memory) ends the run itself; the other failures are counted and the run goes on.
#![allow(clippy::unwrap_used, clippy::expect_used)] // a developer tool: failing loudly is right

#[path = "../tests/fuzzing/mod.rs"]
mod fuzzing;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use a2a_console::testing::fuzz::{TARGETS, Target, target};
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// One input taking longer than this is a failure too: every decoder here promises linear time.
const SLOW: Duration = Duration::from_secs(2);
/// How long shrinking one new failure may take.
const SHRINK_BUDGET: Duration = Duration::from_secs(20);
const REPORT_EVERY: Duration = Duration::from_secs(10);

thread_local! {
    /// What the panic hook saw for the current input: message and location.
    static PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

struct Args {
    target: &'static Target,
    duration: Duration,
    seed: u64,
    replay: Vec<PathBuf>,
}

fn usage() -> ! {
    eprintln!(
        "usage: fuzz <target> [--minutes N | --seconds N] [--seed N] [--replay FILE...]\n       fuzz --list"
    );
    std::process::exit(2)
}

fn parse_args() -> Args {
    let mut it = std::env::args().skip(1);
    let first = it.next().unwrap_or_else(|| usage());
    if first == "--list" {
        for t in TARGETS {
            println!("{:<10} ({:?} inputs) {}", t.name, t.input, t.checks);
        }
        std::process::exit(0);
    }
    let target = target(&first).unwrap_or_else(|| {
        eprintln!(
            "unknown target {first:?}; one of: {}",
            TARGETS
                .iter()
                .map(|t| t.name)
                .collect::<Vec<_>>()
                .join(", ")
        );
        std::process::exit(2)
    });
    let mut args = Args {
        target,
        duration: Duration::from_secs(60),
        seed: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(1),
        replay: Vec::new(),
    };
    let num =
        |v: Option<String>| -> u64 { v.and_then(|s| s.parse().ok()).unwrap_or_else(|| usage()) };
    while let Some(a) = it.next() {
        match a.as_str() {
            "--minutes" => args.duration = Duration::from_secs(num(it.next()) * 60),
            "--seconds" => args.duration = Duration::from_secs(num(it.next())),
            "--seed" => args.seed = num(it.next()),
            "--replay" => args.replay.extend(it.by_ref().map(PathBuf::from)),
            _ => usage(),
        }
    }
    args
}

/// Runs the target once: `Err` with what broke (an invariant, a panic with its location, or slowness).
fn run(t: &Target, input: &[u8]) -> Result<(), String> {
    PANIC.with(|p| p.borrow_mut().take());
    let started = Instant::now();
    let result = std::panic::catch_unwind(|| (t.run)(input));
    let took = started.elapsed();
    match result {
        Ok(Ok(())) if took > SLOW => Err(format!(
            "slow: one input of {} bytes took {took:?}",
            input.len()
        )),
        Ok(r) => r,
        Err(_) => Err(PANIC
            .with(|p| p.borrow_mut().take())
            .unwrap_or_else(|| "panic: (no message)".into())),
    }
}

/// Failures with the same signature are one bug: a panic by its location, an invariant by its wording
/// without the quoted input.
fn signature(msg: &str) -> String {
    if let Some(rest) = msg.strip_prefix("panic at ") {
        return format!("panic at {}", rest.split_whitespace().next().unwrap_or(""));
    }
    if msg.starts_with("slow:") {
        return "slow".into();
    }
    msg.split(['"', '{', '(', '\'', '['])
        .next()
        .unwrap_or(msg)
        .chars()
        .filter(|c| !c.is_ascii_digit())
        .take(100)
        .collect::<String>()
        .trim()
        .to_owned()
}

fn failures_dir(t: &Target) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/fuzz-failures")
        .join(t.name)
}

fn file_stem(sig: &str) -> String {
    let h = sig.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    format!("{h:016x}")
}

/// Shrinks a failing input with proptest's own simplification, keeping only steps that fail the same way.
fn shrink(t: &Target, tree: &mut impl ValueTree<Value = Vec<u8>>, sig: &str) -> (Vec<u8>, String) {
    let started = Instant::now();
    let mut best = tree.current();
    let mut best_msg = run(t, &best).err().unwrap_or_default();
    while started.elapsed() < SHRINK_BUDGET && tree.simplify() {
        loop {
            let candidate = tree.current();
            match run(t, &candidate) {
                Err(m) if signature(&m) == sig => {
                    if candidate.len() <= best.len() {
                        best = candidate;
                        best_msg = m;
                    }
                    break;
                }
                _ => {
                    if !tree.complicate() {
                        break;
                    }
                }
            }
        }
    }
    (best, best_msg)
}

fn record(t: &Target, sig: &str, found: &[u8], shrunk: &[u8], msg: &str, seed: u64) {
    let dir = failures_dir(t);
    let _ = std::fs::create_dir_all(&dir);
    let stem = file_stem(sig);
    let _ = std::fs::write(dir.join(format!("{stem}.bin")), shrunk);
    let _ = std::fs::write(dir.join(format!("{stem}.found.bin")), found);
    let _ = std::fs::write(
        dir.join(format!("{stem}.txt")),
        format!(
            "target: {}\nseed: {seed}\nsignature: {sig}\nfailure: {msg}\ninput (shrunk, lossy): {:?}\nreplay: \
             cargo run --release --features testing --example fuzz -- {} --replay {}\n",
            t.name,
            String::from_utf8_lossy(shrunk),
            t.name,
            dir.join(format!("{stem}.bin")).display()
        ),
    );
}

fn replay(t: &Target, files: &[PathBuf]) -> ! {
    let mut failed = 0;
    for f in files {
        let bytes = std::fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        match run(t, &bytes) {
            Ok(()) => println!("{}: ok", f.display()),
            Err(e) => {
                failed += 1;
                println!("{}: FAILED: {e}", f.display());
            }
        }
    }
    std::process::exit(i32::from(failed > 0))
}

fn main() {
    let args = parse_args();
    let t = args.target;
    std::panic::set_hook(Box::new(|info| {
        let msg = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("(no message)");
        let mut at = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        // A panic inside a dependency (serde_json's `Index`) is told apart by our function that called it.
        let trace = std::backtrace::Backtrace::force_capture().to_string();
        if let Some(ours) = trace
            .lines()
            .map(str::trim)
            .find(|l| l.contains("a2a_console::") && !l.contains("testing::fuzz"))
        {
            at = format!("{at}@{}", ours.split_once(": ").map_or(ours, |(_, f)| f));
        }
        PANIC.with(|p| *p.borrow_mut() = Some(format!("panic at {at} {msg}")));
    }));
    if !args.replay.is_empty() {
        replay(t, &args.replay);
    }

    let mut seed = [0u8; 32];
    seed[..8].copy_from_slice(&args.seed.to_le_bytes());
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed),
    );
    let strategy = fuzzing::input(t.input);
    println!(
        "fuzz {}: {:?} inputs, {} seed files, for {:?}, seed {} (failures go to {})",
        t.name,
        t.input,
        fuzzing::seeds(t.input).len(),
        args.duration,
        args.seed,
        failures_dir(t).display()
    );

    let started = Instant::now();
    let mut last_report = started;
    let mut execs: u64 = 0;
    let mut bytes: u64 = 0;
    let mut total_failures: u64 = 0;
    let mut distinct: BTreeMap<String, u64> = BTreeMap::new();
    while started.elapsed() < args.duration {
        let Ok(mut tree) = strategy.new_tree(&mut runner) else {
            continue;
        };
        let input = tree.current();
        execs += 1;
        bytes += input.len() as u64;
        if let Err(msg) = run(t, &input) {
            total_failures += 1;
            let sig = signature(&msg);
            let seen = distinct.entry(sig.clone()).or_insert(0);
            *seen += 1;
            if *seen == 1 {
                let (shrunk, shrunk_msg) = shrink(t, &mut tree, &sig);
                record(t, &sig, &input, &shrunk, &shrunk_msg, args.seed);
                println!(
                    "NEW FAILURE #{} after {execs} execs: {}\n  shrunk to {} bytes: {:?}",
                    distinct.len(),
                    shrunk_msg.chars().take(300).collect::<String>(),
                    shrunk.len(),
                    String::from_utf8_lossy(&shrunk)
                        .chars()
                        .take(300)
                        .collect::<String>()
                );
            }
        }
        if last_report.elapsed() >= REPORT_EVERY {
            last_report = Instant::now();
            let secs = started.elapsed().as_secs_f64();
            println!(
                "[{}] {:>5.0}s  {execs} execs  {:.0} execs/s  avg {} B/input  {} distinct failures ({total_failures} total)",
                t.name,
                secs,
                execs as f64 / secs,
                bytes / execs.max(1),
                distinct.len()
            );
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "done {}: {execs} execs in {secs:.0}s ({:.0} execs/s), {} distinct failures ({total_failures} total)",
        t.name,
        execs as f64 / secs,
        distinct.len()
    );
    for (sig, n) in &distinct {
        println!(
            "  {n:>6}×  {sig}  → {}/{}.txt",
            failures_dir(t).display(),
            file_stem(sig)
        );
    }
    std::process::exit(i32::from(!distinct.is_empty()));
}
