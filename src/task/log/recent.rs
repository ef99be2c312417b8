//! A set that remembers only its most recent entries: the task log's memory of what it has already applied.
//!
//! Duplicates come from a second source close in time (a push and the stream carrying the same update, a
//! re-attached stream's first snapshot), not from 100,000 events back; an unbounded set grew by about 80
//! bytes per event on a long stream and was most of the CLI's memory on a 100,000-event one.

use std::collections::{HashSet, VecDeque};
use std::hash::Hash;

/// The gate's sets are looked up on every event: foldhash, seeded per process, rather than SipHash (which
/// measured 9 % of the CLI's time on a 100,000-event stream).
type Fast = foldhash::fast::RandomState;

/// How many entries are remembered.
pub const REMEMBERED: usize = 8192;

#[derive(Clone, Debug, Default)]
pub struct RecentSet<T: Eq + Hash + Clone> {
    set: HashSet<T, Fast>,
    order: VecDeque<T>,
}

impl<T: Eq + Hash + Clone> RecentSet<T> {
    pub fn contains(&self, v: &T) -> bool {
        self.set.contains(v)
    }

    /// Remember `v`; true when it was not remembered already. The oldest entry is forgotten past
    /// `REMEMBERED`.
    pub fn insert(&mut self, v: T) -> bool {
        if self.set.contains(&v) {
            return false;
        }
        if self.order.len() >= REMEMBERED
            && let Some(old) = self.order.pop_front()
        {
            self.set.remove(&old);
        }
        self.order.push_back(v.clone());
        self.set.insert(v);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_the_recent_and_forgets_the_oldest() {
        let mut s = RecentSet::default();
        assert!(s.insert(0u64));
        assert!(!s.insert(0));
        for i in 1..=REMEMBERED as u64 {
            assert!(s.insert(i));
        }
        // 0 was the oldest of REMEMBERED + 1 entries.
        assert!(!s.contains(&0));
        assert!(s.contains(&1) && s.contains(&(REMEMBERED as u64)));
    }
}
