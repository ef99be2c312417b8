//! Regenerates the README screenshots (`screenshots/*.png`) from real console frames, so they cannot drift from
//! what the console draws. Each scene runs the real runtime headlessly on a recording `TestBackend` against the
//! embedded demo agent (keys injected, waits on what the screen shows, never fixed sleeps), masks what changes
//! between runs (task / context ids, the port, clock times), turns the frame into SVG (a monospace grid, one text
//! run per style) and rasterises it with resvg and DejaVu Sans Mono.
//!
//! ```sh
//! cargo run --example screenshots                  # write every scene to screenshots/<name>.png
//! cargo run --example screenshots -- hostile       # only the scenes named
//! cargo run --example screenshots -- --check       # exit 1 listing the PNGs that no longer match
//! cargo run --example screenshots -- --svg /tmp/s  # also write each scene's SVG and masked text there
//! ```
//!
//! `screenshots/generate.sh` wraps it. `mask.rs` makes the frames reproducible, `render.rs` draws them.

mod mask;
mod render;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use a2a_console::app::agent::AgentOrigin;
use a2a_console::app::state::App;
use a2a_console::config::keymap::Keymap;
use a2a_console::config::theme::Theme;
use a2a_console::demo::DemoAgent;
use a2a_console::remote::connect::agent::AgentTarget;
use a2a_console::testing::{Headless, buffer_text};
use a2a_console::tui::runtime::Runtime;
use anyhow::{Context, Result, bail};
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::{Backend, ClearType, TestBackend, WindowSize};
use ratatui::buffer::{Buffer, Cell};
use ratatui::layout::{Position, Size};
use tokio::sync::mpsc;

/// Terminal size of every scene, in cells.
const COLS: u16 = 120;
const ROWS: u16 = 36;

/// How long one wait on the screen may take, and how often a scene that raced past its frame is retried.
const WAIT: Duration = Duration::from_secs(45);
const ATTEMPTS: u32 = 4;

const SCENES: &[(&str, &str)] = &[
    ("agent-card", "the agent list and the demo agent's card"),
    ("skills", "the skills browser"),
    ("streaming", "a task tab while `stream 200` is arriving"),
    (
        "code-artifact",
        "the `code` scenario: markdown with a highlighted Rust block",
    ),
    (
        "hostile",
        "the `hostile` scenario: sanitised text, flags and provenance",
    ),
    ("approval", "the auth-required approval dialog"),
    ("board", "the board: every task, the ones needing you first"),
    (
        "first-start",
        "the first start with no agent: the welcome page offers the demo",
    ),
    (
        "help",
        "the help screen: every key, grouped by where it works",
    ),
    (
        "search",
        "transcript search in a finished story, a match current and its entry selected",
    ),
    (
        "parts",
        "the `files` scenario: one artifact of several parts, each with its header",
    ),
    (
        "raw-json",
        "the raw JSON viewer: the event behind the selected entry, then the task",
    ),
    ("split", "the split view of two tasks marked on the board"),
];

fn main() -> ExitCode {
    match run() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("screenshots: {e:#}");
            ExitCode::from(2)
        }
    }
}

struct Args {
    check: bool,
    svg_dir: Option<PathBuf>,
    scenes: Vec<&'static str>,
}

fn parse_args() -> Result<Args> {
    let mut args = Args {
        check: false,
        svg_dir: None,
        scenes: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--check" => args.check = true,
            "--svg" => args.svg_dir = Some(it.next().context("--svg needs a directory")?.into()),
            "-h" | "--help" => {
                println!("usage: screenshots [--check] [--svg DIR] [SCENE...]\nscenes:");
                for (name, what) in SCENES {
                    println!("  {name:<14} {what}");
                }
                std::process::exit(0);
            }
            name => match SCENES.iter().find(|(n, _)| *n == name) {
                Some((n, _)) => args.scenes.push(n),
                None => bail!("unknown scene or option {name:?} (--help lists the scenes)"),
            },
        }
    }
    if args.scenes.is_empty() {
        args.scenes = SCENES.iter().map(|(n, _)| *n).collect();
    }
    Ok(args)
}

