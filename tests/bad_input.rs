//! Every kind of bad input from the issue, served by a deliberately broken HTTP server on 127.0.0.1, against
//! the real binary: each must end in a one-line error naming the agent and the problem, with the documented
//! exit code, and never a panic or a hang.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::convert::Infallible;
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::http::{StatusCode, header};
use axum::response::Response;
use axum::routing::{any, get};
use common::{assert_terminal_safe, cli};

/// What the broken agent does.
#[derive(Clone, Copy)]
enum Fault {
    CardHtml,
    CardEmpty,
    CardTruncated,
    CardHuge,
    CardStatus(u16),
    RpcError,
    RpcHttp500,
    UnknownPartKind,
    SseTricky,
    SseGarbageThenDone,
    SseDrop,
    SseStaysOpenInterrupted,
    SseUnknownState,
}

fn card_json(base: &str) -> String {
    serde_json::json!({
        "name": "Broken agent", "description": "serves faults", "version": "1",
        "supportedInterfaces": [{"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": []
    })
    .to_string()
}

fn frame(result: serde_json::Value) -> String {
    a2a_console::testing::sse_frame_crlf(result)
}

fn status(state: &str) -> serde_json::Value {
    a2a_console::testing::status_json("t1", "c1", state, None)
}

fn task(state: &str) -> serde_json::Value {
    serde_json::json!({"task": {"id": "t1", "contextId": "c1", "status": {"state": state}}})
}

/// A body made of chunks sent with pauses, optionally left open at the end.
fn chunked(chunks: Vec<String>, stay_open: bool) -> Body {
    let stream = async_stream(chunks, stay_open);
    Body::from_stream(stream)
}

fn async_stream(
    chunks: Vec<String>,
    stay_open: bool,
) -> impl futures::Stream<Item = Result<Bytes, Infallible>> {
    futures::stream::unfold(
        (chunks.into_iter(), stay_open),
        |(mut it, open)| async move {
            tokio::time::sleep(Duration::from_millis(30)).await;
            match it.next() {
                Some(c) => Some((Ok(Bytes::from(c)), (it, open))),
                None if open => {
                    tokio::time::sleep(Duration::from_secs(120)).await;
                    None
                }
                None => None,
            }
        },
    )
}

fn sse(chunks: Vec<String>, stay_open: bool) -> Response {
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .body(chunked(chunks, stay_open))
        .unwrap()
}

fn rpc_response(fault: Fault) -> Response {
    let json = |v: serde_json::Value| {
        Response::builder()
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(v.to_string()))
            .unwrap()
    };
    match fault {
        Fault::RpcError => json(serde_json::json!({"jsonrpc": "2.0", "id": "1",
            "error": {"code": -32001, "message": "Task not found: nope"}})),
        Fault::RpcHttp500 => Response::builder()
            .status(500)
            .header(header::CONTENT_TYPE, "text/html")
            .body(Body::from(
                "<html><body>Internal Server Error</body></html>",
            ))
            .unwrap(),
        Fault::UnknownPartKind => json(
            serde_json::json!({"jsonrpc": "2.0", "id": "1", "result": {"task": {
            "id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_COMPLETED"},
            "artifacts": [{"artifactId": "a", "parts": [{"hologram": {"x": 1}}]}]}}}),
        ),
        Fault::SseTricky => {
            // CRLF endings, comment pings, and one frame split across three writes.
            let working = frame(status("TASK_STATE_WORKING"));
            let (a, b) = working.split_at(working.len() / 3);
            let (b, c) = b.split_at(b.len() / 2);
            let art = frame(
                serde_json::json!({"artifactUpdate": {"taskId": "t1", "contextId": "c1",
                "artifact": {"artifactId": "a1", "parts": [{"text": "split-frame text arrived"}]}, "lastChunk": true}}),
            );
            sse(
                vec![
                    ": ping - 2026-11-30 00:00:00\r\n\r\n".into(),
                    frame(task("TASK_STATE_SUBMITTED")),
                    a.into(),
                    b.into(),
                    c.into(),
                    ": another comment\r\n".into(),
                    "\r\n".into(),
                    art,
                    frame(status("TASK_STATE_COMPLETED")),
                ],
                false,
            )
        }
        Fault::SseGarbageThenDone => sse(
            vec![
                frame(task("TASK_STATE_WORKING")),
                "data: {this is not json\r\n\r\n".into(),
                "data: \u{1b}[2J\u{1b}]52;c;ZXZpbA==\u{7}\r\n\r\n".into(),
                frame(status("TASK_STATE_COMPLETED")),
            ],
            false,
        ),
        Fault::SseDrop => sse(
            vec![
                frame(task("TASK_STATE_WORKING")),
                "data: {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"res".into(),
            ],
            false,
        ),
        Fault::SseStaysOpenInterrupted => sse(
            vec![
                frame(task("TASK_STATE_WORKING")),
                frame(status("TASK_STATE_INPUT_REQUIRED")),
            ],
            true,
        ),
        Fault::SseUnknownState => sse(
            vec![
                frame(task("TASK_STATE_WORKING")),
                frame(status("TASK_STATE_PONDERING")),
            ],
            false,
        ),
        _ => json(serde_json::json!({})),
    }
}

