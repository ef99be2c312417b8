//! Inline markup within one line (emphasis, code spans, links and images, backslash escapes), resolved in
//! linear passes, and the span buffer every rendered line is collected in.

use std::collections::{HashMap, VecDeque};

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

use crate::markup::styles::RenderStyles;
use crate::trust::sanitize::MAX_COMBINING;

/// Collects spans, merging neighbours of the same style so a line is a handful of spans, not one
/// per character.
///
/// It also keeps the sanitiser's bound on stacked zero-width characters for the line as drawn:
/// markup removed between two stacks (`a`+8 marks+`*`+8 marks+`*`, a code span's backticks, a
/// link's brackets) would otherwise join them into one the sanitiser never saw, and so smear a
/// combining flood over the neighbouring lines. Marks past [`MAX_COMBINING`] and a variation
/// selector right after another are dropped and counted in a `⟨+N marks⟩` marker, as sanitising does.
#[derive(Default)]
pub(super) struct SpanBuf {
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
    pub(super) fn push(&mut self, s: &str, style: Style) {
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

    pub(super) fn finish(mut self) -> Line<'static> {
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
pub(super) fn inline(s: &str, base: Style, styles: &RenderStyles, out: &mut SpanBuf) {
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
