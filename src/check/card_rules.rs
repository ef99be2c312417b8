//! The card's structure judged against the v1.0 data model (§4.4, §4.5, §8.3), on the document exactly as
//! served (the console's lenient reader would hide what is wrong). Pure: a JSON value in, findings out.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::report::{Finding, Outcome};
use crate::remote::card::rules::quote;

/// Fields only a v0.3 card has at the top level (Appendix A.2).
const V03_FIELDS: &[&str] = &[
    "url",
    "preferredTransport",
    "additionalInterfaces",
    "protocolVersion",
    "supportsAuthenticatedExtendedCard",
    "security",
];

/// The five kinds of v1.0 security scheme and the fields each requires (§4.5).
const SCHEME_KINDS: &[(&str, &[&str])] = &[
    ("apiKeySecurityScheme", &["location", "name"]),
    ("httpAuthSecurityScheme", &["scheme"]),
    ("oauth2SecurityScheme", &["flows"]),
    ("openIdConnectSecurityScheme", &["openIdConnectUrl"]),
    ("mtlsSecurityScheme", &[]),
];

/// Is this a v0.3 card (legacy fields, no v1.0 interface list)? Then the v1.0 model is not the yardstick.
pub fn is_v03_only(card: &Map<String, Value>) -> bool {
    !card.contains_key("supportedInterfaces")
        && (card.contains_key("url") || card.contains_key("protocolVersion"))
}

/// Every structural finding for a v1.0 card.
pub fn judge(card: &Map<String, Value>) -> Vec<Finding> {
    vec![
        Finding::new("card.required-fields", None, required_fields(card)),
        Finding::new("card.field-types", None, field_types(card)),
        Finding::new("card.interfaces", None, interfaces(card)),
        Finding::new("card.interface-urls", None, interface_urls(card)),
        Finding::new("card.bindings-known", None, bindings_known(card)),
        Finding::new("card.urls", None, other_urls(card)),
        Finding::new("card.media-types", None, media_types(card)),
        Finding::new("card.skills", None, skills(card)),
        Finding::new(
            "card.security-requirements",
            None,
            security_requirements(card),
        ),
        Finding::new("card.security-schemes", None, security_schemes(card)),
        Finding::new("card.v1-shape", None, v1_shape(card)),
    ]
}

/// A list of problems as one outcome: PASS when there are none.
fn verdict(problems: Vec<String>, ok: &str) -> Outcome {
    if problems.is_empty() {
        Outcome::pass(ok)
    } else {
        let n = problems.len();
        let mut shown: Vec<String> = problems.into_iter().take(4).collect();
        if n > 4 {
            shown.push(format!("and {} more", n - 4));
        }
        Outcome::fail(shown.join("; "))
    }
}

fn required_fields(card: &Map<String, Value>) -> Outcome {
    let mut missing = Vec::new();
    let mut empty = Vec::new();
    for f in ["name", "description", "version"] {
        match card.get(f) {
            None | Some(Value::Null) => missing.push(f),
            Some(Value::String(s)) if s.is_empty() && f != "description" => empty.push(f),
            _ => {}
        }
    }
    if !card.contains_key("capabilities") {
        missing.push("capabilities");
    }
    for f in [
        "supportedInterfaces",
        "defaultInputModes",
        "defaultOutputModes",
        "skills",
    ] {
        match card.get(f) {
            None | Some(Value::Null) => missing.push(f),
            Some(Value::Array(a)) if a.is_empty() => empty.push(f),
            _ => {}
        }
    }
    if !missing.is_empty() {
        return Outcome::fail(format!("missing: {}", missing.join(", ")));
    }
    if !empty.is_empty() {
        // REQUIRED lists have at least one element in the proto's annotations, but the spec's prose does
        // not say an empty one is invalid: uncertain, so a WARN.
        return Outcome::warn(format!("present but empty: {}", empty.join(", ")));
    }
    Outcome::pass("all required fields present")
}

