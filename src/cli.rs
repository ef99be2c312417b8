//! The scriptable command line: one subcommand per A2A operation, readable text or `--json`, and exit codes a
//! script can branch on (see `exit.rs`).

use std::path::PathBuf;
use std::time::Duration;

use a2a::*;
use clap::{Args, Parser, Subcommand};
use futures::StreamExt;

use crate::config::{self, AuthConfig, AuthKind, Config};
use crate::exit::{EXIT_CODES_HELP, Exit};
use crate::output::{self, safe_json};
use crate::remote::agent::{self, AgentTarget, Connected};
use crate::remote::card::CardFetcher;
use crate::remote::client::{self, Binding, ProtocolChoice};
use crate::remote::error::{RemoteError, classify, one_line};
use crate::remote::tracker::{Change, TaskTracker, state_name};
use crate::stream_print::StreamPrinter;

/// Default bound on one request, in seconds.
pub const DEFAULT_TIMEOUT_SECS: u64 = 30;

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
    /// Seconds to wait for one request (streams may stay open longer).
    #[arg(long, global = true, value_name = "SECS")]
    pub timeout: Option<u64>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show an agent's card (identity, interfaces, capabilities, security, skills, warnings).
    Card {
        /// A configured agent's name, or a URL (base URL or direct card URL).
        agent: String,
        /// Fetch the authenticated extended card (GetExtendedAgentCard).
        #[arg(long)]
        extended: bool,
        #[arg(long)]
        json: bool,
    },
    /// Send a message; continue a task with --task. Exit code follows the task's state.
    Send {
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
        agent: String,
        task_id: String,
        #[arg(long)]
        json: bool,
    },
    /// Follow a running task's events (SubscribeToTask) until it finishes or waits for you.
    Subscribe {
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
    /// List the tasks kept in the local store (what the console saw), newest first.
    History {
        #[arg(long)]
        json: bool,
    },
    /// Export a stored task's transcript: Markdown (default) or JSON.
    Export {
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
    /// Serve the embedded demo agent on 127.0.0.1 in the foreground.
    DemoAgent {
        /// Port to listen on (0 = any free port).
        #[arg(long, default_value_t = 41241)]
        port: u16,
    },
}

#[derive(Debug, Subcommand)]
pub enum PushAction {
    /// Register a webhook URL for a task's notifications.
    Create {
        url: String,
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
        agent: String,
        task_id: String,
        #[arg(long)]
        json: bool,
    },
    /// List a task's push-notification configs.
    List {
        agent: String,
        task_id: String,
        #[arg(long)]
        json: bool,
    },
    /// Delete a push-notification config.
    Delete {
        id: String,
        agent: String,
        task_id: String,
        #[arg(long)]
        json: bool,
    },
}

/// Print a one-line error to stderr and return its exit code.
pub fn fail(e: &RemoteError) -> Exit {
    eprintln!("a2a-console: {}", e.message);
    Exit::for_error(e)
}

/// Work out which agent the user means, with the command line's overrides applied.
pub fn resolve_target(
    config: &Config,
    global: &GlobalOpts,
    agent: &str,
) -> Result<AgentTarget, RemoteError> {
    let default_timeout = Duration::from_secs(
        global
            .timeout
            .or(config.timeout_secs)
            .unwrap_or(DEFAULT_TIMEOUT_SECS),
    );
    let mut target = match config.agent(agent) {
        Some(a) => AgentTarget::from_config(a, default_timeout)?,
        None if agent.contains("://") => AgentTarget::from_url(agent, default_timeout),
        None => {
            let known: Vec<String> = config
                .agents
                .iter()
                .filter_map(|a| a.name.clone())
                .collect();
            return Err(RemoteError::usage(format!(
                "{agent:?} is neither a configured agent ({}) nor a URL",
                if known.is_empty() {
                    "none configured".to_string()
                } else {
                    known.join(", ")
                }
            )));
        }
    };
    if let Some(t) = global.timeout {
        target.timeout = Duration::from_secs(t);
    }
    if let Some(b) = &global.binding {
        target.prefs.binding = Some(Binding::parse(b).map_err(RemoteError::usage)?);
    }
    if let Some(p) = &global.protocol {
        target.prefs.protocol = Some(ProtocolChoice::parse(p).map_err(RemoteError::usage)?);
    }
    for h in &global.headers {
        let (k, v) = h
            .split_once(':')
            .ok_or_else(|| RemoteError::usage(format!("--header {h:?} is not 'Name: value'")))?;
        let k = k.trim();
        if reqwest::header::HeaderName::from_bytes(k.as_bytes()).is_err() {
            return Err(RemoteError::usage(format!(
                "--header: {k:?} is not a valid header name"
            )));
        }
        target.headers.insert(k.to_string(), v.trim().to_string());
    }
    if let Some(var) = &global.bearer_env {
        target.auth = Some(AuthConfig {
            kind: AuthKind::Bearer,
            token_env: Some(var.clone()),
            token_cmd: None,
            location: None,
            name: None,
            username: None,
            scheme: None,
            client_id: None,
        });
    }
    Ok(target)
}

/// Run a subcommand to completion.
pub async fn run(global: GlobalOpts, command: Command) -> Exit {
    if let Command::DemoAgent { port } = command {
        return match crate::demo::run_foreground(port).await {
            Ok(()) => Exit::Done,
            Err(e) => {
                eprintln!("a2a-console: demo agent: {e:#}");
                Exit::Transport
            }
        };
    }
    if matches!(
        command,
        Command::History { .. } | Command::Export { .. } | Command::Audit { .. }
    ) {
        return match stored(command) {
            Ok(()) => Exit::Done,
            Err(e) => {
                eprintln!("a2a-console: {e}");
                Exit::Usage
            }
        };
    }
    let (config, _) = match config::load(global.config.as_deref()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("a2a-console: {e}");
            return Exit::Usage;
        }
    };
    match run_remote(&config, &global, command).await {
        Ok(code) => code,
        Err(e) => fail(&e),
    }
}

