//! Read-only probes of one v1.0 HTTP+JSON interface (§11): statuses and google.rpc.Status bodies with their
//! ErrorInfo reasons (§11.6, §5.4), the capability gates (§3.3.4), version negotiation (§3.6.2), content
//! types (§11.1). Every call names a task id no agent has, or is malformed, so nothing can be created.

use reqwest::Method;

use super::answer::{A2A_DOMAIN, RestError, rest};
use super::exchange::{Probe, Prober, Reply};
use super::plan::{Caps, Interface};
use super::report::{Finding, Outcome};

/// Requests these probes send at most.
pub const REQUESTS: usize = 14;

const JSON: &str = "application/a2a+json";

struct Calls<'a> {
    prober: &'a Prober,
    base: String,
    replies: Vec<Reply>,
    /// Error replies that should carry an A2A ErrorInfo (the A2A errors, not 404s of unknown routes).
    a2a_errors: Vec<Reply>,
}

impl Calls<'_> {
    fn probe(&self, method: Method, path: &str, version: Option<&str>) -> Probe {
        let mut p = Probe::new(method, format!("{}{path}", self.base)).header("Accept", JSON);
        if let Some(v) = version {
            p = p.header("A2A-Version", v);
        }
        p
    }

    async fn send(&mut self, probe: Probe) -> (Option<RestError>, Reply) {
        let reply = self.prober.send(probe).await;
        self.replies.push(reply.clone());
        (rest(&reply), reply)
    }

    async fn get(&mut self, path: &str) -> (Option<RestError>, Reply) {
        let p = self.probe(Method::GET, path, Some("1.0"));
        self.send(p).await
    }

    async fn post(&mut self, path: &str, ct: &str, body: &[u8]) -> (Option<RestError>, Reply) {
        let p = self
            .probe(Method::POST, path, Some("1.0"))
            .header("Content-Type", ct)
            .body(body.to_vec());
        self.send(p).await
    }

    /// Keep `reply` for the error-body requirement: an A2A error must carry ErrorInfo.
    fn a2a(&mut self, reply: &Reply) {
        if reply.status.is_some_and(|s| s >= 400) {
            self.a2a_errors.push(reply.clone());
        }
    }
}

fn described(e: &Option<RestError>, reply: &Reply) -> String {
    match e {
        Some(e) => e.describe(),
        None => reply.error.clone().unwrap_or_else(|| "no answer".into()),
    }
}

/// `status` and `reason` expected (`statuses` lists what each spec version gives).
fn expect(e: &Option<RestError>, reply: &Reply, statuses: &[u16], reason: &str) -> Outcome {
    let ok = e
        .as_ref()
        .is_some_and(|e| statuses.contains(&e.status) && e.reason.as_deref() == Some(reason));
    if ok {
        Outcome::pass(described(e, reply))
    } else {
        let want: Vec<String> = statuses.iter().map(u16::to_string).collect();
        Outcome::fail(format!(
            "expected HTTP {} {reason}, got {}",
            want.join(" or "),
            described(e, reply)
        ))
        .with(&reply.exchange)
    }
}

fn reason_is(e: &Option<RestError>, reason: &str) -> bool {
    e.as_ref().and_then(|e| e.reason.as_deref()) == Some(reason)
}

