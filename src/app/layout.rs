//! Screen geometry, shared by drawing and by mouse hit-testing so a click lands where the eye saw it.

use ratatui::layout::{Constraint, Direction, Layout, Rect};
use unicode_width::UnicodeWidthStr;

use crate::app::state::{App, View};
use crate::app::task::{Entry, Link, TaskTab};

/// Below this the console shows a "terminal too small" message instead of a broken layout.
pub const MIN_WIDTH: u16 = 60;
pub const MIN_HEIGHT: u16 = 14;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Areas {
    pub tabs: Rect,
    pub agents: Rect,
    pub main: Rect,
    pub status: Rect,
}

pub fn too_small(size: Rect) -> bool {
    size.width < MIN_WIDTH || size.height < MIN_HEIGHT
}

pub fn areas(size: Rect) -> Areas {
    let rows = Layout::default()
        .direction(Direction::Vertical)
        .constraints([
            Constraint::Length(1),
            Constraint::Min(3),
            Constraint::Length(1),
        ])
        .split(size);
    let left = (size.width / 4).clamp(22, 34);
    let cols = Layout::default()
        .direction(Direction::Horizontal)
        .constraints([Constraint::Length(left), Constraint::Min(10)])
        .split(rows[1]);
    Areas {
        tabs: rows[0],
        agents: cols[0],
        main: cols[1],
        status: rows[2],
    }
}

/// Split a task tab's pane into transcript and compose box (the box grows with its text, up to 8 rows).
pub fn tab_split(main: Rect, compose_lines: usize) -> (Rect, Rect) {
    let h = (compose_lines as u16 + 2)
        .clamp(3, 8)
        .min(main.height.saturating_sub(3));
    let rows = Layout::default()
        .direction(Direction::Vertical)
        .constraints([Constraint::Min(1), Constraint::Length(h)])
        .split(main);
    (rows[0], rows[1])
}

/// The columns an agent's name gets in a tab title.
const TAB_NAME_WIDTH: usize = 14;

/// The first cell of a tab's title: `▶` on the one on screen. Its style is reversed, but so is a tab that waits
/// for the user: under NO_COLOR only this mark tells them apart (the width is the same either way).
fn active_mark(app: &App, view: View) -> &'static str {
    if app.view == view { "▶" } else { " " }
}

