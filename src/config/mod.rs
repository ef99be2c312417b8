//! The console's configuration: TOML found by `--config FILE`, then `$A2A_CONSOLE_CONFIG`, then the XDG config
//! dir; strict (an unknown key is an error naming it and its line) so a typo never silently drops a setting.

pub mod auth;
pub mod contrast;
pub mod edit;
pub mod keymap;
pub mod protocol;
pub mod theme;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// Environment variable naming the config file.
pub const CONFIG_ENV: &str = "A2A_CONSOLE_CONFIG";

/// Default bound on one request, in seconds.
pub const DEFAULT_TIMEOUT_SECS: u64 = 30;

/// Where the embedded demo agent listens unless `[demo] port` (or `demo-agent --port`) says otherwise: the same
/// address every start, so the store keeps its tasks under one agent URL (a new random port made `history`
/// list them twice) and a restored demo tab finds its agent again.
pub const DEFAULT_DEMO_PORT: u16 = 41241;

/// What the command line overrides when the console starts (the CLI builds it from its global options).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    /// The config file to read instead of the discovered one (`--config FILE`).
    pub config: Option<PathBuf>,
    /// Seconds to wait for one request, ahead of the config's `timeout_secs` (`--timeout SECS`); it also
    /// bounds how long a stream may stay silent, unless `idle_timeout` says otherwise.
    pub timeout: Option<u64>,
    /// Seconds a stream may stay silent (`--idle-timeout SECS`).
    pub idle_timeout: Option<u64>,
    /// Seconds a stream may last at most (`--deadline SECS`).
    pub deadline: Option<u64>,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Seconds to wait for a reply to a single request (streams may stay open longer).
    #[serde(default)]
    pub timeout_secs: Option<u64>,
    #[serde(default)]
    pub agents: Vec<AgentConfig>,
    #[serde(default)]
    pub ui: UiConfig,
    #[serde(default)]
    pub push: PushConfig,
    #[serde(default)]
    pub store: StoreConfig,
    #[serde(default)]
    pub demo: DemoConfig,
    /// Key remapping: action name → keys, e.g. `cancel_task = ["ctrl-k"]` (see the help screen for names).
    #[serde(default)]
    pub keys: BTreeMap<String, Vec<String>>,
}

/// The optional local webhook receiver for push notifications.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PushConfig {
    /// Off by default: the console listens only when asked to.
    #[serde(default)]
    pub enabled: bool,
    /// Where to listen; default 127.0.0.1 on a free port. A non-loopback address exposes the receiver to the
    /// network (tokens still guard it) and must be chosen on purpose.
    #[serde(default)]
    pub bind: Option<String>,
}

/// The embedded demo agent (`--demo`, `D`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DemoConfig {
    /// The loopback port it listens on (default 41241, as `a2a-console demo-agent`); when that port is
    /// taken it listens on a free one and says so. 0: a free port every start.
    #[serde(default)]
    pub port: Option<u16>,
}

/// `[store] max_artifact_mib` unless configured: a large report fits; a runaway artifact costs the console
/// about a hundred MB at most.
pub const DEFAULT_MAX_ARTIFACT_MIB: u64 = 32;

/// How long the local store keeps things (defaults: 30 days, 512 MiB, audit log 180 days).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreConfig {
    /// Tasks not updated for this many days are forgotten, with their events.
    #[serde(default)]
    pub keep_days: Option<u32>,
    /// Past this many MiB in use, the least recently updated tasks are forgotten until it fits.
    #[serde(default)]
    pub max_mb: Option<u64>,
    /// Audit-log entries older than this many days are dropped (the audit log's own retention).
    #[serde(default)]
    pub audit_keep_days: Option<u32>,
    /// Most MiB the console keeps (in memory and in the store) of one artifact; 0 means no limit.
    #[serde(default)]
    pub max_artifact_mib: Option<u64>,
}

