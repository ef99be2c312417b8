//! Every user action, its keys per context, user overrides, and the rows of the generated help screen.
//!
//! One table ([`Action`]) is the single source of truth: the event loop maps keys through it, the
//! help screen and the command palette list it, and the config file overrides it by action name.
//!
//! # Lookup
//!
//! [`Keymap::action`] tries the focused context's bindings first, then [`Context::Global`]. In
//! [`Context::Compose`] a global binding that is a plain printable character (`q`, `?`, `n`, `]` …) is
//! skipped, because there the key types text; globals with Ctrl/Alt or a named key (`Ctrl-P`, `Esc`,
//! `Tab`, `Alt-1`) still work.
//!
//! Where text is typed (the compose box and the prompts), the shared [`Context::Edit`] keys come right after
//! the field's own: readline's, so Ctrl-W deletes a word there rather than closing the tab, and Ctrl-U kills
//! the line rather than undoing.
//!
//! # Terminal quirks handled by [`KeyBinding::from_event`]
//!
//! - Shift-Tab arrives as `BackTab` (usually with SHIFT set, sometimes as Tab + SHIFT): both become
//!   `BackTab` without modifiers, written `Shift-Tab`.
//! - Shifted letters arrive as `'J'` with or without SHIFT, or (kitty protocol) as `'j'` + SHIFT: all
//!   become `'J'` without SHIFT. For other characters SHIFT is dropped, since the character itself
//!   already says what Shift produced (`?`, `!`).
//! - Enter, Alt-Enter and Shift-Enter differ only by modifiers, which are kept for named keys. Most
//!   terminals send Shift-Enter as plain Enter unless the kitty keyboard protocol is on, so
//!   `newline` is also on Alt-Enter and on Ctrl-J (a raw line feed, which crossterm reports as Ctrl-J
//!   in raw mode on every terminal).
//! - Key releases (reported on Windows and with the kitty protocol) never trigger an action.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

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

/// One key with its modifiers, normalised (see [`KeyBinding::from_event`]) so that equality means
/// "the same key press".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KeyBinding {
    pub code: KeyCode,
    /// Only CONTROL, ALT, SHIFT and SUPER; SHIFT never accompanies a `Char` or `BackTab`.
    pub modifiers: KeyModifiers,
}

const MOD_MASK: KeyModifiers = KeyModifiers::CONTROL
    .union(KeyModifiers::ALT)
    .union(KeyModifiers::SHIFT)
    .union(KeyModifiers::SUPER);

impl KeyBinding {
    /// A normalised binding; the same rules apply to parsed strings and to terminal events.
    pub fn new(code: KeyCode, modifiers: KeyModifiers) -> KeyBinding {
        let mut modifiers = modifiers.intersection(MOD_MASK);
        let code = match code {
            KeyCode::Char(c) if modifiers.contains(KeyModifiers::SHIFT) => {
                modifiers.remove(KeyModifiers::SHIFT);
                if c.is_lowercase() {
                    upper(c)
                } else {
                    KeyCode::Char(c)
                }
            }
            KeyCode::Tab if modifiers.contains(KeyModifiers::SHIFT) => {
                modifiers.remove(KeyModifiers::SHIFT);
                KeyCode::BackTab
            }
            KeyCode::BackTab => {
                modifiers.remove(KeyModifiers::SHIFT);
                KeyCode::BackTab
            }
            other => other,
        };
        KeyBinding { code, modifiers }
    }

    /// The binding a terminal key event stands for.
    pub fn from_event(key: &KeyEvent) -> KeyBinding {
        KeyBinding::new(key.code, key.modifiers)
    }

    /// A printable character with no Ctrl/Alt/Super: in a text field this types rather than acts.
    pub fn is_plain_char(&self) -> bool {
        matches!(self.code, KeyCode::Char(_)) && self.modifiers.is_empty()
    }
}

impl fmt::Display for KeyBinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_key(self))
    }
}

fn upper(c: char) -> KeyCode {
    // Only single-char uppercase forms count; 'ß' → "SS" stays as typed.
    let mut up = c.to_uppercase();
    match (up.next(), up.next()) {
        (Some(u), None) => KeyCode::Char(u),
        _ => KeyCode::Char(c),
    }
}

