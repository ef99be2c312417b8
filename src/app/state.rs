//! The console's state, owned by one task and changed only by `update`: agents and their cards, tabs, focus,
//! overlays. Holds no I/O handles; the runtime keeps those.

use ratatui_textarea::TextArea;

use super::agent::{AgentEntry, AgentOrigin, Reachability};
use super::ids::{AgentId, TabId};
use super::task::TaskTab;
use crate::config::keymap::Keymap;
use crate::config::theme::Theme;
use crate::remote::connect::agent::AgentTarget;

pub use super::agent_key::{agent_key, config_entry_with_key, unique_key};

/// Which pane has the keyboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    Agents,
    Main,
    Compose,
}

/// What the main pane shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    Card,
    Skills,
    Tab(TabId),
    /// Every task across agents.
    Board,
    /// Up to four live tasks side by side.
    Split,
}

/// The board's cursor and filters.
#[derive(Debug, Clone, Default)]
pub struct BoardState {
    pub selected: usize,
    pub agent_filter: Option<AgentId>,
    pub state_filter: Option<crate::app::task::badge::Badge>,
    pub query: String,
    /// Tasks marked for the split view, in the order they were marked.
    pub marked: Vec<TabId>,
    /// Two tasks to compare once their transcripts are read from the store (`=` on restored tabs), and
    /// `App::keys_pressed` when it was asked for.
    pub pending_compare: Option<(TabId, TabId, u64)>,
}

impl BoardState {
    /// Any filter (agent, state or text) on.
    pub fn filtered(&self) -> bool {
        self.agent_filter.is_some() || self.state_filter.is_some() || !self.query.is_empty()
    }
}

/// What a sign-in in the console is for: approving one tab's auth-required request (the approval
/// dialog's `o`), or the agent itself (the agent list's sign-in key, for an agent that is card only
/// until someone signs in).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SignInFor {
    Approval(TabId),
    Agent(AgentId),
}

/// What the code-flow dialog shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeFlowView {
    pub owner: SignInFor,
    /// `authorization_code` or `openid_connect`.
    pub flow: &'static str,
    /// The address to open (built by us from the card's or the provider's endpoint); `None` until the
    /// sign-in is ready.
    pub url: Option<String>,
    /// The redirect listener's port on 127.0.0.1.
    pub port: Option<u16>,
    /// When the sign-in started (the dialog shows the time it has waited).
    pub since: chrono::DateTime<chrono::Utc>,
}

/// What a one-line prompt is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    AddAgent,
    AttachFile,
    /// A token pasted to approve a tab's auth-required request.
    ApprovalToken(TabId),
    /// The address the browser was sent to at the end of a code-flow sign-in, pasted back.
    RedirectUrl(SignInFor),
    ExportTask(TabId),
    /// Filters for importing an agent's tasks.
    ImportFilter(AgentId),
    BoardSearch,
    /// Search a tab's transcript (`/` in a tab).
    TranscriptSearch(TabId),
    /// An agent's name: right after `a`'s URL (`adding`), or renaming it.
    AgentName {
        agent: AgentId,
        adding: bool,
    },
    /// The suite file to run on an agent (`U`).
    RunSuite(AgentId),
    /// The suite file a tab's task is written into as a case (`W`).
    RecordCase(TabId),
}

impl PromptKind {
    pub fn title(self) -> &'static str {
        match self {
            PromptKind::AddAgent => "Add agent — base URL or card URL",
            PromptKind::AttachFile => "Attach file — path",
            PromptKind::ApprovalToken(_) => {
                "Approve with a token — paste it (it is not shown or logged)"
            }
            PromptKind::RedirectUrl(_) => {
                "Sign in — paste the whole address the browser was sent to (not logged)"
            }
            PromptKind::ExportTask(_) => {
                "Export the transcript — path (.md for Markdown, .json for JSON)"
            }
            PromptKind::ImportFilter(_) => {
                "Import tasks — Enter for all, or filter: state=working context=ID"
            }
            PromptKind::TranscriptSearch(_) => {
                "Search this transcript — Enter finds (n/N next/previous), empty clears; case-insensitive unless you type a capital"
            }
            PromptKind::BoardSearch => {
                "Search tasks — text in agent, task id, context or last message"
            }
            PromptKind::AgentName { adding: true, .. } => {
                "Short name (optional) — Enter keeps it; empty or Esc: the card's name"
            }
            PromptKind::AgentName { adding: false, .. } => {
                "Rename agent — saved to the config file; empty: the card's name"
            }
            PromptKind::RunSuite(_) => {
                "Run a suite on this agent — suite file (TOML; every case goes to this agent)"
            }
            PromptKind::RecordCase(_) => {
                "Record this task as a suite case — suite file (the case is appended; a new file is created)"
            }
        }
    }
}

