//! One remote agent, end to end: where it is, how the user wants to talk to it, and the connected client.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use crate::config::protocol::{Binding, Preferences, ProtocolChoice};
use crate::config::{AgentConfig, AuthConfig, AuthKind};
use crate::remote::auth::origin::CredentialScope;
use crate::remote::auth::{self, HeaderInterceptor};
use crate::remote::card::rules::card_only_summary;
use crate::remote::card::{CardFetcher, FetchedCard};
use crate::remote::connect::tls::{AgentHttp, ClientFiles, TlsSettings};
use crate::remote::connect::{self, Client, Selected};
use crate::remote::error::RemoteError;
use crate::remote::signature::{Trust, keys::judge};
use crate::remote::wire::WireLimits;

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
    /// `[agents.tls]`: a client certificate for this agent only, and the roots it is trusted by.
    pub tls: Option<TlsSettings>,
    /// The keys trusted to sign this agent's card (`[agents.trust]`, or the demo's own).
    pub trust: Trust,
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
            tls: a.tls.as_ref().map(TlsSettings::from_config),
            trust: match &a.trust {
                Some(t) => Trust::from_config(t, None).map_err(|e| {
                    RemoteError::usage(format!(
                        "agent {}: {e}",
                        crate::remote::error::one_line(a.name.as_deref().unwrap_or(&a.url))
                    ))
                })?,
                None => Trust::default(),
            },
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
            tls: None,
            trust: Trust::default(),
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

    /// Does a call to this agent carry anything secret-ish (a credential, a configured header, a client
    /// certificate)? Then its calls stay on its own origins.
    pub fn sends_secrets(&self) -> bool {
        self.auth.is_some() || !self.headers.is_empty() || self.client_cert().is_some()
    }

    /// The client certificate configured for this agent, if any.
    pub fn client_cert(&self) -> Option<&ClientFiles> {
        self.tls.as_ref().and_then(|t| t.client.as_ref())
    }

    /// This agent's own HTTP clients when it has TLS settings (its certificate is in no other client), or
    /// `None` when the shared ones serve it. Reads the PEM files: call it once per connection, not per call.
    pub fn own_http(&self) -> Result<Option<AgentHttp>, RemoteError> {
        let Some(tls) = &self.tls else {
            return Ok(None);
        };
        let label = crate::remote::error::one_line(&self.label);
        crate::remote::connect::tls::agent_http(tls, self.timeout)
            .map(Some)
            .map_err(|e| e.context(format!("agent {label}: [agents.tls]")))
    }
}

/// A connected agent: its card, the interface chosen, and the SDK client.
pub struct Connected {
    pub label: String,
    pub card: FetchedCard,
    pub selected: Selected,
    pub client: Client,
    /// The HTTP client the SDK client was built on (the agent's own when it has TLS settings): a client built
    /// later for this agent (an approval's follow-up) uses it too.
    pub http: reqwest::Client,
}

/// An agent whose card loaded but which cannot be called: what the card is, and why not.
#[derive(Clone, Debug)]
pub struct CardOnly {
    pub label: String,
    pub card: FetchedCard,
    /// A few words for the agent list ("the card lists no interfaces", "credential unavailable").
    pub short: String,
    /// The whole reason, one line, as the CLI prints it.
    pub reason: RemoteError,
}

/// What connecting to an agent gave: a client, or (the card always loads when the agent serves one) the card
/// alone with the reason it cannot be called.
pub enum Connection {
    Ready(Connected),
    CardOnly(CardOnly),
}

/// An agent's public card and the interface the console would use: what `a2a-console card` shows. Resolving no
/// credential to get here: the public card needs none (spec §8.2), and the user may be looking at an agent
/// before setting its token up.
pub struct Inspected {
    pub label: String,
    pub card: FetchedCard,
    /// The interface chosen, or why there is none (`CardOnly::short`, `CardOnly::reason`).
    pub selection: Result<Selected, (String, RemoteError)>,
}

impl Inspected {
    fn card_only(self, short: String, reason: RemoteError) -> CardOnly {
        CardOnly {
            label: self.label,
            card: self.card,
            short,
            reason,
        }
    }
}

/// Whether the credential can be resolved before the card is known: API-key defaults come from the card, and
/// so does the OAuth 2.0 token endpoint (resolving it first always failed: "the card declares no flow").
fn needs_card_for_credential(a: &AuthConfig) -> bool {
    (a.kind == AuthKind::ApiKey && (a.location.is_none() || a.name.is_none()))
        || a.kind == AuthKind::Oauth2
        || a.kind == AuthKind::OpenidConnect
}

