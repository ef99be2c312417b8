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

pub mod limit;
pub mod prints;
mod recent;
use recent::RecentSet;

/// The by-id maps are looked up on every event: foldhash, seeded per process, rather than SipHash.
type Fast = foldhash::fast::RandomState;
use std::hash::{BuildHasher, Hash, Hasher};

use a2a::{Artifact, Message, Part, StreamResponse, Task, TaskState};
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

/// One artifact as reassembled.
#[derive(Clone, Debug, PartialEq)]
pub struct ArtifactLog {
    pub artifact: Artifact,
    /// A chunk with `lastChunk` was placed (or a snapshot of a settled task carried it).
    pub last_chunk: bool,
    /// A chunk could not be placed after the parts before it (something was skipped); only a snapshot heals it.
    pub gap: bool,
    /// Bytes of the parts kept, counted towards the size limit.
    pub bytes: usize,
    /// A part did not fit under the size limit: nothing more of this artifact is kept.
    pub at_limit: bool,
    /// One print per part of `artifact`, what parts are compared by ([`prints`]).
    pub prints: Vec<prints::Print>,
    /// Parts before this one have been looked at by [`ArtifactLog::hollow`].
    hollowed_to: usize,
}

impl ArtifactLog {
    /// Everything arrived: the last chunk, and nothing skipped.
    pub fn complete(&self) -> bool {
        self.last_chunk && !self.gap
    }

    /// Let go of the text of large text parts: the view holds the artifact in a spool file, so the gate
    /// keeps only their prints (see [`prints`]).
    pub fn hollow(&mut self) {
        self.hollowed_to =
            prints::hollow(&mut self.artifact.parts, &mut self.prints, self.hollowed_to);
    }

    /// Are `incoming` the parts kept from `at` on?
    fn same_parts_at(&self, at: usize, incoming: &[Part]) -> bool {
        let incoming: Vec<prints::Print> = incoming.iter().map(prints::Print::of).collect();
        prints::match_at(&self.prints, at, &incoming)
    }
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

/// How far back to look for a chunk from a source that joined in the middle of an artifact.
const ALIGN_WINDOW: usize = 256;

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

    /// Take a snapshot's artifact as the new baseline; `None` when it matches what we have.
    fn rebase(&mut self, source: Source, a: &Artifact, settled: bool) -> Option<ArtifactEdit> {
        let Some(&index) = self.by_id.get(&a.artifact_id) else {
            let index = self.push_artifact(a, settled);
            self.offsets.insert((source, index), a.parts.len());
            return Some(ArtifactEdit::New);
        };
        self.offsets.insert((source, index), a.parts.len());
        let limit = self.artifact_limit;
        let log = self.artifacts.get_mut(index)?;
        let have = log.artifact.parts.len();
        let edit = if a.parts.len() >= have
            && a.parts.get(..have).is_some_and(|p| log.same_parts_at(0, p))
        {
            if a.parts.len() == have || log.at_limit {
                // Same content: only completeness can change (a settled task's artifacts are done; a snapshot
                // heals a gap).
                if (settled && !log.last_chunk) || log.gap {
                    log.last_chunk |= settled;
                    log.gap = false;
                    return Some(ArtifactEdit::Completed);
                }
                return None;
            }
            if limit::take(log, a.parts.iter().skip(have), limit) {
                self.limited.push(index);
            }
            ArtifactEdit::Appended { from_part: have }
        } else {
            *log = fresh(a, settled, limit, &mut self.limited, index);
            ArtifactEdit::Replaced
        };
        log.artifact.name = a.name.clone().or(log.artifact.name.take());
        log.last_chunk = settled;
        log.gap = false;
        Some(edit)
    }

    fn push_artifact(&mut self, artifact: &Artifact, last_chunk: bool) -> usize {
        let index = self.artifacts.len();
        self.by_id.insert(artifact.artifact_id.clone(), index);
        let log = fresh(
            artifact,
            last_chunk,
            self.artifact_limit,
            &mut self.limited,
            index,
        );
        self.artifacts.push(log);
        index
    }

