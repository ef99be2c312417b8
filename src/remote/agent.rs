//! One remote agent, end to end: where it is, how the user wants to talk to it, and the connected client.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use super::auth::{self, Credential, HeaderInterceptor};
use super::card::{CardFetcher, FetchedCard};
use super::client::{self, Binding, Client, Preferences, ProtocolChoice, Selected};
use super::error::RemoteError;
use super::origin::CredentialScope;
use super::wire::WireLimits;
use crate::config::{AgentConfig, AuthConfig, AuthKind};

/// Everything needed to reach one agent, from the config file, the command line, or both.
#[derive(Clone, Debug)]
pub struct AgentTarget {
    /// What the user calls it (config name, or the URL they typed).
    pub label: String,
    pub url: String,
    pub prefs: Preferences,
    pub headers: BTreeMap<String, String>,
    pub auth: Option<AuthConfig>,
    pub timeout: Duration,
    /// How long a stream may stay silent (`None`: `wire::DEFAULT_IDLE`).
    pub idle_timeout: Option<Duration>,
    /// How long a stream may last at most.
    pub deadline: Option<Duration>,
    /// Largest event or reply (`None`: `wire::DEFAULT_MAX_EVENT_BYTES`).
    pub max_event_bytes: Option<usize>,
    /// Other origins the credential and headers may go to (see `origin::CredentialScope`).
    pub allowed_origins: Vec<String>,
}

impl AgentTarget {
    pub fn from_config(a: &AgentConfig, default_timeout: Duration) -> Result<Self, RemoteError> {
        Ok(Self {
            label: a.name.clone().unwrap_or_else(|| a.url.clone()),
            url: a.url.clone(),
            prefs: Preferences {
                binding: a
                    .binding
                    .as_deref()
                    .map(Binding::parse)
                    .transpose()
                    .map_err(RemoteError::usage)?,
                protocol: a
                    .protocol
                    .as_deref()
                    .map(ProtocolChoice::parse)
                    .transpose()
                    .map_err(RemoteError::usage)?,
            },
            headers: a.headers.clone(),
            auth: a.auth.clone(),
            timeout: a
                .timeout_secs
                .map(Duration::from_secs)
                .unwrap_or(default_timeout),
            idle_timeout: a.idle_timeout_secs.map(Duration::from_secs),
            deadline: a.deadline_secs.map(Duration::from_secs),
            max_event_bytes: a
                .max_event_mib
                .map(|m| usize::try_from(m.saturating_mul(1 << 20)).unwrap_or(usize::MAX)),
            allowed_origins: a.allowed_origins.clone(),
        })
    }

    pub fn from_url(url: &str, timeout: Duration) -> Self {
        Self {
            label: url.to_string(),
            url: url.to_string(),
            prefs: Preferences::default(),
            headers: BTreeMap::new(),
            auth: None,
            timeout,
            idle_timeout: None,
            deadline: None,
            max_event_bytes: None,
            allowed_origins: Vec::new(),
        }
    }

    /// The command line's timeouts win over the config's. `--timeout` bounds a stream's silence too (a user
    /// who says "5 s" does not mean "5 s, then wait forever for the next event").
    pub fn apply_overrides(&mut self, o: &crate::config::Overrides) {
        if let Some(t) = o.timeout {
            self.timeout = Duration::from_secs(t);
            self.idle_timeout = Some(Duration::from_secs(t));
        }
        if let Some(t) = o.idle_timeout {
            self.idle_timeout = Some(Duration::from_secs(t));
        }
        if let Some(t) = o.deadline {
            self.deadline = Some(Duration::from_secs(t));
        }
    }

    /// The deadlines and limits of this agent's calls.
    pub fn limits(&self) -> WireLimits {
        let mut l = WireLimits::new(self.timeout);
        if let Some(i) = self.idle_timeout {
            l.idle = i;
        }
        l.overall = self.deadline;
        if let Some(m) = self.max_event_bytes {
            l.max_event_bytes = m;
        }
        l
    }

    /// Where this agent's credential and headers may go.
    pub fn scope(&self) -> Result<CredentialScope, RemoteError> {
        CredentialScope::new(&self.url, &self.allowed_origins).map_err(RemoteError::usage)
    }

    /// Does a call to this agent carry anything secret-ish (a credential, a configured header)?
    pub fn sends_secrets(&self) -> bool {
        self.auth.is_some() || !self.headers.is_empty()
    }
}

/// A connected agent: its card, the interface chosen, and the SDK client.
pub struct Connected {
    pub label: String,
    pub card: FetchedCard,
    pub selected: Selected,
    pub client: Client,
}

/// Whether the credential can be resolved before the card is known: API-key defaults come from the card, and
/// so does the OAuth 2.0 token endpoint (resolving it first always failed: "the card declares no flow").
fn needs_card_for_credential(a: &AuthConfig) -> bool {
    (a.kind == AuthKind::ApiKey && (a.location.is_none() || a.name.is_none()))
        || a.kind == AuthKind::Oauth2
}

/// Fetch the card, choose an interface, resolve credentials and build the client.
pub async fn connect(
    target: &AgentTarget,
    http: &reqwest::Client,
    fetcher: &CardFetcher,
) -> Result<Connected, RemoteError> {
    connect_with(target, http, fetcher, false).await
}

/// `connect`, optionally revalidating a cached card with the server (the console's refresh).
pub async fn connect_with(
    target: &AgentTarget,
    http: &reqwest::Client,
    fetcher: &CardFetcher,
    revalidate: bool,
) -> Result<Connected, RemoteError> {
    let label = crate::remote::error::one_line(&target.label);
    let scope = target
        .scope()
        .map_err(|e| e.context(format!("agent {label}")))?;
    let early_credential: Option<Credential> = match &target.auth {
        Some(a) if !needs_card_for_credential(a) => Some(
            auth::resolve(a, None)
                .await
                .map_err(|e| e.context(format!("agent {label}")))?,
        ),
        _ => None,
    };
    let card_headers =
        HeaderInterceptor::new(&target.headers, early_credential.as_ref()).header_map();
    let card = fetcher
        .fetch_scoped(&target.url, &card_headers, revalidate, &scope)
        .await
        .map_err(|e| e.context(format!("agent {label}")))?;
    let credential = match (&target.auth, early_credential) {
        (_, Some(c)) => Some(c),
        (Some(a), None) => Some(
            auth::resolve_scoped(
                a,
                card.card.security_schemes.as_ref(),
                Some((&scope, &label)),
            )
            .await
            .map_err(|e| e.context(format!("agent {label}")))?,
        ),
        (None, None) => None,
    };
    let sends_secrets = target.sends_secrets();
    let selected =
        client::select_interface_within(&card.card, target.prefs, sends_secrets.then_some(&scope))
            .map_err(|e| e.context(format!("agent {label}")))?;
    if sends_secrets && !scope.permits_url(&selected.interface.url) {
        return Err(RemoteError::usage(scope.refusal(
            &format!("the card's {} interface", selected.binding.wire_name()),
            &selected.interface.url,
            &label,
        )));
    }
    let headers = Arc::new(HeaderInterceptor::new(&target.headers, credential.as_ref()));
    let client = client::build(client::ClientSpec {
        card: &card.card,
        selected: &selected,
        http: http.clone(),
        headers,
        credential: credential.as_ref(),
        limits: target.limits(),
    })
    .await
    .map_err(|e| e.context(format!("agent {label}")))?;
    Ok(Connected {
        label,
        card,
        selected,
        client,
    })
}
