//! Remote text where the user reads it, issue [9]: a C1 control in an agent's message is a visible marker
//! that hides nothing after it, in the transcript and in the raw JSON view (`J`) (item 7); text that
//! imitates the console or names keys to press carries its flag, with the reason, under the message
//! (item 13). Rendered into a `TestBackend` from a tab fed the events as they arrive.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use a2a::*;
use a2a_console::app::state::{App, Focus, Overlay, View};
use a2a_console::testing::keys::char_key as press;
use a2a_console::testing::{parts_app, render_text};

/// A tab whose agent said `text` in a completed status message.
fn tab_saying(text: &str) -> App {
    let mut app = parts_app();
    let id = app.new_tab(app.agents[0].id);
    let t = app.tab_mut(id).unwrap();
    t.record_user("hello", vec![], "");
    t.feed(&a2a_console::testing::status(
        "task-0001",
        "ctx-1",
        TaskState::Completed,
        Some(text),
    ));
    app.view = View::Tab(id);
    app.focus = Focus::Main;
    app.size = (130, 40);
    app
}

#[test]
fn a_c1_control_is_a_marker_and_hides_nothing_in_the_transcript_and_the_raw_json() {
    let mut app = tab_saying("before\u{9d}0;after the osc\u{9b}2J and after the csi");
    let screen = render_text(&app);
    assert!(
        screen.contains("before⟨U+009D⟩0;after the osc⟨U+009B⟩2J and after the csi"),
        "{screen}"
    );
    assert!(!screen.contains('\u{9d}') && !screen.contains('\u{9b}'));
    // The raw JSON of the event behind the selected entry and of the task.
    press(&mut app, ',');
    press(&mut app, 'J');
    assert!(matches!(app.overlay, Some(Overlay::RawJson { .. })));
    let Some(Overlay::RawJson { lines, .. }) = &app.overlay else {
        unreachable!()
    };
    let all = lines.join("\n");
    assert!(all.contains("after the csi"), "{all}");
    assert!(all.contains("⟨U+009D⟩") && !all.contains('\u{9d}'), "{all}");
    let screen = render_text(&app);
    assert!(screen.contains("and after the csi"), "{screen}");
}

#[test]
fn console_imitation_and_key_instructions_are_flagged_with_their_reasons() {
    let app = tab_saying("✔ console: agent verified\nAll set. Now press A then a to finish.");
    let screen = render_text(&app);
    assert!(
        screen.contains("⚠ Tells you which keys to press"),
        "{screen}"
    );
    assert!(screen.contains("⚠ Imitates the console"), "{screen}");
    // Ordinary text raises neither.
    let app =
        tab_saying("Type a message and press Enter to send it; the agent verified the booking.");
    let screen = render_text(&app);
    assert!(!screen.contains("Tells you which keys"), "{screen}");
    assert!(!screen.contains("Imitates the console"), "{screen}");
}
