//! The gate every string from a remote agent passes before it may reach the terminal: removes
//! escape sequences, makes control, invisible and direction-changing characters visible, and bounds
//! combining-mark floods.
//!
//! An attacker controls the input, so the output guarantees hold for any input (see the invariant
//! tests): no C0 control except `'\n'` (multi-line mode only), no DEL, no C1 control, no
//! `Default_Ignorable_Code_Point` other than a single variation selector after a base character, no
//! bidi control, and at most [`MAX_COMBINING`] zero-width characters in a row. Work is linear in
//! the input; nothing backtracks.
//!
//! What replaces what (markers are plain text, so they survive copy-paste and logging):
//!
//! | input | output | counted as |
//! |---|---|---|
//! | escape sequence (CSI, OSC, DCS, SOS, PM, APC, two-byte `ESC x`, a lone ESC) | `␛` | `escapes` |
//! | 8-bit introducer (U+009B CSI, U+009D OSC, U+0090 DCS, U+0098 SOS, U+009E PM, U+009F APC) | `⟨U+009D⟩`, the text after it kept | `escapes` |
//! | other C0 control, DEL | its control picture (`␀`…`␟`, `␡`) | `controls` |
//! | `'\r'` not followed by `'\n'` | `␍` | `controls` |
//! | other C1 control (U+0080–U+009F) | `⟨U+0085⟩` | `controls` |
//! | zero-width / invisible (`Default_Ignorable_Code_Point`, Hangul fillers, interlinear annotation) | `⟨ZWSP⟩`, `⟨SHY⟩`, `⟨U+2061⟩` … | `hidden` |
//! | tag characters U+E0020–U+E007E (ASCII smuggling) | `⟨TAG⟩decoded ASCII⟨/TAG⟩` | `hidden` (per character) |
//! | a variation selector right after another one (data smuggled in selectors) | `⟨VS17⟩` … | `hidden` |
//! | bidi controls | `⟨RLO⟩`, `⟨LRI⟩`, `⟨RLM⟩` … | `bidi` |
//! | more than [`MAX_COMBINING`] zero-width characters in a row | the first [`MAX_COMBINING`], then `⟨+N marks⟩` | `truncated_combining` (marks dropped) |
//! | invalid UTF-8 ([`sanitize_bytes`]) | `�` | `invalid_utf8` |
//!
//! Formatting that is not an attack is converted silently: `'\t'` becomes [`TAB_SPACES`] spaces in
//! multi-line text and one space in a single line, `"\r\n"` becomes `'\n'`, U+2028/U+2029 become
//! `'\n'`, and in a single line every line break becomes [`NEWLINE_MARKER`].

use std::fmt;

use unicode_width::UnicodeWidthChar;

use super::flags::{self, Flag};

/// Marks the place of a removed escape sequence (the control picture for ESC, one column wide).
pub const ESCAPE_MARKER: char = '\u{241B}';
/// Stands for a line break inside a single-line field, so a name cannot fake a second row in a
/// list.
pub const NEWLINE_MARKER: char = '\u{23CE}';
/// How many zero-width characters (combining marks and the like) may stack on one base character.
/// Real text stays far below this (Vietnamese uses two, Tibetan stacks a handful); "Zalgo" text
/// uses dozens to smear over neighbouring lines.
pub const MAX_COMBINING: usize = 8;
/// Width of a tab in multi-line text. A fixed width rather than tab stops, because the UI may
/// indent or wrap the text and the column is not known here.
pub const TAB_SPACES: usize = 4;

/// Where a remote string came from, shown next to it in the UI.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Provenance {
    /// Shared, not copied: a 100 000-message transcript holds one agent name, not 100 000.
    pub agent: std::sync::Arc<str>,
    pub task: Option<std::sync::Arc<str>>,
    pub field: std::borrow::Cow<'static, str>,
}

impl Provenance {
    /// Builds a provenance whose parts are themselves sanitised as single lines: the agent's name
    /// and the task id usually come off the network too, and the provenance is drawn next to the
    /// text.
    pub fn new(agent: &str, task: Option<&str>, field: &str) -> Self {
        Self {
            agent: sanitize_line(agent).0.into(),
            task: task.map(|t| sanitize_line(t).0.into()),
            field: sanitize_line(field).0.into(),
        }
    }
}

impl fmt::Display for Provenance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.task {
            Some(task) => write!(
                f,
                "{} \u{203A} {} \u{203A} {}",
                self.agent, task, self.field
            ),
            None => write!(f, "{} \u{203A} {}", self.agent, self.field),
        }
    }
}

