//! Running a named action (from a key or the palette) and its helpers: scrolling, tabs, examples, JSON
//! folding, artifact jumps, re-attach, removing an agent.

use ratatui_textarea::TextArea;

use crate::app::layout;
use crate::app::msg::Effect;
use crate::app::scroll::{cursor, offset};
use crate::app::state::{
    AgentId, AgentOrigin, App, Focus, Overlay, PromptKind, Reachability, View,
};
use crate::app::task::{Link, TabId};
use crate::config::keymap::actions::Action;

/// Run a named action (from a key or the command palette).
pub fn run_action(app: &mut App, a: Action) -> Vec<Effect> {
    match a {
        Action::Quit => super::drafts::quit(app),
        Action::Help => {
            app.overlay = Some(Overlay::Help { scroll: 0 });
            vec![]
        }
        Action::Palette => {
            app.overlay = Some(Overlay::Palette {
                query: String::new(),
                selected: 0,
            });
            vec![]
        }
        Action::Board => {
            app.view = View::Board;
            app.focus = Focus::Main;
            vec![]
        }
        Action::Split => {
            app.view = View::Split;
            app.focus = Focus::Main;
            vec![]
        }
        Action::ImportTasks => match app.selected() {
            Some(a) if a.callable().is_some() => {
                app.overlay = Some(Overlay::Prompt {
                    kind: PromptKind::ImportFilter(a.id),
                    input: Box::default(),
                });
                vec![]
            }
            Some(a) => {
                let why = a
                    .why_not_callable()
                    .unwrap_or_else(|| "the agent's card has not loaded".into());
                app.set_status(why, true);
                vec![]
            }
            None => {
                app.set_status("the agent's card has not loaded", true);
                vec![]
            }
        },
        Action::BoardSearch => {
            app.view = View::Board;
            // The cursor after the old text: Backspace edits it, and an emptied prompt clears the search.
            let mut input = TextArea::from(vec![app.board.query.clone()]);
            input.move_cursor(ratatui_textarea::CursorMove::End);
            app.overlay = Some(Overlay::Prompt {
                kind: PromptKind::BoardSearch,
                input: Box::new(input),
            });
            vec![]
        }
        Action::BoardFilterAgent => {
            let options: Vec<crate::app::state::AgentId> =
                app.agents.iter().map(|a| a.id).collect();
            app.board.agent_filter = crate::app::board::cycle(app.board.agent_filter, &options);
            app.board.selected = 0;
            app.view = View::Board;
            vec![]
        }
        Action::BoardFilterState => {
            use crate::app::task::Badge;
            let options = [
                Badge::AuthRequired,
                Badge::InputRequired,
                Badge::Working,
                Badge::Disconnected,
                Badge::Completed,
                Badge::Failed,
                Badge::Canceled,
                Badge::Rejected,
            ];
            app.board.state_filter = crate::app::board::cycle(app.board.state_filter, &options);
            app.board.selected = 0;
            app.view = View::Board;
            vec![]
        }
        Action::BoardClearFilters => {
            let was = app.board.filtered();
            app.board.agent_filter = None;
            app.board.state_filter = None;
            app.board.query.clear();
            app.board.selected = 0;
            app.view = View::Board;
            if was {
                app.set_status("board filters cleared: every task shows", false);
            }
            vec![]
        }
        Action::BoardMark => {
            toggle_mark(app);
            vec![]
        }
        Action::RefreshTask => match app.active_tab() {
            Some(t) if t.log.task_id.is_some() => vec![Effect::RefreshTask {
                tab: t.id,
                agent: t.agent,
                task_id: t.log.task_id.clone().unwrap_or_default(),
            }],
            _ => vec![],
        },
        Action::AuditLog => vec![Effect::LoadAudit],
        Action::ExportTask => {
            match app.active_tab() {
                Some(t) if t.log.task_id.is_some() || (t.exchanged() && t.stored) => {
                    let name = export_file_name(t);
                    let mut input = TextArea::from(vec![name]);
                    input.move_cursor(ratatui_textarea::CursorMove::End);
                    app.overlay = Some(Overlay::Prompt {
                        kind: PromptKind::ExportTask(t.id),
                        input: Box::new(input),
                    });
                }
                Some(t) if t.exchanged() => app.set_status(
                    "this exchange is not in the local store (it is off): nothing to export",
                    true,
                ),
                _ => app.set_status("no task in this tab to export", true),
            }
            vec![]
        }
        Action::PushList | Action::PushDelete => match app.active_tab() {
            Some(t) if t.log.task_id.is_some() => {
                let task_id = t.log.task_id.clone().unwrap_or_default();
                if a == Action::PushList {
                    vec![Effect::ListPush {
                        tab: t.id,
                        agent: t.agent,
                        task_id,
                    }]
                } else if t.push_ids.is_empty() {
                    app.set_status("the console registered no push config for this task", true);
                    vec![]
                } else {
                    vec![Effect::DeletePush {
                        tab: t.id,
                        agent: t.agent,
                        task_id,
                        ids: t.push_ids.clone(),
                    }]
                }
            }
            _ => vec![],
        },
        Action::Approve => super::pending::review(app),
        Action::SwitchTheme => switch_theme(app),
        // Tab and Shift-Tab move between the agent list and the main pane; the compose box is never on the way,
        // since a key pressed after a focus move must never become text (it is entered with i/Enter or a click).
        Action::FocusNext | Action::FocusPrev => {
            app.focus = match app.focus {
                Focus::Agents => Focus::Main,
                Focus::Main => Focus::Agents,
                Focus::Compose => Focus::Main,
            };
            vec![]
        }
        Action::JumpTab1
        | Action::JumpTab2
        | Action::JumpTab3
        | Action::JumpTab4
        | Action::JumpTab5
        | Action::JumpTab6
        | Action::JumpTab7
        | Action::JumpTab8
        | Action::JumpTab9 => {
            if let Some(t) = a.tab_index().and_then(|i| app.tabs.get(i)) {
                let id = t.id;
                show_tab(app, id);
            }
            vec![]
        }
        Action::Back => {
            // In a tab, Esc first clears the search (then the selection) before it moves focus.
            if app.focus == Focus::Main && super::transcript::clear_search(app) {
                return vec![];
            }
            app.focus = match app.focus {
                Focus::Compose => Focus::Main,
                _ => Focus::Agents,
            };
            vec![]
        }
        Action::Compose => {
            if matches!(app.view, View::Tab(_)) {
                app.focus = Focus::Compose;
            }
            vec![]
        }
        Action::Up | Action::Down => {
            scroll(app, a);
            vec![]
        }
        Action::NextArtifact | Action::PrevArtifact => {
            jump_artifact(app, a == Action::NextArtifact);
            vec![]
        }
        Action::NextTab | Action::PrevTab => {
            let items = layout::tab_items(app);
            let pos = items.iter().position(|(v, _)| *v == app.view).unwrap_or(0);
            let n = items.len();
            let next = if a == Action::NextTab {
                (pos + 1) % n
            } else {
                (pos + n - 1) % n
            };
            if let Some((v, _)) = items.get(next) {
                match *v {
                    View::Tab(id) => show_tab(app, id),
                    other => {
                        app.view = other;
                        app.focus = Focus::Main;
                    }
                }
            }
            vec![]
        }
        Action::CloseTab => super::drafts::close_tab(app),
        Action::ReopenTab => vec![Effect::LoadClosedTabs],
        Action::DeleteTask => {
            match app.active_tab() {
                Some(t) if t.stored => app.overlay = Some(Overlay::ConfirmDelete { tab: t.id }),
                Some(_) => app.set_status("nothing of this tab is in the local store", true),
                None => app.set_status("open a task tab to delete its task", true),
            }
            vec![]
        }
        Action::NewTask => {
            open_tab(app, None);
            vec![]
        }
        Action::CancelTask => {
            match app.active_tab() {
                Some(t) if t.log.task_id.is_some() && !t.is_terminal() => {
                    app.overlay = Some(Overlay::ConfirmCancel { tab: t.id });
                }
                Some(_) => app.set_status("nothing to cancel: no running task in this tab", true),
                None => app.set_status("open a task tab to cancel its task", true),
            }
            vec![]
        }
        Action::RefreshCard => {
            let Some(entry) = app.agents.get_mut(app.selected_agent) else {
                return vec![];
            };
            entry.state = Reachability::Loading;
            vec![Effect::LoadAgent {
                agent: entry.id,
                target: Box::new(entry.target.clone()),
                refresh: true,
            }]
        }
        Action::SignIn => super::sign_in::sign_in_selected(app),
        Action::ToggleRawCard => {
            app.raw_card = !app.raw_card;
            app.view = View::Card;
            app.card_scroll = 0;
            vec![]
        }
        Action::ShowCard => {
            app.view = View::Card;
            app.card_scroll = 0;
            vec![]
        }
        Action::ShowSkills => {
            app.view = View::Skills;
            app.focus = Focus::Main;
            vec![]
        }
        Action::UseExample => use_example(app),
        Action::AddAgent => {
            app.overlay = Some(Overlay::Prompt {
                kind: PromptKind::AddAgent,
                input: Box::default(),
            });
            vec![]
        }
        Action::AddDemo => super::demo::add_demo(app),
        Action::RenameAgent => super::rename::ask(app),
        Action::PinCardKey => pin_offer(app),
        Action::AllowOrigin => super::origin_consent::offer(app),
        Action::RemoveAgent => {
            if let Some(agent) = app.selected().map(|a| a.id) {
                app.overlay = Some(Overlay::ConfirmRemoveAgent { agent });
            }
            vec![]
        }
        Action::Reattach => reattach(app),
        Action::SaveArtifact => super::save::open_picker(app),
        Action::AttachFile => {
            if matches!(app.view, View::Tab(_)) {
                app.overlay = Some(Overlay::Prompt {
                    kind: PromptKind::AttachFile,
                    input: Box::default(),
                });
            }
            vec![]
        }
        Action::ScrollUp
        | Action::ScrollDown
        | Action::PageUp
        | Action::PageDown
        | Action::HalfPageUp
        | Action::HalfPageDown
        | Action::ScrollTop
        | Action::ScrollBottom => {
            if app.overlay.is_some() {
                super::overlay::scroll_overlay(app, a);
            } else {
                scroll(app, a);
            }
            vec![]
        }
        Action::DropAttachment => {
            if let Some(id) = app.active_tab().map(|t| t.id) {
                super::compose::drop_attachment(app, id);
            }
            vec![]
        }
        Action::Send | Action::Newline | Action::HistoryPrev | Action::HistoryNext => vec![],
        // Editing acts on the text being typed; from the palette there is none.
        Action::CursorLeft
        | Action::CursorRight
        | Action::WordLeft
        | Action::WordRight
        | Action::LineStart
        | Action::LineEnd
        | Action::DeleteBack
        | Action::DeleteChar
        | Action::DeleteWordBack
        | Action::DeleteWordForward
        | Action::KillToStart
        | Action::KillToEnd
        | Action::Yank
        | Action::Undo
        | Action::Redo => vec![],
        // The modals' own actions act only inside their modal (the palette has nothing to answer).
        Action::Confirm
        | Action::ApproveConfigured
        | Action::ApproveDeviceFlow
        | Action::ApprovePaste
        | Action::PasteRedirect
        | Action::CopySignInUrl
        | Action::Deny
        | Action::Later
        | Action::ChoosePart
        | Action::ReplaceFile
        | Action::CloseViewer
        | Action::Accept => vec![],
        Action::FoldJson => {
            fold_json(app);
            vec![]
        }
        Action::SearchTranscript => super::transcript::open_search(app),
        Action::SearchNext | Action::SearchPrev => {
            super::transcript::step_search(app, a == Action::SearchNext)
        }
        Action::SelectPrev | Action::SelectNext => {
            super::transcript::select(app, a == Action::SelectNext)
        }
        Action::Copy => super::transcript::copy(app),
        Action::CopyCode => super::transcript::copy_code(app),
        Action::RawJson => super::transcript::raw_json(app),
    }
}

