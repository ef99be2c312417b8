//! The first start with no agent configured: the agent list, the card page and the skills page offer the demo
//! agent (with the key as bound) and adding one by URL, and titles say "no agent" instead of running empty.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use a2a_console::app::msg::{Effect, Msg};
use a2a_console::app::update::update;
use a2a_console::config::keymap::Keymap;
use a2a_console::testing::empty_app;
use a2a_console::testing::keys::char_key as press;
use a2a_console::testing::render_text as render;

#[test]
fn an_empty_first_start_offers_the_demo_and_names_no_agent() {
    let app = empty_app((110, 26));
    let text = render(&app);
    insta::assert_snapshot!("first_start_card", text);
    assert!(text.contains("Card · no agent"), "{text}");
    assert!(!text.contains("Card ·  "), "an empty title: {text}");
    assert!(text.contains("D  demo agent"), "{text}");
    assert!(text.contains("a2a-console --demo"), "{text}");
}

#[test]
fn the_skills_page_with_no_agent_says_so_instead_of_card_not_loaded() {
    let mut app = empty_app((110, 26));
    press(&mut app, 's');
    let text = render(&app);
    insta::assert_snapshot!("first_start_skills", text);
    assert!(text.contains("Skills · no agent"), "{text}");
    assert!(!text.contains("has not loaded"), "{text}");
}

#[test]
fn a_remapped_demo_key_is_the_one_the_first_start_shows() {
    let mut keys = BTreeMap::new();
    keys.insert("add_demo".to_string(), vec!["ctrl-d".to_string()]);
    let mut app = empty_app((110, 26));
    app.keymap = Keymap::with_overrides(&keys).unwrap();
    let text = render(&app);
    assert!(text.contains("Ctrl-D  demo agent"), "{text}");
    assert!(press(&mut app, 'D').is_empty(), "D is no longer bound");
}

#[test]
fn after_d_the_demo_is_listed_and_its_card_loads() {
    let mut app = empty_app((110, 26));
    assert!(matches!(
        press(&mut app, 'D').as_slice(),
        [Effect::StartDemo { .. }]
    ));
    assert!(render(&app).contains("starting the embedded demo agent"));
    update(
        &mut app,
        Msg::DemoStarted(Ok(Box::new(a2a_console::app::msg::DemoListening::at(
            a2a_console::demo::target("http://127.0.0.1:4999", None),
        )))),
    );
    let text = render(&app);
    assert!(text.contains("demo"), "{text}");
    assert!(text.contains("Loading the card of demo"), "{text}");
    assert!(!text.contains("No agent configured"), "{text}");
}
