//! Snapshots of issue 10's screens: a multi-part artifact (markdown, two JSON parts, a file) with its second
//! JSON part folded, a tab whose agent answered with a message and no task, the tab bar scrolled to a far-right
//! tab, split view of marked tasks, the board's search cleared or matching nothing, and a search inside a part.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use a2a::*;
use a2a_console::app::msg::Msg;
use a2a_console::app::state::{App, Focus, View};
use a2a_console::app::update::update;
use a2a_console::testing::keys::key;
use a2a_console::testing::parts_app;
use a2a_console::testing::render_text as render;
use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn snap(name: &str, app: &App) {
    let text = render(app);
    insta::with_settings!({filters => vec![(r"\d{2}:\d{2}:\d{2}", "[time]"), (r" +\d+[smh]( ?\d+m)? ", " [age] ")]}, {
        insta::assert_snapshot!(name, text);
    });
}

/// A finished task whose `code` artifact has four parts (markdown, two JSON parts, a file), laid out.
fn code_artifact_app() -> App {
    let mut app = parts_app();
    let id = app.new_tab(app.agents[0].id);
    let t = app.tab_mut(id).unwrap();
    t.record_user("write fib", vec![], "");
    t.feed(&a2a_console::testing::status(
        "task-0003",
        "ctx-1",
        TaskState::Working,
        None,
    ));
    t.feed(&StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
        task_id: "task-0003".into(),
        context_id: "ctx-1".into(),
        artifact: Artifact {
            artifact_id: "code".into(),
            name: Some("code".into()),
            description: None,
            parts: vec![
                Part::text("# Fibonacci\n\n```python\ndef fib(n):\n    return n\n```\n")
                    .with_media_type("text/markdown"),
                Part::data(serde_json::json!({"language": "python", "lines": 2})),
                Part::data(serde_json::json!({"tests": {"passed": 3, "failed": 0}})),
                Part::raw(b"\x89PNG\r\n\x1a\nplot".to_vec())
                    .with_filename("plot.png")
                    .with_media_type("image/png"),
            ],
            metadata: None,
            extensions: None,
        },
        append: None,
        last_chunk: None,
        metadata: None,
    }));
    t.feed(&a2a_console::testing::status(
        "task-0003",
        "ctx-1",
        TaskState::Completed,
        None,
    ));
    a2a_console::app::update::lay_out_artifacts(&mut app, id);
    app.view = View::Tab(id);
    app.focus = Focus::Main;
    app.size = (100, 44);
    app
}

#[test]
fn multi_part_artifact_with_its_second_json_part_folded() {
    let mut app = code_artifact_app();
    let text = render(&app);
    assert!(text.contains("part 1/4 · text/markdown"), "{text}");
    assert!(!text.contains("```"), "markdown rendered: {text}");
    assert!(
        !text.contains("streaming…"),
        "complete with its task: {text}"
    );
    snap("multi_part_artifact", &app);
    for _ in 0..3 {
        key(&mut app, KeyCode::Char('}'));
    }
    key(&mut app, KeyCode::Char('z'));
    let text = render(&app);
    assert!(text.contains("\"passed\"") || text.contains('…'), "{text}");
    snap("multi_part_artifact_second_json_folded", &app);
}

/// Search reaches into every part as drawn: a key of the third (JSON) part and a part header are found and
/// highlighted on the rows where they are drawn.
#[test]
fn search_finds_and_highlights_text_inside_a_part() {
    let mut app = code_artifact_app();
    key(&mut app, KeyCode::Char('/'));
    for c in "passed".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    let text = render(&app);
    assert!(text.contains("match 1/1 for \"passed\""), "{text}");
    snap("multi_part_artifact_search", &app);
    let mut term = Terminal::new(TestBackend::new(app.size.0, app.size.1)).unwrap();
    term.draw(|f| a2a_console::ui::draw(f, &app)).unwrap();
    let buf = term.backend().buffer().clone();
    let row = (0..buf.area.height)
        .find(|&y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
                .contains("\"passed\": 3")
        })
        .expect("the JSON part's row is on screen");
    let current = (0..buf.area.width)
        .filter(|&x| {
            buf[(x, row)]
                .modifier
                .contains(app.theme.search_current.add_modifier)
        })
        .count();
    assert_eq!(
        current,
        "passed".len(),
        "the match is highlighted on its row"
    );
}

