//! The active probes that follow a task once it exists: historyLength (§3.2.4), ListTasks in its context
//! (§3.1.4), CancelTask and SubscribeToTask of a finished task (§3.1.5, §3.1.6), a second message in the same
//! context (§3.4.1), and the same message over the other bindings (§5.1).

use serde_json::Value;

use super::active::{Seen, history_len, is_terminal, seen, task_state};
use super::call::{Api, Got};
use super::exchange::Prober;
use super::plan::{Caps, Interface};
use super::report::{Finding, Outcome};

const TASK_NOT_CANCELABLE: i64 = -32002;
const UNSUPPORTED_OPERATION: i64 = -32004;

/// The follow-ups of one task (`task` as the stream or the blocking send left it).
pub async fn follow_up(
    api: &Api<'_>,
    task: &Seen,
    caps: &Caps,
    on: Option<&str>,
    out: &mut Vec<Finding>,
) {
    let ids = [
        "task.history-length",
        "task.list-finds",
        "task.cancel-terminal",
        "task.subscribe-terminal",
        "task.context-continues",
    ];
    let (Some(id), Some(context)) = (
        task.task_id.as_deref().filter(|_| task.kind == "task"),
        task.context_id.as_deref(),
    ) else {
        for i in ids {
            out.push(Finding::new(
                i,
                on,
                Outcome::skip("the agent answered with a message: no task to follow"),
            ));
        }
        return;
    };
    history(api, id, on, out).await;
    let reply = api.list(context).await;
    out.push(Finding::new(
        "task.list-finds",
        on,
        match api.got(&reply) {
            Got::Ok(v) => {
                let found = v.get("tasks").and_then(Value::as_array).is_some_and(|ts| {
                    ts.iter()
                        .any(|t| t.get("id").and_then(Value::as_str) == Some(id))
                });
                if found {
                    Outcome::pass("found in its context")
                } else {
                    Outcome::fail("ListTasks with the task's contextId does not list it")
                        .with(&reply.exchange)
                }
            }
            other => Outcome::fail(format!("ListTasks failed: {}", other.describe()))
                .with(&reply.exchange),
        },
    ));
    cancel_and_subscribe(api, id, task.state.as_deref(), caps, on, out).await;
    let reply = api
        .send(
            "check: a second message in the same context",
            Some(context),
            false,
        )
        .await;
    out.push(Finding::new(
        "task.context-continues",
        on,
        match api.got(&reply).clone() {
            Got::Ok(v) => match seen(&v).and_then(|s| s.context_id) {
                Some(c) if c == context => Outcome::pass("answered in the same context"),
                Some(c) => Outcome::fail(format!("answered in context {c:?}, not {context:?}"))
                    .with(&reply.exchange),
                None => Outcome::fail("the answer names no context").with(&reply.exchange),
            },
            other => Outcome::fail(format!(
                "SendMessage with the contextId failed: {}",
                other.describe()
            ))
            .with(&reply.exchange),
        },
    ));
}

/// historyLength 1 gives at most one message (MUST); 0 gives none (SHOULD: a WARN otherwise).
async fn history(api: &Api<'_>, id: &str, on: Option<&str>, out: &mut Vec<Finding>) {
    let one = api.get_task(id, Some(1)).await;
    let zero = api.get_task(id, Some(0)).await;
    out.push(Finding::new(
        "task.history-length",
        on,
        match (api.got(&one), api.got(&zero)) {
            (Got::Ok(a), Got::Ok(b)) => match (history_len(&a), history_len(&b)) {
                (n, _) if n > 1 => Outcome::fail(format!("historyLength 1 returned {n} messages"))
                    .with(&one.exchange),
                (_, n) if n > 0 => Outcome::warn(format!(
                    "historyLength 0 returned {n} messages (§3.2.4: SHOULD be none)"
                ))
                .with(&zero.exchange),
                _ => Outcome::pass("1 → at most one message, 0 → none"),
            },
            (a, b) => Outcome::fail(format!(
                "GetTask with historyLength failed: {} / {}",
                a.describe(),
                b.describe()
            ))
            .with(&one.exchange)
            .with(&zero.exchange),
        },
    ));
}

