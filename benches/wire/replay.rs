//! The replay server: one recorded stream served from 127.0.0.1 as fast as it can go. It serves an agent card
//! at `/.well-known/agent-card.json` whose one interface (JSON-RPC, protocol 1.0) points at itself, and answers
//! any JSON-RPC `SendStreamingMessage` POST with the recorded SSE bytes as `text/event-stream`.
//!
//! Like the demo agent, every envelope carries the id of the request being answered: the recording is split at
//! each recorded id once, and the request's id is put back in those places while the body streams out, in
//! 64 KiB chunks (a bigger recorded piece, such as the 20 MiB event, goes out as it is, without a copy). With
//! `keep_recorded_id` it sends the recorded bytes unchanged instead, envelopes carrying an id the client never
//! sent: the bench uses that to see which clients check it. Other methods get a JSON-RPC error, so a client
//! that falls back to `GetTask` after an early end fails visibly.
//!
//! `WIRE_BENCH_CUT_AT=N` (bytes) makes every reply stop after N bytes, as a dropped connection would: the way
//! to see that each client's early end shows up as FAILED in the table.

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::{Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use bytes::BytesMut;

use crate::record::{Recording, id_token};

const CARD_PATH: &str = "/.well-known/agent-card.json";
const RPC_PATH: &str = "/jsonrpc";
/// Size of the chunks the body is written in.
const CHUNK: usize = 64 * 1024;

/// A recording cut at every recorded id: `pieces[0] id pieces[1] id … pieces[n]`.
struct Template {
    pieces: Vec<Bytes>,
    /// The recording itself, for `keep_recorded_id`.
    whole: Bytes,
}

impl Template {
    fn new(body: &Bytes) -> Self {
        let token = id_token();
        let mut pieces = Vec::new();
        let mut at = 0;
        for i in memchr::memmem::find_iter(body, &token) {
            pieces.push(body.slice(at..i));
            at = i + token.len();
        }
        pieces.push(body.slice(at..));
        Self {
            pieces,
            whole: body.clone(),
        }
    }

    /// Bytes of the body sent for a request whose id serializes to `id_len` bytes.
    fn len_with_id(&self, id_len: usize) -> u64 {
        let pieces: usize = self.pieces.iter().map(Bytes::len).sum();
        (pieces + (self.pieces.len() - 1) * id_len) as u64
    }
}

/// The body for one request: the pieces with `id` between them, in chunks of about [`CHUNK`] bytes.
struct Chunks {
    template: Arc<Template>,
    id: Bytes,
    next: usize,
    /// The id after the last big piece sent is still to go (it starts the next chunk).
    id_owed: bool,
}

impl Iterator for Chunks {
    type Item = Bytes;

    fn next(&mut self) -> Option<Bytes> {
        let pieces = &self.template.pieces;
        let last = pieces.len().checked_sub(1)?;
        let mut buf = BytesMut::new();
        if std::mem::take(&mut self.id_owed) {
            buf.extend_from_slice(&self.id);
        }
        if self.next > last {
            return (!buf.is_empty()).then(|| buf.freeze());
        }
        // A big piece goes out as it is, without a copy.
        if buf.is_empty() && pieces[self.next].len() >= CHUNK {
            let piece = pieces[self.next].clone();
            self.id_owed = self.next < last;
            self.next += 1;
            return Some(piece);
        }
        buf.reserve(CHUNK + 256);
        while self.next <= last && buf.len() < CHUNK && pieces[self.next].len() < CHUNK {
            buf.extend_from_slice(&pieces[self.next]);
            if self.next < last {
                buf.extend_from_slice(&self.id);
            }
            self.next += 1;
        }
        Some(buf.freeze())
    }
}

struct Replay {
    card: String,
    template: Arc<Template>,
    keep_recorded_id: bool,
    /// Stop every reply after this many bytes (`WIRE_BENCH_CUT_AT`).
    cut_at: Option<u64>,
}

/// A running replay server.
pub struct Server {
    /// `http://127.0.0.1:PORT`: the agent's base URL (the card is under it).
    pub base: String,
    /// The JSON-RPC endpoint.
    pub rpc_url: String,
    template: Arc<Template>,
}

impl Server {
    /// How many body bytes a client sending this JSON-RPC id receives.
    pub fn body_len_for(&self, id: &serde_json::Value) -> u64 {
        let id = serde_json::to_vec(id).expect("id JSON");
        self.template.len_with_id(id.len())
    }
}

/// The demo's card rebased onto `base`, with JSON-RPC 1.0 as its only interface.
fn card_for(card: &serde_json::Value, demo_base: &str, base: &str) -> String {
    let mut card = card.clone();
    crate::demo_card::rebase(&mut card, demo_base, base);
    let rpc = serde_json::json!({
        "url": format!("{base}{RPC_PATH}"),
        "protocolBinding": "JSONRPC",
        "protocolVersion": "1.0",
    });
    card["supportedInterfaces"] = serde_json::json!([rpc]);
    card.to_string()
}

/// Serve `rec` on a free port of 127.0.0.1.
pub async fn spawn(
    rec: &Recording,
    card: &serde_json::Value,
    demo_base: &str,
    keep_recorded_id: bool,
) -> Server {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("replay listener");
    let base = format!("http://{}", listener.local_addr().expect("replay address"));
    let template = Arc::new(Template::new(&rec.body));
    let replay = Arc::new(Replay {
        card: card_for(card, demo_base, &base),
        template: Arc::clone(&template),
        keep_recorded_id,
        cut_at: std::env::var("WIRE_BENCH_CUT_AT")
            .ok()
            .and_then(|v| v.parse().ok()),
    });
    let app = axum::Router::new().fallback(move |method: Method, uri: Uri, body: Bytes| {
        let replay = Arc::clone(&replay);
        async move { answer(&replay, &method, uri.path(), &body) }
    });
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Server {
        rpc_url: format!("{base}{RPC_PATH}"),
        base,
        template,
    }
}

fn answer(replay: &Replay, method: &Method, path: &str, body: &[u8]) -> Response {
    match (method, path) {
        (&Method::GET, CARD_PATH) => (
            [(header::CONTENT_TYPE, "application/json")],
            replay.card.clone(),
        )
            .into_response(),
        (&Method::POST, RPC_PATH) => {
            let Ok(request) = serde_json::from_slice::<serde_json::Value>(body) else {
                return rpc_error(&serde_json::Value::Null, -32700, "parse error");
            };
            let id = request
                .get("id")
                .cloned()
                .unwrap_or(serde_json::Value::Null);
            if request.get("method").and_then(|m| m.as_str())
                != Some(a2a::jsonrpc::methods::SEND_STREAMING_MESSAGE)
            {
                return rpc_error(
                    &id,
                    -32601,
                    "the replay server answers SendStreamingMessage only",
                );
            }
            let body = if replay.keep_recorded_id {
                Body::from(replay.template.whole.clone())
            } else {
                let chunks = Chunks {
                    template: Arc::clone(&replay.template),
                    id: Bytes::from(serde_json::to_vec(&id).expect("id JSON")),
                    next: 0,
                    id_owed: false,
                };
                let mut left = replay.cut_at.unwrap_or(u64::MAX);
                let chunks = chunks.map_while(move |c| {
                    let n = (c.len() as u64).min(left);
                    left -= n;
                    (n > 0).then(|| c.slice(..n as usize))
                });
                Body::from_stream(futures::stream::iter(chunks.map(Ok::<_, Infallible>)))
            };
            (
                [
                    (header::CONTENT_TYPE, "text/event-stream"),
                    (header::CACHE_CONTROL, "no-cache"),
                ],
                body,
            )
                .into_response()
        }
        _ => StatusCode::NOT_FOUND.into_response(),
    }
}

fn rpc_error(id: &serde_json::Value, code: i64, message: &str) -> Response {
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": { "code": code, "message": message },
    });
    (
        [(header::CONTENT_TYPE, "application/json")],
        body.to_string(),
    )
        .into_response()
}
