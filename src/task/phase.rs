//! Where a task stands, in the words both the CLI and the console use: its phase (active, waiting for the
//! user, terminal), the lowercase names of its states, and parsing them back. How task data is applied lives in
//! the one gate, `task::log`.

use a2a::TaskState;

/// Where a task stands, from the client's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Submitted or working: more will come.
    Active,
    /// Input-required or auth-required: the agent waits for us.
    Interrupted,
    /// Completed, failed, canceled or rejected.
    Terminal,
}

pub fn phase(state: &TaskState) -> Phase {
    match state {
        TaskState::InputRequired | TaskState::AuthRequired => Phase::Interrupted,
        s if s.is_terminal() => Phase::Terminal,
        _ => Phase::Active,
    }
}

/// The lowercase, human name of a state ("input-required").
pub fn state_name(state: &TaskState) -> &'static str {
    match state {
        TaskState::Unspecified => "unspecified",
        TaskState::Submitted => "submitted",
        TaskState::Working => "working",
        TaskState::Completed => "completed",
        TaskState::Failed => "failed",
        TaskState::Canceled => "canceled",
        TaskState::InputRequired => "input-required",
        TaskState::Rejected => "rejected",
        TaskState::AuthRequired => "auth-required",
    }
}

/// Accept `working`, `input-required`, `TASK_STATE_WORKING`.
/// The error is the one-line usage message (`--state …: expected …`).
pub fn parse_state(s: &str) -> Result<TaskState, String> {
    let norm = s.trim().to_ascii_uppercase().replace('-', "_");
    let norm = norm
        .strip_prefix("TASK_STATE_")
        .unwrap_or(&norm)
        .to_string();
    Ok(match norm.as_str() {
        "SUBMITTED" => TaskState::Submitted,
        "WORKING" => TaskState::Working,
        "COMPLETED" => TaskState::Completed,
        "FAILED" => TaskState::Failed,
        "CANCELED" | "CANCELLED" => TaskState::Canceled,
        "INPUT_REQUIRED" => TaskState::InputRequired,
        "REJECTED" => TaskState::Rejected,
        "AUTH_REQUIRED" => TaskState::AuthRequired,
        _ => {
            return Err(format!(
                "--state {s:?}: expected submitted, working, input-required, auth-required, completed, failed, canceled or rejected"
            ));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_parse_in_every_spelling() {
        assert_eq!(parse_state("working").unwrap(), TaskState::Working);
        assert_eq!(
            parse_state("input-required").unwrap(),
            TaskState::InputRequired
        );
        assert_eq!(
            parse_state("TASK_STATE_AUTH_REQUIRED").unwrap(),
            TaskState::AuthRequired
        );
        assert_eq!(parse_state("cancelled").unwrap(), TaskState::Canceled);
        assert!(parse_state("sleeping").is_err());
    }
}
