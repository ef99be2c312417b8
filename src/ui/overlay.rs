//! Modals: what they share (the centred box, its frame, how a dialog names its keys) and [`draw`], which hands
//! the open overlay to its own file (one file per overlay: `help`, `palette`, `confirm`, `approval`,
//! `device_code`, `audit`, `prompt`, `sign_in`, `save`, `raw_json`).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::{Block, Borders};

use crate::app::state::{App, Overlay};
use crate::config::keymap::actions::Action;

/// A box of `w` × `h` in the middle of `area` (shrunk to fit). Shared by every modal.
pub(super) fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width.saturating_sub(2));
    let h = h.min(area.height.saturating_sub(2));
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// A modal's frame: focused border, title in the theme's title style.
/// A dialog that can decide something says on its lower edge that it ignores the keys typed as it opened,
/// and afterwards how many it ignored.
pub(super) fn boxed<'a>(app: &App, title: &str) -> Block<'a> {
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(format!(" {title} "), app.theme.title))
        .border_style(app.theme.border_focus);
    match app.key_guard_footer() {
        Some(note) => block.title_bottom(Span::styled(format!(" {note} "), app.theme.warning)),
        None => block,
    }
}

/// An action's keys as the dialogs name them (`y / Y / Enter`), or `fallback` when the user unbound it.
pub(super) fn keys_or(app: &App, a: Action, fallback: &str) -> String {
    let keys = app.keymap.keys_for(a);
    if keys.is_empty() {
        format!("({fallback} unbound)")
    } else {
        keys.join(" / ")
    }
}

/// ` · rows 11–40 of 120` when the text does not fit, else nothing.
pub(super) fn position(start: usize, visible: usize, total: usize) -> String {
    if total <= visible {
        return String::new();
    }
    format!(
        " · rows {}–{} of {total}",
        start + 1,
        (start + visible).min(total)
    )
}

/// The open overlay, if any, over the whole frame.
pub fn draw(f: &mut Frame, app: &App, area: Rect) {
    let Some(overlay) = &app.overlay else {
        return;
    };
    match overlay {
        Overlay::Help { scroll } => super::help::draw(f, app, *scroll, area),
        Overlay::Palette { query, selected } => {
            super::palette::draw(f, app, query, *selected, area)
        }
        Overlay::ConfirmCancel { tab } => super::confirm::cancel(f, app, *tab, area),
        Overlay::Approval { tab, scroll } => super::approval::draw(f, app, *tab, *scroll, area),
        Overlay::CodeFlow { owner } => super::sign_in::draw(f, app, *owner, area),
        Overlay::DeviceCode {
            tab,
            user_code,
            verification_uri,
            since,
        } => super::device_code::draw(f, app, *tab, user_code, verification_uri, *since, area),
        Overlay::RawJson {
            title,
            lines,
            scroll,
        } => super::raw_json::draw(f, app, area, title, lines, *scroll),
        Overlay::Audit {
            rows,
            scroll,
            selected,
        } => super::audit::draw(f, app, rows, *scroll, *selected, area),
        Overlay::Check {
            page,
            scroll,
            selected,
        } => super::check::draw(f, app, page, *scroll, *selected, area),
        Overlay::Compare { page, scroll } => super::compare::draw(f, app, page, *scroll, area),
        Overlay::ConfirmRemoveAgent { agent } => super::confirm::remove_agent(f, app, *agent, area),
        Overlay::ConfirmStopSuite { agent } => super::confirm::stop_suite(f, app, *agent, area),
        Overlay::ConfirmPinKey {
            agent,
            thumbprint,
            kid,
            alg,
        } => super::confirm::pin_key(f, app, *agent, thumbprint, kid.as_deref(), alg, area),
        Overlay::ConfirmOrigin {
            agent,
            origin,
            home,
        } => super::confirm::origin(f, app, *agent, origin, home, area),
        Overlay::ConfirmDelete { tab } => super::confirm::delete(f, app, *tab, area),
        Overlay::SavePicker { tab, selected } => super::save::picker(f, app, *tab, *selected, area),
        Overlay::SaveTarget(s) => super::save::target(f, app, s, area),
        Overlay::ConfirmOverwrite { target, existing } => {
            super::save::overwrite(f, app, target, existing, area)
        }
        Overlay::Prompt { kind, input } => super::prompt::draw(f, app, kind, input, area),
    }
}
