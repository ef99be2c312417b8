//! The signature verdict where the user sees it: the agent list's badge (coloured by state), the card page's
//! key / algorithm / form / pinned lines, and trust on first use from the card page (`P`, a confirm dialog
//! showing the thumbprint, then the pin and a fresh check). The verdicts come from the real verifier over a
//! card signed here with a fresh ES256 key.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use a2a_console::app::agent::Reachability;
use a2a_console::app::msg::Effect;
use a2a_console::app::state::{App, Overlay};
use a2a_console::remote::connect::agent::AgentTarget;
use a2a_console::remote::signature::{self, Form, JkuKeys, SignatureState, Trust, canonical, jws};
use a2a_console::testing::keys::char_key as key;
use a2a_console::testing::{DEMO_CARD, add_online, empty_app, render_text};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey};
use serde_json::{Value, json};

const JKU: &str = "http://127.0.0.1:9/.well-known/jwks.json";

/// DEMO_CARD signed with a fresh ES256 key (kid "k1", jku on its origin): the raw card and the public key.
fn signed_card() -> (String, Jwk) {
    let kp = rcgen::KeyPair::generate_for(&rcgen::PKCS_ECDSA_P256_SHA256).unwrap();
    let enc = EncodingKey::from_ec_der(&kp.serialize_der());
    let mut jwk = Jwk::from_encoding_key(&enc, Algorithm::ES256).unwrap();
    jwk.common.key_id = Some("k1".into());
    let mut card: Value = serde_json::from_str(DEMO_CARD).unwrap();
    let protected = URL_SAFE_NO_PAD.encode(
        serde_json::to_vec(&json!({"alg": "ES256", "kid": "k1", "typ": "JOSE", "jku": JKU}))
            .unwrap(),
    );
    let payload = canonical::payload(&card, Form::Spec).unwrap();
    let input = format!("{protected}.{}", URL_SAFE_NO_PAD.encode(payload));
    let sig = jsonwebtoken::crypto::sign(input.as_bytes(), &enc, Algorithm::ES256).unwrap();
    card["signatures"] = json!([{"protected": protected, "signature": sig}]);
    (card.to_string(), jwk)
}

/// An app with one agent whose card is `raw`, judged with `trust` (the jku served `jwk`).
fn app_with(raw: &str, jwk: &Jwk, trust: Trust) -> App {
    let mut app = empty_app((110, 32));
    let mut target = AgentTarget::from_url("http://127.0.0.1:9", Duration::from_secs(5));
    target.label = "weather".into();
    target.trust = trust.clone();
    let id = add_online(&mut app, target, "weather", raw);
    let verdict = signature::verify_raw(
        raw,
        &trust,
        &JkuKeys::from([(JKU.to_string(), Ok(vec![jwk.clone()]))]),
    );
    if let Some(Reachability::Online(info)) = app.agent_mut(id).map(|a| &mut a.state) {
        info.card.signature = Some(verdict);
    }
    app
}

fn verdict(app: &App) -> signature::SignatureVerdict {
    app.selected()
        .unwrap()
        .info()
        .unwrap()
        .card
        .signature
        .clone()
        .unwrap()
}

fn snap(name: &str, app: &App) {
    let text = render_text(app);
    insta::with_settings!({filters => vec![(r"[A-Za-z0-9_-]{43}", "[thumbprint]"), (r"\d{2}:\d{2}:\d{2}", "[time]")]}, {
        insta::assert_snapshot!(name, text);
    });
}

/// The style of the first cell of the rendered screen that starts `needle`.
fn style_of(app: &App, needle: &str) -> ratatui::style::Style {
    let backend = ratatui::backend::TestBackend::new(app.size.0, app.size.1);
    let mut term = ratatui::Terminal::new(backend).unwrap();
    term.draw(|f| a2a_console::ui::draw(f, app)).unwrap();
    let buf = term.backend().buffer().clone();
    let width = buf.area.width as usize;
    let cells: Vec<_> = buf.content.iter().collect();
    let text: Vec<String> = cells.iter().map(|c| c.symbol().to_string()).collect();
    for (i, _) in text.iter().enumerate() {
        let rest: String = text[i..(i + needle.chars().count()).min(text.len())].concat();
        if rest == needle && i % width + needle.chars().count() <= width {
            return cells[i].style();
        }
    }
    panic!("{needle:?} not on screen:\n{}", render_text(app));
}

fn fg(s: ratatui::style::Style) -> ratatui::style::Color {
    s.fg.unwrap_or(ratatui::style::Color::Reset)
}

#[test]
fn verified_card_shows_the_green_badge_and_which_key_algorithm_and_form() {
    let (raw, jwk) = signed_card();
    let app = app_with(
        &raw,
        &jwk,
        Trust::in_process(jwk.clone(), "the key in jwks_file weather.jwks"),
    );
    assert_eq!(verdict(&app).state, SignatureState::Verified);
    let text = render_text(&app);
    assert!(text.contains("✓ verified"), "{text}");
    assert!(
        text.contains("canonical     spec (RFC 8785, fields as present)"),
        "{text}"
    );
    assert!(text.contains("pinned        yes"), "{text}");
    assert_eq!(fg(style_of(&app, "✓ verified")), fg(app.theme.ok));
    snap("signature_verified", &app);
}

