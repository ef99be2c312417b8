//! The subcommands that talk to an agent: card, send, get, list, cancel, subscribe and push configs (a
//! stream is followed to its end in `follow.rs`).

use a2a::*;

use super::exit::Exit;
use super::follow::{Following, follow, settle};
use super::output::{self, safe_json};
use super::print::{out, outln};
use super::report::{self, Again};
use super::{Command, GlobalOpts, PushAction, agent_of, resolve_target};
use crate::config::Config;
use crate::remote::card::CardFetcher;
use crate::remote::connect::agent::{self, Connected};
use crate::remote::error::{RemoteError, classify, one_line};
use crate::task::log::TaskLog;
use crate::task::outgoing::build_message;
use crate::task::phase::{parse_state, state_name};

/// `card AGENT`: the public card, read without the agent's credential, with the interface that would be used
/// or, for a card-only agent, why none can be (exit 0 either way: the card was read).
async fn show_card(
    target: &crate::remote::connect::agent::AgentTarget,
    fetcher: &CardFetcher,
    json: bool,
) -> Result<Exit, RemoteError> {
    let seen = agent::inspect(target, fetcher, false).await?;
    if json {
        outln!(
            "{}",
            safe_json(
                &output::card_json(&seen.card.card, seen.card.signature.as_ref()),
                true
            )
        );
    } else {
        let selection = seen.selection.as_ref().map_err(|(_, e)| e.message.as_str());
        out!(
            "{}",
            output::card_text(&seen.label, &seen.card, selection, false)
        );
    }
    if let Err((_, e)) = &seen.selection {
        report::warning(&format!("card only: {}", e.message));
    }
    // The user pinned or configured the key that signs this card, and it did not: say so where a script
    // looks (stderr, the exit code), not only in the printed verdict.
    if let Some(v) = seen.card.signature.as_ref().filter(|v| v.alarm().is_some()) {
        let said = format!(
            "agent {}: {} — {}",
            crate::remote::error::one_line(&seen.label),
            v.badge(),
            crate::remote::error::one_line(&v.reason)
        );
        return Ok(report::failure(
            report::Kind::Alarm,
            &said,
            Exit::SignatureAlarm,
        ));
    }
    Ok(Exit::Done)
}

/// A connected agent and how to tell the user to run a command again: what every command after the
/// connection needs.
struct Call<'a> {
    conn: &'a Connected,
    again: &'a Again,
}

impl Call<'_> {
    /// The agent's error for the call `what`, named with the agent.
    fn failed(&self, what: &str, e: A2AError) -> RemoteError {
        classify(&e).context(format!("agent {}: {what}", self.conn.label))
    }
}

pub(super) async fn run_remote(
    config: &Config,
    global: &GlobalOpts,
    command: Command,
) -> Result<Exit, RemoteError> {
    let target = resolve_target(config, global, agent_of(&command))?;
    let again = Again::new(global, agent_of(&command));
    // An agent with `[agents.tls]` gets clients of its own for this command (its certificate is in no other).
    let own = target.own_http()?;
    for w in own.iter().flat_map(|o| &o.warnings) {
        report::warning(w);
    }
    let (fetcher, http) = match own {
        Some(o) => (o.fetcher, Some(o.http)),
        None => (std::sync::Arc::new(CardFetcher::new(target.timeout)?), None),
    };
    // The public card needs no credential and no usable interface: show it whatever the agent's state.
    if let Command::Card {
        extended: false,
        json,
        diff,
        ..
    } = command
    {
        if diff {
            return super::card_diff::run(&target, &fetcher, json).await;
        }
        return show_card(&target, &fetcher, json).await;
    }
    match command {
        Command::Login {
            no_browser, paste, ..
        } => return super::login::login(&target, &fetcher, no_browser, paste).await,
        Command::Logout { .. } => return super::login::logout(&target),
        _ => {}
    }
    let http = match http {
        Some(h) => h,
        None => crate::remote::http::http_client(target.timeout)?,
    };
    let conn = agent::connect(&target, &http, &fetcher).await?;
    let call = Call {
        conn: &conn,
        again: &again,
    };
    match command {
        Command::Card { json, .. } => extended_card(&call, &target, &fetcher, json).await,
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
            let message = message_for(&call, text, task.clone(), context, &files).await?;
            if stream {
                send_streaming(&call, message, task, json).await
            } else {
                send(&call, message, no_wait, json).await
            }
        }
        Command::Get {
            task_id,
            history,
            json,
            ..
        } => get(&call, task_id, history, json).await,
        Command::List {
            context,
            state,
            page_size,
            page_token,
            json,
            ..
        } => list(&call, context, state, page_size, page_token, json).await,
        Command::Cancel { task_id, json, .. } => cancel(&call, task_id, json).await,
        Command::Subscribe { task_id, json, .. } => subscribe(&call, task_id, json).await,
        Command::Push { action } => push(&conn, action).await,
        Command::DemoAgent { .. }
        | Command::Login { .. }
        | Command::Logout { .. }
        | Command::Trust { .. }
        | Command::Check { .. }
        | Command::Test { .. }
        | Command::Runs { .. }
        | Command::Compare { .. }
        | Command::Completions { .. }
        | Command::Prune { .. }
        | Command::History { .. }
        | Command::Export { .. }
        | Command::Audit { .. } => Ok(Exit::Done),
    }
}

