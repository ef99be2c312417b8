//! The board (every task across agents, the ones needing a human first) and the split view (up to four live
//! tasks side by side).

use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use unicode_width::UnicodeWidthStr;

use super::badge_style;
use crate::app::board;
use crate::app::ids::TabId;
use crate::app::layout;
use crate::app::names;
use crate::app::state::{App, Focus};
use crate::app::task::TaskTab;
use crate::config::keymap::actions::Action;

/// The agent column's usual width, and the most it grows to when names would read the same in it.
const AGENT_COLUMN: usize = 18;
const AGENT_COLUMN_MAX: usize = 32;
/// The same under 110 columns, where the message needs the room more.
const AGENT_COLUMN_NARROW: usize = 14;
const AGENT_COLUMN_NARROW_MAX: usize = 24;
/// The columns the last message keeps when agents' names would want the agent column wider.
const MESSAGE_ROOM: usize = 24;

fn since(t: chrono::DateTime<chrono::Utc>) -> String {
    let s = (chrono::Utc::now() - t).num_seconds().max(0);
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        _ => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
    }
}

/// The board's columns at its width: the agent column sized to the names on the board, the last message
/// given the rest.
struct Columns<'a> {
    /// Every agent name on the board, sorted and once each (a name is cut against the others).
    names: Vec<&'a str>,
    /// Whether the context and "updated" columns are shown (110 columns and more).
    with_context: bool,
    agent_w: usize,
    /// The room the last message gets.
    room: usize,
}

pub fn draw_board(f: &mut Frame, app: &App, area: Rect) {
    let t = &app.theme;
    let rows = board::rows(app);
    let filters = filters(app);
    let keys = |a: Action| app.keymap.keys_for(a).first().cloned().unwrap_or_default();
    let clear = keys(Action::BoardClearFilters);
    let block = board_block(app, rows.len(), &filters, &clear);
    let cols = columns(app, &rows, area);
    let mut lines = vec![head_line(app, &cols)];
    if rows.is_empty() && app.board.filtered() {
        lines.push(Line::styled(
            format!("  no task matches {} · {clear} clears", filters.join(", ")),
            t.dim,
        ));
    } else if rows.is_empty() {
        lines.push(Line::styled(
            "  no tasks yet: n starts one, I imports an agent's tasks",
            t.dim,
        ));
    }
    for (i, id) in rows.iter().enumerate() {
        let Some(tab) = app.tab(*id) else {
            continue;
        };
        lines.push(row_line(app, &cols, i, id, tab));
    }
    f.render_widget(Paragraph::new(lines).block(block), area);
}

/// The board's filters in words (`agent X`, `state working`, `text "y"`).
fn filters(app: &App) -> Vec<String> {
    let mut filters = Vec::new();
    if let Some(a) = app.board.agent_filter.and_then(|a| app.agent(a)) {
        filters.push(format!("agent {}", a.name()));
    }
    if let Some(s) = app.board.state_filter {
        filters.push(format!("state {}", s.label()));
    }
    if !app.board.query.is_empty() {
        filters.push(format!("text {:?}", app.board.query));
    }
    filters
}

/// The board's frame: its title counts the tasks, names the filters and the keys that change them.
fn board_block<'a>(app: &App, count: usize, filters: &[String], clear: &str) -> Block<'a> {
    let t = &app.theme;
    let keys = |a: Action| app.keymap.keys_for(a).first().cloned().unwrap_or_default();
    let title = format!(
        " Board · {} task(s){} · Enter opens · {} agent · {} state · {} search · {} marks for split ",
        count,
        if filters.is_empty() {
            String::new()
        } else {
            format!(" · {} ({clear} clears)", filters.join(", "))
        },
        keys(Action::BoardFilterAgent),
        keys(Action::BoardFilterState),
        keys(Action::BoardSearch),
        keys(Action::BoardMark),
    );
    Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(title, t.title))
        .border_style(if app.focus == Focus::Main {
            t.border_focus
        } else {
            t.border
        })
}

