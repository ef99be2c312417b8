//! Code-flow sign-ins inside the console: started from the approval dialog (`o`, for one request) or
//! from the agent list (for an agent that is card only until someone signs in), shown in one dialog,
//! and ended by [`done`]: the token set is already kept for the agent by the runtime, so the agent is
//! connected again and its later calls carry the token.

use crate::app::agent::Reachability;
use crate::app::ids::AgentId;
use crate::app::msg::{ApprovalCredential, Effect};
use crate::app::state::{App, CodeFlowView, Overlay, PromptKind, SignInFor};
use crate::config::keymap::actions::Action;
use crate::remote::auth::Secret;
use crate::remote::auth::sign_in::Plan;

/// The agent a sign-in is for.
pub(super) fn agent_of(app: &App, owner: SignInFor) -> Option<AgentId> {
    match owner {
        SignInFor::Approval(tab) => app.tab(tab).map(|t| t.agent),
        SignInFor::Agent(a) => Some(a),
    }
}

/// The sign-in for the agent: its own `[agents.auth]` when that signs a person in (so the token is
/// kept for its later calls), else — only for an approval — the card's first code-flow scheme with the
/// default client id. `None` when the card has no such scheme or the agent asks for the device flow.
pub(super) fn plan_for(app: &App, owner: SignInFor) -> Result<Plan, String> {
    let agent = agent_of(app, owner)
        .and_then(|a| app.agent(a))
        .ok_or("the agent is gone")?;
    let card = &agent
        .info()
        .ok_or_else(|| format!("{}: its card has not loaded", agent.name()))?
        .card
        .card;
    let scope = agent.target.scope().map_err(|e| e.message)?;
    let auth = agent.target.auth.as_ref().filter(|a| a.signs_in_a_person());
    if auth.is_some_and(|a| a.flow.as_deref() == Some("device_code")) {
        return Err(format!(
            "{}: its [agents.auth] asks for the device flow: sign in with `a2a-console login`, or with Ctrl-O in an approval dialog",
            agent.name()
        ));
    }
    if matches!(owner, SignInFor::Agent(_)) && auth.is_none() {
        return Err(format!(
            "{}: nothing to sign in to — its [agents.auth] is not type = \"oauth2\" (code flow) or \"openid_connect\"",
            agent.name()
        ));
    }
    let timeout = agent.target.timeout;
    crate::remote::auth::sign_in::plan(auth, card, &scope)
        .map(|p| p.within(timeout))
        .map_err(|e| {
        match auth.and_then(|a| crate::remote::auth::sign_in::device_plan(a, card, &scope)) {
            Some(_) => format!(
                "{}: its card offers only the device-code flow: sign in with `a2a-console login {}`, or with o in \
                 an approval dialog",
                agent.name(),
                agent.name()
            ),
            None => format!("{}: {e}", agent.name()),
        }
    })
}

/// The agent list's sign-in key: open the code-flow dialog for the selected agent.
pub(super) fn sign_in_selected(app: &mut App) -> Vec<Effect> {
    let Some(agent) = app.agents.get(app.selected_agent).map(|a| a.id) else {
        return vec![];
    };
    let owner = SignInFor::Agent(agent);
    match plan_for(app, owner) {
        Ok(plan) => start(app, owner, plan),
        Err(e) => {
            app.set_status(e, true);
            vec![]
        }
    }
}

/// Opens the dialog and asks the runtime to run the flow.
pub(super) fn start(app: &mut App, owner: SignInFor, plan: Plan) -> Vec<Effect> {
    let Some(agent) = agent_of(app, owner).and_then(|a| app.agent(a)) else {
        return vec![];
    };
    let Ok(scope) = agent.target.scope() else {
        return vec![];
    };
    let auth = agent
        .target
        .auth
        .clone()
        .filter(|a| a.signs_in_a_person())
        .map(Box::new);
    let label = agent.target.label.clone();
    let audit = format!(
        "decision=sign-in flow={} scheme={:?} scopes={:?}",
        plan.flow,
        plan.scheme,
        plan.scopes.join(" ")
    );
    app.code_flow = Some(CodeFlowView {
        owner,
        flow: plan.flow,
        url: None,
        port: None,
        since: app.now,
    });
    app.overlay = Some(Overlay::CodeFlow { owner });
    let mut fx = Vec::new();
    // The audit line of an approval goes with its task's ids; a sign-in from the agent list is audited
    // by the runtime's sign-in itself (`remote::auth::sign_in::finish`).
    if let SignInFor::Approval(tab) = owner {
        fx.push(Effect::Audit { tab, line: audit });
    }
    fx.push(Effect::CodeFlow {
        owner,
        plan: Box::new(plan),
        auth,
        scope: Box::new(scope),
        label,
    });
    fx
}

