//! Tests for `oauth` against a tiny OAuth server on 127.0.0.1 (device authorization, token endpoint
//! for both grants, a redirecting and an oversized endpoint). Polling tests run on a paused clock:
//! sleeps finish at once and the server records the virtual time of every poll, so intervals are
//! checked exactly without the test taking seconds.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Form, State};
use axum::http::{HeaderMap, StatusCode as AxStatus};
use axum::response::{IntoResponse, Response};
use axum::routing::post;

use super::*;

const CLIENT_ID: &str = "console";
/// Has `:` and `+`, which must be form-encoded before the Basic encoding (RFC 6749 §2.3.1).
const CLIENT_SECRET: &str = "s:cret+1";
const DEVICE_CODE: &str = "dev-code-1";

/// One scripted answer of the token endpoint to a device-code poll.
#[derive(Clone)]
enum Reply {
    Json(u16, Value),
    Raw(u16, &'static str),
    /// Never answers (to cancel mid-request).
    Hang,
}

fn oauth_error(code: &str) -> Reply {
    Reply::Json(400, serde_json::json!({ "error": code }))
}

fn issued_token() -> Reply {
    Reply::Json(
        200,
        serde_json::json!({
            "access_token": "dev-token", "token_type": "Bearer", "expires_in": 3600,
            "refresh_token": "dev-refresh", "scope": "read write"
        }),
    )
}

struct Oauth {
    device_reply: Value,
    /// Polls take answers from the front; the last one repeats.
    script: Mutex<VecDeque<Reply>>,
    polls: Mutex<Vec<Instant>>,
}

fn device_reply(base: &str, expires_in: u64, interval: u64) -> Value {
    serde_json::json!({
        "device_code": DEVICE_CODE, "user_code": "WDJB-MJHT",
        "verification_uri": format!("{base}/activate"),
        "verification_uri_complete": format!("{base}/activate?user_code=WDJB-MJHT"),
        "expires_in": expires_in, "interval": interval
    })
}

fn respond(reply: Reply) -> Response {
    match reply {
        Reply::Json(status, body) => (status_of(status), axum::Json(body)).into_response(),
        Reply::Raw(status, body) => (
            status_of(status),
            [("content-type", "text/html")],
            body.to_string(),
        )
            .into_response(),
        Reply::Hang => unreachable!("handled before"),
    }
}

fn status_of(code: u16) -> AxStatus {
    AxStatus::from_u16(code).unwrap()
}

async fn device_endpoint(
    State(s): State<Arc<Oauth>>,
    Form(f): Form<HashMap<String, String>>,
) -> Response {
    if f.get("client_id").map(String::as_str) != Some(CLIENT_ID) {
        return respond(oauth_error("invalid_client"));
    }
    respond(Reply::Json(200, s.device_reply.clone()))
}

async fn token(
    State(s): State<Arc<Oauth>>,
    headers: HeaderMap,
    Form(f): Form<HashMap<String, String>>,
) -> Response {
    match f.get("grant_type").map(String::as_str) {
        Some(DEVICE_CODE_GRANT) => {
            if f.get("device_code").map(String::as_str) != Some(DEVICE_CODE)
                || f.get("client_id").map(String::as_str) != Some(CLIENT_ID)
            {
                return respond(oauth_error("invalid_grant"));
            }
            s.polls.lock().unwrap().push(Instant::now());
            let reply = {
                let mut script = s.script.lock().unwrap();
                if script.len() > 1 {
                    script.pop_front().unwrap()
                } else {
                    script.front().cloned().unwrap()
                }
            };
            if let Reply::Hang = reply {
                std::future::pending::<()>().await;
            }
            respond(reply)
        }
        Some("client_credentials") => {
            let expected = format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD.encode("console:s%3Acret%2B1")
            );
            let basic_ok = headers
                .get("authorization")
                .is_some_and(|v| v.as_bytes() == expected.as_bytes());
            let post_ok = f.get("client_id").map(String::as_str) == Some(CLIENT_ID)
                && f.get("client_secret").map(String::as_str) == Some(CLIENT_SECRET);
            if !(basic_ok || post_ok) {
                return respond(Reply::Json(
                    401,
                    serde_json::json!({"error": "invalid_client",
                        "error_description": "bad client credentials"}),
                ));
            }
            let scope = f.get("scope").cloned().unwrap_or_default();
            // A quoted expires_in, as some older servers send it.
            respond(Reply::Json(
                200,
                serde_json::json!({"access_token": "cc-token", "token_type": "bearer",
                    "expires_in": "3600", "scope": scope}),
            ))
        }
        _ => respond(oauth_error("unsupported_grant_type")),
    }
}

