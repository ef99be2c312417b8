//! A tab's transcript tools: search (`/`, `n`, `N`, Esc), the selected entry (`,` `.`), copying it or one of its
//! code blocks (`y`, `Y`: an OSC 52 write the runtime does on this request only) and the raw JSON viewer (`J`).

use ratatui_textarea::TextArea;

use crate::app::layout;
use crate::app::msg::Effect;
use crate::app::parts::human_bytes;
use crate::app::search;
use crate::app::state::{App, Overlay, PromptKind};
use crate::app::task::{Entry, TaskTab};
use crate::task::log::prints::Print;
use crate::trust::sanitize::floor_char_boundary;

/// The largest OSC 52 payload sent (base64 bytes). Terminals cap it (xterm ~100 000, some far lower) and a
/// refused one is dropped silently, so past this the user is told to save or export instead.
pub const OSC52_LIMIT: usize = 100_000;

/// Rows above a match or a selected entry when the view scrolls to it.
const CONTEXT: usize = 2;

pub(super) fn open_search(app: &mut App) -> Vec<Effect> {
    let Some(t) = app.active_tab() else {
        return vec![];
    };
    // An empty box: what is typed is the new query (the old one stays in the title until Enter).
    app.overlay = Some(Overlay::Prompt {
        kind: PromptKind::TranscriptSearch(t.id),
        input: Box::new(TextArea::default()),
    });
    vec![]
}

/// The prompt's Enter: search for `query` (empty clears the search).
pub(super) fn submit_search(
    app: &mut App,
    tab: crate::app::ids::TabId,
    query: &str,
) -> Vec<Effect> {
    let page = page(app);
    let Some(t) = app.tab_mut(tab) else {
        return vec![];
    };
    let Some(mut s) = search::search(t, query) else {
        t.search = None;
        return vec![];
    };
    // The first match at or below the top of what is on screen, as a pager does.
    let top = view_top(t, page);
    s.current = s.matches.iter().position(|m| m.line >= top).unwrap_or(0);
    let found = !s.matches.is_empty();
    let label = s.label();
    t.search = Some(s);
    scroll_to_current(t);
    app.set_status(label, !found);
    vec![]
}

/// `n` / `N`. Without a search, `n` is the global "new task" (so the key keeps its meaning outside a search).
pub(super) fn step_search(app: &mut App, forward: bool) -> Vec<Effect> {
    let has = app.active_tab().is_some_and(|t| t.search.is_some());
    if !has {
        if forward {
            return super::run_action(app, crate::config::keymap::actions::Action::NewTask);
        }
        app.set_status("no search in this tab: / starts one", false);
        return vec![];
    }
    let Some(t) = app.active_tab_mut() else {
        return vec![];
    };
    refresh_if_stale(t);
    let Some(s) = t.search.as_mut() else {
        return vec![];
    };
    let n = s.matches.len();
    if n == 0 {
        let label = s.label();
        app.set_status(label, true);
        return vec![];
    }
    let wrapped = if forward {
        s.current + 1 >= n
    } else {
        s.current == 0
    };
    s.current = if forward {
        (s.current + 1) % n
    } else {
        (s.current + n - 1) % n
    };
    let mut label = s.label();
    if wrapped {
        label.push_str(if forward {
            " · wrapped to the top"
        } else {
            " · wrapped to the bottom"
        });
    }
    scroll_to_current(t);
    app.set_status(label, false);
    vec![]
}

/// Esc in a tab with a search: clear it (true), else the key does what it does elsewhere.
pub(super) fn clear_search(app: &mut App) -> bool {
    match app.active_tab_mut() {
        Some(t) if t.search.is_some() || t.selected.is_some() => {
            // One Esc clears the search first, the next the selection.
            if t.search.take().is_none() {
                t.selected = None;
            }
            true
        }
        _ => false,
    }
}