fn columns<'a>(app: &'a App, rows: &[TabId], area: Rect) -> Columns<'a> {
    // Below 110 columns the context and "updated" columns go and the agent column narrows, so the last
    // message keeps room to be read (a 100-column terminal leaves the board about 73).
    let inner = area.width.saturating_sub(2) as usize;
    let with_context = inner >= 110;
    // The agent column: 18 wide (14 when narrow), wider when agents' names share their first words and would
    // otherwise only differ in what is cut off; up to 32 (24 when narrow), and never so wide that the last
    // message keeps less than MESSAGE_ROOM (a name cut shorter than it is keeps its distinguishing words:
    // `names::shorten`).
    let mut names: Vec<&str> = rows
        .iter()
        .filter_map(|id| app.tab(*id))
        .map(|tab| tab.agent_name.as_str())
        .collect();
    names.sort_unstable();
    names.dedup();
    let (agent_min, agent_max) = if with_context {
        (AGENT_COLUMN, AGENT_COLUMN_MAX)
    } else {
        (AGENT_COLUMN_NARROW, AGENT_COLUMN_NARROW_MAX)
    };
    // What the other columns take; the last message gets the rest, and a grown agent column leaves it at
    // least MESSAGE_ROOM.
    let beside = 4 + 1 + 11 + if with_context { 11 + 9 } else { 0 } + 16 + 14 + 1;
    let agent_room = inner.saturating_sub(beside + MESSAGE_ROOM);
    let agent_w = names::column_width(&names, agent_min, agent_max.min(agent_room));
    let room = inner.saturating_sub(beside + agent_w).max(12);
    Columns {
        names,
        with_context,
        agent_w,
        room,
    }
}

