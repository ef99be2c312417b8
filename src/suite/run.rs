//! Running one case against a connected agent: the message goes out streamed when the card declares
//! streaming (blocking otherwise, then polled), events pass the shared task gate, an interrupted state gets
//! the case's next reply, and the whole case stops at its deadline. What was seen is then judged.
//!
//! An answer to auth-required carries a bearer token read from the environment variable the case names, on a
//! client built for that one request, and only when the interface is on an origin the user configured for
//! the agent: a remote agent's request for a credential never decides where a secret goes.

use std::time::Duration;

use a2a::*;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use super::expand::Case;
use super::expect::{Checked, DEFAULT_MAX_SECONDS, judge};
use super::observe::{Observed, Observer};
use crate::remote::auth::{Credential, Secret};
use crate::remote::connect::agent::{AgentTarget, Connected};
use crate::remote::error::{classify, one_line};
use crate::task::log::Source;
use crate::task::phase::{Phase, state_name};

/// A connected agent, shared by the cases that name it.
pub struct Agent {
    pub target: AgentTarget,
    pub conn: Connected,
}

/// One case's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CaseResult {
    pub name: String,
    pub spec_name: String,
    pub row: Option<std::collections::BTreeMap<String, String>>,
    /// 1-based, with `--repeat`.
    pub attempt: u32,
    pub agent: String,
    pub agent_url: String,
    pub binding: String,
    pub protocol: String,
    pub passed: bool,
    /// Why the case could not run to its end (the agent unreachable, an error reply, the deadline).
    pub error: Option<String>,
    pub checks: Vec<Checked>,
    pub seen: Observed,
}

/// How often a task is polled when it cannot stream, or after a blocking reply left it running.
const POLL: Duration = Duration::from_millis(300);
/// Times a follow-up is sent again while the agent says the task is still "in progress" (it may hold the
/// task's execution for a moment after pausing it; the Rust server SDK does).
const IN_PROGRESS_RETRIES: u32 = 10;
/// Wait before the task is read again after its answer got an internal error. The Python SDK 0.3.x replies
/// with a bare -32603 to an answer that arrives while the paused execution is still open (the answer taps the
/// old event queue, which the old execution's cleanup then closes): a person never types that fast, a suite
/// does. The answer may have been taken all the same. GetTask decides: a task still waiting with the very
/// status it was answered at gets the answer once more; a task that went on is followed. The report says which.
const RECHECK_AFTER: Duration = Duration::from_millis(300);

impl CaseResult {
    /// A case that did not run to its end, and why (its agent unreachable, the run stopped).
    pub fn not_run(case: &Case, attempt: u32, why: &str) -> CaseResult {
        CaseResult {
            error: Some(why.to_string()),
            ..CaseResult::of(case, attempt)
        }
    }

    /// A case's result before anything is known of it.
    fn of(case: &Case, attempt: u32) -> CaseResult {
        CaseResult {
            name: case.name.clone(),
            spec_name: case.spec_name.clone(),
            row: case.row.clone(),
            attempt,
            agent: case.agent.clone(),
            agent_url: String::new(),
            binding: String::new(),
            protocol: String::new(),
            passed: false,
            error: None,
            checks: Vec::new(),
            seen: Observed::default(),
        }
    }
}

/// Run `case` on `agent` (or report why its agent could not be reached).
pub async fn run_case(case: &Case, attempt: u32, agent: Result<&Agent, &str>) -> CaseResult {
    let agent = match agent {
        Ok(a) => a,
        Err(why) => return CaseResult::not_run(case, attempt, why),
    };
    let mut result = CaseResult::of(case, attempt);
    result.agent = agent.conn.label.clone();
    result.agent_url = agent.target.url.clone();
    result.binding = agent.conn.selected.binding.wire_name().to_string();
    result.protocol = agent.conn.selected.protocol.label().to_string();
    let max = case.expect.max_seconds.unwrap_or(DEFAULT_MAX_SECONDS);
    let deadline = Instant::now() + Duration::from_secs_f64(max.max(0.0));
    let mut observer = Observer::new();
    let outcome = tokio::time::timeout_at(deadline, drive(case, agent, &mut observer)).await;
    let timed_out = outcome.is_err();
    if let Ok(Err(e)) = outcome {
        result.error = Some(e);
    }
    let last = state_name(&observer.log.state).to_string();
    result.seen = observer.finish();
    result.checks = judge(&case.expect, &result.seen);
    if timed_out {
        if let Some(c) = result.checks.iter_mut().find(|c| c.what == "max_seconds") {
            c.passed = false;
            c.seen = format!("still {last} after {max} s: stopped waiting");
        }
        result.error = Some(format!(
            "stopped waiting after {max} s (last state: {last})"
        ));
    }
    result.passed = result.error.is_none() && result.checks.iter().all(|c| c.passed);
    result
}

