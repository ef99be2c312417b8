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
    highlighter: crate::markup::highlight::Highlighter,
    /// The store's writer: stream events, user messages, task records, drafts, audit entries.
    pub persist: crate::tui::persist::Persister,
    /// Each agent's target (headers, auth), for requests that need a credential of their own (approvals).
    targets: HashMap<usize, crate::remote::agent::AgentTarget>,
    /// Device-flow sign-ins in progress, by tab (setting one cancels its polling).
    oauth_cancels: HashMap<TabId, tokio::sync::watch::Sender<bool>>,
    /// The local webhook receiver for push notifications, when enabled.
    pub push: Option<crate::remote::push::PushReceiver>,
    /// Ring the real terminal's bell (off for headless runs).
    pub bell_enabled: bool,
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
                targets: HashMap::new(),
                persist: crate::tui::persist::Persister::disabled(),
                bell_enabled: false,
                push: None,
                oauth_cancels: HashMap::new(),
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
        let (ptx, mut prx) = unbounded_channel::<crate::remote::push::PushEvent>();
        let receiver = crate::remote::push::PushReceiver::start(bind, ptx).await?;
        let addr = receiver.local_addr();
        let tx = self.tx.clone();
        tokio::spawn(async move {
            while let Some(p) = prx.recv().await {
                if tx
                    .send(Msg::Push {
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

    /// Run one request for `agent` in the background; what `f` returns is sent to the app. Nothing happens
    /// when the agent is not connected (its card never loaded).
    fn call<F, Fut>(&self, agent: usize, f: F)
    where
        F: FnOnce(Arc<Connected>) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = Option<Msg>> + Send + 'static,
    {
        let Some(conn) = self.client(agent) else {
            return;
        };
        let tx = self.tx.clone();
        tokio::spawn(async move {
            if let Some(msg) = f(conn).await {
                let _ = tx.send(msg);
            }
        });
    }

    /// Seed the card cache with cards from the store, so the first fetch revalidates (`If-None-Match`).
    pub fn prime_cards(&self, cards: Vec<crate::remote::card::FetchedCard>) {
        for c in cards {
            self.fetcher.prime(c);
        }
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
                self.targets.insert(agent, (*target).clone());
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
                    let msg = match crate::remote::message::build_message(
                        m.text,
                        m.task_id,
                        m.context_id,
                        &m.files,
                    ) {
                        Ok(mut msg) => {
                            msg.message_id = m.message_id;
                            msg
                        }
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
            } => self.subscribe(tab, generation, agent, task_id, 0),
            Effect::Resubscribe {
                tab,
                generation,
                agent,
                task_id,
                delay_ms,
            } => self.subscribe(tab, generation, agent, task_id, delay_ms),
            Effect::ImportTasks {
                agent,
                state,
                context,
            } => {
                self.call(agent, move |conn| async move {
                    let req = a2a::ListTasksRequest {
                        context_id: context,
                        status: state,
                        page_size: Some(50),
                        page_token: None,
                        history_length: Some(0),
                        status_timestamp_after: None,
                        include_artifacts: Some(true),
                        tenant: None,
                    };
                    let result = conn
                        .client
                        .list_tasks(&req)
                        .await
                        .map(|r| r.tasks)
                        .map_err(|e| classify(&e).message);
                    Some(Msg::Imported { agent, result })
                });
            }
            Effect::RefreshTask {
                tab,
                agent,
                task_id,
            } => {
                self.call(agent, move |conn| async move {
                    let req = a2a::GetTaskRequest {
                        id: task_id,
                        history_length: Some(0),
                        tenant: None,
                    };
                    let result = conn
                        .client
                        .get_task(&req)
                        .await
                        .map_err(|e| classify(&e).message);
                    Some(Msg::Refreshed { tab, result })
                });
            }
            Effect::Approve {
                tab,
                generation,
                agent,
                task_id,
                context_id,
                credential,
            } => {
                let (Some(conn), Some(target)) =
                    (self.client(agent), self.targets.get(&agent).cloned())
                else {
                    return;
                };
                let http = self.http.clone();
                let handle = tokio::spawn(async move {
                    let result =
                        approve_request(&conn, &target, http, credential, task_id, context_id)
                            .await;
                    let _ = tx.send(Msg::Reply {
                        tab,
                        generation,
                        result,
                    });
                });
                if let Some(old) = self.streams.insert(tab, handle) {
                    old.abort();
                }
            }
            Effect::Audit { line, .. } => {
                // Without the app at hand (start-up effects): the log still gets it.
                tracing::info!(target: "a2a_console::audit", "{line}");
            }
            Effect::RegisterPush {
                tab,
                agent,
                task_id,
            } => {
                let (Some(conn), Some(receiver)) = (self.client(agent), self.push.as_ref()) else {
                    return;
                };
                let cfg = receiver.config_for(&task_id);
                tokio::spawn(async move {
                    let result = conn
                        .client
                        .create_push_config(&cfg)
                        .await
                        .map(|c| vec![c])
                        .map_err(|e| classify(&e).message);
                    let _ = tx.send(Msg::PushConfigs {
                        tab,
                        result,
                        what: "registered",
                    });
                });
            }
            Effect::ListPush {
                tab,
                agent,
                task_id,
            } => {
                self.call(agent, move |conn| async move {
                    let req = a2a::ListTaskPushNotificationConfigsRequest {
                        task_id,
                        page_size: None,
                        page_token: None,
                        tenant: None,
                    };
                    let result = conn
                        .client
                        .list_push_configs(&req)
                        .await
                        .map(|r| r.configs)
                        .map_err(|e| classify(&e).message);
                    Some(Msg::PushConfigs {
                        tab,
                        result,
                        what: "listed",
                    })
                });
            }
            Effect::DeletePush {
                tab,
                agent,
                task_id,
                ids,
            } => {
                let Some(conn) = self.client(agent) else {
                    return;
                };
                if let Some(r) = self.push.as_ref() {
                    r.unregister(&task_id);
                }
                tokio::spawn(async move {
                    let mut result = Ok(Vec::new());
                    for id in ids {
                        let req = a2a::DeleteTaskPushNotificationConfigRequest {
                            task_id: task_id.clone(),
                            id,
                            tenant: None,
                        };
                        if let Err(e) = conn.client.delete_push_config(&req).await {
                            result = Err(classify(&e).message);
                            break;
                        }
                    }
                    let _ = tx.send(Msg::PushConfigs {
                        tab,
                        result,
                        what: "deleted",
                    });
                });
            }
            Effect::DeviceFlow {
                tab,
                device_url,
                token_url,
                client_id,
                scopes,
            } => {
                let (cancel_tx, cancel_rx) = tokio::sync::watch::channel(false);
                self.oauth_cancels.insert(tab, cancel_tx);
                tokio::spawn(async move {
                    let http = match crate::remote::oauth::http_client() {
                        Ok(h) => h,
                        Err(e) => {
                            let _ = tx.send(Msg::DeviceCode {
                                tab,
                                result: Err(e.to_string()),
                            });
                            return;
                        }
                    };
                    let auth = match crate::remote::oauth::start_device_flow(
                        &http,
                        &device_url,
                        &client_id,
                        &scopes,
                    )
                    .await
                    {
                        Ok(a) => a,
                        Err(e) => {
                            let _ = tx.send(Msg::DeviceCode {
                                tab,
                                result: Err(e.to_string()),
                            });
                            return;
                        }
                    };
                    let shown = auth
                        .verification_uri_complete
                        .clone()
                        .unwrap_or_else(|| auth.verification_uri.clone());
                    let _ = tx.send(Msg::DeviceCode {
                        tab,
                        result: Ok((auth.user_code.clone(), shown)),
                    });
                    let result = crate::remote::oauth::poll_device_token(
                        &http, &token_url, &client_id, &auth, cancel_rx,
                    )
                    .await
                    .map_err(|e| e.to_string())
                    .and_then(|t| match t.bearer() {
                        Ok(crate::remote::auth::Credential::Bearer(s)) => Ok(s),
                        Ok(_) => Err("the token is not a bearer token".to_string()),
                        Err(e) => Err(e.to_string()),
                    });
                    let _ = tx.send(Msg::OAuthDone { tab, result });
                });
            }
            Effect::CancelOAuth { tab } => {
                if let Some(c) = self.oauth_cancels.remove(&tab) {
                    let _ = c.send(true);
                }
            }
            // Handled in `apply`, where the app is at hand.
            Effect::ExportTask { .. } | Effect::LoadAudit => {}
            Effect::Bell => {
                if self.bell_enabled {
                    use std::io::Write;
                    let mut out = std::io::stdout();
                    let _ = out.write_all(b"\x07");
                    let _ = out.flush();
                }
            }
            Effect::Cancel {
                tab,
                agent,
                task_id,
            } => {
                self.call(agent, move |conn| async move {
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
                    Some(Msg::Canceled { tab, result })
                });
            }
            Effect::AddAgentToConfig { url } => {
                let path = self
                    .config_path
                    .clone()
                    .or_else(crate::config::default_path);
                tokio::task::spawn_blocking(move || {
                    let r = match path {
                        Some(p) => crate::config::edit::add_agent(&p, &url)
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
                        Some(p) => crate::config::edit::remove_agent(&p, &url).map(|removed| {
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

    /// Re-attach to a task's events after `delay_ms`; when the agent cannot stream, poll GetTask instead until
    /// the task finishes or waits for the user.
    fn subscribe(
        &mut self,
        tab: TabId,
        generation: u64,
        agent: usize,
        task_id: String,
        delay_ms: u64,
    ) {
        let Some(conn) = self.client(agent) else {
            return;
        };
        let tx = self.tx.clone();
        let handle = tokio::spawn(async move {
            if delay_ms > 0 {
                tokio::time::sleep(Duration::from_millis(delay_ms)).await;
            }
            let streaming = conn.card.card.capabilities.streaming == Some(true);
            let req = a2a::SubscribeToTaskRequest {
                id: task_id.clone(),
                tenant: None,
            };
            if streaming && let Ok(events) = conn.client.subscribe_to_task(&req).await {
                pump(events, &tx, tab, generation).await;
                return;
            }
            poll(&conn, &tx, tab, generation, task_id).await;
        });
        if let Some(old) = self.streams.insert(tab, handle) {
            old.abort();
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
        // So the first frame is drawn at once (checked: `Instant` cannot go below the clock's start).
        let mut last_draw = Instant::now()
            .checked_sub(FRAME)
            .unwrap_or_else(Instant::now);
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
        self.persist.drafts(app);
        self.persist.flush_and_stop();
        Ok(())
    }

    fn apply(&mut self, app: &mut App, msg: Msg) {
        self.messages += 1;
        // Record what arrived before `update` digests it, so a crash right after loses nothing received.
        match &msg {
            Msg::Stream {
                tab,
                generation,
                item: StreamItem::Event(ev),
            } if app.tab(*tab).is_some_and(|t| t.generation == *generation) => {
                self.persist.event(app, *tab, ev)
            }
            Msg::Reply {
                tab,
                result: Ok(a2a::SendMessageResponse::Task(task)),
                ..
            }
            | Msg::Refreshed {
                tab,
                result: Ok(task),
            }
            | Msg::Canceled {
                tab,
                result: Ok(task),
            } => {
                self.persist
                    .event(app, *tab, &a2a::StreamResponse::Task(task.clone()));
            }
            Msg::Reply { tab, result, .. } => {
                let outcome = match result {
                    Ok(a2a::SendMessageResponse::Task(t)) => {
                        Ok(crate::remote::tracker::state_name(&t.status.state))
                    }
                    Ok(a2a::SendMessageResponse::Message(_)) => Ok("message"),
                    Err(e) => Err(e.as_str()),
                };
                // (A reply with a task is recorded as an event by the arm above.)
                self.persist
                    .response(app, *tab, "SendMessage / GetTask", outcome);
            }
            Msg::Canceled {
                tab,
                result: Err(e),
            } => self.persist.response(app, *tab, "CancelTask", Err(e)),
            Msg::Push { task_id, event } => {
                if let Some(t) = app
                    .tabs
                    .iter()
                    .find(|t| t.tracker.task_id.as_deref() == Some(task_id.as_str()))
                    && t.link != crate::app::task::Link::Live
                {
                    let id = t.id;
                    self.persist.event(app, id, event);
                }
            }
            Msg::AgentLoaded {
                agent,
                result: Ok(info),
            } => {
                if let Some(a) = app.agents.get(*agent) {
                    let url = a.target.url.clone();
                    self.persist.card(&url, &info.card);
                }
            }
            _ => {}
        }
        for e in update(app, msg) {
            match &e {
                Effect::Audit { tab, line } => self.persist.audit(app, *tab, line),
                Effect::ExportTask { tab, path } => {
                    let r = self.persist.export(app, *tab, path);
                    let _ = self.tx.send(Msg::Saved(r));
                }
                Effect::LoadAudit => {
                    let _ = self
                        .tx
                        .send(Msg::AuditLoaded(self.persist.audit_lines(500)));
                }
                Effect::Send {
                    tab,
                    stream,
                    message,
                    ..
                } => {
                    let method = if *stream {
                        "SendStreamingMessage"
                    } else {
                        "SendMessage"
                    };
                    self.persist
                        .request(app, *tab, method, Some(&message.message_id));
                }
                Effect::Subscribe { tab, .. } | Effect::Resubscribe { tab, .. } => {
                    self.persist.request(app, *tab, "SubscribeToTask", None)
                }
                Effect::Cancel { tab, .. } => self.persist.request(app, *tab, "CancelTask", None),
                Effect::Approve { tab, .. } => {
                    self.persist
                        .request(app, *tab, "SendMessage (approval)", None)
                }
                Effect::RefreshTask { tab, .. } => self.persist.request(app, *tab, "GetTask", None),
                _ => {}
            }
            if !matches!(
                e,
                Effect::Audit { .. } | Effect::ExportTask { .. } | Effect::LoadAudit
            ) {
                self.run_effect(e);
            }
        }
        self.persist.after_update(app);
    }
}

/// How many times an approval is re-sent while the agent says the task's execution is still in progress.
const APPROVAL_RETRIES: u32 = 10;

/// How often to poll GetTask for an agent that cannot stream, and for how long at most.
const POLL_EVERY: Duration = Duration::from_secs(2);
const POLL_FOR: Duration = Duration::from_secs(600);

/// Poll GetTask, delivering each snapshot as a stream event, until the task settles.
async fn poll(
    conn: &Connected,
    tx: &UnboundedSender<Msg>,
    tab: TabId,
    generation: u64,
    task_id: String,
) {
    let started = Instant::now();
    loop {
        let req = a2a::GetTaskRequest {
            id: task_id.clone(),
            history_length: Some(0),
            tenant: None,
        };
        match conn.client.get_task(&req).await {
            Ok(task) => {
                let settled = crate::remote::tracker::phase(&task.status.state)
                    != crate::remote::tracker::Phase::Active;
                let ev = Box::new(a2a::StreamResponse::Task(task));
                if tx
                    .send(Msg::Stream {
                        tab,
                        generation,
                        item: StreamItem::Event(ev),
                    })
                    .is_err()
                    || settled
                {
                    break;
                }
            }
            Err(e) => {
                let _ = tx.send(Msg::Stream {
                    tab,
                    generation,
                    item: StreamItem::Error(format!("polling GetTask: {}", classify(&e).message)),
                });
                break;
            }
        }
        if started.elapsed() > POLL_FOR {
            break;
        }
        tokio::time::sleep(POLL_EVERY).await;
    }
    let _ = tx.send(Msg::Stream {
        tab,
        generation,
        item: StreamItem::End,
    });
}

/// Send the follow-up that answers an auth-required task, with the approved credential on this request only.
async fn approve_request(
    conn: &Connected,
    target: &crate::remote::agent::AgentTarget,
    http: reqwest::Client,
    credential: crate::app::msg::ApprovalCredential,
    task_id: String,
    context_id: Option<String>,
) -> Result<a2a::SendMessageResponse, String> {
    use crate::app::msg::ApprovalCredential;
    use crate::remote::auth::{Credential, HeaderInterceptor};
    let credential = match credential {
        ApprovalCredential::Pasted(token) => Credential::Bearer(token),
        ApprovalCredential::Configured => {
            let auth = target
                .auth
                .as_ref()
                .ok_or("no credential is configured for this agent")?;
            crate::remote::auth::resolve(auth, conn.card.card.security_schemes.as_ref())
                .await
                .map_err(|e| e.message)?
        }
    };
    let headers = Arc::new(HeaderInterceptor::new(&target.headers, Some(&credential)));
    let client = crate::remote::client::build(crate::remote::client::ClientSpec {
        card: &conn.card.card,
        selected: &conn.selected,
        http,
        headers,
        credential: Some(&credential),
        timeout: target.timeout,
    })
    .await
    .map_err(|e| e.message)?;
    let mut message = a2a::Message::new(
        a2a::Role::User,
        vec![a2a::Part::text(
            "Approved: credentials are attached to this request.",
        )],
    );
    message.task_id = Some(task_id);
    message.context_id = context_id;
    let req = a2a::SendMessageRequest {
        message,
        configuration: None,
        metadata: None,
        tenant: None,
    };
    // A blocking SendMessage, even for a streaming agent: some servers (the Rust SDK's) still hold the task's
    // execution for a moment after entering auth-required, and a streaming follow-up sent then is attached to
    // the old execution and silently dropped; a blocking one waits its turn. If the task is still running when
    // the reply comes, `update` re-attaches to it.
    // An agent that keeps its stream open while it waits may still be "executing" the task for a moment and
    // refuse the follow-up as already in progress (the Rust SDK answers -32600); wait and try again, briefly.
    let mut attempts = 0;
    loop {
        match client.send_message(&req).await {
            Err(e) if attempts < APPROVAL_RETRIES && e.message.contains("already in progress") => {
                attempts += 1;
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            other => return other.map_err(|e| classify(&e).message),
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
