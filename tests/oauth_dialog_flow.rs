//! The console's sign-in (the approval dialog's `o`), through `sign_in::run_code_flow` as the TUI runs
//! it, against the real OpenID provider: the redirected address pasted back, the token kept for the
//! agent's later calls (and only that agent's origin), refreshed by the provider before it expires,
//! and the sign-in in the audit log. One test in this binary: it points the audit log and the token
//! cache (process-wide) at a temporary directory before anything else runs.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use a2a_console::config::{AuthConfig, AuthKind};
use a2a_console::remote::auth::origin::CredentialScope;
use a2a_console::remote::auth::sign_in::{self, DialogIo};
use a2a_console::remote::auth::{Credential, Secret};
use common::oidc::{person, provider};
use tokio::sync::{mpsc, oneshot, watch};
use url::Url;

fn bearer(c: &Credential) -> String {
    match c {
        Credential::Bearer(s) => s.expose().to_string(),
        other => panic!("not a bearer: {other:?}"),
    }
}

async fn whoami(resource: &str, token: &str) -> reqwest::StatusCode {
    reqwest::Client::new()
        .get(format!("{resource}/whoami"))
        .bearer_auth(token)
        .send()
        .await
        .unwrap()
        .status()
}

#[tokio::test]
async fn dialog_sign_in_by_paste_is_kept_for_the_agent_and_refreshed_before_it_expires() {
    let dir = tempfile::tempdir().unwrap();
    a2a_console::remote::auth::token_store::use_dir_for_tests(dir.path());
    // Sign-in events go where the CLI writes them: its own store handle, here on the test's database.
    a2a_console::cli::login::record_sign_ins_in(Some(dir.path().join("console.db")));
    // Access tokens live 4 s: the refresh is due a second before they expire.
    let p = provider(&["--access-ttl", "4"]);
    let card: a2a::AgentCard = reqwest::get(format!("{}/.well-known/agent-card.json", p.resource))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let scope = CredentialScope::new(&p.resource, &[]).unwrap();
    let auth = AuthConfig::new(AuthKind::OpenidConnect);
    let plan = sign_in::plan(Some(&auth), &card, &scope).unwrap();
    assert_eq!(plan.flow, "openid_connect");

    let (_cancel_tx, cancel_rx) = watch::channel(false);
    let (paste_tx, paste_rx) = mpsc::unbounded_channel();
    let (url_tx, url_rx) = oneshot::channel();
    let run = {
        let (plan, auth, scope) = (plan.clone(), auth.clone(), scope.clone());
        tokio::spawn(async move {
            sign_in::run_code_flow(
                &plan,
                Some(&auth),
                &scope,
                "guarded",
                DialogIo {
                    cancel: cancel_rx,
                    pastes: paste_rx,
                    open_browser: false,
                },
                move |url, port| {
                    let _ = url_tx.send((url, port));
                },
            )
            .await
        })
    };
    let (url, port) = tokio::time::timeout(Duration::from_secs(30), url_rx)
        .await
        .unwrap()
        .unwrap();
    assert!(port > 0);
    let redirect = person(&p.issuer, &Url::parse(&url).unwrap(), "alice", true).await;
    // The browser ran elsewhere: the user pastes what it shows.
    paste_tx.send(Secret::new(redirect)).unwrap();
    let token = run.await.unwrap().unwrap();
    assert_eq!(whoami(&p.resource, token.expose()).await, 200);

    // The agent's later calls get the same token, from memory; not another origin's.
    let first = sign_in::bearer_for(&auth, &card, &scope, "guarded", Duration::from_secs(30))
        .await
        .unwrap();
    assert_eq!(bearer(&first), token.expose());
    let other = CredentialScope::new(&p.elsewhere, &[]).unwrap();
    let err = sign_in::bearer_for(&auth, &card, &other, "elsewhere", Duration::from_secs(30))
        .await
        .unwrap_err();
    assert!(err.message.contains("not signed in"), "{}", err.message);
    assert!(
        !dir.path().join("tokens.json").exists(),
        "token_cache is off: nothing on disk"
    );

    // Shortly before expiry the provider refreshes it; the new token is accepted.
    let deadline = Instant::now() + Duration::from_secs(20);
    let refreshed = loop {
        let c = sign_in::bearer_for(&auth, &card, &scope, "guarded", Duration::from_secs(30))
            .await
            .unwrap();
        if bearer(&c) != token.expose() {
            break bearer(&c);
        }
        assert!(Instant::now() < deadline, "no refresh within 20 s");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(whoami(&p.resource, &refreshed).await, 200);

    // The audit log has the sign-in, with issuer and scopes, and no token.
    let store = a2a_console::store::Store::open(&dir.path().join("console.db")).unwrap();
    let entries = store.audit_entries(50).unwrap();
    let text = serde_json::to_string(&entries).unwrap();
    assert!(entries.iter().any(|e| e.method == "sign-in"), "{text}");
    assert!(
        text.contains(&p.issuer) && text.contains("agent:use"),
        "{text}"
    );
    assert!(!text.contains(token.expose()) && !text.contains(&refreshed));
}
