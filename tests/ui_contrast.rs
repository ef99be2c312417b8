//! Contrast where the user sees it: the console's screens drawn into a `TestBackend` with each built-in theme,
//! and every character cell checked — text, ids in titles, badges, the status bar, search matches, markdown,
//! JSON and highlighted code — for WCAG AA (4.5:1) against what is behind it, in xterm's default palette.
//! The theme tests check the roles one by one; this checks what the widgets make of them together (a title
//! span without a colour of its own takes its border's colour, a status message sits on the status bar).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use a2a::*;
use a2a_console::app::msg::{Effect, Msg};
use a2a_console::app::state::{App, Focus, Overlay, View};
use a2a_console::app::task::Link;
use a2a_console::config::contrast::MIN_TEXT_CONTRAST;
use a2a_console::config::theme::Theme;
use a2a_console::testing::contrast::drawn;
use a2a_console::testing::keys::key;
use a2a_console::testing::{parts_app, status};
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn themed(theme: &Theme) -> App {
    let mut app = parts_app();
    app.theme = theme.clone();
    app
}

fn artifact(task: &str, id: &str, parts: Vec<Part>) -> StreamResponse {
    StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
        task_id: task.into(),
        context_id: "ctx-1".into(),
        artifact: Artifact {
            artifact_id: id.into(),
            name: Some(id.into()),
            description: None,
            parts,
            metadata: None,
            extensions: None,
        },
        append: None,
        last_chunk: Some(true),
        metadata: None,
    })
}

/// A tab in `state`, with a message, the agent's status text and the task and context ids in its title.
fn tab_app(theme: &Theme, state: TaskState, focus: Focus) -> App {
    let mut app = themed(theme);
    let id = app.new_tab(app.agents[0].id);
    let t = app.tab_mut(id).unwrap();
    t.record_user("find part 42", vec![], "");
    t.feed(&status(
        "task-0001",
        "ctx-1",
        state,
        Some("status text from the agent"),
    ));
    app.view = View::Tab(id);
    app.focus = focus;
    app
}

/// A completed task with markdown (heading, list, inline code, link, quote, code) and JSON, the code
/// highlighted as the worker would for this theme.
fn artifacts_app(theme: &Theme) -> App {
    let mut app = themed(theme);
    app.size = (110, 60);
    let id = app.new_tab(app.agents[0].id);
    let t = app.tab_mut(id).unwrap();
    t.record_user("report please", vec![], "");
    t.feed(&status(
        "task-0002",
        "ctx-1",
        TaskState::Working,
        Some("on it"),
    ));
    t.feed(&artifact(
        "task-0002",
        "report",
        vec![Part::text(
            "# Report\n\n- item `one`\n1. see [the docs](https://example.com)\n\n> quoted **bold** *it*\n\n\
             ```rust\n// a comment\nfn main() { let x: u32 = 42; println!(\"{x}\"); }\n```\n\
             ```klingon\nplain code\n```\n",
        )],
    ));
    t.feed(&artifact(
        "task-0002",
        "data",
        vec![Part::data(serde_json::json!({
            "part": 42, "name": "bolt", "ok": true, "none": null, "bins": [1, 2], "deep": {"a": {"b": 1}}
        }))],
    ));
    t.feed(&status("task-0002", "ctx-1", TaskState::Completed, None));
    let effects = a2a_console::app::update::lay_out_artifacts(&mut app, id);
    let syntax = app.theme.background.name();
    for e in effects {
        if let Effect::Highlight { key, lang, code } = e {
            let lines =
                a2a_console::markup::highlight::highlight_now(lang.as_deref(), &code, syntax);
            a2a_console::app::update::update(
                &mut app,
                Msg::Highlighted(a2a_console::markup::highlight::HighlightDone { key, lines }),
            );
        }
    }
    app.view = View::Tab(id);
    app.focus = Focus::Main;
    app
}

/// The screens drawn with `theme`: the card page, a tab in every state, artifacts, search, the board, the split
/// view, dialogs, help and the palette.
fn screens(theme: &Theme) -> Vec<(String, App)> {
    let mut out = Vec::new();
    out.push(("card page".into(), themed(theme)));
    for (label, state) in [
        ("submitted", TaskState::Submitted),
        ("working", TaskState::Working),
        ("input-required", TaskState::InputRequired),
        ("auth-required", TaskState::AuthRequired),
        ("completed", TaskState::Completed),
        ("failed", TaskState::Failed),
        ("canceled", TaskState::Canceled),
        ("rejected", TaskState::Rejected),
    ] {
        out.push((
            format!("tab {label}, compose focused"),
            tab_app(theme, state.clone(), Focus::Compose),
        ));
        out.push((
            format!("tab {label}, transcript focused"),
            tab_app(theme, state, Focus::Main),
        ));
    }
    let mut app = tab_app(theme, TaskState::Working, Focus::Main);
    let id = app.tabs[0].id;
    app.tab_mut(id).unwrap().link = Link::Connecting;
    out.push(("tab connecting".into(), app));
    let mut app = tab_app(theme, TaskState::Working, Focus::Main);
    app.tab_mut(id).unwrap().stream_ended(None);
    app.set_status("the stream ended: connection reset", true);
    out.push(("tab disconnected, an error in the status bar".into(), app));
    let mut app = tab_app(theme, TaskState::Working, Focus::Main);
    app.set_status("saved report.md", false);
    out.push(("a message in the status bar".into(), app));

    out.push(("artifacts".into(), artifacts_app(theme)));
    // A search for "art": matches in the transcript, the current one reversed.
    let mut app = artifacts_app(theme);
    key(&mut app, KeyCode::Char('/'));
    for c in "art".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    out.push(("search matches".into(), app));
    // Scrolled to the top: the bottom border says where the view is.
    let mut app = artifacts_app(theme);
    key(&mut app, KeyCode::Char('g'));
    out.push(("scrolled transcript".into(), app));

    for view in ["board", "split view", "approval dialog"] {
        let mut app = board_app(theme);
        match view {
            "board" => app.view = View::Board,
            "split view" => app.view = View::Split,
            _ => {
                let auth = app.tabs[2].id;
                app.view = View::Tab(auth);
                app.overlay = Some(Overlay::Approval {
                    tab: auth,
                    scroll: 0,
                });
            }
        }
        out.push((view.into(), app));
    }
    let mut app = themed(theme);
    app.view = View::Split;
    out.push(("empty split view".into(), app));

    for (label, overlay) in [
        ("help", Overlay::Help { scroll: 0 }),
        (
            "palette",
            Overlay::Palette {
                query: "tab".into(),
                selected: 1,
            },
        ),
    ] {
        let mut app = themed(theme);
        app.size = (110, 40);
        app.overlay = Some(overlay);
        out.push((label.into(), app));
    }
    out
}

