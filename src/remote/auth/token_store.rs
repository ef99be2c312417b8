//! Tokens a person signed in for: kept in memory for the life of the process, and — only when the
//! agent's `[agents.auth] token_cache = true` — in a 0600 JSON file in the data dir (written
//! atomically), so a restart needs no new sign-in. An entry is keyed by the agent's origin, the
//! issuer, the client id and the scopes, so a token is only ever handed back for the agent (and the
//! provider, and the permissions) it was issued for; the agent's `CredentialScope` then decides which
//! origins the bearer header may reach, exactly as for a configured token.
//!
//! Access tokens are refreshed (RFC 6749 §6) shortly before they expire: a minute before, or a tenth
//! of their lifetime for short-lived ones. A refresh that fails forgets the entry: the user is told to
//! sign in again rather than being handed a token the provider has already rejected. Sign-ins,
//! refresh failures and sign-outs are handed to the audit sink ([`record_sign_ins_with`]) with agent, issuer,
//! scopes and flow — never a token.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{LazyLock, Mutex};

use serde::{Deserialize, Serialize};
use url::Url;

use crate::remote::auth::Secret;
use crate::remote::auth::oauth::TokenResponse;

/// Environment variable naming the cache file (tests; a user with an unusual layout).
pub const CACHE_ENV: &str = "A2A_CONSOLE_TOKEN_CACHE";
const CACHE_FILE: &str = "tokens.json";
/// Refresh this long before expiry at most …
const REFRESH_MARGIN_SECS: u64 = 60;

/// Which sign-in an entry belongs to.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct TokenKey(String);

impl TokenKey {
    /// `agent` is the agent's origin, `issuer` the issuer (OIDC) or token endpoint (plain OAuth 2.0).
    pub fn new(agent: &str, issuer: &str, client_id: &str, scopes: &[String]) -> Self {
        let mut scopes = scopes.to_vec();
        scopes.sort();
        scopes.dedup();
        Self(format!("{agent} {issuer} {client_id} {}", scopes.join(",")))
    }

    fn agent(&self) -> &str {
        self.0.split(' ').next().unwrap_or_default()
    }
}

/// One signed-in token set. `Debug` shows no token ([`Secret`]).
#[derive(Clone, Debug)]
pub struct TokenSet {
    pub access: Secret,
    pub refresh: Option<Secret>,
    /// Unix seconds; `None` when the provider gave no lifetime.
    pub expires_at: Option<u64>,
    /// The lifetime the provider gave, for the refresh margin.
    pub lifetime: Option<u64>,
    /// Granted (when the provider said) or asked-for scopes.
    pub scopes: Vec<String>,
    pub issuer: String,
    pub token_url: String,
    pub client_id: String,
    /// Who signed in (sanitised), when OpenID Connect said.
    pub who: Option<String>,
    /// `authorization_code`, `openid_connect`, `device_code`.
    pub flow: String,
}

impl TokenSet {
    /// A token set from a token endpoint's answer, `now` in Unix seconds.
    #[allow(clippy::too_many_arguments)]
    pub fn from_response(
        token: &TokenResponse,
        now: u64,
        asked: &[String],
        issuer: &str,
        token_url: &Url,
        client_id: &str,
        who: Option<String>,
        flow: &str,
    ) -> Self {
        Self {
            access: token.access_token.clone(),
            refresh: token.refresh_token.clone(),
            expires_at: token.expires_in.map(|e| now.saturating_add(e)),
            lifetime: token.expires_in,
            scopes: granted(token, asked),
            issuer: issuer.to_string(),
            token_url: token_url.to_string(),
            client_id: client_id.to_string(),
            who,
            flow: flow.to_string(),
        }
    }

    /// Is it time to refresh (or, without a refresh token, to sign in again)?
    pub fn refresh_due(&self, now: u64) -> bool {
        let Some(at) = self.expires_at else {
            return false;
        };
        let margin = self.lifetime.map_or(REFRESH_MARGIN_SECS, |l| {
            (l / 10).clamp(1, REFRESH_MARGIN_SECS)
        });
        now.saturating_add(margin) >= at
    }

