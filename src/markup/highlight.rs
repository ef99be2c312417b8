//! Syntax highlighting of code blocks with syntect, on a worker thread, cached and cancellable,
//! so the render path only ever shows lines that are already computed.
//!
//! The UI asks with [`Highlighter::request`] (a channel send, never a wait) and shows
//! `markup::markdown::render_plain_code` until a [`HighlightDone`] arrives on the `Msg` side. Requests
//! carry a caller-chosen key (say, hash of tab + block index): a newer request for a key replaces
//! an older one that is still queued and aborts it if it is running, so a streaming artifact that
//! grows line by line costs one highlight of its latest text, not one per chunk.
//!
//! Limits: blocks over [`MAX_HIGHLIGHT_BYTES`] or with a line over [`MAX_LINE_BYTES`] come back
//! as plain (unstyled) lines. syntect's regex engine is backtracking and its cost grows with line
//! length; a minified JSON blob or base64 dump gains nothing from colour and could otherwise keep
//! the worker busy for seconds.
//!
//! Colours: the scheme follows the console theme's `background` (`"dark"` → base16-ocean.dark,
//! `"light"` → InspiredGitHub), and every colour of it is lifted to 4.5:1 against black or white, the
//! floor the console's own theme roles are held to.

use std::collections::{HashMap, VecDeque};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::OnceLock;
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use syntect::easy::HighlightLines;
use syntect::highlighting::{FontStyle, Theme, ThemeSet};
use syntect::parsing::{SyntaxReference, SyntaxSet};
use syntect::util::LinesWithEndings;
use tokio::sync::mpsc::UnboundedSender;

use crate::config::contrast;

/// Largest block that is highlighted; bigger ones are returned as plain lines.
pub const MAX_HIGHLIGHT_BYTES: usize = 512 * 1024;
/// Longest single line that is highlighted; a block with a longer line is returned plain.
pub const MAX_LINE_BYTES: usize = 16 * 1024;
/// Cache bounds (oldest entry evicted first). Sized for a few screens of code, not a history.
const CACHE_ENTRIES: usize = 256;
const CACHE_CODE_BYTES: usize = 4 * 1024 * 1024;
/// How many lines are highlighted between looks at the request channel for a cancel or a
/// superseding request.
const CHECK_EVERY_LINES: usize = 32;

/// A finished highlight for the request with this key.
#[derive(Debug, Clone, PartialEq)]
pub struct HighlightDone {
    pub key: u64,
    pub lines: Vec<Line<'static>>,
}

/// Handle to the highlighting worker. Dropping it stops the worker (its request channel closes;
/// a running highlight notices within [`CHECK_EVERY_LINES`] lines) and the worker then drops its
/// `done` sender.
#[derive(Debug)]
pub struct Highlighter {
    tx: Sender<Cmd>,
}

enum Cmd {
    Request(Job),
    Cancel(u64),
    /// Highlight the requests after this one for another background (the console's theme changed).
    Theme(String),
}

struct Job {
    key: u64,
    lang: Option<String>,
    code: String,
}

impl Highlighter {
    /// Starts the worker. The syntax and theme sets (tens of milliseconds to load) are loaded on
    /// the worker, not here. `theme` is `"dark"`, `"light"` (the console theme's `background`) or the
    /// name of a syntect built-in theme; anything else falls back to dark.
    pub fn spawn(done: UnboundedSender<HighlightDone>, theme: &str) -> Highlighter {
        let (tx, rx) = mpsc::channel();
        let theme = theme.to_string();
        let spawned = std::thread::Builder::new()
            .name("a2a-highlight".into())
            .spawn(move || worker(rx, done, theme));
        if let Err(e) = spawned {
            // Without a worker every request is dropped and the plain fallback stays on screen;
            // worse-looking, but the console keeps working.
            tracing::warn!("cannot start the highlighting thread: {e}");
        }
        Highlighter { tx }
    }

