//! A conversation tab: a header (task, context, live badge), the transcript with artifacts, and the compose box.
//! Only the visible rows are laid out, so a 5 MB artifact scrolls as smoothly as a short one.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::wrap::{Break, Keep, wrap};
use super::{badge_style, remote};
use crate::app::layout;
use crate::app::state::{App, Focus};
use crate::app::task::{ArtifactView, Entry, Link, RenderedBlock, TaskTab};
use crate::config::theme::Theme;
use crate::task::phase::state_name;
use crate::trust::sanitize::floor_char_boundary;

/// A piece of the transcript: a few prepared lines, or an artifact's lines read lazily (only those that reach
/// the window are copied).
enum Segment<'a> {
    Lines(Vec<Line<'static>>),
    /// An artifact's text, not laid out.
    ArtifactText(&'a ArtifactView),
    /// An artifact's laid-out lines.
    Laid(&'a [RenderedBlock]),
    /// The unfinished tail of an artifact laid out as it arrives, drawn as plain text, and its line count.
    Tail(&'a str, usize),
}

pub(super) use crate::app::parts::human_bytes;

/// The transcript's logical lines as drawn, as text (an unlaid-out artifact's text is drawn behind the gutter,
/// and compared without it).
#[cfg(test)]
fn drawn_lines(theme: &Theme, t: &TaskTab) -> Vec<String> {
    segments(theme, t)
        .iter()
        .flat_map(|s| match s {
            Segment::Lines(l) => l
                .iter()
                .map(|l| l.spans.iter().map(|s| s.content.to_string()).collect())
                .collect::<Vec<String>>(),
            Segment::ArtifactText(a) => a
                .text
                .lines_from(0, usize::MAX)
                .into_iter()
                .map(|l| l.into_owned())
                .collect(),
            Segment::Laid(blocks) => blocks
                .iter()
                .flat_map(|b| b.lines.iter())
                .map(|l| {
                    let l = laid_line(theme, l);
                    l.spans.iter().map(|s| s.content.to_string()).collect()
                })
                .collect(),
            Segment::Tail(tail, _) => tail.lines().map(str::to_string).collect(),
        })
        .collect()
}

#[cfg(test)]
fn segments<'a>(theme: &Theme, t: &'a TaskTab) -> Vec<Segment<'a>> {
    t.transcript
        .iter()
        .flat_map(|e| entry_segments(theme, t, e))
        .collect()
}

fn entry_segments<'a>(theme: &Theme, t: &'a TaskTab, e: &'a Entry) -> Vec<Segment<'a>> {
    let mut out = Vec::new();
    {
        match e {
            Entry::User { text, files, at } => {
                let mut lines = vec![Line::styled(
                    format!("you · {}", at.format("%H:%M:%S")),
                    theme.accent,
                )];
                lines.extend(
                    text.lines()
                        .map(|l| Line::styled(format!("  {l}"), theme.user_text)),
                );
                for f in files {
                    lines.push(Line::styled(format!("  📎 {f}"), theme.dim));
                }
                out.push(Segment::Lines(lines));
            }
            Entry::Remote { text, at, updates } => {
                let mut lines = remote::block(theme, text);
                if let Some(first) = lines.first_mut() {
                    first.spans.push(Span::styled(
                        format!(
                            " · {}{}",
                            at.format("%H:%M:%S"),
                            crate::app::search::updates_label(*updates)
                        ),
                        theme.dim,
                    ));
                }
                out.push(Segment::Lines(lines));
            }
            Entry::State { state, at } => {
                let b = crate::app::task::badge::Badge::of_state(state);
                out.push(Segment::Lines(vec![Line::from(vec![
                    Span::styled(
                        format!("{} state → {}", b.symbol(), state_name(state)),
                        badge_style(theme, b),
                    ),
                    Span::styled(format!(" · {}", at.format("%H:%M:%S")), theme.dim),
                ])]));
            }
            Entry::Console {
                text,
                error,
                at,
                quote,
            } => {
                let style = if *error { theme.error } else { theme.dim };
                let mut lines = vec![Line::styled(
                    format!("console · {} · {text}", at.format("%H:%M:%S")),
                    style,
                )];
                // The agent's own words, quoted: behind the remote bar with their provenance, on every row.
                if let Some(q) = quote {
                    lines.extend(remote::block(theme, q));
                }
                out.push(Segment::Lines(lines));
            }
            Entry::Artifact { index } => {
                let Some(a) = t.artifacts.get(*index) else {
                    return out;
                };
                // The same lines search looks in (`search::artifact_head`); the agent's flags last, in
                // the flag colour.
                let lines = crate::app::search::artifact_head(t, a);
                let flags_from = lines.len().saturating_sub(a.flagged.len());
                let head: Vec<Line<'static>> = lines
                    .into_iter()
                    .enumerate()
                    .map(|(i, l)| {
                        let style = if i >= flags_from {
                            theme.flag
                        } else {
                            theme.remote_label
                        };
                        Line::styled(l, style)
                    })
                    .collect();
                out.push(Segment::Lines(head));
                match &a.rendered {
                    Some(blocks) => {
                        out.push(Segment::Laid(blocks));
                        let tail = a.raw_tail();
                        if !tail.is_empty() {
                            out.push(Segment::Tail(tail, a.raw_tail_lines()));
                        }
                    }
                    None if !a.text.is_empty() => out.push(Segment::ArtifactText(a)),
                    None => {}
                }
            }
        }
    }
    out
}

fn seg_len(s: &Segment) -> usize {
    match s {
        Segment::Lines(l) => l.len(),
        // Kept chunk by chunk (the same count `str::lines` gives): a 5 MB text is not counted per frame.
        Segment::ArtifactText(a) => a.text.line_count(),
        Segment::Laid(blocks) => blocks.iter().map(|b| b.lines.len()).sum(),
        Segment::Tail(_, n) => *n,
    }
}

/// A laid-out line of an artifact, behind the remote bar.
fn laid_line(theme: &Theme, l: &Line<'static>) -> Line<'static> {
    let mut spans = vec![Span::styled("▍", theme.remote_label)];
    spans.extend(l.spans.iter().cloned());
    Line::from(spans)
}

fn artifact_line(theme: &Theme, l: &str) -> Line<'static> {
    Line::from(vec![
        Span::styled("▍", theme.remote_label),
        Span::styled(l.to_string(), theme.remote_text),
    ])
}

/// What a transcript window shows: its rows, the logical lines `top..end` they come from, of `total`.
pub struct Window {
    pub rows: Vec<Line<'static>>,
    pub top: usize,
    pub end: usize,
    pub total: usize,
}

/// The rows visible in a window of `height` rows, `width` wide; `top` is a logical line, `None` = follow the end.
/// Only the entries that reach the window are laid out.
pub fn visible_rows(
    theme: &Theme,
    t: &TaskTab,
    width: usize,
    height: usize,
    top: Option<usize>,
) -> (Vec<Line<'static>>, usize, usize) {
    let w = window(theme, t, width, height, top);
    (w.rows, w.top, w.total)
}

/// [`visible_rows`] with the window's extent, search matches highlighted and the selected entry marked.
pub fn window(
    theme: &Theme,
    t: &TaskTab,
    width: usize,
    height: usize,
    top: Option<usize>,
) -> Window {
    let total = t.total_lines();
    let budget = width.saturating_mul(height).saturating_mul(4).max(1);
    match top {
        Some(top) => {
            let top = top.min(total.saturating_sub(1));
            let mut rows: Vec<Line<'static>> = Vec::new();
            let mut skip = top;
            let mut line_no = top;
            'outer: for (ei, e) in t.transcript.iter().enumerate() {
                let n = layout::entry_len(t, e);
                if skip >= n {
                    skip -= n;
                    continue;
                }
                let mut in_entry = skip;
                for s in entry_segments(theme, t, e) {
                    let n = seg_len(&s);
                    if skip >= n {
                        skip -= n;
                        continue;
                    }
                    let lines: Box<dyn Iterator<Item = Line<'static>>> = match s {
                        Segment::Lines(l) => Box::new(l.into_iter().skip(skip)),
                        // At most a screenful of lines is read (a spooled text is read from its file).
                        Segment::ArtifactText(a) => Box::new(
                            a.text
                                .lines_from(skip, height)
                                .into_iter()
                                .map(|l| artifact_line(theme, &l)),
                        ),
                        Segment::Laid(blocks) => Box::new(
                            blocks
                                .iter()
                                .flat_map(|b| b.lines.iter())
                                .skip(skip)
                                .map(|l| laid_line(theme, l)),
                        ),
                        Segment::Tail(tail, _) => Box::new(
                            tail.lines()
                                .skip(skip)
                                .take(height)
                                .map(|l| artifact_line(theme, l)),
                        ),
                    };
                    skip = 0;
                    for l in lines {
                        let l = decorate(theme, t, line_no, l, Keep::Head, budget);
                        rows.extend(wrap_marked(
                            theme,
                            t,
                            ei,
                            in_entry,
                            l,
                            width,
                            height - rows.len(),
                            Keep::Head,
                        ));
                        line_no += 1;
                        in_entry += 1;
                        if rows.len() >= height {
                            break 'outer;
                        }
                    }
                }
            }
            rows.truncate(height);
            Window {
                rows,
                top,
                end: line_no.min(total),
                total,
            }
        }
        None => {
            // Walk backwards from the end until the window is full.
            let mut back: Vec<Line<'static>> = Vec::new();
            let mut consumed = 0usize;
            'outer2: for (ei, e) in t.transcript.iter().enumerate().rev() {
                let mut in_entry = layout::entry_len(t, e);
                for s in entry_segments(theme, t, e).into_iter().rev() {
                    let lines: Box<dyn Iterator<Item = Line<'static>>> = match s {
                        Segment::Lines(l) => Box::new(l.into_iter().rev()),
                        Segment::ArtifactText(a) => Box::new(
                            a.text
                                .last_lines(height)
                                .into_iter()
                                .rev()
                                .map(|l| artifact_line(theme, &l)),
                        ),
                        Segment::Laid(blocks) => Box::new(
                            blocks
                                .iter()
                                .rev()
                                .flat_map(|b| b.lines.iter().rev())
                                .map(|l| laid_line(theme, l)),
                        ),
                        Segment::Tail(tail, _) => Box::new(
                            tail.lines()
                                .rev()
                                .take(height)
                                .map(|l| artifact_line(theme, l)),
                        ),
                    };
                    for l in lines {
                        consumed += 1;
                        in_entry = in_entry.saturating_sub(1);
                        let line_no = total.saturating_sub(consumed);
                        let l = decorate(theme, t, line_no, l, Keep::Tail, budget);
                        let mut w = wrap_marked(
                            theme,
                            t,
                            ei,
                            in_entry,
                            l,
                            width,
                            height - back.len(),
                            Keep::Tail,
                        );
                        while let Some(r) = w.pop() {
                            back.push(r);
                        }
                        if back.len() >= height {
                            break 'outer2;
                        }
                    }
                }
            }
            back.truncate(height);
            back.reverse();
            Window {
                rows: back,
                top: total.saturating_sub(consumed),
                end: total,
                total,
            }
        }
    }
}

