//! Structure-aware inputs for the fuzz targets (`a2a_console::testing::fuzz`), as proptest strategies: hostile
//! strings (escape sequences, C0/C1, bidi, zero-width, tag characters, combining floods, our own markers,
//! injection phrases), markdown made of those, JSON trees with A2A keys, and mutations of the seed corpus in
//! `tests/fuzz_corpus/` (real cards and recorded streams from the SDK peers and the demo agent).
//!
//! Shared by the property tests (`tests/fuzz_props.rs`, where proptest shrinks a failure to a small input)
//! and the long-running fuzzer (`examples/fuzz.rs`, which includes this file by path), so both explore the
//! same input space.
#![allow(dead_code)] // each includer uses part of it

use std::path::{Path, PathBuf};

use a2a_console::testing::fuzz::Input;
use proptest::prelude::*;
use proptest::sample::{Index, select};
use serde_json::{Map, Value};

pub mod mutate;
mod vocab;

pub use vocab::{CARD_KEYS, V03_KEYS, WIRE_KEYS};
use vocab::{ESCAPES, HOSTILE_CHARS, INVALID_UTF8, PHRASES, VALUES};

/// `tests/fuzz_corpus/`.
pub fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_corpus")
}

/// Every file of one folder under `tests/fuzz_corpus/` (`cards`, `regressions/card`, …), sorted by path.
pub fn corpus_files(dir: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(corpus_root().join(dir)) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_file()
                && let Ok(bytes) = std::fs::read(&p)
            {
                out.push((p, bytes));
            }
        }
    }
    out.sort();
    out
}

/// The seed inputs for a kind of input. JSON kinds also get the JSON of the others they resemble, and the
/// `data:` lines of recorded streams; text kinds get the strings found in every JSON seed.
pub fn seeds(input: Input) -> Vec<Vec<u8>> {
    let own = || corpus_files(input.corpus_dir()).into_iter().map(|(_, b)| b);
    let mut out: Vec<Vec<u8>> = match input {
        Input::Text | Input::Markdown => {
            let mut v: Vec<Vec<u8>> = own().collect();
            for s in all_json().iter().flat_map(strings_of) {
                v.push(s.into_bytes());
            }
            v
        }
        Input::Json => all_json()
            .iter()
            .map(|v| v.to_string().into_bytes())
            .collect(),
        Input::V03 | Input::Envelope => {
            let mut v: Vec<Vec<u8>> = own().collect();
            let prefix = if input == Input::V03 { "py03" } else { "" };
            v.extend(sse_data_lines(prefix));
            v
        }
        Input::Card | Input::Sse => own().collect(),
    };
    if out.is_empty() {
        out.push(b"{}".to_vec());
    }
    out
}

/// The `data:` payloads of the recorded streams whose file name starts with `prefix`.
fn sse_data_lines(prefix: &str) -> Vec<Vec<u8>> {
    corpus_files("sse")
        .into_iter()
        .filter(|(p, _)| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix))
        })
        .flat_map(|(_, b)| {
            String::from_utf8_lossy(&b)
                .lines()
                .filter_map(|l| {
                    l.strip_prefix("data:")
                        .map(|d| d.trim().as_bytes().to_vec())
                })
                .collect::<Vec<_>>()
        })
        .chain(
            // A plain (non-stream) reply is a JSON document as it is.
            corpus_files("sse")
                .into_iter()
                .filter(|(p, _)| p.extension().is_some_and(|e| e == "json"))
                .map(|(_, b)| b),
        )
        .collect()
}

fn all_json() -> Vec<Value> {
    let mut docs = Vec::new();
    for dir in ["cards", "v03", "json", "wire"] {
        for (_, b) in corpus_files(dir) {
            if let Ok(v) = serde_json::from_slice(&b) {
                docs.push(v);
            }
        }
    }
    for line in sse_data_lines("") {
        if let Ok(v) = serde_json::from_slice(&line) {
            docs.push(v);
        }
    }
    docs
}

