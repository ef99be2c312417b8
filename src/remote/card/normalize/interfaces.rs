//! The interfaces of a card, from whichever shape it has (v1.0 `supportedInterfaces`, v0.3 `url` +
//! `preferredTransport` + `additionalInterfaces`, or both on a hybrid card), each checked: bindings and
//! versions we can use (`rules::interface_use`), relative URLs resolved, other origins and plain http named.

use super::*;

/// The card's exact spelling of a binding it wrote in another case (`"jsonrpc"`), with a warning.
fn canonical_binding(cx: &mut Ctx, field: &str, binding: &str) -> String {
    match rules::KNOWN_BINDINGS
        .iter()
        .find(|k| k.eq_ignore_ascii_case(binding) && **k != binding)
    {
        Some(k) => {
            cx.warn(
                field,
                format!("{} should be spelled {k}; read as {k}", quote(binding)),
            );
            (*k).to_string()
        }
        None => binding.to_string(),
    }
}

/// Build `supportedInterfaces` from whichever shape the card has; report the shape.
pub(super) fn normalize_interfaces(
    cx: &mut Ctx,
    src: &Map<String, Value>,
    card_url: Option<&Url>,
) -> (Vec<Value>, CardShape) {
    let shape = rules::classify_shape(src);
    let legacy_version = legacy_version(cx, src, shape);
    let has_legacy = rules::has_legacy_endpoint(src);
    let (mut out, listed) = listed_interfaces(cx, src);
    if shape == CardShape::V03 && listed {
        cx.warn(
            "supportedInterfaces",
            "a v0.3 card that also lists v1.0 interfaces (as @a2a-js/sdk serves a client that sends no \
             A2A-Version); they are used too",
        );
    }

    if has_legacy {
        legacy_interfaces(cx, src, &legacy_version, &mut out);
    }

    let mut usable = 0;
    for (i, iface) in out.iter_mut().enumerate() {
        if check_interface(cx, i, iface, card_url) {
            usable += 1;
        }
    }
    if out.is_empty() {
        cx.warn(
            "supportedInterfaces",
            "the card lists no interfaces (no `supportedInterfaces`, no v0.3 `url`): it can be read, but the \
             agent cannot be called (card only)",
        );
    } else if usable == 0 {
        cx.warn(
            "supportedInterfaces",
            format!(
                "none of the {} interface(s) can be used (see above): the agent cannot be called (card only)",
                out.len()
            ),
        );
    }
    (out, shape)
}

