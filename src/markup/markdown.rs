//! Light markdown → styled terminal lines, one source line at a time, in time linear in the input.
//!
//! What is understood: ATX headings, unordered / ordered / task lists (indentation kept), block
//! quotes (nested), horizontal rules, `**strong**` / `__strong__`, `*em*` / `_em_`, `` `code` ``,
//! backslash escapes, links and images (`[text](url)` is shown as `text ⟨url⟩`, never as an OSC 8
//! hyperlink: the URL came from a remote agent and must stay visible), and fenced code blocks, which
//! come back as a separate [`Block::Code`] so the caller can hand them to the highlighter.
//! Everything else (tables, HTML, setext headings, indented code) is shown as the text it is.
//!
//! The input is already sanitised (`trust::sanitize`): no control characters, tabs already
//! expanded. Nothing here wraps; the caller wraps to its width. Source lines are never joined, so
//! one source line gives one output line and the user sees the agent's own line breaks.

use std::collections::{HashMap, VecDeque};

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

use crate::trust::sanitize::MAX_COMBINING;

pub use super::styles::RenderStyles;

/// A run of rendered lines, or a fenced code block left for the highlighter.
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    Lines(Vec<Line<'static>>),
    /// `lang` is the first word of the info string, reduced to `[A-Za-z0-9+#._-]` and at most
    /// [`MAX_LANG_CHARS`] characters; `code` has no trailing newline.
    Code {
        lang: Option<String>,
        code: String,
    },
}

/// Longest language tag kept from a fence's info string; real ones are short, and the tag ends up
/// in cache keys and syntax lookups.
pub const MAX_LANG_CHARS: usize = 32;
/// Nesting depth of `>` shown as bars; deeper quotes are still stripped but not drawn, so a line of
/// a million `>` does not become two million columns of bars.
pub const MAX_QUOTE_BARS: usize = 8;
/// Indentation kept before a list marker, in columns.
pub const MAX_LIST_INDENT: usize = 24;
/// Width of a horizontal rule; the caller does not tell us its width and wrapping a rule looks bad,
/// so it is short enough for any sensible pane.
pub const RULE_WIDTH: usize = 24;

/// Splits `text` into rendered lines and fenced code blocks. Linear time; never panics.
pub fn parse(text: &str, styles: &RenderStyles) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut lines: Vec<Line<'static>> = Vec::new();
    let mut parser = LineParser::default();
    let mut put = |settled: Settled, blocks: &mut Vec<Block>| match settled {
        Settled::Line(l) => lines.push(l),
        Settled::Code { lang, code } => {
            if !lines.is_empty() {
                blocks.push(Block::Lines(std::mem::take(&mut lines)));
            }
            blocks.push(Block::Code { lang, code });
        }
    };
    for raw in text.lines() {
        if let Some(s) = parser.line(raw, styles) {
            put(s, &mut blocks);
        }
    }
    if let Some(s) = parser.finish() {
        put(s, &mut blocks);
    }
    if !lines.is_empty() {
        blocks.push(Block::Lines(lines));
    }
    blocks
}

/// What one source line settles: its rendered line, or the fenced code block it closes.
#[derive(Debug, Clone, PartialEq)]
pub enum Settled {
    Line(Line<'static>),
    Code { lang: Option<String>, code: String },
}

/// The parser between two source lines: the only markdown this renderer carries from one line to the next is
/// an open code fence, so text that arrives a line at a time is rendered a line at a time, each line as the
/// whole text would render it. [`parse`] is this parser fed every line.
#[derive(Debug, Default)]
pub struct LineParser {
    fence: Option<OpenFence>,
}

impl LineParser {
    /// Feed one complete source line (without its line break). A line outside a fence settles at once; the
    /// lines of a fence settle together when it closes.
    pub fn line(&mut self, raw: &str, styles: &RenderStyles) -> Option<Settled> {
        if let Some(open) = self.fence.as_mut() {
            if is_fence_close(raw, open.ch, open.len) {
                return self.fence.take().map(|done| Settled::Code {
                    lang: done.lang,
                    code: done.code,
                });
            }
            open.push_line(raw);
            return None;
        }
        if let Some(open) = fence_open(raw) {
            self.fence = Some(open);
            return None;
        }
        Some(Settled::Line(render_line(raw, styles)))
    }

    /// Is a code fence open (its lines not settled yet)?
    pub fn in_fence(&self) -> bool {
        self.fence.is_some()
    }

