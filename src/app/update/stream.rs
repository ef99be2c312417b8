//! A tab's stream: events applied to the task, artifacts laid out as they arrive, push registration,
//! following a task a blocking reply left running, and automatic re-attach.

use chrono::Utc;

use crate::app::ids::TabId;
use crate::app::msg::{Effect, StreamItem};
use crate::app::state::{App, Focus};
use crate::app::task::Link;
use crate::task::log::Source;

/// Lay out what arrived of the tab's artifacts since the last time: markdown (an artifact still arriving up to
/// its unfinished tail) with code blocks queued for highlighting off the UI thread, JSON as a foldable view.
/// An artifact unchanged since then costs nothing.
pub fn lay_out_artifacts(app: &mut App, tab: TabId) -> Vec<Effect> {
    let styles = crate::markup::styles::render_styles(&app.theme);
    let chrome = crate::app::parts::Chrome {
        label: app.theme.remote_label,
        text: app.theme.remote_text,
    };
    let Some(t) = app.tabs.iter_mut().find(|t| t.id == tab) else {
        return vec![];
    };
    let mut effects = Vec::new();
    for (i, (a, log)) in t.artifacts.iter_mut().zip(&t.log.artifacts).enumerate() {
        let key_base = (tab << 40) ^ ((i as u64) << 20);
        effects.extend(crate::app::incremental::advance(
            a,
            &log.artifact.parts,
            &styles,
            chrome,
            key_base,
        ));
    }
    effects
}

/// Once a tab's task id is known and its agent supports push, register the local receiver for it (once).
pub(super) fn register_push(app: &mut App, tab: TabId) -> Vec<Effect> {
    if !app.push_enabled {
        return vec![];
    }
    let Some(t) = app.tabs.iter().find(|t| t.id == tab) else {
        return vec![];
    };
    let supports = app
        .agent(t.agent)
        .and_then(|a| a.callable())
        .is_some_and(|i| i.card.card.capabilities.push_notifications == Some(true));
    if !supports || t.push_requested || t.is_terminal() {
        return vec![];
    }
    let (Some(task_id), agent) = (t.log.task_id.clone(), t.agent) else {
        return vec![];
    };
    let context_id = t.log.context_id.clone();
    if let Some(t) = app.tab_mut(tab) {
        t.push_requested = true;
    }
    vec![Effect::RegisterPush {
        tab,
        agent,
        task_id,
        context_id,
    }]
}

/// After a blocking reply that left the task running, follow it (SubscribeToTask, or polling).
pub(super) fn follow_if_running(app: &mut App, tab: TabId) -> Vec<Effect> {
    let Some(t) = app.tab_mut(tab) else {
        return vec![];
    };
    let running = t.log.phase() == Some(crate::task::phase::Phase::Active);
    match (running, t.log.task_id.clone()) {
        (true, Some(task_id)) => {
            t.generation += 1;
            t.link = Link::Connecting;
            vec![Effect::Subscribe {
                tab,
                generation: t.generation,
                agent: t.agent,
                task_id,
            }]
        }
        _ => vec![],
    }
}

/// Longest pause between automatic re-attach attempts, and how many attempts before giving up.
pub(super) const MAX_REATTACH_DELAY_MS: u64 = 30_000;
pub(super) const MAX_REATTACH_ATTEMPTS: u32 = 6;

/// A restored task that still runs is followed again once both its agent is online and its transcript is
/// loaded (live events must land after the stored ones, never before).
pub(super) fn reattach_if_ready(app: &mut App, tab: TabId) -> Vec<Effect> {
    // A card-only agent cannot be followed: the tab keeps its stored transcript and waits for a refresh.
    let online = app
        .tab(tab)
        .and_then(|t| app.agent(t.agent))
        .is_some_and(|a| a.callable().is_some());
    let Some(t) = app.tab_mut(tab) else {
        return vec![];
    };
    if !online || !t.pending_reattach || !t.loaded || t.gone {
        return vec![];
    }
    let Some(task_id) = t.log.task_id.clone() else {
        return vec![];
    };
    t.pending_reattach = false;
    t.generation += 1;
    t.link = Link::Connecting;
    t.note("re-attaching to the restored task…", false);
    vec![Effect::Subscribe {
        tab,
        generation: t.generation,
        agent: t.agent,
        task_id,
    }]
}

