//! Starting the interactive console: the terminal set up and always restored (normal exit, error, panic,
//! SIGINT / SIGTERM / SIGHUP / SIGQUIT), logs sent to a size-capped private file in the state dir, agents from
//! the config (and the demo agent with `--demo`), then the runtime's event loop.

pub mod check_page;
mod clipboard;
mod effects;
pub mod logfile;
pub mod persist;
pub mod runtime;
mod save;
pub mod signals;
pub mod stream_budget;
pub mod suite_page;

use std::io::Stdout;
use std::path::PathBuf;
use std::time::Duration;

use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    EventStream,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use crate::app::agent::AgentOrigin;
use crate::app::msg::Effect;
use crate::app::state::App;
use crate::config::keymap::Keymap;
use crate::config::theme::Theme;
use crate::config::{Config, DEFAULT_TIMEOUT_SECS, Overrides};
use crate::remote::connect::agent::AgentTarget;
use crate::tui::runtime::Runtime;

/// Restores the terminal when dropped, whatever the way out.
struct TerminalGuard {
    mouse: bool,
}

impl TerminalGuard {
    fn enter(mouse: bool) -> std::io::Result<Self> {
        enable_raw_mode()?;
        let mut out = std::io::stdout();
        execute!(out, EnterAlternateScreen, EnableBracketedPaste)?;
        if mouse {
            execute!(out, EnableMouseCapture)?;
        }
        Ok(Self { mouse })
    }
}

/// Put the terminal back as we found it. Safe to call twice.
pub fn restore_terminal(mouse: bool) {
    let mut out = std::io::stdout();
    if mouse {
        let _ = execute!(out, DisableMouseCapture);
    }
    let _ = execute!(
        out,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        crossterm::cursor::Show
    );
    let _ = disable_raw_mode();
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal(self.mouse);
    }
}

/// Where the log file goes: `$XDG_STATE_HOME/a2a-console/console.log` (or the platform's data dir).
pub fn log_path() -> Option<PathBuf> {
    let dirs = directories::ProjectDirs::from("", "", "a2a-console")?;
    let dir = dirs
        .state_dir()
        .unwrap_or(dirs.data_local_dir())
        .to_path_buf();
    Some(dir.join("console.log"))
}

fn init_file_logging() -> Option<PathBuf> {
    let path = log_path()?;
    let file = logfile::RotatingLog::open(&path, logfile::MAX_BYTES, logfile::KEEP).ok()?;
    // The directory is the console's own (named after it): one left 0755 by an older version is made private.
    if let Some(dir) = path.parent() {
        let _ = crate::files::tighten_dir(dir);
    }
    let filter = std::env::var("A2A_CONSOLE_LOG").unwrap_or_else(|_| "info".into());
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
        .with_writer(crate::trust::redact::Redacting(std::sync::Mutex::new(file)))
        .with_ansi(false)
        .try_init()
        .ok()?;
    Some(path)
}

/// Build the app from the config: theme, keys, agents.
pub fn build_app(config: &Config, global: &Overrides) -> Result<App, String> {
    let keymap = Keymap::with_overrides(&config.keys).map_err(|e| format!("[keys]: {e}"))?;
    let theme_name = config.ui.theme.as_deref().unwrap_or("dark");
    let mut theme = Theme::load(theme_name).map_err(|e| format!("[ui] theme: {e}"))?;
    if crate::config::theme::no_color_requested() {
        theme = theme.without_color();
    }
    let mut app = App::new(keymap, theme);
    // `S` saves next to where the console was started, and shows that directory.
    app.save_dir = std::env::current_dir().ok();
    let timeout = Duration::from_secs(
        global
            .timeout
            .or(config.timeout_secs)
            .unwrap_or(DEFAULT_TIMEOUT_SECS),
    );
    for a in &config.agents {
        let mut target = AgentTarget::from_config(a, timeout).map_err(|e| e.message)?;
        target.apply_overrides(global);
        app.add_agent(target, AgentOrigin::Config);
    }
    Ok(app)
}

/// Effects to start with: load every agent's card, and the transcripts of restored tasks still to follow.
pub fn initial_effects(app: &mut App) -> Vec<Effect> {
    let mut fx: Vec<Effect> = app
        .agents
        .iter()
        .map(|a| Effect::LoadAgent {
            agent: a.id,
            target: Box::new(a.target.clone()),
            refresh: false,
        })
        .collect();
    fx.extend(crate::app::update::start_loads(app));
    fx
}

/// How the console ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The user quit.
    Quit,
    /// A signal ended it (its number); the terminal was restored all the same.
    Signal(i32),
}

