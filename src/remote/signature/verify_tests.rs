//! The verdict from cards signed here with fresh keys (the SDK-signed vectors are in tests/card_signatures.rs).

use super::*;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey};
use serde_json::json;

pub(super) struct Signer {
    pub enc: EncodingKey,
    pub jwk: Jwk,
    pub alg: Algorithm,
}

pub(super) fn es256() -> Signer {
    let kp = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let enc = EncodingKey::from_ec_der(&kp.serialize_der());
    let jwk = Jwk::from_encoding_key(&enc, Algorithm::ES256).unwrap();
    Signer {
        enc,
        jwk,
        alg: Algorithm::ES256,
    }
}

pub(super) fn ed25519() -> Signer {
    let kp = rcgen::KeyPair::generate_for(&rcgen::PKCS_ED25519).unwrap();
    let enc = EncodingKey::from_ed_der(&kp.serialize_der());
    let jwk: Jwk = serde_json::from_value(
        json!({"kty": "OKP", "crv": "Ed25519", "x": URL_SAFE_NO_PAD.encode(kp.public_key_raw())}),
    )
    .unwrap();
    Signer {
        enc,
        jwk,
        alg: Algorithm::EdDSA,
    }
}

pub(super) fn card() -> Value {
    json!({"name": "Weather", "description": "Forecasts ☀", "version": "1.0",
        "supportedInterfaces": [{"url": "http://127.0.0.1:1/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": false, "extensions": [{"uri": "urn:x", "required": false}]}, "defaultInputModes": ["text/plain"], "defaultOutputModes": [],
        "skills": [{"id": "f", "name": "forecast", "description": "", "tags": ["weather"]}]})
}

/// Sign `card` in `form` with `header` as the protected header, appending to its `signatures`.
pub(super) fn sign(card: &mut Value, s: &Signer, header: Value, form: Form) {
    let protected = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&header).unwrap());
    let payload = canonical::payload(card, form).unwrap();
    let input = format!("{protected}.{}", URL_SAFE_NO_PAD.encode(payload));
    let sig = jsonwebtoken::crypto::sign(input.as_bytes(), &s.enc, s.alg).unwrap();
    let entry = json!({"protected": protected, "signature": sig});
    match card.get_mut("signatures").and_then(Value::as_array_mut) {
        Some(list) => list.push(entry),
        None => {
            card["signatures"] = json!([entry]);
        }
    }
}

fn trusting(s: &Signer) -> Trust {
    Trust::in_process(s.jwk.clone(), "a test key")
}

fn pinning(s: &Signer) -> Trust {
    Trust {
        pinned: vec![jws::thumbprint(&s.jwk).unwrap()],
        ..Trust::default()
    }
}

fn jku_with(url: &str, keys: Vec<Jwk>) -> JkuKeys {
    JkuKeys::from([(url.to_string(), Ok(keys))])
}

const JKU: &str = "https://agent.example/jwks.json";

#[test]
fn each_form_verifies_and_the_verdict_says_which() {
    let s = es256();
    for form in Form::ALL {
        let mut c = card();
        sign(
            &mut c,
            &s,
            json!({"alg": "ES256", "kid": "k1", "typ": "JOSE"}),
            form,
        );
        let v = verify_value(&c, &trusting(&s), &JkuKeys::new());
        assert_eq!(v.state, SignatureState::Verified, "{form:?}: {}", v.reason);
        // The spec form of this card differs from both SDK forms (empty description, streaming false …).
        assert_eq!(v.detail.form, Some(form));
        assert_eq!(v.detail.alg.as_deref(), Some("ES256"));
        assert_eq!(v.detail.kid.as_deref(), Some("k1"));
        assert_eq!(v.detail.thumbprint, jws::thumbprint(&s.jwk));
        assert!(v.detail.pinned);
        assert_eq!(v.reason, "signed by a test key");
    }
}

