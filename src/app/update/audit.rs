//! The audit log's viewer: opening it on the rows the store read, and its keys (scrolling, selecting a row,
//! opening a row's detail as raw JSON).

use crossterm::event::KeyEvent;

use super::overlay::scroll_overlay;
use crate::app::msg::{AuditRow, Effect};
use crate::app::state::{App, Overlay};
use crate::config::keymap::actions::{Action, Context};

/// The store answered [`Effect::LoadAudit`].
pub(super) fn loaded(app: &mut App, result: Result<Vec<AuditRow>, String>) -> Vec<Effect> {
    match result {
        Ok(rows) => {
            // Newest last: it opens on the last page.
            let visible = crate::app::scroll::viewer_rows(app.size);
            let scroll = rows.len().saturating_sub(visible);
            app.overlay = Some(Overlay::Audit {
                rows,
                scroll,
                selected: None,
            });
        }
        Err(e) => app.set_status(e, true),
    }
    vec![]
}

pub(super) fn audit_key(
    app: &mut App,
    rows: Vec<AuditRow>,
    scroll: usize,
    selected: Option<usize>,
    k: KeyEvent,
) -> Vec<Effect> {
    let keymap = &app.keymap;
    let pressed = crate::config::keymap::keys::KeyBinding::from_event(&k);
    let is = |a: Action| keymap.bindings(a).contains(&pressed);
    // `,` `.` select a row as in a transcript; Enter or J opens the selected one.
    if is(Action::SelectPrev) || is(Action::SelectNext) {
        let visible = crate::app::scroll::viewer_rows(app.size);
        // Nothing selected yet: start from the last row on screen (the log opens on its newest page).
        let first = (scroll + visible).min(rows.len()).saturating_sub(1);
        let (at, scroll) = super::overlay::select_row(
            selected,
            is(Action::SelectPrev),
            rows.len(),
            scroll,
            visible,
            first,
        );
        app.overlay = Some(Overlay::Audit {
            rows,
            scroll,
            selected: Some(at),
        });
        return vec![];
    }
    if let Some(i) =
        selected.filter(|_| is(Action::RawJson) || k.code == crossterm::event::KeyCode::Enter)
        && let Some(row) = rows.get(i)
    {
        app.overlay = Some(Overlay::RawJson {
            title: format!("Audit entry {} of {}", i + 1, rows.len()),
            lines: row.detail.clone(),
            scroll: 0,
        });
        return vec![];
    }
    match keymap.modal_action(Context::Viewer, true, &k) {
        Some(Action::CloseViewer | Action::Back | Action::AuditLog) => return vec![],
        a => {
            app.overlay = Some(Overlay::Audit {
                rows,
                scroll,
                selected,
            });
            if let Some(a) = a.filter(|a| a.is_scroll()) {
                scroll_overlay(app, a);
            }
        }
    }
    vec![]
}
