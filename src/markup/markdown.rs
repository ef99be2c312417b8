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
//!
//! The block structure of a line (quotes, headings, lists, rules, fences) is read here; the inline markup
//! within it in `inline.rs`.

mod inline;

use ratatui::text::{Line, Span};

use inline::{SpanBuf, inline};

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

#[cfg(test)]
mod tests;
