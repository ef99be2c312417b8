//! Mutations of seed inputs: structural ones on JSON (replace, remove, retype, duplicate or add a member at
//! any node, with A2A keys and hostile values) and byte-level ones on anything (flip, insert a token, cut,
//! duplicate a span, truncate). Each mutation is data proptest generates, so failures still shrink.

use proptest::prelude::*;
use proptest::sample::{Index, select};
use serde_json::Value;

use super::{hostile_string, json_tree, pick};

/// One structural change at the node a pre-order walk numbers `at`.
#[derive(Clone, Debug)]
pub enum JsonOp {
    Replace(Index, Value),
    Remove(Index),
    /// Turn a node into a value of another JSON type with "the same" content (string ↔ number, x ↔ [x], …).
    Retype(Index, u8),
    Insert(Index, String, Value),
    Duplicate(Index),
    SetString(Index, String),
}

/// Seeds with 1–6 structural mutations.
pub fn json(seeds: Vec<Value>, keys: &'static [&'static str]) -> BoxedStrategy<Value> {
    let small = json_tree(keys);
    let key = prop_oneof![4 => select(keys).prop_map(str::to_owned), 1 => hostile_string()];
    let op = prop_oneof![
        3 => (any::<Index>(), small.clone()).prop_map(|(i, v)| JsonOp::Replace(i, v)),
        2 => any::<Index>().prop_map(JsonOp::Remove),
        2 => (any::<Index>(), any::<u8>()).prop_map(|(i, k)| JsonOp::Retype(i, k)),
        2 => (any::<Index>(), key, small).prop_map(|(i, k, v)| JsonOp::Insert(i, k, v)),
        1 => any::<Index>().prop_map(JsonOp::Duplicate),
        2 => (any::<Index>(), hostile_string()).prop_map(|(i, s)| JsonOp::SetString(i, s)),
    ];
    (select(seeds), prop::collection::vec(op, 1..7))
        .prop_map(|(mut v, ops)| {
            for op in &ops {
                apply(&mut v, op);
            }
            v
        })
        .boxed()
}

fn count(v: &Value) -> usize {
    1 + match v {
        Value::Array(a) => a.iter().map(count).sum(),
        Value::Object(m) => m.values().map(count).sum(),
        _ => 0,
    }
}

/// The node numbered `n` in pre-order, with its parent's container and the key/index it sits at.
fn node_mut(v: &mut Value, n: usize) -> Option<&mut Value> {
    if n == 0 {
        return Some(v);
    }
    let mut n = n - 1;
    let children: Vec<&mut Value> = match v {
        Value::Array(a) => a.iter_mut().collect(),
        Value::Object(m) => m.values_mut().collect(),
        _ => return None,
    };
    for c in children {
        let size = count(c);
        if n < size {
            return node_mut(c, n);
        }
        n -= size;
    }
    None
}

fn apply(root: &mut Value, op: &JsonOp) {
    let total = count(root);
    let at = |i: &Index| pick(i, total);
    match op {
        JsonOp::Replace(i, new) => {
            if let Some(node) = node_mut(root, at(i)) {
                *node = new.clone();
            }
        }
        JsonOp::Remove(i) => {
            // Remove a member of the container the chosen node is (or the first container found).
            if let Some(node) = node_mut(root, at(i)) {
                match node {
                    Value::Object(m) if !m.is_empty() => {
                        let k = m.keys().nth(pick(i, m.len())).cloned();
                        if let Some(k) = k {
                            m.remove(&k);
                        }
                    }
                    Value::Array(a) if !a.is_empty() => {
                        a.remove(pick(i, a.len()));
                    }
                    other => *other = Value::Null,
                }
            }
        }
        JsonOp::Retype(i, kind) => {
            if let Some(node) = node_mut(root, at(i)) {
                *node = retype(std::mem::take(node), *kind);
            }
        }
        JsonOp::Insert(i, k, new) => {
            if let Some(node) = node_mut(root, at(i)) {
                match node {
                    Value::Object(m) => {
                        m.insert(k.clone(), new.clone());
                    }
                    Value::Array(a) => a.push(new.clone()),
                    other => *other = new.clone(),
                }
            }
        }
        JsonOp::Duplicate(i) => {
            if let Some(Value::Array(a)) = node_mut(root, at(i))
                && let Some(first) = a.first().cloned()
            {
                a.extend(std::iter::repeat_n(first, 3));
            }
        }
        JsonOp::SetString(i, s) => {
            if let Some(node) = node_mut(root, at(i)) {
                match node {
                    Value::Object(m) => {
                        // Replace a string member's value; a hostile key is what Insert is for.
                        if let Some(v) = m.values_mut().find(|v| v.is_string()) {
                            *v = Value::String(s.clone());
                        }
                    }
                    other => *other = Value::String(s.clone()),
                }
            }
        }
    }
}

