//! What a gRPC TLS handshake went through, for the one-line hint of a failed call. The SDK's gRPC transport
//! reports a failed TLS connection as "transport error" or "operation was canceled", dropping rustls' reason,
//! so the rustls config itself notes the two things a user can act on: the server's certificate was not
//! accepted (and why, in rustls' words), or the server asked for a client certificate and we had none.
//! Both wrappers only watch; every decision stays with the wrapped verifier and resolver.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rustls::client::ResolvesClientCert;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, DistinguishedName, SignatureScheme};

/// Notes of one agent's gRPC handshakes (shared by its connections).
#[derive(Debug, Default)]
pub struct TlsWatch {
    /// rustls' reason for refusing the server's certificate (its Debug form, which `tls::tls_hint` reads).
    server_refused: Mutex<Option<String>>,
    /// The server sent a CertificateRequest and there was no certificate to give.
    asked_without_cert: AtomicBool,
}

impl TlsWatch {
    /// The hint for a failed gRPC call or connection, when a handshake noted something.
    pub fn hint(&self) -> Option<&'static str> {
        if let Ok(refused) = self.server_refused.lock()
            && let Some(reason) = refused.as_deref()
        {
            return crate::remote::http::tls_hint(reason);
        }
        self.asked_without_cert
            .load(Ordering::Relaxed)
            .then_some("the agent asked for a client certificate (configure [agents.tls])")
    }
}

/// The server verifier, watched.
#[derive(Debug)]
pub struct WatchedVerifier {
    pub inner: Arc<dyn ServerCertVerifier>,
    pub watch: Arc<TlsWatch>,
}

impl ServerCertVerifier for WatchedVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let verdict = self.inner.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        );
        if let (Err(e), Ok(mut slot)) = (&verdict, self.watch.server_refused.lock()) {
            // "invalid peer certificate: UnknownIssuer" etc.: the forms `tls_hint` knows.
            *slot = Some(format!("{e} {e:?}"));
        }
        verdict
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }

    fn requires_raw_public_keys(&self) -> bool {
        self.inner.requires_raw_public_keys()
    }

    fn root_hint_subjects(&self) -> Option<&[DistinguishedName]> {
        self.inner.root_hint_subjects()
    }
}

/// The client certificate resolver, watched: rustls asks it only when the server requested a certificate.
#[derive(Debug)]
pub struct WatchedResolver {
    pub inner: Arc<dyn ResolvesClientCert>,
    pub watch: Arc<TlsWatch>,
}

impl ResolvesClientCert for WatchedResolver {
    fn resolve(
        &self,
        root_hint_subjects: &[&[u8]],
        sigschemes: &[SignatureScheme],
    ) -> Option<Arc<rustls::sign::CertifiedKey>> {
        let key = self.inner.resolve(root_hint_subjects, sigschemes);
        if key.is_none() {
            self.watch.asked_without_cert.store(true, Ordering::Relaxed);
        }
        key
    }

    fn only_raw_public_keys(&self) -> bool {
        self.inner.only_raw_public_keys()
    }

    fn has_certs(&self) -> bool {
        self.inner.has_certs()
    }
}
