//! Navigation never turns a command key into message text, and every pane scrolls with the same keys, clamped
//! to its last page.

use super::*;
use crate::app::msg::StreamItem;
use crate::app::state::PromptKind;
use crate::testing::keys::{measured_key as key, measured_press as press};
use crate::testing::{app, status};
use a2a::TaskState;
use crossterm::event::{KeyCode, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

fn composed(app: &App) -> String {
    app.tabs
        .iter()
        .map(|t| t.compose.lines().join(""))
        .collect()
}

/// Two tabs with nothing typed, the second on screen, keys live.
fn two_tabs() -> App {
    let mut app = app();
    key(&mut app, KeyCode::Char('n'));
    key(&mut app, KeyCode::Esc);
    key(&mut app, KeyCode::Char('n'));
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.tabs.len(), 2);
    assert_eq!(app.focus, Focus::Main);
    app
}

/// After a navigation: focus on the main pane, and the next command key acts instead of being typed.
fn command_keys_are_live(mut app: App, what: &str) {
    let before = composed(&app);
    assert_eq!(app.focus, Focus::Main, "{what}: focus");
    assert!(app.overlay.is_none(), "{what}: a modal is still open");
    key(&mut app, KeyCode::Char('b'));
    assert_eq!(app.view, View::Board, "{what}: b opens the board");
    key(&mut app, KeyCode::Char('/'));
    assert!(
        matches!(
            app.overlay,
            Some(Overlay::Prompt {
                kind: PromptKind::BoardSearch,
                ..
            })
        ),
        "{what}: / searches the board"
    );
    assert_eq!(composed(&app), before, "{what}: nothing was typed");
}

#[test]
fn next_and_previous_tab_leave_command_keys_live() {
    let mut app = two_tabs();
    key(&mut app, KeyCode::Char('['));
    assert_eq!(app.view, View::Tab(app.tabs[0].id));
    command_keys_are_live(app, "[");
    let mut app = two_tabs();
    key(&mut app, KeyCode::Char('['));
    key(&mut app, KeyCode::Char(']'));
    assert_eq!(app.view, View::Tab(app.tabs[1].id));
    // `]` twice more goes round to the Card page: still no typing.
    key(&mut app, KeyCode::Char(']'));
    command_keys_are_live(app, "]");
}

#[test]
fn alt_number_from_the_compose_box_leaves_it() {
    let mut app = two_tabs();
    key(&mut app, KeyCode::Char('i'));
    assert_eq!(app.focus, Focus::Compose);
    press(&mut app, KeyCode::Char('1'), KeyModifiers::ALT);
    assert_eq!(app.view, View::Tab(app.tabs[0].id));
    command_keys_are_live(app, "Alt-1");
}

#[test]
fn opening_a_task_from_the_board_and_the_split_view_leaves_command_keys_live() {
    let mut app = two_tabs();
    key(&mut app, KeyCode::Char('b'));
    key(&mut app, KeyCode::Enter);
    assert!(matches!(app.view, View::Tab(_)));
    command_keys_are_live(app, "board Enter");
    let mut app = two_tabs();
    key(&mut app, KeyCode::Char('v'));
    key(&mut app, KeyCode::Enter);
    command_keys_are_live(app, "split Enter");
}

#[test]
fn closing_a_tab_leaves_command_keys_live() {
    let mut app = two_tabs();
    press(&mut app, KeyCode::Char('w'), KeyModifiers::CONTROL);
    assert_eq!(app.tabs.len(), 1);
    assert_eq!(app.view, View::Tab(app.tabs[0].id));
    command_keys_are_live(app, "Ctrl-W");
    // From the compose box (where Ctrl-W deletes a word) a close key that is no editing key closes too.
    let mut app = two_tabs();
    let closing = [("close_tab".to_string(), vec!["alt-w".to_string()])];
    app.keymap =
        crate::config::keymap::Keymap::with_overrides(&closing.into_iter().collect()).unwrap();
    key(&mut app, KeyCode::Char('i'));
    press(&mut app, KeyCode::Char('w'), KeyModifiers::ALT);
    assert_eq!(app.tabs.len(), 1);
    command_keys_are_live(app, "Alt-W from the box");
}

#[test]
fn closing_any_modal_leaves_command_keys_live() {
    // Help, opened from a tab, closed with Esc, q and ?.
    for close in [KeyCode::Esc, KeyCode::Char('q'), KeyCode::Char('?')] {
        let mut app = two_tabs();
        key(&mut app, KeyCode::Char('?'));
        assert!(matches!(app.overlay, Some(Overlay::Help { .. })));
        key(&mut app, close);
        assert!(!app.quit, "q closes the help, it does not quit");
        command_keys_are_live(app, "help closed");
    }
    // The palette, opened while typing.
    let mut app = two_tabs();
    key(&mut app, KeyCode::Char('i'));
    press(&mut app, KeyCode::Char('p'), KeyModifiers::CONTROL);
    key(&mut app, KeyCode::Esc);
    command_keys_are_live(app, "palette closed");
    // A confirmation answered no.
    let mut app = two_tabs();
    key(&mut app, KeyCode::Char('d'));
    key(&mut app, KeyCode::Char('D'));
    key(&mut app, KeyCode::Char('x'));
    command_keys_are_live(app, "confirmation");
}

