//! JSON-RPC 2.0 and REST envelopes, and the error objects inside them.
//!
//! The reply's `result` is kept as the raw JSON text (`RawValue`) and handed straight to the SDK's ProtoJSON
//! decoder, rather than parsed into a `serde_json::Value` tree first and converted from that (what the SDK's
//! transports do): one parse per event instead of two.

use std::collections::HashMap;
use std::marker::PhantomData;

use a2a::{A2AError, TypedDetail, error_code, errordetails, reason_to_error_code};
use a2a_pb::protojson_conv::{self, ProtoJsonPayload};
use reqwest::StatusCode;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_json::value::RawValue;

use super::fault;
use crate::task::event_serde::In;

#[derive(Deserialize)]
struct RpcReply<'a> {
    #[serde(borrow, default)]
    result: Option<&'a RawValue>,
    #[serde(default)]
    error: Option<RpcErrorObject>,
}

#[derive(Deserialize)]
struct RpcErrorObject {
    #[serde(default = "internal")]
    code: i64,
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    data: Option<Value>,
}

/// A struct read only from a JSON object. serde's derived struct impls also take an array of the field values
/// in declaration order, so `[{"kind":"artifact-update",…}]` read as an envelope became `{"result": …}` and
/// the array's first element was taken as the event (fuzz target `v03`, `regressions/v03/`). An envelope,
/// an event and an error body are objects on every A2A binding (spec §9.2, §11.3): anything else is refused
/// with "invalid type: sequence, expected a JSON object".
pub struct Obj<T>(pub T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Only<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Only<T> {
            type Value = T;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(de::value::MapAccessDeserializer::new(map))
            }
        }
        d.deserialize_map(Only(PhantomData)).map(Obj)
    }
}

/// What an error object without a `message` is shown as.
fn no_message() -> String {
    "error without a message".into()
}

fn internal() -> i64 {
    error_code::INTERNAL_ERROR as i64
}

/// What a JSON-RPC reply body holds.
pub enum RpcOutcome<'a> {
    /// The `result`, as raw JSON text (`None` when absent or null).
    Result(Option<&'a RawValue>),
    /// The agent's error object.
    Error(A2AError),
}

/// Read a JSON-RPC reply. `Err` means the text is not a JSON-RPC reply at all.
pub fn rpc_reply(text: &str) -> Result<RpcOutcome<'_>, serde_json::Error> {
    let reply: RpcReply<'_> = serde_json::from_str::<Obj<RpcReply<'_>>>(text)?.0;
    if let Some(e) = reply.error {
        return Ok(RpcOutcome::Error(agent_error(
            e.code,
            e.message.unwrap_or_else(no_message),
            e.data,
        )));
    }
    Ok(RpcOutcome::Result(
        reply.result.filter(|r| r.get() != "null"),
    ))
}

/// A JSON-RPC error object as the SDK's error: its code (out-of-range codes become "internal error"), its
/// message, and the A2A error details in `data` (an `ErrorInfo` reason refines the code, as the spec says).
pub fn agent_error(code: i64, message: String, data: Option<Value>) -> A2AError {
    let mut code = i32::try_from(code).unwrap_or(error_code::INTERNAL_ERROR);
    let mut message = message;
    let details: Vec<TypedDetail> = match data {
        Some(Value::Array(items)) => items
            .into_iter()
            .filter_map(|v| serde_json::from_value::<TypedDetail>(v).ok())
            .collect(),
        _ => Vec::new(),
    };
    refine(&mut code, &mut message, &details);
    A2AError {
        code,
        message,
        details: (!details.is_empty()).then_some(details),
    }
}

