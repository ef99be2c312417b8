//! Moving around the screen without changing what it shows: focus between the panes, the shared scroll keys
//! on the focused pane, and jumps between a transcript's artifact parts.

use crate::app::layout;
use crate::app::msg::Effect;
use crate::app::scroll::{cursor, offset};
use crate::app::state::{App, Focus, View};
use crate::config::keymap::actions::Action;

/// Tab and Shift-Tab move between the agent list and the main pane; the compose box is never on the way, since
/// a key pressed after a focus move must never become text (it is entered with i/Enter or a click).
pub(super) fn other_pane(app: &mut App) -> Vec<Effect> {
    app.focus = match app.focus {
        Focus::Agents => Focus::Main,
        Focus::Main => Focus::Agents,
        Focus::Compose => Focus::Main,
    };
    vec![]
}

pub(super) fn back(app: &mut App) -> Vec<Effect> {
    // In a tab, Esc first clears the search (then the selection) before it moves focus.
    if app.focus == Focus::Main && super::transcript::clear_search(app) {
        return vec![];
    }
    app.focus = match app.focus {
        Focus::Compose => Focus::Main,
        _ => Focus::Agents,
    };
    vec![]
}

pub(super) fn compose(app: &mut App) -> Vec<Effect> {
    if matches!(app.view, View::Tab(_)) {
        app.focus = Focus::Compose;
    }
    vec![]
}

/// The scroll keys act on the open modal when there is one, else on the focused pane.
pub(super) fn scroll_keys(app: &mut App, a: Action) -> Vec<Effect> {
    if app.overlay.is_some() {
        super::overlay::scroll_overlay(app, a);
    } else {
        scroll(app, a);
    }
    vec![]
}

/// The shared scroll actions on the focused pane: the agent list, skill examples, board and split move their
/// cursor; the card page and the transcript move their view. Everything stops at its last page.
pub(super) fn scroll(app: &mut App, a: Action) {
    let areas = layout::areas(ratatui::layout::Rect::new(0, 0, app.size.0, app.size.1));
    // Rows inside the main pane's border.
    let page = usize::from(areas.main.height.saturating_sub(2)).max(1);
    match (app.focus, app.view) {
        (Focus::Agents, _) => {
            let n = app.agents.len();
            // Each agent takes three rows of the list.
            let agents_page = (usize::from(areas.agents.height.saturating_sub(2)) / 3).max(1);
            let next = cursor(app.selected_agent, a, agents_page, n);
            if next != app.selected_agent {
                app.selected_agent = next;
                app.card_scroll = 0;
                app.selected_skill = 0;
            }
        }
        (_, View::Skills) => {
            let n: usize = app
                .selected()
                .and_then(|e| e.info())
                .map(|i| i.skills.iter().map(|s| s.examples.len()).sum())
                .unwrap_or(0);
            app.selected_skill = cursor(app.selected_skill, a, page, n);
        }
        (_, View::Card) => {
            // Until a frame measured the page (its length comes from wrapping at the pane's width), the
            // renderer clamps on its own.
            let (page, max) = app
                .measured
                .card
                .map_or((page, usize::MAX / 2), |e| (e.page(), e.last_page()));
            app.card_scroll = offset(app.card_scroll, a, page, max);
        }
        (_, View::Board | View::Split) => {
            let n = if app.view == View::Board {
                crate::app::board::rows(app).len()
            } else {
                crate::app::board::split_tabs(app).len()
            };
            app.board.selected = cursor(app.board.selected, a, page, n);
        }
        (_, View::Tab(_)) => {
            let Some(t) = app.active_tab_mut() else {
                return;
            };
            // Scrolling is in transcript lines; `None` means "follow the end". The renderer clamps.
            let total = t.total_lines();
            let current = t.scroll.unwrap_or(total.saturating_sub(page));
            t.scroll = match a {
                Action::ScrollBottom => None,
                _ => Some(offset(current, a, page, total.saturating_sub(1))),
            };
        }
    }
}

/// Move the transcript so the next (or previous) part of an artifact is at the top; past the last one, follow
/// the end again.
pub(super) fn jump_artifact(app: &mut App, forward: bool) {
    let Some(t) = app.active_tab_mut() else {
        return;
    };
    let stops = layout::part_stops(t);
    let current = t.scroll.unwrap_or(usize::MAX);
    let target = if forward {
        stops
            .iter()
            .map(|s| s.line)
            .find(|s| *s > current || current == usize::MAX)
    } else {
        stops.iter().rev().map(|s| s.line).find(|s| *s < current)
    };
    match target {
        Some(line) => t.scroll = Some(line),
        None if forward => t.scroll = None,
        None => {}
    }
}
