//! Local webhook receiver for A2A push notifications (spec digest §10): a small HTTP server, on 127.0.0.1
//! by default, that accepts a POST only on a registration's own random path, with that registration's own
//! token, for that registration's task (and context), and hands each new event to the app over a channel,
//! tagged with the agent it was registered for. Everything else is refused, counted and kept for the UI.
//!
//! Why it looks the way it does:
//! - A registration belongs to one (agent, task) pair, never to a task id alone: task ids are chosen by
//!   agents, so two agents can use the same one, by accident or on purpose. Each registration gets its own
//!   unguessable path and token (128 and 256 bits from the OS CSPRNG), so one agent never learns what
//!   another agent's notifications are posted to, and what it posts is routed to its own tab only.
//! - Senders disagree on where the token goes (tests/peers/README.md item 10): the Python SDKs send
//!   `X-A2A-Notification-Token`, the Rust SDK server `A2A-Notification-Token`, the JS SDK and the v1.0 spec
//!   only `Authorization: Bearer …`. One token per registration, accepted from any of the three, works with
//!   all of them, so [`PushReceiver::config_for`] puts the same token in `token` and in `authentication`.
//! - Bodies come in two shapes: a v1.0 `StreamResponse`, or a bare v0.3 `kind`-tagged Task (the Python 0.3
//!   SDK), which goes through the same converter as the v0.3 transport.
//! - Delivery is at least once, so an exact repeat is dropped but still answered 200 (a non-2xx would make a
//!   retrying agent try again). Order is left alone: the task's gate already copes with stale states.
//! - Anyone on the machine can connect, so the server itself must not be exhaustible: connections are capped,
//!   slow or idle ones are closed (`conn`), bodies are bounded in size and time, and refusals are summed up in
//!   the log instead of costing a line each (`refusals`).
//! - Only the loopback interface by default. A remote agent can reach us only if the user explicitly binds
//!   a non-loopback address (`start(bind, …)` with that address); the checks are the same either way,
//!   but the traffic is plain HTTP, so the token is readable on the network in that case.

use std::collections::{HashMap, HashSet, VecDeque};
use std::fmt::Debug;
use std::hash::{BuildHasher, Hash, RandomState};
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
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::remote::wire::v03;

mod conn;
mod inflight;
mod post;
mod refusals;
mod token;

pub use inflight::Crowded;
use post::{context_ok, elsewhere, receive};
use refusals::Refusals;

/// Where the receiver listens unless the user says otherwise: loopback, any free port.
pub const DEFAULT_BIND: SocketAddr = SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0));

/// Path prefix of every webhook URL; the registration's random id follows.
pub const PUSH_PATH: &str = "/a2a/push/";

/// Largest body accepted by default. A notification is one event or one Task snapshot; anything bigger is more
/// likely a misbehaving sender than a real update, and the app can always fetch the task itself.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// Random bytes in a registration's path id (128 bits) and in its token (256 bits).
const PATH_ID_BYTES: usize = 16;
const TOKEN_BYTES: usize = 32;

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

/// What one client of the receiver may cost. The defaults suit a console on a desktop; tests shorten the times.
#[derive(Clone, Debug)]
pub struct Limits {
    /// A request's head (request line and headers) must arrive within this, counted from the moment the
    /// connection waits for it. Stops clients that connect and send nothing, or a byte a minute.
    pub header_timeout: Duration,
    /// A kept-alive connection with no request in flight is closed after this. SDK senders pool connections;
    /// reconnecting after a pause is cheap for them, an idle socket held forever is not for us.
    pub idle_timeout: Duration,
    /// A request's whole body must arrive within this.
    pub body_timeout: Duration,
    /// At most this many connections are served at once. At the cap, a new connection replaces the one that
    /// has been idle longest (a sender with a request ready beats a socket that says nothing); when every
    /// connection is busy, the new one is closed at once rather than queued.
    pub max_connections: usize,
    /// Requests one registration (one agent's task) may have in progress at once, and one agent over all
    /// its registrations. Past these a request is refused (429) before its body is read and its connection
    /// closed, so an agent holding slow bodies on its own valid path takes at most these places, never every
    /// place under `max_connections`, and other agents' pushes still get through.
    pub max_in_flight_per_registration: usize,
    pub max_in_flight_per_agent: usize,
    /// Largest body accepted.
    pub max_body_bytes: usize,
    /// Refused requests are logged as one WARN line for the first, then one summary line per interval with
    /// the counts by reason, however many there were.
    pub log_interval: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(5),
            body_timeout: Duration::from_secs(15),
            // Far below the usual 1024 open files, so a flood never takes the descriptors the console needs
            // for its own connections to agents; far above what a few agents sending pushes use.
            max_connections: 64,
            // A sender posts one event at a time per task (the SDKs await each POST); a few spare places
            // allow for retries overlapping a slow answer. Eight agents at their limit still leave room.
            max_in_flight_per_registration: 4,
            max_in_flight_per_agent: 8,
            max_body_bytes: MAX_BODY_BYTES,
            log_interval: Duration::from_secs(10),
        }
    }
}

