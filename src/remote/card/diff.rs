//! What changed between two versions of an agent's card, field by field, and which changes break a client
//! that relied on the older one: an interface (a binding at a version) removed, a protocol version changed, a
//! security scheme added or changed, the security requirements changed, a skill removed, a capability
//! withdrawn. Lists are compared by identity (interfaces by binding and version, skills by id, schemes by
//! name), not by position, so a reordered card is not a changed one. Values are quoted sanitised and short.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::{Map, Value};

use super::rules::quote;

/// One change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CardChange {
    /// Where: `name`, `skills[echo].description`, `supportedInterfaces[JSONRPC 1.0].url` …
    pub field: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// Why it breaks a client, when it does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breaking: Option<String>,
}

impl CardChange {
    /// One line: `~ skills[echo].description: "a" → "b"`, `- skills[echo]` …, with the breaking reason.
    pub fn line(&self) -> String {
        let body = match (&self.before, &self.after) {
            (Some(b), Some(a)) => format!("~ {}: {b} → {a}", self.field),
            (None, Some(a)) => format!("+ {}: {a}", self.field),
            (Some(b), None) => format!("- {}: {b}", self.field),
            (None, None) => format!("~ {}", self.field),
        };
        match &self.breaking {
            Some(why) => format!("{body}   ✗ breaking: {why}"),
            None => body,
        }
    }
}

/// Every change from `old` to `new` (both cards as JSON): breaking ones first.
pub fn diff(old: &Value, new: &Value) -> Vec<CardChange> {
    let empty = Map::new();
    let (o, n) = (
        old.as_object().unwrap_or(&empty),
        new.as_object().unwrap_or(&empty),
    );
    let mut out = Vec::new();
    interfaces(o, n, &mut out);
    keyed(
        o,
        n,
        "skills",
        |s| s.get("id").and_then(Value::as_str).map(str::to_string),
        &mut out,
        |c| {
            (c.before.is_some() && c.after.is_none() && !c.field.contains("]."))
                .then(|| "a skill was removed".to_string())
        },
    );
    schemes(o, n, &mut out);
    if o.get("securityRequirements") != n.get("securityRequirements") {
        out.push(change(
            "securityRequirements",
            o.get("securityRequirements"),
            n.get("securityRequirements"),
            Some("the credentials a call needs changed".into()),
        ));
    }
    capabilities(o, n, &mut out);
    let handled: BTreeSet<&str> = [
        "supportedInterfaces",
        "skills",
        "securitySchemes",
        "securityRequirements",
        "capabilities",
        "signatures",
    ]
    .into_iter()
    .collect();
    let keys: BTreeSet<&String> = o.keys().chain(n.keys()).collect();
    for k in keys {
        if handled.contains(k.as_str()) {
            continue;
        }
        if o.get(k) != n.get(k) {
            out.push(change(k, o.get(k), n.get(k), None));
        }
    }
    // A card signed again over the same content has new signature bytes (ES256 signatures are randomised):
    // only a change of the signing keys and algorithms (the protected headers) is a change of the card.
    if protected(o.get("signatures")) != protected(n.get("signatures")) {
        out.push(CardChange {
            field: "signatures".into(),
            before: Some(count(o.get("signatures"))),
            after: Some(count(n.get("signatures"))),
            breaking: None,
        });
    }
    out.sort_by_key(|c| c.breaking.is_none());
    out
}

/// The protected headers of a card's signatures (which keys, which algorithms), in order.
fn protected(v: Option<&Value>) -> Vec<Option<&Value>> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().map(|s| s.get("protected")).collect())
        .unwrap_or_default()
}

fn count(v: Option<&Value>) -> String {
    match v.and_then(Value::as_array).map(Vec::len) {
        Some(1) => "1 signature".into(),
        Some(n) => format!("{n} signatures"),
        None => "none".into(),
    }
}

fn shown(v: &Value) -> String {
    match v {
        Value::String(s) => quote(s),
        other => quote(&other.to_string()),
    }
}

fn change(
    field: &str,
    before: Option<&Value>,
    after: Option<&Value>,
    breaking: Option<String>,
) -> CardChange {
    CardChange {
        field: crate::trust::sanitize::sanitize_line(field).0,
        before: before.map(shown),
        after: after.map(shown),
        breaking,
    }
}

/// A list's entries by their identity (entries without one are left out: the card's own rules flag them).
fn by_key(
    list: Option<&Value>,
    key: &impl Fn(&Value) -> Option<String>,
) -> BTreeMap<String, Value> {
    list.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| Some((key(v)?, v.clone())))
        .collect()
}

