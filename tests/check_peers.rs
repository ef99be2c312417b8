//! `check` against servers no one here wrote: the official Python SDK 1.3.0 and JS SDK 1.3.0 servers (driven by
//! our peer scripts) and our demo agent (built on the official Rust server SDK). Each must come out with the
//! verdicts the spec gives it; every FAIL and WARN below was confirmed by hand against the wire (the
//! evidence the report prints) and the spec section the requirement cites.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;

use serde_json::Value;

/// `check --json` of `url`: the exit code, and each finding's verdict by `id [interface]`.
fn check(url: &str) -> (Option<i32>, BTreeMap<String, String>, Value) {
    let run = common::cli(&["check", url, "--json"]);
    let report: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", run.all()));
    let mut verdicts = BTreeMap::new();
    for f in report["findings"].as_array().unwrap() {
        let key = match f["on"].as_str() {
            Some(on) => format!(
                "{} [{}]",
                f["id"].as_str().unwrap(),
                on.split(' ').next().unwrap()
            ),
            None => f["id"].as_str().unwrap().to_string(),
        };
        verdicts.insert(key, f["verdict"].as_str().unwrap().to_string());
    }
    common::assert_terminal_safe(&run.stdout);
    (Some(run.code), verdicts, report)
}

/// The findings that are not PASS, as `id [binding] VERDICT`.
fn not_passing(v: &BTreeMap<String, String>) -> Vec<String> {
    v.iter()
        .filter(|(_, verdict)| *verdict != "PASS")
        .map(|(k, verdict)| format!("{k} {verdict}"))
        .collect()
}

#[test]
fn python_sdk_server_fails_no_must_and_misses_five_shoulds() {
    let peer = common::py10_peer();
    let (code, v, report) = check(&peer.url);
    assert_eq!(
        not_passing(&v),
        vec![
            // Its card response carries an ETag but no Cache-Control (§8.6.1 SHOULD).
            "discovery.cache-control WARN",
            // The peer script guards the extended card with a bearer token; the check has none.
            "extended-card.served [HTTP+JSON] SKIP",
            "extended-card.served [JSONRPC] SKIP",
            // A text/plain request body is read as JSON (§9.1, §11.1 name the content type; no error for it).
            "jsonrpc.request-content-type [JSONRPC] WARN",
            "rest.request-content-type [HTTP+JSON] WARN",
            // Responses are application/json, not application/a2a+json (§11.1 SHOULD, as of v1.0.1).
            "rest.response-content-type [HTTP+JSON] WARN",
            // An unknown path gets a 307 redirect (Starlette's trailing-slash redirect), not 404.
            "rest.unknown-route [HTTP+JSON] WARN",
            "signature.verifies SKIP",
        ],
        "{report:#}"
    );
    assert_eq!(code, Some(0));
    assert!(report["requests_sent"].as_u64() <= report["request_budget"].as_u64());
}

#[test]
fn js_sdk_server_fails_two_json_rpc_musts() {
    let peer = common::js_peer();
    let (code, v, report) = check(&peer.url);
    assert_eq!(
        not_passing(&v),
        vec![
            "extended-card.served [HTTP+JSON] SKIP",
            "extended-card.served [JSONRPC] SKIP",
            // GetTask with an id that is a list is looked up anyway (-32001): params are not validated
            // (§3.3.2 "Servers MUST validate all input parameters"; -32602 per §9.5).
            "jsonrpc.invalid-params [JSONRPC] FAIL",
            // `{"jsonrpc":"2.0","id":2}` (no method) gets -32602, where JSON-RPC 2.0 §5.1 says -32600.
            "jsonrpc.invalid-request [JSONRPC] FAIL",
            // application/json answers, and Express's HTML page for an unknown path (§11.1 SHOULD).
            "rest.response-content-type [HTTP+JSON] WARN",
            "signature.verifies SKIP",
        ],
        "{report:#}"
    );
    assert_eq!(code, Some(8), "a failed MUST is exit 8");
}

#[test]
fn demo_agent_on_the_rust_server_sdk() {
    let demo = common::demo_agent();
    let (code, v, report) = check(&demo.url);
    assert_eq!(
        not_passing(&v),
        vec![
            "extended-card.served [HTTP+JSON] SKIP",
            "extended-card.served [JSONRPC] SKIP",
            // gRPC is served on its own port: another origin, so nothing is sent there without --allow-origin.
            "grpc.error-info [GRPC] SKIP",
            "grpc.push-not-supported [GRPC] SKIP",
            "grpc.task-not-found [GRPC] SKIP",
            // Push is declared, yet listing the configs of a task that does not exist answers an empty
            // result instead of TaskNotFoundError (§3.3.2 resource errors; uncertain order of checks: WARN).
            "jsonrpc.push-not-supported [JSONRPC] WARN",
            "jsonrpc.request-content-type [JSONRPC] WARN",
            "rest.push-not-supported [HTTP+JSON] WARN",
            "rest.request-content-type [HTTP+JSON] WARN",
            // Errors come as application/problem+json and some answers as text/plain.
            "rest.response-content-type [HTTP+JSON] WARN",
            // The HTTP+JSON routes of a2a-server-lf ignore A2A-Version: 99.0 and a missing header alike
            // (§3.6.2 MUST), where its JSON-RPC side answers -32009.
            "version.absent-is-0.3 [HTTP+JSON] FAIL",
            "version.unsupported [HTTP+JSON] FAIL",
        ],
        "{report:#}"
    );
    assert_eq!(code, Some(8));
    assert_eq!(v["signature.verifies"], "PASS", "the demo signs its card");
}
