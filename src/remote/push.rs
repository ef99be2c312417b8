//! Local webhook receiver for A2A push notifications (spec digest §10): a small HTTP server, on 127.0.0.1
//! by default, that accepts a POST only for a task we registered and only with that task's own token, and
//! hands each new event to the app over a channel. Everything else is refused, logged and kept for the UI.
//!
//! Why it looks the way it does:
//! - Senders disagree on where the token goes (tests/peers/README.md item 10): the Python SDKs send
//!   `X-A2A-Notification-Token`, the Rust SDK server `A2A-Notification-Token`, the JS SDK and the v1.0 spec
//!   only `Authorization: Bearer …`. One token per task, accepted from any of the three, works with all of
//!   them, so [`PushReceiver::config_for`] puts the same token in `token` and in `authentication`.
//! - Bodies come in two shapes: a v1.0 `StreamResponse`, or a bare v0.3 `kind`-tagged Task (the Python 0.3
//!   SDK), which goes through the same converter as the v0.3 transport.
//! - Delivery is at least once, so an exact repeat is dropped but still answered 200 (a non-2xx would make a
//!   retrying agent try again). Order is left alone: the task tracker already copes with stale states.
//! - Only the loopback interface by default. A remote agent can reach us only if the user explicitly binds
//!   a non-loopback address (`start(bind, …)` with that address); the token check is the same either way,
//!   but the traffic is plain HTTP, so the token is readable on the network in that case.

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{BuildHasher, RandomState};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, SocketAddrV4};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

use a2a::{AuthenticationInfo, StreamResponse, TaskPushNotificationConfig};
use axum::Router;
use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use futures::StreamExt;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::compat_v03;

/// Where the receiver listens unless the user says otherwise: loopback, any free port.
pub const DEFAULT_BIND: SocketAddr = SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0));

/// Path prefix of every webhook URL; the percent-encoded task id follows.
pub const PUSH_PATH: &str = "/a2a/push/";

/// Largest body accepted. A notification is one event or one Task snapshot; anything bigger is more likely
/// a misbehaving sender than a real update, and the app can always fetch the task itself.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// How many event digests are remembered per task for de-duplication. Retries come within seconds, so a
/// window this size catches them while bounding memory for a task that streams for hours.
const SEEN_PER_TASK: usize = 1024;

/// How many rejections `rejected()` keeps, newest last.
const REJECTIONS_KEPT: usize = 256;

/// Characters of a sender-chosen path or task id kept in the rejection list and the log, so a hostile
/// sender cannot grow them with long URLs.
const LABEL_MAX_CHARS: usize = 200;

/// How long `shutdown` waits for in-flight requests before dropping them.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(2);

const TOKEN_HEADERS: [&str; 2] = ["x-a2a-notification-token", "a2a-notification-token"];

/// One accepted notification, for the app.
#[derive(Clone, Debug, PartialEq)]
pub struct PushEvent {
    pub task_id: String,
    pub event: StreamResponse,
}

/// Why a notification was not applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejected {
    /// No token, or not the one minted for this task.
    BadToken,
    /// The path names no task we registered (or not a webhook path at all).
    UnknownTask,
    /// The body is over [`MAX_BODY_BYTES`].
    TooLarge,
    /// Not JSON, not an A2A event, or an event for a task other than the one in the URL. The text may
    /// quote the sender; pass it through `trust::sanitize` before showing it.
    Malformed(String),
    /// The same event was already delivered (answered 200, not applied again).
    Duplicate,
}

impl Rejected {
    /// The HTTP status the sender gets.
    pub fn status(&self) -> StatusCode {
        match self {
            Rejected::BadToken => StatusCode::UNAUTHORIZED,
            Rejected::UnknownTask => StatusCode::NOT_FOUND,
            Rejected::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Rejected::Malformed(_) => StatusCode::BAD_REQUEST,
            // Acknowledged so an at-least-once sender stops retrying.
            Rejected::Duplicate => StatusCode::OK,
        }
    }
}

impl std::fmt::Display for Rejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rejected::BadToken => f.write_str("missing or wrong notification token"),
            Rejected::UnknownTask => {
                f.write_str("no push notifications were requested for this task")
            }
            Rejected::TooLarge => write!(f, "body larger than {} KiB", MAX_BODY_BYTES / 1024),
            Rejected::Malformed(why) => write!(f, "malformed notification: {why}"),
            Rejected::Duplicate => f.write_str("duplicate of an event already delivered"),
        }
    }
}

