//! Pure render functions of `&App`: nothing here changes state, blocks, or touches the network. Remote text is
//! already sanitised when it reaches this module; it is drawn in the theme's remote style under a provenance
//! label, so a user can always tell the agent's words from the console's.

mod agents;
mod approval;
mod audit;
mod board;
mod card;
mod check;
mod compare;
mod confirm;
mod device_code;
mod help;
mod overlay;
mod palette;
mod prompt;
mod raw_json;
mod remote;
mod save;
mod sign_in;
mod tab;
#[cfg(test)]
mod tests_names;
mod wrap;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::app::layout;
use crate::app::state::{App, View};
use crate::app::task::badge::Badge;
use crate::config::keymap::actions::Action;
use crate::config::theme::Theme;

pub use tab::visible_rows;

/// What `update` needs from this frame to clamp scrolling where only the renderer knows a pane's length (the
/// runtime stores it in `App::measured` after each frame; see `app::scroll::Measured`).
pub fn measure(app: &App) -> crate::app::scroll::Measured {
    let size = Rect::new(0, 0, app.size.0, app.size.1);
    if layout::too_small(size) {
        return crate::app::scroll::Measured::default();
    }
    let areas = layout::areas(size);
    crate::app::scroll::Measured {
        card: (app.view == View::Card).then(|| card::card_extent(app, areas.main)),
        approval: approval::approval_extent(app, size),
    }
}

pub fn draw(f: &mut Frame, app: &App) {
    let size = f.area();
    if layout::too_small(size) {
        let msg = format!(
            "Terminal too small: {}×{} — a2a-console needs at least {}×{}. Enlarge the window (q quits).",
            size.width,
            size.height,
            layout::MIN_WIDTH,
            layout::MIN_HEIGHT
        );
        f.render_widget(
            Paragraph::new(msg)
                .style(app.theme.warning)
                .wrap(Wrap { trim: true }),
            size,
        );
        return;
    }
    let areas = layout::areas(size);
    tab_bar(f, app, areas.tabs);
    agents::draw(f, app, areas.agents);
    match app.view {
        View::Card => card::draw_card(f, app, areas.main),
        View::Skills => card::draw_skills(f, app, areas.main),
        View::Board => board::draw_board(f, app, areas.main),
        View::Split => board::draw_split(f, app, areas.main),
        View::Tab(id) => match app.tab(id) {
            Some(t) => tab::draw(f, app, t, areas.main),
            None => card::draw_card(f, app, areas.main),
        },
    }
    status_bar(f, app, areas.status);
    overlay::draw(f, app, size);
}

/// A text input drawn in the theme's styles: its placeholder as secondary text and a selection as a selected
/// row, instead of the widget's own grey and light blue (colours no theme chose, shown even under NO_COLOR).
pub(crate) fn theme_input(input: &mut ratatui_textarea::TextArea<'_>, theme: &Theme) {
    input.set_placeholder_style(theme.dim);
    input.set_selection_style(theme.selection);
}

/// The theme style of a badge.
pub fn badge_style(theme: &Theme, b: Badge) -> Style {
    match b {
        Badge::Connecting => theme.connecting,
        Badge::Disconnected => theme.disconnected,
        Badge::Submitted => theme.submitted,
        Badge::Working => theme.working,
        Badge::InputRequired => theme.input_required,
        Badge::AuthRequired => theme.auth_required,
        Badge::Completed => theme.completed,
        Badge::Failed => theme.failed,
        Badge::Canceled => theme.canceled,
        Badge::Rejected => theme.rejected,
        Badge::Idle => theme.dim,
        // Its own look without a colour of its own: struck through, in the disconnected colour.
        Badge::Lost => theme
            .disconnected
            .add_modifier(ratatui::style::Modifier::CROSSED_OUT),
    }
}