impl StoreConfig {
    /// The per-artifact size limit in bytes (`None`: no limit).
    pub fn artifact_limit(&self) -> Option<usize> {
        match self.max_artifact_mib {
            Some(0) => None,
            mib => {
                let mib = mib.unwrap_or(DEFAULT_MAX_ARTIFACT_MIB);
                Some(usize::try_from(mib.saturating_mul(1024 * 1024)).unwrap_or(usize::MAX))
            }
        }
    }
}

/// How the console looks and behaves.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UiConfig {
    /// A built-in theme (dark, light, high-contrast) or a path to a theme file.
    #[serde(default)]
    pub theme: Option<String>,
    /// Capture the mouse (click agents and tabs, scroll panes). Default true.
    #[serde(default)]
    pub mouse: Option<bool>,
    /// Ring the terminal bell when a task off screen needs you or finishes. Default false.
    #[serde(default)]
    pub bell: Option<bool>,
}

/// One configured remote agent.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentConfig {
    /// Display name; defaults to the card's name.
    #[serde(default)]
    pub name: Option<String>,
    /// Base URL (the card is at `/.well-known/agent-card.json` below it) or a direct card URL.
    pub url: String,
    /// Preferred binding: JSONRPC | HTTP+JSON | GRPC.
    #[serde(default)]
    pub binding: Option<String>,
    /// Protocol version to use: 1.0 | 0.3 (default: the newest the card offers).
    #[serde(default)]
    pub protocol: Option<String>,
    /// Static headers sent with every request to this agent (tenant ids, routing keys …).
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    #[serde(default)]
    pub auth: Option<AuthConfig>,
    /// Per-agent request timeout in seconds: a unary call's whole reply, a stream's response headers.
    #[serde(default)]
    pub timeout_secs: Option<u64>,
    /// Seconds a stream may go without an event or keep-alive before it is given up (default 60; the
    /// console then re-attaches to the task).
    #[serde(default)]
    pub idle_timeout_secs: Option<u64>,
    /// Seconds a stream may last at most, however lively (default: no limit).
    #[serde(default)]
    pub deadline_secs: Option<u64>,
    /// Largest single stream event or reply, in MiB (default 64).
    #[serde(default)]
    pub max_event_mib: Option<u64>,
    /// Other origins (`https://host[:port]`) this agent's credential and headers may be sent to — a card
    /// interface or a card redirect on another host. Without it, they go only to the origin of `url`.
    #[serde(default)]
    pub allowed_origins: Vec<String>,
    /// Mutual TLS and private CAs: a client certificate and key presented to this agent only, and roots to
    /// trust for it.
    #[serde(default)]
    pub tls: Option<TlsConfig>,
    /// Which keys may sign this agent's card (`[agents.trust]`); see `remote::signature`.
    #[serde(default)]
    pub trust: Option<TrustConfig>,
}

/// `[agents.tls]`: PEM files, named by path (`~` is the home directory; a relative path is relative to the
/// config file's directory). They are read when the agent is connected, not when the config loads, so a
/// certificate renewed on disk is picked up by the next refresh.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TlsConfig {
    /// The client certificate (the leaf first, optionally followed by its chain).
    #[serde(default)]
    pub client_cert: Option<String>,
    /// The client certificate's private key: PKCS#8, PKCS#1 (RSA) or SEC1 (EC).
    #[serde(default)]
    pub client_key: Option<String>,
    /// Extra roots to trust for this agent (a private CA), next to the system's.
    #[serde(default)]
    pub ca_bundle: Option<String>,
    /// Trust only `ca_bundle` for this agent, not the system's roots.
    #[serde(default)]
    pub ca_only: bool,
}

/// `[agents.trust]`: the keys the user trusts to sign an agent's card.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TrustConfig {
    /// A JWKS file (`{"keys": [...]}`) or a single JWK; `~` and relative paths as for `[agents.tls]`.
    #[serde(default)]
    pub jwks_file: Option<PathBuf>,
    /// One public JWK, inline: a TOML table or a JSON string.
    #[serde(default)]
    pub jwk: Option<serde_json::Value>,
    /// RFC 7638 SHA-256 thumbprints (base64url, `sha256:` prefix allowed) of keys trusted to sign.
    #[serde(default)]
    pub pinned: Vec<String>,
    /// Origins other than the card's that a signature's `jku` may be fetched from.
    #[serde(default)]
    pub jku_origins: Vec<String>,
}

