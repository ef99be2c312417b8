//! Security for `normalize`: schemes (v1.0 wrappers, flat v0.3 `type` objects, the JS SDK's internal `$case`
//! form; several v0.3 OAuth flows cut to the one v1.0 allows) and requirements (v1.0 and v0.3 forms), each
//! rewritten into the v1.0 shape with a warning for what was dropped (rules: `card::rules`).

use serde_json::{Map, Value, json};

use super::{Ctx, SCHEME_KEYS, quote};

pub(super) fn normalize_schemes(cx: &mut Ctx, v: &Value) -> Value {
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
    // @a2a-js/sdk 1.3.0 wired as its docs show serves its internal objects: `{"scheme": {"$case": wrapper,
    // "value": inner}}`. Unambiguous, so read it as the v1.0 wrapper it stands for.
    if let Some(Value::Object(internal)) = o.get("scheme")
        && let Some(case) = internal.get("$case").and_then(Value::as_str)
        && let Some(key) = SCHEME_KEYS.iter().find(|k| **k == case)
    {
        cx.warn(
            field,
            "is in the @a2a-js/sdk internal shape ({\"scheme\": {\"$case\": …}}), not ProtoJSON; read anyway",
        );
        let unwrapped = json!({ *key: internal.get("value").cloned().unwrap_or(json!({})) });
        return normalize_scheme(cx, field, &unwrapped);
    }
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
                format!("unknown security scheme type {}; ignored", quote(other)),
            );
            None
        }
        None => {
            let keys: Vec<String> = o.keys().take(3).map(|k| quote(k)).collect();
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
        let keys: Vec<String> = f.keys().take(5).map(|k| quote(k)).collect();
        cx.warn(
            format!("{field}.flows"),
            format!("has no known flow ({}); scheme ignored", keys.join(", ")),
        );
        return None;
    };
    if f.len() > 1 {
        let dropped: Vec<String> = f
            .keys()
            .filter(|k| k != chosen)
            .take(5)
            .map(|k| quote(k))
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
                    crate::remote::card::normalize::json_kind(other)
                ),
            );
            return None;
        }
    }
    Some(json!({ *chosen: flow }))
}

/// Accept v1.0 `[{"schemes": {name: {"list": [..]}}}]` and v0.3 `[{name: [..]}]`; emit the v1.0 form.
pub(super) fn normalize_requirements(cx: &mut Ctx, field: &str, v: &Value) -> Value {
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

pub(super) fn check_requirements_reference_schemes(cx: &mut Ctx, card: &Map<String, Value>) {
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
                            format!("names scheme {}, which securitySchemes does not declare (or was ignored)", quote(name)),
                        );
                    }
                }
            }
        }
    }
}