fn agent_of(command: &Command) -> &str {
    match command {
        Command::Card { agent, .. }
        | Command::Send { agent, .. }
        | Command::Get { agent, .. }
        | Command::List { agent, .. }
        | Command::Cancel { agent, .. }
        | Command::Subscribe { agent, .. } => agent,
        Command::Push { action } => match action {
            PushAction::Create { agent, .. }
            | PushAction::Get { agent, .. }
            | PushAction::List { agent, .. }
            | PushAction::Delete { agent, .. } => agent,
        },
        Command::DemoAgent { .. }
        | Command::History { .. }
        | Command::Export { .. }
        | Command::Audit { .. } => "",
    }
}

async fn run_remote(
    config: &Config,
    global: &GlobalOpts,
    command: Command,
) -> Result<Exit, RemoteError> {
    let target = resolve_target(config, global, agent_of(&command))?;
    let http = client::http_client(target.timeout)?;
    let fetcher = CardFetcher::new(http.clone());
    let conn = agent::connect(&target, &http, &fetcher).await?;
    let label = conn.label.clone();
    let ctx = |what: &str| format!("agent {label}: {what}");
    let agent_err = |what: &str, e: A2AError| classify(&e).context(ctx(what));

    match command {
        Command::Card { extended, json, .. } => {
            if !extended {
                if json {
                    println!("{}", safe_json(&conn.card.card, true));
                } else {
                    print!(
                        "{}",
                        output::card_text(&label, &conn.card, Some(&conn.selected), false)
                    );
                }
                return Ok(Exit::Done);
            }
            if conn.card.card.capabilities.extended_agent_card != Some(true) {
                eprintln!(
                    "a2a-console: agent {label}: the card does not declare an extended card (capabilities.extendedAgentCard); asking anyway"
                );
            }
            let card = conn
                .client
                .get_extended_agent_card(&GetExtendedAgentCardRequest { tenant: None })
                .await
                .map_err(|e| agent_err("GetExtendedAgentCard", e))?;
            if json {
                println!("{}", safe_json(&card, true));
            } else {
                let mut shown = conn.card.clone();
                shown.card = card;
                shown.warnings.clear();
                print!(
                    "{}",
                    output::card_text(&label, &shown, Some(&conn.selected), true)
                );
            }
            Ok(Exit::Done)
        }
        Command::Send {
            text,
            stream,
            no_wait,
            task,
            context,
            files,
            json,
            ..
        } => {
            // A follow-up without the context id is legal, but the Python SDKs then file the message under a
            // freshly minted context; look the task's context up so the conversation stays in one place.
            let context = match (&task, context) {
                (Some(id), None) => conn
                    .client
                    .get_task(&GetTaskRequest {
                        id: id.clone(),
                        history_length: Some(0),
                        tenant: None,
                    })
                    .await
                    .ok()
                    .map(|t| t.context_id)
                    .filter(|c| !c.is_empty()),
                (_, c) => c,
            };
            let message = build_message(text, task.clone(), context, &files)?;
            if stream {
                if conn.card.card.capabilities.streaming != Some(true) {
                    eprintln!(
                        "a2a-console: agent {label}: the card does not declare streaming; trying anyway"
                    );
                }
                let req = SendMessageRequest {
                    message,
                    configuration: None,
                    metadata: None,
                    tenant: None,
                };
                let events = conn
                    .client
                    .send_streaming_message(&req)
                    .await
                    .map_err(|e| agent_err("SendStreamingMessage", e))?;
                let tracker = task.map(TaskTracker::resuming).unwrap_or_default();
                return follow(Some(&conn.client), &label, events, tracker, json).await;
            }
            let req = SendMessageRequest {
                message,
                configuration: Some(SendMessageConfiguration {
                    accepted_output_modes: None,
                    task_push_notification_config: None,
                    history_length: None,
                    return_immediately: no_wait.then_some(true),
                }),
                metadata: None,
                tenant: None,
            };
            let resp = conn
                .client
                .send_message(&req)
                .await
                .map_err(|e| agent_err("SendMessage", e))?;
            if json {
                println!("{}", safe_json(&resp, true));
            }
            Ok(match resp {
                SendMessageResponse::Message(m) => {
                    if !json {
                        let mut out = String::new();
                        output::message_text(
                            &mut out,
                            &label,
                            None,
                            "direct message reply (no task)",
                            &m,
                        );
                        print!("{out}");
                    }
                    Exit::Done
                }
                SendMessageResponse::Task(t) => {
                    if !json {
                        print!("{}", output::task_text(&label, &t));
                    }
                    if no_wait {
                        Exit::Done
                    } else {
                        Exit::for_state(&t.status.state)
                    }
                }
            })
        }
        Command::Get {
            task_id,
            history,
            json,
            ..
        } => {
            let t = conn
                .client
                .get_task(&GetTaskRequest {
                    id: task_id,
                    history_length: history,
                    tenant: None,
                })
                .await
                .map_err(|e| agent_err("GetTask", e))?;
            if json {
                println!("{}", safe_json(&t, true));
            } else {
                print!("{}", output::task_text(&label, &t));
                if history.is_some_and(|h| h > 0) {
                    for m in t.history.iter().flatten() {
                        let who = if m.role == Role::User {
                            "history · you"
                        } else {
                            "history · agent"
                        };
                        let mut out = String::new();
                        output::message_text(&mut out, &label, Some(&t.id), who, m);
                        print!("{out}");
                    }
                }
            }
            Ok(Exit::for_state(&t.status.state))
        }
        Command::List {
            context,
            state,
            page_size,
            page_token,
            json,
            ..
        } => {
            let status = state.as_deref().map(parse_state).transpose()?;
            let resp = conn
                .client
                .list_tasks(&ListTasksRequest {
                    context_id: context,
                    status,
                    page_size,
                    page_token,
                    history_length: Some(0),
                    status_timestamp_after: None,
                    include_artifacts: None,
                    tenant: None,
                })
                .await
                .map_err(|e| agent_err("ListTasks", e))?;
            if json {
                println!("{}", safe_json(&resp, true));
            } else {
                println!("{:<38} {:<38} {:<15} UPDATED", "TASK", "CONTEXT", "STATE");
                for t in &resp.tasks {
                    println!(
                        "{:<38} {:<38} {:<15} {}",
                        one_line(&t.id),
                        one_line(&t.context_id),
                        state_name(&t.status.state),
                        t.status
                            .timestamp
                            .map(|ts| ts.to_rfc3339())
                            .unwrap_or_default()
                    );
                }
                println!("{} of {} task(s)", resp.tasks.len(), resp.total_size);
                if !resp.next_page_token.is_empty() {
                    println!("more: --page-token {}", one_line(&resp.next_page_token));
                }
            }
            Ok(Exit::Done)
        }
        Command::Cancel { task_id, json, .. } => {
            let t = conn
                .client
                .cancel_task(&CancelTaskRequest {
                    id: task_id,
                    metadata: None,
                    tenant: None,
                })
                .await
                .map_err(|e| agent_err("CancelTask", e))?;
            if json {
                println!("{}", safe_json(&t, true));
            } else {
                print!("{}", output::task_text(&label, &t));
            }
            // Canceled is what was asked for; anything else says what the task did instead.
            Ok(if t.status.state == TaskState::Canceled {
                Exit::Done
            } else {
                Exit::for_state(&t.status.state)
            })
        }
        Command::Subscribe { task_id, json, .. } => {
            let events = conn
                .client
                .subscribe_to_task(&SubscribeToTaskRequest {
                    id: task_id.clone(),
                    tenant: None,
                })
                .await
                .map_err(|e| agent_err("SubscribeToTask", e))?;
            follow(
                Some(&conn.client),
                &label,
                events,
                TaskTracker::for_task(task_id),
                json,
            )
            .await
        }
        Command::Push { action } => push(&conn, action).await,
        Command::DemoAgent { .. }
        | Command::History { .. }
        | Command::Export { .. }
        | Command::Audit { .. } => Ok(Exit::Done),
    }
}

