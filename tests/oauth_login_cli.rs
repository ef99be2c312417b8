//! `a2a-console login` / `logout` through the real binary, against the real OpenID provider
//! (tests/peers/oidc_provider.mjs) and the protected agent beside it, whose JSON-RPC endpoint accepts
//! only an access token it verified with the provider's keys. The test is the person: it reads the
//! address `login` prints, logs in and consents on the provider's pages over plain HTTP, and lets the
//! browser's last redirect reach the console's loopback listener.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::oidc::{person, provider};
use url::Url;

fn config(dir: &Path, resource: &str, cache: bool) -> std::path::PathBuf {
    let path = dir.join("config.toml");
    let auth = format!("[agents.auth]\ntype = \"openid_connect\"\ntoken_cache = {cache}\n");
    std::fs::write(
        &path,
        format!(
            "[[agents]]\nname = \"guarded\"\nurl = \"{resource}\"\n{auth}\n\
             [[agents]]\nname = \"guarded-elsewhere\"\nurl = \"{resource}/elsewhere\"\n{auth}"
        ),
    )
    .unwrap();
    path
}

fn env(dir: &Path) -> Vec<(String, String)> {
    vec![
        (
            "A2A_CONSOLE_TOKEN_CACHE".into(),
            dir.join("tokens.json").display().to_string(),
        ),
        (
            "A2A_CONSOLE_DB".into(),
            dir.join("console.db").display().to_string(),
        ),
        // No browser may be started by a test, whatever the machine has.
        ("DISPLAY".into(), String::new()),
        ("WAYLAND_DISPLAY".into(), String::new()),
    ]
}

fn run(cfg: &Path, dir: &Path, args: &[&str]) -> common::Run {
    let mut all = vec!["--config", cfg.to_str().unwrap()];
    all.extend_from_slice(args);
    let e = env(dir);
    let pairs: Vec<(&str, &str)> = e.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    common::cli_env(&all, &pairs)
}

/// Runs `login AGENT`, plays the person (consent or refusal), and returns (exit code, stdout, stderr).
/// With `paste`, the redirected address is typed on stdin instead of reaching the listener.
async fn login(
    cfg: &Path,
    dir: &Path,
    issuer: &str,
    agent: &str,
    consent: bool,
    paste: bool,
) -> (i32, String, String) {
    let mut cmd = Command::new(common::bin());
    cmd.args([
        "--config",
        cfg.to_str().unwrap(),
        "login",
        agent,
        "--no-browser",
    ]);
    if paste {
        cmd.arg("--paste");
    }
    for (k, v) in env(dir) {
        cmd.env(k, v);
    }
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut seen = Vec::new();
    let url = loop {
        let line = rx
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("login printed no address; stderr so far: {seen:?}"));
        seen.push(line.clone());
        if let Some(u) = line.trim().strip_prefix("http://127.0.0.1:") {
            break Url::parse(&format!("http://127.0.0.1:{u}")).unwrap();
        }
    };
    let redirect = person(issuer, &url, "alice", consent).await;
    if paste {
        let mut stdin = child.stdin.take().unwrap();
        writeln!(stdin, "{redirect}").unwrap();
    } else {
        // The browser follows the provider's redirect to the console's listener.
        let page = reqwest::get(&redirect).await.unwrap();
        let body = page.text().await.unwrap();
        assert!(body.starts_with("a2a-console: "), "{body}");
    }
    let status = common::wait_or_kill(&mut child, Duration::from_secs(60), || {
        "login did not finish".into()
    });
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
    let err: Vec<String> = seen.into_iter().chain(rx.try_iter()).collect();
    (status.code().unwrap_or(-1), out, err.join("\n"))
}

