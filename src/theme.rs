//! TEMP stub, replaced by the real theme.
use ratatui::style::{Color, Modifier, Style};
#[derive(Clone, Debug)]
pub struct Theme {
    pub name: String,
    pub no_color: bool,
    pub text: Style,
    pub dim: Style,
    pub title: Style,
    pub border: Style,
    pub border_focus: Style,
    pub selection: Style,
    pub accent: Style,
    pub status_bar: Style,
    pub key_hint: Style,
    pub remote_text: Style,
    pub remote_label: Style,
    pub flag: Style,
    pub error: Style,
    pub warning: Style,
    pub ok: Style,
    pub user_text: Style,
    pub tab_active: Style,
    pub tab_inactive: Style,
    pub submitted: Style,
    pub working: Style,
    pub input_required: Style,
    pub auth_required: Style,
    pub completed: Style,
    pub failed: Style,
    pub canceled: Style,
    pub rejected: Style,
    pub connecting: Style,
    pub disconnected: Style,
}
impl Theme {
    pub fn builtin(_n: &str) -> Result<Theme, String> {
        let s = Style::default();
        Ok(Theme {
            name: "dark".into(),
            no_color: false,
            text: s,
            dim: s.add_modifier(Modifier::DIM),
            title: s.add_modifier(Modifier::BOLD),
            border: s,
            border_focus: s.fg(Color::Cyan),
            selection: s.add_modifier(Modifier::REVERSED),
            accent: s.fg(Color::Cyan),
            status_bar: s,
            key_hint: s,
            remote_text: s.fg(Color::Yellow).add_modifier(Modifier::ITALIC),
            remote_label: s.fg(Color::Magenta),
            flag: s.fg(Color::Red),
            error: s.fg(Color::Red),
            warning: s.fg(Color::Yellow),
            ok: s.fg(Color::Green),
            user_text: s,
            tab_active: s.add_modifier(Modifier::REVERSED),
            tab_inactive: s,
            submitted: s,
            working: s,
            input_required: s,
            auth_required: s,
            completed: s,
            failed: s,
            canceled: s,
            rejected: s,
            connecting: s,
            disconnected: s,
        })
    }
}
impl Theme {
    pub fn load(n: &str) -> Result<Theme, String> {
        Self::builtin(n)
    }
    pub fn without_color(self) -> Theme {
        self
    }
}
pub fn no_color_requested() -> bool {
    false
}
