//! Agents that look alike are told apart: two agents called "Acme" and "Аcme" (a Cyrillic А) on different origins
//! are both marked with their origin in the agent list, the tab titles and the board, and their tasks with the
//! same id get different short ids.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use a2a::TaskState;
use a2a_console::app::layout::tab_items;
use a2a_console::app::msg::Msg;
use a2a_console::app::state::{App, View};
use a2a_console::app::update::update;
use a2a_console::remote::connect::agent::AgentTarget;
use a2a_console::testing::{add_online, empty_app, render_text, status};
use crossterm::event::Event;

fn card(name: &str) -> String {
    a2a_console::testing::DEMO_CARD.replace(r#""name": "Demo""#, &format!(r#""name": "{name}""#))
}

/// Two agents whose cards name them `a` and `b`, at ports 9001 and 9002, each with a tab on task `task`.
fn two_agents(a: &str, b: &str, task: &str) -> App {
    let mut app = empty_app((150, 34));
    for (name, port) in [(a, 9001), (b, 9002)] {
        let target =
            AgentTarget::from_url(&format!("http://127.0.0.1:{port}"), Duration::from_secs(5));
        let id = add_online(&mut app, target, name, &card(name));
        let tab = app.new_tab(id);
        app.tab_mut(tab)
            .unwrap()
            .feed(&status(task, "ctx", TaskState::Working, Some("on it")));
    }
    // Any message runs the update's bookkeeping (short ids, look-alikes).
    update(&mut app, Msg::Input(Event::Resize(150, 34)));
    app
}

#[test]
fn a_homoglyph_name_is_marked_with_each_agents_origin_everywhere_it_shows() {
    let mut app = two_agents("Acme", "\u{0410}cme", "task-0002");
    assert_eq!(app.agents[0].name(), "Acme");
    let list = render_text(&app);
    assert!(list.contains("≈ 127.0.0.1:9001 · look-alike"), "{list}");
    assert!(list.contains("≈ 127.0.0.1:9002 · look-alike"), "{list}");
    let titles: Vec<String> = tab_items(&app).into_iter().map(|(_, s)| s).collect();
    assert!(
        titles.iter().any(|s| s.contains("Acme ≈127.0.0.1:9001")),
        "{titles:?}"
    );
    assert!(
        titles
            .iter()
            .any(|s| s.contains("\u{0410}cme ≈127.0.0.1:9002")),
        "{titles:?}"
    );
    app.view = View::Board;
    let board = render_text(&app);
    assert!(board.contains("≈127.0.0.1:9001"), "{board}");
    assert!(board.contains("≈127.0.0.1:9002"), "{board}");
}

#[test]
fn the_same_name_on_two_origins_is_marked_and_different_names_are_not() {
    let same = two_agents("Acme", "acme", "t-1");
    assert!(render_text(&same).contains("· look-alike"));
    let apart = two_agents("Acme", "Acne", "t-1");
    let screen = render_text(&apart);
    assert!(!screen.contains("look-alike"), "{screen}");
    assert!(tab_items(&apart).iter().all(|(_, s)| !s.contains('≈')));
}

#[test]
fn two_agents_tasks_with_the_same_id_get_different_short_ids() {
    let app = two_agents("Parts", "Billing", "01a230b3-6f1e-7c2a-9d4b-1234abcd5678");
    let shorts: Vec<String> = app.tabs.iter().map(|t| t.short_task().unwrap()).collect();
    assert_eq!(shorts, vec!["abcd5678#1", "abcd5678#2"]);
    let titles: Vec<String> = tab_items(&app).into_iter().map(|(_, s)| s).collect();
    assert!(
        titles.iter().any(|s| s.contains("abcd5678#1")),
        "{titles:?}"
    );
    assert!(
        titles.iter().any(|s| s.contains("abcd5678#2")),
        "{titles:?}"
    );
}
