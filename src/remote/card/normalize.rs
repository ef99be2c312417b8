//! Lenient agent-card loading: any card seen in the wild (v1.0, v0.3, 0.2.x, a hybrid of both, the JS SDK's
//! shapes, or one with a scheme type we do not know) becomes the SDK's v1.0 `AgentCard`, plus a list of
//! warnings saying what was off. The rules (what we accept, how we label it, what we warn about) are listed
//! and tested in `card::rules`; this file is the rewriting that applies them.
//!
//! The SDK's strict serde types reject a whole card over one unknown security-scheme variant or a v0.3 shape
//! (spec digest §12); a console that shows nothing for such an agent is useless, so we rewrite the JSON into
//! the v1.0 shape first and only then hand it to the SDK's types.

use serde_json::{Map, Value, json};
use url::Url;

pub use crate::remote::card::rules::CardShape;
mod interfaces;
use interfaces::normalize_interfaces;
mod schemes;
use crate::remote::card::rules::{self, InterfaceUse, SCHEME_KEYS, quote};
use crate::trust::sanitize::sanitize_line;
use schemes::{check_requirements_reference_schemes, normalize_requirements, normalize_schemes};

/// One thing about a card that is not as the v1.0 spec wants it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CardWarning {
    /// JSON path of the field concerned ("skills[2].tags", "securitySchemes.oauth").
    pub field: String,
    pub message: String,
}

impl std::fmt::Display for CardWarning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

/// The result of normalising: v1.0-shaped JSON ready for the SDK's types.
#[derive(Clone, Debug)]
pub struct Normalized {
    pub card: Value,
    pub shape: CardShape,
    pub warnings: Vec<CardWarning>,
}

struct Ctx {
    warnings: Vec<CardWarning>,
}

impl Ctx {
    /// Record a warning. Field paths carry card keys (scheme names) and messages quote card values, so both
    /// are sanitised here, once, whatever the caller did. Both are bounded too: a scheme named with 5000 characters would otherwise make a 5000-character path.
    fn warn(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.warnings.push(CardWarning {
            field: bounded(&field.into(), 120),
            message: bounded(&message.into(), 400),
        });
    }
}

/// Sanitised, on one line, at most `max` characters.
fn bounded(raw: &str, max: usize) -> String {
    let (clean, _) = sanitize_line(raw);
    if clean.chars().count() <= max {
        return clean;
    }
    let mut cut: String = clean.chars().take(max).collect();
    cut.push('…');
    cut
}

/// Rewrite `raw` into the v1.0 card shape. `card_url` is where it was fetched from (for origin checks and
/// to resolve relative interface URLs). Fails only when the document is not a JSON object at all, or is an
/// object with none of a card's fields (`rules::looks_like_a_card`).
pub fn normalize(raw: &Value, card_url: Option<&Url>) -> Result<Normalized, String> {
    let Value::Object(src) = raw else {
        return Err(format!(
            "the card is a JSON {}, not an object",
            json_kind(raw)
        ));
    };
    rules::looks_like_a_card(src)?;
    let mut cx = Ctx {
        warnings: Vec::new(),
    };
    let mut out = Map::new();

    for key in ["name", "description", "version"] {
        let value = required_string(&mut cx, src, key);
        out.insert(key.into(), Value::String(value));
    }
    for key in ["documentationUrl", "iconUrl"] {
        if let Some(v) = src.get(key).and_then(Value::as_str) {
            out.insert(key.into(), Value::String(v.into()));
        }
    }
    if let Some(provider) = src.get("provider")
        && let Some(p) = normalize_provider(&mut cx, provider)
    {
        out.insert("provider".into(), p);
    }

    let (interfaces, shape) = normalize_interfaces(&mut cx, src, card_url);
    out.insert("supportedInterfaces".into(), Value::Array(interfaces));
    out.insert("capabilities".into(), normalize_capabilities(&mut cx, src));
    for key in ["defaultInputModes", "defaultOutputModes"] {
        let modes = string_list(&mut cx, src.get(key), key, true);
        out.insert(key.into(), Value::Array(modes));
    }
    out.insert(
        "skills".into(),
        normalize_skills(&mut cx, src.get("skills")),
    );

    if let Some(schemes) = src.get("securitySchemes") {
        out.insert(
            "securitySchemes".into(),
            normalize_schemes(&mut cx, schemes),
        );
    }
    let reqs = src
        .get("securityRequirements")
        .map(|v| ("securityRequirements", v))
        .or_else(|| src.get("security").map(|v| ("security", v)));
    if let Some((key, v)) = reqs {
        out.insert(
            "securityRequirements".into(),
            normalize_requirements(&mut cx, key, v),
        );
    }
    check_requirements_reference_schemes(&mut cx, &out);
    if let Some(sigs) = src.get("signatures") {
        match sigs {
            Value::Array(list) => {
                let kept: Vec<Value> = list
                    .iter()
                    .enumerate()
                    .filter_map(|(i, s)| {
                        let ok = s.get("protected").and_then(Value::as_str).is_some()
                            && s.get("signature").and_then(Value::as_str).is_some();
                        if !ok {
                            cx.warn(
                                format!("signatures[{i}]"),
                                "needs string fields `protected` and `signature`; ignored",
                            );
                            return None;
                        }
                        // As for schemes: one signature the SDK's type rejects (say a `header` that is not
                        // an object) must cost that signature, not the whole card.
                        match serde_json::from_value::<a2a::AgentCardSignature>(s.clone()) {
                            Ok(_) => Some(s.clone()),
                            Err(e) => {
                                cx.warn(
                                    format!("signatures[{i}]"),
                                    format!("could not be read ({e}); ignored"),
                                );
                                None
                            }
                        }
                    })
                    .collect();
                out.insert("signatures".into(), Value::Array(kept));
            }
            _ => cx.warn("signatures", "is not a list; ignored"),
        }
    }

    Ok(Normalized {
        card: Value::Object(out),
        shape,
        warnings: cx.warnings,
    })
}

