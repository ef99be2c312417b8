//! The lenient card-reading rules in one place: which shapes of agent card we accept, how we label them, which
//! interfaces the console can call, and what we warn about. `normalize` applies them while rewriting a card
//! into the v1.0 shape; `client::select_interface_within` chooses among the interfaces they call usable; the
//! tests for all of them are in `rules/tests.rs`.
//!
//! A user exploring partner agents must always *see* a card, even one the console cannot call: every rule
//! below degrades to a warning, never to "no card". Only a document that is not a JSON object, not JSON at all,
//! HTML, or JSON with none of an agent card's fields (a `package.json` served by mistake) is refused.
//!
//! | what the card has | how we read it | label | warning |
//! |---|---|---|---|
//! | `supportedInterfaces`, no top-level `url`/`preferredTransport` | as is | v1.0 | none |
//! | `url` (+ `preferredTransport`, `additionalInterfaces`, `protocolVersion`), no `supportedInterfaces` | interfaces from the legacy fields, version `protocolVersion` | v0.3 | none (0.2.x: see below) |
//! | both, with v1.0-only fields elsewhere (wrapped schemes, `capabilities.extendedAgentCard`, `securityRequirements`): the Python SDK's `--with-v03` card | v1.0 interfaces first, then the legacy ones | v1.0 + v0.3 (hybrid) | none |
//! | both, with nothing else of v1.0 but v0.3-only fields (flat schemes, `supportsAuthenticatedExtendedCard`, `security`): the card `@a2a-js/sdk` 1.3.0 serves a client that sends no `A2A-Version` | as a v0.3 card whose `supportedInterfaces` are used too | v0.3 | says so |
//! | both, and nothing else either way | as the hybrid | v1.0 + v0.3 (hybrid) | none |
//! | neither | no interfaces: the agent is "card only" | v1.0 if v1.0-only fields show, v0.3 if v0.3-only ones do, else undetermined | no interfaces |
//! | `authentication` instead of `securitySchemes`, no `protocolVersion` | an A2A 0.1 card: its interfaces get version 0.1, which we do not speak (0.1 used `tasks/send`) | v0.1 | says so |
//! | interface binding not `JSONRPC`/`HTTP+JSON`/`GRPC` (case-insensitive matches are fixed) | kept, not usable | — | unknown binding |
//! | interface `protocolVersion` 1.x | usable | — | none |
//! | 0.3 over JSON-RPC | usable (our 0.3 transport, `wire::v03`) | — | none |
//! | 0.2.x over JSON-RPC | usable as 0.3: the JSON-RPC wire (`message/send`, `tasks/get` …) is the same | — | "spoken as 0.3" |
//! | 0.3 over HTTP+JSON | usable (`wire::v03_rest`) | — | none |
//! | 0.3 over gRPC, 0.2.x over HTTP+JSON or gRPC | kept, not usable (see [`interface_use`]) | — | not supported |
//! | any other version | kept, not usable | — | version we do not speak |
//! | security scheme: v1.0 wrapper, flat v0.3 `type` (`apiKey`/`http`/`oauth2`/`openIdConnect`/`mutualTLS`), or the JS SDK's internal `{"scheme": {"$case", "value"}}` | read | — | the JS shape and several OAuth flows are noted |
//! | a string where a list of strings belongs; a number or boolean where a string belongs | read as a one-item list / as text | — | says so |
//! | a single object where a list of interfaces belongs | read as a one-item list | — | says so |
//!
//! Every warning that quotes card text goes through [`quote`] (sanitised, one line, bounded), and `normalize`
//! sanitises each warning as a whole once more when it records it.

use a2a::AgentCard;
use serde_json::{Map, Value};

use crate::config::protocol::{Preferences, ProtocolChoice, major_minor};
use crate::trust::sanitize::sanitize_line;

/// The bindings a card may name that the console has transports for (the card's exact spelling).
pub const KNOWN_BINDINGS: &[&str] = &[
    a2a::TRANSPORT_PROTOCOL_JSONRPC,
    a2a::TRANSPORT_PROTOCOL_HTTP_JSON,
    a2a::TRANSPORT_PROTOCOL_GRPC,
];

/// How much of a remote value a warning quotes.
const QUOTE_CHARS: usize = 60;

/// A remote value for a warning: sanitised to one line, cut to [`QUOTE_CHARS`], in quotes.
pub fn quote(raw: &str) -> String {
    let (clean, _) = sanitize_line(raw);
    let mut out: String = clean.chars().take(QUOTE_CHARS).collect();
    if clean.chars().count() > QUOTE_CHARS {
        out.push('…');
    }
    format!("\"{out}\"")
}