/// A finished task refuses CancelTask (TaskNotCancelable) and SubscribeToTask (UnsupportedOperation). A task
/// left interrupted is canceled first, so the probe leaves nothing waiting behind it.
async fn cancel_and_subscribe(
    api: &Api<'_>,
    id: &str,
    state: Option<&str>,
    caps: &Caps,
    on: Option<&str>,
    out: &mut Vec<Finding>,
) {
    let mut finished = is_terminal(state);
    let mut canceled = state == Some("TASK_STATE_CANCELED");
    if !finished {
        let r = api.cancel(id).await;
        finished = matches!(api.got(&r), Got::Ok(ref t) if is_terminal(task_state(t).as_deref()));
        canceled = finished;
    }
    if !finished {
        out.push(Finding::new(
            "task.cancel-terminal",
            on,
            Outcome::skip("the task did not finish (nor could it be canceled)"),
        ));
        out.push(Finding::new(
            "task.subscribe-terminal",
            on,
            Outcome::skip("the task did not finish"),
        ));
        return;
    }
    let r = api.cancel(id).await;
    let got = api.got(&r);
    out.push(Finding::new(
        "task.cancel-terminal",
        on,
        if got.is(TASK_NOT_CANCELABLE, "TASK_NOT_CANCELABLE") {
            Outcome::pass("TaskNotCancelableError")
        } else if canceled
            && matches!(&got, Got::Ok(t) if task_state(t).as_deref() == Some("TASK_STATE_CANCELED"))
        {
            // Canceling is idempotent (§3.1.5 returns the task): a canceled task canceled again may answer
            // with itself; TaskNotCancelable is for a task that ended otherwise.
            Outcome::pass("a canceled task canceled again answers with itself (idempotent)")
        } else {
            Outcome::fail(format!(
                "expected TaskNotCancelableError, got {}",
                got.describe()
            ))
            .with(&r.exchange)
        },
    ));
    if !caps.streaming {
        out.push(Finding::new(
            "task.subscribe-terminal",
            on,
            Outcome::skip("streaming is not declared"),
        ));
        return;
    }
    let r = api.subscribe(id).await;
    let got = api.got(&r);
    out.push(Finding::new(
        "task.subscribe-terminal",
        on,
        if got.is(UNSUPPORTED_OPERATION, "UNSUPPORTED_OPERATION") {
            Outcome::pass("UnsupportedOperationError")
        } else {
            Outcome::fail(format!(
                "expected UnsupportedOperationError, got {}",
                got.describe()
            ))
            .with(&r.exchange)
        },
    ));
}

/// The same message over each other interface: the same kind of answer, state and artifact count.
pub async fn equivalence(
    prober: &Prober,
    primary: &Seen,
    others: &[Interface],
    text: &str,
    on: Option<&str>,
    out: &mut Vec<Finding>,
) {
    if others.is_empty() {
        out.push(Finding::new(
            "equivalence.bindings",
            on,
            Outcome::skip("one probed interface: nothing to compare"),
        ));
        return;
    }
    let mut differ = Vec::new();
    let mut evidence = Vec::new();
    for iface in others {
        let api = Api::new(prober, iface);
        let reply = api.send(text, None, false).await;
        let s = match api.got(&reply) {
            Got::Ok(v) => seen(&v),
            _ => None,
        };
        match s {
            Some(s)
                if s.kind == primary.kind
                    && s.state == primary.state
                    && s.artifacts.len() == primary.artifacts.len() => {}
            Some(s) => {
                differ.push(format!(
                    "{}: {:?} {:?} with {} artifact(s)",
                    iface.binding,
                    s.kind,
                    s.state,
                    s.artifacts.len()
                ));
                evidence.push(reply.exchange.clone());
            }
            None => {
                differ.push(format!("{}: {}", iface.binding, api.got(&reply).describe()));
                evidence.push(reply.exchange.clone());
            }
        }
    }
    out.push(Finding::new(
        "equivalence.bindings",
        on,
        if differ.is_empty() {
            Outcome::pass(format!(
                "{} other binding(s) gave the same result",
                others.len()
            ))
        } else {
            // An agent may answer differently from one run to the next: a WARN, with what differed.
            Outcome::warn(format!(
                "{} {:?} {:?} here; {}",
                primary.kind,
                primary.state,
                primary.artifacts.len(),
                differ.join("; ")
            ))
            .with_all(evidence.iter().take(2))
        },
    ));
}
