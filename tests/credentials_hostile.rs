//! Credentials stay where the user put them (issue [5], findings 1–3 and the OAuth half of 10), against small
//! scripted servers of ours on 127.0.0.1: a card whose interface is on another origin, a card that redirects
//! off-origin or to a link-local address, a JSON-RPC endpoint that answers 302, an API key in the query string
//! that an error would quote, and an OAuth 2.0 client-credentials card. Every server records the requests it
//! gets, so "nothing was sent there" is asserted, not assumed. No test connects anywhere but 127.0.0.1: the
//! link-local redirect is refused before any connection is made.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_console::config::{AuthConfig, AuthKind};
use a2a_console::remote::card::CardFetcher;
use a2a_console::remote::connect::agent::{AgentTarget, connect};
use a2a_console::remote::http::http_client;
use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::any;

/// One request a server received: path (with query) and headers.
#[derive(Clone, Debug)]
struct Seen {
    path: String,
    headers: HeaderMap,
}

type Log = Arc<Mutex<Vec<Seen>>>;
type Handler = Arc<dyn Fn(&str, &str) -> Response + Send + Sync>;

#[derive(Clone)]
struct Srv {
    log: Log,
    handler: Handler,
    base: String,
}

/// A server on 127.0.0.1 that records every request and answers with `handler(base, path)`.
async fn server(handler: impl Fn(&str, &str) -> Response + Send + Sync + 'static) -> (String, Log) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let log: Log = Arc::default();
    let state = Srv {
        log: log.clone(),
        handler: Arc::new(handler),
        base: base.clone(),
    };
    let app = Router::new()
        .fallback(any(
            |State(s): State<Srv>, uri: Uri, headers: HeaderMap, _body: Bytes| async move {
                let path = uri
                    .path_and_query()
                    .map(|p| p.to_string())
                    .unwrap_or_default();
                s.log.lock().unwrap().push(Seen {
                    path: path.clone(),
                    headers,
                });
                (s.handler)(&s.base, &path)
            },
        ))
        .with_state(state);
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (base, log)
}

fn card(rpc_url: &str, extra: serde_json::Value) -> String {
    let mut c = serde_json::json!({
        "name": "hostile", "description": "d", "version": "1",
        "supportedInterfaces": [{"url": rpc_url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": false}, "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"], "skills": []
    });
    if let (Some(obj), Some(more)) = (c.as_object_mut(), extra.as_object()) {
        for (k, v) in more {
            obj.insert(k.clone(), v.clone());
        }
    }
    c.to_string()
}

fn json(body: String) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn redirect(to: &str) -> Response {
    (StatusCode::FOUND, [(header::LOCATION, to.to_string())]).into_response()
}

/// A JSON-RPC reply to `SendMessage`: a completed task.
fn rpc_task() -> Response {
    json(
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"task": {"id": "t1", "contextId": "c1",
            "status": {"state": "TASK_STATE_COMPLETED"}}}})
        .to_string(),
    )
}

/// A target with a bearer token (from `token_cmd`: setting environment variables is unsafe in tests that run
/// in parallel).
fn bearer_target(url: &str, token: &str) -> AgentTarget {
    let mut t = AgentTarget::from_url(url, Duration::from_secs(5));
    t.label = "victim".into();
    t.auth = Some(AuthConfig {
        kind: AuthKind::Bearer,
        token_cmd: Some(format!("printf %s {token}")),
        ..AuthConfig::new(AuthKind::Bearer)
    });
    t
}

async fn try_connect(
    t: &AgentTarget,
) -> Result<a2a_console::remote::connect::agent::Connected, String> {
    let http = http_client(Duration::from_secs(5)).unwrap();
    let fetcher = CardFetcher::new(Duration::from_secs(5)).unwrap();
    connect(t, &http, &fetcher).await.map_err(|e| e.message)
}

/// Send one message on the connection (what the console does when the user presses Enter).
async fn say(
    conn: &a2a_console::remote::connect::agent::Connected,
    text: &str,
) -> Result<a2a::SendMessageResponse, a2a::A2AError> {
    conn.client
        .send_message(&a2a::SendMessageRequest {
            message: a2a::Message::new(a2a::Role::User, vec![a2a::Part::text(text)]),
            configuration: None,
            metadata: None,
            tenant: None,
        })
        .await
}

fn carried(log: &Log, secret: &str) -> bool {
    log.lock().unwrap().iter().any(|s| {
        s.path.contains(secret)
            || s.headers
                .values()
                .any(|v| v.to_str().is_ok_and(|v| v.contains(secret)))
    })
}

