//! The wire's failures, each named: a scripted server on 127.0.0.1 writes exact bytes (statuses, pages,
//! redirects, streams that stall, break, run forever or send one giant event), and the real binary must end
//! with a one-line message that says what happened — never "failed to parse", never a hang.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{assert_terminal_safe, cli, cli_env};

/// What the agent's endpoint does with a call.
#[derive(Clone, Copy)]
enum Script {
    BadGateway,
    EmptyServerError,
    Redirect,
    /// One event, then silence with the connection open.
    OneEventThenSilence,
    /// An event every 200 ms, forever.
    Lively,
    /// One event, then half of the next, then the connection closes (no chunked framing: a clean EOF).
    CutMidEvent,
    /// Chunked: one event, then the connection drops without the last chunk.
    DropChunked,
    /// One event of about 2 MB.
    Giant,
    /// Accepts the call and never answers.
    NoHeaders,
    /// HTTP+JSON: a v1.0 error object with a 404.
    RestNotFound,
}

fn card(base: &str, binding: &str, path: &str) -> String {
    serde_json::json!({
        "name": "Scripted agent", "description": "writes exact bytes", "version": "1",
        "supportedInterfaces": [{"url": format!("{base}{path}"), "protocolBinding": binding, "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true}, "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"], "skills": []
    })
    .to_string()
}

const STATUS_EVENT: &str = r#"{"jsonrpc":"2.0","id":"1","result":{"statusUpdate":{"taskId":"t1","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}}"#;

fn read_request(stream: &mut TcpStream) -> Option<String> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let mut head = String::new();
    let mut len = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            len = v.trim().parse().unwrap_or(0);
        }
        head.push_str(&line);
        if line == "\r\n" {
            break;
        }
    }
    let mut body = vec![0u8; len];
    reader.read_exact(&mut body).ok()?;
    Some(head)
}

fn respond(stream: &mut TcpStream, status: &str, headers: &[(&str, &str)], body: &[u8]) {
    let mut out = format!("HTTP/1.1 {status}\r\ncontent-length: {}\r\n", body.len());
    for (k, v) in headers {
        out.push_str(&format!("{k}: {v}\r\n"));
    }
    out.push_str("\r\n");
    let _ = stream.write_all(out.as_bytes());
    let _ = stream.write_all(body);
}

fn sse_head(stream: &mut TcpStream, chunked: bool) {
    let framing = if chunked {
        "transfer-encoding: chunked\r\n"
    } else {
        "connection: close\r\n"
    };
    let _ = stream.write_all(
        format!("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n{framing}\r\n").as_bytes(),
    );
}

fn chunk(stream: &mut TcpStream, data: &str) -> std::io::Result<()> {
    stream.write_all(format!("{:x}\r\n{data}\r\n", data.len()).as_bytes())
}