/// `card --extended AGENT`: the card the agent gives a caller with its credential, its signature checked.
async fn extended_card(
    call: &Call<'_>,
    target: &crate::remote::connect::agent::AgentTarget,
    fetcher: &CardFetcher,
    json: bool,
) -> Result<Exit, RemoteError> {
    let conn = call.conn;
    let label = &conn.label;
    if conn.card.card.capabilities.extended_agent_card != Some(true) {
        report::warning(&format!(
            "agent {label}: the card does not declare an extended card (capabilities.extendedAgentCard); asking anyway"
        ));
    }
    let card = conn
        .client
        .get_extended_agent_card(&GetExtendedAgentCardRequest { tenant: None })
        .await
        .map_err(|e| call.failed("GetExtendedAgentCard", e))?;
    // The 0.3 Python SDK answers with the public card when it has no extended one configured: show
    // it as what it is, not under the extended card's heading.
    let extended = !same_card(&card, &conn.card.card);
    if !extended {
        report::warning(&format!(
            "agent {label}: asked for the extended card, the agent returned its public card (it has no extended card, or none for this credential); showing the public card"
        ));
    }
    // The extended card comes parsed by the SDK, so its signature is checked over the SDK type's JSON
    // (what a signer using the same types would have signed); the public card's raw bytes do not apply.
    let as_json = serde_json::to_value(&card).unwrap_or_default();
    let verdict = crate::remote::signature::keys::judge_value(
        &as_json,
        &conn.card.url,
        &target.trust,
        &fetcher.jku,
    )
    .await;
    if json {
        outln!(
            "{}",
            safe_json(&output::card_json(&card, Some(&verdict)), true)
        );
    } else {
        let mut shown = conn.card.clone();
        shown.card = card;
        shown.warnings.clear();
        shown.signature = Some(verdict);
        out!(
            "{}",
            output::card_text(label, &shown, Ok(&conn.selected), extended)
        );
    }
    Ok(Exit::Done)
}

/// The message `send` sends. A follow-up without the context id is legal, but the Python SDKs then file the
/// message under a freshly minted context; the task's context is looked up so the conversation stays in one
/// place.
async fn message_for(
    call: &Call<'_>,
    text: String,
    task: Option<String>,
    context: Option<String>,
    files: &[std::path::PathBuf],
) -> Result<Message, RemoteError> {
    let conn = call.conn;
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
    build_message(text, task, context, files).map_err(RemoteError::usage)
}

