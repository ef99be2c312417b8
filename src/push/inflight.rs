//! Requests in flight per registration and per agent, so one sender cannot take every place of the push
//! receiver. The connection cap (`conn`) only protects the receiver as a whole: an agent with a valid path
//! and token could open as many connections as the cap allows, send a request head each and then trickle
//! its bodies, and every other agent's push was refused ("all connections are busy") until those bodies
//! timed out, again and again. A request counts here from the moment its token is accepted until its
//! handler returns (the body read is the slow part); over the limit it is refused before its body is read,
//! and its connection is closed.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// The counts, shared by the requests of one receiver.
pub(super) struct InFlight<A> {
    per_registration: usize,
    per_agent: usize,
    counts: Mutex<Counts<A>>,
}

struct Counts<A> {
    by_path: HashMap<String, usize>,
    by_agent: HashMap<A, usize>,
}

/// Which limit a refused request ran into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Crowded {
    /// This registration (one agent's task) already has this many requests in flight.
    Registration(usize),
    /// This agent, over all its registrations, already has this many.
    Agent(usize),
}

/// One request's place; given back when dropped (whatever way the handler ends).
pub(super) struct Slot<A: Eq + Hash + Clone> {
    owner: Arc<InFlight<A>>,
    path: String,
    agent: A,
}

impl<A: Eq + Hash + Clone> InFlight<A> {
    /// Zero limits are raised to one: a registration must always be able to deliver something.
    pub(super) fn new(per_registration: usize, per_agent: usize) -> InFlight<A> {
        InFlight {
            per_registration: per_registration.max(1),
            per_agent: per_agent.max(1),
            counts: Mutex::new(Counts {
                by_path: HashMap::new(),
                by_agent: HashMap::new(),
            }),
        }
    }

    /// A place for a request on `path` (a registration's id) of `agent`, unless either is at its limit.
    pub(super) fn enter(self: &Arc<Self>, path: &str, agent: &A) -> Result<Slot<A>, Crowded> {
        let mut c = lock(&self.counts);
        let on_path = c.by_path.get(path).copied().unwrap_or(0);
        if on_path >= self.per_registration {
            return Err(Crowded::Registration(on_path));
        }
        let of_agent = c.by_agent.get(agent).copied().unwrap_or(0);
        if of_agent >= self.per_agent {
            return Err(Crowded::Agent(of_agent));
        }
        *c.by_path.entry(path.to_owned()).or_default() += 1;
        *c.by_agent.entry(agent.clone()).or_default() += 1;
        Ok(Slot {
            owner: Arc::clone(self),
            path: path.to_owned(),
            agent: agent.clone(),
        })
    }
}

impl<A: Eq + Hash + Clone> Drop for Slot<A> {
    fn drop(&mut self) {
        let mut c = lock(&self.owner.counts);
        // Entries at zero are removed, so the maps never outgrow what is in flight now.
        if let Some(n) = c.by_path.get_mut(&self.path) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                c.by_path.remove(&self.path);
            }
        }
        if let Some(n) = c.by_agent.get_mut(&self.agent) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                c.by_agent.remove(&self.agent);
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_are_counted_per_registration_and_per_agent_and_given_back() {
        let f: Arc<InFlight<&str>> = Arc::new(InFlight::new(2, 3));
        let a1 = f.enter("p1", &"x").unwrap();
        let _a2 = f.enter("p1", &"x").unwrap();
        assert_eq!(f.enter("p1", &"x").err(), Some(Crowded::Registration(2)));
        let _b1 = f.enter("p2", &"x").unwrap();
        assert_eq!(f.enter("p3", &"x").err(), Some(Crowded::Agent(3)));
        // Another agent is not affected by x's crowd.
        let _y = f.enter("p9", &"y").unwrap();
        drop(a1);
        assert!(f.enter("p1", &"x").is_ok());
    }
}