/// How to authenticate to an agent. Secrets never live in the file: they come from an environment variable
/// or a command's output (a password manager, a cloud CLI …).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuthConfig {
    #[serde(rename = "type")]
    pub kind: AuthKind,
    /// Environment variable holding the secret.
    #[serde(default)]
    pub token_env: Option<String>,
    /// Command whose standard output (trimmed) is the secret, run with `sh -c`.
    #[serde(default)]
    pub token_cmd: Option<String>,
    /// api_key: where the key goes (header | query | cookie); default: what the card declares, else header.
    #[serde(default)]
    pub location: Option<String>,
    /// api_key: the header / query / cookie name; default: what the card declares, else `X-API-Key`.
    #[serde(default)]
    pub name: Option<String>,
    /// oauth2 / openid_connect: the client id registered with the agent's authorization server (default
    /// "a2a-console"). With token_env / token_cmd it is a confidential client and that is its secret.
    #[serde(default)]
    pub client_id: Option<String>,
    /// oauth2: which grant to run — authorization_code | device_code | client_credentials (default: client
    /// credentials when a secret is configured, else the best flow the card declares for a person:
    /// authorization code, then device code).
    #[serde(default)]
    pub flow: Option<String>,
    /// oauth2 / openid_connect: the scopes to ask for, instead of the card's security requirement.
    #[serde(default)]
    pub scopes: Option<Vec<String>>,
    /// oauth2 / openid_connect: a fixed port for the sign-in's redirect listener on 127.0.0.1 (for providers
    /// that need the redirect URI registered with its port); default: a random free port.
    #[serde(default)]
    pub redirect_port: Option<u16>,
    /// oauth2 / openid_connect: keep the signed-in tokens (with the refresh token) in a 0600 file in the
    /// data dir, so a restart needs no new sign-in. Default false: tokens live in memory only.
    #[serde(default)]
    pub token_cache: Option<bool>,
    /// basic: the user name (the secret is the password).
    #[serde(default)]
    pub username: Option<String>,
    /// Which of the card's `securitySchemes` this credential satisfies (informational; used to pick defaults).
    #[serde(default)]
    pub scheme: Option<String>,
}

impl AuthConfig {
    /// A credential of this kind with nothing else set (the file's defaults).
    pub fn new(kind: AuthKind) -> Self {
        Self {
            kind,
            token_env: None,
            token_cmd: None,
            location: None,
            name: None,
            client_id: None,
            username: None,
            scheme: None,
            flow: None,
            scopes: None,
            redirect_port: None,
            token_cache: None,
        }
    }

    /// Signs a person in (authorization code, device code or OpenID Connect) rather than using a secret
    /// as it is (bearer, api key, basic) or as a client secret alone (client credentials).
    pub fn signs_in_a_person(&self) -> bool {
        match self.kind {
            AuthKind::OpenidConnect => true,
            AuthKind::Oauth2 => match self.flow.as_deref() {
                Some("client_credentials") => false,
                Some(_) => true,
                None => self.token_env.is_none() && self.token_cmd.is_none(),
            },
            _ => false,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthKind {
    Bearer,
    ApiKey,
    Basic,
    /// OAuth 2.0: client credentials with the secret from token_env / token_cmd (non-interactive), or a
    /// person signing in (authorization code with PKCE, device code) with `a2a-console login` or from the
    /// approval dialog; the endpoints come from the agent card.
    Oauth2,
    /// OpenID Connect: discovery from the card's `openIdConnectUrl`, then the authorization code flow with
    /// PKCE; the ID token says who signed in.
    OpenidConnect,
}

impl AuthKind {
    /// The scheme in words, for the agent list and the card page.
    pub fn words(self) -> &'static str {
        match self {
            AuthKind::Bearer => "bearer token",
            AuthKind::ApiKey => "API key",
            AuthKind::Basic => "HTTP Basic",
            AuthKind::Oauth2 => "OAuth 2.0",
            AuthKind::OpenidConnect => "OpenID Connect",
        }
    }
}

/// A config error with the file it came from.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("config file {path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("config file {path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

/// Where the config file is, by precedence; `None` when no file is configured and the default does not exist.
pub fn locate(explicit: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = explicit {
        return Some(p.to_path_buf());
    }
    if let Some(p) = std::env::var_os(CONFIG_ENV).filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let default = default_path()?;
    default.exists().then_some(default)
}

/// `$XDG_CONFIG_HOME/a2a-console/config.toml` (or the platform's equivalent).
pub fn default_path() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "a2a-console")
        .map(|d| d.config_dir().join("config.toml"))
}

