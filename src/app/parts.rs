//! The parts of an artifact as the transcript shows them: each part by its media type (markdown highlighted,
//! plain text as text, JSON foldable, files and links described, never opened), in order, under a small header
//! when there is more than one. Consecutive text parts of one kind are one part to the reader: an artifact
//! streamed in a thousand appended chunks is one text, not a thousand headers.

use std::ops::Range;

use a2a::PartContent;
use ratatui::style::Style;
use serde_json::Value;

use super::task::{ArtifactView, FileInfo};
use crate::markup::json_view::JsonView;
use crate::markup::styles::RenderStyles;
use crate::trust::sanitize::{sanitize_line, sanitize_text};

/// How one part is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartKind {
    /// Text that is (or may be) markdown: `text/markdown`, markdown by its metadata, or text without a media type.
    Markdown,
    /// Text of another media type (`text/plain`, source code…): shown as it is.
    Plain,
    /// A `data` part (JSON): the foldable view.
    Data,
    /// Inline bytes: described, saved with `S`, never opened.
    File,
    /// A link: shown, never fetched.
    Url,
}

/// One part of an artifact, as the reader sees it.
#[derive(Debug)]
pub struct PartView {
    pub kind: PartKind,
    /// The media type as it may be drawn (the agent's, sanitised), or what the kind implies.
    pub media_type: String,
    /// Where the part's text is in `ArtifactView::text` (empty for files and links).
    pub range: Range<usize>,
    /// The line of `ArtifactView::text` the part starts on.
    pub first_line: usize,
    /// The part's size as received (text bytes, pretty JSON, file bytes).
    pub bytes: usize,
    /// The index of the (first) wire part it shows, among the artifact's parts.
    pub raw: usize,
    /// A file or link part's description.
    pub file: Option<FileInfo>,
    /// A data part's foldable view (made when the artifact is laid out; kept across re-layouts).
    pub json: Option<JsonView>,
    pub folded: bool,
    /// The index in `ArtifactView::rendered` of the part's header and of its body (a data part's one block).
    pub header_block: Option<usize>,
    pub body_block: Option<usize>,
}

impl PartView {
    /// "part 2/3 · text/markdown · 1.2 KB" (a link has no size: it was never fetched).
    pub fn header(&self, index: usize, of: usize) -> String {
        let size = match self.kind {
            PartKind::Url => "link".to_string(),
            _ => human_bytes(self.bytes),
        };
        format!("── part {}/{of} · {} · {size}", index + 1, self.media_type)
    }

    /// A file or link part's one line ("📄 name · image/png · 3.0 KB (S saves it; never opened automatically)").
    pub fn file_line(f: &FileInfo) -> String {
        match (&f.url, f.size) {
            (Some(u), _) => format!("🔗 {} · {} · at {u} (not fetched)", f.name, f.media_type),
            (None, Some(s)) => format!(
                "📄 {} · {} · {} (S saves it; never opened automatically)",
                f.name,
                f.media_type,
                human_bytes(s)
            ),
            (None, None) => format!("📄 {} · {}", f.name, f.media_type),
        }
    }
}

pub fn human_bytes(n: usize) -> String {
    match n {
        0..1024 => format!("{n} B"),
        1024..1_048_576 => format!("{:.1} KB", n as f64 / 1024.0),
        _ => format!("{:.1} MB", n as f64 / 1_048_576.0),
    }
}

/// Does this metadata say the text is markdown (`{"mimeType": "text/markdown"}`, `{"format": "markdown"}`…)?
pub fn says_markdown(metadata: Option<&std::collections::HashMap<String, Value>>) -> bool {
    metadata.is_some_and(|m| {
        m.values().any(|v| {
            v.as_str().is_some_and(|s| {
                let s = s.trim().to_ascii_lowercase();
                s == "markdown" || s == "text/markdown" || s == "md"
            })
        })
    })
}

fn is_markdown_type(m: &str) -> bool {
    let m = m.trim().to_ascii_lowercase();
    let m = m.split(';').next().unwrap_or_default().trim();
    m == "text/markdown" || m == "text/x-markdown"
}

