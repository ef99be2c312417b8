//! Signing in as a person against a real OpenID provider: panva's `oidc-provider` 9.13.3 (certified),
//! started on 127.0.0.1 by tests/peers/oidc_provider.mjs. The test plays the browser with plain HTTP
//! (a cookie-keeping reqwest client that follows no redirects): it opens the authorization URL our
//! code built, logs in and consents on the provider's own pages (or aborts), and delivers the final
//! redirect to our loopback listener — or hands it to the paste-back path. Nothing here is a mock:
//! the codes, tokens, ID tokens and refusals are the provider's.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::oidc::{Provider, person, provider};

use std::collections::HashMap;

use a2a_console::remote::auth::loopback::RedirectListener;
use a2a_console::remote::auth::oauth::{self, OAuthError};
use a2a_console::remote::auth::oauth_code::{
    self, CodeFlow, CodeFlowSource, SignIn, code_flows_in_card,
};
use a2a_console::remote::auth::oidc;
use tokio::sync::watch;

/// A card declaring the provider as OpenID Connect, asking for the resource's scope and email.
fn oidc_card(issuer: &str) -> a2a::AgentCard {
    serde_json::from_value(serde_json::json!({
        "name": "signed-in agent",
        "description": "needs a person",
        "version": "1",
        "supportedInterfaces": [{"url": "http://127.0.0.1:9/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [],
        "securitySchemes": {
            "people": {"openIdConnectSecurityScheme": {
                "openIdConnectUrl": format!("{issuer}/.well-known/openid-configuration")
            }},
            "code": {"oauth2SecurityScheme": {"flows": {"authorizationCode": {
                "authorizationUrl": format!("{issuer}/auth"),
                "tokenUrl": format!("{issuer}/token"),
                "scopes": {"agent:use": "use the agent", "offline_access": "stay signed in"}
            }}}}
        },
        "securityRequirements": [{"people": ["agent:use", "email", "profile"]}]
    }))
    .unwrap()
}

fn source(card: &a2a::AgentCard, scheme: &str) -> (CodeFlowSource, Vec<String>) {
    let (_, src, scopes) = code_flows_in_card(card)
        .into_iter()
        .find(|(n, _, _)| n == scheme)
        .unwrap();
    (src, scopes)
}

fn no_cancel() -> watch::Receiver<bool> {
    let (tx, rx) = watch::channel(false);
    std::mem::forget(tx);
    rx
}

/// Starts a sign-in for `scheme` on a fresh listener.
async fn start(p: &Provider, scheme: &str) -> (SignIn, RedirectListener, reqwest::Client) {
    let http = oauth::http_client().unwrap();
    let card = oidc_card(&p.issuer);
    let (src, scopes) = source(&card, scheme);
    let flow = CodeFlow::resolve(&http, &src, scopes).await.unwrap();
    let listener = RedirectListener::bind(None).await.unwrap();
    let sign_in = SignIn::new(flow, "a2a-console", listener.redirect_uri()).unwrap();
    (sign_in, listener, http)
}

/// The whole flow through the listener: a browser redirect delivers the code.
async fn sign_in_via_listener(p: &Provider, scheme: &str) -> oauth_code::SignedIn {
    let (sign_in, listener, http) = start(p, scheme).await;
    let redirect = person(&p.issuer, sign_in.authorize_url(), "alice", true).await;
    assert!(
        redirect.starts_with(listener.redirect_uri().as_str()),
        "{redirect}"
    );
    let sign_in = std::sync::Arc::new(sign_in);
    let s = sign_in.clone();
    let wait = tokio::spawn(async move {
        listener
            .wait(move |u| s.check_redirect(u), no_cancel())
            .await
    });
    // The browser arrives at the listener and is told it may close the page.
    let page = reqwest::get(&redirect).await.unwrap();
    assert_eq!(page.status(), 200);
    assert!(page.text().await.unwrap().contains("signed in"));
    let code = wait.await.unwrap().unwrap();
    sign_in.exchange(&http, &code, None).await.unwrap()
}

#[tokio::test]
async fn oidc_code_flow_with_pkce_signs_in_and_the_token_opens_the_resource() {
    let p = provider(&[]);
    let signed = sign_in_via_listener(&p, "people").await;
    let who = signed.identity.clone().expect("an OIDC sign-in says who");
    assert_eq!(who.subject, "alice");
    assert_eq!(who.email.as_deref(), Some("alice@example.test"));
    assert_eq!(who.name.as_deref(), Some("Alice Tester"));
    assert_eq!(signed.issuer.as_deref(), Some(p.issuer.as_str()));
    assert!(signed.scopes.contains(&"openid".to_string()));
    assert!(
        signed.token.refresh_token.is_some(),
        "offline_access granted"
    );
    assert!(!format!("{signed:?}").contains(signed.token.access_token.expose()));
    // The provider's resource verifies the JWT access token (signature, issuer, audience).
    let r = reqwest::Client::new()
        .get(format!("{}/whoami", p.resource))
        .bearer_auth(signed.token.access_token.expose())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let body: serde_json::Value = r.json().await.unwrap();
    assert_eq!(body["sub"], "alice");
    assert_eq!(body["scope"], "agent:use");
}

#[tokio::test]
async fn plain_oauth2_code_flow_and_paste_back_of_the_redirected_address() {
    let p = provider(&[]);
    let (sign_in, listener, http) = start(&p, "code").await;
    assert!(sign_in.issuer().is_none(), "no metadata: no issuer");
    let url = sign_in.authorize_url().clone();
    let q: HashMap<String, String> = url.query_pairs().into_owned().collect();
    assert_eq!(q["code_challenge_method"], "S256");
    assert_eq!(q["redirect_uri"], listener.redirect_uri().as_str());
    assert_eq!(q["scope"], "agent:use offline_access");
    assert!(!q.contains_key("nonce"), "no nonce outside OpenID Connect");
    let redirect = person(&p.issuer, &url, "bob", true).await;
    // The browser ran on another machine: the user pastes what its address bar shows.
    drop(listener);
    let code = sign_in.check_pasted(&format!("  {redirect}\n")).unwrap();
    let signed = sign_in.exchange(&http, &code, None).await.unwrap();
    assert!(signed.identity.is_none());
    assert!(signed.token.bearer().is_ok());
    // The code is single-use: the provider refuses it the second time.
    let again = sign_in.exchange(&http, &code, None).await.unwrap_err();
    assert_eq!(again.code(), Some("invalid_grant"), "{again}");
    assert!(again.to_string().contains("already used"), "{again}");
    // A pasted address that is not ours, or not an address at all, is refused clearly.
    let err = sign_in.check_pasted("the code is 1234").unwrap_err();
    assert!(err.to_string().contains("paste the whole address"), "{err}");
    let err = sign_in
        .check_pasted(&redirect.replace("/callback", "/elsewhere"))
        .unwrap_err();
    assert!(err.to_string().contains("redirect URI"), "{err}");
}

#[tokio::test]
async fn refresh_before_expiry_gets_a_new_access_token() {
    let p = provider(&["--access-ttl", "30"]);
    let signed = sign_in_via_listener(&p, "people").await;
    assert_eq!(signed.token.expires_in, Some(30));
    let refreshed = oauth_code::refresh(
        &oauth::http_client().unwrap(),
        &signed.token_url,
        "a2a-console",
        None,
        signed.token.refresh_token.as_ref().unwrap(),
        &[],
    )
    .await
    .unwrap();
    assert_ne!(
        refreshed.access_token.expose(),
        signed.token.access_token.expose()
    );
    let r = reqwest::Client::new()
        .get(format!("{}/whoami", p.resource))
        .bearer_auth(refreshed.access_token.expose())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "the refreshed token is accepted");
    // A refresh token the provider never issued is refused: "sign in again".
    let err = oauth_code::refresh(
        &oauth::http_client().unwrap(),
        &signed.token_url,
        "a2a-console",
        None,
        &a2a_console::remote::auth::Secret::new("not-a-refresh-token"),
        &[],
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), Some("invalid_grant"), "{err}");
}

