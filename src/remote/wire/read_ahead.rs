//! Reading a stream ahead of its consumer, on another thread: the socket, the SSE framing and the event
//! decoding run in a task of their own while the caller judges and prints what came before.
//!
//! Why: on a fast stream the CLI's time splits about evenly between getting events off the wire (SSE lines,
//! JSON decoding: ~55 % in a profile of a 100,000-event replay) and doing something with them (the task log's
//! gate, `--json` printing: ~40 %). One after the other on one thread, the two add up; as two stages they
//! overlap, and the slower one sets the pace. Events move in batches of whatever was ready at once, so a busy
//! stream costs one channel hand-off per batch, not per event, and a slow one still delivers each event as
//! soon as it is decoded.

use futures::stream::BoxStream;
use futures::{FutureExt, StreamExt};
use tokio::sync::mpsc;

/// Events per hand-off at most; also what one batch may hold in memory beyond the channel's bound.
const BATCH: usize = 256;
/// Batches in flight: the reader stops reading the socket (and so the server is slowed by TCP) once this
/// many wait, which bounds the memory a fast server can make us hold.
const IN_FLIGHT: usize = 4;

/// `stream`, read ahead by a spawned task. Dropping the returned stream stops the reader (and drops, so
/// closes, the connection under it) even while it waits for the server.
pub fn read_ahead<T: Send + 'static>(mut stream: BoxStream<'static, T>) -> BoxStream<'static, T> {
    let (tx, rx) = mpsc::channel::<Vec<T>>(IN_FLIGHT);
    tokio::spawn(async move {
        loop {
            let first = tokio::select! {
                item = stream.next() => item,
                () = tx.closed() => return,
            };
            let Some(first) = first else { return };
            let mut batch = Vec::with_capacity(8);
            batch.push(first);
            while batch.len() < BATCH {
                match stream.next().now_or_never() {
                    Some(Some(item)) => batch.push(item),
                    Some(None) => {
                        let _ = tx.send(batch).await;
                        return;
                    }
                    None => break,
                }
            }
            if tx.send(batch).await.is_err() {
                return;
            }
        }
    });
    futures::stream::unfold(
        (rx, std::collections::VecDeque::new()),
        |(mut rx, mut ready)| async move {
            loop {
                if let Some(item) = ready.pop_front() {
                    return Some((item, (rx, ready)));
                }
                ready = rx.recv().await?.into();
            }
        },
    )
    .boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_item_arrives_in_order_and_the_end_is_kept() {
        let items: Vec<u32> = (0..10_000).collect();
        let got: Vec<u32> = read_ahead(futures::stream::iter(items.clone()).boxed())
            .collect()
            .await;
        assert_eq!(got, items);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn dropping_the_reader_stops_a_stream_that_waits_forever() {
        let (dropped_tx, dropped_rx) = tokio::sync::oneshot::channel::<()>();
        struct Guard(Option<tokio::sync::oneshot::Sender<()>>);
        impl Drop for Guard {
            fn drop(&mut self) {
                if let Some(tx) = self.0.take() {
                    let _ = tx.send(());
                }
            }
        }
        let guard = Guard(Some(dropped_tx));
        let pending = futures::stream::once(async { 1u8 })
            .chain(futures::stream::pending())
            .map(move |x| {
                let _keep = &guard;
                x
            })
            .boxed();
        let mut ahead = read_ahead(pending);
        assert_eq!(ahead.next().await, Some(1));
        drop(ahead);
        tokio::time::timeout(std::time::Duration::from_secs(5), dropped_rx)
            .await
            .expect("the inner stream was dropped")
            .ok();
    }
}
