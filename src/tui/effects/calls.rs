//! Requests to a connected agent: sending a message (its reply or its stream), listing, fetching and canceling
//! tasks, and the follow-up that approves an auth-required task with a credential of its own.

use std::time::Duration;

use super::streams::pump;
use crate::app::Outgoing;
use crate::app::ids::AgentId;
use crate::app::ids::TabId;
use crate::app::msg::{ApprovalCredential, Msg};
use crate::remote::connect::agent::{AgentTarget, Connected};
use crate::remote::error::classify;
use crate::tui::runtime::Runtime;

/// How many times an approval is re-sent while the agent says the task's execution is still in progress.
const APPROVAL_RETRIES: u32 = 10;

impl Runtime {
    pub(super) fn send(
        &mut self,
        tab: TabId,
        generation: u64,
        agent: AgentId,
        message: Box<Outgoing>,
        stream: bool,
    ) {
        let tx = self.tx.clone();
        let Some(conn) = self.client(agent) else {
            let _ = tx.send(Msg::Reply {
                tab,
                generation,
                result: Err("the agent is not connected (its card did not load)".into()),
            });
            return;
        };
        let stx = self.stream_tx.clone();
        let handle = tokio::spawn(async move {
            let m = *message;
            let msg = match crate::task::outgoing::build_message(
                m.text,
                m.task_id,
                m.context_id,
                &m.files,
            ) {
                Ok(mut msg) => {
                    msg.message_id = m.message_id;
                    msg
                }
                Err(e) => {
                    let _ = tx.send(Msg::Reply {
                        tab,
                        generation,
                        result: Err(crate::remote::error::RemoteError::usage(e).message),
                    });
                    return;
                }
            };
            let req = a2a::SendMessageRequest {
                message: msg,
                configuration: None,
                metadata: None,
                tenant: None,
            };
            if stream {
                match conn.client.send_streaming_message(&req).await {
                    Ok(events) => pump(events, &stx, tab, generation).await,
                    Err(e) => {
                        let _ = tx.send(Msg::Reply {
                            tab,
                            generation,
                            result: Err(classify(&e).message),
                        });
                    }
                }
            } else {
                let result = conn
                    .client
                    .send_message(&req)
                    .await
                    .map(Box::new)
                    .map_err(|e| classify(&e).message);
                let _ = tx.send(Msg::Reply {
                    tab,
                    generation,
                    result,
                });
            }
        });
        if let Some(old) = self.streams.insert(tab, handle) {
            old.abort();
        }
    }

    pub(super) fn import_tasks(
        &mut self,
        agent: AgentId,
        state: Option<a2a::TaskState>,
        context: Option<String>,
    ) {
        self.call(agent, move |conn| async move {
            let req = a2a::ListTasksRequest {
                context_id: context,
                status: state,
                page_size: Some(50),
                page_token: None,
                history_length: Some(0),
                status_timestamp_after: None,
                include_artifacts: Some(true),
                tenant: None,
            };
            let result = conn
                .client
                .list_tasks(&req)
                .await
                .map(|r| r.tasks)
                .map_err(|e| classify(&e).message);
            Some(Msg::Imported { agent, result })
        });
    }

    pub(super) fn refresh_task(&mut self, tab: TabId, agent: AgentId, task_id: String) {
        self.call(agent, move |conn| async move {
            let req = a2a::GetTaskRequest {
                id: task_id,
                history_length: Some(0),
                tenant: None,
            };
            let result = conn
                .client
                .get_task(&req)
                .await
                .map(Box::new)
                .map_err(|e| classify(&e).message);
            Some(Msg::Refreshed { tab, result })
        });
    }

    pub(super) fn cancel(&mut self, tab: TabId, agent: AgentId, task_id: String) {
        self.call(agent, move |conn| async move {
            let req = a2a::CancelTaskRequest {
                id: task_id,
                metadata: None,
                tenant: None,
            };
            let result = conn
                .client
                .cancel_task(&req)
                .await
                .map(Box::new)
                .map_err(|e| classify(&e).message);
            Some(Msg::Canceled { tab, result })
        });
    }

    pub(super) fn approve(
        &mut self,
        tab: TabId,
        generation: u64,
        agent: AgentId,
        task_id: String,
        context_id: Option<String>,
        credential: ApprovalCredential,
    ) {
        let tx = self.tx.clone();
        let (Some(conn), Some(target)) = (self.client(agent), self.targets.get(&agent).cloned())
        else {
            return;
        };
        // The agent's own client when it has one: the follow-up carries its certificate too.
        let http = conn.http.clone();
        let handle = tokio::spawn(async move {
            let result =
                approve_request(&conn, &target, http, credential, task_id, context_id).await;
            let _ = tx.send(Msg::Reply {
                tab,
                generation,
                result: result.map(Box::new),
            });
        });
        if let Some(old) = self.streams.insert(tab, handle) {
            old.abort();
        }
    }
}

/// Send the follow-up that answers an auth-required task, with the approved credential on this request only.
async fn approve_request(
    conn: &Connected,
    target: &AgentTarget,
    http: reqwest::Client,
    credential: ApprovalCredential,
    task_id: String,
    context_id: Option<String>,
) -> Result<a2a::SendMessageResponse, String> {
    use crate::remote::auth::Credential;
    let credential = match credential {
        ApprovalCredential::Pasted(token) => Credential::Bearer(token),
        ApprovalCredential::Configured => {
            let auth = target
                .auth
                .as_ref()
                .ok_or("no credential is configured for this agent")?;
            // The same rule as at connect time: the configured secret goes to its own origins only (the token
            // endpoint of a client-credentials flow, and the interface this request goes to).
            let scope = target.scope().map_err(|e| e.message)?;
            if !scope.permits_url(&conn.selected.interface.url) {
                return Err(scope.refusal(
                    "the interface this approval would go to",
                    &conn.selected.interface.url,
                    &conn.label,
                ));
            }
            crate::remote::auth::resolve_scoped(
                auth,
                conn.card.card.security_schemes.as_ref(),
                Some((&scope, &conn.label)),
                target.timeout,
            )
            .await
            .map_err(|e| e.message)?
        }
    };
    let client =
        crate::remote::connect::agent::client_with_credential(conn, target, http, &credential)
            .await
            .map_err(|e| e.message)?;
    let mut message = a2a::Message::new(
        a2a::Role::User,
        vec![a2a::Part::text(crate::app::msg::APPROVAL_TEXT)],
    );
    message.task_id = Some(task_id);
    message.context_id = context_id;
    let req = a2a::SendMessageRequest {
        message,
        configuration: None,
        metadata: None,
        tenant: None,
    };
    // A blocking SendMessage, even for a streaming agent: some servers (the Rust SDK's) still hold the task's
    // execution for a moment after entering auth-required, and a streaming follow-up sent then is attached to
    // the old execution and silently dropped; a blocking one waits its turn. If the task is still running when
    // the reply comes, `update` re-attaches to it.
    // An agent that keeps its stream open while it waits may still be "executing" the task for a moment and
    // refuse the follow-up as already in progress (the Rust SDK answers -32600); wait and try again, briefly.
    let mut attempts = 0;
    loop {
        match client.send_message(&req).await {
            Err(e) if attempts < APPROVAL_RETRIES && e.message.contains("already in progress") => {
                attempts += 1;
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            other => return other.map_err(|e| classify(&e).message),
        }
    }
}
