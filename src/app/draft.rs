//! Unsent drafts: what a compose box holds (text and attachments). A tab closed with one keeps it here for the
//! rest of the run, so reopening the tab brings it back whole (the store keeps the text for later runs); and a
//! quit that would leave drafts behind waits for a second press.

use super::attach::Attachment;
use super::ids::AgentId;
use super::task::TaskTab;

/// How many closed tabs' drafts are kept in memory (the store keeps every closed tab's text anyway).
const KEPT: usize = 20;
/// How long after a key the drafts that changed are written to the store: a console killed without warning
/// (kill -9, a crash, the machine going down) loses at most this much of what was typed, and a stream of keys
/// costs the store one small write a second, not one a key.
pub const SAVE_AFTER: std::time::Duration = std::time::Duration::from_secs(1);

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Draft {
    pub text: String,
    pub attachments: Vec<Attachment>,
}

/// The draft of a tab closed in this run, by the tab's store key.
#[derive(Clone, Debug)]
pub struct ClosedDraft {
    pub key: String,
    pub agent: AgentId,
    pub draft: Draft,
}

#[derive(Debug, Default)]
pub struct Drafts {
    /// Oldest first.
    closed: Vec<ClosedDraft>,
    /// A quit key was pressed while drafts were held: the very next key, if it is a quit key again, quits.
    pub quit_armed: bool,
    /// When the drafts that changed since the last save are to be written (none while nothing was typed).
    pub save_due: Option<std::time::Instant>,
}

impl Drafts {
    pub fn keep(&mut self, closed: ClosedDraft) {
        self.closed.retain(|c| c.key != closed.key);
        self.closed.push(closed);
        if self.closed.len() > KEPT {
            self.closed.remove(0);
        }
    }

    /// The draft of the closed tab with this store key, taken (it goes back into the tab).
    pub fn take(&mut self, key: &str) -> Option<Draft> {
        let i = self.closed.iter().position(|c| c.key == key)?;
        Some(self.closed.remove(i).draft)
    }

    /// The draft of the tab closed last.
    pub fn pop(&mut self) -> Option<ClosedDraft> {
        self.closed.pop()
    }

    /// A key (or a paste) may have changed a compose box: a save is due `SAVE_AFTER` from the first such key
    /// since the last save, however fast the keys keep coming.
    pub fn edited(&mut self, now: std::time::Instant) {
        self.save_due.get_or_insert(now + SAVE_AFTER);
    }
}

impl TaskTab {
    /// The compose box's text, lines joined.
    pub fn draft_text(&self) -> String {
        self.compose.lines().join("\n")
    }

    /// Something would be lost if the box went away: text that is not only blanks, or a file attached.
    pub fn has_draft(&self) -> bool {
        !self.attachments.is_empty() || self.compose.lines().iter().any(|l| !l.trim().is_empty())
    }

    /// Empty the box, returning what it held.
    pub fn take_draft(&mut self) -> Draft {
        let text = self.draft_text();
        self.compose = ratatui_textarea::TextArea::default();
        Draft {
            text,
            attachments: std::mem::take(&mut self.attachments),
        }
    }

    /// Put a draft back (after what the box holds, which is nothing for a tab just reopened).
    pub fn restore_draft(&mut self, draft: Draft) {
        self.compose.insert_str(draft.text);
        self.attachments.extend(draft.attachments);
    }
}
