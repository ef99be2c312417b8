//! What the badge on a tab shows, and in which words and symbol: the link state while it matters, else the
//! task's state. A leaf: the board, the search and the UI name a badge without reaching the tab model.

use a2a::TaskState;

/// What the badge on a tab shows: the link state while it matters, else the task's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Badge {
    Connecting,
    Disconnected,
    Submitted,
    Working,
    InputRequired,
    AuthRequired,
    Completed,
    Failed,
    Canceled,
    Rejected,
    /// No task yet (a fresh tab, or a direct message reply).
    Idle,
    /// The agent no longer knows the task (it restarted or forgot it): not followed any more.
    Lost,
}

impl Badge {
    pub const ALL: [Badge; 12] = [
        Badge::Connecting,
        Badge::Disconnected,
        Badge::Submitted,
        Badge::Working,
        Badge::InputRequired,
        Badge::AuthRequired,
        Badge::Completed,
        Badge::Failed,
        Badge::Canceled,
        Badge::Rejected,
        Badge::Idle,
        Badge::Lost,
    ];

    /// A symbol that carries the meaning without colour (NO_COLOR terminals). All are one column wide, so
    /// tab titles line up on every terminal.
    pub fn symbol(self) -> &'static str {
        match self {
            Badge::Connecting => "…",
            Badge::Disconnected => "↯",
            Badge::Submitted => "○",
            Badge::Working => "◐",
            Badge::InputRequired => "?",
            Badge::AuthRequired => "!",
            Badge::Completed => "✓",
            Badge::Failed => "✗",
            Badge::Canceled => "⊘",
            Badge::Rejected => "⊗",
            Badge::Idle => "·",
            Badge::Lost => "∅",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            Badge::Connecting => "connecting",
            Badge::Disconnected => "disconnected",
            Badge::Submitted => "submitted",
            Badge::Working => "working",
            Badge::InputRequired => "input-required",
            Badge::AuthRequired => "auth-required",
            Badge::Completed => "completed",
            Badge::Failed => "failed",
            Badge::Canceled => "canceled",
            Badge::Rejected => "rejected",
            Badge::Idle => "new",
            Badge::Lost => "task unknown",
        }
    }

    pub fn of_state(s: &TaskState) -> Badge {
        match s {
            TaskState::Submitted => Badge::Submitted,
            TaskState::Working => Badge::Working,
            TaskState::InputRequired => Badge::InputRequired,
            TaskState::AuthRequired => Badge::AuthRequired,
            TaskState::Completed => Badge::Completed,
            TaskState::Failed => Badge::Failed,
            TaskState::Canceled => Badge::Canceled,
            TaskState::Rejected => Badge::Rejected,
            TaskState::Unspecified => Badge::Idle,
        }
    }
}
