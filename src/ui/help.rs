//! The help screen: the page `app::help` lays out from the key table, drawn in a box over the whole body.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::overlay::{boxed, keys_or, position};
use crate::app::help::{self, HelpLine, Note};
use crate::app::scroll::viewer_area;
use crate::app::state::App;
use crate::config::keymap::actions::Action;

/// The help screen: the whole terminal but a margin, the page laid out at its width (see `app::help`).
pub(super) fn draw(f: &mut Frame, app: &App, scroll: usize, area: Rect) {
    let t = &app.theme;
    let r = viewer_area(area);
    let inner_w = r.width.saturating_sub(2) as usize;
    let visible = r.height.saturating_sub(2) as usize;
    let page = help::page(app, inner_w);
    let total = page.lines.len();
    let start = scroll.min(total.saturating_sub(visible));
    let lines: Vec<Line> = page
        .lines
        .iter()
        .skip(start)
        .take(visible)
        .map(|l| match l {
            HelpLine::Heading { title, scope } => Line::from(vec![
                Span::styled(title.to_string(), t.title),
                Span::styled(scope.clone(), t.dim),
            ]),
            HelpLine::Row { keys, name, text } => Line::from(vec![
                Span::raw("  "),
                Span::styled(keys.clone(), t.key_hint),
                Span::raw("  "),
                Span::styled(
                    if name.is_empty() {
                        String::new()
                    } else {
                        format!("{name}  ")
                    },
                    t.dim,
                ),
                Span::styled(text.clone(), t.text),
            ]),
            HelpLine::Blank => Line::default(),
            HelpLine::Note(text, kind) => Line::styled(
                text.clone(),
                match kind {
                    Note::Plain => t.dim,
                    Note::Remote => t.remote_label,
                    Note::Flag => t.flag,
                },
            ),
        })
        .collect();
    let title = format!(
        "Help{} · {} or Esc closes",
        position(start, visible, total),
        keys_or(app, Action::CloseViewer, "q")
    );
    // The whole body, margin included: a margin left as it was shows pieces of the panes' borders beside
    // the box.
    f.render_widget(Clear, area);
    let title = super::wrap::fit_words(&title, r.width.saturating_sub(4) as usize);
    f.render_widget(Paragraph::new(lines).block(boxed(app, &title)), r);
}
