//! Actions on the active tab's task: fetching its state, canceling, deleting and exporting it (each asks
//! first), its push configs, re-attaching to it, files to attach to the next message, and folding its JSON.

use ratatui_textarea::TextArea;

use crate::app::layout;
use crate::app::msg::Effect;
use crate::app::state::{App, Overlay, PromptKind, View};
use crate::app::task::Link;

pub(super) fn refresh(app: &mut App) -> Vec<Effect> {
    match app.active_tab() {
        Some(t) if t.log.task_id.is_some() => vec![Effect::RefreshTask {
            tab: t.id,
            agent: t.agent,
            task_id: t.log.task_id.clone().unwrap_or_default(),
        }],
        _ => vec![],
    }
}

pub(super) fn ask_export(app: &mut App) -> Vec<Effect> {
    match app.active_tab() {
        Some(t) if t.log.task_id.is_some() || (t.exchanged() && t.stored) => {
            let name = export_file_name(t);
            let mut input = TextArea::from(vec![name]);
            input.move_cursor(ratatui_textarea::CursorMove::End);
            app.overlay = Some(Overlay::Prompt {
                kind: PromptKind::ExportTask(t.id),
                input: Box::new(input),
            });
        }
        Some(t) if t.exchanged() => app.set_status(
            "this exchange is not in the local store (it is off): nothing to export",
            true,
        ),
        _ => app.set_status("no task in this tab to export", true),
    }
    vec![]
}

/// The export prompt's suggested file name. The task id is the agent's: its separators become `_` before the
/// name is made safe the way a saved artifact's is (`trust::filename::safe_file_name`: no directory part, no
/// `..`, no control or invisible characters), so an id like `../../.bashrc` cannot point the export
/// elsewhere or at a dotfile.
fn export_file_name(t: &crate::app::task::TaskTab) -> String {
    let name = match t.short_task() {
        Some(id) => format!("task-{}.md", id.replace(['/', '\\'], "_")),
        None => format!("exchange-{}.md", t.key.chars().take(8).collect::<String>()),
    };
    crate::trust::filename::safe_file_name(&name, "task.md").0
}

/// List the task's push configs (`list`), or delete the ones the console registered.
pub(super) fn push_configs(app: &mut App, list: bool) -> Vec<Effect> {
    match app.active_tab() {
        Some(t) if t.log.task_id.is_some() => {
            let task_id = t.log.task_id.clone().unwrap_or_default();
            if list {
                vec![Effect::ListPush {
                    tab: t.id,
                    agent: t.agent,
                    task_id,
                }]
            } else if t.push_ids.is_empty() {
                app.set_status("the console registered no push config for this task", true);
                vec![]
            } else {
                vec![Effect::DeletePush {
                    tab: t.id,
                    agent: t.agent,
                    task_id,
                    ids: t.push_ids.clone(),
                }]
            }
        }
        _ => vec![],
    }
}

pub(super) fn ask_delete(app: &mut App) -> Vec<Effect> {
    match app.active_tab() {
        Some(t) if t.stored => app.overlay = Some(Overlay::ConfirmDelete { tab: t.id }),
        Some(_) => app.set_status("nothing of this tab is in the local store", true),
        None => app.set_status("open a task tab to delete its task", true),
    }
    vec![]
}

pub(super) fn ask_cancel(app: &mut App) -> Vec<Effect> {
    match app.active_tab() {
        Some(t) if t.log.task_id.is_some() && !t.is_terminal() => {
            app.overlay = Some(Overlay::ConfirmCancel { tab: t.id });
        }
        Some(_) => app.set_status("nothing to cancel: no running task in this tab", true),
        None => app.set_status("open a task tab to cancel its task", true),
    }
    vec![]
}

pub(super) fn reattach(app: &mut App) -> Vec<Effect> {
    let Some(t) = app.active_tab_mut() else {
        return vec![];
    };
    let Some(task_id) = t.log.task_id.clone() else {
        t.note("no task to re-attach to", true);
        return vec![];
    };
    t.generation += 1;
    t.link = Link::Connecting;
    t.note("re-attaching…", false);
    vec![Effect::Subscribe {
        tab: t.id,
        generation: t.generation,
        agent: t.agent,
        task_id,
    }]
}

pub(super) fn ask_attach_file(app: &mut App) -> Vec<Effect> {
    if matches!(app.view, View::Tab(_)) {
        app.overlay = Some(Overlay::Prompt {
            kind: PromptKind::AttachFile,
            input: Box::default(),
        });
    }
    vec![]
}

pub(super) fn drop_attachment(app: &mut App) -> Vec<Effect> {
    if let Some(id) = app.active_tab().map(|t| t.id) {
        super::compose::drop_attachment(app, id);
    }
    vec![]
}

/// Fold the JSON part under the cursor to its top level, or unfold it: the data part at the top of the
/// transcript, else the next one below it, else the nearest above (the newest while following the end).
pub(super) fn fold_json(app: &mut App) {
    use crate::app::parts::PartKind;
    let styles = crate::markup::styles::render_styles(&app.theme);
    let Some(t) = app.active_tab_mut() else {
        return;
    };
    let data: Vec<(usize, usize)> = t
        .artifacts
        .iter()
        .enumerate()
        .flat_map(|(i, a)| {
            a.parts
                .iter()
                .enumerate()
                .filter(|(_, p)| p.kind == PartKind::Data)
                .map(move |(k, _)| (i, k))
        })
        .collect();
    let here = layout::current_part(t).map(|s| (s.artifact, s.part));
    let target = match (here, t.scroll) {
        (Some(h), Some(_)) => data
            .iter()
            .find(|d| **d >= h)
            .or(data.iter().rev().find(|d| **d < h)),
        _ => data.last(),
    }
    .copied();
    let Some((i, k)) = target else {
        app.set_status("no JSON part in this tab", true);
        return;
    };
    let Some(a) = t.artifacts.get_mut(i) else {
        return;
    };
    let of = a.parts.len();
    let label = a.label().to_string();
    let folded = if crate::app::parts::toggle_fold(a, k, &styles) {
        a.parts.get(k).map(|p| p.folded)
    } else {
        None
    };
    let what = if of > 1 {
        format!("part {}/{of} of {label:?}", k + 1)
    } else {
        format!("{label:?}")
    };
    match folded {
        Some(true) => app.set_status(format!("folded the JSON of {what} (z unfolds)"), false),
        Some(false) => app.set_status(format!("unfolded the JSON of {what}"), false),
        None => app.set_status(
            format!("the JSON of {what} is still arriving: it folds once complete"),
            true,
        ),
    }
}
