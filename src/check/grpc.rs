//! Read-only probes of one v1.0 gRPC interface (§10): the status and the google.rpc.ErrorInfo of the A2A errors
//! (§10.6, §5.4), the capability gates (§3.3.4), version negotiation in the `a2a-version` metadata (§3.6.2,
//! §10.2) and the extended card. Calls go through the generated client of the official SDK's protobufs
//! (`a2a-pb`), so a status comes back exactly as the server sent it; the SDK's transport would map it to an
//! `A2AError` and lose the gRPC code.
//!
//! v1.0.0 gave UNIMPLEMENTED for the capability and version errors, v1.0.1 FAILED_PRECONDITION: both pass,
//! and the reason says which one it was.

use std::time::{Duration, Instant};

use a2a_pb::proto::a2a_service_client::A2aServiceClient;
use a2a_pb::proto::{
    CancelTaskRequest, GetExtendedAgentCardRequest, GetTaskRequest,
    ListTaskPushNotificationConfigsRequest, SubscribeToTaskRequest,
};
use tonic::Code;
use tonic::metadata::{MetadataKey, MetadataValue};
use tonic::transport::{Channel, Endpoint};
use tonic_types::StatusExt;

use super::answer::A2A_DOMAIN;
use super::exchange::{Exchange, Prober};
use super::plan::{Caps, Interface};
use super::report::{Finding, Outcome};
use crate::remote::connect::tls::TlsSettings;

/// Calls these probes make at most.
pub const REQUESTS: usize = 8;

/// What a call came back with.
#[derive(Clone, Debug)]
struct Answer {
    /// `None`: the call succeeded.
    code: Option<Code>,
    reason: Option<String>,
    domain: Option<String>,
    exchange: Exchange,
}

impl Answer {
    fn describe(&self) -> String {
        match (self.code, &self.reason) {
            (None, _) => "OK (a result, not an error)".into(),
            (Some(c), Some(r)) => format!("{} {r}", code_name(c)),
            (Some(c), None) => format!("{} (no ErrorInfo)", code_name(c)),
        }
    }
    fn is(&self, code: Code, reason: &str) -> bool {
        self.code == Some(code) && self.reason.as_deref() == Some(reason)
    }
    /// The capability and version errors: FAILED_PRECONDITION (v1.0.1) or UNIMPLEMENTED (v1.0.0).
    fn is_precondition(&self, reason: &str) -> bool {
        self.is(Code::FailedPrecondition, reason) || self.is(Code::Unimplemented, reason)
    }
}

fn code_name(c: Code) -> String {
    format!("{c:?}").chars().fold(String::new(), |mut s, ch| {
        if ch.is_uppercase() && !s.is_empty() {
            s.push('_');
        }
        s.push(ch.to_ascii_uppercase());
        s
    })
}

/// A channel to the interface: plain HTTP/2 for `http://` and `host:port`, TLS (the agent's `[agents.tls]`
/// roots and certificate) for `https://`, as the console's own gRPC connections are made.
async fn channel(
    url: &str,
    tls: Option<&TlsSettings>,
    timeout: Duration,
) -> Result<Channel, String> {
    let ep = Endpoint::from_shared(url.to_string())
        .map_err(|e| format!("not a gRPC endpoint: {e}"))?
        .connect_timeout(timeout)
        .timeout(timeout);
    if crate::remote::connect::grpc_tls::wants_tls(url) {
        let (config, _) =
            crate::remote::connect::grpc_tls::client_config(tls).map_err(|e| e.message)?;
        let host = url::Url::parse(url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
            .ok_or("the URL has no host")?;
        let name = rustls_pki_types::ServerName::try_from(host)
            .map_err(|e| format!("server name: {e}"))?;
        let connector = tonic_tls::rustls::TlsConnector::new(
            tonic_tls::TcpTransport::from_endpoint(&ep),
            config,
            name,
        );
        return ep
            .connect_with_connector(connector)
            .await
            .map_err(|e| format!("gRPC TLS connect: {}", crate::remote::http::error_chain(&e)));
    }
    ep.connect()
        .await
        .map_err(|e| format!("gRPC connect: {}", crate::remote::http::error_chain(&e)))
}

struct Calls<'a> {
    prober: &'a Prober,
    client: A2aServiceClient<Channel>,
    url: String,
    answers: Vec<Answer>,
}