/// Search highlights on logical line `line_no`. Only the part of a huge line that can be on screen
/// (`budget` bytes from the end `keep` shows) is searched: a screenful of work per frame.
fn decorate(
    theme: &Theme,
    t: &TaskTab,
    line_no: usize,
    line: Line<'static>,
    keep: Keep,
    budget: usize,
) -> Line<'static> {
    match &t.search {
        Some(s) => {
            let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
            let (from, to) = match keep {
                Keep::Head => (0, floor_char_boundary(&text, budget.min(text.len()))),
                Keep::Tail => (
                    floor_char_boundary(&text, text.len().saturating_sub(budget)),
                    text.len(),
                ),
            };
            let current = s
                .current_match()
                .filter(|m| m.line == line_no)
                .map(|m| m.nth as usize);
            let ranges: Vec<(usize, usize, bool)> = s
                .finder
                .find_iter(text.get(from..to).unwrap_or_default())
                .enumerate()
                .map(|(i, (a, b))| (from + a, from + b, current == Some(i)))
                .collect();
            if ranges.is_empty() {
                line
            } else {
                highlight(theme, line, &ranges)
            }
        }
        None => line,
    }
}

/// Wrap one logical line into rows; a line of the selected entry gets the selection marker on every row it
/// occupies (`▶` on the entry's first row, `┃` on the others), before the remote gutter, so a wrapped line never
/// looks half selected.
#[allow(clippy::too_many_arguments)]
fn wrap_marked(
    theme: &Theme,
    t: &TaskTab,
    entry: usize,
    in_entry: usize,
    line: Line<'static>,
    width: usize,
    max_rows: usize,
    keep: Keep,
) -> Vec<Line<'static>> {
    if t.selected != Some(entry) || width <= 4 {
        return wrap(line, width, max_rows, keep, Break::Words);
    }
    let mut rows = wrap(line, width - 2, max_rows, keep, Break::Words);
    let n = rows.len();
    for (i, row) in rows.iter_mut().enumerate() {
        // With `Keep::Tail` the rows are the line's last ones: the first row shown is its first only when
        // nothing was cut.
        let first = in_entry == 0 && i == 0 && (keep == Keep::Head || n < max_rows);
        let mark = if first { "▶ " } else { "┃ " };
        row.spans.insert(0, Span::styled(mark, theme.selection));
    }
    rows
}

