//! Signed agent cards (spec §8.4: JWS, RFC 7515, over the card's RFC 8785 canonical form): the verdict the
//! console shows, and the pure check that produces it from the card as fetched and the keys we know.
//! `canonical` builds the payload forms, `jws` judges headers and checks one signature, `keys` says which keys
//! are trusted (configured, pinned, the demo's) and fetches a card's `jku` — the only I/O here.
//!
//! Trust: a signature by a key the user configured or pinned makes the card **verified**; one by a key only
//! the card itself points at (`jku`, an embedded `jwk`) proves the card was not changed since that key signed
//! it, nothing more — **valid · key not pinned**, offered for pinning. Once a key is configured or pinned, a
//! card signed only by another key is **invalid: key changed**, never a silent switch, and a card with no
//! signature at all is **invalid: signature removed**, never a quiet "unsigned".

pub mod canonical;
pub mod jws;
pub mod keys;

use std::collections::HashMap;

use jsonwebtoken::jwk::Jwk;
use serde_json::Value;

pub use canonical::Form;
pub use keys::{JkuFetcher, Trust, TrustedKey};

/// The four answers to "who published this card".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignatureState {
    /// A signature checks out with a key the user trusts (configured, pinned, or the embedded demo's).
    Verified,
    /// A signature checks out, but with a key only the card vouches for.
    ValidUnpinned,
    /// Signed, and no signature could be accepted: bad signature, refused algorithm, unreadable header,
    /// unknown key, or a key other than the pinned one.
    Invalid,
    /// No signature at all.
    Unsigned,
}

impl SignatureState {
    /// The name in `card --json`.
    pub fn id(self) -> &'static str {
        match self {
            SignatureState::Verified => "verified",
            SignatureState::ValidUnpinned => "valid_unpinned",
            SignatureState::Invalid => "invalid",
            SignatureState::Unsigned => "unsigned",
        }
    }

    /// The agent list's badge.
    pub fn badge(self) -> &'static str {
        match self {
            SignatureState::Verified => "✓ verified",
            SignatureState::ValidUnpinned => "valid · not pinned",
            SignatureState::Invalid => "✗ invalid",
            SignatureState::Unsigned => "unsigned",
        }
    }
}

/// How the reason of the alarm "another key signed this card" starts.
pub const KEY_CHANGED: &str = "key changed";
/// How the reason of the alarm "the card of an agent whose key is pinned or configured came unsigned" starts.
pub const SIGNATURE_REMOVED: &str = "signature removed";

/// Which key, which algorithm, which form: what the card page and `card --json` show.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SignatureDetail {
    pub kid: Option<String>,
    /// RFC 7638 SHA-256 thumbprint (base64url) of the key that verified.
    pub thumbprint: Option<String>,
    pub alg: Option<String>,
    pub form: Option<Form>,
    /// The key is pinned or configured by the user (or is the embedded demo's).
    pub pinned: bool,
    /// Where the key came from ("jwks_file", "jku https://…", "pinned", …).
    pub key_source: Option<String>,
    /// How many signatures the card carries.
    pub count: usize,
    /// A valid key not yet trusted: what `trust AGENT` and the card page's pin action would pin.
    pub offer: Option<Jwk>,
}

/// The verdict on a card's signatures, carried next to the card.
#[derive(Clone, Debug, PartialEq)]
pub struct SignatureVerdict {
    pub state: SignatureState,
    /// One line saying why (already free of remote control characters).
    pub reason: String,
    pub detail: SignatureDetail,
}

impl SignatureVerdict {
    fn new(state: SignatureState, reason: impl Into<String>, detail: SignatureDetail) -> Self {
        Self {
            state,
            reason: reason.into(),
            detail,
        }
    }

