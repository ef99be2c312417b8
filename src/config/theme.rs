//! Semantic colour roles for the UI, loaded from TOML; the built-in themes are embedded from `themes/`.
//!
//! Render code never names a colour: it asks for a role (`theme.remote_text`, `theme.failed` …), so a
//! theme file can restyle the console and `NO_COLOR` can strip it in one place.
//!
//! # File format
//!
//! One table per role, each with optional `fg`, `bg`, `modifiers` and `no_color_modifiers`:
//!
//! ```toml
//! extends = "dark"          # optional: inherit every role not given here from a built-in theme
//! background = "dark"       # optional: "dark" or "light", the terminal background the theme is for
//!
//! [remote_text]
//! fg = "#d7afff"            # a name ("cyan", "lightred", "reset"), "#rrggbb" or "indexed:0..255"
//! modifiers = ["italic"]    # bold, dim, italic, underlined, reversed, crossed_out
//! no_color_modifiers = []   # added under NO_COLOR only (same names)
//! ```
//!
//! Unknown roles, unknown keys, bad colours and bad modifiers are errors that name the role, the key
//! and the line: a typo never silently falls back to the default. Without `extends`, every role must
//! be present, so a theme cannot leave a role (say, `flag`) invisible by omission.
//!
//! `background = "dark"` or `"light"` says which terminal background the theme is made for (inherited
//! with `extends`; `"dark"` when a file without `extends` leaves it out). Code highlighting picks its
//! colour scheme by it.
//!
//! # Contrast
//!
//! Every role that draws text in a built-in theme has at least 4.5:1 (WCAG AA) contrast against the
//! theme's background in xterm's default palette; `theme_contrast_tests.rs` computes it from the files.
//! That rules out the `dim` modifier in colour: a terminal draws dim text at about half intensity, which
//! no colour survives on white and only near-white survives on black. Roles that need `dim` to stand
//! apart when colour is gone say so with `no_color_modifiers`, which apply under `NO_COLOR` only.
//!
//! # NO_COLOR
//!
//! [`Theme::without_color`] drops every `fg`/`bg`, keeps the modifiers and adds each role's
//! `no_color_modifiers`. The built-in themes give each of the ten badges a different modifier set
//! under `NO_COLOR` (tested), so task states stay distinguishable in monochrome. A user theme whose
//! badges collide once colour is gone gets [`MONOCHROME_BADGES`] instead, so the guarantee holds for
//! any theme. Badges should still be drawn with their word or symbol: style is a second channel, never
//! the only one.

use std::collections::BTreeSet;

use ratatui::style::{Color, Modifier, Style};
use toml::Spanned;

use super::contrast;
use toml::de::{DeTable, DeValue};

