//! Targets for the decoders in `remote/`: agent cards (bytes → `parse_card`, JSON → `normalize`) and the
//! protocol 0.3 mapping (`wire::v03`). A decoder refusing an input is fine; what must not happen is a panic,
//! an `Ok` the SDK's own types would not accept, or an error message that is not one clean line.
//!
//! The reserved `sse` and `wire` targets (see `TARGETS`) follow the same pattern: call the decoder on the
//! bytes, ignore `Err`, check what an `Ok` promises.

use a2a::StreamResponse;
use reqwest::header::HeaderMap;
use serde_json::Value;
use url::Url;

use super::ensure;
use super::text::{Lines, check_clean, has_float};
use crate::remote::card::normalize::normalize;
use crate::remote::card::parse_card;
use crate::remote::wire::v03::{
    event_from_sse_data, event_from_v03, push_config_from_v03, task_value,
};

const CARD_URL: &str = "http://127.0.0.1:9/.well-known/agent-card.json";

/// `parse_card` on the raw bytes, then `normalize` on the JSON with and without a card URL.
pub fn card(input: &[u8]) -> Result<(), String> {
    let url = Url::parse(CARD_URL).map_err(|e| e.to_string())?;
    match parse_card(
        &url,
        &url,
        "application/json",
        input.to_vec(),
        &HeaderMap::new(),
    ) {
        Ok(_) => {}
        // Printed as `a2a-console: <message>`: it must be one clean line whatever the body held.
        Err(e) => {
            check_clean(&e.message, Lines::One).map_err(|m| format!("parse_card error: {m}"))?
        }
    }
    let Ok(value) = serde_json::from_slice::<Value>(input) else {
        return Ok(());
    };
    for base in [Some(&url), None] {
        if let Ok(n) = normalize(&value, base) {
            serde_json::from_value::<a2a::AgentCard>(n.card.clone()).map_err(|e| {
                format!(
                    "normalize gave a card the SDK cannot read ({e}): {}",
                    n.card
                )
            })?;
        }
    }
    Ok(())
}

/// The 0.3 mapping, fed the same bytes as every kind of thing a 0.3 agent sends.
pub fn v03(input: &[u8]) -> Result<(), String> {
    let text = String::from_utf8_lossy(input);
    // As an SSE `data:` payload (envelope or bare result).
    if let Ok(v) = serde_json::from_str::<Value>(&text) {
        let result = v.get("result").unwrap_or(&v).clone();
        if let Ok(ev) = event_from_sse_data(&text) {
            check_event(&result, ev).map_err(|e| format!("SSE data: {e}"))?;
        }
    }
    let _ = crate::remote::wire::envelope::rpc_reply(&text);
    let Ok(value) = serde_json::from_slice::<Value>(input) else {
        return Ok(());
    };
    if let Ok(ev) = event_from_v03(&value) {
        check_event(&value, ev)?;
    }
    if let Ok(task) = task_value(&value) {
        round_trip(&StreamResponse::Task(task)).map_err(|e| format!("task: {e}"))?;
    }
    if let Ok(cfg) = push_config_from_v03("t1", &value) {
        let v = serde_json::to_value(&cfg).map_err(|e| e.to_string())?;
        serde_json::from_value::<a2a::TaskPushNotificationConfig>(v)
            .map_err(|e| format!("a push config does not read back ({e})"))?;
    }
    Ok(())
}

/// An `Ok` event is the variant its 0.3 `kind` names, only a status update can be final, and the SDK reads
/// back what it writes.
fn check_event(src: &Value, (ev, is_final): (StreamResponse, bool)) -> Result<(), String> {
    let kind = src.get("kind").and_then(Value::as_str).unwrap_or("");
    let matches = matches!(
        (kind, &ev),
        ("task", StreamResponse::Task(_))
            | ("message", StreamResponse::Message(_))
            | ("status-update", StreamResponse::StatusUpdate(_))
            | ("artifact-update", StreamResponse::ArtifactUpdate(_))
    );
    ensure(matches, || format!("kind {kind:?} became {ev:?}"))?;
    ensure(
        !is_final || matches!(ev, StreamResponse::StatusUpdate(_)),
        || format!("a {kind:?} event came back final"),
    )?;
    round_trip(&ev)
}

/// What we hand on serialises, reads back, and serialises to the same JSON again. Compared as JSON rather than
/// as values: the SDK writes an empty `metadata` map as nothing, which reads back as `None`, and that
/// difference is invisible on the wire.
fn round_trip(ev: &StreamResponse) -> Result<(), String> {
    let v = serde_json::to_value(ev).map_err(|e| format!("does not serialise ({e})"))?;
    let back: StreamResponse =
        serde_json::from_value(v.clone()).map_err(|e| format!("does not read back ({e}): {v}"))?;
    let again =
        serde_json::to_value(&back).map_err(|e| format!("does not serialise again ({e})"))?;
    // Floats may move in the last digit without serde_json's `float_roundtrip`; the rest must be equal.
    ensure(again == v || has_float(&v), || {
        format!("reads back differently: {v} became {again}")
    })
}

