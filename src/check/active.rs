//! The active probes (`check --send TEXT`, `--examples`): they create tasks on the agent, so they run only when
//! asked, and the report says they did. A message is sent streamed and blocking; the stream is held to the
//! state machine (§4.1.3, §3.1.2, §11.7), its ids (§3.4, §4.2) and its artifact chunks (§4.2.2); then GetTask
//! must agree with it, historyLength must be honoured, ListTasks must find the task in its context, and a
//! finished task must refuse CancelTask and SubscribeToTask. The same message over every other probed HTTP
//! interface must give an equivalent result (§5.1).

use std::collections::BTreeSet;

use serde_json::Value;

use super::call::{Api, Got};
use super::exchange::{Exchange, Prober};
use super::plan::{Caps, Interface};
use super::report::{Finding, Outcome};

/// Requests for the first message (stream, send, get ×3, list, cancel ×2, subscribe, a second message) and
/// for each further one (stream, send, get).
pub fn requests(messages: usize, other_interfaces: usize) -> usize {
    if messages == 0 {
        return 0;
    }
    11 + 3 * (messages - 1) + other_interfaces
}

const TERMINAL: &[&str] = &[
    "TASK_STATE_COMPLETED",
    "TASK_STATE_FAILED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_REJECTED",
];
const INTERRUPTED: &[&str] = &["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"];

/// What a finished exchange says about the task: enough to compare it with another.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Seen {
    /// "task" or "message".
    pub kind: String,
    pub task_id: Option<String>,
    pub context_id: Option<String>,
    pub state: Option<String>,
    pub artifacts: BTreeSet<String>,
}

impl Seen {
    fn summary(&self) -> String {
        match self.kind.as_str() {
            "message" => "a direct message".into(),
            _ => format!(
                "a task ending {} with {} artifact(s)",
                self.state.as_deref().unwrap_or("in no state"),
                self.artifacts.len()
            ),
        }
    }
    /// Equivalent for a client: same kind, same final state, same number of artifacts (agents may word their
    /// answers differently every time).
    fn equivalent(&self, other: &Seen) -> bool {
        self.kind == other.kind
            && self.state == other.state
            && self.artifacts.len() == other.artifacts.len()
    }
}

fn state_of(v: &Value) -> Option<String> {
    v.get("status")
        .and_then(|s| s.get("state"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

fn str_of(v: &Value, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_string)
}

/// Read a Task or a Message (a SendMessage result, or a stream's first event).
fn seen_of(v: &Value) -> Option<Seen> {
    if let Some(t) = v.get("task") {
        return Some(Seen {
            kind: "task".into(),
            task_id: str_of(t, "id"),
            context_id: str_of(t, "contextId"),
            state: state_of(t),
            artifacts: artifact_ids(t),
        });
    }
    v.get("message").map(|m| Seen {
        kind: "message".into(),
        task_id: str_of(m, "taskId"),
        context_id: str_of(m, "contextId"),
        ..Seen::default()
    })
}

fn artifact_ids(task: &Value) -> BTreeSet<String> {
    task.get("artifacts")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|x| str_of(x, "artifactId")).collect())
        .unwrap_or_default()
}

/// The shape problems of a SendMessage result (§3.1.1, §4.1).
fn shape_problems(v: &Value) -> Vec<String> {
    let mut p = Vec::new();
    match (v.get("task"), v.get("message")) {
        (Some(t), None) => {
            for f in ["id", "contextId"] {
                if !t.get(f).is_some_and(Value::is_string) {
                    p.push(format!("task.{f} missing"));
                }
            }
            match state_of(t) {
                Some(s) if s.starts_with("TASK_STATE_") && s != "TASK_STATE_UNSPECIFIED" => {}
                Some(s) => p.push(format!(
                    "task.status.state {} is not a task state",
                    crate::remote::card::rules::quote(&s)
                )),
                None => p.push("task.status.state missing".into()),
            }
        }
        (None, Some(m)) => {
            for f in ["messageId", "role"] {
                if !m.get(f).is_some_and(Value::is_string) {
                    p.push(format!("message.{f} missing"));
                }
            }
            if !m.get("parts").is_some_and(Value::is_array) {
                p.push("message.parts missing".into());
            }
        }
        (Some(_), Some(_)) => p.push("both task and message (a oneof)".into()),
        (None, None) => p.push("neither task nor message".into()),
    }
    p
}

/// What a stream's events have shown so far, event by event.
#[derive(Default)]
struct Walk {
    /// The states, in order, up to the first terminal one.
    states: Vec<String>,
    /// The first event after a terminal state.
    after_terminal: Option<String>,
    bad_ids: Vec<String>,
    chunks: Vec<String>,
    /// Artifacts sent (a chunk may append to them) and closed (their lastChunk came).
    open: BTreeSet<String>,
    closed: BTreeSet<String>,
}