    /// Takes a refresh answer: a new access token, and a new refresh token when the provider rotates
    /// them (RFC 6749 §6: otherwise the old one stays valid).
    pub fn refreshed(&mut self, token: &TokenResponse, now: u64) {
        self.access = token.access_token.clone();
        if let Some(r) = &token.refresh_token {
            self.refresh = Some(r.clone());
        }
        self.expires_at = token.expires_in.map(|e| now.saturating_add(e));
        self.lifetime = token.expires_in;
        self.scopes = granted(token, &self.scopes);
    }

    /// Seconds until expiry, for "valid for …".
    pub fn expires_in(&self, now: u64) -> Option<u64> {
        self.expires_at.map(|e| e.saturating_sub(now))
    }
}

fn granted(token: &TokenResponse, asked: &[String]) -> Vec<String> {
    match token.scope.as_deref().filter(|s| !s.trim().is_empty()) {
        // The provider's words: only well-formed scope tokens (RFC 6749 §3.3) are kept, printed and audited.
        Some(s) => s
            .split_whitespace()
            .filter(|t| crate::config::auth::is_scope_token(t))
            .map(String::from)
            .collect(),
        None => asked.to_vec(),
    }
}

/// Unix seconds now.
pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

static MEMORY: LazyLock<Mutex<BTreeMap<TokenKey, TokenSet>>> =
    LazyLock::new(|| Mutex::new(BTreeMap::new()));

/// Keeps a token set (in memory; and in the cache file when `cache`).
pub fn remember(key: &TokenKey, set: &TokenSet, cache: bool) -> Result<(), String> {
    if let Ok(mut m) = MEMORY.lock() {
        m.insert(key.clone(), set.clone());
    }
    if cache {
        let mut file = read_cache()?;
        file.tokens.insert(key.0.clone(), Cached::from(set));
        write_cache(&file)?;
    }
    Ok(())
}

/// The token set for `key`: memory first, then the cache file when `cache`.
pub fn lookup(key: &TokenKey, cache: bool) -> Option<TokenSet> {
    if let Some(s) = MEMORY.lock().ok().and_then(|m| m.get(key).cloned()) {
        return Some(s);
    }
    if !cache {
        return None;
    }
    let set = read_cache().ok()?.tokens.get(&key.0).map(Cached::to_set)?;
    if let Ok(mut m) = MEMORY.lock() {
        m.insert(key.clone(), set.clone());
    }
    Some(set)
}

/// Forgets every token of the agent at `agent_origin` (memory and cache file); returns how many.
pub fn forget_agent(agent_origin: &str) -> Result<usize, String> {
    let mut n = 0;
    if let Ok(mut m) = MEMORY.lock() {
        let before = m.len();
        m.retain(|k, _| k.agent() != agent_origin);
        n += before - m.len();
    }
    if cache_path().is_some_and(|p| p.exists()) {
        let mut file = read_cache()?;
        let before = file.tokens.len();
        file.tokens
            .retain(|k, _| TokenKey(k.clone()).agent() != agent_origin);
        let dropped = before - file.tokens.len();
        if dropped > 0 {
            write_cache(&file)?;
        }
        n = n.max(dropped);
    }
    Ok(n)
}

/// Forgets one entry (a refresh the provider refused).
pub fn forget(key: &TokenKey, cache: bool) -> Result<(), String> {
    if let Ok(mut m) = MEMORY.lock() {
        m.remove(key);
    }
    if cache {
        let mut file = read_cache()?;
        if file.tokens.remove(&key.0).is_some() {
            write_cache(&file)?;
        }
    }
    Ok(())
}

