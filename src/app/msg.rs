//! What flows into the app (`Msg`: input, remote results, timers) and what the app asks the runtime to do
//! (`Effect`). Every background job reports back as a `Msg`; the app never waits on anything.

use std::path::PathBuf;

use a2a::{SendMessageResponse, StreamResponse, Task};

use super::agent::AgentInfo;
use super::ids::{AgentId, TabId};
use crate::remote::connect::agent::AgentTarget;

/// How writing an artifact's part ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SaveResult {
    /// Written: how many bytes.
    Saved(usize),
    /// Something is already there (what, in words); nothing was written.
    Exists(String),
    Failed(String),
}

#[derive(Debug)]
pub enum Msg {
    /// A terminal event (key, mouse, resize, paste).
    Input(crossterm::event::Event),
    /// A sign-in, a failed one, a failed refresh or a sign-out happened (`remote::auth::token_store`): it
    /// goes to the audit log through the store's writer like every other record.
    SignInAudited(Box<crate::remote::auth::token_store::SignInEvent>),
    /// An agent's card loaded (or failed to).
    AgentLoaded {
        agent: AgentId,
        result: Result<Box<AgentInfo>, String>,
    },
    /// Something arrived on a tab's stream. `generation` tells a stale stream from the current one.
    Stream {
        tab: TabId,
        generation: u64,
        /// Which stream (or the GetTask poll that stands in for one).
        source: crate::task::log::Source,
        item: StreamItem,
    },
    /// The reply to a blocking SendMessage (or GetTask on refresh).
    Reply {
        tab: TabId,
        generation: u64,
        result: Result<Box<SendMessageResponse>, String>,
    },
    /// The answer to CancelTask.
    Canceled {
        tab: TabId,
        result: Result<Box<Task>, String>,
    },
    /// The stored events that arrived at `at` in a tab, as the raw JSON viewer shows them (pretty-printed,
    /// sanitised, cut to a readable size), or why they could not be read.
    RawEventsLoaded {
        at: chrono::DateTime<chrono::Utc>,
        result: Result<Vec<String>, String>,
    },
    /// The embedded demo agent started at the user's request (where it listens), or could not.
    DemoStarted(Result<Box<DemoListening>, String>),
    /// The config file was (or could not be) updated.
    ConfigSaved(Result<String, String>),
    /// An agent's new name is in the config file (or could not be written there): `label` is the name that
    /// was saved, so the agent's stored tabs move to the key the next start will compute.
    AgentRenamed {
        agent: AgentId,
        label: String,
        result: Result<String, String>,
    },
    /// A transcript was (or could not be) exported.
    Saved(Result<String, String>),
    /// An artifact's part was written to `path`, or not (see [`SaveResult`]).
    SaveDone { path: PathBuf, result: SaveResult },
    /// Highlighted lines for a code block.
    Highlighted(crate::markup::highlight::HighlightDone),
    /// Tasks listed by an agent (ListTasks), to import into tabs.
    Imported {
        agent: AgentId,
        result: Result<Vec<Task>, String>,
    },
    /// A task's current state (GetTask on demand).
    Refreshed {
        tab: TabId,
        result: Result<Box<Task>, String>,
    },
    /// A push notification the local receiver accepted on `agent`'s registration for `task_id` (path, token,
    /// task and context checked, not a duplicate). Routed to that agent's tab only: task ids are the agents'
    /// to choose, so another agent may use the same one.
    Push {
        agent: AgentId,
        task_id: String,
        event: Box<StreamResponse>,
    },
    /// The answer to registering (or listing, or deleting) a tab's push configs.
    PushConfigs {
        tab: TabId,
        result: Result<Vec<a2a::TaskPushNotificationConfig>, String>,
        what: &'static str,
    },
    /// The device flow started: what the user must do.
    DeviceCode {
        tab: TabId,
        result: Result<(String, String), String>,
    },
    /// The OAuth flow ended: a token to approve with, or why not. `source` names the flow for the
    /// transcript and the audit log ("OAuth device-flow token").
    OAuthDone {
        owner: crate::app::state::SignInFor,
        result: Result<crate::remote::auth::Secret, String>,
        source: &'static str,
    },
    /// The code-flow sign-in is ready: the address to open and the listener's port, or why not.
    CodeFlowStarted {
        owner: crate::app::state::SignInFor,
        result: Result<(String, u16), String>,
    },
    /// The audit log's latest entries, for the viewer.
    AuditLoaded(Result<Vec<AuditRow>, String>),
    /// A running check's progress (requests sent of its budget).
    CheckProgress {
        agent: AgentId,
        sent: usize,
        budget: usize,
    },
    /// A check finished: its page and the report to keep (`(agent URL, --json object)`), or why it could
    /// not run.
    CheckDone {
        agent: AgentId,
        result: Result<(Box<CheckPage>, String, String), String>,
    },
    /// A suite run on an agent from the console: `done` of `total` cases finished, `failed` of them failed.
    SuiteProgress {
        agent: AgentId,
        done: usize,
        total: usize,
        failed: usize,
    },
    /// A suite run ended: its results page, or why it could not run (the file unreadable, no case).
    SuiteDone {
        agent: AgentId,
        result: Result<Box<CheckPage>, String>,
    },
    /// The agents' last check verdicts, from the store at start: `(agent URL, badge, a MUST failed)`.
    CheckVerdicts(Vec<(String, String, bool)>),
    /// The agent says it does not know the task a tab follows (A2A `TaskNotFoundError`, -32001): it restarted
    /// or forgot it. The tab stops re-attaching.
    TaskGone {
        tab: TabId,
        generation: u64,
        why: String,
    },
    /// Part of a restored tab's transcript, read from the store (in order; `done` on the last part).
    TranscriptLoaded {
        tab: TabId,
        items: Vec<StoredItem>,
        done: bool,
    },
    /// The store writer's state changed: it failed (what, and which tabs lost records), or recovered.
    StoreStatus(crate::store::writer::WriterStatus),
    /// Closed tabs from the store, the most recently closed first (to reopen one).
    ClosedTabs(Result<Vec<crate::store::StoredTab>, String>),
    /// A file attached to a tab's next message: its size, or why it cannot be read.
    AttachmentChecked {
        tab: TabId,
        path: PathBuf,
        result: Result<u64, String>,
    },
    /// Animation tick; only scheduled while something is live.
    Tick,
    /// The status message's time is up (the runtime wakes for it at its deadline, not on a tick).
    StatusDue(std::time::Instant),
    /// The key guard of the dialog on screen has run out (the runtime's timer): its keys are live.
    KeyGuardDue(std::time::Instant),
    /// The drafts' save is due (the runtime's timer, `Drafts::save_due`): what changed is written.
    DraftsDue,
    /// The program was told to end (SIGINT, SIGTERM, SIGHUP, SIGQUIT): quit whatever the focus, the open
    /// dialog or the keymap (a signal is not a key the user may have bound to something else).
    Stop,
}