    /// The text ended: an unterminated fence still shows its code (agents' output is often cut off
    /// mid-stream).
    pub fn finish(&mut self) -> Option<Settled> {
        self.fence.take().map(|open| Settled::Code {
            lang: open.lang,
            code: open.code,
        })
    }
}

/// The unhighlighted form of a code block, shown until the highlighter answers. One line per
/// source line (the same count `highlight` produces, so the swap does not move anything), and one
/// empty line for empty code.
pub fn render_plain_code(code: &str, styles: &RenderStyles) -> Vec<Line<'static>> {
    let mut out: Vec<Line<'static>> = code
        .lines()
        .map(|l| Line::from(Span::styled(l.replace('\t', "    "), styles.code_block)))
        .collect();
    if out.is_empty() {
        out.push(Line::default());
    }
    out
}

#[derive(Debug)]
struct OpenFence {
    ch: char,
    len: usize,
    indent: usize,
    lang: Option<String>,
    code: String,
    any_line: bool,
}

impl OpenFence {
    fn push_line(&mut self, raw: &str) {
        if self.any_line {
            self.code.push('\n');
        }
        self.any_line = true;
        // Code under an indented fence (inside a list item) loses the fence's indentation only.
        let spaces = raw.len() - raw.trim_start_matches(' ').len();
        self.code.push_str(&raw[spaces.min(self.indent)..]);
    }
}

fn fence_open(raw: &str) -> Option<OpenFence> {
    // Any indentation is accepted, not only CommonMark's three spaces: agents indent fences inside
    // list items and expect them to be code.
    let rest = raw.trim_start_matches(' ');
    let indent = raw.len() - rest.len();
    let ch = rest.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let len = rest.len() - rest.trim_start_matches(ch).len();
    if len < 3 {
        return None;
    }
    let info = rest[len..].trim();
    if ch == '`' && info.contains('`') {
        // ```foo``` on one line is inline code, not a fence.
        return None;
    }
    let lang: String = info
        .split_whitespace()
        .next()
        .unwrap_or("")
        .trim_start_matches(['{', '.'])
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '#' | '.' | '_' | '-'))
        .take(MAX_LANG_CHARS)
        .collect();
    Some(OpenFence {
        ch,
        len,
        indent,
        lang: (!lang.is_empty()).then_some(lang),
        code: String::new(),
        any_line: false,
    })
}

fn is_fence_close(raw: &str, ch: char, len: usize) -> bool {
    let rest = raw.trim_start_matches(' ');
    let after = rest.trim_start_matches(ch);
    rest.len() - after.len() >= len && after.trim().is_empty()
}

/// One non-code source line → one output line.
fn render_line(raw: &str, styles: &RenderStyles) -> Line<'static> {
    let mut out = SpanBuf::default();

    // Block quotes: any number of `>` (optionally spaced) in front.
    let mut rest = raw;
    let mut depth = 0usize;
    loop {
        let t = rest.trim_start_matches(' ');
        match t.strip_prefix('>') {
            Some(after) => {
                depth += 1;
                rest = after.strip_prefix(' ').unwrap_or(after);
            }
            None => break,
        }
    }
    let base = if depth > 0 {
        styles.text.patch(styles.quote)
    } else {
        styles.text
    };
    for _ in 0..depth.min(MAX_QUOTE_BARS) {
        out.push("│ ", styles.quote);
    }
    if depth > MAX_QUOTE_BARS {
        out.push(&format!("(+{}) ", depth - MAX_QUOTE_BARS), styles.quote);
    }

    let trimmed = rest.trim_start_matches(' ');
    let indent = rest.len() - trimmed.len();

    if trimmed.trim_end().is_empty() {
        return out.finish();
    }
    if is_rule(trimmed) {
        out.push(&"─".repeat(RULE_WIDTH), styles.quote);
        return out.finish();
    }
    if let Some((level, content)) = heading(trimmed).filter(|_| indent <= 3) {
        let style = base.patch(styles.heading);
        out.push(&"#".repeat(level), style);
        out.push(" ", style);
        inline(content, style, styles, &mut out);
        return out.finish();
    }
    if let Some((marker, content)) = list_item(trimmed) {
        out.push(&" ".repeat(indent.min(MAX_LIST_INDENT)), base);
        let marker_text = match marker {
            Marker::Bullet => ["•", "◦", "▪"][(indent / 2) % 3].to_string(),
            Marker::Ordered(m) => m.to_string(),
        };
        out.push(&marker_text, base.patch(styles.list_marker));
        out.push(" ", base);
        let content = match task_box(content) {
            Some((done, after)) => {
                out.push(
                    if done { "☑ " } else { "☐ " },
                    base.patch(styles.list_marker),
                );
                after
            }
            None => content,
        };
        inline(content, base, styles, &mut out);
        return out.finish();
    }
    // Plain paragraph text keeps its indentation: continuation lines of list items line up.
    inline(rest, base, styles, &mut out);
    out.finish()
}

