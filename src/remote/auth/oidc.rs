//! OpenID Connect on top of the code flow: provider discovery (OIDC Discovery 1.0, and the same
//! document shape for RFC 8414 OAuth metadata) and the ID token's verification (OIDC Core §3.1.3.7).
//!
//! A discovery document is remote data that names where the user's code goes, so it is held to the
//! same rules as a card's endpoints: fetched without redirects, size-capped, every endpoint https
//! (or loopback http), and its `issuer` must be exactly the issuer its URL was derived from
//! (Discovery §4.3), so a document served on one host cannot claim to speak for another. The ID token
//! is checked with the provider's JWKS for an allowlisted asymmetric algorithm only (never `none` or
//! an HMAC keyed with something public), then `iss`, `aud` (and `azp`), `exp`, `iat` and `nonce`.

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};
use url::Url;

use crate::remote::auth::Secret;
use crate::remote::auth::oauth::{self, OAuthError};
use crate::remote::error::one_line;

/// Discovery documents and key sets are a few KiB; anything past this is not one.
const MAX_DOCUMENT_BYTES: usize = 256 * 1024;
/// Clock difference tolerated on `exp` / `iat`.
const LEEWAY_SECS: u64 = 60;
/// An ID token issued further in the past than this is stale (a replayed response).
const MAX_ID_TOKEN_AGE_SECS: u64 = 60 * 60;
/// Signature algorithms accepted for ID tokens: asymmetric only.
const ALLOWED_ALGS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// Which well-known document a URL points at; it decides how the issuer is derived from the URL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MetadataKind {
    /// `ISSUER/.well-known/openid-configuration` (OIDC Discovery §4).
    OpenId,
    /// `ORIGIN/.well-known/oauth-authorization-server/PATH` (RFC 8414 §3), or an OpenID-style URL.
    OAuth,
}

/// What discovery found. Endpoint URLs passed the https-or-loopback checks; strings are sanitised.
#[derive(Clone, Debug)]
pub struct ProviderMetadata {
    pub issuer: String,
    pub authorization_endpoint: Url,
    pub token_endpoint: Url,
    pub jwks_uri: Option<Url>,
    pub scopes_supported: Vec<String>,
    pub code_challenge_methods_supported: Vec<String>,
}

impl ProviderMetadata {
    /// A provider that lists its PKCE methods but not S256 would fail later with a vaguer error.
    pub fn require_s256(&self) -> Result<(), OAuthError> {
        if self.code_challenge_methods_supported.is_empty()
            || self
                .code_challenge_methods_supported
                .iter()
                .any(|m| m == "S256")
        {
            Ok(())
        } else {
            Err(OAuthError::InvalidResponse {
                what: "provider metadata",
                reason: "the provider does not support PKCE with S256".into(),
            })
        }
    }
}

/// Who signed in, from a verified ID token; every field sanitised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Identity {
    pub subject: String,
    pub email: Option<String>,
    pub name: Option<String>,
}

impl std::fmt::Display for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.name, &self.email) {
            (Some(n), Some(e)) => write!(f, "{n} <{e}> (subject {})", self.subject),
            (Some(n), None) => write!(f, "{n} (subject {})", self.subject),
            (None, Some(e)) => write!(f, "{e} (subject {})", self.subject),
            (None, None) => write!(f, "subject {}", self.subject),
        }
    }
}

/// The issuer an OpenID discovery URL speaks for (`None` when it is not a well-known URL).
pub fn issuer_of_discovery_url(raw: &str) -> Option<String> {
    expected_issuer(&Url::parse(raw).ok()?, MetadataKind::OpenId)
}

/// The issuer a well-known URL speaks for.
fn expected_issuer(url: &Url, kind: MetadataKind) -> Option<String> {
    let path = url.path();
    if let Some(prefix) = path.strip_suffix("/.well-known/openid-configuration") {
        return Some(format!("{}{prefix}", url.origin().ascii_serialization()));
    }
    if kind == MetadataKind::OAuth
        && let Some(rest) = path.strip_prefix("/.well-known/oauth-authorization-server")
    {
        return Some(format!("{}{rest}", url.origin().ascii_serialization()));
    }
    None
}