/// A string from a remote agent, made safe to draw; the only way remote text reaches the UI/CLI
/// output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Untrusted {
    text: String,
    pub provenance: Provenance,
    pub findings: Findings,
}

impl Untrusted {
    /// Multi-line remote text (descriptions, messages, artifact text), sanitised with
    /// [`sanitize_text`].
    pub fn new(raw: &str, provenance: Provenance) -> Self {
        let (text, findings) = sanitize_text(raw);
        Self {
            text,
            provenance,
            findings,
        }
    }

    /// Single-line remote text (names, ids, titles), sanitised with [`sanitize_line`].
    pub fn line(raw: &str, provenance: Provenance) -> Self {
        let (text, findings) = sanitize_line(raw);
        Self {
            text,
            provenance,
            findings,
        }
    }

    /// Remote bytes that should be text but may not be valid UTF-8, sanitised with
    /// [`sanitize_bytes`].
    pub fn from_bytes(raw: &[u8], provenance: Provenance) -> Self {
        let (text, findings) = sanitize_bytes(raw);
        Self {
            text,
            provenance,
            findings,
        }
    }

    /// The sanitised text, safe to draw.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether anything was neutralised or looked suspicious; the UI shows the flags' reasons when
    /// it is.
    pub fn is_flagged(&self) -> bool {
        !self.findings.flags.is_empty()
    }
}

impl fmt::Display for Untrusted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl AsRef<str> for Untrusted {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

/// What sanitising found and neutralised, plus the flags raised over the result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Findings {
    /// Escape sequences removed (each left one [`ESCAPE_MARKER`]).
    pub escapes: usize,
    /// Control characters replaced by visible symbols.
    pub controls: usize,
    /// Invisible characters revealed as markers.
    pub hidden: usize,
    /// Bidirectional-text controls revealed as markers.
    pub bidi: usize,
    /// Zero-width characters dropped from over-long stacks.
    pub truncated_combining: usize,
    /// Invalid UTF-8 sequences replaced by U+FFFD (only [`sanitize_bytes`] sees bytes).
    pub invalid_utf8: usize,
    /// Flags derived from the counts above, then those [`flags::scan`] raised over the sanitised
    /// text.
    pub flags: Vec<Flag>,
}

/// Sanitise for multi-line display: keeps '\n' and converts '\t' to spaces (4); everything else
/// below.
pub fn sanitize_text(raw: &str) -> (String, Findings) {
    sanitize(raw, Mode::Text, 0)
}

/// Sanitise for a single line (names, ids, titles): newlines and tabs become visible markers /
/// spaces.
pub fn sanitize_line(raw: &str) -> (String, Findings) {
    sanitize(raw, Mode::Line, 0)
}

/// Lossy bytes -> sanitised text (invalid UTF-8 becomes U+FFFD, counted).
///
/// A leading UTF-8 byte-order mark is dropped without a finding: in bytes it is an encoding
/// signature (common in files saved on Windows), not hidden content.
pub fn sanitize_bytes(raw: &[u8]) -> (String, Findings) {
    let raw = raw.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(raw);
    // One pass does what `String::from_utf8_lossy` does (one U+FFFD per invalid chunk) and counts
    // as it goes.
    let mut invalid = 0;
    let mut decoded = String::with_capacity(raw.len());
    for chunk in raw.utf8_chunks() {
        decoded.push_str(chunk.valid());
        if !chunk.invalid().is_empty() {
            decoded.push(char::REPLACEMENT_CHARACTER);
            invalid += 1;
        }
    }
    sanitize(&decoded, Mode::Text, invalid)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Text,
    Line,
}

fn sanitize(raw: &str, mode: Mode, invalid_utf8: usize) -> (String, Findings) {
    let mut findings = Findings {
        invalid_utf8,
        ..Findings::default()
    };
    let text = match first_needing_work(raw, mode) {
        // The common case, ordinary text, costs one scan and one copy.
        None => raw.to_owned(),
        Some(start) => {
            let (clean, rest) = raw.split_at(start);
            let mut out = String::with_capacity(raw.len() + 16);
            out.push_str(clean);
            // The clean prefix holds no zero-width character and no variation selector (both need
            // work), so starting the stateful pass with empty state is exact.
            let mut pass = Pass {
                out,
                mode,
                findings: &mut findings,
                run: 0,
                dropped: 0,
                after_vs: false,
            };
            pass.run(rest);
            pass.out
        }
    };
    findings.flags = flags::from_findings(&findings);
    findings.flags.extend(flags::scan(&text));
    (text, findings)
}

