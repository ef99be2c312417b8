//! What fills the main pane (board, split, card, skills), the help and palette overlays, the colour theme,
//! and Enter on a list: a skill's example, or the board's task.

use super::tabs::{open_tab, show_tab};
use crate::app::ids::TabId;
use crate::app::msg::Effect;
use crate::app::state::{App, Focus, Overlay, View};

pub(super) fn help(app: &mut App) -> Vec<Effect> {
    app.overlay = Some(Overlay::Help { scroll: 0 });
    vec![]
}

pub(super) fn palette(app: &mut App) -> Vec<Effect> {
    app.overlay = Some(Overlay::Palette {
        query: String::new(),
        selected: 0,
    });
    vec![]
}

pub(super) fn board(app: &mut App) -> Vec<Effect> {
    app.view = View::Board;
    app.focus = Focus::Main;
    vec![]
}

pub(super) fn split(app: &mut App) -> Vec<Effect> {
    app.view = View::Split;
    app.focus = Focus::Main;
    vec![]
}

pub(super) fn toggle_raw_card(app: &mut App) -> Vec<Effect> {
    app.raw_card = !app.raw_card;
    app.view = View::Card;
    app.card_scroll = 0;
    vec![]
}

pub(super) fn card(app: &mut App) -> Vec<Effect> {
    app.view = View::Card;
    app.card_scroll = 0;
    vec![]
}

pub(super) fn skills(app: &mut App) -> Vec<Effect> {
    app.view = View::Skills;
    app.focus = Focus::Main;
    vec![]
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

/// The next built-in theme, at once: every artifact is laid out again in its colours (`NO_COLOR` still holds).
/// For this session only; the status says how to keep it.
pub(super) fn switch_theme(app: &mut App) -> Vec<Effect> {
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