/// Starts the server; `device` builds the device authorization answer from the base URL.
async fn serve(device: impl FnOnce(&str) -> Value, script: Vec<Reply>) -> (String, Arc<Oauth>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let state = Arc::new(Oauth {
        device_reply: device(&base),
        script: Mutex::new(script.into()),
        polls: Mutex::new(Vec::new()),
    });
    let app = Router::new()
        .route("/device", post(device_endpoint))
        .route("/token", post(token))
        .route(
            "/moved",
            post(|| async { (AxStatus::TEMPORARY_REDIRECT, [("location", "/token")]) }),
        )
        .route("/huge", post(|| async { "x".repeat(MAX_BODY_BYTES + 1) }))
        .route(
            "/plain",
            post(|| async { "access_token=abc&token_type=bearer" }),
        )
        .with_state(state.clone());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (base, state)
}

/// No idle-pool timer: under a paused clock the only timers are the poller's own, so the recorded
/// poll times are exact.
fn test_client() -> reqwest::Client {
    reqwest::Client::builder()
        .pool_idle_timeout(None)
        .build()
        .unwrap()
}

fn scopes(s: &[&str]) -> Vec<String> {
    s.iter().map(|s| s.to_string()).collect()
}

/// Runs a whole device flow against `script` and returns the outcome and the poll times relative
/// to the start.
async fn device_flow(
    expires_in: u64,
    interval: u64,
    script: Vec<Reply>,
    cancel: watch::Receiver<bool>,
) -> (Result<TokenResponse, OAuthError>, Vec<Duration>) {
    let (base, state) = serve(|b| device_reply(b, expires_in, interval), script).await;
    let http = test_client();
    let start = Instant::now();
    let auth = start_device_flow(
        &http,
        &format!("{base}/device"),
        CLIENT_ID,
        &scopes(&["read"]),
    )
    .await
    .unwrap();
    let result = poll_device_token(&http, &format!("{base}/token"), CLIENT_ID, &auth, cancel).await;
    let polls = state
        .polls
        .lock()
        .unwrap()
        .iter()
        .map(|t| t.duration_since(start))
        .collect();
    (result, polls)
}

fn never_cancelled() -> watch::Receiver<bool> {
    // The sender is dropped at once: a dropped sender must not count as a cancel.
    watch::channel(false).1
}

#[tokio::test(start_paused = true)]
async fn device_flow_polls_at_the_interval_and_slows_down() {
    let script = vec![
        oauth_error("authorization_pending"),
        oauth_error("authorization_pending"),
        oauth_error("slow_down"),
        issued_token(),
    ];
    let (result, polls) = device_flow(600, 2, script, never_cancelled()).await;
    let token = result.unwrap();
    assert_eq!(token.access_token.expose(), "dev-token");
    assert_eq!(token.token_type, "Bearer");
    assert_eq!(token.expires_in, Some(3600));
    assert_eq!(
        token.refresh_token.as_ref().unwrap().expose(),
        "dev-refresh"
    );
    assert_eq!(token.scope.as_deref(), Some("read write"));
    // Waits the interval before the first poll, keeps it on `authorization_pending`, and adds
    // five seconds after `slow_down`.
    let secs: Vec<u64> = polls.iter().map(Duration::as_secs).collect();
    assert_eq!(secs, [2, 4, 6, 13], "poll times {polls:?}");
    assert!(matches!(
        token.bearer(),
        Ok(Credential::Bearer(t)) if t.expose() == "dev-token"
    ));
}

