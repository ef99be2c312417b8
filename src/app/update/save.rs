//! Keys of the save dialogs (`S`): the picker over every savable part of the tab, the name and path of the
//! chosen one, and the second confirmation an existing file needs; and what the write's result does.

use std::path::PathBuf;

use crossterm::event::KeyEvent;

use crate::app::ids::TabId;
use crate::app::msg::{Effect, SaveResult};
use crate::app::save::{ChoiceKind, SaveTarget, choices};
use crate::app::state::{App, Overlay};
use crate::config::keymap::actions::{Action, Context};

/// `S`: the picker over every part of every artifact, on the part at the top of the transcript once the user
/// moved there (`{` / `}`, scrolling), else on the first savable.
pub(super) fn open_picker(app: &mut App) -> Vec<Effect> {
    let Some(t) = app.active_tab() else {
        return vec![];
    };
    let rows = choices(t);
    if rows.is_empty() {
        app.set_status("no artifact in this tab to save", true);
        return vec![];
    }
    let here = t
        .scroll
        .and_then(|_| crate::app::layout::current_part(t))
        .and_then(|stop| {
            let a = t.artifacts.get(stop.artifact)?;
            let part = a.parts.get(stop.part)?;
            rows.iter().position(|c| {
                c.artifact == stop.artifact
                    && match c.kind {
                        ChoiceKind::Part(k) => k == stop.part,
                        ChoiceKind::File(p) | ChoiceKind::Url(p) => p == part.raw,
                        ChoiceKind::Text => true,
                    }
            })
        });
    let selected = here
        .or_else(|| {
            rows.iter()
                .position(|c| !matches!(c.kind, ChoiceKind::Url(_)))
        })
        .unwrap_or(0);
    app.overlay = Some(Overlay::SavePicker {
        tab: t.id,
        selected,
    });
    vec![]
}

pub(super) fn picker_key(app: &mut App, tab: TabId, selected: usize, k: KeyEvent) -> Vec<Effect> {
    let Some(t) = app.tab(tab) else {
        return vec![];
    };
    let rows = choices(t);
    let last = rows.len().saturating_sub(1);
    let selected = selected.min(last);
    let artifact = rows.get(selected).map(|c| c.artifact).unwrap_or(0);
    // The picker's own keys, then the shared scrolling keys, then the tab's artifact jumps (`}` / `{`).
    let action = app
        .keymap
        .modal_action(Context::Save, true, &k)
        .or_else(|| app.keymap.bound(Context::TaskTab, &k));
    if let Some(a) = action.filter(|a| a.is_scroll()) {
        app.overlay = Some(Overlay::SavePicker { tab, selected });
        super::overlay::scroll_overlay(app, a);
        return vec![];
    }
    let next = match action {
        Some(Action::Back) => return vec![],
        Some(Action::ChoosePart) => {
            let Some(choice) = rows.get(selected) else {
                return vec![];
            };
            if matches!(choice.kind, ChoiceKind::Url(_)) {
                app.set_status(
                    "a URL part is only a link: the console never fetches it, so there is nothing to save",
                    true,
                );
                selected
            } else {
                // The bytes are copied here, when the user chooses: what Enter writes later is this copy.
                let dir = app.save_dir.clone().unwrap_or_else(|| PathBuf::from("."));
                match SaveTarget::capture(t, choice, dir) {
                    Some(target) => {
                        app.overlay = Some(Overlay::SaveTarget(Box::new(target)));
                        return vec![];
                    }
                    None => selected,
                }
            }
        }
        // `}` / `{`: the first row of the next / previous artifact.
        Some(Action::NextArtifact) => rows
            .iter()
            .position(|c| c.artifact > artifact)
            .unwrap_or(selected),
        Some(Action::PrevArtifact) => {
            let prev = rows
                .iter()
                .rev()
                .find(|c| c.artifact < artifact)
                .map(|c| c.artifact);
            prev.and_then(|a| rows.iter().position(|c| c.artifact == a))
                .unwrap_or(selected)
        }
        _ => selected,
    };
    app.overlay = Some(Overlay::SavePicker {
        tab,
        selected: next,
    });
    vec![]
}

pub(super) fn target_key(app: &mut App, mut target: Box<SaveTarget>, k: KeyEvent) -> Vec<Effect> {
    match app.keymap.modal_action(Context::Prompt, false, &k) {
        Some(Action::Back) => {
            app.set_status("not saved", false);
            vec![]
        }
        Some(Action::Accept) => {
            if target.input.lines().join("").trim().is_empty() {
                app.overlay = Some(Overlay::SaveTarget(target));
                return vec![];
            }
            write(app, target, false)
        }
        other => {
            super::edit::edit(&mut target.input, other, k);
            app.overlay = Some(Overlay::SaveTarget(target));
            vec![]
        }
    }
}

/// The second confirmation: only `replace_file` (`y`) replaces (not Enter, which may still be held from the
/// name dialog); Esc gives up; any other key goes back to the name, to pick another one.
pub(super) fn overwrite_key(
    app: &mut App,
    target: Box<SaveTarget>,
    _existing: String,
    k: KeyEvent,
) -> Vec<Effect> {
    match app.keymap.modal_action(Context::Save, false, &k) {
        Some(Action::ReplaceFile) => write(app, target, true),
        Some(Action::Back) => {
            app.set_status(
                format!("not saved: {} was left as it is", target.path().display()),
                false,
            );
            vec![]
        }
        _ => {
            app.set_status(
                "not replaced: choose another name (Enter saves, Esc cancels)",
                false,
            );
            app.overlay = Some(Overlay::SaveTarget(target));
            vec![]
        }
    }
}

fn write(app: &mut App, target: Box<SaveTarget>, replace: bool) -> Vec<Effect> {
    let path = target.path();
    let bytes = target.bytes.clone();
    app.set_status(format!("saving to {}…", path.display()), false);
    app.saving = Some(target);
    vec![Effect::SaveFile {
        path,
        bytes,
        replace,
    }]
}

/// The write's result: saved; or something is there (ask again before replacing it); or it failed (back to
/// the name, so it can be fixed).
pub(super) fn done(app: &mut App, path: PathBuf, result: SaveResult) -> Vec<Effect> {
    let target = app.saving.take();
    match result {
        SaveResult::Saved(n) => {
            app.set_status(format!("saved {n} bytes to {}", path.display()), false)
        }
        SaveResult::Exists(what) => match target {
            Some(target) if app.overlay.is_none() => {
                app.overlay = Some(Overlay::ConfirmOverwrite {
                    target,
                    existing: what,
                });
            }
            _ => app.set_status(
                format!("not saved: {} already exists ({what})", path.display()),
                true,
            ),
        },
        SaveResult::Failed(e) => {
            app.set_status(format!("cannot save to {}: {e}", path.display()), true);
            if let Some(target) = target
                && app.overlay.is_none()
            {
                app.overlay = Some(Overlay::SaveTarget(target));
            }
        }
    }
    vec![]
}