/// The agent does not know the task (-32001): stop following it.
pub(super) fn task_gone(app: &mut App, tab: TabId, generation: u64, why: &str) -> Vec<Effect> {
    if let Some(t) = app.tab_mut(tab).filter(|t| t.generation == generation) {
        t.task_gone(why);
    }
    vec![]
}

pub(super) fn stream_item(
    app: &mut App,
    tab: TabId,
    generation: u64,
    source: Source,
    item: StreamItem,
) -> Vec<Effect> {
    let on_screen = app.active_tab().map(|t| t.id) == Some(tab);
    let bell = app.bell;
    let Some(t) = app.tab_mut(tab) else {
        return vec![];
    };
    if t.generation != generation {
        // A stream from an earlier request on this tab (cancelled or replaced): ignore it.
        return vec![];
    }
    let mut fx = Vec::new();
    let was_attention = t.attention;
    match item {
        StreamItem::Event(ev) => {
            // Anything from the current stream means it is alive (a re-attach that worked is no longer
            // "disconnected", whatever it said before).
            if matches!(t.link, Link::Connecting | Link::Disconnected(_)) {
                t.link = Link::Live;
            }
            t.reattach_attempts = 0;
            let before = t.badge();
            t.receive(source, ev, Utc::now());
            let after = t.badge();
            if before != after && !on_screen && (t.waiting() || t.is_terminal()) {
                t.attention = true;
            }
            // Never opened here: the dialog waits until the keyboard is free (`pending`).
            if before != after && after == crate::app::task::badge::Badge::AuthRequired {
                super::pending::announce(app, tab, on_screen);
            }
            // The agent asked a question. The keyboard stays where the user left it: an event that moved it into
            // the compose box would turn the next command key (`b`, `]`) into answer text. The note and the
            // compose title say how to answer.
            if before != after
                && after == crate::app::task::badge::Badge::InputRequired
                && on_screen
            {
                let keys = app
                    .keymap
                    .keys_for(crate::config::keymap::actions::Action::Compose)
                    .join("/");
                if app.focus != Focus::Compose {
                    app.set_status(
                        format!("the agent is waiting for your answer: {keys} to write it"),
                        false,
                    );
                }
            }
        }
        StreamItem::Error(e) => t.note(e, true),
        StreamItem::End => {
            if t.link != Link::Idle || !t.is_terminal() {
                t.stream_ended(None);
            }
            // A stream that broke while the task runs: re-attach by itself, backing off.
            if matches!(t.link, Link::Disconnected(_))
                && !t.gone
                && t.reattach_attempts < MAX_REATTACH_ATTEMPTS
                && let Some(task_id) = t.log.task_id.clone()
            {
                let delay_ms = (1000u64 << t.reattach_attempts.min(5)).min(MAX_REATTACH_DELAY_MS);
                t.reattach_attempts += 1;
                t.generation += 1;
                t.note(
                    format!(
                        "re-attaching in {} s (attempt {})",
                        delay_ms / 1000,
                        t.reattach_attempts
                    ),
                    false,
                );
                fx.push(Effect::Resubscribe {
                    tab,
                    generation: t.generation,
                    agent: t.agent,
                    task_id,
                    delay_ms,
                });
            }
            if !on_screen && (t.waiting() || t.is_terminal()) {
                t.attention = true;
            }
        }
    }
    let now_attention = app.tab(tab).is_some_and(|t| t.attention);
    if bell && now_attention && !was_attention {
        fx.push(Effect::Bell);
    }
    fx
}
