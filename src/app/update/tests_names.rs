//! Naming agents through `update` (issue 10): `a` asks for a short name after the URL, offering the card's;
//! `R` renames an agent, saved to the config file and shown at once in the list and the tab titles; a renamed
//! agent's stored tabs stay its own across a restart.

use std::time::Duration;

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

use super::update;
use crate::app::agent::{AgentInfo, AgentOrigin, Usability};
use crate::app::ids::AgentId;
use crate::app::msg::{Effect, Msg};
use crate::app::state::{App, Overlay, PromptKind};
use crate::config::protocol::Preferences;
use crate::remote::connect::agent::AgentTarget;
use crate::remote::connect::select_interface;
use crate::store::record::Record;
use crate::testing::keys::{key, keys};
use crate::testing::{DEMO_CARD, app, fetched_card};

/// Empty the prompt on screen.
fn clear(app: &mut App) {
    for _ in 0..80 {
        key(app, KeyCode::Backspace);
    }
}

/// What the prompt on screen holds, and what it is for.
fn prompt(app: &App) -> (PromptKind, String) {
    match &app.overlay {
        Some(Overlay::Prompt { kind, input }) => (*kind, input.lines().join("")),
        _ => panic!("no prompt on screen"),
    }
}

/// A card as loaded, named `name` (as the agent sent it: sanitised on the way in).
fn card_named(name: &str) -> Box<AgentInfo> {
    let json = DEMO_CARD.replace(
        "\"name\": \"Demo\"",
        &format!("\"name\": {}", serde_json::to_string(name).unwrap()),
    );
    let card = fetched_card(&json);
    let selected = select_interface(&card.card, Preferences::default()).unwrap();
    Box::new(AgentInfo::new("agent", card, Usability::Ready(selected)))
}

/// `a`, a URL and Enter: the id of the agent added.
fn add(app: &mut App, url: &str) -> AgentId {
    key(app, KeyCode::Char('a'));
    keys(app, url);
    let fx = key(app, KeyCode::Enter);
    let [Effect::LoadAgent { agent, .. }] = fx.as_slice() else {
        panic!("the card loads, and nothing is saved before the name: {fx:?}");
    };
    *agent
}

#[test]
fn adding_asks_for_a_short_name_offers_the_cards_and_saves_it_with_the_url() {
    let mut app = app();
    let agent = add(&mut app, "http://127.0.0.1:7/");
    // The card is not in yet: the prompt is empty.
    assert_eq!(
        prompt(&app),
        (
            PromptKind::AgentName {
                agent,
                adding: true
            },
            String::new()
        )
    );
    // It arrives while the prompt is open: its name (sanitised) is offered.
    update(
        &mut app,
        Msg::AgentLoaded {
            agent,
            result: Ok(card_named("A2A Acceptance Python 1.0\u{1b}[2J")),
        },
    );
    let (_, offered) = prompt(&app);
    assert!(
        offered.starts_with("A2A Acceptance Python 1.0") && !offered.contains('\u{1b}'),
        "{offered:?}"
    );
    clear(&mut app);
    keys(&mut app, "py 1.0");
    let fx = key(&mut app, KeyCode::Enter);
    assert!(
        matches!(fx.as_slice(), [Effect::AddAgentToConfig { url, name: Some(n) }]
            if url == "http://127.0.0.1:7/" && n == "py 1.0"),
        "{fx:?}"
    );
    assert!(app.overlay.is_none());
    let a = app.agent(agent).unwrap();
    assert_eq!(a.name(), "py 1.0");
    // The key is the one the next start computes from the file's entry (name and URL).
    let mut from_file = AgentTarget::from_url("http://127.0.0.1:7/", Duration::from_secs(1));
    from_file.label = "py 1.0".into();
    assert_eq!(
        a.key,
        crate::app::state::agent_key(&from_file, AgentOrigin::Config)
    );
}

/// The card's name offered with a blank at its end is still the card's, not the user's; quitting from the
/// prompt keeps the agent, with what was typed.
#[test]
fn an_offered_name_with_blanks_is_the_cards_and_quitting_from_the_prompt_keeps_the_agent() {
    let mut app = app();
    let agent = add(&mut app, "http://127.0.0.1:7/");
    update(
        &mut app,
        Msg::AgentLoaded {
            agent,
            result: Ok(card_named("Bank ")),
        },
    );
    let fx = key(&mut app, KeyCode::Enter);
    assert!(
        matches!(fx.as_slice(), [Effect::AddAgentToConfig { name: None, .. }]),
        "{fx:?}"
    );
    let mut app = crate::testing::app();
    add(&mut app, "http://127.0.0.1:8/");
    keys(&mut app, "mine");
    let fx = update(
        &mut app,
        Msg::Input(Event::Key(KeyEvent::new(
            KeyCode::Char('c'),
            KeyModifiers::CONTROL,
        ))),
    );
    assert!(
        matches!(fx.as_slice(), [Effect::AddAgentToConfig { url, name: Some(n) }, Effect::Quit]
            if url == "http://127.0.0.1:8/" && n == "mine"),
        "{fx:?}"
    );
}