    /// The alarm this verdict raises, if any: the user pinned or configured the key that signs this agent's
    /// card, and the card came signed by another key ([`KEY_CHANGED`]) or with no signature at all
    /// ([`SIGNATURE_REMOVED`]). Audited, red on screen, and a non-zero exit from `card`.
    pub fn alarm(&self) -> Option<&'static str> {
        if self.state != SignatureState::Invalid {
            return None;
        }
        [KEY_CHANGED, SIGNATURE_REMOVED]
            .into_iter()
            .find(|a| self.reason.starts_with(a))
    }

    /// The badge: the state's, or the alarm's own wording for a signature removed from a pinned agent's card.
    pub fn badge(&self) -> &'static str {
        match self.alarm() {
            Some(SIGNATURE_REMOVED) if self.reason.contains("the pinned key") => {
                "✗ signature removed — key pinned"
            }
            Some(SIGNATURE_REMOVED) => "✗ signature removed — key configured",
            _ => self.state.badge(),
        }
    }

    /// Does the card carry any signature (so "unsigned" would be a lie)?
    pub fn is_signed(&self) -> bool {
        self.state != SignatureState::Unsigned
    }

    /// The `"signature"` object of `card --json`.
    pub fn to_json(&self) -> Value {
        let d = &self.detail;
        serde_json::json!({
            "state": self.state.id(),
            "reason": self.reason,
            "kid": d.kid.as_deref().map(crate::remote::error::one_line),
            "alg": d.alg,
            "form": d.form.map(Form::id),
            "thumbprint": d.thumbprint,
            "pinned": d.pinned,
            "key_source": d.key_source,
            "signatures": d.count,
        })
    }

    /// Key, algorithm and form in one line, for the card page and the text of `card`.
    pub fn key_line(&self) -> Option<String> {
        let d = &self.detail;
        let thumb = d.thumbprint.as_deref()?;
        let kid = d
            .kid
            .as_deref()
            .map(|k| format!("kid {} · ", jws_quote(k)))
            .unwrap_or_default();
        Some(format!("{kid}sha256:{thumb}"))
    }
}

/// What to show for a card that may not have been judged yet (a card read from the store before its refresh).
pub fn badge_of(
    v: Option<&SignatureVerdict>,
    signed: bool,
) -> (&'static str, Option<SignatureState>) {
    match v {
        Some(v) => (v.badge(), Some(v.state)),
        None if signed => ("signed · not checked yet", None),
        None => ("unsigned", Some(SignatureState::Unsigned)),
    }
}

/// What fetching each `jku` gave: its keys, or why there are none (refused by the origin rule, down, too
/// big). Keyed by the URL exactly as written in the header.
pub type JkuKeys = HashMap<String, Result<Vec<Jwk>, String>>;