/// Start the broken agent on 127.0.0.1 in a background runtime; returns its base URL.
fn broken_agent(fault: Fault) -> String {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let base = format!("http://{}", listener.local_addr().unwrap());
            let card_base = base.clone();
            let card = move || {
                let base = card_base.clone();
                async move {
                    let ok = |body: Body, ct: &str| {
                        Response::builder()
                            .header(header::CONTENT_TYPE, ct)
                            .body(body)
                            .unwrap()
                    };
                    match fault {
                        Fault::CardHtml => ok(
                            Body::from("<!doctype html><html>Welcome</html>"),
                            "text/html",
                        ),
                        Fault::CardEmpty => ok(Body::empty(), "application/json"),
                        Fault::CardTruncated => {
                            let full = card_json(&base);
                            ok(
                                Body::from(full[..full.len() / 2].to_string()),
                                "application/json",
                            )
                        }
                        Fault::CardHuge => {
                            let big = format!("{{\"name\":\"{}\"}}", "x".repeat(5 * 1024 * 1024));
                            // No Content-Length (streamed), so the limit must hold while reading.
                            ok(
                                chunked(
                                    big.as_bytes()
                                        .chunks(64 * 1024)
                                        .map(|c| String::from_utf8_lossy(c).into_owned())
                                        .collect(),
                                    false,
                                ),
                                "application/json",
                            )
                        }
                        Fault::CardStatus(code) => Response::builder()
                            .status(StatusCode::from_u16(code).unwrap())
                            .body(Body::from("nope"))
                            .unwrap(),
                        _ => ok(Body::from(card_json(&base)), "application/json"),
                    }
                }
            };
            let app = Router::new()
                .route("/.well-known/agent-card.json", get(card.clone()))
                .route("/.well-known/agent.json", get(card))
                .route("/rpc", any(move || async move { rpc_response(fault) }));
            tx.send(base).unwrap();
            axum::serve(listener, app).await.unwrap();
        });
    });
    rx.recv_timeout(Duration::from_secs(10)).unwrap()
}

/// One line on stderr, naming the agent; nothing raw.
fn assert_one_line_error(r: &common::Run, agent: &str, needle: &str) {
    let lines: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| !l.contains("(continuing)"))
        .collect();
    assert_eq!(
        lines.len(),
        1,
        "expected one error line, got:\n{}",
        r.stderr
    );
    assert!(
        lines[0].contains(agent),
        "error does not name the agent {agent}: {}",
        lines[0]
    );
    assert!(
        lines[0].contains(needle),
        "error does not say {needle:?}: {}",
        lines[0]
    );
    assert!(!r.stderr.contains("panicked"), "{}", r.stderr);
    assert_terminal_safe(&r.all());
}

#[test]
fn unreachable_host_is_a_transport_error() {
    let r = cli(&["card", "http://127.0.0.1:1", "--timeout", "5"]);
    assert_eq!(r.code, 3, "{}", r.all());
    assert_one_line_error(&r, "http://127.0.0.1:1", "could not fetch the card");
}