fn is_rule(t: &str) -> bool {
    let Some(ch) = t.chars().next().filter(|c| matches!(c, '-' | '*' | '_')) else {
        return false;
    };
    let mut count = 0;
    for c in t.chars() {
        if c == ch {
            count += 1;
        } else if c != ' ' {
            return false;
        }
    }
    count >= 3
}

fn heading(t: &str) -> Option<(usize, &str)> {
    let level = t.len() - t.trim_start_matches('#').len();
    if !(1..=6).contains(&level) {
        return None;
    }
    let after = &t[level..];
    if !(after.is_empty() || after.starts_with(' ')) {
        return None;
    }
    let mut content = after.trim();
    // Optional closing hashes, only when separated by a space (`# C#` keeps its `#`).
    let without = content.trim_end_matches('#');
    if without.is_empty() {
        content = "";
    } else if without.len() != content.len() && without.ends_with(' ') {
        content = without.trim_end();
    }
    Some((level, content))
}

enum Marker<'a> {
    Bullet,
    Ordered(&'a str),
}

fn list_item(t: &str) -> Option<(Marker<'_>, &str)> {
    fn after_marker(rest: &str) -> Option<&str> {
        if rest.is_empty() {
            Some("")
        } else {
            rest.strip_prefix(' ').map(|r| r.trim_start_matches(' '))
        }
    }
    if let Some(rest) = t.strip_prefix(['-', '*', '+']) {
        return after_marker(rest).map(|c| (Marker::Bullet, c));
    }
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    // CommonMark caps ordered markers at nine digits; longer numbers are prose.
    if (1..=9).contains(&digits) {
        let rest = &t[digits..];
        if let Some(after) = rest.strip_prefix(['.', ')']) {
            return after_marker(after).map(|c| (Marker::Ordered(&t[..=digits]), c));
        }
    }
    None
}

fn task_box(content: &str) -> Option<(bool, &str)> {
    let (done, rest) = if let Some(r) = content.strip_prefix("[ ]") {
        (false, r)
    } else if let Some(r) = content
        .strip_prefix("[x]")
        .or_else(|| content.strip_prefix("[X]"))
    {
        (true, r)
    } else {
        return None;
    };
    if rest.is_empty() {
        Some((done, rest))
    } else {
        rest.strip_prefix(' ').map(|r| (done, r))
    }
}

/// Collects spans, merging neighbours of the same style so a line is a handful of spans, not one
/// per character.
///
/// It also keeps the sanitiser's bound on stacked zero-width characters for the line as drawn:
/// markup removed between two stacks (`a`+8 marks+`*`+8 marks+`*`, a code span's backticks, a
/// link's brackets) would otherwise join them into one the sanitiser never saw, and so smear a
/// combining flood over the neighbouring lines. Marks past [`MAX_COMBINING`] and a variation
/// selector right after another are dropped and counted in a `⟨+N marks⟩` marker, as sanitising does.
#[derive(Default)]
struct SpanBuf {
    spans: Vec<Span<'static>>,
    text: String,
    style: Style,
    /// Zero-width characters in the stack that ends the line so far.
    stack: usize,
    /// Of those, how many were dropped.
    dropped: usize,
    /// The last character kept was a variation selector.
    after_vs: bool,
}

fn is_variation_selector(c: char) -> bool {
    matches!(c, '\u{180B}'..='\u{180D}' | '\u{180F}' | '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}')
}

impl SpanBuf {
    fn push(&mut self, s: &str, style: Style) {
        if s.is_empty() {
            return;
        }
        if style != self.style && !self.text.is_empty() {
            self.flush();
        }
        self.style = style;
        for c in s.chars() {
            if c.width() == Some(0) {
                let vs = is_variation_selector(c);
                self.stack += 1;
                if self.stack > MAX_COMBINING || (vs && self.after_vs) {
                    self.dropped += 1;
                    continue;
                }
                self.after_vs = vs;
            } else {
                self.end_stack();
            }
            self.text.push(c);
        }
    }