/// Byte offset of the first character the stateful pass has to look at, if any.
fn first_needing_work(raw: &str, mode: Mode) -> Option<usize> {
    raw.char_indices()
        .find(|&(_, c)| match c {
            ' '..='~' => false,
            '\n' => mode == Mode::Line,
            c if c.is_ascii() => true,
            c => classify(c) != Class::Plain,
        })
        .map(|(i, _)| i)
}

/// What a non-ASCII character needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Plain,
    /// 8-bit CSI.
    Csi8,
    /// 8-bit OSC, DCS, SOS, PM, APC: a string runs until ST.
    String8,
    C1,
    Bidi(&'static str),
    /// A printable tag character, decoded as the ASCII it stands for.
    Tag(u8),
    VariationSelector,
    Hidden,
    LineSeparator,
    /// Combining marks and the like: kept, but only [`MAX_COMBINING`] in a row.
    ZeroWidth,
}

fn classify(c: char) -> Class {
    match c {
        '\u{9B}' => Class::Csi8,
        '\u{90}' | '\u{98}' | '\u{9D}' | '\u{9E}' | '\u{9F}' => Class::String8,
        '\u{80}'..='\u{9F}' => Class::C1,
        '\u{061C}' => Class::Bidi("ALM"),
        '\u{200E}' => Class::Bidi("LRM"),
        '\u{200F}' => Class::Bidi("RLM"),
        '\u{202A}' => Class::Bidi("LRE"),
        '\u{202B}' => Class::Bidi("RLE"),
        '\u{202C}' => Class::Bidi("PDF"),
        '\u{202D}' => Class::Bidi("LRO"),
        '\u{202E}' => Class::Bidi("RLO"),
        '\u{2066}' => Class::Bidi("LRI"),
        '\u{2067}' => Class::Bidi("RLI"),
        '\u{2068}' => Class::Bidi("FSI"),
        '\u{2069}' => Class::Bidi("PDI"),
        '\u{E0020}'..='\u{E007E}' => Class::Tag((c as u32 - 0xE0000) as u8),
        '\u{FE00}'..='\u{FE0F}'
        | '\u{E0100}'..='\u{E01EF}'
        | '\u{180B}'..='\u{180D}'
        | '\u{180F}' => Class::VariationSelector,
        // The rest of Default_Ignorable_Code_Point (Unicode 16), which terminals draw as nothing,
        // plus the Hangul choseong filler (ignorable but two columns of blank) and the interlinear
        // annotation controls.
        '\u{00AD}'
        | '\u{034F}'
        | '\u{115F}'
        | '\u{1160}'
        | '\u{17B4}'
        | '\u{17B5}'
        | '\u{180E}'
        | '\u{200B}'..='\u{200D}'
        | '\u{2060}'..='\u{2065}'
        | '\u{206A}'..='\u{206F}'
        | '\u{3164}'
        | '\u{FEFF}'
        | '\u{FFA0}'
        | '\u{FFF0}'..='\u{FFFB}'
        | '\u{1BCA0}'..='\u{1BCA3}'
        | '\u{1D173}'..='\u{1D17A}'
        | '\u{E0000}'..='\u{E0FFF}' => Class::Hidden,
        '\u{2028}' | '\u{2029}' => Class::LineSeparator,
        // Zero width per unicode-width: Grapheme_Extend (all non-spacing and enclosing marks, so
        // every block of combining marks, not just U+0300–U+036F, U+1AB0–U+1AFF, U+1DC0–U+1DFF,
        // U+20D0–U+20FF, U+FE20–U+FE2F), Hangul vowel/trailing jamo and prepended marks. Any of
        // them stacks in a terminal cell.
        c if c.width() == Some(0) => Class::ZeroWidth,
        _ => Class::Plain,
    }
}

fn hidden_name(c: char) -> Option<&'static str> {
    Some(match c {
        '\u{00AD}' => "SHY",
        '\u{034F}' => "CGJ",
        '\u{180E}' => "MVS",
        '\u{200B}' => "ZWSP",
        '\u{200C}' => "ZWNJ",
        '\u{200D}' => "ZWJ",
        '\u{2060}' => "WJ",
        '\u{FEFF}' => "BOM",
        _ => return None,
    })
}

/// The stateful pass over everything from the first character that needs work.
struct Pass<'a> {
    out: String,
    mode: Mode,
    findings: &'a mut Findings,
    /// Zero-width characters in the current stack.
    run: usize,
    /// Of those, how many were dropped.
    dropped: usize,
    /// The previous character was a variation selector.
    after_vs: bool,
}

