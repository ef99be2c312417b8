//! The push receiver's connections: its own accept loop on hyper's HTTP/1 server, because axum's `serve` has
//! no header-read timeout, no idle timeout and no connection cap, and 1 100 sockets that connect and say
//! nothing were enough to use up the process's open files (after which every connection the console made to
//! its agents failed too).
//!
//! - Header timeout: hyper's own, which runs from the moment a connection waits for a request head (right
//!   after accept, and again after each response), so it also ends idle keep-alive connections.
//! - Idle timeout: after a response, a connection with no request in flight is closed after
//!   `Limits::idle_timeout`.
//! - Cap: at most `Limits::max_connections` connections. At the cap a new one replaces the connection idle
//!   longest (one that has sent no complete request head, or is between requests), since a sender with a
//!   request ready is worth more than a socket that says nothing; when all are busy the new one is closed at
//!   once. Nothing waits in a queue.
//! - HTTP/1 only: every SDK's push sender uses it, and HTTP/2 would let one connection carry many streams.

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, watch};
use tokio::time::Instant;
use tower_service::Service;

use crate::push::Limits;
use crate::push::refusals::Refusals;

/// Largest request head (request line plus headers) buffered per connection; push senders send a handful of
/// short headers. hyper's floor for this setting is 8 KiB.
const MAX_HEAD_BYTES: usize = 16 * 1024;

/// After an accept error (out of file descriptors, say), wait this long before the next accept, so the loop
/// does not spin on an error that persists.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// The open connections, for the cap and for choosing which idle one to close.
pub(super) struct Conns {
    max: usize,
    table: Mutex<Table>,
}

#[derive(Default)]
struct Table {
    next: u64,
    open: HashMap<u64, Arc<Conn>>,
}

/// One connection's state as its task and its requests see it.
struct Conn {
    /// Requests being handled on it (HTTP/1: 0 or 1).
    busy: AtomicUsize,
    /// When it last became idle (accepted, or a response was handed back).
    idle_since: Mutex<Instant>,
    /// Whether it has served a request: the idle timeout applies only between requests; before the first
    /// one, hyper's header timeout does.
    served: AtomicUsize,
    /// Told to close because a newer connection took its place.
    kick: Notify,
}

impl Conns {
    pub(super) fn new(max: usize) -> Conns {
        Conns {
            max: max.max(1),
            table: Mutex::new(Table::default()),
        }
    }

    /// Connections being served now.
    pub(super) fn open(&self) -> usize {
        lock(&self.table).open.len()
    }

    /// A place for a new connection: free, or taken from the connection idle longest (which is told to
    /// close); `None` when every connection is busy.
    fn admit(&self) -> Option<(u64, Arc<Conn>)> {
        let mut t = lock(&self.table);
        if t.open.len() >= self.max {
            let victim = t
                .open
                .iter()
                .filter(|(_, c)| c.busy.load(Ordering::Acquire) == 0)
                .min_by_key(|(_, c)| *lock(&c.idle_since))
                .map(|(id, _)| *id);
            let gone = t.open.remove(&victim?)?;
            gone.kick.notify_one();
        }
        let id = t.next;
        t.next += 1;
        let conn = Arc::new(Conn {
            busy: AtomicUsize::new(0),
            idle_since: Mutex::new(Instant::now()),
            served: AtomicUsize::new(0),
            kick: Notify::new(),
        });
        t.open.insert(id, Arc::clone(&conn));
        Some((id, conn))
    }

    /// Connections with a request in progress.
    pub(super) fn busy(&self) -> usize {
        lock(&self.table)
            .open
            .values()
            .filter(|c| c.busy.load(Ordering::Acquire) > 0)
            .count()
    }

    fn release(&self, id: u64) {
        lock(&self.table).open.remove(&id);
    }
}

/// Marks a connection busy while one of its requests is handled.
struct Busy(Arc<Conn>);

