//! The styles markdown, JSON and plain code are drawn with, and how the theme derives them.

use ratatui::style::{Color, Modifier, Style};

use crate::config::theme::Theme;

/// Styles the renderers use; the theme builds one of these, so no colour is decided here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderStyles {
    pub text: Style,
    pub heading: Style,
    pub emphasis: Style,
    pub strong: Style,
    pub code_inline: Style,
    pub code_block: Style,
    pub list_marker: Style,
    pub quote: Style,
    pub link: Style,
    pub json_key: Style,
    pub json_string: Style,
    pub json_number: Style,
    pub json_bool_null: Style,
    pub json_punct: Style,
    pub fold_marker: Style,
}

impl Default for RenderStyles {
    /// Named ANSI colours rather than RGB, so the fallback follows the user's terminal palette and
    /// stays readable on a dark background even without true colour.
    fn default() -> Self {
        let fg = |c| Style::default().fg(c);
        Self {
            text: Style::default(),
            heading: fg(Color::LightCyan).add_modifier(Modifier::BOLD),
            emphasis: Style::default().add_modifier(Modifier::ITALIC),
            strong: Style::default().add_modifier(Modifier::BOLD),
            code_inline: fg(Color::LightYellow),
            code_block: fg(Color::Gray),
            list_marker: fg(Color::LightBlue),
            quote: fg(Color::Gray).add_modifier(Modifier::ITALIC),
            link: fg(Color::LightBlue),
            json_key: fg(Color::LightCyan),
            json_string: fg(Color::LightGreen),
            json_number: fg(Color::LightMagenta),
            json_bool_null: fg(Color::Yellow),
            json_punct: fg(Color::Gray),
            fold_marker: fg(Color::Magenta).add_modifier(Modifier::ITALIC),
        }
    }
}

/// Styles for laid-out remote text (markdown, code, JSON), derived from the theme's remote style so that
/// rendered artifacts still read as the agent's words.
pub fn render_styles(theme: &Theme) -> RenderStyles {
    use ratatui::style::Modifier;
    let base = theme.remote_text;
    let mut s = RenderStyles::default();
    if theme.no_color {
        let plain = Style::default().add_modifier(Modifier::ITALIC);
        s.text = plain;
        s.heading = plain.add_modifier(Modifier::BOLD);
        s.emphasis = plain;
        s.strong = plain.add_modifier(Modifier::BOLD);
        s.code_inline = plain;
        s.code_block = plain;
        s.list_marker = plain;
        s.quote = plain;
        s.link = plain.add_modifier(Modifier::UNDERLINED);
        s.json_key = plain.add_modifier(Modifier::BOLD);
        s.json_string = plain;
        s.json_number = plain;
        s.json_bool_null = plain;
        s.json_punct = plain;
        s.fold_marker = plain.add_modifier(Modifier::REVERSED);
        return s;
    }
    s.text = base;
    s.heading = base.add_modifier(Modifier::BOLD);
    s.emphasis = base.add_modifier(Modifier::ITALIC);
    s.strong = base.add_modifier(Modifier::BOLD);
    s
}