/// After every message: a tab whose text changed under its search (a stream, a push, a refresh, a stored
/// transcript loading) searches again when it is small, else marks the list out of date and brings it up to
/// date at the next `n`/`N` (a flood must not re-scan megabytes per event).
pub fn follow_searches(app: &mut App) {
    for t in app.tabs.iter_mut() {
        let Some(made_from) = t.search.as_ref().map(|s| s.made_from) else {
            continue;
        };
        let now = search::extent(t);
        if now == made_from {
            continue;
        }
        if now.1 <= search::LIVE_RESCAN_BYTES {
            refresh(t);
        } else if let Some(s) = t.search.as_mut() {
            s.stale = true;
            s.made_from = now;
        }
    }
}

fn refresh_if_stale(t: &mut TaskTab) {
    if t.search.as_ref().is_some_and(|s| s.stale) {
        refresh(t);
    }
}

/// Search again, staying on the same match (or the next one after it).
fn refresh(t: &mut TaskTab) {
    let Some(old) = t.search.take() else {
        return;
    };
    let at = old.current_match();
    t.search = search::search(t, &old.query).map(|mut s| {
        s.current = at
            .and_then(|m| {
                s.matches
                    .iter()
                    .position(|n| (n.line, n.nth) >= (m.line, m.nth))
            })
            .unwrap_or(0);
        s
    });
}

/// Bring the current match on screen and select the entry it is in, so `y` then copies what the search found.
fn scroll_to_current(t: &mut TaskTab) {
    if let Some(m) = t.search.as_ref().and_then(|s| s.current_match()) {
        t.scroll = Some(m.line.saturating_sub(CONTEXT));
        t.selected = entry_at(t, m.line);
    }
}

/// The index of the entry that logical line `line` belongs to.
fn entry_at(t: &TaskTab, line: usize) -> Option<usize> {
    let mut start = 0;
    for (i, e) in t.transcript.iter().enumerate() {
        let end = start + layout::entry_len(t, e);
        if line < end {
            return Some(i);
        }
        start = end;
    }
    None
}

fn page(app: &App) -> usize {
    app.size.1.saturating_sub(8).max(1) as usize
}

/// The first logical line on screen (following: the last page).
fn view_top(t: &TaskTab, page: usize) -> usize {
    t.scroll
        .unwrap_or_else(|| t.total_lines().saturating_sub(page))
}

/// The logical line where entry `i` starts.
pub fn entry_start(t: &TaskTab, i: usize) -> usize {
    t.transcript
        .iter()
        .take(i)
        .map(|e| layout::entry_len(t, e))
        .sum()
}

/// `,` / `.`: move the selection (from nothing: the newest entry) and bring it on screen.
pub(super) fn select(app: &mut App, forward: bool) -> Vec<Effect> {
    let Some(t) = app.active_tab_mut() else {
        return vec![];
    };
    let n = t.transcript.len();
    if n == 0 {
        app.set_status("nothing in this transcript to select yet", false);
        return vec![];
    }
    let next = match t.selected {
        None => n - 1,
        Some(i) if forward => (i + 1).min(n - 1),
        Some(i) => i.saturating_sub(1),
    };
    t.selected = Some(next);
    t.code_block = 0;
    t.scroll = Some(entry_start(t, next).saturating_sub(CONTEXT));
    vec![]
}

/// What an entry holds for the clipboard (the sanitised text the screen shows) and a few words naming it.
fn entry_text(t: &TaskTab, e: &Entry) -> (String, String) {
    match e {
        Entry::User { text, files, .. } => {
            let mut s = text.clone();
            for f in files {
                s.push_str(&format!("\n📎 {f}"));
            }
            (s, "your message".into())
        }
        Entry::Remote { text, .. } => (
            text.as_str().to_string(),
            format!("{} from {}", text.provenance.field, text.provenance.agent),
        ),
        Entry::State { state, .. } => (
            format!("state → {}", crate::task::phase::state_name(state)),
            "state change".into(),
        ),
        Entry::Console { text, quote, .. } => (
            match quote {
                Some(q) => format!("{text} {}", q.as_str()),
                None => text.clone(),
            },
            "console note".into(),
        ),
        Entry::Artifact { index } => t
            .artifacts
            .get(*index)
            .map(|a| {
                let name = a.label();
                // A spooled text is never read whole for the clipboard: `copy` refuses it by its size first.
                (
                    a.text.as_str().unwrap_or_default().to_string(),
                    format!("artifact {name:?}"),
                )
            })
            .unwrap_or_default(),
    }
}

