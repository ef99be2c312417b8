//! Issue 9, item 6: `login` says where the address it prints came from. A device-code sign-in whose page is
//! named by an authorization server on another origin (127.0.0.2) than the agent's card (127.0.0.1): the page is
//! labelled remote text from the agent's card, sanitised, and a warning names both origins — as the console's
//! sign-in dialog does. Through the real binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use axum::Router;
use axum::routing::post;
use common::hostile_http::json_on;

/// An authorization server on 127.0.0.2: a device code whose page is on its own origin (and whose user code
/// carries an escape sequence), then a refusal at the token endpoint so `login` ends.
async fn provider() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.2:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let page = format!("{base}/verify");
    let app = Router::new()
        .route(
            "/device",
            post(move || {
                let page = page.clone();
                async move {
                    axum::Json(serde_json::json!({
                        "device_code": "dev-1", "user_code": "WDJB-MJHT\u{1b}]0;pwned\u{7}",
                        "verification_uri": page, "expires_in": 60, "interval": 1
                    }))
                }
            }),
        )
        .route(
            "/token",
            post(|| async {
                (
                    axum::http::StatusCode::BAD_REQUEST,
                    axum::Json(serde_json::json!({"error": "access_denied"})),
                )
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn login_labels_a_device_page_from_the_card_and_warns_of_another_origin() {
    let dir = tempfile::tempdir().unwrap();
    let idp = provider().await;
    let card = serde_json::json!({
        "name": "device agent", "description": "d", "version": "1",
        "supportedInterfaces": [{"url": "http://127.0.0.1:1/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {}, "skills": [], "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "securitySchemes": {"device": {"oauth2SecurityScheme": {"flows": {"deviceCode": {
            "deviceAuthorizationUrl": format!("{idp}/device"), "tokenUrl": format!("{idp}/token"), "scopes": {}
        }}}}},
        "securityRequirements": [{"schemes": {"device": {"list": []}}}]
    });
    let agent = json_on("127.0.0.1", card.to_string()).await;
    let cfg = dir.path().join("config.toml");
    std::fs::write(
        &cfg,
        format!(
            "[[agents]]\nname = \"dev\"\nurl = \"{}\"\n[agents.auth]\ntype = \"oauth2\"\n",
            agent.base
        ),
    )
    .unwrap();
    let tokens = dir.path().join("tokens.json").display().to_string();
    let r = common::cli_env(
        &[
            "--config",
            cfg.to_str().unwrap(),
            "login",
            "dev",
            "--no-browser",
        ],
        &[
            ("A2A_CONSOLE_TOKEN_CACHE", &tokens),
            ("DISPLAY", ""),
            ("WAYLAND_DISPLAY", ""),
        ],
    );
    assert_ne!(r.code, 0, "the provider refused: {}", r.all());
    let err = &r.stderr;
    assert!(
        err.contains("remote · from the authorization server the agent's card names"),
        "labelled as coming from the card:\n{err}"
    );
    assert!(err.contains(&format!("{idp}/verify")), "{err}");
    assert!(
        err.contains(&format!(
            "⚠ this page is on {idp}, another origin than the agent's card ({})",
            agent.base
        )),
        "warns of the other origin:\n{err}"
    );
    common::assert_terminal_safe(err);
}