fn strings_of(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(a) => stack.extend(a),
            Value::Object(m) => {
                out.extend(m.keys().cloned());
                stack.extend(m.values());
            }
            _ => {}
        }
    }
    out
}

/// The input strategy for a kind: generated from scratch, or a seed mutated structurally (JSON) or byte-wise.
pub fn input(input: Input) -> BoxedStrategy<Vec<u8>> {
    let seeds = seeds(input);
    let json_seeds: Vec<Value> = seeds
        .iter()
        .filter_map(|b| serde_json::from_slice(b).ok())
        .collect();
    let bytes = mutate::bytes(seeds);
    let text = |s: BoxedStrategy<String>| s.prop_map(String::into_bytes).boxed();
    match input {
        Input::Text => prop_oneof![
            3 => text(hostile_string()),
            2 => hostile_bytes(),
            2 => bytes,
        ]
        .boxed(),
        Input::Markdown => prop_oneof![4 => text(markdown()), 1 => bytes].boxed(),
        Input::Json | Input::Card | Input::V03 | Input::Envelope => {
            let keys = keys_for(input);
            let generated = json_tree(keys).prop_map(|v| v.to_string().into_bytes());
            if json_seeds.is_empty() {
                return prop_oneof![generated, bytes].boxed();
            }
            let mutated = mutate::json(json_seeds, keys).prop_map(|v| v.to_string().into_bytes());
            prop_oneof![2 => generated, 5 => mutated, 1 => bytes].boxed()
        }
        Input::Sse => prop_oneof![2 => text(sse_body()), 3 => bytes].boxed(),
    }
}

/// Keys a generated or mutated tree draws its member names from.
fn keys_for(input: Input) -> &'static [&'static str] {
    match input {
        Input::Card => CARD_KEYS,
        Input::V03 => V03_KEYS,
        Input::Envelope => WIRE_KEYS,
        _ => CARD_KEYS,
    }
}

/// A character from anywhere in Unicode, weighted towards the ranges that need care.
fn hostile_char() -> BoxedStrategy<char> {
    let range = |a: u32, b: u32| (a..=b).prop_filter_map("scalar", char::from_u32);
    prop_oneof![
        4 => select(HOSTILE_CHARS),
        2 => range(0, 0x1f),
        1 => range(0x80, 0x9f),
        2 => range(0x300, 0x36f),
        1 => range(0x2000, 0x206f),
        1 => range(0xe0000, 0xe01ef),
        1 => range(0xfe00, 0xfe2f),
        2 => any::<char>(),
    ]
    .boxed()
}

/// A combining flood: a base character under many zero-width ones (sometimes with a variation selector run).
fn flood() -> BoxedStrategy<String> {
    (
        prop_oneof![Just('a'), Just('日'), Just(' '), Just('*')],
        prop::collection::vec(
            prop_oneof![
                4 => (0x300u32..=0x36f).prop_filter_map("scalar", char::from_u32),
                1 => select(&['\u{fe0f}', '\u{e0100}', '\u{200d}', '\u{1160}'][..]),
            ],
            1..24,
        ),
    )
        .prop_map(|(base, marks)| std::iter::once(base).chain(marks).collect())
        .boxed()
}

/// A piece of hostile text.
fn fragment() -> BoxedStrategy<String> {
    prop_oneof![
        4 => "[ -~]{1,8}",
        2 => select(ESCAPES).prop_map(str::to_owned),
        3 => hostile_char().prop_map(String::from),
        1 => flood(),
        1 => select(PHRASES).prop_map(str::to_owned),
    ]
    .boxed()
}

/// Hostile text of up to a few dozen pieces.
pub fn hostile_string() -> BoxedStrategy<String> {
    prop::collection::vec(fragment(), 0..24)
        .prop_map(|v| v.concat())
        .boxed()
}

/// Hostile text with invalid UTF-8 spliced in (lone continuation bytes, cut sequences, overlongs, a BOM).
pub fn hostile_bytes() -> BoxedStrategy<Vec<u8>> {
    let piece = prop_oneof![
        3 => fragment().prop_map(String::into_bytes),
        1 => select(INVALID_UTF8).prop_map(<[u8]>::to_vec),
        1 => any::<u8>().prop_map(|b| vec![b]),
    ];
    prop::collection::vec(piece, 0..24)
        .prop_map(|v| v.concat())
        .boxed()
}

