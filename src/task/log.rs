//! The one gate per task. Every piece of task data — a stream event, the snapshot that opens a SubscribeToTask,
//! a GetTask poll or refresh, a blocking reply, a push notification, a ListTasks import — enters through
//! [`TaskLog::judge`], which decides what it means *before* anything is applied:
//!
//! - **duplicate**: already known (the same status seen from another source, a chunk already placed, a poll
//!   that changed nothing) — dropped silently;
//! - **stale**: older than what is shown (a push that arrives after the task finished, a status older than the
//!   one applied, the old interrupted snapshot right after the user answered) — dropped silently;
//! - **legal**: applied, and the caller is told exactly what changed so the view updates only that;
//! - **illegal**: not applied, and flagged with a reason (a foreign task id, a changed context id, the *same*
//!   stream still talking after it said the task was terminal): how a misbehaving or smuggling agent shows
//!   itself.
//!
//! Artifact chunks (spec digest §9: `append`, `lastChunk`) are placed by position, never blindly appended: each
//! source (a stream, identified by its generation; the push receiver; …) has its own count of the parts it
//! delivered for each artifact, so the same chunk from two sources, or a chunk the snapshot already holds,
//! is recognised and placed once. A snapshot is the new baseline for every artifact it carries. An artifact is
//! complete only when its `lastChunk` arrived and no chunk was skipped.

use std::collections::HashMap;

pub mod artifact;
pub mod limit;
pub mod prints;
mod recent;
use artifact::ArtifactLog;
use recent::RecentSet;

/// The by-id maps are looked up on every event: foldhash, seeded per process, rather than SipHash.
type Fast = foldhash::fast::RandomState;
use std::hash::{BuildHasher, Hash, Hasher};

use a2a::{Message, StreamResponse, Task, TaskState};
use chrono::{DateTime, Utc};

use crate::task::phase::{Phase, phase, state_name};

/// Where a piece of task data came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// An SSE stream (SendStreamingMessage or SubscribeToTask); its generation tells one stream from the next.
    Stream(u64),
    /// GetTask, polled for an agent that cannot stream.
    Poll,
    /// GetTask on the user's request.
    Refresh,
    /// The reply to a blocking SendMessage (or an approval).
    Reply,
    /// The reply to CancelTask.
    Cancel,
    /// A push notification the local receiver accepted.
    Push,
    /// ListTasks.
    Import,
}

impl Source {
    /// How the store names it (`stream#3`, `push`, …); [`Source::parse`] reads it back.
    pub fn label(&self) -> String {
        match self {
            Source::Stream(g) => format!("stream#{g}"),
            Source::Poll => "poll".into(),
            Source::Refresh => "refresh".into(),
            Source::Reply => "reply".into(),
            Source::Cancel => "cancel".into(),
            Source::Push => "push".into(),
            Source::Import => "import".into(),
        }
    }

    pub fn parse(s: &str) -> Option<Source> {
        Some(match s {
            "poll" => Source::Poll,
            "refresh" => Source::Refresh,
            "reply" => Source::Reply,
            "cancel" => Source::Cancel,
            "push" => Source::Push,
            "import" => Source::Import,
            other => Source::Stream(other.strip_prefix("stream#")?.parse().ok()?),
        })
    }

    fn is_stream(&self) -> bool {
        matches!(self, Source::Stream(_))
    }
}

/// What the gate decided about one piece of task data.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    /// Applied; `change` says what the view must update. `warning` is set when the data broke the protocol in a
    /// way that was still safe to apply (an `append` to an artifact never started: losing it would be worse).
    Applied {
        change: Change,
        warning: Option<String>,
    },
    /// Already known: nothing to do.
    Duplicate,
    /// Older than what is shown: dropped without a word (the reason is for logs and tests).
    Stale(String),
    /// Not applied, and worth a flag: the reason is shown to the user.
    Illegal(String),
}