/// Load the config; an explicitly named file that does not exist is an error, a missing default is not.
pub fn load(explicit: Option<&Path>) -> Result<(Config, Option<PathBuf>), ConfigError> {
    let Some(path) = locate(explicit) else {
        return Ok((Config::default(), None));
    };
    let text = std::fs::read_to_string(&path).map_err(|source| ConfigError::Read {
        path: path.clone(),
        source,
    })?;
    let mut config = parse(&text).map_err(|message| ConfigError::Parse {
        path: path.clone(),
        message,
    })?;
    validate(&config).map_err(|message| ConfigError::Invalid {
        path: path.clone(),
        message,
    })?;
    if let Some(dir) = path.parent() {
        config.resolve_paths(dir);
    }
    Ok((config, Some(path)))
}

/// Parse TOML text; the message names the key and line of the first problem.
pub fn parse(text: &str) -> Result<Config, String> {
    toml::from_str::<Config>(text).map_err(|e| {
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        let msg = e.message().trim().to_string();
        match line {
            Some(l) => format!("line {l}: {msg}"),
            None => msg,
        }
    })
}

/// Checks serde cannot express: allowed values and combinations.
pub fn validate(config: &Config) -> Result<(), String> {
    let mut names = std::collections::HashSet::new();
    for (i, a) in config.agents.iter().enumerate() {
        let label = a
            .name
            .clone()
            .unwrap_or_else(|| format!("agents[{i}] ({})", a.url));
        if url::Url::parse(&a.url).is_err() {
            return Err(format!("agent {label}: url {:?} is not a URL", a.url));
        }
        if let Some(b) = &a.binding {
            protocol::Binding::parse(b).map_err(|e| format!("agent {label}: {e}"))?;
        }
        if let Some(p) = &a.protocol {
            protocol::ProtocolChoice::parse(p).map_err(|e| format!("agent {label}: {e}"))?;
        }
        if let Some(name) = &a.name
            && !names.insert(name.clone())
        {
            return Err(format!("two agents are named {name:?}"));
        }
        if let Some(auth) = &a.auth {
            auth::check(auth).map_err(|e| format!("agent {label}: auth: {e}"))?;
        }
        for k in a.headers.keys() {
            if reqwest::header::HeaderName::from_bytes(k.as_bytes()).is_err() {
                return Err(format!("agent {label}: {k:?} is not a valid header name"));
            }
        }
        if let Some(tls) = &a.tls {
            check_tls(tls, &a.url).map_err(|e| format!("agent {label}: tls: {e}"))?;
        }
    }
    Ok(())
}