    fn end_stack(&mut self) {
        if self.dropped > 0 {
            self.text
                .push_str(&format!("\u{27E8}+{} marks\u{27E9}", self.dropped));
        }
        self.stack = 0;
        self.dropped = 0;
        self.after_vs = false;
    }

    fn push_char(&mut self, c: char, style: Style) {
        let mut b = [0u8; 4];
        self.push(c.encode_utf8(&mut b), style);
    }

    fn flush(&mut self) {
        if !self.text.is_empty() {
            self.spans
                .push(Span::styled(std::mem::take(&mut self.text), self.style));
        }
    }

    fn finish(mut self) -> Line<'static> {
        self.end_stack();
        self.flush();
        Line::from(self.spans)
    }
}

/// Inline tokens; delimiters are resolved in a second pass once every possible closer is known.
enum Tok {
    Text(String),
    Code(String),
    Link {
        text: String,
        url: String,
        image: bool,
    },
    Delim {
        ch: char,
        n: usize,
        open: bool,
        close: bool,
    },
}

/// Inline markup of one line. Three linear passes: tokenise (code spans, links, escapes,
/// delimiter runs), find the last possible closer of each delimiter kind, then open/close
/// emphasis left to right. Nothing searches forward from every opener, which is what makes naive
/// emphasis parsers quadratic on lines like `*a*a*a…` or `[[[[…`.
fn inline(s: &str, base: Style, styles: &RenderStyles, out: &mut SpanBuf) {
    let toks = tokenize(s);

    // Components: 0 = em, 1 = strong; chars: 0 = '*', 1 = '_'. A run of 3 carries both.
    let comps = |n: usize| -> &'static [usize] {
        match n {
            1 => &[0],
            2 => &[1],
            _ => &[1, 0],
        }
    };
    let ch_idx = |c: char| usize::from(c == '_');
    let mut last_close = [[None::<usize>; 2]; 2];
    for (i, t) in toks.iter().enumerate() {
        if let Tok::Delim {
            ch, n, close: true, ..
        } = t
        {
            for &c in comps(*n) {
                last_close[c][ch_idx(*ch)] = Some(i);
            }
        }
    }

    let mut open: [Option<char>; 2] = [None, None];
    let current = |open: &[Option<char>; 2]| {
        let mut st = base;
        if open[1].is_some() {
            st = st.patch(styles.strong);
        }
        if open[0].is_some() {
            st = st.patch(styles.emphasis);
        }
        st
    };
    for (i, t) in toks.into_iter().enumerate() {
        match t {
            Tok::Text(text) => out.push(&text, current(&open)),
            Tok::Code(code) => out.push(&code, base.patch(styles.code_inline)),
            Tok::Link { text, url, image } => {
                let st = base.patch(styles.link);
                if image {
                    out.push("image: ", st);
                }
                if url.is_empty() {
                    out.push(&text, st);
                } else if text == url || text.is_empty() {
                    out.push(&format!("⟨{url}⟩"), st);
                } else {
                    out.push(&text, st);
                    out.push(&format!(" ⟨{url}⟩"), st);
                }
            }
            Tok::Delim {
                ch,
                n,
                open: can_open,
                close: can_close,
            } => {
                for &c in comps(n) {
                    let width = if c == 1 { 2 } else { 1 };
                    if open[c] == Some(ch) && can_close {
                        open[c] = None;
                    } else if open[c].is_none()
                        && can_open
                        && last_close[c][ch_idx(ch)].is_some_and(|j| j > i)
                    {
                        open[c] = Some(ch);
                    } else {
                        for _ in 0..width {
                            out.push_char(ch, current(&open));
                        }
                    }
                }
            }
        }
    }
}

