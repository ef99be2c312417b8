//! The A2A task model that the console (`app/`), the CLI (`cli/`) and the store (`store/`) share: the one gate
//! every task event passes (`log`: dedupe, order, legal transitions, limits), where a task stands (`phase`),
//! the user's outgoing messages (`outgoing`) and the (de)serialisation of the SDK's task and event types
//! (`event_serde`, and `quick_json` for the two events a flood is made of). It imports nothing from the folders that use it.

pub mod event_serde;
pub mod log;
pub mod outgoing;
pub mod phase;
pub mod quick_json;
pub mod short_id;