#[tokio::test]
async fn a_card_interface_on_another_origin_gets_no_credential_until_allowed() {
    // The other agent, whose URL the hostile card lists as its own interface.
    let (other, other_log) = server(|_, _| rpc_task()).await;
    let rpc = format!("{other}/jsonrpc");
    let (hostile, _) = server(move |_, _| json(card(&rpc, serde_json::json!({})))).await;
    let t = bearer_target(&hostile, "token-for-the-hostile-agent");
    let err = match try_connect(&t).await {
        Ok(_) => panic!("connected with a credential bound for another origin"),
        Err(e) => e,
    };
    assert!(err.contains(&other) && err.contains(&hostile), "{err}");
    assert!(err.contains("allowed_origins"), "{err}");
    assert!(!carried(&other_log, "token-for-the-hostile-agent"));
    assert!(
        other_log.lock().unwrap().is_empty(),
        "nothing at all went to the other origin"
    );

    // The user says yes for that origin: now it is used, with the credential.
    let mut allowed = t.clone();
    allowed.allowed_origins = vec![other.clone()];
    let conn = try_connect(&allowed).await.unwrap();
    let reply = say(&conn, "hi").await;
    assert!(reply.is_ok(), "{reply:?}");
    assert!(carried(&other_log, "token-for-the-hostile-agent"));
}

/// Issue 9, item 4: even with no credential, the card does not choose where the console connects (blind SSRF):
/// the interface elsewhere is used only once the user allows its origin.
#[tokio::test]
async fn an_agent_without_credentials_uses_an_interface_elsewhere_only_when_allowed() {
    let (other, other_log) = server(|_, _| rpc_task()).await;
    let rpc = format!("{other}/jsonrpc");
    let (plain, _) = server(move |_, _| json(card(&rpc, serde_json::json!({})))).await;
    let t = AgentTarget::from_url(&plain, Duration::from_secs(5));
    let err = match try_connect(&t).await {
        Ok(_) => panic!("connected to another origin nobody allowed"),
        Err(e) => e,
    };
    assert!(err.contains(&format!("--allow-origin {other}")), "{err}");
    assert!(other_log.lock().unwrap().is_empty(), "nothing went there");
    let mut allowed = t.clone();
    allowed.allowed_origins = vec![other.clone()];
    let conn = try_connect(&allowed).await.unwrap();
    assert!(conn.selected.interface.url.starts_with(&other));
}

#[tokio::test]
async fn a_card_redirect_to_another_origin_is_refused_and_never_carries_headers() {
    let (elsewhere, elsewhere_log) =
        server(|base, _| json(card(&format!("{base}/jsonrpc"), serde_json::json!({})))).await;
    let target_card = format!("{elsewhere}/.well-known/agent-card.json");
    let (mover, _) = server(move |_, _| redirect(&target_card)).await;
    let mut t = bearer_target(&mover, "token-that-must-stay-home");
    t.headers = BTreeMap::from([
        (
            "X-API-Key".to_string(),
            "static-key-that-must-stay".to_string(),
        ),
        ("X-Tenant".to_string(), "tenant-7".to_string()),
    ]);
    let err = match try_connect(&t).await {
        Ok(_) => panic!("followed a redirect to another origin"),
        Err(e) => e,
    };
    assert!(
        err.contains("redirects to") && err.contains(&elsewhere),
        "{err}"
    );
    assert!(
        elsewhere_log.lock().unwrap().is_empty(),
        "refused before connecting"
    );

    // Allowed: the card is read there, but no configured header or credential goes along; and the agent's
    // interface there then needs the same permission, which it has.
    t.allowed_origins = vec![elsewhere.clone()];
    try_connect(&t).await.unwrap();
    let seen = elsewhere_log.lock().unwrap().clone();
    let card_request = seen
        .iter()
        .find(|s| s.path.contains("agent-card"))
        .expect("the card was fetched");
    for h in ["authorization", "x-api-key", "x-tenant"] {
        assert!(
            card_request.headers.get(h).is_none(),
            "{h} was forwarded across origins"
        );
    }
}

#[tokio::test]
async fn a_card_redirect_to_a_link_local_address_is_refused_before_any_connection() {
    let (mover, _) =
        server(|_, _| redirect("http://169.254.169.254/latest/meta-data/agent-card.json")).await;
    let mut t = AgentTarget::from_url(&mover, Duration::from_secs(5));
    // Even an origin the user allowed: link-local is never followed.
    t.allowed_origins = vec!["http://169.254.169.254".into()];
    let started = std::time::Instant::now();
    let err = match try_connect(&t).await {
        Ok(_) => panic!("followed a redirect to a link-local address"),
        Err(e) => e,
    };
    assert!(
        err.contains("link-local") && err.contains("169.254.169.254"),
        "{err}"
    );
    // Refused from the Location alone: no connection attempt (which would take the connect timeout).
    assert!(started.elapsed() < Duration::from_secs(2));
}