fn tokenize(s: &str) -> Vec<Tok> {
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len();

    // Backtick runs by length, in order: a code span closes at the next run of the same length.
    let mut runs: HashMap<usize, VecDeque<usize>> = HashMap::new();
    // `[` → its matching `]`, by a bracket stack.
    let mut brackets: HashMap<usize, usize> = HashMap::new();
    {
        let mut stack = Vec::new();
        let mut i = 0;
        while i < n {
            match chars[i] {
                '`' => {
                    let len = run_len(&chars, i);
                    runs.entry(len).or_default().push_back(i);
                    i += len;
                    continue;
                }
                // Only bracket escapes matter here; a backslash before a backtick may be the
                // last character of a code span, so runs are recorded regardless.
                '\\' if matches!(chars.get(i + 1), Some('[' | ']')) => {
                    i += 2;
                    continue;
                }
                '[' => stack.push(i),
                ']' => {
                    if let Some(o) = stack.pop() {
                        brackets.insert(o, i);
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }

    let mut toks = Vec::new();
    let mut text = String::new();
    let flush = |text: &mut String, toks: &mut Vec<Tok>| {
        if !text.is_empty() {
            toks.push(Tok::Text(std::mem::take(text)));
        }
    };
    let mut i = 0;
    while i < n {
        let c = chars[i];
        match c {
            '\\' if chars.get(i + 1).is_some_and(|c| c.is_ascii_punctuation()) => {
                text.push(chars[i + 1]);
                i += 2;
            }
            '`' => {
                let len = run_len(&chars, i);
                let closer = runs.get_mut(&len).and_then(|q| {
                    while q.front().is_some_and(|&p| p <= i) {
                        q.pop_front();
                    }
                    q.front().copied()
                });
                match closer {
                    Some(q) => {
                        flush(&mut text, &mut toks);
                        let mut code: String = chars[i + len..q].iter().collect();
                        // CommonMark strips one space each side so `` ` `x` ` `` can show backticks.
                        if code.len() >= 2
                            && code.starts_with(' ')
                            && code.ends_with(' ')
                            && !code.trim().is_empty()
                        {
                            code = code[1..code.len() - 1].to_string();
                        }
                        toks.push(Tok::Code(code));
                        i = q + len;
                    }
                    None => {
                        text.extend(std::iter::repeat_n('`', len));
                        i += len;
                    }
                }
            }
            '[' | '!' => {
                let image = c == '!';
                let open = if image { i + 1 } else { i };
                if image && chars.get(open) != Some(&'[') {
                    text.push(c);
                    i += 1;
                    continue;
                }
                match link_at(&chars, open, &brackets) {
                    Some((close, url_end)) => {
                        flush(&mut text, &mut toks);
                        toks.push(Tok::Link {
                            text: chars[open + 1..close].iter().collect(),
                            url: chars[close + 2..url_end].iter().collect(),
                            image,
                        });
                        i = url_end + 1;
                    }
                    None => {
                        text.push(c);
                        i += 1;
                    }
                }
            }
            '*' | '_' => {
                let len = run_len(&chars, i);
                let prev = i.checked_sub(1).map(|p| chars[p]);
                let next = chars.get(i + len).copied();
                if len > 3 {
                    text.extend(std::iter::repeat_n(c, len));
                } else {
                    let left = next.is_some_and(|x| !x.is_whitespace());
                    let right = prev.is_some_and(|x| !x.is_whitespace());
                    let (open, close) = if c == '_' {
                        // No intraword `_`: snake_case_names stay as they are.
                        (
                            left && !prev.is_some_and(char::is_alphanumeric),
                            right && !next.is_some_and(char::is_alphanumeric),
                        )
                    } else {
                        (left, right)
                    };
                    flush(&mut text, &mut toks);
                    toks.push(Tok::Delim {
                        ch: c,
                        n: len,
                        open,
                        close,
                    });
                }
                i += len;
            }
            _ => {
                text.push(c);
                i += 1;
            }
        }
    }
    flush(&mut text, &mut toks);
    toks
}

fn run_len(chars: &[char], i: usize) -> usize {
    let c = chars[i];
    chars[i..].iter().take_while(|&&x| x == c).count()
}

/// `[text](url)` starting at `open`: returns the `]` index and the `)` index. The URL scan stops
/// at whitespace and brackets, so the scans of different links never overlap (linear overall).
fn link_at(
    chars: &[char],
    open: usize,
    brackets: &HashMap<usize, usize>,
) -> Option<(usize, usize)> {
    let close = *brackets.get(&open)?;
    if chars.get(close + 1) != Some(&'(') {
        return None;
    }
    let mut j = close + 2;
    while let Some(&c) = chars.get(j) {
        if c == ')' {
            return Some((close, j));
        }
        if c.is_whitespace() || matches!(c, '(' | '[' | ']' | '<' | '>') {
            return None;
        }
        j += 1;
    }
    None
}

#[cfg(test)]
mod tests;