fn lower(c: char) -> char {
    let mut low = c.to_lowercase();
    match (low.next(), low.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

const fn bind(code: KeyCode, modifiers: KeyModifiers) -> KeyBinding {
    KeyBinding { code, modifiers }
}
const fn ch(c: char) -> KeyBinding {
    bind(KeyCode::Char(c), KeyModifiers::NONE)
}
const fn ctrl(c: char) -> KeyBinding {
    bind(KeyCode::Char(c), KeyModifiers::CONTROL)
}
const fn alt(c: char) -> KeyBinding {
    bind(KeyCode::Char(c), KeyModifiers::ALT)
}
const fn alt_key(code: KeyCode) -> KeyBinding {
    bind(code, KeyModifiers::ALT)
}
const fn key(code: KeyCode) -> KeyBinding {
    bind(code, KeyModifiers::NONE)
}

/// Declares the actions once: variant, stable name, context, description and default keys.
macro_rules! actions {
    ($($variant:ident => $name:literal, $ctx:ident, $desc:literal, [$($key:expr),* $(,)?];)*) => {
        /// Something the user can do. Names are stable: config overrides and the palette use them.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Action {
            $(#[doc = $desc] $variant,)*
        }

        const ALL_ACTIONS: &[Action] = &[$(Action::$variant,)*];

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
    ToggleRawCard => "toggle_raw_card", AgentList, "Toggle between the card view and its raw JSON", [ch('J')];
    UseExample => "use_example", AgentList, "Start a task from the selected skill's example (on the board: open the task)", [key(KeyCode::Enter)];
    ImportTasks => "import_tasks", AgentList, "Import the selected agent's existing tasks (ListTasks) into tabs", [ch('I')];
    BoardSearch => "board_search", AgentList, "Search the board by text", [ch('/')];
    BoardFilterAgent => "board_filter_agent", AgentList, "Board: show one agent's tasks (press again for the next agent, then all)", [ch('f')];
    BoardFilterState => "board_filter_state", AgentList, "Board: show one state (press again for the next state, then all)", [ch('t')];
    BoardClearFilters => "board_clear_filters", AgentList, "Board: clear the search and every filter", [ch('x')];
    BoardMark => "board_mark", AgentList, "Board: mark or unmark the selected task for the split view", [ch('m')];
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

/// One line of the help screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HelpRow {
    pub context: Context,
    /// Display strings (`"Ctrl-P"`); empty when the user unbound the action.
    pub keys: Vec<String>,
    pub action: Action,
    pub name: &'static str,
    pub description: &'static str,
}

/// The active key bindings: defaults, possibly with user overrides.
#[derive(Clone, Debug)]
pub struct Keymap {
    keys: BTreeMap<Action, Vec<KeyBinding>>,
    lookup: HashMap<(Context, KeyBinding), Action>,
}

impl Keymap {
    /// The built-in bindings (listed in the README's key table).
    pub fn defaults() -> Keymap {
        let keys = ALL_ACTIONS
            .iter()
            .map(|a| (*a, a.default_keys().to_vec()))
            .collect();
        Keymap::index(keys)
    }

    /// Defaults with some actions' keys replaced: `{"quit": ["ctrl-q"], "help": []}`. An empty list
    /// unbinds the action (it stays in the palette). Fails on an unknown action or key string, on a
    /// key bound to two actions in one context, and on a plain character bound in Compose.
    pub fn with_overrides(overrides: &BTreeMap<String, Vec<String>>) -> Result<Keymap, String> {
        let mut keys: BTreeMap<Action, Vec<KeyBinding>> = ALL_ACTIONS
            .iter()
            .map(|a| (*a, a.default_keys().to_vec()))
            .collect();
        for (name, strings) in overrides {
            let action = Action::from_name(name).ok_or_else(|| {
                format!("keys: unknown action '{name}' (the help screen lists every action name)")
            })?;
            let mut parsed = Vec::new();
            for s in strings {
                let k = parse_key(s).map_err(|e| format!("keys.{name}: {e}"))?;
                if action.context().types_text() && k.is_plain_char() {
                    let place = match action.context() {
                        Context::Compose => "the compose box",
                        Context::Edit => "the compose box and the prompts",
                        _ => "a prompt",
                    };
                    return Err(format!(
                        "keys.{name}: '{s}' is a plain character, which types text in {place}; \
                         add Ctrl or Alt"
                    ));
                }
                // A decision on the user's behalf must not be a key that typing produces: a dialog that opened
                // under a typing user would take the next letter, space or Enter as the answer.
                if action.decides() && (k.is_plain_char() || k == key(KeyCode::Enter)) {
                    return Err(format!(
                        "keys.{name}: '{s}' is a key typing produces, and {name} decides for you; \
                         use a Ctrl or Alt chord"
                    ));
                }
                if !parsed.contains(&k) {
                    parsed.push(k);
                }
            }
            keys.insert(action, parsed);
        }
        check_conflicts(&keys)?;
        Ok(Keymap::index(keys))
    }

    fn index(keys: BTreeMap<Action, Vec<KeyBinding>>) -> Keymap {
        let mut lookup = HashMap::new();
        for (action, bindings) in &keys {
            for k in bindings {
                // Conflicts were rejected before; for the static defaults a test guarantees none.
                lookup.entry((action.context(), *k)).or_insert(*action);
            }
        }
        Keymap { keys, lookup }
    }

    /// The action for a key press with the pane `ctx` focused: `ctx`'s bindings first, then the shared
    /// scrolling keys (not while typing), then Global.
    pub fn action(&self, ctx: Context, key: &KeyEvent) -> Option<Action> {
        // A pane is a modal that scrolls, unless it types text.
        self.modal_action(ctx, !ctx.types_text(), key)
    }

    /// The action for a key press in a modal of context `ctx`: its own bindings, then (where `ctx` types text)
    /// the text-editing keys, then the shared scrolling keys when `scrolls`, then Global (the modal decides
    /// which global actions it honours: Back, Quit …). Where `ctx` types text, printable keys are never actions
    /// outside its own bindings.
    pub fn modal_action(&self, ctx: Context, scrolls: bool, key: &KeyEvent) -> Option<Action> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        let k = KeyBinding::from_event(key);
        if let Some(a) = self.lookup.get(&(ctx, k)) {
            return Some(*a);
        }
        if ctx.types_text() {
            if let Some(a) = self.lookup.get(&(Context::Edit, k)) {
                return Some(*a);
            }
            if k.is_plain_char() {
                return None;
            }
        }
        if scrolls && let Some(a) = self.lookup.get(&(Context::Scroll, k)) {
            return Some(*a);
        }
        self.lookup.get(&(Context::Global, k)).copied()
    }

    /// The action bound to the key in exactly `ctx`, with no fallback.
    pub fn bound(&self, ctx: Context, key: &KeyEvent) -> Option<Action> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        self.lookup
            .get(&(ctx, KeyBinding::from_event(key)))
            .copied()
    }

    /// The keys bound to `a`, as display strings (`"Ctrl-P"`, `"Shift-Tab"`).
    pub fn keys_for(&self, a: Action) -> Vec<String> {
        self.bindings(a).iter().map(format_key).collect()
    }

    /// The first key bound to `a`, to name in a hint; its action name when it is unbound (the palette runs it).
    pub fn key_or_name(&self, a: Action) -> String {
        self.bindings(a)
            .first()
            .map(format_key)
            .unwrap_or_else(|| a.name().to_string())
    }

    /// The keys bound to `a`.
    pub fn bindings(&self, a: Action) -> &[KeyBinding] {
        self.keys.get(&a).map(Vec::as_slice).unwrap_or(&[])
    }

    /// One row per action, grouped by context in [`Context::ALL`] order.
    pub fn help_rows(&self) -> Vec<HelpRow> {
        Context::ALL
            .iter()
            .flat_map(|ctx| ALL_ACTIONS.iter().filter(move |a| a.context() == *ctx))
            .map(|a| HelpRow {
                context: a.context(),
                keys: self.keys_for(*a),
                action: *a,
                name: a.name(),
                description: a.description(),
            })
            .collect()
    }

    /// The README's key table, from the live bindings: a heading per context saying where it applies, then one
    /// row per action (keys, the name `[keys]` remaps, what it does). `readme_key_table_matches_keymap`
    /// keeps the README's copy equal to it.
    pub fn markdown_table(&self) -> String {
        let cell = |s: &str| s.replace('|', "\\|");
        let mut out = String::new();
        for ctx in Context::ALL {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&format!("**{}** — {}\n\n", ctx.title(), ctx.scope()));
            out.push_str("| keys | action | what it does |\n|---|---|---|\n");
            for a in ALL_ACTIONS.iter().filter(|a| a.context() == ctx) {
                let keys: Vec<String> = self
                    .keys_for(*a)
                    .iter()
                    .map(|k| format!("`{}`", cell(k)))
                    .collect();
                let keys = if keys.is_empty() {
                    "(unbound)".to_string()
                } else {
                    keys.join(" ")
                };
                out.push_str(&format!(
                    "| {keys} | `{}` | {} |\n",
                    a.name(),
                    cell(a.description())
                ));
            }
        }
        out
    }

    /// Every action, for the command palette.
    pub fn all_actions() -> &'static [Action] {
        ALL_ACTIONS
    }
}

