//! Agents that look alike are told apart. An agent's card picks its own name, so a hostile agent can call itself
//! exactly what another agent is called, or something that only looks the same ("Аcme" with a Cyrillic А,
//! "rnicrosoft"). Two agents on different origins whose names (the configured label or the card's name) have
//! the same UTS #39 confusable skeleton are both marked, with their origin, wherever the name is shown.

use std::collections::HashMap;

use super::ids::AgentId;
use super::state::App;

/// The marks worked out for the agents as they were last seen.
#[derive(Debug, Default)]
pub struct Lookalikes {
    /// What they were worked out from: (agent, names, origin), so unchanged agents cost no recomputation.
    from: Vec<(AgentId, Vec<String>, String)>,
    /// Marked agents and the origin (scheme stripped) to show beside their name.
    marked: HashMap<AgentId, String>,
}

/// The form two names share when a reader could take one for the other: lower-cased, then the confusable
/// skeleton of Unicode Technical Standard #39 (which folds homoglyphs across scripts).
pub fn skeleton(name: &str) -> String {
    let lower = name.trim().to_lowercase();
    unicode_security::confusable_detection::skeleton(&lower).collect()
}

/// Where an agent lives, short enough for a tab title: `127.0.0.1:9001`, `agents.example.com`.
fn origin_of(url: &str) -> String {
    let o = crate::remote::auth::origin::Origin::of(url).map_or_else(
        || crate::trust::sanitize::sanitize_line(url).0,
        |o| o.to_string(),
    );
    o.strip_prefix("https://")
        .or_else(|| o.strip_prefix("http://"))
        .map_or_else(|| o.clone(), str::to_string)
}

impl App {
    /// Mark the agents whose names look alike (call when agents are added, removed or their cards load).
    pub fn refresh_lookalikes(&mut self) {
        let from: Vec<(AgentId, Vec<String>, String)> = self
            .agents
            .iter()
            .map(|a| {
                let mut names = vec![a.name()];
                if let Some(i) = a.info()
                    && !i.name.is_empty()
                {
                    names.push(i.name.clone());
                }
                (a.id, names, origin_of(&a.target.url))
            })
            .collect();
        if from == self.lookalikes.from {
            return;
        }
        let skeletons: Vec<(AgentId, Vec<String>, &str)> = from
            .iter()
            .map(|(id, names, origin)| {
                let mut s: Vec<String> = names.iter().map(String::as_str).map(skeleton).collect();
                s.retain(|k| !k.is_empty());
                (*id, s, origin.as_str())
            })
            .collect();
        let mut marked = HashMap::new();
        for (i, (a, names_a, origin_a)) in skeletons.iter().enumerate() {
            for (b, names_b, origin_b) in skeletons.iter().skip(i + 1) {
                // The same server listed twice (another binding, say) is not an impostor.
                if origin_a == origin_b {
                    continue;
                }
                if names_a.iter().any(|n| names_b.contains(n)) {
                    marked.insert(*a, origin_a.to_string());
                    marked.insert(*b, origin_b.to_string());
                }
            }
        }
        self.lookalikes = Lookalikes { from, marked };
    }

    /// The origin to show beside an agent's name when another agent's name looks like it.
    pub fn lookalike_origin(&self, agent: AgentId) -> Option<&str> {
        self.lookalikes.marked.get(&agent).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::skeleton;

    #[test]
    fn homoglyphs_and_case_share_a_skeleton() {
        assert_eq!(skeleton("Acme"), skeleton("\u{0410}cme"), "Cyrillic А");
        assert_eq!(skeleton("Acme"), skeleton("acme"));
        assert_eq!(skeleton("paypal"), skeleton("p\u{0430}yp\u{0430}l"));
        assert_eq!(skeleton("microsoft"), skeleton("rnicrosoft"));
        assert_ne!(skeleton("Acme"), skeleton("Acne"));
    }
}
