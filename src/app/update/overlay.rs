//! Keys in the modals (help, palette, confirmations, prompts, viewers), read through the keymap's modal
//! contexts so help lists them and `[keys]` remaps them, and what a finished prompt does.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::actions::{remove_agent, run_action};
use super::approval::{APPROVAL_PAGE, approval_key, approve};
use super::remote::parse_import_filter;
use crate::app::help;
use crate::app::msg::{ApprovalCredential, Effect};
use crate::app::save::choices;
use crate::app::scroll::{Extent, cursor, offset};
use crate::app::state::{AgentOrigin, App, Focus, Overlay, PromptKind, SignInFor, View};
use crate::app::task::TabId;
use crate::config::keymap::actions::{Action, Context};
use crate::config::keymap::keys::KeyBinding;
use crate::config::keymap::palette_matches;
use crate::remote::connect::agent::AgentTarget;

pub(super) fn overlay_key(app: &mut App, k: KeyEvent) -> Vec<Effect> {
    // Quit's keys with Ctrl/Alt or a name (Ctrl-C) work in every modal; a plain `q` is the modal's own key,
    // or text in a prompt. With a draft held, the first press only says so (the modal stays).
    if !KeyBinding::from_event(&k).is_plain_char()
        && app.keymap.bound(Context::Global, &k) == Some(Action::Quit)
    {
        return super::drafts::quit(app);
    }
    // A dialog that can decide something ignores the keys typed as it opened (they were meant for what was
    // there before); it counts them and says so. Checked while the dialog is still in place.
    if !app.key_passes_guard(std::time::Instant::now()) {
        return vec![];
    }
    let Some(overlay) = app.overlay.take() else {
        return vec![];
    };
    // Whatever a modal was, closing it returns to command keys, never to the compose box: a key meant for the
    // console (an `A`, a `p`, a pasted token) must not become a message to the agent. The attach-file prompt
    // is opened from the box while writing, and goes back to it.
    let attaching = matches!(
        overlay,
        Overlay::Prompt {
            kind: PromptKind::AttachFile,
            ..
        }
    );
    if app.focus == Focus::Compose && !attaching {
        app.focus = Focus::Main;
    }
    overlay_key_inner(app, overlay, k)
}

/// Rows a page key moves in the save picker and the palette (their boxes are about this tall).
fn list_page(app: &App) -> usize {
    usize::from(app.size.1.saturating_sub(8)).max(1)
}

/// The shared scroll actions in whichever modal is open (keys and mouse wheel alike): each moves its own
/// offset or cursor, clamped to what it holds.
pub(super) fn scroll_overlay(app: &mut App, a: Action) {
    let viewer = crate::app::scroll::viewer_rows(app.size);
    let help = matches!(app.overlay, Some(Overlay::Help { .. })).then(|| help::extent(app));
    let rows = match &app.overlay {
        Some(Overlay::SavePicker { tab, .. }) => app.tab(*tab).map_or(0, |t| choices(t).len()),
        Some(Overlay::Palette { query, .. }) => palette_matches(query).len(),
        _ => 0,
    };
    let page = list_page(app);
    // Before the first frame measured it, the renderer clamps the message's offset on its own.
    let approval = app
        .measured
        .approval
        .map_or((usize::from(APPROVAL_PAGE), usize::from(u16::MAX)), |e| {
            (e.page(), e.last_page())
        });
    match app.overlay.as_mut() {
        Some(Overlay::Help { scroll }) => {
            if let Some(e) = help {
                *scroll = offset(*scroll, a, e.page(), e.last_page());
            }
        }
        Some(Overlay::Audit { rows, scroll, .. }) => {
            let e = Extent {
                content: rows.len(),
                height: viewer,
            };
            *scroll = offset(*scroll, a, e.page(), e.last_page());
        }
        Some(Overlay::RawJson { lines, scroll, .. }) => {
            let e = Extent {
                content: lines.len(),
                height: viewer,
            };
            *scroll = offset(*scroll, a, e.page(), e.last_page());
        }
        Some(Overlay::Approval { scroll, .. }) => {
            let moved = offset(usize::from(*scroll), a, approval.0, approval.1);
            *scroll = u16::try_from(moved).unwrap_or(u16::MAX);
        }
        Some(Overlay::SavePicker { selected, .. }) | Some(Overlay::Palette { selected, .. }) => {
            *selected = cursor(*selected, a, page, rows);
        }
        _ => {}
    }
}