/// Mark the board's selected task for the split view, or unmark it.
fn toggle_mark(app: &mut App) {
    if app.view != View::Board {
        let key = app.keymap.keys_for(Action::Board).join("/");
        app.set_status(format!("tasks are marked on the board ({key})"), true);
        return;
    }
    let Some(id) = crate::app::board::rows(app)
        .get(app.board.selected)
        .copied()
    else {
        return;
    };
    let marked = &mut app.board.marked;
    match marked.iter().position(|m| *m == id) {
        Some(i) => {
            marked.remove(i);
        }
        None => marked.push(id),
    }
    let n = app.board.marked.len();
    let shown = n.min(crate::app::board::SPLIT_MAX);
    app.set_status(
        format!("{n} task(s) marked: the split view shows {shown} of them"),
        false,
    );
}

/// Put a tab on screen with command keys live: focus on its transcript, never in the compose box, so the key
/// after a navigation (`]`, `b`, `/` …) acts instead of becoming message text. Typing starts with `i`/Enter
/// or a click in the box.
pub(super) fn show_tab(app: &mut App, id: TabId) {
    app.view = View::Tab(id);
    if let Some(t) = app.tab_mut(id) {
        t.attention = false;
    }
    app.focus = Focus::Main;
}

/// Open a new conversation tab on the selected agent, optionally with text in the compose box.
pub fn open_tab(app: &mut App, text: Option<&str>) -> Option<TabId> {
    if app.agents.is_empty() {
        app.set_status("no agent: add one with `a`", true);
        return None;
    }
    let agent = app.selected().map(|a| a.id)?;
    let id = app.new_tab(agent);
    if let (Some(text), Some(t)) = (text, app.tab_mut(id)) {
        t.compose.insert_str(text);
    }
    show_tab(app, id);
    // A new tab (`n`, a skill's example) is opened to write in: the one navigation that focuses the box.
    app.focus = Focus::Compose;
    Some(id)
}