/// Fetch the agent's public card with its static headers and no credential, and judge its signatures.
///
/// A card whose signatures do not hold up is fetched once more past both caches (the card's and the jku's)
/// before the verdict stands. The official Python SDK (a2a-sdk 1.3.0, `agent_card_routes._etag_for`) leaves
/// `signatures` out of its ETag on purpose, so after the agent rotates its key a revalidation answers 304 and
/// leaves us on the old signature, whose `kid` the new JWKS no longer has: without the second look the user
/// would see "no key for kid …" instead of the card the agent serves now (and its "key changed" alarm).
pub async fn fetch_card(
    target: &AgentTarget,
    fetcher: &CardFetcher,
    revalidate: bool,
) -> Result<FetchedCard, RemoteError> {
    let card = fetch_card_unjudged(target, fetcher, revalidate).await?;
    let card = with_verdict(card, target, fetcher).await;
    let invalid = card
        .signature
        .as_ref()
        .is_some_and(|v| v.state == crate::remote::signature::SignatureState::Invalid);
    if !invalid {
        return Ok(card);
    }
    fetcher.forget(&card.url);
    fetcher.jku.forget_all();
    match fetch_card_unjudged(target, fetcher, true).await {
        Ok(fresh) => Ok(with_verdict(fresh, target, fetcher).await),
        // The second look failing says nothing new about the card we have.
        Err(_) => Ok(card),
    }
}

/// The card as the agent (or our cache) gives it. Only when the agent answers 401 (some protect even the
/// public card) and a credential that needs no card is configured is it resolved and the fetch repeated.
async fn fetch_card_unjudged(
    target: &AgentTarget,
    fetcher: &CardFetcher,
    revalidate: bool,
) -> Result<FetchedCard, RemoteError> {
    let label = crate::remote::error::one_line(&target.label);
    let scope = target
        .scope()
        .map_err(|e| e.context(format!("agent {label}")))?;
    let plain = HeaderInterceptor::new(&target.headers, None).header_map();
    let first = fetcher
        .fetch_scoped_within(&target.url, &plain, revalidate, &scope, target.timeout)
        .await;
    let auth = match (&first, &target.auth) {
        (Err(e), Some(a)) if e.http_status == Some(401) && !needs_card_for_credential(a) => a,
        (Ok(_), _) | (Err(_), None) | (Err(_), Some(_)) => {
            return first.map_err(|e| e.context(format!("agent {label}")));
        }
    };
    let credential = auth::resolve(auth, None)
        .await
        .map_err(|e| e.context(format!("agent {label}: the card needs a credential")))?;
    let headers = HeaderInterceptor::new(&target.headers, Some(&credential)).header_map();
    fetcher
        .fetch_scoped_within(&target.url, &headers, revalidate, &scope, target.timeout)
        .await
        .map_err(|e| e.context(format!("agent {label}")))
}

/// The card with its signature verdict: every card fetched for display or use is judged here (the jku
/// cache in the fetcher makes a refresh cheap).
async fn with_verdict(
    mut card: FetchedCard,
    target: &AgentTarget,
    fetcher: &CardFetcher,
) -> FetchedCard {
    card.signature = Some(judge(&card.raw, &card.url, &target.trust, &fetcher.jku).await);
    card
}

/// Fetch the public card and choose an interface; no credential is resolved (unless the card is behind a 401).
pub async fn inspect(
    target: &AgentTarget,
    fetcher: &CardFetcher,
    revalidate: bool,
) -> Result<Inspected, RemoteError> {
    let label = crate::remote::error::one_line(&target.label);
    let card = fetch_card(target, fetcher, revalidate).await?;
    let selection = choose(target, &card.card, &label);
    Ok(Inspected {
        label,
        card,
        selection,
    })
}

/// The interface for this agent, or a short and a full reason why there is none.
fn choose(
    target: &AgentTarget,
    card: &a2a::AgentCard,
    label: &str,
) -> Result<Selected, (String, RemoteError)> {
    let context = |e: RemoteError| e.context(format!("agent {label}"));
    let scope = target
        .scope()
        .map_err(|e| ("bad agent URL".into(), context(e)))?;
    // Interfaces on the agent's own origins first, whether or not its calls carry a secret: where the console
    // connects is the user's choice, not the card's.
    let selected = connect::select_interface_within(card, target.prefs, Some(&scope))
        .map_err(|e| (card_only_summary(card, target.prefs), context(e)))?;
    let what = format!("the card's {} interface", selected.binding.wire_name());
    if let Some(why) =
        crate::remote::auth::origin::link_local_interface(&what, &selected.interface.url, &[])
    {
        return Err((LINK_LOCAL_SHORT.into(), context(RemoteError::usage(why))));
    }
    if !scope.permits_url(&selected.interface.url) {
        let why = if target.sends_secrets() {
            scope.refusal(&what, &selected.interface.url, label)
        } else {
            scope.unconsented(&what, &selected.interface.url, label)
        };
        return Err((ELSEWHERE_SHORT.into(), RemoteError::usage(why)));
    }
    Ok(selected)
}

/// The agent list's few words for a card whose interface is on another origin the user has not allowed.
pub const ELSEWHERE_SHORT: &str = "interface on another origin";
/// … and for one on a link-local address, which is never used.
pub const LINK_LOCAL_SHORT: &str = "interface on a link-local address";

