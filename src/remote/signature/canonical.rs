//! The payload forms a card's signature may have been computed over. Spec §8.4 says "the card minus
//! `signatures`, canonicalised with RFC 8785", but the spec and the SDKs disagree on which default values are
//! dropped first (A2A issue #2249), so a verifier that knows only one form rejects honest cards. Each form here
//! is built from the card AS FETCHED (`FetchedCard::raw`), never from our normalised struct, so a field we do
//! not model is still covered: adding one to a signed card breaks every form, which is what we want.

use serde_json::{Map, Value};

/// One way of turning the fetched card into signed bytes. The order of [`Form::ALL`] is the order tried.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// §8.4 as written, read for a raw JSON document: a publisher that follows the presence rules emits
    /// exactly the fields it means to sign (optional ones set to their default included, required ones even
    /// when empty), so the faithful reading of a fetched card is "keep what was present": we cannot tell an
    /// optional field set to `false` from one that was never set once it is JSON, and dropping it would turn
    /// the rule upside down. Only `signatures` is removed; then JCS.
    Spec,
    /// `a2a-sdk` (Python) 1.3.0, `utils/signing.py`: the card goes through the proto (`MessageToDict`, which
    /// already omits unset proto3 scalars, so the card it serves has none), then every empty string, list and
    /// map is dropped recursively (required ones too), then RFC 8785 (its own `_jcs.py`; older releases used
    /// `json.dumps(sort_keys=True)`, whose ASCII escapes we do not reproduce).
    PythonSdk,
    /// `@a2a-js/sdk` 1.3.0, `canonicalizeAgentCard`: a round trip through its generated types (`toJSON` drops
    /// every value equal to the proto default: `false` and `0` of fields without presence, and unknown keys),
    /// then `cleanEmpty` (drops `""`, `null`, empty lists and maps), then a JCS-style stringify. We apply the
    /// same drops to the raw card: `false`/`0` go except for the fields the proto declares `optional`, whose
    /// presence the type keeps; values inside `google.protobuf.Struct` fields are kept as they are.
    JsSdk,
}

impl Form {
    pub const ALL: [Form; 3] = [Form::Spec, Form::PythonSdk, Form::JsSdk];

    /// The name shown to the user and in `card --json`.
    pub fn label(self) -> &'static str {
        match self {
            Form::Spec => "spec (RFC 8785, fields as present)",
            Form::PythonSdk => "python-sdk (empty fields dropped)",
            Form::JsSdk => "js-sdk (proto defaults dropped)",
        }
    }

    /// A short machine name for `card --json`.
    pub fn id(self) -> &'static str {
        match self {
            Form::Spec => "spec",
            Form::PythonSdk => "python-sdk",
            Form::JsSdk => "js-sdk",
        }
    }
}

/// Fields of the v1.0 proto declared `optional` (explicit presence): a `false` there was set on purpose and
/// survives the JS SDK's round trip.
const OPTIONAL_SCALARS: [&str; 3] = ["streaming", "pushNotifications", "extendedAgentCard"];
/// Fields typed `google.protobuf.Struct`: free JSON, kept verbatim by the proto round trip.
const STRUCT_FIELDS: [&str; 2] = ["params", "metadata"];

/// Nesting deeper than this is refused rather than recursed into (the card is remote data).
const MAX_DEPTH: usize = 128;

/// The canonical bytes of `card` (a parsed fetched card, `signatures` still in it) in `form`, or why none.
pub fn payload(card: &Value, form: Form) -> Result<Vec<u8>, String> {
    let Value::Object(map) = card else {
        return Err("the card is not a JSON object".into());
    };
    let mut body = map.clone();
    body.remove("signatures");
    let body = Value::Object(body);
    let shaped = match form {
        Form::Spec => check_depth(&body, 0).map(|()| body)?,
        Form::PythonSdk => clean(&body, 0, Drop::Empty)?.unwrap_or(Value::Object(Map::new())),
        Form::JsSdk => clean(&body, 0, Drop::ProtoDefaults)?.unwrap_or(Value::Object(Map::new())),
    };
    serde_json_canonicalizer::to_vec(&shaped)
        .map_err(|e| format!("cannot canonicalise the card: {e}"))
}

#[derive(Clone, Copy, PartialEq)]
enum Drop {
    /// `""`, `null`, `[]`, `{}` (the Python SDK's `_clean_empty`).
    Empty,
    /// Those, and `false`/`0` outside optional and Struct fields (the JS SDK).
    ProtoDefaults,
    /// Inside a Struct under the JS rules: only what `cleanEmpty` drops.
    StructJs,
}