/// The selected entry, selecting the newest when there is none (so `y` alone copies the latest answer).
fn selected_entry(app: &mut App) -> Option<(String, String)> {
    let t = app.active_tab_mut()?;
    let i = match t.selected {
        Some(i) if i < t.transcript.len() => i,
        _ => {
            let i = t.transcript.len().checked_sub(1)?;
            t.selected = Some(i);
            i
        }
    };
    let e = t.transcript.get(i)?;
    Some(entry_text(t, e))
}

/// The size of the selected artifact's text when it is spooled (too large to be read whole for a copy).
fn selected_spooled(app: &App) -> Option<usize> {
    let t = app.active_tab()?;
    let Some(Entry::Artifact { index }) = t.selected.and_then(|i| t.transcript.get(i)) else {
        return None;
    };
    let a = t.artifacts.get(*index)?;
    a.text.is_spooled().then(|| a.text.len())
}

/// `y`.
pub(super) fn copy(app: &mut App) -> Vec<Effect> {
    let selected = selected_entry(app);
    if let (Some((_, what)), Some(size)) = (&selected, selected_spooled(app)) {
        too_large_for_clipboard(app, what, size);
        return vec![];
    }
    match selected {
        Some((text, what)) => clipboard(app, text, what),
        None => {
            app.set_status("nothing in this transcript to copy yet", true);
            vec![]
        }
    }
}

/// `Y`: the selected entry's code blocks in turn.
pub(super) fn copy_code(app: &mut App) -> Vec<Effect> {
    let Some((text, what)) = selected_entry(app) else {
        app.set_status("nothing in this transcript to copy yet", true);
        return vec![];
    };
    if let Some(size) = selected_spooled(app) {
        too_large_for_clipboard(app, &what, size);
        return vec![];
    }
    let Some(t) = app.active_tab_mut() else {
        return vec![];
    };
    let blocks = code_blocks(&code_source(t).unwrap_or(text));
    if blocks.is_empty() {
        app.set_status(
            format!("{what} has no code block (y copies all of it)"),
            true,
        );
        return vec![];
    }
    let blocks_len = blocks.len();
    let k = t.code_block % blocks_len;
    t.code_block = k + 1;
    let block = blocks.into_iter().nth(k).unwrap_or_default();
    let n = t.code_block;
    let total = blocks_len;
    clipboard(app, block, format!("code block {n}/{total} of {what}"))
}

/// For a selected multi-part artifact, the text its code blocks are read from: its markdown parts only (a
/// plain-text or JSON part is shown as it is, so a fence in it is not a code block on screen).
fn code_source(t: &TaskTab) -> Option<String> {
    let Some(Entry::Artifact { index }) = t.selected.and_then(|i| t.transcript.get(i)) else {
        return None;
    };
    let a = t.artifacts.get(*index)?;
    if a.parts.len() <= 1 {
        return None;
    }
    let md: Vec<std::borrow::Cow<'_, str>> = a
        .parts
        .iter()
        .filter(|p| p.kind == crate::app::parts::PartKind::Markdown)
        .filter_map(|p| a.text.get(p.range.clone()))
        .collect();
    Some(md.join("\n"))
}

/// Fenced code blocks (``` or ~~~) of a Markdown text, without their fences.
pub fn code_blocks(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut open: Option<(&str, Vec<&str>)> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let fence = ["```", "~~~"].into_iter().find(|f| trimmed.starts_with(f));
        match (&mut open, fence) {
            (None, Some(f)) => open = Some((f, Vec::new())),
            (Some((f, body)), Some(g)) if *f == g && trimmed.trim_end() == g => {
                out.push(body.join("\n"));
                open = None;
            }
            (Some((_, body)), _) => body.push(line),
            (None, None) => {}
        }
    }
    // An unclosed fence runs to the end (as Markdown renders it).
    if let Some((_, body)) = open {
        out.push(body.join("\n"));
    }
    out
}

