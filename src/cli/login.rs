//! `login AGENT` and `logout AGENT`: signing a person in with the authorization code flow (PKCE) or
//! OpenID Connect the agent's card declares — or its device-code flow when that is all it offers — from
//! a terminal. The address to open is printed (and
//! opened in a browser when there is one); the redirect comes back to a listener on 127.0.0.1, or the
//! user pastes the address the browser was sent to (`--paste`, or typed into a terminal). Instructions
//! go to stderr and the outcome to stdout, so a script can read who signed in; no token is ever
//! printed.

use std::io::IsTerminal;
use std::time::Duration;

use tokio::sync::watch;

use super::exit::Exit;
use super::print::outln;
use crate::remote::auth::Secret;
use crate::remote::auth::oauth::{self, OAuthError};
use crate::remote::auth::sign_in;
use crate::remote::auth::token_store;
use crate::remote::card::CardFetcher;
use crate::remote::connect::agent::{self, AgentTarget};
use crate::remote::error::{RemoteError, one_line};

/// How long `login` waits for the browser (the provider's own code lifetime is shorter anyway).
const WAIT_FOR_BROWSER: Duration = Duration::from_secs(10 * 60);

/// A sign-in error with the exit code of its kind: network trouble is a transport error (3), a
/// refusal by the provider or a bad redirect is the remote side's answer (4).
/// With `timeout`, a request the deadline ended says how long that was.
fn oauth_failure_within(label: &str, e: &OAuthError, timeout: Option<Duration>) -> RemoteError {
    let message = match timeout {
        Some(t) => format!("agent {label}: sign-in: {}", e.within(t)),
        None => format!("agent {label}: sign-in: {e}"),
    };
    match e {
        OAuthError::Network { .. }
        | OAuthError::Http { .. }
        | OAuthError::InvalidResponse { .. } => RemoteError::transport(message),
        OAuthError::InvalidUrl { .. } | OAuthError::InsecureEndpoint { .. } => {
            RemoteError::usage(message)
        }
        _ => RemoteError::agent(0, message),
    }
}

/// `login AGENT`.
pub(super) async fn login(
    target: &AgentTarget,
    fetcher: &CardFetcher,
    no_browser: bool,
    paste: bool,
) -> Result<Exit, RemoteError> {
    let label = one_line(&target.label);
    let card = agent::fetch_card(target, fetcher, false).await?;
    let scope = target
        .scope()
        .map_err(|e| e.context(format!("agent {label}")))?;
    let plan = match sign_in::plan(target.auth.as_ref(), &card.card, &scope) {
        Ok(p) => p,
        Err(e) => {
            return match target
                .auth
                .as_ref()
                .and_then(|a| sign_in::device_plan(a, &card.card, &scope))
            {
                Some(d) => device_login(&label, &d, no_browser, &card.url, target.timeout).await,
                None => Err(RemoteError::usage(format!("agent {label}: {e}"))),
            };
        }
    };
    let fail = |e: &OAuthError| oauth_failure_within(&label, e, Some(target.timeout));
    let http = oauth::http_client_within(target.timeout).map_err(|e| fail(&e))?;
    let (sign_in, listener) = sign_in::start(&plan, &http).await.map_err(|e| fail(&e))?;
    let client_secret = match &target.auth {
        Some(a) => sign_in::client_secret(a, &scope, sign_in.token_url().as_str(), &label).await?,
        None => None,
    };
    let url = sign_in.authorize_url().to_string();
    let from = match &plan.source {
        crate::remote::auth::oauth_code::CodeFlowSource::OpenIdConnect { .. } => {
            "from the OpenID provider the agent's card names"
        }
        crate::remote::auth::oauth_code::CodeFlowSource::OAuth2 { .. } => "from the agent's card",
    };
    eprintln!(
        "Sign in to {label} ({}, scheme {}{}):\n\n{}",
        plan.flow,
        one_line(&plan.scheme),
        scopes_note(&plan.scopes),
        remote_address(&[("", &url)], from, &card.url)
    );
    if sign_in::browser_available(no_browser) && webbrowser::open(&url).is_ok() {
        eprintln!("Opened in your browser.");
    }
    let read_paste = paste || std::io::stdin().is_terminal();
    eprintln!(
        "Waiting for the browser on 127.0.0.1:{}{}",
        listener.port(),
        if read_paste {
            " — or paste the address the browser was sent to and press Enter."
        } else {
            "."
        }
    );
    let (cancel_tx, cancel_rx) = watch::channel(false);
    let waited = tokio::time::timeout(WAIT_FOR_BROWSER, async {
        let from_browser = listener.wait(|u| sign_in.check_redirect(u), cancel_rx);
        if read_paste {
            tokio::select! {
                r = from_browser => r,
                r = read_pasted(&sign_in) => r,
            }
        } else {
            from_browser.await
        }
    })
    .await;
    // The listener is gone either way (dropped with its future); this only makes it explicit.
    let _ = cancel_tx.send(true);
    let code: Secret = match waited {
        Ok(r) => r.map_err(|e| fail(&e))?,
        Err(_) => {
            return Err(RemoteError::transport(format!(
                "agent {label}: sign-in: no redirect within {} minutes; run login again",
                WAIT_FOR_BROWSER.as_secs() / 60
            )));
        }
    };
    let set = sign_in::finish(&plan, &sign_in, &code, &http, client_secret.as_ref())
        .await
        .map_err(|e| fail(&e))?;
    print_signed_in(&label, &set, plan.cache);
    Ok(Exit::Done)
}