/// One row of the audit viewer: what it shows (a run of like events folded, with its count) and what opening
/// it shows (the entries as pretty JSON), both sanitised.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuditRow {
    pub line: String,
    pub detail: Vec<String>,
}

/// One row of a check report page: a heading (no verdict) or a finding with its evidence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckRow {
    pub line: String,
    /// `PASS`, `FAIL`, `WARN`, `SKIP` (`None`: an area's heading).
    pub verdict: Option<&'static str>,
    /// What Enter shows: the requirement, the reason and the requests behind it.
    pub detail: Vec<String>,
}

/// A check report as the console shows it (built by the runtime from the report; every remote string in it
/// was sanitised when the finding was made).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckPage {
    /// `check of NAME · 41 PASS · 2 FAIL …`.
    pub title: String,
    /// What changed since the last check, when there was one.
    pub changes: Option<String>,
    /// What changed needs a look: a check's new failure, a suite case that changed (the line is coloured).
    pub changes_alarm: bool,
    pub rows: Vec<CheckRow>,
    pub badge: String,
    pub must_failed: bool,
    /// A check report, or a suite run's results (the same page, other words around the rows).
    pub kind: PageKind,
}

/// Which report a [`CheckPage`] holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PageKind {
    #[default]
    Check,
    Suite,
}

impl PageKind {
    /// Before what changed since the last report.
    pub fn changes_lead(self) -> &'static str {
        match self {
            PageKind::Check => "since the last check: ",
            PageKind::Suite => "",
        }
    }

    /// The line under it: where the rows' words come from and what Enter opens.
    pub fn note(self) -> &'static str {
        match self {
            PageKind::Check => {
                "▍ rows quote the agent's answers as received (sanitised) · Enter: the requests behind a line"
            }
            PageKind::Suite => {
                "▍ rows quote the agent's answers as received (sanitised) · Enter: what a case expected and what the agent gave"
            }
        }
    }

    /// What Enter on a row opens (the title's hint, and the opened page's title).
    pub fn detail(self) -> &'static str {
        match self {
            PageKind::Check => "Evidence",
            PageKind::Suite => "Details",
        }
    }
}

/// The embedded demo agent, listening.
#[derive(Clone, Debug)]
pub struct DemoListening {
    /// Its entry, built by the runtime (`demo::target`): the app never reaches into `demo/`. Its gRPC
    /// interface (another port: another origin) is allowed because the user started the demo.
    pub target: crate::remote::connect::agent::AgentTarget,
    /// Why it is not on its usual port, to tell the user (its tasks are stored under another address).
    pub moved: Option<String>,
}