impl Verdict {
    /// The store's name for it.
    pub fn label(&self) -> &'static str {
        match self {
            Verdict::Applied { .. } => "applied",
            Verdict::Duplicate => "duplicate",
            Verdict::Stale(_) => "stale",
            Verdict::Illegal(_) => "illegal",
        }
    }

    fn applied(change: Change) -> Verdict {
        Verdict::Applied {
            change,
            warning: None,
        }
    }
}

/// What an applied event changed.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    /// A task snapshot: the state may have changed, its status message may be new to us, artifacts may have
    /// been added or re-based.
    Snapshot {
        state_changed: bool,
        new_message: bool,
        artifacts: Vec<ArtifactChange>,
    },
    /// A status update.
    Status {
        state_changed: bool,
        new_message: bool,
    },
    /// An artifact chunk.
    Artifact(ArtifactChange),
    /// A message: a direct reply (no task) or a message inside the task's stream.
    Message { direct: bool },
}

/// How one artifact changed.
#[derive(Clone, Debug, PartialEq)]
pub struct ArtifactChange {
    /// Index into [`TaskLog::artifacts`].
    pub index: usize,
    pub edit: ArtifactEdit,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ArtifactEdit {
    /// First seen.
    New,
    /// Parts from `from_part` on are new (the ones before are unchanged).
    Appended { from_part: usize },
    /// Its content was replaced (a chunk without `append`, or a snapshot that disagrees with what we had).
    Replaced,
    /// Nothing new but its completeness (`lastChunk` arrived, or a snapshot healed a gap).
    Completed,
    /// New parts, not kept: the artifact is at its size limit ([`limit`]). The task goes on.
    Dropped,
}

/// A task as the console knows it, and the rules for changing it.
#[derive(Clone, Debug, Default)]
pub struct TaskLog {
    pub task_id: Option<String>,
    pub context_id: Option<String>,
    pub state: TaskState,
    /// The latest status message (often the agent's question or reason).
    pub status_message: Option<Message>,
    /// The applied status's own timestamp, when the agent sent one: anything older from another source is
    /// stale. One source's own order is trusted over the clocks (an agent's replicas may disagree by a little).
    status_at: Option<DateTime<Utc>>,
    status_source: Option<Source>,
    /// Every artifact of the conversation's tasks in this tab, in arrival order: a new task appends after
    /// the earlier tasks' artifacts and never reuses their positions (the views are indexed the same way).
    pub artifacts: Vec<ArtifactLog>,
    /// Where the current task's artifacts start in `artifacts`.
    task_start: usize,
    /// The current task's artifacts by id (an earlier task may use the same ids: they are its own).
    by_id: HashMap<String, usize, Fast>,
    /// Status updates already applied (state, message, timestamp), so the same one from another source is a
    /// duplicate. Hashes, not copies, and only the most recent (`recent::REMEMBERED`).
    seen_status: RecentSet<u64>,
    /// Messages already shown (status messages and stream messages), by a hash of their id.
    seen_messages: RecentSet<u64>,
    /// The seed of those hashes: random per task log, so that no one who can send us data (a push
    /// notification arrives on a port anyone on the machine can reach) can make a collision on purpose and
    /// have a real message taken for one already shown.
    keys: foldhash::fast::RandomState,
    /// Per (source, artifact): how many of the artifact's parts that source has delivered.
    offsets: HashMap<(Source, usize), usize, Fast>,
    /// A direct `Message` reply (no task was created).
    pub direct_reply: Option<Message>,
    /// We just answered an interrupted task: a snapshot that still shows the old input-required /
    /// auth-required state is stale (the JS SDK sends one first), so it must not end the wait.
    pub resuming: bool,
    /// Most bytes kept of one artifact (`None`: no limit). Set by the console from its config.
    pub artifact_limit: Option<usize>,
    /// Artifacts that reached the limit since the caller last took this list ([`TaskLog::take_limited`]).
    limited: Vec<usize>,
}

impl TaskLog {
    /// A fresh log keeping at most `artifact_limit` bytes of each artifact.
    pub fn with_limit(artifact_limit: Option<usize>) -> Self {
        TaskLog {
            artifact_limit,
            ..TaskLog::default()
        }
    }