#[tokio::test(start_paused = true)]
async fn device_authorization_fields_are_checked_and_kept() {
    let (base, _) = serve(|b| device_reply(b, 600, 0), vec![issued_token()]).await;
    let auth = start_device_flow(&test_client(), &format!("{base}/device"), CLIENT_ID, &[])
        .await
        .unwrap();
    assert_eq!(auth.user_code, "WDJB-MJHT");
    assert_eq!(auth.verification_uri, format!("{base}/activate"));
    assert_eq!(
        auth.verification_uri_complete,
        Some(format!("{base}/activate?user_code=WDJB-MJHT"))
    );
    assert_eq!(auth.expires_in, 600);
    // `interval: 0` would mean hammering the server.
    assert_eq!(auth.interval, 1);
    assert_eq!(auth.remaining(), Duration::from_secs(600));
    assert!(!format!("{auth:?}").contains(DEVICE_CODE));
}

#[tokio::test(start_paused = true)]
async fn access_denied_ends_polling() {
    let script = vec![
        oauth_error("authorization_pending"),
        oauth_error("access_denied"),
    ];
    let (result, polls) = device_flow(600, 5, script, never_cancelled()).await;
    let err = result.unwrap_err();
    assert_eq!(err.code(), Some("access_denied"));
    assert!(err.to_string().contains("access_denied"), "{err}");
    assert_eq!(polls.len(), 2);
}

#[tokio::test(start_paused = true)]
async fn expired_token_from_the_server_ends_polling() {
    let (result, polls) = device_flow(
        600,
        5,
        vec![oauth_error("expired_token")],
        never_cancelled(),
    )
    .await;
    let err = result.unwrap_err();
    assert_eq!(err.code(), Some("expired_token"));
    assert!(err.to_string().contains("expired"), "{err}");
    assert_eq!(polls.len(), 1);
}

#[tokio::test(start_paused = true)]
async fn polling_stops_when_the_codes_expire() {
    let script = vec![oauth_error("authorization_pending")];
    let (result, polls) = device_flow(5, 2, script, never_cancelled()).await;
    let err = result.unwrap_err();
    assert_eq!(err, OAuthError::DeviceCodeExpired);
    assert!(err.to_string().contains("expired_token"), "{err}");
    let secs: Vec<u64> = polls.iter().map(Duration::as_secs).collect();
    assert_eq!(secs, [2, 4], "no poll after the deadline");
}

#[tokio::test(start_paused = true)]
async fn cancel_while_waiting_between_polls() {
    let (tx, rx) = watch::channel(false);
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(3)).await;
        tx.send(true).unwrap();
        // Keep the sender until the poller has seen the value.
        tokio::time::sleep(Duration::from_secs(3600)).await;
    });
    let script = vec![oauth_error("authorization_pending")];
    let start = Instant::now();
    let (result, polls) = device_flow(600, 2, script, rx).await;
    assert_eq!(result.unwrap_err(), OAuthError::Cancelled);
    assert_eq!(polls.len(), 1);
    assert_eq!(start.elapsed().as_secs(), 3, "stopped when cancelled");
}

#[tokio::test(start_paused = true)]
async fn cancel_while_a_poll_is_in_flight() {
    let (tx, rx) = watch::channel(false);
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_secs(3)).await;
        tx.send(true).unwrap();
        tokio::time::sleep(Duration::from_secs(3600)).await;
    });
    let (result, polls) = device_flow(600, 2, vec![Reply::Hang], rx).await;
    assert_eq!(result.unwrap_err(), OAuthError::Cancelled);
    assert_eq!(polls.len(), 1);
}

#[tokio::test(start_paused = true)]
async fn already_cancelled_never_polls() {
    let (_tx, rx) = watch::channel(true);
    let (result, polls) = device_flow(600, 2, vec![issued_token()], rx).await;
    assert_eq!(result.unwrap_err(), OAuthError::Cancelled);
    assert!(polls.is_empty());
}