pub(super) fn use_example(app: &mut App) -> Vec<Effect> {
    if matches!(app.view, View::Board | View::Split) {
        let rows = if app.view == View::Board {
            crate::app::board::rows(app)
        } else {
            crate::app::board::split_tabs(app)
        };
        if let Some(id) = rows.get(app.board.selected).copied() {
            show_tab(app, id);
        }
        return vec![];
    }
    if app.view != View::Skills {
        if app.focus == Focus::Agents {
            app.view = View::Card;
            app.focus = Focus::Main;
        }
        return vec![];
    }
    let example = app.selected().and_then(|a| a.info()).and_then(|i| {
        let mut flat = i.skills.iter().flat_map(|s| s.examples.iter());
        flat.nth(app.selected_skill).cloned()
    });
    match example {
        Some(text) => {
            open_tab(app, Some(&text));
        }
        None => app.set_status("this agent's skills have no examples", true),
    }
    vec![]
}

/// The shared scroll actions on the focused pane: the agent list, skill examples, board and split move their
/// cursor; the card page and the transcript move their view. Everything stops at its last page.
pub(super) fn scroll(app: &mut App, a: Action) {
    let areas = layout::areas(ratatui::layout::Rect::new(0, 0, app.size.0, app.size.1));
    // Rows inside the main pane's border.
    let page = usize::from(areas.main.height.saturating_sub(2)).max(1);
    match (app.focus, app.view) {
        (Focus::Agents, _) => {
            let n = app.agents.len();
            // Each agent takes three rows of the list.
            let agents_page = (usize::from(areas.agents.height.saturating_sub(2)) / 3).max(1);
            let next = cursor(app.selected_agent, a, agents_page, n);
            if next != app.selected_agent {
                app.selected_agent = next;
                app.card_scroll = 0;
                app.selected_skill = 0;
            }
        }
        (_, View::Skills) => {
            let n: usize = app
                .selected()
                .and_then(|e| e.info())
                .map(|i| i.skills.iter().map(|s| s.examples.len()).sum())
                .unwrap_or(0);
            app.selected_skill = cursor(app.selected_skill, a, page, n);
        }
        (_, View::Card) => {
            // Until a frame measured the page (its length comes from wrapping at the pane's width), the
            // renderer clamps on its own.
            let (page, max) = app
                .measured
                .card
                .map_or((page, usize::MAX / 2), |e| (e.page(), e.last_page()));
            app.card_scroll = offset(app.card_scroll, a, page, max);
        }
        (_, View::Board | View::Split) => {
            let n = if app.view == View::Board {
                crate::app::board::rows(app).len()
            } else {
                crate::app::board::split_tabs(app).len()
            };
            app.board.selected = cursor(app.board.selected, a, page, n);
        }
        (_, View::Tab(_)) => {
            let Some(t) = app.active_tab_mut() else {
                return;
            };
            // Scrolling is in transcript lines; `None` means "follow the end". The renderer clamps.
            let total = t.total_lines();
            let current = t.scroll.unwrap_or(total.saturating_sub(page));
            t.scroll = match a {
                Action::ScrollBottom => None,
                _ => Some(offset(current, a, page, total.saturating_sub(1))),
            };
        }
    }
}