/// Which protocol generation the card's shape belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CardShape {
    V1,
    V03,
    /// v1.0 `supportedInterfaces` plus v0.3 top-level fields (what SDK servers with 0.3 compat publish).
    Hybrid,
    /// An A2A 0.1 card (`authentication`, no `protocolVersion`).
    V01,
    /// No interfaces and nothing else that tells the generations apart.
    Undetermined,
}

impl CardShape {
    pub fn label(self) -> &'static str {
        match self {
            CardShape::V1 => "v1.0",
            CardShape::V03 => "v0.3",
            CardShape::Hybrid => "v1.0 + v0.3 (hybrid)",
            CardShape::V01 => "v0.1",
            CardShape::Undetermined => "undetermined",
        }
    }
}

/// v1.0 wrapper keys of the `SecurityScheme` oneof.
pub const SCHEME_KEYS: &[&str] = &[
    "apiKeySecurityScheme",
    "httpAuthSecurityScheme",
    "oauth2SecurityScheme",
    "openIdConnectSecurityScheme",
    "mtlsSecurityScheme",
];

/// Top-level keys only a v0.3 (or older) card has that describe where the agent is.
pub fn has_legacy_endpoint(src: &Map<String, Value>) -> bool {
    src.contains_key("url") || src.contains_key("preferredTransport")
}

/// Fields only the v1.0 shape has, besides `supportedInterfaces`: wrapped security schemes (also the JS SDK's
/// internal `$case` form), `capabilities.extendedAgentCard`, `securityRequirements` on the card or a skill.
fn has_v1_only_fields(src: &Map<String, Value>) -> bool {
    let wrapped_scheme = src
        .get("securitySchemes")
        .and_then(Value::as_object)
        .is_some_and(|m| {
            m.values().any(|s| {
                SCHEME_KEYS.iter().any(|k| s.get(*k).is_some())
                    || s.get("scheme").and_then(|x| x.get("$case")).is_some()
            })
        });
    let extended = src
        .get("capabilities")
        .is_some_and(|c| c.get("extendedAgentCard").is_some());
    let skill_reqs = src
        .get("skills")
        .and_then(Value::as_array)
        .is_some_and(|l| l.iter().any(|s| s.get("securityRequirements").is_some()));
    wrapped_scheme || extended || src.contains_key("securityRequirements") || skill_reqs
}

/// Fields only the v0.3 shape has besides its endpoint fields and `protocolVersion` (which hybrid cards carry
/// too): flat security schemes, `supportsAuthenticatedExtendedCard`, `security`.
fn has_v03_only_fields(src: &Map<String, Value>) -> bool {
    let flat_scheme = src
        .get("securitySchemes")
        .and_then(Value::as_object)
        .is_some_and(|m| m.values().any(|s| s.get("type").is_some()));
    flat_scheme
        || src.contains_key("supportsAuthenticatedExtendedCard")
        || src.contains_key("security")
}

/// An A2A 0.1 card: it described credentials in `authentication`, had no `securitySchemes` and no
/// `protocolVersion`. Its JSON-RPC methods (`tasks/send`, `tasks/sendSubscribe`) are not 0.2's or 0.3's.
pub fn is_v01(src: &Map<String, Value>) -> bool {
    src.contains_key("authentication")
        && !src.contains_key("securitySchemes")
        && !src.contains_key("protocolVersion")
        && !src.contains_key("supportedInterfaces")
}

/// The card's shape, from which fields it carries (see the table above).
pub fn classify_shape(src: &Map<String, Value>) -> CardShape {
    let v1_interfaces = src.contains_key("supportedInterfaces");
    let legacy = has_legacy_endpoint(src);
    match (v1_interfaces, legacy) {
        _ if is_v01(src) => CardShape::V01,
        (true, false) => CardShape::V1,
        // Both sets of endpoint fields: v0.3 unless the card shows nothing *but* v0.3 elsewhere (spec digest
        // §12.3 says SDK servers merge the legacy fields into a v1.0 card).
        (true, true) if has_v1_only_fields(src) || !has_v03_only_fields(src) => CardShape::Hybrid,
        (true, true) | (false, true) => CardShape::V03,
        (false, false) if has_v1_only_fields(src) => CardShape::V1,
        (false, false) if has_v03_only_fields(src) || src.contains_key("protocolVersion") => {
            CardShape::V03
        }
        (false, false) => CardShape::Undetermined,
    }
}

/// Keys that make a JSON object an agent card (one is enough; `name`, `version`, `description` and `url` are
/// in every `package.json`-like document too, so they do not count).
const CARD_KEYS: &[&str] = &[
    "supportedInterfaces",
    "capabilities",
    "skills",
    "protocolVersion",
    "preferredTransport",
    "additionalInterfaces",
    "defaultInputModes",
    "defaultOutputModes",
    "securitySchemes",
];