    /// Queues `code` for highlighting; never blocks. Replaces a queued or running request with the
    /// same key, whose result is then not delivered.
    pub fn request(&self, key: u64, lang: Option<&str>, code: String) {
        // A send error means the worker is gone; the plain fallback stays, nothing else to do.
        let _ = self.tx.send(Cmd::Request(Job {
            key,
            lang: lang.map(str::to_string),
            code,
        }));
    }

    /// Highlights what is requested from now on with `theme` (as [`Self::spawn`] takes it): the console switched
    /// to a theme made for the other background. What is already queued is highlighted the old way; the
    /// console asks again for every block it shows.
    pub fn set_theme(&self, theme: &str) {
        let _ = self.tx.send(Cmd::Theme(theme.to_string()));
    }

    /// Drops a queued request or aborts a running one; nothing is delivered for it.
    pub fn cancel(&self, key: u64) {
        let _ = self.tx.send(Cmd::Cancel(key));
    }
}

/// Highlights on the calling thread (tests, screenshots, the CLI). Loads the syntax set on first
/// use. Unknown languages, and blocks over the limits, give plain lines.
pub fn highlight_now(lang: Option<&str>, code: &str, theme: &str) -> Vec<Line<'static>> {
    highlight(lang, code, theme, &mut || false).unwrap_or_else(|| plain_lines(code))
}

struct Assets {
    syntaxes: SyntaxSet,
    themes: ThemeSet,
}

/// Loaded once per process and shared by the worker and [`highlight_now`].
fn assets() -> &'static Assets {
    static ASSETS: OnceLock<Assets> = OnceLock::new();
    ASSETS.get_or_init(|| Assets {
        syntaxes: SyntaxSet::load_defaults_newlines(),
        themes: readable(ThemeSet::load_defaults()),
    })
}

/// The colour schemes with every text colour lifted to the console's contrast floor (WCAG AA, 4.5:1) against
/// the terminal background each is meant for: black for a dark scheme, white for a light one. The schemes
/// were made for their own, slightly different, backgrounds, and some colours fall short on ours:
/// InspiredGitHub's comments are about 3:1 on white, base16-ocean's 4.3:1 on black.
fn readable(mut set: ThemeSet) -> ThemeSet {
    for theme in set.themes.values_mut() {
        let light = theme
            .settings
            .background
            .is_some_and(|c| contrast::luminance([c.r, c.g, c.b]) > 0.5);
        let bg = if light {
            contrast::WHITE
        } else {
            contrast::BLACK
        };
        let lift = |c: &mut syntect::highlighting::Color| {
            let [r, g, b] = contrast::lift([c.r, c.g, c.b], bg, contrast::MIN_TEXT_CONTRAST);
            (c.r, c.g, c.b) = (r, g, b);
        };
        if let Some(c) = theme.settings.foreground.as_mut() {
            lift(c);
        }
        for item in &mut theme.scopes {
            if let Some(c) = item.style.foreground.as_mut() {
                lift(c);
            }
        }
    }
    set
}

fn theme<'a>(assets: &'a Assets, name: &str) -> Option<&'a Theme> {
    let resolved = match name {
        "dark" => "base16-ocean.dark",
        "light" => "InspiredGitHub",
        other => other,
    };
    assets
        .themes
        .themes
        .get(resolved)
        .or_else(|| assets.themes.themes.get("base16-ocean.dark"))
}

fn syntax<'a>(ss: &'a SyntaxSet, lang: Option<&str>, code: &str) -> Option<&'a SyntaxReference> {
    let found = match lang {
        Some(lang) => {
            let lower = lang.trim().to_ascii_lowercase();
            // Fence tags agents use that syntect's built-in set does not know by that name; the
            // nearest built-in grammar is better than none.
            let token = match lower.as_str() {
                "shell" | "console" | "shellsession" | "zsh" => "bash",
                "ts" | "typescript" | "tsx" | "jsx" | "mjs" | "cjs" | "node" => "js",
                "jsonc" | "json5" | "jsonl" | "ndjson" | "geojson" => "json",
                "python3" => "py",
                "csharp" | "c#" => "cs",
                "objc" | "objective-c" => "m",
                // `h` is also an Objective-C extension, and that grammar comes later in the set.
                "h" => "c",
                "golang" => "go",
                other => other,
            };
            ss.find_syntax_by_token(token)
        }
        // No tag: a shebang or `<?xml` on the first line still tells.
        None => code
            .lines()
            .next()
            .and_then(|l| ss.find_syntax_by_first_line(l)),
    }?;
    (found.name != ss.find_syntax_plain_text().name).then_some(found)
}