impl Calls<'_> {
    fn request<T>(
        &self,
        msg: T,
        version: Option<&str>,
        anonymous: bool,
    ) -> (tonic::Request<T>, Vec<(String, String)>) {
        let mut req = tonic::Request::new(msg);
        let mut shown = Vec::new();
        if let Some(version) = version
            && let Ok(v) = MetadataValue::try_from(version)
        {
            req.metadata_mut().insert("a2a-version", v);
            shown.push(("a2a-version".into(), version.to_string()));
        }
        if !anonymous {
            for (k, v) in self.prober.credential_headers() {
                if let (Ok(key), Ok(val)) = (
                    MetadataKey::from_bytes(k.to_ascii_lowercase().as_bytes()),
                    MetadataValue::try_from(v.expose()),
                ) {
                    req.metadata_mut().insert(key, val);
                    shown.push((
                        k.to_ascii_lowercase(),
                        crate::trust::redact::REDACTED.into(),
                    ));
                }
            }
        }
        (req, shown)
    }

    /// Record one call's outcome as an answer with its evidence.
    fn record(
        &mut self,
        rpc: &str,
        shown: Vec<(String, String)>,
        started: Instant,
        result: Result<(), tonic::Status>,
    ) -> Answer {
        let mut exchange = Exchange {
            method: "gRPC".into(),
            url: format!(
                "{} /lf.a2a.v1.A2AService/{rpc}",
                super::exchange::shown(&self.url)
            ),
            request_headers: shown,
            elapsed_ms: started.elapsed().as_millis() as u64,
            ..Exchange::default()
        };
        let answer = match result {
            Ok(()) => {
                exchange.grpc_status = Some("OK".into());
                Answer {
                    code: None,
                    reason: None,
                    domain: None,
                    exchange,
                }
            }
            Err(status) => {
                let info = status.get_details_error_info();
                let reason = info
                    .as_ref()
                    .map(|i| crate::trust::sanitize::sanitize_line(&i.reason).0);
                let domain = info
                    .as_ref()
                    .map(|i| crate::trust::sanitize::sanitize_line(&i.domain).0);
                exchange.grpc_status = Some(match &reason {
                    Some(r) => format!("{} {r}", code_name(status.code())),
                    None => code_name(status.code()),
                });
                exchange.response_body =
                    Some(super::exchange::excerpt(status.message().as_bytes()));
                Answer {
                    code: Some(status.code()),
                    reason,
                    domain,
                    exchange,
                }
            }
        };
        self.answers.push(answer.clone());
        answer
    }

    async fn get(&mut self, id: &str, version: Option<&str>) -> Answer {
        let (req, shown) = self.request(
            GetTaskRequest {
                id: id.into(),
                ..Default::default()
            },
            version,
            false,
        );
        let started = Instant::now();
        let r = self.client.get_task(req).await.map(|_| ());
        self.record("GetTask", shown, started, r)
    }
}

/// Run the probes of one gRPC interface; `url` is the interface's, with a scheme.
pub async fn probe(
    prober: &Prober,
    iface: &Interface,
    caps: &Caps,
    tls: Option<&TlsSettings>,
    out: &mut Vec<Finding>,
) {
    let on = Some(iface.label.as_str());
    let ids = [
        "grpc.task-not-found",
        "grpc.error-info",
        "grpc.push-not-supported",
        "grpc.streaming-not-supported",
    ];
    // The plan sends nothing out of scope; a gRPC channel is not the prober's, so it says so again here.
    let ch = match prober.take() {
        Ok(()) if !prober.in_scope(&iface.url) => Err(
            "not sent: another origin than the agent's (allow it with --allow-origin)".to_string(),
        ),
        Ok(()) => channel(&iface.url, tls, prober.timeout()).await,
        Err(e) => Err(e),
    };
    let ch = match ch {
        Ok(c) => c,
        Err(why) => {
            let why = super::exchange::shown(&why);
            let exchange = Exchange {
                method: "gRPC".into(),
                url: super::exchange::shown(&iface.url),
                error: Some(why.clone()),
                ..Exchange::default()
            };
            for id in ids.into_iter().chain([
                "version.supported",
                "version.unsupported",
                "version.absent-is-0.3",
            ]) {
                out.push(Finding::new(
                    id,
                    on,
                    Outcome::fail(format!("the interface did not answer: {why}")).with(&exchange),
                ));
            }
            return;
        }
    };
    let mut c = Calls {
        prober,
        client: A2aServiceClient::new(ch),
        url: iface.url.clone(),
        answers: Vec::new(),
    };
    let unknown = super::plan::unknown_task_id();
    tasks_and_versions(&mut c, prober, &unknown, on, out).await;
    gates(&mut c, prober, caps, &unknown, on, out).await;
    error_info(&c, on, out);
}

