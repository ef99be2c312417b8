//! Signed cards from signers no one here wrote: the official Python SDK (`a2a-sdk[signing]` 1.3.0,
//! `create_agent_card_signer`) and the official JS SDK (`@a2a-js/sdk` 1.3.0, `generateAgentCardSignature` on
//! `jose`) sign their peers' cards at start with fresh keys (ES256 and an RSA algorithm). Each must verify —
//! "verified" with the JWKS configured, "valid · not pinned" with the jku alone — and every tampered variant
//! must not. Then trust on first use end to end (`trust AGENT --yes`, then a restart with a fresh key: "key
//! changed"), and the demo agent's own signed card.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Command;

use a2a_console::remote::signature::{self, SignatureState, Trust, keys};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use common::{Server, cli_env, js_peer_with, py10_peer_with, spawn_server};
use serde_json::{Value, json};

/// A config file naming the agent `peer` at `url`, with `trust` as its `[agents.trust]` body.
fn config(dir: &std::path::Path, url: &str, trust: &str) -> std::path::PathBuf {
    let path = dir.join("config.toml");
    let trust = if trust.is_empty() {
        String::new()
    } else {
        format!("[agents.trust]\n{trust}\n")
    };
    std::fs::write(
        &path,
        format!("# my agents\n[[agents]]\nname = \"peer\"\nurl = \"{url}\"\n{trust}"),
    )
    .unwrap();
    path
}

/// `card --json` of the agent `peer` in `cfg`: its `"signature"` object.
fn signature_json(cfg: &std::path::Path) -> Value {
    let r = cli_env(
        &["card", "--config", cfg.to_str().unwrap(), "peer", "--json"],
        &[],
    );
    let v: Value = serde_json::from_str(&r.stdout).unwrap();
    // The card is printed either way; an alarm (another key, or no signature, where one is pinned or
    // configured) is exit code 7.
    let alarm = v["signature"]["state"] == "invalid"
        && ["key changed", "signature removed"].iter().any(|a| {
            v["signature"]["reason"]
                .as_str()
                .unwrap_or("")
                .starts_with(a)
        });
    assert_eq!(r.code, if alarm { 7 } else { 0 }, "{}", r.all());
    v["signature"].clone()
}

/// The card exactly as the peer serves it, read by the console's own fetcher.
fn raw_card(url: &str) -> String {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let fetcher =
            a2a_console::remote::card::CardFetcher::new(std::time::Duration::from_secs(10))
                .unwrap();
        fetcher.fetch(url, &Default::default()).await.unwrap().raw
    })
}

/// The verdict of the library on a (possibly tampered) card, trusting the keys in the JWKS file.
fn judge(card: &Value, jwks: &Value) -> signature::SignatureVerdict {
    let trust = Trust {
        keys: keys::jwks_keys(jwks)
            .into_iter()
            .map(|jwk| signature::TrustedKey {
                jwk,
                source: "the peer's JWKS".into(),
            })
            .collect(),
        ..Trust::default()
    };
    signature::verify_value(card, &trust, &signature::JkuKeys::new())
}

fn b64json(v: &Value) -> String {
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(v).unwrap())
}