impl Pass<'_> {
    fn run(&mut self, input: &str) {
        let mut it = input.chars();
        while let Some(c) = it.next() {
            let is_vs = self.char(c, &mut it);
            self.after_vs = is_vs;
        }
        self.end_stack();
    }

    /// Handles one character (and whatever sequence it starts); returns whether it was a variation
    /// selector.
    fn char(&mut self, c: char, it: &mut std::str::Chars<'_>) -> bool {
        match c {
            ' '..='~' => self.visible(c),
            '\n' => self.line_break(),
            '\t' => {
                self.end_stack();
                let n = if self.mode == Mode::Text {
                    TAB_SPACES
                } else {
                    1
                };
                self.out.extend(std::iter::repeat_n(' ', n));
            }
            '\r' => {
                if it.as_str().starts_with('\n') {
                    // CR LF only ends a line; it cannot overwrite anything.
                    it.next();
                    self.line_break();
                } else {
                    self.control(c);
                }
            }
            '\x1B' => {
                skip_esc_tail(it);
                self.escape();
            }
            '\0'..='\x1F' | '\x7F' => self.control(c),
            _ => match classify(c) {
                Class::Plain => self.visible(c),
                // An 8-bit introducer is shown where it stood and what follows is kept: with the introducer
                // gone the rest is inert text, and swallowing it as a terminal would let an agent hide
                // anything after one character (a U+009D once hid the rest of a message).
                Class::Csi8 | Class::String8 => {
                    self.findings.escapes += 1;
                    self.hex_marker(c);
                }
                Class::C1 => {
                    self.findings.controls += 1;
                    self.hex_marker(c);
                }
                Class::Bidi(name) => {
                    self.findings.bidi += 1;
                    self.marker(name);
                }
                Class::Tag(first) => self.tags(first, it),
                Class::VariationSelector => {
                    if self.after_vs {
                        self.findings.hidden += 1;
                        self.vs_marker(c);
                    } else {
                        self.zero_width(c);
                    }
                    return true;
                }
                Class::Hidden => {
                    self.findings.hidden += 1;
                    match hidden_name(c) {
                        Some(name) => self.marker(name),
                        None => self.hex_marker(c),
                    }
                }
                Class::LineSeparator => self.line_break(),
                Class::ZeroWidth => self.zero_width(c),
            },
        }
        false
    }

    fn visible(&mut self, c: char) {
        self.end_stack();
        self.out.push(c);
    }

    fn line_break(&mut self) {
        match self.mode {
            Mode::Text => self.visible('\n'),
            Mode::Line => self.visible(NEWLINE_MARKER),
        }
    }

    fn control(&mut self, c: char) {
        self.findings.controls += 1;
        let picture = match c {
            '\x7F' => '\u{2421}',
            // C0 controls map onto U+2400..U+241F in order.
            c => char::from_u32(0x2400 + c as u32).unwrap_or(char::REPLACEMENT_CHARACTER),
        };
        self.visible(picture);
    }

    fn escape(&mut self) {
        self.findings.escapes += 1;
        self.visible(ESCAPE_MARKER);
    }

    fn marker(&mut self, name: &str) {
        self.end_stack();
        self.out.push('\u{27E8}');
        self.out.push_str(name);
        self.out.push('\u{27E9}');
    }

    fn hex_marker(&mut self, c: char) {
        self.end_stack();
        self.out.push_str("\u{27E8}U+");
        push_hex(&mut self.out, c as u32);
        self.out.push('\u{27E9}');
    }

    fn vs_marker(&mut self, c: char) {
        let (prefix, n) = match c as u32 {
            v @ 0xFE00..=0xFE0F => ("VS", v - 0xFE00 + 1),
            v @ 0xE0100..=0xE01EF => ("VS", v - 0xE0100 + 17),
            0x180F => ("FVS", 4),
            v => ("FVS", v - 0x180B + 1),
        };
        self.end_stack();
        self.out.push('\u{27E8}');
        self.out.push_str(prefix);
        push_decimal(&mut self.out, n as usize);
        self.out.push('\u{27E9}');
    }

    /// Tag characters spell ASCII invisibly (used to smuggle instructions past a reader); show what
    /// they spell.
    fn tags(&mut self, first: u8, it: &mut std::str::Chars<'_>) {
        self.marker("TAG");
        self.out.push(char::from(first));
        self.findings.hidden += 1;
        while let Some(c) = it.as_str().chars().next() {
            let Class::Tag(b) = classify(c) else { break };
            it.next();
            self.out.push(char::from(b));
            self.findings.hidden += 1;
        }
        self.marker("/TAG");
    }

    fn zero_width(&mut self, c: char) {
        self.run += 1;
        if self.run <= MAX_COMBINING {
            self.out.push(c);
        } else {
            self.dropped += 1;
        }
    }

    /// Closes the current stack of zero-width characters, saying how many were dropped from it.
    fn end_stack(&mut self) {
        if self.dropped > 0 {
            self.findings.truncated_combining += self.dropped;
            self.out.push_str("\u{27E8}+");
            push_decimal(&mut self.out, self.dropped);
            self.out.push_str(" marks\u{27E9}");
        }
        self.run = 0;
        self.dropped = 0;
    }
}

