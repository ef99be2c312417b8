//! The embedded demo agent: an A2A 1.0 server built on the official SDK (`a2a-server-lf`), whose
//! skills are scenarios that exercise every feature of the console.
//!
//! One HTTP port on 127.0.0.1 serves the agent card (`/.well-known/agent-card.json`, legacy
//! `/.well-known/agent.json`), JSON-RPC (`/jsonrpc`), HTTP+JSON (`/rest`) and the `file` scenario's
//! download (`/files/report.csv`); gRPC gets a second port, listed in the card.

mod auth;
mod card;
mod content;
mod executor;
mod flow;
mod handler;
mod oauth;
mod push;
mod scenarios;
pub mod signing;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use a2a_pb::proto::a2a_service_server::A2aServiceServer;
use a2a_server::{DefaultRequestHandler, HttpPushSender, HttpPushSenderConfig, InMemoryTaskStore};
use anyhow::Context as _;
use axum::{
    Router,
    http::{HeaderValue, header},
    middleware::from_fn,
    routing::get,
};
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use card::{CardDocument, Endpoints};
use executor::{DemoExecutor, Env};

/// The operator token: unlocks the extended agent card and the `auth` scenario.
pub const DEMO_BEARER_TOKEN: &str = "demo-secret";

/// Where the `file` scenario's CSV is served, relative to the base URL.
const REPORT_PATH: &str = "/files/report.csv";

/// How long [`DemoAgent::shutdown`] waits for open connections before dropping them.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// Timeout for one push-notification POST; short, because the SDK sends pushes inline with the
/// task's events.
const PUSH_TIMEOUT: Duration = Duration::from_secs(5);

/// A running demo agent. Dropping it also stops the servers (gracefully, without waiting).
pub struct DemoAgent {
    addr: SocketAddr,
    base_url: String,
    shutdown: watch::Sender<bool>,
    http: JoinHandle<()>,
    grpc: JoinHandle<()>,
    /// The card's GRPC interface address, when it serves one (another origin than `base_url`).
    grpc_url: Option<String>,
}

impl DemoAgent {
    /// `http://127.0.0.1:PORT`, the base of the card URL and the HTTP interfaces (`https://…` behind the
    /// TLS front of [`spawn_on`]).
    pub fn base_url(&self) -> String {
        self.base_url.clone()
    }

    /// Where the card says gRPC is (`127.0.0.1:PORT`, or `https://…` behind a TLS front), if anywhere: a port of
    /// its own, so another origin the console uses only when told (the console's own demo is told).
    pub fn grpc_url(&self) -> Option<String> {
        self.grpc_url.clone()
    }

    /// The HTTP listening address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops every running scenario and both servers, waiting a few seconds for open streams to
    /// close.
    pub async fn shutdown(self) {
        let _ = self.shutdown.send(true);
        for handle in [self.http, self.grpc] {
            let abort = handle.abort_handle();
            if tokio::time::timeout(SHUTDOWN_GRACE, handle).await.is_err() {
                abort.abort();
            }
        }
    }
}

/// The console's entry for the embedded demo agent listening at `url` (and for gRPC at `grpc`).
pub fn target(url: &str, grpc: Option<String>) -> crate::remote::connect::agent::AgentTarget {
    let timeout = Duration::from_secs(crate::config::DEFAULT_TIMEOUT_SECS);
    let mut target = crate::remote::connect::agent::AgentTarget::from_url(url, timeout);
    target.label = "demo".into();
    // The demo runs in this process, so its card key is known here: the card shows "verified".
    target.trust = signing::in_process_trust();
    // Our own in-process agent: its gRPC port is another origin, and the user chose it by starting it.
    target.allowed_origins.extend(grpc);
    target
}

/// Start the demo on `port`; when that port is taken (a second console, `demo-agent` in another terminal),
/// on a free port instead, with the sentence that tells the user so.
pub async fn spawn_stable(port: u16) -> anyhow::Result<(DemoAgent, Option<String>)> {
    match spawn(port).await {
        Ok(agent) => Ok((agent, None)),
        Err(e) if port != 0 => {
            let agent = spawn(0).await?;
            let why = format!(
                "127.0.0.1:{port} is taken ({}), so the demo agent listens on {} this run: its tasks \
                 from other runs are listed under its usual address",
                e.root_cause(),
                agent.base_url()
            );
            Ok((agent, Some(why)))
        }
        Err(e) => Err(e),
    }
}

/// Binds `127.0.0.1:port` (0 = any free port) and starts serving; returns once the sockets are
/// listening.
///
/// gRPC listens on `port + 1` when `port` is fixed and that port is free, otherwise on a free port;
/// either way the card's GRPC interface has the address.
pub async fn spawn(port: u16) -> anyhow::Result<DemoAgent> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port))
        .await
        .with_context(|| format!("cannot listen on 127.0.0.1:{port}"))?;
    let addr = listener.local_addr()?;
    let grpc_listener = bind_grpc(port).await?;
    let grpc = GrpcFront {
        url: grpc_listener.local_addr()?.to_string(),
        incoming: tonic::transport::server::TcpIncoming::from(grpc_listener),
    };
    start(listener, addr, format!("http://{addr}"), Some(grpc)).await
}