/// A modal on top of everything.
pub enum Overlay {
    Help {
        scroll: usize,
    },
    Palette {
        query: String,
        selected: usize,
    },
    ConfirmCancel {
        tab: TabId,
    },
    ConfirmRemoveAgent {
        agent: AgentId,
    },
    /// Stop the suite running on this agent (`U` while it runs).
    ConfirmStopSuite {
        agent: AgentId,
    },
    /// Pin the key that signed this agent's card (trust on first use): the thumbprint is shown before yes.
    ConfirmPinKey {
        agent: AgentId,
        thumbprint: String,
        kid: Option<String>,
        alg: String,
    },
    /// Use a card interface on another origin than the agent's: both origins shown before yes.
    ConfirmOrigin {
        agent: AgentId,
        /// Where the card says to call (`http://127.0.0.2:9000`).
        origin: String,
        /// Where the user configured the agent.
        home: String,
    },
    /// Delete a tab's task from the local store (the agent keeps it).
    ConfirmDelete {
        tab: TabId,
    },
    /// The auth-required approval: never answered automatically. `scroll`: rows of the agent's message scrolled
    /// past (the message has a box of its own, so it can never push the destination or the choices away).
    Approval {
        tab: TabId,
        scroll: u16,
    },
    /// A code-flow sign-in in progress (what it shows is in `App::code_flow`).
    CodeFlow {
        owner: SignInFor,
    },
    /// A device-flow sign-in in progress: the code to enter, and where.
    DeviceCode {
        tab: TabId,
        user_code: String,
        verification_uri: String,
        /// When the sign-in started (the dialog shows the time it has waited).
        since: chrono::DateTime<chrono::Utc>,
    },
    /// The audit log, newest last: one row per entry (a run of like events folded); `scroll` is the first row
    /// shown (it opens on the last page), the selected one (`,` `.`) opens with Enter or `J`.
    Audit {
        rows: Vec<crate::app::msg::AuditRow>,
        scroll: usize,
        selected: Option<usize>,
    },
    /// A `check` report (`C`): one row per finding under its area's heading, the selected one's evidence
    /// opened with Enter.
    Check {
        page: Box<crate::app::msg::CheckPage>,
        scroll: usize,
        selected: Option<usize>,
    },
    /// Two tasks side by side (`=` on the board): a summary column each, then what changed.
    Compare {
        page: Box<crate::app::compare::ComparePage>,
        scroll: usize,
    },
    Prompt {
        kind: PromptKind,
        input: Box<TextArea<'static>>,
    },
    /// Which part of which artifact to save (`S`); the rows come from the tab as it is now.
    SavePicker {
        tab: TabId,
        selected: usize,
    },
    /// The chosen part's bytes (copied when chosen), its name and the absolute path it would go to.
    SaveTarget(Box<crate::app::save::SaveTarget>),
    /// Raw JSON (`J` in a tab): the selected entry's event and the task, pretty-printed and sanitised.
    RawJson {
        title: String,
        lines: Vec<String>,
        scroll: usize,
    },
    /// The file exists: replace it only if the user says so, again.
    ConfirmOverwrite {
        target: Box<crate::app::save::SaveTarget>,
        /// What is there now ("a file of 12 B", "a symbolic link").
        existing: String,
    },
}

pub use super::status::Status;