impl Walk {
    fn event(&mut self, i: usize, e: &Value, seen: &mut Seen) {
        let last_terminal = self
            .states
            .last()
            .is_some_and(|s| TERMINAL.contains(&s.as_str()));
        let Some((kind, body)) = e.as_object().and_then(|o| o.iter().next()) else {
            return;
        };
        let kind = kind.as_str();
        // §11.7: a final Task snapshot MAY be resent before closing.
        let resent_snapshot = kind == "task" && state_of(body).as_ref() == self.states.last();
        if last_terminal && !resent_snapshot && self.after_terminal.is_none() {
            self.after_terminal = Some(format!(
                "event {} ({kind}) after {}",
                i + 1,
                self.states.last().cloned().unwrap_or_default()
            ));
        }
        let (tid, cid) = match kind {
            "task" => (str_of(body, "id"), str_of(body, "contextId")),
            _ => (str_of(body, "taskId"), str_of(body, "contextId")),
        };
        if kind != "message" && (tid != seen.task_id || cid != seen.context_id) {
            self.bad_ids.push(format!(
                "event {} ({kind}) names task {:?} context {:?}",
                i + 1,
                tid,
                cid
            ));
        }
        // A terminal state is final: what comes after it is the defect reported above, not the task's state.
        if let Some(s) = state_of(body)
            && !last_terminal
        {
            self.states.push(s);
        }
        if kind == "artifactUpdate" {
            let id = body
                .get("artifact")
                .and_then(|a| str_of(a, "artifactId"))
                .unwrap_or_default();
            let append = body.get("append").and_then(Value::as_bool).unwrap_or(false);
            if self.closed.contains(&id) {
                self.chunks.push(format!(
                    "event {}: a chunk of artifact {id:?} after its lastChunk",
                    i + 1
                ));
            } else if append && !self.open.contains(&id) {
                self.chunks.push(format!(
                    "event {}: append to artifact {id:?}, never sent before",
                    i + 1
                ));
            }
            self.open.insert(id.clone());
            if body
                .get("lastChunk")
                .and_then(Value::as_bool)
                .unwrap_or(false)
            {
                self.closed.insert(id.clone());
            }
            seen.artifacts.insert(id);
        }
        if kind == "task" {
            seen.artifacts.extend(artifact_ids(body));
        }
    }
}

/// Judge one stream's events: first event, states, ids, artifact chunks. Returns what it saw.
pub fn judge_stream(
    events: &[Value],
    error: Option<&str>,
    cut: bool,
    on: Option<&str>,
    ev: &Exchange,
    out: &mut Vec<Finding>,
) -> Option<Seen> {
    let Some(first) = events.first() else {
        let why = error.unwrap_or("the stream had no event");
        out.push(Finding::new(
            "task.stream-first-event",
            on,
            Outcome::fail(why.to_string()).with(ev),
        ));
        return None;
    };
    let mut seen = match seen_of(first) {
        Some(s) => s,
        None => {
            out.push(Finding::new(
                "task.stream-first-event",
                on,
                Outcome::fail("the first event is neither a Task nor a Message").with(ev),
            ));
            return None;
        }
    };
    if seen.kind == "message" {
        out.push(Finding::new(
            "task.stream-first-event",
            on,
            if events.len() == 1 {
                Outcome::pass("a single Message")
            } else {
                Outcome::fail(format!(
                    "a Message followed by {} more events",
                    events.len() - 1
                ))
                .with(ev)
            },
        ));
        return Some(seen);
    }
    out.push(Finding::new(
        "task.stream-first-event",
        on,
        Outcome::pass("a Task first"),
    ));
    let mut walk = Walk {
        states: seen.state.iter().cloned().collect(),
        open: seen.artifacts.clone(),
        ..Walk::default()
    };
    for (i, e) in events.iter().enumerate().skip(1) {
        walk.event(i, e, &mut seen);
    }
    let Walk {
        states,
        after_terminal,
        bad_ids,
        chunks,
        ..
    } = walk;
    seen.state = states.last().cloned();
    let last = seen.state.clone().unwrap_or_default();
    let ended_well = TERMINAL.contains(&last.as_str()) || INTERRUPTED.contains(&last.as_str());
    out.push(Finding::new(
        "task.stream-states",
        on,
        match (&after_terminal, ended_well, cut) {
            (Some(a), _, _) => Outcome::fail(a.clone()).with(ev),
            (None, true, _) => Outcome::pass(format!("{} → ended at {last}", states.join(" → "))),
            (None, false, true) => Outcome::warn(format!(
                "still open after {} s, in {last}",
                super::call::STREAM_READ.as_secs()
            ))
            .with(ev),
            (None, false, false) => Outcome::fail(format!(
                "the stream closed in {last}, neither terminal nor interrupted"
            ))
            .with(ev),
        },
    ));
    out.push(Finding::new(
        "task.stream-ids",
        on,
        if bad_ids.is_empty() {
            Outcome::pass("every event names the task and its context")
        } else {
            Outcome::fail(bad_ids.into_iter().take(3).collect::<Vec<_>>().join("; ")).with(ev)
        },
    ));
    out.push(Finding::new(
        "task.artifact-chunks",
        on,
        if chunks.is_empty() {
            Outcome::pass(format!(
                "{} artifact(s), chunks consistent",
                seen.artifacts.len()
            ))
        } else {
            Outcome::fail(chunks.into_iter().take(3).collect::<Vec<_>>().join("; ")).with(ev)
        },
    ));
    Some(seen)
}

