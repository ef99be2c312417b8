//! gRPC over https: the rustls configuration the SDK's gRPC transport connects with. It takes one of its own
//! (`GrpcTransportFactory::with_rustls_config`), not reqwest's client, so the roots and the client
//! certificate of `[agents.tls]` are built again here, for that agent's gRPC connection only: a certificate
//! is presented to the agent it was configured for and to no other.
//!
//! Without a config the SDK's factory speaks plain HTTP/2 even to an `https://` URL (tonic is built without
//! TLS), so every https gRPC interface, with `[agents.tls]` or not, goes through here.

use std::sync::Arc;

use rustls::ClientConfig;
use rustls::client::danger::ServerCertVerifier;

use crate::remote::connect::grpc_tls_watch::{TlsWatch, WatchedResolver, WatchedVerifier};
use crate::remote::connect::tls::{self, TlsSettings};
use crate::remote::error::RemoteError;

/// gRPC is HTTP/2; a server that does not hear `h2` in ALPN may fall back to HTTP/1.1 and break the call.
const ALPN_H2: &[u8] = b"h2";

/// Does this gRPC interface URL ask for TLS? (`host:port`, the form many cards use, is plain HTTP/2.)
pub fn wants_tls(url: &str) -> bool {
    url.get(..8)
        .is_some_and(|scheme| scheme.eq_ignore_ascii_case("https://"))
}

/// The agent's gRPC TLS config: the platform's roots (the same verifier reqwest uses), plus its CA bundle
/// (or only the bundle with `ca_only`), and its client certificate when it has one; and the watch that
/// says, after a failure, what the handshake went through. Reads the PEM files: once per client, not per call.
pub fn client_config(
    settings: Option<&TlsSettings>,
) -> Result<(Arc<ClientConfig>, Arc<TlsWatch>), RemoteError> {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| RemoteError::usage(format!("cannot set up TLS for gRPC: {e}")))?;
    let extra = match settings {
        Some(s) => tls::bundle(s)?,
        None => Vec::new(),
    };
    let verifier: Arc<dyn ServerCertVerifier> = if settings.is_some_and(|s| s.ca_only) {
        let mut roots = rustls::RootCertStore::empty();
        for cert in extra {
            roots.add(cert).map_err(|_| bundle_error(settings))?;
        }
        rustls::client::WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
            .build()
            .map_err(|_| bundle_error(settings))?
    } else {
        Arc::new(
            rustls_platform_verifier::Verifier::new_with_extra_roots(extra, provider)
                .map_err(|_| bundle_error(settings))?,
        )
    };
    let watch = Arc::new(TlsWatch::default());
    let builder = builder
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(WatchedVerifier {
            inner: verifier,
            watch: watch.clone(),
        }));
    let mut config = match settings.and_then(|s| s.client.as_ref()) {
        None => builder.with_no_client_auth(),
        Some(files) => {
            // The key-permission warning was already given when the agent's HTTP clients were built.
            let (certs, key) = tls::client_identity(files, &mut Vec::new())?;
            builder.with_client_auth_cert(certs, key).map_err(|e| {
                let text = format!("{e:?}");
                if text.contains("KeyMismatch") || text.contains("InconsistentKeys") {
                    RemoteError::usage(format!(
                        "the key {} does not match the certificate {}",
                        files.key.display(),
                        files.cert.display()
                    ))
                } else {
                    RemoteError::usage(format!(
                        "cannot use the client certificate {} with the key {} for gRPC",
                        files.cert.display(),
                        files.key.display()
                    ))
                }
            })?
        }
    };
    config.alpn_protocols = vec![ALPN_H2.to_vec()];
    config.client_auth_cert_resolver = Arc::new(WatchedResolver {
        inner: config.client_auth_cert_resolver.clone(),
        watch: watch.clone(),
    });
    Ok((Arc::new(config), watch))
}

fn bundle_error(settings: Option<&TlsSettings>) -> RemoteError {
    match settings.and_then(|s| s.ca_bundle.as_deref()) {
        Some(path) => RemoteError::usage(format!(
            "a certificate in the CA bundle {} cannot be used",
            path.display()
        )),
        None => RemoteError::usage("cannot load the system's root certificates for gRPC"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_urls_want_tls() {
        assert!(wants_tls("https://agent.example:443"));
        assert!(wants_tls("HTTPS://agent.example"));
        assert!(!wants_tls("http://127.0.0.1:50051"));
        assert!(!wants_tls("127.0.0.1:50051"));
        assert!(!wants_tls("https:"));
    }

    #[test]
    fn a_plain_config_speaks_h2_and_presents_nothing() {
        let (config, watch) = client_config(None).unwrap();
        assert_eq!(watch.hint(), None);
        assert_eq!(config.alpn_protocols, vec![b"h2".to_vec()]);
        assert!(!config.client_auth_cert_resolver.has_certs());
    }
}