pub struct App {
    pub agents: Vec<AgentEntry>,
    pub selected_agent: usize,
    pub tabs: Vec<TaskTab>,
    pub view: View,
    pub focus: Focus,
    pub overlay: Option<Overlay>,
    pub keymap: Keymap,
    pub theme: Theme,
    pub status: Option<Status>,
    pub quit: bool,
    /// Scroll of the card / skills page.
    pub card_scroll: usize,
    pub raw_card: bool,
    pub selected_skill: usize,
    /// Where the log file is (shown in help).
    pub log_path: Option<String>,
    /// Where the config file is (for adding / removing agents).
    pub config_path: Option<std::path::PathBuf>,
    /// Animation frame for live badges.
    pub spinner: usize,
    /// The time as of the last tick (elapsed times are drawn from it, so a frame never reads the clock).
    pub now: chrono::DateTime<chrono::Utc>,
    /// Screen size, for layout decisions in `update` (mouse hit-testing).
    pub size: (u16, u16),
    pub board: BoardState,
    /// Ring the terminal bell when a task off screen needs the user or finishes.
    pub bell: bool,
    /// Most bytes kept of one artifact in each tab (`[store] max_artifact_mib`; `None`: no limit).
    pub artifact_limit: Option<usize>,
    /// The local push receiver is running: register it for tasks whose agent supports push.
    pub push_enabled: bool,
    /// Where a saved artifact goes unless the user types another path: the directory the console was started
    /// in, set by the runtime (the app does no I/O to find it).
    pub save_dir: Option<std::path::PathBuf>,
    /// A save whose write is under way: kept so an existing file can be confirmed, or the name fixed.
    pub saving: Option<Box<crate::app::save::SaveTarget>>,
    /// The embedded demo agent was asked for and has not answered yet (one at a time).
    pub demo_starting: bool,
    /// Where the embedded demo agent listens (`[demo] port`): the same port every start, so its tasks keep
    /// one address in the store.
    pub demo_port: u16,
    /// The key guard of the dialog on screen that can decide something (see `app::guard`).
    pub key_guard: Option<crate::app::guard::KeyGuard>,
    /// The code-flow sign-in in progress, shown by `Overlay::CodeFlow` (kept here so pasting the address
    /// in a prompt can return to it).
    pub code_flow: Option<CodeFlowView>,
    /// What the last frame measured of the panes only the renderer can measure (set by the runtime after each
    /// frame), so scrolling there stops at the last page.
    pub measured: crate::app::scroll::Measured,
    /// Agents whose names look alike, marked with their origin (`app::lookalike`).
    pub lookalikes: crate::app::lookalike::Lookalikes,
    /// Drafts of the tabs closed in this run, and a quit held back by drafts (`app::draft`).
    pub drafts: crate::app::draft::Drafts,
    /// What was sent from any tab of this run, for Up in the compose box (`app::history`).
    pub history: crate::app::history::SentHistory,
    /// Keys pressed so far: a background job that ends opens its page only when no key was pressed since it
    /// started (the user is doing something else, and those keys must not land on the page).
    pub keys_pressed: u64,
    /// The suite file named last (to run one, or to record a case into): offered again in the next prompt.
    pub suite_file: Option<String>,
    /// The tabs (count, id sum) the short ids were last worked out for.
    short_ids_for: (usize, u64),
    next_tab: TabId,
    next_agent: u64,
}

impl App {
    pub fn new(keymap: Keymap, theme: Theme) -> Self {
        Self {
            agents: Vec::new(),
            selected_agent: 0,
            tabs: Vec::new(),
            view: View::Card,
            focus: Focus::Agents,
            overlay: None,
            keymap,
            theme,
            status: None,
            quit: false,
            card_scroll: 0,
            raw_card: false,
            selected_skill: 0,
            log_path: None,
            config_path: None,
            spinner: 0,
            now: chrono::Utc::now(),
            size: (80, 24),
            board: BoardState::default(),
            bell: false,
            artifact_limit: Some(crate::task::log::limit::DEFAULT_ARTIFACT_LIMIT),
            push_enabled: false,
            save_dir: None,
            saving: None,
            demo_starting: false,
            demo_port: crate::config::DEFAULT_DEMO_PORT,
            key_guard: None,
            code_flow: None,
            measured: crate::app::scroll::Measured::default(),
            lookalikes: Default::default(),
            drafts: Default::default(),
            history: Default::default(),
            suite_file: None,
            keys_pressed: 0,
            short_ids_for: (0, 0),
            next_tab: 1,
            next_agent: 1,
        }
    }

