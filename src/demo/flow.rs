//! Backpressure from streaming clients to the demo's scenarios.
//!
//! The SDK fans executor events out to subscribers through a broadcast channel of 32 slots
//! (a2a-server-lf handler.rs:14) and ends a subscription that falls further behind with a bare
//! "Internal error" (handler.rs:342). Nothing in the SDK slows the executor down for a slow reader,
//! so `flood` and `big` would routinely kill the very client they are meant to test. This module
//! closes that loop: the request-handler wrapper (`handler.rs`) counts what each streaming
//! subscriber has taken, and a scenario waits before emitting while any subscriber is more than
//! [`WINDOW`] events behind.

use std::collections::HashMap;
use std::pin::pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::Notify;

/// How far a scenario may run ahead of its slowest subscriber. Well under the SDK's 32 slots,
/// because up to two events sit between the scenario and the broadcast (our channel and the SDK's
/// in-flight one).
const WINDOW: u64 = 16;

/// How long a scenario waits for one stalled subscriber before it stops waiting for that subscriber
/// at all. A client that reads nothing for this long is not keeping up anyway; the SDK may then
/// drop it, as it would without this module.
const STALL: Duration = Duration::from_secs(10);

/// One streaming reader of a task's events.
#[derive(Default)]
pub(crate) struct Subscriber {
    consumed: AtomicU64,
    progressed: Notify,
    gone: AtomicBool,
}

impl Subscriber {
    /// Records that the reader took one more event.
    pub(crate) fn took_one(&self) {
        self.consumed.fetch_add(1, Ordering::AcqRel);
        self.progressed.notify_waiters();
    }
}

/// Unregisters its subscriber when the reader's stream is dropped (client gone, stream finished).
pub(crate) struct Registration {
    subscriber: Arc<Subscriber>,
    control: Arc<FlowControl>,
    message_id: Option<String>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.subscriber.gone.store(true, Ordering::Release);
        self.subscriber.progressed.notify_waiters();
        if let Some(message_id) = &self.message_id {
            let mut registry = self.control.lock();
            if let Some(waiting) = registry.by_message.get_mut(message_id) {
                waiting.retain(|s| !Arc::ptr_eq(s, &self.subscriber));
                if waiting.is_empty() {
                    registry.by_message.remove(message_id);
                }
            }
        }
    }
}

/// The events one execution has produced, and who is reading them.
#[derive(Default)]
pub(crate) struct Flow {
    produced: AtomicU64,
    subscribers: Mutex<Vec<Arc<Subscriber>>>,
    finished: AtomicBool,
    on_finish: Notify,
}