#[tokio::test(start_paused = true)]
async fn non_json_error_body_is_an_http_error_with_a_clean_excerpt() {
    let script = vec![Reply::Raw(
        502,
        "<html>Bad gateway\x1b[31m red \x1b]0;title\x07</html>",
    )];
    let (result, _) = device_flow(600, 2, script, never_cancelled()).await;
    let err = result.unwrap_err();
    let OAuthError::Http { status, body, .. } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(*status, 502);
    assert!(body.contains("Bad gateway"), "{body}");
    assert!(!err.to_string().contains('\x1b'));
    assert!(!err.to_string().contains('\x07'));
}

#[tokio::test(start_paused = true)]
async fn unknown_oauth_error_codes_and_descriptions_are_sanitised() {
    let script = vec![Reply::Json(
        400,
        serde_json::json!({"error": "weird\x1b[2J", "error_description": "line1\nline2 \x1b[31m",
            "error_uri": "https://as.example/e\x07"}),
    )];
    let (result, _) = device_flow(600, 2, script, never_cancelled()).await;
    let text = result.unwrap_err().to_string();
    assert!(
        !text.contains('\x1b') && !text.contains('\n') && !text.contains('\x07'),
        "{text}"
    );
    assert!(text.contains("weird") && text.contains("line2"), "{text}");
}

#[tokio::test]
async fn device_authorization_strings_are_sanitised_and_urls_checked() {
    let (base, _) = serve(
        |b| {
            serde_json::json!({
                "device_code": DEVICE_CODE, "user_code": "AB\x1b[8mCD",
                "verification_url": format!("{b}/activate"),
                "verification_uri_complete": "javascript:alert(1)",
                "expires_in": "600"
            })
        },
        vec![issued_token()],
    )
    .await;
    let auth = start_device_flow(&test_client(), &format!("{base}/device"), CLIENT_ID, &[])
        .await
        .unwrap();
    assert!(!auth.user_code.contains('\x1b'), "{:?}", auth.user_code);
    // Google's spelling is accepted; a non-http complete URI is dropped; the interval defaults.
    assert_eq!(auth.verification_uri, format!("{base}/activate"));
    assert_eq!(auth.verification_uri_complete, None);
    assert_eq!(auth.interval, 5);
    assert_eq!(auth.expires_in, 600);

    for bad in ["javascript:alert(1)", "http://phish.example/activate"] {
        let (base, _) = serve(
            |_| {
                serde_json::json!({"device_code": "d", "user_code": "u",
                    "verification_uri": bad, "expires_in": 600})
            },
            vec![issued_token()],
        )
        .await;
        let err = start_device_flow(&test_client(), &format!("{base}/device"), CLIENT_ID, &[])
            .await
            .unwrap_err();
        assert!(
            matches!(
                err,
                OAuthError::InvalidUrl { .. } | OAuthError::InsecureEndpoint { .. }
            ),
            "{bad}: {err:?}"
        );
    }
}

#[tokio::test]
async fn device_authorization_errors_and_missing_fields() {
    let (base, _) = serve(|b| device_reply(b, 600, 5), vec![issued_token()]).await;
    let err = start_device_flow(&test_client(), &format!("{base}/device"), "stranger", &[])
        .await
        .unwrap_err();
    assert_eq!(err.code(), Some("invalid_client"));

    let (base, _) = serve(
        |b| serde_json::json!({"device_code": "d", "user_code": "u", "verification_uri": format!("{b}/a")}),
        vec![issued_token()],
    )
    .await;
    let err = start_device_flow(&test_client(), &format!("{base}/device"), CLIENT_ID, &[])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("expires_in"), "{err}");
}

