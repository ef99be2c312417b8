//! The yes-or-no confirmations: cancel a task, stop a suite run, remove an agent, pin a card's signing key,
//! call another origin, delete a stored task. Each says what the confirming key does and that any other key keeps things as they are.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

use super::overlay::{boxed, centered, keys_or};
use crate::app::ids::AgentId;
use crate::app::ids::TabId;
use crate::app::state::App;
use crate::config::keymap::actions::Action;

pub(super) fn cancel(f: &mut Frame, app: &App, tab: TabId, area: Rect) {
    let what = app
        .tab(tab)
        .and_then(|t| t.short_task())
        .unwrap_or_default();
    question(
        f,
        app,
        centered(area, 60, 5),
        format!("Cancel task {what}?"),
        "cancel it · any other key: keep it running",
    );
}

pub(super) fn remove_agent(f: &mut Frame, app: &App, agent: AgentId, area: Rect) {
    let name = app.agent(agent).map(|a| a.name()).unwrap_or_default();
    question(
        f,
        app,
        centered(area, 64, 5),
        format!("Remove agent {name} (and its tabs) from the console and the config file?"),
        "remove · any other key: keep",
    );
}

pub(super) fn stop_suite(f: &mut Frame, app: &App, agent: AgentId, area: Rect) {
    let (name, what) = app
        .agent(agent)
        .map(|a| (a.name(), a.suite.line().unwrap_or_default()))
        .unwrap_or_default();
    question(
        f,
        app,
        centered(area, 64, 6),
        format!(
            "Stop the suite running on {name} ({what})? The cases that ended are kept; the ones running are cut off."
        ),
        "stop · any other key: let it run",
    );
}

pub(super) fn pin_key(
    f: &mut Frame,
    app: &App,
    agent: AgentId,
    thumbprint: &str,
    kid: Option<&str>,
    alg: &str,
    area: Rect,
) {
    let t = &app.theme;
    let r = centered(area, 72, 9);
    let name = app.agent(agent).map(|a| a.name()).unwrap_or_default();
    let kid = kid
        .map(|k| format!(" · kid {}", crate::trust::sanitize::sanitize_line(k).0))
        .unwrap_or_default();
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(vec![
            Line::styled(format!("Pin the key that signed {name}'s card?"), t.warning),
            Line::styled(format!("sha256:{thumbprint}"), t.text),
            Line::styled(format!("{alg}{kid}"), t.dim),
            Line::styled(
                "Compare the thumbprint with one the publisher gave you. Once pinned, a card signed by another key is an alarm.",
                t.dim,
            ),
            Line::styled(
                format!("{}: pin (written to the config file) · any other key: keep as is", keys_or(app, Action::Confirm, "y")),
                t.dim,
            ),
        ])
        .block(boxed(app, "Trust this key"))
        .wrap(Wrap { trim: true }),
        r,
    );
}

pub(super) fn origin(
    f: &mut Frame,
    app: &App,
    agent: AgentId,
    origin: &str,
    home: &str,
    area: Rect,
) {
    let t = &app.theme;
    let r = centered(area, 84, 11);
    let name = app.agent(agent).map(|a| a.name()).unwrap_or_default();
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(vec![
            Line::styled(
                format!("Call {name} on another origin than its card's?"),
                t.warning,
            ),
            Line::from(vec![
                Span::styled("  card, as you configured it  ", t.dim),
                Span::styled(home.to_string(), t.text),
            ]),
            Line::from(vec![
                Span::styled("▍remote · where the card says to call  ", t.remote_label),
                Span::styled(origin.to_string(), t.remote_text),
            ]),
            Line::styled(
                "The card chose this address, not you. Its calls, and any credential or header configured for the agent, would go there.",
                t.dim,
            ),
            Line::styled(
                format!(
                    "{}: use it for this session · any other key: keep the agent card only",
                    keys_or(app, Action::Confirm, "y")
                ),
                t.dim,
            ),
        ])
        .block(boxed(app, "Another origin"))
        .wrap(Wrap { trim: true }),
        r,
    );
}

pub(super) fn delete(f: &mut Frame, app: &App, tab: TabId, area: Rect) {
    let what = app
        .tab(tab)
        .and_then(|t| t.task_id_shown().map(str::to_string))
        .unwrap_or_else(|| "this tab".into());
    question(
        f,
        app,
        centered(area, 64, 5),
        format!("Delete task {what} from the local store and close its tab? The agent keeps it."),
        "delete · any other key: keep",
    );
}

/// A yes-or-no box titled "Confirm": the question, then what the confirming key does and what any other key
/// does (`answers`: "stop · any other key: let it run").
fn question(f: &mut Frame, app: &App, r: Rect, question: String, answers: &str) {
    let t = &app.theme;
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(vec![
            Line::styled(question, t.warning),
            Line::styled(
                format!("{}: {answers}", keys_or(app, Action::Confirm, "y")),
                t.dim,
            ),
        ])
        .block(boxed(app, "Confirm"))
        .wrap(Wrap { trim: true }),
        r,
    );
}
