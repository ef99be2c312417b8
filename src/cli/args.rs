//! The command line's shape (clap): global options, subcommands and their flags.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use clap_complete::engine::ArgValueCompleter;

use super::exit::EXIT_CODES_HELP;
use crate::config::Overrides;

#[derive(Debug, Parser)]
#[command(
    name = "a2a-console",
    version,
    about = "A terminal console and scriptable CLI for remote agents that speak Agent2Agent (A2A) v1.0 and v0.3.",
    after_help = EXIT_CODES_HELP
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalOpts,
    /// Open the console on the embedded demo agent (started in-process), plus any configured agents.
    #[arg(long)]
    pub demo: bool,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Args, Clone, Default)]
pub struct GlobalOpts {
    /// Config file (default: $A2A_CONSOLE_CONFIG, then ~/.config/a2a-console/config.toml).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Binding to use: JSONRPC, HTTP+JSON or GRPC (default: the card's preference).
    #[arg(long, global = true, value_name = "B")]
    pub binding: Option<String>,
    /// Protocol version to use: 1.0 or 0.3 (default: the newest the card offers).
    #[arg(long, global = true, value_name = "V")]
    pub protocol: Option<String>,
    /// Extra header for every request, as 'Name: value' (repeatable).
    #[arg(long = "header", global = true, value_name = "'K: V'")]
    pub headers: Vec<String>,
    /// Send 'Authorization: Bearer <token>' with the token read from this environment variable.
    #[arg(long, global = true, value_name = "VAR")]
    pub bearer_env: Option<String>,
    /// Seconds to wait for one request, and for a stream's next event (default 30; streams: 60).
    #[arg(long, global = true, value_name = "SECS")]
    pub timeout: Option<u64>,
    /// Seconds a stream may go without an event or keep-alive (overrides --timeout for streams).
    #[arg(long, global = true, value_name = "SECS")]
    pub idle_timeout: Option<u64>,
    /// Seconds a stream may last at most, however lively (default: no limit).
    #[arg(long, global = true, value_name = "SECS")]
    pub deadline: Option<u64>,
    /// Use a card interface on this other origin (https://host[:port]) for this command, like the agent's
    /// allowed_origins: its calls, and any credential or header, go there too (repeatable).
    #[arg(long = "allow-origin", global = true, value_name = "ORIGIN")]
    pub allow_origins: Vec<String>,
}

