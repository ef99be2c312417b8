//! Cutting lines into rows of a given width, for every view that wraps (transcript, split view, card page,
//! skills, dialogs). A remote line — one in which the console drew its `▍` bar before the agent's text — keeps
//! that bar on every row it occupies, at the same column as on its first row. The bar is made part of the
//! wrapped rows here, in the one place that wraps, so no view can forget it: without it, an agent could pad a
//! line until its continuation row starts at column 0 and looks exactly like the console's own text (under
//! `NO_COLOR` nothing else tells them apart).

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The untrusted marker: the console draws it before every row of remote text.
pub const BAR: &str = "▍";

/// Which end of an over-long line to keep when it needs more rows than allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keep {
    Head,
    Tail,
}

/// Where to break a row that is full.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Break {
    /// At the column, whatever is there.
    Anywhere,
    /// After the last space of the row when there is one (prose: the transcript, the card, skills, dialogs).
    /// A token longer than the row (a URL, base64) has no space to break at and is cut at the column, so
    /// the cost stays one pass over the characters shown, even for a line megabytes long.
    Words,
}

/// The continuation prefix of a remote line: how many blank columns precede the bar, and the bar's style.
/// The first span that starts with [`BAR`] is the console's (it is drawn before any remote text on the line).
fn bar_of(line: &Line) -> Option<(usize, Style)> {
    let mut col = 0;
    for s in &line.spans {
        if s.content.starts_with(BAR) {
            return Some((col, line.style.patch(s.style)));
        }
        col += s.content.width();
    }
    None
}

/// `s` in at most `width` columns on one row: whole when it fits, else cut after its last whole word (or at the
/// column when the one word is longer than half the room) and ended with `…`, so a cut never reads as the end
/// of the text and never leaves half a word.
pub fn fit_words(s: &str, width: usize) -> String {
    if s.width() <= width {
        return s.to_string();
    }
    let Some(room) = width.checked_sub(1) else {
        return String::new();
    };
    let mut end = 0;
    let mut used = 0;
    let mut last_space = None;
    for (i, c) in s.char_indices() {
        let w = c.width().unwrap_or(0);
        if used + w > room {
            // The word before ends exactly at the room.
            if c == ' ' {
                last_space = Some((i, used));
            }
            break;
        }
        if c == ' ' {
            last_space = Some((i, used));
        }
        used += w;
        end = i + c.len_utf8();
    }
    let cut = match last_space {
        Some((i, at)) if at * 2 >= room => i,
        _ => end,
    };
    let kept = s.get(..cut).unwrap_or_default();
    format!("{}…", kept.trim_end_matches([' ', '·', ',', ';', ':']))
}

/// A one-row line in at most `width` columns, styles kept: spans that fit are whole, the span that does not is
/// cut with [`fit_words`], and nothing after it is drawn.
pub fn fit_line(line: Line<'static>, width: usize) -> Line<'static> {
    if line.width() <= width {
        return line;
    }
    let mut used = 0;
    let mut spans = Vec::new();
    for span in line.spans {
        let w = span.content.width();
        if used + w <= width {
            used += w;
            spans.push(span);
            continue;
        }
        let cut = fit_words(&span.content, width - used);
        spans.push(Span::styled(cut, span.style));
        break;
    }
    Line::from(spans).style(line.style)
}

/// Cut one line into rows of at most `width` columns, keeping styles; continuation rows of a remote line start
/// with its bar (see the module docs). At most `max_rows` rows are produced: a single 5 MB line must cost a
/// screenful of work per frame, not five megabytes. With `Keep::Tail` the rows come from the end of the line
/// (what "follow the end" shows).
pub fn wrap(
    line: Line<'static>,
    width: usize,
    max_rows: usize,
    keep: Keep,
    brk: Break,
) -> Vec<Line<'static>> {
    wrap_indented(line, width, max_rows, keep, brk, 0)
}