/// After ESC: skips the rest of the sequence it introduces. A sequence ends at its final character,
/// or just before anything that cannot continue it (that character is then handled on its own, as a
/// terminal would).
fn skip_esc_tail(it: &mut std::str::Chars<'_>) {
    match it.as_str().chars().next() {
        Some('[') => {
            it.next();
            skip_csi(it);
        }
        Some(']' | 'P' | 'X' | '^' | '_') => {
            it.next();
            skip_string(it);
        }
        // nF: intermediates, then one final character (e.g. ESC ( B, ESC # 8 which fills the screen
        // with E).
        Some('\x20'..='\x2F') => {
            let rest = it.as_str();
            let inter = rest
                .bytes()
                .take_while(|b| (0x20..=0x2F).contains(b))
                .count();
            let fin = usize::from(
                rest.as_bytes()
                    .get(inter)
                    .is_some_and(|b| (0x30..=0x7E).contains(b)),
            );
            *it = rest.get(inter + fin..).unwrap_or("").chars();
        }
        // Fp, Fe, Fs: one character (ESC 7, ESC c which resets the terminal, ESC M …).
        Some('\x30'..='\x7E') => {
            it.next();
        }
        // A lone ESC: nothing more to remove.
        _ => {}
    }
}

/// Skips a CSI body: parameter and intermediate bytes, then the final byte.
fn skip_csi(it: &mut std::str::Chars<'_>) {
    let rest = it.as_str();
    let body = rest
        .bytes()
        .take_while(|b| (0x20..=0x3F).contains(b))
        .count();
    let fin = usize::from(
        rest.as_bytes()
            .get(body)
            .is_some_and(|b| (0x40..=0x7E).contains(b)),
    );
    *it = rest.get(body + fin..).unwrap_or("").chars();
}

/// Skips a control string (OSC, DCS, SOS, PM, APC) through its terminator: BEL, ESC \, or 8-bit ST.
/// ESC followed by anything else, CAN and SUB end it without being consumed, as in a terminal; with
/// no terminator at all the string runs to the end of the input, which is what a terminal would
/// swallow too.
fn skip_string(it: &mut std::str::Chars<'_>) {
    let rest = it.as_str();
    let bytes = rest.as_bytes();
    let mut i = 0;
    // Every byte tested is ASCII or the lead of U+009C, so `i` only stops on a character boundary.
    while i < bytes.len() {
        match bytes[i] {
            0x07 => {
                i += 1;
                break;
            }
            0xC2 if bytes.get(i + 1) == Some(&0x9C) => {
                i += 2;
                break;
            }
            0x1B => {
                if bytes.get(i + 1) == Some(&b'\\') {
                    i += 2;
                }
                break;
            }
            0x18 | 0x1A => break,
            _ => i += 1,
        }
    }
    // `i` is at a boundary: it stopped before an ASCII byte, after a complete terminator, or at the
    // end.
    *it = rest.get(i..).unwrap_or("").chars();
}

fn push_hex(out: &mut String, v: u32) {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    let mut started = false;
    for shift in (0..6).rev() {
        let d = ((v >> (shift * 4)) & 0xF) as usize;
        // At least four digits, as in the usual U+XXXX notation.
        if d != 0 || shift < 4 || started {
            started = true;
            out.push(char::from(DIGITS[d]));
        }
    }
}

fn push_decimal(out: &mut String, n: usize) {
    out.push_str(&n.to_string());
}

/// The largest index at most `i` that is a character boundary of `s` (0 at worst), for cutting a text at a byte
/// budget without splitting a character: `str::floor_char_boundary`, which needs Rust 1.91 (we build on 1.89).
pub fn floor_char_boundary(s: &str, i: usize) -> usize {
    let mut i = i.min(s.len());
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests;