/// Resolve relative URLs and warn about bindings and versions we cannot use (`rules::interface_use`),
/// other origins and plain http. Returns whether the interface is usable.
fn check_interface(cx: &mut Ctx, i: usize, iface: &mut Value, card_url: Option<&Url>) -> bool {
    let field = format!("supportedInterfaces[{i}]");
    let binding = iface["protocolBinding"].as_str().unwrap_or("").to_string();
    let version = iface["protocolVersion"].as_str().unwrap_or("").to_string();
    let usable = match rules::interface_use(&binding, &version) {
        InterfaceUse::Usable { note } => {
            if let Some(note) = note {
                cx.warn(format!("{field}.protocolVersion"), note);
            }
            true
        }
        InterfaceUse::Unusable { why, .. } => {
            cx.warn(&field, why);
            false
        }
    };
    let raw_url = iface["url"].as_str().unwrap_or("").to_string();
    if binding == "GRPC" {
        // gRPC interfaces are `host:port`; there is no scheme to check.
        return usable;
    }
    let parsed = match Url::parse(&raw_url) {
        Ok(u) => u,
        Err(url::ParseError::RelativeUrlWithoutBase) => match card_url.map(|b| b.join(&raw_url)) {
            Some(Ok(u)) => {
                cx.warn(
                    format!("{field}.url"),
                    format!(
                        "is relative ({}); resolved against the card URL",
                        quote(&raw_url)
                    ),
                );
                iface["url"] = Value::String(u.to_string());
                u
            }
            _ => {
                cx.warn(
                    format!("{field}.url"),
                    format!("is not a valid URL: {}", quote(&raw_url)),
                );
                return usable;
            }
        },
        Err(e) => {
            cx.warn(
                format!("{field}.url"),
                format!("is not a valid URL ({e}): {}", quote(&raw_url)),
            );
            return usable;
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
    usable
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

/// The v1.0 `supportedInterfaces`, each checked for its fields; and whether the card listed any.
fn listed_interfaces(cx: &mut Ctx, src: &Map<String, Value>) -> (Vec<Value>, bool) {
    let mut out: Vec<Value> = Vec::new();
    let listed: &[Value] = match src.get("supportedInterfaces") {
        Some(Value::Array(list)) => list,
        // One interface object where the list belongs: the author's intent is plain.
        Some(one @ Value::Object(_)) => {
            cx.warn(
                "supportedInterfaces",
                "should be a list, found an object; read as a one-item list",
            );
            std::slice::from_ref(one)
        }
        Some(other) => {
            cx.warn(
                "supportedInterfaces",
                format!("should be a list, found {}; ignored", a_kind(other)),
            );
            &[]
        }
        None => &[],
    };
    for (i, iface) in listed.iter().enumerate() {
        let field = format!("supportedInterfaces[{i}]");
        let Value::Object(o) = iface else {
            cx.warn(field, "is not an object; ignored");
            continue;
        };
        let Some(url) = opt_string(cx, o, "url", &format!("{field}.url")) else {
            cx.warn(
                format!("{field}.url"),
                "is required but missing; interface ignored",
            );
            continue;
        };
        // Some early v1.0 drafts (and one SDK) used `transport` for the binding.
        let binding_key = if o.contains_key("protocolBinding") {
            "protocolBinding"
        } else {
            "transport"
        };
        let binding_field = format!("{field}.protocolBinding");
        let binding = match opt_string(cx, o, binding_key, &binding_field) {
            Some(b) => canonical_binding(cx, &binding_field, &b),
            None => {
                cx.warn(binding_field, "is missing; assuming JSONRPC");
                "JSONRPC".to_string()
            }
        };
        let version_field = format!("{field}.protocolVersion");
        let version = match opt_string(cx, o, "protocolVersion", &version_field) {
            Some(v) => v,
            None => {
                cx.warn(version_field, "is missing; assuming 1.0");
                "1.0".to_string()
            }
        };
        let mut entry = json!({"url": url, "protocolBinding": binding, "protocolVersion": version});
        if let Some(t) = o
            .get("tenant")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
        {
            entry["tenant"] = Value::String(t.into());
        }
        out.push(entry);
    }
    (out, !listed.is_empty())
}

/// The v0.3 interfaces (`url` + `preferredTransport`, then `additionalInterfaces`), after the v1.0 ones and
/// without repeating one of them.
fn legacy_interfaces(
    cx: &mut Ctx,
    src: &Map<String, Value>,
    legacy_version: &str,
    out: &mut Vec<Value>,
) {
    // v0.3: `url` + `preferredTransport` is the main interface, `additionalInterfaces` the rest. On a hybrid
    // card the top-level `url` is the 0.3 endpoint (spec digest §12.3), so it goes after the v1.0 ones.
    let mut legacy = Vec::new();
    match opt_string(cx, src, "url", "url") {
        Some(url) => {
            let binding = opt_string(cx, src, "preferredTransport", "preferredTransport")
                .map(|b| canonical_binding(cx, "preferredTransport", &b))
                .unwrap_or_else(|| "JSONRPC".into());
            legacy.push((url, binding));
        }
        None => cx.warn("url", "v0.3 card without `url`"),
    }
    match src.get("additionalInterfaces") {
        Some(Value::Array(extra)) => {
            for (i, e) in extra.iter().enumerate() {
                match (
                    e.get("url").and_then(Value::as_str),
                    e.get("transport").and_then(Value::as_str),
                ) {
                    (Some(u), Some(t)) => {
                        let t = canonical_binding(cx, &format!("additionalInterfaces[{i}]"), t);
                        legacy.push((u.to_string(), t));
                    }
                    _ => cx.warn(
                        format!("additionalInterfaces[{i}]"),
                        "needs `url` and `transport`; ignored",
                    ),
                }
            }
        }
        Some(Value::Null) | None => {}
        Some(other) => cx.warn(
            "additionalInterfaces",
            format!("should be a list, found {}; ignored", a_kind(other)),
        ),
    }
    for (url, binding) in legacy {
        let duplicate = out.iter().any(|o| {
            o["url"] == Value::String(url.clone())
                && o["protocolBinding"] == Value::String(binding.clone())
                && o["protocolVersion"] == Value::String(legacy_version.to_string())
        });
        if !duplicate {
            out.push(
                json!({"url": url, "protocolBinding": binding, "protocolVersion": legacy_version}),
            );
        }
    }
}