/// The origin of the interface this card would be called on, when that is another origin than the agent's
/// (and not link-local, which is never offered): what the console asks the user about before using it.
pub fn elsewhere(
    card: &a2a::AgentCard,
    target: &AgentTarget,
) -> Option<crate::remote::auth::origin::Origin> {
    let scope = target.scope().ok()?;
    let selected = connect::select_interface_within(card, target.prefs, Some(&scope)).ok()?;
    if crate::remote::auth::origin::link_local_interface("", &selected.interface.url, &[]).is_some()
    {
        return None;
    }
    crate::remote::auth::origin::Origin::of(&selected.interface.url).filter(|o| !scope.permits(o))
}

/// A client for the connected agent's interface that sends `credential` (an approval's follow-up, a suite's
/// answer to auth-required): on this client only, never kept on the connection.
pub async fn client_with_credential(
    conn: &Connected,
    target: &AgentTarget,
    http: reqwest::Client,
    credential: &crate::remote::auth::Credential,
) -> Result<Client, RemoteError> {
    let headers = std::sync::Arc::new(crate::remote::auth::HeaderInterceptor::new(
        &target.headers,
        Some(credential),
    ));
    connect::build(connect::ClientSpec {
        card: &conn.card.card,
        selected: &conn.selected,
        http,
        headers,
        credential: Some(credential),
        limits: target.limits(),
        tls: target.tls.as_ref(),
    })
    .await
}

/// Fetch the card, choose an interface, resolve credentials and build the client.
pub async fn connect(
    target: &AgentTarget,
    http: &reqwest::Client,
    fetcher: &CardFetcher,
) -> Result<Connected, RemoteError> {
    match connect_with(target, http, fetcher, false).await? {
        Connection::Ready(c) => Ok(c),
        Connection::CardOnly(c) => Err(c.reason),
    }
}

/// Connect = fetch the card (an error only when there is no card) + choose an interface, resolve the
/// credential and build the client (any of which may fail: the agent is then card only, and says why).
/// `revalidate` checks a cached card with the server (the console's refresh).
pub async fn connect_with(
    target: &AgentTarget,
    http: &reqwest::Client,
    fetcher: &CardFetcher,
    revalidate: bool,
) -> Result<Connection, RemoteError> {
    let inspected = inspect(target, fetcher, revalidate).await?;
    let selected = match &inspected.selection {
        Ok(s) => s.clone(),
        Err((short, reason)) => {
            let (short, reason) = (short.clone(), reason.clone());
            return Ok(Connection::CardOnly(inspected.card_only(short, reason)));
        }
    };
    let label = inspected.label.clone();
    // A name that resolves to a link-local address is refused like a literal one, before any connection
    // (reqwest resolves again when it connects; a literal, the usual vector, is caught in `choose`).
    let addresses = tokio::time::timeout(
        target.timeout,
        crate::remote::card::resolve_host(&selected.interface.url),
    )
    .await
    .unwrap_or_default();
    let what = format!("the card's {} interface", selected.binding.wire_name());
    if let Some(why) = crate::remote::auth::origin::link_local_interface(
        &what,
        &selected.interface.url,
        &addresses,
    ) {
        let e = RemoteError::usage(why).context(format!("agent {label}"));
        return Ok(Connection::CardOnly(
            inspected.card_only(LINK_LOCAL_SHORT.into(), e),
        ));
    }
    let card = &inspected.card.card;
    let scope = match target.scope() {
        Ok(s) => s,
        Err(e) => {
            return Ok(Connection::CardOnly(
                inspected.card_only("bad agent URL".into(), e),
            ));
        }
    };
    let credential = match &target.auth {
        None => None,
        Some(a) => {
            let resolved = if a.signs_in_a_person() {
                crate::remote::auth::sign_in::bearer_for(a, card, &scope, &label, target.timeout)
                    .await
            } else if needs_card_for_credential(a) {
                auth::resolve_scoped(
                    a,
                    card.security_schemes.as_ref(),
                    Some((&scope, &label)),
                    target.timeout,
                )
                .await
            } else {
                auth::resolve(a, None).await
            };
            match resolved {
                Ok(c) => Some(c),
                Err(e) => {
                    // Nobody signed in yet is the usual first state, not a broken credential: the
                    // console names its sign-in key for it.
                    let short = if a.signs_in_a_person()
                        && !crate::remote::auth::sign_in::is_signed_in(a, card, &scope)
                    {
                        crate::remote::auth::sign_in::not_signed_in_short(a, card, &scope)
                    } else {
                        "credential unavailable"
                    };
                    let e = e.context(format!("agent {label}"));
                    return Ok(Connection::CardOnly(inspected.card_only(short.into(), e)));
                }
            }
        }
    };
    let headers = Arc::new(HeaderInterceptor::new(&target.headers, credential.as_ref()));
    let built = connect::build(connect::ClientSpec {
        card,
        selected: &selected,
        http: http.clone(),
        headers,
        credential: credential.as_ref(),
        limits: target.limits(),
        tls: target.tls.as_ref(),
    })
    .await;
    match built {
        Ok(client) => Ok(Connection::Ready(Connected {
            label,
            card: inspected.card,
            selected,
            client,
            http: http.clone(),
        })),
        Err(e) => {
            let e = e.context(format!("agent {label}"));
            Ok(Connection::CardOnly(
                inspected.card_only("client could not be built".into(), e),
            ))
        }
    }
}
