//! `update` flows for an agent whose card loaded without a usable interface ("card only"): nothing is ever
//! sent to it, and every attempt ends in a note that says why instead of a request that fails.

use super::*;
use crate::app::agent::{Reachability, Usability};
use crate::app::task::Link;
use crate::testing::keys::key;
use crate::testing::{MESH_CARD, add_online, empty_app, fetched_card};
use a2a::*;
use crossterm::event::KeyCode;

fn card_only_app() -> App {
    let mut app = empty_app((120, 40));
    add_online(
        &mut app,
        crate::remote::connect::agent::AgentTarget::from_url(
            "http://127.0.0.1:9",
            std::time::Duration::from_secs(5),
        ),
        "mesh",
        MESH_CARD,
    );
    app
}

/// The console's notes on the active tab, one a line.
fn notes(app: &App) -> String {
    app.active_tab()
        .map(|t| {
            t.transcript
                .iter()
                .filter_map(|e| match e {
                    crate::app::task::Entry::Console { text, .. } => Some(text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

#[test]
fn a_card_only_agent_is_loaded_with_its_reason() {
    let app = card_only_app();
    let info = app.agents[0].info().expect("the card is shown");
    let (short, reason) = info.card_only().expect("card only");
    assert_eq!(short, "only: unknown binding");
    assert!(reason.contains("SLIMRPC 1.0 at"), "{reason}");
    assert!(app.agents[0].callable().is_none());
}

#[test]
fn sending_to_a_card_only_agent_leaves_a_note_and_keeps_the_text() {
    let mut app = card_only_app();
    key(&mut app, KeyCode::Char('n'));
    for c in "hello".chars() {
        key(&mut app, KeyCode::Char(c));
    }
    let fx = key(&mut app, KeyCode::Enter);
    assert!(
        fx.iter().all(|e| !matches!(e, Effect::Send { .. })),
        "{fx:?}"
    );
    let t = app.active_tab().unwrap();
    assert_eq!(
        t.compose.lines().join(""),
        "hello",
        "what the user wrote stays"
    );
    assert_ne!(t.link, Link::Connecting);
    let text = notes(&app);
    assert!(text.contains("is card only"), "{text}");
    assert!(text.contains("nothing was sent"), "{text}");
    assert!(
        app.status
            .as_ref()
            .is_some_and(|s| s.text.contains("card only"))
    );
}

#[test]
fn a_refresh_that_turns_an_agent_card_only_stops_calls_to_it() {
    let mut app = crate::testing::app();
    let agent = app.agents[0].id;
    key(&mut app, KeyCode::Char('n'));
    let tab = app.active_tab().unwrap().id;
    // The tab follows a running task.
    if let Some(t) = app.tab_mut(tab) {
        t.receive(
            crate::task::log::Source::Reply,
            Box::new(StreamResponse::Task(Task {
                id: "t1".into(),
                context_id: "c1".into(),
                status: TaskStatus {
                    state: TaskState::Working,
                    message: None,
                    timestamp: None,
                },
                artifacts: None,
                history: None,
                metadata: None,
            })),
            chrono::Utc::now(),
        );
    }
    // Refreshed: the card no longer lists an interface we can use.
    let card = fetched_card(MESH_CARD);
    let info = crate::app::agent::AgentInfo::new(
        "demo",
        card,
        Usability::CardOnly {
            short: "only: unknown binding".into(),
            reason: "no interface we can use".into(),
        },
    );
    update(
        &mut app,
        Msg::AgentLoaded {
            agent,
            result: Ok(Box::new(info)),
        },
    );
    assert!(matches!(app.agents[0].state, Reachability::Online(_)));
    app.focus = Focus::Main;
    for k in ['R', 'r'] {
        let fx = key(&mut app, KeyCode::Char(k));
        assert!(
            fx.iter()
                .all(|e| !matches!(e, Effect::Subscribe { .. } | Effect::RefreshTask { .. })),
            "{k}: {fx:?}"
        );
    }
    assert!(notes(&app).contains("is card only"), "{}", notes(&app));
    assert_ne!(app.tab(tab).unwrap().link, Link::Connecting);
}
