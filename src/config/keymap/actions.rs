//! Every user action in one table, the single source of truth: its stable name (the config file's `[keys]`
//! table and the palette use it), the context whose bindings hold its keys, its description and its default
//! keys; and the contexts themselves, in help-screen order.

use std::fmt;

use crossterm::event::{KeyCode, KeyModifiers};

use super::keys::{KeyBinding, alt, alt_key, bind, ch, ctrl, key};

/// Where a binding applies. Global bindings apply everywhere unless the focused context binds the
/// same key (see the module docs for Compose).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Context {
    /// Anywhere in the console.
    Global,
    /// The agent list, with the selected agent's card and skills beside it.
    AgentList,
    /// A task tab's transcript and artifacts.
    TaskTab,
    /// The compose box where the user writes a message.
    Compose,
    /// Readline's editing keys, shared by the compose box and every one-line prompt (after their own keys,
    /// before the global ones).
    Edit,
    /// The shared scrolling keys: every pane, list, viewer and dialog that scrolls reads these, after its own.
    Scroll,
    /// The yes/no confirmations (cancel a task, remove an agent, delete a task).
    Dialog,
    /// The auth-required approval dialog.
    Approval,
    /// The save dialogs: the picker over an artifact's parts and the question before replacing a file.
    Save,
    /// The help screen and the audit log.
    Viewer,
    /// One-line text prompts and the command palette: printable keys type there.
    Prompt,
}

impl Context {
    /// Every context, in help-screen order.
    pub const ALL: [Context; 11] = [
        Context::Global,
        Context::AgentList,
        Context::TaskTab,
        Context::Compose,
        Context::Edit,
        Context::Scroll,
        Context::Dialog,
        Context::Approval,
        Context::Save,
        Context::Viewer,
        Context::Prompt,
    ];

    /// Heading for the help screen.
    pub fn title(self) -> &'static str {
        match self {
            Context::Global => "Global",
            Context::AgentList => "Agents",
            Context::TaskTab => "Task",
            Context::Compose => "Compose",
            Context::Edit => "Text editing",
            Context::Scroll => "Scrolling",
            Context::Dialog => "Confirmations",
            Context::Approval => "Authorization",
            Context::Save => "Save",
            Context::Viewer => "Help and audit log",
            Context::Prompt => "Prompts and palette",
        }
    }

    /// Where the context applies, for the help screen and the README's table.
    pub fn scope(self) -> &'static str {
        match self {
            Context::Global => {
                "anywhere (in the compose box only the keys with Ctrl, Alt or a named key, after the text-editing keys)"
            }
            Context::AgentList => "the agent list, card, skills, board and split view",
            Context::TaskTab => "a task tab's transcript",
            Context::Compose => {
                "the compose box, while typing (the text-editing keys below work there too)"
            }
            Context::Edit => {
                "the compose box and every one-line prompt, as in a shell (the palette takes the deleting keys)"
            }
            Context::Scroll => {
                "every pane, list, viewer and dialog that scrolls, after its own keys"
            }
            Context::Dialog => "yes/no questions: any other key answers no",
            Context::Approval => "the auth-required dialog and the sign-in dialogs",
            Context::Save => "the save picker and the question before replacing a file",
            Context::Viewer => "the help screen and the audit log",
            Context::Prompt => "one-line prompts and the palette: printable keys type",
        }
    }

    /// Printable keys type text here, so only keys with Ctrl/Alt or named keys can be bound.
    pub fn types_text(self) -> bool {
        matches!(self, Context::Compose | Context::Prompt | Context::Edit)
    }
}

impl fmt::Display for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.title())
    }
}