impl Default for Keymap {
    fn default() -> Keymap {
        Keymap::defaults()
    }
}

fn check_conflicts(keys: &BTreeMap<Action, Vec<KeyBinding>>) -> Result<(), String> {
    let mut owner: HashMap<(Context, KeyBinding), Action> = HashMap::new();
    // Iterate in table order so the message is the same on every run.
    for action in ALL_ACTIONS {
        for k in keys.get(action).map(Vec::as_slice).unwrap_or(&[]) {
            if let Some(other) = owner.insert((action.context(), *k), *action) {
                return Err(format!(
                    "keys: {} is bound to both '{}' and '{}' in the {} context",
                    format_key(k),
                    other.name(),
                    action.name(),
                    action.context()
                ));
            }
        }
    }
    Ok(())
}

/// Parses `"q"`, `"?"`, `"J"`, `"ctrl-p"`, `"Alt+1"`, `"shift-tab"`, `"backtab"`, `"alt-enter"`,
/// `"esc"`, `"pgdn"`, `"f1"`, `"space"` …
///
/// Modifier and key names are case-insensitive; `-` and `+` both separate. A single character is
/// taken as typed (`"J"` is Shift-J, `"j"` is j). With Ctrl or Alt, a letter's case is ignored and
/// Shift must be written (`"ctrl-P"` = Ctrl-P, `"ctrl-shift-p"` = Ctrl-Shift-P), because terminals
/// report Ctrl with a lower-case letter.
pub fn parse_key(s: &str) -> Result<KeyBinding, String> {
    let mut rest = s.trim();
    if rest.is_empty() {
        return Err("empty key".to_string());
    }
    let mut mods = KeyModifiers::NONE;
    loop {
        // A lone character is the key itself, even '-' or '+'.
        if rest.chars().count() == 1 {
            break;
        }
        let Some(sep) = rest.find(['-', '+']) else {
            break;
        };
        let (word, after) = (&rest[..sep], &rest[sep + 1..]);
        let m = match word.to_ascii_lowercase().as_str() {
            "ctrl" | "control" => KeyModifiers::CONTROL,
            // Terminals deliver Meta/Option as an ESC prefix, which crossterm reports as ALT.
            "alt" | "meta" | "option" => KeyModifiers::ALT,
            "shift" => KeyModifiers::SHIFT,
            "super" => KeyModifiers::SUPER,
            _ => break,
        };
        if after.is_empty() {
            return Err(format!("'{s}': missing the key after '{word}'"));
        }
        mods |= m;
        rest = after;
    }

    let mut chars = rest.chars();
    let code = match (chars.next(), chars.next()) {
        (Some(c), None) => {
            if c.is_control() {
                return Err(format!("'{s}': control characters cannot be bound; write e.g. 'ctrl-a'"));
            }
            if c.is_alphabetic() && mods.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) {
                // Case is not meaningful next to Ctrl/Alt; an explicit Shift is.
                KeyCode::Char(lower(c))
            } else if mods.contains(KeyModifiers::SHIFT) && !(c.is_lowercase() || c.is_uppercase()) {
                return Err(format!(
                    "'{s}': Shift with '{c}' depends on the keyboard layout; write the character Shift types instead (e.g. '?')"
                ));
            } else {
                KeyCode::Char(c)
            }
        }
        _ => named_key(rest).ok_or_else(|| {
            format!(
                "'{s}': unknown key '{rest}' (a single character, or enter, esc, tab, backtab, space, \
                 backspace, delete, insert, home, end, pgup, pgdn, up, down, left, right, f1-f24)"
            )
        })?,
    };
    Ok(KeyBinding::new(code, mods))
}

