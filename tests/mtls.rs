//! Mutual TLS against a real TLS server: certificates made fresh by each test with `rcgen` (a CA, a server
//! certificate for 127.0.0.1, a client certificate from that CA, and one from another CA), and a rustls
//! server on 127.0.0.1 that demands a client certificate from the CA before it serves our demo agent. The
//! CLI (the real binary), the library's connect path and the headless console each reach it, and each way it
//! can go wrong says so in one line.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use a2a_console::app::agent::AgentOrigin;
use a2a_console::app::state::App;
use a2a_console::config::keymap::Keymap;
use a2a_console::config::theme::Theme;
use a2a_console::remote::connect::agent::{self, AgentTarget};
use a2a_console::testing::Headless;
use a2a_console::tui::runtime::Runtime;
use common::tls::{leaf, new_ca, write_private};
use common::{Run, cli};
use rcgen::ExtendedKeyUsagePurpose;
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};

/// The files a test works with, in a temporary directory that is also where its config lives.
struct Pki {
    dir: tempfile::TempDir,
    ca_der: CertificateDer<'static>,
    server_der: CertificateDer<'static>,
    server_key: PrivatePkcs8KeyDer<'static>,
}

/// `ca.pem`, `client.pem` + `client.key` (from the CA), `other.pem` + `other.key` (from another CA).
fn pki() -> Pki {
    let dir = tempfile::tempdir().unwrap();
    let ca = new_ca("a2a-console test CA");
    let other_ca = new_ca("someone else's CA");
    let (server, server_key) = leaf(
        &ca,
        "127.0.0.1",
        &["127.0.0.1", "localhost"],
        ExtendedKeyUsagePurpose::ServerAuth,
    );
    let (client, client_key) = leaf(
        &ca,
        "console-user",
        &[],
        ExtendedKeyUsagePurpose::ClientAuth,
    );
    let (other, other_key) = leaf(
        &other_ca,
        "stranger",
        &[],
        ExtendedKeyUsagePurpose::ClientAuth,
    );
    std::fs::write(dir.path().join("ca.pem"), ca.pem()).unwrap();
    std::fs::write(dir.path().join("client.pem"), client.pem()).unwrap();
    write_private(&dir.path().join("client.key"), &client_key.serialize_pem());
    std::fs::write(dir.path().join("other.pem"), other.pem()).unwrap();
    write_private(&dir.path().join("other.key"), &other_key.serialize_pem());
    Pki {
        ca_der: ca.der().clone(),
        server_der: server.der().clone(),
        server_key: PrivatePkcs8KeyDer::from(server_key.serialize_der()),
        dir,
    }
}

/// TCP + a TLS handshake that demands a client certificate; failed handshakes are dropped (the client got
/// its alert) and the next connection is taken.
struct TlsListener {
    tcp: TcpListener,
    acceptor: TlsAcceptor,
}

impl axum::serve::Listener for TlsListener {
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

/// The demo agent behind a TLS front on 127.0.0.1 that accepts only client certificates from the test CA.
async fn secure_demo(pki: &Pki) -> a2a_console::demo::DemoAgent {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let mut roots = rustls::RootCertStore::empty();
    roots.add(pki.ca_der.clone()).unwrap();
    let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
        Arc::new(roots),
        provider.clone(),
    )
    .build()
    .unwrap();
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_client_cert_verifier(verifier)
        .with_single_cert(
            vec![pki.server_der.clone()],
            PrivateKeyDer::Pkcs8(pki.server_key.clone_key()),
        )
        .unwrap();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    let tcp = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = tcp.local_addr().unwrap();
    let listener = TlsListener {
        tcp,
        acceptor: TlsAcceptor::from(Arc::new(config)),
    };
    a2a_console::demo::spawn_on(listener, addr, format!("https://{addr}"))
        .await
        .unwrap()
}

/// A config file next to the PEM files, naming them by relative paths (resolved against its directory).
fn config(pki: &Pki, url: &str, tls: &str) -> PathBuf {
    let path = pki.dir.path().join("config.toml");
    std::fs::write(
        &path,
        format!("[[agents]]\nname = \"secure\"\nurl = \"{url}\"\n\n[agents.tls]\n{tls}\n"),
    )
    .unwrap();
    path
}

const RIGHT: &str =
    "client_cert = \"client.pem\"\nclient_key = \"client.key\"\nca_bundle = \"ca.pem\"";

/// The CLI from another directory than the config's (so relative paths must come from the config's), off the
/// async runtime that serves the agent.
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

