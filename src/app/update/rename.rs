//! Naming agents: the short name `a` asks for after the URL, and renaming an agent (`R` on the agent list, or
//! `rename_agent` in the palette). Agents often share most of a name ("A2A Acceptance Python 1.0", "… JS 1.0"),
//! and the card picks it; the user's own name is saved to the config file's `[[agents]] name` and shown at once
//! in the list, the tab titles and the board.

use ratatui_textarea::{CursorMove, TextArea};

use crate::app::agent::{AgentEntry, AgentOrigin};
use crate::app::ids::AgentId;
use crate::app::msg::Effect;
use crate::app::state::{App, Overlay, PromptKind, agent_key, unique_key};
use crate::remote::connect::agent::AgentTarget;
use crate::store::record::Record;

/// `R`: ask for the selected agent's new name, starting from the name it shows now.
pub(super) fn ask(app: &mut App) -> Vec<Effect> {
    let Some(a) = app.selected() else {
        return vec![];
    };
    if a.origin == AgentOrigin::Demo {
        app.set_status(
            "the demo agent is not in the config file: it keeps its name",
            true,
        );
        return vec![];
    }
    let (agent, name) = (a.id, a.name());
    open(app, agent, false, name);
    vec![]
}

/// Right after `a` added an agent: ask for a short name. The card is rarely in yet; when it arrives while the
/// answer is still empty, its name is offered ([`offer_card_name`]).
pub(super) fn ask_short_name(app: &mut App, agent: AgentId) {
    let name = card_name(app, agent).unwrap_or_default();
    open(app, agent, true, name);
}

fn open(app: &mut App, agent: AgentId, adding: bool, text: String) {
    let mut input = TextArea::from(vec![text]);
    input.move_cursor(CursorMove::End);
    app.overlay = Some(Overlay::Prompt {
        kind: PromptKind::AgentName { agent, adding },
        input: Box::new(input),
    });
}

/// The card's name (sanitised when the card was read), when the card is in and names the agent.
fn card_name(app: &App, agent: AgentId) -> Option<String> {
    app.agent(agent)?
        .info()
        .map(|i| i.name.clone())
        .filter(|n| !n.is_empty())
}

/// The card of an agent being added arrived: its name fills the short-name prompt, unless the user has typed.
pub(super) fn offer_card_name(app: &mut App, agent: AgentId) {
    let Some(name) = card_name(app, agent) else {
        return;
    };
    if let Some(Overlay::Prompt {
        kind: PromptKind::AgentName {
            agent: a,
            adding: true,
        },
        input,
    }) = &mut app.overlay
        && *a == agent
        && input.is_empty()
    {
        input.insert_str(name);
    }
}

/// The name prompt answered (Enter; while adding, Esc too, as an empty answer). Empty, or the card's name as
/// offered, means no name of its own: the agent shows its card's name, and follows it when the card changes.
pub(super) fn named(app: &mut App, agent: AgentId, adding: bool, typed: &str) -> Vec<Effect> {
    let Some(entry) = app.agent(agent) else {
        return vec![];
    };
    // Typed or pasted by the user, so not remote text, but it goes to the config file and the screen: one
    // plain line.
    let typed: String = typed.chars().filter(|c| !c.is_control()).collect();
    let typed = typed.trim();
    // The card's name as offered (trimmed like the answer): taking the offer keeps no name of the user's own.
    let card = entry.info().map(|i| i.name.trim()).unwrap_or("");
    let name = (!typed.is_empty() && typed != card).then(|| typed.to_string());
    // An entry without a name is labelled with its URL (that is how `AgentEntry::name` knows to show the card's).
    let label = name.clone().unwrap_or_else(|| entry.target.url.clone());
    let url = entry.target.url.clone();
    if adding {
        set_label(app, agent, &label);
        // The prompt opened with the agent, so nothing can be filed under the key it was added with yet: the key
        // simply follows the name, as the next start will compute it from the file.
        if let Some(key) = app.agent(agent).map(|e| new_key(app, agent, &e.target))
            && let Some(e) = app.agent_mut(agent)
        {
            e.key = key;
        }
        return vec![Effect::AddAgentToConfig { url, name }];
    }
    if label == entry.target.label {
        app.set_status(format!("{} keeps its name", entry.name()), false);
        return vec![];
    }
    let key = entry.key.clone();
    let was = entry.name();
    set_label(app, agent, &label);
    let now = app.agent(agent).map(AgentEntry::name).unwrap_or_default();
    app.set_status(format!("renamed {was} to {now}"), false);
    vec![Effect::RenameAgentInConfig {
        agent,
        key,
        name,
        label,
    }]
}

/// The new name, everywhere at once: the agent list, its tabs' titles and headers, the board.
fn set_label(app: &mut App, agent: AgentId, label: &str) {
    let Some(entry) = app.agent_mut(agent) else {
        return;
    };
    entry.target.label = label.to_string();
    let name = entry.name();
    for t in app.tabs.iter_mut().filter(|t| t.agent == agent) {
        t.agent_name = name.clone();
    }
}

/// The stable key an agent with `target` gets, next to the other agents (see [`agent_key`]).
fn new_key(app: &App, agent: AgentId, target: &AgentTarget) -> String {
    let origin = app.agent(agent).map_or(AgentOrigin::Config, |a| a.origin);
    unique_key(&agent_key(target, origin), |k| {
        app.agents.iter().any(|a| a.id != agent && a.key == k)
    })
}

/// The config file holds the new name (or could not be written). Only now do the agent's stored tabs move to
/// the key the name gives: had they moved before a failed write, the next start, reading the old name, would
/// find none of them.
pub(super) fn saved(
    app: &mut App,
    agent: AgentId,
    label: String,
    result: Result<String, String>,
) -> Vec<Effect> {
    let said = match result {
        Ok(said) => said,
        Err(e) => {
            app.set_status(
                format!("{e}: the new name lasts until the console quits"),
                true,
            );
            return vec![];
        }
    };
    app.set_status(said, false);
    let Some(entry) = app.agent(agent) else {
        return vec![];
    };
    let mut target = entry.target.clone();
    target.label = label;
    let to = new_key(app, agent, &target);
    let (from, name) = (entry.key.clone(), entry.name());
    if from == to {
        return vec![];
    }
    if let Some(e) = app.agent_mut(agent) {
        e.key = to.clone();
    }
    vec![Effect::Record(Record::AgentKey { from, to, name })]
}
