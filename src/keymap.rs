//! TEMP stub, replaced by the real keymap.
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Action {
    Quit,
    Help,
    Palette,
    NewTask,
    FocusNext,
    FocusPrev,
    JumpTab(u8),
    NextTab,
    PrevTab,
    CloseTab,
    CancelTask,
    RefreshCard,
    ToggleRawCard,
    ShowCard,
    ShowSkills,
    UseExample,
    AddAgent,
    RemoveAgent,
    Send,
    Newline,
    HistoryPrev,
    HistoryNext,
    ScrollUp,
    ScrollDown,
    PageUp,
    PageDown,
    ScrollTop,
    ScrollBottom,
    AttachFile,
    SaveArtifact,
    Reattach,
    FoldJson,
}
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Context {
    Global,
    AgentList,
    TaskTab,
    Compose,
}
pub struct HelpRow {
    pub context: Context,
    pub keys: String,
    pub name: &'static str,
    pub description: &'static str,
}
#[derive(Clone, Debug, Default)]
pub struct Keymap;
impl Action {
    pub fn name(self) -> &'static str {
        "x"
    }
    pub fn description(self) -> &'static str {
        "x"
    }
}
impl Keymap {
    pub fn defaults() -> Keymap {
        Keymap
    }
    pub fn action(&self, ctx: Context, k: &KeyEvent) -> Option<Action> {
        let alt = k.modifiers.contains(KeyModifiers::ALT);
        let ctrl = k.modifiers.contains(KeyModifiers::CONTROL);
        Some(match (ctx, k.code) {
            (_, KeyCode::Char('c')) if ctrl => Action::Quit,
            (_, KeyCode::Char('p')) if ctrl => Action::Palette,
            (_, KeyCode::Char(d)) if alt && d.is_ascii_digit() => Action::JumpTab(d as u8 - b'0'),
            (_, KeyCode::Tab) => Action::FocusNext,
            (_, KeyCode::BackTab) => Action::FocusPrev,
            (Context::Compose, KeyCode::Enter) if alt => Action::Newline,
            (Context::Compose, KeyCode::Enter) => Action::Send,
            (Context::Compose, KeyCode::Up) => Action::HistoryPrev,
            (Context::Compose, KeyCode::Char('o')) if ctrl => Action::AttachFile,
            (Context::Compose, _) => return None,
            (_, KeyCode::Char('q')) => Action::Quit,
            (_, KeyCode::Char('?')) => Action::Help,
            (_, KeyCode::Char('n')) => Action::NewTask,
            (_, KeyCode::Char('c')) => Action::CancelTask,
            (_, KeyCode::Char('s')) => Action::ShowSkills,
            (_, KeyCode::Char('r')) => Action::RefreshCard,
            (_, KeyCode::Char('R')) => Action::Reattach,
            (_, KeyCode::Char('a')) => Action::AddAgent,
            (_, KeyCode::Char('d')) => Action::RemoveAgent,
            (_, KeyCode::Char('J')) => Action::ToggleRawCard,
            (_, KeyCode::Char('S')) => Action::SaveArtifact,
            (_, KeyCode::Char(']')) => Action::NextTab,
            (_, KeyCode::Char('[')) => Action::PrevTab,
            (_, KeyCode::Up) | (_, KeyCode::Char('k')) => Action::ScrollUp,
            (_, KeyCode::Down) | (_, KeyCode::Char('j')) => Action::ScrollDown,
            (_, KeyCode::PageUp) => Action::PageUp,
            (_, KeyCode::PageDown) => Action::PageDown,
            (_, KeyCode::Char('g')) => Action::ScrollTop,
            (_, KeyCode::Char('G')) => Action::ScrollBottom,
            (_, KeyCode::Enter) => Action::UseExample,
            (_, KeyCode::Char('w')) if ctrl => Action::CloseTab,
            _ => return None,
        })
    }
    pub fn keys_for(&self, _a: Action) -> Vec<String> {
        vec![]
    }
    pub fn help_rows(&self) -> Vec<HelpRow> {
        vec![]
    }
    pub fn all_actions() -> &'static [Action] {
        &[Action::Quit, Action::Help, Action::NewTask]
    }
}
impl Keymap {
    pub fn with_overrides(
        _o: &std::collections::BTreeMap<String, Vec<String>>,
    ) -> Result<Keymap, String> {
        Ok(Keymap)
    }
}