#[test]
fn the_cards_name_as_offered_or_no_name_or_esc_saves_no_name_of_its_own() {
    // Enter on the card's name as offered: the agent follows its card's name.
    let mut app = app();
    let agent = add(&mut app, "http://127.0.0.1:7/");
    update(
        &mut app,
        Msg::AgentLoaded {
            agent,
            result: Ok(card_named("A2A Acceptance JS 1.0")),
        },
    );
    let fx = key(&mut app, KeyCode::Enter);
    assert!(
        matches!(fx.as_slice(), [Effect::AddAgentToConfig { name: None, .. }]),
        "{fx:?}"
    );
    assert_eq!(app.agent(agent).unwrap().name(), "A2A Acceptance JS 1.0");
    // Esc before the card is in: the agent is added all the same, without a name; the card's shows once it loads.
    let mut app = crate::testing::app();
    let agent = add(&mut app, "http://127.0.0.1:8/");
    let fx = key(&mut app, KeyCode::Esc);
    assert!(
        matches!(fx.as_slice(), [Effect::AddAgentToConfig { url, name: None }] if url == "http://127.0.0.1:8/"),
        "{fx:?}"
    );
    assert!(app.overlay.is_none());
    update(
        &mut app,
        Msg::AgentLoaded {
            agent,
            result: Ok(card_named("A2A Acceptance Python 0.3")),
        },
    );
    assert_eq!(
        app.agent(agent).unwrap().name(),
        "A2A Acceptance Python 0.3"
    );
    assert!(app.overlay.is_none(), "no prompt comes back with the card");
}

#[test]
fn rename_shows_the_new_name_everywhere_then_saves_it_and_moves_the_stored_tabs() {
    let mut app = app();
    let agent = app.agents[0].id;
    let tab = app.new_tab(agent);
    let old_key = app.agents[0].key.clone();
    key(&mut app, KeyCode::Char('R'));
    assert_eq!(
        prompt(&app),
        (
            PromptKind::AgentName {
                agent,
                adding: false
            },
            "Demo".to_string()
        ),
        "the prompt starts from the name shown"
    );
    clear(&mut app);
    keys(&mut app, "Python 1.0");
    let fx = key(&mut app, KeyCode::Enter);
    let [
        Effect::RenameAgentInConfig {
            agent: a,
            key: k,
            name: Some(n),
            label,
        },
    ] = fx.as_slice()
    else {
        panic!("the config file is updated: {fx:?}");
    };
    assert_eq!((*a, k, n.as_str()), (agent, &old_key, "Python 1.0"));
    // At once: the list, the tab's title and header.
    assert_eq!(app.agents[0].name(), "Python 1.0");
    assert_eq!(app.tab(tab).unwrap().agent_name, "Python 1.0");
    assert!(
        crate::app::layout::tab_items(&app)
            .iter()
            .any(|(_, title)| title.contains("Python 1.0")),
        "{:?}",
        crate::app::layout::tab_items(&app)
    );
    // The stored tabs keep the old key until the file holds the new name.
    assert_eq!(app.agents[0].key, old_key);
    let fx = update(
        &mut app,
        Msg::AgentRenamed {
            agent,
            label: label.clone(),
            result: Ok("saved the new name in config.toml".into()),
        },
    );
    let new_key = app.agents[0].key.clone();
    assert_ne!(new_key, old_key);
    assert!(new_key.starts_with("Python 1.0|"), "{new_key}");
    assert!(
        matches!(fx.as_slice(), [Effect::Record(Record::AgentKey { from, to, name })]
            if *from == old_key && *to == new_key && name == "Python 1.0"),
        "{fx:?}"
    );
}

#[test]
fn a_rename_the_config_file_did_not_take_leaves_the_stored_tabs_where_the_next_start_looks() {
    let mut app = app();
    let agent = app.agents[0].id;
    let old_key = app.agents[0].key.clone();
    key(&mut app, KeyCode::Char('R'));
    clear(&mut app);
    keys(&mut app, "js");
    key(&mut app, KeyCode::Enter);
    let fx = update(
        &mut app,
        Msg::AgentRenamed {
            agent,
            label: "js".into(),
            result: Err("cannot write config.toml: read-only file system".into()),
        },
    );
    assert!(fx.is_empty(), "{fx:?}");
    assert_eq!(app.agents[0].key, old_key);
    assert_eq!(app.agents[0].name(), "js", "for this run");
    let s = app.status.as_ref().unwrap();
    assert!(
        s.error && s.text.contains("lasts until the console quits"),
        "{s:?}"
    );
}