fn tabs_with_tasks(ids: &[&str]) -> (App, Vec<u64>) {
    let mut app = parts_app();
    let mut tabs = Vec::new();
    for id in ids {
        let tab = app.new_tab(app.agents[0].id);
        let t = app.tab_mut(tab).unwrap();
        t.record_user("find part 42", vec![], "");
        t.feed(&a2a_console::testing::status(
            id,
            "ctx-1",
            TaskState::Working,
            Some("on it"),
        ));
        tabs.push(tab);
    }
    update(&mut app, Msg::Tick);
    (app, tabs)
}

#[test]
fn tab_bar_with_seven_tabs_and_the_active_one_on_the_far_right() {
    let ids: Vec<String> = (0..7)
        .map(|i| format!("01a230b3-6f1e-7c2a-9d4b-00000000000{i}"))
        .collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let (mut app, tabs) = tabs_with_tasks(&refs);
    app.size = (110, 16);
    app.view = View::Tab(tabs[6]);
    app.focus = Focus::Main;
    let text = render(&app);
    let bar = text.lines().next().unwrap();
    assert!(bar.contains("‹ ") && bar.contains(" more"), "{bar}");
    assert!(bar.contains("7 parts 00000006"), "{bar}");
    assert!(
        !bar.contains("01a230b3"),
        "short ids are the random tail: {bar}"
    );
    snap("tab_bar_far_right", &app);
}

#[test]
fn split_of_the_marked_tasks() {
    let ids: Vec<String> = (0..5).map(|i| format!("task-000{i}")).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let (mut app, _) = tabs_with_tasks(&refs);
    app.size = (120, 30);
    key(&mut app, KeyCode::Char('b'));
    app.focus = a2a_console::app::state::Focus::Main;
    key(&mut app, KeyCode::Char('m'));
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Char('m'));
    let board = render(&app);
    assert_eq!(board.matches("● parts          task").count(), 2, "{board}");
    snap("board_with_marks", &app);
    key(&mut app, KeyCode::Char('v'));
    let text = render(&app);
    assert!(text.contains("the 2 task(s) marked on the board"), "{text}");
    snap("split_marked", &app);
}

#[test]
fn board_search_cleared_and_a_filtered_empty_board() {
    let (mut app, _) = tabs_with_tasks(&["task-0000", "task-0001"]);
    app.size = (120, 14);
    key(&mut app, KeyCode::Char('b'));
    key(&mut app, KeyCode::Char('/'));
    for c in "zebra".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    let text = render(&app);
    assert!(
        text.contains("no task matches text \"zebra\" · x clears"),
        "{text}"
    );
    assert!(!text.contains("no tasks yet"), "{text}");
    snap("board_filtered_empty", &app);
    key(&mut app, KeyCode::Char('/'));
    for _ in 0..5 {
        key(&mut app, KeyCode::Backspace);
    }
    key(&mut app, KeyCode::Enter);
    let text = render(&app);
    assert!(text.contains("board search cleared"), "{text}");
    snap("board_search_cleared", &app);
}

#[test]
fn a_direct_reply_tab_is_a_message_exchange() {
    let mut app = parts_app();
    let id = app.new_tab(app.agents[0].id);
    let t = app.tab_mut(id).unwrap();
    t.record_user("message", vec![], "u1");
    let mut reply = Message::new(Role::Agent, vec![Part::text("direct reply")]);
    reply.message_id = "r1".into();
    t.feed(&StreamResponse::Message(reply));
    t.link = a2a_console::app::task::Link::Idle;
    app.view = View::Tab(id);
    app.focus = Focus::Main;
    app.size = (100, 16);
    let text = render(&app);
    assert!(text.contains("message exchange"), "{text}");
    assert!(text.contains("no task"), "{text}");
    assert!(!text.contains("no task yet"), "{text}");
    assert!(text.contains("direct reply"), "{text}");
    snap("direct_reply_tab", &app);
}
