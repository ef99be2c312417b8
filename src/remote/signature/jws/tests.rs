//! Header rules: the allowlist, `crit`, `b64`, key/algorithm agreement, and hostile headers that must give a
//! reason and never a panic.

use super::*;
use serde_json::json;

fn b64(v: &Value) -> String {
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(v).unwrap())
}

fn err(h: Value) -> String {
    parse_header(&b64(&h), None).unwrap_err()
}

#[test]
fn the_allowlist_takes_asymmetric_algorithms_only() {
    for a in [
        "ES256", "ES384", "EdDSA", "RS256", "RS384", "RS512", "PS256", "PS384", "PS512",
    ] {
        assert!(allowed_algorithm(a).is_ok(), "{a}");
    }
    assert!(allowed_algorithm("none").unwrap_err().contains("refused"));
    assert!(
        allowed_algorithm("HS256")
            .unwrap_err()
            .contains("shared-secret")
    );
    assert!(
        allowed_algorithm("HS512")
            .unwrap_err()
            .contains("shared-secret")
    );
    assert!(
        allowed_algorithm("ES512")
            .unwrap_err()
            .contains("not allowed")
    );
    assert!(
        allowed_algorithm("es256")
            .unwrap_err()
            .contains("not allowed")
    );
}

#[test]
fn crit_is_honoured() {
    assert!(err(json!({"alg": "ES256", "crit": ["exp"], "exp": 1})).contains("not understood"));
    assert!(err(json!({"alg": "ES256", "crit": []})).contains("empty"));
    assert!(err(json!({"alg": "ES256", "crit": "b64"})).contains("not a list"));
    assert!(err(json!({"alg": "ES256", "crit": ["kid"], "kid": "x"})).contains("registered"));
    assert!(err(json!({"alg": "ES256", "crit": ["b64"]})).contains("missing"));
    assert!(err(json!({"alg": "ES256", "crit": ["b64"], "b64": false})).contains("not supported"));
    assert!(err(json!({"alg": "ES256", "b64": false})).contains("not supported"));
    let ok = parse_header(
        &b64(&json!({"alg": "ES256", "crit": ["b64"], "b64": true})),
        None,
    );
    assert!(ok.is_ok());
}

#[test]
fn protected_and_unprotected_must_not_overlap() {
    let p = b64(&json!({"alg": "ES256", "kid": "a"}));
    let e = parse_header(&p, Some(&json!({"kid": "b"}))).unwrap_err();
    assert!(e.contains("both protected and unprotected"), "{e}");
    let e = parse_header(&b64(&json!({"kid": "a"})), Some(&json!({"alg": "ES256"}))).unwrap_err();
    assert!(e.contains("must be in the protected header"), "{e}");
    let e = parse_header(&p, Some(&json!([1]))).unwrap_err();
    assert!(e.contains("not a JSON object"), "{e}");
    let h = parse_header(&p, Some(&json!({"note": "x"}))).unwrap();
    assert_eq!(h.kid.as_deref(), Some("a"));
}

#[test]
fn malformed_headers_give_a_reason() {
    let cases: Vec<String> = vec![
        String::new(),
        "!!!".into(),
        "e30".into(), // {}
        URL_SAFE_NO_PAD.encode("[1,2]"),
        URL_SAFE_NO_PAD.encode("{\"alg\":"),
        URL_SAFE_NO_PAD.encode([0xff, 0xfe, 0x00]),
        b64(&json!({"alg": 256})),
        b64(&json!({"alg": "ES256", "kid": 7})),
        b64(&json!({"alg": "ES256", "jku": ["x"]})),
        b64(&json!({"alg": "ES256", "jwk": "x"})),
        b64(&json!({"alg": "ES256\u{1b}[31m"})),
        "A".repeat(MAX_HEADER_BYTES + 1),
    ];
    for c in cases {
        let e = parse_header(&c, None).unwrap_err();
        assert!(!e.is_empty());
        assert!(
            !e.contains('\u{1b}'),
            "control characters reach the reason: {e:?}"
        );
    }
    // Arbitrary bytes, base64url-encoded or not: always an answer.
    let mut seed = 0x9e37_79b9_u32;
    for len in 0..300 {
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 17;
                seed ^= seed << 5;
                seed.to_le_bytes()[0]
            })
            .collect();
        let _ = parse_header(&URL_SAFE_NO_PAD.encode(&bytes), None);
        let _ = parse_header(&String::from_utf8_lossy(&bytes), Some(&json!({"x": 1})));
    }
}

fn header(alg: &str) -> Header {
    parse_header(&b64(&json!({"alg": alg})), None).unwrap()
}

#[test]
fn a_key_must_agree_with_the_algorithm() {
    let ec: Jwk = serde_json::from_value(json!({"kty": "EC", "crv": "P-256",
        "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}))
    .unwrap();
    let rsa: Jwk = serde_json::from_value(json!({"kty": "RSA", "n": "sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQB0GaDWFLN-aEAw3vRw", "e": "AQAB"}))
    .unwrap();
    assert!(key_fits(&ec, &header("ES256")).is_ok());
    assert!(
        key_fits(&ec, &header("ES384"))
            .unwrap_err()
            .contains("P-256 key cannot verify ES384")
    );
    assert!(key_fits(&ec, &header("RS256")).is_err());
    assert!(key_fits(&rsa, &header("PS256")).is_ok());
    assert!(
        key_fits(&rsa, &header("ES256"))
            .unwrap_err()
            .contains("RSA key cannot verify ES256")
    );
    let mut tagged = ec.clone();
    tagged.common.key_algorithm = Some(jsonwebtoken::jwk::KeyAlgorithm::ES384);
    assert!(
        key_fits(&tagged, &header("ES256"))
            .unwrap_err()
            .contains("the key is for \"ES384\"")
    );
    let mut enc = ec.clone();
    enc.common.public_key_use = Some(PublicKeyUse::Encryption);
    assert!(
        key_fits(&enc, &header("ES256"))
            .unwrap_err()
            .contains("not a signing key")
    );
    let mut ops = ec;
    ops.common.key_operations = Some(vec![KeyOperations::Sign]);
    assert!(
        key_fits(&ops, &header("ES256"))
            .unwrap_err()
            .contains("key_ops")
    );
}
