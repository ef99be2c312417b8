//! Pretty-printed, highlighted, foldable JSON for artifacts, cards and raw wire payloads.
//!
//! Everything walks the value with an explicit stack (never recursion), so a 10 000-level
//! document neither overflows the stack here nor when it is dropped. Containers are named by
//! their pre-order number among non-empty containers; the value never changes after
//! [`JsonView::new`], so those numbers are stable and folding a subtree just skips its count.

use ratatui::text::{Line, Span};
use serde_json::Value;
use unicode_width::UnicodeWidthChar;

use super::styles::RenderStyles;
use crate::trust::sanitize::MAX_COMBINING;

/// Nesting levels drawn as indentation; deeper lines keep this indentation and show their depth
/// as a number instead, so output stays linear in the number of lines (10 000 levels of two-space
/// indentation would otherwise be 100 million columns).
pub const MAX_INDENT_LEVELS: usize = 32;
const INDENT: &str = "  ";

/// A JSON value plus which of its containers are folded.
pub struct JsonView {
    value: Value,
    /// Per container: folded or not.
    folded: Vec<bool>,
    /// Per container: how many containers its subtree holds (itself excluded).
    sizes: Vec<usize>,
    /// Per container: nesting depth (the root is 0).
    depths: Vec<usize>,
    /// Per visible line: the container it opens, closes or shows folded, if any.
    rows: Vec<Option<usize>>,
}

impl JsonView {
    pub fn new(value: Value) -> Self {
        let mut sizes = Vec::new();
        let mut depths = Vec::new();
        walk(&value, &[], &[], |ev| match ev {
            Ev::Open { id, depth, .. } => {
                debug_assert_eq!(id, sizes.len());
                sizes.push(0);
                depths.push(depth);
            }
            Ev::Close { id, end_id, .. } => {
                if let Some(s) = sizes.get_mut(id) {
                    *s = end_id - id - 1;
                }
            }
            Ev::Scalar { .. } | Ev::Folded { .. } => {}
        });
        let mut view = Self {
            value,
            folded: vec![false; sizes.len()],
            sizes,
            depths,
            rows: Vec::new(),
        };
        view.rebuild_rows();
        view
    }

    pub fn value(&self) -> &Value {
        &self.value
    }

    /// Number of lines [`JsonView::lines`] returns with the current folds.
    pub fn line_count(&self) -> usize {
        self.rows.len()
    }

    /// Folds or unfolds the object/array that starts, ends or is shown folded on `line`. Returns
    /// false (and changes nothing) for any other line.
    pub fn toggle_fold_at_line(&mut self, line: usize) -> bool {
        let Some(&Some(id)) = self.rows.get(line) else {
            return false;
        };
        let Some(f) = self.folded.get_mut(id) else {
            return false;
        };
        *f = !*f;
        self.rebuild_rows();
        true
    }

    /// Folds every container at nesting `depth` or deeper and unfolds the rest: `fold_all(0)`
    /// shows the root as one line, `fold_all(1)` its members. Deeper containers are folded too, so
    /// unfolding one member reveals one more level, not the whole subtree.
    pub fn fold_all(&mut self, depth: usize) {
        for (f, d) in self.folded.iter_mut().zip(&self.depths) {
            *f = *d >= depth;
        }
        self.rebuild_rows();
    }

    pub fn unfold_all(&mut self) {
        self.folded.iter_mut().for_each(|f| *f = false);
        self.rebuild_rows();
    }