async fn push(conn: &Connected, action: PushAction) -> Result<Exit, RemoteError> {
    let label = &conn.label;
    let err = |what: &str, e: A2AError| classify(&e).context(format!("agent {label}: {what}"));
    match action {
        PushAction::Create {
            url,
            task_id,
            id,
            token,
            json,
            ..
        } => {
            let cfg = conn
                .client
                .create_push_config(&TaskPushNotificationConfig {
                    url,
                    id,
                    task_id,
                    token: Some(token.unwrap_or_else(|| uuid::Uuid::new_v4().simple().to_string())),
                    authentication: None,
                    tenant: None,
                })
                .await
                .map_err(|e| err("CreateTaskPushNotificationConfig", e))?;
            print_push(&[cfg], json);
        }
        PushAction::Get {
            id, task_id, json, ..
        } => {
            let cfg = conn
                .client
                .get_push_config(&GetTaskPushNotificationConfigRequest {
                    task_id,
                    id,
                    tenant: None,
                })
                .await
                .map_err(|e| err("GetTaskPushNotificationConfig", e))?;
            print_push(&[cfg], json);
        }
        PushAction::List { task_id, json, .. } => {
            let resp = conn
                .client
                .list_push_configs(&ListTaskPushNotificationConfigsRequest {
                    task_id,
                    page_size: None,
                    page_token: None,
                    tenant: None,
                })
                .await
                .map_err(|e| err("ListTaskPushNotificationConfigs", e))?;
            if json {
                println!("{}", safe_json(&resp, true));
            } else {
                print_push(&resp.configs, false);
            }
        }
        PushAction::Delete {
            id, task_id, json, ..
        } => {
            conn.client
                .delete_push_config(&DeleteTaskPushNotificationConfigRequest {
                    task_id,
                    id: id.clone(),
                    tenant: None,
                })
                .await
                .map_err(|e| err("DeleteTaskPushNotificationConfig", e))?;
            if json {
                println!("{{}}");
            } else {
                println!("deleted push config {}", one_line(&id));
            }
        }
    }
    Ok(Exit::Done)
}