/// [`wrap_all`] for one line whose continuation rows start at column `indent` (after the bar of a remote
/// line): a labelled value (`▍ open   https://…`, `  o  sign in…`) wraps under its value, never back to the
/// column of its label. An indent that leaves less than half the width is not kept.
pub fn wrap_hanging(line: Line<'static>, width: usize, indent: usize) -> Vec<Line<'static>> {
    wrap_indented(line, width, usize::MAX, Keep::Head, Break::Words, indent)
}

fn wrap_indented(
    line: Line<'static>,
    width: usize,
    max_rows: usize,
    keep: Keep,
    brk: Break,
    indent: usize,
) -> Vec<Line<'static>> {
    let indent = if indent * 2 > width { 0 } else { indent };
    if width == 0 {
        return vec![line];
    }
    let bar = bar_of(&line);
    // No room for any text after the indent and the bar: fall back to a bar at column 0.
    let bar = bar.map(|(col, style)| (if col + 2 > width { 0 } else { col }, style));
    let budget = width.saturating_mul(max_rows.max(1));
    // The line's own style (e.g. "you · 10:24") lives outside its spans: fold it into each span so a wrapped
    // row keeps its colour.
    let line_style = line.style;
    let mut spans: Vec<Span<'static>> = line
        .spans
        .into_iter()
        .map(|s| Span::styled(s.content, line_style.patch(s.style)))
        .collect();
    if keep == Keep::Tail {
        // Drop characters from the front until at most `budget` remain (each takes at least one column).
        let total: usize = spans.iter().map(|s| s.content.chars().count()).sum();
        let mut drop = total.saturating_sub(budget);
        if drop > 0 {
            let mut kept = Vec::new();
            for s in spans {
                let n = s.content.chars().count();
                if drop >= n {
                    drop -= n;
                    continue;
                }
                let rest: String = s.content.chars().skip(drop).collect();
                drop = 0;
                kept.push(Span::styled(rest, s.style));
            }
            spans = kept;
            // The kept rows all continue the line: the first of them carries the bar too.
            if let Some((col, style)) = bar {
                let mut prefixed = vec![Span::raw(" ".repeat(col)), Span::styled(BAR, style)];
                prefixed.append(&mut spans);
                spans = prefixed;
            }
        }
    }
    let mut rows: Vec<Line<'static>> = Vec::new();
    let mut row = Row::default();
    if bar.is_some() {
        // A label before the bar is the console's: a row breaks inside the remote text, never in the label.
        let mut before = 0;
        for s in &spans {
            if s.content.starts_with(BAR) {
                row.start_index = before + 1;
                break;
            }
            before += s.content.chars().count();
        }
    }
    if indent > 0 {
        // The label a hanging line starts with (`▍ open   `) is never where its first row breaks: its spaces
        // are the label's, and the value after it wraps under itself.
        let mut col = 0;
        let mut label = 0;
        for c in spans.iter().flat_map(|s| s.content.chars()) {
            col += c.width().unwrap_or(0);
            if col > indent {
                break;
            }
            label += 1;
        }
        row.start_index = row.start_index.max(label);
    }
    'spans: for span in spans {
        let style = span.style;
        for c in span.content.chars() {
            let w = c.width().unwrap_or(0);
            if row.col + w > width && row.col > row.start {
                // A row that ends where a space falls needs no cut; the space itself is dropped below.
                let carry = if brk == Break::Words && c != ' ' {
                    row.split_at_last_space()
                } else {
                    Vec::new()
                };
                rows.push(std::mem::take(&mut row).into_line());
                if keep == Keep::Head && rows.len() >= max_rows {
                    break 'spans;
                }
                row = Row::continuation(bar, indent);
                for (c, s) in carry {
                    row.push(c, s);
                }
                // The space a row broke at is not carried to the start of the next one.
                if brk == Break::Words && c == ' ' {
                    continue;
                }
            }
            row.push(c, style);
        }
    }
    // A continuation row holding only its bar (the line ended with the space it broke at) is not a row.
    if row.chars.len() > row.start_index || rows.is_empty() {
        rows.push(row.into_line());
    }
    rows
}

/// Wrap every line of a page to `width` at word boundaries (no row limit): what `Paragraph::wrap` did for the
/// card, skills and dialogs, with the bar kept on every remote row.
pub fn wrap_all(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    lines
        .into_iter()
        .flat_map(|l| wrap(l, width, usize::MAX, Keep::Head, Break::Words))
        .collect()
}

/// A row being filled: characters with their styles; `start` is where its own text begins (after the
/// continuation prefix).
#[derive(Default)]
struct Row {
    chars: Vec<(char, Style)>,
    col: usize,
    start: usize,
    /// Index in `chars` where the row's own text begins.
    start_index: usize,
}

