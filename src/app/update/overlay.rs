//! Keys in the modals (help, palette, confirmations, prompts, viewers) and what a finished prompt does.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::actions::{remove_agent, run_action};
use super::approval::{approval_key, approve};
use super::remote::parse_import_filter;
use crate::app::msg::{ApprovalCredential, Effect};
use crate::app::state::{AgentOrigin, App, Focus, Overlay, PromptKind, View};
use crate::app::task::TabId;
use crate::config::keymap::palette_matches;
use crate::remote::agent::AgentTarget;

pub(super) fn overlay_key(app: &mut App, k: KeyEvent) -> Vec<Effect> {
    let Some(overlay) = app.overlay.take() else {
        return vec![];
    };
    let ctrl_c = k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL);
    if ctrl_c {
        app.quit = true;
        return vec![Effect::Quit];
    }
    // Closing an approval or a sign-in returns to the tab with command keys live, never to the compose box:
    // the tab's note says "press A to review", and an `A`, a `p` and a pasted token typed into the compose box
    // would be sent to the agent as a message.
    let authorizing = matches!(
        overlay,
        Overlay::Approval { .. }
            | Overlay::DeviceCode { .. }
            | Overlay::Prompt {
                kind: crate::app::state::PromptKind::ApprovalToken(_),
                ..
            }
    );
    let fx = overlay_key_inner(app, overlay, k);
    if authorizing && app.overlay.is_none() && app.focus == crate::app::state::Focus::Compose {
        app.focus = crate::app::state::Focus::Main;
    }
    fx
}

fn overlay_key_inner(app: &mut App, overlay: Overlay, k: KeyEvent) -> Vec<Effect> {
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
            _ => vec![],
        },
        Overlay::Approval { tab, scroll } => approval_key(app, tab, scroll, k),
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
        Overlay::ConfirmDelete { tab } => match k.code {
            KeyCode::Char('y') | KeyCode::Char('Y') | KeyCode::Enter => delete_task(app, tab),
            _ => vec![],
        },
        Overlay::SavePicker { tab, selected } => super::save::picker_key(app, tab, selected, k),
        Overlay::SaveTarget(target) => super::save::target_key(app, target, k),
        Overlay::ConfirmOverwrite { target, existing } => {
            super::save::overwrite_key(app, target, existing, k)
        }
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

pub(super) fn prompt_done(app: &mut App, kind: PromptKind, value: String) -> Vec<Effect> {
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
            app.selected_agent = app.agent_index(idx).unwrap_or(0);
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
        PromptKind::ExportTask(tab) => {
            let target = app.tab(tab).and_then(|t| {
                Some((
                    app.agent(t.agent)?.target.url.clone(),
                    t.log.task_id.clone()?,
                ))
            });
            match target {
                Some((agent_url, task_id)) => vec![Effect::ExportTask {
                    agent_url,
                    task_id,
                    path: value.into(),
                }],
                None => {
                    app.set_status("no task in this tab to export", true);
                    vec![]
                }
            }
        }
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
        if app.focus == Focus::Compose && !matches!(app.view, View::Tab(_)) {
            app.focus = Focus::Agents;
        }
    }
    app.set_status("deleted the task from the local store", false);
    vec![Effect::Record(crate::store::record::Record::DeleteTab {
        tab: key.to_string(),
    })]
}
