//! Tabs and the board through `update` (issue 10): a message exchange without a task keeps its transcript
//! and exports; short ids tell tasks apart; the tab bar keeps the active tab in view; split shows the marked
//! tasks; the board's search and filters can be cleared.

use a2a::*;
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

use super::update;
use crate::app::msg::{Effect, Msg, StreamItem};
use crate::app::state::{App, Focus, Overlay, View};
use crate::task::log::Source;
use crate::testing::app;
use crate::testing::keys::key;

/// A tab where the user sent "message" and the agent answered directly (no task).
pub(crate) fn exchange_tab() -> (App, u64) {
    let mut app = app();
    let id = app.new_tab(app.agents[0].id);
    app.view = View::Tab(id);
    app.focus = Focus::Main;
    let t = app.tab_mut(id).unwrap();
    t.record_user("message", vec![], "u1");
    t.generation = 1;
    let mut reply = Message::new(Role::Agent, vec![Part::text("direct reply")]);
    reply.message_id = "r1".into();
    update(
        &mut app,
        Msg::Stream {
            tab: id,
            generation: 1,
            source: Source::Stream(1),
            item: StreamItem::Event(Box::new(StreamResponse::Message(reply))),
        },
    );
    update(
        &mut app,
        Msg::Stream {
            tab: id,
            generation: 1,
            source: Source::Stream(1),
            item: StreamItem::End,
        },
    );
    (app, id)
}

#[test]
fn a_direct_reply_keeps_the_exchange_and_e_exports_it() {
    let (mut app, id) = exchange_tab();
    let t = app.tab(id).unwrap();
    assert!(t.log.task_id.is_none());
    assert_eq!(t.badge_label(), "message exchange", "not \"new\"");
    assert!(
        t.transcript.len() >= 2,
        "the exchange stays in the transcript"
    );
    let title = crate::app::layout::tab_items(&app)
        .into_iter()
        .find(|(v, _)| *v == View::Tab(id))
        .map(|(_, s)| s)
        .unwrap();
    assert!(title.contains("message exchange"), "{title}");
    key(&mut app, KeyCode::Char('E'));
    let Some(Overlay::Prompt { input, .. }) = &app.overlay else {
        panic!("E offers to export the exchange: {:?}", app.status);
    };
    assert!(
        input.lines()[0].starts_with("exchange-"),
        "{:?}",
        input.lines()
    );
    let fx = key(&mut app, KeyCode::Enter);
    assert!(
        matches!(fx.as_slice(), [Effect::ExportTab { agent_name, .. }] if agent_name == "Demo"),
        "{fx:?}"
    );
}

#[test]
fn a_fresh_tab_has_nothing_to_export() {
    let mut app = app();
    let id = app.new_tab(app.agents[0].id);
    app.view = View::Tab(id);
    app.focus = Focus::Main;
    assert_eq!(app.tab(id).unwrap().badge_label(), "new");
    key(&mut app, KeyCode::Char('E'));
    assert!(app.overlay.is_none());
    assert!(app.status.as_ref().is_some_and(|s| s.error));
}

/// `n` tabs on the demo agent, each following a task with the given id.
fn tabs_with_tasks(ids: &[&str]) -> (App, Vec<u64>) {
    let mut app = app();
    let mut tabs = Vec::new();
    for id in ids {
        let tab = app.new_tab(app.agents[0].id);
        app.tab_mut(tab).unwrap().feed(&crate::testing::status(
            id,
            "ctx",
            TaskState::Working,
            None,
        ));
        tabs.push(tab);
    }
    // Any message works the short ids out again.
    update(&mut app, Msg::Tick);
    (app, tabs)
}

#[test]
fn two_uuid_v7_ids_with_the_same_time_prefix_get_distinct_short_ids() {
    let a = "01a230b3-6f1e-7c2a-9d4b-00ff11112222";
    let b = "01a230b3-6f1e-7c2a-8e5c-77ff11112222";
    let c = "01a230b3-6f1e-7c2a-9d4b-1234abcd5678";
    let (mut app, tabs) = tabs_with_tasks(&[a, b, c]);
    let short = |app: &App, i: usize| app.tab(tabs[i]).unwrap().short_task().unwrap();
    assert_eq!(short(&app, 0), "00ff11112222");
    assert_eq!(short(&app, 1), "77ff11112222");
    assert_eq!(short(&app, 2), "abcd5678", "the random tail, not 01a230b3");
    let bar = crate::app::layout::tab_items(&app);
    assert!(bar.iter().any(|(_, t)| t.contains("77ff11112222")));
    // The board, the tab title and the export name say the same.
    app.view = View::Tab(tabs[1]);
    app.focus = Focus::Main;
    key(&mut app, KeyCode::Char('E'));
    let Some(Overlay::Prompt { input, .. }) = &app.overlay else {
        panic!("E asks where to export");
    };
    assert_eq!(input.lines()[0], "task-77ff11112222.md");
    // Close the twin: the other one is alone again and short again.
    app.overlay = None;
    update(
        &mut app,
        Msg::Input(Event::Key(KeyEvent::new(
            KeyCode::Char('w'),
            KeyModifiers::CONTROL,
        ))),
    );
    assert_eq!(short(&app, 0), "11112222");
}