/// `Err(why)` when a JSON object has none of an agent card's own fields: another document served at the card's
/// address (a `package.json`, an API's index), not a card with mistakes.
pub fn looks_like_a_card(src: &Map<String, Value>) -> Result<(), String> {
    if CARD_KEYS.iter().any(|k| src.contains_key(*k)) {
        return Ok(());
    }
    let keys: Vec<String> = src.keys().take(6).map(|k| quote(k)).collect();
    let more = src.len().saturating_sub(keys.len());
    Err(format!(
        "it is JSON but not an agent card: none of capabilities, skills, supportedInterfaces, protocolVersion \
         (its keys: {}{})",
        if keys.is_empty() {
            "none".to_string()
        } else {
            keys.join(", ")
        },
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    ))
}

/// Whether the console can call one interface, and what to say about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InterfaceUse {
    /// Usable; `note` is said on the card when how it is used deserves a word.
    Usable { note: Option<String> },
    /// Listed on the card but not callable: a short reason (the agent list's width) and a sentence.
    Unusable { short: &'static str, why: String },
}

impl InterfaceUse {
    pub fn is_usable(&self) -> bool {
        matches!(self, InterfaceUse::Usable { .. })
    }
}

/// The usability rule for one interface, from the card's binding and version strings.
///
/// `client::select_interface_within` applies the same rule when it chooses (the tests check that the two
/// agree on every combination); this function is where the card's warnings and the console's notes come from.
pub fn interface_use(binding: &str, version: &str) -> InterfaceUse {
    if !KNOWN_BINDINGS.contains(&binding) {
        return InterfaceUse::Unusable {
            short: "unknown binding",
            why: format!(
                "binding {} is not one the console speaks (JSONRPC, HTTP+JSON, GRPC); this interface is not used",
                quote(binding)
            ),
        };
    }
    let Ok(protocol) = ProtocolChoice::parse(version) else {
        return InterfaceUse::Unusable {
            short: "protocol version not spoken",
            why: format!(
                "protocol version {} is not one the console speaks (1.x, 0.3, 0.2.x); this interface is not used",
                quote(version)
            ),
        };
    };
    let legacy = protocol == ProtocolChoice::V03;
    // The one place that says which old-protocol bindings are not usable (`select_interface_within` skips the
    // same): 0.3 is spoken over JSON-RPC (`wire::v03`) and HTTP+JSON (`wire::v03_rest`), not over gRPC (its
    // 0.3 proto is another service); 0.2.x only over JSON-RPC, the one wire it shares with 0.3.
    let pre_03 = major_minor(version).is_some_and(|(maj, min)| maj == 0 && min < 3);
    if legacy
        && (binding == a2a::TRANSPORT_PROTOCOL_GRPC
            || (pre_03 && binding != a2a::TRANSPORT_PROTOCOL_JSONRPC))
    {
        return InterfaceUse::Unusable {
            short: "old protocol over this binding",
            why: format!(
                "protocol {} over {binding} is not supported (0.3 is spoken over JSONRPC and HTTP+JSON, 0.2.x \
                 over JSONRPC only); this interface is not used",
                quote(version)
            ),
        };
    }
    let note = (legacy && pre_03).then(|| {
        format!(
            "protocol {} is spoken as 0.3: same JSON-RPC wire",
            quote(version)
        )
    });
    InterfaceUse::Usable { note }
}

/// Why no interface of a normalised card can be used with these preferences, in a few words for the agent list.
pub fn card_only_summary(card: &AgentCard, prefs: Preferences) -> String {
    if card.supported_interfaces.is_empty() {
        return "the card lists no interfaces".into();
    }
    let verdicts: Vec<InterfaceUse> = card
        .supported_interfaces
        .iter()
        .map(|i| interface_use(&i.protocol_binding, &i.protocol_version))
        .collect();
    if verdicts.iter().any(InterfaceUse::is_usable) {
        return match (prefs.binding, prefs.protocol) {
            (Some(b), None) => format!("no interface with binding {}", b.wire_name()),
            (None, Some(p)) => format!("no interface with protocol {}", p.label()),
            (Some(b), Some(p)) => format!("no {} {} interface", b.wire_name(), p.label()),
            (None, None) => "no usable interface".into(),
        };
    }
    let mut shorts: Vec<&str> = verdicts
        .iter()
        .filter_map(|v| match v {
            InterfaceUse::Unusable { short, .. } => Some(*short),
            InterfaceUse::Usable { .. } => None,
        })
        .collect();
    shorts.sort_unstable();
    shorts.dedup();
    match shorts.as_slice() {
        [one] => format!("only: {one}"),
        _ => "no usable interface".into(),
    }
}

#[cfg(test)]
mod tests;