/// The row that names the columns.
fn head_line(app: &App, cols: &Columns<'_>) -> Line<'static> {
    let Columns {
        with_context,
        agent_w,
        ..
    } = *cols;
    let updated_head = if with_context {
        format!(" {:>8}", "updated")
    } else {
        String::new()
    };
    let context_head = if with_context {
        format!("{:<10} ", "context")
    } else {
        String::new()
    };
    Line::styled(
        format!(
            "    {:<agent_w$} {:<10} {context_head}{:<16} {:>6}{updated_head} {:>4}  last message",
            "agent", "task", "state", "in st.", "⚠"
        ),
        app.theme.dim,
    )
}

/// One task's row: the agent, task (and context), state and how long in it, flags, and its last message.
fn row_line(app: &App, cols: &Columns<'_>, i: usize, id: &TabId, tab: &TaskTab) -> Line<'static> {
    let t = &app.theme;
    let Columns {
        ref names,
        with_context,
        agent_w,
        room,
    } = *cols;
    let b = tab.badge();
    let sel = i == app.board.selected;
    let short = |s: Option<String>| s.unwrap_or_else(|| "—".into());
    // Its first line, cut after a whole word with `…` when it does not fit.
    let first_line = tab
        .last_remote_text()
        .unwrap_or("")
        .lines()
        .next()
        .unwrap_or("");
    let last = super::wrap::fit_words(first_line, room);
    let name = names::shorten(&tab.agent_name, names, agent_w);
    let pad = agent_w.saturating_sub(name.width());
    // A look-alike name: its origin after the row's name column, in the flag style.
    let lookalike = app
        .lookalike_origin(tab.agent)
        .map(|o| format!("≈{o} "))
        .unwrap_or_default();
    let row_style = if sel { t.selection } else { t.text };
    let mark = if app.board.marked.contains(id) {
        "● "
    } else {
        "  "
    };
    Line::from(vec![
        Span::styled(if sel { "▶ " } else { "  " }, t.accent),
        Span::styled(mark, t.accent),
        Span::styled(format!("{name}{} ", " ".repeat(pad)), row_style),
        Span::styled(lookalike, t.flag),
        Span::styled(
            if with_context {
                format!(
                    "{:<10} {:<10} ",
                    short(tab.short_task()),
                    short(tab.short_context())
                )
            } else {
                format!("{:<10} ", short(tab.short_task()))
            },
            row_style,
        ),
        Span::styled(
            format!("{} {:<14}", layout::live_symbol(app, tab), b.label()),
            badge_style(t, b),
        ),
        Span::styled(
            format!(
                " {:>6}{} {:>4}  ",
                if tab.state_since_known {
                    since(tab.state_since)
                } else {
                    "—".into()
                },
                if with_context {
                    format!(" {:>8}", since(tab.last_update))
                } else {
                    String::new()
                },
                tab.flag_count
            ),
            row_style,
        ),
        Span::styled(super::wrap::BAR, t.remote_label),
        Span::styled(last, t.remote_text),
    ])
}

pub fn draw_split(f: &mut Frame, app: &App, area: Rect) {
    let ids = board::split_tabs(app);
    // One line says which tasks these are and how to choose others.
    let [head, area] = Layout::default()
        .direction(Direction::Vertical)
        .constraints([Constraint::Length(1), Constraint::Min(1)])
        .areas(area);
    let mark = app
        .keymap
        .keys_for(Action::BoardMark)
        .first()
        .cloned()
        .unwrap_or_default();
    let rule = match board::split_rule(app) {
        board::SplitRule::Marked => {
            let n = app
                .board
                .marked
                .iter()
                .filter(|m| app.tab(**m).is_some())
                .count();
            let more = n.saturating_sub(ids.len());
            let more = if more > 0 {
                format!(" ({more} more marked, not shown)")
            } else {
                String::new()
            };
            format!(
                " Split · the {} task(s) marked on the board{more} · {mark} on the board marks or unmarks ",
                ids.len()
            )
        }
        board::SplitRule::Newest => format!(
            " Split · none marked: the {} newest live task(s) · mark tasks on the board with {mark} ",
            ids.len()
        ),
    };
    f.render_widget(Paragraph::new(Span::styled(rule, app.theme.title)), head);
    if ids.is_empty() {
        let block = Block::default()
            .borders(Borders::ALL)
            .title(Span::styled(" Split view ", app.theme.title))
            .border_style(app.theme.border);
        f.render_widget(
            Paragraph::new("No tasks yet: n starts one.")
                .style(app.theme.dim)
                .block(block),
            area,
        );
        return;
    }
    let n = ids.len();
    let rows = if n > 2 { 2 } else { 1 };
    let row_areas = Layout::default()
        .direction(Direction::Vertical)
        .constraints(vec![Constraint::Ratio(1, rows); rows as usize])
        .split(area);
    let mut panes = Vec::new();
    for (r, row) in row_areas.iter().enumerate() {
        let in_row = if rows == 1 {
            n
        } else if r == 0 {
            n.div_ceil(2)
        } else {
            n / 2
        };
        let cols = Layout::default()
            .direction(Direction::Horizontal)
            .constraints(vec![
                Constraint::Ratio(1, in_row.max(1) as u32);
                in_row.max(1)
            ])
            .split(*row);
        panes.extend(cols.iter().copied());
    }
    for (i, (id, pane)) in ids.iter().zip(panes).enumerate() {
        let Some(tab) = app.tab(*id) else {
            continue;
        };
        let b = tab.badge();
        let sel = i == app.board.selected;
        let title = Line::from(vec![
            Span::styled(format!(" {} ", tab.agent_name), app.theme.title),
            Span::styled(
                format!(
                    "{} {}{} ",
                    layout::live_symbol(app, tab),
                    b.label(),
                    layout::elapsed(app, tab)
                ),
                badge_style(&app.theme, b),
            ),
            Span::styled(
                format!("{} ", tab.short_task().unwrap_or_default()),
                app.theme.dim,
            ),
        ]);
        let block = Block::default()
            .borders(Borders::ALL)
            .title(title)
            .border_style(if sel {
                app.theme.border_focus
            } else {
                app.theme.border
            });
        let inner = block.inner(pane);
        let (lines, _, _) = super::tab::visible_rows(
            &app.theme,
            tab,
            inner.width as usize,
            inner.height as usize,
            None,
        );
        f.render_widget(Paragraph::new(lines).block(block), pane);
    }
}