/// ", scopes a b" or nothing.
fn scopes_note(scopes: &[String]) -> String {
    if scopes.is_empty() {
        String::new()
    } else {
        format!(", scopes {}", one_line(&scopes.join(" ")))
    }
}

/// The address (and code) to use, as the console's sign-in dialogs show them: sanitised, marked as remote
/// text with where it came from, and a warning when the page is on another origin than the agent's card —
/// the card chose where the user is sent to type a password, so the user checks it first.
fn remote_address(rows: &[(&str, &str)], from: &str, card_url: &url::Url) -> String {
    use crate::remote::auth::origin::Origin;
    use crate::trust::sanitize::sanitize_line;
    let mut out =
        format!("  ▍remote · {from} ({card_url}) — check the address before you sign in\n");
    // The address stays alone on its line (after the indent) so it can be copied whole.
    for (what, value) in rows {
        let value = sanitize_line(value).0;
        if what.is_empty() {
            out.push_str(&format!("  {value}\n"));
        } else {
            out.push_str(&format!("  {what:<6} {value}\n"));
        }
    }
    let page = rows
        .first()
        .and_then(|(_, v)| Origin::of(&sanitize_line(v).0));
    if let (Some(page), Some(card)) = (page, Origin::of_url(card_url))
        && page != card
    {
        out.push_str(&format!(
            "  ⚠ this page is on {page}, another origin than the agent's card ({card})\n"
        ));
    }
    out
}

/// What `login` prints once signed in: who, the issuer, the scopes, the expiry and where the token is
/// kept — never the token.
fn print_signed_in(label: &str, set: &token_store::TokenSet, cache: bool) {
    outln!(
        "signed in to {label}{}",
        set.who
            .as_deref()
            .map(|w| format!(" as {w}"))
            .unwrap_or_default()
    );
    outln!("  issuer:  {}", one_line(&set.issuer));
    outln!(
        "  scopes:  {}",
        if set.scopes.is_empty() {
            "(none named)".to_string()
        } else {
            set.scopes.join(" ")
        }
    );
    let expiry = match set.expires_in(token_store::now()) {
        Some(s) => format!("expires in {s} s"),
        None => "no expiry given".to_string(),
    };
    let refresh = if set.refresh.is_some() {
        "refreshed automatically"
    } else {
        "no refresh token: sign in again when it expires"
    };
    outln!("  token:   {expiry}, {refresh}");
    if cache {
        let path = token_store::cache_path()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        outln!("  kept in: {path} (0600; `a2a-console logout {label}` forgets it)");
    } else {
        outln!(
            "  kept in: memory only — set token_cache = true in [agents.auth] to keep it for later commands"
        );
    }
}