/// `send --stream`: the events followed as they come.
async fn send_streaming(
    call: &Call<'_>,
    message: Message,
    task: Option<String>,
    json: bool,
) -> Result<Exit, RemoteError> {
    let conn = call.conn;
    let label = &conn.label;
    if conn.card.card.capabilities.streaming != Some(true) {
        report::warning(&format!(
            "agent {label}: the card does not declare streaming; trying anyway"
        ));
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
        .map_err(|e| call.failed("SendStreamingMessage", e))?;
    let tracker = task.map(TaskLog::resuming).unwrap_or_default();
    let stream = Following {
        client: Some(&conn.client),
        label,
        call: "SendStreamingMessage",
        again: call.again,
        json,
    };
    follow(&stream, events, tracker).await
}

/// `send`: one reply, a message or a task (waited for unless `--no-wait`).
async fn send(
    call: &Call<'_>,
    message: Message,
    no_wait: bool,
    json: bool,
) -> Result<Exit, RemoteError> {
    let conn = call.conn;
    let label = &conn.label;
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
        .map_err(|e| call.failed("SendMessage", e))?;
    if json {
        outln!("{}", safe_json(&resp, true));
    }
    Ok(match resp {
        SendMessageResponse::Message(m) => {
            if !json {
                let mut out = String::new();
                output::message_text(&mut out, label, None, "direct message reply (no task)", &m);
                out!("{out}");
            }
            Exit::Done
        }
        SendMessageResponse::Task(t) => {
            if !json {
                out!("{}", output::task_text(label, &t));
            }
            if no_wait {
                Exit::Done
            } else {
                settle(call.again, &t.id, &t.status.state)
            }
        }
    })
}

/// `get`: a task, with as much of its history as asked for.
async fn get(
    call: &Call<'_>,
    task_id: String,
    history: Option<i32>,
    json: bool,
) -> Result<Exit, RemoteError> {
    let conn = call.conn;
    let label = &conn.label;
    let t = conn
        .client
        .get_task(&GetTaskRequest {
            id: task_id,
            history_length: history,
            tenant: None,
        })
        .await
        .map_err(|e| call.failed("GetTask", e))?;
    if json {
        outln!("{}", safe_json(&t, true));
    } else {
        out!("{}", output::task_text(label, &t));
        if history.is_some_and(|h| h > 0) {
            for m in t.history.iter().flatten() {
                let who = if m.role == Role::User {
                    "history · you"
                } else {
                    "history · agent"
                };
                let mut out = String::new();
                output::message_text(&mut out, label, Some(&t.id), who, m);
                out!("{out}");
            }
        }
    }
    Ok(settle(call.again, &t.id, &t.status.state))
}

/// `list`: the agent's tasks, a page at a time (A2A 1.0 only).
async fn list(
    call: &Call<'_>,
    context: Option<String>,
    state: Option<String>,
    page_size: Option<i32>,
    page_token: Option<String>,
    json: bool,
) -> Result<Exit, RemoteError> {
    let conn = call.conn;
    let label = &conn.label;
    let status = state
        .as_deref()
        .map(parse_state)
        .transpose()
        .map_err(RemoteError::usage)?;
    if conn.selected.protocol == crate::config::protocol::ProtocolChoice::V03 {
        // 0.3 has no tasks/list (either binding): nothing to send. Not the agent's error, and no fault
        // of the wire: the command cannot be done with this agent, like an unknown --state.
        return Err(RemoteError::usage(format!(
            "agent {label} speaks A2A 0.3, which has no ListTasks (tasks/list), so nothing was sent; `{}` reads one task",
            call.again.command("get", &["TASK_ID"])
        )));
    }
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
        .map_err(|e| call.failed("ListTasks", e))?;
    if json {
        outln!("{}", safe_json(&resp, true));
    } else {
        outln!("{:<38} {:<38} {:<15} UPDATED", "TASK", "CONTEXT", "STATE");
        for t in &resp.tasks {
            outln!(
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
        outln!("{} of {} task(s)", resp.tasks.len(), resp.total_size);
        if !resp.next_page_token.is_empty() {
            outln!("more: --page-token {}", one_line(&resp.next_page_token));
        }
    }
    Ok(Exit::Done)
}

/// `cancel`: asks the agent to cancel a task and says what the task did.
async fn cancel(call: &Call<'_>, task_id: String, json: bool) -> Result<Exit, RemoteError> {
    let conn = call.conn;
    let label = &conn.label;
    let t = conn
        .client
        .cancel_task(&CancelTaskRequest {
            id: task_id,
            metadata: None,
            tenant: None,
        })
        .await
        .map_err(|e| call.failed("CancelTask", e))?;
    if json {
        outln!("{}", safe_json(&t, true));
    } else {
        out!("{}", output::task_text(label, &t));
    }
    // Canceled is what was asked for; anything else says what the task did instead.
    Ok(if t.status.state == TaskState::Canceled {
        Exit::Done
    } else {
        settle(call.again, &t.id, &t.status.state)
    })
}

/// `subscribe`: a task's events followed from now.
async fn subscribe(call: &Call<'_>, task_id: String, json: bool) -> Result<Exit, RemoteError> {
    let conn = call.conn;
    let events = conn
        .client
        .subscribe_to_task(&SubscribeToTaskRequest {
            id: task_id.clone(),
            tenant: None,
        })
        .await
        .map_err(|e| call.failed("SubscribeToTask", e))?;
    let stream = Following {
        client: Some(&conn.client),
        label: &conn.label,
        call: "SubscribeToTask",
        again: call.again,
        json,
    };
    follow(&stream, events, TaskLog::for_task(task_id)).await
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
                outln!("{}", safe_json(&resp, true));
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
                outln!("{{}}");
            } else {
                outln!("deleted push config {}", one_line(&id));
            }
        }
    }
    Ok(Exit::Done)
}

fn print_push(configs: &[TaskPushNotificationConfig], json: bool) {
    if json {
        for c in configs {
            outln!("{}", safe_json(c, true));
        }
        return;
    }
    if configs.is_empty() {
        outln!("no push notification configs");
    }
    for c in configs {
        outln!(
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

/// Whether the card the extended-card call returned is the public card (compared as JSON). The call's reply
/// had the credential redacted wherever the agent echoed it (`remote::connect::echoed`); the public card, read without
/// one, is redacted the same way first, or a card that names its token would never match itself.
fn same_card(returned: &AgentCard, public: &AgentCard) -> bool {
    match (serde_json::to_value(returned), serde_json::to_value(public)) {
        (Ok(returned), Ok(mut public)) => {
            crate::remote::connect::echoed::value(&mut public);
            returned == public
        }
        _ => false,
    }
}
