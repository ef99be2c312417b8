//! Tabs through `update` (issue 10): a message exchange without a task keeps its transcript and exports.

use a2a::*;
use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

use super::update;
use crate::app::msg::{Effect, Msg, StreamItem};
use crate::app::state::{App, Focus, Overlay, View};
use crate::app::tasklog::Source;
use crate::testing::app;

pub(super) fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    update(
        app,
        Msg::Input(Event::Key(KeyEvent::new(code, KeyModifiers::NONE))),
    )
}

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
        matches!(fx.as_slice(), [Effect::ExportExchange { agent_name, .. }] if agent_name == "Demo"),
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