    /// Follow a task we know by id (a subscribe).
    pub fn for_task(task_id: impl Into<String>) -> Self {
        TaskLog {
            task_id: Some(task_id.into()),
            ..TaskLog::default()
        }
    }

    /// Follow a task we just answered (a follow-up message): its old interrupted state is not news.
    pub fn resuming(task_id: impl Into<String>) -> Self {
        TaskLog {
            resuming: true,
            ..TaskLog::for_task(task_id)
        }
    }

    /// Where the task stands; `None` before any state arrived.
    pub fn phase(&self) -> Option<Phase> {
        (self.task_id.is_some() && self.state != TaskState::Unspecified).then(|| phase(&self.state))
    }

    pub fn is_terminal(&self) -> bool {
        self.phase() == Some(Phase::Terminal)
    }

    /// The task settled (terminal, or waiting for the user) and its stream is done: an artifact whose last
    /// chunk never came marked so (the SDKs' `add_artifact` leaves `lastChunk` unset) is complete as it stands,
    /// unless a chunk was skipped. Returns the artifacts this completed.
    pub fn settle_artifacts(&mut self) -> Vec<usize> {
        let mut done = Vec::new();
        let start = self.task_start;
        for (i, a) in self.artifacts.iter_mut().enumerate().skip(start) {
            if !a.last_chunk && !a.gap {
                a.last_chunk = true;
                done.push(i);
            }
        }
        done
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

    /// The sources that delivered data so far are gone (the console restarted): whatever comes next is placed
    /// afresh (a new stream by its snapshot, a push by its content).
    pub fn forget_sources(&mut self) {
        self.offsets.clear();
    }

    /// The applied status as the agent last showed it.
    pub fn status_seen(&self) -> StatusSeen {
        StatusSeen::new(&self.state, self.status_message.as_ref(), self.status_at)
    }

    /// Start over for a new task in the same conversation: the context is kept, and so are the earlier
    /// tasks' artifacts (they stay where they are; the new task's come after them).
    pub fn new_task(&mut self) {
        let context_id = self.context_id.take();
        let artifacts = std::mem::take(&mut self.artifacts);
        *self = TaskLog {
            context_id,
            artifact_limit: self.artifact_limit,
            task_start: artifacts.len(),
            artifacts,
            ..TaskLog::default()
        };
    }

    /// The current task's artifacts (what a snapshot of this task would hold).
    pub fn current_artifacts(&self) -> &[ArtifactLog] {
        self.artifacts.get(self.task_start..).unwrap_or_default()
    }

    /// The artifacts that reached the size limit during the events judged since the last call (each once).
    pub fn take_limited(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.limited)
    }

    /// Judge one piece of task data from `source`, and apply it if it is legal.
    pub fn judge(&mut self, source: Source, event: &StreamResponse) -> Verdict {
        match event {
            StreamResponse::Task(t) => self.snapshot(source, t),
            StreamResponse::StatusUpdate(u) => {
                if let Err(why) = self.claim(source, &u.task_id, &u.context_id) {
                    return Verdict::Illegal(why);
                }
                self.status(source, &u.status)
            }
            StreamResponse::ArtifactUpdate(u) => {
                if let Err(why) = self.claim(source, &u.task_id, &u.context_id) {
                    return Verdict::Illegal(why);
                }
                self.chunk(
                    source,
                    &u.artifact,
                    u.append.unwrap_or(false),
                    u.last_chunk.unwrap_or(false),
                )
            }
            StreamResponse::Message(m) => {
                // A stream's messages belong to the request that opened it; a pushed one must say whose it is.
                if source == Source::Push {
                    let task_id = m.task_id.as_deref().unwrap_or_default();
                    let context_id = m.context_id.as_deref().unwrap_or_default();
                    if let Err(why) = self.claim(source, task_id, context_id) {
                        return Verdict::Illegal(why);
                    }
                }
                self.message(m)
            }
        }
    }

