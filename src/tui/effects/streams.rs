//! A task's events reaching the app: a stream forwarded item by item, a re-attach to a task (SubscribeToTask),
//! and GetTask polling for agents that cannot stream; "no such task" ends either.

use std::time::{Duration, Instant};

use futures::StreamExt;

use crate::app::ids::AgentId;
use crate::app::ids::TabId;
use crate::app::msg::{Msg, StreamItem};
use crate::remote::connect::agent::Connected;
use crate::remote::error::classify;
use crate::tui::runtime::Runtime;
use crate::tui::stream_budget::StreamTx;

/// How often to poll GetTask for an agent that cannot stream, and for how long at most.
const POLL_EVERY: Duration = Duration::from_secs(2);
const POLL_FOR: Duration = Duration::from_secs(600);

impl Runtime {
    /// Re-attach to a task's events after `delay_ms`; when the agent cannot stream, poll GetTask instead until
    /// the task finishes or waits for the user.
    pub(super) fn subscribe(
        &mut self,
        tab: TabId,
        generation: u64,
        agent: AgentId,
        task_id: String,
        delay_ms: u64,
    ) {
        let Some(conn) = self.client(agent) else {
            return;
        };
        let tx = self.stream_tx.clone();
        let handle = tokio::spawn(async move {
            if delay_ms > 0 {
                tokio::time::sleep(Duration::from_millis(delay_ms)).await;
            }
            let streaming = conn.card.card.capabilities.streaming == Some(true);
            let req = a2a::SubscribeToTaskRequest {
                id: task_id.clone(),
                tenant: None,
            };
            if streaming {
                match conn.client.subscribe_to_task(&req).await {
                    Ok(events) => {
                        pump(events, &tx, tab, generation).await;
                        return;
                    }
                    Err(e) if not_found(&e) => {
                        gone(&tx, tab, generation, &e).await;
                        return;
                    }
                    // Some agents stream but cannot re-attach: poll instead.
                    Err(_) => {}
                }
            }
            poll(&conn, &tx, tab, generation, task_id).await;
        });
        if let Some(old) = self.streams.insert(tab, handle) {
            old.abort();
        }
    }
}

/// Poll GetTask, delivering each snapshot as a stream event, until the task settles.
async fn poll(conn: &Connected, tx: &StreamTx, tab: TabId, generation: u64, task_id: String) {
    let started = Instant::now();
    loop {
        let req = a2a::GetTaskRequest {
            id: task_id.clone(),
            history_length: Some(0),
            tenant: None,
        };
        match conn.client.get_task(&req).await {
            Ok(task) => {
                let settled = crate::task::phase::phase(&task.status.state)
                    != crate::task::phase::Phase::Active;
                let ev = Box::new(a2a::StreamResponse::Task(task));
                let sent = tx
                    .send(Msg::Stream {
                        tab,
                        generation,
                        source: crate::task::log::Source::Poll,
                        item: StreamItem::Event(ev),
                    })
                    .await;
                if sent.is_err() || settled {
                    break;
                }
            }
            Err(e) if not_found(&e) => {
                gone(tx, tab, generation, &e).await;
                return;
            }
            Err(e) => {
                let _ = tx
                    .send(Msg::Stream {
                        tab,
                        generation,
                        source: crate::task::log::Source::Poll,
                        item: StreamItem::Error(format!(
                            "polling GetTask: {}",
                            classify(&e).message
                        )),
                    })
                    .await;
                break;
            }
        }
        if started.elapsed() > POLL_FOR {
            break;
        }
        tokio::time::sleep(POLL_EVERY).await;
    }
    let _ = tx
        .send(Msg::Stream {
            tab,
            generation,
            source: crate::task::log::Source::Poll,
            item: StreamItem::End,
        })
        .await;
}

/// The agent's answer means "no such task" (A2A `TaskNotFoundError`, -32001).
fn not_found(e: &a2a::A2AError) -> bool {
    classify(e).code == Some(a2a::error_code::TASK_NOT_FOUND)
}

async fn gone(tx: &StreamTx, tab: TabId, generation: u64, e: &a2a::A2AError) {
    let _ = tx
        .send(Msg::TaskGone {
            tab,
            generation,
            why: classify(e).message,
        })
        .await;
}

/// Forward a stream's items to the app, then say it ended. The queue is bounded: when the app is behind, this
/// waits, and so does the network read behind it.
pub(super) async fn pump(
    mut events: a2a_client::BoxStream<'static, Result<a2a::StreamResponse, a2a::A2AError>>,
    tx: &StreamTx,
    tab: TabId,
    generation: u64,
) {
    let source = crate::task::log::Source::Stream(generation);
    // Whether the last state seen waits for the user or is final: a stream that then goes quiet is not news.
    let mut settled = false;
    while let Some(item) = events.next().await {
        let item = match item {
            Ok(ev) => {
                let state = match &ev {
                    a2a::StreamResponse::Task(t) => Some(&t.status.state),
                    a2a::StreamResponse::StatusUpdate(u) => Some(&u.status.state),
                    _ => None,
                };
                if let Some(s) = state {
                    settled = crate::task::phase::phase(s) != crate::task::phase::Phase::Active;
                }
                StreamItem::Event(Box::new(ev))
            }
            Err(e) if not_found(&e) => {
                gone(tx, tab, generation, &e).await;
                return;
            }
            Err(e) if settled && crate::remote::wire::is_idle(&e) => break,
            Err(e) => StreamItem::Error(classify(&e).message),
        };
        let msg = Msg::Stream {
            tab,
            generation,
            source,
            item,
        };
        if tx.send(msg).await.is_err() {
            return;
        }
    }
    let _ = tx
        .send(Msg::Stream {
            tab,
            generation,
            source,
            item: StreamItem::End,
        })
        .await;
}
