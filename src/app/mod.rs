//! The console's state machine: state, messages in, effects out, and `update`. No network, no terminal.

pub mod agent;
pub mod agent_key;
pub mod attach;
pub mod board;
pub mod compare;
pub mod draft;
pub mod guard;
pub mod help;
pub mod history;
pub mod ids;
pub mod incremental;
pub mod kept;
pub mod layout;
pub mod lookalike;
pub mod msg;
pub mod names;
pub mod parts;
pub mod record;
pub mod save;
pub mod scroll;
pub mod search;
pub mod short_id;
pub mod spool;
pub mod state;
pub mod status;
pub mod task;
pub mod typed_url;
pub mod update;

use std::path::PathBuf;

/// The message the user is sending: text, files to attach (read by the runtime), and which task/context.
#[derive(Debug, Clone, PartialEq)]
pub struct Outgoing {
    /// Minted here so the audit log can name the message before the agent has answered.
    pub message_id: String,
    pub text: String,
    pub files: Vec<PathBuf>,
    pub task_id: Option<String>,
    pub context_id: Option<String>,
}

pub fn outgoing(
    text: String,
    files: Vec<PathBuf>,
    task_id: Option<String>,
    context_id: Option<String>,
) -> Outgoing {
    Outgoing {
        message_id: a2a::new_message_id(),
        text,
        files,
        task_id,
        context_id,
    }
}