/// What `[agents.tls]` must say, before any file is read: a certificate goes with its key, `ca_only` with a
/// bundle, and none of it means anything over plain HTTP.
fn check_tls(tls: &TlsConfig, url: &str) -> Result<(), String> {
    let empty = |p: &Option<String>| p.as_deref().is_some_and(|p| p.trim().is_empty());
    for (name, p) in [
        ("client_cert", &tls.client_cert),
        ("client_key", &tls.client_key),
        ("ca_bundle", &tls.ca_bundle),
    ] {
        if empty(p) {
            return Err(format!("{name} is empty"));
        }
    }
    match (&tls.client_cert, &tls.client_key) {
        (Some(_), None) => {
            return Err("client_cert needs client_key (the certificate's private key)".into());
        }
        (None, Some(_)) => {
            return Err("client_key needs client_cert (the certificate it belongs to)".into());
        }
        (None, None) if tls.ca_bundle.is_none() => {
            return Err(
                "set client_cert and client_key (mutual TLS), ca_bundle (a private CA), or both"
                    .into(),
            );
        }
        _ => {}
    }
    if tls.ca_only && tls.ca_bundle.is_none() {
        return Err("ca_only = true needs ca_bundle (the only roots to trust)".into());
    }
    let https = url::Url::parse(url).is_ok_and(|u| u.scheme() == "https");
    if !https {
        return Err(if tls.client_cert.is_some() {
            format!("mTLS needs an https URL, not {url:?}")
        } else {
            format!("ca_bundle needs an https URL, not {url:?}")
        });
    }
    Ok(())
}

/// `~` and `~/…` are the home directory; a relative path is relative to `base` (the config file's directory),
/// so the file means the same whatever directory the console is started from.
pub fn resolve_path(raw: &str, base: &Path) -> PathBuf {
    let home = || directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf());
    let p = if raw == "~" {
        home().unwrap_or_else(|| PathBuf::from(raw))
    } else if let Some(rest) = raw.strip_prefix("~/") {
        home().map_or_else(|| PathBuf::from(raw), |h| h.join(rest))
    } else {
        PathBuf::from(raw)
    };
    if p.is_absolute() { p } else { base.join(p) }
}

impl Config {
    /// Make every file path in the config absolute (see [`resolve_path`]).
    pub fn resolve_paths(&mut self, base: &Path) {
        for a in &mut self.agents {
            if let Some(tls) = &mut a.tls {
                for p in [
                    &mut tls.client_cert,
                    &mut tls.client_key,
                    &mut tls.ca_bundle,
                ]
                .into_iter()
                .flatten()
                {
                    *p = resolve_path(p, base).to_string_lossy().into_owned();
                }
            }
            if let Some(file) = a.trust.as_mut().and_then(|t| t.jwks_file.as_mut()) {
                *file = resolve_path(&file.to_string_lossy(), base);
            }
        }
    }

