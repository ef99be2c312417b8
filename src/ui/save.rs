//! The save dialogs (`S`): the picker over every savable part of the tab, the chosen part with its name, the
//! absolute path it would be written to and what deserves a second look, and the confirmation an existing
//! file needs. Names the agent chose are remote text and sit behind the untrusted bar.

use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::overlay::{boxed, centered};
use super::tab::human_bytes;
use super::wrap::{BAR, wrap_all};
use crate::app::ids::TabId;
use crate::app::save::{ChoiceKind, SaveTarget, choices};
use crate::app::state::App;
use crate::config::keymap::actions::Action;
use crate::trust::sanitize::sanitize_line;

fn keys(app: &App, a: Action) -> String {
    app.keymap.keys_for(a).join("/")
}

/// A path as it may be drawn (the name part may have been typed or pasted).
fn shown(p: &std::path::Path) -> String {
    sanitize_line(&p.display().to_string()).0
}

pub fn picker(f: &mut Frame, app: &App, tab: TabId, selected: usize, area: Rect) {
    let t = &app.theme;
    let Some(tb) = app.tab(tab) else {
        return;
    };
    let rows = choices(tb);
    let mut lines = Vec::new();
    let mut selected_line = 0;
    let mut last_artifact = None;
    for (i, c) in rows.iter().enumerate() {
        if last_artifact != Some(c.artifact) {
            lines.push(Line::from(vec![
                Span::styled(format!("artifact {} ", c.artifact + 1), t.dim),
                Span::styled(BAR, t.remote_label),
                Span::styled(c.artifact_label.clone(), t.remote_text),
            ]));
            last_artifact = Some(c.artifact);
        }
        let sel = i == selected;
        if sel {
            selected_line = lines.len();
        }
        let what = match c.kind {
            ChoiceKind::File(_) => format!(" · {} · {}", c.media_type, human_bytes(c.size)),
            ChoiceKind::Text | ChoiceKind::Part(_) => {
                format!(" · {} · {}", c.media_type, human_bytes(c.size))
            }
            ChoiceKind::Url(_) => {
                format!(" · {} · a link, never fetched: not savable", c.media_type)
            }
        };
        lines.push(Line::from(vec![
            Span::styled(if sel { "  ▶ " } else { "    " }, t.accent),
            Span::styled(BAR, t.remote_label),
            Span::styled(
                c.name.clone(),
                if sel { t.selection } else { t.remote_text },
            ),
            Span::styled(what, t.dim),
        ]));
    }
    let w = area.width.saturating_sub(8).min(100);
    let inner = w.saturating_sub(2) as usize;
    let lines = wrap_all(lines, inner);
    let h = (lines.len() as u16 + 2)
        .min(area.height.saturating_sub(4))
        .max(5);
    let r = centered(area, w, h);
    let visible = r.height.saturating_sub(2) as usize;
    let offset = selected_line.saturating_sub(visible.saturating_sub(1));
    let title = format!(
        "Save · {} parts · {} move · {} artifact · Enter chooses · Esc closes",
        rows.len(),
        keys(app, Action::ScrollUp) + "/" + &keys(app, Action::ScrollDown),
        keys(app, Action::PrevArtifact) + " " + &keys(app, Action::NextArtifact),
    );
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines)
            .block(boxed(app, &title))
            .scroll((offset as u16, 0)),
        r,
    );
}

/// What was chosen, and where it would go.
fn about(app: &App, s: &SaveTarget) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut lines = vec![
        Line::from(vec![
            Span::styled("part     ", t.dim),
            Span::styled(BAR, t.remote_label),
            Span::styled(s.choice.name.clone(), t.remote_text),
            Span::styled(
                format!(
                    " · {} · {}",
                    s.choice.media_type,
                    human_bytes(s.bytes.len())
                ),
                t.dim,
            ),
        ]),
        Line::from(vec![
            Span::styled("artifact ", t.dim),
            Span::styled(BAR, t.remote_label),
            Span::styled(s.choice.artifact_label.clone(), t.remote_text),
        ]),
        Line::styled(
            "The bytes were copied when you chose the part: what the agent sends now changes nothing here.",
            t.dim,
        ),
    ];
    if let Some(orig) = &s.original_name {
        lines.push(Line::from(vec![
            Span::styled("⚠ the agent named it ", t.flag),
            Span::styled(BAR, t.remote_label),
            Span::styled(orig.clone(), t.remote_text),
            Span::styled(" — reduced to a safe base name", t.flag),
        ]));
    }
    lines
}

fn path_and_risks(app: &App, s: &SaveTarget) -> Vec<Line<'static>> {
    let t = &app.theme;
    let mut lines = vec![Line::from(vec![
        Span::styled("saves to ", t.dim),
        Span::styled(shown(&s.path()), t.title),
    ])];
    for r in s.risks() {
        lines.push(Line::styled(format!("⚠ {r}"), t.flag));
    }
    lines
}

pub fn target(f: &mut Frame, app: &App, s: &SaveTarget, area: Rect) {
    let t = &app.theme;
    let w = area.width.saturating_sub(8).min(100);
    let inner = w.saturating_sub(2) as usize;
    let top = wrap_all(about(app, s), inner);
    let mut bottom = path_and_risks(app, s);
    bottom.push(Line::styled(
        "A new file, readable by you only (0600); an existing file is never replaced without asking again.",
        t.dim,
    ));
    bottom.push(Line::styled(
        "Enter saves · edit the name (or type a path) · Esc cancels",
        t.key_hint,
    ));
    let bottom = wrap_all(bottom, inner);
    let h = (top.len() + 3 + bottom.len() + 2) as u16;
    let r = centered(area, w, h);
    let block = boxed(app, "Save artifact part");
    let body = block.inner(r);
    f.render_widget(Clear, r);
    f.render_widget(block, r);
    let parts = Layout::default()
        .direction(Direction::Vertical)
        .constraints([
            Constraint::Length(top.len() as u16),
            Constraint::Length(3),
            Constraint::Min(1),
        ])
        .split(body);
    f.render_widget(Paragraph::new(top), parts[0]);
    let mut input = (*s.input).clone();
    super::theme_input(&mut input, t);
    input.set_block(
        Block::default()
            .borders(Borders::ALL)
            .title(Span::styled(" file name ", t.dim))
            .border_style(t.border),
    );
    f.render_widget(&input, parts[1]);
    f.render_widget(Paragraph::new(bottom), parts[2]);
}

pub fn overwrite(f: &mut Frame, app: &App, s: &SaveTarget, existing: &str, area: Rect) {
    let t = &app.theme;
    let w = area.width.saturating_sub(8).min(100);
    let inner = w.saturating_sub(2) as usize;
    let mut lines = vec![
        Line::styled(
            format!("{} already exists: {existing}.", shown(&s.path())),
            t.warning,
        ),
        Line::styled(
            format!(
                "Replace it with the {} chosen ({})?",
                human_bytes(s.bytes.len()),
                s.choice.media_type
            ),
            t.text,
        ),
    ];
    for r in s.risks() {
        lines.push(Line::styled(format!("⚠ {r}"), t.flag));
    }
    lines.push(Line::default());
    lines.push(Line::styled(
        "y replaces it · any other key: choose another name · Esc: keep it, save nothing",
        t.key_hint,
    ));
    let lines = wrap_all(lines, inner);
    let r = centered(area, w, lines.len() as u16 + 2);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).block(boxed(app, "Replace an existing file?")),
        r,
    );
}