/// Every way of forging or altering the signed `card` must end "invalid".
fn tampered_variants_fail(card: &Value, jwks: &Value, who: &str) {
    assert_eq!(
        judge(card, jwks).state,
        SignatureState::Verified,
        "{who}: the untouched card"
    );
    let sig0 = card["signatures"][0].clone();
    let protected = sig0["protected"].as_str().unwrap();
    let header: Value =
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(protected).unwrap()).unwrap();

    let mut changed = card.clone();
    changed["description"] = json!("Now with a different publisher.");
    let mut added = card.clone();
    added["documentationUrl"] = json!("https://attacker.example/docs");
    let mut flipped = card.clone();
    let mut bytes = URL_SAFE_NO_PAD
        .decode(sig0["signature"].as_str().unwrap())
        .unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x01;
    flipped["signatures"][0]["signature"] = json!(URL_SAFE_NO_PAD.encode(&bytes));
    let mut none = card.clone();
    let mut h = header.clone();
    h["alg"] = json!("none");
    none["signatures"][0] = json!({"protected": b64json(&h), "signature": ""});

    // HS256 keyed with the public key itself — its JWK exactly as served, and its members in thumbprint
    // order — a real HMAC over the real signing input of the spec form.
    let public = &jwks["keys"][0];
    let mut hmac_forgeries = Vec::new();
    for secret in [
        serde_json::to_vec(public).unwrap(),
        public.to_string().into_bytes(),
    ] {
        let mut h = header.clone();
        h["alg"] = json!("HS256");
        let p = b64json(&h);
        let mut unsigned = card.clone();
        unsigned.as_object_mut().unwrap().remove("signatures");
        let payload = serde_json_canonicalizer::to_vec(&unsigned).unwrap();
        let input = format!("{p}.{}", URL_SAFE_NO_PAD.encode(payload));
        let key = jsonwebtoken::EncodingKey::from_secret(&secret).unwrap();
        let mac =
            jsonwebtoken::crypto::sign(input.as_bytes(), &key, jsonwebtoken::Algorithm::HS256)
                .unwrap();
        let mut forged = card.clone();
        forged["signatures"] = json!([{"protected": p, "signature": mac}]);
        hmac_forgeries.push(forged);
    }
    let mut cases = vec![
        ("a field changed", changed),
        ("a field added", added),
        ("signature bytes flipped", flipped),
        ("alg none", none),
    ];
    cases.extend(
        hmac_forgeries
            .into_iter()
            .map(|c| ("HS256 with the public key as secret", c)),
    );
    for (what, c) in cases {
        let v = judge(&c, jwks);
        assert_eq!(
            v.state,
            SignatureState::Invalid,
            "{who}, {what}: {}",
            v.reason
        );
        assert!(!v.reason.is_empty());
    }
}