    /// A configured agent by name (exact, then case-insensitive).
    pub fn agent(&self, name: &str) -> Option<&AgentConfig> {
        self.agents
            .iter()
            .find(|a| a.name.as_deref() == Some(name))
            .or_else(|| {
                self.agents.iter().find(|a| {
                    a.name
                        .as_deref()
                        .is_some_and(|n| n.eq_ignore_ascii_case(name))
                })
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn example_config_parses_and_validates() {
        let text = include_str!("../../config.example.toml");
        let c = parse(text).unwrap();
        validate(&c).unwrap();
        assert!(!c.agents.is_empty());
    }

    #[test]
    fn agent_trust_takes_files_inline_keys_pins_and_origins_and_nothing_else() {
        let text = "[[agents]]\nurl = \"https://a.example\"\n[agents.trust]\njwks_file = \"keys.json\"\n\
                    jwk = { kty = \"OKP\", crv = \"Ed25519\", x = \"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo\" }\n\
                    pinned = [\"sha256:NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs\"]\njku_origins = [\"https://keys.example\"]\n";
        let mut c = parse(text).unwrap();
        let t = c.agents[0].trust.clone().unwrap();
        assert_eq!(t.jwks_file.as_deref(), Some(Path::new("keys.json")));
        c.resolve_paths(Path::new("/cfg/dir"));
        let resolved = c.agents[0].trust.as_ref().unwrap().jwks_file.clone();
        assert_eq!(resolved.as_deref(), Some(Path::new("/cfg/dir/keys.json")));
        assert_eq!(t.jwk.unwrap()["crv"], "Ed25519");
        assert_eq!(t.pinned.len(), 1);
        let err = parse("[[agents]]\nurl = \"https://a.example\"\n[agents.trust]\npin = []\n")
            .unwrap_err();
        assert!(err.contains("pin"), "{err}");
    }

    #[test]
    fn unknown_key_names_key_and_line() {
        let text = "[[agents]]\nurl = \"http://127.0.0.1:1\"\nbindng = \"JSONRPC\"\n";
        let err = parse(text).unwrap_err();
        assert!(err.contains("line 3"), "{err}");
        assert!(err.contains("bindng"), "{err}");
    }

    #[test]
    fn unknown_auth_type_and_bad_binding_are_errors() {
        let text = "[[agents]]\nurl = \"http://127.0.0.1:1\"\n[agents.auth]\ntype = \"magic\"\n";
        let err = parse(text).unwrap_err();
        assert!(err.contains("line 4"), "{err}");
        let c = parse("[[agents]]\nurl = \"http://127.0.0.1:1\"\nbinding = \"SOAP\"\n").unwrap();
        assert!(validate(&c).unwrap_err().contains("SOAP"));
    }

    fn tls_error(url: &str, tls: &str) -> String {
        let c = parse(&format!(
            "[[agents]]\nurl = \"{url}\"\n[agents.tls]\n{tls}\n"
        ))
        .unwrap();
        validate(&c).unwrap_err()
    }

    #[test]
    fn tls_settings_are_checked_before_any_file_is_read() {
        let pair = "client_cert = \"c.pem\"\nclient_key = \"k.pem\"";
        assert!(tls_error("http://127.0.0.1:1", pair).contains("mTLS needs an https URL"));
        assert!(
            tls_error("https://127.0.0.1:1", "client_cert = \"c.pem\"")
                .contains("client_cert needs client_key")
        );
        assert!(
            tls_error("https://127.0.0.1:1", "client_key = \"k.pem\"")
                .contains("client_key needs client_cert")
        );
        assert!(tls_error("https://127.0.0.1:1", "ca_only = true").contains("set client_cert"));
        assert!(
            tls_error("https://127.0.0.1:1", &format!("{pair}\nca_only = true"))
                .contains("ca_only = true needs ca_bundle")
        );
        assert!(
            tls_error("https://127.0.0.1:1", "ca_bundle = \" \"").contains("ca_bundle is empty")
        );
        let err = parse("[[agents]]\nurl = \"https://x\"\n[agents.tls]\nclient_crt = \"c\"\n")
            .unwrap_err();
        assert!(
            err.contains("client_crt") && err.contains("line 4"),
            "{err}"
        );
        let ok = parse(&format!(
            "[[agents]]\nurl = \"https://127.0.0.1:1\"\n[agents.tls]\n{pair}\n"
        ))
        .unwrap();
        validate(&ok).unwrap();
    }

    #[test]
    fn tls_paths_are_relative_to_the_config_file_and_tilde_is_home() {
        let mut c = parse(
            "[[agents]]\nurl = \"https://127.0.0.1:1\"\n[agents.tls]\nclient_cert = \"certs/c.pem\"\nclient_key = \"~/k.pem\"\nca_bundle = \"/etc/ca.pem\"\n",
        )
        .unwrap();
        c.resolve_paths(Path::new("/cfg/dir"));
        let tls = c.agents[0].tls.clone().unwrap();
        assert_eq!(tls.client_cert.as_deref(), Some("/cfg/dir/certs/c.pem"));
        assert_eq!(tls.ca_bundle.as_deref(), Some("/etc/ca.pem"));
        let home = directories::BaseDirs::new()
            .unwrap()
            .home_dir()
            .join("k.pem");
        assert_eq!(tls.client_key.as_deref(), Some(home.to_str().unwrap()));
    }

    #[test]
    fn lookup_by_name_is_case_insensitive_fallback() {
        let c = parse("[[agents]]\nname = \"Parts\"\nurl = \"http://127.0.0.1:1\"\n").unwrap();
        assert!(c.agent("Parts").is_some());
        assert!(c.agent("parts").is_some());
        assert!(c.agent("other").is_none());
    }
}