/// Compare a list of objects by identity: entries removed, added, and changed field by field. `breaking`
/// judges each change.
fn keyed(
    o: &Map<String, Value>,
    n: &Map<String, Value>,
    list: &str,
    key: impl Fn(&Value) -> Option<String>,
    out: &mut Vec<CardChange>,
    breaking: impl Fn(&CardChange) -> Option<String>,
) {
    let (before, after) = (by_key(o.get(list), &key), by_key(n.get(list), &key));
    let ids: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    for id in ids {
        let field = format!("{list}[{id}]");
        match (before.get(id), after.get(id)) {
            (Some(b), None) => {
                let mut c = change(&field, Some(&Value::from(summary(b))), None, None);
                c.breaking = breaking(&c);
                out.push(c);
            }
            (None, Some(a)) => {
                let mut c = change(&field, None, Some(&Value::from(summary(a))), None);
                c.breaking = breaking(&c);
                out.push(c);
            }
            (Some(b), Some(a)) if b != a => {
                let empty = Map::new();
                let (bo, ao) = (
                    b.as_object().unwrap_or(&empty),
                    a.as_object().unwrap_or(&empty),
                );
                let keys: BTreeSet<&String> = bo.keys().chain(ao.keys()).collect();
                for k in keys {
                    if bo.get(k) != ao.get(k) {
                        let mut c = change(&format!("{field}.{k}"), bo.get(k), ao.get(k), None);
                        c.breaking = breaking(&c);
                        out.push(c);
                    }
                }
            }
            _ => {}
        }
    }
}

/// A list entry in a few words: its name, else its JSON.
fn summary(v: &Value) -> String {
    v.get("name")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| v.to_string())
}

/// Interfaces, by binding and version: one removed breaks clients that used it; the same binding at
/// another version is a protocol version change.
fn interfaces(o: &Map<String, Value>, n: &Map<String, Value>, out: &mut Vec<CardChange>) {
    let key = |v: &Value| {
        Some(format!(
            "{} {}",
            v.get("protocolBinding")?.as_str()?,
            v.get("protocolVersion")
                .and_then(Value::as_str)
                .unwrap_or("?")
        ))
    };
    let after = by_key(n.get("supportedInterfaces"), &key);
    let bindings_after: BTreeMap<String, String> = after
        .keys()
        .filter_map(|k| {
            k.split_once(' ')
                .map(|(b, v)| (b.to_string(), v.to_string()))
        })
        .collect();
    keyed(o, n, "supportedInterfaces", key, out, |c| {
        let id = c
            .field
            .strip_prefix("supportedInterfaces[")?
            .split(']')
            .next()?
            .to_string();
        let (binding, version) = id.split_once(' ')?;
        if c.before.is_some() && c.after.is_none() && !c.field.contains("].") {
            return Some(match bindings_after.get(binding) {
                Some(v) if v != version => {
                    format!("protocol version changed ({binding} {version} → {v})")
                }
                _ => format!("the {binding} {version} interface was removed"),
            });
        }
        (c.field.ends_with("].url") || c.field.ends_with("].tenant"))
            .then(|| format!("the {binding} {version} interface moved"))
    });
}

/// Security schemes by name: one added or changed breaks clients (they may lack the credential it asks
/// for); one removed does not.
fn schemes(o: &Map<String, Value>, n: &Map<String, Value>, out: &mut Vec<CardChange>) {
    let empty = Map::new();
    let (b, a) = (
        o.get("securitySchemes")
            .and_then(Value::as_object)
            .unwrap_or(&empty),
        n.get("securitySchemes")
            .and_then(Value::as_object)
            .unwrap_or(&empty),
    );
    let names: BTreeSet<&String> = b.keys().chain(a.keys()).collect();
    for name in names {
        let field = format!("securitySchemes[{name}]");
        match (b.get(name), a.get(name)) {
            (None, Some(v)) => out.push(change(
                &field,
                None,
                Some(v),
                Some("a security scheme was added".into()),
            )),
            (Some(old), Some(new)) if old != new => out.push(change(
                &field,
                Some(old),
                Some(new),
                Some("a security scheme changed".into()),
            )),
            (Some(v), None) => out.push(change(&field, Some(v), None, None)),
            _ => {}
        }
    }
}