#[test]
fn the_palette_running_next_tab_leaves_command_keys_live() {
    let mut app = two_tabs();
    press(&mut app, KeyCode::Char('p'), KeyModifiers::CONTROL);
    for c in "next_tab".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    assert!(app.overlay.is_none());
    command_keys_are_live(app, "palette next_tab");
}

#[test]
fn clicking_a_tab_leaves_command_keys_live_and_clicking_the_box_writes() {
    let mut app = two_tabs();
    let click = |app: &mut App, column, row| {
        update(
            app,
            Msg::Input(Event::Mouse(MouseEvent {
                kind: MouseEventKind::Down(MouseButton::Left),
                column,
                row,
                modifiers: KeyModifiers::NONE,
            })),
        )
    };
    // The first tab's title starts after " Card  Skills  Board  Split ".
    let x = crate::app::layout::tab_items(&app)
        .iter()
        .take(4)
        .map(|(_, t)| unicode_width::UnicodeWidthStr::width(t.as_str()) as u16 + 1)
        .sum::<u16>()
        + 2;
    click(&mut app, x, 0);
    assert_eq!(app.view, View::Tab(app.tabs[0].id));
    assert_eq!(app.focus, Focus::Main);
    // A click in the compose box (the bottom rows of the main pane) starts typing.
    let bottom = app.size.1 - 3;
    click(&mut app, 60, bottom);
    assert_eq!(app.focus, Focus::Compose);
    key(&mut app, KeyCode::Char('b'));
    assert_eq!(composed(&app), "b");
    key(&mut app, KeyCode::Esc);
    assert_eq!(
        app.focus,
        Focus::Main,
        "Esc leaves the box for the transcript"
    );
    command_keys_are_live(app, "tab click");
}

#[test]
fn new_task_and_a_skill_example_open_the_box_to_write_in() {
    let mut app = app();
    key(&mut app, KeyCode::Char('n'));
    assert_eq!(app.focus, Focus::Compose);
    key(&mut app, KeyCode::Char(']'));
    assert_eq!(composed(&app), "]", "n means to write: ] is text there");
    let mut app = crate::testing::app();
    key(&mut app, KeyCode::Char('s'));
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.focus, Focus::Compose);
}

#[test]
fn closing_an_approval_that_opened_while_typing_leaves_the_box() {
    let mut app = app();
    key(&mut app, KeyCode::Char('n'));
    for c in "go".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    let id = app.active_tab().map(|t| t.id).unwrap_or_default();
    assert_eq!(app.focus, Focus::Compose, "still writing after sending");
    update(
        &mut app,
        Msg::Stream {
            tab: id,
            generation: 1,
            source: crate::task::log::Source::Stream(0),
            item: StreamItem::Event(Box::new(status("t1", "c1", TaskState::AuthRequired, None))),
        },
    );
    assert!(app.overlay.is_none(), "never opened over the compose box");
    key(&mut app, KeyCode::Esc);
    assert!(matches!(app.overlay, Some(Overlay::Approval { .. })));
    app.pass_key_guard(); // a frame has shown the dialog, longer ago than its key guard
    key(&mut app, KeyCode::Char('l'));
    command_keys_are_live(app, "approval later");
}

#[test]
fn a_question_from_the_agent_leaves_the_keyboard_where_it_was() {
    let mut app = app();
    key(&mut app, KeyCode::Char('n'));
    for c in "ask".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.focus, Focus::Main);
    let id = app.active_tab().map(|t| t.id).unwrap_or_default();
    update(
        &mut app,
        Msg::Stream {
            tab: id,
            generation: 1,
            source: crate::task::log::Source::Stream(0),
            item: StreamItem::Event(Box::new(status(
                "t1",
                "c1",
                TaskState::InputRequired,
                Some("What is your name?"),
            ))),
        },
    );
    assert_eq!(
        app.focus,
        Focus::Main,
        "an agent's event never takes the keyboard"
    );
    assert!(
        app.status
            .as_ref()
            .is_some_and(|s| s.text.contains("i/Enter to write")),
        "{:?}",
        app.status
    );
    command_keys_are_live(app, "an input-required event");
}

#[test]
fn tab_and_shift_tab_never_land_in_the_compose_box() {
    let mut app = app();
    key(&mut app, KeyCode::Char('n'));
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.focus, Focus::Main);
    for (k, want) in [
        (KeyCode::Tab, Focus::Agents),
        (KeyCode::Tab, Focus::Main),
        (KeyCode::BackTab, Focus::Agents),
        (KeyCode::BackTab, Focus::Main),
    ] {
        key(&mut app, k);
        assert_eq!(app.focus, want, "after {k:?}");
    }
    // From the box, Tab leaves it for the transcript (command keys live).
    key(&mut app, KeyCode::Char('i'));
    assert_eq!(app.focus, Focus::Compose);
    key(&mut app, KeyCode::Tab);
    command_keys_are_live(app, "Tab from the compose box");
}
