//! Drafts are never lost to a key: quitting with one waits for a second press of the quit key, closing a tab
//! keeps its draft (in memory for this run, its text in the store for later ones), and reopening the tab —
//! from the store, or from memory when there is no store — puts the draft back. Nor to a kill: what changed is
//! written a second after the first key that changed it, and a box emptied (a message sent) at once, so that a
//! draft already sent does not come back after a crash.

use crate::app::draft::{ClosedDraft, Draft};
use crate::app::ids::TabId;
use crate::app::msg::Effect;
use crate::app::state::{App, Focus, Overlay, PromptKind, View};
use crate::config::keymap::actions::Action;
use crate::config::keymap::keys::format_key;
use crate::store::record::Record;

/// A quit key. With unsent drafts in open tabs the first press only says so (and keeps everything); the
/// next key, if it is a quit key again, quits. The drafts are saved at exit either way.
pub(super) fn quit(app: &mut App) -> Vec<Effect> {
    let held = app.tabs.iter().filter(|t| t.has_draft()).count();
    if held == 0 || app.drafts.quit_armed {
        // An agent just added waits for its short name to be written to the config: quitting from that prompt
        // answers it as it stands, so the agent is not lost.
        let mut fx = match &app.overlay {
            Some(Overlay::Prompt {
                kind:
                    PromptKind::AgentName {
                        agent,
                        adding: true,
                    },
                input,
            }) => {
                let (agent, typed) = (*agent, input.lines().join(" "));
                super::rename::named(app, agent, true, &typed)
            }
            _ => Vec::new(),
        };
        app.quit = true;
        fx.push(Effect::Quit);
        return fx;
    }
    app.drafts.quit_armed = true;
    // Where printable keys type (the box, a prompt) or close a modal, only the chords quit: name those.
    let chords_only = app.focus == Focus::Compose || app.overlay.is_some();
    let keys: Vec<String> = app
        .keymap
        .bindings(Action::Quit)
        .iter()
        .filter(|k| !(chords_only && k.is_plain_char()))
        .map(format_key)
        .collect();
    let keys = if keys.is_empty() {
        "quit".to_string()
    } else {
        keys.join(" or ")
    };
    let what = if held == 1 {
        "a tab holds an unsent draft".to_string()
    } else {
        format!("{held} tabs hold unsent drafts")
    };
    app.set_status(
        format!(
            "draft kept: {what} — press {keys} again to quit (drafts are saved and come back at the next start)"
        ),
        true,
    );
    vec![]
}

/// Close the tab on screen. A draft in it is kept for reopening; the tab's row is written closed (with its
/// draft's text, or none, which forgets an older one), so the next start does not bring it back but Ctrl-T
/// does.
pub(super) fn close_tab(app: &mut App) -> Vec<Effect> {
    let View::Tab(id) = app.view else {
        return vec![];
    };
    let kept = app.tab(id).is_some_and(|t| t.has_draft());
    if kept && let Some(t) = app.tab_mut(id) {
        // Worth a row even if nothing was sent: reopening finds a tab by its row, in this run or a later one.
        t.stored = true;
    }
    let mut fx = Vec::new();
    if let Some(t) = app.tab(id).filter(|t| t.stored)
        && let Some(row) = app.row_of(t, true)
    {
        fx.push(Effect::Record(Record::Tab(Box::new(row))));
        fx.push(Effect::Record(Record::Draft {
            tab: t.key.to_string(),
            text: t.draft_text(),
        }));
    }
    if kept && let Some(t) = app.tab_mut(id) {
        let closed = ClosedDraft {
            key: t.key.to_string(),
            agent: t.agent,
            draft: t.take_draft(),
        };
        app.drafts.keep(closed);
    }
    app.tabs.retain(|t| t.id != id);
    app.view = app
        .tabs
        .last()
        .map(|t| View::Tab(t.id))
        .unwrap_or(View::Card);
    // The tab (or page) that takes its place has command keys live.
    app.focus = Focus::Main;
    if kept {
        let reopen = app.keymap.key_or_name(Action::ReopenTab);
        app.set_status(
            format!("tab closed; its draft is kept: {reopen} reopens the tab with it"),
            false,
        );
    }
    fx
}

/// After a key: the save is scheduled; a box on screen that held a saved draft and is empty now (its message
/// was sent, or its text deleted) is saved at once.
pub(super) fn edited(app: &mut App, now: std::time::Instant) -> Vec<Effect> {
    app.drafts.edited(now);
    let emptied = app
        .active_tab()
        .is_some_and(|t| !t.saved_draft.is_empty() && !t.has_draft());
    if emptied { save_changed(app) } else { vec![] }
}

/// Write every draft that differs from what the store was last given.
pub(super) fn save_changed(app: &mut App) -> Vec<Effect> {
    app.drafts.save_due = None;
    draft_records(app, false)
        .into_iter()
        .map(Effect::Record)
        .collect()
}

/// The records that bring the store's drafts up to date: every tab's (`every`, at quit: a batch the store
/// failed to write may have held one of them) or only those that changed since the store was last given them. A tab that has nothing in the store yet gets its row first when it
/// holds a draft, and is stored from then on, so that closing it records it closed; without a draft it is not
/// worth a row.
pub fn draft_records(app: &mut App, every: bool) -> Vec<Record> {
    let due: Vec<(TabId, String)> = app
        .tabs
        .iter()
        .filter_map(|t| {
            let text = t.draft_text();
            (every || text != t.saved_draft).then_some((t.id, text))
        })
        .collect();
    let mut out = Vec::new();
    for (id, text) in due {
        let Some(t) = app.tab(id) else { continue };
        if !t.stored {
            // Nothing to keep yet (blanks only), or no agent to file the row under.
            let row = t.has_draft().then(|| app.row_of(t, false)).flatten();
            let Some(row) = row else { continue };
            out.push(Record::Tab(Box::new(row)));
        }
        out.push(Record::Draft {
            tab: t.key.to_string(),
            text: text.clone(),
        });
        if let Some(t) = app.tab_mut(id) {
            t.stored = true;
            t.saved_draft = text;
        }
    }
    out
}

/// The draft a reopened tab gets back: this run's (text and files) if it was closed in this run, else the
/// text the store kept.
pub(super) fn for_reopened(app: &mut App, key: &str, stored: Option<String>) -> Option<Draft> {
    app.drafts.take(key).or_else(|| {
        stored
            .filter(|text| !text.trim().is_empty())
            .map(|text| Draft {
                text,
                attachments: Vec::new(),
            })
    })
}

/// Reopening from the store failed (no store, or nothing there): the draft closed last comes back in a new tab
/// on its agent, if there is one; else `why` is said.
pub(super) fn reopen_from_memory(app: &mut App, why: String) -> Vec<Effect> {
    while let Some(closed) = app.drafts.pop() {
        if app.agent(closed.agent).is_none() {
            continue;
        }
        let id = app.new_tab(closed.agent);
        if let Some(t) = app.tab_mut(id) {
            t.restore_draft(closed.draft);
        }
        super::tabs::show_tab(app, id);
        app.set_status(
            format!("{why}; the closed tab's draft is back, in a new tab"),
            false,
        );
        return vec![];
    }
    app.set_status(why, true);
    vec![]
}