/// One accepted notification, for the app: which agent's registration it came in on, and for which task.
#[derive(Clone, Debug, PartialEq)]
pub struct PushEvent<A = String> {
    pub agent: A,
    pub task_id: String,
    pub event: StreamResponse,
}

/// Where and how one registration is posted to; goes into the agent's `TaskPushNotificationConfig`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Registered {
    pub url: String,
    pub token: String,
}

/// Why a notification was not applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejected {
    /// No token, or not the one minted for this registration.
    BadToken,
    /// The path names no registration (or is not a webhook path at all).
    UnknownTask,
    /// The body is over the size limit.
    TooLarge,
    /// The body did not arrive in time.
    SlowBody,
    /// Not JSON, not an A2A event, or an event for a task other than the registration's. The text may quote
    /// the sender; pass it through `trust::sanitize` before showing it.
    Malformed(String),
    /// The event's context id is empty or not the task's, once the task's context is known. The text may
    /// quote the sender.
    WrongContext(String),
    /// The same event was already delivered (answered 200, not applied again).
    Duplicate,
    /// The registration or its agent already has as many requests in progress as allowed; refused before
    /// the body is read, and the connection is closed.
    Crowded(Crowded),
}

impl Rejected {
    /// The HTTP status the sender gets.
    pub fn status(&self) -> StatusCode {
        match self {
            Rejected::BadToken => StatusCode::UNAUTHORIZED,
            Rejected::UnknownTask => StatusCode::NOT_FOUND,
            Rejected::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            Rejected::SlowBody => StatusCode::REQUEST_TIMEOUT,
            Rejected::Crowded(_) => StatusCode::TOO_MANY_REQUESTS,
            Rejected::Malformed(_) | Rejected::WrongContext(_) => StatusCode::BAD_REQUEST,
            // Acknowledged so an at-least-once sender stops retrying.
            Rejected::Duplicate => StatusCode::OK,
        }
    }

    /// A short fixed name for the log's counts (never sender text).
    fn kind(&self) -> &'static str {
        match self {
            Rejected::BadToken => "bad token",
            Rejected::UnknownTask => "unknown path",
            Rejected::TooLarge => "too large",
            Rejected::SlowBody => "slow body",
            Rejected::Malformed(_) => "malformed",
            Rejected::WrongContext(_) => "wrong context",
            Rejected::Duplicate => "duplicate",
            Rejected::Crowded(_) => "too many at once from one agent",
        }
    }
}

impl std::fmt::Display for Rejected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rejected::BadToken => f.write_str("missing or wrong notification token"),
            Rejected::UnknownTask => {
                f.write_str("no push notifications were requested at this address")
            }
            Rejected::TooLarge => f.write_str("body larger than the limit"),
            Rejected::SlowBody => f.write_str("the body did not arrive in time"),
            Rejected::Malformed(why) => write!(f, "malformed notification: {why}"),
            Rejected::WrongContext(why) => write!(f, "wrong context: {why}"),
            Rejected::Duplicate => f.write_str("duplicate of an event already delivered"),
            Rejected::Crowded(Crowded::Registration(n)) => write!(
                f,
                "{n} notifications for this task are already in progress; connection closed"
            ),
            Rejected::Crowded(Crowded::Agent(n)) => write!(
                f,
                "{n} notifications from this agent are already in progress; connection closed"
            ),
        }
    }
}

/// What identifies an agent to the receiver: the app's stable agent id (tests use strings).
pub trait AgentKey: Clone + Eq + Hash + Debug + Send + Sync + 'static {}
impl<T: Clone + Eq + Hash + Debug + Send + Sync + 'static> AgentKey for T {}

/// The running receiver. Dropping it stops the server too (without waiting).
pub struct PushReceiver<A: AgentKey = String> {
    addr: SocketAddr,
    base_url: String,
    shared: Arc<Shared<A>>,
    stop: watch::Sender<bool>,
    server: Option<JoinHandle<()>>,
}

impl<A: AgentKey> PushReceiver<A> {
    /// Listens on `bind` ([`DEFAULT_BIND`] unless the user configured another address) with the default
    /// [`Limits`], and serves until [`shutdown`](Self::shutdown) or drop. Accepted events go to `tx` in
    /// arrival order.
    ///
    /// Any address is honoured, but only a loopback one keeps the webhook private to this machine; callers
    /// must pass a non-loopback address only when the user asked for it explicitly (a remote agent cannot
    /// post to 127.0.0.1), and the receiver logs a warning when they do.
    pub async fn start(
        bind: SocketAddr,
        tx: UnboundedSender<PushEvent<A>>,
    ) -> Result<PushReceiver<A>, String> {
        Self::start_with(bind, Limits::default(), tx).await
    }

