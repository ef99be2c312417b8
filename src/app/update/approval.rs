//! The approval modal: its keys, the masked credential input, and sending the approval.

use crossterm::event::KeyEvent;
use ratatui_textarea::TextArea;

use crate::app::ids::TabId;
use crate::app::msg::{ApprovalCredential, Effect};
use crate::app::state::{App, Overlay, PromptKind, SignInFor};
use crate::app::task::Link;
use crate::config::keymap::actions::{Action, Context};

/// Rows PgUp / PgDn move the agent's message in the approval dialog (its box is at most this tall).
pub const APPROVAL_PAGE: u16 = 6;

/// The approval modal's choices. Every decision is written to the audit log with task and context ids.
pub(super) fn approval_key(app: &mut App, tab: TabId, scroll: u16, k: KeyEvent) -> Vec<Effect> {
    let Some(t) = app.tab(tab) else {
        return vec![];
    };
    let ids = format!(
        "agent={:?} task={:?} context={:?}",
        t.agent_name,
        t.log.task_id.as_deref().unwrap_or(""),
        t.log.context_id.as_deref().unwrap_or("")
    );
    let has_configured = app.agent(t.agent).is_some_and(|a| a.target.auth.is_some());
    // The agent's message scrolls inside its own box, with the keys every pane scrolls with.
    let action = app.keymap.modal_action(Context::Approval, true, &k);
    if let Some(a) = action.filter(|a| a.is_scroll()) {
        app.overlay = Some(Overlay::Approval { tab, scroll });
        super::overlay::scroll_overlay(app, a);
        return vec![];
    }
    // Keys typed as it opened never reach here (the key guard, `app::guard`), and every decision below is a
    // chord typing does not produce (the keymap refuses bare keys for them).
    match action {
        Some(Action::ApproveConfigured) if has_configured => approve(
            app,
            tab,
            ApprovalCredential::Configured,
            "configured credential",
        ),
        Some(Action::ApproveConfigured) => {
            app.overlay = Some(Overlay::Approval { tab, scroll });
            let paste = app.keymap.keys_for(Action::ApprovePaste).join("/");
            app.set_status(
                format!(
                    "no credential is configured for this agent: press {paste} to paste a token"
                ),
                true,
            );
            vec![]
        }
        Some(Action::ApproveDeviceFlow) => {
            if let Some(plan) = code_flow_plan(app, tab) {
                return super::sign_in::start(app, SignInFor::Approval(tab), plan);
            }
            let card = app
                .agent(t.agent)
                .and_then(|a| a.info())
                .map(|i| i.card.card.clone());
            let flow = card.as_ref().and_then(|c| {
                crate::remote::auth::oauth::flows_in_card(c)
                    .into_iter()
                    .find_map(|(_, kind, scopes)| match kind {
                        crate::remote::auth::oauth::FlowKind::DeviceCode {
                            device_authorization_url,
                            token_url,
                        } => Some((device_authorization_url, token_url, scopes)),
                        _ => None,
                    })
            });
            let timeout = app
                .agent(t.agent)
                .map_or(crate::remote::auth::oauth::DEFAULT_TIMEOUT, |a| {
                    a.target.timeout
                });
            let client_id = app
                .agent(t.agent)
                .and_then(|a| a.target.auth.as_ref())
                .and_then(|a| a.client_id.clone())
                .unwrap_or_else(|| "a2a-console".into());
            match flow {
                Some((device_url, token_url, scopes)) => {
                    app.overlay = Some(Overlay::DeviceCode {
                        tab,
                        user_code: "…".into(),
                        verification_uri: "asking the authorization server…".into(),
                        since: app.now,
                    });
                    vec![Effect::DeviceFlow {
                        tab,
                        device_url,
                        token_url,
                        client_id,
                        scopes,
                        timeout,
                    }]
                }
                None => {
                    app.overlay = Some(Overlay::Approval { tab, scroll: 0 });
                    app.set_status("the card declares no OAuth 2.0 device-code flow", true);
                    vec![]
                }
            }
        }
        Some(Action::ApprovePaste) => {
            app.overlay = Some(Overlay::Prompt {
                kind: PromptKind::ApprovalToken(tab),
                input: Box::new(masked_input()),
            });
            vec![]
        }
        Some(Action::Deny) => {
            let task_id = t.log.task_id.clone().unwrap_or_default();
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
        // Esc (back) leaves it for later too: closing the dialog decides nothing.
        Some(Action::Later | Action::Back) => {
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
            app.overlay = Some(Overlay::Approval { tab, scroll });
            vec![]
        }
    }
}

/// The sign-in the `o` key runs for this tab's agent when its card declares an authorization-code or
/// OpenID Connect scheme (and the agent's config does not ask for the device flow).
fn code_flow_plan(app: &App, tab: TabId) -> Option<crate::remote::auth::sign_in::Plan> {
    super::sign_in::plan_for(app, SignInFor::Approval(tab)).ok()
}

/// Keys of the code-flow dialog: copy the address, paste the redirected address, or Esc to stop (the
/// listener closes; an approval's task keeps waiting).
pub(super) fn code_flow_key(app: &mut App, owner: SignInFor, k: KeyEvent) -> Vec<Effect> {
    if app.keymap.bound(Context::Approval, &k) == Some(Action::CopySignInUrl) {
        app.overlay = Some(Overlay::CodeFlow { owner });
        return copy_sign_in_url(
            app,
            app.code_flow
                .as_ref()
                .filter(|v| v.owner == owner)
                .and_then(|v| v.url.clone()),
        );
    }
    match app.keymap.modal_action(Context::Dialog, false, &k) {
        Some(Action::Back) => {
            app.code_flow = None;
            match owner {
                SignInFor::Approval(tab) => {
                    if let Some(t) = app.tab_mut(tab) {
                        t.note(
                            "sign-in abandoned; the task keeps waiting (A to review)",
                            false,
                        );
                    }
                    vec![
                        Effect::CancelOAuth { owner },
                        Effect::Audit {
                            tab,
                            line: "decision=later (code-flow sign-in abandoned)".into(),
                        },
                    ]
                }
                SignInFor::Agent(_) => {
                    app.set_status("sign-in abandoned", false);
                    vec![Effect::CancelOAuth { owner }]
                }
            }
        }
        Some(Action::PasteRedirect) => {
            app.overlay = Some(Overlay::Prompt {
                kind: PromptKind::RedirectUrl(owner),
                input: Box::new(TextArea::default()),
            });
            vec![]
        }
        _ => {
            app.overlay = Some(Overlay::CodeFlow { owner });
            vec![]
        }
    }
}

/// Copies a sign-in address (OSC 52): a wrapped, gutter-prefixed address is hard to select in a
/// terminal. The address is built by the console, but its host comes from the card or the provider,
/// so it is sanitised like any remote line.
pub(super) fn copy_sign_in_url(app: &mut App, url: Option<String>) -> Vec<Effect> {
    match url {
        Some(u) => vec![Effect::Copy {
            text: crate::trust::sanitize::sanitize_line(&u).0,
            what: "the sign-in address".into(),
        }],
        None => {
            app.set_status("the sign-in address is not ready yet", true);
            vec![]
        }
    }
}

pub(super) fn masked_input() -> TextArea<'static> {
    let mut input = TextArea::default();
    input.set_mask_char('•');
    input
}

/// Send the approval: a follow-up message on the task, carrying the chosen credential for that request.
pub(super) fn approve(
    app: &mut App,
    tab: TabId,
    credential: ApprovalCredential,
    source: &str,
) -> Vec<Effect> {
    let now = app.now;
    let Some(t) = app.tab_mut(tab) else {
        return vec![];
    };
    let Some(task_id) = t.log.task_id.clone() else {
        return vec![];
    };
    let ids = format!(
        "agent={:?} task={:?} context={:?}",
        t.agent_name,
        task_id,
        t.log.context_id.as_deref().unwrap_or("")
    );
    t.log.resuming = true;
    t.generation += 1;
    t.link = Link::Connecting;
    // The transcript shows the words that actually go to the agent; the credential never does (it is named
    // in the console's note and the audit log).
    t.record_user(crate::app::msg::APPROVAL_TEXT, vec![], "");
    t.note_unrecorded(
        format!("sent with the {source}, on that request only"),
        false,
    );
    t.approving_since = Some(now);
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
            context_id: t.log.context_id.clone(),
            credential,
        },
    ]
}
