//! Snapshots of what navigation looks like: the keyboard's mode on the status bar and the compose box's title
//! (typing or command keys), the help screen at the terminal's width, the card page scrolled to its end with
//! the scroll keys, the demo card's security schemes, and the agent list cutting a long name with `…`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use a2a_console::app::state::{App, Focus, Overlay, View};
use a2a_console::remote::connect::agent::AgentTarget;
use a2a_console::testing::keys::measured_press as press;
use a2a_console::testing::render_text as render;
use a2a_console::testing::{add_online, parts_app};
use crossterm::event::{KeyCode, KeyModifiers};

fn snap(name: &str, app: &App) {
    let text = render(app);
    insta::with_settings!({filters => vec![(r"\d{2}:\d{2}:\d{2}", "[time]")]}, {
        insta::assert_snapshot!(name, text);
    });
}

#[test]
fn the_status_bar_and_the_compose_box_say_whether_keys_type() {
    let mut app = parts_app();
    press(&mut app, KeyCode::Char('n'), KeyModifiers::NONE);
    assert_eq!(app.focus, Focus::Compose);
    let typing = render(&app);
    assert!(typing.contains("TYPING → parts · Esc to leave"), "{typing}");
    assert!(
        typing.contains("typing · Enter sends · Esc leaves"),
        "{typing}"
    );
    snap("focus_typing", &app);
    press(&mut app, KeyCode::Esc, KeyModifiers::NONE);
    assert_eq!(app.focus, Focus::Main);
    let keys = render(&app);
    assert!(keys.contains(" KEYS "), "{keys}");
    assert!(keys.contains("Message → parts · i to write"), "{keys}");
    assert!(!keys.contains("TYPING"), "{keys}");
    snap("focus_keys", &app);
}

#[test]
fn help_uses_the_terminal_width_in_aligned_columns() {
    for (w, h, name) in [(160, 48, "help_160"), (80, 30, "help_80")] {
        let mut app = parts_app();
        app.size = (w, h);
        app.overlay = Some(Overlay::Help { scroll: 0 });
        let text = render(&app);
        // The box spans the terminal but a margin of two columns each side.
        let top = text.lines().nth(1).unwrap();
        assert!(top.starts_with("┌") || top.contains("┌ Help"), "{top}");
        assert!(text.contains("Global — anywhere"), "{text}");
        snap(name, &app);
    }
    // Scrolled to the end: the dialog keys are listed, and nothing is scrolled past.
    let mut app = parts_app();
    app.size = (160, 48);
    app.overlay = Some(Overlay::Help { scroll: 0 });
    press(&mut app, KeyCode::End, KeyModifiers::NONE);
    let text = render(&app);
    assert!(text.contains("approve_device_flow"), "{text}");
    assert!(text.contains("replace_file"), "{text}");
    assert!(
        text.contains("⚠ marks text"),
        "the last page ends with the notes: {text}"
    );
    snap("help_160_end", &app);
}

#[test]
fn the_card_page_scrolls_with_the_page_keys_and_stops_at_its_end() {
    let mut app = parts_app();
    app.size = (110, 20);
    app.view = View::Card;
    app.focus = Focus::Main;
    press(&mut app, KeyCode::Char('G'), KeyModifiers::NONE);
    let end = render(&app);
    assert!(end.contains("Validation"), "{end}");
    snap("card_scrolled_to_end", &app);
    // G again, then PgDn and Space: still the last page, not blank rows past it.
    let at_end = app.card_scroll;
    press(&mut app, KeyCode::PageDown, KeyModifiers::NONE);
    press(&mut app, KeyCode::Char(' '), KeyModifiers::NONE);
    assert_eq!(app.card_scroll, at_end);
    // One PgUp moves one page up from what is on screen.
    press(&mut app, KeyCode::PageUp, KeyModifiers::NONE);
    assert_eq!(app.card_scroll, at_end.saturating_sub(16));
}

#[test]
fn the_demo_cards_security_schemes_read_as_name_then_kind() {
    let card = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fuzz_corpus/cards/demo.json"
    ))
    .unwrap();
    let mut app = a2a_console::testing::empty_app((160, 50));
    let mut target = AgentTarget::from_url("http://127.0.0.1:9", std::time::Duration::from_secs(5));
    target.label = "demo".into();
    add_online(&mut app, target, "demo", &card);
    app.view = View::Card;
    let text = render(&app);
    assert!(
        text.contains("scheme        ▍operator-oauth: OAuth 2.0 (device code)"),
        "{text}"
    );
    assert!(!text.contains("operator-oauthOAuth"), "{text}");
}

/// Cut in the middle (issue [10] item 6): its start and its end stay, where names differ most often.
#[test]
fn a_long_agent_name_is_cut_in_the_middle() {
    let mut app = parts_app();
    let mut target = AgentTarget::from_url("http://127.0.0.1:9", std::time::Duration::from_secs(5));
    target.label = "warehouse-inventory-reconciliation-agent".into();
    add_online(
        &mut app,
        target,
        "warehouse-inventory-reconciliation-agent",
        a2a_console::testing::PARTS_CARD,
    );
    let text = render(&app);
    assert!(text.contains("warehouse-i…ation-agent"), "{text}");
    snap("agent_list_long_name", &app);
}

/// With a search in the tab, `n` is the next match: the idle hint in the status bar says so instead of
/// offering `n` as "new task" (which is what it says without a search).
#[test]
fn the_idle_hint_names_what_n_does_in_a_searched_tab() {
    let mut app = parts_app();
    app.size = (130, 30);
    let agent = app.agents[0].id;
    let id = app.new_tab(agent);
    let t = app.tab_mut(id).unwrap();
    t.feed(&a2a_console::testing::chunk(
        "t1",
        "a1",
        "a bottle and another bottle",
        false,
        true,
    ));
    app.view = View::Tab(id);
    app.focus = Focus::Main;
    app.status = None;
    assert!(render(&app).contains("n new task"));
    press(&mut app, KeyCode::Char('/'), KeyModifiers::NONE);
    for c in "bottle".chars() {
        press(&mut app, KeyCode::Char(c), KeyModifiers::NONE);
    }
    press(&mut app, KeyCode::Enter, KeyModifiers::NONE);
    app.status = None; // the "match 1/2" message has expired
    let text = render(&app);
    let bar = text.lines().last().unwrap_or_default();
    assert!(
        bar.contains("n next match · N previous · Esc clears the search"),
        "{bar}"
    );
    assert!(!bar.contains("new task"), "{bar}");
    // Typing: only the compose box's keys (q would type a q).
    press(&mut app, KeyCode::Char('i'), KeyModifiers::NONE);
    app.status = None;
    let text = render(&app);
    let bar = text.lines().last().unwrap_or_default();
    assert!(bar.contains("Enter sends · Alt-Enter new line"), "{bar}");
    assert!(!bar.contains("q quit"), "{bar}");
}