/// The running receiver. Dropping it stops the server too (without waiting).
pub struct PushReceiver {
    addr: SocketAddr,
    base_url: String,
    shared: Arc<Shared>,
    stop: Option<oneshot::Sender<()>>,
    server: Option<JoinHandle<()>>,
}

impl PushReceiver {
    /// Listens on `bind` ([`DEFAULT_BIND`] unless the user configured another address) and serves until
    /// [`shutdown`](Self::shutdown) or drop. Accepted events go to `tx` in arrival order.
    ///
    /// Any address is honoured, but only a loopback one keeps the webhook private to this machine; callers
    /// must pass a non-loopback address only when the user asked for it explicitly (a remote agent cannot
    /// post to 127.0.0.1), and the receiver logs a warning when they do.
    pub async fn start(
        bind: SocketAddr,
        tx: UnboundedSender<PushEvent>,
    ) -> Result<PushReceiver, String> {
        let listener = TcpListener::bind(bind)
            .await
            .map_err(|e| format!("cannot listen for push notifications on {bind}: {e}"))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("push receiver on {bind}: {e}"))?;
        if !addr.ip().is_loopback() {
            tracing::warn!(
                %addr,
                "push receiver listens beyond this machine, over plain HTTP; tokens are visible on the network"
            );
        }
        let shared = Arc::new(Shared {
            tasks: Mutex::new(HashMap::new()),
            rejected: Mutex::new(VecDeque::new()),
            tx,
            hasher: RandomState::new(),
        });
        let app = Router::new()
            .route("/a2a/push/{task_id}", post(receive))
            .fallback(elsewhere)
            .with_state(Arc::clone(&shared));
        let (stop, stopped) = oneshot::channel::<()>();
        let server = tokio::spawn(async move {
            let served = axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    // Also resolves when the PushReceiver (the sender) is dropped.
                    let _ = stopped.await;
                })
                .await;
            if let Err(error) = served {
                tracing::error!(%error, "push receiver failed");
            }
        });
        tracing::info!(%addr, "push receiver listening");
        Ok(PushReceiver {
            addr,
            base_url: base_url(addr),
            shared,
            stop: Some(stop),
            server: Some(server),
        })
    }

    /// The address actually bound (the port is known only after `start`).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The webhook URL for one task: `http://127.0.0.1:PORT/a2a/push/<percent-encoded task id>`.
    pub fn url_for(&self, task_id: &str) -> String {
        format!("{}{PUSH_PATH}{}", self.base_url, encode_segment(task_id))
    }

    /// Starts accepting notifications for `task_id` and returns its fresh random token, for both
    /// `TaskPushNotificationConfig.token` and `authentication = {scheme: "Bearer", credentials: token}`.
    /// Registering a task again rotates its token: the old one stops working (one config per task, which is
    /// also what the Python SDKs keep, since they upsert by `id = taskId`).
    pub fn register(&self, task_id: &str) -> String {
        let token = uuid::Uuid::new_v4().simple().to_string();
        lock(&self.shared.tasks)
            .entry(task_id.to_owned())
            .and_modify(|r| r.token.clone_from(&token))
            .or_insert_with(|| Registration {
                token: token.clone(),
                seen: Seen::default(),
            });
        token
    }

    /// `register` plus the config to send with CreateTaskPushNotificationConfig (or inline in
    /// `SendMessageConfiguration`): our URL, the token in both places every SDK looks, and no config `id`
    /// (the agent assigns one).
    pub fn config_for(&self, task_id: &str) -> TaskPushNotificationConfig {
        let token = self.register(task_id);
        TaskPushNotificationConfig {
            url: self.url_for(task_id),
            id: None,
            task_id: task_id.to_owned(),
            token: Some(token.clone()),
            authentication: Some(AuthenticationInfo {
                scheme: "Bearer".to_owned(),
                credentials: Some(token),
            }),
            tenant: None,
        }
    }

    /// Stops accepting notifications for `task_id`; later ones get 404.
    pub fn unregister(&self, task_id: &str) {
        lock(&self.shared.tasks).remove(task_id);
    }

    /// Recent rejections, oldest first, at most a few hundred: when, which task (or path), and why. The task
    /// or path was chosen by the sender; sanitize it before showing it.
    pub fn rejected(&self) -> Vec<(SystemTime, String, Rejected)> {
        lock(&self.shared.rejected).iter().cloned().collect()
    }

    /// Stops listening, letting requests in flight finish for a moment.
    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(server) = self.server.take() {
            let abort = server.abort_handle();
            if tokio::time::timeout(SHUTDOWN_GRACE, server).await.is_err() {
                abort.abort();
            }
        }
    }
}