#[test]
fn broken_cards_are_named_for_what_they_are() {
    for (fault, needle) in [
        (Fault::CardHtml, "is HTML, not JSON"),
        (Fault::CardEmpty, "is empty"),
        (Fault::CardTruncated, "is truncated JSON"),
        (Fault::CardHuge, "larger than the 1048576 byte limit"),
        (Fault::CardStatus(401), "HTTP 401 (unauthorized"),
        (Fault::CardStatus(403), "HTTP 403 (forbidden"),
        (Fault::CardStatus(404), "HTTP 404"),
        (Fault::CardStatus(500), "HTTP 500 (server error"),
    ] {
        let base = broken_agent(fault);
        let r = cli(&["card", &base]);
        assert_eq!(r.code, 3, "{needle}: {}", r.all());
        assert_one_line_error(&r, &base, needle);
    }
}

#[test]
fn json_rpc_error_object_reports_code_and_message() {
    let base = broken_agent(Fault::RpcError);
    let r = cli(&["get", &base, "nope"]);
    assert_eq!(r.code, 4, "{}", r.all());
    assert_one_line_error(&r, &base, "-32001");
    assert!(r.stderr.contains("Task not found: nope"), "{}", r.stderr);
}

#[test]
fn http_error_page_on_the_rpc_endpoint_is_a_transport_error() {
    let base = broken_agent(Fault::RpcHttp500);
    let r = cli(&["send", &base, "hi"]);
    assert_eq!(r.code, 3, "{}", r.all());
    // The status is named (the SDK's own transport said only "failed to parse JSON-RPC response").
    assert_one_line_error(
        &r,
        &base,
        "HTTP 500 Internal Server Error (text/html, 47 B)",
    );
}

#[test]
fn unknown_part_kind_is_named_not_silently_dropped() {
    // The SDK's JSON-RPC decoder drops a part of unknown kind; the task itself is fine, so exit 0, but the
    // user is told the artifact held something the console cannot show.
    let base = broken_agent(Fault::UnknownPartKind);
    let r = cli(&["send", &base, "hi"]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(
        r.stdout.contains("no parts this console can show"),
        "{}",
        r.stdout
    );
}

#[test]
fn sse_crlf_pings_and_split_frames_are_parsed() {
    let base = broken_agent(Fault::SseTricky);
    let r = cli(&["send", &base, "hi", "--stream"]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(
        r.stdout.contains("split-frame text arrived"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("final state: completed"), "{}", r.stdout);
}

#[test]
fn garbage_frames_are_reported_and_skipped() {
    let base = broken_agent(Fault::SseGarbageThenDone);
    let r = cli(&["send", &base, "hi", "--stream"]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(
        r.stderr
            .contains("a stream event is not valid A2A ProtoJSON"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.contains("final state: completed"), "{}", r.stdout);
    assert_terminal_safe(&r.all());
}

#[test]
fn connection_dropped_mid_stream_is_a_transport_error() {
    let base = broken_agent(Fault::SseDrop);
    let r = cli(&["send", &base, "hi", "--stream"]);
    assert_eq!(r.code, 3, "{}", r.all());
    assert!(
        r.stderr
            .contains("stream ended before the task finished (last state: working)"),
        "{}",
        r.stderr
    );
}

#[test]
fn stream_left_open_after_input_required_does_not_hang() {
    let base = broken_agent(Fault::SseStaysOpenInterrupted);
    let started = std::time::Instant::now();
    let r = cli(&["send", &base, "hi", "--stream"]);
    assert_eq!(r.code, 6, "{}", r.all());
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "waited for the server to close the stream"
    );
    assert!(r.stdout.contains("waiting for your answer"), "{}", r.stdout);
}

#[test]
fn unknown_state_is_a_clear_error() {
    let base = broken_agent(Fault::SseUnknownState);
    let r = cli(&["send", &base, "hi", "--stream"]);
    assert_eq!(r.code, 3, "{}", r.all());
    assert!(r.stderr.contains("TASK_STATE_PONDERING"), "{}", r.stderr);
}

#[test]
fn usage_errors_exit_2() {
    let r = cli(&["send", "no-such-agent", "hi"]);
    assert_eq!(r.code, 2, "{}", r.all());
    assert!(
        r.stderr.contains("neither a configured agent"),
        "{}",
        r.stderr
    );
    let r = cli(&["--binding", "SOAP", "card", "http://127.0.0.1:1"]);
    assert_eq!(r.code, 2, "{}", r.all());
    let r = cli(&["frobnicate"]);
    assert_eq!(r.code, 2, "{}", r.all());
}