/// Apply what the A2A error details say: an `ErrorInfo` in the protocol's domain names the error; a
/// `BadRequest` lists the fields that were wrong (and makes an unspecific error "invalid params").
fn refine(code: &mut i32, message: &mut String, details: &[TypedDetail]) {
    for d in details {
        match d.type_url.as_str() {
            errordetails::ERROR_INFO_TYPE => {
                let in_domain = d.value.get("domain").and_then(Value::as_str)
                    == Some(errordetails::PROTOCOL_DOMAIN);
                if let (true, Some(c)) = (
                    in_domain,
                    d.value
                        .get("reason")
                        .and_then(Value::as_str)
                        .and_then(reason_to_error_code),
                ) {
                    *code = c;
                }
            }
            errordetails::BAD_REQUEST_TYPE => {
                let fields: Vec<String> = d
                    .value
                    .get("fieldViolations")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|v| {
                        let field = v.get("field").and_then(Value::as_str).unwrap_or("");
                        let what = v.get("description").and_then(Value::as_str)?;
                        Some(if field.is_empty() {
                            what.to_string()
                        } else {
                            format!("{field}: {what}")
                        })
                    })
                    .collect();
                if !fields.is_empty() {
                    *message = format!("{message}: {}", fields.join("; "));
                }
                if *code == error_code::INTERNAL_ERROR {
                    *code = error_code::INVALID_PARAMS;
                }
            }
            _ => {}
        }
    }
}

/// Decode a ProtoJSON payload into the SDK's type, through the SDK's own conversion.
pub fn protojson<T: ProtoJsonPayload>(raw: &str, what: &str) -> Result<T, A2AError> {
    protojson_conv::from_str::<T>(raw)
        .map_err(|e| fault(format!("{what} is not valid A2A ProtoJSON: {e}")))
}

/// Decode one stream event (a ProtoJSON `StreamResponse`) into the SDK's type. The fast path reads it in
/// one pass over the text with `task::event_serde` (the SDK's JSON, read faster); anything it does not
/// take goes through the SDK's ProtoJSON conversion, which accepts more spellings (proto field names, enum
/// numbers) at about three times the cost — it parses into generated ProtoJSON structs, encodes those as
/// protobuf and decodes that again. Both give the same event (`the_sdks_serde_reads_what_protojson_reads`
/// below, and the fuzz target).
pub fn stream_event(raw: &str) -> Result<a2a::StreamResponse, A2AError> {
    match serde_json::from_str::<In<a2a::StreamResponse>>(raw) {
        Ok(In(ev)) => Ok(ev),
        Err(_) => protojson(raw, "a stream event"),
    }
}

/// A JSON-RPC stream event read in one pass: the envelope and the event inside it. `None` when the fast path
/// does not take it (then `RpcOutcome` and `stream_event` do, with their error messages).
pub fn rpc_stream_event(data: &str) -> Option<Result<a2a::StreamResponse, A2AError>> {
    #[derive(Deserialize)]
    struct RpcEvent {
        #[serde(default)]
        result: Option<In<a2a::StreamResponse>>,
        #[serde(default)]
        error: Option<RpcErrorObject>,
    }
    match serde_json::from_str::<Obj<RpcEvent>>(data).ok()?.0 {
        RpcEvent { error: Some(e), .. } => Some(Err(agent_error(
            e.code,
            e.message.unwrap_or_else(no_message),
            e.data,
        ))),
        RpcEvent {
            result: Some(In(ev)),
            ..
        } => Some(Ok(ev)),
        _ => None,
    }
}

#[derive(Deserialize)]
struct RestErrorBody {
    error: Option<RestStatus>,
    /// The Python SDK's 0.3 REST server answers `{"message": "Task not found"}` with the HTTP status.
    message: Option<String>,
}

#[derive(Deserialize)]
struct RestStatus {
    #[serde(default)]
    message: Option<String>,
    #[serde(default)]
    details: Vec<Value>,
}

/// A non-2xx REST reply whose body is an error object (`{"error":{"message":…,"details":[…]}}`, or 0.3's
/// flat `{"message":…}`): the agent's error, its code from the details or else from the HTTP status. `None`
/// if the body is no such object (then the status itself is the news).
pub fn rest_error(status: StatusCode, body: &str) -> Option<A2AError> {
    let parsed: RestErrorBody = serde_json::from_str::<Obj<RestErrorBody>>(body).ok()?.0;
    let (message, details) = match (parsed.error, parsed.message) {
        (Some(e), _) => (e.message.unwrap_or_else(no_message), e.details),
        (None, Some(m)) => (m, Vec::new()),
        (None, None) => return None,
    };
    let details: Vec<TypedDetail> = details
        .into_iter()
        .filter_map(|v| serde_json::from_value(v).ok())
        .collect();
    let mut code = code_for_status(status);
    let mut message = format!(
        "{message} (HTTP {} {})",
        status.as_u16(),
        status.canonical_reason().unwrap_or("")
    )
    .trim_end()
    .replace(" )", ")");
    refine(&mut code, &mut message, &details);
    Some(A2AError {
        code,
        message,
        details: (!details.is_empty()).then_some(details),
    })
}

