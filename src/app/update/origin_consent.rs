//! The user's yes to a card interface on another origin than the agent's (issue 9, item 4). A card alone never
//! decides where the console connects: an agent whose only usable interface is elsewhere stays card only until
//! the user, on its row, asks to review it (`O`), sees both origins, and says yes. The yes adds that origin to
//! the agent's allowed origins for this session (not written to the config: a card that moves its interface
//! again is asked about again next run), and the agent is connected anew.

use crate::app::agent::Reachability;
use crate::app::ids::AgentId;
use crate::app::msg::Effect;
use crate::app::state::{App, Overlay};

/// `O` on the agent list: ask about the selected agent's interface on another origin, or say why there is
/// nothing to ask.
pub(super) fn offer(app: &mut App) -> Vec<Effect> {
    let Some(entry) = app.selected() else {
        return vec![];
    };
    let agent = entry.id;
    let elsewhere = entry
        .info()
        .and_then(|i| crate::remote::connect::agent::elsewhere(&i.card.card, &entry.target));
    let home = entry.target.scope().ok().map(|s| s.home.to_string());
    match (elsewhere, home) {
        (Some(origin), Some(home)) => {
            app.overlay = Some(Overlay::ConfirmOrigin {
                agent,
                origin: origin.to_string(),
                home,
            });
        }
        _ => app.set_status(
            "the selected agent's interface is on its own origin (or its card has not loaded): nothing to allow"
                .to_string(),
            false,
        ),
    }
    vec![]
}

/// The user said yes: calls to `origin` are allowed for this agent for the rest of the session, and it is
/// connected again so the interface there is used.
pub(super) fn allow(app: &mut App, agent: AgentId, origin: String) -> Vec<Effect> {
    let Some(entry) = app.agents.iter_mut().find(|a| a.id == agent) else {
        return vec![];
    };
    if !entry.target.allowed_origins.contains(&origin) {
        entry.target.allowed_origins.push(origin.clone());
    }
    entry.state = Reachability::Loading;
    let fx = vec![Effect::LoadAgent {
        agent,
        target: Box::new(entry.target.clone()),
        refresh: false,
    }];
    app.set_status(format!("{origin} allowed for this session"), false);
    fx
}
