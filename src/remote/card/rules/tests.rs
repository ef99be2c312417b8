//! Tests for the card-reading rules (`card::rules`) and the rewriting that applies them (`normalize`): every row
//! of the rules table, plus the agreement between `interface_use` and `client::select_interface`.

use serde_json::json;
use url::Url;

use super::*;
use crate::config::protocol::Binding;
use crate::remote::card::normalize::{Normalized, normalize};
use crate::remote::connect::select_interface;

fn url(s: &str) -> Url {
    Url::parse(s).unwrap()
}

fn to_card(n: &Normalized) -> a2a::AgentCard {
    serde_json::from_value(n.card.clone()).unwrap()
}

#[test]
fn v1_card_passes_through_without_warnings() {
    let raw = json!({
        "name": "A", "description": "d", "version": "1",
        "supportedInterfaces": [{"url": "http://127.0.0.1:9/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "S", "description": "x", "tags": ["t"]}]
    });
    let n = normalize(
        &raw,
        Some(&url("http://127.0.0.1:9/.well-known/agent-card.json")),
    )
    .unwrap();
    assert_eq!(n.shape, CardShape::V1);
    assert!(n.warnings.is_empty(), "{:?}", n.warnings);
    let card = to_card(&n);
    assert_eq!(card.supported_interfaces[0].protocol_version, "1.0");
    assert_eq!(card.capabilities.streaming, Some(true));
}

#[test]
fn v03_card_becomes_v1_interfaces_and_schemes() {
    let raw = json!({
        "name": "Old", "description": "d", "version": "0.1", "protocolVersion": "0.3.0",
        "url": "http://127.0.0.1:7/", "preferredTransport": "JSONRPC",
        "additionalInterfaces": [{"url": "http://127.0.0.1:7/rest", "transport": "HTTP+JSON"}],
        "supportsAuthenticatedExtendedCard": true,
        "capabilities": {"streaming": true, "stateTransitionHistory": false},
        "defaultInputModes": ["text"], "defaultOutputModes": ["text"],
        "securitySchemes": {
            "key": {"type": "apiKey", "in": "header", "name": "X-Key"},
            "bearer": {"type": "http", "scheme": "bearer"},
            "oauth": {"type": "oauth2", "flows": {
                "clientCredentials": {"tokenUrl": "https://a/t", "scopes": {"r": "read"}},
                "authorizationCode": {"authorizationUrl": "https://a/a", "tokenUrl": "https://a/t", "scopes": {}}
            }}
        },
        "security": [{"bearer": []}],
        "skills": [{"id": "s", "name": "S", "description": "x", "tags": [], "security": [{"key": []}]}]
    });
    let n = normalize(
        &raw,
        Some(&url("http://127.0.0.1:7/.well-known/agent-card.json")),
    )
    .unwrap();
    assert_eq!(n.shape, CardShape::V03);
    let card = to_card(&n);
    assert_eq!(card.supported_interfaces.len(), 2);
    assert_eq!(card.supported_interfaces[0].protocol_version, "0.3.0");
    assert_eq!(card.supported_interfaces[1].protocol_binding, "HTTP+JSON");
    assert_eq!(card.capabilities.extended_agent_card, Some(true));
    let schemes = card.security_schemes.unwrap();
    assert!(matches!(schemes["key"], a2a::SecurityScheme::ApiKey(_)));
    assert!(matches!(schemes["oauth"], a2a::SecurityScheme::OAuth2(_)));
    assert!(
        n.warnings
            .iter()
            .any(|w| w.message.contains("several flows"))
    );
    assert_eq!(
        card.security_requirements.unwrap()[0]["bearer"],
        Vec::<String>::new()
    );
    assert!(card.skills[0].security_requirements.is_some());
}

#[test]
fn hybrid_card_lists_v1_interfaces_first_and_legacy_url_as_03() {
    let raw = json!({
        "name": "H", "description": "d", "version": "1",
        "supportedInterfaces": [{"url": "http://127.0.0.1:5/a2a/v1", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "url": "http://127.0.0.1:5/a2a/v03", "preferredTransport": "JSONRPC", "protocolVersion": "0.3.0",
        "capabilities": {}, "defaultInputModes": [], "defaultOutputModes": [], "skills": []
    });
    let n = normalize(&raw, None).unwrap();
    assert_eq!(n.shape, CardShape::Hybrid);
    let card = to_card(&n);
    assert_eq!(card.supported_interfaces.len(), 2);
    assert_eq!(card.supported_interfaces[0].protocol_version, "1.0");
    assert_eq!(
        card.supported_interfaces[1].url,
        "http://127.0.0.1:5/a2a/v03"
    );
    assert_eq!(card.supported_interfaces[1].protocol_version, "0.3.0");
}

#[test]
fn unknown_scheme_is_dropped_with_a_warning_not_the_card() {
    let raw = json!({
        "name": "U", "description": "d", "version": "1",
        "supportedInterfaces": [{"url": "http://127.0.0.1:5/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {}, "defaultInputModes": [], "defaultOutputModes": [], "skills": [],
        "securitySchemes": {
            "weird": {"quantumSecurityScheme": {"qubits": 7}},
            "ok": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}
        },
        "securityRequirements": [{"schemes": {"weird": {"list": []}}}]
    });
    let n = normalize(&raw, None).unwrap();
    let card = to_card(&n);
    let schemes = card.security_schemes.unwrap();
    assert_eq!(schemes.len(), 1);
    assert!(
        n.warnings
            .iter()
            .any(|w| w.field == "securitySchemes.weird" && w.message.contains("unknown"))
    );
    assert!(
        n.warnings
            .iter()
            .any(|w| w.message.contains("does not declare"))
    );
}

#[test]
fn warnings_for_missing_fields_origin_http_and_binding() {
    let raw = json!({
        "supportedInterfaces": [
            {"url": "http://agents.example.com/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": "http://127.0.0.1:1/x", "protocolBinding": "CARRIER-PIGEON", "protocolVersion": "1.0"}
        ]
    });
    let n = normalize(
        &raw,
        Some(&url("http://127.0.0.1:1/.well-known/agent-card.json")),
    )
    .unwrap();
    let text: Vec<String> = n.warnings.iter().map(ToString::to_string).collect();
    let all = text.join("\n");
    assert!(all.contains("name: is required but missing"), "{all}");
    assert!(all.contains("skills: is required but missing"), "{all}");
    assert!(all.contains("another origin"), "{all}");
    assert!(all.contains("plain http to a non-loopback host"), "{all}");
    assert!(
        all.contains("binding \"CARRIER-PIGEON\" is not one the console speaks"),
        "{all}"
    );
    // Still a card the SDK type accepts.
    let _ = to_card(&n);
}

#[test]
fn not_an_object_is_an_error() {
    assert!(
        normalize(&json!([1, 2]), None)
            .unwrap_err()
            .contains("array")
    );
}

fn all_warnings(n: &Normalized) -> String {
    n.warnings
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

fn base(extra: serde_json::Value) -> serde_json::Value {
    let mut v = json!({
        "name": "N", "description": "d", "version": "1",
        "capabilities": {}, "defaultInputModes": [], "defaultOutputModes": [], "skills": []
    });
    if let (Some(o), serde_json::Value::Object(e)) = (v.as_object_mut(), extra) {
        o.extend(e);
    }
    v
}

#[test]
fn shapes_are_labelled_by_the_fields_they_carry() {
    let shape = |extra| normalize(&base(extra), None).unwrap().shape;
    let iface = json!([{"url": "http://127.0.0.1:1/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]);
    assert_eq!(shape(json!({"supportedInterfaces": iface})), CardShape::V1);
    assert_eq!(
        shape(json!({"url": "http://127.0.0.1:1/", "protocolVersion": "0.3.0"})),
        CardShape::V03
    );
    // The Python SDK's --with-v03 card: v1.0 wrappers and capabilities.extendedAgentCard next to the legacy url.
    assert_eq!(
        shape(json!({
            "supportedInterfaces": iface, "url": "http://127.0.0.1:1/", "protocolVersion": "0.3",
            "capabilities": {"extendedAgentCard": true},
            "securitySchemes": {"b": {"httpAuthSecurityScheme": {"scheme": "Bearer"}, "type": "http", "scheme": "Bearer"}}
        })),
        CardShape::Hybrid
    );
    // The JS SDK's version-less card: v0.3 in every field, plus supportedInterfaces.
    assert_eq!(
        shape(json!({
            "supportedInterfaces": iface, "url": "http://127.0.0.1:1/", "preferredTransport": "JSONRPC",
            "protocolVersion": "0.3", "supportsAuthenticatedExtendedCard": true,
            "securitySchemes": {"b": {"type": "http", "scheme": "Bearer"}}
        })),
        CardShape::V03
    );
    assert_eq!(
        shape(json!({"capabilities": {"extendedAgentCard": false}})),
        CardShape::V1
    );
    assert_eq!(
        shape(json!({"supportsAuthenticatedExtendedCard": false})),
        CardShape::V03
    );
    assert_eq!(shape(json!({})), CardShape::Undetermined);
    assert_eq!(
        shape(json!({"url": "http://127.0.0.1:1/", "authentication": {"schemes": ["bearer"]}})),
        CardShape::V01
    );
}

#[test]
fn js_sdk_versionless_card_reads_as_v03_with_its_bearer_scheme() {
    let raw = base(json!({
        "url": "http://127.0.0.1:4/a2a/jsonrpc", "preferredTransport": "JSONRPC", "protocolVersion": "0.3",
        "additionalInterfaces": [{"url": "http://127.0.0.1:4/a2a/rest", "transport": "HTTP+JSON"}],
        "supportsAuthenticatedExtendedCard": true,
        "securitySchemes": {"bearer": {"type": "http", "scheme": "Bearer", "description": "token"}},
        "supportedInterfaces": [
            {"url": "http://127.0.0.1:4/a2a/jsonrpc", "protocolBinding": "JSONRPC", "tenant": "", "protocolVersion": "1.0"},
            {"url": "http://127.0.0.1:4/a2a/jsonrpc", "protocolBinding": "JSONRPC", "tenant": "", "protocolVersion": "0.3"}
        ]
    }));
    let n = normalize(
        &raw,
        Some(&url("http://127.0.0.1:4/.well-known/agent-card.json")),
    )
    .unwrap();
    assert_eq!(n.shape, CardShape::V03);
    assert_eq!(n.shape.label(), "v0.3");
    let card = to_card(&n);
    // The legacy url duplicates the listed 0.3 interface; the REST one is added once, as 0.3.
    assert_eq!(
        card.supported_interfaces.len(),
        3,
        "{:?}",
        card.supported_interfaces
    );
    assert!(card.supported_interfaces.iter().all(|i| i.tenant.is_none()));
    let schemes = card.security_schemes.clone().unwrap();
    assert!(
        matches!(&schemes["bearer"], a2a::SecurityScheme::HttpAuth(h) if h.scheme == "Bearer"),
        "{schemes:?}"
    );
    assert_eq!(card.capabilities.extended_agent_card, Some(true));
    let all = all_warnings(&n);
    assert!(all.contains("also lists v1.0 interfaces"), "{all}");
    // Its HTTP+JSON 0.3 interface is usable now: no warning about it.
    assert!(!all.contains("is not supported"), "{all}");
    assert_eq!(
        select_interface(&card, Preferences::default())
            .unwrap()
            .protocol,
        ProtocolChoice::V1
    );
}

#[test]
fn every_flat_scheme_type_is_read() {
    let raw = base(json!({
        "url": "http://127.0.0.1:1/",
        "securitySchemes": {
            "bearer": {"type": "http", "scheme": "Bearer", "bearerFormat": "JWT"},
            "key": {"type": "apiKey", "in": "query", "name": "api_key"},
            "oauth": {"type": "oauth2", "flows": {"deviceCode": {"deviceAuthorizationUrl": "https://a/d", "tokenUrl": "https://a/t", "scopes": {}}}},
            "oidc": {"type": "openIdConnect", "openIdConnectUrl": "https://a/.well-known/openid-configuration"},
            "mtls": {"type": "mutualTLS"}
        }
    }));
    let n = normalize(&raw, None).unwrap();
    let s = to_card(&n).security_schemes.unwrap();
    assert_eq!(s.len(), 5, "{}", all_warnings(&n));
    assert!(
        matches!(&s["bearer"], a2a::SecurityScheme::HttpAuth(h) if h.bearer_format.as_deref() == Some("JWT"))
    );
    assert!(
        matches!(&s["key"], a2a::SecurityScheme::ApiKey(k) if k.location == "query" && k.name == "api_key")
    );
    assert!(matches!(&s["oauth"], a2a::SecurityScheme::OAuth2(_)));
    assert!(matches!(&s["oidc"], a2a::SecurityScheme::OpenIdConnect(_)));
    assert!(matches!(&s["mtls"], a2a::SecurityScheme::MutualTls(_)));
}

#[test]
fn js_sdk_internal_scheme_shape_is_read_with_a_note() {
    let raw = base(json!({
        "supportedInterfaces": [{"url": "http://127.0.0.1:1/", "protocolBinding": "JSONRPC", "tenant": "", "protocolVersion": "1.0"}],
        "securitySchemes": {"bearer": {"scheme": {"$case": "httpAuthSecurityScheme",
            "value": {"description": "t", "scheme": "Bearer", "bearerFormat": ""}}}},
        "securityRequirements": [], "signatures": []
    }));
    let n = normalize(&raw, None).unwrap();
    assert_eq!(n.shape, CardShape::V1);
    let s = to_card(&n).security_schemes.unwrap();
    assert!(matches!(&s["bearer"], a2a::SecurityScheme::HttpAuth(h) if h.scheme == "Bearer"));
    assert!(all_warnings(&n).contains("@a2a-js/sdk internal shape"));
}

#[test]
fn protocol_0_2_is_spoken_as_0_3_and_says_so() {
    let raw = base(json!({"url": "http://127.0.0.1:1/a2a", "protocolVersion": "0.2.9"}));
    let n = normalize(&raw, None).unwrap();
    assert_eq!(n.shape, CardShape::V03);
    let all = all_warnings(&n);
    assert!(
        all.contains("protocol \"0.2.9\" is spoken as 0.3: same JSON-RPC wire"),
        "{all}"
    );
    let s = select_interface(&to_card(&n), Preferences::default()).unwrap();
    assert_eq!(s.protocol, ProtocolChoice::V03);
    assert_eq!(s.interface.protocol_version, "0.2.9");
}

#[test]
fn cards_nobody_can_call_still_load_and_say_why() {
    let card_only = |extra| {
        let n = normalize(&base(extra), None).unwrap();
        let card = to_card(&n);
        assert!(select_interface(&card, Preferences::default()).is_err());
        (
            all_warnings(&n),
            card_only_summary(&card, Preferences::default()),
        )
    };
    let (w, short) = card_only(json!({}));
    assert!(w.contains("lists no interfaces"), "{w}");
    assert_eq!(short, "the card lists no interfaces");

    let (w, short) = card_only(json!({"supportedInterfaces": [
        {"url": "http://127.0.0.1:1/grpc", "protocolBinding": "GRPC", "protocolVersion": "0.3"}]}));
    assert!(
        w.contains("protocol \"0.3\" over GRPC is not supported"),
        "{w}"
    );
    assert!(w.contains("none of the 1 interface(s) can be used"), "{w}");
    assert_eq!(short, "only: old protocol over this binding");

    let (w, short) = card_only(json!({"supportedInterfaces": [
        {"url": "http://127.0.0.1:1/slim", "protocolBinding": "SLIMRPC", "protocolVersion": "1.0"}]}));
    assert!(w.contains("binding \"SLIMRPC\" is not one"), "{w}");
    assert_eq!(short, "only: unknown binding");

    let (w, short) = card_only(json!({"supportedInterfaces": [
        {"url": "http://127.0.0.1:1/", "protocolBinding": "JSONRPC", "protocolVersion": "2.0"},
        {"url": "http://127.0.0.1:1/x", "protocolBinding": "X", "protocolVersion": "1.0"}]}));
    assert!(w.contains("protocol version \"2.0\" is not one"), "{w}");
    assert_eq!(short, "no usable interface");

    let (w, _) =
        card_only(json!({"url": "http://127.0.0.1:1/", "authentication": {"schemes": ["Bearer"]}}));
    assert!(w.contains("an A2A 0.1 card"), "{w}");
}

#[test]
fn preferences_that_match_nothing_are_named_in_the_summary() {
    let n = normalize(
        &base(json!({"supportedInterfaces": [
            {"url": "http://127.0.0.1:1/", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]})),
        None,
    )
    .unwrap();
    let prefs = Preferences {
        binding: Some(Binding::Grpc),
        protocol: None,
    };
    assert_eq!(
        card_only_summary(&to_card(&n), prefs),
        "no interface with binding GRPC"
    );
}

/// `interface_use` (what the card's warnings say) and `select_interface` (what is chosen) agree.
#[test]
fn interface_use_agrees_with_selection() {
    let bindings = ["JSONRPC", "HTTP+JSON", "GRPC", "SLIMRPC", "jsonrpc", ""];
    let versions = [
        "1.0", "1.1", "1", "0.3", "0.3.0", "0.2.9", "0.2", "0.1", "2.0", "", "x",
    ];
    for b in bindings {
        for v in versions {
            let card: a2a::AgentCard = serde_json::from_value(json!({
                "name": "x", "description": "", "version": "1", "capabilities": {}, "skills": [],
                "supportedInterfaces": [{"url": "http://127.0.0.1:1/", "protocolBinding": b, "protocolVersion": v}]
            }))
            .unwrap();
            assert_eq!(
                interface_use(b, v).is_usable(),
                select_interface(&card, Preferences::default()).is_ok(),
                "{b:?} {v:?}"
            );
        }
    }
}

#[test]
fn wrong_types_are_read_where_the_intent_is_plain() {
    let raw = json!({
        "name": 42, "description": "d", "version": 2,
        "supportedInterfaces": {"url": "http://127.0.0.1:1/", "protocolBinding": "jsonrpc", "protocolVersion": "1.0"},
        "capabilities": {"streaming": "yes"},
        "defaultInputModes": "text/plain", "defaultOutputModes": ["text/plain", 7],
        "skills": [{"id": 1, "name": "S", "description": "x", "tags": "search"}, "oops"]
    });
    let n = normalize(&raw, None).unwrap();
    let card = to_card(&n);
    assert_eq!(card.name, "42");
    assert_eq!(card.version, "2");
    assert_eq!(card.supported_interfaces.len(), 1);
    assert_eq!(card.supported_interfaces[0].protocol_binding, "JSONRPC");
    assert_eq!(card.default_input_modes, vec!["text/plain".to_string()]);
    assert_eq!(card.skills.len(), 1);
    assert_eq!(card.skills[0].id, "1");
    assert_eq!(card.skills[0].tags, vec!["search".to_string()]);
    let all = all_warnings(&n);
    for needle in [
        "name: should be a string, found a number; read as text",
        "supportedInterfaces: should be a list, found an object; read as a one-item list",
        "should be spelled JSONRPC",
        "capabilities.streaming: should be true or false; ignored",
        "defaultInputModes: should be a list, found a string; read as a one-item list",
        "defaultOutputModes: contains a non-string entry",
        "skills[0].tags: should be a list, found a string",
        "skills[1]: is not an object; ignored",
    ] {
        assert!(all.contains(needle), "{needle:?} missing from\n{all}");
    }
    assert!(select_interface(&card, Preferences::default()).is_ok());
}

#[test]
fn a_json_document_that_is_no_card_is_refused() {
    let pkg = json!({"name": "left-pad", "version": "1.3.0", "description": "pads", "main": "index.js",
        "scripts": {"test": "node test"}, "license": "WTFPL", "repository": {"url": "git://x"}, "keywords": []});
    let err = normalize(&pkg, None).unwrap_err();
    assert!(err.contains("not an agent card"), "{err}");
    assert!(err.contains("\"scripts\""), "{err}");
    assert!(err.contains("and 2 more"), "{err}");
}

#[test]
fn warnings_quoting_hostile_text_are_sanitised_and_bounded() {
    let evil = format!("\u{1b}]52;c;ZXZpbA==\u{7}\u{202e}{}", "A".repeat(5000));
    let raw = base(json!({
        "supportedInterfaces": [{"url": evil, "protocolBinding": evil, "protocolVersion": evil}],
        "securitySchemes": {evil.clone(): {"type": evil}},
        "securityRequirements": [{evil.clone(): []}]
    }));
    let n = normalize(&raw, None).unwrap();
    assert!(!n.warnings.is_empty());
    for w in &n.warnings {
        let text = w.to_string();
        assert!(
            !text
                .chars()
                .any(|c| c.is_control() || ('\u{202a}'..='\u{202e}').contains(&c)),
            "{text:?}"
        );
        assert!(
            text.chars().count() < 600,
            "unbounded: {} chars",
            text.chars().count()
        );
    }
}

#[test]
fn quote_cuts_and_cleans() {
    assert_eq!(quote("abc"), "\"abc\"");
    let q = quote(&"x".repeat(100));
    assert!(q.ends_with("…\"") && q.chars().count() == 63, "{q}");
    assert!(!quote("a\u{1b}[2Jb").contains('\u{1b}'));
}

/// Found by fuzzing (`fuzz card`): a flow that is not an object (`"deviceCode": 5`) panicked while `scopes`
/// was added to it, taking the console down with the card.
#[test]
fn a_flow_that_is_not_an_object_costs_the_scheme_not_the_card() {
    let mut raw: serde_json::Value = serde_json::from_str(crate::testing::PARTS_CARD).unwrap();
    raw["securitySchemes"] = json!({
        "legacy": {"type": "oauth2", "flows": {"deviceCode": 5}},
        "wrapped": {"oauth2SecurityScheme": {"flows": {"authorizationCode": "x"}}},
        "fine": {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "http://127.0.0.1:1/t"}}}
    });
    let n = normalize(&raw, None).unwrap();
    let card = to_card(&n);
    let schemes = card.security_schemes.unwrap_or_default();
    assert_eq!(schemes.keys().collect::<Vec<_>>(), ["fine"]);
    let all: Vec<String> = n.warnings.iter().map(ToString::to_string).collect();
    assert!(
        all.iter().any(|w| w.starts_with(
            "securitySchemes.legacy.flows.deviceCode: should be an object, found a number"
        )),
        "{all:?}"
    );
}

/// Found by fuzzing (`fuzz card`): a signature whose `header` is not an object used to be kept, and the SDK's
/// type then rejected the whole card ("could not be read even after normalising").
#[test]
fn a_malformed_signature_costs_the_signature_not_the_card() {
    let raw = json!({
        "name": "Signed", "description": "", "version": "1",
        "supportedInterfaces": [{"url": "http://127.0.0.1:1/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {}, "defaultInputModes": [], "defaultOutputModes": [], "skills": [],
        "signatures": [
            {"protected": "eyJhbGciOiJFUzI1NiJ9", "signature": "c2ln", "header": 18446744073709551603u64},
            {"protected": "eyJhbGciOiJFUzI1NiJ9", "signature": "c2ln", "header": {"kid": "k1"}}
        ]
    });
    let n = normalize(&raw, None).unwrap();
    let card = to_card(&n);
    assert_eq!(card.name, "Signed");
    assert_eq!(card.signatures.map(|s| s.len()), Some(1));
    let all: Vec<String> = n.warnings.iter().map(ToString::to_string).collect();
    assert!(
        all.iter()
            .any(|w| w.starts_with("signatures[0]: could not be read")),
        "{all:?}"
    );
}