    /// [`start`](Self::start) with other limits.
    pub async fn start_with(
        bind: SocketAddr,
        limits: Limits,
        tx: UnboundedSender<PushEvent<A>>,
    ) -> Result<PushReceiver<A>, String> {
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
        let refusals = Arc::new(Refusals::new(limits.log_interval));
        let conns = Arc::new(conn::Conns::new(limits.max_connections));
        let shared = Arc::new(Shared {
            registry: Mutex::new(Registry::default()),
            rejected: Mutex::new(VecDeque::new()),
            tx,
            hasher: RandomState::new(),
            refusals: Arc::clone(&refusals),
            limits: limits.clone(),
            conns: Arc::clone(&conns),
            in_flight: Arc::new(inflight::InFlight::new(
                limits.max_in_flight_per_registration,
                limits.max_in_flight_per_agent,
            )),
        });
        let app = Router::new()
            .route("/a2a/push/{id}", post(receive::<A>))
            .fallback(elsewhere::<A>)
            .with_state(Arc::clone(&shared));
        let (stop, stopped) = watch::channel(false);
        let server = tokio::spawn(conn::serve(listener, app, conns, limits, refusals, stopped));
        tracing::info!(%addr, "push receiver listening");
        Ok(PushReceiver {
            addr,
            base_url: base_url(addr),
            shared,
            stop,
            server: Some(server),
        })
    }

    /// The address actually bound (the port is known only after `start`).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Starts accepting notifications for `task_id` of `agent`, on a fresh random path with a fresh random
    /// token, for both `TaskPushNotificationConfig.token` and `authentication = {scheme: "Bearer", …}`.
    /// `context_id`, when already known, is required on every event; otherwise the first accepted event's
    /// context is. Registering the same (agent, task) again rotates path and token: the old ones stop
    /// working (one config per task, which is also what the Python SDKs keep: they upsert by `id = taskId`).
    /// Fails only when the OS cannot supply randomness.
    pub fn register(
        &self,
        agent: A,
        task_id: &str,
        context_id: Option<&str>,
    ) -> Result<Registered, String> {
        let path_id = random_hex(PATH_ID_BYTES)?;
        let token = random_hex(TOKEN_BYTES)?;
        let context = context_id.filter(|c| !c.is_empty()).map(str::to_owned);
        let mut reg = lock(&self.shared.registry);
        let owner = (agent.clone(), task_id.to_owned());
        if let Some(old) = reg.by_owner.remove(&owner) {
            reg.by_path.remove(&old);
        }
        reg.by_owner.insert(owner, path_id.clone());
        reg.by_path.insert(
            path_id.clone(),
            Registration {
                agent,
                task_id: task_id.to_owned(),
                context,
                token: token.clone(),
                seen: Seen::default(),
            },
        );
        Ok(Registered {
            url: format!("{}{PUSH_PATH}{path_id}", self.base_url),
            token,
        })
    }

    /// `register` plus the config to send with CreateTaskPushNotificationConfig (or inline in
    /// `SendMessageConfiguration`): our URL, the token in both places every SDK looks, and no config `id`
    /// (the agent assigns one).
    pub fn config_for(
        &self,
        agent: A,
        task_id: &str,
        context_id: Option<&str>,
    ) -> Result<TaskPushNotificationConfig, String> {
        let Registered { url, token } = self.register(agent, task_id, context_id)?;
        Ok(TaskPushNotificationConfig {
            url,
            id: None,
            task_id: task_id.to_owned(),
            token: Some(token.clone()),
            authentication: Some(AuthenticationInfo {
                scheme: "Bearer".to_owned(),
                credentials: Some(token),
            }),
            tenant: None,
        })
    }

    /// Stops accepting notifications for `task_id` of `agent`; later ones get 404.
    pub fn unregister(&self, agent: &A, task_id: &str) {
        let mut reg = lock(&self.shared.registry);
        if let Some(path) = reg.by_owner.remove(&(agent.clone(), task_id.to_owned())) {
            reg.by_path.remove(&path);
        }
    }

    /// Stops accepting notifications for every task of `agent` (it was removed from the console).
    pub fn unregister_agent(&self, agent: &A) {
        let mut reg = lock(&self.shared.registry);
        let Registry { by_path, by_owner } = &mut *reg;
        by_owner.retain(|(a, _), path| {
            let keep = a != agent;
            if !keep {
                by_path.remove(path);
            }
            keep
        });
    }

    /// Recent rejections, oldest first, at most a few hundred: when, which task (or path), and why. The task
    /// or path was chosen by the sender; sanitize it before showing it.
    pub fn rejected(&self) -> Vec<(SystemTime, String, Rejected)> {
        lock(&self.shared.rejected).iter().cloned().collect()
    }

