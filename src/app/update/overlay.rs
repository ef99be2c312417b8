//! Keys in the modals (help, palette, confirmations, prompts, viewers), read through the keymap's modal
//! contexts so help lists them and `[keys]` remaps them: what holds for every modal, the scroll keys they
//! share, and which modal's file a key goes to.

use crossterm::event::KeyEvent;

use super::approval::{APPROVAL_PAGE, approval_key};
use crate::app::help;
use crate::app::msg::Effect;
use crate::app::save::choices;
use crate::app::scroll::{Extent, cursor, offset};
use crate::app::state::{App, Focus, Overlay, PromptKind};
use crate::config::keymap::actions::{Action, Context};
use crate::config::keymap::keys::KeyBinding;
use crate::config::keymap::palette_matches;

pub(super) fn overlay_key(app: &mut App, k: KeyEvent) -> Vec<Effect> {
    // Quit's keys with Ctrl/Alt or a name (Ctrl-C) work in every modal; a plain `q` is the modal's own key,
    // or text in a prompt. With a draft held, the first press only says so (the modal stays).
    if !KeyBinding::from_event(&k).is_plain_char()
        && app.keymap.bound(Context::Global, &k) == Some(Action::Quit)
    {
        return super::drafts::quit(app);
    }
    // A dialog that can decide something ignores the keys typed as it opened (they were meant for what was
    // there before); it counts them and says so. Checked while the dialog is still in place.
    if !app.key_passes_guard(std::time::Instant::now()) {
        return vec![];
    }
    let Some(overlay) = app.overlay.take() else {
        return vec![];
    };
    // Whatever a modal was, closing it returns to command keys, never to the compose box: a key meant for the
    // console (an `A`, a `p`, a pasted token) must not become a message to the agent. The attach-file prompt
    // is opened from the box while writing, and goes back to it.
    let attaching = matches!(
        overlay,
        Overlay::Prompt {
            kind: PromptKind::AttachFile,
            ..
        }
    );
    if app.focus == Focus::Compose && !attaching {
        app.focus = Focus::Main;
    }
    overlay_key_inner(app, overlay, k)
}

/// Rows a page key moves in the save picker and the palette (their boxes are about this tall).
fn list_page(app: &App) -> usize {
    usize::from(app.size.1.saturating_sub(8)).max(1)
}

/// The shared scroll actions in whichever modal is open (keys and mouse wheel alike): each moves its own
/// offset or cursor, clamped to what it holds.
pub(super) fn scroll_overlay(app: &mut App, a: Action) {
    let viewer = crate::app::scroll::viewer_rows(app.size);
    let help = matches!(app.overlay, Some(Overlay::Help { .. })).then(|| help::extent(app));
    let rows = match &app.overlay {
        Some(Overlay::SavePicker { tab, .. }) => app.tab(*tab).map_or(0, |t| choices(t).len()),
        Some(Overlay::Palette { query, .. }) => palette_matches(query).len(),
        _ => 0,
    };
    let page = list_page(app);
    // Before the first frame measured it, the renderer clamps the message's offset on its own.
    let approval = app
        .measured
        .approval
        .map_or((usize::from(APPROVAL_PAGE), usize::from(u16::MAX)), |e| {
            (e.page(), e.last_page())
        });
    match app.overlay.as_mut() {
        Some(Overlay::Help { scroll }) => {
            if let Some(e) = help {
                *scroll = offset(*scroll, a, e.page(), e.last_page());
            }
        }
        Some(Overlay::Audit { rows, scroll, .. }) => {
            let e = Extent {
                content: rows.len(),
                height: viewer,
            };
            *scroll = offset(*scroll, a, e.page(), e.last_page());
        }
        Some(Overlay::Check { page, scroll, .. }) => {
            let e = Extent {
                content: page.rows.len() + 2,
                height: viewer,
            };
            *scroll = offset(*scroll, a, e.page(), e.last_page());
        }
        Some(Overlay::RawJson { lines, scroll, .. }) => {
            let e = Extent {
                content: lines.len(),
                height: viewer,
            };
            *scroll = offset(*scroll, a, e.page(), e.last_page());
        }
        Some(Overlay::Compare { page, scroll }) => {
            let e = Extent {
                content: page.lines.len() + page.left.len().max(page.right.len()) + 2,
                height: viewer,
            };
            *scroll = offset(*scroll, a, e.page(), e.last_page());
        }
        Some(Overlay::Approval { scroll, .. }) => {
            let moved = offset(usize::from(*scroll), a, approval.0, approval.1);
            *scroll = u16::try_from(moved).unwrap_or(u16::MAX);
        }
        Some(Overlay::SavePicker { selected, .. }) | Some(Overlay::Palette { selected, .. }) => {
            *selected = cursor(*selected, a, page, rows);
        }
        _ => {}
    }
}