/// Send, follow, answer; returns when the task settles with no reply left for it.
async fn drive(case: &Case, agent: &Agent, o: &mut Observer) -> Result<(), String> {
    let conn = &agent.conn;
    let mut message = first_message(case, conn)?;
    let mut replies = case.reply.iter();
    let mut first = true;
    let mut pending_credential: Option<Credential> = None;
    loop {
        if first && conn.card.card.capabilities.streaming == Some(true) {
            stream(conn, message, o).await?;
        } else {
            blocking(agent, message, pending_credential.take(), o).await?;
        }
        first = false;
        if !o.log.settled() && o.log.direct_reply.is_none() {
            poll(conn, o).await?;
        }
        if o.log.phase() != Some(Phase::Interrupted) {
            return Ok(());
        }
        let state = state_name(&o.log.state);
        let Some(reply) = replies.by_ref().find(|r| r.when == state) else {
            return Ok(());
        };
        let (Some(task), context) = (o.log.task_id.clone(), o.log.context_id.clone()) else {
            return Ok(());
        };
        pending_credential = match &reply.credential_env {
            Some(var) => Some(env_credential(var, agent)?),
            None => None,
        };
        let text = reply
            .message
            .clone()
            .unwrap_or_else(|| "approved".to_string());
        let mut m = Message::new(Role::User, vec![Part::text(text)]);
        m.task_id = Some(task);
        m.context_id = context;
        message = m;
        o.next_stream();
    }
}

/// The case's message: its text (or its skill's first example), its data part and its files.
fn first_message(case: &Case, conn: &Connected) -> Result<Message, String> {
    let text = match (&case.message, &case.skill) {
        (Some(t), _) => Some(t.clone()),
        (None, Some(skill)) => Some(skill_example(conn, skill)?),
        (None, None) => None,
    };
    let mut m = crate::task::outgoing::build_message(
        text.clone().unwrap_or_default(),
        None,
        None,
        &case.files,
    )?;
    if text.is_none() {
        m.parts.retain(|p| p.as_text() != Some(""));
    }
    if let Some(d) = &case.data {
        m.parts.push(Part::data(d.clone()));
    }
    Ok(m)
}

fn skill_example(conn: &Connected, skill: &str) -> Result<String, String> {
    let card = &conn.card.card;
    let s = card
        .skills
        .iter()
        .find(|s| s.id == skill || s.name == skill)
        .ok_or_else(|| format!("the card has no skill {skill:?}"))?;
    s.examples
        .as_ref()
        .and_then(|e| e.first())
        .cloned()
        .ok_or_else(|| format!("skill {skill:?} has no example"))
}

/// The bearer token from `var`, for the agent's own interface only.
fn env_credential(var: &str, agent: &Agent) -> Result<Credential, String> {
    let token = std::env::var(var)
        .ok()
        .filter(|t| !t.trim().is_empty())
        .ok_or_else(|| format!("auth-required: the environment variable {var} is not set"))?;
    let scope = agent.target.scope().map_err(|e| e.message)?;
    let url = &agent.conn.selected.interface.url;
    if !scope.permits_url(url) {
        return Err(scope.refusal(
            "the interface the credential would go to",
            url,
            &agent.conn.label,
        ));
    }
    Ok(Credential::Bearer(Secret::new(token.trim())))
}

/// SendStreamingMessage, read to the task settling (or the stream's end).
async fn stream(conn: &Connected, message: Message, o: &mut Observer) -> Result<(), String> {
    let req = request(message, false);
    let mut events = conn
        .client
        .send_streaming_message(&req)
        .await
        .map_err(|e| format!("SendStreamingMessage: {}", one_line(&classify(&e).message)))?;
    let mut seen_any = false;
    while let Some(item) = events.next().await {
        match item {
            Ok(ev) => {
                seen_any = true;
                o.event(o.source(), &ev);
                if o.log.settled() {
                    break;
                }
            }
            // The 0.3 SDK sends an error as the stream's one event: the call failed.
            Err(e) if !seen_any => {
                return Err(format!(
                    "SendStreamingMessage: {}",
                    one_line(&classify(&e).message)
                ));
            }
            Err(e) => o
                .seen
                .anomalies
                .push(format!("stream: {}", one_line(&classify(&e).message))),
        }
    }
    Ok(())
}

