//! The status bar's message and when it goes away: information after a few seconds or at the next key,
//! errors after longer. The clock of a message starts when a frame first shows it (the runtime says when), so
//! an error set while nothing is drawn is never gone before the user could have read it.

use std::time::{Duration, Instant};

use super::state::App;

/// How long an information message stays once shown.
pub const INFO_FOR: Duration = Duration::from_secs(5);
/// How long an error stays once shown.
pub const ERROR_FOR: Duration = Duration::from_secs(10);

/// A line in the status bar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub text: String,
    pub error: bool,
    /// When a frame first showed it; `None` until then (it cannot expire unseen).
    pub shown: Option<Instant>,
}

impl Status {
    /// When it goes away, once shown.
    pub fn deadline(&self) -> Option<Instant> {
        let ttl = if self.error { ERROR_FOR } else { INFO_FOR };
        self.shown.map(|s| s + ttl)
    }
}

impl App {
    pub fn set_status(&mut self, text: impl Into<String>, error: bool) {
        // A new message replaces the old one (seen or not): the newest is what the user needs.
        self.status = Some(Status {
            text: text.into(),
            error,
            shown: None,
        });
    }

    /// A frame with the status on it went on screen at `now`: its clock starts (once).
    pub fn status_shown(&mut self, now: Instant) {
        if let Some(s) = self.status.as_mut().filter(|s| s.shown.is_none()) {
            s.shown = Some(now);
        }
    }

    /// When the runtime must wake to clear the status (no tick runs for it).
    pub fn status_deadline(&self) -> Option<Instant> {
        self.status.as_ref().and_then(Status::deadline)
    }

    /// Clear the status if its time is up at `now`.
    pub fn expire_status(&mut self, now: Instant) {
        if self.status_deadline().is_some_and(|d| d <= now) {
            self.status = None;
        }
    }

    /// A key was pressed: an information message the user has seen has done its job. Errors stay their time.
    pub fn status_key_pressed(&mut self) {
        if self
            .status
            .as_ref()
            .is_some_and(|s| !s.error && s.shown.is_some())
        {
            self.status = None;
        }
    }
}
