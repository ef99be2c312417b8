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
