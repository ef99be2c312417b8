//! The OAuth 2.0 authorization code grant with PKCE (RFC 6749 §4.1, RFC 7636 S256) for a person at a
//! terminal, as RFC 8252 describes for native apps: the browser shows the provider's login and consent,
//! the provider redirects to our [loopback listener](crate::remote::auth::loopback) (or the user pastes the
//! redirected address), and the code is exchanged at the token endpoint with the PKCE verifier.
//! OpenID Connect ([`oidc`](crate::remote::auth::oidc)) is the same flow with `openid`, a `nonce` and an ID token.
//!
//! What protects the user: `state`, verifier and nonce are 256 random bits from the OS each time and
//! live in [`Secret`]; the redirect is accepted only with our exact `state`, at our exact redirect URI,
//! with no duplicated parameters, and with the provider's `iss` when it sends one (RFC 9207, against
//! mix-up attacks); the token endpoint gets the code only through the hardened POST of
//! [`oauth`](crate::remote::auth::oauth) (https or loopback, no redirects, capped and sanitised answers).

use a2a::{AgentCard, OAuthFlows, SecurityScheme};
use base64::Engine;
use sha2::{Digest, Sha256};
use url::Url;

use crate::remote::auth::Secret;
use crate::remote::auth::oauth::{self, OAuthError, TokenResponse};
use crate::remote::auth::oidc::{self, Identity, ProviderMetadata};
use crate::remote::error::one_line;

/// Where a card's code flow comes from, before anything is fetched. URLs are the card's, normalised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CodeFlowSource {
    /// `oauth2SecurityScheme` with an `authorizationCode` flow.
    OAuth2 {
        authorization_url: String,
        token_url: String,
        /// RFC 8414 metadata, when the scheme names it: checked for S256 support and the issuer.
        metadata_url: Option<String>,
    },
    /// `openIdConnectSecurityScheme`: everything comes from discovery.
    OpenIdConnect { discovery_url: String },
}