    /// The visible lines, styled. Linear in the number of visible lines plus their text.
    pub fn lines(&self, styles: &RenderStyles) -> Vec<Line<'static>> {
        let mut out = Vec::with_capacity(self.rows.len());
        walk(&self.value, &self.folded, &self.sizes, |ev| {
            let mut spans = Vec::new();
            let (depth, key) = match &ev {
                Ev::Scalar { depth, key, .. }
                | Ev::Open { depth, key, .. }
                | Ev::Folded { depth, key, .. } => (*depth, *key),
                Ev::Close { depth, .. } => (*depth, None),
            };
            indent(depth, styles, &mut spans);
            if let Some(k) = key {
                spans.push(Span::styled(escape_string(k), styles.json_key));
                spans.push(Span::styled(": ", styles.json_punct));
            }
            let punct = |s: &'static str| Span::styled(s, styles.json_punct);
            let comma = match ev {
                Ev::Scalar { value, comma, .. } => {
                    spans.push(scalar(value, styles));
                    comma
                }
                Ev::Open { array, .. } => {
                    spans.push(punct(if array { "[" } else { "{" }));
                    false
                }
                Ev::Folded {
                    array,
                    count,
                    comma,
                    ..
                } => {
                    let (open, close, noun) = if array {
                        ("[", "]", if count == 1 { "item" } else { "items" })
                    } else {
                        ("{", "}", if count == 1 { "key" } else { "keys" })
                    };
                    spans.push(punct(open));
                    spans.push(Span::styled(
                        format!(" … {count} {noun} "),
                        styles.fold_marker,
                    ));
                    spans.push(punct(close));
                    comma
                }
                Ev::Close { array, comma, .. } => {
                    spans.push(punct(if array { "]" } else { "}" }));
                    comma
                }
            };
            if comma {
                spans.push(punct(","));
            }
            out.push(Line::from(spans));
        });
        out
    }

    fn rebuild_rows(&mut self) {
        let mut rows = Vec::with_capacity(self.rows.len());
        walk(&self.value, &self.folded, &self.sizes, |ev| {
            rows.push(match ev {
                Ev::Scalar { .. } => None,
                Ev::Open { id, .. } | Ev::Folded { id, .. } | Ev::Close { id, .. } => Some(id),
            });
        });
        self.rows = rows;
    }
}

impl std::fmt::Debug for JsonView {
    /// Not derived: the derived form would recurse through the whole value.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonView")
            .field("containers", &self.sizes.len())
            .field("lines", &self.rows.len())
            .finish()
    }
}

impl Drop for JsonView {
    /// `Value`'s own drop recurses once per nesting level; take the tree apart iteratively so a
    /// hostile, deeply nested document cannot overflow the stack when the view goes away.
    fn drop(&mut self) {
        let mut stack = vec![std::mem::take(&mut self.value)];
        while let Some(v) = stack.pop() {
            match v {
                Value::Array(items) => stack.extend(items),
                Value::Object(map) => stack.extend(map.into_iter().map(|(_, v)| v)),
                _ => {}
            }
        }
    }
}

fn indent(depth: usize, styles: &RenderStyles, spans: &mut Vec<Span<'static>>) {
    if depth == 0 {
        return;
    }
    spans.push(Span::raw(INDENT.repeat(depth.min(MAX_INDENT_LEVELS))));
    if depth > MAX_INDENT_LEVELS {
        spans.push(Span::styled(format!("↳{depth} "), styles.fold_marker));
    }
}

fn scalar(value: &Value, styles: &RenderStyles) -> Span<'static> {
    match value {
        Value::String(s) => Span::styled(escape_string(s), styles.json_string),
        Value::Number(n) => Span::styled(n.to_string(), styles.json_number),
        Value::Bool(b) => Span::styled(b.to_string(), styles.json_bool_null),
        Value::Null => Span::styled("null", styles.json_bool_null),
        // Empty containers are shown as scalars: there is nothing to fold.
        Value::Array(_) => Span::styled("[]", styles.json_punct),
        Value::Object(_) => Span::styled("{}", styles.json_punct),
    }
}