fn print_push(configs: &[TaskPushNotificationConfig], json: bool) {
    if json {
        for c in configs {
            println!("{}", safe_json(c, true));
        }
        return;
    }
    if configs.is_empty() {
        println!("no push notification configs");
    }
    for c in configs {
        println!(
            "config {}  task {}  url {}  token {}",
            one_line(c.id.as_deref().unwrap_or("(none)")),
            one_line(&c.task_id),
            one_line(&c.url),
            if c.token.is_some() {
                "(set, not shown)"
            } else {
                "(none)"
            }
        );
    }
}

/// The store commands: they read the local database and never touch the network.
fn stored(command: Command) -> Result<(), String> {
    let path = crate::persist::db_path().ok_or("no data directory for the local store")?;
    if !path.exists() {
        return Err(format!(
            "no local store at {} yet: the console creates it when it runs",
            path.display()
        ));
    }
    let store = crate::store::Store::open(&path).map_err(|e| e.to_string())?;
    match command {
        Command::History { json } => {
            let tasks = store.tasks().map_err(|e| e.to_string())?;
            if json {
                let v: Vec<serde_json::Value> = tasks
                    .iter()
                    .map(|t| {
                        serde_json::json!({"agent": t.agent_url, "agentName": t.agent_name, "taskId": t.task_id,
                            "contextId": t.context_id, "state": t.state, "updatedAt": t.updated_at.to_rfc3339()})
                    })
                    .collect();
                println!("{}", safe_json(&v, true));
            } else {
                println!("{:<38} {:<15} {:<20} AGENT", "TASK", "STATE", "UPDATED");
                for t in &tasks {
                    println!(
                        "{:<38} {:<15} {:<20} {}",
                        one_line(&t.task_id),
                        one_line(&t.state),
                        t.updated_at.format("%Y-%m-%d %H:%M:%S"),
                        one_line(&t.agent_name)
                    );
                }
                println!("{} task(s) in {}", tasks.len(), path.display());
            }
        }
        Command::Export { task_id, format } => {
            let rec = store
                .tasks()
                .map_err(|e| e.to_string())?
                .into_iter()
                .find(|t| t.task_id == task_id)
                .ok_or_else(|| {
                    format!(
                        "task {task_id:?} is not in the local store (see `a2a-console history`)"
                    )
                })?;
            let events = store
                .events(&rec.agent_url, &rec.task_id)
                .map_err(|e| e.to_string())?;
            match format.as_str() {
                "md" | "markdown" => {
                    print!("{}", crate::store::export_task_markdown(&rec, &events))
                }
                "json" => println!(
                    "{}",
                    safe_json(&crate::store::export_task_json(&rec, &events), true)
                ),
                other => return Err(format!("--format {other:?}: expected md or json")),
            }
        }
        Command::Audit { last } => {
            let mut buf = Vec::new();
            match last {
                Some(n) => {
                    for e in store.audit_entries(n).map_err(|e| e.to_string())? {
                        println!("{}", safe_json(&e, false));
                    }
                }
                None => {
                    store
                        .export_audit_jsonl(&mut buf)
                        .map_err(|e| e.to_string())?;
                    // The JSON lines are re-checked for terminal safety line by line.
                    for line in String::from_utf8_lossy(&buf).lines() {
                        match serde_json::from_str::<serde_json::Value>(line) {
                            Ok(v) => println!("{}", safe_json(&v, false)),
                            Err(_) => println!("{}", one_line(line)),
                        }
                    }
                }
            }
        }
        _ => {}
    }
    Ok(())
}

