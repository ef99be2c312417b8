//! The event loop. It sleeps until something happens (no unconditional tick), reads terminal input before
//! anything else so a key is never stuck behind a flood, applies at most a frame's budget of messages at a time,
//! hands what `update` asked to record to the store writer, and renders at most ~60 frames a second. A rendered
//! frame goes on screen only once the store has committed everything it shows, so nothing the screen has shown
//! is ever lost; the loop does not stop for that wait (messages keep being applied, into the next frame), so the
//! store costs the flood its CPU time, not a stall per frame. Stream messages wait, though, while the writer is
//! more than `WRITER_LAG` records behind: the backlog is what the next frame (and a key typed now) waits for.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::{Stream, StreamExt};
use ratatui::Terminal;
use ratatui::backend::Backend;
use tokio::sync::mpsc::{Receiver, UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::task::JoinHandle;

use crate::app::ids::{AgentId, TabId};
use crate::app::msg::{Effect, Msg};
use crate::app::state::App;
use crate::app::update::update;
use crate::remote::card::CardFetcher;
use crate::remote::connect::agent::Connected;
use crate::remote::connect::tls::{AgentHttp, TlsSettings};
use crate::store::record::Record;
use crate::store::writer::{StoreWriter, WriterStatus};

/// The shortest time between two frames (~60 fps).
pub const FRAME: Duration = Duration::from_millis(16);
/// The animation tick while something is live.
const TICK: Duration = Duration::from_millis(250);
/// How long one round of applying messages may take before the loop looks at input and the screen again.
const DRAIN_BUDGET: Duration = Duration::from_millis(4);
/// Stream events queued between the readers and the loop. A reader waits when it is full (back-pressure to
/// the network), so a flood cannot pile up in memory; it is deep enough that a consumer keeping up never
/// makes a server drop us (the official Python SDK evicts a subscriber 1 024 events behind).
pub const STREAM_QUEUE: usize = 2048;
/// A frame waits for the store at most this long; past it the store is reported slow and the frame drawn.
const COMMIT_WAIT: Duration = Duration::from_secs(2);
/// Stream messages wait in their queue while the store writer is this many records behind. A frame goes on
/// screen once the writer has committed what it shows, so the writer's backlog is the next frame's wait:
/// without a bound, a flood applied faster than the writer commits made every frame (and every key typed)
/// wait longer than the one before. A few milliseconds of the writer's work; the readers feel it as
/// back-pressure from the bounded queue, as they do from a slow screen.
const WRITER_LAG: u64 = 2048;
/// … or this many bytes of events behind: 2 048 records of 1 MiB chunks would be 2 GiB waiting for the disk.
const WRITER_LAG_BYTES: usize = 32 * 1024 * 1024;

/// A frame rendered into the terminal's buffer, waiting for the store before it goes on screen.
struct UnshownFrame {
    /// The writer's sequence number when it was rendered: everything it shows is at or below it.
    needs: u64,
    /// Its text, for [`Runtime::screen`].
    text: Option<String>,
    rendered: Instant,
    /// The status message it shows: once on screen, that message's expiry clock starts.
    status: Option<crate::app::state::Status>,
}

/// The agents with clients of their own, and the TLS settings each was built from.
pub(super) type OwnHttp = Mutex<HashMap<AgentId, (TlsSettings, AgentHttp)>>;

/// Owns the I/O side: HTTP client, connected agents, running streams, the store writer.
pub struct Runtime {
    pub(super) tx: UnboundedSender<Msg>,
    /// Stream readers send here (bounded in events, see [`STREAM_QUEUE`], and in bytes, see
    /// [`super::stream_budget`]).
    pub(super) stream_tx: super::stream_budget::StreamTx,
    stream_budget: Arc<super::stream_budget::StreamBudget>,
    stream_rx: Option<Receiver<Msg>>,
    pub(super) http: reqwest::Client,
    pub(super) fetcher: Arc<CardFetcher>,
    /// Agents with `[agents.tls]` have clients of their own, built on their first load and kept while their
    /// settings stay the same (a refresh reuses them; an edited config builds new ones).
    pub(super) own_http: Arc<OwnHttp>,
    pub(super) clients: Arc<Mutex<HashMap<AgentId, Arc<Connected>>>>,
    pub(super) streams: HashMap<TabId, JoinHandle<()>>,
    pub(super) config_path: Option<std::path::PathBuf>,
    /// Frames drawn, for tests and benchmarks.
    pub frames: u64,
    /// Messages applied, for tests and benchmarks.
    pub messages: u64,
    /// Time rendered frames spent waiting for the store to commit what they show (benchmarks report it).
    pub held: Duration,
    /// A frame rendered but not yet on screen.
    unshown: Option<UnshownFrame>,
    pub(super) highlighter: crate::markup::highlight::Highlighter,
    /// The store's writer thread, when there is a store.
    pub writer: Option<StoreWriter>,
    /// Records `update` asked for that are not yet handed to the writer (sent once per round).
    pending: Vec<Record>,
    /// Event bytes handed to the writer, by the sequence number of each hand-over's last record, until committed
    /// (see [`WRITER_LAG_BYTES`]).
    unwritten: std::collections::VecDeque<(u64, usize)>,
    /// Each agent's target (headers, auth), for requests that need a credential of their own (approvals).
    pub(super) targets: HashMap<AgentId, crate::remote::connect::agent::AgentTarget>,
    /// The stop switch of each agent's running suite (`U` while it runs).
    pub(super) suite_stops: HashMap<AgentId, tokio::sync::watch::Sender<bool>>,
    /// Sign-ins in progress, by what they are for (setting one cancels its polling or its listener).
    pub(super) oauth_cancels:
        HashMap<crate::app::state::SignInFor, tokio::sync::watch::Sender<bool>>,
    /// Where a pasted redirect address goes, per code-flow sign-in running.
    pub(super) code_pastes: HashMap<
        crate::app::state::SignInFor,
        tokio::sync::mpsc::UnboundedSender<crate::remote::auth::Secret>,
    >,
    /// The local webhook receiver for push notifications, when enabled.
    pub push: Option<crate::push::PushReceiver<AgentId>>,
    /// Ring the real terminal's bell (off for headless runs).
    pub bell_enabled: bool,
    /// Write OSC 52 copies to the real terminal (off for headless runs, which answer "no terminal").
    pub clipboard_enabled: bool,
    /// When set, the text of every drawn frame is published here (headless tests wait on it).
    pub screen: Option<tokio::sync::watch::Sender<String>>,
    /// When set, each frame's draw time is published here (benchmarks measure key-to-frame latency with it).
    pub drawn: Option<tokio::sync::watch::Sender<Instant>>,
    /// The embedded demo agent when the user added it from inside the console (`D`); shut down at exit.
    pub(super) demo: Arc<Mutex<Option<crate::demo::DemoAgent>>>,
}

impl Runtime {
    /// The demo agent the user added from inside the console, for shutting it down after the loop ends.
    pub fn take_demo(&self) -> Option<crate::demo::DemoAgent> {
        self.demo.lock().ok().and_then(|mut d| d.take())
    }

    /// `syntax_theme` is "dark" or "light" (the console theme's background), for code highlighting.
    pub fn new(
        config_path: Option<std::path::PathBuf>,
        syntax_theme: &str,
    ) -> Result<(Self, UnboundedReceiver<Msg>), String> {
        let (tx, rx) = unbounded_channel();
        // Sign-in events reach the audit log through this console's store writer, never a connection of
        // their own. The sink is the process's: the console started last gets them (one per process but in
        // tests).
        let audit_tx = tx.clone();
        crate::remote::auth::token_store::record_sign_ins_with(move |e| {
            let _ = audit_tx.send(Msg::SignInAudited(Box::new(e)));
        });
        let (stream_tx, stream_rx) = tokio::sync::mpsc::channel(STREAM_QUEUE);
        let stream_budget = Arc::new(super::stream_budget::StreamBudget::new(
            super::stream_budget::STREAM_BYTES,
        ));
        let stream_tx = super::stream_budget::StreamTx::new(stream_tx, stream_budget.clone());
        // Highlighting results come back on their own channel and are forwarded as messages.
        let (done_tx, mut done_rx) = unbounded_channel();
        let highlighter = crate::markup::highlight::Highlighter::spawn(done_tx, syntax_theme);
        let forward = tx.clone();
        tokio::spawn(async move {
            while let Some(done) = done_rx.recv().await {
                if forward.send(Msg::Highlighted(done)).is_err() {
                    break;
                }
            }
        });
        let http =
            crate::remote::http::http_client(Duration::from_secs(10)).map_err(|e| e.message)?;
        Ok((
            Self {
                tx,
                stream_tx,
                stream_budget,
                stream_rx: Some(stream_rx),
                fetcher: Arc::new(
                    CardFetcher::new(Duration::from_secs(10)).map_err(|e| e.message)?,
                ),
                http,
                own_http: Arc::default(),
                clients: Arc::new(Mutex::new(HashMap::new())),
                streams: HashMap::new(),
                config_path,
                frames: 0,
                messages: 0,
                held: Duration::ZERO,
                unshown: None,
                screen: None,
                drawn: None,
                demo: Arc::default(),
                targets: HashMap::new(),
                writer: None,
                pending: Vec::new(),
                unwritten: std::collections::VecDeque::new(),
                bell_enabled: false,
                clipboard_enabled: false,
                push: None,
                oauth_cancels: HashMap::new(),
                suite_stops: HashMap::new(),
                code_pastes: HashMap::new(),
                highlighter,
            },
            rx,
        ))
    }

    pub fn sender(&self) -> UnboundedSender<Msg> {
        self.tx.clone()
    }

    /// Start the push receiver; accepted notifications come back as `Msg::Push`.
    pub async fn start_push(
        &mut self,
        bind: std::net::SocketAddr,
    ) -> Result<std::net::SocketAddr, String> {
        self.start_push_with(bind, crate::push::Limits::default())
            .await
    }

    /// [`start_push`](Self::start_push) with other receiver limits (tests use short timeouts).
    pub async fn start_push_with(
        &mut self,
        bind: std::net::SocketAddr,
        limits: crate::push::Limits,
    ) -> Result<std::net::SocketAddr, String> {
        let (ptx, mut prx) = unbounded_channel::<crate::push::PushEvent<AgentId>>();
        let receiver = crate::push::PushReceiver::start_with(bind, limits, ptx).await?;
        let addr = receiver.local_addr();
        let tx = self.tx.clone();
        tokio::spawn(async move {
            while let Some(p) = prx.recv().await {
                if tx
                    .send(Msg::Push {
                        agent: p.agent,
                        task_id: p.task_id,
                        event: Box::new(p.event),
                    })
                    .is_err()
                {
                    break;
                }
            }
        });
        self.push = Some(receiver);
        Ok(addr)
    }

    /// Seed the card cache with cards from the store, so the first fetch revalidates (`If-None-Match`).
    pub fn prime_cards(&self, cards: Vec<crate::remote::card::FetchedCard>) {
        for c in cards {
            self.fetcher.prime(c);
        }
    }

    /// Has the store committed everything handed to it (or is there nothing to wait for)?
    fn committed(&self, status: &WriterStatus, needs: u64) -> bool {
        match &self.writer {
            Some(_) => status.committed >= needs || status.failure.is_some(),
            None => true,
        }
    }

    /// Is the writer too far behind to take more of a flood (see [`WRITER_LAG`])? Never while it is failing:
    /// then records are counted as lost at once and nothing waits for it.
    fn writer_behind(&mut self, status: &WriterStatus) -> bool {
        while self
            .unwritten
            .front()
            .is_some_and(|(seq, _)| *seq <= status.committed)
        {
            self.unwritten.pop_front();
        }
        let bytes: usize = self.unwritten.iter().map(|(_, b)| b).sum();
        self.writer.as_ref().is_some_and(|w| {
            status.failure.is_none()
                && (w.sent().saturating_sub(status.committed) > WRITER_LAG
                    || bytes > WRITER_LAG_BYTES)
        })
    }

    /// Drive the console until the user quits. `events` is the terminal's event stream (a channel in tests).
    pub async fn run<B, E>(
        &mut self,
        app: &mut App,
        terminal: &mut Terminal<B>,
        mut events: E,
        mut rx: UnboundedReceiver<Msg>,
        initial: Vec<Effect>,
    ) -> Result<(), String>
    where
        B: Backend,
        E: Stream<Item = std::io::Result<crossterm::event::Event>> + Unpin,
    {
        let Some(mut srx) = self.stream_rx.take() else {
            return Err("the console's event loop is already running".into());
        };
        let mut store = self.start(app, initial);
        let mut reported = WriterStatus::default();
        let mut dirty = true;
        // So the first frame is drawn at once (checked: `Instant` cannot go below the clock's start).
        let mut last_render = Instant::now()
            .checked_sub(FRAME)
            .unwrap_or_else(Instant::now);
        let mut tick = tokio::time::interval(TICK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut input_open = true;
        loop {
            let status = store.borrow_and_update().clone();
            self.show(
                app,
                terminal,
                &status,
                &mut reported,
                &mut dirty,
                &mut last_render,
            )?;
            if app.quit {
                break;
            }
            // Messages keep being applied while a frame waits for the store: the frame was rendered from the
            // state it shows, so what arrives meanwhile only goes into the next one.
            let waiting = self.unshown.is_some();
            let frame_due = tokio::time::Instant::from_std(last_render + FRAME);
            let commit_deadline = tokio::time::Instant::from_std(
                self.unshown
                    .as_ref()
                    .map_or_else(Instant::now, |f| f.rendered)
                    + COMMIT_WAIT,
            );
            let live = app.is_live();
            // The status bar's message goes at its deadline: a timer only while one is shown.
            let status_due = app.status_deadline().map(tokio::time::Instant::from_std);
            // A guarded dialog says when its keys go live: a timer only while a guard holds.
            let guard_due = app
                .key_guard
                .as_ref()
                .and_then(crate::app::guard::KeyGuard::due)
                .map(tokio::time::Instant::from_std);
            // Drafts that changed are written a second after the first key that changed them.
            let drafts_due = app.drafts.save_due.map(tokio::time::Instant::from_std);
            let behind = self.writer_behind(&status);
            tokio::select! {
                biased;
                ev = events.next(), if input_open => {
                    match ev {
                        Some(Ok(ev)) => {
                            if let crossterm::event::Event::Resize(w, h) = ev {
                                app.size = (w, h);
                            }
                            self.apply(app, Msg::Input(ev));
                            self.flush_app(app);
                            dirty = true;
                        }
                        Some(Err(e)) => return Err(format!("terminal input failed: {e}")),
                        None => input_open = false,
                    }
                }
                changed = store.changed(), if waiting || behind => {
                    if changed.is_err() {
                        // The writer is gone: nothing to wait for any more.
                        self.writer = None;
                    }
                }
                _ = tokio::time::sleep_until(commit_deadline), if waiting => {}
                Some(msg) = rx.recv() => {
                    self.apply(app, msg);
                    self.drain(app, &mut rx, &mut srx, &store);
                    dirty = true;
                }
                Some(msg) = srx.recv(), if !behind => {
                    self.apply(app, msg);
                    self.drain(app, &mut rx, &mut srx, &store);
                    dirty = true;
                }
                _ = tokio::time::sleep_until(frame_due), if dirty && !waiting => {}
                _ = tokio::time::sleep_until(status_due.unwrap_or(frame_due)), if status_due.is_some() => {
                    self.apply(app, Msg::StatusDue(Instant::now()));
                    dirty = true;
                }
                _ = tokio::time::sleep_until(guard_due.unwrap_or(frame_due)), if guard_due.is_some() => {
                    self.apply(app, Msg::KeyGuardDue(Instant::now()));
                    dirty = true;
                }
                _ = tokio::time::sleep_until(drafts_due.unwrap_or(frame_due)), if drafts_due.is_some() => {
                    self.apply(app, Msg::DraftsDue);
                    self.flush_app(app);
                }
                _ = tick.tick(), if live => {
                    self.apply(app, Msg::Tick);
                    self.flush_app(app);
                    dirty = true;
                }
            }
        }
        self.finish(app);
        Ok(())
    }

    /// Before the loop: the initial effects started and what the app recorded so far handed over. Returns the
    /// store writer's status (a status that never changes without a store).
    fn start(
        &mut self,
        app: &mut App,
        initial: Vec<Effect>,
    ) -> tokio::sync::watch::Receiver<WriterStatus> {
        for e in initial {
            self.run_effect(e);
        }
        self.pending.extend(app.take_records());
        self.flush_app(app);
        self.writer
            .as_ref()
            .map(StoreWriter::status)
            .unwrap_or_else(|| tokio::sync::watch::channel(WriterStatus::default()).1)
    }

    /// One look at the screen: a change in the store's health reported, the rendered frame put on screen once
    /// the store holds everything it shows (bounded wait), and the next frame rendered when one is due.
    fn show<B: Backend>(
        &mut self,
        app: &mut App,
        terminal: &mut Terminal<B>,
        status: &WriterStatus,
        reported: &mut WriterStatus,
        dirty: &mut bool,
        last_render: &mut Instant,
    ) -> Result<(), String> {
        if status.failure != reported.failure || status.lost != reported.lost {
            *reported = status.clone();
            self.apply(app, Msg::StoreStatus(status.clone()));
            self.flush_app(app);
            *dirty = true;
        }
        if let Some(frame) = &self.unshown {
            let waited = frame.rendered.elapsed();
            if self.committed(status, frame.needs) || waited >= COMMIT_WAIT {
                self.present(app, terminal)?;
                self.held += waited;
                if waited >= COMMIT_WAIT {
                    app.set_status(
                        "the local store is slow: the screen may be ahead of it",
                        true,
                    );
                    *dirty = true;
                }
            }
        }
        if *dirty && self.unshown.is_none() && last_render.elapsed() >= FRAME {
            self.render(app, terminal)?;
            *last_render = Instant::now();
            *dirty = false;
            if self
                .unshown
                .as_ref()
                .is_some_and(|f| self.committed(status, f.needs))
            {
                self.present(app, terminal)?;
            }
        }
        Ok(())
    }

    /// After the loop: the streams stopped, the drafts kept, and everything handed over written before the
    /// console exits.
    fn finish(&mut self, app: &mut App) {
        for (_, h) in self.streams.drain() {
            h.abort();
        }
        self.pending
            .extend(crate::app::update::draft_records(app, true));
        self.flush_app(app);
        if let Some(w) = self.writer.take() {
            w.stop();
        }
    }

    /// Render the app into the terminal's next buffer without putting it on screen: [`Runtime::present`] does
    /// that once the store has committed what the frame shows.
    fn render<B: Backend>(
        &mut self,
        app: &mut App,
        terminal: &mut Terminal<B>,
    ) -> Result<(), String> {
        // Everything this frame shows is handed to the writer before its sequence number is taken.
        self.flush_app(app);
        terminal
            .autoresize()
            .map_err(|e| format!("drawing failed: {e}"))?;
        let mut frame = terminal.get_frame();
        crate::ui::draw(&mut frame, app);
        // A dialog that can decide something goes on screen with this frame (at most a store commit later): its
        // key guard's time starts now; keys typed before it was visible never count.
        app.frame_drawn(Instant::now());
        // What only the renderer can measure (wrapped pages), so the next scroll key stops at the last page.
        app.measured = crate::ui::measure(app);
        let text = self
            .screen
            .as_ref()
            .map(|_| buffer_text(frame.buffer_mut()));
        self.unshown = Some(UnshownFrame {
            needs: self.writer.as_ref().map_or(0, StoreWriter::sent),
            text,
            rendered: Instant::now(),
            status: app.status.clone(),
        });
        Ok(())
    }

    /// Put the rendered frame on screen.
    fn present<B: Backend>(
        &mut self,
        app: &mut App,
        terminal: &mut Terminal<B>,
    ) -> Result<(), String> {
        let Some(frame) = self.unshown.take() else {
            return Ok(());
        };
        // The terminal's cursor stays hidden: the compose box draws its own (a styled cell), so the frame
        // never sets one.
        terminal
            .apply_buffer()
            .map_err(|e| format!("drawing failed: {e}"))?;
        if let (Some(tx), Some(text)) = (&self.screen, frame.text) {
            let _ = tx.send(text);
        }
        if let Some(d) = &self.drawn {
            let _ = d.send(Instant::now());
        }
        self.frames += 1;
        // The status the frame showed is on screen now (unless another replaced it meanwhile, which is
        // still unseen).
        if frame.status.is_some() && frame.status == app.status {
            app.status_shown(Instant::now());
        }
        Ok(())
    }

    /// Apply what else is queued, for at most [`DRAIN_BUDGET`]: a burst becomes one frame, but a flood never
    /// keeps the loop from looking at input and drawing. Stream messages stop once the writer is
    /// [`WRITER_LAG`] behind. Then hand the round's records to the writer.
    fn drain(
        &mut self,
        app: &mut App,
        rx: &mut UnboundedReceiver<Msg>,
        srx: &mut Receiver<Msg>,
        store: &tokio::sync::watch::Receiver<WriterStatus>,
    ) {
        let start = Instant::now();
        let mut n = 0u32;
        let mut streams_open = !self.writer_behind(&store.borrow());
        loop {
            let msg = match rx.try_recv() {
                Ok(m) => m,
                Err(_) if streams_open => match srx.try_recv() {
                    Ok(m) => m,
                    Err(_) => break,
                },
                Err(_) => break,
            };
            self.apply(app, msg);
            n += 1;
            // Reading the clock costs more than applying a small message: look every 32.
            if n.is_multiple_of(32) && start.elapsed() >= DRAIN_BUDGET {
                break;
            }
            // Hand records over as they come, so the writer works alongside and the next frame waits only
            // for the last few.
            if n.is_multiple_of(256) {
                self.flush_app(app);
                streams_open = !self.writer_behind(&store.borrow());
            }
        }
        self.flush_app(app);
    }

    /// Hand the round's records to the writer, with the tab headers that changed (nothing to do without a
    /// store).
    fn flush_app(&mut self, app: &mut App) {
        self.pending.extend(app.take_header_rows());
        self.flush();
    }

    fn flush(&mut self) {
        if self.pending.is_empty() {
            return;
        }
        let records = std::mem::take(&mut self.pending);
        let bytes: usize = records
            .iter()
            .map(|r| match r {
                Record::Event { event, .. } => crate::app::kept::approx_size(event),
                _ => 0,
            })
            .sum();
        if let Some(w) = self.writer.as_mut() {
            let seq = w.write(records);
            if bytes > 0 {
                self.unwritten.push_back((seq, bytes));
            }
        }
    }

    fn apply(&mut self, app: &mut App, msg: Msg) {
        self.messages += 1;
        // Taken off the stream queue: its bytes no longer hold a reader back.
        let queued = super::stream_budget::msg_bytes(&msg);
        if queued > 0 {
            self.stream_budget.release(queued);
        }
        if let Some(r) = crate::tui::persist::audit_response(app, &msg) {
            self.pending.push(r);
        }
        for e in update(app, msg) {
            match e {
                Effect::Record(r) => self.pending.push(r),
                Effect::Audit { tab, line } => self
                    .pending
                    .push(crate::tui::persist::decision(app, tab, &line)),
                other => {
                    if let Some(r) = crate::tui::persist::audit_request(app, &other) {
                        self.pending.push(r);
                    }
                    self.run_effect(other);
                }
            }
        }
        // What the tabs accepted, in the order they accepted it (after the effects' own records, which are
        // about requests being sent).
        app.drain_records(&mut self.pending);
    }
}

/// A buffer's characters, row by row (for tests and screenshots).
pub fn buffer_text(buf: &ratatui::buffer::Buffer) -> String {
    let area = buf.area;
    let mut out = String::with_capacity((area.width as usize + 1) * area.height as usize);
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            if let Some(cell) = buf.cell((x, y)) {
                out.push_str(cell.symbol());
            }
        }
        out.push('\n');
    }
    out
}
