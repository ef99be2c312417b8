//! Multi-part artifacts through `update`: each part shown by its media type, `{` / `}` stop at every part,
//! `z` folds the data part under the cursor (the second one too), `S` opens on the part at the cursor, and
//! artifacts the SDKs never mark `lastChunk` are complete once the task is.

use a2a::*;
use crossterm::event::KeyCode;

use super::update;
use crate::app::msg::{Effect, Msg, StreamItem};
use crate::app::parts::PartKind;
use crate::app::save::ChoiceKind;
use crate::app::state::{App, Focus, Overlay, View};
use crate::task::log::Source;
use crate::testing::app;
use crate::testing::keys::key;

fn artifact(id: &str, parts: Vec<Part>, last: Option<bool>) -> StreamResponse {
    StreamResponse::ArtifactUpdate(TaskArtifactUpdateEvent {
        task_id: "t1".into(),
        context_id: "ctx".into(),
        artifact: Artifact {
            artifact_id: id.into(),
            name: Some(id.into()),
            description: None,
            parts,
            metadata: None,
            extensions: None,
        },
        append: None,
        last_chunk: last,
        metadata: None,
    })
}

/// What the SDK peers' `code` artifact looks like: markdown with a fenced block, then data; plus another data
/// part and a file, so there are two JSON parts to fold.
pub(crate) fn code_parts() -> Vec<Part> {
    vec![
        Part::text("# Fibonacci\n\n```python\ndef fib(n):\n    return n\n```\n")
            .with_media_type("text/markdown"),
        Part::data(serde_json::json!({"language": "python", "lines": 2})),
        Part::data(serde_json::json!({"tests": {"passed": 3, "failed": 0}})),
        Part::raw(b"\x89PNG\r\n\x1a\nplot".to_vec())
            .with_filename("plot.png")
            .with_media_type("image/png"),
    ]
}

fn stream(app: &mut App, tab: u64, ev: StreamResponse) -> Vec<Effect> {
    let generation = app.tab(tab).map(|t| t.generation).unwrap_or(0);
    update(
        app,
        Msg::Stream {
            tab,
            generation,
            source: Source::Stream(generation),
            item: StreamItem::Event(Box::new(ev)),
        },
    )
}

/// A tab following a task that sent the `code` artifact without `lastChunk`, then completed.
fn code_tab() -> (App, u64, Vec<Effect>) {
    let mut app = app();
    let id = app.new_tab(app.agents[0].id);
    app.view = View::Tab(id);
    app.focus = Focus::Main;
    let mut fx = stream(
        &mut app,
        id,
        crate::testing::status("t1", "ctx", TaskState::Working, None),
    );
    fx.extend(stream(&mut app, id, artifact("code", code_parts(), None)));
    assert!(
        !app.tab(id).unwrap().artifacts[0].complete,
        "no lastChunk yet: still arriving"
    );
    fx.extend(stream(
        &mut app,
        id,
        crate::testing::status("t1", "ctx", TaskState::Completed, None),
    ));
    (app, id, fx)
}

#[test]
fn every_part_is_shown_by_its_media_type_and_the_artifact_completes_with_the_task() {
    let (app, id, fx) = code_tab();
    let a = &app.tab(id).unwrap().artifacts[0];
    assert!(a.complete, "a completed task's artifacts are complete");
    let kinds: Vec<PartKind> = a.parts.iter().map(|p| p.kind).collect();
    assert_eq!(
        kinds,
        [
            PartKind::Markdown,
            PartKind::Data,
            PartKind::Data,
            PartKind::File
        ]
    );
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::Highlight { lang: Some(l), .. } if l == "python")),
        "the markdown part's code block goes to the highlighter"
    );
    let lines: Vec<String> = a
        .rendered
        .as_ref()
        .unwrap()
        .iter()
        .flat_map(|b| b.lines.iter())
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect();
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("── part 1/4 · text/markdown"))
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("── part 3/4 · application/json"))
    );
    assert!(
        !lines.iter().any(|l| l.contains("```")),
        "markdown is rendered, not shown raw: {lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("plot.png") && l.contains("S saves it"))
    );
    assert!(
        !a.files_in_head(),
        "the file is described under its own part"
    );
}