/// Append wire parts to the view: their text to `view.text`, each to the part it continues or to a new one.
/// Only the new parts are read, so a long artifact arriving in chunks is never rescanned. `raw_from` is the
/// index of `parts[0]` among the artifact's parts. A part starts on the line `view.text` has reached (it counts
/// its own line breaks as it grows).
pub fn extend(view: &mut ArtifactView, parts: &[a2a::Part], raw_from: usize) {
    for (offset, p) in parts.iter().enumerate() {
        let raw = raw_from + offset;
        // Some SDKs send an empty media type for "none given".
        let media = p
            .media_type
            .as_deref()
            .filter(|m| !m.trim().is_empty())
            .map(|m| sanitize_line(m).0);
        let kind = match &p.content {
            PartContent::Text(_) => {
                let markdown = match &media {
                    Some(m) => is_markdown_type(m),
                    None => true,
                } || says_markdown(p.metadata.as_ref())
                    || view.markdown_meta;
                if markdown {
                    PartKind::Markdown
                } else {
                    PartKind::Plain
                }
            }
            PartContent::Data(_) => PartKind::Data,
            PartContent::Raw(_) => PartKind::File,
            PartContent::Url(_) => PartKind::Url,
        };
        let media_type = media.clone().unwrap_or_else(|| {
            match kind {
                PartKind::Markdown => "text",
                PartKind::Plain => "text/plain",
                PartKind::Data => "application/json",
                PartKind::File | PartKind::Url => "application/octet-stream",
            }
            .into()
        });
        match &p.content {
            PartContent::Text(t) => {
                let clean = sanitize_text(t).0;
                view.bytes += t.len();
                let continues = view
                    .parts
                    .last()
                    .is_some_and(|last| last.kind == kind && last.media_type == media_type);
                if !continues {
                    start_on_new_line(view);
                    let (at, line) = (view.text.len(), view.text.newlines());
                    view.parts.push(text_part(kind, media_type, at, line, raw));
                }
                view.push_text(&clean);
                if let Some(last) = view.parts.last_mut() {
                    last.range.end = view.text.len();
                    last.bytes += t.len();
                }
            }
            PartContent::Data(v) => {
                let pretty = serde_json::to_string_pretty(v).unwrap_or_default();
                view.bytes += pretty.len();
                start_on_new_line(view);
                let (at, line) = (view.text.len(), view.text.newlines());
                let mut part = text_part(kind, media_type, at, line, raw);
                let clean = sanitize_text(&pretty).0;
                view.push_text(&clean);
                view.push_text("\n");
                part.range.end = view.text.len();
                part.bytes = pretty.len();
                view.parts.push(part);
            }
            PartContent::Raw(_) | PartContent::Url(_) => {
                if let Some(f) = super::task::file_info(p) {
                    view.bytes += f.size.unwrap_or(0);
                    let (at, line) = (view.text.len(), view.text.newlines());
                    let mut part = text_part(kind, media_type, at, line, raw);
                    part.bytes = f.size.unwrap_or(0);
                    part.file = Some(f.clone());
                    view.files.push(f);
                    view.parts.push(part);
                }
            }
        }
    }
}

/// A new part begins on its own line of the joined text (a data part after text, two kinds of text).
fn start_on_new_line(view: &mut ArtifactView) {
    if !view.text.is_empty() && !view.text.ends_with_newline() {
        view.push_text("\n");
    }
}

fn text_part(
    kind: PartKind,
    media_type: String,
    at: usize,
    first_line: usize,
    raw: usize,
) -> PartView {
    PartView {
        kind,
        media_type,
        range: at..at,
        first_line,
        bytes: 0,
        raw,
        file: None,
        json: None,
        folded: false,
        header_block: None,
        body_block: None,
    }
}

/// Styles of the lines the console adds around remote text (part headers, plain text).
#[derive(Clone, Copy)]
pub struct Chrome {
    pub label: Style,
    pub text: Style,
}

/// Fold a data part to its top level, or unfold it, and redraw only its block.
pub fn toggle_fold(a: &mut ArtifactView, part: usize, styles: &RenderStyles) -> bool {
    let Some(p) = a.parts.get_mut(part) else {
        return false;
    };
    let (Some(json), Some(b)) = (p.json.as_mut(), p.body_block) else {
        return false;
    };
    if p.folded {
        json.unfold_all();
    } else {
        json.fold_all(1);
    }
    p.folded = !p.folded;
    let lines = json.lines(styles);
    match a.rendered.as_mut().and_then(|r| r.get_mut(b)) {
        Some(block) => {
            block.lines = lines;
            true
        }
        None => false,
    }
}