/// The tab bar's items: the agent's card and skills pages, then one per conversation.
pub fn tab_items(app: &App) -> Vec<(View, String)> {
    let waiting = app.tabs.iter().filter(|t| t.waiting()).count();
    let board = if waiting > 0 {
        format!("Board ({waiting} waiting)")
    } else {
        "Board".to_string()
    };
    let page = |v: View, title: &str| (v, format!("{}{title} ", active_mark(app, v)));
    let mut items = vec![
        page(View::Card, "Card"),
        page(View::Skills, "Skills"),
        page(View::Board, &board),
        page(View::Split, "Split"),
    ];
    // The agents' names as the tabs show them, each cut where it still tells it from the others.
    let mut names: Vec<&str> = app.tabs.iter().map(|t| t.agent_name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    for (i, t) in app.tabs.iter().enumerate() {
        let id = t.short_task().map(|s| format!(" {s}")).unwrap_or_default();
        let rounds = if t.input_rounds > 1 {
            format!(" ×{}", t.input_rounds)
        } else {
            String::new()
        };
        let alert = if t.attention { " •" } else { "" };
        let mut name = crate::app::names::shorten(&t.agent_name, &names, TAB_NAME_WIDTH);
        // A look-alike name carries its origin in the title, so two such tabs never read the same.
        if let Some(origin) = app.lookalike_origin(t.agent) {
            name = format!("{name} ≈{origin}");
        }
        items.push((
            View::Tab(t.id),
            format!(
                "{}{} {name}{id} {} {}{}{rounds}{alert} ",
                active_mark(app, View::Tab(t.id)),
                i + 1,
                live_symbol(app, t),
                t.badge_label(),
                elapsed(app, t)
            ),
        ));
    }
    items
}

/// The tab bar as drawn at a width: the pages (card, skills, board, split) always, then the window of task tabs
/// that holds the active one, with how many tabs are hidden on either side.
#[derive(Debug, Clone, PartialEq)]
pub struct TabBar {
    pub pages: Vec<(View, String)>,
    pub tabs: Vec<(View, String)>,
    pub hidden_left: usize,
    pub hidden_right: usize,
}

/// "‹ 3 more", drawn before the window when tabs are hidden on its left.
/// How many rows the agent list gives the agent at `i`: its name, a look-alike note, its state, where its
/// credential goes, a missing client certificate, its last check, and the signature line (as `ui::agents`
/// draws them), so a click lands on the agent drawn there.
pub fn agent_rows(app: &App, i: usize) -> usize {
    let Some(a) = app.agents.get(i) else {
        return 0;
    };
    3 + usize::from(app.lookalike_origin(a.id).is_some())
        + usize::from(a.credential_destination().is_some())
        + usize::from(a.mtls_missing().is_some())
        + usize::from(a.check.line().is_some())
        + usize::from(a.card_changes.is_some())
}

/// The agent drawn at `row` of the list's inside (row 0: the first agent's name).
pub fn agent_at_row(app: &App, row: usize) -> Option<usize> {
    let mut top = 0;
    for i in 0..app.agents.len() {
        let h = agent_rows(app, i);
        if row < top + h {
            return Some(i);
        }
        top += h;
    }
    None
}

pub fn more_left(n: usize) -> String {
    format!(" ‹ {n} more ")
}

/// "2 more ›", drawn after the window when tabs are hidden on its right.
pub fn more_right(n: usize) -> String {
    format!(" {n} more › ")
}

/// The pages before the task tabs in [`tab_items`].
const PAGES: usize = 4;

pub fn tab_bar(app: &App, width: u16) -> TabBar {
    let mut items = tab_items(app);
    let tabs = items.split_off(PAGES.min(items.len()));
    let w = |s: &str| s.width() + 1;
    let width = width as usize;
    let pages_w: usize = items.iter().map(|(_, t)| w(t)).sum();
    let widths: Vec<usize> = tabs.iter().map(|(_, t)| w(t)).collect();
    let n = tabs.len();
    let fits = |start: usize, end: usize| {
        let left = if start > 0 { w(&more_left(start)) } else { 0 };
        let right = if end < n { w(&more_right(n - end)) } else { 0 };
        let body: usize = widths.get(start..end).map(|s| s.iter().sum()).unwrap_or(0);
        pages_w + left + right + body <= width
    };
    let (mut start, mut end) = match tabs.iter().position(|(v, _)| *v == app.view) {
        Some(a) => (a, a + 1),
        None => (0, 0),
    };
    // Grow the window around the active tab, a tab to the left then one to the right, while it fits.
    loop {
        let left = start > 0 && fits(start - 1, end);
        if left {
            start -= 1;
        }
        let right = end < n && fits(start, end + 1);
        if right {
            end += 1;
        }
        if !left && !right {
            break;
        }
    }
    TabBar {
        pages: items,
        tabs: tabs.get(start..end).map(<[_]>::to_vec).unwrap_or_default(),
        hidden_left: start,
        hidden_right: n - end,
    }
}

/// Which tab-bar item is at column `x` (the "more" hints are not items).
pub fn tab_at(app: &App, x: u16) -> Option<View> {
    let bar = tab_bar(app, app.size.0);
    let w = |s: &str| s.width() as u16 + 1;
    let mut col = 0u16;
    let left = (bar.hidden_left > 0).then(|| (None, more_left(bar.hidden_left)));
    let items = bar
        .pages
        .into_iter()
        .map(|(v, t)| (Some(v), t))
        .chain(left)
        .chain(bar.tabs.into_iter().map(|(v, t)| (Some(v), t)));
    for (view, title) in items {
        let cw = w(&title);
        if x >= col && x < col + cw {
            return view;
        }
        col += cw;
    }
    None
}

/// Does the task run on a live link (submitted or working, the stream open)? Only then does a spinner turn
/// (the runtime ticks only while something is live, so an idle console draws nothing new).
pub fn running(t: &TaskTab) -> bool {
    matches!(
        t.log.state,
        a2a::TaskState::Submitted | a2a::TaskState::Working
    ) && t.log.task_id.is_some()
        && !t.gone
        && matches!(t.link, Link::Live | Link::Connecting)
}

/// The spinner's current frame (one column wide), turned by the app's tick.
pub fn spinner(app: &App) -> &'static str {
    const FRAMES: [&str; 4] = ["◐", "◓", "◑", "◒"];
    FRAMES
        .get(app.spinner % FRAMES.len())
        .copied()
        .unwrap_or("◐")
}

/// The badge symbol, or a spinner frame (all one column wide) while the task runs.
pub fn live_symbol(app: &App, t: &TaskTab) -> &'static str {
    if running(t) {
        spinner(app)
    } else {
        t.badge().symbol()
    }
}

/// " · 0:42" since the task entered its state, while it runs (from the last tick's clock: a frame never reads
/// it).
pub fn elapsed(app: &App, t: &TaskTab) -> String {
    if !running(t) {
        return String::new();
    }
    clock_since(app, t.state_since)
}

