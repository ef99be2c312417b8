//! Artifact chunks placed by position, never blindly appended (spec digest §9: `append`, `lastChunk`): each
//! source keeps its own count of the parts it delivered, so the same chunk from two sources, or one a snapshot
//! already holds, is placed once; a snapshot's artifact is the new baseline; a source that joined in the middle
//! is aligned by the parts' prints. The size limit is applied here as parts are taken ([`super::limit`]).

use a2a::{Artifact, Part};

use super::{ArtifactChange, ArtifactEdit, Change, Source, TaskLog, Verdict, limit, prints};

/// One artifact as reassembled.
#[derive(Clone, Debug, PartialEq)]
pub struct ArtifactLog {
    pub artifact: Artifact,
    /// A chunk with `lastChunk` was placed (or a snapshot of a settled task carried it).
    pub last_chunk: bool,
    /// A chunk could not be placed after the parts before it (something was skipped); only a snapshot heals it.
    pub gap: bool,
    /// Bytes of the parts kept, counted towards the size limit.
    pub bytes: usize,
    /// A part did not fit under the size limit: nothing more of this artifact is kept.
    pub at_limit: bool,
    /// One print per part of `artifact`, what parts are compared by ([`prints`]).
    pub prints: Vec<prints::Print>,
    /// Parts before this one have been looked at by [`ArtifactLog::hollow`].
    pub(super) hollowed_to: usize,
}

impl ArtifactLog {
    /// Everything arrived: the last chunk, and nothing skipped.
    pub fn complete(&self) -> bool {
        self.last_chunk && !self.gap
    }

    /// Let go of the text of large text parts: the view holds the artifact in a spool file, so the gate
    /// keeps only their prints (see [`prints`]).
    pub fn hollow(&mut self) {
        self.hollowed_to =
            prints::hollow(&mut self.artifact.parts, &mut self.prints, self.hollowed_to);
    }

    /// Are `incoming` the parts kept from `at` on?
    fn same_parts_at(&self, at: usize, incoming: &[Part]) -> bool {
        let incoming: Vec<prints::Print> = incoming.iter().map(prints::Print::of).collect();
        prints::match_at(&self.prints, at, &incoming)
    }
}

/// How far back to look for a chunk from a source that joined in the middle of an artifact.
const ALIGN_WINDOW: usize = 256;

impl TaskLog {
    /// Take a snapshot's artifact as the new baseline; `None` when it matches what we have.
    pub(super) fn rebase(
        &mut self,
        source: Source,
        a: &Artifact,
        settled: bool,
    ) -> Option<ArtifactEdit> {
        let Some(&index) = self.by_id.get(&a.artifact_id) else {
            let index = self.push_artifact(a, settled);
            self.offsets.insert((source, index), a.parts.len());
            return Some(ArtifactEdit::New);
        };
        self.offsets.insert((source, index), a.parts.len());
        let limit = self.artifact_limit;
        let log = self.artifacts.get_mut(index)?;
        let have = log.artifact.parts.len();
        let edit = if a.parts.len() >= have
            && a.parts.get(..have).is_some_and(|p| log.same_parts_at(0, p))
        {
            if a.parts.len() == have || log.at_limit {
                // Same content: only completeness can change (a settled task's artifacts are done; a snapshot
                // heals a gap).
                if (settled && !log.last_chunk) || log.gap {
                    log.last_chunk |= settled;
                    log.gap = false;
                    return Some(ArtifactEdit::Completed);
                }
                return None;
            }
            if limit::take(log, a.parts.iter().skip(have), limit) {
                self.limited.push(index);
            }
            ArtifactEdit::Appended { from_part: have }
        } else {
            *log = fresh(a, settled, limit, &mut self.limited, index);
            ArtifactEdit::Replaced
        };
        log.artifact.name = a.name.clone().or(log.artifact.name.take());
        log.last_chunk = settled;
        log.gap = false;
        Some(edit)
    }

    fn push_artifact(&mut self, artifact: &Artifact, last_chunk: bool) -> usize {
        let index = self.artifacts.len();
        self.by_id.insert(artifact.artifact_id.clone(), index);
        let log = fresh(
            artifact,
            last_chunk,
            self.artifact_limit,
            &mut self.limited,
            index,
        );
        self.artifacts.push(log);
        index
    }

