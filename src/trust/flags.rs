//! Flags on remote text, each with a reason a user can read: what sanitising neutralised, and
//! heuristics for prompt injection, credential phishing, tool-list probing, and text that imitates
//! the console itself or tells the user which keys to press (those two in `imitation`).
//!
//! The heuristics run over the *sanitised* text, normalised so that simple obfuscation does not
//! hide a phrase: lower-cased, zero-width characters and our own markers for them (`⟨ZWSP⟩`, `␛` …)
//! removed from inside words (and, in a second reading, taken as spaces), full-width Latin folded
//! to ASCII, and split into words (runs of letters and digits; `:` is kept as a word because "new
//! instructions:" differs from "new instructions"). Tag-character payloads (`⟨TAG⟩…⟨/TAG⟩`) are
//! scanned as words of their own, since smuggled instructions are exactly what they tend to carry.
//!
//! Phrases are small word patterns (`a|b` alternatives, `x?` optional) rather than regular
//! expressions: the lists stay readable, matching is linear in the number of words, and no regex
//! crate is needed. They are heuristics: they catch the common phrasings and say so; they cannot
//! prove text harmless.

use std::collections::HashMap;
use std::sync::LazyLock;

use unicode_width::UnicodeWidthChar;

use super::sanitize::{ESCAPE_MARKER, Findings};

/// Something about a remote string the user should know before trusting it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flag {
    pub kind: FlagKind,
    /// A sentence a user can read.
    pub reason: String,
}

/// What kind of flag; the UI picks a badge from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlagKind {
    /// Terminal escape sequences were removed.
    EscapeSequence,
    /// Control characters were replaced by visible symbols.
    ControlCharacter,
    /// Invisible characters were revealed.
    HiddenCharacter,
    /// Bidirectional-text controls were revealed.
    BidiOverride,
    /// An over-long stack of combining marks was cut.
    CombiningFlood,
    /// Bytes that were not valid UTF-8 were replaced.
    InvalidUtf8,
    /// Text that tries to override or extract an agent's instructions.
    PromptInjection,
    /// Text that asks for a password, key, token or similar secret.
    CredentialRequest,
    /// Text that asks which tools or functions are available (a step in session smuggling).
    ToolListRequest,
    /// Text that imitates the console's own interface.
    SpoofedConsoleText,
    /// Text that tells the user which keys to press.
    KeyInstructions,
}

impl FlagKind {
    /// A short label for badges and lists.
    pub fn label(self) -> &'static str {
        match self {
            FlagKind::EscapeSequence => "escape sequence",
            FlagKind::ControlCharacter => "control character",
            FlagKind::HiddenCharacter => "hidden character",
            FlagKind::BidiOverride => "bidi override",
            FlagKind::CombiningFlood => "combining flood",
            FlagKind::InvalidUtf8 => "invalid UTF-8",
            FlagKind::PromptInjection => "prompt injection",
            FlagKind::CredentialRequest => "credential request",
            FlagKind::ToolListRequest => "tool-list request",
            FlagKind::SpoofedConsoleText => "spoofed console text",
            FlagKind::KeyInstructions => "key instructions",
        }
    }
}

/// One flag per kind of thing sanitising had to neutralise, saying what it was and why it matters.
pub fn from_findings(f: &Findings) -> Vec<Flag> {
    let mut flags = Vec::new();
    let mut add = |n: usize, kind: FlagKind, reason: String| {
        if n > 0 {
            flags.push(Flag { kind, reason });
        }
    };
    add(
        f.escapes,
        FlagKind::EscapeSequence,
        format!(
            "Removed {} (shown as \u{241B}): they can move the cursor, rewrite the screen, \
             change the window title, set the clipboard or hide text.",
            counted(
                f.escapes,
                "terminal escape sequence",
                "terminal escape sequences"
            )
        ),
    );
    add(
        f.controls,
        FlagKind::ControlCharacter,
        format!(
            "Replaced {} with visible symbols like \u{240D} or \u{2407}: they can overwrite a line \
             or ring the bell.",
            counted(f.controls, "control character", "control characters")
        ),
    );
    add(
        f.hidden,
        FlagKind::HiddenCharacter,
        format!(
            "Revealed {} (shown like \u{27E8}ZWSP\u{27E9}): invisible text can hide instructions \
             that a model still reads, or split words to slip past filters.",
            counted(f.hidden, "invisible character", "invisible characters")
        ),
    );
    add(
        f.bidi,
        FlagKind::BidiOverride,
        format!(
            "Revealed {} (shown like \u{27E8}RLO\u{27E9}): they make text display in a different \
             order than it is stored, e.g. to disguise a file name.",
            counted(f.bidi, "text-direction control", "text-direction controls")
        ),
    );
    add(
        f.truncated_combining,
        FlagKind::CombiningFlood,
        format!(
            "Dropped {} (shown as \u{27E8}+N marks\u{27E9}): such stacks smear over \
             neighbouring lines.",
            counted(
                f.truncated_combining,
                "stacked combining mark",
                "stacked combining marks"
            )
        ),
    );
    add(
        f.invalid_utf8,
        FlagKind::InvalidUtf8,
        format!(
            "Replaced {} with \u{FFFD}: the content was not valid text.",
            counted(
                f.invalid_utf8,
                "invalid UTF-8 sequence",
                "invalid UTF-8 sequences"
            )
        ),
    );
    flags
}

