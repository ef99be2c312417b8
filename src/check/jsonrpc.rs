//! Read-only probes of one JSON-RPC interface (§9, JSON-RPC 2.0 §5.1): the standard errors, the A2A errors for
//! an unknown task, the capability gates (§3.3.4), version negotiation (§3.6.2), content types. Nothing here
//! can create anything: every call names a task id no agent has.
//!
//! A v0.3 interface gets the same probes in 0.3's method names (`tasks/get` …) and without `A2A-Version`;
//! what 0.3 does not have (version negotiation, ListTasks) is skipped with that reason. The error codes are
//! the same in both versions.

use reqwest::Method;
use serde_json::{Value, json};

use super::answer::{Rpc, rpc};
use super::exchange::{Probe, Prober, Reply};
use super::plan::{Caps, Interface};
use super::report::{Finding, Outcome};

/// Requests these probes send at most.
pub const REQUESTS: usize = 14;

const TASK_NOT_FOUND: i64 = -32001;
const PUSH_NOT_SUPPORTED: i64 = -32003;
const UNSUPPORTED_OPERATION: i64 = -32004;
const VERSION_NOT_SUPPORTED: i64 = -32009;

struct Rpcs<'a> {
    prober: &'a Prober,
    iface: &'a Interface,
    /// Every reply, for the content-type and error-shape requirements.
    replies: Vec<Reply>,
    shape: Vec<String>,
    /// The exchanges whose error objects were misshapen, with what was off in each.
    misshapen: Vec<(Vec<String>, super::exchange::Exchange)>,
    /// The interface speaks A2A 0.3.
    v03: bool,
}

impl Rpcs<'_> {
    /// A v1.0 method's name in the interface's version.
    fn m(&self, v10: &'static str) -> &'static str {
        if !self.v03 {
            return v10;
        }
        match v10 {
            "GetTask" => "tasks/get",
            "CancelTask" => "tasks/cancel",
            "ListTaskPushNotificationConfigs" => "tasks/pushNotificationConfig/list",
            "SubscribeToTask" => "tasks/resubscribe",
            "GetExtendedAgentCard" => "agent/getAuthenticatedExtendedCard",
            other => other,
        }
    }

    /// The `A2A-Version` the interface's requests carry (0.3 clients send none).
    fn version(&self) -> Option<&'static str> {
        (!self.v03).then_some("1.0")
    }

    fn request(&self, body: Vec<u8>, version: Option<&str>, content_type: &str) -> Probe {
        let mut p = Probe::new(Method::POST, &self.iface.url)
            .header("Content-Type", content_type)
            .header("Accept", "application/json, text/event-stream")
            .body(body);
        if let Some(v) = version {
            p = p.header("A2A-Version", v);
        }
        p
    }

    async fn send_raw(&mut self, body: Vec<u8>, version: Option<&str>, ct: &str) -> (Rpc, Reply) {
        let reply = self.prober.send(self.request(body, version, ct)).await;
        let before = self.shape.len();
        let answer = rpc(&reply, &mut self.shape);
        if self.shape.len() > before {
            let off = self.shape.get(before..).unwrap_or_default().to_vec();
            self.misshapen.push((off, reply.exchange.clone()));
        }
        self.replies.push(reply.clone());
        (answer, reply)
    }

    async fn call(&mut self, method: &'static str, params: Value) -> (Rpc, Reply) {
        let (method, version) = (self.m(method), self.version());
        self.call_as(method, params, version).await
    }

    async fn call_as(
        &mut self,
        method: &str,
        params: Value,
        version: Option<&str>,
    ) -> (Rpc, Reply) {
        let id = self.replies.len() + 1;
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_raw(body.to_string().into_bytes(), version, "application/json")
            .await
    }
}

/// `code` expected: PASS, else FAIL with the evidence.
fn expect(answer: &Rpc, reply: &Reply, code: i64, name: &str) -> Outcome {
    if answer.code() == Some(code) {
        Outcome::pass(format!("{name} ({code})"))
    } else {
        Outcome::fail(format!(
            "expected {name} ({code}), got {}",
            answer.describe()
        ))
        .with(&reply.exchange)
    }
}

