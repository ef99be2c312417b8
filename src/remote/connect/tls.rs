//! Per-agent TLS: the client certificate an agent asks for (mutual TLS, the card's `mtlsSecurityScheme`) and
//! the extra roots of a private CA, read from the PEM files `[agents.tls]` names, and the HTTP clients that
//! carry them. An agent with such settings gets clients of its own (one for its calls, one for its card), so
//! its certificate is presented to nobody else: the shared clients never hold one.
//!
//! The files are read when the agent is connected. Every error names the file and what is wrong with it; key
//! material never appears in one (nor anywhere else: the key goes from the file to rustls and nowhere else).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rustls_pki_types::pem::{PemObject, SectionKind};
use rustls_pki_types::{CertificateDer, PrivateKeyDer};

use crate::config::TlsConfig;
use crate::remote::card::CardFetcher;
use crate::remote::error::RemoteError;

/// Largest PEM file we read: certificates and keys are a few KB; a CA bundle (the system's is ~200 KB) a
/// few hundred.
const MAX_PEM_BYTES: u64 = 4 * 1024 * 1024;

/// How an encrypted PKCS#8 key's PEM block starts.
const ENCRYPTED_KEY: &[u8] = b"-----BEGIN ENCRYPTED PRIVATE KEY-----";

/// An agent's TLS settings, paths already resolved (see `config::resolve_path`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct TlsSettings {
    /// The client certificate and its key, when the agent wants mutual TLS.
    pub client: Option<ClientFiles>,
    /// Extra roots for this agent.
    pub ca_bundle: Option<PathBuf>,
    /// Trust only `ca_bundle`, not the system's roots.
    pub ca_only: bool,
}

/// Where the client certificate and its key are.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ClientFiles {
    pub cert: PathBuf,
    pub key: PathBuf,
}

impl TlsSettings {
    /// From the config (validated: a certificate always comes with its key).
    pub fn from_config(c: &TlsConfig) -> Self {
        Self {
            client: match (&c.client_cert, &c.client_key) {
                (Some(cert), Some(key)) => Some(ClientFiles {
                    cert: PathBuf::from(cert),
                    key: PathBuf::from(key),
                }),
                _ => None,
            },
            ca_bundle: c.ca_bundle.as_deref().map(PathBuf::from),
            ca_only: c.ca_only,
        }
    }

    /// The certificate's file name, for the agent list and the card page ("client.pem").
    pub fn cert_name(&self) -> Option<String> {
        self.client.as_ref().map(|c| file_name(&c.cert))
    }
}

/// The HTTP clients of one agent with TLS settings: built once per agent (per CLI command, per console
/// connection), never per request.
#[derive(Clone)]
pub struct AgentHttp {
    /// For the agent's calls (every binding over HTTP, push configs, the extended card).
    pub http: reqwest::Client,
    /// For its card (redirects judged hop by hop: see `card::CardFetcher`).
    pub fetcher: Arc<CardFetcher>,
    /// What the user should know but that does not stop the agent (a key file others can read).
    pub warnings: Vec<String>,
}

/// The PEM contents, checked: at least one certificate, exactly one key.
struct Loaded {
    identity: Option<reqwest::Identity>,
    roots: Vec<reqwest::Certificate>,
    warnings: Vec<String>,
}

/// Read the files and build the agent's two clients.
pub fn agent_http(
    settings: &TlsSettings,
    connect_timeout: Duration,
) -> Result<AgentHttp, RemoteError> {
    let loaded = load(settings)?;
    let http = crate::remote::http::client_builder(connect_timeout);
    let http = apply(http, &loaded, settings)
        .build()
        .map_err(|e| build_error(&e, settings))?;
    let card = crate::remote::http::client_builder(connect_timeout);
    let card = apply(card, &loaded, settings)
        .build()
        .map_err(|e| build_error(&e, settings))?;
    Ok(AgentHttp {
        http,
        fetcher: Arc::new(CardFetcher::with_client(card, connect_timeout)),
        warnings: loaded.warnings,
    })
}

fn apply(
    builder: reqwest::ClientBuilder,
    loaded: &Loaded,
    settings: &TlsSettings,
) -> reqwest::ClientBuilder {
    let mut b = builder;
    if let Some(id) = &loaded.identity {
        b = b.identity(id.clone());
    }
    if settings.ca_only {
        b = b.tls_certs_only(loaded.roots.iter().cloned());
    } else if !loaded.roots.is_empty() {
        b = b.tls_certs_merge(loaded.roots.iter().cloned());
    }
    b
}

