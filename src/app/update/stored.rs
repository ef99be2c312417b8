//! What comes back from the store: a restored tab's transcript (replayed through the task's gate, exactly as
//! it arrived, without recording it again), the writer's health, and closed tabs to reopen.

use super::stream::{lay_out_artifacts, reattach_if_ready};
use crate::app::ids::TabId;
use crate::app::msg::{Effect, StoredItem};
use crate::app::state::App;
use crate::store::writer::WriterStatus;
use crate::task::log::Source;

/// Part of a stored transcript: replay it. On the last part the tab is live again (and re-attached if its task
/// still runs).
pub(super) fn transcript_loaded(
    app: &mut App,
    tab: TabId,
    items: Vec<StoredItem>,
    done: bool,
) -> Vec<Effect> {
    let Some(t) = app.tab_mut(tab) else {
        return vec![];
    };
    if t.loaded {
        // Loaded already (a second request crossed the first): nothing to add.
        return vec![];
    }
    t.set_replaying(true);
    t.restored_rows += items.len();
    let mut generation = t.generation;
    for item in items {
        match item {
            StoredItem::User {
                text,
                message_id,
                at,
            } => {
                // The same rule as sending: after a finished task (or a direct reply) a message starts a new
                // task in the same conversation.
                if t.is_terminal() || t.log.direct_reply.is_some() {
                    t.begin_new_task();
                }
                t.user_at(&text, vec![], &message_id, at)
            }
            StoredItem::Note { text, error, at } => t.note_at(text, error, at),
            StoredItem::Event { source, event, at } => {
                if let Source::Stream(g) = source {
                    generation = generation.max(g);
                }
                t.receive(source, event, at);
            }
        }
    }
    t.set_replaying(false);
    // Streams of this run must not be mistaken for the stored ones.
    t.generation = generation;
    if !done {
        return vec![];
    }
    t.loaded = true;
    let rows = t.restored_rows;
    t.note_unrecorded(
        format!("restored from the local store ({rows} row(s))"),
        false,
    );
    // Every source it had is gone with the last run: what comes next is placed afresh.
    t.log.forget_sources();
    t.link = crate::app::task::Link::Idle;
    t.scroll = None;
    let mut fx = lay_out_artifacts(app, tab);
    fx.extend(reattach_if_ready(app, tab));
    fx
}

/// The store failed, or recovered: say so in the status bar, and once in each tab that lost something.
pub(super) fn store_status(app: &mut App, status: WriterStatus) -> Vec<Effect> {
    match &status.failure {
        Some(why) => {
            app.set_status(
                format!(
                    "⚠ the local store is failing — {} record(s) not saved, working in memory: {why}",
                    status.lost
                ),
                true,
            );
            for key in &status.lost_tabs {
                if let Some(t) = app.tabs.iter_mut().find(|t| *t.key == **key)
                    && !t.store_warned
                {
                    t.store_warned = true;
                    t.note_unrecorded(
                        format!("⚠ not saved to the local store ({why}); what is shown here is kept in memory only"),
                        true,
                    );
                }
            }
        }
        None => {
            for t in app.tabs.iter_mut() {
                t.store_warned = false;
            }
            app.set_status(
                format!(
                    "the local store is writable again; {} record(s) could not be saved while it failed",
                    status.lost
                ),
                false,
            );
        }
    }
    vec![]
}

/// Closed tabs from the store: reopen the most recently closed one, with the draft it held. Without a store
/// (or with nothing in it), the draft closed last in this run comes back in a new tab.
pub(super) fn closed_tabs(
    app: &mut App,
    result: Result<Vec<crate::store::StoredTab>, String>,
) -> Vec<Effect> {
    let tabs = match result {
        Ok(t) => t,
        Err(e) => return super::drafts::reopen_from_memory(app, e),
    };
    let Some(st) = tabs
        .into_iter()
        .find(|st| !app.tabs.iter().any(|t| *t.key == *st.row.tab))
    else {
        return super::drafts::reopen_from_memory(app, "no closed tab to reopen".into());
    };
    let Some(id) = app.open_stored_tab(&st.row, st.has_events) else {
        app.set_status(
            "the closed tab's agent is no longer configured; it stays in the store",
            true,
        );
        return vec![];
    };
    let draft = super::drafts::for_reopened(app, &st.row.tab, st.draft);
    let with_draft = draft.is_some();
    if let Some(t) = app.tab_mut(id) {
        // Reopened: recorded as open again.
        t.mark_header_dirty();
        if let Some(d) = draft {
            // What the store kept at close: no need to write it again.
            t.saved_draft = d.text.clone();
            t.restore_draft(d);
        }
    }
    super::tabs::show_tab(app, id);
    app.set_status(
        if with_draft {
            "reopened the last closed tab, with its draft"
        } else {
            "reopened the last closed tab"
        },
        false,
    );
    super::tabs::load_if_needed(app, id)
}