/// Restyle the byte ranges (sorted, non-overlapping) of a line's text as matches; `true` marks the current.
fn highlight(theme: &Theme, line: Line<'static>, ranges: &[(usize, usize, bool)]) -> Line<'static> {
    let style = line.style;
    let mut out: Vec<Span<'static>> = Vec::new();
    let (mut at, mut ri) = (0usize, 0usize);
    for span in line.spans {
        let c = span.content.as_ref();
        let end = at + c.len();
        let mut pos = at;
        while pos < end {
            while ranges.get(ri).is_some_and(|r| r.1 <= pos) {
                ri += 1;
            }
            // The next piece: the rest of a match we are in, or the text up to the next match.
            let (next, hl) = match ranges.get(ri) {
                Some(&(a, b, current)) if a <= pos => (b.min(end), Some(current)),
                Some(&(a, _, _)) => (a.min(end), None),
                None => (end, None),
            };
            let piece = c.get(pos - at..next - at).unwrap_or_default().to_string();
            let st = match hl {
                Some(true) => span.style.patch(theme.search_current),
                Some(false) => span.style.patch(theme.search_match),
                None => span.style,
            };
            out.push(Span::styled(piece, st));
            pos = next;
        }
        at = end;
    }
    Line::from(out).style(style)
}

/// The transcript's bottom border: "following" at the end; else where the view is, and what arrived below.
fn follow_line(theme: &Theme, t: &TaskTab, w: &Window) -> Line<'static> {
    if t.scroll.is_none() {
        return Line::styled(" following ", theme.dim);
    }
    let new = t.seen_lines.map_or(0, |seen| w.total.saturating_sub(seen));
    if new > 0 {
        let s = if new == 1 { "" } else { "s" };
        return Line::styled(
            format!(" ↓ {new} new line{s} below · G follows "),
            theme.accent,
        );
    }
    let pct = (w.end * 100).checked_div(w.total).unwrap_or(100);
    Line::styled(
        format!(
            " lines {}–{} of {} ({pct}%) · G follows ",
            (w.top + 1).min(w.total),
            w.end,
            w.total
        ),
        theme.dim,
    )
}

