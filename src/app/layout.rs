//! Screen geometry, shared by drawing and by mouse hit-testing so a click lands where the eye saw it.

use ratatui::layout::{Constraint, Direction, Layout, Rect};
use unicode_width::UnicodeWidthStr;

use crate::app::state::{App, View};
use crate::app::task::{Entry, TaskTab};

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

/// The tab bar's items: the agent's card and skills pages, then one per conversation.
pub fn tab_items(app: &App) -> Vec<(View, String)> {
    let waiting = app.tabs.iter().filter(|t| t.waiting()).count();
    let board = if waiting > 0 {
        format!(" Board ({waiting} waiting) ")
    } else {
        " Board ".to_string()
    };
    let mut items = vec![
        (View::Card, " Card ".to_string()),
        (View::Skills, " Skills ".to_string()),
        (View::Board, board),
        (View::Split, " Split ".to_string()),
    ];
    for (i, t) in app.tabs.iter().enumerate() {
        let badge = t.badge();
        let id = t.short_task().map(|s| format!(" {s}")).unwrap_or_default();
        let rounds = if t.input_rounds > 1 {
            format!(" ×{}", t.input_rounds)
        } else {
            String::new()
        };
        let alert = if t.attention { " •" } else { "" };
        let name: String = t.agent_name.chars().take(14).collect();
        items.push((
            View::Tab(t.id),
            format!(
                " {} {name}{id} {} {}{rounds}{alert} ",
                i + 1,
                badge.symbol(),
                t.badge_label()
            ),
        ));
    }
    items
}

/// Which tab-bar item is at column `x`.
pub fn tab_at(app: &App, x: u16) -> Option<View> {
    let mut col = 0u16;
    for (view, title) in tab_items(app) {
        let w = title.width() as u16 + 1;
        if x >= col && x < col + w {
            return Some(view);
        }
        col += w;
    }
    None
}

/// How many logical lines an entry takes, without laying it out (so scrolling a long transcript stays cheap).
pub fn entry_len(t: &TaskTab, e: &Entry) -> usize {
    match e {
        Entry::User { text, files, .. } => 1 + text.lines().count() + files.len(),
        Entry::Remote { text, .. } => {
            1 + text.as_str().lines().count().max(1) + text.findings.flags.len()
        }
        Entry::State { .. } | Entry::Console { .. } => 1,
        Entry::Artifact { index } => t.artifacts.get(*index).map(artifact_len).unwrap_or(0),
    }
}

/// Lines an artifact takes: its header, file and flag lines, then its text as laid out (or plain).
pub fn artifact_len(a: &crate::app::task::ArtifactView) -> usize {
    let files = if a.files_in_head() { a.files.len() } else { 0 };
    let head = 1 + files + a.flagged.len();
    let body = match &a.rendered {
        Some(blocks) => blocks.iter().map(|b| b.lines.len()).sum(),
        None => a.line_count,
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