/// Each modal's own keys, in the file of that modal.
fn overlay_key_inner(app: &mut App, overlay: Overlay, k: KeyEvent) -> Vec<Effect> {
    match overlay {
        Overlay::Help { scroll } => super::viewer::help_key(app, scroll, k),
        Overlay::Audit {
            rows,
            scroll,
            selected,
        } => super::audit::audit_key(app, rows, scroll, selected, k),
        Overlay::Check {
            page,
            scroll,
            selected,
        } => super::check::check_key(app, page, scroll, selected, k),
        Overlay::RawJson {
            title,
            lines,
            scroll,
        } => super::viewer::raw_json_key(app, title, lines, scroll, k),
        Overlay::Compare { page, scroll } => super::viewer::compare_key(app, page, scroll, k),
        Overlay::Palette { query, selected } => {
            super::palette::palette_key(app, query, selected, k)
        }
        Overlay::ConfirmCancel { tab } => super::confirm::cancel(app, tab, k),
        Overlay::ConfirmRemoveAgent { agent } => super::confirm::remove_agent(app, agent, k),
        Overlay::ConfirmStopSuite { agent } => super::confirm::stop_suite(app, agent, k),
        Overlay::ConfirmPinKey {
            agent, thumbprint, ..
        } => super::confirm::pin_key(app, agent, thumbprint, k),
        Overlay::ConfirmOrigin { agent, origin, .. } => {
            super::confirm::origin(app, agent, origin, k)
        }
        Overlay::ConfirmDelete { tab } => super::confirm::delete(app, tab, k),
        Overlay::Approval { tab, scroll } => approval_key(app, tab, scroll, k),
        Overlay::CodeFlow { owner } => super::approval::code_flow_key(app, owner, k),
        Overlay::DeviceCode {
            tab,
            user_code,
            verification_uri,
            since,
        } => super::device_code::device_code_key(app, tab, user_code, verification_uri, since, k),
        Overlay::SavePicker { tab, selected } => super::save::picker_key(app, tab, selected, k),
        Overlay::SaveTarget(target) => super::save::target_key(app, target, k),
        Overlay::ConfirmOverwrite { target, existing } => {
            super::save::overwrite_key(app, target, existing, k)
        }
        Overlay::Prompt { kind, input } => super::prompt::prompt_key(app, kind, input, k),
    }
}

/// `,` `.` in a viewer's list of `rows` shown from `scroll`: the row selected now and the scroll that keeps
/// it in view. With nothing selected yet, the selection starts at `first`.
pub(super) fn select_row(
    selected: Option<usize>,
    prev: bool,
    rows: usize,
    scroll: usize,
    visible: usize,
    first: usize,
) -> (usize, usize) {
    let last = rows.saturating_sub(1);
    let at = match (selected, prev) {
        (None, _) => first.min(last),
        (Some(i), true) => i.saturating_sub(1),
        (Some(i), false) => (i + 1).min(last),
    };
    (at, scroll.min(at).max((at + 1).saturating_sub(visible)))
}