#[test]
fn a_key_only_the_jku_vouches_for_is_valid_but_not_pinned_and_offered() {
    let s = ed25519();
    let mut c = card();
    sign(
        &mut c,
        &s,
        json!({"alg": "EdDSA", "kid": "k1", "jku": JKU}),
        Form::Spec,
    );
    let mut key = s.jwk.clone();
    key.common.key_id = Some("k1".into());
    let v = verify_value(&c, &Trust::default(), &jku_with(JKU, vec![key.clone()]));
    assert_eq!(v.state, SignatureState::ValidUnpinned, "{}", v.reason);
    assert!(!v.detail.pinned);
    assert_eq!(v.detail.offer, Some(key.clone()));
    assert!(
        v.reason.contains("jku https://agent.example/jwks.json"),
        "{}",
        v.reason
    );
    // Pinned: the same card is verified.
    let v = verify_value(&c, &pinning(&s), &jku_with(JKU, vec![key]));
    assert_eq!(v.state, SignatureState::Verified, "{}", v.reason);
    assert!(
        v.reason.starts_with("signed by the pinned key"),
        "{}",
        v.reason
    );
}

#[test]
fn another_key_than_the_pinned_one_is_the_key_changed_alarm() {
    let (old, new) = (es256(), es256());
    let mut c = card();
    sign(
        &mut c,
        &new,
        json!({"alg": "ES256", "kid": "k1", "jku": JKU}),
        Form::Spec,
    );
    let v = verify_value(&c, &pinning(&old), &jku_with(JKU, vec![new.jwk.clone()]));
    assert_eq!(v.state, SignatureState::Invalid);
    assert!(
        v.reason.starts_with("key changed: signed by key "),
        "{}",
        v.reason
    );
    assert!(v.reason.contains(&jws::thumbprint(&new.jwk).unwrap()));
    assert_eq!(
        v.detail.offer, None,
        "a changed key is never offered for pinning"
    );
}

#[test]
fn tampering_breaks_every_form() {
    let s = es256();
    let mut signed = card();
    sign(
        &mut signed,
        &s,
        json!({"alg": "ES256", "kid": "k1"}),
        Form::Spec,
    );
    let trust = trusting(&s);
    let mut changed = signed.clone();
    changed["name"] = json!("Weather (official)");
    let mut added = signed.clone();
    added["iconUrl"] = json!("https://evil.example/i.png");
    let mut flipped = signed.clone();
    let sig = flipped["signatures"][0]["signature"]
        .as_str()
        .unwrap()
        .to_string();
    let mut bytes = URL_SAFE_NO_PAD.decode(sig).unwrap();
    bytes[5] ^= 1;
    flipped["signatures"][0]["signature"] = json!(URL_SAFE_NO_PAD.encode(bytes));
    for (what, c) in [("changed", changed), ("added", added), ("flipped", flipped)] {
        let v = verify_value(&c, &trust, &JkuKeys::new());
        assert_eq!(v.state, SignatureState::Invalid, "{what}");
        assert_eq!(v.reason, "signature does not match the card", "{what}");
    }
}

