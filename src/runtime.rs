//! The event loop: sleeps until something happens (no unconditional tick), applies messages before terminal
//! input, coalesces bursts into at most ~60 frames a second, and runs the effects `update` asks for as
//! background tasks that report back over the message channel.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::{Stream, StreamExt};
use ratatui::Terminal;
use ratatui::backend::Backend;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::task::JoinHandle;

use crate::app::msg::{Effect, Msg, StreamItem};
use crate::app::state::{AgentInfo, App};
use crate::app::task::TabId;
use crate::app::update::update;
use crate::remote::agent::{self, Connected};
use crate::remote::card::CardFetcher;
use crate::remote::error::classify;

/// The shortest time between two frames (~60 fps).
pub const FRAME: Duration = Duration::from_millis(16);
/// The animation tick while something is live.
const TICK: Duration = Duration::from_millis(250);

/// Owns the I/O side: HTTP client, connected agents, running streams.
pub struct Runtime {
    tx: UnboundedSender<Msg>,
    http: reqwest::Client,
    fetcher: Arc<CardFetcher>,
    clients: Arc<Mutex<HashMap<usize, Arc<Connected>>>>,
    streams: HashMap<TabId, JoinHandle<()>>,
    config_path: Option<std::path::PathBuf>,
    /// Frames drawn, for tests and benchmarks.
    pub frames: u64,
    /// Messages applied, for tests and benchmarks.
    pub messages: u64,
    highlighter: crate::highlight::Highlighter,
    /// When set, the text of every drawn frame is published here (headless tests wait on it).
    pub screen: Option<tokio::sync::watch::Sender<String>>,
}

impl Runtime {
    /// `syntax_theme` is "dark" or "light", for code highlighting.
    pub fn new(
        config_path: Option<std::path::PathBuf>,
        syntax_theme: &str,
    ) -> Result<(Self, UnboundedReceiver<Msg>), String> {
        let (tx, rx) = unbounded_channel();
        // Highlighting results come back on their own channel and are forwarded as messages.
        let (done_tx, mut done_rx) = unbounded_channel();
        let highlighter = crate::highlight::Highlighter::spawn(done_tx, syntax_theme);
        let forward = tx.clone();
        tokio::spawn(async move {
            while let Some(done) = done_rx.recv().await {
                if forward.send(Msg::Highlighted(done)).is_err() {
                    break;
                }
            }
        });
        let http =
            crate::remote::client::http_client(Duration::from_secs(10)).map_err(|e| e.message)?;
        Ok((
            Self {
                tx,
                fetcher: Arc::new(CardFetcher::new(http.clone())),
                http,
                clients: Arc::new(Mutex::new(HashMap::new())),
                streams: HashMap::new(),
                config_path,
                frames: 0,
                messages: 0,
                screen: None,
                highlighter,
            },
            rx,
        ))
    }

    pub fn sender(&self) -> UnboundedSender<Msg> {
        self.tx.clone()
    }

    fn client(&self, agent: usize) -> Option<Arc<Connected>> {
        self.clients
            .lock()
            .ok()
            .and_then(|m| m.get(&agent).cloned())
    }

