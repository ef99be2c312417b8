//! Up-arrow recall in the compose box: the messages sent from any tab of this run, and the list a tab walks —
//! its own earlier messages (replayed from the store) behind this run's, each once, at its latest place.

use std::collections::HashSet;

/// Messages of this run kept for recall.
const KEPT: usize = 500;

#[derive(Debug, Default)]
pub struct SentHistory {
    /// Oldest first; no duplicates (sending a message again moves it to the end).
    sent: Vec<String>,
}

impl SentHistory {
    pub fn push(&mut self, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        self.sent.retain(|s| s != text);
        self.sent.push(text.to_string());
        if self.sent.len() > KEPT {
            self.sent.remove(0);
        }
    }

    /// What a tab recalls, oldest first (Up walks it from the end): `own` (the tab's messages, from the store
    /// and this run), then this run's from every tab, each message once at its latest place.
    pub fn recall(&self, own: &[String]) -> Vec<String> {
        let mut seen = HashSet::new();
        let mut newest_first: Vec<String> = self
            .sent
            .iter()
            .rev()
            .chain(own.iter().rev())
            .filter(|s| seen.insert(s.as_str()))
            .cloned()
            .collect();
        newest_first.reverse();
        newest_first
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tab_recalls_its_stored_messages_behind_this_run_s_each_once() {
        let mut h = SentHistory::default();
        h.push("a");
        h.push("  ");
        h.push("b");
        h.push("a");
        let own = vec!["old".to_string(), "b".to_string()];
        assert_eq!(h.recall(&own), ["old", "b", "a"]);
        assert_eq!(SentHistory::default().recall(&own), ["old", "b"]);
    }
}
