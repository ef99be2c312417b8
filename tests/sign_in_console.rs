//! Signing in from inside the running console, against the real OpenID provider: an agent whose
//! `[agents.auth]` is OpenID Connect is card only until someone signs in; `o` on the agent list opens
//! the sign-in, the browser (plain HTTP requests here) logs in and consents, the console's redirect
//! listener takes the code, and the agent is connected again with the token — a message to it reaches
//! the token-checking agent, which verifies whose token it carries. One test in this binary: it points
//! the token store and audit log (process-wide) at a temporary directory first.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use a2a_console::app::agent::AgentOrigin;
use a2a_console::app::state::App;
use a2a_console::config::keymap::Keymap;
use a2a_console::config::theme::Theme;
use a2a_console::config::{AuthConfig, AuthKind};
use a2a_console::remote::connect::agent::AgentTarget;
use a2a_console::testing::Headless;
use a2a_console::tui::runtime::Runtime;
use common::oidc::{browser, person, provider};
use crossterm::event::KeyCode;
use url::Url;

/// The sign-in address as the dialog shows it: the `▍`-prefixed rows after "▍ open", joined (the
/// dialog wraps it at its width).
fn address_on(screen: &str) -> String {
    let rows: Vec<&str> = screen.lines().collect();
    let open = rows.iter().position(|r| r.contains("▍ open   ")).unwrap();
    // The address starts after its label and wraps under itself, the bar on every row.
    let first = rows[open].split("▍ open   ").nth(1).unwrap();
    let mut url = first.split('│').next().unwrap().trim_end().to_string();
    for row in &rows[open + 1..] {
        let Some(start) = row.find("│▍        ") else {
            break;
        };
        let rest = &row[start + "│▍".len()..];
        url.push_str(rest.split('│').next().unwrap().trim());
    }
    url
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn o_on_the_agent_list_signs_in_and_the_agent_becomes_callable_with_the_token() {
    let dir = tempfile::tempdir().unwrap();
    a2a_console::remote::auth::token_store::use_dir_for_tests(dir.path());
    let p = provider(&[]);
    let mut target = AgentTarget::from_url(&p.resource, Duration::from_secs(10));
    target.label = "guarded".into();
    target.auth = Some(AuthConfig::new(AuthKind::OpenidConnect));
    let mut app = App::new(Keymap::defaults(), Theme::builtin("dark").unwrap());
    app.size = (140, 45);
    app.add_agent(target, AgentOrigin::Config);
    let (mut rt, rx) = Runtime::new(None, "dark").unwrap();
    // The console's store, where its writer puts the sign-in's audit row (remote/ writes none itself).
    let store = a2a_console::store::Store::open(&dir.path().join("console.db")).unwrap();
    rt.writer = Some(a2a_console::store::writer::StoreWriter::spawn(store).unwrap());
    let mut h = Headless::start(app, rt, rx);

    // Card only, and the reason names the key rather than the CLI.
    let screen = h
        .wait("press o", Duration::from_secs(45))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(screen.contains("not signed in"), "{screen}");

    h.key(KeyCode::Char('o'));
    let screen = h
        .wait(
            "Waiting for the browser on 127.0.0.1:",
            Duration::from_secs(30),
        )
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(screen.contains("Signing in to guarded"), "{screen}");
    let url = address_on(&screen);
    assert!(
        url.contains("code_challenge_method=S256") && url.contains("redirect_uri="),
        "{url}"
    );
    // The browser: log in, consent, and follow the provider's redirect to the console's listener.
    let redirect = person(&p.issuer, &Url::parse(&url).unwrap(), "alice", true).await;
    assert!(redirect.starts_with("http://127.0.0.1:"), "{redirect}");
    let landed = browser().get(&redirect).send().await.unwrap();
    assert!(landed.status().is_success(), "{}", landed.status());

    // Connected again with the token: no longer card only.
    let screen = h
        .wait_until("the agent is callable", Duration::from_secs(45), |s| {
            s.contains("JSONRPC") && !s.contains("not signed in")
        })
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(screen.contains("OpenID Connect →"), "{screen}");

    // A message reaches the agent with the token on it: the agent says whose token it verified.
    h.key(KeyCode::Char('n'));
    h.type_text("hello");
    h.key(KeyCode::Enter);
    h.wait("verified the token of alice", Duration::from_secs(45))
        .await
        .unwrap_or_else(|e| panic!("{e}"));

    let done = h.finish(Duration::from_secs(10)).await.unwrap();
    done.result.unwrap();
    // The sign-in is in the audit log, without the token.
    let store = a2a_console::store::Store::open(&dir.path().join("console.db")).unwrap();
    let entries = store.audit_entries(50).unwrap();
    assert!(
        entries.iter().any(|e| e.method == "sign-in"),
        "{}",
        serde_json::to_string(&entries).unwrap()
    );
}
