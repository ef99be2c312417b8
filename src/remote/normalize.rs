//! Lenient agent-card loading: any card seen in the wild (v1.0, v0.3, a hybrid of both, or one with a scheme
//! type we do not know) becomes the SDK's v1.0 `AgentCard`, plus a list of warnings saying what was off.
//!
//! The SDK's strict serde types reject a whole card over one unknown security-scheme variant or a v0.3 shape
//! (spec digest §12); a console that shows nothing for such an agent is useless, so we rewrite the JSON into
//! the v1.0 shape first and only then hand it to the SDK's types.

use serde_json::{Map, Value, json};
use url::Url;

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

/// Which protocol generation the card's shape belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CardShape {
    V1,
    V03,
    /// v1.0 `supportedInterfaces` plus v0.3 top-level fields (what SDK servers with 0.3 compat publish).
    Hybrid,
}

impl CardShape {
    pub fn label(self) -> &'static str {
        match self {
            CardShape::V1 => "v1.0",
            CardShape::V03 => "v0.3",
            CardShape::Hybrid => "v1.0 + v0.3 (hybrid)",
        }
    }
}

/// The result of normalising: v1.0-shaped JSON ready for the SDK's types.
#[derive(Clone, Debug)]
pub struct Normalized {
    pub card: Value,
    pub shape: CardShape,
    pub warnings: Vec<CardWarning>,
}

const KNOWN_BINDINGS: &[&str] = &["JSONRPC", "HTTP+JSON", "GRPC"];

struct Ctx {
    warnings: Vec<CardWarning>,
}

impl Ctx {
    fn warn(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.warnings.push(CardWarning {
            field: field.into(),
            message: message.into(),
        });
    }
}

