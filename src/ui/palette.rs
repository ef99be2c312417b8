//! The command palette: every action whose name or description matches what is typed, with its keys.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::overlay::{boxed, centered};
use crate::app::state::App;
use crate::config::keymap::palette_matches;

pub(super) fn draw(f: &mut Frame, app: &App, query: &str, selected: usize, area: Rect) {
    let t = &app.theme;
    let matches = palette_matches(query);
    // As wide as the longest description needs (a 160-column terminal shows them whole), at least 70.
    let longest = matches
        .iter()
        .map(|a| unicode_width::UnicodeWidthStr::width(a.description()))
        .max()
        .unwrap_or(0);
    let want = u16::try_from(1 + 22 + 14 + longest + 2).unwrap_or(u16::MAX);
    let r = centered(area, want.max(70), 16);
    let room = (r.width.saturating_sub(2) as usize).saturating_sub(1 + 22 + 14);
    let mut lines = vec![Line::from(vec![
        Span::styled("> ", t.accent),
        Span::styled(query.to_string(), t.text),
        Span::styled("▏", t.accent),
    ])];
    let visible = r.height.saturating_sub(4) as usize;
    let offset = selected.saturating_sub(visible.saturating_sub(1));
    for (i, a) in matches.iter().enumerate().skip(offset).take(visible) {
        let keys = app.keymap.keys_for(*a).join(", ");
        let style = if i == selected { t.selection } else { t.text };
        lines.push(Line::from(vec![
            Span::styled(format!(" {:<22}", a.name()), style),
            Span::styled(format!("{:<14}", keys), t.accent),
            Span::styled(super::wrap::fit_words(a.description(), room), t.dim),
        ]));
    }
    if matches.is_empty() {
        lines.push(Line::styled(" no action matches", t.dim));
    }
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).block(boxed(app, "Command palette · Enter runs · Esc closes")),
        r,
    );
}
