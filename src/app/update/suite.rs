//! Regression suites in the console: `U` on an agent asks for a suite file and runs every case of it on
//! that agent in the background (the agent list shows how far it is), the results open as a page like the
//! check report's when it ends, unless the user has pressed a key since (`u` shows them again); `W` in a task
//! tab writes the tab's task into a suite file as a case.

use ratatui_textarea::TextArea;

use crate::app::agent::SuiteState;
use crate::app::ids::{AgentId, TabId};
use crate::app::msg::{CheckPage, Effect};
use crate::app::state::{App, Overlay, PromptKind};
use crate::config::keymap::actions::Action;

/// The file offered when none was named yet in this session.
const SUITE_FILE: &str = "suite.toml";

fn prompt(app: &mut App, kind: PromptKind) {
    let file = app.suite_file.clone().unwrap_or_else(|| SUITE_FILE.into());
    let mut input = TextArea::from(vec![file]);
    input.move_cursor(ratatui_textarea::CursorMove::End);
    app.overlay = Some(Overlay::Prompt {
        kind,
        input: Box::new(input),
    });
}

/// `U`: ask which suite to run on the selected agent.
pub(super) fn ask_run(app: &mut App) -> Vec<Effect> {
    let Some(entry) = app.agents.get(app.selected_agent) else {
        app.set_status("no agent selected: add one with a", true);
        return vec![];
    };
    // One run per agent: while one runs, U offers to stop it.
    if let SuiteState::Running { .. } = &entry.suite {
        let agent = entry.id;
        app.overlay = Some(Overlay::ConfirmStopSuite { agent });
        return vec![];
    }
    let id = entry.id;
    prompt(app, PromptKind::RunSuite(id));
    vec![]
}

/// The suite file was named: run it.
pub(super) fn run(app: &mut App, agent: AgentId, file: String) -> Vec<Effect> {
    app.suite_file = Some(file.clone());
    let keys_at_start = app.keys_pressed;
    let Some(entry) = app.agent_mut(agent) else {
        return vec![];
    };
    let shown = crate::suite::file::shown_name(&file);
    entry.suite = SuiteState::Running {
        file: shown.clone(),
        done: 0,
        total: 0,
        failed: 0,
        keys_at_start,
    };
    let target = Box::new(entry.target.clone());
    let name = entry.name();
    app.set_status(
        format!("running {shown} on {name} in the background: every case goes to this agent; the results open when done (u shows them)"),
        false,
    );
    vec![Effect::RunSuite {
        agent,
        target,
        path: file.into(),
    }]
}

pub(super) fn progress(
    app: &mut App,
    agent: AgentId,
    done: usize,
    total: usize,
    failed: usize,
) -> Vec<Effect> {
    if let Some(a) = app.agent_mut(agent)
        && let SuiteState::Running {
            done: d,
            total: t,
            failed: f,
            ..
        } = &mut a.suite
    {
        (*d, *t, *f) = (done, total, failed);
    }
    vec![]
}

pub(super) fn done(
    app: &mut App,
    agent: AgentId,
    result: Result<Box<CheckPage>, String>,
) -> Vec<Effect> {
    let Some(a) = app.agent_mut(agent) else {
        return vec![];
    };
    let name = a.name();
    let started = match &a.suite {
        SuiteState::Running { keys_at_start, .. } => Some(*keys_at_start),
        _ => None,
    };
    match result {
        Ok(page) => {
            a.suite = SuiteState::Done(page.clone());
            let summary = format!("{} on {name}", page.badge);
            if started.is_some() && super::check::page_may_open(app, started) {
                super::check::open_page(app, Ok(page));
                app.set_status(summary, false);
            } else {
                let keys = app
                    .keymap
                    .keys_for(Action::SuiteReport)
                    .first()
                    .cloned()
                    .unwrap_or_else(|| "suite_report in the palette".into());
                // Short enough for the status bar: the key comes before anything long.
                app.set_status(
                    format!("{summary} — {keys} on the agent shows the results"),
                    false,
                );
            }
        }
        Err(e) => {
            a.suite = SuiteState::None;
            app.set_status(format!("the suite could not run on {name}: {e}"), true);
        }
    }
    vec![]
}

/// `u`: the selected agent's last suite results again.
pub(super) fn reopen(app: &mut App) -> Vec<Effect> {
    let page = match app.agents.get(app.selected_agent).map(|a| &a.suite) {
        Some(SuiteState::Done(page)) => Ok(page.clone()),
        Some(SuiteState::Running { .. }) => Err("the suite is still running"),
        _ => Err("no suite was run on this agent in this session: press U to run one"),
    };
    super::check::open_page(app, page)
}

/// `W`: ask which suite file the active tab's task goes into (or say why it cannot be recorded yet).
pub(super) fn ask_record(app: &mut App) -> Vec<Effect> {
    let Some(tab) = app.active_tab() else {
        app.set_status("open a task tab to record it as a suite case", true);
        return vec![];
    };
    match crate::app::record::recording(app, tab) {
        Ok(_) => {
            let id = tab.id;
            prompt(app, PromptKind::RecordCase(id));
        }
        Err(e) => app.set_status(e, true),
    }
    vec![]
}

/// The file was named: write the case (read from the tab as it is now).
pub(super) fn record(app: &mut App, tab: TabId, file: String) -> Vec<Effect> {
    app.suite_file = Some(file.clone());
    let recorded = app
        .tab(tab)
        .ok_or_else(|| "the tab was closed".to_string())
        .and_then(|t| crate::app::record::recording(app, t));
    match recorded {
        Ok(recording) => {
            app.set_status(format!("writing the case into {file}…"), false);
            vec![Effect::RecordCase {
                path: file.into(),
                recording: Box::new(recording),
            }]
        }
        Err(e) => {
            app.set_status(e, true);
            vec![]
        }
    }
}
