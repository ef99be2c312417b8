//! The sign-in dialogs rendered into ratatui's `TestBackend`: the approval dialog offering the browser
//! sign-in the card declares, and the code-flow dialog before and after its listener is up.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use a2a::TaskState;
use a2a_console::app::state::{App, CodeFlowView, Overlay, SignInFor, View};
use a2a_console::testing::{render_text, sign_in_app, status};

fn snap(name: &str, app: &App) -> String {
    let text = render_text(app);
    insta::with_settings!({filters => vec![(r"\d{2}:\d{2}:\d{2}", "[time]")]}, {
        insta::assert_snapshot!(name, text);
    });
    text
}

fn waiting() -> (App, a2a_console::app::ids::TabId) {
    let mut app = sign_in_app();
    let id = app.new_tab(app.agents[0].id);
    let t = app.tab_mut(id).unwrap();
    t.record_user("hello", vec![], "");
    t.feed(&status(
        "t9",
        "ctx",
        TaskState::AuthRequired,
        Some("sign in, please"),
    ));
    app.view = View::Tab(id);
    (app, id)
}

#[test]
fn approval_dialog_offers_the_browser_sign_in() {
    let (mut app, tab) = waiting();
    app.overlay = Some(Overlay::Approval { tab, scroll: 0 });
    let text = snap("sign_in_approval", &app);
    assert!(text.contains("Ctrl-O sign in in a browser"), "{text}");
}

#[test]
fn code_flow_dialog_before_and_after_the_listener_is_up() {
    let (mut app, tab) = waiting();
    app.overlay = Some(Overlay::CodeFlow {
        owner: SignInFor::Approval(tab),
    });
    app.code_flow = Some(CodeFlowView {
        owner: SignInFor::Approval(tab),
        flow: "openid_connect",
        url: None,
        port: None,
        since: app.now,
    });
    let text = snap("sign_in_code_flow_starting", &app);
    assert!(text.contains("Asking the provider"), "{text}");
    app.code_flow = Some(CodeFlowView {
        owner: SignInFor::Approval(tab),
        flow: "openid_connect",
        url: Some(
            "http://127.0.0.1:7/auth?response_type=code&client_id=a2a-console&state=abc&code_challenge_method=S256"
                .into(),
        ),
        port: Some(40123),
        since: app.now,
    });
    let text = snap("sign_in_code_flow_waiting", &app);
    for needle in [
        "OpenID Connect, authorization code with PKCE",
        "Waiting for the browser on 127.0.0.1:40123",
        "not on the agent's origin (http://127.0.0.1:9)",
        "y copies the address",
        "p pastes the address",
        "Esc stops",
    ] {
        assert!(text.contains(needle), "{needle:?} missing:\n{text}");
    }
}

#[test]
fn code_flow_dialog_started_from_the_agent_list() {
    let mut app = sign_in_app();
    let owner = SignInFor::Agent(app.agents[0].id);
    app.overlay = Some(Overlay::CodeFlow { owner });
    app.code_flow = Some(CodeFlowView {
        owner,
        flow: "openid_connect",
        url: Some("http://127.0.0.1:9/auth?response_type=code&state=abc".into()),
        port: Some(40123),
        since: app.now,
    });
    let text = snap("sign_in_code_flow_from_agent_list", &app);
    for needle in [
        "Signing in to guarded (OpenID Connect",
        "its later calls carry",
        "y copies the address",
        "Esc stops",
    ] {
        assert!(text.contains(needle), "{needle:?} missing:\n{text}");
    }
    assert!(
        !text.contains("task keeps waiting"),
        "no task is waiting:\n{text}"
    );
}
