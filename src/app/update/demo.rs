//! Adding the embedded demo agent from inside the console (`D`), so a first start with no config is one key
//! away from something to talk to, without quitting to restart with `--demo`.

use crate::app::agent::AgentOrigin;
use crate::app::msg::Effect;
use crate::app::state::{App, Focus, View};

/// Ask the runtime for the demo agent, unless it is already in the list (then select it).
pub(super) fn add_demo(app: &mut App) -> Vec<Effect> {
    if let Some(i) = app
        .agents
        .iter()
        .position(|a| a.origin == AgentOrigin::Demo)
    {
        select(app, i);
        app.set_status("the demo agent is already in the list (selected)", false);
        return vec![];
    }
    if app.demo_starting {
        return vec![];
    }
    app.demo_starting = true;
    app.set_status("starting the embedded demo agent on 127.0.0.1…", false);
    vec![Effect::StartDemo {
        port: app.demo_port,
    }]
}

/// The demo agent listens: put it first, as `--demo` does, select it and load its card.
pub(super) fn demo_started(
    app: &mut App,
    result: Result<crate::app::msg::DemoListening, String>,
) -> Vec<Effect> {
    app.demo_starting = false;
    let listening = match result {
        Ok(l) => l,
        Err(e) => {
            app.set_status(format!("the demo agent did not start: {e}"), true);
            return vec![];
        }
    };
    let target = listening.target;
    let url = target.url.clone();
    let id = app.insert_agent(0, target.clone(), AgentOrigin::Demo);
    // It starts in the background: a user who went on typing (the compose box, a prompt) keeps the keyboard.
    if app.focus != Focus::Compose && app.overlay.is_none() {
        select(app, 0);
    } else {
        // The list grew at the top: keep the cursor on the agent it was on.
        app.selected_agent = (app.selected_agent + 1).min(app.agents.len().saturating_sub(1));
    }
    match listening.moved {
        Some(why) => app.set_status(format!("demo agent added: {why}"), false),
        None => app.set_status(
            format!(
                "demo agent added ({url}); s shows its skills, Enter on an example starts a task"
            ),
            false,
        ),
    }
    vec![Effect::LoadAgent {
        agent: id,
        target: Box::new(target),
        refresh: false,
    }]
}

fn select(app: &mut App, index: usize) {
    app.selected_agent = index;
    app.view = View::Card;
    app.focus = Focus::Agents;
    app.card_scroll = 0;
    app.selected_skill = 0;
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::app::msg::Msg;
    use crate::app::update::update;
    use crate::remote::connect::agent::AgentTarget;
    use crate::testing::empty_app;
    use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

    fn press(app: &mut App, c: char) -> Vec<Effect> {
        update(
            app,
            Msg::Input(Event::Key(KeyEvent::new(
                KeyCode::Char(c),
                KeyModifiers::NONE,
            ))),
        )
    }

    #[test]
    fn d_on_an_empty_first_start_starts_the_demo_then_lists_and_loads_it() {
        let mut app = empty_app((100, 30));
        let fx = press(&mut app, 'D');
        assert!(
            matches!(fx.as_slice(), [Effect::StartDemo { .. }]),
            "{fx:?}"
        );
        assert!(
            app.status
                .as_ref()
                .is_some_and(|s| s.text.contains("starting"))
        );
        // A second press while it starts does not start a second one.
        assert!(press(&mut app, 'D').is_empty());
        let fx = update(
            &mut app,
            Msg::DemoStarted(Ok(Box::new(crate::app::msg::DemoListening::at(
                crate::demo::target("http://127.0.0.1:4555", None),
            )))),
        );
        assert_eq!(app.agents.len(), 1);
        let demo = &app.agents[0];
        assert_eq!(demo.origin, AgentOrigin::Demo);
        assert_eq!(demo.key, "demo");
        assert_eq!(demo.name(), "demo");
        assert_eq!(app.selected_agent, 0);
        assert!(
            matches!(fx.as_slice(), [Effect::LoadAgent { agent, .. }] if *agent == demo.id),
            "{fx:?}"
        );
    }

    #[test]
    fn d_with_the_demo_listed_selects_it_instead_of_starting_another() {
        let mut app = empty_app((100, 30));
        update(
            &mut app,
            Msg::DemoStarted(Ok(Box::new(crate::app::msg::DemoListening::at(
                crate::demo::target("http://127.0.0.1:4555", None),
            )))),
        );
        app.add_agent(
            AgentTarget::from_url("http://127.0.0.1:9", Duration::from_secs(5)),
            AgentOrigin::Config,
        );
        app.selected_agent = 1;
        assert!(press(&mut app, 'D').is_empty());
        assert_eq!(app.selected_agent, 0);
        assert_eq!(app.agents.len(), 2);
    }

    #[test]
    fn a_demo_that_fails_to_start_says_why_and_can_be_tried_again() {
        let mut app = empty_app((100, 30));
        press(&mut app, 'D');
        update(
            &mut app,
            Msg::DemoStarted(Err("cannot listen on 127.0.0.1:0".into())),
        );
        assert!(app.agents.is_empty());
        let s = app.status.clone().unwrap_or_else(|| panic!("a status"));
        assert!(s.error && s.text.contains("cannot listen"), "{s:?}");
        assert!(matches!(
            press(&mut app, 'D').as_slice(),
            [Effect::StartDemo { .. }]
        ));
    }
}