fn field_types(card: &Map<String, Value>) -> Outcome {
    let mut p = Vec::new();
    let mut want = |path: &str, v: Option<&Value>, ok: fn(&Value) -> bool, what: &str| {
        if let Some(v) = v
            && !v.is_null()
            && !ok(v)
        {
            p.push(format!("{path} is {}, not {what}", kind(v)));
        }
    };
    for f in [
        "name",
        "description",
        "version",
        "documentationUrl",
        "iconUrl",
    ] {
        want(f, card.get(f), Value::is_string, "a string");
    }
    for f in [
        "supportedInterfaces",
        "defaultInputModes",
        "defaultOutputModes",
        "skills",
        "securityRequirements",
        "signatures",
    ] {
        want(f, card.get(f), Value::is_array, "a list");
    }
    for f in ["capabilities", "securitySchemes", "provider"] {
        want(f, card.get(f), Value::is_object, "an object");
    }
    let caps = card.get("capabilities");
    for f in ["streaming", "pushNotifications", "extendedAgentCard"] {
        want(
            &format!("capabilities.{f}"),
            caps.and_then(|c| c.get(f)),
            Value::is_boolean,
            "a boolean",
        );
    }
    for f in ["defaultInputModes", "defaultOutputModes"] {
        for (i, m) in list(card, f).iter().enumerate() {
            want(&format!("{f}[{i}]"), Some(m), Value::is_string, "a string");
        }
    }
    for (i, s) in list(card, "skills").iter().enumerate() {
        if !s.is_object() {
            want(
                &format!("skills[{i}]"),
                Some(s),
                Value::is_object,
                "an object",
            );
            continue;
        }
        for f in ["id", "name", "description"] {
            want(
                &format!("skills[{i}].{f}"),
                s.get(f),
                Value::is_string,
                "a string",
            );
        }
        for f in ["tags", "examples", "inputModes", "outputModes"] {
            want(
                &format!("skills[{i}].{f}"),
                s.get(f),
                Value::is_array,
                "a list",
            );
        }
    }
    verdict(p, "every field has its type")
}

fn interfaces(card: &Map<String, Value>) -> Outcome {
    let mut p = Vec::new();
    let mut patch = Vec::new();
    for (i, it) in list(card, "supportedInterfaces").iter().enumerate() {
        let Some(o) = it.as_object() else {
            p.push(format!("supportedInterfaces[{i}] is {}", kind(it)));
            continue;
        };
        for f in ["url", "protocolBinding", "protocolVersion"] {
            if o.get(f).and_then(Value::as_str).is_none_or(str::is_empty) {
                p.push(format!("supportedInterfaces[{i}] has no {f}"));
            }
        }
        if let Some(v) = o.get("protocolVersion").and_then(Value::as_str)
            && !v.is_empty()
            && !is_major_minor(v)
        {
            patch.push(format!(
                "supportedInterfaces[{i}].protocolVersion {} is not Major.Minor",
                quote(v)
            ));
        }
    }
    if p.is_empty() && !patch.is_empty() {
        // §3.6: patch numbers SHOULD NOT appear in cards (and MUST be ignored when negotiating).
        return Outcome::warn(format!(
            "{} (§3.6: SHOULD NOT carry a patch number)",
            patch.join("; ")
        ));
    }
    verdict(
        p,
        "each interface names its url, binding and Major.Minor version",
    )
}

fn is_major_minor(v: &str) -> bool {
    let mut parts = v.split('.');
    let ok =
        |s: Option<&str>| s.is_some_and(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()));
    ok(parts.next()) && ok(parts.next()) && parts.next().is_none()
}