/// A card's code flow: `(scheme name, source, scopes)`, where the scopes are those the card's
/// `securityRequirements` ask for that scheme, else the flow's declared scopes.
pub fn code_flows_in_card(card: &AgentCard) -> Vec<(String, CodeFlowSource, Vec<String>)> {
    let Some(schemes) = &card.security_schemes else {
        return Vec::new();
    };
    let mut out: Vec<(String, CodeFlowSource, Vec<String>)> = schemes
        .iter()
        .filter_map(|(name, scheme)| {
            let (source, declared): (CodeFlowSource, Vec<String>) = match scheme {
                SecurityScheme::OAuth2(o) => match &o.flows {
                    OAuthFlows::AuthorizationCode(f) => (
                        CodeFlowSource::OAuth2 {
                            authorization_url: card_url(&f.authorization_url)?,
                            token_url: card_url(&f.token_url)?,
                            metadata_url: o.oauth2_metadata_url.as_deref().and_then(card_url),
                        },
                        f.scopes.keys().cloned().collect(),
                    ),
                    _ => return None,
                },
                SecurityScheme::OpenIdConnect(o) => (
                    CodeFlowSource::OpenIdConnect {
                        discovery_url: card_url(&o.open_id_connect_url)?,
                    },
                    Vec::new(),
                ),
                _ => return None,
            };
            let required = required_scopes(card, name);
            let mut scopes: Vec<String> = required
                .unwrap_or(declared)
                .into_iter()
                .filter(|s| crate::config::auth::is_scope_token(s))
                .collect();
            scopes.sort();
            scopes.dedup();
            Some((one_line(name), source, scopes))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The scopes the card's first security requirement naming `scheme` with scopes asks for.
fn required_scopes(card: &AgentCard, scheme: &str) -> Option<Vec<String>> {
    card.security_requirements
        .iter()
        .flatten()
        .filter_map(|req| req.get(scheme))
        .find(|scopes| !scopes.is_empty())
        .cloned()
}

fn card_url(raw: &str) -> Option<String> {
    let url = Url::parse(raw).ok()?;
    matches!(url.scheme(), "https" | "http").then(|| url.into())
}

/// A code flow ready to run: endpoints checked (https or loopback) and, for OpenID Connect, the
/// provider's metadata for verifying the ID token.
#[derive(Clone, Debug)]
pub struct CodeFlow {
    pub authorization_url: Url,
    pub token_url: Url,
    /// The issuer, when metadata or discovery named it (used for RFC 9207 `iss` and the ID token).
    pub issuer: Option<String>,
    /// OpenID Connect: discovery's answer.
    pub oidc: Option<ProviderMetadata>,
    pub scopes: Vec<String>,
}

impl CodeFlow {
    /// Fetches what the source needs (RFC 8414 metadata, OIDC discovery) and checks every endpoint.
    pub async fn resolve(
        http: &reqwest::Client,
        source: &CodeFlowSource,
        scopes: Vec<String>,
    ) -> Result<Self, OAuthError> {
        match source {
            CodeFlowSource::OAuth2 {
                authorization_url,
                token_url,
                metadata_url,
            } => {
                let authorization_url =
                    oauth::checked_url(authorization_url, "authorization endpoint")?;
                let token_url = oauth::endpoint_url(token_url, "token endpoint")?;
                let issuer = match metadata_url {
                    Some(m) => {
                        let meta = oidc::discover(http, m, oidc::MetadataKind::OAuth).await?;
                        meta.require_s256()?;
                        Some(meta.issuer)
                    }
                    None => None,
                };
                Ok(Self {
                    authorization_url,
                    token_url,
                    issuer,
                    oidc: None,
                    scopes,
                })
            }
            CodeFlowSource::OpenIdConnect { discovery_url } => {
                let meta = oidc::discover(http, discovery_url, oidc::MetadataKind::OpenId).await?;
                meta.require_s256()?;
                let mut scopes = scopes;
                if !scopes.iter().any(|s| s == "openid") {
                    scopes.insert(0, "openid".into());
                }
                // Refresh tokens come with `offline_access` (OIDC Core §11) where the provider has it.
                if meta.scopes_supported.iter().any(|s| s == "offline_access")
                    && !scopes.iter().any(|s| s == "offline_access")
                {
                    scopes.push("offline_access".into());
                }
                Ok(Self {
                    authorization_url: meta.authorization_endpoint.clone(),
                    token_url: meta.token_endpoint.clone(),
                    issuer: Some(meta.issuer.clone()),
                    oidc: Some(meta),
                    scopes,
                })
            }
        }
    }
}

/// One sign-in in progress: the URL to open and what the redirect must match.
#[derive(Debug)]
pub struct SignIn {
    flow: CodeFlow,
    client_id: String,
    redirect_uri: Url,
    /// In the authorization URL for all to see: it ties the redirect to this sign-in, it is no secret.
    state: String,
    verifier: Secret,
    /// Also in the URL; it ties the ID token to this sign-in.
    nonce: Option<String>,
    authorize_url: Url,
}

/// A finished sign-in. `Debug` shows no token.
#[derive(Clone, Debug)]
pub struct SignedIn {
    pub token: TokenResponse,
    /// OpenID Connect: who signed in, from the verified ID token.
    pub identity: Option<Identity>,
    pub issuer: Option<String>,
    pub token_url: Url,
    /// The scopes asked for (the answer's `scope`, when present, is what was granted).
    pub scopes: Vec<String>,
}

impl SignIn {
    /// Builds the authorization request (RFC 6749 §4.1.1 + RFC 7636 §4.3) for `redirect_uri`.
    pub fn new(flow: CodeFlow, client_id: &str, redirect_uri: &Url) -> Result<Self, OAuthError> {
        let state = random_token()?;
        let verifier = Secret::new(random_token()?);
        let nonce = if flow.oidc.is_some() {
            Some(random_token()?)
        } else {
            None
        };
        let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(Sha256::digest(verifier.expose().as_bytes()));
        let mut authorize_url = flow.authorization_url.clone();
        {
            let mut q = authorize_url.query_pairs_mut();
            q.append_pair("response_type", "code")
                .append_pair("client_id", client_id)
                .append_pair("redirect_uri", redirect_uri.as_str())
                .append_pair("state", &state)
                .append_pair("code_challenge", &challenge)
                .append_pair("code_challenge_method", "S256");
            if !flow.scopes.is_empty() {
                q.append_pair("scope", &flow.scopes.join(" "));
            }
            if let Some(n) = &nonce {
                q.append_pair("nonce", n);
            }
            // OIDC Core §11: offline access is granted only with explicit consent.
            if flow.scopes.iter().any(|s| s == "offline_access") {
                q.append_pair("prompt", "consent");
            }
        }
        Ok(Self {
            flow,
            client_id: client_id.to_string(),
            redirect_uri: redirect_uri.clone(),
            state,
            verifier,
            nonce,
            authorize_url,
        })
    }

    /// The address to open in a browser. It holds no secret (`state` only ties the redirect to this
    /// sign-in); it is safe to show.
    pub fn authorize_url(&self) -> &Url {
        &self.authorize_url
    }

    /// Where the code (and a confidential client's secret) will go.
    pub fn token_url(&self) -> &Url {
        &self.flow.token_url
    }

    pub fn scopes(&self) -> &[String] {
        &self.flow.scopes
    }

    pub fn issuer(&self) -> Option<&str> {
        self.flow.issuer.as_deref()
    }

    /// Checks a redirect (from the listener, or pasted by the user) and returns the code in it.
    pub fn check_redirect(&self, url: &Url) -> Result<Secret, OAuthError> {
        let bad = |reason: &str| OAuthError::Redirect {
            reason: reason.to_string(),
        };
        if url.scheme() != self.redirect_uri.scheme()
            || url.host() != self.redirect_uri.host()
            || url.port_or_known_default() != self.redirect_uri.port_or_known_default()
            || url.path() != self.redirect_uri.path()
        {
            return Err(OAuthError::Redirect {
                reason: format!(
                    "the address is not this sign-in's redirect URI {}",
                    self.redirect_uri
                ),
            });
        }
        let mut params = std::collections::BTreeMap::<String, String>::new();
        for (k, v) in url.query_pairs() {
            // RFC 6749 §3.1: parameters must not repeat; a repeated one means someone added to it.
            if params.insert(k.to_string(), v.to_string()).is_some() {
                return Err(OAuthError::Redirect {
                    reason: format!("the parameter {} appears twice", one_line(&k)),
                });
            }
        }
        match params.get("state") {
            None => return Err(bad("the redirect carries no state")),
            Some(s) if *s != self.state => return Err(OAuthError::WrongState),
            Some(_) => {}
        }
        if let (Some(iss), Some(expected)) = (params.get("iss"), self.flow.issuer.as_deref())
            && iss != expected
        {
            return Err(OAuthError::Redirect {
                reason: format!(
                    "the redirect names issuer {}, not {expected} (a mix-up attack, or a \
                     misconfigured provider)",
                    one_line(iss)
                ),
            });
        }
        if let Some(code) = params.get("error") {
            return Err(OAuthError::Server {
                status: 0,
                code: one_line(code),
                description: params.get("error_description").map(|d| one_line(d)),
                uri: params.get("error_uri").map(|u| one_line(u)),
            });
        }
        match params.get("code") {
            Some(c) if !c.is_empty() => Ok(Secret::new(c.clone())),
            _ => Err(bad("the redirect carries neither a code nor an error")),
        }
    }

    /// [`check_redirect`](Self::check_redirect) for what the user pasted: the whole address from the
    /// browser's bar.
    pub fn check_pasted(&self, pasted: &str) -> Result<Secret, OAuthError> {
        let url = Url::parse(pasted.trim()).map_err(|_| OAuthError::Redirect {
            reason: format!(
                "paste the whole address the browser was sent to (it starts with {})",
                self.redirect_uri
            ),
        })?;
        self.check_redirect(&url)
    }

    /// RFC 6749 §4.1.3 with the PKCE verifier; for OpenID Connect, the ID token is verified too.
    /// `client_secret` only for confidential clients (sent with HTTP Basic).
    pub async fn exchange(
        &self,
        http: &reqwest::Client,
        code: &Secret,
        client_secret: Option<&Secret>,
    ) -> Result<SignedIn, OAuthError> {
        const WHAT: &str = "token endpoint";
        let redirect = self.redirect_uri.to_string();
        let mut form = vec![
            ("grant_type", "authorization_code"),
            ("code", code.expose()),
            ("redirect_uri", redirect.as_str()),
            ("code_verifier", self.verifier.expose()),
        ];
        let basic = client_secret.map(|s| oauth::basic_auth(&self.client_id, s));
        if basic.is_none() {
            form.push(("client_id", &self.client_id));
        }
        let mut redact = vec![code.expose(), self.verifier.expose()];
        if let Some(s) = client_secret {
            redact.push(s.expose());
        }
        let obj = oauth::post_form(
            http,
            &self.flow.token_url,
            WHAT,
            basic.as_ref(),
            &form,
            &redact,
        )
        .await?;
        let token = oauth::answer::token_from(&obj)?;
        let identity = match &self.flow.oidc {
            Some(meta) => {
                let id_token = token.id_token.as_ref().ok_or(OAuthError::InvalidResponse {
                    what: WHAT,
                    reason: "an OpenID Connect sign-in answered without an id_token".into(),
                })?;
                Some(
                    oidc::verify_id_token(
                        http,
                        meta,
                        id_token,
                        &self.client_id,
                        self.nonce.as_deref(),
                    )
                    .await?,
                )
            }
            None => None,
        };
        Ok(SignedIn {
            token,
            identity,
            issuer: self.flow.issuer.clone(),
            token_url: self.flow.token_url.clone(),
            scopes: self.flow.scopes.clone(),
        })
    }
}

/// RFC 6749 §6: a new access token for a refresh token. The same scopes (or fewer) may be asked for;
/// an empty list asks for what was granted.
pub async fn refresh(
    http: &reqwest::Client,
    token_url: &Url,
    client_id: &str,
    client_secret: Option<&Secret>,
    refresh_token: &Secret,
    scopes: &[String],
) -> Result<TokenResponse, OAuthError> {
    let scope = scopes.join(" ");
    let mut form = vec![
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh_token.expose()),
    ];
    if !scope.is_empty() {
        form.push(("scope", &scope));
    }
    let basic = client_secret.map(|s| oauth::basic_auth(client_id, s));
    if basic.is_none() {
        form.push(("client_id", client_id));
    }
    let mut redact = vec![refresh_token.expose()];
    if let Some(s) = client_secret {
        redact.push(s.expose());
    }
    let obj = oauth::post_form(
        http,
        token_url,
        "token endpoint",
        basic.as_ref(),
        &form,
        &redact,
    )
    .await?;
    oauth::answer::token_from(&obj)
}

/// 256 bits from the OS, base64url: a `state`, PKCE verifier (43 characters, RFC 7636 §4.1) or nonce.
fn random_token() -> Result<String, OAuthError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| OAuthError::InvalidResponse {
        what: "the system's random number generator",
        reason: e.to_string(),
    })?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}
