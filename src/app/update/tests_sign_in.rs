//! The approval dialog's sign-in with the authorization code flow / OpenID Connect: which flow `o`
//! starts, what the dialog shows as the sign-in progresses, pasting the redirected address, Esc, and
//! approving with the token once the flow is done.

use super::*;
use crate::app::ids::TabId;
use crate::app::msg::ApprovalCredential;
use crate::app::msg::StreamItem;
use crate::app::state::{PromptKind, SignInFor};
use crate::remote::auth::Secret;
use crate::testing::keys::{guarded_ctrl as ctrl, guarded_key as key, guarded_keys as keys};
use crate::testing::sign_in_app;
use a2a::*;
use crossterm::event::KeyCode;

/// A tab whose task `t9` asks for authorization, with the dialog on screen.
pub(super) fn waiting_for_auth(app: &mut App) -> TabId {
    key(app, KeyCode::Char('n'));
    keys(app, "hello");
    key(app, KeyCode::Enter);
    let id = app.active_tab().unwrap().id;
    update(
        app,
        Msg::Stream {
            tab: id,
            generation: 1,
            source: crate::task::log::Source::Stream(0),
            item: StreamItem::Event(Box::new(StreamResponse::StatusUpdate(
                TaskStatusUpdateEvent {
                    task_id: "t9".into(),
                    context_id: "ctx".into(),
                    status: TaskStatus {
                        state: TaskState::AuthRequired,
                        message: None,
                        timestamp: None,
                    },
                    metadata: None,
                },
            ))),
        },
    );
    // The user was typing: the dialog waits until they leave the compose box.
    assert!(app.overlay.is_none(), "never opened over the compose box");
    key(app, KeyCode::Esc);
    id
}

#[test]
fn o_starts_the_openid_connect_code_flow_the_card_declares_for_the_configured_agent() {
    let mut app = sign_in_app();
    let tab = waiting_for_auth(&mut app);
    let fx = ctrl(&mut app, 'o');
    assert!(
        matches!(app.overlay, Some(Overlay::CodeFlow { owner }) if owner == SignInFor::Approval(tab))
    );
    assert!(
        matches!(fx.first(), Some(Effect::Audit { line, .. }) if line.contains("decision=sign-in") && line.contains("openid_connect") && line.contains("agent:use")),
        "{fx:?}"
    );
    let Some(Effect::CodeFlow {
        plan, auth, label, ..
    }) = fx.get(1)
    else {
        panic!("{fx:?}");
    };
    assert_eq!(plan.flow, "openid_connect");
    assert_eq!(plan.scheme, "people");
    assert_eq!(plan.scopes, vec!["agent:use".to_string()]);
    assert_eq!(plan.agent, "http://127.0.0.1:9");
    assert_eq!(
        plan.timeout,
        std::time::Duration::from_secs(5),
        "each of the sign-in's requests ends within the agent's timeout_secs, not a fixed 30 s"
    );
    assert!(
        auth.is_some(),
        "the agent's own config: the token is kept for it"
    );
    assert_eq!(label, "guarded");
    // Until the listener is up, the dialog has no address.
    assert_eq!(app.code_flow.as_ref().unwrap().url, None);
    update(
        &mut app,
        Msg::CodeFlowStarted {
            owner: SignInFor::Approval(tab),
            result: Ok(("http://127.0.0.1:7/auth?state=s".into(), 40123)),
        },
    );
    let view = app.code_flow.clone().unwrap();
    assert_eq!(view.url.as_deref(), Some("http://127.0.0.1:7/auth?state=s"));
    assert_eq!(view.port, Some(40123));
}

#[test]
fn the_redirected_address_can_be_pasted_and_esc_in_the_prompt_returns_to_the_sign_in() {
    let mut app = sign_in_app();
    let tab = waiting_for_auth(&mut app);
    ctrl(&mut app, 'o');
    key(&mut app, KeyCode::Char('p'));
    assert!(matches!(
        app.overlay,
        Some(Overlay::Prompt {
            kind: PromptKind::RedirectUrl(o),
            ..
        }) if o == SignInFor::Approval(tab)
    ));
    key(&mut app, KeyCode::Esc);
    assert!(
        matches!(app.overlay, Some(Overlay::CodeFlow { .. })),
        "back to the sign-in"
    );
    key(&mut app, KeyCode::Char('p'));
    keys(
        &mut app,
        "http://127.0.0.1:40123/callback?code=c0de&state=s",
    );
    let fx = key(&mut app, KeyCode::Enter);
    assert!(
        matches!(fx.as_slice(), [Effect::CodeFlowPaste { owner, pasted }] if *owner == SignInFor::Approval(tab) && pasted.expose().contains("code=c0de")),
        "{fx:?}"
    );
    assert!(
        !format!("{fx:?}").contains("c0de"),
        "the code is never in a debug line"
    );
    assert!(
        matches!(app.overlay, Some(Overlay::CodeFlow { .. })),
        "still waiting for the exchange"
    );
}

