//! `check` in the console: `C` on an agent runs it in the background (the agent list shows its progress),
//! the report opens as a page when it is done (or waits, with a note, while another dialog is open), and
//! the agent keeps its verdict. On the page, `,` `.` select a finding and Enter opens its evidence.

use crossterm::event::KeyEvent;

use super::overlay::scroll_overlay;
use crate::app::agent::CheckState;
use crate::app::ids::AgentId;
use crate::app::msg::{CheckPage, Effect};
use crate::app::state::{App, Overlay};
use crate::config::keymap::actions::{Action, Context};

/// `C`: check the selected agent (one check per agent at a time).
pub(super) fn start(app: &mut App) -> Vec<Effect> {
    let Some(entry) = app.agents.get_mut(app.selected_agent) else {
        return vec![];
    };
    if matches!(entry.check, CheckState::Running { .. }) {
        let name = entry.name();
        app.set_status(format!("{name} is being checked already"), false);
        return vec![];
    }
    entry.check = CheckState::Running { sent: 0, budget: 0 };
    let (agent, target) = (entry.id, Box::new(entry.target.clone()));
    let name = entry.name();
    app.set_status(
        format!("checking {name}: read-only probes, nothing is created on the agent; the report opens when done"),
        false,
    );
    vec![Effect::RunCheck { agent, target }]
}

/// Show the selected agent's last report again.
pub(super) fn reopen(app: &mut App) -> Vec<Effect> {
    let page = match app.agents.get(app.selected_agent).map(|a| &a.check) {
        Some(CheckState::Done { page: Some(p), .. }) => Ok(p.clone()),
        Some(CheckState::Running { .. }) => Err("the check is still running"),
        _ => Err("no check of this agent in this session: press C to run one"),
    };
    open_page(app, page)
}

/// Whether a page that background work made may open now: never over another dialog (it may be a decision)
/// nor over a message being typed, and, for work that noted `App::keys_pressed` when it started, not once a
/// key was pressed since (the user moved on; those keys would land on the page).
pub(super) fn page_may_open(app: &App, keys_at_start: Option<u64>) -> bool {
    app.overlay.is_none()
        && app.focus != crate::app::state::Focus::Compose
        && keys_at_start.is_none_or(|k| k == app.keys_pressed)
}

/// Open a report page (a check's, a suite run's) from its top, or say why there is none.
pub(super) fn open_page(app: &mut App, page: Result<Box<CheckPage>, &'static str>) -> Vec<Effect> {
    match page {
        Ok(page) => {
            app.overlay = Some(Overlay::Check {
                page,
                scroll: 0,
                selected: None,
            });
        }
        Err(why) => app.set_status(why, false),
    }
    vec![]
}

pub(super) fn progress(app: &mut App, agent: AgentId, sent: usize, budget: usize) -> Vec<Effect> {
    if let Some(a) = app.agent_mut(agent)
        && matches!(a.check, CheckState::Running { .. })
    {
        a.check = CheckState::Running { sent, budget };
    }
    vec![]
}

pub(super) fn done(
    app: &mut App,
    agent: AgentId,
    result: Result<(Box<CheckPage>, String, String), String>,
) -> Vec<Effect> {
    let Some(a) = app.agent_mut(agent) else {
        return vec![];
    };
    let name = a.name();
    let mut fx = Vec::new();
    match result {
        Ok((page, agent_url, report)) => {
            fx.push(Effect::Record(crate::store::record::Record::Check {
                agent_url,
                kept: Box::new(crate::store::KeptCheck {
                    report,
                    badge: page.badge.clone(),
                    must_failed: page.must_failed,
                }),
            }));
            a.check = CheckState::Done {
                badge: page.badge.clone(),
                must_failed: page.must_failed,
                page: Some(page.clone()),
            };
            let changed = page
                .changes
                .as_deref()
                .map(|c| format!(" · since the last check: {c}"))
                .unwrap_or_default();
            if page_may_open(app, None) {
                app.overlay = Some(Overlay::Check {
                    page,
                    scroll: 0,
                    selected: None,
                });
                app.set_status(
                    format!("check of {name}: {}{changed}", a_badge(app, agent)),
                    false,
                );
            } else {
                let keys = app
                    .keymap
                    .keys_for(Action::CheckReport)
                    .first()
                    .cloned()
                    .unwrap_or_else(|| "check_report in the palette".into());
                app.set_status(
                    format!(
                        "check of {name} done: {}{changed} — {keys} on the agent shows the report",
                        a_badge(app, agent)
                    ),
                    false,
                );
            }
        }
        Err(e) => {
            a.check = CheckState::None;
            app.set_status(format!("check of {name} could not run: {e}"), true);
        }
    }
    fx
}

fn a_badge(app: &App, agent: AgentId) -> String {
    app.agent(agent)
        .and_then(|a| a.check.line())
        .unwrap_or_default()
}

/// The verdicts kept from earlier runs, shown until the agent is checked again.
pub(super) fn verdicts(app: &mut App, v: Vec<(String, String, bool)>) -> Vec<Effect> {
    for (url, badge, must_failed) in v {
        for a in app.agents.iter_mut().filter(|a| a.target.url == url) {
            if a.check == CheckState::None {
                a.check = CheckState::Done {
                    badge: badge.clone(),
                    must_failed,
                    page: None,
                };
            }
        }
    }
    vec![]
}

/// The report page's keys: scrolling, selecting a finding, Enter for its evidence.
pub(super) fn check_key(
    app: &mut App,
    page: Box<CheckPage>,
    scroll: usize,
    selected: Option<usize>,
    k: KeyEvent,
) -> Vec<Effect> {
    let keymap = &app.keymap;
    let pressed = crate::config::keymap::keys::KeyBinding::from_event(&k);
    let is = |a: Action| keymap.bindings(a).contains(&pressed);
    if is(Action::SelectPrev) || is(Action::SelectNext) {
        let visible = crate::app::scroll::viewer_rows(app.size);
        // Nothing selected yet: start from the first row on screen (the report reads top down).
        let (at, scroll) = super::overlay::select_row(
            selected,
            is(Action::SelectPrev),
            page.rows.len(),
            scroll,
            visible,
            scroll,
        );
        app.overlay = Some(Overlay::Check {
            page,
            scroll,
            selected: Some(at),
        });
        return vec![];
    }
    if let Some(i) =
        selected.filter(|_| is(Action::RawJson) || k.code == crossterm::event::KeyCode::Enter)
        && let Some(row) = page.rows.get(i)
    {
        app.overlay = Some(Overlay::RawJson {
            title: format!(
                "{} · {}",
                page.kind.detail(),
                row.line.split_whitespace().nth(1).unwrap_or("")
            ),
            lines: row.detail.clone(),
            scroll: 0,
        });
        return vec![];
    }
    match keymap.modal_action(Context::Viewer, true, &k) {
        Some(Action::CloseViewer | Action::Back) => vec![],
        a => {
            app.overlay = Some(Overlay::Check {
                page,
                scroll,
                selected,
            });
            if let Some(a) = a.filter(|a| a.is_scroll()) {
                scroll_overlay(app, a);
            }
            vec![]
        }
    }
}
