//! Artifacts made readable as they arrive: a view is built from the first chunk, grown by later ones without
//! rescanning what it holds, marked at the size limit, and scanned for flags once it is complete.

use a2a::{Artifact, PartContent};
use chrono::{DateTime, Utc};

use super::{ArtifactKind, ArtifactView, Entry, TaskTab};
use crate::task::log::{ArtifactChange, ArtifactEdit};
use crate::trust::sanitize::sanitize_line;

impl ArtifactView {
    /// What the artifact is called on screen: its name, else its id (both sanitised).
    pub fn label(&self) -> &str {
        if self.name.is_empty() {
            &self.id
        } else {
            &self.name
        }
    }

    /// Files are listed under the artifact's header unless each part is laid out under its own.
    pub fn files_in_head(&self) -> bool {
        self.rendered.is_none() || self.parts.len() <= 1
    }

    /// Append sanitised text (and scan what has piled up, a piece at a time).
    pub(in crate::app) fn push_text(&mut self, s: &str) {
        self.text.push_str(s);
        self.unscanned.push_str(s);
        if self.unscanned.len() >= crate::app::spool::PASS_BYTES {
            let end = crate::app::spool::piece_end(self.unscanned.as_bytes());
            if end < self.unscanned.len() && self.unscanned.is_char_boundary(end) {
                let rest = self.unscanned.split_off(end);
                self.tally.add(&self.unscanned);
                self.unscanned = rest;
            } else {
                self.tally.add(&self.unscanned);
                self.unscanned = String::new();
            }
        }
    }

    /// The flags over the whole text: what is left unscanned is scanned now.
    fn scan_flags(&mut self) -> Vec<String> {
        let rest = std::mem::take(&mut self.unscanned);
        if !rest.is_empty() {
            self.tally.add(&rest);
        }
        self.tally.flags().into_iter().map(|f| f.reason).collect()
    }
}

impl TaskTab {
    pub(super) fn show_artifact(&mut self, change: &ArtifactChange, at: DateTime<Utc>) {
        let i = change.index;
        let Some(log) = self.log.artifacts.get(i) else {
            return;
        };
        let complete = log.complete();
        match change.edit {
            ArtifactEdit::New => {
                let mut view = view_of(&log.artifact);
                view.first_at = Some(at);
                view.task = self.short_task();
                if i >= self.artifacts.len() {
                    self.artifacts.push(view);
                    self.push_entry(Entry::Artifact { index: i });
                } else if let Some(v) = self.artifacts.get_mut(i) {
                    view.progress.continue_keys(&v.progress);
                    *v = view;
                }
            }
            ArtifactEdit::Replaced => {
                if let Some(v) = self.artifacts.get_mut(i) {
                    let mut view = view_of(&log.artifact);
                    view.first_at = v.first_at;
                    view.task = v.task.take();
                    view.progress.continue_keys(&v.progress);
                    *v = view;
                }
            }
            ArtifactEdit::Appended { from_part } => {
                if let Some(v) = self.artifacts.get_mut(i) {
                    // Sanitise only the new parts: a 5 MB artifact must not be re-scanned on every chunk.
                    extend_view(
                        v,
                        log.artifact.parts.get(from_part..).unwrap_or_default(),
                        from_part,
                    );
                }
            }
            ArtifactEdit::Completed | ArtifactEdit::Dropped => {}
        }
        let newly_complete = self
            .artifacts
            .get_mut(i)
            .map(|v| {
                let was = v.complete;
                v.complete = complete;
                complete && !was
            })
            .unwrap_or(false);
        if newly_complete {
            self.count_flags(i);
        }
        // Once the view holds the text in a spool file, the gate keeps only its prints: the text lives once,
        // on disk, however large the artifact grows.
        if self.artifacts.get(i).is_some_and(|v| v.text.is_spooled())
            && let Some(log) = self.log.artifacts.get_mut(i)
        {
            log.hollow();
        }
    }

    /// Artifact `i` reached the size limit: marked, and said once in the transcript (a replay brings the
    /// stored note back instead).
    pub(super) fn artifact_limited(&mut self, i: usize, at: DateTime<Utc>) {
        let Some(max) = self.log.artifact_limit else {
            return;
        };
        let Some(view) = self.artifacts.get_mut(i) else {
            return;
        };
        view.limited = Some(max);
        let label = view.label().to_owned();
        if self.replaying {
            return;
        }
        self.note_at(
            format!(
                "artifact {label:?} reached the size limit of {} ([store] max_artifact_mib): what is shown is \
                 kept; its further chunks are not kept, shown or stored — the task itself continues",
                if max % (1024 * 1024) == 0 {
                    format!("{} MiB", max / (1024 * 1024))
                } else {
                    crate::app::parts::human_bytes(max)
                }
            ),
            true,
            at,
        );
    }

    fn count_flags(&mut self, index: usize) {
        if let Some(view) = self.artifacts.get_mut(index) {
            view.flagged = view.scan_flags();
            if !view.flagged.is_empty() {
                self.flag_count += 1;
                // The stored header carries the count (the board shows it after a restart).
                self.mark_header_dirty();
            }
        }
    }

    /// The task is done (or waits for the user) and its stream with it: artifacts still "streaming" are
    /// complete as they stand.
    pub(super) fn settle_artifacts(&mut self) {
        for i in self.log.settle_artifacts() {
            let newly = self.artifacts.get_mut(i).is_some_and(|v| {
                let was = v.complete;
                v.complete = true;
                !was
            });
            if newly {
                self.count_flags(i);
            }
        }
    }
}

fn view_of(a: &Artifact) -> ArtifactView {
    let mut view = ArtifactView {
        id: sanitize_line(&a.artifact_id).0,
        name: a
            .name
            .as_deref()
            .map(|n| sanitize_line(n).0)
            .unwrap_or_default(),
        kind: ArtifactKind::Text,
        text: Default::default(),
        files: Vec::new(),
        flagged: Vec::new(),
        complete: false,
        chunks: 0,
        bytes: 0,
        rendered: None,
        progress: Default::default(),
        parts: Vec::new(),
        markdown_meta: crate::app::parts::says_markdown(a.metadata.as_ref()),
        first_at: None,
        task: None,
        limited: None,
        tally: Default::default(),
        unscanned: String::new(),
    };
    extend_view(&mut view, &a.parts, 0);
    view.kind = kind_of(&a.parts);
    view
}

fn kind_of(parts: &[a2a::Part]) -> ArtifactKind {
    let (mut text, mut data, mut files) = (false, false, false);
    for p in parts {
        match p.content {
            PartContent::Text(_) => text = true,
            PartContent::Data(_) => data = true,
            PartContent::Raw(_) | PartContent::Url(_) => files = true,
        }
    }
    match (text, data, files) {
        (_, true, false) if !text => ArtifactKind::Data,
        (false, false, true) => ArtifactKind::Files,
        (true, false, false) | (false, false, false) => ArtifactKind::Text,
        _ => ArtifactKind::Mixed,
    }
}

fn extend_view(view: &mut ArtifactView, parts: &[a2a::Part], raw_from: usize) {
    // Only the new text is read (the text keeps its own line count): a large artifact arriving in chunks is
    // never rescanned.
    view.chunks += 1;
    crate::app::parts::extend(view, parts, raw_from);
    if view.kind != ArtifactKind::Mixed {
        let k = kind_of(parts);
        if view.chunks > 1 && k != view.kind {
            view.kind = ArtifactKind::Mixed;
        }
    }
}