/// Fold the JSON part under the cursor to its top level, or unfold it: the data part at the top of the
/// transcript, else the next one below it, else the nearest above (the newest while following the end).
pub(super) fn fold_json(app: &mut App) {
    use crate::app::parts::PartKind;
    let styles = crate::markup::styles::render_styles(&app.theme);
    let Some(t) = app.active_tab_mut() else {
        return;
    };
    let data: Vec<(usize, usize)> = t
        .artifacts
        .iter()
        .enumerate()
        .flat_map(|(i, a)| {
            a.parts
                .iter()
                .enumerate()
                .filter(|(_, p)| p.kind == PartKind::Data)
                .map(move |(k, _)| (i, k))
        })
        .collect();
    let here = layout::current_part(t).map(|s| (s.artifact, s.part));
    let target = match (here, t.scroll) {
        (Some(h), Some(_)) => data
            .iter()
            .find(|d| **d >= h)
            .or(data.iter().rev().find(|d| **d < h)),
        _ => data.last(),
    }
    .copied();
    let Some((i, k)) = target else {
        app.set_status("no JSON part in this tab", true);
        return;
    };
    let Some(a) = t.artifacts.get_mut(i) else {
        return;
    };
    let of = a.parts.len();
    let label = a.label().to_string();
    let folded = if crate::app::parts::toggle_fold(a, k, &styles) {
        a.parts.get(k).map(|p| p.folded)
    } else {
        None
    };
    let what = if of > 1 {
        format!("part {}/{of} of {label:?}", k + 1)
    } else {
        format!("{label:?}")
    };
    match folded {
        Some(true) => app.set_status(format!("folded the JSON of {what} (z unfolds)"), false),
        Some(false) => app.set_status(format!("unfolded the JSON of {what}"), false),
        None => app.set_status(
            format!("the JSON of {what} is still arriving: it folds once complete"),
            true,
        ),
    }
}