#[tokio::test]
async fn login_caches_the_sign_in_the_agent_accepts_it_and_logout_forgets_it() {
    let p = provider(&[]);
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), &p.resource, true);
    let (code, out, err) = login(&cfg, dir.path(), &p.issuer, "guarded", true, false).await;
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.starts_with(
            "signed in to guarded as Alice Tester <alice@example.test> (subject alice)"
        ),
        "{out}"
    );
    assert!(out.contains(&format!("issuer:  {}", p.issuer)), "{out}");
    assert!(out.contains("refreshed automatically"), "{out}");
    assert!(
        err.contains("Waiting for the browser on 127.0.0.1:"),
        "{err}"
    );

    // The cache file is the user's alone and holds the tokens; nothing printed holds them.
    let file = dir.path().join("tokens.json");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let cached: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let entry = cached["tokens"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap()
        .clone();
    let access = entry["access_token"].as_str().unwrap();
    let refresh = entry["refresh_token"].as_str().unwrap();
    for secret in [access, refresh] {
        assert!(!out.contains(secret) && !err.contains(secret));
    }

    // A later command (a new process) uses the cached token; the agent verifies it with the provider.
    let sent = run(&cfg, dir.path(), &["send", "guarded", "hello"]);
    assert!(
        sent.stderr
            .contains("verified the token of alice (scope agent:use)"),
        "{}",
        sent.all()
    );
    assert!(!sent.all().contains(access));

    // The same agent's card names an endpoint on another origin: the token does not go there.
    let refused = run(&cfg, dir.path(), &["send", "guarded-elsewhere", "hello"]);
    assert_eq!(refused.code, 2, "{}", refused.all());
    let seen: serde_json::Value = reqwest::get(format!("{}/seen", p.elsewhere))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        seen["with_authorization"], 0,
        "no credential reached the other origin"
    );

    // The audit log has the sign-in with issuer, scopes and flow — and no token.
    let audit = run(&cfg, dir.path(), &["audit"]);
    assert!(
        audit.stdout.contains("\"method\":\"sign-in\""),
        "{}",
        audit.all()
    );
    assert!(audit.stdout.contains("openid_connect"));
    assert!(audit.stdout.contains("agent:use"));
    assert!(!audit.stdout.contains(access) && !audit.stdout.contains(refresh));

    // logout forgets it: the next call says to sign in, and the agent is not called with a token.
    let out = run(&cfg, dir.path(), &["logout", "guarded"]);
    assert_eq!(out.code, 0, "{}", out.all());
    assert!(out.stdout.contains("forgot 1 sign-in"), "{}", out.all());
    assert!(!std::fs::read_to_string(&file).unwrap().contains(access));
    let again = run(&cfg, dir.path(), &["send", "guarded", "hello"]);
    assert_eq!(again.code, 2, "{}", again.all());
    assert!(again.stderr.contains("not signed in"), "{}", again.all());
    assert!(
        again.stderr.contains("a2a-console login guarded"),
        "{}",
        again.all()
    );
    let audit = run(&cfg, dir.path(), &["audit"]);
    assert!(
        audit.stdout.contains("\"method\":\"sign-out\""),
        "{}",
        audit.all()
    );
}

#[tokio::test]
async fn login_with_a_pasted_address_and_without_a_cache_keeps_nothing_on_disk() {
    let p = provider(&[]);
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), &p.resource, false);
    let (code, out, err) = login(&cfg, dir.path(), &p.issuer, "guarded", true, true).await;
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(err.contains("or paste the address"), "{err}");
    assert!(out.contains("kept in: memory only"), "{out}");
    assert!(!dir.path().join("tokens.json").exists());
}

#[tokio::test]
async fn refused_consent_exits_with_a_clear_error() {
    let p = provider(&[]);
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), &p.resource, true);
    let (code, out, err) = login(&cfg, dir.path(), &p.issuer, "guarded", false, false).await;
    assert_eq!(code, 4, "{out}\n{err}");
    assert!(err.contains("access_denied"), "{err}");
    assert!(err.contains("consent refused"), "{err}");
    assert!(out.is_empty(), "{out}");
}

