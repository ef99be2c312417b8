//! The demo agent signs its public card (spec §8.4) with an ES256 key, so the console's signature check has a
//! signed card to show out of the box. The key is made on first start and kept in the console's data dir
//! (`demo-card-key.p8`, PKCS#8, 0600; `$A2A_CONSOLE_DEMO_KEY` names another file) by the programs a user
//! runs (tests get a key per process), so a user who pins it —
//! running `a2a-console demo-agent` and connecting by URL — still finds it pinned after a restart. If the file
//! cannot be read or written, a key for this process only is used and the log says so.
//!
//! The JWKS is served at `/.well-known/jwks.json` on the same origin, named by the signature's `jku`. The
//! console itself, when it runs the demo (`--demo`, `D`), trusts the key in-process: it made it.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use aws_lc_rs::rand::SystemRandom;
use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{Jwk, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, EncodingKey};
use serde_json::{Value, json};

use crate::remote::signature::{Form, Trust, canonical, jws};

/// Where the JWKS is served, relative to the base URL.
pub const JWKS_PATH: &str = "/.well-known/jwks.json";
/// The env var naming the key file (tests point it at a temporary directory).
pub const KEY_ENV: &str = "A2A_CONSOLE_DEMO_KEY";
/// What the card page says about the key when the console runs the demo itself.
pub const IN_PROCESS_SOURCE: &str = "the key of the embedded demo agent (made by this console)";

pub(crate) struct DemoKey {
    enc: EncodingKey,
    /// The public key, with `kid`, `alg` and `use`, as the JWKS serves it.
    pub(crate) jwk: Jwk,
}

static KEY: OnceLock<DemoKey> = OnceLock::new();
/// Set by the programs a user runs (`--demo`, the console, `demo-agent`): only they keep the key in the data
/// dir. Tests and other library users get a key for the process, so they never write into a user's home.
static PERSIST: AtomicBool = AtomicBool::new(false);

/// Keep the demo's key in the console's data dir (call before the demo starts).
pub fn keep_key_in_data_dir() {
    PERSIST.store(true, Ordering::SeqCst);
}

fn key_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(KEY_ENV) {
        return Some(PathBuf::from(p));
    }
    if !PERSIST.load(Ordering::SeqCst) {
        return None;
    }
    directories::ProjectDirs::from("", "", "a2a-console")
        .map(|d| d.data_dir().join("demo-card-key.p8"))
}

fn generate() -> anyhow::Result<Vec<u8>> {
    let doc = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new())
        .map_err(|_| anyhow::anyhow!("cannot generate an ES256 key"))?;
    Ok(doc.as_ref().to_vec())
}

/// The key from its file, made and stored on first use; a process-only key when the file cannot be used.
fn load_or_create() -> anyhow::Result<Vec<u8>> {
    let Some(path) = key_path() else {
        return generate();
    };
    match std::fs::read(&path) {
        Ok(der) if EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &der).is_ok() => {
            return Ok(der);
        }
        Ok(_) => {
            tracing::warn!(path = %path.display(), "demo card key unreadable; making a new one")
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => {
            tracing::warn!(path = %path.display(), %error, "cannot read the demo card key")
        }
    }
    let der = generate()?;
    let stored = path
        .parent()
        .map_or(Ok(()), crate::files::create_private_dir)
        .and_then(|()| crate::files::replace(&path, &der).map(|_| ()));
    if let Err(error) = stored {
        tracing::warn!(path = %path.display(), %error, "cannot keep the demo card key; this run's key only");
    }
    Ok(der)
}

fn make() -> anyhow::Result<DemoKey> {
    let der = load_or_create()?;
    let enc = EncodingKey::from_ec_der(&der);
    let mut jwk = Jwk::from_encoding_key(&enc, Algorithm::ES256)
        .map_err(|e| anyhow::anyhow!("cannot describe the demo card key: {e}"))?;
    let thumb = jws::thumbprint(&jwk).unwrap_or_default();
    jwk.common.key_id = Some(format!("demo-{}", thumb.get(..8).unwrap_or("key")));
    jwk.common.key_algorithm = Some(KeyAlgorithm::ES256);
    jwk.common.public_key_use = Some(PublicKeyUse::Signature);
    Ok(DemoKey { enc, jwk })
}

/// The demo's signing key, loaded once per process.
pub(crate) fn key() -> anyhow::Result<&'static DemoKey> {
    if let Some(k) = KEY.get() {
        return Ok(k);
    }
    let made = make()?;
    Ok(KEY.get_or_init(|| made))
}

/// The trust the console gives the demo it runs itself: its key, known in-process. Default (nothing trusted)
/// if the demo never made a key in this process.
pub fn in_process_trust() -> Trust {
    KEY.get()
        .map(|k| Trust::in_process(k.jwk.clone(), IN_PROCESS_SOURCE))
        .unwrap_or_default()
}

/// Add a signature to `card` (ProtoJSON, as served): JWS over the spec form, ES256, `kid`, `typ`, and the
/// `jku` on the demo's own origin.
pub(crate) fn sign(card: &mut Value, base_url: &str) -> anyhow::Result<()> {
    let key = key()?;
    let header = json!({"alg": "ES256", "typ": "JOSE", "kid": key.jwk.common.key_id,
        "jku": format!("{base_url}{JWKS_PATH}")});
    let protected = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&header)?);
    let payload = canonical::payload(card, Form::Spec).map_err(|e| anyhow::anyhow!(e))?;
    let input = format!("{protected}.{}", URL_SAFE_NO_PAD.encode(payload));
    let signature = jsonwebtoken::crypto::sign(input.as_bytes(), &key.enc, Algorithm::ES256)
        .map_err(|e| anyhow::anyhow!("cannot sign the demo card: {e}"))?;
    if let Some(map) = card.as_object_mut() {
        map.insert(
            "signatures".into(),
            json!([{"protected": protected, "signature": signature}]),
        );
    }
    Ok(())
}

/// The JWKS document served at [`JWKS_PATH`].
pub(crate) fn jwks() -> anyhow::Result<Vec<u8>> {
    Ok(serde_json::to_vec(&json!({"keys": [key()?.jwk]}))?)
}