/// Heuristics over sanitised text: at most one flag per kind, in a fixed order.
pub fn scan(text: &str) -> Vec<Flag> {
    let mut tally = Tally::default();
    tally.add(text);
    tally.flags()
}

/// What the heuristics found so far in a text read a piece at a time (a very large artifact, which is never
/// held whole: see `app::spool`): counts add up, the first example of each kind is kept. Pieces should end at
/// line breaks; a phrase split across two pieces is not seen.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    injection: (usize, String),
    token: Option<&'static str>,
    credential: (usize, String),
    tool_probe: (usize, String),
    spoofed: (usize, String),
    keys: (usize, String),
}

fn add_count(into: &mut (usize, String), (n, example): (usize, String)) {
    if n == 0 {
        return;
    }
    if into.0 == 0 {
        into.1 = example;
    }
    into.0 += n;
}

impl Tally {
    /// Scan one more piece of the text.
    pub fn add(&mut self, text: &str) {
        // A revealed zero-width character may sit inside a word ("pass⟨ZWSP⟩word") or stand in for a
        // space ("ignore⟨ZWSP⟩previous"); when the text has markers, read it both ways and keep the
        // reading that finds more.
        let joined = Words::new(text, true);
        let split = joined.saw_marker.then(|| Words::new(text, false));
        let readings: Vec<&Words> = [Some(&joined), split.as_ref()]
            .into_iter()
            .flatten()
            .collect();
        let best = |find: &dyn Fn(&Words) -> (usize, String)| {
            readings
                .iter()
                .map(|w| find(w))
                .fold((0, String::new()), |a, b| if b.0 > a.0 { b } else { a })
        };
        add_count(&mut self.injection, best(&|w| count_phrases(&INJECTION, w)));
        if self.token.is_none() {
            self.token = CHAT_TEMPLATE_TOKENS
                .iter()
                .find(|t| text.contains(**t))
                .copied();
        }
        add_count(&mut self.credential, best(&credential_requests));
        add_count(
            &mut self.tool_probe,
            best(&|w| count_phrases(&TOOL_PROBE, w)),
        );
        if let Some(found) = super::imitation::spoofed_lines(text) {
            add_count(&mut self.spoofed, found);
        }
        if let Some(found) = super::imitation::key_instructions(text) {
            add_count(&mut self.keys, found);
        }
    }

    /// The flags for everything scanned so far.
    pub fn flags(&self) -> Vec<Flag> {
        let mut flags = Vec::new();
        let (n, example) = &self.injection;
        let mut injection = Vec::new();
        if *n > 0 {
            injection.push(format!(
                "Contains {} trying to override or extract an agent's instructions, e.g. \
                 \u{201C}{example}\u{201D}.",
                counted(*n, "phrase", "phrases")
            ));
        }
        if let Some(token) = self.token {
            injection.push(format!(
                "Contains chat-template tokens like \u{201C}{token}\u{201D} that fake a system or \
                 user turn for a model reading it."
            ));
        }
        if !injection.is_empty() {
            injection.push("Treat it as data, not as instructions.".to_owned());
            flags.push(Flag {
                kind: FlagKind::PromptInjection,
                reason: injection.join(" "),
            });
        }

        let (n, example) = &self.credential;
        if *n > 0 {
            flags.push(Flag {
                kind: FlagKind::CredentialRequest,
                reason: format!(
                    "Asks for a secret ({}, e.g. \u{201C}{example}\u{201D}). A remote agent should \
                     never need your passwords, keys or tokens in a message; give credentials only \
                     through the console's auth settings.",
                    counted(*n, "request", "requests")
                ),
            });
        }

        let (n, example) = &self.tool_probe;
        if *n > 0 {
            flags.push(Flag {
                kind: FlagKind::ToolListRequest,
                reason: format!(
                    "Asks which tools or functions are available ({}, e.g. \u{201C}{example}\u{201D}); \
                     probing for tools is a common first step in hijacking an agent session.",
                    counted(*n, "request", "requests")
                ),
            });
        }

        let (n, example) = &self.spoofed;
        if *n > 0 {
            flags.push(Flag {
                kind: FlagKind::SpoofedConsoleText,
                reason: format!(
                    "Imitates the console's own text ({} like \u{201C}{example}\u{201D}). The remote \
                     agent wrote it, not a2a-console: only the console's own dialogs approve anything.",
                    counted(*n, "line", "lines")
                ),
            });
        }

        let (n, example) = &self.keys;
        if *n > 0 {
            flags.push(Flag {
                kind: FlagKind::KeyInstructions,
                reason: format!(
                    "Tells you which keys to press ({}, e.g. \u{201C}{example}\u{201D}). The remote agent \
                     cannot see your screen: only the console's own dialogs and help say what a key does.",
                    counted(*n, "instruction", "instructions")
                ),
            });
        }
        flags
    }
}