/// Run the probes of one JSON-RPC interface.
pub async fn probe(prober: &Prober, iface: &Interface, caps: &Caps, out: &mut Vec<Finding>) {
    let on = Some(iface.label.as_str());
    let unknown = super::plan::unknown_task_id();
    let mut r = Rpcs {
        prober,
        iface,
        replies: Vec::new(),
        shape: Vec::new(),
        misshapen: Vec::new(),
        v03: iface.version.starts_with("0."),
    };
    let first = out.len();

    let (get, get_reply) = r.call("GetTask", json!({"id": unknown})).await;
    if get_reply.status.is_none() {
        let why = get_reply.error.clone().unwrap_or_default();
        for id in [
            "version.supported",
            "version.unsupported",
            "version.absent-is-0.3",
            "jsonrpc.parse-error",
            "jsonrpc.invalid-request",
            "jsonrpc.method-not-found",
            "jsonrpc.invalid-params",
            "jsonrpc.request-content-type",
            "jsonrpc.response-content-type",
            "jsonrpc.error-shape",
            "jsonrpc.task-not-found",
            "jsonrpc.list-bad-page-token",
            "jsonrpc.push-not-supported",
            "jsonrpc.streaming-not-supported",
            "extended-card.declared",
        ] {
            out.push(Finding::new(
                id,
                on,
                Outcome::fail(format!("the interface did not answer: {why}"))
                    .with(&get_reply.exchange),
            ));
        }
        return;
    }
    versions(&mut r, &get, &get_reply, &unknown, out).await;
    let (cancel, cancel_reply) = r.call("CancelTask", json!({"id": unknown})).await;
    let get_ok = get.code() == Some(TASK_NOT_FOUND);
    let cancel_ok = cancel.code() == Some(TASK_NOT_FOUND);
    out.push(Finding::new(
        "jsonrpc.task-not-found",
        on,
        match (get_ok, cancel_ok) {
            (true, true) => Outcome::pass("GetTask and CancelTask: -32001"),
            (false, _) => expect(
                &get,
                &get_reply,
                TASK_NOT_FOUND,
                "TaskNotFoundError for GetTask",
            ),
            (true, false) => expect(
                &cancel,
                &cancel_reply,
                TASK_NOT_FOUND,
                "TaskNotFoundError for CancelTask",
            ),
        },
    ));

    let (parse, parse_reply) = r
        .send_raw(
            b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": ".to_vec(),
            r.version(),
            "application/json",
        )
        .await;
    out.push(Finding::new(
        "jsonrpc.parse-error",
        on,
        expect(&parse, &parse_reply, -32700, "parse error"),
    ));
    let (invalid, invalid_reply) = r
        .send_raw(
            br#"{"jsonrpc": "2.0", "id": 2}"#.to_vec(),
            r.version(),
            "application/json",
        )
        .await;
    out.push(Finding::new(
        "jsonrpc.invalid-request",
        on,
        expect(&invalid, &invalid_reply, -32600, "invalid request"),
    ));
    let (unknown_m, unknown_reply) = r.call("NoSuchMethodFromA2aConsoleCheck", json!({})).await;
    out.push(Finding::new(
        "jsonrpc.method-not-found",
        on,
        expect(&unknown_m, &unknown_reply, -32601, "method not found"),
    ));
    let (params, params_reply) = r
        .call("GetTask", json!({"id": ["not", "a", "string"]}))
        .await;
    out.push(Finding::new(
        "jsonrpc.invalid-params",
        on,
        expect(&params, &params_reply, -32602, "invalid params"),
    ));
    let body =
        json!({"jsonrpc": "2.0", "id": 9, "method": r.m("GetTask"), "params": {"id": unknown}});
    let version = r.version();
    let (ct, ct_reply) = r
        .send_raw(body.to_string().into_bytes(), version, "text/plain")
        .await;
    out.push(Finding::new(
        "jsonrpc.request-content-type",
        on,
        match (ct_reply.status, ct.code()) {
            (Some(415), _) => Outcome::pass("HTTP 415"),
            (_, Some(TASK_NOT_FOUND)) => {
                Outcome::fail("a text/plain request was processed like application/json")
                    .with(&ct_reply.exchange)
            }
            (_, Some(c)) => Outcome::pass(format!("refused: error {c}")),
            _ => {
                Outcome::fail(format!("unclear answer: {}", ct.describe())).with(&ct_reply.exchange)
            }
        },
    ));
    if r.v03 {
        out.push(Finding::new(
            "jsonrpc.list-bad-page-token",
            on,
            Outcome::skip("a v0.3 interface: 0.3 has no ListTasks"),
        ));
    } else {
        let (list, list_reply) = r
            .call(
                "ListTasks",
                json!({"pageToken": "a2a-console-check-not-a-token"}),
            )
            .await;
        out.push(Finding::new(
            "jsonrpc.list-bad-page-token",
            on,
            match list.code() {
                Some(-32602) => Outcome::pass("invalid params (-32602)"),
                Some(c) => Outcome::fail(format!("error {c}, not invalid params (-32602)"))
                    .with(&list_reply.exchange),
                None => Outcome::fail(format!(
                    "a page token it never issued was accepted: {}",
                    list.describe()
                ))
                .with(&list_reply.exchange),
            },
        ));
    }
    let (push, push_reply) = r
        .call(
            "ListTaskPushNotificationConfigs",
            if r.v03 {
                json!({"id": unknown})
            } else {
                json!({"taskId": unknown})
            },
        )
        .await;
    out.push(Finding::new(
        "jsonrpc.push-not-supported",
        on,
        gated(
            caps.push,
            &push,
            &push_reply,
            PUSH_NOT_SUPPORTED,
            "PushNotificationNotSupportedError",
            "push notifications",
        ),
    ));
    let (sub, sub_reply) = r.call("SubscribeToTask", json!({"id": unknown})).await;
    out.push(Finding::new(
        "jsonrpc.streaming-not-supported",
        on,
        gated(
            caps.streaming,
            &sub,
            &sub_reply,
            UNSUPPORTED_OPERATION,
            "UnsupportedOperationError",
            "streaming",
        ),
    ));
    extended(&mut r, caps, out).await;

    let mut bad_types: Vec<String> = Vec::new();
    let mut evidence = Vec::new();
    for reply in &r.replies {
        let mt = reply.media_type();
        if reply.status.is_some() && mt != "application/json" && mt != "text/event-stream" {
            bad_types.push(if mt.is_empty() { "none".into() } else { mt });
            evidence.push(reply.exchange.clone());
        }
    }
    out.push(Finding::new(
        "jsonrpc.response-content-type",
        on,
        if bad_types.is_empty() {
            Outcome::pass("every answer was application/json")
        } else {
            bad_types.dedup();
            Outcome::fail(format!("answered as {}", bad_types.join(", ")))
                .with_all(evidence.iter().take(2))
        },
    ));
    // 0.3's error.data was any value; the list of @type objects is v1.0's (§9.5).
    let v03 = r.v03;
    let counts = |p: &String| !(v03 && (p.contains("@type") || p.contains("error.data")));
    let mut shape: Vec<String> = std::mem::take(&mut r.shape)
        .into_iter()
        .filter(counts)
        .collect();
    let evidence: Vec<super::exchange::Exchange> = r
        .misshapen
        .iter()
        .filter(|(off, _)| off.iter().any(counts))
        .map(|(_, e)| e.clone())
        .collect();
    shape.sort();
    shape.dedup();
    out.push(Finding::new(
        "jsonrpc.error-shape",
        on,
        if shape.is_empty() {
            Outcome::pass("every error was a well-formed JSON-RPC error")
        } else {
            Outcome::fail(shape.join("; ")).with_all(evidence.iter().take(2))
        },
    ));
    if r.v03 {
        soften_03(out.get_mut(first..).unwrap_or_default());
    }
}

