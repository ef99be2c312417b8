//! One JWS signature entry of a card (RFC 7515 flattened form, detached payload): its protected header read
//! and judged (algorithm allowlist, `crit`, `b64`), whether a key may be used with that algorithm, and the
//! check itself through `jsonwebtoken::crypto::verify`. Pure: no I/O, so every hostile header is unit-testable.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{
    AlgorithmParameters, EllipticCurve, Jwk, KeyOperations, PublicKeyUse, ThumbprintHash,
};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::{Map, Value};

/// A protected header bigger than this is not a header.
const MAX_HEADER_BYTES: usize = 8 * 1024;

/// Header parameters RFC 7515 defines itself: listing one in `crit` is an error (§4.1.11).
const REGISTERED: [&str; 11] = [
    "alg", "jku", "jwk", "kid", "x5u", "x5c", "x5t", "x5t#S256", "typ", "cty", "crit",
];

/// What the protected header of one signature says, once it passed every rule.
#[derive(Clone, Debug)]
pub struct Header {
    pub alg: Algorithm,
    /// The `alg` as written ("ES256").
    pub alg_name: String,
    pub kid: Option<String>,
    /// The JWKS URL the signer points at, as written; judged by `keys::jku_allowed` before any fetch.
    pub jku: Option<String>,
    /// A key embedded in the header: self-asserted, so it can only ever match a pin or a configured key.
    pub jwk: Option<Jwk>,
}

/// The algorithm named `alg` if the allowlist takes it, else why not. Asymmetric only: an HMAC "signature"
/// proves nothing about a publisher, and accepting HS* would let anyone sign with the public key as secret.
pub fn allowed_algorithm(alg: &str) -> Result<Algorithm, String> {
    Ok(match alg {
        "ES256" => Algorithm::ES256,
        "ES384" => Algorithm::ES384,
        "EdDSA" => Algorithm::EdDSA,
        "RS256" => Algorithm::RS256,
        "RS384" => Algorithm::RS384,
        "RS512" => Algorithm::RS512,
        "PS256" => Algorithm::PS256,
        "PS384" => Algorithm::PS384,
        "PS512" => Algorithm::PS512,
        "none" => return Err("algorithm \"none\" is refused (an unsigned signature)".into()),
        a if a.starts_with("HS") => {
            return Err(format!(
                "algorithm {} is refused (a shared-secret MAC, not a publisher's signature)",
                quoted(a)
            ));
        }
        a => return Err(format!("algorithm {} is not allowed", quoted(a))),
    })
}

/// Parse and judge the protected header (base64url JSON) and the optional unprotected `header` object.
pub fn parse_header(protected: &str, unprotected: Option<&Value>) -> Result<Header, String> {
    if protected.len() > MAX_HEADER_BYTES {
        return Err(format!("protected header over {MAX_HEADER_BYTES} bytes"));
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(protected)
        .map_err(|_| "protected header is not base64url".to_string())?;
    let map: Map<String, Value> = match serde_json::from_slice(&bytes) {
        Ok(Value::Object(m)) => m,
        Ok(_) => return Err("protected header is not a JSON object".into()),
        Err(_) => return Err("protected header is not JSON".into()),
    };
    let unprotected = match unprotected {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m.clone(),
        Some(_) => return Err("unprotected header is not a JSON object".into()),
    };
    // RFC 7515 §7.2.1: the two headers must not share a name, or a verifier could be told two things.
    if let Some(k) = unprotected.keys().find(|k| map.contains_key(*k)) {
        return Err(format!(
            "header parameter {} is both protected and unprotected",
            quoted(k)
        ));
    }
    if unprotected.contains_key("crit") || unprotected.contains_key("alg") {
        return Err("`alg` and `crit` must be in the protected header".into());
    }
    let alg_name = match map.get("alg") {
        Some(Value::String(a)) => a.clone(),
        Some(_) => return Err("`alg` is not a string".into()),
        None => return Err("protected header has no `alg`".into()),
    };
    let alg = allowed_algorithm(&alg_name)?;
    check_crit(&map)?;
    // RFC 7797: `b64: false` signs the payload unencoded; no A2A signer does, and we do not support it.
    match map.get("b64") {
        None | Some(Value::Bool(true)) => {}
        Some(Value::Bool(false)) => {
            return Err("unencoded payload (`b64: false`) is not supported".into());
        }
        Some(_) => return Err("`b64` is not a boolean".into()),
    }
    let text = |name: &str| -> Result<Option<String>, String> {
        match map.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(format!("`{name}` is not a string")),
        }
    };
    let jwk = match map.get("jwk") {
        None => None,
        Some(v) => Some(
            serde_json::from_value::<Jwk>(v.clone())
                .map_err(|_| "the header's `jwk` is not a key we can read".to_string())?,
        ),
    };
    Ok(Header {
        alg,
        alg_name,
        kid: text("kid")?,
        jku: text("jku")?,
        jwk,
    })
}