impl Row {
    fn continuation(bar: Option<(usize, Style)>, indent: usize) -> Row {
        let mut row = Row::default();
        if let Some((col, style)) = bar {
            for _ in 0..col {
                row.push(' ', Style::default());
            }
            row.push('▍', style);
        }
        while row.col < indent {
            row.push(' ', Style::default());
        }
        row.start = row.col;
        row.start_index = row.chars.len();
        row
    }

    fn push(&mut self, c: char, style: Style) {
        self.col += c.width().unwrap_or(0);
        self.chars.push((c, style));
    }

    /// Cut the row after its last space (the space itself is dropped) and return what follows it; nothing
    /// when the row's text has no space, or only a leading one (a long word is cut at the column instead).
    fn split_at_last_space(&mut self) -> Vec<(char, Style)> {
        let own = self.chars.get(self.start_index..).unwrap_or_default();
        match own.iter().rposition(|(c, _)| *c == ' ') {
            Some(i) if i > 0 => {
                let at = self.start_index + i;
                let carry = self.chars.split_off(at + 1);
                self.chars.truncate(at);
                self.col = self.chars.iter().map(|(c, _)| c.width().unwrap_or(0)).sum();
                carry
            }
            _ => Vec::new(),
        }
    }

    fn into_line(self) -> Line<'static> {
        let mut spans: Vec<Span<'static>> = Vec::new();
        let mut buf = String::new();
        let mut current: Option<Style> = None;
        for (c, style) in self.chars {
            if current.is_some_and(|s| s != style) {
                spans.push(Span::styled(
                    std::mem::take(&mut buf),
                    current.unwrap_or_default(),
                ));
            }
            current = Some(style);
            buf.push(c);
        }
        if !buf.is_empty() {
            spans.push(Span::styled(buf, current.unwrap_or_default()));
        }
        Line::from(spans)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(l: &Line) -> String {
        l.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    fn remote(s: &str) -> Line<'static> {
        Line::from(vec![Span::raw(BAR), Span::raw(s.to_string())])
    }

    #[test]
    fn a_labelled_value_wraps_under_its_value_with_its_bar_on_every_row() {
        let url = "https://auth.example.test/authorize?client_id=a2a-console&redirect_uri=http%3A%2F%2F127.0.0.1";
        let line = Line::from(vec![Span::raw("▍ open   "), Span::raw(url.to_string())]);
        let rows: Vec<String> = wrap_hanging(line, 40, 9).iter().map(text).collect();
        assert!(rows.len() > 2, "{rows:?}");
        assert!(rows[0].starts_with("▍ open   https://"), "{rows:?}");
        for r in &rows[1..] {
            assert!(
                r.starts_with("▍        ") && !r.starts_with("▍         "),
                "{rows:?}"
            );
        }
        let joined: String = rows
            .iter()
            .enumerate()
            .map(|(i, r)| {
                if i == 0 {
                    &r[r.find("https").unwrap()..]
                } else {
                    r.trim_start_matches('▍').trim_start()
                }
            })
            .collect();
        assert_eq!(joined, url, "nothing lost or added");
        // A console line (no bar) hangs under its text too.
        let choice = Line::from(vec![
            Span::raw("  o  "),
            Span::raw("sign in in a browser, then approve with that token"),
        ]);
        let rows: Vec<String> = wrap_hanging(choice, 24, 5).iter().map(text).collect();
        assert!(
            rows.len() > 1
                && rows[1..]
                    .iter()
                    .all(|r| r.starts_with("     ") && !r.starts_with("      ")),
            "{rows:?}"
        );
    }

    #[test]
    fn a_huge_line_costs_only_the_rows_shown() {
        let big = Line::from("x".repeat(5 * 1024 * 1024));
        let head = wrap(big.clone(), 80, 10, Keep::Head, Break::Anywhere);
        assert_eq!(head.len(), 10);
        let tail = wrap(big, 80, 10, Keep::Tail, Break::Anywhere);
        assert!(tail.len() <= 10 && !tail.is_empty());
    }

    #[test]
    fn wrapping_keeps_every_character_of_a_short_line() {
        let rows = wrap(
            Line::from("abcdefghij"),
            4,
            100,
            Keep::Head,
            Break::Anywhere,
        );
        let joined: String = rows.iter().map(text).collect();
        assert_eq!(joined, "abcdefghij");
        assert_eq!(rows.len(), 3);
    }

