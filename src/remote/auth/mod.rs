//! Credentials for an agent: where the secret comes from (environment variable or a command's output), how it
//! is attached (bearer, API key in header / query / cookie, HTTP basic), and a `CallInterceptor` that adds it to
//! every call. Secrets are wrapped so they cannot be printed or logged by accident.

pub mod loopback;
pub mod oauth;
pub mod oauth_code;
pub mod oidc;
pub mod origin;
pub mod sign_in;
pub mod token_store;

use std::collections::BTreeMap;

use a2a::SecurityScheme;
use a2a_client::ServiceParams;
use a2a_client::middleware::CallInterceptor;
use async_trait::async_trait;
use base64::Engine;

use crate::config::auth::{KeyLocation, check};
use crate::config::{AuthConfig, AuthKind};
use crate::remote::error::RemoteError;

/// A secret value. `Debug` and `Display` never show it, and making one registers it for redaction
/// (`trust::redact`), so it is replaced wherever else it turns up (an error quoting a URL, a debug log line).
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Self {
        let s = s.into();
        crate::trust::redact::register_secret(&s);
        // `Bearer xyz` / `Basic xyz`: the bare token is what a log line would show.
        if let Some((_, token)) = s.split_once(' ') {
            crate::trust::redact::register_secret(token);
        }
        Self(s)
    }

    /// A header value that is not a secret by name (`X-Tenant`): carried as a `Secret` like the others, but not
    /// redacted from everything the console shows.
    fn plain(s: impl Into<String>) -> Self {
        Self(s.into())
    }
    /// The only way to read the value; grep for it when auditing.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

/// A resolved credential, ready to attach.
#[derive(Clone, Debug)]
pub enum Credential {
    Bearer(Secret),
    ApiKey {
        location: KeyLocation,
        name: String,
        key: Secret,
    },
    Basic {
        username: String,
        password: Secret,
    },
}

/// Read a secret from the environment or a command. The error never contains the secret or the command's output.
pub async fn read_secret(env: Option<&str>, cmd: Option<&str>) -> Result<Secret, RemoteError> {
    if let Some(var) = env {
        return match std::env::var(var) {
            Ok(v) if !v.trim().is_empty() => Ok(Secret::new(v.trim())),
            Ok(_) => Err(RemoteError::usage(format!(
                "environment variable {var} is empty"
            ))),
            Err(_) => Err(RemoteError::usage(format!(
                "environment variable {var} is not set"
            ))),
        };
    }
    if let Some(cmd) = cmd {
        let out = tokio::process::Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
            .await
            .map_err(|e| RemoteError::usage(format!("token_cmd could not be started: {e}")))?;
        if !out.status.success() {
            return Err(RemoteError::usage(format!(
                "token_cmd exited with {} (its output is not shown, it may hold secrets)",
                out.status
            )));
        }
        let text = String::from_utf8(out.stdout)
            .map_err(|_| RemoteError::usage("token_cmd printed something that is not UTF-8"))?;
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(RemoteError::usage("token_cmd printed nothing"));
        }
        return Ok(Secret::new(trimmed));
    }
    Err(RemoteError::usage(
        "no secret source (token_env or token_cmd)",
    ))
}

/// Resolve the configured credential, filling API-key defaults from the card's declared scheme.
pub async fn resolve(
    auth: &AuthConfig,
    schemes: Option<&std::collections::HashMap<String, SecurityScheme>>,
) -> Result<Credential, RemoteError> {
    resolve_scoped(
        auth,
        schemes,
        None,
        crate::remote::auth::oauth::DEFAULT_TIMEOUT,
    )
    .await
}