/// Tests in one process point the cache file into a directory of theirs (setting the environment would need
/// `unsafe` once threads run). Sign-in audit rows go wherever the sink sends them ([`record_sign_ins_with`]).
static TEST_DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Keeps this process's token cache in `dir` (`tokens.json`).
#[cfg(any(test, feature = "testing"))]
pub fn use_dir_for_tests(dir: &std::path::Path) {
    let _ = TEST_DIR.set(dir.to_path_buf());
}

/// `$A2A_CONSOLE_TOKEN_CACHE`, else `tokens.json` in the data dir.
pub fn cache_path() -> Option<PathBuf> {
    if let Some(d) = TEST_DIR.get() {
        return Some(d.join(CACHE_FILE));
    }
    std::env::var_os(CACHE_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            directories::ProjectDirs::from("", "", "a2a-console")
                .map(|d| d.data_dir().join(CACHE_FILE))
        })
}

/// The file's shape. Tokens are plain strings here and nowhere else; the file is 0600.
#[derive(Default, Serialize, Deserialize)]
struct CacheFile {
    version: u32,
    tokens: BTreeMap<String, Cached>,
}

#[derive(Serialize, Deserialize)]
struct Cached {
    access_token: String,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    expires_at: Option<u64>,
    #[serde(default)]
    lifetime: Option<u64>,
    scopes: Vec<String>,
    issuer: String,
    token_url: String,
    client_id: String,
    #[serde(default)]
    who: Option<String>,
    flow: String,
}

impl From<&TokenSet> for Cached {
    fn from(s: &TokenSet) -> Self {
        Self {
            access_token: s.access.expose().to_string(),
            refresh_token: s.refresh.as_ref().map(|r| r.expose().to_string()),
            expires_at: s.expires_at,
            lifetime: s.lifetime,
            scopes: s.scopes.clone(),
            issuer: s.issuer.clone(),
            token_url: s.token_url.clone(),
            client_id: s.client_id.clone(),
            who: s.who.clone(),
            flow: s.flow.clone(),
        }
    }
}

impl Cached {
    fn to_set(&self) -> TokenSet {
        TokenSet {
            access: Secret::new(self.access_token.clone()),
            refresh: self.refresh_token.clone().map(Secret::new),
            expires_at: self.expires_at,
            lifetime: self.lifetime,
            scopes: self.scopes.clone(),
            issuer: self.issuer.clone(),
            token_url: self.token_url.clone(),
            client_id: self.client_id.clone(),
            who: self.who.clone(),
            flow: self.flow.clone(),
        }
    }
}

fn read_cache() -> Result<CacheFile, String> {
    let path = cache_path().ok_or("no data directory for the token cache")?;
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
            format!(
                "token cache {} is unreadable ({e}); delete it to sign in afresh",
                path.display()
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(CacheFile {
            version: 1,
            ..CacheFile::default()
        }),
        Err(e) => Err(format!("cannot read token cache {}: {e}", path.display())),
    }
}

fn write_cache(file: &CacheFile) -> Result<(), String> {
    let path = cache_path().ok_or("no data directory for the token cache")?;
    let bytes = serde_json::to_vec_pretty(file).map_err(|e| format!("token cache: {e}"))?;
    let written = crate::files::replace(&path, &bytes)
        .map_err(|e| format!("cannot write token cache {}: {e}", path.display()))?;
    // `replace` keeps an existing file's mode; a token file is the user's alone, whatever it was.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&written, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| format!("cannot restrict token cache {}: {e}", written.display()))?;
    }
    #[cfg(not(unix))]
    let _ = written;
    Ok(())
}

/// A sign-in event for the audit log (`sign-in`, `sign-in failed`, `sign-in refresh failed`, `sign-out`):
/// agent, issuer, scopes, flow and who in `detail` — never a token.
#[derive(Clone, Debug)]
pub struct SignInEvent {
    pub agent: String,
    pub what: String,
    pub detail: serde_json::Value,
    pub at: chrono::DateTime<chrono::Utc>,
}

type Sink = Box<dyn Fn(SignInEvent) + Send + Sync>;

