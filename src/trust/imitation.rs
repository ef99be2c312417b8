//! Remote text that passes itself off as the console, or tells the user which keys to press: the two halves
//! of getting a person to make a decision they did not mean to (issue [9]: a fake "✔ console: agent verified"
//! line, then "press A then a" to approve with the configured credential).
//!
//! Both run over sanitised text, one line at a time, and are heuristics like the rest of `flags`: they name
//! the shapes the console's own output has and the ways keys are named, and say so in the reason. Ordinary
//! prose ("type a message", "press the button", "the agent verified the booking") is left alone: a key is
//! only a key when it is written as one (quoted, a capital letter, a modifier chord, or a letter followed by
//! "then"/"to approve"), and a key name like Enter only counts next to a word the console's dialogs decide.

use super::sanitize::NEWLINE_MARKER;

/// Line starts that imitate the console's own output; compared case-insensitively after leading blanks.
/// Keep in step with the prefixes the UI and CLI really print.
const LINE_STARTS: &[&str] = &[
    "[console]",
    "[a2a-console]",
    "(a2a-console)",
    "a2a-console:",
    "a2a-console>",
    "a2a-console$",
    "console:",
    "system:",
    "[system]",
    "[system ",
    "<system>",
    "### system",
    "system notice",
    "system message",
    "system alert",
    "approve?",
    "approve (y/n)",
    "approval required",
    "[approval required]",
    "[verified]",
    "\u{2713} verified",
    "\u{2714} verified",
    "\u{2705} verified",
];

/// Pieces that claim to come from the console wherever they stand in a line (compared lower-cased).
const ANYWHERE: &[&str] = &[
    "(from a2a-console)",
    "from a2a-console:",
    "[a2a-console",
    "<a2a-console",
    // Not a bare "a2a-console:" here: prose that names the console ("a built-in agent for trying out
    // a2a-console: each skill …", the demo's own card) is no imitation; at a line start it is (LINE_STARTS).
    "a2a-console says",
    "a2a-console has verified",
    "verified by a2a-console",
    "approved by a2a-console",
    "console: agent verified",
    "console: verified",
    "console: approved",
    "\u{2713} console",
    "\u{2714} console",
    "\u{2705} console",
    "\u{2713} verified",
    "\u{2714} verified",
    "\u{2705} verified",
];

/// Words that make a decorated line (`=== … ===`, `*** … ***`) a banner in the console's or a system's name.
const BANNER_WORDS: &[&str] = &[
    "system",
    "console",
    "a2a-console",
    "security",
    "admin",
    "administrator",
    "official",
    "verified",
    "approval",
    "approved",
    "notice",
    "alert",
];

/// Lines that imitate the console's (or a system's) own text — a prefix it prints, a claim to come from it
/// anywhere in the line, a decorated banner in a system's name, or a "(y/n)" prompt like its approval
/// dialog — how many, and the first as an example.
pub(super) fn spoofed_lines(text: &str) -> Option<(usize, String)> {
    let mut n = 0;
    let mut example = String::new();
    for line in text.split(['\n', NEWLINE_MARKER]) {
        let trimmed = line.trim_start();
        let lower = line.to_lowercase();
        let found = LINE_STARTS
            .iter()
            .find(|p| {
                trimmed
                    .get(..p.len())
                    .is_some_and(|s| s.eq_ignore_ascii_case(p))
            })
            .or_else(|| ANYWHERE.iter().find(|p| lower.contains(**p)))
            .map(|p| (*p).to_owned())
            .or_else(|| banner(trimmed))
            .or_else(|| yes_no_prompt(line).map(str::to_owned));
        if let Some(found) = found {
            if n == 0 {
                example = found;
            }
            n += 1;
        }
    }
    (n > 0).then_some((n, example))
}

/// `=== SYSTEM NOTICE ===`, `*** a2a-console security alert ***`, `--- [ADMIN] ---`: a line that opens and
/// closes with a run of three or more of the same decoration and names a system, the console or an
/// authority in between. The line itself, cut, as the example.
fn banner(trimmed: &str) -> Option<String> {
    let line = trimmed.trim_end();
    let first = line.chars().next()?;
    if !"=*-#!~_<>[]|".contains(first) {
        return None;
    }
    let lead = line.chars().take_while(|c| *c == first).count();
    let last = line.chars().last()?;
    let tail = line.chars().rev().take_while(|c| *c == last).count();
    if lead < 3 || tail < 3 || !"=*-#!~_<>[]|".contains(last) || lead + tail >= line.chars().count()
    {
        return None;
    }
    let lower = line.to_lowercase();
    let named = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '-'))
        .any(|w| BANNER_WORDS.contains(&w));
    named.then(|| line.chars().take(40).collect())
}

/// Finds "(y/n)" or "[y/n]" in any case.
fn yes_no_prompt(line: &str) -> Option<&'static str> {
    let b = line.as_bytes();
    line.match_indices('/').find_map(|(i, _)| {
        let open = *b.get(i.checked_sub(2)?)?;
        let y = b.get(i - 1)?.to_ascii_lowercase();
        let n = b.get(i + 1)?.to_ascii_lowercase();
        let close = *b.get(i + 2)?;
        match (open, y, n, close) {
            (b'(', b'y', b'n', b')') => Some("(y/n)"),
            (b'[', b'y', b'n', b']') => Some("[y/n]"),
            _ => None,
        }
    })
}