    /// Does this data belong to our task? Adopts the first task (and context) id seen; later mismatches are
    /// refused. An empty context id never matches a known one by accident: from a connection we opened to the
    /// agent it is simply not checked (some servers leave it out of updates), but a push notification arrives
    /// on a port anyone on the machine can reach, so once the context is known a push must carry it.
    fn claim(&mut self, source: Source, task_id: &str, context_id: &str) -> Result<(), String> {
        match &self.task_id {
            None => self.task_id = Some(task_id.to_string()),
            Some(ours) if ours != task_id => {
                return Err(format!(
                    "data for task {task_id:?}, but this tab follows task {ours:?}; not merged"
                ));
            }
            _ => {}
        }
        match &self.context_id {
            None if !context_id.is_empty() => self.context_id = Some(context_id.to_string()),
            Some(ours) if context_id.is_empty() && source == Source::Push => {
                return Err(format!(
                    "a push notification for task {task_id:?} names no context, but the task's is {ours:?}; not merged"
                ));
            }
            Some(ours) if !context_id.is_empty() && ours != context_id => {
                return Err(format!(
                    "the agent changed the context id of task {task_id:?} from {ours:?} to {context_id:?}; not merged"
                ));
            }
            _ => {}
        }
        Ok(())
    }

    /// After a terminal state nothing changes the task. The same terminal state again is a duplicate; a
    /// stream that keeps talking is flagged (the agent broke the protocol on the very connection that said
    /// "done"); anything from another source (a push that was late, a poll in flight) is merely stale.
    fn after_terminal(&self, source: Source, what: &str) -> Verdict {
        let why = format!(
            "{what} arrived after the task was already {}",
            state_name(&self.state)
        );
        if source.is_stream() {
            Verdict::Illegal(why)
        } else {
            Verdict::Stale(why)
        }
    }

    fn older(&self, source: Source, at: Option<DateTime<Utc>>) -> bool {
        self.status_source != Some(source)
            && matches!((at, self.status_at), (Some(new), Some(shown)) if new < shown)
    }

    /// This runs on every event: foldhash (seeded per task log, see `keys`) rather than SipHash, which was a
    /// visible part of the CLI's time on a long stream.
    fn status_key(&self, status: &a2a::TaskStatus) -> u64 {
        let mut h = self.keys.build_hasher();
        state_name(&status.state).hash(&mut h);
        if let Some(m) = &status.message {
            m.message_id.hash(&mut h);
            if m.message_id.is_empty() {
                format!("{:?}", m.parts).hash(&mut h);
            }
        }
        status.timestamp.map(|t| t.timestamp_micros()).hash(&mut h);
        h.finish()
    }

    /// Remember a message as shown; true when it is new.
    fn first_sight(&mut self, m: &Message) -> bool {
        if m.message_id.is_empty() {
            // No id to know it by: compare with the status message shown.
            return self.status_message.as_ref().map(|s| &s.parts) != Some(&m.parts);
        }
        self.seen_messages.insert(self.keys.hash_one(&m.message_id))
    }

    fn status(&mut self, source: Source, status: &a2a::TaskStatus) -> Verdict {
        let key = self.status_key(status);
        if self.seen_status.contains(&key) {
            return Verdict::Duplicate;
        }
        if self.is_terminal() {
            if status.state == self.state {
                return Verdict::Duplicate;
            }
            return self.after_terminal(source, "a status update");
        }
        if self.older(source, status.timestamp) {
            return Verdict::Stale("a status update older than the one shown".into());
        }
        let state_changed = status.state != self.state;
        let new_message = status
            .message
            .as_ref()
            .is_some_and(|m| m.role != a2a::Role::User && self.first_sight(m));
        if !state_changed && !new_message && status.message.is_none() && self.state_known() {
            // Same state, nothing said: nothing to show (many agents repeat WORKING).
            self.seen_status.insert(key);
            return Verdict::Duplicate;
        }
        self.seen_status.insert(key);
        self.resuming = false;
        self.state = status.state.clone();
        if status.message.is_some() {
            self.status_message = status.message.clone();
        }
        if status.timestamp.is_some() {
            self.status_at = status.timestamp;
        }
        self.status_source = Some(source);
        Verdict::applied(Change::Status {
            state_changed,
            new_message,
        })
    }