/// `resolve` for an agent whose secrets belong to `scope` (with the agent's label for the message): the OAuth
/// 2.0 client secret goes to the token endpoint the card names only when that endpoint is within the scope.
pub async fn resolve_scoped(
    auth: &AuthConfig,
    schemes: Option<&std::collections::HashMap<String, SecurityScheme>>,
    scope: Option<(&crate::remote::auth::origin::CredentialScope, &str)>,
    timeout: std::time::Duration,
) -> Result<Credential, RemoteError> {
    check(auth).map_err(RemoteError::usage)?;
    if auth.signs_in_a_person() {
        // The token comes from a sign-in (`sign_in::bearer_for`, which needs the whole card).
        return Err(RemoteError::usage(
            "this agent signs a person in: sign in with `a2a-console login AGENT` or from the console's \
             approval dialog",
        ));
    }
    let secret = read_secret(auth.token_env.as_deref(), auth.token_cmd.as_deref()).await?;
    Ok(match auth.kind {
        AuthKind::OpenidConnect => {
            return Err(RemoteError::usage(
                "type = \"openid_connect\" signs a person in; it has no secret to use as it is",
            ));
        }
        AuthKind::Oauth2 => {
            client_credentials_token(auth, &secret, schemes, scope, timeout).await?
        }
        AuthKind::Bearer => Credential::Bearer(secret),
        AuthKind::Basic => Credential::Basic {
            username: auth.username.clone().unwrap_or_default(),
            password: secret,
        },
        AuthKind::ApiKey => {
            let declared = declared_api_key(auth.scheme.as_deref(), schemes);
            let location = match (&auth.location, &declared) {
                (Some(l), _) => KeyLocation::parse(l).map_err(RemoteError::usage)?,
                (None, Some((l, _))) => KeyLocation::parse(l).unwrap_or(KeyLocation::Header),
                (None, None) => KeyLocation::Header,
            };
            let name = auth
                .name
                .clone()
                .or_else(|| declared.map(|(_, n)| n))
                .unwrap_or_else(|| "X-API-Key".to_string());
            if location == KeyLocation::Query {
                // reqwest quotes the URL in its errors: `?name=…` must come out redacted.
                crate::trust::redact::register_query_param(&name);
            }
            Credential::ApiKey {
                location,
                name,
                key: secret,
            }
        }
    })
}

/// OAuth 2.0 client credentials against the token endpoint the card declares (the scheme named in the config,
/// else the first client-credentials flow), scopes as declared.
async fn client_credentials_token(
    auth: &AuthConfig,
    client_secret: &Secret,
    schemes: Option<&std::collections::HashMap<String, SecurityScheme>>,
    scope: Option<(&crate::remote::auth::origin::CredentialScope, &str)>,
    timeout: std::time::Duration,
) -> Result<Credential, RemoteError> {
    let mut flows: Vec<(&String, &a2a::ClientCredentialsOAuthFlow)> = schemes
        .into_iter()
        .flatten()
        .filter_map(|(name, s)| match s {
            SecurityScheme::OAuth2(o) => match &o.flows {
                a2a::OAuthFlows::ClientCredentials(f) => Some((name, f)),
                _ => None,
            },
            _ => None,
        })
        .filter(|(name, _)| auth.scheme.as_deref().is_none_or(|w| w == name.as_str()))
        .collect();
    flows.sort_by_key(|(name, _)| name.as_str());
    let Some((_, flow)) = flows.first() else {
        return Err(RemoteError::usage(
            "type = \"oauth2\": the card declares no OAuth 2.0 client-credentials flow (a device-code flow is signed \
             in from the console's approval dialog)",
        ));
    };
    if let Some((scope, label)) = scope
        && !scope.permits_url(&flow.token_url)
    {
        return Err(RemoteError::usage(scope.refusal(
            "the card's OAuth 2.0 token endpoint",
            &flow.token_url,
            label,
        )));
    }
    let client_id = auth.client_id.as_deref().unwrap_or("a2a-console");
    let mut scopes: Vec<String> = flow.scopes.keys().cloned().collect();
    scopes.sort();
    // Bounded by the agent's `timeout_secs`, as every request made for it.
    let http = crate::remote::auth::oauth::http_client_within(timeout)
        .map_err(|e| RemoteError::transport(e.to_string()))?;
    let token = crate::remote::auth::oauth::client_credentials(
        &http,
        &flow.token_url,
        client_id,
        client_secret,
        &scopes,
    )
    .await
    .map_err(|e| {
        RemoteError::transport(format!(
            "OAuth 2.0 client credentials: {}",
            e.within(timeout)
        ))
    })?;
    token
        .bearer()
        .map_err(|e| RemoteError::transport(e.to_string()))
}

/// The card's API-key scheme: the one named, else the only one.
fn declared_api_key(
    wanted: Option<&str>,
    schemes: Option<&std::collections::HashMap<String, SecurityScheme>>,
) -> Option<(String, String)> {
    let schemes = schemes?;
    let mut keys = schemes.iter().filter_map(|(n, s)| match s {
        SecurityScheme::ApiKey(k) => Some((n, (k.location.clone(), k.name.clone()))),
        _ => None,
    });
    match wanted {
        Some(w) => keys.find(|(n, _)| n.as_str() == w).map(|(_, v)| v),
        None => {
            let first = keys.next()?;
            keys.next().is_none().then_some(first.1)
        }
    }
}