impl DemoListening {
    pub fn at(target: crate::remote::connect::agent::AgentTarget) -> Self {
        DemoListening {
            target,
            moved: None,
        }
    }
}

/// One row of a stored transcript, decoded off the UI thread.
#[derive(Debug)]
pub enum StoredItem {
    User {
        text: String,
        message_id: String,
        at: chrono::DateTime<chrono::Utc>,
    },
    Note {
        text: String,
        error: bool,
        at: chrono::DateTime<chrono::Utc>,
    },
    Event {
        source: crate::task::log::Source,
        event: Box<StreamResponse>,
        at: chrono::DateTime<chrono::Utc>,
    },
}

#[derive(Debug)]
pub enum StreamItem {
    Event(Box<StreamResponse>),
    /// A bad frame or a transport error; the stream may continue.
    Error(String),
    /// The stream closed.
    End,
}

#[derive(Debug)]
pub enum Effect {
    /// Read from the store the events of tab `key` that arrived at `at` (answered by [`Msg::RawEventsLoaded`]).
    LoadRawEvents {
        key: String,
        at: chrono::DateTime<chrono::Utc>,
    },
    /// Start the embedded demo agent on 127.0.0.1:`port`, or on a free port when that one is taken (answered
    /// by [`Msg::DemoStarted`]).
    StartDemo { port: u16 },
    /// Fetch (or revalidate) an agent's card and build its client.
    LoadAgent {
        agent: AgentId,
        target: Box<AgentTarget>,
        /// Revalidate a cached card with the server even if it is still fresh.
        refresh: bool,
    },
    /// Send a message on a tab; `stream` uses SendStreamingMessage.
    Send {
        tab: TabId,
        generation: u64,
        agent: AgentId,
        message: Box<super::Outgoing>,
        stream: bool,
    },
    /// Re-attach to a task's events (SubscribeToTask), falling back to GetTask.
    Subscribe {
        tab: TabId,
        generation: u64,
        agent: AgentId,
        task_id: String,
    },
    /// Cancel a task.
    Cancel {
        tab: TabId,
        agent: AgentId,
        task_id: String,
    },
    /// Append an agent to the config file (comments kept), with the short name the user gave it.
    AddAgentToConfig { url: String, name: Option<String> },
    /// Set (or, with `None`, remove) the `name` of an agent's entry in the config file, found by the agent's
    /// current stable `key`; the runtime answers [`Msg::AgentRenamed`] with `label`, the new name in the app.
    RenameAgentInConfig {
        agent: AgentId,
        key: String,
        name: Option<String>,
        label: String,
    },
    /// Remove an agent from the config file.
    RemoveAgentFromConfig { url: String },
    /// Add a pinned key thumbprint to the agent's `[agents.trust]` in the config file (the agent's entry is
    /// added when it is not there, so the pin is where the user can see it).
    PinKeyInConfig { url: String, thumbprint: String },
    /// Write bytes to a new file the user chose (never through a symlink; mode 0600). With `replace`, the user
    /// confirmed that whatever is at `path` is replaced.
    SaveFile {
        path: PathBuf,
        bytes: crate::app::spool::TextSlice,
        replace: bool,
    },
    /// Highlight code for this background (`"dark"` or `"light"`) from now on: the theme was switched.
    SetCodeTheme(&'static str),
    /// Highlight a code block off the UI thread.
    Highlight {
        key: u64,
        lang: Option<String>,
        code: String,
    },
    /// List the agent's tasks (ListTasks) to import them.
    ImportTasks {
        agent: AgentId,
        state: Option<a2a::TaskState>,
        context: Option<String>,
    },
    /// Fetch a task's state (GetTask).
    RefreshTask {
        tab: TabId,
        agent: AgentId,
        task_id: String,
    },
    /// Answer an auth-required task: a follow-up message sent with this credential (after the user approved).
    Approve {
        tab: TabId,
        generation: u64,
        agent: AgentId,
        task_id: String,
        context_id: Option<String>,
        credential: ApprovalCredential,
    },
    /// Re-attach to a task after a pause (back-off after a broken stream).
    Resubscribe {
        tab: TabId,
        generation: u64,
        agent: AgentId,
        task_id: String,
        delay_ms: u64,
    },
    /// Write a human decision to the audit log (credentials never included).
    Audit { tab: TabId, line: String },
    /// Keep something in the store (the writer thread commits it in a batch; nothing is inferred later).
    Record(crate::store::record::Record),
    /// Read a restored tab's transcript from the store.
    LoadTranscript { tab: TabId, key: String },
    /// Read the closed tabs, to reopen one.
    LoadClosedTabs,
    /// Look at a file just attached (its size, or why it cannot be read), for the compose box's list; answered
    /// by [`Msg::AttachmentChecked`].
    CheckAttachment { tab: TabId, path: PathBuf },
    /// The agent was removed: drop its connection and credentials.
    ForgetAgent { agent: AgentId },
    /// Register the local push receiver for a task (CreateTaskPushNotificationConfig).
    RegisterPush {
        tab: TabId,
        agent: AgentId,
        task_id: String,
        /// The task's context when known: the receiver then refuses events for any other (or none).
        context_id: Option<String>,
    },
    /// List a task's push configs.
    ListPush {
        tab: TabId,
        agent: AgentId,
        task_id: String,
    },
    /// Delete a task's push configs by id.
    DeletePush {
        tab: TabId,
        agent: AgentId,
        task_id: String,
        ids: Vec<String>,
    },
    /// Sign in with the OAuth 2.0 device flow the card declares, then approve with the token.
    DeviceFlow {
        tab: TabId,
        device_url: String,
        token_url: String,
        client_id: String,
        scopes: Vec<String>,
        /// Each request's total deadline: the agent's `timeout_secs`.
        timeout: std::time::Duration,
    },
    /// Sign in with the authorization code flow (PKCE) or OpenID Connect the card declares: open the
    /// redirect listener, report the address (`Msg::CodeFlowStarted`), wait for the browser or a pasted
    /// address, exchange the code, keep the token for the agent, then `Msg::OAuthDone`.
    CodeFlow {
        owner: crate::app::state::SignInFor,
        plan: Box<crate::remote::auth::sign_in::Plan>,
        /// The agent's `[agents.auth]` (a confidential client's secret source), its scope and label.
        auth: Option<Box<crate::config::AuthConfig>>,
        scope: Box<crate::remote::auth::origin::CredentialScope>,
        label: String,
    },
    /// The redirected address the user pasted, for the tab's code-flow sign-in (it holds the code: never
    /// logged).
    CodeFlowPaste {
        owner: crate::app::state::SignInFor,
        pasted: crate::remote::auth::Secret,
    },
    /// Stop waiting for a device-flow or code-flow sign-in (closes the redirect listener).
    CancelOAuth { owner: crate::app::state::SignInFor },
    /// Read the audit log for the viewer.
    LoadAudit,
    /// Run `check` on an agent in the background (answered by [`Msg::CheckProgress`] and [`Msg::CheckDone`]).
    RunCheck {
        agent: AgentId,
        target: Box<AgentTarget>,
    },
    /// Run a suite file's cases on an agent in the background, keep the run in the store (answered by
    /// [`Msg::SuiteProgress`] and [`Msg::SuiteDone`]).
    RunSuite {
        agent: AgentId,
        target: Box<AgentTarget>,
        path: PathBuf,
    },
    /// Stop the suite running on an agent: it ends with the cases that finished ([`Msg::SuiteDone`]).
    StopSuite { agent: AgentId },
    /// Append a tab's task, as a case, to a suite file (answered by [`Msg::Saved`]).
    RecordCase {
        path: PathBuf,
        recording: Box<crate::suite::record::Recording>,
    },
    /// Write a tab's whole conversation (every task of it, or its message exchange) from the store to a file.
    ExportTab {
        tab_key: String,
        agent_url: String,
        agent_name: String,
        path: PathBuf,
    },
    /// Ring the terminal bell.
    Bell,
    /// Put text on the user's clipboard with an OSC 52 write to the terminal: only ever from the user's `y`/`Y`
    /// (nothing remote builds this), with text already sanitised; the runtime answers with `Msg::Saved`.
    Copy { text: String, what: String },
    /// Leave the console.
    Quit,
}

/// The text of the follow-up message that approves an auth-required request (the credential rides on that
/// request's headers, not in the text). The transcript shows exactly this.
pub const APPROVAL_TEXT: &str = "Approved: credentials are attached to this request.";

/// Which credential the user chose to approve an auth-required request with.
#[derive(Debug)]
pub enum ApprovalCredential {
    /// The agent's configured `[agents.auth]` credential.
    Configured,
    /// A bearer token the user pasted (never shown, never logged).
    Pasted(crate::remote::auth::Secret),
}
#[cfg(test)]
mod tests {
    /// Every event of a stream is moved through the stream queue as a `Msg` (2 048 slots of them): a large
    /// variant held inline makes every slot and every event's copy that large. A `DemoStarted` of 568 bytes
    /// did, and a flood's queue blocks then cost megabytes; large payloads are boxed.
    #[test]
    fn a_message_stays_small_enough_to_queue_by_the_thousand() {
        let size = std::mem::size_of::<super::Msg>();
        assert!(size <= 80, "Msg is {size} bytes: box the payload that grew");
    }
}