/// `None` when `abort` said stop; plain lines when the block is unknown or over the limits.
fn highlight(
    lang: Option<&str>,
    code: &str,
    theme_name: &str,
    abort: &mut dyn FnMut() -> bool,
) -> Option<Vec<Line<'static>>> {
    if code.len() > MAX_HIGHLIGHT_BYTES || code.lines().any(|l| l.len() > MAX_LINE_BYTES) {
        return Some(plain_lines(code));
    }
    let assets = assets();
    let (Some(syntax), Some(theme)) = (
        syntax(&assets.syntaxes, lang, code),
        theme(assets, theme_name),
    ) else {
        return Some(plain_lines(code));
    };
    let mut h = HighlightLines::new(syntax, theme);
    let mut out = Vec::new();
    for (i, line) in LinesWithEndings::from(code).enumerate() {
        if i % CHECK_EVERY_LINES == 0 && abort() {
            return None;
        }
        let Ok(ranges) = h.highlight_line(line, &assets.syntaxes) else {
            // A grammar error mid-block: all plain rather than half coloured.
            return Some(plain_lines(code));
        };
        let mut spans: Vec<Span<'static>> = Vec::new();
        for (st, text) in ranges {
            let text = text.trim_end_matches(['\n', '\r']);
            if text.is_empty() {
                continue;
            }
            let style = convert(st);
            match spans.last_mut() {
                Some(last) if last.style == style => last.content.to_mut().push_str(text),
                _ => spans.push(Span::styled(text.to_string(), style)),
            }
        }
        for s in &mut spans {
            if s.content.contains('\t') {
                s.content = s.content.replace('\t', "    ").into();
            }
        }
        out.push(Line::from(spans));
    }
    if out.is_empty() {
        out.push(Line::default());
    }
    Some(out)
}

/// Foreground only: the block sits on the terminal's own background, and a theme's background
/// colour would paint a slab behind it. Bold and italic are kept; underline is dropped, because
/// themes use it for things (links, invalid tokens) that read as hyperlinks or errors in a
/// terminal.
fn convert(st: syntect::highlighting::Style) -> Style {
    let fg = st.foreground;
    let mut style = Style::default().fg(Color::Rgb(fg.r, fg.g, fg.b));
    if st.font_style.contains(FontStyle::BOLD) {
        style = style.add_modifier(Modifier::BOLD);
    }
    if st.font_style.contains(FontStyle::ITALIC) {
        style = style.add_modifier(Modifier::ITALIC);
    }
    style
}

/// Same line count as the highlighted form, default style so the terminal's colours apply.
fn plain_lines(code: &str) -> Vec<Line<'static>> {
    let mut out: Vec<Line<'static>> = code
        .lines()
        .map(|l| Line::raw(l.replace('\t', "    ")))
        .collect();
    if out.is_empty() {
        out.push(Line::default());
    }
    out
}

#[derive(Hash, PartialEq, Eq, Clone)]
struct CacheKey {
    lang: Option<String>,
    code_hash: u64,
    code_len: usize,
    theme: String,
}

/// Bounded by entry count and by total code size; evicts in insertion order, which is close
/// enough to LRU for blocks that are re-requested while they are on screen.
#[derive(Default)]
struct Cache {
    map: HashMap<CacheKey, Vec<Line<'static>>>,
    order: VecDeque<CacheKey>,
    bytes: usize,
}