/// Verbs that tell someone to press a key.
const PRESS: &[&str] = &["press", "hit", "type", "tap", "push", "strike"];
/// Keys by name: they count only where the line also names a decision (see [`DECISIONS`]) or a sequence.
const NAMED_KEYS: &[&str] = &[
    "enter",
    "return",
    "esc",
    "escape",
    "tab",
    "space",
    "spacebar",
    "backspace",
    "delete",
];
/// What the console's dialogs decide: a key named next to one of these is an attempt to steer a decision.
const DECISIONS: &[&str] = &[
    "approve",
    "approved",
    "approval",
    "accept",
    "allow",
    "confirm",
    "deny",
    "grant",
    "authorize",
    "authorise",
    "cancel",
    "paste",
    "token",
    "credential",
    "credentials",
    "sign",
    "pin",
    "trust",
];
/// Words that chain one key to the next ("press A then a").
const THEN: &[&str] = &["then", "and", "followed", "next", "after"];

/// Lines that tell the user which keys to press ("press A then a", "hit Ctrl-Y", "type y to approve"), how
/// many, and the first instruction as an example.
pub(super) fn key_instructions(text: &str) -> Option<(usize, String)> {
    let mut n = 0;
    let mut example = String::new();
    for line in text.split(['\n', NEWLINE_MARKER]) {
        if let Some(found) = key_instruction(line) {
            if n == 0 {
                example = found;
            }
            n += 1;
        }
    }
    (n > 0).then_some((n, example))
}

/// One word of a line: as written (quotes and punctuation stripped), lower-cased, whether it was quoted,
/// and whether a sentence ended right after it.
struct Word<'a> {
    raw: &'a str,
    lower: String,
    quoted: bool,
    ends: bool,
}

fn words(line: &str) -> Vec<Word<'_>> {
    line.split_whitespace()
        .filter_map(|w| {
            let raw = w.trim_matches(|c: char| {
                "\"'`\u{2018}\u{2019}\u{201C}\u{201D}«»()[]<>,;:.!?".contains(c)
            });
            if raw.is_empty() {
                return None;
            }
            let quoted = w.starts_with(['"', '\'', '`', '\u{2018}', '\u{201C}', '«', '<', '['])
                && w.len() > raw.len();
            let ends = w.ends_with(['.', '!', '?', ';']);
            Some(Word {
                raw,
                lower: raw.to_lowercase(),
                quoted,
                ends,
            })
        })
        .collect()
}

/// The first "press <key>" in a line, as it reads.
fn key_instruction(line: &str) -> Option<String> {
    let words = words(line);
    let decides = words.iter().any(|w| DECISIONS.contains(&w.lower.as_str()));
    words.iter().enumerate().find_map(|(i, verb)| {
        if !PRESS.contains(&verb.lower.as_str()) {
            return None;
        }
        // "press the A key", "hit the Enter key".
        let at = match words.get(i + 1) {
            Some(w) if w.lower == "the" => i + 2,
            _ => i + 1,
        };
        let key = words.get(at)?;
        let next = words.get(at + 1);
        let chained = next.is_some_and(|w| THEN.contains(&w.lower.as_str()));
        let is_key = chord(key.raw)
            || single_key(key, next, decides)
            || (NAMED_KEYS.contains(&key.lower.as_str()) && (decides || chained));
        is_key.then(|| {
            let end = (at + 3).min(words.len());
            words
                .get(i..end)
                .unwrap_or_default()
                .iter()
                .map(|w| w.raw)
                .collect::<Vec<_>>()
                .join(" ")
        })
    })
}

/// `Ctrl-Y`, `ctrl+y`, `C-y`, `Alt-x`, `^Y`, `Shift+Tab`: a modifier and a key.
fn chord(raw: &str) -> bool {
    if let Some(k) = raw.strip_prefix('^') {
        return k.chars().count() == 1 && k.chars().all(|c| c.is_ascii_alphabetic());
    }
    let Some((m, k)) = raw.split_once(['-', '+']) else {
        return false;
    };
    let modifier = matches!(
        m.to_ascii_lowercase().as_str(),
        "ctrl"
            | "control"
            | "alt"
            | "shift"
            | "meta"
            | "cmd"
            | "super"
            | "option"
            | "c"
            | "m"
            | "s"
    );
    // `C-y` but not `e-mail` or `x-ray`: a one-letter modifier needs a one-character key.
    let short = m.len() == 1;
    modifier && !k.is_empty() && (!short || k.chars().count() == 1)
}

/// A single letter or digit written as a key: quoted (`'y'`), a capital (`A`), or followed by "then", "to
/// approve" and the like, or ending the sentence. Not the article in "type a message".
fn single_key(key: &Word<'_>, next: Option<&Word<'_>>, decides: bool) -> bool {
    let mut chars = key.raw.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return false;
    };
    if !c.is_ascii_alphanumeric() {
        return false;
    }
    let article = matches!(key.raw, "a" | "i");
    let followed = match next {
        None => !article || key.quoted,
        Some(w) => THEN.contains(&w.lower.as_str()) || (w.lower == "to" && decides),
    };
    key.quoted || (c.is_ascii_uppercase() && key.raw != "I") || (key.ends && !article) || followed
}
