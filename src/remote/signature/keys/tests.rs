//! The jku origin rule, the size limit, the cache, and reading configured keys.

use super::*;
use crate::remote::signature::verify_tests::es256;
use serde_json::json;

fn card_url() -> Url {
    Url::parse("https://agent.example/.well-known/agent-card.json").unwrap()
}

#[test]
fn a_jku_is_fetched_only_from_the_cards_origin_over_https_or_loopback() {
    let u = card_url();
    assert!(jku_allowed("https://agent.example/keys.json", &u, &[]).is_ok());
    let e = jku_allowed("https://keys.example/keys.json", &u, &[]).unwrap_err();
    assert!(e.contains("not the card's origin"), "{e}");
    assert!(
        jku_allowed(
            "https://keys.example/k",
            &u,
            &["https://keys.example".into()]
        )
        .is_ok()
    );
    // Same host, other port or scheme: another origin.
    assert!(jku_allowed("https://agent.example:8443/k", &u, &[]).is_err());
    let e = jku_allowed("http://agent.example/k", &u, &[]).unwrap_err();
    assert!(e.contains("only https"), "{e}");
    assert!(jku_allowed("file:///etc/passwd", &u, &[]).is_err());
    assert!(
        jku_allowed("https://user:pw@agent.example/k", &u, &[])
            .unwrap_err()
            .contains("credentials")
    );
    assert!(jku_allowed("not a url", &u, &[]).is_err());
    let local = Url::parse("http://127.0.0.1:8080/.well-known/agent-card.json").unwrap();
    assert!(jku_allowed("http://127.0.0.1:8080/jwks.json", &local, &[]).is_ok());
    assert!(jku_allowed("http://127.0.0.1:9090/jwks.json", &local, &[]).is_err());
}

#[test]
fn thumbprints_take_a_prefix_and_must_be_sha256_sized() {
    let t = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs";
    assert_eq!(normalize_thumbprint(t).as_deref(), Some(t));
    assert_eq!(
        normalize_thumbprint(&format!("sha256:{t}")).as_deref(),
        Some(t)
    );
    assert_eq!(
        normalize_thumbprint(&format!("SHA-256:{t}")).as_deref(),
        Some(t)
    );
    assert_eq!(normalize_thumbprint("abc"), None);
    assert_eq!(normalize_thumbprint(&format!("md5:{t}")), None);
    assert_eq!(normalize_thumbprint(&t.replace('N', "+")), None);
}

#[test]
fn configured_keys_load_from_a_jwks_file_and_inline() {
    let dir = tempfile::tempdir().unwrap();
    let s = es256();
    let path = dir.path().join("agent.jwks");
    std::fs::write(
        &path,
        serde_json::to_string(&json!({"keys": [s.jwk, {"kty": "weird"}]})).unwrap(),
    )
    .unwrap();
    let cfg = TrustConfig {
        jwks_file: Some(path.clone()),
        jwk: Some(Value::String(serde_json::to_string(&s.jwk).unwrap())),
        pinned: vec!["NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs".into()],
        jku_origins: vec![],
    };
    let t = Trust::from_config(&cfg, None).unwrap();
    assert_eq!(
        t.keys.len(),
        2,
        "the unreadable key is skipped, the others kept"
    );
    assert!(t.keys[0].source.starts_with("jwks_file "));
    assert!(t.has_expectation());
    let bad = TrustConfig {
        pinned: vec!["nope".into()],
        ..TrustConfig::default()
    };
    assert!(
        Trust::from_config(&bad, None)
            .unwrap_err()
            .contains("trust.pinned")
    );
    let missing = TrustConfig {
        jwks_file: Some(dir.path().join("absent")),
        ..TrustConfig::default()
    };
    assert!(
        Trust::from_config(&missing, None)
            .unwrap_err()
            .contains("trust.jwks_file")
    );
}

/// A tiny JWKS server on 127.0.0.1 answering every request with `body` and `extra` headers; counts hits.
async fn serve(
    body: Vec<u8>,
    status: u16,
    extra: &'static str,
) -> (Url, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let hits = std::sync::Arc::new(AtomicUsize::new(0));
    let counter = hits.clone();
    tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
            let mut buf = [0u8; 4096];
            let _ = sock.read(&mut buf).await;
            let head = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n{extra}connection: close\r\n\r\n",
                body.len()
            );
            let _ = sock.write_all(head.as_bytes()).await;
            let _ = sock.write_all(&body).await;
        }
    });
    (
        Url::parse(&format!("http://{addr}/jwks.json")).unwrap(),
        hits,
    )
}

#[tokio::test]
async fn a_jwks_is_size_limited_cached_and_never_followed_through_a_redirect() {
    use std::sync::atomic::Ordering;
    let s = es256();
    let jwks = serde_json::to_vec(&json!({"keys": [s.jwk]})).unwrap();
    let (url, hits) = serve(jwks, 200, "cache-control: max-age=600\r\n").await;
    let f = JkuFetcher::new();
    assert_eq!(f.fetch(&url).await.unwrap().len(), 1);
    assert_eq!(f.fetch(&url).await.unwrap().len(), 1);
    assert_eq!(
        hits.load(Ordering::SeqCst),
        1,
        "the second read came from the cache"
    );

    let mut big = b"{\"keys\":[],\"pad\":\"".to_vec();
    big.extend(std::iter::repeat_n(b'a', MAX_JWKS_BYTES));
    big.extend(b"\"}");
    let (url, _) = serve(big, 200, "").await;
    let e = f.fetch(&url).await.unwrap_err();
    assert!(e.contains("jku http://127.0.0.1"), "{e}");

    let (url, _) = serve(
        Vec::new(),
        302,
        "location: https://elsewhere.example/jwks.json\r\n",
    )
    .await;
    let e = f.fetch(&url).await.unwrap_err();
    assert!(e.contains("redirected"), "{e}");

    let (url, _) = serve(b"{\"keys\": [{\"kty\": \"nope\"}]}".to_vec(), 200, "").await;
    assert!(
        f.fetch(&url)
            .await
            .unwrap_err()
            .contains("no key we can use")
    );
}