/// Markdown: lines with block prefixes and inline markup around hostile text.
pub fn markdown() -> BoxedStrategy<String> {
    let prefix = select(
        &[
            "",
            "",
            "",
            "> ",
            ">>>>>>>>>>> ",
            "> > ",
            "# ",
            "###### ",
            "####### ",
            "- ",
            "* ",
            "+ ",
            "1. ",
            "123456789) ",
            "1234567890. ",
            "- [ ] ",
            "- [x] ",
            "    ",
            "  - ",
            "```",
            "```rust",
            "~~~ {.py}",
            "````",
            "---",
            "***",
            "_ _ _",
            "#",
            "-",
            "![",
            "[",
        ][..],
    );
    let inline = prop_oneof![
        3 => fragment(),
        3 => select(&[
            "*", "**", "***", "****", "_", "__", "`", "``", "[", "]", "](", "(", ")", "![", "\\", "\\*",
            "\\[", "[a](b)", "![i](http://127.0.0.1/x.png)", "[t](http://127.0.0.1/ \"x\")", " ", "x", "日",
        ][..]).prop_map(str::to_owned),
        1 => flood(),
    ];
    let line = (prefix, prop::collection::vec(inline, 0..10))
        .prop_map(|(p, rest)| format!("{p}{}", rest.concat()));
    (
        prop::collection::vec(line, 0..12),
        select(&["\n", "\r\n", "\n\n"][..]),
    )
        .prop_map(|(lines, sep)| lines.join(sep))
        .boxed()
}

fn json_leaf() -> BoxedStrategy<Value> {
    prop_oneof![
        1 => Just(Value::Null),
        1 => any::<bool>().prop_map(Value::Bool),
        1 => any::<i64>().prop_map(Value::from),
        1 => any::<u64>().prop_map(Value::from),
        1 => any::<f64>().prop_filter_map("finite", |f| serde_json::Number::from_f64(f).map(Value::Number)),
        3 => select(VALUES).prop_map(Value::from),
        3 => hostile_string().prop_map(Value::String),
    ]
    .boxed()
}

/// A JSON tree whose keys come mostly from `keys`.
pub fn json_tree(keys: &'static [&'static str]) -> BoxedStrategy<Value> {
    let key = prop_oneof![
        6 => select(keys).prop_map(str::to_owned),
        1 => hostile_string(),
    ];
    json_leaf()
        .prop_recursive(6, 96, 8, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec((key.clone(), inner), 0..8)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
            ]
        })
        .boxed()
}

/// An SSE body: fields, comments and blank lines with every line ending, around JSON and hostile text.
pub fn sse_body() -> BoxedStrategy<String> {
    let value = prop_oneof![
        json_tree(WIRE_KEYS).prop_map(|v| v.to_string()),
        hostile_string(),
    ];
    let line = prop_oneof![
        4 => value.clone().prop_map(|v| format!("data: {v}")),
        1 => value.clone().prop_map(|v| format!("data:{v}")),
        1 => "[a-z]{0,6}".prop_map(|e| format!("event: {e}")),
        1 => "[0-9a-z]{0,6}".prop_map(|i| format!("id: {i}")),
        1 => "[0-9]{0,6}".prop_map(|r| format!("retry: {r}")),
        1 => hostile_string().prop_map(|c| format!(": {c}")),
        1 => Just(String::new()),
        1 => value,
    ];
    let ending = select(&["\n", "\r\n", "\r"][..]);
    prop::collection::vec((line, ending), 0..16)
        .prop_map(|v| v.into_iter().map(|(l, e)| format!("{l}{e}")).collect())
        .boxed()
}

/// Picks one of `n` things (proptest's `Index`, usable outside a strategy).
pub fn pick(i: &Index, n: usize) -> usize {
    if n == 0 { 0 } else { i.index(n) }
}
