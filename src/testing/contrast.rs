//! How a terminal shows a styled cell, for the contrast tests of the themes and of drawn screens: colours
//! through xterm's default palette, `reset` as the defaults a user of the theme has, `reversed` swapping the
//! two, and `dim` at half intensity.

use ratatui::style::{Color, Modifier, Style};

use crate::config::contrast::{Rgb, blend, contrast, xterm_rgb};
use crate::config::theme::Background;

/// The text and background colours of a cell, as the terminal draws them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Drawn {
    pub text: Rgb,
    pub back: Rgb,
}

impl Drawn {
    /// WCAG contrast between the text and its background.
    pub fn ratio(self) -> f64 {
        contrast(self.text, self.back)
    }
}

impl std::fmt::Display for Drawn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let hex = |c: Rgb| format!("#{:02x}{:02x}{:02x}", c[0], c[1], c[2]);
        write!(
            f,
            "{} on {} = {:.2}:1",
            hex(self.text),
            hex(self.back),
            self.ratio()
        )
    }
}

/// A cell with these colours and modifiers on a terminal with xterm's defaults for `background`. An unset
/// or `reset` colour is the terminal's own: black or white behind, the other in front.
pub fn drawn(
    fg: Option<Color>,
    bg: Option<Color>,
    modifiers: Modifier,
    background: Background,
) -> Drawn {
    let mut text = fg
        .and_then(xterm_rgb)
        .unwrap_or(background.xterm_text_rgb());
    let mut back = bg.and_then(xterm_rgb).unwrap_or(background.xterm_rgb());
    if modifiers.contains(Modifier::REVERSED) {
        std::mem::swap(&mut text, &mut back);
    }
    // Terminals draw faint (SGR 2) text at about half intensity (VTE and xterm mix the colour half-way
    // toward the background; others are close). Taken at its word here, it is what makes dim text unreadable.
    if modifiers.contains(Modifier::DIM) {
        text = blend(text, back, 0.5);
    }
    Drawn { text, back }
}

/// [`drawn`] for a style (its added modifiers).
pub fn drawn_style(style: Style, background: Background) -> Drawn {
    drawn(style.fg, style.bg, style.add_modifier, background)
}