/// Five tasks in different states, for the board, the split view and the approval dialog.
fn board_app(theme: &Theme) -> App {
    let mut app = themed(theme);
    app.size = (120, 36);
    for (i, state) in [
        TaskState::Submitted,
        TaskState::Working,
        TaskState::AuthRequired,
        TaskState::InputRequired,
        TaskState::Failed,
    ]
    .into_iter()
    .enumerate()
    {
        let id = app.new_tab(app.agents[0].id);
        let t = app.tab_mut(id).unwrap();
        t.record_user("find part 42", vec![], "");
        t.feed(&status(
            &format!("task-000{i}"),
            "ctx-1",
            state,
            Some("the agent's latest words"),
        ));
    }
    app.focus = Focus::Main;
    app
}

/// Box-drawing lines are borders, not text (WCAG asks 3:1 of such graphics); every other visible cell is text.
fn is_text(symbol: &str) -> bool {
    symbol
        .chars()
        .any(|c| !c.is_whitespace() && !('\u{2500}'..='\u{257f}').contains(&c))
}

#[test]
fn every_character_on_every_screen_reaches_wcag_aa_in_every_builtin_theme() {
    let mut failures = Vec::new();
    let mut cells = 0;
    for name in Theme::builtin_names() {
        for (screen, app) in screens(&Theme::builtin(name).unwrap()) {
            let background = app.theme.background;
            let mut term = Terminal::new(TestBackend::new(app.size.0, app.size.1)).unwrap();
            term.draw(|f| a2a_console::ui::draw(f, &app)).unwrap();
            let buf = term.backend().buffer();
            let width = usize::from(buf.area.width);
            // One report per run of failing cells that look the same, with the row for context.
            let mut last: Option<(usize, String)> = None;
            for (i, cell) in buf.content.iter().enumerate() {
                if !is_text(cell.symbol()) {
                    continue;
                }
                cells += 1;
                let d = drawn(Some(cell.fg), Some(cell.bg), cell.modifier, background);
                if d.ratio() >= MIN_TEXT_CONTRAST {
                    continue;
                }
                let (x, y) = (i % width, i / width);
                let look = format!("{d} {:?}", cell.modifier);
                if last.as_ref() == Some(&(y, look.clone())) {
                    continue;
                }
                let row: String = buf.content[y * width..(y + 1) * width]
                    .iter()
                    .map(|c| c.symbol())
                    .collect();
                failures.push(format!(
                    "theme '{name}', {screen}, row {y} col {x} {:?}: {look}\n    {}",
                    cell.symbol(),
                    row.trim_end()
                ));
                last = Some((y, look));
            }
        }
    }
    assert!(cells > 10_000, "only {cells} text cells checked");
    const SHOWN: usize = 60;
    assert!(
        failures.is_empty(),
        "{} run(s) of text below {MIN_TEXT_CONTRAST}:1 (xterm's default palette; black behind the dark themes, \
         white behind the light one), the first {SHOWN}:\n{}",
        failures.len(),
        failures
            .iter()
            .take(SHOWN)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Under NO_COLOR nothing on any screen has a colour: every colour drawn comes from the theme, and that theme
/// has none (the compose box's placeholder and highlighted code included).
#[test]
fn no_screen_has_a_colour_under_no_color() {
    use ratatui::style::Color;
    for name in Theme::builtin_names() {
        let theme = Theme::builtin(name).unwrap().without_color();
        for (screen, app) in screens(&theme) {
            let mut term = Terminal::new(TestBackend::new(app.size.0, app.size.1)).unwrap();
            term.draw(|f| a2a_console::ui::draw(f, &app)).unwrap();
            let buf = term.backend().buffer();
            let width = usize::from(buf.area.width);
            for (i, cell) in buf.content.iter().enumerate() {
                assert!(
                    cell.fg == Color::Reset && cell.bg == Color::Reset,
                    "theme '{name}' without colour, {screen}, row {} col {} {:?}: fg {:?} bg {:?}",
                    i / width,
                    i % width,
                    cell.symbol(),
                    cell.fg,
                    cell.bg
                );
            }
        }
    }
}