#[tokio::test]
async fn a_redirected_json_rpc_call_is_not_followed_and_names_the_location() {
    let (thief, thief_log) = server(|_, _| rpc_task()).await;
    let steal = format!("{thief}/collect");
    let (agent, _) = server(move |base, path| {
        if path.contains("agent-card") {
            json(card(&format!("{base}/jsonrpc"), serde_json::json!({})))
        } else {
            (
                StatusCode::TEMPORARY_REDIRECT,
                [(header::LOCATION, steal.clone())],
            )
                .into_response()
        }
    })
    .await;
    let t = bearer_target(&agent, "token-not-for-the-thief");
    let conn = try_connect(&t).await.unwrap();
    let err = say(&conn, "secret body")
        .await
        .expect_err("a redirect is not a reply");
    let shown = a2a_console::remote::error::classify(&err).message;
    assert!(
        shown.contains("HTTP 307") && shown.contains(&thief),
        "{shown}"
    );
    assert!(
        thief_log.lock().unwrap().is_empty(),
        "the call was not re-sent to the Location"
    );
}

#[tokio::test]
async fn an_api_key_in_the_query_string_is_redacted_from_errors() {
    // The interface accepts the connection and hangs up: reqwest's error quotes the URL, key and all.
    let dead = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let dead_url = format!("http://{}", dead.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((sock, _)) = dead.accept().await {
            drop(sock);
        }
    });
    let rpc = format!("{dead_url}/jsonrpc");
    let (agent, _) = server(move |_, _| json(card(&rpc, serde_json::json!({})))).await;
    let mut t = AgentTarget::from_url(&agent, Duration::from_secs(5));
    t.allowed_origins = vec![dead_url.clone()];
    t.auth = Some(AuthConfig {
        kind: AuthKind::ApiKey,
        token_cmd: Some("printf %s query-key-SECRET-1234".into()),
        location: Some("query".into()),
        name: Some("key".into()),
        ..AuthConfig::new(AuthKind::ApiKey)
    });
    let conn = try_connect(&t).await.unwrap();
    let err = say(&conn, "hi").await.expect_err("the interface hangs up");
    let shown = a2a_console::remote::error::classify(&err).message;
    assert!(!shown.contains("query-key-SECRET-1234"), "{shown}");
    assert!(
        shown.contains(a2a_console::trust::redact::REDACTED),
        "{shown}"
    );
}

fn oauth_card(base: &str, token_url: &str) -> String {
    card(
        &format!("{base}/jsonrpc"),
        serde_json::json!({
            "securitySchemes": {"machine": {"oauth2SecurityScheme": {"flows": {"clientCredentials": {
                "tokenUrl": token_url, "scopes": {"tasks": "run tasks"}}}}}},
            "securityRequirements": [{"schemes": {"machine": {"list": ["tasks"]}}}]
        }),
    )
}

#[tokio::test]
async fn oauth_client_credentials_waits_for_the_card_and_keeps_the_secret_on_its_origin() {
    let (agent, log) = server(|base, path| {
        if path.contains("agent-card") {
            json(oauth_card(base, &format!("{base}/token")))
        } else if path.starts_with("/token") {
            json(r#"{"access_token":"issued-access-token-42","token_type":"Bearer","expires_in":300}"#.into())
        } else {
            rpc_task()
        }
    })
    .await;
    let mut t = AgentTarget::from_url(&agent, Duration::from_secs(5));
    t.auth = Some(AuthConfig {
        kind: AuthKind::Oauth2,
        token_cmd: Some("printf %s client-secret-value-9".into()),
        client_id: Some("console".into()),
        ..AuthConfig::new(AuthKind::Oauth2)
    });
    let conn = try_connect(&t).await.unwrap();
    say(&conn, "hi").await.unwrap();
    let seen = log.lock().unwrap().clone();
    let call = seen
        .iter()
        .find(|s| s.path.starts_with("/jsonrpc"))
        .expect("the call");
    assert_eq!(
        call.headers
            .get("authorization")
            .and_then(|v| v.to_str().ok()),
        Some("Bearer issued-access-token-42")
    );

    // A card naming a token endpoint on another origin does not get the client secret.
    let (collector, collector_log) = server(|_, _| json("{}".into())).await;
    let token_url = format!("{collector}/token");
    let (hostile, _) = server(move |base, _| json(oauth_card(base, &token_url))).await;
    let mut h = t.clone();
    h.url = hostile.clone();
    let err = match try_connect(&h).await {
        Ok(_) => panic!("sent the client secret to another origin"),
        Err(e) => e,
    };
    assert!(
        err.contains("token endpoint") && err.contains(&collector),
        "{err}"
    );
    assert!(collector_log.lock().unwrap().is_empty());
}