fn named_key(name: &str) -> Option<KeyCode> {
    let lower = name.to_ascii_lowercase();
    let code = match lower.as_str() {
        "enter" | "return" | "ret" | "cr" => KeyCode::Enter,
        "esc" | "escape" => KeyCode::Esc,
        "tab" => KeyCode::Tab,
        "backtab" => KeyCode::BackTab,
        "space" | "spc" => KeyCode::Char(' '),
        "backspace" | "bs" => KeyCode::Backspace,
        "delete" | "del" => KeyCode::Delete,
        "insert" | "ins" => KeyCode::Insert,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "pgup" | "pageup" | "page_up" => KeyCode::PageUp,
        "pgdn" | "pgdown" | "pagedown" | "page_down" => KeyCode::PageDown,
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        _ => {
            let n: u8 = lower.strip_prefix('f')?.parse().ok()?;
            return (1..=24).contains(&n).then_some(KeyCode::F(n));
        }
    };
    Some(code)
}

/// Display form of a binding: `"q"`, `"J"`, `"Ctrl-P"`, `"Ctrl-Shift-P"`, `"Alt-Enter"`,
/// `"Shift-Tab"`, `"PgDn"`, `"Space"`. [`parse_key`] reads it back to the same binding.
pub fn format_key(k: &KeyBinding) -> String {
    let mut out = String::new();
    let m = k.modifiers;
    let ctrl_or_alt = m.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
    // Shift is implied by `BackTab` and by an upper-case letter; with Ctrl/Alt it is spelled out
    // because there the letter is shown upper-case either way.
    let shifted_char = matches!(k.code, KeyCode::Char(c) if c.is_uppercase() && ctrl_or_alt);
    if m.contains(KeyModifiers::CONTROL) {
        out.push_str("Ctrl-");
    }
    if m.contains(KeyModifiers::ALT) {
        out.push_str("Alt-");
    }
    if m.contains(KeyModifiers::SHIFT) || shifted_char || k.code == KeyCode::BackTab {
        out.push_str("Shift-");
    }
    if m.contains(KeyModifiers::SUPER) {
        out.push_str("Super-");
    }
    let name = match k.code {
        KeyCode::Char(' ') => "Space".to_string(),
        KeyCode::Char(c) if ctrl_or_alt => c.to_uppercase().collect(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::Enter => "Enter".to_string(),
        KeyCode::Esc => "Esc".to_string(),
        KeyCode::Tab | KeyCode::BackTab => "Tab".to_string(),
        KeyCode::Backspace => "Backspace".to_string(),
        KeyCode::Delete => "Delete".to_string(),
        KeyCode::Insert => "Insert".to_string(),
        KeyCode::Home => "Home".to_string(),
        KeyCode::End => "End".to_string(),
        KeyCode::PageUp => "PgUp".to_string(),
        KeyCode::PageDown => "PgDn".to_string(),
        KeyCode::Up => "Up".to_string(),
        KeyCode::Down => "Down".to_string(),
        KeyCode::Left => "Left".to_string(),
        KeyCode::Right => "Right".to_string(),
        KeyCode::F(n) => format!("F{n}"),
        // Not produced by `parse_key`; shown for completeness (e.g. when logging a stray event).
        other => format!("{other:?}"),
    };
    out.push_str(&name);
    out
}

/// Actions whose name or description contains every word of the query, in table order.
pub fn palette_matches(query: &str) -> Vec<Action> {
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    Keymap::all_actions()
        .iter()
        .copied()
        .filter(|a| {
            // The name as the palette shows it (`switch_theme`) and as words (`switch theme`).
            let hay = format!(
                "{} {} {}",
                a.name(),
                a.name().replace('_', " "),
                a.description()
            )
            .to_lowercase();
            words.iter().all(|w| hay.contains(w))
        })
        .collect()
}

#[cfg(test)]
mod tests;
