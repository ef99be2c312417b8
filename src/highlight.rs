//! TEMP stub
#[derive(Debug)]
pub struct HighlightDone {
    pub key: u64,
    pub lines: Vec<ratatui::text::Line<'static>>,
}
