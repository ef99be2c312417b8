//! Shared by the benches that record from the embedded demo agent and replay it: its card and the URL of its
//! JSON-RPC 1.0 interface, one recorded `SendStreamingMessage` body, and a recorded card pointed at a replay
//! server. Included with `#[path]` (each bench is a crate of its own). Loopback only.

/// The demo agent's card (as JSON) and its JSON-RPC 1.0 interface URL. Panics on anything unexpected: this is
/// our own demo agent, and a bench that cannot record has nothing to measure.
pub async fn demo_card(http: &reqwest::Client, base: &str) -> (serde_json::Value, String) {
    let card: serde_json::Value = http
        .get(format!("{base}/.well-known/agent-card.json"))
        .send()
        .await
        .expect("card request")
        .error_for_status()
        .expect("card status")
        .json()
        .await
        .expect("card JSON");
    let rpc_url = card["supportedInterfaces"]
        .as_array()
        .expect("supportedInterfaces")
        .iter()
        .find(|i| i["protocolBinding"] == "JSONRPC" && i["protocolVersion"] == "1.0")
        .and_then(|i| i["url"].as_str())
        .expect("a JSONRPC 1.0 interface")
        .to_string();
    (card, rpc_url)
}

/// The whole SSE body of one `SendStreamingMessage(text)` with JSON-RPC id `id`, checked to be an event stream.
pub async fn record_stream(
    http: &reqwest::Client,
    rpc_url: &str,
    id: serde_json::Value,
    text: &str,
) -> axum::body::Bytes {
    let message = a2a::Message::new(a2a::Role::User, vec![a2a::Part::text(text)]);
    let request = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": a2a::jsonrpc::methods::SEND_STREAMING_MESSAGE,
        "params": { "message": serde_json::to_value(&message).expect("message JSON") },
    });
    let resp = http
        .post(rpc_url)
        .header("A2A-Version", "1.0")
        .header(reqwest::header::ACCEPT, "text/event-stream")
        .json(&request)
        .send()
        .await
        .expect("SendStreamingMessage");
    assert!(resp.status().is_success(), "status {}", resp.status());
    let ct = resp
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    assert!(ct.starts_with("text/event-stream"), "content type {ct}");
    resp.bytes().await.expect("stream body")
}

/// Every string in `v` that is `from` or starts with `from/` gets `to` instead of `from` (a recorded card's
/// URLs, moved to the replay server).
pub fn rebase(v: &mut serde_json::Value, from: &str, to: &str) {
    match v {
        serde_json::Value::String(s) if s == from || s.starts_with(&format!("{from}/")) => {
            *s = format!("{to}{}", &s[from.len()..]);
        }
        serde_json::Value::Array(a) => a.iter_mut().for_each(|x| rebase(x, from, to)),
        serde_json::Value::Object(o) => o.values_mut().for_each(|x| rebase(x, from, to)),
        _ => {}
    }
}