fn serve_call(mut s: TcpStream, script: Script, base: &str) {
    match script {
        Script::BadGateway => {
            let page = format!(
                "<html><head><title>502 Bad Gateway</title></head><body>{}</body></html>",
                "<p>upstream unavailable</p>".repeat(42)
            );
            respond(
                &mut s,
                "502 Bad Gateway",
                &[("content-type", "text/html")],
                page.as_bytes(),
            );
        }
        Script::EmptyServerError => respond(&mut s, "500 Internal Server Error", &[], b""),
        Script::Redirect => respond(
            &mut s,
            "302 Found",
            &[("location", &format!("{base}/elsewhere"))],
            b"",
        ),
        Script::OneEventThenSilence => {
            sse_head(&mut s, true);
            let _ = chunk(&mut s, &format!("data: {STATUS_EVENT}\n\n"));
            std::thread::sleep(Duration::from_secs(60));
        }
        Script::Lively => {
            sse_head(&mut s, true);
            for _ in 0..600 {
                if chunk(&mut s, &format!("data: {STATUS_EVENT}\n\n")).is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(200));
            }
        }
        Script::CutMidEvent => {
            sse_head(&mut s, false);
            let half = &STATUS_EVENT[..STATUS_EVENT.len() / 2];
            let _ = s.write_all(format!("data: {STATUS_EVENT}\n\ndata: {half}").as_bytes());
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
        Script::DropChunked => {
            sse_head(&mut s, true);
            let _ = chunk(&mut s, &format!("data: {STATUS_EVENT}\n\n"));
            let _ = s.write_all(b"40\r\ndata: {\"jsonrpc\"");
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
        Script::Giant => {
            sse_head(&mut s, true);
            let text = "x".repeat(2 << 20);
            let ev = format!(
                r#"data: {{"jsonrpc":"2.0","id":"1","result":{{"artifactUpdate":{{"taskId":"t1","contextId":"c1","artifact":{{"artifactId":"a","parts":[{{"text":"{text}"}}]}}}}}}}}"#
            );
            for piece in ev.as_bytes().chunks(64 * 1024) {
                if chunk(&mut s, std::str::from_utf8(piece).unwrap()).is_err() {
                    return;
                }
            }
            let _ = chunk(&mut s, "\n\n");
            let _ = s.write_all(b"0\r\n\r\n");
        }
        Script::NoHeaders => std::thread::sleep(Duration::from_secs(60)),
        Script::RestNotFound => {
            let body = serde_json::json!({"error": {"code": 404, "status": "NOT_FOUND",
                "message": "Task not found: nope", "details": [{"@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "TASK_NOT_FOUND", "domain": "a2a-protocol.org"}]}});
            respond(
                &mut s,
                "404 Not Found",
                &[("content-type", "application/json")],
                body.to_string().as_bytes(),
            );
        }
    }
}

/// A scripted agent; returns its base URL and a count of requests to paths other than the card and the
/// endpoint (a followed redirect would show up there).
fn scripted(script: Script) -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let stray = Arc::new(AtomicUsize::new(0));
    let (b, st) = (base.clone(), stray.clone());
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(mut s) = conn else { continue };
            let (b, st) = (b.clone(), st.clone());
            std::thread::spawn(move || {
                let Some(head) = read_request(&mut s) else {
                    return;
                };
                let path = head.split_whitespace().nth(1).unwrap_or("").to_string();
                if path == "/.well-known/agent-card.json" {
                    let (binding, at) = match script {
                        Script::RestNotFound => ("HTTP+JSON", "/rest"),
                        _ => ("JSONRPC", "/rpc"),
                    };
                    respond(
                        &mut s,
                        "200 OK",
                        &[("content-type", "application/json")],
                        card(&b, binding, at).as_bytes(),
                    );
                } else if path.starts_with("/rpc") || path.starts_with("/rest") {
                    serve_call(s, script, &b);
                } else {
                    st.fetch_add(1, Ordering::SeqCst);
                    respond(&mut s, "404 Not Found", &[], b"");
                }
            });
        }
    });
    (base, stray)
}

/// The one line on stderr that is not a "(continuing)" note.
fn error_line(r: &common::Run) -> String {
    let lines: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| !l.contains("(continuing)"))
        .collect();
    assert_eq!(lines.len(), 1, "expected one error line:\n{}", r.all());
    assert_terminal_safe(&r.all());
    lines[0].to_string()
}

#[test]
fn a_502_page_is_named_with_its_type_and_size() {
    let (base, _) = scripted(Script::BadGateway);
    let r = cli(&["send", &base, "hi"]);
    assert_eq!(r.code, 3, "{}", r.all());
    let line = error_line(&r);
    assert!(
        line.contains("HTTP 502 Bad Gateway (text/html, 1.2 kB): 502 Bad Gateway"),
        "{line}"
    );
    assert!(!line.contains("failed to parse"), "{line}");
}

#[test]
fn an_empty_500_says_so() {
    let (base, _) = scripted(Script::EmptyServerError);
    let r = cli(&["send", &base, "hi", "--stream"]);
    assert_eq!(r.code, 3, "{}", r.all());
    assert!(
        error_line(&r).contains("HTTP 500 Internal Server Error (empty body)"),
        "{}",
        r.all()
    );
}

#[test]
fn a_redirect_is_named_and_not_followed() {
    let (base, stray) = scripted(Script::Redirect);
    let r = cli(&["send", &base, "hi"]);
    assert_eq!(r.code, 3, "{}", r.all());
    let line = error_line(&r);
    assert!(
        line.contains(&format!("HTTP 302 Found → {base}/elsewhere")),
        "{line}"
    );
    assert!(line.contains("follow no redirects"), "{line}");
    assert_eq!(stray.load(Ordering::SeqCst), 0, "the redirect was followed");
}

#[test]
fn timeout_bounds_a_silent_stream() {
    let (base, _) = scripted(Script::OneEventThenSilence);
    let started = Instant::now();
    let r = cli(&["send", &base, "hi", "--stream", "--timeout", "2"]);
    // The server would hold the stream for 60 s; the CLI gives up after 2 s of silence. The bound here only
    // tells a hang from a timeout, it measures nothing.
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(r.code, 3, "{}", r.all());
    assert!(
        error_line(&r).contains("no event for 2 s (idle timeout) after 1 event"),
        "{}",
        r.all()
    );
}

#[test]
fn idle_timeout_can_be_set_on_its_own_and_in_the_config() {
    let (base, _) = scripted(Script::OneEventThenSilence);
    // After a broken stream the CLI asks for the task once (this server never answers that: --timeout 3).
    let r = cli(&[
        "send",
        &base,
        "hi",
        "--stream",
        "--timeout",
        "3",
        "--idle-timeout",
        "1",
    ]);
    assert!(
        error_line(&r).contains("no event for 1 s (idle timeout)"),
        "{}",
        r.all()
    );
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!("[[agents]]\nname = \"quiet\"\nurl = \"{base}\"\nidle_timeout_secs = 1\ntimeout_secs = 3\n"),
    )
    .unwrap();
    let r = cli_env(
        &["send", "quiet", "hi", "--stream"],
        &[("A2A_CONSOLE_CONFIG", config.to_str().unwrap())],
    );
    assert!(
        error_line(&r).contains("no event for 1 s (idle timeout)"),
        "{}",
        r.all()
    );
}

