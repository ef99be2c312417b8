//! The key guard of the dialogs that can decide something for the user: approve with a credential, take a
//! pasted token, sign in, deny, or cancel a task. Keys typed in the first [`GUARD`] after such a dialog went on
//! screen were typed for something else (the compose box, a list): they are counted and thrown away, and the
//! dialog says how many. The clock starts when a frame has shown the dialog (the runtime calls
//! [`App::frame_drawn`]); until then every key is ignored, so a dialog nobody has seen decides nothing.

use std::time::{Duration, Instant};

use super::ids::TabId;
use super::state::{App, Overlay, PromptKind, SignInFor};

/// How long keys are ignored after a guarded dialog appears.
pub const GUARD: Duration = Duration::from_millis(500);

/// Which guarded dialog is open: a new one (another kind, or the same kind for another tab) starts a new guard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guarded {
    Approval(TabId),
    PasteToken(TabId),
    CodeFlow(SignInFor),
    PasteRedirect(SignInFor),
    DeviceCode(TabId),
    ConfirmCancel(TabId),
}

impl Guarded {
    /// The guarded dialog this overlay is, if it is one.
    pub fn of(overlay: &Overlay) -> Option<Guarded> {
        Some(match overlay {
            Overlay::Approval { tab, .. } => Guarded::Approval(*tab),
            Overlay::CodeFlow { owner } => Guarded::CodeFlow(*owner),
            Overlay::DeviceCode { tab, .. } => Guarded::DeviceCode(*tab),
            Overlay::ConfirmCancel { tab } => Guarded::ConfirmCancel(*tab),
            Overlay::Prompt {
                kind: PromptKind::ApprovalToken(tab),
                ..
            } => Guarded::PasteToken(*tab),
            Overlay::Prompt {
                kind: PromptKind::RedirectUrl(owner),
                ..
            } => Guarded::PasteRedirect(*owner),
            _ => return None,
        })
    }
}

/// The guard of the guarded dialog on screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyGuard {
    pub dialog: Guarded,
    /// When a frame first showed the dialog; `None` until then.
    pub shown_at: Option<Instant>,
    /// The guard time has passed (set by the first key after it, or by the runtime's timer so the screen says so).
    pub live: bool,
    /// Keys (and pastes) thrown away while the guard held.
    pub ignored: u32,
}

impl KeyGuard {
    fn new(dialog: Guarded) -> KeyGuard {
        KeyGuard {
            dialog,
            shown_at: None,
            live: false,
            ignored: 0,
        }
    }

    /// When the guard lets keys through, once the dialog has been drawn.
    pub fn due(&self) -> Option<Instant> {
        if self.live {
            return None;
        }
        self.shown_at.map(|t| t + GUARD)
    }

    fn passed(&mut self, now: Instant) -> bool {
        if !self.live
            && self
                .shown_at
                .is_some_and(|t| now.saturating_duration_since(t) >= GUARD)
        {
            self.live = true;
        }
        self.live
    }

    /// What the dialog's frame says about the guard: while it holds, and afterwards when it ate keys.
    pub fn footer(&self) -> Option<String> {
        match (self.live, self.ignored) {
            (false, 0) => Some(format!(
                "keys are ignored for {} s as this opens",
                GUARD.as_secs_f32()
            )),
            (false, n) => Some(format!(
                "keys are ignored as this opens · ignored {n} so far"
            )),
            (true, 0) => None,
            (true, 1) => Some("ignored 1 key typed as it opened".into()),
            (true, n) => Some(format!("ignored {n} keys typed as it opened")),
        }
    }
}

impl App {
    /// Start a new guard when a guarded dialog replaced whatever was open, and drop it when none is open.
    /// Called after every update, so every way a dialog opens (an agent's event, a key, a finished sign-in
    /// step) is covered by one rule.
    pub fn sync_key_guard(&mut self) {
        let open = self.overlay.as_ref().and_then(Guarded::of);
        match open {
            None => self.key_guard = None,
            Some(d) if self.key_guard.as_ref().is_some_and(|g| g.dialog == d) => {}
            Some(d) => self.key_guard = Some(KeyGuard::new(d)),
        }
    }

    /// A frame showing the app went on screen at `now`: a guarded dialog's guard time starts.
    pub fn frame_drawn(&mut self, now: Instant) {
        self.sync_key_guard();
        if let Some(g) = self.key_guard.as_mut().filter(|g| g.shown_at.is_none()) {
            g.shown_at = Some(now);
        }
    }

    /// The runtime's timer: the guard time has passed, so the dialog can say its keys are live.
    pub fn key_guard_due(&mut self, now: Instant) {
        if let Some(g) = self.key_guard.as_mut() {
            g.passed(now);
        }
    }

    /// Whether this key (or paste) goes to the guarded dialog on screen. `false`: it was typed as the dialog
    /// opened, and is counted and dropped.
    pub fn key_passes_guard(&mut self, now: Instant) -> bool {
        let Some(d) = self.overlay.as_ref().and_then(Guarded::of) else {
            return true;
        };
        if self.key_guard.as_ref().is_none_or(|g| g.dialog != d) {
            // Opened outside `update` and never drawn: nobody has seen it yet.
            self.key_guard = Some(KeyGuard::new(d));
        }
        let Some(g) = self.key_guard.as_mut() else {
            return true;
        };
        if g.passed(now) {
            return true;
        }
        g.ignored = g.ignored.saturating_add(1);
        false
    }

    /// The guard's line for the dialog's frame, when the open dialog is guarded.
    pub fn key_guard_footer(&self) -> Option<String> {
        let d = self.overlay.as_ref().and_then(Guarded::of)?;
        self.key_guard
            .as_ref()
            .filter(|g| g.dialog == d)
            .and_then(KeyGuard::footer)
    }

    /// Tests: the open dialog has been on screen longer than the guard (as if a frame drew it and time passed).
    #[cfg(any(test, feature = "testing"))]
    pub fn pass_key_guard(&mut self) {
        self.sync_key_guard();
        if let Some(g) = self.key_guard.as_mut() {
            g.shown_at = Instant::now().checked_sub(GUARD * 2);
            g.live = g.shown_at.is_some();
        }
    }
}
