//! Mouse clicks and wheel: hit-testing against the same layout the screen was drawn with.

use crossterm::event::{MouseEvent, MouseEventKind};
use ratatui::layout::{Position, Rect};

use super::nav::scroll;
use super::tabs::show_tab;
use crate::app::layout;
use crate::app::msg::Effect;
use crate::app::state::{App, Focus, View};
use crate::config::keymap::actions::Action;

/// Lines one notch of the wheel scrolls.
const WHEEL_LINES: usize = 3;

pub(super) fn mouse(app: &mut App, m: MouseEvent) -> Vec<Effect> {
    if app.overlay.is_some() {
        // The wheel scrolls the open modal (help, audit log, approval message, pickers) like its keys do.
        let a = match m.kind {
            MouseEventKind::ScrollUp => Action::ScrollUp,
            MouseEventKind::ScrollDown => Action::ScrollDown,
            _ => return vec![],
        };
        for _ in 0..WHEEL_LINES {
            super::overlay::scroll_overlay(app, a);
        }
        return vec![];
    }
    let size = Rect::new(0, 0, app.size.0, app.size.1);
    if layout::too_small(size) {
        return vec![];
    }
    let areas = layout::areas(size);
    let at = Position::new(m.column, m.row);
    match m.kind {
        MouseEventKind::Down(_) => {
            if areas.tabs.contains(at) {
                match layout::tab_at(app, m.column) {
                    Some(View::Tab(id)) => show_tab(app, id),
                    Some(v) => {
                        app.view = v;
                        app.focus = Focus::Main;
                    }
                    None => {}
                }
            } else if areas.agents.contains(at) {
                // Row 0 is the border; an agent takes as many rows as it has lines to show.
                let row = m.row.saturating_sub(areas.agents.y + 1) as usize;
                if let Some(i) = layout::agent_at_row(app, row) {
                    app.selected_agent = i;
                    app.focus = Focus::Agents;
                    if matches!(app.view, View::Tab(_)) {
                        app.view = View::Card;
                    }
                }
            } else if areas.main.contains(at) {
                app.focus = Focus::Main;
                if let View::Tab(_) = app.view {
                    let compose_lines = app
                        .active_tab()
                        .map(|t| t.compose.lines().len())
                        .unwrap_or(1);
                    let (_, compose) = layout::tab_split(areas.main, compose_lines);
                    if compose.contains(at) {
                        app.focus = Focus::Compose;
                    }
                }
            }
            vec![]
        }
        MouseEventKind::ScrollUp | MouseEventKind::ScrollDown => {
            let a = if m.kind == MouseEventKind::ScrollUp {
                Action::ScrollUp
            } else {
                Action::ScrollDown
            };
            let saved = app.focus;
            app.focus = if areas.agents.contains(at) {
                Focus::Agents
            } else {
                Focus::Main
            };
            for _ in 0..WHEEL_LINES {
                scroll(app, a);
            }
            app.focus = saved;
            vec![]
        }
        _ => vec![],
    }
}