/// The A2A error an HTTP status stands for in the HTTP+JSON binding (spec §11 error mapping), for replies
/// that carry no `ErrorInfo` reason.
pub fn code_for_status(status: StatusCode) -> i32 {
    match status.as_u16() {
        400 | 422 => error_code::INVALID_PARAMS,
        404 => error_code::TASK_NOT_FOUND,
        405 | 501 => error_code::UNSUPPORTED_OPERATION,
        409 => error_code::TASK_NOT_CANCELABLE,
        415 => error_code::CONTENT_TYPE_NOT_SUPPORTED,
        _ => error_code::INTERNAL_ERROR,
    }
}

/// Details a transport adds to an error: the HTTP status it came with, as a plain struct detail.
pub fn with_status(mut err: A2AError, status: StatusCode) -> A2AError {
    let detail = TypedDetail::new(
        errordetails::STRUCT_TYPE,
        HashMap::from([("httpStatus".to_string(), Value::from(status.as_u16()))]),
    );
    err.details.get_or_insert_with(Vec::new).push(detail);
    err
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_are_kept_raw_and_errors_keep_code_and_reason() {
        let RpcOutcome::Result(Some(raw)) =
            rpc_reply(r#"{"jsonrpc":"2.0","id":"x","result":{"task":{"id":"t"}}}"#).unwrap()
        else {
            panic!("no result")
        };
        assert_eq!(raw.get(), r#"{"task":{"id":"t"}}"#);
        assert!(matches!(
            rpc_reply(r#"{"jsonrpc":"2.0","id":1,"result":null}"#).unwrap(),
            RpcOutcome::Result(None)
        ));
        let body = json!({"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"nope","data":[
            {"@type": errordetails::ERROR_INFO_TYPE, "reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}});
        let RpcOutcome::Error(e) = rpc_reply(&body.to_string()).unwrap() else {
            panic!("no error")
        };
        assert_eq!(e.code, error_code::TASK_NOT_FOUND);
        assert_eq!(e.message, "nope");
        assert!(rpc_reply("<html>").is_err());
        assert!(rpc_reply("").is_err());
    }

    #[test]
    fn out_of_range_codes_do_not_wrap() {
        let RpcOutcome::Error(e) =
            rpc_reply(r#"{"error":{"code":99999999999,"message":"m"}}"#).unwrap()
        else {
            panic!()
        };
        assert_eq!(e.code, error_code::INTERNAL_ERROR);
    }

    #[test]
    fn rest_errors_from_v1_and_v03_servers() {
        let v1 = json!({"error":{"code":404,"status":"NOT_FOUND","message":"Task not found","details":[
            {"@type": errordetails::ERROR_INFO_TYPE, "reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}});
        let e = rest_error(StatusCode::NOT_FOUND, &v1.to_string()).unwrap();
        assert_eq!(e.code, error_code::TASK_NOT_FOUND);
        assert_eq!(e.message, "Task not found (HTTP 404 Not Found)");
        let e = rest_error(
            StatusCode::METHOD_NOT_ALLOWED,
            r#"{"message":"Method Not Allowed"}"#,
        )
        .unwrap();
        assert_eq!(e.code, error_code::UNSUPPORTED_OPERATION);
        assert!(rest_error(StatusCode::BAD_GATEWAY, "<html>").is_none());
        assert!(rest_error(StatusCode::BAD_GATEWAY, r#"{"other":1}"#).is_none());
    }
}

#[cfg(test)]
mod serde_vs_protojson {
    use a2a::StreamResponse;

    #[test]
    fn the_sdks_serde_reads_what_protojson_reads() {
        let samples = [
            r#"{"task":{"id":"t","contextId":"c","status":{"state":"TASK_STATE_SUBMITTED","timestamp":"2026-12-01T14:53:21.640639689Z"},"history":[{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"flood 100000"}]}]}}"#,
            r#"{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"x","contextId":"c","taskId":"t","role":"ROLE_AGENT","parts":[{"text":"flood 1/100000"}]},"timestamp":"2026-12-01T14:53:21.640639689Z"}}}"#,
            r#"{"artifactUpdate":{"taskId":"t","contextId":"c","artifact":{"artifactId":"a","name":"n","parts":[{"text":"x","mediaType":"text/plain"},{"data":{"k":[1,2,{"z":null}]}},{"url":"https://e.invalid/f","filename":"f.png","mediaType":"image/png"},{"raw":"aGVsbG8="}],"metadata":{"m":1}},"append":true,"lastChunk":false}}"#,
            r#"{"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":"hi"}],"referenceTaskIds":["r"],"extensions":["urn:e"],"metadata":{}}}"#,
            r#"{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_COMPLETED"},"metadata":{"a":"b"}}}"#,
        ];
        for s in samples {
            let a: StreamResponse = serde_json::from_str(s).unwrap();
            let b: StreamResponse = a2a_pb::protojson_conv::from_str(s).unwrap();
            // The same event: serde keeps `1` an integer and `lastChunk: false` present, where ProtoJSON makes
            // every number a double and drops defaults; seen through ProtoJSON the two are identical.
            assert_eq!(
                a2a_pb::protojson_conv::to_value(&a).unwrap(),
                a2a_pb::protojson_conv::to_value(&b).unwrap(),
                "{s}"
            );
            assert_eq!(super::stream_event(s).unwrap(), a);
            let wrapped = format!(r#"{{"jsonrpc":"2.0","id":"1","result":{s}}}"#);
            assert_eq!(super::rpc_stream_event(&wrapped).unwrap().unwrap(), a);
        }
        // What only ProtoJSON reads (the proto field names, as some servers write them) still decodes.
        let snake = r#"{"status_update":{"task_id":"t","context_id":"c","status":{"state":"TASK_STATE_WORKING"}}}"#;
        assert!(serde_json::from_str::<StreamResponse>(snake).is_err());
        assert!(matches!(
            super::stream_event(snake).unwrap(),
            StreamResponse::StatusUpdate(u) if u.task_id == "t"
        ));
    }

    /// An array holding an envelope or an event is neither (fuzz target `v03`, `regressions/v03/`): before,
    /// serde read the array's elements as the envelope's fields in order and the first became the result.
    #[test]
    fn an_array_is_never_an_envelope_or_an_event() {
        let ev = r#"{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_WORKING"}}}"#;
        let env = format!(r#"{{"jsonrpc":"2.0","id":"1","result":{ev}}}"#);
        for data in [
            format!("[{ev}]"),
            format!("[{env}]"),
            format!(" [{ev}, null]"),
        ] {
            assert!(super::rpc_reply(&data).is_err(), "{data}");
            assert!(super::rpc_stream_event(&data).is_none(), "{data}");
            assert!(super::stream_event(&data).is_err(), "{data}");
        }
        let err = super::rpc_reply(&format!("[{ev}]"))
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("expected a JSON object"), "{err}");
        // Nor is an array of an event's fields inside the union.
        let fields = r#"{"statusUpdate":["t","c",{"state":"TASK_STATE_WORKING"}]}"#;
        assert!(super::stream_event(fields).is_err());
        let fields = format!(r#"{{"jsonrpc":"2.0","id":"1","result":{fields}}}"#);
        assert!(!matches!(super::rpc_stream_event(&fields), Some(Ok(_))));
        // An error body as an array names no error.
        assert!(super::rest_error(reqwest::StatusCode::BAD_REQUEST, r#"[null,"gone"]"#).is_none());
        // Objects still read.
        assert!(super::rpc_stream_event(&env).unwrap().is_ok());
    }
}