/// The flow is ready: the address and port for the dialog, or why not.
pub(super) fn started(
    app: &mut App,
    owner: SignInFor,
    result: Result<(String, u16), String>,
) -> Vec<Effect> {
    match (result, app.code_flow.as_mut()) {
        (Ok((url, port)), Some(view)) if view.owner == owner => {
            view.url = Some(url);
            view.port = Some(port);
        }
        (Ok(_), _) => {}
        (Err(e), _) => failed(app, owner, &e),
    }
    vec![]
}

fn failed(app: &mut App, owner: SignInFor, e: &str) {
    match owner {
        SignInFor::Approval(tab) => {
            if let Some(t) = app.tab_mut(tab) {
                t.note(format!("sign-in failed: {e}"), true);
            }
        }
        SignInFor::Agent(_) => app.set_status(format!("sign-in failed: {e}"), true),
    }
}

/// A sign-in ended. An approval is sent with the token; either way an agent whose `[agents.auth]`
/// signs a person in is connected again, so the token set the sign-in kept is on its later calls.
pub(super) fn done(
    app: &mut App,
    owner: SignInFor,
    result: Result<Secret, String>,
    source: &'static str,
) -> Vec<Effect> {
    let showing = match &app.overlay {
        Some(Overlay::DeviceCode { tab, .. }) => owner == SignInFor::Approval(*tab),
        Some(Overlay::CodeFlow { owner: o }) => *o == owner,
        Some(Overlay::Prompt {
            kind: PromptKind::RedirectUrl(o),
            ..
        }) => *o == owner,
        _ => false,
    };
    if showing {
        app.overlay = None;
    }
    if app.code_flow.as_ref().is_some_and(|v| v.owner == owner) {
        app.code_flow = None;
    }
    let token = match result {
        Ok(t) => t,
        Err(e) => {
            failed(app, owner, &e);
            return vec![];
        }
    };
    let mut fx = match owner {
        SignInFor::Approval(tab) => {
            super::approval::approve(app, tab, ApprovalCredential::Pasted(token), source)
        }
        SignInFor::Agent(_) => vec![],
    };
    if let Some(agent) = agent_of(app, owner) {
        let name = app.agent(agent).map(|a| a.name()).unwrap_or_default();
        let again = reconnect(app, agent);
        if matches!(owner, SignInFor::Agent(_)) {
            app.set_status(
                if again.is_empty() {
                    format!("signed in to {name}")
                } else {
                    format!("signed in to {name}; connecting with the token…")
                },
                false,
            );
        }
        fx.extend(again);
    }
    fx
}

/// Connect the agent again (card revalidated, client rebuilt with the remembered token) when its
/// `[agents.auth]` signs a person in; otherwise the token approved one request and nothing changes.
fn reconnect(app: &mut App, agent: AgentId) -> Vec<Effect> {
    let Some(entry) = app.agent_mut(agent) else {
        return vec![];
    };
    if !entry
        .target
        .auth
        .as_ref()
        .is_some_and(|a| a.signs_in_a_person())
    {
        return vec![];
    }
    // A running approval keeps the agent's client until the new one replaces it, so only an agent that
    // is not callable shows as loading.
    if entry.callable().is_none() {
        entry.state = Reachability::Loading;
    }
    vec![Effect::LoadAgent {
        agent,
        target: Box::new(entry.target.clone()),
        refresh: false,
    }]
}

/// The card-only reason the console shows for an agent nobody has signed in to: the key that signs in.
pub(super) fn not_signed_in_reason(app: &App) -> String {
    let keys = app.keymap.keys_for(Action::SignIn).join("/");
    if keys.is_empty() {
        "not signed in: sign in from the command palette (sign_in)".into()
    } else {
        format!("not signed in: press {keys} on the agent list to sign in")
    }
}
