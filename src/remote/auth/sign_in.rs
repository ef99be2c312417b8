//! Signing a person in to one agent, the part the CLI (`a2a-console login`) and the console share:
//! which of the card's flows to run for the agent's `[agents.auth]` ([`plan`]), running the code flow
//! to a [`TokenSet`] that is remembered and audited ([`finish`]), and handing a fresh bearer token to
//! the agent's later calls ([`bearer_for`]), refreshed when it is about to expire.

use a2a::AgentCard;
use serde_json::json;

use crate::config::{AuthConfig, AuthKind};
use crate::remote::auth::loopback::RedirectListener;
use crate::remote::auth::oauth::{self, OAuthError};
use crate::remote::auth::oauth_code::{self, CodeFlow, CodeFlowSource, SignIn, code_flows_in_card};
use crate::remote::auth::origin::CredentialScope;
use crate::remote::auth::token_store::{self, TokenKey, TokenSet};
use crate::remote::auth::{Credential, Secret};
use crate::remote::error::{RemoteError, one_line};

/// The card-only `short` of an agent whose `[agents.auth]` signs a person in with a code flow, when
/// nobody has (the console offers its sign-in key for it).
pub const NOT_SIGNED_IN: &str = "not signed in";
/// The same for a card that offers a person only the device-code flow, which only `login` runs.
pub const NOT_SIGNED_IN_DEVICE: &str = "not signed in (login)";

/// The card-only `short` for an agent nobody has signed in to: which way of signing in is open.
pub fn not_signed_in_short(
    auth: &AuthConfig,
    card: &AgentCard,
    scope: &CredentialScope,
) -> &'static str {
    if plan(Some(auth), card, scope).is_err() && device_plan(auth, card, scope).is_some() {
        NOT_SIGNED_IN_DEVICE
    } else {
        NOT_SIGNED_IN
    }
}

/// Is a token set remembered for the agent's sign-in (memory, or the cache file when opted in)? It
/// may still need a refresh: [`bearer_for`] does that.
pub fn is_signed_in(auth: &AuthConfig, card: &AgentCard, scope: &CredentialScope) -> bool {
    kept_for(auth, card, scope).is_ok_and(|k| token_store::lookup(&k.key, k.cache).is_some())
}

/// Where an agent's signed-in tokens are kept, whichever flow signed the person in.
struct Kept {
    key: TokenKey,
    cache: bool,
    agent: String,
}

/// The code flow's plan decides; a card that offers a person only the device-code flow keeps its
/// tokens under that flow's token endpoint (`login` signs in with it, see [`device_plan`]).
fn kept_for(auth: &AuthConfig, card: &AgentCard, scope: &CredentialScope) -> Result<Kept, String> {
    match plan(Some(auth), card, scope) {
        Ok(p) => Ok(Kept {
            key: p.key(),
            cache: p.cache,
            agent: p.agent,
        }),
        Err(e) => device_plan(auth, card, scope)
            .map(|d| Kept {
                key: d.key(),
                cache: d.cache,
                agent: d.agent,
            })
            .ok_or(e),
    }
}

/// A sign-in with the OAuth 2.0 device authorization grant (RFC 8628), for a card whose only flow for
/// a person is `deviceCode`: the user approves on the provider's page, the console polls.
#[derive(Clone, Debug)]
pub struct DevicePlan {
    /// The card's scheme name.
    pub scheme: String,
    pub device_url: String,
    pub token_url: String,
    pub scopes: Vec<String>,
    pub client_id: String,
    pub cache: bool,
    /// The agent's origin: whom the token is for.
    pub agent: String,
}

impl DevicePlan {
    /// Tokens are keyed by the token endpoint, as the code flow's are without OpenID Connect.
    pub fn key(&self) -> TokenKey {
        TokenKey::new(&self.agent, &self.token_url, &self.client_id, &self.scopes)
    }
}

/// The device-code flow for `auth` (`type = "oauth2"` with no flow named, or `flow = "device_code"`;
/// `scheme = "…"` picks one), when the card declares one.
pub fn device_plan(
    auth: &AuthConfig,
    card: &AgentCard,
    scope: &CredentialScope,
) -> Option<DevicePlan> {
    if auth.kind != AuthKind::Oauth2 || !matches!(auth.flow.as_deref(), None | Some("device_code"))
    {
        return None;
    }
    oauth::flows_in_card(card)
        .into_iter()
        .find_map(|(name, kind, card_scopes)| match kind {
            oauth::FlowKind::DeviceCode {
                device_authorization_url,
                token_url,
            } if auth.scheme.as_deref().is_none_or(|s| s == name) => Some(DevicePlan {
                scheme: name,
                device_url: device_authorization_url,
                token_url,
                scopes: auth.scopes.clone().unwrap_or(card_scopes),
                client_id: auth
                    .client_id
                    .clone()
                    .unwrap_or_else(|| DEFAULT_CLIENT_ID.into()),
                cache: auth.token_cache.unwrap_or(false),
                agent: scope.home.to_string(),
            }),
            _ => None,
        })
}