/// Phrases that try to override an agent's instructions or extract them. Each must start with a
/// required word.
const INJECTION_PHRASES: &[&str] = &[
    "ignore|disregard|forget|override|bypass all? any? of? the|your|my|these|those|any? \
     previous|prior|above|earlier|preceding|former|original|initial|existing|system|old \
     instructions|instruction|prompts|prompt|directions|rules|guidelines|directives|context",
    "ignore|disregard|forget everything|anything|all above|before|prior|previously|earlier",
    "you are now a|an|dan|jailbroken|unrestricted|unfiltered|acting|no",
    "system prompt|prompts|instructions",
    "reveal|print|repeat|output|display|dump|leak|disclose|show|share|tell|give me|us? your \
     hidden|secret|initial|original|full|exact|entire|internal|complete|real? \
     instructions|prompt|rules|guidelines|configuration|directives",
    "reveal|print|repeat|dump|leak|disclose the|all|any? hidden|secret|initial|original|internal \
     instructions|prompt|rules|guidelines",
    "repeat|print|output everything|all|the text|words above|before",
    "repeat everything|all above|before",
    "new|updated|revised|real|actual|true|additional \
     instructions|instruction|directive|directives|orders :",
    "do|don not|t tell|inform|notify|alert|mention|show|reveal|warn the|your? \
     user|users|human|operator|owner",
    "enable|enter|activate|switch developer|god|jailbreak|dan|unrestricted mode",
    "enable|enter|activate|switch to developer|god|jailbreak|dan|unrestricted mode",
];

/// Literal tokens from chat templates; in remote text they only make sense as an attempt to fake a
/// turn.
const CHAT_TEMPLATE_TOKENS: &[&str] = &[
    "<|im_start|>",
    "<|im_end|>",
    "<|system|>",
    "<|endoftext|>",
    "<|start_header_id|>",
    "[INST]",
    "<<SYS>>",
];

/// Phrases that ask the reader for its tools; Unit 42's session-smuggling attack starts this way.
const TOOL_PROBE_PHRASES: &[&str] = &[
    "list|enumerate|show|print|dump|describe|reveal|share|tell me|us? all? of? your \
     available|internal? tools|functions|plugins|apis|actions|capabilities",
    "list|enumerate|print|dump all? of? the available|internal tools|functions|plugins|apis",
    "what|which tools|functions|plugins|apis do|can you have|use|call|access",
    "what|which tools|functions|plugins|apis are available to you",
];

/// Words that ask for something; a credential noun close after one makes a request.
const REQUEST_PHRASES: &[&str] = &[
    "provide|send|enter|give|share|paste|type|submit|input|upload|forward|disclose|confirm|verify",
    "reply|respond|answer with",
    "tell me|us",
    "what is|s your",
    "need|needs|require|requires your",
];

/// Nouns that name a secret outright.
const SECRET_NOUNS: &[&str] = &[
    "password|passwords|passphrase|passcode|apikey|cvv|cvc|ssn|mnemonic|credentials|otp",
    "api|access|auth|bearer|refresh|session key|keys|token|tokens",
    "private|secret|ssh|signing key|keys",
    "seed|recovery|mnemonic phrase|words",
    "credit|debit card|cards",
    "card number",
    "client secret",
    "social security number",
    "one time code|password|passcode",
    "2fa|mfa|verification|security|login code|codes",
];

/// Nouns that are secrets only when they are the reader's own ("send your token", not "send a token
/// count").
const OWN_SECRET_NOUNS: &[&str] =
    &["token|tokens|secret|secrets|pin|key|keys|login|cookie|cookies"];