#[test]
fn esc_stops_the_sign_in_and_the_task_keeps_waiting() {
    let mut app = sign_in_app();
    let tab = waiting_for_auth(&mut app);
    ctrl(&mut app, 'o');
    let fx = key(&mut app, KeyCode::Esc);
    assert!(
        matches!(fx.first(), Some(Effect::CancelOAuth { owner }) if *owner == SignInFor::Approval(tab)),
        "{fx:?}"
    );
    assert!(matches!(fx.get(1), Some(Effect::Audit { line, .. }) if line.contains("abandoned")));
    assert!(app.overlay.is_none());
    assert!(app.code_flow.is_none());
    let notes = format!("{:?}", app.tab(tab).unwrap().transcript);
    assert!(notes.contains("sign-in abandoned"), "{notes}");
}

#[test]
fn a_finished_sign_in_approves_with_its_token_and_a_failed_one_says_why() {
    let mut app = sign_in_app();
    let tab = waiting_for_auth(&mut app);
    ctrl(&mut app, 'o');
    let fx = update(
        &mut app,
        Msg::OAuthDone {
            owner: SignInFor::Approval(tab),
            result: Ok(Secret::new("at-xyz")),
            source: "OAuth 2.0 sign-in token",
        },
    );
    assert!(app.overlay.is_none() && app.code_flow.is_none());
    assert!(
        matches!(fx.first(), Some(Effect::Audit { line, .. }) if line.contains("OAuth 2.0 sign-in token") && !line.contains("at-xyz")),
        "{fx:?}"
    );
    assert!(
        matches!(fx.get(1), Some(Effect::Approve { task_id, credential: ApprovalCredential::Pasted(s), .. }) if task_id == "t9" && s.expose() == "at-xyz"),
        "{fx:?}"
    );

    let mut app = sign_in_app();
    let tab = waiting_for_auth(&mut app);
    ctrl(&mut app, 'o');
    let fx = update(
        &mut app,
        Msg::OAuthDone {
            owner: SignInFor::Approval(tab),
            result: Err("access_denied: the request was denied (consent refused)".into()),
            source: "OAuth 2.0 sign-in token",
        },
    );
    assert!(fx.is_empty());
    assert!(app.overlay.is_none());
    let notes = format!("{:?}", app.tab(tab).unwrap().transcript);
    assert!(notes.contains("sign-in failed: access_denied"), "{notes}");
}

#[test]
fn o_on_the_agent_list_opens_the_sign_in_for_the_selected_agent() {
    let mut app = sign_in_app();
    let agent = app.agents[0].id;
    let fx = key(&mut app, KeyCode::Char('o'));
    let owner = SignInFor::Agent(agent);
    assert!(matches!(app.overlay, Some(Overlay::CodeFlow { owner: o }) if o == owner));
    assert!(
        matches!(fx.as_slice(), [Effect::CodeFlow { owner: o, plan, auth: Some(_), .. }] if *o == owner && plan.flow == "openid_connect"),
        "{fx:?}"
    );
    // Esc stops it, with nothing left waiting.
    let fx = key(&mut app, KeyCode::Esc);
    assert!(
        matches!(fx.as_slice(), [Effect::CancelOAuth { owner: o }] if *o == owner),
        "{fx:?}"
    );
    assert!(app.overlay.is_none() && app.code_flow.is_none());
}

#[test]
fn o_on_an_agent_that_signs_nobody_in_says_why() {
    let mut app = crate::testing::app();
    let fx = key(&mut app, KeyCode::Char('o'));
    assert!(fx.is_empty(), "{fx:?}");
    assert!(app.overlay.is_none());
    let status = format!("{:?}", app.status);
    assert!(status.contains("nothing to sign in to"), "{status}");
}

#[test]
fn a_sign_in_from_the_agent_list_connects_the_agent_again() {
    let mut app = sign_in_app();
    let agent = app.agents[0].id;
    key(&mut app, KeyCode::Char('o'));
    let fx = update(
        &mut app,
        Msg::OAuthDone {
            owner: SignInFor::Agent(agent),
            result: Ok(Secret::new("at-xyz")),
            source: "OAuth 2.0 sign-in token",
        },
    );
    assert!(app.overlay.is_none() && app.code_flow.is_none());
    assert!(
        matches!(fx.as_slice(), [Effect::LoadAgent { agent: a, .. }] if *a == agent),
        "{fx:?}"
    );
    assert!(!format!("{fx:?}").contains("at-xyz"));
    let status = format!("{:?}", app.status);
    assert!(status.contains("signed in to guarded"), "{status}");

    // A failed one says why on the status line and changes nothing.
    key(&mut app, KeyCode::Char('o'));
    let fx = update(
        &mut app,
        Msg::OAuthDone {
            owner: SignInFor::Agent(agent),
            result: Err("access_denied: consent refused".into()),
            source: "OAuth 2.0 sign-in token",
        },
    );
    assert!(fx.is_empty(), "{fx:?}");
    let status = format!("{:?}", app.status);
    assert!(status.contains("sign-in failed: access_denied"), "{status}");
}