/// The client id when the config names none.
pub const DEFAULT_CLIENT_ID: &str = "a2a-console";

/// What a sign-in for one agent will do, decided from the config and the card.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The card's scheme name (sanitised).
    pub scheme: String,
    pub source: CodeFlowSource,
    pub scopes: Vec<String>,
    pub client_id: String,
    pub redirect_port: Option<u16>,
    pub cache: bool,
    /// The agent's origin (`http://127.0.0.1:8080`): whom the token is for.
    pub agent: String,
    /// `authorization_code` or `openid_connect`, for the audit log.
    pub flow: &'static str,
    /// The total deadline of each request the sign-in makes (discovery, token endpoint): the agent's
    /// `timeout_secs` once [`Plan::within`] has set it, so a provider that trickles is given up as the agent
    /// would be.
    pub timeout: std::time::Duration,
}

impl Plan {
    /// The plan with each of its requests bounded by `timeout` (the agent's `timeout_secs` / `--timeout`).
    pub fn within(self, timeout: std::time::Duration) -> Self {
        Self { timeout, ..self }
    }

    /// The issuer a token is keyed by: OIDC's issuer, else the token endpoint.
    pub fn issuer(&self) -> String {
        match &self.source {
            CodeFlowSource::OpenIdConnect { discovery_url } => {
                crate::remote::auth::oidc::issuer_of_discovery_url(discovery_url)
                    .unwrap_or_else(|| discovery_url.clone())
            }
            CodeFlowSource::OAuth2 { token_url, .. } => token_url.clone(),
        }
    }

    pub fn key(&self) -> TokenKey {
        TokenKey::new(&self.agent, &self.issuer(), &self.client_id, &self.scopes)
    }
}

/// Picks the card's code flow for `auth` (or, with no `[agents.auth]`, the first the card declares):
/// `type = "openid_connect"` takes an OpenID Connect scheme, `type = "oauth2"` an authorization-code
/// flow, `scheme = "…"` names one. The error says what the card offers instead.
pub fn plan(
    auth: Option<&AuthConfig>,
    card: &AgentCard,
    scope: &CredentialScope,
) -> Result<Plan, String> {
    let wanted_kind = auth.map(|a| a.kind);
    if let Some(a) = auth
        && !matches!(a.kind, AuthKind::Oauth2 | AuthKind::OpenidConnect)
    {
        return Err(format!(
            "this agent's [agents.auth] is type = {:?}; signing in needs type = \"oauth2\" or \"openid_connect\"",
            kind_name(a.kind)
        ));
    }
    if let Some(f) = auth.and_then(|a| a.flow.as_deref())
        && f != "authorization_code"
    {
        return Err(format!(
            "flow = {f:?}: `login` runs the authorization code flow (the device flow is signed in from the \
             console's approval dialog; client credentials need no sign-in)"
        ));
    }
    let flows = code_flows_in_card(card);
    let chosen = flows.iter().find(|(name, source, _)| {
        let kind_ok = matches!(
            (wanted_kind, source),
            (
                Some(AuthKind::OpenidConnect),
                CodeFlowSource::OpenIdConnect { .. }
            ) | (Some(AuthKind::Oauth2), CodeFlowSource::OAuth2 { .. })
                | (None, _)
        );
        let name_ok = auth
            .and_then(|a| a.scheme.as_deref())
            .is_none_or(|s| s == name);
        kind_ok && name_ok
    });
    let Some((scheme, source, card_scopes)) = chosen else {
        let offered: Vec<&str> = flows.iter().map(|(n, _, _)| n.as_str()).collect();
        return Err(if offered.is_empty() {
            "the card declares no OAuth 2.0 authorization-code flow and no OpenID Connect scheme"
                .into()
        } else {
            format!(
                "the card's sign-in schemes ({}) do not match this agent's [agents.auth]",
                offered.join(", ")
            )
        });
    };
    let scopes = auth
        .and_then(|a| a.scopes.clone())
        .unwrap_or_else(|| card_scopes.clone());
    Ok(Plan {
        scheme: scheme.clone(),
        source: source.clone(),
        scopes,
        client_id: auth
            .and_then(|a| a.client_id.clone())
            .unwrap_or_else(|| DEFAULT_CLIENT_ID.into()),
        redirect_port: auth.and_then(|a| a.redirect_port),
        cache: auth.and_then(|a| a.token_cache).unwrap_or(false),
        agent: scope.home.to_string(),
        flow: match source {
            CodeFlowSource::OpenIdConnect { .. } => "openid_connect",
            CodeFlowSource::OAuth2 { .. } => "authorization_code",
        },
        timeout: oauth::DEFAULT_TIMEOUT,
    })
}