/// Ask the runtime to put `text` on the clipboard, unless it is too large for OSC 52.
fn clipboard(app: &mut App, text: String, what: String) -> Vec<Effect> {
    if text.len().div_ceil(3) * 4 > OSC52_LIMIT {
        too_large_for_clipboard(app, &what, text.len());
        return vec![];
    }
    vec![Effect::Copy { text, what }]
}

fn too_large_for_clipboard(app: &mut App, what: &str, size: usize) {
    app.set_status(
        format!(
            "{what} is {} — too large for the terminal clipboard (OSC 52 takes ~{} KB): S saves an artifact, E exports the transcript",
            human_bytes(size),
            OSC52_LIMIT / 1000 * 3 / 4
        ),
        true,
    );
}

/// `J`: the task as JSON (its current state as the console holds it, in the SDK's types) and, for the
/// selected entry, the event behind it when it is kept.
pub(super) fn raw_json(app: &mut App) -> Vec<Effect> {
    let Some(t) = app.active_tab() else {
        return vec![];
    };
    let mut lines = Vec::new();
    let mut fx = Vec::new();
    if let Some(i) = t.selected {
        lines.push(format!(
            "// the event behind entry {} of the transcript",
            i + 1
        ));
        match (t.event_of(i), t.event_time(i)) {
            (Some(json), _) => lines.extend(json.lines().map(str::to_string)),
            // Not in memory (older than the last events kept, or too big to keep): the store has every event,
            // filed under its arrival time. The line below is replaced when the answer comes.
            (None, Some(at)) => {
                lines.push(reading_line(at));
                fx.push(Effect::LoadRawEvents {
                    key: t.key.to_string(),
                    at,
                });
            }
            (None, None) => lines.push(
                "// no event behind this entry: it is your message or the console's own note"
                    .to_string(),
            ),
        }
        lines.push(String::new());
    }
    lines.push("// the task as the console holds it".to_string());
    lines.extend(task_json(t).lines().map(str::to_string));
    let title = format!(
        "Raw JSON · task {}",
        t.short_task().unwrap_or_else(|| "none yet".into())
    );
    app.overlay = Some(Overlay::RawJson {
        title,
        lines: split_long(lines),
        scroll: 0,
    });
    fx
}

/// The viewer scrolls by lines: a JSON string of 60 KB on one line would fill the screen and hide what follows,
/// so lines longer than this are cut into several (at character boundaries).
const VIEWER_LINE: usize = 512;

fn split_long(lines: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        if line.len() <= VIEWER_LINE {
            out.push(line);
            continue;
        }
        let mut rest = line.as_str();
        while !rest.is_empty() {
            let mut cut = floor_char_boundary(rest, VIEWER_LINE);
            // After a space near the end when there is one, so a word is not cut in two.
            if cut < rest.len()
                && let Some(space) = rest
                    .get(cut.saturating_sub(64)..cut)
                    .and_then(|w| w.rfind(' '))
            {
                cut = cut.saturating_sub(64) + space + 1;
            }
            let (head, tail) = rest.split_at(cut);
            out.push(head.to_string());
            rest = tail;
        }
    }
    out
}

/// The most of one part's payload the task's JSON shows: `J` on a task holding a 20 MB artifact must answer
/// at once, not serialise, sanitise and lay out 20 MB (`E` and `S` have all of it).
const SHOWN_PART: usize = 16 * 1024;

