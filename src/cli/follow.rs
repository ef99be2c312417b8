//! Following a task's stream (`send --stream`, `subscribe`) to its end: print as events come, then the exit
//! code from where the task stands, and for a task that waits for the user, how to continue it.

use a2a::*;
use futures::{FutureExt, StreamExt};

use super::exit::Exit;
use super::output::{self, safe_json};
use super::print::{out, outln};
use super::report::{self, Again};
use super::stream_print::StreamPrinter;
use crate::remote::connect;
use crate::remote::error::{ErrorKind, RemoteError, classify, one_line};
use crate::task::event_serde::Out;
use crate::task::log::{Source, TaskLog, Verdict};
use crate::task::phase::state_name;

/// What a stream being followed belongs to.
pub(super) struct Following<'a> {
    /// Asked for the task's state when the stream closes before the task settles.
    pub client: Option<&'a connect::Client>,
    pub label: &'a str,
    /// The call that opened the stream (`SubscribeToTask`), named in an error the agent sent as its reply.
    pub call: &'a str,
    pub again: &'a Again,
    pub json: bool,
}

/// The exit code for a task's state; a task that waits for the user also says how to continue it.
pub(super) fn settle(again: &Again, id: &str, state: &TaskState) -> Exit {
    match Exit::for_state(state) {
        Exit::Waiting => report::waiting(again, id, state),
        other => other,
    }
}

/// Read a stream until the task finishes or waits for the user; print as we go; exit code from the state.
pub(super) async fn follow(
    f: &Following<'_>,
    events: a2a_client::BoxStream<'static, Result<StreamResponse, A2AError>>,
    mut tracker: TaskLog,
) -> Result<Exit, RemoteError> {
    let (label, json) = (f.label, f.json);
    // Decoding runs ahead on another thread while this one judges and prints (see `read_ahead`).
    let mut events = crate::remote::wire::read_ahead::read_ahead(events);
    let mut printer = StreamPrinter::new(label);
    let mut seen_event = false;
    // The stream's latest error, said once we know whether the stream goes on after it: when it is the last
    // thing the stream sent, it is part of the one line that ends the command, not a line of its own.
    let mut pending: Option<RemoteError> = None;
    // JSON lines are written in batches: whatever has arrived goes out as soon as the stream has nothing more
    // ready, so a reader sees each event without delay, and a fast stream is not one write per event.
    let mut lines = output::JsonLines::default();
    loop {
        if lines.pending.len() >= 64 * 1024 {
            lines.flush();
        }
        let item = match events.next().now_or_never() {
            Some(item) => item,
            None => {
                lines.flush();
                events.next().await
            }
        };
        let Some(item) = item else {
            break;
        };
        match item {
            Ok(event) => {
                if let Some(e) = pending.take() {
                    report::continuing(&e);
                }
                seen_event = true;
                // The same gate as the console's: one stream here, so only protocol breaks show.
                let verdict = tracker.judge(Source::Stream(0), &event);
                if json {
                    lines.push(&Out(&event));
                } else {
                    printer.event(&tracker, &event, &verdict);
                }
                match &verdict {
                    Verdict::Illegal(why)
                    | Verdict::Applied {
                        warning: Some(why), ..
                    } => report::warning(&format!(
                        "agent {label}: protocol anomaly: {}",
                        one_line(why)
                    )),
                    _ => {}
                }
                if tracker.settled() {
                    // Do not wait for the server to close: streams may stay open in interrupted states.
                    break;
                }
            }
            Err(e) => {
                let err = classify(&e);
                // An error object before any event is the agent's reply to the call, as a 1.0 server gives it
                // without opening a stream (the 0.3 SDK sends it as the stream's one event): the call failed.
                if err.kind == ErrorKind::Agent && !seen_event {
                    lines.flush();
                    return Err(err.context(format!("agent {label}: {}", f.call)));
                }
                if let Some(e) = pending.replace(err.context(format!("agent {label}: stream"))) {
                    report::continuing(&e);
                }
            }
        }
    }
    lines.flush();
    printer.finish();
    if let Some(m) = &tracker.direct_reply {
        if let Some(e) = pending.take() {
            report::continuing(&e);
        }
        if !json {
            let mut out = String::new();
            output::message_text(&mut out, label, None, "direct message reply (no task)", m);
            out!("{out}");
        }
        return Ok(Exit::Done);
    }
    if tracker.settled() {
        if !json {
            printer.summary(&tracker);
        }
        return Ok(settled(f, &tracker));
    }
    ended_early(f, tracker, &printer, pending).await
}

/// The exit code of a stream whose task settled, with the hint for a waiting one.
fn settled(f: &Following<'_>, tracker: &TaskLog) -> Exit {
    settle(
        f.again,
        tracker.task_id.as_deref().unwrap_or_default(),
        &tracker.state,
    )
}

/// The stream closed before the task finished or paused. Some servers close early (the Python 0.3 SDK ends a
/// resubscribe without the final event), so ask for the task's state before calling it a failure; and when
/// the agent answers that with an error (the 0.3 SDK's REST binding breaks the stream off for a task it does
/// not know), that error is the answer.
async fn ended_early(
    f: &Following<'_>,
    mut tracker: TaskLog,
    printer: &StreamPrinter,
    pending: Option<RemoteError>,
) -> Result<Exit, RemoteError> {
    let label = f.label;
    let mut refused = None;
    if let (Some(client), Some(id)) = (f.client, tracker.task_id.clone()) {
        match client
            .get_task(&GetTaskRequest {
                id,
                history_length: Some(0),
                tenant: None,
            })
            .await
        {
            Ok(task) => {
                tracker.judge(Source::Refresh, &StreamResponse::Task(task.clone()));
                if tracker.settled() {
                    if let Some(e) = &pending {
                        report::continuing(e);
                    }
                    report::warning(&format!(
                        "agent {label}: the stream closed early; the task's state was fetched with GetTask"
                    ));
                    if f.json {
                        outln!("{}", safe_json(&StreamResponse::Task(task), false));
                    } else {
                        out!("{}", output::task_text(label, &task));
                        printer.summary(&tracker);
                    }
                    return Ok(settled(f, &tracker));
                }
            }
            Err(e) => refused = Some(classify(&e)).filter(|e| e.kind == ErrorKind::Agent),
        }
    }
    if let Some(e) = refused {
        let broke = match pending {
            Some(p) => p.message,
            None => format!("agent {label}: the stream ended early"),
        };
        let code = e.code.unwrap_or(error_code::INTERNAL_ERROR);
        return Err(RemoteError::agent(
            code,
            format!("{broke}; GetTask: {}", e.message),
        ));
    }
    let state = if tracker.task_id.is_some() {
        state_name(&tracker.state)
    } else {
        "no task seen"
    };
    Err(RemoteError::transport(match pending {
        Some(e) => format!(
            "{}; the stream ended before the task finished (last state: {state})",
            e.message
        ),
        None => format!(
            "agent {label}: the stream ended before the task finished (last state: {state}); `a2a-console subscribe` can re-attach"
        ),
    }))
}