/// "a number", "an array": the kind of JSON value with its article, for "found …".
fn a_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

pub(super) fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn required_string(cx: &mut Ctx, src: &Map<String, Value>, key: &str) -> String {
    match src.get(key) {
        Some(Value::String(s)) => {
            if s.is_empty() && key != "description" {
                cx.warn(key, "is required but empty");
            }
            s.clone()
        }
        Some(other) => scalar_as_text(cx, key, other),
        None => {
            cx.warn(key, "is required but missing");
            String::new()
        }
    }
}

/// A number or boolean where a string belongs is shown as its text (a name `42` is still a name); anything
/// else is dropped. Either way the card is told off.
fn scalar_as_text(cx: &mut Ctx, field: &str, v: &Value) -> String {
    match v {
        Value::Number(_) | Value::Bool(_) => {
            cx.warn(
                field,
                format!("should be a string, found {}; read as text", a_kind(v)),
            );
            v.to_string()
        }
        _ => {
            cx.warn(field, format!("should be a string, found {}", a_kind(v)));
            String::new()
        }
    }
}

/// An optional string field: `None` when absent; a number or boolean read as text; anything else dropped.
fn opt_string(cx: &mut Ctx, o: &Map<String, Value>, key: &str, field: &str) -> Option<String> {
    match o.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Null) | None => None,
        Some(other) => {
            let text = scalar_as_text(cx, field, other);
            (!text.is_empty()).then_some(text)
        }
    }
}

fn string_list(cx: &mut Ctx, v: Option<&Value>, field: &str, required: bool) -> Vec<Value> {
    match v {
        Some(Value::Array(items)) => items
            .iter()
            .filter(|i| {
                let ok = i.is_string();
                if !ok {
                    cx.warn(field, "contains a non-string entry; it was dropped");
                }
                ok
            })
            .cloned()
            .collect(),
        Some(Value::Null) | None => {
            if required {
                cx.warn(field, "is required but missing");
            }
            Vec::new()
        }
        // One string where a list of them belongs (`"tags": "search"`): what the author meant is plain.
        Some(Value::String(s)) => {
            cx.warn(
                field,
                "should be a list, found a string; read as a one-item list",
            );
            vec![Value::String(s.clone())]
        }
        Some(other) => {
            cx.warn(field, format!("should be a list, found {}", a_kind(other)));
            Vec::new()
        }
    }
}

fn normalize_provider(cx: &mut Ctx, provider: &Value) -> Option<Value> {
    let Value::Object(p) = provider else {
        cx.warn("provider", "is not an object; ignored");
        return None;
    };
    let organization = p.get("organization").and_then(Value::as_str);
    let url = p.get("url").and_then(Value::as_str);
    if organization.is_none() {
        cx.warn("provider.organization", "is required but missing");
    }
    if url.is_none() {
        cx.warn("provider.url", "is required but missing");
    }
    Some(json!({"organization": organization.unwrap_or(""), "url": url.unwrap_or("")}))
}