    /// Add an agent at the end of the list (the demo agent goes first: `at = Some(0)`).
    pub fn add_agent(&mut self, target: AgentTarget, origin: AgentOrigin) -> AgentId {
        self.insert_agent(self.agents.len(), target, origin)
    }

    pub fn insert_agent(&mut self, at: usize, target: AgentTarget, origin: AgentOrigin) -> AgentId {
        let id = AgentId(self.next_agent);
        self.next_agent += 1;
        let key = unique_key(&agent_key(&target, origin), |k| {
            self.agents.iter().any(|a| a.key == k)
        });
        self.agents.insert(
            at.min(self.agents.len()),
            AgentEntry {
                id,
                key,
                target,
                state: Reachability::Loading,
                origin,
                check: Default::default(),
                suite: Default::default(),
                known_card: None,
                card_changes: None,
            },
        );
        id
    }

    pub fn agent(&self, id: AgentId) -> Option<&AgentEntry> {
        self.agents.iter().find(|a| a.id == id)
    }

    pub fn agent_mut(&mut self, id: AgentId) -> Option<&mut AgentEntry> {
        self.agents.iter_mut().find(|a| a.id == id)
    }

    /// Where an agent stands in the list (for the cursor).
    pub fn agent_index(&self, id: AgentId) -> Option<usize> {
        self.agents.iter().position(|a| a.id == id)
    }

    /// Work the short task ids out again when a tab opened or closed or a task id changed: each tab's is the
    /// id's random tail, lengthened where two open tabs' tasks would look alike.
    pub fn refresh_short_ids(&mut self) {
        let now = (
            self.tabs.len(),
            self.tabs.iter().map(|t| t.id).fold(0u64, u64::wrapping_add),
        );
        if now == self.short_ids_for && !self.tabs.iter().any(|t| t.ids_changed) {
            return;
        }
        self.short_ids_for = now;
        let ids: Vec<(TabId, u64, String)> = self
            .tabs
            .iter()
            .filter_map(|t| Some((t.id, t.agent.0, t.task_id_shown()?.to_string())))
            .collect();
        let refs: Vec<(TabId, u64, &str)> =
            ids.iter().map(|(t, a, i)| (*t, *a, i.as_str())).collect();
        let mut short = crate::app::short_id::distinct(&refs);
        for t in self.tabs.iter_mut() {
            t.short_id = short.remove(&t.id);
            t.ids_changed = false;
        }
    }

    pub fn new_tab(&mut self, agent: AgentId) -> TabId {
        let id = self.next_tab;
        self.next_tab += 1;
        let name = self.agent(agent).map(AgentEntry::name).unwrap_or_default();
        let mut tab = TaskTab::new(id, agent, &name);
        tab.log.artifact_limit = self.artifact_limit;
        self.tabs.push(tab);
        id
    }

    /// Bring back a tab from its stored header (restore at start, reopen): the transcript loads later.
    pub fn open_stored_tab(
        &mut self,
        row: &crate::store::record::TabRow,
        has_events: bool,
    ) -> Option<TabId> {
        let agent = self.agents.iter().find(|a| a.key == row.agent_key)?.id;
        let id = self.new_tab(agent);
        let t = self.tab_mut(id)?;
        t.key = row.tab.as_str().into();
        let state = row
            .task_id
            .as_ref()
            .and_then(|_| crate::task::phase::parse_state(&row.state).ok())
            .unwrap_or_default();
        t.adopt(row.task_id.clone(), row.context_id.clone(), state);
        t.created_at = row.created_at;
        t.state_since = row.state_since;
        t.last_update = row.updated_at;
        t.gone = row.gone;
        // Until the transcript is loaded (and recounts them), the board shows the stored count.
        t.flag_count = usize::try_from(row.flags).unwrap_or(usize::MAX);
        t.stored = true;
        t.loaded = !has_events;
        t.stored_last_text = row
            .last_text
            .as_deref()
            .map(|s| crate::trust::sanitize::sanitize_text(s).0);
        // Still running (or waiting): follow it again once the agent's card and the transcript are in.
        t.pending_reattach = t.log.task_id.is_some() && !t.is_terminal() && !t.gone;
        Some(id)
    }