/// `login` for a card whose only flow for a person is the device authorization grant (RFC 8628): the
/// code and the page to enter it on go to stderr, the console polls the token endpoint, and the token
/// is kept and audited as a code-flow sign-in is.
async fn device_login(
    label: &str,
    plan: &sign_in::DevicePlan,
    no_browser: bool,
    card_url: &url::Url,
    timeout: Duration,
) -> Result<Exit, RemoteError> {
    let fail = |e: &OAuthError| oauth_failure_within(label, e, Some(timeout));
    let http = oauth::http_client_within(timeout).map_err(|e| fail(&e))?;
    let audit_failure = |e: &OAuthError| {
        token_store::audit(
            &plan.agent,
            "sign-in failed",
            serde_json::json!({"issuer": plan.token_url, "scopes": plan.scopes, "flow": "device_code",
                               "scheme": plan.scheme, "error": e.to_string()}),
        );
    };
    let device = match oauth::start_device_flow(
        &http,
        &plan.device_url,
        &plan.client_id,
        &plan.scopes,
    )
    .await
    {
        Ok(d) => d,
        Err(e) => {
            audit_failure(&e);
            return Err(fail(&e));
        }
    };
    let page = device
        .verification_uri_complete
        .clone()
        .unwrap_or_else(|| device.verification_uri.clone());
    eprintln!(
        "Sign in to {label} (device code, scheme {}{}):\n\n{}",
        one_line(&plan.scheme),
        scopes_note(&plan.scopes),
        remote_address(
            &[("open", &page), ("code", &device.user_code)],
            "from the authorization server the agent's card names",
            card_url,
        )
    );
    if sign_in::browser_available(no_browser) && webbrowser::open(&page).is_ok() {
        eprintln!("Opened in your browser.");
    }
    eprintln!(
        "Waiting for the approval (the code is good for {} s)…",
        device.remaining().as_secs()
    );
    let (_cancel_tx, cancel_rx) = watch::channel(false);
    let token =
        match oauth::poll_device_token(&http, &plan.token_url, &plan.client_id, &device, cancel_rx)
            .await
            .and_then(|t| t.bearer().map(|_| t))
        {
            Ok(t) => t,
            Err(e) => {
                audit_failure(&e);
                return Err(fail(&e));
            }
        };
    let token_url = url::Url::parse(&plan.token_url)
        .map_err(|e| RemoteError::usage(format!("agent {label}: token endpoint: {e}")))?;
    let set = token_store::TokenSet::from_response(
        &token,
        token_store::now(),
        &plan.scopes,
        &plan.token_url,
        &token_url,
        &plan.client_id,
        None,
        "device_code",
    );
    token_store::remember(&plan.key(), &set, plan.cache)
        .map_err(|e| RemoteError::usage(format!("agent {label}: {e}")))?;
    token_store::audit(
        &plan.agent,
        "sign-in",
        serde_json::json!({"issuer": plan.token_url, "scopes": set.scopes, "flow": "device_code",
                           "scheme": plan.scheme, "cached": plan.cache,
                           "refreshable": set.refresh.is_some()}),
    );
    print_signed_in(label, &set, plan.cache);
    Ok(Exit::Done)
}

/// Reads pasted lines until one is a usable redirect; a pasted address with the wrong state or from
/// another sign-in ends the sign-in like a bad redirect to the listener would.
async fn read_pasted(
    sign_in: &crate::remote::auth::oauth_code::SignIn,
) -> Result<Secret, OAuthError> {
    let mut lines = stdin_lines();
    loop {
        match lines.recv().await {
            Some(line) if line.trim().is_empty() => continue,
            Some(line) => return sign_in.check_pasted(&line),
            // Stdin closed: only the browser can finish now.
            None => std::future::pending::<()>().await,
        }
    }
}

/// Stdin's lines, read on a thread of their own: tokio's stdin reads on its blocking pool, and the
/// runtime waits for those at exit, so a sign-in the browser finished would hang until Enter. A plain
/// thread ends with the process.
fn stdin_lines() -> tokio::sync::mpsc::UnboundedReceiver<String> {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::stdin().lock().lines() {
            let Ok(l) = line else { break };
            if tx.send(l).is_err() {
                break;
            }
        }
    });
    rx
}

/// `logout AGENT`.
pub(super) fn logout(target: &AgentTarget) -> Result<Exit, RemoteError> {
    let label = one_line(&target.label);
    let scope = target
        .scope()
        .map_err(|e| e.context(format!("agent {label}")))?;
    let n = sign_in::sign_out(&scope).map_err(RemoteError::usage)?;
    outln!(
        "{} for {label}",
        match n {
            0 => "no sign-in was kept".to_string(),
            1 => "forgot 1 sign-in".to_string(),
            n => format!("forgot {n} sign-ins"),
        }
    );
    Ok(Exit::Done)
}

/// The CLI's sign-in events (`login`, `logout`, a refresh that fails while a command connects) go to the
/// audit log through the CLI's own store handle, opened on the first event (most commands never sign in).
pub fn record_sign_ins_in(path: Option<std::path::PathBuf>) {
    let store: std::sync::Mutex<Option<crate::store::Store>> = std::sync::Mutex::new(None);
    token_store::record_sign_ins_with(move |e| {
        let Some(path) = &path else {
            tracing::warn!(
                "no data directory for the audit log: sign-in event {} not kept",
                e.what
            );
            return;
        };
        let Ok(mut slot) = store.lock() else {
            return;
        };
        if slot.is_none() {
            match crate::store::Store::open(path) {
                Ok(s) => *slot = Some(s),
                Err(err) => tracing::warn!("audit log {}: {err}", path.display()),
            }
        }
        let Some(s) = slot.as_ref() else {
            return;
        };
        let entry = crate::store::AuditEntry::decision(e.agent, e.what, e.detail, e.at);
        if let Err(err) = s.audit(&entry) {
            tracing::warn!("audit log {}: {err}", path.display());
        }
    });
}
