//! What the tab hands to the store, in order, and when it holds back: nothing is recorded while a stored
//! transcript replays, and the header row is recorded once per batch however often it changed.

use crate::store::record::Record;
use crate::task::log::{Source, TaskLog};

use super::TaskTab;

/// The task id and source label of a tab's event records, made once and shared (`Arc`) until they change.
#[derive(Default)]
pub(super) struct RecordIds {
    task: Option<std::sync::Arc<str>>,
    source: Option<(Source, std::sync::Arc<str>)>,
}

impl RecordIds {
    pub(super) fn get(
        &mut self,
        task_id: Option<&str>,
        source: Source,
    ) -> (Option<std::sync::Arc<str>>, std::sync::Arc<str>) {
        if self.task.as_deref() != task_id {
            self.task = task_id.map(Into::into);
        }
        let label = match &self.source {
            Some((s, label)) if *s == source => label.clone(),
            _ => {
                let label: std::sync::Arc<str> = source.label().into();
                self.source = Some((source, label.clone()));
                label
            }
        };
        (self.task.clone(), label)
    }
}

impl TaskTab {
    /// What to record, in order, moved onto `out` (the outbox keeps its capacity).
    pub fn drain_outbox(&mut self, out: &mut Vec<Record>) {
        out.append(&mut self.outbox);
    }

    pub fn has_records(&self) -> bool {
        !self.outbox.is_empty()
    }

    /// The header changed: record it with the next batch (once per batch, however often it changed).
    pub fn take_header_dirty(&mut self) -> bool {
        std::mem::replace(&mut self.header_dirty, false) && self.stored
    }

    pub fn mark_header_dirty(&mut self) {
        self.header_dirty = true;
    }

    pub(super) fn record(&mut self, r: Record) {
        if !self.replaying && self.stored {
            self.outbox.push(r);
        }
    }

    /// Rebuild from the store: what is fed in while this is on is applied but not recorded again. The first
    /// time, the header-only view is reset, so the task's gate judges the stored events from the start.
    pub fn set_replaying(&mut self, on: bool) {
        if on && self.state_while_loading.is_none() {
            self.state_while_loading = Some(self.log.state.clone());
            self.log = TaskLog::with_limit(self.log.artifact_limit);
            // The ids shown go with the log: the replay names each task as it comes (the header named the
            // last one, and ids are refreshed only when one appears or goes, so the first task would have
            // been shown under the last one's id).
            self.shown_ids = (None, None);
            self.short_id = None;
            self.transcript.clear();
            self.task_entries_from = 0;
            self.fixed_lines = 0;
            self.has_state_entry = false;
            self.artifacts.clear();
            self.flag_count = 0;
            self.input_rounds = 0;
        }
        self.replaying = on;
    }
}
