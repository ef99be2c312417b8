//! The demo's [`AgentExecutor`]: runs one scenario per execution on its own tokio task and feeds
//! the SDK its events through a bounded channel; cancellation and shutdown stop that task promptly.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use a2a::{
    A2AError, Artifact, Message, Part, Role, StreamResponse, Task, TaskArtifactUpdateEvent, TaskId,
    TaskState, TaskStatus, TaskStatusUpdateEvent,
};
use a2a_server::{AgentExecutor, ExecutorContext};
use futures::stream::{self, BoxStream};
use tokio::sync::{mpsc, watch};
use tokio_stream::wrappers::ReceiverStream;

use super::flow::{Flow, FlowControl};
use super::scenarios;

/// One event on its way to the SDK.
type Event = Result<StreamResponse, A2AError>;

/// Why a scenario stopped before its natural end.
#[derive(Debug)]
pub(crate) enum Stop {
    /// CancelTask was called, or the server is shutting down.
    Canceled,
    /// The SDK stopped reading the executor stream.
    Closed,
}

/// A running scenario's cancel switch, tagged so a finished run removes its own entry and not a
/// successor's.
struct Running {
    generation: u64,
    cancel: watch::Sender<bool>,
}

/// What scenarios need to know about the server they run in.
pub(crate) struct Env {
    /// `http://127.0.0.1:PORT`, for URLs that point back at this agent (the `file` scenario's url
    /// part).
    pub base_url: String,
}

/// The demo agent's executor.
pub(crate) struct DemoExecutor {
    env: Arc<Env>,
    running: Arc<Mutex<HashMap<TaskId, Running>>>,
    generation: AtomicU64,
    shutdown: watch::Receiver<bool>,
    flows: Arc<FlowControl>,
}

impl DemoExecutor {
    /// `shutdown` flips to `true` (or its sender is dropped) when the server stops; every scenario
    /// ends then. `flows` is shared with the request handler, which reports how far streaming
    /// clients have read.
    pub(crate) fn new(env: Env, shutdown: watch::Receiver<bool>, flows: Arc<FlowControl>) -> Self {
        DemoExecutor {
            env: Arc::new(env),
            running: Arc::default(),
            generation: AtomicU64::new(0),
            shutdown,
            flows,
        }
    }
}

impl AgentExecutor for DemoExecutor {
    fn execute(&self, ctx: ExecutorContext) -> BoxStream<'static, Event> {
        // Capacity 1: the scenario produces an event only when the SDK has taken the previous one,
        // so `big` never holds more than a chunk or two in memory. Streaming clients pace it
        // further (flow.rs).
        let (tx, rx) = mpsc::channel(1);
        let (cancel_tx, cancel_rx) = watch::channel(false);
        let generation = self.generation.fetch_add(1, Ordering::Relaxed);
        let task_id = ctx.task_id.clone();
        lock(&self.running).insert(
            task_id.clone(),
            Running {
                generation,
                cancel: cancel_tx,
            },
        );

        let flow = self.flows.start(
            &task_id,
            ctx.message.as_ref().map(|m| m.message_id.as_str()),
        );
        let emitter = Emitter {
            tx,
            flow: Arc::clone(&flow),
            cancel: cancel_rx,
            shutdown: self.shutdown.clone(),
            task_id: ctx.task_id.clone(),
            context_id: ctx.context_id.clone(),
        };
        let env = Arc::clone(&self.env);
        let running = Arc::clone(&self.running);
        let flows = Arc::clone(&self.flows);
        tokio::spawn(async move {
            match scenarios::run(emitter, ctx, &env).await {
                Ok(()) => {}
                Err(stop) => {
                    tracing::debug!(task_id = %task_id, ?stop, "demo scenario stopped early")
                }
            }
            flows.finish(&task_id, &flow);
            let mut running = lock(&running);
            if running
                .get(&task_id)
                .is_some_and(|r| r.generation == generation)
            {
                running.remove(&task_id);
            }
        });
        Box::pin(ReceiverStream::new(rx))
    }

    fn cancel(&self, ctx: ExecutorContext) -> BoxStream<'static, Event> {
        // Stop the scenario first, so it cannot slip another WORKING update in after the CANCELED
        // one below (the SDK's store refuses that transition, and the refusal would reach streaming
        // clients as an error).
        if let Some(running) = lock(&self.running).remove(&ctx.task_id) {
            let _ = running.cancel.send(true);
        }
        let message = agent_message(
            &ctx.task_id,
            &ctx.context_id,
            "Canceled at the client's request; the demo agent stopped working on this task.",
        );
        let event = StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: ctx.task_id,
            context_id: ctx.context_id,
            status: TaskStatus {
                state: TaskState::Canceled,
                message: Some(message),
                timestamp: Some(chrono::Utc::now()),
            },
            metadata: None,
        });
        Box::pin(stream::iter([Ok(event)]))
    }
}

