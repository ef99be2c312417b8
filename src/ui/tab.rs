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
use crate::app::task::{ArtifactView, Entry, Link, TaskTab};
use crate::config::theme::Theme;
use crate::remote::tracker::state_name;

/// A piece of the transcript: a few prepared lines, or an artifact's text read lazily.
enum Segment<'a> {
    Lines(Vec<Line<'static>>),
    ArtifactText(&'a ArtifactView),
}

pub(super) use crate::app::parts::human_bytes;

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
            Entry::Remote { text, at } => {
                let mut lines = remote::block(theme, text);
                if let Some(first) = lines.first_mut() {
                    first.spans.push(Span::styled(
                        format!(" · {}", at.format("%H:%M:%S")),
                        theme.dim,
                    ));
                }
                out.push(Segment::Lines(lines));
            }
            Entry::State { state, at } => {
                let b = crate::app::task::Badge::of_state(state);
                out.push(Segment::Lines(vec![Line::from(vec![
                    Span::styled(
                        format!("{} state → {}", b.symbol(), state_name(state)),
                        badge_style(theme, b),
                    ),
                    Span::styled(format!(" · {}", at.format("%H:%M:%S")), theme.dim),
                ])]));
            }
            Entry::Console { text, error, at } => {
                let style = if *error { theme.error } else { theme.dim };
                out.push(Segment::Lines(vec![Line::styled(
                    format!("console · {} · {text}", at.format("%H:%M:%S")),
                    style,
                )]));
            }
            Entry::Artifact { index } => {
                let Some(a) = t.artifacts.get(*index) else {
                    return out;
                };
                let name = if a.name.is_empty() {
                    String::new()
                } else {
                    format!(" {:?}", a.name)
                };
                let progress = if a.complete {
                    "complete".to_string()
                } else {
                    "streaming…".to_string()
                };
                let task = t
                    .short_task()
                    .map(|s| format!(" · task {s}"))
                    .unwrap_or_default();
                let mut head = vec![Line::styled(
                    format!(
                        "▍remote · {}{task} · artifact{name} ({}) · {} chunk(s) · {} · {progress}",
                        t.agent_name,
                        a.id,
                        a.chunks,
                        human_bytes(a.bytes)
                    ),
                    theme.remote_label,
                )];
                // Among several parts laid out, each file is described under its own part header.
                for f in a.files.iter().filter(|_| a.files_in_head()) {
                    let what = format!("▍{}", crate::app::parts::PartView::file_line(f));
                    head.push(Line::styled(what, theme.remote_label));
                }
                for r in &a.flagged {
                    head.push(Line::styled(format!("▍⚠ {r}"), theme.flag));
                }
                out.push(Segment::Lines(head));
                match &a.rendered {
                    Some(blocks) => {
                        let lines = blocks
                            .iter()
                            .flat_map(|b| b.lines.iter())
                            .map(|l| {
                                let mut spans = vec![Span::styled("▍", theme.remote_label)];
                                spans.extend(l.spans.iter().cloned());
                                Line::from(spans)
                            })
                            .collect();
                        out.push(Segment::Lines(lines));
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
        Segment::ArtifactText(a) => a.text.lines().count(),
    }
}

fn artifact_line(theme: &Theme, l: &str) -> Line<'static> {
    Line::from(vec![
        Span::styled("▍", theme.remote_label),
        Span::styled(l.to_string(), theme.remote_text),
    ])
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
    let total = t.total_lines();
    match top {
        Some(top) => {
            let top = top.min(total.saturating_sub(1));
            let mut rows: Vec<Line<'static>> = Vec::new();
            let mut skip = top;
            'outer: for e in &t.transcript {
                let n = layout::entry_len(t, e);
                if skip >= n {
                    skip -= n;
                    continue;
                }
                for s in entry_segments(theme, t, e) {
                    let n = seg_len(&s);
                    if skip >= n {
                        skip -= n;
                        continue;
                    }
                    let lines: Box<dyn Iterator<Item = Line<'static>>> = match s {
                        Segment::Lines(l) => Box::new(l.into_iter().skip(skip)),
                        Segment::ArtifactText(a) => {
                            Box::new(a.text.lines().skip(skip).map(|l| artifact_line(theme, l)))
                        }
                    };
                    skip = 0;
                    for l in lines {
                        rows.extend(wrap(
                            l,
                            width,
                            height - rows.len(),
                            Keep::Head,
                            Break::Anywhere,
                        ));
                        if rows.len() >= height {
                            break 'outer;
                        }
                    }
                }
            }
            rows.truncate(height);
            (rows, top, total)
        }
        None => {
            // Walk backwards from the end until the window is full.
            let mut back: Vec<Line<'static>> = Vec::new();
            let mut consumed = 0usize;
            'outer2: for e in t.transcript.iter().rev() {
                for s in entry_segments(theme, t, e).into_iter().rev() {
                    let lines: Box<dyn Iterator<Item = Line<'static>>> = match s {
                        Segment::Lines(l) => Box::new(l.into_iter().rev()),
                        Segment::ArtifactText(a) => {
                            Box::new(a.text.lines().rev().map(|l| artifact_line(theme, l)))
                        }
                    };
                    for l in lines {
                        consumed += 1;
                        let mut w =
                            wrap(l, width, height - back.len(), Keep::Tail, Break::Anywhere);
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
            (back, total.saturating_sub(consumed), total)
        }
    }
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
        Link::Connecting => " · connecting".to_string(),
        Link::Disconnected(_) => " · disconnected (R re-attaches)".to_string(),
        Link::Idle => String::new(),
    };
    let title = Line::from(vec![
        Span::styled(format!(" {} ", t.agent_name), theme.title),
        Span::styled(
            format!("{} {} ", badge.symbol(), t.badge_label()),
            badge_style(theme, badge),
        ),
        // Link state, rounds and flags first: the ids are long and get cut on narrow screens.
        Span::styled(
            {
                let mut parts: Vec<String> = Vec::new();
                for p in [link.as_str(), rounds.as_str(), flags.as_str()] {
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
    let block = Block::default()
        .borders(Borders::ALL)
        .title(title)
        .border_style(if focused {
            theme.border_focus
        } else {
            theme.border
        });
    let inner = block.inner(body);
    let (rows, _top, _total) = visible_rows(
        theme,
        t,
        inner.width as usize,
        inner.height as usize,
        t.scroll,
    );
    f.render_widget(Paragraph::new(rows).block(block), body);

    let mut compose = t.compose.clone();
    let attach = if t.attachments.is_empty() {
        String::new()
    } else {
        format!(" · 📎 {} file(s)", t.attachments.len())
    };
    let hint = if t.waiting() {
        " · the agent is waiting for your answer"
    } else {
        ""
    };
    // Says whether keys type here, and how to change that (the status bar says it too).
    let key = |a: crate::config::keymap::Action| {
        app.keymap
            .keys_for(a)
            .first()
            .cloned()
            .unwrap_or_else(|| a.name().to_string())
    };
    let how = if app.focus == Focus::Compose {
        format!(
            " · typing · {} sends · {} leaves",
            key(crate::config::keymap::Action::Send),
            key(crate::config::keymap::Action::Back)
        )
    } else {
        format!(
            " · {} to write",
            key(crate::config::keymap::Action::Compose)
        )
    };
    compose.set_block(
        Block::default()
            .borders(Borders::ALL)
            .title(Span::styled(
                format!(" Message → {}{hint}{attach}{how} ", t.agent_name),
                theme.title,
            ))
            .border_style(if app.focus == Focus::Compose {
                theme.border_focus
            } else {
                theme.border
            }),
    );
    compose.set_cursor_line_style(Style::default());
    if app.focus != Focus::Compose {
        compose.set_cursor_style(Style::default());
    }
    f.render_widget(&compose, compose_area);
}

#[cfg(test)]
mod wrap_tests {
    use super::*;

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
        let mut t = TaskTab::new(1, crate::app::state::AgentId(1), "demo");
        t.record_user("hello\nthere", vec![], "");
        t.feed(&chunk("first", "one\ntwo\nthree"));
        t.feed(&chunk("second", "four"));
        let starts = layout::artifact_starts(&t);
        assert_eq!(starts.len(), 2);
        let drawn: Vec<String> = segments(&theme, &t)
            .iter()
            .flat_map(|s| match s {
                Segment::Lines(l) => l
                    .iter()
                    .map(|l| l.spans.iter().map(|s| s.content.to_string()).collect())
                    .collect::<Vec<String>>(),
                Segment::ArtifactText(a) => a.text.lines().map(str::to_string).collect(),
            })
            .collect();
        for s in starts {
            assert!(drawn[s].contains(" · artifact"), "line {s}: {:?}", drawn[s]);
        }
    }
}
