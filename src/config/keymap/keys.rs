//! One key press as a binding: normalised from terminal events, parsed from the config file's key strings
//! and written back for the help screen, the palette and the README.
//!
//! # Terminal quirks handled by [`KeyBinding::from_event`]
//!
//! - Shift-Tab arrives as `BackTab` (usually with SHIFT set, sometimes as Tab + SHIFT): both become
//!   `BackTab` without modifiers, written `Shift-Tab`.
//! - Shifted letters arrive as `'J'` with or without SHIFT, or (kitty protocol) as `'j'` + SHIFT: all
//!   become `'J'` without SHIFT. For other characters SHIFT is dropped, since the character itself
//!   already says what Shift produced (`?`, `!`).
//! - Enter, Alt-Enter and Shift-Enter differ only by modifiers, which are kept for named keys. Most
//!   terminals send Shift-Enter as plain Enter unless the kitty keyboard protocol is on, so
//!   `newline` is also on Alt-Enter and on Ctrl-J (a raw line feed, which crossterm reports as Ctrl-J
//!   in raw mode on every terminal).
//! - Key releases (reported on Windows and with the kitty protocol) never trigger an action.

use std::fmt;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// One key with its modifiers, normalised (see [`KeyBinding::from_event`]) so that equality means
/// "the same key press".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KeyBinding {
    pub code: KeyCode,
    /// Only CONTROL, ALT, SHIFT and SUPER; SHIFT never accompanies a `Char` or `BackTab`.
    pub modifiers: KeyModifiers,
}

const MOD_MASK: KeyModifiers = KeyModifiers::CONTROL
    .union(KeyModifiers::ALT)
    .union(KeyModifiers::SHIFT)
    .union(KeyModifiers::SUPER);

impl KeyBinding {
    /// A normalised binding; the same rules apply to parsed strings and to terminal events.
    pub fn new(code: KeyCode, modifiers: KeyModifiers) -> KeyBinding {
        let mut modifiers = modifiers.intersection(MOD_MASK);
        let code = match code {
            KeyCode::Char(c) if modifiers.contains(KeyModifiers::SHIFT) => {
                modifiers.remove(KeyModifiers::SHIFT);
                if c.is_lowercase() {
                    upper(c)
                } else {
                    KeyCode::Char(c)
                }
            }
            KeyCode::Tab if modifiers.contains(KeyModifiers::SHIFT) => {
                modifiers.remove(KeyModifiers::SHIFT);
                KeyCode::BackTab
            }
            KeyCode::BackTab => {
                modifiers.remove(KeyModifiers::SHIFT);
                KeyCode::BackTab
            }
            other => other,
        };
        KeyBinding { code, modifiers }
    }

    /// The binding a terminal key event stands for.
    pub fn from_event(key: &KeyEvent) -> KeyBinding {
        KeyBinding::new(key.code, key.modifiers)
    }

    /// A printable character with no Ctrl/Alt/Super: in a text field this types rather than acts.
    pub fn is_plain_char(&self) -> bool {
        matches!(self.code, KeyCode::Char(_)) && self.modifiers.is_empty()
    }
}

impl fmt::Display for KeyBinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&format_key(self))
    }
}

fn upper(c: char) -> KeyCode {
    // Only single-char uppercase forms count; 'ß' → "SS" stays as typed.
    let mut up = c.to_uppercase();
    match (up.next(), up.next()) {
        (Some(u), None) => KeyCode::Char(u),
        _ => KeyCode::Char(c),
    }
}

fn lower(c: char) -> char {
    let mut low = c.to_lowercase();
    match (low.next(), low.next()) {
        (Some(l), None) => l,
        _ => c,
    }
}

// Short forms for the action table's default keys: `const`, so each action's defaults are a static slice.
pub(super) const fn bind(code: KeyCode, modifiers: KeyModifiers) -> KeyBinding {
    KeyBinding { code, modifiers }
}
pub(super) const fn ch(c: char) -> KeyBinding {
    bind(KeyCode::Char(c), KeyModifiers::NONE)
}
pub(super) const fn ctrl(c: char) -> KeyBinding {
    bind(KeyCode::Char(c), KeyModifiers::CONTROL)
}
pub(super) const fn alt(c: char) -> KeyBinding {
    bind(KeyCode::Char(c), KeyModifiers::ALT)
}
pub(super) const fn alt_key(code: KeyCode) -> KeyBinding {
    bind(code, KeyModifiers::ALT)
}
pub(super) const fn key(code: KeyCode) -> KeyBinding {
    bind(code, KeyModifiers::NONE)
}