/// v0.3 asked for its A2A error codes with a SHOULD (v0.3 §8.2: "Servers SHOULD use these codes"): a miss of
/// one on a 0.3 interface is a WARN. JSON-RPC's own codes stay a MUST.
fn soften_03(findings: &mut [Finding]) {
    const A2A_CODES: &[&str] = &[
        "jsonrpc.task-not-found",
        "jsonrpc.push-not-supported",
        "jsonrpc.streaming-not-supported",
    ];
    for f in findings.iter_mut() {
        if f.verdict == super::requirement::Verdict::Fail && A2A_CODES.contains(&f.id) {
            f.verdict = super::requirement::Verdict::Warn;
            f.reason
                .push_str(" (v0.3 §8.2 makes A2A error codes a SHOULD)");
        }
    }
}

/// Version negotiation (§3.6.2): the interface's own version processed, 99.0 refused, none taken as 0.3. A
/// v0.3 interface has no negotiation: skipped.
async fn versions(
    r: &mut Rpcs<'_>,
    get: &Rpc,
    get_reply: &Reply,
    unknown: &str,
    out: &mut Vec<Finding>,
) {
    let on = Some(r.iface.label.as_str());
    if r.v03 {
        for id in [
            "version.supported",
            "version.unsupported",
            "version.absent-is-0.3",
        ] {
            out.push(Finding::new(
                id,
                on,
                Outcome::skip("a v0.3 interface: A2A-Version negotiation is v1.0's"),
            ));
        }
        return;
    }
    out.push(Finding::new(
        "version.supported",
        on,
        if get.code() == Some(VERSION_NOT_SUPPORTED) {
            Outcome::fail("A2A-Version: 1.0 refused on an interface that declares 1.0")
                .with(&get_reply.exchange)
        } else if matches!(get, Rpc::NotRpc(_)) {
            Outcome::fail(format!("not a JSON-RPC answer: {}", get.describe()))
                .with(&get_reply.exchange)
        } else {
            Outcome::pass(format!("processed: {}", get.describe()))
        },
    ));
    let (v99, v99_reply) = r
        .call_as("GetTask", json!({"id": unknown}), Some("99.0"))
        .await;
    out.push(Finding::new(
        "version.unsupported",
        on,
        expect(
            &v99,
            &v99_reply,
            VERSION_NOT_SUPPORTED,
            "VersionNotSupportedError for A2A-Version: 99.0",
        ),
    ));
    let (none, none_reply) = r.call_as("GetTask", json!({"id": unknown}), None).await;
    out.push(Finding::new(
        "version.absent-is-0.3",
        on,
        match none.code() {
            // 0.3 has no method called GetTask (it was tasks/get), so "method not found" is 0.3's answer too.
            Some(VERSION_NOT_SUPPORTED) | Some(-32601) => Outcome::pass(none.describe()),
            Some(TASK_NOT_FOUND) => Outcome::fail(
                "without A2A-Version, GetTask was processed as 1.0 (TaskNotFoundError); 0.3 has no GetTask",
            )
            .with(&none_reply.exchange),
            _ => Outcome::warn(format!("unclear answer without A2A-Version: {}", none.describe()))
                .with(&none_reply.exchange),
        },
    ));
}

