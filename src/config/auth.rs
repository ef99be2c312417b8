//! Static checks on an `[agents.auth]` table, before any secret is read: which settings go with which type,
//! where an API key may travel, and OAuth scope syntax. `remote::auth` resolves the credential these allow.

use super::{AuthConfig, AuthKind};

/// Where an API key travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyLocation {
    Header,
    Query,
    Cookie,
}

impl KeyLocation {
    pub fn parse(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "header" => Ok(Self::Header),
            "query" => Ok(Self::Query),
            "cookie" => Ok(Self::Cookie),
            other => Err(format!(
                "location {other:?} is not one of header, query, cookie"
            )),
        }
    }
}

/// Static checks on an `[agents.auth]` table (before any secret is read).
pub fn check(auth: &AuthConfig) -> Result<(), String> {
    let oauth = matches!(auth.kind, AuthKind::Oauth2 | AuthKind::OpenidConnect);
    match (&auth.token_env, &auth.token_cmd) {
        // A person signing in needs no secret (a public client, RFC 8252 §8.4).
        (None, None) if auth.signs_in_a_person() => {}
        (None, None) if oauth => {
            return Err(
                "flow = \"client_credentials\" needs the client secret in token_env or token_cmd"
                    .into(),
            );
        }
        (None, None) => {
            return Err(
                "set token_env or token_cmd (secrets never live in the config file)".into(),
            );
        }
        (Some(_), Some(_)) => return Err("set only one of token_env and token_cmd".into()),
        _ => {}
    }
    if let Some(l) = &auth.location {
        KeyLocation::parse(l)?;
        if auth.kind != AuthKind::ApiKey {
            return Err("`location` only applies to type = \"api_key\"".into());
        }
    }
    if !oauth
        && (auth.client_id.is_some()
            || auth.scopes.is_some()
            || auth.redirect_port.is_some()
            || auth.token_cache.is_some())
    {
        return Err(
            "`client_id`, `scopes`, `redirect_port` and `token_cache` only apply to type = \"oauth2\" or \
             \"openid_connect\""
                .into(),
        );
    }
    if let Some(f) = &auth.flow {
        if auth.kind != AuthKind::Oauth2 {
            return Err("`flow` only applies to type = \"oauth2\"".into());
        }
        if !matches!(
            f.as_str(),
            "authorization_code" | "device_code" | "client_credentials"
        ) {
            return Err(format!(
                "flow {f:?} is not one of authorization_code, device_code, client_credentials"
            ));
        }
    }
    if let Some(bad) = auth.scopes.iter().flatten().find(|s| !is_scope_token(s)) {
        return Err(format!("scope {bad:?} is not a valid OAuth scope"));
    }
    if auth.kind == AuthKind::Basic && auth.username.is_none() {
        return Err("type = \"basic\" needs `username`".into());
    }
    Ok(())
}

/// RFC 6749 §3.3: `scope-token = 1*( %x21 / %x23-5B / %x5D-7E )`.
pub fn is_scope_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| matches!(b, 0x21 | 0x23..=0x5B | 0x5D..=0x7E))
}