/// The version of a v0.3 card's legacy interfaces: its `protocolVersion` (a number read as text), "0.1" for an
/// A2A 0.1 card, else "0.3.0" (spec digest §12), said in a warning.
fn legacy_version(cx: &mut Ctx, src: &Map<String, Value>, shape: CardShape) -> String {
    match src.get("protocolVersion") {
        Some(Value::String(v)) => v.clone(),
        Some(Value::Number(n)) => {
            cx.warn(
                "protocolVersion",
                "should be a string, found a number; read as text",
            );
            n.to_string()
        }
        Some(other) => {
            cx.warn(
                "protocolVersion",
                format!(
                    "should be a string, found {}; assuming 0.3.0",
                    a_kind(other)
                ),
            );
            "0.3.0".into()
        }
        None if shape == CardShape::V01 => {
            cx.warn(
                "authentication",
                "an A2A 0.1 card (`authentication`, no `securitySchemes` or `protocolVersion`): 0.1 used other \
                 methods (tasks/send), which the console does not speak",
            );
            "0.1".into()
        }
        None => {
            if rules::has_legacy_endpoint(src) {
                cx.warn(
                    "protocolVersion",
                    "is missing; assuming 0.3.0 (0.2.x cards speak the same JSON-RPC wire)",
                );
            }
            "0.3.0".into()
        }
    }
}

fn normalize_capabilities(cx: &mut Ctx, src: &Map<String, Value>) -> Value {
    let mut caps = Map::new();
    match src.get("capabilities") {
        Some(Value::Object(c)) => {
            for key in ["streaming", "pushNotifications", "extendedAgentCard"] {
                match c.get(key) {
                    Some(Value::Bool(b)) => {
                        caps.insert(key.into(), Value::Bool(*b));
                    }
                    Some(Value::Null) | None => {}
                    Some(_) => cx.warn(
                        format!("capabilities.{key}"),
                        "should be true or false; ignored",
                    ),
                }
            }
            if let Some(exts) = c.get("extensions") {
                caps.insert("extensions".into(), normalize_extensions(cx, exts));
            }
        }
        Some(_) => cx.warn("capabilities", "is not an object; ignored"),
        None => cx.warn("capabilities", "is required but missing"),
    }
    // v0.3 kept the extended-card flag at the top level.
    if let Some(Value::Bool(b)) = src.get("supportsAuthenticatedExtendedCard") {
        caps.entry("extendedAgentCard").or_insert(Value::Bool(*b));
    }
    Value::Object(caps)
}

fn normalize_extensions(cx: &mut Ctx, v: &Value) -> Value {
    let Value::Array(list) = v else {
        cx.warn("capabilities.extensions", "is not a list; ignored");
        return Value::Array(Vec::new());
    };
    let kept = list
        .iter()
        .enumerate()
        .filter_map(|(i, e)| {
            let uri = e.get("uri").and_then(Value::as_str);
            let Some(uri) = uri else {
                cx.warn(
                    format!("capabilities.extensions[{i}]"),
                    "has no `uri`; ignored",
                );
                return None;
            };
            let mut out = json!({"uri": uri});
            if let Some(d) = e.get("description").and_then(Value::as_str) {
                out["description"] = Value::String(d.into());
            }
            if let Some(r) = e.get("required").and_then(Value::as_bool) {
                out["required"] = Value::Bool(r);
            }
            if let Some(p @ Value::Object(_)) = e.get("params") {
                out["params"] = p.clone();
            }
            Some(out)
        })
        .collect();
    Value::Array(kept)
}

fn normalize_skills(cx: &mut Ctx, v: Option<&Value>) -> Value {
    let list = match v {
        Some(Value::Array(list)) => list,
        Some(Value::Null) | None => {
            cx.warn("skills", "is required but missing");
            return Value::Array(Vec::new());
        }
        Some(other) => {
            cx.warn(
                "skills",
                format!("should be a list, found {}", a_kind(other)),
            );
            return Value::Array(Vec::new());
        }
    };
    let mut out = Vec::new();
    for (i, s) in list.iter().enumerate() {
        let field = format!("skills[{i}]");
        let Value::Object(o) = s else {
            cx.warn(field, "is not an object; ignored");
            continue;
        };
        let mut skill = Map::new();
        for key in ["id", "name", "description"] {
            let path = format!("{field}.{key}");
            let value = match opt_string(cx, o, key, &path) {
                Some(v) => v,
                None => {
                    if !o.contains_key(key) {
                        cx.warn(path, "is required but missing");
                    }
                    String::new()
                }
            };
            skill.insert(key.into(), Value::String(value));
        }
        let tags = string_list(cx, o.get("tags"), &format!("{field}.tags"), true);
        skill.insert("tags".into(), Value::Array(tags));
        for key in ["examples", "inputModes", "outputModes"] {
            if o.contains_key(key) {
                let list = string_list(cx, o.get(key), &format!("{field}.{key}"), false);
                skill.insert(key.into(), Value::Array(list));
            }
        }
        let reqs = o
            .get("securityRequirements")
            .map(|v| ("securityRequirements", v))
            .or_else(|| o.get("security").map(|v| ("security", v)));
        if let Some((key, v)) = reqs {
            let path = format!("{field}.{key}");
            skill.insert(
                "securityRequirements".into(),
                normalize_requirements(cx, &path, v),
            );
        }
        out.push(Value::Object(skill));
    }
    Value::Array(out)
}
