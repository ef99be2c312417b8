//! Keys in a one-line prompt (adding an agent, naming it, a pasted token or redirect address, an export path,
//! an import filter, a search, a file to attach), and what each prompt does with its answer.

use crossterm::event::KeyEvent;
use ratatui_textarea::TextArea;

use super::approval::approve;
use super::remote::parse_import_filter;
use crate::app::agent::AgentOrigin;
use crate::app::msg::{ApprovalCredential, Effect};
use crate::app::state::{App, Focus, Overlay, PromptKind, View};
use crate::config::keymap::actions::{Action, Context};
use crate::remote::connect::agent::AgentTarget;

pub(super) fn prompt_key(
    app: &mut App,
    kind: PromptKind,
    mut input: Box<TextArea<'static>>,
    k: KeyEvent,
) -> Vec<Effect> {
    match app.keymap.modal_action(Context::Prompt, false, &k) {
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

fn prompt_done(app: &mut App, kind: PromptKind, value: String) -> Vec<Effect> {
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
        PromptKind::RunSuite(agent) => super::suite::run(app, agent, value),
        PromptKind::RecordCase(tab) => super::suite::record(app, tab, value),
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