/// Run the console until the user quits or a signal ends it.
pub async fn run(global: Overrides, demo: bool) -> Result<Ended, String> {
    crate::demo::signing::keep_key_in_data_dir();
    let (config, config_path) =
        crate::config::load(global.config.as_deref()).map_err(|e| e.to_string())?;
    let mut app = build_app(&config, &global)?;
    // Before any tab exists (restored ones included).
    app.artifact_limit = config.store.artifact_limit();
    app.demo_port = config.demo.port.unwrap_or(crate::config::DEFAULT_DEMO_PORT);
    app.config_path = config_path.clone().or_else(crate::config::default_path);
    app.log_path = init_file_logging().map(|p| p.display().to_string());
    let demo_agent = if demo {
        let (agent, moved) = crate::demo::spawn_stable(app.demo_port)
            .await
            .map_err(|e| format!("cannot start the demo agent: {e:#}"))?;
        if let Some(why) = moved {
            app.set_status(why, false);
        }
        let target = crate::demo::target(&agent.base_url(), agent.grpc_url());
        app.insert_agent(0, target, AgentOrigin::Demo);
        Some(agent)
    } else {
        None
    };
    // The local store: tabs come back from it, and everything received goes into it. If it cannot be opened
    // (locked by another console, full, corrupt) the console says so and works in memory.
    let mut cached_cards = Vec::new();
    let writer = match crate::store::db_path().map(|p| crate::store::Store::open(&p)) {
        Some(Ok(store)) => {
            cached_cards = crate::tui::persist::cached_cards(&store, &mut app);
            crate::tui::persist::restore_check_verdicts(&store, &mut app);
            // Headers only: the first frame never waits for the store's size.
            match crate::tui::persist::restore_headers(&store, &mut app) {
                Ok(0) => {}
                Ok(n) => {
                    app.set_status(format!("restored {n} task(s) from the local store"), false)
                }
                Err(e) => app.set_status(format!("could not restore tasks: {e}"), true),
            }
            match crate::store::writer::StoreWriter::spawn(store) {
                Ok(w) => {
                    // Retention runs on the store's thread, after start-up, never in the way of the first frame.
                    let keep = crate::store::Retention::from(&config.store);
                    w.run(move |s| match s.prune(keep, false) {
                        Ok(p) if p.tabs + p.audit > 0 => tracing::info!(
                            "retention: forgot {} task(s), {} event(s), {} audit entr(ies)",
                            p.tabs,
                            p.events,
                            p.audit
                        ),
                        Ok(_) => {}
                        Err(e) => tracing::warn!("retention failed: {e}"),
                    });
                    Some(w)
                }
                Err(e) => {
                    app.set_status(
                        format!("working in memory only: cannot start the store writer: {e}"),
                        true,
                    );
                    None
                }
            }
        }
        Some(Err(e)) => {
            app.set_status(format!("working in memory only: {e}"), true);
            None
        }
        None => None,
    };
    let mouse = config.ui.mouse.unwrap_or(true);
    app.bell = config.ui.bell.unwrap_or(false);
    // Code is highlighted for the background the theme is made for (a user theme `extends = "light"` too).
    let syntax = app.theme.background.name();
    let (mut runtime, rx) = Runtime::new(app.config_path.clone(), syntax)?;
    runtime.bell_enabled = app.bell;
    // The real terminal: a `y` may write an OSC 52 to it.
    runtime.clipboard_enabled = true;
    runtime.writer = writer;
    if config.push.enabled {
        let bind = config.push.bind.as_deref().unwrap_or("127.0.0.1:0");
        let addr: std::net::SocketAddr = bind
            .parse()
            .map_err(|e| format!("[push] bind {bind:?}: {e}"))?;
        match runtime.start_push(addr).await {
            Ok(at) => {
                app.push_enabled = true;
                tracing::info!("push receiver listening on {at}");
            }
            Err(e) => app.set_status(format!("push receiver: {e}"), true),
        }
    }
    runtime.prime_cards(cached_cards);
    let effects = initial_effects(&mut app);

    // Chain a panic hook that restores the terminal first, so a panic message is readable.
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore_terminal(mouse);
        previous(info);
    }));

    // Listening before the terminal changes, so no signal finds it changed and unhandled.
    let received = signals::install(runtime.tx.clone(), mouse);
    let guard =
        TerminalGuard::enter(mouse).map_err(|e| format!("cannot set up the terminal: {e}"))?;
    let mut terminal = Terminal::new(CrosstermBackend::<Stdout>::new(std::io::stdout()))
        .map_err(|e| format!("cannot open the terminal: {e}"))?;
    if let Ok(size) = terminal.size() {
        app.size = (size.width, size.height);
    }
    let events = EventStream::new();
    let result = runtime
        .run(&mut app, &mut terminal, events, rx, effects)
        .await;
    drop(guard);
    for agent in demo_agent.into_iter().chain(runtime.take_demo()) {
        agent.shutdown().await;
    }
    result.map(|()| match received.signal() {
        Some(n) => Ended::Signal(n),
        None => Ended::Quit,
    })
}
