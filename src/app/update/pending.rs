//! Authorization requests waiting for the user. An agent's auth-required never takes the keyboard: while the
//! user types (the compose box, a prompt, the palette, any dialog) it is announced — the tab's title and badge,
//! a transcript line, the status bar, the bell when enabled — and its dialog opens only when the user leaves the
//! text input or presses `A`. Every waiting request stays reachable: `A` goes to the next one in any tab.

use crate::app::ids::TabId;
use crate::app::msg::Effect;
use crate::app::state::{App, Focus, Overlay};
use crate::config::keymap::actions::Action;

/// Can a dialog open now without landing on keys typed for something else? Not while a text input (or any
/// other modal) has the keyboard.
fn keyboard_free(app: &App) -> bool {
    app.overlay.is_none() && app.focus != Focus::Compose
}

/// The first key bound to `a`, for the notes (or its name when unbound).
fn key(app: &App, a: Action) -> String {
    app.keymap.key_or_name(a)
}

/// The agent of `tab` just asked for authorization. Marks the request as waiting and says where it is; the
/// dialog itself is opened by [`surface`] once the keyboard is free. A request it cannot open now sets the
/// tab's attention (its title's `•`, and the bell when enabled).
pub(super) fn announce(app: &mut App, tab: TabId, on_screen: bool) {
    let typing_here = on_screen && app.focus == Focus::Compose && app.overlay.is_none();
    let opens_now = on_screen && keyboard_free(app);
    let (back, review) = (key(app, Action::Back), key(app, Action::Approve));
    let Some(t) = app.tab_mut(tab) else {
        return;
    };
    t.auth_unreviewed = true;
    let agent = t.agent_name.clone();
    if opens_now {
        t.note(
            format!("the agent needs authorization: its dialog is open ({review} reopens it later); nothing is sent without you"),
            false,
        );
        return;
    }
    t.attention = true;
    if typing_here {
        t.note(
            format!(
                "⚠ the agent asks for authorization and waits: finish typing, then {back} leaves the message box and \
                 opens its dialog ({review} from the transcript); your keys never answer it, nothing is sent without you"
            ),
            false,
        );
    } else {
        t.note(
            format!("the agent needs authorization: press {review} to review (approve, deny or later); nothing is sent without you"),
            false,
        );
    }
    app.set_status(
        format!("⚠ {agent} asks for authorization: it waits for you ({back}, then its dialog opens; or {review})"),
        true,
    );
    // The attention just set rings the bell (when enabled) in `stream_item`, on screen or not.
}

/// After every update: once the keyboard is free and the tab on screen has a request the user has not seen,
/// its dialog opens (the key guard then ignores the first keys). Requests whose task moved on are forgotten.
pub(super) fn surface(app: &mut App) {
    for t in app.tabs.iter_mut().filter(|t| t.auth_unreviewed) {
        if t.log.state != a2a::TaskState::AuthRequired {
            t.auth_unreviewed = false;
        }
    }
    if !keyboard_free(app) {
        return;
    }
    let Some(t) = app.active_tab_mut().filter(|t| t.auth_unreviewed) else {
        return;
    };
    t.auth_unreviewed = false;
    t.attention = false;
    let tab = t.id;
    app.overlay = Some(Overlay::Approval { tab, scroll: 0 });
}

/// `A`: review the request of the tab on screen, else the next waiting one in any tab (the ones not yet seen
/// first), switching to its tab.
pub(super) fn review(app: &mut App) -> Vec<Effect> {
    let waits = |t: &crate::app::task::TaskTab| t.log.state == a2a::TaskState::AuthRequired;
    let here = app.active_tab().filter(|t| waits(t)).map(|t| t.id);
    let next = here
        .or_else(|| {
            app.tabs
                .iter()
                .find(|t| waits(t) && t.auth_unreviewed)
                .map(|t| t.id)
        })
        .or_else(|| app.tabs.iter().find(|t| waits(t)).map(|t| t.id));
    let Some(tab) = next else {
        app.set_status("no task is waiting for authorization", true);
        return vec![];
    };
    if here.is_none() {
        super::tabs::show_tab(app, tab);
    }
    if let Some(t) = app.tab_mut(tab) {
        t.auth_unreviewed = false;
        t.attention = false;
    }
    app.focus = Focus::Main;
    app.overlay = Some(Overlay::Approval { tab, scroll: 0 });
    let more = app.tabs.iter().filter(|t| t.id != tab && waits(t)).count();
    if more > 0 {
        app.set_status(
            format!("{more} more task(s) wait for authorization: their tabs are marked •, and A there reviews them"),
            false,
        );
    }
    vec![]
}