fn tab_bar(f: &mut Frame, app: &App, area: Rect) {
    let mut spans = Vec::new();
    let bar = layout::tab_bar(app, area.width);
    let left = (bar.hidden_left > 0).then(|| layout::more_left(bar.hidden_left));
    let right = (bar.hidden_right > 0).then(|| layout::more_right(bar.hidden_right));
    let pages = bar.pages.len();
    for (i, (view, title)) in bar.pages.into_iter().chain(bar.tabs).enumerate() {
        if i == pages
            && let Some(hint) = &left
        {
            spans.push(Span::styled(hint.clone(), app.theme.key_hint));
            spans.push(Span::raw(" "));
        }
        let active = view == app.view;
        let style = match view {
            View::Tab(id) => {
                let badge = app.tab(id).map(|t| t.badge()).unwrap_or(Badge::Idle);
                let s = badge_style(&app.theme, badge);
                if active {
                    s.patch(app.theme.tab_active)
                } else {
                    s
                }
            }
            _ if active => app.theme.tab_active,
            _ => app.theme.tab_inactive,
        };
        spans.push(Span::styled(title, style));
        spans.push(Span::raw(" "));
    }
    if let Some(hint) = right {
        spans.push(Span::styled(hint, app.theme.key_hint));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The keyboard's mode, first on the status bar: typing into the compose box (and how to leave it), or
/// command keys. Readable without colour, since the word itself changes.
fn mode_marker(app: &App) -> Span<'static> {
    let keys = |a: Action| app.keymap.keys_for(a).first().cloned().unwrap_or_default();
    // A dialog on top has the keyboard, whatever pane is focused under it.
    match &app.overlay {
        Some(crate::app::state::Overlay::Prompt { .. }) => {
            return Span::styled(
                format!(" TYPING → prompt · {} cancels ", keys(Action::Back)),
                app.theme.selection,
            );
        }
        Some(_) => return Span::styled(" DIALOG ", app.theme.tab_active),
        None => {}
    }
    if app.focus == crate::app::state::Focus::Compose
        && let Some(t) = app.active_tab()
    {
        let agent = crate::app::names::middle_ellipsis(&t.agent_name, 24);
        Span::styled(
            format!(" TYPING → {agent} · {} to leave ", keys(Action::Back)),
            app.theme.selection,
        )
    } else {
        Span::styled(" KEYS ", app.theme.tab_active)
    }
}

fn status_bar(f: &mut Frame, app: &App, area: Rect) {
    let mut spans = vec![mode_marker(app), Span::raw(" ")];
    // Only tabs that wait for the user need them; finished ones are news, said apart and quieter.
    let waiting = app.waiting_elsewhere();
    if waiting > 0 {
        spans.push(Span::styled(
            format!(" {waiting} tab(s) need you "),
            app.theme.input_required,
        ));
        spans.push(Span::raw(" "));
    }
    let finished = app.finished_elsewhere();
    if finished > 0 {
        spans.push(Span::styled(format!("{finished} finished "), app.theme.dim));
    }
    match &app.status {
        Some(s) => spans.push(Span::styled(
            s.text.clone(),
            if s.error {
                app.theme.error
            } else {
                app.theme.ok
            },
        )),
        None => spans.push(Span::styled(idle_hint(app), app.theme.key_hint)),
    }
    // A long message is cut after a whole word with `…`, never mid-word at the edge.
    f.render_widget(
        Paragraph::new(wrap::fit_line(Line::from(spans), area.width as usize))
            .style(app.theme.status_bar),
        area,
    );
}

/// The status bar's hint when there is no message: the keys that matter where the user is, as bound. In a tab
/// with a search, `n` is the next match rather than a new task, and the hint says so.
fn idle_hint(app: &App) -> String {
    use crate::config::keymap::actions::Action;
    let key = |a: Action| app.keymap.keys_for(a).first().cloned();
    let mut parts: Vec<String> = Vec::new();
    let mut add = |a: Action, what: &str| {
        if let Some(k) = key(a) {
            parts.push(format!("{k} {what}"));
        }
    };
    if app.overlay.is_some() {
        // The dialog lists its own keys.
        return String::new();
    }
    if app.focus == crate::app::state::Focus::Compose {
        // Typing: the plain-character keys type, so only the compose box's own keys are worth naming.
        add(Action::Send, "sends");
        add(Action::Newline, "new line");
        add(Action::AttachFile, "attaches a file");
        // (How to leave the box is in the TYPING badge already.)
        return parts.join(" · ");
    }
    if app.active_tab().is_some_and(|t| t.search.is_some()) {
        add(Action::SearchNext, "next match");
        add(Action::SearchPrev, "previous");
        add(Action::Back, "clears the search");
        add(Action::Copy, "copies");
    } else {
        add(Action::Help, "help");
        add(Action::Palette, "palette");
        add(Action::NewTask, "new task");
        add(Action::ShowSkills, "skills");
        add(Action::FocusNext, "focus");
    }
    add(Action::Quit, "quit");
    parts.join(" · ")
}