#[test]
fn none_and_hmac_are_refused_even_with_a_matching_mac() {
    let s = es256();
    let mut c = card();
    let protected = URL_SAFE_NO_PAD.encode(br#"{"alg":"none","kid":"k1"}"#);
    c["signatures"] = json!([{"protected": protected, "signature": ""}]);
    let v = verify_value(&c, &trusting(&s), &JkuKeys::new());
    assert_eq!(v.state, SignatureState::Invalid);
    assert!(v.reason.contains("\"none\" is refused"), "{}", v.reason);

    // The classic confusion: HS256 keyed with the public key's bytes, a real MAC over the real input.
    let secret = serde_json::to_vec(&s.jwk).unwrap();
    let mut c = card();
    let protected = URL_SAFE_NO_PAD.encode(br#"{"alg":"HS256","kid":"k1"}"#);
    let payload = canonical::payload(&c, Form::Spec).unwrap();
    let input = format!("{protected}.{}", URL_SAFE_NO_PAD.encode(payload));
    let mac = jsonwebtoken::crypto::sign(
        input.as_bytes(),
        &EncodingKey::from_secret(&secret).unwrap(),
        Algorithm::HS256,
    );
    let mac = mac.unwrap();
    c["signatures"] = json!([{"protected": protected, "signature": mac}]);
    let v = verify_value(&c, &trusting(&s), &JkuKeys::new());
    assert_eq!(v.state, SignatureState::Invalid);
    assert!(
        v.reason.contains("HS256") && v.reason.contains("refused"),
        "{}",
        v.reason
    );
}

#[test]
fn kid_selects_the_key_among_several() {
    let (a, b) = (es256(), es256());
    let mut ka = a.jwk.clone();
    ka.common.key_id = Some("a".into());
    let mut kb = b.jwk.clone();
    kb.common.key_id = Some("b".into());
    let mut c = card();
    sign(
        &mut c,
        &b,
        json!({"alg": "ES256", "kid": "b", "jku": JKU}),
        Form::Spec,
    );
    let v = verify_value(&c, &Trust::default(), &jku_with(JKU, vec![ka.clone(), kb]));
    assert_eq!(v.state, SignatureState::ValidUnpinned, "{}", v.reason);
    assert_eq!(v.detail.thumbprint, jws::thumbprint(&b.jwk));
    // A kid the set does not hold names no key.
    let v = verify_value(&c, &Trust::default(), &jku_with(JKU, vec![ka]));
    assert_eq!(v.state, SignatureState::Invalid);
    assert!(v.reason.starts_with("no key for kid \"b\""), "{}", v.reason);
}

#[test]
fn several_signatures_report_the_best_and_how_many() {
    let (good, other) = (es256(), es256());
    let mut c = card();
    sign(
        &mut c,
        &other,
        json!({"alg": "ES256", "kid": "old"}),
        Form::Spec,
    );
    sign(
        &mut c,
        &good,
        json!({"alg": "ES256", "kid": "new"}),
        Form::Spec,
    );
    let v = verify_value(&c, &trusting(&good), &JkuKeys::new());
    assert_eq!(v.state, SignatureState::Verified, "{}", v.reason);
    assert_eq!(v.detail.count, 2);
    assert!(v.reason.ends_with("(signature 2 of 2)"), "{}", v.reason);
}

#[test]
fn unsigned_and_unreadable_cards() {
    let v = verify_value(&card(), &Trust::default(), &JkuKeys::new());
    assert_eq!(v.state, SignatureState::Unsigned);
    let v = verify_raw("{not json", &Trust::default(), &JkuKeys::new());
    assert_eq!(v.state, SignatureState::Invalid);
    let mut c = card();
    c["signatures"] = json!("x");
    assert_eq!(
        verify_value(&c, &Trust::default(), &JkuKeys::new()).state,
        SignatureState::Invalid
    );
    c["signatures"] = json!([{"protected": 1}]);
    let v = verify_value(&c, &Trust::default(), &JkuKeys::new());
    assert_eq!(v.state, SignatureState::Invalid);
    assert!(
        v.reason.contains("`protected` and `signature`"),
        "{}",
        v.reason
    );
}

#[test]
fn a_jku_that_failed_says_why_there_is_no_key() {
    let s = es256();
    let mut c = card();
    sign(
        &mut c,
        &s,
        json!({"alg": "ES256", "kid": "k1", "jku": JKU}),
        Form::Spec,
    );
    let failed = JkuKeys::from([(
        JKU.to_string(),
        Err("jku https://agent.example/jwks.json: HTTP 500".into()),
    )]);
    let v = verify_value(&c, &Trust::default(), &failed);
    assert_eq!(v.state, SignatureState::Invalid);
    assert!(v.reason.ends_with("HTTP 500"), "{}", v.reason);
}