/// Where sign-in events go. `remote/` stores nothing itself: the console hands them to its store's writer
/// thread (through its `Msg` channel, as an `Effect::Record`), the CLI writes them with its own store handle.
static SINK: std::sync::RwLock<Option<Sink>> = std::sync::RwLock::new(None);

/// Send this process's sign-in events to `sink` (replacing the one before).
pub fn record_sign_ins_with(sink: impl Fn(SignInEvent) + Send + Sync + 'static) {
    if let Ok(mut s) = SINK.write() {
        *s = Some(Box::new(sink));
    }
}

/// Hands a sign-in event to the sink. Without one (a library caller that set none) it is only logged:
/// a missing audit log is never fatal to a sign-in.
pub fn audit(agent: &str, what: &str, detail: serde_json::Value) {
    let event = SignInEvent {
        agent: agent.to_string(),
        what: what.to_string(),
        detail,
        at: chrono::Utc::now(),
    };
    match SINK.read().as_deref() {
        Ok(Some(sink)) => sink(event),
        _ => tracing::debug!(agent, what, "no audit sink for this sign-in event"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(expires_in: Option<u64>, refresh: Option<&str>) -> TokenResponse {
        TokenResponse {
            access_token: Secret::new("at-1"),
            token_type: "Bearer".into(),
            expires_in,
            refresh_token: refresh.map(Secret::new),
            scope: None,
            id_token: None,
        }
    }

    fn set(expires_in: Option<u64>) -> TokenSet {
        TokenSet::from_response(
            &response(expires_in, Some("rt-1")),
            1000,
            &["agent:use".into()],
            "http://127.0.0.1:1",
            &Url::parse("http://127.0.0.1:1/token").unwrap(),
            "a2a-console",
            None,
            "authorization_code",
        )
    }

    #[test]
    fn refresh_is_due_a_minute_before_expiry_or_a_tenth_of_a_short_lifetime() {
        let hour = set(Some(3600));
        assert!(!hour.refresh_due(1000 + 3600 - 61));
        assert!(hour.refresh_due(1000 + 3600 - 60));
        let short = set(Some(30));
        assert!(!short.refresh_due(1000 + 26));
        assert!(short.refresh_due(1000 + 27));
        assert!(!set(None).refresh_due(u64::MAX), "no lifetime: never due");
    }

    #[test]
    fn a_refresh_keeps_the_refresh_token_unless_rotated() {
        let mut s = set(Some(60));
        let mut r = response(Some(120), None);
        r.access_token = Secret::new("at-2");
        s.refreshed(&r, 2000);
        assert_eq!(s.access.expose(), "at-2");
        assert_eq!(s.refresh.as_ref().unwrap().expose(), "rt-1");
        assert_eq!(s.expires_at, Some(2120));
        r.refresh_token = Some(Secret::new("rt-2"));
        s.refreshed(&r, 2000);
        assert_eq!(s.refresh.as_ref().unwrap().expose(), "rt-2");
        assert!(!format!("{s:?}").contains("rt-2"));
    }

    #[test]
    fn keys_separate_agents_issuers_clients_and_scopes() {
        let scopes = vec!["b".to_string(), "a".to_string()];
        let k = TokenKey::new("http://127.0.0.1:1", "iss", "c", &scopes);
        assert_eq!(
            k,
            TokenKey::new("http://127.0.0.1:1", "iss", "c", &["a".into(), "b".into()])
        );
        assert_ne!(k, TokenKey::new("http://127.0.0.1:2", "iss", "c", &scopes));
        assert_ne!(k, TokenKey::new("http://127.0.0.1:1", "iss2", "c", &scopes));
        assert_ne!(k, TokenKey::new("http://127.0.0.1:1", "iss", "d", &scopes));
        assert_ne!(
            k,
            TokenKey::new("http://127.0.0.1:1", "iss", "c", &["a".into()])
        );
        assert_eq!(k.agent(), "http://127.0.0.1:1");
    }
}
