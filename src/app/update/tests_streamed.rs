//! Markdown streamed in chunks through `update`: what has settled is laid out as it arrives, in the tab and in
//! the split view, the unfinished tail is drawn raw, and completing the artifact moves none of the lines already
//! shown.

use a2a::TaskState;

use super::update;
use crate::app::ids::TabId;
use crate::app::msg::{Effect, Msg, StreamItem};
use crate::app::state::{App, Focus, View};
use crate::task::log::Source;
use crate::testing::{app, chunk, render_text, status};

fn stream(app: &mut App, tab: TabId, ev: a2a::StreamResponse) -> Vec<Effect> {
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

/// A tab on screen whose task streams an artifact in the given chunks (none of them the last).
fn streaming(chunks: &[&str]) -> (App, TabId, Vec<Effect>) {
    let mut app = app();
    let id = app.new_tab(app.agents[0].id);
    app.view = View::Tab(id);
    app.focus = Focus::Main;
    let mut fx = stream(&mut app, id, status("t1", "ctx", TaskState::Working, None));
    for (i, c) in chunks.iter().enumerate() {
        fx.extend(stream(&mut app, id, chunk("t1", "story", c, i > 0, false)));
    }
    assert!(
        !app.tab(id).unwrap().artifacts[0].complete,
        "still arriving"
    );
    (app, id, fx)
}

/// The laid-out lines of the tab's first artifact, with their styles.
fn laid_out(app: &App, id: TabId) -> Vec<ratatui::text::Line<'static>> {
    app.tab(id).unwrap().artifacts[0]
        .rendered
        .iter()
        .flatten()
        .flat_map(|b| b.lines.clone())
        .collect()
}

/// The screen's rows from the artifact's first body row on (the row under its header, which says
/// "streaming…" and then "complete"), up to the compose box.
fn body_rows(screen: &str) -> Vec<String> {
    let rows: Vec<&str> = screen.lines().collect();
    let head = rows
        .iter()
        .position(|r| r.contains(" · artifact"))
        .expect("the artifact's header is on screen");
    rows.iter()
        .skip(head + 1)
        .take_while(|r| !r.contains("Message →"))
        .map(|r| r.to_string())
        .collect()
}

const CHUNKS: [&str; 4] = [
    "**Nobody** came to",
    " the door.\n- a *taller* list item\n> a quoted line\n",
    "use `cargo run` to start\n",
    "and then **the unfinished li",
];

#[test]
fn streamed_markdown_is_laid_out_as_it_arrives_in_the_tab_and_the_split_view() {
    let (mut app, id, _) = streaming(&CHUNKS);
    let screen = render_text(&app);
    // The settled lines as the finished artifact shows them.
    assert!(screen.contains("Nobody came to the door."), "{screen}");
    assert!(!screen.contains("**Nobody**"), "{screen}");
    assert!(screen.contains("• a taller list item"), "{screen}");
    assert!(!screen.contains("*taller*"), "{screen}");
    assert!(screen.contains("│ a quoted line"), "{screen}");
    assert!(screen.contains("use cargo run to start"), "{screen}");
    assert!(!screen.contains("`cargo run`"), "{screen}");
    // The unfinished line is drawn as the text it is, behind the remote bar like the rest.
    assert!(screen.contains("▍and then **the unfinished li"), "{screen}");
    // The styles the layout gives them: the bullet, the emphasis, the quote.
    let styles = crate::markup::styles::render_styles(&app.theme);
    let lines = laid_out(&app, id);
    let span = |text: &str| {
        lines
            .iter()
            .flat_map(|l| l.spans.iter())
            .find(|s| s.content == text)
            .map(|s| s.style)
    };
    assert_eq!(span("•"), Some(styles.text.patch(styles.list_marker)));
    // (The dark theme draws remote text in italics already, so the emphasis joins its neighbours.)
    let taller = lines
        .iter()
        .flat_map(|l| l.spans.iter())
        .find(|s| s.content.contains("taller"))
        .map(|s| s.style);
    assert_eq!(
        taller,
        Some(styles.text.patch(styles.emphasis)),
        "{lines:?}"
    );
    assert_eq!(span("Nobody"), Some(styles.text.patch(styles.strong)));
    let bar = lines
        .iter()
        .flat_map(|l| l.spans.iter())
        .find(|s| s.content.starts_with('│'))
        .map(|s| s.style);
    assert_eq!(bar, Some(styles.quote), "the quote's bar: {lines:?}");
    // The split view draws the same rows.
    app.view = View::Split;
    let split = render_text(&app);
    assert!(split.contains("Nobody came to the door."), "{split}");
    assert!(!split.contains("**Nobody**"), "{split}");
    assert!(split.contains("• a taller list item"), "{split}");
    assert!(split.contains("and then **the unfinished li"), "{split}");
}