/// How many words may sit between a request word and the secret it asks for ("send me your API
/// key").
const REQUEST_WINDOW: usize = 4;

static INJECTION: LazyLock<Phrases> = LazyLock::new(|| Phrases::new(INJECTION_PHRASES));
static TOOL_PROBE: LazyLock<Phrases> = LazyLock::new(|| Phrases::new(TOOL_PROBE_PHRASES));
static REQUESTS: LazyLock<Phrases> = LazyLock::new(|| Phrases::new(REQUEST_PHRASES));
static SECRETS: LazyLock<Phrases> = LazyLock::new(|| Phrases::new(SECRET_NOUNS));
static OWN_SECRETS: LazyLock<Phrases> = LazyLock::new(|| Phrases::new(OWN_SECRET_NOUNS));

/// The normalised words of a text, as ranges into one buffer.
struct Words {
    buf: String,
    spans: Vec<(usize, usize)>,
    /// The text had a marker for a removed or revealed character.
    saw_marker: bool,
}

impl Words {
    /// With `join_markers`, markers for zero-width characters and removed escape sequences are
    /// read as nothing (the word goes on); without, as a space.
    fn new(text: &str, join_markers: bool) -> Self {
        let mut w = Words {
            buf: String::with_capacity(text.len()),
            spans: Vec::new(),
            saw_marker: false,
        };
        let mut start = 0;
        let mut it = text.chars();
        while let Some(c) = it.next() {
            if c == '\u{27E8}'
                && let Some((len, joins)) = marker_len(it.as_str())
            {
                it = it.as_str().get(len..).unwrap_or("").chars();
                w.saw_marker = true;
                if !(joins && join_markers) {
                    w.end(&mut start);
                }
                continue;
            }
            match c {
                ESCAPE_MARKER => {
                    w.saw_marker = true;
                    if !join_markers {
                        w.end(&mut start);
                    }
                }
                c if c.is_ascii_alphanumeric() => w.buf.push(c.to_ascii_lowercase()),
                ':' => {
                    w.end(&mut start);
                    w.buf.push(':');
                    w.end(&mut start);
                }
                c if c.is_ascii() => w.end(&mut start),
                '\u{FF01}'..='\u{FF5E}' => {
                    let folded = char::from_u32(c as u32 - 0xFEE0).unwrap_or(' ');
                    if folded.is_ascii_alphanumeric() {
                        w.buf.push(folded.to_ascii_lowercase());
                    } else {
                        w.end(&mut start);
                    }
                }
                c if c.width() == Some(0) => {}
                c if c.is_alphanumeric() => w.buf.extend(c.to_lowercase()),
                _ => w.end(&mut start),
            }
        }
        w.end(&mut start);
        w
    }

    fn end(&mut self, start: &mut usize) {
        if self.buf.len() > *start {
            self.spans.push((*start, self.buf.len()));
            *start = self.buf.len();
        }
    }

    fn len(&self) -> usize {
        self.spans.len()
    }

    fn get(&self, i: usize) -> Option<&str> {
        let &(a, b) = self.spans.get(i)?;
        self.buf.get(a..b)
    }

    /// Words `a..b` joined by spaces, for quoting in a reason; bounded so a reason stays a
    /// sentence.
    fn phrase(&self, a: usize, b: usize) -> String {
        let mut s = String::new();
        for i in a..b {
            let Some(word) = self.get(i) else { break };
            if !s.is_empty() && word != ":" {
                s.push(' ');
            }
            s.push_str(word);
            if s.len() > 60 {
                s.push('\u{2026}');
                break;
            }
        }
        s
    }
}

/// If `after` (the text after a `⟨`) continues one of sanitising's markers, its length through the
/// `⟩` and whether the marker sat inside a word (everything except the tag brackets, which surround
/// a payload).
fn marker_len(after: &str) -> Option<(usize, bool)> {
    let (end, _) = after
        .char_indices()
        .take(24)
        .find(|&(_, c)| c == '\u{27E9}')?;
    let inner = after.get(..end)?;
    let len = end + '\u{27E9}'.len_utf8();
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let named = matches!(
        inner,
        "ZWSP"
            | "ZWNJ"
            | "ZWJ"
            | "WJ"
            | "BOM"
            | "SHY"
            | "CGJ"
            | "MVS"
            | "ALM"
            | "LRM"
            | "RLM"
            | "LRE"
            | "RLE"
            | "PDF"
            | "LRO"
            | "RLO"
            | "LRI"
            | "RLI"
            | "FSI"
            | "PDI"
    );
    let hex = inner
        .strip_prefix("U+")
        .is_some_and(|h| (4..=6).contains(&h.len()) && h.bytes().all(|b| b.is_ascii_hexdigit()));
    let vs = inner
        .strip_prefix("VS")
        .or_else(|| inner.strip_prefix("FVS"))
        .is_some_and(digits);
    let marks = inner
        .strip_prefix('+')
        .and_then(|s| s.strip_suffix(" marks"))
        .is_some_and(digits);
    if named || hex || vs || marks {
        Some((len, true))
    } else if inner == "TAG" || inner == "/TAG" {
        Some((len, false))
    } else {
        None
    }
}

