//! The styles markdown, JSON and plain code are drawn with, and how the theme derives them.

use ratatui::style::{Modifier, Style};

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

/// Styles for laid-out remote text (markdown, code, JSON). Text, headings, emphasis and strong text are the
/// theme's remote style plus a modifier, so rendered artifacts still read as the agent's words; code, lists,
/// quotes, links and the JSON tokens have roles of their own in the theme.
pub fn render_styles(theme: &Theme) -> RenderStyles {
    if theme.no_color {
        // Monochrome: everything italic like remote text, structure told by modifiers alone.
        let plain = Style::default().add_modifier(Modifier::ITALIC);
        return RenderStyles {
            text: plain,
            heading: plain.add_modifier(Modifier::BOLD),
            emphasis: plain,
            strong: plain.add_modifier(Modifier::BOLD),
            code_inline: plain,
            code_block: plain,
            list_marker: plain,
            quote: plain,
            link: plain.add_modifier(Modifier::UNDERLINED),
            json_key: plain.add_modifier(Modifier::BOLD),
            json_string: plain,
            json_number: plain,
            json_bool_null: plain,
            json_punct: plain,
            fold_marker: plain.add_modifier(Modifier::REVERSED),
        };
    }
    let base = theme.remote_text;
    RenderStyles {
        text: base,
        heading: base.add_modifier(Modifier::BOLD),
        emphasis: base.add_modifier(Modifier::ITALIC),
        strong: base.add_modifier(Modifier::BOLD),
        code_inline: theme.code_inline,
        code_block: theme.code_block,
        list_marker: theme.list_marker,
        quote: theme.quote,
        link: theme.link,
        json_key: theme.json_key,
        json_string: theme.json_string,
        json_number: theme.json_number,
        json_bool_null: theme.json_bool_null,
        json_punct: theme.json_punct,
        fold_marker: theme.fold_marker,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every colour the markup draws is the theme's: a theme that restyles a markup role restyles the view.
    #[test]
    fn markup_colours_come_from_the_theme() {
        for name in Theme::builtin_names() {
            let theme = Theme::builtin(name).unwrap();
            let s = render_styles(&theme);
            assert_eq!(s.text, theme.remote_text, "{name}");
            assert_eq!(s.code_inline, theme.code_inline, "{name}");
            assert_eq!(s.json_key, theme.json_key, "{name}");
            assert_eq!(s.fold_marker, theme.fold_marker, "{name}");
        }
        let mine = Theme::from_toml(
            "mine",
            "extends = \"light\"\n[json_string]\nfg = \"#123456\"\n[link]\nfg = \"indexed:17\"\nmodifiers = [\"underlined\"]\n",
        )
        .unwrap();
        let s = render_styles(&mine);
        assert_eq!(
            s.json_string,
            Style::new().fg(ratatui::style::Color::Rgb(0x12, 0x34, 0x56))
        );
        assert_eq!(
            s.link,
            Style::new()
                .fg(ratatui::style::Color::Indexed(17))
                .add_modifier(Modifier::UNDERLINED)
        );
        // Under NO_COLOR no markup role has a colour.
        let mono = render_styles(&Theme::builtin("dark").unwrap().without_color());
        for st in [
            mono.text,
            mono.code_inline,
            mono.json_key,
            mono.link,
            mono.fold_marker,
        ] {
            assert_eq!((st.fg, st.bg), (None, None));
        }
    }
}
