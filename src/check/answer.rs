//! Reading what an agent answered a probe: a JSON-RPC response (result or error object, plain or as the first
//! event of a stream), or an HTTP+JSON answer (status, google.rpc.Status body, its ErrorInfo reason). The
//! probes compare these with what the spec says; this file only reads, and says what was off in the shape.

use serde_json::Value;

use super::exchange::Reply;

/// The ErrorInfo type URL (§9.5, §11.6).
const ERROR_INFO: &str = "type.googleapis.com/google.rpc.ErrorInfo";
/// The domain A2A errors carry in their ErrorInfo (§11.6).
pub const A2A_DOMAIN: &str = "a2a-protocol.org";

/// A JSON-RPC answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Rpc {
    Error {
        code: i64,
        /// ErrorInfo reasons found in `error.data`.
        reasons: Vec<String>,
    },
    Result(Value),
    /// Not a JSON-RPC response at all: what it was instead.
    NotRpc(String),
}

impl Rpc {
    pub fn code(&self) -> Option<i64> {
        match self {
            Rpc::Error { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// One line for a verdict's reason.
    pub fn describe(&self) -> String {
        match self {
            Rpc::Error { code, reasons } if reasons.is_empty() => format!("error {code}"),
            Rpc::Error { code, reasons } => format!("error {code} ({})", reasons.join(", ")),
            Rpc::Result(_) => "a result, not an error".into(),
            Rpc::NotRpc(what) => what.clone(),
        }
    }
}

/// Read a JSON-RPC reply; `shape` collects what is off in the error object's shape (§9.5).
pub fn rpc(reply: &Reply, shape: &mut Vec<String>) -> Rpc {
    if let Some(e) = &reply.error
        && reply.status.is_none()
    {
        return Rpc::NotRpc(format!("no answer: {e}"));
    }
    let text = String::from_utf8_lossy(&reply.body);
    // A stream's first event carries the response (the SDKs answer some errors that way).
    let doc = if reply.media_type() == "text/event-stream" {
        match sse_data(&text).into_iter().next() {
            Some(d) => d,
            None => return Rpc::NotRpc("an event stream with no event".into()),
        }
    } else {
        text.to_string()
    };
    let Ok(v) = serde_json::from_str::<Value>(&doc) else {
        return Rpc::NotRpc(format!(
            "HTTP {} with a body that is not JSON",
            reply.status.unwrap_or_default()
        ));
    };
    let Some(obj) = v.as_object() else {
        return Rpc::NotRpc("a JSON value that is not an object".into());
    };
    // An answer from in front of the JSON-RPC layer (a 401 from an auth proxy, §3.3.2) is plain HTTP with a
    // body of its own: not a JSON-RPC response, so its shape is not JSON-RPC's business.
    if !obj.contains_key("jsonrpc") && reply.status != Some(200) {
        return Rpc::NotRpc(format!(
            "HTTP {} (not a JSON-RPC response)",
            reply.status.unwrap_or_default()
        ));
    }
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        shape.push("\"jsonrpc\": \"2.0\" missing".into());
    }
    if !obj.contains_key("id") {
        shape.push("no \"id\" member".into());
    }
    if let Some(err) = obj.get("error") {
        let code = err.get("code").and_then(Value::as_i64);
        if code.is_none() {
            shape.push("error.code is not an integer".into());
        }
        if !err.get("message").is_some_and(Value::is_string) {
            shape.push("error.message is not a string".into());
        }
        let mut reasons = Vec::new();
        match err.get("data") {
            None | Some(Value::Null) => {}
            Some(Value::Array(items)) => {
                for item in items {
                    if !item.get("@type").is_some_and(Value::is_string) {
                        shape.push("an error.data entry has no \"@type\"".into());
                    }
                    if item.get("@type").and_then(Value::as_str) == Some(ERROR_INFO)
                        && let Some(r) = item.get("reason").and_then(Value::as_str)
                    {
                        reasons.push(crate::trust::sanitize::sanitize_line(r).0);
                    }
                }
            }
            Some(_) => shape.push("error.data is not a list of @type objects".into()),
        }
        return Rpc::Error {
            code: code.unwrap_or_default(),
            reasons,
        };
    }
    match obj.get("result") {
        Some(r) => Rpc::Result(r.clone()),
        None => Rpc::NotRpc("a JSON object with neither result nor error".into()),
    }
}

/// The data of every event of an SSE body, in order (read with the wire layer's own SSE field rules).
pub fn sse_data(text: &str) -> Vec<String> {
    let mut fields = crate::remote::wire::sse::EventFields::default();
    text.split_inclusive('\n')
        .chain(["\n"])
        .filter_map(|line| fields.line(line.as_bytes()))
        .collect()
}

/// An HTTP+JSON error answer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RestError {
    pub status: u16,
    /// The ErrorInfo reason, when the body has one.
    pub reason: Option<String>,
    pub domain: Option<String>,
    /// What is off in the body's shape (§11.6); empty when it is a google.rpc.Status.
    pub shape: Vec<String>,
}

impl RestError {
    pub fn describe(&self) -> String {
        match &self.reason {
            Some(r) => format!("HTTP {} {r}", self.status),
            None => format!("HTTP {} (no ErrorInfo reason)", self.status),
        }
    }
}

/// Read an HTTP+JSON answer as an error (`None` when no answer came back at all).
pub fn rest(reply: &Reply) -> Option<RestError> {
    let status = reply.status?;
    let mut out = RestError {
        status,
        ..RestError::default()
    };
    let Some(v) = reply.json() else {
        out.shape.push("the body is not JSON".into());
        return Some(out);
    };
    let Some(err) = v.get("error").filter(|e| e.is_object()) else {
        out.shape
            .push("no \"error\" object (google.rpc.Status JSON)".into());
        return Some(out);
    };
    if !err.get("code").is_some_and(Value::is_i64) {
        out.shape.push("error.code is not an integer".into());
    }
    if !err.get("message").is_some_and(Value::is_string) {
        out.shape.push("error.message is not a string".into());
    }
    match err.get("details") {
        Some(Value::Array(items)) => {
            for item in items {
                if !item.get("@type").is_some_and(Value::is_string) {
                    out.shape
                        .push("an error.details entry has no \"@type\"".into());
                }
                if item.get("@type").and_then(Value::as_str) == Some(ERROR_INFO) {
                    out.reason = item
                        .get("reason")
                        .and_then(Value::as_str)
                        .map(|r| crate::trust::sanitize::sanitize_line(r).0);
                    out.domain = item
                        .get("domain")
                        .and_then(Value::as_str)
                        .map(|d| crate::trust::sanitize::sanitize_line(d).0);
                }
            }
        }
        None => {}
        Some(_) => out.shape.push("error.details is not a list".into()),
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(status: u16, ct: &str, body: &str) -> Reply {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert(
            reqwest::header::CONTENT_TYPE,
            reqwest::header::HeaderValue::from_str(ct).unwrap(),
        );
        Reply {
            status: Some(status),
            headers,
            body: body.as_bytes().to_vec(),
            ..Reply::default()
        }
    }

    #[test]
    fn reads_rpc_errors_with_their_reasons_and_shape_faults() {
        let mut shape = Vec::new();
        let r = rpc(
            &reply(
                200,
                "application/json",
                r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"x","data":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND"}]}}"#,
            ),
            &mut shape,
        );
        assert_eq!(
            r,
            Rpc::Error {
                code: -32001,
                reasons: vec!["TASK_NOT_FOUND".into()]
            }
        );
        assert!(shape.is_empty());
        let r = rpc(
            &reply(
                200,
                "application/json",
                r#"{"error":{"code":"x","data":{}}}"#,
            ),
            &mut shape,
        );
        assert_eq!(r.code(), Some(0));
        assert_eq!(shape.len(), 5, "{shape:?}");
    }

    #[test]
    fn reads_the_first_event_of_a_stream() {
        let mut shape = Vec::new();
        let r = rpc(
            &reply(
                200,
                "text/event-stream",
                "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32004,\"message\":\"no\"}}\r\n\r\n",
            ),
            &mut shape,
        );
        assert_eq!(r.code(), Some(-32004));
    }

    #[test]
    fn reads_rest_errors() {
        let e = rest(&reply(
            404,
            "application/json",
            r#"{"error":{"code":404,"message":"m","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"TASK_NOT_FOUND","domain":"a2a-protocol.org"}]}}"#,
        ))
        .unwrap();
        assert_eq!(e.reason.as_deref(), Some("TASK_NOT_FOUND"));
        assert!(e.shape.is_empty());
        let e = rest(&reply(404, "text/plain", "Not Found")).unwrap();
        assert_eq!(e.shape, vec!["the body is not JSON".to_string()]);
    }
}