    fn state_known(&self) -> bool {
        self.state != TaskState::Unspecified
    }

    fn snapshot(&mut self, source: Source, t: &Task) -> Verdict {
        if let Err(why) = self.claim(source, &t.id, &t.context_id) {
            return Verdict::Illegal(why);
        }
        let status_seen = self.seen_status.contains(&self.status_key(&t.status));
        if self.is_terminal() && t.status.state != self.state {
            return self.after_terminal(source, "a task snapshot");
        }
        if self.older(source, t.status.timestamp) {
            return Verdict::Stale("a task snapshot older than the status shown".into());
        }
        let interrupted = matches!(
            t.status.state,
            TaskState::InputRequired | TaskState::AuthRequired
        );
        if self.resuming && interrupted && t.status.state == self.state {
            // The snapshot that opens the follow-up's stream still shows the question we just answered.
            return Verdict::Stale("the interrupted state the user just answered".into());
        }
        let state_changed = t.status.state != self.state;
        let new_message = t
            .status
            .message
            .as_ref()
            .is_some_and(|m| m.role != a2a::Role::User && self.first_sight(m));
        self.seen_status.insert(self.status_key(&t.status));
        self.state = t.status.state.clone();
        if t.status.message.is_some() || state_changed {
            self.status_message = t.status.message.clone();
        }
        if t.status.timestamp.is_some() {
            self.status_at = t.status.timestamp;
        }
        self.status_source = Some(source);
        let settled = phase(&t.status.state) != Phase::Active;
        let mut artifacts = Vec::new();
        for a in t.artifacts.iter().flatten() {
            if let Some(edit) = self.rebase(source, a, settled) {
                let index = self.by_id.get(&a.artifact_id).copied().unwrap_or(0);
                artifacts.push(ArtifactChange { index, edit });
            }
        }
        if !state_changed && !new_message && artifacts.is_empty() && status_seen {
            return Verdict::Duplicate;
        }
        Verdict::applied(Change::Snapshot {
            state_changed,
            new_message,
            artifacts,
        })
    }

    fn message(&mut self, m: &Message) -> Verdict {
        if !m.message_id.is_empty()
            && self
                .seen_messages
                .contains(&self.keys.hash_one(&m.message_id))
        {
            return Verdict::Duplicate;
        }
        if !m.message_id.is_empty() {
            self.seen_messages.insert(self.keys.hash_one(&m.message_id));
        }
        let direct = self.task_id.is_none() && m.task_id.is_none();
        if direct {
            self.direct_reply = Some(m.clone());
        }
        Verdict::applied(Change::Message { direct })
    }
}

/// What tells one status an agent showed from another: its state, its message's id and its timestamp. Two
/// readings that agree saw the same status; a new question in the same state has a new message or time.
#[derive(Clone, Debug, PartialEq)]
pub struct StatusSeen {
    state: TaskState,
    message_id: Option<String>,
    at: Option<DateTime<Utc>>,
}

impl StatusSeen {
    fn new(state: &TaskState, message: Option<&Message>, at: Option<DateTime<Utc>>) -> Self {
        StatusSeen {
            state: state.clone(),
            message_id: message.map(|m| m.message_id.clone()),
            at,
        }
    }

    /// The status a task as read (GetTask) carries.
    pub fn of(status: &a2a::TaskStatus) -> Self {
        Self::new(&status.state, status.message.as_ref(), status.timestamp)
    }

    pub fn state(&self) -> &TaskState {
        &self.state
    }
}

#[cfg(test)]
mod tests;