/// Parses `"q"`, `"?"`, `"J"`, `"ctrl-p"`, `"Alt+1"`, `"shift-tab"`, `"backtab"`, `"alt-enter"`,
/// `"esc"`, `"pgdn"`, `"f1"`, `"space"` …
///
/// Modifier and key names are case-insensitive; `-` and `+` both separate. A single character is
/// taken as typed (`"J"` is Shift-J, `"j"` is j). With Ctrl or Alt, a letter's case is ignored and
/// Shift must be written (`"ctrl-P"` = Ctrl-P, `"ctrl-shift-p"` = Ctrl-Shift-P), because terminals
/// report Ctrl with a lower-case letter.
pub fn parse_key(s: &str) -> Result<KeyBinding, String> {
    let mut rest = s.trim();
    if rest.is_empty() {
        return Err("empty key".to_string());
    }
    let mut mods = KeyModifiers::NONE;
    loop {
        // A lone character is the key itself, even '-' or '+'.
        if rest.chars().count() == 1 {
            break;
        }
        let Some(sep) = rest.find(['-', '+']) else {
            break;
        };
        let (word, after) = (&rest[..sep], &rest[sep + 1..]);
        let m = match word.to_ascii_lowercase().as_str() {
            "ctrl" | "control" => KeyModifiers::CONTROL,
            // Terminals deliver Meta/Option as an ESC prefix, which crossterm reports as ALT.
            "alt" | "meta" | "option" => KeyModifiers::ALT,
            "shift" => KeyModifiers::SHIFT,
            "super" => KeyModifiers::SUPER,
            _ => break,
        };
        if after.is_empty() {
            return Err(format!("'{s}': missing the key after '{word}'"));
        }
        mods |= m;
        rest = after;
    }

    let mut chars = rest.chars();
    let code = match (chars.next(), chars.next()) {
        (Some(c), None) => {
            if c.is_control() {
                return Err(format!("'{s}': control characters cannot be bound; write e.g. 'ctrl-a'"));
            }
            if c.is_alphabetic() && mods.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) {
                // Case is not meaningful next to Ctrl/Alt; an explicit Shift is.
                KeyCode::Char(lower(c))
            } else if mods.contains(KeyModifiers::SHIFT) && !(c.is_lowercase() || c.is_uppercase()) {
                return Err(format!(
                    "'{s}': Shift with '{c}' depends on the keyboard layout; write the character Shift types instead (e.g. '?')"
                ));
            } else {
                KeyCode::Char(c)
            }
        }
        _ => named_key(rest).ok_or_else(|| {
            format!(
                "'{s}': unknown key '{rest}' (a single character, or enter, esc, tab, backtab, space, \
                 backspace, delete, insert, home, end, pgup, pgdn, up, down, left, right, f1-f24)"
            )
        })?,
    };
    Ok(KeyBinding::new(code, mods))
}

fn named_key(name: &str) -> Option<KeyCode> {
    let lower = name.to_ascii_lowercase();
    let code = match lower.as_str() {
        "enter" | "return" | "ret" | "cr" => KeyCode::Enter,
        "esc" | "escape" => KeyCode::Esc,
        "tab" => KeyCode::Tab,
        "backtab" => KeyCode::BackTab,
        "space" | "spc" => KeyCode::Char(' '),
        "backspace" | "bs" => KeyCode::Backspace,
        "delete" | "del" => KeyCode::Delete,
        "insert" | "ins" => KeyCode::Insert,
        "home" => KeyCode::Home,
        "end" => KeyCode::End,
        "pgup" | "pageup" | "page_up" => KeyCode::PageUp,
        "pgdn" | "pgdown" | "pagedown" | "page_down" => KeyCode::PageDown,
        "up" => KeyCode::Up,
        "down" => KeyCode::Down,
        "left" => KeyCode::Left,
        "right" => KeyCode::Right,
        _ => {
            let n: u8 = lower.strip_prefix('f')?.parse().ok()?;
            return (1..=24).contains(&n).then_some(KeyCode::F(n));
        }
    };
    Some(code)
}

/// Display form of a binding: `"q"`, `"J"`, `"Ctrl-P"`, `"Ctrl-Shift-P"`, `"Alt-Enter"`,
/// `"Shift-Tab"`, `"PgDn"`, `"Space"`. [`parse_key`] reads it back to the same binding.
pub fn format_key(k: &KeyBinding) -> String {
    let mut out = String::new();
    let m = k.modifiers;
    let ctrl_or_alt = m.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
    // Shift is implied by `BackTab` and by an upper-case letter; with Ctrl/Alt it is spelled out
    // because there the letter is shown upper-case either way.
    let shifted_char = matches!(k.code, KeyCode::Char(c) if c.is_uppercase() && ctrl_or_alt);
    if m.contains(KeyModifiers::CONTROL) {
        out.push_str("Ctrl-");
    }
    if m.contains(KeyModifiers::ALT) {
        out.push_str("Alt-");
    }
    if m.contains(KeyModifiers::SHIFT) || shifted_char || k.code == KeyCode::BackTab {
        out.push_str("Shift-");
    }
    if m.contains(KeyModifiers::SUPER) {
        out.push_str("Super-");
    }
    let name = match k.code {
        KeyCode::Char(' ') => "Space".to_string(),
        KeyCode::Char(c) if ctrl_or_alt => c.to_uppercase().collect(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::Enter => "Enter".to_string(),
        KeyCode::Esc => "Esc".to_string(),
        KeyCode::Tab | KeyCode::BackTab => "Tab".to_string(),
        KeyCode::Backspace => "Backspace".to_string(),
        KeyCode::Delete => "Delete".to_string(),
        KeyCode::Insert => "Insert".to_string(),
        KeyCode::Home => "Home".to_string(),
        KeyCode::End => "End".to_string(),
        KeyCode::PageUp => "PgUp".to_string(),
        KeyCode::PageDown => "PgDn".to_string(),
        KeyCode::Up => "Up".to_string(),
        KeyCode::Down => "Down".to_string(),
        KeyCode::Left => "Left".to_string(),
        KeyCode::Right => "Right".to_string(),
        KeyCode::F(n) => format!("F{n}"),
        // Not produced by `parse_key`; shown for completeness (e.g. when logging a stray event).
        other => format!("{other:?}"),
    };
    out.push_str(&name);
    out
}