/// Run the active probes on `primary` with `messages`, and the equivalence probe on `others`.
pub async fn probe(
    prober: &Prober,
    primary: &Interface,
    others: &[Interface],
    caps: &Caps,
    messages: &[String],
    out: &mut Vec<Finding>,
) {
    let api = Api::new(prober, primary);
    let on = Some(primary.label.as_str());
    let mut first: Option<(Seen, Option<Seen>)> = None;
    for (n, text) in messages.iter().enumerate() {
        // Several messages (`--examples`): each one's findings name it, so none hides another.
        let per_message =
            (messages.len() > 1).then(|| format!("{} · message {}", primary.label, n + 1));
        let on = per_message.as_deref().or(on);
        let streamed = if caps.streaming {
            let reply = api.send(text, None, true).await;
            let (events, error) = api.events(&reply);
            judge_stream(
                &events,
                error.as_deref(),
                reply.cut,
                on,
                &reply.exchange,
                out,
            )
        } else {
            for id in [
                "task.stream-first-event",
                "task.stream-states",
                "task.stream-ids",
                "task.artifact-chunks",
            ] {
                out.push(Finding::new(
                    id,
                    on,
                    Outcome::skip("streaming is not declared"),
                ));
            }
            None
        };
        let reply = api.send(text, None, false).await;
        let sent = match api.got(&reply) {
            Got::Ok(v) => {
                let p = shape_problems(&v);
                out.push(Finding::new(
                    "task.send-shape",
                    on,
                    if p.is_empty() {
                        Outcome::pass("a valid Task or Message")
                    } else {
                        Outcome::fail(p.join("; ")).with(&reply.exchange)
                    },
                ));
                seen_of(&v)
            }
            other => {
                out.push(Finding::new(
                    "task.send-shape",
                    on,
                    Outcome::fail(format!("SendMessage failed: {}", other.describe()))
                        .with(&reply.exchange),
                ));
                None
            }
        };
        if let Some(s) = &streamed {
            get_agrees(&api, s, on, out).await;
        }
        out.push(Finding::new(
            "equivalence.stream-vs-send",
            on,
            match (&streamed, &sent) {
                (Some(a), Some(b)) if a.equivalent(b) => {
                    Outcome::pass(format!("both {}", a.summary()))
                }
                (Some(a), Some(b)) => {
                    Outcome::warn(format!("streamed: {}; sent: {}", a.summary(), b.summary()))
                        .with(&reply.exchange)
                }
                _ => Outcome::skip("not both answered"),
            },
        ));
        if first.is_none()
            && let Some(s) = sent
        {
            first = Some((s, streamed));
        }
    }
    let Some((sent, streamed)) = first else {
        return;
    };
    let task = streamed
        .filter(|s| s.kind == "task")
        .unwrap_or(sent.clone());
    super::active_task::follow_up(&api, &task, caps, on, out).await;
    super::active_task::equivalence(
        prober,
        &sent,
        others,
        messages.first().map_or("", String::as_str),
        on,
        out,
    )
    .await;
}

/// GetTask after a stream: the same last state and the same artifacts.
async fn get_agrees(api: &Api<'_>, s: &Seen, on: Option<&str>, out: &mut Vec<Finding>) {
    let Some(id) = s.task_id.as_deref().filter(|_| s.kind == "task") else {
        out.push(Finding::new(
            "task.get-agrees",
            on,
            Outcome::skip("the agent answered with a message: no task"),
        ));
        return;
    };
    let reply = api.get_task(id, None).await;
    out.push(Finding::new(
        "task.get-agrees",
        on,
        match api.got(&reply) {
            Got::Ok(t) => {
                let state = state_of(&t);
                let arts = artifact_ids(&t);
                if state != s.state {
                    Outcome::fail(format!(
                        "GetTask says {:?}, the stream ended at {:?}",
                        state, s.state
                    ))
                    .with(&reply.exchange)
                } else if arts != s.artifacts {
                    Outcome::fail(format!(
                        "GetTask has artifacts {arts:?}, the stream sent {:?}",
                        s.artifacts
                    ))
                    .with(&reply.exchange)
                } else {
                    Outcome::pass(format!(
                        "{} with {} artifact(s), as streamed",
                        state.unwrap_or_default(),
                        arts.len()
                    ))
                }
            }
            other => {
                Outcome::fail(format!("GetTask failed: {}", other.describe())).with(&reply.exchange)
            }
        },
    ));
}

pub(super) fn is_terminal(state: Option<&str>) -> bool {
    state.is_some_and(|s| TERMINAL.contains(&s))
}

pub(super) fn history_len(task: &Value) -> usize {
    task.get("history")
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}

pub(super) fn task_state(v: &Value) -> Option<String> {
    state_of(v)
}

pub(super) fn seen(v: &Value) -> Option<Seen> {
    seen_of(v)
}