    pub(super) fn chunk(
        &mut self,
        source: Source,
        chunk: &Artifact,
        append: bool,
        last: bool,
    ) -> Verdict {
        let k = chunk.parts.len();
        let Some(&index) = self.by_id.get(&chunk.artifact_id) else {
            if self.is_terminal() {
                return self.after_terminal(source, "an artifact chunk");
            }
            let index = self.push_artifact(chunk, last);
            self.offsets.insert((source, index), k);
            let warning = append.then(|| {
                format!(
                    "append to unknown artifact {:?}; started it",
                    chunk.artifact_id
                )
            });
            return Verdict::Applied {
                change: Change::Artifact(ArtifactChange {
                    index,
                    edit: ArtifactEdit::New,
                }),
                warning,
            };
        };
        let Some(have) = self.artifacts.get(index).map(|l| l.artifact.parts.len()) else {
            return Verdict::Duplicate;
        };
        if append && !self.is_terminal() && self.artifacts.get(index).is_some_and(|l| l.at_limit) {
            // Past the limit positions no longer matter (nothing more is kept); only `lastChunk` does.
            let o = self.offsets.get(&(source, index)).copied().unwrap_or(have);
            self.offsets.insert((source, index), o + k);
            let edit = self.append(index, chunk, k, last);
            return Verdict::applied(Change::Artifact(ArtifactChange { index, edit }));
        }
        // Where this chunk starts, counted in the artifact's parts.
        let start = if append {
            match self.offsets.get(&(source, index)) {
                Some(&o) => Some(o),
                None => self.align(index, &chunk.parts),
            }
        } else {
            Some(0)
        };
        let terminal = self.is_terminal();
        let Some(log) = self.artifacts.get_mut(index) else {
            return Verdict::Duplicate;
        };
        match start {
            // Without append, the same first parts again is the same first chunk from another source; different
            // ones replace the artifact (what the SDKs do with a reused id).
            Some(0) if !append && !log.same_parts_at(0, &chunk.parts) => {
                if terminal {
                    return self.after_terminal(source, "an artifact chunk");
                }
                *log = fresh(chunk, last, self.artifact_limit, &mut self.limited, index);
                self.offsets.retain(|(_, i), _| *i != index);
                self.offsets.insert((source, index), k);
                Verdict::applied(Change::Artifact(ArtifactChange {
                    index,
                    edit: ArtifactEdit::Replaced,
                }))
            }
            Some(o) if o + k <= have => {
                // Everything in it is placed already.
                self.offsets.insert((source, index), o + k);
                if last && o + k == have && !log.last_chunk {
                    log.last_chunk = true;
                    return Verdict::applied(Change::Artifact(ArtifactChange {
                        index,
                        edit: ArtifactEdit::Completed,
                    }));
                }
                Verdict::Duplicate
            }
            Some(o) => {
                if terminal {
                    return self.after_terminal(source, "an artifact chunk");
                }
                if o > have {
                    // Parts between `have` and `o` never reached us.
                    log.gap = true;
                }
                let skip = have.saturating_sub(o);
                let edit = self.append(index, chunk, skip, last);
                self.offsets.insert((source, index), o + k);
                Verdict::applied(Change::Artifact(ArtifactChange { index, edit }))
            }
            None => {
                if terminal {
                    return self.after_terminal(source, "an artifact chunk");
                }
                // A source that joined in the middle, with parts we cannot find: new content, but we cannot tell
                // what came between.
                log.gap = true;
                let edit = self.append(index, chunk, 0, last);
                self.offsets.insert((source, index), have + k);
                Verdict::applied(Change::Artifact(ArtifactChange { index, edit }))
            }
        }
    }

    /// Appends `chunk`'s parts from `skip` on to artifact `index`, as far as its size limit allows.
    fn append(&mut self, index: usize, chunk: &Artifact, skip: usize, last: bool) -> ArtifactEdit {
        let Some(log) = self.artifacts.get_mut(index) else {
            return ArtifactEdit::Dropped;
        };
        let have = log.artifact.parts.len();
        let was_at_limit = log.at_limit;
        if limit::take(log, chunk.parts.iter().skip(skip), self.artifact_limit) {
            self.limited.push(index);
        }
        merge_metadata(&mut log.artifact, chunk);
        log.last_chunk |= last;
        if was_at_limit {
            ArtifactEdit::Dropped
        } else {
            ArtifactEdit::Appended { from_part: have }
        }
    }

    /// A source that joined an artifact in the middle (a push registered late, a stream re-opened without a
    /// snapshot): find where its chunk already stands, searching back from the end.
    fn align(&self, index: usize, parts: &[Part]) -> Option<usize> {
        let have = &self.artifacts.get(index)?.prints;
        let k = parts.len();
        if k == 0 || k > have.len() {
            return None;
        }
        let incoming: Vec<prints::Print> = parts.iter().map(prints::Print::of).collect();
        let last_start = have.len() - k;
        (last_start.saturating_sub(ALIGN_WINDOW)..=last_start)
            .rev()
            .find(|&p| prints::match_at(have, p, &incoming))
    }
}

/// A new log for `a` (first seen, or replaced), its parts taken as far as `max` allows; notes in `limited`
/// when `a` alone is over it.
fn fresh(
    a: &Artifact,
    last_chunk: bool,
    max: Option<usize>,
    limited: &mut Vec<usize>,
    index: usize,
) -> ArtifactLog {
    let mut log = ArtifactLog {
        artifact: limit::shell(a),
        last_chunk,
        gap: false,
        bytes: 0,
        at_limit: false,
        prints: Vec::new(),
        hollowed_to: 0,
    };
    if limit::take(&mut log, &a.parts, max) {
        limited.push(index);
    }
    log
}

fn merge_metadata(into: &mut Artifact, chunk: &Artifact) {
    match (&mut into.metadata, &chunk.metadata) {
        (Some(meta), Some(new)) => meta.extend(new.clone()),
        (None, Some(new)) => into.metadata = Some(new.clone()),
        _ => {}
    }
}
