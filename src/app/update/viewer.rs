//! Keys in the read-only viewers that hold nothing but a page: help, and a raw JSON view (its key, pressed
//! again, closes it too). The audit log's viewer, with its rows to select, has a file of its own.

use crossterm::event::KeyEvent;

use super::overlay::scroll_overlay;
use crate::app::msg::Effect;
use crate::app::state::{App, Overlay};
use crate::config::keymap::actions::{Action, Context};

pub(super) fn help_key(app: &mut App, scroll: usize, k: KeyEvent) -> Vec<Effect> {
    match app.keymap.modal_action(Context::Viewer, true, &k) {
        Some(Action::CloseViewer | Action::Back | Action::Help) => return vec![],
        a => {
            app.overlay = Some(Overlay::Help { scroll });
            if let Some(a) = a.filter(|a| a.is_scroll()) {
                scroll_overlay(app, a);
            }
        }
    }
    vec![]
}

/// The compare page: the scroll keys move it; the viewer's close keys (and `=` again) close it.
pub(super) fn compare_key(
    app: &mut App,
    page: Box<crate::app::compare::ComparePage>,
    scroll: usize,
    k: KeyEvent,
) -> Vec<Effect> {
    let again = app.keymap.action(Context::AgentList, &k) == Some(Action::BoardCompare);
    match app.keymap.modal_action(Context::Viewer, true, &k) {
        Some(Action::CloseViewer | Action::Back) => {}
        _ if again => {}
        a => {
            app.overlay = Some(Overlay::Compare { page, scroll });
            if let Some(a) = a.filter(|a| a.is_scroll()) {
                scroll_overlay(app, a);
            }
        }
    }
    vec![]
}

pub(super) fn raw_json_key(
    app: &mut App,
    title: String,
    lines: Vec<String>,
    scroll: usize,
    k: KeyEvent,
) -> Vec<Effect> {
    let keymap = &app.keymap;
    let again = keymap.action(Context::TaskTab, &k) == Some(Action::RawJson);
    match keymap.modal_action(Context::Viewer, true, &k) {
        Some(Action::CloseViewer | Action::Back) => return vec![],
        _ if again => return vec![],
        a => {
            app.overlay = Some(Overlay::RawJson {
                title,
                lines,
                scroll,
            });
            if let Some(a) = a.filter(|a| a.is_scroll()) {
                scroll_overlay(app, a);
            }
        }
    }
    vec![]
}
