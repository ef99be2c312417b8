//! The compose box: keys typed into it, sending its text, and pasting.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui_textarea::{CursorMove, TextArea};

use super::actions::run_action;
use crate::app::ids::TabId;
use crate::app::msg::Effect;
use crate::app::state::{App, Focus, Overlay};
use crate::app::task::Link;
use crate::config::keymap::actions::Action;

pub(super) fn compose_key(app: &mut App, k: KeyEvent, action: Option<Action>) -> Vec<Effect> {
    let Some(tab_id) = app.active_tab().map(|t| t.id) else {
        app.focus = Focus::Agents;
        return vec![];
    };
    match action {
        Some(Action::Send) => return send(app, tab_id),
        Some(Action::Newline) => {
            if let Some(t) = app.tab_mut(tab_id) {
                t.compose.insert_newline();
            }
            return vec![];
        }
        Some(a @ (Action::HistoryPrev | Action::HistoryNext)) => {
            recall(app, tab_id, a == Action::HistoryPrev);
            return vec![];
        }
        Some(Action::DropAttachment) => {
            drop_attachment(app, tab_id);
            return vec![];
        }
        Some(
            a @ (Action::FocusNext
            | Action::FocusPrev
            | Action::Palette
            | Action::Quit
            | Action::JumpTab1
            | Action::JumpTab2
            | Action::JumpTab3
            | Action::JumpTab4
            | Action::JumpTab5
            | Action::JumpTab6
            | Action::JumpTab7
            | Action::JumpTab8
            | Action::JumpTab9
            | Action::Back
            | Action::AttachFile
            | Action::CloseTab
            | Action::ReopenTab
            | Action::NextTab
            | Action::PrevTab),
        ) if !is_plain_char(&k) => {
            // Plain `q` types a q in the compose box; only its non-character bindings act here. Ctrl-W never
            // gets here with the default keys: the text-editing keys come first, and it deletes a word.
            return run_action(app, a);
        }
        _ => {}
    }
    if let Some(t) = app.tab_mut(tab_id) {
        super::edit::edit(&mut t.compose, action, k);
        t.history_cursor = None;
    }
    vec![]
}

/// Up and Down in the box: in an empty box (or while recalling) they walk what was sent from any tab of this
/// run, behind the tab's own earlier messages; in text they move between its lines.
fn recall(app: &mut App, tab_id: TabId, back: bool) {
    // The merged list is only built when the key browses it (an arrow in a draft moves the cursor).
    let list = match app.tab(tab_id) {
        Some(t) if t.compose.is_empty() || t.history_cursor.is_some() => {
            app.history.recall(&t.sent_history)
        }
        Some(_) => Vec::new(),
        None => return,
    };
    let Some(t) = app.tab_mut(tab_id) else {
        return;
    };
    if list.is_empty() {
        t.compose.move_cursor(if back {
            CursorMove::Up
        } else {
            CursorMove::Down
        });
        return;
    }
    let n = list.len();
    // The list may have grown shorter since the last press (a transcript replayed): stay inside it.
    let next = match (back, t.history_cursor.map(|i| i.min(n - 1))) {
        (true, None) => Some(n - 1),
        (true, Some(i)) => Some(i.saturating_sub(1)),
        (false, Some(i)) if i + 1 < n => Some(i + 1),
        _ => None,
    };
    t.history_cursor = next;
    let text = next.and_then(|i| list.get(i).cloned()).unwrap_or_default();
    t.compose = TextArea::from(text.lines().map(str::to_string).collect::<Vec<_>>());
    t.compose.move_cursor(CursorMove::Bottom);
    t.compose.move_cursor(CursorMove::End);
}

/// Drop the file attached last, and say which (and what is left).
pub(super) fn drop_attachment(app: &mut App, tab_id: TabId) {
    let Some(t) = app.tab_mut(tab_id) else {
        return;
    };
    let Some(dropped) = t.attachments.pop() else {
        app.set_status("no file is attached to this message", true);
        return;
    };
    let left = match t.attachments.len() {
        0 => "nothing is attached now".to_string(),
        n => format!("{n} still attached"),
    };
    app.set_status(
        format!("dropped {} from the message; {left}", dropped.name()),
        false,
    );
}

pub(super) fn is_plain_char(k: &KeyEvent) -> bool {
    matches!(k.code, KeyCode::Char(_))
        && !k
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
}

/// Send the compose box's text on a tab: continue its task if it is still open, else start a new task in
/// the same conversation.
pub fn send(app: &mut App, tab_id: TabId) -> Vec<Effect> {
    let Some(agent) = app.tab(tab_id).and_then(|t| app.agent(t.agent)) else {
        return vec![];
    };
    let streaming = match (agent.callable(), agent.why_not_callable()) {
        (Some(i), _) => i.card.card.capabilities.streaming == Some(true),
        // A card-only agent: say why on the tab and keep what the user wrote, rather than send and fail.
        (None, Some(why)) if agent.info().is_some() => {
            app.set_status("this agent is card only: nothing was sent", true);
            if let Some(t) = app.tab_mut(tab_id) {
                t.note(why, true);
            }
            return vec![];
        }
        (None, _) => {
            app.set_status("the agent's card has not loaded: cannot send yet", true);
            return vec![];
        }
    };
    let Some(t) = app.tab_mut(tab_id) else {
        return vec![];
    };
    if matches!(t.link, Link::Connecting | Link::Live) && !t.waiting() {
        t.note(
            "a request is still running on this tab; wait, or cancel it with c",
            true,
        );
        return vec![];
    }
    let text = t.compose.lines().join("\n");
    if text.trim().is_empty() && t.attachments.is_empty() {
        return vec![];
    }
    let files: Vec<std::path::PathBuf> = std::mem::take(&mut t.attachments)
        .into_iter()
        .map(|a| a.path)
        .collect();
    let names = files.iter().map(|f| f.display().to_string()).collect();
    let (task_id, context_id) = if t.is_terminal() || t.log.task_id.is_none() {
        // A finished task cannot take more messages: start a new one in the same conversation.
        let context = t.log.context_id.clone();
        if t.log.task_id.is_some() {
            t.note(
                "the task has ended; this message starts a new task in the same conversation",
                false,
            );
        }
        t.begin_new_task();
        (None, context)
    } else {
        t.log.resuming = t.waiting();
        (t.log.task_id.clone(), t.log.context_id.clone())
    };
    let message = crate::app::outgoing(text, files, task_id, context_id);
    t.record_user(&message.text, names, &message.message_id);
    t.compose = TextArea::default();
    t.generation += 1;
    t.link = Link::Connecting;
    let (generation, agent) = (t.generation, t.agent);
    // Up recalls it in every tab of this run, not only this one.
    app.history.push(&message.text);
    vec![Effect::Send {
        tab: tab_id,
        generation,
        agent,
        message: Box::new(message),
        stream: streaming,
    }]
}

pub(super) fn paste(app: &mut App, text: &str) {
    if let Some(Overlay::Prompt { input, .. }) = app.overlay.as_mut() {
        input.insert_str(text.replace(['\n', '\r'], ""));
        return;
    }
    if app.focus == Focus::Compose
        && let Some(t) = app.active_tab_mut()
    {
        t.compose.insert_str(text);
    }
}