/// Accept `working`, `input-required`, `TASK_STATE_WORKING`.
pub fn parse_state(s: &str) -> Result<TaskState, RemoteError> {
    let norm = s.trim().to_ascii_uppercase().replace('-', "_");
    let norm = norm
        .strip_prefix("TASK_STATE_")
        .unwrap_or(&norm)
        .to_string();
    Ok(match norm.as_str() {
        "SUBMITTED" => TaskState::Submitted,
        "WORKING" => TaskState::Working,
        "COMPLETED" => TaskState::Completed,
        "FAILED" => TaskState::Failed,
        "CANCELED" | "CANCELLED" => TaskState::Canceled,
        "INPUT_REQUIRED" => TaskState::InputRequired,
        "REJECTED" => TaskState::Rejected,
        "AUTH_REQUIRED" => TaskState::AuthRequired,
        _ => {
            return Err(RemoteError::usage(format!(
                "--state {s:?}: expected submitted, working, input-required, auth-required, completed, failed, canceled or rejected"
            )));
        }
    })
}

/// The user's message: the text plus any attached files.
pub fn build_message(
    text: String,
    task: Option<String>,
    context: Option<String>,
    files: &[PathBuf],
) -> Result<Message, RemoteError> {
    let mut parts = vec![Part::text(text)];
    for path in files {
        let bytes = std::fs::read(path)
            .map_err(|e| RemoteError::usage(format!("--file {}: {e}", path.display())))?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let media = mime_guess::from_path(path)
            .first_or_octet_stream()
            .essence_str()
            .to_string();
        parts.push(Part::raw(bytes).with_filename(name).with_media_type(media));
    }
    let mut m = Message::new(Role::User, parts);
    m.task_id = task;
    m.context_id = context;
    Ok(m)
}