/// One signed peer: verified with its JWKS file, valid but not pinned with the jku alone, and tamper-proof.
fn check_signed_peer(peer: Server, jwks_path: &std::path::Path, alg: &str, who: &str) {
    let dir = tempfile::tempdir().unwrap();
    let jwks: Value = serde_json::from_str(&std::fs::read_to_string(jwks_path).unwrap()).unwrap();

    let cfg = config(
        dir.path(),
        &peer.url,
        &format!("jwks_file = {:?}", jwks_path.to_str().unwrap()),
    );
    let s = signature_json(&cfg);
    assert_eq!(s["state"], "verified", "{who}: {s}");
    assert_eq!(s["alg"], alg, "{who}: {s}");
    assert_eq!(s["pinned"], true);
    assert!(
        s["kid"].as_str().unwrap().starts_with(&who[..2]),
        "{who}: {s}"
    );
    assert!(
        s["form"].is_string(),
        "{who}: the verifying form is recorded: {s}"
    );
    assert_eq!(s["thumbprint"].as_str().unwrap().len(), 43);

    let cfg = config(dir.path(), &peer.url, "");
    let s = signature_json(&cfg);
    assert_eq!(s["state"], "valid_unpinned", "{who}: {s}");
    assert!(
        s["reason"]
            .as_str()
            .unwrap()
            .contains("/.well-known/jwks.json"),
        "{s}"
    );

    // The text form says the same in words.
    let r = cli_env(&["card", "--config", cfg.to_str().unwrap(), "peer"], &[]);
    assert!(
        r.stdout.contains("signature:   valid · not pinned"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains(&format!("algorithm: {alg}")),
        "{}",
        r.stdout
    );

    let card: Value = serde_json::from_str(&raw_card(&peer.url)).unwrap();
    tampered_variants_fail(&card, &jwks, who);
}

#[test]
fn python_sdk_signed_cards_verify_and_tampering_does_not() {
    for alg in ["ES256", "PS256"] {
        let dir = tempfile::tempdir().unwrap();
        let jwks = dir.path().join("py.jwks");
        let peer = py10_peer_with(&["--sign", alg, "--jwks-out", jwks.to_str().unwrap()]);
        check_signed_peer(peer, &jwks, alg, "py");
    }
}

#[test]
fn js_sdk_signed_cards_verify_and_tampering_does_not() {
    for alg in ["ES256", "RS256"] {
        let dir = tempfile::tempdir().unwrap();
        let jwks = dir.path().join("js.jwks");
        let peer = js_peer_with(&["--sign", alg, "--jwks-out", jwks.to_str().unwrap()]);
        check_signed_peer(peer, &jwks, alg, "js");
    }
}

#[test]
fn trust_pins_the_key_and_a_fresh_key_after_a_restart_is_the_key_changed_alarm() {
    let dir = tempfile::tempdir().unwrap();
    let peer = py10_peer_with(&["--sign", "ES256"]);
    let url = peer.url.clone();
    let cfg = config(dir.path(), &url, "");
    let path = cfg.to_str().unwrap();

    // Not a terminal and no --yes: nothing is written.
    let r = cli_env(&["trust", "--config", path, "peer"], &[]);
    assert_ne!(r.code, 0, "{}", r.all());
    assert!(r.stderr.contains("--yes"), "{}", r.all());
    assert!(!std::fs::read_to_string(&cfg).unwrap().contains("pinned"));

    let r = cli_env(&["trust", "--config", path, "peer", "--yes"], &[]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert!(r.stdout.contains("thumbprint: sha256:"), "{}", r.stdout);
    assert!(r.stdout.contains("algorithm:  ES256"), "{}", r.stdout);
    let written = std::fs::read_to_string(&cfg).unwrap();
    assert!(
        written.starts_with("# my agents"),
        "comments kept: {written}"
    );
    assert!(
        written.contains("[agents.trust]") && written.contains("pinned = ["),
        "{written}"
    );
    let s = signature_json(&cfg);
    assert_eq!(s["state"], "verified", "{s}");
    assert!(
        s["reason"]
            .as_str()
            .unwrap()
            .starts_with("signed by the pinned key"),
        "{s}"
    );

    // The same agent, restarted with a fresh key on the same port.
    let port = url.rsplit(':').next().unwrap().to_string();
    drop(peer);
    let _peer = py10_peer_with(&["--sign", "ES256", "--port", &port]);
    let s = signature_json(&cfg);
    assert_eq!(s["state"], "invalid", "{s}");
    assert!(
        s["reason"].as_str().unwrap().starts_with("key changed"),
        "{s}"
    );
    // And it is not offered for pinning again.
    let r = cli_env(&["trust", "--config", path, "peer", "--yes"], &[]);
    assert_ne!(r.code, 0, "{}", r.all());
    assert!(r.stderr.contains("key changed"), "{}", r.all());
}

#[test]
fn the_demo_agent_signs_its_card_with_a_key_that_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("demo.p8");
    let start = || {
        let mut cmd = Command::new(common::bin());
        cmd.args(["demo-agent", "--port", "0"])
            .env("A2A_CONSOLE_DEMO_KEY", &key);
        spawn_server(cmd, "the demo agent")
    };
    let demo = start();
    let cfg = config(dir.path(), &demo.url, "");
    let first = signature_json(&cfg);
    assert_eq!(
        first["state"], "valid_unpinned",
        "by URL the demo is a stranger: {first}"
    );
    assert_eq!(first["alg"], "ES256");
    assert!(first["kid"].as_str().unwrap().starts_with("demo-"));
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&key).unwrap().permissions().mode() & 0o777,
        0o600
    );
    drop(demo);
    let demo = start();
    let cfg = config(
        dir.path(),
        &demo.url,
        &format!(
            "pinned = [\"sha256:{}\"]",
            first["thumbprint"].as_str().unwrap()
        ),
    );
    let again = signature_json(&cfg);
    assert_eq!(
        again["state"], "verified",
        "the pin still holds after a restart: {again}"
    );
    assert_eq!(again["thumbprint"], first["thumbprint"]);
}

#[tokio::test]
async fn the_console_trusts_the_demo_it_runs_itself() {
    use a2a_console::remote::card::CardFetcher;
    use a2a_console::remote::connect::agent::{AgentTarget, fetch_card};
    let demo = a2a_console::demo::spawn(0).await.unwrap();
    let mut target = AgentTarget::from_url(&demo.base_url(), std::time::Duration::from_secs(10));
    target.trust = a2a_console::demo::signing::in_process_trust();
    let fetcher = CardFetcher::new(std::time::Duration::from_secs(10)).unwrap();
    let card = fetch_card(&target, &fetcher, false).await.unwrap();
    let v = card.signature.unwrap();
    assert_eq!(v.state, SignatureState::Verified, "{}", v.reason);
    assert!(v.reason.contains("embedded demo agent"), "{}", v.reason);
    // Without that in-process trust, the same card is only "valid · not pinned".
    let stranger = AgentTarget::from_url(&demo.base_url(), std::time::Duration::from_secs(10));
    let card = fetch_card(&stranger, &fetcher, true).await.unwrap();
    assert_eq!(card.signature.unwrap().state, SignatureState::ValidUnpinned);
    demo.shutdown().await;
}

