//! Short task ids that tell tasks apart. A UUIDv7 (what the SDKs mint) starts with its timestamp, so two
//! tasks begun in the same millisecond share their first 8 hex digits: the short form is the id's random
//! tail instead, and it grows among the open tabs until no two tasks look alike.

use std::collections::HashMap;

use super::ids::TabId;
use crate::task::short_id::tail;

/// How many characters a short id starts with.
pub const SHORT: usize = 8;

/// A short id for each of the given `(tab, agent, task id)`s: the tail of [`SHORT`] characters, lengthened four
/// at a time for the ids that would otherwise look alike (the same task open twice keeps one short id). Two
/// agents may mint the same task id (one agent can copy another's on purpose): those short ids get the agent's
/// rank among them, `#1`, `#2`, so a task of one is never taken for the other's.
pub fn distinct(ids: &[(TabId, u64, &str)]) -> HashMap<TabId, String> {
    let by_id: Vec<(TabId, &str)> = ids.iter().map(|(t, _, i)| (*t, *i)).collect();
    let mut out = lengthened(&by_id);
    let mut by_short: HashMap<String, Vec<(TabId, u64)>> = HashMap::new();
    for (tab, agent, _) in ids {
        if let Some(short) = out.get(tab) {
            by_short
                .entry(short.clone())
                .or_default()
                .push((*tab, *agent));
        }
    }
    for (short, group) in by_short {
        let mut agents: Vec<u64> = group.iter().map(|g| g.1).collect();
        agents.sort_unstable();
        agents.dedup();
        if agents.len() < 2 {
            continue;
        }
        for (tab, agent) in group {
            let rank = agents.iter().position(|a| *a == agent).unwrap_or(0) + 1;
            out.insert(tab, format!("{short}#{rank}"));
        }
    }
    out
}

/// [`distinct`] by task id alone.
fn lengthened(ids: &[(TabId, &str)]) -> HashMap<TabId, String> {
    let mut out = HashMap::new();
    let mut n = SHORT;
    let mut pending: Vec<(TabId, &str)> = ids.to_vec();
    while !pending.is_empty() {
        let mut by_short: HashMap<String, Vec<(TabId, &str)>> = HashMap::new();
        for (tab, id) in &pending {
            by_short.entry(tail(id, n)).or_default().push((*tab, id));
        }
        let mut again = Vec::new();
        for (short, group) in by_short {
            let first = group.first().map(|g| g.1).unwrap_or_default();
            let alike = group.iter().all(|g| g.1 == first);
            // Once the whole id shows, longer cannot help: keep it.
            if alike || tail(first, n + 4) == short {
                for (tab, _) in group {
                    out.insert(tab, short.clone());
                }
            } else {
                again.extend(group);
            }
        }
        pending = again;
        n += 4;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_uuid_v7_is_shortened_to_its_random_tail() {
        let id = "01a230b3-6f1e-7c2a-9d4b-1234abcd5678";
        assert_eq!(tail(id, 8), "abcd5678");
        assert_eq!(tail(id, 12), "1234abcd5678");
        assert_eq!(tail("task-0002", 8), "task-0002", "a short id stays whole");
        assert_eq!(tail("01HZX3K9Q8W2M5N7P4R6T8V0Y2", 8), "R6T8V0Y2");
    }

    #[test]
    fn two_ids_with_the_same_time_prefix_and_tail_lengthen_until_they_differ() {
        let a = "01a230b3-6f1e-7c2a-9d4b-00ff11112222";
        let b = "01a230b3-6f1e-7c2a-8e5c-77ff11112222";
        let c = "01a230b3-6f1e-7c2a-9d4b-1234abcd5678";
        let short = distinct(&[(1, 1, a), (2, 1, b), (3, 1, c), (4, 1, a)]);
        assert_eq!(short[&3], "abcd5678", "no collision: eight");
        assert_ne!(short[&1], short[&2]);
        assert_eq!(short[&1], "00ff11112222");
        assert_eq!(short[&1], short[&4], "the same task keeps one short id");
    }

    #[test]
    fn two_agents_tasks_with_the_same_id_get_different_short_ids() {
        let id = "01a230b3-6f1e-7c2a-9d4b-1234abcd5678";
        let short = distinct(&[(1, 7, id), (2, 9, id), (3, 7, id), (4, 9, "task-1")]);
        assert_eq!(short[&1], "abcd5678#1");
        assert_eq!(short[&2], "abcd5678#2");
        assert_eq!(
            short[&1], short[&3],
            "one agent's task open twice keeps one short id"
        );
        assert_eq!(short[&4], "task-1");
    }
}
