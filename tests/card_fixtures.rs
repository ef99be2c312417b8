//! Every agent card can be looked at: a dozen hand-written cards in the shapes seen in the wild
//! (`tests/fixtures/cards/`), each served from 127.0.0.1 and read by the real binary (`card URL`). Asserted is
//! what the user sees: the exit code, the shape label, the "card only" verdict and the specific warnings; and
//! that the public card is read without the agent's credential.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use common::{assert_terminal_safe, cli, cli_env, js_peer_with, py03_peer, py10_peer_with, repo};

fn fixtures() -> PathBuf {
    repo().join("tests/fixtures/cards")
}

/// Requests the fixture server saw: (path, Authorization header).
type Seen = Arc<Mutex<Vec<(String, Option<String>)>>>;

#[derive(Clone)]
struct Srv {
    base: String,
    seen: Seen,
}

/// `GET /{name}/.well-known/agent-card.json` serves `tests/fixtures/cards/{name}.json` (or `.html`) with
/// `{{BASE}}` replaced by `http://127.0.0.1:PORT/{name}`. `/locked/...` serves the v0.2.5 card only to
/// `Authorization: Bearer let-me-in` and answers 401 otherwise.
fn serve_fixtures() -> (String, Seen) {
    let seen: Seen = Arc::default();
    let (tx, rx) = std::sync::mpsc::channel();
    let log = seen.clone();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let base = format!("http://{}", listener.local_addr().unwrap());
            let app = Router::new()
                .route("/{name}/.well-known/agent-card.json", get(card))
                .with_state(Srv {
                    base: base.clone(),
                    seen: log,
                });
            tx.send(base).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    (rx.recv().unwrap(), seen)
}

async fn card(State(s): State<Srv>, Path(name): Path<String>, headers: HeaderMap) -> Response {
    let auth = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    s.seen.lock().unwrap().push((name.clone(), auth.clone()));
    let (file, locked) = match name.as_str() {
        "locked" => ("v0_2_5".to_string(), true),
        other => (other.to_string(), false),
    };
    if locked && auth.as_deref() != Some("Bearer let-me-in") {
        return (StatusCode::UNAUTHORIZED, "no").into_response();
    }
    let base = format!("{}/{name}", s.base);
    for (ext, ct) in [("json", "application/json"), ("html", "text/html")] {
        if let Ok(text) = std::fs::read_to_string(fixtures().join(format!("{file}.{ext}"))) {
            return (
                [(header::CONTENT_TYPE, ct)],
                text.replace("{{BASE}}", &base),
            )
                .into_response();
        }
    }
    StatusCode::NOT_FOUND.into_response()
}

/// What `card` must show for one fixture.
struct Case {
    fixture: &'static str,
    code: i32,
    /// The shape label on the first line, `(… shape)`; `None` when there is no card to label.
    shape: Option<&'static str>,
    card_only: bool,
    /// Text that must appear (stdout + stderr).
    says: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        fixture: "spec_v030_sample_0_2_9",
        code: 0,
        shape: Some("v0.3"),
        card_only: false,
        says: &[
            "▶ JSONRPC   0.2.9",
            "protocol \"0.2.9\" is spoken as 0.3: same JSON-RPC wire",
            "protocol \"0.2.9\" over GRPC is not supported",
            "protocol \"0.2.9\" over HTTP+JSON is not supported",
            "google: OpenID Connect",
            "requires:    google [openid profile email]",
        ],
    },
    Case {
        fixture: "v0_2_5",
        code: 0,
        shape: Some("v0.3"),
        card_only: false,
        says: &[
            "▶ JSONRPC   0.2.5",
            "protocol \"0.2.5\" is spoken as 0.3",
            "apikey: API key in header \"X-Invoice-Key\"",
        ],
    },
    Case {
        fixture: "v0_1_capabilities_only",
        code: 0,
        shape: Some("undetermined"),
        card_only: true,
        says: &[
            "usable:      no, card only",
            "no interface we can use: the card lists none",
            "the card lists no interfaces",
            "none listed",
            "defaultInputModes: is required but missing",
            "Forecast (forecast)",
        ],
    },
    Case {
        fixture: "v0_1_authentication",
        code: 0,
        shape: Some("v0.1"),
        card_only: true,
        says: &[
            "an A2A 0.1 card",
            "protocol version \"0.1\" is not one the console speaks",
            "(not used: protocol version not spoken)",
        ],
    },
    Case {
        fixture: "v1_minimal_no_interfaces",
        code: 0,
        shape: Some("undetermined"),
        card_only: true,
        says: &["the card lists no interfaces", "none listed"],
    },
    Case {
        fixture: "only_http_json_0_3",
        code: 0,
        shape: Some("v0.3"),
        // Spoken through `wire::v03_rest` (the Python SDK 0.3.x REST server's wire).
        card_only: false,
        says: &["▶ HTTP+JSON 0.3.0"],
    },
    Case {
        fixture: "custom_binding_only",
        code: 0,
        shape: Some("v1.0"),
        card_only: true,
        says: &[
            "binding \"SLIMRPC\" is not one the console speaks",
            "(not used: unknown binding)",
            "SLIMRPC 1.0 at",
        ],
    },
    Case {
        fixture: "js_sdk_1_3_0_versionless",
        code: 0,
        shape: Some("v0.3"),
        card_only: false,
        says: &[
            "▶ JSONRPC   1.0",
            "a v0.3 card that also lists v1.0 interfaces",
            "bearer: HTTP Bearer",
            "extended card yes",
        ],
    },
    Case {
        fixture: "js_sdk_raw_internal_schemes",
        code: 0,
        shape: Some("v1.0"),
        card_only: false,
        says: &["bearer: HTTP Bearer", "@a2a-js/sdk internal shape"],
    },
    Case {
        fixture: "py_sdk_with_v03_hybrid",
        code: 0,
        shape: Some("v1.0 + v0.3 (hybrid)"),
        card_only: false,
        says: &[
            "▶ JSONRPC   1.0",
            "JSONRPC   0.3",
            "HTTP+JSON 0.3",
            "bearer: HTTP Bearer",
        ],
    },
    Case {
        fixture: "wrong_types",
        code: 0,
        shape: Some("v1.0"),
        card_only: false,
        says: &[
            "name:        1337",
            "▶ JSONRPC",
            "description: should be a string, found an array",
            "supportedInterfaces: should be a list, found an object; read as a one-item list",
            "\"jsonrpc\" should be spelled JSONRPC",
            "securitySchemes: is not an object; ignored",
            "skills[0].tags: should be a list, found a string; read as a one-item list",
            "skills[1]: is not an object; ignored",
        ],
    },
    Case {
        fixture: "hostile_text",
        code: 0,
        shape: Some("v1.0"),
        card_only: true,
        says: &["⚠ flagged", "is not one the console speaks", "…\""],
    },
    Case {
        fixture: "package",
        code: 3,
        shape: None,
        card_only: false,
        says: &["is JSON but not an agent card", "\"scripts\""],
    },
    Case {
        fixture: "login_page",
        code: 3,
        shape: None,
        card_only: false,
        says: &["is HTML, not JSON"],
    },
];

