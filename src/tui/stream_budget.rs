//! The stream queue's second bound: bytes. [`STREAM_QUEUE`](super::runtime::STREAM_QUEUE) counts events, which
//! is right for a flood of small ones; but 2 048 events of 1 MiB each are 2 GiB waiting for the loop, and an
//! agent that sends a 100 MiB artifact in 1 MiB chunks filled the queue faster than the loop applied it (the
//! console peaked at several times the artifact's size). A reader now also waits while more than
//! [`STREAM_BYTES`] of events are queued; the loop frees an event's bytes when it takes it. One event larger
//! than the whole budget still goes through, alone.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::Notify;
use tokio::sync::mpsc::Sender;
use tokio::sync::mpsc::error::SendError;

use crate::app::msg::{Msg, StreamItem};

/// Bytes of stream events that may wait for the loop.
pub const STREAM_BYTES: usize = 16 * 1024 * 1024;

/// Bytes of events queued, and a wake-up for readers waiting for room.
#[derive(Debug)]
pub struct StreamBudget {
    queued: AtomicUsize,
    freed: Notify,
    max: usize,
}

impl StreamBudget {
    pub fn new(max: usize) -> Self {
        Self {
            queued: AtomicUsize::new(0),
            freed: Notify::new(),
            max,
        }
    }

    /// Wait until `n` more bytes fit (or nothing is queued), then count them as queued.
    pub async fn reserve(&self, n: usize) {
        loop {
            let freed = self.freed.notified();
            tokio::pin!(freed);
            // Registered before looking, so a release between the look and the wait is not missed.
            freed.as_mut().enable();
            let took = self
                .queued
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |q| {
                    (q == 0 || q.saturating_add(n) <= self.max).then(|| q.saturating_add(n))
                })
                .is_ok();
            if took {
                return;
            }
            freed.await;
        }
    }

    /// `n` bytes were taken off the queue.
    pub fn release(&self, n: usize) {
        let _ = self
            .queued
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |q| {
                Some(q.saturating_sub(n))
            });
        self.freed.notify_waiters();
    }

    /// Bytes queued now.
    pub fn queued(&self) -> usize {
        self.queued.load(Ordering::Acquire)
    }
}

/// What a message costs the budget: a stream event's size as the raw JSON view guesses it
/// ([`crate::app::kept::approx_size`]); nothing for other messages.
pub fn msg_bytes(msg: &Msg) -> usize {
    match msg {
        Msg::Stream {
            item: StreamItem::Event(ev),
            ..
        } => crate::app::kept::approx_size(ev),
        _ => 0,
    }
}

/// The stream readers' sender: the bounded channel, and the byte budget in front of it.
#[derive(Clone, Debug)]
pub struct StreamTx {
    tx: Sender<Msg>,
    budget: Arc<StreamBudget>,
}

impl StreamTx {
    pub fn new(tx: Sender<Msg>, budget: Arc<StreamBudget>) -> Self {
        Self { tx, budget }
    }

    /// Send `msg` once its bytes fit; they are counted until the loop takes it ([`StreamBudget::release`]).
    pub async fn send(&self, msg: Msg) -> Result<(), SendError<Msg>> {
        let n = msg_bytes(&msg);
        if n > 0 {
            self.budget.reserve(n).await;
        }
        let sent = self.tx.send(msg).await;
        if sent.is_err() && n > 0 {
            self.budget.release(n);
        }
        sent
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_reader_waits_while_the_budget_is_spent_and_goes_on_when_freed() {
        let b = Arc::new(StreamBudget::new(100));
        b.reserve(60).await;
        // Alone, an event larger than the whole budget still goes (nothing else is queued)…
        let big = Arc::new(StreamBudget::new(10));
        big.reserve(1000).await;
        assert_eq!(big.queued(), 1000);
        // … but a second one waits for the first to be taken.
        let waiting = {
            let b = b.clone();
            tokio::spawn(async move { b.reserve(60).await })
        };
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!waiting.is_finished(), "60 + 60 > 100 must wait");
        b.release(60);
        tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("woken when freed")
            .unwrap();
        assert_eq!(b.queued(), 60);
    }
}