#[tokio::test]
async fn client_credentials_with_basic_and_post() {
    let (base, _) = serve(|b| device_reply(b, 600, 5), vec![issued_token()]).await;
    let url = format!("{base}/token");
    let secret = Secret::new(CLIENT_SECRET);
    let token = client_credentials(
        &test_client(),
        &url,
        CLIENT_ID,
        &secret,
        &scopes(&["read", "write"]),
    )
    .await
    .unwrap();
    assert_eq!(token.access_token.expose(), "cc-token");
    assert_eq!(token.expires_in, Some(3600));
    assert_eq!(token.scope.as_deref(), Some("read write"));
    assert!(token.refresh_token.is_none());
    assert!(token.bearer().is_ok(), "token_type is case-insensitive");
    assert!(!format!("{token:?}").contains("cc-token"));

    let token = client_credentials_with(
        &test_client(),
        &url,
        CLIENT_ID,
        &secret,
        &[],
        ClientAuthMethod::Post,
    )
    .await
    .unwrap();
    assert_eq!(token.access_token.expose(), "cc-token");
}

#[tokio::test]
async fn wrong_client_secret_is_invalid_client() {
    let (base, _) = serve(|b| device_reply(b, 600, 5), vec![issued_token()]).await;
    let err = client_credentials(
        &test_client(),
        &format!("{base}/token"),
        CLIENT_ID,
        &Secret::new("wrong"),
        &[],
    )
    .await
    .unwrap_err();
    assert_eq!(err.code(), Some("invalid_client"));
    assert!(matches!(err, OAuthError::Server { status: 401, .. }));
    let text = err.to_string();
    assert!(
        text.contains("invalid_client") && text.contains("bad client credentials"),
        "{text}"
    );
}