/// Move the transcript so the next (or previous) part of an artifact is at the top; past the last one, follow
/// the end again.
pub(super) fn jump_artifact(app: &mut App, forward: bool) {
    let Some(t) = app.active_tab_mut() else {
        return;
    };
    let stops = layout::part_stops(t);
    let current = t.scroll.unwrap_or(usize::MAX);
    let target = if forward {
        stops
            .iter()
            .map(|s| s.line)
            .find(|s| *s > current || current == usize::MAX)
    } else {
        stops.iter().rev().map(|s| s.line).find(|s| *s < current)
    };
    match target {
        Some(line) => t.scroll = Some(line),
        None if forward => t.scroll = None,
        None => {}
    }
}

pub(super) fn reattach(app: &mut App) -> Vec<Effect> {
    let Some(t) = app.active_tab_mut() else {
        return vec![];
    };
    let Some(task_id) = t.log.task_id.clone() else {
        t.note("no task to re-attach to", true);
        return vec![];
    };
    t.generation += 1;
    t.link = Link::Connecting;
    t.note("re-attaching…", false);
    vec![Effect::Subscribe {
        tab: t.id,
        generation: t.generation,
        agent: t.agent,
        task_id,
    }]
}

pub(super) fn remove_agent(app: &mut App, agent: AgentId) -> Vec<Effect> {
    let Some(index) = app.agent_index(agent) else {
        return vec![];
    };
    let entry = app.agents.remove(index);
    // Its tabs leave the screen; they stay in the store (filed under the agent's key) and come back if the
    // agent is configured again.
    app.tabs.retain(|t| t.agent != agent);
    app.selected_agent = app.selected_agent.min(app.agents.len().saturating_sub(1));
    app.view = View::Card;
    app.set_status(format!("removed {}", entry.name()), false);
    let mut fx = vec![Effect::ForgetAgent { agent }];
    if entry.origin != AgentOrigin::Demo {
        fx.push(Effect::RemoveAgentFromConfig {
            url: entry.target.url,
        });
    }
    fx
}

/// A restored (or reopened) tab shows its header until its transcript is read: ask for it once.
pub(super) fn load_if_needed(app: &mut App, id: TabId) -> Vec<Effect> {
    let Some(t) = app.tab_mut(id) else {
        return vec![];
    };
    if t.loaded || t.loading {
        return vec![];
    }
    t.loading = true;
    vec![Effect::LoadTranscript {
        tab: id,
        key: t.key.to_string(),
    }]
}

