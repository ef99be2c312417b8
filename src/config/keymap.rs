//! The active key bindings (the action table's defaults with the user's overrides), the lookup from a key
//! press to an action, and what is generated from them: the help screen's rows, the README's key table and
//! the palette's matches.
//!
//! One table ([`Action`], in `actions.rs`) is the single source of truth: the event loop maps keys through
//! it, the help screen and the command palette list it, and the config file overrides it by action name. Key
//! strings and terminal events become a [`KeyBinding`] in `keys.rs`.
//!
//! # Lookup
//!
//! [`Keymap::action`] tries the focused context's bindings first, then [`Context::Global`]. In
//! [`Context::Compose`] a global binding that is a plain printable character (`q`, `?`, `n`, `]` …) is
//! skipped, because there the key types text; globals with Ctrl/Alt or a named key (`Ctrl-P`, `Esc`,
//! `Tab`, `Alt-1`) still work.
//!
//! Where text is typed (the compose box and the prompts), the shared [`Context::Edit`] keys come right after
//! the field's own: readline's, so Ctrl-W deletes a word there rather than closing the tab, and Ctrl-U kills
//! the line rather than undoing.

pub mod actions;
pub mod keys;

use std::collections::{BTreeMap, HashMap};

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind};

use actions::{ALL_ACTIONS, Action, Context};
use keys::{KeyBinding, format_key, key, parse_key};

/// One line of the help screen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HelpRow {
    pub context: Context,
    /// Display strings (`"Ctrl-P"`); empty when the user unbound the action.
    pub keys: Vec<String>,
    pub action: Action,
    pub name: &'static str,
    pub description: &'static str,
}

/// The active key bindings: defaults, possibly with user overrides.
#[derive(Clone, Debug)]
pub struct Keymap {
    keys: BTreeMap<Action, Vec<KeyBinding>>,
    lookup: HashMap<(Context, KeyBinding), Action>,
}

impl Keymap {
    /// The built-in bindings (listed in the README's key table).
    pub fn defaults() -> Keymap {
        let keys = ALL_ACTIONS
            .iter()
            .map(|a| (*a, a.default_keys().to_vec()))
            .collect();
        Keymap::index(keys)
    }

    /// Defaults with some actions' keys replaced: `{"quit": ["ctrl-q"], "help": []}`. An empty list
    /// unbinds the action (it stays in the palette). Fails on an unknown action or key string, on a
    /// key bound to two actions in one context, and on a plain character bound in Compose.
    pub fn with_overrides(overrides: &BTreeMap<String, Vec<String>>) -> Result<Keymap, String> {
        let mut keys: BTreeMap<Action, Vec<KeyBinding>> = ALL_ACTIONS
            .iter()
            .map(|a| (*a, a.default_keys().to_vec()))
            .collect();
        for (name, strings) in overrides {
            let action = Action::from_name(name).ok_or_else(|| {
                format!("keys: unknown action '{name}' (the help screen lists every action name)")
            })?;
            let mut parsed = Vec::new();
            for s in strings {
                let k = parse_key(s).map_err(|e| format!("keys.{name}: {e}"))?;
                if action.context().types_text() && k.is_plain_char() {
                    let place = match action.context() {
                        Context::Compose => "the compose box",
                        Context::Edit => "the compose box and the prompts",
                        _ => "a prompt",
                    };
                    return Err(format!(
                        "keys.{name}: '{s}' is a plain character, which types text in {place}; \
                         add Ctrl or Alt"
                    ));
                }
                // A decision on the user's behalf must not be a key that typing produces: a dialog that opened
                // under a typing user would take the next letter, space or Enter as the answer.
                if action.decides() && (k.is_plain_char() || k == key(KeyCode::Enter)) {
                    return Err(format!(
                        "keys.{name}: '{s}' is a key typing produces, and {name} decides for you; \
                         use a Ctrl or Alt chord"
                    ));
                }
                if !parsed.contains(&k) {
                    parsed.push(k);
                }
            }
            keys.insert(action, parsed);
        }
        check_conflicts(&keys)?;
        Ok(Keymap::index(keys))
    }

    fn index(keys: BTreeMap<Action, Vec<KeyBinding>>) -> Keymap {
        let mut lookup = HashMap::new();
        for (action, bindings) in &keys {
            for k in bindings {
                // Conflicts were rejected before; for the static defaults a test guarantees none.
                lookup.entry((action.context(), *k)).or_insert(*action);
            }
        }
        Keymap { keys, lookup }
    }

    /// The action for a key press with the pane `ctx` focused: `ctx`'s bindings first, then the shared
    /// scrolling keys (not while typing), then Global.
    pub fn action(&self, ctx: Context, key: &KeyEvent) -> Option<Action> {
        // A pane is a modal that scrolls, unless it types text.
        self.modal_action(ctx, !ctx.types_text(), key)
    }