#[test]
fn every_fixture_card_is_shown_with_its_shape_and_warnings() {
    let (base, _) = serve_fixtures();
    let mut failures = Vec::new();
    for case in CASES {
        let url = format!("{base}/{}", case.fixture);
        let r = cli(&["card", &url]);
        let all = r.all();
        assert_terminal_safe(&all);
        let mut wrong = Vec::new();
        if r.code != case.code {
            wrong.push(format!("exit {} (wanted {})", r.code, case.code));
        }
        if let Some(shape) = case.shape {
            let first = r.stdout.lines().next().unwrap_or_default();
            if !first.ends_with(&format!("({shape} shape)")) {
                wrong.push(format!("first line {first:?} (wanted shape {shape})"));
            }
        }
        if case.card_only != all.contains("card only") {
            wrong.push(format!("card only shown: {}", !case.card_only));
        }
        for needle in case.says {
            if !all.contains(needle) {
                wrong.push(format!("missing {needle:?}"));
            }
        }
        if !wrong.is_empty() {
            failures.push(format!("{}: {}\n{all}", case.fixture, wrong.join("; ")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn hostile_card_text_is_cut_and_never_reaches_the_terminal_raw() {
    let (base, _) = serve_fixtures();
    let r = cli(&["card", &format!("{base}/hostile_text")]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert_terminal_safe(&r.all());
    // Warnings quote at most 60 characters of a 5000-character binding.
    let warn = r
        .stdout
        .lines()
        .find(|l| l.contains("binding \"BBBB"))
        .expect("the unknown binding is named");
    assert!(warn.chars().count() < 300, "{warn}");
    assert!(
        r.stdout.contains('␛'),
        "escape sequences are shown as markers"
    );
}

/// A config file with one agent, `name = "partner"`, at `url`, whose bearer token comes from `$var`.
fn config_with_bearer(url: &str, var: &str) -> tempfile::NamedTempFile {
    let f = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        f.path(),
        format!("[[agents]]\nname = \"partner\"\nurl = \"{url}\"\n[agents.auth]\ntype = \"bearer\"\ntoken_env = \"{var}\"\n"),
    )
    .unwrap();
    f
}

#[test]
fn the_public_card_needs_no_credential() {
    let (base, seen) = serve_fixtures();
    let cfg = config_with_bearer(
        &format!("{base}/v0_2_5"),
        "A2A_CONSOLE_TEST_TOKEN_NEVER_SET",
    );
    let path = cfg.path().to_str().unwrap();
    let r = cli_env(&["card", "--config", path, "partner"], &[]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("Invoice Reader"), "{}", r.stdout);
    assert!(
        r.stdout.contains("▶ JSONRPC"),
        "the interface is still chosen: {}",
        r.stdout
    );
    // With the token set, the public card still goes without it.
    let r = cli_env(
        &["card", "--config", path, "partner"],
        &[("A2A_CONSOLE_TEST_TOKEN_NEVER_SET", "s3cret")],
    );
    assert_eq!(r.code, 0, "{}", r.all());
    let seen = seen.lock().unwrap().clone();
    assert!(!seen.is_empty());
    assert!(
        seen.iter().all(|(_, auth)| auth.is_none()),
        "the public card was fetched with a credential: {seen:?}"
    );
}

#[test]
fn a_card_behind_401_is_fetched_again_with_the_credential() {
    let (base, seen) = serve_fixtures();
    let cfg = config_with_bearer(&format!("{base}/locked"), "A2A_CONSOLE_TEST_LOCKED");
    let path = cfg.path().to_str().unwrap();
    let r = cli_env(
        &["card", "--config", path, "partner"],
        &[("A2A_CONSOLE_TEST_LOCKED", "let-me-in")],
    );
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("Invoice Reader"), "{}", r.stdout);
    let auths: Vec<Option<String>> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|(_, a)| a.clone())
        .collect();
    assert_eq!(
        auths,
        vec![None, Some("Bearer let-me-in".to_string())],
        "first without, then with the credential"
    );
    // Without the token the 401 is what the user learns about.
    let r = cli_env(&["card", "--config", path, "partner"], &[]);
    assert_ne!(r.code, 0, "{}", r.all());
    assert!(
        r.stderr.contains("the card needs a credential"),
        "{}",
        r.stderr
    );
}

#[test]
fn sending_to_a_card_only_agent_says_why() {
    let (base, _) = serve_fixtures();
    let r = cli(&["send", &format!("{base}/custom_binding_only"), "hello"]);
    assert_eq!(r.code, 2, "{}", r.all());
    assert!(r.stderr.contains("no interface we can use"), "{}", r.stderr);
    assert!(r.stderr.contains("SLIMRPC 1.0 at"), "{}", r.stderr);
    assert!(r.stderr.contains("(unknown binding)"), "{}", r.stderr);
}

/// The official SDK peers with their 0.3 compatibility on: the card we are served (we ask with
/// `A2A-Version: 1.0`) is labelled by what it is, its bearer scheme is read, and 1.0 is chosen.
#[test]
fn sdk_peers_with_v03_are_labelled_by_their_shape() {
    for (peer, shape) in [
        (js_peer_with(&["--with-v03"]), "v1.0"),
        (py10_peer_with(&["--with-v03"]), "v1.0 + v0.3 (hybrid)"),
    ] {
        let r = cli(&["card", &peer.url]);
        assert_eq!(r.code, 0, "{}", r.all());
        let first = r.stdout.lines().next().unwrap_or_default();
        assert!(first.ends_with(&format!("({shape} shape)")), "{first}");
        assert!(r.stdout.contains("bearer: HTTP Bearer"), "{}", r.stdout);
        assert!(r.stdout.contains("▶ JSONRPC   1.0"), "{}", r.stdout);
        assert!(!r.stdout.contains("not used"), "{}", r.stdout);
        assert!(!r.all().contains("card only"), "{}", r.all());
    }
}

/// Serve one fixed card at `/.well-known/agent-card.json` on 127.0.0.1; returns the base URL.
fn serve_card(card: String) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(format!("http://{}", listener.local_addr().unwrap()))
                .unwrap();
            let app = Router::new().route(
                "/.well-known/agent-card.json",
                get(move || {
                    let card = card.clone();
                    async move { ([(header::CONTENT_TYPE, "application/json")], card) }
                }),
            );
            axum::serve(listener, app).await.unwrap();
        });
    });
    rx.recv().unwrap()
}