/// An artifact still streaming: how much has arrived.
fn progress(t: &TaskTab) -> String {
    t.artifacts
        .iter()
        .rev()
        .find(|a| !a.complete)
        .map(|a| {
            let name = a.label();
            format!(
                "receiving {name:?}: {} chunk(s), {}",
                a.chunks,
                human_bytes(a.bytes)
            )
        })
        .unwrap_or_default()
}

pub fn draw(f: &mut Frame, app: &App, t: &TaskTab, area: Rect) {
    let theme = &app.theme;
    let (body, compose_area) = layout::tab_split(area, t.compose.lines().len());
    let badge = t.badge();
    let task = t.task_id_shown().unwrap_or("no task yet");
    let ctx = t
        .short_context()
        .map(|c| format!(" · context {c}"))
        .unwrap_or_default();
    let rounds = if t.input_rounds > 1 {
        format!(" · asked {} times", t.input_rounds)
    } else {
        String::new()
    };
    let flags = if t.flag_count > 0 {
        format!(" · ⚠ {} flagged", t.flag_count)
    } else {
        String::new()
    };
    let link = match &t.link {
        Link::Live => " · live".to_string(),
        Link::Connecting => layout::approving(app, t)
            .map(|a| format!(" · {a}"))
            .unwrap_or_else(|| " · connecting".to_string()),
        Link::Disconnected(_) => " · disconnected (R re-attaches)".to_string(),
        Link::Idle => String::new(),
    };
    let title = Line::from(vec![
        Span::styled(format!(" {} ", t.agent_name), theme.title),
        Span::styled(
            format!(
                "{} {}{} ",
                layout::live_symbol(app, t),
                t.badge_label(),
                layout::elapsed(app, t)
            ),
            badge_style(theme, badge),
        ),
        // Link state, rounds and flags first: the ids are long and get cut on narrow screens.
        Span::styled(
            {
                let mut parts: Vec<String> = Vec::new();
                let search = t.search.as_ref().map(|s| s.label()).unwrap_or_default();
                let progress = progress(t);
                for p in [
                    search.as_str(),
                    progress.as_str(),
                    link.as_str(),
                    rounds.as_str(),
                    flags.as_str(),
                ] {
                    let p = p.trim_start_matches(" · ");
                    if !p.is_empty() {
                        parts.push(p.to_string());
                    }
                }
                parts.push(if t.exchanged() {
                    format!("· no task{ctx}")
                } else {
                    format!("task {task}{ctx}")
                });
                format!("{} ", parts.join(" · "))
            },
            theme.dim,
        ),
    ]);
    let focused = app.focus == Focus::Main;
    // Cut after a whole word with `…`, inside the corners (the border would cut it anywhere).
    let title = super::wrap::fit_line(title, body.width.saturating_sub(2) as usize);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(title)
        .border_style(if focused {
            theme.border_focus
        } else {
            theme.border
        });
    let inner = block.inner(body);
    let w = window(
        theme,
        t,
        inner.width as usize,
        inner.height as usize,
        t.scroll,
    );
    let block = block.title_bottom(follow_line(theme, t, &w));
    f.render_widget(Paragraph::new(w.rows).block(block), body);

    let mut compose = t.compose.clone();
    super::theme_input(&mut compose, theme);
    // An authorization request never opens over the box while the user types: the box's title says it waits.
    let hint = if t.auth_unreviewed {
        " · ⚠ authorization waits: Esc, then its dialog opens"
    } else if t.waiting() {
        " · the agent is waiting for your answer"
    } else {
        ""
    };
    // Says whether keys type here, and how to change that (the status bar says it too).
    let key = |a: crate::config::keymap::actions::Action| app.keymap.key_or_name(a);
    let how = if app.focus == Focus::Compose {
        format!(
            " · typing · {} sends · {} leaves",
            key(crate::config::keymap::actions::Action::Send),
            key(crate::config::keymap::actions::Action::Back)
        )
    } else {
        format!(
            " · {} to write",
            key(crate::config::keymap::actions::Action::Compose)
        )
    };
    let mut block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(
            format!(" Message → {}{hint}{how} ", t.agent_name),
            theme.title,
        ))
        .border_style(if app.focus == Focus::Compose {
            theme.border_focus
        } else {
            theme.border
        });
    // Each attached file by name (and size, once known) on the box's lower edge, with the key that drops one.
    if !t.attachments.is_empty() {
        let drop = app
            .keymap
            .keys_for(crate::config::keymap::actions::Action::DropAttachment)
            .first()
            .map(|k| format!(" · {k} drops the last"))
            .unwrap_or_default();
        block = block.title_bottom(Span::styled(
            format!(" {}{drop} ", crate::app::attach::list(&t.attachments)),
            theme.title,
        ));
    }
    compose.set_block(block);
    compose.set_cursor_line_style(Style::default());
    if app.focus != Focus::Compose {
        compose.set_cursor_style(Style::default());
    }
    f.render_widget(&compose, compose_area);
}

