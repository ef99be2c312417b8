//! Contrast of the built-in themes, computed from the theme files: every role that draws text reaches WCAG AA
//! (4.5:1) against the theme's background, in xterm's default palette, wherever the UI draws that role — on
//! the screen, in a title over a border, on the status bar, under a search match.

use super::*;
use crate::config::contrast::MIN_TEXT_CONTRAST;
use crate::testing::contrast::drawn_style;

/// Roles that draw no text of their own, and why they are left out here.
const NOT_TEXT: &[&str] = &[
    // Box-drawing lines, not words (WCAG asks 3:1 of such graphics, not 4.5:1). Titles drawn over them are
    // checked below, as an underlay.
    "border",
    "border_focus",
    // Patched over other text to mark search matches: checked below over every text role.
    "search_match",
    "search_current",
];

/// What `ui::status_bar` and `ui::mode_marker` draw on the status bar, patched over its style.
const ON_STATUS_BAR: &[&str] = &[
    "status_bar",
    "key_hint",
    "error",
    "ok",
    "input_required",
    "selection",
    "tab_active",
];

/// The background each built-in is made for, fixed here rather than read from the file, so a file that
/// claimed the wrong one could not pass by it.
fn made_for(name: &str) -> Background {
    match name {
        "light" => Background::Light,
        _ => Background::Dark,
    }
}

fn text_roles() -> impl Iterator<Item = &'static str> {
    ROLE_NAMES.iter().copied().filter(|r| !NOT_TEXT.contains(r))
}

/// Every place a role is drawn, as (where, the style the terminal ends up with).
fn placements(theme: &Theme, role: &str) -> Vec<(String, Style)> {
    let style = |r: &str| theme.role(r).unwrap_or_else(|| panic!("no role {r}"));
    let own = style(role);
    let mut out = vec![("on the screen".to_string(), own)];
    // A title span without a colour of its own takes the border's (ratatui draws titles over the border
    // cells): how the ids in a tab's title came out in grey 240.
    if own.fg.is_none() {
        for border in ["border", "border_focus"] {
            out.push((
                format!("in a title over {border}"),
                style(border).patch(own),
            ));
        }
    }
    for overlay in ["search_match", "search_current"] {
        out.push((format!("under {overlay}"), own.patch(style(overlay))));
    }
    if ON_STATUS_BAR.contains(&role) {
        out.push(("on the status bar".into(), style("status_bar").patch(own)));
    }
    out
}

#[test]
fn every_text_role_of_every_builtin_reaches_wcag_aa() {
    let mut failures = Vec::new();
    for name in Theme::builtin_names() {
        let theme = Theme::builtin(name).unwrap();
        let background = made_for(name);
        assert_eq!(theme.background, background, "theme '{name}': background");
        for role in text_roles() {
            for (place, style) in placements(&theme, role) {
                let drawn = drawn_style(style, background);
                if drawn.ratio() < MIN_TEXT_CONTRAST {
                    failures.push(format!(
                        "theme '{name}', role '{role}' {place}: {drawn}, needs {MIN_TEXT_CONTRAST}:1"
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} text placement(s) below WCAG AA (xterm's default palette; black behind the dark themes, white \
         behind the light one):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_model_is_honest_about_dim_and_reversed() {
    // Dim text is mixed half-way toward its background: dark blue on black is about 1.2:1 then.
    let d = drawn_style(
        Style::new().fg(Color::Blue).add_modifier(Modifier::DIM),
        Background::Dark,
    );
    assert_eq!(d.text, [0, 0, 0x77]);
    assert!(d.ratio() < 1.5, "{d}");
    // No colour survives dim on white: even black becomes mid grey, below 4.5:1.
    let d = drawn_style(
        Style::new().fg(Color::Black).add_modifier(Modifier::DIM),
        Background::Light,
    );
    assert!(d.ratio() < MIN_TEXT_CONTRAST, "{d}");
    // Reversed swaps the colours; `reset` is the user's own background.
    let d = drawn_style(
        Style::new()
            .fg(Color::Indexed(25))
            .add_modifier(Modifier::REVERSED),
        Background::Light,
    );
    assert_eq!((d.text, d.back), ([255; 3], [0, 95, 175]));
}
