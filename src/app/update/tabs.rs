//! Tabs on screen: showing one, opening a new conversation, moving between tabs, and asking for a restored
//! tab's transcript the first time it shows.

use crate::app::ids::TabId;
use crate::app::layout;
use crate::app::msg::Effect;
use crate::app::state::{App, Focus, View};
use crate::config::keymap::actions::Action;

/// Put a tab on screen with command keys live: focus on its transcript, never in the compose box, so the key
/// after a navigation (`]`, `b`, `/` …) acts instead of becoming message text. Typing starts with `i`/Enter
/// or a click in the box.
pub(super) fn show_tab(app: &mut App, id: TabId) {
    app.view = View::Tab(id);
    if let Some(t) = app.tab_mut(id) {
        t.attention = false;
    }
    app.focus = Focus::Main;
}

/// Open a new conversation tab on the selected agent, optionally with text in the compose box.
pub fn open_tab(app: &mut App, text: Option<&str>) -> Option<TabId> {
    if app.agents.is_empty() {
        app.set_status("no agent: add one with `a`", true);
        return None;
    }
    let agent = app.selected().map(|a| a.id)?;
    let id = app.new_tab(agent);
    if let (Some(text), Some(t)) = (text, app.tab_mut(id)) {
        t.compose.insert_str(text);
    }
    show_tab(app, id);
    // A new tab (`n`, a skill's example) is opened to write in: the one navigation that focuses the box.
    app.focus = Focus::Compose;
    Some(id)
}

/// `JumpTab1`…`JumpTab9`: the tab at that place, when there is one.
pub(super) fn jump(app: &mut App, a: Action) -> Vec<Effect> {
    if let Some(t) = a.tab_index().and_then(|i| app.tabs.get(i)) {
        let id = t.id;
        show_tab(app, id);
    }
    vec![]
}

/// The next (or previous) item of the tab bar, the board and split views included, round the end.
pub(super) fn cycle(app: &mut App, forward: bool) -> Vec<Effect> {
    let items = layout::tab_items(app);
    let pos = items.iter().position(|(v, _)| *v == app.view).unwrap_or(0);
    let n = items.len();
    let next = if forward {
        (pos + 1) % n
    } else {
        (pos + n - 1) % n
    };
    if let Some((v, _)) = items.get(next) {
        match *v {
            View::Tab(id) => show_tab(app, id),
            other => {
                app.view = other;
                app.focus = Focus::Main;
            }
        }
    }
    vec![]
}

/// A restored (or reopened) tab shows its header until its transcript is read: ask for it once.
pub(super) fn load_if_needed(app: &mut App, id: TabId) -> Vec<Effect> {
    let Some(t) = app.tab_mut(id) else {
        return vec![];
    };
    if t.loaded || t.loading {
        return vec![];
    }
    t.loading = true;
    vec![Effect::LoadTranscript {
        tab: id,
        key: t.key.to_string(),
    }]
}