/// Issue [9] item 8: the export's suggested name is a safe base name, whatever the agent called its task.
#[test]
fn the_export_name_is_a_safe_base_name_whatever_the_task_id() {
    for id in [
        "../../.bashrc",
        "x/../../etc/passwd",
        "/tmp/evil",
        "..",
        "a\u{1b}]0;pwned\u{7}b",
        "..\\..\\win",
        "id\u{202e}dm.exe",
    ] {
        let (mut app, tabs) = tabs_with_tasks(&[id]);
        app.view = View::Tab(tabs[0]);
        app.focus = Focus::Main;
        key(&mut app, KeyCode::Char('E'));
        let Some(Overlay::Prompt { input, .. }) = &app.overlay else {
            panic!("E asks where to export");
        };
        let name = &input.lines()[0];
        assert!(
            !name.contains(['/', '\\']) && !name.chars().any(char::is_control),
            "{id:?} gave {name:?}"
        );
        assert!(
            name.starts_with("task-") && name.ends_with(".md"),
            "{id:?} gave {name:?}"
        );
        assert!(
            !name.contains('\u{202e}') && !name.contains('\u{1b}'),
            "{id:?} gave {name:?}"
        );
    }
}

#[test]
fn the_tab_bar_scrolls_to_keep_the_active_tab_in_view() {
    let ids: Vec<String> = (0..7).map(|i| format!("task-000{i}")).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let (mut app, tabs) = tabs_with_tasks(&refs);
    app.size = (100, 30);
    app.view = View::Tab(tabs[6]);
    let bar = crate::app::layout::tab_bar(&app, 100);
    assert_eq!(bar.hidden_right, 0);
    assert!(bar.hidden_left > 0, "{bar:?}");
    assert_eq!(bar.tabs.last().map(|(v, _)| *v), Some(View::Tab(tabs[6])));
    // On the first tab the window is back at the left.
    app.view = View::Tab(tabs[0]);
    let bar = crate::app::layout::tab_bar(&app, 100);
    assert_eq!(bar.hidden_left, 0);
    assert!(bar.hidden_right > 0);
    assert_eq!(bar.tabs.first().map(|(v, _)| *v), Some(View::Tab(tabs[0])));
    // A click lands on what is drawn: the active far-right tab, after the "‹ N more" hint.
    app.view = View::Tab(tabs[6]);
    let bar = crate::app::layout::tab_bar(&app, 100);
    let w = |s: &str| unicode_width::UnicodeWidthStr::width(s) + 1;
    let before: usize = bar.pages.iter().map(|(_, t)| w(t)).sum::<usize>()
        + w(&crate::app::layout::more_left(bar.hidden_left))
        + bar
            .tabs
            .iter()
            .rev()
            .skip(1)
            .map(|(_, t)| w(t))
            .sum::<usize>();
    assert_eq!(
        crate::app::layout::tab_at(&app, (before + 2) as u16),
        Some(View::Tab(tabs[6]))
    );
}

#[test]
fn split_shows_the_marked_tasks_else_the_newest_live_ones() {
    let ids: Vec<String> = (0..6).map(|i| format!("task-000{i}")).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let (mut app, _) = tabs_with_tasks(&refs);
    assert_eq!(
        crate::app::board::split_rule(&app),
        crate::app::board::SplitRule::Newest
    );
    assert_eq!(crate::app::board::split_tabs(&app).len(), 4);
    key(&mut app, KeyCode::Char('b'));
    app.focus = Focus::Main;
    let rows = crate::app::board::rows(&app);
    // Mark the second and the fifth row.
    key(&mut app, KeyCode::Char('j'));
    key(&mut app, KeyCode::Char('m'));
    for _ in 0..3 {
        key(&mut app, KeyCode::Char('j'));
    }
    key(&mut app, KeyCode::Char('m'));
    assert_eq!(app.board.marked, [rows[1], rows[4]]);
    assert_eq!(
        crate::app::board::split_rule(&app),
        crate::app::board::SplitRule::Marked
    );
    assert_eq!(crate::app::board::split_tabs(&app), [rows[1], rows[4]]);
    // `m` again unmarks; a closed tab drops out; none left falls back to the newest.
    key(&mut app, KeyCode::Char('m'));
    assert_eq!(app.board.marked, [rows[1]]);
    app.tabs.retain(|t| t.id != rows[1]);
    assert_eq!(
        crate::app::board::split_rule(&app),
        crate::app::board::SplitRule::Newest
    );
}

#[test]
fn board_search_is_edited_after_the_old_text_and_cleared_by_an_empty_answer() {
    let (mut app, _) = tabs_with_tasks(&["task-0000", "task-0001"]);
    key(&mut app, KeyCode::Char('b'));
    app.focus = Focus::Main;
    key(&mut app, KeyCode::Char('/'));
    for c in "zzz".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.board.query, "zzz");
    assert!(crate::app::board::rows(&app).is_empty());
    // Reopened with the cursor after "zzz": Backspace deletes from the end, and typing appends.
    key(&mut app, KeyCode::Char('/'));
    key(&mut app, KeyCode::Backspace);
    key(&mut app, KeyCode::Char('y'));
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.board.query, "zzy");
    key(&mut app, KeyCode::Char('/'));
    for _ in 0..3 {
        key(&mut app, KeyCode::Backspace);
    }
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.board.query, "", "an empty search clears the filter");
    assert_eq!(crate::app::board::rows(&app).len(), 2);
    // `x` clears every filter at once.
    key(&mut app, KeyCode::Char('f'));
    key(&mut app, KeyCode::Char('t'));
    app.board.query = "nothing like it".into();
    assert!(app.board.filtered());
    key(&mut app, KeyCode::Char('x'));
    assert!(!app.board.filtered());
    assert_eq!(crate::app::board::rows(&app).len(), 2);
    assert!(
        app.status
            .as_ref()
            .is_some_and(|s| s.text.contains("cleared"))
    );
}
