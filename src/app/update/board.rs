//! The board's own actions: its text search, its agent and state filters, and marking tasks for the split
//! view.

use ratatui_textarea::TextArea;

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
    let Some(page) = pair.and_then(|(a, b)| crate::app::compare::page(app, a, b)) else {
        let said = how(app);
        app.set_status(said, true);
        return vec![];
    };
    app.overlay = Some(Overlay::Compare {
        page: Box::new(page),
        scroll: 0,
    });
    vec![]
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