/// A blocking SendMessage (retried while the agent says the task is still in progress).
async fn blocking(
    agent: &Agent,
    message: Message,
    credential: Option<Credential>,
    o: &mut Observer,
) -> Result<(), String> {
    let conn = &agent.conn;
    let own;
    let client = match &credential {
        Some(c) => {
            own = crate::remote::connect::agent::client_with_credential(
                conn,
                &agent.target,
                conn.http.clone(),
                c,
            )
            .await
            .map_err(|e| e.message)?;
            &own
        }
        None => &conn.client,
    };
    let req = request(message, true);
    // An answer to an interrupted task: the task, and the status it waits with.
    let answering = req
        .message
        .task_id
        .clone()
        .map(|id| (id, o.log.status_seen()));
    let mut attempts = 0;
    let mut rechecked = false;
    let reply = loop {
        match client.send_message(&req).await {
            Err(e)
                if attempts < IN_PROGRESS_RETRIES && e.message.contains("already in progress") =>
            {
                attempts += 1;
                tokio::time::sleep(Duration::from_millis(300)).await;
            }
            Err(e)
                if e.code == error_code::INTERNAL_ERROR
                    // The agent's own -32603, not a transport failure folded into the same code (a timeout
                    // may leave the answer still on its way).
                    && classify(&e).kind == crate::remote::error::ErrorKind::Agent
                    && !rechecked
                    && let Some((id, waiting)) = &answering =>
            {
                let failed = format!("SendMessage: {}", one_line(&classify(&e).message));
                rechecked = true;
                tokio::time::sleep(RECHECK_AFTER).await;
                let Ok(task) = client.get_task(&get_task(id)).await else {
                    return Err(failed);
                };
                // Sent again only to the very status it answered: the same state with a new question (another
                // message or time) means the answer was taken, and sending it again would answer that.
                if &crate::task::log::StatusSeen::of(&task.status) == waiting {
                    o.seen.recovered.push(format!(
                        "the answer got an internal error and the task stayed {} with the same question: sent it again",
                        state_name(waiting.state())
                    ));
                    continue;
                }
                o.seen.recovered.push(format!(
                    "the answer got an internal error, yet the task went on to {}: followed it",
                    state_name(&task.status.state)
                ));
                break SendMessageResponse::Task(task);
            }
            Err(e) => return Err(format!("SendMessage: {}", one_line(&classify(&e).message))),
            Ok(r) => break r,
        }
    };
    let ev = match reply {
        SendMessageResponse::Task(t) => StreamResponse::Task(t),
        SendMessageResponse::Message(m) => StreamResponse::Message(m),
    };
    // The reply to a follow-up is the answer itself, even when it asks again in the same state.
    o.log.resuming = false;
    o.event(Source::Reply, &ev);
    Ok(())
}

fn get_task(id: &str) -> GetTaskRequest {
    GetTaskRequest {
        id: id.to_string(),
        history_length: Some(0),
        tenant: None,
    }
}

/// GetTask until the task settles (the deadline around the case stops this).
async fn poll(conn: &Connected, o: &mut Observer) -> Result<(), String> {
    let Some(id) = o.log.task_id.clone() else {
        return Err("the agent answered with neither a task nor a message".into());
    };
    while !o.log.settled() {
        tokio::time::sleep(POLL).await;
        let t = conn
            .client
            .get_task(&get_task(&id))
            .await
            .map_err(|e| format!("GetTask: {}", one_line(&classify(&e).message)))?;
        o.event(Source::Poll, &StreamResponse::Task(t));
    }
    Ok(())
}

fn request(message: Message, blocking: bool) -> SendMessageRequest {
    SendMessageRequest {
        message,
        configuration: blocking.then_some(SendMessageConfiguration {
            accepted_output_modes: None,
            task_push_notification_config: None,
            history_length: None,
            return_immediately: None,
        }),
        metadata: None,
        tenant: None,
    }
}
