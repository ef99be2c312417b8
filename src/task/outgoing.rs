//! The parts of A2A messages: building the user's outgoing message (text plus attached files), and the text
//! of a list of parts as one remote string.

use std::path::PathBuf;

use a2a::{Message, Part, PartContent, Role};

use crate::trust::sanitize::sanitize_line;

/// The user's message: the text plus any attached files (the error names the file that could not be read).
pub fn build_message(
    text: String,
    task: Option<String>,
    context: Option<String>,
    files: &[PathBuf],
) -> Result<Message, String> {
    let mut parts = vec![Part::text(text)];
    for path in files {
        let bytes = std::fs::read(path).map_err(|e| format!("--file {}: {e}", path.display()))?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let media = mime_guess::from_path(path)
            .first_or_octet_stream()
            .essence_str()
            .to_string();
        parts.push(Part::raw(bytes).with_filename(name).with_media_type(media));
    }
    let mut m = Message::new(Role::User, parts);
    m.task_id = task;
    m.context_id = context;
    Ok(m)
}

/// A one-line remote value ("name: …") sanitised.
fn line(raw: &str) -> String {
    sanitize_line(raw).0
}

fn part_summary(p: &Part) -> String {
    let name = p
        .filename
        .as_deref()
        .map(line)
        .map(|n| format!(" {n:?}"))
        .unwrap_or_default();
    let media = p
        .media_type
        .as_deref()
        .map(line)
        .map(|m| format!(" ({m})"))
        .unwrap_or_default();
    match &p.content {
        PartContent::Text(_) => String::new(),
        PartContent::Raw(b) => format!("[file{name}{media}, {} bytes, not shown]", b.len()),
        PartContent::Url(u) => format!("[file{name}{media} at {} — not fetched]", line(u)),
        PartContent::Data(_) => format!("[data{media}]"),
    }
}

/// The text of a list of parts as one remote string (text joined; other parts summarised).
pub fn parts_text(parts: &[Part]) -> String {
    let mut s = String::new();
    for p in parts {
        match &p.content {
            PartContent::Text(t) => s.push_str(t),
            PartContent::Data(v) => {
                s.push_str(&serde_json::to_string_pretty(v).unwrap_or_default());
                s.push('\n');
            }
            _ => {
                if !s.is_empty() && !s.ends_with('\n') {
                    s.push('\n');
                }
                s.push_str(&part_summary(p));
                s.push('\n');
            }
        }
    }
    s
}
