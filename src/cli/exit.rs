//! The CLI's exit codes: one meaning each, stable for scripts, documented in `--help` and the README.

use a2a::TaskState;

use crate::remote::error::{ErrorKind, RemoteError};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Exit {
    /// Done: the task completed, or the agent replied with a direct message.
    Done = 0,
    /// Usage or configuration error; or the command does not exist in the protocol the agent speaks (`list`
    /// over A2A 0.3, which has no ListTasks): it cannot be done with this agent, and nothing is sent.
    Usage = 2,
    /// Network or transport error (unreachable, not A2A, broken stream).
    Transport = 3,
    /// The agent returned an error object.
    Agent = 4,
    /// The task ended failed, rejected or canceled.
    TaskUnsuccessful = 5,
    /// The task waits for the user (input-required, auth-required); stderr says how to continue it
    /// (`report::waiting`).
    Waiting = 6,
    /// `card`: the card of an agent whose signing key is pinned or configured came signed by another key, or
    /// with no signature at all (the card is still printed).
    SignatureAlarm = 7,
    /// `check`: the agent fails at least one MUST requirement (the report is still printed in full).
    CheckFailed = 8,
    /// `test`: at least one case failed (every result is still printed, and kept).
    SuiteFailed = 9,
    /// Stdout could not be written: a reader such as `head` closed the pipe (quietly, the code a shell gives a
    /// tool killed by SIGPIPE), or another write error (said on stderr). See `print.rs`.
    OutputClosed = 141,
}

pub const EXIT_CODES_HELP: &str = "Exit codes: 0 done (task completed, or a direct message reply); 2 usage or config error, \
or a command the agent's protocol lacks (list over A2A 0.3); 3 network/transport error; 4 error returned by the agent; \
5 task ended failed, rejected or canceled; 6 task is waiting for you (input-required or auth-required; stderr says \
how to continue); 7 (card) the agent's pinned or configured signing \
key did not sign the card: signed by another key, or the signature removed; 8 (check) the agent fails a MUST \
requirement; 9 (test) a suite case failed; 141 stdout closed early (e.g. piped to head) or not \
writable. With --json, errors (and the exit-6 hint) are one JSON object per line on stderr.";

impl Exit {
    pub fn code(self) -> u8 {
        self as u8
    }

    pub fn for_error(e: &RemoteError) -> Self {
        match e.kind {
            ErrorKind::Usage => Exit::Usage,
            ErrorKind::Transport => Exit::Transport,
            ErrorKind::Agent => Exit::Agent,
        }
    }

    /// The code for a task's state once we stop watching it.
    pub fn for_state(state: &TaskState) -> Self {
        match state {
            TaskState::Failed | TaskState::Rejected | TaskState::Canceled => Exit::TaskUnsuccessful,
            TaskState::InputRequired | TaskState::AuthRequired => Exit::Waiting,
            _ => Exit::Done,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_and_errors_map_to_documented_codes() {
        assert_eq!(Exit::for_state(&TaskState::Completed).code(), 0);
        assert_eq!(Exit::for_state(&TaskState::Failed).code(), 5);
        assert_eq!(Exit::for_state(&TaskState::Rejected).code(), 5);
        assert_eq!(Exit::for_state(&TaskState::Canceled).code(), 5);
        assert_eq!(Exit::for_state(&TaskState::InputRequired).code(), 6);
        assert_eq!(Exit::for_state(&TaskState::AuthRequired).code(), 6);
        assert_eq!(Exit::for_error(&RemoteError::usage("x")).code(), 2);
        assert_eq!(Exit::for_error(&RemoteError::transport("x")).code(), 3);
        assert_eq!(Exit::for_error(&RemoteError::agent(-32001, "x")).code(), 4);
    }
}
