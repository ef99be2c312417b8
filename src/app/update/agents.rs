//! Actions on the selected agent: importing its tasks, reloading its card, adding and removing agents, and
//! pinning the key its card is signed with.

use crate::app::agent::{AgentOrigin, Reachability};
use crate::app::ids::AgentId;
use crate::app::msg::Effect;
use crate::app::state::{App, Overlay, PromptKind, View};

pub(super) fn ask_import_filter(app: &mut App) -> Vec<Effect> {
    match app.selected() {
        Some(a) if a.callable().is_some() => {
            app.overlay = Some(Overlay::Prompt {
                kind: PromptKind::ImportFilter(a.id),
                input: Box::default(),
            });
            vec![]
        }
        Some(a) => {
            let why = a
                .why_not_callable()
                .unwrap_or_else(|| "the agent's card has not loaded".into());
            app.set_status(why, true);
            vec![]
        }
        None => {
            app.set_status("the agent's card has not loaded", true);
            vec![]
        }
    }
}

pub(super) fn refresh_card(app: &mut App) -> Vec<Effect> {
    let Some(entry) = app.agents.get_mut(app.selected_agent) else {
        return vec![];
    };
    entry.state = Reachability::Loading;
    vec![Effect::LoadAgent {
        agent: entry.id,
        target: Box::new(entry.target.clone()),
        refresh: true,
    }]
}

pub(super) fn ask_url(app: &mut App) -> Vec<Effect> {
    app.overlay = Some(Overlay::Prompt {
        kind: PromptKind::AddAgent,
        input: Box::default(),
    });
    vec![]
}

pub(super) fn ask_remove(app: &mut App) -> Vec<Effect> {
    if let Some(agent) = app.selected().map(|a| a.id) {
        app.overlay = Some(Overlay::ConfirmRemoveAgent { agent });
    }
    vec![]
}

pub(super) fn remove_agent(app: &mut App, agent: AgentId) -> Vec<Effect> {
    let Some(index) = app.agent_index(agent) else {
        return vec![];
    };
    let entry = app.agents.remove(index);
    // Its tabs leave the screen; they stay in the store (filed under the agent's key) and come back if the
    // agent is configured again.
    app.tabs.retain(|t| t.agent != agent);
    app.selected_agent = app.selected_agent.min(app.agents.len().saturating_sub(1));
    app.view = View::Card;
    app.set_status(format!("removed {}", entry.name()), false);
    let mut fx = vec![Effect::ForgetAgent { agent }];
    if entry.origin != AgentOrigin::Demo {
        fx.push(Effect::RemoveAgentFromConfig {
            url: entry.target.url,
        });
    }
    fx
}

/// `P` on a card signed validly by a key not pinned yet: ask, showing the thumbprint. Nothing to pin (unsigned,
/// already verified, invalid — a changed key is never offered) says why on the status line.
pub(super) fn pin_offer(app: &mut App) -> Vec<Effect> {
    use crate::remote::signature::SignatureState;
    let Some(entry) = app.selected() else {
        return vec![];
    };
    let agent = entry.id;
    let verdict = entry.info().and_then(|i| i.card.signature.clone());
    let offer = verdict.as_ref().and_then(|v| {
        let d = &v.detail;
        match (v.state, &d.offer, &d.thumbprint) {
            (SignatureState::ValidUnpinned, Some(_), Some(t)) => {
                Some((t.clone(), d.kid.clone(), d.alg.clone()))
            }
            _ => None,
        }
    });
    match offer {
        Some((thumbprint, kid, alg)) => {
            app.overlay = Some(Overlay::ConfirmPinKey {
                agent,
                thumbprint,
                kid,
                alg: alg.unwrap_or_default(),
            });
        }
        None => {
            let why = match verdict.map(|v| v.state) {
                Some(SignatureState::Verified) => "the card's key is already trusted",
                Some(SignatureState::Invalid) => {
                    "no valid signature to pin (an invalid card's key is never offered)"
                }
                Some(SignatureState::Unsigned) => "the card is unsigned: no key to pin",
                _ => "the card has not been checked yet",
            };
            app.set_status(why.to_string(), false);
        }
    }
    vec![]
}

/// The user said yes: trust the key from now on (this run at once, the config file for the next ones), and
/// judge the card again so the badge says "verified".
pub(super) fn pin_key(app: &mut App, agent: AgentId, thumbprint: String) -> Vec<Effect> {
    let Some(entry) = app.agents.iter_mut().find(|a| a.id == agent) else {
        return vec![];
    };
    if !entry.target.trust.pinned.contains(&thumbprint) {
        entry.target.trust.pinned.push(thumbprint.clone());
    }
    entry.state = Reachability::Loading;
    let mut fx = vec![Effect::LoadAgent {
        agent,
        target: Box::new(entry.target.clone()),
        refresh: true,
    }];
    // The embedded demo's port changes each run: its trust is in-process, nothing to write.
    if entry.origin != AgentOrigin::Demo {
        fx.push(Effect::PinKeyInConfig {
            url: entry.target.url.clone(),
            thumbprint: thumbprint.clone(),
        });
    }
    app.set_status(format!("pinned key sha256:{thumbprint}"), false);
    fx
}