#[tokio::test]
async fn plain_http_to_a_remote_host_and_odd_urls_are_refused() {
    let http = test_client();
    let secret = Secret::new(CLIENT_SECRET);
    let err = client_credentials(&http, "http://auth.example/token", CLIENT_ID, &secret, &[])
        .await
        .unwrap_err();
    assert!(
        matches!(err, OAuthError::InsecureEndpoint { .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("unencrypted"), "{err}");
    let err = start_device_flow(&http, "http://10.0.0.1/device", CLIENT_ID, &[])
        .await
        .unwrap_err();
    assert!(
        matches!(err, OAuthError::InsecureEndpoint { .. }),
        "{err:?}"
    );

    for bad in [
        "ftp://auth.example/token",
        "file:///etc/passwd",
        "not a url",
        "https://user:pw@auth.example/token",
        "https://auth.example/token#frag",
    ] {
        let err = client_credentials(&http, bad, CLIENT_ID, &secret, &[])
            .await
            .unwrap_err();
        assert!(
            matches!(err, OAuthError::InvalidUrl { .. }),
            "{bad}: {err:?}"
        );
    }
    for ok in [
        "https://auth.example/token",
        "http://127.0.0.1:9/token",
        "http://[::1]:9/token",
        "http://localhost:9/token",
    ] {
        assert!(endpoint_url(ok, "token endpoint").is_ok(), "{ok}");
    }
}

#[tokio::test]
async fn redirects_are_not_followed_or_trusted() {
    let (base, _) = serve(|b| device_reply(b, 600, 5), vec![issued_token()]).await;
    let secret = Secret::new(CLIENT_SECRET);
    let url = format!("{base}/moved");
    // The OAuth client does not follow.
    let err = client_credentials(&http_client().unwrap(), &url, CLIENT_ID, &secret, &[])
        .await
        .unwrap_err();
    assert!(
        matches!(err, OAuthError::Http { status: 307, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("redirect"), "{err}");
    // A client that follows gets its answer refused.
    let err = client_credentials(&reqwest::Client::new(), &url, CLIENT_ID, &secret, &[])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("redirected"), "{err}");
}

#[tokio::test]
async fn odd_success_bodies_are_refused() {
    let (base, _) = serve(|b| device_reply(b, 600, 5), vec![issued_token()]).await;
    let secret = Secret::new(CLIENT_SECRET);
    let http = test_client();
    let err = client_credentials(&http, &format!("{base}/huge"), CLIENT_ID, &secret, &[])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("KiB"), "{err}");
    let err = client_credentials(&http, &format!("{base}/plain"), CLIENT_ID, &secret, &[])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("not a JSON object"), "{err}");
}

#[test]
fn error_excerpts_mask_echoed_secrets() {
    let err = interpret(
        "token endpoint",
        StatusCode::INTERNAL_SERVER_ERROR,
        None,
        b"crash while handling client_secret=s:cret+1",
        &[CLIENT_SECRET],
    )
    .unwrap_err();
    assert!(!err.to_string().contains(CLIENT_SECRET), "{err}");
    assert!(err.to_string().contains("***"), "{err}");
}

#[test]
fn token_fields_are_checked_without_echoing_values() {
    let obj = serde_json::json!({"access_token": 12345, "token_type": "Bearer"});
    let err = token_from(obj.as_object().unwrap()).unwrap_err();
    assert!(err.to_string().contains("access_token"));
    assert!(!err.to_string().contains("12345"));

    let obj = serde_json::json!({"access_token": "t"});
    let token = token_from(obj.as_object().unwrap()).unwrap();
    assert_eq!(
        token.token_type, "Bearer",
        "a missing token_type is taken as Bearer"
    );

    let obj = serde_json::json!({"access_token": "t", "token_type": "DPoP"});
    let err = token_from(obj.as_object().unwrap())
        .unwrap()
        .bearer()
        .unwrap_err();
    assert!(matches!(err, OAuthError::UnsupportedTokenType(_)));
}

#[test]
fn basic_auth_form_encodes_id_and_secret() {
    let header = basic_auth("a b", &Secret::new("p:w"));
    let expected = base64::engine::general_purpose::STANDARD.encode("a+b:p%3Aw");
    assert_eq!(header.expose(), format!("Basic {expected}"));
}

#[test]
fn flows_in_card_lists_device_and_client_credentials() {
    let card: AgentCard = serde_json::from_value(serde_json::json!({
        "name": "x", "description": "", "version": "1",
        "supportedInterfaces": [{"url": "https://agent.example/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": [],
        "securitySchemes": {
            "dev": {"oauth2SecurityScheme": {"flows": {"deviceCode": {
                "deviceAuthorizationUrl": "https://auth.example/device",
                "tokenUrl": "https://auth.example/token",
                "scopes": {"write": "Write", "read": "Read", "bad scope": "has a space"}}}}},
            "machine\u{1b}[31m": {"oauth2SecurityScheme": {"flows": {"clientCredentials": {
                "tokenUrl": "https://auth.example/token", "scopes": {}}}}},
            "code": {"oauth2SecurityScheme": {"flows": {"authorizationCode": {
                "authorizationUrl": "https://auth.example/authorize",
                "tokenUrl": "https://auth.example/token", "scopes": {}}}}},
            "evil": {"oauth2SecurityScheme": {"flows": {"clientCredentials": {
                "tokenUrl": "javascript:alert(1)", "scopes": {}}}}},
            "key": {"apiKeySecurityScheme": {"location": "header", "name": "X-API-Key"}}
        }
    }))
    .unwrap();
    let flows = flows_in_card(&card);
    assert_eq!(
        flows,
        vec![
            (
                "dev".to_string(),
                FlowKind::DeviceCode {
                    device_authorization_url: "https://auth.example/device".into(),
                    token_url: "https://auth.example/token".into(),
                },
                scopes(&["read", "write"]),
            ),
            (
                "machine␛".to_string(),
                FlowKind::ClientCredentials {
                    token_url: "https://auth.example/token".into(),
                },
                Vec::new(),
            ),
        ]
    );
}

#[test]
fn flows_in_card_without_schemes_is_empty() {
    let card: AgentCard = serde_json::from_value(serde_json::json!({
        "name": "x", "description": "", "version": "1",
        "supportedInterfaces": [{"url": "https://agent.example/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": []
    }))
    .unwrap();
    assert!(flows_in_card(&card).is_empty());
}