fn kind_name(k: AuthKind) -> &'static str {
    match k {
        AuthKind::Bearer => "bearer",
        AuthKind::ApiKey => "api_key",
        AuthKind::Basic => "basic",
        AuthKind::Oauth2 => "oauth2",
        AuthKind::OpenidConnect => "openid_connect",
    }
}

/// Is there a browser to open? Not when asked not to, and on Linux and the BSDs not without a display
/// (a terminal over SSH: `webbrowser` would start a text browser inside our terminal).
pub fn browser_available(no_browser: bool) -> bool {
    if no_browser {
        return false;
    }
    if cfg!(any(target_os = "macos", target_os = "windows")) {
        return true;
    }
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|x| !x.is_empty()))
}

/// Resolves the flow (discovery, metadata) and binds the redirect listener: show
/// `sign_in.authorize_url()` to the user next.
pub async fn start(
    plan: &Plan,
    http: &reqwest::Client,
) -> Result<(SignIn, RedirectListener), OAuthError> {
    let flow = CodeFlow::resolve(http, &plan.source, plan.scopes.clone()).await?;
    let listener = RedirectListener::bind(plan.redirect_port).await?;
    let sign_in = SignIn::new(flow, &plan.client_id, listener.redirect_uri())?;
    Ok((sign_in, listener))
}

/// Exchanges the code, remembers the token set for the agent (and in the cache file when the agent
/// opted in) and writes the sign-in to the audit log. A failed exchange is audited too.
pub async fn finish(
    plan: &Plan,
    sign_in: &SignIn,
    code: &Secret,
    http: &reqwest::Client,
    client_secret: Option<&Secret>,
) -> Result<TokenSet, OAuthError> {
    let issuer = plan.issuer();
    let signed = match sign_in.exchange(http, code, client_secret).await {
        Ok(s) => s,
        Err(e) => {
            token_store::audit(
                &plan.agent,
                "sign-in failed",
                json!({"issuer": issuer, "scopes": plan.scopes, "flow": plan.flow, "scheme": plan.scheme,
                       "error": e.to_string()}),
            );
            return Err(e);
        }
    };
    signed.token.bearer()?;
    let who = signed.identity.as_ref().map(ToString::to_string);
    let set = TokenSet::from_response(
        &signed.token,
        token_store::now(),
        &signed.scopes,
        &issuer,
        &signed.token_url,
        &plan.client_id,
        who.clone(),
        plan.flow,
    );
    token_store::remember(&plan.key(), &set, plan.cache).map_err(|reason| {
        OAuthError::InvalidResponse {
            what: "token cache",
            reason,
        }
    })?;
    token_store::audit(
        &plan.agent,
        "sign-in",
        json!({"issuer": issuer, "scopes": set.scopes, "flow": plan.flow, "scheme": plan.scheme,
               "who": who, "cached": plan.cache, "refreshable": set.refresh.is_some()}),
    );
    Ok(set)
}