impl GlobalOpts {
    /// The subset the console uses.
    pub fn overrides(&self) -> Overrides {
        Overrides {
            config: self.config.clone(),
            timeout: self.timeout,
            idle_timeout: self.idle_timeout,
            deadline: self.deadline,
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show an agent's card (identity, interfaces, capabilities, security, skills, warnings).
    Card {
        /// A configured agent's name, or a URL (base URL or direct card URL).
        #[arg(add = ArgValueCompleter::new(super::completions::agent_candidates))]
        agent: String,
        /// Fetch the authenticated extended card (GetExtendedAgentCard).
        #[arg(long)]
        extended: bool,
        /// Show what changed since the card kept in the local store (by the console or an earlier
        /// `card --diff`), field by field, with the changes that break a client flagged; then keep this one.
        #[arg(long, conflicts_with = "extended")]
        diff: bool,
        #[arg(long)]
        json: bool,
    },
    /// Check who signed an agent's card and pin the key (trust on first use): shows the key's thumbprint,
    /// algorithm, kid and the canonical form that verified, asks y/N (or takes --yes), and writes
    /// `pinned = [...]` into the agent's `[agents.trust]` in the config file.
    Trust {
        #[arg(add = ArgValueCompleter::new(super::completions::agent_candidates))]
        agent: String,
        /// Pin without asking.
        #[arg(long)]
        yes: bool,
    },
    /// Judge an agent against the A2A spec from a client's seat: one line per requirement (id, spec section,
    /// MUST/SHOULD/MAY, PASS/FAIL/WARN/SKIP) with the request and response behind anything but a PASS, then
    /// a summary by area. Read-only: the probes create nothing on the agent, and the most requests they can
    /// send is said before they start. Exit 8 when a MUST fails.
    Check {
        #[arg(add = ArgValueCompleter::new(super::completions::agent_candidates))]
        agent: String,
        /// Print the report as one JSON object (schema in the README).
        #[arg(long)]
        json: bool,
        /// Also write the report as JUnit XML to this file (one test case per requirement).
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
        /// Print the evidence of every finding that is not a PASS (default: FAIL and WARN only).
        #[arg(long)]
        verbose: bool,
        /// Also run the active probes with this message: they CREATE TASKS on the agent (the message sent
        /// streamed and blocking, one follow-up in the same context, one per other binding).
        #[arg(long, value_name = "TEXT")]
        send: Option<String>,
        /// Active probes with each skill's first example (up to 3) as the message; they create tasks too.
        #[arg(long)]
        examples: bool,
    },
    /// Run regression suites (TOML; `suite.example.toml` is the annotated example): every case sends its
    /// message, answers interrupted states with its replies, and is judged on its expectations (state, text,
    /// JSONPath, media types, timings, flags). One PASS/FAIL line per case with what failed and what was seen;
    /// the run is kept in the local store (`runs`, `compare`). Exit 0 only when every case passes, 9 when one
    /// fails. --binding / --protocol run the same suite over another interface.
    Test {
        #[arg(required = true, value_name = "SUITE.toml")]
        suites: Vec<PathBuf>,
        /// Run every case on this agent (a configured name or a URL) instead of the ones the files name.
        #[arg(long, add = ArgValueCompleter::new(super::completions::agent_candidates))]
        agent: Option<String>,
        /// Only the cases whose name contains this text (case-insensitive).
        #[arg(long, value_name = "TEXT")]
        filter: Option<String>,
        /// Run each case N times and report its pass rate (a flakiness measure).
        #[arg(long, value_name = "N", default_value_t = 1)]
        repeat: u32,
        /// Cases run at the same time.
        #[arg(long, value_name = "N", default_value_t = 4)]
        jobs: usize,
        /// Also write the results as JUnit XML (one test case per case and row).
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
        /// Also write the run's report as JSON (schema in the README).
        #[arg(long, value_name = "FILE")]
        json: Option<PathBuf>,
        /// Print every expectation of every case, not only the failing ones.
        #[arg(long)]
        verbose: bool,
    },
    /// List the suite runs kept in the local store, newest first.
    Runs {
        /// Print a JSON array (one object per run, with its `id`).
        #[arg(long)]
        json: bool,
        /// At most this many runs.
        #[arg(long, value_name = "N", default_value_t = 20)]
        last: usize,
    },
    /// Show what changed between two suite runs (ids from `runs`; default: the last two), case by case, or
    /// between two tasks kept in the store (task ids or the console's short ids): states, artifacts (text
    /// diff, JSON diff, file size and hash), agent messages, flags and timing deltas.
    Compare {
        /// A run id or a task id (default: the run before the last).
        a: Option<String>,
        /// A run id or a task id (default: the last run).
        b: Option<String>,
        /// Print the comparison as JSON lines (kind, depth, text).
        #[arg(long)]
        json: bool,
    },
    /// Send a message; continue a task with --task. Exit code follows the task's state.
    Send {
        #[arg(add = ArgValueCompleter::new(super::completions::agent_candidates))]
        agent: String,
        text: String,
        /// Stream events as they happen (SendStreamingMessage).
        #[arg(long)]
        stream: bool,
        /// Return as soon as the task exists (returnImmediately) instead of waiting for it to finish or pause.
        #[arg(long, conflicts_with = "stream")]
        no_wait: bool,
        /// Continue this task (e.g. answer an input-required question).
        #[arg(long, value_name = "ID")]
        task: Option<String>,
        /// Send within this conversation context.
        #[arg(long, value_name = "ID")]
        context: Option<String>,
        /// Attach a file (repeatable).
        #[arg(long = "file", value_name = "PATH")]
        files: Vec<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Get a task's current state, artifacts and (with --history) messages.
    Get {
        #[arg(add = ArgValueCompleter::new(super::completions::agent_candidates))]
        agent: String,
        task_id: String,
        /// Include at most N history messages (0 = none).
        #[arg(long, value_name = "N")]
        history: Option<i32>,
        #[arg(long)]
        json: bool,
    },
    /// List tasks (ListTasks), newest first.
    List {
        #[arg(add = ArgValueCompleter::new(super::completions::agent_candidates))]
        agent: String,
        #[arg(long, value_name = "ID")]
        context: Option<String>,
        /// Only tasks in this state (e.g. working, input-required, completed).
        #[arg(long, value_name = "STATE")]
        state: Option<String>,
        /// Tasks per page (1-100).
        #[arg(long, value_name = "N")]
        page_size: Option<i32>,
        /// Continue from this page token.
        #[arg(long, value_name = "TOKEN")]
        page_token: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Cancel a task.
    Cancel {
        #[arg(add = ArgValueCompleter::new(super::completions::agent_candidates))]
        agent: String,
        task_id: String,
        #[arg(long)]
        json: bool,
    },
    /// Follow a running task's events (SubscribeToTask) until it finishes or waits for you.
    Subscribe {
        #[arg(add = ArgValueCompleter::new(super::completions::agent_candidates))]
        agent: String,
        task_id: String,
        #[arg(long)]
        json: bool,
    },
    /// Manage a task's push-notification configs.
    Push {
        #[command(subcommand)]
        action: PushAction,
    },
    /// Sign in to an agent as a person, with the OAuth 2.0 authorization code flow (PKCE) or OpenID Connect
    /// its card declares: prints the address to open (and opens a browser when there is one), waits for the
    /// redirect on 127.0.0.1 or for the redirected address pasted on stdin, then prints who signed in, the
    /// scopes and the expiry (never the token). Kept for later commands with [agents.auth] token_cache = true.
    Login {
        #[arg(add = ArgValueCompleter::new(super::completions::agent_candidates))]
        agent: String,
        /// Do not open a browser; only print the address.
        #[arg(long)]
        no_browser: bool,
        /// Read the redirected address from stdin even when it is not a terminal.
        #[arg(long)]
        paste: bool,
    },
    /// Forget the agent's kept sign-ins (memory and token cache file).
    Logout {
        #[arg(add = ArgValueCompleter::new(super::completions::agent_candidates))]
        agent: String,
    },
    /// List the tasks kept in the local store (what the console saw), newest first.
    History {
        #[arg(long)]
        json: bool,
    },
    /// Export the conversation that holds a stored task (every task of it, each marked, as its tab shows
    /// it): Markdown (default) or JSON.
    Export {
        /// The task's id, or the short id the console shows (its last characters). When agents share it,
        /// `#N` picks the Nth of them by URL (the console numbers them in its agent list's order, which
        /// can differ: the export names its agent, and the full id is never ambiguous).
        task_id: String,
        /// Output format: md or json.
        #[arg(long, default_value = "md")]
        format: String,
    },
    /// Print the audit log (requests, events and your decisions; credentials redacted) as JSON lines.
    Audit {
        /// Only the last N entries (default: all).
        #[arg(long, value_name = "N")]
        last: Option<usize>,
    },
    /// Apply the local store's retention now ([store] keep_days, max_mb, audit_keep_days, or these flags) and
    /// give the freed space back to the file system.
    Prune {
        /// Forget tasks not updated for this many days.
        #[arg(long, value_name = "DAYS")]
        keep_days: Option<u32>,
        /// Forget the least recently updated tasks until the store fits in this many MiB.
        #[arg(long, value_name = "MIB")]
        max_mb: Option<u64>,
        /// Drop audit-log entries older than this many days.
        #[arg(long, value_name = "DAYS")]
        audit_keep_days: Option<u32>,
    },
    /// Print the script that gives your shell completions (subcommands, flags, configured agent names).
    /// Bash: `source <(a2a-console completions bash)` in ~/.bashrc; zsh: the same in ~/.zshrc; fish:
    /// `a2a-console completions fish | source` in ~/.config/fish/config.fish.
    Completions {
        #[arg(value_enum)]
        shell: super::completions::Shell,
    },
    /// Serve the embedded demo agent on 127.0.0.1 in the foreground.
    DemoAgent {
        /// Port to listen on (0 = any free port).
        #[arg(long, default_value_t = crate::config::DEFAULT_DEMO_PORT)]
        port: u16,
    },
}

#[derive(Debug, Subcommand)]
pub enum PushAction {
    /// Register a webhook URL for a task's notifications.
    Create {
        url: String,
        #[arg(add = ArgValueCompleter::new(super::completions::agent_candidates))]
        agent: String,
        task_id: String,
        /// Config id (default: chosen by the agent).
        #[arg(long)]
        id: Option<String>,
        /// Token the agent sends back with each notification (default: a random one).
        #[arg(long)]
        token: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Show one push-notification config.
    Get {
        id: String,
        #[arg(add = ArgValueCompleter::new(super::completions::agent_candidates))]
        agent: String,
        task_id: String,
        #[arg(long)]
        json: bool,
    },
    /// List a task's push-notification configs.
    List {
        #[arg(add = ArgValueCompleter::new(super::completions::agent_candidates))]
        agent: String,
        task_id: String,
        #[arg(long)]
        json: bool,
    },
    /// Delete a push-notification config.
    Delete {
        id: String,
        #[arg(add = ArgValueCompleter::new(super::completions::agent_candidates))]
        agent: String,
        task_id: String,
        #[arg(long)]
        json: bool,
    },
}