impl Flow {
    fn readers(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Subscriber>>> {
        self.subscribers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// One live reader, if any is left.
    fn any_reader(&self) -> Option<Arc<Subscriber>> {
        let mut readers = self.readers();
        readers.retain(|s| !s.gone.load(Ordering::Acquire));
        readers.first().cloned()
    }

    /// Waits until no streaming reader is left, or `limit` passed. Lets a scenario keep a stream
    /// open for the people watching it without making everyone else wait.
    pub(crate) async fn wait_unwatched(&self, limit: Duration) {
        let deadline = tokio::time::Instant::now() + limit;
        while let Some(reader) = self.any_reader() {
            // A reader's notify fires on its every read and when it goes away.
            let mut changed = pin!(reader.progressed.notified());
            changed.as_mut().enable();
            if reader.gone.load(Ordering::Acquire) {
                continue;
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                return;
            }
        }
    }

    /// Waits until the execution's scenario has ended, or `limit` passed.
    pub(crate) async fn wait_finished(&self, limit: Duration) {
        let mut finished = pin!(self.on_finish.notified());
        finished.as_mut().enable();
        if !self.finished.load(Ordering::Acquire) {
            let _ = tokio::time::timeout(limit, finished).await;
        }
    }

    /// Waits until every live subscriber is close enough to take one more event, then counts it as
    /// produced.
    pub(crate) async fn before_emit(&self) {
        let next = self.produced.fetch_add(1, Ordering::AcqRel) + 1;
        loop {
            let laggard = {
                let mut readers = self.readers();
                readers.retain(|s| !s.gone.load(Ordering::Acquire));
                readers
                    .iter()
                    .find(|s| s.consumed.load(Ordering::Acquire) + WINDOW < next)
                    .cloned()
            };
            let Some(laggard) = laggard else {
                return;
            };
            // Arm the wake-up before re-checking, so progress made in between is not missed.
            let mut progressed = pin!(laggard.progressed.notified());
            progressed.as_mut().enable();
            if laggard.gone.load(Ordering::Acquire)
                || laggard.consumed.load(Ordering::Acquire) + WINDOW >= next
            {
                continue;
            }
            if tokio::time::timeout(STALL, progressed).await.is_err() {
                tracing::warn!("a streaming client stopped reading; no longer waiting for it");
                self.readers().retain(|s| !Arc::ptr_eq(s, &laggard));
            }
        }
    }
}

#[derive(Default)]
struct Registry {
    /// Readers of a SendStreamingMessage whose execution has not started yet, by the request's
    /// message id: the task id is minted by the SDK only after the stream was requested.
    by_message: HashMap<String, Vec<Arc<Subscriber>>>,
    /// Running executions, by task id.
    by_task: HashMap<String, Arc<Flow>>,
}

/// Shared between the request-handler wrapper (readers) and the executor (writers).
#[derive(Default)]
pub(crate) struct FlowControl {
    registry: Mutex<Registry>,
}

impl FlowControl {
    fn lock(&self) -> std::sync::MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers the reader of a SendStreamingMessage before the SDK starts the execution, so the
    /// very first events are already metered.
    pub(crate) fn reader_for_message(
        self: &Arc<Self>,
        message_id: &str,
    ) -> (Arc<Subscriber>, Registration) {
        let subscriber = Arc::new(Subscriber::default());
        self.lock()
            .by_message
            .entry(message_id.to_owned())
            .or_default()
            .push(Arc::clone(&subscriber));
        let registration = Registration {
            subscriber: Arc::clone(&subscriber),
            control: Arc::clone(self),
            message_id: Some(message_id.to_owned()),
        };
        (subscriber, registration)
    }

    /// Registers the reader of a SubscribeToTask, which joins mid-way: it starts level with what
    /// was produced so far, since the SDK only sends it later events (after a snapshot that it
    /// counts as one more).
    pub(crate) fn reader_for_task(
        self: &Arc<Self>,
        task_id: &str,
    ) -> (Arc<Subscriber>, Registration) {
        let subscriber = Arc::new(Subscriber::default());
        if let Some(flow) = self.lock().by_task.get(task_id) {
            subscriber
                .consumed
                .store(flow.produced.load(Ordering::Acquire), Ordering::Release);
            flow.readers().push(Arc::clone(&subscriber));
        }
        let registration = Registration {
            subscriber: Arc::clone(&subscriber),
            control: Arc::clone(self),
            message_id: None,
        };
        (subscriber, registration)
    }

    /// Starts metering an execution, adopting the readers that asked for it by message id.
    pub(crate) fn start(&self, task_id: &str, message_id: Option<&str>) -> Arc<Flow> {
        let mut registry = self.lock();
        let waiting = message_id
            .and_then(|id| registry.by_message.remove(id))
            .unwrap_or_default();
        let flow = Arc::new(Flow {
            subscribers: Mutex::new(waiting),
            ..Flow::default()
        });
        registry
            .by_task
            .insert(task_id.to_owned(), Arc::clone(&flow));
        flow
    }

    /// The metering of the execution running for `task_id`, if one is.
    pub(crate) fn running(&self, task_id: &str) -> Option<Arc<Flow>> {
        self.lock().by_task.get(task_id).cloned()
    }

    /// Stops metering an execution (unless a newer one on the same task already replaced it).
    pub(crate) fn finish(&self, task_id: &str, flow: &Arc<Flow>) {
        flow.finished.store(true, Ordering::Release);
        flow.on_finish.notify_waiters();
        let mut registry = self.lock();
        if registry
            .by_task
            .get(task_id)
            .is_some_and(|f| Arc::ptr_eq(f, flow))
        {
            registry.by_task.remove(task_id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn writer_waits_for_a_slow_reader_and_resumes_when_it_reads() {
        let control = Arc::new(FlowControl::default());
        let (reader, _registration) = control.reader_for_message("m1");
        let flow = control.start("t1", Some("m1"));
        for _ in 0..WINDOW {
            flow.before_emit().await;
        }
        let blocked = tokio::time::timeout(Duration::from_millis(50), flow.before_emit()).await;
        assert!(blocked.is_err(), "17th event must wait for the reader");
        reader.took_one();
        reader.took_one();
        let resumed = tokio::time::timeout(Duration::from_millis(500), flow.before_emit()).await;
        assert!(resumed.is_ok());
    }

    #[tokio::test]
    async fn a_dropped_reader_no_longer_holds_the_writer() {
        let control = Arc::new(FlowControl::default());
        let (_reader, registration) = control.reader_for_message("m1");
        let flow = control.start("t1", Some("m1"));
        for _ in 0..WINDOW {
            flow.before_emit().await;
        }
        drop(registration);
        let free = tokio::time::timeout(Duration::from_millis(500), flow.before_emit()).await;
        assert!(free.is_ok());
    }

    #[tokio::test]
    async fn unwatched_wait_ends_when_the_last_reader_leaves() {
        let control = Arc::new(FlowControl::default());
        let (_reader, registration) = control.reader_for_message("m1");
        let flow = control.start("t1", Some("m1"));
        let waiting = tokio::spawn({
            let flow = Arc::clone(&flow);
            async move { flow.wait_unwatched(Duration::from_secs(30)).await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished());
        drop(registration);
        let ended = tokio::time::timeout(Duration::from_millis(500), waiting).await;
        assert!(ended.is_ok());

        let finished = tokio::spawn({
            let flow = Arc::clone(&flow);
            async move { flow.wait_finished(Duration::from_secs(30)).await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        control.finish("t1", &flow);
        assert!(
            tokio::time::timeout(Duration::from_millis(500), finished)
                .await
                .is_ok()
        );
        assert!(control.running("t1").is_none());
    }

    #[tokio::test]
    async fn late_subscriber_starts_level_with_the_writer() {
        let control = Arc::new(FlowControl::default());
        let flow = control.start("t1", None);
        for _ in 0..100 {
            flow.before_emit().await;
        }
        let (_reader, _registration) = control.reader_for_task("t1");
        let free = tokio::time::timeout(Duration::from_millis(500), flow.before_emit()).await;
        assert!(free.is_ok());
        control.finish("t1", &flow);
        assert!(control.lock().by_task.is_empty());
    }
}