/// The console revalidates the card it kept in its store (`If-None-Match`). The Python SDK's ETag leaves
/// `signatures` out, so after the agent restarts with a fresh key it answers 304 and the kept card still
/// carries the old signature, whose `kid` the new JWKS lacks. The user must still see what the agent serves
/// now — the "key changed" alarm — not "no key for kid …" about a card that is no longer served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refresh_after_a_key_rotation_shows_the_key_changed_alarm_despite_a_304() {
    use a2a_console::remote::card::CardFetcher;
    use a2a_console::remote::connect::agent::{AgentTarget, fetch_card};
    let peer = py10_peer_with(&["--sign", "ES256"]);
    let url = peer.url.clone();
    let fetcher = CardFetcher::new(std::time::Duration::from_secs(10)).unwrap();
    let stranger = AgentTarget::from_url(&url, std::time::Duration::from_secs(10));
    let first = fetch_card(&stranger, &fetcher, false).await.unwrap();
    let offer = first
        .signature
        .as_ref()
        .unwrap()
        .detail
        .offer
        .clone()
        .unwrap();
    assert!(first.etag.is_some(), "the SDK sends an ETag");

    // The user pinned that key; the agent restarts on the same port with a fresh one.
    let mut target = stranger.clone();
    target.trust = Trust::default();
    target.trust.pinned = vec![
        offer
            .thumbprint(jsonwebtoken::jwk::ThumbprintHash::SHA256)
            .unwrap(),
    ];
    let port = url.rsplit(':').next().unwrap().to_string();
    drop(peer);
    let _peer = py10_peer_with(&["--sign", "ES256", "--port", &port]);

    // A console started again: its card cache comes from the store (`prime`), its jku cache is empty.
    let restarted = CardFetcher::new(std::time::Duration::from_secs(10)).unwrap();
    restarted.prime(first);
    let card = fetch_card(&target, &restarted, true).await.unwrap();
    let v = card.signature.unwrap();
    assert_eq!(v.state, SignatureState::Invalid, "{}", v.reason);
    assert!(v.reason.starts_with("key changed"), "{}", v.reason);
    assert!(!card.revalidated, "the card judged is the one served now");
}

/// Issue [9] item 2: an agent whose key is pinned (by `trust`), restarted to serve its card without any
/// signature, is the same alarm as a card signed by another key — not a quiet "unsigned": red wording of its
/// own, exit code 7 from `card` with the alarm on stderr. The same for a key configured by `jwks_file`.
#[test]
fn a_pinned_or_configured_agent_whose_card_arrives_unsigned_is_the_signature_removed_alarm() {
    let dir = tempfile::tempdir().unwrap();
    let jwks = dir.path().join("py.jwks");
    let peer = py10_peer_with(&["--sign", "ES256", "--jwks-out", jwks.to_str().unwrap()]);
    let url = peer.url.clone();
    let cfg = config(dir.path(), &url, "");
    let path = cfg.to_str().unwrap();
    let r = cli_env(&["trust", "--config", path, "peer", "--yes"], &[]);
    assert_eq!(r.code, 0, "{}", r.all());
    assert_eq!(signature_json(&cfg)["state"], "verified");

    // The same agent on the same port, now serving its card with no `signatures` at all.
    let port = url.rsplit(':').next().unwrap().to_string();
    drop(peer);
    let _peer = py10_peer_with(&["--port", &port]);
    assert!(!raw_card(&url).contains("\"signatures\""));
    let s = signature_json(&cfg);
    assert_eq!(s["state"], "invalid", "{s}");
    let reason = s["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("signature removed") && reason.contains("pinned key"),
        "{s}"
    );
    let r = cli_env(&["card", "--config", path, "peer"], &[]);
    assert_eq!(r.code, 7, "{}", r.all());
    assert!(
        r.stdout
            .contains("signature:   ✗ signature removed — key pinned"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr.contains("alarm") && r.stderr.contains("signature removed"),
        "{}",
        r.stderr
    );

    // A key configured (`jwks_file`) says the same, in its own words; without any, the card is just unsigned.
    let cfg = config(
        dir.path(),
        &url,
        &format!("jwks_file = {:?}", jwks.to_str().unwrap()),
    );
    let r = cli_env(&["card", "--config", cfg.to_str().unwrap(), "peer"], &[]);
    assert_eq!(r.code, 7, "{}", r.all());
    assert!(
        r.stdout.contains("✗ signature removed — key configured"),
        "{}",
        r.stdout
    );
    let cfg = config(dir.path(), &url, "");
    let s = signature_json(&cfg);
    assert_eq!(s["state"], "unsigned", "{s}");
}