#[test]
fn braces_stop_at_every_part_and_z_folds_the_second_data_part() {
    let (mut app, id, _) = code_tab();
    // From the end, `}` goes to the first stop (the artifact, its first part), then part by part.
    let stops = crate::app::layout::part_stops(app.tab(id).unwrap());
    assert_eq!(stops.len(), 4, "{stops:?}");
    key(&mut app, KeyCode::Char('}'));
    assert_eq!(app.tab(id).unwrap().scroll, Some(stops[0].line));
    key(&mut app, KeyCode::Char('}'));
    key(&mut app, KeyCode::Char('}'));
    assert_eq!(app.tab(id).unwrap().scroll, Some(stops[2].line));
    let before = app.tab(id).unwrap().total_lines();
    key(&mut app, KeyCode::Char('z'));
    let t = app.tab(id).unwrap();
    let a = &t.artifacts[0];
    assert!(a.parts[2].folded, "the data part at the cursor is folded");
    assert!(!a.parts[1].folded, "the other data part is left alone");
    assert!(t.total_lines() < before, "folding shortens the transcript");
    assert!(
        app.status
            .as_ref()
            .is_some_and(|s| s.text.contains("part 3/4") && !s.error),
        "{:?}",
        app.status
    );
    // `{` back to the markdown part: `z` folds the data part below it, never "no JSON".
    key(&mut app, KeyCode::Char('{'));
    key(&mut app, KeyCode::Char('{'));
    key(&mut app, KeyCode::Char('z'));
    assert!(app.tab(id).unwrap().artifacts[0].parts[1].folded);
    // `{` at the first part stays there.
    key(&mut app, KeyCode::Char('{'));
    assert_eq!(app.tab(id).unwrap().scroll, Some(stops[0].line));
}

#[test]
fn save_opens_on_the_part_at_the_cursor() {
    let (mut app, id, _) = code_tab();
    let rows = crate::app::save::choices(app.tab(id).unwrap());
    let kinds: Vec<ChoiceKind> = rows.iter().map(|c| c.kind).collect();
    assert_eq!(
        kinds,
        [
            ChoiceKind::Part(0),
            ChoiceKind::Part(1),
            ChoiceKind::Part(2),
            ChoiceKind::File(3)
        ]
    );
    for _ in 0..4 {
        key(&mut app, KeyCode::Char('}'));
    }
    key(&mut app, KeyCode::Char('S'));
    assert!(
        matches!(app.overlay, Some(Overlay::SavePicker { selected: 3, .. })),
        "{:?}",
        app.overlay.is_some()
    );
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('{'));
    key(&mut app, KeyCode::Char('S'));
    assert!(matches!(
        app.overlay,
        Some(Overlay::SavePicker { selected: 2, .. })
    ));
    key(&mut app, KeyCode::Enter);
    let Some(Overlay::SaveTarget(s)) = &app.overlay else {
        panic!("Enter chooses the data part");
    };
    let saved: serde_json::Value = serde_json::from_slice(&s.bytes.to_vec()).unwrap();
    assert_eq!(saved["tests"]["passed"], 3, "only that part's JSON");
}

#[test]
fn appended_text_chunks_stay_one_part_and_a_stream_end_completes_them() {
    let mut app = app();
    let id = app.new_tab(app.agents[0].id);
    stream(
        &mut app,
        id,
        crate::testing::status("t1", "ctx", TaskState::Working, None),
    );
    for i in 0..50 {
        stream(
            &mut app,
            id,
            crate::testing::chunk("t1", "story", &format!("chunk {i} "), i > 0, false),
        );
    }
    stream(
        &mut app,
        id,
        crate::testing::status("t1", "ctx", TaskState::InputRequired, Some("more?")),
    );
    let generation = app.tab(id).unwrap().generation;
    update(
        &mut app,
        Msg::Stream {
            tab: id,
            generation,
            source: Source::Stream(generation),
            item: StreamItem::End,
        },
    );
    let a = &app.tab(id).unwrap().artifacts[0];
    assert_eq!(a.parts.len(), 1, "fifty appended chunks are one text part");
    assert!(
        a.complete,
        "the stream ended with the task waiting: complete"
    );
    assert!(a.rendered.is_some());
}