/// Capabilities: one withdrawn (true before, not now) breaks clients that used it.
fn capabilities(o: &Map<String, Value>, n: &Map<String, Value>, out: &mut Vec<CardChange>) {
    let (b, a) = (o.get("capabilities"), n.get("capabilities"));
    if b == a {
        return;
    }
    let empty = Map::new();
    let (bo, ao) = (
        b.and_then(Value::as_object).unwrap_or(&empty),
        a.and_then(Value::as_object).unwrap_or(&empty),
    );
    let keys: BTreeSet<&String> = bo.keys().chain(ao.keys()).collect();
    for k in keys {
        if bo.get(k) == ao.get(k) {
            continue;
        }
        let withdrawn =
            bo.get(k) == Some(&Value::Bool(true)) && ao.get(k) != Some(&Value::Bool(true));
        out.push(change(
            &format!("capabilities.{k}"),
            bo.get(k),
            ao.get(k),
            withdrawn.then(|| format!("the {k} capability was withdrawn")),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn card() -> Value {
        json!({
            "name": "A", "description": "d", "version": "1",
            "supportedInterfaces": [
                {"url": "http://h/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
                {"url": "http://h/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}
            ],
            "capabilities": {"streaming": true},
            "securitySchemes": {"k": {"apiKeySecurityScheme": {"location": "header", "name": "X-Key"}}},
            "skills": [{"id": "echo", "name": "Echo", "description": "echoes", "tags": ["t"]},
                       {"id": "sum", "name": "Sum", "description": "adds", "tags": ["t"]}]
        })
    }

    fn breaking(c: &[CardChange]) -> Vec<String> {
        c.iter().filter_map(|c| c.breaking.clone()).collect()
    }

    #[test]
    fn the_same_card_reordered_has_no_change() {
        let mut b = card();
        b["skills"] = json!([card()["skills"][1], card()["skills"][0]]);
        b["supportedInterfaces"] = json!([
            card()["supportedInterfaces"][1],
            card()["supportedInterfaces"][0]
        ]);
        assert_eq!(diff(&card(), &b), vec![]);
    }

    #[test]
    fn field_changes_are_listed_and_only_client_breaking_ones_flagged() {
        let mut b = card();
        b["version"] = "2".into();
        b["skills"][0]["description"] = "echoes loudly".into();
        let c = diff(&card(), &b);
        assert_eq!(c.len(), 2, "{c:?}");
        assert!(breaking(&c).is_empty());
        assert!(
            c.iter()
                .any(|x| x.line() == "~ skills[echo].description: \"echoes\" → \"echoes loudly\""),
            "{c:?}"
        );
        assert!(c.iter().any(|x| x.line() == "~ version: \"1\" → \"2\""));
    }

    #[test]
    fn each_breaking_change_says_why() {
        type Change = Box<dyn Fn(&mut Value)>;
        let cases: Vec<(&str, Change)> = vec![
            (
                "the HTTP+JSON 1.0 interface was removed",
                Box::new(|c| {
                    c["supportedInterfaces"].as_array_mut().unwrap().pop();
                }),
            ),
            (
                "protocol version changed (JSONRPC 1.0 → 1.1)",
                Box::new(|c| c["supportedInterfaces"][0]["protocolVersion"] = "1.1".into()),
            ),
            (
                "the JSONRPC 1.0 interface moved",
                Box::new(|c| c["supportedInterfaces"][0]["url"] = "http://h/v2".into()),
            ),
            (
                "a skill was removed",
                Box::new(|c| {
                    c["skills"].as_array_mut().unwrap().pop();
                }),
            ),
            (
                "a security scheme was added",
                Box::new(|c| {
                    c["securitySchemes"]["oidc"] =
                        json!({"openIdConnectSecurityScheme": {"openIdConnectUrl": "https://i"}})
                }),
            ),
            (
                "a security scheme changed",
                Box::new(|c| {
                    c["securitySchemes"]["k"]["apiKeySecurityScheme"]["name"] = "X-Other".into()
                }),
            ),
            (
                "the credentials a call needs changed",
                Box::new(|c| c["securityRequirements"] = json!([{"schemes": {"k": {"list": []}}}])),
            ),
            (
                "the streaming capability was withdrawn",
                Box::new(|c| c["capabilities"] = json!({})),
            ),
        ];
        for (why, f) in cases {
            let mut b = card();
            f(&mut b);
            let c = diff(&card(), &b);
            assert_eq!(breaking(&c), vec![why.to_string()], "{c:?}");
            assert!(
                c[0].line().contains("✗ breaking"),
                "breaking changes come first"
            );
        }
        // Adding a skill or an interface breaks nothing.
        let mut b = card();
        b["skills"]
            .as_array_mut()
            .unwrap()
            .push(json!({"id": "new", "name": "New", "description": "d", "tags": []}));
        assert!(breaking(&diff(&card(), &b)).is_empty());
    }

    #[test]
    fn a_card_signed_again_is_not_a_changed_card_but_another_key_is() {
        let mut a = card();
        a["signatures"] = json!([{"protected": "eyJraWQiOiJrMSJ9", "signature": "AAA"}]);
        let mut b = a.clone();
        b["signatures"][0]["signature"] = "BBB".into();
        assert_eq!(diff(&a, &b), vec![]);
        b["signatures"][0]["protected"] = "eyJraWQiOiJrMiJ9".into();
        assert_eq!(diff(&a, &b).len(), 1);
    }

    #[test]
    fn remote_text_is_quoted_clean() {
        let mut b = card();
        b["name"] = "A\u{1b}[31mred".into();
        let c = diff(&card(), &b);
        assert!(!c[0].line().contains('\u{1b}'), "{:?}", c[0].line());
    }
}
