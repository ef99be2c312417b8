//! One interface called the same way over either HTTP binding, for the active probes: a message sent (blocking
//! or streamed), a task read, listed, canceled or subscribed to, and what came back read as a result, an A2A
//! error or a list of stream events. The read-only probes build their requests by hand (the point is to get
//! them wrong); these build the requests a client sends.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use super::answer::{Rpc, rest, rpc, sse_data};
use super::exchange::{Probe, Prober, Reply};
use super::plan::Interface;

/// What a call came back with.
#[derive(Clone, Debug, PartialEq)]
pub enum Got {
    /// The result (JSON-RPC `result`, or an HTTP+JSON 2xx body).
    Ok(Value),
    /// An error: the JSON-RPC code or the HTTP status, and the ErrorInfo reason.
    Err {
        code: Option<i64>,
        status: Option<u16>,
        reason: Option<String>,
    },
    /// Nothing usable: what it was instead.
    Nothing(String),
}

impl Got {
    /// Is this the A2A error with JSON-RPC `code` / ErrorInfo `reason`?
    pub fn is(&self, code: i64, reason: &str) -> bool {
        match self {
            Got::Err {
                code: c, reason: r, ..
            } => *c == Some(code) || r.as_deref() == Some(reason),
            _ => false,
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Got::Ok(_) => "a result".into(),
            Got::Err {
                code,
                status,
                reason,
            } => {
                let mut s = String::from("error");
                if let Some(c) = code {
                    s.push_str(&format!(" {c}"));
                }
                if let Some(st) = status {
                    s.push_str(&format!(" HTTP {st}"));
                }
                if let Some(r) = reason {
                    s.push_str(&format!(" {r}"));
                }
                s
            }
            Got::Nothing(why) => why.clone(),
        }
    }
}

/// Calls to one interface.
pub struct Api<'a> {
    pub prober: &'a Prober,
    pub iface: &'a Interface,
    rest: bool,
}

/// How long a probe reads a stream before it calls it still open.
pub const STREAM_READ: Duration = Duration::from_secs(60);

impl<'a> Api<'a> {
    pub fn new(prober: &'a Prober, iface: &'a Interface) -> Self {
        Self {
            prober,
            iface,
            rest: iface.binding == "HTTP+JSON",
        }
    }

    fn base(&self) -> &str {
        self.iface.url.trim_end_matches('/')
    }

    fn rpc_probe(&self, method: &str, params: Value) -> Probe {
        Probe::new(Method::POST, &self.iface.url)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("A2A-Version", "1.0")
            .json(&json!({"jsonrpc": "2.0", "id": uuid::Uuid::new_v4().to_string(), "method": method, "params": params}))
    }

    fn rest_probe(&self, method: Method, path: &str, body: Option<Value>) -> Probe {
        let mut p = Probe::new(method, format!("{}{path}", self.base()))
            .header(
                "Accept",
                "application/a2a+json, application/json, text/event-stream",
            )
            .header("A2A-Version", "1.0");
        if let Some(b) = body {
            p = p.header("Content-Type", "application/a2a+json").json(&b);
        }
        p
    }

    /// The request body of a message: a user message with one text part, in `context` when given.
    pub fn message(text: &str, context: Option<&str>) -> Value {
        let mut m = json!({"messageId": uuid::Uuid::new_v4().to_string(), "role": "ROLE_USER", "parts": [{"text": text}]});
        if let Some(c) = context {
            m["contextId"] = c.into();
        }
        json!({"message": m})
    }

    /// SendMessage (blocking) or SendStreamingMessage.
    pub async fn send(&self, text: &str, context: Option<&str>, stream: bool) -> Reply {
        let body = Self::message(text, context);
        let probe = match (self.rest, stream) {
            (false, false) => self.rpc_probe("SendMessage", body),
            (false, true) => self.rpc_probe("SendStreamingMessage", body),
            (true, false) => self.rest_probe(Method::POST, "/message:send", Some(body)),
            (true, true) => self.rest_probe(Method::POST, "/message:stream", Some(body)),
        };
        self.prober.send(probe.stream_for(STREAM_READ)).await
    }

