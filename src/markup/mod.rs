//! Remote text laid out for the terminal: light markdown, the foldable JSON view, code highlighting (the syntect
//! worker) and the styles they draw with. Used by `app/` and `ui/`; imports neither.

pub mod highlight;
pub mod json_view;
pub mod markdown;
pub mod styles;
