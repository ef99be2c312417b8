//! `update(&mut App, Msg) -> Vec<Effect>`: every change to the console's state happens here, with no I/O, so
//! each flow is a plain unit test.

mod actions;
mod agents;
mod approval;
mod audit;
mod board;
mod card_only;
mod check;
mod compose;
mod confirm;
mod demo;
mod device_code;
mod drafts;
mod edit;
mod mouse;
mod nav;
mod origin_consent;
mod overlay;
mod palette;
mod pending;
mod prompt;
mod remote;
mod rename;
mod save;
mod sign_in;
mod stored;
mod stream;
mod suite;
mod tabs;
mod tasks;
mod transcript;
mod viewer;
mod views;

use crossterm::event::{Event, KeyEvent, KeyEventKind};

use crate::app::msg::{Effect, Msg};
use crate::app::state::{App, Focus, View};
// The update tests name the modals through `super::*`; the modals' code left this file for their own.
#[cfg(test)]
use crate::app::state::Overlay;
use crate::config::keymap::actions::Context;
use compose::{compose_key, paste};
use mouse::mouse;
use overlay::overlay_key;
use remote::import_tasks;
use stream::{register_push, stream_item};

pub use actions::run_action;
pub use approval::APPROVAL_PAGE;
pub use compose::send;
pub use drafts::draft_records;
pub use remote::parse_import_filter;
pub use stream::lay_out_artifacts;
pub use tabs::open_tab;
pub use transcript::{OSC52_LIMIT, code_blocks, task_json};

pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    // Agents come and go, and their cards load, on these; a stream's events (thousands) never change them.
    let agents_may_change = !matches!(
        msg,
        Msg::Stream { .. }
            | Msg::Push { .. }
            | Msg::Tick
            | Msg::Highlighted(_)
            | Msg::StatusDue(_)
            | Msg::KeyGuardDue(_)
            | Msg::DraftsDue
    );
    let typed = matches!(msg, Msg::Input(_));
    let mut fx = dispatch(app, msg);
    if typed {
        fx.extend(drafts::edited(app, std::time::Instant::now()));
    }
    if agents_may_change {
        app.refresh_lookalikes();
    }
    // A waiting authorization request opens once the keyboard is free; a guarded dialog that just opened
    // starts its key guard.
    pending::surface(app);
    app.sync_key_guard();
    app.refresh_short_ids();
    note_scroll_away(app);
    transcript::follow_searches(app);
    // A restored tab on screen shows its header until its transcript is read: ask for it (once).
    if let Some(id) = app
        .active_tab()
        .filter(|t| !t.loaded && !t.loading)
        .map(|t| t.id)
    {
        fx.extend(tabs::load_if_needed(app, id));
    }
    card_only::hold_calls_to_card_only_agents(app, fx)
}

/// Transcripts the console needs at start: the tabs whose tasks must be followed again (their live events must
/// land after the stored ones). Others load when opened.
pub fn start_loads(app: &mut App) -> Vec<Effect> {
    let ids: Vec<_> = app
        .tabs
        .iter()
        .filter(|t| t.pending_reattach && !t.loaded)
        .map(|t| t.id)
        .collect();
    ids.into_iter()
        .flat_map(|id| tabs::load_if_needed(app, id))
        .collect()
}

fn dispatch(app: &mut App, msg: Msg) -> Vec<Effect> {
    match msg {
        Msg::Input(ev) => input(app, ev),
        // The agents' answers.
        Msg::AgentLoaded { agent, result } => {
            let fx = remote::agent_loaded(app, agent, result);
            rename::offer_card_name(app, agent);
            fx
        }
        Msg::Stream {
            tab,
            generation,
            source,
            item,
        } => {
            let mut fx = stream_item(app, tab, generation, source, item);
            fx.extend(lay_out_artifacts(app, tab));
            fx.extend(register_push(app, tab));
            fx
        }
        Msg::Push {
            agent,
            task_id,
            event,
        } => remote::push(app, agent, task_id, event),
        Msg::PushConfigs { tab, result, what } => remote::push_configs(app, tab, result, what),
        Msg::Imported { agent, result } => import_tasks(app, agent, result),
        Msg::Refreshed { tab, result } => remote::refreshed(app, tab, result.map(|t| *t)),
        Msg::Reply {
            tab,
            generation,
            result,
        } => remote::reply(app, tab, generation, result.map(|r| *r)),
        Msg::Canceled { tab, result } => remote::canceled(app, tab, result.map(|t| *t)),
        Msg::TaskGone {
            tab,
            generation,
            why,
        } => stream::task_gone(app, tab, generation, &why),
        // Sign-ins.
        Msg::DeviceCode { tab, result } => device_code::code(app, tab, result),
        Msg::OAuthDone {
            owner,
            result,
            source,
        } => sign_in::done(app, owner, result, source),
        Msg::CodeFlowStarted { owner, result } => sign_in::started(app, owner, result),
        Msg::SignInAudited(e) => vec![sign_in_audited(*e)],
        // The runtime's answers from the store, the files and the config.
        Msg::AuditLoaded(result) => audit::loaded(app, result),
        Msg::CheckProgress {
            agent,
            sent,
            budget,
        } => check::progress(app, agent, sent, budget),
        Msg::CheckDone { agent, result } => check::done(app, agent, result),
        Msg::SuiteProgress {
            agent,
            done,
            total,
            failed,
        } => suite::progress(app, agent, done, total, failed),
        Msg::SuiteDone { agent, result } => suite::done(app, agent, result),
        Msg::CheckVerdicts(v) => check::verdicts(app, v),
        Msg::RawEventsLoaded { at, result } => {
            transcript::raw_events_loaded(app, at, result);
            vec![]
        }
        Msg::TranscriptLoaded { tab, items, done } => {
            let fx = stored::transcript_loaded(app, tab, items, done);
            if done {
                board::compare_when_loaded(app);
            }
            fx
        }
        Msg::StoreStatus(status) => stored::store_status(app, status),
        Msg::ClosedTabs(result) => stored::closed_tabs(app, result),
        Msg::AgentRenamed {
            agent,
            label,
            result,
        } => rename::saved(app, agent, label, result),
        Msg::SaveDone { path, result } => save::done(app, path, result),
        Msg::ConfigSaved(r) | Msg::Saved(r) => {
            match r {
                Ok(m) => app.set_status(m, false),
                Err(e) => app.set_status(e, true),
            }
            vec![]
        }
        Msg::AttachmentChecked { tab, path, result } => attachment_checked(app, tab, path, result),
        Msg::DemoStarted(result) => demo::demo_started(app, result.map(|d| *d)),
        // Syntax colours are no theme's colours: under NO_COLOR the block keeps its monochrome plain lines.
        Msg::Highlighted(_) if app.theme.no_color => vec![],
        Msg::Highlighted(done) => highlighted(app, &done),
        // Time passing.
        Msg::Tick => {
            app.spinner = app.spinner.wrapping_add(1);
            app.now = chrono::Utc::now();
            vec![]
        }
        Msg::StatusDue(now) => {
            app.expire_status(now);
            vec![]
        }
        Msg::KeyGuardDue(now) => {
            app.key_guard_due(now);
            vec![]
        }
        Msg::DraftsDue => drafts::save_changed(app),
        Msg::Stop => {
            app.quit = true;
            vec![Effect::Quit]
        }
    }
}