    #[test]
    fn every_row_of_a_remote_line_starts_with_the_bar() {
        let line = remote(&format!("{}console · note", " ".repeat(40)));
        for brk in [Break::Anywhere, Break::Words] {
            let rows = wrap(line.clone(), 12, 100, Keep::Head, brk);
            assert!(rows.len() > 3);
            for r in &rows {
                assert!(text(r).starts_with(BAR), "{brk:?}: {:?}", text(r));
            }
        }
        let tail = wrap(line, 12, 2, Keep::Tail, Break::Anywhere);
        assert!(tail.iter().all(|r| text(r).starts_with(BAR)), "{tail:?}");
    }

    #[test]
    fn a_bar_after_a_label_is_repeated_at_its_column() {
        let line = Line::from(vec![
            Span::raw("version   "),
            Span::raw(BAR),
            Span::raw("1.0 and a long tail"),
        ]);
        let rows = wrap(line, 20, 100, Keep::Head, Break::Words);
        assert_eq!(text(&rows[0]), "version   ▍1.0 and a");
        assert_eq!(text(&rows[1]), "          ▍long tail");
    }

    #[test]
    fn words_move_whole_to_the_next_row_but_a_long_token_is_cut_at_the_column() {
        let url = "https://example.com/".to_string() + &"a".repeat(30);
        let line = remote(&format!("see {url} now"));
        let rows: Vec<String> = wrap(line, 21, 100, Keep::Head, Break::Words)
            .iter()
            .map(text)
            .collect();
        // "see" stays alone rather than taking the URL's first letters; the URL (longer than a row) is cut
        // at the column; "now" is kept whole; every row keeps the bar.
        assert_eq!(rows[0], "▍see");
        assert_eq!(rows[1], "▍https://example.com/");
        assert_eq!(rows[2], "▍aaaaaaaaaaaaaaaaaaaa");
        assert_eq!(rows[3], "▍aaaaaaaaaa now");
        assert_eq!(rows.len(), 4);
        // Wide characters count as two columns: a row never overflows.
        let wide = wrap(
            Line::from("日本語 の テキスト を 折り返す"),
            8,
            100,
            Keep::Head,
            Break::Words,
        );
        assert!(wide.iter().all(|r| text(r).width() <= 8), "{wide:?}");
        assert_eq!(text(&wide[0]), "日本語");
    }

    #[test]
    fn the_tail_window_of_a_short_line_is_the_same_as_its_head() {
        let line = remote("the quick brown fox jumps over the lazy dog again and again");
        let head = wrap(line.clone(), 16, 100, Keep::Head, Break::Words);
        let tail = wrap(line, 16, 100, Keep::Tail, Break::Words);
        assert_eq!(head, tail);
        // A huge line of words: the tail window costs a screenful and ends with the line's end.
        let big = remote(&"word ".repeat(1_000_000));
        let tail = wrap(big, 40, 5, Keep::Tail, Break::Words);
        assert!(!tail.is_empty() && tail.len() <= 10, "{}", tail.len());
        assert!(tail.iter().all(|r| text(r).starts_with(BAR)));
        assert!(text(tail.last().unwrap()).trim_end().ends_with("word"));
    }

    #[test]
    fn console_lines_wrap_without_a_bar_and_words_stay_whole() {
        let rows = wrap(
            Line::from("one two three four"),
            9,
            100,
            Keep::Head,
            Break::Words,
        );
        let rows: Vec<String> = rows.iter().map(text).collect();
        assert_eq!(rows, ["one two", "three", "four"]);
    }
}

#[cfg(test)]
mod fit_tests {
    use super::*;

    /// Issue [10] item 14: a cut ends in `…` after a whole word, never mid-word, and stays within the width.
    #[test]
    fn a_cut_keeps_whole_words_and_says_it_was_cut() {
        assert_eq!(fit_words("short", 10), "short");
        assert_eq!(
            fit_words("Import the selected agent's tasks", 20),
            "Import the selected…"
        );
        assert_eq!(fit_words("Switch · the theme", 9), "Switch…");
        // One word longer than the room is cut at the column (still marked).
        assert_eq!(fit_words("supercalifragilistic", 8), "superca…");
        // Wide characters count double and are never split.
        assert_eq!(fit_words("日本語のテキスト", 7), "日本語…");
        assert_eq!(fit_words("anything", 0), "");
        for w in 0..40 {
            assert!(fit_words("Ask the agent to cancel this task now", w).width() <= w);
        }
        let line = Line::from(vec![Span::raw("task "), Span::raw("0123456789 abcdef")]);
        assert_eq!(fit_line(line, 16).to_string(), "task 0123456789…");
    }
}
