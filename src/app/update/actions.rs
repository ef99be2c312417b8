//! Running a named action (from a key or the command palette): one arm per action, each handing it to the
//! file that does that job, so a new action cannot compile until it is given a place.

use super::{agents, board, nav, tabs, tasks, views};
use crate::app::msg::Effect;
use crate::app::state::App;
use crate::config::keymap::actions::Action;

/// Run a named action (from a key or the command palette).
pub fn run_action(app: &mut App, a: Action) -> Vec<Effect> {
    match a {
        Action::Quit => super::drafts::quit(app),
        // What the main pane shows, and the overlays that only show something.
        Action::Help => views::help(app),
        Action::Palette => views::palette(app),
        Action::Board => views::board(app),
        Action::Split => views::split(app),
        Action::ShowCard => views::card(app),
        Action::ToggleRawCard => views::toggle_raw_card(app),
        Action::ShowSkills => views::skills(app),
        Action::UseExample => views::use_example(app),
        Action::SwitchTheme => views::switch_theme(app),
        Action::AuditLog => vec![Effect::LoadAudit],
        // The board.
        Action::BoardSearch => board::search(app),
        Action::BoardFilterAgent => board::filter_agent(app),
        Action::BoardFilterState => board::filter_state(app),
        Action::BoardClearFilters => board::clear_filters(app),
        Action::BoardMark => {
            board::toggle_mark(app);
            vec![]
        }
        Action::BoardCompare => board::compare(app),
        // Moving around the screen.
        Action::FocusNext | Action::FocusPrev => nav::other_pane(app),
        Action::Back => nav::back(app),
        Action::Compose => nav::compose(app),
        Action::Up | Action::Down => {
            nav::scroll(app, a);
            vec![]
        }
        Action::ScrollUp
        | Action::ScrollDown
        | Action::PageUp
        | Action::PageDown
        | Action::HalfPageUp
        | Action::HalfPageDown
        | Action::ScrollTop
        | Action::ScrollBottom => nav::scroll_keys(app, a),
        Action::NextArtifact | Action::PrevArtifact => {
            nav::jump_artifact(app, a == Action::NextArtifact);
            vec![]
        }
        // Tabs.
        Action::JumpTab1
        | Action::JumpTab2
        | Action::JumpTab3
        | Action::JumpTab4
        | Action::JumpTab5
        | Action::JumpTab6
        | Action::JumpTab7
        | Action::JumpTab8
        | Action::JumpTab9 => tabs::jump(app, a),
        Action::NextTab | Action::PrevTab => tabs::cycle(app, a == Action::NextTab),
        Action::NewTask => {
            tabs::open_tab(app, None);
            vec![]
        }
        Action::CloseTab => super::drafts::close_tab(app),
        Action::ReopenTab => vec![Effect::LoadClosedTabs],
        // The active tab's task.
        Action::RefreshTask => tasks::refresh(app),
        Action::ExportTask => tasks::ask_export(app),
        Action::PushList | Action::PushDelete => tasks::push_configs(app, a == Action::PushList),
        Action::DeleteTask => tasks::ask_delete(app),
        Action::CancelTask => tasks::ask_cancel(app),
        Action::Reattach => tasks::reattach(app),
        Action::Approve => super::pending::review(app),
        Action::SaveArtifact => super::save::open_picker(app),
        Action::AttachFile => tasks::ask_attach_file(app),
        Action::DropAttachment => tasks::drop_attachment(app),
        Action::FoldJson => {
            tasks::fold_json(app);
            vec![]
        }
        // The transcript.
        Action::SearchTranscript => super::transcript::open_search(app),
        Action::SearchNext | Action::SearchPrev => {
            super::transcript::step_search(app, a == Action::SearchNext)
        }
        Action::SelectPrev | Action::SelectNext => {
            super::transcript::select(app, a == Action::SelectNext)
        }
        Action::Copy => super::transcript::copy(app),
        Action::CopyCode => super::transcript::copy_code(app),
        Action::RawJson => super::transcript::raw_json(app),
        // The selected agent.
        Action::ImportTasks => agents::ask_import_filter(app),
        Action::RefreshCard => agents::refresh_card(app),
        Action::CheckAgent => super::check::start(app),
        Action::CheckReport => super::check::reopen(app),
        Action::RunSuite => super::suite::ask_run(app),
        Action::SuiteReport => super::suite::reopen(app),
        Action::RecordCase => super::suite::ask_record(app),
        Action::SignIn => super::sign_in::sign_in_selected(app),
        Action::AddAgent => agents::ask_url(app),
        Action::AddDemo => super::demo::add_demo(app),
        Action::RenameAgent => super::rename::ask(app),
        Action::PinCardKey => agents::pin_offer(app),
        Action::AllowOrigin => super::origin_consent::offer(app),
        Action::RemoveAgent => agents::ask_remove(app),
        Action::Send | Action::Newline | Action::HistoryPrev | Action::HistoryNext => vec![],
        // Editing acts on the text being typed; from the palette there is none.
        Action::CursorLeft
        | Action::CursorRight
        | Action::WordLeft
        | Action::WordRight
        | Action::LineStart
        | Action::LineEnd
        | Action::DeleteBack
        | Action::DeleteChar
        | Action::DeleteWordBack
        | Action::DeleteWordForward
        | Action::KillToStart
        | Action::KillToEnd
        | Action::Yank
        | Action::Undo
        | Action::Redo => vec![],
        // The modals' own actions act only inside their modal (the palette has nothing to answer).
        Action::Confirm
        | Action::ApproveConfigured
        | Action::ApproveDeviceFlow
        | Action::ApprovePaste
        | Action::PasteRedirect
        | Action::CopySignInUrl
        | Action::Deny
        | Action::Later
        | Action::ChoosePart
        | Action::ReplaceFile
        | Action::CloseViewer
        | Action::Accept => vec![],
    }
}
