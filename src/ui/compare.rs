//! Two tasks side by side: a summary column for each (states, timings, artifacts, flags), then what changed,
//! coloured by kind (changed, removed, added), scrolling as one page. Every row quotes what agents sent
//! (sanitised when it arrived), so every row carries the remote bar.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::overlay::{boxed, keys_or, position};
use crate::app::compare::ComparePage;
use crate::app::scroll::viewer_area;
use crate::app::state::App;
use crate::config::keymap::actions::Action;
use crate::suite::compare::Kind;

fn remote_row<'a>(app: &App, text: &str, width: usize, style: Style) -> Line<'a> {
    Line::from(vec![
        Span::styled(super::wrap::BAR, app.theme.remote_label),
        Span::styled(super::wrap::fit_words(text, width.saturating_sub(1)), style),
    ])
}

pub(super) fn draw(f: &mut Frame, app: &App, page: &ComparePage, scroll: usize, area: Rect) {
    let t = &app.theme;
    let r = viewer_area(area);
    let close = keys_or(app, Action::CloseViewer, "q");
    let inner_w = r.width.saturating_sub(2) as usize;
    let rows = page.left.len().max(page.right.len());
    let total = page.lines.len() + rows + 2;
    let visible = r.height.saturating_sub(2) as usize;
    let start = scroll.min(total.saturating_sub(visible));
    f.render_widget(Clear, area);
    let block = boxed(
        app,
        &super::wrap::fit_words(
            &format!(
                "{}{} · {close} or Esc closes",
                page.title,
                position(start, visible, total)
            ),
            r.width.saturating_sub(4) as usize,
        ),
    );
    let inner = block.inner(r);
    f.render_widget(block, r);
    // The two summaries side by side, above the changes; the page scrolls past them as one.
    let top_rows = rows.saturating_sub(start);
    let top_h = u16::try_from(top_rows)
        .unwrap_or(u16::MAX)
        .min(inner.height);
    let [top, rest] =
        Layout::vertical([Constraint::Length(top_h), Constraint::Min(0)]).areas(inner);
    let [left, right] =
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(top);
    for (col, lines) in [(left, &page.left), (right, &page.right)] {
        let w = col.width.saturating_sub(1) as usize;
        let shown: Vec<Line> = lines
            .iter()
            .skip(start)
            .enumerate()
            .map(|(i, l)| {
                let style = if i + start == 0 { t.title } else { t.text };
                remote_row(app, l, w, style)
            })
            .collect();
        f.render_widget(Paragraph::new(shown), col);
    }
    let mut below: Vec<Line> = Vec::new();
    let skip_below = start.saturating_sub(rows);
    let head = [
        Line::raw(""),
        Line::styled(
            super::wrap::fit_words(
                "▍ what changed, left → right (rows quote the agents, sanitised)",
                inner_w,
            ),
            t.dim,
        ),
    ];
    below.extend(head.into_iter().skip(skip_below));
    for l in page.lines.iter().skip(skip_below.saturating_sub(2)) {
        let style = match l.kind {
            Kind::Heading => t.title,
            Kind::Same => t.dim,
            Kind::Changed => t.warning,
            Kind::Removed => t.error,
            Kind::Added => t.ok,
        };
        let indent = "  ".repeat(usize::from(l.depth.saturating_sub(1)));
        below.push(remote_row(
            app,
            &format!("{indent}{}", l.text),
            inner_w,
            style,
        ));
    }
    f.render_widget(Paragraph::new(below), rest);
}