    pub async fn get_task(&self, id: &str, history: Option<i32>) -> Reply {
        let probe = if self.rest {
            let q = history
                .map(|h| format!("?historyLength={h}"))
                .unwrap_or_default();
            self.rest_probe(Method::GET, &format!("/tasks/{}{q}", encode(id)), None)
        } else {
            let mut p = json!({"id": id});
            if let Some(h) = history {
                p["historyLength"] = h.into();
            }
            self.rpc_probe("GetTask", p)
        };
        self.prober.send(probe).await
    }

    pub async fn list(&self, context: &str) -> Reply {
        let probe = if self.rest {
            self.rest_probe(
                Method::GET,
                &format!("/tasks?contextId={}", encode(context)),
                None,
            )
        } else {
            self.rpc_probe("ListTasks", json!({"contextId": context}))
        };
        self.prober.send(probe).await
    }

    pub async fn cancel(&self, id: &str) -> Reply {
        let probe = if self.rest {
            self.rest_probe(
                Method::POST,
                &format!("/tasks/{}:cancel", encode(id)),
                Some(json!({})),
            )
        } else {
            self.rpc_probe("CancelTask", json!({"id": id}))
        };
        self.prober.send(probe).await
    }

    pub async fn subscribe(&self, id: &str) -> Reply {
        let probe = if self.rest {
            self.rest_probe(
                Method::POST,
                &format!("/tasks/{}:subscribe", encode(id)),
                Some(json!({})),
            )
        } else {
            self.rpc_probe("SubscribeToTask", json!({"id": id}))
        };
        self.prober
            .send(probe.stream_for(Duration::from_secs(3)))
            .await
    }

    /// A unary answer read as a result or an error.
    pub fn got(&self, reply: &Reply) -> Got {
        if reply.status.is_none() {
            return Got::Nothing(reply.error.clone().unwrap_or_else(|| "no answer".into()));
        }
        if self.rest {
            if reply.media_type() == "text/event-stream" {
                return match sse_data(&String::from_utf8_lossy(&reply.body)).first() {
                    Some(d) => serde_json::from_str(d).map_or_else(
                        |_| Got::Nothing("an event that is not JSON".into()),
                        Got::Ok,
                    ),
                    None => Got::Nothing("an event stream with no event".into()),
                };
            }
            if reply.status.is_some_and(|s| (200..300).contains(&s)) {
                return reply
                    .json()
                    .map_or_else(|| Got::Nothing("a body that is not JSON".into()), Got::Ok);
            }
            let e = rest(reply).unwrap_or_default();
            return Got::Err {
                code: None,
                status: Some(e.status),
                reason: e.reason,
            };
        }
        match rpc(reply, &mut Vec::new()) {
            Rpc::Result(v) => Got::Ok(v),
            Rpc::Error { code, reasons } => Got::Err {
                code: Some(code),
                status: reply.status,
                reason: reasons.into_iter().next(),
            },
            Rpc::NotRpc(why) => Got::Nothing(why),
        }
    }

    /// The StreamResponse of each event of a stream (a JSON-RPC event's `result`); an error event ends the
    /// list and is returned beside it.
    pub fn events(&self, reply: &Reply) -> (Vec<Value>, Option<String>) {
        let mut out = Vec::new();
        if reply.media_type() != "text/event-stream" {
            // An error before the stream started comes as a plain answer.
            return (out, Some(self.got(reply).describe()));
        }
        for data in sse_data(&String::from_utf8_lossy(&reply.body)) {
            let Ok(v) = serde_json::from_str::<Value>(&data) else {
                return (out, Some("an event that is not JSON".into()));
            };
            let payload = if self.rest {
                Some(v.clone())
            } else {
                v.get("result").cloned()
            };
            match payload {
                Some(p) if p.get("error").is_none() => out.push(p),
                _ => {
                    let err = v
                        .get("error")
                        .map(|e| crate::trust::sanitize::sanitize_line(&e.to_string()).0);
                    return (
                        out,
                        Some(format!("error event: {}", err.unwrap_or_default())),
                    );
                }
            }
        }
        (out, None)
    }
}

/// A path segment percent-encoded (a task id is the agent's text).
fn encode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}