/// GetTask and CancelTask of an unknown task, and the version negotiation.
async fn tasks_and_versions(
    c: &mut Calls<'_>,
    prober: &Prober,
    unknown: &str,
    on: Option<&str>,
    out: &mut Vec<Finding>,
) {
    let get = c.get(unknown, Some("1.0")).await;
    out.push(Finding::new(
        "version.supported",
        on,
        if get.reason.as_deref() == Some("VERSION_NOT_SUPPORTED") {
            Outcome::fail("a2a-version 1.0 refused on an interface that declares 1.0")
                .with(&get.exchange)
        } else {
            Outcome::pass(format!("processed: {}", get.describe()))
        },
    ));
    let _ = prober.take();
    let (req, shown) = c.request(
        CancelTaskRequest {
            id: unknown.to_string(),
            ..Default::default()
        },
        Some("1.0"),
        false,
    );
    let started = Instant::now();
    let r = c.client.cancel_task(req).await.map(|_| ());
    let cancel = c.record("CancelTask", shown, started, r);
    out.push(Finding::new(
        "grpc.task-not-found",
        on,
        match (
            get.code == Some(Code::NotFound),
            cancel.code == Some(Code::NotFound),
        ) {
            (true, true) => Outcome::pass("GetTask and CancelTask: NOT_FOUND"),
            (false, _) => Outcome::fail(format!(
                "GetTask: expected NOT_FOUND, got {}",
                get.describe()
            ))
            .with(&get.exchange),
            (true, false) => Outcome::fail(format!(
                "CancelTask: expected NOT_FOUND, got {}",
                cancel.describe()
            ))
            .with(&cancel.exchange),
        },
    ));
    let _ = prober.take();
    let v99 = c.get(unknown, Some("99.0")).await;
    out.push(Finding::new(
        "version.unsupported",
        on,
        if v99.is_precondition("VERSION_NOT_SUPPORTED") {
            Outcome::pass(v99.describe())
        } else {
            Outcome::fail(format!(
                "expected FAILED_PRECONDITION VERSION_NOT_SUPPORTED, got {}",
                v99.describe()
            ))
            .with(&v99.exchange)
        },
    ));
    let _ = prober.take();
    let none = c.get(unknown, None).await;
    out.push(Finding::new(
        "version.absent-is-0.3",
        on,
        if none.is_precondition("VERSION_NOT_SUPPORTED") || none.code == Some(Code::Unimplemented) {
            // 0.3's service was `a2a.v1.A2AService`: the 1.0 service is not 0.3's, so UNIMPLEMENTED is 0.3's answer too.
            Outcome::pass(none.describe())
        } else if none.is(Code::NotFound, "TASK_NOT_FOUND") || none.code == Some(Code::NotFound) {
            Outcome::fail("without a2a-version, GetTask was processed as 1.0 (NOT_FOUND)")
                .with(&none.exchange)
        } else {
            Outcome::warn(format!(
                "unclear answer without a2a-version: {}",
                none.describe()
            ))
            .with(&none.exchange)
        },
    ));
}

/// The capability gates (push, streaming) and the extended card.
async fn gates(
    c: &mut Calls<'_>,
    prober: &Prober,
    caps: &Caps,
    unknown: &str,
    on: Option<&str>,
    out: &mut Vec<Finding>,
) {
    let _ = prober.take();
    let (req, shown) = c.request(
        ListTaskPushNotificationConfigsRequest {
            task_id: unknown.to_string(),
            ..Default::default()
        },
        Some("1.0"),
        false,
    );
    let started = Instant::now();
    let r = c
        .client
        .list_task_push_notification_configs(req)
        .await
        .map(|_| ());
    let push = c.record("ListTaskPushNotificationConfigs", shown, started, r);
    out.push(Finding::new(
        "grpc.push-not-supported",
        on,
        gated(
            caps.push,
            &push,
            "PUSH_NOTIFICATION_NOT_SUPPORTED",
            "push notifications",
        ),
    ));
    let _ = prober.take();
    let (req, shown) = c.request(
        SubscribeToTaskRequest {
            id: unknown.to_string(),
            ..Default::default()
        },
        Some("1.0"),
        false,
    );
    let started = Instant::now();
    // The status may come at once or as the stream's first item.
    let r = match c.client.subscribe_to_task(req).await {
        Ok(resp) => {
            let mut stream = resp.into_inner();
            match tokio::time::timeout(Duration::from_secs(2), stream.message()).await {
                Ok(Ok(_)) | Err(_) => Ok(()),
                Ok(Err(status)) => Err(status),
            }
        }
        Err(s) => Err(s),
    };
    let sub = c.record("SubscribeToTask", shown, started, r);
    out.push(Finding::new(
        "grpc.streaming-not-supported",
        on,
        gated(caps.streaming, &sub, "UNSUPPORTED_OPERATION", "streaming"),
    ));
    let _ = prober.take();
    extended(c, caps, on, out).await;
}