/// Declares the actions once: variant, stable name, context, description and default keys.
macro_rules! actions {
    ($($variant:ident => $name:literal, $ctx:ident, $desc:literal, [$($key:expr),* $(,)?];)*) => {
        /// Something the user can do. Names are stable: config overrides and the palette use them.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Action {
            $(#[doc = $desc] $variant,)*
        }

        pub(super) const ALL_ACTIONS: &[Action] = &[$(Action::$variant,)*];

        impl Action {
            /// Stable snake_case name, used in the config file's `[keys]` table and the palette.
            pub fn name(self) -> &'static str {
                match self { $(Action::$variant => $name,)* }
            }

            /// One line for the help screen and the palette.
            pub fn description(self) -> &'static str {
                match self { $(Action::$variant => $desc,)* }
            }

            /// The context whose bindings hold this action's keys.
            pub fn context(self) -> Context {
                match self { $(Action::$variant => Context::$ctx,)* }
            }

            /// Keys bound when the user has not overridden them.
            pub fn default_keys(self) -> &'static [KeyBinding] {
                match self {
                    $(Action::$variant => {
                        const KEYS: &[KeyBinding] = &[$($key,)*];
                        KEYS
                    })*
                }
            }
        }
    };
}

actions! {
    // Global
    Quit => "quit", Global, "Quit a2a-console (with an unsent draft: press it twice; drafts are saved)", [ch('q'), ctrl('c')];
    Help => "help", Global, "Show the keys (this screen)", [ch('?'), key(KeyCode::F(1))];
    Palette => "palette", Global, "Open the command palette", [ctrl('p')];
    Back => "back", Global, "Close the dialog, palette or help; leave the compose box", [key(KeyCode::Esc)];
    FocusNext => "focus_next", Global, "Move focus between the agent list and the main pane (the compose box is entered with i or Enter)", [key(KeyCode::Tab)];
    FocusPrev => "focus_prev", Global, "Move focus back between the agent list and the main pane", [key(KeyCode::BackTab)];
    NewTask => "new_task", Global, "Start a new task with the selected agent", [ch('n')];
    NextTab => "next_tab", Global, "Switch to the next task tab", [ch(']')];
    PrevTab => "prev_tab", Global, "Switch to the previous task tab", [ch('[')];
    CloseTab => "close_tab", Global, "Close the current task tab (the task keeps running; not from the compose box, where Ctrl-W deletes a word)", [ctrl('w')];
    ReopenTab => "reopen_tab", Global, "Reopen the tab closed last, with the draft it held (closed tabs stay in the local store)", [ctrl('t')];
    JumpTab1 => "jump_tab_1", Global, "Switch to task tab 1", [alt('1')];
    JumpTab2 => "jump_tab_2", Global, "Switch to task tab 2", [alt('2')];
    JumpTab3 => "jump_tab_3", Global, "Switch to task tab 3", [alt('3')];
    JumpTab4 => "jump_tab_4", Global, "Switch to task tab 4", [alt('4')];
    JumpTab5 => "jump_tab_5", Global, "Switch to task tab 5", [alt('5')];
    JumpTab6 => "jump_tab_6", Global, "Switch to task tab 6", [alt('6')];
    JumpTab7 => "jump_tab_7", Global, "Switch to task tab 7", [alt('7')];
    JumpTab8 => "jump_tab_8", Global, "Switch to task tab 8", [alt('8')];
    JumpTab9 => "jump_tab_9", Global, "Switch to task tab 9", [alt('9')];
    Board => "board", Global, "Show every task across agents, the ones needing you first", [ch('b')];
    AuditLog => "audit_log", Global, "Show the audit log: requests and your decisions (credentials redacted)", [ch('L')];
    Split => "split", Global, "Show the tasks marked on the board side by side (none marked: the four newest live ones)", [ch('v')];
    Approve => "approve", Global, "Review an agent's authorization request (this tab's, else the next waiting one): approve, deny or later", [ch('A')];
    SwitchTheme => "switch_theme", Global, "Switch to the next built-in theme (dark, light, high-contrast) for this session", [ch('T')];
    // Agent list, card and skills
    Up => "up", AgentList, "Select the previous agent or skill", [key(KeyCode::Up), ch('k')];
    Down => "down", AgentList, "Select the next agent or skill", [key(KeyCode::Down), ch('j')];
    AddAgent => "add_agent", AgentList, "Add an agent by URL, then give it a short name (optional)", [ch('a')];
    AddDemo => "add_demo", AgentList, "Add the embedded demo agent (the console serves it on 127.0.0.1, as --demo does)", [ch('D')];
    RemoveAgent => "remove_agent", AgentList, "Remove the selected agent", [ch('d')];
    RenameAgent => "rename_agent", AgentList, "Rename the selected agent (saved to the config file; empty: the card's name)", [ch('R')];
    RefreshCard => "refresh_card", AgentList, "Fetch the selected agent's card again", [ch('r')];
    SignIn => "sign_in", AgentList, "Sign in to the selected agent (the OAuth 2.0 code flow or OpenID Connect its [agents.auth] names); its later calls carry the token", [ch('o')];
    ShowCard => "show_card", AgentList, "Show the selected agent's card", [ch('i')];
    ShowSkills => "show_skills", AgentList, "Show the selected agent's skills", [ch('s')];
    PinCardKey => "pin_card_key", AgentList, "Pin the key that signed the selected agent's card (asks first; shows its thumbprint)", [ch('P')];
    AllowOrigin => "allow_origin", AgentList, "Use the interface the selected agent's card names on another origin (asks first; shows both origins; for this session)", [ch('O')];
    CheckAgent => "check_agent", AgentList, "Check the selected agent against the A2A spec (read-only probes, in the background), then show the report and what changed since the last check", [ch('C')];
    RunSuite => "run_suite", AgentList, "Run a regression suite (a TOML file of cases) on the selected agent, in the background; its results open as a page (while one runs: stop it)", [ch('U')];
    SuiteReport => "suite_report", AgentList, "Show the results of the last suite run on the selected agent again (Enter on a case: what was seen)", [ch('u')];
    CheckReport => "check_report", AgentList, "Show the selected agent's last check report again (Enter on a line: its evidence)", [ch('K')];
    ToggleRawCard => "toggle_raw_card", AgentList, "Toggle between the card view and its raw JSON", [ch('J')];
    UseExample => "use_example", AgentList, "Start a task from the selected skill's example (on the board: open the task)", [key(KeyCode::Enter)];
    ImportTasks => "import_tasks", AgentList, "Import the selected agent's existing tasks (ListTasks) into tabs", [ch('I')];
    BoardSearch => "board_search", AgentList, "Search the board by text", [ch('/')];
    BoardFilterAgent => "board_filter_agent", AgentList, "Board: show one agent's tasks (press again for the next agent, then all)", [ch('f')];
    BoardFilterState => "board_filter_state", AgentList, "Board: show one state (press again for the next state, then all)", [ch('t')];
    BoardClearFilters => "board_clear_filters", AgentList, "Board: clear the search and every filter", [ch('x')];
    BoardMark => "board_mark", AgentList, "Board: mark or unmark the selected task for the split view", [ch('m')];
    BoardCompare => "board_compare", AgentList, "Board: compare the two marked tasks side by side (states, artifacts, timings; one marked: with the selected one)", [ch('=')];
    // Task tab
    Compose => "compose", TaskTab, "Write a message in this task", [ch('i'), key(KeyCode::Enter)];
    ScrollUp => "scroll_up", Scroll, "Scroll (or move the cursor) up one line", [key(KeyCode::Up), ch('k')];
    ScrollDown => "scroll_down", Scroll, "Scroll (or move the cursor) down one line", [key(KeyCode::Down), ch('j')];
    PageUp => "page_up", Scroll, "Scroll up one page", [key(KeyCode::PageUp), ctrl('b')];
    PageDown => "page_down", Scroll, "Scroll down one page", [key(KeyCode::PageDown), ctrl('f'), ch(' ')];
    ScrollTop => "scroll_top", Scroll, "Jump to the top", [ch('g'), key(KeyCode::Home)];
    ScrollBottom => "scroll_bottom", Scroll, "Jump to the end (in a transcript: and follow new output)", [ch('G'), key(KeyCode::End)];
    CancelTask => "cancel_task", TaskTab, "Ask the agent to cancel this task", [ch('c')];
    NextArtifact => "next_artifact", TaskTab, "Jump to the next part of an artifact (every part of every artifact)", [ch('}')];
    PrevArtifact => "prev_artifact", TaskTab, "Jump to the previous part of an artifact", [ch('{')];
    SaveArtifact => "save_artifact", TaskTab, "Save the part at the cursor (or any other) to a file", [ch('S')];
    FoldJson => "fold_json", TaskTab, "Fold or unfold the JSON under the cursor", [ch('z')];
    SearchTranscript => "search_transcript", TaskTab, "Search this transcript and its artifacts (n/N: next/previous match, Esc clears)", [ch('/')];
    SearchNext => "search_next", TaskTab, "Go to the next search match (with no search in the tab: start a new task)", [ch('n')];
    SearchPrev => "search_prev", TaskTab, "Go to the previous search match", [ch('N')];
    SelectPrev => "select_prev", TaskTab, "Select the previous transcript entry (for copy and raw JSON)", [ch(','), alt_key(KeyCode::Up)];
    SelectNext => "select_next", TaskTab, "Select the next transcript entry (for copy and raw JSON)", [ch('.'), alt_key(KeyCode::Down)];
    Copy => "copy", TaskTab, "Copy the selected message or artifact to the clipboard (OSC 52)", [ch('y')];
    CopyCode => "copy_code", TaskTab, "Copy a code block of the selected entry to the clipboard (again: the next block)", [ch('Y')];
    RawJson => "raw_json", TaskTab, "Show this task as JSON, and the event behind the selected entry", [ch('J')];
    Reattach => "reattach", TaskTab, "Re-subscribe to this task's updates", [ch('R')];
    RefreshTask => "refresh_task", TaskTab, "Fetch this task's current state (GetTask)", [ch('r')];
    DeleteTask => "delete_task", TaskTab, "Delete this task from the local store and close its tab (asks first; the agent keeps it)", [ch('D')];
    RecordCase => "record_case", TaskTab, "Write this task as a suite case (its messages, answers, final state and artifact names) into a suite file you name", [ch('W')];
    ExportTask => "export_task", TaskTab, "Export this task's transcript to a file (.md, or .json)", [ch('E')];
    PushList => "push_list", TaskTab, "List this task's push-notification configs", [ch('P')];
    PushDelete => "push_delete", TaskTab, "Delete the push-notification config the console registered for this task", [ch('X')];
    // Compose box
    Send => "send", Compose, "Send the message", [key(KeyCode::Enter)];
    Newline => "newline", Compose, "Insert a line break", [
        bind(KeyCode::Enter, KeyModifiers::ALT),
        bind(KeyCode::Enter, KeyModifiers::SHIFT),
        ctrl('j'),
    ];
    HistoryPrev => "history_prev", Compose, "Recall the previous message sent from any tab (in an empty box; else up a line)", [key(KeyCode::Up)];
    HistoryNext => "history_next", Compose, "Recall the next message (while recalling; else down a line)", [key(KeyCode::Down)];
    AttachFile => "attach_file", Compose, "Attach a file to the message (the box lists the files attached)", [ctrl('o')];
    DropAttachment => "drop_attachment", Compose, "Drop the file attached last", [alt('x')];
    // Text editing: readline's keys, in the compose box and every one-line prompt
    CursorLeft => "cursor_left", Edit, "Move back a character", [key(KeyCode::Left), ctrl('b')];
    CursorRight => "cursor_right", Edit, "Move forward a character", [key(KeyCode::Right), ctrl('f')];
    WordLeft => "word_left", Edit, "Move back a word", [alt('b'), bind(KeyCode::Left, KeyModifiers::CONTROL)];
    WordRight => "word_right", Edit, "Move forward a word", [alt('f'), bind(KeyCode::Right, KeyModifiers::CONTROL)];
    LineStart => "line_start", Edit, "Move to the start of the line", [ctrl('a'), key(KeyCode::Home)];
    LineEnd => "line_end", Edit, "Move to the end of the line", [ctrl('e'), key(KeyCode::End)];
    DeleteBack => "delete_back", Edit, "Delete the character before the cursor", [key(KeyCode::Backspace), ctrl('h')];
    DeleteChar => "delete_char", Edit, "Delete the character under the cursor", [key(KeyCode::Delete), ctrl('d')];
    DeleteWordBack => "delete_word_back", Edit, "Delete the word before the cursor (yank brings it back)", [ctrl('w'), alt_key(KeyCode::Backspace)];
    DeleteWordForward => "delete_word_forward", Edit, "Delete the word after the cursor (yank brings it back)", [alt('d'), alt_key(KeyCode::Delete)];
    KillToStart => "kill_to_start", Edit, "Delete from the start of the line to the cursor (yank brings it back)", [ctrl('u')];
    KillToEnd => "kill_to_end", Edit, "Delete from the cursor to the end of the line (yank brings it back)", [ctrl('k')];
    Yank => "yank", Edit, "Insert the text deleted last", [ctrl('y')];
    Undo => "undo", Edit, "Undo the last edit (Ctrl-_ reaches programs as Ctrl-7 in most terminals)", [ctrl('z'), ctrl('_'), ctrl('7')];
    Redo => "redo", Edit, "Redo what was undone", [ctrl('r')];
    // Scrolling, shared by every pane (the line, page, top and end actions above belong here too)
    HalfPageUp => "half_page_up", Scroll, "Scroll up half a page", [ctrl('u')];
    HalfPageDown => "half_page_down", Scroll, "Scroll down half a page", [ctrl('d')];
    // Confirmations
    Confirm => "confirm", Dialog, "Yes: cancel the task, remove the agent or delete the task", [ch('y'), ch('Y'), key(KeyCode::Enter)];
    PasteRedirect => "paste_redirect", Dialog, "While signing in: paste the address the browser was sent to (when it runs on another machine)", [ch('p')];
    // The authorization dialog (Esc, like later, leaves the task waiting). Its decisions are Ctrl chords, which
    // typing never produces; `[keys]` may not bind them to a bare letter, digit, space or Enter.
    ApproveConfigured => "approve_configured", Approval, "Approve with the agent's configured credential", [ctrl('y')];
    ApproveDeviceFlow => "approve_device_flow", Approval, "Sign in with the flow the card declares (authorization code with PKCE, OpenID Connect, else device code), then approve", [ctrl('o')];
    ApprovePaste => "approve_paste", Approval, "Approve with a token you paste (masked, never logged)", [ctrl('t')];
    Deny => "deny", Approval, "Deny: cancel the task", [ctrl('x')];
    Later => "later", Approval, "Later: leave the task waiting (A reopens the dialog)", [ch('l')];
    CopySignInUrl => "copy_sign_in_url", Approval, "While signing in: copy the sign-in address to the clipboard (OSC 52)", [ch('y')];
    // The save dialogs
    ChoosePart => "choose_part", Save, "Save picker: choose the selected part ({ } jump between artifacts)", [key(KeyCode::Enter)];
    ReplaceFile => "replace_file", Save, "Replace the existing file (not Enter, which may still be held from the name)", [ch('y'), ch('Y')];
    // Help and the audit log (Esc and the key that opened them close them too)
    CloseViewer => "close_viewer", Viewer, "Close the help screen, the audit log or the raw JSON viewer", [ch('q'), key(KeyCode::Enter)];
    // One-line prompts and the palette (Esc cancels)
    Accept => "accept", Prompt, "Accept what was typed; in the palette, run the selected action", [key(KeyCode::Enter)];
}

impl Action {
    /// The action with this [`Action::name`].
    pub fn from_name(name: &str) -> Option<Action> {
        ALL_ACTIONS.iter().copied().find(|a| a.name() == name)
    }

    /// For `jump_tab_N`: the zero-based tab index it switches to.
    pub fn tab_index(self) -> Option<usize> {
        let n = self
            .name()
            .strip_prefix("jump_tab_")?
            .parse::<usize>()
            .ok()?;
        n.checked_sub(1)
    }

    /// A decision of the authorization dialog: sends a credential, signs in, takes a token, or cancels the task.
    pub fn decides(self) -> bool {
        matches!(
            self,
            Action::ApproveConfigured
                | Action::ApproveDeviceFlow
                | Action::ApprovePaste
                | Action::Deny
        )
    }

    /// One of the shared scrolling actions (line, half page, page, top, end).
    pub fn is_scroll(self) -> bool {
        self.context() == Context::Scroll
    }

    /// One of readline's editing keys (a text field applies it to its text).
    pub fn is_edit(self) -> bool {
        self.context() == Context::Edit
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
