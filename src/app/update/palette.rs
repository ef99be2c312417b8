//! Keys in the command palette: its query typed, its list scrolled, and the chosen action run.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::actions::run_action;
use super::overlay::scroll_overlay;
use crate::app::msg::Effect;
use crate::app::state::{App, Overlay};
use crate::config::keymap::actions::{Action, Context};
use crate::config::keymap::palette_matches;

pub(super) fn palette_key(
    app: &mut App,
    mut query: String,
    mut selected: usize,
    k: KeyEvent,
) -> Vec<Effect> {
    let keymap = &app.keymap;
    match keymap.modal_action(Context::Prompt, true, &k) {
        Some(Action::Back) => return vec![],
        Some(Action::Accept) => {
            return match palette_matches(&query).get(selected) {
                // Choosing "quit" by name is deliberate: no second press (drafts are saved at exit).
                Some(Action::Quit) => {
                    app.quit = true;
                    vec![Effect::Quit]
                }
                Some(a) => run_action(app, *a),
                None => vec![],
            };
        }
        Some(a) if a.is_scroll() => {
            app.overlay = Some(Overlay::Palette { query, selected });
            scroll_overlay(app, a);
            return vec![];
        }
        Some(a) if a.is_edit() => {
            if super::edit::edit_query(&mut query, a) {
                selected = 0;
            } else if let Some(s) = keymap.bound(Context::Scroll, &k) {
                // The query has no cursor: keys that move one keep scrolling the list (Ctrl-F, Home …).
                app.overlay = Some(Overlay::Palette { query, selected });
                scroll_overlay(app, s);
                return vec![];
            }
            app.overlay = Some(Overlay::Palette { query, selected });
            return vec![];
        }
        _ => {}
    }
    match k.code {
        KeyCode::Backspace => {
            query.pop();
            selected = 0;
        }
        KeyCode::Char(c) if !k.modifiers.contains(KeyModifiers::CONTROL) => {
            query.push(c);
            selected = 0;
        }
        _ => {}
    }
    app.overlay = Some(Overlay::Palette { query, selected });
    vec![]
}
