//! One task as the client sees it, rebuilt from whatever arrives: a `Task` snapshot, status updates, and
//! artifact chunks (`append` / `lastChunk`, spec digest §9). Shared by the CLI and the console so both
//! reassemble artifacts and judge "done" the same way: from the states seen, never from a closed stream.

use std::collections::HashMap;

use a2a::{Artifact, Message, StreamResponse, Task, TaskState};

use super::error::RemoteError;

/// Where a task stands, from the client's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Submitted or working: more will come.
    Active,
    /// Input-required or auth-required: the agent waits for us.
    Interrupted,
    /// Completed, failed, canceled or rejected.
    Terminal,
}

pub fn phase(state: &TaskState) -> Phase {
    match state {
        TaskState::InputRequired | TaskState::AuthRequired => Phase::Interrupted,
        s if s.is_terminal() => Phase::Terminal,
        _ => Phase::Active,
    }
}

/// The lowercase, human name of a state ("input-required").
pub fn state_name(state: &TaskState) -> &'static str {
    match state {
        TaskState::Unspecified => "unspecified",
        TaskState::Submitted => "submitted",
        TaskState::Working => "working",
        TaskState::Completed => "completed",
        TaskState::Failed => "failed",
        TaskState::Canceled => "canceled",
        TaskState::InputRequired => "input-required",
        TaskState::Rejected => "rejected",
        TaskState::AuthRequired => "auth-required",
    }
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

/// What one applied event changed.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    Snapshot,
    DirectReply,
    Status(TaskState),
    Artifact {
        index: usize,
        appended: bool,
        last_chunk: bool,
    },
    /// The event was not merged; the text says why.
    Rejected(String),
}

#[derive(Clone, Debug, Default)]
pub struct TaskTracker {
    pub task_id: Option<String>,
    pub context_id: Option<String>,
    pub state: TaskState,
    /// The latest status message (often the agent's question or reason).
    pub status_message: Option<Message>,
    /// Artifacts in order of first appearance.
    pub artifacts: Vec<Artifact>,
    /// Which artifacts have seen `lastChunk`.
    pub finished_artifacts: Vec<bool>,
    pub history: Vec<Message>,
    /// A direct `Message` reply (no task was created).
    pub direct_reply: Option<Message>,
    /// Protocol oddities seen (events after a terminal state, append to an unknown artifact …).
    pub anomalies: Vec<String>,
    /// We just answered an interrupted task: a snapshot that still shows the old input-required /
    /// auth-required state is stale (the JS SDK sends one first), so it must not end the wait.
    pub resuming: bool,
    by_id: HashMap<String, usize>,
}

impl TaskTracker {
    /// Track a task we already know (a follow-up, a subscribe, a get).
    pub fn for_task(task_id: impl Into<String>) -> Self {
        Self {
            task_id: Some(task_id.into()),
            ..Self::default()
        }
    }

    pub fn phase(&self) -> Option<Phase> {
        (self.task_id.is_some() && self.state != TaskState::Unspecified).then(|| phase(&self.state))
    }

    /// Track a task we just sent a follow-up message to.
    pub fn resuming(task_id: impl Into<String>) -> Self {
        Self {
            resuming: true,
            ..Self::for_task(task_id)
        }
    }

    /// Done listening: a direct reply came, or the task is terminal or waits for the user.
    pub fn settled(&self) -> bool {
        match self.phase() {
            _ if self.direct_reply.is_some() => true,
            Some(Phase::Terminal) => true,
            Some(Phase::Interrupted) => !self.resuming,
            _ => false,
        }
    }

    /// Does this event belong to our task? Adopts the first task id seen; later mismatches are refused.
    fn claim(&mut self, task_id: &str, context_id: &str) -> Result<(), String> {
        match &self.task_id {
            None => {
                self.task_id = Some(task_id.to_string());
            }
            Some(ours) if ours != task_id => {
                return Err(format!(
                    "event for task {task_id:?}, but this stream is for task {ours:?}; not merged"
                ));
            }
            _ => {}
        }
        match &self.context_id {
            None if !context_id.is_empty() => self.context_id = Some(context_id.to_string()),
            Some(ours) if !context_id.is_empty() && ours != context_id => {
                return Err(format!(
                    "the agent changed the context id of task {task_id:?} from {ours:?} to {context_id:?}; not merged"
                ));
            }
            _ => {}
        }
        Ok(())
    }

    fn note_after_terminal(&mut self, what: &str) {
        if self.phase() == Some(Phase::Terminal) {
            self.anomalies.push(format!(
                "{what} arrived after the task was already {}",
                state_name(&self.state)
            ));
        }
    }

    /// Replace everything with a full snapshot (first event of a stream or a subscribe; a GetTask result).
    pub fn apply_task(&mut self, task: &Task) -> Change {
        if let Err(e) = self.claim(&task.id, &task.context_id) {
            self.anomalies.push(e.clone());
            return Change::Rejected(e);
        }
        self.state = task.status.state.clone();
        self.status_message = task.status.message.clone();
        self.artifacts.clear();
        self.finished_artifacts.clear();
        self.by_id.clear();
        for a in task.artifacts.iter().flatten() {
            self.by_id
                .insert(a.artifact_id.clone(), self.artifacts.len());
            self.artifacts.push(a.clone());
            self.finished_artifacts.push(true);
        }
        if let Some(h) = &task.history {
            self.history = h.clone();
        }
        Change::Snapshot
    }