    /// Start what an effect asks for; never blocks.
    pub fn run_effect(&mut self, effect: Effect) {
        let tx = self.tx.clone();
        match effect {
            Effect::LoadAgent {
                agent,
                target,
                refresh,
            } => {
                let (http, fetcher, clients) = (
                    self.http.clone(),
                    self.fetcher.clone(),
                    self.clients.clone(),
                );
                tokio::spawn(async move {
                    let result = match agent::connect_with(&target, &http, &fetcher, refresh).await
                    {
                        Ok(conn) => {
                            let info = AgentInfo::new(
                                &conn.label,
                                conn.card.clone(),
                                conn.selected.clone(),
                            );
                            if let Ok(mut m) = clients.lock() {
                                m.insert(agent, Arc::new(conn));
                            }
                            Ok(Box::new(info))
                        }
                        Err(e) => Err(e.message),
                    };
                    let _ = tx.send(Msg::AgentLoaded { agent, result });
                });
            }
            Effect::Send {
                tab,
                generation,
                agent,
                message,
                stream,
            } => {
                let Some(conn) = self.client(agent) else {
                    let _ = tx.send(Msg::Reply {
                        tab,
                        generation,
                        result: Err("the agent is not connected (its card did not load)".into()),
                    });
                    return;
                };
                let handle = tokio::spawn(async move {
                    let m = *message;
                    let msg = match crate::cli::build_message(
                        m.text,
                        m.task_id,
                        m.context_id,
                        &m.files,
                    ) {
                        Ok(msg) => msg,
                        Err(e) => {
                            let _ = tx.send(Msg::Reply {
                                tab,
                                generation,
                                result: Err(e.message),
                            });
                            return;
                        }
                    };
                    let req = a2a::SendMessageRequest {
                        message: msg,
                        configuration: None,
                        metadata: None,
                        tenant: None,
                    };
                    if stream {
                        match conn.client.send_streaming_message(&req).await {
                            Ok(events) => pump(events, &tx, tab, generation).await,
                            Err(e) => {
                                let _ = tx.send(Msg::Reply {
                                    tab,
                                    generation,
                                    result: Err(classify(&e).message),
                                });
                            }
                        }
                    } else {
                        let result = conn
                            .client
                            .send_message(&req)
                            .await
                            .map_err(|e| classify(&e).message);
                        let _ = tx.send(Msg::Reply {
                            tab,
                            generation,
                            result,
                        });
                    }
                });
                if let Some(old) = self.streams.insert(tab, handle) {
                    old.abort();
                }
            }
            Effect::Subscribe {
                tab,
                generation,
                agent,
                task_id,
            } => {
                let Some(conn) = self.client(agent) else {
                    return;
                };
                let handle = tokio::spawn(async move {
                    let req = a2a::SubscribeToTaskRequest {
                        id: task_id.clone(),
                        tenant: None,
                    };
                    match conn.client.subscribe_to_task(&req).await {
                        Ok(events) => pump(events, &tx, tab, generation).await,
                        Err(_) => {
                            // No streaming (or the task already ended): fall back to a plain GetTask.
                            let get = a2a::GetTaskRequest {
                                id: task_id,
                                history_length: Some(0),
                                tenant: None,
                            };
                            let result = conn
                                .client
                                .get_task(&get)
                                .await
                                .map(a2a::SendMessageResponse::Task)
                                .map_err(|e| classify(&e).message);
                            let _ = tx.send(Msg::Reply {
                                tab,
                                generation,
                                result,
                            });
                        }
                    }
                });
                if let Some(old) = self.streams.insert(tab, handle) {
                    old.abort();
                }
            }
            Effect::Cancel {
                tab,
                agent,
                task_id,
            } => {
                let Some(conn) = self.client(agent) else {
                    return;
                };
                tokio::spawn(async move {
                    let req = a2a::CancelTaskRequest {
                        id: task_id,
                        metadata: None,
                        tenant: None,
                    };
                    let result = conn
                        .client
                        .cancel_task(&req)
                        .await
                        .map_err(|e| classify(&e).message);
                    let _ = tx.send(Msg::Canceled { tab, result });
                });
            }
            Effect::AddAgentToConfig { url } => {
                let path = self
                    .config_path
                    .clone()
                    .or_else(crate::config::default_path);
                tokio::task::spawn_blocking(move || {
                    let r = match path {
                        Some(p) => crate::config_edit::add_agent(&p, &url)
                            .map(|()| format!("added {url} to {}", p.display())),
                        None => Err("no config file location".into()),
                    };
                    let _ = tx.send(Msg::ConfigSaved(r));
                });
            }
            Effect::RemoveAgentFromConfig { url } => {
                let path = self.config_path.clone();
                tokio::task::spawn_blocking(move || {
                    let r = match path {
                        Some(p) => crate::config_edit::remove_agent(&p, &url).map(|removed| {
                            if removed {
                                format!("removed {url} from {}", p.display())
                            } else {
                                format!("{url} was not in {}", p.display())
                            }
                        }),
                        None => Ok("no config file to update".into()),
                    };
                    let _ = tx.send(Msg::ConfigSaved(r));
                });
            }
            Effect::SaveFile { path, bytes } => {
                tokio::spawn(async move {
                    let r = tokio::fs::write(&path, bytes)
                        .await
                        .map(|()| format!("saved to {}", path.display()))
                        .map_err(|e| format!("cannot save to {}: {e}", path.display()));
                    let _ = tx.send(Msg::Saved(r));
                });
            }
            Effect::Highlight { key, lang, code } => {
                self.highlighter.request(key, lang.as_deref(), code)
            }
            Effect::Quit => {}
        }
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
        for e in initial {
            self.run_effect(e);
        }
        let mut dirty = true;
        let mut last_draw = Instant::now() - FRAME;
        let mut tick = tokio::time::interval(TICK);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut input_open = true;
        loop {
            if dirty && last_draw.elapsed() >= FRAME {
                let screen = &self.screen;
                terminal
                    .draw(|f| {
                        crate::ui::draw(f, app);
                        if let Some(tx) = screen {
                            let _ = tx.send(buffer_text(f.buffer_mut()));
                        }
                    })
                    .map_err(|e| format!("drawing failed: {e}"))?;
                self.frames += 1;
                last_draw = Instant::now();
                dirty = false;
            }
            if app.quit {
                break;
            }
            let frame_due = tokio::time::Instant::from_std(last_draw + FRAME);
            let live = app.is_live();
            tokio::select! {
                biased;
                Some(msg) = rx.recv() => {
                    self.apply(app, msg);
                    // Drain whatever else is queued before drawing: a burst becomes one frame.
                    while let Ok(msg) = rx.try_recv() {
                        self.apply(app, msg);
                    }
                    dirty = true;
                }
                ev = events.next(), if input_open => {
                    match ev {
                        Some(Ok(ev)) => {
                            if let crossterm::event::Event::Resize(w, h) = ev {
                                app.size = (w, h);
                            }
                            self.apply(app, Msg::Input(ev));
                            dirty = true;
                        }
                        Some(Err(e)) => return Err(format!("terminal input failed: {e}")),
                        None => input_open = false,
                    }
                }
                _ = tokio::time::sleep_until(frame_due), if dirty => {}
                _ = tick.tick(), if live => {
                    self.apply(app, Msg::Tick);
                    dirty = true;
                }
            }
        }
        for (_, h) in self.streams.drain() {
            h.abort();
        }
        Ok(())
    }

    fn apply(&mut self, app: &mut App, msg: Msg) {
        self.messages += 1;
        for e in update(app, msg) {
            self.run_effect(e);
        }
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

/// Forward a stream's items to the app, then say it ended.
async fn pump(
    mut events: a2a_client::BoxStream<'static, Result<a2a::StreamResponse, a2a::A2AError>>,
    tx: &UnboundedSender<Msg>,
    tab: TabId,
    generation: u64,
) {
    while let Some(item) = events.next().await {
        let item = match item {
            Ok(ev) => StreamItem::Event(Box::new(ev)),
            Err(e) => StreamItem::Error(classify(&e).message),
        };
        if tx
            .send(Msg::Stream {
                tab,
                generation,
                item,
            })
            .is_err()
        {
            return;
        }
    }
    let _ = tx.send(Msg::Stream {
        tab,
        generation,
        item: StreamItem::End,
    });
}
