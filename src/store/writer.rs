//! The store's own thread. The UI loop hands it batches of [`Record`]s and never waits on SQLite; the writer
//! merges whatever is queued into one transaction (group commit, prepared statements) and publishes how far it
//! has committed, so the loop can draw a frame only once everything that frame shows is on disk. Reads (a
//! transcript to load, an export, the audit viewer, a prune) run on the same thread, in order with the writes,
//! so they always see everything recorded before them.
//!
//! A failing store (disk full, read-only, locked past the busy timeout) does not stop the console: the batch is
//! counted as lost, the failure is published (the UI shows it in the status bar and in the tabs that lost
//! something), and the next batch is tried afresh — a disk that has room again recovers by itself.

use std::sync::mpsc;

use super::Store;
use super::record::Record;

/// Most records merged into one transaction: big enough to amortise the commit, small enough that a frame
/// never waits long for it.
const MAX_BATCH: usize = 8192;

/// Bytes of events written between two checkpoints during a burst (what grows the WAL, give or take its
/// pages' slack); when the writer is idle for [`IDLE_CHECKPOINT`] it asks for one anyway. A checkpoint copies
/// every page the WAL holds into the file once more, on a core the console's own threads want during a burst.
/// Counted in bytes, not records: a packed flood writes about 60 bytes an event, a large artifact's chunks a
/// megabyte each. A 100 000-event flood (6 MB packed) then needs no checkpoint until it ends.
const CHECKPOINT_BYTES: usize = 16 * 1024 * 1024;

/// How long without work before the writer asks for a checkpoint.
const IDLE_CHECKPOINT: std::time::Duration = std::time::Duration::from_millis(500);

/// How far the writer has got.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriterStatus {
    /// Every record up to this sequence number is committed (or counted as lost, see `lost`).
    pub committed: u64,
    /// The last failure, while the store keeps failing (`None` once a batch succeeds again).
    pub failure: Option<String>,
    /// Records that could not be written, since start.
    pub lost: u64,
    /// The tabs those records belonged to (most recent failure).
    pub lost_tabs: Vec<String>,
}

type ReadJob = Box<dyn FnOnce(&Store) + Send>;

enum Job {
    Write { last_seq: u64, records: Vec<Record> },
    Read(ReadJob),
}

/// Work for the store's thread from elsewhere than the runtime's loop (see [`StoreWriter::jobs`]).
#[derive(Clone)]
pub struct StoreJobs(mpsc::Sender<Job>);

impl StoreJobs {
    /// Run `f` on the store's thread after everything queued so far; `false` when the thread is gone.
    pub fn run<F>(&self, f: F) -> bool
    where
        F: FnOnce(&Store) + Send + 'static,
    {
        self.0.send(Job::Read(Box::new(f))).is_ok()
    }
}

/// The handle the runtime keeps. Dropping it (or calling [`StoreWriter::stop`]) lets the thread finish what is
/// queued and exit.
pub struct StoreWriter {
    tx: Option<mpsc::Sender<Job>>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// Sequence number of the last record handed over.
    sent: u64,
    status: tokio::sync::watch::Receiver<WriterStatus>,
}

impl StoreWriter {
    /// Start the thread that owns `store`.
    pub fn spawn(store: Store) -> std::io::Result<StoreWriter> {
        let (tx, rx) = mpsc::channel::<Job>();
        let (status_tx, status) = tokio::sync::watch::channel(WriterStatus::default());
        let thread = std::thread::Builder::new()
            .name("a2a-console-store".into())
            .spawn(move || {
                let checkpoints = Checkpointer::spawn(&store);
                run(store, rx, status_tx, checkpoints)
            })?;
        Ok(StoreWriter {
            tx: Some(tx),
            thread: Some(thread),
            sent: 0,
            status,
        })
    }

    /// Hand records over; returns the sequence number the last of them will have once committed. Never blocks.
    pub fn write(&mut self, records: Vec<Record>) -> u64 {
        if records.is_empty() {
            return self.sent;
        }
        self.sent += records.len() as u64;
        let job = Job::Write {
            last_seq: self.sent,
            records,
        };
        if self.tx.as_ref().is_none_or(|tx| tx.send(job).is_err()) {
            tracing::warn!("the store writer is gone; records are kept in memory only");
        }
        self.sent
    }

    /// The sequence number of the last record handed over.
    pub fn sent(&self) -> u64 {
        self.sent
    }

    /// Where the writer stands (changes are signalled on the watch channel).
    pub fn status(&self) -> tokio::sync::watch::Receiver<WriterStatus> {
        self.status.clone()
    }

    /// Run `f` on the store's thread after everything queued so far, answering through its own channels.
    pub fn run<F>(&self, f: F)
    where
        F: FnOnce(&Store) + Send + 'static,
    {
        if let Some(sender) = &self.tx {
            let _ = sender.send(Job::Read(Box::new(f)));
        }
    }