/// A 0.2.9 card whose endpoint is a real 0.3 server (the Python SDK 0.3 peer): the console selects it, says it
/// speaks 0.3, and a message goes through the same JSON-RPC wire.
#[test]
fn a_0_2_9_card_is_spoken_to_as_0_3() {
    let peer = py03_peer();
    let card = serde_json::json!({
        "protocolVersion": "0.2.9",
        "name": "Old partner", "description": "speaks 0.2.9", "version": "1.0.0",
        "url": format!("{}/a2a/jsonrpc", peer.url), "preferredTransport": "JSONRPC",
        "capabilities": {"streaming": true}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "Echo", "description": "echo", "tags": []}]
    });
    let base = serve_card(card.to_string());
    let r = cli(&["card", &base]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(
        r.stdout.contains("protocol \"0.2.9\" is spoken as 0.3"),
        "{}",
        r.stdout
    );
    // The card (served here) names the peer's endpoint, another origin: used once the user allows it.
    let r = cli(&["send", &base, "echo from 0.2.9"]);
    assert_eq!(r.code, 2, "{}", r.all());
    assert!(r.stderr.contains("--allow-origin"), "{}", r.stderr);
    let r = cli(&[
        "send",
        &base,
        "echo from 0.2.9",
        "--allow-origin",
        &peer.url,
    ]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("echo: echo from 0.2.9"), "{}", r.stdout);
}