/// One slot of a word pattern: alternatives, possibly optional.
struct Slot {
    alts: Vec<&'static str>,
    optional: bool,
}

/// A set of word patterns, indexed by their first word so each position costs one hash lookup.
struct Phrases {
    patterns: Vec<Vec<Slot>>,
    by_first: HashMap<&'static str, Vec<usize>>,
}

impl Phrases {
    fn new(sources: &[&'static str]) -> Self {
        let mut patterns = Vec::new();
        let mut by_first: HashMap<&'static str, Vec<usize>> = HashMap::new();
        for src in sources {
            let slots: Vec<Slot> = src
                .split_whitespace()
                .map(|tok| match tok.strip_suffix('?') {
                    Some(t) => Slot {
                        alts: t.split('|').collect(),
                        optional: true,
                    },
                    None => Slot {
                        alts: tok.split('|').collect(),
                        optional: false,
                    },
                })
                .collect();
            // The first slot is required (checked in tests), so indexing by it finds every match.
            if let Some(first) = slots.first() {
                for alt in &first.alts {
                    by_first.entry(alt).or_default().push(patterns.len());
                }
            }
            patterns.push(slots);
        }
        Phrases { patterns, by_first }
    }

    /// The end of the first pattern that matches at word `i`.
    fn match_at(&self, words: &Words, i: usize) -> Option<usize> {
        let first = words.get(i)?;
        let candidates = self.by_first.get(first)?;
        candidates.iter().find_map(|&p| {
            self.patterns
                .get(p)
                .and_then(|slots| match_slots(slots, words, i))
        })
    }
}

/// Matches slots from word `i`; optional slots branch, so a pattern with k of them tries at most
/// 2^k ways.
fn match_slots(slots: &[Slot], words: &Words, i: usize) -> Option<usize> {
    let Some((slot, rest)) = slots.split_first() else {
        return Some(i);
    };
    if let Some(word) = words.get(i)
        && slot.alts.contains(&word)
        && let Some(end) = match_slots(rest, words, i + 1)
    {
        return Some(end);
    }
    if slot.optional {
        match_slots(rest, words, i)
    } else {
        None
    }
}

/// How many places match, and the first one as a phrase.
fn count_phrases(phrases: &Phrases, words: &Words) -> (usize, String) {
    let mut n = 0;
    let mut example = String::new();
    let mut i = 0;
    while i < words.len() {
        match phrases.match_at(words, i) {
            Some(end) => {
                if n == 0 {
                    example = words.phrase(i, end);
                }
                n += 1;
                // Count a phrase once, not again from each of its words.
                i = end.max(i + 1);
            }
            None => i += 1,
        }
    }
    (n, example)
}

/// How many times a request word is followed within [`REQUEST_WINDOW`] words by a secret ("please
/// send me your API key"), and the first such phrase.
fn credential_requests(words: &Words) -> (usize, String) {
    let mut n = 0;
    let mut example = String::new();
    let mut request: Option<(usize, usize)> = None;
    let mut i = 0;
    while i < words.len() {
        if let Some(end) = REQUESTS.match_at(words, i) {
            request = Some((i, end));
            i = end.max(i + 1);
            continue;
        }
        let strong = SECRETS.match_at(words, i);
        let noun = strong
            .map(|e| (e, false))
            .or_else(|| OWN_SECRETS.match_at(words, i).map(|e| (e, true)));
        if let (Some((end, needs_your)), Some((rs, re))) = (noun, request) {
            let near = i >= re && i - re <= REQUEST_WINDOW;
            let own = !needs_your || (rs..i).any(|k| words.get(k) == Some("your"));
            if near && own {
                if n == 0 {
                    example = words.phrase(rs, end);
                }
                n += 1;
                request = None;
                i = end.max(i + 1);
                continue;
            }
        }
        i += 1;
    }
    (n, example)
}

/// "1 thing", "1,234 things".
fn counted(n: usize, one: &str, many: &str) -> String {
    let digits = n.to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(d);
    }
    format!("{grouped} {}", if n == 1 { one } else { many })
}

#[cfg(test)]
mod tests;