impl Credential {
    /// The header this credential adds, if it travels in one.
    pub fn header(&self) -> Option<(String, Secret)> {
        match self {
            Credential::Bearer(t) => Some((
                "Authorization".into(),
                Secret::new(format!("Bearer {}", t.expose())),
            )),
            Credential::Basic { username, password } => {
                let raw = format!("{username}:{}", password.expose());
                let enc = base64::engine::general_purpose::STANDARD.encode(raw);
                Some(("Authorization".into(), Secret::new(format!("Basic {enc}"))))
            }
            Credential::ApiKey {
                location: KeyLocation::Header,
                name,
                key,
            } => Some((name.clone(), key.clone())),
            Credential::ApiKey {
                location: KeyLocation::Cookie,
                name,
                key,
            } => Some((
                "Cookie".into(),
                Secret::new(format!("{name}={}", key.expose())),
            )),
            Credential::ApiKey {
                location: KeyLocation::Query,
                ..
            } => None,
        }
    }

    /// The query parameter this credential adds, if it travels in the URL.
    pub fn query(&self) -> Option<(String, Secret)> {
        match self {
            Credential::ApiKey {
                location: KeyLocation::Query,
                name,
                key,
            } => Some((name.clone(), key.clone())),
            _ => None,
        }
    }
}

/// Adds the agent's static headers and credential header to every SDK call.
pub struct HeaderInterceptor {
    headers: Vec<(String, Secret)>,
}

impl HeaderInterceptor {
    pub fn new(static_headers: &BTreeMap<String, String>, credential: Option<&Credential>) -> Self {
        let mut headers: Vec<(String, Secret)> = static_headers
            .iter()
            .map(|(k, v)| {
                let value = if crate::trust::redact::is_secret_header(k) {
                    Secret::new(v.clone())
                } else {
                    Secret::plain(v.clone())
                };
                (k.clone(), value)
            })
            .collect();
        if let Some(h) = credential.and_then(Credential::header) {
            headers.push(h);
        }
        Self { headers }
    }

    /// The headers themselves, for a caller that builds its own requests (`check`'s prober).
    pub fn headers(&self) -> Vec<(String, Secret)> {
        self.headers.clone()
    }

    /// The same headers as a `HeaderMap`, for plain HTTP requests (card fetches).
    pub fn header_map(&self) -> reqwest::header::HeaderMap {
        let mut map = reqwest::header::HeaderMap::new();
        for (k, v) in &self.headers {
            if let (Ok(name), Ok(mut value)) = (
                reqwest::header::HeaderName::from_bytes(k.as_bytes()),
                reqwest::header::HeaderValue::from_str(v.expose()),
            ) {
                value.set_sensitive(true);
                map.append(name, value);
            }
        }
        map
    }
}