fn overlay_key_inner(app: &mut App, overlay: Overlay, k: KeyEvent) -> Vec<Effect> {
    let keymap = &app.keymap;
    match overlay {
        Overlay::Help { scroll } => {
            match keymap.modal_action(Context::Viewer, true, &k) {
                Some(Action::CloseViewer | Action::Back | Action::Help) => return vec![],
                a => {
                    app.overlay = Some(Overlay::Help { scroll });
                    if let Some(a) = a.filter(|a| a.is_scroll()) {
                        scroll_overlay(app, a);
                    }
                }
            }
            vec![]
        }
        Overlay::Audit {
            rows,
            scroll,
            selected,
        } => {
            let pressed = crate::config::keymap::keys::KeyBinding::from_event(&k);
            let is = |a: Action| keymap.bindings(a).contains(&pressed);
            // `,` `.` select a row as in a transcript; Enter or J opens the selected one.
            if is(Action::SelectPrev) || is(Action::SelectNext) {
                let last = rows.len().saturating_sub(1);
                let visible = crate::app::scroll::viewer_rows(app.size);
                let at = match (selected, is(Action::SelectPrev)) {
                    (None, _) => (scroll + visible).min(rows.len()).saturating_sub(1),
                    (Some(i), true) => i.saturating_sub(1),
                    (Some(i), false) => (i + 1).min(last),
                };
                let scroll = scroll.min(at).max((at + 1).saturating_sub(visible));
                app.overlay = Some(Overlay::Audit {
                    rows,
                    scroll,
                    selected: Some(at),
                });
                return vec![];
            }
            if let Some(i) = selected
                .filter(|_| is(Action::RawJson) || k.code == crossterm::event::KeyCode::Enter)
                && let Some(row) = rows.get(i)
            {
                app.overlay = Some(Overlay::RawJson {
                    title: format!("Audit entry {} of {}", i + 1, rows.len()),
                    lines: row.detail.clone(),
                    scroll: 0,
                });
                return vec![];
            }
            match keymap.modal_action(Context::Viewer, true, &k) {
                Some(Action::CloseViewer | Action::Back | Action::AuditLog) => return vec![],
                a => {
                    app.overlay = Some(Overlay::Audit {
                        rows,
                        scroll,
                        selected,
                    });
                    if let Some(a) = a.filter(|a| a.is_scroll()) {
                        scroll_overlay(app, a);
                    }
                }
            }
            vec![]
        }
        Overlay::RawJson {
            title,
            lines,
            scroll,
        } => {
            let again = keymap.action(Context::TaskTab, &k) == Some(Action::RawJson);
            match keymap.modal_action(Context::Viewer, true, &k) {
                Some(Action::CloseViewer | Action::Back) => return vec![],
                _ if again => return vec![],
                a => {
                    app.overlay = Some(Overlay::RawJson {
                        title,
                        lines,
                        scroll,
                    });
                    if let Some(a) = a.filter(|a| a.is_scroll()) {
                        scroll_overlay(app, a);
                    }
                }
            }
            vec![]
        }
        Overlay::Palette {
            mut query,
            mut selected,
        } => {
            match keymap.modal_action(Context::Prompt, true, &k) {
                Some(Action::Back) => return vec![],
                Some(Action::Accept) => {
                    return match palette_matches(&query).get(selected) {
                        // Choosing "quit" by name is deliberate: no second press (drafts are saved at exit).
                        Some(Action::Quit) => {
                            app.quit = true;
                            vec![Effect::Quit]
                        }
                        Some(a) => run_action(app, *a),
                        None => vec![],
                    };
                }
                Some(a) if a.is_scroll() => {
                    app.overlay = Some(Overlay::Palette { query, selected });
                    scroll_overlay(app, a);
                    return vec![];
                }
                Some(a) if a.is_edit() => {
                    if super::edit::edit_query(&mut query, a) {
                        selected = 0;
                    } else if let Some(s) = keymap.bound(Context::Scroll, &k) {
                        // The query has no cursor: keys that move one keep scrolling the list (Ctrl-F, Home …).
                        app.overlay = Some(Overlay::Palette { query, selected });
                        scroll_overlay(app, s);
                        return vec![];
                    }
                    app.overlay = Some(Overlay::Palette { query, selected });
                    return vec![];
                }
                _ => {}
            }
            match k.code {
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
        // A yes/no question: `confirm`'s keys say yes, any other key says no.
        Overlay::ConfirmCancel { tab } => {
            if keymap.modal_action(Context::Dialog, false, &k) != Some(Action::Confirm) {
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
        Overlay::ConfirmRemoveAgent { agent } => {
            if keymap.modal_action(Context::Dialog, false, &k) == Some(Action::Confirm) {
                remove_agent(app, agent)
            } else {
                vec![]
            }
        }
        Overlay::ConfirmPinKey {
            agent, thumbprint, ..
        } => {
            if keymap.modal_action(Context::Dialog, false, &k) == Some(Action::Confirm) {
                super::actions::pin_key(app, agent, thumbprint)
            } else {
                vec![]
            }
        }
        Overlay::ConfirmOrigin { agent, origin, .. } => {
            if keymap.modal_action(Context::Dialog, false, &k) == Some(Action::Confirm) {
                super::origin_consent::allow(app, agent, origin)
            } else {
                app.set_status(
                    format!("{origin} not allowed: the agent stays card only"),
                    false,
                );
                vec![]
            }
        }
        Overlay::ConfirmDelete { tab } => {
            if keymap.modal_action(Context::Dialog, false, &k) == Some(Action::Confirm) {
                delete_task(app, tab)
            } else {
                vec![]
            }
        }
        Overlay::Approval { tab, scroll } => approval_key(app, tab, scroll, k),
        Overlay::CodeFlow { owner } => super::approval::code_flow_key(app, owner, k),
        Overlay::DeviceCode {
            tab,
            user_code,
            verification_uri,
            since,
        } => {
            if keymap.bound(Context::Approval, &k) == Some(Action::CopySignInUrl) {
                // "…" and the "asking…" text stand in until the server answers: nothing to copy yet.
                let ready = user_code != "…";
                let fx =
                    super::approval::copy_sign_in_url(app, ready.then(|| verification_uri.clone()));
                app.overlay = Some(Overlay::DeviceCode {
                    tab,
                    user_code,
                    verification_uri,
                    since,
                });
                return fx;
            }
            if keymap.modal_action(Context::Dialog, false, &k) == Some(Action::Back) {
                if let Some(t) = app.tab_mut(tab) {
                    t.note(
                        "sign-in abandoned; the task keeps waiting (A to review)",
                        false,
                    );
                }
                return vec![
                    Effect::CancelOAuth {
                        owner: SignInFor::Approval(tab),
                    },
                    Effect::Audit {
                        tab,
                        line: "decision=later (device-flow sign-in abandoned)".into(),
                    },
                ];
            }
            app.overlay = Some(Overlay::DeviceCode {
                tab,
                user_code,
                verification_uri,
                since,
            });
            vec![]
        }
        Overlay::SavePicker { tab, selected } => super::save::picker_key(app, tab, selected, k),
        Overlay::SaveTarget(target) => super::save::target_key(app, target, k),
        Overlay::ConfirmOverwrite { target, existing } => {
            super::save::overwrite_key(app, target, existing, k)
        }
        Overlay::Prompt { kind, mut input } => {
            match keymap.modal_action(Context::Prompt, false, &k) {
                // Backing out of pasting the address returns to the sign-in, which keeps waiting.
                Some(Action::Back) => match kind {
                    PromptKind::RedirectUrl(owner) => {
                        app.overlay = Some(Overlay::CodeFlow { owner });
                        vec![]
                    }
                    // The agent is added already (its card is loading): Esc only declines a name of its own.
                    PromptKind::AgentName {
                        agent,
                        adding: true,
                    } => super::rename::named(app, agent, true, ""),
                    _ => vec![],
                },
                Some(Action::Accept) => {
                    let value = input.lines().join("").trim().to_string();
                    prompt_done(app, kind, value)
                }
                other => {
                    super::edit::edit(&mut input, other, k);
                    app.overlay = Some(Overlay::Prompt { kind, input });
                    vec![]
                }
            }
        }
    }
}

pub(super) fn prompt_done(app: &mut App, kind: PromptKind, value: String) -> Vec<Effect> {
    // An empty answer is an answer too for a search: it clears the board's text filter, or the transcript's
    // search; for an agent's name, it means the card's name.
    if value.is_empty()
        && !matches!(
            kind,
            PromptKind::ImportFilter(_)
                | PromptKind::BoardSearch
                | PromptKind::TranscriptSearch(_)
                | PromptKind::AgentName { .. }
        )
    {
        return vec![];
    }
    match kind {
        PromptKind::AddAgent => {
            let typed = value;
            let (value, assumed) = crate::app::typed_url::with_scheme(&typed);
            if crate::remote::card::card_urls(&value).is_err() {
                app.set_status(format!("{typed:?} is not an http(s) URL"), true);
                return vec![];
            }
            if let Some(note) = assumed {
                app.set_status(format!("{note}: {value}"), false);
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
            // The card loads while the user names the agent; the config file is written once, with the name.
            super::rename::ask_short_name(app, idx);
            vec![Effect::LoadAgent {
                agent: idx,
                target: Box::new(target),
                refresh: false,
            }]
        }
        PromptKind::AgentName { agent, adding } => super::rename::named(app, agent, adding, &value),
        PromptKind::RedirectUrl(owner) => {
            app.overlay = Some(Overlay::CodeFlow { owner });
            vec![Effect::CodeFlowPaste {
                owner,
                pasted: crate::remote::auth::Secret::new(value),
            }]
        }
        PromptKind::ApprovalToken(tab) => approve(
            app,
            tab,
            ApprovalCredential::Pasted(crate::remote::auth::Secret::new(value)),
            "pasted token",
        ),
        PromptKind::ExportTask(tab) => {
            // The whole conversation the tab shows (every task of it), read from the store by the tab's key.
            let export = app.tab(tab).and_then(|t| {
                Some(Effect::ExportTab {
                    tab_key: t.key.to_string(),
                    agent_url: app.agent(t.agent)?.target.url.clone(),
                    agent_name: t.agent_name.clone(),
                    path: value.into(),
                })
            });
            match export {
                Some(fx) => vec![fx],
                None => {
                    app.set_status("nothing in this tab to export yet", true);
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
        PromptKind::TranscriptSearch(tab) => super::transcript::submit_search(app, tab, &value),
        PromptKind::BoardSearch => {
            if value.is_empty() && !app.board.query.is_empty() {
                app.set_status("board search cleared", false);
            }
            app.board.query = value;
            app.board.selected = 0;
            app.view = View::Board;
            vec![]
        }
        PromptKind::AttachFile => {
            let path = std::path::PathBuf::from(&value);
            let mut fx = Vec::new();
            if let Some(t) = app.active_tab_mut() {
                t.note(
                    format!("will attach {} to the next message", path.display()),
                    false,
                );
                t.attachments
                    .push(crate::app::attach::Attachment::new(path.clone()));
                fx.push(Effect::CheckAttachment { tab: t.id, path });
            }
            app.focus = Focus::Compose;
            fx
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
        app.focus = Focus::Main;
    }
    app.set_status("deleted the task from the local store", false);
    vec![Effect::Record(crate::store::record::Record::DeleteTab {
        tab: key.to_string(),
    })]
}
