//! Issue 9, item 4: a card does not choose where the console connects. An interface on a link-local address
//! (any spelling) is refused before any connection; one on another origin than the card's is used only after
//! the user says yes (`--allow-origin` on the CLI, a dialog showing both origins in the console), even for an
//! agent with no credential. The card is served on 127.0.0.1, the agent it names on 127.0.0.2 (another
//! origin, still loopback): the embedded demo agent, so an allowed call really completes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use a2a_console::demo::DemoAgent;
use common::hostile_http::json_on;
use tokio::net::TcpListener;

/// A v1.0 card naming one JSON-RPC interface at `rpc`.
fn card(rpc: &str) -> String {
    serde_json::json!({
        "name": "card elsewhere", "description": "its interface is served elsewhere", "version": "1",
        "supportedInterfaces": [{"url": rpc, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true}, "skills": [],
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"]
    })
    .to_string()
}

/// The demo agent on 127.0.0.2, behind a listener that counts the connections it accepts.
struct Counted {
    agent: DemoAgent,
    rpc: String,
    origin: String,
    accepted: Arc<AtomicUsize>,
}

async fn demo_on_127_0_0_2() -> Counted {
    let front = TcpListener::bind("127.0.0.2:0").await.unwrap();
    let addr: SocketAddr = front.local_addr().unwrap();
    // The demo serves on a private listener; the front forwards byte for byte and counts.
    let inner = TcpListener::bind("127.0.0.2:0").await.unwrap();
    let inner_addr = inner.local_addr().unwrap();
    let base = format!("http://{addr}");
    let agent = a2a_console::demo::spawn_on(inner, addr, base.clone())
        .await
        .unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = accepted.clone();
    tokio::spawn(async move {
        while let Ok((mut a, _)) = front.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                if let Ok(mut b) = tokio::net::TcpStream::connect(inner_addr).await {
                    let _ = tokio::io::copy_bidirectional(&mut a, &mut b).await;
                }
            });
        }
    });
    Counted {
        agent,
        rpc: format!("{base}/jsonrpc"),
        origin: base,
        accepted,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_refuses_an_interface_on_another_origin_until_allowed() {
    let demo = demo_on_127_0_0_2().await;
    let cardsrv = json_on("127.0.0.1", card(&demo.rpc)).await;

    let r = common::cli(&["send", &cardsrv.base, "echo hello"]);
    assert_eq!(r.code, 2, "refused as a usage matter: {}", r.all());
    assert!(
        r.stderr.contains(&demo.origin) && r.stderr.contains(&cardsrv.base),
        "both origins named:\n{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains(&format!("--allow-origin {}", demo.origin)),
        "{}",
        r.stderr
    );
    assert_eq!(
        demo.accepted.load(Ordering::SeqCst),
        0,
        "nothing may reach the other origin before the user says yes"
    );

    let r = common::cli(&[
        "send",
        &cardsrv.base,
        "echo hello",
        "--allow-origin",
        &demo.origin,
    ]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("echo: hello"), "{}", r.stdout);
    assert!(demo.accepted.load(Ordering::SeqCst) > 0);
    demo.agent.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn link_local_interfaces_are_refused_before_any_connection() {
    for url in [
        "http://169.254.169.254/latest/meta-data/",
        "http://2852039166/rpc",
        "http://0xa9fea9fe/rpc",
        "http://0251.0376.0251.0376/rpc",
        "http://[::ffff:169.254.169.254]/rpc",
        "http://[fe80::1]:8080/rpc",
    ] {
        let cardsrv = json_on("127.0.0.1", card(url)).await;
        // Allowing the origin changes nothing: link-local is never called. A connection attempt there would
        // wait for the 30 s timeout (nothing answers in a sandbox), so a quick refusal is one made first.
        let started = Instant::now();
        let r = common::cli(&[
            "send",
            &cardsrv.base,
            "hi",
            "--timeout",
            "30",
            "--allow-origin",
            "http://169.254.169.254",
        ]);
        let took = started.elapsed();
        assert_eq!(r.code, 2, "{url}: {}", r.all());
        assert!(r.stderr.contains("link-local"), "{url}: {}", r.stderr);
        assert!(
            !r.stderr.contains("could not reach") && took < Duration::from_secs(10),
            "{url}: refused before connecting ({took:?}): {}",
            r.stderr
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_asks_before_calling_another_origin() {
    use a2a_console::app::agent::AgentOrigin;
    use a2a_console::app::state::App;
    use a2a_console::config::keymap::Keymap;
    use a2a_console::config::theme::Theme;
    use a2a_console::remote::connect::agent::AgentTarget;
    use a2a_console::testing::Headless;
    use a2a_console::tui::runtime::Runtime;
    use crossterm::event::KeyCode;

    let demo = demo_on_127_0_0_2().await;
    let cardsrv = json_on("127.0.0.1", card(&demo.rpc)).await;
    let target = AgentTarget::from_url(&cardsrv.base, Duration::from_secs(10));
    let mut app = App::new(Keymap::defaults(), Theme::builtin("dark").unwrap());
    app.size = (160, 44);
    app.add_agent(target, AgentOrigin::Config);
    let (rt, rx) = Runtime::new(None, "dark").unwrap();
    let mut h = Headless::start(app, rt, rx);
    h.wait("another origin", Duration::from_secs(30))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(demo.accepted.load(Ordering::SeqCst), 0);

    // Asked, with both origins; a "no" keeps it card only.
    h.key(KeyCode::Char('O'));
    let screen = h
        .wait("Another origin", Duration::from_secs(10))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        screen.contains(&demo.origin) && screen.contains(&cardsrv.base),
        "{screen}"
    );
    h.key(KeyCode::Char('n'));
    h.wait("not allowed", Duration::from_secs(10))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(demo.accepted.load(Ordering::SeqCst), 0);

    // Yes: the agent is connected there (its card names its skills once the demo's interface is in use).
    h.key(KeyCode::Char('O'));
    h.wait("Another origin", Duration::from_secs(10))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    h.key(KeyCode::Char('y'));
    h.wait("allowed for this session", Duration::from_secs(10))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let screen = h
        .wait_until("no longer card only", Duration::from_secs(30), |s| {
            !s.contains("interface on another origin")
        })
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!screen.contains("card only"), "{screen}");
    let done = h.finish(Duration::from_secs(10)).await.unwrap();
    done.result.unwrap();
    demo.agent.shutdown().await;
}