fn input(app: &mut App, ev: Event) -> Vec<Effect> {
    match ev {
        Event::Key(k) if k.kind != KeyEventKind::Release => {
            app.keys_pressed = app.keys_pressed.wrapping_add(1);
            key(app, k)
        }
        Event::Mouse(m) => mouse(app, m),
        Event::Resize(w, h) => {
            app.size = (w, h);
            vec![]
        }
        Event::Paste(text) => {
            // A paste into a dialog that has just opened was meant for what was there before.
            if app.key_passes_guard(std::time::Instant::now()) {
                paste(app, &text);
            }
            vec![]
        }
        _ => vec![],
    }
}

/// A sign-in's audit event, kept through this console's store writer like every other record.
fn sign_in_audited(e: crate::remote::auth::token_store::SignInEvent) -> Effect {
    Effect::Record(crate::store::record::Record::Audit(Box::new(
        crate::store::AuditEntry::decision(e.agent, e.what, e.detail, e.at),
    )))
}

/// The size of a file just attached (or why it cannot be read), for the attachment still waiting for it.
fn attachment_checked(
    app: &mut App,
    tab: crate::app::ids::TabId,
    path: std::path::PathBuf,
    result: Result<u64, String>,
) -> Vec<Effect> {
    let a = app.tab_mut(tab).and_then(|t| {
        t.attachments
            .iter_mut()
            .find(|a| a.path == path && a.size.is_none())
    });
    if let Some(a) = a {
        a.size = Some(result);
    }
    vec![]
}

/// A code block came back highlighted: every rendered block with its key takes the coloured lines.
fn highlighted(app: &mut App, done: &crate::markup::highlight::HighlightDone) -> Vec<Effect> {
    for t in app.tabs.iter_mut() {
        for a in t.artifacts.iter_mut() {
            for b in a.rendered.iter_mut().flatten() {
                if b.key == Some(done.key) {
                    b.lines = done.lines.clone();
                }
            }
        }
    }
    vec![]
}

/// A tab the user scrolled away from the end remembers how long its transcript was then, so the follow
/// indicator can count what arrived below; following again forgets it.
fn note_scroll_away(app: &mut App) {
    for t in app.tabs.iter_mut() {
        match (t.scroll, t.seen_lines) {
            (None, Some(_)) => t.seen_lines = None,
            (Some(_), None) => t.seen_lines = Some(t.total_lines()),
            _ => {}
        }
    }
}

fn context(app: &App) -> Context {
    match (app.focus, app.view) {
        (Focus::Compose, _) => Context::Compose,
        (Focus::Main, View::Tab(_)) => Context::TaskTab,
        _ => Context::AgentList,
    }
}

fn key(app: &mut App, k: KeyEvent) -> Vec<Effect> {
    // A quit held back by a draft waits for the very next key: any other key starts over.
    let armed = app.drafts.quit_armed;
    let fx = key_action(app, k);
    if armed {
        app.drafts.quit_armed = false;
    }
    fx
}

fn key_action(app: &mut App, k: KeyEvent) -> Vec<Effect> {
    app.status_key_pressed();
    if app.overlay.is_some() {
        return overlay_key(app, k);
    }
    let ctx = context(app);
    let action = app.keymap.action(ctx, &k);
    if ctx == Context::Compose {
        return compose_key(app, k, action);
    }
    match action {
        Some(a) => run_action(app, a),
        None => vec![],
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_approval_details;
#[cfg(test)]
mod tests_card_only;
#[cfg(test)]
mod tests_compose;
#[cfg(test)]
mod tests_gate;
#[cfg(test)]
mod tests_names;
#[cfg(test)]
mod tests_nav;
#[cfg(test)]
mod tests_parts;
#[cfg(test)]
mod tests_pending;
#[cfg(test)]
mod tests_save;
#[cfg(test)]
mod tests_scroll;
#[cfg(test)]
mod tests_sign_in;
#[cfg(test)]
mod tests_streamed;
#[cfg(test)]
mod tests_tabs;
#[cfg(test)]
mod tests_transcript;
