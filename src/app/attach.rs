//! Files attached to the next message: the path typed in the attach prompt and, once the runtime has looked at
//! it (`Effect::CheckAttachment`), its size or why it cannot be read. The compose box lists them by name, so
//! the user sees what goes out and can drop one before sending.

use std::path::PathBuf;

use crate::trust::sanitize::sanitize_line;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attachment {
    pub path: PathBuf,
    /// `None` until the runtime answers.
    pub size: Option<Result<u64, String>>,
}

impl Attachment {
    pub fn new(path: PathBuf) -> Attachment {
        Attachment { path, size: None }
    }

    /// The file's name as drawn: its last component (the whole path when it has none), on one line and without
    /// control characters, since a pasted path may carry them.
    pub fn name(&self) -> String {
        let raw = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| self.path.display().to_string());
        sanitize_line(&raw).0
    }

    /// `name (12.0 KB)`, `name (⚠ not found)`, or the name alone while its size is not known.
    pub fn label(&self) -> String {
        let name = self.name();
        match &self.size {
            Some(Ok(n)) => format!(
                "{name} ({})",
                crate::app::parts::human_bytes(usize::try_from(*n).unwrap_or(usize::MAX))
            ),
            Some(Err(why)) => format!("{name} (⚠ {})", sanitize_line(why).0),
            None => name,
        }
    }
}

/// The compose box's line of attachments: `📎 a.pdf (12.0 KB) · b.txt (3 B)`; empty when there are none.
pub fn list(attachments: &[Attachment]) -> String {
    if attachments.is_empty() {
        return String::new();
    }
    let labels: Vec<String> = attachments.iter().map(Attachment::label).collect();
    format!("📎 {}", labels.join(" · "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_file_shows_by_name_with_its_size_or_why_not() {
        let mut a = Attachment::new(PathBuf::from("/tmp/dir/report.pdf"));
        assert_eq!(a.label(), "report.pdf");
        a.size = Some(Ok(2048));
        assert_eq!(a.label(), "report.pdf (2.0 KB)");
        let mut b = Attachment::new(PathBuf::from("notes\u{1b}[31m.txt"));
        b.size = Some(Err("not found".into()));
        assert!(!b.label().contains('\u{1b}'), "{:?}", b.label());
        assert!(b.label().ends_with("(⚠ not found)"), "{:?}", b.label());
        assert_eq!(list(&[]), "");
        assert!(list(&[a, b]).starts_with("📎 report.pdf (2.0 KB) · notes"));
    }
}