/// Fetches and checks a discovery / metadata document.
pub async fn discover(
    http: &reqwest::Client,
    url: &str,
    kind: MetadataKind,
) -> Result<ProviderMetadata, OAuthError> {
    const WHAT: &str = "provider metadata";
    let url = oauth::endpoint_url(url, "discovery URL")?;
    let expected = expected_issuer(&url, kind).ok_or_else(|| OAuthError::InvalidUrl {
        what: "discovery URL",
        url: one_line(url.as_str()),
        reason: "it does not end in /.well-known/openid-configuration (or RFC 8414's \
                 /.well-known/oauth-authorization-server), so its issuer cannot be checked"
            .into(),
    })?;
    let doc = get_json(http, &url, WHAT).await?;
    let invalid = |reason: String| OAuthError::InvalidResponse { what: WHAT, reason };
    let issuer = oauth::answer::required_str(&doc, "issuer").map_err(invalid)?;
    // Discovery §4.3: exactly equal; a trailing-slash difference is a different issuer, but the
    // common `https://host` vs `https://host/` form is the same origin and is accepted.
    if issuer.trim_end_matches('/') != expected.trim_end_matches('/') {
        return Err(invalid(format!(
            "it names issuer {}, but was fetched for issuer {expected}; refusing a document that \
             speaks for another provider",
            one_line(&issuer)
        )));
    }
    let endpoint = |key: &str, what: &'static str| -> Result<Url, OAuthError> {
        let raw = oauth::answer::required_str(&doc, key).map_err(invalid)?;
        oauth::endpoint_url(&raw, what)
    };
    let authorization_endpoint = endpoint("authorization_endpoint", "authorization endpoint")?;
    let token_endpoint = endpoint("token_endpoint", "token endpoint")?;
    let jwks_uri = match oauth::answer::optional_str(&doc, "jwks_uri") {
        Some(raw) => Some(oauth::endpoint_url(&raw, "JWKS URL")?),
        None if kind == MetadataKind::OpenId => {
            return Err(invalid(
                "no jwks_uri, so no ID token could be checked".into(),
            ));
        }
        None => None,
    };
    Ok(ProviderMetadata {
        issuer: one_line(&issuer),
        authorization_endpoint,
        token_endpoint,
        jwks_uri,
        scopes_supported: string_list(&doc, "scopes_supported"),
        code_challenge_methods_supported: string_list(&doc, "code_challenge_methods_supported"),
    })
}

fn string_list(doc: &Map<String, Value>, key: &str) -> Vec<String> {
    doc.get(key)
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(one_line).collect())
        .unwrap_or_default()
}

/// GET a JSON object: no redirects (the client must be [`oauth::http_client`]), capped.
async fn get_json(
    http: &reqwest::Client,
    url: &Url,
    what: &'static str,
) -> Result<Map<String, Value>, OAuthError> {
    // The client's own timeout bounds the whole request (`oauth::http_client_within`).
    let network = |e: reqwest::Error| oauth::network_failure(what, url, e);
    let mut response = http
        .get(url.clone())
        .header(reqwest::header::ACCEPT, "application/json")
        .send()
        .await
        .map_err(network)?;
    let status = response.status();
    if !status.is_success() || response.url() != url {
        return Err(OAuthError::Http {
            what,
            status: status.as_u16(),
            body: if status.is_redirection() {
                "a redirect, which is not followed for provider documents".into()
            } else {
                String::new()
            },
        });
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(network)? {
        if bytes.len() + chunk.len() > MAX_DOCUMENT_BYTES {
            return Err(OAuthError::InvalidResponse {
                what,
                reason: format!("over {} KiB", MAX_DOCUMENT_BYTES / 1024),
            });
        }
        bytes.extend_from_slice(&chunk);
    }
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(o)) => Ok(o),
        _ => Err(OAuthError::InvalidResponse {
            what,
            reason: "not a JSON object".into(),
        }),
    }
}

