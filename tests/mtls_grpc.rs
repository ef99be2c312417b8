//! gRPC over TLS against real TLS servers on 127.0.0.1: the demo agent's gRPC service behind a rustls
//! acceptor (tonic serving the TLS streams), one that demands a client certificate from the test CA and one
//! that only proves its own name. Its card and HTTP bindings are behind a TLS front that asks for no client
//! certificate, so what fails without one is the gRPC call, not the card. Certificates are made fresh by each
//! test with `rcgen`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use a2a_console::config::protocol::Binding;
use a2a_console::demo::{DemoAgent, GrpcFront};
use a2a_console::remote::connect::agent::{self, AgentTarget};
use common::tls::{leaf, new_ca, write_private};
use common::{Run, cli};
use rcgen::ExtendedKeyUsagePurpose;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

struct Pki {
    dir: tempfile::TempDir,
    ca_der: CertificateDer<'static>,
    server_der: CertificateDer<'static>,
    server_key: PrivatePkcs8KeyDer<'static>,
}

/// `ca.pem`, and `client.pem` + `client.key` from that CA.
fn pki() -> Pki {
    let dir = tempfile::tempdir().unwrap();
    let ca = new_ca("a2a-console gRPC test CA");
    let (server, server_key) = leaf(
        &ca,
        "127.0.0.1",
        &["127.0.0.1"],
        ExtendedKeyUsagePurpose::ServerAuth,
    );
    let (client, client_key) = leaf(
        &ca,
        "console-user",
        &[],
        ExtendedKeyUsagePurpose::ClientAuth,
    );
    std::fs::write(dir.path().join("ca.pem"), ca.pem()).unwrap();
    std::fs::write(dir.path().join("client.pem"), client.pem()).unwrap();
    write_private(&dir.path().join("client.key"), &client_key.serialize_pem());
    Pki {
        ca_der: ca.der().clone(),
        server_der: server.der().clone(),
        server_key: PrivatePkcs8KeyDer::from(server_key.serialize_der()),
        dir,
    }
}

/// A rustls server config for 127.0.0.1; `client_ca`: demand a certificate from that CA.
fn server_config(pki: &Pki, demand_client_cert: bool, alpn: &[u8]) -> Arc<rustls::ServerConfig> {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .unwrap();
    let builder = if demand_client_cert {
        let mut roots = rustls::RootCertStore::empty();
        roots.add(pki.ca_der.clone()).unwrap();
        let verifier =
            rustls::server::WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .unwrap();
        builder.with_client_cert_verifier(verifier)
    } else {
        builder.with_no_client_auth()
    };
    let mut config = builder
        .with_single_cert(
            vec![pki.server_der.clone()],
            PrivateKeyDer::Pkcs8(pki.server_key.clone_key()),
        )
        .unwrap();
    config.alpn_protocols = vec![alpn.to_vec()];
    Arc::new(config)
}

/// The HTTP side (card, JSON-RPC, HTTP+JSON) behind TLS that asks for no client certificate.
struct HttpsListener {
    tcp: TcpListener,
    acceptor: TlsAcceptor,
}

impl axum::serve::Listener for HttpsListener {
    type Io = tokio_rustls::server::TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            let Ok((tcp, addr)) = self.tcp.accept().await else {
                continue;
            };
            let handshake =
                tokio::time::timeout(Duration::from_secs(10), self.acceptor.accept(tcp));
            if let Ok(Ok(tls)) = handshake.await {
                return (tls, addr);
            }
        }
    }

    fn local_addr(&self) -> std::io::Result<Self::Addr> {
        self.tcp.local_addr()
    }
}

/// One TLS connection for tonic, which wants to know what it is connected to (`Connected`).
struct GrpcTls(tokio_rustls::server::TlsStream<TcpStream>);

impl tonic::transport::server::Connected for GrpcTls {
    type ConnectInfo = ();
    fn connect_info(&self) -> Self::ConnectInfo {}
}

impl AsyncRead for GrpcTls {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_read(cx, buf)
    }
}

impl AsyncWrite for GrpcTls {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}

/// The TLS connections of a gRPC listener; a failed handshake (the client got its alert) is skipped.
fn grpc_incoming(
    tcp: TcpListener,
    acceptor: TlsAcceptor,
) -> impl futures::Stream<Item = std::io::Result<GrpcTls>> + Send + 'static {
    futures::stream::unfold((tcp, acceptor), |(tcp, acceptor)| async move {
        loop {
            let Ok((stream, _)) = tcp.accept().await else {
                continue;
            };
            let handshake = tokio::time::timeout(Duration::from_secs(10), acceptor.accept(stream));
            if let Ok(Ok(tls)) = handshake.await {
                return Some((Ok(GrpcTls(tls)), (tcp, acceptor)));
            }
        }
    })
}

/// The demo agent: HTTP side over server-only TLS, gRPC over TLS that demands a client certificate
/// (`mutual`) or not.
async fn demo(pki: &Pki, mutual: bool) -> Demo {
    let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = tcp.local_addr().unwrap();
    let http = HttpsListener {
        tcp,
        acceptor: TlsAcceptor::from(server_config(pki, false, b"http/1.1")),
    };
    let grpc_tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let grpc_addr = grpc_tcp.local_addr().unwrap();
    let grpc = GrpcFront {
        url: format!("https://{grpc_addr}"),
        incoming: grpc_incoming(
            grpc_tcp,
            TlsAcceptor::from(server_config(pki, mutual, b"h2")),
        ),
    };
    let agent = a2a_console::demo::spawn_on_with_grpc(http, addr, format!("https://{addr}"), grpc)
        .await
        .unwrap();
    Demo {
        agent,
        grpc_url: format!("https://{grpc_addr}"),
    }
}