#[tokio::test]
async fn refused_consent_is_reported_as_such() {
    let p = provider(&[]);
    let (sign_in, listener, _http) = start(&p, "people").await;
    let redirect = person(&p.issuer, sign_in.authorize_url(), "alice", false).await;
    assert!(redirect.starts_with(listener.redirect_uri().as_str()));
    let err = sign_in.check_pasted(&redirect).unwrap_err();
    assert_eq!(err.code(), Some("access_denied"));
    assert!(err.to_string().contains("consent refused"), "{err}");
}

#[tokio::test]
async fn a_crafted_callback_with_the_wrong_state_fails_the_sign_in() {
    let p = provider(&[]);
    let (sign_in, listener, _http) = start(&p, "people").await;
    let base = listener.redirect_uri().clone();
    let sign_in = std::sync::Arc::new(sign_in);
    let s = sign_in.clone();
    let wait = tokio::spawn(async move {
        listener
            .wait(move |u| s.check_redirect(u), no_cancel())
            .await
    });
    // A stray request for another path is answered 404 and the listener keeps waiting.
    let favicon = reqwest::get(base.join("/favicon.ico").unwrap())
        .await
        .unwrap();
    assert_eq!(favicon.status(), 404);
    let forged = format!("{base}?code=stolen&state=not-the-right-one");
    let page = reqwest::get(&forged).await.unwrap();
    assert_eq!(page.status(), 400);
    assert_eq!(
        page.headers()["content-type"],
        "text/plain; charset=utf-8",
        "never HTML"
    );
    assert!(page.text().await.unwrap().contains("wrong state"));
    let err = wait.await.unwrap().unwrap_err();
    assert!(matches!(err, OAuthError::WrongState), "{err}");
    // The listener is closed once the sign-in ended.
    assert!(reqwest::get(base.as_str()).await.is_err());
}