/// OIDC Core §3.1.3.7: the ID token's signature (provider's JWKS, allowlisted algorithm), `iss`,
/// `aud` (contains `client_id`; with several audiences `azp` must be `client_id`), `exp`, `iat`
/// (not in the future, not stale) and `nonce`.
pub async fn verify_id_token(
    http: &reqwest::Client,
    meta: &ProviderMetadata,
    id_token: &Secret,
    client_id: &str,
    nonce: Option<&str>,
) -> Result<Identity, OAuthError> {
    let refuse = |reason: String| OAuthError::IdToken { reason };
    let header = jsonwebtoken::decode_header(id_token.expose()).map_err(|e| {
        refuse(format!(
            "unreadable header ({})",
            crate::remote::error::one_line(&e.to_string())
        ))
    })?;
    if !ALLOWED_ALGS.contains(&header.alg) {
        return Err(refuse(format!(
            "algorithm {:?} is not allowed (asymmetric signatures only)",
            header.alg
        )));
    }
    let jwks_uri = meta
        .jwks_uri
        .as_ref()
        .ok_or_else(|| refuse("the provider publishes no keys (jwks_uri)".into()))?;
    let doc = get_json(http, jwks_uri, "provider key set (JWKS)").await?;
    let set: JwkSet = serde_json::from_value(Value::Object(doc)).map_err(|e| {
        refuse(format!(
            "the provider's key set is unreadable ({})",
            crate::remote::error::one_line(&e.to_string())
        ))
    })?;
    let jwk = match &header.kid {
        Some(kid) => set.find(kid),
        None if set.keys.len() == 1 => set.keys.first(),
        None => None,
    }
    .ok_or_else(|| {
        refuse(format!(
            "no key {} in the provider's key set",
            header.kid.as_deref().map(one_line).unwrap_or_default()
        ))
    })?;
    let key = DecodingKey::from_jwk(jwk).map_err(|e| {
        refuse(format!(
            "unusable key ({})",
            crate::remote::error::one_line(&e.to_string())
        ))
    })?;
    let mut validation = Validation::new(header.alg);
    validation.set_issuer(&[meta.issuer.as_str()]);
    validation.set_audience(&[client_id]);
    validation.set_required_spec_claims(&["exp", "iat", "iss", "aud", "sub"]);
    validation.leeway = LEEWAY_SECS;
    let data = jsonwebtoken::decode::<Map<String, Value>>(id_token.expose(), &key, &validation)
        .map_err(|e| refuse(describe_jwt_error(&e)))?;
    let claims = data.claims;
    if let Some(Value::Array(aud)) = claims.get("aud")
        && aud.len() > 1
        && claims.get("azp").and_then(Value::as_str) != Some(client_id)
    {
        return Err(refuse(
            "several audiences and no azp naming this client".into(),
        ));
    }
    let now = jsonwebtoken::get_current_timestamp();
    let iat = claims.get("iat").and_then(Value::as_u64).unwrap_or(0);
    if iat > now + LEEWAY_SECS {
        return Err(refuse("issued in the future (iat)".into()));
    }
    if iat + MAX_ID_TOKEN_AGE_SECS < now {
        return Err(refuse(
            "issued over an hour ago (iat); a replayed answer?".into(),
        ));
    }
    if let Some(expected) = nonce
        && claims.get("nonce").and_then(Value::as_str) != Some(expected)
    {
        return Err(refuse(
            "its nonce is not this sign-in's (a replayed or injected token)".into(),
        ));
    }
    let text = |k: &str| claims.get(k).and_then(Value::as_str).map(one_line);
    Ok(Identity {
        subject: text("sub").unwrap_or_default(),
        email: text("email"),
        name: text("name"),
    })
}

/// The jsonwebtoken error in words a user can act on (never the token).
fn describe_jwt_error(e: &jsonwebtoken::errors::Error) -> String {
    use jsonwebtoken::errors::ErrorKind;
    match e.kind() {
        ErrorKind::InvalidSignature => "bad signature".into(),
        ErrorKind::InvalidIssuer => "wrong issuer (iss)".into(),
        ErrorKind::InvalidAudience => "not issued for this client (aud)".into(),
        ErrorKind::ExpiredSignature => "expired (exp)".into(),
        ErrorKind::MissingRequiredClaim(c) => format!("no {c} claim"),
        ErrorKind::InvalidAlgorithm => "algorithm does not match the key".into(),
        _ => one_line(&e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_issuer_comes_from_the_well_known_url() {
        assert_eq!(
            issuer_of_discovery_url("https://id.example.com/.well-known/openid-configuration")
                .as_deref(),
            Some("https://id.example.com")
        );
        assert_eq!(
            issuer_of_discovery_url(
                "https://id.example.com/tenant/.well-known/openid-configuration"
            )
            .as_deref(),
            Some("https://id.example.com/tenant")
        );
        let rfc8414 =
            Url::parse("https://as.example.com/.well-known/oauth-authorization-server/t1").unwrap();
        assert_eq!(
            expected_issuer(&rfc8414, MetadataKind::OAuth).as_deref(),
            Some("https://as.example.com/t1")
        );
        assert_eq!(expected_issuer(&rfc8414, MetadataKind::OpenId), None);
        assert_eq!(
            issuer_of_discovery_url("https://id.example.com/config.json"),
            None
        );
    }

    #[tokio::test]
    async fn a_discovery_url_that_is_not_well_known_or_not_encrypted_is_refused_before_any_request()
    {
        let http = oauth::http_client().unwrap();
        let e = discover(
            &http,
            "https://id.example.com/config.json",
            MetadataKind::OpenId,
        )
        .await
        .unwrap_err();
        assert!(e.to_string().contains("cannot be checked"), "{e}");
        let e = discover(
            &http,
            "http://id.example.com/.well-known/openid-configuration",
            MetadataKind::OpenId,
        )
        .await
        .unwrap_err();
        assert!(matches!(e, OAuthError::InsecureEndpoint { .. }), "{e}");
    }
}