/// Every line of stderr, for "one clear line" checks.
fn error_line(r: &Run) -> String {
    let lines: Vec<&str> = r.stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "one line expected:\n{}", r.stderr);
    lines[0].to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cli_reads_the_card_and_sends_with_the_client_certificate() {
    let pki = pki();
    let demo = secure_demo(&pki).await;
    let cfg = config(&pki, &demo.base_url(), RIGHT);

    let r = run(&cfg, &["card", "secure"]).await;
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("a2a-console demo agent"), "{}", r.stdout);
    assert!(r.stdout.contains(&demo.base_url()), "{}", r.stdout);
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);

    for binding in ["JSONRPC", "HTTP+JSON"] {
        let r = run(
            &cfg,
            &[
                "--binding",
                binding,
                "send",
                "secure",
                "echo over mutual TLS",
            ],
        )
        .await;
        assert_eq!(r.code, 0, "{binding}: {}", r.all());
        assert!(
            r.stdout.contains("echo: over mutual TLS"),
            "{binding}: {}",
            r.stdout
        );
        let r = run(
            &cfg,
            &[
                "--binding",
                binding,
                "send",
                "secure",
                "stream 5",
                "--stream",
            ],
        )
        .await;
        assert_eq!(r.code, 0, "{binding}: {}", r.all());
        assert!(
            r.stdout.contains("final state: completed"),
            "{binding}: {}",
            r.stdout
        );
    }
    demo.shutdown().await;
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_others_can_read_is_a_warning_not_a_failure() {
    use std::os::unix::fs::PermissionsExt;
    let pki = pki();
    let demo = secure_demo(&pki).await;
    let cfg = config(&pki, &demo.base_url(), RIGHT);
    let key = pki.dir.path().join("client.key");
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).unwrap();
    let r = run(&cfg, &["card", "secure"]).await;
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(
        r.stderr
            .contains("can be read by others (mode 644); chmod 600 it"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("BEGIN"), "no key material: {}", r.stderr);
    demo.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_certificate_the_error_says_the_agent_asked_for_one() {
    let pki = pki();
    let demo = secure_demo(&pki).await;
    let cfg = config(&pki, &demo.base_url(), "ca_bundle = \"ca.pem\"");
    let r = run(&cfg, &["card", "secure"]).await;
    assert_ne!(r.code, 0, "{}", r.all());
    let line = error_line(&r);
    assert!(
        line.contains("the agent asked for a client certificate (configure [agents.tls])"),
        "{line}"
    );
    demo.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certificate_from_another_ca_is_refused_in_one_line() {
    let pki = pki();
    let demo = secure_demo(&pki).await;
    let cfg = config(
        &pki,
        &demo.base_url(),
        "client_cert = \"other.pem\"\nclient_key = \"other.key\"\nca_bundle = \"ca.pem\"",
    );
    let r = run(&cfg, &["send", "secure", "echo hi"]).await;
    assert_ne!(r.code, 0, "{}", r.all());
    let line = error_line(&r);
    assert!(
        line.contains("the agent refused the client certificate"),
        "{line}"
    );
    demo.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_server_certificate_says_so() {
    let pki = pki();
    let demo = secure_demo(&pki).await;
    let cfg = config(
        &pki,
        &demo.base_url(),
        "client_cert = \"client.pem\"\nclient_key = \"client.key\"",
    );
    let r = run(&cfg, &["card", "secure"]).await;
    assert_ne!(r.code, 0, "{}", r.all());
    let line = error_line(&r);
    assert!(
        line.contains("server certificate is not trusted") && line.contains("ca_bundle"),
        "{line}"
    );
    demo.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_of_another_certificate_is_a_config_error_naming_both_files() {
    let pki = pki();
    let demo = secure_demo(&pki).await;
    let cfg = config(
        &pki,
        &demo.base_url(),
        "client_cert = \"client.pem\"\nclient_key = \"other.key\"\nca_bundle = \"ca.pem\"",
    );
    let r = run(&cfg, &["card", "secure"]).await;
    assert_eq!(r.code, 2, "a config error: {}", r.all());
    let line = error_line(&r);
    assert!(line.contains("does not match the certificate"), "{line}");
    assert!(
        line.contains("other.key") && line.contains("client.pem"),
        "{line}"
    );

    // A certificate file with no certificate in it, and a key file with no key, each named.
    let cfg = config(
        &pki,
        &demo.base_url(),
        "client_cert = \"client.key\"\nclient_key = \"client.key\"\nca_bundle = \"ca.pem\"",
    );
    let line = error_line(&run(&cfg, &["card", "secure"]).await);
    assert!(
        line.contains("no certificate in the client certificate"),
        "{line}"
    );
    assert!(line.contains("client.key"), "{line}");
    let cfg = config(
        &pki,
        &demo.base_url(),
        "client_cert = \"client.pem\"\nclient_key = \"client.pem\"\nca_bundle = \"ca.pem\"",
    );
    let line = error_line(&run(&cfg, &["card", "secure"]).await);
    assert!(line.contains("no private key in"), "{line}");
    assert!(line.contains("client.pem"), "{line}");
    demo.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_url_with_a_client_certificate_is_a_config_error() {
    let pki = pki();
    let cfg = config(&pki, "http://127.0.0.1:1", RIGHT);
    let r = run(&cfg, &["card", "secure"]).await;
    assert_eq!(r.code, 2, "{}", r.all());
    assert!(
        error_line(&r).contains("mTLS needs an https URL"),
        "{}",
        r.stderr
    );
}

/// The target the config would give, through the same loader the console uses.
fn target_from(cfg: &Path) -> AgentTarget {
    let (config, _) = a2a_console::config::load(Some(cfg)).unwrap();
    AgentTarget::from_config(&config.agents[0], Duration::from_secs(20)).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_library_connect_path_presents_the_certificate() {
    let pki = pki();
    let demo = secure_demo(&pki).await;
    let target = target_from(&config(&pki, &demo.base_url(), RIGHT));
    let own = target
        .own_http()
        .unwrap()
        .expect("an mTLS agent has its own clients");
    let conn = agent::connect(&target, &own.http, &own.fetcher)
        .await
        .unwrap();
    assert_eq!(conn.card.card.name, "a2a-console demo agent");
    assert!(
        conn.selected
            .interface
            .url
            .starts_with("https://127.0.0.1:")
    );
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

    // The shared clients hold no certificate: through them the same agent refuses the card.
    let shared = a2a_console::remote::card::CardFetcher::new(Duration::from_secs(5)).unwrap();
    let http = a2a_console::remote::http::http_client(Duration::from_secs(5)).unwrap();
    let err = match agent::connect(&target, &http, &shared).await {
        Err(e) => e,
        Ok(_) => panic!("connected without the agent's own clients"),
    };
    assert!(
        err.message.contains("not trusted") || err.message.contains("client certificate"),
        "{}",
        err.message
    );
    demo.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_console_loads_an_mtls_agents_card() {
    let pki = pki();
    let demo = secure_demo(&pki).await;
    let target = target_from(&config(&pki, &demo.base_url(), RIGHT));
    let mut app = App::new(Keymap::defaults(), Theme::builtin("dark").unwrap());
    app.size = (120, 40);
    app.add_agent(target, AgentOrigin::Config);
    let (rt, rx) = Runtime::new(None, "dark").unwrap();
    let mut h = Headless::start(app, rt, rx);
    let screen = h
        .wait_until("the card loaded", Duration::from_secs(45), |s| {
            s.contains("card 0.1.0")
        })
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(screen.contains("JSONRPC"), "{screen}");
    assert!(
        screen.contains("client.pem"),
        "the certificate in use is named:\n{screen}"
    );
    let done = h.finish(Duration::from_secs(10)).await.unwrap();
    done.result.unwrap();
    demo.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_certificate_renewed_on_disk_is_used_after_a_refresh() {
    let pki = pki();
    let demo = secure_demo(&pki).await;
    // The configured files hold the other CA's certificate at first: the agent refuses it.
    let dir = pki.dir.path();
    std::fs::copy(dir.join("other.pem"), dir.join("current.pem")).unwrap();
    std::fs::copy(dir.join("other.key"), dir.join("current.key")).unwrap();
    let target = target_from(&config(
        &pki,
        &demo.base_url(),
        "client_cert = \"current.pem\"\nclient_key = \"current.key\"\nca_bundle = \"ca.pem\"",
    ));
    let mut app = App::new(Keymap::defaults(), Theme::builtin("dark").unwrap());
    app.size = (140, 40);
    app.add_agent(target, AgentOrigin::Config);
    let (rt, rx) = Runtime::new(None, "dark").unwrap();
    let mut h = Headless::start(app, rt, rx);
    h.wait("refused the client certificate", Duration::from_secs(45))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    // The user renews the certificate (the CA's this time) and refreshes.
    std::fs::copy(dir.join("client.pem"), dir.join("current.pem")).unwrap();
    std::fs::copy(dir.join("client.key"), dir.join("current.key")).unwrap();
    h.key(crossterm::event::KeyCode::Char('r'));
    let screen = h
        .wait("card 0.1.0", Duration::from_secs(45))
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(!screen.contains("refused"), "{screen}");
    let done = h.finish(Duration::from_secs(10)).await.unwrap();
    done.result.unwrap();
    demo.shutdown().await;
}