/// In a terminal, `login` also reads a pasted address; when the browser finishes first, it must still
/// exit at once (a read on the terminal left pending must not hold the process until Enter).
#[tokio::test]
async fn login_in_a_terminal_exits_when_the_browser_finishes() {
    let p = provider(&[]);
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), &p.resource, false);
    let session = format!("a2a-login-{}", std::process::id());
    let envs: Vec<String> = env(dir.path())
        .into_iter()
        .map(|(k, v)| format!("{k}='{v}'"))
        .collect();
    let script = format!(
        "env {} {} --config '{}' login guarded --no-browser; echo \"exited $?\"; sleep 60",
        envs.join(" "),
        common::bin(),
        cfg.display()
    );
    common::tmux_start(&session, &script);
    let joined = || common::tmux(&["capture-pane", "-p", "-J", "-t", &session]);
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let url = loop {
        let pane = joined();
        if let Some(line) = pane
            .lines()
            .find(|l| l.trim().starts_with("http://127.0.0.1:"))
        {
            break Url::parse(line.trim()).unwrap();
        }
        assert!(std::time::Instant::now() < deadline, "no address:\n{pane}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let pane = joined();
    assert!(
        pane.contains("or paste the address"),
        "a terminal: pasting offered\n{pane}"
    );
    let redirect = person(&p.issuer, &url, "alice", true).await;
    reqwest::get(&redirect).await.unwrap();
    let pane = common::wait_pane(&session, "login to exit", |p| p.contains("exited "));
    common::tmux(&["kill-session", "-t", &session]);
    assert!(pane.contains("exited 0"), "{pane}");
    assert!(
        pane.contains("signed in to guarded as Alice Tester"),
        "{pane}"
    );
}

/// A card whose only flow for a person is the device-code grant (the demo agent's `operator-oauth`,
/// whose small RFC 8628 server approves on the first poll): `login` shows the code and the page,
/// polls, keeps the token, and later commands carry it — the demo's extended card is served only to
/// its operator token. `logout` forgets it, and the extended card is refused again.
#[test]
fn login_with_the_device_code_flow_when_that_is_what_the_card_declares() {
    let dir = tempfile::tempdir().unwrap();
    let demo = common::demo_agent();
    let cfg = dir.path().join("config.toml");
    std::fs::write(
        &cfg,
        format!(
            "[[agents]]\nname = \"demo\"\nurl = \"{}\"\n[agents.auth]\ntype = \"oauth2\"\ntoken_cache = true\n",
            demo.url
        ),
    )
    .unwrap();

    let before = run(&cfg, dir.path(), &["card", "demo", "--extended"]);
    assert_ne!(before.code, 0, "{}", before.all());
    assert!(before.stderr.contains("not signed in"), "{}", before.all());

    let r = run(&cfg, dir.path(), &["login", "demo", "--no-browser"]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(
        r.stderr.contains("device code, scheme operator-oauth"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("code   DEMO-"), "{}", r.stderr);
    assert!(r.stdout.contains("signed in to demo"), "{}", r.stdout);
    assert!(r.stdout.contains("scopes:  operator"), "{}", r.stdout);
    let tokens = std::fs::read_to_string(dir.path().join("tokens.json")).unwrap();
    assert!(tokens.contains("device_code"), "{tokens}");
    assert!(!r.all().contains("demo-secret"), "no token is printed");

    let after = run(&cfg, dir.path(), &["card", "demo", "--extended"]);
    assert_eq!(after.code, 0, "{}", after.all());
    assert!(
        after.stdout.contains("extended card of demo"),
        "{}",
        after.stdout
    );

    let audit = run(&cfg, dir.path(), &["audit"]);
    assert!(
        audit.stdout.contains("\"method\":\"sign-in\""),
        "{}",
        audit.stdout
    );
    assert!(audit.stdout.contains("device_code"), "{}", audit.stdout);

    let out = run(&cfg, dir.path(), &["logout", "demo"]);
    assert_eq!(out.code, 0, "{}", out.all());
    let again = run(&cfg, dir.path(), &["card", "demo", "--extended"]);
    assert_ne!(again.code, 0, "{}", again.all());
}