#[test]
fn an_empty_rename_goes_back_to_the_cards_name_and_the_demo_keeps_its_name() {
    let mut app = app();
    let agent = app.agents[0].id;
    app.agent_mut(agent).unwrap().target.label = "mine".into();
    key(&mut app, KeyCode::Char('R'));
    clear(&mut app);
    let fx = key(&mut app, KeyCode::Enter);
    assert!(
        matches!(
            fx.as_slice(),
            [Effect::RenameAgentInConfig { name: None, .. }]
        ),
        "{fx:?}"
    );
    assert_eq!(app.agents[0].name(), "Demo", "the card's name");
    // The same name again changes nothing.
    key(&mut app, KeyCode::Char('R'));
    assert!(key(&mut app, KeyCode::Enter).is_empty());
    // The embedded demo agent is not in the config file.
    app.agent_mut(agent).unwrap().origin = AgentOrigin::Demo;
    assert!(key(&mut app, KeyCode::Char('R')).is_empty());
    assert!(app.overlay.is_none());
    assert!(app.status.as_ref().is_some_and(|s| s.error));
}

#[test]
fn the_palette_renames_too() {
    let mut app = app();
    update(
        &mut app,
        Msg::Input(Event::Key(KeyEvent::new(
            KeyCode::Char('p'),
            KeyModifiers::CONTROL,
        ))),
    );
    keys(&mut app, "rename");
    key(&mut app, KeyCode::Enter);
    assert!(matches!(
        prompt(&app).0,
        PromptKind::AgentName { adding: false, .. }
    ));
}

#[test]
fn a_renamed_agents_stored_tabs_come_back_under_its_new_name_after_a_restart() {
    let store = crate::store::Store::open_in_memory().unwrap();
    let mut urls = crate::store::WriterCache::default();
    let mut app = app();
    let agent = app.agents[0].id;
    let tab = app.new_tab(agent);
    let t = app.tab_mut(tab).unwrap();
    t.record_user("hello", vec![], "m1");
    store.write_batch(&app.take_records(), &mut urls).unwrap();

    key(&mut app, KeyCode::Char('R'));
    clear(&mut app);
    keys(&mut app, "Python 1.0");
    let fx = key(&mut app, KeyCode::Enter);
    let Some(Effect::RenameAgentInConfig { label, .. }) = fx.first() else {
        panic!("{fx:?}");
    };
    let mut records: Vec<Record> = update(
        &mut app,
        Msg::AgentRenamed {
            agent,
            label: label.clone(),
            result: Ok("saved".into()),
        },
    )
    .into_iter()
    .filter_map(|e| match e {
        Effect::Record(r) => Some(r),
        _ => None,
    })
    .collect();
    records.extend(app.take_records());
    store.write_batch(&records, &mut urls).unwrap();

    // The next start reads the new name from the config file.
    let mut again = crate::testing::empty_app((120, 40));
    let mut target = AgentTarget::from_url("http://127.0.0.1:9", Duration::from_secs(5));
    target.label = "Python 1.0".into();
    again.add_agent(target, AgentOrigin::Config);
    assert_eq!(
        crate::tui::persist::restore_headers(&store, &mut again).unwrap(),
        1
    );
    assert_eq!(again.tabs[0].agent, again.agents[0].id);
    assert_eq!(again.tabs[0].agent_name, "Python 1.0");
}

#[test]
fn the_config_entry_a_rename_edits_is_the_agents_own_among_entries_on_one_url() {
    let config = crate::config::parse(
        r#"
[[agents]]
name = "a"
url = "http://127.0.0.1:1"

[[agents]]
name = "a"
url = "http://127.0.0.1:1"
binding = "GRPC"

[[agents]]
name = "a"
url = "http://127.0.0.1:1"
"#,
    )
    .unwrap();
    let mut app = crate::testing::empty_app((120, 40));
    for a in &config.agents {
        let target = AgentTarget::from_config(a, Duration::from_secs(5)).unwrap();
        app.add_agent(target, AgentOrigin::Config);
    }
    assert!(app.agents[2].key.ends_with("#2"), "{}", app.agents[2].key);
    for (i, a) in app.agents.iter().enumerate() {
        assert_eq!(
            crate::app::state::config_entry_with_key(&config.agents, &a.key),
            Some(i),
            "{}",
            a.key
        );
    }
    assert_eq!(
        crate::app::state::config_entry_with_key(&config.agents, "b|http://127.0.0.1:1||"),
        None
    );
}