/// An artifact for the viewer: its parts' payloads cut at [`SHOWN_PART`] with a note of what was left out
/// (copied only up to the cut, never whole).
fn shown_artifact(a: &a2a::Artifact, prints: &[Print]) -> a2a::Artifact {
    let cut = |s: &str| {
        if s.len() <= SHOWN_PART {
            return s.to_string();
        }
        let end = floor_char_boundary(s, SHOWN_PART);
        format!(
            "{}… [{} more of {}: E exports it, S saves it]",
            s.get(..end).unwrap_or_default(),
            human_bytes(s.len() - end),
            human_bytes(s.len())
        )
    };
    let parts = a
        .parts
        .iter()
        .zip(prints.iter().map(Some).chain(std::iter::repeat(None)))
        .map(|(p, print)| {
            let content = match &p.content {
                // The gate let go of this text: the transcript shows it from the spool file.
                a2a::PartContent::Text(_) if print.is_some_and(|p| p.hollow) => {
                    a2a::PartContent::Text(format!(
                        "[{} of text, kept on disk with the artifact, not in memory: the transcript shows it, S saves it, E exports it]",
                        human_bytes(print.map_or(0, |p| p.bytes))
                    ))
                }
                a2a::PartContent::Text(s) => a2a::PartContent::Text(cut(s)),
                a2a::PartContent::Raw(b) if b.len() > SHOWN_PART => {
                    a2a::PartContent::Text(format!(
                        "[{} of raw bytes, not shown: S saves them]",
                        human_bytes(b.len())
                    ))
                }
                other => other.clone(),
            };
            a2a::Part {
                content,
                filename: p.filename.clone(),
                media_type: p.media_type.clone(),
                metadata: p.metadata.clone(),
            }
        })
        .collect();
    a2a::Artifact {
        artifact_id: a.artifact_id.clone(),
        name: a.name.clone(),
        description: a.description.clone(),
        parts,
        metadata: a.metadata.clone(),
        extensions: a.extensions.clone(),
    }
}

/// The viewer's placeholder for an event being read from the store (unique per arrival time).
fn reading_line(at: chrono::DateTime<chrono::Utc>) -> String {
    format!(
        "// not kept in memory: reading the event received at {} from the local store…",
        at.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
    )
}

/// The store's answer: put the events where the viewer's placeholder is (if the viewer is still open on it).
pub(super) fn raw_events_loaded(
    app: &mut App,
    at: chrono::DateTime<chrono::Utc>,
    result: Result<Vec<String>, String>,
) {
    let Some(Overlay::RawJson { lines, .. }) = app.overlay.as_mut() else {
        return;
    };
    let placeholder = reading_line(at);
    let Some(pos) = lines.iter().position(|l| *l == placeholder) else {
        return;
    };
    let found: Vec<String> = match result {
        Ok(events) if events.is_empty() => {
            vec![
                "// the local store has no event at that time (pruned, or the store was off then)"
                    .into(),
            ]
        }
        Ok(events) => {
            let n = events.len();
            let mut out = Vec::new();
            if n > 1 {
                out.push(format!(
                    "// {n} events arrived at that instant; all of them, in order"
                ));
            }
            for e in events {
                out.extend(e.lines().map(str::to_string));
            }
            out
        }
        Err(e) => vec![format!(
            "// not kept in memory, and the local store could not be read: {e}"
        )],
    };
    lines.splice(pos..=pos, split_long(found));
}

/// The task's current state in the SDK's `Task` type, pretty-printed and sanitised (ids, text and data the
/// agent sent are remote text).
pub fn task_json(t: &TaskTab) -> String {
    let task = a2a::Task {
        id: t.log.task_id.clone().unwrap_or_default(),
        context_id: t.log.context_id.clone().unwrap_or_default(),
        status: a2a::TaskStatus {
            state: t.log.state.clone(),
            message: t.log.status_message.clone(),
            timestamp: None,
        },
        artifacts: (!t.log.current_artifacts().is_empty()).then(|| {
            t.log
                .current_artifacts()
                .iter()
                .map(|a| shown_artifact(&a.artifact, &a.prints))
                .collect()
        }),
        history: None,
        metadata: None,
    };
    let pretty = serde_json::to_string_pretty(&task).unwrap_or_default();
    crate::trust::sanitize::sanitize_text(&pretty).0
}
