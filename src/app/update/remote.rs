//! Results of remote requests: agent cards loaded, replies, cancels, refreshes, push notifications and
//! configs, and tasks imported with ListTasks.

use chrono::Utc;

use super::stream::{follow_if_running, lay_out_artifacts, reattach_if_ready, register_push};
use crate::app::agent::{AgentInfo, Reachability};
use crate::app::ids::{AgentId, TabId};
use crate::app::msg::Effect;
use crate::app::state::{App, View};
use crate::app::task::Link;
use crate::store::record::Record;
use crate::task::log::{Source, Verdict};

/// An agent's card loaded (or failed to): update its entry and its tabs, keep the card, and re-attach restored
/// tasks whose transcript is in.
pub(super) fn agent_loaded(
    app: &mut App,
    agent: AgentId,
    result: Result<Box<AgentInfo>, String>,
) -> Vec<Effect> {
    let mut fx = Vec::new();
    let mut announce: Option<(String, bool)> = None;
    let not_signed_in = super::sign_in::not_signed_in_reason(app);
    let Some(entry) = app.agent_mut(agent) else {
        return fx;
    };
    let mut result = result;
    // The runtime says only "not signed in"; in the console the way out is a key, not the CLI (a card that
    // offers only the device-code flow comes as `NOT_SIGNED_IN_DEVICE`, and its reason names `login`).
    if let Ok(info) = &mut result
        && let crate::app::agent::Usability::CardOnly { short, reason } = &mut info.usability
        && short == crate::remote::auth::sign_in::NOT_SIGNED_IN
    {
        *reason = not_signed_in;
    }
    if let Ok(info) = &result
        && !info.card.revalidated
    {
        // A card that is not the one seen before: say what changed, and what of it breaks a client.
        if let Some(old) = entry.known_card.as_deref()
            && old != info.card.raw
            && let (Ok(before), Ok(after)) = (
                serde_json::from_str::<serde_json::Value>(old),
                serde_json::from_str::<serde_json::Value>(&info.card.raw),
            )
        {
            let changes = crate::remote::card::diff::diff(&before, &after);
            if !changes.is_empty() {
                let c = crate::app::agent::CardChanges {
                    at: Utc::now(),
                    changes,
                };
                announce = Some((c.line(), c.breaking() > 0));
                entry.card_changes = Some(c);
            }
        }
        entry.known_card = Some(info.card.raw.clone());
        fx.push(Effect::Record(Record::Card {
            agent_url: entry.target.url.clone(),
            card_url: info.card.url.to_string(),
            raw: info.card.raw.clone(),
            etag: info.card.etag.clone(),
        }));
    }
    entry.state = match result {
        Ok(info) => Reachability::Online(info),
        Err(e) => Reachability::Error(e),
    };
    let name = entry.name();
    let ids: Vec<TabId> = app
        .tabs
        .iter_mut()
        .filter(|t| t.agent == agent)
        .map(|t| {
            t.agent_name = name.clone();
            t.id
        })
        .collect();
    if let Some((line, breaking)) = announce {
        app.set_status(
            format!(
                "the card of {name} changed: {} (i: the card, with what changed)",
                line.strip_prefix("card changed · ").unwrap_or(&line)
            ),
            breaking,
        );
    }
    for id in ids {
        fx.extend(reattach_if_ready(app, id));
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
        let event = match result {
            Ok(a2a::SendMessageResponse::Task(task)) => Some(a2a::StreamResponse::Task(task)),
            Ok(a2a::SendMessageResponse::Message(m)) => Some(a2a::StreamResponse::Message(m)),
            Err(e) => {
                t.note(e, true);
                None
            }
        };
        if let Some(ev) = event {
            t.receive(Source::Reply, Box::new(ev), Utc::now());
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
                let canceled = task.status.state == a2a::TaskState::Canceled;
                t.receive(
                    Source::Cancel,
                    Box::new(a2a::StreamResponse::Task(task)),
                    Utc::now(),
                );
                if !canceled {
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
                let v = t.receive(
                    Source::Refresh,
                    Box::new(a2a::StreamResponse::Task(task)),
                    Utc::now(),
                );
                let what = match v {
                    Verdict::Applied { .. } => "refreshed (GetTask)",
                    _ => "refreshed (GetTask): nothing new",
                };
                t.note(what, false);
            }
            Err(e) => t.note(format!("refresh failed: {e}"), true),
        }
    }
    lay_out_artifacts(app, tab)
}

/// A push notification for one of our tasks, from the registration made for `agent`: it goes to that agent's
/// tab for the task and nowhere else, so an agent that reuses another agent's task id reaches only its own tab.
pub(super) fn push(
    app: &mut App,
    agent: AgentId,
    task_id: String,
    event: Box<a2a::StreamResponse>,
) -> Vec<Effect> {
    let Some(t) = app
        .tabs
        .iter_mut()
        .find(|t| t.agent == agent && t.log.task_id.as_deref() == Some(task_id.as_str()))
    else {
        return vec![];
    };
    let id = t.id;
    t.push_received += 1;
    if t.push_received == 1 {
        t.note("receiving push notifications for this task", false);
    }
    // Push and stream may both be live: the task's gate places each chunk and status once, whichever source
    // brings it first, and a push that arrives after the task finished is stale, not news.
    t.receive(Source::Push, event, Utc::now());
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
            Some(("state", v)) => state = Some(crate::task::phase::parse_state(v)?),
            Some(("context", v)) if !v.is_empty() => context = Some(v.to_string()),
            _ => return Err(format!("{word:?}: filters are state=STATE and context=ID")),
        }
    }
    Ok((state, context))
}

/// Tasks an agent listed: open a tab for each one not already open; re-attach to those still running.
pub(super) fn import_tasks(
    app: &mut App,
    agent: AgentId,
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
            .any(|t| t.agent == agent && t.log.task_id.as_deref() == Some(task.id.as_str()));
        if open {
            continue;
        }
        let id = app.new_tab(agent);
        if let Some(t) = app.tab_mut(id) {
            // Imported tasks are kept like any other.
            t.stored = true;
            t.mark_header_dirty();
            t.receive(
                Source::Import,
                Box::new(a2a::StreamResponse::Task(task.clone())),
                Utc::now(),
            );
            // The state's age is the agent's timestamp, not the moment of the import.
            match task.status.timestamp {
                Some(at) => t.state_since = at,
                None => t.state_since_known = false,
            }
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