    pub fn apply(&mut self, event: &StreamResponse) -> Change {
        match event {
            StreamResponse::Task(t) => self.apply_task(t),
            StreamResponse::Message(m) => {
                if self.task_id.is_some() {
                    // A message inside a task stream is part of the conversation.
                    self.history.push(m.clone());
                } else {
                    self.direct_reply = Some(m.clone());
                }
                Change::DirectReply
            }
            StreamResponse::StatusUpdate(u) => {
                if let Err(e) = self.claim(&u.task_id, &u.context_id) {
                    self.anomalies.push(e.clone());
                    return Change::Rejected(e);
                }
                self.note_after_terminal("a status update");
                self.resuming = false;
                self.state = u.status.state.clone();
                if u.status.message.is_some() {
                    self.status_message = u.status.message.clone();
                }
                Change::Status(u.status.state.clone())
            }
            StreamResponse::ArtifactUpdate(u) => {
                if let Err(e) = self.claim(&u.task_id, &u.context_id) {
                    self.anomalies.push(e.clone());
                    return Change::Rejected(e);
                }
                self.note_after_terminal("an artifact chunk");
                let append = u.append.unwrap_or(false);
                let last = u.last_chunk.unwrap_or(false);
                let id = u.artifact.artifact_id.clone();
                let index = match (self.by_id.get(&id).copied(), append) {
                    (Some(i), true) => {
                        if let Some(a) = self.artifacts.get_mut(i) {
                            a.parts.extend(u.artifact.parts.iter().cloned());
                            if let (Some(meta), Some(new)) = (&mut a.metadata, &u.artifact.metadata)
                            {
                                meta.extend(new.clone());
                            }
                        }
                        i
                    }
                    (Some(i), false) => {
                        // Same id without append: the artifact is replaced (what the SDKs do).
                        if let Some(a) = self.artifacts.get_mut(i) {
                            *a = u.artifact.clone();
                        }
                        i
                    }
                    (None, _) => {
                        if append {
                            // A spec violation, but losing the data would be worse: start the artifact.
                            self.anomalies
                                .push(format!("append to unknown artifact {id:?}; started it"));
                        }
                        self.by_id.insert(id, self.artifacts.len());
                        self.artifacts.push(u.artifact.clone());
                        self.finished_artifacts.push(false);
                        self.artifacts.len() - 1
                    }
                };
                if let Some(f) = self.finished_artifacts.get_mut(index) {
                    *f = last;
                }
                Change::Artifact {
                    index,
                    appended: append,
                    last_chunk: last,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use a2a::*;

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

    fn art(id: &str, text: &str, append: bool, last: bool) -> StreamResponse {
        StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: "t".into(),
            context_id: "c".into(),
            artifact: Artifact {
                artifact_id: id.into(),
                name: None,
                description: None,
                parts: vec![Part::text(text)],
                metadata: None,
                extensions: None,
            },
            append: Some(append),
            last_chunk: Some(last),
            metadata: None,
        })
    }

    fn status(task: &str, ctx: &str, state: TaskState) -> StreamResponse {
        crate::testing::status(task, ctx, state, None)
    }

    #[test]
    fn chunks_reassemble_in_order_and_states_settle() {
        let mut t = TaskTracker::default();
        assert_eq!(
            t.apply(&status("t", "c", TaskState::Working)),
            Change::Status(TaskState::Working)
        );
        assert!(!t.settled());
        t.apply(&art("a", "one ", false, false));
        t.apply(&art("a", "two ", true, false));
        t.apply(&art("a", "three", true, true));
        assert_eq!(t.artifacts.len(), 1);
        let text: String = t.artifacts[0]
            .parts
            .iter()
            .filter_map(Part::as_text)
            .collect();
        assert_eq!(text, "one two three");
        assert!(t.finished_artifacts[0]);
        t.apply(&status("t", "c", TaskState::InputRequired));
        assert!(t.settled());
        assert_eq!(t.phase(), Some(Phase::Interrupted));
    }

    #[test]
    fn stale_interrupted_snapshot_does_not_end_a_follow_up() {
        let mut t = TaskTracker::resuming("t");
        t.apply_task(&Task {
            id: "t".into(),
            context_id: "c".into(),
            status: TaskStatus {
                state: TaskState::InputRequired,
                message: None,
                timestamp: None,
            },
            artifacts: None,
            history: None,
            metadata: None,
        });
        assert!(!t.settled());
        t.apply(&status("t", "c", TaskState::Working));
        t.apply(&status("t", "c", TaskState::InputRequired));
        assert!(
            t.settled(),
            "a fresh interrupted state (asked again) does end the wait"
        );
    }

    #[test]
    fn foreign_task_and_context_switch_are_flagged_not_merged() {
        let mut t = TaskTracker::for_task("t");
        t.apply(&status("t", "c", TaskState::Working));
        assert!(matches!(
            t.apply(&status("other", "c", TaskState::Completed)),
            Change::Rejected(_)
        ));
        assert!(matches!(
            t.apply(&status("t", "c2", TaskState::Completed)),
            Change::Rejected(_)
        ));
        assert_eq!(t.state, TaskState::Working);
        assert_eq!(t.anomalies.len(), 2);
    }

    #[test]
    fn append_to_unknown_artifact_starts_it_and_late_events_are_noted() {
        let mut t = TaskTracker::default();
        t.apply(&art("x", "late", true, true));
        assert_eq!(t.artifacts.len(), 1);
        t.apply(&status("t", "c", TaskState::Completed));
        t.apply(&status("t", "c", TaskState::Working));
        assert!(
            t.anomalies
                .iter()
                .any(|a| a.contains("after the task was already completed"))
        );
    }
}