#[test]
fn a_deadline_bounds_even_a_lively_stream() {
    let (base, _) = scripted(Script::Lively);
    let r = cli(&["send", &base, "hi", "--stream", "--deadline", "2"]);
    assert_eq!(r.code, 3, "{}", r.all());
    assert!(
        error_line(&r).contains("the stream's deadline of 2 s has passed after"),
        "{}",
        r.all()
    );
}

#[test]
fn a_stream_cut_mid_event_says_where() {
    let (base, _) = scripted(Script::CutMidEvent);
    let r = cli(&["send", &base, "hi", "--stream"]);
    assert!(
        r.stderr
            .contains("connection closed in the middle of event 2 (after 1 event complete)"),
        "{}",
        r.all()
    );
    let (base, _) = scripted(Script::DropChunked);
    let r = cli(&["send", &base, "hi", "--stream"]);
    assert!(
        r.stderr
            .contains("connection closed mid-stream after 1 event"),
        "{}",
        r.all()
    );
}

#[test]
fn an_event_past_the_limit_is_refused() {
    let (base, _) = scripted(Script::Giant);
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!("[[agents]]\nname = \"giant\"\nurl = \"{base}\"\nmax_event_mib = 1\n"),
    )
    .unwrap();
    let r = cli_env(
        &["send", "giant", "hi", "--stream"],
        &[("A2A_CONSOLE_CONFIG", config.to_str().unwrap())],
    );
    assert!(
        r.stderr.contains("event larger than the limit (1.0 MB)"),
        "{}",
        r.all()
    );
    // Without the limit the same event arrives whole.
    let r = cli(&["send", &base, "hi", "--stream", "--json"]);
    assert!(r.stdout.len() > 2 << 20, "{}", r.stderr);
}

#[test]
fn a_server_that_never_answers_meets_the_header_deadline() {
    let (base, _) = scripted(Script::NoHeaders);
    let r = cli(&["send", &base, "hi", "--stream", "--timeout", "1"]);
    assert_eq!(r.code, 3, "{}", r.all());
    assert!(
        error_line(&r).contains("within 1 s (header deadline)"),
        "{}",
        r.all()
    );
}

#[test]
fn rest_error_objects_are_the_agents_errors_with_their_status() {
    let (base, _) = scripted(Script::RestNotFound);
    let r = cli(&["get", &base, "nope"]);
    assert_eq!(r.code, 4, "{}", r.all());
    let line = error_line(&r);
    assert!(
        line.contains("task not found")
            && line.contains("Task not found: nope (HTTP 404 Not Found)"),
        "{line}"
    );
}