/// RFC 7515 §4.1.11: every name in `crit` must be understood, present, and not one of the registered ones.
/// The only extension we understand is `b64` (RFC 7797), and then only as `true`.
fn check_crit(map: &Map<String, Value>) -> Result<(), String> {
    let Some(crit) = map.get("crit") else {
        return Ok(());
    };
    let Value::Array(names) = crit else {
        return Err("`crit` is not a list".into());
    };
    if names.is_empty() {
        return Err("`crit` is an empty list".into());
    }
    for n in names {
        let Value::String(n) = n else {
            return Err("`crit` holds a non-string".into());
        };
        if REGISTERED.contains(&n.as_str()) {
            return Err(format!(
                "`crit` lists the registered parameter {}",
                quoted(n)
            ));
        }
        if n != "b64" {
            return Err(format!(
                "critical header parameter {} is not understood",
                quoted(n)
            ));
        }
        if !map.contains_key(n) {
            return Err(format!(
                "critical header parameter {} is missing",
                quoted(n)
            ));
        }
    }
    Ok(())
}

/// Whether `key` may verify `alg`: the right key type and curve, and its own `alg`, `use` and `key_ops`
/// (when it has them) agreeing. An RSA key cannot check ES256, a P-384 key cannot check ES256, an
/// encryption key checks nothing.
pub fn key_fits(key: &Jwk, header: &Header) -> Result<(), String> {
    if let Some(ka) = &key.common.key_algorithm {
        let name = serde_json::to_value(ka)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        if name != header.alg_name {
            return Err(format!(
                "the key is for {} but the signature says {}",
                quoted(&name),
                quoted(&header.alg_name)
            ));
        }
    }
    match &key.common.public_key_use {
        None | Some(PublicKeyUse::Signature) => {}
        Some(_) => return Err("the key is not a signing key (`use`)".into()),
    }
    if let Some(ops) = &key.common.key_operations
        && !ops.contains(&KeyOperations::Verify)
    {
        return Err("the key's `key_ops` do not include verify".into());
    }
    let fits = match (&key.algorithm, header.alg) {
        (AlgorithmParameters::EllipticCurve(p), Algorithm::ES256) => p.curve == EllipticCurve::P256,
        (AlgorithmParameters::EllipticCurve(p), Algorithm::ES384) => p.curve == EllipticCurve::P384,
        (AlgorithmParameters::OctetKeyPair(p), Algorithm::EdDSA) => {
            p.curve == EllipticCurve::Ed25519
        }
        (
            AlgorithmParameters::RSA(_),
            Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::PS384
            | Algorithm::PS512,
        ) => true,
        _ => false,
    };
    if fits {
        Ok(())
    } else {
        Err(format!(
            "a {} key cannot verify {}",
            key_kind(key),
            header.alg_name
        ))
    }
}

/// Check `signature` (base64url) over `protected "." b64url(payload)` with `key`. `Ok(false)`: a well-formed
/// signature that does not match; `Err`: it could not even be checked (bad key, bad encoding).
pub fn verify(
    protected: &str,
    signature: &str,
    payload: &[u8],
    key: &Jwk,
    header: &Header,
) -> Result<bool, String> {
    key_fits(key, header)?;
    let decoding = DecodingKey::from_jwk(key).map_err(|e| format!("unusable key: {e}"))?;
    let message = format!("{protected}.{}", URL_SAFE_NO_PAD.encode(payload));
    jsonwebtoken::crypto::verify(signature, message.as_bytes(), &decoding, header.alg)
        .map_err(|e| format!("signature could not be checked: {e}"))
}

/// RFC 7638 SHA-256 thumbprint, base64url: what a pin is.
pub fn thumbprint(key: &Jwk) -> Option<String> {
    key.thumbprint(ThumbprintHash::SHA256).ok()
}

fn key_kind(key: &Jwk) -> &'static str {
    match &key.algorithm {
        AlgorithmParameters::EllipticCurve(p) => match p.curve {
            EllipticCurve::P256 => "P-256",
            EllipticCurve::P384 => "P-384",
            EllipticCurve::P521 => "P-521",
            _ => "EC",
        },
        AlgorithmParameters::RSA(_) => "RSA",
        AlgorithmParameters::OctetKey(_) => "symmetric",
        AlgorithmParameters::OctetKeyPair(_) => "Ed25519",
        _ => "unknown",
    }
}

/// A remote string in a reason: sanitised and bounded, quoted.
fn quoted(s: &str) -> String {
    let (mut t, _) = crate::trust::sanitize::sanitize_line(s);
    if t.len() > 40 {
        let cut = crate::trust::sanitize::floor_char_boundary(&t, 40);
        t.truncate(cut);
        t.push('…');
    }
    format!("\"{t}\"")
}

#[cfg(test)]
mod tests;