/// JSON string literal, quotes included. Beyond what JSON requires, every control character (C0,
/// DEL, C1), bidi control and invisible formatting character is written as `\uXXXX`: values may
/// reach this view without passing `trust::sanitize`, and escaping keeps the output valid JSON
/// while making sure nothing invisible or terminal-active is printed. For the same reason a stack
/// of zero-width characters (combining marks) is kept to the sanitiser's [`MAX_COMBINING`]; the
/// rest of the stack is escaped, so a "Zalgo" string cannot smear over the neighbouring lines.
pub fn escape_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    let mut stack = 0usize;
    for c in s.chars() {
        stack = if c.width() == Some(0) { stack + 1 } else { 0 };
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if needs_escape(c) || stack > MAX_COMBINING => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether a character in a JSON string is shown as `\uXXXX`: controls, bidi controls, and everything a
/// terminal draws as nothing (also used by the CLI's `--json` output).
pub fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(c,
            '\u{ad}' | '\u{34f}' | '\u{61c}' | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}'
            | '\u{180b}'..='\u{180f}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}' | '\u{3164}' | '\u{fe00}'..='\u{fe0f}' | '\u{feff}'
            | '\u{ffa0}' | '\u{fff0}'..='\u{fffb}' | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}' | '\u{e0000}'..='\u{e0fff}')
}

/// One visible line of the walk.
enum Ev<'a> {
    Scalar {
        depth: usize,
        key: Option<&'a str>,
        value: &'a Value,
        comma: bool,
    },
    Open {
        depth: usize,
        key: Option<&'a str>,
        array: bool,
        id: usize,
    },
    Folded {
        depth: usize,
        key: Option<&'a str>,
        array: bool,
        id: usize,
        count: usize,
        comma: bool,
    },
    Close {
        depth: usize,
        array: bool,
        id: usize,
        comma: bool,
        /// The id the next container will get: everything in between is this one's subtree.
        end_id: usize,
    },
}

enum Iter<'a> {
    Obj(serde_json::map::Iter<'a>),
    Arr(std::slice::Iter<'a, Value>),
}

struct Frame<'a> {
    iter: Iter<'a>,
    id: usize,
    comma: bool,
}

/// Pre-order walk without recursion. `folded` and `sizes` may be empty (nothing folded).
fn walk<'a>(root: &'a Value, folded: &[bool], sizes: &[usize], mut emit: impl FnMut(Ev<'a>)) {
    let mut w = Walk {
        stack: Vec::new(),
        next_id: 0,
        folded,
        sizes,
    };
    w.enter(root, None, 0, false, &mut emit);
    loop {
        let depth = w.stack.len();
        let Some(top) = w.stack.last_mut() else { break };
        let next = match &mut top.iter {
            Iter::Obj(it) => it.next().map(|(k, v)| (Some(k.as_str()), v, it.len() > 0)),
            Iter::Arr(it) => it.next().map(|v| (None, v, it.len() > 0)),
        };
        match next {
            Some((key, value, comma)) => w.enter(value, key, depth, comma, &mut emit),
            None => {
                let array = matches!(top.iter, Iter::Arr(_));
                let (id, comma) = (top.id, top.comma);
                w.stack.pop();
                emit(Ev::Close {
                    depth: depth - 1,
                    array,
                    id,
                    comma,
                    end_id: w.next_id,
                });
            }
        }
    }
}

struct Walk<'a, 'f> {
    stack: Vec<Frame<'a>>,
    next_id: usize,
    folded: &'f [bool],
    sizes: &'f [usize],
}

impl<'a> Walk<'a, '_> {
    fn enter(
        &mut self,
        value: &'a Value,
        key: Option<&'a str>,
        depth: usize,
        comma: bool,
        emit: &mut impl FnMut(Ev<'a>),
    ) {
        let (iter, count, array) = match value {
            Value::Object(m) if !m.is_empty() => (Iter::Obj(m.iter()), m.len(), false),
            Value::Array(a) if !a.is_empty() => (Iter::Arr(a.iter()), a.len(), true),
            _ => {
                emit(Ev::Scalar {
                    depth,
                    key,
                    value,
                    comma,
                });
                return;
            }
        };
        let id = self.next_id;
        self.next_id += 1;
        if self.folded.get(id).copied().unwrap_or(false) {
            // Skip the ids of the hidden subtree so later containers keep their numbers.
            self.next_id += self.sizes.get(id).copied().unwrap_or(0);
            emit(Ev::Folded {
                depth,
                key,
                array,
                id,
                count,
                comma,
            });
        } else {
            emit(Ev::Open {
                depth,
                key,
                array,
                id,
            });
            self.stack.push(Frame { iter, id, comma });
        }
    }
}

#[cfg(test)]
mod tests;