fn check_depth(v: &Value, depth: usize) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("the card nests deeper than {MAX_DEPTH} levels"));
    }
    match v {
        Value::Object(m) => m.values().try_for_each(|x| check_depth(x, depth + 1)),
        Value::Array(a) => a.iter().try_for_each(|x| check_depth(x, depth + 1)),
        _ => Ok(()),
    }
}

/// `v` with the dropped values removed; `None` when `v` itself is dropped.
fn clean(v: &Value, depth: usize, drop: Drop) -> Result<Option<Value>, String> {
    if depth > MAX_DEPTH {
        return Err(format!("the card nests deeper than {MAX_DEPTH} levels"));
    }
    Ok(match v {
        Value::String(s) if s.is_empty() => None,
        // Both SDKs drop `null` too (Python's filter keeps only `is not None`).
        Value::Null => None,
        Value::Array(items) => {
            let mut kept = Vec::with_capacity(items.len());
            for item in items {
                if let Some(c) = clean(item, depth + 1, drop)? {
                    kept.push(c);
                }
            }
            (!kept.is_empty()).then_some(Value::Array(kept))
        }
        Value::Object(m) => {
            let mut kept = Map::new();
            for (k, item) in m {
                let inner = match drop {
                    Drop::ProtoDefaults if STRUCT_FIELDS.contains(&k.as_str()) => Drop::StructJs,
                    d => d,
                };
                if drop == Drop::ProtoDefaults
                    && is_proto_default_scalar(item)
                    && !OPTIONAL_SCALARS.contains(&k.as_str())
                {
                    continue;
                }
                if let Some(c) = clean(item, depth + 1, inner)? {
                    kept.insert(k.clone(), c);
                }
            }
            (!kept.is_empty()).then_some(Value::Object(kept))
        }
        other => Some(other.clone()),
    })
}

fn is_proto_default_scalar(v: &Value) -> bool {
    match v {
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(card: &Value, form: Form) -> String {
        String::from_utf8(payload(card, form).unwrap()).unwrap()
    }

    #[test]
    fn spec_form_keeps_what_was_present_and_drops_only_signatures() {
        let card = json!({"name": "x", "description": "", "skills": [], "capabilities": {"streaming": false},
            "signatures": [{"protected": "a", "signature": "b"}]});
        assert_eq!(
            text(&card, Form::Spec),
            r#"{"capabilities":{"streaming":false},"description":"","name":"x","skills":[]}"#
        );
    }

    #[test]
    fn python_form_drops_every_empty_value_even_required_ones() {
        let card = json!({"name": "x", "description": "", "skills": [{"id": "s", "tags": []}],
            "capabilities": {}, "provider": {"url": "", "organization": ""}, "n": 0, "f": false});
        assert_eq!(
            text(&card, Form::PythonSdk),
            r#"{"f":false,"n":0,"name":"x","skills":[{"id":"s"}]}"#
        );
    }

    #[test]
    fn js_form_also_drops_proto_defaults_but_not_optional_flags_or_struct_values() {
        let card = json!({"name": "x", "capabilities": {"streaming": false, "extensions": [
            {"uri": "u", "required": false, "params": {"on": false, "z": 0, "e": ""}}]}, "v": null});
        assert_eq!(
            text(&card, Form::JsSdk),
            r#"{"capabilities":{"extensions":[{"params":{"on":false,"z":0},"uri":"u"}],"streaming":false},"name":"x"}"#
        );
    }

    #[test]
    fn non_ascii_stays_utf8_and_keys_sort_by_utf16_units() {
        let card = json!({"name": "café", "\u{e9}": 1, "z": 2});
        assert_eq!(
            text(&card, Form::Spec),
            "{\"name\":\"café\",\"z\":2,\"\u{e9}\":1}"
        );
    }

    #[test]
    fn hostile_shapes_fail_with_a_reason_not_a_panic() {
        assert!(payload(&json!([1, 2]), Form::Spec).is_err());
        let mut deep = json!(1);
        for _ in 0..200 {
            deep = json!({"a": [deep]});
        }
        for form in Form::ALL {
            let err = payload(&json!({"x": deep.clone()}), form).unwrap_err();
            assert!(err.contains("deeper"), "{err}");
        }
    }
}