impl Drop for PushReceiver {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// State shared between the handle and the server.
struct Shared {
    tasks: Mutex<HashMap<String, Registration>>,
    rejected: Mutex<VecDeque<(SystemTime, String, Rejected)>>,
    tx: UnboundedSender<PushEvent>,
    /// Keyed per receiver, so nobody can predict digests and craft a body that collides with a real event.
    hasher: RandomState,
}

struct Registration {
    token: String,
    seen: Seen,
}

/// A bounded set of event digests: the oldest is forgotten when full.
#[derive(Default)]
struct Seen {
    order: VecDeque<u64>,
    set: HashSet<u64>,
}

impl Seen {
    /// True when `digest` is new.
    fn insert(&mut self, digest: u64) -> bool {
        if !self.set.insert(digest) {
            return false;
        }
        self.order.push_back(digest);
        if self.order.len() > SEEN_PER_TASK
            && let Some(old) = self.order.pop_front()
        {
            self.set.remove(&old);
        }
        true
    }
}

impl Shared {
    fn token_of(&self, task_id: &str) -> Option<String> {
        lock(&self.tasks).get(task_id).map(|r| r.token.clone())
    }

    /// Records the event digest: `None` if the task was unregistered meanwhile, `Some(false)` for a repeat.
    fn remember(&self, task_id: &str, digest: u64) -> Option<bool> {
        lock(&self.tasks)
            .get_mut(task_id)
            .map(|r| r.seen.insert(digest))
    }

    fn reject(&self, who: &str, why: Rejected) -> Response {
        // Debug formatting escapes control characters, so the sender cannot forge log lines.
        tracing::warn!(task = ?who, reason = %why, "push notification rejected");
        let status = why.status();
        let text = why.to_string();
        let mut kept = lock(&self.rejected);
        if kept.len() >= REJECTIONS_KEPT {
            kept.pop_front();
        }
        kept.push_back((SystemTime::now(), who.to_owned(), why));
        (status, text).into_response()
    }
}

/// A poisoned lock only means another request panicked mid-update; the maps stay usable, and refusing every
/// later notification would be worse.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// POST /a2a/push/{task_id}. The checks run cheapest and least revealing first: task, token, size, shape.
async fn receive(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    path: Result<Path<String>, PathRejection>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let task_id = match path {
        Ok(Path(id)) => id,
        Err(e) => {
            return shared.reject(
                &label(uri.path()),
                Rejected::Malformed(format!("task id in the URL: {e}")),
            );
        }
    };
    let who = label(&task_id);
    let Some(token) = shared.token_of(&task_id) else {
        return shared.reject(&who, Rejected::UnknownTask);
    };
    // Before the body is read, so an unauthenticated sender cannot make us buffer a megabyte.
    if !token_matches(&headers, &token) {
        return shared.reject(&who, Rejected::BadToken);
    }
    let bytes = match read_capped(&headers, body, MAX_BODY_BYTES).await {
        Ok(bytes) => bytes,
        Err(why) => return shared.reject(&who, why),
    };
    let value: Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(e) => return shared.reject(&who, Rejected::Malformed(format!("not JSON: {e}"))),
    };
    let event = match parse_event(&value) {
        Ok(event) => event,
        Err(why) => return shared.reject(&who, Rejected::Malformed(why)),
    };
    // The token proves who sent it, not what it is about: an event for another task must not ride on this
    // task's URL (MUST in spec §4.3.3).
    match event_task_id(&event) {
        Some(id) if id == task_id => {}
        other => {
            let named = other.map_or_else(
                || "no task".to_owned(),
                |id| format!("task {:?}", label(id)),
            );
            return shared.reject(
                &who,
                Rejected::Malformed(format!("the event is for {named}, not the task in the URL")),
            );
        }
    }
    // Re-serialised rather than the raw bytes, so a retry that differs only in whitespace is still a repeat.
    let digest = shared.hasher.hash_one(value.to_string());
    match shared.remember(&task_id, digest) {
        None => return shared.reject(&who, Rejected::UnknownTask),
        Some(false) => return shared.reject(&who, Rejected::Duplicate),
        Some(true) => {}
    }
    if shared.tx.send(PushEvent { task_id, event }).is_err() {
        tracing::warn!(task = ?who, "push notification arrived while the console is shutting down");
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "the console is shutting down",
        )
            .into_response();
    }
    StatusCode::OK.into_response()
}