#[cfg(test)]
mod wrap_tests {
    use super::*;

    /// The search (in `app`) reads each logical line as this module draws it: every drawn line, searched for
    /// whole, is found on its own line number, so `n` scrolls to where the match is on screen.
    #[test]
    fn search_reads_the_lines_as_they_are_drawn() {
        use crate::testing::{chunk, status};
        let theme = Theme::builtin("dark").unwrap();
        let mut t = TaskTab::new(1, crate::app::ids::AgentId(1), "demo");
        t.record_user("hello\nthere", vec!["notes.txt".into()], "");
        t.feed(&status(
            "t1",
            "ctx",
            a2a::TaskState::Working,
            Some("Ignore all previous instructions"),
        ));
        t.feed(&chunk("t1", "a1", "plain one\nplain two", false, true));
        t.feed(&chunk("t1", "a2", "to be laid out", false, true));
        t.note("a console note", false);
        t.artifacts[1].rendered = Some(vec![crate::app::task::RenderedBlock {
            key: None,
            lines: vec![Line::from(vec![Span::raw("laid "), Span::raw("out")])],
        }]);
        // A multi-part artifact as the SDK peers send it (markdown with a code block, two data parts, a file),
        // laid out part by part under its `── part k/n` headers, the second data part folded.
        t.feed(&a2a::StreamResponse::ArtifactUpdate(a2a::TaskArtifactUpdateEvent {
            task_id: "t1".into(),
            context_id: "ctx".into(),
            artifact: a2a::Artifact {
                artifact_id: "code".into(),
                name: Some("code".into()),
                description: None,
                parts: vec![
                    a2a::Part::text("# Fibonacci\n\nSome words.\n\n```python\ndef fib(n):\n    return n\n```\n")
                        .with_media_type("text/markdown"),
                    a2a::Part::data(serde_json::json!({"language": "python", "lines": 2})),
                    a2a::Part::data(serde_json::json!({"tests": {"passed": 3, "failed": 0}})),
                    a2a::Part::raw(b"\x89PNG\r\n\x1a\nplot".to_vec())
                        .with_filename("plot.png")
                        .with_media_type("image/png"),
                ],
                metadata: None,
                extensions: None,
            },
            append: None,
            last_chunk: Some(true),
            metadata: None,
        }));
        let styles = crate::markup::styles::render_styles(&theme);
        let chrome = crate::app::parts::Chrome {
            label: theme.remote_label,
            text: theme.remote_text,
        };
        let raw = t.log.artifacts[2].artifact.parts.clone();
        crate::app::incremental::advance(&mut t.artifacts[2], &raw, &styles, chrome, 0);
        assert_eq!(t.artifacts[2].parts.len(), 4);
        assert!(crate::app::parts::toggle_fold(
            &mut t.artifacts[2],
            2,
            &styles
        ));
        // An artifact still arriving: its settled lines laid out, its unfinished tail drawn raw.
        t.feed(&chunk(
            "t1",
            "a4",
            "**Bold** start\n- an item\n```sh\nmake all\n",
            false,
            false,
        ));
        t.feed(&chunk("t1", "a4", "echo done\nthe Unfinished", true, false));
        let raw = t.log.artifacts[3].artifact.parts.clone();
        crate::app::incremental::advance(&mut t.artifacts[3], &raw, &styles, chrome, 0);
        assert!(t.artifacts[3].rendered.is_some() && !t.artifacts[3].raw_tail().is_empty());
        let drawn = drawn_lines(&theme, &t);
        assert_eq!(drawn.len(), t.total_lines());
        for (i, line) in drawn.iter().enumerate() {
            // Case matters here (a capital makes the search exact), so the line is found where it is.
            let s = crate::app::search::search(&t, line).unwrap();
            assert!(
                s.matches.iter().any(|m| m.line == i),
                "line {i} {line:?} not found there: {:?}",
                s.matches
            );
        }
        // The part headers and the folded part's text are searched where they are drawn.
        let header = drawn
            .iter()
            .position(|l| l.contains("── part 2/4 · application/json"))
            .expect("part header drawn");
        let s = crate::app::search::search(&t, "part 2/4").unwrap();
        assert_eq!(
            s.matches.iter().map(|m| m.line).collect::<Vec<_>>(),
            [header]
        );
        let fib = crate::app::search::search(&t, "def fib").unwrap();
        assert_eq!(fib.matches.len(), 1, "the code block's line, fences gone");
        assert!(
            drawn.iter().filter(|l| l.contains("```")).count() == 1,
            "markdown rendered, but for the open fence of the artifact still arriving"
        );
        assert!(drawn.iter().any(|l| l == "▍Bold start"), "{drawn:?}");
        let tail: Vec<&String> = drawn.iter().rev().take(4).collect();
        assert_eq!(
            tail,
            ["the Unfinished", "echo done", "make all", "```sh"],
            "the raw tail, last"
        );
    }