/// Rewrite `raw` into the v1.0 card shape. `card_url` is where it was fetched from (for origin checks and
/// to resolve relative interface URLs). Fails only when the document is not a JSON object at all.
pub fn normalize(raw: &Value, card_url: Option<&Url>) -> Result<Normalized, String> {
    let Value::Object(src) = raw else {
        return Err(format!(
            "the card is a JSON {}, not an object",
            json_kind(raw)
        ));
    };
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

fn json_kind(v: &Value) -> &'static str {
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
        Some(other) => {
            cx.warn(
                key,
                format!("should be a string, found a {}", json_kind(other)),
            );
            String::new()
        }
        None => {
            cx.warn(key, "is required but missing");
            String::new()
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
        Some(other) => {
            cx.warn(
                field,
                format!("should be a list, found a {}", json_kind(other)),
            );
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

/// Build `supportedInterfaces` from whichever shape the card has; report the shape.
fn normalize_interfaces(
    cx: &mut Ctx,
    src: &Map<String, Value>,
    card_url: Option<&Url>,
) -> (Vec<Value>, CardShape) {
    let legacy_version = src
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or("0.3.0")
        .to_string();
    let has_legacy = src.contains_key("url") || src.contains_key("preferredTransport");
    let mut out: Vec<Value> = Vec::new();

    let shape = match src.get("supportedInterfaces") {
        Some(Value::Array(list)) => {
            for (i, iface) in list.iter().enumerate() {
                let field = format!("supportedInterfaces[{i}]");
                let Value::Object(o) = iface else {
                    cx.warn(field, "is not an object; ignored");
                    continue;
                };
                let url = o.get("url").and_then(Value::as_str);
                // Some early v1.0 drafts (and one SDK) used `transport` for the binding.
                let binding = o
                    .get("protocolBinding")
                    .or_else(|| o.get("transport"))
                    .and_then(Value::as_str);
                let version = o.get("protocolVersion").and_then(Value::as_str);
                let Some(url) = url else {
                    cx.warn(
                        format!("{field}.url"),
                        "is required but missing; interface ignored",
                    );
                    continue;
                };
                let binding = binding.unwrap_or_else(|| {
                    cx.warn(
                        format!("{field}.protocolBinding"),
                        "is missing; assuming JSONRPC",
                    );
                    "JSONRPC"
                });
                let version = match version {
                    Some(v) => v.to_string(),
                    None => {
                        cx.warn(
                            format!("{field}.protocolVersion"),
                            "is missing; assuming 1.0",
                        );
                        "1.0".to_string()
                    }
                };
                let mut entry =
                    json!({"url": url, "protocolBinding": binding, "protocolVersion": version});
                if let Some(t) = o
                    .get("tenant")
                    .and_then(Value::as_str)
                    .filter(|t| !t.is_empty())
                {
                    entry["tenant"] = Value::String(t.into());
                }
                out.push(entry);
            }
            if has_legacy {
                CardShape::Hybrid
            } else {
                CardShape::V1
            }
        }
        Some(_) => {
            cx.warn("supportedInterfaces", "is not a list; ignored");
            CardShape::V03
        }
        None => CardShape::V03,
    };

    if has_legacy {
        // v0.3: `url` + `preferredTransport` is the main interface, `additionalInterfaces` the rest. On a hybrid
        // card the top-level `url` is the 0.3 endpoint (spec digest §12.3), so it goes after the v1.0 ones.
        let mut legacy = Vec::new();
        if let Some(url) = src.get("url").and_then(Value::as_str) {
            let binding = src
                .get("preferredTransport")
                .and_then(Value::as_str)
                .unwrap_or("JSONRPC");
            legacy.push((url.to_string(), binding.to_string()));
        } else {
            cx.warn("url", "v0.3 card without `url`");
        }
        if let Some(Value::Array(extra)) = src.get("additionalInterfaces") {
            for (i, e) in extra.iter().enumerate() {
                match (
                    e.get("url").and_then(Value::as_str),
                    e.get("transport").and_then(Value::as_str),
                ) {
                    (Some(u), Some(t)) => legacy.push((u.to_string(), t.to_string())),
                    _ => cx.warn(
                        format!("additionalInterfaces[{i}]"),
                        "needs `url` and `transport`; ignored",
                    ),
                }
            }
        }
        for (url, binding) in legacy {
            let duplicate = out.iter().any(|o| {
                o["url"] == Value::String(url.clone())
                    && o["protocolBinding"] == Value::String(binding.clone())
                    && o["protocolVersion"] == Value::String(legacy_version.clone())
            });
            if !duplicate {
                out.push(json!({"url": url, "protocolBinding": binding, "protocolVersion": legacy_version}));
            }
        }
    } else if shape == CardShape::V03 {
        cx.warn(
            "supportedInterfaces",
            "is required but missing, and there is no v0.3 `url` either",
        );
    }

    if out.is_empty() {
        cx.warn(
            "supportedInterfaces",
            "no usable interface: the agent cannot be called",
        );
    }
    for (i, iface) in out.iter_mut().enumerate() {
        check_interface(cx, i, iface, card_url);
    }
    (out, shape)
}

/// Resolve relative URLs and warn about bindings, other origins and plain http.
fn check_interface(cx: &mut Ctx, i: usize, iface: &mut Value, card_url: Option<&Url>) {
    let field = format!("supportedInterfaces[{i}]");
    let binding = iface["protocolBinding"].as_str().unwrap_or("").to_string();
    if !KNOWN_BINDINGS.contains(&binding.as_str()) {
        cx.warn(
            format!("{field}.protocolBinding"),
            format!(
                "unknown binding {binding:?}; the console can only use JSONRPC, HTTP+JSON and GRPC"
            ),
        );
    }
    let raw_url = iface["url"].as_str().unwrap_or("").to_string();
    if binding == "GRPC" {
        // gRPC interfaces are `host:port`; there is no scheme to check.
        return;
    }
    let parsed = match Url::parse(&raw_url) {
        Ok(u) => u,
        Err(url::ParseError::RelativeUrlWithoutBase) => match card_url.map(|b| b.join(&raw_url)) {
            Some(Ok(u)) => {
                cx.warn(
                    format!("{field}.url"),
                    format!("is relative ({raw_url}); resolved against the card URL"),
                );
                iface["url"] = Value::String(u.to_string());
                u
            }
            _ => {
                cx.warn(
                    format!("{field}.url"),
                    format!("is not a valid URL: {raw_url}"),
                );
                return;
            }
        },
        Err(e) => {
            cx.warn(
                format!("{field}.url"),
                format!("is not a valid URL ({e}): {raw_url}"),
            );
            return;
        }
    };
    if let Some(card) = card_url
        && parsed.origin() != card.origin()
    {
        cx.warn(
            format!("{field}.url"),
            format!(
                "is on another origin ({}) than the card ({}); requests go there",
                parsed.origin().ascii_serialization(),
                card.origin().ascii_serialization()
            ),
        );
    }
    if parsed.scheme() == "http" && !is_loopback_host(&parsed) {
        cx.warn(
            format!("{field}.url"),
            "uses plain http to a non-loopback host: requests and credentials travel unencrypted",
        );
    }
}

/// Whether the URL's host is this machine.
pub fn is_loopback_host(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
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
                format!("should be a list, found a {}", json_kind(other)),
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
            let value = match o.get(key).and_then(Value::as_str) {
                Some(v) => v.to_string(),
                None => {
                    cx.warn(format!("{field}.{key}"), "is required but missing");
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

/// v1.0 wrapper keys of the `SecurityScheme` oneof.
const SCHEME_KEYS: &[&str] = &[
    "apiKeySecurityScheme",
    "httpAuthSecurityScheme",
    "oauth2SecurityScheme",
    "openIdConnectSecurityScheme",
    "mtlsSecurityScheme",
];

fn normalize_schemes(cx: &mut Ctx, v: &Value) -> Value {
    let Value::Object(schemes) = v else {
        cx.warn("securitySchemes", "is not an object; ignored");
        return Value::Object(Map::new());
    };
    let mut out = Map::new();
    for (name, scheme) in schemes {
        let field = format!("securitySchemes.{name}");
        if let Some(s) = normalize_scheme(cx, &field, scheme) {
            // Last line of defence: if the SDK's type still rejects it, drop it rather than the card.
            if let Err(e) = serde_json::from_value::<a2a::SecurityScheme>(s.clone()) {
                cx.warn(field, format!("could not be read ({e}); ignored"));
            } else {
                out.insert(name.clone(), s);
            }
        }
    }
    Value::Object(out)
}

fn normalize_scheme(cx: &mut Ctx, field: &str, scheme: &Value) -> Option<Value> {
    let Value::Object(o) = scheme else {
        cx.warn(field, "is not an object; ignored");
        return None;
    };
    // v1.0 shape (a hybrid card may carry v0.3 `type`/`in` keys alongside; the wrapper wins).
    if let Some(key) = SCHEME_KEYS.iter().find(|k| o.contains_key(**k)) {
        let mut inner = o.get(*key).cloned().unwrap_or(Value::Null);
        if *key == "oauth2SecurityScheme"
            && let Some(flows) = inner.get("flows").cloned()
        {
            inner["flows"] = one_flow(cx, field, &flows)?;
        }
        return Some(json!({ *key: inner }));
    }
    let description = o.get("description").cloned();
    let with_description = |mut v: Value| {
        if let Some(d) = &description {
            v["description"] = d.clone();
        }
        v
    };
    match o.get("type").and_then(Value::as_str) {
        Some("apiKey") => {
            let location = o
                .get("in")
                .or_else(|| o.get("location"))
                .and_then(Value::as_str);
            let name = o.get("name").and_then(Value::as_str);
            match (location, name) {
                (Some(l), Some(n)) => Some(
                    json!({"apiKeySecurityScheme": with_description(json!({"location": l, "name": n}))}),
                ),
                _ => {
                    cx.warn(field, "apiKey scheme needs `in` and `name`; ignored");
                    None
                }
            }
        }
        Some("http") => {
            let Some(s) = o.get("scheme").and_then(Value::as_str) else {
                cx.warn(field, "http scheme needs `scheme`; ignored");
                return None;
            };
            let mut inner = json!({"scheme": s});
            if let Some(b) = o.get("bearerFormat").and_then(Value::as_str) {
                inner["bearerFormat"] = Value::String(b.into());
            }
            Some(json!({"httpAuthSecurityScheme": with_description(inner)}))
        }
        Some("oauth2") => {
            let flows = o.get("flows").cloned().unwrap_or(Value::Null);
            let mut inner = json!({"flows": one_flow(cx, field, &flows)?});
            if let Some(m) = o.get("oauth2MetadataUrl").and_then(Value::as_str) {
                inner["oauth2MetadataUrl"] = Value::String(m.into());
            }
            Some(json!({"oauth2SecurityScheme": with_description(inner)}))
        }
        Some("openIdConnect") => match o.get("openIdConnectUrl").and_then(Value::as_str) {
            Some(u) => Some(
                json!({"openIdConnectSecurityScheme": with_description(json!({"openIdConnectUrl": u}))}),
            ),
            None => {
                cx.warn(
                    field,
                    "openIdConnect scheme needs `openIdConnectUrl`; ignored",
                );
                None
            }
        },
        Some("mutualTLS") => Some(json!({"mtlsSecurityScheme": with_description(json!({}))})),
        Some(other) => {
            cx.warn(
                field,
                format!("unknown security scheme type {other:?}; ignored"),
            );
            None
        }
        None => {
            let keys: Vec<&str> = o.keys().map(String::as_str).take(3).collect();
            cx.warn(
                field,
                format!(
                    "unknown security scheme (keys: {}); ignored",
                    keys.join(", ")
                ),
            );
            None
        }
    }
}

/// v1.0 `OAuthFlows` is a oneof; v0.3 allowed several. Keep the first flow we know, in order of preference for
/// a terminal app, and say which were dropped.
fn one_flow(cx: &mut Ctx, field: &str, flows: &Value) -> Option<Value> {
    let Value::Object(f) = flows else {
        cx.warn(format!("{field}.flows"), "is not an object; scheme ignored");
        return None;
    };
    const PREFERENCE: &[&str] = &[
        "deviceCode",
        "authorizationCode",
        "clientCredentials",
        "implicit",
        "password",
    ];
    let Some(chosen) = PREFERENCE.iter().find(|k| f.contains_key(**k)) else {
        let keys: Vec<&str> = f.keys().map(String::as_str).collect();
        cx.warn(
            format!("{field}.flows"),
            format!("has no known flow ({}); scheme ignored", keys.join(", ")),
        );
        return None;
    };
    if f.len() > 1 {
        let dropped: Vec<&str> = f
            .keys()
            .map(String::as_str)
            .filter(|k| k != chosen)
            .collect();
        cx.warn(
            format!("{field}.flows"),
            format!(
                "declares several flows (v0.3 style); using {chosen}, ignoring {}",
                dropped.join(", ")
            ),
        );
    }
    let mut flow = f.get(*chosen).cloned().unwrap_or(Value::Null);
    match &mut flow {
        Value::Object(m) => {
            m.entry("scopes").or_insert_with(|| json!({}));
        }
        Value::Null => flow = json!({"scopes": {}}),
        // Indexing into anything else to add `scopes` would panic (found by fuzzing: `"deviceCode": 5`).
        other => {
            cx.warn(
                format!("{field}.flows.{chosen}"),
                format!(
                    "should be an object, found a {}; scheme ignored",
                    json_kind(other)
                ),
            );
            return None;
        }
    }
    Some(json!({ *chosen: flow }))
}

/// Accept v1.0 `[{"schemes": {name: {"list": [..]}}}]` and v0.3 `[{name: [..]}]`; emit the v1.0 form.
fn normalize_requirements(cx: &mut Ctx, field: &str, v: &Value) -> Value {
    let Value::Array(list) = v else {
        cx.warn(field, "is not a list; ignored");
        return Value::Array(Vec::new());
    };
    let mut out = Vec::new();
    for (i, req) in list.iter().enumerate() {
        let Value::Object(o) = req else {
            cx.warn(format!("{field}[{i}]"), "is not an object; ignored");
            continue;
        };
        let map = match o.get("schemes") {
            Some(Value::Object(s)) => s,
            _ => o,
        };
        let mut schemes = Map::new();
        for (name, scopes) in map {
            let list = match scopes {
                Value::Array(a) => a.clone(),
                Value::Object(w) => match w.get("list") {
                    Some(Value::Array(a)) => a.clone(),
                    _ => Vec::new(),
                },
                _ => {
                    cx.warn(
                        format!("{field}[{i}].{name}"),
                        "scopes are not a list; treated as none",
                    );
                    Vec::new()
                }
            };
            let list: Vec<Value> = list.into_iter().filter(Value::is_string).collect();
            schemes.insert(name.clone(), json!({ "list": list }));
        }
        out.push(json!({ "schemes": schemes }));
    }
    Value::Array(out)
}

fn check_requirements_reference_schemes(cx: &mut Ctx, card: &Map<String, Value>) {
    let known: Vec<&String> = card
        .get("securitySchemes")
        .and_then(Value::as_object)
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    if let Some(Value::Array(reqs)) = card.get("securityRequirements") {
        for req in reqs {
            if let Some(Value::Object(s)) = req.get("schemes") {
                for name in s.keys() {
                    if !known.contains(&name) {
                        cx.warn(
                            "securityRequirements",
                            format!("names scheme {name:?}, which securitySchemes does not declare (or was ignored)"),
                        );
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(all.contains("unknown binding \"CARRIER-PIGEON\""), "{all}");
        // Still a card the SDK type accepts.
        let _ = to_card(&n);
    }

    /// Found by fuzzing (`fuzz card`): a flow that is not an object (`"deviceCode": 5`) panicked while
    /// `scopes` was added to it, taking the console down with the card.
    #[test]
    fn a_flow_that_is_not_an_object_costs_the_scheme_not_the_card() {
        let mut raw: Value = serde_json::from_str(crate::testing::PARTS_CARD).unwrap();
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

    /// Found by fuzzing (`fuzz card`): a signature whose `header` is not an object used to be kept, and the
    /// SDK's type then rejected the whole card ("could not be read even after normalising").
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

    #[test]
    fn not_an_object_is_an_error() {
        assert!(
            normalize(&json!([1, 2]), None)
                .unwrap_err()
                .contains("array")
        );
    }
}