/// The signature entries of a raw card: `(protected, signature, header)` as written.
pub(crate) fn entries(card: &Value) -> Vec<(Option<&str>, Option<&str>, Option<&Value>)> {
    card.get("signatures")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .map(|s| {
                    (
                        s.get("protected").and_then(Value::as_str),
                        s.get("signature").and_then(Value::as_str),
                        s.get("header"),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// One signature's outcome.
enum Outcome {
    Valid {
        detail: Box<SignatureDetail>,
        trusted: bool,
    },
    Invalid(String),
}

/// Judge the card's signatures. `raw` is the card as fetched; `jku` what its `jku` URLs served. Pure.
pub fn verify_raw(raw: &str, trust: &Trust, jku: &JkuKeys) -> SignatureVerdict {
    let card: Value = match serde_json::from_str(raw) {
        Ok(v) => v,
        Err(_) => {
            return SignatureVerdict::new(
                SignatureState::Invalid,
                "the card as fetched is not JSON",
                SignatureDetail::default(),
            );
        }
    };
    verify_value(&card, trust, jku)
}

/// [`verify_raw`] on a parsed card.
pub fn verify_value(card: &Value, trust: &Trust, jku: &JkuKeys) -> SignatureVerdict {
    let list = entries(card);
    let count = list.len();
    if count == 0 {
        let reason = if card.get("signatures").is_some_and(|s| !s.is_array()) {
            return SignatureVerdict::new(
                SignatureState::Invalid,
                "`signatures` is not a list",
                SignatureDetail::default(),
            );
        } else if trust.has_expectation() {
            // The user said which key signs this agent's card: a card without any signature is the same
            // alarm as one signed by another key (stripping the signature must not downgrade to "unsigned").
            return SignatureVerdict::new(
                SignatureState::Invalid,
                format!(
                    "{SIGNATURE_REMOVED}: the card carries no signature, but the {} key signs this agent's card",
                    trust.expectation_name()
                ),
                SignatureDetail::default(),
            );
        } else {
            "the card carries no signature"
        };
        return SignatureVerdict::new(SignatureState::Unsigned, reason, SignatureDetail::default());
    }
    // Each form is computed once, whatever the number of signatures and keys.
    let payloads: Vec<(Form, Result<Vec<u8>, String>)> = Form::ALL
        .iter()
        .map(|f| (*f, canonical::payload(card, *f)))
        .collect();
    let outcomes: Vec<Outcome> = list
        .iter()
        .map(|(p, s, h)| match (p, s) {
            (Some(p), Some(s)) => check_one(p, s, *h, &payloads, trust, jku),
            _ => Outcome::Invalid("needs string fields `protected` and `signature`".into()),
        })
        .collect();
    let of = |i: usize| {
        if count > 1 {
            format!(" (signature {} of {count})", i + 1)
        } else {
            String::new()
        }
    };
    let with_count = |mut d: SignatureDetail| {
        d.count = count;
        d
    };
    let trusted = outcomes.iter().enumerate().find_map(|(i, o)| match o {
        Outcome::Valid {
            detail,
            trusted: true,
        } => Some((i, detail)),
        _ => None,
    });
    if let Some((i, d)) = trusted {
        let source = d.key_source.clone().unwrap_or_default();
        return SignatureVerdict::new(
            SignatureState::Verified,
            format!("signed by {source}{}", of(i)),
            with_count((**d).clone()),
        );
    }
    let untrusted = outcomes.iter().enumerate().find_map(|(i, o)| match o {
        Outcome::Valid { detail, .. } => Some((i, detail)),
        _ => None,
    });
    if let Some((i, d)) = untrusted {
        let thumb = d.thumbprint.clone().unwrap_or_default();
        if trust.has_expectation() {
            // The alarm: the user said which key signs this agent's card, and another one did.
            let mut d = with_count((**d).clone());
            d.offer = None;
            return SignatureVerdict::new(
                SignatureState::Invalid,
                format!(
                    "{KEY_CHANGED}: signed by key {thumb}, not by the {} key{}",
                    trust.expectation_name(),
                    of(i)
                ),
                d,
            );
        }
        let source = d.key_source.clone().unwrap_or_default();
        return SignatureVerdict::new(
            SignatureState::ValidUnpinned,
            format!("valid signature by a key not pinned ({source}){}", of(i)),
            with_count((**d).clone()),
        );
    }
    let first = outcomes
        .iter()
        .enumerate()
        .find_map(|(i, o)| match o {
            Outcome::Invalid(r) => Some(format!("{r}{}", of(i))),
            Outcome::Valid { .. } => None,
        })
        .unwrap_or_default();
    let reason = if count > 1 {
        format!("none of {count} signatures verifies; {first}")
    } else {
        first
    };
    SignatureVerdict::new(
        SignatureState::Invalid,
        reason,
        with_count(SignatureDetail::default()),
    )
}

/// A key we may try for one signature, and whether the user trusts it.
struct Candidate<'a> {
    jwk: &'a Jwk,
    source: String,
    trusted: bool,
}

fn check_one(
    protected: &str,
    signature: &str,
    unprotected: Option<&Value>,
    payloads: &[(Form, Result<Vec<u8>, String>)],
    trust: &Trust,
    jku: &JkuKeys,
) -> Outcome {
    let header = match jws::parse_header(protected, unprotected) {
        Ok(h) => h,
        Err(e) => return Outcome::Invalid(e),
    };
    let kid_fits = |k: &Jwk| match (&header.kid, &k.common.key_id) {
        (Some(want), Some(have)) => want == have,
        _ => true,
    };
    let mut candidates: Vec<Candidate> = trust
        .keys
        .iter()
        .filter(|k| kid_fits(&k.jwk))
        .map(|k| Candidate {
            jwk: &k.jwk,
            source: k.source.clone(),
            trusted: true,
        })
        .collect();
    let mut jku_problem = None;
    if let Some(url) = &header.jku {
        match jku.get(url) {
            Some(Ok(set)) => {
                // In a set, `kid` is how the signer names its key: with one given, only that key (and keys that
                // carry no kid at all) are tried.
                let shown = crate::remote::error::one_line(url);
                candidates.extend(
                    set.iter()
                        .filter(|k| {
                            header.kid.is_none()
                                || k.common.key_id.is_none()
                                || k.common.key_id == header.kid
                        })
                        .map(|k| pinned_or(trust, k, format!("jku {shown}"))),
                );
            }
            Some(Err(e)) => jku_problem = Some(e.clone()),
            None => jku_problem = Some("the jku was not fetched".into()),
        }
    }
    if let Some(k) = &header.jwk {
        candidates.push(pinned_or(trust, k, "the key embedded in the header".into()));
    }
    if candidates.is_empty() {
        let kid = header
            .kid
            .as_deref()
            .map(|k| format!(" {}", jws_quote(k)))
            .unwrap_or_default();
        return Outcome::Invalid(match jku_problem {
            Some(p) => format!("no key for kid{kid}: {p}"),
            None => format!("no key for kid{kid} (configure [agents.trust] or serve a jku)"),
        });
    }
    let mut last = String::from("signature does not match the card");
    // Trusted keys first, so a card signed by both a pinned and an unpinned key is "verified".
    candidates.sort_by_key(|c| !c.trusted);
    for c in &candidates {
        for (form, payload) in payloads {
            let Ok(payload) = payload else { continue };
            match jws::verify(protected, signature, payload, c.jwk, &header) {
                Ok(true) => {
                    let detail = SignatureDetail {
                        kid: header.kid.clone().or_else(|| c.jwk.common.key_id.clone()),
                        thumbprint: jws::thumbprint(c.jwk),
                        alg: Some(header.alg_name.clone()),
                        form: Some(*form),
                        pinned: c.trusted,
                        key_source: Some(c.source.clone()),
                        count: 0,
                        offer: (!c.trusted).then(|| c.jwk.clone()),
                    };
                    return Outcome::Valid {
                        detail: Box::new(detail),
                        trusted: c.trusted,
                    };
                }
                Ok(false) => {}
                Err(e) => {
                    last = e;
                    break;
                }
            }
        }
    }
    if let (Some(p), true) = (jku_problem, candidates.iter().all(|c| c.trusted)) {
        last = format!("{last}; jku: {p}");
    }
    Outcome::Invalid(last)
}

/// A key the card pointed at: trusted only when its thumbprint is pinned.
fn pinned_or<'a>(trust: &Trust, jwk: &'a Jwk, via: String) -> Candidate<'a> {
    let trusted = trust.is_pinned(jwk);
    Candidate {
        jwk,
        source: if trusted {
            format!("the pinned key (from {via})")
        } else {
            via
        },
        trusted,
    }
}

/// A header value the agent chose (a `kid`), sanitised and cut to 40 bytes, in quotes.
pub fn jws_quote(s: &str) -> String {
    let (t, _) = crate::trust::sanitize::sanitize_line(s);
    let cut = crate::trust::sanitize::floor_char_boundary(&t, 40);
    format!("\"{}\"", t.get(..cut).unwrap_or_default())
}

#[cfg(test)]
pub(crate) mod verify_tests;