fn load(settings: &TlsSettings) -> Result<Loaded, RemoteError> {
    let mut warnings = Vec::new();
    let identity = match &settings.client {
        None => None,
        Some(files) => {
            let (certs, key) = client_identity(files, &mut warnings)?;
            // reqwest reads the certificate and key from one PEM buffer: ours holds only what we checked.
            let mut joined = Vec::new();
            for c in &certs {
                joined.extend(pem_block("CERTIFICATE", c.as_ref()));
            }
            let (label, der) = match &key {
                PrivateKeyDer::Pkcs1(k) => ("RSA PRIVATE KEY", k.secret_pkcs1_der()),
                PrivateKeyDer::Sec1(k) => ("EC PRIVATE KEY", k.secret_sec1_der()),
                PrivateKeyDer::Pkcs8(k) => ("PRIVATE KEY", k.secret_pkcs8_der()),
                _ => {
                    return Err(RemoteError::usage(format!(
                        "the key in {} is of a kind we cannot use",
                        files.key.display()
                    )));
                }
            };
            joined.extend(pem_block(label, der));
            Some(reqwest::Identity::from_pem(&joined).map_err(|_| {
                RemoteError::usage(format!(
                    "cannot use the client certificate {} with the key {}",
                    files.cert.display(),
                    files.key.display()
                ))
            })?)
        }
    };
    let roots = bundle(settings)?
        .iter()
        .map(|c| {
            reqwest::Certificate::from_der(c.as_ref()).map_err(|_| {
                RemoteError::usage(format!(
                    "a certificate in the CA bundle {} cannot be used",
                    settings
                        .ca_bundle
                        .as_deref()
                        .map(Path::display)
                        .map(|d| d.to_string())
                        .unwrap_or_default()
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Loaded {
        identity,
        roots,
        warnings,
    })
}

/// The client certificate chain and its key, read and checked (a warning when the key is readable by others).
pub(super) fn client_identity(
    files: &ClientFiles,
    warnings: &mut Vec<String>,
) -> Result<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>), RemoteError> {
    let cert_pem = read_pem(&files.cert, "client certificate")?;
    let certs = certificates(&cert_pem, &files.cert, "client certificate")?;
    let key_pem = read_pem(&files.key, "client key")?;
    // rustls reads no encrypted key, and "no private key" would send the user looking for the wrong thing.
    if key_pem
        .windows(ENCRYPTED_KEY.len())
        .any(|w| w == ENCRYPTED_KEY)
    {
        return Err(RemoteError::usage(format!(
            "the client key {} is encrypted; the console reads only unencrypted keys (keep it 0600)",
            files.key.display()
        )));
    }
    let key = PrivateKeyDer::from_pem_slice(&key_pem).map_err(|e| {
        RemoteError::usage(format!(
            "no private key in {} ({}): it needs a PKCS#8 (\"PRIVATE KEY\"), PKCS#1 (\"RSA PRIVATE KEY\") or SEC1 (\"EC PRIVATE KEY\") PEM block",
            files.key.display(),
            pem_problem(&e)
        ))
    })?;
    if let Some(w) = key_permissions(&files.key) {
        warnings.push(w);
    }
    Ok((certs, key))
}

/// The certificates of the agent's CA bundle (none when it names no bundle).
pub(super) fn bundle(settings: &TlsSettings) -> Result<Vec<CertificateDer<'static>>, RemoteError> {
    match &settings.ca_bundle {
        None => Ok(Vec::new()),
        Some(path) => {
            let pem = read_pem(path, "CA bundle")?;
            certificates(&pem, path, "CA bundle")
        }
    }
}

/// Read a PEM file (bounded), or say which file and why not.
fn read_pem(path: &Path, what: &str) -> Result<Vec<u8>, RemoteError> {
    use std::io::Read;
    let fail = |e: std::io::Error| {
        RemoteError::usage(format!("cannot read the {what} {}: {e}", path.display()))
    };
    let file = std::fs::File::open(path).map_err(fail)?;
    let mut buf = Vec::new();
    file.take(MAX_PEM_BYTES + 1)
        .read_to_end(&mut buf)
        .map_err(fail)?;
    if buf.len() as u64 > MAX_PEM_BYTES {
        return Err(RemoteError::usage(format!(
            "the {what} {} is larger than {} MiB: is it the right file?",
            path.display(),
            MAX_PEM_BYTES >> 20
        )));
    }
    Ok(buf)
}

/// Every CERTIFICATE block of a PEM file; none is an error naming the file.
fn certificates(
    pem: &[u8],
    path: &Path,
    what: &str,
) -> Result<Vec<CertificateDer<'static>>, RemoteError> {
    let mut certs = Vec::new();
    for item in <(SectionKind, Vec<u8>)>::pem_slice_iter(pem) {
        match item {
            Ok((SectionKind::Certificate, der)) => certs.push(CertificateDer::from(der)),
            Ok(_) => {}
            Err(e) => {
                return Err(RemoteError::usage(format!(
                    "the {what} {} is not readable PEM ({})",
                    path.display(),
                    pem_problem(&e)
                )));
            }
        }
    }
    if certs.is_empty() {
        return Err(RemoteError::usage(format!(
            "no certificate in the {what} {} (it needs a PEM \"CERTIFICATE\" block)",
            path.display()
        )));
    }
    Ok(certs)
}

/// What is wrong with a PEM file, in words that never quote its contents.
fn pem_problem(e: &rustls_pki_types::pem::Error) -> &'static str {
    use rustls_pki_types::pem::Error as E;
    match e {
        E::NoItemsFound => "no PEM block of that kind",
        E::MissingSectionEnd { .. } => "a PEM block has no END line",
        E::IllegalSectionStart { .. } => "a malformed BEGIN line",
        E::Base64Decode(_) => "a PEM block is not valid base64",
        E::Io(_) => "it could not be read",
        _ => "it is not valid PEM",
    }
}

/// A PEM block of `der`, 64 base64 characters a line.
fn pem_block(label: &str, der: &[u8]) -> Vec<u8> {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD.encode(der);
    let mut out = format!("-----BEGIN {label}-----\n").into_bytes();
    for chunk in b64.as_bytes().chunks(64) {
        out.extend_from_slice(chunk);
        out.push(b'\n');
    }
    out.extend(format!("-----END {label}-----\n").into_bytes());
    out
}

/// Like ssh: a private key that others can read is worth a warning (not a failure: the user may have reasons,
/// and a shared CI runner may not let them choose).
#[cfg(unix)]
fn key_permissions(path: &Path) -> Option<String> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path).ok()?.permissions().mode();
    (mode & 0o077 != 0).then(|| {
        format!(
            "the client key {} can be read by others (mode {:o}); chmod 600 it",
            path.display(),
            mode & 0o777
        )
    })
}