fn interface_urls(card: &Map<String, Value>) -> Outcome {
    let mut p = Vec::new();
    for (i, it) in list(card, "supportedInterfaces").iter().enumerate() {
        let Some(u) = it.get("url").and_then(Value::as_str) else {
            continue;
        };
        let grpc = it.get("protocolBinding").and_then(Value::as_str) == Some("GRPC");
        let absolute = url::Url::parse(u)
            .is_ok_and(|x| matches!(x.scheme(), "http" | "https") && x.host().is_some());
        let host_port = u
            .rsplit_once(':')
            .is_some_and(|(h, port)| !h.is_empty() && port.parse::<u16>().is_ok());
        if !(absolute || grpc && host_port) {
            p.push(format!(
                "supportedInterfaces[{i}].url {} is not {}",
                quote(u),
                if grpc {
                    "host:port or an http(s) URL"
                } else {
                    "an absolute http(s) URL"
                }
            ));
        }
    }
    verdict(p, "every interface URL is absolute")
}

fn bindings_known(card: &Map<String, Value>) -> Outcome {
    let mut p = Vec::new();
    for (i, it) in list(card, "supportedInterfaces").iter().enumerate() {
        let Some(b) = it.get("protocolBinding").and_then(Value::as_str) else {
            continue;
        };
        // A custom binding is identified by a URI (§5.8).
        if !crate::remote::card::rules::KNOWN_BINDINGS.contains(&b) && !b.contains(':') {
            p.push(format!(
                "supportedInterfaces[{i}].protocolBinding {} is neither a standard binding nor a URI",
                quote(b)
            ));
        }
    }
    verdict(p, "every binding is standard or a URI")
}

fn other_urls(card: &Map<String, Value>) -> Outcome {
    let mut p = Vec::new();
    let provider = card.get("provider").and_then(|v| v.get("url"));
    for (path, v) in [
        ("documentationUrl", card.get("documentationUrl")),
        ("iconUrl", card.get("iconUrl")),
        ("provider.url", provider),
    ] {
        if let Some(s) = v.and_then(Value::as_str)
            && url::Url::parse(s).is_err()
        {
            p.push(format!("{path} {} is not an absolute URL", quote(s)));
        }
    }
    verdict(p, "the card's other URLs are absolute")
}

fn media_types(card: &Map<String, Value>) -> Outcome {
    let mut p = Vec::new();
    let mut check = |path: String, modes: &[Value]| {
        for m in modes {
            if let Some(s) = m.as_str()
                && !is_media_type(s)
            {
                p.push(format!("{path}: {} is not type/subtype", quote(s)));
            }
        }
    };
    check("defaultInputModes".into(), list(card, "defaultInputModes"));
    check(
        "defaultOutputModes".into(),
        list(card, "defaultOutputModes"),
    );
    for (i, s) in list(card, "skills").iter().enumerate() {
        for f in ["inputModes", "outputModes"] {
            if let Some(Value::Array(a)) = s.get(f) {
                check(format!("skills[{i}].{f}"), a);
            }
        }
    }
    verdict(p, "every mode is a media type")
}

/// `type/subtype` in RFC 6838's token characters, parameters allowed.
fn is_media_type(s: &str) -> bool {
    let essence = s.split(';').next().unwrap_or_default().trim();
    let token = |t: &str| {
        !t.is_empty()
            && t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$&-^_.+*".contains(&b))
    };
    match essence.split_once('/') {
        Some((t, sub)) => token(t) && token(sub),
        None => false,
    }
}

fn skills(card: &Map<String, Value>) -> Outcome {
    let mut p = Vec::new();
    let mut seen = HashSet::new();
    for (i, s) in list(card, "skills").iter().enumerate() {
        let Some(o) = s.as_object() else { continue };
        for f in ["id", "name", "description"] {
            if !o.get(f).is_some_and(Value::is_string) {
                p.push(format!("skills[{i}] has no {f}"));
            }
        }
        if !o.contains_key("tags") {
            p.push(format!("skills[{i}] has no tags"));
        }
        if let Some(id) = o.get("id").and_then(Value::as_str)
            && !seen.insert(id.to_string())
        {
            p.push(format!("skill id {} is used twice", quote(id)));
        }
    }
    verdict(p, "every skill is complete and its id unique")
}