struct Demo {
    agent: DemoAgent,
    grpc_url: String,
}

/// A config naming the PEM files by relative paths; `allow_grpc`: the gRPC port is another origin, which a
/// client certificate may go to only when the user says so (`allowed_origins`).
fn config(pki: &Pki, demo: &Demo, tls: &str, allow_grpc: bool) -> PathBuf {
    let allowed = if allow_grpc {
        format!("allowed_origins = [\"{}\"]\n", demo.grpc_url)
    } else {
        String::new()
    };
    let path = pki.dir.path().join("config.toml");
    std::fs::write(
        &path,
        format!(
            "[[agents]]\nname = \"secure\"\nurl = \"{}\"\n{allowed}\n[agents.tls]\n{tls}\n",
            demo.agent.base_url()
        ),
    )
    .unwrap();
    path
}

const RIGHT: &str =
    "client_cert = \"client.pem\"\nclient_key = \"client.key\"\nca_bundle = \"ca.pem\"";

async fn run(config: &Path, args: &[&str]) -> Run {
    let mut all = vec!["--config".to_string(), config.display().to_string()];
    all.extend(args.iter().map(|s| s.to_string()));
    tokio::task::spawn_blocking(move || {
        let refs: Vec<&str> = all.iter().map(String::as_str).collect();
        cli(&refs)
    })
    .await
    .unwrap()
}

fn error_line(r: &Run) -> String {
    let lines: Vec<&str> = r.stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one line expected:\n{}", r.stderr);
    lines[0].to_string()
}

fn target_from(cfg: &Path) -> AgentTarget {
    let (config, _) = a2a_console::config::load(Some(cfg)).unwrap();
    AgentTarget::from_config(&config.agents[0], Duration::from_secs(20)).unwrap()
}

/// Send and stream over `--binding GRPC` with the CLI binary.
async fn send_and_stream(cfg: &Path) {
    let r = run(
        cfg,
        &[
            "--binding",
            "GRPC",
            "send",
            "secure",
            "echo over gRPC and TLS",
        ],
    )
    .await;
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("echo: over gRPC and TLS"), "{}", r.stdout);
    let r = run(
        cfg,
        &[
            "--binding",
            "GRPC",
            "send",
            "secure",
            "stream 5",
            "--stream",
        ],
    )
    .await;
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("final state: completed"), "{}", r.stdout);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_sends_and_streams_over_grpc_with_the_client_certificate() {
    let pki = pki();
    let demo = demo(&pki, true).await;
    send_and_stream(&config(&pki, &demo, RIGHT, true)).await;
    demo.agent.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_library_connect_path_speaks_grpc_with_the_client_certificate() {
    let pki = pki();
    let demo = demo(&pki, true).await;
    let mut target = target_from(&config(&pki, &demo, RIGHT, true));
    target.prefs.binding = Some(Binding::Grpc);
    let own = target.own_http().unwrap().unwrap();
    let conn = agent::connect(&target, &own.http, &own.fetcher)
        .await
        .unwrap_or_else(|e| panic!("{}", e.message));
    assert_eq!(conn.selected.binding, Binding::Grpc);
    assert_eq!(conn.selected.interface.url, demo.grpc_url);
    let reply = conn
        .client
        .send_message(&a2a::SendMessageRequest {
            message: a2a::Message::new(a2a::Role::User, vec![a2a::Part::text("echo library")]),
            configuration: None,
            metadata: None,
            tenant: None,
        })
        .await
        .unwrap();
    assert!(format!("{reply:?}").contains("echo: library"), "{reply:?}");
    demo.agent.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_certificate_grpc_fails_in_one_line_naming_it() {
    let pki = pki();
    let demo = demo(&pki, true).await;
    let cfg = config(&pki, &demo, "ca_bundle = \"ca.pem\"", true);
    let r = run(&cfg, &["--binding", "GRPC", "send", "secure", "echo hi"]).await;
    assert_ne!(r.code, 0, "{}", r.all());
    let line = error_line(&r);
    assert!(
        line.contains("the agent asked for a client certificate (configure [agents.tls])"),
        "{line}"
    );
    demo.agent.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_https_grpc_agent_works_with_its_ca_bundle() {
    let pki = pki();
    let demo = demo(&pki, false).await;
    send_and_stream(&config(&pki, &demo, "ca_bundle = \"ca.pem\"", true)).await;
    demo.agent.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_grpc_server_certificate_says_so() {
    let pki = pki();
    let demo = demo(&pki, false).await;
    // The card is fetched with the bundle; the gRPC call through the shared roots (no bundle) must not pass.
    let mut target = target_from(&config(&pki, &demo, "ca_bundle = \"ca.pem\"", true));
    target.prefs.binding = Some(Binding::Grpc);
    let own = target.own_http().unwrap().unwrap();
    target.tls = None;
    let err = match agent::connect(&target, &own.http, &own.fetcher).await {
        Err(e) => e.message,
        Ok(c) => match c
            .client
            .send_message(&a2a::SendMessageRequest {
                message: a2a::Message::new(a2a::Role::User, vec![a2a::Part::text("echo x")]),
                configuration: None,
                metadata: None,
                tenant: None,
            })
            .await
        {
            Err(e) => a2a_console::remote::error::classify(&e).message,
            Ok(_) => panic!("an untrusted gRPC server was accepted"),
        },
    };
    assert!(
        err.contains("the agent's server certificate is not trusted (a private CA? set [agents.tls] ca_bundle)"),
        "{err}"
    );
    demo.agent.shutdown().await;
}