#[cfg(not(unix))]
fn key_permissions(_path: &Path) -> Option<String> {
    None
}

/// reqwest checks the key against the certificate when it builds the client (rustls' `keys_match`): say
/// that in words naming both files.
fn build_error(e: &reqwest::Error, settings: &TlsSettings) -> RemoteError {
    let chain = crate::remote::http::error_chain(e);
    if let Some(files) = &settings.client
        && (chain.contains("KeyMismatch") || chain.contains("InconsistentKeys"))
    {
        return RemoteError::usage(format!(
            "the key {} does not match the certificate {}",
            files.key.display(),
            files.cert.display()
        ));
    }
    RemoteError::usage(format!(
        "cannot build a TLS client from [agents.tls]: {}",
        crate::remote::http::reqwest_reason(e)
    ))
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| p.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(dir: &Path, cert: &str, key: &str) -> TlsSettings {
        std::fs::write(dir.join("c.pem"), cert).unwrap();
        std::fs::write(dir.join("k.pem"), key).unwrap();
        TlsSettings {
            client: Some(ClientFiles {
                cert: dir.join("c.pem"),
                key: dir.join("k.pem"),
            }),
            ca_bundle: None,
            ca_only: false,
        }
    }

    fn load_error(s: &TlsSettings) -> String {
        match agent_http(s, Duration::from_secs(1)) {
            Err(e) => e.message,
            Ok(_) => panic!("loaded"),
        }
    }

    #[test]
    fn unusable_files_are_named_with_what_is_wrong() {
        let dir = tempfile::tempdir().unwrap();
        let cert =
            String::from_utf8(pem_block("CERTIFICATE", &[0x30, 0x03, 0x02, 0x01, 0x01])).unwrap();
        let encrypted =
            "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMAA=\n-----END ENCRYPTED PRIVATE KEY-----\n";
        let e = load_error(&settings(dir.path(), &cert, encrypted));
        assert!(e.contains("k.pem is encrypted"), "{e}");
        let e = load_error(&settings(dir.path(), &cert, "not a key"));
        assert!(
            e.contains("no private key in") && e.contains("k.pem"),
            "{e}"
        );
        let e = load_error(&settings(dir.path(), "", "x"));
        assert!(
            e.contains("no certificate in the client certificate") && e.contains("c.pem"),
            "{e}"
        );
        let missing = TlsSettings {
            client: None,
            ca_bundle: Some(dir.path().join("nope.pem")),
            ca_only: true,
        };
        let e = load_error(&missing);
        assert!(
            e.contains("cannot read the CA bundle") && e.contains("nope.pem"),
            "{e}"
        );
    }

    #[test]
    fn pem_blocks_round_trip() {
        let der = vec![7u8; 200];
        let pem = pem_block("CERTIFICATE", &der);
        let back = CertificateDer::from_pem_slice(&pem).unwrap();
        assert_eq!(back.as_ref(), der.as_slice());
    }
}