/// Built-in themes, in the order they are offered to the user.
const BUILTINS: &[(&str, &str)] = &[
    ("dark", include_str!("../../themes/dark.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
];

/// Declares the roles once, so the struct, the name list and the name lookup cannot drift apart.
macro_rules! roles {
    (
        roles { $($role:ident: $role_doc:literal,)* }
        badges { $($badge:ident: $badge_doc:literal,)* }
    ) => {
        /// A resolved theme: one ratatui [`Style`] per semantic role.
        ///
        /// Styles are meant to be patched over the surrounding style (`Style::patch`), so an unset
        /// `fg`/`bg` lets the background of the widget show through.
        #[derive(Clone, Debug, PartialEq)]
        pub struct Theme {
            /// Built-in name, or the file stem of a theme file.
            pub name: String,
            /// True after [`Theme::without_color`]: the UI may also drop purely decorative colour.
            pub no_color: bool,
            /// The terminal background the theme is made for.
            pub background: Background,
            /// Each role's `no_color_modifiers`, in [`ROLE_NAMES`] order: added by [`Theme::without_color`].
            no_color_modifiers: [Modifier; ROLE_COUNT],
            $(#[doc = $role_doc] pub $role: Style,)*
            $(#[doc = $badge_doc] pub $badge: Style,)*
        }

        /// Every role a theme file must define (or inherit), badges included, in file order.
        pub const ROLE_NAMES: &[&str] = &[$(stringify!($role),)* $(stringify!($badge),)*];

        /// The badge roles; each is named after the task or connection state it marks.
        pub const BADGE_ROLES: &[&str] = &[$(stringify!($badge),)*];

        impl Theme {
            /// A theme with every role unset; only a starting point for parsing.
            fn blank(name: &str) -> Theme {
                Theme {
                    name: name.to_string(),
                    no_color: false,
                    background: Background::Dark,
                    no_color_modifiers: [Modifier::empty(); ROLE_COUNT],
                    $($role: Style::new(),)*
                    $($badge: Style::new(),)*
                }
            }

            /// The style of a role by its file name (`"remote_text"`, `"input_required"` …).
            pub fn role(&self, role: &str) -> Option<Style> {
                match role {
                    $(stringify!($role) => Some(self.$role),)*
                    $(stringify!($badge) => Some(self.$badge),)*
                    _ => None,
                }
            }

            fn role_mut(&mut self, role: &str) -> Option<&mut Style> {
                match role {
                    $(stringify!($role) => Some(&mut self.$role),)*
                    $(stringify!($badge) => Some(&mut self.$badge),)*
                    _ => None,
                }
            }

            fn badges_mut(&mut self) -> [&mut Style; BADGE_COUNT] {
                [$(&mut self.$badge,)*]
            }
        }
    };
}

roles! {
    roles {
        text: "Ordinary text written by the console itself.",
        dim: "Secondary text: hints, timestamps, ids.",
        title: "Panel and dialog titles.",
        border: "Borders of panels without focus.",
        border_focus: "Border of the panel that has keyboard focus.",
        selection: "The selected row of a list.",
        accent: "Emphasis that is not a warning: agent names, links, counts.",
        status_bar: "The status bar line.",
        key_hint: "Key names in hints and on the help screen.",
        remote_text: "Text that came from a remote agent; must never look like the console's own text.",
        remote_label: "The provenance line above remote text (which agent, task and field it came from).",
        flag: "Injection, spoofing and hidden-character warnings raised by `trust::flags`.",
        error: "Errors.",
        warning: "Warnings that are not security flags.",
        ok: "Success messages.",
        user_text: "Text the user wrote (their own messages in a transcript).",
        tab_active: "The active task tab.",
        tab_inactive: "Other task tabs.",
        search_match: "A match of the transcript search (`/`).",
        search_current: "The current match of the transcript search (`n`/`N` move it).",
        code_inline: "Markdown `inline code` in remote text.",
        code_block: "A fenced code block before (or without) highlighting.",
        list_marker: "The bullet or number of a markdown list item.",
        quote: "A markdown block quote.",
        link: "The text of a markdown link.",
        json_key: "An object key in the JSON view.",
        json_string: "A string value in the JSON view.",
        json_number: "A number in the JSON view.",
        json_bool_null: "`true`, `false` and `null` in the JSON view.",
        json_punct: "Brackets, braces, commas and colons in the JSON view.",
        fold_marker: "The marker of a folded JSON object or array (`{…}`, `[…]`).",
    }
    badges {
        submitted: "Badge: task submitted, not yet started.",
        working: "Badge: task working.",
        input_required: "Badge: task waits for the user's input.",
        auth_required: "Badge: task waits for authentication.",
        completed: "Badge: task completed.",
        failed: "Badge: task failed.",
        canceled: "Badge: task canceled.",
        rejected: "Badge: task rejected by the agent.",
        connecting: "Badge: agent connection being set up.",
        disconnected: "Badge: agent unreachable or stream lost.",
    }
}

const BADGE_COUNT: usize = 10;
const ROLE_COUNT: usize = ROLE_NAMES.len();

/// The terminal background a theme is made for: the contrast its colours are chosen for, and the code
/// highlighting scheme that goes with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Background {
    Dark,
    Light,
}

impl Background {
    /// `"dark"` or `"light"`, as in a theme file.
    pub fn name(self) -> &'static str {
        match self {
            Background::Dark => "dark",
            Background::Light => "light",
        }
    }

    /// The background xterm shows a user of such a theme by default: black (`xterm -rv`) or white.
    pub fn xterm_rgb(self) -> contrast::Rgb {
        match self {
            Background::Dark => contrast::BLACK,
            Background::Light => contrast::WHITE,
        }
    }

    /// The foreground that goes with [`Background::xterm_rgb`]: what a `"reset"` foreground shows.
    pub fn xterm_text_rgb(self) -> contrast::Rgb {
        match self {
            Background::Dark => contrast::WHITE,
            Background::Light => contrast::BLACK,
        }
    }
}

/// Badge modifiers used under `NO_COLOR` when a theme's own badges would be indistinguishable:
/// waiting = dim, in motion = italic, needs the user = reversed, finished = bold or underlined.
/// Same order as [`BADGE_ROLES`].
pub const MONOCHROME_BADGES: [Modifier; BADGE_COUNT] = [
    Modifier::DIM,                                  // submitted
    Modifier::ITALIC,                               // working
    Modifier::BOLD.union(Modifier::REVERSED),       // input_required
    Modifier::UNDERLINED.union(Modifier::REVERSED), // auth_required
    Modifier::BOLD,                                 // completed
    Modifier::REVERSED,                             // failed
    Modifier::UNDERLINED,                           // canceled
    Modifier::ITALIC.union(Modifier::REVERSED),     // rejected
    Modifier::DIM.union(Modifier::ITALIC),          // connecting
    Modifier::DIM.union(Modifier::UNDERLINED),      // disconnected
];

/// Modifiers a theme may use. Blinking and `hidden` are left out on purpose: `hidden` applied to
/// remote text would make an agent's words invisible, which is exactly what `trust` guards against.
const MODIFIERS: &[(&str, Modifier)] = &[
    ("bold", Modifier::BOLD),
    ("dim", Modifier::DIM),
    ("italic", Modifier::ITALIC),
    ("underlined", Modifier::UNDERLINED),
    ("reversed", Modifier::REVERSED),
    ("crossed_out", Modifier::CROSSED_OUT),
];

const ROLE_KEYS: &str = "fg, bg, modifiers, no_color_modifiers";

/// Keys of a theme file outside the role tables.
const TOP_KEYS: &[&str] = &["extends", "background"];

impl Theme {
    /// Names accepted by [`Theme::builtin`].
    pub fn builtin_names() -> &'static [&'static str] {
        const NAMES: &[&str] = &["dark", "light", "high-contrast"];
        NAMES
    }

    /// One of the embedded themes: `"dark"`, `"light"` or `"high-contrast"`.
    pub fn builtin(name: &str) -> Result<Theme, String> {
        let text = builtin_text(name).ok_or_else(|| {
            format!(
                "unknown theme '{name}' (built-in themes: {})",
                Self::builtin_names().join(", ")
            )
        })?;
        Theme::from_toml(name, text)
    }

    /// A built-in theme by name, or else a theme file by path (its name is the file stem).
    pub fn load(name_or_path: &str) -> Result<Theme, String> {
        if builtin_text(name_or_path).is_some() {
            return Theme::builtin(name_or_path);
        }
        let path = std::path::Path::new(name_or_path);
        let text = std::fs::read_to_string(path).map_err(|e| {
            format!(
                "theme '{name_or_path}' is not a built-in theme ({}) and cannot be read as a file: {e}",
                Self::builtin_names().join(", ")
            )
        })?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| name_or_path.to_string());
        Theme::from_toml(&name, &text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Parses a theme file. `name` is used in error messages and becomes [`Theme::name`].
    pub fn from_toml(name: &str, text: &str) -> Result<Theme, String> {
        let at = |span: std::ops::Range<usize>| {
            format!("theme '{name}', line {}", line_of(text, span.start))
        };
        let doc = DeTable::parse(text).map_err(|e| match e.span() {
            Some(span) => format!("{}: invalid TOML: {}", at(span), e.message().trim()),
            None => format!("theme '{name}': invalid TOML: {}", e.message().trim()),
        })?;

        let mut theme = Theme::blank(name);
        let mut seen: BTreeSet<String> = BTreeSet::new();

        // `extends` first, so the roles below override the inherited ones whatever the file order.
        let mut extends = false;
        for (key, value) in doc.get_ref().iter() {
            if key.get_ref() != "extends" {
                continue;
            }
            let Some(base) = value.get_ref().as_str() else {
                return Err(format!(
                    "{}: extends must be a string naming a built-in theme",
                    at(value.span())
                ));
            };
            let base_text = builtin_text(base).ok_or_else(|| {
                format!(
                    "{}: extends = \"{base}\" is not a built-in theme ({})",
                    at(value.span()),
                    Self::builtin_names().join(", ")
                )
            })?;
            theme = Theme::from_toml(name, base_text)?;
            extends = true;
        }

        for (key, value) in doc.get_ref().iter() {
            let role = key.get_ref().as_ref();
            if role == "extends" {
                continue;
            }
            if role == "background" {
                theme.background = match value.get_ref().as_str() {
                    Some("dark") => Background::Dark,
                    Some("light") => Background::Light,
                    _ => {
                        return Err(format!(
                            "{}: background must be \"dark\" or \"light\"",
                            at(value.span())
                        ));
                    }
                };
                continue;
            }
            let Some(index) = role_index(role) else {
                return Err(format!(
                    "{}: unknown role '{role}' (roles: {}; other keys: {})",
                    at(key.span()),
                    ROLE_NAMES.join(", "),
                    TOP_KEYS.join(", ")
                ));
            };
            let DeValue::Table(table) = value.get_ref() else {
                return Err(format!(
                    "{}: role '{role}' must be a table like [{role}] with {ROLE_KEYS}",
                    at(key.span())
                ));
            };
            let (parsed, no_color) = parse_role(role, table, &at)?;
            if let Some(style) = theme.role_mut(role) {
                *style = parsed;
            }
            if let Some(slot) = theme.no_color_modifiers.get_mut(index) {
                *slot = no_color;
            }
            seen.insert(role.to_string());
        }

        if !extends {
            let missing: Vec<&str> = ROLE_NAMES
                .iter()
                .copied()
                .filter(|r| !seen.contains(*r))
                .collect();
            if !missing.is_empty() {
                return Err(format!(
                    "theme '{name}': missing roles: {} (add a table for each, or `extends = \"dark\"` to inherit them)",
                    missing.join(", ")
                ));
            }
        }
        Ok(theme)
    }

    /// The theme for `NO_COLOR`: every `fg`/`bg` (and underline colour) dropped, modifiers kept, and
    /// each role's `no_color_modifiers` added (they stand in for the colour that set the role apart).
    ///
    /// If two badges would then look the same, all ten badges switch to [`MONOCHROME_BADGES`], so
    /// task states stay distinguishable whatever theme was loaded.
    pub fn without_color(mut self) -> Theme {
        let extra = self.no_color_modifiers;
        for (role, extra) in ROLE_NAMES.iter().zip(extra) {
            if let Some(style) = self.role_mut(role) {
                *style = strip_color(*style).add_modifier(extra);
            }
        }
        let badges = self.badges_mut();
        let distinct = badges
            .iter()
            .enumerate()
            .all(|(i, a)| badges.iter().skip(i + 1).all(|b| **a != **b));
        if !distinct {
            for (style, modifier) in badges.into_iter().zip(MONOCHROME_BADGES) {
                *style = Style::new().add_modifier(modifier);
            }
        }
        self.no_color = true;
        self
    }
}

/// True when the user asked for no colour: `NO_COLOR` is set and not empty (<https://no-color.org>).
pub fn no_color_requested() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

fn builtin_text(name: &str) -> Option<&'static str> {
    BUILTINS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}

fn role_index(role: &str) -> Option<usize> {
    ROLE_NAMES.iter().position(|r| *r == role)
}

fn line_of(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

fn strip_color(style: Style) -> Style {
    // Keep only what a monochrome terminal can show; `sub_modifier` matters when patching.
    let mut out = Style::new().add_modifier(style.add_modifier);
    out.sub_modifier = style.sub_modifier;
    out
}

fn parse_role(
    role: &str,
    table: &DeTable<'_>,
    at: &dyn Fn(std::ops::Range<usize>) -> String,
) -> Result<(Style, Modifier), String> {
    let mut style = Style::new();
    let mut no_color = Modifier::empty();
    for (key, value) in table.iter() {
        let where_ = at(value.span());
        match key.get_ref().as_ref() {
            k @ ("fg" | "bg") => {
                let Some(s) = value.get_ref().as_str() else {
                    return Err(format!(
                        "{where_}: role '{role}': {k} must be a string colour"
                    ));
                };
                let color =
                    parse_color(s).map_err(|e| format!("{where_}: role '{role}': {k}: {e}"))?;
                style = if k == "fg" {
                    style.fg(color)
                } else {
                    style.bg(color)
                };
            }
            k @ ("modifiers" | "no_color_modifiers") => {
                let DeValue::Array(items) = value.get_ref() else {
                    return Err(format!(
                        "{where_}: role '{role}': {k} must be a list like [\"bold\"]"
                    ));
                };
                for item in items.iter() {
                    let where_ = at(item.span());
                    let m = item
                        .get_ref()
                        .as_str()
                        .and_then(parse_modifier)
                        .ok_or_else(|| {
                            format!(
                                "{where_}: role '{role}': unknown modifier {} (modifiers: {})",
                                show_value(item),
                                MODIFIERS
                                    .iter()
                                    .map(|(n, _)| *n)
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            )
                        })?;
                    if k == "modifiers" {
                        style = style.add_modifier(m);
                    } else {
                        no_color |= m;
                    }
                }
            }
            other => {
                return Err(format!(
                    "{}: role '{role}': unknown key '{other}' (keys: {ROLE_KEYS})",
                    at(key.span())
                ));
            }
        }
    }
    Ok((style, no_color))
}

fn show_value(v: &Spanned<DeValue<'_>>) -> String {
    match v.get_ref().as_str() {
        Some(s) => format!("'{s}'"),
        None => format!("of type {}", v.get_ref().type_str()),
    }
}

fn parse_modifier(s: &str) -> Option<Modifier> {
    let s = s.to_ascii_lowercase().replace('-', "_");
    MODIFIERS.iter().find(|(n, _)| *n == s).map(|(_, m)| *m)
}

/// Parses `"cyan"`, `"light-red"`, `"reset"`, `"#rrggbb"` or `"indexed:208"`.
pub fn parse_color(s: &str) -> Result<Color, String> {
    const HELP: &str = "expected a name like \"cyan\", \"#rrggbb\" or \"indexed:208\"";
    let t = s.trim();
    if let Some(hex) = t.strip_prefix('#') {
        let ok = hex.len() == 6 && hex.bytes().all(|b| b.is_ascii_hexdigit());
        let byte = |i: usize| u8::from_str_radix(hex.get(i..i + 2).unwrap_or(""), 16);
        return match (ok, byte(0), byte(2), byte(4)) {
            (true, Ok(r), Ok(g), Ok(b)) => Ok(Color::Rgb(r, g, b)),
            _ => Err(format!("bad colour '{s}' ({HELP})")),
        };
    }
    let lower = t.to_ascii_lowercase();
    if let Some(n) = lower.strip_prefix("indexed:") {
        return n
            .trim()
            .parse::<u8>()
            .map(Color::Indexed)
            .map_err(|_| format!("bad colour '{s}': the index must be 0..=255"));
    }
    let name = lower.replace(['-', '_', ' '], "").replace("grey", "gray");
    let color = match name.as_str() {
        "reset" | "default" => Color::Reset,
        "black" => Color::Black,
        "red" => Color::Red,
        "green" => Color::Green,
        "yellow" => Color::Yellow,
        "blue" => Color::Blue,
        "magenta" => Color::Magenta,
        "cyan" => Color::Cyan,
        "gray" => Color::Gray,
        "darkgray" => Color::DarkGray,
        "lightred" => Color::LightRed,
        "lightgreen" => Color::LightGreen,
        "lightyellow" => Color::LightYellow,
        "lightblue" => Color::LightBlue,
        "lightmagenta" => Color::LightMagenta,
        "lightcyan" => Color::LightCyan,
        "white" => Color::White,
        _ => return Err(format!("bad colour '{s}' ({HELP})")),
    };
    Ok(color)
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod contrast_tests;
