//! The board's own actions: its text search, its agent and state filters, and marking tasks for the split
//! view.

use ratatui_textarea::TextArea;

use crate::app::ids::TabId;
use crate::app::msg::Effect;
use crate::app::state::{App, Overlay, PromptKind, View};
use crate::config::keymap::actions::Action;

pub(super) fn search(app: &mut App) -> Vec<Effect> {
    app.view = View::Board;
    // The cursor after the old text: Backspace edits it, and an emptied prompt clears the search.
    let mut input = TextArea::from(vec![app.board.query.clone()]);
    input.move_cursor(ratatui_textarea::CursorMove::End);
    app.overlay = Some(Overlay::Prompt {
        kind: PromptKind::BoardSearch,
        input: Box::new(input),
    });
    vec![]
}

pub(super) fn filter_agent(app: &mut App) -> Vec<Effect> {
    let options: Vec<crate::app::ids::AgentId> = app.agents.iter().map(|a| a.id).collect();
    app.board.agent_filter = crate::app::board::cycle(app.board.agent_filter, &options);
    app.board.selected = 0;
    app.view = View::Board;
    vec![]
}

pub(super) fn filter_state(app: &mut App) -> Vec<Effect> {
    use crate::app::task::badge::Badge;
    let options = [
        Badge::AuthRequired,
        Badge::InputRequired,
        Badge::Working,
        Badge::Disconnected,
        Badge::Completed,
        Badge::Failed,
        Badge::Canceled,
        Badge::Rejected,
    ];
    app.board.state_filter = crate::app::board::cycle(app.board.state_filter, &options);
    app.board.selected = 0;
    app.view = View::Board;
    vec![]
}

pub(super) fn clear_filters(app: &mut App) -> Vec<Effect> {
    let was = app.board.filtered();
    app.board.agent_filter = None;
    app.board.state_filter = None;
    app.board.query.clear();
    app.board.selected = 0;
    app.view = View::Board;
    if was {
        app.set_status("board filters cleared: every task shows", false);
    }
    vec![]
}

/// Compare two tasks side by side: the first two marked, or the one marked with the selected one.
pub(super) fn compare(app: &mut App) -> Vec<Effect> {
    let how = |app: &App| {
        format!(
            "mark two tasks on the board ({}) with {}, then press {}",
            app.keymap.keys_for(Action::Board).join("/"),
            app.keymap.keys_for(Action::BoardMark).join("/"),
            app.keymap.keys_for(Action::BoardCompare).join("/")
        )
    };
    if app.view != View::Board {
        let said = how(app);
        app.set_status(said, true);
        return vec![];
    }
    let marked: Vec<_> = app
        .board
        .marked
        .iter()
        .copied()
        .filter(|m| app.tab(*m).is_some())
        .collect();
    let selected = crate::app::board::rows(app)
        .get(app.board.selected)
        .copied();
    let pair = match (marked.as_slice(), selected) {
        ([a, b, ..], _) => Some((*a, *b)),
        ([a], Some(s)) if s != *a => Some((*a, s)),
        _ => None,
    };
    let Some((a, b)) = pair else {
        let said = how(app);
        app.set_status(said, true);
        return vec![];
    };
    // A tab with nothing sent yet has nothing to compare.
    for id in [a, b] {
        if let Some(t) = app.tab(id)
            && t.log.task_id.is_none()
            && !t.exchanged()
        {
            let name = t.agent_name.clone();
            app.set_status(
                format!("the {name} tab has no task yet: mark two tasks that ran"),
                true,
            );
            return vec![];
        }
    }
    // Restored tabs show their header only until their transcript is read: read both, then compare.
    let mut fx = super::tabs::load_if_needed(app, a);
    fx.extend(super::tabs::load_if_needed(app, b));
    let loaded = [a, b]
        .iter()
        .all(|id| app.tab(*id).is_some_and(|t| t.loaded));
    if loaded {
        open_compare(app, a, b);
    } else {
        app.board.pending_compare = Some((a, b, app.keys_pressed));
        app.set_status("reading the two tasks from the local store…", false);
    }
    fx
}

fn open_compare(app: &mut App, a: TabId, b: TabId) {
    match crate::app::compare::page(app, a, b) {
        Some(page) => {
            app.overlay = Some(Overlay::Compare {
                page: Box::new(page),
                scroll: 0,
            });
        }
        None => app.set_status("one of the two tasks was closed", true),
    }
}

/// A transcript was read: when it completes a pending comparison, show it, unless the user has pressed a
/// key since asking (they moved on; `=` again shows it).
pub(super) fn compare_when_loaded(app: &mut App) {
    let Some((a, b, keys)) = app.board.pending_compare else {
        return;
    };
    let loaded = |id: TabId| app.tab(id).map(|t| t.loaded);
    match (loaded(a), loaded(b)) {
        (Some(true), Some(true)) => {
            app.board.pending_compare = None;
            if super::check::page_may_open(app, Some(keys)) {
                open_compare(app, a, b);
            } else {
                let key = app.keymap.keys_for(Action::BoardCompare).join("/");
                app.set_status(
                    format!("the two tasks are read: {key} compares them"),
                    false,
                );
            }
        }
        (None, _) | (_, None) => app.board.pending_compare = None,
        _ => {}
    }
}

/// Mark the board's selected task for the split view, or unmark it.
pub(super) fn toggle_mark(app: &mut App) {
    if app.view != View::Board {
        let key = app.keymap.keys_for(Action::Board).join("/");
        app.set_status(format!("tasks are marked on the board ({key})"), true);
        return;
    }
    let Some(id) = crate::app::board::rows(app)
        .get(app.board.selected)
        .copied()
    else {
        return;
    };
    let marked = &mut app.board.marked;
    match marked.iter().position(|m| *m == id) {
        Some(i) => {
            marked.remove(i);
        }
        None => marked.push(id),
    }
    let n = app.board.marked.len();
    let shown = n.min(crate::app::board::SPLIT_MAX);
    app.set_status(
        format!("{n} task(s) marked: the split view shows {shown} of them"),
        false,
    );
}
