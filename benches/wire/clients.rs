//! The two clients of ours that the bench runs as separate processes (this binary again, with a flag): the raw
//! transfer, a plain reqwest POST whose body is drained and only counted, and the SDK's bare loop, the official
//! `a2a-client-lf` resolving the card, building its client (`A2AClientFactory` → `JsonRpcTransport`) and
//! counting what `send_streaming_message` yields, decoded. Each prints one `WIRE key=value …` line.
//!
//! They live in the bench binary rather than in `examples/` or a `[[bin]]`: `cargo bench` builds them with the
//! bench profile in the same step (an example would need a second cargo run, a bin would be built and
//! installed with the console), and a process of this binary that runs only SDK code touches only the SDK's
//! pages, so its peak RSS is the SDK loop's.

use futures::StreamExt;

use crate::record::DataLines;

fn runtime() -> tokio::runtime::Runtime {
    // The same runtime shape as the console's CLI (`#[tokio::main]`: multi-threaded, all drivers).
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// POST a `SendStreamingMessage` to `rpc_url` with JSON-RPC id `id` and drain the reply, counting its bytes and
/// its `data:` lines.
pub fn raw(rpc_url: &str, id: &str, text: &str) -> i32 {
    runtime().block_on(async {
        let http = reqwest::Client::builder()
            .no_proxy()
            .build()
            .expect("http client");
        let request = request_json(id, text);
        let mut resp = match http
            .post(rpc_url)
            .header("Accept", "text/event-stream")
            .json(&request)
            .send()
            .await
        {
            Ok(r) => r,
            Err(e) => {
                eprintln!("raw: {e}");
                println!("WIRE events=0 errors=1 bytes=0");
                return 1;
            }
        };
        let (mut bytes, mut errors) = (0u64, 0u64);
        let mut lines = DataLines::default();
        loop {
            match resp.chunk().await {
                Ok(Some(chunk)) => {
                    bytes += chunk.len() as u64;
                    lines.feed(&chunk);
                }
                Ok(None) => break,
                Err(e) => {
                    eprintln!("raw: {e}");
                    errors += 1;
                    break;
                }
            }
        }
        println!("WIRE events={} errors={errors} bytes={bytes}", lines.count);
        i32::from(errors > 0)
    })
}

/// The JSON-RPC request the raw client and curl send.
pub fn request_json(id: &str, text: &str) -> serde_json::Value {
    let message = a2a::Message::new(a2a::Role::User, vec![a2a::Part::text(text)]);
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": a2a::jsonrpc::methods::SEND_STREAMING_MESSAGE,
        "params": { "message": serde_json::to_value(&message).expect("message JSON") },
    })
}

/// The official SDK, nothing of ours: resolve the card at `base`, build the client from it, stream one message,
/// count the events.
pub fn sdk_loop(base: &str, text: &str) -> i32 {
    runtime().block_on(async {
        let (mut events, mut errors) = (0u64, 0u64);
        let (mut last, mut state) = ("none", String::from("none"));
        let result: Result<(), a2a::A2AError> = async {
            let card = a2a_client::agent_card::AgentCardResolver::new(None)
                .resolve(base)
                .await?;
            let client = a2a_client::A2AClientFactory::builder()
                .build()
                .create_from_card(&card)
                .await?;
            let req = a2a::SendMessageRequest {
                message: a2a::Message::new(a2a::Role::User, vec![a2a::Part::text(text)]),
                configuration: None,
                metadata: None,
                tenant: None,
            };
            let mut stream = client.send_streaming_message(&req).await?;
            while let Some(item) = stream.next().await {
                match item {
                    Ok(event) => {
                        events += 1;
                        (last, state) = describe(&event, std::mem::take(&mut state));
                    }
                    Err(e) => {
                        if errors == 0 {
                            eprintln!("sdk loop: stream error: {}", e.message);
                        }
                        errors += 1;
                    }
                }
            }
            Ok(())
        }
        .await;
        if let Err(e) = result {
            eprintln!("sdk loop: {}", e.message);
            errors += 1;
        }
        println!("WIRE events={events} errors={errors} last={last} state={state}");
        i32::from(errors > 0)
    })
}

/// The event's kind, and the task state it tells (or the one known before).
fn describe(event: &a2a::StreamResponse, state: String) -> (&'static str, String) {
    let name = |s: &a2a::TaskState| {
        serde_json::to_value(s)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_else(|| format!("{s:?}"))
    };
    match event {
        a2a::StreamResponse::Task(t) => ("task", name(&t.status.state)),
        a2a::StreamResponse::Message(_) => ("message", state),
        a2a::StreamResponse::StatusUpdate(u) => ("status_update", name(&u.status.state)),
        a2a::StreamResponse::ArtifactUpdate(_) => ("artifact_update", state),
    }
}