fn retype(v: Value, kind: u8) -> Value {
    match (kind % 6, v) {
        (0, v) => Value::Array(vec![v]),
        (1, Value::String(s)) => s
            .parse::<i64>()
            .map(Value::from)
            .unwrap_or(Value::Bool(!s.is_empty())),
        (1, v) => Value::String(v.to_string()),
        (2, Value::Array(mut a)) => a.pop().unwrap_or(Value::Null),
        (2, v) => serde_json::json!({ "value": v }),
        (3, Value::Object(m)) => Value::Array(m.into_iter().map(|(_, v)| v).collect()),
        (3, _) => Value::Object(Default::default()),
        (4, _) => Value::Null,
        (_, Value::Number(n)) => Value::from(n.as_f64().map_or(0.0, |f| -f * 1e300)),
        (_, v) => Value::from(u64::MAX - v.to_string().len() as u64),
    }
}

/// One byte-level change.
#[derive(Clone, Debug)]
pub enum ByteOp {
    Flip(Index, u8),
    Insert(Index, Vec<u8>),
    Cut(Index, Index),
    DuplicateSpan(Index, Index),
    Truncate(Index),
}

const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b":",
    b",",
    b"null",
    b"true",
    b"-1e999",
    b"1e-400",
    b"\\u0000",
    b"\\ud800",
    b"\\u001b[31m",
    b"\x1b]0;t\x07",
    b"\xff",
    b"\xc2\x9b",
    b"\xe2\x80\xae",
    b"\r\n",
    b"\n\n",
    b"\r",
    b"data: ",
    b"event: ",
    b": c",
    b"\"kind\":\"task\"",
    b"\"final\":true",
    b"\"result\":",
    b"\"error\":{\"code\":-32001,\"message\":\"\\u001b[2J\"}",
    b"\"url\":\"/x\"",
    b"\"\\u202e\"",
];

/// Seeds with 1–8 byte-level mutations.
pub fn bytes(seeds: Vec<Vec<u8>>) -> BoxedStrategy<Vec<u8>> {
    let op = prop_oneof![
        3 => (any::<Index>(), any::<u8>()).prop_map(|(i, b)| ByteOp::Flip(i, b)),
        4 => (any::<Index>(), prop_oneof![
            3 => select(TOKENS).prop_map(<[u8]>::to_vec),
            1 => hostile_string().prop_map(String::into_bytes),
        ]).prop_map(|(i, t)| ByteOp::Insert(i, t)),
        2 => (any::<Index>(), any::<Index>()).prop_map(|(a, b)| ByteOp::Cut(a, b)),
        1 => (any::<Index>(), any::<Index>()).prop_map(|(a, b)| ByteOp::DuplicateSpan(a, b)),
        1 => any::<Index>().prop_map(ByteOp::Truncate),
    ];
    (select(seeds), prop::collection::vec(op, 1..9))
        .prop_map(|(mut b, ops)| {
            for op in &ops {
                apply_bytes(&mut b, op);
            }
            b
        })
        .boxed()
}

fn apply_bytes(b: &mut Vec<u8>, op: &ByteOp) {
    let n = b.len();
    let at = |i: &Index| pick(i, n + 1).min(n);
    match op {
        ByteOp::Flip(i, x) => {
            if n > 0 {
                let k = pick(i, n);
                b[k] ^= x | 1;
            }
        }
        ByteOp::Insert(i, t) => {
            let k = at(i);
            b.splice(k..k, t.iter().copied());
        }
        ByteOp::Cut(i, len) => {
            let k = at(i);
            let end = (k + pick(len, 16) + 1).min(n);
            b.drain(k..end);
        }
        ByteOp::DuplicateSpan(i, len) => {
            let k = at(i);
            let end = (k + pick(len, 64) + 1).min(n);
            let span = b[k..end].to_vec();
            b.splice(k..k, span);
        }
        ByteOp::Truncate(i) => b.truncate(at(i)),
    }
}
