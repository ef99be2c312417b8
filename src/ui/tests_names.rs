//! Three agents whose names share their first words ("A2A Acceptance Python 1.0", "A2A Acceptance JS 1.0",
//! "A2A Acceptance Python 0.3", as the SDKs' acceptance servers call themselves) read apart at 100 columns in
//! the agent list, the tab titles and the board: the shared words are what gets cut, never the rest.

use std::time::Duration;

use a2a::TaskState;

use crate::app::layout::tab_items;
use crate::app::msg::Msg;
use crate::app::state::{App, Focus, View};
use crate::app::update::update;
use crate::remote::connect::agent::AgentTarget;
use crate::testing::{DEMO_CARD, add_online, empty_app, render_text, status};

const NAMES: [&str; 3] = [
    "A2A Acceptance Python 1.0",
    "A2A Acceptance JS 1.0",
    "A2A Acceptance Python 0.3",
];

/// The three agents, named by their cards (no name in the config), each with a working task in a tab.
fn acceptance_servers() -> App {
    let mut app = empty_app((100, 30));
    for (i, name) in NAMES.iter().enumerate() {
        let card = DEMO_CARD.replace(r#""name": "Demo""#, &format!(r#""name": "{name}""#));
        let target = AgentTarget::from_url(
            &format!("http://127.0.0.1:{}", 9001 + i),
            Duration::from_secs(5),
        );
        let id = add_online(&mut app, target, name, &card);
        let tab = app.new_tab(id);
        let t = app.tab_mut(tab).unwrap();
        t.feed(&status(
            &format!("task-000{i}"),
            "ctx",
            TaskState::Working,
            Some("on it"),
        ));
    }
    update(
        &mut app,
        Msg::Input(crossterm::event::Event::Resize(100, 30)),
    );
    app
}

/// The rows of the agent list (the left pane: 25 columns at this width).
fn agent_list(screen: &str) -> Vec<String> {
    screen
        .lines()
        .map(|l| l.chars().take(25).collect::<String>())
        .collect()
}

#[test]
fn the_agent_list_keeps_what_tells_the_three_apart() {
    let app = acceptance_servers();
    let list = agent_list(&render_text(&app)).join("\n");
    for shown in [
        "A2A Accept…Python 1.0",
        "A2A Acceptance JS 1.0",
        "A2A Accept…Python 0.3",
    ] {
        assert_eq!(list.matches(shown).count(), 1, "{shown}:\n{list}");
    }
}

#[test]
fn the_tab_titles_keep_what_tells_the_three_apart() {
    let mut app = acceptance_servers();
    let titles: Vec<String> = tab_items(&app)
        .into_iter()
        .skip(4)
        .map(|(_, t)| t)
        .collect();
    for (title, shown) in titles
        .iter()
        .zip(["A2A…Python 1.0", "A2A Acc…JS 1.0", "A2A…Python 0.3"])
    {
        assert!(title.contains(shown), "{shown}: {titles:?}");
    }
    // The active tab's title as drawn on the tab bar.
    let last = app.tabs[2].id;
    app.view = View::Tab(last);
    app.focus = Focus::Main;
    let screen = render_text(&app);
    let bar = screen.lines().next().unwrap_or_default();
    assert!(bar.contains("A2A…Python 0.3"), "{bar}");
}

#[test]
fn the_boards_agent_column_grows_to_tell_the_three_apart() {
    let mut app = acceptance_servers();
    app.view = View::Board;
    app.focus = Focus::Main;
    let screen = render_text(&app);
    let board: String = screen
        .lines()
        .map(|l| l.chars().skip(25).collect::<String>() + "\n")
        .collect();
    // A 73-column board has no room to grow the column (the last message keeps its 24): the shared words are
    // cut, not the rest, as in the tab titles.
    let rows: String = board.lines().filter(|l| l.starts_with('│')).collect();
    for shown in ["A2A…Python 1.0", "A2A Acc…JS 1.0", "A2A…Python 0.3"] {
        assert_eq!(rows.matches(shown).count(), 1, "{shown}:\n{board}");
    }
    assert!(board.contains("in st."), "{board}");
    // The time in state is read from the clock as the frame is drawn.
    insta::with_settings!({filters => vec![(r" \d+[smh](\d{2}m)?    0  ▍", " [age]    0  ▍")]}, {
        insta::assert_snapshot!("board_three_acceptance_servers", screen);
    });
    // At 160 columns the column grows to the whole names.
    app.size = (160, 30);
    let screen = render_text(&app);
    for name in NAMES {
        assert_eq!(
            screen.matches(name).count(),
            2,
            "the list and the board: {name}:\n{screen}"
        );
    }
}
