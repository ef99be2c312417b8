//! The raw JSON viewer (`J` in a tab): the task and the selected entry's event as the agent sent them,
//! sanitised, each row behind the remote gutter (it is the agent's data), the console's `//` notes without it.
//! Only the rows on screen are wrapped.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::overlay::boxed;
use super::wrap::{BAR, Break, Keep, wrap};
use crate::app::state::App;

pub fn draw(f: &mut Frame, app: &App, area: Rect, title: &str, lines: &[String], scroll: usize) {
    let t = &app.theme;
    // The same box as the help screen and the audit log (`update` pages by its height).
    let r = crate::app::scroll::viewer_area(area);
    let width = r.width.saturating_sub(2) as usize;
    let height = r.height.saturating_sub(2) as usize;
    let mut rows: Vec<Line<'static>> = Vec::new();
    for l in lines.iter().skip(scroll) {
        let line = if l.is_empty() || l.starts_with("// ") {
            Line::styled(l.clone(), t.dim)
        } else {
            Line::from(vec![
                Span::styled(BAR, t.remote_label),
                Span::styled(l.clone(), t.remote_text),
            ])
        };
        // Long strings (base64, URLs) have no spaces: they are cut at the column.
        rows.extend(wrap(
            line,
            width,
            height - rows.len(),
            Keep::Head,
            Break::Anywhere,
        ));
        if rows.len() >= height {
            break;
        }
    }
    rows.truncate(height);
    let title = format!(
        "{title} · line {}/{} · j/k PgUp/PgDn g/G scroll · Esc closes",
        (scroll + 1).min(lines.len()),
        lines.len()
    );
    // The whole body, margin included (as the help screen): no piece of the panes shows beside the box.
    f.render_widget(Clear, area);
    let title = super::wrap::fit_words(&title, r.width.saturating_sub(4) as usize);
    f.render_widget(Paragraph::new(rows).block(boxed(app, &title)), r);
}
