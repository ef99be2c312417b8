//! The one-line prompt (add an agent, rename, search…): the text input in a box titled with what it asks.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::widgets::Clear;
use ratatui_textarea::TextArea;

use super::overlay::{boxed, centered};
use crate::app::state::{App, PromptKind};

pub(super) fn draw(
    f: &mut Frame,
    app: &App,
    kind: &PromptKind,
    input: &TextArea<'static>,
    area: Rect,
) {
    let title = format!("{} · Enter accepts · Esc cancels", kind.title());
    // Wide enough for the whole title (it says what Enter and an empty answer do), within the screen.
    let want = u16::try_from(unicode_width::UnicodeWidthStr::width(title.as_str()) + 4)
        .unwrap_or(u16::MAX)
        .max(70);
    let r = centered(area, want, 3);
    let mut input = input.clone();
    super::theme_input(&mut input, &app.theme);
    input.set_block(boxed(app, &title));
    f.render_widget(Clear, r);
    f.render_widget(&input, r);
}