/// Where the demo's gRPC service is reached (what its card's GRPC interface says) and the connections it
/// serves: plain TCP for `spawn`, a caller's TLS streams for the gRPC-over-TLS tests.
pub struct GrpcFront<I> {
    pub url: String,
    pub incoming: I,
}

/// The demo agent's HTTP side (card, JSON-RPC, HTTP+JSON) on a listener of the caller's, reached at
/// `base_url` (what its card's interfaces say): the mTLS tests put a TLS front that demands a client
/// certificate before it. It has no gRPC interface.
pub async fn spawn_on<L>(
    listener: L,
    addr: SocketAddr,
    base_url: String,
) -> anyhow::Result<DemoAgent>
where
    L: axum::serve::Listener,
    L::Addr: std::fmt::Debug,
{
    start(
        listener,
        addr,
        base_url,
        None::<GrpcFront<tonic::transport::server::TcpIncoming>>,
    )
    .await
}

/// A connection tonic can serve the demo's gRPC service on (a TCP or TLS stream).
pub trait GrpcConn:
    tokio::io::AsyncRead
    + tokio::io::AsyncWrite
    + tonic::transport::server::Connected
    + Unpin
    + Send
    + 'static
{
}

impl<T> GrpcConn for T where
    T: tokio::io::AsyncRead
        + tokio::io::AsyncWrite
        + tonic::transport::server::Connected
        + Unpin
        + Send
        + 'static
{
}

/// [`spawn_on`] with the gRPC service too, on the caller's connections (`grpc.incoming`, e.g. TLS streams
/// that demand a client certificate) and listed in the card at `grpc.url`.
pub async fn spawn_on_with_grpc<L, I, IO, IE>(
    listener: L,
    addr: SocketAddr,
    base_url: String,
    grpc: GrpcFront<I>,
) -> anyhow::Result<DemoAgent>
where
    L: axum::serve::Listener,
    L::Addr: std::fmt::Debug,
    I: futures::Stream<Item = Result<IO, IE>> + Send + 'static,
    IO: GrpcConn,
    IE: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    start(listener, addr, base_url, Some(grpc)).await
}