    /// Everything the tabs asked to record since the last call, in order. A tab's first header row comes before
    /// its first record (the store files the tab's events under it); later header changes wait for
    /// [`App::take_header_rows`], once per round, however many events changed them.
    pub fn take_records(&mut self) -> Vec<crate::store::record::Record> {
        let mut out = Vec::new();
        self.drain_records(&mut out);
        out
    }

    /// [`App::take_records`] into `out` (the tabs keep their buffers: no allocation per event).
    pub fn drain_records(&mut self, out: &mut Vec<crate::store::record::Record>) {
        for i in 0..self.tabs.len() {
            if !self.tabs[i].has_records() {
                continue;
            }
            if !self.tabs[i].header_recorded
                && let Some(row) = self.tab_row(i)
            {
                out.push(crate::store::record::Record::Tab(Box::new(row)));
            }
            self.tabs[i].drain_outbox(out);
        }
    }

    /// The header rows that changed since the last call (one per tab).
    pub fn take_header_rows(&mut self) -> Vec<crate::store::record::Record> {
        (0..self.tabs.len())
            .filter_map(|i| self.tab_row(i))
            .map(|row| crate::store::record::Record::Tab(Box::new(row)))
            .collect()
    }

    /// The header row of tab `i`, when its header changed and it has anything in the store.
    fn tab_row(&mut self, i: usize) -> Option<crate::store::record::TabRow> {
        let t = self.tabs.get_mut(i)?;
        if !t.take_header_dirty() {
            return None;
        }
        t.header_recorded = true;
        self.row_of(self.tabs.get(i)?, false)
    }

    /// A tab's header as the store keeps it.
    pub fn row_of(&self, t: &TaskTab, closed: bool) -> Option<crate::store::record::TabRow> {
        let a = self.agent(t.agent)?;
        Some(crate::store::record::TabRow {
            tab: t.key.to_string(),
            agent_key: a.key.clone(),
            agent_url: a.target.url.clone(),
            agent_name: t.agent_name.clone(),
            task_id: t.log.task_id.clone(),
            context_id: t.log.context_id.clone(),
            state: if t.log.task_id.is_some() {
                t.state_label().to_string()
            } else {
                "new".into()
            },
            last_text: t.last_remote_text().map(str::to_string),
            created_at: t.created_at,
            state_since: t.state_since,
            updated_at: t.last_update.max(t.state_since),
            closed,
            gone: t.gone,
            flags: u32::try_from(t.flag_count).unwrap_or(u32::MAX),
        })
    }

    pub fn tab(&self, id: TabId) -> Option<&TaskTab> {
        self.tabs.iter().find(|t| t.id == id)
    }

    pub fn tab_mut(&mut self, id: TabId) -> Option<&mut TaskTab> {
        self.tabs.iter_mut().find(|t| t.id == id)
    }

    pub fn active_tab(&self) -> Option<&TaskTab> {
        match self.view {
            View::Tab(id) => self.tab(id),
            _ => None,
        }
    }

    pub fn active_tab_mut(&mut self) -> Option<&mut TaskTab> {
        match self.view {
            View::Tab(id) => self.tab_mut(id),
            _ => None,
        }
    }

    pub fn selected(&self) -> Option<&AgentEntry> {
        self.agents.get(self.selected_agent)
    }

    /// Is anything live (a stream open, a request in flight, a card loading)? Drives the animation tick.
    pub fn is_live(&self) -> bool {
        self.tabs.iter().any(|t| {
            matches!(
                t.link,
                super::task::Link::Live | super::task::Link::Connecting
            )
        }) || self
            .agents
            .iter()
            .any(|a| matches!(a.state, Reachability::Loading))
    }

    /// Tabs that need the user (interrupted) and are not on screen.
    pub fn waiting_elsewhere(&self) -> usize {
        self.unseen_elsewhere(|t| t.waiting())
    }

    /// Tabs off screen whose task finished since the user last looked: news, but nothing waits for them.
    pub fn finished_elsewhere(&self) -> usize {
        self.unseen_elsewhere(|t| t.is_terminal())
    }

    fn unseen_elsewhere(&self, what: impl Fn(&crate::app::task::TaskTab) -> bool) -> usize {
        let active = self.active_tab().map(|a| a.id);
        self.tabs
            .iter()
            .filter(|t| t.attention && Some(t.id) != active && what(t))
            .count()
    }
}
