//! How the console's event loop behaves under a flood of stream events and when idle, measured on the real
//! runtime with a `TestBackend` against the embedded demo agent on 127.0.0.1 (`flood N` sends N status
//! updates as fast as the client reads them).
//!
//! The console runs as it does for a user: with its store on a real SQLite file (a temp dir), so every frame
//! waits for the batch it shows to be committed.
//!
//! Run: `cargo bench --bench frames` (add `-- 50000` for another flood size). Prints events, frames,
//! frames per second and events per frame for the flood, then frames drawn during two idle seconds.
#![allow(clippy::expect_used, clippy::unwrap_used)] // a measurement binary: failing loudly is right

use std::time::{Duration, Instant};

use a2a_console::app::agent::AgentOrigin;
use a2a_console::app::state::App;
use a2a_console::config::keymap::Keymap;
use a2a_console::config::theme::Theme;
use a2a_console::remote::connect::agent::AgentTarget;
use a2a_console::testing::Headless;
use a2a_console::tui::runtime::Runtime;
use crossterm::event::KeyCode;

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(20_000);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async move {
        let demo = a2a_console::demo::spawn(0).await.expect("demo agent");
        let mut app = App::new(Keymap::defaults(), Theme::builtin("dark").expect("theme"));
        app.size = (120, 40);
        let mut target = AgentTarget::from_url(&demo.base_url(), Duration::from_secs(60));
        target.label = "demo".into();
        app.add_agent(target, AgentOrigin::Config);
        let (mut runtime, rx) = Runtime::new(None, "dark").expect("runtime");
        let dir = tempfile::tempdir().expect("temp dir");
        let store = a2a_console::store::Store::open(&dir.path().join("console.db")).expect("store");
        runtime.writer =
            Some(a2a_console::store::writer::StoreWriter::spawn(store).expect("writer"));
        let mut console = Headless::start(app, runtime, rx);
        console
            .wait("card 0.1.0", Duration::from_secs(30))
            .await
            .expect("card");
        console.key(KeyCode::Char('n'));
        console.type_text(&format!("flood {n}"));
        let start = Instant::now();
        console.key(KeyCode::Enter);
        console
            .wait("✓ completed", Duration::from_secs(600))
            .await
            .expect("flood finished");
        let flood_time = start.elapsed();
        // Idle: nothing live, so no frame should be drawn; count draws for two seconds.
        let idle_frames = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let counter = idle_frames.clone();
        let mut idle = console.screen.clone();
        idle.borrow_and_update();
        let _ = tokio::time::timeout(Duration::from_secs(2), async move {
            while idle.changed().await.is_ok() {
                counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        })
        .await;
        let idle_frames = idle_frames.load(std::sync::atomic::Ordering::Relaxed);
        let done = console
            .finish(Duration::from_secs(600))
            .await
            .expect("console");
        let (frames, messages) = (done.runtime.frames, done.runtime.messages);
        println!("flood of {n} status updates through the real runtime:");
        println!("  wall time            {:.2} s", flood_time.as_secs_f64());
        println!("  messages applied     {messages} (all, including start-up)");
        println!("  frames drawn         {frames} (all, including start-up)");
        println!(
            "  frames per second    {:.1}",
            frames as f64 / flood_time.as_secs_f64()
        );
        println!(
            "  messages per frame   {:.1}",
            messages as f64 / frames.max(1) as f64
        );
        println!("idle for 2 s after the flood: {idle_frames} frame(s) drawn");
        println!(
            "store: {} bytes on disk for {n} status updates",
            std::fs::metadata(dir.path().join("console.db"))
                .map(|m| m.len())
                .unwrap_or(0)
        );
        demo.shutdown().await;
    });
}