/// Every A2A error the interface gave carried its ErrorInfo (auth failures are the transport's, not A2A's).
fn error_info(c: &Calls<'_>, on: Option<&str>, out: &mut Vec<Finding>) {
    let mut problems: Vec<String> = Vec::new();
    let mut evidence = Vec::new();
    for a in c.answers.iter().filter(|a| {
        a.code
            .is_some_and(|c| c != Code::Unauthenticated && c != Code::PermissionDenied)
    }) {
        let p = match (&a.reason, &a.domain) {
            (None, _) => Some(format!("{} without an ErrorInfo", a.describe())),
            (Some(_), d) if d.as_deref() != Some(A2A_DOMAIN) => Some(format!(
                "{}: ErrorInfo domain is not {A2A_DOMAIN}",
                a.describe()
            )),
            _ => None,
        };
        if let Some(p) = p {
            problems.push(p);
            evidence.push(a.exchange.clone());
        }
    }
    problems.dedup();
    out.push(Finding::new(
        "grpc.error-info",
        on,
        if problems.is_empty() {
            Outcome::pass("every A2A error carried an ErrorInfo")
        } else {
            Outcome::fail(problems.join("; ")).with_all(evidence.iter().take(2))
        },
    ));
}

/// A capability gate over gRPC: without the capability FAILED_PRECONDITION (or v1.0.0's UNIMPLEMENTED) with
/// `reason`; with it, the unknown task's NOT_FOUND.
fn gated(declared: bool, a: &Answer, reason: &str, what: &str) -> Outcome {
    let not_found = a.code == Some(Code::NotFound);
    match (declared, a.is_precondition(reason)) {
        (false, true) => Outcome::pass(format!("{what} not declared: {}", a.describe())),
        (false, false) if not_found => Outcome::warn(format!(
            "{what} not declared, but the answer was NOT_FOUND rather than {reason}"
        ))
        .with(&a.exchange),
        (false, false) => Outcome::fail(format!(
            "{what} not declared: expected FAILED_PRECONDITION {reason}, got {}",
            a.describe()
        ))
        .with(&a.exchange),
        (true, true) => Outcome::fail(format!(
            "{what} is declared in the card, yet the call got {reason}"
        ))
        .with(&a.exchange),
        (true, false) if not_found => {
            Outcome::pass(format!("{what} declared: NOT_FOUND for an unknown task"))
        }
        (true, false) => Outcome::warn(format!(
            "{what} declared: expected NOT_FOUND for an unknown task, got {}",
            a.describe()
        ))
        .with(&a.exchange),
    }
}

async fn extended(c: &mut Calls<'_>, caps: &Caps, on: Option<&str>, out: &mut Vec<Finding>) {
    let call = |c: &mut Calls<'_>, anonymous: bool| {
        let (req, shown) = c.request(
            GetExtendedAgentCardRequest::default(),
            Some("1.0"),
            anonymous,
        );
        let mut client = c.client.clone();
        async move {
            let started = Instant::now();
            let r = client.get_extended_agent_card(req).await.map(|_| ());
            (shown, started, r)
        }
    };
    if !caps.extended {
        let (shown, started, r) = call(c, false).await;
        let a = c.record("GetExtendedAgentCard", shown, started, r);
        out.push(Finding::new(
            "extended-card.declared",
            on,
            if a.is_precondition("UNSUPPORTED_OPERATION") {
                Outcome::pass(a.describe())
            } else {
                Outcome::fail(format!(
                    "expected FAILED_PRECONDITION UNSUPPORTED_OPERATION, got {}",
                    a.describe()
                ))
                .with(&a.exchange)
            },
        ));
        return;
    }
    let (shown, started, r) = call(c, true).await;
    let a = c.record("GetExtendedAgentCard", shown, started, r);
    out.push(Finding::new(
        "extended-card.needs-auth",
        on,
        match a.code {
            None => Outcome::fail("the extended card was served to a call without credentials")
                .with(&a.exchange),
            Some(Code::Unauthenticated | Code::PermissionDenied) => Outcome::pass(a.describe()),
            // Refused, but not as an authentication error (§3.3.2: UNAUTHENTICATED or PERMISSION_DENIED).
            Some(_) => Outcome::warn(format!(
                "refused without credentials, but with {} rather than UNAUTHENTICATED (§3.3.2)",
                a.describe()
            ))
            .with(&a.exchange),
        },
    ));
    if !super::plan::can_ask_for_extended_card(c.prober, on, out) {
        return;
    }
    let _ = c.prober.take();
    let (shown, started, r) = call(c, false).await;
    let a = c.record("GetExtendedAgentCard", shown, started, r);
    out.push(Finding::new(
        "extended-card.served",
        on,
        match a.code {
            None => Outcome::pass("served"),
            Some(_) => Outcome::fail(format!(
                "declared, but not served to the credential: {}",
                a.describe()
            ))
            .with(&a.exchange),
        },
    ));
}
