//! Shared by the benches that record from the embedded demo agent: its card, and the URL of its JSON-RPC 1.0
//! interface. Included with `#[path]` (each bench is a crate of its own). Loopback only.

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