/// Locks the registry; a panic elsewhere while holding it leaves nothing half-written, so poisoning
/// is ignored.
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// An agent-role message with one text part, addressed to a task.
pub(crate) fn agent_message(task_id: &str, context_id: &str, text: impl Into<String>) -> Message {
    let mut message = Message::new(Role::Agent, vec![Part::text(text)]);
    message.task_id = Some(task_id.to_owned());
    message.context_id = Some(context_id.to_owned());
    message
}

/// How a scenario talks to the SDK: typed helpers over the event channel, each of which also
/// notices cancellation so every scenario is cancelable without extra code.
pub(crate) struct Emitter {
    tx: mpsc::Sender<Event>,
    flow: Arc<Flow>,
    cancel: watch::Receiver<bool>,
    shutdown: watch::Receiver<bool>,
    pub(crate) task_id: TaskId,
    pub(crate) context_id: String,
}

impl Emitter {
    /// Whether the task was canceled or the server is going away.
    fn stopped(&self) -> bool {
        *self.cancel.borrow() || *self.shutdown.borrow() || self.shutdown.has_changed().is_err()
    }

    /// Sends one event, waiting until the SDK and every streaming client have room for it.
    pub(crate) async fn emit(&self, event: StreamResponse) -> Result<(), Stop> {
        if self.stopped() {
            return Err(Stop::Canceled);
        }
        self.flow.before_emit().await;
        self.tx.send(Ok(event)).await.map_err(|_| Stop::Closed)
    }

    /// Sends the task snapshot, which streaming clients expect as their first event.
    pub(crate) async fn task(&self, task: Task) -> Result<(), Stop> {
        self.emit(StreamResponse::Task(task)).await
    }

    /// Sends a status update, with a status message when `text` is given.
    pub(crate) async fn status(&self, state: TaskState, text: Option<&str>) -> Result<(), Stop> {
        let message = text.map(|t| agent_message(&self.task_id, &self.context_id, t));
        self.emit(StreamResponse::StatusUpdate(TaskStatusUpdateEvent {
            task_id: self.task_id.clone(),
            context_id: self.context_id.clone(),
            status: TaskStatus {
                state,
                message,
                timestamp: Some(chrono::Utc::now()),
            },
            metadata: None,
        }))
        .await
    }

    /// Sends an artifact update. `append` adds the parts to an artifact sent earlier with the same
    /// id.
    pub(crate) async fn artifact(
        &self,
        artifact: Artifact,
        append: bool,
        last_chunk: bool,
    ) -> Result<(), Stop> {
        self.emit(StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
            task_id: self.task_id.clone(),
            context_id: self.context_id.clone(),
            artifact,
            // ProtoJSON omits false anyway; None keeps the JSON identical to what the SDK would
            // produce.
            append: append.then_some(true),
            last_chunk: last_chunk.then_some(true),
            metadata: None,
        }))
        .await
    }

    /// Sends a direct message reply (no task).
    pub(crate) async fn message(&self, message: Message) -> Result<(), Stop> {
        self.emit(StreamResponse::Message(message)).await
    }

    /// Keeps the stream open for up to `duration` while a streaming client is watching; returns
    /// at once when none is (e.g. a blocking SendMessage has already been answered), so that a
    /// follow-up message is not refused with "task execution is already in progress".
    pub(crate) async fn hold_while_watched(&mut self, duration: Duration) -> Result<(), Stop> {
        if self.stopped() {
            return Err(Stop::Canceled);
        }
        let flow = Arc::clone(&self.flow);
        tokio::select! {
            () = flow.wait_unwatched(duration) => Ok(()),
            _ = self.cancel.changed() => Err(Stop::Canceled),
            _ = self.shutdown.changed() => Err(Stop::Canceled),
        }
    }

    /// Waits `duration`, or less if the task is canceled or the server shuts down meanwhile.
    pub(crate) async fn pause(&mut self, duration: Duration) -> Result<(), Stop> {
        if self.stopped() {
            return Err(Stop::Canceled);
        }
        tokio::select! {
            () = tokio::time::sleep(duration) => Ok(()),
            _ = self.cancel.changed() => Err(Stop::Canceled),
            _ = self.shutdown.changed() => Err(Stop::Canceled),
        }
    }
}
