//! What the tab writes into its transcript: the console's notes, the agent's words (sanitised, with provenance,
//! consecutive status messages folded into one line), state changes, the user's messages, and how a judged
//! change is laid out there.

use a2a::{Message, Role, StreamResponse, TaskState};
use chrono::{DateTime, Local, Utc};

use super::{Entry, TaskTab};
use crate::store::record::Record;
use crate::task::log::{ArtifactChange, Change};
use crate::task::phase::{Phase, phase};
use crate::trust::sanitize::{Provenance, Untrusted, sanitize_line};

/// The provenance field of a status message's text (what consecutive status messages fold on).
const STATUS_MESSAGE: &str = "status message";

impl TaskTab {
    /// A note of the console's own in the transcript (recorded with the tab).
    pub fn note(&mut self, text: impl Into<String>, error: bool) {
        self.note_at(text.into(), error, Utc::now());
    }

    pub fn note_at(&mut self, text: String, error: bool, at: DateTime<Utc>) {
        // A note can quote an error, a URL or a reply: no secret goes on screen or into the store with it.
        let text = match crate::trust::redact::redact(&text) {
            std::borrow::Cow::Borrowed(_) => text,
            std::borrow::Cow::Owned(r) => r,
        };
        let task_id = self.log.task_id.clone();
        self.record(Record::Note {
            tab: self.key.to_string(),
            task_id,
            text: text.clone(),
            error,
            at,
        });
        let (text, quote) = self.split_quote(text);
        self.push_entry(Entry::Console {
            text,
            error,
            at: at.with_timezone(&Local),
            quote,
        });
    }

    /// A note that quotes an agent's error message: the console's words, and the agent's as remote text (the
    /// store keeps the note whole; this split is made again when it is read back).
    fn split_quote(&mut self, mut text: String) -> (String, Option<Box<Untrusted>>) {
        let Some(at) = crate::remote::error::agent_text_start(&text) else {
            return (text, None);
        };
        let said = text.split_off(at);
        let quote = Untrusted::new(said.trim_end(), self.provenance("error message"));
        (text.trim_end().to_string(), Some(Box::new(quote)))
    }

    /// A note that is about the store itself (it failed): shown, never recorded (it would fail the same way).
    pub fn note_unrecorded(&mut self, text: impl Into<String>, error: bool) {
        self.push_entry(Entry::Console {
            text: text.into(),
            error,
            at: Local::now(),
            quote: None,
        });
    }

    /// Where remote text came from. The agent and task parts are shared by every entry of the tab.
    fn provenance(&mut self, field: &'static str) -> Provenance {
        if *self.prov.0 != *self.agent_name {
            self.prov.0 = self.agent_name.as_str().into();
        }
        if self.prov.1.as_deref() != self.shown_ids.0.as_deref() {
            self.prov.1 = self.shown_ids.0.as_deref().map(Into::into);
        }
        Provenance {
            agent: self.prov.0.clone(),
            task: self.prov.1.clone(),
            field: field.into(),
        }
    }

    fn remote(&mut self, raw: &str, field: &'static str, at: DateTime<Utc>) {
        let text = Untrusted::new(raw, self.provenance(field));
        if text.is_flagged() {
            self.flag_count += 1;
        }
        let at = at.with_timezone(&Local);
        let text = match field {
            STATUS_MESSAGE => match self.fold_status(text, at) {
                Some(text) => text,
                None => {
                    self.mark_header_dirty();
                    return;
                }
            },
            _ => text,
        };
        self.push_entry(Entry::Remote {
            text,
            at,
            updates: 0,
        });
        self.mark_header_dirty();
    }

    /// How many status messages the last entry folded in (`fold_status`): a count that grows while the
    /// transcript does not means an event updated the last line in place.
    pub(super) fn last_updates(&self) -> u32 {
        match self.transcript.last() {
            Some(Entry::Remote { updates, .. }) => *updates,
            _ => 0,
        }
    }

    /// A status message right after another of the same task (nothing in between: no state change, no
    /// artifact, no message) replaces it, counted. Flagged text is never folded, in or out: what the flag
    /// is about stays on screen. Gives the text back when it is not folded.
    fn fold_status(&mut self, text: Untrusted, at: DateTime<Local>) -> Option<Untrusted> {
        let Some(Entry::Remote {
            text: last,
            at: last_at,
            updates,
        }) = self.transcript.last_mut()
        else {
            return Some(text);
        };
        if last.provenance.field != STATUS_MESSAGE
            || last.provenance.task != text.provenance.task
            || last.is_flagged()
            || text.is_flagged()
        {
            return Some(text);
        }
        let before = crate::app::layout::remote_len(last);
        *last = text;
        *last_at = at;
        *updates += 1;
        let after = crate::app::layout::remote_len(last);
        self.fixed_lines = (self.fixed_lines + after).saturating_sub(before);
        None
    }

