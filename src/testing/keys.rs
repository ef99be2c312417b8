//! Key presses for tests, delivered as the runtime delivers them: one set of helpers for every test of
//! `app::update` and of the screens, instead of a copy in each file. The `measured_` ones first measure the
//! last frame (`ui::measure`), as the runtime does before each key, so app tests need not reach into `ui`.

use crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};

use crate::app::msg::{Effect, Msg};
use crate::app::state::App;
use crate::app::update::update;

/// One key with modifiers.
pub fn press(app: &mut App, code: KeyCode, modifiers: KeyModifiers) -> Vec<Effect> {
    update(app, Msg::Input(Event::Key(KeyEvent::new(code, modifiers))))
}

/// One key without modifiers.
pub fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    press(app, code, KeyModifiers::NONE)
}

/// One character typed.
pub fn char_key(app: &mut App, c: char) -> Vec<Effect> {
    key(app, KeyCode::Char(c))
}

/// A string typed, a key per character; the effects of all of them.
pub fn keys(app: &mut App, s: &str) -> Vec<Effect> {
    s.chars().flat_map(|c| key(app, KeyCode::Char(c))).collect()
}

/// Ctrl and a character.
pub fn ctrl(app: &mut App, c: char) -> Vec<Effect> {
    press(app, KeyCode::Char(c), KeyModifiers::CONTROL)
}

/// What the runtime knows before a key: the last frame's measures.
pub fn measure(app: &mut App) {
    app.measured = crate::ui::measure(app);
}

/// [`press`] after [`measure`].
pub fn measured_press(app: &mut App, code: KeyCode, modifiers: KeyModifiers) -> Vec<Effect> {
    measure(app);
    press(app, code, modifiers)
}

/// [`key`] after [`measure`].
pub fn measured_key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    measured_press(app, code, KeyModifiers::NONE)
}

/// [`key`] once the key guard has passed (a dialog that opens while the user types ignores keys for a moment).
pub fn guarded_key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.pass_key_guard();
    key(app, code)
}

/// [`keys`] once the key guard has passed.
pub fn guarded_keys(app: &mut App, s: &str) -> Vec<Effect> {
    s.chars()
        .flat_map(|c| guarded_key(app, KeyCode::Char(c)))
        .collect()
}

/// [`ctrl`] once the key guard has passed.
pub fn guarded_ctrl(app: &mut App, c: char) -> Vec<Effect> {
    app.pass_key_guard();
    ctrl(app, c)
}