    /// Connections being served right now (at most [`Limits::max_connections`]).
    pub fn connections(&self) -> usize {
        self.shared.conns.open()
    }

    /// Of those, the ones with a request in progress (the ones a new connection cannot replace).
    pub fn busy_connections(&self) -> usize {
        self.shared.conns.busy()
    }

    /// Stops listening, letting requests in flight finish for a moment, and logs what was refused since the
    /// last summary.
    pub async fn shutdown(mut self) {
        let _ = self.stop.send(true);
        if let Some(server) = self.server.take() {
            let abort = server.abort_handle();
            if tokio::time::timeout(SHUTDOWN_GRACE, server).await.is_err() {
                abort.abort();
            }
        }
        self.shared.refusals.flush();
    }
}

impl<A: AgentKey> Drop for PushReceiver<A> {
    fn drop(&mut self) {
        let _ = self.stop.send(true);
    }
}

/// State shared between the handle and the server.
struct Shared<A> {
    registry: Mutex<Registry<A>>,
    rejected: Mutex<VecDeque<(SystemTime, String, Rejected)>>,
    tx: UnboundedSender<PushEvent<A>>,
    /// Keyed per receiver, so nobody can predict digests and craft a body that collides with a real event.
    hasher: RandomState,
    refusals: Arc<Refusals>,
    limits: Limits,
    conns: Arc<conn::Conns>,
    in_flight: Arc<inflight::InFlight<A>>,
}

/// The registrations, by their secret path id (how requests find them) and by owner (how the app names them).
struct Registry<A> {
    by_path: HashMap<String, Registration<A>>,
    by_owner: HashMap<(A, String), String>,
}

impl<A> Default for Registry<A> {
    fn default() -> Self {
        Registry {
            by_path: HashMap::new(),
            by_owner: HashMap::new(),
        }
    }
}

struct Registration<A> {
    agent: A,
    task_id: String,
    /// The task's context once known: from the app at registration, or adopted from the first accepted event.
    context: Option<String>,
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

/// What a request learns about the registration at its path, copied out so the lock is not held while the
/// body is read.
struct Found<A> {
    agent: A,
    task_id: String,
    context: Option<String>,
    token: String,
}

/// What became of an event that passed every check but the last ones, which need the lock again.
enum Remembered {
    New,
    Repeat,
    Gone,
    WrongContext(String),
}

impl<A: AgentKey> Shared<A> {
    fn find(&self, path_id: &str) -> Option<Found<A>> {
        lock(&self.registry).by_path.get(path_id).map(|r| Found {
            agent: r.agent.clone(),
            task_id: r.task_id.clone(),
            context: r.context.clone(),
            token: r.token.clone(),
        })
    }

    /// Records the event digest and adopts the event's context if none was known. The context is checked
    /// again here, under the lock, since another request may have taught it meanwhile.
    fn remember(&self, path_id: &str, context: Option<&str>, digest: u64) -> Remembered {
        let mut reg = lock(&self.registry);
        let Some(r) = reg.by_path.get_mut(path_id) else {
            return Remembered::Gone;
        };
        if let Err(why) = context_ok(r.context.as_deref(), context) {
            return Remembered::WrongContext(why);
        }
        if !r.seen.insert(digest) {
            return Remembered::Repeat;
        }
        if r.context.is_none()
            && let Some(c) = context.filter(|c| !c.is_empty())
        {
            r.context = Some(c.to_owned());
        }
        Remembered::New
    }

    fn reject(&self, who: &str, why: Rejected) -> Response {
        // One line for the first refusal, then counts: a flood of bad requests must not flood the log.
        // Debug formatting escapes control characters, so the sender cannot forge log lines.
        self.refusals
            .note(why.kind(), || format!("task or path {who:?}: {why}"));
        self.keep(who, why)
    }

    /// [`reject`](Self::reject) for a sender that proved who it is: the log line names the agent too, so
    /// the user can tell which of their agents is crowding the receiver.
    fn reject_from(&self, agent: &A, who: &str, why: Rejected) -> Response {
        self.refusals.note(why.kind(), || {
            format!("agent {agent:?}, task {who:?}: {why}")
        });
        self.keep(who, why)
    }

    fn keep(&self, who: &str, why: Rejected) -> Response {
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

/// `n` bytes from the OS CSPRNG, as lowercase hex.
fn random_hex(n: usize) -> Result<String, String> {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes)
        .map_err(|e| format!("no randomness from the OS for a push token: {e}"))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
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

/// A sender-chosen string, cut to a bounded length for the log and the rejection list.
fn label(s: &str) -> String {
    match s.char_indices().nth(LABEL_MAX_CHARS) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_owned(),
    }
}

#[cfg(test)]
mod tests;