async fn start<L, I, IO, IE>(
    listener: L,
    addr: SocketAddr,
    base_url: String,
    grpc: Option<GrpcFront<I>>,
) -> anyhow::Result<DemoAgent>
where
    L: axum::serve::Listener,
    L::Addr: std::fmt::Debug,
    I: futures::Stream<Item = Result<IO, IE>> + Send + 'static,
    IO: GrpcConn,
    IE: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let grpc_addr = grpc.as_ref().map(|g| g.url.clone());
    let endpoints = Endpoints {
        jsonrpc_url: format!("{base_url}/jsonrpc"),
        rest_url: format!("{base_url}/rest"),
        grpc_addr: grpc_addr.clone(),
        base_url: base_url.clone(),
    };
    let public = card::public_card(&endpoints);
    let extended = card::extended_card(&public);
    let document = Arc::new(CardDocument::new(&public, &endpoints.base_url)?);
    let jwks = bytes::Bytes::from(signing::jwks()?);

    let (shutdown_tx, shutdown_rx) = watch::channel(false);
    let flows = Arc::new(flow::FlowControl::default());
    let executor = DemoExecutor::new(Env { base_url }, shutdown_rx.clone(), Arc::clone(&flows));
    // The SDK sender's SSRF guard rejects loopback targets, i.e. exactly the console's local
    // receiver; it is turned off and replaced by the loopback-only store (push.rs), the right
    // policy for an agent that itself listens only on 127.0.0.1.
    let push_sender = HttpPushSender::new(Some(HttpPushSenderConfig {
        timeout: PUSH_TIMEOUT,
        fail_on_error: false,
        validate_urls: false,
    }));
    let sdk_handler = DefaultRequestHandler::new(executor, InMemoryTaskStore::new())
        .with_push_notifications(push::LoopbackPushStore::default(), push_sender)
        .with_extended_agent_card_resolver(auth::extended_card_resolver(extended))
        .with_capabilities(public.capabilities.clone());
    let handler = Arc::new(handler::DemoHandler::new(sdk_handler, flows));

    let device_codes = oauth::DeviceCodes::default();
    let app = Router::new()
        .route(
            a2a_server::WELL_KNOWN_AGENT_CARD_PATH,
            get(card::serve_card).with_state(Arc::clone(&document)),
        )
        .route(
            "/.well-known/agent.json",
            get(card::serve_card).with_state(document),
        )
        .route(
            signing::JWKS_PATH,
            get(move || {
                let body = jwks.clone();
                async move {
                    (
                        [
                            (
                                header::CONTENT_TYPE,
                                HeaderValue::from_static("application/jwk-set+json"),
                            ),
                            (
                                header::CACHE_CONTROL,
                                HeaderValue::from_static("max-age=300"),
                            ),
                        ],
                        body,
                    )
                }
            }),
        )
        .route(REPORT_PATH, get(report_csv))
        .route(
            oauth::DEVICE_PATH,
            axum::routing::post(oauth::device)
                .with_state((device_codes.clone(), endpoints.base_url.clone())),
        )
        .route(
            oauth::TOKEN_PATH,
            axum::routing::post(oauth::token)
                .with_state((device_codes.clone(), endpoints.base_url.clone())),
        )
        .route(oauth::VERIFY_PATH, get(oauth::verify))
        .route("/", get(index))
        .nest(
            "/jsonrpc",
            a2a_server::jsonrpc::jsonrpc_router(Arc::clone(&handler))
                .layer(from_fn(auth::guard_jsonrpc)),
        )
        .nest(
            "/rest",
            a2a_server::rest::rest_router(Arc::clone(&handler)).layer(from_fn(auth::guard_rest)),
        );

    let http = tokio::spawn({
        let mut stop = shutdown_rx.clone();
        async move {
            let served = axum::serve(listener, app)
                .with_graceful_shutdown(async move {
                    // Also resolves when the DemoAgent (the sender) is dropped.
                    let _ = stop.wait_for(|s| *s).await;
                })
                .await;
            if let Err(error) = served {
                tracing::error!(%error, "demo agent HTTP server failed");
            }
        }
    });

    let grpc_service = A2aServiceServer::new(a2a_grpc::GrpcHandler::new(handler));
    let grpc = tokio::spawn({
        let mut stop = shutdown_rx;
        async move {
            let Some(grpc) = grpc else {
                return;
            };
            let served = tonic::transport::Server::builder()
                .add_service(grpc_service)
                .serve_with_incoming_shutdown(grpc.incoming, async move {
                    let _ = stop.wait_for(|s| *s).await;
                })
                .await;
            if let Err(error) = served {
                tracing::error!(%error, "demo agent gRPC server failed");
            }
        }
    });

    tracing::info!(%addr, ?grpc_addr, "demo agent listening");
    Ok(DemoAgent {
        addr,
        base_url: endpoints.base_url,
        shutdown: shutdown_tx,
        http,
        grpc,
        grpc_url: grpc_addr,
    })
}

/// The gRPC listener: next to a fixed HTTP port when possible, so a fixed-port demo has a
/// predictable gRPC address too.
async fn bind_grpc(http_port: u16) -> anyhow::Result<TcpListener> {
    if let Some(next) = http_port.checked_add(1).filter(|_| http_port != 0)
        && let Ok(listener) = TcpListener::bind((Ipv4Addr::LOCALHOST, next)).await
    {
        return Ok(listener);
    }
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .await
        .context("cannot open a gRPC port on 127.0.0.1")
}

/// Runs the demo agent until Ctrl-C or SIGTERM.
pub async fn run_foreground(port: u16) -> anyhow::Result<()> {
    signing::keep_key_in_data_dir();
    let agent = spawn(port).await?;
    let base = agent.base_url();
    println!(
        "demo agent listening on {base} (card: {base}{})",
        a2a_server::WELL_KNOWN_AGENT_CARD_PATH
    );
    wait_for_signal().await?;
    agent.shutdown().await;
    Ok(())
}

/// Resolves on Ctrl-C, or on SIGTERM where there is one.
async fn wait_for_signal() -> anyhow::Result<()> {
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .context("cannot listen for SIGTERM")?;
        tokio::select! {
            result = tokio::signal::ctrl_c() => result.context("cannot listen for Ctrl-C")?,
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    tokio::signal::ctrl_c()
        .await
        .context("cannot listen for Ctrl-C")?;
    Ok(())
}

/// `GET /files/report.csv`: the same bytes the `file` scenario sends inline.
async fn report_csv() -> impl axum::response::IntoResponse {
    (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/csv; charset=utf-8"),
            ),
            (
                header::CONTENT_DISPOSITION,
                HeaderValue::from_static("attachment; filename=\"report.csv\""),
            ),
        ],
        content::REPORT_CSV,
    )
}

/// `GET /`: a short pointer for whoever opens the base URL in a browser or with curl.
async fn index() -> &'static str {
    "a2a-console demo agent (A2A 1.0)\n\
     card:      /.well-known/agent-card.json\n\
     JSON-RPC:  POST /jsonrpc\n\
     HTTP+JSON: /rest (e.g. POST /rest/message:send)\n\
     gRPC:      see the GRPC interface in the card\n\
     send a message whose text starts with a skill's trigger word: echo, stream, code, file, ask, auth, fail, \
     reject, slow, hostile, big, flood, message\n"
}
