//! What one very large artifact costs the console (issue 9, item 11): a 100 MiB (and a 300 MiB) text artifact
//! in 1 MiB chunks, streamed over JSON-RPC by a small server on 127.0.0.1 (the demo agent's card, rebased; the demo's own `big`
//! stops at 64 MiB in 256 KiB chunks), drunk by the real runtime on a `TestBackend` with the store on (a real
//! SQLite file in a temp dir). Each run is a child process (this binary re-run with `--child`), so its peak
//! RSS (`VmHWM`) is its own. Side by side, in one run:
//!
//! - `no limit`: `[store] max_artifact_mib = 0`, every byte kept, for 100 MiB and for 300 MiB: the text is
//!   spooled to disk (`app::spool`), so peak memory should not grow with the artifact;
//! - `default`: the default per-artifact limit (`DEFAULT_MAX_ARTIFACT_MIB`).
//!
//! Prints peak RSS, the store's size and the time to `✓ completed`. Target: under 250 MB for the 100 MiB
//! artifact, kept whole. (Before the spool, the flags scan and the stream queue by bytes, this bench measured
//! 657 MB with no limit and 334 MB with the default on the same machine.)
//! Run: `cargo bench --bench large_artifact` (release profile; a minute or two). Only 127.0.0.1 is contacted.
#![allow(clippy::expect_used, clippy::unwrap_used)] // a measurement binary: failing loudly is right

/// The allocator the `a2a-console` binary uses (`src/main.rs`), so that this measures the console as shipped.
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static ALLOC: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[path = "shared/demo_card.rs"]
#[allow(dead_code)] // shared with the flood bench, which also records streams
mod demo_card;

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use a2a_console::app::agent::AgentOrigin;
use a2a_console::app::state::App;
use a2a_console::config::keymap::Keymap;
use a2a_console::config::theme::Theme;
use a2a_console::remote::connect::agent::AgentTarget;
use a2a_console::testing::{Headless, sse_frame};
use a2a_console::tui::runtime::Runtime;
use axum::body::{Body, Bytes};
use axum::http::{Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use crossterm::event::KeyCode;

const CHUNKS: usize = 100;
/// The larger run's size, to show that memory does not follow the artifact's size.
const MORE_CHUNKS: usize = 300;
const CHUNK_BYTES: usize = 1024 * 1024;
const TARGET_MB: f64 = 250.0;
const CARD_PATH: &str = "/.well-known/agent-card.json";
const RPC_PATH: &str = "/big-rpc";

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    // `cargo bench` passes `--bench`; the parent passes `--child LIMIT_MIB URL DB` or `--restore DB URL`.
    if let Some(i) = args.iter().position(|a| a == "--restore") {
        let db = args.get(i + 1).expect("db").clone();
        let url = args.get(i + 2).expect("url").clone();
        rt.block_on(restore_child(Path::new(&db), &url));
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--child") {
        let limit: u64 = args.get(i + 1).expect("limit").parse().expect("MiB");
        let url = args.get(i + 2).expect("url").clone();
        let db = args.get(i + 3).expect("db").clone();
        rt.block_on(child(limit, &url, Path::new(&db)));
        return;
    }
    rt.block_on(parent());
}

/// 1 MiB of numbered 64-byte lines (the same text in every chunk: what matters here is its size).
fn chunk_text() -> String {
    (0..CHUNK_BYTES / 64)
        .map(|i| {
            format!(
                "{i:>08} {:<54}\n",
                "the quick brown fox jumps over the lazy dog"
            )
        })
        .collect()
}

/// The SSE body: the task, `chunks` chunks of 1 MiB, the task completed (the chunk frames are shared, so the
/// server holds three of them whatever the size).
fn frames(chunks: usize) -> Vec<Bytes> {
    let text = chunk_text();
    let chunk = |i: usize| {
        Bytes::from(sse_frame(serde_json::json!({"artifactUpdate": {
            "taskId": "t-big", "contextId": "c-big", "append": i > 0, "lastChunk": i + 1 == chunks,
            "artifact": {"artifactId": "big", "name": "big.txt",
                "parts": [{"text": text, "mediaType": "text/plain"}]}}})))
    };
    let (first, middle, last) = (chunk(0), chunk(1), chunk(chunks - 1));
    let mut out = vec![Bytes::from(sse_frame(serde_json::json!({"task": {
        "id": "t-big", "contextId": "c-big", "status": {"state": "TASK_STATE_WORKING"}}})))];
    for i in 0..chunks {
        out.push(match i {
            0 => first.clone(),
            i if i + 1 == chunks => last.clone(),
            _ => middle.clone(),
        });
    }
    out.push(Bytes::from(sse_frame(serde_json::json!({"statusUpdate": {
        "taskId": "t-big", "contextId": "c-big", "status": {"state": "TASK_STATE_COMPLETED"}}}))));
    out
}