/// " · 0:42" (or " · 1:02:03") from `since` to the last tick.
pub fn clock_since(app: &App, since: chrono::DateTime<chrono::Utc>) -> String {
    let secs = (app.now - since).num_seconds().max(0);
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    if h > 0 {
        format!(" · {h}:{m:02}:{s:02}")
    } else {
        format!(" · {m}:{s:02}")
    }
}

/// While an approval is on its way (a configured OAuth credential is fetched from its token endpoint first,
/// then the follow-up is sent and answered): " · approving ◐ · 0:03"; else nothing.
pub fn approving(app: &App, t: &TaskTab) -> Option<String> {
    let since = t.approving_since?;
    (t.log.resuming && t.link == crate::app::task::Link::Connecting && !t.gone)
        .then(|| format!("approving {}{}", spinner(app), clock_since(app, since)))
}

/// Lines of a piece of remote text as drawn: its provenance, its lines (at least one), its flags.
pub(super) fn remote_len(text: &crate::trust::sanitize::Untrusted) -> usize {
    1 + text.as_str().lines().count().max(1) + text.findings.flags.len()
}

/// How many logical lines an entry takes, without laying it out (so scrolling a long transcript stays cheap).
pub fn entry_len(t: &TaskTab, e: &Entry) -> usize {
    match e {
        Entry::User { text, files, .. } => 1 + text.lines().count() + files.len(),
        Entry::Remote { text, .. } => remote_len(text),
        Entry::Console { quote, .. } => 1 + quote.as_deref().map_or(0, remote_len),
        Entry::State { .. } => 1,
        Entry::Artifact { index } => t.artifacts.get(*index).map(artifact_len).unwrap_or(0),
    }
}

/// Lines an artifact takes: its header, file and flag lines, then its text as laid out (with the raw tail of
/// one still arriving), or plain.
pub fn artifact_len(a: &crate::app::task::ArtifactView) -> usize {
    let files = if a.files_in_head() { a.files.len() } else { 0 };
    let head = 1 + files + a.flagged.len();
    let body = match &a.rendered {
        Some(blocks) => blocks.iter().map(|b| b.lines.len()).sum::<usize>() + a.raw_tail_lines(),
        None => a.text.line_count(),
    };
    head + body
}

/// The logical line where each artifact's header starts (for jumping between artifacts): the lines of the
/// entries before it, counted as the transcript draws them.
pub fn artifact_starts(t: &TaskTab) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut line = 0;
    for e in &t.transcript {
        if let Entry::Artifact { index } = e
            && t.artifacts.get(*index).is_some()
        {
            starts.push(line);
        }
        line += entry_len(t, e);
    }
    starts
}

/// A place `{` / `}` stop at: an artifact's header (its first part), or the header of one of its other parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartStop {
    pub line: usize,
    pub artifact: usize,
    pub part: usize,
}

/// Every part of every artifact, in transcript order, with the logical line it starts on. An artifact still
/// arriving (drawn as plain text) stops at its text parts' first lines.
pub fn part_stops(t: &TaskTab) -> Vec<PartStop> {
    let mut stops = Vec::new();
    let mut line = 0;
    for e in &t.transcript {
        if let Entry::Artifact { index } = e
            && let Some(a) = t.artifacts.get(*index)
        {
            stops.push(PartStop {
                line,
                artifact: *index,
                part: 0,
            });
            let files = if a.files_in_head() { a.files.len() } else { 0 };
            let head = line + 1 + files + a.flagged.len();
            for (k, p) in a.parts.iter().enumerate().skip(1) {
                let at = match (&a.rendered, p.header_block) {
                    (Some(blocks), Some(h)) => blocks
                        .get(..h)
                        .map(|b| b.iter().map(|b| b.lines.len()).sum::<usize>()),
                    (None, _) if p.range.end > p.range.start => Some(p.first_line),
                    _ => None,
                };
                if let Some(at) = at {
                    stops.push(PartStop {
                        line: head + at,
                        artifact: *index,
                        part: k,
                    });
                }
            }
        }
        line += entry_len(t, e);
    }
    stops
}

/// The part at the top of the transcript (the newest one while it follows the end).
pub fn current_part(t: &TaskTab) -> Option<PartStop> {
    let stops = part_stops(t);
    match t.scroll {
        Some(top) => stops
            .iter()
            .rev()
            .find(|s| s.line <= top)
            .or(stops.first())
            .copied(),
        None => stops.last().copied(),
    }
}
