//! The stable key an agent's stored tabs are filed under: worked out from its config entry, so it is the same
//! every start, and so a renamed agent's entry (and its tabs) can be found again.

use super::agent::AgentOrigin;
use crate::remote::connect::agent::AgentTarget;

/// The stable key of an agent entry, from the entry itself (name, URL, binding, protocol), so editing or
/// removing *other* entries never changes it and two entries on one URL with different bindings (or two
/// identities on one agent, each with its own name and credential) stay apart.
/// The demo agent listens on a new port each run: it is simply `demo`.
///
/// Renaming an agent changes its key. The name stays in the key (rather than the key being made independent of
/// it) because the name is the one thing that tells two otherwise equal entries apart, and because every store
/// written so far files tabs under keys with names in them. So a rename moves the agent's stored tabs to the
/// new key instead ([`crate::store::record::Record::AgentKey`]), once the config file holds the new name: the
/// key the next start computes from the file and the key the store files the tabs under never disagree
/// (see `app::update::rename`).
pub fn agent_key(target: &AgentTarget, origin: AgentOrigin) -> String {
    if origin == AgentOrigin::Demo {
        return "demo".into();
    }
    let opt = |v: Option<String>| v.unwrap_or_default();
    format!(
        "{}|{}|{}|{}",
        target.label,
        target.url,
        opt(target.prefs.binding.map(|b| format!("{b:?}"))),
        opt(target.prefs.protocol.map(|p| format!("{p:?}")))
    )
}

/// `base`, or `base#2`, `base#3` … when it is `taken`: two identical entries, the second is `…#2` (stable as
/// long as the duplicates stay duplicates, in the order the config file lists them).
pub fn unique_key(base: &str, taken: impl Fn(&str) -> bool) -> String {
    let mut key = base.to_string();
    let mut n = 1;
    while taken(&key) {
        n += 1;
        key = format!("{base}#{n}");
    }
    key
}

/// Which of the config file's agent entries has the stable key `key` (the keys
/// [`App::insert_agent`](crate::app::state::App::insert_agent) gives them, in the file's order), so the console
/// edits the entry the user sees, not another on the same URL.
pub fn config_entry_with_key(agents: &[crate::config::AgentConfig], key: &str) -> Option<usize> {
    let mut keys: Vec<String> = Vec::new();
    for (i, a) in agents.iter().enumerate() {
        // An entry the console could not read never became an agent, so it has no key.
        let Ok(target) = AgentTarget::from_config(a, std::time::Duration::ZERO) else {
            continue;
        };
        let k = unique_key(&agent_key(&target, AgentOrigin::Config), |k| {
            keys.iter().any(|x| x == k)
        });
        if k == key {
            return Some(i);
        }
        keys.push(k);
    }
    None
}