impl Busy {
    fn new(conn: &Arc<Conn>) -> Busy {
        conn.busy.fetch_add(1, Ordering::AcqRel);
        Busy(Arc::clone(conn))
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        *lock(&self.0.idle_since) = Instant::now();
        self.0.served.fetch_add(1, Ordering::AcqRel);
        self.0.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Accepts connections until `stop` says so (or its sender is gone), serving each on its own task.
pub(super) async fn serve(
    listener: TcpListener,
    app: Router,
    conns: Arc<Conns>,
    limits: Limits,
    refusals: Arc<Refusals>,
    mut stop: watch::Receiver<bool>,
) {
    loop {
        let accepted = tokio::select! {
            biased;
            _ = stop.changed() => break,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, _peer)) => match conns.admit() {
                Some((id, conn)) => {
                    let task = ConnTask {
                        app: app.clone(),
                        conns: Arc::clone(&conns),
                        id,
                        conn,
                        limits: limits.clone(),
                        refusals: Arc::clone(&refusals),
                        stop: stop.clone(),
                    };
                    tokio::spawn(task.run(stream));
                }
                None => {
                    // Dropped here: closed at once, its descriptor given back.
                    drop(stream);
                    refusals.note("connection limit", || {
                        format!("all {} connections are busy", conns.max)
                    });
                }
            },
            Err(error) => {
                refusals.note("accept failed", || error.to_string());
                tokio::time::sleep(ACCEPT_BACKOFF).await;
            }
        }
    }
}

struct ConnTask {
    app: Router,
    conns: Arc<Conns>,
    id: u64,
    conn: Arc<Conn>,
    limits: Limits,
    refusals: Arc<Refusals>,
    stop: watch::Receiver<bool>,
}

impl ConnTask {
    async fn run(mut self, stream: TcpStream) {
        let app = self.app.clone();
        let state = Arc::clone(&self.conn);
        let service = hyper::service::service_fn(move |req: hyper::Request<Incoming>| {
            let mut app = app.clone();
            let busy = Busy::new(&state);
            async move {
                let response = app.call(req.map(Body::new)).await;
                drop(busy);
                Ok::<_, Infallible>(match response {
                    Ok(r) => r,
                    Err(never) => match never {},
                })
            }
        });
        let mut builder = http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(self.limits.header_timeout)
            .max_buf_size(MAX_HEAD_BYTES)
            .keep_alive(true);
        let served = builder.serve_connection(TokioIo::new(stream), service);
        tokio::pin!(served);
        // Set once the connection was asked to close: by then it only finishes a response in flight, and is
        // dropped if even that takes longer than a header timeout.
        let mut closing: Option<Instant> = None;
        loop {
            let deadline = closing.unwrap_or_else(|| self.idle_deadline());
            tokio::select! {
                result = served.as_mut() => {
                    if let Err(e) = result && e.is_timeout() {
                        self.refusals.note("header timeout", || {
                            format!("no complete request head within {} s", self.limits.header_timeout.as_secs_f32())
                        });
                    }
                    break;
                }
                _ = self.conn.kick.notified(), if closing.is_none() => {
                    self.refusals.note("replaced at the connection limit", || {
                        "an idle connection was closed to make room for a new one".to_owned()
                    });
                    served.as_mut().graceful_shutdown();
                    closing = Some(Instant::now() + self.limits.header_timeout);
                }
                _ = self.stop.changed(), if closing.is_none() => {
                    served.as_mut().graceful_shutdown();
                    closing = Some(Instant::now() + self.limits.header_timeout);
                }
                _ = tokio::time::sleep_until(deadline) => {
                    if closing.is_some() {
                        break;
                    }
                    if self.idle_expired() {
                        served.as_mut().graceful_shutdown();
                        closing = Some(Instant::now() + self.limits.header_timeout);
                    }
                }
            }
        }
        self.conns.release(self.id);
    }

    /// When to look at the idle timeout next.
    fn idle_deadline(&self) -> Instant {
        let now = Instant::now();
        let idle = self.limits.idle_timeout;
        if self.conn.busy.load(Ordering::Acquire) > 0 {
            return now + idle;
        }
        if self.conn.served.load(Ordering::Acquire) == 0 {
            // Before the first request hyper's header timeout is in charge; look again later in case a
            // request starts and ends in between.
            return now + idle.max(self.limits.header_timeout);
        }
        *lock(&self.conn.idle_since) + idle
    }

    fn idle_expired(&self) -> bool {
        self.conn.busy.load(Ordering::Acquire) == 0
            && self.conn.served.load(Ordering::Acquire) > 0
            && lock(&self.conn.idle_since).elapsed() >= self.limits.idle_timeout
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