/// Run the probes of one HTTP+JSON interface.
pub async fn probe(prober: &Prober, iface: &Interface, caps: &Caps, out: &mut Vec<Finding>) {
    let on = Some(iface.label.as_str());
    let unknown = super::plan::unknown_task_id();
    let mut c = Calls {
        prober,
        base: iface.url.trim_end_matches('/').to_string(),
        replies: Vec::new(),
        a2a_errors: Vec::new(),
    };
    let task = format!("/tasks/{unknown}");
    let (get, get_reply) = c.get(&task).await;
    if get_reply.status.is_none() {
        let why = get_reply.error.clone().unwrap_or_default();
        for r in super::requirement::CATALOGUE.iter().filter(|r| {
            r.area == super::requirement::Area::HttpJson || r.id.starts_with("version.")
        }) {
            out.push(Finding::new(
                r.id,
                on,
                Outcome::fail(format!("the interface did not answer: {why}"))
                    .with(&get_reply.exchange),
            ));
        }
        return;
    }
    c.a2a(&get_reply);
    out.push(Finding::new(
        "version.supported",
        on,
        if reason_is(&get, "VERSION_NOT_SUPPORTED") {
            Outcome::fail("A2A-Version: 1.0 refused on an interface that declares 1.0")
                .with(&get_reply.exchange)
        } else {
            Outcome::pass(format!("processed: {}", described(&get, &get_reply)))
        },
    ));
    let (cancel, cancel_reply) = c.post(&format!("{task}:cancel"), JSON, b"{}").await;
    c.a2a(&cancel_reply);
    let get_ok = expect(&get, &get_reply, &[404], "TASK_NOT_FOUND");
    let cancel_ok = expect(&cancel, &cancel_reply, &[404], "TASK_NOT_FOUND");
    out.push(Finding::new(
        "rest.task-not-found",
        on,
        match (get_ok.verdict, cancel_ok.verdict) {
            (super::requirement::Verdict::Pass, super::requirement::Verdict::Pass) => {
                Outcome::pass("GET and :cancel: 404 TASK_NOT_FOUND")
            }
            (super::requirement::Verdict::Pass, _) => cancel_ok,
            _ => get_ok,
        },
    ));

    let p = c.probe(Method::GET, &task, Some("99.0"));
    let (v99, v99_reply) = c.send(p).await;
    c.a2a(&v99_reply);
    out.push(Finding::new(
        "version.unsupported",
        on,
        expect(&v99, &v99_reply, &[400], "VERSION_NOT_SUPPORTED"),
    ));
    let p = c.probe(Method::GET, &task, None);
    let (none, none_reply) = c.send(p).await;
    out.push(Finding::new(
        "version.absent-is-0.3",
        on,
        if reason_is(&none, "VERSION_NOT_SUPPORTED") {
            Outcome::pass(described(&none, &none_reply))
        } else if reason_is(&none, "TASK_NOT_FOUND") {
            Outcome::fail("without A2A-Version, GET /tasks/{id} was processed as 1.0 (TASK_NOT_FOUND); 0.3's route was /v1/tasks/{id}")
                .with(&none_reply.exchange)
        } else {
            Outcome::warn(format!("unclear answer without A2A-Version: {}", described(&none, &none_reply)))
                .with(&none_reply.exchange)
        },
    ));

    let (malformed, malformed_reply) = c.post("/message:send", JSON, b"{\"message\": ").await;
    out.push(Finding::new(
        "rest.malformed-json",
        on,
        status_is(&malformed, &malformed_reply, 400, "a body that is not JSON"),
    ));
    let (params, params_reply) = c.post("/message:send", JSON, br#"{"message": 5}"#).await;
    out.push(Finding::new(
        "rest.invalid-params",
        on,
        status_is(&params, &params_reply, 400, "a message that is a number"),
    ));
    let (route, route_reply) = c.get("/a2a-console-check-no-such-route").await;
    out.push(Finding::new(
        "rest.unknown-route",
        on,
        match route.as_ref().map(|e| e.status) {
            Some(404 | 405) => Outcome::pass(described(&route, &route_reply)),
            _ => Outcome::fail(format!(
                "expected 404, got {}",
                described(&route, &route_reply)
            ))
            .with(&route_reply.exchange),
        },
    ));
    let (ct, ct_reply) = c.post(&format!("{task}:cancel"), "text/plain", b"{}").await;
    out.push(Finding::new(
        "rest.request-content-type",
        on,
        if reason_is(&ct, "TASK_NOT_FOUND") {
            Outcome::fail("a text/plain body was processed like JSON (the task was looked up)")
                .with(&ct_reply.exchange)
        } else if ct.as_ref().is_some_and(|e| matches!(e.status, 400 | 415)) {
            Outcome::pass(described(&ct, &ct_reply))
        } else {
            Outcome::fail(format!("unclear answer: {}", described(&ct, &ct_reply)))
                .with(&ct_reply.exchange)
        },
    ));
    let (list, list_reply) = c
        .get("/tasks?pageToken=a2a-console-check-not-a-token")
        .await;
    out.push(Finding::new(
        "rest.list-bad-page-token",
        on,
        status_is(&list, &list_reply, 400, "a page token it never issued"),
    ));
    let (push, push_reply) = c.get(&format!("{task}/pushNotificationConfigs")).await;
    c.a2a(&push_reply);
    out.push(Finding::new(
        "rest.push-not-supported",
        on,
        gated(
            caps.push,
            &push,
            &push_reply,
            "PUSH_NOTIFICATION_NOT_SUPPORTED",
            "push notifications",
        ),
    ));
    let (sub, sub_reply) = c.post(&format!("{task}:subscribe"), JSON, b"{}").await;
    c.a2a(&sub_reply);
    out.push(Finding::new(
        "rest.streaming-not-supported",
        on,
        gated(
            caps.streaming,
            &sub,
            &sub_reply,
            "UNSUPPORTED_OPERATION",
            "streaming",
        ),
    ));
    extended(&mut c, caps, on, out).await;
    judge_bodies(&c, on, out);
}

/// HTTP `status` expected (no particular reason).
fn status_is(e: &Option<RestError>, reply: &Reply, status: u16, what: &str) -> Outcome {
    match e {
        Some(e) if e.status == status => Outcome::pass(format!("{what}: HTTP {status}")),
        _ => Outcome::fail(format!(
            "{what}: expected HTTP {status}, got {}",
            described(e, reply)
        ))
        .with(&reply.exchange),
    }
}

/// A capability gate (§3.3.4) over HTTP+JSON: 400 with `reason` when undeclared, the unknown task's 404 when
/// declared.
fn gated(
    declared: bool,
    e: &Option<RestError>,
    reply: &Reply,
    reason: &str,
    what: &str,
) -> Outcome {
    let is_404 = reason_is(e, "TASK_NOT_FOUND");
    match (declared, reason_is(e, reason)) {
        (false, true) => expect(e, reply, &[400], reason).with(&reply.exchange),
        (false, false) if is_404 => Outcome::warn(format!(
            "{what} not declared, but the answer was TASK_NOT_FOUND rather than {reason}"
        ))
        .with(&reply.exchange),
        (false, false) => Outcome::fail(format!(
            "{what} not declared: expected HTTP 400 {reason}, got {}",
            described(e, reply)
        ))
        .with(&reply.exchange),
        (true, true) => Outcome::fail(format!(
            "{what} is declared in the card, yet the call got {reason}"
        ))
        .with(&reply.exchange),
        (true, false) if is_404 => Outcome::pass(format!(
            "{what} declared: TASK_NOT_FOUND for an unknown task"
        )),
        (true, false) => Outcome::warn(format!(
            "{what} declared: expected 404 TASK_NOT_FOUND for an unknown task, got {}",
            described(e, reply)
        ))
        .with(&reply.exchange),
    }
}

async fn extended(c: &mut Calls<'_>, caps: &Caps, on: Option<&str>, out: &mut Vec<Finding>) {
    if !caps.extended {
        let (e, reply) = c.get("/extendedAgentCard").await;
        c.a2a(&reply);
        out.push(Finding::new(
            "extended-card.declared",
            on,
            expect(&e, &reply, &[400], "UNSUPPORTED_OPERATION"),
        ));
        return;
    }
    let p = c
        .probe(Method::GET, "/extendedAgentCard", Some("1.0"))
        .anonymous();
    let (e, reply) = c.send(p).await;
    out.push(Finding::new(
        "extended-card.needs-auth",
        on,
        match e.as_ref().map(|e| e.status) {
            Some(200) => {
                Outcome::fail("the extended card was served to a request without credentials")
                    .with(&reply.exchange)
            }
            Some(401 | 403) => Outcome::pass(described(&e, &reply)),
            // Refused, but not as an authentication error (§3.3.2: 401 or 403).
            Some(s) if s >= 400 => Outcome::warn(format!(
                "refused without credentials, but with {} rather than 401 or 403 (§3.3.2)",
                described(&e, &reply)
            ))
            .with(&reply.exchange),
            _ => Outcome::warn(format!("unclear answer: {}", described(&e, &reply)))
                .with(&reply.exchange),
        },
    ));
    if !super::plan::can_ask_for_extended_card(c.prober, on, out) {
        return;
    }
    let (_, reply) = c.get("/extendedAgentCard").await;
    out.push(Finding::new(
        "extended-card.served",
        on,
        match reply.json() {
            Some(v) if reply.status == Some(200) && v.get("name").is_some() => {
                Outcome::pass("served")
            }
            _ => Outcome::fail(format!(
                "declared, but not served to the credential: {}",
                super::discovery::describe(&reply)
            ))
            .with(&reply.exchange),
        },
    ));
}

/// The error bodies and the content types, over every answer this interface gave.
fn judge_bodies(c: &Calls<'_>, on: Option<&str>, out: &mut Vec<Finding>) {
    let mut problems: Vec<String> = Vec::new();
    let mut evidence = Vec::new();
    for reply in &c.a2a_errors {
        let Some(e) = rest(reply) else { continue };
        let mut p = e.shape.clone();
        if e.reason.is_none() {
            p.push("no google.rpc.ErrorInfo with a reason".into());
        } else if e.domain.as_deref() != Some(A2A_DOMAIN) {
            p.push(format!("ErrorInfo domain is not {A2A_DOMAIN}"));
        }
        if !p.is_empty() {
            evidence.push(reply.exchange.clone());
            problems.extend(p.into_iter().map(|x| format!("HTTP {}: {x}", e.status)));
        }
    }
    problems.sort();
    problems.dedup();
    out.push(Finding::new(
        "rest.error-body",
        on,
        if problems.is_empty() {
            Outcome::pass("every A2A error was google.rpc.Status with an ErrorInfo")
        } else {
            Outcome::fail(problems.join("; ")).with_all(evidence.iter().take(2))
        },
    ));
    let mut types: Vec<String> = c
        .replies
        .iter()
        .filter(|r| r.status.is_some() && !r.body.is_empty())
        .map(Reply::media_type)
        .filter(|m| m != JSON)
        .collect();
    types.sort();
    types.dedup();
    out.push(Finding::new(
        "rest.response-content-type",
        on,
        if types.is_empty() {
            Outcome::pass("every answer was application/a2a+json")
        } else {
            let example = c
                .replies
                .iter()
                .find(|r| r.status.is_some() && !r.body.is_empty() && r.media_type() != JSON);
            let o = Outcome::fail(format!(
                "answered as {} (§11.1 asks for application/a2a+json)",
                types
                    .iter()
                    .map(|t| if t.is_empty() { "no type" } else { t.as_str() })
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            match example {
                Some(r) => o.with(&r.exchange),
                None => o,
            }
        },
    ));
}
