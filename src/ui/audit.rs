//! The audit log viewer: one row per entry, cut to the width, the selected one opened whole with Enter.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Clear, Paragraph};

use super::overlay::{boxed, keys_or, position};
use crate::app::msg::AuditRow;
use crate::app::scroll::viewer_area;
use crate::app::state::App;
use crate::config::keymap::actions::Action;

pub(super) fn draw(
    f: &mut Frame,
    app: &App,
    rows: &[AuditRow],
    scroll: usize,
    selected: Option<usize>,
    area: Rect,
) {
    let t = &app.theme;
    let r = viewer_area(area);
    let visible = r.height.saturating_sub(2) as usize;
    let width = r.width.saturating_sub(2) as usize;
    // `scroll` is the first row shown; never past the last page.
    let start = scroll.min(rows.len().saturating_sub(visible));
    // One screen row per entry, cut after a whole word with `…`: Enter opens it whole.
    let shown: Vec<Line> = if rows.is_empty() {
        vec![Line::styled("The audit log is empty.", t.dim)]
    } else {
        rows.iter()
            .enumerate()
            .skip(start)
            .take(visible)
            .map(|(i, l)| {
                let style = if selected == Some(i) {
                    t.selection
                } else {
                    t.text
                };
                Line::styled(super::wrap::fit_words(&l.line, width), style)
            })
            .collect()
    };
    let close = keys_or(app, Action::CloseViewer, "q");
    f.render_widget(Clear, area);
    f.render_widget(
        Paragraph::new(shown).block(boxed(
            app,
            &super::wrap::fit_words(
                &format!(
                    "Audit log · {} rows{} · , . select · Enter opens · {close} or Esc closes · also `a2a-console audit`",
                    rows.len(),
                    position(start, visible, rows.len()),
                ),
                r.width.saturating_sub(4) as usize,
            ),
        )),
        r,
    );
}