/// A capability gate (§3.3.4): without the capability, `code`; with it, the unknown task's -32001.
fn gated(
    declared: bool,
    answer: &Rpc,
    reply: &Reply,
    code: i64,
    name: &str,
    what: &str,
) -> Outcome {
    match (declared, answer.code()) {
        (false, Some(c)) if c == code => Outcome::pass(format!("{what} not declared: {name}")),
        // Which check comes first, capability or task, is not said; the unknown task may win.
        (false, Some(TASK_NOT_FOUND)) => Outcome::warn(format!(
            "{what} not declared, but the answer was TaskNotFoundError rather than {name} ({code})"
        ))
        .with(&reply.exchange),
        (false, _) => Outcome::fail(format!(
            "{what} not declared: expected {name} ({code}), got {}",
            answer.describe()
        ))
        .with(&reply.exchange),
        (true, Some(TASK_NOT_FOUND)) => Outcome::pass(format!(
            "{what} declared: TaskNotFoundError for an unknown task"
        )),
        (true, Some(c)) if c == code => Outcome::fail(format!(
            "{what} is declared in the card, yet the call got {name}"
        ))
        .with(&reply.exchange),
        (true, _) => Outcome::warn(format!(
            "{what} declared: expected TaskNotFoundError for an unknown task, got {}",
            answer.describe()
        ))
        .with(&reply.exchange),
    }
}