#[test]
fn text_without_a_media_type_is_markdown_and_plain_text_is_shown_as_it_is() {
    let mut app = app();
    let id = app.new_tab(app.agents[0].id);
    let mut parts = vec![
        Part::text("# Notes\n\n*soft*\n"),
        Part::text("# not a heading\n").with_media_type("text/plain"),
        Part::text("**also markdown**\n"),
    ];
    if let Some(p) = parts.get_mut(2) {
        p.media_type = Some(String::new());
        p.metadata = Some([("format".to_string(), serde_json::json!("markdown"))].into());
    }
    stream(&mut app, id, artifact("notes", parts, Some(true)));
    let a = &app.tab(id).unwrap().artifacts[0];
    let kinds: Vec<PartKind> = a.parts.iter().map(|p| p.kind).collect();
    assert_eq!(
        kinds,
        [PartKind::Markdown, PartKind::Plain, PartKind::Markdown]
    );
    assert_eq!(a.parts[2].media_type, "text", "an empty media type is none");
    let lines: Vec<String> = a
        .rendered
        .as_ref()
        .unwrap()
        .iter()
        .flat_map(|b| b.lines.iter())
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
        .collect();
    assert!(lines.contains(&"# not a heading".to_string()), "{lines:?}");
    assert!(!lines.iter().any(|l| l.contains("**")), "{lines:?}");
}

/// The highlighted lines of the `code` tab's python block, as the worker would send them, applied with `update`;
/// returns every span style of the block afterwards.
fn highlight_code_block(no_color: bool) -> Vec<ratatui::style::Style> {
    let mut app = app();
    if no_color {
        app.theme = app.theme.clone().without_color();
    }
    let id = app.new_tab(app.agents[0].id);
    stream(
        &mut app,
        id,
        crate::testing::status("t1", "ctx", TaskState::Working, None),
    );
    // A closed code fence goes to the highlighter as it arrives (the artifact is laid out as it streams).
    let mut fx = stream(&mut app, id, artifact("code", code_parts(), None));
    fx.extend(stream(
        &mut app,
        id,
        crate::testing::status("t1", "ctx", TaskState::Completed, None),
    ));
    let Some((key, lang, code)) = fx.into_iter().find_map(|e| match e {
        Effect::Highlight { key, lang, code } => Some((key, lang, code)),
        _ => None,
    }) else {
        panic!("no code block was sent to the highlighter");
    };
    let lines = crate::markup::highlight::highlight_now(lang.as_deref(), &code, "dark");
    update(
        &mut app,
        Msg::Highlighted(crate::markup::highlight::HighlightDone { key, lines }),
    );
    let a = &app.tab(id).unwrap().artifacts[0];
    a.rendered
        .iter()
        .flatten()
        .filter(|b| b.key == Some(key))
        .flat_map(|b| b.lines.iter().flat_map(|l| l.spans.iter().map(|s| s.style)))
        .collect()
}

/// Under NO_COLOR the code block keeps its monochrome look: the highlighter's colours are not the theme's.
#[test]
fn highlighted_code_is_coloured_only_when_the_theme_has_colour() {
    let coloured = highlight_code_block(false);
    assert!(
        coloured.iter().any(|s| s.fg.is_some()),
        "with colour, the highlight is shown"
    );
    let mono = highlight_code_block(true);
    assert!(!mono.is_empty());
    assert!(
        mono.iter().all(|s| s.fg.is_none() && s.bg.is_none()),
        "{mono:?}"
    );
}