/// The SSE reader (`remote::wire::sse`): the same bytes cut into chunks at two different places give the same
/// events; no event's data holds a CR or exceeds the limit; a body past the limit is refused, not held.
pub fn sse(input: &[u8]) -> Result<(), String> {
    use crate::remote::wire::sse::{EventFields, FrameError, LineSplitter};
    const LIMIT: usize = 4096;
    let run = |cuts: &[usize]| -> (Vec<String>, usize, usize) {
        let mut s = LineSplitter::new(LIMIT);
        let mut f = EventFields::default();
        let (mut events, mut too_large, mut not_utf8) = (Vec::new(), 0, 0);
        let mut drain = |s: &mut LineSplitter, events: &mut Vec<String>| {
            while let Some(line) = s.next_line() {
                match line {
                    Ok(l) => events.extend(f.line(&l)),
                    Err(FrameError::TooLarge) => too_large += 1,
                    Err(FrameError::NotUtf8) => {
                        not_utf8 += 1;
                        f.discard();
                    }
                }
            }
        };
        let mut at = 0;
        for &c in cuts.iter().chain([input.len()].iter()) {
            let c = c.min(input.len()).max(at);
            s.push(&input[at..c]);
            drain(&mut s, &mut events);
            at = c;
        }
        s.end();
        drain(&mut s, &mut events);
        (events, too_large, not_utf8)
    };
    let whole = run(&[]);
    let n = input.len();
    let split = run(&[n / 3, n / 3 + 1, (2 * n) / 3]);
    let bytewise: Vec<usize> = (0..n.min(512)).collect();
    let tiny = run(&bytewise);
    ensure(whole == split, || {
        format!("chunking changed the events: {whole:?} vs {split:?}")
    })?;
    if n <= 512 {
        ensure(whole == tiny, || {
            format!("byte-by-byte chunking changed the events: {whole:?} vs {tiny:?}")
        })?;
    }
    for e in &whole.0 {
        ensure(!e.contains('\r'), || {
            format!("event data holds a CR: {e:?}")
        })?;
        ensure(e.len() <= LIMIT, || {
            format!(
                "event data of {} bytes passed the {LIMIT}-byte limit",
                e.len()
            )
        })?;
    }
    Ok(())
}

/// The JSON-RPC and REST envelopes and the v1.0 / v0.3 event decoders of `remote::wire`: no panic; when the
/// fast path takes an event, the SDK's ProtoJSON conversion (if it takes it too) reads the same event.
pub fn wire(input: &[u8]) -> Result<(), String> {
    use crate::remote::wire::envelope::{rest_error, rpc_reply, rpc_stream_event, stream_event};
    use crate::remote::wire::sse::SseData;
    let text = String::from_utf8_lossy(input);
    let _ = rpc_reply(&text);
    let _ = rest_error(reqwest::StatusCode::NOT_FOUND, &text);
    use crate::task::event_serde::{In, Out};
    let fast = serde_json::from_str::<In<StreamResponse>>(&text);
    let slow = a2a_pb::protojson_conv::from_str::<StreamResponse>(&text);
    if let Ok(f) = &fast {
        // `event_serde` writes what the SDK's serde writes, and the SDK's serde reads it back the same.
        let (ours, sdk) = (
            serde_json::to_string(&Out(&f.0)).map_err(|e| e.to_string())?,
            serde_json::to_string(&f.0).map_err(|e| e.to_string())?,
        );
        ensure(ours == sdk, || {
            format!("event_serde writes {ours}, the SDK {sdk}")
        })?;
        if let Ok(sdk_read) = serde_json::from_str::<StreamResponse>(&text) {
            ensure(sdk_read == f.0, || {
                format!("event_serde and the SDK's serde read {text} differently")
            })?;
        }
    }
    if let (Ok(f), Ok(s)) = (&fast, &slow) {
        let (a, b) = (
            a2a_pb::protojson_conv::to_value(&f.0).map_err(|e| e.to_string())?,
            a2a_pb::protojson_conv::to_value(s).map_err(|e| e.to_string())?,
        );
        ensure(a == b, || {
            format!("the fast decoder and ProtoJSON disagree: {a} vs {b}")
        })?;
    }
    if let Ok(ev) = stream_event(&text) {
        round_trip(&ev).map_err(|e| format!("stream event: {e}"))?;
    }
    let _ = rpc_stream_event(&text);
    let ev = SseData {
        data: text.to_string(),
        index: 1,
        unfinished: input.first().is_some_and(|b| b & 1 == 1),
    };
    let _ = crate::remote::wire::jsonrpc::decode_event(&ev);
    let _ = crate::remote::wire::rest::decode_event(&ev);
    let _ = crate::remote::wire::v03_rest::decode_event(&ev);
    if let Ok(v) = serde_json::from_str::<Value>(&text) {
        let _ = crate::remote::wire::v03_rest::union_to_rpc(&v);
    }
    Ok(())
}