/// The scheme names a list of security requirements uses (`[{"schemes": {name: {"list": [..]}}}]`).
fn required_names(reqs: Option<&Value>, path: &str, p: &mut Vec<String>) -> Vec<String> {
    let mut names = Vec::new();
    let Some(reqs) = reqs else { return names };
    let Some(list) = reqs.as_array() else {
        p.push(format!("{path} is not a list"));
        return names;
    };
    for (i, r) in list.iter().enumerate() {
        // An empty requirement (`{}`: "no credential needed") omits its empty map, as ProtoJSON does.
        match r.get("schemes") {
            None | Some(Value::Null) => {}
            Some(Value::Object(m)) => names.extend(m.keys().cloned()),
            Some(_) => p.push(format!("{path}[{i}].schemes is not a map")),
        }
    }
    names
}

fn security_requirements(card: &Map<String, Value>) -> Outcome {
    let mut p = Vec::new();
    let declared: HashMap<&String, &Value> = card
        .get("securitySchemes")
        .and_then(Value::as_object)
        .map(|m| m.iter().collect())
        .unwrap_or_default();
    let mut used = required_names(
        card.get("securityRequirements"),
        "securityRequirements",
        &mut p,
    );
    for (i, s) in list(card, "skills").iter().enumerate() {
        used.extend(required_names(
            s.get("securityRequirements"),
            &format!("skills[{i}].securityRequirements"),
            &mut p,
        ));
    }
    for name in used {
        if !declared.contains_key(&name) {
            p.push(format!(
                "requirement names scheme {} that securitySchemes does not declare",
                quote(&name)
            ));
        }
    }
    verdict(p, "every requirement names a declared scheme")
}

fn security_schemes(card: &Map<String, Value>) -> Outcome {
    let mut p = Vec::new();
    let Some(schemes) = card.get("securitySchemes").and_then(Value::as_object) else {
        return Outcome::pass("no security schemes declared");
    };
    for (name, s) in schemes {
        let n = quote(name);
        let Some(o) = s.as_object() else {
            p.push(format!("scheme {n} is {}", kind(s)));
            continue;
        };
        let kinds: Vec<&(&str, &[&str])> = SCHEME_KINDS
            .iter()
            .filter(|(k, _)| o.contains_key(*k))
            .collect();
        match kinds.as_slice() {
            [(k, required)] => {
                let inner = o.get(*k);
                for f in *required {
                    if inner.and_then(|i| i.get(*f)).is_none_or(Value::is_null) {
                        p.push(format!("scheme {n} ({k}) has no {f}"));
                    }
                }
                if let Some(loc) = inner
                    .and_then(|i| i.get("location"))
                    .and_then(Value::as_str)
                    && !["query", "header", "cookie"].contains(&loc)
                {
                    p.push(format!(
                        "scheme {n}: location {} is not query, header or cookie",
                        quote(loc)
                    ));
                }
                if *k == "oauth2SecurityScheme"
                    && let Some(flows) = inner
                        .and_then(|i| i.get("flows"))
                        .and_then(Value::as_object)
                    && flows.len() != 1
                {
                    p.push(format!(
                        "scheme {n}: flows holds {} flows, not exactly one",
                        flows.len()
                    ));
                }
            }
            [] if o.contains_key("type") => p.push(format!(
                "scheme {n} is in the v0.3 shape (\"type\"), which a v1.0 client cannot read"
            )),
            [] => p.push(format!("scheme {n} is none of the five kinds")),
            _ => p.push(format!("scheme {n} is more than one kind at once")),
        }
    }
    verdict(p, "every scheme is one known kind, complete")
}

