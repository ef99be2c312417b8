//! Issue 9, item 3: every binding honours every timeout, gRPC included, against the official Python SDK's gRPC
//! server (a2a-sdk[grpc] 1.3.0, `GrpcHandler`: `py10_agent.py --grpc`). `--deadline` ends a lively stream
//! (`slow`: an update every 0.5 s) and `--idle-timeout` a silent one (`quiet`), over gRPC as over JSON-RPC and
//! HTTP+JSON: same exit code, same reason, well before the agent would have finished (60 s).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

/// The card's GRPC interface, as an origin `--allow-origin` takes (it is on a port of its own).
fn grpc_origin(base: &str) -> String {
    let r = common::cli(&["card", base, "--json"]);
    assert_eq!(r.code, 0, "{}", r.all());
    let card: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let url = card["supportedInterfaces"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["protocolBinding"] == "GRPC")
        .unwrap_or_else(|| panic!("no GRPC interface: {card}"))["url"]
        .as_str()
        .unwrap()
        .to_string();
    // Written `host:port` or `http://host:port`, depending on who normalised it.
    let url = if url.contains("://") {
        url
    } else {
        format!("http://{url}")
    };
    let u = url::Url::parse(&url).unwrap();
    format!("http://{}:{}", u.host_str().unwrap(), u.port().unwrap())
}

/// `send TEXT --stream` over `binding` with `flags`: (exit code, stderr, how long it took).
fn stream(
    base: &str,
    allow: &str,
    binding: &str,
    text: &str,
    flags: &[&str],
) -> (i32, String, Duration) {
    let mut args = vec![
        "--binding",
        binding,
        "--allow-origin",
        allow,
        "send",
        base,
        text,
        "--stream",
    ];
    args.extend_from_slice(flags);
    let started = Instant::now();
    let r = common::cli(&args);
    (r.code, r.stderr, started.elapsed())
}

fn check_every_binding(text: &str, flags: &[&str], reason: &str, limit: Duration) {
    let peer = common::py10_peer_with(&["--grpc"]);
    let allow = grpc_origin(&peer.url);
    let mut codes = Vec::new();
    for binding in ["JSONRPC", "HTTP+JSON", "GRPC"] {
        let (code, stderr, took) = stream(&peer.url, &allow, binding, text, flags);
        assert!(
            took < limit,
            "{binding}: still running after {took:?}: {stderr}"
        );
        assert!(stderr.contains(reason), "{binding}: {stderr}");
        assert_ne!(code, 0, "{binding}: {stderr}");
        codes.push((binding, code));
    }
    assert!(
        codes.iter().all(|(_, c)| *c == codes[0].1),
        "one exit code for every binding: {codes:?}"
    );
}

#[test]
fn the_deadline_ends_a_lively_stream_on_every_binding() {
    // `slow` sends an update every 0.5 s for 60 s: only the deadline can end it.
    check_every_binding(
        "slow",
        &["--deadline", "3"],
        "deadline of 3 s has passed",
        Duration::from_secs(15),
    );
}

#[test]
fn the_idle_timeout_ends_a_silent_stream_on_every_binding() {
    // `quiet` says "working" once, then nothing for 60 s.
    check_every_binding(
        "quiet",
        &["--idle-timeout", "2"],
        "no event for 2 s (idle timeout)",
        Duration::from_secs(15),
    );
}