/// Read a stream until the task finishes or waits for the user; print as we go; exit code from the state.
async fn follow(
    client: Option<&client::Client>,
    label: &str,
    mut events: a2a_client::BoxStream<'static, Result<StreamResponse, A2AError>>,
    mut tracker: TaskTracker,
    json: bool,
) -> Result<Exit, RemoteError> {
    let mut printer = StreamPrinter::new(label);
    let mut last_error: Option<RemoteError> = None;
    while let Some(item) = events.next().await {
        match item {
            Ok(event) => {
                let change = tracker.apply(&event);
                if json {
                    println!("{}", safe_json(&event, false));
                } else {
                    printer.event(&tracker, &event, &change);
                }
                if let Change::Rejected(why) = &change {
                    eprintln!("a2a-console: agent {label}: {}", one_line(why));
                }
                if tracker.settled() {
                    // Do not wait for the server to close: streams may stay open in interrupted states.
                    break;
                }
            }
            Err(e) => {
                let err = classify(&e).context(format!("agent {label}: stream"));
                eprintln!("a2a-console: {} (continuing)", err.message);
                last_error = Some(err);
            }
        }
    }
    printer.finish();
    if let Some(m) = &tracker.direct_reply {
        if !json {
            let mut out = String::new();
            output::message_text(&mut out, label, None, "direct message reply (no task)", m);
            print!("{out}");
        }
        return Ok(Exit::Done);
    }
    if tracker.settled() {
        if !json {
            printer.summary(&tracker);
        }
        return Ok(Exit::for_state(&tracker.state));
    }
    // The stream closed before the task finished or paused. Some servers close early (the Python 0.3 SDK ends a
    // resubscribe without the final event), so ask for the task's state before calling it a failure.
    if let (Some(client), Some(id)) = (client, tracker.task_id.clone())
        && let Ok(task) = client
            .get_task(&GetTaskRequest {
                id,
                history_length: Some(0),
                tenant: None,
            })
            .await
    {
        tracker.apply_task(&task);
        if tracker.settled() {
            eprintln!(
                "a2a-console: agent {label}: the stream closed early; the task's state was fetched with GetTask"
            );
            if json {
                println!("{}", safe_json(&StreamResponse::Task(task), false));
            } else {
                print!("{}", output::task_text(label, &task));
                printer.summary(&tracker);
            }
            return Ok(Exit::for_state(&tracker.state));
        }
    }
    let state = if tracker.task_id.is_some() {
        state_name(&tracker.state)
    } else {
        "no task seen"
    };
    Err(match last_error {
        Some(e) => RemoteError::transport(format!(
            "{}; the stream ended before the task finished (last state: {state})",
            e.message
        )),
        None => RemoteError::transport(format!(
            "agent {label}: the stream ended before the task finished (last state: {state}); `a2a-console subscribe` can re-attach"
        )),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_parse_in_every_spelling() {
        assert_eq!(parse_state("working").unwrap(), TaskState::Working);
        assert_eq!(
            parse_state("input-required").unwrap(),
            TaskState::InputRequired
        );
        assert_eq!(
            parse_state("TASK_STATE_AUTH_REQUIRED").unwrap(),
            TaskState::AuthRequired
        );
        assert_eq!(parse_state("cancelled").unwrap(), TaskState::Canceled);
        assert!(parse_state("sleeping").is_err());
    }

    #[test]
    fn command_line_overrides_and_bad_values() {
        let cfg = Config::default();
        let g = GlobalOpts {
            headers: vec!["X-Tenant: blue".into()],
            binding: Some("HTTP+JSON".into()),
            ..Default::default()
        };
        let t = resolve_target(&cfg, &g, "http://127.0.0.1:1").unwrap();
        assert_eq!(t.headers["X-Tenant"], "blue");
        assert_eq!(t.prefs.binding, Some(Binding::HttpJson));
        let bad = GlobalOpts {
            headers: vec!["nocolon".into()],
            ..Default::default()
        };
        assert!(resolve_target(&cfg, &bad, "http://127.0.0.1:1").is_err());
        assert!(
            resolve_target(&cfg, &GlobalOpts::default(), "not-configured")
                .unwrap_err()
                .message
                .contains("neither")
        );
    }

    #[test]
    fn cli_parses_the_documented_shapes() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
        let c = Cli::try_parse_from([
            "a2a-console",
            "push",
            "create",
            "http://127.0.0.1:9/hook",
            "demo",
            "t1",
        ])
        .unwrap();
        assert!(matches!(
            c.command,
            Some(Command::Push {
                action: PushAction::Create { .. }
            })
        ));
        let c = Cli::try_parse_from([
            "a2a-console",
            "--timeout",
            "5",
            "send",
            "demo",
            "hi",
            "--stream",
            "--json",
        ])
        .unwrap();
        assert_eq!(c.global.timeout, Some(5));
        assert!(
            Cli::try_parse_from(["a2a-console", "send", "demo", "hi", "--stream", "--no-wait"])
                .is_err()
        );
    }
}