    /// The action for a key press in a modal of context `ctx`: its own bindings, then (where `ctx` types text)
    /// the text-editing keys, then the shared scrolling keys when `scrolls`, then Global (the modal decides
    /// which global actions it honours: Back, Quit …). Where `ctx` types text, printable keys are never actions
    /// outside its own bindings.
    pub fn modal_action(&self, ctx: Context, scrolls: bool, key: &KeyEvent) -> Option<Action> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        let k = KeyBinding::from_event(key);
        if let Some(a) = self.lookup.get(&(ctx, k)) {
            return Some(*a);
        }
        if ctx.types_text() {
            if let Some(a) = self.lookup.get(&(Context::Edit, k)) {
                return Some(*a);
            }
            if k.is_plain_char() {
                return None;
            }
        }
        if scrolls && let Some(a) = self.lookup.get(&(Context::Scroll, k)) {
            return Some(*a);
        }
        self.lookup.get(&(Context::Global, k)).copied()
    }

    /// The action bound to the key in exactly `ctx`, with no fallback.
    pub fn bound(&self, ctx: Context, key: &KeyEvent) -> Option<Action> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        self.lookup
            .get(&(ctx, KeyBinding::from_event(key)))
            .copied()
    }

    /// The keys bound to `a`, as display strings (`"Ctrl-P"`, `"Shift-Tab"`).
    pub fn keys_for(&self, a: Action) -> Vec<String> {
        self.bindings(a).iter().map(format_key).collect()
    }

    /// The first key bound to `a`, to name in a hint; its action name when it is unbound (the palette runs it).
    pub fn key_or_name(&self, a: Action) -> String {
        self.bindings(a)
            .first()
            .map(format_key)
            .unwrap_or_else(|| a.name().to_string())
    }

    /// The keys bound to `a`.
    pub fn bindings(&self, a: Action) -> &[KeyBinding] {
        self.keys.get(&a).map(Vec::as_slice).unwrap_or(&[])
    }

    /// One row per action, grouped by context in [`Context::ALL`] order.
    pub fn help_rows(&self) -> Vec<HelpRow> {
        Context::ALL
            .iter()
            .flat_map(|ctx| ALL_ACTIONS.iter().filter(move |a| a.context() == *ctx))
            .map(|a| HelpRow {
                context: a.context(),
                keys: self.keys_for(*a),
                action: *a,
                name: a.name(),
                description: a.description(),
            })
            .collect()
    }

    /// The README's key table, from the live bindings: a heading per context saying where it applies, then one
    /// row per action (keys, the name `[keys]` remaps, what it does). `readme_key_table_matches_keymap`
    /// keeps the README's copy equal to it.
    pub fn markdown_table(&self) -> String {
        let cell = |s: &str| s.replace('|', "\\|");
        let mut out = String::new();
        for ctx in Context::ALL {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&format!("**{}** — {}\n\n", ctx.title(), ctx.scope()));
            out.push_str("| keys | action | what it does |\n|---|---|---|\n");
            for a in ALL_ACTIONS.iter().filter(|a| a.context() == ctx) {
                let keys: Vec<String> = self
                    .keys_for(*a)
                    .iter()
                    .map(|k| format!("`{}`", cell(k)))
                    .collect();
                let keys = if keys.is_empty() {
                    "(unbound)".to_string()
                } else {
                    keys.join(" ")
                };
                out.push_str(&format!(
                    "| {keys} | `{}` | {} |\n",
                    a.name(),
                    cell(a.description())
                ));
            }
        }
        out
    }

    /// Every action, for the command palette.
    pub fn all_actions() -> &'static [Action] {
        ALL_ACTIONS
    }
}

impl Default for Keymap {
    fn default() -> Keymap {
        Keymap::defaults()
    }
}

fn check_conflicts(keys: &BTreeMap<Action, Vec<KeyBinding>>) -> Result<(), String> {
    let mut owner: HashMap<(Context, KeyBinding), Action> = HashMap::new();
    // Iterate in table order so the message is the same on every run.
    for action in ALL_ACTIONS {
        for k in keys.get(action).map(Vec::as_slice).unwrap_or(&[]) {
            if let Some(other) = owner.insert((action.context(), *k), *action) {
                return Err(format!(
                    "keys: {} is bound to both '{}' and '{}' in the {} context",
                    format_key(k),
                    other.name(),
                    action.name(),
                    action.context()
                ));
            }
        }
    }
    Ok(())
}

/// Actions whose name or description contains every word of the query, in table order.
pub fn palette_matches(query: &str) -> Vec<Action> {
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    Keymap::all_actions()
        .iter()
        .copied()
        .filter(|a| {
            // The name as the palette shows it (`switch_theme`) and as words (`switch theme`).
            let hay = format!(
                "{} {} {}",
                a.name(),
                a.name().replace('_', " "),
                a.description()
            )
            .to_lowercase();
            words.iter().all(|w| hay.contains(w))
        })
        .collect()
}

#[cfg(test)]
mod tests;