    /// A handle a background task can give the store's thread work with, once its own work is done (a suite
    /// run keeps its report this way); `None` once the writer stopped.
    pub fn jobs(&self) -> Option<StoreJobs> {
        self.tx.clone().map(StoreJobs)
    }

    /// Write what is queued, then stop the thread.
    pub fn stop(mut self) {
        self.shut_down();
    }

    fn shut_down(&mut self) {
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for StoreWriter {
    fn drop(&mut self) {
        self.shut_down();
    }
}

/// Checkpoints on a connection and a thread of their own. SQLite's automatic checkpoint runs inside the commit
/// that crosses its threshold: in a 100 000-event flood that was one commit of ~160 ms every 64 MB (or a few
/// ms every 4 MB at the default), and the frame waiting for that commit waited with it. A WAL checkpoint may
/// run beside the writer (it copies committed pages and never blocks a commit), so it runs here.
struct Checkpointer {
    nudge: Option<mpsc::SyncSender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Checkpointer {
    /// `None` when there is no file to checkpoint (an in-memory store) or no second connection to be had; the
    /// writer then keeps SQLite's automatic checkpoints.
    fn spawn(store: &Store) -> Option<Checkpointer> {
        let side = store.side_connection()?;
        let (nudge, rx) = mpsc::sync_channel::<()>(1);
        let thread = std::thread::Builder::new()
            .name("a2a-console-checkpoint".into())
            .spawn(move || {
                while rx.recv().is_ok() {
                    if let Err(e) = side.checkpoint() {
                        tracing::debug!("checkpoint: {e}");
                    }
                }
            })
            .ok()?;
        if let Err(e) = store.set_autocheckpoint(0) {
            tracing::debug!("wal_autocheckpoint: {e}");
        }
        Some(Checkpointer {
            nudge: Some(nudge),
            thread: Some(thread),
        })
    }

    /// Ask for a checkpoint; one already asked for and not yet started covers this one too.
    fn request(&self) {
        if let Some(n) = &self.nudge {
            let _ = n.try_send(());
        }
    }

    fn stop(mut self) {
        self.nudge = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn run(
    store: Store,
    rx: mpsc::Receiver<Job>,
    status_tx: tokio::sync::watch::Sender<WriterStatus>,
    checkpoints: Option<Checkpointer>,
) {
    let checkpoint = |store: &Store| match &checkpoints {
        Some(c) => c.request(),
        None => {
            if let Err(e) = store.checkpoint() {
                tracing::debug!("checkpoint: {e}");
            }
        }
    };
    let mut since_checkpoint = 0usize;
    let mut cache = super::batch::WriterCache::default();
    let mut status = WriterStatus::default();
    // A read taken off the queue while merging writes waits for those writes to commit.
    let mut pending_read: Option<ReadJob> = None;
    let mut dirty = false;
    loop {
        let job = match pending_read.take() {
            Some(read) => Job::Read(read),
            None => match rx.recv_timeout(IDLE_CHECKPOINT) {
                Ok(job) => job,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    // Quiet for a moment: a good time to checkpoint, off everyone's path.
                    if std::mem::take(&mut dirty) {
                        since_checkpoint = 0;
                        checkpoint(&store);
                    }
                    continue;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    if let Some(c) = checkpoints {
                        c.stop();
                    }
                    // The last word: leave the WAL folded into the file for whoever opens it next.
                    let _ = store.checkpoint();
                    return;
                }
            },
        };
        let (mut last_seq, mut batch) = match job {
            Job::Read(f) => {
                f(&store);
                continue;
            }
            Job::Write { last_seq, records } => (last_seq, records),
        };
        while batch.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(Job::Write {
                    last_seq: seq,
                    records,
                }) => {
                    last_seq = seq;
                    batch.extend(records);
                }
                Ok(Job::Read(f)) => {
                    pending_read = Some(f);
                    break;
                }
                Err(_) => break,
            }
        }
        dirty = true;
        match store.write_batch(&batch, &mut cache) {
            Ok(()) => {
                if status.failure.take().is_some() {
                    tracing::info!("the store is writable again");
                }
            }
            Err(e) => {
                let message = e.to_string();
                if status.failure.as_deref() != Some(message.as_str()) {
                    tracing::warn!(
                        "the store failed ({message}); the console keeps working in memory"
                    );
                }
                status.lost += batch.len() as u64;
                let mut tabs: Vec<String> = batch
                    .iter()
                    .filter_map(|r| r.tab().map(str::to_string))
                    .collect();
                tabs.sort();
                tabs.dedup();
                status.lost_tabs = tabs;
                status.failure = Some(message);
            }
        }
        since_checkpoint += cache.take_written();
        if since_checkpoint >= CHECKPOINT_BYTES {
            since_checkpoint = 0;
            checkpoint(&store);
        }
        status.committed = last_seq;
        let _ = status_tx.send(status.clone());
    }
}