    fn message(&mut self, m: &Message, field: &'static str, at: DateTime<Utc>) {
        if m.role == Role::User {
            return;
        }
        let text = crate::task::outgoing::parts_text(&m.parts);
        self.remote(&text, field, at);
    }

    fn state_entry(&mut self, at: DateTime<Utc>) {
        self.has_state_entry = true;
        let now = self.log.state.clone();
        if now == TaskState::InputRequired {
            self.input_rounds += 1;
        }
        self.state_since = at;
        self.state_since_known = true;
        self.push_entry(Entry::State {
            state: now,
            at: at.with_timezone(&Local),
        });
        self.mark_header_dirty();
    }

    /// The user sent a message: note it, record it, and remember it for Up-arrow history.
    pub fn record_user(&mut self, text: &str, files: Vec<String>, message_id: &str) {
        self.user_at(text, files, message_id, Utc::now());
    }

    pub fn user_at(&mut self, text: &str, files: Vec<String>, message_id: &str, at: DateTime<Utc>) {
        // A message of the user's own: whatever approval was on its way is not what the tab waits for now.
        self.approving_since = None;
        if !self.stored && !self.replaying {
            // The first thing worth keeping: the tab gets its row now, before the message.
            self.stored = true;
            self.mark_header_dirty();
        }
        let mut m = Message::new(Role::User, vec![a2a::Part::text(text)]);
        if !message_id.is_empty() {
            m.message_id = message_id.to_string();
        }
        self.record(Record::User {
            tab: self.key.to_string(),
            task_id: self.log.task_id.clone(),
            message: Box::new(m),
            at,
        });
        self.push_entry(Entry::User {
            text: text.to_string(),
            files,
            at: at.with_timezone(&Local),
        });
        if !text.trim().is_empty() && self.sent_history.last().map(String::as_str) != Some(text) {
            self.sent_history.push(text.to_string());
        }
        self.history_cursor = None;
        self.scroll = None;
    }

    pub(super) fn anomaly(&mut self, why: &str, at: DateTime<Utc>) {
        // Protocol oddities (a foreign task id, events after a terminal state on the same stream) are shown,
        // flagged: they are how a misbehaving or smuggling agent shows itself.
        self.flag_count += 1;
        if self.replaying {
            // The note was stored when it was first shown: it comes back with the transcript.
            return;
        }
        self.note_at(
            format!("⚠ protocol anomaly: {}", sanitize_line(why).0),
            true,
            at,
        );
    }

    pub(super) fn show(&mut self, change: &Change, event: &StreamResponse, at: DateTime<Utc>) {
        let (state_changed, new_message, artifacts): (bool, bool, &[ArtifactChange]) = match change
        {
            Change::Snapshot {
                state_changed,
                new_message,
                artifacts,
            } => (*state_changed, *new_message, artifacts),
            Change::Status {
                state_changed,
                new_message,
            } => (*state_changed, *new_message, &[]),
            Change::Artifact(a) => (false, false, std::slice::from_ref(a)),
            Change::Message { direct } => {
                if let StreamResponse::Message(m) = event {
                    let field = if *direct {
                        "direct reply (no task)"
                    } else {
                        "message"
                    };
                    self.message(m, field, at);
                }
                return;
            }
        };
        // A snapshot that settles the task (a blocking reply, an approval's answer) holds what the task made
        // before it settled: its artifacts come first, then the state and the message that end the exchange, as
        // a stream would have shown them (a `completed` drawn above its own result reads as if nothing came).
        let settles =
            matches!(event, StreamResponse::Task(t) if phase(&t.status.state) != Phase::Active);
        let (before, after) = if settles {
            (artifacts, &[][..])
        } else {
            (&[][..], artifacts)
        };
        for a in before {
            self.show_artifact(a, at);
        }
        if state_changed || (!self.has_state_entry && self.log.state != TaskState::Unspecified) {
            self.state_entry(at);
        }
        if new_message {
            let m = match event {
                StreamResponse::Task(t) => t.status.message.as_ref(),
                StreamResponse::StatusUpdate(u) => u.status.message.as_ref(),
                _ => None,
            };
            if let Some(m) = m {
                self.message(m, STATUS_MESSAGE, at);
            }
        }
        for a in after {
            self.show_artifact(a, at);
        }
    }
}

impl TaskTab {
    /// The transcript of the task the tab shows now (a tab may hold several tasks of one conversation): from
    /// where the message that started it was sent ([`TaskTab::begin_new_task`], live or replayed).
    pub fn current_task_entries(&self) -> &[Entry] {
        self.transcript
            .get(self.task_entries_from..)
            .unwrap_or_default()
    }
}