fn run() -> Result<ExitCode> {
    let args = parse_args()?;
    let renderer = render::Renderer::new()?;
    let out_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("screenshots");
    if let Some(d) = &args.svg_dir {
        std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the tokio runtime")?;
    let mut stale = Vec::new();
    for name in &args.scenes {
        let frame = rt.block_on(shoot(name))?;
        let (svg, notes) = renderer.svg(&frame);
        for note in notes {
            eprintln!("  {name}: {note}");
        }
        let png = renderer
            .png(&svg)
            .with_context(|| format!("{name}: rasterising"))?;
        if let Some(d) = &args.svg_dir {
            std::fs::write(d.join(format!("{name}.svg")), &svg)?;
            std::fs::write(d.join(format!("{name}.txt")), buffer_text(&frame))?;
        }
        let path = out_dir.join(format!("{name}.png"));
        let old = std::fs::read(&path).ok();
        let fresh = old
            .as_deref()
            .is_some_and(|old| render::same_picture(old, &png));
        if args.check {
            let verdict = match (&old, fresh) {
                (None, _) => "missing",
                (Some(_), false) => "STALE",
                (Some(_), true) => "ok",
            };
            println!("{verdict:>7}  screenshots/{name}.png");
            if !fresh {
                stale.push(*name);
            }
        } else if fresh {
            println!("unchanged  screenshots/{name}.png");
        } else {
            std::fs::create_dir_all(&out_dir)?;
            std::fs::write(&path, &png)
                .with_context(|| format!("cannot write {}", path.display()))?;
            println!(
                "    wrote  screenshots/{name}.png ({} KB)",
                png.len() / 1024
            );
        }
    }
    if !stale.is_empty() {
        eprintln!(
            "stale screenshots: {}; regenerate with screenshots/generate.sh",
            stale.join(", ")
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

// ---------------------------------------------------------------------------------------------------------------
// Scenes: the real runtime against the demo agent

/// A scene raced past the frame it wanted (two updates landed in one frame); the whole scene is run again.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Missed(String);

async fn shoot(scene: &str) -> Result<Buffer> {
    let mut attempt = 1;
    loop {
        match shoot_once(scene).await {
            Ok(frame) => return Ok(frame),
            Err(e) if attempt < ATTEMPTS && e.downcast_ref::<Missed>().is_some() => {
                eprintln!("  {scene}: {e}; running the scene again");
                attempt += 1;
            }
            Err(e) => return Err(e.context(format!("scene {scene}"))),
        }
    }
}

async fn shoot_once(scene: &str) -> Result<Buffer> {
    // The first start has no agent at all: nothing to wait for but the welcome page.
    let first_start = scene == "first-start";
    let mut c = Console::start(!first_start).await?;
    let card = if first_start {
        c.wait("the welcome page", |_, s| {
            s.contains("Welcome to a2a-console.").into()
        })
        .await?
    } else {
        c.wait("the card", |_, s| s.contains("card 0.1.0").into())
            .await?
    };
    let result = match scene {
        "agent-card" | "first-start" => Ok(card),
        "help" => {
            c.key(KeyCode::Char('?'));
            c.wait("the help screen", |_, s| {
                (s.contains("Help") && s.contains("or Esc closes")).into()
            })
            .await
        }
        "search" => search(&mut c).await,
        "parts" => parts(&mut c).await,
        "skills" => {
            c.key(KeyCode::Char('s'));
            c.wait("the skills browser", |_, s| {
                s.contains("Skills · demo").into()
            })
            .await?;
            // Down to the streaming skill's `stream 200`: the example the streaming scene sends.
            c.key(KeyCode::Char('j'));
            c.key(KeyCode::Char('j'));
            c.wait("`stream 200` selected", |_, s| {
                s.contains("▶ ▍stream 200").into()
            })
            .await
        }
        "streaming" => streaming(&mut c).await,
        "code-artifact" => code_artifact(&mut c).await,
        "hostile" => hostile(&mut c).await,
        "approval" => {
            send(&mut c, "auth").await?;
            open_approval(&mut c).await
        }
        "board" => board(&mut c).await,
        "split" => split(&mut c).await,
        "raw-json" => raw_json(&mut c).await,
        other => bail!("no scene {other}"),
    };
    let (mut app, port) = c.finish().await?;
    let mut frame = result?;
    if scene == "code-artifact" {
        frame = lay_out_code(&mut app).await?;
    }
    mask::mask(&mut frame, &app, port);
    Ok(frame)
}

/// Open a task tab on the demo agent and send `text`.
async fn send(c: &mut Console, text: &str) -> Result<()> {
    c.key(KeyCode::Char('n'));
    c.wait("the compose box", |_, s| {
        s.contains("Message → demo").into()
    })
    .await?;
    c.type_text(text);
    c.key(KeyCode::Enter);
    Ok(())
}

/// The auth-required the demo's `auth` asks for never opens over the compose box: wait for the announcement,
/// leave the box as a person would (Esc), then wait until the dialog's key guard has run out.
async fn open_approval(c: &mut Console) -> Result<Buffer> {
    c.wait("the authorization announcement", |_, s| {
        s.contains("authorization waits").into()
    })
    .await?;
    c.key(KeyCode::Esc);
    c.wait("the approval dialog, its keys live", |_, s| {
        (s.contains("Authorization requested") && !s.contains("keys are ignored")).into()
    })
    .await
}

/// The chunk count in the artifact header ("· 40 chunk(s) ·").
fn chunks_shown(screen: &str) -> Option<u32> {
    let head = screen.split(" chunk(s)").next()?;
    if head.len() == screen.len() {
        return None;
    }
    let digits: String = head
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    digits.parse().ok()
}

async fn streaming(c: &mut Console) -> Result<Buffer> {
    // The frame with exactly this many chunks. Chunks come every 30 ms and frames at most every 16 ms, so nearly
    // always every count gets a frame; when two chunks share one, the scene runs again.
    const CHUNKS: u32 = 40;
    send(c, "stream 200").await?;
    c.wait("the stream to start", |_, s| working(s).into())
        .await?;
    // Leave the compose box and pin the view to the top, where the artifact header counts the chunks (following
    // the end would scroll it away, and the count is what makes the frame reproducible).
    c.key(KeyCode::Esc);
    c.key(KeyCode::Char('g'));
    c.wait(
        &format!("chunk {CHUNKS} on screen"),
        |_, s| match chunks_shown(s) {
            Some(n) if n == CHUNKS && working(s) && body_starts(s, "you · ") => Verdict::Take,
            Some(n) if n > CHUNKS => Verdict::Missed(format!(
                "frames went from fewer than {CHUNKS} chunks to {n}"
            )),
            _ => Verdict::Wait,
        },
    )
    .await
}

/// Is a task shown running? Its badge is a spinner frame that turns with the clock (`app/layout.rs`
/// `live_symbol`), so any of them counts; the mask draws the first.
fn working(screen: &str) -> bool {
    ["◐", "◓", "◑", "◒"]
        .iter()
        .any(|f| screen.contains(&format!("{f} working")))
}

/// The whole story (40 chunks), searched for "keeper": the third match current, its entry selected.
async fn search(c: &mut Console) -> Result<Buffer> {
    send(c, "stream").await?;
    c.wait("the story completed", |_, s| {
        (s.contains("✓ completed") && s.contains("The end.")).into()
    })
    .await?;
    // From the top: a search starts at the match nearest the view.
    c.key(KeyCode::Esc);
    c.key(KeyCode::Char('g'));
    c.wait("the transcript from the top", |_, s| {
        body_starts(s, "you · ").into()
    })
    .await?;
    c.key(KeyCode::Char('/'));
    c.type_text("keeper");
    c.key(KeyCode::Enter);
    c.wait("the first match", |_, s| s.contains("match 1/").into())
        .await?;
    c.key(KeyCode::Char('n'));
    c.wait("the second match", |_, s| s.contains("match 2/").into())
        .await?;
    c.key(KeyCode::Char('n'));
    c.wait("the third match, selected", |_, s| {
        (s.contains("match 3/") && (s.contains('▶') || s.contains('┃'))).into()
    })
    .await
}

/// The `files` scenario: a source file and an image in one artifact, a dotfile in another.
async fn parts(c: &mut Console) -> Result<Buffer> {
    send(c, "files").await?;
    c.wait("the files task completed", |_, s| {
        (s.contains("✓ completed") && s.contains("plot.png")).into()
    })
    .await?;
    c.key(KeyCode::Esc);
    c.key(KeyCode::Char('g'));
    c.wait("the transcript from the top", |_, s| {
        body_starts(s, "you · ").into()
    })
    .await
}

async fn code_artifact(c: &mut Console) -> Result<Buffer> {
    send(c, "code").await?;
    let done = c
        .wait("the code task completed", |_, s| {
            s.contains("✓ completed").into()
        })
        .await?;
    // Leave the compose box; the picture itself is drawn from the final app by `lay_out_code`.
    c.key(KeyCode::Esc);
    Ok(done)
}

/// Draws the code scene from the app the real run left behind. The console lays out markdown and asks for
/// highlighting only when a blocking `SendMessage` replies (`app/update/remote.rs`, `Msg::Reply` → `lay_out_artifacts`),
/// not when a stream ends, and it streams to every agent whose card says it can (the demo agent does); so this
/// does that step itself, with the library's own functions and highlighting worker, then scrolls to the
/// markdown artifact with the real actions and draws with the real `ui::draw`. The picture is the same whether
/// or not the console had laid the artifact out already, because the layout is redone from the artifact text
/// either way.
async fn lay_out_code(app: &mut App) -> Result<Buffer> {
    use a2a_console::app::msg::{Effect, Msg};
    use a2a_console::app::update::{lay_out_artifacts, run_action, update};
    use a2a_console::config::keymap::actions::Action;
    let tab = app.tabs.first().context("the code scene opened no tab")?.id;
    let t = app.tab_mut(tab).context("no tab")?;
    if t.artifacts.iter().all(|a| a.rendered.is_none()) {
        eprintln!(
            "  code-artifact: the console did not lay out the streamed artifacts; laying them out here"
        );
    }
    for a in t.artifacts.iter_mut() {
        a.rendered = None;
    }
    let (done_tx, mut done_rx) = mpsc::unbounded_channel();
    let highlighter = a2a_console::markup::highlight::Highlighter::spawn(done_tx, "dark");
    let mut asked = 0;
    for effect in lay_out_artifacts(app, tab) {
        if let Effect::Highlight { key, lang, code } = effect {
            highlighter.request(key, lang.as_deref(), code);
            asked += 1;
        }
    }
    if asked == 0 {
        bail!("the code artifact has no code block to highlight");
    }
    for _ in 0..asked {
        let done = tokio::time::timeout(WAIT, done_rx.recv())
            .await
            .context("timed out waiting for the highlighter")?
            .context("the highlighter stopped")?;
        let _ = update(app, Msg::Highlighted(done));
    }
    // From the end of the transcript, `{` twice: past the JSON artifact to the markdown one.
    run_action(app, Action::PrevArtifact);
    run_action(app, Action::PrevArtifact);
    let mut term = Terminal::new(TestBackend::new(COLS, ROWS))?;
    term.draw(|f| a2a_console::ui::draw(f, app))?;
    let frame = term.backend().buffer().clone();
    if code_colours(&frame, "fn fib(n: u64)") < 2 {
        bail!(
            "the Rust block is not highlighted:\n{}",
            buffer_text(&frame)
        );
    }
    Ok(frame)
}

/// The number of distinct foreground colours on the row showing `needle` (1 until the highlighter answered).
fn code_colours(frame: &Buffer, needle: &str) -> usize {
    let text = buffer_text(frame);
    let Some(y) = text.lines().position(|l| l.contains(needle)) else {
        return 0;
    };
    let mut colours = std::collections::BTreeSet::new();
    for x in 0..frame.area.width {
        if let Some(cell) = frame.cell((x, y as u16)) {
            let sym = cell.symbol();
            if !sym.trim().is_empty() && sym != "▍" && sym != "│" {
                colours.insert(format!("{:?}", cell.fg));
            }
        }
    }
    colours.len()
}

async fn hostile(c: &mut Console) -> Result<Buffer> {
    send(c, "hostile").await?;
    c.wait("the hostile task completed", |_, s| {
        (s.contains("✓ completed") && s.contains("⚠")).into()
    })
    .await?;
    c.key(KeyCode::Esc);
    c.key(KeyCode::Char('{'));
    c.wait("the hostile artifact at the top", |_, s| {
        body_starts(s, "artifact \"hostile.txt\"").into()
    })
    .await
}

/// Four tasks in four states, then the board.
async fn board(c: &mut Console) -> Result<Buffer> {
    send(c, "echo hello board").await?;
    c.wait("the echo task completed", |_, s| {
        s.contains("✓ completed").into()
    })
    .await?;
    c.key(KeyCode::Esc);
    send(c, "slow 120").await?;
    c.wait("the slow task working", |_, s| {
        s.contains("Working… 1/").into()
    })
    .await?;
    c.key(KeyCode::Esc);
    send(c, "ask").await?;
    c.wait("the question", |_, s| {
        s.contains("What is your name?").into()
    })
    .await?;
    c.key(KeyCode::Esc);
    send(c, "auth").await?;
    open_approval(c).await?;
    c.key(KeyCode::Char('l'));
    c.key(KeyCode::Esc);
    c.key(KeyCode::Char('b'));
    c.wait("the board with every state", |_, s| {
        (s.contains("Board · 4 task(s)")
            && s.contains("auth-required")
            && s.contains("input-required")
            && s.contains("working")
            && s.contains("completed"))
        .into()
    })
    .await
}

/// `J` on the echo task's artifact entry: the raw event behind it, then the task as the console holds it.
async fn raw_json(c: &mut Console) -> Result<Buffer> {
    send(c, "echo hello, agent").await?;
    c.wait("the echo task completed", |_, s| {
        s.contains("✓ completed").into()
    })
    .await?;
    c.key(KeyCode::Esc);
    // From the last entry (the state change) back to the artifact.
    c.key(KeyCode::Char(','));
    c.key(KeyCode::Char(','));
    c.wait("the artifact selected", |_, s| s.contains('▶').into())
        .await?;
    c.key(KeyCode::Char('J'));
    c.wait("the raw JSON viewer", |_, s| {
        (s.contains("Raw JSON · task") && s.contains("the event behind entry")).into()
    })
    .await
}

/// The board's four tasks; the input-required one and the completed one marked, then the split view.
async fn split(c: &mut Console) -> Result<Buffer> {
    board(c).await?;
    // The board lists auth-required, input-required, working, completed: mark the second and the fourth.
    c.key(KeyCode::Char('j'));
    c.key(KeyCode::Char('m'));
    c.key(KeyCode::Char('j'));
    c.key(KeyCode::Char('j'));
    c.key(KeyCode::Char('m'));
    c.wait("two tasks marked", |_, s| {
        (s.matches('●').count() >= 3).into()
    })
    .await?;
    c.key(KeyCode::Char('v'));
    c.wait("the split view of the marked tasks", |_, s| {
        (s.contains("Split · the 2 task(s) marked on the board")
            && s.contains("What is your name?")
            && s.contains("echo: hello board"))
        .into()
    })
    .await
}

/// Does the first row inside the tab's frame (the screen's third row) show `needle`? True once a scroll key
/// took effect, which tells its frame from the one before.
fn body_starts(screen: &str, needle: &str) -> bool {
    screen.lines().nth(2).is_some_and(|l| l.contains(needle))
}

enum Verdict {
    Wait,
    Take,
    Missed(String),
}

impl From<bool> for Verdict {
    fn from(take: bool) -> Self {
        if take { Verdict::Take } else { Verdict::Wait }
    }
}

/// The shared headless console on a recording backend, with its own demo agent.
struct Console {
    h: Headless,
    frames: mpsc::UnboundedReceiver<Buffer>,
    last: String,
    demo: DemoAgent,
}

impl Console {
    /// A console on a fresh demo agent; with `with_agent` false the agent runs but is not in the list (a first
    /// start with no config), so the console shows its welcome page.
    async fn start(with_agent: bool) -> Result<Console> {
        let demo = a2a_console::demo::spawn(0)
            .await
            .context("cannot start the demo agent")?;
        let theme = Theme::builtin("dark").map_err(anyhow::Error::msg)?;
        let mut app = App::new(Keymap::defaults(), theme);
        app.size = (COLS, ROWS);
        if with_agent {
            let mut target = AgentTarget::from_url(&demo.base_url(), Duration::from_secs(20));
            target.label = "demo".into();
            // As the console does for the demo it runs: its card key is known in-process (shows verified).
            target.trust = a2a_console::demo::signing::in_process_trust();
            app.add_agent(target, AgentOrigin::Demo);
        }
        let (rt, rx) = Runtime::new(None, "dark").map_err(anyhow::Error::msg)?;
        let (ftx, frames) = mpsc::unbounded_channel();
        let backend = Recorder {
            inner: TestBackend::new(COLS, ROWS),
            frames: ftx,
        };
        Ok(Console {
            h: Headless::start_on(app, rt, rx, backend),
            frames,
            last: String::new(),
            demo,
        })
    }

    fn key(&self, code: KeyCode) {
        self.h.key(code);
    }

    fn type_text(&self, s: &str) {
        self.h.type_text(s);
    }

    /// Take frames in the order they were drawn until `judge` picks one.
    async fn wait(
        &mut self,
        what: &str,
        mut judge: impl FnMut(&Buffer, &str) -> Verdict,
    ) -> Result<Buffer> {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let frame = match tokio::time::timeout_at(deadline, self.frames.recv()).await {
                Ok(Some(frame)) => frame,
                Ok(None) => bail!(
                    "the console stopped while waiting for {what}; last screen:\n{}",
                    self.last
                ),
                Err(_) => bail!("timed out waiting for {what}; last screen:\n{}", self.last),
            };
            let text = buffer_text(&frame);
            match judge(&frame, &text) {
                Verdict::Take => return Ok(frame),
                Verdict::Wait => self.last = text,
                Verdict::Missed(why) => return Err(Missed(why).into()),
            }
        }
    }

    /// Quit with Ctrl-C; returns the final app (for the ids to mask) and the demo agent's port.
    async fn finish(self) -> Result<(App, u16)> {
        drop(self.frames);
        let done = self
            .h
            .finish(Duration::from_secs(10))
            .await
            .map_err(anyhow::Error::msg)?;
        done.result.map_err(anyhow::Error::msg)?;
        let port = self.demo.addr().port();
        self.demo.shutdown().await;
        Ok((done.app, port))
    }
}

/// A `TestBackend` that publishes a copy of the whole screen every time the terminal flushes a frame, so a
/// scene can pick the exact frame it wants (the runtime's own `screen` channel carries text only).
struct Recorder {
    inner: TestBackend,
    frames: mpsc::UnboundedSender<Buffer>,
}

impl Backend for Recorder {
    type Error = <TestBackend as Backend>::Error;

    fn draw<'a, I>(&mut self, content: I) -> Result<(), Self::Error>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        self.inner.draw(content)
    }
    fn hide_cursor(&mut self) -> Result<(), Self::Error> {
        self.inner.hide_cursor()
    }
    fn show_cursor(&mut self) -> Result<(), Self::Error> {
        self.inner.show_cursor()
    }
    fn get_cursor_position(&mut self) -> Result<Position, Self::Error> {
        self.inner.get_cursor_position()
    }
    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> Result<(), Self::Error> {
        self.inner.set_cursor_position(position)
    }
    fn clear(&mut self) -> Result<(), Self::Error> {
        self.inner.clear()
    }
    fn clear_region(&mut self, clear_type: ClearType) -> Result<(), Self::Error> {
        self.inner.clear_region(clear_type)
    }
    fn size(&self) -> Result<Size, Self::Error> {
        self.inner.size()
    }
    fn window_size(&mut self) -> Result<WindowSize, Self::Error> {
        self.inner.window_size()
    }
    fn flush(&mut self) -> Result<(), Self::Error> {
        self.inner.flush()?;
        // Nobody listening any more (the scene has its frame) is fine.
        let _ = self.frames.send(self.inner.buffer().clone());
        Ok(())
    }
}
