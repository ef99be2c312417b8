//! Results of remote requests: agent cards loaded, replies, cancels, refreshes, push notifications and
//! configs, and tasks imported with ListTasks.

use super::stream::{follow_if_running, lay_out_artifacts, register_push};
use crate::app::msg::Effect;
use crate::app::state::{AgentInfo, App, Reachability, View};
use crate::app::task::{Link, TabId};

/// An agent's card loaded (or failed to): update its entry and its tabs, and re-attach restored tasks.
pub(super) fn agent_loaded(
    app: &mut App,
    agent: usize,
    result: Result<Box<AgentInfo>, String>,
) -> Vec<Effect> {
    let mut fx = Vec::new();
    if let Some(entry) = app.agents.get_mut(agent) {
        let online = result.is_ok();
        entry.state = match result {
            Ok(info) => Reachability::Online(info),
            Err(e) => Reachability::Error(e),
        };
        let name = entry.name();
        for t in app.tabs.iter_mut().filter(|t| t.agent == agent) {
            t.agent_name = name.clone();
            // Tasks restored from the store that were still running: follow them again.
            if online
                && t.pending_reattach
                && let Some(task_id) = t.tracker.task_id.clone()
            {
                t.pending_reattach = false;
                t.generation += 1;
                t.link = Link::Connecting;
                t.note("re-attaching to the restored task…", false);
                fx.push(Effect::Subscribe {
                    tab: t.id,
                    generation: t.generation,
                    agent,
                    task_id,
                });
            }
        }
    }
    fx
}

/// The reply to a blocking SendMessage.
pub(super) fn reply(
    app: &mut App,
    tab: TabId,
    generation: u64,
    result: Result<a2a::SendMessageResponse, String>,
) -> Vec<Effect> {
    let on_screen = app.active_tab().map(|t| t.id) == Some(tab);
    if let Some(t) = app.tab_mut(tab).filter(|t| t.generation == generation) {
        match result {
            Ok(a2a::SendMessageResponse::Task(task)) => t.apply_task(&task),
            Ok(a2a::SendMessageResponse::Message(m)) => {
                t.apply_event(&a2a::StreamResponse::Message(m))
            }
            Err(e) => t.note(e, true),
        }
        t.link = Link::Idle;
        t.attention = !on_screen;
    }
    let mut fx = lay_out_artifacts(app, tab);
    fx.extend(follow_if_running(app, tab));
    fx.extend(register_push(app, tab));
    fx
}

/// The answer to CancelTask.
pub(super) fn canceled(
    app: &mut App,
    tab: TabId,
    result: Result<a2a::Task, String>,
) -> Vec<Effect> {
    if let Some(t) = app.tab_mut(tab) {
        match result {
            Ok(task) => {
                t.apply_task(&task);
                if task.status.state != a2a::TaskState::Canceled {
                    let state = t.state_label();
                    t.note(
                        format!("the agent did not cancel the task; it is {state}"),
                        true,
                    );
                }
            }
            Err(e) => t.note(format!("cancel failed: {e}"), true),
        }
    }
    vec![]
}

/// A task's state from GetTask on demand.
pub(super) fn refreshed(
    app: &mut App,
    tab: TabId,
    result: Result<a2a::Task, String>,
) -> Vec<Effect> {
    if let Some(t) = app.tab_mut(tab) {
        match result {
            Ok(task) => {
                t.apply_task(&task);
                t.note("refreshed (GetTask)", false);
            }
            Err(e) => t.note(format!("refresh failed: {e}"), true),
        }
    }
    lay_out_artifacts(app, tab)
}

/// A push notification for one of our tasks.
pub(super) fn push(app: &mut App, task_id: String, event: Box<a2a::StreamResponse>) -> Vec<Effect> {
    let Some(t) = app
        .tabs
        .iter_mut()
        .find(|t| t.tracker.task_id.as_deref() == Some(task_id.as_str()))
    else {
        return vec![];
    };
    let id = t.id;
    t.push_received += 1;
    if t.push_received == 1 {
        t.note("receiving push notifications for this task", false);
    }
    // While a stream is live it already delivers the same events; applying both would append artifact
    // chunks twice. Pushes take over when there is no stream (closed, broken, or never opened).
    if t.link != Link::Live {
        t.apply_event(&event);
    }
    lay_out_artifacts(app, id)
}

/// The answer to registering, listing or deleting a tab's push configs.
pub(super) fn push_configs(
    app: &mut App,
    tab: TabId,
    result: Result<Vec<a2a::TaskPushNotificationConfig>, String>,
    what: &'static str,
) -> Vec<Effect> {
    if let Some(t) = app.tab_mut(tab) {
        match result {
            Ok(configs) => {
                if what == "registered" {
                    t.push_ids
                        .extend(configs.iter().filter_map(|c| c.id.clone()));
                }
                if what == "deleted" {
                    t.push_ids.clear();
                }
                let list: Vec<String> = configs
                    .iter()
                    .map(|c| {
                        let (url, _) = crate::trust::sanitize::sanitize_line(&c.url);
                        let id =
                            c.id.as_deref()
                                .map(|i| crate::trust::sanitize::sanitize_line(i).0)
                                .unwrap_or_else(|| "(no id)".into());
                        format!("{id} → {url}")
                    })
                    .collect();
                t.note(
                    format!(
                        "push configs {what}: {}",
                        if list.is_empty() {
                            "none".into()
                        } else {
                            list.join("; ")
                        }
                    ),
                    false,
                );
            }
            Err(e) => t.note(format!("push configs: {e}"), true),
        }
    }
    vec![]
}

/// `state=working context=abc` (either, both, or nothing for all tasks).
pub fn parse_import_filter(s: &str) -> Result<(Option<a2a::TaskState>, Option<String>), String> {
    let (mut state, mut context) = (None, None);
    for word in s.split_whitespace() {
        match word.split_once('=') {
            Some(("state", v)) => {
                state = Some(crate::remote::tracker::parse_state(v).map_err(|e| e.message)?)
            }
            Some(("context", v)) if !v.is_empty() => context = Some(v.to_string()),
            _ => return Err(format!("{word:?}: filters are state=STATE and context=ID")),
        }
    }
    Ok((state, context))
}

/// Tasks an agent listed: open a tab for each one not already open; re-attach to those still running.
pub(super) fn import_tasks(
    app: &mut App,
    agent: usize,
    result: Result<Vec<a2a::Task>, String>,
) -> Vec<Effect> {
    let tasks = match result {
        Ok(t) => t,
        Err(e) => {
            app.set_status(format!("import failed: {e}"), true);
            return vec![];
        }
    };
    let mut fx = Vec::new();
    let mut added = 0;
    for task in tasks {
        let open = app
            .tabs
            .iter()
            .any(|t| t.agent == agent && t.tracker.task_id.as_deref() == Some(task.id.as_str()));
        if open {
            continue;
        }
        let id = app.new_tab(agent);
        if let Some(t) = app.tab_mut(id) {
            t.apply_task(&task);
            t.note("imported with ListTasks", false);
            if !t.is_terminal() && !t.waiting() {
                t.generation += 1;
                t.link = Link::Connecting;
                fx.push(Effect::Subscribe {
                    tab: id,
                    generation: t.generation,
                    agent,
                    task_id: task.id.clone(),
                });
            }
        }
        fx.extend(lay_out_artifacts(app, id));
        added += 1;
    }
    app.set_status(format!("imported {added} task(s)"), false);
    if added > 0 {
        app.view = View::Board;
    }
    fx
}
