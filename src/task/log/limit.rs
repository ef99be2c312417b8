//! The per-artifact size limit, applied by the gate: parts are taken into an artifact while they fit, and
//! once one does not, the artifact is "at its limit" and nothing more of it is kept (the task itself goes on:
//! states, messages and other artifacts are applied as before). Without it an agent could grow the console's
//! memory (the gate's copy, the view's sanitised text, the store's batches) with one endless artifact: a
//! 100 MiB artifact peaked at ~409 MB, a 300 MiB one at ~968 MB.
//!
//! Whole parts only: a part is kept as sent or not at all, so what is kept is exactly what the agent said and
//! repeats from another source still compare equal.

use a2a::{Artifact, Part, PartContent};

use crate::task::log::artifact::ArtifactLog;

/// The limit unless the user configures another (`[store] max_artifact_mib`), in bytes.
pub const DEFAULT_ARTIFACT_LIMIT: usize =
    crate::config::DEFAULT_MAX_ARTIFACT_MIB as usize * 1024 * 1024;

/// What a part costs towards the limit: the bytes it carries (text, file bytes, URL, data as JSON).
pub fn part_bytes(p: &Part) -> usize {
    match &p.content {
        PartContent::Text(t) => t.len(),
        PartContent::Raw(b) => b.len(),
        PartContent::Url(u) => u.len(),
        // Serialised only to count; data parts are small in practice (a large one is what this guards).
        PartContent::Data(v) => serde_json::to_vec(v).map_or(0, |b| b.len()),
    }
}

/// `a` without its parts (they are added through [`take`], which counts them).
pub fn shell(a: &Artifact) -> Artifact {
    Artifact {
        artifact_id: a.artifact_id.clone(),
        name: a.name.clone(),
        description: a.description.clone(),
        parts: Vec::new(),
        metadata: a.metadata.clone(),
        extensions: a.extensions.clone(),
    }
}

/// Appends the parts of `parts` that fit under `limit` to `log`. True when this call made the artifact reach
/// its limit (a part did not fit), so the caller can say so once.
pub fn take<'a>(
    log: &mut ArtifactLog,
    parts: impl IntoIterator<Item = &'a Part>,
    limit: Option<usize>,
) -> bool {
    if log.at_limit {
        return false;
    }
    for p in parts {
        let size = part_bytes(p);
        if limit.is_some_and(|max| log.bytes.saturating_add(size) > max) {
            log.at_limit = true;
            return true;
        }
        log.bytes += size;
        log.prints.push(crate::task::log::prints::Print::of(p));
        log.artifact.parts.push(p.clone());
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log() -> ArtifactLog {
        ArtifactLog {
            artifact: shell(&Artifact {
                artifact_id: "a".into(),
                name: None,
                description: None,
                parts: Vec::new(),
                metadata: None,
                extensions: None,
            }),
            last_chunk: false,
            gap: false,
            bytes: 0,
            at_limit: false,
            prints: Vec::new(),
            hollowed_to: 0,
        }
    }

    #[test]
    fn parts_are_taken_whole_while_they_fit_then_never_again() {
        let mut l = log();
        let parts = [Part::text("aaaa"), Part::text("bbbb"), Part::text("cc")];
        assert!(take(&mut l, &parts, Some(9)));
        assert_eq!(l.artifact.parts.len(), 2);
        assert_eq!(l.bytes, 8);
        // At the limit nothing is taken, even a part that would fit in what is left.
        assert!(!take(&mut l, &[Part::text("d")], Some(9)));
        assert_eq!(l.artifact.parts.len(), 2);
        let mut free = log();
        assert!(!take(&mut free, &parts, None));
        assert_eq!(free.artifact.parts.len(), 3);
    }
}