/// Anything that is not a POST to a webhook path.
async fn elsewhere(State(shared): State<Arc<Shared>>, uri: Uri) -> Response {
    shared.reject(&label(uri.path()), Rejected::UnknownTask)
}

/// Whether any of the three token carriers holds the task's token. Every candidate is compared (no early
/// exit) and each comparison is constant-time, so response timing says nothing about the token.
fn token_matches(headers: &HeaderMap, expected: &str) -> bool {
    let mut presented: Vec<&[u8]> = Vec::new();
    for name in TOKEN_HEADERS {
        presented.extend(headers.get_all(name).iter().map(|v| v.as_bytes()));
    }
    presented.extend(
        headers
            .get_all(header::AUTHORIZATION)
            .iter()
            .filter_map(|v| bearer(v.as_bytes())),
    );
    presented
        .iter()
        .fold(false, |ok, t| ok | ct_eq(t, expected.as_bytes()))
}

/// The credentials of `Authorization: Bearer <token>` (scheme case-insensitive, RFC 9110 §11.1).
fn bearer(value: &[u8]) -> Option<&[u8]> {
    let s = std::str::from_utf8(value).ok()?.trim();
    let (scheme, rest) = s.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| rest.trim().as_bytes())
}

/// Constant-time equality. Lengths may differ in time: every token we mint has the same length, so the
/// length is no secret.
fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

/// The body, refusing more than `limit` bytes: a declared length over the limit before reading anything,
/// a chunked or longer body as soon as the limit is crossed.
async fn read_capped(headers: &HeaderMap, body: Body, limit: usize) -> Result<Vec<u8>, Rejected> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|s| s.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(Rejected::TooLarge);
    }
    let mut out = Vec::with_capacity(declared.and_then(|n| usize::try_from(n).ok()).unwrap_or(0));
    let mut chunks = body.into_data_stream();
    while let Some(chunk) = chunks.next().await {
        let chunk = chunk.map_err(|e| Rejected::Malformed(format!("reading the body: {e}")))?;
        if out.len() + chunk.len() > limit {
            return Err(Rejected::TooLarge);
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

/// A v1.0 `StreamResponse`, or a bare v0.3 `kind`-tagged object (what the Python 0.3 SDK posts).
fn parse_event(value: &Value) -> Result<StreamResponse, String> {
    let Some(obj) = value.as_object() else {
        return Err("the body is not a JSON object".to_owned());
    };
    if obj.contains_key("kind") {
        return compat_v03::event_from_v03(value)
            .map(|(event, _final)| event)
            .map_err(|e| format!("v0.3 event: {e}"));
    }
    // StreamResponse is a oneof; the SDK's deserializer would quietly pick one of several keys.
    let present: Vec<&str> = ["task", "message", "statusUpdate", "artifactUpdate"]
        .into_iter()
        .filter(|k| obj.contains_key(*k))
        .collect();
    if present.len() != 1 {
        return Err(format!(
            "expected exactly one of task, message, statusUpdate, artifactUpdate; found {}",
            if present.is_empty() {
                "none".to_owned()
            } else {
                present.join(", ")
            }
        ));
    }
    serde_json::from_value(value.clone()).map_err(|e| format!("{}: {e}", present[0]))
}

fn event_task_id(event: &StreamResponse) -> Option<&str> {
    match event {
        StreamResponse::Task(t) => Some(&t.id),
        StreamResponse::Message(m) => m.task_id.as_deref(),
        StreamResponse::StatusUpdate(s) => Some(&s.task_id),
        StreamResponse::ArtifactUpdate(a) => Some(&a.task_id),
    }
}

/// `http://ip:port` for the URLs we hand out. An unspecified bind (0.0.0.0, ::) has no one address to give;
/// loopback is the one sure to reach us from this machine.
fn base_url(addr: SocketAddr) -> String {
    let ip = match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    format!("http://{}", SocketAddr::new(ip, addr.port()))
}

/// Percent-encodes everything but RFC 3986 unreserved characters, so any task id is one path segment.
fn encode_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A sender-chosen string, cut to a bounded length for the log and the rejection list.
fn label(s: &str) -> String {
    match s.char_indices().nth(LABEL_MAX_CHARS) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_owned(),
    }
}

#[cfg(test)]
#[path = "push_tests.rs"]
mod tests;
