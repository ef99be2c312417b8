//! The yes/no dialogs: canceling a task, stopping a suite run, removing an agent, pinning a card's key,
//! allowing an origin, and deleting a task from the local store. One function per dialog; each acts only on a yes.

use crossterm::event::KeyEvent;

use crate::app::ids::AgentId;
use crate::app::ids::TabId;
use crate::app::msg::Effect;
use crate::app::state::{App, Focus, View};
use crate::config::keymap::actions::{Action, Context};

/// `confirm`'s keys say yes, any other key says no.
fn yes(app: &App, k: &KeyEvent) -> bool {
    app.keymap.modal_action(Context::Dialog, false, k) == Some(Action::Confirm)
}

pub(super) fn cancel(app: &mut App, tab: TabId, k: KeyEvent) -> Vec<Effect> {
    if !yes(app, &k) {
        return vec![];
    }
    let Some(t) = app.tab_mut(tab) else {
        return vec![];
    };
    let Some(task_id) = t.log.task_id.clone() else {
        return vec![];
    };
    t.note("cancel requested", false);
    vec![Effect::Cancel {
        tab,
        agent: t.agent,
        task_id,
    }]
}

/// Stop the suite running on `agent`: the run ends with the cases that ended, and its page opens when it comes
/// (it is what the user is waiting for now).
pub(super) fn stop_suite(app: &mut App, agent: AgentId, k: KeyEvent) -> Vec<Effect> {
    if !yes(app, &k) {
        return vec![];
    }
    let keys = app.keys_pressed;
    let Some(a) = app.agent_mut(agent) else {
        return vec![];
    };
    let crate::app::agent::SuiteState::Running { keys_at_start, .. } = &mut a.suite else {
        return vec![];
    };
    *keys_at_start = keys;
    app.set_status("stopping the suite: the cases that ended are kept", false);
    vec![Effect::StopSuite { agent }]
}

pub(super) fn remove_agent(app: &mut App, agent: AgentId, k: KeyEvent) -> Vec<Effect> {
    if yes(app, &k) {
        super::agents::remove_agent(app, agent)
    } else {
        vec![]
    }
}

pub(super) fn pin_key(
    app: &mut App,
    agent: AgentId,
    thumbprint: String,
    k: KeyEvent,
) -> Vec<Effect> {
    if yes(app, &k) {
        super::agents::pin_key(app, agent, thumbprint)
    } else {
        vec![]
    }
}

pub(super) fn origin(app: &mut App, agent: AgentId, origin: String, k: KeyEvent) -> Vec<Effect> {
    if yes(app, &k) {
        super::origin_consent::allow(app, agent, origin)
    } else {
        app.set_status(
            format!("{origin} not allowed: the agent stays card only"),
            false,
        );
        vec![]
    }
}

pub(super) fn delete(app: &mut App, tab: TabId, k: KeyEvent) -> Vec<Effect> {
    if yes(app, &k) {
        delete_task(app, tab)
    } else {
        vec![]
    }
}

/// Forget a tab's task in the local store and close the tab (the agent keeps the task).
fn delete_task(app: &mut App, tab: TabId) -> Vec<Effect> {
    let Some(key) = app.tab(tab).map(|t| t.key.clone()) else {
        return vec![];
    };
    app.tabs.retain(|t| t.id != tab);
    if app.view == View::Tab(tab) {
        app.view = app
            .tabs
            .last()
            .map(|t| View::Tab(t.id))
            .unwrap_or(View::Board);
        app.focus = Focus::Main;
    }
    app.set_status("deleted the task from the local store", false);
    vec![Effect::Record(crate::store::record::Record::DeleteTab {
        tab: key.to_string(),
    })]
}
