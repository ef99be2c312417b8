//! Saving an artifact's part to a file: what a tab offers (every file part of every artifact, and each
//! artifact's text), and the dialog state once the user chose one. The chosen bytes are copied into the dialog
//! when the user chooses, so what is written is what the dialog showed, whatever the agent sends meanwhile.
//! The file itself is written by the runtime (`tui::save`), never here.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use a2a::PartContent;
use ratatui_textarea::TextArea;

use super::ids::TabId;
use super::spool::TextSlice;
use super::task::TaskTab;
use crate::trust::filename::{risks, safe_file_name};
use crate::trust::sanitize::sanitize_line;

/// What the picker can save.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChoiceKind {
    /// A file part with inline bytes, by its index among the artifact's parts.
    File(usize),
    /// The artifact's text and data as shown (sanitised).
    Text,
    /// One text or data part of a multi-part artifact as shown (sanitised), by its index among the parts the
    /// transcript shows (`ArtifactView::parts`).
    Part(usize),
    /// A file part that is only a URL (by its index among the artifact's parts): listed, never fetched, so
    /// not savable.
    Url(usize),
}

/// One row of the picker.
#[derive(Clone, Debug, PartialEq)]
pub struct SaveChoice {
    /// The artifact's index in the tab.
    pub artifact: usize,
    pub kind: ChoiceKind,
    /// The artifact's name (or id) as it may be drawn.
    pub artifact_label: String,
    /// The part's name as the agent sent it, as it may be drawn.
    pub name: String,
    pub media_type: String,
    pub size: usize,
}

/// Everything the tab can save, artifact by artifact, in the order they arrived; a multi-part artifact offers
/// each of its parts, in order.
pub fn choices(t: &TaskTab) -> Vec<SaveChoice> {
    use super::parts::PartKind;
    let mut out = Vec::new();
    for (i, (log, view)) in t.log.artifacts.iter().zip(&t.artifacts).enumerate() {
        let label = view.label().to_string();
        let raw = &log.artifact.parts;
        if view.parts.len() > 1 {
            let of = view.parts.len();
            for (k, part) in view.parts.iter().enumerate() {
                let ext = match part.kind {
                    PartKind::Data => "json",
                    PartKind::Markdown => "md",
                    PartKind::Plain => "txt",
                    PartKind::File | PartKind::Url => {
                        out.extend(
                            raw.get(part.raw)
                                .and_then(|p| file_row(i, part.raw, p, &label)),
                        );
                        continue;
                    }
                };
                out.push(SaveChoice {
                    artifact: i,
                    kind: ChoiceKind::Part(k),
                    artifact_label: label.clone(),
                    name: format!("{label}-part{}.{ext}", k + 1),
                    media_type: format!("part {}/{of} · {} (as shown)", k + 1, part.media_type),
                    size: part.range.len(),
                });
            }
            continue;
        }
        if !view.text.is_empty() {
            let data = view.parts.first().is_some_and(|p| p.kind == PartKind::Data);
            let ext = if data { "json" } else { "md" };
            out.push(SaveChoice {
                artifact: i,
                kind: ChoiceKind::Text,
                artifact_label: label.clone(),
                name: format!("{label}.{ext}"),
                media_type: "text (as shown)".into(),
                size: view.text.len(),
            });
        }
        for (p, part) in raw.iter().enumerate() {
            out.extend(file_row(i, p, part, &label));
        }
    }
    out
}

/// The row of a file or link part (`None` for text and data).
fn file_row(artifact: usize, index: usize, part: &a2a::Part, label: &str) -> Option<SaveChoice> {
    let (kind, size) = match &part.content {
        PartContent::Raw(b) => (ChoiceKind::File(index), b.len()),
        PartContent::Url(_) => (ChoiceKind::Url(index), 0),
        _ => return None,
    };
    Some(SaveChoice {
        artifact,
        kind,
        artifact_label: label.to_string(),
        name: part
            .filename
            .as_deref()
            .map(|n| sanitize_line(n).0)
            .unwrap_or_else(|| "(unnamed)".into()),
        media_type: part
            .media_type
            .as_deref()
            .map(|m| sanitize_line(m).0)
            .unwrap_or_else(|| "application/octet-stream".into()),
        size,
    })
}

/// The save dialog after the user chose a part: the bytes (copied then), the name to write them under, and
/// where.
pub struct SaveTarget {
    pub tab: TabId,
    /// What was chosen, as the picker showed it.
    pub choice: SaveChoice,
    /// The bytes as they were when the user chose (shared with the write, not copied again; a spooled
    /// text's range of its file).
    pub bytes: TextSlice,
    /// The agent's name for the file when it had to be made safe (shown, as it may be drawn).
    pub original_name: Option<String>,
    /// The directory a plain name is saved in (where the console was started).
    pub dir: PathBuf,
    /// The file name (or a path, relative to `dir`) the user accepts or edits.
    pub input: Box<TextArea<'static>>,
}

impl SaveTarget {
    /// Copy the chosen part's bytes out of the tab now.
    pub fn capture(t: &TaskTab, choice: &SaveChoice, dir: PathBuf) -> Option<SaveTarget> {
        let bytes: TextSlice = match choice.kind {
            ChoiceKind::File(p) => match &t
                .log
                .artifacts
                .get(choice.artifact)?
                .artifact
                .parts
                .get(p)?
                .content
            {
                PartContent::Raw(b) => TextSlice::Memory(Arc::from(b.as_slice())),
                _ => return None,
            },
            // A spooled text is captured as a range of its (append-only) file, not copied.
            ChoiceKind::Text => {
                let a = t.artifacts.get(choice.artifact)?;
                a.text.slice(0..a.text.len())?
            }
            ChoiceKind::Part(k) => {
                let a = t.artifacts.get(choice.artifact)?;
                a.text.slice(a.parts.get(k)?.range.clone())?
            }
            ChoiceKind::Url(_) => return None,
        };
        let raw_name = match choice.kind {
            ChoiceKind::File(p) => t
                .log
                .artifacts
                .get(choice.artifact)
                .and_then(|a| a.artifact.parts.get(p))
                .and_then(|p| p.filename.clone()),
            _ => None,
        };
        let fallback = format!(
            "{}.bin",
            safe_file_name(&choice.artifact_label, "artifact").0
        );
        let (name, original_name) = match &raw_name {
            Some(raw) => {
                let (name, changed) = safe_file_name(raw, &fallback);
                (name, changed.then(|| sanitize_line(raw).0))
            }
            None => (safe_file_name(&choice.name, &fallback).0, None),
        };
        let mut input = TextArea::from(vec![name]);
        input.move_cursor(ratatui_textarea::CursorMove::End);
        Some(SaveTarget {
            tab: t.id,
            choice: choice.clone(),
            bytes,
            original_name,
            dir,
            input: Box::new(input),
        })
    }

    /// The absolute path the bytes would be written to.
    pub fn path(&self) -> PathBuf {
        target_path(&self.dir, &self.input.lines().join(""))
    }

    /// What deserves a second look about that path and these bytes.
    pub fn risks(&self) -> Vec<String> {
        let path = self.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        risks(&name, &self.bytes.head(8))
    }
}

/// `name` as typed, under `dir` unless it is already absolute.
pub fn target_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(name.trim())
}
