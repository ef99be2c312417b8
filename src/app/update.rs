//! `update(&mut App, Msg) -> Vec<Effect>`: every change to the console's state happens here, with no I/O, so
//! each flow is a plain unit test.

use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEvent, MouseEventKind,
};
use ratatui::layout::{Position, Rect};
use ratatui_textarea::TextArea;

use super::msg::{ApprovalCredential, Effect, Msg, StreamItem};
use super::state::{AgentOrigin, App, Focus, Overlay, PromptKind, Reachability, View};
use super::task::{Link, TabId};
use crate::app::layout;
use crate::config::keymap::{Action, Context, palette_matches};
use crate::remote::agent::AgentTarget;

pub fn update(app: &mut App, msg: Msg) -> Vec<Effect> {
    match msg {
        Msg::Input(Event::Key(k)) if k.kind != KeyEventKind::Release => key(app, k),
        Msg::Input(Event::Mouse(m)) => mouse(app, m),
        Msg::Input(Event::Resize(w, h)) => {
            app.size = (w, h);
            vec![]
        }
        Msg::Input(Event::Paste(text)) => {
            paste(app, &text);
            vec![]
        }
        Msg::Input(_) => vec![],
        Msg::AgentLoaded { agent, result } => {
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
        Msg::Stream {
            tab,
            generation,
            item,
        } => {
            let mut fx = stream_item(app, tab, generation, item);
            fx.extend(lay_out_artifacts(app, tab));
            fx.extend(register_push(app, tab));
            fx
        }
        Msg::Push { task_id, event } => {
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
        Msg::PushConfigs { tab, result, what } => {
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
        Msg::Imported { agent, result } => import_tasks(app, agent, result),
        Msg::DeviceCode { tab, result } => {
            match result {
                Ok((user_code, verification_uri)) => {
                    if matches!(app.overlay, Some(Overlay::DeviceCode { tab: t, .. }) if t == tab) {
                        app.overlay = Some(Overlay::DeviceCode {
                            tab,
                            user_code,
                            verification_uri,
                        });
                    }
                }
                Err(e) => {
                    app.overlay = None;
                    if let Some(t) = app.tab_mut(tab) {
                        t.note(format!("sign-in failed: {e}"), true);
                    }
                }
            }
            vec![]
        }
        Msg::OAuthDone { tab, result } => {
            if matches!(app.overlay, Some(Overlay::DeviceCode { tab: t, .. }) if t == tab) {
                app.overlay = None;
            }
            match result {
                Ok(token) => approve(
                    app,
                    tab,
                    ApprovalCredential::Pasted(token),
                    "OAuth device-flow token",
                ),
                Err(e) => {
                    if let Some(t) = app.tab_mut(tab) {
                        t.note(format!("sign-in failed: {e}"), true);
                    }
                    vec![]
                }
            }
        }
        Msg::AuditLoaded(result) => {
            match result {
                Ok(lines) => {
                    let scroll = lines.len().saturating_sub(1);
                    app.overlay = Some(Overlay::Audit { lines, scroll });
                }
                Err(e) => app.set_status(e, true),
            }
            vec![]
        }
        Msg::Refreshed { tab, result } => {
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
        Msg::Reply {
            tab,
            generation,
            result,
        } => {
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
        Msg::Canceled { tab, result } => {
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
        Msg::ConfigSaved(r) | Msg::Saved(r) => {
            match r {
                Ok(m) => app.set_status(m, false),
                Err(e) => app.set_status(e, true),
            }
            vec![]
        }
        Msg::Highlighted(done) => {
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
        Msg::Tick => {
            app.spinner = app.spinner.wrapping_add(1);
            vec![]
        }
    }
}

/// Largest artifact laid out as markdown; bigger ones stay plain text, drawn a screenful at a time.
const MAX_LAYOUT_BYTES: usize = 1024 * 1024;

/// Lay out artifacts that just completed: markdown with code blocks queued for highlighting off the UI
/// thread, JSON as a foldable view.
pub fn lay_out_artifacts(app: &mut App, tab: TabId) -> Vec<Effect> {
    let styles = crate::markup::styles::render_styles(&app.theme);
    let Some(t) = app.tabs.iter_mut().find(|t| t.id == tab) else {
        return vec![];
    };
    let mut effects = Vec::new();
    for (i, a) in t.artifacts.iter_mut().enumerate() {
        if !a.complete || a.rendered.is_some() || a.text.len() > MAX_LAYOUT_BYTES {
            continue;
        }
        if let Some(json) = &a.json {
            a.rendered = Some(vec![super::task::RenderedBlock {
                key: None,
                lines: json.lines(&styles),
            }]);
            continue;
        }
        if a.kind != super::task::ArtifactKind::Text {
            continue;
        }
        let mut blocks = Vec::new();
        for (b, block) in crate::markup::markdown::parse(&a.text, &styles)
            .into_iter()
            .enumerate()
        {
            match block {
                crate::markup::markdown::Block::Lines(lines) => {
                    blocks.push(super::task::RenderedBlock { key: None, lines })
                }
                crate::markup::markdown::Block::Code { lang, code } => {
                    let key = (tab << 40) ^ ((i as u64) << 20) ^ b as u64;
                    blocks.push(super::task::RenderedBlock {
                        key: Some(key),
                        lines: crate::markup::markdown::render_plain_code(&code, &styles),
                    });
                    effects.push(Effect::Highlight { key, lang, code });
                }
            }
        }
        a.rendered = Some(blocks);
    }
    effects
}

/// Once a tab's task id is known and its agent supports push, register the local receiver for it (once).
fn register_push(app: &mut App, tab: TabId) -> Vec<Effect> {
    if !app.push_enabled {
        return vec![];
    }
    let Some(t) = app.tabs.iter().find(|t| t.id == tab) else {
        return vec![];
    };
    let supports = app
        .agents
        .get(t.agent)
        .and_then(|a| a.info())
        .is_some_and(|i| i.card.card.capabilities.push_notifications == Some(true));
    if !supports || t.push_requested || t.is_terminal() {
        return vec![];
    }
    let (Some(task_id), agent) = (t.tracker.task_id.clone(), t.agent) else {
        return vec![];
    };
    if let Some(t) = app.tab_mut(tab) {
        t.push_requested = true;
    }
    vec![Effect::RegisterPush {
        tab,
        agent,
        task_id,
    }]
}

/// After a blocking reply that left the task running, follow it (SubscribeToTask, or polling).
fn follow_if_running(app: &mut App, tab: TabId) -> Vec<Effect> {
    let Some(t) = app.tab_mut(tab) else {
        return vec![];
    };
    let running = t.tracker.phase() == Some(crate::remote::tracker::Phase::Active);
    match (running, t.tracker.task_id.clone()) {
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
const MAX_REATTACH_DELAY_MS: u64 = 30_000;
const MAX_REATTACH_ATTEMPTS: u32 = 6;

fn stream_item(app: &mut App, tab: TabId, generation: u64, item: StreamItem) -> Vec<Effect> {
    let on_screen = app.active_tab().map(|t| t.id) == Some(tab);
    let overlay_free = app.overlay.is_none();
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
            if t.link == Link::Connecting {
                t.link = Link::Live;
            }
            let before = t.badge();
            t.apply_event(&ev);
            let after = t.badge();
            if before != after && !on_screen && (t.waiting() || t.is_terminal()) {
                t.attention = true;
            }
            if before != after && after == super::task::Badge::AuthRequired {
                t.note("the agent needs authorization: press A to review (approve, deny or later); nothing is sent without you", false);
                if on_screen && overlay_free {
                    app.overlay = Some(Overlay::Approval { tab });
                }
            }
            // The agent asked a question: put the cursor where the answer goes.
            if before != after
                && after == super::task::Badge::InputRequired
                && on_screen
                && overlay_free
            {
                app.focus = Focus::Compose;
            }
        }
        StreamItem::Error(e) => t.note(e, true),
        StreamItem::End => {
            if t.link != Link::Idle || !t.is_terminal() {
                t.stream_ended(None);
            }
            // A stream that broke while the task runs: re-attach by itself, backing off.
            if matches!(t.link, Link::Disconnected(_))
                && t.reattach_attempts < MAX_REATTACH_ATTEMPTS
                && let Some(task_id) = t.tracker.task_id.clone()
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
fn import_tasks(
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

fn context(app: &App) -> Context {
    match (app.focus, app.view) {
        (Focus::Compose, _) => Context::Compose,
        (Focus::Main, View::Tab(_)) => Context::TaskTab,
        _ => Context::AgentList,
    }
}

fn key(app: &mut App, k: KeyEvent) -> Vec<Effect> {
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

/// Run a named action (from a key or the command palette).
pub fn run_action(app: &mut App, a: Action) -> Vec<Effect> {
    match a {
        Action::Quit => {
            app.quit = true;
            vec![Effect::Quit]
        }
        Action::Help => {
            app.overlay = Some(Overlay::Help { scroll: 0 });
            vec![]
        }
        Action::Palette => {
            app.overlay = Some(Overlay::Palette {
                query: String::new(),
                selected: 0,
            });
            vec![]
        }
        Action::Board => {
            app.view = View::Board;
            app.focus = Focus::Main;
            vec![]
        }
        Action::Split => {
            app.view = View::Split;
            app.focus = Focus::Main;
            vec![]
        }
        Action::ImportTasks => match app.selected() {
            Some(a) if a.info().is_some() => {
                app.overlay = Some(Overlay::Prompt {
                    kind: PromptKind::ImportFilter(app.selected_agent),
                    input: Box::default(),
                });
                vec![]
            }
            _ => {
                app.set_status("the agent's card has not loaded", true);
                vec![]
            }
        },
        Action::BoardSearch => {
            app.view = View::Board;
            app.overlay = Some(Overlay::Prompt {
                kind: PromptKind::BoardSearch,
                input: Box::new(TextArea::from(vec![app.board.query.clone()])),
            });
            vec![]
        }
        Action::BoardFilterAgent => {
            let options: Vec<usize> = (0..app.agents.len()).collect();
            app.board.agent_filter = super::board::cycle(app.board.agent_filter, &options);
            app.board.selected = 0;
            app.view = View::Board;
            vec![]
        }
        Action::BoardFilterState => {
            use super::task::Badge;
            let options = [
                Badge::AuthRequired,
                Badge::InputRequired,
                Badge::Working,
                Badge::Disconnected,
                Badge::Completed,
                Badge::Failed,
                Badge::Canceled,
                Badge::Rejected,
            ];
            app.board.state_filter = super::board::cycle(app.board.state_filter, &options);
            app.board.selected = 0;
            app.view = View::Board;
            vec![]
        }
        Action::RefreshTask => match app.active_tab() {
            Some(t) if t.tracker.task_id.is_some() => vec![Effect::RefreshTask {
                tab: t.id,
                agent: t.agent,
                task_id: t.tracker.task_id.clone().unwrap_or_default(),
            }],
            _ => vec![],
        },
        Action::AuditLog => vec![Effect::LoadAudit],
        Action::ExportTask => {
            match app.active_tab() {
                Some(t) if t.tracker.task_id.is_some() => {
                    let name = format!("task-{}.md", t.short_task().unwrap_or_default());
                    let mut input = TextArea::from(vec![name]);
                    input.move_cursor(ratatui_textarea::CursorMove::End);
                    app.overlay = Some(Overlay::Prompt {
                        kind: PromptKind::ExportTask(t.id),
                        input: Box::new(input),
                    });
                }
                _ => app.set_status("no task in this tab to export", true),
            }
            vec![]
        }
        Action::PushList | Action::PushDelete => match app.active_tab() {
            Some(t) if t.tracker.task_id.is_some() => {
                let task_id = t.tracker.task_id.clone().unwrap_or_default();
                if a == Action::PushList {
                    vec![Effect::ListPush {
                        tab: t.id,
                        agent: t.agent,
                        task_id,
                    }]
                } else if t.push_ids.is_empty() {
                    app.set_status("the console registered no push config for this task", true);
                    vec![]
                } else {
                    vec![Effect::DeletePush {
                        tab: t.id,
                        agent: t.agent,
                        task_id,
                        ids: t.push_ids.clone(),
                    }]
                }
            }
            _ => vec![],
        },
        Action::Approve => {
            match app.active_tab() {
                Some(t) if t.tracker.state == a2a::TaskState::AuthRequired => {
                    app.overlay = Some(Overlay::Approval { tab: t.id });
                }
                _ => app.set_status("this task is not waiting for authorization", true),
            }
            vec![]
        }
        Action::FocusNext => {
            app.focus = match (app.focus, app.view) {
                (Focus::Agents, _) => Focus::Main,
                (Focus::Main, View::Tab(_)) => Focus::Compose,
                _ => Focus::Agents,
            };
            vec![]
        }
        Action::FocusPrev => {
            app.focus = match (app.focus, app.view) {
                (Focus::Compose, _) => Focus::Main,
                (Focus::Main, _) => Focus::Agents,
                (Focus::Agents, View::Tab(_)) => Focus::Compose,
                (Focus::Agents, _) => Focus::Main,
            };
            vec![]
        }
        Action::JumpTab1
        | Action::JumpTab2
        | Action::JumpTab3
        | Action::JumpTab4
        | Action::JumpTab5
        | Action::JumpTab6
        | Action::JumpTab7
        | Action::JumpTab8
        | Action::JumpTab9 => {
            if let Some(t) = a.tab_index().and_then(|i| app.tabs.get(i)) {
                let id = t.id;
                show_tab(app, id);
            }
            vec![]
        }
        Action::Back => {
            app.focus = match app.focus {
                Focus::Compose => Focus::Main,
                _ => Focus::Agents,
            };
            vec![]
        }
        Action::Compose => {
            if matches!(app.view, View::Tab(_)) {
                app.focus = Focus::Compose;
            }
            vec![]
        }
        Action::Up | Action::Down => {
            scroll(
                app,
                if a == Action::Up {
                    Action::ScrollUp
                } else {
                    Action::ScrollDown
                },
            );
            vec![]
        }
        Action::NextArtifact | Action::PrevArtifact => {
            jump_artifact(app, a == Action::NextArtifact);
            vec![]
        }
        Action::NextTab | Action::PrevTab => {
            let items = layout::tab_items(app);
            let pos = items.iter().position(|(v, _)| *v == app.view).unwrap_or(0);
            let n = items.len();
            let next = if a == Action::NextTab {
                (pos + 1) % n
            } else {
                (pos + n - 1) % n
            };
            if let Some((v, _)) = items.get(next) {
                match *v {
                    View::Tab(id) => show_tab(app, id),
                    other => app.view = other,
                }
            }
            vec![]
        }
        Action::CloseTab => {
            if let View::Tab(id) = app.view {
                app.tabs.retain(|t| t.id != id);
                app.view = app
                    .tabs
                    .last()
                    .map(|t| View::Tab(t.id))
                    .unwrap_or(View::Card);
                if app.focus == Focus::Compose && !matches!(app.view, View::Tab(_)) {
                    app.focus = Focus::Agents;
                }
            }
            vec![]
        }
        Action::NewTask => {
            open_tab(app, None);
            vec![]
        }
        Action::CancelTask => {
            match app.active_tab() {
                Some(t) if t.tracker.task_id.is_some() && !t.is_terminal() => {
                    app.overlay = Some(Overlay::ConfirmCancel { tab: t.id });
                }
                Some(_) => app.set_status("nothing to cancel: no running task in this tab", true),
                None => app.set_status("open a task tab to cancel its task", true),
            }
            vec![]
        }
        Action::RefreshCard => {
            let Some(entry) = app.agents.get_mut(app.selected_agent) else {
                return vec![];
            };
            entry.state = Reachability::Loading;
            vec![Effect::LoadAgent {
                agent: app.selected_agent,
                target: Box::new(entry.target.clone()),
                refresh: true,
            }]
        }
        Action::ToggleRawCard => {
            app.raw_card = !app.raw_card;
            app.view = View::Card;
            app.card_scroll = 0;
            vec![]
        }
        Action::ShowCard => {
            app.view = View::Card;
            app.card_scroll = 0;
            vec![]
        }
        Action::ShowSkills => {
            app.view = View::Skills;
            app.focus = Focus::Main;
            vec![]
        }
        Action::UseExample => use_example(app),
        Action::AddAgent => {
            app.overlay = Some(Overlay::Prompt {
                kind: PromptKind::AddAgent,
                input: Box::default(),
            });
            vec![]
        }
        Action::RemoveAgent => {
            if !app.agents.is_empty() {
                app.overlay = Some(Overlay::ConfirmRemoveAgent {
                    agent: app.selected_agent,
                });
            }
            vec![]
        }
        Action::Reattach => reattach(app),
        Action::SaveArtifact => {
            match app.active_tab().and_then(|t| t.artifacts.last()) {
                Some(a) => {
                    // Suggest the file's own name (sanitised, path separators removed), else one from the artifact.
                    let suggested = a
                        .files
                        .first()
                        .map(|f| f.name.clone())
                        .filter(|n| n != "(unnamed)")
                        .unwrap_or_else(|| {
                            let base = if a.name.is_empty() {
                                a.id.clone()
                            } else {
                                a.name.clone()
                            };
                            let ext = if a.json.is_some() { "json" } else { "md" };
                            format!("{base}.{ext}")
                        })
                        .replace(['/', '\\'], "_");
                    let mut input = TextArea::from(vec![suggested]);
                    input.move_cursor(ratatui_textarea::CursorMove::End);
                    app.overlay = Some(Overlay::Prompt {
                        kind: PromptKind::SaveArtifact,
                        input: Box::new(input),
                    });
                }
                None => app.set_status("no artifact in this tab to save", true),
            }
            vec![]
        }
        Action::AttachFile => {
            if matches!(app.view, View::Tab(_)) {
                app.overlay = Some(Overlay::Prompt {
                    kind: PromptKind::AttachFile,
                    input: Box::default(),
                });
            }
            vec![]
        }
        Action::ScrollUp
        | Action::ScrollDown
        | Action::PageUp
        | Action::PageDown
        | Action::ScrollTop
        | Action::ScrollBottom => {
            scroll(app, a);
            vec![]
        }
        Action::Send | Action::Newline | Action::HistoryPrev | Action::HistoryNext => vec![],
        Action::FoldJson => {
            fold_json(app);
            vec![]
        }
    }
}

fn show_tab(app: &mut App, id: TabId) {
    app.view = View::Tab(id);
    if let Some(t) = app.tab_mut(id) {
        t.attention = false;
    }
    app.focus = Focus::Compose;
}

/// Open a new conversation tab on the selected agent, optionally with text in the compose box.
pub fn open_tab(app: &mut App, text: Option<&str>) -> Option<TabId> {
    if app.agents.is_empty() {
        app.set_status("no agent: add one with `a`", true);
        return None;
    }
    let id = app.new_tab(app.selected_agent);
    if let (Some(text), Some(t)) = (text, app.tab_mut(id)) {
        t.compose.insert_str(text);
    }
    show_tab(app, id);
    Some(id)
}

fn use_example(app: &mut App) -> Vec<Effect> {
    if matches!(app.view, View::Board | View::Split) {
        let rows = if app.view == View::Board {
            super::board::rows(app)
        } else {
            super::board::split_tabs(app)
        };
        if let Some(id) = rows.get(app.board.selected).copied() {
            show_tab(app, id);
        }
        return vec![];
    }
    if app.view != View::Skills {
        if app.focus == Focus::Agents {
            app.view = View::Card;
            app.focus = Focus::Main;
        }
        return vec![];
    }
    let example = app.selected().and_then(|a| a.info()).and_then(|i| {
        let mut flat = i.skills.iter().flat_map(|s| s.examples.iter());
        flat.nth(app.selected_skill).cloned()
    });
    match example {
        Some(text) => {
            open_tab(app, Some(&text));
        }
        None => app.set_status("this agent's skills have no examples", true),
    }
    vec![]
}

fn scroll(app: &mut App, a: Action) {
    let page = app.size.1.saturating_sub(8).max(1) as usize;
    match (app.focus, app.view) {
        (Focus::Agents, _) => {
            let n = app.agents.len();
            if n == 0 {
                return;
            }
            app.selected_agent = match a {
                Action::ScrollUp => app.selected_agent.saturating_sub(1),
                Action::ScrollDown => (app.selected_agent + 1).min(n - 1),
                Action::ScrollTop => 0,
                Action::ScrollBottom => n - 1,
                _ => app.selected_agent,
            };
            app.card_scroll = 0;
            app.selected_skill = 0;
        }
        (_, View::Skills) => {
            let n: usize = app
                .selected()
                .and_then(|e| e.info())
                .map(|i| i.skills.iter().map(|s| s.examples.len()).sum())
                .unwrap_or(0);
            if n == 0 {
                return;
            }
            app.selected_skill = match a {
                Action::ScrollUp => app.selected_skill.saturating_sub(1),
                Action::ScrollDown => (app.selected_skill + 1).min(n - 1),
                Action::ScrollTop => 0,
                Action::ScrollBottom => n - 1,
                _ => app.selected_skill,
            };
        }
        (_, View::Card) => {
            app.card_scroll = step(app.card_scroll, a, page, usize::MAX / 2);
        }
        (_, View::Board | View::Split) => {
            let n = if app.view == View::Board {
                super::board::rows(app).len()
            } else {
                super::board::split_tabs(app).len()
            };
            let max = n.saturating_sub(1);
            app.board.selected = step(app.board.selected, a, page, max).min(max);
        }
        (_, View::Tab(_)) => {
            let Some(t) = app.active_tab_mut() else {
                return;
            };
            // Scrolling is in transcript lines; `None` means "follow the end". The renderer clamps.
            let current = t.scroll.unwrap_or(usize::MAX / 2);
            t.scroll = match a {
                Action::ScrollBottom => None,
                _ => Some(step(current, a, page, usize::MAX / 2)),
            };
        }
    }
}

fn step(v: usize, a: Action, page: usize, max: usize) -> usize {
    match a {
        Action::ScrollUp => v.saturating_sub(1),
        Action::ScrollDown => v.saturating_add(1).min(max),
        Action::PageUp => v.saturating_sub(page),
        Action::PageDown => v.saturating_add(page).min(max),
        Action::ScrollTop => 0,
        Action::ScrollBottom => max,
        _ => v,
    }
}

fn compose_key(app: &mut App, k: KeyEvent, action: Option<Action>) -> Vec<Effect> {
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
        Some(Action::HistoryPrev) | Some(Action::HistoryNext) => {
            if let Some(t) = app.tab_mut(tab_id) {
                let empty_or_browsing = t.compose.is_empty() || t.history_cursor.is_some();
                if empty_or_browsing && !t.sent_history.is_empty() {
                    let n = t.sent_history.len();
                    let next = match (action, t.history_cursor) {
                        (Some(Action::HistoryPrev), None) => Some(n - 1),
                        (Some(Action::HistoryPrev), Some(i)) => Some(i.saturating_sub(1)),
                        (_, Some(i)) if i + 1 < n => Some(i + 1),
                        _ => None,
                    };
                    t.history_cursor = next;
                    let text = next
                        .and_then(|i| t.sent_history.get(i).cloned())
                        .unwrap_or_default();
                    t.compose =
                        TextArea::from(text.lines().map(str::to_string).collect::<Vec<_>>());
                    t.compose.move_cursor(ratatui_textarea::CursorMove::End);
                    return vec![];
                }
                t.compose.input(k);
            }
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
            | Action::NextTab
            | Action::PrevTab),
        ) if !is_plain_char(&k) => {
            // Plain `q` types a q in the compose box; only its non-character bindings act here.
            return run_action(app, a);
        }
        _ => {}
    }
    if let Some(t) = app.tab_mut(tab_id) {
        t.compose.input(k);
        t.history_cursor = None;
    }
    vec![]
}

fn is_plain_char(k: &KeyEvent) -> bool {
    matches!(k.code, KeyCode::Char(_))
        && !k
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
}

/// Send the compose box's text on a tab: continue its task if it is still open, else start a new task in
/// the same conversation.
pub fn send(app: &mut App, tab_id: TabId) -> Vec<Effect> {
    let streaming = {
        let Some(t) = app.tab(tab_id) else {
            return vec![];
        };
        app.agents
            .get(t.agent)
            .and_then(|a| a.info())
            .map(|i| i.card.card.capabilities.streaming == Some(true))
    };
    let Some(streaming) = streaming else {
        app.set_status("the agent's card has not loaded: cannot send yet", true);
        return vec![];
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
    let files: Vec<std::path::PathBuf> = std::mem::take(&mut t.attachments);
    let names = files.iter().map(|f| f.display().to_string()).collect();
    let (task_id, context_id) = if t.is_terminal() || t.tracker.task_id.is_none() {
        // A finished task cannot take more messages: start a new one in the same conversation.
        let context = t.tracker.context_id.clone();
        if t.tracker.task_id.is_some() {
            t.note(
                "the task has ended; this message starts a new task in the same conversation",
                false,
            );
        }
        t.tracker = crate::remote::tracker::TaskTracker::default();
        t.tracker.context_id = context.clone();
        (None, context)
    } else {
        t.tracker.resuming = t.waiting();
        (t.tracker.task_id.clone(), t.tracker.context_id.clone())
    };
    t.record_user(&text, names);
    t.compose = TextArea::default();
    t.generation += 1;
    t.link = Link::Connecting;
    vec![Effect::Send {
        tab: tab_id,
        generation: t.generation,
        agent: t.agent,
        message: Box::new(crate::app::outgoing(text, files, task_id, context_id)),
        stream: streaming,
    }]
}

/// Fold every JSON artifact in the tab to its top level, or unfold them all again.
fn fold_json(app: &mut App) {
    let styles = crate::markup::styles::render_styles(&app.theme);
    let Some(t) = app.active_tab_mut() else {
        return;
    };
    let mut any = false;
    for a in t.artifacts.iter_mut() {
        if let Some(json) = a.json.as_mut() {
            if a.json_folded {
                json.unfold_all();
            } else {
                json.fold_all(1);
            }
            a.json_folded = !a.json_folded;
            a.rendered = Some(vec![super::task::RenderedBlock {
                key: None,
                lines: json.lines(&styles),
            }]);
            any = true;
        }
    }
    if !any {
        app.set_status("no JSON artifact in this tab", true);
    }
}

/// Move the transcript so the next (or previous) artifact is at the top.
fn jump_artifact(app: &mut App, forward: bool) {
    let Some(t) = app.active_tab_mut() else {
        return;
    };
    let starts = layout::artifact_starts(t);
    let current = t.scroll.unwrap_or(usize::MAX);
    let target = if forward {
        starts
            .iter()
            .copied()
            .find(|s| *s > current || current == usize::MAX)
    } else {
        starts.iter().rev().copied().find(|s| *s < current)
    };
    match target {
        Some(line) => t.scroll = Some(line),
        None if forward => t.scroll = None,
        None => {}
    }
}

fn reattach(app: &mut App) -> Vec<Effect> {
    let Some(t) = app.active_tab_mut() else {
        return vec![];
    };
    let Some(task_id) = t.tracker.task_id.clone() else {
        t.note("no task to re-attach to", true);
        return vec![];
    };
    t.generation += 1;
    t.link = Link::Connecting;
    t.note("re-attaching…", false);
    vec![Effect::Subscribe {
        tab: t.id,
        generation: t.generation,
        agent: t.agent,
        task_id,
    }]
}

fn overlay_key(app: &mut App, k: KeyEvent) -> Vec<Effect> {
    let Some(overlay) = app.overlay.take() else {
        return vec![];
    };
    let ctrl_c = k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl_c {
        app.quit = true;
        return vec![Effect::Quit];
    }
    match overlay {
        Overlay::Help { scroll } => {
            let scroll = match k.code {
                KeyCode::Up | KeyCode::Char('k') => scroll.saturating_sub(1),
                KeyCode::Down | KeyCode::Char('j') => scroll + 1,
                KeyCode::PageDown => scroll + 10,
                KeyCode::PageUp => scroll.saturating_sub(10),
                KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char('?') | KeyCode::Enter => {
                    return vec![];
                }
                _ => scroll,
            };
            app.overlay = Some(Overlay::Help { scroll });
            vec![]
        }
        Overlay::Palette {
            mut query,
            mut selected,
        } => {
            let matches = palette_matches(&query);
            match k.code {
                KeyCode::Esc => return vec![],
                KeyCode::Enter => {
                    return match matches.get(selected) {
                        Some(a) => run_action(app, *a),
                        None => vec![],
                    };
                }
                KeyCode::Up => selected = selected.saturating_sub(1),
                KeyCode::Down => selected = (selected + 1).min(matches.len().saturating_sub(1)),
                KeyCode::Backspace => {
                    query.pop();
                    selected = 0;
                }
                KeyCode::Char(c) if !k.modifiers.contains(KeyModifiers::CONTROL) => {
                    query.push(c);
                    selected = 0;
                }
                _ => {}
            }
            app.overlay = Some(Overlay::Palette { query, selected });
            vec![]
        }
        Overlay::ConfirmCancel { tab } => match k.code {
            KeyCode::Char('y') | KeyCode::Char('Y') | KeyCode::Enter => {
                let Some(t) = app.tab_mut(tab) else {
                    return vec![];
                };
                let Some(task_id) = t.tracker.task_id.clone() else {
                    return vec![];
                };
                t.note("cancel requested", false);
                vec![Effect::Cancel {
                    tab,
                    agent: t.agent,
                    task_id,
                }]
            }
            _ => vec![],
        },
        Overlay::Approval { tab } => approval_key(app, tab, k),
        Overlay::DeviceCode {
            tab,
            user_code,
            verification_uri,
        } => match k.code {
            KeyCode::Esc => {
                if let Some(t) = app.tab_mut(tab) {
                    t.note(
                        "sign-in abandoned; the task keeps waiting (A to review)",
                        false,
                    );
                }
                vec![
                    Effect::CancelOAuth { tab },
                    Effect::Audit {
                        tab,
                        line: "decision=later (device-flow sign-in abandoned)".into(),
                    },
                ]
            }
            _ => {
                app.overlay = Some(Overlay::DeviceCode {
                    tab,
                    user_code,
                    verification_uri,
                });
                vec![]
            }
        },
        Overlay::Audit { lines, scroll } => {
            let scroll = match k.code {
                KeyCode::Up | KeyCode::Char('k') => scroll.saturating_sub(1),
                KeyCode::Down | KeyCode::Char('j') => {
                    (scroll + 1).min(lines.len().saturating_sub(1))
                }
                KeyCode::PageUp => scroll.saturating_sub(10),
                KeyCode::PageDown => (scroll + 10).min(lines.len().saturating_sub(1)),
                KeyCode::Esc | KeyCode::Char('q') | KeyCode::Enter | KeyCode::Char('L') => {
                    return vec![];
                }
                _ => scroll,
            };
            app.overlay = Some(Overlay::Audit { lines, scroll });
            vec![]
        }
        Overlay::ConfirmRemoveAgent { agent } => match k.code {
            KeyCode::Char('y') | KeyCode::Char('Y') | KeyCode::Enter => remove_agent(app, agent),
            _ => vec![],
        },
        Overlay::Prompt { kind, mut input } => match k.code {
            KeyCode::Esc => vec![],
            KeyCode::Enter => {
                let value = input.lines().join("").trim().to_string();
                prompt_done(app, kind, value)
            }
            _ => {
                input.input(k);
                app.overlay = Some(Overlay::Prompt { kind, input });
                vec![]
            }
        },
    }
}

fn prompt_done(app: &mut App, kind: PromptKind, value: String) -> Vec<Effect> {
    if value.is_empty() && !matches!(kind, PromptKind::ImportFilter(_)) {
        return vec![];
    }
    match kind {
        PromptKind::AddAgent => {
            if crate::remote::card::card_urls(&value).is_err() {
                app.set_status(format!("{value:?} is not an http(s) URL"), true);
                return vec![];
            }
            let timeout = app
                .agents
                .first()
                .map(|a| a.target.timeout)
                .unwrap_or(std::time::Duration::from_secs(30));
            let target = AgentTarget::from_url(&value, timeout);
            let idx = app.add_agent(target.clone(), AgentOrigin::CommandLine);
            app.selected_agent = idx;
            app.view = View::Card;
            vec![
                Effect::LoadAgent {
                    agent: idx,
                    target: Box::new(target),
                    refresh: false,
                },
                Effect::AddAgentToConfig { url: value },
            ]
        }
        PromptKind::ApprovalToken(tab) => approve(
            app,
            tab,
            ApprovalCredential::Pasted(crate::remote::auth::Secret::new(value)),
            "pasted token",
        ),
        PromptKind::ExportTask(tab) => vec![Effect::ExportTask {
            tab,
            path: value.into(),
        }],
        PromptKind::ImportFilter(agent) => match parse_import_filter(&value) {
            Ok((state, context)) => {
                app.set_status("listing tasks…", false);
                vec![Effect::ImportTasks {
                    agent,
                    state,
                    context,
                }]
            }
            Err(e) => {
                app.set_status(e, true);
                vec![]
            }
        },
        PromptKind::BoardSearch => {
            app.board.query = value;
            app.board.selected = 0;
            app.view = View::Board;
            vec![]
        }
        PromptKind::AttachFile => {
            let path = std::path::PathBuf::from(&value);
            if let Some(t) = app.active_tab_mut() {
                t.note(
                    format!("will attach {} to the next message", path.display()),
                    false,
                );
                t.attachments.push(path);
            }
            app.focus = Focus::Compose;
            vec![]
        }
        PromptKind::SaveArtifact => {
            // The newest artifact: a file part's own bytes if it has one (never opened, only written where
            // the user said), else its text as shown.
            let bytes = app.active_tab().and_then(|t| {
                let raw = t.tracker.artifacts.last().and_then(|a| {
                    a.parts.iter().find_map(|p| match &p.content {
                        a2a::PartContent::Raw(b) => Some(b.clone()),
                        _ => None,
                    })
                });
                raw.or_else(|| t.artifacts.last().map(|a| a.text.clone().into_bytes()))
            });
            match bytes {
                Some(bytes) => vec![Effect::SaveFile {
                    path: value.into(),
                    bytes,
                }],
                None => vec![],
            }
        }
    }
}

/// The approval modal's choices. Every decision is written to the audit log with task and context ids.
fn approval_key(app: &mut App, tab: TabId, k: KeyEvent) -> Vec<Effect> {
    let Some(t) = app.tab(tab) else {
        return vec![];
    };
    let ids = format!(
        "agent={:?} task={:?} context={:?}",
        t.agent_name,
        t.tracker.task_id.as_deref().unwrap_or(""),
        t.tracker.context_id.as_deref().unwrap_or("")
    );
    let has_configured = app
        .agents
        .get(t.agent)
        .is_some_and(|a| a.target.auth.is_some());
    match k.code {
        KeyCode::Char('a') if has_configured => approve(
            app,
            tab,
            ApprovalCredential::Configured,
            "configured credential",
        ),
        KeyCode::Char('a') => {
            app.overlay = Some(Overlay::Approval { tab });
            app.set_status(
                "no credential is configured for this agent: press p to paste a token",
                true,
            );
            vec![]
        }
        KeyCode::Char('o') => {
            let card = app
                .agents
                .get(t.agent)
                .and_then(|a| a.info())
                .map(|i| i.card.card.clone());
            let flow = card.as_ref().and_then(|c| {
                crate::remote::oauth::flows_in_card(c)
                    .into_iter()
                    .find_map(|(_, kind, scopes)| match kind {
                        crate::remote::oauth::FlowKind::DeviceCode {
                            device_authorization_url,
                            token_url,
                        } => Some((device_authorization_url, token_url, scopes)),
                        _ => None,
                    })
            });
            let client_id = app
                .agents
                .get(t.agent)
                .and_then(|a| a.target.auth.as_ref())
                .and_then(|a| a.client_id.clone())
                .unwrap_or_else(|| "a2a-console".into());
            match flow {
                Some((device_url, token_url, scopes)) => {
                    app.overlay = Some(Overlay::DeviceCode {
                        tab,
                        user_code: "…".into(),
                        verification_uri: "asking the authorization server…".into(),
                    });
                    vec![Effect::DeviceFlow {
                        tab,
                        device_url,
                        token_url,
                        client_id,
                        scopes,
                    }]
                }
                None => {
                    app.overlay = Some(Overlay::Approval { tab });
                    app.set_status("the card declares no OAuth 2.0 device-code flow", true);
                    vec![]
                }
            }
        }
        KeyCode::Char('p') => {
            app.overlay = Some(Overlay::Prompt {
                kind: PromptKind::ApprovalToken(tab),
                input: Box::new(masked_input()),
            });
            vec![]
        }
        KeyCode::Char('d') => {
            let task_id = t.tracker.task_id.clone().unwrap_or_default();
            let agent = t.agent;
            if let Some(t) = app.tab_mut(tab) {
                t.note("authorization denied by you; canceling the task", false);
            }
            vec![
                Effect::Audit {
                    tab,
                    line: format!("decision=deny {ids}"),
                },
                Effect::Cancel {
                    tab,
                    agent,
                    task_id,
                },
            ]
        }
        KeyCode::Char('l') | KeyCode::Esc => {
            if let Some(t) = app.tab_mut(tab) {
                t.note(
                    "authorization left for later; the task keeps waiting (A to review)",
                    false,
                );
            }
            vec![Effect::Audit {
                tab,
                line: format!("decision=later {ids}"),
            }]
        }
        _ => {
            app.overlay = Some(Overlay::Approval { tab });
            vec![]
        }
    }
}

fn masked_input() -> TextArea<'static> {
    let mut input = TextArea::default();
    input.set_mask_char('•');
    input
}

/// Send the approval: a follow-up message on the task, carrying the chosen credential for that request.
fn approve(app: &mut App, tab: TabId, credential: ApprovalCredential, source: &str) -> Vec<Effect> {
    let Some(t) = app.tab_mut(tab) else {
        return vec![];
    };
    let Some(task_id) = t.tracker.task_id.clone() else {
        return vec![];
    };
    let ids = format!(
        "agent={:?} task={:?} context={:?}",
        t.agent_name,
        task_id,
        t.tracker.context_id.as_deref().unwrap_or("")
    );
    t.tracker.resuming = true;
    t.generation += 1;
    t.link = Link::Connecting;
    t.record_user(&format!("(approved with the {source})"), vec![]);
    vec![
        Effect::Audit {
            tab,
            line: format!("decision=approve credential={source:?} {ids}"),
        },
        Effect::Approve {
            tab,
            generation: t.generation,
            agent: t.agent,
            task_id,
            context_id: t.tracker.context_id.clone(),
            credential,
        },
    ]
}

fn remove_agent(app: &mut App, agent: usize) -> Vec<Effect> {
    if agent >= app.agents.len() {
        return vec![];
    }
    let entry = app.agents.remove(agent);
    // Tabs keep their transcript but point at no agent any more.
    app.tabs.retain(|t| t.agent != agent);
    for t in app.tabs.iter_mut().filter(|t| t.agent > agent) {
        t.agent -= 1;
    }
    app.selected_agent = app.selected_agent.min(app.agents.len().saturating_sub(1));
    app.view = View::Card;
    app.set_status(format!("removed {}", entry.name()), false);
    if entry.origin == AgentOrigin::Demo {
        return vec![];
    }
    vec![Effect::RemoveAgentFromConfig {
        url: entry.target.url,
    }]
}

fn paste(app: &mut App, text: &str) {
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

fn mouse(app: &mut App, m: MouseEvent) -> Vec<Effect> {
    if app.overlay.is_some() {
        return vec![];
    }
    let size = Rect::new(0, 0, app.size.0, app.size.1);
    if layout::too_small(size) {
        return vec![];
    }
    let areas = layout::areas(size);
    let at = Position::new(m.column, m.row);
    match m.kind {
        MouseEventKind::Down(_) => {
            if areas.tabs.contains(at) {
                match layout::tab_at(app, m.column) {
                    Some(View::Tab(id)) => show_tab(app, id),
                    Some(v) => {
                        app.view = v;
                        app.focus = Focus::Main;
                    }
                    None => {}
                }
            } else if areas.agents.contains(at) {
                // Row 0 is the border; each agent takes three rows.
                let row = m.row.saturating_sub(areas.agents.y + 1) as usize / 3;
                if row < app.agents.len() {
                    app.selected_agent = row;
                    app.focus = Focus::Agents;
                    if matches!(app.view, View::Tab(_)) {
                        app.view = View::Card;
                    }
                }
            } else if areas.main.contains(at) {
                app.focus = Focus::Main;
                if let View::Tab(_) = app.view {
                    let compose_lines = app
                        .active_tab()
                        .map(|t| t.compose.lines().len())
                        .unwrap_or(1);
                    let (_, compose) = layout::tab_split(areas.main, compose_lines);
                    if compose.contains(at) {
                        app.focus = Focus::Compose;
                    }
                }
            }
            vec![]
        }
        MouseEventKind::ScrollUp | MouseEventKind::ScrollDown => {
            let a = if m.kind == MouseEventKind::ScrollUp {
                Action::ScrollUp
            } else {
                Action::ScrollDown
            };
            let saved = app.focus;
            app.focus = if areas.agents.contains(at) {
                Focus::Agents
            } else {
                Focus::Main
            };
            for _ in 0..3 {
                scroll(app, a);
            }
            app.focus = saved;
            vec![]
        }
        _ => vec![],
    }
}

#[cfg(test)]
#[path = "update_tests.rs"]
mod tests;
