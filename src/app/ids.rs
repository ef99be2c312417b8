//! The identities every other file of `app/` uses: a tab's and an agent's for this run. They live apart from
//! the models they name so that the files of `app/` need not import each other in a circle to name one.

/// A tab's identity for this run (tabs are numbered as they open; the store knows a tab by its key instead).
pub type TabId = u64;

/// A configured agent's identity for this run: tabs, messages, effects and the runtime's maps hold this, never a
/// position in the list (which shifts when an agent is removed). What survives restarts is
/// [`AgentEntry::key`](super::agent::AgentEntry::key).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct AgentId(pub u64);