async fn spawn_server(chunks: usize) -> String {
    let demo = a2a_console::demo::spawn(0).await.expect("demo agent");
    let demo_base = demo.base_url();
    let http = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client");
    let (mut card, rpc_url) = demo_card::demo_card(&http, &demo_base).await;
    demo.shutdown().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("listener");
    let base = format!("http://{}", listener.local_addr().expect("address"));
    // The JSON-RPC interface moves to our path; everything else of the card to our origin.
    demo_card::rebase(&mut card, &rpc_url, &format!("{base}{RPC_PATH}"));
    demo_card::rebase(&mut card, &demo_base, &base);
    let card = Arc::new(card.to_string());
    let frames = Arc::new(frames(chunks));
    let app = axum::Router::new().fallback(move |method: Method, uri: Uri| {
        let (card, frames) = (Arc::clone(&card), Arc::clone(&frames));
        async move {
            match (method, uri.path()) {
                (Method::GET, CARD_PATH) => Response::builder()
                    .header(header::CONTENT_TYPE, "application/json")
                    .body(Body::from((*card).clone()))
                    .expect("card"),
                (Method::POST, RPC_PATH) => {
                    let stream = futures::stream::iter(
                        (0..frames.len()).map(move |i| Ok::<_, std::io::Error>(frames[i].clone())),
                    );
                    Response::builder()
                        .header(header::CONTENT_TYPE, "text/event-stream")
                        .body(Body::from_stream(stream))
                        .expect("stream")
                }
                _ => StatusCode::NOT_FOUND.into_response(),
            }
        }
    });
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    base
}

/// A console on the store at `db` with the agent at `url`; `restore` brings the store's tabs back first.
fn console(url: &str, db: &Path, limit_mib: u64, restore: bool) -> Headless {
    let mut app = App::new(Keymap::defaults(), Theme::builtin("dark").expect("theme"));
    app.size = (120, 40);
    app.artifact_limit = a2a_console::config::StoreConfig {
        max_artifact_mib: Some(limit_mib),
        ..Default::default()
    }
    .artifact_limit();
    let mut target = AgentTarget::from_url(url, Duration::from_secs(120));
    target.label = "big".into();
    app.add_agent(target, AgentOrigin::Config);
    let (mut runtime, rx) = Runtime::new(None, "dark").expect("runtime");
    let store = a2a_console::store::Store::open(db).expect("store");
    if restore {
        a2a_console::tui::persist::restore_headers(&store, &mut app).expect("headers");
    }
    runtime.writer = Some(a2a_console::store::writer::StoreWriter::spawn(store).expect("writer"));
    Headless::start(app, runtime, rx)
}

/// Quit, then print what the parent reads: peak RSS, the seconds taken, the bytes of the artifact kept.
async fn report(h: Headless, start: Instant) {
    let secs = start.elapsed().as_secs_f64();
    let done = h.finish(Duration::from_secs(60)).await.expect("quit");
    let kept = done
        .app
        .tabs
        .first()
        .and_then(|t| t.artifacts.first())
        .map_or(0, |a| a.bytes);
    println!(
        "CHILD vmhwm_kb={} secs={secs:.2} kept={kept}",
        vm_hwm_kb().expect("VmHWM")
    );
}

/// One console in this process: send, wait for the task to complete, print peak RSS.
async fn child(limit_mib: u64, url: &str, db: &Path) {
    let mut h = console(url, db, limit_mib, false);
    h.wait("card 0.1.0", Duration::from_secs(30))
        .await
        .expect("card");
    h.key(KeyCode::Char('n'));
    h.wait("Message → big", Duration::from_secs(10))
        .await
        .expect("tab");
    h.type_text("big");
    let start = Instant::now();
    h.key(KeyCode::Enter);
    h.wait("✓ completed", Duration::from_secs(600))
        .await
        .expect("completed");
    report(h, start).await;
}