/// The extended card over JSON-RPC: refused when undeclared, not served anonymously, served to the credential.
async fn extended(r: &mut Rpcs<'_>, caps: &Caps, out: &mut Vec<Finding>) {
    let on = Some(r.iface.label.as_str());
    if !caps.extended {
        let (a, reply) = r.call("GetExtendedAgentCard", json!({})).await;
        if r.v03 {
            // 0.3 names no error for an extended card it does not declare: any error will do.
            out.push(Finding::new(
                "extended-card.declared",
                on,
                match &a {
                    Rpc::Error { .. } => Outcome::pass(a.describe()),
                    _ => Outcome::warn(format!("not declared, yet answered: {}", a.describe()))
                        .with(&reply.exchange),
                },
            ));
            return;
        }
        out.push(Finding::new(
            "extended-card.declared",
            on,
            expect(
                &a,
                &reply,
                UNSUPPORTED_OPERATION,
                "UnsupportedOperationError (extended card not declared)",
            ),
        ));
        return;
    }
    let body =
        json!({"jsonrpc": "2.0", "id": 90, "method": r.m("GetExtendedAgentCard"), "params": {}});
    let anon = r
        .request(
            body.to_string().into_bytes(),
            r.version(),
            "application/json",
        )
        .anonymous();
    let reply = r.prober.send(anon).await;
    let answer = rpc(&reply, &mut r.shape);
    r.replies.push(reply.clone());
    out.push(Finding::new(
        "extended-card.needs-auth",
        on,
        match (&answer, reply.status) {
            (Rpc::Result(_), _) => {
                Outcome::fail("the extended card was served to a request without credentials")
                    .with(&reply.exchange)
            }
            (_, Some(401 | 403)) => {
                Outcome::pass(format!("HTTP {}", reply.status.unwrap_or_default()))
            }
            (Rpc::Error { .. }, _) => Outcome::pass(answer.describe()),
            _ => Outcome::warn(format!("unclear answer: {}", answer.describe()))
                .with(&reply.exchange),
        },
    ));
    if !super::plan::can_ask_for_extended_card(r.prober, on, out) {
        return;
    }
    let (a, reply) = r.call("GetExtendedAgentCard", json!({})).await;
    out.push(Finding::new(
        "extended-card.served",
        on,
        match &a {
            Rpc::Result(Value::Object(card)) if card.contains_key("name") => {
                Outcome::pass("served")
            }
            _ => Outcome::fail(format!(
                "declared, but not served to the credential: {}",
                a.describe()
            ))
            .with(&reply.exchange),
        },
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::requirement::Verdict;

    #[test]
    fn a_03_interface_misses_an_a2a_code_as_a_should_and_a_json_rpc_code_as_a_must() {
        let mut f = vec![
            Finding::new(
                "jsonrpc.task-not-found",
                Some("x"),
                Outcome::fail("got -32602"),
            ),
            Finding::new(
                "jsonrpc.parse-error",
                Some("x"),
                Outcome::fail("got -32600"),
            ),
        ];
        soften_03(&mut f);
        assert_eq!(f[0].verdict, Verdict::Warn);
        assert!(f[0].reason.contains("v0.3 §8.2"));
        assert_eq!(f[1].verdict, Verdict::Fail);
    }
}