fn v1_shape(card: &Map<String, Value>) -> Outcome {
    let found: Vec<&str> = V03_FIELDS
        .iter()
        .copied()
        .filter(|f| card.contains_key(*f))
        .collect();
    if found.is_empty() {
        Outcome::pass("no v0.3-only fields")
    } else {
        Outcome::warn(format!(
            "v0.3-only fields beside the v1.0 ones: {} (a deliberate fallback for v0.3 clients is allowed; \
             v1.0 clients ignore them, so they must agree with supportedInterfaces)",
            found.join(", ")
        ))
    }
}

fn list<'a>(card: &'a Map<String, Value>, f: &str) -> &'a [Value] {
    card.get(f)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::requirement::Verdict;

    fn good() -> Value {
        serde_json::json!({
            "name": "A", "description": "d", "version": "1",
            "supportedInterfaces": [{"url": "http://127.0.0.1:1/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
            "capabilities": {"streaming": true},
            "defaultInputModes": ["text/plain"], "defaultOutputModes": ["application/json"],
            "securitySchemes": {"k": {"apiKeySecurityScheme": {"location": "header", "name": "X-Key"}}},
            "securityRequirements": [{"schemes": {"k": {"list": []}}}],
            "skills": [{"id": "s", "name": "S", "description": "d", "tags": ["t"]}]
        })
    }

    fn verdicts(v: &Value) -> Vec<(&'static str, Verdict)> {
        judge(v.as_object().unwrap())
            .into_iter()
            .map(|f| (f.id, f.verdict))
            .collect()
    }

    #[test]
    fn a_good_card_passes_everything() {
        for (id, v) in verdicts(&good()) {
            assert_eq!(v, Verdict::Pass, "{id}");
        }
    }

    #[test]
    fn each_defect_is_flagged_by_its_own_requirement_only() {
        type Break = Box<dyn Fn(&mut Value)>;
        let cases: Vec<(&str, Break)> = vec![
            (
                "card.required-fields",
                Box::new(|c| {
                    c.as_object_mut().unwrap().remove("version");
                }),
            ),
            (
                "card.field-types",
                Box::new(|c| c["capabilities"]["streaming"] = "yes".into()),
            ),
            (
                "card.interfaces",
                Box::new(|c| c["supportedInterfaces"][0]["protocolVersion"] = "1.0.0".into()),
            ),
            (
                "card.interface-urls",
                Box::new(|c| c["supportedInterfaces"][0]["url"] = "/rpc".into()),
            ),
            (
                "card.bindings-known",
                Box::new(|c| c["supportedInterfaces"][0]["protocolBinding"] = "SOAP".into()),
            ),
            (
                "card.urls",
                Box::new(|c| c["documentationUrl"] = "docs".into()),
            ),
            (
                "card.media-types",
                Box::new(|c| c["defaultInputModes"] = serde_json::json!(["text"])),
            ),
            (
                "card.skills",
                Box::new(|c| {
                    c["skills"] = serde_json::json!([
                {"id": "s", "name": "S", "description": "d", "tags": []},
                {"id": "s", "name": "T", "description": "d", "tags": []}])
                }),
            ),
            (
                "card.security-requirements",
                Box::new(|c| {
                    c["securityRequirements"] =
                        serde_json::json!([{"schemes": {"nope": {"list": []}}}])
                }),
            ),
            (
                "card.security-schemes",
                Box::new(|c| {
                    c["securitySchemes"]["k"] =
                        serde_json::json!({"type": "apiKey", "in": "header", "name": "X"})
                }),
            ),
            (
                "card.v1-shape",
                Box::new(|c| c["preferredTransport"] = "JSONRPC".into()),
            ),
        ];
        for (id, break_it) in cases {
            let mut card = good();
            break_it(&mut card);
            for (other, v) in verdicts(&card) {
                if other == id {
                    assert_ne!(v, Verdict::Pass, "{id} not flagged");
                } else {
                    assert_eq!(v, Verdict::Pass, "{id}'s defect also flagged {other}");
                }
            }
        }
    }
}
