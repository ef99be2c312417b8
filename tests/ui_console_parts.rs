//! Snapshots of issue 10's screens: a multi-part artifact (markdown, two JSON parts, a file) with its second
//! JSON part folded, a tab whose agent answered with a message and no task, the tab bar scrolled to a far-right
//! tab, split view of marked tasks, and the board's search cleared or matching nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use a2a::*;
use a2a_console::app::msg::Msg;
use a2a_console::app::state::{App, Focus, View};
use a2a_console::app::update::update;
use a2a_console::testing::{buffer_text, parts_app};
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn render(app: &App) -> String {
    let mut term = Terminal::new(TestBackend::new(app.size.0, app.size.1)).unwrap();
    let mut text = String::new();
    term.draw(|f| {
        a2a_console::ui::draw(f, app);
        text = buffer_text(f.buffer_mut());
    })
    .unwrap();
    text
}

fn snap(name: &str, app: &App) {
    let text = render(app);
    insta::with_settings!({filters => vec![(r"\d{2}:\d{2}:\d{2}", "[time]")]}, {
        insta::assert_snapshot!(name, text);
    });
}

fn key(app: &mut App, code: KeyCode) {
    update(
        app,
        Msg::Input(Event::Key(KeyEvent::new(code, KeyModifiers::NONE))),
    );
}

#[test]
fn multi_part_artifact_with_its_second_json_part_folded() {
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