#[test]
fn a_sign_in_from_the_approval_dialog_also_connects_the_agent_again() {
    let mut app = sign_in_app();
    let tab = waiting_for_auth(&mut app);
    let agent = app.tab(tab).unwrap().agent;
    ctrl(&mut app, 'o');
    let fx = update(
        &mut app,
        Msg::OAuthDone {
            owner: SignInFor::Approval(tab),
            result: Ok(Secret::new("at-xyz")),
            source: "OAuth 2.0 sign-in token",
        },
    );
    assert!(
        matches!(fx.get(1), Some(Effect::Approve { .. })),
        "the request is approved first: {fx:?}"
    );
    assert!(
        matches!(fx.get(2), Some(Effect::LoadAgent { agent: a, .. }) if *a == agent),
        "then the agent's client is rebuilt with the kept token: {fx:?}"
    );
    assert!(
        app.agent(agent).unwrap().callable().is_some(),
        "the agent stays callable while it reconnects (the approval runs on its client)"
    );
}

#[test]
fn y_copies_the_sign_in_address_once_it_is_known() {
    let mut app = sign_in_app();
    let tab = waiting_for_auth(&mut app);
    ctrl(&mut app, 'o');
    let fx = key(&mut app, KeyCode::Char('y'));
    assert!(fx.is_empty(), "{fx:?}");
    assert!(format!("{:?}", app.status).contains("not ready yet"));
    update(
        &mut app,
        Msg::CodeFlowStarted {
            owner: SignInFor::Approval(tab),
            result: Ok(("http://127.0.0.1:7/auth?state=s\u{1b}[2J".into(), 40123)),
        },
    );
    let fx = key(&mut app, KeyCode::Char('y'));
    assert!(
        matches!(fx.as_slice(), [Effect::Copy { text, what }] if text.starts_with("http://127.0.0.1:7/auth?state=s") && !text.contains('\u{1b}') && what.contains("sign-in address")),
        "{fx:?}"
    );
    assert!(
        matches!(app.overlay, Some(Overlay::CodeFlow { .. })),
        "the dialog stays open"
    );
}

#[test]
fn y_copies_the_device_flow_address() {
    let mut app = sign_in_app();
    let tab = waiting_for_auth(&mut app);
    app.overlay = Some(Overlay::DeviceCode {
        tab,
        user_code: "WDJB-MJHT".into(),
        verification_uri: "https://127.0.0.1:7/device".into(),
        since: app.now,
    });
    let fx = key(&mut app, KeyCode::Char('y'));
    assert!(
        matches!(fx.as_slice(), [Effect::Copy { text, .. }] if text == "https://127.0.0.1:7/device"),
        "{fx:?}"
    );
    assert!(matches!(app.overlay, Some(Overlay::DeviceCode { .. })));
}

#[test]
fn the_card_only_reason_of_an_agent_nobody_signed_in_to_names_the_key() {
    let mut app = sign_in_app();
    let agent = app.agents[0].id;
    let card = crate::testing::fetched_card(crate::testing::SIGN_IN_CARD);
    let info = crate::app::agent::AgentInfo::new(
        "guarded",
        card,
        crate::app::agent::Usability::CardOnly {
            short: crate::remote::auth::sign_in::NOT_SIGNED_IN.into(),
            reason: "agent guarded: not signed in: sign in with `a2a-console login guarded`".into(),
        },
    );
    update(
        &mut app,
        Msg::AgentLoaded {
            agent,
            result: Ok(Box::new(info)),
        },
    );
    let why = app.agent(agent).unwrap().why_not_callable().unwrap();
    assert!(
        why.contains("press o on the agent list to sign in"),
        "{why}"
    );
}

#[test]
fn o_on_an_agent_whose_card_offers_only_the_device_flow_names_login() {
    const DEVICE_CARD: &str = r#"{"name": "Desk", "description": "d", "version": "1",
      "supportedInterfaces": [{"url": "http://127.0.0.1:9/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
      "capabilities": {}, "defaultInputModes": [], "defaultOutputModes": [], "skills": [],
      "securitySchemes": {"operator-oauth": {"oauth2SecurityScheme": {"flows": {"deviceCode": {
        "deviceAuthorizationUrl": "http://127.0.0.1:9/device", "tokenUrl": "http://127.0.0.1:9/token",
        "scopes": {"operator": "run"}}}}}}}"#;
    let mut app = crate::testing::empty_app((120, 40));
    let mut target = crate::remote::connect::agent::AgentTarget::from_url(
        "http://127.0.0.1:9",
        std::time::Duration::from_secs(5),
    );
    target.label = "desk".into();
    target.auth = Some(crate::config::AuthConfig::new(
        crate::config::AuthKind::Oauth2,
    ));
    crate::testing::add_online(&mut app, target, "desk", DEVICE_CARD);
    let fx = key(&mut app, KeyCode::Char('o'));
    assert!(fx.is_empty(), "{fx:?}");
    assert!(app.overlay.is_none());
    let status = format!("{:?}", app.status);
    assert!(
        status.contains("offers only the device-code flow"),
        "{status}"
    );
    assert!(status.contains("a2a-console login desk"), "{status}");
}