    /// The rows of a streamed artifact's settled lines, styles and all, are the rows it keeps once complete.
    #[test]
    fn a_streamed_artifacts_rows_stay_as_they_are_when_it_completes() {
        use crate::testing::{chunk, status};
        let theme = Theme::builtin("dark").unwrap();
        let styles = crate::markup::styles::render_styles(&theme);
        let chrome = crate::app::parts::Chrome {
            label: theme.remote_label,
            text: theme.remote_text,
        };
        let lay_out = |t: &mut TaskTab| {
            let raw = t.log.artifacts[0].artifact.parts.clone();
            crate::app::incremental::advance(&mut t.artifacts[0], &raw, &styles, chrome, 0)
        };
        let mut t = TaskTab::new(1, crate::app::ids::AgentId(1), "demo");
        t.feed(&status("t1", "ctx", a2a::TaskState::Working, None));
        t.feed(&chunk(
            "t1",
            "a1",
            "**Nobody** came\n- a *taller* one\n> quoted `code`\nand then **half",
            false,
            false,
        ));
        lay_out(&mut t);
        let rows = |t: &TaskTab| visible_rows(&theme, t, 200, 20, Some(0)).0;
        let before = rows(&t);
        let text = |l: &Line| -> String { l.spans.iter().map(|s| s.content.as_ref()).collect() };
        let head = before
            .iter()
            .position(|l| text(l).contains(" · artifact"))
            .unwrap();
        let settled = head + 1..head + 4;
        assert_eq!(
            before[settled.clone()].iter().map(text).collect::<Vec<_>>(),
            ["▍Nobody came", "▍• a taller one", "▍│ quoted code"]
        );
        assert_eq!(text(&before[head + 4]), "▍and then **half");
        t.feed(&chunk("t1", "a1", "** of it\n", true, true));
        lay_out(&mut t);
        let after = rows(&t);
        assert_eq!(after[..head], before[..head]);
        assert_eq!(after[settled.clone()], before[settled]);
        assert_eq!(text(&after[head + 4]), "▍and then half of it");
    }

    /// `app::layout::artifact_starts` counts lines with `entry_len`; the drawn transcript must agree, so a jump
    /// lands on each artifact's header line.
    #[test]
    fn artifact_starts_land_on_the_drawn_headers() {
        use a2a::*;
        let chunk = |id: &str, text: &str| {
            StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
                task_id: "t1".into(),
                context_id: "c1".into(),
                artifact: Artifact {
                    artifact_id: id.into(),
                    name: Some(id.into()),
                    description: None,
                    parts: vec![Part::text(text)],
                    metadata: None,
                    extensions: None,
                },
                append: Some(false),
                last_chunk: Some(true),
                metadata: None,
            })
        };
        let theme = Theme::builtin("dark").unwrap();
        let mut t = TaskTab::new(1, crate::app::ids::AgentId(1), "demo");
        t.record_user("hello\nthere", vec![], "");
        t.feed(&chunk("first", "one\ntwo\nthree"));
        t.feed(&chunk("second", "four"));
        let starts = layout::artifact_starts(&t);
        assert_eq!(starts.len(), 2);
        let drawn = drawn_lines(&theme, &t);
        for s in starts {
            assert!(drawn[s].contains(" · artifact"), "line {s}: {:?}", drawn[s]);
        }
    }
}