    fn chunk(&mut self, source: Source, chunk: &Artifact, append: bool, last: bool) -> Verdict {
        let k = chunk.parts.len();
        let Some(&index) = self.by_id.get(&chunk.artifact_id) else {
            if self.is_terminal() {
                return self.after_terminal(source, "an artifact chunk");
            }
            let index = self.push_artifact(chunk, last);
            self.offsets.insert((source, index), k);
            let warning = append.then(|| {
                format!(
                    "append to unknown artifact {:?}; started it",
                    chunk.artifact_id
                )
            });
            return Verdict::Applied {
                change: Change::Artifact(ArtifactChange {
                    index,
                    edit: ArtifactEdit::New,
                }),
                warning,
            };
        };
        let Some(have) = self.artifacts.get(index).map(|l| l.artifact.parts.len()) else {
            return Verdict::Duplicate;
        };
        if append && !self.is_terminal() && self.artifacts.get(index).is_some_and(|l| l.at_limit) {
            // Past the limit positions no longer matter (nothing more is kept); only `lastChunk` does.
            let o = self.offsets.get(&(source, index)).copied().unwrap_or(have);
            self.offsets.insert((source, index), o + k);
            let edit = self.append(index, chunk, k, last);
            return Verdict::applied(Change::Artifact(ArtifactChange { index, edit }));
        }
        // Where this chunk starts, counted in the artifact's parts.
        let start = if append {
            match self.offsets.get(&(source, index)) {
                Some(&o) => Some(o),
                None => self.align(index, &chunk.parts),
            }
        } else {
            Some(0)
        };
        let terminal = self.is_terminal();
        let Some(log) = self.artifacts.get_mut(index) else {
            return Verdict::Duplicate;
        };
        match start {
            // Without append, the same first parts again is the same first chunk from another source; different
            // ones replace the artifact (what the SDKs do with a reused id).
            Some(0) if !append && !log.same_parts_at(0, &chunk.parts) => {
                if terminal {
                    return self.after_terminal(source, "an artifact chunk");
                }
                *log = fresh(chunk, last, self.artifact_limit, &mut self.limited, index);
                self.offsets.retain(|(_, i), _| *i != index);
                self.offsets.insert((source, index), k);
                Verdict::applied(Change::Artifact(ArtifactChange {
                    index,
                    edit: ArtifactEdit::Replaced,
                }))
            }
            Some(o) if o + k <= have => {
                // Everything in it is placed already.
                self.offsets.insert((source, index), o + k);
                if last && o + k == have && !log.last_chunk {
                    log.last_chunk = true;
                    return Verdict::applied(Change::Artifact(ArtifactChange {
                        index,
                        edit: ArtifactEdit::Completed,
                    }));
                }
                Verdict::Duplicate
            }
            Some(o) => {
                if terminal {
                    return self.after_terminal(source, "an artifact chunk");
                }
                if o > have {
                    // Parts between `have` and `o` never reached us.
                    log.gap = true;
                }
                let skip = have.saturating_sub(o);
                let edit = self.append(index, chunk, skip, last);
                self.offsets.insert((source, index), o + k);
                Verdict::applied(Change::Artifact(ArtifactChange { index, edit }))
            }
            None => {
                if terminal {
                    return self.after_terminal(source, "an artifact chunk");
                }
                // A source that joined in the middle, with parts we cannot find: new content, but we cannot tell
                // what came between.
                log.gap = true;
                let edit = self.append(index, chunk, 0, last);
                self.offsets.insert((source, index), have + k);
                Verdict::applied(Change::Artifact(ArtifactChange { index, edit }))
            }
        }
    }

    /// Appends `chunk`'s parts from `skip` on to artifact `index`, as far as its size limit allows.
    fn append(&mut self, index: usize, chunk: &Artifact, skip: usize, last: bool) -> ArtifactEdit {
        let Some(log) = self.artifacts.get_mut(index) else {
            return ArtifactEdit::Dropped;
        };
        let have = log.artifact.parts.len();
        let was_at_limit = log.at_limit;
        if limit::take(log, chunk.parts.iter().skip(skip), self.artifact_limit) {
            self.limited.push(index);
        }
        merge_metadata(&mut log.artifact, chunk);
        log.last_chunk |= last;
        if was_at_limit {
            ArtifactEdit::Dropped
        } else {
            ArtifactEdit::Appended { from_part: have }
        }
    }

    /// A source that joined an artifact in the middle (a push registered late, a stream re-opened without a
    /// snapshot): find where its chunk already stands, searching back from the end.
    fn align(&self, index: usize, parts: &[Part]) -> Option<usize> {
        let have = &self.artifacts.get(index)?.prints;
        let k = parts.len();
        if k == 0 || k > have.len() {
            return None;
        }
        let incoming: Vec<prints::Print> = parts.iter().map(prints::Print::of).collect();
        let last_start = have.len() - k;
        (last_start.saturating_sub(ALIGN_WINDOW)..=last_start)
            .rev()
            .find(|&p| prints::match_at(have, p, &incoming))
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

/// A new log for `a` (first seen, or replaced), its parts taken as far as `max` allows; notes in `limited`
/// when `a` alone is over it.
fn fresh(
    a: &Artifact,
    last_chunk: bool,
    max: Option<usize>,
    limited: &mut Vec<usize>,
    index: usize,
) -> ArtifactLog {
    let mut log = ArtifactLog {
        artifact: limit::shell(a),
        last_chunk,
        gap: false,
        bytes: 0,
        at_limit: false,
        prints: Vec::new(),
        hollowed_to: 0,
    };
    if limit::take(&mut log, &a.parts, max) {
        limited.push(index);
    }
    log
}

fn merge_metadata(into: &mut Artifact, chunk: &Artifact) {
    match (&mut into.metadata, &chunk.metadata) {
        (Some(meta), Some(new)) => meta.extend(new.clone()),
        (None, Some(new)) => into.metadata = Some(new.clone()),
        _ => {}
    }
}

#[cfg(test)]
mod tests;