#[test]
fn completing_a_streamed_artifact_moves_none_of_the_lines_already_shown() {
    let (mut app, id, _) = streaming(&CHUNKS);
    let laid_before = laid_out(&app, id);
    assert_eq!(laid_before.len(), 4, "four settled lines: {laid_before:?}");
    let before = body_rows(&render_text(&app));
    app.view = View::Split;
    let split_before = body_rows(&render_text(&app));
    app.view = View::Tab(id);

    stream(
        &mut app,
        id,
        chunk("t1", "story", "ne** ends it\n", true, true),
    );
    stream(
        &mut app,
        id,
        status("t1", "ctx", TaskState::Completed, None),
    );
    assert!(app.tab(id).unwrap().artifacts[0].complete);

    // The laid-out lines, styles and all, are those shown before, and the finished line after them.
    let laid_after = laid_out(&app, id);
    assert_eq!(laid_after.get(..laid_before.len()), Some(&laid_before[..]));
    assert_eq!(laid_after.len(), laid_before.len() + 1);
    let after = body_rows(&render_text(&app));
    let settled = laid_before.len();
    assert_eq!(after.get(..settled), before.get(..settled), "no row moved");
    assert!(before[settled].contains("and then **the unfinished li"));
    assert!(
        after[settled].contains("and then the unfinished line ends it"),
        "{after:?}"
    );
    app.view = View::Split;
    let split_after = body_rows(&render_text(&app));
    assert_eq!(split_after.get(..settled), split_before.get(..settled));
}

#[test]
fn a_code_fence_is_raw_while_open_and_laid_out_and_highlighted_once_it_closes() {
    let (mut app, id, fx) = streaming(&["Intro **text**\n```rust\nfn main() {\n"]);
    let screen = render_text(&app);
    assert!(screen.contains("Intro text"), "{screen}");
    // An open fence is the unfinished tail: raw, and nothing is sent to the highlighter yet.
    assert!(screen.contains("▍```rust"), "{screen}");
    assert!(screen.contains("▍fn main() {"), "{screen}");
    assert!(!fx.iter().any(|e| matches!(e, Effect::Highlight { .. })));
    let fx = stream(
        &mut app,
        id,
        chunk("t1", "story", "}\n```\nAfter *it*\n", true, false),
    );
    let screen = render_text(&app);
    assert!(!screen.contains("```"), "the fences are gone: {screen}");
    assert!(screen.contains("After it"), "{screen}");
    assert!(
        fx.iter().any(
            |e| matches!(e, Effect::Highlight { lang: Some(l), code, .. }
            if l == "rust" && code == "fn main() {\n}")
        ),
        "the closed block goes to the highlighter before the artifact completes"
    );
    let before = laid_out(&app, id);
    let fx = stream(
        &mut app,
        id,
        status("t1", "ctx", TaskState::Completed, None),
    );
    assert!(
        !fx.iter().any(|e| matches!(e, Effect::Highlight { .. })),
        "completing it highlights nothing again"
    );
    assert_eq!(laid_out(&app, id), before);
}
