//! Remote text as the user sees it: a provenance label, the sanitised text in the remote style behind a bar, and
//! the flags it raised. Shared by the card, skills and transcript views.

use ratatui::text::{Line, Span};

use crate::config::theme::Theme;
use crate::trust::sanitize::Untrusted;

/// Lines for one piece of remote text.
pub fn block(theme: &Theme, text: &Untrusted) -> Vec<Line<'static>> {
    let mut lines = vec![Line::from(Span::styled(
        format!("▍{}", crate::app::search::remote_label(&text.provenance)),
        theme.remote_label,
    ))];
    for l in text.as_str().lines() {
        lines.push(Line::from(vec![
            Span::styled("▍", theme.remote_label),
            Span::styled(l.to_string(), theme.remote_text),
        ]));
    }
    if text.as_str().is_empty() {
        lines.push(Line::from(vec![
            Span::styled("▍", theme.remote_label),
            Span::styled("(empty)", theme.dim),
        ]));
    }
    for flag in &text.findings.flags {
        lines.push(Line::from(Span::styled(
            format!("▍⚠ {}", flag.reason),
            theme.flag,
        )));
    }
    lines
}