#[async_trait]
impl CallInterceptor for HeaderInterceptor {
    async fn before(&self, _method: &str, params: &mut ServiceParams) -> Result<(), a2a::A2AError> {
        for (k, v) in &self.headers {
            params
                .entry(k.clone())
                .or_default()
                .push(v.expose().to_string());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(kind: AuthKind) -> AuthConfig {
        AuthConfig {
            token_cmd: Some("echo s3cret".into()),
            ..AuthConfig::new(kind)
        }
    }

    #[tokio::test]
    async fn token_cmd_output_is_the_secret_and_never_debug_printed() {
        let c = resolve(&cfg(AuthKind::Bearer), None).await.unwrap();
        let (name, value) = c.header().unwrap();
        assert_eq!(name, "Authorization");
        assert_eq!(value.expose(), "Bearer s3cret");
        assert!(!format!("{c:?}").contains("s3cret"));
    }

    #[tokio::test]
    async fn failing_command_does_not_leak_output() {
        let mut a = cfg(AuthKind::Bearer);
        a.token_cmd = Some("echo leaked; exit 3".into());
        let err = resolve(&a, None).await.unwrap_err();
        assert!(!err.message.contains("leaked"));
        assert!(err.message.contains("exit"));
    }

    #[tokio::test]
    async fn api_key_defaults_come_from_the_card() {
        let mut schemes = std::collections::HashMap::new();
        schemes.insert(
            "k".to_string(),
            SecurityScheme::ApiKey(a2a::ApiKeySecurityScheme {
                location: "cookie".into(),
                name: "session".into(),
                description: None,
            }),
        );
        let c = resolve(&cfg(AuthKind::ApiKey), Some(&schemes))
            .await
            .unwrap();
        let (name, value) = c.header().unwrap();
        assert_eq!(name, "Cookie");
        assert_eq!(value.expose(), "session=s3cret");
    }

    #[test]
    fn config_checks() {
        let mut a = cfg(AuthKind::Bearer);
        a.token_cmd = None;
        assert!(check(&a).unwrap_err().contains("token_env"));
        let mut b = cfg(AuthKind::Basic);
        assert!(check(&b).unwrap_err().contains("username"));
        b.username = Some("u".into());
        assert!(check(&b).is_ok());
    }

    #[test]
    fn sign_in_settings_are_checked() {
        let parse = |extra: &str| {
            let text =
                format!("[[agents]]\nurl = \"http://127.0.0.1:1\"\n[agents.auth]\n{extra}\n");
            let c = crate::config::parse(&text).unwrap();
            check(c.agents[0].auth.as_ref().unwrap())
        };
        // A person signing in needs no secret; every sign-in setting is accepted.
        assert!(
            parse(
                "type = \"openid_connect\"\nclient_id = \"c\"\nscopes = [\"agent:use\"]\nredirect_port = 8765\ntoken_cache = true"
            )
            .is_ok()
        );
        assert!(parse("type = \"oauth2\"\nflow = \"authorization_code\"").is_ok());
        assert!(
            parse("type = \"oauth2\"").is_ok(),
            "no secret: a person signs in"
        );
        let e = parse("type = \"oauth2\"\nflow = \"password\"").unwrap_err();
        assert!(
            e.contains("authorization_code, device_code, client_credentials"),
            "{e}"
        );
        let e = parse("type = \"oauth2\"\nflow = \"client_credentials\"").unwrap_err();
        assert!(e.contains("client secret"), "{e}");
        let e = parse("type = \"bearer\"\ntoken_env = \"T\"\ntoken_cache = true").unwrap_err();
        assert!(e.contains("only apply to type"), "{e}");
        let e = parse("type = \"openid_connect\"\nflow = \"device_code\"").unwrap_err();
        assert!(e.contains("`flow` only applies"), "{e}");
        let e = parse("type = \"openid_connect\"\nscopes = [\"a b\"]").unwrap_err();
        assert!(e.contains("not a valid OAuth scope"), "{e}");
        // Which configs sign a person in.
        let c = crate::config::parse(
            "[[agents]]\nurl = \"http://127.0.0.1:1\"\n[agents.auth]\ntype = \"oauth2\"\ntoken_env = \"S\"\n",
        )
        .unwrap();
        assert!(
            !c.agents[0].auth.as_ref().unwrap().signs_in_a_person(),
            "client credentials"
        );
    }

    #[tokio::test]
    async fn oauth2_client_credentials_uses_the_cards_token_endpoint() {
        use axum::routing::post;
        let app = axum::Router::new().route(
            "/token",
            post(|headers: axum::http::HeaderMap, body: String| async move {
                let basic = headers
                    .get("authorization")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("");
                // client id "cid", secret "s3cret"
                if basic == "Basic Y2lkOnMzY3JldA=="
                    && body.contains("grant_type=client_credentials")
                {
                    axum::Json(serde_json::json!({"access_token": "tok-1", "token_type": "Bearer"}))
                        .into_response()
                } else {
                    (
                        axum::http::StatusCode::UNAUTHORIZED,
                        axum::Json(serde_json::json!({"error": "invalid_client"})),
                    )
                        .into_response()
                }
            }),
        );
        use axum::response::IntoResponse;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        let mut schemes = std::collections::HashMap::new();
        schemes.insert(
            "cc".to_string(),
            SecurityScheme::OAuth2(a2a::OAuth2SecurityScheme {
                flows: a2a::OAuthFlows::ClientCredentials(a2a::ClientCredentialsOAuthFlow {
                    token_url: format!("http://{addr}/token"),
                    refresh_url: None,
                    scopes: std::collections::HashMap::from([(
                        "read".to_string(),
                        "Read".to_string(),
                    )]),
                }),
                description: None,
                oauth2_metadata_url: None,
            }),
        );
        let mut a = cfg(AuthKind::Oauth2);
        a.client_id = Some("cid".into());
        let c = resolve(&a, Some(&schemes)).await.unwrap();
        assert_eq!(c.header().unwrap().1.expose(), "Bearer tok-1");
        a.token_cmd = Some("echo sekrit-xyz".into());
        let err = resolve(&a, Some(&schemes)).await.unwrap_err();
        assert!(err.message.contains("invalid_client"), "{}", err.message);
        assert!(
            !err.message.contains("sekrit-xyz"),
            "the secret never appears in errors"
        );
        // No client-credentials flow declared: a clear usage error.
        assert!(
            resolve(&a, None)
                .await
                .unwrap_err()
                .message
                .contains("client-credentials")
        );
    }
}