impl Cache {
    fn get(&self, key: &CacheKey) -> Option<&Vec<Line<'static>>> {
        self.map.get(key)
    }

    fn insert(&mut self, key: CacheKey, lines: Vec<Line<'static>>) {
        if key.code_len > CACHE_CODE_BYTES / 4 || self.map.contains_key(&key) {
            return;
        }
        self.bytes += key.code_len;
        self.order.push_back(key.clone());
        self.map.insert(key, lines);
        while self.map.len() > CACHE_ENTRIES || self.bytes > CACHE_CODE_BYTES {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if self.map.remove(&old).is_some() {
                self.bytes -= old.code_len;
            }
        }
    }
}

fn cache_key(job: &Job, theme: &str) -> CacheKey {
    let mut h = DefaultHasher::new();
    job.code.hash(&mut h);
    CacheKey {
        lang: job.lang.as_ref().map(|l| l.trim().to_ascii_lowercase()),
        code_hash: h.finish(),
        code_len: job.code.len(),
        theme: theme.to_string(),
    }
}

/// Requests not started yet, in arrival order, at most one per key.
#[derive(Default)]
struct Queue {
    order: VecDeque<u64>,
    jobs: HashMap<u64, Job>,
    /// The theme to highlight with from the next job on, when it changed.
    theme: Option<String>,
}

impl Queue {
    /// Takes in one command; true if it supersedes or cancels `running`.
    fn absorb(&mut self, cmd: Cmd, running: Option<u64>) -> bool {
        match cmd {
            Cmd::Request(job) => {
                let key = job.key;
                if self.jobs.insert(key, job).is_none() {
                    self.order.push_back(key);
                }
                running == Some(key)
            }
            Cmd::Cancel(key) => {
                self.jobs.remove(&key);
                running == Some(key)
            }
            Cmd::Theme(theme) => {
                // Queued jobs were asked for under the old theme and are asked again under the new one.
                self.jobs.clear();
                self.order.clear();
                self.theme = Some(theme);
                running.is_some()
            }
        }
    }

    fn pop(&mut self) -> Option<Job> {
        while let Some(key) = self.order.pop_front() {
            if let Some(job) = self.jobs.remove(&key) {
                return Some(job);
            }
        }
        None
    }
}

fn worker(rx: Receiver<Cmd>, done: UnboundedSender<HighlightDone>, mut theme: String) {
    assets();
    let mut queue = Queue::default();
    let mut cache = Cache::default();
    loop {
        let job = loop {
            if let Some(t) = queue.theme.take() {
                theme = t;
            }
            if let Some(job) = queue.pop() {
                break job;
            }
            match rx.recv() {
                Ok(cmd) => {
                    queue.absorb(cmd, None);
                }
                Err(_) => return,
            }
        };

        // Drains the channel; true when the running job must stop (superseded, cancelled, or the
        // Highlighter was dropped).
        let mut disconnected = false;
        let mut check = || {
            let mut stop = false;
            loop {
                match rx.try_recv() {
                    Ok(cmd) => stop |= queue.absorb(cmd, Some(job.key)),
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => {
                        disconnected = true;
                        stop = true;
                        break;
                    }
                }
            }
            stop
        };

        let key = cache_key(&job, &theme);
        let lines = match cache.get(&key) {
            Some(lines) => Some(lines.clone()),
            None => {
                let result = highlight(job.lang.as_deref(), &job.code, &theme, &mut check);
                if let Some(lines) = &result {
                    cache.insert(key, lines.clone());
                }
                result
            }
        };
        // One last look, so a request that arrived during the work is not answered with the
        // older text first.
        if check() || disconnected {
            if disconnected {
                return;
            }
            continue;
        }
        let Some(lines) = lines else { continue };
        if done
            .send(HighlightDone {
                key: job.key,
                lines,
            })
            .is_err()
        {
            // Nobody listens any more.
            return;
        }
    }
}

#[cfg(test)]
mod tests;