/// `P` on a card signed validly by a key not pinned yet: ask, showing the thumbprint. Nothing to pin (unsigned,
/// already verified, invalid — a changed key is never offered) says why on the status line.
fn pin_offer(app: &mut App) -> Vec<Effect> {
    use crate::remote::signature::SignatureState;
    let Some(entry) = app.selected() else {
        return vec![];
    };
    let agent = entry.id;
    let verdict = entry.info().and_then(|i| i.card.signature.clone());
    let offer = verdict.as_ref().and_then(|v| {
        let d = &v.detail;
        match (v.state, &d.offer, &d.thumbprint) {
            (SignatureState::ValidUnpinned, Some(_), Some(t)) => {
                Some((t.clone(), d.kid.clone(), d.alg.clone()))
            }
            _ => None,
        }
    });
    match offer {
        Some((thumbprint, kid, alg)) => {
            app.overlay = Some(Overlay::ConfirmPinKey {
                agent,
                thumbprint,
                kid,
                alg: alg.unwrap_or_default(),
            });
        }
        None => {
            let why = match verdict.map(|v| v.state) {
                Some(SignatureState::Verified) => "the card's key is already trusted",
                Some(SignatureState::Invalid) => {
                    "no valid signature to pin (an invalid card's key is never offered)"
                }
                Some(SignatureState::Unsigned) => "the card is unsigned: no key to pin",
                _ => "the card has not been checked yet",
            };
            app.set_status(why.to_string(), false);
        }
    }
    vec![]
}

/// The user said yes: trust the key from now on (this run at once, the config file for the next ones), and
/// judge the card again so the badge says "verified".
pub(super) fn pin_key(app: &mut App, agent: AgentId, thumbprint: String) -> Vec<Effect> {
    let Some(entry) = app.agents.iter_mut().find(|a| a.id == agent) else {
        return vec![];
    };
    if !entry.target.trust.pinned.contains(&thumbprint) {
        entry.target.trust.pinned.push(thumbprint.clone());
    }
    entry.state = Reachability::Loading;
    let mut fx = vec![Effect::LoadAgent {
        agent,
        target: Box::new(entry.target.clone()),
        refresh: true,
    }];
    // The embedded demo's port changes each run: its trust is in-process, nothing to write.
    if entry.origin != AgentOrigin::Demo {
        fx.push(Effect::PinKeyInConfig {
            url: entry.target.url.clone(),
            thumbprint: thumbprint.clone(),
        });
    }
    app.set_status(format!("pinned key sha256:{thumbprint}"), false);
    fx
}

/// The next built-in theme, at once: every artifact is laid out again in its colours (`NO_COLOR` still holds).
/// For this session only; the status says how to keep it.
fn switch_theme(app: &mut App) -> Vec<Effect> {
    use crate::config::theme::Theme;
    let names = Theme::builtin_names();
    let next = names
        .iter()
        .position(|n| *n == app.theme.name)
        .and_then(|i| names.get((i + 1) % names.len()))
        .or(names.first())
        .copied()
        .unwrap_or("dark");
    let theme = match Theme::builtin(next) {
        Ok(t) if app.theme.no_color => t.without_color(),
        Ok(t) => t,
        Err(e) => {
            app.set_status(e, true);
            return vec![];
        }
    };
    app.theme = theme;
    // The highlighter first, so the blocks laid out again below are highlighted for the new background.
    let mut fx = vec![Effect::SetCodeTheme(app.theme.background.name())];
    let tabs: Vec<TabId> = app.tabs.iter().map(|t| t.id).collect();
    for t in app.tabs.iter_mut() {
        for a in t.artifacts.iter_mut() {
            a.rendered = None;
        }
    }
    for tab in tabs {
        fx.extend(super::stream::lay_out_artifacts(app, tab));
    }
    app.set_status(
        format!("theme {next} for this session ([ui] theme = \"{next}\" in the config keeps it)"),
        false,
    );
    fx
}

/// The export prompt's suggested file name. The task id is the agent's: its separators become `_` before the
/// name is made safe the way a saved artifact's is (`trust::filename::safe_file_name`: no directory part, no
/// `..`, no control or invisible characters), so an id like `../../.bashrc` cannot point the export
/// elsewhere or at a dotfile.
fn export_file_name(t: &crate::app::task::TaskTab) -> String {
    let name = match t.short_task() {
        Some(id) => format!("task-{}.md", id.replace(['/', '\\'], "_")),
        None => format!("exchange-{}.md", t.key.chars().take(8).collect::<String>()),
    };
    crate::trust::filename::safe_file_name(&name, "task.md").0
}