/// A new console on the store a child left: open the tab (its transcript is replayed from the store, the large
/// artifact spooled again), wait for the artifact's last line, print peak RSS.
async fn restore_child(db: &Path, url: &str) {
    let mut h = console(url, db, 0, true);
    let start = Instant::now();
    h.key(KeyCode::Char('1'));
    h.press(crossterm::event::KeyEvent::new(
        KeyCode::Char('1'),
        crossterm::event::KeyModifiers::ALT,
    ));
    let last = format!("{:>08} the quick", CHUNK_BYTES / 64 - 1);
    h.wait(&last, Duration::from_secs(600))
        .await
        .expect("restored");
    report(h, start).await;
}

fn vm_hwm_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

/// The store file and its WAL, if one is left.
fn store_size(db: &Path) -> u64 {
    let wal = db.with_extension("db-wal");
    [db, wal.as_path()]
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum()
}

async fn run_child(limit_mib: u64, url: &str, db: &Path) -> (f64, f64, u64) {
    child_run(
        &[
            "--child".into(),
            limit_mib.to_string(),
            url.into(),
            db.display().to_string(),
        ],
        db,
    )
    .await
}

async fn run_restore(db: &Path, url: &str) -> (f64, f64, u64) {
    child_run(
        &["--restore".into(), db.display().to_string(), url.into()],
        db,
    )
    .await
}

async fn child_run(args: &[String], db: &Path) -> (f64, f64, u64) {
    // The spool file goes to the data directory: the run's own temp directory.
    let data = db.parent().expect("temp dir");
    let out = tokio::process::Command::new(std::env::current_exe().expect("exe"))
        .env("XDG_DATA_HOME", data)
        .args(args)
        .output()
        .await
        .expect("child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "child failed: {}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .find(|l| l.starts_with("CHILD "))
        .expect("result line");
    let field = |k: &str| {
        line.split_whitespace()
            .find_map(|w| w.strip_prefix(k))
            .expect("field")
            .to_string()
    };
    (
        field("vmhwm_kb=").parse::<f64>().expect("kB") / 1024.0,
        field("secs=").parse().expect("secs"),
        field("kept=").parse().expect("kept"),
    )
}

async fn parent() {
    let url = spawn_server(CHUNKS).await;
    let more_url = spawn_server(MORE_CHUNKS).await;
    println!(
        "a {CHUNKS} MiB artifact (and one of {MORE_CHUNKS} MiB) in {} KiB chunks from {url}{RPC_PATH}, store on",
        CHUNK_BYTES / 1024
    );
    let dir = tempfile::tempdir().expect("temp dir");
    println!(
        "  {:<16} {:>14} {:>12} {:>12} {:>10}",
        "limit", "peak RSS (MB)", "store (MB)", "kept (MiB)", "secs"
    );
    let default = a2a_console::config::DEFAULT_MAX_ARTIFACT_MIB;
    let runs = [
        (format!("no limit, {CHUNKS}"), 0, &url, true),
        (format!("no limit, {MORE_CHUNKS}"), 0, &more_url, false),
        (format!("default {default}"), default, &url, true),
    ];
    let mut peaks = Vec::new();
    for (i, (label, mib, url, judged)) in runs.iter().enumerate() {
        let db = dir.path().join(format!("big-{i}.db"));
        let (rss, secs, kept) = run_child(*mib, url, &db).await;
        peaks.push(rss);
        println!(
            "  {label:<16} {rss:>14.0} {:>12.0} {:>12.1} {secs:>10.2}{}",
            store_size(&db) as f64 / 1_048_576.0,
            kept as f64 / 1_048_576.0,
            match (judged, rss < TARGET_MB) {
                (false, _) => "",
                (true, true) => "  ok (< 250 MB)",
                (true, false) => "  MISSED (>= 250 MB)",
            }
        );
    }
    // The first store again, in a new console: its transcript replayed from the store.
    let db = dir.path().join("big-0.db");
    let (rss, secs, kept) = run_restore(&db, &url).await;
    println!(
        "  {:<16} {rss:>14.0} {:>12.0} {:>12.1} {secs:>10.2}{}",
        format!("restore, {CHUNKS}"),
        store_size(&db) as f64 / 1_048_576.0,
        kept as f64 / 1_048_576.0,
        if rss < TARGET_MB {
            "  ok (< 250 MB)"
        } else {
            "  MISSED (>= 250 MB)"
        }
    );
    if let [small, large, ..] = peaks.as_slice() {
        println!(
            "  peak for {MORE_CHUNKS} MiB / peak for {CHUNKS} MiB: {:.2} (1.00 = memory does not follow the size)",
            large / small
        );
    }
}
