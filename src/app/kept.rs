//! The raw events behind a tab's transcript entries, kept in memory for the raw JSON view (`J`): the last
//! [`KEPT_EVENTS`] events that made entries, none over [`KEPT_EVENT_BYTES`] (a 5 MB chunk is not copied), so
//! the view works with the store off and costs a bounded amount of memory with it on.

use a2a::{Message, PartContent, StreamResponse};

use super::task::TaskTab;

/// The kept events, by the first transcript entry each made; a too-large one is kept as `None`, so its entries
/// are not taken for an earlier event's.
pub type Kept = std::collections::VecDeque<(usize, Option<std::sync::Arc<StreamResponse>>)>;

impl TaskTab {
    /// Keep a copy of a small event that made entries from `first` on (bounded; see `events`).
    pub(super) fn keep_event(&mut self, first: usize, event: &StreamResponse) {
        let kept =
            (approx_size(event) <= KEPT_EVENT_BYTES).then(|| std::sync::Arc::new(event.clone()));
        if self.events.len() >= KEPT_EVENTS {
            self.events.pop_front();
        }
        self.events.push_back((first, kept));
    }

    /// When the event behind transcript entry `i` arrived, for finding it in the store when it is not kept
    /// (every event row is filed under its arrival time; user messages and console notes are not events).
    pub fn event_time(&self, i: usize) -> Option<chrono::DateTime<chrono::Utc>> {
        match self.transcript.get(i)? {
            super::task::Entry::Remote { at, .. } | super::task::Entry::State { at, .. } => {
                Some(at.with_timezone(&chrono::Utc))
            }
            super::task::Entry::Artifact { index } => self.artifacts.get(*index)?.first_at,
            super::task::Entry::User { .. } | super::task::Entry::Console { .. } => None,
        }
    }

    /// The event behind transcript entry `i`, pretty-printed and sanitised, when it is kept.
    pub fn event_of(&self, i: usize) -> Option<String> {
        // The newest kept event whose first entry is at or before `i`, and whose entries reach `i`.
        let pos = self.events.partition_point(|(first, _)| *first <= i);
        let (first, ev) = self.events.get(pos.checked_sub(1)?)?;
        let next_first = self
            .events
            .get(pos)
            .map_or(self.transcript.len(), |(f, _)| *f);
        if *first > i || i >= next_first {
            return None;
        }
        // Entries made by this event end where the next one's start (or the transcript ends): an entry
        // pushed by the console itself in between is not the event's, but it is rare and says what it is.
        let pretty = serde_json::to_string_pretty(ev.as_deref()?).ok()?;
        Some(crate::trust::sanitize::sanitize_text(&pretty).0)
    }
}

/// How many events the raw JSON view can show without the store, and the largest kept.
pub const KEPT_EVENTS: usize = 256;
pub const KEPT_EVENT_BYTES: usize = 64 * 1024;

/// A cheap upper-bound guess of an event's JSON size (its parts' payloads), without serialising it. Also what
/// an event costs the stream queue's and the store writer's byte budgets (`tui::stream_budget`).
pub fn approx_size(ev: &StreamResponse) -> usize {
    let parts = |ps: &[a2a::Part]| -> usize {
        ps.iter()
            .map(|p| match &p.content {
                PartContent::Text(t) => t.len(),
                PartContent::Raw(b) => b.len() * 4 / 3,
                PartContent::Url(u) => u.len(),
                // Data parts are measured by what their text takes (a rare, usually small case).
                PartContent::Data(v) => v.to_string().len(),
            })
            .sum::<usize>()
            + 128
    };
    let msg = |m: &Option<Message>| m.as_ref().map_or(0, |m| parts(&m.parts));
    match ev {
        StreamResponse::ArtifactUpdate(u) => parts(&u.artifact.parts),
        StreamResponse::StatusUpdate(u) => msg(&u.status.message),
        StreamResponse::Message(m) => parts(&m.parts),
        StreamResponse::Task(t) => {
            msg(&t.status.message)
                + t.artifacts
                    .iter()
                    .flatten()
                    .map(|a| parts(&a.parts))
                    .sum::<usize>()
                + t.history
                    .iter()
                    .flatten()
                    .map(|m| parts(&m.parts))
                    .sum::<usize>()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::ids::AgentId;
    use crate::testing::status;

    #[test]
    fn only_the_last_events_are_kept_and_each_entry_finds_its_own() {
        let mut t = TaskTab::new(1, AgentId(1), "demo");
        // Alternating states: consecutive status messages of one state would fold into one entry.
        for i in 0..(KEPT_EVENTS + 44) {
            let state = if i % 2 == 0 {
                a2a::TaskState::Working
            } else {
                a2a::TaskState::Submitted
            };
            t.feed(&status("t1", "ctx", state, Some(&format!("note {i}"))));
        }
        assert_eq!(t.events.len(), KEPT_EVENTS);
        let last = t.transcript.len() - 1;
        let json = t.event_of(last).unwrap();
        assert!(
            json.contains(&format!("note {}", KEPT_EVENTS + 43)),
            "{json}"
        );
        // The first events were dropped: their entries say nothing rather than show another event.
        assert!(t.event_of(1).is_none());
    }
}