static REFRESH: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The bearer credential for an agent whose `[agents.auth]` signs a person in: the remembered token
/// (memory, or the cache file when opted in), refreshed first when it is about to expire. Without a
/// token, or when the refresh is refused, the error tells the user to sign in.
pub async fn bearer_for(
    auth: &AuthConfig,
    card: &AgentCard,
    scope: &CredentialScope,
    label: &str,
    timeout: std::time::Duration,
) -> Result<Credential, RemoteError> {
    let plan = kept_for(auth, card, scope).map_err(RemoteError::usage)?;
    let key = plan.key.clone();
    // One refresh at a time: providers rotate refresh tokens (oidc-provider does for public clients), so
    // two concurrent refreshes with the same one would make the second fail and forget the sign-in.
    let _one_at_a_time = REFRESH.lock().await;
    let sign_in_again = |why: &str| {
        RemoteError::usage(format!(
            "{why}: sign in with `a2a-console login {}` (or from the console's approval dialog)",
            one_line(label)
        ))
    };
    let Some(mut set) = token_store::lookup(&key, plan.cache) else {
        return Err(sign_in_again("not signed in"));
    };
    let now = token_store::now();
    if set.refresh_due(now) {
        let Some(refresh_token) = set.refresh.clone() else {
            let _ = token_store::forget(&key, plan.cache);
            return Err(sign_in_again("the sign-in expired and cannot be refreshed"));
        };
        // The refresh is bounded like every request to the agent (`timeout_secs`): a token endpoint that
        // trickles must not hold the connection attempt longer than the agent itself could.
        let http = oauth::http_client_within(timeout)
            .map_err(|e| RemoteError::transport(e.to_string()))?;
        // The stored endpoint gets the same checks as any token endpoint (https, or http to loopback) before
        // a refresh token goes to it.
        let token_url = oauth::endpoint_url(&set.token_url, "stored token endpoint")
            .map_err(|e| RemoteError::usage(e.to_string()))?;
        let secret = client_secret(auth, scope, &set.token_url, label).await?;
        match oauth_code::refresh(
            &http,
            &token_url,
            &set.client_id,
            secret.as_ref(),
            &refresh_token,
            &[],
        )
        .await
        {
            Ok(token) => {
                set.refreshed(&token, now);
                token_store::remember(&key, &set, plan.cache).map_err(RemoteError::usage)?;
            }
            Err(e) => {
                let _ = token_store::forget(&key, plan.cache);
                token_store::audit(
                    &plan.agent,
                    "sign-in refresh failed",
                    json!({"issuer": set.issuer, "scopes": set.scopes, "flow": set.flow,
                           "error": e.to_string()}),
                );
                return Err(sign_in_again(&format!(
                    "refreshing the sign-in failed ({})",
                    e.within(timeout)
                )));
            }
        }
    }
    Ok(Credential::Bearer(set.access))
}

/// A confidential client's secret (token_env / token_cmd), only when the token endpoint is within the
/// agent's credential scope (as for client credentials): a card cannot pick where it goes.
pub async fn client_secret(
    auth: &AuthConfig,
    scope: &CredentialScope,
    token_url: &str,
    label: &str,
) -> Result<Option<Secret>, RemoteError> {
    if auth.token_env.is_none() && auth.token_cmd.is_none() {
        return Ok(None);
    }
    if !scope.permits_url(token_url) {
        return Err(RemoteError::usage(scope.refusal(
            "the OAuth 2.0 client secret for the token endpoint",
            token_url,
            label,
        )));
    }
    crate::remote::auth::read_secret(auth.token_env.as_deref(), auth.token_cmd.as_deref())
        .await
        .map(Some)
}

/// Forgets the agent's tokens and audits the sign-out; returns how many were forgotten.
pub fn sign_out(scope: &CredentialScope) -> Result<usize, String> {
    let agent = scope.home.to_string();
    let n = token_store::forget_agent(&agent)?;
    token_store::audit(&agent, "sign-out", json!({"forgotten": n}));
    Ok(n)
}

/// How the console's dialog talks to a running code flow.
pub struct DialogIo {
    /// `true` closes the listener and ends the sign-in.
    pub cancel: tokio::sync::watch::Receiver<bool>,
    /// Addresses the user pasted.
    pub pastes: tokio::sync::mpsc::UnboundedReceiver<Secret>,
    /// Open the address in a browser (when there is one; never in tests).
    pub open_browser: bool,
}

/// The whole code flow for the console's approval dialog: start (then `started(url, port)` so the
/// dialog can show them), wait for the browser's redirect or an address from `pastes`, exchange,
/// remember and audit. Returns the access token to approve with, or a one-line reason. `cancel`
/// closes the listener and ends it.
pub async fn run_code_flow(
    plan: &Plan,
    auth: Option<&AuthConfig>,
    scope: &CredentialScope,
    label: &str,
    io: DialogIo,
    started: impl FnOnce(String, u16),
) -> Result<Secret, String> {
    let http = oauth::http_client_within(plan.timeout).map_err(|e| e.to_string())?;
    let (sign_in, listener) = start(plan, &http)
        .await
        .map_err(|e| e.within(plan.timeout))?;
    let secret = match auth {
        Some(a) => client_secret(a, scope, sign_in.token_url().as_str(), label)
            .await
            .map_err(|e| e.message)?,
        None => None,
    };
    started(sign_in.authorize_url().to_string(), listener.port());
    let DialogIo {
        cancel,
        mut pastes,
        open_browser,
    } = io;
    if open_browser {
        // A browser that fails to start is not an error: the dialog shows the address.
        let _ = webbrowser::open(sign_in.authorize_url().as_str());
    }
    let code = tokio::select! {
        r = listener.wait(|u| sign_in.check_redirect(u), cancel) => r,
        Some(p) = pastes.recv() => sign_in.check_pasted(p.expose()),
    }
    .map_err(|e| e.to_string())?;
    let set = finish(plan, &sign_in, &code, &http, secret.as_ref())
        .await
        .map_err(|e| e.within(plan.timeout))?;
    Ok(set.access)
}