#[tokio::test]
async fn id_token_for_another_audience_or_tampered_is_refused() {
    let p = provider(&[]);
    let (sign_in, listener, http) = start(&p, "people").await;
    let redirect = person(&p.issuer, sign_in.authorize_url(), "alice", true).await;
    drop(listener);
    let code = sign_in.check_pasted(&redirect).unwrap();
    let signed = sign_in.exchange(&http, &code, None).await.unwrap();
    let id_token = signed.token.id_token.clone().unwrap();
    let meta = oidc::discover(
        &http,
        &format!("{}/.well-known/openid-configuration", p.issuer),
        oidc::MetadataKind::OpenId,
    )
    .await
    .unwrap();
    // The genuine token, checked for another client: wrong audience.
    let err = oidc::verify_id_token(&http, &meta, &id_token, "someone-else", None)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("aud"), "{err}");
    // The wrong nonce: a token from another sign-in.
    let err = oidc::verify_id_token(&http, &meta, &id_token, "a2a-console", Some("other"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("nonce"), "{err}");
    // A payload changed (sub → mallory) under the provider's signature.
    let parts: Vec<&str> = id_token.expose().split('.').collect();
    use base64::Engine;
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let mut claims: serde_json::Value =
        serde_json::from_slice(&b64.decode(parts[1]).unwrap()).unwrap();
    claims["sub"] = "mallory".into();
    let forged = format!(
        "{}.{}.{}",
        parts[0],
        b64.encode(serde_json::to_vec(&claims).unwrap()),
        parts[2]
    );
    let err = oidc::verify_id_token(
        &http,
        &meta,
        &a2a_console::remote::auth::Secret::new(forged),
        "a2a-console",
        None,
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("bad signature"), "{err}");
    // `alg: none` is refused before any key is looked at.
    let none_header = b64.encode(br#"{"alg":"none"}"#);
    let unsigned = format!("{none_header}.{}.", parts[1]);
    let err = oidc::verify_id_token(
        &http,
        &meta,
        &a2a_console::remote::auth::Secret::new(unsigned),
        "a2a-console",
        None,
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("ID token was refused"), "{err}");
}

#[tokio::test]
async fn discovery_that_names_another_issuer_is_refused() {
    let p = provider(&[]);
    let http = oauth::http_client().unwrap();
    // Another host on the machine serves a copy of the provider's real discovery document as its own.
    let doc = reqwest::get(format!("{}/.well-known/openid-configuration", p.issuer))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let app = axum::Router::new().route(
        "/.well-known/openid-configuration",
        axum::routing::get(move || {
            let d = doc.clone();
            async move { ([("content-type", "application/json")], d) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let copy = format!("http://{addr}/.well-known/openid-configuration");
    let err = oidc::discover(&http, &copy, oidc::MetadataKind::OpenId)
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("speaks for another provider"),
        "{err}"
    );
    // The genuine URL passes.
    let good = format!("{}/.well-known/openid-configuration", p.issuer);
    let meta = oidc::discover(&http, &good, oidc::MetadataKind::OpenId)
        .await
        .unwrap();
    assert_eq!(meta.issuer, p.issuer);
}

#[tokio::test]
async fn provider_down_is_a_clear_network_error() {
    // A port that was just free: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let http = oauth::http_client().unwrap();
    let src = CodeFlowSource::OpenIdConnect {
        discovery_url: format!("http://127.0.0.1:{port}/.well-known/openid-configuration"),
    };
    let err = CodeFlow::resolve(&http, &src, vec![]).await.unwrap_err();
    assert!(
        err.to_string()
            .starts_with("cannot reach the provider metadata"),
        "{err}"
    );
    // The token endpoint down after the browser part: the exchange says so in one line.
    let src = CodeFlowSource::OAuth2 {
        authorization_url: format!("http://127.0.0.1:{port}/auth"),
        token_url: format!("http://127.0.0.1:{port}/token"),
        metadata_url: None,
    };
    let flow = CodeFlow::resolve(&http, &src, vec![]).await.unwrap();
    let listener = RedirectListener::bind(None).await.unwrap();
    let sign_in = SignIn::new(flow, "a2a-console", listener.redirect_uri()).unwrap();
    let state: HashMap<String, String> =
        sign_in.authorize_url().query_pairs().into_owned().collect();
    let code = sign_in
        .check_pasted(&format!(
            "{}?code=abc&state={}",
            listener.redirect_uri(),
            state["state"]
        ))
        .unwrap();
    let err = sign_in.exchange(&http, &code, None).await.unwrap_err();
    assert!(
        err.to_string()
            .starts_with("cannot reach the token endpoint"),
        "{err}"
    );
    assert!(!err.to_string().contains('\n'));
}
