//! A check report as a page: the summary in the frame's title, what changed since the last check on top, then
//! one row per finding under its area's heading, coloured by verdict; the selected one's evidence opens with
//! Enter. Reasons quote what agents sent (sanitised when the finding was made): the page says so.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::overlay::{boxed, keys_or, position};
use crate::app::msg::CheckPage;
use crate::app::scroll::viewer_area;
use crate::app::state::App;
use crate::config::keymap::actions::Action;

pub(super) fn draw(
    f: &mut Frame,
    app: &App,
    page: &CheckPage,
    scroll: usize,
    selected: Option<usize>,
    area: Rect,
) {
    let t = &app.theme;
    let r = viewer_area(area);
    let width = r.width.saturating_sub(2) as usize;
    let mut top: Vec<Line> = Vec::new();
    if let Some(c) = &page.changes {
        let style = match page.kind {
            _ if !page.changes_alarm => t.dim,
            crate::app::msg::PageKind::Check => t.error,
            crate::app::msg::PageKind::Suite => t.warning,
        };
        top.push(Line::styled(
            super::wrap::fit_words(&format!("{}{c}", page.kind.changes_lead()), width),
            style,
        ));
    }
    top.push(Line::styled(
        super::wrap::fit_words(page.kind.note(), width),
        t.dim,
    ));
    let visible = (r.height.saturating_sub(2) as usize).saturating_sub(top.len());
    let rows = &page.rows;
    let start = scroll.min(rows.len().saturating_sub(visible));
    let mut shown = top;
    shown.extend(
        rows.iter()
            .enumerate()
            .skip(start)
            .take(visible)
            .map(|(i, row)| {
                let style = if selected == Some(i) {
                    t.selection
                } else {
                    match row.verdict {
                        None => t.title,
                        Some("PASS") => t.ok,
                        Some("FAIL") => t.error,
                        Some("WARN") => t.warning,
                        Some(_) => t.dim,
                    }
                };
                match row.verdict {
                    // A finding's reason quotes what the agent answered: the remote bar marks the row.
                    Some(_) => Line::from(vec![
                        Span::styled(super::wrap::BAR, t.remote_label),
                        Span::styled(
                            super::wrap::fit_words(&row.line, width.saturating_sub(1)),
                            style,
                        ),
                    ]),
                    None => Line::styled(super::wrap::fit_words(&row.line, width), style),
                }
            }),
    );
    let close = keys_or(app, Action::CloseViewer, "q");
    f.render_widget(Clear, area);
    f.render_widget(
        Paragraph::new(shown).block(boxed(
            app,
            &super::wrap::fit_words(
                &format!(
                    "{}{} · , . select · Enter {} · {close} or Esc closes",
                    page.title,
                    position(start, visible, rows.len()),
                    page.kind.detail().to_lowercase(),
                ),
                r.width.saturating_sub(4) as usize,
            ),
        )),
        r,
    );
}