#[test]
fn valid_but_unpinned_card_offers_the_key_and_p_pins_it_after_a_yes() {
    let (raw, jwk) = signed_card();
    let mut app = app_with(&raw, &jwk, Trust::default());
    let v = verdict(&app);
    assert_eq!(v.state, SignatureState::ValidUnpinned);
    let thumb = jws::thumbprint(&jwk).unwrap();
    assert_eq!(
        fg(style_of(&app, "valid · not pinned")),
        fg(app.theme.warning)
    );
    assert!(
        render_text(&app).contains("P pins this key"),
        "{}",
        render_text(&app)
    );
    snap("signature_unpinned", &app);

    assert!(key(&mut app, 'P').is_empty());
    match &app.overlay {
        Some(Overlay::ConfirmPinKey {
            thumbprint,
            kid,
            alg,
            ..
        }) => {
            assert_eq!(thumbprint, &thumb);
            assert_eq!(kid.as_deref(), Some("k1"));
            assert_eq!(alg, "ES256");
        }
        _ => panic!("no pin dialog:\n{}", render_text(&app)),
    }
    let text = render_text(&app);
    assert!(
        text.contains(&format!("sha256:{thumb}")),
        "the dialog shows the thumbprint: {text}"
    );
    snap("signature_pin_dialog", &app);

    let fx = key(&mut app, 'y');
    assert!(app.overlay.is_none());
    assert!(fx.iter().any(|e| matches!(e, Effect::PinKeyInConfig { thumbprint, url } if thumbprint == &thumb && url == "http://127.0.0.1:9")), "{fx:?}");
    let reload = fx.iter().find_map(|e| match e {
        Effect::LoadAgent {
            target,
            refresh: true,
            ..
        } => Some(target.clone()),
        _ => None,
    });
    let target = reload.expect("the card is judged again");
    assert_eq!(target.trust.pinned, vec![thumb.clone()]);
    // Judged again with the pin, the same card is verified.
    let again = signature::verify_raw(
        &raw,
        &target.trust,
        &JkuKeys::from([(JKU.to_string(), Ok(vec![jwk]))]),
    );
    assert_eq!(again.state, SignatureState::Verified, "{}", again.reason);
}

#[test]
fn a_key_change_is_a_red_alarm_and_never_offered_for_pinning() {
    let (raw, jwk) = signed_card();
    let (_, other) = signed_card();
    let pinned = Trust {
        pinned: vec![jws::thumbprint(&other).unwrap()],
        ..Trust::default()
    };
    let mut app = app_with(&raw, &jwk, pinned);
    let v = verdict(&app);
    assert_eq!(v.state, SignatureState::Invalid);
    assert!(v.reason.starts_with("key changed"), "{}", v.reason);
    assert_eq!(fg(style_of(&app, "✗ invalid")), fg(app.theme.error));
    snap("signature_key_changed", &app);
    assert!(key(&mut app, 'P').is_empty());
    assert!(app.overlay.is_none(), "no pin dialog for a changed key");
    assert!(
        render_text(&app).contains("no valid signature to pin"),
        "{}",
        render_text(&app)
    );
}

#[test]
fn an_unchecked_signed_card_never_looks_verified() {
    let (raw, _) = signed_card();
    let mut app = empty_app((110, 32));
    let target = AgentTarget::from_url("http://127.0.0.1:9", Duration::from_secs(5));
    add_online(&mut app, target, "weather", &raw);
    let text = render_text(&app);
    assert!(text.contains("signed · not checked yet"), "{text}");
    assert!(!text.contains("verified"), "{text}");
    assert_eq!(
        fg(style_of(&app, "signed · not checked yet")),
        fg(app.theme.dim)
    );
}

/// Issue [9] item 2: the card of an agent whose key is pinned arrives with no signature at all — red, in
/// words of its own, in the agent list and on the card page, and nothing offered for pinning.
#[test]
fn a_pinned_agent_whose_card_has_no_signature_is_a_red_alarm() {
    let (_, jwk) = signed_card();
    let pinned = Trust {
        pinned: vec![jws::thumbprint(&jwk).unwrap()],
        ..Trust::default()
    };
    let mut app = app_with(DEMO_CARD, &jwk, pinned);
    let v = verdict(&app);
    assert_eq!(v.state, SignatureState::Invalid);
    assert_eq!(v.alarm(), Some("signature removed"));
    let text = render_text(&app);
    // In the agent list (cut to its width) and, whole, on the card page.
    assert!(text.contains("│  ✗ signature removed"), "{text}");
    assert!(
        text.contains("signature       ✗ signature removed — key pinned"),
        "{text}"
    );
    assert!(!text.contains("unsigned"), "{text}");
    assert_eq!(
        fg(style_of(&app, "✗ signature removed")),
        fg(app.theme.error)
    );
    assert!(key(&mut app, 'P').is_empty());
    assert!(app.overlay.is_none(), "nothing to pin");
}
