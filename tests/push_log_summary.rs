//! Finding 7 of issue [5], the log: refused push requests are summed up, not logged one line each. A test binary
//! of its own: it captures logs with a thread-local subscriber, and `tracing` caches per call site whether
//! anyone listens — a test on another thread of the same binary (no subscriber there) can make that cache say
//! "nobody", and the summary line is then lost. One test per process avoids that race.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_console::push::{DEFAULT_BIND, Limits, PushEvent, PushReceiver, Registered};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

async fn receiver(limits: Limits) -> (PushReceiver, UnboundedReceiver<PushEvent>) {
    let (tx, rx) = unbounded_channel();
    (
        PushReceiver::start_with(DEFAULT_BIND, limits, tx)
            .await
            .unwrap(),
        rx,
    )
}

// ---------------------------------------------------------------------------------------------------------
// Logging.

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = Captured;
    fn make_writer(&'a self) -> Self::Writer {
        self.clone()
    }
}

/// Finding 7, the log: 20 000 refused requests used to write 20 000 WARN lines (3.5 MB). Now the first is
/// logged with its detail and the rest as one summary line with the counts by reason.
#[tokio::test(flavor = "current_thread")]
async fn twenty_thousand_refused_requests_write_a_few_log_lines() {
    let log = Captured::default();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(log.clone())
        .with_ansi(false)
        .with_max_level(tracing::Level::INFO)
        .finish();
    // Current-thread runtime: the receiver's tasks run on this thread, under this subscriber.
    let _guard = tracing::subscriber::set_default(subscriber);
    let (r, _rx) = receiver(Limits {
        log_interval: Duration::from_secs(600),
        ..Limits::default()
    })
    .await;
    let Registered { url, .. } = r.register("agent".into(), "t-1", None).unwrap();
    let guessed = format!("http://{}/a2a/push/{}", r.local_addr(), "0".repeat(32));
    let http = reqwest::Client::new();
    let mut senders = Vec::new();
    for worker in 0..8 {
        let http = http.clone();
        let (url, guessed) = (url.clone(), guessed.clone());
        senders.push(tokio::spawn(async move {
            for i in 0..2500 {
                // Mostly guessed addresses, some right address with a wrong token.
                let req = if i % 10 == 0 {
                    http.post(&url)
                        .header("Authorization", format!("Bearer nope-{worker}"))
                } else {
                    http.post(&guessed)
                };
                let status = req.body("{}").send().await.unwrap().status().as_u16();
                assert!(status == 404 || status == 401, "{status}");
            }
        }));
    }
    for s in senders {
        s.await.unwrap();
    }
    r.shutdown().await;
    let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
    let warns: Vec<&str> = text.lines().filter(|l| l.contains("WARN")).collect();
    assert!(
        warns.len() <= 3,
        "{} WARN lines:\n{}",
        warns.len(),
        warns.join("\n")
    );
    assert!(text.len() < 4096, "{} bytes of log", text.len());
    // Nothing hidden: the summary still says how many and why.
    assert!(
        text.contains("refused 19999 more requests")
            && text.contains("unknown path")
            && text.contains("bad token"),
        "{text}"
    );
}
