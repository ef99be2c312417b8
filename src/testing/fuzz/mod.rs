//! The fuzz targets: one function per decoder that takes remote bytes, each checking what must hold for *any*
//! input (no panic, nothing terminal-active in the output, results the SDK's types accept), and the table the
//! property tests (`tests/fuzz_props.rs`) and the long-running fuzzer (`examples/fuzz.rs`) both walk.
//!
//! Adding a target is one function `fn(&[u8]) -> Result<(), String>` (an `Err` names the broken invariant; a
//! legitimate "this input is invalid" from the decoder is an `Ok`) and one line in [`TARGETS`]. Its
//! [`Input`] says which generator and which seed corpus (`tests/fuzz_corpus/<input>/`) feed it.

mod remote;
mod text;

/// The shape of input a target wants; picks the structure-aware generator and the seed corpus.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// Strings full of escape sequences, C0/C1 controls, bidi, zero-width and tag characters, invalid UTF-8.
    Text,
    /// Markdown lines (quotes, headings, lists, fences, emphasis, links) made of the same hostile pieces.
    Markdown,
    /// Any JSON document: deep trees, hostile keys and strings, big numbers.
    Json,
    /// Agent cards: JSON trees with card keys, and mutations of real cards (`tests/fuzz_corpus/cards/`).
    Card,
    /// Protocol 0.3 results, events, push configs and JSON-RPC envelopes, generated and mutated from
    /// recorded ones (`tests/fuzz_corpus/v03/`).
    V03,
    /// Raw SSE bodies (`data:`/`event:`/`id:` lines, comments, CR/LF/CRLF, cut anywhere), seeded from
    /// recorded streams (`tests/fuzz_corpus/sse/`).
    Sse,
    /// JSON-RPC and REST envelopes (`{"jsonrpc","id","result"|"error"}`, REST bodies and error objects) around
    /// v1.0 payloads (`tests/fuzz_corpus/wire/`).
    Envelope,
}

impl Input {
    /// The corpus folder under `tests/fuzz_corpus/`.
    pub fn corpus_dir(self) -> &'static str {
        match self {
            Input::Text => "text",
            Input::Markdown => "markdown",
            Input::Json => "json",
            Input::Card => "cards",
            Input::V03 => "v03",
            Input::Sse => "sse",
            Input::Envelope => "wire",
        }
    }
}

/// One fuzz target.
pub struct Target {
    pub name: &'static str,
    pub input: Input,
    /// Checks every invariant for one input; `Err` says which one broke. Panics are caught by the caller.
    pub run: fn(&[u8]) -> Result<(), String>,
    /// What a user would notice if it broke; printed by `fuzz --list` and the README.
    pub checks: &'static str,
}

/// Every target, in the order `fuzz --list` shows them.
pub const TARGETS: &[Target] = &[
    Target {
        name: "sanitize",
        input: Input::Text,
        run: text::sanitize,
        checks: "trust::sanitize (bytes, text, line) and trust::flags: no raw control, escape, bidi or \
                 invisible character survives, combining stacks stay bounded, re-sanitising changes nothing, \
                 findings match the flags, flag reasons are themselves clean",
    },
    Target {
        name: "spool",
        input: Input::Text,
        run: text::spool,
        checks: "app::spool: a text pushed in pieces (cut where the input says) and spooled to a file reads \
                 back as the same text: length, line count, any window of lines, the last lines, any range, \
                 and the pieces a search or scan walks",
    },
    Target {
        name: "markdown",
        input: Input::Markdown,
        run: text::markdown,
        checks: "markup::markdown on sanitised text: every line and code block is clean sanitised text, \
                 widths stay within twice the source line plus a rule, quote bars and list indents capped",
    },
    Target {
        name: "json_view",
        input: Input::Json,
        run: text::json_view,
        checks: "markup::json_view: every line clean, indentation capped, folding keeps line counts \
                 consistent, the unfolded view reads back as the same JSON",
    },
    Target {
        name: "safe_json",
        input: Input::Json,
        run: text::safe_json,
        checks: "cli::output::safe_json (the CLI's --json output of remote data): every line clean in both \
                 layouts, the output reads back as the same JSON",
    },
    Target {
        name: "card",
        input: Input::Card,
        run: remote::card,
        checks: "remote::card::parse_card on the bytes and remote::card::normalize on the JSON: no panic, an Ok \
                 normalised card always deserialises to a2a::AgentCard",
    },
    Target {
        name: "v03",
        input: Input::V03,
        run: remote::v03,
        checks: "remote::wire::v03 (events, tasks, push configs, JSON-RPC envelopes, SSE data lines): no \
                 panic, an Ok event is the variant its kind names, only a status update is final, and it \
                 round-trips through the SDK's types",
    },
    Target {
        name: "sse",
        input: Input::Sse,
        run: remote::sse,
        checks: "remote::wire::sse (line splitter and field reader): the same bytes cut anywhere give the \
                 same events, no event holds a CR or passes the size limit",
    },
    Target {
        name: "wire",
        input: Input::Envelope,
        run: remote::wire,
        checks: "remote::wire envelopes and the v1.0 / v0.3 JSON-RPC and REST event decoders: no panic; the \
                 fast event decoder and the SDK's ProtoJSON conversion read the same event",
    },
];

/// The target called `name`.
pub fn target(name: &str) -> Option<&'static Target> {
    TARGETS.iter().find(|t| t.name == name)
}

/// `Err(what)` unless `ok`; keeps the checks one line each.
fn ensure(ok: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if ok { Ok(()) } else { Err(what()) }
}
