//! The last check before the runtime is asked to call an agent: a card-only agent (its card loaded, but no
//! interface can be used) is never called. Each call meant for one becomes a note on its tab saying why, so
//! the user sees a reason instead of a request that cannot go anywhere (the runtime has no client for it).

use crate::app::ids::{AgentId, TabId};
use crate::app::msg::Effect;
use crate::app::state::App;
use crate::app::task::Link;

/// The agent and tab a remote call is for, when the effect is one.
fn call_target(e: &Effect) -> Option<(AgentId, Option<TabId>)> {
    match e {
        Effect::Send { tab, agent, .. }
        | Effect::Subscribe { tab, agent, .. }
        | Effect::Resubscribe { tab, agent, .. }
        | Effect::Cancel { tab, agent, .. }
        | Effect::RefreshTask { tab, agent, .. }
        | Effect::Approve { tab, agent, .. }
        | Effect::RegisterPush { tab, agent, .. }
        | Effect::ListPush { tab, agent, .. }
        | Effect::DeletePush { tab, agent, .. } => Some((*agent, Some(*tab))),
        Effect::ImportTasks { agent, .. } => Some((*agent, None)),
        _ => None,
    }
}

/// Drop the calls meant for card-only agents, saying why on the tab (or the status line).
pub(super) fn hold_calls_to_card_only_agents(app: &mut App, fx: Vec<Effect>) -> Vec<Effect> {
    let mut kept = Vec::with_capacity(fx.len());
    for e in fx {
        let why = call_target(&e).and_then(|(agent, tab)| {
            let a = app.agent(agent)?;
            // Only agents whose card loaded without a usable interface; loading or failed ones are the
            // runtime's to handle as before.
            a.info()?.card_only()?;
            Some((a.why_not_callable()?, tab))
        });
        match why {
            None => kept.push(e),
            Some((why, Some(tab))) => {
                if let Some(t) = app.tab_mut(tab) {
                    t.link = Link::Idle;
                    t.note(why, true);
                }
            }
            Some((why, None)) => app.set_status(why, true),
        }
    }
    kept
}
